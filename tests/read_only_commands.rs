//! Read-only and contained commands in a workspace held in memory: they
//! run against a mirror of the files and their effects are reused, and
//! none of that may show. Every sequence of tool calls must
//! answer exactly as the same calls on a plain folder (where every command
//! is a real process over the real files).

use crate::support;

use std::path::Path;
use std::sync::Arc;

use agent_eval::agent::tools::Toolbox;
use agent_eval::sandbox::command::{CommandSettings, run_command_in};
use agent_eval::sandbox::workspace::{Workspace, WorkspaceImage};
use proptest::prelude::*;
use serde_json::json;

/// A tool call of the property below.
#[derive(Debug, Clone)]
enum Call {
    Write(&'static str, &'static str),
    Edit(&'static str, &'static str, &'static str),
    Bash(&'static str),
}

const PATHS: [&str; 4] = ["a.py", "b.txt", "src/c.py", "tests/test_a.py"];
const TEXTS: [&str; 3] = ["def a():\n    return None\n", "x = 1\n", "None\nNone\n"];
const COMMANDS: [&str; 16] = [
    "ls",
    "ls -R",
    "ls tests",
    "find . -type f",
    "grep -rn None .",
    "grep -n 'None' a.py",
    "cat a.py | wc -l",
    "cat missing.py",
    "grep -c x *.py",
    "wc -l a.py b.txt src/c.py 2>&1",
    "head -n 1 a.py && tail -n 1 b.txt",
    // Contained: their changes are read back into memory, then reused.
    "echo made > made.txt",
    "mkdir -p out && awk '{print NR\": \"$0}' a.py > out/numbered.txt",
    "chmod +x a.py && stat -c %A a.py",
    "test -x a.py && echo runs",
    // Neither: runs in the folder, which is the workspace from then on.
    "cp a.py copied.py",
];

fn call() -> impl Strategy<Value = Call> {
    prop_oneof![
        (0..PATHS.len(), 0..TEXTS.len()).prop_map(|(p, t)| Call::Write(PATHS[p], TEXTS[t])),
        (0..PATHS.len()).prop_map(|p| Call::Edit(PATHS[p], "None", "0")),
        (0..COMMANDS.len()).prop_map(|c| Call::Bash(COMMANDS[c])),
        (0..COMMANDS.len() - 1).prop_map(|c| Call::Bash(COMMANDS[c])),
    ]
}

fn apply(tools: &Toolbox, call: &Call) -> String {
    let (name, input) = match call {
        Call::Write(path, content) => ("write_file", json!({"path": path, "content": content})),
        Call::Edit(path, old, new) => (
            "edit_file",
            json!({"path": path, "old_text": old, "new_text": new}),
        ),
        Call::Bash(command) => ("bash", json!({"command": command})),
    };
    let answer = match tools.call(name, &input) {
        Some(Ok(text)) => text,
        Some(Err(e)) => format!("Error: {e}"),
        None => "no such tool".into(),
    };
    // Paths in error texts name each workspace's own folder.
    answer.replace(&tools.root().display().to_string(), "{ROOT}")
}

/// The fixture of both workspaces.
fn image() -> WorkspaceImage {
    WorkspaceImage::build(
        None,
        [
            ("a.py", "def a():\n    return None\n"),
            ("src/c.py", "y = None\n"),
        ],
    )
    .unwrap()
}

fn in_memory() -> Toolbox {
    Toolbox::with_workspace(Arc::new(Workspace::create_deferred(&image()).unwrap()))
}

fn on_disk(dir: &Path) -> Toolbox {
    std::fs::write(dir.join("a.py"), "def a():\n    return None\n").unwrap();
    std::fs::create_dir(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/c.py"), "y = None\n").unwrap();
    Toolbox::new(dir).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn reused_outcomes_answer_as_real_processes(calls in proptest::collection::vec(call(), 1..14)) {
        let dir = tempfile::tempdir().unwrap();
        let plain = on_disk(dir.path());
        // Twice over the same kind of workspace: the second run's read-only
        // commands are mostly answered from the first's outcomes.
        for _ in 0..2 {
            let tools = in_memory();
            let fresh = tempfile::tempdir().unwrap();
            let reference = on_disk(fresh.path());
            for call in &calls {
                prop_assert_eq!(apply(&tools, call), apply(&reference, call), "{:?}", call);
            }
        }
        drop(plain);
    }
}

#[test]
fn a_read_only_command_leaves_the_files_in_memory() {
    let tools = in_memory();
    assert_eq!(
        tools
            .call("bash", &json!({"command": "ls"}))
            .unwrap()
            .unwrap(),
        "a.py\nsrc"
    );
    assert!(tools.workspace().in_memory());
    // The folder mirrors the files...
    assert!(tools.root().join("a.py").is_file());
    // ...and an edit in memory reaches it before the next process reads.
    tools
        .call(
            "write_file",
            &json!({"path": "src/new.py", "content": "z\n"}),
        )
        .unwrap()
        .unwrap();
    assert_eq!(
        tools
            .call("bash", &json!({"command": "cat src/new.py src/c.py"}))
            .unwrap()
            .unwrap(),
        "z\ny = None"
    );
    assert!(tools.workspace().in_memory());
    // A command that writes (and is not contained) makes the folder the
    // workspace.
    tools
        .call("bash", &json!({"command": "cp src/new.py made.txt"}))
        .unwrap()
        .unwrap();
    assert!(!tools.workspace().in_memory());
    assert_eq!(
        tools
            .call("read_file", &json!({"path": "made.txt"}))
            .unwrap()
            .unwrap(),
        "z"
    );
    assert_eq!(
        tools
            .call("read_file", &json!({"path": "src/new.py"}))
            .unwrap()
            .unwrap(),
        "z"
    );
}

#[test]
fn the_same_command_over_the_same_files_is_answered_without_a_process() {
    let settings = CommandSettings::new(std::time::Duration::from_secs(30));
    let files = [("notes.txt", "reused outcome 7f3a\n")];
    let first = Workspace::create_deferred(&WorkspaceImage::build(None, files).unwrap()).unwrap();
    let outcome = run_command_in(&first, "cat notes.txt", &settings).unwrap();
    assert_eq!(outcome.stdout, b"reused outcome 7f3a\n");
    // Another run's workspace with the same files: its folder is not even
    // made, because no process runs.
    let second = Workspace::create_deferred(&WorkspaceImage::build(None, files).unwrap()).unwrap();
    let again = run_command_in(&second, "cat notes.txt", &settings).unwrap();
    assert_eq!(again, outcome);
    assert!(!second.root().exists());
    // Different files, a different answer (a real process).
    let other = Workspace::create_deferred(
        &WorkspaceImage::build(None, [("notes.txt", "other\n")]).unwrap(),
    )
    .unwrap();
    let different = run_command_in(&other, "cat notes.txt", &settings).unwrap();
    assert_eq!(different.stdout, b"other\n");
    assert!(other.root().exists());
    // Without reuse, always a process.
    let mut fresh = settings.clone();
    fresh.reuse = false;
    let third = Workspace::create_deferred(&WorkspaceImage::build(None, files).unwrap()).unwrap();
    assert_eq!(
        run_command_in(&third, "cat notes.txt", &fresh).unwrap(),
        outcome
    );
    assert!(third.root().exists());
}

#[test]
fn a_read_only_command_cannot_write_even_if_it_tried() {
    if !agent_eval::sandbox::landlock::status().is_full() {
        support::skip_unless_required(&agent_eval::sandbox::landlock::status().to_string());
        return;
    }
    // `find -fprint` writes a file: not read-only by the classification,
    // so run it through the read-only ruleset directly.
    let dir = tempfile::tempdir().unwrap();
    let ruleset = agent_eval::sandbox::landlock::read_only_ruleset()
        .unwrap()
        .unwrap();
    let invocation = agent_eval::sandbox::process::Invocation {
        ruleset: Some(&ruleset),
        ..Default::default()
    };
    let limits = agent_eval::sandbox::process::Limits {
        timeout: std::time::Duration::from_secs(30),
        capture_limit: 1 << 16,
        cancel: agent_eval::cancel::CancelToken::new(),
        sandbox: true,
        containment: None,
    };
    let out = agent_eval::sandbox::process::run_invocation(
        dir.path(),
        "echo x > written.txt; find . -fprint listed.txt",
        &invocation,
        &limits,
    )
    .unwrap();
    assert_ne!(out.exit_code, Some(0));
    assert!(!dir.path().join("written.txt").exists());
    assert!(!dir.path().join("listed.txt").exists());
}
