//! Sessions read off a conversation: which user messages are the user's
//! own (a task, not tool results), and which part of a session each
//! message belongs to.
//!
//! The built-in loop, the simulated model and the figures of an outside
//! agent's run all place messages in parts the same way, from the
//! messages alone: a user message holding no tool result is a user
//! message proper, unless all its text is the client's own tagged context
//! (text starting with `<`, such as Claude Code's `<system-reminder>` or
//! Codex's `<environment_context>`); one whose text (or one of whose text
//! blocks) is the next expected part's task, line breaks read as spaces
//! and surrounding blanks ignored, starts that part; any other is one the
//! scenario did not send (counted as unexpected, and its turns stay in the
//! part before it).

use super::{Content, ContentBlock, Message, Role};

/// The texts of a user message that holds no tool result (the user
/// typing), without the client's tagged context blocks; `None` for any
/// other message, or when nothing else is left.
pub fn user_typed(message: &Message) -> Option<Vec<&str>> {
    if message.role != Role::User {
        return None;
    }
    let texts: Vec<&str> = match &message.content {
        Content::Text(text) => vec![text.as_str()],
        Content::Blocks(blocks) => {
            if blocks
                .iter()
                .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
            {
                return None;
            }
            blocks
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect()
        }
    };
    let typed: Vec<&str> = texts
        .into_iter()
        .filter(|t| !t.trim_start().starts_with('<'))
        .collect();
    (!typed.is_empty()).then_some(typed)
}

/// Whether typed `texts` are `wanted` (already on one line): all of them
/// together, or one of them.
fn says(texts: &[&str], wanted: &str) -> bool {
    one_line(&texts.join("\n")) == wanted || texts.iter().any(|t| one_line(t) == wanted)
}

/// `text` on one line: every line break a space, blanks trimmed at the ends.
pub fn one_line(text: &str) -> String {
    text.replace("\r\n", " ")
        .replace(['\n', '\r'], " ")
        .trim()
        .to_string()
}

/// Where each message of a conversation falls in a session of `tasks`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionMap {
    /// Per message: the part (0-based) it belongs to.
    pub part_of: Vec<usize>,
    /// Per part: the index of the message that started it, if it was sent.
    pub starts: Vec<Option<usize>>,
    /// User messages that were no part's task, with their index.
    pub unexpected: Vec<(usize, String)>,
}

impl SessionMap {
    /// Reads `messages` against the session's `tasks` (in order).
    pub fn read<'a>(messages: impl IntoIterator<Item = &'a Message>, tasks: &[String]) -> Self {
        let messages = messages.into_iter();
        let wanted: Vec<String> = tasks.iter().map(|t| one_line(t)).collect();
        let mut map = SessionMap {
            part_of: Vec::with_capacity(messages.size_hint().0),
            starts: vec![None; tasks.len()],
            unexpected: Vec::new(),
        };
        let mut current = 0;
        let mut next = 0;
        for (index, message) in messages.enumerate() {
            if let Some(texts) = user_typed(message) {
                if wanted.get(next).is_some_and(|w| says(&texts, w)) {
                    current = next;
                    if let Some(start) = map.starts.get_mut(next) {
                        *start = Some(index);
                    }
                    next += 1;
                } else {
                    map.unexpected.push((index, texts.join("\n")));
                }
            }
            map.part_of.push(current);
        }
        map
    }

    /// The part the next message belongs to (the current one).
    pub fn current(&self) -> usize {
        self.part_of.last().copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks(list: &[&str]) -> Vec<String> {
        list.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn parts_start_at_their_tasks_and_strays_are_counted() {
        let messages = vec![
            Message::user_text("first\ntask"),
            Message::blocks(Role::Assistant, vec![ContentBlock::text("ok")]),
            Message::user_text("chatter"),
            Message::blocks(Role::Assistant, vec![ContentBlock::text("ok")]),
            Message::user_text("second"),
            Message::blocks(Role::Assistant, vec![ContentBlock::text("done")]),
        ];
        let map = SessionMap::read(&messages, &tasks(&["first task", "second"]));
        assert_eq!(map.part_of, [0, 0, 0, 0, 1, 1]);
        assert_eq!(map.starts, [Some(0), Some(4)]);
        assert_eq!(map.unexpected, [(2, "chatter".to_string())]);
        assert_eq!(map.current(), 1);
    }

    #[test]
    fn tool_results_are_not_user_messages() {
        let results = Message::blocks(
            Role::User,
            vec![
                ContentBlock::text("<reminder>Update your todos.</reminder>"),
                ContentBlock::ToolResult {
                    tool_use_id: "toolu_1_1".into(),
                    content: "ok".into(),
                    is_error: false,
                },
            ],
        );
        assert_eq!(user_typed(&results), None);
        let typed = Message::blocks(
            Role::User,
            vec![
                ContentBlock::text("<system-reminder>context</system-reminder>"),
                ContentBlock::text("go on"),
            ],
        );
        assert_eq!(user_typed(&typed), Some(vec!["go on"]));
        let context = Message::user_text("<environment_context>cwd</environment_context>");
        assert_eq!(user_typed(&context), None);
        assert_eq!(one_line(" a\r\nb\nc\r "), "a b c");
    }
}
