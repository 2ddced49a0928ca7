//! What tells planning apart in a conversation: the planning tools, the
//! reminder markers, and where the reminder in a text starts.

use super::workdir::WorkdirSpelling;

/// The texts that mark a reminder in any design (all starting with the
/// same byte: see [`PriceRules::reminder_start`]).
pub const REMINDER_MARKERS: [&str; 2] = ["<reminder>", "<system-reminder>"];

/// A searcher for each of [`REMINDER_MARKERS`], built once (setting one up
/// per text cost more than the search).
pub(super) static MARKER_FINDERS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 2]> =
    std::sync::LazyLock::new(|| REMINDER_MARKERS.map(memchr::memmem::Finder::new));

/// Whether `text` can hold `pattern`: it is long enough and holds the
/// pattern's first byte (a scan for one byte is much cheaper than setting
/// up a substring search, and most texts counted hold no workspace path and
/// no reminder marker).
pub(super) fn may_contain(text: &str, pattern: &str) -> bool {
    match pattern.as_bytes().first() {
        None => true,
        Some(first) => text.len() >= pattern.len() && text.as_bytes().contains(first),
    }
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
        // The markers share their first byte: one scan for it settles
        // most texts (tool results hold no reminder).
        let shortest = REMINDER_MARKERS.iter().min_by_key(|m| m.len());
        let tags = if self.pattern_only || !shortest.is_some_and(|m| may_contain(text, m)) {
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
    pub(super) fn reminder_chars(&self, text: &str) -> usize {
        self.reminder_start(text)
            .map_or(0, |start| self.workdir.chars(&text[start..]))
    }
}
