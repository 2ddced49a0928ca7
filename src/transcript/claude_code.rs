//! Claude Code's session transcripts (`~/.claude/projects/<dir>/<session>.jsonl`),
//! read into one [`Session`] a file, across versions 0.2.x to 2.x.
//!
//! What a file holds, one JSON record a line (docs/transcripts.md has the
//! long form):
//! - `user` records: a real user message (text), a tool result
//!   (`tool_result` blocks, `is_error` on a rejected call), or text that is
//!   not the user's — meta records (`isMeta`, `isCompactSummary`), slash and
//!   local commands (`<command-name>`, `<local-command-stdout>`, ...), the
//!   interruption notice. Only a real user message starts a part.
//! - `assistant` records: one API response, split by 1.0.x and later into a
//!   record per content block, all sharing the response's `message.id` —
//!   one turn however many records. `message.usage` gives the context
//!   (`input_tokens + cache_read_input_tokens + cache_creation_input_tokens`),
//!   `message.model` the model. Synthetic records (`isApiErrorMessage`,
//!   model `<synthetic>`) are no API response and make no turn.
//! - `attachment` records (recent 2.x): `todo_reminder` and `task_reminder`
//!   are the planning reminders, so the file records them.
//! - `isSidechain: true` records are a subagent's (older versions wrote
//!   them into the parent's file, later ones into `subagents/` files): left
//!   out of the session, so a subagent file reads as no session.
//! - Other record types (`summary`, `system`, `file-history-snapshot`,
//!   `progress`, ...) carry nothing calibration reads; a type not on the
//!   known list is an error of its line (counted by the caller).
//!
//! Planning calls: `TodoWrite` (writes the whole list), `TodoRead` (0.2.x
//! and early 1.0.x; reads), `TaskCreate` and `TaskUpdate` (write one task),
//! `TaskList` and `TaskGet` (read). The plan after each turn replays the
//! accepted calls: TodoWrite's statuses as written, the Task tools applied
//! to the task list (ids from `Task #<id> created` results).
//!
//! Reminders ([`reminders_for`]): versions that write `todo_reminder`
//! attachments record them; for older versions whose reminder policy is
//! known (10 assistant messages — content blocks — without a planning call
//! and 10 since the last reminder; `src/plan/reminder/claude_code.rs`) they
//! are inferred; earlier versions leave them unknown.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use super::{
    BadRecord, Format, ItemStatus, Part, PlanningCall, RecordReader, Reminders, Session, Turn,
    text_chars,
};

/// The opening words of TodoWrite's reminder (a unit test ties them to
/// `crate::plan::reminder::CLAUDE_CODE_TEXT`).
pub const TODO_REMINDER_OPENING: &str = "The TodoWrite tool hasn't been used recently";
/// The opening words of the Task tools' reminder.
pub const TASKS_REMINDER_OPENING: &str = "The task tools haven't been used recently";

/// From this version on, planning reminders are `attachment` records
/// (`todo_reminder`, `task_reminder`; 2.1.330 writes them): a session
/// records them all. Public sessions of 2.1.0 to 2.1.86 hold no
/// `attachment` record at all and the first reminder records appear at
/// 2.1.92, so earlier 2.1.x versions are inferred like 2.0.x.
pub const RECORDS_REMINDERS_FROM: Version = Version(2, 1, 92);
/// From this version on (and before [`RECORDS_REMINDERS_FROM`]), reminders
/// are inferred from the policy probed on 2.1.330 (10 assistant messages
/// without a planning call, 10 since the last reminder) — assumed, not
/// probed, for 1.x and 2.0.x; earlier versions leave them unknown. A
/// session of any version holding a reminder record is recorded. Inferring
/// where the version did record is harmless: had the policy fired, the
/// file would hold the record.
pub const POLICY_KNOWN_FROM: Version = Version(1, 0, 0);
/// The counts of that policy (`src/plan/reminder/claude_code.rs`).
const POLICY_TURNS_SINCE_WRITE: u32 = 10;
const POLICY_TURNS_BETWEEN: u32 = 10;

/// The oldest and first unknown versions read: 0.2.x (the first to keep
/// transcripts) up to any 2.x.
const OLDEST: Version = Version(0, 2, 0);
const FIRST_UNKNOWN: Version = Version(3, 0, 0);

/// Record types that carry nothing calibration reads.
const IGNORED_TYPES: [&str; 22] = [
    "summary",
    "system",
    "file-history-snapshot",
    "queue-operation",
    "progress",
    "custom-title",
    "ai-title",
    "last-prompt",
    "tag",
    "agent-name",
    "agent-setting",
    "pr-link",
    "mode",
    "permission-mode",
    "worktree-state",
    "content-replacement",
    // 2.1.x: the request's shape and blobs (a copy of what the user and
    // attachment records say), token and cost bookkeeping.
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "atis-latch",
    "tools-used",
    "cost-state",
];

/// Openings of user text that is not a user message: commands, their
/// output, notices.
const NOT_USER_TEXT: [&str; 14] = [
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "Caveat: The messages below were generated by the user while running local commands",
    "[Request interrupted by user",
    "<system-reminder>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "<user-memory-input>",
];

/// A Claude Code version, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32, pub u32, pub u32);

impl Version {
    /// `2.1.330` (a suffix such as `-beta` after the patch is ignored).
    pub fn parse(text: &str) -> Option<Self> {
        let mut numbers = text.split('.').map(|part| {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u32>().ok()
        });
        Some(Self(numbers.next()??, numbers.next()??, numbers.next()??))
    }
}

/// How a session of `version` tells its reminders (`recorded`: the file
/// held a reminder record whatever its version says).
pub fn reminders_for(version: Option<Version>, recorded: bool) -> Reminders {
    match version {
        _ if recorded => Reminders::Recorded,
        Some(v) if v >= RECORDS_REMINDERS_FROM => Reminders::Recorded,
        Some(v) if v >= POLICY_KNOWN_FROM => Reminders::Inferred,
        _ => Reminders::Unknown,
    }
}

/// A planning call's effect on the plan, kept until the session ends (its
/// result says whether it was accepted).
#[derive(Debug, Clone)]
enum PlanOp {
    /// `TodoWrite`: the statuses written (`None`: the input held no list).
    Rewrite(Option<Vec<ItemStatus>>),
    /// `TaskCreate`, with the id its result gave.
    Create(Option<String>),
    /// `TaskUpdate`: the task, and its new status (`Some(None)`: deleted).
    Update {
        id: Option<String>,
        status: Option<Option<ItemStatus>>,
    },
    /// `TodoRead`, `TaskList`, `TaskGet`.
    Read,
}

/// A turn being read, with what the end of the session needs.
#[derive(Debug, Default)]
struct TurnDraft {
    part: usize,
    turn: Turn,
    /// The planning operations, by planning-call index.
    ops: Vec<PlanOp>,
    message_id: Option<String>,
    /// Content blocks in the response (Claude Code counts each as an
    /// assistant message for its reminder).
    blocks: u32,
    /// Blocks after the last planning call, when there is one.
    blocks_after_plan: Option<u32>,
}

/// The reader of one Claude Code transcript file.
#[derive(Debug, Default)]
pub struct ClaudeCodeReader {
    /// The first version the file names, for its reminder policy.
    version: Option<Version>,
    /// The same as a profile may show it (numbers, or `other`).
    version_name: Option<String>,
    models: BTreeSet<String>,
    /// Parts started (real user messages).
    parts: usize,
    turns: Vec<TurnDraft>,
    /// Planning calls awaiting their result: tool_use id → (turn, call).
    awaiting: HashMap<String, (usize, usize)>,
    reminder_pending: bool,
    reminder_recorded: bool,
    chars_pending: u64,
    /// The first `sessionId` of the file's own (not sidechain) records.
    session_id: Option<String>,
}

impl ClaudeCodeReader {
    pub fn new() -> Self {
        Self::default()
    }

    fn check_version(&mut self, version: &str) -> Result<(), BadRecord> {
        match Version::parse(version) {
            Some(v) if (OLDEST..FIRST_UNKNOWN).contains(&v) => {
                if self.version.is_none() {
                    self.version = Some(v);
                    self.version_name = Some(super::version_name(version));
                }
                Ok(())
            }
            _ => Err("an unknown Claude Code version"),
        }
    }

    fn user(&mut self, record: &Value) -> Result<(), BadRecord> {
        let content = record
            .get("message")
            .and_then(|m| m.get("content"))
            .ok_or("a user record without message.content")?;
        let not_the_user = ["isMeta", "isCompactSummary", "isVisibleInTranscriptOnly"]
            .iter()
            .any(|key| record.get(key) == Some(&Value::Bool(true)));
        let mut has_result = false;
        let mut user_text = false;
        match content {
            Value::String(text) => user_text = self.text(text),
            Value::Array(blocks) => {
                for block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("tool_result") => {
                            has_result = true;
                            self.tool_result(block);
                        }
                        Some("text") => {
                            let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                            user_text |= self.text(text);
                        }
                        _ => {}
                    }
                }
            }
            _ => return Err("a user record whose content is neither text nor blocks"),
        }
        if user_text && !has_result && !not_the_user {
            self.parts += 1;
        }
        Ok(())
    }

    /// Counts `text` as sent to the model and notes a reminder in it;
    /// true when it can be a real user message.
    fn text(&mut self, text: &str) -> bool {
        self.chars_pending += text.chars().count() as u64;
        if text.contains(TODO_REMINDER_OPENING) || text.contains(TASKS_REMINDER_OPENING) {
            self.reminder_pending = true;
            self.reminder_recorded = true;
        }
        let trimmed = text.trim_start();
        !trimmed.is_empty() && !NOT_USER_TEXT.iter().any(|p| trimmed.starts_with(p))
    }

    fn tool_result(&mut self, block: &Value) {
        let content = block.get("content").unwrap_or(&Value::Null);
        self.chars_pending += text_chars(content);
        let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
            return;
        };
        let Some((turn, call)) = self.awaiting.remove(id) else {
            return;
        };
        let text = first_text(content);
        let rejected = block.get("is_error") == Some(&Value::Bool(true))
            || text.trim_start().starts_with("<tool_use_error>");
        let Some(draft) = self.turns.get_mut(turn) else {
            return;
        };
        if let Some(planning) = draft.turn.planning_calls.get_mut(call) {
            planning.accepted = !rejected;
        }
        if let Some(PlanOp::Create(id)) = draft.ops.get_mut(call) {
            *id = created_task_id(text);
        }
    }

    /// An attachment: what it adds to the next request (its `rendered`
    /// text where the version writes it), and a planning reminder.
    fn attachment(&mut self, record: &Value) {
        let attachment = record.get("attachment").unwrap_or(&Value::Null);
        let kind = attachment.get("type").and_then(Value::as_str);
        let reminder = matches!(kind, Some("todo_reminder" | "task_reminder"));
        match record.get("rendered") {
            Some(rendered) => self.chars_pending += text_chars(rendered),
            // Versions without `rendered`: the reminder's words and list.
            None if reminder => {
                self.chars_pending += TODO_REMINDER_OPENING.len() as u64
                    + text_chars(attachment.get("content").unwrap_or(&Value::Null));
            }
            None => {}
        }
        if reminder {
            self.reminder_pending = true;
            self.reminder_recorded = true;
        }
        // A message the user typed while the agent worked: a user message.
        let origin = attachment.get("origin").and_then(|o| o.get("kind"));
        if kind == Some("queued_command") && origin.is_none_or(|o| o == "human") {
            self.parts += 1;
        }
    }

    fn assistant(&mut self, record: &Value) -> Result<(), BadRecord> {
        let message = record
            .get("message")
            .ok_or("an assistant record without message")?;
        let model = message.get("model").and_then(Value::as_str);
        if record.get("isApiErrorMessage") == Some(&Value::Bool(true))
            || model == Some("<synthetic>")
        {
            return Ok(());
        }
        let id = message.get("id").and_then(Value::as_str);
        // The records of one response share its id; a user message in
        // between makes a new response whatever its id (a resumed copy).
        let part = self.parts.saturating_sub(1);
        let same = id.is_some()
            && self
                .turns
                .last()
                .is_some_and(|t| t.message_id.as_deref() == id && t.part == part);
        if !same {
            self.start_turn(id);
        }
        if let Some(model) = model {
            super::note_model(&mut self.models, model);
        }
        let index = self.turns.len() - 1;
        if let Some(usage) = message.get("usage") {
            set_usage(&mut self.turns[index].turn, usage);
        }
        match message.get("content") {
            Some(Value::Array(blocks)) => {
                for block in blocks {
                    self.block(index, block);
                }
            }
            Some(Value::String(_)) => self.turns[index].blocks += 1,
            _ => {}
        }
        Ok(())
    }

    fn start_turn(&mut self, id: Option<&str>) {
        let mut draft = TurnDraft {
            part: self.parts.saturating_sub(1),
            message_id: id.map(str::to_string),
            ..TurnDraft::default()
        };
        draft.turn.reminder_before = std::mem::take(&mut self.reminder_pending);
        draft.turn.new_context_chars = std::mem::take(&mut self.chars_pending);
        self.turns.push(draft);
    }

    fn block(&mut self, index: usize, block: &Value) {
        let draft = &mut self.turns[index];
        draft.blocks += 1;
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            draft.blocks_after_plan = draft.blocks_after_plan.map(|n| n + 1);
            return;
        }
        let name = block.get("name").and_then(Value::as_str).unwrap_or("");
        let input = block.get("input").unwrap_or(&Value::Null);
        let Some((op, writes)) = planning_op(name, input) else {
            draft.turn.other_tool_calls += 1;
            draft.blocks_after_plan = draft.blocks_after_plan.map(|n| n + 1);
            return;
        };
        draft.blocks_after_plan = Some(0);
        draft.ops.push(op);
        draft.turn.planning_calls.push(PlanningCall {
            tool: name.to_string(),
            accepted: true,
            writes,
        });
        if let Some(id) = block.get("id").and_then(Value::as_str) {
            let call = draft.turn.planning_calls.len() - 1;
            self.awaiting.insert(id.to_string(), (index, call));
        }
    }
}

/// The planning operation of a call of `name`, and whether it writes;
/// `None` for a tool that does not plan.
fn planning_op(name: &str, input: &Value) -> Option<(PlanOp, bool)> {
    let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_string);
    Some(match name {
        "TodoWrite" => {
            let statuses = input.get("todos").and_then(Value::as_array).map(|todos| {
                todos
                    .iter()
                    .filter_map(|t| status_of(t.get("status")?.as_str()?))
                    .collect()
            });
            (PlanOp::Rewrite(statuses), true)
        }
        "TaskCreate" => (PlanOp::Create(None), true),
        "TaskUpdate" => {
            let status = input
                .get("status")
                .and_then(Value::as_str)
                .map(|s| if s == "deleted" { None } else { status_of(s) });
            (
                PlanOp::Update {
                    id: text("taskId"),
                    status,
                },
                true,
            )
        }
        "TodoRead" | "TaskList" | "TaskGet" => (PlanOp::Read, false),
        _ => return None,
    })
}

fn status_of(text: &str) -> Option<ItemStatus> {
    match text {
        "pending" => Some(ItemStatus::Pending),
        "in_progress" => Some(ItemStatus::InProgress),
        "completed" => Some(ItemStatus::Completed),
        _ => None,
    }
}

/// `Task #<id> created successfully: ...` → the id.
fn created_task_id(text: &str) -> Option<String> {
    let rest = text.trim_start().strip_prefix("Task #")?;
    let id: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
    (!id.is_empty()).then_some(id)
}

fn set_usage(turn: &mut Turn, usage: &Value) {
    let count = |key: &str| usage.get(key).and_then(super::token_count);
    let input = [
        "input_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    ]
    .iter()
    .filter_map(|k| count(k))
    .reduce(|a, b| a.saturating_add(b));
    if input.is_some() {
        turn.input_tokens = input;
    }
    if let Some(output) = count("output_tokens") {
        // The records of one response repeat its usage; the last is final.
        turn.output_tokens = Some(output);
    }
}

/// The first text of a tool result's content (a string, or text blocks).
fn first_text(content: &Value) -> &str {
    match content {
        Value::String(text) => text,
        Value::Array(blocks) => blocks
            .iter()
            .find_map(|b| b.get("text").and_then(Value::as_str))
            .unwrap_or(""),
        _ => "",
    }
}

impl RecordReader for ClaudeCodeReader {
    fn record(&mut self, record: &Value) -> Result<(), BadRecord> {
        let kind = record
            .get("type")
            .and_then(Value::as_str)
            .ok_or("a record without a type")?;
        if let Some(version) = record.get("version").and_then(Value::as_str) {
            self.check_version(version)?;
        }
        if record.get("isSidechain") == Some(&Value::Bool(true)) {
            return Ok(());
        }
        if self.session_id.is_none()
            && let Some(id) = record.get("sessionId").and_then(Value::as_str)
        {
            self.session_id = Some(id.to_string());
        }
        match kind {
            "user" => self.user(record),
            "assistant" => self.assistant(record),
            "attachment" => {
                self.attachment(record);
                Ok(())
            }
            kind if IGNORED_TYPES.contains(&kind) => Ok(()),
            _ => Err("an unknown Claude Code record type"),
        }
    }

    fn finish(self: Box<Self>) -> Vec<Session> {
        if self.turns.is_empty() {
            return Vec::new();
        }
        let reminders = reminders_for(self.version, self.reminder_recorded);
        let mut turns = self.turns;
        replay_plans(&mut turns);
        // The policy's prediction on every version it applies to, so the
        // versions that record reminders check it; it stands in for the
        // record only where there is none.
        if self.version.is_some_and(|v| v >= POLICY_KNOWN_FROM) {
            predict_reminders(&mut turns);
        }
        if reminders == Reminders::Inferred {
            for draft in &mut turns {
                draft.turn.reminder_before = draft.turn.reminder_predicted;
            }
        }
        let mut parts: Vec<Part> = (0..self.parts.max(1)).map(|_| Part::default()).collect();
        for draft in turns {
            parts[draft.part].turns.push(draft.turn);
        }
        parts.retain(|p| !p.turns.is_empty());
        let mut session = Session {
            format: Format::ClaudeCode,
            agent_version: self.version_name,
            models: self.models.into_iter().collect(),
            reminders,
            parts,
            id: self.session_id,
            // The project folder is the file's: the caller sets it.
            group: String::new(),
            content_hash: String::new(),
        };
        session.keep_real_usage();
        vec![session]
    }
}

/// Sets each turn's plan: the accepted calls replayed in order; every turn
/// from the first plan on carries the plan as it then stands.
fn replay_plans(turns: &mut [TurnDraft]) {
    let mut plan: Option<Vec<(Option<String>, ItemStatus)>> = None;
    let mut next_id = 1u64;
    for draft in turns.iter_mut() {
        for (op, call) in draft.ops.iter().zip(&draft.turn.planning_calls) {
            if !call.accepted {
                continue;
            }
            match op {
                PlanOp::Rewrite(Some(statuses)) => {
                    plan = Some(statuses.iter().map(|s| (None, *s)).collect());
                }
                PlanOp::Create(id) => {
                    let id = id.clone().unwrap_or_else(|| next_id.to_string());
                    if let Ok(n) = id.parse::<u64>() {
                        next_id = next_id.max(n + 1);
                    }
                    plan.get_or_insert_with(Vec::new)
                        .push((Some(id), ItemStatus::Pending));
                }
                PlanOp::Update {
                    id: Some(id),
                    status: Some(status),
                } => {
                    let tasks = plan.get_or_insert_with(Vec::new);
                    let at = tasks.iter().position(|(t, _)| t.as_deref() == Some(id));
                    match (at, status) {
                        (Some(at), Some(status)) => tasks[at].1 = *status,
                        (Some(at), None) => {
                            tasks.remove(at);
                        }
                        (None, _) => {}
                    }
                }
                PlanOp::Rewrite(None) | PlanOp::Update { .. } | PlanOp::Read => {}
            }
        }
        draft.turn.plan_after = plan
            .as_ref()
            .map(|items| items.iter().map(|(_, s)| *s).collect());
    }
}

/// Marks the turns a reminder precedes under Claude Code's known policy
/// (`reminder_predicted`): before a response, when the assistant messages
/// (content blocks) since the last planning call and since the last
/// reminder are both at least 10. The count restarts after the planning
/// call's block.
fn predict_reminders(turns: &mut [TurnDraft]) {
    let mut since_write = 0u32;
    let mut since_reminder: Option<u32> = None;
    for (index, draft) in turns.iter_mut().enumerate() {
        let quiet = since_reminder.is_none_or(|n| n >= POLICY_TURNS_BETWEEN);
        let predicted = index > 0 && since_write >= POLICY_TURNS_SINCE_WRITE && quiet;
        draft.turn.reminder_predicted = predicted;
        if predicted {
            since_reminder = Some(0);
        }
        since_write = match draft.blocks_after_plan {
            Some(after) => after,
            None => since_write + draft.blocks,
        };
        since_reminder = since_reminder.map(|n| n + draft.blocks);
    }
}

#[cfg(test)]
mod tests;
