//! The one reading of a shell command that both reuse classifiers share:
//! [`super::read_only`] (commands that only read the workspace) and
//! [`super::contained`] (commands that also write, only inside it).
//!
//! The grammar is deliberately small: a pipeline or list (`|`, `&&`, `||`,
//! `;`) of simple commands; words of plain characters ([`plain`]), single
//! quotes, and double quotes without `$`, backquotes, `\` or `!`; the
//! redirections [`REDIRECTIONS`] (to a pipe or nowhere), and `> FILE` or
//! `>> FILE` after a blank. Anything else is beyond it: [`lex`] answers
//! `None`, which both classifiers read as "not known to be safe". The
//! parser only splits; what a word may say is each classifier's question.

/// Redirections that write nowhere but a pipe or `/dev/null`.
pub(super) const REDIRECTIONS: [&str; 2] = ["2>&1", "2>/dev/null"];

/// Characters an unquoted word may hold (globs `*` and `?` included:
/// their expansion is a listing of the workspace).
pub(super) fn plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "._,:=+@%/-*?^".contains(c)
}

/// One word of a simple command, quotes removed.
#[derive(Debug, Default)]
pub(super) struct Word {
    pub(super) text: String,
    /// Byte offsets in `text` of the glob characters the shell expands
    /// (unquoted `*` and `?`).
    pub(super) globs: Vec<usize>,
}

/// One simple command: its words (quotes removed) and the files its
/// output is redirected to (`> FILE`, `>> FILE`).
#[derive(Debug, Default)]
pub(super) struct Simple {
    pub(super) words: Vec<Word>,
    pub(super) targets: Vec<String>,
}

impl Simple {
    /// The words' texts, quotes removed.
    pub(super) fn texts(&self) -> Vec<String> {
        self.words.iter().map(|w| w.text.clone()).collect()
    }

    /// Whether a word held an unquoted `*` or `?` (a glob).
    pub(super) fn globs(&self) -> bool {
        self.words.iter().any(|w| !w.globs.is_empty())
    }
}

/// A word being read, and whether it is a redirection's target.
#[derive(Default)]
struct Pending {
    word: Option<Word>,
    target: bool,
}

impl Pending {
    fn get(&mut self) -> &mut Word {
        self.word.get_or_insert_with(Word::default)
    }

    /// Ends the word, if one was started, adding it to `simple`.
    fn end(&mut self, simple: &mut Simple) {
        if let Some(word) = self.word.take() {
            if std::mem::take(&mut self.target) {
                simple.targets.push(word.text);
            } else {
                simple.words.push(word);
            }
        }
    }
}

/// Splits `command` into simple commands, each with at least one word;
/// `None` for anything beyond the grammar of the module doc.
pub(super) fn lex(command: &str) -> Option<Vec<Simple>> {
    let mut commands = vec![Simple::default()];
    let mut word = Pending::default();
    let mut chars = command.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let simple = commands.last_mut()?;
        match c {
            ' ' | '\t' if !(word.target && word.word.is_none()) => word.end(simple),
            ' ' | '\t' => {}
            '|' | ';' | '&' => {
                if word.target && word.word.is_none() {
                    return None;
                }
                word.end(simple);
                let doubled = chars.next_if(|&(_, next)| next == c).is_some();
                if c == '&' && !doubled || c == ';' && doubled {
                    return None;
                }
                commands.push(Simple::default());
            }
            '>' => {
                // `>` or `>>`, after a blank, and a word follows.
                if word.word.is_some() || word.target {
                    return None;
                }
                chars.next_if(|&(_, next)| next == '>');
                word.target = true;
            }
            '\'' => {
                let w = word.get();
                loop {
                    match chars.next()? {
                        (_, '\'') => break,
                        (_, c) => w.text.push(c),
                    }
                }
            }
            '"' => {
                let w = word.get();
                loop {
                    match chars.next()? {
                        (_, '"') => break,
                        (_, '$' | '`' | '\\' | '!') => return None,
                        (_, c) => w.text.push(c),
                    }
                }
            }
            '2' if word.word.is_none() && !word.target => {
                let rest = &command[at..];
                let redirection = REDIRECTIONS.iter().find(|r| {
                    rest.strip_prefix(**r).is_some_and(|after| {
                        after.is_empty() || after.starts_with([' ', '\t', '|', ';', '&'])
                    })
                });
                match redirection {
                    Some(r) => {
                        for _ in 1..r.len() {
                            chars.next();
                        }
                    }
                    None => word.get().text.push(c),
                }
            }
            c if plain(c) => {
                let w = word.get();
                if matches!(c, '*' | '?') {
                    w.globs.push(w.text.len());
                }
                w.text.push(c);
            }
            _ => return None,
        }
    }
    if word.target && word.word.is_none() {
        return None;
    }
    word.end(commands.last_mut()?);
    if commands.len() > 1 && commands.last().is_some_and(|s| s.words.is_empty()) {
        commands.pop();
    }
    commands
        .iter()
        .all(|s| !s.words.is_empty())
        .then_some(commands)
}
