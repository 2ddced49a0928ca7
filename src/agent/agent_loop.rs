//! The loop of SPEC section 3, byte for byte with the s03 reference at
//! default settings.
//!
//! Turn t: ask the model (system prompt, messages, tool schemas), append its
//! message; stop unless it asked for tools; run every call in order into one
//! `tool_result` each; count rounds without a `todo` call and, at the
//! threshold, add `<reminder>Update your todos.</reminder>` first (or last);
//! append the results as one user message; stop after `max_turns`.

use serde::{Deserialize, Serialize};
use std::fmt;

use super::todo::TodoManager;
use super::tools::{Toolbox, schemas};
use crate::llm::{ContentBlock, Message, ModelRequest, Role, StopReason};
use crate::llm::{Model, ModelError};
use crate::scenario::{NagThreshold, Placement};

/// The reminder text block.
pub const REMINDER: &str = "<reminder>Update your todos.</reminder>";

/// The system prompt for a workspace.
pub fn system_prompt(workdir: &str) -> String {
    format!(
        "You are a coding agent at {workdir}.\n\
         Use the todo tool to plan multi-step tasks. Mark in_progress before starting, completed when done.\n\
         Prefer tools over prose."
    )
}

/// The loop's settings for one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopSettings {
    pub todo: bool,
    pub nag: NagThreshold,
    pub placement: Placement,
    pub max_turns: usize,
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    EndTurn,
    MaxTurns,
    ScriptExhausted,
    /// A backend could not answer (a real model failing after its retries,
    /// or a script asking for something the backend cannot express).
    ModelError,
}

impl fmt::Display for StopKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::EndTurn => "end_turn",
            Self::MaxTurns => "max_turns",
            Self::ScriptExhausted => "script_exhausted",
            Self::ModelError => "model_error",
        })
    }
}

/// Everything one loop run produced.
#[derive(Debug, Clone)]
pub struct LoopOutcome {
    pub messages: Vec<Message>,
    /// Model responses received.
    pub turns: usize,
    pub stop: StopKind,
    /// Turns after which a reminder was injected.
    pub reminders_at: Vec<usize>,
    pub rejected_todo_updates: usize,
    /// Every `todo` call, accepted or rejected.
    pub todo_calls: usize,
    /// The plan as it stood at the end.
    pub todos: TodoManager,
}

/// Runs the loop until the model stops, the script runs out or `max_turns`.
pub fn run_loop(
    model: &mut dyn Model,
    toolbox: &Toolbox,
    task: &str,
    settings: &LoopSettings,
) -> LoopOutcome {
    let system = system_prompt(&toolbox.root().to_string_lossy());
    let tools = schemas(settings.todo);
    let mut todos = TodoManager::new();
    let mut messages = vec![Message::user_text(task)];
    let mut reminders_at = Vec::new();
    let mut rejected_todo_updates = 0;
    let mut todo_calls = 0;
    let mut rounds_since_todo = 0usize;
    let mut turns = 0;

    let stop = loop {
        let turn = turns + 1;
        let request = ModelRequest {
            system: &system,
            messages: &messages,
            tools: &tools,
        };
        let response = match model.respond(&request) {
            Ok(response) => response,
            Err(ModelError::ScriptExhausted { .. }) => break StopKind::ScriptExhausted,
            Err(ModelError::Unsupported { .. } | ModelError::Backend(_)) => {
                break StopKind::ModelError;
            }
        };
        turns = turn;
        let stop_reason = response.stop_reason;
        messages.push(Message::blocks(Role::Assistant, response.content));
        if stop_reason != StopReason::ToolUse {
            break StopKind::EndTurn;
        }

        let mut results = Vec::new();
        let mut used_todo = false;
        let calls = messages.last().map(Message::content_blocks).unwrap_or(&[]);
        for block in calls {
            let ContentBlock::ToolUse { id, name, input } = block else {
                continue;
            };
            let content = if name == "todo" {
                used_todo = true;
                todo_calls += 1;
                if settings.todo {
                    todos.handle_input(input).unwrap_or_else(|e| {
                        rejected_todo_updates += 1;
                        format!("Error: {e}")
                    })
                } else {
                    format!("Unknown tool: {name}")
                }
            } else {
                match toolbox.call(name, input) {
                    Some(Ok(output)) => output,
                    Some(Err(e)) => format!("Error: {e}"),
                    None => format!("Unknown tool: {name}"),
                }
            };
            results.push(ContentBlock::ToolResult {
                tool_use_id: id.clone(),
                content,
            });
        }
        rounds_since_todo = if used_todo { 0 } else { rounds_since_todo + 1 };
        if let NagThreshold::After(threshold) = settings.nag
            && settings.todo
            && rounds_since_todo >= threshold as usize
        {
            let reminder = ContentBlock::text(REMINDER);
            match settings.placement {
                Placement::Prepend => results.insert(0, reminder),
                Placement::Append => results.push(reminder),
            }
            reminders_at.push(turn);
        }
        messages.push(Message::blocks(Role::User, results));
        if turn >= settings.max_turns {
            break StopKind::MaxTurns;
        }
    };

    LoopOutcome {
        messages,
        turns,
        stop,
        reminders_at,
        rejected_todo_updates,
        todo_calls,
        todos,
    }
}
