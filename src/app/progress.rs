//! The progress bar on stderr, one for every command that runs episodes:
//! its length is the runs planned, each finished run moves it. `run` hands
//! it to its reporters (see `run::reporters`); `sweep` feeds it the
//! engine's events directly.

use crate::eval::EvalEvent;

/// A progress bar fed by engine events (hidden unless asked for).
pub(crate) struct Progress(indicatif::ProgressBar);

impl Progress {
    /// A bar on stderr when `show`, else one that draws nothing.
    pub(crate) fn new(show: bool) -> Self {
        if !show {
            return Self(indicatif::ProgressBar::hidden());
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(0),
            indicatif::ProgressDrawTarget::stderr(),
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} runs {elapsed} (eta {eta})",
        ) {
            bar.set_style(style);
        }
        Self(bar)
    }

    /// Moves the bar on an engine event.
    pub(crate) fn on_event(&self, event: &EvalEvent<'_>) {
        match event {
            EvalEvent::Started { runs } => self.0.set_length(*runs as u64),
            EvalEvent::RunFinished { .. } | EvalEvent::RunUnmeasured { .. } => self.0.inc(1),
            EvalEvent::ScenarioFinished { .. } => {}
        }
    }

    /// Clears the bar once the engine has stopped.
    pub(crate) fn finish(&self) {
        self.0.finish_and_clear();
    }
}
