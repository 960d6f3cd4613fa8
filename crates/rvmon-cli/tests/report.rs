//! `rvmon check … --report FILE.html`: the report of a run, for every engine that runs
//! through the run loop (an STL formula, a first-order formula, parametric properties, a
//! stream specification). The verdicts on standard output and the exit status are those of
//! the same run without it; the page is self-contained and well formed, and shows what each
//! engine's run has (signals, robustness of the formula and its subformulas, a verdict
//! timeline, the violations); a run that stops on a bad input still writes what it decided
//! before; a long trace gives a page no larger than a short one. In headless Chromium (when it
//! is installed: `.ci/run` installs it, and the test says SKIPPED without it) the page renders
//! to a screenshot that is checked structurally: not blank, in several colours, red where the
//! violations are, plot panels in the top and the bottom half of the window.

use std::path::{Path, PathBuf};
use std::process::Command;

use rvmon_cli::check_cmd::{self, CheckArgs};
use rvmon_report::html::problems;
use rvmon_testkit::{say, skip, summary, Needs};

fn dir(name: &str) -> PathBuf {
    let d = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "report").join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn example(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(path)
        .display()
        .to_string()
}

/// `rvmon check` in-process: its status (or error) and standard output.
fn check(args: &CheckArgs) -> (Result<i32, String>, String) {
    let mut out = Vec::new();
    let status = check_cmd::run(args, &mut out, &mut std::io::sink()).map_err(|e| e.to_string());
    (status, String::from_utf8(out).unwrap())
}

/// Runs `args` without a report and with one (in `dir`): the same status and output; the
/// page, which has no problem.
fn with_report(args: CheckArgs, name: &str) -> (Result<i32, String>, String, String) {
    let plain = check(&args);
    let path = dir(name).join("report.html");
    let reported = check(&CheckArgs {
        report: Some(path.display().to_string()),
        ..args
    });
    assert_eq!(
        plain, reported,
        "{name}: --report changed the output or status"
    );
    let page = std::fs::read_to_string(&path).unwrap();
    assert_eq!(problems(&page), Vec::<String>::new(), "{name}");
    (reported.0, reported.1, page)
}

fn panels(page: &str, kind: &str) -> usize {
    page.matches(&format!("data-kind=\"{kind}\"")).count()
}

/// The bundled STL example: its two signals, the formula's robustness and its four
/// subformulas', the four violations marked and listed.
fn stl_report() -> String {
    let args = CheckArgs::new(example("stl/requirement.stl"), example("stl/signals.csv"));
    let (status, _, page) = with_report(args, "stl");
    assert_eq!(status, Ok(1));
    for needle in [
        "signal x",
        "signal y",
        "robustness of the formula: always[0,3]((x &gt; 0) implies eventually[0,2](y &gt; 0))",
        "subformula 2: x &gt; 0",
        "subformula 3: eventually[0,2](y &gt; 0)",
        "4 violation(s) (negative robustness)",
        "minimum robustness <b>-0.33</b> at sample 23 (23 s)",
        "40</b> sample(s) read",
    ] {
        assert!(page.contains(needle), "no {needle:?} in the STL report");
    }
    assert_eq!(panels(&page, "signal"), 2);
    assert_eq!(panels(&page, "robustness"), 1);
    assert_eq!(panels(&page, "subformula"), 4);
    assert_eq!(panels(&page, "timeline"), 1);
    assert_eq!(page.matches("<td class=\"bad\">violation</td>").count(), 4);
    page
}

#[test]
fn stl_example() {
    stl_report();
}

/// A first-order formula (paper 04's P1 over a small log): a verdict timeline and the
/// violations with their data, no signal panels.
#[test]
fn first_order_example() {
    let d = dir("fo");
    let log = d.join("p1.log");
    std::fs::write(
        &log,
        "@0 auth(1,500)\n@1 net(1)\n@2 auth(2,2000)\n@3 auth(3,900) alive(3)\n@4 net(2)\n",
    )
    .unwrap();
    let args = CheckArgs {
        sig: Some(example("paper04/paper04.sig")),
        ..CheckArgs::new(example("paper04/p1.mfotl"), log.display().to_string())
    };
    let (status, out, page) = with_report(args.clone(), "fo");
    assert_eq!(status, Ok(1));
    assert_eq!(out.lines().count(), 2, "{out}");
    for needle in [
        "verdict timeline",
        "5</b> time point(s) read",
        "2 violation(s)",
        "c=1, t=500",
        "c=3, t=900",
        "temporal formula (MonPoly&#39;s syntax)",
        "first-order",
    ] {
        assert!(
            page.contains(needle),
            "no {needle:?} in the first-order report"
        );
    }
    assert_eq!(panels(&page, "signal") + panels(&page, "robustness"), 0);
    // A sliced run does not go through the run loop: it refuses a report, with the reason.
    let sliced = CheckArgs {
        workers: 2,
        report: Some(d.join("sliced.html").display().to_string()),
        ..args
    };
    let e = check(&sliced).0.unwrap_err();
    assert!(
        e.contains("--report is not available for a sliced run"),
        "{e}"
    );
}

/// Parametric properties and a stream specification: a verdict timeline each; the stream
/// specification's inputs drawn as signals, and with `--values` its output streams.
#[test]
fn parametric_and_stream_examples() {
    let args = CheckArgs::new(example("rvm/locks-ere.rvm"), example("rvm/locks.log"));
    let (_, _, page) = with_report(args, "rvm");
    assert!(page.contains("parametric properties") && page.contains("verdict timeline"));
    let args = CheckArgs {
        values: true,
        ..CheckArgs::new(example("lola/engine.lola"), example("lola/engine.csv"))
    };
    let (_, _, page) = with_report(args, "lola");
    assert!(page.contains("stream specification") && panels(&page, "timeline") == 1);
    assert!(panels(&page, "signal") > 0, "the inputs are drawn");
    assert!(panels(&page, "stream") > 0, "the output streams are drawn");
}

/// A bad sample in the middle: the same error as without the report, and a report of the
/// samples before it that says the run stopped.
#[test]
fn a_run_that_stops_still_writes_its_report() {
    let d = dir("bad");
    let mut csv = String::from("time,x,y\n");
    for i in 0..30 {
        csv += &format!("{i},{},1\n", if i % 7 == 3 { -1 } else { 1 });
    }
    csv += "30,oops,1\n31,1,1\n";
    let trace = d.join("bad.csv");
    std::fs::write(&trace, csv).unwrap();
    let spec = d.join("f.stl");
    std::fs::write(&spec, "x > 0").unwrap();
    let args = CheckArgs::new(spec.display().to_string(), trace.display().to_string());
    let (status, out, page) = with_report(args, "bad");
    assert!(status.is_err());
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(page.contains("the run stopped:"), "no note of the error");
    assert!(page.contains("4 violation(s)"));
}

/// The report never takes the place of an input: `--report` naming the trace or the spec is
/// refused, and the file is left as it was.
#[test]
fn a_report_over_its_own_input_is_refused() {
    let d = dir("own");
    let trace = d.join("t.csv");
    std::fs::write(&trace, "time,x\n0,1\n1,-1\n").unwrap();
    let spec = d.join("f.stl");
    std::fs::write(&spec, "x > 0").unwrap();
    for target in [&trace, &spec] {
        let args = CheckArgs {
            report: Some(target.display().to_string()),
            ..CheckArgs::new(spec.display().to_string(), trace.display().to_string())
        };
        let (status, _) = check(&args);
        let e = status.unwrap_err();
        assert!(e.contains("the report would overwrite it"), "{e}");
    }
    assert_eq!(
        std::fs::read_to_string(&trace).unwrap(),
        "time,x\n0,1\n1,-1\n"
    );
    assert_eq!(std::fs::read_to_string(&spec).unwrap(), "x > 0");
}

/// A subformula as large as the formula is not drawn (each drawn one runs its own monitor):
/// in a 6,000-conjunct chain the outer conjunctions are left out, the small ones drawn.
#[test]
fn large_subformulas_are_not_drawn() {
    let text: Vec<String> = (0..6000).map(|i| format!("x > {i}")).collect();
    let monitor = rvmon::cascade::stl_monitor("chain.stl", &text.join(" and ")).unwrap();
    let f = monitor.formula();
    let (chosen, _) = rvmon::report::subformulas(f);
    assert!(!chosen.is_empty());
    let size = |id: usize| {
        let mut n = 0;
        let mut stack = vec![id];
        while let Some(k) = stack.pop() {
            n += 1;
            stack.extend(f.nodes[k].operands());
        }
        n
    };
    for id in chosen {
        assert!(size(id) <= rvmon::report::COMPANION_NODES, "{}", f.text(id));
    }
}

/// 200,000 samples: the page is summarised (its size does not follow the trace).
#[test]
fn a_long_trace_is_summarised() {
    let d = dir("long");
    let mut csv = String::from("time,x,y\n");
    for i in 0..200_000 {
        let x = ((i as f64) / 3000.0).sin();
        csv += &format!("{i},{x:.4},{:.4}\n", ((i as f64) / 1700.0).cos());
    }
    let trace = d.join("long.csv");
    std::fs::write(&trace, csv).unwrap();
    let args = CheckArgs::new(example("stl/requirement.stl"), trace.display().to_string());
    let (_, _, page) = with_report(args, "long");
    assert!(page.len() < 1_500_000, "{} bytes", page.len());
    assert!(page.contains("downsampled: each point is the min and max of 128 samples"));
}

/// `--help` says what `--report` does.
#[test]
fn help_describes_the_flag() {
    let out = Command::new(env!("CARGO_BIN_EXE_rvmon"))
        .args(["check", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("--report <FILE.html>"), "{help}");
    assert!(help.contains("self-contained page"), "{help}");
}

/// The first of `chromium`, `chromium-browser` that runs, or `RVMON_CHROMIUM`.
fn chromium() -> Option<String> {
    let candidates = std::env::var("RVMON_CHROMIUM")
        .into_iter()
        .chain(["chromium".to_string(), "chromium-browser".to_string()]);
    candidates.into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Runs headless Chromium on `page` with `what` (`--screenshot=…`, `--dump-dom`): its output.
fn headless(browser: &str, page: &Path, what: &str, profile: &Path) -> std::process::Output {
    Command::new("timeout")
        .args([
            "120",
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
        ])
        .args(["--hide-scrollbars", "--window-size=1280,900", what])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("runs timeout")
}

#[test]
fn the_stl_report_renders_in_headless_chromium() {
    let Some(browser) = chromium() else {
        // (A failure instead under RVMON_REQUIRE_PEERS, as in CI: the browser is a peer.)
        return skip(
            "report: headless Chromium",
            Needs::Peer,
            "no `chromium` on this machine (apt-get install chromium; .ci/run installs it)",
        );
    };
    if Command::new("python3").arg("--version").output().is_err() {
        return say("SKIPPED: report: headless Chromium: no python3 to decode the screenshot");
    }
    let d = dir("chromium");
    let page = d.join("report.html");
    std::fs::write(&page, stl_report()).unwrap();
    let shot = d.join("shot.png");
    let out = headless(
        &browser,
        &page,
        &format!("--screenshot={}", shot.display()),
        &d,
    );
    assert!(
        shot.exists(),
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stats = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/png_stats.py"))
        .arg(&shot)
        .output()
        .unwrap();
    let stats = String::from_utf8(stats.stdout).unwrap();
    let value = |key: &str| -> f64 {
        let line = stats.lines().find(|l| l.starts_with(key)).unwrap_or("");
        line.split(' ')
            .nth(1)
            .and_then(|v| v.parse().ok())
            .unwrap_or(-1.0)
    };
    assert_eq!(value("size "), 1280.0, "{stats}");
    assert!(value("colours") >= 12.0, "too few colours: {stats}");
    assert!(
        value("ink_top") > 0.01 && value("ink_bottom") > 0.01,
        "blank half: {stats}"
    );
    assert!(
        value("red") > 200.0,
        "the violations are not marked red: {stats}"
    );
    // Plot panels: runs of rows of the plots' background, one starting in each half.
    let bands: Vec<(f64, f64)> = stats
        .lines()
        .filter_map(|l| l.strip_prefix("band "))
        .filter_map(|b| b.split_once(' '))
        .map(|(a, z)| (a.parse().unwrap(), z.parse().unwrap()))
        .collect();
    let plots: Vec<&(f64, f64)> = bands.iter().filter(|(a, z)| z - a >= 100.0).collect();
    assert!(plots.len() >= 2, "fewer than two plot panels: {stats}");
    assert!(
        plots.iter().any(|p| p.0 < 450.0),
        "no plot in the top half: {stats}"
    );
    assert!(
        plots.iter().any(|p| p.0 >= 450.0),
        "no plot in the bottom half: {stats}"
    );
    assert!(
        plots.iter().all(|(a, z)| z - a <= 220.0 || *z >= 895.0),
        "a plot panel of an unexpected height: {stats}"
    );
    // The DOM Chromium built: every SVG panel, with its drawing.
    let dom = headless(&browser, &page, "--dump-dom", &d);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(
        dom.matches("<svg").count(),
        8,
        "the panels' SVGs in the DOM"
    );
    assert!(
        dom.matches("<polyline").count() >= 7,
        "the series' lines in the DOM"
    );
    summary(
        "report",
        &format!(
            "headless Chromium: {} plot panels seen, {stats:?}",
            plots.len()
        ),
    );
}
