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
mod locate;
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
pub use agent::{AgentPreset, AgentSettings, MAX_TURNS_LIMIT};
pub use agent_command::{AgentCommand, RUN_MARK_VAR, TaskVia, check_env};
pub use axes::{Axis, AxisError, AxisValue, CellSelector, CellSettings};
pub use expect::{
    Bound, Comparison, ExactExpectation, Expectation, THRESHOLD_TOLERANCE, reaches, stays_within,
};
pub use load::{LoadError, discover, load, load_all, load_str};
pub use locate::expectation_lines;
pub use model::{ModelSpec, SimulateSection, simulate_section, with_profile};
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
    /// The first user message (the first part's task in a session).
    pub task: String,
    pub workspace: WorkspaceSpec,
    /// Every step, the parts' steps one after the other in a session.
    pub steps: Vec<Step>,
    /// The user messages of the conversation, in order: one part holding
    /// `task` and every step for a scenario written with `task:`, the
    /// `session:` parts otherwise.
    pub parts: Vec<Part>,
    /// Whether the file used `session:` (its run records carry `parts`).
    pub session: bool,
    /// Where its `session:` key is (line, column), for errors about it.
    pub session_position: Option<(u64, u64)>,
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
    /// The calibration profile the simulated model's parameters come from
    /// (`simulate: {profile: FILE}`, or `run --profile`).
    pub profile: Option<crate::model::simulated::profile::ProfileRef>,
    /// The simulated model's parameters the file wrote itself: they
    /// override any profile's.
    pub simulate_written: Vec<String>,
}

impl Scenario {
    /// Puts a simulated scenario under `loaded` (`run --profile`): the
    /// defaults, the profile's values, then the parameters the file wrote.
    /// Other models are left alone.
    pub fn use_profile(&mut self, loaded: &crate::model::simulated::profile::LoadedProfile) {
        if let ModelSpec::Simulate(params) = &mut self.model {
            *params = with_profile(params, &self.simulate_written, &loaded.profile);
            self.profile = Some(loaded.reference());
        }
    }

    /// Steps that are scored (have a check).
    pub fn steps_total(&self) -> usize {
        self.steps.iter().filter(|s| s.check.is_some()).count()
    }

    /// What the simulated model knows of the steps.
    pub fn skills(&self) -> Vec<Skill> {
        self.steps.iter().map(Step::skill).collect()
    }

    /// The parts' tasks, in order: the user messages of a run.
    pub fn tasks(&self) -> Vec<String> {
        self.parts.iter().map(|p| p.task.clone()).collect()
    }
}

/// One user message of a session (`session:` entry): its task and the
/// range of [`Scenario::steps`] that are its steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub task: String,
    pub steps: std::ops::Range<usize>,
}

/// The scenario file's top level, before defaults are applied.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawScenario {
    pub name: Option<String>,
    pub description: Option<String>,
    pub task: Option<String>,
    /// Several user messages instead of `task` + `steps`.
    pub session: Option<serde_saphyr::Spanned<Vec<serde_saphyr::Spanned<RawPart>>>>,
    #[serde(default)]
    pub workspace: WorkspaceSpec,
    pub steps: Option<Vec<serde_saphyr::Spanned<step::RawStep>>>,
    #[serde(default)]
    pub agent: agent::RawAgent,
    pub model: serde_saphyr::Spanned<ModelSpec>,
    pub runs: Option<serde_saphyr::Spanned<RunsSpec>>,
    #[serde(default)]
    pub expect: Vec<Expectation>,
}

/// One `session:` entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPart {
    pub task: String,
    #[serde(default)]
    pub steps: Vec<serde_saphyr::Spanned<step::RawStep>>,
}
