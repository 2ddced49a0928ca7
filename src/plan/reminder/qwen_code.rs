//! `qwen-code`: Qwen Code's reminder of unfinished todo items (probed on
//! 0.24.4: `tests/data/agents/probe/qwen_code.json`). An accepted
//! `todo_write` that leaves items not completed arms it (one that leaves
//! none, or clears the list, disarms it); from then on every `every`th
//! tool turn, counting the write's own turn as the first, is followed by
//! the reminder, which lists the unfinished items as they were written
//! (`- [<status>] <content>`). Each accepted write, even one that changes
//! nothing, starts the count again. A new user message disarms it (Qwen
//! starts a new work chain).

use super::{PlanDialect, PlanItem, ReminderPolicy, TurnFacts};
use crate::plan::dialect::PlanStatus;

/// The reminder's opening, as Qwen Code words it.
pub const QWEN_CODE_TEXT: &str =
    "<system-reminder>\nThe current task still has unfinished todo items:\n";

/// The reminder's closing.
pub const QWEN_CODE_END: &str = "\nKeep the todo list current and continue the task. Do not treat a successful intermediate tool call as task completion.\n</system-reminder>";

#[derive(Debug, Clone)]
pub(super) struct QwenCode {
    pub every: u32,
    /// The reminder armed by the last accepted write, if any.
    pub armed: Option<String>,
    pub elapsed: usize,
}

/// The reminder for the unfinished items of `plan`, if any.
pub(super) fn text(plan: &[PlanItem], dialect: &dyn PlanDialect) -> Option<String> {
    let items: Vec<String> = plan
        .iter()
        .filter(|item| item.status != PlanStatus::Completed)
        .map(|item| format!("- [{}] {}", dialect.status_word(item.status), item.text))
        .collect();
    (!items.is_empty()).then(|| format!("{QWEN_CODE_TEXT}{}{QWEN_CODE_END}", items.join("\n")))
}

impl ReminderPolicy for QwenCode {
    fn user_message(&mut self) {
        self.armed = None;
        self.elapsed = 0;
    }

    fn after_turn(
        &mut self,
        facts: &TurnFacts,
        plan: &[PlanItem],
        dialect: &dyn PlanDialect,
    ) -> Option<String> {
        if facts.accepted_updates > 0 {
            self.armed = text(plan, dialect);
            self.elapsed = 0;
        }
        let armed = self.armed.as_ref()?;
        self.elapsed += 1;
        if self.elapsed < self.every as usize {
            return None;
        }
        self.elapsed = 0;
        Some(armed.clone())
    }
}
