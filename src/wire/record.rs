//! What the server saw and said: one [`Exchange`] per request, in arrival
//! order, kept in a [`Record`]. Metrics and transcripts are read off it.
//!
//! A request is parsed into a [`WireRequest`] (what the model is asked
//! with, for that request only) and kept as a [`RecordedRequest`], which
//! holds the same content without repeating what earlier requests of the
//! run already hold: its messages share their prefix with a conversation
//! recorded before ([`super::conversation`]), and its system prompt and
//! tool list are the run's single copy of that value. A run's record then
//! grows with what the agent sent that was new, not with its requests
//! times their length.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use super::conversation::{Conversation, Conversations};
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
    /// Every text the request adds after the last assistant message (its
    /// new user content, tool results, and `system`/`developer` messages
    /// placed there): where reminders are looked for.
    pub fn added_texts(&self) -> Vec<String> {
        added_texts(self.messages.iter().rev(), &self.late_system)
    }

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

/// A request as the record keeps it: a [`WireRequest`]'s content, shared
/// with the rest of the record (see the module's documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub system: Arc<str>,
    pub messages: Conversation,
    pub tools: Arc<[ToolSchema]>,
    pub stream: bool,
    pub stream_usage: bool,
    pub model: Option<String>,
    pub late_system: Vec<String>,
    /// Ids flagged as errors that no tool result of the messages answers
    /// (the others are kept with their messages).
    unmatched_errors: Vec<String>,
}

impl RecordedRequest {
    /// See [`WireRequest::added_texts`].
    pub fn added_texts(&self) -> Vec<String> {
        added_texts(self.messages.iter_backward(), &self.late_system)
    }

    /// Whether a tool of this name was offered.
    pub fn offers(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t.name == tool)
    }

    /// Whether the client flagged the tool result answering `id` as an
    /// error.
    pub fn flags_error(&self, id: &str) -> bool {
        self.messages.flags_error(id) || self.unmatched_errors.iter().any(|u| u == id)
    }

    /// The request as it was parsed.
    pub fn to_wire(&self) -> WireRequest {
        let mut error_results = self.messages.flagged();
        error_results.extend(self.unmatched_errors.iter().cloned());
        error_results.sort();
        error_results.dedup();
        WireRequest {
            system: self.system.to_string(),
            messages: self.messages.to_vec(),
            tools: self.tools.to_vec(),
            stream: self.stream,
            stream_usage: self.stream_usage,
            model: self.model.clone(),
            error_results,
            late_system: self.late_system.clone(),
        }
    }
}

/// One request and its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    pub api: Api,
    /// `None` when the request could not be read.
    pub request: Option<RecordedRequest>,
    pub reply: Reply,
    /// The protocol violations of this request's messages that no earlier
    /// exchange of the record showed (a conversation's check repeats those
    /// of its earlier turns: each is kept once).
    pub violations: Vec<Violation>,
}

impl Exchange {
    /// Whether this exchange is part of the agent's loop: a readable
    /// request that is not a side request.
    pub fn is_loop(&self) -> bool {
        self.request.is_some() && !matches!(self.reply, Reply::Side)
    }
}

/// A run's exchanges, in the order the model answered them, with what
/// lets each request share the content earlier ones already hold.
#[derive(Debug, Default)]
pub struct Record {
    exchanges: Vec<Exchange>,
    conversations: Conversations,
    systems: Interned<str>,
    tool_lists: Interned<[ToolSchema]>,
    /// Every violation recorded so far (turn and rule).
    violations_seen: BTreeSet<(usize, String)>,
}

impl Record {
    pub fn exchanges(&self) -> &[Exchange] {
        &self.exchanges
    }

    /// Records one exchange (`request`: `None` when it could not be read;
    /// `violations`: the protocol check of its messages) and returns its
    /// 1-based number.
    pub fn push(
        &mut self,
        api: Api,
        request: Option<&WireRequest>,
        reply: Reply,
        mut violations: Vec<Violation>,
    ) -> usize {
        let request = request.map(|request| self.recorded(request));
        violations.retain(|v| self.violations_seen.insert((v.turn, v.rule.clone())));
        self.exchanges.push(Exchange {
            api,
            request,
            reply,
            violations,
        });
        self.exchanges.len()
    }

    fn recorded(&mut self, request: &WireRequest) -> RecordedRequest {
        let (messages, unmatched_errors) = self
            .conversations
            .record(&request.messages, &request.error_results);
        let system = self.systems.get(&request.system, fingerprint(&request.system));
        let tools = self.tool_lists.get(
            &request.tools,
            fingerprint(
                &request
                    .tools
                    .iter()
                    .map(|t| (&t.name, &t.description, &t.input_schema))
                    .collect::<Vec<_>>(),
            ),
        );
        RecordedRequest {
            system,
            messages,
            tools,
            stream: request.stream,
            stream_usage: request.stream_usage,
            model: request.model.clone(),
            late_system: request.late_system.clone(),
            unmatched_errors,
        }
    }
}

/// Values kept once each, looked up by a fingerprint of their content.
#[derive(Debug)]
struct Interned<T: ?Sized> {
    by_fingerprint: BTreeMap<u64, Vec<Arc<T>>>,
}

impl<T: ?Sized> Default for Interned<T> {
    fn default() -> Self {
        Self {
            by_fingerprint: BTreeMap::new(),
        }
    }
}

impl<T: ?Sized + PartialEq> Interned<T>
where
    for<'a> Arc<T>: From<&'a T>,
{
    /// The run's copy of `value`, made on its first use.
    fn get(&mut self, value: &T, fingerprint: u64) -> Arc<T> {
        let same = self.by_fingerprint.entry(fingerprint).or_default();
        if let Some(kept) = same.iter().find(|kept| ***kept == *value) {
            return Arc::clone(kept);
        }
        let kept: Arc<T> = value.into();
        same.push(Arc::clone(&kept));
        kept
    }
}

fn fingerprint(value: &impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// The texts of `newest_first`'s messages after the last assistant one,
/// in order, then `late_system`.
fn added_texts<'a>(
    newest_first: impl Iterator<Item = &'a Message>,
    late_system: &[String],
) -> Vec<String> {
    let mut added: Vec<&Message> = newest_first
        .take_while(|m| m.role != Role::Assistant)
        .collect();
    added.reverse();
    added
        .iter()
        .flat_map(|m| m.texts().map(str::to_string))
        .chain(late_system.iter().cloned())
        .collect()
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
