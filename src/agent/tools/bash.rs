//! The `bash` tool: `sh -c COMMAND` in the workspace, run by
//! [`crate::sandbox::command`] (sandboxed, bounded, cancellable; read-only
//! commands over in-memory files answered from a mirror or a cache).
//!
//! The tool's result is stdout then stderr, trimmed, cut at 50000
//! characters, `(no output)` when empty.
//!
//! The deny-list below is the reference's: a speed bump against careless
//! commands, not a security boundary (`rm -r -f /` passes it); the sandbox
//! is the boundary.

use std::path::Path;
use std::time::Duration;

use super::{MAX_OUTPUT_CHARS, ToolError, cut_chars};
use crate::sandbox::command::{BashOutcome, CommandSettings, run_command_in, run_command_with};
use crate::sandbox::workspace::Workspace;

/// Substrings that block a command, as in the reference.
const DANGEROUS: [&str; 5] = ["rm -rf /", "sudo", "shutdown", "reboot", "> /dev/"];

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

/// Runs `command` as the bash tool in a run's workspace.
pub fn run_bash_in(
    workspace: &Workspace,
    command: &str,
    settings: &CommandSettings,
) -> Result<String, ToolError> {
    refuse_dangerous(command)?;
    Ok(tool_result(&run_command_in(workspace, command, settings)?))
}

fn refuse_dangerous(command: &str) -> Result<(), ToolError> {
    if DANGEROUS.iter().any(|d| command.contains(d)) {
        return Err(ToolError::DangerousCommand);
    }
    Ok(())
}

/// The bash tool's result text for an outcome.
fn tool_result(outcome: &BashOutcome) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::command::CommandError;

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
            ToolError::Command(CommandError::Timeout(Duration::from_secs(120))).to_string(),
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
