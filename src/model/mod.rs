//! Model backends: a [`Model`] answers a [`crate::llm::ModelRequest`] with
//! content blocks and a stop reason, like the Messages API does.
//!
//! [`scripted::ScriptedModel`] replays fixed responses and errors when it
//! runs out; [`simulated::SimulatedModel`] is a seeded model of a drifting
//! LLM that decides from the request alone. Each backend owns the
//! parameters it is built from ([`scripted::ScriptedResponse`],
//! [`simulated::SimulateParams`], [`simulated::Skill`]); the scenario
//! schema reads them, not the other way round.

pub mod cassette;
pub mod http;
pub mod scripted;
pub mod simulated;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::llm::{Model, ModelError, ToolInput, turn_of};

/// A tool call as a backend makes it (`{tool, input}` in a scenario).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    pub tool: String,
    #[serde(default = "empty_input", deserialize_with = "object_input")]
    pub input: ToolInput,
}

/// `{}`, shared: the input of a call written without one.
pub fn empty_input() -> ToolInput {
    ToolInput::new(empty_object())
}

/// [`object_value`], shared as a call's input.
pub fn object_input<'de, D: Deserializer<'de>>(d: D) -> Result<ToolInput, D::Error> {
    object_value(d).map(ToolInput::new)
}

/// `{}`: the input of a call written without one.
pub fn empty_object() -> Value {
    Value::Object(Default::default())
}

/// Deserializes a tool input: a mapping, or a string for a freeform call
/// (a tool offered as `{"type": "custom"}`, such as Codex's `apply_patch`;
/// only the OpenAI Responses API carries it).
pub fn object_value<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    match Value::deserialize(d)? {
        v @ (Value::Object(_) | Value::String(_)) => Ok(v),
        other => Err(de::Error::custom(format!(
            "tool input must be a mapping (or a string, for a freeform call), got {other}"
        ))),
    }
}
