//! The evaluate phase of `run`: the engine runs the plan and every
//! reporter hears its events. With `--fail-fast` the scenarios run one
//! after another; their events are retold in the whole plan's run order,
//! so reporters see one stream either way.

use super::reporters::Reporters;
use crate::app::AppError;
use crate::eval::{self, EvalError, EvalEvent, EvalOptions, Unit};
use crate::results::ScenarioResult;
use crate::scenario::Scenario;

/// Runs the plan and ends the reporters' event phase. `None`: Ctrl-C
/// stopped the runs (nothing is to be written).
pub(super) fn evaluate(
    scenarios: &[Scenario],
    plan: &eval::Plan,
    options: &EvalOptions,
    fail_fast: bool,
    reporters: &mut Reporters<'_>,
) -> Result<Option<Vec<ScenarioResult>>, AppError> {
    let outcome = if fail_fast {
        until_first_failure(scenarios, plan, options, reporters)
    } else {
        eval::evaluate_plan(scenarios, plan, options, &|event| reporters.on_event(event))
    };
    reporters.engine_stopped();
    let results = match outcome {
        Ok(results) => results,
        Err(EvalError::Interrupted) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    reporters.runs_done()?;
    Ok(Some(results))
}

/// `--fail-fast`: one scenario after another until one has a failed
/// expectation (the results then cover the scenarios that ran, in order).
fn until_first_failure(
    scenarios: &[Scenario],
    plan: &eval::Plan,
    options: &EvalOptions,
    reporters: &Reporters<'_>,
) -> Result<Vec<ScenarioResult>, EvalError> {
    reporters.on_event(&EvalEvent::Started { runs: plan.len() });
    let mut results = Vec::new();
    let mut offset = 0;
    for (index, scenario) in scenarios.iter().enumerate() {
        let on_event = |event: &EvalEvent<'_>| retell(event, index, offset, reporters);
        let result = eval::evaluate_scenario(scenario, options, &on_event)?;
        offset += units_of(scenario, options);
        let failed = !result.ok();
        results.push(result);
        if failed {
            break;
        }
    }
    Ok(results)
}

/// Hands on an event of scenario `index` evaluated alone as an event of the
/// whole plan (its runs start at position `offset`).
fn retell(event: &EvalEvent<'_>, index: usize, offset: usize, reporters: &Reporters<'_>) {
    match event {
        // The whole plan's start was told before the first scenario.
        EvalEvent::Started { .. } => {}
        EvalEvent::RunFinished {
            scenario,
            settings,
            metrics,
            position,
            unit,
            record,
        } => reporters.on_event(&EvalEvent::RunFinished {
            scenario,
            settings,
            metrics,
            position: offset + position,
            unit: Unit {
                scenario: index + unit.scenario,
                ..*unit
            },
            record,
        }),
        EvalEvent::RunUnmeasured { unit } => reporters.on_event(&EvalEvent::RunUnmeasured {
            unit: Unit {
                scenario: index + unit.scenario,
                ..*unit
            },
        }),
        EvalEvent::ScenarioFinished { .. } => reporters.on_event(event),
    }
}

/// The runs of one scenario (its share, under `--shard`).
pub(super) fn units_of(scenario: &Scenario, options: &EvalOptions) -> usize {
    eval::plan(std::slice::from_ref(scenario), options).map_or(0, |p| p.len())
}
