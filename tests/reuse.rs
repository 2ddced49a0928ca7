//! The reuse of command effects changes nothing but speed: every shipped
//! scenario gives the same JSON report, byte for byte, with reuse on and
//! with `--no-reuse` (every command a real process); and a contained
//! command's changes reach another run's files without a process.

use crate::support;

use std::path::Path;
use std::time::Duration;

use agent_eval::sandbox::command::run_command_in;
use agent_eval::sandbox::outcome::CommandSettings;
use agent_eval::sandbox::workspace::{Workspace, WorkspaceImage};

/// `agent-eval run scenarios/ --json REPORT [extra]` (the mock-only gate:
/// the real CLIs' scenarios live in `real-agents/`), in a private TMPDIR
/// (so nothing another process left in the system's temp folder, such as
/// the file the guards scenario checks is absent, can change the answer).
fn report(tmpdir: &Path, report: &Path, extra: &[&str]) -> (Option<i32>, Vec<u8>) {
    std::fs::create_dir_all(tmpdir).unwrap();
    // 25 seeds a cell (the shipped files say up to 100): every scenario,
    // cell and command, with reuse from the second seed on, at a quarter
    // of the processes `--no-reuse` would start for the whole gate. Fewer
    // seeds can fail a statistical expectation; both runs must agree.
    let status = support::agent_eval_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("run")
        .arg("scenarios/")
        .args(["--quiet", "--seeds", "25", "--json"])
        .arg(report)
        .args(extra)
        .env("TMPDIR", tmpdir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "run {extra:?} failed: {status}"
    );
    (status.code(), std::fs::read(report).unwrap())
}

#[test]
fn every_shipped_scenario_reports_the_same_bytes_with_reuse_on_and_off() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    let (status, reused) = report(&tmp, &dir.path().join("reused.json"), &[]);
    let (fresh_status, fresh) = report(&tmp, &dir.path().join("fresh.json"), &["--no-reuse"]);
    assert_eq!(status, fresh_status);
    assert!(reused.len() > 1000);
    // Every scenario of the folder is in it (the shipped gate's 23).
    let parsed: serde_json::Value = serde_json::from_slice(&reused).unwrap();
    let scenarios = parsed["scenarios"].as_array().map_or(0, Vec::len);
    assert!(scenarios >= 20, "{scenarios} scenarios");
    if reused != fresh {
        // Name the first difference rather than print two large reports.
        let at = reused.iter().zip(&fresh).position(|(a, b)| a != b);
        let at = at.unwrap_or(reused.len().min(fresh.len()));
        let from = at.saturating_sub(200);
        panic!(
            "reports differ at byte {at}:\nreused: {}\nfresh:  {}",
            String::from_utf8_lossy(&reused[from..(at + 200).min(reused.len())]),
            String::from_utf8_lossy(&fresh[from..(at + 200).min(fresh.len())]),
        );
    }
}

#[test]
fn a_contained_commands_changes_reach_another_runs_files_without_a_process() {
    if !agent_eval::sandbox::landlock::status().is_full() {
        support::skip_unless_required(&agent_eval::sandbox::landlock::status().to_string());
        return;
    }
    let settings = CommandSettings::new(Duration::from_secs(30));
    let files = [("run.sh", "echo ran 51c2\n")];
    let image = WorkspaceImage::build(None, files).unwrap();
    let command = "mkdir -p out && chmod +x run.sh && stat -c %A run.sh > out/mode.txt";
    let first = Workspace::create_deferred(&image).unwrap();
    let outcome = run_command_in(&first, command, &settings).unwrap();
    assert_eq!(outcome.exit_code, Some(0));
    // The changes were read back: the files are still in memory.
    assert!(first.in_memory());
    let mode = first.read("out/mode.txt").unwrap();
    assert!(
        mode.starts_with(b"-rwx"),
        "{}",
        String::from_utf8_lossy(&mode)
    );
    // Another run with the same files: the same effect, no folder made.
    let second = Workspace::create_deferred(&image).unwrap();
    assert_eq!(
        run_command_in(&second, command, &settings).unwrap(),
        outcome
    );
    assert!(!second.root().exists());
    assert_eq!(second.read("out/mode.txt").unwrap(), mode);
    // Written out for a process that is not contained, the folder has
    // the new folder, file and mode.
    let check = "cp run.sh copy.sh; ./run.sh; cat out/mode.txt";
    let out = run_command_in(&second, check, &settings).unwrap();
    assert!(!second.in_memory());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("ran 51c2\n{}", String::from_utf8_lossy(&mode))
    );
}

#[test]
fn a_change_memory_cannot_hold_makes_the_folder_the_workspace() {
    if !agent_eval::sandbox::landlock::status().is_full() {
        support::skip_unless_required(&agent_eval::sandbox::landlock::status().to_string());
        return;
    }
    let settings = CommandSettings::new(Duration::from_secs(30));
    let image = WorkspaceImage::build(None, [("a.txt", "a\n")]).unwrap();
    // Two new entries in one folder: their listing order is not known.
    let workspace = Workspace::create_deferred(&image).unwrap();
    run_command_in(&workspace, "echo 1 > b.txt; echo 2 > c.txt", &settings).unwrap();
    assert!(!workspace.in_memory());
    assert_eq!(workspace.read("c.txt").unwrap(), b"2\n");
    // A folder's mode changed.
    let workspace = Workspace::create_deferred(&image).unwrap();
    run_command_in(&workspace, "mkdir -p d && chmod 701 d", &settings).unwrap();
    assert!(!workspace.in_memory());
}
