//! A real model over one wire format: the [`WireFormat`] a format
//! implements, the model that posts through it, the loop's call ids mapped
//! to the API's and back, usage and cost counted, and the key redacted
//! from every answer before it leaves this layer.

use std::collections::BTreeMap;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::context::HttpContext;
use super::endpoint::{ApiKey, Endpoint};
use super::error::HttpModelError;
use super::retry::Backoff;
use super::usage::{Price, Usage, UsageMeter};
use crate::llm::{ContentBlock, Model, ModelError, ModelRequest, ModelResponse, tool_use_id};
use crate::llm::{Message, turn_of};

/// One block of an API's answer, with the API's own call id.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum ApiBlock {
    Text(String),
    Call {
        api_id: String,
        name: String,
        input: Value,
    },
}

/// An API's answer, parsed.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ApiReply {
    pub(super) blocks: Vec<ApiBlock>,
    pub(super) usage: Usage,
}

/// What is wrong with an API's answer (shown after `unexpected response: `).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum ReplyError {
    #[error("no `content` list")]
    NoContent,
    #[error("a text block without `text`")]
    TextWithoutText,
    #[error("a tool_use block without `{0}`")]
    ToolUseWithout(&'static str),
    #[error("no `choices[0].message`")]
    NoMessage,
    #[error("`content` is neither text nor a list")]
    ContentNotTextOrList,
    #[error("`tool_calls` is not a list")]
    ToolCallsNotList,
    #[error("a tool call without `function`")]
    CallWithoutFunction,
    #[error("a tool call without a function name")]
    CallWithoutName,
    #[error("a tool call without `id`")]
    CallWithoutId,
}

/// One wire format: how a request is written and an answer read.
pub(super) trait WireFormat {
    /// The path after the base URL.
    fn path(&self) -> &'static str;
    /// Headers besides content type (the key among them).
    fn headers(&self, key: &ApiKey) -> Vec<(HeaderName, String)>;
    /// The request body; `api_id` maps the loop's call ids to the API's.
    fn body(&self, request: &ModelRequest<'_>, api_id: &dyn Fn(&str) -> String) -> Value;
    /// The answer, or what is wrong with it.
    fn parse(&self, body: Value) -> Result<ApiReply, ReplyError>;
}

/// The loop's call ids ↔ the API's.
#[derive(Debug, Clone, Default)]
pub(super) struct IdMap {
    pub(super) to_api: BTreeMap<String, String>,
}

impl IdMap {
    fn api_id(&self, local: &str) -> String {
        self.to_api
            .get(local)
            .cloned()
            .unwrap_or_else(|| local.to_string())
    }
}

/// A real model speaking wire format `F`. Use the aliases
/// [`AnthropicModel`] and [`OpenAiModel`].
pub struct ApiModel<F> {
    pub(super) format: F,
    pub(super) endpoint: Endpoint,
    pub(super) context: HttpContext,
    pub(super) headers: HeaderMap,
    pub(super) url: String,
    pub(super) backoff: Backoff,
    pub(super) ids: IdMap,
    pub(super) price: Option<Price>,
    pub(super) meter: UsageMeter,
}

impl<F> ApiModel<F> {
    /// A handle on this run's token usage and cost; read it after the run.
    pub fn usage_meter(&self) -> UsageMeter {
        self.meter.clone()
    }
}

/// A model speaking `format`, with the price of `model` checked.
pub(super) fn build<F: WireFormat>(
    format: F,
    model: &str,
    own_price: Option<Price>,
    endpoint: Endpoint,
    context: HttpContext,
    seed: u64,
) -> Result<ApiModel<F>, HttpModelError> {
    let price = context.price_for(model, own_price)?;
    let mut headers = HeaderMap::new();
    for (name, value) in format.headers(endpoint.key()) {
        let mut value = HeaderValue::from_str(&value).map_err(|_| HttpModelError::BadKey {
            var: endpoint.provider.key_var(),
        })?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    Ok(ApiModel {
        backoff: Backoff::new(context.retry, seed),
        url: format!("{}{}", endpoint.base_url, format.path()),
        format,
        endpoint,
        context,
        headers,
        ids: IdMap::default(),
        price,
        meter: UsageMeter::new(),
    })
}

impl<F: WireFormat> Model for ApiModel<F> {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let answer = answer(self, request);
        if let Err(ModelError::Backend(message)) = &answer {
            self.meter.fail(message);
        }
        answer
    }
}

/// One answer: the request in `F`'s format, the post with its retries, the
/// reply read back with the loop's call ids, the usage counted.
pub(super) fn answer<F: WireFormat>(
    model: &mut ApiModel<F>,
    request: &ModelRequest<'_>,
) -> Result<ModelResponse, ModelError> {
    let turn = turn_of(request);
    let ids = &model.ids;
    let body = model.format.body(request, &|local| ids.api_id(local));
    let answer = model.post(&body)?;
    if answer.script_exhausted {
        return Err(ModelError::ScriptExhausted {
            turn,
            responses: turn.saturating_sub(1),
        });
    }
    let provider = model.endpoint.provider;
    let reply = model.format.parse(answer.body).map_err(|problem| {
        ModelError::Backend(format!(
            "{provider}: unexpected response: {}",
            model.endpoint.key().redact(&problem.to_string())
        ))
    })?;
    let cost = model.price.map(|p| p.cost(reply.usage));
    model.meter.record(reply.usage, cost);
    if let (Some(budget), Some(cost)) = (&model.context.budget, cost) {
        budget.charge(cost);
    }
    let mut content = Vec::with_capacity(reply.blocks.len());
    let mut k = 0;
    // The one point where a real model's text leaves this layer: a key the
    // model repeats (it may have read it somewhere) is redacted here, so
    // no transcript, log, report or cassette holds it.
    let key = model.endpoint.key();
    for block in reply.blocks.into_iter().map(|b| redact_block(key, b)) {
        match block {
            // An empty text block is refused by the API when sent back.
            ApiBlock::Text(text) if text.is_empty() => {}
            ApiBlock::Text(text) => content.push(ContentBlock::Text { text }),
            ApiBlock::Call {
                api_id,
                name,
                input,
            } => {
                k += 1;
                let local = tool_use_id(turn, k);
                model.ids.to_api.insert(local.clone(), api_id);
                content.push(ContentBlock::ToolUse {
                    id: local,
                    name,
                    input: input.into(),
                });
            }
        }
    }
    Ok(ModelResponse::from_blocks(content))
}

/// `block` with every occurrence of the key redacted (texts, tool names,
/// every string and object key of a call's input).
pub(super) fn redact_block(key: &ApiKey, block: ApiBlock) -> ApiBlock {
    match block {
        ApiBlock::Text(text) => ApiBlock::Text(key.redact(&text)),
        ApiBlock::Call {
            api_id,
            name,
            input,
        } => ApiBlock::Call {
            api_id,
            name: key.redact(&name),
            input: redact_value(key, input),
        },
    }
}

pub(super) fn redact_value(key: &ApiKey, value: Value) -> Value {
    match value {
        Value::String(text) => Value::String(key.redact(&text)),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| redact_value(key, v)).collect())
        }
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(k, v)| (key.redact(&k), redact_value(key, v)))
                .collect(),
        ),
        other => other,
    }
}

/// The messages with every call id replaced by the API's.
pub(super) fn with_api_ids(messages: &[Message], api_id: &dyn Fn(&str) -> String) -> Vec<Message> {
    messages
        .iter()
        .map(|message| {
            let mut message = message.clone();
            if let crate::llm::Content::Blocks(blocks) = &mut message.content {
                for block in blocks {
                    match block {
                        ContentBlock::ToolUse { id, .. } => *id = api_id(id),
                        ContentBlock::ToolResult { tool_use_id, .. } => {
                            *tool_use_id = api_id(tool_use_id)
                        }
                        ContentBlock::Text { .. } => {}
                    }
                }
            }
            message
        })
        .collect()
}
