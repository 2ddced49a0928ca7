//! What the server saw and said: one [`Exchange`] per request, in arrival
//! order. Metrics and transcripts are read off this record.

use crate::llm::protocol::Violation;
use crate::llm::{Content, ContentBlock, Message, ModelRequest, ModelResponse, Role, ToolSchema};

/// The API a request came in through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Api {
    /// Anthropic Messages, `POST /v1/messages`.
    Anthropic,
    /// OpenAI Chat Completions, `POST /v1/chat/completions`.
    ChatCompletions,
    /// OpenAI Responses, `POST /v1/responses`.
    Responses,
    /// Gemini, `POST /v1beta/models/{model}:generateContent` (and
    /// `:streamGenerateContent`).
    Gemini,
}

impl Api {
    pub fn name(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic-messages",
            Self::ChatCompletions => "openai-chat-completions",
            Self::Responses => "openai-responses",
            Self::Gemini => "gemini-generate-content",
        }
    }
}

/// A request converted to the loop's terms: what the model is shown.
#[derive(Debug, Clone, PartialEq)]
pub struct WireRequest {
    pub system: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSchema>,
    /// `stream: true`.
    pub stream: bool,
    /// OpenAI `stream_options.include_usage`.
    pub stream_usage: bool,
    /// The `model` field, echoed back in the response.
    pub model: Option<String>,
    /// Every text the request adds after the last assistant message (its
    /// new user content, tool results, and `system`/`developer` messages
    /// placed there): where reminders are looked for.
    pub added_texts: Vec<String>,
    /// The ids of tool results the client flagged as errors (Anthropic
    /// `is_error: true`), sorted.
    pub error_results: Vec<String>,
    /// The texts of `system`/`developer` messages sent after the last
    /// assistant message (Chat Completions, Responses): a client's
    /// reminder sent that way. They are in the system prompt as sent, and
    /// the model is shown them where an Anthropic client puts its
    /// reminders, at the end of the new user content
    /// ([`Self::model_messages`]): one rule for where the model finds a
    /// reminder, whichever API carried it.
    pub late_system: Vec<String>,
}

impl WireRequest {
    /// The messages as the model is shown them: as sent, with the
    /// [`late_system`](Self::late_system) texts appended as text blocks to
    /// the last user message (a user message of their own after an
    /// assistant one). Borrowed when there are none.
    pub fn model_messages(&self) -> std::borrow::Cow<'_, [Message]> {
        if self.late_system.is_empty() {
            return std::borrow::Cow::Borrowed(&self.messages);
        }
        let mut messages = self.messages.clone();
        let texts = self
            .late_system
            .iter()
            .map(|t| ContentBlock::text(t.clone()));
        match messages.last_mut() {
            Some(last) if last.role == Role::User => {
                let mut blocks = into_blocks(std::mem::replace(
                    &mut last.content,
                    Content::Blocks(Vec::new()),
                ));
                blocks.extend(texts);
                last.content = Content::Blocks(blocks);
            }
            _ => messages.push(Message::blocks(Role::User, texts.collect())),
        }
        std::borrow::Cow::Owned(messages)
    }

    pub fn as_model_request(&self) -> ModelRequest<'_> {
        ModelRequest {
            system: &self.system,
            messages: &self.messages,
            tools: &self.tools,
        }
    }

    /// Whether a tool of this name was offered.
    pub fn offers(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t.name == tool)
    }
}

/// Why the server answered without asking the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// The model had no response left (a script used up).
    ScriptExhausted,
    /// The run's turn cap was reached.
    MaxTurns,
}

/// What the server answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// The model's response to turn `turn`: one turn of the run.
    Response {
        turn: usize,
        response: ModelResponse,
    },
    /// A closing text-only `end_turn` answer the model did not write (see
    /// [`FINISHED_TEXT`]); not a turn.
    Finished(Finish),
    /// The model could not answer (e.g. a freeform call outside the
    /// Responses API): an error response, not a turn.
    ModelFailed { status: u16, message: String },
    /// The request could not be read: an error response.
    Rejected { status: u16, message: String },
    /// A side request (one that offers no tools: a client's title or topic
    /// request, a quota check, a context compaction) answered with
    /// [`SIDE_TEXT`] without asking the model; not part of the run.
    Side,
}

/// The answer to a side request.
pub const SIDE_TEXT: &str = "OK";

/// The text of the closing answer sent once the script is used up (or the
/// turn cap reached), so a client ends its loop cleanly.
pub const FINISHED_TEXT: &str =
    "(agent-eval: the mock model has no more responses; the run is over)";

/// One request and its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    pub api: Api,
    /// `None` when the request could not be read.
    pub request: Option<WireRequest>,
    pub reply: Reply,
    /// The protocol check of this request's messages.
    pub violations: Vec<Violation>,
}

impl Exchange {
    /// Whether this exchange is part of the agent's loop: a readable
    /// request that is not a side request.
    pub fn is_loop(&self) -> bool {
        self.request.is_some() && !matches!(self.reply, Reply::Side)
    }
}

/// Merges adjacent messages of the same role into one (the OpenAI APIs
/// accept them; the Anthropic shape does not), keeping block order. A
/// plain-text content becomes a text block when merged.
pub fn merge_same_role(messages: Vec<Message>) -> Vec<Message> {
    let mut merged: Vec<Message> = Vec::with_capacity(messages.len());
    for message in messages {
        match merged.last_mut() {
            Some(last) if last.role == message.role => {
                let mut blocks = into_blocks(std::mem::replace(
                    &mut last.content,
                    Content::Blocks(Vec::new()),
                ));
                blocks.extend(into_blocks(message.content));
                last.content = Content::Blocks(blocks);
            }
            _ => merged.push(message),
        }
    }
    merged
}

fn into_blocks(content: Content) -> Vec<ContentBlock> {
    match content {
        Content::Text(text) => vec![ContentBlock::Text { text }],
        Content::Blocks(blocks) => blocks,
    }
}

/// The first message as the loop writes it: a user message holding only
/// one text block becomes the plain task string.
pub fn normalize_task_message(messages: &mut [Message]) {
    if let Some(first) = messages.first_mut()
        && first.role == Role::User
        && let Content::Blocks(blocks) = &first.content
        && let [ContentBlock::Text { text }] = blocks.as_slice()
    {
        first.content = Content::Text(text.clone());
    }
}

/// The texts after the last assistant message.
pub fn texts_after_last_assistant(messages: &[Message]) -> Vec<String> {
    let start = messages
        .iter()
        .rposition(|m| m.role == Role::Assistant)
        .map_or(0, |i| i + 1);
    messages[start..]
        .iter()
        .flat_map(|m| m.texts().map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_order_and_roles() {
        let merged = merge_same_role(vec![
            Message::user_text("a"),
            Message::user_text("b"),
            Message::blocks(Role::Assistant, vec![ContentBlock::text("c")]),
        ]);
        assert_eq!(merged.len(), 2);
        assert_eq!(
            merged[0].content,
            Content::Blocks(vec![ContentBlock::text("a"), ContentBlock::text("b")])
        );
    }

    #[test]
    fn a_single_text_block_task_becomes_plain() {
        let mut messages = vec![Message::blocks(Role::User, vec![ContentBlock::text("t")])];
        normalize_task_message(&mut messages);
        assert_eq!(messages[0], Message::user_text("t"));
    }
}
