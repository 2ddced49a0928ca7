//! `claude-code`: Claude Code's TodoWrite reminder. It fires when the
//! assistant has gone `turns_since_write` turns without a planning call
//! and `turns_between` turns since the last reminder, and lists the
//! current plan when there is one.

use super::{PlanDialect, PlanItem, ReminderPolicy, TurnFacts};

/// The reminder's body (inside `<system-reminder>`), as Claude Code words it.
pub const CLAUDE_CODE_TEXT: &str = "The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, consider using the TodoWrite tool to track progress. Also consider cleaning up the todo list if has become stale and no longer matches what you are working on. Only use it if it's relevant to the current work. This is just a gentle reminder - ignore if not applicable. Make sure that you NEVER mention this reminder to the user\n";

/// What comes before the list of items when the plan is not empty.
pub const CLAUDE_CODE_LIST_INTRO: &str =
    "\n\nHere are the existing contents of your todo list:\n\n[";

#[derive(Debug, Clone)]
pub(super) struct ClaudeCode {
    pub turns_since_write: u32,
    pub turns_between: u32,
    pub since_write: usize,
    /// `None` until the first reminder: no reminder yet is as long ago as
    /// can be.
    pub since_reminder: Option<usize>,
}

/// The full text for `plan`.
pub(super) fn text(plan: &[PlanItem]) -> String {
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

impl ReminderPolicy for ClaudeCode {
    fn after_turn(
        &mut self,
        facts: &TurnFacts,
        plan: &[PlanItem],
        _dialect: &dyn PlanDialect,
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
            Some(text(plan))
        } else {
            None
        }
    }
}
