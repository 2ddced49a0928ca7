//! Speed of the pieces that bound a big evaluation: the TodoManager on
//! every todo call, one scripted episode, one simulated episode, a sweep.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test, benchmark or example: a failed assumption is a failure to see"
)]

use std::hint::black_box;
use std::path::Path;

use agent_eval::eval::sweep::sweep;
use agent_eval::eval::{Cell, EvalOptions, run_once};
use agent_eval::llm::{ContentBlock, Message, Model, ModelRequest, Role, tool_use_id};
use agent_eval::model::simulated::{SimulateParams, SimulatedModel};
use agent_eval::plan::todo::TodoManager;
use agent_eval::scenario::{self, Axis, AxisValue, NagThreshold};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

fn todo_update_render(c: &mut Criterion) {
    let items: Vec<_> = (0..10)
        .map(|i| {
            let status = match i {
                0..4 => "completed",
                4 => "in_progress",
                _ => "pending",
            };
            json!({"id": (i + 1).to_string(), "text": format!("Step number {i} of the refactor"), "status": status})
        })
        .collect();
    let items = json!(items);
    c.bench_function("todo update+render (10 items)", |b| {
        let mut manager = TodoManager::new();
        b.iter(|| black_box(manager.update(black_box(&items)).is_ok()))
    });
}

fn episodes(c: &mut Criterion) {
    let scripted = scenario::load(Path::new("scenarios/scripted/ten_step_refactor.yaml")).unwrap();
    let cell = Cell::of_agent(&scripted)
        .with_todo(true)
        .with_threshold(NagThreshold::After(3));
    c.bench_function("scripted episode: ten-step refactor", |b| {
        b.iter(|| {
            black_box(
                run_once(&scripted, &cell, 0)
                    .unwrap()
                    .result
                    .steps_completed,
            )
        })
    });
    let simulated = scenario::load(Path::new("scenarios/ten_step_refactor.yaml")).unwrap();
    let cell = Cell::of_agent(&simulated)
        .with_todo(true)
        .with_threshold(NagThreshold::After(3));
    let mut seed = 0;
    c.bench_function("simulated episode: ten-step refactor", |b| {
        b.iter(|| {
            seed += 1;
            black_box(
                run_once(&simulated, &cell, seed % 200)
                    .unwrap()
                    .result
                    .steps_completed,
            )
        })
    });
}

fn full_sweep(c: &mut Criterion) {
    let simulated = scenario::load(Path::new("scenarios/ten_step_refactor.yaml")).unwrap();
    let mut thresholds: Vec<AxisValue> = [1, 2, 3, 5, 8]
        .map(|n| AxisValue::Threshold(NagThreshold::After(n)))
        .to_vec();
    thresholds.push(AxisValue::Threshold(NagThreshold::Off));
    let options = EvalOptions {
        seeds: Some(20),
        jobs: None,
        shard: None,
        ..EvalOptions::default()
    };
    let mut group = c.benchmark_group("sweep");
    group.sample_size(10);
    group.bench_function("ten-step refactor, 6 thresholds + no todo, 20 seeds", |b| {
        b.iter(|| {
            black_box(
                sweep(
                    &simulated,
                    &Axis::NagThreshold,
                    &thresholds,
                    &options,
                    &|_| {},
                )
                .unwrap()
                .best,
            )
        })
    });
    group.finish();
}

/// One simulated-model turn on a transcript of `turns` earlier turns (each
/// a step announcement with a `read_file` call and a 300-character result):
/// shows how a turn's cost grows with the transcript.
fn simulated_turn(c: &mut Criterion) {
    let simulated = scenario::load(Path::new("scenarios/ten_step_refactor.yaml")).unwrap();
    let tools = agent_eval::agent::tools::schemas(true);
    let mut group = c.benchmark_group("simulated turn");
    for turns in [10usize, 200] {
        let mut messages = vec![Message::user_text(simulated.task.clone())];
        for turn in 1..=turns {
            let id = tool_use_id(turn, 1);
            messages.push(Message::blocks(
                Role::Assistant,
                vec![
                    ContentBlock::text(format!("Let me look at the file (turn {turn}).")),
                    ContentBlock::ToolUse {
                        id: id.clone(),
                        name: "read_file".into(),
                        input: json!({"path": "inventory.py"}).into(),
                    },
                ],
            ));
            messages.push(Message::blocks(
                Role::User,
                vec![ContentBlock::ToolResult {
                    tool_use_id: id,
                    content: "x".repeat(300),
                    is_error: false,
                }],
            ));
        }
        let request = ModelRequest {
            system: "You are a coding agent.",
            messages: &messages,
            turn: agent_eval::llm::count_turn(&messages),
            tools: &tools,
            unchanged: 0,
        };
        let mut model = SimulatedModel::new(SimulateParams::default(), simulated.skills(), 7);
        group.bench_function(format!("after {turns} turns"), |b| {
            b.iter(|| black_box(model.respond(black_box(&request)).is_ok()))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    todo_update_render,
    episodes,
    full_sweep,
    simulated_turn
);
criterion_main!(benches);
