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
//! In a run's workspace ([`run_command_in`]) the effect of a command that
//! provably depends only on the files is reused for the same command over
//! the same files (see [`super::reuse`]).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub use super::outcome::{BashOutcome, CAPTURE_LIMIT, CommandSettings};

use super::landlock;
use super::process::{self, Invocation, Limits, ProcessError};
use super::reuse::{self, Effect, Kind};
use super::workspace::Workspace;
use super::{contained, read_only};

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

/// Runs `sh -c command` in a run's workspace: over files held in memory,
/// a command whose effect can be reused (see [`super::reuse`]) gets the
/// effect of an earlier identical call when there is one, else runs
/// against a mirror of the files (which stay in memory); any other command
/// gets the files written to the folder, which is the workspace from then
/// on.
pub fn run_command_in(
    workspace: &Workspace,
    command: &str,
    settings: &CommandSettings,
) -> Result<BashOutcome, CommandError> {
    if settings.cancel.is_cancelled() {
        return Err(CommandError::Cancelled);
    }
    if let Some(kind) = reusable(command, settings)
        && let Some(files) = workspace.content_digest()
    {
        let key = reuse::key(kind, command, &files, settings);
        if let Some(effect) = reuse::lookup(&key) {
            workspace.apply_changes(&effect.changes, effect.files_after)?;
            return Ok(effect.outcome);
        }
        return first_run(kind, workspace, command, (key, files), settings);
    }
    run_command_with(workspace.folder()?, command, settings)
}

/// Whether `command`'s effect may be reused under `settings`, and which.
fn reusable(command: &str, settings: &CommandSettings) -> Option<Kind> {
    if !settings.reuse {
        None
    } else if read_only::is_read_only(command) {
        Some(Kind::ReadOnly)
    } else if settings.sandbox && landlock::status().is_full() && contained::is_contained(command) {
        Some(Kind::Contained)
    } else {
        None
    }
}

/// Runs a reusable command against the mirror folder and keeps its
/// effect under `key` (`files`: the digest it was made from).
fn first_run(
    kind: Kind,
    workspace: &Workspace,
    command: &str,
    (key, files): ([u8; 32], [u8; 32]),
    settings: &CommandSettings,
) -> Result<BashOutcome, CommandError> {
    let folder = workspace.mirror_folder()?;
    let ruleset = match kind {
        Kind::ReadOnly if settings.sandbox => landlock::read_only_ruleset(),
        Kind::ReadOnly => Ok(None),
        Kind::Contained => landlock::ruleset_for(folder),
    }
    .map_err(|e| CommandError::Sandbox(e.to_string()))?;
    let invocation = Invocation {
        ruleset: ruleset.as_deref(),
        ..Invocation::default()
    };
    let outcome = match run_invocation(folder, command, &invocation, settings) {
        Ok(outcome) => outcome,
        Err(e) => {
            // Whatever a contained command did before it failed, the
            // folder is the workspace from now on.
            if kind == Kind::Contained {
                workspace.materialize()?;
            }
            return Err(e);
        }
    };
    let (changes, files_after) = match kind {
        Kind::ReadOnly => (Arc::from([]), files),
        Kind::Contained => match workspace.read_back_mirror()? {
            Some(changes) => match workspace.content_digest() {
                Some(after) => (changes, after),
                None => return Ok(outcome),
            },
            None => return Ok(outcome),
        },
    };
    let effect = Effect {
        outcome: outcome.clone(),
        changes,
        files_after,
    };
    reuse::store(key, effect);
    Ok(outcome)
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
