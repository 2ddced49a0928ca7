//! Where a scenario file wrote its entries: the line of each `expect:`
//! entry, for outputs that point at the line that failed (GitHub
//! annotations, GitLab Code Quality). Read from the file's text on its
//! own, after the run, so a report can be located without keeping spans
//! in every loaded value.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_saphyr::Spanned;

/// Only the `expect:` list, each entry with where it was written; every
/// other key is ignored.
#[derive(Deserialize)]
struct ExpectEntries {
    #[serde(default)]
    expect: Vec<Spanned<IgnoredAny>>,
}

/// The 1-based line of each `expect:` entry of a scenario's text, in order
/// (empty when the text has none or cannot be read as YAML). An entry
/// without a known line is 0.
pub fn expectation_lines(text: &str) -> Vec<u64> {
    serde_saphyr::from_str::<ExpectEntries>(text).map_or_else(
        |_| Vec::new(),
        |entries| entries.expect.iter().map(|e| e.referenced.line()).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_expectation_is_found_at_its_line() {
        let text = "name: x\ntask: t\nexpect:\n  - stop: end_turn\n  # a comment\n  - where: {todo: true}\n    completion_rate: {at_least: 0.5}\n  - reminders_at: [1]\nruns: {seeds: 2}\n";
        assert_eq!(expectation_lines(text), vec![4, 6, 8]);
    }

    #[test]
    fn flow_style_and_missing_lists_are_read_too() {
        assert_eq!(
            expectation_lines("task: t\nexpect: [{stop: end_turn}, {steps_completed: 3}]\n"),
            vec![2, 2]
        );
        assert!(expectation_lines("task: t\n").is_empty());
        assert!(expectation_lines("::: not yaml [").is_empty());
    }
}
