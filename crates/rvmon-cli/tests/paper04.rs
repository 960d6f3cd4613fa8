//! Paper 04 (Basin et al., Scalable Offline Monitoring): the running example P0 and Example 8,
//! as violations of the policy on small logs (vectors checked with a brute-force evaluator of
//! the pointwise semantics; see the notes of the session that added them). The interval of P0
//! is printed `[0,25]` but is almost certainly `[0,25)` (note A §4.2, erratum E1): both readings
//! are tested; they differ only on a session of exactly 25 hours. Equal timestamps are separate
//! time points: a logout at an earlier time point with the same timestamp does not count.

use std::path::PathBuf;

use rvmon_cli::check_cmd::{self, CheckArgs, Output};

fn file(name: &str, content: &str) -> PathBuf {
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "paper04");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

fn violations(spec: &str, sig: &str, log: &str, tag: &str) -> String {
    let args = CheckArgs {
        format: None,
        sig: Some(file(&format!("{tag}.sig"), sig).display().to_string()),
        output: Output::Monpoly,
        ..CheckArgs::new(
            file(&format!("{tag}.mfotl"), spec).display().to_string(),
            file(&format!("{tag}.log"), log).display().to_string(),
        )
    };
    let mut out = Vec::new();
    check_cmd::run(&args, &mut out, &mut std::io::sink()).unwrap();
    String::from_utf8(out).unwrap()
}

const P0_SIG: &str = "ssh_login(c:int,s:int) ssh_logout(c:int,s:int)";
const P0_LOG: &str = "@0 ssh_login(1,10) ssh_login(1,11) ssh_login(2,20)
@5 ssh_logout(1,10)
@24 ssh_logout(2,20)
@25 ssh_logout(1,11) ssh_logout(4,40) ssh_login(3,30)
@25 ssh_login(4,40) ssh_logout(3,30)
@30 ssh_login(1,12) ssh_logout(1,12) ssh_login(5,50)
@31 ssh_login(2,21) ssh_login(6,60)
@32 ssh_logout(7,60)
@57 ssh_logout(2,21)
@200 ssh_logout(9,99)
";

#[test]
fn p0_ssh_sessions_as_printed() {
    let got = violations(
        "ssh_login(c,s) IMPLIES EVENTUALLY[0,25] ssh_logout(c,s)",
        P0_SIG,
        P0_LOG,
        "p0a",
    );
    assert_eq!(got, "@25 (time point 4): (4,40)\n@30 (time point 5): (5,50)\n@31 (time point 6): (2,21) (6,60)\n");
}

#[test]
fn p0_ssh_sessions_with_the_erratum() {
    let got = violations(
        "ssh_login(c,s) IMPLIES EVENTUALLY[0,25) ssh_logout(c,s)",
        P0_SIG,
        P0_LOG,
        "p0b",
    );
    assert_eq!(
        got,
        "@0 (time point 0): (1,11)\n@25 (time point 4): (4,40)\n@30 (time point 5): (5,50)\n@31 (time point 6): (2,21) (6,60)\n"
    );
}

#[test]
fn example8_notification_within_five_units() {
    let log = "@0 ssh_login(1,1) ssh_login(1,2) ssh_login(3,3) ssh_login(4,4) notify(0,1) notify(0,2) notify(0,3) notify(0,4)
@1 notify(0,8)
@2 ssh_login(1,5) ssh_login(3,6) ssh_login(4,7) ssh_login(2,8)
@3 notify(7,7)
@7 notify(0,5)
@8 notify(0,6)
@20 notify(0,9)
";
    let sig = "ssh_login(c:int,s:int) notify(r:int,s:int)";
    let got = violations(
        "ssh_login(c,s) IMPLIES EVENTUALLY[0,6) notify(0,s)",
        sig,
        log,
        "ex8",
    );
    assert_eq!(got, "@2 (time point 2): (2,8) (3,6) (4,7)\n");
}
