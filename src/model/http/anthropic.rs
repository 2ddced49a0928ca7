//! The Anthropic Messages API: `POST {base}/v1/messages` with headers
//! `x-api-key` and `anthropic-version: 2023-06-01`.
//!
//! The loop's messages already have the API's shape, so a request is them
//! (with the API's call ids put back), the system prompt, the tool schemas
//! and the parameters. From the answer, `text` and `tool_use` blocks are
//! kept (other kinds, such as `thinking`, are not asked for and are
//! dropped); the stop reason follows from the blocks, as for a scripted
//! response. Input tokens are `input_tokens` plus the cache tokens.

use super::api_model::{ApiBlock, ApiModel, ApiReply, ReplyError, WireFormat, with_api_ids};
use super::{ApiKey, Endpoint, HttpContext, HttpModelError, Price, Usage};
use crate::llm::ModelRequest;
use reqwest::header::HeaderName;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The API version header value.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The request parameters of `model: {anthropic: {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnthropicParams {
    #[serde(deserialize_with = "super::flags::model_name")]
    pub model: String,
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
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

fn default_max_tokens() -> u32 {
    4096
}

impl AnthropicParams {
    /// `model` with the default `max_tokens` (4096) and the API's default
    /// temperature.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            max_tokens: default_max_tokens(),
            temperature: None,
            price: None,
        }
    }
}

/// The Messages API wire format.
#[derive(Debug, Clone)]
pub struct Messages {
    params: AnthropicParams,
}

/// A real Anthropic model.
pub type AnthropicModel = ApiModel<Messages>;

impl ApiModel<Messages> {
    /// A model for one run; `seed` only drives the retry jitter.
    pub fn new(
        params: AnthropicParams,
        endpoint: Endpoint,
        context: HttpContext,
        seed: u64,
    ) -> Result<Self, HttpModelError> {
        let model = params.model.clone();
        let price = params.price;
        super::api_model::build(Messages { params }, &model, price, endpoint, context, seed)
    }
}

impl WireFormat for Messages {
    fn path(&self) -> &'static str {
        "/v1/messages"
    }

    fn headers(&self, key: &ApiKey) -> Vec<(HeaderName, String)> {
        vec![
            (
                HeaderName::from_static("x-api-key"),
                key.expose().to_string(),
            ),
            (
                HeaderName::from_static("anthropic-version"),
                ANTHROPIC_VERSION.to_string(),
            ),
        ]
    }

    fn body(&self, request: &ModelRequest<'_>, api_id: &dyn Fn(&str) -> String) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), json!(self.params.model));
        body.insert("max_tokens".into(), json!(self.params.max_tokens));
        if !request.system.is_empty() {
            body.insert("system".into(), json!(request.system));
        }
        body.insert(
            "messages".into(),
            serde_json::to_value(with_api_ids(request.messages, api_id)).unwrap_or(Value::Null),
        );
        if !request.tools.is_empty() {
            body.insert(
                "tools".into(),
                Value::Array(
                    request
                        .tools
                        .iter()
                        .map(|t| {
                            json!({
                                "name": t.name,
                                "description": t.description,
                                "input_schema": t.input_schema,
                            })
                        })
                        .collect(),
                ),
            );
        }
        if let Some(temperature) = self.params.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        Value::Object(body)
    }

    fn parse(&self, body: Value) -> Result<ApiReply, ReplyError> {
        let content = body
            .get("content")
            .and_then(Value::as_array)
            .ok_or(ReplyError::NoContent)?;
        let mut blocks = Vec::with_capacity(content.len());
        for block in content {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = block
                        .get("text")
                        .and_then(Value::as_str)
                        .ok_or(ReplyError::TextWithoutText)?;
                    blocks.push(ApiBlock::Text(text.to_string()));
                }
                Some("tool_use") => {
                    let field = |name: &'static str| {
                        block
                            .get(name)
                            .and_then(Value::as_str)
                            .map(str::to_string)
                            .ok_or(ReplyError::ToolUseWithout(name))
                    };
                    blocks.push(ApiBlock::Call {
                        api_id: field("id")?,
                        name: field("name")?,
                        input: block.get("input").cloned().unwrap_or_else(|| json!({})),
                    });
                }
                _ => {}
            }
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
                input_tokens: tokens("input_tokens")
                    .saturating_add(tokens("cache_creation_input_tokens"))
                    .saturating_add(tokens("cache_read_input_tokens")),
                output_tokens: tokens("output_tokens"),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{ContentBlock, Message, Role, ToolSchema};

    #[test]
    fn request_body_has_the_messages_api_shape() {
        let format = Messages {
            params: AnthropicParams {
                model: "claude-test".into(),
                max_tokens: 100,
                temperature: Some(0.0),
                price: None,
            },
        };
        let messages = vec![
            Message::user_text("task"),
            Message::blocks(
                Role::Assistant,
                vec![ContentBlock::ToolUse {
                    id: "toolu_1_1".into(),
                    name: "bash".into(),
                    input: json!({"command": "ls"}).into(),
                }],
            ),
            Message::blocks(
                Role::User,
                vec![ContentBlock::ToolResult {
                    tool_use_id: "toolu_1_1".into(),
                    content: "x".into(),
                    is_error: false,
                }],
            ),
        ];
        let tools = vec![ToolSchema::new("bash", "Run", json!({"type": "object"}))];
        let request = ModelRequest {
            system: "sys",
            messages: &messages,
            turn: crate::llm::count_turn(&messages),
            tools: &tools,
            unchanged: 0,
        };
        let body = format.body(&request, &|id| format!("api_{id}"));
        assert_eq!(
            body,
            json!({
                "model": "claude-test",
                "max_tokens": 100,
                "system": "sys",
                "messages": [
                    {"role": "user", "content": "task"},
                    {"role": "assistant", "content": [
                        {"type": "tool_use", "id": "api_toolu_1_1", "name": "bash", "input": {"command": "ls"}}]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "api_toolu_1_1", "content": "x"}]}
                ],
                "tools": [{"name": "bash", "description": "Run", "input_schema": {"type": "object"}}],
                "temperature": 0.0
            })
        );
    }

    #[test]
    fn parses_text_calls_and_usage_and_skips_other_blocks() {
        let format = Messages {
            params: AnthropicParams::new("m"),
        };
        let reply = format
            .parse(json!({
                "content": [
                    {"type": "thinking", "thinking": "hmm"},
                    {"type": "text", "text": "ok"},
                    {"type": "tool_use", "id": "toolu_01X", "name": "bash", "input": {"command": "ls"}}
                ],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 5}
            }))
            .unwrap();
        assert_eq!(
            reply.blocks,
            vec![
                ApiBlock::Text("ok".into()),
                ApiBlock::Call {
                    api_id: "toolu_01X".into(),
                    name: "bash".into(),
                    input: json!({"command": "ls"})
                }
            ]
        );
        assert_eq!(
            reply.usage,
            Usage {
                input_tokens: 15,
                output_tokens: 3
            }
        );
        assert!(format.parse(json!({"type": "message"})).is_err());
        assert!(
            format
                .parse(json!({"content": [{"type": "tool_use", "name": "x"}]}))
                .is_err()
        );
    }
}
