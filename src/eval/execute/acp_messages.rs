//! The Agent Client Protocol messages agent-eval exchanges with an agent
//! over its stdio (JSON-RPC 2.0, one message a line): the requests the
//! client sends (`initialize`, `authenticate`, `session/new`,
//! `session/prompt`), its answers to the agent's requests (a permission
//! granted, or `-32601` for a method it does not serve), and what it reads
//! back — responses, requests and `session/update` notifications (the
//! agent's `plan`, its tool calls). The client that drives them is
//! [`super::acp`].

use serde_json::{Value, json};

use crate::plan::dialect::PlanStatus;
use crate::results::record::AgentPlanEntry;

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
pub fn parse_line(line: &str) -> Result<Incoming, String> {
    let value: Value =
        serde_json::from_str(line).map_err(|e| format!("not JSON ({e}): {}", shown(line)))?;
    let Some(object) = value.as_object() else {
        return Err(format!("not a JSON-RPC object: {}", shown(line)));
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(format!(
            "not JSON-RPC 2.0 (no \"jsonrpc\": \"2.0\"): {}",
            shown(line)
        ));
    }
    let params = object.get("params").cloned().unwrap_or(Value::Null);
    match (
        object.get("method").and_then(Value::as_str),
        object.get("id"),
    ) {
        (Some(method), Some(id)) if !id.is_null() => Ok(Incoming::Request {
            id: id.clone(),
            method: method.to_string(),
            params,
        }),
        (Some(method), _) => Ok(Incoming::Notification {
            method: method.to_string(),
            params,
        }),
        (None, Some(id)) => {
            let Some(id) = id.as_u64() else {
                return Err(format!(
                    "a response to an id agent-eval never sent: {}",
                    shown(line)
                ));
            };
            Ok(Incoming::Response {
                id,
                result: response_result(object)?,
            })
        }
        (None, None) => Err(format!("neither a request nor a response: {}", shown(line))),
    }
}

fn response_result(
    object: &serde_json::Map<String, Value>,
) -> Result<Result<Value, RpcError>, String> {
    if let Some(error) = object.get("error") {
        return Ok(Err(RpcError {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("(no message)")
                .to_string(),
        }));
    }
    match object.get("result") {
        Some(result) => Ok(Ok(result.clone())),
        None => Err("a response with neither `result` nor `error`".into()),
    }
}

/// A line quoted in a message: at most 200 characters.
pub fn shown(line: &str) -> String {
    let line = line.trim_end();
    match line.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &line[..at]),
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
pub fn permission_granted(id: &Value, params: &Value) -> Option<String> {
    let options = params.get("options")?.as_array()?;
    let kind_is = |o: &&Value, kind: &str| o.get("kind").and_then(Value::as_str) == Some(kind);
    let chosen = options
        .iter()
        .find(|o| kind_is(o, "allow_always"))
        .or_else(|| options.iter().find(|o| kind_is(o, "allow_once")))?;
    let option_id = chosen.get("optionId")?.clone();
    Some(line(json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {"outcome": {"outcome": "selected", "optionId": option_id}},
    })))
}

/// The methods of `initialize`'s `authMethods` that need nothing but
/// environment variables the agent has (`has_var`), in the agent's order.
/// A method that names no variable (a login in a browser) is never one.
pub fn usable_auth_methods(initialized: &Value, has_var: &dyn Fn(&str) -> bool) -> Vec<String> {
    let Some(methods) = initialized.get("authMethods").and_then(Value::as_array) else {
        return Vec::new();
    };
    methods
        .iter()
        .filter(|m| {
            let vars = m.get("vars").and_then(Value::as_array);
            vars.is_some_and(|vars| {
                vars.iter()
                    .filter_map(|v| v.get("name").and_then(Value::as_str))
                    .all(has_var)
            })
        })
        .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_string))
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
    /// Anything else (message chunks, thoughts, commands, modes).
    Other,
}

/// Reads a `session/update`'s `update`; the error says why a `plan` could
/// not be read.
pub fn read_update(params: &Value) -> Result<Update, String> {
    let update = params.get("update").unwrap_or(&Value::Null);
    let text = |key: &str| {
        update
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    match update.get("sessionUpdate").and_then(Value::as_str) {
        Some("plan") => read_plan(update).map(Update::Plan),
        Some("tool_call" | "tool_call_update") => Ok(Update::ToolCall {
            id: text("toolCallId"),
            title: text("title"),
            status: text("status"),
        }),
        _ => Ok(Update::Other),
    }
}

fn read_plan(update: &Value) -> Result<Vec<AgentPlanEntry>, String> {
    let Some(entries) = update.get("entries").and_then(Value::as_array) else {
        return Err("a plan update without an `entries` list".into());
    };
    entries
        .iter()
        .map(|entry| {
            let content = entry.get("content").and_then(Value::as_str);
            let status = entry.get("status").and_then(Value::as_str);
            let (Some(content), Some(status)) = (content, status) else {
                return Err(format!("a plan entry without content or status: {entry}"));
            };
            Ok(AgentPlanEntry {
                content: content.to_string(),
                priority: entry
                    .get("priority")
                    .and_then(Value::as_str)
                    .unwrap_or("medium")
                    .to_string(),
                status: plan_status(status)
                    .ok_or_else(|| format!("a plan entry of unknown status {status:?}"))?,
            })
        })
        .collect()
}

fn plan_status(status: &str) -> Option<PlanStatus> {
    match status {
        "pending" => Some(PlanStatus::Pending),
        "in_progress" => Some(PlanStatus::InProgress),
        "completed" => Some(PlanStatus::Completed),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let answer = permission_granted(&json!(7), &params).unwrap();
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["result"]["outcome"]["optionId"], "always");
        assert_eq!(answer["id"], 7);
        assert!(permission_granted(&json!(7), &json!({"options": []})).is_none());
    }

    #[test]
    fn auth_methods_usable_are_those_whose_variables_are_set() {
        let init = json!({"authMethods": [
            {"id": "chatgpt", "name": "Login"},
            {"type": "env_var", "id": "codex-api-key", "vars": [{"name": "CODEX_API_KEY"}]},
            {"type": "env_var", "id": "openai-api-key", "vars": [{"name": "OPENAI_API_KEY"}]},
        ]});
        let usable = usable_auth_methods(&init, &|v| v == "OPENAI_API_KEY");
        assert_eq!(usable, ["openai-api-key"]);
    }
}
