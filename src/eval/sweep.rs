//! `sweep`: one scenario across the values of one axis (nag thresholds by
//! default; any axis but `todo`), with the planning tool, plus the baseline
//! without it, and the value to recommend.
//!
//! The recommendation weighs completion against its price in context:
//! take the value with the highest completion rate (the *leader*; ties:
//! fewer tokens); every value whose completion is within the *minimum
//! effect* of the leader's (a gain smaller than that is not worth more
//! tokens) and whose per-seed completion is not significantly worse
//! (paired sign test, p >= 0.05) is *as good*; among those, recommend the
//! cheapest: the fewest context tokens per run (`mean_context_tokens`;
//! ties: fewer reminders, then higher completion, then the order given).

use super::matrix::{EvalError, EvalEvent, EvalOptions, evaluate_scenario};
pub use crate::results::pick::{ALPHA, DEFAULT_MIN_EFFECT, SweepResult, recommend};
use crate::results::summary::CellSummary;
use crate::scenario::{Axis, AxisValue, RunsSpec, Scenario};

/// Why a sweep could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SweepSetupError {
    #[error(
        "sweep compares values with the planning tool against the baseline without it: sweep another axis than todo"
    )]
    TodoAxis,
    #[error("sweep --axis {0} needs at least one value")]
    NoValues(Axis),
}

/// Checks the swept axis and its values.
pub fn check_axis(axis: &Axis, values: &[AxisValue]) -> Result<(), SweepSetupError> {
    if *axis == Axis::Todo {
        return Err(SweepSetupError::TodoAxis);
    }
    if values.is_empty() {
        return Err(SweepSetupError::NoValues(axis.clone()));
    }
    Ok(())
}

/// Runs the sweep with the default minimum effect.
pub fn sweep(
    scenario: &Scenario,
    axis: &Axis,
    values: &[AxisValue],
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<SweepResult, EvalError> {
    sweep_with(
        scenario,
        axis,
        values,
        options,
        DEFAULT_MIN_EFFECT,
        on_event,
    )
}

/// Runs the sweep; the pick ignores completion gains below `min_effect`.
pub fn sweep_with(
    scenario: &Scenario,
    axis: &Axis,
    values: &[AxisValue],
    options: &EvalOptions,
    min_effect: f64,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<SweepResult, EvalError> {
    let mut swept = scenario.clone();
    swept.expect.clear();
    swept.runs = RunsSpec {
        axes: Vec::new(),
        seeds: scenario.runs.seeds.clone(),
    };
    swept.runs.set(Axis::Todo, vec![AxisValue::Bool(true)]);
    swept.runs.set(axis.clone(), values.to_vec());
    let with_todo = evaluate_scenario(&swept, options, on_event)?.cells;
    swept.runs.axes.clear();
    swept.runs.set(Axis::Todo, vec![AxisValue::Bool(false)]);
    let without_todo = evaluate_scenario(&swept, options, on_event)?
        .cells
        .into_iter()
        .next()
        .unwrap_or_else(|| {
            let cell = crate::scenario::cells::Cell::of_agent(&swept).with_todo(false);
            CellSummary::new(cell.settings, scenario.steps_total(), Vec::new())
        });
    let (leader, best, p_vs_leader) = recommend(&with_todo, min_effect);
    let value_of = |index: Option<usize>| {
        index
            .and_then(|i| with_todo.get(i))
            .and_then(|c| c.settings.get(axis))
            .copied()
    };
    Ok(SweepResult {
        scenario: scenario.name.clone(),
        axis: axis.name(),
        best: value_of(best),
        leader: value_of(leader),
        with_todo,
        without_todo,
        p_vs_leader,
        min_effect,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{CellSettings, NagThreshold};

    fn cell(nag: NagThreshold, completed: &[usize], reminders: usize) -> CellSummary {
        let settings = CellSettings::new(vec![
            (Axis::Todo, AxisValue::Bool(true)),
            (Axis::NagThreshold, AxisValue::Threshold(nag)),
        ]);
        crate::results::summary::test_cell(settings, 10, completed, reminders)
    }

    #[test]
    fn the_cheapest_threshold_not_significantly_worse_wins() {
        let cells = [
            cell(NagThreshold::After(1), &[10, 10, 10, 10, 9, 10], 5),
            cell(NagThreshold::After(3), &[10, 9, 10, 10, 10, 9], 2),
            cell(NagThreshold::Off, &[3, 4, 2, 5, 3, 4], 0),
        ];
        let (leader, best, p) = recommend(&cells, DEFAULT_MIN_EFFECT);
        assert_eq!(leader, Some(0));
        assert_eq!(best, Some(1));
        assert!(p[1] >= ALPHA && p[2] < ALPHA, "{p:?}");
    }

    #[test]
    fn tokens_are_the_cost_and_reminders_break_ties() {
        let with_tokens = |reminders: u32, tokens: u64| {
            let mut runs: Vec<crate::results::RunResult> = cell(
                NagThreshold::After(1),
                &[10, 10, 10, 10],
                reminders as usize,
            )
            .results
            .records()
            .map_while(Result::ok)
            .collect();
            for run in &mut runs {
                run.context_tokens = tokens;
            }
            CellSummary::new(
                cell(NagThreshold::After(reminders), &[], 0).settings,
                10,
                runs,
            )
        };
        // Fewer reminders but more tokens (e.g. a longer reminder text):
        // the tokens decide.
        let cells = [with_tokens(4, 900), with_tokens(1, 1200)];
        assert_eq!(recommend(&cells, DEFAULT_MIN_EFFECT).1, Some(0));
        // The same tokens: fewer reminders.
        let cells = [with_tokens(4, 900), with_tokens(2, 900)];
        assert_eq!(recommend(&cells, DEFAULT_MIN_EFFECT).1, Some(1));
        assert_eq!(recommend(&cells, DEFAULT_MIN_EFFECT).0, Some(1));
    }

    #[test]
    fn a_gain_below_the_minimum_effect_does_not_buy_reminders() {
        // 40 seeds: threshold 1 completes every step, threshold 3 drops
        // one step in 10 runs out of 40 (2.5 points less); the sign test
        // calls that significant, so threshold 3 is not as good whatever
        // the minimum effect: a value must be within it *and* not
        // significantly below the leader.
        let all = vec![10; 40];
        let mut some: Vec<usize> = vec![10; 40];
        for run in some.iter_mut().take(10) {
            *run = 9;
        }
        let cells = [
            cell(NagThreshold::After(1), &all, 5),
            cell(NagThreshold::After(3), &some, 2),
        ];
        let (_, _, p) = recommend(&cells, 0.0);
        assert!(p[1] < ALPHA, "{p:?}");
        assert_eq!(recommend(&cells, 0.0).1, Some(0));
        assert_eq!(recommend(&cells, 0.02).1, Some(0), "2.5 points is worth it");
        assert_eq!(recommend(&cells, 0.05).1, Some(0), "significantly below");
        // One step dropped in 10 seeds (1 point less) is not significant:
        // the minimum effect decides.
        let mut one_less = vec![10; 10];
        one_less[0] = 9;
        let cells = [
            cell(NagThreshold::After(1), &all[..10], 5),
            cell(NagThreshold::After(3), &one_less, 2),
        ];
        assert!(recommend(&cells, 0.0).2[1] >= ALPHA);
        assert_eq!(
            recommend(&cells, 0.02).1,
            Some(1),
            "1 point is not worth it"
        );
        assert_eq!(recommend(&cells, 0.005).1, Some(0), "it is, at 0.5 points");
    }
}
