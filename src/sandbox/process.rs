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

use std::collections::BTreeMap;
use std::ffi::{CStr, CString, OsString, c_char, c_int, c_void};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use super::landlock::{self, Ruleset, SandboxError};
use crate::cancel::CancelToken;

/// How often a running command looks at its cancellation token.
const CANCEL_SLICE: Duration = Duration::from_millis(50);

/// How long, after killing a tree, the call waits for its pipes to close
/// and its shell to be reaped before giving up on them (never a hang).
const KILL_GRACE: Duration = Duration::from_secs(2);

/// Stack of the cloned child until it execs; it runs a few system calls.
const CHILD_STACK: usize = 64 * 1024;

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
struct Program<'a> {
    command: &'a CStr,
    args: &'a [CString],
    /// `KEY=VALUE` entries; `None` = the caller's environment.
    env: Option<&'a [CString]>,
    stdin: Option<&'a [u8]>,
    /// stdin stays open once its bytes are written (more may come).
    open_stdin: bool,
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

/// A started shell and the ends of its pipes.
struct Child {
    pid: libc::pid_t,
    pidfd: OwnedFd,
    mode: Containment,
    stdout: Capture,
    stderr: Capture,
    stdin: Feed,
}

/// The bytes still to write to the command's stdin, and the pipe for them.
struct Feed {
    fd: Option<OwnedFd>,
    bytes: Vec<u8>,
    written: usize,
    /// Kept open when everything is written (a conversation says more).
    open_ended: bool,
}

impl Feed {
    /// Whether bytes released by `release` wait to be written.
    fn waiting(&self, release: Option<&dyn Fn() -> usize>) -> bool {
        self.fd.is_some() && self.written < self.released(release)
    }

    fn released(&self, release: Option<&dyn Fn() -> usize>) -> usize {
        release.map_or(self.bytes.len(), |released| {
            released().min(self.bytes.len())
        })
    }

    /// One non-blocking write (the pipe was reported ready) of what
    /// `release` allows; closes the pipe once everything is written or the
    /// reader is gone.
    fn write_once(&mut self, release: Option<&dyn Fn() -> usize>) {
        let upto = self.released(release);
        let Some(fd) = &self.fd else { return };
        if self.written >= self.bytes.len() {
            if !self.open_ended {
                self.fd = None;
            }
            return;
        }
        let rest = self.bytes.get(self.written..upto).unwrap_or_default();
        if rest.is_empty() {
            // Nothing released yet: the caller's next message waits.
            return;
        }
        // SAFETY: writes from `rest`, valid for its length, to our pipe.
        let n = unsafe { libc::write(fd.as_raw_fd(), rest.as_ptr().cast(), rest.len()) };
        match usize::try_from(n) {
            Ok(n) => {
                self.written += n;
                if self.written >= self.bytes.len() && !self.open_ended {
                    self.fd = None;
                }
            }
            Err(_) => {
                let e = io::Error::last_os_error().raw_os_error();
                if !matches!(e, Some(libc::EINTR | libc::EAGAIN)) {
                    // EPIPE: the command stopped reading; that is its call.
                    self.fd = None;
                }
            }
        }
    }
}

/// Why the child did not start.
enum SpawnFailure {
    Clone(io::Error),
    Setup(io::Error),
    Child { stage: Stage, error: io::Error },
}

impl SpawnFailure {
    fn into_error(self) -> ProcessError {
        match self {
            Self::Clone(e) | Self::Setup(e) => ProcessError::Spawn(e),
            Self::Child { stage, error } => ProcessError::Spawn(io::Error::new(
                error.kind(),
                format!("{}: {error}", stage.describe()),
            )),
        }
    }
}

/// Where a child failed before exec; reported back through shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    IdMaps = 1,
    Stdio = 2,
    Chdir = 3,
    ProcessGroup = 4,
    NoNewPrivs = 5,
    Landlock = 6,
    Exec = 7,
    OwnProc = 8,
}

impl Stage {
    fn from_code(code: i64) -> Self {
        match code {
            1 => Self::IdMaps,
            2 => Self::Stdio,
            3 => Self::Chdir,
            4 => Self::ProcessGroup,
            5 => Self::NoNewPrivs,
            6 => Self::Landlock,
            8 => Self::OwnProc,
            _ => Self::Exec,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Self::IdMaps => "cannot map the user namespace",
            Self::Stdio => "cannot set up the command's standard streams",
            Self::Chdir => "cannot enter the workspace",
            Self::ProcessGroup => "cannot give the command its own process group",
            Self::NoNewPrivs => "cannot set no_new_privs",
            Self::Landlock => "cannot apply the Landlock sandbox",
            Self::Exec => "cannot run /bin/sh",
            Self::OwnProc => "cannot mount a /proc of its own",
        }
    }
}

/// Everything the cloned child needs, prepared by the parent: the child
/// may not allocate or take locks (it shares the parent's memory and runs
/// while other threads of the parent hold them).
struct ChildPlan {
    path: *const c_char,
    argv: *const *const c_char,
    envp: *const *const c_char,
    cwd: *const c_char,
    stdin: RawFd,
    stdout: RawFd,
    stderr: RawFd,
    landlock: RawFd,
    /// `(setgroups, uid_map, gid_map)` contents, for a user namespace.
    id_maps: Option<[(&'static CStr, *const u8, usize); 3]>,
    /// `false`: exit 0 right after the namespace setup (a probe).
    exec: bool,
    /// Mount a `/proc` of the new PID namespace in a new mount namespace.
    own_proc: bool,
    /// `stage << 32 | errno` of the first failure; 0 = none.
    failure: AtomicI64,
}

/// Records the failure of `stage` (errno from the last call) and exits.
///
/// # Safety
/// Only in the cloned child.
unsafe fn child_fail(plan: &ChildPlan, stage: Stage) -> ! {
    // SAFETY: errno lives in this thread's TLS, shared with the suspended
    // parent thread, which is what posix_spawn relies on too.
    let errno = unsafe { *libc::__errno_location() };
    plan.failure.store(
        ((stage as i64) << 32) | i64::from(errno.max(1)),
        Ordering::SeqCst,
    );
    // SAFETY: _exit is async-signal-safe and ends only this child.
    unsafe { libc::_exit(127) }
}

/// Writes `len` bytes at `data` to the file at `path` (a /proc file).
///
/// # Safety
/// Only in the cloned child; `data` valid for `len` bytes.
unsafe fn child_write_file(path: &CStr, data: *const u8, len: usize) -> bool {
    // SAFETY: plain system calls on parent-prepared buffers.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let written = libc::write(fd, data.cast::<c_void>(), len);
        libc::close(fd);
        usize::try_from(written).is_ok_and(|n| n == len)
    }
}

/// The cloned child: set up, then exec. Only raw system calls on the
/// parent's prepared data (see [`ChildPlan`]).
extern "C" fn child_main(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the `ChildPlan` the parent keeps alive (and does not
    // touch) until this child has exec'd or exited: CLONE_VFORK suspends it.
    let plan = unsafe { &*arg.cast::<ChildPlan>() };
    // SAFETY: every call below is a thin system-call wrapper on valid
    // pointers; none allocates or locks.
    unsafe {
        if let Some(maps) = &plan.id_maps {
            for (path, data, len) in maps {
                if !child_write_file(path, *data, *len) {
                    child_fail(plan, Stage::IdMaps);
                }
            }
        }
        if !plan.exec {
            libc::_exit(0);
        }
        if plan.own_proc {
            // Private first: the mount must not propagate back to the
            // namespace we were copied from.
            let none = std::ptr::null::<c_char>();
            if libc::mount(
                none,
                c"/".as_ptr(),
                none,
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) < 0
                || libc::mount(
                    c"proc".as_ptr(),
                    c"/proc".as_ptr(),
                    c"proc".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    std::ptr::null(),
                ) < 0
            {
                child_fail(plan, Stage::OwnProc);
            }
        }
        // The parent keeps these descriptors above 2, so none is clobbered
        // by another's dup2; dup2 clears close-on-exec on the copies.
        for (fd, target) in [(plan.stdin, 0), (plan.stdout, 1), (plan.stderr, 2)] {
            if libc::dup2(fd, target) < 0 {
                child_fail(plan, Stage::Stdio);
            }
        }
        if libc::chdir(plan.cwd) < 0 {
            child_fail(plan, Stage::Chdir);
        }
        // Its own group: `kill 0` inside reaches only the call's processes,
        // and the fallback can kill the group.
        if libc::setpgid(0, 0) < 0 {
            child_fail(plan, Stage::ProcessGroup);
        }
        if plan.landlock >= 0 {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 {
                child_fail(plan, Stage::NoNewPrivs);
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, plan.landlock, 0) < 0 {
                child_fail(plan, Stage::Landlock);
            }
        }
        // Handlers of the parent must not run here (shared memory), and the
        // shell starts with default dispositions (SIGPIPE is ignored in
        // Rust programs) and an empty mask, as with std's Command.
        for signal in 1..=64 {
            if signal == libc::SIGKILL || signal == libc::SIGSTOP {
                continue;
            }
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut old) != 0 {
                continue;
            }
            if signal == libc::SIGPIPE || old.sa_sigaction > libc::SIG_IGN {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, std::ptr::null_mut());
            }
        }
        let empty: libc::sigset_t = std::mem::zeroed();
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK,
            &empty as *const libc::sigset_t,
            std::ptr::null_mut::<libc::sigset_t>(),
            8usize,
        );
        libc::execve(plan.path, plan.argv, plan.envp);
        child_fail(plan, Stage::Exec)
    }
}

/// Blocks every signal on this thread until dropped: a handler must not
/// run in the child while it shares the parent's memory.
struct SignalsBlocked(libc::sigset_t);

impl SignalsBlocked {
    fn new() -> Self {
        // SAFETY: sigset_t is plain data; the raw call blocks all signals
        // (the kernel ignores SIGKILL and SIGSTOP) and saves the old mask.
        unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            std::ptr::write_bytes(&mut all, 0xff, 1);
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::syscall(
                libc::SYS_rt_sigprocmask,
                libc::SIG_SETMASK,
                &all as *const libc::sigset_t,
                &mut old as *mut libc::sigset_t,
                8usize,
            );
            Self(old)
        }
    }
}

impl Drop for SignalsBlocked {
    fn drop(&mut self) {
        // SAFETY: restores the mask saved in `new`.
        unsafe {
            libc::syscall(
                libc::SYS_rt_sigprocmask,
                libc::SIG_SETMASK,
                &self.0 as *const libc::sigset_t,
                std::ptr::null_mut::<libc::sigset_t>(),
                8usize,
            );
        }
    }
}

/// `/dev/null`, opened once for every child's stdin.
fn dev_null() -> io::Result<RawFd> {
    static NULL: OnceLock<io::Result<OwnedFd>> = OnceLock::new();
    match NULL.get_or_init(|| {
        let file = std::fs::File::open("/dev/null")?;
        above_stdio(OwnedFd::from(file))
    }) {
        Ok(fd) => Ok(fd.as_raw_fd()),
        Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
    }
}

/// Moves `fd` above 0..=2 (only if a standard stream of ours was closed),
/// so the child's dup2 onto 0, 1 and 2 never overwrites another of them.
fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor that we own.
    let moved = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
    if moved < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `moved` is a fresh descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(moved) })
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as c_int; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both are fresh descriptors owned by nobody else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((above_stdio(read)?, above_stdio(write)?))
}

/// The id maps of a user namespace that maps the caller to itself.
fn id_maps() -> &'static [Vec<u8>; 3] {
    static MAPS: OnceLock<[Vec<u8>; 3]> = OnceLock::new();
    MAPS.get_or_init(|| {
        // SAFETY: getuid/getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        [
            b"deny".to_vec(),
            format!("{uid} {uid} 1").into_bytes(),
            format!("{gid} {gid} 1").into_bytes(),
        ]
    })
}

fn probe(mode: Containment) -> io::Result<()> {
    let plan = ChildPlan::new(mode, false);
    let (pid, pidfd) = clone_child(mode, &plan).map_err(|e| match e {
        SpawnFailure::Clone(e) | SpawnFailure::Setup(e) | SpawnFailure::Child { error: e, .. } => e,
    })?;
    drop(pidfd);
    match reap(pid) {
        Some(0) => Ok(()),
        _ => Err(io::Error::other("the probe child failed")),
    }
}

impl ChildPlan {
    /// A plan with no program: set up the namespaces, then exit (`exec`
    /// false) or fill in the rest before cloning.
    fn new(mode: Containment, exec: bool) -> Self {
        let id_maps = (mode == Containment::UserPidNamespace).then(|| {
            let [setgroups, uid, gid] = id_maps();
            [
                (c"/proc/self/setgroups", setgroups.as_ptr(), setgroups.len()),
                (c"/proc/self/uid_map", uid.as_ptr(), uid.len()),
                (c"/proc/self/gid_map", gid.as_ptr(), gid.len()),
            ]
        });
        ChildPlan {
            path: std::ptr::null(),
            argv: std::ptr::null(),
            envp: std::ptr::null(),
            cwd: std::ptr::null(),
            stdin: -1,
            stdout: -1,
            stderr: -1,
            landlock: -1,
            id_maps,
            exec,
            own_proc: false,
            failure: AtomicI64::new(0),
        }
    }
}

/// Clones the child of `plan`; returns once it has exec'd (or exited).
fn clone_child(
    mode: Containment,
    plan: &ChildPlan,
) -> Result<(libc::pid_t, OwnedFd), SpawnFailure> {
    let new_mounts = if plan.own_proc { libc::CLONE_NEWNS } else { 0 };
    let mut stack: Vec<u8> = Vec::with_capacity(CHILD_STACK);
    // The stack grows down from its 16-byte aligned top.
    let top = (stack.as_mut_ptr() as usize + CHILD_STACK) & !15;
    let flags = libc::CLONE_VM
        | libc::CLONE_VFORK
        | libc::CLONE_PIDFD
        | libc::SIGCHLD
        | mode.clone_flags()
        | new_mounts;
    let mut pidfd: c_int = -1;
    let pid = {
        let _blocked = SignalsBlocked::new();
        // SAFETY: the child runs `child_main` on its own stack with a plan
        // that outlives it (CLONE_VFORK: we resume only after its exec or
        // exit); CLONE_PIDFD stores the pidfd in `pidfd`.
        unsafe {
            libc::clone(
                child_main,
                top as *mut c_void,
                flags,
                (plan as *const ChildPlan).cast_mut().cast::<c_void>(),
                &mut pidfd as *mut c_int,
            )
        }
    };
    if pid < 0 {
        return Err(SpawnFailure::Clone(io::Error::last_os_error()));
    }
    drop(stack);
    // SAFETY: CLONE_PIDFD gave us this descriptor.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    let failure = plan.failure.load(Ordering::SeqCst);
    if failure != 0 {
        reap(pid);
        let errno = (failure & 0xffff_ffff) as i32;
        return Err(SpawnFailure::Child {
            stage: Stage::from_code(failure >> 32),
            error: io::Error::from_raw_os_error(errno),
        });
    }
    Ok((pid, pidfd))
}

/// Waits for `pid` (blocking) and returns its exit code.
fn reap(pid: libc::pid_t) -> Option<i32> {
    let mut status: c_int = 0;
    loop {
        // SAFETY: waitpid writes the status of our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            return libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
        }
        if r < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        return None;
    }
}

fn spawn(
    mode: Containment,
    program: &Program<'_>,
    cwd: &CStr,
    ruleset: Option<&Ruleset>,
    own_proc: bool,
) -> Result<Child, SpawnFailure> {
    let (out_read, out_write) = pipe().map_err(SpawnFailure::Setup)?;
    let (err_read, err_write) = pipe().map_err(SpawnFailure::Setup)?;
    let stdin_pipe = match program.stdin {
        Some(_) => {
            let (read, write) = pipe().map_err(SpawnFailure::Setup)?;
            // The poll loop writes; a full pipe must not block it.
            // SAFETY: fcntl on a descriptor we own.
            if unsafe { libc::fcntl(write.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) } < 0 {
                return Err(SpawnFailure::Setup(io::Error::last_os_error()));
            }
            Some((read, write))
        }
        None => None,
    };
    let mut argv: Vec<*const c_char> = vec![c"sh".as_ptr(), c"-c".as_ptr()];
    argv.push(program.command.as_ptr());
    argv.extend(program.args.iter().map(|a| a.as_ptr()));
    argv.push(std::ptr::null());
    let envp: Option<Vec<*const c_char>> = program.env.map(|vars| {
        vars.iter()
            .map(|v| v.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect()
    });
    let mut plan = ChildPlan::new(mode, true);
    plan.own_proc = own_proc;
    plan.path = c"/bin/sh".as_ptr();
    plan.argv = argv.as_ptr();
    plan.envp = match &envp {
        Some(envp) => envp.as_ptr(),
        // SAFETY: `environ` is read, not written; the environment only
        // changes through the unsafe `set_var`, whose callers promise that
        // no other thread is running meanwhile.
        None => unsafe { libc::environ }
            .cast_const()
            .cast::<*const c_char>(),
    };
    plan.cwd = cwd.as_ptr();
    plan.stdin = match &stdin_pipe {
        Some((read, _)) => read.as_raw_fd(),
        None => dev_null().map_err(SpawnFailure::Setup)?,
    };
    plan.stdout = out_write.as_raw_fd();
    plan.stderr = err_write.as_raw_fd();
    plan.landlock = ruleset.map_or(-1, Ruleset::raw_fd);
    let (pid, pidfd) = clone_child(mode, &plan)?;
    drop((out_write, err_write));
    let stdin = match stdin_pipe {
        Some((read, write)) => {
            drop(read);
            Feed {
                fd: Some(write),
                bytes: program.stdin.unwrap_or_default().to_vec(),
                written: 0,
                open_ended: program.open_stdin,
            }
        }
        None => Feed {
            fd: None,
            bytes: Vec::new(),
            written: 0,
            open_ended: false,
        },
    };
    Ok(Child {
        pid,
        pidfd,
        mode,
        stdout: Capture::new(out_read),
        stderr: Capture::new(err_read),
        stdin,
    })
}

/// One output pipe: what was kept of it, and whether it is still open.
struct Capture {
    fd: Option<OwnedFd>,
    kept: Vec<u8>,
}

impl Capture {
    fn new(fd: OwnedFd) -> Self {
        Self {
            fd: Some(fd),
            kept: Vec::new(),
        }
    }

    fn is_open(&self) -> bool {
        self.fd.is_some()
    }

    /// One read (the pipe was reported ready); closes it on end of file.
    /// What is read also goes to `log` (a failing log is dropped, the
    /// command goes on).
    fn read_once(
        &mut self,
        scratch: &mut [u8],
        limit: usize,
        log: &mut Option<&File>,
        listener: Option<&dyn Conversation>,
    ) {
        let Some(fd) = &self.fd else { return };
        // SAFETY: reads into `scratch`, which is valid for its length.
        let n = unsafe { libc::read(fd.as_raw_fd(), scratch.as_mut_ptr().cast(), scratch.len()) };
        match usize::try_from(n) {
            Ok(0) => self.fd = None,
            Ok(n) => {
                let read = scratch.get(..n).unwrap_or_default();
                if let Some(listener) = listener {
                    listener.heard(read);
                } else if let Some(file) = log
                    && file.write_all(read).is_err()
                {
                    *log = None;
                }
                let room = limit.saturating_sub(self.kept.len());
                self.kept.extend_from_slice(&read[..n.min(room)]);
            }
            Err(_) => {
                let e = io::Error::last_os_error().raw_os_error();
                if !matches!(e, Some(libc::EINTR | libc::EAGAIN)) {
                    self.fd = None;
                }
            }
        }
    }

    fn inode(&self) -> Option<u64> {
        let fd = self.fd.as_ref()?;
        // SAFETY: fstat fills `stat` for a descriptor we own.
        unsafe {
            let mut stat: libc::stat = std::mem::zeroed();
            (libc::fstat(fd.as_raw_fd(), &mut stat) == 0).then_some(stat.st_ino)
        }
    }
}

/// Why the loop stopped waiting for the command.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    Timeout,
    Cancelled,
    /// The early-stop request, after its grace: killed, output kept.
    Requested,
}

impl Child {
    fn kill(&self, signal: c_int) {
        // SAFETY: `kill` has no memory-safety preconditions. The pid is our
        // unreaped child (a zombie at worst), so it names no other process;
        // a negative pid names the process group it leads.
        unsafe {
            if self.mode == Containment::ProcessGroup {
                libc::kill(-self.pid, signal);
            }
            libc::kill(self.pid, signal);
        }
    }

    /// Kills the whole tree: PID 1 of a namespace takes every process of
    /// it along; the fallback kills the group and every pipe holder.
    fn kill_tree(&self) {
        self.kill(libc::SIGKILL);
        if self.mode == Containment::ProcessGroup {
            self.kill_pipe_holders();
        }
    }

    /// Fallback: kills every process holding one of our pipes, except us
    /// and our direct children. A child of ours is either a call's shell
    /// (its own call kills it) or, for an instant, another call's child
    /// between clone and exec, which still holds a copy of every descriptor
    /// we have, ours included; killing it would kill that other command.
    /// What a command forks is never our child (orphans go to init).
    fn kill_pipe_holders(&self) {
        let links: Vec<String> = [self.stdout.inode(), self.stderr.inode()]
            .into_iter()
            .flatten()
            .map(|ino| format!("pipe:[{ino}]"))
            .collect();
        if links.is_empty() {
            return;
        }
        let me = std::process::id();
        let Ok(procs) = std::fs::read_dir("/proc") else {
            return;
        };
        for entry in procs.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if pid == me || parent_of(&entry.path()) == Some(me) {
                continue;
            }
            let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
                continue;
            };
            let holds = fds.flatten().any(|fd| {
                std::fs::read_link(fd.path())
                    .is_ok_and(|target| links.iter().any(|l| target.as_os_str() == l.as_str()))
            });
            if holds && let Ok(pid) = libc::pid_t::try_from(pid) {
                // SAFETY: see `kill`; this process holds our pipe, so it
                // was started by this call.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
    }

    /// Asks the tree to end: SIGTERM to PID 1 (which, as the init of a
    /// namespace, gets it only if it handles it) and to its process group.
    fn terminate(&self) {
        // SAFETY: as in `kill`; the group is the one the shell leads.
        unsafe {
            libc::kill(-self.pid, libc::SIGTERM);
            libc::kill(self.pid, libc::SIGTERM);
        }
    }

    /// The poll loop: output, stdin, exit, deadline, cancellation and the
    /// early-stop request.
    fn wait(
        mut self,
        deadline: Instant,
        limits: &Limits,
        invocation: &Invocation<'_>,
    ) -> Result<Output, ProcessError> {
        let mut scratch = [0u8; 16 * 1024];
        let mut log = invocation.log;
        let mut exited = false;
        let mut stop: Option<(Stop, Instant)> = None;
        // When SIGTERM was sent on request: SIGKILL is due at this instant.
        let mut terminating: Option<Instant> = None;
        let mut swept_at: Option<Instant> = None;
        loop {
            if exited && !self.stdout.is_open() && !self.stderr.is_open() {
                break;
            }
            let now = Instant::now();
            let until = match stop {
                Some((_, give_up)) if now >= give_up => break,
                Some((_, give_up)) => give_up,
                None => {
                    let why = if limits.cancel.is_cancelled() {
                        Some(Stop::Cancelled)
                    } else if now >= deadline {
                        Some(Stop::Timeout)
                    } else if terminating.is_some_and(|kill_at| now >= kill_at) {
                        Some(Stop::Requested)
                    } else {
                        None
                    };
                    if let Some(why) = why {
                        self.kill_tree();
                        stop = Some((why, now + KILL_GRACE));
                        continue;
                    }
                    if terminating.is_none()
                        && !exited
                        && invocation.stop_requested.is_some_and(|asked| asked())
                    {
                        self.terminate();
                        terminating = Some(now + invocation.term_grace);
                        continue;
                    }
                    terminating.map_or(deadline, |kill_at| kill_at.min(deadline))
                }
            };
            // The shell is gone but the pipes are not: in the fallback,
            // something left its group holding them; hunt it (not more
            // often than every slice).
            if exited
                && self.mode == Containment::ProcessGroup
                && swept_at.is_none_or(|t| now >= t + CANCEL_SLICE)
            {
                self.kill_pipe_holders();
                swept_at = Some(now);
            }
            let wait = until.saturating_duration_since(now).min(CANCEL_SLICE);
            if exited {
                // Nobody is left to read the rest of stdin.
                self.stdin.fd = None;
            }
            if self.poll_once(wait, exited, limits, invocation, &mut scratch, &mut log) {
                exited = true;
            }
        }
        let exit_code = if exited {
            reap(self.pid)
        } else {
            self.reap_if_gone()
        };
        match stop {
            Some((Stop::Timeout, _)) => Err(ProcessError::Timeout),
            Some((Stop::Cancelled, _)) => Err(ProcessError::Cancelled),
            Some((Stop::Requested, _)) | None => Ok(Output {
                exit_code,
                stdout: std::mem::take(&mut self.stdout.kept),
                stderr: std::mem::take(&mut self.stderr.kept),
                stopped: terminating.is_some(),
            }),
        }
    }

    /// Waits up to `wait` for output, room on stdin or the shell's exit,
    /// and handles what is ready: reads output, writes stdin, and returns
    /// whether the shell has exited now.
    fn poll_once(
        &mut self,
        wait: Duration,
        exited: bool,
        limits: &Limits,
        invocation: &Invocation<'_>,
        scratch: &mut [u8],
        log: &mut Option<&File>,
    ) -> bool {
        if let Some(conversation) = invocation.conversation
            && self.stdin.fd.is_some()
        {
            // What was written is gone from the queue: it holds only
            // what the command has not read.
            if invocation.stdin_release.is_none() && self.stdin.written == self.stdin.bytes.len() {
                self.stdin.bytes.clear();
                self.stdin.written = 0;
            }
            let unread = self.stdin.bytes.len().saturating_sub(self.stdin.written);
            self.stdin.bytes.extend(conversation.to_say(unread));
        }
        let mut fds = [
            poll_entry(self.stdout.fd.as_ref()),
            poll_entry(self.stderr.fd.as_ref()),
            poll_entry((!exited).then_some(&self.pidfd)),
            libc::pollfd {
                fd: match self.stdin.waiting(invocation.stdin_release) {
                    true => self.stdin.fd.as_ref().map_or(-1, AsRawFd::as_raw_fd),
                    false => -1,
                },
                events: libc::POLLOUT,
                revents: 0,
            },
        ];
        let millis = c_int::try_from(wait.as_millis()).unwrap_or(c_int::MAX);
        // Round up so that a sub-millisecond wait does not spin.
        let millis = if wait > Duration::ZERO && millis == 0 {
            1
        } else {
            millis
        };
        // SAFETY: `fds` is a valid array of pollfd; negative fds are
        // ignored by poll.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
        if ready <= 0 {
            return false;
        }
        if fds[0].revents != 0 {
            let listener = invocation.conversation;
            self.stdout
                .read_once(scratch, limits.capture_limit, log, listener);
        }
        if fds[1].revents != 0 {
            self.stderr
                .read_once(scratch, limits.capture_limit, log, None);
        }
        if fds[3].revents & (libc::POLLERR | libc::POLLHUP) != 0 {
            // The reader is gone: writing would raise SIGPIPE (ignored
            // in Rust programs, but not necessarily in a host program).
            self.stdin.fd = None;
        } else if fds[3].revents != 0 {
            self.stdin.write_once(invocation.stdin_release);
        }
        if fds[2].revents == 0 {
            return false;
        }
        if self.mode == Containment::ProcessGroup {
            // Background jobs of the shell would hold the pipes.
            self.kill(libc::SIGKILL);
        }
        true
    }

    /// After the grace period: reaps the shell if it has exited, else
    /// leaves it (killed, in uninterruptible sleep) rather than hang.
    fn reap_if_gone(&self) -> Option<i32> {
        let mut status: c_int = 0;
        // SAFETY: waitpid on our own child, without blocking.
        let r = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
        (r == self.pid && libc::WIFEXITED(status)).then(|| libc::WEXITSTATUS(status))
    }
}

/// The parent pid in `/proc/PID/stat` (after the command name, which may
/// hold spaces and parentheses).
fn parent_of(proc_dir: &Path) -> Option<u32> {
    let stat = std::fs::read(proc_dir.join("stat")).ok()?;
    let after_name = stat.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(stat.get(after_name + 1..)?).ok()?;
    // " S PPID ...": state, then the parent.
    rest.split_ascii_whitespace().nth(1)?.parse().ok()
}

fn poll_entry(fd: Option<&OwnedFd>) -> libc::pollfd {
    libc::pollfd {
        fd: fd.map_or(-1, AsRawFd::as_raw_fd),
        events: libc::POLLIN,
        revents: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_from_proc_stat() {
        // SAFETY: getppid cannot fail.
        let parent = unsafe { libc::getppid() };
        assert_eq!(
            parent_of(Path::new("/proc/self")),
            u32::try_from(parent).ok()
        );
        assert_eq!(parent_of(Path::new("/proc/no-such-process")), None);
    }

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
