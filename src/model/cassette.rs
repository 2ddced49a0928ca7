//! Cassettes: record a real model's run once, replay it offline for free.
//!
//! Recording wraps any model in a [`Recorder`]: each request is hashed and
//! each answer kept on a [`Tape`]. [`Tape::script`] turns the tape into the
//! `model.script` of a scripted scenario, one entry per answer, each with
//! the `request_hash` of the request it answered.
//!
//! Replaying wraps the scripted model in a [`Replay`]: before each answer it
//! hashes the request it is asked to answer and compares it with the
//! recorded hash. A difference means the loop (its prompt, tools, results,
//! the workspace) no longer asks what the model was asked: that turn is
//! recorded as [`Drift`] on a [`DriftLog`], and the run goes on with the
//! recorded answer (drift is a finding, not a crash).
//!
//! The hash is the SHA-256, in lower-case hex, of a canonical JSON text:
//! `{"messages": [...], "system": "...", "tools": ["name", ...]}` with
//! object keys sorted at every level, no spaces, and every occurrence of the
//! run's workspace path replaced by `{WORKDIR}` (in the system prompt and
//! in every string of the messages), so a replay in another temporary
//! folder hashes the same. Tool descriptions and schemas are left out: the
//! names say which tools were offered; a reworded description is not drift.

use crate::llm::{ContentBlock, Model, ModelError, ModelRequest, ModelResponse, turn_of};
use serde::Serialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// What the workspace path becomes before hashing (the placeholder every
/// count of a context uses).
pub use crate::llm::price::WORKDIR_PLACEHOLDER;

/// The canonical value of a request that [`request_hash`] hashes.
pub fn canonical_request(request: &ModelRequest<'_>, workdir: &str) -> Value {
    let messages = serde_json::to_value(request.messages).unwrap_or(Value::Null);
    let tools: Vec<&str> = request.tools.iter().map(|t| t.name.as_ref()).collect();
    canonical(json!({
        "system": replace_workdir(Value::String(request.system.to_string()), workdir),
        "messages": replace_workdir(messages, workdir),
        "tools": tools,
    }))
}

/// SHA-256 (lower-case hex) of the canonical JSON text of the request.
pub fn request_hash(request: &ModelRequest<'_>, workdir: &str) -> String {
    let text = canonical_request(request, workdir).to_string();
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Objects with their keys in sorted order, at every level.
fn canonical(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, canonical(v)))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(canonical).collect()),
        other => other,
    }
}

/// Every string with `workdir` replaced by the placeholder.
fn replace_workdir(value: Value, workdir: &str) -> Value {
    if workdir.is_empty() {
        return value;
    }
    match value {
        Value::String(text) => Value::String(text.replace(workdir, WORKDIR_PLACEHOLDER)),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| replace_workdir(v, workdir))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, replace_workdir(v, workdir)))
                .collect(),
        ),
        other => other,
    }
}

/// One answered request.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedTurn {
    pub request_hash: String,
    pub response: ModelResponse,
}

/// The answers of one recorded run, shared between the [`Recorder`] (boxed
/// away in the loop) and whoever writes the cassette afterwards.
#[derive(Debug, Clone, Default)]
pub struct Tape {
    turns: Arc<Mutex<Vec<RecordedTurn>>>,
}

/// The `model.script` of a cassette.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CassetteScript {
    /// One scripted response per recorded answer, each with its
    /// `request_hash`.
    pub script: Vec<Value>,
    /// Turns (1-based) whose answer a scripted response cannot give back
    /// exactly: several text blocks (joined with a blank line), text after
    /// a call, no content at all, or a call input that is not an object.
    pub inexact_turns: Vec<usize>,
}

impl Tape {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&self, turn: RecordedTurn) {
        self.turns
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(turn);
    }

    pub fn turns(&self) -> Vec<RecordedTurn> {
        self.turns
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The recorded answers as scripted responses (entries in the script format:
    /// `{text?, tool, input}` or `{text?, tools: [...]}` plus
    /// `request_hash`).
    pub fn script(&self) -> CassetteScript {
        let mut script = Vec::new();
        let mut inexact_turns = Vec::new();
        for (index, turn) in self.turns().iter().enumerate() {
            let (entry, exact) = script_entry(turn);
            script.push(entry);
            if !exact {
                inexact_turns.push(index + 1);
            }
        }
        CassetteScript {
            script,
            inexact_turns,
        }
    }
}

/// One scripted response for a recorded answer, and whether replaying it
/// gives the answer back exactly.
fn script_entry(turn: &RecordedTurn) -> (Value, bool) {
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    let mut exact = true;
    for block in &turn.response.content {
        match block {
            ContentBlock::Text { text } => {
                if !calls.is_empty() {
                    exact = false;
                }
                texts.push(text.as_str());
            }
            ContentBlock::ToolUse { name, input, .. } => {
                if !input.is_object() {
                    exact = false;
                }
                calls.push(json!({"tool": name, "input": input}));
            }
            // An answer holds no results; nothing to replay.
            ContentBlock::ToolResult { .. } => exact = false,
        }
    }
    if texts.len() > 1 || (texts.is_empty() && calls.is_empty()) {
        exact = false;
    }
    let mut entry = Map::new();
    if !texts.is_empty() || calls.is_empty() {
        entry.insert("text".into(), json!(texts.join("\n\n")));
    }
    match calls.len() {
        0 => {}
        1 => {
            if let Some(Value::Object(call)) = calls.pop() {
                entry.extend(call);
            }
        }
        _ => {
            entry.insert("tools".into(), Value::Array(calls));
        }
    }
    entry.insert("request_hash".into(), json!(turn.request_hash));
    (Value::Object(entry), exact)
}

/// Why a cassette cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CassetteError {
    #[error("a cassette is made from a scenario mapping, not {0}")]
    NotAMapping(&'static str),
    #[error("cannot write the cassette as YAML: {0}")]
    Yaml(String),
}

/// Where a cassette comes from.
#[derive(Debug, Clone)]
pub struct CassetteSource<'a> {
    /// The recorded scenario's file, as a generic value.
    pub scenario: Value,
    /// The folder of that file (its relative fixture path starts there).
    pub scenario_dir: &'a Path,
    /// The recorded run's cell: each axis that varies in the scenario's
    /// matrix and its value, as the reports list them (`{"todo": true,
    /// "nag_threshold": 3}`).
    pub settings: &'a Map<String, Value>,
    /// The model, e.g. `anthropic:claude-sonnet-4-5`.
    pub model: &'a str,
    pub seed: u64,
}

/// The file name of a cassette: the scenario's name, the cell's settings
/// and the seed, in characters safe on every file system
/// (`refactor-todo-true-nag_threshold-3-seed-0.yaml`).
pub fn cassette_file_name(scenario_name: &str, settings: &Map<String, Value>, seed: u64) -> String {
    let mut parts = vec![scenario_name.to_string()];
    for (axis, value) in settings {
        parts.push(axis.clone());
        parts.push(match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        });
    }
    parts.push(format!("seed-{seed}"));
    format!("{}.yaml", crate::input::file_stem(&parts.join("-")))
}

/// The text of a cassette file to be written in `cassette_dir`: the
/// scenario with
/// - `name` set to the cassette's file stem (each recorded run is its own
///   scenario);
/// - `runs` narrowed to the recorded cell (each varying axis with its one
///   value; no seeds and no `simulate.*` axes: a script has neither);
/// - `model` replaced by `{script: ...}`;
/// - `workspace.fixture` pointing at the copy of the fixture the recorder
///   keeps beside the cassette ([`cassette_fixture_dir`]), so a cassette
///   folder is self-contained and can live in any repository;
/// - `expect` entries that select or compare cells (`where`, `compare`)
///   dropped, since a cassette is one cell;
///
/// as YAML under a comment saying where it came from and which turns (if
/// any) a script cannot give back exactly.
pub fn cassette_yaml(
    source: CassetteSource<'_>,
    cassette: &CassetteScript,
) -> Result<String, CassetteError> {
    let mut map = match source.scenario {
        Value::Object(map) => map,
        Value::Null => return Err(CassetteError::NotAMapping("nothing")),
        Value::Array(_) => return Err(CassetteError::NotAMapping("a list")),
        _ => return Err(CassetteError::NotAMapping("a scalar")),
    };
    let file_name = cassette_file_name(
        map.get("name")
            .and_then(Value::as_str)
            .unwrap_or("cassette"),
        source.settings,
        source.seed,
    );
    let stem = file_name.trim_end_matches(".yaml").to_string();
    map.insert("name".into(), json!(stem));
    map.remove("runs");
    if !source.settings.is_empty() {
        // A script has no simulated-model parameters to vary.
        let runs: Map<String, Value> = source
            .settings
            .iter()
            .filter(|(axis, _)| !axis.starts_with("simulate."))
            .map(|(axis, value)| (axis.clone(), json!([value])))
            .collect();
        if !runs.is_empty() {
            map.insert("runs".into(), Value::Object(runs));
        }
    }
    map.insert("model".into(), json!({"script": cassette.script}));
    if let Some(Value::String(fixture)) =
        map.get_mut("workspace").and_then(|w| w.get_mut("fixture"))
    {
        // The recorder copies the fixture beside the cassette (a fixture
        // must lie inside the cassette's own repository to load).
        *fixture = cassette_fixture_dir(Path::new(fixture.as_str()))
            .to_string_lossy()
            .into_owned();
    }
    if let Some(Value::Array(expect)) = map.get_mut("expect") {
        expect.retain(|e| e.get("where").is_none() && e.get("compare").is_none());
        if expect.is_empty() {
            map.remove("expect");
        }
    }
    let yaml = serde_saphyr::to_string(&Value::Object(map))
        .map_err(|e| CassetteError::Yaml(e.to_string()))?;
    let one_line = |text: &str| text.replace(['\n', '\r'], " ");
    let mut header = format!(
        "# A cassette: recorded from {}, seed {}, by agent-eval --record.\n\
         # Replays offline; a request whose hash differs is reported as drift.\n",
        one_line(source.model),
        source.seed
    );
    if !cassette.inexact_turns.is_empty() {
        let turns: Vec<String> = cassette
            .inexact_turns
            .iter()
            .map(usize::to_string)
            .collect();
        header.push_str(&format!(
            "# Turns {} are not replayed exactly (several text blocks, text after a call, \
             an empty answer or a non-object input).\n",
            turns.join(", ")
        ));
    }
    Ok(header + &yaml)
}

/// Writes a cassette's text as `dir/file_name` (creating `dir`); returns
/// the path.
pub fn write_cassette(dir: &Path, file_name: &str, text: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(file_name);
    std::fs::write(&path, text)?;
    Ok(path)
}

/// Where a cassette's copy of `fixture` lives, relative to the cassette's
/// folder: `fixtures/<the fixture folder's name>`.
pub fn cassette_fixture_dir(fixture: &Path) -> PathBuf {
    let name = fixture
        .components()
        .rev()
        .find_map(|c| match c {
            Component::Normal(name) => Some(name.to_os_string()),
            _ => None,
        })
        .unwrap_or_else(|| "fixture".into());
    Path::new("fixtures").join(name)
}

/// Wraps a model and records every answer with its request's hash.
pub struct Recorder<M> {
    inner: M,
    workdir: String,
    tape: Tape,
}

impl<M: Model> Recorder<M> {
    /// `workdir` is the run's workspace path (replaced before hashing).
    pub fn new(inner: M, workdir: impl Into<String>) -> Self {
        Self {
            inner,
            workdir: workdir.into(),
            tape: Tape::new(),
        }
    }

    /// A handle on the recording, to read after the run.
    pub fn tape(&self) -> Tape {
        self.tape.clone()
    }
}

impl<M: Model> Model for Recorder<M> {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let request_hash = request_hash(request, &self.workdir);
        let response = self.inner.respond(request)?;
        self.tape.push(RecordedTurn {
            request_hash,
            response: response.clone(),
        });
        Ok(response)
    }
}

/// A turn whose request differs from the recorded one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Drift {
    /// The turn (1-based) of the request.
    pub turn: usize,
    pub expected: String,
    pub actual: String,
}

/// The drift of one replay, shared like a [`Tape`].
#[derive(Debug, Clone, Default)]
pub struct DriftLog {
    drifts: Arc<Mutex<Vec<Drift>>>,
}

impl DriftLog {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn get(&self) -> Vec<Drift> {
        self.drifts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The turns that drifted, in order.
    pub fn turns(&self) -> Vec<usize> {
        self.get().iter().map(|d| d.turn).collect()
    }

    fn push(&self, drift: Drift) {
        self.drifts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(drift);
    }
}

/// Replays a cassette: checks each request against its recorded hash, then
/// lets the scripted model answer.
pub struct Replay<M> {
    inner: M,
    hashes: Vec<Option<String>>,
    calls: usize,
    workdir: String,
    drift: DriftLog,
}

impl<M: Model> Replay<M> {
    /// `hashes[i]` is the recorded hash for the i-th request (`None`: not
    /// checked); `workdir` is the replay's workspace path.
    pub fn new(inner: M, hashes: Vec<Option<String>>, workdir: impl Into<String>) -> Self {
        Self {
            inner,
            hashes,
            calls: 0,
            workdir: workdir.into(),
            drift: DriftLog::new(),
        }
    }

    /// A handle on the drift found, to read after the run.
    pub fn drift_log(&self) -> DriftLog {
        self.drift.clone()
    }
}

impl<M: Model> Model for Replay<M> {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        if let Some(Some(expected)) = self.hashes.get(self.calls) {
            let actual = request_hash(request, &self.workdir);
            if &actual != expected {
                self.drift.push(Drift {
                    turn: turn_of(request),
                    expected: expected.clone(),
                    actual,
                });
            }
        }
        self.calls += 1;
        self.inner.respond(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Message, Role, ToolSchema};

    struct Fixed(Vec<ModelResponse>);

    impl Model for Fixed {
        fn respond(&mut self, _: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
            if self.0.is_empty() {
                return Err(ModelError::ScriptExhausted {
                    turn: 0,
                    responses: 0,
                });
            }
            Ok(self.0.remove(0))
        }
    }

    fn tools() -> Vec<ToolSchema> {
        vec![
            ToolSchema::new("bash", "Run a command", json!({"type": "object"})),
            ToolSchema::new("todo", "Plan", json!({"type": "object"})),
        ]
    }

    fn request_in(workdir: &str) -> (String, Vec<Message>) {
        let system = format!("You are a coding agent at {workdir}.");
        let messages = vec![
            Message::user_text("task"),
            Message::blocks(
                Role::Assistant,
                vec![ContentBlock::ToolUse {
                    id: "toolu_1_1".into(),
                    name: "bash".into(),
                    input: json!({"command": "pwd", "b": 1, "a": 2}).into(),
                }],
            ),
            Message::blocks(
                Role::User,
                vec![ContentBlock::ToolResult {
                    tool_use_id: "toolu_1_1".into(),
                    content: workdir.to_string(),
                    is_error: false,
                }],
            ),
        ];
        (system, messages)
    }

    #[test]
    fn hash_ignores_the_workspace_path_and_key_order() {
        let tools = tools();
        let (sys_a, msgs_a) = request_in("/tmp/.tmpAAAA");
        let (sys_b, mut msgs_b) = request_in("/var/tmp/other");
        let a = ModelRequest {
            system: &sys_a,
            messages: &msgs_a,
            turn: crate::llm::count_turn(&msgs_a),
            tools: &tools,
            unchanged: 0,
        };
        let hash_a = request_hash(&a, "/tmp/.tmpAAAA");
        assert_eq!(hash_a.len(), 64);
        assert!(hash_a.chars().all(|c| c.is_ascii_hexdigit()));
        // Same input with its keys in another order.
        if let Some(Message {
            content: crate::llm::Content::Blocks(blocks),
            ..
        }) = msgs_b.get_mut(1)
        {
            blocks[0] = ContentBlock::ToolUse {
                id: "toolu_1_1".into(),
                name: "bash".into(),
                input: json!({"a": 2, "command": "pwd", "b": 1}).into(),
            };
        }
        let b = ModelRequest {
            system: &sys_b,
            messages: &msgs_b,
            turn: crate::llm::count_turn(&msgs_b),
            tools: &tools,
            unchanged: 0,
        };
        assert_eq!(hash_a, request_hash(&b, "/var/tmp/other"));
        assert_eq!(
            canonical_request(&a, "/tmp/.tmpAAAA").to_string(),
            format!(
                "{{\"messages\":[{{\"content\":\"task\",\"role\":\"user\"}},\
                 {{\"content\":[{{\"id\":\"toolu_1_1\",\"input\":{{\"a\":2,\"b\":1,\"command\":\"pwd\"}},\
                 \"name\":\"bash\",\"type\":\"tool_use\"}}],\"role\":\"assistant\"}},\
                 {{\"content\":[{{\"content\":\"{{WORKDIR}}\",\"tool_use_id\":\"toolu_1_1\",\"type\":\"tool_result\"}}],\
                 \"role\":\"user\"}}],\"system\":\"You are a coding agent at {{WORKDIR}}.\",\
                 \"tools\":[\"bash\",\"todo\"]}}"
            )
        );
        // A different tool set is a different request.
        let fewer = &tools[..1];
        let c = ModelRequest {
            system: &sys_a,
            messages: &msgs_a,
            turn: crate::llm::count_turn(&msgs_a),
            tools: fewer,
            unchanged: 0,
        };
        assert_ne!(hash_a, request_hash(&c, "/tmp/.tmpAAAA"));
    }

    #[test]
    fn records_then_replays_and_flags_drift() {
        let tools = tools();
        let (system, messages) = request_in("/w");
        let answer = ModelResponse::from_blocks(vec![
            ContentBlock::text("Listing."),
            ContentBlock::ToolUse {
                id: "toolu_2_1".into(),
                name: "bash".into(),
                input: json!({"command": "ls"}).into(),
            },
        ]);
        let mut recorder = Recorder::new(Fixed(vec![answer.clone()]), "/w");
        let tape = recorder.tape();
        let request = ModelRequest {
            system: &system,
            messages: &messages,
            turn: crate::llm::count_turn(&messages),
            tools: &tools,
            unchanged: 0,
        };
        assert_eq!(recorder.respond(&request).unwrap(), answer);
        let cassette = tape.script();
        let hash = request_hash(&request, "/w");
        assert_eq!(
            cassette.script,
            vec![
                json!({"text": "Listing.", "tool": "bash", "input": {"command": "ls"}, "request_hash": hash})
            ]
        );
        assert!(cassette.inexact_turns.is_empty());

        let mut replay = Replay::new(Fixed(vec![answer.clone()]), vec![Some(hash.clone())], "/w");
        let log = replay.drift_log();
        replay.respond(&request).unwrap();
        assert!(log.get().is_empty());

        let (system2, messages2) = request_in("/w");
        let changed_system = system2.replace("coding", "careful");
        let drifted = ModelRequest {
            system: &changed_system,
            messages: &messages2,
            turn: crate::llm::count_turn(&messages2),
            tools: &tools,
            unchanged: 0,
        };
        let mut replay = Replay::new(Fixed(vec![answer]), vec![Some(hash.clone())], "/w");
        let log = replay.drift_log();
        assert!(replay.respond(&drifted).is_ok(), "drift is not an error");
        let drift = log.get();
        assert_eq!(drift.len(), 1);
        assert_eq!(drift[0].turn, 2);
        assert_eq!(drift[0].expected, hash);
        assert_ne!(drift[0].actual, hash);
    }

    #[test]
    fn marks_answers_a_script_cannot_give_back() {
        let turn = |content| RecordedTurn {
            request_hash: "h".into(),
            response: ModelResponse::from_blocks(content),
        };
        let tape = Tape::new();
        tape.push(turn(vec![ContentBlock::text("a"), ContentBlock::text("b")]));
        tape.push(turn(vec![]));
        tape.push(turn(vec![
            ContentBlock::ToolUse {
                id: "x".into(),
                name: "bash".into(),
                input: json!({"command": "ls"}).into(),
            },
            ContentBlock::ToolUse {
                id: "y".into(),
                name: "read_file".into(),
                input: json!({"path": "a"}).into(),
            },
        ]));
        let cassette = tape.script();
        assert_eq!(cassette.inexact_turns, vec![1, 2]);
        assert_eq!(cassette.script[0]["text"], json!("a\n\nb"));
        assert_eq!(cassette.script[1]["text"], json!(""));
        assert_eq!(
            cassette.script[2],
            json!({"tools": [{"tool": "bash", "input": {"command": "ls"}},
                             {"tool": "read_file", "input": {"path": "a"}}],
                   "request_hash": "h"})
        );
    }

    #[test]
    fn file_names_are_safe_and_name_the_cell() {
        let settings: Map<String, Value> = serde_json::from_value(
            json!({"todo": true, "nag_threshold": "off", "dialect": "claude-code"}),
        )
        .unwrap();
        assert_eq!(
            cassette_file_name("my refactor/1", &settings, 4),
            "my_refactor_1-todo-true-nag_threshold-off-dialect-claude-code-seed-4.yaml"
        );
        assert_eq!(cassette_file_name("..x", &Map::new(), 0), "x-seed-0.yaml");
    }

    #[test]
    fn cassette_text_is_one_cell_of_the_scenario_with_the_script() {
        let base = tempfile::tempdir().unwrap();
        let scenarios = base.path().join("scenarios");
        let cassettes = base.path().join("cassettes");
        std::fs::create_dir_all(scenarios.join("fixtures/a")).unwrap();
        std::fs::create_dir_all(&cassettes).unwrap();
        let scenario = json!({
            "name": "demo",
            "task": "Do it.",
            "workspace": {"fixture": "fixtures/a", "files": {"x.txt": "1"}},
            "steps": [{"text": "Do", "check": {"file": "x.txt", "contains": "1"}}],
            "model": {"anthropic": {"model": "claude-x"}},
            "runs": {"todo": [true, false], "seeds": 5},
            "expect": [
                {"steps_completed": 1},
                {"where": {"todo": true}, "completion_rate": {"at_least": 0.5}},
                {"compare": {"a": {"todo": true}, "b": {"todo": false}}, "completion_rate_ratio": {"at_least": 1.0}}
            ]
        });
        let settings: Map<String, Value> =
            serde_json::from_value(json!({"todo": false, "simulate.attention_span": 400})).unwrap();
        let tape = Tape::new();
        tape.push(RecordedTurn {
            request_hash: "ab".repeat(32),
            response: ModelResponse::from_blocks(vec![ContentBlock::text("Done.")]),
        });
        let text = cassette_yaml(
            CassetteSource {
                scenario,
                scenario_dir: &scenarios,
                settings: &settings,
                model: "anthropic:claude-x",
                seed: 2,
            },
            &tape.script(),
        )
        .unwrap();
        assert!(text.starts_with(
            "# A cassette: recorded from anthropic:claude-x, seed 2, by agent-eval --record.\n"
        ));
        let back: Value = serde_saphyr::from_str(&text).unwrap();
        assert_eq!(
            back,
            json!({
                "name": "demo-todo-false-simulate.attention_span-400-seed-2",
                "task": "Do it.",
                "workspace": {"fixture": "fixtures/a", "files": {"x.txt": "1"}},
                "steps": [{"text": "Do", "check": {"file": "x.txt", "contains": "1"}}],
                "model": {"script": [{"text": "Done.", "request_hash": "ab".repeat(32)}]},
                "runs": {"todo": [false]},
                "expect": [{"steps_completed": 1}]
            })
        );
        assert!(matches!(
            cassette_yaml(
                CassetteSource {
                    scenario: json!([1]),
                    scenario_dir: &scenarios,
                    settings: &settings,
                    model: "m",
                    seed: 0,
                },
                &tape.script(),
            ),
            Err(CassetteError::NotAMapping("a list"))
        ));
    }
}
