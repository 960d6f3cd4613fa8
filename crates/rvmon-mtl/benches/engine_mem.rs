//! From-memory throughput of the propositional engine: the trace is decoded into proposition
//! vectors first, then the engine alone is timed (best of several runs).
//!
//! `cargo bench -p rvmon-mtl --bench engine_mem -- FORMULA.mtl TRACE.log [RUNS]`
//! prints `time_points seconds tp_per_s violations held_max`.

use std::time::Instant;

use rvmon_core::{TimePoint, Truth, Verdict};
use rvmon_logic::parse_formula;
use rvmon_mtl::Step;
use rvmon_mtl::{Engine, Program};
use rvmon_trace::{MonpolyLogReader, TraceReader};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let (Some(formula_path), Some(log_path)) = (args.first(), args.get(1)) else {
        eprintln!("usage: engine_mem FORMULA TRACE [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(5);
    let text = std::fs::read_to_string(formula_path).unwrap();
    let f = parse_formula(formula_path, &text).unwrap();
    let file = std::io::BufReader::new(std::fs::File::open(log_path).unwrap());
    let mut reader = MonpolyLogReader::new(file, log_path.as_str(), None);
    let program = Program::compile(&f, reader.interner_mut(), formula_path, &text).unwrap();
    // Flat layout: timestamps and index in one array, propositions in another.
    let width = program.props.len();
    let mut points: Vec<(u64, i64)> = Vec::new();
    let mut holds_all: Vec<bool> = Vec::new();
    let mut tp = TimePoint::default();
    let mut holds = vec![false; width];
    while reader.next_time_point(&mut tp).unwrap() {
        program.load_holds(&tp, &mut holds);
        holds_all.extend_from_slice(&holds);
        points.push((tp.index, tp.ts));
    }
    let mut best = f64::MAX;
    let mut violations = 0;
    let mut held_max = 0;
    for _ in 0..runs {
        let mut engine = Engine::new(program.clone());
        let mut out: Vec<Verdict> = Vec::with_capacity(1024);
        let mut v = 0usize;
        let start = Instant::now();
        for (i, (index, ts)) in points.iter().enumerate() {
            engine.set_holds(&holds_all[i * width..(i + 1) * width]);
            engine.step_props(*index, *ts, &mut out).unwrap();
            v += out.iter().filter(|x| x.value == Truth::False).count();
            out.clear();
            if i % 65536 == 0 {
                held_max = held_max.max(engine.held());
            }
        }
        engine.finish(&mut out);
        v += out.iter().filter(|x| x.value == Truth::False).count();
        best = best.min(start.elapsed().as_secs_f64());
        violations = v;
    }
    let n = points.len();
    println!(
        "{n} {best:.4} {:.0} {violations} {held_max}",
        n as f64 / best
    );
}
