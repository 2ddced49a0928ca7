//! One run's record: what the built-in loop or an outside agent produced
//! ([`RunRecord`]), and the measured part of it that the JSON report keeps
//! ([`RunResult`]). The bottom of the results floor: everything else in
//! [`crate::results`] reads these.

use serde::Serialize;

pub use crate::acp::plan::{AgentPlan, AgentPlanEntry};
use crate::agent::StopKind;
use crate::llm::Message;
use crate::llm::price::PlanningPrice;
use crate::llm::protocol::Violation;
use crate::plan::dialect::{Dialect, PlanItem};

/// A run's measured results (one element of `results` in the JSON report).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct RunResult {
    pub seed: u64,
    pub turns: usize,
    pub stop: StopKind,
    pub steps_completed: usize,
    pub steps_total: usize,
    pub reminders_at: Vec<usize>,
    pub rejected_todo_updates: usize,
    pub todo_calls: usize,
    pub protocol_violations: usize,
    /// Calls of tools that were not offered. Like every per-run metric it
    /// is always written, 0 included, so a consumer needs no special case;
    /// read as 0 when absent (reports written before it was always there).
    #[serde(default)]
    pub unknown_tool_calls: usize,
    /// The price of planning (see `llm::price`): tokens of every request
    /// the model answered, the planning part of them, turns that only
    /// planned, and reminders right after a planning turn. Always written;
    /// read as 0 from reports that predate them.
    #[serde(default)]
    pub context_tokens: u64,
    #[serde(default)]
    pub planning_tokens: u64,
    #[serde(default)]
    pub planning_turns: usize,
    #[serde(default)]
    pub reminders_after_planning: usize,
    /// A real model's token usage (absent for mock models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// What a real model's answers cost, in US dollars (absent without a
    /// price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// A cassette's turns whose request differed from the recorded one
    /// (written only when there are some).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drift_turns: Vec<usize>,
    /// Why a real model failed for good, when the run stopped on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_error: Option<String>,
    /// Each scored step's check, in step order: `1` held, `0` did not
    /// (one character per step keeps per-run data small; the per-step
    /// rates of a cell are read from it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub step_checks: String,
    /// A session's figures per part, in order, adding up to the run's
    /// (absent for a scenario written with `task:`, so single-task reports
    /// keep their bytes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartMetrics>,
    /// User messages an outside agent sent that the scenario did not (each
    /// is also named in the run's log). Always written, as
    /// `unknown_tool_calls`; read as 0 when absent.
    #[serde(default)]
    pub unexpected_user_messages: usize,
    /// The plans an agent reported of itself over the Agent Client
    /// Protocol (`task_via: acp`), each whole list as it came, whether or
    /// not agent-eval knows its planning tool (absent otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent_plans: Vec<AgentPlan>,
}

impl RunResult {
    /// Whether the agent planned in this run: it called an offered
    /// planning tool, or reported a plan with entries of itself (ACP).
    /// In a cell with planning off that makes the cell invalid.
    pub fn planned(&self) -> bool {
        self.todo_calls > 0 || self.agent_plans.iter().any(|p| !p.entries.is_empty())
    }
}

/// One part's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartMetrics {
    pub steps_total: usize,
    pub steps_completed: usize,
    pub turns: usize,
    pub todo_calls: usize,
    pub reminders_at: Vec<usize>,
    /// The run ended before this part's task was sent (written only
    /// then: reports of sessions that ran to the end keep their bytes).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub never_sent: bool,
}

impl RunResult {
    /// The price of planning.
    pub fn price(&self) -> PlanningPrice {
        PlanningPrice {
            context_tokens: self.context_tokens,
            planning_tokens: self.planning_tokens,
            planning_turns: self.planning_turns,
            reminders_after_planning: self.reminders_after_planning,
        }
    }

    /// Sets the price of planning.
    pub fn set_price(&mut self, price: PlanningPrice) {
        self.context_tokens = price.context_tokens;
        self.planning_tokens = price.planning_tokens;
        self.planning_turns = price.planning_turns;
        self.reminders_after_planning = price.reminders_after_planning;
    }

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
    pub result: RunResult,
    pub messages: Vec<Message>,
    pub violations: Vec<Violation>,
    /// Whether each step's check held, in step order (`None`: not scored).
    pub step_results: Vec<Option<bool>>,
    /// The planning dialect the run used, and its plan at the end.
    pub dialect: Dialect,
    pub plan: Vec<PlanItem>,
    /// Whether the dialect's planning tool(s) were offered.
    pub planning_offered: bool,
    /// An external agent's stdout and stderr (its first MiB).
    pub agent_log: Option<String>,
}

impl RunResult {
    /// A run of no turns and no steps with every figure zero: what the
    /// executors (built-in loop, outside agent) and the tests start from,
    /// setting only what they measure (`RunResult { turns: 4,
    /// ..RunResult::zeroed(seed) }`), so a new figure is added here once.
    pub fn zeroed(seed: u64) -> Self {
        RunResult {
            seed,
            turns: 0,
            stop: crate::agent::StopKind::EndTurn,
            steps_completed: 0,
            steps_total: 0,
            reminders_at: Vec::new(),
            rejected_todo_updates: 0,
            todo_calls: 0,
            protocol_violations: 0,
            unknown_tool_calls: 0,
            context_tokens: 0,
            planning_tokens: 0,
            planning_turns: 0,
            reminders_after_planning: 0,
            input_tokens: None,
            output_tokens: None,
            cost: None,
            drift_turns: Vec::new(),
            model_error: None,
            step_checks: String::new(),
            parts: Vec::new(),
            unexpected_user_messages: 0,
            agent_plans: Vec::new(),
        }
    }
}

/// Fake runs for tests: run i has seed i and `completed[i]` steps, and
/// `reminders` reminders of 100 tokens each over a context of 1,000.
#[cfg(test)]
pub(crate) fn test_runs(
    steps_total: usize,
    completed: &[usize],
    reminders: usize,
) -> Vec<RunResult> {
    completed
        .iter()
        .enumerate()
        .map(|(seed, &steps_completed)| RunResult {
            turns: 10,
            steps_completed,
            steps_total,
            reminders_at: (0..reminders).collect(),
            // Every reminder costs context, as in a real run.
            context_tokens: 1000 + 100 * reminders as u64,
            planning_tokens: 100 * reminders as u64,
            ..RunResult::zeroed(seed as u64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::{METRICS, PerRun};

    /// The run-record keys a metric's per-run value is read from. The match
    /// is exhaustive: a new per-run metric must say where its value is.
    fn keys_of(per_run: PerRun) -> &'static [&'static str] {
        match per_run {
            PerRun::Completion | PerRun::FullCompletion => &["steps_completed", "steps_total"],
            PerRun::StepsCompleted => &["steps_completed"],
            PerRun::Reminders => &["reminders_at"],
            PerRun::RejectedTodoUpdates => &["rejected_todo_updates"],
            PerRun::TodoCalls => &["todo_calls"],
            PerRun::Turns => &["turns"],
            PerRun::ProtocolViolations => &["protocol_violations"],
            PerRun::UnknownToolCalls => &["unknown_tool_calls"],
            PerRun::UnexpectedUserMessages => &["unexpected_user_messages"],
            PerRun::ContextTokens => &["context_tokens"],
            PerRun::PlanningTokens => &["planning_tokens"],
            PerRun::PlanningShare => &["planning_tokens", "context_tokens"],
            PerRun::PlanningTurns => &["planning_turns"],
            PerRun::RemindersAfterPlanning => &["reminders_after_planning"],
        }
    }

    /// A run with nothing to count still carries every metric's keys (0,
    /// not absent), and reads back equal; a record written before a key was
    /// always there reads it as 0.
    #[test]
    fn every_metric_is_in_every_record() {
        let run = RunResult::zeroed(0);
        let value = serde_json::to_value(&run).unwrap();
        for metric in METRICS {
            for key in keys_of(metric.per_run) {
                assert!(value.get(key).is_some(), "{}: `{key}` missing", metric.name);
            }
        }
        let back: RunResult = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(back, run);
        let mut old = value;
        for key in [
            "unknown_tool_calls",
            "unexpected_user_messages",
            "context_tokens",
            "planning_tokens",
            "planning_turns",
            "reminders_after_planning",
        ] {
            old.as_object_mut().unwrap().remove(key);
        }
        assert_eq!(serde_json::from_value::<RunResult>(old).unwrap(), run);
    }
}
