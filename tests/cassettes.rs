//! Cassettes end to end: the built-in loop drives a real-model client (a
//! fake Anthropic API on loopback), the run is recorded, written as a
//! scripted scenario, read back and replayed offline in another workspace:
//! the same transcript, no drift. A replay whose requests differ (a changed
//! workspace, a changed task) reports drift per turn and still finishes.

use crate::fake_api;
use crate::support;

use agent_eval::agent::tools::Toolbox;
use agent_eval::agent::{LoopOutcome, LoopSettings, StopKind, run_loop};
use agent_eval::llm::Model;
use agent_eval::model::cassette::{
    CassetteSource, Drift, DriftLog, Recorder, Replay, Tape, WORKDIR_PLACEHOLDER,
    cassette_file_name, cassette_yaml, write_cassette,
};
use agent_eval::model::http::{
    AnthropicModel, AnthropicParams, ApiKey, Endpoint, HttpContext, Provider, RetryPolicy,
};
use agent_eval::model::scripted::ScriptedModel;
use agent_eval::model::scripted::ScriptedResponse;
use fake_api::{FakeApi, Reply};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

const TASK: &str = "Write notes.txt saying hello, then show where you are.";

/// A real API's answer for turn `turn` (API-made ids, usage).
fn answer(turn: usize) -> Value {
    let content = match turn {
        1 => json!([
            {"type": "text", "text": "I'll plan first."},
            {"type": "tool_use", "id": "toolu_01PLAN", "name": "todo", "input": {"items": [
                {"id": "1", "text": "Write notes.txt", "status": "in_progress"},
                {"id": "2", "text": "Show the folder", "status": "pending"}]}}
        ]),
        2 => json!([
            {"type": "tool_use", "id": "toolu_01WRITE", "name": "write_file",
             "input": {"path": "notes.txt", "content": "hello\n"}}
        ]),
        3 => json!([
            {"type": "tool_use", "id": "toolu_01PWD", "name": "bash", "input": {"command": "pwd"}},
            {"type": "tool_use", "id": "toolu_01CAT", "name": "bash", "input": {"command": "cat seed.txt"}}
        ]),
        4 => json!([
            {"type": "tool_use", "id": "toolu_01DONE", "name": "todo", "input": {"items": [
                {"id": "1", "text": "Write notes.txt", "status": "completed"},
                {"id": "2", "text": "Show the folder", "status": "completed"}]}}
        ]),
        _ => json!([{"type": "text", "text": "All done."}]),
    };
    let stop = if turn >= 5 { "end_turn" } else { "tool_use" };
    json!({"id": format!("msg_{turn}"), "type": "message", "role": "assistant",
           "model": "claude-fake", "content": content, "stop_reason": stop,
           "stop_sequence": null, "usage": {"input_tokens": 100 * turn, "output_tokens": 10}})
}

/// Answers by the number of assistant messages in the request, like a
/// model that follows the conversation.
fn fake_model_api() -> FakeApi {
    FakeApi::builder()
        .responder(Box::new(|body: &Value| {
            let assistant_turns = body["messages"]
                .as_array()
                .map(|m| m.iter().filter(|m| m["role"] == "assistant").count())
                .unwrap_or(0);
            Reply::ok(answer(assistant_turns + 1))
        }))
        .start()
}

fn settings() -> LoopSettings {
    LoopSettings {
        max_turns: 20,
        ..LoopSettings::default()
    }
}

/// A fresh workspace holding `seed.txt`.
fn workspace(seed: &str) -> (tempfile::TempDir, Toolbox) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("seed.txt"), seed).unwrap();
    let toolbox = Toolbox::new(dir.path()).unwrap();
    (dir, toolbox)
}

fn root(toolbox: &Toolbox) -> String {
    toolbox.root().to_string_lossy().into_owned()
}

/// The messages as JSON with the workspace path replaced.
fn transcript(outcome: &LoopOutcome, workdir: &str) -> String {
    serde_json::to_string(&outcome.messages)
        .unwrap()
        .replace(workdir, WORKDIR_PLACEHOLDER)
}

/// Records one run against the fake API; returns the outcome, the tape and
/// the workspace path.
fn record(task: &str) -> (LoopOutcome, Tape, String) {
    let fake = fake_model_api();
    let (_dir, toolbox) = workspace("first\n");
    let endpoint = Endpoint::new(Provider::Anthropic, &fake.url(), ApiKey::new("k")).unwrap();
    let context = HttpContext::new().unwrap().with_retry(RetryPolicy {
        max_attempts: 1,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(1),
    });
    let model =
        AnthropicModel::new(AnthropicParams::new("claude-fake"), endpoint, context, 0).unwrap();
    let mut recorder = Recorder::new(model, root(&toolbox));
    let tape = recorder.tape();
    let outcome = run_loop(&mut recorder, &toolbox, task, &settings());
    assert_eq!(fake.received().len(), 5);
    (outcome, tape, root(&toolbox))
}

/// Writes the cassette file, reads it back as the scenario loader would
/// see it, and splits its script into responses and hashes.
fn write_and_read_back(tape: &Tape, dir: &Path) -> (Vec<ScriptedResponse>, Vec<Option<String>>) {
    let scenario = json!({
        "name": "notes",
        "task": TASK,
        "steps": [{"text": "Write notes.txt", "check": {"file": "notes.txt", "contains": "hello"}}],
        "model": {"anthropic": {"model": "claude-fake"}},
        "runs": {"seeds": 3},
    });
    let settings = serde_json::Map::new();
    let text = cassette_yaml(
        CassetteSource {
            scenario,
            scenario_dir: dir,
            settings: &settings,
            model: "anthropic:claude-fake",
            seed: 0,
        },
        &tape.script(),
    )
    .unwrap();
    assert!(text.starts_with("# A cassette: recorded from anthropic:claude-fake, seed 0"));
    let name = cassette_file_name("notes", &settings, 0);
    let path = write_cassette(&dir.join("cassettes"), &name, &text).unwrap();
    assert!(path.ends_with("cassettes/notes-seed-0.yaml"));
    let back: Value = serde_saphyr::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(back["task"], json!(TASK));
    assert!(back.get("runs").is_none(), "a cassette is one run");
    assert!(back["model"].get("anthropic").is_none());
    let script = back["model"]["script"].as_array().unwrap().clone();
    assert_eq!(script.len(), 5);
    let mut responses = Vec::new();
    let mut hashes = Vec::new();
    for mut entry in script {
        let hash = entry
            .as_object_mut()
            .and_then(|e| e.remove("request_hash"))
            .and_then(|h| h.as_str().map(str::to_string));
        assert_eq!(hash.as_ref().map(String::len), Some(64));
        hashes.push(hash);
        responses.push(serde_json::from_value(entry).unwrap());
    }
    (responses, hashes)
}

fn replay(
    responses: Vec<ScriptedResponse>,
    hashes: Vec<Option<String>>,
    seed: &str,
    task: &str,
) -> (LoopOutcome, DriftLog, String) {
    let (_dir, toolbox) = workspace(seed);
    let mut model = Replay::new(ScriptedModel::new(responses), hashes, root(&toolbox));
    let drift = model.drift_log();
    let outcome = run_loop(&mut model as &mut dyn Model, &toolbox, task, &settings());
    (outcome, drift, root(&toolbox))
}

#[test]
fn record_then_replay_is_exact_and_offline() {
    let (recorded, tape, recorded_root) = record(TASK);
    assert_eq!(recorded.stop, StopKind::EndTurn);
    assert_eq!(recorded.turns, 5);
    let recorded_transcript = transcript(&recorded, &recorded_root);
    assert!(
        recorded_transcript.contains("toolu_3_2") && !recorded_transcript.contains("toolu_01"),
        "the transcript holds the loop's ids, not the API's"
    );
    assert!(
        recorded_transcript.contains(WORKDIR_PLACEHOLDER),
        "pwd showed the workspace"
    );

    let folder = tempfile::tempdir().unwrap();
    let (responses, hashes) = write_and_read_back(&tape, folder.path());
    // The fake API is gone: the replay cannot reach any server.
    let (replayed, drift, replay_root) = replay(responses, hashes, "first\n", TASK);
    assert_ne!(replay_root, recorded_root);
    assert_eq!(drift.get(), Vec::<Drift>::new());
    assert_eq!(transcript(&replayed, &replay_root), recorded_transcript);
    assert_eq!(replayed.turns, recorded.turns);
    assert_eq!(replayed.stop, recorded.stop);
    assert_eq!(replayed.reminders_at, recorded.reminders_at);
    assert_eq!(replayed.todo_calls, recorded.todo_calls);
    assert_eq!(
        replayed.rejected_todo_updates,
        recorded.rejected_todo_updates
    );
}

#[test]
fn a_changed_request_is_drift_per_turn_not_a_crash() {
    let (_, tape, _) = record(TASK);
    let folder = tempfile::tempdir().unwrap();
    let (responses, hashes) = write_and_read_back(&tape, folder.path());

    // The workspace changed: `cat seed.txt` (turn 3) now shows other text,
    // so every request from turn 4 on differs.
    let (outcome, drift, _) = replay(responses.clone(), hashes.clone(), "second\n", TASK);
    assert_eq!(outcome.stop, StopKind::EndTurn);
    assert_eq!(drift.turns(), vec![4, 5]);
    for d in drift.get() {
        assert_ne!(d.expected, d.actual);
    }

    // The task changed: every request differs.
    let (_, drift, _) = replay(responses, hashes, "first\n", "Another task.");
    assert_eq!(drift.turns(), vec![1, 2, 3, 4, 5]);
}

#[test]
fn hashes_depend_neither_on_the_workspace_path_nor_on_api_ids() {
    let (_, first, _) = record(TASK);
    let (_, second, _) = record(TASK);
    let hashes =
        |tape: &Tape| -> Vec<String> { tape.turns().into_iter().map(|t| t.request_hash).collect() };
    assert_eq!(hashes(&first), hashes(&second));
}

// The command line: `run` with a real model, `--record`, replaying the
// cassette, drift as a failed expectation, the spend limit, missing keys.

const SECRET: &str = "sk-ant-SECRET-test-key-42";

const REAL_SCENARIO: &str = "name: notes
task: Write notes.txt saying hello, then show where you are.
workspace:
  files:
    seed.txt: \"alpha-content\\n\"
steps:
  - text: Write notes.txt
    check: {file: notes.txt, contains: hello}
model:
  anthropic:
    model: claude-fake
    price: {input_per_mtok: 1, output_per_mtok: 10}
expect:
  - steps_completed: 1
";

/// `agent-eval ARGS` in `dir`, with the API variables replaced by `env`.
fn agent_eval(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = support::agent_eval_command();
    command.current_dir(dir).args(args);
    for (name, _) in std::env::vars() {
        if name.starts_with("ANTHROPIC_") || name.starts_with("OPENAI_") {
            command.env_remove(name);
        }
    }
    command.envs(env.iter().copied());
    let output = command.output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn cli_records_a_real_run_and_replays_it_offline_with_drift_checked() {
    let fake = fake_model_api();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.yaml"), REAL_SCENARIO).unwrap();
    let url = fake.url();
    let real_env = [
        ("ANTHROPIC_BASE_URL", url.as_str()),
        ("ANTHROPIC_API_KEY", SECRET),
    ];
    let (code, out, err) = agent_eval(
        dir.path(),
        &[
            "run",
            "notes.yaml",
            "--record",
            "rec",
            "--json",
            "real.json",
        ],
        &real_env,
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(fake.received().len(), 5);
    assert!(
        err.contains("real models: 1500 input tokens, 50 output tokens, $0.0020"),
        "{err}"
    );
    let report = read_json(&dir.path().join("real.json"));
    let cell = &report["scenarios"][0]["cells"][0];
    let run = &cell["results"][0];
    // Usage: 100 * turn input tokens and 10 output tokens per answer.
    assert_eq!(run["input_tokens"], json!(1500));
    assert_eq!(run["output_tokens"], json!(50));
    assert_eq!(run["cost"], json!(0.002));
    assert_eq!(cell["input_tokens"], json!(1500));
    assert_eq!(cell["cost"], json!(0.002));
    let recorded: Vec<_> = std::fs::read_dir(dir.path().join("rec"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(recorded.len(), 1, "one cassette per run");
    let cassette = recorded[0].clone();
    let cassette_arg = cassette.to_str().unwrap();
    let cassette_text = std::fs::read_to_string(&cassette).unwrap();
    for text in [&out, &err, &cassette_text, &report.to_string()] {
        assert!(!text.contains(SECRET), "the key leaked: {text}");
    }
    drop(fake);

    // Offline, without any key: the same run, no drift.
    let (code, out, err) = agent_eval(
        dir.path(),
        &["run", cassette_arg, "--json", "replay.json"],
        &[],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let replay = read_json(&dir.path().join("replay.json"));
    let replayed = &replay["scenarios"][0]["cells"][0]["results"][0];
    for metric in [
        "turns",
        "stop",
        "steps_completed",
        "reminders_at",
        "todo_calls",
    ] {
        assert_eq!(replayed[metric], run[metric], "{metric}");
    }
    assert!(
        replayed.get("input_tokens").is_none(),
        "a replay costs nothing"
    );
    let expectations = &replay["scenarios"][0]["expectations"];
    assert!(
        expectations
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["text"] == "no drift" && e["ok"] == true),
        "{expectations}"
    );

    // The workspace changed under the cassette: drift from turn 4 on, a
    // failed expectation (exit 1), and the run still finishes.
    std::fs::write(
        &cassette,
        cassette_text.replace("alpha-content", "beta-content"),
    )
    .unwrap();
    let (code, out, err) = agent_eval(
        dir.path(),
        &["run", cassette_arg, "--json", "drift.json"],
        &[],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("no drift"), "{out}");
    let drift = read_json(&dir.path().join("drift.json"));
    assert_eq!(
        drift["scenarios"][0]["cells"][0]["results"][0]["drift_turns"],
        json!([4, 5])
    );
}

#[test]
fn cli_stops_starting_runs_once_the_spend_limit_is_reached() {
    let fake = fake_model_api();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.yaml"), REAL_SCENARIO).unwrap();
    let url = fake.url();
    // Each run costs $0.002: the first two start, the other two do not.
    let (code, out, err) = agent_eval(
        dir.path(),
        &[
            "run",
            "notes.yaml",
            "--seeds",
            "4",
            "--jobs",
            "1",
            "--max-cost",
            "0.003",
            "--yes",
            "--json",
            "out.json",
        ],
        &[
            ("ANTHROPIC_BASE_URL", url.as_str()),
            ("ANTHROPIC_API_KEY", SECRET),
        ],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("spend limit reached"), "{err}");
    assert!(err.contains("2 of 4 runs were not started"), "{err}");
    assert_eq!(fake.received().len(), 10);
    let report = read_json(&dir.path().join("out.json"));
    assert_eq!(report["scenarios"][0]["cells"][0]["runs"], json!(2));
}

#[test]
fn cli_without_a_key_exits_2_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.yaml"), REAL_SCENARIO).unwrap();
    let (code, out, err) = agent_eval(dir.path(), &["run", "notes.yaml"], &[]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("ANTHROPIC_API_KEY"), "{err}");
    assert!(err.contains("notes.yaml"), "{err}");

    // --model replaces a scenario's mock model.
    let scripted = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/scripted/guards.yaml");
    let (code, _, err) = agent_eval(
        dir.path(),
        &[
            "run",
            scripted.to_str().unwrap(),
            "--model",
            "openai:gpt-fake",
        ],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("OPENAI_API_KEY"), "{err}");
    let (code, _, err) = agent_eval(
        dir.path(),
        &["run", scripted.to_str().unwrap(), "--record", "rec"],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--record"), "{err}");
    // A budget needs a price.
    let (code, _, err) = agent_eval(
        dir.path(),
        &[
            "run",
            scripted.to_str().unwrap(),
            "--model",
            "openai:gpt-fake",
            "--max-cost",
            "1",
        ],
        &[("OPENAI_API_KEY", "k")],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("price") && err.contains("gpt-fake"), "{err}");
}

#[test]
fn cli_reports_a_failing_model_without_the_key() {
    let fake = FakeApi::builder()
        .otherwise(Reply::status(
            401,
            json!({"type": "error", "error": {"type": "authentication_error",
                   "message": format!("invalid x-api-key {SECRET}")}}),
        ))
        .start();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.yaml"), REAL_SCENARIO).unwrap();
    let url = fake.url();
    let (code, out, err) = agent_eval(
        dir.path(),
        &["run", "notes.yaml", "--record", "rec", "--json", "out.json"],
        &[
            ("ANTHROPIC_BASE_URL", url.as_str()),
            ("ANTHROPIC_API_KEY", SECRET),
        ],
    );
    // The expectation (a step done) fails; the run itself stopped cleanly.
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("stopped because the model failed"), "{err}");
    assert!(err.contains("401"), "{err}");
    let report = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    assert!(report.contains("\"stop\": \"model_error\""), "{report}");
    for text in [&out, &err, &report] {
        assert!(!text.contains(SECRET), "the key leaked: {text}");
    }
    assert!(
        !dir.path().join("rec").exists(),
        "a run the model broke off is not recorded"
    );
}

#[test]
fn cli_records_every_cell_of_a_matrix_and_each_cassette_replays() {
    let fake = FakeApi::builder().otherwise(Reply::ok(answer(99))).start();
    let dir = tempfile::tempdir().unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/ten_step_refactor.yaml");
    let url = fake.url();
    let (code, out, err) = agent_eval(
        dir.path(),
        &[
            "run",
            shipped.to_str().unwrap(),
            "--model",
            "anthropic:claude-fake",
            "--seeds",
            "1",
            "--record",
            "rec",
        ],
        &[
            ("ANTHROPIC_BASE_URL", url.as_str()),
            ("ANTHROPIC_API_KEY", SECRET),
        ],
    );
    // The shipped expectations are about the simulated model; what matters
    // here is that every cell ran and was recorded.
    assert_ne!(code, 2, "{out}\n{err}");
    let mut cassettes: Vec<String> = std::fs::read_dir(dir.path().join("rec"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".yaml"))
        .collect();
    cassettes.sort();
    // The cassettes carry their fixture: the folder is self-contained.
    assert!(
        dir.path()
            .join("rec/fixtures/inventory/inventory.py")
            .is_file(),
        "the fixture is copied beside the cassettes"
    );
    // todo true × 5 thresholds, and todo false once (a threshold makes no
    // difference without the tool).
    assert_eq!(cassettes.len(), 6, "{cassettes:?}");
    assert!(
        cassettes.contains(&"ten-step-refactor-todo-true-nag_threshold-off-seed-0.yaml".into()),
        "{cassettes:?}"
    );
    drop(fake);
    let (code, out, err) = agent_eval(dir.path(), &["run", "rec", "--json", "replay.json"], &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    let report = read_json(&dir.path().join("replay.json"));
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 6);
    for scenario in scenarios {
        assert_eq!(
            scenario["expectations"],
            json!([{"text": "no drift", "ok": true, "verdict": "pass", "measured": []}]),
            "{}",
            scenario["name"]
        );
    }
}
