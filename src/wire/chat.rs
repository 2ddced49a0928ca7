//! The OpenAI Chat Completions API (`POST /v1/chat/completions`).
//!
//! In: `system` and `developer` messages become the system prompt;
//! `assistant` messages (text and `tool_calls`) become assistant messages
//! with `tool_use` blocks; `tool` messages become `tool_result` blocks and
//! `user` messages text blocks, adjacent ones merged into one user message
//! in order. Call ids `call_<t>_<k>` are read back as the model's
//! `toolu_<t>_<k>`. Out: `tool_calls` with ids `call_<t>_<k>` and
//! `arguments` as a JSON string, `finish_reason` `tool_calls` or `stop`;
//! streaming as `chat.completion.chunk`s ending in `data: [DONE]`, with a
//! usage chunk when `stream_options.include_usage` is set.

use serde_json::{Value, json};

use super::anthropic::Usage;
use super::fields::{self, join};
use super::record::{WireRequest, merge_same_role, normalize_task_message};
use super::sse::{DELTA_CHARS, SseEvent, chunks};
use super::{BadRequest, model_call_id, openai_call_id};
use crate::llm::{ContentBlock, Message, ModelResponse, Role, StopReason, ToolSchema};

/// Reads a Chat Completions request body.
pub fn parse_request(body: &[u8]) -> Result<WireRequest, BadRequest> {
    let obj = fields::body_object(body)?;
    let model = fields::optional_str(&obj, "model", "")?.map(str::to_string);
    let stream = fields::optional_bool(&obj, "stream", "")?;
    let stream_usage = match fields::optional(&obj, "stream_options") {
        Some(options) => fields::optional_bool(
            fields::object(options, "stream_options")?,
            "include_usage",
            "stream_options",
        )?,
        None => false,
    };
    let tools = fields::optional_array(&obj, "tools", "")?
        .iter()
        .enumerate()
        .map(|(i, tool)| parse_tool(tool, &format!("tools.{i}")))
        .collect::<Result<Vec<_>, _>>()?;
    let raw = fields::array(fields::required(&obj, "messages", "")?, "messages")?;
    if raw.is_empty() {
        return Err(BadRequest::new(
            "messages: at least one message is required",
        ));
    }
    let mut system = Vec::new();
    let mut late_system = Vec::new();
    let mut messages = Vec::new();
    for (i, message) in raw.iter().enumerate() {
        let path = format!("messages.{i}");
        let message = fields::object(message, &path)?;
        let role = fields::required_str(message, "role", &path)?;
        let content_path = join(&path, "content");
        let text = match fields::optional(message, "content") {
            Some(content) => fields::text_or_parts(content, &content_path)?,
            None => String::new(),
        };
        match role {
            "system" | "developer" => {
                late_system.push((i, text.clone()));
                system.push(text);
            }
            "user" => messages.push(Message::blocks(Role::User, vec![ContentBlock::text(text)])),
            "tool" => {
                let id = fields::required_str(message, "tool_call_id", &path)?;
                messages.push(Message::blocks(
                    Role::User,
                    vec![ContentBlock::ToolResult {
                        tool_use_id: model_call_id(id),
                        content: text,
                        is_error: false,
                    }],
                ));
            }
            "assistant" => {
                let mut blocks = Vec::new();
                if !text.is_empty() {
                    blocks.push(ContentBlock::text(text));
                }
                for (k, call) in fields::optional_array(message, "tool_calls", &path)?
                    .iter()
                    .enumerate()
                {
                    blocks.push(parse_tool_call(call, &format!("{path}.tool_calls.{k}"))?);
                }
                messages.push(Message::blocks(Role::Assistant, blocks));
            }
            other => {
                return Err(BadRequest::new(format!(
                    "{path}.role: unexpected role `{other}` (system, developer, user, assistant or tool)"
                )));
            }
        }
    }
    let mut messages = merge_same_role(messages);
    normalize_task_message(&mut messages);
    let late_system = system_texts_after_last_assistant(raw, late_system);
    Ok(WireRequest {
        system: system.join("\n\n"),
        messages,
        tools,
        stream,
        stream_usage,
        model,
        error_results: Vec::new(),
        late_system,
    })
}

/// An assistant message's `tool_calls` entry (a function call with JSON
/// arguments, or a `custom` freeform call with a string input) as a
/// `tool_use` block.
fn parse_tool_call(call: &Value, call_path: &str) -> Result<ContentBlock, BadRequest> {
    let call = fields::object(call, call_path)?;
    let id = fields::required_str(call, "id", call_path)?;
    let (name, input) = match fields::optional(call, "custom") {
        Some(custom) => {
            let custom_path = join(call_path, "custom");
            let custom = fields::object(custom, &custom_path)?;
            let input = fields::optional_str(custom, "input", &custom_path)?.unwrap_or("");
            (
                fields::required_str(custom, "name", &custom_path)?,
                Value::String(input.to_string()),
            )
        }
        None => {
            let function_path = join(call_path, "function");
            let function = fields::object(
                fields::required(call, "function", call_path)?,
                &function_path,
            )?;
            let arguments =
                fields::optional_str(function, "arguments", &function_path)?.unwrap_or("{}");
            (
                fields::required_str(function, "name", &function_path)?,
                fields::arguments_value(arguments),
            )
        }
    };
    Ok(ContentBlock::ToolUse {
        id: model_call_id(id),
        name: name.to_string(),
        input: input.into(),
    })
}

/// System and developer messages after the last assistant message are new
/// content too (a client may send its reminders that way): their texts, in
/// order; none when no assistant message was sent.
fn system_texts_after_last_assistant(
    raw: &[Value],
    late_system: Vec<(usize, String)>,
) -> Vec<String> {
    let last_assistant = raw
        .iter()
        .rposition(|m| m.get("role").and_then(Value::as_str) == Some("assistant"));
    let Some(last) = last_assistant else {
        return Vec::new();
    };
    late_system
        .into_iter()
        .filter(|(position, _)| *position > last)
        .map(|(_, text)| text)
        .collect()
}

fn parse_tool(tool: &Value, path: &str) -> Result<ToolSchema, BadRequest> {
    let tool = fields::object(tool, path)?;
    let kind = fields::optional_str(tool, "type", path)?.unwrap_or("function");
    let inner_path = join(path, kind);
    // Built-in tool types without a definition object are named by type.
    let Some(inner) = fields::optional(tool, kind) else {
        return Ok(ToolSchema {
            name: kind.to_string().into(),
            description: "".into(),
            input_schema: json!({"type": "object"}),
        });
    };
    let inner = fields::object(inner, &inner_path)?;
    let name = fields::required_str(inner, "name", &inner_path)?;
    let description = fields::optional_str(inner, "description", &inner_path)?.unwrap_or("");
    let input_schema = fields::optional(inner, "parameters")
        .cloned()
        .unwrap_or_else(|| json!({"type": "object"}));
    Ok(ToolSchema {
        name: name.to_string().into(),
        description: description.to_string().into(),
        input_schema,
    })
}

fn finish_reason(reason: StopReason) -> &'static str {
    match reason {
        StopReason::EndTurn => "stop",
        StopReason::ToolUse => "tool_calls",
    }
}

fn text_of(response: &ModelResponse) -> Option<String> {
    let texts: Vec<&str> = response
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    (!texts.is_empty()).then(|| texts.concat())
}

fn tool_calls(response: &ModelResponse) -> Vec<Value> {
    response
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => Some(json!({
                "id": openai_call_id(id),
                "type": "function",
                "function": {"name": name, "arguments": input.to_string()},
            })),
            _ => None,
        })
        .collect()
}

fn usage_json(usage: Usage) -> Value {
    json!({
        "prompt_tokens": usage.input,
        "completion_tokens": usage.output,
        "total_tokens": usage.input + usage.output,
    })
}

/// The non-streaming response body (`created` is fixed: no clock).
pub fn response_json(response: &ModelResponse, id: &str, model: &str, usage: Usage) -> Value {
    let calls = tool_calls(response);
    let mut message = json!({
        "role": "assistant",
        "content": text_of(response),
        "refusal": null,
    });
    if !calls.is_empty() {
        fields::set(&mut message, "tool_calls", Value::Array(calls));
    }
    json!({
        "id": id,
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": finish_reason(response.stop_reason),
        }],
        "usage": usage_json(usage),
    })
}

/// The stream of a response.
pub fn response_events(
    response: &ModelResponse,
    id: &str,
    model: &str,
    usage: Usage,
    include_usage: bool,
) -> Vec<SseEvent> {
    let chunk = |delta: Value, finish: Option<&str>| {
        let mut chunk = json!({
            "id": id,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        if include_usage {
            fields::set(&mut chunk, "usage", Value::Null);
        }
        SseEvent::data(chunk.to_string())
    };
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    if let Some(text) = text_of(response) {
        for piece in chunks(&text, DELTA_CHARS) {
            events.push(chunk(json!({"content": piece}), None));
        }
    }
    let mut index = 0;
    for block in &response.content {
        let ContentBlock::ToolUse { id, name, input } = block else {
            continue;
        };
        events.push(chunk(
            json!({"tool_calls": [{
                "index": index, "id": openai_call_id(id), "type": "function",
                "function": {"name": name, "arguments": ""},
            }]}),
            None,
        ));
        for piece in chunks(&input.to_string(), DELTA_CHARS) {
            events.push(chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                None,
            ));
        }
        index += 1;
    }
    events.push(chunk(json!({}), Some(finish_reason(response.stop_reason))));
    if include_usage {
        events.push(SseEvent::data(
            json!({
                "id": id,
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [],
                "usage": usage_json(usage),
            })
            .to_string(),
        ));
    }
    events.push(SseEvent::data("[DONE]"));
    events
}

/// The OpenAI error body (shared by the Responses API).
pub fn error_json(status: u16, message: &str) -> Value {
    let (kind, code) = match status {
        404 => ("invalid_request_error", Value::String("not_found".into())),
        413 => (
            "invalid_request_error",
            Value::String("request_too_large".into()),
        ),
        400 | 405 | 422 => ("invalid_request_error", Value::Null),
        _ => ("server_error", Value::Null),
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One token each way.
    const ONE_EACH: Usage = Usage {
        input: 1,
        output: 1,
    };
    use crate::llm::Content;

    #[test]
    fn a_tool_round_trip_reads_as_the_loop_writes_it() {
        let body = json!({
            "model": "m",
            "stream": true,
            "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}],
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "task"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}]},
                {"role": "tool", "tool_call_id": "call_1_1", "content": "out"},
                {"role": "user", "content": "<reminder>Update your todos.</reminder>"}
            ]
        });
        let request = parse_request(body.to_string().as_bytes()).unwrap();
        assert_eq!(request.system, "sys");
        assert!(request.stream && request.stream_usage);
        assert_eq!(request.messages.len(), 3);
        assert_eq!(request.messages[0].content, Content::Text("task".into()));
        assert_eq!(
            request.messages[1].content_blocks(),
            [ContentBlock::ToolUse {
                id: "toolu_1_1".into(),
                name: "bash".into(),
                input: json!({"command": "ls"}).into()
            }]
        );
        assert_eq!(
            request.messages[2].content_blocks(),
            [
                ContentBlock::ToolResult {
                    tool_use_id: "toolu_1_1".into(),
                    content: "out".into(),
                    is_error: false
                },
                ContentBlock::text("<reminder>Update your todos.</reminder>")
            ]
        );
        assert_eq!(request.added_texts().len(), 2);
    }

    #[test]
    fn streamed_calls_carry_index_id_and_arguments() {
        let response = ModelResponse::from_blocks(vec![ContentBlock::ToolUse {
            id: "toolu_2_1".into(),
            name: "bash".into(),
            input: json!({"command": "ls"}).into(),
        }]);
        let events = response_events(&response, "c", "m", ONE_EACH, true);
        assert_eq!(events.last().unwrap().data, "[DONE]");
        let parsed: Vec<Value> = events[..events.len() - 1]
            .iter()
            .map(|e| serde_json::from_str(&e.data).unwrap())
            .collect();
        assert_eq!(
            parsed[1]["choices"][0]["delta"]["tool_calls"][0]["id"],
            "call_2_1"
        );
        let finish = &parsed[parsed.len() - 2];
        assert_eq!(finish["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(parsed.last().unwrap()["usage"]["total_tokens"], 2);
    }
}
