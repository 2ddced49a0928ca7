//! Why two shard reports are not parts of one run ([`ShardMismatch`]):
//! what `merge` says after "is not a shard of the same run as FILE: ".
//! Each message is the text users read (a test pins them).

use thiserror::Error;

/// What differs between the lead shard (expected) and another (found).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ShardMismatch {
    #[error("its plan {found} differs from {expected} (were --seeds and --model the same?)")]
    Plan { found: String, expected: String },
    #[error("it holds {found} scenarios, not {expected}")]
    ScenarioCount { found: usize, expected: usize },
    #[error("scenario `{found}` where `{expected}` was expected")]
    ScenarioName { found: String, expected: String },
    #[error(
        "scenario `{scenario}` was run from another version of its file (sha256 {found} vs {expected})"
    )]
    FileVersion {
        scenario: String,
        found: String,
        expected: String,
    },
    #[error(
        "scenario `{scenario}` ran other seeds ({found} seeds, not {expected}: was --seeds the same?)"
    )]
    Seeds {
        scenario: String,
        found: usize,
        expected: usize,
    },
    #[error("scenario `{scenario}` states other expectations")]
    Expectations { scenario: String },
    #[error(
        "scenario `{scenario}` ran under another calibration profile ({found}, not {expected}: was --profile the same?)"
    )]
    Profile {
        scenario: String,
        found: String,
        expected: String,
    },
    #[error("scenario `{scenario}` has {found} cells, not {expected}")]
    CellCount {
        scenario: String,
        found: usize,
        expected: usize,
    },
    #[error("scenario `{scenario}`: cell {found} where {expected} was expected")]
    Cell {
        scenario: String,
        found: String,
        expected: String,
    },
    #[error("scenario `{scenario}`, cell {cell}: {found} steps scored, not {expected}")]
    StepsTotal {
        scenario: String,
        cell: String,
        found: usize,
        expected: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::ShardMismatch;

    /// The messages users read, pinned byte for byte as they were when
    /// `same_run` returned strings.
    #[test]
    fn messages_are_the_ones_users_read() {
        let s = |t: &str| t.to_string();
        let cases = [
            (
                ShardMismatch::Plan {
                    found: s("{\"units\":2}"),
                    expected: s("(none)"),
                },
                "its plan {\"units\":2} differs from (none) (were --seeds and --model the same?)",
            ),
            (
                ShardMismatch::ScenarioCount {
                    found: 1,
                    expected: 2,
                },
                "it holds 1 scenarios, not 2",
            ),
            (
                ShardMismatch::ScenarioName {
                    found: s("b"),
                    expected: s("a"),
                },
                "scenario `b` where `a` was expected",
            ),
            (
                ShardMismatch::FileVersion {
                    scenario: s("a"),
                    found: s("none"),
                    expected: s("ff"),
                },
                "scenario `a` was run from another version of its file (sha256 none vs ff)",
            ),
            (
                ShardMismatch::Seeds {
                    scenario: s("a"),
                    found: 3,
                    expected: 4,
                },
                "scenario `a` ran other seeds (3 seeds, not 4: was --seeds the same?)",
            ),
            (
                ShardMismatch::Expectations { scenario: s("a") },
                "scenario `a` states other expectations",
            ),
            (
                ShardMismatch::CellCount {
                    scenario: s("a"),
                    found: 1,
                    expected: 2,
                },
                "scenario `a` has 1 cells, not 2",
            ),
            (
                ShardMismatch::Cell {
                    scenario: s("a"),
                    found: s("todo=false"),
                    expected: s("todo=true"),
                },
                "scenario `a`: cell todo=false where todo=true was expected",
            ),
            (
                ShardMismatch::StepsTotal {
                    scenario: s("a"),
                    cell: s("todo=true"),
                    found: 3,
                    expected: 4,
                },
                "scenario `a`, cell todo=true: 3 steps scored, not 4",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }
}
