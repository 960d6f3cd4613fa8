//! A MonPoly log cut at [`time_point_boundaries`] and read piece by piece, each piece's reader
//! resumed where the previous one stopped, reads exactly as the whole log: same time points,
//! same events, and the same error at the same line and column.

use std::io::{BufReader, Cursor, Read, Seek, SeekFrom};

use proptest::prelude::*;
use rvmon_core::{TimePoint, Value};
use rvmon_trace::monpoly::time_point_boundaries;
use rvmon_trace::{MonpolyLogReader, TraceReader};

/// What a reader gives: the time points (index, timestamp, events as text), then the error.
fn read_all<R: std::io::BufRead>(r: &mut MonpolyLogReader<R>) -> (Vec<String>, Option<String>) {
    let mut tp = TimePoint::default();
    let mut out = Vec::new();
    loop {
        match r.next_time_point(&mut tp) {
            Ok(true) => {
                let evs: Vec<String> = tp
                    .events
                    .iter()
                    .map(|e| {
                        let args: Vec<String> = tp
                            .args_of(e)
                            .iter()
                            .map(|v| match v {
                                Value::Str(s) => format!("{:?}", r.interner().resolve(*s)),
                                v => format!("{v:?}"),
                            })
                            .collect();
                        format!("{}({})", r.interner().resolve(e.name), args.join(","))
                    })
                    .collect();
                out.push(format!("{} @{} {}", tp.index, tp.ts, evs.join(" ")));
            }
            Ok(false) => return (out, None),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
}

/// Reads `text` as the parallel reader does: each piece on its own (numbered from 0, no
/// previous timestamp), then in order: time points renumbered, unless the piece failed or its
/// first timestamp is below the previous piece's last; then the rest of the log is read from
/// that piece's start by one reader resumed there, which reports what reading the whole log
/// reports.
fn pieces(text: &str, chunk: u64) -> (Vec<String>, Option<String>) {
    let mut file = Cursor::new(text.as_bytes().to_vec());
    let cuts = time_point_boundaries(&mut file, text.len() as u64, chunk).unwrap();
    assert_eq!(cuts[0], 0);
    assert_eq!(*cuts.last().unwrap(), text.len() as u64);
    for w in cuts.windows(2) {
        assert!(w[0] < w[1] || text.is_empty(), "cuts increase: {cuts:?}");
    }
    for &c in &cuts[1..cuts.len() - 1] {
        let c = c as usize;
        assert!(text.as_bytes()[c] == b'@' && text.as_bytes()[c - 1] == b'\n');
    }
    let (mut lines, mut tps, mut last_ts) = (0, 0, None);
    let mut out = Vec::new();
    for w in cuts.windows(2) {
        file.seek(SeekFrom::Start(w[0])).unwrap();
        let piece = BufReader::new((&mut file).take(w[1] - w[0]));
        let mut r = MonpolyLogReader::new(piece, "log", None);
        let (got, err) = read_all(&mut r);
        let first_ts: Option<i64> = got
            .first()
            .map(|g| g.split(' ').nth(1).unwrap()[1..].parse().unwrap());
        let in_order = match (first_ts, last_ts) {
            (Some(f), Some(l)) => f >= l,
            _ => true,
        };
        if err.is_some() || !in_order {
            file.seek(SeekFrom::Start(w[0])).unwrap();
            let mut rest = MonpolyLogReader::new(BufReader::new(&mut file), "log", None);
            rest.resume(lines, tps, last_ts);
            let (got, err) = read_all(&mut rest);
            out.extend(got);
            return (out, err);
        }
        out.extend(got.into_iter().map(|g| {
            let (i, rest) = g.split_once(' ').unwrap();
            format!("{} {rest}", i.parse::<u64>().unwrap() + tps)
        }));
        if r.terminated() {
            return (out, None);
        }
        lines += r.lines_read();
        tps += r.time_points_read();
        last_ts = r.last_timestamp().or(last_ts);
    }
    (out, None)
}

fn line() -> impl Strategy<Value = String> {
    let event = prop_oneof![
        (0i64..9).prop_map(|a| format!("p({a})")),
        Just("q(\"a @b\")".to_string()),
        Just("r(1,\"x\") (2,\"@\")".to_string()),
        Just("# a comment @5 with an @".to_string()),
        Just("p(".to_string()),
    ];
    let tp = (0i64..3, prop::collection::vec(event, 0..3)).prop_map(|(d, evs)| (d, evs.join(" ")));
    prop_oneof![
        6 => prop::collection::vec(tp, 1..3),
        1 => Just(vec![(-1, String::new())]),
    ]
    .prop_map(|tps| {
        tps.into_iter()
            .map(|(d, evs)| {
                if d < 0 {
                    ">terminate<".to_string()
                } else {
                    format!("@{{{d}}} {evs}")
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn pieces_read_as_the_whole_log(
        lines in prop::collection::vec(line(), 0..12),
        chunk in 1u64..80,
        decreasing in any::<bool>(),
    ) {
        // Timestamps increase by the drawn steps (a decrease when asked: an error).
        let mut ts = 10i64;
        let mut text = String::new();
        for l in &lines {
            let mut l = l.clone();
            while let Some(start) = l.find("@{") {
                let end = start + l[start..].find('}').unwrap();
                let d: i64 = l[start + 2..end].parse().unwrap();
                ts += if decreasing && d == 2 { -5 } else { d };
                l.replace_range(start..=end, &format!("@{ts}"));
            }
            text.push_str(&l);
            text.push('\n');
        }
        let mut whole = MonpolyLogReader::new(Cursor::new(text.as_bytes()), "log", None);
        let expected = read_all(&mut whole);
        prop_assert_eq!(pieces(&text, chunk), expected, "{}", text);
    }
}
