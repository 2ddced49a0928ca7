//! The test suite's own rules, checked on its source:
//!
//! - every file of `tests/` is built: a module of `tests/tests.rs` (the one
//!   integration-test crate) or a `[[test]]` of Cargo.toml. Automatic test
//!   discovery is off (`autotests = false`), so a file added beside the
//!   others and declared nowhere would otherwise never run;
//! - every process a test starts goes through `support::command` or
//!   `support::agent_eval_command`, which clear the CI engine's variables:
//!   no `Command::new` outside `tests/support/`.

use crate::support;
use std::path::{Path, PathBuf};

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// Files of `tests/` neither declared as a module of `tests.rs` nor named
/// as a `[[test]]` path in `manifest`.
fn undeclared(tests_rs: &str, manifest: &str, files: &[String]) -> Vec<String> {
    files
        .iter()
        .filter(|file| {
            let module = file.trim_end_matches(".rs");
            let declared = tests_rs
                .lines()
                .any(|line| line.trim() == format!("mod {module};"));
            let own_binary = manifest.contains(&format!("path = \"tests/{file}\""));
            *file != "tests.rs" && !declared && !own_binary
        })
        .cloned()
        .collect()
}

#[test]
fn every_test_file_is_a_module_of_the_one_crate() {
    let dir = tests_dir();
    let tests_rs = std::fs::read_to_string(dir.join("tests.rs")).expect("tests/tests.rs");
    let manifest = std::fs::read_to_string(dir.join("../Cargo.toml")).expect("Cargo.toml");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".rs"))
        .collect();
    files.sort();
    assert!(files.len() > 50, "found only {} files", files.len());
    let missing = undeclared(&tests_rs, &manifest, &files);
    assert!(
        missing.is_empty(),
        "test files built by nothing (add `mod NAME;` to tests/tests.rs): {missing:?}"
    );
}

#[test]
fn an_undeclared_file_is_found() {
    let files = [
        "a.rs".to_string(),
        "b.rs".to_string(),
        "tests.rs".to_string(),
    ];
    let manifest = "[[test]]\nname = \"b\"\npath = \"tests/b.rs\"\n";
    assert_eq!(
        undeclared("mod a;\n", manifest, &files),
        Vec::<String>::new()
    );
    assert_eq!(undeclared("mod ab;\n", manifest, &files), vec!["a.rs"]);
}

/// The lines of `text` that start a process by hand.
fn spawns_by_hand(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or_default();
            code.match_indices("Command::new(").any(|(at, _)| {
                // `AgentCommand::new(` describes an agent; it starts nothing.
                !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
            })
        })
        .map(|(index, _)| index + 1)
        .collect()
}

#[test]
fn every_process_is_started_through_the_support_builder() {
    let dir = tests_dir();
    let files = support::rust_files(&dir);
    let mut by_hand = Vec::new();
    // The builders themselves, and this file's own examples, are exempt.
    let exempt = |file: &Path| file.starts_with(dir.join("support")) || file.ends_with("layout.rs");
    for file in files.iter().filter(|f| !exempt(f)) {
        let text = std::fs::read_to_string(file).expect("a readable test file");
        for line in spawns_by_hand(&text) {
            let name = file.strip_prefix(&dir).unwrap_or(file);
            by_hand.push(format!("tests/{}:{line}", name.display()));
        }
    }
    assert!(
        by_hand.is_empty(),
        "processes started without support::command or support::agent_eval_command \
         (which clear GITHUB_*, GITLAB_*, CI* and the other CI engines' variables):\n{}",
        by_hand.join("\n")
    );
}

#[test]
fn a_spawn_by_hand_is_found() {
    let text = "let a = support::command(\"sh\");\n\
                let b = std::process::Command::new(\"sh\");\n\
                // Command::new( in a comment\n\
                let c = AgentCommand::new(\"sh\");\n\
                let d = Command::new(env!(\"CARGO_BIN_EXE_agent-eval\"));\n";
    assert_eq!(spawns_by_hand(text), vec![2, 5]);
}

/// The builder's promise, in a process whose own environment holds CI
/// engines' variables (set by [`support::run_alone`], never in this one).
#[test]
fn the_builder_hands_no_ci_variable_to_a_child() {
    support::run_alone(
        module_path!(),
        "the_builder_hands_no_ci_variable_to_a_child_alone",
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", "/nonexistent/summary.md"),
            ("GITLAB_CI", "true"),
            ("CI", "true"),
            ("CI_NODE_INDEX", "1"),
            ("CIRCLE_NODE_TOTAL", "2"),
            ("BUILDKITE_PARALLEL_JOB", "0"),
            ("JOB_COMPLETION_INDEX", "0"),
            ("AGENT_EVAL_SHARDS", "2"),
            ("RUNNER_TEMP", "/tmp"),
            ("KEEP_ME", "kept"),
        ],
    );
}

#[test]
#[ignore = "run in a process of its own by the_builder_hands_no_ci_variable_to_a_child"]
fn the_builder_hands_no_ci_variable_to_a_child_alone() {
    assert_eq!(std::env::var("GITHUB_ACTIONS").as_deref(), Ok("true"));
    let output = support::command("env").output().expect("env runs");
    let seen = String::from_utf8_lossy(&output.stdout);
    let names: Vec<&str> = seen
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(n, _)| n)
        .collect();
    let leaked: Vec<&&str> = names
        .iter()
        .filter(|n| support::is_ci_variable(n))
        .collect();
    assert!(
        leaked.is_empty(),
        "CI variables reached the child: {leaked:?}"
    );
    for kept in ["KEEP_ME", "PATH"] {
        assert!(names.contains(&kept), "{kept} missing:\n{seen}");
    }
    // And agent-eval itself, asked which shard the variables name: none.
    let out = support::agent_eval_command()
        .args(["run", "scenarios/scripted", "--shard", "auto"])
        .output()
        .expect("agent-eval runs");
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
