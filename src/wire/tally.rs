//! The two counts the server reports of a request's conversation, carried
//! on from one request to the next.
//!
//! Every answer says which turn it is (the assistant messages sent, plus
//! one) and how many input tokens the request held (its texts' length,
//! estimated). Counted afresh, both walk the whole conversation, which an
//! outside agent sends whole with every request: a session of N turns
//! would walk N²/2 messages for them. A [`RunningTally`] keeps the counts
//! of each leading part of the conversation it counted last, so a request
//! that repeats the first messages of the one before (as
//! [`super::incremental::IncrementalReader`] finds) counts only the
//! messages after them. The result is [`Tally::of`] the whole
//! conversation, whatever the request kept (tested against it).

use crate::llm::{Message, Role};

/// Counts over some leading messages of a conversation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Assistant messages.
    pub assistant_messages: usize,
    /// Bytes of text: text blocks and tool results (what the reported
    /// input tokens are estimated from, with the system prompt).
    pub text_chars: usize,
}

impl Tally {
    /// The counts of `messages`, walking all of them.
    pub fn of(messages: &[Message]) -> Self {
        messages.iter().fold(Self::default(), Self::with)
    }

    /// These counts with `message` added.
    fn with(self, message: &Message) -> Self {
        Self {
            assistant_messages: self.assistant_messages
                + usize::from(message.role == Role::Assistant),
            text_chars: self.text_chars + message.texts().map(str::len).sum::<usize>(),
        }
    }

    /// The turn a request of these messages asks for (as
    /// [`crate::llm::turn_of`] numbers it).
    pub fn turn(&self) -> usize {
        self.assistant_messages + 1
    }
}

/// The counts of every leading part of the conversation counted last.
#[derive(Debug, Default)]
pub struct RunningTally {
    /// `prefixes[i]` counts the first `i` messages (empty before the first
    /// count).
    prefixes: Vec<Tally>,
}

impl RunningTally {
    /// The counts of `messages`, of which the first `unchanged` are those
    /// of the conversation counted last (so only the rest is walked).
    pub fn count(&mut self, messages: &[Message], unchanged: usize) -> Tally {
        let kept = unchanged
            .min(self.prefixes.len().saturating_sub(1))
            .min(messages.len());
        self.prefixes.truncate(kept + 1);
        let mut total = self.prefixes.last().copied().unwrap_or_default();
        if self.prefixes.is_empty() {
            self.prefixes.push(total);
        }
        for message in messages.get(kept..).unwrap_or_default() {
            total = total.with(message);
            self.prefixes.push(total);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ContentBlock;
    use proptest::prelude::*;

    fn message(kind: u8, n: usize) -> Message {
        let text = "x".repeat(n);
        match kind % 4 {
            0 => Message::user_text(text),
            1 => Message::blocks(
                Role::Assistant,
                vec![ContentBlock::text(text), ContentBlock::text("y")],
            ),
            2 => Message::blocks(Role::Assistant, Vec::new()),
            _ => Message::blocks(
                Role::User,
                vec![ContentBlock::ToolResult {
                    tool_use_id: format!("t{n}"),
                    content: text,
                    is_error: false,
                }],
            ),
        }
    }

    #[test]
    fn a_tally_counts_assistant_messages_and_text_bytes() {
        let messages = [message(0, 3), message(1, 4), message(2, 0), message(3, 5)];
        let tally = Tally::of(&messages);
        assert_eq!(tally.assistant_messages, 2);
        assert_eq!(tally.text_chars, 3 + 4 + 1 + 5);
        assert_eq!(tally.turn(), 3);
    }

    proptest! {
        /// Whatever part of the conversation counted last a request keeps
        /// (as long as it keeps no more than it repeats), counting on gives
        /// what counting it whole gives.
        #[test]
        fn counting_on_is_counting_whole(
            requests in prop::collection::vec(
                (any::<usize>(), prop::collection::vec((any::<u8>(), 0usize..20), 0..6), any::<usize>()),
                1..12,
            ),
        ) {
            let mut running = RunningTally::default();
            let mut messages: Vec<Message> = Vec::new();
            for (cut, added, claimed) in requests {
                let keep = if messages.is_empty() { 0 } else { cut % (messages.len() + 1) };
                messages.truncate(keep);
                messages.extend(added.iter().map(|&(kind, n)| message(kind, n)));
                // A reader may say fewer messages are unchanged than are.
                let unchanged = claimed % (keep + 1);
                prop_assert_eq!(running.count(&messages, unchanged), Tally::of(&messages));
            }
        }
    }
}
