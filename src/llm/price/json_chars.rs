//! Characters of a JSON value as `serde_json` writes it compactly,
//! counted without writing it (every tool input is counted on every run),
//! and a tool input shared between runs (a scripted model's) counted once.

use std::cell::RefCell;

use serde_json::Value;

use super::measured::{PGID_FINDER, WALL_TIME_FINDER};
use super::workdir::WorkdirSpelling;
use crate::llm::ToolInput;
use crate::llm::shared_slots::SharedSlots;

/// Characters of a tool input as [`json_chars`] counts them. An input
/// shared with something that outlives the run (a scripted model sends
/// the same inputs in every run) is walked once per thread: what it counts
/// with nothing replaced, and which bytes its strings hold, are kept, and
/// a later run whose workspace path cannot occur in it (no string holds
/// the first byte of any spelling of the path) takes that count as it is.
/// The count is the one [`json_chars`] gives, whatever the path.
pub fn input_chars(input: &ToolInput, workdir: &WorkdirSpelling) -> usize {
    // Held only here: nothing else will count it again.
    if std::sync::Arc::strong_count(input) < 2 {
        return json_chars(input, workdir);
    }
    let counted = COUNTED.with(|slots| {
        let mut slots = slots.borrow_mut();
        let slot = slots.slot(input)?;
        match slot {
            Some(known) if std::sync::Arc::ptr_eq(&known.input, input) => {}
            _ => *slot = Some(Counted::of(input)),
        }
        slot.as_ref().map(|known| known.plain_for(workdir))
    });
    counted
        .flatten()
        .unwrap_or_else(|| json_chars(input, workdir))
}

thread_local! {
    /// Shared inputs counted on this thread (each entry holds its input).
    static COUNTED: RefCell<SharedSlots<Counted>> = RefCell::new(SharedSlots::new(256));
}

/// One shared input, counted once.
struct Counted {
    input: ToolInput,
    /// Its characters with nothing replaced.
    plain: usize,
    /// The bytes its strings (keys included) hold, one bit each.
    bytes: [u64; 4],
    /// Whether a string of it holds a measured figure's head (a wall
    /// time, a process group), which is replaced whatever the path.
    measured: bool,
}

impl Counted {
    fn of(input: &ToolInput) -> Self {
        let mut counted = Self {
            input: std::sync::Arc::clone(input),
            plain: 0,
            bytes: [0; 4],
            measured: false,
        };
        counted.plain = walk(input, &mut |text| {
            for b in text.bytes() {
                if let Some(word) = counted.bytes.get_mut(usize::from(b >> 6)) {
                    *word |= 1 << (b & 63);
                }
            }
            let bytes = text.as_bytes();
            counted.measured |=
                WALL_TIME_FINDER.find(bytes).is_some() || PGID_FINDER.find(bytes).is_some();
            2 + escaped_chars(text)
        });
        counted
    }

    fn holds_byte(&self, b: u8) -> bool {
        self.bytes
            .get(usize::from(b >> 6))
            .is_some_and(|word| word & (1 << (b & 63)) != 0)
    }

    /// The count for `workdir` when nothing in the input can be replaced.
    fn plain_for(&self, workdir: &WorkdirSpelling) -> Option<usize> {
        let untouched = !self.measured
            && !workdir
                .spelling_first_bytes()
                .iter()
                .any(|b| self.holds_byte(*b));
        untouched.then_some(self.plain)
    }
}

/// Characters of `value` written as compact JSON, each string (key or
/// value) counted by `string`.
fn walk(value: &Value, string: &mut dyn FnMut(&str) -> usize) -> usize {
    match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_chars(n),
        Value::String(text) => string(text),
        Value::Array(items) => {
            2 + items.len().saturating_sub(1) + items.iter().map(|v| walk(v, string)).sum::<usize>()
        }
        Value::Object(map) => {
            2 + map.len().saturating_sub(1)
                + map
                    .iter()
                    .map(|(k, v)| string(k) + 1 + walk(v, string))
                    .sum::<usize>()
        }
    }
}

/// Characters of `value` written as compact JSON (as `serde_json` writes
/// it), each string counted with the workspace path as its placeholder;
/// counted without writing it (a run's inputs are counted on every run).
pub fn json_chars(value: &Value, workdir: &WorkdirSpelling) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_chars(n),
        Value::String(text) => string_chars(text, workdir),
        Value::Array(items) => {
            2 + items.len().saturating_sub(1)
                + items.iter().map(|v| json_chars(v, workdir)).sum::<usize>()
        }
        Value::Object(map) => {
            2 + map.len().saturating_sub(1)
                + map
                    .iter()
                    .map(|(k, v)| string_chars(k, workdir) + 1 + json_chars(v, workdir))
                    .sum::<usize>()
        }
    }
}

/// Characters of a JSON number as `serde_json` writes it (written to a
/// counter, not to a string).
pub(super) fn number_chars(n: &serde_json::Number) -> usize {
    struct Count(usize);
    impl std::fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0 += s.chars().count();
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter cannot fail.
    let _ = std::fmt::Write::write_fmt(&mut count, format_args!("{n}"));
    count.0
}

/// Characters of a JSON string literal: the quotes, and each character as
/// `serde_json` escapes it.
pub(super) fn string_chars(text: &str, workdir: &WorkdirSpelling) -> usize {
    2 + match workdir.replaced(text) {
        Some(replaced) => escaped_chars(&replaced),
        None => escaped_chars(text),
    }
}

/// Characters of `text` as `serde_json` escapes it, counted byte by byte:
/// a character's first byte counts (the bytes that continue a character,
/// `0b10xx_xxxx`, do not), a quote, backslash or short-escaped control
/// character counts 2, any other control character 6 (`\u00XX`).
#[allow(
    clippy::indexing_slicing,
    reason = "a byte indexes a table of 256 entries"
)]
pub(super) fn escaped_chars(text: &str) -> usize {
    text.bytes()
        .map(|b| usize::from(ESCAPED_LEN[usize::from(b)]))
        .sum()
}

/// What each byte counts for in [`escaped_chars`]: one table lookup a
/// byte (every string of every tool input is counted on every run).
#[allow(
    clippy::indexing_slicing,
    reason = "the loop runs b over 0..256, the table's length"
)]
pub(super) static ESCAPED_LEN: [u8; 256] = {
    let mut table = [1u8; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = match b as u8 {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..0x20 => 6,
            byte if byte & 0xC0 == 0x80 => 0,
            _ => 1,
        };
        b += 1;
    }
    table
};
