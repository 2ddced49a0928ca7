//! One run: a fresh workspace, the loop against the scenario's model, the
//! checks, the protocol check, and the run's metrics.

use serde::Serialize;

use super::{checks, workspace};
use crate::agent::protocol::{self, Violation};
use crate::agent::todo::TodoManager;
use crate::agent::tools::Toolbox;
use crate::agent::{LoopSettings, StopKind, run_loop};
use crate::llm::Message;
use crate::llm::Model;
use crate::model::scripted::ScriptedModel;
use crate::model::simulated::{SimulatedModel, run_seed};
use crate::scenario::{CellSettings, ModelSpec, Scenario};

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
    pub todos: TodoManager,
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
pub fn run_once(scenario: &Scenario, cell: CellSettings, seed: u64) -> Result<RunRecord, RunError> {
    let io_error = |source| RunError::Workspace {
        scenario: scenario.name.clone(),
        source,
    };
    let workspace = workspace::create(&scenario.workspace).map_err(io_error)?;
    let toolbox = Toolbox::with_workspace(std::sync::Arc::new(workspace));
    let settings = LoopSettings {
        todo: cell.todo,
        nag: cell.nag_threshold,
        placement: scenario.agent.nag.placement,
        max_turns: scenario.agent.max_turns,
    };
    let mut model: Box<dyn Model> = match &scenario.model {
        ModelSpec::Script(script) => Box::new(ScriptedModel::new(script.clone())),
        ModelSpec::Simulate(params) => Box::new(SimulatedModel::new(
            *params,
            scenario.steps.clone(),
            run_seed(&scenario.name, seed),
        )),
    };
    let outcome = run_loop(model.as_mut(), &toolbox, &scenario.task, &settings);
    let step_results: Vec<Option<bool>> = scenario
        .steps
        .iter()
        .map(|step| {
            step.check
                .as_ref()
                .map(|c| checks::holds(c, toolbox.workspace()))
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
    };
    Ok(RunRecord {
        metrics,
        messages: outcome.messages,
        violations,
        step_results,
        todos: outcome.todos,
    })
}
