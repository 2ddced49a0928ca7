//! Scoring steps against the workspace: a step is completed when its check
//! holds on the files at the end of the run, whatever the model claimed.
//!
//! File checks read through the run's [`Workspace`] (in memory or on disk,
//! race-free, never opening a FIFO or a device) and compare as they read:
//! a file on disk is decoded and searched in chunks, so a check on a
//! 3 GB file uses a few hundred KiB, not 3 GB. The text compared is the
//! file's bytes decoded as UTF-8 with invalid sequences replaced (what
//! `String::from_utf8_lossy` gives), exactly as when files were read whole.

use std::borrow::Cow;
use std::io::Read;

use crate::agent::tools::BASH_TIMEOUT;
use crate::sandbox::command::{CommandSettings, run_command_in};
use crate::sandbox::workspace::{CheckSource, Workspace};
use crate::scenario::Check;

/// Bytes read from disk at a time.
const CHUNK: usize = 256 << 10;

/// Whether `check` holds in `workspace`. A missing or unreadable file (or
/// one that is not a regular file) fails `contains`, `not_contains` and
/// `equals`.
pub fn holds(check: &Check, workspace: &Workspace) -> bool {
    match check {
        Check::Contains { file, contains } => {
            scan(workspace, file.as_str(), Contains::new(contains)) == Some(true)
        }
        Check::NotContains { file, not_contains } => {
            scan(workspace, file.as_str(), Contains::new(not_contains)) == Some(false)
        }
        Check::Equals { file, equals } => {
            scan(workspace, file.as_str(), Equals::new(equals)) == Some(true)
        }
        Check::Exists { file, exists } => workspace.exists(file.as_str()) == *exists,
        Check::Command { command, exit_code } => {
            run_command_in(workspace, command, &CommandSettings::new(BASH_TIMEOUT))
                .is_ok_and(|outcome| outcome.exit_code == Some(*exit_code))
        }
    }
}

/// A comparison fed the decoded text piece by piece.
trait Matcher {
    /// Takes the next piece; `Some(answer)` once the answer is known.
    fn feed(&mut self, piece: &str) -> Option<bool>;
    /// The answer at the end of the text.
    fn finish(self) -> bool;
}

/// Streams the file's lossy-decoded text into `matcher`; `None` when the
/// file cannot be read.
fn scan(workspace: &Workspace, file: &str, mut matcher: impl Matcher) -> Option<bool> {
    match workspace.open_for_check(file)? {
        CheckSource::Memory(bytes) => {
            // Nearly every file is valid UTF-8: checked in one pass, decoded
            // piece by piece only when it is not.
            let text: Cow<'_, str> = match std::str::from_utf8(&bytes) {
                Ok(text) => Cow::Borrowed(text),
                Err(_) => String::from_utf8_lossy(&bytes),
            };
            Some(matcher.feed(&text).unwrap_or_else(|| matcher.finish()))
        }
        CheckSource::Disk(reader) => stream(reader, CHUNK, matcher),
    }
}

/// Feeds `reader`'s lossy-decoded text to `matcher`, `chunk` bytes at a
/// time; `None` on a read error.
fn stream(mut reader: impl Read, chunk: usize, mut matcher: impl Matcher) -> Option<bool> {
    // Room for a chunk plus the (at most 3) bytes of a UTF-8 sequence cut
    // by the previous chunk's end.
    let mut buf = vec![0u8; chunk + 4];
    let mut carried = 0usize;
    loop {
        // `carried` is at most 3 and `buf` a chunk and 4 bytes long.
        let window = buf.get_mut(carried..carried + chunk)?;
        let n = match reader.read(window) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        let at_end = n == 0;
        let filled = carried + n;
        let (answer, rest) =
            decode_lossy(buf.get(..filled).unwrap_or_default(), at_end, &mut matcher);
        if answer.is_some() {
            return answer;
        }
        if at_end {
            return Some(matcher.finish());
        }
        buf.copy_within(filled - rest..filled, 0);
        carried = rest;
    }
}

/// Decodes `bytes` as `from_utf8_lossy` would and feeds the pieces;
/// returns an early answer, and how many trailing bytes form an incomplete
/// sequence to carry into the next chunk (none `at_end`).
fn decode_lossy(bytes: &[u8], at_end: bool, matcher: &mut impl Matcher) -> (Option<bool>, usize) {
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(text) => return (matcher.feed(text), 0),
            Err(e) => {
                let valid = e.valid_up_to();
                let good = rest
                    .get(..valid)
                    .and_then(|b| std::str::from_utf8(b).ok())
                    .unwrap_or_default();
                if let Some(answer) = matcher.feed(good) {
                    return (Some(answer), 0);
                }
                match e.error_len() {
                    Some(len) => {
                        if let Some(answer) = matcher.feed("\u{FFFD}") {
                            return (Some(answer), 0);
                        }
                        rest = rest.get(valid + len..).unwrap_or_default();
                    }
                    None if at_end => return (matcher.feed("\u{FFFD}"), 0),
                    None => return (None, rest.len() - valid),
                }
            }
        }
    }
}

/// Substring search across pieces: keeps the last `needle.len() - 1`
/// bytes seen, to catch a match cut by a piece boundary. Bytes are
/// searched (a valid UTF-8 needle can only match a valid UTF-8 text at a
/// character boundary, so this is the `str` answer).
struct Contains<'a> {
    needle: &'a [u8],
    tail: Vec<u8>,
}

impl<'a> Contains<'a> {
    fn new(needle: &'a str) -> Self {
        Self {
            needle: needle.as_bytes(),
            tail: Vec::new(),
        }
    }
}

/// Whether `needle` (not empty) occurs in `haystack`: libc's `memmem`,
/// which stays fast on gigabytes even in an unoptimized build.
fn find(haystack: &[u8], needle: &[u8]) -> bool {
    if haystack.len() < needle.len() {
        return false;
    }
    // SAFETY: both pointers are valid for the lengths given (taken from
    // live slices); memmem only reads them and returns a pointer into
    // `haystack` or null, which is only compared with null.
    let found = unsafe {
        libc::memmem(
            haystack.as_ptr().cast(),
            haystack.len(),
            needle.as_ptr().cast(),
            needle.len(),
        )
    };
    !found.is_null()
}

impl Matcher for Contains<'_> {
    fn feed(&mut self, piece: &str) -> Option<bool> {
        let needle = self.needle;
        if needle.is_empty() {
            return Some(true);
        }
        let piece = piece.as_bytes();
        let keep = needle.len() - 1;
        if !self.tail.is_empty() {
            // Matches that start in earlier pieces end in this one's first
            // `keep` bytes.
            self.tail
                .extend_from_slice(piece.get(..keep.min(piece.len())).unwrap_or(piece));
            if find(&self.tail, needle) {
                return Some(true);
            }
        }
        if find(piece, needle) {
            return Some(true);
        }
        if piece.len() >= keep {
            self.tail.clear();
            self.tail
                .extend_from_slice(piece.get(piece.len() - keep..).unwrap_or(piece));
        } else {
            // The tail already holds the whole (short) piece.
            if self.tail.is_empty() {
                self.tail.extend_from_slice(piece);
            }
            let excess = self.tail.len().saturating_sub(keep);
            self.tail.drain(..excess);
        }
        None
    }

    fn finish(self) -> bool {
        // An empty needle is in every text, even an empty one.
        self.needle.is_empty()
    }
}

/// Equality across pieces: compares each piece with the expected text's
/// next bytes, stopping at the first difference.
struct Equals<'a> {
    expected: &'a [u8],
    seen: usize,
}

impl<'a> Equals<'a> {
    fn new(expected: &'a str) -> Self {
        Self {
            expected: expected.as_bytes(),
            seen: 0,
        }
    }
}

impl Matcher for Equals<'_> {
    fn feed(&mut self, piece: &str) -> Option<bool> {
        let end = self.seen + piece.len();
        if self.expected.get(self.seen..end) != Some(piece.as_bytes()) {
            return Some(false);
        }
        self.seen = end;
        None
    }

    fn finish(self) -> bool {
        self.seen == self.expected.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::WorkspacePath;
    use proptest::prelude::*;
    use std::fs;

    /// The answers of reading whole, as files were checked before.
    fn whole(bytes: &[u8], needle: &str) -> (bool, bool) {
        let text = String::from_utf8_lossy(bytes);
        (text.contains(needle), text == needle)
    }

    fn streamed(bytes: &[u8], needle: &str, chunk: usize) -> (bool, bool) {
        (
            stream(bytes, chunk, Contains::new(needle)) == Some(true),
            stream(bytes, chunk, Equals::new(needle)) == Some(true),
        )
    }

    proptest! {
        #[test]
        fn streaming_answers_as_reading_whole(
            bytes in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(0xc3u8), Just(0xa9u8), Just(0xe2u8), Just(0x82u8), Just(0xffu8)], 0..40),
            needle in "(a|b|é|\u{FFFD}){0,5}",
            chunk in 1usize..9,
        ) {
            prop_assert_eq!(streamed(&bytes, &needle, chunk), whole(&bytes, &needle));
        }
    }

    #[test]
    fn streaming_edge_cases() {
        for (bytes, needle) in [
            (&b""[..], ""),
            (b"", "a"),
            (b"abc", ""),
            (b"ab\xc3", "b\u{FFFD}"),
            (b"\xc3\xa9t\xc3\xa9", "\u{e9}t\u{e9}"),
            (b"\xe2\x82", "\u{FFFD}"),
            (b"xxab", "ab"),
        ] {
            for chunk in 1..6 {
                assert_eq!(
                    streamed(bytes, needle, chunk),
                    whole(bytes, needle),
                    "{bytes:?} {needle:?} {chunk}"
                );
            }
        }
    }

    fn file(path: &str) -> WorkspacePath {
        WorkspacePath::parse(path).unwrap()
    }

    #[test]
    fn every_check_kind() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let workspace = Workspace::on_disk(&root).unwrap();
        fs::write(root.join("a.txt"), "hello world").unwrap();
        let cases = [
            (
                Check::Contains {
                    file: file("a.txt"),
                    contains: "world".into(),
                },
                true,
            ),
            (
                Check::Contains {
                    file: file("missing"),
                    contains: "".into(),
                },
                false,
            ),
            (
                Check::NotContains {
                    file: file("a.txt"),
                    not_contains: "bye".into(),
                },
                true,
            ),
            (
                Check::NotContains {
                    file: file("missing"),
                    not_contains: "bye".into(),
                },
                false,
            ),
            (
                Check::Equals {
                    file: file("a.txt"),
                    equals: "hello world".into(),
                },
                true,
            ),
            (
                Check::Equals {
                    file: file("a.txt"),
                    equals: "hello".into(),
                },
                false,
            ),
            (
                Check::Exists {
                    file: file("a.txt"),
                    exists: true,
                },
                true,
            ),
            (
                Check::Exists {
                    file: file("b.txt"),
                    exists: false,
                },
                true,
            ),
            (
                Check::Command {
                    command: "grep -q hello a.txt".into(),
                    exit_code: 0,
                },
                true,
            ),
            (
                Check::Command {
                    command: "exit 3".into(),
                    exit_code: 3,
                },
                true,
            ),
            (
                Check::Command {
                    command: "exit 3".into(),
                    exit_code: 0,
                },
                false,
            ),
        ];
        for (check, expected) in cases {
            assert_eq!(holds(&check, &workspace), expected, "{check}");
        }
    }
}
