//! One run's record: what the built-in loop or an outside agent produced
//! ([`RunRecord`]), and the measured part of it that the JSON report keeps
//! ([`RunMetrics`]). The bottom of the results floor: everything else in
//! [`crate::results`] reads these.

use serde::Serialize;

use crate::agent::StopKind;
use crate::llm::Message;
use crate::llm::protocol::Violation;
use crate::plan::dialect::{Dialect, PlanItem};

/// A run's measured results (one element of `results` in the JSON report).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
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
    /// An external agent's stdout and stderr (its first MiB).
    pub agent_log: Option<String>,
}
