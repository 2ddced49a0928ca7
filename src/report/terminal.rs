//! Text for a terminal: what a scenario, a model or a tool wrote is shown,
//! never obeyed.
//!
//! Scenario names, step texts, settings and tool output reach the table
//! and replay views from files and models nobody vetted. Printed raw, an
//! escape sequence in them could recolour or clear the screen, move the
//! cursor over earlier lines, set the window title or hide text (and a
//! bidirectional override could make text read differently from what it
//! is). [`escape`] writes every such character as a visible escape
//! instead: C0 controls (but newline and tab in [`escape_multiline`]), DEL,
//! C1 controls, and the Unicode invisible formatting characters; the
//! bidirectional controls are dropped, as in every report
//! ([`super::escape::is_bidi_control`]).

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` would be acted on rather than shown.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{FEFF}'
        )
        || super::escape::is_bidi_control(c)
}

/// `text` on one line with every control and formatting character
/// escaped: `\x1b`, `\n`, `\t`, `\r`, `\x7f`, `\u{9b}`, `\u{200b}`; bidirectional controls go. Text
/// without any comes back as it is, without a copy.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_keeping(text, &[])
}

/// As [`escape`], but newlines and tabs are kept: for text shown as lines
/// (tool output, a message).
pub fn escape_multiline(text: &str) -> Cow<'_, str> {
    escape_keeping(text, &['\n', '\t'])
}

/// `text` without its SGR sequences (`ESC [ 1;33 m`: colours and text
/// styles), for text whose colours come from agent-eval itself (a
/// dialect's coloured plan). What is left still goes through [`escape`]:
/// stripping only removes, it never lets a sequence act.
#[allow(
    clippy::indexing_slicing,
    reason = "`at` is where `find` saw the one-byte ESC, `digits` counts ASCII bytes of `params`, and `len` (1 + digits + 1) ends at the `m` found there: every cut is inside the text, on a character boundary"
)]
pub fn strip_sgr(text: &str) -> Cow<'_, str> {
    if !text.contains('\x1b') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let sgr_len = after.strip_prefix('[').and_then(|params| {
            let digits = params
                .bytes()
                .take_while(|b| b.is_ascii_digit() || *b == b';')
                .count();
            params[digits..].starts_with('m').then_some(1 + digits + 1)
        });
        match sgr_len {
            Some(len) => rest = &after[len..],
            None => {
                out.push('\x1b');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

fn escape_keeping<'a>(text: &'a str, kept: &[char]) -> Cow<'a, str> {
    let unsafe_char = |c: char| is_unsafe(c) && !kept.contains(&c);
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !unsafe_char(c) {
            out.push(c);
            continue;
        }
        // Dropped, as in every report (`super::escape`): they only reorder.
        if super::escape::is_bidi_control(c) {
            continue;
        }
        let _ = match c {
            '\n' => write!(out, "\\n"),
            '\t' => write!(out, "\\t"),
            '\r' => write!(out, "\\r"),
            c if (c as u32) < 0x80 => write!(out, "\\x{:02x}", c as u32),
            c => write!(out, "\\u{{{:x}}}", c as u32),
        };
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_shown_not_obeyed() {
        assert_eq!(escape("plain text, ünïcode ✓"), "plain text, ünïcode ✓");
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        assert_eq!(
            escape("\x1b[2J\x1b]0;pwned\x07"),
            "\\x1b[2J\\x1b]0;pwned\\x07"
        );
        assert_eq!(escape("a\nb\tc\rd"), "a\\nb\\tc\\rd");
        assert_eq!(escape("\u{9b}31m\u{7f}"), "\\u{9b}31m\\x7f");
        assert_eq!(escape("abc\u{202e}fed\u{2066}\u{200f}"), "abcfed");
        assert_eq!(escape("zero\u{200b}width"), "zero\\u{200b}width");
        assert_eq!(escape_multiline("a\n\tb\x1b[31m"), "a\n\tb\\x1b[31m");
    }

    #[test]
    fn colours_can_be_stripped_and_the_rest_is_escaped() {
        let plan = "\x1b[33m[ ] - 1: a\x1b[0m\n\x1b[32mDone: 0/1\x1b[0m";
        assert_eq!(strip_sgr(plan), "[ ] - 1: a\nDone: 0/1");
        let hostile = "\x1b[2J\x1b[31mred\x1b]0;title\x07\x1b";
        let stripped = strip_sgr(hostile);
        assert_eq!(stripped, "\x1b[2Jred\x1b]0;title\x07\x1b");
        assert_eq!(escape(&stripped), "\\x1b[2Jred\\x1b]0;title\\x07\\x1b");
    }

    #[test]
    fn nothing_unsafe_survives() {
        for code in 0u32..0x3000 {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            let shown = escape(&c.to_string()).into_owned();
            assert!(!shown.chars().any(is_unsafe), "{code:x}: {shown:?}");
        }
    }
}
