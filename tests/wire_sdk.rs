//! The official Python SDKs (`anthropic`, `openai`, and Google's
//! `google-genai` for the Gemini API) against the mock server, streaming
//! and not. Skipped, saying so (failed in CI), when the SDKs are not
//! installed (`pip install anthropic==2.12.0 openai==3.54.0
//! google-genai==3.6.1`); the interpreter is `$AGENT_EVAL_PYTHON`, else
//! `python3`.

use crate::support;

use agent_eval::llm::{ContentBlock, Model, ModelError, ModelRequest, ModelResponse, turn_of};
use agent_eval::wire::{MockServer, ServerOptions};
use serde_json::json;

/// Plans and calls `bash` on turn 1, then is done.
struct TwoStep;

impl Model for TwoStep {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        Ok(ModelResponse::from_blocks(if turn_of(request) == 1 {
            vec![
                ContentBlock::text("Planning."),
                ContentBlock::ToolUse {
                    id: "toolu_1_1".into(),
                    name: "bash".into(),
                    input: json!({"command": "ls -la"}).into(),
                },
            ]
        } else {
            vec![ContentBlock::text("Done.")]
        }))
    }
}

/// The interpreter, when it can import `modules`; else says why (fails in CI).
fn python_with(modules: &str, install: &str) -> Option<String> {
    let python = std::env::var("AGENT_EVAL_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_sdks = support::command(&python)
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_sdks {
        support::skip_unless_required(&format!(
            "`{python} -c \"import {modules}\"` failed; install them with `pip install {install}`"
        ));
        return None;
    }
    Some(python)
}

/// Runs `script` (in tests/wire_sdk) against a fresh mock server: it must
/// print OK, and no request may break the protocol.
fn run_check(python: &str, script: &str) {
    let server = MockServer::start(
        Box::new(TwoStep),
        ServerOptions {
            model_id: "mock-model".into(),
            ..ServerOptions::default()
        },
    )
    .unwrap();
    let script = format!("{}/tests/wire_sdk/{script}", env!("CARGO_MANIFEST_DIR"));
    let output = support::command(python)
        .arg(script)
        .arg(server.base_url())
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stdout.trim(), "OK", "{stderr}");
    let exchanges = server.stop();
    assert!(exchanges.iter().all(|e| e.violations.is_empty()));
}

#[test]
fn the_google_genai_sdk_works_streaming_and_not() {
    let Some(python) = python_with("google.genai", "google-genai==3.6.1") else {
        return;
    };
    run_check(&python, "genai_check.py");
}

#[test]
fn the_official_python_sdks_work_streaming_and_not() {
    let Some(python) = python_with("anthropic, openai", "anthropic==2.12.0 openai==3.54.0") else {
        return;
    };
    let server = MockServer::start(
        Box::new(TwoStep),
        ServerOptions {
            model_id: "mock-model".into(),
            ..ServerOptions::default()
        },
    )
    .unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/wire_sdk/sdk_check.py");
    let output = support::command(&python)
        .arg(script)
        .arg(server.base_url())
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stdout.trim(), "OK", "{stderr}");
    let exchanges = server.stop();
    assert!(exchanges.iter().all(|e| e.violations.is_empty()));
}
