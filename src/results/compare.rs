//! The comparisons every matrix gets without asking: what the planning
//! tool buys (each cell with it against the cell without it that agrees on
//! everything else), and, for each varying axis, what each value buys
//! against the axis's reference value (nag and reminder: `off`; dialect:
//! `s03`; placement: `prepend`; otherwise the first value listed) in cells
//! that agree on every other axis. Runs are paired by seed; cells share
//! their random streams seed for seed, so the pairs are fair.

use serde::Serialize;

use super::cell_runs::RunRow;
use super::stats::{self, McNemar, PairedComparison};
use super::summary::{CellSummary, pair_by_seed};
use crate::plan::dialect::Dialect;
use crate::plan::reminder::{NagThreshold, Placement, ReminderSpec};
use crate::scenario::{Axis, AxisValue, CellSettings};

/// The paired statistics of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedStats {
    pub completion: PairedComparison,
    pub full_completion: McNemar,
}

impl PairedStats {
    /// Per-seed completion (sign test, bootstrap interval) and full
    /// completion (McNemar) over paired runs (a, b).
    /// Read pair by pair: what is kept is one difference per pair.
    pub fn of(pairs: impl IntoIterator<Item = (RunRow, RunRow)>) -> Self {
        let (mut diffs, mut only_a, mut only_b) = (Vec::new(), 0, 0);
        for (x, y) in pairs {
            diffs.push(x.completion() - y.completion());
            match (x.fully_completed(), y.fully_completed()) {
                (true, false) => only_a += 1,
                (false, true) => only_b += 1,
                _ => {}
            }
        }
        Self {
            completion: stats::paired_diffs(&diffs),
            full_completion: stats::mcnemar_counts(only_a, only_b),
        }
    }
}

/// One paired comparison of two cells.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellComparison {
    /// What is compared, e.g. `todo tool (nag 3)`.
    pub what: String,
    pub a: CellSettings,
    pub b: CellSettings,
    /// Why the comparison measures nothing: a side is an invalid cell (see
    /// [`CellSummary::invalid`]). Reports show it instead of a difference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    #[serde(flatten)]
    pub stats: PairedStats,
}

/// The value cells of `axis` are compared against, among `values`.
fn reference(axis: &Axis, values: &[AxisValue]) -> Option<AxisValue> {
    let preferred = match axis {
        Axis::Todo => return None,
        Axis::NagThreshold => Some(AxisValue::Threshold(NagThreshold::Off)),
        Axis::Reminder => Some(AxisValue::Reminder(ReminderSpec::Off)),
        Axis::Dialect => Some(AxisValue::Dialect(Dialect::default())),
        Axis::Placement => Some(AxisValue::Placement(Placement::Prepend)),
        Axis::Simulate(_) => None,
    };
    match preferred {
        Some(p) if values.contains(&p) => Some(p),
        // A threshold sweep without `off` has no natural baseline.
        _ if *axis == Axis::NagThreshold => None,
        _ => values.first().copied(),
    }
}

/// The other settings of a cell, for a label: ` (nag 3)`.
fn context(settings: &CellSettings, skip: &[&Axis]) -> String {
    let parts: Vec<String> = settings
        .entries()
        .iter()
        .filter(|(axis, _)| !skip.contains(&axis))
        .map(|(axis, value)| format!("{} {value}", axis.label()))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// The standard comparisons present in `cells`, in cell order.
pub fn standard(cells: &[CellSummary]) -> Vec<CellComparison> {
    let mut out = Vec::new();
    let with_todo = |c: &&CellSummary| c.settings.todo();
    let counterpart = |a: &CellSummary, pred: &dyn Fn(&CellSummary) -> bool, except: &[&Axis]| {
        cells
            .iter()
            .find(|b| pred(b) && a.settings.agrees_with(&b.settings, except))
    };
    for a in cells.iter().filter(with_todo) {
        if let Some(b) = counterpart(a, &|b| !b.settings.todo(), &[&Axis::Todo]) {
            out.push(compare(
                format!("todo tool{}", context(&a.settings, &[&Axis::Todo])),
                a,
                b,
            ));
        }
    }
    let mut axes: Vec<Axis> = Vec::new();
    for cell in cells {
        for (axis, _) in cell.settings.entries() {
            if *axis != Axis::Todo && !axes.contains(axis) {
                axes.push(axis.clone());
            }
        }
    }
    axes.sort();
    for axis in &axes {
        let mut values: Vec<AxisValue> = Vec::new();
        for cell in cells {
            if let Some(v) = cell.settings.get(axis)
                && !values.contains(v)
            {
                values.push(*v);
            }
        }
        if values.len() < 2 {
            continue;
        }
        let Some(reference) = reference(axis, &values) else {
            continue;
        };
        for a in cells.iter().filter(with_todo) {
            let Some(value) = a.settings.get(axis) else {
                continue;
            };
            if *value == reference {
                continue;
            }
            let is_reference = |b: &CellSummary| b.settings.get(axis) == Some(&reference);
            if let Some(b) = counterpart(a, &is_reference, &[axis]) {
                let what = format!(
                    "{} {value} vs {reference}{}",
                    axis.label(),
                    if a.settings.entries().len() <= 2 {
                        " (todo tool)".to_string()
                    } else {
                        context(&a.settings, &[&Axis::Todo, axis])
                    }
                );
                out.push(compare(what, a, b));
            }
        }
    }
    out
}

fn compare(what: String, a: &CellSummary, b: &CellSummary) -> CellComparison {
    CellComparison {
        what,
        a: a.settings.clone(),
        b: b.settings.clone(),
        invalid: invalid_side(a).or_else(|| invalid_side(b)),
        stats: PairedStats::of(pair_by_seed(&a.results, &b.results)),
    }
}

/// Why `cell` cannot be a side of a comparison, naming it.
fn invalid_side(cell: &CellSummary) -> Option<String> {
    cell.invalid
        .as_ref()
        .map(|why| format!("cell {} is invalid: {why}", cell.settings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::record::{AgentPlan, AgentPlanEntry, RunResult, test_runs};
    use crate::results::verdict::{Verdict, planning_off_held};

    fn todo(on: bool) -> CellSettings {
        CellSettings::new(vec![(Axis::Todo, AxisValue::Bool(on))])
    }

    /// Three runs completing `completed` steps of 4 each; the first
    /// `planned` of them called the planning tool.
    fn cell(on: bool, completed: &[usize], planned: usize) -> CellSummary {
        let mut runs: Vec<RunResult> = test_runs(4, completed, 0);
        for run in runs.iter_mut().take(planned) {
            run.todo_calls = 1;
        }
        CellSummary::new(todo(on), 4, runs)
    }

    #[test]
    fn a_comparison_with_a_cell_that_planned_with_planning_off_is_invalid() {
        let with = cell(true, &[4, 4, 4], 3);
        // The same figures as the todo cell: a "no difference" would lie.
        let without = cell(false, &[4, 4, 4], 2);
        assert_eq!(
            without.invalid.as_deref(),
            Some("the agent planned in 2 of 3 runs with planning off")
        );
        assert_eq!(with.invalid, None, "planning is on there");
        let list = standard(&[with, without.clone()]);
        assert_eq!(list.len(), 1);
        assert_eq!(
            list[0].invalid.as_deref(),
            Some("cell todo=false is invalid: the agent planned in 2 of 3 runs with planning off")
        );
        let json = serde_json::to_value(&list[0]).unwrap();
        assert_eq!(json["invalid"], list[0].invalid.as_deref().unwrap());
        // And the cell fails its scenario.
        let failed = planning_off_held(&without).expect("an invalid cell fails");
        assert_eq!((failed.ok, failed.verdict), (false, Verdict::Fail));
        assert_eq!(failed.measured, serde_json::json!(2));
        // A comparison the scenario asks for fails unmeasured.
        let compare: crate::scenario::Expectation = serde_saphyr::from_str(
            "compare: {a: {todo: true}, b: {todo: false}}\ncompletion_rate_diff: {at_least: 0}",
        )
        .unwrap();
        let outcome = crate::results::verdict::evaluate(&compare, &[cell(true, &[4], 1), without]);
        assert_eq!(
            (outcome.ok, outcome.measured),
            (false, serde_json::Value::Null)
        );
        assert!(
            outcome
                .detail
                .unwrap()
                .contains("cell todo=false is invalid")
        );
    }

    #[test]
    fn cells_whose_agent_kept_to_the_switch_are_compared_as_before() {
        let list = standard(&[cell(true, &[4, 4, 4], 3), cell(false, &[1, 2, 0], 0)]);
        assert_eq!(list[0].invalid, None);
        let json = serde_json::to_value(&list[0]).unwrap();
        assert!(
            json.get("invalid").is_none(),
            "no key when measured: {json}"
        );
    }

    #[test]
    fn a_plan_the_agent_reported_of_itself_counts_as_planning() {
        let mut runs = test_runs(4, &[4], 0);
        runs[0].agent_plans = vec![AgentPlan {
            turn: 1,
            entries: vec![AgentPlanEntry {
                content: "step".into(),
                priority: "low".into(),
                status: crate::plan::dialect::PlanStatus::Pending,
            }],
        }];
        let reported = CellSummary::new(todo(false), 4, runs.clone());
        assert!(reported.invalid.is_some());
        // An empty plan is no plan.
        runs[0].agent_plans[0].entries.clear();
        assert_eq!(CellSummary::new(todo(false), 4, runs).invalid, None);
    }
}
