//! Calibration on transcripts the REAL CLIs wrote: Claude Code and Codex
//! run under their presets while the simulated model drives them with
//! known parameters, `run --keep-transcripts` keeps the CLIs' own session
//! files (Claude Code's `projects/*.jsonl`, Codex's rollouts), and
//! `calibrate` reads them back. Test data is written here, by the CLIs;
//! nothing third-party is kept.
//!
//! Two parameter sets on each CLI: the simulated model's defaults, and a
//! set with every piece of its structure away from its default (a late
//! first plan, per-session update rates, a closing update, one item ticked
//! per update, more invalid updates) and `reminder_compliance` 0.5. Every
//! parameter calibrate measures from such transcripts must be `measured`,
//! its 95% interval must hold the truth (widened for the several intervals
//! one sample holds at once: [`FAMILY_WIDENING`]), and the interval must be
//! narrower than a bound a working estimator meets (an interval holding
//! anything proves nothing). Claude Code 2.1.330 records its own reminders
//! (`todo_reminder` attachments), so compliance is measured on recorded
//! reminders and none is inferred; Codex sends none, so compliance must
//! stay unmeasured, never a number read off nothing.
//!
//! Not checked: `tokens_per_turn` and `chars_per_token` (the usage in the
//! transcripts is the mock endpoint's count of the response, not the
//! model's parameter), and the fitted parameters (the CLIs' own system
//! prompts and tool texts put the context on another scale than the
//! simulated model's attention parameters assume).
//!
//! Each run is a 24-step task, 60 runs a set (`--jobs 2`): about a minute
//! of two cores per set for Claude Code, less for Codex.

use crate::support;

use std::path::Path;
use std::process::Stdio;

use agent_eval::plan::dialect::{Dialect, InvalidUpdate, PlanItem, PlanStatus};
use serde_json::Value;

/// Runs of each set: enough that every interval meets its width bound.
const SEEDS: u32 = 60;
/// Steps of the task: long enough that the answer closing each run is a
/// small share of its turns (see docs/calibration.md, "How it is proven").
const STEPS: usize = 24;

/// A parameter's truth and the widest 95% interval accepted for it.
struct Truth {
    name: &'static str,
    value: f64,
    widest: f64,
}

fn truth(name: &'static str, value: f64, widest: f64) -> Truth {
    Truth {
        name,
        value,
        widest,
    }
}

/// A known parameter set: the `model.simulate` map and what calibrate must
/// read back.
struct Setting {
    label: &'static str,
    /// Names the scenario, so each set runs its own seeds.
    slug: &'static str,
    simulate: &'static str,
    truths: Vec<Truth>,
}

/// The share of the simulated model's four kinds of invalid update the
/// CLI's planning tool rejects: the model sends a valid update where the
/// dialect cannot express the mistake (Claude Code's TodoWrite takes two
/// items in progress and any number of items; Codex's update_plan takes
/// anything but an unknown status), so the rate a transcript shows is
/// `invalid_todo_rate` times this share.
fn rejected_share(dialect: Dialect) -> f64 {
    let wanted = [
        PlanItem::new("1", "Step 1", PlanStatus::InProgress),
        PlanItem::new("2", "Step 2", PlanStatus::Pending),
    ];
    let kinds = [
        InvalidUpdate::TwoInProgress,
        InvalidUpdate::EmptyText,
        InvalidUpdate::UnknownStatus,
        InvalidUpdate::TooMany,
    ];
    let written = kinds
        .iter()
        .filter(|&&kind| dialect.get().write_invalid(&wanted, kind).is_some())
        .count();
    written as f64 / kinds.len() as f64
}

/// The simulated model's defaults. `first_plan_hazard` unset is the update
/// rate; dispersion, closing update and items per update are 0.
fn defaults(dialect: Dialect, reminded: bool) -> Setting {
    let mut truths = vec![
        truth("plan_first", 0.9, 0.3),
        truth("todo_update_rate", 0.15, 0.1),
        truth("invalid_todo_rate", 0.05 * rejected_share(dialect), 0.1),
        // Only the few runs that miss the first plan explore (10 to 30
        // turns in 60 runs): the bound only rules out an interval that says
        // nothing; the structured set holds this estimator to 0.25.
        truth("first_plan_hazard", 0.15, 0.7),
        truth("update_rate_dispersion", 0.0, 0.12),
        truth("closing_update", 0.0, 0.12),
        truth("items_per_update", 0.0, 0.5),
    ];
    if reminded {
        truths.push(truth("reminder_compliance", 0.9, 0.25));
    }
    Setting {
        label: "defaults",
        slug: "defaults",
        simulate: "{}",
        truths,
    }
}

/// Every piece of the structure away from its default, compliance 0.5,
/// long attention (drift rare: the measures assume nothing of it).
fn structured(dialect: Dialect, reminded: bool) -> Setting {
    let mut truths = vec![
        truth("plan_first", 0.3, 0.3),
        truth("first_plan_hazard", 0.25, 0.25),
        truth("todo_update_rate", 0.12, 0.15),
        truth("update_rate_dispersion", 0.3, 0.35),
        truth("invalid_todo_rate", 0.1 * rejected_share(dialect), 0.1),
        truth("closing_update", 0.8, 0.3),
        truth("items_per_update", 1.0, 0.5),
    ];
    if reminded {
        truths.push(truth("reminder_compliance", 0.5, 0.25));
    }
    Setting {
        label: "structured, compliance 0.5",
        slug: "structured",
        simulate: "{plan_first: 0.3, first_plan_hazard: 0.25, todo_update_rate: 0.12, \
                   update_rate_dispersion: 0.3, reminder_compliance: 0.5, invalid_todo_rate: 0.1, \
                   closing_update: 0.8, items_per_update: 1, attention_span: 4000}",
        truths,
    }
}

/// A task of [`STEPS`] steps on `preset` under `setting`, [`SEEDS`] runs.
fn scenario(preset: &str, setting: &Setting) -> String {
    let (slug, simulate) = (setting.slug, setting.simulate);
    let mut text = format!(
        "name: known-{preset}-{slug}\ntask: |\n  Do the steps.\nworkspace:\n  files:\n    input.txt: \"{}\"\nagent:\n  preset: {preset}\nsteps:\n",
        "x".repeat(200)
    );
    for i in 1..=STEPS {
        text.push_str(&format!(
            "  - text: \"Step {i}\"\n    check: {{file: \"out{i}.txt\", contains: \"done\"}}\n    do:\n      - {{tool: write_file, input: {{path: \"out{i}.txt\", content: \"done\"}}}}\n"
        ));
    }
    text.push_str(&format!(
        "model:\n  simulate: {simulate}\nruns:\n  seeds: {SEEDS}\n"
    ));
    text
}

/// Runs the scenario on the real CLI keeping its transcripts, then
/// calibrates them, every session measured (`--holdout 0`); returns
/// calibrate's JSON.
fn calibrate_real(agents: &Path, preset: &str, setting: &Setting) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("known.yaml");
    std::fs::write(&file, scenario(preset, setting)).unwrap();
    let kept = dir.path().join("kept");
    let run = support::agent_eval_command()
        .arg("run")
        .arg(&file)
        .args(["-q", "--jobs", "2", "--keep-transcripts"])
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
        .args(["--seed", "1", "--holdout", "0", "--simulated-runs", "8"])
        .arg("--json")
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

fn param<'a>(result: &'a Value, name: &str) -> &'a Value {
    result["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {}", result["params"]))
}

/// How far each 95% interval is widened around its value before it must
/// hold its truth: one sample checks up to eight intervals at once, and
/// eight 95% intervals all hold their truths only about two times in
/// three. Widened by z(1 − 0.05/16) / z(1 − 0.05/2) = 2.73 / 1.96
/// (Bonferroni), they all hold at least 95 times in 100 where each 95%
/// interval is right, so a failure says an estimator is off, not that one
/// sample was unlucky.
const FAMILY_WIDENING: f64 = 2.73 / 1.96;

/// Every truth of `setting` measured, its interval (widened by
/// [`FAMILY_WIDENING`]) holding it and no wider than its bound; all
/// failures reported at once.
fn holds(result: &Value, setting: &Setting, what: &str) {
    let mut failures = Vec::new();
    let mut seen = String::new();
    for t in &setting.truths {
        let p = param(result, t.name);
        let interval = (p["interval"][0].as_f64(), p["interval"][1].as_f64());
        seen.push_str(&format!(
            "  {} = {} {:?} n {} ({}; truth {})\n",
            t.name, p["value"], interval, p["n"], p["source"], t.value
        ));
        let (Some(low), Some(high)) = interval else {
            failures.push(format!("{} has no interval", t.name));
            continue;
        };
        if p["source"] != "measured" {
            failures.push(format!("{} is {}, not measured", t.name, p["source"]));
        }
        let value = p["value"].as_f64().unwrap_or(f64::NAN);
        let (wide_low, wide_high) = (
            value - (value - low) * FAMILY_WIDENING,
            value + (high - value) * FAMILY_WIDENING,
        );
        if !(wide_low <= t.value && t.value <= wide_high) {
            failures.push(format!(
                "{}: {} outside [{low}, {high}], even widened to [{wide_low:.4}, {wide_high:.4}]",
                t.name, t.value
            ));
        }
        if high - low > t.widest {
            failures.push(format!(
                "{}: [{low}, {high}] is wider than {}: too wide to say anything",
                t.name, t.widest
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{what}: {}\n{seen}",
        failures.join("; ")
    );
    eprintln!("{what}: recovered\n{seen}");
}

/// Runs `setting` on the CLI, checks the sessions were all read, and
/// returns calibrate's JSON after checking every truth.
fn recovers(agents: &Path, preset: &str, setting: &Setting) -> Value {
    let result = calibrate_real(agents, preset, setting);
    let what = format!("{preset}, {}", setting.label);
    assert_eq!(
        result["inputs"]["sessions"],
        u64::from(SEEDS),
        "{what}: {}",
        result["inputs"]
    );
    holds(&result, setting, &what);
    result
}

/// Claude Code records its reminders: compliance is counted on recorded
/// ones only, none inferred.
fn claude_code(setting: fn(Dialect, bool) -> Setting) {
    let Some(agents) = support::require_agents(&["claude"]) else {
        return;
    };
    let setting = setting(Dialect::ClaudeCode, true);
    let result = recovers(&agents, "claude-code", &setting);
    let reminders = &result["reminders"];
    assert!(reminders["recorded"].as_u64().unwrap() >= 30, "{reminders}");
    assert_eq!(reminders["inferred"], 0, "{reminders}");
    assert_eq!(reminders["counted"], "recorded", "{reminders}");
}

/// Codex sends no reminder: compliance stays unmeasured (its assumed
/// default, no interval, no count), never a number read off nothing.
fn codex(setting: fn(Dialect, bool) -> Setting) {
    let Some(agents) = support::require_agents(&["codex"]) else {
        return;
    };
    let setting = setting(Dialect::Codex, false);
    let result = recovers(&agents, "codex", &setting);
    assert_eq!(
        result["reminders"]["recorded"], 0,
        "{}",
        result["reminders"]
    );
    let compliance = param(&result, "reminder_compliance");
    assert_eq!(compliance["source"], "assumed", "{compliance}");
    assert!(compliance["interval"].is_null(), "{compliance}");
    assert_eq!(compliance["n"], 0, "{compliance}");
    assert!(
        compliance["note"]
            .as_str()
            .is_some_and(|n| n.contains("unmeasured")),
        "{compliance}"
    );
}

#[test]
fn recovers_the_defaults_from_claude_code_transcripts() {
    claude_code(defaults);
}

#[test]
fn recovers_the_structure_and_compliance_half_from_claude_code_transcripts() {
    claude_code(structured);
}

#[test]
fn recovers_the_defaults_from_codex_rollouts() {
    codex(defaults);
}

#[test]
fn recovers_the_structure_from_codex_rollouts() {
    codex(structured);
}
