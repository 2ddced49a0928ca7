//! A run's metrics read off the wire: only from the requests the agent
//! sent and the responses the model gave, never from the agent's word.
//!
//! - `turns`: responses the model served (closing answers after the script
//!   ran out, errors and unreadable requests are not turns);
//! - `todo_calls`: `tool_use` blocks the model sent naming one of the
//!   dialect's planning tools that the answered request offered;
//! - `unknown_tool_calls`: `tool_use` blocks naming a tool the answered
//!   request did not offer (a planning tool included);
//! - `rejected_todo_updates`: planning calls whose `tool_result` (in a
//!   later request) is one of the dialect's errors, or is flagged
//!   `is_error: true` by the client;
//! - `reminders_at`: turn t has a reminder when the content the request
//!   after response t adds (everything after its last assistant message)
//!   contains `<reminder>`, `<system-reminder>` or the custom pattern (for
//!   an agent preset: its own planning reminder's text, and nothing else);
//!   history is never counted again;
//! - side requests (no tools offered) and unreadable requests take no part;
//! - `protocol_violations`: distinct protocol violations (turn and rule)
//!   over every request;
//! - the price of planning (`llm::price`): each answered request's own
//!   system prompt and messages, its planning calls those of the tools it
//!   offered; reminders as above;
//! - `stop`: `end_turn` (the model's last response ended its turn),
//!   `max_turns`, `script_exhausted` (the agent asked for more after the
//!   script ran out), `model_error`, `timeout` (cut by the timeout while the
//!   model still had work to give), `agent_exit` (the agent exited, or
//!   never asked, while the model still had work to give).

use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use super::record::{Exchange, Finish, RecordedRequest, Reply};
use crate::agent::StopKind;
use crate::llm::price::{ConversationChars, PlanningPrice, PriceRules, WorkdirSpelling};
use crate::llm::{ContentBlock, Message, Role, StopReason};
use crate::plan::dialect::PlanDialect;

/// The texts that mark a reminder in any design.
pub use crate::llm::price::REMINDER_MARKERS;

/// Everything measured from the wire for one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ObservedRun {
    pub turns: usize,
    pub stop: StopKind,
    pub reminders_at: Vec<usize>,
    pub rejected_todo_updates: usize,
    pub todo_calls: usize,
    pub unknown_tool_calls: usize,
    pub protocol_violations: usize,
    /// Requests the server could not read (answered 400/413).
    pub malformed_requests: usize,
    /// Tokens of the answered requests, and the planning part of them.
    pub price: PlanningPrice,
    /// Per turn served: the index of its exchange in the record, and the
    /// planning calls the model made in it (what per-part figures count).
    #[serde(skip)]
    pub served: Vec<(usize, usize)>,
}

/// What marks a reminder in a request's new content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReminderMarks<'a> {
    /// `<reminder>`, `<system-reminder>`, or the pattern when given.
    Tagged(Option<&'a str>),
    /// Only this text: an agent's own planning reminder (a preset), whose
    /// client also adds `<system-reminder>`s for other reasons.
    Exactly(&'a str),
}

impl ReminderMarks<'_> {
    fn found_in(&self, text: &str) -> bool {
        match *self {
            Self::Tagged(pattern) => has_reminder(text, pattern),
            Self::Exactly(pattern) => !pattern.is_empty() && text.contains(pattern),
        }
    }
}

/// Reads the metrics off a record. `timed_out`: the run was cut by its
/// timeout.
pub fn observe_run(
    exchanges: &[Exchange],
    dialect: &dyn PlanDialect,
    reminder_pattern: Option<&str>,
    workdir: Option<&Path>,
    timed_out: bool,
) -> ObservedRun {
    observe_run_marked(
        exchanges,
        dialect,
        ReminderMarks::Tagged(reminder_pattern),
        workdir,
        timed_out,
    )
}

/// [`observe_run`] with reminders found by `marks`.
pub fn observe_run_marked(
    exchanges: &[Exchange],
    dialect: &dyn PlanDialect,
    marks: ReminderMarks<'_>,
    workdir: Option<&Path>,
    timed_out: bool,
) -> ObservedRun {
    let answered: Vec<(usize, &Exchange)> = exchanges
        .iter()
        .enumerate()
        .filter(|(_, e)| e.is_loop())
        .collect();
    let mut served = Vec::new();
    let answered_at: Vec<usize> = answered.iter().map(|(at, _)| *at).collect();
    let answered: Vec<&Exchange> = answered.into_iter().map(|(_, e)| e).collect();
    let mut turns = 0;
    let mut reminders_at = Vec::new();
    let mut todo_calls = 0;
    let mut unknown_tool_calls = 0;
    let mut rejected_todo_updates = 0;
    let mut violations = BTreeSet::new();
    for (index, (exchange, &at)) in answered.iter().zip(&answered_at).enumerate() {
        for v in &exchange.violations {
            violations.insert((v.turn, v.rule.clone()));
        }
        let (Reply::Response { response, .. }, Some(request)) =
            (&exchange.reply, &exchange.request)
        else {
            continue;
        };
        turns += 1;
        let planning_before = todo_calls;
        let later = answered.get(index + 1..).unwrap_or_default();
        if let Some(next) = later.first().and_then(|e| e.request.as_ref())
            && next.added_texts().iter().any(|text| marks.found_in(text))
        {
            reminders_at.push(turns);
        }
        for block in &response.content {
            let ContentBlock::ToolUse { id, name, .. } = block else {
                continue;
            };
            if !request.offers(name) {
                unknown_tool_calls += 1;
            } else if dialect.is_planning_tool(name) {
                todo_calls += 1;
                let flagged = later
                    .first()
                    .is_some_and(|e| e.request.as_ref().is_some_and(|r| r.flags_error(id)));
                if flagged || result_for(later, id).is_some_and(|content| dialect.is_error(content))
                {
                    rejected_todo_updates += 1;
                }
            }
        }
        served.push((at, todo_calls - planning_before));
    }
    let workdir = workdir.map(WorkdirSpelling::new).unwrap_or_default();
    let price = wire_price(&answered, dialect, marks, &reminders_at, &workdir);
    ObservedRun {
        price,
        turns,
        stop: stop_of(exchanges, timed_out),
        reminders_at,
        rejected_todo_updates,
        todo_calls,
        unknown_tool_calls,
        protocol_violations: violations.len(),
        malformed_requests: exchanges.iter().filter(|e| e.request.is_none()).count(),
        served,
    }
}

/// The price of planning over the answered requests: each priced as sent
/// (a client may rewrite or compact its history), with the turns that
/// answered them. A request that continues the one before (its messages
/// stored after that one's, the same tools offered) is counted on from
/// it, only its new messages read: pricing every request afresh read the
/// whole conversation again on every turn. The system prompt, the same
/// stored value request after request, is counted once while it stays.
fn wire_price(
    answered: &[&Exchange],
    dialect: &dyn PlanDialect,
    marks: ReminderMarks<'_>,
    reminders_at: &[usize],
    workdir: &WorkdirSpelling,
) -> PlanningPrice {
    let (reminder_pattern, pattern_only) = match marks {
        ReminderMarks::Tagged(pattern) => (pattern, false),
        ReminderMarks::Exactly(pattern) => (Some(pattern), true),
    };
    let mut price = PlanningPrice::default();
    let mut turn = 0;
    let mut conversation = ConversationChars::default();
    // The request counted last: its messages and tools, and its system
    // prompt with its characters.
    let mut counted: Option<&RecordedRequest> = None;
    let mut system_chars = 0;
    for exchange in answered {
        let (Reply::Response { response, .. }, Some(request)) =
            (&exchange.reply, &exchange.request)
        else {
            continue;
        };
        turn += 1;
        let is_planning = |name: &str| request.offers(name) && dialect.is_planning_tool(name);
        let rules = PriceRules {
            workdir,
            is_planning: &is_planning,
            reminder_pattern,
            pattern_only,
        };
        let added = counted
            .filter(|before| Arc::ptr_eq(&before.tools, &request.tools))
            .and_then(|before| request.messages.added_to(&before.messages));
        let added = added.unwrap_or_else(|| {
            conversation = ConversationChars::default();
            request.messages.iter().collect()
        });
        for message in added {
            conversation.add(message, &rules);
        }
        if !counted.is_some_and(|before| Arc::ptr_eq(&before.system, &request.system)) {
            system_chars = workdir.chars(&request.system) as u64;
        }
        counted = Some(request);
        price.add_request(system_chars, &conversation);
        price.add_turn(&response.content, reminders_at.contains(&turn), &rules);
    }
    price
}

fn has_reminder(text: &str, pattern: Option<&str>) -> bool {
    REMINDER_MARKERS.iter().any(|m| text.contains(m))
        || pattern.is_some_and(|p| !p.is_empty() && text.contains(p))
}

/// The first tool result answering `id` in the requests that followed.
fn result_for<'a>(later: &[&'a Exchange], id: &str) -> Option<&'a str> {
    later.iter().find_map(|e| {
        e.request.as_ref()?.messages.iter().find_map(|m| {
            m.content_blocks().iter().find_map(|b| match b {
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    ..
                } if tool_use_id == id => Some(content.as_str()),
                _ => None,
            })
        })
    })
}

fn stop_of(exchanges: &[Exchange], timed_out: bool) -> StopKind {
    let last = exchanges.iter().rev().find(|e| e.is_loop());
    match last.map(|e| &e.reply) {
        Some(Reply::Response { response, .. }) if response.stop_reason == StopReason::EndTurn => {
            StopKind::EndTurn
        }
        Some(Reply::Finished(Finish::ScriptExhausted)) => StopKind::ScriptExhausted,
        Some(Reply::Finished(Finish::MaxTurns)) => StopKind::MaxTurns,
        Some(Reply::ModelFailed { .. }) => StopKind::ModelError,
        _ if timed_out => StopKind::Timeout,
        _ => StopKind::AgentExit,
    }
}

/// The conversation as the built-in loop would hold it: the last request's
/// messages, plus the model's last response when it was one.
pub fn transcript(exchanges: &[Exchange]) -> Vec<Message> {
    let Some(last) = exchanges.iter().rev().find(|e| e.is_loop()) else {
        return Vec::new();
    };
    let mut messages = last
        .request
        .as_ref()
        .map(|r| r.messages.to_vec())
        .unwrap_or_default();
    if let Reply::Response { response, .. } = &last.reply {
        messages.push(Message::blocks(Role::Assistant, response.content.clone()));
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::protocol;
    use crate::llm::{ModelResponse, ToolSchema, tool_use_id};
    use crate::plan::dialect::Dialect;
    use crate::wire::record::{Api, Record, WireRequest};
    use serde_json::json;

    fn call(turn: usize, k: usize, name: &str) -> ContentBlock {
        ContentBlock::ToolUse {
            id: tool_use_id(turn, k),
            name: name.into(),
            input: json!({}).into(),
        }
    }

    fn result(turn: usize, k: usize, content: &str) -> ContentBlock {
        ContentBlock::ToolResult {
            tool_use_id: tool_use_id(turn, k),
            content: content.into(),
            is_error: false,
        }
    }

    /// A record as a faithful s03 client produces it from `turns` (each the
    /// response blocks, then the user blocks that answer them).
    fn record(turns: &[(Vec<ContentBlock>, Vec<ContentBlock>)], tools: &[&str]) -> Vec<Exchange> {
        record_flagged(turns, tools, &[])
    }

    /// [`record`], the requests after the first flagging the tool results
    /// of `flagged` as errors.
    fn record_flagged(
        turns: &[(Vec<ContentBlock>, Vec<ContentBlock>)],
        tools: &[&str],
        flagged: &[String],
    ) -> Vec<Exchange> {
        let tools: Vec<ToolSchema> = tools
            .iter()
            .map(|n| ToolSchema {
                name: n.to_string().into(),
                description: "".into(),
                input_schema: json!({}),
            })
            .collect();
        let mut messages = vec![Message::user_text("task")];
        let mut record = Record::default();
        for (t, (response, answer)) in turns.iter().enumerate() {
            let request = WireRequest {
                system: String::new(),
                messages: messages.clone(),
                tools: tools.clone(),
                stream: false,
                stream_usage: false,
                model: None,
                late_system: Vec::new(),
                error_results: if t > 0 { flagged.to_vec() } else { Vec::new() },
            };
            record.push(
                Api::Anthropic,
                Some(&request),
                Reply::Response {
                    turn: t + 1,
                    response: ModelResponse::from_blocks(response.clone()),
                },
                protocol::check(&messages),
            );
            messages.push(Message::blocks(Role::Assistant, response.clone()));
            if !answer.is_empty() {
                messages.push(Message::blocks(Role::User, answer.clone()));
            }
        }
        record.exchanges().to_vec()
    }

    #[test]
    fn metrics_follow_the_wire() {
        let exchanges = record(
            &[
                (
                    vec![call(1, 1, "todo")],
                    vec![result(
                        1,
                        1,
                        "Error: Only one task can be in_progress at a time",
                    )],
                ),
                (
                    vec![call(2, 1, "todo"), call(2, 2, "nope")],
                    vec![
                        result(2, 1, "[ ] #1: a\n\n(0/1 completed)"),
                        result(2, 2, "Unknown tool: nope"),
                    ],
                ),
                (
                    vec![call(3, 1, "bash")],
                    vec![
                        ContentBlock::text("<reminder>Update your todos.</reminder>"),
                        result(3, 1, "ok"),
                    ],
                ),
                (vec![ContentBlock::text("done")], vec![]),
            ],
            &["bash", "todo"],
        );
        let metrics = observe_run(&exchanges, Dialect::S03.get(), None, None, false);
        // A faithful client's requests are priced as the transcript is.
        let is_todo = |name: &str| name == "todo";
        let rules = PriceRules {
            workdir: &WorkdirSpelling::default(),
            is_planning: &is_todo,
            reminder_pattern: None,
            pattern_only: false,
        };
        let price = PlanningPrice::of_transcript("", &transcript(&exchanges), &[3], &rules);
        assert_eq!(metrics.price, price);
        assert_eq!(
            (price.planning_turns, price.reminders_after_planning),
            (1, 0)
        );
        assert!(price.planning_tokens > 0 && price.planning_tokens < price.context_tokens);
        assert_eq!(
            metrics,
            ObservedRun {
                price,
                turns: 4,
                stop: StopKind::EndTurn,
                reminders_at: vec![3],
                rejected_todo_updates: 1,
                todo_calls: 2,
                unknown_tool_calls: 1,
                protocol_violations: 1,
                malformed_requests: 0,
                // Every exchange served a turn; the first two each made
                // one planning call.
                served: vec![(0, 1), (1, 1), (2, 0), (3, 0)],
            }
        );
        let transcript = transcript(&exchanges);
        assert_eq!(transcript.len(), 8);
        assert_eq!(protocol::check(&transcript).len(), 1);
    }

    #[test]
    fn history_is_not_counted_again_and_patterns_work() {
        let exchanges = record(
            &[
                (
                    vec![call(1, 1, "bash")],
                    vec![result(1, 1, "ok"), ContentBlock::text("NAG!")],
                ),
                (vec![call(2, 1, "bash")], vec![result(2, 1, "ok")]),
                (vec![ContentBlock::text("done")], vec![]),
            ],
            &["bash"],
        );
        let metrics = observe_run(&exchanges, Dialect::S03.get(), Some("NAG!"), None, false);
        assert_eq!(metrics.reminders_at, [1]);
        let metrics = observe_run(&exchanges, Dialect::S03.get(), None, None, false);
        assert!(metrics.reminders_at.is_empty());
    }

    #[test]
    fn a_planning_result_flagged_as_an_error_is_a_rejection() {
        let turns = [
            (
                vec![call(1, 1, "todo")],
                vec![result(1, 1, "<tool_use_error>bad</tool_use_error>")],
            ),
            (vec![ContentBlock::text("done")], vec![]),
        ];
        let exchanges = record(&turns, &["todo"]);
        let metrics = observe_run(&exchanges, Dialect::S03.get(), None, None, false);
        assert_eq!((metrics.todo_calls, metrics.rejected_todo_updates), (1, 0));
        let exchanges = record_flagged(&turns, &["todo"], &[tool_use_id(1, 1)]);
        let metrics = observe_run(&exchanges, Dialect::S03.get(), None, None, false);
        assert_eq!(metrics.rejected_todo_updates, 1);
    }

    #[test]
    fn stop_reads_the_last_answer() {
        let mut exchanges = record(&[(vec![call(1, 1, "bash")], vec![])], &["bash"]);
        assert_eq!(
            observe_run(&exchanges, Dialect::S03.get(), None, None, false).stop,
            StopKind::AgentExit
        );
        assert_eq!(
            observe_run(&exchanges, Dialect::S03.get(), None, None, true).stop,
            StopKind::Timeout
        );
        let mut closing = exchanges[0].clone();
        closing.reply = Reply::Finished(Finish::ScriptExhausted);
        exchanges.push(closing);
        let metrics = observe_run(&exchanges, Dialect::S03.get(), None, None, true);
        assert_eq!(
            (metrics.stop, metrics.turns),
            (StopKind::ScriptExhausted, 1)
        );
        assert_eq!(transcript(&exchanges).len(), 1);
    }
}
