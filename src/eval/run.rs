//! One run: a fresh workspace, the loop against the scenario's model, the
//! checks, the protocol check, and the run's metrics.

use serde::Serialize;

use super::cells::Cell;
use super::{checks, workspace};
use crate::agent::dialect::{Dialect, PlanItem};
use crate::agent::protocol::{self, Violation};
use crate::agent::tools::Toolbox;
use crate::agent::{StopKind, run_loop};
use crate::llm::Message;
use crate::llm::Model;
use crate::model::scripted::ScriptedModel;
use crate::model::simulated::{SimulatedModel, run_seed};
use crate::scenario::{ModelSpec, Scenario};

/// A run's measured results (one element of `results` in the JSON report).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct RunMetrics {
    pub seed: u64,
    pub turns: usize,
    pub stop: StopKind,
    pub steps_completed: usize,
    pub steps_total: usize,
    pub reminders_at: Vec<usize>,
    pub rejected_todo_updates: usize,
    pub todo_calls: usize,
    pub protocol_violations: usize,
    /// Calls of tools that were not offered. Written only when not 0, so
    /// the reports and replays of runs without such calls keep their bytes;
    /// read as 0 when absent.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unknown_tool_calls: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl RunMetrics {
    /// steps_completed / steps_total; 1 for a scenario with no scored step.
    pub fn completion(&self) -> f64 {
        if self.steps_total == 0 {
            1.0
        } else {
            self.steps_completed as f64 / self.steps_total as f64
        }
    }

    pub fn fully_completed(&self) -> bool {
        self.steps_completed == self.steps_total
    }
}

/// Everything a run produced, for replay.
#[derive(Debug, Clone)]
pub struct RunRecord {
    pub metrics: RunMetrics,
    pub messages: Vec<Message>,
    pub violations: Vec<Violation>,
    /// Whether each step's check held, in step order (`None`: not scored).
    pub step_results: Vec<Option<bool>>,
    /// The planning dialect the run used, and its plan at the end.
    pub dialect: Dialect,
    pub plan: Vec<PlanItem>,
    /// Whether the dialect's planning tool(s) were offered.
    pub planning_offered: bool,
}

/// Why a run could not happen.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{scenario}: cannot prepare the workspace: {source}")]
    Workspace {
        scenario: String,
        source: std::io::Error,
    },
}

/// Runs `scenario` once with `cell`'s settings and `seed`.
pub fn run_once(scenario: &Scenario, cell: &Cell, seed: u64) -> Result<RunRecord, RunError> {
    // A Ctrl-C during this call is handled by it, then forgotten.
    let _session = crate::cancel::Session::begin();
    let io_error = |source| RunError::Workspace {
        scenario: scenario.name.clone(),
        source,
    };
    let dir = workspace::create(&scenario.workspace).map_err(io_error)?;
    let toolbox = Toolbox::new(dir.path()).map_err(io_error)?;
    let settings = &cell.loop_settings;
    let mut model: Box<dyn Model> = match &scenario.model {
        ModelSpec::Script(script) => Box::new(ScriptedModel::new(script.clone())),
        ModelSpec::Simulate(params) => {
            let mut simulated = SimulatedModel::new(
                cell.simulate.unwrap_or(*params),
                scenario.skills(),
                run_seed(&scenario.name, seed),
            )
            .with_dialect(settings.dialect);
            if let Some(marker) = settings.reminder.marker() {
                simulated = simulated.with_reminder_marker(marker);
            }
            Box::new(simulated)
        }
    };
    let outcome = run_loop(model.as_mut(), &toolbox, &scenario.task, settings);
    let step_results: Vec<Option<bool>> = scenario
        .steps
        .iter()
        .map(|step| {
            step.check
                .as_ref()
                .map(|c| checks::holds(c, toolbox.root()))
        })
        .collect();
    let violations = protocol::check(&outcome.messages);
    let metrics = RunMetrics {
        seed,
        turns: outcome.turns,
        stop: outcome.stop,
        steps_completed: step_results.iter().filter(|r| **r == Some(true)).count(),
        steps_total: scenario.steps_total(),
        reminders_at: outcome.reminders_at,
        rejected_todo_updates: outcome.rejected_todo_updates,
        todo_calls: outcome.todo_calls,
        protocol_violations: violations.len(),
        unknown_tool_calls: outcome.unknown_tool_calls,
    };
    Ok(RunRecord {
        metrics,
        messages: outcome.messages,
        violations,
        step_results,
        dialect: settings.dialect,
        plan: outcome.plan,
        planning_offered: settings.todo,
    })
}
