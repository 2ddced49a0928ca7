//! What a command runs with ([`CommandSettings`]) and what it produced
//! ([`BashOutcome`]): below both the runner ([`super::command`]) and the
//! cache of reused effects ([`super::reuse`]), which keys on the settings
//! and keeps the outcomes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::process::Containment;
use crate::cancel::CancelToken;

/// Bytes kept per stream. Generous next to the 50000-character cut, so
/// only output with a megabyte of leading white space could differ from an
/// uncapped read.
pub const CAPTURE_LIMIT: usize = 1 << 20;

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

/// Sets whether the settings made from now on reuse effects
/// (`--no-reuse` turns it off, to compare or to rule the reuse out).
pub fn set_reuse_default(reuse: bool) {
    REUSE_DEFAULT.store(reuse, Ordering::Relaxed);
}

/// How a command runs; [`CommandSettings::new`] gives the defaults of the
/// `bash` tool and of [`super::command::run_command`].
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
