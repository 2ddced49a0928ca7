//! The scripted model (docs/scenario-format.md): exact replay.
//!
//! Responses are used in order, one per call. A response with calls has
//! stop reason `tool_use` and content = the text block (if any) then the
//! `tool_use` blocks, with ids `toolu_<turn>_<k>`. Asking past the end is a
//! [`ModelError::ScriptExhausted`]. Every request can be recorded, so tests
//! can check what the loop sent.

use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use super::{Model, ModelError, ToolCall, ToolInput, empty_input, object_value, turn_of};
use crate::llm::{ContentBlock, Message, ModelRequest, ModelResponse, tool_use_id};

/// One scripted response (`model.script` entries).
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedResponse {
    pub text: Option<String>,
    pub calls: Vec<ToolCall>,
    /// In a cassette: the hash of the request this response answered when
    /// it was recorded (see [`super::cassette`]); replay compares it.
    pub request_hash: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScriptedResponse {
    tool: Option<String>,
    #[serde(default, deserialize_with = "some_object")]
    input: Option<Value>,
    tools: Option<Vec<ToolCall>>,
    text: Option<String>,
    #[serde(default, deserialize_with = "some_request_hash")]
    request_hash: Option<String>,
}

fn some_object<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    object_value(d).map(Some)
}

/// A recorded request hash: 64 lowercase hex digits, the SHA-256 that
/// [`super::cassette::request_hash`] writes. Anything else could never
/// match, so every replay would report drift on it; it is refused at load
/// time instead, with the line it is on.
fn some_request_hash<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let hash = String::deserialize(d)?;
    let is_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if hash.len() == 64 && hash.bytes().all(is_hex) {
        Ok(Some(hash))
    } else {
        Err(de::Error::custom(format!(
            "`request_hash` must be 64 lowercase hex digits (a SHA-256 as `record` writes it), got {:?}",
            // A hostile file may hold a huge value: show its start.
            hash.chars().take(80).collect::<String>()
        )))
    }
}

impl<'de> Deserialize<'de> for ScriptedResponse {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawScriptedResponse::deserialize(d)?;
        let calls = match (raw.tool, raw.input, raw.tools) {
            (Some(tool), input, None) => vec![ToolCall {
                tool,
                input: input.map_or_else(empty_input, ToolInput::new),
            }],
            (None, None, Some(tools)) => tools,
            (None, None, None) => Vec::new(),
            (None, Some(_), _) => {
                return Err(de::Error::custom(
                    "`input` needs a `tool` in the same response",
                ));
            }
            (Some(_), _, Some(_)) => {
                return Err(de::Error::custom(
                    "a response has either `tool` (one call) or `tools` (a list), not both",
                ));
            }
        };
        if calls.is_empty() && raw.text.is_none() {
            return Err(de::Error::custom(
                "a scripted response needs `tool`, `tools` or `text`",
            ));
        }
        Ok(Self {
            text: raw.text,
            calls,
            request_hash: raw.request_hash,
        })
    }
}

/// What the loop sent on one call.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub system: String,
    pub messages: Vec<Message>,
    pub tool_names: Vec<String>,
}

/// Replays a script.
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    /// Shared with the scenario: a run copies only the answers it gives.
    script: std::sync::Arc<[ScriptedResponse]>,
    next: usize,
    record: bool,
    requests: Vec<RecordedRequest>,
}

impl ScriptedModel {
    pub fn new(script: impl Into<std::sync::Arc<[ScriptedResponse]>>) -> Self {
        Self {
            script: script.into(),
            next: 0,
            record: false,
            requests: Vec::new(),
        }
    }

    /// Keeps a copy of every request (off by default: it costs a copy of
    /// the conversation per turn).
    pub fn recording(mut self) -> Self {
        self.record = true;
        self
    }

    pub fn requests(&self) -> &[RecordedRequest] {
        &self.requests
    }

    /// Responses not yet used.
    pub fn remaining(&self) -> usize {
        self.script.len() - self.next
    }
}

impl Model for ScriptedModel {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        if self.record {
            self.requests.push(RecordedRequest {
                system: request.system.to_string(),
                messages: request.messages.to_vec(),
                tool_names: request.tools.iter().map(|t| t.name.to_string()).collect(),
            });
        }
        let turn = turn_of(request);
        let entry = self
            .script
            .get(self.next)
            .ok_or(ModelError::ScriptExhausted {
                turn,
                responses: self.script.len(),
            })?;
        self.next += 1;
        let mut content = Vec::with_capacity(entry.calls.len() + 1);
        if let Some(text) = &entry.text {
            content.push(ContentBlock::text(text.clone()));
        }
        for (k, call) in entry.calls.iter().enumerate() {
            content.push(ContentBlock::ToolUse {
                id: tool_use_id(turn, k + 1),
                name: call.tool.clone(),
                input: call.input.clone(),
            });
        }
        Ok(ModelResponse::from_blocks(content))
    }
}
