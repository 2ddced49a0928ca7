//! The reporters of `run` that write files (or stdout): the history
//! record, the JSON, JUnit, Markdown and HTML reports, and
//! [`reporters_for`], which picks every reporter an invocation asked for,
//! in the order their outputs are written.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::Value;

use super::ci_outputs::{CodeQualityReport, GithubReport};
use super::config::{ReportPaths, RunConfig};
use super::reporters::{Finished, Reporter, Reporters, Streams};
use super::run_log::{InOrder, RunLog, line_of, read_back};
use super::scenario_lines::ScenarioLines;
use super::summary::TerminalSummary;
use crate::app::{AppError, Progress, STDOUT, write_report, write_report_with};
use crate::eval::EvalEvent;
use crate::report::html_runs::Transcripts;
use crate::report::{html, junit, markdown};
use crate::results::history::History;
use crate::scenario::Scenario;

/// The HTML page holds the transcript of every run up to this many runs;
/// beyond, only of the runs that did not complete every step (a page of
/// a hundred thousand transcripts would not open).
pub(super) const HTML_EVERY_RUN: usize = 5_000;
/// And at most this many transcripts in all.
pub(super) const HTML_MAX_RUNS: usize = 10_000;

/// The reporters `config` asks for: progress, run log, terminal summary,
/// history, then the reports (JSON, JUnit, Markdown, HTML). Creates the log
/// folder and its files now.
pub(super) fn reporters_for<'a>(
    config: &RunConfig,
    scenarios: &'a [Scenario],
    plan: &crate::eval::Plan,
    history: Option<History>,
    report_on_stdout: bool,
) -> Result<Reporters<'a>, AppError> {
    let mut all: Vec<Box<dyn Reporter + 'a>> =
        vec![Box::new(Progress::new(config.progress && !config.quiet))];
    if config.scenario_lines && !config.quiet {
        all.push(Box::new(ScenarioLines::new(scenarios, plan)));
    }
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
/// JUnit, Markdown, HTML, Code Quality, then GitHub's annotations and job
/// summary): `run`'s, and `merge`'s (no scenarios and no log
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
    if let Some(path) = &reports.codequality {
        all.push(Box::new(CodeQualityReport {
            path: path.clone(),
            workspace: reports.ci_workspace.clone(),
        }));
    }
    if let Some(outputs) = &reports.github {
        all.push(Box::new(GithubReport {
            outputs: outputs.clone(),
            to_stderr: reports.given().any(|p| p == Path::new(STDOUT)),
        }));
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

/// `--html`: one page with the report and the transcripts of the runs,
/// kept as they finish (or read back from `--log-dir`): every run's up to
/// [`HTML_EVERY_RUN`], then only those of runs that dropped a step.
struct HtmlReport<'a> {
    path: PathBuf,
    scenarios: &'a [Scenario],
    log_dir: Option<PathBuf>,
    kept: Mutex<KeptRuns>,
}

#[derive(Default)]
struct KeptRuns {
    order: InOrder<(usize, String)>,
    transcripts: Transcripts,
    /// Runs seen, and runs whose transcript was left out.
    seen: usize,
    left_out: usize,
}

impl KeptRuns {
    fn keep(&mut self, lines: Vec<(usize, String)>) {
        for (_, line) in lines {
            let Ok(record) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            self.keep_record(&record);
        }
    }

    fn keep_record(&mut self, record: &Value) {
        self.seen += 1;
        let metrics = record.get("metrics");
        let step = |key: &str| {
            metrics
                .and_then(|m| m.get(key))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        let dropped = step("steps_completed") < step("steps_total");
        let kept = self.transcripts.len();
        if kept < HTML_EVERY_RUN || (dropped && kept < HTML_MAX_RUNS) {
            self.transcripts.push(record);
        } else {
            self.left_out += 1;
        }
    }

    /// What the page says when it does not hold every run's transcript.
    fn note(&self) -> Option<String> {
        (self.left_out > 0).then(|| {
            format!(
                "This page holds {} of {} runs' transcripts: every run's up to {}, then only those of runs that dropped a step. \
                 `agent-eval replay` shows any run (the command is the one a failed expectation names, with the run's seed), \
                 and `--log-dir` keeps every run's record.",
                self.transcripts.len(),
                self.seen,
                HTML_EVERY_RUN
            )
        })
    }
}

impl<'a> HtmlReport<'a> {
    fn new(path: &Path, scenarios: &'a [Scenario], log_dir: Option<&Path>) -> Self {
        Self {
            path: path.to_path_buf(),
            scenarios,
            log_dir: log_dir.map(Path::to_path_buf),
            kept: Mutex::default(),
        }
    }

    fn kept(&mut self) -> &mut KeptRuns {
        self.kept
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Reporter for HtmlReport<'_> {
    fn on_event(&self, event: &EvalEvent<'_>) {
        let EvalEvent::RunFinished { position, .. } = event else {
            return;
        };
        if self.log_dir.is_some() {
            return;
        }
        let line = line_of(self.scenarios, event);
        if let Ok(mut kept) = self.kept.lock() {
            let due = kept.order.push(*position, line);
            kept.keep(due);
        }
    }

    fn runs_done(&mut self) -> Result<(), AppError> {
        let kept = self.kept();
        let rest = kept.order.rest();
        kept.keep(rest);
        Ok(())
    }

    fn write(
        &mut self,
        finished: &Finished<'_>,
        streams: &mut Streams<'_>,
    ) -> Result<(), AppError> {
        if let Some(dir) = &self.log_dir {
            let runs = read_back(self.scenarios, dir)?;
            let kept = self
                .kept
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for run in &runs {
                kept.keep_record(run);
            }
        }
        // The page shows the report as its JSON text reads back, so its
        // figures are the JSON report's to the last digit (a figure rounded
        // for the text can round differently from the unrounded one), and
        // a merged run's page is the unsharded run's.
        let document: Value = serde_json::from_str(&finished.report.to_json())
            .map_err(|e| AppError::Usage(format!("cannot build the HTML report: {e}")))?;
        let kept = self.kept();
        let note = kept.note();
        let page = html::render(html::HtmlInput {
            report: &document,
            transcripts: &kept.transcripts,
            transcripts_note: note.as_deref(),
            charts: &[],
        });
        write_report(&self.path, page.as_bytes(), streams.out)
    }
}
