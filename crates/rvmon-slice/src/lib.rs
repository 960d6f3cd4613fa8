//! The slicing framework of paper 04 (Basin et al., *Scalable Offline Monitoring*): a log is
//! cut into slices that are monitored independently, and the union of the slices' violations,
//! each slice reporting only those its *restriction* makes it responsible for, is exactly the
//! log's (Thm. 4).
//!
//! * [`data`]: the data slicer (Def. 7/9, Thm. 10) by one free variable, with hash slicing
//!   sets, and the choice of the slicing variable;
//! * [`empty`]: when a slice may drop its empty time points (the filtering slicer is not sound
//!   in general; the paper's counterexample is a test);
//! * [`run`]: the sliced run of the first-order engine in one thread, which the parallel
//!   back end distributes.

pub mod data;
pub mod empty;
pub mod run;

pub use data::{predicates, slice_of, slicing_variables, DataSlicer, Target};
pub use empty::{at_empty, empty_points_removable, AtEmpty};
pub use run::{split, split_one, SliceEngine, SliceSizes, SlicedMonitor};
