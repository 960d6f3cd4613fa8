//! `rvmon smc`: Craps (paper 28) exactly and by simulation; AAlergia on sampled runs, model
//! for model as AALpy's Alergia (against AALpy 2.0.0 itself, `PEERS_PY`); bad input.

use std::path::Path;
use std::process::{Command, Output};

use rvmon_testkit::{skip, summary, Needs};

fn rvmon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rvmon"))
        .arg("smc")
        .args(args)
        .output()
        .unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn craps() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/smc/craps.dot")
        .display()
        .to_string()
}

#[test]
fn craps_exactly_and_by_simulation() {
    let o = rvmon(&[
        "check",
        &craps(),
        "F won",
        "--pestim",
        "0.01,0.01",
        "--sprt",
        "0.5,0.005,0.01,0.01",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = out(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "model=given states=9 property=\"F won\" exact=0.492929"
    );
    assert!(
        lines[1].starts_with("method=pestim delta=0.01 alpha=0.01 samples=211933 estimate=0.49")
    );
    assert!(
        lines[2].contains("verdict=H1 (p <= theta - delta)"),
        "{}",
        lines[2]
    );
}

/// Runs of the true model, learned by rvmon and by AALpy: the same model, line for line.
#[test]
fn learned_as_aalpy_learns() {
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "smc");
    let seqs = dir.join("craps.txt");
    let o = rvmon(&[
        "sample",
        &craps(),
        "--traces",
        "3000",
        "--length",
        "2..12",
        "--seed",
        "9",
    ]);
    std::fs::write(&seqs, &o.stdout).unwrap();
    let ours = out(&rvmon(&["learn", seqs.to_str().unwrap()]));
    assert!(
        ours.starts_with("# alergia mc eps=0.05 sequences=3000 states="),
        "{ours}"
    );
    let learned = rvmon(&["check", seqs.to_str().unwrap(), "F won"]);
    let exact: f64 = out(&learned)
        .split("exact=")
        .nth(1)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!((exact - 244.0 / 495.0).abs() < 0.05, "{exact}");
    let Some(python) = std::env::var_os("PEERS_PY") else {
        return skip("smc: AALpy's Alergia", Needs::Peer, "PEERS_PY is not set");
    };
    let oracle =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/peers/oracles/aalpy_oracle.py");
    if !oracle.exists() {
        return skip(
            "smc: AALpy's Alergia",
            Needs::Shared,
            "../shared/peers is not there",
        );
    }
    let theirs = Command::new(python)
        .arg(&oracle)
        .args(["alergia", seqs.to_str().unwrap()])
        .output()
        .unwrap();
    if !theirs.status.success() {
        return skip(
            "smc: AALpy's Alergia",
            Needs::Peer,
            "PEERS_PY cannot run AALpy",
        );
    }
    assert_eq!(ours, out(&theirs));
    summary(
        "smc: AALpy's Alergia",
        "the learned Craps model is AALpy's, line for line",
    );
}

/// Paper 28's Table 1: 5,000 runs of Craps projected onto {won, lost} learn 4 states and
/// Pr(F won) near the truth (the paper: 0.485); projected onto {won} alone (the support of
/// `F won`, `--project`), 3 states in which `won` is certain (the paper: 1, the projection
/// loses the determinism that AAlergia needs).
#[test]
fn projection_as_table_1() {
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "smc-projection");
    let seqs = dir.join("craps.txt");
    let o = rvmon(&[
        "sample",
        &craps(),
        "--traces",
        "5000",
        "--length",
        "2..10",
        "--seed",
        "1",
    ]);
    std::fs::write(&seqs, &o.stdout).unwrap();
    let seqs = seqs.to_str().unwrap();
    let both = out(&rvmon(&["check", seqs, "!lost U won", "--project"]));
    assert!(both.starts_with("model=learned states=4 "), "{both}");
    let p: f64 = both.split("exact=").nth(1).unwrap().trim().parse().unwrap();
    assert!((p - 244.0 / 495.0).abs() < 0.02, "{p}");
    let won = out(&rvmon(&["check", seqs, "F won", "--project"]));
    assert_eq!(
        won.trim(),
        "model=learned states=3 property=\"F won\" exact=1.000000"
    );
    let learned = out(&rvmon(&["learn", seqs, "--project", "won,lost"]));
    assert!(
        learned.contains("state 2 lost") && learned.contains("trans 3 3 1.000000"),
        "{learned}"
    );
}

/// IOAlergia (`--type mdp`): the note's toy, and 2,000 runs of a random 4-state MDP with
/// random inputs, learned by rvmon and by AALpy: the same model, line for line.
#[test]
fn mdps_as_aalpy_learns_them() {
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "smc-mdp");
    let toy = dir.join("toy.txt");
    std::fs::write(&toy, "init a:x b:y\ninit a:y a:x\ninit b:x\n").unwrap();
    let o = rvmon(&["learn", toy.to_str().unwrap(), "--type", "mdp"]);
    assert_eq!(
        out(&o),
        "# alergia mdp eps=0.05 sequences=3 states=3\nstate 0 init\nstate 1 x\nstate 2 y\n\
         trans 0 a 1 0.500000\ntrans 0 a 2 0.500000\ntrans 0 b 1 1.000000\n\
         trans 1 b 2 1.000000\ntrans 2 a 1 1.000000\n"
    );
    // A random MDP: states 0-3 labelled x, y, z, x; per state and input, two successors.
    let mut seed = 17u64;
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let labels = ["x", "y", "z", "x"];
    let succ: Vec<[(u64, u64); 2]> = (0..8)
        .map(|_| [(next(4), 1 + next(3)), (next(4), 1)])
        .collect();
    let mut text = String::new();
    for _ in 0..2000 {
        let (mut s, len) = (0u64, 2 + next(8));
        text.push_str("init");
        for _ in 0..len {
            let i = next(2);
            let [(a, wa), (b, wb)] = succ[(s * 2 + i) as usize];
            s = if next(wa + wb) < wa { a } else { b };
            text.push_str(&format!(
                " {}:{}",
                ["a", "b"][i as usize],
                labels[s as usize]
            ));
        }
        text.push('\n');
    }
    let seqs = dir.join("random.txt");
    std::fs::write(&seqs, text).unwrap();
    let ours = out(&rvmon(&["learn", seqs.to_str().unwrap(), "--type", "mdp"]));
    assert!(
        ours.starts_with("# alergia mdp eps=0.05 sequences=2000 states="),
        "{ours}"
    );
    let Some(python) = std::env::var_os("PEERS_PY") else {
        return skip("smc: AALpy's IOAlergia", Needs::Peer, "PEERS_PY is not set");
    };
    let oracle =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/peers/oracles/aalpy_oracle.py");
    if !oracle.exists() {
        return skip(
            "smc: AALpy's IOAlergia",
            Needs::Shared,
            "../shared/peers is not there",
        );
    }
    let theirs = Command::new(python)
        .arg(&oracle)
        .args(["alergia", "--type", "mdp", seqs.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(ours, out(&theirs));
    summary(
        "smc: AALpy's IOAlergia",
        "a random MDP's runs learned as AALpy learns them",
    );
}

#[test]
fn bad_input_says_what() {
    let o = rvmon(&["check", &craps(), "F (won"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("the property `F (won`: column 7: expected `)`"),
        "{}",
        err(&o)
    );
    let o = rvmon(&["check", &craps(), "F won", "--pestim", "0.01"]);
    assert!(
        err(&o).contains("--pestim 0.01: expected 2 comma-separated numbers"),
        "{}",
        err(&o)
    );
    let o = rvmon(&["learn", &craps(), "--eps", "3"]);
    assert!(
        err(&o).contains("--eps 3: expected a number in (0, 2]"),
        "{}",
        err(&o)
    );
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "smc-bad");
    let bad = dir.join("bad.dot");
    std::fs::write(
        &bad,
        "digraph g {\nq0 [label=\"a\"];\nq0 -> q0 [label=0.5];\n__start0 -> q0;\n}\n",
    )
    .unwrap();
    let o = rvmon(&["check", bad.to_str().unwrap(), "F a"]);
    assert!(
        err(&o).contains("the probabilities out of state `a` sum to 0.5, not 1"),
        "{}",
        err(&o)
    );
    let seqs = dir.join("mixed.txt");
    std::fs::write(&seqs, "init a b\nstart a\n").unwrap();
    let o = rvmon(&["learn", seqs.to_str().unwrap()]);
    assert!(
        err(&o).contains("sequence 2 starts with `start`, not `init`"),
        "{}",
        err(&o)
    );
}
