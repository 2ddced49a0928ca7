//! The reporters of `run` that write files (or stdout): the history
//! record, the JSON, JUnit, Markdown and HTML reports, and
//! [`reporters_for`], which picks every reporter an invocation asked for,
//! in the order their outputs are written.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::Value;

use super::config::{ReportPaths, RunConfig};
use super::reporters::{Finished, Reporter, Reporters, Streams};
use super::run_log::{InOrder, RunLog, line_of, read_back};
use super::summary::TerminalSummary;
use crate::app::{AppError, Progress, write_report, write_report_with};
use crate::eval::EvalEvent;
use crate::report::{html, junit, markdown};
use crate::results::history::History;
use crate::scenario::Scenario;

/// With `--html` and no `--log-dir`, the page shows the transcripts of at
/// most this many runs that did not complete every step.
pub(super) const HTML_FAILING_RUNS: usize = 20;

/// The reporters `config` asks for: progress, run log, terminal summary,
/// history, then the reports (JSON, JUnit, Markdown, HTML). Creates the log
/// folder and its files now.
pub(super) fn reporters_for<'a>(
    config: &RunConfig,
    scenarios: &'a [Scenario],
    history: Option<History>,
    report_on_stdout: bool,
) -> Result<Reporters<'a>, AppError> {
    let mut all: Vec<Box<dyn Reporter + 'a>> =
        vec![Box::new(Progress::new(config.progress && !config.quiet))];
    if let Some(dir) = &config.log_dir {
        all.push(Box::new(RunLog::open(scenarios, dir)?));
    }
    all.push(Box::new(TerminalSummary {
        quiet: config.quiet,
        detail: config.detail,
        color: config.color,
        steps: config.steps,
        shard: config.shard,
        tolerance: config.tolerance,
        to_stderr: report_on_stdout,
    }));
    all.push(Box::new(HistoryRecord {
        history: history.map(Mutex::new),
        shard: config.shard.map(|s| s.to_string()),
    }));
    all.extend(report_writers(
        &config.reports,
        scenarios,
        config.log_dir.as_deref(),
    ));
    Ok(Reporters(all))
}

/// The reports `reports` asks for, in the order they are written (JSON,
/// JUnit, Markdown, HTML): `run`'s, and `merge`'s (no scenarios and no log
/// folder: its HTML page holds no transcripts).
pub(crate) fn report_writers<'a>(
    reports: &ReportPaths,
    scenarios: &'a [Scenario],
    log_dir: Option<&Path>,
) -> Vec<Box<dyn Reporter + 'a>> {
    let file = |path: &Option<PathBuf>, format| {
        path.clone()
            .map(|path| Box::new(FileReport { path, format }) as Box<dyn Reporter + 'a>)
    };
    let mut all = Vec::new();
    all.extend(file(&reports.json, Format::Json));
    all.extend(file(&reports.junit, Format::Junit));
    all.extend(file(&reports.markdown, Format::Markdown));
    if let Some(path) = &reports.html {
        all.push(Box::new(HtmlReport::new(path, scenarios, log_dir)));
    }
    all
}

/// `--history`: records the results as one invocation of `run`.
struct HistoryRecord {
    /// In a mutex only so the reporter can be shared with worker threads;
    /// it is used once, at the end.
    history: Option<Mutex<History>>,
    shard: Option<String>,
}

impl Reporter for HistoryRecord {
    fn write(&mut self, finished: &Finished<'_>, _: &mut Streams<'_>) -> Result<(), AppError> {
        let history = self.history.as_mut().map(|h| {
            h.get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        });
        crate::app::history::record(history, "run", self.shard.clone(), finished.results)
    }
}

#[derive(Clone, Copy)]
enum Format {
    Json,
    Junit,
    Markdown,
}

/// A report rendered from the results alone.
struct FileReport {
    path: PathBuf,
    format: Format,
}

impl Reporter for FileReport {
    fn write(
        &mut self,
        finished: &Finished<'_>,
        streams: &mut Streams<'_>,
    ) -> Result<(), AppError> {
        let (results, errors) = (finished.results, finished.errors);
        match self.format {
            Format::Json => write_report_with(&self.path, streams.out, &mut |out| {
                finished.report.write_json(out)
            }),
            Format::Junit => write_report(
                &self.path,
                junit::render(results, errors).as_bytes(),
                streams.out,
            ),
            Format::Markdown => write_report(
                &self.path,
                markdown::render(results, errors).as_bytes(),
                streams.out,
            ),
        }
    }
}

/// `--html`: one page with the report and transcripts: every logged run
/// (read back from `--log-dir`), else the first [`HTML_FAILING_RUNS`] runs
/// that did not complete every step, kept as they finish.
struct HtmlReport<'a> {
    path: PathBuf,
    scenarios: &'a [Scenario],
    log_dir: Option<PathBuf>,
    failing: Mutex<FailingRuns>,
}

#[derive(Default)]
struct FailingRuns {
    order: InOrder<(usize, String)>,
    kept: Vec<Value>,
}

impl FailingRuns {
    fn keep(&mut self, lines: Vec<(usize, String)>) {
        for (_, line) in lines {
            if self.kept.len() < HTML_FAILING_RUNS
                && let Ok(record) = serde_json::from_str(&line)
            {
                self.kept.push(record);
            }
        }
    }
}

impl<'a> HtmlReport<'a> {
    fn new(path: &Path, scenarios: &'a [Scenario], log_dir: Option<&Path>) -> Self {
        Self {
            path: path.to_path_buf(),
            scenarios,
            log_dir: log_dir.map(Path::to_path_buf),
            failing: Mutex::default(),
        }
    }
}

impl Reporter for HtmlReport<'_> {
    fn on_event(&self, event: &EvalEvent<'_>) {
        let EvalEvent::RunFinished {
            position, record, ..
        } = event
        else {
            return;
        };
        if self.log_dir.is_some() {
            return;
        }
        let line = (!record.result.fully_completed())
            .then(|| line_of(self.scenarios, event))
            .flatten();
        if let Ok(mut failing) = self.failing.lock() {
            let due = failing.order.push(*position, line);
            failing.keep(due);
        }
    }

    fn runs_done(&mut self) -> Result<(), AppError> {
        let failing = self
            .failing
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let rest = failing.order.rest();
        failing.keep(rest);
        Ok(())
    }

    fn write(
        &mut self,
        finished: &Finished<'_>,
        streams: &mut Streams<'_>,
    ) -> Result<(), AppError> {
        let runs = match &self.log_dir {
            Some(dir) => read_back(self.scenarios, dir)?,
            None => std::mem::take(
                &mut self
                    .failing
                    .get_mut()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .kept,
            ),
        };
        // The page shows the report as its JSON text reads back, so its
        // figures are the JSON report's to the last digit (a figure rounded
        // for the text can round differently from the unrounded one), and
        // a merged run's page is the unsharded run's.
        let document: Value = serde_json::from_str(&finished.report.to_json())
            .map_err(|e| AppError::Usage(format!("cannot build the HTML report: {e}")))?;
        let page = html::render(html::HtmlInput {
            report: &document,
            runs: &runs,
            charts: &[],
        });
        write_report(&self.path, page.as_bytes(), streams.out)
    }
}
