//! The conversations of the wire's record, each message stored once.
//!
//! Every request an outside agent sends carries the whole conversation so
//! far, so keeping each request's messages as sent would hold about N²/2
//! messages after N requests. A [`Conversation`] is instead a chain: its
//! last message and a shared pointer to the conversation before it. A
//! request is recorded ([`Conversations::record`]) as the longest prefix it
//! shares with one of the conversations recorded lately (its own previous
//! request, a sub-agent's, a side request's), plus its own new messages:
//! a client that grows its conversation adds only what it added, one that
//! rewrites or compacts earlier messages shares a shorter prefix (down to
//! none). The record grows with the distinct messages sent, not with the
//! requests times their length.
//!
//! A message keeps the ids of its tool results the client flagged as
//! errors (Anthropic `is_error: true`), so a request's flagged ids are
//! shared with its messages instead of being copied whole each time.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::llm::{ContentBlock, Message};

/// One message of a recorded conversation, and the conversation before it.
#[derive(Debug)]
struct Node {
    message: Message,
    /// The ids of this message's tool results that the client flagged as
    /// errors.
    flagged: Box<[String]>,
    previous: Option<Arc<Node>>,
    /// How many messages end with this one.
    len: usize,
}

impl Drop for Node {
    /// Unlinks the chain one node at a time: dropping a long conversation
    /// must not recurse once per message.
    fn drop(&mut self) {
        let mut previous = self.previous.take();
        while let Some(node) = previous {
            previous = match Arc::try_unwrap(node) {
                Ok(mut node) => node.previous.take(),
                Err(_) => None,
            };
        }
    }
}

/// The messages of one recorded request, sharing their prefix with other
/// recorded requests. Cloning is a pointer copy.
#[derive(Clone, Default)]
pub struct Conversation {
    last: Option<Arc<Node>>,
    /// The first message (the same node as the chain's root): a quick test
    /// of whether another conversation can share anything with this one.
    first: Option<Arc<Node>>,
}

impl Conversation {
    /// How many messages.
    pub fn len(&self) -> usize {
        self.last.as_ref().map_or(0, |node| node.len)
    }

    pub fn is_empty(&self) -> bool {
        self.last.is_none()
    }

    /// The nodes from the last to the first, without allocating.
    fn nodes_backward(&self) -> impl Iterator<Item = &Node> {
        std::iter::successors(self.last.as_deref(), |node| node.previous.as_deref())
    }

    /// The nodes in order (one pointer a message, for this call only).
    fn nodes(&self) -> Vec<&Node> {
        let mut nodes: Vec<&Node> = self.nodes_backward().collect();
        nodes.reverse();
        nodes
    }

    /// The messages in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Message> + ExactSizeIterator {
        self.nodes().into_iter().map(|node| &node.message)
    }

    /// The messages from the last to the first, without allocating.
    pub fn iter_backward(&self) -> impl Iterator<Item = &Message> {
        self.nodes_backward().map(|node| &node.message)
    }

    /// The messages after the first `len` of them, in order, when this
    /// conversation continues `earlier` (shares its messages as stored, not
    /// just equal ones) and `earlier` holds `len` of them; `None` otherwise.
    /// Costs the messages added, not the conversation: what reads every
    /// request of a growing conversation reads each message once.
    pub fn added_to(&self, earlier: &Conversation) -> Option<Vec<&Message>> {
        let mut added = Vec::new();
        let mut node = self.last.as_ref();
        while let Some(current) = node
            && current.len > earlier.len()
        {
            added.push(&current.message);
            node = current.previous.as_ref();
        }
        let same = match (node, &earlier.last) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        added.reverse();
        same.then_some(added)
    }

    /// The messages, copied.
    pub fn to_vec(&self) -> Vec<Message> {
        self.iter().cloned().collect()
    }

    /// Whether the client flagged the tool result answering `id` as an
    /// error.
    pub fn flags_error(&self, id: &str) -> bool {
        self.nodes_backward()
            .any(|node| node.flagged.iter().any(|f| f == id))
    }

    /// Every flagged id, sorted, each once.
    pub fn flagged(&self) -> Vec<String> {
        let ids: BTreeSet<&String> = self
            .nodes_backward()
            .flat_map(|node| node.flagged.iter())
            .collect();
        ids.into_iter().cloned().collect()
    }

    /// Whether this is `other` as stored (not only equal messages).
    fn same_as(&self, other: &Self) -> bool {
        match (&self.last, &other.last) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }

    /// The first `len` messages (shared).
    fn prefix(&self, len: usize) -> Self {
        if len == 0 {
            return Self::default();
        }
        let mut last = self.last.as_ref();
        while let Some(node) = last
            && node.len > len
        {
            last = node.previous.as_ref();
        }
        Self {
            last: last.cloned(),
            first: self.first.clone(),
        }
    }

    fn push(&mut self, message: Message, flagged: Box<[String]>) {
        let node = Arc::new(Node {
            message,
            flagged,
            len: self.len() + 1,
            previous: self.last.take(),
        });
        if self.first.is_none() {
            self.first = Some(Arc::clone(&node));
        }
        self.last = Some(node);
    }

    /// How many leading messages (with their flags) this conversation
    /// shares with `messages`.
    fn common_prefix(&self, messages: &[Message], flags: &[Box<[String]>]) -> usize {
        let same = |node: &Node, at: usize| {
            messages.get(at) == Some(&node.message) && flags.get(at) == Some(&node.flagged)
        };
        match (&self.first, messages.first()) {
            (Some(first), Some(_)) if same(first, 0) => {}
            _ => return 0,
        }
        self.nodes()
            .into_iter()
            .take(messages.len())
            .enumerate()
            .take_while(|(at, node)| same(node, *at))
            .count()
    }
}

impl PartialEq for Conversation {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .nodes_backward()
                .zip(other.nodes_backward())
                .all(|(a, b)| a.message == b.message && a.flagged == b.flagged)
    }
}

impl std::fmt::Debug for Conversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// How many conversations a request is compared with: the branches
/// recorded most recently (an agent's own, its sub-agents', its side
/// requests'). More live branches than this share less, never wrongly.
const BRANCHES: usize = 16;

/// Where requests are recorded: the conversations recorded lately, most
/// recent first, that a new request may continue.
#[derive(Debug, Default)]
pub struct Conversations {
    branches: Vec<Conversation>,
}

impl Conversations {
    /// `messages` recorded, sharing the longest prefix any recent branch
    /// has with them; `flagged` (ids of tool results flagged as errors)
    /// each kept with the first message holding its result. Returns the
    /// conversation and the flagged ids no message answers.
    pub fn record(
        &mut self,
        messages: &[Message],
        flagged: &[String],
    ) -> (Conversation, Vec<String>) {
        let (conversation, unmatched, _) = self.record_read(messages, flagged);
        (conversation, unmatched)
    }

    /// [`Self::record`], with what [`Self::continue_from`] needs to record
    /// the next request.
    pub fn record_read(
        &mut self,
        messages: &[Message],
        flagged: &[String],
    ) -> (Conversation, Vec<String>, Continued) {
        let (flags, unmatched) = flags_per_message(messages, flagged);
        let taken = flags
            .iter()
            .enumerate()
            .flat_map(|(at, own)| own.iter().map(move |id| (at, id.clone())))
            .collect();
        let mut best: Option<(usize, usize)> = None;
        for (index, branch) in self.branches.iter().enumerate() {
            let shared = branch.common_prefix(messages, &flags);
            if shared > best.map_or(0, |(_, s)| s) {
                best = Some((index, shared));
            }
        }
        let mut conversation = best
            .and_then(|(index, shared)| Some(self.branches.get(index)?.prefix(shared)))
            .unwrap_or_default();
        let shared = conversation.len();
        for (message, flags) in messages.iter().zip(flags).skip(shared) {
            conversation.push(message.clone(), flags);
        }
        // A request that continues a branch replaces it; one that leaves a
        // branch (a rewrite, another conversation) is a branch of its own.
        if let Some((index, shared)) = best
            && self.branches.get(index).is_some_and(|b| b.len() == shared)
        {
            self.branches.remove(index);
        }
        let next = self.keep(&conversation, flagged, taken);
        (conversation, unmatched, next)
    }
}

/// What [`Conversations::continue_from`] needs of the request recorded
/// before: its conversation, its flagged ids (sorted) and the message each
/// was kept with.
#[derive(Debug, Clone, Default)]
pub struct Continued {
    pub conversation: Conversation,
    pub flagged: Vec<String>,
    taken: Vec<(usize, String)>,
}

impl Conversations {
    /// [`Self::record`] for a request whose first `unchanged` messages are,
    /// as read, those of `previous` (the request recorded before it): it
    /// shares them without comparing them, and compares only the messages
    /// after them. `None` when the flagged ids differ from `previous`'s
    /// (a message's flags could then change): record it the usual way.
    /// Where [`Self::record`] would share more with an older branch than
    /// with `previous` (a client going back to a conversation it left),
    /// this one shares less: the same messages, stored once more.
    pub fn continue_from(
        &mut self,
        previous: &Continued,
        messages: &[Message],
        flagged: &[String],
        unchanged: usize,
    ) -> Option<(Conversation, Vec<String>, Continued)> {
        let unchanged = unchanged
            .min(previous.conversation.len())
            .min(messages.len());
        if flagged != previous.flagged {
            return None;
        }
        let mut taken: Vec<(usize, String)> = previous
            .taken
            .iter()
            .filter(|(at, _)| *at < unchanged)
            .cloned()
            .collect();
        let mut left: BTreeSet<&str> = flagged.iter().map(String::as_str).collect();
        for (_, id) in &taken {
            left.remove(id.as_str());
        }
        // `unchanged` is at most `messages.len()`, so `after` is never cut short.
        let after = messages.get(unchanged..).unwrap_or_default();
        let flags: Vec<Box<[String]>> = after
            .iter()
            .enumerate()
            .map(|(offset, message)| {
                let own = own_flags(message, &mut left);
                taken.extend(own.iter().map(|id| (unchanged + offset, id.clone())));
                own.into_boxed_slice()
            })
            .collect();
        let unmatched = left.into_iter().map(str::to_string).collect();
        let before = &previous.conversation;
        let mut later: Vec<&Node> = before
            .nodes_backward()
            .take_while(|node| node.len > unchanged)
            .collect();
        later.reverse();
        let same = later
            .iter()
            .zip(after.iter().zip(&flags))
            .take_while(|(node, (message, flags))| {
                node.message == **message && node.flagged == **flags
            })
            .count();
        let mut conversation = before.prefix(unchanged + same);
        for (message, flags) in after.iter().zip(&flags).skip(same) {
            conversation.push(message.clone(), flags.clone());
        }
        let continued = self
            .branches
            .iter()
            .position(|branch| branch.same_as(before));
        if let Some(index) = continued
            && unchanged + same == before.len()
        {
            self.branches.remove(index);
        }
        let next = self.keep(&conversation, flagged, taken);
        Some((conversation, unmatched, next))
    }

    /// Keeps `conversation` as the newest branch (the oldest beyond
    /// [`BRANCHES`] dropped) and what the next request continues from.
    fn keep(
        &mut self,
        conversation: &Conversation,
        flagged: &[String],
        taken: Vec<(usize, String)>,
    ) -> Continued {
        self.branches.insert(0, conversation.clone());
        self.branches.truncate(BRANCHES);
        Continued {
            conversation: conversation.clone(),
            flagged: flagged.to_vec(),
            taken,
        }
    }
}

/// The ids of `message`'s tool results still in `left` (taken from it).
fn own_flags(message: &Message, left: &mut BTreeSet<&str>) -> Vec<String> {
    let mut own = Vec::new();
    for block in message.content_blocks() {
        if let ContentBlock::ToolResult { tool_use_id, .. } = block
            && left.remove(tool_use_id.as_str())
        {
            own.push(tool_use_id.clone());
        }
    }
    own
}

/// Per message, the `flagged` ids its tool results answer (an id with the
/// first message answering it); and the ids none answers.
fn flags_per_message(
    messages: &[Message],
    flagged: &[String],
) -> (Vec<Box<[String]>>, Vec<String>) {
    let mut left: BTreeSet<&str> = flagged.iter().map(String::as_str).collect();
    let flags = messages
        .iter()
        .map(|message| own_flags(message, &mut left).into_boxed_slice())
        .collect();
    (flags, left.into_iter().map(str::to_string).collect())
}

/// How many distinct messages `conversations` hold in all (each shared
/// message counted once): what the tests measure the record by.
#[cfg(test)]
pub(crate) fn stored_messages<'a>(
    conversations: impl IntoIterator<Item = &'a Conversation>,
) -> usize {
    let mut seen: BTreeSet<*const Node> = BTreeSet::new();
    for conversation in conversations {
        // Everything before a node already seen was seen with it.
        for node in conversation.nodes_backward() {
            if !seen.insert(node as *const Node) {
                break;
            }
        }
    }
    seen.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Role;

    fn result(id: &str) -> Message {
        Message::blocks(
            Role::User,
            vec![ContentBlock::ToolResult {
                tool_use_id: id.into(),
                content: "ok".into(),
                is_error: false,
            }],
        )
    }

    #[test]
    fn a_growing_conversation_shares_its_prefix() {
        let mut store = Conversations::default();
        let mut messages = vec![Message::user_text("task")];
        let mut recorded = Vec::new();
        for k in 0..50 {
            recorded.push(store.record(&messages, &[]).0);
            messages.push(Message::blocks(
                Role::Assistant,
                vec![ContentBlock::text(format!("step {k}"))],
            ));
            messages.push(result(&format!("toolu_{k}_1")));
        }
        assert_eq!(recorded.last().map(Conversation::len), Some(99));
        assert_eq!(stored_messages(&recorded), 99);
        assert_eq!(recorded[10].to_vec(), messages[..21]);
    }

    #[test]
    fn flags_stay_with_their_message_and_a_changed_flag_is_not_shared() {
        let mut store = Conversations::default();
        let messages = vec![Message::user_text("task"), result("a"), result("b")];
        let (plain, unmatched) = store.record(&messages, &[]);
        assert!(unmatched.is_empty());
        let (flagged, unmatched) = store.record(&messages, &["b".into(), "zz".into()]);
        assert_eq!(unmatched, ["zz"]);
        assert!(flagged.flags_error("b") && !flagged.flags_error("a"));
        assert!(!plain.flags_error("b"));
        assert_eq!(flagged.flagged(), ["b"]);
        assert_ne!(plain, flagged);
        // The first two messages are shared; the flagged one is new.
        assert_eq!(stored_messages([&plain, &flagged]), 4);
    }

    #[test]
    fn added_to_names_only_the_new_messages_of_a_continued_conversation() {
        let mut store = Conversations::default();
        let mut messages = vec![Message::user_text("task"), result("a")];
        let (first, _) = store.record(&messages, &[]);
        messages.push(result("b"));
        messages.push(result("c"));
        let (grown, _) = store.record(&messages, &[]);
        let added: Option<Vec<Message>> = grown
            .added_to(&first)
            .map(|added| added.into_iter().cloned().collect());
        assert_eq!(added.as_deref(), Some(&messages[2..]));
        assert_eq!(grown.added_to(&grown).map(|a| a.len()), Some(0));
        // Equal messages stored apart are not the same conversation, nor
        // is a longer one a continuation of a shorter.
        let mut other = Conversations::default();
        let (copy, _) = other.record(&messages[..2], &[]);
        assert!(grown.added_to(&copy).is_none());
        assert!(first.added_to(&grown).is_none());
        assert!(
            first
                .added_to(&Conversation::default())
                .is_some_and(|a| a.len() == 2)
        );
    }

    #[test]
    fn a_very_long_conversation_drops_without_recursing() {
        let mut conversation = Conversation::default();
        for k in 0..300_000 {
            conversation.push(Message::user_text(k.to_string()), Box::new([]));
        }
        let prefix = conversation.prefix(1000);
        assert_eq!(prefix.len(), 1000);
        drop(conversation);
        assert_eq!(prefix.iter_backward().count(), 1000);
    }
}
