//! The wire: the mock model behind real LLM HTTP APIs (the server side
//! only; the engine's outside-agent runner starts one per run).
//!
//! [`server`] serves any [`crate::llm::Model`] as the Anthropic Messages
//! API, the OpenAI Chat Completions API, the OpenAI Responses API and the
//! Gemini API ([`gemini`]; JSON and streaming), converting every request into the same
//! [`crate::llm::ModelRequest`] the built-in loop would build, and keeping a
//! record of every exchange ([`record`]; each message of it stored once,
//! [`conversation`]). [`observed`] reads what a run did off that
//! record (its counts and the reconstructed transcript). [`translate`] sends a model's calls of the built-in tools
//! in the tools an outside agent offers (Claude Code, Codex).
//!
//! Floor 4: imports the floors below it only.

pub mod anthropic;
pub mod chat;
pub mod chunked;
pub mod conversation;
mod fields;
pub mod gemini;
pub mod incremental;
pub mod observed;
pub mod record;
pub mod responses;
pub mod server;
mod sse;
pub mod tally;
pub mod translate;

pub use observed::{ObservedRun, observe_run, transcript};
pub use record::{Api, Exchange, RecordedRequest, Reply, WireRequest};
pub use server::{MockServer, RunningServer, ServerOptions};

/// Why the wire could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    #[error("cannot start the server: {0}")]
    Runtime(std::io::Error),
    #[error("cannot start the agent `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("cannot write the agent log {path}: {source}")]
    Log {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("interrupted")]
    Interrupted,
}

/// A request the server could not read: answered with status 400 (413 for
/// a body over the limit) in the API's own error shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRequest {
    pub status: u16,
    pub message: String,
}

impl BadRequest {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            status: 400,
            message: message.into(),
        }
    }
}

/// `toolu_<turn>_<k>` as an OpenAI call id (`call_<turn>_<k>`); other ids
/// pass unchanged.
pub fn openai_call_id(id: &str) -> String {
    match id.strip_prefix("toolu_") {
        Some(rest) => format!("call_{rest}"),
        None => id.to_string(),
    }
}

/// An OpenAI call id back as the model's id: `call_<t>_<k>` becomes
/// `toolu_<t>_<k>`, so the model sees the ids it wrote; ids a client made
/// up itself pass unchanged.
pub fn model_call_id(id: &str) -> String {
    match id.strip_prefix("call_") {
        Some(rest) if is_turn_k(rest) => format!("toolu_{rest}"),
        _ => id.to_string(),
    }
}

fn is_turn_k(rest: &str) -> bool {
    let mut parts = rest.split('_');
    let all_digits =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    all_digits(parts.next()) && all_digits(parts.next()) && parts.next().is_none()
}

/// A rough, deterministic token count (four characters a token, at least
/// one, at most `cap`): small on purpose, so clients that compact their
/// context when usage grows (Codex) never do.
pub fn token_estimate(chars: usize, cap: u64) -> u64 {
    ((chars as u64).div_ceil(4)).clamp(1, cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_ids_map_both_ways() {
        assert_eq!(openai_call_id("toolu_3_2"), "call_3_2");
        assert_eq!(model_call_id("call_3_2"), "toolu_3_2");
        assert_eq!(model_call_id("call_abc"), "call_abc");
        assert_eq!(model_call_id("call_1_2_3"), "call_1_2_3");
        assert_eq!(openai_call_id("x"), "x");
    }

    #[test]
    fn token_estimates_are_small() {
        assert_eq!(token_estimate(0, 100), 1);
        assert_eq!(token_estimate(9, 100), 3);
        assert_eq!(token_estimate(1 << 30, 100), 100);
    }
}
