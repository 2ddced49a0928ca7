//! The seam between the engine and the outputs of `run`, as in
//! cargo-nextest: the engine emits [`EvalEvent`]s while it works, and every
//! output — the progress bar, the run log, the terminal summary, the
//! history record, the JSON, JUnit, Markdown and HTML reports — is a
//! [`Reporter`] that consumes those events and, once, the final results
//! ([`Finished`]). The run command only hands events and results to the
//! fan-out ([`Reporters`]); it writes nothing itself.

use std::io::Write;

use crate::app::{AppError, Progress};
use crate::eval::EvalEvent;
use crate::report::findings::BadInput;
use crate::report::json::Report;
use crate::results::ScenarioResult;
use crate::results::baseline::CellDiff;

/// What every output sees once the engine is done: the results and what
/// was concluded from them.
pub(crate) struct Finished<'a> {
    /// The scenarios' results (without those whose runs could not happen).
    pub results: &'a [ScenarioResult],
    pub report: &'a Report<'a>,
    /// The report's error lines: files refused, then runs that could not
    /// happen.
    pub errors: &'a [String],
    /// Runs made.
    pub ran: usize,
    /// Scenario files (or scenarios) refused before anything ran.
    pub bad_files: usize,
    /// Runs that could not happen (their scenarios are not reported).
    pub run_failures: usize,
    /// Of those, the ones whose agent could not start (or broke before
    /// any model response).
    pub agent_failures: usize,
    /// Scenarios `--fail-fast` did not start.
    pub skipped: &'a [String],
    /// Each cell against `--baseline`, if one was given.
    pub baseline: Option<&'a [CellDiff]>,
    /// The errors again, with the file and line each names, for outputs
    /// that point at them (CI annotations, Code Quality).
    pub bad_inputs: &'a [BadInput],
}

impl<'a> Finished<'a> {
    /// A report made without running anything here (`merge` writes the
    /// shards' results): no run made, refused, failed or skipped, no
    /// baseline.
    pub(crate) fn without_runs(
        results: &'a [ScenarioResult],
        report: &'a Report<'a>,
        errors: &'a [String],
        bad_inputs: &'a [BadInput],
    ) -> Self {
        Self {
            results,
            report,
            errors,
            ran: 0,
            bad_files: 0,
            run_failures: 0,
            agent_failures: 0,
            skipped: &[],
            baseline: None,
            bad_inputs,
        }
    }
}

/// Where outputs print: stdout, and stderr for diagnostics (and the
/// summary, when a report takes stdout).
pub(crate) struct Streams<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
}

/// One output of `run`. Events arrive from worker threads in any order
/// (each carries its place in run order); `runs_done` comes once the
/// engine stopped with every run finished, `write` once with the results.
pub(crate) trait Reporter: Send + Sync {
    /// An engine event, as it happens.
    fn on_event(&self, _event: &EvalEvent<'_>) {}
    /// The engine stopped, finished or interrupted: stop showing progress.
    fn engine_stopped(&self) {}
    /// Every run finished: finish what was written while they ran.
    fn runs_done(&mut self) -> Result<(), AppError> {
        Ok(())
    }
    /// Writes this output from the final results.
    fn write(
        &mut self,
        _finished: &Finished<'_>,
        _streams: &mut Streams<'_>,
    ) -> Result<(), AppError> {
        Ok(())
    }
}

/// Every reporter of one invocation, in the order their outputs are
/// written; each step stops at the first error.
pub(crate) struct Reporters<'a>(pub Vec<Box<dyn Reporter + 'a>>);

impl Reporters<'_> {
    pub fn on_event(&self, event: &EvalEvent<'_>) {
        for reporter in &self.0 {
            reporter.on_event(event);
        }
    }

    pub fn engine_stopped(&self) {
        for reporter in &self.0 {
            reporter.engine_stopped();
        }
    }

    pub fn runs_done(&mut self) -> Result<(), AppError> {
        self.0.iter_mut().try_for_each(|r| r.runs_done())
    }

    pub fn write(
        &mut self,
        finished: &Finished<'_>,
        streams: &mut Streams<'_>,
    ) -> Result<(), AppError> {
        self.0
            .iter_mut()
            .try_for_each(|r| r.write(finished, streams))
    }
}

/// The progress bar, as a run's reporter.
impl Reporter for Progress {
    fn on_event(&self, event: &EvalEvent<'_>) {
        Progress::on_event(self, event);
    }

    fn engine_stopped(&self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// Notes what it is handed, by name; fails its write when told to.
    struct Recorder<'a> {
        name: &'static str,
        log: &'a Mutex<Vec<String>>,
        fail_write: bool,
    }

    impl Recorder<'_> {
        fn note(&self, what: &str) {
            if let Ok(mut log) = self.log.lock() {
                log.push(format!("{} {what}", self.name));
            }
        }
    }

    impl Reporter for Recorder<'_> {
        fn on_event(&self, event: &EvalEvent<'_>) {
            if let EvalEvent::Started { runs } = event {
                self.note(&format!("started {runs}"));
            }
        }
        fn engine_stopped(&self) {
            self.note("stopped");
        }
        fn runs_done(&mut self) -> Result<(), AppError> {
            self.note("done");
            Ok(())
        }
        fn write(&mut self, _: &Finished<'_>, _: &mut Streams<'_>) -> Result<(), AppError> {
            self.note("write");
            if self.fail_write {
                return Err(AppError::Usage(format!("{} failed", self.name)));
            }
            Ok(())
        }
    }

    #[test]
    fn every_reporter_hears_each_step_in_order_and_writing_stops_at_the_first_error() {
        let log = Mutex::new(Vec::new());
        let recorder = |name, fail_write| -> Box<dyn Reporter + '_> {
            Box::new(Recorder {
                name,
                log: &log,
                fail_write,
            })
        };
        let mut reporters = Reporters(vec![
            recorder("a", false),
            recorder("b", true),
            recorder("c", false),
        ]);
        reporters.on_event(&EvalEvent::Started { runs: 3 });
        reporters.engine_stopped();
        reporters.runs_done().unwrap();
        let report = Report::new(&[], Vec::new());
        let finished = Finished::without_runs(&[], &report, &[], &[]);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let written = reporters.write(
            &finished,
            &mut Streams {
                out: &mut out,
                err: &mut err,
            },
        );
        assert_eq!(written.unwrap_err().to_string(), "b failed");
        drop(reporters);
        let log = log.into_inner().unwrap();
        assert_eq!(
            log,
            [
                "a started 3",
                "b started 3",
                "c started 3",
                "a stopped",
                "b stopped",
                "c stopped",
                "a done",
                "b done",
                "c done",
                "a write",
                "b write",
            ]
        );
    }
}
