//! `rvmon.robustness`: an STL formula's robustness at every sample of signals held in NumPy
//! arrays, read where they lie (no copy of a contiguous float64 array), without the GIL.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use rvmon_core::Error;
use rvmon_stl::dense::root_signal;
use rvmon_stl::parse::{parse_in, Clock, PERIOD_NS};
use rvmon_stl::{DenseFormula, Formula, Online};

use crate::{failure, guarded, Blame};

/// The robustness of the STL formula `text` (rtamt's syntax; `name` names it in errors) at
/// each of the `n` samples of the signals `columns`, named `names`, each `n` long (discrete
/// time: the samples in order, as `rvmon check SPEC.stl TRACE --robustness` computes it).
/// Bounds are in seconds (or their units) over the sampling period `period_ns` (rtamt's
/// `set_sampling_period`; by default 1 s, so that a bound without a unit counts samples).
#[pyfunction]
#[pyo3(signature = (name, text, names, columns, n, period_ns=None))]
pub fn robustness<'py>(
    py: Python<'py>,
    name: String,
    text: String,
    names: Vec<String>,
    columns: Vec<PyReadonlyArray1<'py, f64>>,
    n: usize,
    period_ns: Option<u64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    guarded(|| {
        let f = parse_with_period(&name, &text, period_ns)?;
        if names.len() != columns.len() {
            let e = Error::msg("a name per column");
            return Err(failure(Blame::Internal, &e, b""));
        }
        let order = signal_columns(&f, &names).map_err(|e| failure(Blame::Trace, &e, b""))?;
        // (A strided view is copied, once; a contiguous array is read where it is.)
        let owned: Vec<Option<Vec<f64>>> = order
            .iter()
            .map(|&c| match columns[c].as_slice() {
                Ok(_) => None,
                Err(_) => Some(columns[c].as_array().to_vec()),
            })
            .collect();
        let slices: Vec<&[f64]> = order
            .iter()
            .zip(&owned)
            .map(|(&c, copy)| match copy {
                Some(v) => v.as_slice(),
                None => columns[c].as_slice().unwrap_or(&[]),
            })
            .collect();
        if let Some((k, s)) = slices.iter().enumerate().find(|(_, s)| s.len() != n) {
            let e = Error::msg(format!(
                "the signal `{}` has {} samples, `{}` has {n}: every signal needs a value at \
                 every sample",
                f.signals[k],
                s.len(),
                f.signals[0]
            ));
            return Err(failure(Blame::Trace, &e, b""));
        }
        let values = py.detach(|| evaluate(&f, &slices, n));
        Ok(PyArray1::from_vec(py, values))
    })
}

/// Where each signal of `f` is among `names`.
fn signal_columns(f: &Formula, names: &[String]) -> Result<Vec<usize>, Error> {
    f.signals
        .iter()
        .map(|s| {
            names.iter().position(|n| n == s).ok_or_else(|| {
                Error::msg(format!(
                    "the formula reads the signal `{s}`, and the signals given are: {}",
                    names.join(", ")
                ))
            })
        })
        .collect()
}

/// The robustness at each of the `n` samples (the online engine, then the end of the trace).
fn evaluate(f: &Formula, columns: &[&[f64]], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n];
    let mut engine = Online::new(f);
    let mut put = |j: u64, r: f64| out[j as usize] = r;
    engine.push_columns(f, columns, &mut put);
    engine.finish(f, &mut put);
    out
}

/// The signals an STL formula reads, in order (`name` names it in errors; bounds over the
/// sampling period `period_ns`, as [`robustness`], or in dense time): a parse alone, for
/// rtamt's `parse()`.
#[pyfunction]
#[pyo3(signature = (name, text, period_ns=None, dense=false))]
pub fn stl_signals(
    name: String,
    text: String,
    period_ns: Option<u64>,
    dense: bool,
) -> PyResult<Vec<String>> {
    guarded(|| {
        if dense {
            let f = DenseFormula::parse(&name, &text).map_err(|e| failure(Blame::Spec, &e, b""))?;
            return Ok(f.formula().signals.clone());
        }
        let f = parse_with_period(&name, &text, period_ns)?;
        Ok(f.signals.clone())
    })
}

/// The formula, its bounds over the sampling period (1 s by default).
fn parse_with_period(name: &str, text: &str, period_ns: Option<u64>) -> PyResult<Formula> {
    let period = period_ns.map_or(PERIOD_NS, u128::from).max(1);
    parse_in(name, text, Clock::Samples(period)).map_err(|e| failure(Blame::Spec, &e, b""))
}

/// The dense-time robustness of the STL formula `text` (bounds in seconds or with units) as
/// a piecewise-constant signal: its segments `(start in nanoseconds, value)`, adjacent equal
/// values merged (past windows go on changing after the last sample, as the last values
/// leave them: those changes are segments too, as rtamt lists them). The signals `columns`
/// (named `names`) hold their sample's value from `times[k]` (nanoseconds, strictly
/// increasing) to the next (rtamt's dense `evaluate`, exact: `rvmon check --dense`).
#[pyfunction]
pub fn dense_segments(
    py: Python<'_>,
    name: String,
    text: String,
    names: Vec<String>,
    columns: Vec<Vec<f64>>,
    times: Vec<i64>,
) -> PyResult<Vec<(i64, f64)>> {
    guarded(|| {
        let f = DenseFormula::parse(&name, &text).map_err(|e| failure(Blame::Spec, &e, b""))?;
        let order =
            signal_columns(f.formula(), &names).map_err(|e| failure(Blame::Trace, &e, b""))?;
        if let Some(k) = times.windows(2).position(|w| w[0] >= w[1]) {
            let e = Error::msg(format!(
                "sample {}: dense time needs strictly increasing times",
                k + 1
            ));
            return Err(failure(Blame::Trace, &e, b""));
        }
        let mut signals = Vec::with_capacity(order.len());
        for &c in &order {
            let column = columns.get(c).filter(|col| col.len() == times.len());
            let Some(column) = column else {
                let e = Error::msg(format!("`{}`: a value per sample time", names[c]));
                return Err(failure(Blame::Trace, &e, b""));
            };
            signals.push(column.clone());
        }
        let segments = py.detach(|| match root_signal(&f, &times, &signals) {
            Some(s) => s.segments().iter().map(|&(t, v)| (t as i64, v)).collect(),
            None => Vec::new(),
        });
        Ok(segments)
    })
}
