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
//! times, inode numbers, owners or sizes of folders (under any spelling
//! GNU accepts, and under any expansion of a glob), and no path that
//! leaves the workspace (absolute, `~`, or with `..`) — so the output can
//! depend on nothing but the workspace's files, which memory trees hold
//! without symlinks.
//!
//! A read-only command runs, the first time, in a folder mirroring the
//! in-memory files, inside a Landlock ruleset that forbids every write (so
//! even a wrong classification cannot change the workspace); its outcome is
//! then reused for the same command over the same files (see
//! [`super::reuse`]).

use super::shell_words::{Word, lex};

/// Which options keep a utility read-only and its output a function of
/// the files' names and contents.
///
/// GNU programs accept any unambiguous prefix of a long option (`sort
/// --outp=F` is `--output=F`), so a forbidden long option is matched by
/// every spelling that could reach it: `--NAME` is refused when NAME is a
/// prefix of a forbidden option (an abbreviation) or begins with one.
enum Options {
    /// Any option: the utility has none that writes, reads names from a
    /// file, is random or shows times.
    Any,
    /// Only these: short options (clustered, `-1R`) from `short`, and the
    /// words in `words` as written (`--all`, or find's `-name`).
    Only {
        short: &'static str,
        words: &'static [&'static str],
    },
    /// Any but these: short options holding a letter of `short`, and long
    /// options (named here without `--`) reachable by any spelling.
    Except {
        short: &'static str,
        long: &'static [&'static str],
    },
    /// Options only, no operand (`uniq IN OUT` writes OUT).
    NoOperand,
}

/// The checksum utilities' only option that reads elsewhere: `--check`
/// reads file names from a file.
const CHECKSUM: Options = Options::Except {
    short: "c",
    long: &["check"],
};

/// The utilities a read-only command may use, with their options. Each
/// only reads its operands (and stdin) and prints what it read.
const UTILITIES: &[(&str, Options)] = &[
    ("basename", Options::Any),
    ("cat", Options::Any),
    ("cksum", CHECKSUM),
    ("cmp", Options::Any),
    ("comm", Options::Any),
    ("cut", Options::Any),
    // Context and unified formats (and `pr` pagination) show the files'
    // modification times.
    (
        "diff",
        Options::Except {
            short: "cCuUl",
            long: &["context", "unified", "paginate"],
        },
    ),
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
    ("md5sum", CHECKSUM),
    ("nl", Options::Any),
    ("od", Options::Any),
    ("paste", Options::Any),
    ("printf", Options::Any),
    ("rev", Options::Any),
    ("sha1sum", CHECKSUM),
    ("sha256sum", CHECKSUM),
    // No output file, no temporary folder or helper program, no
    // randomness, no file names read from a file.
    (
        "sort",
        Options::Except {
            short: "oTR",
            long: &[
                "output",
                "temporary-directory",
                "compress-program",
                "random-sort",
                "random-source",
                "sort",
                "files0-from",
            ],
        },
    ),
    ("tac", Options::Any),
    // Not following a file in time.
    (
        "tail",
        Options::Except {
            short: "fFs",
            long: &[
                "follow",
                "retry",
                "pid",
                "sleep-interval",
                "max-unchanged-stats",
            ],
        },
    ),
    ("tr", Options::Any),
    ("true", Options::Any),
    ("uniq", Options::NoOperand),
    // No file names read from a file.
    (
        "wc",
        Options::Except {
            short: "",
            long: &["files0-from"],
        },
    ),
];

impl Word {
    /// Whether the shell may replace this word by names from the
    /// workspace that begin with anything, `-` included: a glob before
    /// any literal character (`*.py` can become `--output=x.py`).
    fn may_become_any_option(&self) -> bool {
        self.globs.first() == Some(&0)
    }

    /// Whether the shell may replace this word by a different option
    /// (`-*`, `--out*`); `--include=*.py` only ever becomes the same
    /// option with another value.
    fn may_change_option(&self) -> bool {
        let Some(&first) = self.globs.first() else {
            return false;
        };
        self.text.starts_with('-') && !self.text[..first].contains('=')
    }

    /// Whether a glob may match `..` (`.*`, `src/.?`): a path component
    /// beginning with `.` that holds a glob.
    fn may_match_parent(&self) -> bool {
        let mut start = 0;
        for component in self.text.split('/') {
            let end = start + component.len();
            if component.starts_with('.') && self.globs.iter().any(|&g| g > start && g < end) {
                return true;
            }
            start = end + 1;
        }
        false
    }
}

/// Whether `command` provably only reads the workspace (see the module
/// doc). `false` means "not known to", not "writes".
pub fn is_read_only(command: &str) -> bool {
    let command = negated(command).unwrap_or(command);
    let Some(commands) = lex(command) else {
        return false;
    };
    // No redirection to a file: a read-only command writes nothing.
    commands
        .iter()
        .all(|simple| simple.targets.is_empty() && reads_only(&simple.words))
}

/// What follows the shell's negation `! ` at the very start of `command`
/// (`! grep -rq TODO docs`, a check that no file holds a word): it only
/// inverts the exit status, so the rest reads what it reads. `None`
/// without one; a `!` anywhere else stays beyond the grammar.
fn negated(command: &str) -> Option<&str> {
    let rest = command.trim_start_matches([' ', '\t']).strip_prefix('!')?;
    rest.starts_with([' ', '\t']).then_some(rest)
}

/// Whether one simple command (its words, quotes removed) is a utility of
/// the list that only reads the workspace, with options that keep it so
/// under any expansion of its globs.
pub(super) fn reads_only(words: &[Word]) -> bool {
    let Some((name, args)) = words.split_first() else {
        return false;
    };
    if !name.globs.is_empty() {
        return false;
    }
    let Some((_, options)) = UTILITIES.iter().find(|(known, _)| *known == name.text) else {
        return false;
    };
    args.iter()
        .all(|a| stays_inside(&a.text) && !a.may_match_parent() && !a.may_change_option())
        && options.allow(args)
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

/// Whether the long option `--NAME[=VALUE]` may be one of `forbidden`
/// under GNU's abbreviations: NAME is empty, a prefix of a forbidden name
/// (`--outp`, `--so`), or begins with one (`--output-x`).
fn may_reach(word: &str, forbidden: &[&str]) -> bool {
    let name = word.trim_start_matches('-');
    let name = name.split_once('=').map_or(name, |(name, _)| name);
    name.is_empty()
        || forbidden
            .iter()
            .any(|f| f.starts_with(name) || name.starts_with(f))
}

impl Options {
    fn allow(&self, args: &[Word]) -> bool {
        // Every word that is or may become an option, wherever it stands:
        // GNU programs take options after operands too, and a `--` may be
        // the value of the option before it, so nothing is skipped.
        let mut options = args
            .iter()
            .filter(|a| a.text.starts_with('-') && a.text.len() > 1 || a.may_become_any_option());
        match self {
            Self::Any => true,
            Self::Only { short, words } => options.all(|a| {
                !a.may_become_any_option()
                    && (words.contains(&a.text.as_str())
                        || !a.text.starts_with("--")
                            && a.text.chars().skip(1).all(|c| short.contains(c)))
            }),
            Self::Except { short, long } => options.all(|a| {
                if a.may_become_any_option() {
                    false
                } else if a.text == "--" {
                    true
                } else if a.text.starts_with("--") {
                    !may_reach(&a.text, long)
                } else {
                    !a.text.chars().skip(1).any(|c| short.contains(c))
                }
            }),
            // `--` would make the words after it operands.
            Self::NoOperand => args
                .iter()
                .all(|a| a.text.starts_with('-') && a.text != "--" && a.globs.is_empty()),
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
            "sort --reverse names",
            "sort -- names",
            "wc -l src/*.py",
            "cat ./*.py",
            "grep -c x ./*",
            "ls src/*.py",
            "sort --key=*.py names",
            "! grep -rq TODO docs",
            " ! grep -q x a.py && ls",
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
            "!grep -q x a.py",
            "! ! grep -q x a.py",
            "ls && ! grep -q x a.py",
            "! rm a.py",
            "grep x a!b",
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
            // Abbreviated long options, globs that may become options,
            // names read from a file, globs that may match `..`.
            "sort --outp=out.txt in.txt",
            "sort --so=random names",
            "sort --ran names",
            "sort -- --o=x names",
            "sort names *",
            "sort names ?x",
            "sort --files0-from=list",
            "wc --files0-from=list",
            "wc --files0=list",
            "wc --f=list",
            "md5sum -c sums",
            "sha256sum --ch sums",
            "tail --fo=name log",
            "ls *",
            "ls -*",
            "uniq -- -in -out",
            "uniq -c -*",
            "cat .*/secret",
            "cat src/.?/x",
            "grep -r x .*",
            "diff -u a.py b.py",
            "diff --uni a.py b.py",
            "c* a.py",
        ] {
            assert!(!is_read_only(command), "{command}");
        }
    }

    /// A forbidden long option of a utility, with the prefixes it may be
    /// spelled by.
    fn forbidden_spellings() -> Vec<(&'static str, String)> {
        let mut spellings = Vec::new();
        for (utility, options) in UTILITIES {
            if let Options::Except { long, .. } = options {
                for name in *long {
                    for end in 1..=name.len() {
                        spellings.push((*utility, format!("--{}", &name[..end])));
                    }
                }
            }
        }
        spellings
    }

    proptest::proptest! {
        /// Every spelling of a forbidden option (any abbreviation, with
        /// or without a value, before or after operands, quoted or not)
        /// keeps the command out of the cache.
        #[test]
        fn no_spelling_of_a_forbidden_option_is_read_only(
            which in 0..forbidden_spellings().len(),
            value in proptest::option::of("[a-z0-9.]{1,8}"),
            before in proptest::collection::vec("[a-z0-9.]{1,6}|-[a-z]?", 0..3),
            after in proptest::collection::vec("[a-z0-9.]{1,6}", 0..3),
            quoted in proptest::bool::ANY,
        ) {
            let (utility, option) = &forbidden_spellings()[which];
            let option = match value {
                Some(value) => format!("{option}={value}"),
                None => option.clone(),
            };
            let option = if quoted { format!("'{option}'") } else { option };
            let command = format!(
                "{utility} {} {option} {}",
                before.join(" "),
                after.join(" ")
            );
            proptest::prop_assert!(!is_read_only(&command), "{}", command);
        }

        /// A word whose glob comes before any literal character may
        /// become any option, so only a utility with no forbidden option
        /// may take it.
        #[test]
        fn leading_globs_only_where_every_option_is_harmless(
            which in 0..UTILITIES.len(),
            glob in "[*?][a-z.*?]{0,5}",
        ) {
            let (utility, options) = &UTILITIES[which];
            let command = format!("{utility} {glob}");
            let harmless = matches!(options, Options::Any);
            proptest::prop_assert!(harmless || !is_read_only(&command), "{}", command);
        }
    }
}
