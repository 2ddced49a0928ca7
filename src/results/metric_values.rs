//! The metric table at work on runs: each metric's per-run value, read off
//! a run's record or found in what a cell keeps of its runs (a compact row
//! per run and running totals, see [`super::cell_runs`]); a cell's reported
//! values (rounded, with intervals) in table order; and an aggregate over
//! the pooled runs of several cells (for `expect:`).
//!
//! The table itself ([`crate::metric::METRICS`]) lives a floor
//! below, where the `expect:` parser can read the names; this is the one
//! place that maps a [`PerRun`] to the run record, its row and the totals.

use super::cell_runs::{RunRow, RunTotals, Runs};
use super::record::RunResult;
use super::run_counts::count;
use super::stats;
use super::stats::round6;
use crate::metric::{IntervalMethod, Kind, METRICS, Metric, PerRun};

/// What `what` measures on one run, read off its record (a test checks it
/// agrees with [`source`]).
pub fn per_run(what: PerRun, run: &RunResult) -> f64 {
    if let Some(n) = count(what, run) {
        return n as f64;
    }
    let row = RunRow::of(run);
    match source(what) {
        Source::Row(read) => read(&row),
        Source::Total(_) => 0.0,
        Source::Share { part, whole } => share(
            METRICS
                .get(part)
                .and_then(|m| count(m.per_run, run))
                .unwrap_or(0),
            METRICS
                .get(whole)
                .and_then(|m| count(m.per_run, run))
                .unwrap_or(0),
        ),
    }
}

/// `part / whole`, 0 when the whole is 0.
fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// Where a cell that does not hold its runs keeps a metric's values.
#[derive(Clone, Copy)]
pub enum Source {
    /// In each run's row (what paired statistics also need).
    Row(fn(&RunRow) -> f64),
    /// Only as a sum over the runs (a sum of counts is exact, so the mean
    /// is the one over the runs' values), at the metric's place in
    /// [`RunTotals::counts`].
    Total(usize),
    /// A share of two counts' sums (places in [`RunTotals::counts`]): over
    /// a cell, the sum of the part over the sum of the whole.
    Share { part: usize, whole: usize },
}

pub fn source(what: PerRun) -> Source {
    let place = |what: PerRun| {
        METRICS
            .iter()
            .position(|m| m.per_run == what)
            .unwrap_or(usize::MAX)
    };
    match what {
        PerRun::Completion => Source::Row(RunRow::completion),
        PerRun::FullCompletion => Source::Row(|r| f64::from(u8::from(r.fully_completed()))),
        PerRun::StepsCompleted => Source::Row(|r| f64::from(r.steps_completed)),
        PerRun::PlanningShare => Source::Share {
            part: place(PerRun::PlanningTokens),
            whole: place(PerRun::ContextTokens),
        },
        _ => Source::Total(place(what)),
    }
}

/// A count's sum in `totals` (0 for a place never added to).
fn total(totals: &RunTotals, place: usize) -> u64 {
    totals.counts.get(place).copied().unwrap_or(0)
}

/// The mean of `n` values as [`stats::mean`] computes it (the same sum in
/// the same order, so the same bits), without collecting them.
fn mean(values: impl Iterator<Item = f64>, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        values.sum::<f64>() / n as f64
    }
}

/// A metric's mean over the pooled runs of `cells` (not rounded; 0 without
/// runs).
pub fn aggregate(metric: &Metric, cells: &[&Runs]) -> f64 {
    let n: usize = cells.iter().map(|c| c.len()).sum();
    match source(metric.per_run) {
        Source::Row(read) => mean(cells.iter().flat_map(|c| c.iter().map(|r| read(&r))), n),
        Source::Total(place) => {
            let sum: u64 = cells.iter().map(|c| total(c.totals(), place)).sum();
            mean(std::iter::once(sum as f64), n)
        }
        Source::Share { part, whole } => {
            let sum = |place| -> u64 { cells.iter().map(|c| total(c.totals(), place)).sum() };
            share(sum(part), sum(whole))
        }
    }
}

/// One metric's value over a cell's runs, as reported (6 decimals).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricValue {
    pub metric: &'static Metric,
    pub value: f64,
    /// The 95% interval, for rates that carry one.
    pub ci95: Option<[f64; 2]>,
}

/// Every metric of the table over a cell's runs, in table order: the mean
/// of its per-run values, and for a rate its interval. One pass over the
/// rows serves every metric read from them (a cell may hold a million
/// runs); each sum is still taken in run order, so the values are those of
/// [`stats::mean`] to the bit.
pub fn summarize(runs: &Runs) -> Vec<MetricValue> {
    struct Tally {
        source: Source,
        sum: f64,
        /// Runs whose value is 1 (for a Wilson interval).
        ones: usize,
        /// Every value (for a Student-t interval).
        values: Option<Vec<f64>>,
    }
    let mut tallies: Vec<Tally> = METRICS
        .iter()
        .map(|m| Tally {
            source: source(m.per_run),
            sum: 0.0,
            ones: 0,
            values: matches!(m.interval().map(|i| i.method), Some(IntervalMethod::MeanT))
                .then(|| Vec::with_capacity(runs.len())),
        })
        .collect();
    for row in runs {
        for tally in &mut tallies {
            if let Source::Row(read) = tally.source {
                let value = read(&row);
                tally.sum += value;
                tally.ones += usize::from(value == 1.0);
                if let Some(values) = &mut tally.values {
                    values.push(value);
                }
            }
        }
    }
    let n = runs.len();
    METRICS
        .iter()
        .zip(tallies)
        .map(|(metric, tally)| {
            let per_run_mean = |sum: f64| if n == 0 { 0.0 } else { sum / n as f64 };
            let value = match tally.source {
                Source::Row(_) => per_run_mean(tally.sum),
                Source::Total(place) => per_run_mean(total(runs.totals(), place) as f64),
                Source::Share { part, whole } => {
                    share(total(runs.totals(), part), total(runs.totals(), whole))
                }
            };
            let ci95 = match metric.kind {
                Kind::Rate(Some(interval)) => Some(match interval.method {
                    IntervalMethod::MeanT => {
                        stats::mean_ci95(&tally.values.unwrap_or_default(), 0.0, 1.0).1
                    }
                    IntervalMethod::Wilson => stats::wilson_ci95(tally.ones, n),
                }),
                Kind::Rate(None) | Kind::Mean => None,
            };
            MetricValue {
                metric,
                value: round6(value),
                ci95: ci95.map(|[lo, hi]| [round6(lo), round6(hi)]),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value_of(values: &[MetricValue], name: &str) -> MetricValue {
        *values.iter().find(|v| v.metric.name == name).unwrap()
    }

    /// Runs of `completed` steps out of `total`, with some counts set.
    fn records(total: usize, completed: &[usize]) -> Vec<RunResult> {
        let mut records = super::super::record::test_runs(total, completed, 2);
        for (i, run) in records.iter_mut().enumerate() {
            run.turns = 3 + 7 * i;
            run.todo_calls = i % 4;
            run.context_tokens = 1000 + 333 * i as u64;
            run.planning_tokens = 50 * (i as u64 % 3);
            run.planning_turns = i % 2;
            run.reminders_after_planning = i % 3;
        }
        records
    }

    #[test]
    fn rates_and_means_follow_their_entries() {
        let mut runs = records(4, &[4, 2, 0]);
        runs[1].unknown_tool_calls = 3;
        let cell = Runs::held(runs.clone());
        let values = summarize(&cell);
        assert_eq!(values.len(), METRICS.len());
        assert_eq!(value_of(&values, "completion_rate").value, 0.5);
        assert!(value_of(&values, "completion_rate").ci95.is_some());
        let full = value_of(&values, "full_completion_rate");
        assert_eq!(full.value, round6(1.0 / 3.0));
        assert_eq!(full.ci95, Some(stats::wilson_ci95(1, 3).map(round6)));
        assert_eq!(value_of(&values, "mean_steps_completed").value, 2.0);
        assert_eq!(value_of(&values, "mean_reminders").value, 2.0);
        assert_eq!(value_of(&values, "mean_turns").ci95, None);
        // The entry added for `expect:` needs nothing but its table entry.
        assert_eq!(value_of(&values, "mean_unknown_tool_calls").value, 1.0);
        let unknown = Metric::named("mean_unknown_tool_calls").unwrap();
        assert_eq!(aggregate(unknown, &[&cell, &cell]), 1.0);
        assert_eq!(aggregate(unknown, &[]), 0.0);
        assert_eq!(per_run(unknown.per_run, &runs[1]), 3.0);
    }

    #[test]
    fn values_are_the_means_of_the_per_run_values_to_the_bit() {
        let values = [0.1, 0.7, 1e-9, 3.3, 0.2];
        assert_eq!(
            mean(values.iter().copied(), values.len()).to_bits(),
            stats::mean(&values).to_bits()
        );
        assert_eq!(mean(std::iter::empty(), 0), stats::mean(&[]));
        // Each metric from rows or totals against its values read off the
        // records one by one.
        let runs = records(7, &[7, 2, 5, 1, 6, 3]);
        let cell = Runs::held(runs.clone());
        for value in summarize(&cell) {
            let each: Vec<f64> = runs
                .iter()
                .map(|r| per_run(value.metric.per_run, r))
                .collect();
            // A share is the ratio of the sums, not the mean of the shares.
            let expected = if value.metric.per_run == PerRun::PlanningShare {
                let planning: u64 = runs.iter().map(|r| r.planning_tokens).sum();
                let context: u64 = runs.iter().map(|r| r.context_tokens).sum();
                planning as f64 / context as f64
            } else {
                stats::mean(&each)
            };
            assert_eq!(value.value, round6(expected), "{}", value.metric);
            assert_eq!(
                aggregate(value.metric, &[&cell]).to_bits(),
                expected.to_bits(),
                "{}",
                value.metric
            );
        }
    }

    #[test]
    fn the_planning_share_of_a_run_and_of_cells() {
        let mut runs = records(4, &[4, 2]);
        runs[0].context_tokens = 300;
        runs[0].planning_tokens = 100;
        runs[1].context_tokens = 100;
        runs[1].planning_tokens = 0;
        let share = Metric::named("planning_share").unwrap();
        assert_eq!(per_run(share.per_run, &runs[0]), 1.0 / 3.0);
        let cell = Runs::held(runs.clone());
        assert_eq!(aggregate(share, &[&cell]), 0.25);
        assert_eq!(value_of(&summarize(&cell), "planning_share").value, 0.25);
        assert_eq!(
            value_of(&summarize(&cell), "mean_context_tokens").value,
            200.0
        );
        // No tokens at all: a share of 0, not NaN.
        runs[0].context_tokens = 0;
        runs[1].context_tokens = 0;
        assert_eq!(per_run(share.per_run, &runs[0]), 0.0);
        let cell = Runs::held(runs);
        assert_eq!(aggregate(share, &[&cell, &cell]), 0.0);
    }

    #[test]
    fn a_cell_without_runs_reports_zeros() {
        let values = summarize(&Runs::held(Vec::new()));
        assert_eq!(value_of(&values, "full_completion_rate").value, 0.0);
        assert_eq!(
            value_of(&values, "full_completion_rate").ci95,
            Some([0.0, 1.0])
        );
        assert_eq!(value_of(&values, "mean_turns").value, 0.0);
    }
}
