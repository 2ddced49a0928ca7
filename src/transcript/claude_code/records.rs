//! A Claude Code session transcript's records
//! (`~/.claude/projects/<dir>/<session>.jsonl`), as serde records: the part
//! of the format calibration reads, seen on versions 0.2.x to 2.1.330 (the
//! pinned CLI) and the public sessions of 1.0.x to 2.1.x. Unknown fields
//! are ignored and a field of an unexpected type reads as absent
//! (`crate::lenient`); a record type not named here is
//! [`RecordType::Unknown`] (the reader counts it as a bad record, never
//! quoting it).
//!
//! Each line is one [`Record`]: its `type`, the writer's `version`, and by
//! type a `message` ([`UserMessage`], [`AssistantMessage`]) or an
//! `attachment` ([`Attachment`]).

use serde::Deserialize;
use serde_json::Value;

use crate::lenient::{Lenient, present};

/// One line of a transcript.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    #[serde(rename = "type", default)]
    pub kind: Lenient<RecordType>,
    /// The Claude Code version that wrote the record (`2.1.330`).
    #[serde(default)]
    pub version: Lenient<String>,
    /// A subagent's record (older versions wrote them into the parent's
    /// file).
    #[serde(default)]
    pub is_sidechain: Lenient<bool>,
    #[serde(default)]
    pub session_id: Lenient<String>,
    /// A user record that is not the user's: meta text, a compaction's
    /// summary, text shown only in the transcript.
    #[serde(default)]
    pub is_meta: Lenient<bool>,
    #[serde(default)]
    pub is_compact_summary: Lenient<bool>,
    #[serde(default)]
    pub is_visible_in_transcript_only: Lenient<bool>,
    /// An assistant record that is an API error, no response.
    #[serde(default)]
    pub is_api_error_message: Lenient<bool>,
    /// `user` and `assistant` records: [`UserMessage`] or
    /// [`AssistantMessage`].
    #[serde(default, deserialize_with = "present")]
    pub message: Option<Value>,
    /// `attachment` records: [`Attachment`].
    #[serde(default)]
    pub attachment: Value,
    /// An attachment's text as the model got it (recent 2.x).
    #[serde(default, deserialize_with = "present")]
    pub rendered: Option<Value>,
}

/// A record's `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordType {
    /// A user message, tool results, or text that is not the user's.
    User,
    /// One API response, or (1.0.x and later) one content block of it.
    Assistant,
    /// Recent 2.x: what the client adds to the next request (the planning
    /// reminders among them).
    Attachment,
    // Types that carry nothing calibration reads.
    Summary,
    System,
    FileHistorySnapshot,
    QueueOperation,
    Progress,
    CustomTitle,
    AiTitle,
    LastPrompt,
    Tag,
    AgentName,
    AgentSetting,
    PrLink,
    Mode,
    PermissionMode,
    WorktreeState,
    ContentReplacement,
    /// 2.1.x: the request's shape and blobs (a copy of what the user and
    /// attachment records say), token and cost bookkeeping.
    ApiRequest,
    ApiRequestShape,
    ApiRequestBlob,
    AtisLatch,
    ToolsUsed,
    CostState,
    /// A type not named here.
    #[serde(other)]
    Unknown,
}

/// A `user` record's message: text, or blocks ([`UserBlock`]).
#[derive(Debug, Default, Deserialize)]
pub struct UserMessage {
    #[serde(default, deserialize_with = "present")]
    pub content: Option<Value>,
}

/// A block of a user message: `text`, or a `tool_result`.
#[derive(Debug, Default, Deserialize)]
pub struct UserBlock {
    #[serde(rename = "type", default)]
    pub kind: Lenient<String>,
    #[serde(default)]
    pub text: Lenient<String>,
    /// The `tool_use` a result answers.
    #[serde(default)]
    pub tool_use_id: Lenient<String>,
    /// A rejected call's result.
    #[serde(default)]
    pub is_error: Lenient<bool>,
    /// A result's content: text, or text and image blocks.
    #[serde(default)]
    pub content: Value,
}

/// A block of a tool result's content: `text`, or an `image` (no text).
#[derive(Debug, Default, Deserialize)]
pub struct ResultBlock {
    #[serde(default)]
    pub text: Lenient<String>,
}

/// An `assistant` record's message (the API response, or one block of it).
#[derive(Debug, Default, Deserialize)]
pub struct AssistantMessage {
    /// The response's id, shared by the records of one response.
    #[serde(default)]
    pub id: Lenient<String>,
    /// The model; `<synthetic>` for a message no API wrote.
    #[serde(default)]
    pub model: Lenient<String>,
    /// [`Usage`].
    #[serde(default)]
    pub usage: Option<Value>,
    /// Text, or blocks ([`AssistantBlock`]).
    #[serde(default)]
    pub content: Value,
}

/// The usage of a response (old versions wrote streaming placeholders).
#[derive(Debug, Default, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: Lenient<u64>,
    #[serde(default)]
    pub cache_read_input_tokens: Lenient<u64>,
    #[serde(default)]
    pub cache_creation_input_tokens: Lenient<u64>,
    #[serde(default)]
    pub output_tokens: Lenient<u64>,
}

/// A block of an assistant message: `text`, `thinking`, or a `tool_use`.
#[derive(Debug, Default, Deserialize)]
pub struct AssistantBlock {
    #[serde(rename = "type", default)]
    pub kind: Lenient<String>,
    /// A tool use's id (its result's `tool_use_id`).
    #[serde(default)]
    pub id: Lenient<String>,
    /// A tool use's tool.
    #[serde(default)]
    pub name: Lenient<String>,
    /// A tool use's input ([`TodoWriteInput`], [`TaskUpdateInput`]).
    #[serde(default)]
    pub input: Value,
}

/// `TodoWrite`'s input: the whole list.
#[derive(Debug, Default, Deserialize)]
pub struct TodoWriteInput {
    #[serde(default)]
    pub todos: Lenient<Vec<Lenient<Todo>>>,
}

/// One item of `TodoWrite`'s list.
#[derive(Debug, Default, Deserialize)]
pub struct Todo {
    /// `pending`, `in_progress` or `completed`.
    #[serde(default)]
    pub status: Lenient<String>,
}

/// `TaskUpdate`'s input: one task's new status (`deleted` removes it).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskUpdateInput {
    #[serde(default)]
    pub task_id: Lenient<String>,
    #[serde(default)]
    pub status: Lenient<String>,
}

/// An `attachment` record's attachment.
#[derive(Debug, Default, Deserialize)]
pub struct Attachment {
    #[serde(rename = "type", default)]
    pub kind: Lenient<AttachmentType>,
    /// A reminder's list (versions without `rendered`).
    #[serde(default)]
    pub content: Value,
    /// Who queued a command.
    #[serde(default)]
    pub origin: Lenient<Origin>,
}

/// An attachment's `type`: those calibration reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttachmentType {
    /// TodoWrite's planning reminder.
    TodoReminder,
    /// The Task tools' planning reminder.
    TaskReminder,
    /// A message the user typed while the agent worked.
    QueuedCommand,
    #[serde(other)]
    Other,
}

/// A queued command's origin.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Origin {
    /// `human` for the user (any other value: not the user's).
    #[serde(default, deserialize_with = "present")]
    pub kind: Option<Value>,
}
