//! Parametric monitoring by trace slicing (paper 03, Ballarin: Algorithm A generalised to
//! patterns and constraints).
//!
//! So far this crate holds the slicing layer: [`slicing::SliceTable`] runs Algorithm A with
//! patterns (and with order constraints) and exposes its table of slices, and
//! [`slicing::slice`] computes a slice straight from Definition 5, as the reference. The
//! parametric engine that keeps a monitor state per binding instead of a slice, the `.rvm`
//! language and RV-Monitor's indexing are not built yet.

pub mod slicing;
