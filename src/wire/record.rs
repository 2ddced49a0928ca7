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

use super::conversation::{Continued, Conversation, Conversations};
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
            turn: crate::llm::count_turn(&self.messages),
            tools: &self.tools,
            unchanged: 0,
        }
    }

    /// Whether a tool of this name was offered.
    pub fn offers(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t.name == tool)
    }
}

/// Where a request read by an [`super::incremental::IncrementalReader`]
/// stands among the
/// requests it read: what lets the checks after the parse (the protocol
/// check, the record) take on from the request before it too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lineage {
    /// This request's number among the reader's.
    pub serial: u64,
    /// The number of the request read before it and how many of its
    /// leading messages this one repeats, as read.
    pub after: Option<(u64, usize)>,
}

impl Lineage {
    /// How many leading messages are those of request `previous` (0 when
    /// this request does not follow it).
    pub fn unchanged_since(&self, previous: Option<u64>) -> usize {
        match self.after {
            Some((serial, unchanged)) if Some(serial) == previous => unchanged,
            _ => 0,
        }
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
    /// How many of them are the model's responses (turns served), counted
    /// as they are pushed: the turn cap is checked on every request.
    responses: usize,
    conversations: Conversations,
    systems: Interned<str>,
    tool_lists: Interned<[ToolSchema]>,
    /// Every violation recorded so far (turn and rule).
    violations_seen: BTreeSet<(usize, String)>,
    /// The last request recorded by [`Self::push_read`]: its number and
    /// what the next one may continue.
    last_read: Option<(u64, Continued)>,
}

impl Record {
    pub fn exchanges(&self) -> &[Exchange] {
        &self.exchanges
    }

    /// How many exchanges are the model's responses.
    pub fn responses(&self) -> usize {
        self.responses
    }

    /// Records one exchange (`request`: `None` when it could not be read;
    /// `violations`: the protocol check of its messages) and returns its
    /// 1-based number.
    pub fn push(
        &mut self,
        api: Api,
        request: Option<&WireRequest>,
        reply: Reply,
        violations: Vec<Violation>,
    ) -> usize {
        let request = request.map(|request| self.recorded(request));
        self.push_recorded(api, request, reply, violations)
    }

    fn push_recorded(
        &mut self,
        api: Api,
        request: Option<RecordedRequest>,
        reply: Reply,
        mut violations: Vec<Violation>,
    ) -> usize {
        violations.retain(|v| self.violations_seen.insert((v.turn, v.rule.clone())));
        self.responses += usize::from(matches!(reply, Reply::Response { .. }));
        self.exchanges.push(Exchange {
            api,
            request,
            reply,
            violations,
        });
        self.exchanges.len()
    }

    /// [`Self::push`] for a request an incremental reader read: its
    /// messages are recorded on from the request recorded before it when
    /// it follows that one (see [`Conversations::continue_from`]).
    pub fn push_read(
        &mut self,
        api: Api,
        request: &WireRequest,
        reply: Reply,
        violations: Vec<Violation>,
        lineage: Lineage,
    ) -> usize {
        let recorded = self.recorded_read(request, lineage);
        self.push_recorded(api, Some(recorded), reply, violations)
    }

    fn recorded_read(&mut self, request: &WireRequest, lineage: Lineage) -> RecordedRequest {
        let previous = self.last_read.take();
        let unchanged = lineage.unchanged_since(previous.as_ref().map(|(serial, _)| *serial));
        let continued = previous
            .filter(|_| unchanged > 0)
            .and_then(|(_, previous)| {
                let (messages, errors) = (&request.messages, &request.error_results);
                self.conversations
                    .continue_from(&previous, messages, errors, unchanged)
            });
        let (messages, unmatched_errors, next) = continued.unwrap_or_else(|| {
            self.conversations
                .record_read(&request.messages, &request.error_results)
        });
        self.last_read = Some((lineage.serial, next));
        self.with_content(request, messages, unmatched_errors)
    }

    fn recorded(&mut self, request: &WireRequest) -> RecordedRequest {
        let (messages, unmatched_errors) = self
            .conversations
            .record(&request.messages, &request.error_results);
        self.with_content(request, messages, unmatched_errors)
    }

    /// The request as recorded, with its system prompt and tool list
    /// shared with the record's.
    fn with_content(
        &mut self,
        request: &WireRequest,
        messages: Conversation,
        unmatched_errors: Vec<String>,
    ) -> RecordedRequest {
        let system = self
            .systems
            .get(&request.system, || fingerprint(&request.system));
        let tools = self.tool_lists.get(&request.tools, || {
            fingerprint(
                &request
                    .tools
                    .iter()
                    .map(|t| (&t.name, &t.description, &t.input_schema))
                    .collect::<Vec<_>>(),
            )
        });
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
    /// The value looked up last: a client sends the same system prompt and
    /// tools with every request, and comparing them with the last ones
    /// costs less than fingerprinting them (a 40 KB prompt: about 6,000
    /// instructions against 240,000).
    last: Option<Arc<T>>,
}

impl<T: ?Sized> Default for Interned<T> {
    fn default() -> Self {
        Self {
            by_fingerprint: BTreeMap::new(),
            last: None,
        }
    }
}

impl<T: ?Sized + PartialEq> Interned<T>
where
    for<'a> Arc<T>: From<&'a T>,
{
    /// The run's copy of `value`, made on its first use (`fingerprint`
    /// is asked for only when `value` is not the one looked up last).
    fn get(&mut self, value: &T, fingerprint: impl FnOnce() -> u64) -> Arc<T> {
        if let Some(last) = &self.last
            && **last == *value
        {
            return Arc::clone(last);
        }
        let same = self.by_fingerprint.entry(fingerprint()).or_default();
        let kept = match same.iter().find(|kept| ***kept == *value) {
            Some(kept) => Arc::clone(kept),
            None => {
                let kept: Arc<T> = value.into();
                same.push(Arc::clone(&kept));
                kept
            }
        };
        self.last = Some(Arc::clone(&kept));
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

    #[test]
    fn a_value_is_kept_once_whether_or_not_it_was_the_last_one() {
        let mut interned: Interned<str> = Interned::default();
        let mut fingerprinted = 0;
        // One fingerprint for all: values that collide are told apart.
        let mut get = |value: &str| {
            interned.get(value, || {
                fingerprinted += 1;
                7
            })
        };
        let a = get("a");
        let a_again = get("a");
        let b = get("b");
        let a_after_b = get("a");
        assert!(Arc::ptr_eq(&a, &a_again) && Arc::ptr_eq(&a, &a_after_b));
        assert!(!Arc::ptr_eq(&a, &b));
        assert_eq!((&*a, &*b), ("a", "b"));
        // The repeat of the last value was not fingerprinted.
        assert_eq!(fingerprinted, 3);
    }
}

#[cfg(test)]
mod storage_tests {
    //! The record's storage: linear in what the agent sent that was new.

    use super::*;
    use crate::wire::conversation::stored_messages;
    use serde_json::json;

    fn request(system: &str, tools: &[ToolSchema], messages: Vec<Message>) -> WireRequest {
        WireRequest {
            system: system.to_string(),
            messages,
            tools: tools.to_vec(),
            stream: true,
            stream_usage: false,
            model: Some("m".into()),
            error_results: Vec::new(),
            late_system: Vec::new(),
        }
    }

    fn call(turn: usize) -> Message {
        Message::blocks(
            Role::Assistant,
            vec![ContentBlock::ToolUse {
                id: format!("toolu_{turn}_1"),
                name: "Bash".into(),
                input: json!({"command": format!("echo {turn}")}).into(),
            }],
        )
    }

    fn result(turn: usize) -> Message {
        Message::blocks(
            Role::User,
            vec![ContentBlock::ToolResult {
                tool_use_id: format!("toolu_{turn}_1"),
                content: format!("{turn}\n"),
                is_error: false,
            }],
        )
    }

    fn served(turn: usize) -> Reply {
        Reply::Response {
            turn,
            response: ModelResponse::from_blocks(vec![ContentBlock::text("ok")]),
        }
    }

    /// Distinct messages, system prompts and tool lists the record holds.
    fn stored(record: &Record) -> (usize, usize, usize) {
        let requests: Vec<&RecordedRequest> = record
            .exchanges()
            .iter()
            .filter_map(|e| e.request.as_ref())
            .collect();
        let systems: BTreeSet<*const u8> = requests
            .iter()
            .map(|r| Arc::as_ptr(&r.system).cast::<u8>())
            .collect();
        let tool_lists: BTreeSet<*const ToolSchema> = requests
            .iter()
            .map(|r| Arc::as_ptr(&r.tools).cast::<ToolSchema>())
            .collect();
        (
            stored_messages(requests.iter().map(|r| &r.messages)),
            systems.len(),
            tool_lists.len(),
        )
    }

    #[test]
    fn a_long_session_keeps_each_message_system_prompt_and_tool_list_once() {
        let system = "You are an agent. ".repeat(2_000);
        let tools: Vec<ToolSchema> = (0..20)
            .map(|k| ToolSchema {
                name: format!("Tool{k}").into(),
                description: "Does one thing well. ".repeat(100).into(),
                input_schema: json!({"type": "object", "properties": {"k": {"type": "string"}}}),
            })
            .collect();
        let title = request("Write a title.", &[], vec![Message::user_text("task")]);
        let mut live = request(&system, &tools, vec![Message::user_text("task")]);
        let mut record = Record::default();
        let mut sent = 0;
        for turn in 1..=2_000 {
            record.push(Api::Anthropic, Some(&live), served(turn), Vec::new());
            sent += live.messages.len();
            if turn % 100 == 0 {
                // A side request, as Claude Code sends one now and then.
                record.push(Api::Anthropic, Some(&title), Reply::Side, Vec::new());
            }
            live.messages.push(call(turn));
            live.messages.push(result(turn));
        }
        // 2,000 requests sent 4,000,000 messages, 2,000 copies of a 36 KB
        // system prompt and of 20 tools; the record holds the conversation
        // (3,999 messages: the title request's one message is its first),
        // and one system prompt and one tool list for each kind of request.
        assert_eq!(sent, 4_000_000);
        assert_eq!(stored(&record), (3_999, 2, 2));
        let exchanges = record.exchanges();
        assert_eq!(exchanges.len(), 2_020);
        let at = |turn: usize| exchanges[turn - 1 + (turn - 1) / 100].request.as_ref();
        let mut expected = request(&system, &tools, live.messages[..2 * 1_234 - 1].to_vec());
        assert_eq!(
            at(1_234).map(RecordedRequest::to_wire),
            Some(expected.clone())
        );
        expected.messages = live.messages[..3_999].to_vec();
        assert_eq!(at(2_000).map(RecordedRequest::to_wire), Some(expected));
        assert_eq!(
            exchanges[100]
                .request
                .as_ref()
                .map(RecordedRequest::to_wire),
            Some(title)
        );
    }

    #[test]
    fn a_client_that_rewrites_its_history_gets_its_exact_requests_back() {
        let task = Message::user_text("task");
        let first: Vec<Message> = vec![task.clone(), call(1), result(1), call(2), result(2)];
        let mut grown = first.clone();
        grown.extend([call(3), result(3)]);
        // Compaction: the history rewritten as a summary, then new turns.
        let summary = Message::user_text("Summary: two commands ran.");
        let compacted = vec![task.clone(), summary, call(4), result(4)];
        let mut compacted_grown = compacted.clone();
        compacted_grown.extend([call(5), result(5)]);
        // An earlier message edited in place (a client trimming a result).
        let mut edited = grown.clone();
        edited[2] = Message::user_text("(output trimmed)");
        let mut requests: Vec<WireRequest> = [first, grown.clone(), compacted, compacted_grown]
            .into_iter()
            .map(|messages| request("s", &[], messages))
            .collect();
        requests.push(request("s2", &[], edited));
        let mut flagged = request("s", &[], grown);
        flagged.error_results = vec!["toolu_2_1".into(), "toolu_9_9".into()];
        requests.push(flagged);
        let mut record = Record::default();
        for (turn, request) in requests.iter().enumerate() {
            record.push(Api::Anthropic, Some(request), served(turn + 1), Vec::new());
        }
        let back: Vec<WireRequest> = record
            .exchanges()
            .iter()
            .filter_map(|e| e.request.as_ref().map(RecordedRequest::to_wire))
            .collect();
        assert_eq!(back, requests);
        let last = record.exchanges()[5].request.as_ref();
        assert!(last.is_some_and(|r| r.flags_error("toolu_2_1") && r.flags_error("toolu_9_9")));
        assert!(last.is_some_and(|r| !r.flags_error("toolu_1_1")));
        // first 5 + 2 grown + 3 compacted + 2 compacted_grown + 5 edited
        // (from its second message on) + 3 flagged (from toolu_2_1's result).
        assert_eq!(stored(&record).0, 20);
    }

    #[test]
    fn a_violation_repeated_by_every_later_request_is_kept_once() {
        let mut record = Record::default();
        let mut seen = Vec::new();
        for turn in 1..=100 {
            // Each request's check shows every earlier turn's violation.
            seen.push(Violation {
                turn,
                rule: "a tool_use without its tool_result".into(),
            });
            record.push(Api::Anthropic, None, served(turn), seen.clone());
        }
        let kept: Vec<&Violation> = record
            .exchanges()
            .iter()
            .flat_map(|e| &e.violations)
            .collect();
        assert_eq!(kept.len(), 100);
        assert!(kept.iter().zip(&seen).all(|(k, s)| *k == s));
    }
}

#[cfg(test)]
mod read_on {
    //! Recording a request on from the one before it records what recording
    //! it afresh records.

    use super::*;
    use crate::wire::conversation::stored_messages;
    use proptest::prelude::*;

    /// A message of a small alphabet (ids repeat, so flags can move).
    fn message(kind: u8, n: u8) -> Message {
        let id = format!("t{}", n % 5);
        match kind % 4 {
            0 => Message::user_text(format!("u{n}")),
            1 => Message::blocks(
                Role::Assistant,
                vec![ContentBlock::ToolUse {
                    id: id.clone(),
                    name: "bash".into(),
                    input: serde_json::json!({}).into(),
                }],
            ),
            2 => Message::blocks(
                Role::User,
                vec![ContentBlock::ToolResult {
                    tool_use_id: id,
                    content: "ok".into(),
                    is_error: false,
                }],
            ),
            _ => Message::blocks(Role::Assistant, vec![ContentBlock::text(format!("a{n}"))]),
        }
    }

    fn request(messages: Vec<Message>, errors: &[u8]) -> WireRequest {
        let mut error_results: Vec<String> = errors.iter().map(|n| format!("t{}", n % 7)).collect();
        error_results.sort();
        error_results.dedup();
        WireRequest {
            system: "s".into(),
            messages,
            tools: Vec::new(),
            stream: false,
            stream_usage: false,
            model: None,
            error_results,
            late_system: Vec::new(),
        }
    }

    proptest! {
        #[test]
        fn recording_on_is_recording_afresh(
            steps in prop::collection::vec(
                (0usize..10, prop::collection::vec((0u8..4, 0u8..20), 0..4),
                 prop::collection::vec(0u8..7, 0..2), 0usize..2, any::<bool>()),
                1..12,
            ),
        ) {
            let (mut afresh, mut on) = (Record::default(), Record::default());
            let mut messages: Vec<Message> = Vec::new();
            let mut serial = 0;
            for (cut, added, errors, understate, lost) in steps {
                let before = messages.clone();
                if cut < messages.len() && cut % 3 == 0 {
                    messages.truncate(cut);
                }
                messages.extend(added.iter().map(|&(k, n)| message(k, n)));
                let unchanged = before.iter().zip(&messages).take_while(|(a, b)| a == b).count();
                let wire = request(messages.clone(), &errors);
                serial += 1;
                // A lost lineage (another reader's request between) starts over.
                let after = (!lost).then_some((serial - 1, unchanged.saturating_sub(understate)));
                afresh.push(Api::Anthropic, Some(&wire), Reply::Side, Vec::new());
                on.push_read(Api::Anthropic, &wire, Reply::Side, Vec::new(), Lineage { serial, after });
                let recorded = on.exchanges().last().and_then(|e| e.request.as_ref()).unwrap();
                prop_assert_eq!(&recorded.to_wire(), &wire);
                prop_assert_eq!(afresh.exchanges(), on.exchanges());
            }
            // Recording on stores each message once too.
            let held = |record: &Record| stored_messages(
                record.exchanges().iter().filter_map(|e| e.request.as_ref()).map(|r| &r.messages));
            prop_assert!(held(&on) <= held(&afresh) + messages.len());
        }
    }
}
