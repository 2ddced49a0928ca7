//! The commands behind the CLI, as library functions over validated
//! configs. `main` parses arguments into these configs, calls one function
//! and maps the outcome to an exit status: [`Status`] for 0 and 1,
//! [`AppError`] for 2.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::eval::{self, EvalEvent, EvalOptions, ScenarioResult};
use crate::report::{json::Report, table, transcript};
use crate::scenario::{self, CellSettings, LoadError, NagThreshold, Scenario};

/// How a command ended when it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Everything ran and every expectation held (exit 0).
    Passed,
    /// An expectation failed (exit 1).
    ExpectationsFailed,
    /// Some input was bad, but what could run ran (exit 2).
    BadInput,
}

impl Status {
    pub fn exit_code(self) -> u8 {
        match self {
            Status::Passed => 0,
            Status::ExpectationsFailed => 1,
            Status::BadInput => 2,
        }
    }
}

/// Why a command could not run (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    Load(#[from] LoadError),
    #[error("{0}")]
    Run(#[from] eval::RunError),
    #[error("{path}: {source}")]
    Write { path: PathBuf, source: io::Error },
    #[error("{0}")]
    Usage(String),
}

/// `agent-eval run`.
#[derive(Debug, Clone, Default)]
pub struct RunConfig {
    pub paths: Vec<PathBuf>,
    pub json: Option<PathBuf>,
    pub seeds: Option<u64>,
    pub jobs: Option<usize>,
    pub filter: Option<String>,
    pub quiet: bool,
}

/// Loads every scenario it can; returns them with the errors of the rest.
pub fn load_all(paths: &[PathBuf]) -> (Vec<Scenario>, Vec<LoadError>) {
    let mut scenarios = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        match scenario::discover(std::slice::from_ref(path)) {
            Ok(files) => {
                for file in files {
                    match scenario::load(&file) {
                        Ok(s) => scenarios.push(s),
                        Err(e) => errors.push(e),
                    }
                }
            }
            Err(e) => errors.push(e),
        }
    }
    (scenarios, errors)
}

/// Runs every scenario, prints the tables and failed expectations to `out`,
/// load errors to `err`, and writes the reports asked for.
pub fn run(
    config: &RunConfig,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    let (mut scenarios, errors) = load_all(&config.paths);
    if let Some(filter) = &config.filter {
        scenarios.retain(|s| s.name.contains(filter.as_str()));
    }
    for e in &errors {
        let _ = writeln!(err, "error: {e}");
    }
    if scenarios.is_empty() && errors.is_empty() {
        return Err(AppError::Usage(match &config.filter {
            Some(f) => format!("no scenario matches --filter {f:?}"),
            None => "no scenario files found (looked for *.yaml / *.yml)".into(),
        }));
    }
    let options = EvalOptions {
        seeds: config.seeds,
        jobs: config.jobs,
    };
    let results = eval::evaluate(&scenarios, &options, &|_: &EvalEvent<'_>| {})?;
    let quiet = config.quiet;
    for result in &results {
        if !quiet || !result.ok() {
            let _ = writeln!(out, "{}", table::render(result));
        }
    }
    print_failures(out, &results);
    let report = Report::new(&results, errors.iter().map(ToString::to_string).collect());
    if let Some(path) = &config.json {
        write_atomic(path, report.to_json().as_bytes())?;
    }
    Ok(if !errors.is_empty() {
        Status::BadInput
    } else if report.ok {
        Status::Passed
    } else {
        Status::ExpectationsFailed
    })
}

fn print_failures(out: &mut dyn Write, results: &[ScenarioResult]) {
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
            result.name,
            result.file,
            e.text,
            e.measured,
            e.detail
                .as_deref()
                .map(|d| format!(" — {d}"))
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

/// Writes `bytes` to `path` through a temporary file in the same folder and
/// a rename, so readers never see a half-written report.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AppError> {
    let wrap = |source| AppError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(wrap)?;
    file.write_all(bytes).map_err(wrap)?;
    file.persist(path).map_err(|e| wrap(e.error))?;
    Ok(())
}

/// Output format of `replay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReplayFormat {
    #[default]
    Text,
    Json,
}

/// `agent-eval replay`.
#[derive(Debug, Clone)]
pub struct ReplayConfig {
    pub scenario: PathBuf,
    pub seed: u64,
    /// `--no-todo` sets this to false.
    pub todo: Option<bool>,
    pub threshold: Option<NagThreshold>,
    pub format: ReplayFormat,
}

/// Runs one replay and prints it.
pub fn replay(config: &ReplayConfig, out: &mut dyn Write) -> Result<Status, AppError> {
    let scenario = scenario::load(&config.scenario)?;
    let cell = CellSettings {
        todo: config.todo.unwrap_or(scenario.agent.todo),
        nag_threshold: config.threshold.unwrap_or(scenario.agent.nag.threshold),
    };
    let record = eval::run_once(&scenario, cell, config.seed)?;
    let text = match config.format {
        ReplayFormat::Text => transcript::render(&scenario, &record),
        ReplayFormat::Json => transcript::to_json(&record),
    };
    let _ = out.write_all(text.as_bytes());
    Ok(Status::Passed)
}

/// `agent-eval sweep`.
#[derive(Debug, Clone)]
pub struct SweepConfig {
    pub scenario: PathBuf,
    pub thresholds: Vec<NagThreshold>,
    pub seeds: Option<u64>,
    pub jobs: Option<usize>,
}

/// Runs a threshold sweep and prints its table and recommendation.
pub fn sweep(config: &SweepConfig, out: &mut dyn Write) -> Result<Status, AppError> {
    let scenario = scenario::load(&config.scenario)?;
    if config.thresholds.is_empty() {
        return Err(AppError::Usage(
            "--thresholds needs at least one value".into(),
        ));
    }
    let options = EvalOptions {
        seeds: config.seeds,
        jobs: config.jobs,
    };
    let result = eval::sweep::sweep(&scenario, &config.thresholds, &options, &|_: &EvalEvent<
        '_,
    >| {})?;
    let _ = out.write_all(table::sweep(&result).as_bytes());
    Ok(Status::Passed)
}

/// `agent-eval check`: validates scenarios; lists each with its matrix.
pub fn check(
    paths: &[PathBuf],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    let (scenarios, errors) = load_all(paths);
    for s in &scenarios {
        let cells = eval::matrix::cells(s);
        let _ = writeln!(
            out,
            "ok {} ({}): {} steps, {} cells, {} expectations",
            s.file.display(),
            s.name,
            s.steps.len(),
            cells.len(),
            s.expect.len()
        );
    }
    for e in &errors {
        let _ = writeln!(err, "error: {e}");
    }
    if scenarios.is_empty() && errors.is_empty() {
        return Err(AppError::Usage(
            "no scenario files found (looked for *.yaml / *.yml)".into(),
        ));
    }
    Ok(if errors.is_empty() {
        Status::Passed
    } else {
        Status::BadInput
    })
}
