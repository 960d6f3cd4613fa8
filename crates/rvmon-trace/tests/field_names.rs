//! Readers of named fields give the names when asked (for `.rvm` events bound by field name),
//! and only then; readers without names say so.

use rvmon_core::TimePoint;
use rvmon_trace::{open_reader, TraceFormat, TraceOptions};

/// The first event of `text` read as `format`: its field names (if asked and given) and values.
fn first_event(format: TraceFormat, text: &'static str, ask: bool) -> (bool, Option<Vec<String>>) {
    let mut r = open_reader(
        format,
        Box::new(text.as_bytes()),
        "t",
        TraceOptions::default(),
    )
    .expect("opens");
    let named = ask && r.name_fields();
    let mut tp = TimePoint::default();
    assert!(r.next_time_point(&mut tp).expect("reads"));
    let e = tp.events[0];
    let names = tp.fields_of(&e).map(|fs| {
        fs.iter()
            .map(|&f| r.interner().resolve(f).to_string())
            .collect()
    });
    assert_eq!(tp.args_of(&e).len(), 2);
    (named, names)
}

#[test]
fn csrv_readers_name_fields_when_asked() {
    let inputs = [
        (TraceFormat::CsrvCsv, "open, mode = w, file = a\n"),
        (TraceFormat::Jsonl, "{\"open\": {\"mode\": \"w\", \"file\": \"a\"}}\n"),
        (
            TraceFormat::Xml,
            "<log><event><name>open</name><field><name>mode</name><value>w</value></field><field><name>file</name><value>a</value></field></event></log>",
        ),
    ];
    for (format, text) in inputs {
        let names = Some(vec!["mode".to_string(), "file".to_string()]);
        assert_eq!(first_event(format, text, true), (true, names), "{format:?}");
        assert_eq!(
            first_event(format, text, false),
            (false, None),
            "{format:?} unasked"
        );
    }
    let monpoly = "@0 open(1, 2)\n";
    assert_eq!(
        first_event(TraceFormat::Monpoly, monpoly, true),
        (false, None)
    );
}
