//! Damaged traces: a random trace in every format, cut, garbled or with a byte inserted at a
//! random place, and checked with `rvmon check` (in-process) against specifications whose
//! verdicts are decided at the time point they are about (past-only), so that the verdicts
//! printed before an error are those of the time points read before it.
//!
//! Two properties, for every trace format (MonPoly log, CSRV CSV, signal CSV, JSON as a
//! stream and as an array, JSON Lines, XML, and the stream specifications' CSV and JSON
//! Lines):
//! * the reader delivers the clean trace's time points up to the damage unchanged: every
//!   time point whose bytes, and those the reader looks at to end it, precede the damage;
//! * the run prints exactly the verdicts of what the reader delivered (the same spec run on
//!   those time points written as a clean trace), then stops with the reader's error. For a
//!   first-order formula: the clean prefix's verdicts, and none about a time point the
//!   reader did not deliver.
//!
//! And specification files that are not UTF-8 are refused where the bad byte is.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use rvmon_cli::check_cmd::{self, CheckArgs, Output};
use rvmon_core::{TimePoint, Value};
use rvmon_trace::{open_reader, Signature, TraceFormat, TraceOptions};

#[derive(Clone, Debug)]
struct Ev {
    name: &'static str,
    x: u8,
    ts: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fmt {
    Monpoly,
    CsrvCsv,
    Signal,
    JsonStream,
    JsonArray,
    Jsonl,
    Xml,
    /// The stream specifications' readers.
    LolaCsv,
    LolaJsonl,
}

const FORMATS: [Fmt; 9] = [
    Fmt::Monpoly,
    Fmt::CsrvCsv,
    Fmt::Signal,
    Fmt::JsonStream,
    Fmt::JsonArray,
    Fmt::Jsonl,
    Fmt::Xml,
    Fmt::LolaCsv,
    Fmt::LolaJsonl,
];

const NAMES: [&str; 3] = ["a", "b", "c"];
const PROPOSITIONAL: &str =
    "(b() IMPLIES ONCE[0,3] a()) AND NOT (c() AND (NOT a() SINCE b())) AND NOT PREVIOUS (c() AND b())";
const FIRST_ORDER: &str = "(b(x) IMPLIES ONCE[0,3] a(x)) AND NOT (c(x) AND PREVIOUS c(x))";
const SIG: &str = "a(int)\nb(int)\nc(int)\n";
const LOLA: &str = "input a: Int64\ninput b: Int64\ninput c: Int64\n\
                    output s @ (a || b || c) := a.hold().defaults(to: 0) + b.hold().defaults(to: 0) * 2\n\
                    output d @ c := c.offset(by: -1).defaults(to: 0)\n\
                    trigger s > 2 \"s is large\"\ntrigger d == 1 \"c again\"";

/// A trace and, for each event (one time point each), the offset from which a damage no
/// longer changes it: after its bytes, and after the next time point's `@` in a MonPoly log
/// (the reader looks at it to end the time point; the last one ends with the log).
struct Rendered {
    text: String,
    ends: Vec<usize>,
    file: &'static str,
}

fn render(fmt: Fmt, evs: &[Ev]) -> Rendered {
    let mut text = String::new();
    let mut ends = Vec::new();
    let file = match fmt {
        Fmt::Monpoly => "t.log",
        Fmt::CsrvCsv | Fmt::Signal | Fmt::LolaCsv => "t.csv",
        Fmt::JsonStream | Fmt::JsonArray => "t.json",
        Fmt::Jsonl | Fmt::LolaJsonl => "t.jsonl",
        Fmt::Xml => "t.xml",
    };
    match fmt {
        Fmt::Signal | Fmt::LolaCsv => text.push_str("time,a,b,c\n"),
        Fmt::JsonArray => text.push('['),
        Fmt::Xml => text.push_str("<log>\n"),
        _ => {}
    }
    for (i, e) in evs.iter().enumerate() {
        let (ts, x, n) = (e.ts, e.x, e.name);
        let cells = || {
            let cell = |k: &str| if k == n { x.to_string() } else { "#".into() };
            format!("{},{},{}", cell("a"), cell("b"), cell("c"))
        };
        match fmt {
            Fmt::Monpoly => {
                // Its end is the next time point's `@` (or the end of the log).
                if i > 0 {
                    ends.push(text.len() + 1);
                }
                text.push_str(&format!("@{ts} {n}({x})\n"));
            }
            Fmt::CsrvCsv => text.push_str(&format!("{n}, time = {ts}, x = {x}\n")),
            Fmt::Signal => {
                let cell = |k: &str| if k == n { "1" } else { "0" };
                text.push_str(&format!("{ts},{},{},{}\n", cell("a"), cell("b"), cell("c")));
            }
            Fmt::LolaCsv => text.push_str(&format!("{ts},{}\n", cells())),
            Fmt::JsonStream | Fmt::JsonArray | Fmt::Jsonl => {
                if fmt == Fmt::JsonArray && i > 0 {
                    text.push_str(",\n");
                }
                if i % 2 == 0 {
                    text.push_str(&format!("{{\"{n}\": {{\"x\": {x}, \"time\": {ts}}}}}"));
                } else {
                    let f = format!("{{\"x\": {x}}}");
                    text.push_str(&format!(
                        "{{\"name\": \"{n}\", \"time\": {ts}, \"fields\": {f}}}"
                    ));
                }
                if fmt == Fmt::JsonStream {
                    ends.push(text.len());
                }
                if fmt != Fmt::JsonArray {
                    text.push('\n');
                }
            }
            Fmt::LolaJsonl => {
                text.push_str(&format!("{{\"time\": {ts}, \"{n}\": {x}}}\n"));
            }
            Fmt::Xml => text.push_str(&format!(
                "<event><name>{n}</name><field><name>time</name><value>{ts}</value></field>\
                 <field><name>x</name><value>{x}</value></field></event>\n"
            )),
        }
        if !matches!(fmt, Fmt::Monpoly | Fmt::JsonStream) {
            ends.push(text.len());
        }
    }
    match fmt {
        Fmt::JsonArray => text.push_str("]\n"),
        Fmt::Xml => text.push_str("</log>\n"),
        // The last time point takes whatever follows, to the end of the log.
        Fmt::Monpoly if !evs.is_empty() => ends.push(text.len() + 1),
        _ => {}
    }
    Rendered { text, ends, file }
}

/// A directory of its own for each case.
fn case_dir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static CASES: AtomicUsize = AtomicUsize::new(0);
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "damaged_traces")
        .join(CASES.fetch_add(1, Ordering::Relaxed).to_string());
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `rvmon check spec trace --output jsonl [--sig]`: what it printed, and its error.
fn check(spec: &Path, trace: &Path, sig: Option<&Path>) -> (String, Option<String>) {
    let mut args = CheckArgs::new(spec.display().to_string(), trace.display().to_string());
    args.output = Output::Jsonl;
    args.sig = sig.map(|s| s.display().to_string());
    let mut out = Vec::new();
    let result = check_cmd::run(&args, &mut out, &mut std::io::sink());
    (
        String::from_utf8(out).unwrap(),
        result.err().map(|e| e.to_string()),
    )
}

/// The time points an event-trace reader delivers from `path` (each as its events, for
/// comparison, and as a MonPoly time point of the events named in the formulas), and its error.
fn read_events(path: &Path, sig: Option<Signature>) -> (Vec<(String, String)>, Option<String>) {
    let name = path.display().to_string();
    let format = TraceFormat::from_path(path).unwrap();
    let src: Box<dyn std::io::BufRead> =
        Box::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let options = TraceOptions {
        sig,
        time_field: None,
    };
    let mut r = match open_reader(format, src, &name, options) {
        Ok(r) => r,
        Err(e) => return (vec![], Some(e.to_string())),
    };
    let mut tp = TimePoint::default();
    let mut got = Vec::new();
    loop {
        match r.next_time_point(&mut tp) {
            Ok(true) => {
                let mut all = format!("@{}", tp.ts);
                let mut known = all.clone();
                for e in &tp.events {
                    let n = r.interner().resolve(e.name).to_string();
                    let args: Vec<String> = tp
                        .args_of(e)
                        .iter()
                        .map(|v| match v {
                            Value::Str(s) => format!("{:?}", r.interner().resolve(*s)),
                            v => format!("{v:?}"),
                        })
                        .collect();
                    all.push_str(&format!(" {n}({})", args.join(",")));
                    if NAMES.contains(&n.as_str()) {
                        known.push_str(&format!(" {n}()"));
                    }
                }
                got.push((all, known));
            }
            Ok(false) => return (got, None),
            Err(e) => return (got, Some(e.to_string())),
        }
    }
}

/// The events the stream specifications' readers deliver (as CSV rows of the clean form),
/// and their error.
fn read_stream_events(path: &Path, fmt: Fmt) -> (Vec<String>, Option<String>) {
    use rvmon_core::event::EventSource;
    use rvmon_trace::events::{CsvEvents, JsonlEvents};
    let name = path.display().to_string();
    let inputs: Vec<(String, rvmon_stream::ast::Type)> = NAMES
        .iter()
        .map(|n| (n.to_string(), rvmon_stream::ast::Type::Int))
        .collect();
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut source: Box<dyn EventSource> = match fmt {
        Fmt::LolaCsv => match CsvEvents::new(file, &name, &inputs, None) {
            Ok(s) => Box::new(s),
            Err(e) => return (vec![], Some(e.to_string())),
        },
        _ => Box::new(JsonlEvents::new(file, &name, &inputs, None)),
    };
    let mut ev = rvmon_stream::engine::Event::default();
    let mut rows = Vec::new();
    loop {
        match source.next_event(&mut ev) {
            Ok(true) => {
                let cells: Vec<String> = ev
                    .values
                    .iter()
                    .map(|v| v.as_ref().map_or("#".to_string(), |v| v.to_string()))
                    .collect();
                let time = rvmon_stream::output::time_text(ev.time);
                rows.push(format!("{time},{}", cells.join(",")));
            }
            Ok(false) => return (rows, None),
            Err(e) => return (rows, Some(e.to_string())),
        }
    }
}

/// The time point numbers of the verdicts in `--output jsonl` lines.
fn verdict_tps(out: &str) -> Vec<u64> {
    out.lines()
        .map(|l| {
            let rest = l.strip_prefix("{\"tp\":").expect("a jsonl verdict");
            rest[..rest.find(',').unwrap()].parse().unwrap()
        })
        .collect()
}

fn below(out: &str, n: usize) -> Vec<&str> {
    out.lines()
        .zip(verdict_tps(out))
        .filter(|(_, tp)| (*tp as usize) < n)
        .map(|(l, _)| l)
        .collect()
}

#[derive(Clone, Copy, Debug)]
enum Damage {
    Cut,
    Replace(u8),
    Insert(u8),
}

fn damage(text: &str, at: usize, how: Damage) -> Vec<u8> {
    let mut b = text.as_bytes().to_vec();
    match how {
        Damage::Cut => b.truncate(at),
        Damage::Replace(x) if at < b.len() => b[at] = x,
        Damage::Replace(x) | Damage::Insert(x) => b.insert(at, x),
    }
    b
}

/// Checks one damaged trace of format `fmt` (see the module's comment); `at` places the
/// damage, given the trace's length.
fn check_damaged(fmt: Fmt, evs: &[Ev], at: impl FnOnce(usize) -> usize, how: Damage) {
    let r = render(fmt, evs);
    let at = at(r.text.len());
    let clean_points = r.ends.iter().take_while(|&&end| end <= at).count();
    let dir = case_dir();
    let clean = dir.join(format!("clean-{}", r.file));
    let damaged = dir.join(r.file);
    std::fs::write(&clean, &r.text).unwrap();
    let bytes = damage(&r.text, at, how);
    std::fs::write(&damaged, &bytes).unwrap();
    let context = format!("{fmt:?} {how:?} at {at}:\n{}", r.text);
    // Damage that makes the first line start with `@` makes the file look like a MonPoly log
    // under another format's extension: `rvmon check` refuses it before reading anything.
    let first_line = bytes
        .split(|&b| b == b'\n')
        .map(|l| l.trim_ascii())
        .find(|l| !l.is_empty() && !l.starts_with(b"#"));
    if !matches!(fmt, Fmt::Monpoly) && first_line.is_some_and(|l| l.starts_with(b"@")) {
        let spec = dir.join("p.mtl");
        std::fs::write(&spec, PROPOSITIONAL).unwrap();
        let (out, error) = check(&spec, &damaged, None);
        assert_eq!(out, "", "{context}");
        assert!(
            error.is_some_and(|e| e.contains("its first line starts with `@`")),
            "{context}"
        );
        return;
    }
    if matches!(fmt, Fmt::LolaCsv | Fmt::LolaJsonl) {
        let spec = dir.join("s.lola");
        std::fs::write(&spec, LOLA).unwrap();
        let (want, _) = read_stream_events(&clean, fmt);
        let (got, error) = read_stream_events(&damaged, fmt);
        assert!(got.len() >= clean_points, "{context}");
        assert_eq!(got[..clean_points], want[..clean_points], "{context}");
        // The reference: what was delivered, as a clean CSV trace.
        let reference = dir.join("reference.csv");
        std::fs::write(&reference, format!("time,a,b,c\n{}", got.join("\n"))).unwrap();
        let (expected, _) = check(&spec, &reference, None);
        assert_eq!(check(&spec, &damaged, None), (expected, error), "{context}");
    } else {
        let spec = dir.join("p.mtl");
        std::fs::write(&spec, PROPOSITIONAL).unwrap();
        let (want, _) = read_events(&clean, None);
        let (got, error) = read_events(&damaged, None);
        assert!(got.len() >= clean_points, "{context}");
        assert_eq!(got[..clean_points], want[..clean_points], "{context}");
        let reference = dir.join("reference.log");
        let log: Vec<&str> = got.iter().map(|(_, known)| known.as_str()).collect();
        std::fs::write(&reference, log.join("\n")).unwrap();
        let (expected, _) = check(&spec, &reference, None);
        assert_eq!(check(&spec, &damaged, None), (expected, error), "{context}");
        // First order: the clean prefix's verdicts, none about a point not delivered.
        let (fo, sig) = (dir.join("f.mfotl"), dir.join("s.sig"));
        std::fs::write(&fo, FIRST_ORDER).unwrap();
        std::fs::write(&sig, SIG).unwrap();
        let typed = Signature::parse("s.sig", SIG).ok();
        let delivered = read_events(&damaged, typed).0.len();
        let (clean_out, _) = check(&fo, &clean, Some(&sig));
        let (out, error) = check(&fo, &damaged, Some(&sig));
        assert_eq!(
            below(&out, clean_points),
            below(&clean_out, clean_points),
            "{context}"
        );
        if error.is_some() {
            assert_eq!(below(&out, delivered), out.lines().collect::<Vec<_>>());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn events() -> impl Strategy<Value = Vec<Ev>> {
    prop::collection::vec((0usize..3, 0u8..3, 0u32..3), 1..10).prop_map(|v| {
        let mut ts = 0;
        v.into_iter()
            .map(|(n, x, dt)| {
                ts += dt;
                Ev {
                    name: NAMES[n],
                    x,
                    ts,
                }
            })
            .collect()
    })
}

fn damages() -> impl Strategy<Value = Damage> {
    let garbage = prop::sample::select(vec![
        b'\n', b',', b'"', b'{', b'}', b'[', b']', b'<', b'>', b'@', b'(', b')', b'#', b'=', b'x',
        b'-', b'9', b' ', 0x00, 0x80, 0xC3, 0xFF,
    ]);
    prop_oneof![
        Just(Damage::Cut),
        garbage.clone().prop_map(Damage::Replace),
        garbage.prop_map(Damage::Insert),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn verdicts_before_the_damage_are_the_clean_prefixs(
        fmt in prop::sample::select(FORMATS.to_vec()),
        evs in events(),
        at in any::<prop::sample::Index>(),
        how in damages(),
    ) {
        check_damaged(fmt, &evs, |len| at.index(len + 1), how);
    }
}

/// A damaged first byte that makes the trace start with `@` (the property above drew it
/// once): every format but MonPoly's is refused as a MonPoly log under another extension,
/// with no verdict.
#[test]
fn a_first_line_made_to_start_with_at_is_refused() {
    let evs = [
        Ev {
            name: "a",
            x: 2,
            ts: 1,
        },
        Ev {
            name: "b",
            x: 2,
            ts: 3,
        },
    ];
    for fmt in FORMATS {
        check_damaged(fmt, &evs, |_| 0, Damage::Replace(b'@'));
        check_damaged(fmt, &evs, |_| 0, Damage::Insert(b'@'));
    }
}

/// Each format's reference case: the clean trace reads whole and its verdicts are those of
/// its MonPoly form (so that the property above compares like with like).
#[test]
fn clean_traces_agree_across_formats() {
    let evs: Vec<Ev> = (0..12)
        .map(|i| Ev {
            name: NAMES[(i * 7 + i / 3) % 3],
            x: (i % 2) as u8,
            ts: i as u32 / 2,
        })
        .collect();
    for fmt in FORMATS {
        let r = render(fmt, &evs);
        assert_eq!(r.ends.len(), evs.len(), "{fmt:?}");
        check_damaged(fmt, &evs, |len| len, Damage::Cut);
    }
}

/// Specification and signature files that are not UTF-8 are refused at the bad byte, as any
/// other error in them (`rvmon check` and `rvmon monpoly` read them alike).
#[test]
fn spec_files_that_are_not_utf8_are_placed() {
    let dir = case_dir();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let log = write("t.log", b"@0 p(1)\n");
    let csv = write("t.csv", b"time,a\n0,1\n");
    let cases = [
        (
            write("f.mtl", b"p()\n  AND \xff q()"),
            log.clone(),
            None,
            "f.mtl:2:7",
        ),
        (
            write("g.mfotl", b"p(x)"),
            log.clone(),
            Some(write("s.sig", b"p(int)\nq(\xc3)")),
            "s.sig:2:3",
        ),
        (
            write("s.lola", b"input a: Int64\n// \xe9t\xe9\n"),
            csv,
            None,
            "s.lola:2:4",
        ),
        (
            write("p.rvm", b"P(x) {\n event p(x)\n ere: p \xfe\n}"),
            log.clone(),
            None,
            "p.rvm:3:9",
        ),
    ];
    for (spec, trace, sig, at) in cases {
        let mut args = CheckArgs::new(spec.clone(), trace);
        args.sig = sig.clone();
        let e = check_cmd::run(&args, &mut std::io::sink(), &mut std::io::sink()).unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("{at}: invalid UTF-8 (byte 0x")),
            "{e}"
        );
    }
    let args = rvmon_cli::monpoly_cmd::MonpolyArgs::parse(&[
        "-sig".into(),
        write("m.sig", b"p(int)"),
        "-formula".into(),
        write("m.mfotl", b"p(x) \xff"),
        "-log".into(),
        log,
    ])
    .unwrap();
    let e = rvmon_cli::monpoly_cmd::run(&args, &mut std::io::sink(), &mut std::io::sink());
    let e = e.unwrap_err().to_string();
    assert!(e.ends_with("m.mfotl:1:6: invalid UTF-8 (byte 0xFF)"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
