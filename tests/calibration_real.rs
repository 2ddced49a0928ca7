//! Calibration on transcripts the REAL CLIs wrote: Claude Code and Codex
//! run under their presets while the simulated model drives them with
//! known planning rates, `run --keep-transcripts` keeps the CLIs' own
//! session files (Claude Code's `projects/*.jsonl`, Codex's rollouts), and
//! `calibrate` reads them back. Each measured rate's 95% interval must
//! hold its true value, for two parameter sets on each CLI. Test data is
//! written here, by the CLIs; nothing third-party is kept.

use crate::support;

use std::path::Path;
use std::process::Stdio;

use serde_json::Value;

/// Eight small steps on `preset` with these planning rates, `seeds` runs.
fn scenario(preset: &str, plan_first: f64, todo_update_rate: f64, seeds: u32) -> String {
    let mut text = format!(
        "name: known-{preset}\ntask: |\n  Do eight steps.\nworkspace:\n  files:\n    input.txt: \"{}\"\nagent:\n  preset: {preset}\nsteps:\n",
        "x".repeat(200)
    );
    for i in 1..=8 {
        text.push_str(&format!(
            "  - text: \"Step {i}\"\n    check: {{file: \"out{i}.txt\", contains: \"done\"}}\n    do:\n      - {{tool: write_file, input: {{path: \"out{i}.txt\", content: \"done\"}}}}\n"
        ));
    }
    text.push_str(&format!(
        "model:\n  simulate: {{plan_first: {plan_first}, todo_update_rate: {todo_update_rate}, invalid_todo_rate: 0}}\nruns:\n  seeds: {seeds}\n"
    ));
    text
}

/// Runs the scenario on the real CLI keeping its transcripts, then
/// calibrates them; returns calibrate's JSON.
fn calibrate_real(agents: &Path, preset: &str, plan_first: f64, rate: f64) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("known.yaml");
    std::fs::write(&file, scenario(preset, plan_first, rate, 24)).unwrap();
    let kept = dir.path().join("kept");
    let run = support::agent_eval_command()
        .arg("run")
        .arg(&file)
        .args(["-q", "--keep-transcripts"])
        .arg(&kept)
        .env("AGENT_EVAL_AGENTS_DIR", agents)
        .stdin(Stdio::null())
        .output()
        .expect("agent-eval runs");
    assert!(
        run.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json = dir.path().join("calibration.json");
    let out = support::agent_eval_command()
        .arg("calibrate")
        .arg(&kept)
        .args(["--seed", "1", "--simulated-runs", "8", "--json"])
        .arg(&json)
        .output()
        .expect("calibrate runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap()
}

/// `name`'s interval holds `truth`, measured on at least `min_n` events.
fn holds(result: &Value, name: &str, truth: f64, min_n: u64, what: &str) {
    let p = result["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap();
    assert_eq!(p["source"], "measured", "{what}: {name}: {p}");
    let (low, high) = (
        p["interval"][0].as_f64().unwrap(),
        p["interval"][1].as_f64().unwrap(),
    );
    assert!(
        low <= truth && truth <= high,
        "{what}: {name} = {truth} outside [{low}, {high}]"
    );
    assert!(p["n"].as_u64().unwrap() >= min_n, "{what}: {name}: {p}");
}

fn recovers(cli: &str, preset: &str) {
    let Some(agents) = support::require_agents(&[cli]) else {
        return;
    };
    for (plan_first, rate) in [(0.25, 0.3), (0.9, 0.08)] {
        let result = calibrate_real(&agents, preset, plan_first, rate);
        let what = format!("{preset} plan_first={plan_first} todo_update_rate={rate}");
        assert_eq!(
            result["inputs"]["sessions"], 24,
            "{what}: {}",
            result["inputs"]
        );
        holds(&result, "plan_first", plan_first, 10, &what);
        holds(&result, "todo_update_rate", rate, 20, &what);
    }
}

#[test]
fn recovers_planning_rates_from_claude_code_transcripts() {
    recovers("claude", "claude-code");
}

#[test]
fn recovers_planning_rates_from_codex_rollouts() {
    recovers("codex", "codex");
}
