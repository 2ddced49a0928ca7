//! Per-cell aggregates, in the shape of the JSON report's `cells` entries.

use serde::Serialize;
use std::collections::BTreeMap;

use super::expect::ExpectationOutcome;
use super::run::RunMetrics;
pub use super::runs::pair_by_seed;
use super::runs::{RunRow, Runs};
use super::stats;
use crate::scenario::CellSettings;

/// The k values pass^k is reported for (those up to the run count).
pub const PASS_K: [usize; 4] = [1, 2, 4, 8];

/// One matrix cell's aggregate over its runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellSummary {
    pub settings: CellSettings,
    pub runs: usize,
    pub steps_total: usize,
    /// Mean over runs of steps_completed / steps_total.
    pub completion_rate: f64,
    pub completion_ci95: [f64; 2],
    /// Share of runs that completed every step.
    pub full_completion_rate: f64,
    pub full_completion_ci95: [f64; 2],
    /// pass^k (tau-bench) for k = 1, 2, 4, 8 up to the run count.
    pub pass_hat_k: BTreeMap<String, f64>,
    pub mean_steps_completed: f64,
    pub mean_reminders: f64,
    pub mean_rejected_todo_updates: f64,
    pub mean_todo_calls: f64,
    pub mean_turns: f64,
    pub mean_protocol_violations: f64,
    /// A real model's tokens and cost, summed over the runs (absent for
    /// mock models; the cost also without a price).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Each scored step's completion rate over the runs: which steps get
    /// dropped (empty when the runs carry no per-step checks).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub step_rates: Vec<StepRate>,
    /// The runs: compact rows, totals and the records (written as the
    /// report's `results`, streamed from where they are kept).
    pub results: Runs,
}

/// A scored step's share of runs whose check held.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct StepRate {
    pub id: String,
    pub text: String,
    pub rate: f64,
}

/// A scored step as reports name it (its id and text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepLabel {
    pub id: String,
    pub text: String,
}

impl StepLabel {
    /// The scenario's scored steps, in the order runs record their checks.
    pub fn of(scenario: &crate::scenario::Scenario) -> Vec<Self> {
        scenario
            .steps
            .iter()
            .filter(|s| s.check.is_some())
            .map(|s| Self {
                id: s.id.clone(),
                text: s.text.clone(),
            })
            .collect()
    }
}

/// A cell of fake runs for tests: run i has seed i and `completed[i]` steps.
#[cfg(test)]
pub(crate) fn test_cell(
    settings: CellSettings,
    steps_total: usize,
    completed: &[usize],
    reminders: usize,
) -> CellSummary {
    let results = completed
        .iter()
        .enumerate()
        .map(|(seed, &steps_completed)| RunMetrics {
            seed: seed as u64,
            turns: 10,
            stop: crate::agent::StopKind::EndTurn,
            steps_completed,
            steps_total,
            reminders_at: (0..reminders).collect(),
            rejected_todo_updates: 0,
            todo_calls: 0,
            protocol_violations: 0,
            unknown_tool_calls: 0,
            input_tokens: None,
            output_tokens: None,
            cost: None,
            drift_turns: Vec::new(),
            model_error: None,
            step_checks: String::new(),
        })
        .collect();
    CellSummary::new(settings, steps_total, results)
}

/// A run's per-step results as its `step_checks`: `1` held, `0` did not,
/// one character per scored step.
pub fn step_checks(step_results: &[Option<bool>]) -> String {
    step_results
        .iter()
        .flatten()
        .map(|held| if *held { '1' } else { '0' })
        .collect()
}

/// A p-value as every report prints it: `p<0.001`, else `p=0.034`.
pub fn p_text(p: f64) -> String {
    if p.is_nan() {
        "p=–".to_string()
    } else if p < 0.001 {
        "p<0.001".to_string()
    } else {
        format!("p={p:.3}")
    }
}

/// Rounds to 6 decimals so reports read well and stay byte-stable.
pub fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

impl CellSummary {
    pub fn new(settings: CellSettings, steps_total: usize, results: Vec<RunMetrics>) -> Self {
        Self::of_runs(settings, steps_total, Runs::held(results))
    }

    /// The summary of `results`, from their rows and totals.
    pub fn of_runs(settings: CellSettings, steps_total: usize, results: Runs) -> Self {
        let completion: Vec<f64> = results.iter().map(RunRow::completion).collect();
        let (completion_rate, ci) = stats::mean_ci95(&completion, 0.0, 1.0);
        let full = results.iter().filter(|r| r.fully_completed()).count();
        let n = results.len();
        let totals = results.totals();
        // A mean of counts: their sum is exact, so it is the mean of the
        // runs' values.
        let mean_of = |sum: u64| round6(if n == 0 { 0.0 } else { sum as f64 / n as f64 });
        let pass_hat_k = PASS_K
            .iter()
            .filter_map(|&k| stats::pass_hat_k(full, n, k).map(|p| (k.to_string(), round6(p))))
            .collect();
        let wilson = stats::wilson_ci95(full, n);
        Self {
            settings,
            runs: n,
            steps_total,
            completion_rate: round6(completion_rate),
            completion_ci95: [round6(ci[0]), round6(ci[1])],
            full_completion_rate: round6(if n == 0 { 0.0 } else { full as f64 / n as f64 }),
            full_completion_ci95: [round6(wilson[0]), round6(wilson[1])],
            pass_hat_k,
            mean_steps_completed: mean_of(
                results.iter().map(|r| u64::from(r.steps_completed)).sum(),
            ),
            mean_reminders: mean_of(totals.reminders),
            mean_rejected_todo_updates: mean_of(totals.rejected_todo_updates),
            mean_todo_calls: mean_of(totals.todo_calls),
            mean_turns: mean_of(totals.turns),
            mean_protocol_violations: mean_of(totals.protocol_violations),
            input_tokens: totals.input_tokens,
            output_tokens: totals.output_tokens,
            cost: totals.cost.map(round6),
            step_rates: Vec::new(),
            results,
        }
    }

    /// This summary with each labelled step's completion rate, read from
    /// the runs' `step_checks` (none when no run recorded them).
    pub fn with_steps(mut self, labels: &[StepLabel]) -> Self {
        let totals = self.results.totals();
        let recorded = totals.step_recorded;
        if recorded == 0 {
            return self;
        }
        self.step_rates = labels
            .iter()
            .enumerate()
            .map(|(index, label)| {
                let held = totals.step_held.get(index).copied().unwrap_or(0);
                StepRate {
                    id: label.id.clone(),
                    text: label.text.clone(),
                    rate: round6(held as f64 / recorded as f64),
                }
            })
            .collect();
        self
    }

    /// The step labels this summary's rates carry (to rebuild it).
    pub fn step_labels(&self) -> Vec<StepLabel> {
        self.step_rates
            .iter()
            .map(|s| StepLabel {
                id: s.id.clone(),
                text: s.text.clone(),
            })
            .collect()
    }
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
    pub comparisons: Vec<super::compare::CellComparison>,
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
    pub run_errors: Vec<String>,
}

impl ScenarioResult {
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
            expect_spec
                .iter()
                .map(|e| super::expect::evaluate(e, &cells))
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
        }
    }

    pub fn ok(&self) -> bool {
        self.expectations.iter().all(|e| e.ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_rates_count_each_step_over_the_runs() {
        let mut runs: Vec<RunMetrics> = test_cell(CellSettings::default(), 3, &[3, 1, 2, 0], 0)
            .results
            .records()
            .map(Result::unwrap)
            .collect();
        for (run, checks) in runs.iter_mut().zip(["111", "100", "110", "000"]) {
            run.step_checks = checks.to_string();
        }
        let cell = CellSummary::new(CellSettings::default(), 3, runs);
        let labels: Vec<StepLabel> = ["a", "b", "c"]
            .iter()
            .enumerate()
            .map(|(i, text)| StepLabel {
                id: (i + 1).to_string(),
                text: text.to_string(),
            })
            .collect();
        let cell = cell.with_steps(&labels);
        let rates: Vec<(&str, f64)> = cell
            .step_rates
            .iter()
            .map(|s| (s.id.as_str(), s.rate))
            .collect();
        assert_eq!(rates, [("1", 0.75), ("2", 0.5), ("3", 0.25)]);
        assert_eq!(cell.step_labels(), labels);
        // Runs that recorded no checks (an older report) give no rates.
        let bare = test_cell(CellSettings::default(), 3, &[3], 0).with_steps(&labels);
        assert!(bare.step_rates.is_empty());
    }

    #[test]
    fn p_values_print_one_way() {
        assert_eq!(p_text(0.0004), "p<0.001");
        assert_eq!(p_text(0.0341), "p=0.034");
        assert_eq!(p_text(1.0), "p=1.000");
        assert_eq!(step_checks(&[Some(true), None, Some(false)]), "10");
    }
}
