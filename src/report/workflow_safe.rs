//! The one sink every line of agent-eval's own output passes through
//! inside GitHub Actions ([`WorkflowSafe`]), so that no text from a
//! scenario, a model, an agent, a transcript or a file name can become a
//! command to the runner.
//!
//! The runner reads every line of a step's output (stdout and stderr, a
//! line ending at `\n` or `\r`) and obeys it when it starts, after
//! whitespace, with `::` (`::error::`, `::stop-commands::TOKEN`,
//! `::add-mask::`) or holds the older `##[` form anywhere. agent-eval's
//! output is full of foreign text — headings are scenario names, replay
//! prints the model's words — so instead of escaping each place, every
//! byte written to stdout and stderr goes through this writer, which puts
//! `| ` in front of a line that would be a command and breaks `##[` with a
//! zero-width space. The only commands that pass are agent-eval's own
//! annotations: [`trusted`] marks their lines with a per-process random
//! marker (foreign text cannot know it), which the writer takes off. The
//! marker never reaches the output, so the output stays the same from run
//! to run.

use std::io::{self, Write};
use std::sync::OnceLock;

/// What goes in front of a line that would otherwise be a command.
pub const PREFIX: &str = "| ";
/// The older command form the runner finds anywhere in a line.
const LEGACY: &str = "##[";
/// `##[` with a zero-width space inside: shown alike, never obeyed.
const LEGACY_BROKEN: &str = "#\u{200b}#[";

/// The marker of this process's trusted lines, once a sink exists.
static MARKER: OnceLock<String> = OnceLock::new();

/// A fresh marker: control characters (dropped from every foreign text
/// shown) around 128 random bits from the standard library's OS-seeded
/// hasher keys.
fn new_marker() -> String {
    use std::hash::{BuildHasher, Hasher};
    let random = |salt: u64| {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(salt);
        hasher.finish()
    };
    format!("\u{1}{:016x}{:016x}\u{2}", random(1), random(2))
}

/// `text` (one or more lines, agent-eval's own workflow commands) marked
/// to pass a [`WorkflowSafe`] sink unchanged; unchanged when no sink
/// exists (outside GitHub Actions nothing filters).
pub fn trusted(text: &str) -> String {
    let Some(marker) = MARKER.get() else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len() + marker.len());
    for line in text.split_inclusive('\n') {
        out.push_str(marker);
        out.push_str(line);
    }
    out
}

/// A writer that passes every line through unless it would be a workflow
/// command (see the module's doc). Lines are held until they end (or a
/// flush), then written whole.
pub struct WorkflowSafe<W: Write> {
    inner: W,
    line: Vec<u8>,
    /// The held bytes continue a line a flush already wrote the start of.
    mid_line: bool,
    marker: &'static str,
}

impl<W: Write> WorkflowSafe<W> {
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            line: Vec::new(),
            mid_line: false,
            marker: MARKER.get_or_init(new_marker),
        }
    }

    /// Writes the held line (with its end, if any) as it may be shown.
    fn emit(&mut self) -> io::Result<()> {
        let text = String::from_utf8_lossy(&self.line);
        let ended = self.line.ends_with(b"\n") || self.line.ends_with(b"\r");
        let shown = shown_line(&text, self.marker, !self.mid_line, ended);
        self.inner.write_all(shown.as_bytes())?;
        self.mid_line = !ended;
        self.line.clear();
        Ok(())
    }
}

/// One line (its end included) as it may be shown: the marker taken off a
/// trusted line; else `##[` broken, and [`PREFIX`] before a line that
/// starts, after blanks, with `::`.
pub fn safe_line(line: &str, marker: &str) -> String {
    shown_line(line, marker, true, true)
}

/// [`safe_line`] of a piece of a line: `at_start` when it starts the line
/// (not the rest of one a flush cut), `ended` when it ends it. Besides the
/// line's start, every start after a character some readers take as a line
/// break (U+000B, U+000C, NEL, U+2028, U+2029) is judged too; an unended
/// piece that may still become a command (blank, or `:`) is marked now,
/// as its rest will not be judged.
fn shown_line(line: &str, marker: &str, at_start: bool, ended: bool) -> String {
    if at_start && let Some(own) = line.strip_prefix(marker) {
        return own.to_string();
    }
    let line = line.replace(marker, "").replace(LEGACY, LEGACY_BROKEN);
    let mut shown = String::with_capacity(line.len() + PREFIX.len());
    let mut judge = at_start;
    let mut rest = line.as_str();
    loop {
        let (piece, next) = match rest.char_indices().find(|&(_, c)| soft_break(c)) {
            Some((at, c)) => rest.split_at(at + c.len_utf8()),
            None => (rest, ""),
        };
        if judge && may_command(piece, ended || !next.is_empty()) {
            shown.push_str(PREFIX);
        }
        shown.push_str(piece);
        if next.is_empty() {
            return shown;
        }
        judge = true;
        rest = next;
    }
}

/// Characters some readers end a line at besides `\n` and `\r`.
fn soft_break(c: char) -> bool {
    matches!(c, '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Characters shown as blank or as nothing: whitespace, controls, and the
/// invisible format characters (zero-width, bidi controls, joiners, BOM).
fn blank(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || matches!(
            c,
            '\u{AD}'
                | '\u{34F}'
                | '\u{61C}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// Whether `piece`, read from a line start, is a command once its blanks
/// are skipped; or, when not `complete`, may still become one.
fn may_command(piece: &str, complete: bool) -> bool {
    let rest = piece.trim_start_matches(blank);
    rest.starts_with("::") || (!complete && "::".starts_with(rest))
}

impl<W: Write> Write for WorkflowSafe<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut rest = bytes;
        while let Some(end) = rest.iter().position(|b| matches!(b, b'\n' | b'\r')) {
            // `end` is a position in `rest`: the split is within it.
            let (line, tail) = rest.split_at(end + 1);
            self.line.extend_from_slice(line);
            self.emit()?;
            rest = tail;
        }
        self.line.extend_from_slice(rest);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // A line cut by a flush is judged on what it holds so far; its
        // rest then continues that line.
        if !self.line.is_empty() {
            self.emit()?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for WorkflowSafe<W> {
    fn drop(&mut self) {
        if !self.line.is_empty() {
            let _ = self.emit();
        }
        let _ = self.inner.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(chunks: &[&str]) -> String {
        let mut sink = WorkflowSafe::new(Vec::new());
        for chunk in chunks {
            sink.write_all(chunk.as_bytes()).unwrap();
        }
        sink.flush().unwrap();
        String::from_utf8(std::mem::take(&mut sink.inner)).unwrap()
    }

    #[test]
    fn a_line_that_would_be_a_command_is_shown_not_obeyed() {
        assert_eq!(through(&["::stop-commands::x\n"]), "| ::stop-commands::x\n");
        assert_eq!(through(&["  \t::error::x\n"]), "|   \t::error::x\n");
        assert_eq!(through(&["a\r::add-mask::y\n"]), "a\r| ::add-mask::y\n");
        assert_eq!(through(&["ok ##[error]x\n"]), "ok #\u{200b}#[error]x\n");
        // Split across writes, and in the middle of a line: one decision.
        assert_eq!(
            through(&[":", ":warning::z\nplain", " text\n"]),
            "| ::warning::z\nplain text\n"
        );
        assert_eq!(through(&["name: ::x\n"]), "name: ::x\n");
        // A flush in the middle of a line: its rest is no line start.
        let mut sink = WorkflowSafe::new(Vec::new());
        sink.write_all(b"::a").unwrap();
        sink.flush().unwrap();
        sink.write_all(b"::b\n::c\n").unwrap();
        assert_eq!(sink.inner, b"| ::a::b\n| ::c\n");
    }

    /// Every spelling of a line start: blanks the runner trims (Unicode
    /// whitespace), invisible characters a reader skips (zero-width, bidi,
    /// BOM), and the other characters some readers break lines at.
    #[test]
    fn every_spelling_of_a_line_start_is_judged() {
        for lead in [
            " ",
            "\t",
            "\u{a0}",
            "\u{3000}",
            "\u{200b}",
            "\u{200e}",
            "\u{202e}",
            "\u{2066}",
            "\u{feff}",
            "\u{ad}",
            "\u{1b}",
            "\u{200b} \u{202e}",
        ] {
            let line = format!("{lead}::error::x\n");
            assert_eq!(through(&[&line]), format!("| {line}"), "{lead:?}");
        }
        for gap in ["\u{b}", "\u{c}", "\u{85}", "\u{2028}", "\u{2029}"] {
            let line = format!("ok{gap}::error::x{gap} \u{200b}::warning::y\n");
            let want = format!("ok{gap}| ::error::x{gap}|  \u{200b}::warning::y\n");
            assert_eq!(through(&[&line]), want, "{gap:?}");
            assert_eq!(
                through(&[&format!("ok{gap}fine\n")]),
                format!("ok{gap}fine\n")
            );
        }
        // A flush inside the `::` (or before it): marked then, as its rest
        // is no line start.
        for (cut, rest) in [(":", ":error::x\n"), ("\u{200b}", "::error::x\n")] {
            let mut sink = WorkflowSafe::new(Vec::new());
            sink.write_all(cut.as_bytes()).unwrap();
            sink.flush().unwrap();
            sink.write_all(rest.as_bytes()).unwrap();
            sink.flush().unwrap();
            let shown = String::from_utf8(std::mem::take(&mut sink.inner)).unwrap();
            assert_eq!(shown, format!("| {cut}{rest}"));
        }
        assert_eq!(through(&["a: ::x\u{200b}\n"]), "a: ::x\u{200b}\n");
    }

    #[test]
    fn only_lines_marked_trusted_pass_as_commands() {
        let mut sink = WorkflowSafe::new(Vec::new());
        let own = trusted("::error title=a::b\n::error title=c::d\n");
        writeln!(sink, "{own}::error::forged").unwrap();
        sink.flush().unwrap();
        assert_eq!(
            String::from_utf8(std::mem::take(&mut sink.inner)).unwrap(),
            "::error title=a::b\n::error title=c::d\n| ::error::forged\n"
        );
        // The marker inside foreign text is dropped, never honoured.
        let marker = MARKER.get().unwrap();
        assert_eq!(
            safe_line(&format!(" {marker}::error::x\n"), marker),
            "|  ::error::x\n"
        );
    }
}
