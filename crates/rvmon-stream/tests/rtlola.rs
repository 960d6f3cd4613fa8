//! RTLola's interpreter test cases (`../shared/data/rtlola`): every case whose specification
//! rvmon supports must fire exactly the expected triggers at exactly the expected times
//! (compared as RTLola prints them); the others must be rejected with a message that names
//! the missing feature. The counts are printed.

mod common;

use std::path::PathBuf;

use rvmon_stream::output::time_text;

/// `../shared/data/rtlola/definitions`, or `None` (the suite is skipped, and says so).
fn data_dir() -> Option<PathBuf> {
    rvmon_testkit::shared_data("rtlola", "rtlola/definitions")
}

/// The cases rvmon supports: all but `pcap_input`, which reads a packet capture (and
/// declares tuple inputs).
const SUPPORTED: &[&str] = &[
    "add_two_int",
    "add_two_int-holes-explicit_ac",
    "add_two_int_trigger_message",
    "add_two_int_without_holes",
    "complex_spawn",
    "conjunct_in_ac",
    "count_1_4",
    "delay",
    "delay_advanced",
    "frequencies",
    "hold_access",
    "simple_sliding_window",
    "large_offset",
    "medium_offset",
    "min_max",
    "parameterized_access",
    "parameterized_access_complex",
    "parameterized_count",
    "parameterized_window",
    "periodic_spawn",
    "short_offset-holes",
];

#[test]
fn rtlola_interpreter_cases() {
    let Some(dir) = data_dir() else {
        return;
    };
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "rtlola_interpreter_test")
        })
        .collect();
    cases.sort();
    assert_eq!(cases.len(), 22, "the RTLola set has 22 cases");
    let (mut passed, mut unsupported) = (Vec::new(), Vec::new());
    for case in &cases {
        let name = case.file_stem().unwrap().to_str().unwrap().to_string();
        let def: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(case).unwrap()).unwrap();
        let spec_path = dir.join(def["spec_file"].as_str().unwrap());
        let spec_text = std::fs::read_to_string(&spec_path).unwrap();
        let program = match rvmon_stream::compile(spec_path.to_str().unwrap(), &spec_text) {
            Ok(p) => p,
            Err(e) => {
                assert!(!SUPPORTED.contains(&name.as_str()), "{name}: {e}");
                assert!(
                    e.message.contains("not supported"),
                    "{name}: rejected without naming a missing feature: {e}"
                );
                unsupported.push(format!("{name}: {}", e.message));
                continue;
            }
        };
        let Some(input) = def["input_file"].as_str() else {
            unsupported.push(format!("{name}: no CSV input"));
            continue;
        };
        let input_path = dir.join(input);
        let file = std::fs::File::open(&input_path).unwrap();
        let mut fired: Vec<(String, String)> = Vec::new();
        common::run_csv(
            program,
            std::io::BufReader::new(file),
            input_path.to_str().unwrap(),
            |f| {
                fired.push((f.message.to_string(), time_text(f.time)));
                Ok(())
            },
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let triggers = def["triggers"].as_object().unwrap();
        for (msg, _) in &fired {
            assert!(
                triggers.contains_key(msg),
                "{name}: unexpected trigger \"{msg}\""
            );
        }
        for (msg, exp) in triggers {
            let want: Vec<&str> = exp["time_info"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            let got: Vec<&str> = fired
                .iter()
                .filter(|f| &f.0 == msg)
                .map(|f| f.1.as_str())
                .collect();
            assert_eq!(got, want, "{name}: trigger \"{msg}\"");
            assert_eq!(
                got.len() as u64,
                exp["expected_count"].as_u64().unwrap(),
                "{name}: count of \"{msg}\""
            );
        }
        passed.push(name);
    }
    rvmon_testkit::summary(
        "rtlola",
        &format!(
            "{} of {} RTLola cases give the expected triggers; {} not supported (by design)",
            passed.len(),
            cases.len(),
            unsupported.len()
        ),
    );
    eprintln!("not supported:");
    for u in &unsupported {
        eprintln!("  {u}");
    }
    passed.sort();
    let mut want: Vec<&str> = SUPPORTED.to_vec();
    want.sort();
    assert_eq!(passed, want);
}
