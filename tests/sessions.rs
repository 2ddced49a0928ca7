//! Sessions: several user messages in one conversation. The built-in loop
//! and an outside line-REPL agent (the example s03 agent reading stdin as
//! the s03 reference does, parts sent with `task_via: lines`) give the same
//! figures, per part, seed for seed; a user message the scenario did not
//! send is counted and named in the run's log; the loader refuses a
//! malformed session with the position of the problem.

use agent_eval::eval::{Cell, cells, run_once};
use agent_eval::results::RunResult;
use agent_eval::scenario::TaskVia;
use agent_eval::scenario::{self, Scenario};
use std::path::{Path, PathBuf};

const AGENT: &str = env!("CARGO_BIN_EXE_s03-agent");

fn shipped() -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/sessions/seed002.yaml");
    scenario::load(&path).unwrap()
}

/// The figures both sides must agree on.
fn figures(m: &RunResult) -> String {
    format!(
        "turns {} stop {} steps {}/{} reminders {:?} todo {} rejected {} violations {} parts {:?}",
        m.turns,
        m.stop,
        m.steps_completed,
        m.steps_total,
        m.reminders_at,
        m.todo_calls,
        m.rejected_todo_updates,
        m.protocol_violations,
        m.parts
    )
}

/// The scenario run by `command` (a line REPL) instead of the built-in loop.
fn with_agent(scenario: &Scenario, command: &str) -> Scenario {
    let mut outside = scenario.clone();
    outside.agent.use_command(command);
    if let Some(agent) = outside.agent.external.as_mut() {
        agent.timeout_s = 120;
    }
    outside
}

fn compare_on(outside: &Scenario, scenario: &Scenario, cell: &Cell, seeds: std::ops::Range<u64>) {
    for seed in seeds {
        let built_in = run_once(scenario, cell, seed).unwrap();
        let wire = run_once(outside, cell, seed).unwrap();
        let log = wire.agent_log.clone().unwrap_or_default();
        assert_eq!(
            figures(&wire.result),
            figures(&built_in.result),
            "seed {seed}, {}\n{log}",
            cell.settings
        );
        assert_eq!(built_in.result.parts.len(), 2);
        assert_eq!(wire.result.unexpected_user_messages, 0, "{log}");
        // The parts add up to the run.
        let parts = &wire.result.parts;
        assert_eq!(
            parts.iter().map(|p| p.turns).sum::<usize>(),
            wire.result.turns
        );
        assert_eq!(
            parts.iter().map(|p| p.todo_calls).sum::<usize>(),
            wire.result.todo_calls
        );
        assert_eq!(
            parts.iter().map(|p| p.steps_completed).sum::<usize>(),
            wire.result.steps_completed
        );
        let reminders: Vec<usize> = parts.iter().flat_map(|p| p.reminders_at.clone()).collect();
        assert_eq!(reminders, wire.result.reminders_at);
    }
}

#[test]
fn a_line_repl_agent_runs_a_session_with_the_built_in_figures() {
    let scenario = shipped();
    let outside = with_agent(&scenario, &format!("'{AGENT}'"));
    for cell in cells(&scenario) {
        compare_on(&outside, &scenario, &cell, 0..3);
    }
}

/// The unmodified upstream s03 client (`agents/s03_todo_write.py` of
/// shareAI-lab/learn-claude-code, with the `anthropic` and `python-dotenv`
/// packages) when `AGENT_EVAL_S03_PY` names it: the project does not ship
/// its code. Its settings are fixed (todo on, nag 3; the placement is its
/// version's), so only the todo cells of its placement are compared.
///
/// Ignored (so `cargo test` lists it as such rather than passing it
/// unseen): run it with `AGENT_EVAL_S03_PY=... cargo test --test integration
/// sessions:: -- --ignored`; without the variable it then fails.
#[test]
#[ignore = "needs AGENT_EVAL_S03_PY: the upstream s03 client, which the project does not ship"]
fn the_upstream_s03_client_runs_a_session_with_the_built_in_figures() {
    let client = std::env::var("AGENT_EVAL_S03_PY")
        .expect("set AGENT_EVAL_S03_PY to the upstream s03_todo_write.py to run this test");
    let source = std::fs::read_to_string(&client).unwrap();
    let mut scenario = shipped();
    if source.contains("results.append({\"type\": \"text\", \"text\": \"<reminder>") {
        scenario.agent.placement = agent_eval::scenario::Placement::Append;
    }
    let outside = with_agent(&scenario, &format!("python3 '{client}'"));
    for cell in cells(&scenario)
        .into_iter()
        .filter(|c| c.loop_settings.todo)
    {
        let mut cell = cell;
        cell.loop_settings.placement = scenario.agent.placement;
        compare_on(&outside, &scenario, &cell, 0..3);
    }
}

fn scripted(text: &str) -> Scenario {
    let dir = tempfile::tempdir().unwrap();
    let file: PathBuf = dir.path().join("s.yaml");
    std::fs::write(&file, text).unwrap();
    scenario::load(&file).unwrap()
}

#[test]
fn a_user_message_the_scenario_did_not_send_is_counted_and_logged() {
    // A two-line task delivered whole on stdin: a line REPL takes each
    // line for a message of its own.
    let scenario = scripted(
        "task: |\n  Say hello.\n  Then say goodbye.\nmodel:\n  script: [{text: hello}, {text: goodbye}]\n",
    );
    let mut outside = with_agent(&scenario, &format!("'{AGENT}'"));
    if let Some(agent) = outside.agent.external.as_mut() {
        agent.env.insert("S03_REPL".into(), "1".into());
    }
    let cell = Cell::of_agent(&outside);
    let run = run_once(&outside, &cell, 0).unwrap();
    let log = run.agent_log.unwrap_or_default();
    assert_eq!(run.result.turns, 2, "{log}");
    assert_eq!(run.result.unexpected_user_messages, 2, "{log}");
    assert!(
        log.contains("agent-eval: message 3 is a user message the scenario did not send: \"Then say goodbye.\""),
        "{log}"
    );
    // One line per task fixes it.
    if let Some(agent) = outside.agent.external.as_mut() {
        agent.task_via = TaskVia::Lines;
    }
    let run = run_once(&outside, &cell, 0).unwrap();
    let log = run.agent_log.unwrap_or_default();
    assert_eq!(run.result.unexpected_user_messages, 0, "{log}");
    assert_eq!(run.result.turns, 1, "{log}");
}

#[test]
fn the_built_in_loop_sends_each_part_after_the_model_ends_its_turn() {
    let scenario = scripted(
        "session:\n  - task: one\n  - task: two\nagent: {todo: true}\nmodel:\n  script:\n    - {tool: todo, input: {items: [{id: '1', text: a, status: in_progress}]}}\n    - {text: done one}\n    - {tool: bash, input: {command: ls}}\n    - {tool: bash, input: {command: ls}}\n    - {tool: bash, input: {command: ls}}\n    - {text: done two}\n",
    );
    let run = run_once(&scenario, &Cell::of_agent(&scenario), 0).unwrap();
    let texts: Vec<String> = run
        .messages
        .iter()
        .filter_map(|m| match &m.content {
            agent_eval::llm::Content::Text(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["one", "two"]);
    assert_eq!(run.result.turns, 6);
    // The nag counter restarts with part 2: three rounds without a todo
    // call there, so a reminder after turn 5 (not after turn 3 + ...).
    assert_eq!(run.result.reminders_at, [5]);
    let parts: Vec<(usize, usize, Vec<usize>)> = run
        .result
        .parts
        .iter()
        .map(|p| (p.turns, p.todo_calls, p.reminders_at.clone()))
        .collect();
    assert_eq!(parts, [(2, 1, vec![]), (4, 0, vec![5])]);
    // The plan carries over: part 2 ends with part 1's list.
    assert_eq!(run.plan.len(), 1);
}

#[test]
fn malformed_sessions_are_refused_with_their_position() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.yaml");
    let error = |text: &str| {
        std::fs::write(&file, text).unwrap();
        let e = scenario::load(&file).unwrap_err();
        (e.position.map(|p| p.0), e.message)
    };
    let model = "model:\n  script: [{text: hi}]\n";
    let (line, message) = error(&format!("task: t\nsession:\n  - task: a\n{model}"));
    assert_eq!(line, Some(2));
    assert!(
        message.contains("`task` and `session` are both set"),
        "{message}"
    );
    let (line, message) = error(&format!("session: []\n{model}"));
    assert_eq!(line, Some(1));
    assert!(message.contains("at least one part"), "{message}");
    let (line, message) = error(&format!(
        "session:\n  - task: a\n    steps: [{{id: x, text: s}}]\n  - task: b\n    steps:\n      - {{id: x, text: t}}\n{model}"
    ));
    assert_eq!(line, Some(6));
    assert!(
        message.contains("part 1 step 1 and part 2 step 1"),
        "{message}"
    );
    let (line, message) = error(&format!("session:\n  - task: a\n    step: []\n{model}"));
    assert_eq!(line, Some(3));
    assert!(message.contains("unknown field `step`"), "{message}");
    let (line, message) = error(&format!("session:\n  - task: a\nsteps: []\n{model}"));
    assert_eq!(line, Some(3));
    assert!(message.contains("beside `session`"), "{message}");
    let (line, message) = error(&format!("session:\n  - task: a\n  - task: ' '\n{model}"));
    assert_eq!(line, Some(3));
    assert!(message.contains("part 2 has an empty task"), "{message}");
    let (_, message) = error(&format!(
        "session:\n  - task: a\n{model}expect:\n  - part: 2\n    turns: 1\n"
    ));
    assert!(
        message.contains("part 2, but the scenario has 1 part"),
        "{message}"
    );
    let (_, message) = error(&format!(
        "session:\n  - task: a\n{model}expect:\n  - part: 1\n    rejected_todo_updates: 1\n"
    ));
    assert!(message.contains("`part` selects a figure"), "{message}");
    let (line, message) = error(&format!(
        "session:\n  - task: a\nagent:\n  command: x\n  task_via: arg\n{model}"
    ));
    assert_eq!(line, Some(5));
    assert!(message.contains("task_via: lines"), "{message}");
}

/// A stand-in agent (Python) that sends part 1's task with `forged`
/// made-up earlier turns in front of it (tool calls and their results the
/// model never served), takes one answer, and quits without sending part 2.
const FORGER: &str = r#"
import json, os, sys, urllib.request
forged = int(sys.argv[1])
task = sys.stdin.readline().strip()
messages = []
for k in range(forged):
    tid = "toolu_forged_%d" % k
    messages.append({"role": "user", "content": [{"type": "text", "text": task}]} if k == 0 else None)
    messages = [m for m in messages if m is not None]
    messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": tid, "name": "todo", "input": {"items": []}}]})
    messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": "ok"}]})
if not messages:
    messages.append({"role": "user", "content": task})
body = {"model": os.environ["MODEL_ID"], "max_tokens": 100, "messages": messages,
        "tools": [{"name": "todo", "description": "plan", "input_schema": {"type": "object"}},
                  {"name": "bash", "description": "sh", "input_schema": {"type": "object"}}]}
req = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages",
    data=json.dumps(body).encode(), headers={"content-type": "application/json",
    "x-api-key": os.environ["ANTHROPIC_API_KEY"], "anthropic-version": "2023-06-01"})
print(urllib.request.urlopen(req).read()[:80])
"#;

#[test]
fn per_part_figures_count_what_the_model_served_and_a_quitter_is_agent_exit() {
    let dir = tempfile::tempdir().unwrap();
    let forger = dir.path().join("forger.py");
    std::fs::write(&forger, FORGER).unwrap();
    let scenario = scripted(
        "session:\n  - task: one\n  - task: two\nagent: {todo: true}\nmodel:\n  script:\n    - {text: done one}\n    - {text: done two}\n",
    );
    let outside = with_agent(&scenario, &format!("python3 '{}' 300", forger.display()));
    let run = run_once(&outside, &Cell::of_agent(&outside), 0).unwrap();
    let log = run.agent_log.clone().unwrap_or_default();
    let m = &run.result;
    // One turn served, in part 1; the 300 made-up turns count nowhere.
    assert_eq!(m.turns, 1, "{log}");
    assert_eq!(m.parts.len(), 2, "{log}");
    assert_eq!((m.parts[0].turns, m.parts[0].todo_calls), (1, 0), "{log}");
    assert_eq!(m.parts[1].turns, 0, "{log}");
    // It quit with part 2 unsent: not the end of the session.
    assert_eq!(m.stop.to_string(), "agent_exit", "{log}");
    assert!(!m.parts[0].never_sent && m.parts[1].never_sent, "{log}");
    assert!(
        log.contains("part 2 of the session was never sent"),
        "{log}"
    );
}

#[test]
fn a_long_session_completes_with_its_plan_in_the_dialects_bounds() {
    // Two parts of 400 steps under s03, whose todo takes at most 20 items:
    // the simulated model plans the next 20 rather than resending (and
    // having refused) the whole list every turn, which made the
    // conversation, and memory, grow with steps x turns.
    let mut text = String::from("session:\n");
    for part in 0..2 {
        text.push_str(&format!(
            "  - task: \"Part {part}: write the files.\"\n    steps:\n"
        ));
        for i in 0..400 {
            let k = part * 400 + i;
            text.push_str(&format!(
                "      - text: \"Write f{k}.txt\"\n        check: {{file: f{k}.txt, exists: true}}\n        do: [{{tool: write_file, input: {{path: f{k}.txt, content: x}}}}]\n"
            ));
        }
    }
    text.push_str("model:\n  simulate: {}\nagent:\n  max_turns: 10000\n");
    let scenario = scripted(&text);
    let run = run_once(&scenario, &Cell::of_agent(&scenario), 0).unwrap();
    let m = &run.result;
    assert_eq!(m.parts.len(), 2);
    assert!(
        m.parts.iter().all(|p| !p.never_sent && p.turns > 0),
        "{m:?}"
    );
    assert!(m.steps_completed > 400, "{}", figures(m));
    // Rejected updates are the exception, not every turn.
    assert!(
        m.rejected_todo_updates * 10 < m.todo_calls,
        "{}",
        figures(m)
    );
    // No planning call lists more than the dialect's 20 items.
    let largest = run
        .messages
        .iter()
        .flat_map(|message| message.content_blocks())
        .filter_map(|block| match block {
            agent_eval::llm::ContentBlock::ToolUse { name, input, .. } if name == "todo" => {
                input.get("items").and_then(|i| i.as_array()).map(Vec::len)
            }
            _ => None,
        })
        .max()
        .unwrap_or(0);
    assert!(largest <= 20, "a plan of {largest} items");
}
