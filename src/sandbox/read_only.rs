//! Commands that only read the workspace, and the reuse of their results.
//!
//! Most shell calls a model makes, and most `command:` checks, only read:
//! `ls tests`, `grep -n 'None' inventory.py`, `cat a.py | wc -l`,
//! `grep -q def b.py`. Such a command's result is a function of the files
//! it reads; when thousands of episodes run the same command over the same
//! files, starting a process each time is work without information. A
//! command is **read-only** here when a conservative reading of its text
//! proves it: a pipeline or list (`|`, `&&`, `||`, `;`) of utilities from a
//! fixed list, with literal words (quotes allowed; no `$`, backquotes,
//! globs over brackets, braces, `~`, redirections but `2>&1` and
//! `2>/dev/null`), no option that writes, follows a file in time, or shows
//! times, inode numbers, owners or sizes of folders, and no path that
//! leaves the workspace (absolute, `~`, or with `..`) — so the output can
//! depend on nothing but the workspace's files, which memory trees hold
//! without symlinks.
//!
//! A read-only command runs, the first time, in a folder mirroring the
//! in-memory files, inside a Landlock ruleset that forbids every write (so
//! even a wrong classification cannot change the workspace); its outcome is
//! then kept under a digest of the command, the files and the settings,
//! and the next call with the same key gets that outcome without a
//! process. Timeouts, cancellations and errors are never kept. The cache
//! is bounded ([`BUDGET`] bytes; it is emptied when full), so only speed
//! depends on it, never a result.

use std::collections::HashMap;
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use super::outcome::{BashOutcome, CommandSettings};

/// Bytes of outcomes kept at most (the cache is emptied when a new one
/// would pass it).
pub const BUDGET: usize = 8 << 20;

/// Outcomes larger than this are not kept (a listing of a big tree is
/// cheap to redo next to what it would hold in memory).
const LARGEST_KEPT: usize = 256 << 10;

/// Which options keep a utility read-only and its output a function of
/// the files' names and contents.
enum Options {
    /// Any option.
    Any,
    /// Only these: short options (clustered, `-1R`) from `short`, and the
    /// words in `words` as written (`--all`, or find's `-name`).
    Only {
        short: &'static str,
        words: &'static [&'static str],
    },
    /// Any but these: short options holding a letter of `short`, and long
    /// options beginning with one of `long` (`--follow=name`).
    Except {
        short: &'static str,
        long: &'static [&'static str],
    },
    /// Options only, no operand (`uniq IN OUT` writes OUT).
    NoOperand,
}

/// The utilities a read-only command may use, with their options. Each
/// only reads its operands (and stdin) and prints what it read.
const UTILITIES: &[(&str, Options)] = &[
    ("basename", Options::Any),
    ("cat", Options::Any),
    ("cksum", Options::Any),
    ("cmp", Options::Any),
    ("comm", Options::Any),
    ("cut", Options::Any),
    ("diff", Options::Any),
    ("dirname", Options::Any),
    ("echo", Options::Any),
    ("egrep", Options::Any),
    ("false", Options::Any),
    ("fgrep", Options::Any),
    // Tests of names and types only: no actions, no times, no sizes.
    (
        "find",
        Options::Only {
            short: "",
            words: &[
                "-name",
                "-iname",
                "-type",
                "-path",
                "-ipath",
                "-wholename",
                "-iwholename",
                "-maxdepth",
                "-mindepth",
                "-print",
                "-print0",
                "-o",
                "-a",
                "-or",
                "-and",
                "-not",
                "-empty",
                "-regex",
                "-iregex",
                "-depth",
                "-prune",
                "-true",
                "-false",
                "-quit",
            ],
        },
    ),
    ("grep", Options::Any),
    ("head", Options::Any),
    // Names only: no times, owners, inodes, sizes or directory order.
    (
        "ls",
        Options::Only {
            short: "aA1RFprdmxXvQCNh",
            words: &[
                "--all",
                "--almost-all",
                "--recursive",
                "--classify",
                "--reverse",
                "--directory",
            ],
        },
    ),
    ("md5sum", Options::Any),
    ("nl", Options::Any),
    ("od", Options::Any),
    ("paste", Options::Any),
    ("printf", Options::Any),
    ("rev", Options::Any),
    ("sha1sum", Options::Any),
    ("sha256sum", Options::Any),
    // No output file, no temporary folder, no randomness.
    (
        "sort",
        Options::Except {
            short: "oTR",
            long: &[
                "--output",
                "--temporary-directory",
                "--compress-program",
                "--random",
                "--sort",
            ],
        },
    ),
    ("tac", Options::Any),
    // Not following a file in time.
    (
        "tail",
        Options::Except {
            short: "fFs",
            long: &["--follow", "--retry", "--pid", "--sleep-interval"],
        },
    ),
    ("tr", Options::Any),
    ("true", Options::Any),
    ("uniq", Options::NoOperand),
    ("wc", Options::Any),
];

/// Redirections that write nowhere but a pipe or `/dev/null`.
const REDIRECTIONS: [&str; 2] = ["2>&1", "2>/dev/null"];

/// Characters an unquoted word may hold (globs `*` and `?` included:
/// their expansion is a listing of the workspace).
fn plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "._,:=+@%/-*?^".contains(c)
}

/// Whether `command` provably only reads the workspace (see the module
/// doc). `false` means "not known to", not "writes".
pub fn is_read_only(command: &str) -> bool {
    let Some(commands) = lex(command) else {
        return false;
    };
    commands.iter().all(|words| {
        let Some((name, args)) = words.split_first() else {
            return false;
        };
        let Some((_, options)) = UTILITIES.iter().find(|(known, _)| known == name) else {
            return false;
        };
        args.iter().all(|a| stays_inside(a)) && options.allow(args)
    })
}

/// Splits `command` into simple commands (lists of words, quotes removed);
/// `None` for anything beyond the small grammar of the module doc.
fn lex(command: &str) -> Option<Vec<Vec<String>>> {
    let mut commands = vec![Vec::new()];
    let mut word: Option<String> = None;
    let mut chars = command.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            ' ' | '\t' => {
                if let Some(w) = word.take() {
                    commands.last_mut()?.push(w);
                }
            }
            '|' | ';' | '&' => {
                if let Some(w) = word.take() {
                    commands.last_mut()?.push(w);
                }
                let doubled = chars.next_if(|&(_, next)| next == c).is_some();
                if c == '&' && !doubled || c == ';' && doubled {
                    return None;
                }
                commands.push(Vec::new());
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        (_, '\'') => break,
                        (_, c) => w.push(c),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        (_, '"') => break,
                        (_, '$' | '`' | '\\' | '!') => return None,
                        (_, c) => w.push(c),
                    }
                }
            }
            '2' if word.is_none() => {
                let rest = &command[at..];
                let redirection = REDIRECTIONS.iter().find(|r| {
                    rest.strip_prefix(**r).is_some_and(|after| {
                        after.is_empty() || after.starts_with([' ', '\t', '|', ';', '&'])
                    })
                });
                match redirection {
                    Some(r) => {
                        // Skip the rest of the redirection's characters.
                        for _ in 1..r.len() {
                            chars.next();
                        }
                    }
                    None => word.get_or_insert_with(String::new).push(c),
                }
            }
            c if plain(c) => word.get_or_insert_with(String::new).push(c),
            _ => return None,
        }
    }
    if let Some(w) = word.take() {
        commands.last_mut()?.push(w);
    }
    // A trailing `;` ends the last command; any other empty command is
    // beyond the grammar.
    if commands.len() > 1 && commands.last().is_some_and(Vec::is_empty) {
        commands.pop();
    }
    Some(commands)
}

/// Whether a word names nothing outside the workspace: not absolute, no
/// home folder, no `..`, and no option value that is (`--file=/x`, `-f/x`).
fn stays_inside(word: &str) -> bool {
    if word.starts_with(['/', '~']) || word.contains("..") {
        return false;
    }
    if word.starts_with('-') && word.contains('/') {
        return match word.split_once('=') {
            Some((option, value)) => !option.contains('/') && !value.starts_with(['/', '~']),
            None => false,
        };
    }
    true
}

impl Options {
    fn allow(&self, args: &[String]) -> bool {
        let mut options = args.iter().filter(|a| a.starts_with('-') && a.len() > 1);
        match self {
            Self::Any => true,
            Self::Only { short, words } => options.all(|a| {
                words.contains(&a.as_str())
                    || !a.starts_with("--") && a.chars().skip(1).all(|c| short.contains(c))
            }),
            Self::Except { short, long } => options.all(|a| {
                if a.starts_with("--") {
                    !long.iter().any(|l| a.starts_with(l))
                } else {
                    !a.chars().skip(1).any(|c| short.contains(c))
                }
            }),
            Self::NoOperand => args.iter().all(|a| a.starts_with('-')),
        }
    }
}

/// The key an outcome is kept under: the command, the files (their
/// digest) and every setting that could change the outcome.
pub fn key(command: &str, files: &[u8; 32], settings: &CommandSettings) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(b"agent-eval read-only command 1\0");
    hasher.update((command.len() as u64).to_le_bytes());
    hasher.update(command.as_bytes());
    hasher.update(files);
    hasher.update(settings.timeout.as_nanos().to_le_bytes());
    hasher.update((settings.capture_limit as u64).to_le_bytes());
    hasher.update([u8::from(settings.sandbox)]);
    hasher.finalize().into()
}

#[derive(Default)]
struct Cache {
    outcomes: HashMap<[u8; 32], BashOutcome>,
    bytes: usize,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

fn cache() -> std::sync::MutexGuard<'static, Option<Cache>> {
    CACHE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The outcome kept under `key`, if any.
pub fn lookup(key: &[u8; 32]) -> Option<BashOutcome> {
    let cache = cache();
    let outcome = cache.as_ref()?.outcomes.get(key)?;
    Some(outcome.clone())
}

/// Keeps `outcome` under `key` (unless it is too large to be worth it).
pub fn store(key: [u8; 32], outcome: &BashOutcome) {
    let size = outcome.stdout.len() + outcome.stderr.len() + 64;
    if size > LARGEST_KEPT {
        return;
    }
    let mut cache = cache();
    let cache = cache.get_or_insert_with(Cache::default);
    if cache.bytes + size > BUDGET {
        cache.outcomes.clear();
        cache.bytes = 0;
    }
    if cache.outcomes.insert(key, outcome.clone()).is_none() {
        cache.bytes += size;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_commands_are_read_only() {
        for command in [
            "ls",
            "ls -R",
            "ls tests",
            "ls -la",
            "grep -n 'None' inventory.py",
            "grep -rn \"def total\" .",
            "grep -q 'def test_total' tests/test_inventory.py",
            "cat inventory.py | wc -l",
            "cat a.py|grep x",
            "find . -name '*.py' -type f",
            "head -n 20 inventory.py",
            "tail -n 5 inventory.py",
            "sort names.txt | uniq -c",
            "grep -c x *.py",
            "ls tests && cat tests/test_inventory.py",
            "grep x a.py || echo missing",
            "ls; wc -l inventory.py;",
            "grep --include=*.py -rn x .",
            "grep -rn x src 2>/dev/null",
            "cat nope 2>&1 | head -1",
            "diff a.py b.py",
            "echo done",
        ] {
            let expected = command != "ls -la";
            assert_eq!(is_read_only(command), expected, "{command}");
        }
    }

    #[test]
    fn anything_else_is_not() {
        for command in [
            "",
            "pwd",
            "python3 -c 'print(1)'",
            "echo $HOME",
            "echo \"$HOME\"",
            "cat `ls`",
            "cat $(ls)",
            "ls > out.txt",
            "grep x a.py > out",
            "cat < a.py",
            "ls &",
            "sleep 1 & ls",
            "cat /etc/passwd",
            "cat '/etc/passwd'",
            "cat ~/.ssh/id_rsa",
            "cat ../other/file",
            "grep -f/etc/passwd a",
            "grep --file=/etc/passwd a",
            "ls -l",
            "ls -i",
            "ls -t",
            "ls -U",
            "ls --full-time",
            "find . -delete",
            "find . -exec rm {} ;",
            "find . -newer a.py",
            "find . -mtime -1",
            "find . -size +1k",
            "tail -f log.txt",
            "tail --follow=name log",
            "sort -o out.txt in.txt",
            "sort -R names",
            "sort --random-sort names",
            "uniq in.txt out.txt",
            "rm -f a.py",
            "touch a.py",
            "sed -i s/a/b/ a.py",
            "FOO=1 ls",
            "ls ;; ls",
            "; ls",
            "ls | | wc",
            "ls\nrm a",
            "cat 'unterminated",
            "grep [abc] a.py",
            "ls {a,b}",
            "ls # comment",
            "echo \"a\\b\"",
            "/bin/ls",
            "./script.sh",
            "ls 1>/dev/null",
        ] {
            assert!(!is_read_only(command), "{command}");
        }
    }

    #[test]
    fn keys_differ_by_command_files_and_settings() {
        let settings = CommandSettings::new(std::time::Duration::from_secs(120));
        let files = [7u8; 32];
        let base = key("ls", &files, &settings);
        assert_eq!(base, key("ls", &files, &settings));
        assert_ne!(base, key("ls -R", &files, &settings));
        assert_ne!(base, key("ls", &[8u8; 32], &settings));
        let mut other = settings.clone();
        other.sandbox = false;
        assert_ne!(base, key("ls", &files, &other));
        let mut other = settings.clone();
        other.timeout = std::time::Duration::from_secs(1);
        assert_ne!(base, key("ls", &files, &other));
    }

    #[test]
    fn the_cache_keeps_and_returns_outcomes() {
        let outcome = BashOutcome {
            exit_code: Some(1),
            stdout: b"out".to_vec(),
            stderr: b"err".to_vec(),
        };
        let key = [42u8; 32];
        store(key, &outcome);
        assert_eq!(lookup(&key), Some(outcome));
        assert_eq!(lookup(&[43u8; 32]), None);
        let huge = BashOutcome {
            exit_code: Some(0),
            stdout: vec![b'x'; LARGEST_KEPT + 1],
            stderr: Vec::new(),
        };
        store([44u8; 32], &huge);
        assert_eq!(lookup(&[44u8; 32]), None);
    }
}
