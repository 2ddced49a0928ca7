//! The OpenAI Responses API (`POST /v1/responses`), the API of the Codex
//! CLI and the default of OpenAI's Agents SDK.
//!
//! In: `instructions` and `system`/`developer` message items become the
//! system prompt; `input` is a string (the task) or a list of items:
//! `message` (roles user, assistant, system, developer; `type` may be
//! left out), `function_call` / `custom_tool_call` (assistant tool calls),
//! `function_call_output` / `custom_tool_call_output` (tool results);
//! `reasoning` and `item_reference` items are ignored. Adjacent items of
//! one side are merged into one message, in order. `previous_response_id`
//! is not supported (the mock keeps no conversation state): clients must
//! send the whole input, as Codex does (`store: false`).
//!
//! Out: a text as a `message` item with one `output_text` part; a call as
//! a `function_call` item (`call_id` `call_<t>_<k>`, `arguments` a JSON
//! string), or, when the scripted input is a string, as a
//! `custom_tool_call` item carrying that `input` (a freeform call such as
//! Codex's `apply_patch`). Streaming sends `response.created`,
//! `response.in_progress`, per item `response.output_item.added`, the
//! content part and delta events, `response.output_item.done`, then
//! `response.completed` with `usage`; every event has a `sequence_number`.

use serde_json::{Value, json};

use super::anthropic::Usage;
use super::fields::{self, join};
use super::record::{WireRequest, merge_same_role, normalize_task_message};
use super::sse::{DELTA_CHARS, SseEvent, chunks};
use super::{BadRequest, model_call_id, openai_call_id};
use crate::llm::{ContentBlock, Message, ModelResponse, Role, ToolSchema};
use crate::plan::pyrepr::json_kind;

/// Items that carry nothing the mock reads (reasoning, references, and
/// calls of hosted tools the mock never makes).
const IGNORED_ITEMS: [&str; 14] = [
    "reasoning",
    "item_reference",
    "compaction",
    "web_search_call",
    "file_search_call",
    "image_generation_call",
    "code_interpreter_call",
    "computer_call",
    "computer_call_output",
    "local_shell_call",
    "local_shell_call_output",
    "tool_search_call",
    "tool_search_output",
    "mcp_list_tools",
];

/// Reads a Responses API request body.
pub fn parse_request(body: &[u8]) -> Result<WireRequest, BadRequest> {
    let obj = fields::body_object(body)?;
    let model = fields::optional_str(&obj, "model", "")?.map(str::to_string);
    let stream = fields::optional_bool(&obj, "stream", "")?;
    if fields::optional(&obj, "previous_response_id").is_some() {
        return Err(BadRequest::new(
            "previous_response_id: not supported by the mock (it keeps no state); send the whole input",
        ));
    }
    let mut read = InputRead::default();
    if let Some(instructions) = fields::optional_str(&obj, "instructions", "")? {
        read.system.push(instructions.to_string());
    }
    read.tools = fields::optional_array(&obj, "tools", "")?
        .iter()
        .enumerate()
        .map(|(i, tool)| parse_tool(tool, &format!("tools.{i}")))
        .collect::<Result<Vec<_>, _>>()?;
    let input = fields::required(&obj, "input", "")?;
    match input {
        Value::String(task) => read.messages.push(Message::user_text(task.clone())),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                read.item(i, item)?;
            }
        }
        other => {
            return Err(BadRequest::new(format!(
                "input: expected a string or an array of items, got {}",
                json_kind(other)
            )));
        }
    }
    if read.messages.is_empty() {
        return Err(BadRequest::new("input: no user or assistant content"));
    }
    let mut messages = merge_same_role(read.messages);
    normalize_task_message(&mut messages);
    let late_system = system_texts_after_last_assistant(input, read.late_system);
    Ok(WireRequest {
        system: read.system.join("\n\n"),
        messages,
        tools: read.tools,
        stream,
        stream_usage: false,
        model,
        error_results: Vec::new(),
        late_system,
    })
}

/// What the request's `instructions`, `tools` and `input` items have given
/// so far, in order.
#[derive(Default)]
struct InputRead {
    system: Vec<String>,
    tools: Vec<ToolSchema>,
    messages: Vec<Message>,
    /// System or developer messages among the input items, with their
    /// item index: those after the last assistant item are new texts.
    late_system: Vec<(usize, String)>,
}

impl InputRead {
    /// Reads input item `i` (a message, a call, a call's output, more
    /// tools, or an item the mock ignores).
    fn item(&mut self, i: usize, item: &Value) -> Result<(), BadRequest> {
        let path = format!("input.{i}");
        let item = fields::object(item, &path)?;
        let kind = fields::optional_str(item, "type", &path)?.unwrap_or("message");
        match kind {
            "message" => self.message(i, item, &path)?,
            "function_call" => {
                let arguments = fields::optional_str(item, "arguments", &path)?.unwrap_or("{}");
                self.call(item, &path, fields::arguments_value(arguments))?;
            }
            "custom_tool_call" => {
                let input = fields::optional_str(item, "input", &path)?.unwrap_or("");
                self.call(item, &path, Value::String(input.to_string()))?;
            }
            "function_call_output" | "custom_tool_call_output" => {
                let output = match fields::optional(item, "output") {
                    Some(output) => fields::text_or_parts(output, &join(&path, "output"))?,
                    None => String::new(),
                };
                self.messages.push(Message::blocks(
                    Role::User,
                    vec![ContentBlock::ToolResult {
                        tool_use_id: model_call_id(fields::required_str(item, "call_id", &path)?),
                        content: output,
                        is_error: false,
                    }],
                ));
            }
            // Codex's "code mode" offers its tools in an input item.
            "additional_tools" => {
                for (k, tool) in fields::optional_array(item, "tools", &path)?
                    .iter()
                    .enumerate()
                {
                    add_tools(&mut self.tools, tool, &format!("{path}.tools.{k}"))?;
                }
            }
            ignored if IGNORED_ITEMS.contains(&ignored) => {}
            other => {
                return Err(BadRequest::new(format!(
                    "{path}.type: unknown input item type `{other}`"
                )));
            }
        }
        Ok(())
    }

    /// A `message` item: user and assistant text join the conversation
    /// (an empty assistant text is dropped), system and developer text the
    /// system prompt.
    fn message(&mut self, i: usize, item: &fields::Object, path: &str) -> Result<(), BadRequest> {
        let role = fields::required_str(item, "role", path)?;
        let text = fields::text_or_parts(
            fields::required(item, "content", path)?,
            &join(path, "content"),
        )?;
        match role {
            "user" => self
                .messages
                .push(Message::blocks(Role::User, vec![ContentBlock::text(text)])),
            "assistant" => {
                if !text.is_empty() {
                    self.messages.push(Message::blocks(
                        Role::Assistant,
                        vec![ContentBlock::text(text)],
                    ));
                }
            }
            "system" | "developer" => {
                self.late_system.push((i, text.clone()));
                self.system.push(text);
            }
            other => {
                return Err(BadRequest::new(format!(
                    "{path}.role: unexpected role `{other}` (user, assistant, system or developer)"
                )));
            }
        }
        Ok(())
    }

    /// An assistant tool call (`function_call` or `custom_tool_call`) with
    /// its input already read.
    fn call(&mut self, item: &fields::Object, path: &str, input: Value) -> Result<(), BadRequest> {
        self.messages.push(Message::blocks(
            Role::Assistant,
            vec![ContentBlock::ToolUse {
                id: model_call_id(fields::required_str(item, "call_id", path)?),
                name: fields::required_str(item, "name", path)?.to_string(),
                input: input.into(),
            }],
        ));
        Ok(())
    }
}

/// The system and developer texts sent after the last assistant item (a
/// reminder a client adds mid-conversation), in order; none when the input
/// is a string or has no assistant item.
fn system_texts_after_last_assistant(
    input: &Value,
    late_system: Vec<(usize, String)>,
) -> Vec<String> {
    let Value::Array(items) = input else {
        return Vec::new();
    };
    let last_assistant = items.iter().rposition(|item| {
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message");
        matches!(kind, "function_call" | "custom_tool_call")
            || (kind == "message" && item.get("role").and_then(Value::as_str) == Some("assistant"))
    });
    let Some(last) = last_assistant else {
        return Vec::new();
    };
    late_system
        .into_iter()
        .filter(|(position, _)| *position > last)
        .map(|(_, text)| text)
        .collect()
}

/// Adds a tool, or every tool of a `namespace` tool.
fn add_tools(tools: &mut Vec<ToolSchema>, tool: &Value, path: &str) -> Result<(), BadRequest> {
    let object = fields::object(tool, path)?;
    if let Some(Value::Array(inner)) = fields::optional(object, "tools") {
        for (k, tool) in inner.iter().enumerate() {
            add_tools(tools, tool, &format!("{path}.tools.{k}"))?;
        }
        return Ok(());
    }
    tools.push(parse_tool(tool, path)?);
    Ok(())
}

fn parse_tool(tool: &Value, path: &str) -> Result<ToolSchema, BadRequest> {
    let tool = fields::object(tool, path)?;
    let kind = fields::optional_str(tool, "type", path)?.unwrap_or("function");
    // Built-in tools (`web_search`, `local_shell`, ...) are named by type.
    let name = fields::optional_str(tool, "name", path)?.unwrap_or(kind);
    let description = fields::optional_str(tool, "description", path)?.unwrap_or("");
    let input_schema = match kind {
        "function" => fields::optional(tool, "parameters")
            .cloned()
            .unwrap_or_else(|| json!({"type": "object"})),
        // A freeform tool takes a string; keep its grammar for the record.
        _ => {
            json!({"type": "string", "format": fields::optional(tool, "format").cloned().unwrap_or(Value::Null)})
        }
    };
    Ok(ToolSchema {
        name: name.to_string().into(),
        description: description.to_string().into(),
        input_schema,
    })
}

fn usage_json(usage: Usage) -> Value {
    json!({
        "input_tokens": usage.input,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": usage.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.input + usage.output,
    })
}

/// The response's output items, finished.
fn output_items(response: &ModelResponse, id: &str) -> Vec<Value> {
    let mut items = Vec::new();
    for (index, block) in response.content.iter().enumerate() {
        items.push(match block {
            ContentBlock::Text { text } => json!({
                "type": "message",
                "id": format!("msg_{id}_{index}"),
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
            }),
            ContentBlock::ToolUse {
                id: call_id,
                name,
                input,
            } if input.is_string() => json!({
                "type": "custom_tool_call",
                "id": format!("ctc_{id}_{index}"),
                "status": "completed",
                "call_id": openai_call_id(call_id),
                "name": name,
                "input": input,
            }),
            ContentBlock::ToolUse {
                id: call_id,
                name,
                input,
            } => json!({
                "type": "function_call",
                "id": format!("fc_{id}_{index}"),
                "status": "completed",
                "call_id": openai_call_id(call_id),
                "name": name,
                "arguments": input.to_string(),
            }),
            ContentBlock::ToolResult { content, .. } => json!({
                "type": "message",
                "id": format!("msg_{id}_{index}"),
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": content, "annotations": [], "logprobs": []}],
            }),
        });
    }
    items
}

fn response_object(
    id: &str,
    model: &str,
    status: &str,
    output: Vec<Value>,
    usage: Option<Usage>,
) -> Value {
    json!({
        "id": id,
        "object": "response",
        "created_at": 0,
        "status": status,
        "background": false,
        "error": null,
        "incomplete_details": null,
        "instructions": null,
        "max_output_tokens": null,
        "model": model,
        "output": output,
        "parallel_tool_calls": true,
        "previous_response_id": null,
        "reasoning": {"effort": null, "summary": null},
        "store": false,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage.map(usage_json),
        "user": null,
        "metadata": {},
    })
}

/// The non-streaming response body.
pub fn response_json(response: &ModelResponse, id: &str, model: &str, usage: Usage) -> Value {
    response_object(
        id,
        model,
        "completed",
        output_items(response, id),
        Some(usage),
    )
}

/// The stream of a response, as `responses.create(stream=True)` and
/// `responses.stream()` read it.
pub fn response_events(
    response: &ModelResponse,
    id: &str,
    model: &str,
    usage: Usage,
) -> Vec<SseEvent> {
    let mut stream = EventStream::default();
    stream.push(
        "response.created",
        json!({"response": response_object(id, model, "in_progress", Vec::new(), None)}),
    );
    stream.push(
        "response.in_progress",
        json!({"response": response_object(id, model, "in_progress", Vec::new(), None)}),
    );
    let items = output_items(response, id);
    for (index, item) in items.iter().enumerate() {
        let mut added = item.clone();
        fields::set(&mut added, "status", json!("in_progress"));
        match item["type"].as_str() {
            Some("message") => stream.message_item(index, item, added),
            Some("function_call") => stream.call_item(index, item, added, FUNCTION_CALL),
            _ => stream.call_item(index, item, added, CUSTOM_TOOL_CALL),
        }
        stream.push(
            "response.output_item.done",
            json!({"output_index": index, "item": item.clone()}),
        );
    }
    stream.push(
        "response.completed",
        json!({"response": response_object(id, model, "completed", items, Some(usage))}),
    );
    stream.events
}

/// Streamed events, each given its type and its `sequence_number` (its
/// place in the stream) as it is pushed.
#[derive(Default)]
struct EventStream {
    events: Vec<SseEvent>,
}

impl EventStream {
    fn push(&mut self, name: &'static str, mut data: Value) {
        fields::set(&mut data, "type", Value::String(name.to_string()));
        fields::set(&mut data, "sequence_number", json!(self.events.len()));
        self.events.push(SseEvent::named(name, &data));
    }

    /// A message item's events up to its `output_item.done`: the item
    /// added empty, its one text part added, the text in deltas, done.
    fn message_item(&mut self, index: usize, item: &Value, mut added: Value) {
        let item_id = item["id"].clone();
        fields::set(&mut added, "content", json!([]));
        self.push(
            "response.output_item.added",
            json!({"output_index": index, "item": added}),
        );
        let text = item
            .pointer("/content/0/text")
            .and_then(Value::as_str)
            .unwrap_or("");
        let empty_part =
            json!({"type": "output_text", "text": "", "annotations": [], "logprobs": []});
        self.push(
            "response.content_part.added",
            json!({"item_id": item_id, "output_index": index, "content_index": 0, "part": empty_part}),
        );
        for piece in chunks(text, DELTA_CHARS) {
            self.push(
                "response.output_text.delta",
                json!({"item_id": item_id, "output_index": index, "content_index": 0, "delta": piece, "logprobs": []}),
            );
        }
        self.push(
            "response.output_text.done",
            json!({"item_id": item_id, "output_index": index, "content_index": 0, "text": text, "logprobs": []}),
        );
        self.push(
            "response.content_part.done",
            json!({"item_id": item_id, "output_index": index, "content_index": 0, "part": item.pointer("/content/0").cloned().unwrap_or(Value::Null)}),
        );
    }

    /// A tool call's events up to its `output_item.done`: the item added
    /// with its text (`kind`'s field) empty, the text in deltas, done. A
    /// function call's done event also names the function.
    fn call_item(&mut self, index: usize, item: &Value, mut added: Value, kind: CallKind) {
        let item_id = item["id"].clone();
        fields::set(&mut added, kind.field, json!(""));
        self.push(
            "response.output_item.added",
            json!({"output_index": index, "item": added}),
        );
        let text = item[kind.field].as_str().unwrap_or("");
        for piece in chunks(text, DELTA_CHARS) {
            self.push(
                kind.delta,
                json!({"item_id": item_id, "output_index": index, "delta": piece}),
            );
        }
        let mut done = json!({"item_id": item_id, "output_index": index});
        if kind.named {
            fields::set(&mut done, "name", item["name"].clone());
        }
        fields::set(&mut done, kind.field, json!(text));
        self.push(kind.done, done);
    }
}

/// How one kind of tool call streams: the item field its text is in, the
/// names of its delta and done events, and whether done names the tool.
struct CallKind {
    field: &'static str,
    delta: &'static str,
    done: &'static str,
    named: bool,
}

/// A function call: its arguments (JSON text) in deltas.
const FUNCTION_CALL: CallKind = CallKind {
    field: "arguments",
    delta: "response.function_call_arguments.delta",
    done: "response.function_call_arguments.done",
    named: true,
};

/// A freeform (custom) tool call: its input in deltas.
const CUSTOM_TOOL_CALL: CallKind = CallKind {
    field: "input",
    delta: "response.custom_tool_call_input.delta",
    done: "response.custom_tool_call_input.done",
    named: false,
};

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
    fn codex_style_input_reads_as_the_loop_writes_it() {
        let body = json!({
            "model": "m", "instructions": "sys", "store": false, "stream": true,
            "tools": [{"type": "function", "name": "shell", "parameters": {"type": "object"}},
                      {"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}}],
            "input": [
                {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "dev"}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "task"}]},
                {"type": "reasoning", "summary": []},
                {"type": "function_call", "call_id": "call_1_1", "name": "shell", "arguments": "{\"cmd\":\"ls\"}"},
                {"type": "custom_tool_call", "call_id": "call_1_2", "name": "apply_patch", "input": "*** Begin Patch"},
                {"type": "function_call_output", "call_id": "call_1_1", "output": "a"},
                {"type": "custom_tool_call_output", "call_id": "call_1_2", "output": "ok"},
                {"role": "user", "content": "<reminder>x</reminder>"}
            ]
        });
        let request = parse_request(body.to_string().as_bytes()).unwrap();
        assert_eq!(request.system, "sys\n\ndev");
        assert_eq!(request.messages.len(), 3);
        assert_eq!(request.messages[0].content, Content::Text("task".into()));
        assert_eq!(
            request.messages[1].content_blocks()[1],
            ContentBlock::ToolUse {
                id: "toolu_1_2".into(),
                name: "apply_patch".into(),
                input: json!("*** Begin Patch").into()
            }
        );
        assert_eq!(request.messages[2].content_blocks().len(), 3);
        assert_eq!(request.added_texts(), ["a", "ok", "<reminder>x</reminder>"]);
        assert_eq!(request.tools[1].name, "apply_patch");
    }

    #[test]
    fn string_inputs_go_out_as_custom_tool_calls() {
        let response = ModelResponse::from_blocks(vec![
            ContentBlock::text("hi"),
            ContentBlock::ToolUse {
                id: "toolu_1_1".into(),
                name: "apply_patch".into(),
                input: json!("*** Begin Patch").into(),
            },
            ContentBlock::ToolUse {
                id: "toolu_1_2".into(),
                name: "shell".into(),
                input: json!({"cmd": "ls"}).into(),
            },
        ]);
        let body = response_json(&response, "resp_1", "m", ONE_EACH);
        let output = body["output"].as_array().unwrap();
        assert_eq!(output[0]["content"][0]["text"], "hi");
        assert_eq!(output[1]["type"], "custom_tool_call");
        assert_eq!(output[1]["call_id"], "call_1_1");
        assert_eq!(output[2]["arguments"], "{\"cmd\":\"ls\"}");
        let events = response_events(&response, "resp_1", "m", ONE_EACH);
        let last: Value = serde_json::from_str(&events.last().unwrap().data).unwrap();
        assert_eq!(last["type"], "response.completed");
        assert_eq!(last["sequence_number"], events.len() - 1);
        assert_eq!(last["response"]["output"], body["output"]);
    }
}
