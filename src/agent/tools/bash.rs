//! The `bash` tool: `sh -c COMMAND` in the workspace.
//!
//! The command runs in its own process group so a timeout kills everything
//! it started, not just the shell. Output is read by two threads that keep
//! at most [`CAPTURE_LIMIT`] bytes per stream and drain (discard) the rest,
//! so a command printing gigabytes cannot exhaust memory. The result is
//! stdout then stderr, trimmed, cut at 50000 characters, `(no output)` when
//! empty.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use super::{MAX_OUTPUT_CHARS, ToolError, cut_chars};

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

/// Runs `command`; see the module doc for the result.
pub fn run_bash(root: &Path, command: &str, timeout: Duration) -> Result<String, ToolError> {
    if DANGEROUS.iter().any(|d| command.contains(d)) {
        return Err(ToolError::DangerousCommand);
    }
    let outcome = run_command(root, command, timeout)?;
    let mut text = String::from_utf8_lossy(&outcome.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&outcome.stderr));
    // As the reference reads them: text mode (universal newlines), then
    // Python's `strip()`, whose white space also covers \x1c-\x1f.
    let text = super::files::universal_newlines(text);
    let trimmed = text.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c));
    if trimmed.is_empty() {
        Ok("(no output)".to_string())
    } else {
        Ok(cut_chars(trimmed, MAX_OUTPUT_CHARS).to_string())
    }
}

/// Runs `sh -c command` in `root` with no command filter (checks use this
/// for the scenario author's own commands), capturing capped output.
pub fn run_command(
    root: &Path,
    command: &str,
    timeout: Duration,
) -> Result<BashOutcome, ToolError> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let group = child.id() as libc::pid_t;
    let stdout = child.stdout.take().map(capture);
    let stderr = child.stderr.take().map(capture);

    let (done_tx, done_rx) = mpsc::channel();
    let waiter = thread::spawn(move || {
        let status = child.wait();
        let _ = done_tx.send(());
        status
    });
    let timed_out = wait_or_cancel(&done_rx, timeout);
    // Kill the whole group either way: on timeout to stop the command, on a
    // normal exit to stop background jobs that would hold the pipes open.
    kill_group(group);
    let exit_code = waiter
        .join()
        .ok()
        .and_then(Result::ok)
        .and_then(|status| status.code());
    let stdout = stdout.map(join_capture).unwrap_or_default();
    let stderr = stderr.map(join_capture).unwrap_or_default();
    if timed_out {
        return Err(ToolError::Timeout(timeout));
    }
    Ok(BashOutcome {
        exit_code,
        stdout,
        stderr,
    })
}

/// Waits for the command to finish; `true` when the timeout passed or a
/// cancellation was requested first.
fn wait_or_cancel(done: &mpsc::Receiver<()>, timeout: Duration) -> bool {
    const SLICE: Duration = Duration::from_millis(100);
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() || crate::cancel::requested() {
            return true;
        }
        match done.recv_timeout(left.min(SLICE)) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => return false,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
}

fn kill_group(group: libc::pid_t) {
    // SAFETY: `kill` has no memory-safety preconditions; a negative pid
    // addresses the process group we created for this command only.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

fn capture<R: Read + Send + 'static>(mut stream: R) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = CAPTURE_LIMIT.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
        kept
    })
}

fn join_capture(handle: thread::JoinHandle<Vec<u8>>) -> Vec<u8> {
    handle.join().unwrap_or_default()
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
