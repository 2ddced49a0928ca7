//! One contained process tree: `/bin/sh -c COMMAND` in a workspace, with
//! its output captured, a deadline, cancellation, the Landlock sandbox, and
//! a guarantee that nothing it started outlives the call.
//!
//! How the tree is contained. The shell is started as PID 1 of a new PID
//! namespace (`clone(CLONE_NEWPID)`; plus `CLONE_NEWUSER` with the caller's
//! own uid and gid mapped when the caller may not create one alone). When
//! PID 1 exits or is killed, the kernel kills every other process of the
//! namespace, whatever session or process group it moved to, before the
//! exit is reported; so once the shell is seen to exit, nothing of the call
//! is left and the output pipes are closed. Where namespaces are not
//! available the shell leads its own process group instead: the group is
//! killed when the shell exits, and any process still holding the output
//! pipes (a double-forked daemon) is found through `/proc` and killed. That
//! fallback is announced once on stderr; a daemon that closed the pipes and
//! left the group can survive it.
//!
//! How it is started cheaply. The child is created with
//! `CLONE_VM | CLONE_VFORK` (what `posix_spawn` does) on a small stack of
//! its own, so no page tables are copied; it runs only raw system calls on
//! data prepared by the parent (stdio, working folder, process group,
//! Landlock, default signal handlers) and then `execve("/bin/sh")`: no
//! `PATH` search. `CLONE_PIDFD` gives a descriptor that becomes readable
//! when the shell exits, so one thread waits for output, exit, deadline and
//! cancellation in a single `poll` loop.
//!
//! Output is read from two pipes (stdout, stderr), keeping at most
//! `capture_limit` bytes of each and discarding the rest while reading, so
//! a command printing gigabytes neither blocks nor exhausts memory. The
//! deadline covers the reading too.
//!
//! The same mechanism runs external agents ([`run_invocation`]): an
//! [`Invocation`] adds positional arguments, a per-call environment (given
//! whole, so a caller can leave out `ANTHROPIC_*` / `OPENAI_*`), bytes for
//! stdin (written from the poll loop, then closed), a log file that gets
//! every byte of stdout and stderr as it is read, and an early-stop request
//! (SIGTERM to PID 1 and its process group, SIGKILL after a grace).
//!
//! The rooms: this file holds what callers see (the limits, the
//! invocation, the output, the errors) and prepares a call; `spawn` makes
//! its pipes and starts it, `child` is the cloned child up to `execve`,
//! `streams` the stdin feed and the output captures, `wait` the poll loop
//! and the ending of the tree, `holders` the fallback's hunt for processes
//! still holding the pipes.

mod child;
mod holders;
mod spawn;
mod streams;
mod wait;

use std::collections::BTreeMap;
use std::ffi::{CStr, CString, OsString, c_int};
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use self::child::{SpawnFailure, Stage, probe};
pub use self::holders::other_processes;
use self::spawn::spawn;
use super::landlock::{self, Ruleset, SandboxError};
use crate::cancel::CancelToken;

/// How the processes of a call are kept together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Containment {
    /// The shell is PID 1 of a new PID namespace.
    PidNamespace,
    /// The same inside a new user namespace (callers without privileges).
    UserPidNamespace,
    /// The shell leads a process group; pipe holders are hunted in `/proc`.
    ProcessGroup,
}

impl Containment {
    fn clone_flags(self) -> c_int {
        match self {
            Self::PidNamespace => libc::CLONE_NEWPID,
            Self::UserPidNamespace => libc::CLONE_NEWUSER | libc::CLONE_NEWPID,
            Self::ProcessGroup => 0,
        }
    }
}

/// What a call may do and how long it may take.
#[derive(Debug, Clone)]
pub struct Limits {
    pub timeout: Duration,
    /// Bytes kept per stream.
    pub capture_limit: usize,
    pub cancel: CancelToken,
    /// Apply the Landlock sandbox (where the kernel has it).
    pub sandbox: bool,
    /// Force a containment (tests of the fallback); `None` = the best this
    /// machine offers.
    pub containment: Option<Containment>,
}

/// What a call needs beyond `sh -c COMMAND` in a folder (external agents).
/// The default is what [`run`] uses.
#[derive(Default)]
pub struct Invocation<'a> {
    /// `$0`, `$1`, ... of the command (`sh -c COMMAND ARGS...`).
    pub args: Vec<String>,
    /// The whole environment of the command; `None` = ours.
    pub env: Option<BTreeMap<OsString, OsString>>,
    /// Written to stdin, which is then closed; `None` (or empty) = stdin is
    /// `/dev/null`.
    pub stdin: Option<Vec<u8>>,
    /// How many bytes of `stdin` may be written by now, asked between
    /// reads (`None`: all at once). Lets a caller hand a conversation's
    /// messages over one at a time, each once the agent has answered the
    /// one before; stdin closes when every byte is written.
    pub stdin_release: Option<&'a dyn Fn() -> usize>,
    /// Gets every byte of stdout and stderr, in the order they are read
    /// (the capture keeps only `capture_limit` of each).
    pub log: Option<&'a File>,
    /// Asked between reads; once it says yes, the tree gets SIGTERM and,
    /// `term_grace` later, SIGKILL. The call then returns its output with
    /// [`Output::stopped`] set.
    pub stop_requested: Option<&'a dyn Fn() -> bool>,
    pub term_grace: Duration,
    /// A Landlock ruleset of the caller's own (a sandboxed external agent),
    /// applied instead of the workspace one whatever `Limits::sandbox` says.
    pub ruleset: Option<&'a Ruleset>,
    /// Give the command a `/proc` of its own PID namespace (a new mount
    /// namespace with `proc` mounted on `/proc`), so it sees no process
    /// but its own: not agent-eval's `/proc/<pid>/environ`, not another
    /// run's. Only with a PID namespace; where the kernel refuses the mount
    /// it is said once on stderr and the command sees the machine's.
    pub own_proc: bool,
    /// A party that talks with the command over stdin and stdout as they
    /// go (an ACP client): it hears stdout (which then does not go to the
    /// log) and says what stdin gets next; stdin stays open until the
    /// command exits. Replaces `stdin` and `stdin_release`.
    pub conversation: Option<&'a dyn Conversation>,
}

/// The other side of a conversation over the command's stdio (see
/// [`Invocation::conversation`]). Called from the poll loop's thread.
pub trait Conversation {
    /// Bytes the command wrote on its stdout, as they were read.
    fn heard(&self, bytes: &[u8]);
    /// Bytes to write to its stdin next (appended after what waits);
    /// `unread` bytes said before still wait for the command to read
    /// them (a conversation bounds what it queues).
    fn to_say(&self, unread: usize) -> Vec<u8>;
}

/// What a finished command produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// The exit code; `None` when a signal ended the shell.
    pub exit_code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// The command was ended on an early-stop request.
    pub stopped: bool,
}

/// Why a call produced no [`Output`].
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The deadline passed; the tree was killed.
    #[error("timed out")]
    Timeout,
    /// The token was cancelled; the tree was killed.
    #[error("cancelled")]
    Cancelled,
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The command could not be started (a NUL byte in it, no `/bin/sh`,
    /// no processes left, ...).
    #[error("{0}")]
    Spawn(io::Error),
}

/// The containment this machine offers, probed once (by cloning a child
/// that exits at once) and announced on stderr when it is the fallback.
pub fn containment() -> Containment {
    static BEST: OnceLock<Containment> = OnceLock::new();
    *BEST.get_or_init(|| {
        let mut last_error = None;
        for mode in [Containment::PidNamespace, Containment::UserPidNamespace] {
            match probe(mode) {
                Ok(()) => return mode,
                Err(e) => last_error = Some(e),
            }
        }
        let reason = last_error.map_or_else(String::new, |e| format!(" ({e})"));
        eprintln!(
            "warning: PID namespaces are unavailable{reason}; a command's processes are \
             stopped through its process group and the pipes they hold, and a daemon that \
             leaves both can outlive the call"
        );
        Containment::ProcessGroup
    })
}

/// Runs `sh -c command` in `root`; see the module doc.
pub fn run(root: &Path, command: &str, limits: &Limits) -> Result<Output, ProcessError> {
    run_invocation(root, command, &Invocation::default(), limits)
}

/// Runs `sh -c command ARGS...` in `root` as `invocation` says.
pub fn run_invocation(
    root: &Path,
    command: &str,
    invocation: &Invocation<'_>,
    limits: &Limits,
) -> Result<Output, ProcessError> {
    if limits.cancel.is_cancelled() {
        return Err(ProcessError::Cancelled);
    }
    let nul = |e: std::ffi::NulError| ProcessError::Spawn(e.into());
    let command = CString::new(command).map_err(nul)?;
    let cwd = CString::new(root.as_os_str().as_bytes()).map_err(nul)?;
    let args = invocation
        .args
        .iter()
        .map(|a| CString::new(a.as_str()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(nul)?;
    let env = match &invocation.env {
        None => None,
        Some(vars) => Some(
            vars.iter()
                .map(|(k, v)| {
                    let mut entry = k.as_bytes().to_vec();
                    entry.push(b'=');
                    entry.extend_from_slice(v.as_bytes());
                    CString::new(entry)
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(nul)?,
        ),
    };
    let program = Program {
        command: &command,
        args: &args,
        env: env.as_deref(),
        stdin: match invocation.conversation {
            Some(_) => Some(&[][..]),
            None => invocation.stdin.as_deref().filter(|b| !b.is_empty()),
        },
        open_stdin: invocation.conversation.is_some(),
    };
    let ruleset = if invocation.ruleset.is_some() {
        None
    } else if limits.sandbox {
        landlock::ruleset_for(root)?
    } else {
        None
    };
    let ruleset = invocation.ruleset.or(ruleset.as_deref());
    let mode = limits.containment.unwrap_or_else(containment);
    let started = Instant::now();
    let own_proc = invocation.own_proc && mode != Containment::ProcessGroup && own_proc_works();
    let child = match spawn(mode, &program, &cwd, ruleset, own_proc) {
        // Namespaces can run out (max_*_namespaces) while others are busy:
        // this call falls back, the next one tries again.
        Err(SpawnFailure::Clone(e)) if mode != Containment::ProcessGroup && transient(&e) => {
            spawn(Containment::ProcessGroup, &program, &cwd, ruleset, false)
        }
        Err(SpawnFailure::Child {
            stage: Stage::OwnProc,
            error,
        }) => {
            own_proc_refused(&error);
            spawn(mode, &program, &cwd, ruleset, false)
        }
        other => other,
    }
    .map_err(SpawnFailure::into_error)?;
    // A timeout too large to add is as good as none (a year is plenty).
    let deadline = started
        .checked_add(limits.timeout)
        .unwrap_or_else(|| started + Duration::from_secs(365 * 24 * 3600));
    child.wait(deadline, limits, invocation)
}

/// The prepared program of one call.
pub(super) struct Program<'a> {
    pub(super) command: &'a CStr,
    pub(super) args: &'a [CString],
    /// `KEY=VALUE` entries; `None` = the caller's environment.
    pub(super) env: Option<&'a [CString]>,
    pub(super) stdin: Option<&'a [u8]>,
    /// stdin stays open once its bytes are written (more may come).
    pub(super) open_stdin: bool,
}

/// Whether a `/proc` of its own can still be mounted for a command (the
/// kernel has not refused it yet in this process).
static OWN_PROC_REFUSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn own_proc_works() -> bool {
    !OWN_PROC_REFUSED.load(Ordering::Relaxed)
}

/// Remembers that the kernel refused a command its own `/proc`, saying so
/// once.
fn own_proc_refused(error: &io::Error) {
    if !OWN_PROC_REFUSED.swap(true, Ordering::Relaxed) {
        eprintln!(
            "warning: cannot mount a /proc of its own for a sandboxed agent ({error}); \
             it sees the machine's /proc"
        );
    }
}

fn transient(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENOSPC | libc::EUSERS | libc::ENOMEM | libc::EAGAIN)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_a_pid_namespace_the_shell_is_pid_1() {
        let mode = containment();
        eprintln!("containment here: {mode:?}");
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits {
            timeout: Duration::from_secs(60),
            capture_limit: 1000,
            cancel: CancelToken::new(),
            sandbox: false,
            containment: None,
        };
        let output = run(dir.path(), "echo $$", &limits).unwrap();
        let pid = String::from_utf8(output.stdout).unwrap();
        if mode == Containment::ProcessGroup {
            assert_ne!(pid.trim(), "1");
        } else {
            assert_eq!(pid.trim(), "1");
        }
    }
}
