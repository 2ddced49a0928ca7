//! One request to an API: posted with retries and backoff under the
//! concurrency limit, its answer read on a thread of its own so Ctrl-C
//! ends the wait at once, its body bounded, its failures sorted into
//! worth retrying or not.

use std::io::Read;
use std::time::Duration;

use serde_json::Value;

use super::api_model::ApiModel;
use super::retry;
use crate::llm::ModelError;

/// The response header with which agent-eval's own mock server (`serve`)
/// says the model has nothing left to say (`script_exhausted`) while it
/// answers with a closing text for external agents. The built-in loop,
/// driven through the wire by these clients, then stops exactly as it
/// does in process. Real APIs never send it.
pub const MOCK_FINISH_HEADER: &str = "x-agent-eval-finish";

/// The largest answer body read from an API (a model's answer is a few
/// kilobytes; anything near this is a broken or hostile peer).
pub const MAX_ANSWER_BYTES: u64 = 32 << 20;

impl<F> ApiModel<F> {
    /// Posts `body`, retrying what is worth retrying, and returns the JSON
    /// answer. Error texts are scrubbed of the key.
    pub(super) fn post(&mut self, body: &Value) -> Result<Answer, ModelError> {
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
pub(super) const CANCEL_POLL: Duration = Duration::from_millis(50);

/// Reads a sent request's answer (at most [`MAX_ANSWER_BYTES`] of body).
pub(super) fn read_answer(
    sent: reqwest::Result<reqwest::blocking::Response>,
) -> Result<Answer, Failure> {
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
pub(super) fn sleep_unless_cancelled(delay: Duration) -> bool {
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
pub(super) struct Answer {
    pub(super) body: Value,
    /// The mock server said its script is used up.
    pub(super) script_exhausted: bool,
}

pub(super) enum Failure {
    Retry(String, Option<Duration>),
    Fatal(String),
    /// Ctrl-C while the request was in flight.
    Cancelled,
}

/// An error and its causes on one line (reqwest's own text stops at the
/// outermost layer, which rarely says what went wrong).
pub(super) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
