//! Speed of the wire: reading a long Anthropic conversation, writing a
//! response as a stream, one HTTP round trip through the mock server, and
//! one whole external run of the example agent (process start included).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test, benchmark or example: a failed assumption is a failure to see"
)]

use std::hint::black_box;
use std::path::Path;

use agent_eval::eval::execute::agent_process::{ExternalRun, run_external};
use agent_eval::eval::{Cell, model_for};
use agent_eval::llm::{ContentBlock, Model, ModelError, ModelRequest, ModelResponse};
use agent_eval::scenario;
use agent_eval::scenario::AgentCommand;
use agent_eval::wire::anthropic::{self, Usage};
use agent_eval::wire::{MockServer, ServerOptions};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

/// A 50-turn s03 conversation as a client sends it.
fn long_request() -> Vec<u8> {
    let mut messages = vec![json!({"role": "user", "content": "Refactor the project."})];
    for turn in 1..=50 {
        let id = format!("toolu_{turn}_1");
        messages.push(json!({"role": "assistant", "content": [
            {"type": "text", "text": "Working on it."},
            {"type": "tool_use", "id": id, "name": "bash", "input": {"command": format!("cat file{turn}.py")}}
        ]}));
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "def f():\n    return 1\n".repeat(20)}
        ]}));
    }
    json!({"model": "m", "max_tokens": 8000, "system": "You are a coding agent.",
           "tools": [{"name": "bash", "description": "Run", "input_schema": {"type": "object"}}],
           "messages": messages})
    .to_string()
    .into_bytes()
}

fn read_and_write(c: &mut Criterion) {
    let body = long_request();
    c.bench_function("wire: read a 50-turn Anthropic request", |b| {
        b.iter(|| black_box(anthropic::parse_request(black_box(&body)).is_ok()))
    });
    let response = ModelResponse::from_blocks(vec![
        ContentBlock::text("Next I will edit the file.".repeat(4)),
        ContentBlock::ToolUse {
            id: "toolu_1_1".into(),
            name: "edit_file".into(),
            input:
                json!({"path": "a.py", "old_text": "x".repeat(200), "new_text": "y".repeat(200)})
                    .into(),
        },
    ]);
    c.bench_function("wire: write a response as Anthropic events", |b| {
        b.iter(|| {
            black_box(anthropic::response_events(
                black_box(&response),
                "msg_1",
                "m",
                Usage {
                    input: 10,
                    output: 10,
                },
            ))
        })
    });
}

/// Always the same short answer.
struct Echo;

impl Model for Echo {
    fn respond(&mut self, _: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        Ok(ModelResponse::from_blocks(vec![ContentBlock::text("ok")]))
    }
}

fn round_trip(c: &mut Criterion) {
    let server = MockServer::start(Box::new(Echo), ServerOptions::default()).expect("server");
    let client = reqwest::blocking::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let url = format!("{}/v1/messages", server.base_url());
    let body = json!({"model": "m", "max_tokens": 5,
        "tools": [{"name": "bash", "input_schema": {"type": "object"}}],
        "messages": [{"role": "user", "content": "hi"}]})
    .to_string();
    c.bench_function("wire: one HTTP round trip (JSON)", |b| {
        b.iter(|| {
            let reply: Value = client
                .post(&url)
                .body(body.clone())
                .send()
                .and_then(|r| r.json())
                .expect("reply");
            black_box(reply)
        })
    });
    // The server's record grows with every request; it goes with the server.
    drop(server);
}

fn external_run(c: &mut Criterion) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/scripted/reminder_append.yaml");
    let scenario = scenario::load(&path).expect("scenario");
    let cell = Cell::of_agent(&scenario);
    let agent_bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/s03-agent");
    if !agent_bin.exists() {
        eprintln!("skipping the external run: build target/release/s03-agent first");
        return;
    }
    let agent = AgentCommand::new(format!("'{}'", agent_bin.display()));
    let mut group = c.benchmark_group("wire");
    group.sample_size(10);
    group.bench_function("one external run of the example agent (5 turns)", |b| {
        b.iter(|| {
            let dir = tempfile::tempdir().expect("workspace");
            let run = ExternalRun::new(dir.path(), &scenario.task, &agent);
            let model = model_for(&scenario, &cell, 0).expect("model");
            black_box(run_external(model, &run).expect("run").observed.turns)
        })
    });
    group.finish();
}

criterion_group!(benches, read_and_write, round_trip, external_run);
criterion_main!(benches);
