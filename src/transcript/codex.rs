//! Codex's rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`), read
//! into one [`Session`] a file; checked against what the pinned Codex
//! 0.169.0 writes (docs/transcripts.md has the long form).
//!
//! Each line is `{timestamp, type, payload}`:
//! - `session_meta`: `cli_version` (the agent version);
//! - `turn_context`: `model`;
//! - `response_item`: the conversation items — `message` (role `user`,
//!   `developer` or `assistant`), `reasoning`, `function_call` (`name`,
//!   `arguments` as JSON text, `call_id`), `custom_tool_call`
//!   (`apply_patch`), `local_shell_call`, `web_search_call`, and the
//!   outputs `function_call_output` / `custom_tool_call_output`;
//! - `event_msg`: events — `user_message` (older versions) or
//!   `item_completed` of a `UserMessage` item (0.169) for each real user
//!   message; `token_count` with `info.last_token_usage` after each
//!   response;
//! - `token_usage_record` (0.169): one per response (`response_id`,
//!   `usage`);
//! - `world_state`, `compacted`: nothing read.
//!
//! A turn is the model-output items of one response: they open a turn,
//! and the response's usage record (`token_usage_record`, else the next
//! `token_count`) closes it. A file with neither (a rollout cut short)
//! opens a new turn at the first output item after a tool output.
//!
//! The planning call is `update_plan` (its arguments: `{explanation?,
//! plan: [{step, status}]}`); it is rejected when its output is not
//! accepted — `success: false`, or Codex's error text `failed to parse
//! function arguments: ...` (`crate::plan::dialect` words the same). Codex
//! has no planning reminder, so a rollout records all of them: none.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use super::{
    BadRecord, Format, ItemStatus, Part, PlanningCall, RecordReader, Reminders, Session, Turn,
    text_chars,
};

/// The planning tool.
pub const PLANNING_TOOL: &str = "update_plan";
/// The start of the output of an `update_plan` call Codex refused.
pub const REJECTED_OPENING: &str = "failed to parse function arguments";

/// Record types with nothing calibration reads.
const IGNORED_TYPES: [&str; 2] = ["world_state", "compacted"];

/// Response item types the model outputs (they make a turn).
const OUTPUT_ITEMS: [&str; 7] = [
    "message",
    "reasoning",
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "web_search_call",
    "tool_search_call",
];

#[derive(Debug, Default)]
struct TurnDraft {
    part: usize,
    turn: Turn,
    /// The plan each planning call wrote (`None`: its arguments held no
    /// plan), by planning-call index.
    plans: Vec<Option<Vec<ItemStatus>>>,
}

/// The reader of one Codex rollout.
#[derive(Debug, Default)]
pub struct CodexReader {
    version: Option<String>,
    models: BTreeSet<String>,
    parts: usize,
    turns: Vec<TurnDraft>,
    /// The last turn takes further output items.
    open: bool,
    /// A tool output came after the last output item.
    output_since_items: bool,
    /// The file has usage records (turns close on them).
    usage_records: bool,
    /// update_plan calls awaiting their output: call_id → (turn, call).
    awaiting: HashMap<String, (usize, usize)>,
    chars_pending: u64,
    /// `session_meta`'s `id`, and its `cwd` hashed (the group).
    session_id: Option<String>,
    group: Option<String>,
}

impl CodexReader {
    pub fn new() -> Self {
        Self::default()
    }

    fn session_meta(&mut self, payload: &Value) -> Result<(), BadRecord> {
        let text = |key: &str| payload.get(key).and_then(Value::as_str);
        if self.session_id.is_none() {
            self.session_id = text("id").map(str::to_string);
        }
        if self.group.is_none() {
            self.group = text("cwd").map(|cwd| super::group_key("codex-cwd", cwd));
        }
        let Some(version) = payload.get("cli_version").and_then(Value::as_str) else {
            return Ok(());
        };
        let major = version
            .split('.')
            .next()
            .and_then(|m| m.parse::<u32>().ok());
        if major != Some(0) {
            return Err("an unknown Codex version");
        }
        self.version
            .get_or_insert_with(|| super::version_name(version));
        Ok(())
    }

    fn response_item(&mut self, item: &Value) {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        let role = item.get("role").and_then(Value::as_str);
        if kind == "message" && role != Some("assistant") {
            self.chars_pending += text_chars(item.get("content").unwrap_or(&Value::Null));
            return;
        }
        if matches!(kind, "function_call_output" | "custom_tool_call_output") {
            self.tool_output(item);
            return;
        }
        if !OUTPUT_ITEMS.contains(&kind) {
            return;
        }
        let fallback_split = !self.usage_records && self.output_since_items;
        if !self.open || fallback_split {
            self.start_turn();
        }
        self.output_since_items = false;
        if kind == "message" || kind == "reasoning" {
            return;
        }
        let name = item.get("name").and_then(Value::as_str).unwrap_or("");
        let index = self.turns.len() - 1;
        let draft = &mut self.turns[index];
        if kind != "function_call" || name != PLANNING_TOOL {
            draft.turn.other_tool_calls += 1;
            return;
        }
        draft.plans.push(plan_of(item.get("arguments")));
        draft.turn.planning_calls.push(PlanningCall {
            tool: name.to_string(),
            accepted: true,
            writes: true,
        });
        if let Some(id) = item.get("call_id").and_then(Value::as_str) {
            let call = draft.turn.planning_calls.len() - 1;
            self.awaiting.insert(id.to_string(), (index, call));
        }
    }

    fn start_turn(&mut self) {
        let mut draft = TurnDraft {
            part: self.parts.saturating_sub(1),
            ..TurnDraft::default()
        };
        draft.turn.new_context_chars = std::mem::take(&mut self.chars_pending);
        self.turns.push(draft);
        self.open = true;
    }

    fn tool_output(&mut self, item: &Value) {
        self.output_since_items = true;
        let output = item.get("output").unwrap_or(&Value::Null);
        self.chars_pending += text_chars(output);
        let Some(id) = item.get("call_id").and_then(Value::as_str) else {
            return;
        };
        let Some((turn, call)) = self.awaiting.remove(id) else {
            return;
        };
        let (text, success) = match output {
            Value::String(text) => (text.as_str(), None),
            Value::Object(map) => (
                map.get("content").and_then(Value::as_str).unwrap_or(""),
                map.get("success").and_then(Value::as_bool),
            ),
            _ => ("", None),
        };
        let rejected = success == Some(false) || text.trim_start().starts_with(REJECTED_OPENING);
        if let Some(planning) = self
            .turns
            .get_mut(turn)
            .and_then(|d| d.turn.planning_calls.get_mut(call))
        {
            planning.accepted = !rejected;
        }
    }

    fn event(&mut self, payload: &Value) {
        match payload.get("type").and_then(Value::as_str) {
            Some("user_message") => self.user_message(),
            Some("item_completed") => {
                let item = payload.get("item").and_then(|i| i.get("type"));
                if item.and_then(Value::as_str) == Some("UserMessage") {
                    self.user_message();
                }
            }
            Some("token_count") => {
                let usage = payload.get("info").and_then(|i| i.get("last_token_usage"));
                if let Some(usage) = usage {
                    self.usage(usage);
                }
            }
            _ => {}
        }
    }

    /// A real user message starts a part, unless the last part has had no
    /// response yet (versions that write both a `user_message` event and
    /// an `item_completed` for it count once).
    fn user_message(&mut self) {
        let last_part_answered = self.turns.last().is_some_and(|t| t.part + 1 == self.parts);
        if self.parts == 0 || last_part_answered {
            self.parts += 1;
        }
        self.open = false;
    }

    /// A response's usage: sets the open turn's tokens (or the last
    /// turn's, when a second record of the same response follows) and
    /// closes it.
    fn usage(&mut self, usage: &Value) {
        let Some(draft) = self.turns.last_mut() else {
            return;
        };
        if self.open || draft.turn.input_tokens.is_none() {
            let count = |key: &str| usage.get(key).and_then(super::token_count);
            draft.turn.input_tokens = count("input_tokens");
            draft.turn.output_tokens = count("output_tokens");
        }
        self.open = false;
    }
}

/// The statuses of an `update_plan` call's arguments (JSON text).
fn plan_of(arguments: Option<&Value>) -> Option<Vec<ItemStatus>> {
    let parsed: Value = match arguments? {
        Value::String(text) => super::bounded::parse(text.as_bytes()).ok()?,
        other => other.clone(),
    };
    let steps = parsed.get("plan")?.as_array()?;
    Some(
        steps
            .iter()
            .filter_map(|step| match step.get("status")?.as_str()? {
                "pending" => Some(ItemStatus::Pending),
                "in_progress" => Some(ItemStatus::InProgress),
                "completed" => Some(ItemStatus::Completed),
                _ => None,
            })
            .collect(),
    )
}

impl RecordReader for CodexReader {
    fn record(&mut self, record: &Value) -> Result<(), BadRecord> {
        let kind = record
            .get("type")
            .and_then(Value::as_str)
            .ok_or("a record without a type")?;
        let payload = record.get("payload").unwrap_or(&Value::Null);
        match kind {
            "session_meta" => self.session_meta(payload)?,
            "turn_context" => {
                if let Some(model) = payload.get("model").and_then(Value::as_str) {
                    super::note_model(&mut self.models, model);
                }
            }
            "response_item" => self.response_item(payload),
            "event_msg" => self.event(payload),
            "token_usage_record" => {
                self.usage_records = true;
                if let Some(usage) = payload.get("usage") {
                    self.usage(usage);
                }
            }
            kind if IGNORED_TYPES.contains(&kind) => {}
            _ => return Err("an unknown Codex record type"),
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Vec<Session> {
        if self.turns.is_empty() {
            return Vec::new();
        }
        let mut parts: Vec<Part> = (0..self.parts.max(1)).map(|_| Part::default()).collect();
        let mut plan: Option<Vec<ItemStatus>> = None;
        for draft in self.turns {
            for (written, call) in draft.plans.iter().zip(&draft.turn.planning_calls) {
                if call.accepted
                    && let Some(written) = written
                {
                    plan = Some(written.clone());
                }
            }
            let mut turn = draft.turn;
            turn.plan_after = plan.clone();
            parts[draft.part].turns.push(turn);
        }
        parts.retain(|p| !p.turns.is_empty());
        let mut session = Session {
            format: Format::Codex,
            agent_version: self.version,
            models: self.models.into_iter().collect(),
            reminders: Reminders::Recorded,
            parts,
            id: self.session_id,
            // Without a working directory, the caller's fallback.
            group: self.group.unwrap_or_default(),
            content_hash: String::new(),
        };
        session.keep_real_usage();
        vec![session]
    }
}

#[cfg(test)]
mod tests;
