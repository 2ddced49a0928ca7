//! A sweep's result and its pick: the value of the swept axis to
//! recommend, weighing completion against its price in context (the rule
//! is in [`crate::eval::sweep`]'s module doc, which runs the sweep).

use serde::Serialize;

use super::stats;
use super::summary::{CellSummary, pair_by_seed};
use crate::metric::{COMPLETION_RATE, MEAN_CONTEXT_TOKENS, MEAN_REMINDERS};
use crate::scenario::AxisValue;

/// Significance level below which a threshold counts as worse than the leader.
pub const ALPHA: f64 = 0.05;

/// The smallest completion-rate gain worth more reminders (`--min-effect`).
pub const DEFAULT_MIN_EFFECT: f64 = 0.02;

/// A sweep's cells and its pick.
#[derive(Debug, Clone, Serialize)]
pub struct SweepResult {
    pub scenario: String,
    /// The axis swept (`nag_threshold`, `dialect`, `simulate.attention_span`, ...).
    pub axis: String,
    /// One cell per value, planning tool on, in the order given (values
    /// that make no difference share one cell).
    pub with_todo: Vec<CellSummary>,
    /// The baseline without the planning tool (no reminders can fire, so
    /// the value does not matter).
    pub without_todo: CellSummary,
    /// The recommended value (`null` when no cell lists the axis).
    pub best: Option<AxisValue>,
    /// Per cell: the sign-test p-value against the leader.
    pub p_vs_leader: Vec<f64>,
    pub leader: Option<AxisValue>,
    /// The minimum effect the pick used.
    pub min_effect: f64,
}

/// (leader, recommended, p-values against the leader) per the module
/// doc, as indices into `cells`.
pub fn recommend(
    cells: &[CellSummary],
    min_effect: f64,
) -> (Option<usize>, Option<usize>, Vec<f64>) {
    let Some((leader_index, leader)) = cells.iter().enumerate().reduce(|best, c| {
        let better = c.1.value(COMPLETION_RATE) > best.1.value(COMPLETION_RATE)
            || (c.1.value(COMPLETION_RATE) == best.1.value(COMPLETION_RATE)
                && cheaper(c.1, best.1) == Some(true));
        if better { c } else { best }
    }) else {
        return (None, None, Vec::new());
    };
    let p_values: Vec<f64> = cells
        .iter()
        .map(|c| {
            let diffs: Vec<f64> = pair_by_seed(&c.results, &leader.results)
                .map(|(a, b)| a.completion() - b.completion())
                .collect();
            stats::paired_diffs(&diffs).p_value
        })
        .collect();
    let best = cells
        .iter()
        .enumerate()
        .zip(&p_values)
        .filter(|((i, c), p)| {
            // As good: within the minimum effect of the leader and not
            // significantly below it (a small tolerance: rates are rounded
            // to 6 decimals).
            *i == leader_index
                || (**p >= ALPHA
                    && leader.value(COMPLETION_RATE) - c.value(COMPLETION_RATE) < min_effect - 1e-9)
        })
        .map(|(c, _)| c)
        .reduce(|best, c| {
            let better = cheaper(c.1, best.1)
                .unwrap_or_else(|| c.1.value(COMPLETION_RATE) > best.1.value(COMPLETION_RATE));
            if better { c } else { best }
        })
        .map_or(leader_index, |(i, _)| i);
    (Some(leader_index), Some(best), p_values)
}

/// Whether `a` costs less than `b`: fewer context tokens per run, then
/// fewer reminders; `None` when they cost the same.
fn cheaper(a: &CellSummary, b: &CellSummary) -> Option<bool> {
    [MEAN_CONTEXT_TOKENS, MEAN_REMINDERS]
        .iter()
        .map(|name| (a.value(name), b.value(name)))
        .find(|(x, y)| x != y)
        .map(|(x, y)| x < y)
}
