//! The first phase of `run`: admit. Everything the user gave — report
//! paths, flag combinations, the baseline report, the history database, the
//! scenario files, real-model settings, outside agents — is read and
//! checked here, before anything runs: bad input costs seconds, never an
//! hour of runs.

use std::io::Write;
use std::path::Path;

use super::config::RunConfig;
use crate::app::baseline;
use crate::app::history::open as open_history;
use crate::app::{AppError, STDOUT, Status, check_output_path, no_scenarios};
use crate::eval::{self, EvalOptions};
use crate::report::terminal::escape;
use crate::results::baseline::CellRates;
use crate::results::history::History;
use crate::scenario::{self, LoadError, Scenario};

/// What `run` goes on with once its input is admitted.
pub(super) struct Admitted {
    /// The scenarios that load, fit the cap, pass `--filter` and whose
    /// agent can run here, in load order.
    pub scenarios: Vec<Scenario>,
    /// The files (or scenarios) refused; already printed. The others run.
    pub errors: Vec<LoadError>,
    pub options: EvalOptions,
    /// The cells of `--baseline`.
    pub baseline: Option<Vec<CellRates>>,
    pub history: Option<History>,
    /// Whether a report takes stdout (the tables then go to stderr).
    pub report_on_stdout: bool,
}

/// The end of the admit phase: go on, or stop here with this status.
pub(super) enum Admission {
    Ready(Box<Admitted>),
    Stop(Status),
}

/// Checks the flags and outputs, reads the baseline, opens the history and
/// loads the scenarios; prints the files it refuses to `err`.
pub(super) fn admit(config: &RunConfig, err: &mut dyn Write) -> Result<Admission, AppError> {
    let report_on_stdout = check_outputs(config)?;
    check_flags(config)?;
    let history = open_history(config.history.as_deref())?;
    let (scenarios, errors, options) = load_scenarios(config)?;
    let baseline = config
        .baseline
        .as_deref()
        .map(|path| baseline::read(path, config.baseline_branch.as_deref(), &scenarios, err))
        .transpose()?;
    for e in &errors {
        let _ = writeln!(err, "error: {}", escape(&e.to_string()));
    }
    if scenarios.is_empty() && errors.is_empty() {
        let _ = writeln!(
            err,
            "error: {}",
            if config.filter.is_empty() {
                no_scenarios(&config.paths)
            } else {
                format!("no scenario matches --filter {}", config.filter)
            }
        );
        return Ok(Admission::Stop(Status::NoScenarios));
    }
    Ok(Admission::Ready(Box::new(Admitted {
        scenarios,
        errors,
        options,
        baseline,
        history,
        report_on_stdout,
    })))
}

/// At most one report on stdout, and every report path writable now (a
/// report that cannot be written is found before the runs, not after).
/// Returns whether a report takes stdout.
fn check_outputs(config: &RunConfig) -> Result<bool, AppError> {
    let on_stdout = config
        .reports
        .given()
        .filter(|p| p.as_path() == Path::new(STDOUT))
        .count();
    if on_stdout > 1 {
        return Err(AppError::Usage(
            "only one report can go to stdout (`-`)".into(),
        ));
    }
    for path in config.reports.given() {
        check_output_path(path)?;
    }
    Ok(on_stdout == 1)
}

/// Flags that cannot go together.
fn check_flags(config: &RunConfig) -> Result<(), AppError> {
    if config.shard.is_some() && config.baseline.is_some() {
        return Err(AppError::Usage(
            "--baseline compares whole cells; with --shard, merge the shards first, then use `agent-eval diff`".into(),
        ));
    }
    if config.shard.is_some() && config.fail_fast {
        return Err(AppError::Usage(
            "--fail-fast stops on a failed expectation, and a shard checks none: merge the shards first".into(),
        ));
    }
    Ok(())
}

/// Loads the scenarios and settles what they run with: the cap on runs,
/// real models, `--agent`, `--filter`, and each agent preset's CLI.
/// Returns the scenarios, the errors of those refused, and the options the
/// engine runs them with.
fn load_scenarios(
    config: &RunConfig,
) -> Result<(Vec<Scenario>, Vec<LoadError>, EvalOptions), AppError> {
    let (mut scenarios, mut errors) = scenario::load_all(&config.paths);
    if let Some(path) = &config.profile {
        let loaded = crate::app::read_profile(path)?;
        scenarios.iter_mut().for_each(|s| s.use_profile(&loaded));
    }
    if crate::cancel::requested() {
        return Err(AppError::Interrupted);
    }
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
    scenarios.retain(|s| config.filter.matches(&s.name));
    // A preset's CLI missing, or a dialect it lacks, is an error of the file.
    let mut settled = Vec::with_capacity(scenarios.len());
    for mut scenario in scenarios {
        match eval::execute::presets::settle(&mut scenario, true) {
            Ok(()) => settled.push(scenario),
            Err(e) => errors.push(e),
        }
    }
    let options = EvalOptions {
        seeds: config.seeds,
        jobs: config.jobs,
        shard: config.shard,
        env,
        max_runs: config.max_runs,
    };
    Ok((settled, errors, options))
}
