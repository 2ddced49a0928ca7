//! The mock LLMs: a [`Model`] answers a [`ModelRequest`] with content blocks
//! and a stop reason, like the Messages API does.
//!
//! [`scripted::ScriptedModel`] replays fixed responses and errors when it
//! runs out; [`simulated::SimulatedModel`] is a seeded model of a drifting
//! LLM that decides from the request alone.

pub mod scripted;
pub mod simulated;

use crate::agent::messages::{ModelRequest, ModelResponse, Role};

/// Why a model could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("the script has no response left for turn {turn} (it holds {responses})")]
    ScriptExhausted { turn: usize, responses: usize },
}

/// A mock LLM.
pub trait Model {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError>;
}

/// The turn a request asks for: one more than the assistant messages in it.
pub fn turn_of(request: &ModelRequest<'_>) -> usize {
    request
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .count()
        + 1
}
