//! The timescales MTL benchmark (10 patterns × bounds 10/100/1000, plus the `small/` traces
//! with a violation at the end): rvmon's verdicts must equal MonPoly's recorded `-negate`
//! output, through both front doors (`rvmon monpoly` and `rvmon check --output monpoly`).

use std::path::{Path, PathBuf};

use rvmon_cli::check_cmd::{self, CheckArgs, Output};
use rvmon_cli::monpoly_cmd::{self, MonpolyArgs};

/// `../shared/data/timescales`, or `None` (the suite is skipped, and says so).
fn data_dir() -> Option<PathBuf> {
    rvmon_testkit::shared_data("timescales", "timescales/formulas")
        .and_then(|f| f.parent().map(Path::to_path_buf))
}

const PATTERNS: [&str; 10] = [
    "AbsentAQ",
    "AbsentBQR",
    "AbsentBR",
    "AlwaysAQ",
    "AlwaysBQR",
    "AlwaysBR",
    "RecurBQR",
    "RecurGLB",
    "RespondBQR",
    "RespondGLB",
];

fn via_monpoly(dir: &Path, formula: &Path, log: &Path) -> String {
    let p = |x: &Path| x.display().to_string();
    let args = MonpolyArgs {
        sig: Some(p(&dir.join("formulas/timescales.sig"))),
        formula: Some(p(formula)),
        log: Some(p(log)),
        negate: true,
        ..Default::default()
    };
    let mut out = Vec::new();
    monpoly_cmd::run(&args, &mut out, &mut std::io::sink()).unwrap();
    String::from_utf8(out).unwrap()
}

fn via_check(formula: &Path, log: &Path) -> (String, i32) {
    let args = CheckArgs {
        format: None,
        sig: None,
        output: Output::Monpoly,
        ..CheckArgs::new(formula.display().to_string(), log.display().to_string())
    };
    let mut out = Vec::new();
    let code = check_cmd::run(&args, &mut out, &mut std::io::sink()).unwrap();
    (String::from_utf8(out).unwrap(), code)
}

#[test]
fn timescales_verdicts_equal_monpoly() {
    let Some(dir) = data_dir() else {
        return;
    };
    let mut cases = Vec::new();
    for p in PATTERNS {
        for bound in [10, 100, 1000] {
            let name = format!("{p}{bound}");
            cases.push((
                dir.join(format!("formulas/{name}.mtl")),
                dir.join(format!("{name}.log")),
                dir.join(format!("expected/{name}.expected")),
            ));
        }
        cases.push((
            dir.join(format!("formulas/{p}10.mtl")),
            dir.join(format!("small/{p}.log")),
            dir.join(format!("small/{p}.expected")),
        ));
    }
    let mut violations = 0;
    for (formula, log, expected) in &cases {
        let want = std::fs::read_to_string(expected).unwrap();
        assert_eq!(
            via_monpoly(&dir, formula, log),
            want,
            "rvmon monpoly on {}",
            log.display()
        );
        let (got, code) = via_check(formula, log);
        assert_eq!(got, want, "rvmon check on {}", log.display());
        assert_eq!(
            code,
            i32::from(!want.is_empty()),
            "exit status on {}",
            log.display()
        );
        violations += want.lines().count();
    }
    assert_eq!(cases.len(), 40);
    assert_eq!(
        violations, 10,
        "each small trace has one violation, the long ones none"
    );
    rvmon_testkit::summary(
        "timescales",
        &format!(
            "{}/{} traces give MonPoly's verdicts through both front doors ({violations} violations)",
            cases.len(),
            cases.len()
        ),
    );
}
