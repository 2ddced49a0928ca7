//! The protocol check (docs/loop.md, "The protocol check"): would the Anthropic Messages API
//! accept the requests this transcript was built from?
//!
//! Rules: roles alternate starting with `user`; every `tool_use` id is
//! unique and answered by exactly one `tool_result` in the next user
//! message; that message begins with its `tool_result` blocks; no text
//! block is empty. The transcript holds every request's messages, so each
//! violation is found (and counted) once, at the turn where it appears.

use std::collections::BTreeSet;
use std::fmt;

use crate::llm::{Content, ContentBlock, Message, Role};

/// One broken rule, at the turn of the message that breaks it (0 = the
/// task message; the user message after turn t's response counts as t).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub turn: usize,
    pub rule: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "turn {}: {}", self.turn, self.rule)
    }
}

/// Checks a whole transcript.
pub fn check(messages: &[Message]) -> Vec<Violation> {
    let mut violations = Vec::new();
    let mut seen_ids = BTreeSet::new();
    // One list for every message's calls: reused, not made per message.
    let mut calls: Vec<&str> = Vec::new();
    let mut turn = 0;
    for (index, message) in messages.iter().enumerate() {
        if message.role == Role::Assistant {
            turn += 1;
        }
        let mut flag = |rule: String| violations.push(Violation { turn, rule });
        let expected = if index % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        if message.role != expected {
            flag(format!(
                "message {} has role {:?} where {:?} was due (roles must alternate, starting with user)",
                index + 1,
                message.role,
                expected
            ));
        }
        match &message.content {
            Content::Text(text) if text.is_empty() => flag("empty text content".into()),
            _ => {}
        }
        for block in message.content_blocks() {
            match block {
                ContentBlock::Text { text } if text.is_empty() => {
                    flag("empty text block".into());
                }
                ContentBlock::ToolUse { id, .. } if !seen_ids.insert(id.as_str()) => {
                    flag(format!("tool_use id {id} is used twice"));
                }
                _ => {}
            }
        }
        if message.role != Role::Assistant {
            continue;
        }
        calls.clear();
        calls.extend(message.content_blocks().iter().filter_map(|b| match b {
            ContentBlock::ToolUse { id, .. } => Some(id.as_str()),
            _ => None,
        }));
        if calls.is_empty() {
            continue;
        }
        let Some(answer) = messages.get(index + 1) else {
            // The run ended on a tool call: no request followed, so no
            // request was malformed.
            continue;
        };
        check_answer(answer, &calls, &mut flag);
    }
    violations
}

fn check_answer(answer: &Message, calls: &[&str], flag: &mut impl FnMut(String)) {
    let blocks = answer.content_blocks();
    let leading = blocks
        .iter()
        .take_while(|b| matches!(b, ContentBlock::ToolResult { .. }))
        .count();
    if blocks
        .iter()
        .skip(leading)
        .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
    {
        flag(
            "Messages following tool_use blocks must begin with a matching number of tool_result blocks"
                .into(),
        );
    }
    for id in calls {
        let answers = blocks
            .iter()
            .filter(
                |b| matches!(b, ContentBlock::ToolResult { tool_use_id, .. } if tool_use_id == id),
            )
            .count();
        if answers != 1 {
            flag(format!(
                "tool_use {id} is answered by {answers} tool_result blocks, not 1"
            ));
        }
    }
    for block in blocks {
        if let ContentBlock::ToolResult { tool_use_id, .. } = block
            && !calls.contains(&tool_use_id.as_str())
        {
            flag(format!("tool_result for unknown tool_use {tool_use_id}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> ContentBlock {
        ContentBlock::ToolUse {
            id: id.into(),
            name: "bash".into(),
            input: json!({}).into(),
        }
    }

    fn result(id: &str) -> ContentBlock {
        ContentBlock::ToolResult {
            tool_use_id: id.into(),
            content: "ok".into(),
            is_error: false,
        }
    }

    #[test]
    fn a_valid_exchange_passes() {
        let messages = vec![
            Message::user_text("task"),
            Message::blocks(Role::Assistant, vec![call("a"), call("b")]),
            Message::blocks(
                Role::User,
                vec![result("a"), result("b"), ContentBlock::text("note")],
            ),
            Message::blocks(Role::Assistant, vec![ContentBlock::text("done")]),
        ];
        assert!(check(&messages).is_empty());
    }

    #[test]
    fn a_prepended_reminder_is_one_violation() {
        let messages = vec![
            Message::user_text("task"),
            Message::blocks(Role::Assistant, vec![call("a")]),
            Message::blocks(
                Role::User,
                vec![ContentBlock::text("<reminder>"), result("a")],
            ),
        ];
        let found = check(&messages);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].turn, 1);
        assert!(found[0].rule.starts_with("Messages following tool_use"));
    }

    #[test]
    fn every_other_rule_is_checked() {
        let messages = vec![
            Message::user_text("task"),
            Message::blocks(
                Role::Assistant,
                vec![ContentBlock::text(""), call("a"), call("b")],
            ),
            Message::blocks(Role::User, vec![result("a"), result("a"), result("z")]),
            Message::blocks(Role::Assistant, vec![call("a")]),
            Message::blocks(Role::Assistant, vec![ContentBlock::text("x")]),
        ];
        let rules: Vec<String> = check(&messages)
            .into_iter()
            .map(|v| v.to_string())
            .collect();
        assert_eq!(
            rules,
            [
                "turn 1: empty text block",
                "turn 1: tool_use a is answered by 2 tool_result blocks, not 1",
                "turn 1: tool_use b is answered by 0 tool_result blocks, not 1",
                "turn 1: tool_result for unknown tool_use z",
                "turn 2: tool_use id a is used twice",
                "turn 2: tool_use a is answered by 0 tool_result blocks, not 1",
                "turn 3: message 5 has role Assistant where User was due (roles must alternate, starting with user)",
            ]
        );
    }
}
