//! Reader throughput per format: the same synthetic trace (N events over 4 event names, each
//! with an integer and a string field) rendered in every format, held in memory, read to the
//! end. `cargo bench -p rvmon-trace --bench readers [-- EVENTS]` prints one line per format:
//! `format bytes seconds MB/s Mevents/s` (best of 3). `json-stream` is the JSON Lines text
//! read as a `.json` document (objects one after another), which the JSON reader parses
//! from the reader rather than line by line.

use std::io::Cursor;
use std::time::Instant;

use rvmon_core::TimePoint;
use rvmon_trace::{open_reader, TraceFormat, TraceOptions};

const NAMES: [&str; 4] = ["open", "read", "write", "close"];

fn render(format: TraceFormat, n: usize) -> String {
    let mut s = String::with_capacity(n * 48);
    if format == TraceFormat::Signal {
        s.push_str("time,open,read,write,close\n");
    }
    if format == TraceFormat::Xml {
        s.push_str("<log>\n");
    }
    for i in 0..n {
        let name = NAMES[i % 4];
        let (id, file) = (i % 1000, format!("f{}", i % 97));
        match format {
            TraceFormat::Monpoly => s.push_str(&format!("@{i} {name}({id},{file})\n")),
            TraceFormat::CsrvCsv => s.push_str(&format!("{name}, id = {id}, file = {file}\n")),
            TraceFormat::Jsonl | TraceFormat::Json => s.push_str(&format!("{{\"{name}\": {{\"id\": {id}, \"file\": \"{file}\"}}}}\n")),
            TraceFormat::Xml => s.push_str(&format!(
                "<event><name>{name}</name><field><name>id</name><value>{id}</value></field><field><name>file</name><value>{file}</value></field></event>\n"
            )),
            TraceFormat::Signal => {
                let row: Vec<&str> = (0..4).map(|k| if k == i % 4 { "1" } else { "0" }).collect();
                s.push_str(&format!("{i},{}\n", row.join(",")));
            }
            _ => unreachable!(),
        }
    }
    if format == TraceFormat::Xml {
        s.push_str("</log>\n");
    }
    s
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    for (label, format) in [
        ("monpoly", TraceFormat::Monpoly),
        ("csrv-csv", TraceFormat::CsrvCsv),
        ("jsonl", TraceFormat::Jsonl),
        ("json-stream", TraceFormat::Json),
        ("xml", TraceFormat::Xml),
        ("signal-csv", TraceFormat::Signal),
    ] {
        let text = render(format, n);
        let mut best = f64::MAX;
        let mut events = 0;
        for _ in 0..3 {
            let src: Box<dyn std::io::BufRead> = Box::new(Cursor::new(text.as_bytes()));
            let mut reader = open_reader(format, src, label, TraceOptions::default()).unwrap();
            let mut tp = TimePoint::default();
            let start = Instant::now();
            events = 0;
            while reader.next_time_point(&mut tp).unwrap() {
                events += tp.events.len();
            }
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!(
            "{label} {} {best:.3} {:.0} {:.2} ({events} events)",
            text.len(),
            text.len() as f64 / best / 1e6,
            n as f64 / best / 1e6
        );
    }
}
