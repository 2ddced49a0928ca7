//! Messages in the Anthropic Messages API shape.
//!
//! The first user message carries the task as a plain string; every other
//! message carries a list of content blocks. Serialized with serde exactly as
//! `replay --format json` prints them:
//!
//! ```json
//! {"role": "user", "content": "task"}
//! {"role": "assistant", "content": [{"type": "text", "text": "..."},
//!   {"type": "tool_use", "id": "toolu_1_1", "name": "bash", "input": {"command": "ls"}}]}
//! {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1_1", "content": "..."}]}
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// A tool call's input. Shared, not copied: a call's input never changes
/// once the model sent it, and a scripted model sends the same inputs in
/// every run, so a run holds references to its script's inputs instead of
/// deep copies (copying and freeing them was an eighth of an episode).
pub type ToolInput = std::sync::Arc<Value>;

/// One content block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: ToolInput,
    },
    ToolResult {
        tool_use_id: String,
        content: String,
        /// The Anthropic API's `is_error`: the call was refused or failed.
        /// Claude Code sets it on every refused call, so the built-in loop
        /// does for its Claude Code dialects; left out when false.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }
}

/// A message's content: the task string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: Content,
}

impl Message {
    pub fn user_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: Content::Text(text.into()),
        }
    }

    pub fn blocks(role: Role, blocks: Vec<ContentBlock>) -> Self {
        Self {
            role,
            content: Content::Blocks(blocks),
        }
    }

    /// The blocks of the message (empty for plain-string content).
    pub fn content_blocks(&self) -> &[ContentBlock] {
        match &self.content {
            Content::Blocks(blocks) => blocks,
            Content::Text(_) => &[],
        }
    }

    /// The tool results of the message, in order: the call each answers
    /// (its id) and what it says.
    pub fn tool_results(&self) -> impl Iterator<Item = (&str, &str)> {
        self.content_blocks()
            .iter()
            .filter_map(|block| match block {
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    ..
                } => Some((tool_use_id.as_str(), content.as_str())),
                _ => None,
            })
    }

    /// Every piece of text a reader sees in this message, in order: plain
    /// content, text blocks and tool results.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        let plain = match &self.content {
            Content::Text(text) => Some(text.as_str()),
            Content::Blocks(_) => None,
        };
        plain
            .into_iter()
            .chain(self.content_blocks().iter().filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.as_str()),
                ContentBlock::ToolResult { content, .. } => Some(content.as_str()),
                ContentBlock::ToolUse { .. } => None,
            }))
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    ToolUse,
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSchema {
    /// Static for the built-in tools; owned when a schema arrives over the
    /// wire from an external agent.
    pub name: Cow<'static, str>,
    pub description: Cow<'static, str>,
    pub input_schema: Value,
}

impl ToolSchema {
    /// A built-in tool's schema.
    pub fn new(name: &'static str, description: &'static str, input_schema: Value) -> Self {
        Self {
            name: Cow::Borrowed(name),
            description: Cow::Borrowed(description),
            input_schema,
        }
    }
}

/// What the loop sends the model on each turn.
#[derive(Debug, Clone, Copy)]
pub struct ModelRequest<'a> {
    pub system: &'a str,
    pub messages: &'a [Message],
    pub tools: &'a [ToolSchema],
    /// How many leading messages are, on the sender's word, exactly those
    /// of its previous request to the same model (0: no such promise). The
    /// built-in loop only appends to its conversation, so every request
    /// after its first keeps the one before whole: a model that reads the
    /// conversation incrementally then need not check that what it read
    /// is still there, which cost a walk over the whole conversation on
    /// every turn.
    pub unchanged: usize,
    /// The turn this request asks for: one more than the assistant
    /// messages in `messages` ([`crate::llm::count_turn`]). The built-in
    /// loop knows it; a server handed a whole conversation counts it once.
    /// Carried so that a model does not count the conversation on every
    /// request, which made a long session quadratic.
    pub turn: usize,
}

/// What the model answers.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelResponse {
    pub content: Vec<ContentBlock>,
    pub stop_reason: StopReason,
}

impl ModelResponse {
    /// A response whose stop reason follows from its content: `tool_use`
    /// when it holds at least one call, else `end_turn`.
    pub fn from_blocks(content: Vec<ContentBlock>) -> Self {
        let has_call = content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolUse { .. }));
        Self {
            content,
            stop_reason: if has_call {
                StopReason::ToolUse
            } else {
                StopReason::EndTurn
            },
        }
    }
}

/// The id of the `k`-th call (1-based) in the response to turn `turn`.
pub fn tool_use_id(turn: usize, k: usize) -> String {
    // Written piece by piece: every call of every run gets an id, and
    // `format!` cost more than the rest of a scripted response.
    let mut numbers = itoa::Buffer::new();
    let mut id = String::with_capacity(24);
    id.push_str("toolu_");
    id.push_str(numbers.format(turn));
    id.push('_');
    id.push_str(numbers.format(k));
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serializes_in_the_messages_api_shape() {
        let messages = vec![
            Message::user_text("task"),
            Message::blocks(
                Role::Assistant,
                vec![
                    ContentBlock::text("hi"),
                    ContentBlock::ToolUse {
                        id: tool_use_id(1, 1),
                        name: "bash".into(),
                        input: json!({"command": "ls"}).into(),
                    },
                ],
            ),
            Message::blocks(
                Role::User,
                vec![ContentBlock::ToolResult {
                    tool_use_id: tool_use_id(1, 1),
                    content: "(no output)".into(),
                    is_error: false,
                }],
            ),
        ];
        let value = serde_json::to_value(&messages).unwrap();
        assert_eq!(
            value,
            json!([
                {"role": "user", "content": "task"},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "hi"},
                    {"type": "tool_use", "id": "toolu_1_1", "name": "bash", "input": {"command": "ls"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1_1", "content": "(no output)"}
                ]}
            ])
        );
        let back: Vec<Message> = serde_json::from_value(value).unwrap();
        assert_eq!(back, messages);
    }

    #[test]
    fn ids_spell_turn_and_position() {
        for (turn, k) in [(1, 1), (9, 10), (12, 345), (usize::MAX, 0)] {
            assert_eq!(tool_use_id(turn, k), format!("toolu_{turn}_{k}"));
        }
    }
}
