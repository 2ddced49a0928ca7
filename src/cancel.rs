//! Cooperative cancellation (Ctrl-C, SIGTERM).
//!
//! Two layers. A [`CancelToken`] is an explicit, cheaply cloned flag that a
//! caller can hand to a process call (tests and library users do, so one
//! cancelled call cannot disturb another running beside it). The process-wide
//! flag is what the binary's signal handler sets through [`request`]: the
//! engine stops starting runs, running commands kill their process tree, and
//! the evaluation ends with an error instead of a partial report.
//!
//! The process-wide flag must not outlive the work it cancelled: a library
//! user who cancels one evaluation and then starts another must get a working
//! second evaluation. Top-level library calls therefore hold a [`Session`];
//! when the last session open ends, a request made during it has been acted
//! on and is cleared. A request made while no session is open (Ctrl-C while
//! the binary is still loading scenarios) stays pending for the next one, so
//! it is never lost.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);
static OPEN_SESSIONS: AtomicUsize = AtomicUsize::new(0);

/// Asks everything running to stop (async-signal-safe: one atomic store).
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Whether a process-wide stop was asked for.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// Clears a process-wide request (a library user that handled it itself).
pub fn reset() {
    REQUESTED.store(false, Ordering::SeqCst);
}

/// A top-level library call in progress; see the module doc. Sessions nest
/// (and may run on several threads): the request is cleared when the last
/// one ends.
#[derive(Debug)]
#[must_use = "a session ends when dropped"]
pub struct Session(());

impl Session {
    pub fn begin() -> Self {
        OPEN_SESSIONS.fetch_add(1, Ordering::SeqCst);
        Session(())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if OPEN_SESSIONS.fetch_sub(1, Ordering::SeqCst) == 1 {
            reset();
        }
    }
}

/// A cancellation flag for one piece of work. [`CancelToken::process`] also
/// observes the process-wide flag; [`CancelToken::new`] observes only its own.
#[derive(Debug, Clone, Default)]
pub struct CancelToken {
    own: Arc<AtomicBool>,
    follows_process: bool,
}

impl CancelToken {
    /// A token cancelled only through [`CancelToken::cancel`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A token that is also cancelled by [`request`] (Ctrl-C, SIGTERM).
    pub fn process() -> Self {
        Self {
            own: Arc::default(),
            follows_process: true,
        }
    }

    /// Cancels this token and every clone of it.
    pub fn cancel(&self) {
        self.own.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.own.load(Ordering::SeqCst) || (self.follows_process && requested())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_tokens_are_independent() {
        let first = CancelToken::new();
        let second = CancelToken::new();
        let clone = first.clone();
        clone.cancel();
        assert!(first.is_cancelled());
        assert!(!second.is_cancelled());
    }

    /// The process-wide flag is shared by every test in this binary, so this
    /// test runs itself in a child process (see `process_flag_child`).
    #[test]
    fn process_flag_is_cleared_when_the_last_session_ends() {
        let exe = std::env::current_exe().unwrap();
        let output = std::process::Command::new(exe)
            .args([
                "--exact",
                "cancel::tests::process_flag_child",
                "--ignored",
                "--test-threads=1",
            ])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{stdout}");
        assert!(stdout.contains("1 passed"), "{stdout}");
    }

    #[test]
    #[ignore = "run in a child process by process_flag_is_cleared_when_the_last_session_ends"]
    fn process_flag_child() {
        // A request before any session stays pending for the next one.
        request();
        let outer = Session::begin();
        assert!(CancelToken::process().is_cancelled());
        {
            let _inner = Session::begin();
        }
        // A nested session ending does not clear what the outer one handles.
        assert!(requested());
        drop(outer);
        // The call that saw the request is over: the next one starts clean.
        assert!(!requested());
        let _next = Session::begin();
        assert!(!CancelToken::process().is_cancelled());
        assert!(!CancelToken::new().is_cancelled());
    }
}
