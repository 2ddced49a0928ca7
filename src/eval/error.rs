//! What can stop the engine before or beside its runs, besides a run that
//! cannot happen ([`super::execute::RunError`]): a matrix over the run cap
//! ([`TooManyRuns`], [`CapError`]) and a fixture that cannot be copied
//! beside a cassette ([`FixtureCopyError`]). Each message is the text users
//! read (a test pins them).

use std::path::PathBuf;

use thiserror::Error;

/// One scenario's matrix makes more runs than the cap. The message follows
/// the file and `runs:` line the caller puts in front of it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CapError {
    /// Its combinations alone are over the cap.
    #[error(
        "runs: the matrix makes more than the cap of {limit} runs ({combos} combinations of its axes' values × {seeds} seeds); raise the cap with --max-runs N, or vary fewer values or seeds"
    )]
    Combinations { limit: u64, combos: u64, seeds: u64 },
    /// Its cells (equal ones merged) are over the cap.
    #[error(
        "runs: the matrix makes more than the cap of {limit} runs (over {cells} cells × {seeds} seeds); raise the cap with --max-runs N, or vary fewer values or seeds"
    )]
    Cells {
        limit: u64,
        cells: usize,
        seeds: u64,
    },
}

/// The whole run makes more runs than the cap; nothing was run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TooManyRuns {
    /// The first scenario alone is over it.
    #[error("{}: {source}", file.display())]
    Scenario { file: PathBuf, source: CapError },
    /// The scenarios before `file` used up the cap.
    #[error(
        "the run makes more than the cap of {limit} runs in all ({before} runs before {}; raise it with --max-runs N, or run fewer scenarios or seeds)",
        file.display()
    )]
    InAll {
        limit: u64,
        before: u64,
        file: PathBuf,
    },
}

/// A fixture folder that could not be copied beside a recorded cassette.
#[derive(Debug, Error)]
pub enum FixtureCopyError {
    #[error(transparent)]
    Image(#[from] crate::sandbox::workspace::ImageError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages users read, pinned byte for byte as they were when
    /// these errors were strings.
    #[test]
    fn messages_are_the_ones_users_read() {
        let combinations = CapError::Combinations {
            limit: 10,
            combos: 12,
            seeds: 3,
        };
        assert_eq!(
            combinations.to_string(),
            "runs: the matrix makes more than the cap of 10 runs (12 combinations of its axes' values × 3 seeds); raise the cap with --max-runs N, or vary fewer values or seeds"
        );
        let cells = CapError::Cells {
            limit: 10,
            cells: 5,
            seeds: 2,
        };
        assert_eq!(
            cells.to_string(),
            "runs: the matrix makes more than the cap of 10 runs (over 5 cells × 2 seeds); raise the cap with --max-runs N, or vary fewer values or seeds"
        );
        let first = TooManyRuns::Scenario {
            file: PathBuf::from("s/a.yaml"),
            source: cells,
        };
        assert_eq!(
            first.to_string(),
            "s/a.yaml: runs: the matrix makes more than the cap of 10 runs (over 5 cells × 2 seeds); raise the cap with --max-runs N, or vary fewer values or seeds"
        );
        let in_all = TooManyRuns::InAll {
            limit: 10,
            before: 8,
            file: PathBuf::from("s/b.yaml"),
        };
        assert_eq!(
            in_all.to_string(),
            "the run makes more than the cap of 10 runs in all (8 runs before s/b.yaml; raise it with --max-runs N, or run fewer scenarios or seeds)"
        );
    }
}
