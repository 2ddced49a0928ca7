//! `agent-eval init`: a starting point that passes.
//!
//! Writes a scripted scenario (an exact replay with exact expectations), a
//! simulated scenario (a matrix with a paired comparison) and the fixture
//! folder they share, so a new user has two files that run green and show
//! both kinds of model before writing their own. Nothing is overwritten:
//! an existing file is an error naming it, and no file is written at all.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Why the scaffold could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ScaffoldError {
    #[error("{path}: already exists; init writes nothing over existing files")]
    Exists { path: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// The files `init` writes, relative to the target folder.
pub const FILES: &[(&str, &str)] = &[
    // Beside the scenarios: without a `.git` above them, a fixture must
    // stay inside the scenario's own folder.
    ("scenarios/fixtures/greeter/greet.py", GREET_PY),
    ("scenarios/greet_scripted.yaml", SCRIPTED),
    ("scenarios/greet_simulated.yaml", SIMULATED),
];

/// Writes the scaffold under `dir` and returns the paths written.
pub fn scaffold(dir: &Path) -> Result<Vec<PathBuf>, ScaffoldError> {
    let targets: Vec<(PathBuf, &str)> = FILES
        .iter()
        .map(|(relative, content)| (dir.join(relative), *content))
        .collect();
    // Check everything first: a half-written scaffold helps nobody.
    for (path, _) in &targets {
        if fs::symlink_metadata(path).is_ok() {
            return Err(ScaffoldError::Exists { path: path.clone() });
        }
    }
    for (path, content) in &targets {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|source| ScaffoldError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        // `create_new` so a file that appeared since the check is not
        // clobbered either.
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .and_then(|mut file| io::Write::write_all(&mut file, content.as_bytes()))
            .map_err(|source| ScaffoldError::Io {
                path: path.clone(),
                source,
            })?;
    }
    Ok(targets.into_iter().map(|(path, _)| path).collect())
}

const GREET_PY: &str = "def greet(name):\n    return \"Hello, \" + name\n";

const SCRIPTED: &str = r#"# A scripted scenario: the model's responses are written out, so the run
# is an exact replay and the expectations can be exact. Watch it with
#   agent-eval replay scenarios/greet_scripted.yaml
name: greet-scripted
task: |
  Improve greet.py: add type hints, then a docstring.
workspace:
  fixture: fixtures/greeter         # copied into every run's workspace
steps:
  - text: Add type hints
    check: {file: greet.py, contains: "def greet(name: str) -> str:"}
  - text: Add a docstring
    check: {file: greet.py, contains: '"""Say hello."""'}
agent:
  nag: {threshold: 2, placement: append}
model:
  script:
    - tool: todo
      input: {items: [{id: "1", text: Add type hints, status: in_progress},
                      {id: "2", text: Add a docstring, status: pending}]}
    - tool: edit_file
      input: {path: greet.py, old_text: "def greet(name):", new_text: "def greet(name: str) -> str:"}
    - {tool: read_file, input: {path: greet.py}}
    - tool: edit_file
      input: {path: greet.py, old_text: "-> str:\n", new_text: "-> str:\n    \"\"\"Say hello.\"\"\"\n"}
    - text: Both steps are done.
expect:
  - steps_completed: 2
  - stop: end_turn
  - turns: 5
  - reminders_at: [3, 4]      # threshold 2: after turns 3 and 4 (no todo call since turn 1)
  - rejected_todo_updates: 0
"#;

const SIMULATED: &str = r#"# A simulated scenario: a seeded model of a drifting LLM does each step
# through its `do` calls. The matrix runs every seed with and without the
# todo tool, and the expectation compares the two on the same seeds.
#   agent-eval run scenarios/greet_simulated.yaml
name: greet-simulated
task: |
  Improve greet.py in four steps:
  1. Add type hints
  2. Add a docstring
  3. Add a main guard
  4. Add a farewell function
workspace:
  fixture: fixtures/greeter
steps:
  - text: Add type hints
    check: {file: greet.py, contains: "def greet(name: str) -> str:"}
    do:
      - {tool: read_file, input: {path: greet.py}}
      - {tool: edit_file, input: {path: greet.py, old_text: "def greet(name):", new_text: "def greet(name: str) -> str:"}}
  - text: Add a docstring
    check: {file: greet.py, contains: '"""Say hello."""'}
    do:
      - {tool: edit_file, input: {path: greet.py, old_text: "-> str:\n", new_text: "-> str:\n    \"\"\"Say hello.\"\"\"\n"}}
  - text: Add a main guard
    check: {file: greet.py, contains: "if __name__ == \"__main__\":"}
    do:
      - {tool: edit_file, input: {path: greet.py, old_text: "+ name\n", new_text: "+ name\n\n\nif __name__ == \"__main__\":\n    print(greet(\"world\"))\n"}}
  - text: Add a farewell function
    check: {file: greet.py, contains: "def farewell("}
    do:
      - {tool: edit_file, input: {path: greet.py, old_text: "\n\nif __name__", new_text: "\n\ndef farewell(name: str) -> str:\n    return \"Bye, \" + name\n\n\nif __name__"}}
agent:
  # The reminder goes after the tool results, where a real API accepts it
  # (the reference's default, prepend, counts as a protocol violation).
  nag: {threshold: 3, placement: append}
model:
  simulate: {}
runs:
  todo: [true, false]
  seeds: 50
expect:
  - where: {todo: true}
    completion_rate: {at_least: 0.5}
  - compare: {a: {todo: true}, b: {todo: false}}
    completion_rate_diff: {at_least: 0.0}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_every_file_once_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let written = scaffold(dir.path()).unwrap();
        assert_eq!(written.len(), FILES.len());
        for path in &written {
            assert!(path.is_file(), "{}", path.display());
        }
        let before = fs::read_to_string(&written[0]).unwrap();
        let err = scaffold(dir.path()).unwrap_err();
        assert!(matches!(err, ScaffoldError::Exists { .. }), "{err}");
        assert_eq!(fs::read_to_string(&written[0]).unwrap(), before);
    }
}
