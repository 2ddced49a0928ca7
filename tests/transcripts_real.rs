//! The transcript readers against what the real CLIs write: `agent-eval run
//! --keep-transcripts` runs the scenarios of `tests/data/transcripts/real/`
//! (the simulated model, with parameters chosen so planning calls,
//! rejections, reminders and several parts all happen) on the pinned
//! Claude Code and Codex CLIs, keeps the transcripts each wrote in its
//! throwaway HOME, and reads them back: every run's session must show
//! exactly the counts agent-eval observed on the wire for that run —
//! turns, planning calls, rejected ones, the turns Claude Code reminded
//! after, and the parts with their turns and planning calls.
//!
//! The Claude Code transcripts are also read once more with their reminder
//! records taken out and their version set to 1.0.99, a version that does
//! not record reminders: the reminders inferred from Claude Code's known
//! policy must be the ones it recorded.
//!
//! The CLIs come from `.ci/install-agents.sh`; without them the test says
//! why and passes, except in CI (`tests/support`), where it fails.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use agent_eval::transcript::{ReadOptions, Reminders, Session, read_paths};
use serde_json::Value;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `agent-eval run tests/data/transcripts/real/ --keep-transcripts DIR
/// --json REPORT`; returns the report.
fn run_keeping(agents: &Path, keep: &Path) -> Value {
    let out = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let report = out.path().join("report.json");
    let output = support::agent_eval_command()
        .args([
            "run",
            "tests/data/transcripts/real/",
            "-q",
            "--keep-transcripts",
        ])
        .arg(keep)
        .arg("--json")
        .arg(&report)
        .current_dir(manifest_dir())
        .env("AGENT_EVAL_AGENTS_DIR", agents)
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .expect("agent-eval runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap()
}

/// The folder `--keep-transcripts` gives one run.
fn run_folder(keep: &Path, scenario: &str, settings: &Value, seed: u64) -> PathBuf {
    let cell: Vec<String> = settings
        .as_object()
        .unwrap()
        .iter()
        .map(|(axis, value)| match value {
            Value::String(text) => format!("{axis}-{text}"),
            other => format!("{axis}-{other}"),
        })
        .collect();
    keep.join(scenario)
        .join(cell.join("-"))
        .join(format!("seed-{seed}"))
}

/// The one session below `folder`, read without a skip.
fn one_session(folder: &Path) -> Session {
    let mut sessions = Vec::new();
    let summary = read_paths(&[folder.to_path_buf()], &ReadOptions::default(), |s| {
        sessions.push(s)
    })
    .unwrap();
    assert_eq!(summary.skipped_total(), 0, "{folder:?}: {summary:?}");
    assert_eq!(sessions.len(), 1, "{folder:?}: {summary:?}");
    sessions.remove(0)
}

/// What the wire saw of a run, in the transcript's terms.
#[derive(Debug, PartialEq)]
struct Counts {
    turns: u64,
    planning_calls: u64,
    rejected: u64,
    reminders_at: Vec<u64>,
    /// Per part: turns and planning calls (sessions only).
    parts: Vec<(u64, u64)>,
}

fn wire_counts(result: &Value) -> Counts {
    let n = |v: &Value, key: &str| v[key].as_u64().unwrap();
    Counts {
        turns: n(result, "turns"),
        planning_calls: n(result, "todo_calls"),
        rejected: n(result, "rejected_todo_updates"),
        reminders_at: serde_json::from_value(result["reminders_at"].clone()).unwrap(),
        parts: result["parts"]
            .as_array()
            .map(|parts| {
                parts
                    .iter()
                    .map(|p| (n(p, "turns"), n(p, "todo_calls")))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn transcript_counts(session: &Session, session_scenario: bool) -> Counts {
    let turns: Vec<_> = session.turns().collect();
    Counts {
        turns: turns.len() as u64,
        planning_calls: turns.iter().map(|t| t.planning_calls.len() as u64).sum(),
        rejected: turns
            .iter()
            .flat_map(|t| &t.planning_calls)
            .filter(|c| !c.accepted)
            .count() as u64,
        // A reminder before turn k+1 is the wire's reminder after turn k.
        reminders_at: (0..turns.len())
            .filter(|&k| turns[k].reminder_before)
            .map(|k| k as u64)
            .collect(),
        parts: if session_scenario {
            session
                .parts
                .iter()
                .map(|p| {
                    let calls = p.turns.iter().map(|t| t.planning_calls.len() as u64).sum();
                    (p.turns.len() as u64, calls)
                })
                .collect()
        } else {
            Vec::new()
        },
    }
}

/// A copy of the `*.jsonl` below `folder` as a version that records no
/// reminders would have written it: reminder attachments out, version
/// 1.0.99.
fn without_recorded_reminders(folder: &Path, into: &Path) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            without_recorded_reminders(&path, into);
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let kept: Vec<String> = text
            .lines()
            .filter(|line| !line.contains(r#""type":"todo_reminder""#))
            .filter(|line| !line.contains(r#""type":"task_reminder""#))
            .map(|line| line.replace(r#""version":"2.1.330""#, r#""version":"1.0.99""#))
            .collect();
        let name = path.file_name().unwrap();
        std::fs::write(into.join(name), kept.join("\n") + "\n").unwrap();
    }
}

#[test]
fn kept_transcripts_read_as_the_wire_saw_the_runs() {
    let Some(agents) = support::require_agents(&["claude", "codex"]) else {
        return;
    };
    let keep = tempfile::tempdir().unwrap();
    let report = run_keeping(&agents, keep.path());
    let mut runs = 0;
    let mut totals = (0, 0, 0, 0);
    for scenario in report["scenarios"].as_array().unwrap() {
        let name = scenario["name"].as_str().unwrap();
        for cell in scenario["cells"].as_array().unwrap() {
            for result in cell["results"].as_array().unwrap() {
                let seed = result["seed"].as_u64().unwrap();
                let folder = run_folder(keep.path(), name, &cell["settings"], seed);
                let session = one_session(&folder);
                let wire = wire_counts(result);
                let read = transcript_counts(&session, !wire.parts.is_empty());
                assert_eq!(read, wire, "{name} {} seed {seed}", cell["settings"]);
                let claude = name.starts_with("transcripts-claude-code");
                let version = if claude { "2.1.330" } else { "0.169.0" };
                assert_eq!(session.agent_version.as_deref(), Some(version));
                assert_eq!(session.reminders, Reminders::Recorded);
                if claude {
                    let copy = tempfile::tempdir().unwrap();
                    without_recorded_reminders(&folder, copy.path());
                    let inferred = one_session(copy.path());
                    assert_eq!(inferred.reminders, Reminders::Inferred);
                    let at = transcript_counts(&inferred, false).reminders_at;
                    assert_eq!(at, wire.reminders_at, "{name} seed {seed}: inferred");
                }
                runs += 1;
                totals.0 += wire.planning_calls;
                totals.1 += wire.rejected;
                totals.2 += wire.reminders_at.len() as u64;
                totals.3 += wire.parts.len() as u64;
            }
        }
    }
    assert_eq!(runs, 12);
    // The parameters were chosen so that every count is exercised.
    let (planning, rejected, reminders, parts) = totals;
    assert!(
        planning > 0 && rejected > 0 && reminders > 0 && parts > 0,
        "{totals:?}"
    );
}

#[test]
fn a_keep_folder_that_cannot_be_made_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("s.yaml");
    std::fs::write(
        &scenario,
        "task: t\nsteps: [{text: a}]\nmodel: {script: [{text: done}]}\n",
    )
    .unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "").unwrap();
    let output = support::agent_eval_command()
        .arg("run")
        .arg(&scenario)
        .arg("--keep-transcripts")
        .arg(blocker.join("kept"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--keep-transcripts"), "{stderr}");
    assert!(stderr.contains("cannot create the folder"), "{stderr}");
}
