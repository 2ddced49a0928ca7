//! Codex's rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`), read
//! into one [`Session`] a file; checked against what the pinned Codex
//! 0.169.0 writes (docs/transcripts.md has the long form).
//!
//! Each line is `{timestamp, type, payload}` (the serde records of
//! [`records`] are the format's reference):
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

use serde::Deserialize;
use serde_json::Value;

use self::records::{
    CallOutput, EventMsg, EventType, ItemType, RecordType, ResponseItem, RolloutLine, SessionMeta,
    TokenUsageRecord, TurnContext, UpdatePlanArguments, Usage,
};
use super::{
    BadRecord, Format, ItemStatus, Part, PlanningCall, RecordReader, Reminders, Session, Turn,
    text_chars,
};

/// The planning tool.
pub const PLANNING_TOOL: &str = "update_plan";
/// The start of the output of an `update_plan` call Codex refused.
pub const REJECTED_OPENING: &str = "failed to parse function arguments";

pub mod records;

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

    fn session_meta(&mut self, meta: SessionMeta) -> Result<(), BadRecord> {
        if self.session_id.is_none() {
            self.session_id = meta.id.0;
        }
        if self.group.is_none() {
            self.group = meta
                .cwd
                .as_str()
                .map(|cwd| super::group_key("codex-cwd", cwd));
        }
        let Some(version) = meta.cli_version.as_str() else {
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

    fn response_item(&mut self, item: ResponseItem) {
        let kind = item.kind.0;
        if kind == Some(ItemType::Message) && item.role.as_str() != Some("assistant") {
            self.chars_pending += text_chars(&item.content);
            return;
        }
        let Some(kind) = kind else { return };
        if kind.is_call_output() {
            self.tool_output(item);
            return;
        }
        if !kind.is_output() {
            return;
        }
        let fallback_split = !self.usage_records && self.output_since_items;
        if !self.open || fallback_split {
            self.start_turn();
        }
        self.output_since_items = false;
        if matches!(kind, ItemType::Message | ItemType::Reasoning) {
            return;
        }
        let name = item.name.as_str().unwrap_or("");
        let index = self.turns.len().saturating_sub(1);
        let Some(draft) = self.turns.last_mut() else {
            return;
        };
        if kind != ItemType::FunctionCall || name != PLANNING_TOOL {
            draft.turn.other_tool_calls += 1;
            return;
        }
        draft.plans.push(plan_of(item.arguments));
        draft.turn.planning_calls.push(PlanningCall {
            tool: name.to_string(),
            accepted: true,
            writes: true,
        });
        if let Some(id) = item.call_id.0 {
            let call = draft.turn.planning_calls.len() - 1;
            self.awaiting.insert(id, (index, call));
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

    fn tool_output(&mut self, item: ResponseItem) {
        self.output_since_items = true;
        let output = item.output;
        self.chars_pending += text_chars(&output);
        let Some(id) = item.call_id.as_str() else {
            return;
        };
        let Some((turn, call)) = self.awaiting.remove(id) else {
            return;
        };
        let (text, success) = match output {
            Value::String(text) => (text, None),
            object @ Value::Object(_) => {
                let output = CallOutput::deserialize(object).unwrap_or_default();
                (output.content.0.unwrap_or_default(), output.success.0)
            }
            _ => (String::new(), None),
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

    fn event(&mut self, event: EventMsg) {
        match event.kind.0 {
            Some(EventType::UserMessage) => self.user_message(),
            Some(EventType::ItemCompleted) => {
                let item = event.item.as_ref().and_then(|i| i.kind.as_str());
                if item == Some("UserMessage") {
                    self.user_message();
                }
            }
            Some(EventType::TokenCount) => {
                if let Some(usage) = event.info.0.and_then(|i| i.last_token_usage) {
                    self.usage(usage);
                }
            }
            Some(EventType::Other) | None => {}
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
    fn usage(&mut self, usage: Value) {
        let Some(draft) = self.turns.last_mut() else {
            return;
        };
        if self.open || draft.turn.input_tokens.is_none() {
            let usage = Usage::deserialize(usage).unwrap_or_default();
            draft.turn.input_tokens = super::token_count(&usage.input_tokens);
            draft.turn.output_tokens = super::token_count(&usage.output_tokens);
        }
        self.open = false;
    }
}

/// The statuses of an `update_plan` call's arguments (JSON text, read
/// within the line's memory cap).
fn plan_of(arguments: Option<Value>) -> Option<Vec<ItemStatus>> {
    let parsed: Value = match arguments? {
        Value::String(text) => super::bounded::parse(text.as_bytes()).ok()?,
        other => other,
    };
    let arguments = UpdatePlanArguments::deserialize(parsed).unwrap_or_default();
    let steps = arguments.plan.0?;
    Some(
        steps
            .iter()
            .filter_map(|step| match step.as_ref()?.status.as_str()? {
                "pending" => Some(ItemStatus::Pending),
                "in_progress" => Some(ItemStatus::InProgress),
                "completed" => Some(ItemStatus::Completed),
                _ => None,
            })
            .collect(),
    )
}

impl RecordReader for CodexReader {
    fn record(&mut self, record: Value) -> Result<(), BadRecord> {
        let line = RolloutLine::deserialize(record).unwrap_or_default();
        let kind = line.kind.0.ok_or("a record without a type")?;
        // Each payload reads whatever its shape: as absent fields where
        // it is not an object (as the hand walk it replaces did).
        let payload = line.payload;
        match kind {
            RecordType::SessionMeta => {
                self.session_meta(SessionMeta::deserialize(payload).unwrap_or_default())?
            }
            RecordType::TurnContext => {
                let context = TurnContext::deserialize(payload).unwrap_or_default();
                if let Some(model) = context.model.as_str() {
                    super::note_model(&mut self.models, model);
                }
            }
            RecordType::ResponseItem => {
                self.response_item(ResponseItem::deserialize(payload).unwrap_or_default())
            }
            RecordType::EventMsg => self.event(EventMsg::deserialize(payload).unwrap_or_default()),
            RecordType::TokenUsageRecord => {
                self.usage_records = true;
                let record = TokenUsageRecord::deserialize(payload).unwrap_or_default();
                if let Some(usage) = record.usage {
                    self.usage(usage);
                }
            }
            RecordType::WorldState | RecordType::Compacted => {}
            RecordType::Unknown => return Err("an unknown Codex record type"),
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
            // A turn's part is one of those counted (`parts - 1` at most).
            if let Some(part) = parts.get_mut(draft.part) {
                part.turns.push(turn);
            }
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
