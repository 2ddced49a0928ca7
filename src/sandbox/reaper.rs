//! agent-eval as process 1 (a container started without an init, the
//! default of `docker run`): every orphan of the machine's process tree is
//! then agent-eval's to reap. Where PID namespaces are missing, an agent's
//! daemon that double-forked, or a stray killed after its run, is
//! reparented to process 1 and, unreaped, stays a zombie for as long as
//! agent-eval runs (thousands over a long evaluation, each holding a PID).
//!
//! Reaping with `waitpid(-1)` inside agent-eval would take the exit status
//! of its own children from the code that waits for them. So, as `tini`
//! does, process 1 forks at start-up, before any thread exists: the child
//! is agent-eval; the parent stays a minimal init that only reaps every
//! child it is given, forwards the signals it receives to agent-eval, and
//! exits with agent-eval's status.

use std::io;

/// Called first thing in `main` (after the environment is cleared of
/// credentials, so the init's own copy of it holds none): returns at once
/// unless this process is PID 1; if it is, returns in the forked child,
/// while the parent never returns (see the module doc). If the fork fails,
/// agent-eval runs as PID 1 without the init.
///
/// # Safety
///
/// No other thread may exist (`fork` copies only the calling thread).
pub unsafe fn init_if_pid_1() {
    // SAFETY: the caller guarantees a single thread; every call below is a
    // plain system call on our own data.
    unsafe {
        if libc::getpid() != 1 {
            return;
        }
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigprocmask(libc::SIG_SETMASK, &all, &mut old);
        let child = libc::fork();
        if child != 0 && child != -1 {
            init_loop(child, &all);
        }
        if child == -1 {
            eprintln!(
                "warning: agent-eval is process 1 and cannot fork an init ({}); orphaned processes may stay unreaped",
                io::Error::last_os_error()
            );
        }
        libc::sigprocmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
    }
}

/// The init: reaps every child as it ends, forwards every other signal to
/// `child`, exits with `child`'s status once it has ended.
///
/// # Safety
///
/// Only in the parent of [`init_if_pid_1`], with every signal blocked.
unsafe fn init_loop(child: libc::pid_t, signals: &libc::sigset_t) -> ! {
    loop {
        // SAFETY: plain system calls; `status` is ours.
        unsafe {
            loop {
                let mut status: libc::c_int = 0;
                let pid = libc::waitpid(-1, &mut status, libc::WNOHANG);
                if pid <= 0 {
                    break;
                }
                if pid == child {
                    let code = if libc::WIFEXITED(status) {
                        libc::WEXITSTATUS(status)
                    } else {
                        128 + libc::WTERMSIG(status)
                    };
                    libc::_exit(code);
                }
            }
            let wait = libc::timespec {
                tv_sec: 1,
                tv_nsec: 0,
            };
            let signal = libc::sigtimedwait(signals, std::ptr::null_mut(), &wait);
            if signal > 0 && signal != libc::SIGCHLD {
                libc::kill(child, signal);
            }
        }
    }
}
