//! A real-CLI scenario gives the same report every time: each scenario of
//! `real-agents/` (the real Claude Code, Codex, Gemini CLI, Qwen Code and
//! OpenCode CLIs, simulated model) is
//! run twice at once, on three seeds a cell, and the two JSON reports must
//! be the same bytes.
//!
//! What used to make them differ (docs/real-agents.md, "Determinism"):
//! Claude Code ran a response's concurrency-safe calls together (a
//! `TaskList` beside the `TaskUpdate` before it, two `Read`s) and answered
//! them in the order they finished, and Codex writes the wall time a call
//! took into its results (as Gemini CLI and Qwen Code write the process
//! group id of each command they run: both counted as fixed texts). The two runs go at once so that the machine is
//! busy and such timing differences show.
//!
//! The CLIs come from `.ci/install-agents.sh`; without them the test skips
//! (outside CI) or fails (in CI, see tests/support).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A bound on one `agent-eval run` of a scenario at three seeds (a run
/// normally takes a few seconds; the agent's own timeout is 120 s).
const RUN_BOUND: Duration = Duration::from_secs(600);

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The shipped real-CLI scenarios, in name order.
fn real_agent_scenarios() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(manifest_dir().join("real-agents"))
        .expect("real-agents/ is there")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

/// Starts `agent-eval run SCENARIO --seeds 3 --json REPORT` in a fresh HOME.
fn start_run(agents: &Path, scenario: &Path, report: &Path, home: &Path) -> std::process::Child {
    support::agent_eval_command()
        .arg("run")
        .arg(scenario)
        .args(["--seeds", "3", "--quiet", "--json"])
        .arg(report)
        .current_dir(manifest_dir())
        .env("AGENT_EVAL_AGENTS_DIR", agents)
        .env("HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("agent-eval starts")
}

/// Waits for `child`, killing it past the bound (then the test fails).
/// Three seeds can fail a statistical expectation (exit 1); anything else
/// than 0 or 1 fails the test.
fn finish(mut child: std::process::Child, started: Instant, what: &str) {
    loop {
        if child.try_wait().expect("wait for agent-eval").is_some() {
            break;
        }
        if started.elapsed() > RUN_BOUND {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: agent-eval ran longer than {RUN_BOUND:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let output = child.wait_with_output().expect("collect agent-eval output");
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{what}: agent-eval run failed ({})\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn every_real_agent_scenario_reports_the_same_bytes_twice() {
    let Some(agents) = support::require_agents(&["claude", "codex", "gemini", "qwen", "opencode"])
    else {
        return;
    };
    let scenarios = real_agent_scenarios();
    assert!(scenarios.len() >= 3, "{scenarios:?}");
    for scenario in scenarios {
        let what = scenario.display().to_string();
        let dir = tempfile::tempdir().expect("temp dir");
        let reports = [
            dir.path().join("first.json"),
            dir.path().join("second.json"),
        ];
        let homes = [dir.path().join("home1"), dir.path().join("home2")];
        let started = Instant::now();
        let children: Vec<_> = reports
            .iter()
            .zip(&homes)
            .map(|(report, home)| {
                std::fs::create_dir_all(home).expect("make a HOME");
                start_run(&agents, &scenario, report, home)
            })
            .collect();
        for child in children {
            finish(child, started, &what);
        }
        let [first, second] = reports.map(|r| std::fs::read(r).expect("the JSON report"));
        let [first, second] = if TOKENS_VARY.iter().any(|f| what.ends_with(f)) {
            [&first, &second].map(|r| without_token_counts(r))
        } else {
            [first, second]
        };
        assert!(
            first == second,
            "{what}: two runs gave different reports\n--- first\n{}\n--- second\n{}",
            String::from_utf8_lossy(&first),
            String::from_utf8_lossy(&second)
        );
    }
}

/// The agents whose own added text varies by a few dozen context tokens
/// between two concurrent runs (docs/real-agents.md, "Determinism"): their
/// reports are compared without token counts.
const TOKENS_VARY: [&str; 2] = ["gemini_cli.yaml", "copilot.yaml"];

/// A report without its token counts (and what is made of them, the
/// measured value of an expectation on one included): the plans, steps,
/// turns, reminders and verdicts must still be the same.
fn without_token_counts(report: &[u8]) -> Vec<u8> {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                let of_tokens =
                    |text: &str| text.contains("token") || text.contains("planning_share");
                map.retain(|key, _| !of_tokens(key));
                // An expectation on a token figure: its verdict must hold
                // both times, its measured value is a token figure.
                let on_tokens = map.values().any(|v| v.as_str().is_some_and(of_tokens));
                if on_tokens {
                    map.remove("measured");
                }
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value: serde_json::Value = serde_json::from_slice(report).expect("a JSON report");
    strip(&mut value);
    serde_json::to_vec_pretty(&value).expect("JSON")
}
