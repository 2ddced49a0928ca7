//! The Anthropic Messages API (`POST /v1/messages`): requests into the
//! loop's terms, responses and stream events out.
//!
//! Accepted as the real API accepts them: `system` as a string or a list of
//! text blocks; content as a string or blocks; `tool_result` content as a
//! string or blocks; `cache_control` and other block fields ignored;
//! `thinking`, `redacted_thinking`, `image`, `document` and `search_result`
//! blocks skipped (they carry nothing the mock reads); messages with role
//! `system` inside `messages` (Claude Code sends them, its reminders
//! among them) kept where they stand, as a text block at the end of the
//! user message before them (else after them), so the model reads them
//! in place and the user/assistant alternation holds; unknown top-level
//! fields ignored.

use serde_json::{Value, json};

use super::BadRequest;
use super::fields::{self, Object, join};
use super::record::{WireRequest, normalize_task_message};
use super::sse::{DELTA_CHARS, SseEvent, chunks};
use crate::llm::{Content, ContentBlock, Message, ModelResponse, Role, StopReason, ToolSchema};
use crate::plan::pyrepr::json_kind;

/// Block types that carry nothing the mock reads.
const SKIPPED_BLOCKS: [&str; 6] = [
    "thinking",
    "redacted_thinking",
    "image",
    "document",
    "search_result",
    "container_upload",
];

/// Token counts reported back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
}

/// Reads a Messages API request body.
pub fn parse_request(body: &[u8]) -> Result<WireRequest, BadRequest> {
    let obj = fields::body_object(body)?;
    let head = parse_head(&obj)?;
    let raw = fields::array(fields::required(&obj, "messages", "")?, "messages")?;
    if raw.is_empty() {
        return Err(BadRequest::new(
            "messages: at least one message is required",
        ));
    }
    let mut messages = Vec::with_capacity(raw.len());
    // System messages inside the conversation, with the number of user and
    // assistant messages before each.
    let mut in_conversation = Vec::new();
    for (i, message) in raw.iter().enumerate() {
        match parse_element(message, i)? {
            Element::Message(message) => messages.push(message),
            Element::System(text) => in_conversation.push((messages.len(), text)),
        }
    }
    place_system_texts(&mut messages, in_conversation);
    normalize_task_message(&mut messages);
    let mut error_results: Vec<String> = raw.iter().flat_map(flagged_ids).collect();
    error_results.sort();
    error_results.dedup();
    Ok(head.into_request(messages, error_results))
}

/// A request's fields other than its messages.
#[derive(Debug)]
pub(super) struct Head {
    model: Option<String>,
    stream: bool,
    system: String,
    tools: Vec<ToolSchema>,
}

impl Head {
    pub(super) fn into_request(
        self,
        messages: Vec<Message>,
        error_results: Vec<String>,
    ) -> WireRequest {
        WireRequest {
            system: self.system,
            messages,
            tools: self.tools,
            stream: self.stream,
            stream_usage: false,
            model: self.model,
            error_results,
            late_system: Vec::new(),
        }
    }
}

/// Reads the fields other than `messages`, in the order errors are
/// reported.
pub(super) fn parse_head(obj: &Object) -> Result<Head, BadRequest> {
    let model = fields::optional_str(obj, "model", "")?.map(str::to_string);
    let stream = fields::optional_bool(obj, "stream", "")?;
    let system = match fields::optional(obj, "system") {
        None => String::new(),
        Some(value) => system_text(value)?,
    };
    let tools = fields::optional_array(obj, "tools", "")?
        .iter()
        .enumerate()
        .map(|(i, tool)| parse_tool(tool, &format!("tools.{i}")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Head {
        model,
        stream,
        system,
        tools,
    })
}

/// One element of `messages`: a user or assistant message, or the text of
/// a `system` message (placed by [`place_system_texts`]).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Element {
    Message(Message),
    System(String),
}

/// Reads element `i` of `messages`.
pub(super) fn parse_element(message: &Value, i: usize) -> Result<Element, BadRequest> {
    let path = format!("messages.{i}");
    let message = fields::object(message, &path)?;
    let role = fields::required_str(message, "role", &path)?;
    let content = fields::required(message, "content", &path)?;
    let content_path = join(&path, "content");
    match role {
        "user" | "assistant" => {
            let role = if role == "user" {
                Role::User
            } else {
                Role::Assistant
            };
            Ok(Element::Message(Message {
                role,
                content: parse_content(content, &content_path)?,
            }))
        }
        "system" => Ok(Element::System(system_text(content)?)),
        other => Err(BadRequest::new(format!(
            "{path}.role: unexpected role `{other}` (user, assistant or system)"
        ))),
    }
}

/// The ids of the tool results of one element of `messages` that the
/// client flagged as errors (`is_error: true`), in order.
pub(super) fn flagged_ids(message: &Value) -> Vec<String> {
    let Some(Value::Array(blocks)) = message.get("content") else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|block| {
            block.get("type").and_then(Value::as_str) == Some("tool_result")
                && block.get("is_error") == Some(&Value::Bool(true))
        })
        .filter_map(|block| block.get("tool_use_id").and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// Puts the text of each `system` message found inside `messages` into the
/// conversation where it stood, as a text block at the end of a user
/// message: the user message before it, else the one after it, else a new
/// user message. The model sees it where the client put it, the
/// alternation of user and assistant is kept, and tool results stay first.
fn place_system_texts(messages: &mut Vec<Message>, texts: Vec<(usize, String)>) {
    let mut inserted = 0;
    for (position, text) in texts {
        let at = position + inserted;
        let block = ContentBlock::text(text);
        let is_user = |index: usize| messages.get(index).is_some_and(|m| m.role == Role::User);
        let target = match at.checked_sub(1) {
            Some(before) if is_user(before) => Some(before),
            _ if is_user(at) => Some(at),
            _ => None,
        };
        match target.and_then(|index| messages.get_mut(index)) {
            Some(message) => push_block(message, block),
            None => {
                messages.insert(at, Message::blocks(Role::User, vec![block]));
                inserted += 1;
            }
        }
    }
}

pub(super) fn push_block(message: &mut Message, block: ContentBlock) {
    match &mut message.content {
        Content::Blocks(blocks) => blocks.push(block),
        Content::Text(text) => {
            message.content =
                Content::Blocks(vec![ContentBlock::text(std::mem::take(text)), block]);
        }
    }
}

fn system_text(value: &Value) -> Result<String, BadRequest> {
    fields::text_or_parts(value, "system")
}

fn parse_tool(tool: &Value, path: &str) -> Result<ToolSchema, BadRequest> {
    let tool = fields::object(tool, path)?;
    let name = fields::required_str(tool, "name", path)?;
    let description = fields::optional_str(tool, "description", path)?.unwrap_or("");
    // Server tools (`{"type": "web_search_20250305", "name": ...}`) have no
    // input schema.
    let input_schema = fields::optional(tool, "input_schema")
        .cloned()
        .unwrap_or_else(|| json!({"type": "object"}));
    Ok(ToolSchema {
        name: name.to_string().into(),
        description: description.to_string().into(),
        input_schema,
    })
}

fn parse_content(content: &Value, path: &str) -> Result<Content, BadRequest> {
    match content {
        Value::String(text) => Ok(Content::Text(text.clone())),
        Value::Array(blocks) => {
            let mut parsed = Vec::with_capacity(blocks.len());
            for (i, block) in blocks.iter().enumerate() {
                if let Some(block) = parse_block(block, &join(path, &i.to_string()))? {
                    parsed.push(block);
                }
            }
            Ok(Content::Blocks(parsed))
        }
        other => Err(BadRequest::new(format!(
            "{path}: expected a string or an array of content blocks, got {}",
            json_kind(other)
        ))),
    }
}

fn parse_block(block: &Value, path: &str) -> Result<Option<ContentBlock>, BadRequest> {
    let block: &Object = fields::object(block, path)?;
    let kind = fields::required_str(block, "type", path)?;
    Ok(Some(match kind {
        "text" => ContentBlock::Text {
            text: fields::required_str(block, "text", path)?.to_string(),
        },
        "tool_use" | "server_tool_use" => ContentBlock::ToolUse {
            id: fields::required_str(block, "id", path)?.to_string(),
            name: fields::required_str(block, "name", path)?.to_string(),
            input: fields::optional(block, "input")
                .cloned()
                .unwrap_or_else(|| json!({}))
                .into(),
        },
        "tool_result" => ContentBlock::ToolResult {
            tool_use_id: fields::required_str(block, "tool_use_id", path)?.to_string(),
            content: match fields::optional(block, "content") {
                None => String::new(),
                Some(content) => fields::text_or_parts(content, &join(path, "content"))?,
            },
            is_error: false,
        },
        skipped if SKIPPED_BLOCKS.contains(&skipped) => return Ok(None),
        other => {
            return Err(BadRequest::new(format!(
                "{path}.type: unknown content block type `{other}`"
            )));
        }
    }))
}

/// The name of the first call whose input is a string (a freeform call,
/// which only the Responses API can carry).
pub fn freeform_call(response: &ModelResponse) -> Option<&str> {
    response.content.iter().find_map(|block| match block {
        ContentBlock::ToolUse { name, input, .. } if input.is_string() => Some(name.as_str()),
        _ => None,
    })
}

fn stop_reason(reason: StopReason) -> &'static str {
    match reason {
        StopReason::EndTurn => "end_turn",
        StopReason::ToolUse => "tool_use",
    }
}

fn usage_json(usage: Usage) -> Value {
    json!({
        "input_tokens": usage.input,
        "output_tokens": usage.output,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    })
}

/// The non-streaming response body.
pub fn response_json(response: &ModelResponse, id: &str, model: &str, usage: Usage) -> Value {
    json!({
        "id": id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": response.content,
        "stop_reason": stop_reason(response.stop_reason),
        "stop_sequence": null,
        "usage": usage_json(usage),
    })
}

/// The stream of a response, as `messages.stream` and `create(stream=True)`
/// read it.
pub fn response_events(
    response: &ModelResponse,
    id: &str,
    model: &str,
    usage: Usage,
) -> Vec<SseEvent> {
    let mut events = vec![SseEvent::named(
        "message_start",
        &json!({
            "type": "message_start",
            "message": {
                "id": id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": usage_json(Usage { input: usage.input, output: 1 }),
            },
        }),
    )];
    for (index, block) in response.content.iter().enumerate() {
        let (start, deltas): (Value, Vec<Value>) = match block {
            ContentBlock::Text { text } => (
                json!({"type": "text", "text": ""}),
                chunks(text, DELTA_CHARS)
                    .into_iter()
                    .map(|piece| json!({"type": "text_delta", "text": piece}))
                    .collect(),
            ),
            ContentBlock::ToolUse { id, name, input } => (
                json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                chunks(&input.to_string(), DELTA_CHARS)
                    .into_iter()
                    .map(|piece| json!({"type": "input_json_delta", "partial_json": piece}))
                    .collect(),
            ),
            // A model never answers with a tool result; send it as text
            // rather than an invalid block.
            ContentBlock::ToolResult { content, .. } => (
                json!({"type": "text", "text": ""}),
                vec![json!({"type": "text_delta", "text": content})],
            ),
        };
        events.push(SseEvent::named(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for delta in deltas {
            events.push(SseEvent::named(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        events.push(SseEvent::named(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push(SseEvent::named(
        "message_delta",
        &json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason(response.stop_reason), "stop_sequence": null},
            "usage": {"output_tokens": usage.output},
        }),
    ));
    events.push(SseEvent::named(
        "message_stop",
        &json!({"type": "message_stop"}),
    ));
    events
}

/// The API's error body.
pub fn error_json(status: u16, message: &str) -> Value {
    let kind = match status {
        404 => "not_found_error",
        413 => "request_too_large",
        405 | 400 | 422 => "invalid_request_error",
        _ => "api_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: Value) -> Result<WireRequest, BadRequest> {
        parse_request(value.to_string().as_bytes())
    }

    #[test]
    fn accepts_what_real_clients_send() {
        let request = parse(json!({
            "model": "m", "max_tokens": 10, "metadata": {"user_id": "u"},
            "thinking": {"type": "enabled", "budget_tokens": 5},
            "context_management": {}, "output_config": {}, "tool_choice": {"type": "auto"},
            "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
            "tools": [{"name": "bash", "description": "Run", "input_schema": {"type": "object"}},
                      {"type": "web_search_20250305", "name": "web_search"}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "task", "cache_control": {"type": "ephemeral"}}]},
                {"role": "system", "content": "early note"},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "s"},
                    {"type": "tool_use", "id": "toolu_1_1", "name": "bash", "input": {"command": "ls"}},
                    {"type": "tool_use", "id": "toolu_1_2", "name": "bash", "input": {"command": "pwd"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1_1", "content": [{"type": "text", "text": "a"}]},
                    {"type": "tool_result", "tool_use_id": "toolu_1_2", "content": "b", "is_error": true}]},
                {"role": "system", "content": "<system-reminder>late</system-reminder>"}
            ]
        }))
        .unwrap();
        assert_eq!(request.system, "sys");
        assert_eq!(
            request.messages[0],
            Message::blocks(
                Role::User,
                vec![ContentBlock::text("task"), ContentBlock::text("early note")]
            )
        );
        assert_eq!(request.messages.len(), 3);
        assert_eq!(
            request.messages[2].content_blocks().last(),
            Some(&ContentBlock::text(
                "<system-reminder>late</system-reminder>"
            ))
        );
        assert_eq!(request.messages[1].content_blocks().len(), 2);
        assert_eq!(request.tools.len(), 2);
        assert_eq!(request.error_results, ["toolu_1_2"]);
        assert_eq!(
            request.added_texts(),
            ["a", "b", "<system-reminder>late</system-reminder>"]
        );
    }

    #[test]
    fn system_messages_stay_where_they_stand() {
        let request = parse(json!({"messages": [
            {"role": "system", "content": "first"},
            {"role": "user", "content": "task"},
            {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
            {"role": "system", "content": "between"},
            {"role": "assistant", "content": [{"type": "text", "text": "b"}]},
            {"role": "system", "content": "last"}
        ]}))
        .unwrap();
        let texts: Vec<Vec<&str>> = request
            .messages
            .iter()
            .map(|m| m.texts().collect())
            .collect();
        assert_eq!(
            texts,
            [
                vec!["task", "first"],
                vec!["a"],
                vec!["between"],
                vec!["b"],
                vec!["last"]
            ]
        );
        assert_eq!(request.added_texts(), ["last"]);
        assert!(crate::llm::protocol::check(&request.messages).is_empty());
    }

    #[test]
    fn malformed_requests_name_the_field() {
        let cases = [
            (json!({"model": "m"}), "messages: field required"),
            (
                json!({"messages": []}),
                "messages: at least one message is required",
            ),
            (
                json!({"messages": "hi"}),
                "messages: expected an array, got a string",
            ),
            (
                json!({"messages": [{"role": "user"}]}),
                "messages.0.content: field required",
            ),
            (
                json!({"messages": [{"role": "bot", "content": "x"}]}),
                "messages.0.role: unexpected role `bot` (user, assistant or system)",
            ),
            (
                json!({"messages": [{"role": "user", "content": [{"type": "magic"}]}]}),
                "messages.0.content.0.type: unknown content block type `magic`",
            ),
            (
                json!({"messages": [{"role": "user", "content": 5}]}),
                "messages.0.content: expected a string or an array of content blocks, got a number",
            ),
            (
                json!({"stream": "yes", "messages": [{"role": "user", "content": "x"}]}),
                "stream: expected a boolean, got a string",
            ),
        ];
        for (body, message) in cases {
            assert_eq!(parse(body).unwrap_err().message, message);
        }
    }

    #[test]
    fn stream_events_rebuild_the_response() {
        let response = ModelResponse::from_blocks(vec![
            ContentBlock::text("x".repeat(100)),
            ContentBlock::ToolUse {
                id: "toolu_1_1".into(),
                name: "bash".into(),
                input: json!({"command": "y".repeat(80)}).into(),
            },
        ]);
        let events = response_events(
            &response,
            "msg_1",
            "m",
            Usage {
                input: 3,
                output: 4,
            },
        );
        let names: Vec<&str> = events.iter().filter_map(|e| e.event).collect();
        assert_eq!(names.first(), Some(&"message_start"));
        assert_eq!(names.last(), Some(&"message_stop"));
        let mut text = String::new();
        let mut json_text = String::new();
        for event in &events {
            let data: Value = serde_json::from_str(&event.data).unwrap();
            match data["delta"]["type"].as_str() {
                Some("text_delta") => text.push_str(data["delta"]["text"].as_str().unwrap()),
                Some("input_json_delta") => {
                    json_text.push_str(data["delta"]["partial_json"].as_str().unwrap())
                }
                _ => {}
            }
        }
        assert_eq!(text, "x".repeat(100));
        assert_eq!(
            serde_json::from_str::<Value>(&json_text).unwrap(),
            json!({"command": "y".repeat(80)})
        );
    }
}
