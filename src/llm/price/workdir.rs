//! The workspace path read as the fixed placeholder `{WORKDIR}`: each
//! spelling of it (as given, resolved through symlinks) with its searcher
//! built once, and the cheap scans that settle most texts without a search.

use super::measured::{PGID, PGID_FINDER, WALL_TIME, WALL_TIME_FINDER};
use super::measured::{without_pgids, without_wall_times};

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
    /// The first byte of each spelling: a text holding none of them holds
    /// no spelling.
    spelling_first_bytes: Vec<u8>,
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
        let mut spelling_first_bytes: Vec<u8> = spellings
            .iter()
            .filter_map(|s| s.as_bytes().first().copied())
            .collect();
        spelling_first_bytes.sort_unstable();
        spelling_first_bytes.dedup();
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
            spelling_first_bytes,
        }
    }

    /// The first byte of each spelling of the path (none without one).
    pub(super) fn spelling_first_bytes(&self) -> &[u8] {
        &self.spelling_first_bytes
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
        if holds_measured(bytes) {
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
    pub(super) fn replaced(&self, text: &str) -> Option<String> {
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

/// Whether `bytes` hold a measured wall time's or process group's head:
/// searched for only when one of their first bytes is there (the texts
/// that get this far hold the workspace path's first byte, most of them
/// neither of these).
fn holds_measured(bytes: &[u8]) -> bool {
    let (wall, pgid) = (WALL_TIME.0.as_bytes(), PGID.as_bytes());
    match (wall.first(), pgid.first()) {
        (Some(&w), Some(&p)) if memchr::memchr2(w, p, bytes).is_none() => false,
        _ => WALL_TIME_FINDER.find(bytes).is_some() || PGID_FINDER.find(bytes).is_some(),
    }
}

/// One spelling of the workspace path, with its searcher built once (a
/// search set up per text cost more than the search).
#[derive(Debug, Clone)]
pub(super) struct Spelling {
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

/// `workdir` resolved through symlinks, when that spells it differently:
/// its folder resolved once per process (every run's workspace sits in the
/// same temporary folder, and resolving costs a system call per path
/// component, a visible part of a run), then its own name (a workspace is a
/// folder agent-eval made, never a symlink). `None` when the folder is
/// already resolved or cannot be.
pub(super) fn resolve(workdir: &std::path::Path) -> Option<std::path::PathBuf> {
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
