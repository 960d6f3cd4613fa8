//! The progress display of an offline run on a terminal: time points read, their rate, and
//! the violations so far, on standard error.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress display, or nothing (a pipe, `--quiet`, an online run).
pub struct Progress {
    bar: Option<ProgressBar>,
    /// The next count of time points at which the display is updated: updates are cheap,
    /// but a propositional run feeds millions of time points a second.
    next: u64,
}

/// Time points between two updates of the display.
const EVERY: u64 = 1 << 14;

impl Progress {
    /// Starts the display if `show`. It ticks on its own thread, so it appears at once and
    /// its rate moves even while a batch is slow.
    pub fn start(show: bool) -> Progress {
        let bar = show.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{spinner} {elapsed} {human_pos} time points ({per_sec}), {msg}",
            )
            .expect("a valid template");
            bar.set_style(style);
            bar.set_message("0 violations");
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        Progress { bar, next: 0 }
    }

    /// `time_points` read so far, with `violations` among them.
    pub fn update(&mut self, time_points: u64, violations: u64) {
        let Some(bar) = &self.bar else { return };
        if time_points < self.next {
            return;
        }
        self.next = time_points + EVERY;
        bar.set_position(time_points);
        bar.set_message(format!("{violations} violations"));
    }

    /// Removes the display (before the summary, or an error, is written).
    pub fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}
