//! The seam between `calibrate` and the transcript files: every `*.jsonl`
//! below the paths given, read line by line (bounded, streamed), each
//! good record handed to the run-log reader, each bad line skipped,
//! counted and — the first few — named with file:line.
//!
//! This is the one function the transcript walker of the other formats
//! (Claude Code, Codex, with per-file format detection) replaces at merge.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::transcript::run_log::{RunLogReader, is_run_log_record};
use crate::transcript::{Format, RecordReader, Session};

/// A line longer than this is skipped unread (a transcript line holding a
/// huge tool output is no planning record).
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// How many bad lines are named.
pub const NAMED_BAD: usize = 5;

/// What reading found.
#[derive(Debug, Default)]
pub struct ReadOutcome {
    pub sessions: Vec<Session>,
    /// Files read (whether or not they held a session).
    pub files: u64,
    /// Lines or files skipped, and the first few named (file:line: why).
    pub bad: u64,
    pub first_bad: Vec<String>,
    /// SHA-256 (hex) over the files' bytes, in sorted path order.
    pub inputs_hash: String,
}

impl ReadOutcome {
    fn skip(&mut self, what: String) {
        self.bad += 1;
        if self.first_bad.len() < NAMED_BAD {
            self.first_bad.push(what);
        }
    }
}

/// Reads every session under `paths` (`format`: what the files are; only
/// agent-eval run logs are read by this build's own loop).
pub fn read_sessions(paths: &[PathBuf], format: Option<Format>) -> ReadOutcome {
    let mut outcome = ReadOutcome::default();
    let mut files = Vec::new();
    for path in paths {
        collect(path, true, &mut files, &mut outcome);
    }
    files.sort();
    files.dedup();
    let mut hasher = Sha256::new();
    for file in &files {
        outcome.files += 1;
        read_file(file, format, &mut hasher, &mut outcome);
    }
    outcome.inputs_hash = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    outcome
}

/// The `*.jsonl` files at or below `path`. A symbolic link below a folder
/// is not followed (no loops); a path named on the command line is.
fn collect(path: &Path, named: bool, files: &mut Vec<PathBuf>, outcome: &mut ReadOutcome) {
    let meta = if named {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    };
    match meta {
        Ok(meta) if meta.is_dir() => match std::fs::read_dir(path) {
            Ok(entries) => {
                let mut children: Vec<PathBuf> =
                    entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
                children.sort();
                for child in children {
                    collect(&child, false, files, outcome);
                }
            }
            Err(e) => outcome.skip(format!("{}: cannot read the folder: {e}", path.display())),
        },
        Ok(meta) if meta.is_file() && (named || path.extension().is_some_and(|e| e == "jsonl")) => {
            files.push(path.to_path_buf());
        }
        Ok(_) => {}
        Err(e) => outcome.skip(format!("{}: {e}", path.display())),
    }
}

fn read_file(file: &Path, format: Option<Format>, hasher: &mut Sha256, outcome: &mut ReadOutcome) {
    let handle = match crate::input::open_regular(file) {
        Ok(handle) => handle,
        Err(e) => return outcome.skip(format!("{}: cannot read: {e}", file.display())),
    };
    if matches!(format, Some(Format::ClaudeCode | Format::Codex)) {
        return outcome.skip(format!(
            "{}: this build reads only agent-eval run logs (--format run-log)",
            file.display()
        ));
    }
    let mut reader: Box<dyn RecordReader> = Box::new(RunLogReader::default());
    let mut lines = BufReader::with_capacity(1 << 16, handle);
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        match read_line(&mut lines, &mut line, hasher) {
            Ok(None) => break,
            Ok(Some(true)) => {
                outcome.skip(format!(
                    "{}:{number}: line longer than {MAX_LINE_BYTES} bytes",
                    file.display()
                ));
                continue;
            }
            Ok(Some(false)) => {}
            Err(e) => {
                outcome.skip(format!("{}:{number}: cannot read: {e}", file.display()));
                break;
            }
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Err(why) = record(&line, reader.as_mut()) {
            outcome.skip(format!("{}:{number}: {why}", file.display()));
        }
    }
    outcome.sessions.extend(reader.finish());
}

/// One line's record handed to the reader.
fn record(line: &[u8], reader: &mut dyn RecordReader) -> Result<(), String> {
    let value: serde_json::Value =
        serde_json::from_slice(line).map_err(|e| format!("not JSON: {e}"))?;
    if !is_run_log_record(&value) {
        return Err("not an agent-eval run-log record".into());
    }
    reader.record(&value)
}

/// Reads one line into `line` (without its newline), hashing every byte;
/// `None` at the end, `Some(true)` when the line was too long (skipped).
fn read_line(
    input: &mut BufReader<impl Read>,
    line: &mut Vec<u8>,
    hasher: &mut Sha256,
) -> std::io::Result<Option<bool>> {
    let mut too_long = false;
    let mut any = false;
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(any.then_some(too_long));
        }
        any = true;
        let (chunk, done) = match memchr::memchr(b'\n', buffer) {
            Some(at) => (&buffer[..=at], true),
            None => (buffer, false),
        };
        hasher.update(chunk);
        let body = if done {
            &chunk[..chunk.len() - 1]
        } else {
            chunk
        };
        if line.len() + body.len() > MAX_LINE_BYTES {
            too_long = true;
            line.clear();
        } else if !too_long {
            line.extend_from_slice(body);
        }
        let used = chunk.len();
        input.consume(used);
        if done {
            return Ok(Some(too_long));
        }
    }
}
