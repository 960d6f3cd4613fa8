//! Parametric monitoring by trace slicing (paper 03, Ballarin: Algorithm A generalised to
//! patterns and constraints).
//!
//! * [`slicing::SliceTable`] runs Algorithm A with patterns (and with order constraints) and
//!   exposes its table of slices; [`slicing::slice`] computes a slice straight from
//!   Definition 5, as the reference.
//! * [`monitor::ParamMonitor`] keeps a finite-state machine's state per binding instead of
//!   the slice, indexed, with creation events and end-of-life events.
//! * [`spec`] reads `.rvm` files: properties with events, a body (a machine, an extended
//!   regular expression compiled by [`ere`], or past/future LTL compiled by [`ltl`]) and
//!   messages.
//! * Constraints between parameters (`where x > y`, Algorithm A with constraints) are checked
//!   by [`slicing::ConstraintCheck`], shared by the slice table and the monitor.
//!
//! Not built: freeing monitors of live objects by coenable sets (end-of-life events do use
//! them), indexing shared across simultaneous properties (ARCHITECTURE.md says why).

mod bindings;
pub mod ere;
mod ids;
pub mod ltl;
pub mod monitor;
mod properties;
pub mod slicing;
pub mod spec;

pub use properties::PropertiesMonitor;
