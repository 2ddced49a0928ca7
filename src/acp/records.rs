//! The Agent Client Protocol messages agent-eval reads from an agent, as
//! serde records: this file is the part of the protocol the client
//! understands (<https://agentclientprotocol.com>, protocol version 1).
//! Seen on codex-acp 0.16.0 (Codex 0.169.0), OpenCode 1.18.33
//! (`opencode acp`), Gemini CLI 0.61.0 (`gemini --acp`), Qwen Code 0.24.4
//! and GitHub Copilot CLI 1.0.102 (`copilot --acp`).
//!
//! The records are a foreign format's: unknown fields are ignored (agents
//! add their own, `_meta` among them), and a known field of an unexpected
//! type reads as absent ([`Lenient`]) rather than failing the message, so
//! a newer agent's extension never ends a run. Unknown `session/update`
//! kinds are counted, never quoted ([`SessionUpdate::Other`]).
//!
//! Every message is one JSON-RPC 2.0 object a line ([`Envelope`]): a
//! response to one of our requests (`id` and `result` or `error`), a request
//! of the agent's (`id` and `method`: only `session/request_permission` is
//! served) or a notification (`method` alone: `session/update`).

use serde::Deserialize;
use serde_json::Value;

pub use crate::lenient::Lenient;
use crate::lenient::present;
use crate::plan::dialect::PlanStatus;

/// One JSON-RPC 2.0 message, whichever kind.
#[derive(Debug, Default, Deserialize)]
pub struct Envelope {
    /// Always `"2.0"`.
    #[serde(default)]
    pub jsonrpc: Lenient<String>,
    /// A request's or response's id: ours are numbers; the agent's (a
    /// number or a string) are echoed back as they came.
    #[serde(default, deserialize_with = "present")]
    pub id: Option<Value>,
    /// A request's or notification's method.
    #[serde(default)]
    pub method: Lenient<String>,
    #[serde(default, deserialize_with = "present")]
    pub params: Option<Value>,
    /// A response's success.
    #[serde(default, deserialize_with = "present")]
    pub result: Option<Value>,
    /// A response's failure ([`RpcErrorRecord`]).
    #[serde(default, deserialize_with = "present")]
    pub error: Option<Value>,
}

/// A JSON-RPC error object: `-32000` is ACP's "authentication required"
/// (codex-acp 0.16.0, before `authenticate`; Gemini CLI 0.61.0 without an
/// API key).
#[derive(Debug, Default, Deserialize)]
pub struct RpcErrorRecord {
    #[serde(default)]
    pub code: Lenient<i64>,
    #[serde(default)]
    pub message: Lenient<String>,
}

/// `initialize`'s result: of it the client reads only how the agent
/// authenticates (its capabilities and info are not used).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    #[serde(default)]
    pub auth_methods: Lenient<Vec<Lenient<AuthMethod>>>,
}

/// One way to authenticate: codex-acp 0.16.0 offers `chatgpt` (a browser
/// login, no variables), `codex-api-key` (`CODEX_API_KEY`) and
/// `openai-api-key` (`OPENAI_API_KEY`), each `type: env_var` with `vars`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AuthMethod {
    #[serde(default)]
    pub id: Lenient<String>,
    /// The environment variables the method needs.
    #[serde(default)]
    pub vars: Lenient<Vec<Lenient<AuthVar>>>,
}

/// An environment variable an authentication method needs.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AuthVar {
    #[serde(default)]
    pub name: Lenient<String>,
}

/// `session/new`'s result.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionNewResult {
    #[serde(default)]
    pub session_id: Lenient<String>,
}

/// `session/prompt`'s result: why the turn ended (`end_turn`,
/// `max_tokens`, `max_turn_requests`, `refusal`, `cancelled`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptResult {
    #[serde(default)]
    pub stop_reason: Lenient<String>,
}

/// `session/request_permission`'s parameters: the tool call, and the
/// options to answer with.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRequest {
    #[serde(default)]
    pub options: Lenient<Vec<Lenient<PermissionOption>>>,
    #[serde(default)]
    pub tool_call: Lenient<ToolCallTitle>,
}

/// The title of the tool call a permission is asked for.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ToolCallTitle {
    #[serde(default)]
    pub title: Lenient<String>,
}

/// One answer a permission request offers: `kind` is `allow_once`,
/// `allow_always`, `reject_once` or `reject_always`; the `optionId` is
/// echoed back as it came.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    #[serde(default)]
    pub kind: Lenient<String>,
    #[serde(default, deserialize_with = "present")]
    pub option_id: Option<Value>,
}

/// `session/update`'s parameters (`sessionId` is ours, not read).
#[derive(Debug, Default, Deserialize)]
pub struct SessionUpdateParams {
    #[serde(default)]
    pub update: Value,
}

/// A `session/update`'s kind read alone: whether the update names one at
/// all (a string), when [`SessionUpdate`] cannot read it.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateKind {
    #[serde(default)]
    pub session_update: Lenient<String>,
}

/// What a `session/update` says, by its `sessionUpdate` kind.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "sessionUpdate", rename_all = "snake_case")]
pub enum SessionUpdate {
    /// The agent's whole plan (codex-acp 0.16.0: each `update_plan` call;
    /// Copilot CLI 1.0.102: one with no entries).
    Plan {
        #[serde(default)]
        entries: Lenient<Vec<Value>>,
    },
    /// A tool call started.
    ToolCall(ToolCallRecord),
    /// A tool call changed (status, output).
    ToolCallUpdate(ToolCallRecord),
    /// Message and thought chunks, commands, modes, session info: read
    /// and dropped.
    UserMessageChunk,
    AgentMessageChunk,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    CurrentModeUpdate,
    ConfigOptionUpdate,
    SessionInfoUpdate,
    UsageUpdate,
    /// A kind this file does not name (counted, never quoted).
    #[serde(other)]
    Other,
}

/// A tool call as `tool_call` and `tool_call_update` have it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRecord {
    #[serde(default)]
    pub tool_call_id: Lenient<String>,
    #[serde(default)]
    pub title: Lenient<String>,
    /// `pending`, `in_progress`, `completed` or `failed`.
    #[serde(default)]
    pub status: Lenient<String>,
}

/// One entry of a `plan` update.
#[derive(Debug, Default, Deserialize)]
pub struct PlanEntryRecord {
    #[serde(default)]
    pub content: Lenient<String>,
    /// `high`, `medium` or `low` (`medium` when missing).
    #[serde(default)]
    pub priority: Lenient<String>,
    /// `pending`, `in_progress` or `completed`.
    #[serde(default)]
    pub status: Lenient<String>,
}

/// A plan's status as ACP writes it.
pub fn plan_status(status: &str) -> Option<PlanStatus> {
    match status {
        "pending" => Some(PlanStatus::Pending),
        "in_progress" => Some(PlanStatus::InProgress),
        "completed" => Some(PlanStatus::Completed),
        _ => None,
    }
}
