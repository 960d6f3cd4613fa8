/// How the propositional strategies are driven one time point at a time (the front door's
/// [`rvmon_core::Monitor`] is implemented once, on [`crate::Engine`], over this).
///
/// A strategy never buffers verdicts for the caller's convenience: `step` hands over
/// everything that became decided with this time point.
pub trait Step {
    /// Feeds the next time point; decided verdicts are pushed to `out` in time-point order
    /// (the three-valued strategy may decide a later time point before an earlier one). An
    /// error (the three-valued strategy's budget, [`crate::MAX_STEP_WORK`]) ends the run:
    /// nothing of this time point is in `out`.
    fn step(
        &mut self,
        tp: &rvmon_core::TimePoint,
        out: &mut Vec<rvmon_core::Verdict>,
    ) -> Result<(), rvmon_core::Error>;
    /// Signals the end of the trace; verdicts that the end decides are pushed to `out`.
    fn finish(&mut self, out: &mut Vec<rvmon_core::Verdict>);
}
