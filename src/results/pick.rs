//! A sweep's result and its pick: the value of the swept axis to
//! recommend, weighing completion against its price in context (the rule
//! is in [`crate::eval::sweep`]'s module doc, which runs the sweep).

use serde::Serialize;

use super::stats;
use super::summary::{CellSummary, pair_by_seed};
use crate::metric::{COMPLETION_RATE, MEAN_CONTEXT_TOKENS, MEAN_REMINDERS};
use crate::scenario::{Axis, AxisValue};

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

impl SweepResult {
    /// The rule that picked [`Self::best`] (see [`pick_rule`]).
    pub fn rule(&self) -> PickRule {
        let axis = Axis::parse(&self.axis).ok();
        let index = |value: &Option<AxisValue>| {
            self.with_todo
                .iter()
                .position(|c| axis.as_ref().and_then(|a| c.settings.get(a)) == value.as_ref())
        };
        match (index(&self.leader), index(&self.best)) {
            (Some(leader), Some(best)) => pick_rule(
                &self.with_todo,
                (leader, best),
                &self.p_vs_leader,
                self.min_effect,
            ),
            _ => PickRule::HighestCompletion,
        }
    }
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
    let best = as_good(cells, leader_index, &p_values, min_effect)
        .into_iter()
        .reduce(|best, i| match (cells.get(i), cells.get(best)) {
            (Some(c), Some(b)) => {
                let better = cheaper(c, b)
                    .unwrap_or_else(|| c.value(COMPLETION_RATE) > b.value(COMPLETION_RATE));
                if better { i } else { best }
            }
            _ => best,
        })
        .unwrap_or(leader_index);
    (Some(leader_index), Some(best), p_values)
}

/// The indices of the cells as good as the leader: the leader, and each
/// value within the minimum effect of its completion and not significantly
/// below it (a small tolerance: rates are rounded to 6 decimals).
fn as_good(cells: &[CellSummary], leader: usize, p_values: &[f64], min_effect: f64) -> Vec<usize> {
    let Some(lead) = cells.get(leader) else {
        return Vec::new();
    };
    cells
        .iter()
        .enumerate()
        .zip(p_values)
        .filter(|((i, c), p)| {
            *i == leader
                || (**p >= ALPHA
                    && lead.value(COMPLETION_RATE) - c.value(COMPLETION_RATE) < min_effect - 1e-9)
        })
        .map(|((i, _), _)| i)
        .collect()
}

/// The rule that picked a sweep's value, as its verdict states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickRule {
    /// No other value was as good as the leader: the highest completion
    /// picked it, whatever it costs.
    HighestCompletion,
    /// Among the values as good as the leader, the fewest context tokens
    /// per run.
    FewestTokens,
    /// As good and as many tokens as another: the fewest reminders.
    FewestReminders,
    /// As good and costing the same: the higher completion.
    HigherCompletion,
}

/// Which rule picked `best` among `cells` (indices as [`recommend`]
/// returns them): the last tie-break any other as-good value needed.
pub fn pick_rule(
    cells: &[CellSummary],
    (leader, best): (usize, usize),
    p_values: &[f64],
    min_effect: f64,
) -> PickRule {
    let good = as_good(cells, leader, p_values, min_effect);
    let Some(picked) = cells.get(best) else {
        return PickRule::HighestCompletion;
    };
    let rivals: Vec<&CellSummary> = good
        .iter()
        .filter(|&&i| i != best)
        .filter_map(|&i| cells.get(i))
        .collect();
    if rivals.is_empty() {
        return PickRule::HighestCompletion;
    }
    let same = |a: &CellSummary, b: &CellSummary, name: &str| a.value(name) == b.value(name);
    if rivals
        .iter()
        .any(|r| same(picked, r, MEAN_CONTEXT_TOKENS) && same(picked, r, MEAN_REMINDERS))
    {
        PickRule::HigherCompletion
    } else if rivals.iter().any(|r| same(picked, r, MEAN_CONTEXT_TOKENS)) {
        PickRule::FewestReminders
    } else {
        PickRule::FewestTokens
    }
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
