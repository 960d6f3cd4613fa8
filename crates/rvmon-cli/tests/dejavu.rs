//! The DejaVu FMSD properties (`../shared/data/dejavu-fmsd`, 10 k-event logs): rvmon's
//! violations equal DejaVu's documented verdicts (event k = time point k-1), and
//! `rvmon monpoly -negate` equals MonPoly's recorded output where MonPoly has one.
//! fifo and the lock-cycle property are not monitorable for MonPoly: the lock-cycle property
//! runs as DejaVu wrote it (rvmon pushes negations further), fifo in rvmon's formulation
//! (`examples/dejavu/fifo.mfotl`, which explains why). The data-race property, which MonPoly
//! cannot monitor either, runs in rvmon's formulation too (`examples/dejavu/datarace.mfotl`:
//! locksets, races looked for only at accesses). The file and basic lock properties also run
//! as parametric properties (`examples/dejavu/file.rvm`, `examples/dejavu/locks.rvm`).

use std::path::{Path, PathBuf};

use rvmon_cli::check_cmd::{self, CheckArgs, Output};
use rvmon_cli::monpoly_cmd::{self, MonpolyArgs};
use rvmon_trace::TraceFormat;

/// `../shared/data/dejavu-fmsd`, or `None` (the test `test` is skipped, and says so).
fn data(test: &str) -> Option<PathBuf> {
    rvmon_testkit::shared_data(&format!("dejavu::{test}"), "dejavu-fmsd")
}

fn p(x: &Path) -> String {
    x.display().to_string()
}

/// Event numbers (1-based) of the violations rvmon reports.
fn violations(spec: &Path, log: &Path, sig: &Path) -> Vec<u64> {
    let args = CheckArgs {
        format: Some(TraceFormat::Monpoly),
        sig: Some(p(sig)),
        output: Output::Monpoly,
        ..CheckArgs::new(p(spec), p(log))
    };
    let mut out = Vec::new();
    check_cmd::run(&args, &mut out, &mut std::io::sink()).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| {
            let tp: u64 = l
                .split("(time point ")
                .nth(1)
                .unwrap()
                .split(')')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            tp + 1
        })
        .collect()
}

fn expected(path: &Path) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

#[test]
fn dejavu_verdicts() {
    let Some(d) = data("dejavu_verdicts") else {
        return;
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cases: [(&str, PathBuf, &str, &str); 6] = [
        (
            "property1-access",
            d.join("property1-access/prop1.mfotl"),
            "prop1.sig",
            "10000",
        ),
        (
            "property2-file",
            d.join("property2-file/prop2.mfotl"),
            "prop2.sig",
            "10000",
        ),
        (
            "property3-fifo",
            repo.join("examples/dejavu/fifo.mfotl"),
            "prop3.sig",
            "10000",
        ),
        (
            "property3-fifo",
            repo.join("examples/dejavu/fifo.mfotl"),
            "prop3.sig",
            "5000",
        ),
        (
            "property4-locks-basic",
            d.join("property4-locks-basic/prop4.mfotl"),
            "prop4.sig",
            "10000",
        ),
        (
            "property5-locks-cycles",
            d.join("property5-locks-cycles/prop5.mfotl"),
            "prop5.sig",
            "10000",
        ),
    ];
    for (dir, spec, sig, size) in cases {
        let base = d.join(dir);
        let got = violations(
            &spec,
            &base.join(size).join("log-monpoly.txt"),
            &base.join(sig),
        );
        let want = expected(&base.join(size).join("expected-dejavu.txt"));
        assert_eq!(got, want, "{dir}/{size} with {}", spec.display());
    }
    rvmon_testkit::summary("dejavu", "6/6 logs: DejaVu's verdicts");
}

#[test]
fn dejavu_monpoly_outputs() {
    let Some(d) = data("dejavu_monpoly_outputs") else {
        return;
    };
    for (dir, formula, sig) in [
        ("property1-access", "prop1", "prop1.sig"),
        ("property2-file", "prop2", "prop2.sig"),
        ("property4-locks-basic", "prop4", "prop4.sig"),
        ("property4-locks-basic", "prop4-1", "prop4.sig"),
        ("property4-locks-basic", "prop4-2", "prop4.sig"),
        ("property4-locks-basic", "prop4-3", "prop4.sig"),
    ] {
        let base = d.join(dir);
        let args = MonpolyArgs {
            sig: Some(p(&base.join(sig))),
            formula: Some(p(&base.join(format!("{formula}.mfotl")))),
            log: Some(p(&base.join("10000/log-monpoly.txt"))),
            negate: true,
            ..Default::default()
        };
        let mut out = Vec::new();
        monpoly_cmd::run(&args, &mut out, &mut std::io::sink()).unwrap();
        let want =
            std::fs::read_to_string(base.join(format!("10000/expected-monpoly-{formula}.txt")))
                .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), want, "{dir} {formula}");
    }
    rvmon_testkit::summary("dejavu (monpoly)", "6/6 formulas: MonPoly's output");
}

/// The file property (`examples/dejavu/file.rvm`, a machine) and the basic lock property
/// (`examples/dejavu/locks.rvm`, past-time LTL bodies) as parametric properties: the same
/// verdicts as DejaVu's.
#[test]
fn parametric_properties_give_dejavus_verdicts() {
    let Some(d) = data("parametric_properties_give_dejavus_verdicts") else {
        return;
    };
    for (spec, dir) in [
        ("file.rvm", "property2-file"),
        ("locks.rvm", "property4-locks-basic"),
    ] {
        let spec = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/dejavu")
            .join(spec);
        let args = CheckArgs {
            format: Some(TraceFormat::Monpoly),
            sig: None,
            output: Output::Text,
            ..CheckArgs::new(p(&spec), p(&d.join(dir).join("10000/log-monpoly.txt")))
        };
        let mut out = Vec::new();
        let status = check_cmd::run(&args, &mut out, &mut std::io::sink()).unwrap();
        let events: Vec<u64> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| {
                l.split("at time point ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .parse::<u64>()
                    .unwrap()
                    + 1
            })
            .collect();
        assert_eq!(status, 1, "{dir}");
        assert_eq!(
            events,
            expected(&d.join(dir).join("10000/expected-dejavu.txt")),
            "{dir}"
        );
    }
    rvmon_testkit::summary("dejavu (parametric)", "2/2 properties: DejaVu's verdicts");
}

/// The data-race property in rvmon's formulation (`examples/dejavu/datarace.mfotl`):
/// DejaVu's verdict.
#[test]
fn datarace_property_in_lockset_form() {
    let Some(d) = data("datarace_property_in_lockset_form") else {
        return;
    };
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/dejavu/datarace.mfotl");
    let dir = d.join("property6-locks-datarace");
    assert_eq!(
        violations(
            &spec,
            &dir.join("10000/log-monpoly.txt"),
            &dir.join("prop6.sig")
        ),
        expected(&dir.join("10000/expected-dejavu.txt"))
    );
    rvmon_testkit::summary("dejavu (data race, lockset form)", "DejaVu's verdicts");
}
