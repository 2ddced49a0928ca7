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
/// Read message by message ([`SessionMap::push`]): a conversation that
/// grows by a message is read on by that message, not again from the start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionMap {
    /// Per message: the part (0-based) it belongs to.
    pub part_of: Vec<usize>,
    /// Per part: the index of the message that started it, if it was sent.
    pub starts: Vec<Option<usize>>,
    /// User messages that were no part's task, with their index.
    pub unexpected: Vec<(usize, String)>,
    /// Each part's task on one line.
    wanted: Vec<String>,
    /// The part whose task is expected next.
    next: usize,
}

impl SessionMap {
    /// Reads `messages` against the session's `tasks` (in order).
    pub fn read<'a>(messages: impl IntoIterator<Item = &'a Message>, tasks: &[String]) -> Self {
        let messages = messages.into_iter();
        let mut map = Self::new(tasks);
        map.part_of.reserve(messages.size_hint().0);
        for message in messages {
            map.push(message);
        }
        map
    }

    /// The map of an empty conversation in a session of `tasks`.
    pub fn new(tasks: &[String]) -> Self {
        SessionMap {
            part_of: Vec::new(),
            starts: vec![None; tasks.len()],
            unexpected: Vec::new(),
            wanted: tasks.iter().map(|t| one_line(t)).collect(),
            next: 0,
        }
    }

    /// Reads the conversation's next message.
    pub fn push(&mut self, message: &Message) {
        let index = self.part_of.len();
        let mut current = self.current();
        if let Some(texts) = user_typed(message) {
            if self.wanted.get(self.next).is_some_and(|w| says(&texts, w)) {
                current = self.next;
                if let Some(start) = self.starts.get_mut(self.next) {
                    *start = Some(index);
                }
                self.next += 1;
            } else {
                self.unexpected.push((index, texts.join("\n")));
            }
        }
        self.part_of.push(current);
    }

    /// Messages read.
    pub fn len(&self) -> usize {
        self.part_of.len()
    }

    /// Whether no message was read.
    pub fn is_empty(&self) -> bool {
        self.part_of.is_empty()
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
    fn read_on_message_by_message_it_is_the_map_of_every_prefix() {
        let messages = vec![
            Message::user_text("first"),
            Message::blocks(Role::Assistant, vec![ContentBlock::text("ok")]),
            Message::user_text("stray"),
            Message::user_text("second\ntask"),
            Message::blocks(Role::Assistant, vec![ContentBlock::text("done")]),
        ];
        let tasks = tasks(&["first", "second task", "third"]);
        let mut map = SessionMap::new(&tasks);
        for (read, message) in messages.iter().enumerate() {
            assert_eq!(map, SessionMap::read(&messages[..read], &tasks));
            map.push(message);
        }
        assert_eq!(map, SessionMap::read(&messages, &tasks));
        assert_eq!((map.len(), map.current()), (5, 1));
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
