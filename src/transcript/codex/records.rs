//! A Codex rollout's records (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`),
//! as serde records: the part of the format calibration reads, checked on
//! what Codex 0.169.0 writes (and the public rollouts of 0.2x to 0.1xx).
//! Unknown fields are ignored and a field of an unexpected type reads as
//! absent (`crate::lenient`); a line type or item type not named here is
//! [`RecordType::Unknown`] or [`ItemType::Other`] (the reader counts the
//! first as a bad record, never quoting it).
//!
//! Each line is `{timestamp, type, payload}` ([`RolloutLine`]); the
//! payload's shape follows the type.

use serde::Deserialize;
use serde_json::Value;

use crate::lenient::{Lenient, present};

/// One line of a rollout; the payload is read by its type.
#[derive(Debug, Default, Deserialize)]
pub struct RolloutLine {
    #[serde(rename = "type", default)]
    pub kind: Lenient<RecordType>,
    #[serde(default)]
    pub payload: Value,
}

/// A line's `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordType {
    /// The session: [`SessionMeta`] (first line).
    SessionMeta,
    /// A turn's settings: [`TurnContext`].
    TurnContext,
    /// A conversation item: [`ResponseItem`].
    ResponseItem,
    /// An event: [`EventMsg`].
    EventMsg,
    /// 0.169: one per response, [`TokenUsageRecord`].
    TokenUsageRecord,
    /// Nothing calibration reads.
    WorldState,
    Compacted,
    /// A type not named here.
    #[serde(other)]
    Unknown,
}

/// `session_meta`'s payload.
#[derive(Debug, Default, Deserialize)]
pub struct SessionMeta {
    /// The session's id.
    #[serde(default)]
    pub id: Lenient<String>,
    /// The working directory (hashed into the session's group).
    #[serde(default)]
    pub cwd: Lenient<String>,
    /// The Codex version (`0.169.0`).
    #[serde(default)]
    pub cli_version: Lenient<String>,
}

/// `turn_context`'s payload.
#[derive(Debug, Default, Deserialize)]
pub struct TurnContext {
    #[serde(default)]
    pub model: Lenient<String>,
}

/// `response_item`'s payload: one item of the conversation.
#[derive(Debug, Default, Deserialize)]
pub struct ResponseItem {
    #[serde(rename = "type", default)]
    pub kind: Lenient<ItemType>,
    /// A message's role: `user`, `developer` or `assistant`.
    #[serde(default)]
    pub role: Lenient<String>,
    /// A message's content (text blocks).
    #[serde(default)]
    pub content: Value,
    /// A function call's tool.
    #[serde(default)]
    pub name: Lenient<String>,
    /// A call's id, repeated by its output.
    #[serde(default)]
    pub call_id: Lenient<String>,
    /// A function call's arguments: JSON text (`update_plan`:
    /// [`UpdatePlanArguments`]).
    #[serde(default)]
    pub arguments: Option<Value>,
    /// A call output's output: text, or [`CallOutput`].
    #[serde(default)]
    pub output: Value,
}

/// A response item's `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemType {
    Message,
    Reasoning,
    FunctionCall,
    /// `apply_patch`.
    CustomToolCall,
    LocalShellCall,
    WebSearchCall,
    ToolSearchCall,
    FunctionCallOutput,
    CustomToolCallOutput,
    #[serde(other)]
    Other,
}

impl ItemType {
    /// An item the model outputs (it makes a turn).
    pub fn is_output(self) -> bool {
        matches!(
            self,
            Self::Message
                | Self::Reasoning
                | Self::FunctionCall
                | Self::CustomToolCall
                | Self::LocalShellCall
                | Self::WebSearchCall
                | Self::ToolSearchCall
        )
    }

    /// A tool call's output.
    pub fn is_call_output(self) -> bool {
        matches!(self, Self::FunctionCallOutput | Self::CustomToolCallOutput)
    }
}

/// A call output written as an object (`{content, success}`).
#[derive(Debug, Default, Deserialize)]
pub struct CallOutput {
    #[serde(default)]
    pub content: Lenient<String>,
    /// `false` when the call failed.
    #[serde(default)]
    pub success: Lenient<bool>,
}

/// `update_plan`'s arguments: `{explanation?, plan: [{step, status}]}`.
#[derive(Debug, Default, Deserialize)]
pub struct UpdatePlanArguments {
    #[serde(default)]
    pub plan: Lenient<Vec<Lenient<PlanStep>>>,
}

/// One step of an `update_plan` call.
#[derive(Debug, Default, Deserialize)]
pub struct PlanStep {
    /// `pending`, `in_progress` or `completed`.
    #[serde(default)]
    pub status: Lenient<String>,
}

/// `event_msg`'s payload.
#[derive(Debug, Default, Deserialize)]
pub struct EventMsg {
    #[serde(rename = "type", default)]
    pub kind: Lenient<EventType>,
    /// `item_completed`'s item.
    #[serde(default)]
    pub item: Lenient<CompletedItem>,
    /// `token_count`'s usage.
    #[serde(default)]
    pub info: Lenient<TokenCountInfo>,
}

/// An event's `type`: those calibration reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventType {
    /// A real user message (older versions).
    UserMessage,
    /// 0.169: an item completed (a `UserMessage` is a real user message).
    ItemCompleted,
    /// The usage after a response.
    TokenCount,
    #[serde(other)]
    Other,
}

/// `item_completed`'s item.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CompletedItem {
    #[serde(rename = "type", default)]
    pub kind: Lenient<String>,
}

/// `token_count`'s `info`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct TokenCountInfo {
    /// The last response's [`Usage`].
    #[serde(default, deserialize_with = "present")]
    pub last_token_usage: Option<Value>,
}

/// `token_usage_record`'s payload (0.169): `{response_id, usage}`.
#[derive(Debug, Default, Deserialize)]
pub struct TokenUsageRecord {
    #[serde(default, deserialize_with = "present")]
    pub usage: Option<Value>,
}

/// A response's token usage.
#[derive(Debug, Default, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: Lenient<u64>,
    #[serde(default)]
    pub output_tokens: Lenient<u64>,
}
