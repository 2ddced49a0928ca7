//! The seam between `calibrate` and the transcript files: every `*.jsonl`
//! below the paths given, each file's format detected (or named with
//! `--format`) and read by [`crate::transcript::read::read_paths`]
//! (bounded lines, streamed), into the sessions the fit uses and the count
//! of what was skipped, the first few named with file:line.

use std::path::PathBuf;

use crate::transcript::read::{ReadOptions, read_paths};
use crate::transcript::{Format, GroupBy, Session};

/// What reading found.
#[derive(Debug, Default)]
pub struct ReadOutcome {
    pub sessions: Vec<Session>,
    /// Files read (whether or not they held a session).
    pub files: u64,
    /// Lines or files skipped, and the first few named (file:line: why).
    pub bad: u64,
    pub first_bad: Vec<String>,
    /// SHA-256 (hex) over the files' contents, in sorted path order.
    pub inputs_hash: String,
    /// What made sessions one group.
    pub group_by: GroupBy,
}

/// Reads every session under `paths` (`format`: what the files are, else
/// detected per file). A path that cannot be read is counted as bad and
/// named, like a bad line.
pub fn read_sessions(paths: &[PathBuf], format: Option<Format>, group_by: GroupBy) -> ReadOutcome {
    let options = ReadOptions {
        format,
        model_filter: None,
        group_by,
    };
    let mut outcome = ReadOutcome {
        group_by,
        ..ReadOutcome::default()
    };
    let mut sessions = Vec::new();
    match read_paths(paths, &options, |s| sessions.push(s)) {
        Ok(summary) => {
            outcome.files = summary.files;
            outcome.bad = summary.skipped_total();
            outcome.first_bad = summary
                .first_skips
                .iter()
                .map(ToString::to_string)
                .collect();
            outcome.inputs_hash = summary.inputs_sha256;
        }
        Err(e) => {
            outcome.bad = 1;
            outcome.first_bad.push(e.to_string());
        }
    }
    outcome.sessions = sessions;
    outcome
}
