//! One rule for where the model finds a reminder, whichever API carried it:
//! a client that sends its planning reminder mid-conversation as a
//! `system` (Chat Completions) or `developer` (Responses) message gets the
//! same answers from the simulated model, seed for seed, as one that
//! appends it to its tool results over the Anthropic Messages API — and
//! the reminder is acted on (the answers differ from those without it).

use agent_eval::llm::Model;
use agent_eval::model::simulated::{SimulateParams, SimulatedModel};
use agent_eval::scenario::{self, ModelSpec, Scenario};
use agent_eval::wire::{MockServer, Reply, ServerOptions};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

const REMINDER: &str = "<reminder>Update your todos.</reminder>";

fn ten_step() -> Scenario {
    scenario::load(Path::new("scenarios/ten_step_refactor.yaml")).unwrap()
}

fn model(scenario: &Scenario, seed: u64) -> Box<dyn Model + Send> {
    let params: SimulateParams = match scenario.model {
        ModelSpec::Simulate(p) => p,
        _ => panic!("simulated scenario expected"),
    };
    Box::new(SimulatedModel::new(params, scenario.skills(), seed))
}

/// The request of turn 2 (after one `bash ls` call) over `api`, with the
/// reminder when `reminded`.
fn request(api: &str, task: &str, reminded: bool) -> (&'static str, Value) {
    let args = json!({"command": "ls"}).to_string();
    match api {
        "anthropic" => {
            let mut results =
                vec![json!({"type": "tool_result", "tool_use_id": "toolu_1_1", "content": "ok"})];
            if reminded {
                results.push(json!({"type": "text", "text": REMINDER}));
            }
            (
                "/v1/messages",
                json!({
                    "model": "m", "max_tokens": 100,
                    "tools": [{"name": "todo", "input_schema": {}}, {"name": "bash", "input_schema": {}}],
                    "messages": [
                        {"role": "user", "content": task},
                        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1_1", "name": "bash", "input": {"command": "ls"}}]},
                        {"role": "user", "content": results}
                    ]
                }),
            )
        }
        "chat" => {
            let mut messages = vec![
                json!({"role": "user", "content": task}),
                json!({"role": "assistant", "content": null, "tool_calls": [{"id": "toolu_1_1", "type": "function", "function": {"name": "bash", "arguments": args}}]}),
                json!({"role": "tool", "tool_call_id": "toolu_1_1", "content": "ok"}),
            ];
            if reminded {
                messages.push(json!({"role": "system", "content": REMINDER}));
            }
            (
                "/v1/chat/completions",
                json!({
                    "model": "m",
                    "tools": [{"type": "function", "function": {"name": "todo", "parameters": {}}},
                              {"type": "function", "function": {"name": "bash", "parameters": {}}}],
                    "messages": messages
                }),
            )
        }
        _ => {
            let mut input = vec![
                json!({"type": "message", "role": "user", "content": task}),
                json!({"type": "function_call", "call_id": "toolu_1_1", "name": "bash", "arguments": args}),
                json!({"type": "function_call_output", "call_id": "toolu_1_1", "output": "ok"}),
            ];
            if reminded {
                input.push(json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": REMINDER}]}));
            }
            (
                "/v1/responses",
                json!({
                    "model": "m",
                    "tools": [{"type": "function", "name": "todo", "parameters": {}},
                              {"type": "function", "name": "bash", "parameters": {}}],
                    "input": input
                }),
            )
        }
    }
}

/// The simulated model's answer (seeded) to `api`'s request, as recorded.
fn answer(scenario: &Scenario, seed: u64, api: &str, reminded: bool) -> String {
    let server = MockServer::start(model(scenario, seed), ServerOptions::default()).unwrap();
    let (path, body) = request(api, &scenario.task, reminded);
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .no_proxy()
        .build()
        .unwrap();
    let status = client
        .post(format!("{}{path}", server.base_url()))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .unwrap()
        .status();
    assert!(status.is_success(), "{api}: {status}");
    let exchanges = server.stop();
    match &exchanges.last().expect("one exchange").reply {
        Reply::Response { response, .. } => format!("{:?}", response.content),
        other => panic!("{api}: {other:?}"),
    }
}

#[test]
fn a_reminder_sent_as_a_system_or_developer_message_is_acted_on_as_over_anthropic() {
    let s = ten_step();
    let mut acted_on = 0;
    for seed in 0..12 {
        let anthropic = answer(&s, seed, "anthropic", true);
        for api in ["chat", "responses"] {
            assert_eq!(answer(&s, seed, api, true), anthropic, "{api}, seed {seed}");
        }
        acted_on += usize::from(answer(&s, seed, "anthropic", false) != anthropic);
    }
    assert!(acted_on > 0, "the reminder changed no answer");
}
