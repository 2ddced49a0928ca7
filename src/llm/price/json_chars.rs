//! Characters of a JSON value as `serde_json` writes it compactly,
//! counted without writing it (every tool input is counted on every run).

use serde_json::Value;

use super::workdir::WorkdirSpelling;

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
