//! The Agent Client Protocol messages agent-eval exchanges with an agent
//! over its stdio (JSON-RPC 2.0, one message a line): the requests the
//! client sends (`initialize`, `authenticate`, `session/new`,
//! `session/prompt`), its answers to the agent's requests (a permission
//! granted, or `-32601` for a method it does not serve), and what it makes
//! of a line read back ([`parse_line`]: a response, a request or a
//! notification; [`read_update`]: the agent's `plan`, its tool calls), over
//! the typed records of [`super::records`]. The client that drives them is
//! [`super::client`].

use serde::Deserialize;
use serde_json::{Value, json};

use super::failure::{LineError, PlanError};
use super::plan::AgentPlanEntry;
use super::records::{
    Envelope, InitializeResult, Lenient, PermissionRequest, PlanEntryRecord, RpcErrorRecord,
    SessionUpdate, SessionUpdateParams, UpdateKind, plan_status,
};
use crate::lenient::object_record;

/// The protocol version agent-eval speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// JSON-RPC's "method not found".
pub const METHOD_NOT_FOUND: i64 = -32601;

/// ACP's "authentication required" (what `session/new` answers before
/// `authenticate`).
pub const AUTH_REQUIRED: i64 = -32000;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

/// One message read from the agent.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// The answer to one of our requests.
    Response {
        id: u64,
        result: Result<Value, RpcError>,
    },
    /// A request the agent makes of the client (it waits for the answer).
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A notification (`session/update`).
    Notification { method: String, params: Value },
}

/// Reads one line the agent wrote; the error says why it is not a
/// JSON-RPC 2.0 message.
pub fn parse_line(line: &str) -> Result<Incoming, LineError> {
    let value: Value = serde_json::from_str(line).map_err(|e| LineError::NotJson {
        error: e.to_string(),
        line: shown(line),
    })?;
    if !value.is_object() {
        return Err(LineError::NotAnObject { line: shown(line) });
    }
    // An object always reads: every field is optional and lenient.
    let message = Envelope::deserialize(&value).unwrap_or_default();
    if message.jsonrpc.as_str() != Some("2.0") {
        return Err(LineError::NotJsonRpc2 { line: shown(line) });
    }
    let params = message.params.unwrap_or(Value::Null);
    match (message.method.0, message.id) {
        (Some(method), Some(id)) if !id.is_null() => Ok(Incoming::Request { id, method, params }),
        (Some(method), _) => Ok(Incoming::Notification { method, params }),
        (None, Some(id)) => {
            let Some(id) = id.as_u64() else {
                return Err(LineError::ForeignId { line: shown(line) });
            };
            let result = match (message.error, message.result) {
                (Some(error), _) => Err(rpc_error(&error)),
                (None, Some(result)) => Ok(result),
                (None, None) => return Err(LineError::NoResultNorError),
            };
            Ok(Incoming::Response { id, result })
        }
        (None, None) => Err(LineError::NeitherRequestNorResponse { line: shown(line) }),
    }
}

/// A response's `error`, whatever its shape (code 0 and "(no message)"
/// where it says none).
fn rpc_error(error: &Value) -> RpcError {
    let record = RpcErrorRecord::deserialize(error).unwrap_or_default();
    RpcError {
        code: record.code.0.unwrap_or(0),
        message: record
            .message
            .0
            .unwrap_or_else(|| "(no message)".to_string()),
    }
}

/// A line quoted in a message: at most 200 characters.
pub fn shown(line: &str) -> String {
    let line = line.trim_end();
    match line.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", line.get(..at).unwrap_or_default()),
        None => line.to_string(),
    }
}

/// One request of ours, as the line sent.
pub fn request(id: u64, method: &str, params: Value) -> String {
    line(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

fn line(value: Value) -> String {
    let mut text = value.to_string();
    text.push('\n');
    text
}

/// `initialize`'s parameters: no file system and no terminal offered (the
/// agent uses its own tools, which agent-eval's mock model drives).
pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "clientCapabilities": {
            "fs": {"readTextFile": false, "writeTextFile": false},
            "terminal": false,
        },
        "clientInfo": {"name": "agent-eval", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// `session/new` in `cwd`, with no MCP server.
pub fn session_new_params(cwd: &str) -> Value {
    json!({"cwd": cwd, "mcpServers": []})
}

/// `session/prompt`: one user message as a text block.
pub fn prompt_params(session_id: &str, text: &str) -> Value {
    json!({"sessionId": session_id, "prompt": [{"type": "text", "text": text}]})
}

/// The answer to a request we do not serve.
pub fn method_not_found(id: &Value, method: &str) -> String {
    line(json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": METHOD_NOT_FOUND, "message": format!("agent-eval does not serve `{method}`")},
    }))
}

/// The answer to `session/request_permission`: the option that allows
/// (always, else once), as a preset grants its tools; `None` when the
/// request offers no allowing option.
pub fn permission_granted(id: &Value, request: &PermissionRequest) -> Option<String> {
    let options = request.options.as_ref()?;
    let with_kind = |kind: &str| {
        options
            .iter()
            .filter_map(Lenient::as_ref)
            .find(|o| o.kind.as_ref().is_some_and(|k| k == kind))
    };
    let chosen = with_kind("allow_always").or_else(|| with_kind("allow_once"))?;
    let option_id = chosen.option_id.clone()?;
    Some(line(json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {"outcome": {"outcome": "selected", "optionId": option_id}},
    })))
}

/// The methods of `initialize`'s `authMethods` that need nothing but
/// environment variables the agent has (`has_var`), in the agent's order.
/// A method that names no variable (a login in a browser) is never one.
pub fn usable_auth_methods(
    initialized: &InitializeResult,
    has_var: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let Some(methods) = initialized.auth_methods.as_ref() else {
        return Vec::new();
    };
    methods
        .iter()
        .filter_map(Lenient::as_ref)
        .filter(|m| {
            m.vars.as_ref().is_some_and(|vars| {
                vars.iter()
                    .filter_map(|v| v.as_ref().and_then(|v| v.name.as_ref()))
                    .all(|name| has_var(name))
            })
        })
        .filter_map(|m| m.id.0.clone())
        .collect()
}

/// What a `session/update` notification says.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// The agent's whole plan.
    Plan(Vec<AgentPlanEntry>),
    /// A tool call started or changed: its id, title and status.
    ToolCall {
        id: String,
        title: String,
        status: String,
    },
    /// A kind agent-eval reads and drops (message chunks, thoughts,
    /// commands, modes).
    Dropped,
    /// A kind not in [`SessionUpdate`] (counted).
    Unknown,
}

/// Reads a `session/update`'s `update`; the error says why a `plan` could
/// not be read.
pub fn read_update(params: &Value) -> Result<Update, PlanError> {
    let params = SessionUpdateParams::deserialize(params).unwrap_or_default();
    // No kind, or one that is not a string: nothing to read.
    let update = SessionUpdate::deserialize(&params.update).unwrap_or(SessionUpdate::Other);
    let text = |field: Lenient<String>| field.0.unwrap_or_default();
    match update {
        SessionUpdate::Plan { entries } => read_plan(entries.0).map(Update::Plan),
        SessionUpdate::ToolCall(call) | SessionUpdate::ToolCallUpdate(call) => {
            Ok(Update::ToolCall {
                id: text(call.tool_call_id),
                title: text(call.title),
                status: text(call.status),
            })
        }
        SessionUpdate::Other
            if object_record::<UpdateKind>(&params.update)
                .session_update
                .0
                .is_some() =>
        {
            Ok(Update::Unknown)
        }
        _ => Ok(Update::Dropped),
    }
}

fn read_plan(entries: Option<Vec<Value>>) -> Result<Vec<AgentPlanEntry>, PlanError> {
    let entries = entries.ok_or(PlanError::NoEntries)?;
    entries
        .iter()
        .map(|entry| {
            let record = PlanEntryRecord::deserialize(entry).unwrap_or_default();
            let (Some(content), Some(status)) = (record.content.0, record.status.0) else {
                return Err(PlanError::EntryIncomplete(entry.to_string()));
            };
            Ok(AgentPlanEntry {
                content,
                priority: record.priority.0.unwrap_or_else(|| "medium".to_string()),
                status: plan_status(&status).ok_or(PlanError::UnknownStatus(status))?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::dialect::PlanStatus;

    #[test]
    fn lines_are_read_as_responses_requests_and_notifications() {
        let response = parse_line(r#"{"jsonrpc":"2.0","id":3,"result":{"sessionId":"s"}}"#);
        assert_eq!(
            response,
            Ok(Incoming::Response {
                id: 3,
                result: Ok(json!({"sessionId": "s"}))
            })
        );
        let error = parse_line(
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Authentication required"}}"#,
        );
        assert!(matches!(
            error,
            Ok(Incoming::Response {
                id: 2,
                result: Err(RpcError {
                    code: AUTH_REQUIRED,
                    ..
                })
            })
        ));
        let request =
            parse_line(r#"{"jsonrpc":"2.0","id":"x","method":"fs/read_text_file","params":{}}"#);
        assert!(
            matches!(request, Ok(Incoming::Request { method, .. }) if method == "fs/read_text_file")
        );
        let note = parse_line(r#"{"jsonrpc":"2.0","method":"session/update","params":{}}"#);
        assert!(matches!(note, Ok(Incoming::Notification { .. })));
        for garbage in [
            "hello",
            "[1]",
            r#"{"id":1,"result":1}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
        ] {
            assert!(parse_line(garbage).is_err(), "{garbage}");
        }
    }

    #[test]
    fn a_plan_update_is_the_whole_list() {
        let params = json!({"sessionId": "s", "update": {"sessionUpdate": "plan", "entries": [
            {"content": "Read the code", "priority": "high", "status": "completed"},
            {"content": "Port it", "priority": "low", "status": "in_progress"},
        ]}});
        let Ok(Update::Plan(entries)) = read_update(&params) else {
            panic!("not a plan");
        };
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].content, "Read the code");
        assert_eq!(entries[0].priority, "high");
        assert_eq!(entries[1].status, PlanStatus::InProgress);
        let bad = json!({"update": {"sessionUpdate": "plan", "entries": [{"content": "x", "status": "done"}]}});
        assert!(read_update(&bad).is_err());
    }

    #[test]
    fn permission_takes_the_allowing_option() {
        let params = json!({"options": [
            {"optionId": "no", "kind": "reject_once", "name": "No"},
            {"optionId": "once", "kind": "allow_once", "name": "Yes"},
            {"optionId": "always", "kind": "allow_always", "name": "Always"},
        ]});
        let request = |params: &Value| PermissionRequest::deserialize(params).unwrap();
        let answer = permission_granted(&json!(7), &request(&params)).unwrap();
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["result"]["outcome"]["optionId"], "always");
        assert_eq!(answer["id"], 7);
        assert!(permission_granted(&json!(7), &request(&json!({"options": []}))).is_none());
        // An option of another shape is passed over, not a failure.
        let odd = json!({"options": [7, {"kind": 3}, {"optionId": "y", "kind": "allow_once"}]});
        let answer: Value =
            serde_json::from_str(&permission_granted(&json!(1), &request(&odd)).unwrap()).unwrap();
        assert_eq!(answer["result"]["outcome"]["optionId"], "y");
    }

    #[test]
    fn auth_methods_usable_are_those_whose_variables_are_set() {
        let init = json!({"authMethods": [
            {"id": "chatgpt", "name": "Login"},
            {"type": "env_var", "id": "codex-api-key", "vars": [{"name": "CODEX_API_KEY"}]},
            {"type": "env_var", "id": "openai-api-key", "vars": [{"name": "OPENAI_API_KEY"}]},
        ]});
        let init = InitializeResult::deserialize(&init).unwrap();
        let usable = usable_auth_methods(&init, &|v| v == "OPENAI_API_KEY");
        assert_eq!(usable, ["openai-api-key"]);
    }

    #[test]
    fn updates_tolerate_unknown_fields_and_count_unknown_kinds() {
        let tool = json!({"update": {"sessionUpdate": "tool_call", "toolCallId": "c1",
            "title": "ls", "status": "pending", "kind": "execute", "_meta": {"x": 1}}});
        assert_eq!(
            read_update(&tool),
            Ok(Update::ToolCall {
                id: "c1".into(),
                title: "ls".into(),
                status: "pending".into()
            })
        );
        // A field of another type reads as absent.
        let odd = json!({"update": {"sessionUpdate": "tool_call_update", "toolCallId": 5}});
        assert!(matches!(read_update(&odd), Ok(Update::ToolCall { id, .. }) if id.is_empty()));
        let chunk = json!({"update": {"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "hi"}}});
        assert_eq!(read_update(&chunk), Ok(Update::Dropped));
        let new_kind = json!({"update": {"sessionUpdate": "some_future_kind", "x": [1]}});
        assert_eq!(read_update(&new_kind), Ok(Update::Unknown));
        assert_eq!(read_update(&json!({"update": 3})), Ok(Update::Dropped));
        let no_entries = json!({"update": {"sessionUpdate": "plan"}});
        assert_eq!(read_update(&no_entries), Err(PlanError::NoEntries));
    }

    #[test]
    fn a_response_keeps_a_null_result_and_reads_any_error_shape() {
        assert_eq!(
            parse_line(r#"{"jsonrpc":"2.0","id":3,"result":null}"#),
            Ok(Incoming::Response {
                id: 3,
                result: Ok(Value::Null)
            })
        );
        assert_eq!(
            parse_line(r#"{"jsonrpc":"2.0","id":3,"error":"bad"}"#),
            Ok(Incoming::Response {
                id: 3,
                result: Err(RpcError {
                    code: 0,
                    message: "(no message)".into()
                })
            })
        );
        assert_eq!(
            parse_line(r#"{"jsonrpc":"2.0","id":null}"#),
            Err(LineError::ForeignId {
                line: r#"{"jsonrpc":"2.0","id":null}"#.into()
            })
        );
        assert_eq!(
            parse_line(r#"{"jsonrpc":"2.0","id":2}"#),
            Err(LineError::NoResultNorError)
        );
    }
}
