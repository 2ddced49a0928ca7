//! How the simulated model reads its context: where its plan is, how long
//! ago it saw it, and what it believes is done.
//!
//! The plan is the most recent one in the context, as the model's planning
//! dialect shows it: a tool result the dialect parses as its render, else
//! the input of the model's own most recent *accepted* planning call (its
//! result is not one of the dialect's errors). Dialects that do not echo
//! the plan are read from the calls alone, so their cost shows honestly.

use serde_json::Value;
use std::collections::BTreeSet;

use super::{MAX_ATTEMPTS, Skill, claim_text, work_text};
use crate::agent::dialect::{PlanDialect, PlanItem, PlanStatus};
use crate::llm::{Content, ContentBlock, Message, Role};

/// The model's reading of the context.
pub(super) struct Reading {
    /// Index into the skills for each step the plan holds, in plan order.
    pub plan: Vec<usize>,
    /// The plan as the dialect holds it (empty when none was seen).
    pub items: Vec<PlanItem>,
    /// Steps believed done.
    pub done: BTreeSet<usize>,
    pub recall: f64,
}

/// A plan found in the context: the message it was seen in, its steps
/// with their statuses, and the items as the dialect holds them.
struct FoundPlan {
    at: usize,
    steps: Vec<(usize, PlanStatus)>,
    items: Vec<PlanItem>,
}

/// What the reader needs to know besides the messages.
pub(super) struct Reader<'a> {
    pub skills: &'a [Skill],
    pub dialect: &'a dyn PlanDialect,
    /// Whether a planning tool is offered: calls of it count only then.
    pub offered: bool,
    pub params: &'a super::SimulateParams,
}

impl Reader<'_> {
    pub fn read(&self, messages: &[Message]) -> Reading {
        let found = self.find_plan(messages);
        let plan_at = found.at;
        let after = messages.get(plan_at + 1..).unwrap_or(&[]);
        let chars: usize = after.iter().map(message_chars).sum();
        let own_turns = after.iter().filter(|m| m.role == Role::Assistant).count();
        let tokens = chars as f64 / self.params.chars_per_token
            + own_turns as f64 * self.params.tokens_per_turn;
        let floor = self.params.recall_floor;
        let recall = floor
            + (1.0 - floor)
                / (1.0 + (tokens / self.params.attention_span).powf(self.params.sharpness));

        let mut done: BTreeSet<usize> = found
            .steps
            .iter()
            .filter(|(_, status)| *status == PlanStatus::Completed)
            .map(|(i, _)| *i)
            .collect();
        // The plan's own message is included: the calls made alongside the
        // update that produced it were made after it was decided.
        let since = messages.get(plan_at.saturating_sub(1)..).unwrap_or(&[]);
        done.extend(self.claimed_done(since));
        done.extend(self.performed(since));
        done.extend(self.given_up(messages));
        Reading {
            plan: found.steps.into_iter().map(|(i, _)| i).collect(),
            items: found.items,
            done,
            recall,
        }
    }

    /// The plan's items mapped to steps: by id and text where they agree,
    /// else by text (dialects without ids number their items).
    fn map_to_steps(&self, items: &[PlanItem]) -> Vec<(usize, PlanStatus)> {
        items
            .iter()
            .filter_map(|item| {
                self.skills
                    .iter()
                    .position(|s| s.id == item.id && s.text == item.text)
                    .or_else(|| self.skills.iter().position(|s| s.text == item.text))
                    .map(|i| (i, item.status))
            })
            .collect()
    }

    /// The latest plan in the context that names at least one step, else
    /// the task message (index 0) with every step to do.
    fn find_plan(&self, messages: &[Message]) -> FoundPlan {
        let mut found = None;
        // The plan as the model's own accepted calls left it.
        let mut held: Vec<PlanItem> = Vec::new();
        for (index, message) in messages.iter().enumerate() {
            if message.role != Role::User {
                continue;
            }
            let asked = index
                .checked_sub(1)
                .and_then(|i| messages.get(i))
                .map(Message::content_blocks)
                .unwrap_or(&[]);
            for block in message.content_blocks() {
                let ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                } = block
                else {
                    continue;
                };
                // A plan shown back was seen in this message; a plan read
                // from the model's own call was last seen in that call, so
                // the results after it (this message) count against it.
                let (items, at) = match self.dialect.plan_from_result(content) {
                    Some(items) => (Some(items), index),
                    None => (
                        self.accepted_call(asked, tool_use_id, content).and_then(
                            |(tool, input)| self.dialect.plan_from_call(&held, tool, input),
                        ),
                        index.saturating_sub(1),
                    ),
                };
                let Some(items) = items else { continue };
                held = items.clone();
                let steps = self.map_to_steps(&items);
                // A list that names none of the task's steps is not its plan.
                if !steps.is_empty() {
                    found = Some(FoundPlan { at, steps, items });
                }
            }
        }
        // No list: the plan is the task as given, every step still to do
        // (what was done since is read from the conversation).
        found.unwrap_or_else(|| FoundPlan {
            at: 0,
            steps: (0..self.skills.len())
                .map(|i| (i, PlanStatus::Pending))
                .collect(),
            items: Vec::new(),
        })
    }

    /// The planning call `id` answered by `result`, if it was accepted.
    fn accepted_call<'m>(
        &self,
        asked: &'m [ContentBlock],
        id: &str,
        result: &str,
    ) -> Option<(&'m str, &'m Value)> {
        if !self.offered || self.dialect.is_error(result) {
            return None;
        }
        asked.iter().find_map(|b| match b {
            ContentBlock::ToolUse {
                id: call_id,
                name,
                input,
            } if call_id == id && self.dialect.is_planning_tool(name) => {
                Some((name.as_str(), input))
            }
            _ => None,
        })
    }

    /// Steps the model said were done in its own text.
    fn claimed_done(&self, messages: &[Message]) -> Vec<usize> {
        let mut claimed = Vec::new();
        for message in messages.iter().filter(|m| m.role == Role::Assistant) {
            for text in message.texts() {
                for (i, step) in self.skills.iter().enumerate() {
                    if text.contains(&claim_text(step)) {
                        claimed.push(i);
                    }
                }
            }
        }
        claimed
    }

    /// Steps it has set out to do [`MAX_ATTEMPTS`] times without success:
    /// like a real model, it stops retrying and takes them as done.
    fn given_up(&self, messages: &[Message]) -> Vec<usize> {
        (0..self.skills.len())
            .filter(|&i| {
                let opening = work_text(&self.skills[i]);
                let attempts = messages
                    .iter()
                    .filter(|m| m.role == Role::Assistant)
                    .flat_map(Message::texts)
                    .filter(|t| t.contains(&opening))
                    .count();
                attempts >= MAX_ATTEMPTS
            })
            .collect()
    }

    /// Steps whose every `do` call was made, and answered without an error.
    fn performed(&self, messages: &[Message]) -> Vec<usize> {
        let mut succeeded: Vec<(&str, &Value)> = Vec::new();
        for pair in messages.windows(2) {
            let [asked, answered] = pair else { continue };
            if asked.role != Role::Assistant {
                continue;
            }
            for block in asked.content_blocks() {
                let ContentBlock::ToolUse { id, name, input } = block else {
                    continue;
                };
                let ok = answered.content_blocks().iter().any(|b| {
                    matches!(b, ContentBlock::ToolResult { tool_use_id, content }
                        if tool_use_id == id && !content.starts_with("Error") && !content.starts_with("Unknown tool"))
                });
                if ok {
                    succeeded.push((name.as_str(), input));
                }
            }
        }
        (0..self.skills.len())
            .filter(|&i| {
                let actions = &self.skills[i].actions;
                !actions.is_empty()
                    && actions.iter().all(|a| {
                        succeeded
                            .iter()
                            .any(|(n, inp)| *n == a.tool && **inp == a.input)
                    })
            })
            .collect()
    }

    /// Whether the model's latest planning call was rejected.
    pub fn last_update_rejected(&self, messages: &[Message]) -> bool {
        let latest = messages.last().filter(|m| m.role == Role::User);
        let asked = messages.iter().rev().find(|m| m.role == Role::Assistant);
        let (Some(asked), Some(answered)) = (asked, latest) else {
            return false;
        };
        asked.content_blocks().iter().any(|b| {
            let ContentBlock::ToolUse { id, name, .. } = b else {
                return false;
            };
            self.dialect.is_planning_tool(name)
                && answered.content_blocks().iter().any(|r| {
                    matches!(r, ContentBlock::ToolResult { tool_use_id, content }
                        if tool_use_id == id && self.dialect.is_error(content))
                })
        })
    }
}

/// Characters the model reads in a message.
fn message_chars(message: &Message) -> usize {
    match &message.content {
        Content::Text(text) => text.chars().count(),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|b| match b {
                ContentBlock::Text { text } => text.chars().count(),
                ContentBlock::ToolResult { content, .. } => content.chars().count(),
                ContentBlock::ToolUse { name, input, .. } => {
                    name.len() + input.to_string().chars().count()
                }
            })
            .sum(),
    }
}
