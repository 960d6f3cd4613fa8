//! Parametric monitoring by trace slicing (paper 03, Ballarin: Algorithm A generalised to
//! patterns and constraints).
//!
//! * [`slicing::SliceTable`] runs Algorithm A with patterns (and with order constraints) and
//!   exposes its table of slices; [`slicing::slice`] computes a slice straight from
//!   Definition 5, as the reference.
//! * [`monitor::ParamMonitor`] keeps a finite-state machine's state per binding instead of
//!   the slice.
//!
//! * [`spec`] reads `.rvm` files: properties with events, a machine and messages.
//!
//! Not built yet: monitor garbage collection (end-of-life events, coenable sets), ERE/LTL
//! bodies, shared indexing across simultaneous properties.

pub mod monitor;
pub mod slicing;
pub mod spec;
