//! Snapshots of the transcripts that matter: the scripted ten-step refactor
//! (JSON, as compared with the s03 reference) and the readable replay.

use agent_eval::eval::{Cell, run_once};
use agent_eval::report::transcript;
use agent_eval::scenario::{self, NagThreshold};
use std::path::Path;

fn replay(
    file: &str,
    todo: bool,
    nag: NagThreshold,
) -> (scenario::Scenario, agent_eval::results::RunRecord) {
    let scenario = scenario::load(Path::new(file)).unwrap();
    let cell = Cell::of_agent(&scenario)
        .with_todo(todo)
        .with_threshold(nag);
    let record = run_once(&scenario, &cell, 0).unwrap();
    (scenario, record)
}

#[test]
fn ten_step_refactor_json() {
    let (_, record) = replay(
        "scenarios/scripted/ten_step_refactor.yaml",
        true,
        NagThreshold::After(3),
    );
    insta::assert_snapshot!(transcript::to_json(&record).unwrap());
}

#[test]
fn ten_step_refactor_without_todo_json() {
    let (_, record) = replay(
        "scenarios/scripted/ten_step_refactor.yaml",
        false,
        NagThreshold::After(3),
    );
    insta::assert_snapshot!(transcript::to_json(&record).unwrap());
}

#[test]
fn todo_rejections_text() {
    let (scenario, record) = replay(
        "scenarios/scripted/todo_rejections.yaml",
        true,
        NagThreshold::After(3),
    );
    insta::assert_snapshot!(transcript::render(&scenario, &record));
}

#[test]
fn reminder_prepend_text() {
    let (scenario, record) = replay(
        "scenarios/scripted/reminder_prepend.yaml",
        true,
        NagThreshold::After(1),
    );
    insta::assert_snapshot!(transcript::render(&scenario, &record));
}

/// Claude Code's Task tools in the built-in loop: ToolSearch, one task a
/// call, the probed answers, and the task reminder listing tasks by id.
#[test]
fn claude_code_tasks_text() {
    let scenario = scenario::load(Path::new("scenarios/dialects/claude-code-tasks.yaml")).unwrap();
    let record = run_once(&scenario, &Cell::of_agent(&scenario), 0).unwrap();
    insta::assert_snapshot!(transcript::render(&scenario, &record));
}
