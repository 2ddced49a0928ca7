//! A conversation counted message by message: its characters, of which
//! planning (calls, their results, reminders).

use std::collections::BTreeSet;

use super::json_chars::input_chars;
use super::reminders::PriceRules;
use crate::llm::{Content, ContentBlock, Message, Role};

/// A conversation read message by message: characters so far, of which
/// planning, and the planning calls seen (a result is planning when it
/// answers one). A request's figures are those of the messages before it.
#[derive(Debug, Default)]
pub struct ConversationChars<'m> {
    pub chars: u64,
    pub planning_chars: u64,
    planning_calls: BTreeSet<&'m str>,
    answered: bool,
}

impl<'m> ConversationChars<'m> {
    /// Adds one message.
    pub fn add(&mut self, message: &'m Message, rules: &PriceRules<'_>) {
        let after_answer = self.answered && message.role == Role::User;
        match &message.content {
            Content::Text(plain) => self.add_text(plain, false, after_answer, rules),
            Content::Blocks(blocks) => {
                for block in blocks {
                    match block {
                        ContentBlock::Text { text } => {
                            self.add_text(text, false, after_answer, rules);
                        }
                        ContentBlock::ToolResult {
                            tool_use_id,
                            content,
                            ..
                        } => {
                            let planning = self.planning_calls.contains(tool_use_id.as_str());
                            self.add_text(content, planning, after_answer, rules);
                        }
                        ContentBlock::ToolUse { id, name, input } => {
                            let planning = (rules.is_planning)(name);
                            if planning {
                                self.planning_calls.insert(id);
                            }
                            let chars = input_chars(input, rules.workdir) as u64;
                            self.count(chars, if planning { chars } else { 0 });
                        }
                    }
                }
            }
        }
        self.answered |= message.role == Role::Assistant;
    }

    /// Adds a text: all of it planning, or its reminder (in a user
    /// message after the model's first answer).
    fn add_text(&mut self, text: &str, planning: bool, after_answer: bool, rules: &PriceRules) {
        let chars = rules.workdir.chars(text);
        let planning = if planning {
            chars
        } else if after_answer {
            rules.reminder_chars(text)
        } else {
            0
        };
        self.count(chars as u64, planning as u64);
    }

    fn count(&mut self, chars: u64, planning: u64) {
        self.chars = self.chars.saturating_add(chars);
        self.planning_chars = self.planning_chars.saturating_add(planning);
    }
}
