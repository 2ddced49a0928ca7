//! OpenAI-compatible Chat Completions: `POST {base}/chat/completions` (the
//! base ends in `/v1`) with `Authorization: Bearer KEY`. The same format is
//! served by vLLM, llama.cpp's server and Ollama.
//!
//! The loop's Anthropic-shaped messages are translated:
//! - the system prompt becomes a first `system` message;
//! - an assistant message becomes one `assistant` message: its text blocks
//!   joined as `content` (or `null`), its calls as `tool_calls` with the
//!   input as a JSON string in `arguments`;
//! - a user message's `tool_result` blocks become `tool` messages (the API
//!   wants them right after the calls), and its text blocks (a reminder,
//!   say) follow as one `user` message;
//! - tools become `{"type": "function", "function": {name, description,
//!   parameters}}`.
//!
//! From the answer, `choices[0].message` gives the text and the calls; a
//! call's `arguments` that are not a JSON object are passed on as a string,
//! so the tool reports the error back to the model.

use super::api_model::{ApiBlock, ApiModel, ApiReply, ReplyError, WireFormat, with_api_ids};
use super::{ApiKey, Endpoint, HttpContext, HttpModelError, Price, Usage};
use crate::llm::{Content, ContentBlock, ModelRequest, Role};
use reqwest::header::{AUTHORIZATION, HeaderName};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The request parameters of `model: {openai: {...}}`. Unset numbers are
/// left to the server. OpenAI's reasoning models refuse `max_tokens` and
/// want `max_completion_tokens`; local servers mostly know `max_tokens`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenAiParams {
    #[serde(deserialize_with = "super::flags::model_name")]
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u32>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::flags::temperature"
    )]
    pub temperature: Option<f64>,
    /// This model's price, used when the price table (the command line's
    /// `--price`) has none for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<Price>,
}

impl OpenAiParams {
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            max_tokens: None,
            max_completion_tokens: None,
            temperature: None,
            price: None,
        }
    }
}

/// The Chat Completions wire format.
#[derive(Debug, Clone)]
pub struct ChatCompletions {
    params: OpenAiParams,
}

/// A real OpenAI-compatible model.
pub type OpenAiModel = ApiModel<ChatCompletions>;

impl ApiModel<ChatCompletions> {
    /// A model for one run; `seed` only drives the retry jitter.
    pub fn new(
        params: OpenAiParams,
        endpoint: Endpoint,
        context: HttpContext,
        seed: u64,
    ) -> Result<Self, HttpModelError> {
        let model = params.model.clone();
        let price = params.price;
        super::api_model::build(
            ChatCompletions { params },
            &model,
            price,
            endpoint,
            context,
            seed,
        )
    }
}

impl WireFormat for ChatCompletions {
    fn path(&self) -> &'static str {
        "/chat/completions"
    }

    fn headers(&self, key: &ApiKey) -> Vec<(HeaderName, String)> {
        vec![(AUTHORIZATION, format!("Bearer {}", key.expose()))]
    }

    fn body(&self, request: &ModelRequest<'_>, api_id: &dyn Fn(&str) -> String) -> Value {
        let mut messages = Vec::with_capacity(request.messages.len() + 1);
        if !request.system.is_empty() {
            messages.push(json!({"role": "system", "content": request.system}));
        }
        for message in with_api_ids(request.messages, api_id) {
            let blocks = match message.content {
                Content::Text(text) => {
                    messages.push(json!({"role": role_name(message.role), "content": text}));
                    continue;
                }
                Content::Blocks(blocks) => blocks,
            };
            let mut texts = Vec::new();
            let mut calls = Vec::new();
            let mut results = Vec::new();
            for block in blocks {
                match block {
                    ContentBlock::Text { text } => texts.push(text),
                    ContentBlock::ToolUse { id, name, input } => calls.push(json!({
                        "id": id,
                        "type": "function",
                        "function": {"name": name, "arguments": input.to_string()},
                    })),
                    ContentBlock::ToolResult {
                        tool_use_id,
                        content,
                        ..
                    } => results.push(json!({
                        "role": "tool",
                        "tool_call_id": tool_use_id,
                        "content": content,
                    })),
                }
            }
            match message.role {
                Role::Assistant => {
                    let mut entry = Map::new();
                    entry.insert("role".into(), json!("assistant"));
                    entry.insert(
                        "content".into(),
                        if texts.is_empty() {
                            Value::Null
                        } else {
                            json!(texts.join("\n\n"))
                        },
                    );
                    if !calls.is_empty() {
                        entry.insert("tool_calls".into(), Value::Array(calls));
                    }
                    messages.push(Value::Object(entry));
                }
                Role::User => {
                    messages.extend(results);
                    if !texts.is_empty() {
                        messages.push(json!({"role": "user", "content": texts.join("\n\n")}));
                    }
                }
            }
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(self.params.model));
        body.insert("messages".into(), Value::Array(messages));
        if !request.tools.is_empty() {
            body.insert(
                "tools".into(),
                Value::Array(
                    request
                        .tools
                        .iter()
                        .map(|t| {
                            json!({
                                "type": "function",
                                "function": {
                                    "name": t.name,
                                    "description": t.description,
                                    "parameters": t.input_schema,
                                },
                            })
                        })
                        .collect(),
                ),
            );
        }
        if let Some(n) = self.params.max_tokens {
            body.insert("max_tokens".into(), json!(n));
        }
        if let Some(n) = self.params.max_completion_tokens {
            body.insert("max_completion_tokens".into(), json!(n));
        }
        if let Some(t) = self.params.temperature {
            body.insert("temperature".into(), json!(t));
        }
        Value::Object(body)
    }

    fn parse(&self, body: Value) -> Result<ApiReply, ReplyError> {
        let message = body
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| choices.first())
            .and_then(|choice| choice.get("message"))
            .ok_or(ReplyError::NoMessage)?;
        let mut blocks = Vec::new();
        match message.get("content") {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => blocks.push(ApiBlock::Text(text.clone())),
            // Some servers send content parts.
            Some(Value::Array(parts)) => {
                for part in parts {
                    if let Some(text) = part.get("text").and_then(Value::as_str) {
                        blocks.push(ApiBlock::Text(text.to_string()));
                    }
                }
            }
            Some(_) => return Err(ReplyError::ContentNotTextOrList),
        }
        let calls = match message.get("tool_calls") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(calls)) => calls.as_slice(),
            Some(_) => return Err(ReplyError::ToolCallsNotList),
        };
        for call in calls {
            let function = call
                .get("function")
                .ok_or(ReplyError::CallWithoutFunction)?;
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .ok_or(ReplyError::CallWithoutName)?;
            let api_id = call
                .get("id")
                .and_then(Value::as_str)
                .ok_or(ReplyError::CallWithoutId)?;
            let input = match function.get("arguments") {
                None | Some(Value::Null) => json!({}),
                Some(Value::String(raw)) if raw.trim().is_empty() => json!({}),
                Some(Value::String(raw)) => match serde_json::from_str::<Value>(raw) {
                    Ok(value @ Value::Object(_)) => value,
                    _ => Value::String(raw.clone()),
                },
                // A few servers send the arguments as an object already.
                Some(value) => value.clone(),
            };
            blocks.push(ApiBlock::Call {
                api_id: api_id.to_string(),
                name: name.to_string(),
                input,
            });
        }
        let usage = body.get("usage");
        let tokens = |name: &str| {
            usage
                .and_then(|u| u.get(name))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        Ok(ApiReply {
            blocks,
            usage: Usage {
                input_tokens: tokens("prompt_tokens"),
                output_tokens: tokens("completion_tokens"),
            },
        })
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Message, ToolSchema};

    fn format() -> ChatCompletions {
        ChatCompletions {
            params: OpenAiParams {
                model: "gpt-test".into(),
                max_tokens: Some(50),
                max_completion_tokens: None,
                temperature: None,
                price: None,
            },
        }
    }

    #[test]
    fn request_body_translates_messages_and_tools() {
        let messages = vec![
            Message::user_text("task"),
            Message::blocks(
                Role::Assistant,
                vec![
                    ContentBlock::text("Plan first."),
                    ContentBlock::ToolUse {
                        id: "toolu_1_1".into(),
                        name: "todo".into(),
                        input: json!({"items": []}).into(),
                    },
                ],
            ),
            Message::blocks(
                Role::User,
                vec![
                    ContentBlock::text("<reminder>Update your todos.</reminder>"),
                    ContentBlock::ToolResult {
                        tool_use_id: "toolu_1_1".into(),
                        content: "No todos.".into(),
                        is_error: false,
                    },
                ],
            ),
        ];
        let tools = vec![ToolSchema::new("todo", "Plan", json!({"type": "object"}))];
        let request = ModelRequest {
            system: "sys",
            messages: &messages,
            turn: crate::llm::count_turn(&messages),
            tools: &tools,
            unchanged: 0,
        };
        let body = format().body(&request, &|id| id.replace("toolu", "call"));
        assert_eq!(
            body,
            json!({
                "model": "gpt-test",
                "messages": [
                    {"role": "system", "content": "sys"},
                    {"role": "user", "content": "task"},
                    {"role": "assistant", "content": "Plan first.", "tool_calls": [
                        {"id": "call_1_1", "type": "function",
                         "function": {"name": "todo", "arguments": "{\"items\":[]}"}}]},
                    {"role": "tool", "tool_call_id": "call_1_1", "content": "No todos."},
                    {"role": "user", "content": "<reminder>Update your todos.</reminder>"}
                ],
                "tools": [{"type": "function", "function":
                    {"name": "todo", "description": "Plan", "parameters": {"type": "object"}}}],
                "max_tokens": 50
            })
        );
    }

    #[test]
    fn parses_calls_with_bad_or_missing_arguments() {
        let reply = format()
            .parse(json!({
                "choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}},
                    {"id": "c2", "type": "function", "function": {"name": "bash", "arguments": "not json"}},
                    {"id": "c3", "type": "function", "function": {"name": "todo", "arguments": ""}}
                ]}, "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": 20, "completion_tokens": 7}
            }))
            .unwrap();
        assert_eq!(
            reply.blocks,
            vec![
                ApiBlock::Call {
                    api_id: "c1".into(),
                    name: "bash".into(),
                    input: json!({"command": "ls"})
                },
                ApiBlock::Call {
                    api_id: "c2".into(),
                    name: "bash".into(),
                    input: json!("not json")
                },
                ApiBlock::Call {
                    api_id: "c3".into(),
                    name: "todo".into(),
                    input: json!({})
                },
            ]
        );
        assert_eq!(
            reply.usage,
            Usage {
                input_tokens: 20,
                output_tokens: 7
            }
        );
        assert!(format().parse(json!({"choices": []})).is_err());
        assert!(
            format()
                .parse(
                    json!({"choices": [{"message": {"tool_calls": [{"function": {"name": "x"}}]}}]})
                )
                .is_err()
        );
    }
}
