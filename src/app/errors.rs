//! Errors of the commands' own checks that are not bad scenario files:
//! `--shard auto` read off the CI engines' variables ([`ShardAutoError`]),
//! real-model runs refused or not set up ([`RealModelError`]), the values
//! of a sweep ([`SweepValuesError`]) and the README's figures that cannot
//! be made ([`FigureError`]). Each message is the text users read (tests
//! pin them). A command turns these into an `AppError` (`app/mod.rs`).

use std::path::PathBuf;

use thiserror::Error;

use crate::eval::EvalError;
use crate::eval::sweep::SweepSetupError;
use crate::model::http::{BadBudget, HttpModelError};
use crate::model::simulated::profile::ProfileError;
use crate::results::cell_runs::SpillError;
use crate::scenario::{Axis, AxisError, LoadError};

/// `agent-eval sweep`: the values of the axis cannot be had.
#[derive(Debug, Error)]
pub enum SweepValuesError {
    /// The axis has no default values (`todo`, `simulate.<param>`).
    #[error("sweep --axis {axis} needs --values")]
    NeedsValues { axis: Axis },
    /// A value given is not one of the axis.
    #[error(transparent)]
    Value(#[from] AxisError),
    /// The axis cannot be swept with these values.
    #[error(transparent)]
    Setup(#[from] SweepSetupError),
}

/// Why the README's figures could not be made (`app/figures.rs`).
#[derive(Debug, Error)]
pub enum FigureError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// A shipped scenario that did not run.
    #[error("{}: {source}", file.display())]
    Run { file: PathBuf, source: EvalError },
    /// The profiles folder cannot be listed.
    #[error("{}: {source}", dir.display())]
    ReadDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    /// A cell's runs, kept on disk, cannot be read back.
    #[error(transparent)]
    Runs(#[from] SpillError),
    #[error("{file}: no cell {wanted}")]
    NoCell { file: String, wanted: String },
    #[error("the cell {settings} has no runs")]
    NoRuns { settings: String },
    /// `<!-- figures: NAME -->` with nothing after it.
    #[error("a figures mark ends the file")]
    MarkEndsFile,
    #[error("README.md: no figures are made for the mark `{name}`")]
    UnknownMark { name: String },
    #[error("README.md: the figures mark `{name}` has no <!-- end -->")]
    NoEnd { name: String },
    #[error("README.md: no `<!-- figures: {name} -->` mark")]
    NoMark { name: &'static str },
}

/// Real-model runs that may not start, or cannot be set up.
#[derive(Debug, Error)]
pub enum RealModelError {
    /// `--max-cost USD` not an amount.
    #[error("expected an amount of US dollars >= 0, got {raw:?}")]
    NotAnAmount { raw: String },
    /// The estimate is above `--max-cost`.
    #[error(
        "the estimated cost ${cost:.2} is above --max-cost ${limit:.2}: raise --max-cost, run fewer (--seeds, --filter), or give --yes to start anyway and stop starting runs once ${limit:.2} is spent"
    )]
    AboveMaxCost { cost: f64, limit: f64 },
    /// The estimate is above the default budget, and no limit was given.
    #[error(
        "the estimated cost ${cost:.2} is above the default budget of ${budget:.2}: give --max-cost USD to allow a budget (no new run starts once it is spent) or --yes to run anyway"
    )]
    AboveDefaultBudget { cost: f64, budget: f64 },
    /// `--record` with no real model to record.
    #[error(
        "--record records real-model runs, and no scenario uses a real model (give --model anthropic:NAME or openai:NAME)"
    )]
    NothingToRecord,
    #[error(transparent)]
    Http(#[from] HttpModelError),
    #[error(transparent)]
    Budget(#[from] BadBudget),
    /// A scenario's real model cannot be reached as configured.
    #[error("{}: {source}", file.display())]
    Backend {
        file: PathBuf,
        source: HttpModelError,
    },
}

/// `--shard auto` found no shard, or more than one, in the environment.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ShardAutoError {
    /// One variable of an engine's pair is set, the other not.
    #[error("--shard auto: {set} is set but {missing} is not ({engine})")]
    HalfSet {
        set: &'static str,
        missing: &'static str,
        engine: &'static str,
    },
    /// Two engines name different shards.
    #[error("--shard auto: {engine} says shard {shard} but {other_engine} says {other}; unset one")]
    Disagree {
        engine: &'static str,
        shard: String,
        other_engine: &'static str,
        other: String,
    },
    /// No engine's pair is set.
    #[error(
        "--shard auto: no parallel-job variables are set; looked for {looked}. Give --shard K/N instead"
    )]
    NoneSet { looked: String },
    /// A value that is not a whole number.
    #[error("--shard auto: {name}={raw:?} is not a whole number ({engine})")]
    NotANumber {
        name: &'static str,
        raw: String,
        engine: &'static str,
    },
    /// An index outside the engine's range for its total.
    #[error(
        "--shard auto: {index_name}={index} is outside {first}..={last} for {total_name}={total} ({engine})"
    )]
    OutOfRange {
        index_name: &'static str,
        index: usize,
        first: usize,
        last: usize,
        total_name: &'static str,
        total: usize,
        engine: &'static str,
    },
}

#[cfg(test)]
mod tests {
    use super::{RealModelError, ShardAutoError};

    /// The messages users read, pinned byte for byte as they were when
    /// the real-model checks returned strings.
    #[test]
    fn real_model_messages_are_the_ones_users_read() {
        let cases = [
            (
                RealModelError::NotAnAmount { raw: "x".into() },
                "expected an amount of US dollars >= 0, got \"x\"",
            ),
            (
                RealModelError::AboveMaxCost {
                    cost: 12.345,
                    limit: 5.0,
                },
                "the estimated cost $12.35 is above --max-cost $5.00: raise --max-cost, run fewer (--seeds, --filter), or give --yes to start anyway and stop starting runs once $5.00 is spent",
            ),
            (
                RealModelError::AboveDefaultBudget {
                    cost: 30.0,
                    budget: 10.0,
                },
                "the estimated cost $30.00 is above the default budget of $10.00: give --max-cost USD to allow a budget (no new run starts once it is spent) or --yes to run anyway",
            ),
            (
                RealModelError::NothingToRecord,
                "--record records real-model runs, and no scenario uses a real model (give --model anthropic:NAME or openai:NAME)",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }

    /// The messages users read, pinned byte for byte as they were when
    /// `shard_from_env` returned strings.
    #[test]
    fn messages_are_the_ones_users_read() {
        let cases = [
            (
                ShardAutoError::HalfSet {
                    set: "CI_NODE_INDEX",
                    missing: "CI_NODE_TOTAL",
                    engine: "GitLab",
                },
                "--shard auto: CI_NODE_INDEX is set but CI_NODE_TOTAL is not (GitLab)",
            ),
            (
                ShardAutoError::Disagree {
                    engine: "CircleCI",
                    shard: "2/4".into(),
                    other_engine: "GitLab",
                    other: "1/4".into(),
                },
                "--shard auto: CircleCI says shard 2/4 but GitLab says 1/4; unset one",
            ),
            (
                ShardAutoError::NoneSet {
                    looked: "A/B (X)".into(),
                },
                "--shard auto: no parallel-job variables are set; looked for A/B (X). Give --shard K/N instead",
            ),
            (
                ShardAutoError::NotANumber {
                    name: "CI_NODE_TOTAL",
                    raw: "x".into(),
                    engine: "GitLab",
                },
                "--shard auto: CI_NODE_TOTAL=\"x\" is not a whole number (GitLab)",
            ),
            (
                ShardAutoError::OutOfRange {
                    index_name: "CI_NODE_INDEX",
                    index: 4,
                    first: 1,
                    last: 3,
                    total_name: "CI_NODE_TOTAL",
                    total: 3,
                    engine: "GitLab",
                },
                "--shard auto: CI_NODE_INDEX=4 is outside 1..=3 for CI_NODE_TOTAL=3 (GitLab)",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }
}
