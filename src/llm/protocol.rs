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
    for index in 0..messages.len() {
        check_message(
            messages,
            index,
            &mut turn,
            &mut calls,
            &mut |id| seen_ids.insert(id),
            &mut |turn, rule| violations.push(Violation { turn, rule }),
        );
    }
    violations
}

/// Checks message `index`, if there is one (and the answer to its calls,
/// the message after it): `turn` counts the assistant messages so far, `first_use` says
/// whether a `tool_use` id is new, `flag` takes each violation with its
/// turn.
fn check_message<'m>(
    messages: &'m [Message],
    index: usize,
    turn: &mut usize,
    calls: &mut Vec<&'m str>,
    first_use: &mut impl FnMut(&'m str) -> bool,
    flag: &mut impl FnMut(usize, String),
) {
    let Some(message) = messages.get(index) else {
        return;
    };
    if message.role == Role::Assistant {
        *turn += 1;
    }
    let turn = *turn;
    let mut flag = |rule: String| flag(turn, rule);
    let expected = if index.is_multiple_of(2) {
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
            ContentBlock::ToolUse { id, .. } if !first_use(id.as_str()) => {
                flag(format!("tool_use id {id} is used twice"));
            }
            _ => {}
        }
    }
    if message.role != Role::Assistant {
        return;
    }
    calls.clear();
    calls.extend(message.content_blocks().iter().filter_map(|b| match b {
        ContentBlock::ToolUse { id, .. } => Some(id.as_str()),
        _ => None,
    }));
    if calls.is_empty() {
        return;
    }
    // With no message after it the run ended on a tool call: no request
    // followed, so no request was malformed.
    if let Some(answer) = messages.get(index + 1) {
        check_answer(answer, calls, &mut flag);
    }
}

/// The check of a conversation that grows from one request to the next
/// (an outside agent's, which sends it whole each time): what was checked
/// of the messages a request keeps is kept, so each message is checked
/// about once, not once a request. The result is [`check`]'s.
#[derive(Debug, Default)]
pub struct GrowingCheck {
    /// Per message checked: the assistant messages up to it.
    turns: Vec<usize>,
    /// Every `tool_use` id seen, and the message of each in order.
    ids: BTreeSet<String>,
    ids_at: Vec<(usize, String)>,
    /// The violations found, with the message each was found at.
    violations: Vec<(usize, Violation)>,
}

impl GrowingCheck {
    /// Checks `messages`, whose first `unchanged` are those of the
    /// conversation checked last (0: none are).
    pub fn check(&mut self, messages: &[Message], unchanged: usize) -> Vec<Violation> {
        // A message's check reads the message after it.
        self.keep(unchanged.saturating_sub(1).min(self.turns.len()));
        let mut calls = Vec::new();
        for index in self.turns.len()..messages.len() {
            let mut turn = self.turns.last().copied().unwrap_or(0);
            let (ids, ids_at, violations) = (&mut self.ids, &mut self.ids_at, &mut self.violations);
            check_message(
                messages,
                index,
                &mut turn,
                &mut calls,
                &mut |id| {
                    let new = ids.insert(id.to_string());
                    if new {
                        ids_at.push((index, id.to_string()));
                    }
                    new
                },
                &mut |turn, rule| violations.push((index, Violation { turn, rule })),
            );
            self.turns.push(turn);
        }
        self.violations.iter().map(|(_, v)| v.clone()).collect()
    }

    /// Forgets what was checked from message `len` on.
    fn keep(&mut self, len: usize) {
        self.turns.truncate(len);
        while self.ids_at.last().is_some_and(|(at, _)| *at >= len) {
            if let Some((_, id)) = self.ids_at.pop() {
                self.ids.remove(&id);
            }
        }
        while self.violations.last().is_some_and(|(at, _)| *at >= len) {
            self.violations.pop();
        }
    }
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

    /// A message of a small alphabet that breaks each rule now and then.
    fn message(kind: u8, n: u8) -> Message {
        let id = format!("t{}", n % 6);
        match kind % 7 {
            0 => Message::user_text(if n.is_multiple_of(9) { "" } else { "task" }),
            1 => Message::blocks(Role::Assistant, vec![call(&id)]),
            2 => Message::blocks(Role::User, vec![result(&id)]),
            3 => Message::blocks(Role::User, vec![ContentBlock::text("x"), result(&id)]),
            4 => Message::blocks(Role::Assistant, vec![ContentBlock::text("")]),
            5 => Message::blocks(Role::Assistant, vec![call(&id), call(&format!("u{n}"))]),
            _ => Message::blocks(Role::User, vec![result(&id), result(&format!("u{n}"))]),
        }
    }

    proptest::proptest! {
        /// Checking a conversation that changes from request to request,
        /// told how many leading messages each keeps, finds what checking
        /// it whole finds.
        #[test]
        fn a_growing_check_is_the_whole_check(
            steps in proptest::collection::vec(
                (0usize..12, proptest::collection::vec((0u8..7, 0u8..40), 0..5), 0usize..3),
                1..12,
            ),
        ) {
            let mut growing = GrowingCheck::default();
            let mut messages: Vec<Message> = Vec::new();
            for (cut, added, understate) in steps {
                let before = messages.clone();
                messages.truncate(cut.max(messages.len().saturating_sub(1)).min(messages.len()));
                if cut % 4 == 0 && !messages.is_empty() {
                    messages.truncate(cut % messages.len());
                }
                messages.extend(added.iter().map(|&(k, n)| message(k, n)));
                let unchanged = before
                    .iter()
                    .zip(&messages)
                    .take_while(|(a, b)| a == b)
                    .count()
                    .saturating_sub(understate);
                proptest::prop_assert_eq!(growing.check(&messages, unchanged), check(&messages));
            }
        }
    }
}
