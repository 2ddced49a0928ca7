//! Per-part figures of a session run (`parts` in a run record), read off
//! the transcript the same way for the built-in loop and for an outside
//! agent, so the two agree seed for seed.
//!
//! A part runs from the user message that gave its task to the next
//! part's: its `turns` are the model's answers in between, its
//! `todo_calls` the calls of an offered planning tool they made, its
//! `reminders_at` the run's reminders after those turns (turn numbers
//! count over the whole session), and its steps are its own steps scored
//! on the workspace at the end of the session. Summed over the parts they
//! give the run's totals. A part never sent (the run stopped before it)
//! has zero turns. User messages the scenario did not send are counted in
//! `unexpected_user_messages` and stay in the part before them.
//!
//! [`part_view`] reads a run back as one of its parts alone (for `part:`
//! expectations and the per-part tables).

use super::record::{PartMetrics, RunResult};
use crate::llm::session::SessionMap;
use crate::llm::{ContentBlock, Message, Role};
use crate::plan::dialect::Dialect;
use crate::scenario::Scenario;

/// The parts of a session run, and the user messages the scenario did not
/// send (their message index and text).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFigures {
    pub parts: Vec<PartMetrics>,
    pub unexpected: Vec<(usize, String)>,
}

/// One turn the model served: the part (0-based) its request was in, and
/// the calls of an offered planning tool the model made in it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServedTurn {
    pub part: usize,
    pub todo_calls: usize,
}

/// The turns of the built-in loop's own conversation (which holds exactly
/// what the model served): each assistant message, in the part of the
/// messages before it.
pub fn served_in_messages(
    map: &SessionMap,
    messages: &[Message],
    dialect: Dialect,
    planning_offered: bool,
) -> Vec<ServedTurn> {
    let dialect = dialect.get();
    messages
        .iter()
        .zip(&map.part_of)
        .filter(|(message, _)| message.role == Role::Assistant)
        .map(|(message, &part)| ServedTurn {
            part,
            todo_calls: if planning_offered {
                message
                    .content_blocks()
                    .iter()
                    .filter(|b| {
                        matches!(b, ContentBlock::ToolUse { name, .. }
                            if dialect.is_planning_tool(name))
                    })
                    .count()
            } else {
                0
            },
        })
        .collect()
}

/// Reads a run's `messages` against `scenario`'s parts. `step_results`
/// holds each step's check (`None`: not scored); `planning_offered` says
/// whether calls of the dialect's planning tools count.
pub fn session_figures(
    scenario: &Scenario,
    messages: &[Message],
    step_results: &[Option<bool>],
    reminders_at: &[usize],
    dialect: Dialect,
    planning_offered: bool,
) -> SessionFigures {
    let map = SessionMap::read(messages, &scenario.tasks());
    let served = served_in_messages(&map, messages, dialect, planning_offered);
    figures_of_turns(
        scenario,
        &served,
        map.unexpected,
        step_results,
        reminders_at,
    )
}

/// The figures of the turns the model `served` (for an outside agent, read
/// off the wire record, never off the history the agent sends, which it
/// may have made up), with the user messages the scenario did not send.
pub fn figures_of_turns(
    scenario: &Scenario,
    served: &[ServedTurn],
    unexpected: Vec<(usize, String)>,
    step_results: &[Option<bool>],
    reminders_at: &[usize],
) -> SessionFigures {
    let mut parts: Vec<PartMetrics> = scenario
        .parts
        .iter()
        .map(|part| {
            let scored = step_results.get(part.steps.clone()).unwrap_or_default();
            PartMetrics {
                steps_total: scored.iter().filter(|r| r.is_some()).count(),
                steps_completed: scored.iter().filter(|r| **r == Some(true)).count(),
                ..PartMetrics::default()
            }
        })
        .collect();
    for turn in served {
        if let Some(figures) = parts.get_mut(turn.part) {
            figures.turns += 1;
            figures.todo_calls += turn.todo_calls;
        }
    }
    for &turn in reminders_at {
        let part = turn
            .checked_sub(1)
            .and_then(|t| served.get(t))
            .map(|t| t.part)
            .unwrap_or(parts.len().saturating_sub(1));
        if let Some(figures) = parts.get_mut(part) {
            figures.reminders_at.push(turn);
        }
    }
    // A part after the last one any served turn was in was never sent.
    let reached = served.iter().map(|t| t.part + 1).max().unwrap_or(0);
    for figures in parts.iter_mut().skip(reached.max(1)) {
        figures.never_sent = true;
    }
    SessionFigures { parts, unexpected }
}

/// One run read as its part `part` (1-based): that part's steps (and their
/// checks), turns, planning calls and reminders; the rest as the run's. A
/// run without parts (a single task) is its own part 1; a part it never
/// reached has no turns.
pub fn part_view(run: &RunResult, part: usize) -> RunResult {
    if run.parts.is_empty() && part == 1 {
        return run.clone();
    }
    let index = part.saturating_sub(1);
    let figures = run.parts.get(index).cloned().unwrap_or_default();
    let before: usize = run.parts.iter().take(index).map(|p| p.steps_total).sum();
    let step_checks = run
        .step_checks
        .get(before..before + figures.steps_total)
        .unwrap_or_default()
        .to_string();
    RunResult {
        turns: figures.turns,
        steps_completed: figures.steps_completed,
        steps_total: figures.steps_total,
        reminders_at: figures.reminders_at,
        todo_calls: figures.todo_calls,
        step_checks,
        parts: Vec::new(),
        ..run.clone()
    }
}
