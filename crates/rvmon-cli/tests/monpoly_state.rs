//! Monitor state snapshots in `rvmon monpoly` (MonPoly's `>save_state FILE<`,
//! `>save_and_exit FILE<` and `-load FILE`), in-process: a run cut anywhere and resumed from its
//! saved state prints what the uninterrupted run prints, for propositional and first-order
//! formulas, past and future, with and without `-verbose`, `-nonewlastts` and empty time-point
//! filtering; and a state that cannot be resumed is refused with a message that says why.

use std::io::Write;
use std::path::PathBuf;

use proptest::prelude::*;
use rvmon_cli::monpoly_cmd::{run, MonpolyArgs};

/// A fresh directory for one test case.
fn dir(name: &str) -> PathBuf {
    let d = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "monpoly_state").join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `rvmon monpoly ARGS`; returns (status, stdout, stderr), with an error as status 2 and
/// its message on stderr (as the binary reports it).
fn monpoly(args: &[String]) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = match MonpolyArgs::parse(args).and_then(|a| run(&a, &mut out, &mut err)) {
        Ok(code) => code,
        Err(e) => {
            writeln!(err, "rvmon: error: {e}").unwrap();
            2
        }
    };
    (
        status,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

/// A fresh directory for one test with `files` (name, content) written in it; returns the path
/// of a file there.
fn with_files(name: &str, files: &[(&str, &str)]) -> impl Fn(&str) -> String {
    let d = dir(name);
    for (file, content) in files {
        std::fs::write(d.join(file), content).unwrap();
    }
    move |file: &str| d.join(file).display().to_string()
}

/// `-sig s.sig -formula f.mfotl -log t.log`, in the directory of `path`.
fn args_for(path: &impl Fn(&str) -> String) -> Vec<String> {
    strs(&[
        "-sig",
        &path("s.sig"),
        "-formula",
        &path("f.mfotl"),
        "-log",
        &path("t.log"),
    ])
}

fn strs(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

const SIG: &str = "P(int)\nQ(int,int)\nA()\nB()\n";

/// Past and future, propositional and first-order, closed and with free variables.
const FORMULAS: &[&str] = &[
    "ONCE[0,2] P(x)",
    "P(x) AND NOT PREVIOUS ONCE P(x)",
    "Q(x,y) AND EVENTUALLY[1,3] P(y)",
    "(NOT P(x)) SINCE[0,4] Q(x,y)",
    "EXISTS y. Q(x,y) AND (EVENTUALLY[0,2] P(x))",
    "(A() SINCE[1,3] B()) OR EVENTUALLY[0,1] A()",
    "A() IMPLIES EVENTUALLY[0,2] B()",
    "c <- CNT x ONCE[0,3] P(x)",
    // A versioned state from which tuples are removed: its tombstones cross the save.
    "Q(x,y) AND NOT PREVIOUS ((NOT P(x)) SINCE Q(x,y))",
    // A projection of one, tested through the state's index.
    "P(x) AND NOT EXISTS y. PREVIOUS ((NOT P(y)) SINCE Q(x,y))",
];

/// One time point of a log: timestamp step, events.
fn time_point() -> impl Strategy<Value = (i64, Vec<String>)> {
    let event = prop_oneof![
        (1i64..4).prop_map(|a| format!("P({a})")),
        (1i64..4, 1i64..4).prop_map(|(a, b)| format!("Q({a},{b})")),
        Just("A()".to_string()),
        Just("B()".to_string()),
    ];
    (0i64..3, prop::collection::vec(event, 0..3))
}

fn log_text(tps: &[(i64, Vec<String>)]) -> String {
    let mut ts = 0;
    let mut text = String::new();
    for (step, events) in tps {
        ts += step;
        text.push_str(&format!("@{ts} {}\n", events.join(" ")));
    }
    text
}

/// `out` without the lines that only say a state was saved or loaded.
fn verdicts(out: &str) -> String {
    out.lines()
        .filter(|l| *l != "Saved state" && *l != "Loaded state")
        .map(|l| format!("{l}\n"))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn a_run_resumed_from_its_saved_state_prints_what_the_whole_run_prints(
        formula in prop::sample::select(FORMULAS),
        tps in prop::collection::vec(time_point(), 0..12),
        cut in any::<prop::sample::Index>(),
        verbose in any::<bool>(),
        nonewlastts in any::<bool>(),
        nofilteremptytp in any::<bool>(),
        strings in any::<bool>(),
    ) {
        // With string values, the runs that save and resume free the strings no state holds
        // after every time point (`-collect_strings 0`), and the saved states hold freed ids.
        let sig = if strings { SIG.replace("int", "string") } else { SIG.to_string() };
        let path = with_files("resume", &[("s.sig", &sig), ("f.mfotl", formula)]);
        let cut = cut.index(tps.len() + 1);
        let (head, tail) = (log_text(&tps[..cut]), log_text(&tps[cut..]));
        let mut options = Vec::new();
        for (on, flag) in [(verbose, "-verbose"), (nonewlastts, "-nonewlastts"), (nofilteremptytp, "-nofilteremptytp")] {
            if on {
                options.push(flag.to_string());
            }
        }
        let plain_with = |log: &str, first: &[String]| {
            let mut a = first.to_vec();
            a.extend(["-log".to_string(), path(log)]);
            a.extend(options.iter().cloned());
            a
        };
        let with = |log: &str, first: &[String]| {
            let mut a = plain_with(log, first);
            if strings {
                a.extend(strs(&["-collect_strings", "0"]));
            }
            a
        };
        let fresh = strs(&["-sig", &path("s.sig"), "-formula", &path("f.mfotl")]);

        // The whole run, with a `>save_state<` at the cut: it goes on as if there were none.
        std::fs::write(path("whole.log"), format!("{head}>save_state {}<\n{tail}", path("mid.state"))).unwrap();
        let (status, whole, _) = monpoly(&with("whole.log", &fresh));
        prop_assert_eq!(status, 0);
        std::fs::write(path("plain.log"), format!("{head}{tail}")).unwrap();
        let (_, plain, _) = monpoly(&plain_with("plain.log", &fresh));
        prop_assert_eq!(verdicts(&whole), plain.clone(), "{}", formula);
        prop_assert_eq!(whole.matches("Saved state").count(), 1);

        // Up to the cut and stop there (later time points are not read), then resume.
        std::fs::write(path("head.log"), format!("{head}>save_and_exit {}<\n{tail}", path("cut.state"))).unwrap();
        let (status, first, err) = monpoly(&with("head.log", &fresh));
        prop_assert_eq!(status, 0, "{}", err);
        std::fs::write(path("tail.log"), &tail).unwrap();
        let (status, second, err) = monpoly(&with("tail.log", &strs(&["-load", &path("cut.state")])));
        prop_assert_eq!(status, 0, "{}", err);
        prop_assert!(second.starts_with("Loaded state\n"));
        prop_assert_eq!(format!("{}{}", verdicts(&first), verdicts(&second)), plain.clone(), "{} cut at {}", formula, cut);

        // The state saved mid-run is the same state: resuming from it prints the same tail.
        let (_, again, _) = monpoly(&with("tail.log", &strs(&["-load", &path("mid.state")])));
        prop_assert_eq!(again, second);
    }
}

/// MonPoly's own test (test39 in its suite): `>save_state F<` says `Saved state` and goes on.
#[test]
fn save_state_says_so_and_goes_on() {
    let path = with_files(
        "says",
        &[("s.sig", "P(string)\n"), ("f.mfotl", "ONCE[0,0] P(x)")],
    );
    let state = path("t.state");
    std::fs::write(
        path("t.log"),
        format!("@0;\n@1 P(a);\n>save_state {state}<\n@2 P(b);\n"),
    )
    .unwrap();
    let (status, out, _) = monpoly(&args_for(&path));
    assert_eq!(status, 0);
    assert_eq!(
        out,
        "@1 (time point 1): (\"a\")\nSaved state\n@2 (time point 2): (\"b\")\n"
    );
    assert!(std::fs::metadata(&state).unwrap().len() > 0);
}

/// Resuming checks what it resumes: the formula and signature given, if any, must be the
/// saved ones; a file that is not a saved state is named as such; a command without a file
/// name is an error at its line.
#[test]
fn states_that_cannot_be_resumed_are_refused() {
    let path = with_files(
        "refused",
        &[
            ("s.sig", "P(int)\n"),
            ("f.mfotl", "ONCE[0,2] P(x)"),
            ("g.mfotl", "ONCE[0,3] P(x)"),
        ],
    );
    let state = path("s.state");
    std::fs::write(path("t.log"), format!("@0 P(1)\n>save_and_exit {state}<\n")).unwrap();
    let fresh = args_for(&path);
    let (status, out, _) = monpoly(&fresh);
    assert_eq!(
        (status, out.as_str()),
        (0, "@0 (time point 0): (1)\nSaved state\n")
    );

    let load = |extra: &[&str]| {
        let mut a = strs(&["-load", &state, "-log", &path("t.log")]);
        a.extend(strs(extra));
        monpoly(&a)
    };
    // The same formula may be given again; another one may not.
    let (status, _, err) = load(&["-formula", &path("f.mfotl")]);
    assert_eq!(status, 0, "{err}");
    let (status, _, err) = load(&["-formula", &path("g.mfotl")]);
    assert_eq!(status, 2);
    assert!(err.contains("saved with another formula"), "{err}");
    let (status, _, err) = load(&["-negate"]);
    assert_eq!(status, 2);
    assert!(err.contains("saved with another option"), "{err}");

    // A log is not a state; neither is a truncated state, nor one of another format version.
    let refused = |file: &str, why: &str| {
        let (status, _, err) = monpoly(&strs(&["-load", &path(file), "-log", &path("t.log")]));
        assert_eq!(status, 2, "{file}");
        assert!(err.contains(why), "{file}: {err}");
    };
    refused(
        "t.log",
        "not a monitor state saved by this version of rvmon",
    );
    let bytes = std::fs::read(&state).unwrap();
    std::fs::write(path("cut.state"), &bytes[..bytes.len() / 2]).unwrap();
    refused("cut.state", "cut.state");
    let old = rvmon_core::encode_state(&("rvmon monitor state", 1u32));
    std::fs::write(path("old.state"), old).unwrap();
    refused(
        "old.state",
        "saved by another version of rvmon (state format 1; this build reads format",
    );

    std::fs::write(path("bad.log"), "@0 P(1)\n>save_state<\n").unwrap();
    let mut args = fresh.clone();
    args[5] = path("bad.log");
    let (status, _, err) = monpoly(&args);
    assert_eq!(status, 2);
    assert!(
        err.contains(":2:1") && err.contains("expects one file name"),
        "{err}"
    );
}

/// A change to what a saved state holds, or to how an engine lays out its state, must come
/// with a new `SNAPSHOT_VERSION`, so that a state saved by an older build is refused as such
/// (and not as "damaged" or "another formula"). The saved states of a fixed run of every sample
/// formula are pinned here, with the version they belong to. When this fails after a change of
/// layout: bump `SNAPSHOT_VERSION` in `monpoly_cmd.rs` and record both new values here.
#[test]
fn saved_state_layout_is_versioned() {
    let log: String = (0..12)
        .map(|i| {
            let events = match i % 4 {
                0 => format!("P({}) A()", i % 3),
                1 => format!("Q({},{}) B()", i % 3, i % 2),
                2 => format!("P({}) Q(1,{})", i % 2, i % 3),
                _ => String::new(),
            };
            format!("@{} {events}\n", i / 2)
        })
        .collect();
    // FNV-1a, written out: std's hasher may change between Rust releases.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (k, formula) in FORMULAS.iter().enumerate() {
        let path = with_files(
            &format!("layout{k}"),
            &[("s.sig", SIG), ("f.mfotl", formula)],
        );
        let state = path("f.state");
        std::fs::write(path("t.log"), format!("{log}>save_state {state}<\n")).unwrap();
        let (status, _, err) = monpoly(&args_for(&path));
        assert_eq!(status, 0, "{formula}: {err}");
        let mut bytes = rvmon_cli::monpoly_cmd::saved_state_layout(&state).unwrap();
        // The bytes' order follows the iteration order of hash tables, which may change with
        // the toolchain; their length and multiset do not (a new field, a wider type or a
        // new variant changes them; fields merely reordered would go unnoticed).
        let len = bytes.len() as u64;
        bytes.sort_unstable();
        for b in len.to_le_bytes().into_iter().chain(bytes) {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    assert_eq!(
        (rvmon_cli::monpoly_cmd::SNAPSHOT_VERSION, hash),
        // Format 9: offline, `rvmon monpoly` feeds the engine in batches (as `rvmon check`
        // does), which leaves other counters and buffers in a saved state than one time point
        // at a time; MonPoly's timing of a shape without NEXT or UNTIL only counts positions.
        // Format 10: the first-order engine saves one state per operator, of its own kind.
        (10, 6813181608407276660),
        "the layout of saved states changed: bump SNAPSHOT_VERSION and record the new pair here"
    );
}
