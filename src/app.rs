//! The commands behind the CLI, as library functions over validated
//! configs. `main` parses arguments into these configs, calls one function
//! and maps the outcome to an exit status: [`Status`] for what ran,
//! [`AppError`] (exit 2) for what could not.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::eval::{self, EvalError, EvalEvent, EvalOptions, ScenarioResult, Shard};
use crate::report::json::{self, Report, ReportFile, ReportFileError};
use crate::report::{baseline, junit, markdown, svg, table, transcript};
use crate::scenario::{self, CellSettings, LoadError, NagThreshold};

/// How a command ended when it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Everything ran and every expectation held (exit 0).
    Passed,
    /// An expectation failed or a baseline cell regressed (exit 1).
    ExpectationsFailed,
    /// Some input was bad, but what could run ran (exit 2).
    BadInput,
    /// Stopped by Ctrl-C; nothing was written (exit 130).
    Interrupted,
}

impl Status {
    pub fn exit_code(self) -> u8 {
        match self {
            Status::Passed => 0,
            Status::ExpectationsFailed => 1,
            Status::BadInput => 2,
            Status::Interrupted => 130,
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
    #[error("{0}")]
    Report(#[from] ReportFileError),
    #[error("{path}: {source}")]
    Write { path: PathBuf, source: io::Error },
    #[error("{0}")]
    Usage(String),
    #[error("interrupted")]
    Interrupted,
}

impl From<EvalError> for AppError {
    fn from(e: EvalError) -> Self {
        match e {
            EvalError::Run(e) => AppError::Run(e),
            EvalError::Interrupted => AppError::Interrupted,
        }
    }
}

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
}

/// Whether to colour output written to stdout: only on a terminal, never
/// with `NO_COLOR` set.
pub fn stdout_wants_color() -> bool {
    io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Whether stderr can show a progress bar.
pub fn stderr_is_terminal() -> bool {
    io::stderr().is_terminal()
}

fn no_scenarios(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    format!(
        "{}: no scenario files found (looked for *.yaml / *.yml)",
        names.join(", ")
    )
}

/// A progress bar fed by engine events (hidden unless asked for).
fn progress_bar(show: bool) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar =
        indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} runs {elapsed} (eta {eta})")
    {
        bar.set_style(style);
    }
    bar
}

fn on_progress(bar: &indicatif::ProgressBar) -> impl Fn(&EvalEvent<'_>) + Sync + '_ {
    move |event| match event {
        EvalEvent::Started { runs } => bar.set_length(*runs as u64),
        EvalEvent::RunFinished { .. } => bar.inc(1),
        EvalEvent::ScenarioFinished { .. } => {}
    }
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
    let (mut scenarios, errors) = scenario::load_all(&config.paths);
    if let Some(filter) = &config.filter {
        scenarios.retain(|s| s.name.contains(filter.as_str()));
    }
    for e in &errors {
        let _ = writeln!(err, "error: {e}");
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
    };
    let bar = progress_bar(config.progress && !config.quiet);
    let outcome = eval::evaluate(&scenarios, &options, &on_progress(&bar));
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
        Err(EvalError::Run(e)) => return Err(e.into()),
    };
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
            Report::for_shard(&results, error_texts.clone(), shard)
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
    } else if config.shard.is_some() || (report.ok && !regressed) {
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

/// The report path that means stdout.
pub const STDOUT: &str = "-";

/// Writes a report: `-` to `stdout`, anything else via [`write_atomic`].
pub fn write_report(path: &Path, bytes: &[u8], stdout: &mut dyn Write) -> Result<(), AppError> {
    if path == Path::new(STDOUT) {
        return stdout.write_all(bytes).map_err(|source| AppError::Write {
            path: path.to_path_buf(),
            source,
        });
    }
    write_atomic(path, bytes)
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
/// a rename, so readers never see a half-written report. A path that exists
/// and is not a regular file (`/dev/stdout`, a pipe) is written in place:
/// renaming over it would replace the device, not feed it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AppError> {
    let wrap = |source| AppError::Write {
        path: path.to_path_buf(),
        source,
    };
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut target = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(wrap)?;
        return target.write_all(bytes).map_err(wrap);
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(wrap)?;
    file.write_all(bytes).map_err(wrap)?;
    // A report is for others to read: not the temporary file's 0600.
    let mut perms = perms_of(&file).map_err(wrap)?;
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o644);
    file.as_file().set_permissions(perms).map_err(wrap)?;
    file.persist(path).map_err(|e| wrap(e.error))?;
    Ok(())
}

fn perms_of(file: &tempfile::NamedTempFile) -> io::Result<std::fs::Permissions> {
    Ok(file.as_file().metadata()?.permissions())
}

/// `agent-eval merge`: shard reports into the full report.
pub fn merge(
    parts: &[PathBuf],
    json_out: Option<&Path>,
    out: &mut dyn Write,
) -> Result<Status, AppError> {
    let reports = parts
        .iter()
        .map(|p| ReportFile::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let (results, errors) = json::merge(reports)?;
    let report = Report::new(&results, errors);
    let text = report.to_json();
    match json_out {
        Some(path) => write_atomic(path, text.as_bytes())?,
        None => {
            let _ = out.write_all(text.as_bytes());
        }
    }
    Ok(if report.ok {
        Status::Passed
    } else {
        Status::ExpectationsFailed
    })
}

/// `agent-eval diff OLD NEW`: what moved between two reports.
pub fn diff(
    old: &Path,
    new: &Path,
    tolerance: f64,
    out: &mut dyn Write,
) -> Result<Status, AppError> {
    let old = ReportFile::read(old)?.rates();
    let new = ReportFile::read(new)?.rates();
    let diffs = baseline::compare(&old, &new, tolerance);
    let _ = write!(out, "{}", baseline::render(&diffs, tolerance));
    Ok(if baseline::regressed(&diffs) {
        Status::ExpectationsFailed
    } else {
        Status::Passed
    })
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
    // A Ctrl-C during this call is handled by it, then forgotten.
    let _session = crate::cancel::Session::begin();
    let scenario = scenario::load(&config.scenario)?;
    let agent = scenario.agent_cell();
    let cell = CellSettings {
        todo: config.todo.unwrap_or(agent.todo),
        nag_threshold: config.threshold.unwrap_or(agent.nag_threshold),
    };
    let record = eval::run_once(&scenario, cell, config.seed)?;
    if crate::cancel::requested() {
        return Ok(Status::Interrupted);
    }
    let text = match config.format {
        ReplayFormat::Text => transcript::render(&scenario, &record),
        ReplayFormat::Json => transcript::to_json(&record)
            .map_err(|e| AppError::Usage(format!("cannot write the replay as JSON: {e}")))?,
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
    pub svg: Option<PathBuf>,
    pub json: Option<PathBuf>,
    pub progress: bool,
}

/// Runs a threshold sweep and prints its table and recommendation.
pub fn sweep(config: &SweepConfig, out: &mut dyn Write) -> Result<Status, AppError> {
    // A Ctrl-C during this call is handled by it, then forgotten.
    let _session = crate::cancel::Session::begin();
    let scenario = scenario::load(&config.scenario)?;
    if config.thresholds.is_empty() {
        return Err(AppError::Usage(
            "--thresholds needs at least one value".into(),
        ));
    }
    let options = EvalOptions {
        seeds: config.seeds,
        jobs: config.jobs,
        shard: None,
    };
    let bar = progress_bar(config.progress);
    let outcome = eval::sweep::sweep(&scenario, &config.thresholds, &options, &on_progress(&bar));
    bar.finish_and_clear();
    let result = match outcome {
        Ok(result) => result,
        Err(EvalError::Interrupted) => return Ok(Status::Interrupted),
        Err(e) => return Err(e.into()),
    };
    let _ = out.write_all(table::sweep(&result).as_bytes());
    if let Some(path) = &config.svg {
        let chart = svg::render(&result).map_err(AppError::Usage)?;
        write_atomic(path, chart.as_bytes())?;
    }
    if let Some(path) = &config.json {
        let text = json::pretty(&result)
            .map_err(|e| AppError::Usage(format!("cannot write the sweep as JSON: {e}")))?;
        write_atomic(path, text.as_bytes())?;
    }
    Ok(Status::Passed)
}

/// `agent-eval check`: validates scenarios; lists each with its matrix.
pub fn check(
    paths: &[PathBuf],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    let (scenarios, errors) = scenario::load_all(paths);
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
        return Err(AppError::Usage(no_scenarios(paths)));
    }
    Ok(if errors.is_empty() {
        Status::Passed
    } else {
        Status::BadInput
    })
}
