//! The `gemini`, `qwen-code` and `opencode` dialects, and the `qwen-code`
//! reminder policy, against what the pinned CLIs answered (Gemini CLI
//! 0.61.0, Qwen Code 0.24.4, OpenCode 1.18.33): every planning call of
//! every probe in `tests/data/agents/probe/` is replayed on the built-in
//! dialect and must get the same text and the same verdict, the tool must
//! be offered with the same name, description and schema, and Qwen's
//! reminder must come after the same turns with the same text.
//! `capture.sh` in that folder re-probes.

use std::fs;
use std::path::Path;

use agent_eval::plan::reminder::{ReminderSpec, TurnFacts};
use agent_eval::plan::{Dialect, PlanItem};
use serde_json::Value;

fn probe(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/agents/probe")
        .join(format!("{name}.json"));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn turns(probe: &Value) -> Vec<Value> {
    probe["turns"].as_array().cloned().unwrap_or_default()
}

/// Replays every planning call of probe `name` on `dialect`, in order, on
/// one plan; returns how many calls were compared.
fn replay(name: &str, dialect: Dialect) -> usize {
    let d = dialect.get();
    let data = probe(name);
    let mut plan: Vec<PlanItem> = Vec::new();
    let mut compared = 0;
    for (t, turn) in turns(&data).iter().enumerate() {
        for call in turn["calls"].as_array().into_iter().flatten() {
            let tool = call["tool"].as_str().unwrap_or_default();
            if !d.is_planning_tool(tool) {
                continue;
            }
            let expected = call["result"].as_str().unwrap_or_default();
            let outcome = d.apply(&mut plan, tool, &call["input"]);
            assert_eq!(outcome.content, expected, "{name} turn {}", t + 1);
            assert_eq!(
                d.is_error(expected),
                !outcome.accepted,
                "{name} turn {}: {expected}",
                t + 1
            );
            if let Some(flagged) = call["is_error"].as_bool() {
                assert_eq!(flagged, !outcome.accepted, "{name} turn {}", t + 1);
            }
            compared += 1;
        }
    }
    compared
}

/// The tool as the probe saw it offered is the dialect's.
fn same_tool(name: &str, dialect: Dialect) {
    let data = probe(name);
    let offered = &data["tool"];
    let schema = offered
        .get("parametersJsonSchema")
        .or_else(|| offered.get("parameters"))
        .cloned()
        .unwrap_or_default();
    let tools = dialect.get().tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, offered["name"].as_str().unwrap_or_default());
    assert_eq!(
        tools[0].description,
        offered["description"].as_str().unwrap_or_default()
    );
    assert_eq!(tools[0].input_schema, schema);
}

#[test]
fn gemini_answers_as_gemini_cli_0_61() {
    same_tool("gemini", Dialect::Gemini);
    assert_eq!(replay("gemini", Dialect::Gemini), 16);
}

#[test]
fn qwen_code_answers_as_qwen_code_0_24() {
    same_tool("qwen_code", Dialect::QwenCode);
    assert_eq!(replay("qwen_code", Dialect::QwenCode), 15);
    assert_eq!(replay("qwen_code_errors", Dialect::QwenCode), 9);
}

#[test]
fn opencode_answers_as_opencode_1_18() {
    same_tool("opencode", Dialect::OpenCode);
    assert_eq!(replay("opencode", Dialect::OpenCode), 14);
    assert_eq!(replay("opencode_errors", Dialect::OpenCode), 9);
}

/// Replays the turns of a Qwen probe through the `qwen-code` policy: the
/// reminder after each turn must be the one Qwen sent, or none.
fn qwen_reminders(name: &str) -> usize {
    let dialect = Dialect::QwenCode.get();
    let spec = ReminderSpec::by_name("qwen-code").unwrap_or_default();
    let mut policy = spec.policy();
    let mut plan: Vec<PlanItem> = Vec::new();
    let mut fired = 0;
    for (t, turn) in turns(&probe(name)).iter().enumerate() {
        let mut facts = TurnFacts {
            turn: t + 1,
            ..TurnFacts::default()
        };
        for call in turn["calls"].as_array().into_iter().flatten() {
            let tool = call["tool"].as_str().unwrap_or_default();
            if dialect.is_planning_tool(tool) {
                facts.planning_calls += 1;
                if dialect.apply(&mut plan, tool, &call["input"]).accepted {
                    facts.accepted_updates += 1;
                }
            }
        }
        let reminder = policy.after_turn(&facts, &plan, dialect);
        assert_eq!(
            reminder.as_deref(),
            turn["reminder"].as_str(),
            "{name} after turn {}",
            t + 1
        );
        fired += usize::from(reminder.is_some());
    }
    fired
}

#[test]
fn qwen_code_reminds_after_the_same_turns() {
    assert_eq!(qwen_reminders("qwen_code"), 5);
    assert_eq!(qwen_reminders("qwen_code_errors"), 4);
}

#[test]
fn gemini_and_opencode_send_no_planning_reminder() {
    // What either CLI added after its tool results over the probes'
    // turns: Gemini's loop warning, nothing that speaks of the plan.
    let mut added = Vec::new();
    for name in ["gemini", "opencode", "opencode_errors"] {
        for turn in turns(&probe(name)) {
            assert!(turn["reminder"].is_null(), "{name}");
            for text in turn["added"].as_array().into_iter().flatten() {
                added.push(text.as_str().unwrap_or_default().to_string());
            }
        }
    }
    assert_eq!(added.len(), 1, "{added:?}");
    assert!(added[0].starts_with("System: Potential loop detected"));
    assert!(!added[0].to_lowercase().contains("todo"));
}
