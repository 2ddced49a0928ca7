//! The metric table at work on runs: each metric's per-run value read off a
//! [`RunMetrics`], its aggregate over pooled runs (for `expect:`), and a
//! cell's reported values (rounded, with intervals) in table order.
//!
//! The table itself ([`crate::scenario::metric::METRICS`]) lives a floor
//! below, where the `expect:` parser can read the names; this is the one
//! place that maps a [`PerRun`] to a field of the run record.

use super::run::RunMetrics;
use super::stats;
use super::summary::round6;
use crate::scenario::metric::{IntervalMethod, Kind, METRICS, Metric, PerRun};

/// What `what` measures on one run.
pub fn per_run(what: PerRun, run: &RunMetrics) -> f64 {
    reader(what)(run)
}

/// The function that reads `what` off a run (chosen once per metric, not
/// once per run, for cells of many runs).
pub fn reader(what: PerRun) -> fn(&RunMetrics) -> f64 {
    match what {
        PerRun::Completion => RunMetrics::completion,
        PerRun::FullCompletion => |r| f64::from(u8::from(r.fully_completed())),
        PerRun::StepsCompleted => |r| r.steps_completed as f64,
        PerRun::Reminders => |r| r.reminders_at.len() as f64,
        PerRun::RejectedTodoUpdates => |r| r.rejected_todo_updates as f64,
        PerRun::TodoCalls => |r| r.todo_calls as f64,
        PerRun::Turns => |r| r.turns as f64,
        PerRun::ProtocolViolations => |r| r.protocol_violations as f64,
        PerRun::UnknownToolCalls => |r| r.unknown_tool_calls as f64,
    }
}

/// A metric's mean over pooled runs (not rounded; 0 without runs).
pub fn aggregate(metric: &Metric, runs: &[&RunMetrics]) -> f64 {
    let read = reader(metric.per_run);
    mean(runs.iter().map(|r| read(r)), runs.len())
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
/// runs serves every metric (a cell may hold 100,000 runs, and each pass
/// reads them all from memory); each metric's sum is still taken in run
/// order, so the values are those of [`stats::mean`] to the bit.
pub fn summarize(runs: &[RunMetrics]) -> Vec<MetricValue> {
    struct Tally {
        read: fn(&RunMetrics) -> f64,
        sum: f64,
        /// Runs whose value is 1 (for a Wilson interval).
        ones: usize,
        /// Every value (for a Student-t interval).
        values: Option<Vec<f64>>,
    }
    let mut tallies: Vec<Tally> = METRICS
        .iter()
        .map(|m| Tally {
            read: reader(m.per_run),
            sum: 0.0,
            ones: 0,
            values: matches!(m.interval().map(|i| i.method), Some(IntervalMethod::MeanT))
                .then(|| Vec::with_capacity(runs.len())),
        })
        .collect();
    for run in runs {
        for tally in &mut tallies {
            let value = (tally.read)(run);
            tally.sum += value;
            tally.ones += usize::from(value == 1.0);
            if let Some(values) = &mut tally.values {
                values.push(value);
            }
        }
    }
    let n = runs.len();
    METRICS
        .iter()
        .zip(tallies)
        .map(|(metric, tally)| {
            let value = if n == 0 { 0.0 } else { tally.sum / n as f64 };
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
    use crate::scenario::CellSettings;

    fn value_of(values: &[MetricValue], name: &str) -> MetricValue {
        *values.iter().find(|v| v.metric.name == name).unwrap()
    }

    #[test]
    fn rates_and_means_follow_their_entries() {
        let mut cell = super::super::summary::test_cell(CellSettings::default(), 4, &[4, 2, 0], 2);
        cell.results[1].unknown_tool_calls = 3;
        let values = summarize(&cell.results);
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
        let runs: Vec<&RunMetrics> = cell.results.iter().collect();
        let unknown = Metric::named("mean_unknown_tool_calls").unwrap();
        assert_eq!(aggregate(unknown, &runs), 1.0);
        assert_eq!(aggregate(unknown, &[]), 0.0);
    }

    #[test]
    fn means_are_those_of_the_stats_module_to_the_bit() {
        let values = [0.1, 0.7, 1e-9, 3.3, 0.2];
        assert_eq!(
            mean(values.iter().copied(), values.len()).to_bits(),
            stats::mean(&values).to_bits()
        );
        assert_eq!(mean(std::iter::empty(), 0), stats::mean(&[]));
        // The one-pass summary against each metric's values taken apart.
        let mut cell =
            super::super::summary::test_cell(CellSettings::default(), 7, &[7, 2, 5, 1, 6, 3], 1);
        for (i, run) in cell.results.iter_mut().enumerate() {
            run.turns = 3 + 7 * i;
            run.todo_calls = i % 4;
        }
        for value in summarize(&cell.results) {
            let read = reader(value.metric.per_run);
            let each: Vec<f64> = cell.results.iter().map(read).collect();
            assert_eq!(value.value, round6(stats::mean(&each)), "{}", value.metric);
        }
    }

    #[test]
    fn a_cell_without_runs_reports_zeros() {
        let values = summarize(&[]);
        assert_eq!(value_of(&values, "full_completion_rate").value, 0.0);
        assert_eq!(
            value_of(&values, "full_completion_rate").ci95,
            Some([0.0, 1.0])
        );
        assert_eq!(value_of(&values, "mean_turns").value, 0.0);
    }
}
