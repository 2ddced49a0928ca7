//! The cloned child: what it needs prepared (a [`ChildPlan`] of raw
//! pointers, since it shares the parent's memory and may neither allocate
//! nor lock), what it does between `clone` and `execve` (id maps, its own
//! `/proc`, stdio, working folder, process group, Landlock, default signal
//! handlers), how a failure before exec is reported back ([`Stage`]), and
//! the clone itself with signals blocked around it.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI64, Ordering};

use super::{Containment, ProcessError};

/// Stack of the cloned child until it execs; it runs a few system calls.
const CHILD_STACK: usize = 64 * 1024;

/// Why the child did not start.
pub(super) enum SpawnFailure {
    Clone(io::Error),
    Setup(io::Error),
    Child { stage: Stage, error: io::Error },
}

impl SpawnFailure {
    pub(super) fn into_error(self) -> ProcessError {
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
pub(super) enum Stage {
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
    pub(super) fn from_code(code: i64) -> Self {
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

    pub(super) fn describe(self) -> &'static str {
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
pub(super) struct ChildPlan {
    pub(super) path: *const c_char,
    pub(super) argv: *const *const c_char,
    pub(super) envp: *const *const c_char,
    pub(super) cwd: *const c_char,
    pub(super) stdin: RawFd,
    pub(super) stdout: RawFd,
    pub(super) stderr: RawFd,
    pub(super) landlock: RawFd,
    /// `(setgroups, uid_map, gid_map)` contents, for a user namespace.
    pub(super) id_maps: Option<[(&'static CStr, *const u8, usize); 3]>,
    /// `false`: exit 0 right after the namespace setup (a probe).
    pub(super) exec: bool,
    /// Mount a `/proc` of the new PID namespace in a new mount namespace.
    pub(super) own_proc: bool,
    /// `stage << 32 | errno` of the first failure; 0 = none.
    pub(super) failure: AtomicI64,
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
pub(super) struct SignalsBlocked(libc::sigset_t);

impl SignalsBlocked {
    pub(super) fn new() -> Self {
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

/// The id maps of a user namespace that maps the caller to itself.
pub(super) fn id_maps() -> &'static [Vec<u8>; 3] {
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

pub(super) fn probe(mode: Containment) -> io::Result<()> {
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
    pub(super) fn new(mode: Containment, exec: bool) -> Self {
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
pub(super) fn clone_child(
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
pub(super) fn reap(pid: libc::pid_t) -> Option<i32> {
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
