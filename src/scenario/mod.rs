//! Scenario files: the YAML format, loaded strictly.
//!
//! Every struct denies unknown keys, so a typo is an error instead of a
//! silently different run. Values that need more than a type (a nag
//! threshold of `"off"` or at least 1, exactly one check kind, a workspace
//! path that stays inside) are checked while deserializing, so errors carry
//! the line and column of the offending value. [`load`] turns a file into a
//! validated [`Scenario`]; [`discover`] expands folders into files.
//!
//! The schema only configures the floors below it: the loop's settings
//! ([`AgentSettings`] → [`crate::agent::LoopSettings`]) and the model
//! backends' own parameter types.

mod agent;
mod agent_command;
mod axes;
pub mod cells;
mod expect;
mod load;
mod model;
mod runs;
mod seeds;
mod step;
mod workspace;

use serde::Deserialize;
use std::path::PathBuf;

pub use crate::agent::{RepeatGuard, StopKind};
pub use crate::metric::{METRICS, Metric};
pub use crate::model::ToolCall;
pub use crate::model::scripted::ScriptedResponse;
pub use crate::model::simulated::{SimulateParams, Skill};
pub use crate::plan::dialect::Dialect;
pub use crate::plan::reminder::{NagThreshold, Placement, ReminderSpec};
pub use agent::{AgentSettings, MAX_TURNS_LIMIT};
pub use agent_command::{AgentCommand, TaskVia};
pub use axes::{Axis, AxisValue, CellSelector, CellSettings};
pub use expect::{Bound, Comparison, ExactExpectation, Expectation};
pub use load::{LoadError, discover, load, load_all, load_str};
pub use model::ModelSpec;
pub use runs::RunsSpec;
pub use seeds::{MAX_SEEDS, Seeds};
pub use step::{Check, IdText, Step};
pub use workspace::{WorkspacePath, WorkspaceSpec};

/// A validated scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub description: Option<String>,
    /// The file it came from, as given.
    pub file: PathBuf,
    pub task: String,
    pub workspace: WorkspaceSpec,
    pub steps: Vec<Step>,
    pub agent: AgentSettings,
    pub model: ModelSpec,
    pub runs: RunsSpec,
    pub expect: Vec<Expectation>,
    /// Line and column of the `runs:` key (or of the file's start when it
    /// has none): where an error about the whole matrix points.
    pub runs_position: Option<(u64, u64)>,
    /// SHA-256 of the file's bytes, in hex: shard reports carry it so that
    /// `merge` only combines runs of the same scenario text.
    pub sha256: String,
}

impl Scenario {
    /// Steps that are scored (have a check).
    pub fn steps_total(&self) -> usize {
        self.steps.iter().filter(|s| s.check.is_some()).count()
    }

    /// What the simulated model knows of the steps.
    pub fn skills(&self) -> Vec<Skill> {
        self.steps.iter().map(Step::skill).collect()
    }
}

/// The scenario file's top level, before defaults are applied.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawScenario {
    pub name: Option<String>,
    pub description: Option<String>,
    pub task: String,
    #[serde(default)]
    pub workspace: WorkspaceSpec,
    #[serde(default)]
    pub steps: Vec<serde_saphyr::Spanned<step::RawStep>>,
    #[serde(default)]
    pub agent: agent::RawAgent,
    pub model: serde_saphyr::Spanned<ModelSpec>,
    pub runs: Option<serde_saphyr::Spanned<RunsSpec>>,
    #[serde(default)]
    pub expect: Vec<Expectation>,
}
