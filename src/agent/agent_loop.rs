//! The agent loop: the s03 reference byte for byte at default settings,
//! with the planning design, the reminder policy and its placement, and a
//! repeated-call guard as settings.
//!
//! Turn t: ask the model (system prompt, messages, tool schemas: the
//! workspace tools, then the dialect's planning tools when offered), append
//! its message; stop unless it asked for tools; run every call in order
//! into one `tool_result` each (planning calls go to the dialect, other
//! calls to the workspace tools, anything else is `Unknown tool: <name>`);
//! ask the reminder policy whether a reminder is due and place it; append
//! the results as one user message; stop after `max_turns`, or after a turn
//! in which the repeat guard caught a repeated call.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use super::tools::{Toolbox, schemas};
use crate::llm::{ContentBlock, Message, ModelRequest, Role, StopReason, ToolInput, ToolSchema};
use crate::llm::{Model, ModelError};
use crate::plan::dialect::{Dialect, PlanDialect, PlanItem, apply_shared};
use crate::plan::reminder::{Placement, ReminderSpec, TurnFacts};

/// The s03 reminder text (the default policy's).
pub const REMINDER: &str = crate::plan::reminder::S03_TEXT;

/// The system prompt for a workspace.
pub fn system_prompt(workdir: &str) -> String {
    format!(
        "You are a coding agent at {workdir}.\n\
         Use the todo tool to plan multi-step tasks. Mark in_progress before starting, completed when done.\n\
         Prefer tools over prose."
    )
}

/// Seed 001's guard against a model stuck in a loop: a call identical
/// (same name, same input) to the call just before it, unless its tool is
/// whitelisted, is not run; it gets [`RepeatGuard::warning`] as its result
/// and the run ends once that turn's results are appended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepeatGuard {
    /// Tools that may be called twice in a row with the same input.
    #[serde(default)]
    pub whitelist: Vec<String>,
}

impl RepeatGuard {
    /// The result a repeated call gets.
    pub fn warning(name: &str) -> String {
        format!("Warning: Duplicate tool call detected ({name}). Task may be stuck in a loop.")
    }
}

/// The loop's settings for one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopSettings {
    /// Offer the dialect's planning tool(s).
    pub todo: bool,
    pub dialect: Dialect,
    pub reminder: ReminderSpec,
    pub placement: Placement,
    pub max_turns: usize,
    pub repeat_guard: Option<RepeatGuard>,
}

impl Default for LoopSettings {
    fn default() -> Self {
        Self {
            todo: true,
            dialect: Dialect::default(),
            reminder: ReminderSpec::default(),
            placement: Placement::default(),
            max_turns: 50,
            repeat_guard: None,
        }
    }
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
    /// The repeat guard caught a call identical to the one before it.
    RepeatedCall,
    /// An external agent's timeout passed while the model still had work
    /// to give.
    Timeout,
    /// An external agent exited while the model still had work to give.
    AgentExit,
}

impl fmt::Display for StopKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::EndTurn => "end_turn",
            Self::MaxTurns => "max_turns",
            Self::ScriptExhausted => "script_exhausted",
            Self::ModelError => "model_error",
            Self::RepeatedCall => "repeated_call",
            Self::Timeout => "timeout",
            Self::AgentExit => "agent_exit",
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
    /// Turns after which a reminder was added.
    pub reminders_at: Vec<usize>,
    /// Planning calls the dialect rejected.
    pub rejected_todo_updates: usize,
    /// Calls of an offered planning tool, accepted or rejected.
    pub todo_calls: usize,
    /// Calls of a tool that was not offered (a planning tool included).
    pub unknown_tool_calls: usize,
    /// The plan as it stood at the end.
    pub plan: Vec<PlanItem>,
    /// The system prompt every request carried.
    pub system: String,
}

/// Messages a conversation has room for from the start: a task and 15
/// turns of an answer and its results (growing one by one cost five copies
/// of a short run's conversation).
const SHORT_RUN_MESSAGES: usize = 32;

/// Runs the loop until the model stops, the script runs out, the repeat
/// guard trips or `max_turns`.
pub fn run_loop(
    model: &mut dyn Model,
    toolbox: &Toolbox,
    task: &str,
    settings: &LoopSettings,
) -> LoopOutcome {
    run_session(model, toolbox, std::slice::from_ref(&task), settings)
}

/// Runs a session: `tasks` are sent one by one, each as the next user
/// message once the model has ended its turn on the one before (a line
/// REPL's user typing the next line). The conversation, the workspace and
/// the plan carry over; the reminder policy is told of each new message
/// (s03's count restarts). The run ends when the model ends its turn on
/// the last task, or as a single-task run ends (script exhausted, repeat
/// guard, `max_turns` counted over the whole session); later tasks are then
/// never sent.
pub fn run_session<T: AsRef<str>>(
    model: &mut dyn Model,
    toolbox: &Toolbox,
    tasks: &[T],
    settings: &LoopSettings,
) -> LoopOutcome {
    let system = system_prompt(&toolbox.root().to_string_lossy());
    let tools = offered_tools(settings.dialect, settings.todo);
    let mut policy = settings.reminder.policy();
    let mut tasks = tasks.iter().map(AsRef::as_ref);
    // Room for a short run's conversation at once (a message a turn and
    // its results); a longer one grows as it needs.
    let mut messages = Vec::with_capacity(
        SHORT_RUN_MESSAGES.min(settings.max_turns.saturating_mul(2).saturating_add(1)),
    );
    messages.push(Message::user_text(tasks.next().unwrap_or_default()));
    let mut turns = 0;
    let mut state = SessionState {
        settings,
        dialect: settings.dialect.get(),
        toolbox,
        plan: Vec::new(),
        reminders_at: Vec::new(),
        rejected_todo_updates: 0,
        todo_calls: 0,
        unknown_tool_calls: 0,
        previous_call: None,
    };

    // Messages sent in the previous request: the conversation only grows,
    // so they are all still there, unchanged.
    let mut sent = 0;
    let stop = loop {
        let turn = turns + 1;
        let request = ModelRequest {
            system: &system,
            messages: &messages,
            turn,
            tools: &tools,
            unchanged: sent,
        };
        sent = messages.len();
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
            match tasks.next() {
                Some(next) if turn < settings.max_turns => {
                    messages.push(Message::user_text(next));
                    policy.user_message();
                    continue;
                }
                Some(_) => break StopKind::MaxTurns,
                None => break StopKind::EndTurn,
            }
        }

        let calls = messages.last().map(Message::content_blocks).unwrap_or(&[]);
        let (mut results, facts, repeated) = state.run_calls(turn, calls);
        if settings.todo
            && let Some(text) = policy.after_turn(&facts, &state.plan, state.dialect)
        {
            settings.placement.place(&mut results, text);
            state.reminders_at.push(turn);
        }
        messages.push(Message::blocks(Role::User, results));
        if repeated {
            break StopKind::RepeatedCall;
        }
        if turn >= settings.max_turns {
            break StopKind::MaxTurns;
        }
    };

    LoopOutcome {
        messages,
        turns,
        stop,
        reminders_at: state.reminders_at,
        rejected_todo_updates: state.rejected_todo_updates,
        todo_calls: state.todo_calls,
        unknown_tool_calls: state.unknown_tool_calls,
        plan: state.plan,
        system,
    }
}

/// What a session carries from turn to turn besides the conversation: the
/// plan, the counts the outcome reports, and the call the repeat guard
/// compares the next one with.
struct SessionState<'a> {
    settings: &'a LoopSettings,
    dialect: &'static dyn PlanDialect,
    toolbox: &'a Toolbox,
    plan: Vec<PlanItem>,
    reminders_at: Vec<usize>,
    rejected_todo_updates: usize,
    todo_calls: usize,
    unknown_tool_calls: usize,
    previous_call: Option<(String, Value)>,
}

impl SessionState<'_> {
    /// Runs every tool call of turn `turn`'s assistant message in order:
    /// one `tool_result` each, the turn's facts for the reminder policy,
    /// and whether the repeat guard caught a call.
    fn run_calls(
        &mut self,
        turn: usize,
        calls: &[ContentBlock],
    ) -> (Vec<ContentBlock>, TurnFacts, bool) {
        let mut results = Vec::with_capacity(calls.len());
        let mut facts = TurnFacts {
            turn,
            ..TurnFacts::default()
        };
        let mut repeated = false;
        for block in calls {
            let ContentBlock::ToolUse { id, name, input } = block else {
                continue;
            };
            let (content, refused) = if self.is_repeat(name, input) {
                repeated = true;
                (RepeatGuard::warning(name), false)
            } else {
                self.answer(name, input, &mut facts)
            };
            results.push(ContentBlock::ToolResult {
                tool_use_id: id.clone(),
                content,
                is_error: refused && self.dialect.flags_errors(),
            });
        }
        (results, facts, repeated)
    }

    /// Whether the repeat guard catches this call. Only a guarded loop
    /// remembers the call (a copy of its input).
    fn is_repeat(&mut self, name: &str, input: &Value) -> bool {
        self.settings.repeat_guard.as_ref().is_some_and(|guard| {
            let repeat = self
                .previous_call
                .as_ref()
                .is_some_and(|(n, i)| n == name && i == input);
            self.previous_call = Some((name.to_string(), input.clone()));
            repeat && !guard.whitelist.iter().any(|w| w == name)
        })
    }

    /// One call's result and whether it was refused or failed: planning
    /// calls go to the dialect, then the dialect's tool loader, then the
    /// workspace tools; anything else is `Unknown tool: <name>`.
    fn answer(&mut self, name: &str, input: &ToolInput, facts: &mut TurnFacts) -> (String, bool) {
        let todo = self.settings.todo;
        if todo && self.dialect.is_planning_tool(name) {
            self.todo_calls += 1;
            facts.planning_calls += 1;
            // A scripted model's input is the same `Arc` in every run.
            let outcome = apply_shared(self.dialect, &mut self.plan, name, input);
            if outcome.accepted {
                facts.accepted_updates += 1;
            } else {
                self.rejected_todo_updates += 1;
            }
            return (outcome.content, !outcome.accepted);
        }
        if let Some(answer) = todo.then(|| self.dialect.load_tools(name, input)).flatten() {
            return (answer, false);
        }
        match self.toolbox.call(name, input) {
            Some(Ok(output)) => (output, false),
            Some(Err(e)) => (format!("Error: {e}"), true),
            None => {
                self.unknown_tool_calls += 1;
                (format!("Unknown tool: {name}"), true)
            }
        }
    }
}

/// The tools a run offers: the workspace tools, then the dialect's
/// planning tools when the plan is on. Built once per (dialect, todo) and
/// shared: an episode costs tens of microseconds, and building the schemas'
/// JSON was a visible part of it.
fn offered_tools(dialect: Dialect, todo: bool) -> Arc<[ToolSchema]> {
    /// (dialect name, todo on) -> the tools offered.
    type Offered = BTreeMap<(&'static str, bool), Arc<[ToolSchema]>>;
    static OFFERED: Mutex<Offered> = Mutex::new(BTreeMap::new());
    let key = (dialect.get().name(), todo);
    let mut offered = OFFERED.lock().unwrap_or_else(|p| p.into_inner());
    Arc::clone(offered.entry(key).or_insert_with(|| {
        let mut tools = schemas(false);
        if todo {
            tools.extend(dialect.get().tools());
        }
        tools.into()
    }))
}
