//! Starting one call's shell: its pipes (kept above the standard streams
//! so the child's `dup2` onto 0, 1 and 2 clobbers none of them), its
//! argv and environment as the child reads them, then the clone.

use std::ffi::{CStr, c_char, c_int};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::OnceLock;

use super::child::{ChildPlan, SpawnFailure, clone_child};
use super::streams::{Capture, Feed};
use super::wait::Child;
use super::{Containment, Program};
use crate::sandbox::landlock::Ruleset;

/// `/dev/null`, opened once for every child's stdin.
pub(super) fn dev_null() -> io::Result<RawFd> {
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
pub(super) fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
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

pub(super) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as c_int; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both are fresh descriptors owned by nobody else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((above_stdio(read)?, above_stdio(write)?))
}

pub(super) fn spawn(
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
