//! `read_file`, `write_file` and `edit_file` on a run's [`Workspace`]
//! (in memory or on disk; the workspace keeps them inside and refuses
//! anything but regular files).

use super::{EditFileArgs, MAX_OUTPUT_CHARS, ReadFileArgs, ToolError, WriteFileArgs, cut_chars};
use crate::sandbox::workspace::Workspace;

/// Reads a file as UTF-8 text with universal newlines (`\r\n` and `\r`
/// become `\n`), as Python's `read_text()` does; a decoding error is worded
/// as Python's.
fn read_text(workspace: &Workspace, path: &str) -> Result<String, ToolError> {
    let bytes = workspace.read(path)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let utf8 = e.utf8_error();
        let at = utf8.valid_up_to();
        let byte = e.as_bytes().get(at).copied().unwrap_or(0);
        let reason = match utf8.error_len() {
            None => "unexpected end of data",
            Some(_) if (0x80..0xc0).contains(&byte) || byte >= 0xf5 => "invalid start byte",
            Some(_) => "invalid continuation byte",
        };
        ToolError::File(format!(
            "'utf-8' codec can't decode byte 0x{byte:02x} in position {at}: {reason}"
        ))
    })?;
    Ok(universal_newlines(text))
}

/// `\r\n` and lone `\r` become `\n` (Python's text-mode reading).
pub fn universal_newlines(text: String) -> String {
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text
    }
}

/// The file's lines joined by `\n`; with `0 < limit < lines`, the first
/// `limit` lines and a `... (<rest> more)` line. Cut at 50000 characters.
pub fn read_file(workspace: &Workspace, args: &ReadFileArgs) -> Result<String, ToolError> {
    let text = read_text(workspace, &args.path)?;
    let limit = args
        .limit
        .and_then(|l| usize::try_from(l).ok())
        .filter(|l| *l > 0);
    let shown = if breaks_only_at_newlines(&text) {
        newline_lines(text, limit)
    } else {
        split_lines_shown(&text, limit)
    };
    // A text of at most that many bytes has at most that many characters.
    Ok(if shown.len() <= MAX_OUTPUT_CHARS {
        shown
    } else {
        cut_chars(&shown, MAX_OUTPUT_CHARS).to_string()
    })
}

/// The file's lines joined by `\n`, the first `limit` of them and a
/// `... (<rest> more)` line when there are more: every line split as
/// `content` with its first `old` replaced by `new` (`replacen(old, new,
/// 1)`), or `None` when it holds no `old`: found once and spliced, where
/// `contains` then `replacen` searched twice.
fn replace_first(content: &str, old: &str, new: &str) -> Option<String> {
    let at = find_first(content, old)?;
    let head = content.get(..at)?;
    let tail = content.get(at + old.len()..)?;
    Some([head, new, tail].concat())
}

/// Where `needle` first occurs in `text` (`str::find`). A short text is
/// searched at each occurrence of the needle's first byte: setting up
/// `str::find`'s searcher cost more than the search in the few dozen bytes
/// an edited file mostly holds; a longer one (where that search could take
/// the text's length times the needle's) goes to `str::find`.
fn find_first(text: &str, needle: &str) -> Option<usize> {
    const SHORT: usize = 256;
    let (Some(&first), true) = (needle.as_bytes().first(), text.len() <= SHORT) else {
        return text.find(needle);
    };
    let bytes = text.as_bytes();
    memchr::memchr_iter(first, bytes).find(|&at| {
        bytes
            .get(at..)
            .is_some_and(|rest| rest.starts_with(needle.as_bytes()))
    })
}

/// Python's `str.splitlines()` splits it.
fn split_lines_shown(text: &str, limit: Option<usize>) -> String {
    let mut lines = split_lines(text);
    let rest_line;
    if let Some(limit) = limit
        && limit < lines.len()
    {
        rest_line = format!("... ({} more)", lines.len() - limit);
        lines.truncate(limit);
        lines.push(&rest_line);
    }
    lines.join("\n")
}

/// Whether `\n` is the only line boundary `str.splitlines()` would find in
/// `text` (no `\r`, `\v`, `\f`, `\x1c`-`\x1e`, and no byte that starts
/// U+0085, U+2028 or U+2029): true of nearly every file a model reads.
fn breaks_only_at_newlines(text: &str) -> bool {
    // A chunk at a time, each without an early exit so that the compiler
    // tests many bytes at once (byte by byte, this was most of a short
    // file's `read_file`); a long text still stops at its first break.
    !text.as_bytes().chunks(64).any(|chunk| {
        chunk.iter().fold(false, |found, b| {
            found | matches!(b, b'\r' | 0x0b | 0x0c | 0x1c..=0x1e | 0xc2 | 0xe2)
        })
    })
}

/// [`read_file`]'s answer for a text whose only line boundary is `\n`,
/// without splitting it: its lines joined by `\n` are the text without
/// its last newline.
fn newline_lines(mut text: String, limit: Option<usize>) -> String {
    let body_len = text.strip_suffix('\n').unwrap_or(&text).len();
    let body = &text[..body_len];
    let lines = if text.is_empty() {
        0
    } else {
        memchr::memchr_iter(b'\n', body.as_bytes()).count() + 1
    };
    if let Some(limit) = limit
        && limit < lines
    {
        // `limit < lines` newlines end the first `limit` lines.
        let end = memchr::memchr_iter(b'\n', body.as_bytes())
            .nth(limit - 1)
            .unwrap_or(body_len);
        // Written piece by piece: `format!` cost more than the rest.
        let mut rest = itoa::Buffer::new();
        return [
            &body[..end],
            "\n... (",
            rest.format(lines - limit),
            " more)",
        ]
        .concat();
    }
    text.truncate(body_len);
    text
}

/// Creates parent folders and writes `content`: `Wrote <chars> bytes`.
pub fn write_file(workspace: &Workspace, args: &WriteFileArgs) -> Result<String, ToolError> {
    workspace.write(&args.path, args.content.as_bytes(), true)?;
    // Written piece by piece: `format!` cost more than the write itself.
    let mut count = itoa::Buffer::new();
    Ok([
        "Wrote ",
        count.format(args.content.chars().count()),
        " bytes",
    ]
    .concat())
}

/// Replaces the first occurrence of `old_text`.
pub fn edit_file(workspace: &Workspace, args: &EditFileArgs) -> Result<String, ToolError> {
    let content = read_text(workspace, &args.path)?;
    let edited = replace_first(&content, &args.old_text, &args.new_text).ok_or_else(|| {
        ToolError::TextNotFound {
            path: args.path.to_string(),
        }
    })?;
    workspace.write(&args.path, edited.as_bytes(), false)?;
    Ok(["Edited ", &args.path].concat())
}

/// Python's `str.splitlines()`: splits on every line boundary it knows and
/// drops the boundaries; no empty last line for a trailing newline.
pub fn split_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let is_break = matches!(
            c,
            '\n' | '\r'
                | '\x0b'
                | '\x0c'
                | '\x1c'
                | '\x1d'
                | '\x1e'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if !is_break {
            continue;
        }
        lines.push(&text[start..i]);
        let mut end = i + c.len_utf8();
        if c == '\r'
            && let Some(&(j, '\n')) = chars.peek()
        {
            chars.next();
            end = j + 1;
        }
        start = end;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::fs;
    use std::path::Path;

    fn setup() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        (dir, root)
    }

    fn ws(root: &Path) -> Workspace {
        Workspace::on_disk(root).unwrap()
    }

    fn read(root: &Path, path: &str, limit: Option<i64>) -> Result<String, String> {
        read_file(
            &ws(root),
            &ReadFileArgs {
                path: path.into(),
                limit,
            },
        )
        .map_err(|e| e.to_string())
    }

    /// The fast path gives what splitting every line gives.
    #[test]
    fn newline_only_texts_read_as_split_lines_do() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\n\n",
            "\n\na",
            "1\n2\n3\n4\n",
            "é\nü\n\nx",
        ] {
            assert!(breaks_only_at_newlines(text));
            for limit in [None, Some(1), Some(2), Some(3), Some(4), Some(9)] {
                assert_eq!(
                    newline_lines(text.to_string(), limit),
                    split_lines_shown(text, limit),
                    "{text:?} {limit:?}"
                );
            }
        }
        for text in ["a\rb", "a\u{85}b", "a\u{2028}b", "a\x0bb", "a\x1eb"] {
            assert!(!breaks_only_at_newlines(text), "{text:?}");
        }
    }

    proptest::proptest! {
        /// Chunked, the test finds what testing byte by byte finds, in
        /// texts longer than a chunk too.
        #[test]
        fn breaks_are_found_in_any_chunk(
            text in "[ab\n\r\u{85}\u{2028}\u{1e}\u{e9}]{0,3}",
            pad in 0usize..140,
        ) {
            let text = format!("{}{text}{}", "x".repeat(pad), "y".repeat(pad % 70));
            let by_byte = !text
                .bytes()
                .any(|b| matches!(b, b'\r' | 0x0b | 0x0c | 0x1c..=0x1e | 0xc2 | 0xe2));
            proptest::prop_assert_eq!(breaks_only_at_newlines(&text), by_byte);
        }

        /// Any text, any limit: the fast path (when it applies) answers as
        /// splitting every line does.
        #[test]
        fn newline_lines_is_split_lines(
            text in "[ab\n\r\u{85}\u{2028}é\x0b]{0,12}",
            limit in proptest::option::of(0usize..8),
        ) {
            if breaks_only_at_newlines(&text) {
                let limit = limit.filter(|l| *l > 0);
                proptest::prop_assert_eq!(
                    newline_lines(text.clone(), limit),
                    split_lines_shown(&text, limit)
                );
            } else {
                let other_break = text.contains(['\r', '\u{85}', '\u{2028}', '\x0b']);
                proptest::prop_assert!(other_break, "{:?}", text);
            }
        }
    }

    #[test]
    fn splitlines_matches_python() {
        assert_eq!(split_lines("a\nb\n"), ["a", "b"]);
        assert_eq!(split_lines("a\r\nb\rc"), ["a", "b", "c"]);
        assert_eq!(split_lines("a\n\nb"), ["a", "", "b"]);
        assert!(split_lines("").is_empty());
    }

    #[test]
    fn read_with_and_without_limit() {
        let (_d, root) = setup();
        fs::write(root.join("f.txt"), "1\n2\n3\n4\n").unwrap();
        assert_eq!(read(&root, "f.txt", None).unwrap(), "1\n2\n3\n4");
        assert_eq!(read(&root, "f.txt", Some(2)).unwrap(), "1\n2\n... (2 more)");
        assert_eq!(read(&root, "f.txt", Some(4)).unwrap(), "1\n2\n3\n4");
        assert_eq!(read(&root, "f.txt", Some(0)).unwrap(), "1\n2\n3\n4");
        assert_eq!(read(&root, "f.txt", Some(-1)).unwrap(), "1\n2\n3\n4");
        assert_eq!(
            read(&root, "missing.txt", None).unwrap_err(),
            format!(
                "[Errno 2] No such file or directory: '{}'",
                root.join("missing.txt").display()
            )
        );
        fs::write(root.join("bad.txt"), b"ok\xff").unwrap();
        assert_eq!(
            read(&root, "bad.txt", None).unwrap_err(),
            "'utf-8' codec can't decode byte 0xff in position 2: invalid start byte"
        );
        assert_eq!(
            read(&root, "../f.txt", None).unwrap_err(),
            "Path escapes workspace: ../f.txt"
        );
    }

    #[test]
    fn write_creates_parents_and_counts_characters() {
        let (_d, root) = setup();
        let args = WriteFileArgs {
            path: "deep/er/é.txt".into(),
            content: "héllo".into(),
        };
        assert_eq!(write_file(&ws(&root), &args).unwrap(), "Wrote 5 bytes");
        assert_eq!(
            fs::read_to_string(root.join("deep/er/é.txt")).unwrap(),
            "héllo"
        );
    }

    #[test]
    fn edits_see_universal_newlines_like_python() {
        let (_d, root) = setup();
        fs::write(root.join("crlf"), "a\r\nb\r\n").unwrap();
        let args = EditFileArgs {
            path: "crlf".into(),
            old_text: "a\nb".into(),
            new_text: "c\nd".into(),
        };
        assert_eq!(edit_file(&ws(&root), &args).unwrap(), "Edited crlf");
        assert_eq!(fs::read_to_string(root.join("crlf")).unwrap(), "c\nd\n");
    }

    proptest::proptest! {
        #[test]
        fn replace_first_is_replacen_once(
            content in "[ab\u{e9}\n]{0,12}",
            old in "[ab\u{e9}]{0,3}",
            new in "[xy\u{e9}]{0,3}",
        ) {
            let expected = content
                .contains(old.as_str())
                .then(|| content.replacen(old.as_str(), &new, 1));
            proptest::prop_assert_eq!(replace_first(&content, &old, &new), expected);
            // Longer texts, searched byte by byte and past that.
            for repeat in [40, 100] {
                let long = format!("{}{content}", "a\u{e9}b".repeat(repeat));
                proptest::prop_assert_eq!(find_first(&long, &old), long.find(old.as_str()));
            }
        }
    }

    #[test]
    fn edit_replaces_first_occurrence_only() {
        let (_d, root) = setup();
        fs::write(root.join("f"), "a a a").unwrap();
        let edit = |old: &str| {
            edit_file(
                &ws(&root),
                &EditFileArgs {
                    path: "f".into(),
                    old_text: old.into(),
                    new_text: "b".into(),
                },
            )
            .map_err(|e| e.to_string())
        };
        assert_eq!(edit("a").unwrap(), "Edited f");
        assert_eq!(fs::read_to_string(root.join("f")).unwrap(), "b a a");
        assert_eq!(edit("zzz").unwrap_err(), "Text not found in f");
    }
}
