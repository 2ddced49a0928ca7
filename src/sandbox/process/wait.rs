//! The poll loop of a started call: output, stdin, the shell's exit, the
//! deadline, cancellation and the early-stop request in one `poll`; and
//! how the tree is ended (SIGKILL to PID 1 of its namespace, or to its
//! group in the fallback; SIGTERM first on an early-stop request).

use std::ffi::c_int;
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use super::child::reap;
use super::streams::{Capture, Feed, poll_entry};
use super::{Containment, Invocation, Limits, Output, ProcessError};

/// How often a running command looks at its cancellation token.
const CANCEL_SLICE: Duration = Duration::from_millis(50);

/// How long, after killing a tree, the call waits for its pipes to close
/// and its shell to be reaped before giving up on them (never a hang).
const KILL_GRACE: Duration = Duration::from_secs(2);

/// A started shell and the ends of its pipes.
pub(super) struct Child {
    pub(super) pid: libc::pid_t,
    pub(super) pidfd: OwnedFd,
    pub(super) mode: Containment,
    pub(super) stdout: Capture,
    pub(super) stderr: Capture,
    pub(super) stdin: Feed,
}

/// Why the loop stopped waiting for the command.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    Timeout,
    Cancelled,
    /// The early-stop request, after its grace: killed, output kept.
    Requested,
}

impl Child {
    pub(super) fn kill(&self, signal: c_int) {
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
    pub(super) fn kill_tree(&self) {
        self.kill(libc::SIGKILL);
        if self.mode == Containment::ProcessGroup {
            self.kill_pipe_holders();
        }
    }

    /// Asks the tree to end: SIGTERM to PID 1 (which, as the init of a
    /// namespace, gets it only if it handles it) and to its process group.
    pub(super) fn terminate(&self) {
        // SAFETY: as in `kill`; the group is the one the shell leads.
        unsafe {
            libc::kill(-self.pid, libc::SIGTERM);
            libc::kill(self.pid, libc::SIGTERM);
        }
    }

    /// The poll loop: output, stdin, exit, deadline, cancellation and the
    /// early-stop request.
    pub(super) fn wait(
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
    pub(super) fn poll_once(
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
    pub(super) fn reap_if_gone(&self) -> Option<i32> {
        let mut status: c_int = 0;
        // SAFETY: waitpid on our own child, without blocking.
        let r = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
        (r == self.pid && libc::WIFEXITED(status)).then(|| libc::WEXITSTATUS(status))
    }
}
