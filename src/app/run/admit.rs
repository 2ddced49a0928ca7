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
use crate::app::same_file::{Named, refuse_overlaps as refuse_overlaps_of};
use crate::app::{AppError, STDOUT, Status, check_output_path, no_scenarios};
use crate::eval::{self, EvalOptions};
use crate::model::http::SpendEstimate;
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
    /// What the real models will cost, estimated (empty without them).
    pub estimate: SpendEstimate,
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
    if let Some(message) = crate::app::missing_default_folder(&config.paths) {
        let _ = writeln!(err, "error: {message}");
        return Ok(Admission::Stop(Status::NoScenarios));
    }
    let Loaded {
        scenarios,
        errors,
        options,
        estimate,
    } = load_scenarios(config, err)?;
    refuse_overlaps(config, &scenarios)?;
    let history = open_history(config.history.as_deref())?;
    let baseline = config
        .baseline
        .as_deref()
        .map(|path| baseline::read(path, config.baseline_branch.as_deref(), &scenarios, err))
        .transpose()?;
    for e in &errors {
        let _ = writeln!(err, "error: {}", escape(&e.to_string()));
    }
    warn_of_fewer_seeds(config.seeds, &scenarios, err);
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
        estimate,
    })))
}

/// A warning for each scenario whose statistical expectations (bounds and
/// comparisons) were written for more seeds than `--seeds` gives: with
/// fewer runs a real difference can go unseen and a bound can fail by
/// chance, so the user should know their power changed.
fn warn_of_fewer_seeds(seeds: Option<u64>, scenarios: &[Scenario], err: &mut dyn Write) {
    let Some(given) = seeds else { return };
    fn statistical(e: &scenario::Expectation) -> bool {
        match e {
            scenario::Expectation::Exact(_) => false,
            scenario::Expectation::Part { expectation, .. } => statistical(expectation),
            _ => true,
        }
    }
    for s in scenarios {
        let written_for = match &s.runs.seeds {
            Some(scenario::Seeds::Count(n)) => *n,
            Some(scenario::Seeds::List(list)) => list.len() as u64,
            None => continue,
        };
        let count = s.expect.iter().filter(|e| statistical(e)).count();
        if given < written_for && count > 0 {
            let _ = writeln!(
                err,
                "warning: {}: --seeds {given} is below the {written_for} seeds its {count} statistical expectation{} \
                 (bounds, comparisons) were written for: with fewer runs they can miss a real difference or fail by chance",
                escape(&s.file.display().to_string()),
                if count == 1 { "" } else { "s" },
            );
        }
    }
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

/// No report and no run log over a file this run reads (a scenario, the
/// baseline), over the history database or over another of its outputs:
/// refused before the history is opened (which may create it) and before
/// anything runs.
fn refuse_overlaps(config: &RunConfig, scenarios: &[Scenario]) -> Result<(), AppError> {
    let r = &config.reports;
    let reports = [
        ("--json", &r.json),
        ("--junit", &r.junit),
        ("--markdown", &r.markdown),
        ("--html", &r.html),
        ("--codequality", &r.codequality),
    ];
    let log_files: Vec<std::path::PathBuf> = match &config.log_dir {
        Some(dir) => scenarios
            .iter()
            .map(|s| dir.join(crate::report::log::file_name(&s.name)))
            .collect(),
        None => Vec::new(),
    };
    let mut outputs: Vec<Named<'_>> = reports
        .iter()
        .filter_map(|(flag, path)| path.as_deref().map(|p| Named::new(*flag, p)))
        .collect();
    outputs.extend(log_files.iter().map(|p| Named::new("a --log-dir file", p)));
    let files = scenario::discover(&config.paths).unwrap_or_default();
    let mut inputs: Vec<Named<'_>> = files.iter().map(|f| Named::new("a scenario", f)).collect();
    if let Some(baseline) = &config.baseline {
        inputs.push(Named::new("--baseline", baseline));
    }
    // The history is written only by its own transactions: no report may
    // land on it (it may be the baseline too, read before recording).
    if let Some(history) = &config.history {
        inputs.push(Named::new("the --history database", history));
    }
    refuse_overlaps_of(&outputs, &inputs)?;
    crate::app::same_file::refuse_step_summary_over(
        r.github.as_ref().and_then(|g| g.step_summary.as_deref()),
        &inputs,
    )
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
fn load_scenarios(config: &RunConfig, err: &mut dyn Write) -> Result<Loaded, AppError> {
    let (mut scenarios, mut errors) = scenario::load_all(&config.paths);
    if let Some(path) = &config.profile {
        let loaded = crate::app::read_profile(path)?;
        let changed = super::profile_note::apply(&loaded, &mut scenarios);
        if !config.list {
            super::profile_note::print(path, &loaded, changed, err);
        }
    }
    if crate::cancel::requested() {
        return Err(AppError::Interrupted);
    }
    // A real model runs once per cell unless seeds are asked for: counted
    // against the cap as it will run.
    config.real.use_model(&mut scenarios);
    let (mut scenarios, over_cap) = eval::admit(scenarios, &options_for_count(config));
    errors.extend(over_cap);
    scenarios.retain(|s| config.filter.matches(&s.name));
    let (mut env, estimate) = real_models(config, &scenarios, err)?;
    if let Some(dir) = &config.keep_transcripts {
        std::fs::create_dir_all(dir).map_err(|e| {
            AppError::Usage(format!(
                "--keep-transcripts {}: cannot create the folder: {e}",
                dir.display()
            ))
        })?;
        env.keep_transcripts = Some(dir.clone());
    }
    if let Some(command) = &config.agent {
        if let Some(preset) = crate::scenario::AgentPreset::near(command) {
            let _ = writeln!(
                err,
                "note: --agent {} runs the command `{}` as an outside agent; did you mean the preset {preset} (--agent {preset})?",
                escape(command),
                escape(command),
            );
        }
        for scenario in &mut scenarios {
            scenario.agent.use_command(command);
        }
    }
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
    Ok(Loaded {
        scenarios: settled,
        errors,
        options,
        estimate,
    })
}

/// The real models' estimate, and (unless `--list`, which sends nothing
/// and needs no key) their set-up: the estimate is printed to `err` and
/// checked against the budget before any key is read or request sent.
fn real_models(
    config: &RunConfig,
    scenarios: &[Scenario],
    err: &mut dyn Write,
) -> Result<(eval::RunEnv, SpendEstimate), AppError> {
    let estimate = config.real.estimate(scenarios, |s| {
        super::evaluate::units_of(s, &options_for_count(config))
    });
    if config.list {
        return Ok((eval::RunEnv::default(), estimate));
    }
    if !estimate.is_empty() {
        let _ = writeln!(err, "{}", estimate.line());
    }
    config
        .real
        .check_estimate(&estimate)
        .map_err(|e| AppError::Usage(e.to_string()))?;
    let env = config
        .real
        .prepare(scenarios)
        .map_err(|e| AppError::Usage(e.to_string()))?;
    Ok((env, estimate))
}

/// What [`load_scenarios`] settled.
struct Loaded {
    scenarios: Vec<Scenario>,
    errors: Vec<LoadError>,
    options: EvalOptions,
    estimate: SpendEstimate,
}

/// The options that decide how many runs a scenario makes.
fn options_for_count(config: &RunConfig) -> EvalOptions {
    EvalOptions {
        seeds: config.seeds,
        max_runs: config.max_runs,
        ..EvalOptions::default()
    }
}
