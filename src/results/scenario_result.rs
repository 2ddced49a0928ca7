//! A scenario's result: its cells, the paired comparisons between them and
//! the outcomes of its expectations, assembled the same way by `run` and
//! by `merge` (so a merged report equals an unsharded one).

use serde::Serialize;

use super::compare::CellComparison;
use super::summary::CellSummary;
use super::verdict::{ExpectationOutcome, Verdict};

/// Why one run of a scenario could not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFailure {
    /// The whole message, naming the scenario.
    pub message: String,
    /// The agent under test could not start, or broke before any model
    /// response (rather than a workspace or cassette that failed): the
    /// summary says so in its own words.
    pub agent: bool,
}

/// A scenario's cells and expectation outcomes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioResult {
    pub name: String,
    pub file: String,
    /// The seeds every cell runs, in order (results follow this order).
    pub seeds: Vec<u64>,
    pub cells: Vec<CellSummary>,
    /// Paired comparisons: the planning tool against none, and each value
    /// of each varying axis against its reference (see [`super::compare`]).
    pub comparisons: Vec<CellComparison>,
    pub expectations: Vec<ExpectationOutcome>,
    /// The scenario's `expect:` entries, so `merge` can check them again.
    pub expect_spec: Vec<crate::scenario::Expectation>,
    /// SHA-256 of the scenario file (shard reports only: `merge` combines
    /// shards of the same scenario text only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Why some of its runs could not happen (a workspace that could not be
    /// prepared at run time, an agent that could not start, a cassette that
    /// could not be written): each distinct message once, in run order. A
    /// scenario with any is reported as an error, not as results.
    #[serde(skip)]
    pub run_errors: Vec<RunFailure>,
    /// The real CLI agent under test (a preset), and that its own reminder
    /// policy stands where the built-in settings would (`None`: the
    /// built-in loop or an agent command).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The calibration profile the simulated model ran under (file name
    /// and SHA-256), so a figure can be traced to the sessions behind it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::model::simulated::profile::ProfileRef>,
}

impl ScenarioResult {
    /// How many expectations of all `results` came to `verdict`: the
    /// counts the terminal summary and the Markdown report both show.
    pub fn count_verdicts(results: &[ScenarioResult], verdict: Verdict) -> usize {
        results
            .iter()
            .map(|r| {
                r.expectations
                    .iter()
                    .filter(|e| e.verdict == verdict)
                    .count()
            })
            .sum()
    }

    /// Assembles a result and, when `check` (not for a shard's partial
    /// runs), evaluates the expectations. Both `run` and `merge` build
    /// results here, so a merged report equals an unsharded one.
    pub fn build(
        name: String,
        file: String,
        seeds: Vec<u64>,
        cells: Vec<CellSummary>,
        expect_spec: Vec<crate::scenario::Expectation>,
        check: bool,
    ) -> Self {
        let expectations = if check {
            // An invalid cell's failure comes after the scenario's own
            // expectations (which stay paired with `expect_spec`).
            let invalid = cells.iter().filter_map(super::verdict::planning_off_held);
            expect_spec
                .iter()
                .map(|e| super::verdict::evaluate(e, &cells))
                .chain(invalid)
                .collect()
        } else {
            Vec::new()
        };
        let comparisons = if check {
            super::compare::standard(&cells)
        } else {
            Vec::new()
        };
        Self {
            name,
            file,
            seeds,
            cells,
            comparisons,
            expectations,
            expect_spec,
            sha256: None,
            run_errors: Vec::new(),
            agent: None,
            profile: None,
        }
    }

    /// Shows each of the scenario's own expectations without the `hidden`
    /// axes (see [`super::verdict::text_of`]); what they measured stays.
    pub fn hide_axes(&mut self, hidden: &[crate::scenario::Axis]) {
        for (outcome, spec) in self.expectations.iter_mut().zip(&self.expect_spec) {
            outcome.text = super::verdict::text_of(spec, hidden);
        }
    }

    pub fn ok(&self) -> bool {
        self.expectations.iter().all(|e| e.ok)
    }
}
