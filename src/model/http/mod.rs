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

pub mod anthropic;
pub mod backends;
pub mod estimate;
pub mod limits;
pub mod openai;
pub mod retry;
pub mod secrets;
pub mod usage;

pub use anthropic::{AnthropicModel, AnthropicParams};
pub use backends::{RealBackends, RealModelSpec, RunModel};
pub use estimate::SpendEstimate;
pub use limits::{BadBudget, ConcurrencyLimit, Permit, SpendBudget};
pub use openai::{OpenAiModel, OpenAiParams};
pub use retry::{Backoff, RetryPolicy};
pub use usage::{Price, PriceTable, RunUsage, Usage, UsageMeter};

use crate::llm::{ContentBlock, Model, ModelError, ModelRequest, ModelResponse, tool_use_id};
use crate::llm::{Message, turn_of};
use reqwest::blocking::Client;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

/// The response header with which agent-eval's own mock server (`serve`)
/// says the model has nothing left to say (`script_exhausted`) while it
/// answers with a closing text for external agents. The built-in loop,
/// driven through the wire by these clients, then stops exactly as it
/// does in process. Real APIs never send it.
pub const MOCK_FINISH_HEADER: &str = "x-agent-eval-finish";

/// The largest answer body read from an API (a model's answer is a few
/// kilobytes; anything near this is a broken or hostile peer).
pub const MAX_ANSWER_BYTES: u64 = 32 << 20;

/// Which real API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Provider {
    Anthropic,
    OpenAi,
}

impl Provider {
    /// The name used in `--model PROVIDER:NAME` and in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::OpenAi => "openai",
        }
    }

    pub fn key_var(self) -> &'static str {
        match self {
            Self::Anthropic => "ANTHROPIC_API_KEY",
            Self::OpenAi => "OPENAI_API_KEY",
        }
    }

    pub fn base_url_var(self) -> &'static str {
        match self {
            Self::Anthropic => "ANTHROPIC_BASE_URL",
            Self::OpenAi => "OPENAI_BASE_URL",
        }
    }

    pub fn default_base_url(self) -> &'static str {
        match self {
            Self::Anthropic => "https://api.anthropic.com",
            Self::OpenAi => "https://api.openai.com/v1",
        }
    }

    /// `anthropic` or `openai`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "anthropic" => Some(Self::Anthropic),
            "openai" => Some(Self::OpenAi),
            _ => None,
        }
    }
}

/// `--model PROVIDER:NAME` (`anthropic:claude-sonnet-4-5`,
/// `openai:llama3:8b`: the name is everything after the first colon).
pub fn parse_model_flag(text: &str) -> Result<(Provider, String), String> {
    let (provider, name) = text.split_once(':').ok_or_else(|| {
        format!("expected PROVIDER:NAME (anthropic:NAME or openai:NAME), got {text:?}")
    })?;
    let provider = Provider::parse(provider.trim()).ok_or_else(|| {
        format!("unknown model provider {provider:?}: expected anthropic or openai")
    })?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("{text:?} names no model after the colon"));
    }
    Ok((provider, name.to_string()))
}

/// `--price MODEL=INPUT,OUTPUT` (US dollars per million input and output
/// tokens; the model name is everything before the last `=`).
pub fn parse_price_flag(text: &str) -> Result<(String, Price), String> {
    let usage = || format!("expected MODEL=INPUT,OUTPUT (USD per million tokens), got {text:?}");
    let (model, prices) = text.rsplit_once('=').ok_or_else(usage)?;
    let (input, output) = prices.split_once(',').ok_or_else(usage)?;
    let number = |p: &str| p.trim().parse::<f64>().map_err(|_| usage());
    let price = Price {
        input_per_mtok: number(input)?,
        output_per_mtok: number(output)?,
    };
    if model.trim().is_empty() || !price.is_valid() {
        return Err(usage());
    }
    Ok((model.trim().to_string(), price))
}

/// Reads a `temperature:` of a model's parameters: a finite number not
/// below zero (a NaN would be sent as `null`), refused at the file's line.
pub(crate) fn temperature<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<f64>, D::Error> {
    let value: Option<f64> = serde::Deserialize::deserialize(deserializer)?;
    match value {
        Some(t) if !t.is_finite() || t < 0.0 => Err(serde::de::Error::custom(format!(
            "temperature must be a finite number >= 0, got {t}"
        ))),
        other => Ok(other),
    }
}

/// Reads a model's name: not empty.
pub(crate) fn model_name<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<String, D::Error> {
    let name: String = serde::Deserialize::deserialize(deserializer)?;
    if name.trim().is_empty() {
        return Err(serde::de::Error::custom("model: the model's name is empty"));
    }
    Ok(name)
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a real model cannot be set up. (Failures while running become
/// [`ModelError::Backend`] and end the run, they never abort the others.)
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HttpModelError {
    #[error("the {provider} model needs an API key: set the environment variable {var}")]
    MissingKey {
        provider: Provider,
        var: &'static str,
    },
    #[error("{var} is not an http(s) URL: {value}")]
    BadBaseUrl { var: &'static str, value: String },
    #[error("the API key in {var} cannot be sent in an HTTP header")]
    BadKey { var: &'static str },
    #[error(
        "a spend limit needs a price for model {model}: set input_per_mtok and output_per_mtok for it"
    )]
    NoPrice { model: String },
    #[error("invalid price for model {model}: prices must be finite and >= 0")]
    BadPrice { model: String },
    #[error("cannot start the HTTP client: {0}")]
    Client(String),
}

/// An API key. It is never printed (`Debug` shows `[redacted]`) and every
/// error text a backend returns is scrubbed of it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// `text` with every occurrence of the key replaced by `[redacted]`.
    pub fn redact(&self, text: &str) -> String {
        if self.0.is_empty() {
            text.to_string()
        } else {
            text.replace(&self.0, "[redacted]")
        }
    }

    fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Where an API lives and the key to use there.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub provider: Provider,
    /// No trailing slash. Anthropic: the host (`https://api.anthropic.com`);
    /// OpenAI: ending in `/v1`.
    pub base_url: String,
    key: ApiKey,
}

impl Endpoint {
    pub fn new(provider: Provider, base_url: &str, key: ApiKey) -> Result<Self, HttpModelError> {
        let base_url = base_url.trim().trim_end_matches('/').to_string();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(HttpModelError::BadBaseUrl {
                var: provider.base_url_var(),
                value: base_url,
            });
        }
        if key.0.is_empty() {
            return Err(HttpModelError::MissingKey {
                provider,
                var: provider.key_var(),
            });
        }
        if HeaderValue::from_str(key.expose()).is_err() {
            return Err(HttpModelError::BadKey {
                var: provider.key_var(),
            });
        }
        Ok(Self {
            provider,
            base_url,
            key,
        })
    }

    /// From the process environment (`ANTHROPIC_BASE_URL`/`ANTHROPIC_API_KEY`
    /// or `OPENAI_BASE_URL`/`OPENAI_API_KEY`).
    pub fn from_env(provider: Provider) -> Result<Self, HttpModelError> {
        Self::from_lookup(provider, |name| {
            secrets::taken(name).or_else(|| std::env::var(name).ok())
        })
    }

    /// From any variable lookup (tests pass a map instead of the process
    /// environment). An empty variable counts as unset.
    pub fn from_lookup(
        provider: Provider,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, HttpModelError> {
        let set = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let key = set(provider.key_var()).ok_or(HttpModelError::MissingKey {
            provider,
            var: provider.key_var(),
        })?;
        let base =
            set(provider.base_url_var()).unwrap_or_else(|| provider.default_base_url().to_string());
        Self::new(provider, &base, ApiKey::new(key.trim()))
    }

    pub fn key(&self) -> &ApiKey {
        &self.key
    }
}

/// What every real model of one evaluation shares.
#[derive(Debug, Clone)]
pub struct HttpContext {
    client: Client,
    pub retry: RetryPolicy,
    /// The longest one request may take, body included.
    pub request_timeout: Duration,
    pub limit: Option<Arc<ConcurrencyLimit>>,
    pub budget: Option<Arc<SpendBudget>>,
    pub prices: Arc<PriceTable>,
}

impl HttpContext {
    /// Default retries, a 10-minute request timeout, no limits, no prices.
    pub fn new() -> Result<Self, HttpModelError> {
        let client = Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .redirect(same_origin_redirects())
            .build()
            .map_err(|e| HttpModelError::Client(e.to_string()))?;
        Ok(Self {
            client,
            retry: RetryPolicy::default(),
            request_timeout: Duration::from_secs(600),
            limit: None,
            budget: None,
            prices: Arc::new(PriceTable::new()),
        })
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// At most `max` requests in flight across every model of this context.
    pub fn with_max_concurrency(mut self, max: usize) -> Self {
        self.limit = Some(ConcurrencyLimit::new(max));
        self
    }

    pub fn with_budget(mut self, budget: Arc<SpendBudget>) -> Self {
        self.budget = Some(budget);
        self
    }

    pub fn with_prices(mut self, prices: PriceTable) -> Self {
        self.prices = Arc::new(prices);
        self
    }

    /// The price of `model` (the table's, else its own), checked; an error when a budget is set and the
    /// model has no price (a limit that cannot be counted is no limit).
    fn price_for(
        &self,
        model: &str,
        own_price: Option<Price>,
    ) -> Result<Option<Price>, HttpModelError> {
        let price = self.prices.get(model).or(own_price);
        if let Some(price) = price
            && !price.is_valid()
        {
            return Err(HttpModelError::BadPrice {
                model: model.to_string(),
            });
        }
        if price.is_none() && self.budget.is_some() {
            return Err(HttpModelError::NoPrice {
                model: model.to_string(),
            });
        }
        Ok(price)
    }
}

/// Redirects are followed only within the base URL's origin (scheme, host
/// and port): the key headers (`x-api-key`, `Authorization`) go with every
/// request this client makes, and reqwest strips only `Authorization` when
/// a redirect changes host, so a redirect elsewhere is an error instead.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let origin = |url: &reqwest::Url| url.origin();
        let same = attempt
            .previous()
            .first()
            .is_some_and(|first| origin(first) == origin(attempt.url()));
        if !same {
            attempt.error("redirect to another origin refused (it would carry the API key)")
        } else if attempt.previous().len() >= 10 {
            attempt.error("too many redirects")
        } else {
            attempt.follow()
        }
    })
}

/// One block of an API's answer, with the API's own call id.
#[derive(Debug, Clone, PartialEq)]
enum ApiBlock {
    Text(String),
    Call {
        api_id: String,
        name: String,
        input: Value,
    },
}

/// An API's answer, parsed.
#[derive(Debug, Clone, PartialEq)]
struct ApiReply {
    blocks: Vec<ApiBlock>,
    usage: Usage,
}

/// One wire format: how a request is written and an answer read.
trait WireFormat {
    /// The path after the base URL.
    fn path(&self) -> &'static str;
    /// Headers besides content type (the key among them).
    fn headers(&self, key: &ApiKey) -> Vec<(HeaderName, String)>;
    /// The request body; `api_id` maps the loop's call ids to the API's.
    fn body(&self, request: &ModelRequest<'_>, api_id: &dyn Fn(&str) -> String) -> Value;
    /// The answer, or what is wrong with it.
    fn parse(&self, body: Value) -> Result<ApiReply, String>;
}

/// The loop's call ids ↔ the API's.
#[derive(Debug, Clone, Default)]
struct IdMap {
    to_api: BTreeMap<String, String>,
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
    format: F,
    endpoint: Endpoint,
    context: HttpContext,
    headers: HeaderMap,
    url: String,
    backoff: Backoff,
    ids: IdMap,
    price: Option<Price>,
    meter: UsageMeter,
}

impl<F> ApiModel<F> {
    /// A handle on this run's token usage and cost; read it after the run.
    pub fn usage_meter(&self) -> UsageMeter {
        self.meter.clone()
    }
}

/// A model speaking `format`, with the price of `model` checked.
fn build<F: WireFormat>(
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

impl<F> ApiModel<F> {
    /// Posts `body`, retrying what is worth retrying, and returns the JSON
    /// answer. Error texts are scrubbed of the key.
    fn post(&mut self, body: &Value) -> Result<Answer, ModelError> {
        let url = self.url.clone();
        let provider = self.endpoint.provider;
        let max_attempts = self.backoff.policy().max_attempts.max(1);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let outcome = {
                let _permit = self.context.limit.as_ref().map(|l| l.acquire());
                self.send_once(&url, body)
            };
            let message = match outcome {
                Ok(value) => return Ok(value),
                Err(Failure::Fatal(message)) => message,
                Err(Failure::Cancelled) => {
                    "cancelled (interrupted) while waiting for the answer".to_string()
                }
                Err(Failure::Retry(message, server_delay)) => {
                    if attempt < max_attempts {
                        if sleep_unless_cancelled(self.backoff.delay(attempt, server_delay)) {
                            continue;
                        }
                        format!("{message} (cancelled while waiting to retry)")
                    } else {
                        format!("{message} (gave up after {attempt} attempts)")
                    }
                }
            };
            let message = self.endpoint.key().redact(&message);
            return Err(ModelError::Backend(format!("{provider} {url}: {message}")));
        }
    }

    /// Sends one request and waits for its answer, watching for Ctrl-C:
    /// the blocking request runs on a thread of its own while this one
    /// polls the cancellation flag every [`CANCEL_POLL`], so an interrupt
    /// ends the wait at once instead of after the request timeout (ten
    /// minutes). The abandoned request ends with its connection when the
    /// process exits, or at its own timeout.
    fn send_once(&self, url: &str, body: &Value) -> Result<Answer, Failure> {
        let request = self
            .context
            .client
            .post(url)
            .headers(self.headers.clone())
            .timeout(self.context.request_timeout)
            .json(body);
        let (sender, answer) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("agent-eval-http".into())
            .spawn(move || {
                let _ = sender.send(read_answer(request.send()));
            })
            .map_err(|e| Failure::Retry(format!("cannot start the request: {e}"), None))?;
        loop {
            if crate::cancel::requested() {
                return Err(Failure::Cancelled);
            }
            match answer.recv_timeout(CANCEL_POLL) {
                Ok(outcome) => return outcome,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(Failure::Retry(
                        "the request ended without an answer".into(),
                        None,
                    ));
                }
            }
        }
    }
}

/// How often a request in flight looks at the cancellation flag.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// Reads a sent request's answer (at most [`MAX_ANSWER_BYTES`] of body).
fn read_answer(sent: reqwest::Result<reqwest::blocking::Response>) -> Result<Answer, Failure> {
    let response = sent.map_err(|e| Failure::Retry(error_chain(&e), None))?;
    let status = response.status();
    let server_delay = retry::server_delay(response.headers());
    let script_exhausted = response
        .headers()
        .get(MOCK_FINISH_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim() == "script_exhausted");
    let mut bytes = Vec::new();
    // A peer may send anything: read at most the cap (and one byte more
    // to tell that it was passed).
    std::io::Read::take(response, MAX_ANSWER_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::Retry(error_chain(&e), None))?;
    if bytes.len() as u64 > MAX_ANSWER_BYTES {
        return Err(Failure::Fatal(format!(
            "HTTP {status} with a body over {MAX_ANSWER_BYTES} bytes"
        )));
    }
    if status.is_success() {
        let body = serde_json::from_slice(&bytes).map_err(|e| {
            Failure::Fatal(format!("HTTP {status} with a body that is not JSON: {e}"))
        })?;
        return Ok(Answer {
            body,
            script_exhausted,
        });
    }
    let text = String::from_utf8_lossy(&bytes);
    let excerpt: String = text.chars().take(1000).collect();
    let message = format!("HTTP {status}: {excerpt}");
    if retry::is_retryable_status(status.as_u16()) {
        Err(Failure::Retry(message, server_delay))
    } else {
        Err(Failure::Fatal(message))
    }
}

/// Sleeps `delay` in short slices; false as soon as Ctrl-C is requested, so
/// a run waiting out a long `retry-after` does not hold the stop up.
fn sleep_unless_cancelled(delay: Duration) -> bool {
    const SLICE: Duration = Duration::from_millis(50);
    let mut left = delay;
    while !left.is_zero() {
        if crate::cancel::requested() {
            return false;
        }
        let step = left.min(SLICE);
        std::thread::sleep(step);
        left -= step;
    }
    !crate::cancel::requested()
}

/// A successful answer.
struct Answer {
    body: Value,
    /// The mock server said its script is used up.
    script_exhausted: bool,
}

enum Failure {
    Retry(String, Option<Duration>),
    Fatal(String),
    /// Ctrl-C while the request was in flight.
    Cancelled,
}

/// An error and its causes on one line (reqwest's own text stops at the
/// outermost layer, which rarely says what went wrong).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
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
fn answer<F: WireFormat>(
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
            model.endpoint.key().redact(&problem)
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
fn redact_block(key: &ApiKey, block: ApiBlock) -> ApiBlock {
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

fn redact_value(key: &ApiKey, value: Value) -> Value {
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
fn with_api_ids(messages: &[Message], api_id: &dyn Fn(&str) -> String) -> Vec<Message> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn missing_key_names_the_variable() {
        let err = Endpoint::from_lookup(Provider::Anthropic, env(&[])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the anthropic model needs an API key: set the environment variable ANTHROPIC_API_KEY"
        );
        let err =
            Endpoint::from_lookup(Provider::OpenAi, env(&[("OPENAI_API_KEY", "  ")])).unwrap_err();
        assert!(err.to_string().contains("OPENAI_API_KEY"));
    }

    #[test]
    fn base_urls_default_and_lose_trailing_slashes() {
        let e =
            Endpoint::from_lookup(Provider::Anthropic, env(&[("ANTHROPIC_API_KEY", "k")])).unwrap();
        assert_eq!(e.base_url, "https://api.anthropic.com");
        let e = Endpoint::from_lookup(
            Provider::OpenAi,
            env(&[
                ("OPENAI_API_KEY", "k"),
                ("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1/"),
            ]),
        )
        .unwrap();
        assert_eq!(e.base_url, "http://127.0.0.1:8080/v1");
        let err = Endpoint::from_lookup(
            Provider::OpenAi,
            env(&[("OPENAI_API_KEY", "k"), ("OPENAI_BASE_URL", "localhost:1")]),
        )
        .unwrap_err();
        assert!(matches!(err, HttpModelError::BadBaseUrl { .. }));
    }

    #[test]
    fn keys_never_print() {
        let e = Endpoint::from_lookup(
            Provider::Anthropic,
            env(&[("ANTHROPIC_API_KEY", "sk-secret-123")]),
        )
        .unwrap();
        assert!(!format!("{e:?}").contains("sk-secret-123"));
        assert_eq!(
            e.key().redact("bad key sk-secret-123!"),
            "bad key [redacted]!"
        );
        let err = Endpoint::from_lookup(
            Provider::Anthropic,
            env(&[("ANTHROPIC_API_KEY", "bad\nkey")]),
        )
        .unwrap_err();
        assert!(!err.to_string().contains("bad\nkey"));
    }

    #[test]
    fn budget_without_price_is_refused() {
        let context = HttpContext::new()
            .unwrap()
            .with_budget(SpendBudget::new(1.0).unwrap());
        assert_eq!(
            context.price_for("m", None),
            Err(HttpModelError::NoPrice { model: "m".into() })
        );
        let mut prices = PriceTable::new();
        prices.set(
            "m",
            Price {
                input_per_mtok: f64::NAN,
                output_per_mtok: 1.0,
            },
        );
        let context = context.with_prices(prices);
        assert!(matches!(
            context.price_for("m", None),
            Err(HttpModelError::BadPrice { .. })
        ));
        let own = Price {
            input_per_mtok: 1.0,
            output_per_mtok: 2.0,
        };
        assert_eq!(context.price_for("other", Some(own)), Ok(Some(own)));
        let table_wins = context.price_for("m", Some(own));
        assert!(matches!(table_wins, Err(HttpModelError::BadPrice { .. })));
    }

    #[test]
    fn model_and_price_flags() {
        assert_eq!(
            parse_model_flag("openai:llama3:8b"),
            Ok((Provider::OpenAi, "llama3:8b".to_string()))
        );
        assert_eq!(
            parse_model_flag("anthropic:claude-x"),
            Ok((Provider::Anthropic, "claude-x".to_string()))
        );
        for bad in ["claude-x", "gemini:x", "anthropic:", ""] {
            assert!(parse_model_flag(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_price_flag("llama3:8b=0.5,1.5"),
            Ok((
                "llama3:8b".to_string(),
                Price {
                    input_per_mtok: 0.5,
                    output_per_mtok: 1.5
                }
            ))
        );
        for bad in ["m=1", "m=a,b", "=1,2", "m=-1,2", "m=1,inf", "m"] {
            assert!(parse_price_flag(bad).is_err(), "{bad}");
        }
    }
}
