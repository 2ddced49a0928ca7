//! The calibrate recipe runs as written, offline: the block is read from
//! docs/calibration.md (never copied here), the README must hold the same
//! block, and its commands run in order in a clone (copies of `scenarios/`
//! and `fixtures/`, a `.git` folder) with the built binary on PATH.
//!
//! The one line that would spend money (`--model`) runs without a key: it
//! must print its estimate, within its own `--max-cost`, and stop at the
//! missing key (exit 2) before any request. The offline line gives the run
//! logs the rest reads; every other command exits 0, except the last, whose
//! expectations were written for the default parameters (exit 0 or 1), and
//! which must say the profile was applied.

#[allow(dead_code)] // each test file uses some of the shared helpers
use crate::support;

use std::path::Path;

/// The first fenced block of `file` that runs `agent-eval calibrate logs/`.
fn recipe(file: &str) -> String {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file))
        .expect("the document");
    let mut blocks = Vec::new();
    let mut open: Option<String> = None;
    for line in text.lines() {
        match (&mut open, line.trim_start().starts_with("```")) {
            (None, true) => open = Some(String::new()),
            (Some(_), true) => blocks.extend(open.take()),
            (Some(block), false) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, false) => {}
        }
    }
    blocks
        .into_iter()
        .find(|block| block.contains("agent-eval calibrate logs/"))
        .unwrap_or_else(|| panic!("{file} has no calibrate recipe"))
}

/// `bash -c COMMAND` in `clone`, `agent-eval` on PATH, no CI or API
/// variables: (status, stdout + stderr).
fn bash(command: &str, clone: &Path, bin: &Path) -> (i32, String) {
    let mut bash = support::command("bash");
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if ["GITHUB_", "GITLAB_", "CI", "ANTHROPIC_", "OPENAI_"]
            .iter()
            .any(|prefix| name.starts_with(prefix))
        {
            bash.env_remove(name.as_ref());
        }
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = bash
        .arg("-c")
        .arg(command)
        .current_dir(clone)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("bash runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code().unwrap_or(-1), text)
}

#[test]
fn the_calibrate_recipe_runs_as_written_offline() {
    let block = recipe("docs/calibration.md");
    assert_eq!(block, recipe("README.md"), "README and docs differ");
    let root = tempfile::tempdir().expect("temp dir");
    let clone = root.path().join("clone");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for folder in ["scenarios", "fixtures"] {
        support::copy_tree(&repo.join(folder), &clone.join(folder));
    }
    std::fs::create_dir_all(clone.join(".git")).expect(".git");
    let bin = root.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_agent-eval"), bin.join("agent-eval"))
        .expect("agent-eval on PATH");
    let commands: Vec<&str> = block
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    assert_eq!(commands.len(), 4, "{block}");
    for (i, command) in commands.iter().enumerate() {
        let (code, text) = bash(command, &clone, &bin);
        if command.contains("--model") {
            assert_eq!(code, 2, "{command}\n{text}");
            assert!(text.contains("real models: 18 runs"), "{text}");
            assert!(text.contains("estimated $14.85"), "{text}");
            assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
        } else if i + 1 == commands.len() {
            assert!(code == 0 || code == 1, "{command}\n{text}");
            assert!(text.contains("profile my-agent.yaml (sha256 "), "{text}");
            // Said once, with the profile's figures: the expectations were
            // written for the defaults.
            assert!(text.contains("), fitted on "), "{text}");
            assert!(text.contains("plan_first "), "{text}");
            let note = "were written for the simulated model's default parameters";
            assert_eq!(text.matches(note).count(), 1, "{text}");
        } else {
            assert_eq!(code, 0, "{command}\n{text}");
        }
    }
    assert!(clone.join("my-agent.yaml").is_file());
    assert!(clone.join("calibration.html").is_file());
}
