//! MonPoly's own regression suite (`../shared/data/monpoly`), run through `rvmon monpoly`
//! in-process: every monitoring case rvmon supports must reproduce MonPoly's output byte for
//! byte (stdout and stderr interleaved, as recorded). Cases outside the supported fragment are
//! counted and listed with the reason, so the test says exactly what is missing.

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use rvmon_cli::monpoly_cmd::{run, MonpolyArgs};
use rvmon_logic::{analyze, parse_formula};

#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `../shared/data/monpoly`, or `None` (the suite `suite` is skipped, and says so).
fn data_dir(suite: &str) -> Option<PathBuf> {
    rvmon_testkit::shared_data(suite, "monpoly/INDEX.tsv")
        .and_then(|index| index.parent().map(Path::to_path_buf))
}

/// Why rvmon does not run this case yet, or `None` if it should pass.
fn unsupported(dir: &Path, formula: &str, options: &str) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(formula)).ok()?;
    let f = match parse_formula(formula, &text) {
        Ok(f) => f,
        Err(e) => return Some(format!("formula syntax not supported yet: {e}")),
    };
    match analyze(formula, &text, &f) {
        Ok(_) if options.contains("-check") || options.contains("-debug") => {
            Some("formula analysis report (-check)".into())
        }
        Ok(_) => None,
        Err(_) => None,
    }
}

/// The log to run: `log` itself, or, when it saves the monitor's state to a relative path
/// (`>save_state test39.sta<`, relative to the working directory as in MonPoly), a copy that
/// saves it in a temporary directory of its own instead of the crate's (then also returned,
/// to be removed after the run). Each call has its own directory: the tests of this file run
/// the suite in parallel threads, and a directory per case only was shared by both, which
/// made one run's saved state overwrite the other's (a failure seen once).
fn state_files_in_temp(case: &str, log: &Path) -> (String, Option<PathBuf>) {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let text = std::fs::read_to_string(log).unwrap_or_default();
    if !text.contains(">save_") {
        return (log.display().to_string(), None);
    }
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "monpoly_compat")
        .join(format!("{run}-{}", case.replace('/', "-")));
    std::fs::create_dir_all(&tmp).unwrap();
    let rewritten = text
        .replace(">save_state ", &format!(">save_state {}/", tmp.display()))
        .replace(
            ">save_and_exit ",
            &format!(">save_and_exit {}/", tmp.display()),
        );
    let copy = tmp.join("log");
    std::fs::write(&copy, rewritten).unwrap();
    (copy.display().to_string(), Some(tmp))
}

/// Runs one case of the suite (`[sig, formula, log, options]` as in `INDEX.tsv`, then `extra`
/// options) in-process: the exit status and the output (stdout and stderr interleaved); an
/// error when the options are not accepted.
fn run_case(
    dir: &Path,
    case: &str,
    [sig, formula, log, options]: [&str; 4],
    extra: &[&str],
) -> Result<(i32, String), String> {
    let mut args: Vec<String> = vec!["-sig".into(), dir.join(sig).display().to_string()];
    args.extend(["-formula".into(), dir.join(formula).display().to_string()]);
    let (log, tmp) = state_files_in_temp(case, &dir.join(log));
    args.extend(["-log".into(), log]);
    args.extend(options.split_whitespace().map(String::from));
    args.extend(extra.iter().map(|o| o.to_string()));
    let buf = Shared::default();
    let status = MonpolyArgs::parse(&args)
        .map_err(|e| e.to_string())
        .map(|a| match run(&a, &mut buf.clone(), &mut buf.clone()) {
            Ok(code) => code,
            Err(e) => {
                writeln!(buf.clone(), "rvmon: error: {e}").unwrap();
                2
            }
        });
    if let Some(tmp) = tmp {
        let _ = std::fs::remove_dir_all(tmp);
    }
    let got = String::from_utf8(buf.0.borrow().clone()).unwrap();
    Ok((status?, got))
}

/// Every case that reproduces MonPoly's output still does when the strings no state holds are
/// freed at every time point (`-collect_strings 0`; by default only once 2^16 are in use,
/// which no case of the suite reaches). A string freed while a state still held it would be
/// read back as another value, or reused for one: a wrong verdict, not a crash.
#[test]
fn monpoly_suite_with_strings_freed_at_every_time_point() {
    let Some(root) = data_dir("monpoly_compat (strings freed)") else {
        return;
    };
    let index = std::fs::read_to_string(root.join("INDEX.tsv")).unwrap();
    let (mut compared, mut differ) = (0, Vec::new());
    for line in index.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (case, sig, formula, log, options, exit_code) =
            (cols[0], cols[3], cols[4], cols[5], cols[6], cols[7]);
        let dir = root.join(case);
        if log == "-" || exit_code != "0" || unsupported(&dir, formula, options).is_some() {
            continue;
        }
        let case_args = [sig, formula, log, options];
        let Ok((status, got)) = run_case(&dir, case, case_args, &["-collect_strings", "0"]) else {
            continue;
        };
        let expected = std::fs::read_to_string(dir.join("expected")).unwrap();
        if status != 0 || got != expected {
            // Only a case that reproduces MonPoly without collection counts against it.
            if run_case(&dir, case, case_args, &[]) == Ok((0, expected.clone())) {
                differ.push(format!(
                    "{case} ({options})\n--- got\n{got}--- expected\n{expected}"
                ));
            }
            continue;
        }
        compared += 1;
    }
    rvmon_testkit::summary(
        "monpoly_compat (strings freed at every time point)",
        &format!("{compared} cases identical, {} differ", differ.len()),
    );
    for d in &differ {
        eprintln!("DIFFERS WITH STRINGS FREED: {d}");
    }
    assert!(
        differ.is_empty(),
        "{} cases differ once strings are freed",
        differ.len()
    );
    // The suite's 723 monitoring cases exit 0 and reproduce MonPoly.
    assert!(compared >= 723, "only {compared} cases compared");
}

#[test]
fn monpoly_suite() {
    let Some(root) = data_dir("monpoly_compat") else {
        return;
    };
    let index = std::fs::read_to_string(root.join("INDEX.tsv")).unwrap();
    let (mut passed, mut failed, mut skipped) = (Vec::new(), Vec::new(), Vec::new());
    let mut identical = 0;
    for line in index.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (case, sig, formula, log, options, exit_code) =
            (cols[0], cols[3], cols[4], cols[5], cols[6], cols[7]);
        let dir = root.join(case);
        if log == "-" {
            skipped.push((
                case.to_string(),
                "formula analysis only (no log)".to_string(),
            ));
            continue;
        }
        let want_status: i32 = exit_code.parse().unwrap_or(0);
        if let Some(why) = unsupported(&dir, formula, options) {
            // A formula rvmon cannot parse still counts when MonPoly rejects it too.
            if !(want_status == 2 && why.starts_with("formula syntax")) {
                skipped.push((case.to_string(), why));
                continue;
            }
        }
        let (status, got) = match run_case(&dir, case, [sig, formula, log, options], &[]) {
            Ok(run) => run,
            Err(e) => {
                skipped.push((case.to_string(), format!("option: {e}")));
                continue;
            }
        };
        let expected = std::fs::read_to_string(dir.join("expected")).unwrap();
        // Fatal errors: the same exit status, with rvmon's own message naming the problem.
        let same_error = want_status != 0 && status == want_status && got.contains("rvmon: error:");
        if got == expected && status == want_status {
            identical += 1;
        }
        if (got == expected && status == want_status) || same_error {
            passed.push(case.to_string());
        } else {
            failed.push(format!("{case} ({options}): exit {status} (want {want_status})\n--- got\n{got}--- expected\n{expected}"));
        }
    }
    let mut reasons = std::collections::BTreeMap::<String, usize>::new();
    for (_, why) in &skipped {
        let key = why.split(':').next().unwrap_or(why).to_string();
        *reasons.entry(key).or_default() += 1;
    }
    rvmon_testkit::summary(
        "monpoly_compat",
        &format!(
            "{}/{} cases agree ({identical} byte-identical, {} fatal errors with MonPoly's status); {} not supported yet",
            passed.len(),
            passed.len() + failed.len(),
            passed.len() - identical,
            skipped.len()
        ),
    );
    if std::env::var_os("RVMON_LIST_UNSUPPORTED").is_some() {
        for (case, why) in &skipped {
            eprintln!("  {case}: {why}");
        }
    }
    for (why, n) in &reasons {
        eprintln!("  not supported yet: {n} × {why}");
    }
    // Cases known to differ, with the reason, live in `monpoly_known_failures.txt`: a new
    // failure fails the test, and so does a listed case that now passes (the list must shrink).
    let known_text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/monpoly_known_failures.txt"),
    )
    .unwrap();
    let known: std::collections::BTreeSet<&str> = known_text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let failed_names: std::collections::BTreeSet<&str> = failed
        .iter()
        .map(|f| f.split(' ').next().unwrap())
        .collect();
    for f in &failed {
        if !known.contains(f.split(' ').next().unwrap())
            || std::env::var_os("RVMON_SHOW_FAILURES").is_some()
        {
            eprintln!("FAILED {f}");
        }
    }
    if std::env::var_os("RVMON_UPDATE_KNOWN_FAILURES").is_some() {
        // Rewrite the list: keep the reasons of cases still failing, mark new ones.
        let mut out = String::new();
        for l in known_text.lines() {
            let name = l.split_whitespace().next().unwrap_or("");
            if l.starts_with('#') || failed_names.contains(name) {
                out.push_str(l);
                out.push('\n');
            }
        }
        for name in failed_names.difference(&known) {
            out.push_str(&format!("{name}\tdiffers: under investigation\n"));
        }
        std::fs::write(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/monpoly_known_failures.txt"),
            out,
        )
        .unwrap();
        return;
    }
    let new_failures: Vec<_> = failed_names.difference(&known).collect();
    let fixed: Vec<_> = known
        .iter()
        .filter(|k| passed.iter().any(|p| p == *k))
        .collect();
    assert!(
        new_failures.is_empty(),
        "MonPoly cases that differ and are not known failures: {new_failures:?}"
    );
    assert!(
        fixed.is_empty(),
        "known failures that now pass (remove them from the list): {fixed:?}"
    );
    // The 66 propositional monitoring cases (33 MonPoly + 33 VeriMon) must all be identical.
    assert!(identical >= 66, "only {identical} cases are byte-identical");
}
