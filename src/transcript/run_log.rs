//! agent-eval's own run logs (`run --log-dir DIR`, one JSON line a run) read
//! as sessions: each run is one [`Session`] whose reminders are
//! [`Reminders::Recorded`] (the loop writes down every reminder it sends, in
//! `metrics.reminders_at`). A line is read as a serde record of the fields
//! used (`LogLine`), the rest ignored and a field of another type absent.
//!
//! The same reading serves calibration's simulated runs ([`session_of`]): a
//! run's messages, its planning dialect and the turns after which a
//! reminder went out make one session, whether they come from a log line
//! or straight from the engine, so observed and simulated sessions are
//! measured by one code path.

use serde::Deserialize;
use serde_json::Value;

use super::{BadRecord, ItemStatus, Part, PlanningCall, RecordReader, Reminders, Session, Turn};
use crate::lenient::{Lenient, ObjectField, object_record, present};
use crate::llm::price::REMINDER_MARKERS;
use crate::llm::session::user_typed;
use crate::llm::{Content, ContentBlock, Message, Role};
use crate::plan::dialect::{Dialect, PlanDialect, PlanItem, PlanStatus};

/// Reads run-log records (one per line): every record is one run, one
/// session.
#[derive(Debug, Default)]
pub struct RunLogReader {
    sessions: Vec<Session>,
}

impl RecordReader for RunLogReader {
    fn record(&mut self, value: Value) -> Result<(), BadRecord> {
        // A run without a planning tool says nothing about planning.
        self.sessions.extend(session_of_record(&value)?);
        Ok(())
    }

    fn finish(self: Box<Self>) -> Vec<Session> {
        self.sessions
    }
}

/// The fields of a run-log line this reader reads (`report/log.rs`
/// writes them; every version since the first): the rest of a line is
/// ignored, and a field of an unexpected type reads as absent.
#[derive(Debug, Default, Deserialize)]
struct LogLine {
    /// `null` here is a line whose messages are not a conversation.
    #[serde(default, deserialize_with = "present")]
    messages: Option<Value>,
    #[serde(default)]
    metrics: ObjectField<LogMetrics>,
    #[serde(default)]
    settings: ObjectField<LogSettings>,
    #[serde(default)]
    scenario: Lenient<String>,
}

/// `settings` of a run-log line: the cell's.
#[derive(Debug, Default, Deserialize)]
struct LogSettings {
    /// Whether the cell offered a planning tool (yes when not said).
    #[serde(default)]
    todo: Lenient<bool>,
    #[serde(default)]
    dialect: Lenient<Dialect>,
}

/// `metrics` of a run-log line: only where the reminders were.
#[derive(Debug, Default, Deserialize)]
struct LogMetrics {
    #[serde(default)]
    reminders_at: Lenient<Vec<usize>>,
}

/// One run-log record as a session (`None` for a run that offered no
/// planning tool).
fn session_of_record(value: &Value) -> Result<Option<Session>, BadRecord> {
    let line: LogLine = object_record(value);
    let (Some(messages), true, true) = (&line.messages, line.metrics.there, line.settings.there)
    else {
        return Err("not an agent-eval run-log record (needs messages, metrics, settings)");
    };
    let messages = Vec::<Message>::deserialize(messages)
        .map_err(|_| "messages that are not a conversation agent-eval writes")?;
    let settings = line.settings.record;
    let planning_offered = settings.todo.0.unwrap_or(true);
    if !planning_offered {
        return Ok(None);
    }
    let dialect = settings
        .dialect
        .0
        .unwrap_or_else(|| dialect_of_calls(&messages));
    let scenario = line.scenario.as_str().unwrap_or("");
    let reminders_at = line.metrics.record.reminders_at.0;
    let mut session = session_of(
        &messages,
        dialect,
        planning_offered,
        reminders_at.as_deref(),
    );
    session.group = super::group_key("run-log-scenario", scenario);
    session.content_hash = super::group_key("run-log-line", &value.to_string());
    Ok(Some(session))
}

/// The dialect whose planning tools the run called (a log whose cell does
/// not name a dialect ran the scenario's own): the first, in registry
/// order, that owns a called tool; s03 when none does.
fn dialect_of_calls(messages: &[Message]) -> Dialect {
    let called: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.content_blocks())
        .filter_map(|b| match b {
            ContentBlock::ToolUse { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    Dialect::ALL
        .iter()
        .copied()
        .find(|d| called.iter().any(|name| d.get().is_planning_tool(name)))
        .unwrap_or_default()
}

/// A run's conversation as a session. `reminders_at` lists the turns
/// (1-based) after which the loop sent a reminder; `None` (an outside
/// record without it) falls back to the reminder markers in user messages.
pub fn session_of(
    messages: &[Message],
    dialect: Dialect,
    planning_offered: bool,
    reminders_at: Option<&[usize]>,
) -> Session {
    let mut reading = Reading {
        dialect: dialect.get(),
        planning_offered,
        plan: Vec::new(),
        parts: Vec::new(),
        pending: None,
        new_chars: 0,
        marker_seen: false,
    };
    let mut turn = 0;
    for (index, message) in messages.iter().enumerate() {
        match message.role {
            Role::Assistant => {
                turn += 1;
                let reminded = match reminders_at {
                    Some(at) => turn > 1 && at.contains(&(turn - 1)),
                    None => reading.marker_seen,
                };
                reading.start_turn(message, reminded);
            }
            Role::User => reading.user_message(message, index == 0),
        }
    }
    reading.close_turn();
    Session {
        format: super::Format::RunLog,
        agent_version: None,
        models: Vec::new(),
        reminders: Reminders::Recorded,
        parts: reading.parts,
        id: None,
        group: String::new(),
        content_hash: String::new(),
    }
}

/// A planning call waiting for its result: id, tool name, input.
type PendingCall = (String, String, Value);

/// The state of reading one conversation.
struct Reading {
    dialect: &'static dyn PlanDialect,
    planning_offered: bool,
    /// The plan as the accepted planning calls left it.
    plan: Vec<PlanItem>,
    parts: Vec<Part>,
    /// The turn being read (its tool results come in the next user
    /// message), with its planning calls' ids, names and inputs.
    pending: Option<(Turn, Vec<PendingCall>)>,
    /// Characters sent to the model since its last turn.
    new_chars: u64,
    /// A reminder marker was in a user message since the last turn.
    marker_seen: bool,
}

impl Reading {
    fn start_turn(&mut self, message: &Message, reminded: bool) {
        self.close_turn();
        if self.parts.is_empty() {
            self.parts.push(Part::default());
        }
        let mut turn = Turn {
            reminder_before: reminded,
            new_context_chars: self.new_chars,
            ..Turn::default()
        };
        let mut calls = Vec::new();
        for block in message.content_blocks() {
            if let ContentBlock::ToolUse { id, name, input } = block {
                if self.planning_offered && self.dialect.is_planning_tool(name) {
                    calls.push((id.clone(), name.clone(), (**input).clone()));
                } else {
                    turn.other_tool_calls += 1;
                }
            }
        }
        self.new_chars = 0;
        self.marker_seen = false;
        self.pending = Some((turn, calls));
    }

    /// Ends the pending turn: its planning calls judged by their results
    /// (a call without a result counts as rejected: it never took effect).
    fn close_turn(&mut self) {
        let Some((mut turn, calls)) = self.pending.take() else {
            return;
        };
        for (_, name, _) in &calls {
            turn.planning_calls.push(PlanningCall {
                tool: name.clone(),
                accepted: false,
                writes: !self.dialect.reads_plan_only(name),
            });
        }
        if !self.plan.is_empty() {
            turn.plan_after = Some(statuses(&self.plan));
        }
        if let Some(part) = self.parts.last_mut() {
            part.turns.push(turn);
        }
    }

    fn user_message(&mut self, message: &Message, first: bool) {
        self.new_chars += message.texts().map(|t| t.len() as u64).sum::<u64>();
        if message
            .texts()
            .any(|t| REMINDER_MARKERS.iter().any(|m| t.contains(m)))
        {
            self.marker_seen = true;
        }
        if let Content::Blocks(blocks) = &message.content {
            self.judge_results(blocks);
        }
        // A typed user message after the first starts a new part.
        if !first && user_typed(message).is_some() {
            self.close_turn();
            self.parts.push(Part::default());
        } else if first {
            self.parts.push(Part::default());
        }
    }

    /// Marks the pending turn's planning calls accepted or rejected by
    /// their results, applies the accepted ones to the plan and closes the
    /// turn.
    fn judge_results(&mut self, blocks: &[ContentBlock]) {
        let Some((mut turn, calls)) = self.pending.take() else {
            return;
        };
        for (id, name, input) in &calls {
            let result = blocks.iter().find_map(|b| match b {
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    ..
                } if tool_use_id == id => Some(content.as_str()),
                _ => None,
            });
            let accepted = result.is_some_and(|r| !self.dialect.is_error(r));
            turn.planning_calls.push(PlanningCall {
                tool: name.clone(),
                accepted,
                writes: !self.dialect.reads_plan_only(name),
            });
            if let (true, Some(result)) = (accepted, result)
                && let Some(items) = self
                    .dialect
                    .plan_from_result(result)
                    .or_else(|| self.dialect.plan_from_call(&self.plan, name, input))
            {
                self.plan = items;
            }
        }
        if !self.plan.is_empty() {
            turn.plan_after = Some(statuses(&self.plan));
        }
        if let Some(part) = self.parts.last_mut() {
            part.turns.push(turn);
        }
    }
}

/// A plan's statuses as calibration reads them (failed and cancelled items
/// are finished: they are no longer open work).
fn statuses(plan: &[PlanItem]) -> Vec<ItemStatus> {
    plan.iter()
        .map(|item| match item.status {
            PlanStatus::Pending => ItemStatus::Pending,
            PlanStatus::InProgress => ItemStatus::InProgress,
            PlanStatus::Completed | PlanStatus::Failed | PlanStatus::Cancelled => {
                ItemStatus::Completed
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn log_line(reminders_at: Vec<usize>) -> Value {
        json!({
            "scenario": "t", "file": "t.yaml", "settings": {"todo": true}, "seed": 0,
            "metrics": {"reminders_at": reminders_at},
            "messages": [
                {"role": "user", "content": "Do two steps"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "a", "name": "todo", "input": {"items": [
                        {"id": "1", "text": "one", "status": "in_progress"},
                        {"id": "2", "text": "two", "status": "pending"}]}},
                    {"type": "tool_use", "id": "b", "name": "bash", "input": {"command": "ls"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "a", "content": "[>] #1: one\n[ ] #2: two\n\n(0/2 completed)"},
                    {"type": "tool_result", "tool_use_id": "b", "content": "file"}]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "c", "name": "todo", "input": {"items": []}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c", "content": "Error: items must not be empty"},
                    {"type": "text", "text": "<reminder>Update your todos.</reminder>"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
                {"role": "user", "content": "Now a second task"},
                {"role": "assistant", "content": [{"type": "text", "text": "OK."}]}
            ]
        })
    }

    #[test]
    fn a_run_log_line_is_a_session_of_parts_and_turns() {
        let mut reader: Box<dyn RecordReader> = Box::new(RunLogReader::default());
        reader.record(log_line(vec![2])).unwrap();
        let sessions = reader.finish();
        let session = &sessions[0];
        assert_eq!(session.reminders, Reminders::Recorded);
        assert_eq!(session.parts.len(), 2);
        let turns = &session.parts[0].turns;
        assert_eq!(turns.len(), 3);
        assert!(turns[0].planning_calls[0].accepted);
        assert_eq!(turns[0].other_tool_calls, 1);
        assert_eq!(
            turns[0].plan_after,
            Some(vec![ItemStatus::InProgress, ItemStatus::Pending])
        );
        assert!(!turns[1].planning_calls[0].accepted);
        assert!(!turns[1].reminder_before);
        assert!(turns[2].reminder_before);
        assert!(turns[2].new_context_chars > 0);
        assert_eq!(session.parts[1].turns.len(), 1);
    }

    #[test]
    fn a_run_without_the_planning_tool_is_no_session_and_junk_is_an_error() {
        let mut reader: Box<dyn RecordReader> = Box::new(RunLogReader::default());
        let mut line = log_line(vec![]);
        line["settings"]["todo"] = json!(false);
        reader.record(line).unwrap();
        assert!(reader.record(json!({"type": "user"})).is_err());
        assert!(reader.finish().is_empty());
    }
}
