//! Commands that provably only read the workspace.
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
//! then reused for the same command over the same files (see
//! [`super::reuse`]).

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
pub(super) const REDIRECTIONS: [&str; 2] = ["2>&1", "2>/dev/null"];

/// Characters an unquoted word may hold (globs `*` and `?` included:
/// their expansion is a listing of the workspace).
pub(super) fn plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "._,:=+@%/-*?^".contains(c)
}

/// Whether `command` provably only reads the workspace (see the module
/// doc). `false` means "not known to", not "writes".
pub fn is_read_only(command: &str) -> bool {
    let Some(commands) = lex(command) else {
        return false;
    };
    commands.iter().all(|words| reads_only(words))
}

/// Whether one simple command (its words, quotes removed) is a utility of
/// the list that only reads the workspace, with options that keep it so.
pub(super) fn reads_only(words: &[String]) -> bool {
    let Some((name, args)) = words.split_first() else {
        return false;
    };
    let Some((_, options)) = UTILITIES.iter().find(|(known, _)| known == name) else {
        return false;
    };
    args.iter().all(|a| stays_inside(a)) && options.allow(args)
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
pub(super) fn stays_inside(word: &str) -> bool {
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
}
