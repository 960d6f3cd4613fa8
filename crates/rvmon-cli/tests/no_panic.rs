//! Robustness: no input makes a parser or reader panic. Inputs are random bytes and, more
//! usefully, random mutations of valid inputs (which reach deep into the grammars).

use proptest::prelude::*;
use rvmon_core::TimePoint;
use rvmon_logic::{analyze, parse_formula};
use rvmon_trace::{open_reader, Signature, TraceFormat, TraceOptions};

const FORMULA_SEED: &str = "(PAST_ALWAYS[0,5d] (p() IMPLIES ONCE(1,*) q())) AND NOT (r() SINCE[2,3) s()) OR \
                            NEXT EVENTUALLY[0,3] (a() UNTIL b()) # c\n (* x *) LET P() = TRUE IN P() AND 1 < 2";
const LOG_SEED: &str = "@0 p(1,\"a b\") (2,x)\n q() ;@1 >terminate< @2 r(1.5e3)\n# c\n@3";
const CSV_SEED: &str = "open, file = f1, time = 10\nclose, file=f1\n\nwrite,a=b=c\n";
const SIGNAL_SEED: &str = "time,x,y\n0,1,0.5\n1,,true\n2,-3,\"q\"\n";
const JSON_SEED: &str = "{\"open\": {\"file\": \"f1\", \"n\": 2}}\n{\"name\": \"close\", \"fields\": {\"ok\": true}}\n[1]\n";
const XML_SEED: &str =
    "<?xml version=\"1.0\"?><log><event><name>a</name><field><name>f</name><value>1 &amp; 2</value></field></event><event><name>b</name></event></log>";

const LOLA_SEED: &str = "import math\ninput a: Int64, b: Float64\ninput s: String\n// c\n\
                         output c @ (a || b) := a.hold().defaults(to: 0) + 1\n\
                         output d := if a > 2 then a[-1, 0] * 2 else -a.offset(by: 1).defaults(to: 3)\n\
                         output m := min<Int64>(c, d) /* x */ % 3 == 0 -> s.get().defaults(to: \"z\") != \"q\"\n\
                         trigger d > 2 \"too big\"\ntrigger eval when !m with \"c={{}}\".format(c)";
const LOLA_CSV_SEED: &str = "a,b,s,time\n1,2.5,x,0.1\n#,#,#,0.2\n3,,\"y,z\",0.30\n-4,1e3,w,1\n";

const RVM_SEED: &str = "// c\nP(c, i) {\n creation event create(c, i)\n event update(c)\n event next(i, _)\n where c < i, i >= c, c != i\n fsm:\n  s [ create -> u ]\n  u [ next -> u, update -> m ]\n  m [ next -> e ]\n  e [ ]\n @e \"bad {i} {c}\"\n @fail \"x\"\n}\nQ() { event a() fsm: s [ a -> s ] }";

const RVM_LTL_SEED: &str = "H(c, i) {\n event create(c, i)\n event update(coll: c)\n event next(i)\n end event dispose(i)\n ltl: create => [] (update => [] !next) and (next => (*) (!update S create)) // x\n @violation \"bad {i}\"\n @validation \"ok\"\n}\nP(i) { event a(i) ltl: <*> a U o a\n}";

const RVM_ERE_SEED: &str = "L(l) {\n event acq(_, l)\n event rel(_, l)\n ere: (acq | rel)* & ~((acq | rel)* acq acq (acq | rel)*) | epsilon ~rel+ acq?\n @fail \"twice {l}\"\n @match \"m\"\n}";

/// A first-order policy with most of what the compiler and the engine do: `LET`, a `SINCE`
/// state shared up to renaming (`h(t,l)`, `h(y,x)`), an existential and an anti-existential
/// join, a comparison to push down, arithmetic, an aggregation, past and future windows.
const FO_SEED: &str = "LET h(t,l) = NOT rel(t,l) SINCE[0,*) acq(t,l) IN \
                       (use(t,x) AND NOT (EXISTS l. (h(t,l) AND l > 1))) IMPLIES \
                       ((EXISTS y. (use(y,x) AND ONCE[0,5] h(y,x))) \
                       OR (EXISTS c. (c <- CNT y; t ONCE[0,3] use(t,y)) AND c > 2) \
                       OR EVENTUALLY[0,3] acq(t,x) OR PREVIOUS (use(x,t) AND x < t + 1))";
const FO_SIG: &str = "acq(int,int)\nrel(int,int)\nuse(int,int)\n";
const FO_LOG: &str = "@0 acq(1,2) use(1,3)\n@1 use(2,2) rel(1,2) acq(2,2)\n@3 acq(2,3) use(2,1)\n\
                      @4 use(1,2) use(2,3) rel(2,2)\n@9 rel(2,3) use(3,3)\n@9 use(1,1)\n";

/// A first-order formula: if `rvmon check` accepts it, it runs over a fixed log (in-process),
/// as rvmon check compiles it (conjuncts ordered, comparisons pushed down, subplans shared).
fn first_order(text: &str) -> Result<i32, rvmon_core::Error> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static CASES: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "rvmon-no-panic-{}-{}",
        std::process::id(),
        CASES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (spec, sig, log) = (dir.join("f.mfotl"), dir.join("s.sig"), dir.join("t.log"));
    std::fs::write(&spec, text).unwrap();
    std::fs::write(&sig, FO_SIG).unwrap();
    std::fs::write(&log, FO_LOG).unwrap();
    let mut args =
        rvmon_cli::check_cmd::CheckArgs::new(spec.display().to_string(), log.display().to_string());
    args.sig = Some(sig.display().to_string());
    let status = rvmon_cli::check_cmd::run(&args, &mut std::io::sink(), &mut std::io::sink());
    let _ = std::fs::remove_dir_all(&dir);
    status
}

/// The seed itself is monitored to the end of the log and violated there, so that its
/// mutants reach the compiler and the engine, not only the parser.
#[test]
fn the_first_order_seed_runs_through_the_engine() {
    assert_eq!(first_order(FO_SEED).map_err(|e| e.to_string()), Ok(1));
}

/// A valid seed with random byte edits.
fn mutated(seed: &'static str) -> impl Strategy<Value = String> {
    prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 0..6).prop_map(
        move |edits| {
            let mut b = seed.as_bytes().to_vec();
            for (i, byte, kind) in edits {
                if b.is_empty() {
                    b.push(byte);
                    continue;
                }
                let at = i.index(b.len());
                match kind {
                    0 => b[at] = byte,
                    1 => {
                        b.remove(at);
                    }
                    _ => b.insert(at, byte),
                }
            }
            String::from_utf8_lossy(&b).into_owned()
        },
    )
}

fn input(seed: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![mutated(seed), ".{0,80}"]
}

fn drain(format: TraceFormat, text: &str) {
    let src: Box<dyn std::io::BufRead> = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
    if let Ok(mut r) = open_reader(
        format,
        src,
        "t",
        TraceOptions {
            sig: None,
            time_field: Some("time".into()),
        },
    ) {
        let mut tp = TimePoint::default();
        for _ in 0..1000 {
            match r.next_time_point(&mut tp) {
                Ok(true) => {}
                _ => break,
            }
        }
    }
}

/// A stream specification: parse, analyse, and if it compiles run it over a fixed trace.
fn stream_spec(text: &str) {
    if let Ok(p) = rvmon_stream::compile("t.lola", text) {
        let csv = "a,b,s,time\n1,2.5,x,0.1\n#,#,#,0.2\n3,0,y,0.3\n";
        let _ = rvmon_stream::run_csv(p, csv.as_bytes(), "t.csv", None, |_| Ok(()));
    }
}

/// A parametric specification: parse, and if it parses, monitor a few events with it.
fn parametric_spec(text: &str) {
    use rvmon_core::Value;
    use rvmon_param::slicing::Event;
    if let Ok(props) = rvmon_param::spec::parse_rvm("t.rvm", text) {
        for p in props {
            // As `rvmon check` builds it.
            let mut m = rvmon_param::monitor::ParamMonitor::new(p.patterns.clone(), p.fsm.clone())
                .with_creators(&p.creators)
                .with_end_events(p.end_events.clone())
                .with_constraints(&p.constraints);
            let mut out = Vec::new();
            for (name, args) in [
                ("create", vec![1, 2]),
                ("next", vec![2, 0]),
                ("update", vec![1]),
                ("next", vec![2, 5]),
                ("a", vec![]),
            ] {
                let ev = Event {
                    name: name.into(),
                    args: args.into_iter().map(Value::Int).collect(),
                };
                m.push(&ev, &mut out);
            }
            for r in &out {
                let _ = p.message(&r.category, |_| Some("v".into()));
            }
        }
    }
}

/// Events for the seed specification from a (mutated) CSV text.
fn stream_events(text: &str) {
    let p = rvmon_stream::compile("t.lola", LOLA_SEED).unwrap();
    let _ = rvmon_stream::run_csv(p, text.as_bytes(), "t.csv", None, |_| Ok(()));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn stream_spec_parser_and_engine(text in input(LOLA_SEED)) { stream_spec(&text) }

    #[test]
    fn parametric_spec_parser_and_monitor(text in input(RVM_SEED)) { parametric_spec(&text) }

    #[test]
    fn parametric_ltl_spec_parser_and_monitor(text in input(RVM_LTL_SEED)) { parametric_spec(&text) }

    #[test]
    fn parametric_ere_spec_parser_and_monitor(text in input(RVM_ERE_SEED)) { parametric_spec(&text) }

    #[test]
    fn stream_csv_reader(text in input(LOLA_CSV_SEED)) { stream_events(&text) }

    #[test]
    fn formula_parser(text in input(FORMULA_SEED)) {
        if let Ok(f) = parse_formula("f", &text) {
            let _ = analyze("f", &text, &f);
            let _ = rvmon_logic::monpoly::to_monpoly_string(&rvmon_logic::monpoly::normalize(&f));
        }
    }

    #[test]
    fn first_order_compiler_and_engine(text in input(FO_SEED)) { let _ = first_order(&text); }

    #[test]
    fn signature_parser(text in input("p(x:int, y:string)\nq (int,float) r()")) {
        let _ = Signature::parse("s", &text);
    }

    #[test]
    fn monpoly_log_reader(text in input(LOG_SEED)) { drain(TraceFormat::Monpoly, &text) }

    #[test]
    fn csrv_csv_reader(text in input(CSV_SEED)) { drain(TraceFormat::CsrvCsv, &text) }

    #[test]
    fn signal_reader(text in input(SIGNAL_SEED)) { drain(TraceFormat::Signal, &text) }

    #[test]
    fn json_readers(text in input(JSON_SEED)) {
        drain(TraceFormat::Json, &text);
        drain(TraceFormat::Jsonl, &text);
    }

    #[test]
    fn xml_reader(text in input(XML_SEED)) { drain(TraceFormat::Xml, &text) }
}
