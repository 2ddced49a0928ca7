//! The simulated model: it decides from its input alone, it is
//! deterministic, and its parameters move results the way they claim to.

use crate::support;
use agent_eval::agent::tools::schemas;
use agent_eval::eval::{Cell, EvalOptions, evaluate_scenario, run_once};
use agent_eval::llm::Model;
use agent_eval::llm::{ContentBlock, Message, ModelRequest, Role};
use agent_eval::model::simulated::{SimulateParams, SimulatedModel, run_seed};
use agent_eval::plan::todo::TodoManager;
use agent_eval::scenario::{self, Axis, AxisValue, ModelSpec, NagThreshold, Scenario};
use serde_json::json;
use std::path::Path;

fn ten_step() -> Scenario {
    scenario::load(Path::new("scenarios/ten_step_refactor.yaml")).unwrap()
}

fn with_params(mut scenario: Scenario, params: SimulateParams) -> Scenario {
    scenario.model = ModelSpec::Simulate(params);
    scenario
}

fn params(scenario: &Scenario) -> SimulateParams {
    match scenario.model {
        ModelSpec::Simulate(p) => p,
        _ => panic!("simulated scenario expected"),
    }
}

fn cell(scenario: &Scenario, todo: bool, nag: NagThreshold) -> Cell {
    Cell::of_agent(scenario).with_todo(todo).with_threshold(nag)
}

fn mean_completion(scenario: &Scenario, todo: bool, seeds: u64) -> f64 {
    let cell = cell(scenario, todo, NagThreshold::After(3));
    let total: f64 = (0..seeds)
        .map(|seed| run_once(scenario, &cell, seed).unwrap().result.completion())
        .sum();
    total / seeds as f64
}

/// A conversation in which the model has planned and done step 1.
fn history(scenario: &Scenario, render: &str, reminder: bool) -> Vec<Message> {
    let step1 = &scenario.steps[0];
    let mut calls = vec![ContentBlock::ToolUse {
        id: "toolu_1_1".into(),
        name: "todo".into(),
        input: json!({"items": []}).into(),
    }];
    let mut results = vec![ContentBlock::ToolResult {
        tool_use_id: "toolu_1_1".into(),
        content: render.into(),
        is_error: false,
    }];
    for (k, action) in step1.actions.iter().enumerate() {
        let id = format!("toolu_1_{}", k + 2);
        calls.push(ContentBlock::ToolUse {
            id: id.clone(),
            name: action.tool.clone(),
            input: action.input.clone(),
        });
        results.push(ContentBlock::ToolResult {
            tool_use_id: id,
            content: "ok".into(),
            is_error: false,
        });
    }
    if reminder {
        results.push(ContentBlock::text(
            "<reminder>Update your todos.</reminder>",
        ));
    }
    vec![
        Message::user_text(scenario.task.clone()),
        Message::blocks(Role::Assistant, calls),
        Message::blocks(Role::User, results),
    ]
}

fn plan_render(scenario: &Scenario, completed: usize) -> String {
    let mut manager = TodoManager::new();
    let items: Vec<_> = scenario
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let status = if i < completed {
                "completed"
            } else if i == completed {
                "in_progress"
            } else {
                "pending"
            };
            json!({"id": s.id, "text": s.text, "status": status})
        })
        .collect();
    manager.update(&json!(items)).unwrap()
}

fn respond(scenario: &Scenario, seed: u64, messages: &[Message]) -> Vec<ContentBlock> {
    let mut model = SimulatedModel::new(params(scenario), scenario.skills(), seed);
    let tools = schemas(true);
    let request = ModelRequest {
        system: "s",
        messages,
        turn: agent_eval::llm::count_turn(messages),
        tools: &tools,
        unchanged: 0,
    };
    model.respond(&request).unwrap().content
}

fn works_on(content: &[ContentBlock]) -> Option<String> {
    content.iter().find_map(|b| match b {
        ContentBlock::Text { text } => text
            .split("Working on step ")
            .nth(1)
            .and_then(|r| r.split(':').next())
            .map(str::to_string),
        _ => None,
    })
}

#[test]
fn the_same_request_gives_the_same_response() {
    // Whatever the model answered before (another conversation read into
    // its cache), a request gets the answer a fresh model gives it.
    let s = ten_step();
    let messages = history(&s, &plan_render(&s, 0), false);
    let other = history(&s, &plan_render(&s, 4), true);
    let tools = schemas(true);
    for seed in 0..20 {
        let mut used = SimulatedModel::new(params(&s), s.skills(), seed);
        let mut ask = |messages: &[Message]| {
            used.respond(&ModelRequest {
                system: "s",
                messages,
                turn: agent_eval::llm::count_turn(messages),
                tools: &tools,
                unchanged: 0,
            })
            .unwrap()
            .content
        };
        ask(&other);
        assert_eq!(ask(&messages), respond(&s, seed, &messages), "seed {seed}");
    }
}

#[test]
fn a_sender_that_promises_an_unchanged_prefix_is_taken_at_its_word() {
    // The built-in loop promises that its conversation only grew; the
    // model then reads only the new messages, without checking the old
    // ones again (a walk over the whole conversation every turn). Here
    // the "promise" is false on purpose: the model answers from what it
    // read before, so it was not read again. Without the promise the same
    // request gets the answer a fresh model gives it.
    let s = ten_step();
    let normal = history(&s, &plan_render(&s, 1), false);
    let ahead = history(&s, &plan_render(&s, 5), false);
    let tools = schemas(true);
    for seed in 0..20 {
        let mut model = SimulatedModel::new(params(&s), s.skills(), seed);
        let mut ask = |messages: &[Message], unchanged: usize| {
            model
                .respond(&ModelRequest {
                    system: "s",
                    messages,
                    turn: agent_eval::llm::count_turn(messages),
                    tools: &tools,
                    unchanged,
                })
                .unwrap()
                .content
        };
        ask(&normal, 0);
        let promised = ask(&ahead, ahead.len());
        assert_eq!(promised, respond(&s, seed, &normal), "seed {seed}");
        let checked = ask(&ahead, 0);
        assert_eq!(checked, respond(&s, seed, &ahead), "seed {seed}");
    }
}

#[test]
fn it_follows_the_render_it_reads() {
    let s = ten_step();
    // The render says steps 1-5 are done: a model reading it works on 6.
    let ahead = history(&s, &plan_render(&s, 5), false);
    let normal = history(&s, &plan_render(&s, 1), false);
    let mut differed = 0;
    for seed in 0..30 {
        let a = works_on(&respond(&s, seed, &ahead));
        let b = works_on(&respond(&s, seed, &normal));
        if a != b {
            differed += 1;
        }
        if let Some(step) = a {
            assert!(
                step.parse::<usize>().unwrap() >= 6,
                "seed {seed}: step {step}"
            );
        }
    }
    assert!(differed >= 25, "{differed}");
}

#[test]
fn a_render_it_cannot_parse_is_not_a_plan() {
    let s = ten_step();
    // A different format (no counter line): the model falls back to the
    // task and believes only what it did — step 1 — is done.
    let mangled = plan_render(&s, 5).replace("completed)", "done)");
    let messages = history(&s, &mangled, false);
    for seed in 0..30 {
        if let Some(step) = works_on(&respond(&s, seed, &messages)) {
            // Step 2, or a skip ahead to 3 or 4 — never 6 as the plan said.
            assert!(
                step.parse::<usize>().unwrap() <= 4,
                "seed {seed}: step {step}"
            );
        }
    }
}

#[test]
fn a_reminder_makes_an_update_likely() {
    let s = ten_step();
    let updates = |reminder: bool| {
        let messages = history(&s, &plan_render(&s, 0), reminder);
        // A later turn: pad the history so the first-turn rule does not apply.
        (0..100)
            .filter(|&seed| {
                respond(&s, seed, &messages)
                    .iter()
                    .any(|b| matches!(b, ContentBlock::ToolUse { name, .. } if name == "todo"))
            })
            .count()
    };
    let (with, without) = (updates(true), updates(false));
    assert!(with >= 80, "with reminder: {with}");
    assert!(without <= 30, "without reminder: {without}");
}

#[test]
fn it_never_calls_todo_when_not_offered() {
    let s = ten_step();
    let messages = vec![Message::user_text(s.task.clone())];
    let tools = schemas(false);
    for seed in 0..50 {
        let mut model = SimulatedModel::new(params(&s), s.skills(), seed);
        let content = model
            .respond(&ModelRequest {
                system: "s",
                messages: &messages,
                turn: agent_eval::llm::count_turn(&messages),
                tools: &tools,
                unchanged: 0,
            })
            .unwrap()
            .content;
        assert!(
            !content
                .iter()
                .any(|b| matches!(b, ContentBlock::ToolUse { name, .. } if name == "todo"))
        );
    }
}

#[test]
fn without_drift_every_step_completes_in_both_modes() {
    let s = ten_step();
    let p = SimulateParams {
        recall_floor: 1.0,
        invalid_todo_rate: 0.0,
        ..params(&s)
    };
    let s = with_params(s, p);
    for todo in [true, false] {
        assert_eq!(mean_completion(&s, todo, 15), 1.0, "todo={todo}");
    }
}

#[test]
fn a_longer_attention_span_never_lowers_mean_completion() {
    let s = ten_step();
    let base = params(&s);
    for todo in [false, true] {
        let mut last = 0.0;
        for span in [100.0, 300.0, 1000.0, 5000.0] {
            let scenario = with_params(
                s.clone(),
                SimulateParams {
                    attention_span: span,
                    ..base
                },
            );
            let completion = mean_completion(&scenario, todo, 40);
            assert!(
                completion + 0.02 >= last,
                "todo={todo} span {span}: {completion} < {last}"
            );
            last = completion;
        }
    }
}

#[test]
fn results_do_not_depend_on_jobs() {
    let mut s = ten_step();
    s.runs.set(
        Axis::NagThreshold,
        vec![
            AxisValue::Threshold(NagThreshold::After(3)),
            AxisValue::Threshold(NagThreshold::Off),
        ],
    );
    let run = |jobs| {
        evaluate_scenario(
            &s,
            &EvalOptions {
                seeds: Some(12),
                jobs: Some(jobs),
                shard: None,
                ..EvalOptions::default()
            },
            &|_| {},
        )
        .unwrap()
    };
    let one = run(1);
    assert_eq!(one, run(3));
    // todo true at both thresholds, and one todo-false cell (a threshold
    // makes no difference without the tool).
    assert_eq!(one.cells.len(), 3);
}

#[test]
fn seeds_are_a_fixed_function_of_name_and_index() {
    // Pinned values: a change here changes every simulated transcript.
    assert_eq!(run_seed("ten-step-refactor", 0), 0xabc2_4aaf_f98f_2920);
    assert_eq!(run_seed("api-migration", 7), 0xe501_d85f_7b52_d55c);
    assert_ne!(
        run_seed("ten-step-refactor", 0),
        run_seed("ten-step-refactor", 1)
    );
    assert_ne!(run_seed("ten-step-refactor", 0), run_seed("other", 0));
    insta::assert_snapshot!(format!(
        "{:016x} {:016x}",
        run_seed("ten-step-refactor", 0),
        run_seed("api-migration", 7)
    ));
}

#[test]
fn a_simulated_transcript_is_stable() {
    let s = ten_step();
    let record = run_once(&s, &cell(&s, true, NagThreshold::After(3)), 4).unwrap();
    insta::assert_snapshot!(agent_eval::report::transcript::to_json(&record).unwrap());
}

#[test]
fn steps_without_do_calls_are_claimed_not_looped_on() {
    let s = scenario::load_str(
        Path::new("tests/inline.yaml"),
        "task: t\nsteps:\n  - text: Think about it\n  - text: Write it\n    check: {file: a.txt, exists: true}\n    do: [{tool: write_file, input: {path: a.txt, content: x}}]\n  - text: Reflect\nmodel:\n  simulate: {recall_floor: 1.0, invalid_todo_rate: 0.0}\n",
    )
    .unwrap();
    for todo in [true, false] {
        for seed in 0..10 {
            let record = run_once(&s, &cell(&s, todo, NagThreshold::After(3)), seed).unwrap();
            assert_eq!(record.result.steps_completed, 1);
            assert_eq!(record.result.stop, agent_eval::agent::StopKind::EndTurn);
            assert!(
                record.result.turns <= 5,
                "todo={todo} seed {seed}: {} turns",
                record.result.turns
            );
        }
    }
}

#[test]
fn a_step_that_cannot_be_done_is_given_up_after_three_attempts() {
    let s = scenario::load_str(
        Path::new("tests/inline.yaml"),
        "task: t\nsteps:\n  - text: Broken\n    check: {file: b, exists: true}\n    do: [{tool: edit_file, input: {path: missing, old_text: a, new_text: b}}]\n  - text: Fine\n    check: {file: f, exists: true}\n    do: [{tool: write_file, input: {path: f, content: x}}]\nmodel:\n  simulate: {recall_floor: 1.0, invalid_todo_rate: 0.0}\n",
    )
    .unwrap();
    for todo in [true, false] {
        let record = run_once(&s, &cell(&s, todo, NagThreshold::After(3)), 0).unwrap();
        assert_eq!(record.result.steps_completed, 1, "todo={todo}");
        assert_eq!(record.result.stop, agent_eval::agent::StopKind::EndTurn);
        assert_eq!(
            record.result.turns, 5,
            "three tries, the other step, then done"
        );
    }
}

#[test]
fn every_tool_use_is_answered_and_only_prepended_reminders_break_the_protocol() {
    use agent_eval::llm::protocol;
    use agent_eval::scenario::Placement;
    let base = ten_step();
    for placement in [Placement::Prepend, Placement::Append, Placement::Fold] {
        let mut s = base.clone();
        s.agent.placement = placement;
        for seed in 0..25 {
            for (todo, nag) in [
                (true, NagThreshold::After(1)),
                (true, NagThreshold::After(3)),
                (false, NagThreshold::Off),
            ] {
                let record = run_once(&s, &cell(&s, todo, nag), seed).unwrap();
                // The protocol check covers "every tool_use answered once, in
                // the next message"; here nothing but a prepended reminder
                // may break it, once per reminder.
                let violations = protocol::check(&record.messages);
                assert!(
                    violations
                        .iter()
                        .all(|v| v.rule.starts_with("Messages following tool_use blocks")),
                    "seed {seed}: {violations:?}"
                );
                let expected = match placement {
                    Placement::Prepend => record.result.reminders_at.len(),
                    Placement::Append | Placement::Fold => 0,
                };
                assert_eq!(violations.len(), expected, "seed {seed} {placement:?}");
                assert_eq!(record.result.protocol_violations, expected);
            }
        }
    }
}

#[test]
fn every_dialect_plans_in_its_own_shape_and_completes_without_drift() {
    use agent_eval::plan::dialect::Dialect;
    let s = ten_step();
    let p = SimulateParams {
        recall_floor: 1.0,
        invalid_todo_rate: 0.0,
        ..params(&s)
    };
    let s = with_params(s, p);
    for &dialect in Dialect::ALL {
        let cell = cell(&s, true, NagThreshold::After(3))
            .with(&Axis::Dialect, &AxisValue::Dialect(dialect));
        for seed in 0..5 {
            let record = run_once(&s, &cell, seed).unwrap();
            let m = &record.result;
            assert_eq!(m.steps_completed, 10, "{dialect} seed {seed}");
            assert!(m.todo_calls >= 1, "{dialect} seed {seed}: no planning call");
            assert_eq!(m.rejected_todo_updates, 0, "{dialect} seed {seed}");
            assert_eq!(m.unknown_tool_calls, 0, "{dialect} seed {seed}");
            assert!(
                !record.plan.is_empty(),
                "{dialect} seed {seed}: no plan kept"
            );
        }
    }
}

#[test]
fn every_dialect_completes_more_than_no_planning_tool() {
    use agent_eval::plan::dialect::Dialect;
    let s = ten_step();
    let without = mean_completion(&s, false, 30);
    for &dialect in Dialect::ALL {
        let cell = cell(&s, true, NagThreshold::After(3))
            .with(&Axis::Dialect, &AxisValue::Dialect(dialect));
        let with: f64 = (0..30)
            .map(|seed| run_once(&s, &cell, seed).unwrap().result.completion())
            .sum::<f64>()
            / 30.0;
        assert!(with > without + 0.2, "{dialect}: {with} vs {without}");
    }
}

#[test]
fn invalid_updates_are_written_in_the_dialect_s_shape_and_rejected() {
    use agent_eval::plan::dialect::Dialect;
    let s = ten_step();
    let p = SimulateParams {
        invalid_todo_rate: 1.0,
        plan_first: 1.0,
        ..params(&s)
    };
    let s = with_params(s, p);
    for &dialect in Dialect::ALL {
        let cell = cell(&s, true, NagThreshold::After(3))
            .with(&Axis::Dialect, &AxisValue::Dialect(dialect));
        let m = run_once(&s, &cell, 1).unwrap().result;
        assert_eq!(m.unknown_tool_calls, 0, "{dialect}");
        assert!(m.todo_calls >= 1, "{dialect}");
    }
}

/// A model that read every earlier turn of a conversation (and, before it,
/// another conversation) answers each turn exactly as a fresh model given
/// only that turn's messages: reading only what is new changes nothing.
#[test]
fn reading_turn_by_turn_answers_as_reading_afresh() {
    let scenario = ten_step();
    let tools = schemas(true);
    for seed in 0..12 {
        for nag in [NagThreshold::After(3), NagThreshold::Off] {
            let record = run_once(&scenario, &cell(&scenario, true, nag), seed).unwrap();
            let messages = &record.messages;
            let generator = run_seed(&scenario.name, seed);
            let mut reused = SimulatedModel::new(params(&scenario), scenario.skills(), generator);
            // Another conversation first: the reading must start over.
            let other = run_once(&scenario, &cell(&scenario, false, nag), seed + 100).unwrap();
            let request = ModelRequest {
                system: "s",
                messages: &other.messages[..1],
                turn: agent_eval::llm::count_turn(&other.messages[..1]),
                tools: &tools,
                unchanged: 0,
            };
            reused.respond(&request).unwrap();
            for end in 1..=messages.len() {
                if messages[end - 1].role != Role::User {
                    continue;
                }
                let request = ModelRequest {
                    system: "s",
                    messages: &messages[..end],
                    turn: agent_eval::llm::count_turn(&messages[..end]),
                    tools: &tools,
                    unchanged: 0,
                };
                let mut fresh =
                    SimulatedModel::new(params(&scenario), scenario.skills(), generator);
                assert_eq!(
                    reused.respond(&request).unwrap(),
                    fresh.respond(&request).unwrap(),
                    "seed {seed}, {end} messages"
                );
            }
        }
    }
}

/// With Claude Code's Task tools the model loads them with ToolSearch
/// first when ToolSearch is offered (the binary's default, deferred), and
/// goes straight to TaskCreate when the agent offers the tools directly;
/// it reads its plan back with TaskList.
#[test]
fn the_task_tools_are_loaded_only_where_toolsearch_is_offered() {
    use agent_eval::plan::dialect::Dialect;
    let scenario = ten_step();
    let dialect = Dialect::ClaudeCodeTasks;
    let p = SimulateParams {
        plan_first: 1.0,
        invalid_todo_rate: 0.0,
        ..params(&scenario)
    };
    let all = schemas(false)
        .into_iter()
        .chain(dialect.get().tools())
        .collect::<Vec<_>>();
    let direct: Vec<_> = all
        .iter()
        .filter(|t| t.name != "ToolSearch")
        .cloned()
        .collect();
    let messages = [Message::user_text(scenario.task.clone())];
    let first_calls = |tools: &[agent_eval::llm::ToolSchema]| -> Vec<String> {
        let mut model = SimulatedModel::new(p, scenario.skills(), 7).with_dialect(dialect);
        let request = ModelRequest {
            system: "s",
            messages: &messages,
            turn: agent_eval::llm::count_turn(&messages),
            tools,
            unchanged: 0,
        };
        let response = model.respond(&request).unwrap();
        response
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect()
    };
    let deferred = first_calls(&all);
    assert_eq!(
        deferred.first().map(String::as_str),
        Some("ToolSearch"),
        "{deferred:?}"
    );
    assert!(
        deferred.iter().filter(|n| *n == "TaskCreate").count() == 10,
        "{deferred:?}"
    );
    assert!(deferred.contains(&"TaskList".to_string()), "{deferred:?}");
    let direct = first_calls(&direct);
    assert!(!direct.contains(&"ToolSearch".to_string()), "{direct:?}");
    assert_eq!(
        direct.first().map(String::as_str),
        Some("TaskCreate"),
        "{direct:?}"
    );
}

/// For a real CLI agent, which may run a response's calls concurrently, a
/// response that writes the plan never also reads it back: the built-in
/// loop's model ends a Task update with `TaskList`, the preset's model
/// leaves it out and keeps the same plan and step work.
#[test]
fn a_plan_read_back_is_left_out_of_a_writing_response_only_when_asked() {
    use agent_eval::plan::dialect::Dialect;
    let scenario = ten_step();
    let dialect = Dialect::ClaudeCodeTasks;
    let p = SimulateParams {
        plan_first: 1.0,
        invalid_todo_rate: 0.0,
        ..params(&scenario)
    };
    let tools: Vec<_> = schemas(false)
        .into_iter()
        .chain(dialect.get().tools())
        .filter(|t| t.name != "ToolSearch")
        .collect();
    let messages = [Message::user_text(scenario.task.clone())];
    let calls = |model: SimulatedModel| -> Vec<String> {
        let mut model = model.with_dialect(dialect);
        let request = ModelRequest {
            system: "s",
            messages: &messages,
            turn: agent_eval::llm::count_turn(&messages),
            tools: &tools,
            unchanged: 0,
        };
        let response = model.respond(&request).unwrap();
        response
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect()
    };
    for seed in 0..20 {
        let built_in = calls(SimulatedModel::new(p, scenario.skills(), seed));
        let apart = calls(SimulatedModel::new(p, scenario.skills(), seed).reading_back_apart());
        assert!(built_in.contains(&"TaskList".to_string()), "{built_in:?}");
        assert!(apart.contains(&"TaskCreate".to_string()), "{apart:?}");
        assert!(
            !apart.iter().any(|n| n == "TaskList" || n == "TaskGet"),
            "{apart:?}"
        );
        let without_list: Vec<String> = built_in.into_iter().filter(|n| n != "TaskList").collect();
        assert_eq!(without_list, apart, "seed {seed}");
    }
}

#[test]
fn a_conversation_rewritten_before_its_last_message_is_read_afresh() {
    let s = ten_step();
    // The same last exchange after two different beginnings: a render of
    // five steps done, then the agent rewrote that result to one step done.
    let tail = [
        Message::blocks(
            Role::Assistant,
            vec![ContentBlock::ToolUse {
                id: "toolu_2_1".into(),
                name: "bash".into(),
                input: json!({"command": "ls"}).into(),
            }],
        ),
        Message::blocks(
            Role::User,
            vec![ContentBlock::ToolResult {
                tool_use_id: "toolu_2_1".into(),
                content: "ok".into(),
                is_error: false,
            }],
        ),
    ];
    let mut ahead = history(&s, &plan_render(&s, 5), false);
    ahead.extend(tail.iter().cloned());
    let mut rewritten = history(&s, &plan_render(&s, 1), false);
    rewritten.extend(tail.iter().cloned());
    let tools = schemas(true);
    let ask = |model: &mut SimulatedModel, messages: &[Message]| {
        model
            .respond(&ModelRequest {
                system: "s",
                messages,
                turn: agent_eval::llm::count_turn(messages),
                tools: &tools,
                unchanged: 0,
            })
            .unwrap()
            .content
    };
    let mut differed = 0;
    for seed in 0..20 {
        let mut model = SimulatedModel::new(params(&s), s.skills(), seed);
        ask(&mut model, &ahead);
        let after_rewrite = ask(&mut model, &rewritten);
        let fresh = respond(&s, seed, &rewritten);
        assert_eq!(after_rewrite, fresh, "seed {seed}");
        differed += usize::from(fresh != respond(&s, seed, &ahead));
    }
    // The two beginnings do read differently: the check has teeth.
    assert!(differed > 10, "{differed}");
}

/// The sessions of `seeds` runs of the ten-step refactor with `params`,
/// the todo tool offered and no reminder, as calibration reads them.
fn sessions_with(params: SimulateParams, seeds: u64) -> Vec<agent_eval::transcript::Session> {
    let scenario = with_params(ten_step(), params);
    let cell = cell(&scenario, true, NagThreshold::Off);
    support::sessions_of_runs(&scenario, &cell, 0..seeds)
}

fn plans(turn: &agent_eval::transcript::Turn) -> bool {
    turn.planning_calls.iter().any(|c| c.writes)
}

fn completed(plan: &[agent_eval::transcript::ItemStatus]) -> usize {
    plan.iter()
        .filter(|s| **s == agent_eval::transcript::ItemStatus::Completed)
        .count()
}

/// Exploration before the first plan: with `plan_first` 0 the first plan
/// comes at `first_plan_hazard`, whatever the update rate is.
#[test]
fn the_first_plan_comes_at_its_own_hazard() {
    let base = SimulateParams {
        plan_first: 0.0,
        todo_update_rate: 0.5,
        ..SimulateParams::default()
    };
    let never = sessions_with(
        SimulateParams {
            first_plan_hazard: Some(0.0),
            ..base
        },
        10,
    );
    assert!(never.iter().flat_map(|s| s.turns()).all(|t| !plans(t)));
    let at_once = sessions_with(
        SimulateParams {
            first_plan_hazard: Some(1.0),
            ..base
        },
        10,
    );
    for session in &at_once {
        let first = session.turns().position(plans);
        assert_eq!(first, Some(1), "the first plan is on turn 2");
    }
}

/// A closing update leaves every plan complete; without one (the
/// default) a run's last plan always shows open items.
#[test]
fn a_closing_update_completes_the_list() {
    let last_plans = |closing| -> Vec<(usize, usize)> {
        sessions_with(
            SimulateParams {
                closing_update: closing,
                ..SimulateParams::default()
            },
            12,
        )
        .iter()
        .filter_map(|s| s.turns().last()?.plan_after.clone())
        .map(|plan| (completed(&plan), plan.len()))
        .collect()
    };
    let closed = last_plans(1.0);
    assert!(closed.len() >= 10, "{closed:?}");
    assert!(closed.iter().all(|(done, all)| done == all), "{closed:?}");
    let open = last_plans(0.0);
    assert!(open.iter().all(|(done, all)| done < all), "{open:?}");
}

/// Items newly ticked by each update that leaves items open.
fn ticks(sessions: &[agent_eval::transcript::Session]) -> Vec<usize> {
    let mut out = Vec::new();
    for session in sessions {
        let mut before: Option<Vec<agent_eval::transcript::ItemStatus>> = None;
        for turn in session.turns() {
            if let (true, Some(b), Some(a)) = (plans(turn), &before, &turn.plan_after)
                && completed(a) < a.len()
            {
                out.push(completed(a).saturating_sub(completed(b)));
            }
            if turn.plan_after.is_some() {
                before = turn.plan_after.clone();
            }
        }
    }
    out
}

/// `items_per_update` caps what one update ticks; the default ticks every
/// step done since the last update, often more than one.
#[test]
fn an_update_ticks_at_most_items_per_update() {
    let base = SimulateParams {
        todo_update_rate: 0.2,
        invalid_todo_rate: 0.0,
        ..SimulateParams::default()
    };
    let capped = ticks(&sessions_with(
        SimulateParams {
            items_per_update: 1.0,
            ..base
        },
        12,
    ));
    assert!(capped.iter().all(|&n| n <= 1), "{capped:?}");
    assert!(
        capped.iter().filter(|&&n| n == 1).count() >= 10,
        "{capped:?}"
    );
    let free = ticks(&sessions_with(base, 12));
    assert!(free.iter().any(|&n| n >= 2), "{free:?}");
}

/// Sessions differ in their update rate under `update_rate_dispersion`:
/// the runs' planning shares spread far more than with one shared rate.
#[test]
fn a_dispersed_update_rate_spreads_the_sessions() {
    let spread = |dispersion| {
        let shares: Vec<f64> = sessions_with(
            SimulateParams {
                plan_first: 1.0,
                todo_update_rate: 0.3,
                update_rate_dispersion: dispersion,
                recall_floor: 1.0,
                ..SimulateParams::default()
            },
            24,
        )
        .iter()
        .map(|s| {
            let turns: Vec<_> = s.turns().skip(1).collect();
            turns.iter().filter(|t| plans(t)).count() as f64 / turns.len().max(1) as f64
        })
        .collect();
        let mean = shares.iter().sum::<f64>() / shares.len() as f64;
        shares.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / shares.len() as f64
    };
    let (shared, dispersed) = (spread(0.0), spread(0.6));
    assert!(dispersed > 3.0 * shared, "{dispersed} vs {shared}");
}

/// The pooled re-planning hazard falls with the turns since the last plan
/// when sessions differ in their rate, though each session's rate is flat:
/// why the model has no time-varying hazard (docs/simulated-model.md).
#[test]
fn sessions_that_differ_make_the_pooled_hazard_fall() {
    let hazard = |dispersion| {
        let sessions = sessions_with(
            SimulateParams {
                plan_first: 1.0,
                todo_update_rate: 0.25,
                update_rate_dispersion: dispersion,
                recall_floor: 1.0,
                ..SimulateParams::default()
            },
            60,
        );
        let stats = agent_eval::calibrate::observe::Stats::of(&sessions, 4.0);
        let rate = |near: bool| {
            let picked: Vec<bool> = stats
                .hazard
                .iter()
                .filter(|(since, _)| (*since <= 1.0) == near)
                .map(|(_, wrote)| *wrote)
                .collect();
            picked.iter().filter(|w| **w).count() as f64 / picked.len().max(1) as f64
        };
        (rate(true), rate(false))
    };
    let (near, far) = hazard(0.7);
    assert!(
        near > 1.5 * far,
        "dispersed: {near} right after a plan, {far} later"
    );
    let (near, far) = hazard(0.0);
    assert!(
        near < 1.3 * far && far < 1.3 * near,
        "shared: {near} vs {far}"
    );
}
