//! How stream times are written (the front door's sinks write triggers and values with it).

use std::fmt;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_as_rtlola_does() {
        assert_eq!(time_text(600_536_000), "0.600536000");
        assert_eq!(time_text(24_700_000_000), "24.700000000");
        assert_eq!(time_text(0), "0.000000000");
        assert_eq!(time_text(-1_500_000_000), "-1.500000000");
    }
}
