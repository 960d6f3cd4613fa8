//! Library callers parse on threads with Rust's default 2 MiB stack (the Python module, the
//! service's workers, tests): formulas nested up to the parser's limit must be parsed or
//! refused there, not overflow the stack.

use rvmon_stl::parse;
use rvmon_stl::parse::MAX_NESTING;

fn on_small_stack(text: String) -> Result<(), String> {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || parse("t.stl", &text).map(|_| ()).map_err(|e| e.to_string()))
        .unwrap()
        .join()
        .expect("the parser overflowed a 2 MiB stack")
}

#[test]
fn nesting_at_and_past_the_limit_on_a_2_mib_stack() {
    let d = MAX_NESTING - 1;
    let shapes = [
        ("(".repeat(d) + "x > 0" + &")".repeat(d), true),
        ("not ".repeat(d) + "(x > 0)", true),
        // (An operator and its parenthesis: two levels.)
        (
            "always[0,1](".repeat(d / 2) + "x > 0" + &")".repeat(d / 2),
            true,
        ),
        ("(x > ".repeat(d) + "0" + &")".repeat(d), true),
        (
            "(".repeat(5 * MAX_NESTING) + "x > 0" + &")".repeat(5 * MAX_NESTING),
            false,
        ),
        ("eventually ".repeat(5 * MAX_NESTING) + "(x > 0)", false),
    ];
    for (text, ok) in shapes {
        let r = on_small_stack(text.clone());
        assert_eq!(r.is_ok(), ok, "{}…: {r:?}", &text[..40]);
        if let Err(e) = r {
            assert!(e.contains("nesting deeper than"), "{e}");
        }
    }
}
