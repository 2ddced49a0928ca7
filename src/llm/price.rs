//! The price of planning: how many tokens the requests a model answered
//! held, and how many of them were planning.
//!
//! A run's price is read off the requests alone, so the built-in loop (from
//! its transcript: each assistant message answered the messages before it)
//! and an outside agent (from each request it sent over the wire) are
//! measured by the same code:
//!
//! - a request's characters are its system prompt plus, per message, the
//!   text blocks (a plain-string message is one), every tool input as
//!   compact JSON and every tool result; tool schemas, tool names and ids
//!   are not counted. The workspace path counts as the fixed placeholder
//!   `{WORKDIR}`, so figures do not depend on where the workspace lives,
//!   and a duration an outside agent measured and wrote into a result
//!   (Codex's `Wall time: 0.1 seconds`) counts as `Wall time: 0 seconds`,
//!   so they do not depend on the clock or the machine's load either, and
//!   a process id an agent wrote into a result (Gemini CLI's and Qwen
//!   Code's `Process Group PGID: 27864`) as `Process Group PGID: 0`;
//! - its tokens are its characters / 4, rounded up once per request (a
//!   request is what an API counts; rounding each request up keeps every
//!   figure a whole number and never makes planning more than the whole);
//! - its planning characters are the inputs of the planning calls in it,
//!   their results, and the reminder texts in it: in a user message after
//!   the model's first answer (what the wire counts as a reminder), a text
//!   holding a reminder marker counts from the start of the marker's line
//!   to its end (a reminder is placed as its own block, or folded onto the
//!   end of a tool result after a line break);
//! - a planning turn is a turn whose every call (at least one) is a
//!   planning call; a reminder after planning is one added right after a
//!   turn holding a planning call.
//!
//! Everything sent again in a later request is counted again: that is what
//! the context costs.

use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;

use super::{Content, ContentBlock, Message, Role};

/// The texts that mark a reminder in any design.
pub const REMINDER_MARKERS: [&str; 2] = ["<reminder>", "<system-reminder>"];

/// A searcher for each of [`REMINDER_MARKERS`], built once (setting one up
/// per text cost more than the search).
static MARKER_FINDERS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 2]> =
    std::sync::LazyLock::new(|| REMINDER_MARKERS.map(memchr::memmem::Finder::new));

/// The placeholder counted in place of the workspace path.
pub const WORKDIR_PLACEHOLDER: &str = "{WORKDIR}";

/// The spellings of a run's workspace path (as given, and resolved through
/// symlinks such as a TMPDIR that is one), longest first, so a text is
/// counted as if each were the fixed placeholder `{WORKDIR}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkdirSpelling {
    spellings: Vec<Spelling>,
    /// The bytes a text must hold for anything in it to be replaced: the
    /// first byte of each spelling and of [`WALL_TIME`]'s head.
    first_bytes: Vec<u8>,
    /// The length of the shortest of them: a shorter text holds none.
    shortest: usize,
}

impl Default for WorkdirSpelling {
    /// No workspace path: only measured wall times are read differently.
    fn default() -> Self {
        Self::of(Vec::new())
    }
}

impl WorkdirSpelling {
    pub fn new(workdir: &std::path::Path) -> Self {
        let mut spellings = vec![workdir.to_string_lossy().into_owned()];
        if let Some(resolved) = resolve(workdir) {
            spellings.push(resolved.to_string_lossy().into_owned());
        }
        spellings.retain(|s| !s.is_empty());
        spellings.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        spellings.dedup();
        Self::of(spellings)
    }

    fn of(spellings: Vec<String>) -> Self {
        let mut first_bytes: Vec<u8> = spellings
            .iter()
            .map(String::as_str)
            .chain([WALL_TIME.0, PGID])
            .filter_map(|s| s.as_bytes().first().copied())
            .collect();
        first_bytes.sort_unstable();
        first_bytes.dedup();
        let shortest = spellings
            .iter()
            .map(String::len)
            .chain([WALL_TIME.0.len(), PGID.len()])
            .min()
            .unwrap_or(0);
        Self {
            spellings: spellings.into_iter().map(Spelling::new).collect(),
            first_bytes,
            shortest,
        }
    }

    /// Whether `text` is long enough and holds one of
    /// [`Self::first_bytes`]: one vectorized scan for all of them.
    fn may_touch(&self, text: &str) -> bool {
        let haystack = text.as_bytes();
        if haystack.len() < self.shortest {
            return false;
        }
        match self.first_bytes[..] {
            [a] => memchr::memchr(a, haystack).is_some(),
            [a, b] => memchr::memchr2(a, b, haystack).is_some(),
            [a, b, c] => memchr::memchr3(a, b, c, haystack).is_some(),
            _ => true,
        }
    }

    /// Characters of `text` with every spelling of the workspace path read
    /// as the placeholder (and a measured wall time as
    /// [`WALL_TIME_COUNTED`]).
    pub fn chars(&self, text: &str) -> usize {
        if !self.may_touch(text) {
            return text.chars().count();
        }
        if let Some(chars) = self.chars_with_one_spelling(text) {
            return chars;
        }
        match self.replaced(text) {
            Some(replaced) => replaced.chars().count(),
            None => text.chars().count(),
        }
    }

    /// [`Self::chars`] counted without writing the replaced text, when
    /// that is plain arithmetic: the text holds no measured figure and at
    /// most one spelling, so each of its (non-overlapping, as `replace`
    /// finds them) occurrences counts as the placeholder. `None` otherwise.
    /// A run's system prompt holds the workspace path: this is counted
    /// on every run.
    fn chars_with_one_spelling(&self, text: &str) -> Option<usize> {
        let bytes = text.as_bytes();
        if WALL_TIME_FINDER.find(bytes).is_some() || PGID_FINDER.find(bytes).is_some() {
            return None;
        }
        let mut found = self.spellings.iter().filter(|s| s.found_in(text));
        let Some(spelling) = found.next() else {
            return Some(text.chars().count());
        };
        if found.next().is_some() {
            return None;
        }
        let occurrences = spelling.finder.find_iter(bytes).count();
        let placeholder = WORKDIR_PLACEHOLDER.chars().count();
        Some(text.chars().count() - occurrences * spelling.chars + occurrences * placeholder)
    }

    /// `text` with every spelling replaced by the placeholder and every
    /// measured wall time by [`WALL_TIME_COUNTED`]; `None` when it holds
    /// neither.
    fn replaced(&self, text: &str) -> Option<String> {
        // Most texts counted hold none of the first bytes (every string of
        // every tool input is counted): one pass over the bytes settles
        // them, cheaper than a search per pattern.
        if !self.may_touch(text) {
            return None;
        }
        // Longest first: a spelling inside a longer one is not counted twice.
        let mut replaced: Option<String> = without_wall_times(text);
        if let Some(counted) = without_pgids(replaced.as_deref().unwrap_or(text)) {
            replaced = Some(counted);
        }
        for spelling in &self.spellings {
            let current = replaced.as_deref().unwrap_or(text);
            if spelling.found_in(current) {
                replaced = Some(current.replace(spelling.text(), WORKDIR_PLACEHOLDER));
            }
        }
        replaced
    }
}

/// One spelling of the workspace path, with its searcher built once (a
/// search set up per text cost more than the search).
#[derive(Debug, Clone)]
struct Spelling {
    text: String,
    /// Its length in characters.
    chars: usize,
    finder: memchr::memmem::Finder<'static>,
}

impl Spelling {
    fn new(text: String) -> Self {
        let finder = memchr::memmem::Finder::new(text.as_bytes()).into_owned();
        let chars = text.chars().count();
        Self {
            text,
            chars,
            finder,
        }
    }

    fn text(&self) -> &str {
        &self.text
    }

    fn found_in(&self, haystack: &str) -> bool {
        self.finder.find(haystack.as_bytes()).is_some()
    }
}

impl PartialEq for Spelling {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Spelling {}

/// How an agent writes the time a tool call took: `Wall time: ` then
/// seconds as a decimal figure then ` seconds` (Codex 0.169.0:
/// `exec_command` with four decimals, `apply_patch` with at most one, so
/// the length varies with the load).
const WALL_TIME: (&str, &str) = ("Wall time: ", " seconds");

/// A searcher for [`WALL_TIME`]'s head, built once.
static WALL_TIME_FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(WALL_TIME.0));

/// What a measured wall time counts as.
pub const WALL_TIME_COUNTED: &str = "Wall time: 0 seconds";

/// `text` with every measured wall time written as [`WALL_TIME_COUNTED`];
/// `None` when it holds none.
fn without_wall_times(text: &str) -> Option<String> {
    let (head, tail) = WALL_TIME;
    WALL_TIME_FINDER.find(text.as_bytes())?;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut found = false;
    while let Some(at) = rest.find(head) {
        let after = &rest[at + head.len()..];
        let figure = after
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        out.push_str(&rest[..at]);
        if figure > 0 && after[figure..].starts_with(tail) {
            out.push_str(WALL_TIME_COUNTED);
            rest = &after[figure + tail.len()..];
            found = true;
        } else {
            out.push_str(head);
            rest = after;
        }
    }
    out.push_str(rest);
    found.then_some(out)
}

/// How Gemini CLI and Qwen Code write the process group of a command they
/// ran: `Process Group PGID: ` then the id.
const PGID: &str = "Process Group PGID: ";

/// A searcher for [`PGID`], built once.
static PGID_FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(PGID));

/// What a process group id counts as.
pub const PGID_COUNTED: &str = "Process Group PGID: 0";

/// `text` with every process group id written as [`PGID_COUNTED`]; `None`
/// when it holds none.
fn without_pgids(text: &str) -> Option<String> {
    PGID_FINDER.find(text.as_bytes())?;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(PGID) {
        let after = &rest[at + PGID.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        out.push_str(&rest[..at]);
        out.push_str(if digits > 0 { PGID_COUNTED } else { PGID });
        rest = &after[digits..];
    }
    out.push_str(rest);
    Some(out)
}

/// Whether `text` can hold `pattern`: it is long enough and holds the
/// pattern's first byte (a scan for one byte is much cheaper than setting
/// up a substring search, and most texts counted hold no workspace path and
/// no reminder marker).
fn may_contain(text: &str, pattern: &str) -> bool {
    match pattern.as_bytes().first() {
        None => true,
        Some(first) => text.len() >= pattern.len() && text.as_bytes().contains(first),
    }
}

/// `workdir` resolved through symlinks, when that spells it differently:
/// its folder resolved once per process (every run's workspace sits in the
/// same temporary folder, and resolving costs a system call per path
/// component, a visible part of a run), then its own name (a workspace is a
/// folder agent-eval made, never a symlink). `None` when the folder is
/// already resolved or cannot be.
fn resolve(workdir: &std::path::Path) -> Option<std::path::PathBuf> {
    use std::collections::BTreeMap;
    use std::ffi::OsString;
    use std::path::PathBuf;
    use std::sync::Mutex;
    // Keyed by the folder's bytes: comparing `Path`s goes component by
    // component, and this runs once a run.
    static FOLDERS: Mutex<BTreeMap<OsString, Option<PathBuf>>> = Mutex::new(BTreeMap::new());
    let (Some(folder), Some(name)) = (workdir.parent(), workdir.file_name()) else {
        return workdir.canonicalize().ok();
    };
    let mut folders = FOLDERS.lock().unwrap_or_else(|p| p.into_inner());
    if !folders.contains_key(folder.as_os_str()) {
        // Bounded: a process that sees many folders resolves them afresh.
        if folders.len() > 64 {
            folders.clear();
        }
        let resolved = folder.canonicalize().ok().filter(|r| r != folder);
        folders.insert(folder.as_os_str().to_owned(), resolved);
    }
    folders
        .get(folder.as_os_str())
        .and_then(|resolved| resolved.as_ref().map(|f| f.join(name)))
}

/// A run's price: the four per-run figures of the report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PlanningPrice {
    /// Tokens of every request the model answered, summed.
    pub context_tokens: u64,
    /// The part of them that is planning.
    pub planning_tokens: u64,
    /// Turns whose every call was a planning call.
    pub planning_turns: usize,
    /// Reminders added right after a turn holding a planning call.
    pub reminders_after_planning: usize,
}

/// What tells planning apart in a conversation.
pub struct PriceRules<'a> {
    pub workdir: &'a WorkdirSpelling,
    /// Whether a call of this tool is a planning call (an offered planning
    /// tool).
    pub is_planning: &'a dyn Fn(&str) -> bool,
    /// Texts that mark a reminder (besides [`REMINDER_MARKERS`]).
    pub reminder_pattern: Option<&'a str>,
    /// Only `reminder_pattern` marks a reminder: an agent preset's own
    /// planning reminder, whose client adds `<system-reminder>`s for other
    /// reasons.
    pub pattern_only: bool,
}

impl PriceRules<'_> {
    /// Where the reminder in `text` starts: the start of the line holding
    /// the first marker, if there is one.
    fn reminder_start(&self, text: &str) -> Option<usize> {
        let pattern = self.reminder_pattern.filter(|p| !p.is_empty());
        let tags = if self.pattern_only {
            &[][..]
        } else {
            &REMINDER_MARKERS[..]
        };
        let tagged = tags
            .iter()
            .zip(MARKER_FINDERS.iter())
            .filter(|(marker, _)| may_contain(text, marker))
            .filter_map(|(_, finder)| finder.find(text.as_bytes()));
        let patterned = pattern
            .filter(|marker| may_contain(text, marker))
            .and_then(|marker| memchr::memmem::find(text.as_bytes(), marker.as_bytes()));
        let at = tagged.chain(patterned).min()?;
        Some(text[..at].rfind('\n').map_or(0, |i| i + 1))
    }

    /// Characters of the reminder in `text` (0 without one).
    fn reminder_chars(&self, text: &str) -> usize {
        self.reminder_start(text)
            .map_or(0, |start| self.workdir.chars(&text[start..]))
    }
}

/// A conversation read message by message: characters so far, of which
/// planning, and the planning calls seen (a result is planning when it
/// answers one). A request's figures are those of the messages before it.
#[derive(Debug, Default)]
pub struct ConversationChars<'m> {
    pub chars: u64,
    pub planning_chars: u64,
    planning_calls: BTreeSet<&'m str>,
    answered: bool,
}

impl<'m> ConversationChars<'m> {
    /// Adds one message.
    pub fn add(&mut self, message: &'m Message, rules: &PriceRules<'_>) {
        let after_answer = self.answered && message.role == Role::User;
        match &message.content {
            Content::Text(plain) => self.add_text(plain, false, after_answer, rules),
            Content::Blocks(blocks) => {
                for block in blocks {
                    match block {
                        ContentBlock::Text { text } => {
                            self.add_text(text, false, after_answer, rules);
                        }
                        ContentBlock::ToolResult {
                            tool_use_id,
                            content,
                            ..
                        } => {
                            let planning = self.planning_calls.contains(tool_use_id.as_str());
                            self.add_text(content, planning, after_answer, rules);
                        }
                        ContentBlock::ToolUse { id, name, input } => {
                            let planning = (rules.is_planning)(name);
                            if planning {
                                self.planning_calls.insert(id);
                            }
                            let chars = json_chars(input, rules.workdir) as u64;
                            self.count(chars, if planning { chars } else { 0 });
                        }
                    }
                }
            }
        }
        self.answered |= message.role == Role::Assistant;
    }

    /// Adds a text: all of it planning, or its reminder (in a user
    /// message after the model's first answer).
    fn add_text(&mut self, text: &str, planning: bool, after_answer: bool, rules: &PriceRules) {
        let chars = rules.workdir.chars(text);
        let planning = if planning {
            chars
        } else if after_answer {
            rules.reminder_chars(text)
        } else {
            0
        };
        self.count(chars as u64, planning as u64);
    }

    fn count(&mut self, chars: u64, planning: u64) {
        self.chars = self.chars.saturating_add(chars);
        self.planning_chars = self.planning_chars.saturating_add(planning);
    }
}

/// Characters of `value` written as compact JSON (as `serde_json` writes
/// it), each string counted with the workspace path as its placeholder;
/// counted without writing it (a run's inputs are counted on every run).
pub fn json_chars(value: &Value, workdir: &WorkdirSpelling) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_chars(n),
        Value::String(text) => string_chars(text, workdir),
        Value::Array(items) => {
            2 + items.len().saturating_sub(1)
                + items.iter().map(|v| json_chars(v, workdir)).sum::<usize>()
        }
        Value::Object(map) => {
            2 + map.len().saturating_sub(1)
                + map
                    .iter()
                    .map(|(k, v)| string_chars(k, workdir) + 1 + json_chars(v, workdir))
                    .sum::<usize>()
        }
    }
}

/// Characters of a JSON number as `serde_json` writes it (written to a
/// counter, not to a string).
fn number_chars(n: &serde_json::Number) -> usize {
    struct Count(usize);
    impl std::fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0 += s.chars().count();
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter cannot fail.
    let _ = std::fmt::Write::write_fmt(&mut count, format_args!("{n}"));
    count.0
}

/// Characters of a JSON string literal: the quotes, and each character as
/// `serde_json` escapes it.
fn string_chars(text: &str, workdir: &WorkdirSpelling) -> usize {
    2 + match workdir.replaced(text) {
        Some(replaced) => escaped_chars(&replaced),
        None => escaped_chars(text),
    }
}

/// Characters of `text` as `serde_json` escapes it, counted byte by byte:
/// a character's first byte counts (the bytes that continue a character,
/// `0b10xx_xxxx`, do not), a quote, backslash or short-escaped control
/// character counts 2, any other control character 6 (`\u00XX`).
fn escaped_chars(text: &str) -> usize {
    text.bytes()
        .map(|b| usize::from(ESCAPED_LEN[usize::from(b)]))
        .sum()
}

/// What each byte counts for in [`escaped_chars`]: one table lookup a
/// byte (every string of every tool input is counted on every run).
static ESCAPED_LEN: [u8; 256] = {
    let mut table = [1u8; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = match b as u8 {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..0x20 => 6,
            byte if byte & 0xC0 == 0x80 => 0,
            _ => 1,
        };
        b += 1;
    }
    table
};

/// Characters to tokens: a quarter, rounded up.
pub fn tokens(chars: u64) -> u64 {
    chars.div_ceil(4)
}

impl PlanningPrice {
    /// Adds one request the model answered: its system prompt's characters
    /// and the conversation it carried.
    pub fn add_request(&mut self, system_chars: u64, conversation: &ConversationChars) {
        let total = system_chars.saturating_add(conversation.chars);
        self.context_tokens = self.context_tokens.saturating_add(tokens(total));
        self.planning_tokens = self
            .planning_tokens
            .saturating_add(tokens(conversation.planning_chars));
    }

    /// Adds one of the model's turns (its answer's blocks) and whether a
    /// reminder came right after it.
    pub fn add_turn(&mut self, answer: &[ContentBlock], reminder_after: bool, rules: &PriceRules) {
        let (mut calls, mut planning) = (0, 0);
        for block in answer {
            if let ContentBlock::ToolUse { name, .. } = block {
                calls += 1;
                planning += usize::from((rules.is_planning)(name));
            }
        }
        if planning > 0 && planning == calls {
            self.planning_turns += 1;
        }
        if planning > 0 && reminder_after {
            self.reminders_after_planning += 1;
        }
    }

    /// The price of a transcript in which each assistant message answered
    /// the messages before it (the built-in loop's), with `system` sent
    /// every time and reminders after the turns in `reminders_at`.
    pub fn of_transcript(
        system: &str,
        messages: &[Message],
        reminders_at: &[usize],
        rules: &PriceRules<'_>,
    ) -> Self {
        let system_chars = rules.workdir.chars(system) as u64;
        let mut price = Self::default();
        let mut conversation = ConversationChars::default();
        let mut turn = 0;
        for message in messages {
            if message.role == Role::Assistant {
                turn += 1;
                price.add_request(system_chars, &conversation);
                price.add_turn(
                    message.content_blocks(),
                    reminders_at.contains(&turn),
                    rules,
                );
            }
            conversation.add(message, rules);
        }
        price
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::tool_use_id;
    use serde_json::json;

    fn call(turn: usize, name: &str, input: serde_json::Value) -> ContentBlock {
        ContentBlock::ToolUse {
            id: tool_use_id(turn, 1),
            name: name.into(),
            input: input.into(),
        }
    }

    fn result(turn: usize, content: &str) -> ContentBlock {
        ContentBlock::ToolResult {
            tool_use_id: tool_use_id(turn, 1),
            content: content.into(),
            is_error: false,
        }
    }

    fn rules<'a>(
        workdir: &'a WorkdirSpelling,
        is_todo: &'a dyn Fn(&str) -> bool,
    ) -> PriceRules<'a> {
        PriceRules {
            workdir,
            is_planning: is_todo,
            reminder_pattern: None,
            pattern_only: false,
        }
    }

    #[test]
    fn each_request_is_counted_whole_and_rounded_up() {
        let workdir = WorkdirSpelling::default();
        let is_todo = |n: &str| n == "todo";
        let rules = rules(&workdir, &is_todo);
        let messages = vec![
            Message::user_text("task"), // 4
            Message::blocks(Role::Assistant, vec![call(1, "todo", json!({"a": 1}))]), // {"a":1} = 7
            Message::blocks(Role::User, vec![result(1, "plan")]), // 4
            Message::blocks(
                Role::Assistant,
                vec![ContentBlock::text("hi"), call(2, "bash", json!({}))],
            ), // 2 + 2
            Message::blocks(
                Role::User,
                vec![
                    ContentBlock::ToolResult {
                        tool_use_id: tool_use_id(2, 1),
                        content: "out".into(),
                        is_error: false,
                    },
                    ContentBlock::text("<reminder>Update your todos.</reminder>"),
                ],
            ), // 3 + 39
            Message::blocks(Role::Assistant, vec![ContentBlock::text("done")]),
        ];
        let price = PlanningPrice::of_transcript("sys", &messages, &[2], &rules);
        // Requests: 3+4 = 7 -> 2; 3+4+7+4 = 18 -> 5; 18+4+3+39 = 64 -> 16.
        // Planning: 0; 7+4 = 11 -> 3; 11+39 = 50 -> 13.
        assert_eq!(
            price,
            PlanningPrice {
                context_tokens: 2 + 5 + 16,
                planning_tokens: 3 + 13,
                planning_turns: 1,
                reminders_after_planning: 0,
            }
        );
        // A reminder right after the planning turn.
        let price = PlanningPrice::of_transcript("sys", &messages, &[1], &rules);
        assert_eq!(price.reminders_after_planning, 1);
    }

    #[test]
    fn a_folded_reminder_counts_from_its_line_and_the_task_never() {
        let workdir = WorkdirSpelling::new(std::path::Path::new("/very/long/work"));
        let is_todo = |_: &str| false;
        let mut rules = rules(&workdir, &is_todo);
        rules.reminder_pattern = Some("NAG");
        let messages = [
            Message::user_text("<reminder> in the task"),
            Message::blocks(Role::Assistant, vec![call(1, "bash", json!({}))]),
            Message::blocks(Role::User, vec![result(1, "/very/long/work\nxx NAG!")]),
        ];
        let mut conversation = ConversationChars::default();
        conversation.add(&messages[0], &rules);
        assert_eq!(conversation.planning_chars, 0);
        conversation.add(&messages[1], &rules);
        conversation.add(&messages[2], &rules);
        // "{WORKDIR}\nxx NAG!": 9 + 1 + 7 characters; the reminder is its
        // last line.
        assert_eq!(conversation.chars, 22 + 2 + 17);
        assert_eq!(conversation.planning_chars, 7);
        assert_eq!(tokens(0), 0);
        assert_eq!(tokens(1), 1);
        assert_eq!(tokens(8), 2);
    }

    #[test]
    fn a_measured_wall_time_counts_the_same_whatever_it_measured() {
        let workdir = WorkdirSpelling::new(std::path::Path::new("/w"));
        let counted = |text: &str| workdir.chars(text);
        let quick = "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n";
        let slow = "Exit code: 0\nWall time: 12.3 seconds\nOutput:\nSuccess.\n";
        assert_eq!(counted(quick), quick.chars().count());
        assert_eq!(counted(slow), counted(quick));
        assert_eq!(
            counted("Wall time: 0.0031 seconds in /w/x, Wall time: 2 seconds"),
            "Wall time: 0 seconds in {WORKDIR}/x, Wall time: 0 seconds"
                .chars()
                .count()
        );
        // Not a measured time: counted as written.
        for text in [
            "Wall time: soon seconds",
            "Wall time: 3 minutes",
            "Wall time: ",
        ] {
            assert_eq!(counted(text), text.chars().count(), "{text}");
        }
    }

    #[test]
    fn a_process_group_id_counts_the_same_whatever_it_is() {
        let workdir = WorkdirSpelling::new(std::path::Path::new("/w"));
        let counted = |text: &str| workdir.chars(text);
        let one = "Output: hi\nExit Code: 0\nProcess Group PGID: 7";
        let other = "Output: hi\nExit Code: 0\nProcess Group PGID: 1234567";
        assert_eq!(counted(one), one.chars().count());
        assert_eq!(counted(other), counted(one));
        assert_eq!(
            counted("Process Group PGID: 42 in /w, Wall time: 1.5 seconds"),
            "Process Group PGID: 0 in {WORKDIR}, Wall time: 0 seconds"
                .chars()
                .count()
        );
        let no_id = "Process Group PGID: (none)";
        assert_eq!(counted(no_id), no_id.chars().count());
    }

    #[test]
    fn json_is_counted_as_serde_json_writes_it() {
        let workdir = WorkdirSpelling::default();
        for value in [
            json!(null),
            json!(true),
            json!(false),
            json!(-12.5),
            json!(""),
            json!("tab\tquote\"back\\slash\u{1}é\u{8}\u{c}\r\n"),
            json!([]),
            json!({}),
            json!([1, [2, {"a": null}], "x"]),
            json!({"items": [{"id": "1", "text": "Type hints", "status": "pending"}], "n": 3}),
        ] {
            let written = serde_json::to_string(&value).unwrap();
            assert_eq!(
                json_chars(&value, &workdir),
                written.chars().count(),
                "{written}"
            );
        }
        let short = WorkdirSpelling::new(std::path::Path::new("/w"));
        let long = WorkdirSpelling::new(std::path::Path::new("/a/much/longer/w"));
        assert_eq!(
            json_chars(&json!({"path": "/w/x"}), &short),
            json_chars(&json!({"path": "/a/much/longer/w/x"}), &long)
        );
    }

    /// Any JSON value: strings from any characters (control characters,
    /// quotes and backslashes included), any numbers, nested.
    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<f64>().prop_map(|x| json!(x)),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map(any::<String>(), inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn json_chars_are_those_serde_json_writes(value in any_json()) {
            let written = serde_json::to_string(&value).unwrap();
            proptest::prop_assert_eq!(
                json_chars(&value, &WorkdirSpelling::default()),
                written.chars().count()
            );
        }
    }

    #[test]
    fn the_workspace_path_counts_as_the_placeholder() {
        let short = WorkdirSpelling::new(std::path::Path::new("/t/w"));
        let long = WorkdirSpelling::new(std::path::Path::new("/a/much/longer/tmp/w"));
        let text = |root: &str| format!("Error: {root}/x is outside; cwd {root}");
        assert_eq!(
            short.chars(&text("/t/w")),
            long.chars(&text("/a/much/longer/tmp/w"))
        );
        assert_eq!(
            short.chars(&text("/t/w")),
            text(WORKDIR_PLACEHOLDER).chars().count()
        );
        // Text without the path is counted as it is.
        assert_eq!(short.chars("héllo"), 5);
        assert_eq!(WorkdirSpelling::default().chars("/t/w"), 4);
    }
}
