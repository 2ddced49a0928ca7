//! `sh -c COMMAND` in a workspace: the runner of the `bash` tool and of
//! `command:` checks.
//!
//! Every command runs through [`crate::sandbox::process`]: it is sandboxed
//! (Landlock: writes only in the workspace, no TCP, no signals out), every
//! process it starts is gone when the call returns, the timeout covers
//! reading the output, and Ctrl-C ends it promptly as a cancellation, not a
//! timeout. At most [`CAPTURE_LIMIT`] bytes per stream are kept (the rest is
//! drained and discarded).
//!
//! In a run's workspace ([`run_command_in`]) a command that provably only
//! reads is run against a mirror of the in-memory files in a read-only
//! sandbox, and its outcome is reused for the same command over the same
//! files (see [`super::read_only`]).

use std::path::Path;
use std::time::Duration;

pub use super::outcome::{BashOutcome, CAPTURE_LIMIT, CommandSettings};

use super::landlock;
use super::process::{self, Invocation, Limits, ProcessError};
use super::read_only;
use super::workspace::Workspace;

/// Why a command did not finish with an outcome. The texts are those the
/// `bash` tool shows the model after `Error: `.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("Timeout ({}s)", .0.as_secs())]
    Timeout(Duration),
    /// Ctrl-C or SIGTERM stopped the command (the run reports the
    /// cancellation; this is never a timeout).
    #[error("Cancelled")]
    Cancelled,
    /// The sandbox could not be applied; the command did not run.
    #[error("{0}")]
    Sandbox(String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Runs `sh -c command` in a run's workspace: a read-only command over
/// files held in memory is answered from an earlier identical call when
/// there is one, else run in a read-only sandbox against a mirror of the
/// files (which stay in memory); any other command gets the files written
/// to the folder, which is the workspace from then on.
pub fn run_command_in(
    workspace: &Workspace,
    command: &str,
    settings: &CommandSettings,
) -> Result<BashOutcome, CommandError> {
    if settings.cancel.is_cancelled() {
        return Err(CommandError::Cancelled);
    }
    if settings.reuse_read_only
        && read_only::is_read_only(command)
        && let Some(files) = workspace.content_digest()
    {
        let key = read_only::key(command, &files, settings);
        if let Some(outcome) = read_only::lookup(&key) {
            return Ok(outcome);
        }
        let folder = workspace.mirror_folder()?;
        let ruleset = if settings.sandbox {
            landlock::read_only_ruleset().map_err(|e| CommandError::Sandbox(e.to_string()))?
        } else {
            None
        };
        let invocation = Invocation {
            ruleset: ruleset.as_deref(),
            ..Invocation::default()
        };
        let outcome = run_invocation(folder, command, &invocation, settings)?;
        read_only::store(key, &outcome);
        return Ok(outcome);
    }
    run_command_with(workspace.folder()?, command, settings)
}

/// Runs `sh -c command` in `root` with no command filter (checks use this
/// for the scenario author's own commands), capturing capped output.
pub fn run_command(
    root: &Path,
    command: &str,
    timeout: Duration,
) -> Result<BashOutcome, CommandError> {
    run_command_with(root, command, &CommandSettings::new(timeout))
}

/// [`run_command`] with explicit settings.
pub fn run_command_with(
    root: &Path,
    command: &str,
    settings: &CommandSettings,
) -> Result<BashOutcome, CommandError> {
    run_invocation(root, command, &Invocation::default(), settings)
}

fn run_invocation(
    root: &Path,
    command: &str,
    invocation: &Invocation<'_>,
    settings: &CommandSettings,
) -> Result<BashOutcome, CommandError> {
    let limits = Limits {
        timeout: settings.timeout,
        capture_limit: settings.capture_limit,
        cancel: settings.cancel.clone(),
        sandbox: settings.sandbox,
        containment: settings.containment,
    };
    match process::run_invocation(root, command, invocation, &limits) {
        Ok(output) => Ok(BashOutcome {
            exit_code: output.exit_code,
            stdout: output.stdout,
            stderr: output.stderr,
        }),
        Err(ProcessError::Timeout) => Err(CommandError::Timeout(settings.timeout)),
        Err(ProcessError::Cancelled) => Err(CommandError::Cancelled),
        Err(ProcessError::Sandbox(e)) => Err(CommandError::Sandbox(e.to_string())),
        Err(ProcessError::Spawn(e)) => Err(CommandError::Io(e)),
    }
}
