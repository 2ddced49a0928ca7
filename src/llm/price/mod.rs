//! The price of planning: how many tokens the requests a model answered
//! held, and how many of them were planning.
//!
//! A run's price is read off the requests alone, so the built-in loop (from
//! its transcript: each assistant message answered the messages before it)
//! and an outside agent (from each request it sent over the wire) are
//! measured by the same code:
//!
//! - a request's characters are its system prompt plus, per message, the
//!   text blocks (a plain-string message is one), every tool input as
//!   compact JSON and every tool result; tool schemas, tool names and ids
//!   are not counted. The workspace path counts as the fixed placeholder
//!   `{WORKDIR}`, so figures do not depend on where the workspace lives,
//!   and a duration an outside agent measured and wrote into a result
//!   (Codex's `Wall time: 0.1 seconds`) counts as `Wall time: 0 seconds`,
//!   so they do not depend on the clock or the machine's load either, and
//!   a process id an agent wrote into a result (Gemini CLI's and Qwen
//!   Code's `Process Group PGID: 27864`) as `Process Group PGID: 0`;
//! - its tokens are its characters / 4, rounded up once per request (a
//!   request is what an API counts; rounding each request up keeps every
//!   figure a whole number and never makes planning more than the whole);
//! - its planning characters are the inputs of the planning calls in it,
//!   their results, and the reminder texts in it: in a user message after
//!   the model's first answer (what the wire counts as a reminder), a text
//!   holding a reminder marker counts from the start of the marker's line
//!   to its end (a reminder is placed as its own block, or folded onto the
//!   end of a tool result after a line break);
//! - a planning turn is a turn whose every call (at least one) is a
//!   planning call; a reminder after planning is one added right after a
//!   turn holding a planning call.
//!
//! Everything sent again in a later request is counted again: that is what
//! the context costs.
//!
//! The rooms: this file sums a run's figures ([`PlanningPrice`]);
//! `conversation` counts a conversation message by message;
//! `reminders` tells planning apart (the rules, where a reminder starts);
//! `json_chars` counts a tool input as compact JSON without writing it
//! (an input shared between runs once a thread);
//! `workdir` reads the workspace path as its placeholder, and `measured`
//! the wall times and process ids agents write, so no figure depends on
//! the machine.

mod conversation;
mod json_chars;
mod measured;
mod reminders;
mod workdir;

use serde::Serialize;

pub use self::conversation::ConversationChars;
pub use self::json_chars::{input_chars, json_chars};
pub use self::measured::{PGID_COUNTED, WALL_TIME_COUNTED};
pub use self::reminders::{PriceRules, REMINDER_MARKERS};
pub use self::workdir::{WORKDIR_PLACEHOLDER, WorkdirSpelling};
use super::{ContentBlock, Message, Role};

/// A run's price: the four per-run figures of the report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PlanningPrice {
    /// Tokens of every request the model answered, summed.
    pub context_tokens: u64,
    /// The part of them that is planning.
    pub planning_tokens: u64,
    /// Turns whose every call was a planning call.
    pub planning_turns: usize,
    /// Reminders added right after a turn holding a planning call.
    pub reminders_after_planning: usize,
}

/// Characters to tokens: a quarter, rounded up.
pub fn tokens(chars: u64) -> u64 {
    chars.div_ceil(4)
}

impl PlanningPrice {
    /// Adds one request the model answered: its system prompt's characters
    /// and the conversation it carried.
    pub fn add_request(&mut self, system_chars: u64, conversation: &ConversationChars) {
        let total = system_chars.saturating_add(conversation.chars);
        self.context_tokens = self.context_tokens.saturating_add(tokens(total));
        self.planning_tokens = self
            .planning_tokens
            .saturating_add(tokens(conversation.planning_chars));
    }

    /// Adds one of the model's turns (its answer's blocks) and whether a
    /// reminder came right after it.
    pub fn add_turn(&mut self, answer: &[ContentBlock], reminder_after: bool, rules: &PriceRules) {
        let (mut calls, mut planning) = (0, 0);
        for block in answer {
            if let ContentBlock::ToolUse { name, .. } = block {
                calls += 1;
                planning += usize::from((rules.is_planning)(name));
            }
        }
        if planning > 0 && planning == calls {
            self.planning_turns += 1;
        }
        if planning > 0 && reminder_after {
            self.reminders_after_planning += 1;
        }
    }

    /// The price of a transcript in which each assistant message answered
    /// the messages before it (the built-in loop's), with `system` sent
    /// every time and reminders after the turns in `reminders_at`.
    pub fn of_transcript(
        system: &str,
        messages: &[Message],
        reminders_at: &[usize],
        rules: &PriceRules<'_>,
    ) -> Self {
        let system_chars = rules.workdir.chars(system) as u64;
        let mut price = Self::default();
        let mut conversation = ConversationChars::default();
        let mut turn = 0;
        for message in messages {
            if message.role == Role::Assistant {
                turn += 1;
                price.add_request(system_chars, &conversation);
                price.add_turn(
                    message.content_blocks(),
                    reminders_at.contains(&turn),
                    rules,
                );
            }
            conversation.add(message, rules);
        }
        price
    }
}

#[cfg(test)]
mod tests;
