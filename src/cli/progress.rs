//! A progress bar on stderr, shown only on a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::model::targets::LoadProgress;

/// Progress of a long run; a no-op when hidden.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar labelled `what`, drawn only when `visible`.
    pub fn new(visible: bool, what: &'static str) -> Self {
        let bar = visible.then(|| {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            if let Ok(style) =
                ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed}")
            {
                bar.set_style(style);
            }
            bar.set_message(what);
            bar
        });
        Progress { bar }
    }

    /// Add work.
    pub fn add_length(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.inc_length(n);
        }
    }

    /// One unit done.
    pub fn inc(&self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    /// Remove the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl LoadProgress for Progress {
    fn add_length(&self, n: u64) {
        Progress::add_length(self, n);
    }

    fn inc(&self) {
        Progress::inc(self);
    }

    fn finish(&self) {
        Progress::finish(self);
    }
}
