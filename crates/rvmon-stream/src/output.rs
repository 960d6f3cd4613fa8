//! How fired triggers are written.

use rvmon_core::json_string;

use crate::engine::{Decided, Firing};

/// Nanoseconds as RTLola prints relative times: `secs.nnnnnnnnn`.
pub fn time_text(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    format!("{sign}{}.{:09}", a / 1_000_000_000, a % 1_000_000_000)
}

/// RTLola's log line for a trigger: `[0.600536000][Trigger][#0][Value] = "c is too large"`.
pub fn rtlola_line(f: &Firing) -> String {
    format!(
        "[{}][Trigger][#{}][Value] = \"{}\"",
        time_text(f.time),
        f.trigger,
        f.message
    )
}

/// rvmon's text line: `trigger #0: event 6 @0.600536000: c is too large`.
pub fn text_line(f: &Firing) -> String {
    format!(
        "trigger #{}: event {} @{}: {}",
        f.trigger,
        f.event,
        time_text(f.time),
        f.message
    )
}

/// One JSON object: `{"tp":6,"ts":0.600536000,"trigger":0,"message":"…"}`.
pub fn jsonl_line(f: &Firing) -> String {
    let msg = json_string(&f.message);
    format!(
        "{{\"tp\":{},\"ts\":{},\"trigger\":{},\"message\":{}}}",
        f.event,
        time_text(f.time),
        f.trigger,
        msg
    )
}

/// RTLola's log line for an output value: `[0.600536000][Output][c][Value] = 4`.
pub fn rtlola_value_line(d: &Decided, stream: &str) -> String {
    let v = match &d.value {
        crate::value::Val::Str(s) => format!("\"{s}\""),
        v => v.to_string(),
    };
    format!("[{}][Output][{stream}][Value] = {v}", time_text(d.time))
}

/// rvmon's text line for an output value: `value: c = 4, event 6 @0.600536000`.
pub fn text_value_line(d: &Decided, stream: &str) -> String {
    format!(
        "value: {stream} = {}, event {} @{}",
        d.value,
        d.event,
        time_text(d.time)
    )
}

/// One JSON object: `{"tp":6,"ts":0.600536000,"stream":"c","value":4}`.
pub fn jsonl_value_line(d: &Decided, stream: &str) -> String {
    let v = match &d.value {
        crate::value::Val::Str(s) => json_string(s),
        crate::value::Val::Float(x) if !x.is_finite() => json_string(&x.to_string()),
        v => v.to_string(),
    };
    format!(
        "{{\"tp\":{},\"ts\":{},\"stream\":{},\"value\":{v}}}",
        d.event,
        time_text(d.time),
        json_string(stream)
    )
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
        assert_eq!(
            rtlola_line(&f),
            "[0.600536000][Trigger][#0][Value] = \"c is \"big\"\""
        );
        assert_eq!(
            jsonl_line(&f),
            r#"{"tp":6,"ts":0.600536000,"trigger":0,"message":"c is \"big\""}"#
        );
    }
}
