//! The real-model clients against fake APIs on loopback: request shapes and
//! headers, id mapping, retries and their bound, the concurrency limit,
//! usage and cost, the spend budget, and keys kept out of error texts.

use crate::fake_api;

use agent_eval::llm::{ContentBlock, Message, Model, ModelRequest, Role, StopReason, ToolSchema};
use agent_eval::model::http::{
    AnthropicModel, AnthropicParams, ApiKey, Endpoint, HttpContext, HttpModelError, OpenAiModel,
    OpenAiParams, Price, PriceTable, Provider, RetryPolicy, RunUsage, SpendBudget,
};
use fake_api::{FakeApi, Reply};
use serde_json::{Value, json};
use std::time::Duration;

const KEY: &str = "sk-test-SECRET-0123456789";

fn fast_retries(max_attempts: u32) -> HttpContext {
    HttpContext::new()
        .unwrap()
        .with_retry(RetryPolicy {
            max_attempts,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(5),
        })
        .with_request_timeout(Duration::from_secs(30))
}

fn anthropic(fake: &FakeApi, context: HttpContext) -> AnthropicModel {
    let endpoint = Endpoint::new(Provider::Anthropic, &fake.url(), ApiKey::new(KEY)).unwrap();
    AnthropicModel::new(AnthropicParams::new("claude-fake"), endpoint, context, 0).unwrap()
}

fn openai(fake: &FakeApi, context: HttpContext) -> OpenAiModel {
    let base = format!("{}/v1", fake.url());
    let endpoint = Endpoint::new(Provider::OpenAi, &base, ApiKey::new(KEY)).unwrap();
    OpenAiModel::new(OpenAiParams::new("gpt-fake"), endpoint, context, 0).unwrap()
}

fn anthropic_text(text: &str, input_tokens: u64, output_tokens: u64) -> Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-fake",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}
    })
}

fn anthropic_call(id: &str) -> Value {
    json!({
        "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-fake",
        "content": [
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": id, "name": "bash", "input": {"command": "ls"}}
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 100, "output_tokens": 20}
    })
}

fn tools() -> Vec<ToolSchema> {
    vec![ToolSchema::new(
        "bash",
        "Run a shell command.",
        json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
    )]
}

/// The task, then (if given) the answer and one result per call in it.
fn conversation(answer: Option<&[ContentBlock]>) -> Vec<Message> {
    let mut messages = vec![Message::user_text("List the files.")];
    if let Some(answer) = answer {
        messages.push(Message::blocks(Role::Assistant, answer.to_vec()));
        let results = answer
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse { id, .. } => Some(ContentBlock::ToolResult {
                    tool_use_id: id.clone(),
                    content: "a.txt".into(),
                    is_error: false,
                }),
                _ => None,
            })
            .collect();
        messages.push(Message::blocks(Role::User, results));
    }
    messages
}

fn ask(
    model: &mut dyn Model,
    messages: &[Message],
) -> Result<agent_eval::llm::ModelResponse, String> {
    let tools = tools();
    model
        .respond(&ModelRequest {
            system: "You are a coding agent at /w.",
            messages,
            turn: agent_eval::llm::count_turn(messages),
            tools: &tools,
            unchanged: 0,
        })
        .map_err(|e| e.to_string())
}

#[test]
fn anthropic_requests_have_the_api_shape_and_ids_map_back() {
    let fake = FakeApi::builder()
        .then(Reply::ok(anthropic_call("toolu_01ABCdef")))
        .then(Reply::ok(anthropic_text("Done.", 150, 5)))
        .start();
    let mut model = anthropic(&fake, fast_retries(1));
    let meter = model.usage_meter();

    let first = ask(&mut model, &conversation(None)).unwrap();
    assert_eq!(first.stop_reason, StopReason::ToolUse);
    assert_eq!(
        first.content,
        vec![
            ContentBlock::text("Looking."),
            ContentBlock::ToolUse {
                id: "toolu_1_1".into(),
                name: "bash".into(),
                input: json!({"command": "ls"}).into(),
            }
        ],
        "the API's id is replaced by the loop's"
    );
    let second = ask(&mut model, &conversation(Some(&first.content))).unwrap();
    assert_eq!(second.stop_reason, StopReason::EndTurn);
    assert_eq!(second.content, vec![ContentBlock::text("Done.")]);

    let received = fake.received();
    assert_eq!(received.len(), 2);
    let request = &received[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some(KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert!(
        request
            .header("content-type")
            .is_some_and(|v| v.starts_with("application/json"))
    );
    assert_eq!(
        request.body,
        json!({
            "model": "claude-fake",
            "max_tokens": 4096,
            "system": "You are a coding agent at /w.",
            "messages": [{"role": "user", "content": "List the files."}],
            "tools": [{"name": "bash", "description": "Run a shell command.",
                       "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}]
        })
    );
    // The second request sends the API's own id back, in the call and its result.
    let messages = &received[1].body["messages"];
    assert_eq!(messages[1]["content"][1]["id"], json!("toolu_01ABCdef"));
    assert_eq!(
        messages[2]["content"][0]["tool_use_id"],
        json!("toolu_01ABCdef")
    );
    assert_eq!(
        meter.get(),
        RunUsage {
            input_tokens: 250,
            output_tokens: 25,
            cost: None,
            responses: 2
        }
    );
}

#[test]
fn openai_requests_have_the_chat_completions_shape_and_ids_map_back() {
    let call = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-fake",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "call_XyZ", "type": "function",
                            "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}]}}],
        "usage": {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}
    });
    let done = json!({
        "id": "chatcmpl-2", "object": "chat.completion", "model": "gpt-fake",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "Done."}}],
        "usage": {"prompt_tokens": 60, "completion_tokens": 2, "total_tokens": 62}
    });
    let fake = FakeApi::builder()
        .then(Reply::ok(call))
        .then(Reply::ok(done))
        .start();
    let mut prices = PriceTable::new();
    prices.set(
        "gpt-fake",
        Price {
            input_per_mtok: 1.0,
            output_per_mtok: 10.0,
        },
    );
    let mut model = openai(&fake, fast_retries(1).with_prices(prices));
    let meter = model.usage_meter();

    let first = ask(&mut model, &conversation(None)).unwrap();
    assert_eq!(
        first.content,
        vec![ContentBlock::ToolUse {
            id: "toolu_1_1".into(),
            name: "bash".into(),
            input: json!({"command": "ls"}).into(),
        }]
    );
    let second = ask(&mut model, &conversation(Some(&first.content))).unwrap();
    assert_eq!(second.content, vec![ContentBlock::text("Done.")]);
    assert_eq!(second.stop_reason, StopReason::EndTurn);

    let received = fake.received();
    assert_eq!(received[0].path, "/v1/chat/completions");
    assert_eq!(
        received[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(
        received[0].body,
        json!({
            "model": "gpt-fake",
            "messages": [
                {"role": "system", "content": "You are a coding agent at /w."},
                {"role": "user", "content": "List the files."}
            ],
            "tools": [{"type": "function", "function": {"name": "bash", "description": "Run a shell command.",
                       "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}]
        })
    );
    assert_eq!(
        received[1].body["messages"].as_array().unwrap()[2..],
        [
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_XyZ", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}]}),
            json!({"role": "tool", "tool_call_id": "call_XyZ", "content": "a.txt"}),
        ]
    );
    let usage = meter.get();
    assert_eq!((usage.input_tokens, usage.output_tokens), (100, 11));
    let cost = usage.cost.unwrap();
    assert!((cost - (100.0 * 1.0 + 11.0 * 10.0) / 1e6).abs() < 1e-12);
}

#[test]
fn overloaded_twice_then_ok_is_retried() {
    let overloaded =
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let fake = FakeApi::builder()
        .then(Reply::status(529, overloaded.clone()))
        .then(Reply::status(529, overloaded).header("retry-after-ms", "1"))
        .then(Reply::ok(anthropic_text("Hello.", 5, 1)))
        .start();
    let mut model = anthropic(&fake, fast_retries(5));
    let meter = model.usage_meter();
    let answer = ask(&mut model, &conversation(None)).unwrap();
    assert_eq!(answer.content, vec![ContentBlock::text("Hello.")]);
    assert_eq!(fake.received().len(), 3);
    assert_eq!(
        meter.get().responses,
        1,
        "usage counts answers, not attempts"
    );
}

#[test]
fn rate_limits_and_server_errors_are_retried_a_bounded_number_of_times() {
    let fake = FakeApi::builder()
        .then(Reply::status(429, json!({"error": "slow down"})))
        .otherwise(Reply::status(503, json!({"error": "unavailable"})))
        .start();
    let mut model = anthropic(&fake, fast_retries(3));
    let error = ask(&mut model, &conversation(None)).unwrap_err();
    assert_eq!(fake.received().len(), 3, "exactly max_attempts requests");
    assert!(error.contains("503"), "{error}");
    assert!(error.contains("gave up after 3 attempts"), "{error}");
}

#[test]
fn client_errors_are_not_retried() {
    let fake = FakeApi::builder()
        .otherwise(Reply::status(
            400,
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}),
        ))
        .start();
    let mut model = openai(&fake, fast_retries(5));
    let error = ask(&mut model, &conversation(None)).unwrap_err();
    assert_eq!(fake.received().len(), 1);
    assert!(
        error.contains("400") && error.contains("invalid_request_error"),
        "{error}"
    );
}

#[test]
fn the_key_never_appears_in_an_error() {
    // A server that echoes the key it was sent.
    let fake = FakeApi::builder()
        .otherwise(Reply::status(
            401,
            json!({"error": {"message": format!("Incorrect API key provided: {KEY}")}}),
        ))
        .start();
    for model in [
        &mut anthropic(&fake, fast_retries(2)) as &mut dyn Model,
        &mut openai(&fake, fast_retries(2)),
    ] {
        let error = ask(model, &conversation(None)).unwrap_err();
        assert!(error.contains("401"), "{error}");
        assert!(error.contains("[redacted]"), "{error}");
        assert!(!error.contains(KEY), "{error}");
        assert!(!error.contains("SECRET"), "{error}");
    }

    // Nothing listening: a connection error, retried, then reported.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let endpoint = Endpoint::new(
        Provider::Anthropic,
        &format!("http://{closed}"),
        ApiKey::new(KEY),
    )
    .unwrap();
    let mut model =
        AnthropicModel::new(AnthropicParams::new("m"), endpoint, fast_retries(2), 0).unwrap();
    let error = ask(&mut model, &conversation(None)).unwrap_err();
    assert!(error.contains("gave up after 2 attempts"), "{error}");
    assert!(!error.contains(KEY), "{error}");
}

#[test]
fn a_missing_key_is_a_typed_error_naming_the_variable() {
    let none = |_: &str| None;
    for (provider, var) in [
        (Provider::Anthropic, "ANTHROPIC_API_KEY"),
        (Provider::OpenAi, "OPENAI_API_KEY"),
    ] {
        let error = Endpoint::from_lookup(provider, none).unwrap_err();
        assert_eq!(error, HttpModelError::MissingKey { provider, var });
        assert!(error.to_string().contains(var));
    }
}

#[test]
fn malformed_answers_are_backend_errors() {
    let fake = FakeApi::builder()
        .then(Reply::ok(json!({"unexpected": true})))
        .then(Reply::ok(
            json!({"choices": [{"message": {"tool_calls": 5}}]}),
        ))
        .start();
    let error = ask(&mut anthropic(&fake, fast_retries(1)), &conversation(None)).unwrap_err();
    assert!(error.contains("unexpected response"), "{error}");
    let error = ask(&mut openai(&fake, fast_retries(1)), &conversation(None)).unwrap_err();
    assert!(error.contains("unexpected response"), "{error}");
}

#[test]
fn concurrency_limit_holds_across_models() {
    let fake = FakeApi::builder()
        .delay(Duration::from_millis(20))
        .otherwise(Reply::ok(anthropic_text("ok", 1, 1)))
        .start();
    let context = fast_retries(1).with_max_concurrency(2);
    let threads: Vec<_> = (0..6)
        .map(|_| {
            let mut model = anthropic(&fake, context.clone());
            std::thread::spawn(move || {
                for _ in 0..3 {
                    ask(&mut model, &conversation(None)).unwrap();
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(fake.received().len(), 18);
    let peak = fake.peak_in_flight();
    assert!((1..=2).contains(&peak), "peak in flight {peak}");
}

#[test]
fn spend_budget_is_charged_by_every_model_and_closes_when_spent() {
    let fake = FakeApi::builder()
        .otherwise(Reply::ok(anthropic_text("ok", 1_000, 100)))
        .start();
    let mut prices = PriceTable::new();
    prices.set(
        "claude-fake",
        Price {
            input_per_mtok: 3.0,
            output_per_mtok: 15.0,
        },
    );
    // Each answer costs 0.003 + 0.0015 = 0.0045 USD.
    let budget = SpendBudget::new(0.01).unwrap();
    let context = fast_retries(1)
        .with_prices(prices)
        .with_budget(budget.clone());
    let mut runs = 0;
    while budget.allows_new_run() {
        runs += 1;
        let mut model = anthropic(&fake, context.clone());
        let meter = model.usage_meter();
        ask(&mut model, &conversation(None)).unwrap();
        let cost = meter.get().cost.unwrap();
        assert!((cost - 0.0045).abs() < 1e-12, "{cost}");
        assert!(runs < 10, "the budget never closed");
    }
    assert_eq!(runs, 3);
    assert!((budget.spent() - 0.0135).abs() < 1e-12);

    // A budget without a price for the model cannot be enforced.
    let endpoint = Endpoint::new(Provider::Anthropic, &fake.url(), ApiKey::new(KEY)).unwrap();
    let unpriced = fast_retries(1).with_budget(SpendBudget::new(1.0).unwrap());
    let error = AnthropicModel::new(AnthropicParams::new("unpriced"), endpoint, unpriced, 0)
        .err()
        .unwrap();
    assert_eq!(
        error,
        HttpModelError::NoPrice {
            model: "unpriced".into()
        }
    );
}

#[test]
fn the_mock_servers_finish_header_stops_the_loop_as_in_process() {
    let fake = FakeApi::builder()
        .then(
            Reply::ok(anthropic_text("(closing)", 1, 1))
                .header("x-agent-eval-finish", "script_exhausted"),
        )
        .then(
            Reply::ok(anthropic_text("still here", 1, 1))
                .header("x-agent-eval-finish", "max_turns"),
        )
        .start();
    let mut model = anthropic(&fake, fast_retries(1));
    let error = model
        .respond(&ModelRequest {
            system: "s",
            messages: &conversation(None),
            turn: agent_eval::llm::count_turn(&conversation(None)),
            tools: &tools(),
            unchanged: 0,
        })
        .unwrap_err();
    assert_eq!(
        error,
        agent_eval::llm::ModelError::ScriptExhausted {
            turn: 1,
            responses: 0
        }
    );
    // Any other finish reason is an ordinary answer.
    let answer = ask(&mut model, &conversation(None)).unwrap();
    assert_eq!(answer.content, vec![ContentBlock::text("still here")]);
}

#[test]
fn an_oversized_answer_is_refused_not_read_whole() {
    let huge = "x".repeat(agent_eval::model::http::MAX_ANSWER_BYTES as usize + 10);
    let fake = FakeApi::builder()
        .otherwise(Reply::ok(anthropic_text(&huge, 1, 1)))
        .start();
    let error = ask(&mut anthropic(&fake, fast_retries(3)), &conversation(None)).unwrap_err();
    assert!(
        error.contains("body over"),
        "{}",
        &error[..error.len().min(300)]
    );
    assert_eq!(fake.received().len(), 1, "not retried");
}

#[test]
fn a_redirect_to_another_origin_is_refused_and_carries_no_key() {
    let elsewhere = FakeApi::builder()
        .otherwise(Reply::ok(anthropic_text("stolen", 1, 1)))
        .start();
    let front = FakeApi::builder()
        .otherwise(
            Reply::status(307, json!({}))
                .header("location", &format!("{}/v1/messages", elsewhere.url())),
        )
        .start();
    for model in [
        &mut anthropic(&front, fast_retries(1)) as &mut dyn Model,
        &mut openai(&front, fast_retries(1)),
    ] {
        let error = ask(model, &conversation(None)).unwrap_err();
        assert!(error.contains("another origin"), "{error}");
    }
    assert_eq!(front.received().len(), 2);
    assert!(
        elsewhere.received().is_empty(),
        "{:?}",
        elsewhere.received()
    );
}

#[test]
fn a_redirect_within_the_origin_is_followed() {
    let fake = FakeApi::builder()
        .then(Reply::status(307, json!({})).header("location", "/v1/moved"))
        .then(Reply::ok(anthropic_text("Done.", 1, 1)))
        .start();
    let mut model = anthropic(&fake, fast_retries(1));
    ask(&mut model, &conversation(None)).unwrap();
    let received = fake.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[1].path, "/v1/moved");
    assert_eq!(received[1].header("x-api-key"), Some(KEY));
}

#[test]
fn a_key_in_a_models_answer_is_redacted_before_it_leaves_the_model() {
    let echo = json!({
        "id": "msg_3", "type": "message", "role": "assistant", "model": "claude-fake",
        "content": [
            {"type": "text", "text": format!("Your key is {KEY}.")},
            {"type": "tool_use", "id": "toolu_x", "name": "bash",
             "input": {"command": format!("echo {KEY}"), "list": [KEY], KEY: 1}}
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 1, "output_tokens": 1}
    });
    let fake = FakeApi::builder().then(Reply::ok(echo)).start();
    let mut model = anthropic(&fake, fast_retries(1));
    let response = ask(&mut model, &conversation(None)).unwrap();
    let text = serde_json::to_string(&response.content).unwrap();
    assert!(!text.contains("SECRET"), "{text}");
    assert!(text.contains("Your key is [redacted]."), "{text}");
    assert!(text.contains("echo [redacted]"), "{text}");
}
