//! The ground floor: the conversation and the model boundary.
//!
//! Messages, content blocks, the request the loop sends and the response a
//! model returns, in the Anthropic Messages API shape, plus the [`Model`]
//! trait every backend implements (scripted, simulated, HTTP). Nothing here
//! imports the rest of the crate, so every other module can build on it.

pub mod messages;
pub mod price;
pub mod protocol;
pub mod session;
pub mod shared_slots;

pub use messages::{
    Content, ContentBlock, Message, ModelRequest, ModelResponse, Role, StopReason, ToolInput,
    ToolSchema, tool_use_id,
};

/// Why a model could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// A scripted model (or cassette) has no response left.
    #[error("the script has no response left for turn {turn} (it holds {responses})")]
    ScriptExhausted { turn: usize, responses: usize },
    /// The backend cannot express what it was asked to answer (e.g. a
    /// freeform call outside the Responses API).
    #[error("turn {turn}: {message}")]
    Unsupported { turn: usize, message: String },
    /// A real backend failed for good (after its retries); the message never
    /// holds a secret.
    #[error("model backend failed: {0}")]
    Backend(String),
}

/// A language model, mock or real: answers one request with content blocks
/// and a stop reason.
pub trait Model {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError>;
}

impl<M: Model + ?Sized> Model for Box<M> {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        (**self).respond(request)
    }
}

impl<M: Model + ?Sized> Model for &mut M {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        (**self).respond(request)
    }
}

/// The turn a request asks for: one more than the assistant messages in it
/// (carried by the request, not counted).
pub fn turn_of(request: &ModelRequest<'_>) -> usize {
    request.turn
}

/// The turn a conversation asks for: one more than its assistant messages
/// (counted: for a request made from a conversation received whole).
pub fn count_turn(messages: &[Message]) -> usize {
    messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .count()
        + 1
}
