//! Reminder policies and their placement.
//!
//! A [`ReminderPolicy`] keeps its own state for one run and decides, after
//! each turn that ran tools, whether to add a reminder and with what text.
//! A [`Placement`] decides where the text goes among the turn's tool
//! results. The loop consults the policy only when a planning tool is
//! offered: without one there is nothing to remind of.
//!
//! Adding a policy is one file beside this one plus one variant of
//! [`ReminderSpec`] (its name, parameters and constructor).

mod claude_code;
mod error;
mod every_turn;
mod interval;
mod off;
mod planning_state;
mod qwen_code;
mod s03;
mod spec;

use serde::{Deserialize, Serialize};
use std::fmt;

use super::dialect::{PlanDialect, PlanItem};
use crate::llm::ContentBlock;

pub use claude_code::{
    CLAUDE_CODE_LIST_INTRO, CLAUDE_CODE_TASKS_LIST_INTRO, CLAUDE_CODE_TASKS_TEXT, CLAUDE_CODE_TEXT,
};
pub use error::ReminderSpecError;
pub use every_turn::EVERY_TURN_HEADER;
pub use interval::INTERVAL_TEXT;
pub use planning_state::PLANNING_STATE_TEXT;
pub use qwen_code::{QWEN_CODE_END, QWEN_CODE_TEXT};
pub use s03::{NagThreshold, S03_TEXT};
pub use spec::ReminderSpec;

/// What happened in the turn that just ended, as a policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TurnFacts {
    /// The turn (1-based).
    pub turn: usize,
    /// Calls of an offered planning tool, accepted or rejected.
    pub planning_calls: usize,
    /// Of those, the ones the dialect accepted.
    pub accepted_updates: usize,
}

/// One reminder policy's state for one run.
pub trait ReminderPolicy: fmt::Debug {
    /// Called after every turn whose results are about to be sent; returns
    /// the reminder text when one is due. `plan` is the plan after the
    /// turn's calls.
    fn after_turn(
        &mut self,
        facts: &TurnFacts,
        plan: &[PlanItem],
        dialect: &dyn PlanDialect,
    ) -> Option<String>;

    /// Called when a new user message starts (the next part of a session):
    /// each policy says here which of its counts carry over. The plan
    /// itself always carries over (it lives in the loop).
    fn user_message(&mut self);
}

/// Where the reminder goes among the tool results.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Deserialize, Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// First, before the tool results: the s03 reference (breaks the API's
    /// "begin with tool_result" rule).
    #[default]
    Prepend,
    /// Last, after the tool results: what the API accepts.
    Append,
    /// Appended to the text of the last tool result, after a line break
    /// (Claude Code's current behaviour; the API accepts it).
    Fold,
}

impl Placement {
    pub const ALL: [Placement; 3] = [Placement::Prepend, Placement::Append, Placement::Fold];

    pub fn name(self) -> &'static str {
        match self {
            Self::Prepend => "prepend",
            Self::Append => "append",
            Self::Fold => "fold",
        }
    }

    /// Puts `text` into `results`. Folding into a turn without a tool
    /// result (which the loop never sends) appends a text block instead.
    pub fn place(self, results: &mut Vec<ContentBlock>, text: String) {
        match self {
            Self::Prepend => results.insert(0, ContentBlock::text(text)),
            Self::Append => results.push(ContentBlock::text(text)),
            Self::Fold => {
                let last = results.iter_mut().rev().find_map(|b| match b {
                    ContentBlock::ToolResult { content, .. } => Some(content),
                    _ => None,
                });
                match last {
                    Some(content) => {
                        content.push('\n');
                        content.push_str(&text);
                    }
                    None => results.push(ContentBlock::text(text)),
                }
            }
        }
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results() -> Vec<ContentBlock> {
        vec![
            ContentBlock::ToolResult {
                tool_use_id: "a".into(),
                content: "one".into(),
                is_error: false,
            },
            ContentBlock::ToolResult {
                tool_use_id: "b".into(),
                content: "two".into(),
                is_error: false,
            },
        ]
    }

    #[test]
    fn each_placement_puts_the_text_where_it_says() {
        let mut r = results();
        Placement::Prepend.place(&mut r, "R".into());
        assert_eq!(r[0], ContentBlock::text("R"));
        assert_eq!(r.len(), 3);

        let mut r = results();
        Placement::Append.place(&mut r, "R".into());
        assert_eq!(r[2], ContentBlock::text("R"));

        let mut r = results();
        Placement::Fold.place(&mut r, "R".into());
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[1],
            ContentBlock::ToolResult {
                tool_use_id: "b".into(),
                content: "two\nR".into(),
                is_error: false
            }
        );
        assert_eq!(
            r[0],
            results()[0],
            "only the last tool result is folded into"
        );

        let mut none = Vec::new();
        Placement::Fold.place(&mut none, "R".into());
        assert_eq!(none, [ContentBlock::text("R")]);
    }
}
