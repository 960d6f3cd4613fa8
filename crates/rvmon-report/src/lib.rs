//! rvmon's HTML report (`rvmon check … --report FILE.html`), for every engine.
//!
//! [`Reported`] wraps the run's monitor (any `rvmon_core::Monitor`): it records what the
//! monitor is fed and what it decides on the way to the run's sink, and feeds the same inputs
//! to companion monitors (an STL formula's subformulas) for the report alone. Everything is
//! summarised as it comes, in [`Downsampler`]s of a fixed number of buckets (the minimum and
//! maximum of each stretch of the trace), so a report takes the same memory for any trace
//! length. [`html`] draws the [`Report`] as one self-contained page of inline SVG.

pub mod downsample;
pub mod html;
pub mod record;
pub mod svg;

pub use downsample::{Bucket, Downsampler, DEFAULT_BUCKETS};
pub use html::html;
pub use record::{Companion, Meta, Recorded, Report, Reported};

/// Writes `report` as an HTML page to `out`.
pub fn write_html(report: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    out.write_all(html(report).as_bytes())?;
    out.flush()
}
