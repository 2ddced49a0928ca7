//! Scoring steps against the workspace: a step is completed when its check
//! holds on the files at the end of the run, whatever the model claimed.

use std::fs;
use std::path::Path;

use crate::agent::tools::path::resolve_in_workspace;
use crate::agent::tools::{BASH_TIMEOUT, run_command};
use crate::scenario::Check;

/// Whether `check` holds in the workspace at `root` (canonical). A missing
/// or unreadable file fails `contains`, `not_contains` and `equals`.
pub fn holds(check: &Check, root: &Path) -> bool {
    let read = |file: &str| {
        resolve_in_workspace(root, file)
            .ok()
            .and_then(|p| fs::read(p).ok())
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    };
    match check {
        Check::Contains { file, contains } => {
            read(file.as_str()).is_some_and(|t| t.contains(contains.as_str()))
        }
        Check::NotContains { file, not_contains } => {
            read(file.as_str()).is_some_and(|t| !t.contains(not_contains.as_str()))
        }
        Check::Equals { file, equals } => read(file.as_str()).is_some_and(|t| t == *equals),
        Check::Exists { file, exists } => {
            let present = resolve_in_workspace(root, file.as_str())
                .map(|p| p.exists())
                .unwrap_or(false);
            present == *exists
        }
        Check::Command { command, exit_code } => run_command(root, command, BASH_TIMEOUT)
            .is_ok_and(|outcome| outcome.exit_code == Some(*exit_code)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::WorkspacePath;

    fn file(path: &str) -> WorkspacePath {
        WorkspacePath::parse(path).unwrap()
    }

    #[test]
    fn every_check_kind() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::write(root.join("a.txt"), "hello world").unwrap();
        let cases = [
            (
                Check::Contains {
                    file: file("a.txt"),
                    contains: "world".into(),
                },
                true,
            ),
            (
                Check::Contains {
                    file: file("missing"),
                    contains: "".into(),
                },
                false,
            ),
            (
                Check::NotContains {
                    file: file("a.txt"),
                    not_contains: "bye".into(),
                },
                true,
            ),
            (
                Check::NotContains {
                    file: file("missing"),
                    not_contains: "bye".into(),
                },
                false,
            ),
            (
                Check::Equals {
                    file: file("a.txt"),
                    equals: "hello world".into(),
                },
                true,
            ),
            (
                Check::Equals {
                    file: file("a.txt"),
                    equals: "hello".into(),
                },
                false,
            ),
            (
                Check::Exists {
                    file: file("a.txt"),
                    exists: true,
                },
                true,
            ),
            (
                Check::Exists {
                    file: file("b.txt"),
                    exists: false,
                },
                true,
            ),
            (
                Check::Command {
                    command: "grep -q hello a.txt".into(),
                    exit_code: 0,
                },
                true,
            ),
            (
                Check::Command {
                    command: "exit 3".into(),
                    exit_code: 3,
                },
                true,
            ),
            (
                Check::Command {
                    command: "exit 3".into(),
                    exit_code: 0,
                },
                false,
            ),
        ];
        for (check, expected) in cases {
            assert_eq!(holds(&check, &root), expected, "{check}");
        }
    }
}
