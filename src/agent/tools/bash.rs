//! The `bash` tool: `sh -c COMMAND` in the workspace, and the runner of
//! `command:` checks.
//!
//! Both run through [`crate::agent::process`]: the command is sandboxed
//! (Landlock: writes only in the workspace, no TCP, no signals out), every
//! process it starts is gone when the call returns, the timeout covers
//! reading the output, and Ctrl-C ends it promptly as a cancellation, not a
//! timeout. At most [`CAPTURE_LIMIT`] bytes per stream are kept (the rest is
//! drained and discarded). The tool's result is stdout then stderr, trimmed,
//! cut at 50000 characters, `(no output)` when empty.
//!
//! In a run's workspace ([`super::reuse`]) the effect of a command that
//! provably depends only on the files is reused for the same command over
//! the same files.
//!
//! The deny-list below is the reference's: a speed bump against careless
//! commands, not a security boundary (`rm -r -f /` passes it); the sandbox
//! is the boundary.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::{MAX_OUTPUT_CHARS, ToolError, cut_chars};
use crate::agent::process::{self, Containment, Invocation, Limits, ProcessError};
use crate::cancel::CancelToken;

/// Bytes kept per stream. Generous next to the 50000-character cut, so
/// only output with a megabyte of leading white space could differ from an
/// uncapped read.
pub const CAPTURE_LIMIT: usize = 1 << 20;

/// Substrings that block a command, as in the reference.
const DANGEROUS: [&str; 5] = ["rm -rf /", "sudo", "shutdown", "reboot", "> /dev/"];

/// What a finished command produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BashOutcome {
    /// The exit code; `None` when a signal ended the shell.
    pub exit_code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Whether [`CommandSettings::new`] turns reuse on: the process-wide
/// switch of `--no-reuse`.
static REUSE_DEFAULT: AtomicBool = AtomicBool::new(true);

/// Sets whether commands made from now on reuse effects (`--no-reuse`
/// turns it off, to compare or to rule the reuse out).
pub fn set_reuse_default(reuse: bool) {
    REUSE_DEFAULT.store(reuse, Ordering::Relaxed);
}

/// How a command runs; [`CommandSettings::new`] gives the defaults of
/// [`run_bash`] and [`run_command`].
#[derive(Debug, Clone)]
pub struct CommandSettings {
    pub timeout: Duration,
    /// Defaults to [`CancelToken::process`] (Ctrl-C, SIGTERM).
    pub cancel: CancelToken,
    /// Bytes kept per stream.
    pub capture_limit: usize,
    /// Apply the Landlock sandbox where the kernel has it (default true).
    pub sandbox: bool,
    /// `None`: the best containment this machine offers.
    pub containment: Option<Containment>,
    /// In a workspace held in memory, reuse the effects of commands that
    /// depend only on the files (see [`super::reuse`]; default true, or
    /// what [`set_reuse_default`] said).
    pub reuse: bool,
}

impl CommandSettings {
    pub fn new(timeout: Duration) -> Self {
        Self {
            timeout,
            cancel: CancelToken::process(),
            capture_limit: CAPTURE_LIMIT,
            sandbox: true,
            containment: None,
            reuse: REUSE_DEFAULT.load(Ordering::Relaxed),
        }
    }
}

/// Runs `command` as the bash tool; see the module doc for the result.
pub fn run_bash(root: &Path, command: &str, timeout: Duration) -> Result<String, ToolError> {
    run_bash_with(root, command, &CommandSettings::new(timeout))
}

/// [`run_bash`] with explicit settings.
pub fn run_bash_with(
    root: &Path,
    command: &str,
    settings: &CommandSettings,
) -> Result<String, ToolError> {
    refuse_dangerous(command)?;
    Ok(tool_result(&run_command_with(root, command, settings)?))
}

pub(super) fn refuse_dangerous(command: &str) -> Result<(), ToolError> {
    if DANGEROUS.iter().any(|d| command.contains(d)) {
        return Err(ToolError::DangerousCommand);
    }
    Ok(())
}

/// The bash tool's result text for an outcome.
pub(super) fn tool_result(outcome: &BashOutcome) -> String {
    let mut text = String::from_utf8_lossy(&outcome.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&outcome.stderr));
    // As the reference reads them: text mode (universal newlines), then
    // Python's `strip()`, whose white space also covers \x1c-\x1f.
    let text = super::files::universal_newlines(text);
    let trimmed = text.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c));
    if trimmed.is_empty() {
        "(no output)".to_string()
    } else {
        cut_chars(trimmed, MAX_OUTPUT_CHARS).to_string()
    }
}

/// Runs `sh -c command` in `root` with no command filter (checks use this
/// for the scenario author's own commands), capturing capped output.
pub fn run_command(
    root: &Path,
    command: &str,
    timeout: Duration,
) -> Result<BashOutcome, ToolError> {
    run_command_with(root, command, &CommandSettings::new(timeout))
}

/// [`run_command`] with explicit settings.
pub fn run_command_with(
    root: &Path,
    command: &str,
    settings: &CommandSettings,
) -> Result<BashOutcome, ToolError> {
    run_invocation(root, command, &Invocation::default(), settings)
}

pub(super) fn run_invocation(
    root: &Path,
    command: &str,
    invocation: &Invocation<'_>,
    settings: &CommandSettings,
) -> Result<BashOutcome, ToolError> {
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
        Err(ProcessError::Timeout) => Err(ToolError::Timeout(settings.timeout)),
        Err(ProcessError::Cancelled) => Err(ToolError::Cancelled),
        Err(ProcessError::Sandbox(e)) => Err(ToolError::Sandbox(e.to_string())),
        Err(ProcessError::Spawn(e)) => Err(ToolError::Io(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash(command: &str) -> Result<String, String> {
        let dir = tempfile::tempdir().unwrap();
        run_bash(dir.path(), command, Duration::from_secs(30)).map_err(|e| e.to_string())
    }

    #[test]
    fn stdout_then_stderr_trimmed() {
        assert_eq!(bash("echo err >&2; echo out").unwrap(), "out\nerr");
        assert_eq!(bash("true").unwrap(), "(no output)");
        assert_eq!(bash("printf '  x  \\n\\n'").unwrap(), "x");
    }

    #[test]
    fn output_is_read_in_text_mode() {
        assert_eq!(bash("printf 'a\\r\\nb\\rc\\n\\034'").unwrap(), "a\nb\nc");
    }

    #[test]
    fn runs_in_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let out = run_bash(dir.path(), "pwd", Duration::from_secs(30)).unwrap();
        assert_eq!(
            Path::new(&out).canonicalize().unwrap(),
            dir.path().canonicalize().unwrap()
        );
    }

    #[test]
    fn dangerous_commands_are_blocked() {
        for cmd in [
            "sudo ls",
            "rm -rf /",
            "echo x > /dev/null",
            "reboot",
            "shutdown now",
        ] {
            assert_eq!(bash(cmd).unwrap_err(), "Dangerous command blocked");
        }
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let err = run_bash(
            dir.path(),
            "sleep 30 & sleep 30; echo never",
            Duration::from_millis(300),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "Timeout (0s)");
        assert_eq!(
            ToolError::Timeout(Duration::from_secs(120)).to_string(),
            "Timeout (120s)"
        );
    }

    #[test]
    fn huge_output_is_capped_while_read() {
        // 64 MiB of output: kept bounded, cut to 50000 characters.
        let out = bash("head -c 67108864 /dev/zero | tr '\\0' 'a'").unwrap();
        assert_eq!(out.chars().count(), MAX_OUTPUT_CHARS);
    }

    #[test]
    fn background_jobs_do_not_hang_the_call() {
        assert_eq!(bash("(sleep 60 &) ; echo done").unwrap(), "done");
    }
}
