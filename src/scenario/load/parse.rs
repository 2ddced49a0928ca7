//! The YAML parsed into the file's raw shape: saphyr with budgets sized
//! for a scenario, strict booleans, and an error's first line at its
//! position.

use std::path::Path;

use super::error::LoadError;
use crate::scenario::RawScenario;

/// Scenario files larger than this are refused before parsing.
pub const MAX_SCENARIO_BYTES: u64 = 8 << 20;

/// The YAML parsed into the file's raw shape; a syntax or schema error is
/// reported at its line and column with the first line of its message.
pub(super) fn parse_raw(file: &Path, text: &str) -> Result<RawScenario, LoadError> {
    serde_saphyr::from_str_with_options(text, parse_options()).map_err(|e| {
        let position = e
            .location()
            .filter(|l| l.line() > 0)
            .map(|l| (l.line(), l.column()));
        LoadError::new(file, position, first_line(&e.without_snippet().to_string()))
    })
}

/// Parsing options. Budgets: a scenario is small, so the caps are far below
/// saphyr's defaults; an alias bomb stops at the node cap, long before it
/// could use real memory or time.
pub(super) fn parse_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = 100_000;
    budget.max_aliases = 10_000;
    budget.max_total_scalar_bytes = MAX_SCENARIO_BYTES as usize;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    // YAML 1.2 core booleans only: `n`, `no`, `off`, `yes`, `on` stay text
    // (a todo item `{text: n}` means the letter, not false).
    options.strict_booleans = true;
    options
}

/// The message's first line, without the ` at line L, column C` suffix
/// saphyr adds (the position is already in front).
pub(super) fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or("invalid scenario").trim();
    let without_position = line
        .rfind(" at line ")
        .filter(|&at| {
            line[at + " at line ".len()..]
                .split(", column ")
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .map_or(line, |at| &line[..at]);
    without_position.to_string()
}
