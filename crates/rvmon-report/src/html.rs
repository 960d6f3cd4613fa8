//! The report as one self-contained HTML page: a header (the specification, the engine, a
//! summary line), a panel per input signal, the robustness of the formula and of its
//! subformulas, output streams' values, a verdict timeline, the first violations listed, and
//! notes. Inline SVG only: the page loads nothing (no script, no font, no image).

use std::fmt::Write;

use rvmon_core::Kind;

use crate::downsample::Downsampler;
use crate::record::{Report, KINDS};
use crate::svg::{self, num, Clock, Frame, AXIS, RED, TOP, WIDTH};

/// Colours of the series, in turn (violations are [`RED`]).
const PALETTE: [&str; 8] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
];
/// The height of a series' plot, and of a lane of the verdict timeline.
const PLOT: f64 = 150.0;
const LANE: f64 = 30.0;

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:20px auto;max-width:1100px;padding:0 16px;color:#222;background:#fff}\
h1{font-size:20px;margin:8px 0}h2{font-size:15px;margin:4px 0;font-weight:600}\
pre{background:#f4f4f4;padding:8px;white-space:pre-wrap;word-break:break-all;font-size:13px}\
.meta,.legend{font-size:12px;color:#555;margin:3px 0}.summary{font-size:14px;margin:8px 0}\
section.panel{margin:12px 0;border:1px solid #ddd;border-radius:4px;padding:6px 10px}\
.swatch{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}\
svg{display:block;width:100%;height:auto}svg text{font-size:11px;fill:#444}\
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}\
.bad{color:#b00000;font-weight:600}";

/// `s` with `&`, `<`, `>`, `"` and `'` escaped, for text and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// What every panel shares: the positions shown and their times.
struct View {
    p_lo: f64,
    p_hi: f64,
    clock: Clock,
}

impl View {
    fn of(r: &Report) -> View {
        let all = std::iter::once(&r.inputs.clock)
            .chain(&r.inputs.series)
            .chain(std::iter::once(&r.robustness))
            .chain(&r.verdicts)
            .chain(r.subformulas.iter().map(|t| &t.series))
            .chain(r.streams.iter().map(|t| &t.series));
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for t in all.filter_map(Downsampler::total) {
            lo = lo.min(t.first);
            hi = hi.max(t.last);
        }
        if lo > hi {
            (lo, hi) = (0, 0);
        }
        let timed = std::iter::once(&r.inputs.clock)
            .chain(std::iter::once(&r.robustness))
            .chain(&r.verdicts)
            .find(|s| s.count() > 0)
            .unwrap_or(&r.inputs.clock);
        View {
            p_lo: lo as f64,
            p_hi: hi as f64 + 1.0,
            clock: Clock::new(timed, r.nanos),
        }
    }

    fn frame(&self, height: f64, (v_lo, v_hi): (f64, f64)) -> Frame {
        Frame {
            top: TOP,
            height,
            p_lo: self.p_lo,
            p_hi: self.p_hi,
            v_lo,
            v_hi,
        }
    }

    /// `sample 23 (23 s)`.
    fn at(&self, r: &Report, pos: u64, t: i64) -> String {
        format!("{} {pos} ({})", r.input_name, self.clock.text(t as f64))
    }
}

/// The report as an HTML page.
pub fn html(r: &Report) -> String {
    let view = View::of(r);
    let mut s = String::with_capacity(64 * 1024);
    header(&mut s, r, &view);
    let violations = [r.verdicts_of(Kind::Violation), r.verdicts_of(Kind::Trigger)];
    let mut colors = PALETTE.iter().cycle().skip(1);
    for (name, series) in r.meta.inputs.iter().zip(&r.inputs.series) {
        let color = colors.next().unwrap_or(&PALETTE[1]);
        let panel = Panel {
            kind: "signal",
            title: format!("signal {name}"),
            series,
            color,
            zero: false,
            failed: None,
        };
        series_panel(&mut s, r, &view, &panel, &violations);
    }
    if r.robustness.count() > 0 {
        let panel = Panel {
            kind: "robustness",
            title: format!("robustness of the formula: {}", r.meta.text.trim()),
            series: &r.robustness,
            color: PALETTE[0],
            zero: true,
            failed: None,
        };
        series_panel(&mut s, r, &view, &panel, &violations);
    }
    for (k, sub) in r.subformulas.iter().enumerate() {
        let panel = Panel {
            kind: "subformula",
            title: format!("subformula {}: {}", k + 1, sub.title),
            series: &sub.series,
            color: PALETTE[(k + 3) % PALETTE.len()],
            zero: true,
            failed: sub.failed.as_deref(),
        };
        series_panel(&mut s, r, &view, &panel, &violations);
    }
    for (k, st) in r.streams.iter().enumerate() {
        let panel = Panel {
            kind: "stream",
            title: format!("output stream {}", st.title),
            series: &st.series,
            color: PALETTE[(k + 2) % PALETTE.len()],
            zero: false,
            failed: None,
        };
        series_panel(&mut s, r, &view, &panel, &violations);
    }
    timeline(&mut s, r, &view);
    listed(&mut s, r, &view);
    notes(&mut s, r);
    s.push_str("</body>\n</html>\n");
    s
}

/// The page's head, the specification and the summary line.
fn header(s: &mut String, r: &Report, view: &View) {
    let m = &r.meta;
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>rvmon report: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>rvmon report: {}</h1>\n<p class=\"meta\">{} · trace {} · engine: {}</p>\n\
         <pre class=\"spec\">{}</pre>\n",
        esc(&m.spec),
        esc(&m.spec),
        esc(&m.language),
        esc(&m.trace),
        esc(&m.engine),
        esc(m.text.trim_end())
    );
    let mut parts = vec![format!(
        "<b>{}</b> {}(s) read",
        r.read + r.skipped,
        r.input_name
    )];
    if r.skipped > 0 {
        parts[0] += &format!(
            " ({} left out: no event the specification reads)",
            r.skipped
        );
    }
    let violations = r.count(Kind::Violation);
    let what = if r.robustness.count() > 0 {
        " (negative robustness)"
    } else {
        ""
    };
    let class = if violations > 0 { "bad" } else { "" };
    parts.push(format!(
        "<span class=\"{class}\">{violations} violation(s){what}</span>"
    ));
    for (k, word) in [
        (Kind::Trigger, "trigger(s) fired"),
        (Kind::Inconclusive, "inconclusive"),
    ] {
        if r.count(k) > 0 {
            parts.push(format!("{} {word}", r.count(k)));
        }
    }
    if let Some(t) = r.robustness.total() {
        if t.has_value() {
            parts.push(format!(
                "minimum robustness <b>{}</b> at {}",
                num(t.min),
                view.at(r, t.min_at.0, t.min_at.1)
            ));
        } else {
            parts.push("no robustness that is a number (all NaN)".into());
        }
    }
    if let Some(e) = &r.stopped {
        parts.push(format!(
            "<span class=\"bad\">the run stopped: {}</span>",
            esc(e)
        ));
    }
    let _ = writeln!(s, "<p class=\"summary\">{}</p>", parts.join(" · "));
}

/// A panel of one series.
struct Panel<'a> {
    /// `signal`, `robustness`, `subformula`, `stream` (the section's `data-kind`).
    kind: &'static str,
    title: String,
    series: &'a Downsampler,
    color: &'a str,
    /// Robustness: 0 is in the range, and drawn.
    zero: bool,
    failed: Option<&'a str>,
}

fn series_panel(s: &mut String, r: &Report, view: &View, p: &Panel<'_>, marks: &[&Downsampler]) {
    let _ = write!(
        s,
        "<section class=\"panel\" data-kind=\"{}\">\n<h2>{}</h2>\n<p class=\"legend\"><span class=\"swatch\" style=\"background:{}\"></span>{}</p>\n",
        p.kind,
        esc(&p.title),
        p.color,
        legend(r, view, p)
    );
    if p.series.total().is_none() {
        s.push_str("</section>\n");
        return;
    }
    let f = view.frame(PLOT, svg::value_range([p.series], p.zero));
    let _ = write!(
        s,
        "<svg viewBox=\"0 0 {WIDTH} {}\" role=\"img\" aria-label=\"{}\">",
        PLOT + TOP + AXIS,
        esc(&p.title)
    );
    svg::axes(s, &f, &view.clock, true);
    svg::shade(s, &f, marks, RED, 0.12);
    if p.zero {
        let y = f.y(0.0);
        let _ = write!(
            s,
            r##"<line x1="{}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="{RED}" stroke-dasharray="4 3"/>"##,
            svg::LEFT,
            WIDTH - svg::RIGHT
        );
    }
    svg::band(s, &f, p.series, p.color);
    s.push_str("</svg>\n</section>\n");
}

/// A series' legend: what is drawn, its extremes and where, NaNs, and the bucket width.
fn legend(r: &Report, view: &View, p: &Panel<'_>) -> String {
    let unit = r.input_name;
    let Some(t) = p.series.total() else {
        return match p.failed {
            Some(e) => format!("no values: its monitor stopped ({})", esc(e)),
            None => "no values to draw (none, or none that is a number)".into(),
        };
    };
    let mut parts = vec![format!("{} value(s)", t.n)];
    if t.has_value() {
        parts.push(format!(
            "min {} at {}",
            num(t.min),
            view.at(r, t.min_at.0, t.min_at.1)
        ));
        parts.push(format!(
            "max {} at {}",
            num(t.max),
            view.at(r, t.max_at.0, t.max_at.1)
        ));
    }
    if t.nan > 0 {
        parts.push(format!("{} NaN (not drawn)", t.nan));
    }
    if p.zero {
        parts.push("dashed: zero; shaded red: where the whole formula is violated".into());
    }
    let w = p.series.width();
    if w > 1 {
        parts.push(format!(
            "downsampled: each point is the min and max of {w} {unit}s (the band between them)"
        ));
    }
    if let Some(e) = p.failed {
        parts.push(format!("its monitor stopped: {}", esc(e)));
    }
    parts.join(" · ")
}

/// The verdict timeline: a lane of bars per kind of decision (and one of the inputs read),
/// each bar the number in its bucket, scaled to the lane's tallest.
fn timeline(s: &mut String, r: &Report, view: &View) {
    let lanes: Vec<(String, &Downsampler, &str, u64)> = [(
        format!("{}s", r.input_name),
        &r.inputs.clock,
        PALETTE[0],
        r.read,
    )]
    .into_iter()
    .chain(KINDS.iter().zip(&r.verdicts).filter_map(|(&k, series)| {
        let n = r.count(k);
        let (name, color) = match k {
            Kind::Violation => ("violations", RED),
            Kind::Trigger => ("triggers", "#ff7f0e"),
            Kind::Inconclusive => ("inconclusive", "#7f7f7f"),
            Kind::Satisfied => ("satisfied", "#2ca02c"),
            Kind::Value => ("values", "#9467bd"),
        };
        (k == Kind::Violation || n > 0).then(|| (name.to_string(), series, color, n))
    }))
    .collect();
    let counts: Vec<String> = lanes.iter().map(|l| format!("{} {}", l.3, l.0)).collect();
    let _ = write!(
        s,
        "<section class=\"panel\" data-kind=\"timeline\">\n<h2>verdict timeline: {}</h2>\n<p class=\"legend\">{} · a bar per stretch of {} {}(s): its height is how many there are</p>\n",
        esc(&r.meta.spec),
        counts.join(" · "),
        r.inputs.clock.width().max(r.verdicts_of(Kind::Violation).width()),
        r.input_name
    );
    let height = lanes.len() as f64 * LANE;
    let f = view.frame(height, (0.0, 1.0));
    let _ = write!(
        s,
        "<svg viewBox=\"0 0 {WIDTH} {}\" role=\"img\" aria-label=\"verdict timeline\">",
        height + TOP + AXIS
    );
    svg::axes(s, &f, &view.clock, false);
    for (i, (name, series, color, n)) in lanes.iter().enumerate() {
        let top = TOP + i as f64 * LANE;
        let _ = write!(
            s,
            r##"<text x="{}" y="{:.1}" text-anchor="end">{}</text><text x="{}" y="{:.1}" text-anchor="end" fill="#888">{n}</text>"##,
            svg::LEFT - 6.0,
            top + 13.0,
            esc(name),
            svg::LEFT - 6.0,
            top + 26.0
        );
        if i > 0 {
            let _ = write!(
                s,
                r##"<line x1="{}" x2="{}" y1="{top:.1}" y2="{top:.1}" stroke="#ddd"/>"##,
                svg::LEFT,
                WIDTH - svg::RIGHT
            );
        }
        svg::bars(s, &f, series, top + 3.0, LANE - 6.0, color);
    }
    s.push_str("</svg>\n</section>\n");
}

/// The first violations (triggers, inconclusive verdicts) with their data.
fn listed(s: &mut String, r: &Report, view: &View) {
    if r.listed.is_empty() {
        return;
    }
    let all = r.count(Kind::Violation) + r.count(Kind::Trigger) + r.count(Kind::Inconclusive);
    let _ = write!(
        s,
        "<section class=\"panel\" data-kind=\"listed\">\n<h2>the first {} of {all} violation(s), trigger(s) and inconclusive verdict(s)</h2>\n<table>\n<tr><th>{}</th><th>time</th><th>verdict</th><th>data</th></tr>\n",
        r.listed.len(),
        r.input_name
    );
    for l in &r.listed {
        let class = if l.kind == Kind::Inconclusive {
            ""
        } else {
            "bad"
        };
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=\"{class}\">{}</td><td>{}</td></tr>",
            l.tp,
            esc(&view.clock.text(l.ts as f64)),
            l.kind.name(),
            esc(&l.text)
        );
    }
    s.push_str("</table>\n</section>\n");
}

fn notes(s: &mut String, r: &Report) {
    let mut notes: Vec<String> = r.meta.notes.iter().map(|n| esc(n)).collect();
    notes.push(format!(
        "Each series is summarised in at most {} buckets as it is read (the minimum and maximum \
         of each stretch of {}s), so a long trace is drawn in the same space as a short one; \
         time labels between known times are interpolated.",
        r.inputs.clock.capacity(),
        r.input_name
    ));
    let _ = write!(s, "<section class=\"notes\">\n<h2>notes</h2>\n<ul>\n");
    for n in notes {
        let _ = writeln!(s, "<li>{n}</li>");
    }
    s.push_str("</ul>\n</section>\n");
}

/// What is wrong with a page that should be a report: tags that do not nest (a closing tag
/// that does not close the last one opened, one left open), and anything that would load
/// from elsewhere (a `src` or `href` attribute, a script, a stylesheet link, a CSS `url(` or
/// `@import`). Empty for a well-formed, self-contained page.
pub fn problems(page: &str) -> Vec<String> {
    const VOID: [&str; 6] = ["meta", "br", "hr", "img", "input", "link"];
    let mut out = Vec::new();
    let lower = page.to_ascii_lowercase();
    for bad in [
        "<script", "<link", "<iframe", "<img", "url(", "@import", " src=", " href=",
    ] {
        if lower.contains(bad) {
            out.push(format!("`{bad}` in the page"));
        }
    }
    let mut open: Vec<&str> = Vec::new();
    let mut rest = page;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let Some(end) = rest.find('>') else {
            out.push("a `<` without `>`".into());
            break;
        };
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        let name_of = |t: &'_ str| -> String {
            t.trim_start_matches('/')
                .split(|c: char| c.is_whitespace() || c == '/')
                .next()
                .unwrap_or("")
                .to_ascii_lowercase()
        };
        let name = name_of(tag);
        if tag.starts_with('/') {
            match open.pop() {
                Some(o) if name_of(o) == name => {}
                o => out.push(format!(
                    "</{name}> closes <{}>",
                    o.map(name_of).unwrap_or_default()
                )),
            }
        } else if !tag.ends_with('/') && !VOID.contains(&name.as_str()) {
            open.push(tag);
        }
    }
    for o in open {
        out.push(format!("<{o}> is not closed"));
    }
    if !page.starts_with("<!DOCTYPE html>") {
        out.push("no <!DOCTYPE html> first".into());
    }
    out
}
