//! Real language models over HTTP: the Anthropic Messages API
//! ([`AnthropicModel`]) and OpenAI-compatible Chat Completions
//! ([`OpenAiModel`], which also covers vLLM, llama.cpp and Ollama).
//!
//! Both are [`Model`]s the built-in loop drives like the mock ones. What
//! they share lives here:
//! - [`Endpoint`]: base URL and key from the usual environment variables; a
//!   missing key is a typed error naming the variable to set. The key is
//!   held in an [`ApiKey`] that never prints, and every error text is
//!   scrubbed of it.
//! - [`HttpContext`]: one per evaluation — the HTTP client, the retry
//!   policy, the [`ConcurrencyLimit`] and [`SpendBudget`] every run shares,
//!   and the [`PriceTable`].
//! - Tool-call ids: an API's own ids (`toolu_01A…`, `call_abc…`) are
//!   replaced by the loop's `toolu_<turn>_<k>` in the transcript and mapped
//!   back in the next request, so a transcript (and a cassette's request
//!   hashes) never depend on ids the API made up.
//! - Usage: each response's tokens go to the run's [`UsageMeter`] and, if
//!   the model has a price, its cost to the meter and the budget.
//!
//! The rooms: `provider` names the two APIs, `flags` reads `--model` and
//! `--price` and the serde helpers of model parameters; `error` says why a
//! real model cannot be set up; `endpoint` holds the URL and the key,
//! `context` what one evaluation's models share; `api_model` is the
//! [`ApiModel`] over a wire format (ids, usage, redaction), `transport`
//! its posts, retries and bounded reads; `anthropic` and `openai` are the
//! two formats; `limits`, `retry`, `usage`, `estimate`, `secrets` and
//! `backends` as their headers say.

pub mod anthropic;
mod api_model;
pub mod backends;
mod context;
mod endpoint;
mod error;
pub mod estimate;
mod flags;
pub mod limits;
pub mod openai;
mod provider;
pub mod retry;
pub mod secrets;
mod transport;
pub mod usage;

pub use anthropic::{AnthropicModel, AnthropicParams};
pub use api_model::ApiModel;
pub use backends::{RealBackends, RealModelSpec, RunModel};
pub use context::HttpContext;
pub use endpoint::{ApiKey, Endpoint};
pub use error::HttpModelError;
pub use estimate::SpendEstimate;
pub use flags::{FlagError, parse_model_flag, parse_price_flag};
pub use limits::{BadBudget, ConcurrencyLimit, Permit, SpendBudget};
pub use openai::{OpenAiModel, OpenAiParams};
pub use provider::Provider;
pub use retry::{Backoff, RetryPolicy};
pub use transport::{MAX_ANSWER_BYTES, MOCK_FINISH_HEADER};
pub use usage::{BadPrice, Price, PriceTable, RunUsage, Usage, UsageMeter};

#[cfg(test)]
mod tests;
