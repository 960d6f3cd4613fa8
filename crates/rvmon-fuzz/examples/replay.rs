//! Runs a fuzz target on files, as the long run does (on the binary's stack), and prints each
//! file's time and whether the target accepted it:
//!
//!     cargo run --release -p rvmon-fuzz --example replay -- TARGET FILE...
//!
//! Run it under `ulimit -v 2000000` to see what the long run would call an abort.

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().expect("usage: replay TARGET FILE...");
    let target = rvmon_fuzz::targets::target(&name);
    for file in args {
        let input = std::fs::read(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let start = Instant::now();
        let outcome = match rvmon_fuzz::on_big_stack(|| (target.run)(&input)) {
            Ok(true) => "accepted",
            Ok(false) => "error",
            Err(_) => "PANIC",
        };
        println!(
            "{file}: {outcome} in {:.3} s",
            start.elapsed().as_secs_f64()
        );
    }
}
