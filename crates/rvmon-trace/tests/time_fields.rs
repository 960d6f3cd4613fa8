//! The time of an event in the formats with named fields (CSRV CSV, JSON, JSON Lines, XML): a
//! field named `time`, `ts` or `timestamp`, among the event's fields or (JSON) beside them, or
//! the one `--time-field` names. It is never an argument of the event. Without one, positions
//! are timestamps and the reader says so; a trace that mixes the two is an error.

use rvmon_core::TimePoint;
use rvmon_trace::{open_reader, TraceFormat, TraceOptions};

/// Each time point of `text` as `(timestamp, event name, argument count)`, whether positions
/// were the timestamps, and the error that ended the reading (if one did).
type Read = (Vec<(i64, String, usize)>, bool, Option<String>);

fn read(format: TraceFormat, text: &'static str, time_field: Option<&str>) -> Read {
    let options = TraceOptions {
        sig: None,
        time_field: time_field.map(str::to_string),
    };
    let mut r = open_reader(format, Box::new(text.as_bytes()), "t", options).expect("opens");
    let (mut tp, mut got) = (TimePoint::default(), Vec::new());
    loop {
        match r.next_time_point(&mut tp) {
            Ok(true) => {
                let e = tp.events[0];
                let name = r.interner().resolve(e.name).to_string();
                got.push((tp.ts, name, tp.args_of(&e).len()));
            }
            Ok(false) => return (got, r.positions_as_timestamps(), None),
            Err(e) => return (got, r.positions_as_timestamps(), Some(e.to_string())),
        }
    }
}

fn events(v: &[(i64, &str, usize)]) -> Vec<(i64, String, usize)> {
    v.iter().map(|&(t, n, a)| (t, n.to_string(), a)).collect()
}

#[test]
fn a_time_field_is_the_timestamp_and_no_argument() {
    let want = events(&[(2, "request", 1), (5, "grant", 1)]);
    let cases = [
        (
            TraceFormat::Jsonl,
            "{\"name\": \"request\", \"fields\": {\"time\": 2, \"r\": 7}}\n{\"name\": \"grant\", \"fields\": {\"r\": 7, \"time\": 5}}\n",
        ),
        (
            TraceFormat::Jsonl,
            "{\"name\": \"request\", \"time\": 2, \"fields\": {\"r\": 7}}\n{\"grant\": {\"r\": 7}, \"time\": 5}\n",
        ),
        (
            TraceFormat::Json,
            "[{\"request\": {\"r\": 7, \"ts\": 2}}, {\"timestamp\": 5, \"grant\": {\"r\": 7}}]",
        ),
        (TraceFormat::Csv, "request, time = 2, r = 7\ngrant, r = 7, Time = 5\n"),
        (
            TraceFormat::Xml,
            "<log><event><name>request</name><field><name>time</name><value>2</value></field><field><name>r</name><value>7</value></field></event>\
             <event><name>grant</name><field><name>r</name><value>7</value></field><field><name>time</name><value>5</value></field></event></log>",
        ),
    ];
    for (format, text) in cases {
        assert_eq!(
            read(format, text, None),
            (want.clone(), false, None),
            "{text}"
        );
    }
    // `--time-field` names another field; a `time` field is then an argument like any other.
    let text = "{\"name\": \"request\", \"fields\": {\"at\": 2, \"time\": 9}}\n";
    assert_eq!(
        read(TraceFormat::Jsonl, text, Some("at")),
        (events(&[(2, "request", 1)]), false, None)
    );
    // An event called `time` is an event.
    let text = "{\"time\": {\"r\": 1}}\n";
    assert_eq!(
        read(TraceFormat::Jsonl, text, None),
        (events(&[(0, "time", 1)]), true, None)
    );
}

#[test]
fn without_a_time_field_positions_are_timestamps() {
    let text = "request, r = 7\ngrant, r = 7\n";
    assert_eq!(
        read(TraceFormat::Csv, text, None),
        (events(&[(0, "request", 1), (1, "grant", 1)]), true, None)
    );
}

#[test]
fn mixed_or_doubled_time_fields_are_errors() {
    // The first event decides: a later event with a time field would bring a second clock.
    let (got, positions, error) = read(
        TraceFormat::Jsonl,
        "{\"request\": {\"r\": 7}}\n{\"grant\": {\"r\": 7, \"time\": 5}}\n",
        None,
    );
    assert_eq!((got.len(), positions), (1, true));
    let error = error.expect("an error");
    assert!(
        error.starts_with("t:2:1: this event has a time field `time`"),
        "{error}"
    );
    // And an event without one, after events with one.
    let (_, _, error) = read(TraceFormat::Csv, "a, ts = 1\nb, x = 2\n", None);
    assert_eq!(
        error.as_deref(),
        Some("t:2:1: event `b` has no timestamp field `ts`")
    );
    let (_, _, error) = read(
        TraceFormat::Jsonl,
        "{\"name\": \"a\", \"time\": 1, \"fields\": {\"ts\": 2}}\n",
        None,
    );
    let error = error.expect("an error");
    assert!(
        error.contains("two time fields in one event, `time` and `ts`"),
        "{error}"
    );
}
