//! Between evaluate and write: what the runs mean. Scenarios some of whose
//! runs could not happen leave the results (they are errors, like bad
//! files), failed expectations name the runs to replay, the cells are
//! compared with `--baseline`, and the report is built. Diagnostics about
//! the runs (not started, failed, models' usage) go to stderr here.

use std::io::Write;

use super::admit::Admitted;
use super::config::RunConfig;
use super::evaluate::units_of;
use super::reporters::Finished;
use crate::report::findings::BadInput;
use crate::report::json::Report;
use crate::report::log;
use crate::report::terminal::{escape, escape_multiline};
use crate::results::ScenarioResult;
use crate::results::baseline::{self, CellDiff};
use crate::results::report_file::ShardPlan;
use crate::results::scenario_result::RunFailure;
use crate::scenario::{LoadError, Scenario};

/// The results of the runs and what follows from them.
pub(super) struct Concluded {
    pub results: Vec<ScenarioResult>,
    /// The report's error lines: files refused, then runs that could not
    /// happen.
    pub errors: Vec<String>,
    /// The same errors with the file and line each names.
    pub bad_inputs: Vec<BadInput>,
    pub bad_files: usize,
    pub run_failures: usize,
    /// Of those, the ones whose agent could not start.
    pub agent_failures: usize,
    /// Scenarios `--fail-fast` did not start.
    pub skipped: Vec<String>,
    pub ran: usize,
    /// Some planned runs were never started (a spend limit was reached).
    pub not_started: bool,
    pub baseline: Option<Vec<CellDiff>>,
}

/// Concludes the runs of `planned` units into results; prints the
/// diagnostics about them to `err`.
pub(super) fn conclude(
    config: &RunConfig,
    admitted: &Admitted,
    planned: usize,
    mut results: Vec<ScenarioResult>,
    err: &mut dyn Write,
) -> Concluded {
    let options = &admitted.options;
    let skipped: Vec<&Scenario> = admitted.scenarios.iter().skip(results.len()).collect();
    let ran: usize = results.iter().flat_map(|r| &r.cells).map(|c| c.runs).sum();
    let planned_ran = planned - skipped.iter().map(|s| units_of(s, options)).sum::<usize>();
    let not_started = crate::app::real::runs_not_started(&options.env, planned_ran, ran);
    if let Some(note) = &not_started {
        let _ = writeln!(err, "{note}");
    }
    let run_failures = take_run_failures(&mut results);
    for (_, failure) in &run_failures {
        // The agent's output quoted in the message keeps its lines (the
        // stream itself keeps them from being workflow commands).
        let _ = writeln!(err, "error: {}", escape_multiline(&failure.message));
    }
    for line in invalid_cells(&results) {
        let _ = writeln!(err, "error: {}", escape(&line));
    }
    if let Some(warning) = crate::app::real::model_failures(&results) {
        let _ = writeln!(err, "{warning}");
    }
    if let Some(usage) = crate::app::real::usage_summary(&results) {
        let _ = writeln!(err, "{usage}");
    }
    if config.shard.is_none() {
        name_replays(&mut results, &admitted.scenarios);
    }
    let errors = admitted
        .errors
        .iter()
        .map(ToString::to_string)
        .chain(
            run_failures
                .iter()
                .map(|(_, failure)| failure.message.clone()),
        )
        .collect();
    let bad_inputs = bad_inputs(&admitted.errors, &run_failures);
    let baseline = admitted
        .baseline
        .as_ref()
        .map(|old| baseline::compare(old, &baseline::rates(&results), config.tolerance));
    Concluded {
        results,
        errors,
        bad_inputs,
        bad_files: admitted.errors.len(),
        run_failures: run_failures.len(),
        agent_failures: run_failures.iter().filter(|(_, f)| f.agent).count(),
        skipped: skipped.iter().map(|s| s.name.clone()).collect(),
        ran,
        not_started: not_started.is_some(),
        baseline,
    }
}

/// A scenario some of whose runs could not happen (a workspace that could
/// not be prepared, an agent that could not start) is an error of its own,
/// like a bad file: it leaves the results; the others still report.
/// Each comes with its scenario's file.
fn take_run_failures(results: &mut Vec<ScenarioResult>) -> Vec<(String, RunFailure)> {
    let mut run_failures: Vec<(String, RunFailure)> = Vec::new();
    results.retain(|result| {
        run_failures.extend(result.run_errors.iter().map(|failure| {
            let message = format!("{}: {}", result.file, failure.message);
            let failure = RunFailure {
                message,
                agent: failure.agent,
            };
            (result.file.clone(), failure)
        }));
        result.run_errors.is_empty()
    });
    run_failures
}

/// A line for each cell that is no measurement (the agent planned with
/// planning off), naming its scenario and file: such a cell fails its
/// scenario (see `results::verdict::planning_off_held`).
fn invalid_cells(results: &[ScenarioResult]) -> Vec<String> {
    results
        .iter()
        .flat_map(|result| {
            result.cells.iter().filter_map(move |cell| {
                let why = cell.invalid.as_ref()?;
                Some(format!(
                    "{} ({}): cell {} is invalid: {why}; its figures are no measurement",
                    result.name, result.file, cell.settings
                ))
            })
        })
        .collect()
}

/// The files refused and the runs that could not happen, with the file
/// and line each names.
fn bad_inputs(load_errors: &[LoadError], run_failures: &[(String, RunFailure)]) -> Vec<BadInput> {
    let refused = load_errors.iter().map(|e| BadInput {
        file: Some(e.file.display().to_string()),
        line: e.position.map(|(line, _)| line),
        message: e.to_string(),
    });
    let failed = run_failures.iter().map(|(file, failure)| BadInput {
        file: Some(file.clone()),
        line: None,
        message: failure.message.clone(),
    });
    refused.chain(failed).collect()
}

/// Names, under each failed expectation, the runs that show why.
fn name_replays(results: &mut [ScenarioResult], scenarios: &[Scenario]) {
    for (result, scenario) in results.iter_mut().zip(scenarios) {
        let ScenarioResult {
            cells,
            expectations,
            expect_spec,
            ..
        } = result;
        for (outcome, spec) in expectations.iter_mut().zip(expect_spec.iter()) {
            if outcome.ok {
                continue;
            }
            outcome.replay = log::failing_runs(spec, cells)
                .into_iter()
                .map(|(settings, seed)| log::replay_command(scenario, settings, seed))
                .collect();
        }
    }
}

impl Concluded {
    /// The JSON report: a shard's (with what the shards must agree on to
    /// merge), or the whole run's.
    pub fn report(&self, config: &RunConfig, units: u64) -> Report<'_> {
        match config.shard {
            Some(shard) => {
                let plan = ShardPlan {
                    units,
                    seeds: config.seeds,
                    model: config
                        .real
                        .model
                        .as_ref()
                        .and_then(|m| serde_json::to_value(m).ok()),
                };
                Report::for_shard(&self.results, self.errors.clone(), shard, plan)
            }
            None => Report::new(&self.results, self.errors.clone()),
        }
    }

    /// What the reporters see.
    pub fn finished<'a>(&'a self, report: &'a Report<'a>) -> Finished<'a> {
        Finished {
            results: &self.results,
            report,
            errors: &self.errors,
            ran: self.ran,
            bad_files: self.bad_files,
            run_failures: self.run_failures,
            agent_failures: self.agent_failures,
            skipped: &self.skipped,
            baseline: self.baseline.as_deref(),
            bad_inputs: &self.bad_inputs,
        }
    }

    /// Whether a baseline cell regressed.
    pub fn regressed(&self) -> bool {
        self.baseline.as_deref().is_some_and(baseline::regressed)
    }
}
