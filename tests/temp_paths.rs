//! Output never depends on the temp folder's path: the run logs and the
//! replays of a run whose tool results name its workspace (a read of a
//! missing file answers with Python's error and the absolute path) read
//! the same under two different temp folders, with `<workspace>` where
//! the random folder was.

use crate::support;
use std::path::Path;

const SCENARIO: &str = "\
name: names-its-workspace
task: Read notes.txt, which does not exist, then stop.
steps:
  - text: Nothing to do
    check: {file: notes.txt, exists: false}
agent:
  todo: false
model:
  script:
    - {tool: read_file, input: {path: notes.txt}}
    - {tool: bash, input: {command: pwd}}
    - text: Done.
";

/// Runs `args` with `TMPDIR` set to `temp`, in `dir`; returns stdout.
fn agent_eval(dir: &Path, temp: &Path, args: &[&str]) -> String {
    let out = support::agent_eval_command()
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", temp)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    stdout
}

/// The run log and the text and JSON replays under the temp folder `temp`.
fn outputs(dir: &Path, temp: &Path, logs: &str) -> Vec<String> {
    std::fs::create_dir_all(temp).unwrap();
    agent_eval(dir, temp, &["run", "s.yaml", "-q", "--log-dir", logs]);
    let log = std::fs::read_to_string(dir.join(logs).join("names-its-workspace.jsonl")).unwrap();
    vec![
        log,
        agent_eval(dir, temp, &["replay", "s.yaml"]),
        agent_eval(dir, temp, &["replay", "s.yaml", "--format", "json"]),
    ]
}

#[test]
fn logs_and_replays_read_the_same_under_any_temp_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.yaml"), SCENARIO).unwrap();
    let short = dir.path().join("t");
    let long = dir
        .path()
        .join("a-much-longer-temporary-folder-name/inside");
    let first = outputs(dir.path(), &short, "logs-short");
    let second = outputs(dir.path(), &long, "logs-long");
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(a, b);
        assert!(a.contains("<workspace>"), "{a}");
        assert!(!a.contains("agent-eval-"), "{a}");
    }
}
