//! The mock LLMs: a [`Model`] answers a [`crate::llm::ModelRequest`] with content blocks
//! and a stop reason, like the Messages API does.
//!
//! [`scripted::ScriptedModel`] replays fixed responses and errors when it
//! runs out; [`simulated::SimulatedModel`] is a seeded model of a drifting
//! LLM that decides from the request alone.

pub mod cassette;
pub mod http;
pub mod scripted;
pub mod simulated;

pub use crate::llm::{Model, ModelError, turn_of};
