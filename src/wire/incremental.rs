//! Reading an Anthropic Messages request on from the one before it.
//!
//! An outside agent sends its whole conversation with every request, so
//! parsing each body whole costs every request the length of the
//! conversation: a session of N turns parses N²/2 messages. An
//! [`IncrementalReader`] keeps the previous body (its chunks as received,
//! shared, not copied: [`ChunkedBody`]), where each element of its
//! `messages` array ended, and the messages read from them. A new body is
//! compared with the previous one byte by byte (a `memcmp` a block at a
//! time); the elements that lie wholly inside the bytes the two bodies
//! share are the same elements, read the same way, so reading resumes
//! after the last of them: only the messages a request adds (and the
//! fields after `messages`) are parsed, and only those bytes are put in
//! one buffer.
//!
//! The result is that of [`anthropic::parse_request`] on the whole body,
//! for any sequence of bodies (tested with proptest against it: appended,
//! edited, removed and rewritten messages, fields before and after
//! `messages`). Whatever this reader does not handle itself (a body that
//! is not a JSON object with one `messages` array, any error, nesting near
//! serde_json's depth limit) is read by [`anthropic::parse_request`],
//! so errors are reported exactly as before.
//!
//! The messages are lent to the request ([`IncrementalReader::read`]) and
//! given back once it is answered ([`IncrementalReader::give_back`]):
//! copying the conversation for every request would cost its length again.
//! A reader whose messages were not given back starts over.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::BadRequest;
use super::anthropic::{self, Element, push_block};
use super::chunked::{ChunkedBody, common_prefix};
use super::fields::Object;
use super::record::{Lineage, WireRequest, normalize_task_message};
use super::tally::{RunningTally, Tally};
use crate::llm::{Content, ContentBlock, Message, Role};

/// The deepest nesting an element of `messages` may have when read alone
/// and still be read by a whole-body parse: serde_json stops at 127 levels
/// and an element sits inside the body's object and the `messages` array.
const ELEMENT_DEPTH: usize = 125;
/// The same for a top-level field's value (inside the body's object).
const FIELD_DEPTH: usize = 126;

/// One element of the previous body's `messages`.
#[derive(Debug, Clone)]
struct ElementEnd {
    /// The byte just after it.
    end: usize,
    /// How many messages were assembled before it.
    before: usize,
    /// Whether reading can resume at it: a user or assistant message with
    /// no `system` text waiting for it (so nothing after it changed the
    /// messages before it).
    resumable: bool,
}

/// The messages assembled so far, before the last step of
/// [`anthropic::parse_request`] (the `system` texts still waiting for a
/// user message, the task message not yet made plain).
#[derive(Debug, Default)]
struct Assembly {
    messages: Vec<Message>,
    /// `system` texts after an assistant message (or at the start), waiting
    /// for the next message.
    waiting: Vec<String>,
}

impl Assembly {
    /// Adds one element as [`anthropic::parse_request`] places it: a
    /// `system` text goes at the end of the user message before it, else of
    /// the one after it, else into a user message of its own.
    fn add(&mut self, element: Element) {
        match element {
            Element::Message(mut message) => {
                if !self.waiting.is_empty() {
                    let texts = self.waiting.drain(..).map(ContentBlock::text);
                    if message.role == Role::User {
                        for block in texts {
                            push_block(&mut message, block);
                        }
                    } else {
                        let own = Message::blocks(Role::User, texts.collect());
                        self.messages.push(own);
                    }
                }
                self.messages.push(message);
            }
            Element::System(text) => match self.messages.last_mut() {
                Some(last) if last.role == Role::User && self.waiting.is_empty() => {
                    push_block(last, ContentBlock::text(text));
                }
                _ => self.waiting.push(text),
            },
        }
    }
}

/// What the last step changed, so it can be undone when the messages come
/// back.
#[derive(Debug, Clone, Copy, Default)]
struct Finished {
    /// A user message of waiting `system` texts was appended.
    appended: bool,
    /// The first message (a single text block) was made plain text.
    plain_task: bool,
    /// How many messages were lent.
    len: usize,
}

/// The state kept from one request to the next (see the module's
/// documentation).
#[derive(Debug, Default)]
pub struct IncrementalReader {
    body: ChunkedBody,
    /// Where the bytes being read start in the body (element ends are
    /// kept as positions in the whole body).
    offset: usize,
    /// Top-level fields before `messages` in `body`.
    head: Object,
    elements: Vec<ElementEnd>,
    /// Flagged tool-result ids, with the element that flags each.
    flagged: Vec<(usize, String)>,
    assembly: Assembly,
    /// Set while the messages are lent to a request.
    lent: Option<Finished>,
    /// Elements of `messages` parsed by the last read (not taken from the
    /// previous body).
    parsed: usize,
    /// Requests read so far (kept when the rest starts over).
    serial: u64,
    /// The last request read.
    lineage: Option<Lineage>,
    /// The counts of the conversations read, and of the last one.
    running: RunningTally,
    tally: Tally,
}

/// Where a scan stopped: `None` is anything to leave to the whole parse.
type Scan<T> = Option<T>;

fn skip_whitespace(body: &[u8], mut at: usize) -> usize {
    while matches!(body.get(at), Some(b' ' | b'\n' | b'\t' | b'\r')) {
        at += 1;
    }
    at
}

/// The byte at `at` after whitespace, if it is `byte`: the position after it.
fn expect(body: &[u8], at: usize, byte: u8) -> Scan<usize> {
    let at = skip_whitespace(body, at);
    (body.get(at) == Some(&byte)).then_some(at + 1)
}

/// One JSON value from `at` (leading whitespace skipped) and the position
/// just after it.
fn value_at<T: DeserializeOwned>(body: &[u8], at: usize) -> Scan<(T, usize)> {
    let mut stream = serde_json::Deserializer::from_slice(body.get(at..)?).into_iter::<T>();
    let value = stream.next()?.ok()?;
    Some((value, at + stream.byte_offset()))
}

/// How deeply `value` nests (a scalar: 0).
fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

impl IncrementalReader {
    /// Reads `body` as [`anthropic::parse_request`] does, parsing only what
    /// follows the elements of `messages` it shares with the previous body.
    pub fn read(&mut self, body: &ChunkedBody) -> Result<WireRequest, BadRequest> {
        self.parsed = 0;
        let previous = self.lineage.take().map(|lineage| lineage.serial);
        let (read, unchanged) = match self.read_on(body) {
            Some((request, unchanged)) => (Ok(request), unchanged),
            None => {
                self.start_over();
                (anthropic::parse_request(&body.gathered()), None)
            }
        };
        let after = unchanged
            .zip(previous)
            .map(|(unchanged, serial)| (serial, unchanged));
        if let Ok(request) = &read {
            // The running counts are those of the messages read on from:
            // both start over together.
            self.tally = self
                .running
                .count(&request.messages, unchanged.unwrap_or(0));
            self.serial += 1;
            self.lineage = Some(Lineage {
                serial: self.serial,
                after,
            });
        }
        read
    }

    /// The last request read, if it was read.
    pub fn lineage(&self) -> Option<Lineage> {
        self.lineage
    }

    /// The counts of the last request read (walking only the messages it
    /// did not repeat).
    pub fn tally(&self) -> Tally {
        self.tally
    }

    /// Forgets the previous body (not the count of requests read).
    fn start_over(&mut self) {
        *self = Self {
            serial: self.serial,
            ..Self::default()
        };
    }

    /// How many elements of `messages` the last [`Self::read`] parsed
    /// itself (0 when it left the body to the whole parse).
    pub fn elements_parsed(&self) -> usize {
        self.parsed
    }

    /// Takes back the messages of the request [`Self::read`] returned, once
    /// it is answered.
    pub fn give_back(&mut self, mut messages: Vec<Message>) {
        let Some(finished) = self.lent.take() else {
            return;
        };
        if messages.len() != finished.len {
            self.start_over();
            return;
        }
        if finished.appended {
            messages.pop();
        }
        if finished.plain_task
            && let Some(first) = messages.first_mut()
            && let Content::Text(text) = &mut first.content
        {
            first.content = Content::Blocks(vec![ContentBlock::text(std::mem::take(text))]);
        }
        self.assembly.messages = messages;
    }

    /// How many elements of the previous body's `messages` the new body
    /// repeats, byte for byte and where reading can resume (0: none).
    fn resume_point(&self, body: &ChunkedBody) -> usize {
        if self.lent.is_some() || self.elements.is_empty() {
            return 0;
        }
        let shared = common_prefix(&self.body, body);
        let count = self.elements.len();
        (1..=count)
            .rev()
            .find(|&k| {
                let ends_shared = self.elements.get(k - 1).is_some_and(|e| e.end <= shared);
                let resumes = self.elements.get(k).is_none_or(|e| e.resumable);
                ends_shared && resumes
            })
            .unwrap_or(0)
    }

    /// Drops what followed element `k` of the previous body.
    fn truncate(&mut self, k: usize) {
        if let Some(element) = self.elements.get(k) {
            self.assembly.messages.truncate(element.before);
            self.assembly.waiting.clear();
            self.elements.truncate(k);
            self.flagged.retain(|(element, _)| *element < k);
        }
    }

    /// The request, and how many of its messages are those of the
    /// previous request (`None`: it was read from the start).
    fn read_on(&mut self, whole: &ChunkedBody) -> Scan<(WireRequest, Option<usize>)> {
        let k = self.resume_point(whole);
        let mut tail = Object::new();
        let mut unchanged = None;
        let body;
        let at = if k == 0 {
            self.start_over();
            body = whole.bytes_from(0);
            let at = expect(&body, 0, b'{')?;
            let at = self.read_fields(&body, at, false, &mut tail)?;
            if self.elements.is_empty() {
                return None;
            }
            at
        } else {
            self.truncate(k);
            let kept = &self.assembly.messages;
            let open = kept.last().is_some_and(|last| last.role == Role::User);
            let kept = kept.len();
            // After `truncate(k)` (k >= 1) the last element is element k - 1.
            self.offset = self.elements.last()?.end;
            // Only the bytes after it are put in one buffer.
            body = whole.bytes_from(self.offset);
            let at = self.read_elements(&body, 0, false)?;
            // A `system` element right after a user message is added to it.
            let extended = open && self.elements.get(k).is_some_and(|e| !e.resumable);
            unchanged = Some(kept - usize::from(extended));
            self.read_fields(&body, at, true, &mut tail)?
        };
        if skip_whitespace(&body, at) != body.len() {
            return None;
        }
        self.body = whole.clone();
        Some((self.finish(tail)?, unchanged))
    }

    /// Reads the body's top-level fields from `at` (just after its `{`, or
    /// just after the `messages` array when `resumed`) to its closing `}`:
    /// those before `messages` into `self.head`, those after into `tail`.
    fn read_fields(
        &mut self,
        body: &[u8],
        mut at: usize,
        resumed: bool,
        tail: &mut Object,
    ) -> Scan<usize> {
        let mut after_field = resumed;
        let mut seen_messages = resumed;
        loop {
            let next = skip_whitespace(body, at);
            match body.get(next) {
                Some(b',') if after_field => at = next + 1,
                Some(b'}') => return Some(next + 1),
                _ if after_field => return None,
                _ => {}
            }
            let (key, after_key) = value_at::<String>(body, at)?;
            at = expect(body, after_key, b':')?;
            if key == "messages" {
                if seen_messages {
                    return None;
                }
                seen_messages = true;
                let start = expect(body, at, b'[')?;
                at = self.read_elements(body, start, true)?;
            } else {
                let (value, end) = value_at::<Value>(body, at)?;
                if depth(&value) > FIELD_DEPTH {
                    return None;
                }
                let fields = if seen_messages {
                    &mut *tail
                } else {
                    &mut self.head
                };
                fields.insert(key, value);
                at = end;
            }
            after_field = true;
        }
    }

    /// Reads elements of `messages` from `at` (just after its `[` when
    /// `first`, else just after an element) to its closing `]`, and
    /// returns the position after it.
    fn read_elements(&mut self, body: &[u8], mut at: usize, first: bool) -> Scan<usize> {
        if first {
            if body.get(skip_whitespace(body, at)) == Some(&b']') {
                return None;
            }
        } else {
            at = after_element(body, at)?.ok()?;
        }
        loop {
            let (value, end) = value_at::<Value>(body, at)?;
            if depth(&value) > ELEMENT_DEPTH {
                return None;
            }
            let index = self.elements.len();
            self.parsed += 1;
            let element = anthropic::parse_element(&value, index).ok()?;
            let flagged = anthropic::flagged_ids(&value).into_iter();
            self.flagged.extend(flagged.map(|id| (index, id)));
            self.elements.push(ElementEnd {
                end: self.offset + end,
                before: self.assembly.messages.len(),
                resumable: matches!(element, Element::Message(_))
                    && self.assembly.waiting.is_empty(),
            });
            self.assembly.add(element);
            match after_element(body, end)? {
                Ok(next) => at = next,
                Err(closed) => return Some(closed),
            }
        }
    }

    /// Lends the assembled messages to the request, as the whole parse
    /// would finish them.
    fn finish(&mut self, tail: Object) -> Scan<WireRequest> {
        let head = if tail.is_empty() {
            anthropic::parse_head(&self.head)
        } else if self.head.is_empty() {
            anthropic::parse_head(&tail)
        } else {
            let mut all = self.head.clone();
            all.extend(tail);
            anthropic::parse_head(&all)
        }
        .ok()?;
        let mut messages = std::mem::take(&mut self.assembly.messages);
        let appended = !self.assembly.waiting.is_empty();
        if appended {
            let texts = self.assembly.waiting.iter().cloned();
            messages.push(Message::blocks(
                Role::User,
                texts.map(ContentBlock::text).collect(),
            ));
        }
        let plain_task = matches!(messages.first(), Some(Message { role: Role::User, content: Content::Blocks(blocks) })
            if matches!(blocks.as_slice(), [ContentBlock::Text { .. }]));
        normalize_task_message(&mut messages);
        let mut error_results: Vec<String> =
            self.flagged.iter().map(|(_, id)| id.clone()).collect();
        error_results.sort();
        error_results.dedup();
        self.lent = Some(Finished {
            appended,
            plain_task,
            len: messages.len(),
        });
        Some(head.into_request(messages, error_results))
    }
}

/// After an element of an array: `Ok` with the position after its `,`, or
/// `Err` with the position after the closing `]`.
fn after_element(body: &[u8], at: usize) -> Scan<Result<usize, usize>> {
    let next = skip_whitespace(body, at);
    match body.get(next) {
        Some(b',') => Some(Ok(next + 1)),
        Some(b']') => Some(Err(next + 1)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Bytes;
    use proptest::prelude::*;
    use serde_json::json;

    /// `bytes` as one chunk.
    fn whole(bytes: Vec<u8>) -> ChunkedBody {
        ChunkedBody::from(Bytes::from(bytes))
    }

    /// `bytes` cut at `cuts` (taken modulo its length), as hyper may hand
    /// a body over.
    fn cut(bytes: &[u8], cuts: &[usize]) -> ChunkedBody {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        cuts.push(bytes.len());
        cuts.sort_unstable();
        let mut body = ChunkedBody::default();
        let mut start = 0;
        for end in cuts {
            body.push(Bytes::copy_from_slice(&bytes[start..end]));
            start = end;
        }
        body
    }

    /// Message `n` of kind `kind` (a small alphabet of what clients send).
    fn message(kind: u8, n: u32) -> Value {
        match kind % 9 {
            0 => json!({"role": "user", "content": format!("u{n}")}),
            1 => json!({"role": "user", "content": [{"type": "text", "text": format!("t{n}")}]}),
            2 => json!({"role": "assistant", "content": [
                {"type": "text", "text": "a"},
                {"type": "tool_use", "id": format!("toolu_{n}"), "name": "bash",
                 "input": {"command": format!("echo {n}")}}]}),
            3 => json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("toolu_{n}"), "content": "ran",
                 "is_error": n.is_multiple_of(2)}]}),
            4 => json!({"role": "system", "content": format!("s{n}")}),
            5 => json!({"role": "system", "content": [{"type": "text", "text": format!("p{n}")}]}),
            6 => json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "x"},
                {"type": "text", "text": format!("b{n}")}]}),
            7 => json!({"role": "assistant", "content": format!("plain {n}")}),
            _ if n.is_multiple_of(5) => json!({"role": "robot", "content": "?"}),
            _ => json!({"role": "user", "content": [{"type": "text", "text": format!("v{n}")},
                {"type": "text", "text": "w"}]}),
        }
    }

    /// How a request changes the conversation of the one before it.
    #[derive(Debug, Clone)]
    enum Change {
        Append(Vec<(u8, u32)>),
        Edit(usize, (u8, u32)),
        Remove(usize),
        Rewrite(usize, Vec<(u8, u32)>),
        Same,
        Layout(u8),
    }

    fn change() -> impl Strategy<Value = Change> {
        let item = (any::<u8>(), 0u32..50);
        prop_oneof![
            4 => prop::collection::vec(item.clone(), 1..4).prop_map(Change::Append),
            1 => (any::<usize>(), item.clone()).prop_map(|(at, m)| Change::Edit(at, m)),
            1 => any::<usize>().prop_map(Change::Remove),
            1 => (any::<usize>(), prop::collection::vec(item, 0..3))
                .prop_map(|(at, ms)| Change::Rewrite(at, ms)),
            1 => Just(Change::Same),
            1 => any::<u8>().prop_map(Change::Layout),
        ]
    }

    /// The body: `layout` picks whether `messages` comes first, last or
    /// between the other fields, whether the JSON is pretty, and a field
    /// that changes.
    fn body(messages: &[Value], layout: u8) -> Vec<u8> {
        let mut obj = serde_json::Map::new();
        let fields = [
            ("model", json!("m")),
            ("system", json!(format!("sys {}", layout / 16))),
            (
                "tools",
                json!([{"name": "bash", "input_schema": {"type": "object"}}]),
            ),
        ];
        let split = usize::from(layout % 4).min(fields.len());
        for (key, value) in &fields[..split] {
            obj.insert((*key).to_string(), value.clone());
        }
        obj.insert("messages".to_string(), Value::Array(messages.to_vec()));
        for (key, value) in &fields[split..] {
            obj.insert((*key).to_string(), value.clone());
        }
        let value = Value::Object(obj);
        if layout & 8 == 0 {
            serde_json::to_vec(&value).unwrap()
        } else {
            serde_json::to_vec_pretty(&value).unwrap()
        }
    }

    fn apply(messages: &mut Vec<Value>, layout: &mut u8, change: &Change) {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % len };
        match change {
            Change::Append(items) => messages.extend(items.iter().map(|&(k, n)| message(k, n))),
            Change::Edit(i, (k, n)) if !messages.is_empty() => {
                let i = at(*i, messages.len());
                messages[i] = message(*k, *n);
            }
            Change::Remove(i) if !messages.is_empty() => {
                messages.remove(at(*i, messages.len()));
            }
            Change::Rewrite(i, items) => {
                messages.truncate(at(*i, messages.len()));
                messages.extend(items.iter().map(|&(k, n)| message(k, n)));
            }
            Change::Layout(new) => *layout = *new,
            _ => {}
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Whatever each request keeps, changes or drops of the one before,
        /// reading on gives what reading the whole body gives.
        #[test]
        fn reading_on_is_reading_whole(
            start in prop::collection::vec((any::<u8>(), 0u32..50), 0..6),
            changes in prop::collection::vec((change(), any::<bool>()), 1..16),
            layout in any::<u8>(),
            cuts in prop::collection::vec(any::<usize>(), 0..4),
        ) {
            let mut messages: Vec<Value> = start.iter().map(|&(k, n)| message(k, n)).collect();
            let mut layout = layout;
            let mut reader = IncrementalReader::default();
            let mut previous: Option<(u64, Vec<Message>)> = None;
            for (change, give_back) in &changes {
                let bytes = body(&messages, layout);
                let read = reader.read(&cut(&bytes, &cuts));
                prop_assert_eq!(&read, &anthropic::parse_request(&bytes));
                if let Ok(request) = &read {
                    prop_assert_eq!(reader.tally(), Tally::of(&request.messages));
                }
                let lineage = reader.lineage();
                if let (Some(lineage), Ok(request)) = (lineage, &read) {
                    // What the lineage says is kept, is.
                    if let (Some((serial, unchanged)), Some((before, kept))) = (lineage.after, &previous) {
                        prop_assert_eq!(serial, *before);
                        prop_assert_eq!(&kept[..unchanged], &request.messages[..unchanged]);
                    }
                    previous = Some((lineage.serial, request.messages.clone()));
                }
                if let (Ok(request), true) = (read, give_back) {
                    reader.give_back(request.messages);
                }
                apply(&mut messages, &mut layout, change);
            }
        }
    }

    fn conversation(turns: u32) -> Vec<Value> {
        let mut messages = vec![message(0, 0)];
        for n in 1..=turns {
            messages.push(message(2, n));
            messages.push(message(3, n));
        }
        messages
    }

    #[test]
    fn a_growing_conversation_parses_only_what_each_request_adds() {
        let mut reader = IncrementalReader::default();
        for turns in [50, 51, 52] {
            let sent = whole(body(&conversation(turns), 3));
            let request = reader.read(&sent).unwrap();
            assert_eq!(request.messages.len(), 2 * turns as usize + 1);
            let parsed = if turns == 50 { 101 } else { 2 };
            assert_eq!(reader.elements_parsed(), parsed);
            let kept = (turns > 50).then(|| (u64::from(turns - 50), 2 * turns as usize - 1));
            assert_eq!(reader.lineage().unwrap().after, kept);
            reader.give_back(request.messages);
        }
        // Messages not given back: the next request is read from the start.
        let sent = whole(body(&conversation(53), 3));
        let request = reader.read(&sent).unwrap();
        assert_eq!(reader.elements_parsed(), 2);
        drop(request);
        let sent = whole(body(&conversation(54), 3));
        reader.read(&sent).unwrap();
        assert_eq!(reader.elements_parsed(), 109);
    }

    #[test]
    fn an_edit_in_the_middle_parses_from_the_edit_on() {
        let mut reader = IncrementalReader::default();
        let mut messages = conversation(20);
        let request = reader.read(&whole(body(&messages, 3))).unwrap();
        reader.give_back(request.messages);
        messages[30] = message(3, 99);
        let sent = whole(body(&messages, 3));
        assert_eq!(
            reader.read(&sent),
            anthropic::parse_request(&sent.gathered())
        );
        assert_eq!(reader.elements_parsed(), 11);
    }

    /// Nests `levels` arrays in a tool call's input.
    fn nested(levels: usize) -> Value {
        let mut input = json!(1);
        for _ in 0..levels {
            input = json!([input]);
        }
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x",
            "input": {"deep": input}}]})
    }

    #[test]
    fn nesting_at_serde_jsons_limit_is_read_as_the_whole_parse_reads_it() {
        for levels in 115..130 {
            let mut messages = conversation(2);
            messages.push(nested(levels));
            let mut reader = IncrementalReader::default();
            let request = reader.read(&whole(body(&messages[..3], 3))).unwrap();
            reader.give_back(request.messages);
            let sent = whole(body(&messages, 3));
            assert_eq!(
                reader.read(&sent),
                anthropic::parse_request(&sent.gathered()),
                "{levels} levels"
            );
        }
    }
}
