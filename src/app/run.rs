//! `agent-eval run`: every scenario, its tables, reports and gates.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{AppError, STDOUT, Status, no_scenarios, on_progress, progress_bar, write_report};
use crate::eval::{self, EvalError, EvalOptions, ScenarioResult, Shard};
use crate::report::json::{Report, ReportFile, ShardPlan};
use crate::report::terminal::escape;
use crate::report::{baseline, junit, markdown, table};
use crate::scenario;

/// Where `run` writes its reports.
#[derive(Debug, Clone, Default)]
pub struct ReportPaths {
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
}

/// `agent-eval run`.
#[derive(Debug, Clone, Default)]
pub struct RunConfig {
    pub paths: Vec<PathBuf>,
    pub reports: ReportPaths,
    pub seeds: Option<u64>,
    pub jobs: Option<usize>,
    pub filter: Option<String>,
    pub shard: Option<Shard>,
    /// Compare with this report and fail on regressions.
    pub baseline: Option<PathBuf>,
    pub tolerance: f64,
    pub quiet: bool,
    /// Colour the terminal output.
    pub color: bool,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// `--model`, `--max-concurrency`, `--max-cost`, `--price`, `--record`.
    pub real: super::RealModelArgs,
    /// The cap on runs (`--max-runs`; default [`eval::DEFAULT_MAX_RUNS`]).
    pub max_runs: Option<u64>,
    /// Run this command as an external agent instead of the built-in loop.
    pub agent: Option<String>,
}

/// Runs every scenario, prints the tables and failed expectations to `out`,
/// load errors to `err`, writes the reports asked for, and gates on the
/// baseline if one is given.
pub fn run(
    config: &RunConfig,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    // A Ctrl-C during this call is handled by it, then forgotten.
    let _session = crate::cancel::Session::begin();
    let stdout_reports = [
        &config.reports.json,
        &config.reports.junit,
        &config.reports.markdown,
    ]
    .iter()
    .filter(|p| p.as_deref() == Some(Path::new(STDOUT)))
    .count();
    if stdout_reports > 1 {
        return Err(AppError::Usage(
            "only one report can go to stdout (`-`)".into(),
        ));
    }
    // A report that cannot be written is found now, not after the runs.
    for path in [
        &config.reports.json,
        &config.reports.junit,
        &config.reports.markdown,
    ]
    .into_iter()
    .flatten()
    {
        super::check_output_path(path)?;
    }
    if config.shard.is_some() && config.baseline.is_some() {
        return Err(AppError::Usage(
            "--baseline compares whole cells; with --shard, merge the shards first, then use `agent-eval diff`".into(),
        ));
    }
    let baseline = config
        .baseline
        .as_deref()
        .map(ReportFile::read)
        .transpose()?
        .map(|report| report.rates());
    let (scenarios, mut errors) = scenario::load_all(&config.paths);
    let (mut scenarios, over_cap) = eval::admit(
        scenarios,
        &EvalOptions {
            seeds: config.seeds,
            max_runs: config.max_runs,
            ..EvalOptions::default()
        },
    );
    errors.extend(over_cap);
    let env = config
        .real
        .prepare(&mut scenarios)
        .map_err(AppError::Usage)?;
    if let Some(command) = &config.agent {
        for scenario in &mut scenarios {
            scenario.agent.use_command(command);
        }
    }
    if let Some(filter) = &config.filter {
        scenarios.retain(|s| s.name.contains(filter.as_str()));
    }
    for e in &errors {
        let _ = writeln!(err, "error: {}", escape(&e.to_string()));
    }
    if scenarios.is_empty() && errors.is_empty() {
        return Err(AppError::Usage(match &config.filter {
            Some(f) => format!("no scenario matches --filter {f:?}"),
            None => no_scenarios(&config.paths),
        }));
    }
    let options = EvalOptions {
        seeds: config.seeds,
        jobs: config.jobs,
        shard: config.shard,
        env,
        max_runs: config.max_runs,
    };
    // Counted before anything runs: a run over the cap is refused whole.
    let plan = eval::plan(&scenarios, &options)?;
    let planned = plan.len();
    let bar = progress_bar(config.progress && !config.quiet);
    let outcome = eval::evaluate_plan(&scenarios, &plan, &options, &on_progress(&bar));
    bar.finish_and_clear();
    let results = match outcome {
        Ok(results) => results,
        Err(EvalError::Interrupted) => {
            let _ = writeln!(
                err,
                "interrupted: runs stopped early; no report was written"
            );
            return Ok(Status::Interrupted);
        }
        Err(e) => return Err(e.into()),
    };
    let ran: usize = results.iter().flat_map(|r| &r.cells).map(|c| c.runs).sum();
    let not_started = super::real::runs_not_started(&options.env, planned, ran);
    if let Some(note) = &not_started {
        let _ = writeln!(err, "{note}");
    }
    if let Some(warning) = super::real::model_failures(&results) {
        let _ = writeln!(err, "{warning}");
    }
    if let Some(usage) = super::real::usage_summary(&results) {
        let _ = writeln!(err, "{usage}");
    }
    let error_texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
    // The human summary; it goes to stderr when a report takes stdout.
    let mut human: Vec<u8> = Vec::new();
    // A shard's cells hold a part of their runs: tables of them would
    // mislead, so a shard prints only its summary line.
    for result in results.iter().filter(|_| config.shard.is_none()) {
        if !config.quiet || !result.ok() {
            let _ = writeln!(human, "{}", table::render(result, config.color));
        }
    }
    let report = match config.shard {
        Some(shard) => {
            let _ = writeln!(
                human,
                "shard {shard}: {} runs; expectations are checked when the shards are merged",
                results
                    .iter()
                    .flat_map(|r| &r.cells)
                    .map(|c| c.runs)
                    .sum::<usize>()
            );
            let plan = ShardPlan {
                units: plan.total(),
                seeds: config.seeds,
                model: config
                    .real
                    .model
                    .as_ref()
                    .and_then(|m| serde_json::to_value(m).ok()),
            };
            Report::for_shard(&results, error_texts.clone(), shard, plan)
        }
        None => {
            print_failures(&mut human, &results);
            Report::new(&results, error_texts.clone())
        }
    };
    let mut regressed = false;
    if let Some(old) = &baseline {
        let diffs = baseline::compare(old, &baseline::rates(&results), config.tolerance);
        let _ = write!(human, "{}", baseline::render(&diffs, config.tolerance));
        regressed = baseline::regressed(&diffs);
    }
    let _ = if stdout_reports == 1 {
        err.write_all(&human)
    } else {
        out.write_all(&human)
    };
    write_reports(&config.reports, &report, &results, &error_texts, out)?;
    Ok(if !errors.is_empty() {
        Status::BadInput
    } else if config.shard.is_some() || (report.ok && !regressed && not_started.is_none()) {
        Status::Passed
    } else {
        Status::ExpectationsFailed
    })
}

fn write_reports(
    paths: &ReportPaths,
    report: &Report<'_>,
    results: &[ScenarioResult],
    errors: &[String],
    stdout: &mut dyn Write,
) -> Result<(), AppError> {
    if let Some(path) = &paths.json {
        write_report(path, report.to_json().as_bytes(), stdout)?;
    }
    if let Some(path) = &paths.junit {
        write_report(path, junit::render(results, errors).as_bytes(), stdout)?;
    }
    if let Some(path) = &paths.markdown {
        write_report(path, markdown::render(results, errors).as_bytes(), stdout)?;
    }
    Ok(())
}

pub(super) fn print_failures(out: &mut dyn Write, results: &[ScenarioResult]) {
    let failed: Vec<_> = results
        .iter()
        .flat_map(|r| r.expectations.iter().filter(|e| !e.ok).map(move |e| (r, e)))
        .collect();
    let total: usize = results.iter().map(|r| r.expectations.len()).sum();
    if failed.is_empty() {
        let _ = writeln!(
            out,
            "{} scenarios, {total} expectations: all held",
            results.len()
        );
        return;
    }
    let _ = writeln!(out, "failed expectations:");
    for (result, e) in &failed {
        let _ = writeln!(
            out,
            "  {} ({}): {}: measured {}{}",
            escape(&result.name),
            escape(&result.file),
            escape(&e.text),
            e.measured,
            e.detail
                .as_deref()
                .map(|d| format!(" — {}", escape(d)))
                .unwrap_or_default()
        );
    }
    let _ = writeln!(
        out,
        "{} scenarios, {total} expectations: {} failed",
        results.len(),
        failed.len()
    );
}
