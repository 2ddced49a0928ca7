//! Whatever a peer sends, the request readers answer Ok or a 400 message:
//! never a panic. Arbitrary JSON (shaped like real requests, and not) and
//! arbitrary bytes go through all three APIs.

use agent_eval::wire::{anthropic, chat, responses};
use proptest::prelude::*;
use serde_json::{Value, json};

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        prop_oneof![
            Just("user"),
            Just("assistant"),
            Just("system"),
            Just("developer"),
            Just("tool"),
            Just("text"),
            Just("tool_use"),
            Just("tool_result"),
            Just("function_call"),
            Just("function_call_output"),
            Just("custom_tool_call"),
            Just("message"),
            Just("call_1_1"),
            Just("toolu_1_1"),
            Just("{\"a\":1}"),
            Just(""),
        ]
        .prop_map(|s| Value::String(s.to_string())),
        ".{0,8}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    let keys = prop_oneof![
        Just("role"),
        Just("content"),
        Just("type"),
        Just("text"),
        Just("id"),
        Just("name"),
        Just("input"),
        Just("tool_use_id"),
        Just("tool_calls"),
        Just("function"),
        Just("arguments"),
        Just("call_id"),
        Just("output"),
        Just("messages"),
        Just("tools"),
        Just("system"),
        Just("stream"),
        Just("instructions"),
        Just("tool_call_id"),
        Just("stream_options"),
        Just("include_usage"),
        Just("is_error"),
        Just("parameters"),
    ]
    .prop_map(str::to_string);
    leaf().prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(keys.clone(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn request() -> impl Strategy<Value = Value> {
    (value(), value(), value(), value()).prop_map(|(messages, tools, system, input)| {
        json!({"model": "m", "messages": messages, "tools": tools, "system": system, "input": input})
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn readers_never_panic_on_json(body in prop_oneof![request(), value()]) {
        let bytes = body.to_string().into_bytes();
        for result in [
            anthropic::parse_request(&bytes),
            chat::parse_request(&bytes),
            responses::parse_request(&bytes),
        ] {
            if let Err(e) = result {
                prop_assert_eq!(e.status, 400);
                prop_assert!(!e.message.is_empty());
            }
        }
    }

    #[test]
    fn readers_never_panic_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = anthropic::parse_request(&bytes);
        let _ = chat::parse_request(&bytes);
        let _ = responses::parse_request(&bytes);
    }
}
