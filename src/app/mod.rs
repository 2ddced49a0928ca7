//! The commands behind the CLI, as library functions over validated
//! configs, one module per command. `main` parses arguments into these
//! configs, calls one function and maps the outcome to an exit status:
//! [`Status`] for what ran, [`AppError`] (exit 2) for what could not. This
//! module holds what the commands share: statuses, errors, progress and
//! how reports are written.

mod baseline;
mod calibrate;
mod check;
pub mod ci;
pub mod cli;
pub mod errors;
pub mod figures;
mod history;
mod init;
mod progress;
pub(crate) use progress::Progress;
mod real;
mod replay;
mod reports;
mod run;
pub(crate) mod same_file;
mod serve;
mod sweep;

pub use calibrate::{CalibrateConfig, calibrate};
pub use check::check;
pub use history::{HistoryConfig, history};
pub use init::init;
pub use real::RealModelArgs;
pub use replay::{ReplayConfig, ReplayFormat, replay};
pub use reports::{MergeConfig, diff, merge};
pub use run::{NameFilter, ReportPaths, RunConfig, run};
pub use serve::{ServeConfig, serve};
pub use sweep::{SweepConfig, sweep};

use std::io::{self, IsTerminal, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::eval::{self, EvalError};
use crate::results::report_file::ReportFileError;
use crate::scenario::LoadError;

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
    /// No scenario file was found, or `--filter` left none (exit 3).
    NoScenarios,
}

impl Status {
    pub fn exit_code(self) -> u8 {
        match self {
            Status::Passed => 0,
            Status::ExpectationsFailed => 1,
            Status::BadInput => 2,
            Status::Interrupted => 130,
            Status::NoScenarios => 3,
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

impl AppError {
    /// Writing the command's output to stdout failed.
    pub(crate) fn stdout(source: io::Error) -> Self {
        AppError::Write {
            path: "stdout".into(),
            source,
        }
    }
}

impl From<EvalError> for AppError {
    fn from(e: EvalError) -> Self {
        match e {
            EvalError::Run(e) => AppError::Run(e),
            EvalError::Interrupted => AppError::Interrupted,
            EvalError::TooManyRuns(e) => AppError::Usage(e.to_string()),
            EvalError::Spill(e) => AppError::Usage(e.to_string()),
        }
    }
}

/// Reads a calibration profile named by `--profile` (a bad one is bad
/// input: exit 2, with its file and line).
pub(crate) fn read_profile(
    path: &Path,
) -> Result<crate::model::simulated::profile::LoadedProfile, AppError> {
    crate::model::simulated::Profile::read(path).map_err(|e| AppError::Usage(e.to_string()))
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

pub(crate) fn no_scenarios(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    format!(
        "{}: no scenario files found (looked for *.yaml / *.yml)",
        names.join(", ")
    )
}

/// The folder `run` and `check` read when no path is given.
pub const DEFAULT_SCENARIOS: &str = "scenarios/";

/// When the only path is the default `scenarios/` and there is no such
/// folder here: the message saying so and what to do (exit 3, no
/// scenario found, like a folder without scenarios). A path the user
/// names that does not exist stays bad input (exit 2).
pub(crate) fn missing_default_folder(paths: &[PathBuf]) -> Option<String> {
    let [only] = paths else { return None };
    (only.as_path() == std::path::Path::new(DEFAULT_SCENARIOS) && !only.exists()).then(|| {
        "no scenarios/ folder here (the default path): name scenario files or folders \
         (`agent-eval run PATH...`), or write a starter with `agent-eval init DIR`"
            .to_string()
    })
}

/// The report path that means stdout.
pub const STDOUT: &str = "-";

/// Whether a scenario `name` passes `--filter` (`filter` is contained in
/// it).
pub(crate) fn name_matches(name: &str, filter: &str) -> bool {
    name.contains(filter)
}

/// Checks, before anything runs, that a report can be written at `path`:
/// `-` (stdout), `/dev/null`, or a file in a folder that exists and takes
/// a new file (never a FIFO, a socket or another device:
/// [`same_file::not_a_file`]) (reports are written
/// through a temporary file there and renamed). A report that could not be
/// written after an hour of runs would be an hour lost.
pub fn check_output_path(path: &Path) -> Result<(), AppError> {
    if path == Path::new(STDOUT) {
        return Ok(());
    }
    let bad = |reason: String| {
        AppError::Usage(format!(
            "{}: cannot write a report there: {reason}",
            path.display()
        ))
    };
    if let Some(what) = same_file::not_a_file(path) {
        return Err(bad(format!(
            "it is {what} (a FIFO would block, a device is no place for a report); give a file, or `-` for stdout"
        )));
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => return Err(bad("it is a folder".into())),
        Ok(meta) if !meta.is_file() => return Ok(()),
        _ => {}
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(bad(format!("{} is not a folder", dir.display()))),
        Err(e) => return Err(bad(format!("folder {}: {e}", dir.display()))),
    }
    tempfile::NamedTempFile::new_in(dir)
        .map(drop)
        .map_err(|e| bad(format!("folder {}: {e}", dir.display())))
}

/// Writes a report: `-` to `stdout`, anything else via [`write_atomic`].
pub fn write_report(path: &Path, bytes: &[u8], stdout: &mut dyn Write) -> Result<(), AppError> {
    write_report_with(path, stdout, &mut |out| out.write_all(bytes))
}

/// [`write_report`] for a report written piece by piece by `write` (a
/// large report is streamed, never held whole).
pub fn write_report_with(
    path: &Path,
    stdout: &mut dyn Write,
    write: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> Result<(), AppError> {
    if path == Path::new(STDOUT) {
        return write(stdout).map_err(|source| AppError::Write {
            path: path.to_path_buf(),
            source,
        });
    }
    write_atomic_with(path, write)
}

/// Writes `bytes` to `path` through a temporary file in the same folder and
/// a rename, so readers never see a half-written report. `/dev/null` is
/// written in place (renaming over it would replace the device); any other
/// FIFO, socket or device, checked before the run but maybe made since, is
/// refused, never opened.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AppError> {
    write_atomic_with(path, &mut |out| out.write_all(bytes))
}

/// [`write_atomic`] for a file written piece by piece by `write`.
pub fn write_atomic_with(
    path: &Path,
    write: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> Result<(), AppError> {
    let wrap = |source| AppError::Write {
        path: path.to_path_buf(),
        source,
    };
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        same_file::refuse_not_a_file("the report", path)?;
        let mut target = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
            .map_err(wrap)?;
        return write(&mut target).map_err(wrap);
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(wrap)?;
    write(file.as_file_mut()).map_err(wrap)?;
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
