//! Transcripts: the logs agents write of their own sessions (Claude Code's
//! `~/.claude/projects/*/*.jsonl`, Codex's `rollout-*.jsonl`, agent-eval's
//! run logs), read into one record that calibration measures.
//!
//! A [`Session`] is a list of [`Part`]s (one per real user message), each a
//! list of [`Turn`]s (one per API response, however many records the
//! format split it into). A turn keeps only what calibration needs — the
//! planning calls and whether each was accepted, the plan after them,
//! whether a planning reminder preceded the turn, the context size and the
//! count of other tool calls — never the text, a path or code: a profile
//! fitted from these records may be shared.
//!
//! Floor 4 (beside `wire`): it knows the planning dialects (which tool
//! plans, which result is a rejection) and nothing above them.

pub mod bounded;
pub mod claude_code;
pub mod codex;
mod detect;
pub mod read;
pub mod run_log;

pub use read::{
    ModelFilter, ReadOptions, ReadSummary, Skip, SkipReason, TranscriptError, read_paths,
};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which agent wrote a transcript file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Claude Code's session transcript (`<session>.jsonl`).
    ClaudeCode,
    /// Codex's rollout (`rollout-*.jsonl`).
    Codex,
    /// agent-eval's own run log (`--log-dir`).
    RunLog,
}

/// Whether the format records planning reminders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reminders {
    /// Every reminder the agent sent is in the file (recent Claude Code's
    /// `attachment` records, agent-eval run logs).
    Recorded,
    /// Not recorded; inferred from the agent version's known policy.
    Inferred,
    /// Neither recorded nor inferable: reminder compliance is unmeasured.
    Unknown,
}

/// A plan item's status, as every dialect reduces to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemStatus {
    Pending,
    InProgress,
    Completed,
}

/// One planning call of a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanningCall {
    /// The tool's name (`TodoWrite`, `TaskUpdate`, `update_plan`, `todo`...).
    pub tool: String,
    /// False when the result was an error (`is_error`, or the dialect's
    /// error text).
    pub accepted: bool,
    /// True when the call changes the plan (a read such as `TaskList` is
    /// false).
    pub writes: bool,
}

/// One API response of the agent, with what preceded it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The planning calls made in this response, in order.
    pub planning_calls: Vec<PlanningCall>,
    /// The statuses of the plan after this turn's accepted calls, when the
    /// plan is known (None: no plan yet, or the format cannot tell).
    pub plan_after: Option<Vec<ItemStatus>>,
    /// A planning reminder reached the model right before this response
    /// (recorded, or inferred where the session's reminders are
    /// [`Reminders::Inferred`]).
    pub reminder_before: bool,
    /// The agent version's known reminder policy puts a reminder right
    /// before this response (Claude Code 1.0 and later, whether or not the
    /// file records reminders): on sessions that record them, this checks
    /// the inference against what was sent.
    #[serde(default)]
    pub reminder_predicted: bool,
    /// The request's input tokens when the API usage is recorded.
    pub input_tokens: Option<u64>,
    /// The response's output tokens when the API usage is recorded.
    pub output_tokens: Option<u64>,
    /// Characters the model was sent since the previous turn (tool results,
    /// user text, reminders): the context measure where usage is missing.
    pub new_context_chars: u64,
    /// Tool calls in this response that are not planning calls.
    pub other_tool_calls: u32,
}

/// One real user message and the responses that answered it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Part {
    pub turns: Vec<Turn>,
}

/// One session read from one file (a subagent's sidechain is left out of
/// its parent's turns).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub format: Format,
    /// The agent's version where the file says it (`2.1.330`, `0.169.0`).
    pub agent_version: Option<String>,
    /// The model names the responses name, sorted, without duplicates.
    pub models: Vec<String>,
    pub reminders: Reminders,
    pub parts: Vec<Part>,
    /// The agent's own id of the session where the file gives one (Claude
    /// Code's `sessionId`, Codex's `session_meta.id`): two files with the
    /// same id hold one session.
    #[serde(default)]
    pub id: Option<String>,
    /// The group the session belongs to, the unit of independence
    /// ([`GroupBy`]): a hash, never the path or folder it stands for.
    #[serde(default)]
    pub group: String,
    /// SHA-256 (hex) of what the session was read from (its file, or its
    /// run-log line): two equal hashes are one session read twice.
    #[serde(default)]
    pub content_hash: String,
}

/// What makes sessions one group — the unit of independence calibration
/// resamples and splits by (`calibrate --group-by`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GroupBy {
    /// The project a session belongs to: a Claude Code project folder
    /// (`projects/<dir>/`), a Codex working directory (`session_meta.cwd`),
    /// a run log's scenario; the file's folder where the file names none.
    #[default]
    Project,
    /// The folder holding the file, whatever its format.
    Folder,
    /// The file: the sessions of one file together.
    File,
    /// Every session its own group (sessions taken as independent).
    Session,
}

/// A group's key: a hash of what it stands for (`kind` keeps a project
/// folder and a working directory of the same name apart), so no path or
/// name is kept.
pub fn group_key(kind: &str, value: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{kind}\0{value}").as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// The largest `output_tokens` of the streaming placeholders old Claude
/// Code versions wrote on every content-block record (1 to 32): a session
/// all of whose output counts are this small records no real output usage.
pub const PLACEHOLDER_OUTPUT_TOKENS: u64 = 32;

impl Session {
    /// Every turn of every part, in order.
    pub fn turns(&self) -> impl Iterator<Item = &Turn> {
        self.parts.iter().flat_map(|p| p.turns.iter())
    }

    fn turns_mut(&mut self) -> impl Iterator<Item = &mut Turn> {
        self.parts.iter_mut().flat_map(|p| p.turns.iter_mut())
    }

    /// Drops usage that is not usage, so the context falls back to
    /// characters: output counts that are all streaming placeholders
    /// ([`PLACEHOLDER_OUTPUT_TOKENS`] or less), and a count that stays the
    /// same on every turn of a session of two or more (a context that never
    /// grows is a value written by something other than the API).
    pub fn keep_real_usage(&mut self) {
        let outputs: Vec<u64> = self.turns().filter_map(|t| t.output_tokens).collect();
        let inputs: Vec<u64> = self.turns().filter_map(|t| t.input_tokens).collect();
        let constant =
            |counts: &[u64]| counts.len() >= 2 && counts.windows(2).all(|w| w.first() == w.last());
        let placeholders = outputs.iter().all(|c| *c <= PLACEHOLDER_OUTPUT_TOKENS);
        let (drop_output, drop_input) = (placeholders || constant(&outputs), constant(&inputs));
        for turn in self.turns_mut() {
            if drop_output {
                turn.output_tokens = None;
            }
            if drop_input {
                turn.input_tokens = None;
            }
        }
    }
}

/// Why a record was refused: a fixed reason, never text of the record
/// (its type, its version, its content): what a transcript holds is not
/// repeated on stderr or in `--json`.
pub type BadRecord = &'static str;

/// A reader of one format: fed a file's JSON records (its lines) in order,
/// it yields the sessions they hold. The caller owns the file: it reads the
/// lines (bounded, streamed), names a bad one by file and line and skips it,
/// and hands every good record here.
pub trait RecordReader {
    /// Takes one record (the line's JSON object, given to the reader to
    /// read into its serde records); `Err` says what is wrong with it (the
    /// caller adds file:line, counts it and goes on).
    fn record(&mut self, value: serde_json::Value) -> Result<(), BadRecord>;
    /// The sessions read, once the file has ended (a truncated last
    /// session included: it is as far as the agent got).
    fn finish(self: Box<Self>) -> Vec<Session>;
}

/// What stands for a version or a model name a profile may not show.
pub const OTHER: &str = "other";
/// The most model names kept a file; more count as [`OTHER`].
const MODELS_KEPT: usize = 32;

/// A version as a profile and `--json` may show it: `major.minor.patch`,
/// numbers only (`2.1.330`), else [`OTHER`] — a version string is the
/// transcript's text, and `"2.1.50 <anything>"` would carry it out.
pub fn version_name(text: &str) -> String {
    let numbers: Vec<Option<u64>> = text
        .split('.')
        .map(|part| {
            let digits = !part.is_empty() && part.len() <= 10;
            (digits && part.bytes().all(|b| b.is_ascii_digit()))
                .then(|| part.parse().ok())
                .flatten()
        })
        .collect();
    match numbers.as_slice() {
        [Some(a), Some(b), Some(c)] => format!("{a}.{b}.{c}"),
        _ => OTHER.to_string(),
    }
}

/// A model name as a profile and `--json` may show it: one matching
/// `^[a-z0-9][a-z0-9._:-]{0,63}$` (`claude-sonnet-4-5-20250929`,
/// `gpt-5-codex`, `qwen3-coder:30b`), else [`OTHER`] — a 2 KB "name" or
/// one with spaces, slashes or capitals is someone's text, not a model.
pub fn model_name(text: &str) -> &str {
    let bytes = text.as_bytes();
    let allowed = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b".-_:".contains(b);
    let first = bytes
        .first()
        .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if first && bytes.len() <= 64 && bytes.iter().all(allowed) {
        text
    } else {
        OTHER
    }
}

/// Adds `model` (as [`model_name`] shows it) to a file's model names;
/// past [`MODELS_KEPT`] names, a new one counts as [`OTHER`].
pub(crate) fn note_model(models: &mut std::collections::BTreeSet<String>, model: &str) {
    let name = model_name(model);
    if models.contains(name) {
        return;
    }
    let name = if models.len() < MODELS_KEPT {
        name
    } else {
        OTHER
    };
    models.insert(name.to_string());
}

/// The most tokens one count of an API's usage may say (a request, a
/// response): far above any model's context. A larger count (a forged
/// `u64::MAX`) is no measurement: it reads as not recorded.
pub const MAX_TOKENS: u64 = 10_000_000;

/// A token count of a usage record, when it is a number in range.
pub(crate) fn token_count(count: &crate::lenient::Lenient<u64>) -> Option<u64> {
    count.0.filter(|n| *n <= MAX_TOKENS)
}

/// A block of content as far as counting needs it: its `type`, when it is
/// text (Anthropic's and OpenAI's blocks, Claude Code's and Codex's
/// records of them alike).
#[derive(Debug, Default, Deserialize)]
struct BlockKind {
    #[serde(default, rename = "type")]
    kind: crate::lenient::Lenient<String>,
}

/// Characters of text in a content value: strings, text blocks and tool
/// results inside; an image's data counts nothing.
pub(crate) fn text_chars(content: &Value) -> u64 {
    match content {
        Value::String(text) => text.chars().count() as u64,
        Value::Array(items) => items.iter().map(text_chars).sum(),
        Value::Object(map) => {
            let block: BlockKind = crate::lenient::object_record(content);
            if block.kind.as_str() == Some("image") {
                return 0;
            }
            map.iter()
                .filter(|(key, _)| !matches!(key.as_str(), "type" | "tool_use_id" | "id"))
                .map(|(_, v)| text_chars(v))
                .sum()
        }
        _ => 0,
    }
}

/// The sessions `reader` makes of a fixture's lines, and the errors it gave,
/// by line (1-based): how the readers' tests feed them.
#[cfg(test)]
fn read_fixture(
    mut reader: Box<dyn RecordReader>,
    text: &str,
) -> (Vec<Session>, Vec<(usize, String)>) {
    let mut errors = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Err(e) = reader.record(value) {
            errors.push((index + 1, e.to_string()));
        }
    }
    (reader.finish(), errors)
}
