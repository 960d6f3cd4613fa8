//! How fired triggers are written.

use std::fmt;
use std::io::{self, Write};

use rvmon_core::json_string;

use crate::engine::{Decided, Firing};
use crate::value::Val;

/// How reports are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `trigger #0: event 6 @0.600536000: c is too large`, `value: c = 4, event 6 @0.600536000`.
    Text,
    /// `{"tp":6,"ts":0.600536000,"trigger":0,"message":"…"}`,
    /// `{"tp":6,"ts":0.600536000,"stream":"c","value":4}`.
    Jsonl,
    /// RTLola's log lines: `[0.600536000][Trigger][#0][Value] = "c is too large"`,
    /// `[0.600536000][Output][c][Value] = 4`.
    Rtlola,
}

/// Nanoseconds as RTLola prints relative times: `secs.nnnnnnnnn`.
pub struct Seconds(pub i64);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let a = self.0.unsigned_abs();
        write!(f, "{sign}{}.{:09}", a / 1_000_000_000, a % 1_000_000_000)
    }
}

pub fn time_text(ns: i64) -> String {
    Seconds(ns).to_string()
}

/// Writes one line for a fired trigger (written straight to `out`: with many firings, the
/// output is a good part of the run).
pub fn write_trigger(out: &mut dyn Write, style: Style, f: &Firing) -> io::Result<()> {
    let t = Seconds(f.time);
    match style {
        Style::Rtlola => writeln!(
            out,
            "[{t}][Trigger][#{}][Value] = \"{}\"",
            f.trigger, f.message
        ),
        Style::Text => writeln!(
            out,
            "trigger #{}: event {} @{t}: {}",
            f.trigger, f.event, f.message
        ),
        Style::Jsonl => writeln!(
            out,
            "{{\"tp\":{},\"ts\":{t},\"trigger\":{},\"message\":{}}}",
            f.event,
            f.trigger,
            json_string(&f.message)
        ),
    }
}

/// Writes one line for an output value.
pub fn write_value(out: &mut dyn Write, style: Style, d: &Decided, stream: &str) -> io::Result<()> {
    let t = Seconds(d.time);
    match style {
        Style::Rtlola => match &d.value {
            Val::Str(s) => writeln!(out, "[{t}][Output][{stream}][Value] = \"{s}\""),
            v => writeln!(out, "[{t}][Output][{stream}][Value] = {v}"),
        },
        Style::Text => writeln!(out, "value: {stream} = {}, event {} @{t}", d.value, d.event),
        Style::Jsonl => {
            let v = match &d.value {
                Val::Str(s) => json_string(s),
                Val::Float(x) if !x.is_finite() => json_string(&x.to_string()),
                v => v.to_string(),
            };
            writeln!(
                out,
                "{{\"tp\":{},\"ts\":{t},\"stream\":{},\"value\":{v}}}",
                d.event,
                json_string(stream)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_as_rtlola_does() {
        assert_eq!(time_text(600_536_000), "0.600536000");
        assert_eq!(time_text(24_700_000_000), "24.700000000");
        assert_eq!(time_text(0), "0.000000000");
        let f = Firing {
            event: 6,
            time: 600_536_000,
            trigger: 0,
            message: "c is \"big\"".into(),
        };
        let line = |style| {
            let mut out = Vec::new();
            write_trigger(&mut out, style, &f).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            line(Style::Rtlola),
            "[0.600536000][Trigger][#0][Value] = \"c is \"big\"\"\n"
        );
        assert_eq!(
            line(Style::Jsonl),
            "{\"tp\":6,\"ts\":0.600536000,\"trigger\":0,\"message\":\"c is \\\"big\\\"\"}\n"
        );
        assert_eq!(
            line(Style::Text),
            "trigger #0: event 6 @0.600536000: c is \"big\"\n"
        );
        assert_eq!(time_text(-1_500_000_000), "-1.500000000");
    }
}
