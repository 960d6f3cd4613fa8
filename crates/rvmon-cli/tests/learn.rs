//! `rvmon learn`: the line AALpy's oracle script prints, the same counts as AALpy's L* and
//! KV (on the peers' examples and on random DFAs, against AALpy itself), a program and a
//! specification as the system, and bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rvmon_testkit::{skip, summary, Needs};

fn rvmon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rvmon"))
        .arg("learn")
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/learn")
        .join(name)
        .display()
        .to_string()
}

fn peers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/peers")
}

fn dir() -> PathBuf {
    rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "learn")
}

/// AALpy's recorded output (`peers/examples/aalpy/out`), line for line: the counts and the
/// learned DFA (`--print-model`) of L* and KV on "ends in aa", and L* on the mod-5 DFA.
/// (AALpy's KV prints its loop iterations as `eq`; rvmon counts equivalence queries: 4
/// where AALpy's line says 5 on mod5.)
#[test]
fn the_lines_aalpy_recorded() {
    let out = peers().join("examples/aalpy/out");
    let Ok(recorded) = std::fs::read_to_string(out.join("aa_suffix.learn.txt")) else {
        return skip(
            "learn: AALpy's outputs",
            Needs::Shared,
            "../shared/peers is not there",
        );
    };
    let target = peers().join("examples/aalpy/aa_suffix.json");
    let target = target.to_str().unwrap();
    let mut ours = String::new();
    for alg in ["lstar", "kv"] {
        let o = rvmon(&[target, "--alg", alg, "--print-model"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        ours.push_str(&stdout(&o));
    }
    let theirs: Vec<&str> = recorded.lines().take(16).collect();
    assert_eq!(ours.lines().collect::<Vec<_>>(), theirs);
    let mod5 = peers().join("examples/aalpy/mod5.json");
    let recorded = std::fs::read_to_string(out.join("mod5.learn.perfect.txt")).unwrap();
    let o = rvmon(&[mod5.to_str().unwrap(), "--alg", "lstar"]);
    assert_eq!(stdout(&o).trim(), recorded.lines().next().unwrap());
    let o = rvmon(&[mod5.to_str().unwrap(), "--alg", "kv"]);
    assert_eq!(
        stdout(&o).trim(),
        "alg=kv states=6 mq=39 mq_steps=156 eq=4 eq_tests=0 equivalent=true"
    );
}

/// A random complete DFA as AALpy's JSON (a small fixed generator: the cases are the same
/// on every machine).
fn random_dfa(seed: u64, n: usize, k: usize) -> String {
    let mut x = seed;
    let mut next = |m: usize| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 33) as usize) % m
    };
    let alphabet: Vec<String> = (0..k).map(|a| format!("\"x{a}\"")).collect();
    let mut rows = Vec::new();
    let mut accepting = Vec::new();
    for q in 0..n {
        if next(2) == 1 {
            accepting.push(format!("\"q{q}\""));
        }
        let row: Vec<String> = (0..k)
            .map(|a| format!("\"x{a}\": \"q{}\"", next(n)))
            .collect();
        rows.push(format!("\"q{q}\": {{{}}}", row.join(", ")));
    }
    format!(
        "{{\"alphabet\": [{}], \"initial\": \"q0\", \"accepting\": [{}], \"transitions\": {{{}}}}}\n",
        alphabet.join(", "),
        accepting.join(", "),
        rows.join(", ")
    )
}

/// Differential, against AALpy 2.0.0 itself (`PEERS_PY`): on 30 random DFAs of 3 to 60
/// states and 2 to 6 letters, with the perfect oracle, rvmon's L* prints AALpy's line, and
/// its KV the same states and membership queries and symbols. TTT learns the same automaton.
#[test]
fn random_dfas_count_as_aalpy() {
    let Some(python) = std::env::var_os("PEERS_PY") else {
        return skip(
            "learn: AALpy differential",
            Needs::Peer,
            "PEERS_PY is not set (a Python with `pip install aalpy`)",
        );
    };
    let probe = Command::new(&python).args(["-c", "import aalpy"]).status();
    if !probe.is_ok_and(|s| s.success()) {
        return skip(
            "learn: AALpy differential",
            Needs::Peer,
            "PEERS_PY cannot import aalpy",
        );
    }
    let oracle = peers().join("oracles/aalpy_oracle.py");
    let mut symbols = [0u64; 3];
    for case in 0..30u64 {
        let (n, k) = (3 + (case as usize * 7) % 58, 2 + (case as usize) % 5);
        let path = dir().join(format!("dfa{case}.json"));
        std::fs::write(&path, random_dfa(case + 1, n, k)).unwrap();
        let target = path.to_str().unwrap();
        let theirs = Command::new(&python)
            .arg(&oracle)
            .args(["learn", "--algs", "lstar,kv", "--eq", "perfect", target])
            .output()
            .unwrap();
        let theirs = stdout(&theirs);
        let theirs: Vec<&str> = theirs.lines().collect();
        assert_eq!(theirs.len(), 2, "AALpy on case {case}: {theirs:?}");
        let lstar = stdout(&rvmon(&[target, "--alg", "lstar"]));
        assert_eq!(lstar.trim(), theirs[0], "case {case}");
        let kv = stdout(&rvmon(&[target, "--alg", "kv"]));
        let fields = |line: &str| -> Vec<String> {
            line.split_whitespace()
                .filter(|f| !f.starts_with("eq="))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(fields(kv.trim()), fields(theirs[1]), "case {case}");
        let ttt = stdout(&rvmon(&[target, "--alg", "ttt"]));
        assert!(ttt.ends_with("equivalent=true\n"), "case {case}: {ttt}");
        let steps = |line: &str| -> u64 {
            let f = line.split_whitespace().find(|f| f.starts_with("mq_steps="));
            f.and_then(|f| f[9..].parse().ok()).unwrap()
        };
        for (i, line) in [ttt.as_str(), lstar.as_str(), kv.as_str()]
            .iter()
            .enumerate()
        {
            symbols[i] += steps(line);
        }
    }
    summary(
        "learn: AALpy differential",
        &format!(
            "30 random DFAs agree; query symbols: ttt {} lstar {} kv {}",
            symbols[0], symbols[1], symbols[2]
        ),
    );
}

/// A program as the system (`--process`), learned with random words; its answers must be
/// answers.
#[test]
fn a_program_is_learned() {
    let script = format!("python3 {}", example("ends_in_aa.py"));
    let o = rvmon(&[&script, "--process", "--alphabet", "a,b", "--seed", "7"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let line = stdout(&o);
    assert!(line.starts_with("alg=ttt states=3 "), "{line}");
    assert!(
        !line.contains("equivalent="),
        "no target to compare with: {line}"
    );
    let o = rvmon(&["echo maybe", "--process", "--alphabet", "a,b"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`echo maybe` asked the word ``: it answered `maybe`, expected 1 or 0"),
        "{}",
        stderr(&o)
    );
    let o = rvmon(&[&script, "--process", "--alphabet", "a,b", "--eq", "perfect"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--eq perfect needs the target's automaton"));
}

/// A specification as the system: `request` needs a `grant` at most 2 time points before
/// (the same point included). The minimal DFA: the last point was a grant, the one before
/// was, neither (a request now is a violation: two points since a grant are as good as
/// none, the next point is three away), and the violation, a sink: 4 states. The model
/// written is the target of the next run.
#[test]
fn a_specification_is_learned() {
    let model = dir().join("requests.json");
    let o = rvmon(&[
        &example("requests.mtl"),
        "--alphabet",
        "request,grant,idle",
        "--output",
        model.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let line = stdout(&o);
    assert!(line.starts_with("alg=ttt states=4 "), "{line}");
    let again = rvmon(&[model.to_str().unwrap(), "--alg", "kv"]);
    assert!(stdout(&again).contains("states=4 "), "{}", stdout(&again));
    assert!(stdout(&again).ends_with("equivalent=true\n"));
}

/// The paper's target, and the DOT round trip.
#[test]
fn dot_files_round_trip() {
    let dot = dir().join("mod4.dot");
    let o = rvmon(&[&example("mod4.json"), "--output", dot.to_str().unwrap()]);
    assert_eq!(
        stdout(&o),
        "alg=ttt states=4 mq=15 mq_steps=44 eq=2 eq_tests=0 equivalent=true\n"
    );
    let o = rvmon(&[dot.to_str().unwrap(), "--alg", "lstar"]);
    assert_eq!(
        stdout(&o),
        "alg=lstar states=4 mq=14 mq_steps=47 eq=2 eq_tests=0 equivalent=true\n"
    );
}

/// LearnLib's numeric `.dfa` (paper 26's benchmark files), learned with paper 26's
/// equivalence oracle: walks that stay in the language, the whole walk a counterexample.
#[test]
fn learnlib_files_and_walks() {
    // Prefix-closed: a's then b's; a after b is the sink.
    let path = dir().join("ab.dfa");
    std::fs::write(&path, "3 2\n1 1 0\n0 1\n2 1\n2 2\n").unwrap();
    for alg in ["ttt", "lstar", "kv"] {
        let o = rvmon(&[
            path.to_str().unwrap(),
            "--alg",
            alg,
            "--eq",
            "walk",
            "--length",
            "40",
            "--no-cache",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stdout(&o).contains(" states=3 "), "{alg}: {}", stdout(&o));
        assert!(
            stdout(&o).ends_with("equivalent=true\n"),
            "{alg}: {}",
            stdout(&o)
        );
    }
    std::fs::write(&path, "3 2\n1 1 0\n0 1\n2 3\n2 2\n").unwrap();
    let o = rvmon(&[path.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("state 1, symbol 1: successor 3, there are 3 states"),
        "{}",
        stderr(&o)
    );
}

/// Bad input: where, and what was expected; exit status 2.
#[test]
fn bad_input_says_where() {
    let cases = [
        ("bad.json", "{\"alphabet\": [\"a\"],\n \"initial\": }", "bad.json:2:13: "),
        (
            "incomplete.json",
            "{\"alphabet\": [\"a\", \"b\"], \"initial\": \"q\", \"transitions\": {\"q\": {\"a\": \"q\"}}}",
            "the DFA is not complete: state `q` has no transition by b",
        ),
        (
            "unknown.json",
            "{\"alphabet\": [\"a\"], \"initial\": \"q\", \"transitions\": {\"q\": {\"a\": \"r\"}}}",
            "state `r` is not among the states",
        ),
        (
            "start.dot",
            "digraph g {\ns0 [label=\"s0\"];\ns0 -> s0 [label=\"a\"];\n}\n",
            "no initial state (expected `__start0 -> STATE`)",
        ),
        (
            "label.dot",
            "digraph g {\n__start0 -> s0;\ns0 -> s0;\n}\n",
            "label.dot:3:4: expected a transition with a `label`",
        ),
    ];
    for (name, text, expected) in cases {
        let path = dir().join(name);
        std::fs::write(&path, text).unwrap();
        let o = rvmon(&[path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        assert!(stderr(&o).contains(expected), "{name}: {}", stderr(&o));
    }
    let o = rvmon(&[&example("mod4.json"), "--alg", "nope"]);
    assert!(stderr(&o).contains("--alg nope: expected one of ttt, lstar, kv"));
    let o = rvmon(&[&example("requests.mtl")]);
    assert!(stderr(&o).contains("--alphabet"), "{}", stderr(&o));
}
