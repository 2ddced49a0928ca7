//! Why an ACP conversation failed, typed: [`AcpFailure`] ends a run (its
//! message is what the run's failure says, after "the ACP agent failed:"),
//! [`LineError`] is why a line the agent wrote is no JSON-RPC 2.0 message,
//! and [`PlanError`] why a `plan` update could not be read (logged and
//! skipped, the run goes on). Each message is a user's: a test
//! (`tests` below) pins them byte for byte.

use std::time::Duration;

/// Why the conversation with the agent failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AcpFailure {
    /// A request of ours went unanswered past its bound.
    #[error("it never answered `{method}`{} within {} s", part_shown(*part), bound.as_secs())]
    NeverAnswered {
        method: &'static str,
        /// The part (0-based) when the request was a prompt.
        part: Option<usize>,
        bound: Duration,
    },
    /// A line longer than the client's cap (`client::LINE_CAP`).
    #[error("it wrote a line longer than {cap} bytes")]
    LineTooLong { cap: usize },
    /// More bytes of answers than the cap (`client::UNREAD_CAP`) wait for
    /// an agent that does not read its stdin.
    #[error("it does not read its stdin: {queued} bytes of answers wait unread (at most {cap})")]
    StdinUnread { queued: usize, cap: usize },
    /// A line that is not a JSON-RPC 2.0 message.
    #[error("it answered garbage: {0}")]
    Garbage(LineError),
    /// A response to a request that is not the one waiting.
    #[error("it answered request {id}, which is not the one waiting")]
    NotWaiting { id: u64 },
    /// A JSON-RPC error answered to one of our requests.
    #[error("it answered `{method}` with error {code}: {message}")]
    ErrorAnswer {
        method: &'static str,
        code: i64,
        message: String,
    },
    /// Authentication asked for, with no method agent-eval can use.
    #[error(
        "it requires authentication (\"{message}\") and offers no method whose environment variables it has"
    )]
    NoUsableAuthentication { message: String },
    /// `session/new` answered without a session id (the result, shown).
    #[error("its `session/new` result has no sessionId: {result}")]
    NoSessionId { result: String },
    /// A permission request with no option that allows.
    #[error("it asked for a permission with no option that allows")]
    NoAllowingOption,
    /// A request of the agent's that agent-eval does not serve.
    #[error("it sent a request agent-eval does not serve: `{method}` (answered -32601)")]
    NotServed { method: String },
    /// The agent ended (or was ended) while a request of ours waited.
    #[error("it {ending} while agent-eval waited for its answer to `{waiting}`")]
    Ended {
        ending: Ending,
        /// The method waiting (`?` when none was).
        waiting: &'static str,
    },
}

/// " (part N)" for a prompt's part, else nothing.
fn part_shown(part: Option<usize>) -> String {
    part.map(|part| format!(" (part {})", part + 1))
        .unwrap_or_default()
}

/// How the agent's process ended before its last answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Ending {
    #[error("reached the run's timeout")]
    TimedOut,
    #[error("exited with status {0}")]
    Exited(i32),
    #[error("was ended by a signal")]
    Signalled,
}

/// Why a line the agent wrote is not a JSON-RPC 2.0 message; each quotes
/// the line as [`super::messages::shown`] gives it (at most 200 characters: a 16 MiB line
/// is not kept whole in a failure).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LineError {
    #[error("not JSON ({error}): {line}")]
    NotJson { error: String, line: String },
    #[error("not a JSON-RPC object: {line}")]
    NotAnObject { line: String },
    #[error("not JSON-RPC 2.0 (no \"jsonrpc\": \"2.0\"): {line}")]
    NotJsonRpc2 { line: String },
    #[error("a response to an id agent-eval never sent: {line}")]
    ForeignId { line: String },
    #[error("neither a request nor a response: {line}")]
    NeitherRequestNorResponse { line: String },
    #[error("a response with neither `result` nor `error`")]
    NoResultNorError,
}

/// Why a `plan` update could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    #[error("a plan update without an `entries` list")]
    NoEntries,
    /// The entry, as JSON.
    #[error("a plan entry without content or status: {0}")]
    EntryIncomplete(String),
    #[error("a plan entry of unknown status {0:?}")]
    UnknownStatus(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::messages::shown;

    /// A value beside the message it shows.
    type Pinned = (Box<dyn std::fmt::Display>, String);

    /// One row of a table: the value, shown by its `Display`, and the message it must show.
    fn pair(value: impl std::fmt::Display + 'static, message: impl Into<String>) -> Pinned {
        (Box::new(value), message.into())
    }

    /// Every [`AcpFailure`] (each [`Ending`] once) and its message.
    fn failures() -> Vec<Pinned> {
        vec![
            pair(
                AcpFailure::NeverAnswered {
                    method: "initialize",
                    part: None,
                    bound: Duration::from_secs(30),
                },
                "it never answered `initialize` within 30 s",
            ),
            pair(
                AcpFailure::NeverAnswered {
                    method: "session/prompt",
                    part: Some(1),
                    bound: Duration::from_secs(120),
                },
                "it never answered `session/prompt` (part 2) within 120 s",
            ),
            pair(
                AcpFailure::LineTooLong { cap: 16 << 20 },
                "it wrote a line longer than 16777216 bytes",
            ),
            pair(
                AcpFailure::StdinUnread {
                    queued: 1048577,
                    cap: 1 << 20,
                },
                "it does not read its stdin: 1048577 bytes of answers wait unread (at most 1048576)",
            ),
            pair(
                AcpFailure::Garbage(LineError::NotJsonRpc2 {
                    line: shown("{\"id\":1,\"result\":1}\n"),
                }),
                "it answered garbage: not JSON-RPC 2.0 (no \"jsonrpc\": \"2.0\"): {\"id\":1,\"result\":1}",
            ),
            pair(
                AcpFailure::NotWaiting { id: 9 },
                "it answered request 9, which is not the one waiting",
            ),
            pair(
                AcpFailure::ErrorAnswer {
                    method: "session/prompt",
                    code: -32603,
                    message: "boom".into(),
                },
                "it answered `session/prompt` with error -32603: boom",
            ),
            pair(
                AcpFailure::NoUsableAuthentication {
                    message: "Authentication required".into(),
                },
                "it requires authentication (\"Authentication required\") and offers no method whose environment variables it has",
            ),
            pair(
                AcpFailure::NoSessionId {
                    result: "{}".into(),
                },
                "its `session/new` result has no sessionId: {}",
            ),
            pair(
                AcpFailure::NoAllowingOption,
                "it asked for a permission with no option that allows",
            ),
            pair(
                AcpFailure::NotServed {
                    method: "fs/read_text_file".into(),
                },
                "it sent a request agent-eval does not serve: `fs/read_text_file` (answered -32601)",
            ),
            pair(
                AcpFailure::Ended {
                    ending: Ending::Exited(3),
                    waiting: "session/prompt",
                },
                "it exited with status 3 while agent-eval waited for its answer to `session/prompt`",
            ),
            pair(
                AcpFailure::Ended {
                    ending: Ending::TimedOut,
                    waiting: "?",
                },
                "it reached the run's timeout while agent-eval waited for its answer to `?`",
            ),
            pair(
                AcpFailure::Ended {
                    ending: Ending::Signalled,
                    waiting: "initialize",
                },
                "it was ended by a signal while agent-eval waited for its answer to `initialize`",
            ),
        ]
    }

    /// Every [`LineError`] and [`PlanError`] and its message.
    fn line_and_plan_errors() -> Vec<Pinned> {
        let long = format!(
            "a response to an id agent-eval never sent: {}…",
            "x".repeat(200)
        );
        vec![
            pair(
                LineError::NotJson {
                    error: "expected value at line 1 column 1".into(),
                    line: "hello".into(),
                },
                "not JSON (expected value at line 1 column 1): hello",
            ),
            pair(
                LineError::NotAnObject { line: "[1]".into() },
                "not a JSON-RPC object: [1]",
            ),
            pair(
                LineError::ForeignId {
                    line: shown(&"x".repeat(300)),
                },
                long,
            ),
            pair(
                LineError::NeitherRequestNorResponse { line: "{}".into() },
                "neither a request nor a response: {}",
            ),
            pair(
                LineError::NoResultNorError,
                "a response with neither `result` nor `error`",
            ),
            pair(
                PlanError::NoEntries,
                "a plan update without an `entries` list",
            ),
            pair(
                PlanError::EntryIncomplete("{\"content\":\"x\"}".into()),
                "a plan entry without content or status: {\"content\":\"x\"}",
            ),
            pair(
                PlanError::UnknownStatus("done".into()),
                "a plan entry of unknown status \"done\"",
            ),
        ]
    }

    /// The messages users read (docs/acp.md quotes them), byte for byte.
    #[test]
    fn the_messages_are_pinned() {
        for (value, message) in failures().into_iter().chain(line_and_plan_errors()) {
            assert_eq!(value.to_string(), message);
        }
    }
}
