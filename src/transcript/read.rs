//! Reading transcript files and folders into sessions: the one entry
//! point calibration calls ([`read_paths`]).
//!
//! Each path is a file or a folder (every `*.jsonl` below it, symbolic
//! links followed once: a link back up the tree is not walked again); the
//! files are read one at a time in sorted path order, each streamed line
//! by line through a bounded buffer, so memory stays flat in the size of
//! the corpus. A file's format is detected from its first records
//! ([`detect`]) unless the caller names one; its lines go to that
//! format's [`RecordReader`], and the sessions it yields go to the
//! caller's callback as each file ends.
//!
//! Bad input never stops the read: a line too long (over
//! [`MAX_LINE_BYTES`], never held whole), not JSON (binary garbage), too
//! deep (serde_json's recursion limit), not an object, a truncated last
//! line, a record its reader refuses (an unknown record type or agent
//! version), a file of no known format, an unreadable file or folder —
//! each is skipped and counted by reason, and the first few are named
//! with file and line ([`ReadSummary`]). Only a path named by the caller
//! that does not exist is an error.
//!
//! The summary's `inputs_sha256` is the SHA-256 of the files' own SHA-256
//! digests in sorted path order: it names the corpus (a profile may carry
//! it) without naming any path.

use std::collections::{BTreeMap, HashSet};
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::claude_code::ClaudeCodeReader;
use super::codex::CodexReader;
use super::run_log::RunLogReader;
use super::{Format, GroupBy, RecordReader, Session, group_key};

/// The longest line read; a longer one is skipped as it streams past.
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// How many skipped lines or files the summary names.
pub const FIRST_SKIPS: usize = 10;
/// Records a file may start with before its format is known.
const UNDECIDED_RECORDS: usize = 16;
const READ_BUFFER: usize = 256 << 10;

/// Which model names a caller keeps (`--model REGEX`).
pub type ModelFilter = Box<dyn Fn(&str) -> bool>;

/// How to read.
#[derive(Default)]
pub struct ReadOptions {
    /// Read every file as this format instead of detecting it.
    pub format: Option<Format>,
    /// Keep only the sessions one of whose model names passes (a session
    /// naming no model is left out when a filter is given).
    pub model_filter: Option<ModelFilter>,
    /// What makes sessions one group.
    pub group_by: GroupBy,
}

/// Why a line or a file was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// A line longer than [`MAX_LINE_BYTES`].
    TooLong,
    /// A line that is not JSON (or not UTF-8: binary garbage).
    NotJson,
    /// JSON nested deeper than serde_json's recursion limit.
    TooDeep,
    /// JSON that is not an object.
    NotAnObject,
    /// The last line, cut short (a session still being written).
    Truncated,
    /// A record its format's reader refused (an unknown record type or
    /// agent version, a record missing what its type needs).
    BadRecord,
    /// A file none of whose first records is of a known format.
    UnknownFormat,
    /// A file or folder that could not be opened or read.
    Unreadable,
}

impl SkipReason {
    pub fn name(self) -> &'static str {
        match self {
            Self::TooLong => "too-long",
            Self::NotJson => "not-json",
            Self::TooDeep => "too-deep",
            Self::NotAnObject => "not-an-object",
            Self::Truncated => "truncated",
            Self::BadRecord => "bad-record",
            Self::UnknownFormat => "unknown-format",
            Self::Unreadable => "unreadable",
        }
    }
}

/// One skip, named: the file, the line (none for a whole file), why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skip {
    pub file: PathBuf,
    pub line: Option<u64>,
    pub reason: SkipReason,
    pub detail: String,
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}: {}", self.reason.name(), self.detail)
    }
}

/// What a read did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReadSummary {
    /// Files opened and read to the end.
    pub files: u64,
    /// Files read, by the format they were read as.
    pub files_by_format: BTreeMap<Format, u64>,
    /// Sessions handed to the caller.
    pub sessions: u64,
    /// Sessions the model filter left out.
    pub sessions_filtered_out: u64,
    /// Lines and bytes read (skipped ones included).
    pub lines: u64,
    pub bytes: u64,
    /// Skipped lines (or files, for the file-level reasons), by reason.
    pub skipped: BTreeMap<SkipReason, u64>,
    /// The first [`FIRST_SKIPS`] skips, in reading order.
    pub first_skips: Vec<Skip>,
    /// SHA-256 (hex) of the files' SHA-256 digests, in sorted path order.
    pub inputs_sha256: String,
}

impl ReadSummary {
    /// Every skip counted.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }

    fn skip(&mut self, file: &Path, line: Option<u64>, reason: SkipReason, detail: String) {
        *self.skipped.entry(reason).or_default() += 1;
        if self.first_skips.len() < FIRST_SKIPS {
            self.first_skips.push(Skip {
                file: file.to_path_buf(),
                line,
                reason,
                detail,
            });
        }
    }
}

/// Why a read could not start.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    #[error("{}: {source}", path.display())]
    Path { path: PathBuf, source: io::Error },
}

/// Reads every transcript below `paths` and hands each session to
/// `on_session`, file by file in sorted path order.
pub fn read_paths(
    paths: &[PathBuf],
    opts: &ReadOptions,
    mut on_session: impl FnMut(Session),
) -> Result<ReadSummary, TranscriptError> {
    let mut summary = ReadSummary::default();
    let mut files = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|source| TranscriptError::Path {
            path: path.clone(),
            source,
        })?;
        if meta.is_dir() {
            let mut seen = HashSet::new();
            walk(path, &mut seen, &mut files, &mut summary);
        } else {
            files.push(path.clone());
        }
    }
    files.sort();
    files.dedup();
    let mut corpus = Sha256::new();
    for file in &files {
        if let Some(digest) = read_file(file, opts, &mut summary, &mut on_session) {
            corpus.update(digest);
        }
    }
    summary.inputs_sha256 = hex(&corpus.finalize());
    Ok(summary)
}

/// Collects the `*.jsonl` files below `dir`; `seen` holds the folders
/// walked (device, inode), so a link loop ends.
fn walk(
    dir: &Path,
    seen: &mut HashSet<(u64, u64)>,
    files: &mut Vec<PathBuf>,
    summary: &mut ReadSummary,
) {
    use std::os::unix::fs::MetadataExt;
    let unreadable = |summary: &mut ReadSummary, path: &Path, e: io::Error| {
        summary.skip(path, None, SkipReason::Unreadable, e.to_string());
    };
    match std::fs::metadata(dir) {
        Ok(meta) if !seen.insert((meta.dev(), meta.ino())) => return,
        Ok(_) => {}
        Err(e) => return unreadable(summary, dir, e),
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return unreadable(summary, dir, e),
    };
    let mut below: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    below.sort();
    for path in below {
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => walk(&path, seen, files, summary),
            Ok(_) if path.extension().is_some_and(|e| e == "jsonl") => files.push(path),
            Ok(_) => {}
            // A dangling link named *.jsonl is a transcript that cannot be read.
            Err(e) if path.extension().is_some_and(|e| e == "jsonl") => {
                unreadable(summary, &path, e);
            }
            Err(_) => {}
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The format a record shows, if any.
pub fn detect(record: &Value) -> Option<Format> {
    let kind = record.get("type").and_then(Value::as_str);
    if record.get("payload").is_some() {
        let codex = [
            "session_meta",
            "turn_context",
            "response_item",
            "event_msg",
            "token_usage_record",
            "world_state",
            "compacted",
        ];
        return kind.filter(|k| codex.contains(k)).map(|_| Format::Codex);
    }
    if ["scenario", "metrics", "messages"]
        .iter()
        .all(|key| record.get(key).is_some())
    {
        return Some(Format::RunLog);
    }
    let claude_keys = ["sessionId", "uuid", "leafUuid", "message"];
    (kind.is_some() && claude_keys.iter().any(|key| record.get(key).is_some()))
        .then_some(Format::ClaudeCode)
}

/// The reader of `format`.
fn reader_for(format: Format) -> Box<dyn RecordReader> {
    match format {
        Format::ClaudeCode => Box::new(ClaudeCodeReader::new()),
        Format::Codex => Box::new(CodexReader::new()),
        Format::RunLog => Box::new(RunLogReader::default()),
    }
}

/// One file's reading state.
struct FileRead<'a> {
    path: &'a Path,
    format: Option<Format>,
    reader: Option<Box<dyn RecordReader>>,
    /// Records before the format was known (at most [`UNDECIDED_RECORDS`]).
    undecided: Vec<(u64, Value)>,
    /// The file is skipped whole (unknown format, no reader).
    given_up: bool,
}

impl FileRead<'_> {
    fn record(&mut self, line: u64, value: Value, summary: &mut ReadSummary) {
        if self.given_up {
            return;
        }
        if self.reader.is_none() {
            if self.format.is_none() {
                self.format = detect(&value);
            }
            let Some(format) = self.format else {
                self.undecided.push((line, value));
                if self.undecided.len() >= UNDECIDED_RECORDS {
                    self.give_up_unknown(summary);
                }
                return;
            };
            self.reader = Some(reader_for(format));
            for (line, value) in std::mem::take(&mut self.undecided) {
                self.feed(line, &value, summary);
            }
        }
        self.feed(line, &value, summary);
    }

    fn feed(&mut self, line: u64, value: &Value, summary: &mut ReadSummary) {
        if let Some(reader) = self.reader.as_mut()
            && let Err(why) = reader.record(value)
        {
            summary.skip(self.path, Some(line), SkipReason::BadRecord, why);
        }
    }

    fn give_up_unknown(&mut self, summary: &mut ReadSummary) {
        self.given_up = true;
        self.undecided.clear();
        summary.skip(
            self.path,
            None,
            SkipReason::UnknownFormat,
            "no record of a Claude Code transcript, a Codex rollout or a run log".into(),
        );
    }
}

/// Reads one file; returns its SHA-256 (none when it could not be opened).
fn read_file(
    path: &Path,
    opts: &ReadOptions,
    summary: &mut ReadSummary,
    on_session: &mut impl FnMut(Session),
) -> Option<[u8; 32]> {
    let file = match crate::input::open_regular(path) {
        Ok(file) => file,
        Err(e) => {
            summary.skip(path, None, SkipReason::Unreadable, e.to_string());
            return None;
        }
    };
    let mut state = FileRead {
        path,
        format: opts.format,
        reader: None,
        undecided: Vec::new(),
        given_up: false,
    };
    let mut hasher = Sha256::new();
    let outcome = for_each_line(file, &mut hasher, |number, line| {
        summary.lines += 1;
        match line {
            Line::Whole(bytes, last) => parse_line(&mut state, number, bytes, last, summary),
            Line::TooLong(length) => summary.skip(
                path,
                Some(number),
                SkipReason::TooLong,
                format!("a line of {length} bytes or more (the limit is {MAX_LINE_BYTES})"),
            ),
        }
    });
    match outcome {
        Ok(bytes) => summary.bytes += bytes,
        Err(e) => summary.skip(path, None, SkipReason::Unreadable, e.to_string()),
    }
    summary.files += 1;
    if !state.given_up && state.reader.is_none() && !state.undecided.is_empty() {
        state.give_up_unknown(summary);
    }
    let digest: [u8; 32] = hasher.finalize().into();
    if let (Some(format), Some(reader)) = (state.format, state.reader) {
        *summary.files_by_format.entry(format).or_default() += 1;
        for mut session in reader.finish() {
            place(&mut session, path, &digest, opts.group_by, summary.sessions);
            if passes(&session, opts) {
                summary.sessions += 1;
                on_session(session);
            } else {
                summary.sessions_filtered_out += 1;
            }
        }
    }
    Some(digest)
}

/// Sets what a session's reader could not know: its content hash (the
/// file's, for a format of one session a file) and its group under
/// `group_by` (`index`: the sessions read before it).
fn place(session: &mut Session, path: &Path, digest: &[u8; 32], group_by: GroupBy, index: u64) {
    if session.content_hash.is_empty() {
        session.content_hash = hex(digest);
    }
    let folder = path.parent().unwrap_or(Path::new(""));
    let folder_key = || group_key("folder", &folder.to_string_lossy());
    session.group = match group_by {
        GroupBy::Project if session.format == Format::ClaudeCode => {
            // `projects/<dir>/<session>.jsonl`: the project is the folder's
            // name, wherever the projects folder was copied to.
            let name = folder.file_name().map(|n| n.to_string_lossy());
            group_key("claude-code-project", &name.unwrap_or_default())
        }
        GroupBy::Project if !session.group.is_empty() => std::mem::take(&mut session.group),
        GroupBy::Project | GroupBy::Folder => folder_key(),
        GroupBy::File => group_key("file", &path.to_string_lossy()),
        GroupBy::Session => group_key("session", &index.to_string()),
    };
}

fn passes(session: &Session, opts: &ReadOptions) -> bool {
    match &opts.model_filter {
        None => true,
        Some(filter) => session.models.iter().any(|m| filter(m)),
    }
}

fn parse_line(
    state: &mut FileRead,
    number: u64,
    bytes: &[u8],
    last: bool,
    summary: &mut ReadSummary,
) {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) if value.is_object() => state.record(number, value, summary),
        Ok(_) => summary.skip(
            state.path,
            Some(number),
            SkipReason::NotAnObject,
            "a JSON value that is not an object".into(),
        ),
        Err(e) => {
            let text = e.to_string();
            let reason = if text.contains("recursion limit") {
                SkipReason::TooDeep
            } else if last && e.is_eof() {
                SkipReason::Truncated
            } else {
                SkipReason::NotJson
            };
            summary.skip(state.path, Some(number), reason, text);
        }
    }
}

/// A line as [`for_each_line`] hands it over.
enum Line<'a> {
    /// The line without its newline; true when it is the last line and
    /// had none.
    Whole(&'a [u8], bool),
    /// A line over [`MAX_LINE_BYTES`]: its length so far when dropped.
    TooLong(usize),
}

/// Streams `input` line by line into `each` (1-based line numbers),
/// hashing every byte; holds at most [`MAX_LINE_BYTES`] of a line.
/// Returns the bytes read.
fn for_each_line(
    input: impl Read,
    hasher: &mut Sha256,
    mut each: impl FnMut(u64, Line),
) -> io::Result<u64> {
    let mut reader = BufReader::with_capacity(READ_BUFFER, input);
    let mut partial: Vec<u8> = Vec::new();
    let mut overlong: Option<usize> = None;
    let mut number = 0u64;
    let mut total = 0u64;
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            if let Some(length) = overlong {
                number += 1;
                each(number, Line::TooLong(length));
            } else if !partial.is_empty() {
                number += 1;
                each(number, Line::Whole(&partial, true));
            }
            return Ok(total);
        }
        let newline = memchr::memchr(b'\n', available);
        let taken = newline.map_or(available.len(), |at| at + 1);
        let piece = &available[..newline.unwrap_or(available.len())];
        hasher.update(&available[..taken]);
        total += taken as u64;
        match overlong.as_mut() {
            Some(length) => *length += piece.len(),
            None if partial.len() + piece.len() > MAX_LINE_BYTES => {
                overlong = Some(partial.len() + piece.len());
                partial = Vec::new();
            }
            None if newline.is_some() && partial.is_empty() => {
                // The common case: the whole line is in the buffer.
                number += 1;
                each(number, Line::Whole(piece, false));
                reader.consume(taken);
                continue;
            }
            None => partial.extend_from_slice(piece),
        }
        if newline.is_some() {
            number += 1;
            match overlong.take() {
                Some(length) => each(number, Line::TooLong(length)),
                None => each(number, Line::Whole(&partial, false)),
            }
            partial.clear();
        }
        reader.consume(taken);
    }
}

#[cfg(test)]
mod tests;
