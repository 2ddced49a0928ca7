//! `sweep`: one scenario across nag thresholds, with and without the todo
//! tool, and the threshold to recommend.
//!
//! The recommendation weighs completion against the cost of nagging: take
//! the threshold with the highest completion rate (the *leader*); every
//! threshold whose per-seed completion is not significantly worse than the
//! leader's (paired sign test, p >= 0.05) is *as good*; among those,
//! recommend the one with the fewest reminders per run (ties: higher
//! completion, then the order given).

use serde::Serialize;

use super::matrix::{EvalError, EvalEvent, EvalOptions, evaluate_scenario};
use super::stats;
use super::summary::{CellSummary, pair_by_seed};
use crate::scenario::{NagThreshold, RunsSpec, Scenario};

/// Significance level below which a threshold counts as worse than the leader.
pub const ALPHA: f64 = 0.05;

/// A sweep's cells and its pick.
#[derive(Debug, Clone, Serialize)]
pub struct SweepResult {
    pub scenario: String,
    /// One cell per threshold, todo tool on, in the order given.
    pub with_todo: Vec<CellSummary>,
    /// The baseline without the todo tool (no reminders can fire, so the
    /// threshold does not matter).
    pub without_todo: CellSummary,
    pub best: NagThreshold,
    /// Per threshold: the sign-test p-value against the leader.
    pub p_vs_leader: Vec<f64>,
    pub leader: NagThreshold,
}

/// Runs the sweep.
pub fn sweep(
    scenario: &Scenario,
    thresholds: &[NagThreshold],
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<SweepResult, EvalError> {
    let mut swept = scenario.clone();
    swept.expect.clear();
    swept.runs = RunsSpec {
        todo: Some(vec![true]),
        nag_threshold: Some(thresholds.to_vec()),
        seeds: scenario.runs.seeds.clone(),
    };
    let with_todo = evaluate_scenario(&swept, options, on_event)?.cells;
    swept.runs.todo = Some(vec![false]);
    swept.runs.nag_threshold = Some(vec![NagThreshold::Off]);
    let without_todo = evaluate_scenario(&swept, options, on_event)?
        .cells
        .into_iter()
        .next()
        .unwrap_or_else(|| {
            CellSummary::new(swept.agent_cell(), scenario.steps_total(), Vec::new())
        });
    let (leader, best, p_vs_leader) = recommend(&with_todo);
    Ok(SweepResult {
        scenario: scenario.name.clone(),
        with_todo,
        without_todo,
        best,
        p_vs_leader,
        leader,
    })
}

/// (leader, recommended, p-values against the leader) per the module doc.
pub fn recommend(cells: &[CellSummary]) -> (NagThreshold, NagThreshold, Vec<f64>) {
    let Some(leader) = cells.iter().reduce(|best, c| {
        let better = c.completion_rate > best.completion_rate
            || (c.completion_rate == best.completion_rate
                && c.mean_reminders < best.mean_reminders);
        if better { c } else { best }
    }) else {
        return (NagThreshold::Off, NagThreshold::Off, Vec::new());
    };
    let p_values: Vec<f64> = cells
        .iter()
        .map(|c| {
            let pairs: Vec<(f64, f64)> = pair_by_seed(&c.results, &leader.results)
                .into_iter()
                .map(|(a, b)| (a.completion(), b.completion()))
                .collect();
            stats::paired(&pairs).p_value
        })
        .collect();
    let best = cells
        .iter()
        .zip(&p_values)
        .filter(|(c, p)| c.settings == leader.settings || **p >= ALPHA)
        .map(|(c, _)| c)
        .reduce(|best, c| {
            let cheaper = c.mean_reminders < best.mean_reminders
                || (c.mean_reminders == best.mean_reminders
                    && c.completion_rate > best.completion_rate);
            if cheaper { c } else { best }
        })
        .unwrap_or(leader);
    (
        leader.settings.nag_threshold,
        best.settings.nag_threshold,
        p_values,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::CellSettings;

    fn cell(nag: NagThreshold, completed: &[usize], reminders: usize) -> CellSummary {
        let settings = CellSettings {
            todo: true,
            nag_threshold: nag,
        };
        crate::eval::summary::test_cell(settings, 10, completed, reminders)
    }

    #[test]
    fn the_cheapest_threshold_not_significantly_worse_wins() {
        let cells = [
            cell(NagThreshold::After(1), &[10, 10, 10, 10, 9, 10], 5),
            cell(NagThreshold::After(3), &[10, 9, 10, 10, 10, 9], 2),
            cell(NagThreshold::Off, &[3, 4, 2, 5, 3, 4], 0),
        ];
        let (leader, best, p) = recommend(&cells);
        assert_eq!(leader, NagThreshold::After(1));
        assert_eq!(best, NagThreshold::After(3));
        assert!(p[1] >= ALPHA && p[2] < ALPHA, "{p:?}");
    }
}
