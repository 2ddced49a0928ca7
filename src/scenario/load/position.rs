//! Where something is written in a scenario's text (1-based line and
//! column): a spanned value, a top-level key, a key after a place. The
//! checks made after parsing use them to point at what they refuse.

use serde_saphyr::Spanned;

/// Where a spanned value was written (1-based line and column), when known.
pub(super) fn position_of<T>(spanned: &Spanned<T>) -> Option<(u64, u64)> {
    let at = spanned.referenced;
    (at.line() > 0).then(|| (at.line(), at.column()))
}

/// The position of `key:` written at the top level of the document (at the
/// start of a line, in block style).
pub(super) fn top_level_key(text: &str, key: &str) -> Option<(u64, u64)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let rest = line
            .strip_prefix(key)
            .or_else(|| line.strip_prefix(&format!("\"{key}\"")))
            .or_else(|| line.strip_prefix(&format!("'{key}'")))?;
        rest.trim_start()
            .starts_with(':')
            .then_some((i as u64 + 1, 1))
    })
}

/// The first place at or after `from` where `key` is written as a mapping
/// key (`key:`, quoted or not, at the start of a line or after `{` or `,`).
/// Validation after parsing uses it to point at the value it refuses.
pub(super) fn key_after(text: &str, key: &str, from: (u64, u64)) -> Option<(u64, u64)> {
    let first_line = from.0.saturating_sub(1) as usize;
    text.lines()
        .enumerate()
        .skip(first_line)
        .find_map(|(i, line)| {
            let skip_chars = if i == first_line {
                from.1.saturating_sub(1) as usize
            } else {
                0
            };
            let chars: Vec<char> = line.chars().collect();
            let key_chars: Vec<char> = key.chars().collect();
            (skip_chars..chars.len()).find_map(|start| {
                let before_ok = start == 0
                    || chars.get(start - 1).is_some_and(|c| {
                        c.is_whitespace() || matches!(c, '{' | ',' | '"' | '\'' | '-')
                    });
                let rest = chars.get(start..)?;
                let after = rest.strip_prefix(key_chars.as_slice())?;
                let after: String = after.iter().collect();
                let after = after.trim_start_matches(['"', '\'']).trim_start();
                (before_ok && after.starts_with(':')).then_some((i as u64 + 1, start as u64 + 1))
            })
        })
}
