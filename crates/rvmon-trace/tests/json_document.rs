//! `.json` traces are read one event at a time, in either shape (a stream of objects or one
//! array): the events before a bad one come out before its error, which names its line and
//! column; bytes that are not UTF-8 are such an error, in every line-based format too.

use std::io::{BufReader, Read};

use proptest::prelude::*;
use rvmon_core::TimePoint;
use rvmon_trace::{open_reader, TraceFormat, TraceOptions};

/// The events read (name and timestamp) and the error that ended the reading, if any.
fn read(format: TraceFormat, src: impl Read + 'static) -> (Vec<String>, Option<String>) {
    let src: Box<dyn std::io::BufRead> = Box::new(BufReader::new(src));
    let mut r = open_reader(format, src, "t", TraceOptions::default()).unwrap();
    let mut tp = TimePoint::default();
    let mut events = Vec::new();
    loop {
        match r.next_time_point(&mut tp) {
            Ok(true) => {
                let e = &tp.events[0];
                events.push(format!("{}@{}", r.interner().resolve(e.name), tp.ts));
            }
            Ok(false) => return (events, None),
            Err(e) => return (events, Some(e.to_string())),
        }
    }
}

fn read_text(format: TraceFormat, text: &[u8]) -> (Vec<String>, Option<String>) {
    read(format, std::io::Cursor::new(text.to_vec()))
}

/// A reader that hands out one byte per read, as a slow pipe may.
struct Trickle(Vec<u8>, usize);

impl Read for Trickle {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        match (self.0.get(self.1), out.first_mut()) {
            (Some(&b), Some(o)) => {
                *o = b;
                self.1 += 1;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn both_shapes_read_alike_and_name_each_elements_place() {
    let stream = "{\"a\": {\"time\": 1}}\n{\"b\": {\"time\": 2}} {\"a\": {\"time\": 2}}\n";
    let array =
        "\u{feff} [ {\"a\": {\"time\": 1}},\n{\"b\": {\"time\": 2}} ,{\"a\": {\"time\": 2}}\n]\n";
    let want = (strings(&["a@1", "b@2", "a@2"]), None);
    assert_eq!(read_text(TraceFormat::Json, stream.as_bytes()), want);
    assert_eq!(read_text(TraceFormat::Json, array.as_bytes()), want);
    assert_eq!(read_text(TraceFormat::Json, b"[]"), (vec![], None));
    assert_eq!(read_text(TraceFormat::Json, b" \n"), (vec![], None));
    // An element's errors are at the element, not at the array.
    let bad = "[\n{\"a\": {\"time\": 1}},\n  {\"b\": {\"time\": 0}}]";
    let (events, error) = read_text(TraceFormat::Json, bad.as_bytes());
    assert_eq!(events, strings(&["a@1"]));
    assert_eq!(
        error.unwrap(),
        "t:3:3: timestamps must not decrease: 0 comes after 1"
    );
}

#[test]
fn an_array_with_an_error_keeps_the_events_before_it() {
    let cases: [(&str, &str); 6] = [
        (
            "[{\"a\": {}},\n {\"b\": {}} {\"c\": {}}]",
            "t:2:12: expected `,` or `]` after an event, found `{`",
        ),
        (
            "[{\"a\": {}},\n {\"b\": {}},\n {\"c\" {}}]",
            "t:3:7: invalid JSON: expected `:`",
        ),
        (
            "[{\"a\": {}},\n {\"b\": {}},\n",
            "t:3:1: invalid JSON: EOF while parsing a value",
        ),
        (
            "[{\"a\": {}},\n {\"b\": {}},\n {\"c\": {",
            "t:3:9: invalid JSON: EOF while parsing an object",
        ),
        (
            "[{\"a\": {}},\n {\"b\": {}},\n 7]",
            "t:3:2: expected an event object: {\"name\": \"e\", \"fields\": {…}} or {\"e\": {…}}",
        ),
        (
            "[{\"a\": {}},\n {\"b\": {}}] x",
            "t:2:13: expected the end of the input after the array of events",
        ),
    ];
    for (text, error) in cases {
        let (events, got) = read_text(TraceFormat::Json, text.as_bytes());
        assert_eq!(events, strings(&["a@0", "b@1"]), "{text}");
        assert_eq!(got.as_deref(), Some(error), "{text}");
    }
}

#[test]
fn bytes_that_are_not_utf8_are_an_error_where_they_are() {
    let lines: &[u8] = b"{\"a\": {}}\n{\"b\": {\"x\": \"\xc3\xa9\"}}\n{\"c\": {\"x\": \"\xff\"}}\n";
    for format in [TraceFormat::Json, TraceFormat::Jsonl] {
        assert_eq!(
            read_text(format, lines),
            (
                strings(&["a@0", "b@1"]),
                Some("t:3:14: invalid UTF-8 (byte 0xFF)".into())
            ),
            "{format:?}"
        );
    }
    let array: &[u8] = b"[{\"a\": {}},\n {\"b\": {}}, \xe2\x82]";
    assert_eq!(
        read_text(TraceFormat::Json, array),
        (
            strings(&["a@0", "b@1"]),
            Some("t:2:13: invalid UTF-8 (byte 0xE2)".into())
        )
    );
    let cut: &[u8] = b"{\"a\": {}} \xe2\x82";
    assert_eq!(
        read_text(TraceFormat::Json, cut).1.unwrap(),
        "t:1:11: invalid UTF-8 (the input ends inside a character)"
    );
    let signal: &[u8] = b"time,x\n0,1\n1,\xc3\xa9\xff\n";
    assert_eq!(
        read_text(TraceFormat::Signal, signal),
        (
            strings(&["x@0"]),
            Some("t:3:4: invalid UTF-8 (byte 0xFF)".into())
        )
    );
    let header: &[u8] = b"time,\xff\n";
    let src: Box<dyn std::io::BufRead> = Box::new(header);
    let e = open_reader(TraceFormat::Signal, src, "t", TraceOptions::default());
    assert_eq!(
        e.err().unwrap().to_string(),
        "t:1:6: invalid UTF-8 (byte 0xFF)"
    );
    let csv: &[u8] = b"a, x = 1\nb, x = \xc0\n";
    assert_eq!(
        read_text(TraceFormat::CsrvCsv, csv),
        (
            strings(&["a@0"]),
            Some("t:2:8: invalid UTF-8 (byte 0xC0)".into())
        )
    );
}

/// An event is delivered as soon as its object is complete, without waiting for more input
/// (online monitoring from a pipe): here the input fails right after the first object.
#[test]
fn an_object_is_delivered_without_reading_past_it() {
    struct Once(Option<&'static [u8]>);
    impl Read for Once {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            match self.0.take() {
                Some(b) => {
                    out[..b.len()].copy_from_slice(b);
                    Ok(b.len())
                }
                None => Err(std::io::Error::other("no more input yet")),
            }
        }
    }
    for text in [&b"{\"a\": {}}"[..], b"[{\"a\": {}}"] {
        let (events, error) = read(TraceFormat::Json, Once(Some(text)));
        assert_eq!(events, strings(&["a@0"]));
        assert_eq!(error.unwrap(), "t: cannot read: no more input yet");
    }
}

/// Events as generated: JSON text with strings, numbers, nesting and white space.
fn event() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["a", "b", "é", "x y"]),
        0u32..3,
        prop::sample::select(vec![" ", "\n", "", "\t\r\n "]),
        "[a-z\u{e9}\u{1f600}]{0,3}",
    )
        .prop_map(|(name, dt, ws, s)| {
            format!("{{{ws}\"{name}\":{ws}{{\"t\": {dt}, \"s\": \"{s}\"{ws}}}}}")
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A document cut anywhere, or with a byte replaced, reads as its clean prefix: the same
    /// events, then an error (or the end); whether bytes come one by one or in chunks; and a
    /// stream reads as the array of its events.
    #[test]
    fn a_damaged_document_reads_as_its_prefix(
        events in prop::collection::vec(event(), 0..8),
        cut in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        replace in any::<bool>(),
    ) {
        let stream = events.join("\n");
        let array = format!("[{}]", events.join(",\n"));
        for text in [&stream, &array] {
            let whole = read_text(TraceFormat::Json, text.as_bytes());
            prop_assert_eq!(whole.1.as_ref(), None);
            let mut damaged = text.as_bytes().to_vec();
            let at = cut.index(damaged.len() + 1);
            if replace && at < damaged.len() {
                damaged[at] = byte;
            } else {
                damaged.truncate(at);
            }
            let got = read_text(TraceFormat::Json, &damaged);
            // The events wholly before the damage are read; none after it.
            let (open, separator) = if text == &array { (1, 2) } else { (0, 1) };
            let complete = events
                .iter()
                .scan(open, |start, e| {
                    let end = *start + e.len();
                    *start = end + separator;
                    Some(end)
                })
                .take_while(|end| *end <= at)
                .count();
            prop_assert!(got.0.len() >= complete, "{:?}", got);
            prop_assert_eq!(&got.0[..complete], &whole.0[..complete]);
            if !replace {
                // A cut object is no object: nothing after the cut is read.
                prop_assert!(got.0.len() <= whole.0.len());
                prop_assert_eq!(&got.0[..], &whole.0[..got.0.len()]);
            }
            let trickled = read(TraceFormat::Json, Trickle(damaged.clone(), 0));
            prop_assert_eq!(&trickled, &got);
        }
        prop_assert_eq!(
            read_text(TraceFormat::Json, stream.as_bytes()),
            read_text(TraceFormat::Json, array.as_bytes())
        );
    }
}
