//! The `claude-code-tasks` dialect against what the real Claude Code
//! 2.1.330 answered: every call of every probe in
//! `tests/data/claude-code-tasks/probe/` is replayed on the built-in dialect
//! and must get the same text, and the task reminder must fire after the
//! same turns with the same text. `capture.sh` in that folder re-probes.

use std::fs;
use std::path::Path;

use agent_eval::plan::dialect::TaskFields;
use agent_eval::plan::reminder::{CLAUDE_CODE_TASKS_TEXT, ReminderSpec, TurnFacts};
use agent_eval::plan::{Dialect, PlanItem, PlanStatus};
use proptest::prelude::*;
use serde_json::{Value, json};

fn probe(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/claude-code-tasks/probe")
        .join(format!("{name}.json"));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn calls(probe: &Value) -> Vec<Value> {
    probe["calls"].as_array().cloned().unwrap_or_default()
}

/// Replays one probe; returns how many calls were compared. `deferred`:
/// the probe offered ToolSearch (else its answer is not compared: the
/// built-in loop always offers it with this dialect).
fn replay(name: &str, deferred: bool) -> usize {
    let d = Dialect::ClaudeCodeTasks.get();
    let mut plan: Vec<PlanItem> = Vec::new();
    let mut compared = 0;
    for (k, call) in calls(&probe(name)).iter().enumerate() {
        let tool = call["tool"].as_str().unwrap_or_default();
        let input = &call["input"];
        let expected = &call["result"];
        if let Some(answer) = d.load_tools(tool, input) {
            if !deferred {
                continue;
            }
            match expected {
                Value::String(text) => assert_eq!(&answer, text, "{name} call {k}"),
                _ => {
                    // Tool references: the built-in answer lists the same
                    // tools' definitions, in the same order.
                    let names: Vec<&str> = expected["tool_references"]
                        .as_array()
                        .map(|a| a.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    let found: Vec<&str> = names
                        .iter()
                        .copied()
                        .filter(|n| answer.contains(&format!("\"name\":\"{n}\"")))
                        .collect();
                    assert_eq!(found, names, "{name} call {k}: {answer}");
                    let first = answer.find(&format!("\"name\":\"{}\"", names[0]));
                    assert!(answer.starts_with("<functions>\n<function>") && first.is_some());
                }
            }
            compared += 1;
            continue;
        }
        if !d.is_planning_tool(tool) {
            continue;
        }
        let before = plan.clone();
        let outcome = d.apply(&mut plan, tool, input);
        assert_eq!(
            Some(outcome.content.as_str()),
            expected.as_str(),
            "{name} call {k}: {tool} {input}"
        );
        assert_eq!(
            !outcome.accepted,
            call["is_error"] == json!(true),
            "{name} call {k}: an error on the binary is a rejected call here"
        );
        if !outcome.accepted {
            assert_eq!(
                plan, before,
                "{name} call {k}: a rejected call changed the plan"
            );
        }
        compared += 1;
    }
    compared
}

#[test]
fn every_probed_call_is_answered_byte_identical() {
    let mut total = 0;
    for name in ["basics", "errors", "fields", "tool_search", "empty_fields"] {
        let n = replay(name, true);
        assert!(n >= 6, "{name}: only {n} calls compared");
        total += n;
    }
    // Offered directly (no ToolSearch in `--tools`) they answer the same.
    total += replay("direct", false);
    assert!(total >= 100, "{total} calls compared");
}

/// Runs the claude-code policy over a probe's calls (one a turn, as the
/// probes make them); returns the turns after which it fired and the texts.
fn reminders(name: &str) -> (Vec<usize>, Vec<String>) {
    let dialect = Dialect::ClaudeCodeTasks.get();
    let spec = ReminderSpec::by_name("claude-code").unwrap_or_else(|| panic!("no claude-code"));
    let mut policy = spec.policy();
    let mut plan = Vec::new();
    let (mut at, mut texts) = (Vec::new(), Vec::new());
    for (k, call) in calls(&probe(name)).iter().enumerate() {
        let tool = call["tool"].as_str().unwrap_or_default();
        let mut facts = TurnFacts {
            turn: k + 1,
            ..TurnFacts::default()
        };
        if dialect.is_planning_tool(tool) {
            facts.planning_calls = 1;
            let outcome = dialect.apply(&mut plan, tool, &call["input"]);
            facts.accepted_updates = usize::from(outcome.accepted);
        }
        if let Some(text) = policy.after_turn(&facts, &plan, dialect) {
            at.push(k + 1);
            texts.push(text);
        }
    }
    (at, texts)
}

#[test]
fn the_task_reminder_fires_when_and_as_the_binary_sends_it() {
    for name in ["reminder", "reminder_empty"] {
        let probed = probe(name);
        let probed = probed["reminders"].as_array().cloned().unwrap_or_default();
        let (at, texts) = reminders(name);
        let expected_at: Vec<usize> = probed
            .iter()
            .filter_map(|r| r["after_call"].as_u64())
            .map(|n| n as usize)
            .collect();
        assert_eq!(at, expected_at, "{name}");
        assert!(!at.is_empty());
        for (ours, theirs) in texts.iter().zip(&probed) {
            let body = ours
                .strip_prefix("<system-reminder>")
                .and_then(|t| t.strip_suffix("</system-reminder>"))
                .unwrap_or_else(|| panic!("{name}: not wrapped: {ours}"));
            let theirs = theirs["text"].as_str().unwrap_or_default();
            // Claude Code joins other system texts it sends in the same
            // turn after a blank line; the reminder is what comes first.
            assert!(
                theirs == body || theirs.starts_with(&format!("{body}\n\n")),
                "{name}:\nours:   {body:?}\ntheirs: {theirs:?}"
            );
            assert!(body.starts_with(CLAUDE_CODE_TASKS_TEXT));
        }
    }
    let (_, texts) = reminders("reminder");
    assert!(texts[0].contains("\n\nHere are the existing tasks:\n\n#1. [in_progress] Count\n#2. [pending] Check</system-reminder>"));
}

#[test]
fn the_schemas_are_the_ones_the_binary_offers() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/claude-code-tasks/schemas.json");
    let probed: Vec<Value> =
        serde_json::from_str(&fs::read_to_string(path).unwrap_or_default()).unwrap_or_default();
    let ours = Dialect::ClaudeCodeTasks.get().tools();
    let names: Vec<&str> = ours.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "TaskCreate",
            "TaskGet",
            "TaskList",
            "TaskUpdate",
            "ToolSearch"
        ]
    );
    for tool in &ours {
        let theirs = probed
            .iter()
            .find(|p| p["name"] == tool.name.as_ref())
            .unwrap_or_else(|| panic!("{} not probed", tool.name));
        assert_eq!(theirs["description"], tool.description.as_ref());
        assert_eq!(theirs["input_schema"], tool.input_schema);
    }
}

/// A call the model may make: create, update (any status word), list, get.
fn call() -> impl Strategy<Value = (&'static str, Value)> {
    let id = prop_oneof![
        "[1-9]".prop_map(Value::from),
        (1u64..9).prop_map(Value::from)
    ];
    let status = prop::sample::select(vec![
        "pending",
        "in_progress",
        "completed",
        "deleted",
        "done",
    ]);
    prop_oneof![
        3 => "[A-Za-z ]{0,8}".prop_map(|s| ("TaskCreate", json!({"subject": s, "description": s}))),
        3 => (id.clone(), status).prop_map(|(id, st)| ("TaskUpdate", json!({"taskId": id, "status": st}))),
        1 => (id.clone(), id.clone()).prop_map(|(a, b)| ("TaskUpdate", json!({"taskId": a, "addBlockedBy": [b]}))),
        1 => Just(("TaskList", json!({}))),
        1 => id.prop_map(|id| ("TaskGet", json!({"taskId": id}))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Ids are unique and increasing in the list; a deleted task is never
    /// listed nor referenced again while any task remains; TaskList shows
    /// the stored plan.
    #[test]
    fn ids_increase_and_deleted_tasks_are_gone(calls in prop::collection::vec(call(), 1..30)) {
        let d = Dialect::ClaudeCodeTasks.get();
        let mut plan: Vec<PlanItem> = Vec::new();
        let mut deleted: Vec<String> = Vec::new();
        for (tool, input) in calls {
            let before: Vec<String> = plan.iter().map(|i| i.id.clone()).collect();
            let outcome = d.apply(&mut plan, tool, &input);
            prop_assert_eq!(d.is_error(&outcome.content), !outcome.accepted);
            let ids: Vec<u64> = plan.iter().filter_map(|i| i.id.parse().ok()).collect();
            prop_assert_eq!(ids.len(), plan.len());
            prop_assert!(ids.windows(2).all(|w| w[0] < w[1]), "{:?}", ids);
            deleted.extend(before.into_iter().filter(|id| plan.iter().all(|i| i.id != *id)));
            if plan.is_empty() {
                // Nothing left to remember the counter by: ids start over
                // (the binary's counter would not; docs/dialects.md).
                deleted.clear();
            }
            let list = d.render(&plan);
            for item in &plan {
                let task = item.task.as_deref().cloned().unwrap_or_else(TaskFields::default);
                for other in task.blocks.iter().chain(&task.blocked_by) {
                    prop_assert!(!deleted.contains(other), "{} still refers to #{}", item.id, other);
                }
            }
            for id in &deleted {
                let line = format!("#{id} [");
                prop_assert!(!list.split('\n').any(|l| l.starts_with(&line)), "{}", list);
            }
            let read = d.plan_from_result(&list).unwrap_or_default();
            let stored: Vec<(String, PlanStatus)> = plan.iter().map(|i| (i.id.clone(), i.status)).collect();
            let shown: Vec<(String, PlanStatus)> = read.iter().map(|i| (i.id.clone(), i.status)).collect();
            prop_assert_eq!(shown, stored);
        }
    }
}
