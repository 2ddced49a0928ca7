//! The built-in loop through the wire: the loop driven by the real-model
//! clients ([`AnthropicModel`], [`OpenAiModel`]) pointed at the mock server
//! serving a scenario's model gives the same transcript and metrics as the
//! in-process run — for every shipped scripted scenario, and for the
//! shipped simulated ones seed for seed, in every matrix cell.

use crate::fake_api;

use agent_eval::eval::{Cell, cells, model_for_in, run_once, run_with_model};
use agent_eval::llm::Model;
use agent_eval::model::http::{
    AnthropicModel, AnthropicParams, ApiKey, Endpoint, HttpContext, OpenAiModel, OpenAiParams,
    Provider, RetryPolicy,
};
use agent_eval::results::RunRecord;
use agent_eval::scenario::{ModelSpec, Scenario, load};
use agent_eval::wire::{MockServer, RunningServer, ServerOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn scenarios(folder: &str) -> Vec<Scenario> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scenarios in {}", root.display());
    files.iter().map(|f| load(f).unwrap()).collect()
}

fn is_simulated(scenario: &Scenario) -> bool {
    matches!(scenario.model, ModelSpec::Simulate(_))
}

/// A client of `server` speaking `provider`'s API (no retries: a failure
/// is a test failure).
fn client(provider: Provider, server: &RunningServer) -> Box<dyn Model> {
    let context = HttpContext::new()
        .unwrap()
        .with_retry(RetryPolicy {
            max_attempts: 1,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(1),
        })
        .with_request_timeout(Duration::from_secs(60));
    let key = ApiKey::new("mock-key");
    match provider {
        Provider::Anthropic => {
            let endpoint = Endpoint::new(provider, &server.base_url(), key).unwrap();
            Box::new(
                AnthropicModel::new(AnthropicParams::new("mock"), endpoint, context, 0).unwrap(),
            )
        }
        Provider::OpenAi => {
            let endpoint = Endpoint::new(provider, &server.openai_base_url(), key).unwrap();
            Box::new(OpenAiModel::new(OpenAiParams::new("mock"), endpoint, context, 0).unwrap())
        }
    }
}

/// The run's transcript (workspace path replaced) and its record, with
/// `make` building the model for the run's workspace.
fn run(
    scenario: &Scenario,
    cell: &Cell,
    seed: u64,
    make: impl FnOnce(&Path) -> Box<dyn Model>,
) -> (String, RunRecord) {
    let mut root = String::new();
    let record = run_with_model(scenario, cell, seed, |workspace| {
        root = workspace.to_string_lossy().into_owned();
        make(workspace)
    })
    .unwrap();
    let transcript = serde_json::to_string_pretty(&record.messages)
        .unwrap()
        .replace(&root, "{WORKDIR}");
    (mask_clock_times(&transcript), record)
}

/// `ls -l` prints a file's time (`Nov 23 10:43`): two runs a minute apart
/// differ there and nowhere else, so the minutes are masked.
fn mask_clock_times(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let hh_mm = chars.get(i..i + 5).is_some_and(|w| {
            w[0].is_ascii_digit()
                && w[1].is_ascii_digit()
                && w[2] == ':'
                && w[3].is_ascii_digit()
                && w[4].is_ascii_digit()
        });
        if hh_mm {
            out.push_str("HH:MM");
            i += 5;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

fn assert_same(scenario: &Scenario, cell: &Cell, seed: u64, provider: Provider) {
    let what = format!(
        "{} ({:?}, seed {seed}, over {provider})",
        scenario.name, cell.settings
    );
    // The model knows the run's workspace, as the harness's own does, so
    // it counts that path as the placeholder.
    let (expected, in_process) = run(scenario, cell, seed, |root| {
        model_for_in(scenario, cell, seed, Some(root)).unwrap()
    });
    // That is the harness's own run, metric for metric.
    assert_eq!(
        in_process.result,
        run_once(scenario, cell, seed).unwrap().result,
        "{what}: in process"
    );
    let mut server = None;
    let (actual, through_wire) = run(scenario, cell, seed, |root| {
        let started = MockServer::start(
            model_for_in(scenario, cell, seed, Some(root)).unwrap(),
            ServerOptions::default(),
        )
        .unwrap();
        let model = client(provider, &started);
        server = Some(started);
        model
    });
    if let Some(server) = server {
        server.stop();
    }
    assert_eq!(through_wire.result, in_process.result, "{what}: metrics");
    assert_eq!(actual, expected, "{what}: transcript");
    assert_eq!(
        through_wire.step_results, in_process.step_results,
        "{what}: steps"
    );
}

#[test]
fn scripted_scenarios_give_the_same_runs_through_the_wire() {
    for scenario in scenarios("scripted") {
        for cell in cells(&scenario) {
            for provider in [Provider::Anthropic, Provider::OpenAi] {
                assert_same(&scenario, &cell, 0, provider);
            }
        }
    }
}

#[test]
fn simulated_scenarios_give_the_same_runs_through_the_wire_seed_for_seed() {
    let shipped = scenarios("simulated").into_iter().chain(scenarios(""));
    for scenario in shipped {
        assert!(
            is_simulated(&scenario),
            "{} is not simulated",
            scenario.name
        );
        for cell in cells(&scenario) {
            for seed in 0..3 {
                assert_same(&scenario, &cell, seed, Provider::Anthropic);
            }
            assert_same(&scenario, &cell, 7, Provider::OpenAi);
        }
    }
}

/// A real-model client can itself sit behind `serve` (a proxy that puts a
/// real API under an external agent): the blocking client works inside the
/// server's blocking pool, and the answer passes through unchanged.
#[test]
fn a_real_model_client_serves_behind_the_mock_server() {
    use agent_eval::llm::{ContentBlock, Message, ModelRequest, ToolSchema};
    let fake = fake_api::FakeApi::builder()
        .otherwise(fake_api::Reply::ok(serde_json::json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-fake",
            "content": [{"type": "tool_use", "id": "toolu_01REAL", "name": "bash",
                         "input": {"command": "ls"}}],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 3, "output_tokens": 2}
        })))
        .start();
    let endpoint =
        Endpoint::new(Provider::Anthropic, &fake.url(), ApiKey::new("real-key")).unwrap();
    let real = AnthropicModel::new(
        AnthropicParams::new("claude-fake"),
        endpoint,
        HttpContext::new().unwrap(),
        0,
    )
    .unwrap();
    let server = MockServer::start(Box::new(real), ServerOptions::default()).unwrap();
    let mut client = client(Provider::OpenAi, &server);
    let messages = vec![Message::user_text("List the files.")];
    // A request without tools would be a side request the server answers
    // itself.
    let tools = vec![ToolSchema::new(
        "bash",
        "Run a command",
        serde_json::json!({"type": "object"}),
    )];
    let answer = client
        .respond(&ModelRequest {
            system: "s",
            messages: &messages,
            turn: agent_eval::llm::count_turn(&messages),
            tools: &tools,
            unchanged: 0,
        })
        .unwrap();
    assert_eq!(
        answer.content,
        vec![ContentBlock::ToolUse {
            id: "toolu_1_1".into(),
            name: "bash".into(),
            input: serde_json::json!({"command": "ls"}).into(),
        }]
    );
    server.stop();
    let received = fake.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].header("x-api-key"), Some("real-key"));
}
