//! The loop against scripted models: every tool_use is answered, requests
//! are what the reference sends, the nag counts rounds as s03 does.

use agent_eval::agent::tools::Toolbox;
use agent_eval::agent::{
    LoopOutcome, LoopSettings, REMINDER, RepeatGuard, StopKind, run_loop, system_prompt,
};
use agent_eval::llm::protocol;
use agent_eval::llm::{Content, ContentBlock, Role};
use agent_eval::model::scripted::ScriptedModel;
use agent_eval::scenario::{NagThreshold, Placement, ReminderSpec, ScriptedResponse, ToolCall};
use serde_json::json;

fn call(tool: &str, input: serde_json::Value) -> ScriptedResponse {
    ScriptedResponse {
        text: None,
        request_hash: None,
        calls: vec![ToolCall {
            tool: tool.into(),
            input: input.into(),
        }],
    }
}

fn settings(nag: NagThreshold, placement: Placement) -> LoopSettings {
    LoopSettings {
        reminder: ReminderSpec::S03 { threshold: nag },
        placement,
        ..LoopSettings::default()
    }
}

fn bash_turns(n: usize) -> Vec<ScriptedResponse> {
    (0..n)
        .map(|_| call("bash", json!({"command": "true"})))
        .collect()
}

/// Runs `script` through the loop in a fresh workspace; returns the outcome
/// and the model (for what it recorded and what it has left).
fn run(script: Vec<ScriptedResponse>, settings: &LoopSettings) -> (LoopOutcome, ScriptedModel) {
    let dir = tempfile::tempdir().unwrap();
    let toolbox = Toolbox::new(dir.path()).unwrap();
    let mut model = ScriptedModel::new(script).recording();
    let outcome = run_loop(&mut model, &toolbox, "the task", settings);
    (outcome, model)
}

#[test]
fn every_tool_use_is_answered_once_in_order() {
    let script = vec![
        ScriptedResponse {
            text: Some("three at once".into()),
            request_hash: None,
            calls: vec![
                ToolCall {
                    tool: "write_file".into(),
                    input: json!({"path": "a", "content": "x"}).into(),
                },
                ToolCall {
                    tool: "nope".into(),
                    input: json!({}).into(),
                },
                ToolCall {
                    tool: "todo".into(),
                    input: json!({"items": []}).into(),
                },
            ],
        },
        ScriptedResponse {
            text: Some("done".into()),
            request_hash: None,
            calls: vec![],
        },
    ];
    let (out, _) = run(
        script,
        &settings(NagThreshold::After(3), Placement::Prepend),
    );
    assert_eq!((out.stop, out.turns), (StopKind::EndTurn, 2));
    let results = out.messages[2].content_blocks();
    let expected = [
        ("toolu_1_1", "Wrote 1 bytes"),
        ("toolu_1_2", "Unknown tool: nope"),
        ("toolu_1_3", "No todos."),
    ];
    assert_eq!(results.len(), expected.len());
    for (block, (id, content)) in results.iter().zip(expected) {
        assert_eq!(
            block,
            &ContentBlock::ToolResult {
                tool_use_id: id.into(),
                content: content.into(),
                is_error: false
            }
        );
    }
    assert!(protocol::check(&out.messages).is_empty());
}

#[test]
fn requests_carry_the_reference_system_prompt_and_tools() {
    let dir = tempfile::tempdir().unwrap();
    let toolbox = Toolbox::new(dir.path()).unwrap();
    let mut model = ScriptedModel::new(bash_turns(1)).recording();
    let mut no_todo = settings(NagThreshold::After(3), Placement::Prepend);
    no_todo.todo = false;
    let out = run_loop(&mut model, &toolbox, "the task", &no_todo);
    assert_eq!((out.stop, out.turns), (StopKind::ScriptExhausted, 1));
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "the exhausted request is recorded too");
    assert_eq!(
        requests[0].system,
        system_prompt(&toolbox.root().to_string_lossy())
    );
    assert!(
        requests[0]
            .system
            .starts_with("You are a coding agent at /")
    );
    assert_eq!(
        requests[0].tool_names,
        ["bash", "read_file", "write_file", "edit_file"]
    );
    assert_eq!(requests[0].messages.len(), 1);
    assert_eq!(
        requests[0].messages[0].content,
        Content::Text("the task".into())
    );
    assert_eq!(requests[1].messages.len(), 3);
}

#[test]
fn the_todo_tool_is_offered_last() {
    let (_, model) = run(
        bash_turns(1),
        &settings(NagThreshold::After(3), Placement::Prepend),
    );
    assert_eq!(
        model.requests()[0].tool_names,
        ["bash", "read_file", "write_file", "edit_file", "todo"]
    );
}

#[test]
fn threshold_three_nags_every_turn_from_the_third() {
    let mut script = bash_turns(5);
    script.push(call("todo", json!({"items": [{"text": "x"}]})));
    script.extend(bash_turns(3));
    let (out, _) = run(
        script,
        &settings(NagThreshold::After(3), Placement::Prepend),
    );
    assert_eq!(out.reminders_at, [3, 4, 5, 9]);
    // Prepended: the reminder is the first block of the results.
    let after_turn_3 = out.messages[6].content_blocks();
    assert_eq!(after_turn_3[0], ContentBlock::text(REMINDER));
    assert!(matches!(after_turn_3[1], ContentBlock::ToolResult { .. }));
    assert_eq!(protocol::check(&out.messages).len(), 4);
}

#[test]
fn append_placement_and_off_threshold() {
    let (out, _) = run(
        bash_turns(2),
        &settings(NagThreshold::After(1), Placement::Append),
    );
    assert_eq!(out.reminders_at, [1, 2]);
    assert_eq!(
        out.messages[2].content_blocks().last(),
        Some(&ContentBlock::text(REMINDER))
    );
    assert!(protocol::check(&out.messages).is_empty());

    let (out, _) = run(
        bash_turns(6),
        &settings(NagThreshold::Off, Placement::Prepend),
    );
    assert!(out.reminders_at.is_empty());
}

#[test]
fn no_reminders_without_the_todo_tool() {
    let mut s = settings(NagThreshold::After(1), Placement::Prepend);
    s.todo = false;
    let (out, _) = run(bash_turns(5), &s);
    assert!(out.reminders_at.is_empty());
}

#[test]
fn max_turns_stops_after_the_results_of_the_last_turn() {
    let mut s = settings(NagThreshold::After(3), Placement::Prepend);
    s.max_turns = 2;
    let (out, model) = run(bash_turns(10), &s);
    assert_eq!((out.stop, out.turns), (StopKind::MaxTurns, 2));
    assert_eq!(out.messages.len(), 5);
    assert_eq!(out.messages[4].role, Role::User);
    assert_eq!(model.remaining(), 8);
}

#[test]
fn rejected_updates_count_and_reset_the_nag() {
    let mut script = bash_turns(2);
    script.push(call("todo", json!({"items": [{"text": ""}]})));
    script.extend(bash_turns(2));
    let (out, _) = run(
        script,
        &settings(NagThreshold::After(3), Placement::Prepend),
    );
    assert_eq!((out.rejected_todo_updates, out.todo_calls), (1, 1));
    assert!(out.reminders_at.is_empty());
    assert_eq!(
        &out.messages[6].content_blocks()[0],
        &ContentBlock::ToolResult {
            tool_use_id: "toolu_3_1".into(),
            content: "Error: Item 1: text required".into(),
            is_error: false
        }
    );
}

#[test]
fn fold_appends_the_reminder_to_the_last_tool_result() {
    let script = vec![ScriptedResponse {
        text: None,
        request_hash: None,
        calls: vec![
            ToolCall {
                tool: "bash".into(),
                input: json!({"command": "echo one"}).into(),
            },
            ToolCall {
                tool: "bash".into(),
                input: json!({"command": "echo two"}).into(),
            },
        ],
    }];
    let (out, _) = run(script, &settings(NagThreshold::After(1), Placement::Fold));
    assert_eq!(out.reminders_at, [1]);
    assert_eq!(
        out.messages[2].content_blocks(),
        [
            ContentBlock::ToolResult {
                tool_use_id: "toolu_1_1".into(),
                content: "one".into(),
                is_error: false
            },
            ContentBlock::ToolResult {
                tool_use_id: "toolu_1_2".into(),
                content: format!("two\n{REMINDER}"),
                is_error: false
            },
        ]
    );
    assert!(protocol::check(&out.messages).is_empty());
}

#[test]
fn any_policy_runs_in_the_loop_and_is_recorded() {
    let s = LoopSettings {
        reminder: ReminderSpec::Interval { every: 2 },
        placement: Placement::Append,
        ..LoopSettings::default()
    };
    let mut script = bash_turns(3);
    script.push(call(
        "todo",
        json!({"items": [{"text": "a"}, {"text": "b", "status": "completed"}]}),
    ));
    script.extend(bash_turns(2));
    let (out, _) = run(script, &s);
    assert_eq!(out.reminders_at, [2, 6]);
    assert_eq!(
        out.messages.last().unwrap().content_blocks().last(),
        Some(&ContentBlock::text(
            "# TODO LIST UPDATE REQUIRED - You MUST update your plan with your NEXT tool call.\n\n**Current Progress: 1/2 items completed (50%)**"
        ))
    );
    let off = LoopSettings {
        reminder: ReminderSpec::Off,
        ..LoopSettings::default()
    };
    assert!(run(bash_turns(8), &off).0.reminders_at.is_empty());
}

#[test]
fn calls_of_tools_not_offered_are_unknown_not_planning_calls() {
    let mut s = settings(NagThreshold::After(1), Placement::Prepend);
    s.todo = false;
    let script = vec![
        call("todo", json!({"items": []})),
        call("nope", json!({})),
        call("bash", json!({"command": "true"})),
    ];
    let (out, _) = run(script, &s);
    assert_eq!((out.todo_calls, out.unknown_tool_calls), (0, 2));
    assert_eq!(
        out.messages[2].content_blocks(),
        [ContentBlock::ToolResult {
            tool_use_id: "toolu_1_1".into(),
            content: "Unknown tool: todo".into(),
            is_error: false
        }]
    );
    assert!(out.reminders_at.is_empty());

    let (out, _) = run(
        vec![call("todo", json!({"items": []})), call("nope", json!({}))],
        &settings(NagThreshold::After(3), Placement::Prepend),
    );
    assert_eq!((out.todo_calls, out.unknown_tool_calls), (1, 1));
}

#[test]
fn the_repeat_guard_warns_and_ends_the_run_after_that_turn() {
    let guarded = LoopSettings {
        repeat_guard: Some(RepeatGuard {
            whitelist: vec!["todo".into(), "read_file".into()],
        }),
        reminder: ReminderSpec::Off,
        ..LoopSettings::default()
    };
    let read = || call("read_file", json!({"path": "a"}));
    let todo = || call("todo", json!({"items": []}));
    // Whitelisted tools may repeat; a changed input is no repeat.
    let script = vec![
        read(),
        read(),
        todo(),
        todo(),
        call("bash", json!({"command": "echo 1"})),
        call("bash", json!({"command": "echo 2"})),
        call("bash", json!({"command": "echo 2"})),
        call("bash", json!({"command": "echo 3"})),
    ];
    let (out, model) = run(script, &guarded);
    assert_eq!((out.stop, out.turns), (StopKind::RepeatedCall, 7));
    assert_eq!(model.remaining(), 1);
    let last = out.messages.last().unwrap();
    assert_eq!(
        last.role,
        Role::User,
        "the turn's results are appended first"
    );
    assert_eq!(
        last.content_blocks()[0],
        ContentBlock::ToolResult {
            tool_use_id: "toolu_7_1".into(),
            content: "Warning: Duplicate tool call detected (bash). Task may be stuck in a loop."
                .into(),
            is_error: false
        }
    );
    // Two identical calls in one response: the second is the repeat.
    let twice = vec![ScriptedResponse {
        text: None,
        request_hash: None,
        calls: vec![
            ToolCall {
                tool: "write_file".into(),
                input: json!({"path": "x", "content": "1"}).into(),
            },
            ToolCall {
                tool: "write_file".into(),
                input: json!({"path": "x", "content": "1"}).into(),
            },
        ],
    }];
    let (out, _) = run(twice, &guarded);
    assert_eq!(out.stop, StopKind::RepeatedCall);
    assert_eq!(
        out.messages[2].content_blocks()[0],
        ContentBlock::ToolResult {
            tool_use_id: "toolu_1_1".into(),
            content: "Wrote 1 bytes".into(),
            is_error: false
        }
    );
    // Without the guard the same script runs on.
    let (out, _) = run(bash_turns(3), &LoopSettings::default());
    assert_eq!(out.stop, StopKind::ScriptExhausted);
}

/// The Claude Code dialects answer a refused or failed call as the real
/// CLI does, with `is_error: true` on its `tool_result` (and so in the
/// Anthropic request that carries it); an accepted call has none. The s03
/// loop never sets it, as the reference loop does not.
#[test]
fn claude_code_dialects_flag_refused_calls_with_is_error() {
    use agent_eval::plan::dialect::Dialect;
    let flags = |dialect: Dialect, planning: ScriptedResponse| {
        let script = vec![
            ScriptedResponse {
                text: None,
                request_hash: None,
                calls: vec![
                    planning.calls[0].clone(),
                    ToolCall {
                        tool: "read_file".into(),
                        input: json!({"path": "missing.txt"}).into(),
                    },
                    ToolCall {
                        tool: "nope".into(),
                        input: json!({}).into(),
                    },
                    ToolCall {
                        tool: "write_file".into(),
                        input: json!({"path": "a", "content": "x"}).into(),
                    },
                ],
            },
            call("bash", json!({"command": "true"})),
        ];
        let settings = LoopSettings {
            dialect,
            ..LoopSettings::default()
        };
        let (out, model) = run(script, &settings);
        let flagged: Vec<bool> = out.messages[2]
            .content_blocks()
            .iter()
            .map(|b| matches!(b, ContentBlock::ToolResult { is_error: true, .. }))
            .collect();
        let sent = serde_json::to_value(&model.requests()[1].messages).unwrap();
        (
            flagged,
            sent.to_string().matches("\"is_error\":true").count(),
        )
    };
    let bad_todo = call("TodoWrite", json!({"todos": "not a list"}));
    assert_eq!(
        flags(Dialect::ClaudeCode, bad_todo.clone()),
        (vec![true, true, true, false], 3)
    );
    let bad_task = call("TaskCreate", json!({"subject": ""}));
    assert_eq!(
        flags(Dialect::ClaudeCodeTasks, bad_task),
        (vec![true, true, true, false], 3)
    );
    let bad_s03 = call("todo", json!({"items": "not a list"}));
    assert_eq!(flags(Dialect::S03, bad_s03), (vec![false; 4], 0));
}

/// A scripted model that notes, for each request, the turn it carries and
/// the turn its conversation counts.
struct TurnWitness {
    inner: ScriptedModel,
    turns: Vec<(usize, usize)>,
}

impl agent_eval::llm::Model for TurnWitness {
    fn respond(
        &mut self,
        request: &agent_eval::llm::ModelRequest<'_>,
    ) -> Result<agent_eval::llm::ModelResponse, agent_eval::llm::ModelError> {
        self.turns
            .push((request.turn, agent_eval::llm::count_turn(request.messages)));
        self.inner.respond(request)
    }
}

/// The loop carries each request's turn instead of the model counting the
/// conversation: over a long session the turns are the ones counting
/// gives, and the calls' ids are numbered by them as before.
#[test]
fn a_long_session_carries_the_turns_counting_gives() {
    let long = 400;
    let mut script: Vec<ScriptedResponse> = (0..long)
        .map(|i| call("read_file", json!({"path": format!("f{i}")})))
        .collect();
    script.push(ScriptedResponse {
        text: Some("done".into()),
        request_hash: None,
        calls: vec![],
    });
    let settings = LoopSettings {
        max_turns: long + 10,
        ..settings(NagThreshold::After(3), Placement::Prepend)
    };
    let dir = tempfile::tempdir().unwrap();
    let toolbox = Toolbox::new(dir.path()).unwrap();
    let mut model = TurnWitness {
        inner: ScriptedModel::new(script),
        turns: Vec::new(),
    };
    let out = run_loop(&mut model, &toolbox, "the task", &settings);
    assert_eq!((out.stop, out.turns), (StopKind::EndTurn, long + 1));
    let expected: Vec<(usize, usize)> = (1..=long + 1).map(|t| (t, t)).collect();
    assert_eq!(model.turns, expected);
    let ids: Vec<String> = out
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.content_blocks().iter())
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, .. } => Some(id.to_string()),
            _ => None,
        })
        .collect();
    let numbered: Vec<String> = (1..=long)
        .map(|turn| agent_eval::llm::tool_use_id(turn, 1))
        .collect();
    assert_eq!(ids, numbered);
}
