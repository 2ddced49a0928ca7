//! The Gemini API (`POST /v1beta/models/{model}:generateContent` and
//! `:streamGenerateContent?alt=sse`), as the Gemini CLI and Google's
//! `google-genai` SDKs speak it.
//!
//! In: `contents` (role `user` or `model`, each a list of `parts`), the
//! system prompt in `systemInstruction` (a content or a string), the tools
//! in `tools[].functionDeclarations` (`parameters` or
//! `parametersJsonSchema`; other tool kinds, such as `googleSearch`, are
//! not functions and are left out). Parts: `text` (a `thought` part is the
//! model's reasoning and is skipped), `functionCall {id?, name, args}`
//! (a `tool_use`), `functionResponse {id?, name, response}` (a
//! `tool_result` whose text is `response.output` when that is a string,
//! `response.error` — flagged as an error — when present, else the
//! response as JSON); other parts (`inlineData`, ...) carry nothing the
//! model reads. Call ids `call_<t>_<k>` are read back as the model's
//! `toolu_<t>_<k>`; a call without an id (the API does not require one)
//! gets `toolu_<n>_<k>` by its place (the `n`th `model` content, its `k`th
//! call), and a response without one answers the first unanswered call of
//! its name. The model is named by the path, not the body.
//!
//! Out: one candidate whose content holds the text and the
//! `functionCall`s (each with its `id`, `args` an object), `finishReason`
//! `STOP` (the API says `STOP` after function calls too), and
//! `usageMetadata`. Streaming sends the same as `data:` chunks: the text in
//! pieces, then a last chunk with the calls, the finish reason and the
//! usage. Errors are `{"error": {"code", "message", "status"}}`.

use serde_json::{Map, Value, json};

use super::anthropic::Usage;
use super::fields::{self, join};
use super::record::{WireRequest, merge_same_role, normalize_task_message};
use super::sse::{DELTA_CHARS, SseEvent, chunks};
use super::{BadRequest, model_call_id, openai_call_id};
use crate::llm::{ContentBlock, Message, ModelResponse, Role, ToolSchema};

/// What a `POST /v1beta/models/{model}:{method}` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    Generate { model: String, stream: bool },
    CountTokens,
}

/// Reads the `{model}:{method}` path segment.
pub fn method_of(segment: &str) -> Result<Method, BadRequest> {
    let (model, method) = segment.rsplit_once(':').ok_or_else(|| {
        not_found(format!(
            "no such method: `{segment}` (expected MODEL:generateContent or MODEL:streamGenerateContent)"
        ))
    })?;
    let model = model.strip_prefix("models/").unwrap_or(model).to_string();
    match method {
        "generateContent" => Ok(Method::Generate {
            model,
            stream: false,
        }),
        "streamGenerateContent" => Ok(Method::Generate {
            model,
            stream: true,
        }),
        "countTokens" => Ok(Method::CountTokens),
        other => Err(not_found(format!(
            "no such method: `{other}` (generateContent, streamGenerateContent or countTokens)"
        ))),
    }
}

fn not_found(message: String) -> BadRequest {
    BadRequest {
        status: 404,
        message,
    }
}

/// Reads a `generateContent` request body for `model`.
pub fn parse_request(body: &[u8], model: &str, stream: bool) -> Result<WireRequest, BadRequest> {
    let obj = fields::body_object(body)?;
    let system = match fields::optional(&obj, "systemInstruction") {
        Some(Value::String(text)) => text.clone(),
        Some(content) => content_texts(content, "systemInstruction")?.join("\n"),
        None => String::new(),
    };
    let tools = parse_tools(&obj)?;
    let raw = fields::array(fields::required(&obj, "contents", "")?, "contents")?;
    if raw.is_empty() {
        return Err(BadRequest::new(
            "contents: at least one content is required",
        ));
    }
    let mut reader = ContentReader::default();
    let mut messages = Vec::with_capacity(raw.len());
    for (i, content) in raw.iter().enumerate() {
        messages.push(reader.message(content, &format!("contents.{i}"))?);
    }
    let mut messages = merge_same_role(messages);
    normalize_task_message(&mut messages);
    let mut error_results = reader.errors;
    error_results.sort();
    error_results.dedup();
    Ok(WireRequest {
        system,
        messages,
        tools,
        stream,
        stream_usage: stream,
        model: Some(model.to_string()),
        error_results,
        // The Gemini API has one `systemInstruction`, never a system
        // message in the conversation.
        late_system: Vec::new(),
    })
}

/// The texts of a content's `parts` (thoughts left out).
fn content_texts(content: &Value, path: &str) -> Result<Vec<String>, BadRequest> {
    let content = fields::object(content, path)?;
    let parts_path = join(path, "parts");
    let parts = fields::optional_array(content, "parts", path)?;
    let mut texts = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let part = fields::object(part, &join(&parts_path, &i.to_string()))?;
        if let Some(text) = part.get("text").and_then(Value::as_str)
            && !is_thought(part)
        {
            texts.push(text.to_string());
        }
    }
    Ok(texts)
}

fn is_thought(part: &fields::Object) -> bool {
    part.get("thought") == Some(&Value::Bool(true))
}

fn parse_tools(obj: &fields::Object) -> Result<Vec<ToolSchema>, BadRequest> {
    let mut tools = Vec::new();
    for (i, tool) in fields::optional_array(obj, "tools", "")?.iter().enumerate() {
        let path = format!("tools.{i}");
        let tool = fields::object(tool, &path)?;
        let declarations = fields::optional_array(tool, "functionDeclarations", &path)?;
        for (k, declaration) in declarations.iter().enumerate() {
            let path = format!("{path}.functionDeclarations.{k}");
            let declaration = fields::object(declaration, &path)?;
            let name = fields::required_str(declaration, "name", &path)?;
            let description = fields::optional_str(declaration, "description", &path)?;
            let schema = fields::optional(declaration, "parametersJsonSchema")
                .or_else(|| fields::optional(declaration, "parameters"))
                .cloned()
                .unwrap_or_else(|| json!({"type": "object"}));
            tools.push(ToolSchema {
                name: name.to_string().into(),
                description: description.unwrap_or("").to_string().into(),
                input_schema: schema,
            });
        }
    }
    Ok(tools)
}

/// Reads contents in order, keeping what ids need: how many `model`
/// contents came so far, and the calls not answered yet.
#[derive(Default)]
struct ContentReader {
    model_contents: usize,
    /// (name, id) of calls without a response yet, oldest first.
    open_calls: Vec<(String, String)>,
    /// Ids of responses that carry an `error`.
    errors: Vec<String>,
}

impl ContentReader {
    fn message(&mut self, content: &Value, path: &str) -> Result<Message, BadRequest> {
        let content = fields::object(content, path)?;
        let role = match fields::optional_str(content, "role", path)?.unwrap_or("user") {
            "user" | "function" | "tool" => Role::User,
            "model" => Role::Assistant,
            other => {
                return Err(BadRequest::new(format!(
                    "{path}.role: unexpected role `{other}` (user or model)"
                )));
            }
        };
        if role == Role::Assistant {
            self.model_contents += 1;
        }
        let parts_path = join(path, "parts");
        let mut blocks = Vec::new();
        let mut calls = 0;
        for (i, part) in fields::optional_array(content, "parts", path)?
            .iter()
            .enumerate()
        {
            let part_path = join(&parts_path, &i.to_string());
            let part = fields::object(part, &part_path)?;
            if let Some(call) = fields::optional(part, "functionCall") {
                calls += 1;
                blocks.push(self.call(call, &join(&part_path, "functionCall"), calls)?);
            } else if let Some(response) = fields::optional(part, "functionResponse") {
                let path = join(&part_path, "functionResponse");
                blocks.push(self.response(response, &path)?);
            } else if let Some(text) = fields::optional(part, "text") {
                let text = fields::string(text, &join(&part_path, "text"))?;
                if !is_thought(part) {
                    blocks.push(ContentBlock::text(text));
                }
            }
        }
        Ok(Message::blocks(role, blocks))
    }

    fn call(&mut self, call: &Value, path: &str, k: usize) -> Result<ContentBlock, BadRequest> {
        let call = fields::object(call, path)?;
        let name = fields::required_str(call, "name", path)?.to_string();
        let id = match fields::optional_str(call, "id", path)? {
            Some(id) if !id.is_empty() => model_call_id(id),
            _ => format!("toolu_{}_{k}", self.model_contents.max(1)),
        };
        let input = match fields::optional(call, "args") {
            Some(args) => args.clone(),
            None => Value::Object(Map::new()),
        };
        self.open_calls.push((name.clone(), id.clone()));
        Ok(ContentBlock::ToolUse {
            id,
            name,
            input: input.into(),
        })
    }

    fn response(&mut self, response: &Value, path: &str) -> Result<ContentBlock, BadRequest> {
        let response = fields::object(response, path)?;
        let name = fields::optional_str(response, "name", path)?.unwrap_or("");
        let id = match fields::optional_str(response, "id", path)? {
            Some(id) if !id.is_empty() => model_call_id(id),
            _ => self
                .open_calls
                .iter()
                .find(|(call, _)| call == name)
                .map(|(_, id)| id.clone())
                .unwrap_or_else(|| format!("toolu_{}_1", self.model_contents.max(1))),
        };
        if let Some(at) = self.open_calls.iter().position(|(_, open)| *open == id) {
            self.open_calls.remove(at);
        }
        let body = fields::optional(response, "response");
        let error = body.and_then(|b| b.get("error")).filter(|e| !e.is_null());
        let output = body.and_then(|b| b.get("output")).and_then(Value::as_str);
        let content = match (error, output) {
            (Some(error), _) => {
                self.errors.push(id.clone());
                error
                    .as_str()
                    .map_or_else(|| error.to_string(), str::to_string)
            }
            (None, Some(output)) => output.to_string(),
            (None, None) => body.map_or_else(String::new, Value::to_string),
        };
        Ok(ContentBlock::ToolResult {
            tool_use_id: id,
            content,
            // As over Chat Completions: the error is in the text, and
            // `error_results` keeps which calls failed.
            is_error: false,
        })
    }
}

fn text_of(response: &ModelResponse) -> String {
    response
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn call_parts(response: &ModelResponse) -> Vec<Value> {
    response
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => Some(json!({
                "functionCall": {"id": openai_call_id(id), "name": name, "args": input.as_ref()},
            })),
            _ => None,
        })
        .collect()
}

fn usage_json(usage: Usage) -> Value {
    json!({
        "promptTokenCount": usage.input,
        "candidatesTokenCount": usage.output,
        "totalTokenCount": usage.input + usage.output,
    })
}

fn chunk(parts: Vec<Value>, finish: bool, id: &str, model: &str, usage: Usage) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    let mut body = json!({"modelVersion": model, "responseId": id});
    if finish {
        fields::set(&mut candidate, "finishReason", Value::from("STOP"));
        fields::set(&mut body, "usageMetadata", usage_json(usage));
    }
    fields::set(&mut body, "candidates", json!([candidate]));
    body
}

/// The non-streaming response body.
pub fn response_json(response: &ModelResponse, id: &str, model: &str, usage: Usage) -> Value {
    let text = text_of(response);
    let mut parts = Vec::new();
    if !text.is_empty() {
        parts.push(json!({"text": text}));
    }
    parts.extend(call_parts(response));
    chunk(parts, true, id, model, usage)
}

/// The stream of a response (`alt=sse`): text pieces, then the calls with
/// the finish reason and the usage.
pub fn response_events(
    response: &ModelResponse,
    id: &str,
    model: &str,
    usage: Usage,
) -> Vec<SseEvent> {
    let text = text_of(response);
    let pieces = if text.is_empty() {
        Vec::new()
    } else {
        chunks(&text, DELTA_CHARS)
    };
    let calls = call_parts(response);
    let mut events = Vec::new();
    let last_text = if calls.is_empty() {
        pieces.len().saturating_sub(1)
    } else {
        pieces.len()
    };
    for (n, piece) in pieces.iter().enumerate() {
        let finish = n == last_text;
        let body = chunk(vec![json!({"text": piece})], finish, id, model, usage);
        events.push(SseEvent::data(body.to_string()));
    }
    if !calls.is_empty() || pieces.is_empty() {
        events.push(SseEvent::data(
            chunk(calls, true, id, model, usage).to_string(),
        ));
    }
    events
}

/// The answer to `countTokens`.
pub fn count_tokens_json(tokens: u64) -> Value {
    json!({"totalTokens": tokens})
}

/// The Gemini API's error body.
pub fn error_json(status: u16, message: &str) -> Value {
    let status_word = match status {
        400 | 405 | 413 | 422 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        503 => "UNAVAILABLE",
        _ => "INTERNAL",
    };
    json!({"error": {"code": status, "message": message, "status": status_word}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Content, StopReason};

    fn usage() -> Usage {
        Usage {
            input: 3,
            output: 2,
        }
    }

    #[test]
    fn methods_are_read_off_the_path() {
        assert_eq!(
            method_of("gemini-2.5-pro:streamGenerateContent"),
            Ok(Method::Generate {
                model: "gemini-2.5-pro".into(),
                stream: true
            })
        );
        assert_eq!(
            method_of("m:generateContent"),
            Ok(Method::Generate {
                model: "m".into(),
                stream: false
            })
        );
        assert_eq!(method_of("m:countTokens"), Ok(Method::CountTokens));
        assert_eq!(method_of("m:embed").map_err(|e| e.status), Err(404));
        assert_eq!(method_of("m").map_err(|e| e.status), Err(404));
    }

    #[test]
    fn a_tool_round_trip_reads_as_the_loop_writes_it() {
        let body = json!({
            "systemInstruction": {"role": "user", "parts": [{"text": "sys"}]},
            "tools": [{"functionDeclarations": [{"name": "bash", "description": "d", "parametersJsonSchema": {"type": "object"}}]},
                      {"googleSearch": {}}],
            "generationConfig": {"temperature": 1},
            "contents": [
                {"role": "user", "parts": [{"text": "task"}]},
                {"role": "model", "parts": [{"text": "thinking", "thought": true},
                    {"functionCall": {"id": "call_1_1", "name": "bash", "args": {"command": "ls"}}, "thoughtSignature": "x"}]},
                {"role": "user", "parts": [{"functionResponse": {"id": "call_1_1", "name": "bash", "response": {"error": "boom"}}},
                                           {"text": "<reminder>Update your todos.</reminder>"}]}
            ]
        });
        let request = parse_request(body.to_string().as_bytes(), "m", true).unwrap();
        assert_eq!(request.system, "sys");
        assert_eq!(request.tools.len(), 1);
        assert_eq!(request.model.as_deref(), Some("m"));
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
                    content: "boom".into(),
                    is_error: false
                },
                ContentBlock::text("<reminder>Update your todos.</reminder>")
            ]
        );
        assert_eq!(request.error_results, ["toolu_1_1"]);
        assert_eq!(request.added_texts().len(), 2);
    }

    #[test]
    fn calls_without_ids_get_the_models_ids_by_place() {
        let body = json!({"contents": [
            {"role": "user", "parts": [{"text": "task"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}}, {"functionCall": {"name": "b"}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "b", "response": {"output": "B"}}},
                                       {"functionResponse": {"name": "a", "response": {"x": 1}}}]},
        ]});
        let request = parse_request(body.to_string().as_bytes(), "m", false).unwrap();
        let ids: Vec<String> = request
            .messages
            .iter()
            .flat_map(|m| m.content_blocks())
            .filter_map(|b| match b {
                ContentBlock::ToolUse { id, .. } => Some(id.clone()),
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    ..
                } => Some(format!("{tool_use_id}={content}")),
                ContentBlock::Text { .. } => None,
            })
            .collect();
        assert_eq!(
            ids,
            [
                "toolu_1_1",
                "toolu_1_2",
                "toolu_1_2=B",
                "toolu_1_1={\"x\":1}"
            ]
        );
    }

    #[test]
    fn bad_bodies_name_the_field() {
        let bad = |body: Value| {
            parse_request(body.to_string().as_bytes(), "m", false)
                .unwrap_err()
                .message
        };
        assert_eq!(bad(json!({})), "contents: field required");
        assert_eq!(
            bad(json!({"contents": []})),
            "contents: at least one content is required"
        );
        assert_eq!(
            bad(json!({"contents": [{"role": "bot", "parts": []}]})),
            "contents.0.role: unexpected role `bot` (user or model)"
        );
        assert_eq!(
            bad(json!({"contents": [{"parts": [{"functionCall": {"args": {}}}]}]})),
            "contents.0.parts.0.functionCall.name: field required"
        );
        assert_eq!(
            error_json(404, "x"),
            json!({"error": {"code": 404, "message": "x", "status": "NOT_FOUND"}})
        );
    }

    #[test]
    fn responses_carry_text_calls_and_usage() {
        let mut response = ModelResponse::from_blocks(vec![
            ContentBlock::text("hi"),
            ContentBlock::ToolUse {
                id: "toolu_2_1".into(),
                name: "bash".into(),
                input: json!({"command": "ls"}).into(),
            },
        ]);
        response.stop_reason = StopReason::ToolUse;
        let body = response_json(&response, "r", "m", usage());
        assert_eq!(
            body["candidates"][0]["content"]["parts"],
            json!([{"text": "hi"}, {"functionCall": {"id": "call_2_1", "name": "bash", "args": {"command": "ls"}}}])
        );
        assert_eq!(body["candidates"][0]["finishReason"], "STOP");
        assert_eq!(body["usageMetadata"]["totalTokenCount"], 5);
        let events = response_events(&response, "r", "m", usage());
        let parsed: Vec<Value> = events
            .iter()
            .map(|e| serde_json::from_str(&e.data).unwrap())
            .collect();
        assert_eq!(parsed.len(), 2);
        assert!(parsed[0]["candidates"][0].get("finishReason").is_none());
        assert_eq!(
            parsed[1]["candidates"][0]["content"]["parts"][0]["functionCall"]["id"],
            "call_2_1"
        );
        let text_only = ModelResponse::from_blocks(vec![ContentBlock::text("done")]);
        let events = response_events(&text_only, "r", "m", usage());
        assert_eq!(events.len(), 1);
        assert!(events[0].data.contains("\"finishReason\":\"STOP\""));
    }
}
