//! Drawing a series in inline SVG: a frame mapping positions and values to the panel, axes
//! with tick labels, the min–max band of a downsampled series, shaded spans, bars.

use std::fmt::Write;

use crate::downsample::{Bucket, Downsampler};

/// The width of every panel, in SVG units (the page scales it to its own width).
pub const WIDTH: f64 = 1000.0;
/// Room left of the plot for the value labels, and right of it.
pub const LEFT: f64 = 78.0;
pub const RIGHT: f64 = 16.0;
/// Room above the plot, and below it for the two lines of the time axis's labels.
pub const TOP: f64 = 10.0;
pub const AXIS: f64 = 40.0;

/// The colour of violations (shaded spans, bars).
pub const RED: &str = "#d62728";

/// A number in at most about five characters of precision: `0.25`, `-1.5e+06`, `inf`.
pub fn num(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if (1e-3..1e6).contains(&a) {
        let decimals = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
        trim(format!("{v:.decimals$}"))
    } else {
        let s = format!("{v:.3e}");
        match s.split_once('e') {
            Some((m, e)) => format!("{}e{e}", trim(m.to_string())),
            None => s,
        }
    }
}

/// About `want` round values (1, 2 or 5 times a power of ten apart) from `lo` to `hi`; `lo`
/// alone when the range is empty or not finite.
pub fn ticks(lo: f64, hi: f64, want: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return if lo.is_finite() { vec![lo] } else { Vec::new() };
    }
    // Halves first: `hi - lo` may overflow where the halves do not.
    let raw = (hi / 2.0 - lo / 2.0) * 2.0 / want.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    if !(mag.is_finite() && mag > 0.0) {
        return vec![lo, hi];
    }
    // The round step that gives the number of ticks nearest to `want`.
    let span = raw * want.max(1) as f64;
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .min_by(|a, b| {
            let off = |s: &f64| (span / s - want as f64).abs();
            off(a).total_cmp(&off(b))
        })
        .unwrap_or(mag);
    let first = (lo / step).ceil() * step;
    let mut out: Vec<f64> = Vec::new();
    for k in 0..=want * 3 {
        let v = first + k as f64 * step;
        if !v.is_finite() || v > hi + step * 1e-9 {
            break;
        }
        if out.last() != Some(&v) {
            out.push(v);
        }
    }
    out
}

/// Where a panel's plot is, and the positions and values it shows.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub top: f64,
    pub height: f64,
    /// Positions `[p_lo, p_hi)` (a position `p` is drawn over `[p, p + 1)`).
    pub p_lo: f64,
    pub p_hi: f64,
    /// Values `[v_lo, v_hi]`, finite, `v_lo < v_hi`.
    pub v_lo: f64,
    pub v_hi: f64,
}

impl Frame {
    pub fn x(&self, p: f64) -> f64 {
        let span = (self.p_hi - self.p_lo).max(1.0);
        LEFT + (p - self.p_lo) / span * (WIDTH - LEFT - RIGHT)
    }

    /// The height of `v`; infinities at the edges (NaN stays NaN: not drawn).
    pub fn y(&self, v: f64) -> f64 {
        let f = (self.v_hi / 2.0 - v / 2.0) / (self.v_hi / 2.0 - self.v_lo / 2.0);
        self.top + f.clamp(0.0, 1.0) * self.height
    }

    pub fn bottom(&self) -> f64 {
        self.top + self.height
    }

    /// The span of a bucket, `[x(first), x(last + 1)]`, at least a pixel wide.
    pub fn span(&self, b: &Bucket) -> (f64, f64) {
        let (a, z) = (self.x(b.first as f64), self.x(b.last as f64 + 1.0));
        (a, z.max(a + 1.0))
    }
}

/// The finite range of the values of `series` (with 0 if `zero`), padded; `[-1, 1]` when
/// there is no finite value.
pub fn value_range<'a>(
    series: impl IntoIterator<Item = &'a Downsampler>,
    zero: bool,
) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for b in series.into_iter().flat_map(|s| s.buckets()) {
        for v in [b.min, b.max] {
            if v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    if zero {
        (lo, hi) = (lo.min(0.0), hi.max(0.0));
    }
    if lo > hi {
        return (-1.0, 1.0);
    }
    if lo == hi {
        let d = if lo == 0.0 { 1.0 } else { lo.abs() / 10.0 };
        return (lo - d, hi + d);
    }
    let pad = (hi / 2.0 - lo / 2.0) * 0.12;
    let (a, z) = (lo - pad, hi + pad);
    if a.is_finite() && z.is_finite() {
        (a, z)
    } else {
        (lo, hi)
    }
}

/// The times of positions, from a series that has a time at each position it saw.
pub struct Clock {
    buckets: Vec<Bucket>,
    nanos: bool,
}

impl Clock {
    pub fn new(series: &Downsampler, nanos: bool) -> Clock {
        Clock {
            buckets: series.buckets().copied().collect(),
            nanos,
        }
    }

    /// The time at position `p`: interpolated between the positions whose times are known.
    pub fn at(&self, p: f64) -> Option<f64> {
        let i = self.buckets.partition_point(|b| (b.last as f64) < p);
        let known = |b: &Bucket, last: bool| {
            if last {
                (b.last as f64, b.t_last as f64)
            } else {
                (b.first as f64, b.t_first as f64)
            }
        };
        let (a, z) = match (
            i.checked_sub(1).map(|j| &self.buckets[j]),
            self.buckets.get(i),
        ) {
            (_, Some(b)) if b.first as f64 <= p => (known(b, false), known(b, true)),
            (Some(a), Some(b)) => (known(a, true), known(b, false)),
            (Some(a), None) => (known(a, true), known(a, true)),
            (None, Some(b)) => (known(b, false), known(b, false)),
            (None, None) => return None,
        };
        if z.0 <= a.0 {
            return Some(a.1);
        }
        Some(a.1 + (z.1 - a.1) * ((p - a.0) / (z.0 - a.0)).clamp(0.0, 1.0))
    }

    /// A time as the axis writes it: seconds for nanoseconds, else `@` and the timestamp.
    pub fn text(&self, t: f64) -> String {
        if self.nanos {
            format!("{} s", num(t / 1e9))
        } else {
            format!("@{}", t.round() as i64)
        }
    }
}

/// The frame of the plot, the value ticks with their grid lines (unless `values` is false),
/// and the time axis below: a tick at a few positions, labelled with the time there and the
/// position (`#12`).
pub fn axes(out: &mut String, f: &Frame, clock: &Clock, values: bool) {
    let (l, r) = (LEFT, WIDTH - RIGHT);
    let _ = write!(
        out,
        r##"<rect x="{l}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#fbfbfb" stroke="#bbb"/>"##,
        f.top,
        r - l,
        f.height
    );
    if values {
        for v in ticks(f.v_lo, f.v_hi, 4) {
            let y = f.y(v);
            let _ = write!(
                out,
                r##"<line x1="{l}" x2="{r}" y1="{y:.1}" y2="{y:.1}" stroke="#e4e4e4"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
                l - 6.0,
                y + 4.0,
                num(v)
            );
        }
    }
    let last = (f.p_hi - 1.0).max(f.p_lo);
    let mut positions: Vec<f64> = ticks(f.p_lo, last, 6).into_iter().map(f64::round).collect();
    positions.dedup();
    if positions.is_empty() {
        positions.push(f.p_lo);
    }
    let b = f.bottom();
    for p in positions {
        let x = f.x(p + 0.5);
        let time = clock.at(p).map(|t| clock.text(t)).unwrap_or_default();
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{b:.1}" y2="{:.1}" stroke="#888"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#999">#{}</text>"##,
            b + 5.0,
            b + 17.0,
            crate::html::esc(&time),
            b + 31.0,
            p as u64
        );
    }
}

/// The band of a series: per bucket its minimum and maximum at the bucket's middle, joined
/// (a line where they are equal: one value per bucket), broken where a bucket has only NaN;
/// a dot for a lone bucket; a mark at the top (bottom) edge where it reaches +inf (-inf).
pub fn band(out: &mut String, f: &Frame, series: &Downsampler, color: &str) {
    let mut segment: Vec<(f64, f64, f64)> = Vec::new();
    let flush = |segment: &mut Vec<(f64, f64, f64)>, out: &mut String| {
        draw_segment(out, segment, color);
        segment.clear();
    };
    for b in series.buckets() {
        if !b.has_value() {
            flush(&mut segment, out);
            continue;
        }
        let (a, z) = f.span(b);
        let x = (a + z) / 2.0;
        segment.push((x, f.y(b.max), f.y(b.min)));
        for (inf, y, d) in [
            (b.max == f64::INFINITY, f.top, 6.0),
            (b.min == f64::NEG_INFINITY, f.bottom(), -6.0),
        ] {
            if inf {
                let _ = write!(
                    out,
                    r#"<path d="M{:.1},{:.1}L{:.1},{:.1}L{:.1},{:.1}Z" fill="{color}"/>"#,
                    x - 3.0,
                    y + d,
                    x + 3.0,
                    y + d,
                    x,
                    y
                );
            }
        }
    }
    flush(&mut segment, out);
}

fn draw_segment(out: &mut String, seg: &[(f64, f64, f64)], color: &str) {
    match seg {
        [] => {}
        [(x, hi, lo)] => {
            let _ = write!(
                out,
                r#"<line x1="{x:.1}" x2="{x:.1}" y1="{hi:.1}" y2="{lo:.1}" stroke="{color}" stroke-width="2"/><circle cx="{x:.1}" cy="{:.1}" r="2.5" fill="{color}"/>"#,
                (hi + lo) / 2.0
            );
        }
        _ => {
            let points = |f: &dyn Fn(&(f64, f64, f64)) -> f64, rev: bool| {
                let mut s = String::new();
                let mut put = |p: &(f64, f64, f64)| {
                    let _ = write!(s, "{:.1},{:.1} ", p.0, f(p));
                };
                if rev {
                    seg.iter().rev().for_each(&mut put);
                } else {
                    seg.iter().for_each(&mut put);
                }
                s
            };
            let upper = points(&|p| p.1, false);
            if seg.iter().any(|p| p.2 - p.1 > 0.5) {
                let lower = points(&|p| p.2, true);
                let _ = write!(
                    out,
                    r#"<polygon points="{upper}{lower}" fill="{color}" fill-opacity="0.25" stroke="none"/>"#
                );
                let lower = points(&|p| p.2, false);
                let _ = write!(
                    out,
                    r#"<polyline points="{lower}" fill="none" stroke="{color}" stroke-width="1"/>"#
                );
            }
            let _ = write!(
                out,
                r#"<polyline points="{upper}" fill="none" stroke="{color}" stroke-width="1.5"/>"#
            );
        }
    }
}

/// Shades the spans of the buckets of `marks` (adjacent ones joined) over the plot's height.
pub fn shade(out: &mut String, f: &Frame, marks: &[&Downsampler], color: &str, opacity: f64) {
    let mut spans: Vec<(f64, f64)> = marks
        .iter()
        .flat_map(|m| m.buckets().map(|b| f.span(b)))
        .collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut joined: Vec<(f64, f64)> = Vec::new();
    for (a, z) in spans {
        match joined.last_mut() {
            Some(last) if a <= last.1 + 0.5 => last.1 = last.1.max(z),
            _ => joined.push((a, z)),
        }
    }
    for (a, z) in joined {
        let _ = write!(
            out,
            r#"<rect x="{a:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{color}" fill-opacity="{opacity}"/>"#,
            f.top,
            z - a,
            f.height
        );
    }
}

/// Bars of how many values each bucket of `series` has, scaled to the tallest, over the
/// lane `[top, top + height]`.
pub fn bars(out: &mut String, f: &Frame, series: &Downsampler, top: f64, height: f64, color: &str) {
    let most = series.buckets().map(|b| b.n).max().unwrap_or(1).max(1) as f64;
    for b in series.buckets() {
        let (a, z) = f.span(b);
        let h = (b.n as f64 / most * height).max(3.0);
        let _ = write!(
            out,
            r#"<rect x="{a:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="{color}"/>"#,
            top + height - h,
            z - a
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        let cases = [
            (0.0, "0"),
            (-0.0, "0"),
            (0.25, "0.25"),
            (-0.33, "-0.33"),
            (1234.5678, "1235"),
            (12.0, "12"),
            (1.5e6, "1.5e6"),
            (1e-7, "1e-7"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "NaN"),
        ];
        for (v, s) in cases {
            assert_eq!(num(v), s, "{v}");
        }
    }

    #[test]
    fn ticks_are_round_and_inside() {
        assert_eq!(
            ticks(0.0, 39.0, 6),
            vec![0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0]
        );
        assert_eq!(ticks(-4.9, 4.9, 4), vec![-4.0, -2.0, 0.0, 2.0, 4.0]);
        assert_eq!(ticks(-0.4, 1.3, 4), vec![0.0, 0.5, 1.0]);
        assert_eq!(ticks(3.0, 3.0, 4), vec![3.0]);
        assert!(ticks(f64::NAN, 1.0, 4).is_empty());
        let huge = ticks(-f64::MAX, f64::MAX, 4);
        assert!(!huge.is_empty() && huge.len() <= 13, "{huge:?}");
        assert!(ticks(1e300, 1e300 + 1e285, 4).len() <= 13);
    }

    #[test]
    fn clock_interpolates() {
        let mut d = Downsampler::new(4);
        for i in 0..100u64 {
            d.push(i, (i * 10) as i64, 1.0);
        }
        let c = Clock::new(&d, false);
        assert_eq!(c.at(0.0), Some(0.0));
        assert_eq!(c.at(99.0), Some(990.0));
        let mid = c.at(50.0).unwrap();
        assert!((mid - 500.0).abs() < 20.0, "{mid}");
        assert_eq!(c.at(1000.0), Some(990.0));
        assert_eq!(Clock::new(&Downsampler::new(4), true).at(3.0), None);
    }
}
