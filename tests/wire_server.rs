//! The mock server over real HTTP: every API in JSON and streaming, what
//! the model is shown, malformed requests, the closing answer.

use agent_eval::llm::{
    ContentBlock, Message, Model, ModelError, ModelRequest, ModelResponse, tool_use_id, turn_of,
};
use agent_eval::wire::record::Finish;
use agent_eval::wire::{Api, MockServer, Reply, RunningServer, ServerOptions};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Replays responses; keeps what it was shown.
struct Replay {
    responses: Vec<Vec<(Option<&'static str>, Value)>>,
    seen: Seen,
}

impl Model for Replay {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        self.seen.lock().unwrap().push((
            request.system.to_string(),
            request.messages.to_vec(),
            request.tools.iter().map(|t| t.name.to_string()).collect(),
        ));
        let turn = turn_of(request);
        let index = self.seen.lock().unwrap().len() - 1;
        let Some(entry) = self.responses.get(index) else {
            return Err(ModelError::ScriptExhausted {
                turn,
                responses: self.responses.len(),
            });
        };
        let mut k = 0;
        let blocks = entry
            .iter()
            .map(|(name, value)| match name {
                Some(name) => ContentBlock::ToolUse {
                    id: {
                        k += 1;
                        tool_use_id(turn, k)
                    },
                    name: name.to_string(),
                    input: value.clone().into(),
                },
                None => ContentBlock::text(value.as_str().unwrap_or_default()),
            })
            .collect();
        Ok(ModelResponse::from_blocks(blocks))
    }
}

type Seen = Arc<Mutex<Vec<(String, Vec<Message>, Vec<String>)>>>;

fn start(responses: Vec<Vec<(Option<&'static str>, Value)>>) -> (RunningServer, Seen) {
    start_with(
        responses,
        ServerOptions {
            model_id: "mock-1".into(),
            ..ServerOptions::default()
        },
    )
}

fn start_with(
    responses: Vec<Vec<(Option<&'static str>, Value)>>,
    options: ServerOptions,
) -> (RunningServer, Seen) {
    let seen = Seen::default();
    let server = MockServer::start(
        Box::new(Replay {
            responses,
            seen: Arc::clone(&seen),
        }),
        options,
    )
    .unwrap();
    (server, seen)
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .no_proxy()
        .build()
        .unwrap()
}

fn post(server: &RunningServer, path: &str, body: &Value) -> (u16, String) {
    let response = client()
        .post(format!("{}{path}", server.base_url()))
        .header("anthropic-beta", "x")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .unwrap();
    (response.status().as_u16(), response.text().unwrap())
}

/// `(event, data)` pairs of an SSE body.
fn events(body: &str) -> Vec<(Option<String>, String)> {
    body.split("\n\n")
        .filter(|chunk| !chunk.trim().is_empty())
        .map(|chunk| {
            let mut event = None;
            let mut data = String::new();
            for line in chunk.lines() {
                if let Some(name) = line.strip_prefix("event:") {
                    event = Some(name.trim().to_string());
                } else if let Some(d) = line.strip_prefix("data:") {
                    data.push_str(d.trim_start());
                }
            }
            (event, data)
        })
        .collect()
}

fn bash_tool() -> Value {
    json!({"name": "bash", "description": "Run", "input_schema": {"type": "object"}})
}

fn two_turns() -> Vec<Vec<(Option<&'static str>, Value)>> {
    vec![
        vec![
            (None, json!("Planning.")),
            (Some("bash"), json!({"command": "ls"})),
        ],
        vec![(None, json!("Done."))],
    ]
}

/// A cell with planning off: the dialect's planning tools never reach the
/// model, whatever the agent offers (codex-acp 0.16.0 offers `update_plan`
/// whatever its config says), in every API; the other tools do.
#[test]
fn planning_tools_withheld_in_a_no_planning_cell_never_reach_the_model() {
    use agent_eval::plan::dialect::Dialect;
    let function =
        |name: &str| json!({"type": "function", "name": name, "parameters": {"type": "object"}});
    for (dialect, tools, kept) in [
        (
            Dialect::Codex,
            ["exec_command", "update_plan"],
            "exec_command",
        ),
        (Dialect::ClaudeCode, ["Bash", "TodoWrite"], "Bash"),
    ] {
        let (server, seen) = start_with(
            vec![vec![(None, json!("Done."))]],
            ServerOptions {
                withheld_planning: Some(dialect),
                ..ServerOptions::default()
            },
        );
        let (status, body) = post(
            &server,
            "/v1/responses",
            &json!({
                "model": "m", "input": "the task",
                "tools": tools.iter().map(|t| function(t)).collect::<Vec<_>>(),
            }),
        );
        assert_eq!(status, 200, "{body}");
        assert_eq!(seen.lock().unwrap()[0].2, [kept], "{dialect:?}");
        let exchanges = server.stop();
        let request = exchanges[0].request.as_ref().expect("recorded");
        assert!(
            request.offers(kept) && !request.offers(tools[1]),
            "{dialect:?}"
        );
    }
}

#[test]
fn anthropic_json_and_stream() {
    let (server, seen) = start(two_turns());
    let (status, body) = post(
        &server,
        "/v1/messages?beta=true",
        &json!({
            "model": "claude-x", "max_tokens": 100, "metadata": {"user_id": "u"},
            "system": [{"type": "text", "text": "You are a coding agent.", "cache_control": {"type": "ephemeral"}}],
            "tools": [{"name": "bash", "description": "Run", "input_schema": {"type": "object"}}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "the task"}]}]
        }),
    );
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["type"], "message");
    assert_eq!(body["model"], "claude-x");
    assert_eq!(body["stop_reason"], "tool_use");
    assert_eq!(body["content"][1]["id"], "toolu_1_1");
    assert!(body["usage"]["input_tokens"].as_u64().unwrap() > 0);
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen[0].0, "You are a coding agent.");
        assert_eq!(seen[0].1, [Message::user_text("the task")]);
        assert_eq!(seen[0].2, ["bash"]);
    }

    let (status, body) = post(
        &server,
        "/v1/messages",
        &json!({
            "model": "claude-x", "max_tokens": 100, "stream": true,
            "system": "You are a coding agent.",
            "tools": [{"name": "bash", "description": "Run", "input_schema": {"type": "object"}}],
            "messages": [
                {"role": "user", "content": "the task"},
                {"role": "assistant", "content": body["content"].clone()},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1_1", "content": [{"type": "text", "text": "a.txt"}]}]}
            ]
        }),
    );
    assert_eq!(status, 200, "{body}");
    let events = events(&body);
    let names: Vec<&str> = events.iter().filter_map(|(e, _)| e.as_deref()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    let delta: Value = serde_json::from_str(&events[4].1).unwrap();
    assert_eq!(delta["delta"]["stop_reason"], "end_turn");
    assert!(server.finished());
    let exchanges = server.stop();
    assert_eq!(exchanges.len(), 2);
    assert!(exchanges.iter().all(|e| e.violations.is_empty()));
    // The record holds the system prompt and the tool list once for both
    // requests (one sent the prompt as blocks, the other as a string), and
    // the second request's messages as it sent them.
    let (first, second) = (
        exchanges[0].request.as_ref().unwrap(),
        exchanges[1].request.as_ref().unwrap(),
    );
    assert!(Arc::ptr_eq(&first.system, &second.system));
    assert!(Arc::ptr_eq(&first.tools, &second.tools));
    assert_eq!(second.messages.len(), 3);
    assert_eq!(second.messages.to_vec()[0], Message::user_text("the task"));
    assert_eq!(first.messages.to_vec(), [Message::user_text("the task")]);
}

#[test]
fn chat_completions_json_and_stream() {
    let (server, seen) = start(two_turns());
    let request = json!({
        "model": "gpt-x",
        "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "the task"}],
        "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
    });
    let (status, body) = post(&server, "/v1/chat/completions", &request);
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    let message = &body["choices"][0]["message"];
    assert_eq!(body["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(message["content"], "Planning.");
    assert_eq!(message["tool_calls"][0]["id"], "call_1_1");
    assert_eq!(
        message["tool_calls"][0]["function"]["arguments"],
        "{\"command\":\"ls\"}"
    );

    let (status, body) = post(
        &server,
        "/v1/chat/completions",
        &json!({
            "model": "gpt-x", "stream": true, "stream_options": {"include_usage": true},
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "the task"},
                message,
                {"role": "tool", "tool_call_id": "call_1_1", "content": "a.txt"}
            ],
            "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
        }),
    );
    assert_eq!(status, 200, "{body}");
    let events = events(&body);
    assert_eq!(events.last().unwrap().1, "[DONE]");
    let chunks: Vec<Value> = events[..events.len() - 1]
        .iter()
        .map(|(_, d)| serde_json::from_str(d).unwrap())
        .collect();
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "Done.");
    assert_eq!(
        chunks[chunks.len() - 2]["choices"][0]["finish_reason"],
        "stop"
    );
    assert!(
        chunks.last().unwrap()["usage"]["total_tokens"]
            .as_u64()
            .is_some()
    );
    // The model saw the call under its own id.
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen[1].1[1].content_blocks()[1],
        ContentBlock::ToolUse {
            id: "toolu_1_1".into(),
            name: "bash".into(),
            input: json!({"command": "ls"}).into()
        }
    );
    assert_eq!(seen[1].0, "sys");
}

#[test]
fn responses_json_stream_and_freeform_calls() {
    let (server, seen) = start(vec![
        vec![(Some("apply_patch"), json!("*** Begin Patch\n*** End Patch"))],
        vec![(Some("shell"), json!({"command": ["ls"]}))],
        vec![(None, json!("All done."))],
    ]);
    let tools = json!([
        {"type": "function", "name": "shell", "parameters": {"type": "object"}},
        {"type": "custom", "name": "apply_patch", "description": "patch", "format": {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"}}
    ]);
    let (status, body) = post(
        &server,
        "/v1/responses",
        &json!({"model": "gpt-5", "instructions": "sys", "input": "the task", "tools": tools, "store": false}),
    );
    assert_eq!(status, 200, "{body}");
    let first: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(first["object"], "response");
    assert_eq!(first["output"][0]["type"], "custom_tool_call");
    assert_eq!(first["output"][0]["call_id"], "call_1_1");
    assert_eq!(
        first["output"][0]["input"],
        "*** Begin Patch\n*** End Patch"
    );

    let input = json!([
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "the task"}]},
        {"type": "custom_tool_call", "call_id": "call_1_1", "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch"},
        {"type": "custom_tool_call_output", "call_id": "call_1_1", "output": "Done!"}
    ]);
    let (status, body) = post(
        &server,
        "/v1/responses",
        &json!({"model": "gpt-5", "instructions": "sys", "input": input, "tools": tools, "stream": true}),
    );
    assert_eq!(status, 200, "{body}");
    let events = events(&body);
    let names: Vec<&str> = events.iter().filter_map(|(e, _)| e.as_deref()).collect();
    assert_eq!(
        names,
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed"
        ]
    );
    let done: Value = serde_json::from_str(&events[5].1).unwrap();
    assert_eq!(done["item"]["call_id"], "call_2_1");
    assert_eq!(done["item"]["arguments"], "{\"command\":[\"ls\"]}");
    let completed: Value = serde_json::from_str(&events[6].1).unwrap();
    assert!(
        completed["response"]["usage"]["total_tokens"]
            .as_u64()
            .unwrap()
            < 3000
    );
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen[1].1[1].content_blocks()[0],
        ContentBlock::ToolUse {
            id: "toolu_1_1".into(),
            name: "apply_patch".into(),
            input: json!("*** Begin Patch\n*** End Patch").into()
        }
    );
}

#[test]
fn a_freeform_call_over_other_apis_is_an_error_naming_the_turn() {
    let (server, _) = start(vec![vec![(Some("apply_patch"), json!("patch"))]]);
    let (status, body) = post(
        &server,
        "/v1/messages",
        &json!({"model": "m", "max_tokens": 5, "tools": [bash_tool()], "messages": [{"role": "user", "content": "t"}]}),
    );
    assert_eq!(status, 400);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["type"], "error");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("turn 1: the call of `apply_patch`"),
        "{message}"
    );
    assert!(matches!(
        server.exchanges()[0].reply,
        Reply::ModelFailed { .. }
    ));
}

#[test]
fn malformed_requests_get_the_apis_error_shape_and_the_server_lives_on() {
    let (server, _) = start(two_turns());
    let http = client();
    let send = |path: &str, body: Vec<u8>| {
        let response = http
            .post(format!("{}{path}", server.base_url()))
            .body(body)
            .send()
            .unwrap();
        let status = response.status().as_u16();
        (
            status,
            serde_json::from_str::<Value>(&response.text().unwrap()).unwrap(),
        )
    };
    for body in [
        b"{not json".to_vec(),
        b"[]".to_vec(),
        br#"{"messages": 3}"#.to_vec(),
        br#"{"messages": [{"role": "user", "content": [{"type": "tool_result"}]}]}"#.to_vec(),
        vec![0xff, 0xfe],
    ] {
        let (status, body) = send("/v1/messages", body);
        assert_eq!(status, 400);
        assert_eq!(body["type"], "error");
        assert_eq!(body["error"]["type"], "invalid_request_error");
    }
    for path in ["/v1/chat/completions", "/v1/responses"] {
        let (status, body) = send(
            path,
            br#"{"messages": [{"role": "wizard"}], "input": 4}"#.to_vec(),
        );
        assert_eq!(status, 400);
        assert_eq!(body["error"]["type"], "invalid_request_error");
        assert!(body["error"]["message"].is_string());
        assert!(body["error"].get("param").is_some() && body["error"].get("code").is_some());
    }
    let huge = vec![b' '; agent_eval::wire::server::DEFAULT_BODY_LIMIT + 10];
    let (status, body) = send("/v1/messages", huge.clone());
    assert_eq!(status, 413);
    assert_eq!(body["type"], "error");
    // The same answer as axum's own body extractor gives (the chat route
    // still takes the body that way, `/v1/messages` takes it chunk by chunk).
    let (_, chat) = send("/v1/chat/completions", huge);
    let message = "Failed to buffer the request body: length limit exceeded";
    assert_eq!(body["error"]["message"], message);
    assert_eq!(chat["error"]["message"], message);
    let (status, _) = send("/v2/nothing", Vec::new());
    assert_eq!(status, 404);
    // Still serving, and nothing malformed reached the model.
    let (status, _) = post(
        &server,
        "/v1/messages",
        &json!({"model": "m", "max_tokens": 5, "tools": [bash_tool()], "messages": [{"role": "user", "content": "t"}]}),
    );
    assert_eq!(status, 200);
    let exchanges = server.stop();
    assert_eq!(exchanges.iter().filter(|e| e.request.is_none()).count(), 9);
}

#[test]
fn an_exhausted_script_closes_with_end_turn_and_models_are_listed() {
    let (server, _) = start(Vec::new());
    let (status, body) = post(
        &server,
        "/v1/chat/completions",
        &json!({"model": "m", "tools": [{"type": "function", "function": {"name": "bash"}}], "messages": [{"role": "user", "content": "t"}]}),
    );
    assert_eq!(status, 200);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["choices"][0]["finish_reason"], "stop");
    assert!(server.finished());
    assert_eq!(server.turns(), 0);
    let models: Value = client()
        .get(format!("{}/v1/models", server.base_url()))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(models["data"][0]["id"], "mock-1");
    let exchanges = server.stop();
    assert_eq!(exchanges[0].api, Api::ChatCompletions);
    assert_eq!(exchanges[0].reply, Reply::Finished(Finish::ScriptExhausted));
}

#[test]
fn protocol_violations_are_recorded_not_refused() {
    let (server, _) = start(two_turns());
    let (status, _) = post(
        &server,
        "/v1/messages",
        &json!({"model": "m", "max_tokens": 5, "tools": [bash_tool()], "messages": [
            {"role": "user", "content": "t"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1_1", "name": "bash", "input": {}}]},
            {"role": "user", "content": [{"type": "text", "text": "<reminder>Update your todos.</reminder>"},
                                         {"type": "tool_result", "tool_use_id": "toolu_1_1", "content": "x"}]}
        ]}),
    );
    assert_eq!(status, 200);
    let exchanges = server.stop();
    assert_eq!(exchanges[0].violations.len(), 1);
    assert!(
        exchanges[0].violations[0]
            .rule
            .starts_with("Messages following tool_use")
    );
}

#[test]
fn requests_without_tools_are_side_requests_the_model_never_sees() {
    let (server, seen) = start(two_turns());
    // A quota check and a title request, as Claude Code sends them.
    for content in ["quota", "Write a title for this conversation"] {
        let (status, body) = post(
            &server,
            "/v1/messages",
            &json!({"model": "haiku", "max_tokens": 1, "messages": [{"role": "user", "content": content}]}),
        );
        assert_eq!(status, 200, "{body}");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["content"][0]["text"], "OK");
    }
    assert!(seen.lock().unwrap().is_empty());
    assert!(!server.finished());
    let (status, _) = post(
        &server,
        "/v1/messages",
        &json!({"model": "m", "max_tokens": 5, "tools": [bash_tool()], "messages": [{"role": "user", "content": "t"}]}),
    );
    assert_eq!(status, 200);
    assert_eq!(seen.lock().unwrap().len(), 1);
    let exchanges = server.stop();
    assert_eq!(exchanges.iter().filter(|e| e.is_loop()).count(), 1);
}
