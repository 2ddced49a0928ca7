//! `agent-eval merge` and `agent-eval diff`: commands over saved reports.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::run::{self, Finished, ReportPaths, Reporters, Streams};
use super::same_file::{Named, refuse_overlaps};
use super::{AppError, STDOUT, Status, check_output_path};
use crate::report::findings::BadInput;
use crate::report::json::Report;
use crate::report::table;
use crate::report::terminal::escape;
use crate::results::ScenarioResult;
use crate::results::baseline;
use crate::results::merge::ShardReader;
use crate::results::report_file::{ReportFile, ReportFileError};

/// `agent-eval merge`.
#[derive(Debug, Clone, Default)]
pub struct MergeConfig {
    /// The shard reports (`run --shard K/N --json FILE`).
    pub parts: Vec<PathBuf>,
    /// Where the merged JSON report goes; `None` is stdout (the summary
    /// then goes to stderr).
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub html: Option<PathBuf>,
    /// Print only failing scenarios and the summary line.
    pub quiet: bool,
    /// `--verbose`: every scenario whole, every column and comparison.
    pub detail: table::Detail,
    /// Colour the terminal output.
    pub color: bool,
    /// `--history`: record the merged results in this SQLite database.
    pub history: Option<PathBuf>,
    /// `--codequality` and, in GitHub Actions, the annotations and job
    /// summary (only those two fields are read).
    pub ci: ReportPaths,
}

/// `agent-eval merge`: checks that the shard reports are the shards of one
/// run, merges them into the report the unsharded run gives, prints its
/// summary as `run` does (tables, failed expectations) and writes the
/// reports asked for. Exit 1 says which expectations failed; exit 2 which
/// file is bad and why.
pub fn merge(
    config: &MergeConfig,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    let report_on_stdout = check_outputs(config)?;
    let mut history = super::history::open(config.history.as_deref())?;
    let (results, errors) = read_and_merge(&config.parts)?;
    let report = Report::new(&results, errors.clone());
    super::history::record(history.as_mut(), "merge", None, &results)?;
    let human = summary(config, &results, &errors);
    let summary_target: &mut dyn Write = if report_on_stdout { err } else { out };
    summary_target
        .write_all(&human)
        .map_err(|source| AppError::Write {
            path: PathBuf::from(if report_on_stdout { "stderr" } else { "stdout" }),
            source,
        })?;
    write_reports(config, &report, &results, &errors, out, err)?;
    Ok(if !errors.is_empty() {
        Status::BadInput
    } else if report.ok {
        Status::Passed
    } else {
        Status::ExpectationsFailed
    })
}

/// At most one report on stdout (the JSON one unless `--json FILE`), and
/// every path writable now. Returns whether a report takes stdout.
fn check_outputs(config: &MergeConfig) -> Result<bool, AppError> {
    let outputs = [
        &config.json,
        &config.junit,
        &config.markdown,
        &config.html,
        &config.ci.codequality,
    ];
    let to_stdout = outputs
        .iter()
        .filter(|p| p.as_deref() == Some(Path::new(STDOUT)))
        .count()
        + usize::from(config.json.is_none());
    if to_stdout > 1 {
        return Err(AppError::Usage(
            "only one report can go to stdout: give --json FILE when another report is `-`".into(),
        ));
    }
    for path in outputs.into_iter().flatten() {
        check_output_path(path)?;
    }
    let flags = ["--json", "--junit", "--markdown", "--html", "--codequality"];
    let written: Vec<Named<'_>> = flags
        .iter()
        .zip(outputs)
        .filter_map(|(flag, path)| path.as_deref().map(|p| Named::new(*flag, p)))
        .collect();
    let mut read: Vec<Named<'_>> = config
        .parts
        .iter()
        .map(|p| Named::new("a shard report", p))
        .collect();
    if let Some(history) = &config.history {
        read.push(Named::new("the --history database", history));
    }
    refuse_overlaps(&written, &read)?;
    super::same_file::refuse_step_summary_over(
        config
            .ci
            .github
            .as_ref()
            .and_then(|g| g.step_summary.as_deref()),
        &read,
    )?;
    Ok(to_stdout == 1)
}

/// Reads the shard reports and merges them. Each run is checked and
/// spilled as its shard is read; only its compact row is held.
fn read_and_merge(paths: &[PathBuf]) -> Result<(Vec<ScenarioResult>, Vec<String>), AppError> {
    let mut reader = ShardReader::new().map_err(|e| ReportFileError::Mismatch {
        path: None,
        message: e.to_string(),
    })?;
    let parts = paths
        .iter()
        .map(|path| {
            reader.read(path).map_err(|e| match e {
                // A shard that cannot be read or holds values out of
                // bounds cannot be merged: say so, with the file.
                ReportFileError::Invalid { path, message } => ReportFileError::Mismatch {
                    path: Some(path),
                    message,
                },
                other => other,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(reader.merge(parts)?)
}

/// The summary, as `run` prints it: the shards' errors, the tables (only
/// failing ones with `--quiet`), the summary line.
fn summary(config: &MergeConfig, results: &[ScenarioResult], errors: &[String]) -> Vec<u8> {
    let mut human: Vec<u8> = Vec::new();
    for e in errors {
        let _ = writeln!(human, "error: {}", escape(e));
    }
    for result in results {
        match table::showing(result, results.len(), config.quiet, config.detail) {
            table::Shown::Hidden => {}
            table::Shown::OneLine => {
                let _ = write!(human, "{}", table::one_line(result, config.color));
            }
            table::Shown::Whole => {
                let _ = writeln!(
                    human,
                    "{}",
                    table::render(result, config.color, config.detail)
                );
            }
        }
    }
    super::run::print_failures(&mut human, results);
    if !errors.is_empty() {
        let _ = writeln!(
            human,
            "{} scenario file{} could not be loaded when the shards ran",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" }
        );
    }
    human
}

/// The merged JSON report (stdout unless `--json FILE`), then JUnit,
/// Markdown and HTML as asked: written by the reporters `run` writes its
/// reports with, which read only the results, the report and the errors.
fn write_reports(
    config: &MergeConfig,
    report: &Report<'_>,
    results: &[ScenarioResult],
    errors: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), AppError> {
    let paths = ReportPaths {
        json: Some(config.json.clone().unwrap_or_else(|| PathBuf::from(STDOUT))),
        junit: config.junit.clone(),
        markdown: config.markdown.clone(),
        html: config.html.clone(),
        codequality: config.ci.codequality.clone(),
        github: config.ci.github.clone(),
        ci_workspace: config.ci.ci_workspace.clone(),
    };
    // A shard's errors name files as the shard saw them, without lines.
    let bad_inputs: Vec<BadInput> = errors
        .iter()
        .map(|message| BadInput {
            file: None,
            line: None,
            message: message.clone(),
        })
        .collect();
    let finished = Finished::without_runs(results, report, errors, &bad_inputs);
    Reporters(run::report_writers(&paths, &[], None)).write(&finished, &mut Streams { out, err })
}

/// `agent-eval diff OLD NEW`: what moved between two reports, for the
/// scenarios `filter` keeps (all when `None`), as a table or (`markdown`)
/// a pull-request comment.
pub fn diff(
    old: &Path,
    new: &Path,
    tolerance: f64,
    filter: Option<&str>,
    markdown: bool,
    out: &mut dyn Write,
) -> Result<Status, AppError> {
    let keep = |rates: Vec<baseline::CellRates>| -> Vec<baseline::CellRates> {
        rates
            .into_iter()
            .filter(|c| filter.is_none_or(|f| super::name_matches(&c.scenario, f)))
            .collect()
    };
    for path in [old, new] {
        if super::baseline::is_sqlite(path) {
            return Err(AppError::Usage(format!(
                "{}: a results history, not a report; `diff` compares two reports. Gate against a history with `run --baseline {0}`",
                path.display()
            )));
        }
    }
    let old = keep(ReportFile::read(old)?.rates());
    let new = keep(ReportFile::read(new)?.rates());
    if let Some(f) = filter
        && old.is_empty()
        && new.is_empty()
    {
        return Err(AppError::Usage(format!(
            "no scenario of either report matches --filter {f:?}"
        )));
    }
    let diffs = baseline::compare(&old, &new, tolerance);
    let text = if markdown {
        crate::report::diff_markdown::render(&diffs, tolerance)
    } else {
        crate::report::baseline::render(&diffs, tolerance)
    };
    out.write_all(text.as_bytes())
        .map_err(|source| AppError::Write {
            path: PathBuf::from("stdout"),
            source,
        })?;
    Ok(if baseline::regressed(&diffs) {
        Status::ExpectationsFailed
    } else {
        Status::Passed
    })
}
