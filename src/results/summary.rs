//! Per-cell aggregates, in the shape of the JSON report's `cells` entries.

use serde::Serialize;
use std::collections::BTreeMap;

use super::cell_runs::Runs;
pub use super::cell_runs::pair_by_seed;
use super::metric_values::MetricValue;
use super::record::RunResult;
use super::stats;
use crate::metric::Written;
use crate::scenario::CellSettings;

/// The k values pass^k is reported for (those up to the run count).
pub const PASS_K: [usize; 4] = [1, 2, 4, 8];

/// One matrix cell's aggregate over its runs (serialized by hand: the
/// metrics are written as keys of their own, see [`CellSummary::serialize`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CellSummary {
    pub settings: CellSettings,
    pub runs: usize,
    pub steps_total: usize,
    /// pass^k (tau-bench) for k = 1, 2, 4, 8 up to the run count.
    pub pass_hat_k: BTreeMap<String, f64>,
    /// Every metric of the table (completion_rate, mean_turns, ...), in
    /// table order; see [`super::metric_values`].
    pub metrics: Vec<MetricValue>,
    /// A real model's tokens and cost, summed over the runs (absent for
    /// mock models; the cost also without a price).
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cost: Option<f64>,
    /// Each scored step's completion rate over the runs: which steps get
    /// dropped (empty when the runs carry no per-step checks).
    pub step_rates: Vec<StepRate>,
    /// The runs: compact rows, totals and the records (written as the
    /// report's `results`, streamed from where they are kept).
    pub results: Runs,
    /// Why the cell is no measurement: the agent planned in a cell whose
    /// planning is off (see [`invalid_reason`]). Written only when set.
    pub invalid: Option<String>,
}

/// Why a cell with `settings` whose runs planned `planned` times out of
/// `runs` is invalid: planning is off and the agent planned anyway (an
/// agent that ignores the switch measures the same thing in both cells,
/// so any figure or comparison of them would lie).
pub fn invalid_reason(settings: &CellSettings, planned: u64, runs: usize) -> Option<String> {
    (!settings.todo() && planned > 0).then(|| {
        format!(
            "the agent planned in {planned} of {runs} run{} with planning off",
            if runs == 1 { "" } else { "s" }
        )
    })
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

/// A cell of fake runs for tests (see [`super::record::test_runs`]).
#[cfg(test)]
pub(crate) fn test_cell(
    settings: CellSettings,
    steps_total: usize,
    completed: &[usize],
    reminders: usize,
) -> CellSummary {
    let results = super::record::test_runs(steps_total, completed, reminders);
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

/// A p-value as every report prints it (see [`super::format`]).
pub use super::format::p_text;

pub use super::stats::round6;

impl CellSummary {
    pub fn new(settings: CellSettings, steps_total: usize, results: Vec<RunResult>) -> Self {
        Self::of_runs(settings, steps_total, Runs::held(results))
    }

    /// The summary of `results`, from their rows and totals.
    pub fn of_runs(settings: CellSettings, steps_total: usize, results: Runs) -> Self {
        let full = results.iter().filter(|r| r.fully_completed()).count();
        let n = results.len();
        let totals = results.totals();
        let pass_hat_k = PASS_K
            .iter()
            .filter_map(|&k| stats::pass_hat_k(full, n, k).map(|p| (k.to_string(), round6(p))))
            .collect();
        let invalid = invalid_reason(&settings, totals.planned_runs, n);
        Self {
            settings,
            runs: n,
            steps_total,
            pass_hat_k,
            metrics: super::metric_values::summarize(&results),
            input_tokens: totals.input_tokens,
            output_tokens: totals.output_tokens,
            cost: totals.cost.map(round6),
            step_rates: Vec::new(),
            results,
            invalid,
        }
    }

    /// The reported value of the metric `name` (NaN for a name not in the
    /// table: [`crate::metric`] has constants for the names code
    /// uses, and a test checks they exist).
    pub fn value(&self, name: &str) -> f64 {
        self.metric(name).map_or(f64::NAN, |m| m.value)
    }

    /// The 95% interval of the rate `name` (`[0, 1]` for a metric without one).
    pub fn interval(&self, name: &str) -> [f64; 2] {
        self.metric(name).and_then(|m| m.ci95).unwrap_or([0.0, 1.0])
    }

    /// The reported value of the metric `name`, with its interval.
    pub fn metric(&self, name: &str) -> Option<&MetricValue> {
        self.metrics.iter().find(|m| m.metric.name == name)
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

/// The JSON `cells` entry: settings, runs, steps_total, the rates (each
/// followed by its interval), pass_hat_k, the means, then the tokens and
/// cost, step_rates and results when present. The metric keys come from the
/// table, so a report's bytes follow the table's order.
impl Serialize for CellSummary {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("settings", &self.settings)?;
        map.serialize_entry("runs", &self.runs)?;
        map.serialize_entry("steps_total", &self.steps_total)?;
        if let Some(why) = &self.invalid {
            map.serialize_entry("invalid", why)?;
        }
        // The values are in table order, as `Metric::written` lists them.
        let written = || {
            self.metrics
                .iter()
                .filter(|m| m.metric.written == Written::Always)
        };
        for m in written().filter(|m| m.metric.is_rate()) {
            map.serialize_entry(m.metric.name, &m.value)?;
            if let (Some(interval), Some(ci)) = (m.metric.interval(), m.ci95) {
                map.serialize_entry(interval.key, &ci)?;
            }
        }
        map.serialize_entry("pass_hat_k", &self.pass_hat_k)?;
        for m in written().filter(|m| !m.metric.is_rate()) {
            map.serialize_entry(m.metric.name, &m.value)?;
        }
        if let Some(x) = self.input_tokens {
            map.serialize_entry("input_tokens", &x)?;
        }
        if let Some(x) = self.output_tokens {
            map.serialize_entry("output_tokens", &x)?;
        }
        if let Some(x) = self.cost {
            map.serialize_entry("cost", &x)?;
        }
        if !self.step_rates.is_empty() {
            map.serialize_entry("step_rates", &self.step_rates)?;
        }
        map.serialize_entry("results", &self.results)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_rates_count_each_step_over_the_runs() {
        let mut runs: Vec<RunResult> = test_cell(CellSettings::default(), 3, &[3, 1, 2, 0], 0)
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
