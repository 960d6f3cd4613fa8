//! rvmon from Python: the native part (`rvmon._rvmon`) of the `rvmon` package, whose Python
//! side (`python/rvmon`) takes paths or text, NumPy arrays or DataFrames, and turns the
//! failures raised here into `rvmon.SpecError` and `rvmon.TraceError`.
//!
//! Everything goes through the front door (the `rvmon` crate), as the command line does:
//! `check` runs `rvmon check --output jsonl`; `Monitor` is the front door's monitor of a
//! specification, fed one time point at a time; `robustness` runs the STL engine over arrays
//! where they lie. Long runs release the GIL; a Rust panic becomes an exception, never a
//! crash of the interpreter.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

mod check;
mod online;
mod signals;

create_exception!(
    _rvmon,
    Failure,
    PyException,
    "A failure of the native part: args (kind, message, file, line, column, output), kind \
     being 'spec', 'trace' or 'internal'; rvmon's Python side raises SpecError or TraceError \
     from it."
);

/// Which input a failure is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blame {
    Spec,
    Trace,
    Internal,
}

/// `e` as a [`Failure`], with what was written before it (`output`: the verdicts decided
/// before a bad input).
pub(crate) fn failure(blame: Blame, e: &rvmon_core::Error, output: &[u8]) -> PyErr {
    let kind = match blame {
        Blame::Spec => "spec",
        Blame::Trace => "trace",
        Blame::Internal => "internal",
    };
    let (file, line, col) = match &e.pos {
        Some(p) => (Some(p.file.clone()), Some(p.line), Some(p.col)),
        None => (None, None, None),
    };
    let text = e.to_string();
    Python::attach(|py| {
        let output = pyo3::types::PyBytes::new(py, output).unbind();
        Failure::new_err((kind, text, file, line, col, output))
    })
}

/// Runs `f`, a panic in it turned into an internal [`Failure`] (a bug in rvmon, said as one).
pub(crate) fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            let e = rvmon_core::Error::msg(format!("internal error (a bug in rvmon): {what}"));
            Err(failure(Blame::Internal, &e, b""))
        }
    }
}

/// The native part of the `rvmon` package (use `rvmon`, not this module).
#[pymodule]
mod _rvmon {
    #[pymodule_export]
    use super::check::check;
    #[pymodule_export]
    use super::online::Monitor;
    #[pymodule_export]
    use super::signals::{dense_segments, robustness, stl_signals};
    #[pymodule_export]
    use super::Failure;
}
