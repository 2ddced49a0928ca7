//! `claude-code`: Claude Code's TodoWrite reminder. It fires when the
//! assistant has gone `turns_since_write` turns without a planning call
//! and `turns_between` turns since the last reminder, and lists the
//! current plan when there is one. The same policy words the reminder of
//! Claude Code's Task tools when the dialect is `claude-code-tasks` (the
//! binary runs both on the same counts; probed in
//! `tests/data/claude-code-tasks/probe/reminder*.json`).

use super::{PlanDialect, PlanItem, ReminderPolicy, TurnFacts};

/// The reminder's body (inside `<system-reminder>`), as Claude Code words it.
pub const CLAUDE_CODE_TEXT: &str = "The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, consider using the TodoWrite tool to track progress. Also consider cleaning up the todo list if has become stale and no longer matches what you are working on. Only use it if it's relevant to the current work. This is just a gentle reminder - ignore if not applicable. Make sure that you NEVER mention this reminder to the user\n";

/// What comes before the list of items when the plan is not empty.
pub const CLAUDE_CODE_LIST_INTRO: &str =
    "\n\nHere are the existing contents of your todo list:\n\n[";

/// The Task tools' reminder body, as Claude Code 2.1.330 words it.
pub const CLAUDE_CODE_TASKS_TEXT: &str = "The task tools haven't been used recently. If you're working on tasks that would benefit from tracking progress, consider using TaskCreate to add new tasks and TaskUpdate to update task status (set to in_progress when starting, completed when done). Also consider cleaning up the task list if it has become stale. Only use these if relevant to the current work. This is just a gentle reminder - ignore if not applicable.\n";

/// What comes before the tasks (`#<id>. [<status>] <subject>` lines) when
/// there are any.
pub const CLAUDE_CODE_TASKS_LIST_INTRO: &str = "\n\nHere are the existing tasks:\n\n";

/// The dialect whose reminder is the Task tools' one.
const TASKS_DIALECT: &str = "claude-code-tasks";

#[derive(Debug, Clone)]
pub(super) struct ClaudeCode {
    pub turns_since_write: u32,
    pub turns_between: u32,
    pub since_write: usize,
    /// `None` until the first reminder: no reminder yet is as long ago as
    /// can be.
    pub since_reminder: Option<usize>,
}

/// The full text for `plan`: the Task tools' reminder for their dialect,
/// else TodoWrite's.
pub(super) fn text(plan: &[PlanItem], dialect: &dyn PlanDialect) -> String {
    if dialect.name() == TASKS_DIALECT {
        return tasks_text(plan);
    }
    let mut out = String::from("<system-reminder>");
    out.push_str(CLAUDE_CODE_TEXT);
    if !plan.is_empty() {
        out.push_str(CLAUDE_CODE_LIST_INTRO);
        let items: Vec<String> = plan
            .iter()
            .enumerate()
            .map(|(k, item)| format!("{}. [{}] {}", k + 1, item.status.as_str(), item.text))
            .collect();
        out.push_str(&items.join("\n"));
        out.push(']');
    }
    out.push_str("</system-reminder>");
    out
}

fn tasks_text(plan: &[PlanItem]) -> String {
    let mut out = String::from("<system-reminder>");
    out.push_str(CLAUDE_CODE_TASKS_TEXT);
    if !plan.is_empty() {
        out.push_str(CLAUDE_CODE_TASKS_LIST_INTRO);
        let tasks: Vec<String> = plan
            .iter()
            .map(|task| format!("#{}. [{}] {}", task.id, task.status.as_str(), task.text))
            .collect();
        out.push_str(&tasks.join("\n"));
    }
    out.push_str("</system-reminder>");
    out
}

impl ReminderPolicy for ClaudeCode {
    /// Both counts carry over: Claude Code counts assistant turns over the
    /// whole conversation, whoever spoke last.
    fn user_message(&mut self) {}

    fn after_turn(
        &mut self,
        facts: &TurnFacts,
        plan: &[PlanItem],
        dialect: &dyn PlanDialect,
    ) -> Option<String> {
        self.since_write = if facts.planning_calls > 0 {
            0
        } else {
            self.since_write + 1
        };
        self.since_reminder = self.since_reminder.map(|n| n + 1);
        let quiet_long_enough = self
            .since_reminder
            .is_none_or(|n| n >= self.turns_between as usize);
        if self.since_write >= self.turns_since_write as usize && quiet_long_enough {
            self.since_reminder = Some(0);
            Some(text(plan, dialect))
        } else {
            None
        }
    }
}
