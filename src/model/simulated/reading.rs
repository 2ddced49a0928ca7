//! How the simulated model reads its context: where its plan is, how long
//! ago it saw it, and what it believes is done.
//!
//! The plan is the most recent one in the context, as the model's planning
//! dialect shows it: a tool result the dialect parses as its render, else
//! the input of the model's own most recent *accepted* planning call (its
//! result is not one of the dialect's errors). Dialects that do not echo
//! the plan are read from the calls alone, so their cost shows honestly.

use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::{MAX_ATTEMPTS, Skill};
use crate::llm::{Content, ContentBlock, Message, Role};
use crate::plan::dialect::{PlanDialect, PlanItem, PlanStatus};

/// The model's reading of the context.
pub(super) struct Reading {
    /// Index into the skills for each step the plan holds, in plan order.
    pub plan: PlanSteps,
    /// The plan as the dialect holds it (empty when none was seen).
    pub items: Vec<PlanItem>,
    /// Steps believed done.
    pub done: Done,
    /// Steps the plan itself marks completed (a subset of `done`): kept
    /// with the plan found, shared, not gathered again each turn.
    pub shown_done: Arc<BTreeSet<usize>>,
    /// A plan was seen in the context (else the task stands for it).
    pub planned: bool,
    pub recall: f64,
    /// The model's own turns in the conversation.
    pub own_turns: usize,
    /// The plan is an earlier part's (a session's stale plan, kept).
    pub stale: bool,
    /// The model has not answered the current part's task yet.
    pub first_turn_of_part: bool,
}

/// A plan found in the context: the message it was seen in, its steps
/// with their statuses, the steps it marks completed, and the items as
/// the dialect holds them.
#[derive(Debug, Clone)]
struct FoundPlan {
    at: usize,
    steps: Vec<(usize, PlanStatus)>,
    completed: Arc<BTreeSet<usize>>,
    items: Vec<PlanItem>,
}

impl FoundPlan {
    fn new(at: usize, steps: Vec<(usize, PlanStatus)>, items: Vec<PlanItem>) -> Self {
        let completed = steps
            .iter()
            .filter(|(_, status)| *status == PlanStatus::Completed)
            .map(|(i, _)| *i)
            .collect();
        Self {
            at,
            steps,
            completed: Arc::new(completed),
            items,
        }
    }
}

/// The steps believed done: those read this turn (the plan's completed
/// items, what was claimed or done since it) and the steps given up, which
/// only grow over the conversation and are kept apart, shared with the
/// reading cache: copying them into every turn's set made a turn cost
/// more the longer the session (a session of thousands of parts gives up
/// a step every few parts).
#[derive(Debug, Clone, Default)]
pub(super) struct Done {
    recent: BTreeSet<usize>,
    given_up: Arc<BTreeSet<usize>>,
}

impl Done {
    /// Exactly `steps` (none given up): what an update shows completed
    /// when it is not every step believed done.
    pub fn of(steps: impl IntoIterator<Item = usize>) -> Self {
        Self {
            recent: steps.into_iter().collect(),
            given_up: Arc::default(),
        }
    }

    pub fn contains(&self, step: &usize) -> bool {
        self.recent.contains(step) || self.given_up.contains(step)
    }

    pub fn insert(&mut self, step: usize) {
        self.recent.insert(step);
    }

    pub fn is_empty(&self) -> bool {
        self.recent.is_empty() && self.given_up.is_empty()
    }

    /// Every step done, in order, each once.
    pub fn to_vec(&self) -> Vec<usize> {
        self.recent.union(&self.given_up).copied().collect()
    }
}

/// The steps a plan holds, in plan order: the steps it lists, then the
/// steps of a range it does not list (a task's steps after a plan that is
/// a window of them, a new part's after a stale plan, every step of a task
/// with no plan yet). Kept as a range, not listed: a task of thousands of
/// steps would otherwise be listed again on every turn.
#[derive(Debug, Clone, Default)]
pub(super) struct PlanSteps {
    pub listed: Vec<usize>,
    then: std::ops::Range<usize>,
    /// The steps of `then` that `listed` holds (left out of `then`).
    listed_in_then: BTreeSet<usize>,
}

impl PlanSteps {
    /// `listed`, then the steps of `then` not among them.
    fn new(listed: Vec<usize>, then: std::ops::Range<usize>) -> Self {
        let listed_in_then = listed
            .iter()
            .copied()
            .filter(|i| then.contains(i))
            .collect();
        Self {
            listed,
            then,
            listed_in_then,
        }
    }

    /// The plan's steps in order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.listed.iter().copied().chain(
            self.then
                .clone()
                .filter(|i| !self.listed_in_then.contains(i)),
        )
    }

    pub fn len(&self) -> usize {
        self.listed.len() + self.then.len() - self.listed_in_then.len()
    }

    /// Keeps only the steps in `part` (rewriting a stale plan for a new
    /// part).
    pub fn keep_within(&mut self, part: &std::ops::Range<usize>) {
        self.listed.retain(|i| part.contains(i));
        self.then = self.then.start.max(part.start)..self.then.end.min(part.end);
        let then = self.then.clone();
        self.listed_in_then.retain(|i| then.contains(i));
    }
}

/// What the reader needs to know besides the messages.
pub(super) struct Reader<'a> {
    pub skills: &'a [Skill],
    pub dialect: &'a dyn PlanDialect,
    /// Whether a planning tool is offered: calls of it count only then.
    pub offered: bool,
    pub params: &'a super::SimulateParams,
    pub workdir: &'a WorkdirSpelling,
    /// The current part of a session: its steps (a range of the skills)
    /// and the index of the user message that gave its task. A single task
    /// is one part holding every step, given by message 0.
    pub part: std::ops::Range<usize>,
    pub part_start: usize,
}

// The workspace path counted as a placeholder: one definition, shared
// with the price of planning (which counts the same context).
pub use crate::llm::price::WorkdirSpelling;

/// What the model has read of a conversation so far, so a turn reads only
/// the messages added since the last one: its cost does not grow with the
/// transcript. Valid while the conversation only grows: every message read
/// has its fingerprint kept (its role, and per block its kind, ids, name
/// and the length and ends of its text: what it costs to compute does not
/// grow with the message), the last one is kept whole, and a conversation
/// whose beginning differs from what was read (an agent that rewrote or
/// dropped an earlier message, not just the last), a shorter one or
/// another offer of tools starts the reading over, so the result is that
/// of reading the whole conversation afresh (see
/// [`ReadCache::extended_by`]). A sender that promises its conversation
/// only grew ([`crate::llm::ModelRequest::unchanged`]) is taken at its
/// word: checking every fingerprint again was a walk over the whole
/// conversation on every turn.
#[derive(Debug, Clone, Default)]
pub struct ReadCache {
    /// The steps looked up by what names them (built with the cache).
    index: StepIndex,
    /// Messages read, the last of them, and whether planning was offered.
    read: usize,
    /// The fingerprint of every message read.
    prints: Vec<u64>,
    last: Option<Message>,
    offered: bool,
    /// `chars[i]`: characters of messages `..i`; `assistants[i]`: how many
    /// of them are the model's.
    chars: Vec<usize>,
    assistants: Vec<usize>,
    /// Per message: steps the model claimed done in it.
    claims: Vec<Vec<usize>>,
    /// Per message `j` (the model's): the (step, action) pairs whose call
    /// in it was answered without an error in message `j + 1`.
    successes: Vec<Vec<(usize, usize)>>,
    /// Per step: how often the model set out to do it.
    attempts: Vec<usize>,
    /// The latest plan found, and the plan as the accepted calls left it.
    found: Option<FoundPlan>,
    held: Vec<PlanItem>,
    /// Steps set out on [`MAX_ATTEMPTS`] times (given up: taken as done),
    /// shared with the turn's [`Done`].
    given_up: Arc<BTreeSet<usize>>,
    /// Since message `since` (the one before the plan's): steps claimed,
    /// per step with a success since, whether each of its actions
    /// succeeded, and the steps all of whose actions did.
    since: usize,
    claimed_since: BTreeSet<usize>,
    succeeded_since: HashMap<usize, Vec<bool>>,
    all_succeeded_since: BTreeSet<usize>,
}

impl ReadCache {
    /// Whether `messages` (a request offering planning or not) extend the
    /// conversation read so far: its first `unchanged` messages are, on
    /// the sender's word, those of the request read last; past them every
    /// message read is checked by its fingerprint, and the last one whole.
    pub fn extended_by(&self, messages: &[Message], offered: bool, unchanged: usize) -> bool {
        if self.offered != offered || self.read > messages.len() {
            return false;
        }
        if unchanged >= self.read {
            return true;
        }
        let last_same = match (self.read.checked_sub(1), &self.last) {
            (None, _) => true,
            (Some(i), Some(last)) => messages.get(i) == Some(last),
            (Some(_), None) => false,
        };
        last_same
            && self.prints.len() == self.read
            && messages
                .iter()
                .zip(&self.prints)
                .all(|(message, print)| fingerprint(message) == *print)
    }
}

impl Reader<'_> {
    /// Reads the conversation, only its new messages: `cache` holds the
    /// reading of its beginning (see [`ReadCache::extended_by`]), or
    /// nothing.
    pub fn read_with(&self, cache: &mut ReadCache, messages: &[Message]) -> Reading {
        if cache.chars.is_empty() {
            *cache = self.fresh_cache();
        }
        for index in cache.read..messages.len() {
            self.fold(cache, messages, index);
            if let Some(message) = messages.get(index) {
                cache.prints.push(fingerprint(message));
            }
        }
        cache.read = messages.len();
        cache.last = messages.last().cloned();

        // A plan seen before the current part's task is an earlier part's:
        // kept, it is still the list the model follows (its unfinished
        // items first), with the new task's steps after them.
        let planned = cache.found.is_some();
        let (found, stale) = match cache.found.clone() {
            Some(found) if found.at < self.part_start => (found, true),
            Some(found) => (found, false),
            None => (self.task_plan(), false),
        };
        let listed: Vec<usize> = found.steps.iter().map(|(i, _)| *i).collect();
        let then = if stale || cache.found.is_none() {
            self.part.clone()
        } else if self
            .dialect
            .max_items()
            .is_some_and(|most| self.part.len() > most)
        {
            // The dialect holds fewer items than the task has steps: the
            // plan is a window of it (see `plan_window`), and the task's
            // steps after the window are still to come.
            match listed.iter().max() {
                Some(&last) => (last + 1).max(self.part.start)..self.part.end,
                None => self.part.clone(),
            }
        } else {
            0..0
        };
        let plan_at = found.at;
        let total = messages.len();
        let from = (plan_at + 1).min(total);
        // Both prefix sums hold one entry a message read, and one more.
        let count = |counts: &[usize], i: usize| counts.get(i).copied().unwrap_or_default();
        let chars = count(&cache.chars, total) - count(&cache.chars, from);
        let own_turns = count(&cache.assistants, total) - count(&cache.assistants, from);
        let tokens = chars as f64 / self.params.chars_per_token
            + own_turns as f64 * self.params.tokens_per_turn;
        let floor = self.params.recall_floor;
        let recall = floor
            + (1.0 - floor)
                / (1.0 + (tokens / self.params.attention_span).powf(self.params.sharpness));

        let shown_done = Arc::clone(&found.completed);
        let mut done: BTreeSet<usize> = (*shown_done).clone();
        // The plan's own message is included: the calls made alongside the
        // update that produced it were made after it was decided.
        self.move_since(cache, plan_at.saturating_sub(1), total);
        done.extend(cache.claimed_since.iter().copied());
        done.extend(cache.all_succeeded_since.iter().copied());
        let done = Done {
            recent: done,
            given_up: Arc::clone(&cache.given_up),
        };
        let part_from = (self.part_start + 1).min(total);
        Reading {
            plan: PlanSteps::new(listed, then),
            items: found.items,
            done,
            shown_done,
            planned,
            recall,
            own_turns: count(&cache.assistants, total),
            stale,
            first_turn_of_part: count(&cache.assistants, total)
                == count(&cache.assistants, part_from),
        }
    }

    fn fresh_cache(&self) -> ReadCache {
        ReadCache {
            index: StepIndex::new(self.skills),
            offered: self.offered,
            chars: vec![0],
            assistants: vec![0],
            attempts: vec![0; self.skills.len()],
            ..ReadCache::default()
        }
    }

    /// The plan when the context holds none: the current part's task as
    /// given, every one of its steps still to do (what was done since is
    /// read from the conversation). It lists no step: the reading adds the
    /// part's steps after what a plan lists, and here that is all of them.
    fn task_plan(&self) -> FoundPlan {
        FoundPlan::new(self.part_start, Vec::new(), Vec::new())
    }

    /// Reads message `index` into `cache` (every message before it is in).
    fn fold(&self, cache: &mut ReadCache, messages: &[Message], index: usize) {
        let Some(message) = messages.get(index) else {
            return;
        };
        let own = message.role == Role::Assistant;
        let chars = cache.chars.last().copied().unwrap_or(0);
        cache
            .chars
            .push(chars + message_chars(message, self.workdir));
        let assistants = cache.assistants.last().copied().unwrap_or(0);
        cache.assistants.push(assistants + usize::from(own));
        let mut claims = Vec::new();
        if own {
            for text in message.texts() {
                claims.extend(cache.index.claimed_in(text));
                for i in cache.index.worked_on_in(text, self.skills) {
                    if let Some(n) = cache.attempts.get_mut(i) {
                        *n += 1;
                        // Steps set out on MAX_ATTEMPTS times are given
                        // up: taken as done.
                        if *n >= MAX_ATTEMPTS && !cache.given_up.contains(&i) {
                            Arc::make_mut(&mut cache.given_up).insert(i);
                        }
                    }
                }
            }
        }
        cache.claims.push(claims);
        cache.successes.push(Vec::new());
        if let Some(asked) = index.checked_sub(1).and_then(|i| messages.get(i)) {
            let succeeded = self.successes(&cache.index, asked, message);
            if let Some(slot) = cache.successes.get_mut(index - 1) {
                *slot = succeeded;
            }
            self.find_plan_in(cache, asked, message, index);
        }
        // Keep the "since the plan" sets current with the new message.
        let since = cache.since;
        self.extend_since(cache, since, index);
    }

    /// Moves the start of the "since the plan" sets to `since` (only ever
    /// forward while the conversation grows), rebuilding them from there.
    fn move_since(&self, cache: &mut ReadCache, since: usize, total: usize) {
        if since == cache.since {
            return;
        }
        cache.since = since;
        cache.claimed_since.clear();
        cache.succeeded_since.clear();
        cache.all_succeeded_since.clear();
        for index in since..total {
            self.extend_since(cache, since, index);
        }
    }

    /// Adds message `index` (and the answer pair ending at it) to the sets
    /// counted since message `since`.
    fn extend_since(&self, cache: &mut ReadCache, since: usize, index: usize) {
        if index < since {
            return;
        }
        if let Some(claims) = cache.claims.get(index) {
            cache.claimed_since.extend(claims.iter().copied());
        }
        // The pair (index - 1, index) counts when it starts at or after `since`.
        let Some(asked) = index.checked_sub(1).filter(|a| *a >= since) else {
            return;
        };
        if let Some(pairs) = cache.successes.get(asked) {
            for &(step, action) in pairs {
                let Some(actions) = self.skills.get(step).map(|s| s.actions.len()) else {
                    continue;
                };
                let succeeded = cache
                    .succeeded_since
                    .entry(step)
                    .or_insert_with(|| vec![false; actions]);
                if let Some(ok) = succeeded.get_mut(action) {
                    *ok = true;
                }
                if succeeded.iter().all(|ok| *ok) {
                    cache.all_succeeded_since.insert(step);
                }
            }
        }
    }

    /// The (step, action) pairs whose call in `asked` (the model's) was
    /// answered without an error in `answered`.
    fn successes(
        &self,
        index: &StepIndex,
        asked: &Message,
        answered: &Message,
    ) -> Vec<(usize, usize)> {
        if asked.role != Role::Assistant {
            return Vec::new();
        }
        let mut found = Vec::new();
        for block in asked.content_blocks() {
            let ContentBlock::ToolUse { id, name, input } = block else {
                continue;
            };
            let ok = answered.content_blocks().iter().any(|b| {
                matches!(b, ContentBlock::ToolResult { tool_use_id, content, .. }
                    if tool_use_id == id && !content.starts_with("Error") && !content.starts_with("Unknown tool"))
            });
            if !ok {
                continue;
            }
            found.extend(index.actions_of(name, input));
        }
        found
    }

    /// The plan's items mapped to steps: by id and text where they agree,
    /// else by text (dialects without ids number their items).
    fn map_to_steps(index: &StepIndex, items: &[PlanItem]) -> Vec<(usize, PlanStatus)> {
        items
            .iter()
            .filter_map(|item| {
                index
                    .by_id_and_text(&item.id, &item.text)
                    .or_else(|| index.by_text(&item.text))
                    .map(|i| (i, item.status))
            })
            .collect()
    }

    /// The plans shown or accepted in user message `index` (answering
    /// `asked`): the latest one naming at least one step becomes the plan.
    fn find_plan_in(
        &self,
        cache: &mut ReadCache,
        asked: &Message,
        message: &Message,
        index: usize,
    ) {
        if message.role != Role::User {
            return;
        }
        let asked = asked.content_blocks();
        for (tool_use_id, content) in message.tool_results() {
            // A plan shown back was seen in this message; a plan read
            // from the model's own call was last seen in that call, so
            // the results after it (this message) count against it.
            let (items, at) = match self.dialect.plan_from_result(content) {
                Some(items) => (Some(items), index),
                None => (
                    self.accepted_call(asked, tool_use_id, content)
                        .and_then(|(tool, input)| {
                            self.dialect.plan_from_call(&cache.held, tool, input)
                        }),
                    index.saturating_sub(1),
                ),
            };
            let Some(items) = items else { continue };
            cache.held = items.clone();
            let steps = Self::map_to_steps(&cache.index, &items);
            // A list that names none of the task's steps is not its plan.
            if !steps.is_empty() {
                cache.found = Some(FoundPlan::new(at, steps, items));
            }
        }
    }

    /// The planning call `id` answered by `result`, if it was accepted.
    fn accepted_call<'m>(
        &self,
        asked: &'m [ContentBlock],
        id: &str,
        result: &str,
    ) -> Option<(&'m str, &'m Value)> {
        if !self.offered || self.dialect.is_error(result) {
            return None;
        }
        asked.iter().find_map(|b| match b {
            ContentBlock::ToolUse {
                id: call_id,
                name,
                input,
            } if call_id == id && self.dialect.is_planning_tool(name) => {
                Some((name.as_str(), &**input))
            }
            _ => None,
        })
    }

    /// Whether the model's latest planning call was rejected.
    pub fn last_update_rejected(&self, messages: &[Message]) -> bool {
        let latest = messages.last().filter(|m| m.role == Role::User);
        let asked = messages.iter().rev().find(|m| m.role == Role::Assistant);
        let (Some(asked), Some(answered)) = (asked, latest) else {
            return false;
        };
        asked.content_blocks().iter().any(|b| {
            let ContentBlock::ToolUse { id, name, .. } = b else {
                return false;
            };
            self.dialect.is_planning_tool(name)
                && answered.content_blocks().iter().any(|r| {
                    matches!(r, ContentBlock::ToolResult { tool_use_id, content, .. }
                        if tool_use_id == id && self.dialect.is_error(content))
                })
        })
    }
}

/// Characters the model reads in a message, the workspace path counted as
/// its placeholder.
fn message_chars(message: &Message, workdir: &WorkdirSpelling) -> usize {
    match &message.content {
        Content::Text(text) => workdir.chars(text),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|b| match b {
                ContentBlock::Text { text } => workdir.chars(text),
                ContentBlock::ToolResult { content, .. } => workdir.chars(content),
                ContentBlock::ToolUse { name, input, .. } => {
                    name.len() + workdir.chars(&input.to_string())
                }
            })
            .sum(),
    }
}

/// The steps looked up by their id (in the model's own claim and work
/// texts), by id and text or text (in plans), and by the calls that
/// perform them: reading a message costs what the message holds, not the
/// number of steps (a session of thousands of steps read every turn
/// against every step grew with steps x turns).
#[derive(Debug, Clone, Default)]
struct StepIndex {
    ids: HashMap<String, usize>,
    ids_and_texts: HashMap<(String, String), usize>,
    texts: HashMap<String, usize>,
    /// `(tool, input with its keys sorted)` -> every (step, action) it is.
    actions: HashMap<(String, String), Vec<(usize, usize)>>,
}

/// The longest step id looked for between a text's fixed words.
const LONGEST_ID: usize = 512;

impl StepIndex {
    fn new(skills: &[Skill]) -> Self {
        let mut index = StepIndex::default();
        for (i, skill) in skills.iter().enumerate() {
            index.ids.entry(skill.id.clone()).or_insert(i);
            index
                .ids_and_texts
                .entry((skill.id.clone(), skill.text.clone()))
                .or_insert(i);
            index.texts.entry(skill.text.clone()).or_insert(i);
            for (k, action) in skill.actions.iter().enumerate() {
                index
                    .actions
                    .entry((action.tool.clone(), sorted_json(&action.input)))
                    .or_default()
                    .push((i, k));
            }
        }
        index
    }

    fn by_id_and_text(&self, id: &str, text: &str) -> Option<usize> {
        self.ids_and_texts
            .get(&(id.to_string(), text.to_string()))
            .copied()
    }

    fn by_text(&self, text: &str) -> Option<usize> {
        self.texts.get(text).copied()
    }

    /// The (step, action) pairs a call of `tool` with `input` performs.
    fn actions_of(&self, tool: &str, input: &Value) -> Vec<(usize, usize)> {
        self.actions
            .get(&(tool.to_string(), sorted_json(input)))
            .cloned()
            .unwrap_or_default()
    }

    /// The steps `text` claims done (`claim_text`: "Step ID done."), in
    /// step order, each once.
    fn claimed_in(&self, text: &str) -> BTreeSet<usize> {
        self.between(text, "Step ", " done.")
            .map(|(i, _)| i)
            .collect()
    }

    /// The steps `text` sets out on (`work_text`: "Working on step ID:
    /// TEXT"), in step order, each once.
    fn worked_on_in(&self, text: &str, skills: &[Skill]) -> BTreeSet<usize> {
        self.between(text, "Working on step ", ": ")
            .filter(|&(i, rest)| skills.get(i).is_some_and(|s| rest.starts_with(&s.text)))
            .map(|(i, _)| i)
            .collect()
    }

    /// Every known step id found between `before` and `after` in `text`,
    /// with the text after `after`.
    fn between<'t>(
        &'t self,
        text: &'t str,
        before: &'t str,
        after: &'t str,
    ) -> impl Iterator<Item = (usize, &'t str)> + 't {
        text.match_indices(before).flat_map(move |(at, _)| {
            let from = at + before.len();
            let window_end = text.len().min(from + LONGEST_ID + after.len());
            let window = text.get(from..).unwrap_or_default();
            window
                .match_indices(after)
                .take_while(move |(end, _)| from + end < window_end)
                .filter_map(move |(end, _)| {
                    let id = window.get(..end)?;
                    let step = self.ids.get(id)?;
                    Some((*step, window.get(end + after.len()..).unwrap_or_default()))
                })
        })
    }
}

/// `value` as JSON text with every object's keys sorted: two inputs are
/// the same call whatever order their keys came in.
fn sorted_json(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.clone(), sorted(v)))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

/// A message's fingerprint: its role and, per block, its kind, ids and tool
/// name, and the length and first and last bytes of its text (a result's
/// content, a call's input as held). Cheap whatever the message's size;
/// two messages with different fingerprints differ.
fn fingerprint(message: &Message) -> u64 {
    use std::hash::{Hash, Hasher};
    fn text_print(text: &str, hasher: &mut impl Hasher) {
        let bytes = text.as_bytes();
        bytes.len().hash(hasher);
        bytes.get(..32).unwrap_or(bytes).hash(hasher);
        bytes
            .get(bytes.len().saturating_sub(32)..)
            .unwrap_or(bytes)
            .hash(hasher);
    }
    /// A JSON value's print down to `depth` levels (an array: its length
    /// and its first and last items).
    fn value_print(value: &Value, depth: usize, hasher: &mut impl Hasher) {
        match value {
            Value::String(text) => text_print(text, hasher),
            Value::Object(map) => {
                map.len().hash(hasher);
                for (key, item) in map.iter().take(16) {
                    key.hash(hasher);
                    if depth > 0 {
                        value_print(item, depth - 1, hasher);
                    }
                }
            }
            Value::Array(items) => {
                items.len().hash(hasher);
                if depth > 0 {
                    for item in items.first().into_iter().chain(items.last()) {
                        value_print(item, depth - 1, hasher);
                    }
                }
            }
            other => other.to_string().hash(hasher),
        }
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (message.role == Role::User).hash(&mut hasher);
    match &message.content {
        Content::Text(text) => text_print(text, &mut hasher),
        Content::Blocks(blocks) => {
            for block in blocks {
                match block {
                    ContentBlock::Text { text } => {
                        0u8.hash(&mut hasher);
                        text_print(text, &mut hasher);
                    }
                    ContentBlock::ToolUse { id, name, input } => {
                        1u8.hash(&mut hasher);
                        id.hash(&mut hasher);
                        name.hash(&mut hasher);
                        value_print(input, 2, &mut hasher);
                    }
                    ContentBlock::ToolResult {
                        tool_use_id,
                        content,
                        is_error,
                    } => {
                        2u8.hash(&mut hasher);
                        tool_use_id.hash(&mut hasher);
                        is_error.hash(&mut hasher);
                        text_print(content, &mut hasher);
                    }
                }
            }
        }
    }
    hasher.finish()
}
