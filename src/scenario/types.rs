//! The scenario's types, as deserialized from YAML and validated.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use crate::model::simulated::SimulateParams;

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
}

impl Scenario {
    /// The cell the `agent:` settings describe.
    pub fn agent_cell(&self) -> CellSettings {
        CellSettings {
            todo: self.agent.todo,
            nag_threshold: self.agent.nag.threshold,
        }
    }

    /// Steps that are scored (have a check).
    pub fn steps_total(&self) -> usize {
        self.steps.iter().filter(|s| s.check.is_some()).count()
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
    pub steps: Vec<RawStep>,
    #[serde(default)]
    pub agent: AgentSettings,
    pub model: ModelSpec,
    #[serde(default)]
    pub runs: RunsSpec,
    #[serde(default)]
    pub expect: Vec<Expectation>,
}

/// What the workspace starts with.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceSpec {
    /// A folder copied in first, relative to the scenario file. The loader
    /// resolves it against the file's folder and checks it is a folder.
    pub fixture: Option<serde_saphyr::Spanned<PathBuf>>,
    /// Files written after the fixture, in path order.
    #[serde(default)]
    pub files: BTreeMap<WorkspacePath, String>,
    /// The fixture and files read once (by the loader, or on first use)
    /// and shared by every run.
    #[serde(skip)]
    pub image: std::sync::OnceLock<std::sync::Arc<crate::agent::workspace::WorkspaceImage>>,
}

/// A relative path that stays inside the workspace (no root, no `..`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct WorkspacePath(String);

impl WorkspacePath {
    pub fn parse(raw: &str) -> Result<Self, String> {
        if raw.trim().is_empty() {
            return Err("workspace path is empty".into());
        }
        if raw.contains('\0') {
            return Err(format!("workspace path {raw:?} holds a NUL byte"));
        }
        for component in Path::new(raw).components() {
            match component {
                Component::Normal(_) | Component::CurDir => {}
                Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                    return Err(format!(
                        "workspace path `{raw}` escapes the workspace (use a relative path without `..`)"
                    ));
                }
            }
        }
        Ok(Self(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for WorkspacePath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Self::parse(&raw).map_err(de::Error::custom)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawStep {
    pub id: Option<IdText>,
    pub text: String,
    pub check: Option<Check>,
    #[serde(default, rename = "do")]
    pub actions: Vec<ToolCall>,
}

/// An id written as a string or a number; kept as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdText(pub String);

impl<'de> Deserialize<'de> for IdText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) if !s.trim().is_empty() => Ok(Self(s)),
            Value::Number(n) => Ok(Self(n.to_string())),
            other => Err(de::Error::custom(format!(
                "step id must be a non-empty string or a number, got {other}"
            ))),
        }
    }
}

/// One ground-truth step.
#[derive(Debug, Clone)]
pub struct Step {
    pub id: String,
    pub text: String,
    pub check: Option<Check>,
    /// The tool calls that perform the step (used by the simulated model).
    pub actions: Vec<ToolCall>,
}

/// A tool call written in a scenario (`{tool, input}`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    pub tool: String,
    #[serde(default = "empty_object", deserialize_with = "object_value")]
    pub input: Value,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

fn object_value<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    match Value::deserialize(d)? {
        v @ Value::Object(_) => Ok(v),
        other => Err(de::Error::custom(format!(
            "tool input must be a mapping, got {other}"
        ))),
    }
}

/// How a step is scored against the workspace.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Check {
    Contains {
        file: WorkspacePath,
        contains: String,
    },
    NotContains {
        file: WorkspacePath,
        not_contains: String,
    },
    Equals {
        file: WorkspacePath,
        equals: String,
    },
    Exists {
        file: WorkspacePath,
        exists: bool,
    },
    Command {
        command: String,
        exit_code: i32,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    file: Option<WorkspacePath>,
    contains: Option<String>,
    not_contains: Option<String>,
    equals: Option<String>,
    exists: Option<bool>,
    command: Option<String>,
    exit_code: Option<i32>,
}

impl<'de> Deserialize<'de> for Check {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawCheck::deserialize(d)?;
        let file_kinds = [
            raw.contains.is_some(),
            raw.not_contains.is_some(),
            raw.equals.is_some(),
            raw.exists.is_some(),
        ]
        .iter()
        .filter(|&&b| b)
        .count();
        const KINDS: &str = "a check is one of {file, contains}, {file, not_contains}, {file, equals}, {file, exists}, {command, exit_code}";
        match (raw.file, raw.command) {
            (Some(file), None) if file_kinds == 1 && raw.exit_code.is_none() => {
                Ok(if let Some(contains) = raw.contains {
                    Check::Contains { file, contains }
                } else if let Some(not_contains) = raw.not_contains {
                    Check::NotContains { file, not_contains }
                } else if let Some(equals) = raw.equals {
                    Check::Equals { file, equals }
                } else {
                    Check::Exists {
                        file,
                        exists: raw.exists.unwrap_or(true),
                    }
                })
            }
            (None, Some(command)) if file_kinds == 0 => Ok(Check::Command {
                command,
                exit_code: raw.exit_code.unwrap_or(0),
            }),
            _ => Err(de::Error::custom(KINDS)),
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Check::Contains { file, contains } => {
                write!(f, "{} contains {contains:?}", file.as_str())
            }
            Check::NotContains { file, not_contains } => {
                write!(f, "{} does not contain {not_contains:?}", file.as_str())
            }
            Check::Equals { file, .. } => write!(f, "{} equals the expected text", file.as_str()),
            Check::Exists { file, exists } => {
                let verb = if *exists { "exists" } else { "does not exist" };
                write!(f, "{} {verb}", file.as_str())
            }
            Check::Command { command, exit_code } => {
                write!(f, "`{command}` exits {exit_code}")
            }
        }
    }
}

/// The nag threshold: a number of rounds without a todo call, or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NagThreshold {
    After(u32),
    Off,
}

impl NagThreshold {
    pub fn parse(raw: &str) -> Result<Self, String> {
        if raw == "off" {
            return Ok(Self::Off);
        }
        match raw.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(Self::After(n)),
            _ => Err(format!(
                "nag threshold must be an integer >= 1 or \"off\", got `{raw}`"
            )),
        }
    }
}

impl fmt::Display for NagThreshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::After(n) => write!(f, "{n}"),
            Self::Off => f.write_str("off"),
        }
    }
}

impl Serialize for NagThreshold {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::After(n) => s.serialize_u32(*n),
            Self::Off => s.serialize_str("off"),
        }
    }
}

impl<'de> Deserialize<'de> for NagThreshold {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = match Value::deserialize(d)? {
            Value::String(s) => s,
            other => other.to_string(),
        };
        Self::parse(&text).map_err(de::Error::custom)
    }
}

/// Where the reminder goes among the tool results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// First, before the tool results: the s03 reference (breaks the API's
    /// "begin with tool_result" rule).
    #[default]
    Prepend,
    /// Last, after the tool results: what the API accepts.
    Append,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NagSettings {
    #[serde(default = "default_threshold")]
    pub threshold: NagThreshold,
    #[serde(default)]
    pub placement: Placement,
}

fn default_threshold() -> NagThreshold {
    NagThreshold::After(3)
}

impl Default for NagSettings {
    fn default() -> Self {
        Self {
            threshold: default_threshold(),
            placement: Placement::Prepend,
        }
    }
}

/// The loop's settings (`agent:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSettings {
    #[serde(default = "yes")]
    pub todo: bool,
    #[serde(default)]
    pub nag: NagSettings,
    #[serde(default = "default_max_turns", deserialize_with = "positive")]
    pub max_turns: usize,
}

fn yes() -> bool {
    true
}

fn default_max_turns() -> usize {
    50
}

/// The largest `max_turns` accepted: a guard against runaway runs.
pub const MAX_TURNS_LIMIT: usize = 10_000;

fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let n = u64::deserialize(d)?;
    match usize::try_from(n) {
        Ok(n) if (1..=MAX_TURNS_LIMIT).contains(&n) => Ok(n),
        _ => Err(de::Error::custom(format!(
            "max_turns must be between 1 and {MAX_TURNS_LIMIT}, got {n}"
        ))),
    }
}

impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            todo: true,
            nag: NagSettings::default(),
            max_turns: default_max_turns(),
        }
    }
}

/// The mock LLM: exactly one of `script` / `simulate`.
#[derive(Debug, Clone)]
pub enum ModelSpec {
    Script(Vec<ScriptedResponse>),
    Simulate(SimulateParams),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModelSpec {
    script: Option<Vec<ScriptedResponse>>,
    simulate: Option<SimulateParams>,
}

impl<'de> Deserialize<'de> for ModelSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match RawModelSpec::deserialize(d)? {
            RawModelSpec {
                script: Some(script),
                simulate: None,
            } => Ok(Self::Script(script)),
            RawModelSpec {
                script: None,
                simulate: Some(params),
            } => Ok(Self::Simulate(params)),
            _ => Err(de::Error::custom(
                "model needs exactly one of `script` (a list of responses) or `simulate` (parameters)",
            )),
        }
    }
}

/// One scripted response (SPEC 2.1).
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedResponse {
    pub text: Option<String>,
    pub calls: Vec<ToolCall>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScriptedResponse {
    tool: Option<String>,
    #[serde(default, deserialize_with = "some_object")]
    input: Option<Value>,
    tools: Option<Vec<ToolCall>>,
    text: Option<String>,
}

fn some_object<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    object_value(d).map(Some)
}

impl<'de> Deserialize<'de> for ScriptedResponse {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawScriptedResponse::deserialize(d)?;
        let calls = match (raw.tool, raw.input, raw.tools) {
            (Some(tool), input, None) => vec![ToolCall {
                tool,
                input: input.unwrap_or_else(empty_object),
            }],
            (None, None, Some(tools)) => tools,
            (None, None, None) => Vec::new(),
            (None, Some(_), _) => {
                return Err(de::Error::custom(
                    "`input` needs a `tool` in the same response",
                ));
            }
            (Some(_), _, Some(_)) => {
                return Err(de::Error::custom(
                    "a response has either `tool` (one call) or `tools` (a list), not both",
                ));
            }
        };
        if calls.is_empty() && raw.text.is_none() {
            return Err(de::Error::custom(
                "a scripted response needs `tool`, `tools` or `text`",
            ));
        }
        Ok(Self {
            text: raw.text,
            calls,
        })
    }
}

/// Which seeds a cell runs: `N` means 0..N, a list means those.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seeds {
    Count(u64),
    List(Vec<u64>),
}

impl Seeds {
    pub fn to_vec(&self) -> Vec<u64> {
        match self {
            Seeds::Count(n) => (0..*n).collect(),
            Seeds::List(list) => list.clone(),
        }
    }
}

/// The most seeds a cell may run, a guard against a typo'd `seeds: 2000000000`.
pub const MAX_SEEDS: u64 = 100_000;

impl<'de> Deserialize<'de> for Seeds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Count(u64),
            List(Vec<u64>),
        }
        let raw = Raw::deserialize(d).map_err(|_| {
            de::Error::custom("seeds must be a count (N means seeds 0..N-1) or a list of seeds")
        })?;
        match raw {
            Raw::Count(n) if (1..=MAX_SEEDS).contains(&n) => Ok(Seeds::Count(n)),
            Raw::Count(n) => Err(de::Error::custom(format!(
                "seeds must be between 1 and {MAX_SEEDS}, got {n}"
            ))),
            Raw::List(list) if list.is_empty() => {
                Err(de::Error::custom("seeds list must not be empty"))
            }
            Raw::List(list) => Ok(Seeds::List(list)),
        }
    }
}

/// The run matrix (`runs:`); unset axes take the `agent:` value.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunsSpec {
    pub todo: Option<Vec<bool>>,
    pub nag_threshold: Option<Vec<NagThreshold>>,
    pub seeds: Option<Seeds>,
}

/// A cell's settings, as reported (`settings` in the JSON report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellSettings {
    pub todo: bool,
    pub nag_threshold: NagThreshold,
}

impl fmt::Display for CellSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "todo={} nag={}", self.todo, self.nag_threshold)
    }
}

/// Selects cells by their settings; an absent key matches any value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CellSelector {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub todo: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nag_threshold: Option<NagThreshold>,
}

impl CellSelector {
    pub fn matches(&self, cell: &CellSettings) -> bool {
        self.todo.is_none_or(|t| t == cell.todo)
            && self.nag_threshold.is_none_or(|n| n == cell.nag_threshold)
    }
}

impl fmt::Display for CellSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(todo) = self.todo {
            parts.push(format!("todo={todo}"));
        }
        if let Some(nag) = self.nag_threshold {
            parts.push(format!("nag={nag}"));
        }
        if parts.is_empty() {
            f.write_str("all cells")
        } else {
            f.write_str(&parts.join(" "))
        }
    }
}

/// A bound on a measured number.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Bound {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_least: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_most: Option<f64>,
}

impl Bound {
    pub fn holds(&self, measured: f64) -> bool {
        self.at_least.is_none_or(|lo| measured >= lo)
            && self.at_most.is_none_or(|hi| measured <= hi)
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.at_least, self.at_most) {
            (Some(lo), Some(hi)) => write!(f, "in [{lo}, {hi}]"),
            (Some(lo), None) => write!(f, ">= {lo}"),
            (None, Some(hi)) => write!(f, "<= {hi}"),
            (None, None) => f.write_str("(any)"),
        }
    }
}

/// A metric one run reports exactly.
#[derive(Debug, Clone, PartialEq)]
pub enum ExactExpectation {
    RemindersAt(Vec<usize>),
    StepsCompleted(usize),
    RejectedTodoUpdates(usize),
    TodoCalls(usize),
    Stop(crate::agent::StopKind),
    Turns(usize),
    ProtocolViolations(usize),
}

impl ExactExpectation {
    /// The key it is written under.
    pub fn name(&self) -> &'static str {
        match self {
            Self::RemindersAt(_) => "reminders_at",
            Self::StepsCompleted(_) => "steps_completed",
            Self::RejectedTodoUpdates(_) => "rejected_todo_updates",
            Self::TodoCalls(_) => "todo_calls",
            Self::Stop(_) => "stop",
            Self::Turns(_) => "turns",
            Self::ProtocolViolations(_) => "protocol_violations",
        }
    }

    /// The expected value, as JSON.
    pub fn expected(&self) -> Value {
        match self {
            Self::RemindersAt(v) => serde_json::json!(v),
            Self::StepsCompleted(v)
            | Self::RejectedTodoUpdates(v)
            | Self::TodoCalls(v)
            | Self::Turns(v)
            | Self::ProtocolViolations(v) => serde_json::json!(v),
            Self::Stop(v) => serde_json::json!(v),
        }
    }
}

/// An aggregate over the runs of the selected cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AggregateMetric {
    CompletionRate,
    FullCompletionRate,
    MeanStepsCompleted,
    MeanReminders,
    MeanRejectedTodoUpdates,
    MeanTurns,
    MeanProtocolViolations,
}

impl AggregateMetric {
    pub fn name(self) -> &'static str {
        match self {
            Self::CompletionRate => "completion_rate",
            Self::FullCompletionRate => "full_completion_rate",
            Self::MeanStepsCompleted => "mean_steps_completed",
            Self::MeanReminders => "mean_reminders",
            Self::MeanRejectedTodoUpdates => "mean_rejected_todo_updates",
            Self::MeanTurns => "mean_turns",
            Self::MeanProtocolViolations => "mean_protocol_violations",
        }
    }
}

/// How two selections are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// metric(a) / metric(b)
    Ratio(AggregateMetric),
    /// metric(a) - metric(b)
    Diff(AggregateMetric),
    /// The paired test's p-value for a differing from b on this metric.
    PValue(AggregateMetric),
}

impl Comparison {
    pub fn name(self) -> String {
        match self {
            Self::Ratio(m) => format!("{}_ratio", m.name()),
            Self::Diff(m) => format!("{}_diff", m.name()),
            Self::PValue(m) => format!("{}_p_value", m.name()),
        }
    }
}

/// One validated `expect:` entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Expectation {
    /// Holds for every run of every cell.
    Exact(ExactExpectation),
    /// An aggregate over the runs of the cells `selector` matches.
    Bound {
        selector: CellSelector,
        metric: AggregateMetric,
        bound: Bound,
    },
    /// Selection `a` against selection `b`, paired by seed.
    Compare {
        a: CellSelector,
        b: CellSelector,
        comparison: Comparison,
        bound: Bound,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpectation {
    reminders_at: Option<Vec<usize>>,
    steps_completed: Option<usize>,
    rejected_todo_updates: Option<usize>,
    todo_calls: Option<usize>,
    stop: Option<crate::agent::StopKind>,
    turns: Option<usize>,
    protocol_violations: Option<usize>,
    #[serde(rename = "where")]
    selector: Option<CellSelector>,
    completion_rate: Option<Bound>,
    full_completion_rate: Option<Bound>,
    mean_steps_completed: Option<Bound>,
    mean_reminders: Option<Bound>,
    mean_rejected_todo_updates: Option<Bound>,
    mean_turns: Option<Bound>,
    mean_protocol_violations: Option<Bound>,
    compare: Option<ComparePair>,
    completion_rate_ratio: Option<Bound>,
    completion_rate_diff: Option<Bound>,
    completion_rate_p_value: Option<Bound>,
    full_completion_rate_ratio: Option<Bound>,
    full_completion_rate_diff: Option<Bound>,
    full_completion_rate_p_value: Option<Bound>,
    mean_reminders_diff: Option<Bound>,
    mean_turns_diff: Option<Bound>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct ComparePair {
    a: CellSelector,
    b: CellSelector,
}

/// Written back in the shape it is read in, so a report can carry its
/// scenario's expectations and `merge` can check them again.
impl Serialize for Expectation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        match self {
            Expectation::Exact(exact) => {
                map.serialize_entry(exact.name(), &exact.expected())?;
            }
            Expectation::Bound {
                selector,
                metric,
                bound,
            } => {
                map.serialize_entry("where", selector)?;
                map.serialize_entry(metric.name(), bound)?;
            }
            Expectation::Compare {
                a,
                b,
                comparison,
                bound,
            } => {
                map.serialize_entry(
                    "compare",
                    &ComparePair {
                        a: a.clone(),
                        b: b.clone(),
                    },
                )?;
                map.serialize_entry(&comparison.name(), bound)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Expectation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use AggregateMetric as M;
        let raw = RawExpectation::deserialize(d)?;
        let mut exact = Vec::new();
        if let Some(v) = raw.reminders_at {
            exact.push(ExactExpectation::RemindersAt(v));
        }
        if let Some(v) = raw.steps_completed {
            exact.push(ExactExpectation::StepsCompleted(v));
        }
        if let Some(v) = raw.rejected_todo_updates {
            exact.push(ExactExpectation::RejectedTodoUpdates(v));
        }
        if let Some(v) = raw.todo_calls {
            exact.push(ExactExpectation::TodoCalls(v));
        }
        if let Some(v) = raw.stop {
            exact.push(ExactExpectation::Stop(v));
        }
        if let Some(v) = raw.turns {
            exact.push(ExactExpectation::Turns(v));
        }
        if let Some(v) = raw.protocol_violations {
            exact.push(ExactExpectation::ProtocolViolations(v));
        }
        let aggregates: Vec<(M, Bound)> = [
            (M::CompletionRate, raw.completion_rate),
            (M::FullCompletionRate, raw.full_completion_rate),
            (M::MeanStepsCompleted, raw.mean_steps_completed),
            (M::MeanReminders, raw.mean_reminders),
            (M::MeanRejectedTodoUpdates, raw.mean_rejected_todo_updates),
            (M::MeanTurns, raw.mean_turns),
            (M::MeanProtocolViolations, raw.mean_protocol_violations),
        ]
        .into_iter()
        .filter_map(|(m, b)| b.map(|b| (m, b)))
        .collect();
        let comparisons: Vec<(Comparison, Bound)> = [
            (
                Comparison::Ratio(M::CompletionRate),
                raw.completion_rate_ratio,
            ),
            (
                Comparison::Diff(M::CompletionRate),
                raw.completion_rate_diff,
            ),
            (
                Comparison::PValue(M::CompletionRate),
                raw.completion_rate_p_value,
            ),
            (
                Comparison::Ratio(M::FullCompletionRate),
                raw.full_completion_rate_ratio,
            ),
            (
                Comparison::Diff(M::FullCompletionRate),
                raw.full_completion_rate_diff,
            ),
            (
                Comparison::PValue(M::FullCompletionRate),
                raw.full_completion_rate_p_value,
            ),
            (Comparison::Diff(M::MeanReminders), raw.mean_reminders_diff),
            (Comparison::Diff(M::MeanTurns), raw.mean_turns_diff),
        ]
        .into_iter()
        .filter_map(|(c, b)| b.map(|b| (c, b)))
        .collect();

        let bounds = aggregates.iter().map(|(_, b)| b);
        for bound in bounds.chain(comparisons.iter().map(|(_, b)| b)) {
            if bound.at_least.is_none() && bound.at_most.is_none() {
                return Err(de::Error::custom(
                    "a bound needs `at_least` and/or `at_most`",
                ));
            }
        }
        let kinds = usize::from(!exact.is_empty())
            + usize::from(!aggregates.is_empty() || raw.selector.is_some())
            + usize::from(!comparisons.is_empty() || raw.compare.is_some());
        let count = exact.len() + aggregates.len() + comparisons.len();
        if kinds != 1 || count != 1 {
            return Err(de::Error::custom(
                "each expectation states one thing: one exact metric (e.g. `turns: 9`), \
                 or `where` with one aggregate bound (e.g. `completion_rate: {at_least: 0.8}`), \
                 or `compare: {a, b}` with one comparison bound (e.g. `completion_rate_ratio: {at_least: 2}`)",
            ));
        }
        if let Some(e) = exact.pop() {
            return Ok(Expectation::Exact(e));
        }
        if let Some((metric, bound)) = aggregates.into_iter().next() {
            return Ok(Expectation::Bound {
                selector: raw.selector.unwrap_or_default(),
                metric,
                bound,
            });
        }
        let pair = raw.compare.ok_or_else(|| {
            de::Error::custom("a comparison bound needs `compare: {a: ..., b: ...}`")
        })?;
        let (comparison, bound) = comparisons
            .into_iter()
            .next()
            .ok_or_else(|| de::Error::custom("`compare` needs a comparison bound"))?;
        Ok(Expectation::Compare {
            a: pair.a,
            b: pair.b,
            comparison,
            bound,
        })
    }
}
