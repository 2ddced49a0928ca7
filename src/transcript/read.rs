//! Reading transcript files and folders into sessions: the one entry
//! point calibration calls ([`read_paths`]).
//!
//! Each path is a file or a folder (every `*.jsonl` below it). A path
//! named by the caller is followed when it is a symbolic link (the user
//! chose it); below a folder, links are never followed, a system folder
//! (/proc, /sys, /dev, wherever mounted) is never walked nor a file in one
//! read, and `/` itself is never walked; the
//! files are read one at a time in sorted path order, each streamed line
//! by line through a bounded buffer, so memory stays flat in the size of
//! the corpus. A file's format is detected from its first records
//! ([`detect`], in `detect.rs`) unless the caller names one; its lines go to that
//! format's [`RecordReader`], and the sessions it yields go to the
//! caller's callback as each file ends.
//!
//! Bad input never stops the read: a line too long (over
//! [`MAX_LINE_BYTES`], never held whole), not JSON (binary garbage), too
//! deep (serde_json's recursion limit), too large as a tree (a line of
//! many small objects: built against a memory cap, `bounded`), not an object, a truncated last
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
use std::io::{self, BufRead, BufReader, Read, Seek};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::bounded::{self, ParseError};
use super::claude_code::ClaudeCodeReader;
use super::codex::CodexReader;
use super::detect::detect;
use super::run_log::RunLogReader;
use super::{Format, GroupBy, RecordReader, Session, group_key};

/// The longest line read; a longer one is skipped as it streams past.
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// How many skipped lines or files the summary names.
pub const FIRST_SKIPS: usize = 10;
/// Records a file may start with before its format is known.
const UNDECIDED_RECORDS: usize = 16;
/// Lines looked at for them.
const UNDECIDED_LINES: u64 = 64;
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
    /// JSON whose tree would take more memory than a line may
    /// ([`bounded::MAX_TREE_BYTES`]): read and dropped as it streams.
    TooLarge,
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
            Self::TooLarge => "too-large",
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
        if system_folder(path) {
            // A file or folder of the kernel's, named or reached by a
            // link: other processes' state, never read.
            let why = "in a system folder (/proc, /sys, /dev): never read";
            summary.skip(path, None, SkipReason::Unreadable, why.into());
        } else if meta.is_dir() && is_root(path) {
            let why = "the root folder is never walked: name the transcripts' folder";
            summary.skip(path, None, SkipReason::Unreadable, why.into());
        } else if meta.is_dir() {
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

/// Collects the `*.jsonl` files below `dir`. Symbolic links below it are
/// never followed (a link to `/` or back up the tree is not walked), nor
/// is a system folder ([`system_folder`]); `seen` holds the folders
/// walked (device, inode), so a folder mounted twice is walked once.
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
    if system_folder(dir) {
        let why = "a system folder (/proc, /sys, /dev) is never walked";
        return summary.skip(dir, None, SkipReason::Unreadable, why.into());
    }
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
        // The entry itself, never what a link points at.
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => walk(&path, seen, files, summary),
            Ok(meta) if path.extension().is_some_and(|e| e == "jsonl") => {
                if meta.is_file() {
                    files.push(path);
                } else {
                    // Said, not followed or opened: a link, a FIFO, a device.
                    let why = if meta.is_symlink() {
                        "a symbolic link below a folder (not followed)"
                    } else {
                        "not a regular file"
                    };
                    summary.skip(&path, None, SkipReason::Unreadable, why.into());
                }
            }
            Ok(_) => {}
            Err(e) if path.extension().is_some_and(|e| e == "jsonl") => {
                unreadable(summary, &path, e);
            }
            Err(_) => {}
        }
    }
}

/// Whether `dir` is `/` (named, or through links): walking it would read
/// every transcript on the machine, other users' and processes' too.
fn is_root(dir: &Path) -> bool {
    dir.canonicalize().is_ok_and(|c| c == Path::new("/"))
}

/// Whether `dir` (a folder or a file) is, or lies in, a folder of the kernel's own (procfs,
/// sysfs, devices, cgroups, debug and tracing file systems): its files are
/// other processes' state, not transcripts, and some never end.
fn system_folder(dir: &Path) -> bool {
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    if ["/proc", "/sys", "/dev"]
        .iter()
        .any(|root| canonical.starts_with(root))
    {
        return true;
    }
    // Mounted elsewhere (a container's bind mount): told by the file
    // system's type.
    const PSEUDO: [u64; 9] = [
        0x9fa0,      // proc
        0x6265_6572, // sysfs
        0x1cd1,      // devpts
        0x6367_7270, // cgroup2
        0x0027_e0eb, // cgroup
        0x6462_6720, // debugfs
        0x7472_6163, // tracefs
        0x7363_6673, // securityfs
        0xcafe_4a11, // bpf
    ];
    rustix::fs::statfs(&canonical).is_ok_and(|fs| PSEUDO.contains(&(fs.f_type as u64)))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The reader of `format`.
fn reader_for(format: Format) -> Box<dyn RecordReader> {
    match format {
        Format::ClaudeCode => Box::new(ClaudeCodeReader::new()),
        Format::Codex => Box::new(CodexReader::new()),
        Format::RunLog => Box::new(RunLogReader::default()),
    }
}

/// The format of the file `input` starts, from its first
/// [`UNDECIDED_RECORDS`] records within its first [`UNDECIDED_LINES`]
/// lines; each record is looked at and dropped, none is kept while the
/// format is undecided (the caller reads the file again from its start).
fn detect_file(input: impl Read) -> Option<Format> {
    let mut records = 0;
    let mut found = None;
    let _ = for_each_line(input, &mut Sha256::new(), |number, line| {
        let Line::Whole(bytes, _) = line else {
            return ControlFlow::Continue(());
        };
        if let Ok(value) = bounded::parse(bytes.strip_suffix(b"\r").unwrap_or(bytes))
            && value.is_object()
        {
            records += 1;
            found = detect(&value);
        }
        let done = found.is_some() || records >= UNDECIDED_RECORDS || number >= UNDECIDED_LINES;
        if done {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    found
}

/// One file's reading state.
struct FileRead<'a> {
    path: &'a Path,
    /// The file's reader; none for a file of no known format.
    reader: Option<Box<dyn RecordReader>>,
}

impl FileRead<'_> {
    fn record(&mut self, line: u64, value: Value, summary: &mut ReadSummary) {
        if let Some(reader) = self.reader.as_mut()
            && let Err(why) = reader.record(value)
        {
            summary.skip(self.path, Some(line), SkipReason::BadRecord, why.into());
        }
    }
}

/// Reads one file; returns its SHA-256 (none when it could not be opened).
fn read_file(
    path: &Path,
    opts: &ReadOptions,
    summary: &mut ReadSummary,
    on_session: &mut impl FnMut(Session),
) -> Option<[u8; 32]> {
    let opened = crate::input::open_regular(path).and_then(|mut file| {
        let format = match opts.format {
            Some(format) => Some(format),
            None => {
                let format = detect_file(&mut file);
                file.rewind()?;
                format
            }
        };
        Ok((file, format))
    });
    let (file, format) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            summary.skip(path, None, SkipReason::Unreadable, e.to_string());
            return None;
        }
    };
    let mut state = FileRead {
        path,
        reader: format.map(reader_for),
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
        ControlFlow::Continue(())
    });
    match outcome {
        Ok(bytes) => summary.bytes += bytes,
        Err(e) => summary.skip(path, None, SkipReason::Unreadable, e.to_string()),
    }
    summary.files += 1;
    let digest: [u8; 32] = hasher.finalize().into();
    finish_file(
        path,
        &digest,
        format,
        state.reader,
        opts,
        summary,
        on_session,
    );
    Some(digest)
}

/// Hands the sessions of a file read to the end to the caller (a file of
/// no known format is counted as such).
fn finish_file(
    path: &Path,
    digest: &[u8; 32],
    format: Option<Format>,
    reader: Option<Box<dyn RecordReader>>,
    opts: &ReadOptions,
    summary: &mut ReadSummary,
    on_session: &mut impl FnMut(Session),
) {
    let (Some(format), Some(reader)) = (format, reader) else {
        let why = "no record of a Claude Code transcript, a Codex rollout or a run log";
        return summary.skip(path, None, SkipReason::UnknownFormat, why.into());
    };
    *summary.files_by_format.entry(format).or_default() += 1;
    for mut session in reader.finish() {
        place(&mut session, path, digest, opts.group_by, summary.sessions);
        if passes(&session, opts) {
            summary.sessions += 1;
            on_session(session);
        } else {
            summary.sessions_filtered_out += 1;
        }
    }
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

/// Parses one line and hands a record to the file's reader. What is wrong
/// with a line is said in fixed words (and a column): never its text.
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
    let (reason, detail) = match bounded::parse(bytes) {
        Ok(value) if value.is_object() => return state.record(number, value, summary),
        Ok(_) => (
            SkipReason::NotAnObject,
            "a JSON value that is not an object".into(),
        ),
        Err(ParseError::TooLarge) => (
            SkipReason::TooLarge,
            format!(
                "a line whose JSON would take more than {} MiB to hold",
                bounded::MAX_TREE_BYTES >> 20
            ),
        ),
        Err(ParseError::Json(e)) if e.to_string().contains("recursion limit") => (
            SkipReason::TooDeep,
            format!("JSON nested too deep (column {})", e.column()),
        ),
        Err(ParseError::Json(e)) if last && e.is_eof() => (
            SkipReason::Truncated,
            "the last line ends before its JSON does".into(),
        ),
        Err(ParseError::Json(e)) => (
            SkipReason::NotJson,
            format!("not JSON (column {})", e.column()),
        ),
    };
    summary.skip(state.path, Some(number), reason, detail);
}

/// A line as [`for_each_line`] hands it over.
enum Line<'a> {
    /// The line without its newline; true when it is the last line and
    /// had none.
    Whole(&'a [u8], bool),
    /// A line over [`MAX_LINE_BYTES`]: its length so far when dropped.
    TooLong(usize),
}

/// Streams `input` line by line into `each` (1-based line numbers) until
/// it ends or `each` breaks, hashing every byte; holds at most
/// [`MAX_LINE_BYTES`] of a line. Returns the bytes read.
fn for_each_line(
    input: impl Read,
    hasher: &mut Sha256,
    mut each: impl FnMut(u64, Line) -> ControlFlow<()>,
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
                let _ = each(number, Line::TooLong(length));
            } else if !partial.is_empty() {
                number += 1;
                let _ = each(number, Line::Whole(&partial, true));
            }
            return Ok(total);
        }
        let newline = memchr::memchr(b'\n', available);
        let taken = newline.map_or(available.len(), |at| at + 1);
        let (whole, _) = available.split_at(taken);
        let piece = whole.strip_suffix(b"\n").unwrap_or(whole);
        hasher.update(whole);
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
                let flow = each(number, Line::Whole(piece, false));
                reader.consume(taken);
                if flow.is_break() {
                    return Ok(total);
                }
                continue;
            }
            None => partial.extend_from_slice(piece),
        }
        if newline.is_some() {
            number += 1;
            let flow = match overlong.take() {
                Some(length) => each(number, Line::TooLong(length)),
                None => each(number, Line::Whole(&partial, false)),
            };
            partial.clear();
            if flow.is_break() {
                return Ok(total);
            }
        }
        reader.consume(taken);
    }
}

#[cfg(test)]
mod tests;
