//! Untrusted input never panics: arbitrary bytes and arbitrary YAML to the
//! scenario loader, arbitrary JSON to the TodoManager (see
//! todo_properties.rs) and to the file tools — which also never write
//! outside their workspace.

use agent_eval::agent::tools::Toolbox;
use agent_eval::scenario::load_str;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::Path;

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-z./ ]{0,12}".prop_map(Value::String),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(2, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,9}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// YAML that looks like a scenario: real keys, random structure and values.
fn scenario_like_yaml() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "name",
        "task",
        "workspace",
        "fixture",
        "files",
        "steps",
        "text",
        "check",
        "file",
        "contains",
        "do",
        "tool",
        "input",
        "agent",
        "todo",
        "nag",
        "threshold",
        "placement",
        "max_turns",
        "model",
        "script",
        "simulate",
        "tools",
        "runs",
        "seeds",
        "nag_threshold",
        "expect",
        "where",
        "compare",
        "a",
        "b",
        "completion_rate",
        "at_least",
        "turns",
        "reminders_at",
        "attention_span",
        "exists",
        "command",
        "exit_code",
        "id",
    ]);
    let scalar = prop_oneof![
        Just("off".to_string()),
        Just("true".to_string()),
        Just("-1".to_string()),
        Just("0".to_string()),
        Just("3".to_string()),
        Just("1e400".to_string()),
        Just("\"../x\"".to_string()),
        Just("~".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just("&a [1]".to_string()),
        Just("*a".to_string()),
        "[a-z ]{0,8}",
    ];
    let line = (
        0usize..4,
        key,
        prop_oneof![scalar.prop_map(Some), Just(None)],
        any::<bool>(),
    )
        .prop_map(|(indent, key, value, dash)| {
            let pad = "  ".repeat(indent);
            let dash = if dash { "- " } else { "" };
            match value {
                Some(v) => format!("{pad}{dash}{key}: {v}"),
                None => format!("{pad}{dash}{key}:"),
            }
        });
    prop::collection::vec(line, 0..24).prop_map(|lines| lines.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic_the_loader(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = load_str(Path::new("fuzz.yaml"), &text);
    }

    #[test]
    fn arbitrary_yaml_never_panics_the_loader(yaml in scenario_like_yaml()) {
        if let Err(e) = load_str(Path::new("fuzz.yaml"), &yaml) {
            prop_assert!(e.to_string().starts_with("fuzz.yaml"));
        }
    }

    #[test]
    fn arbitrary_tool_input_never_panics_or_escapes(
        calls in prop::collection::vec((prop::sample::select(vec!["read_file", "write_file", "edit_file", "bash"]), any_json()), 1..6)
    ) {
        let sandbox = tempfile::tempdir().unwrap();
        let workspace = sandbox.path().join("ws");
        std::fs::create_dir(&workspace).unwrap();
        let toolbox = Toolbox::new(&workspace).unwrap();
        for (tool, mut input) in calls {
            // Arbitrary shell text is not run: only the argument handling of
            // bash is fuzzed (a string command becomes a harmless one).
            if tool == "bash" && input.get("command").is_some_and(Value::is_string) {
                input["command"] = json!("true");
            }
            let _ = toolbox.call(tool, &input);
            let _ = toolbox.call(tool, &json!({"path": input, "content": "x", "old_text": "", "new_text": "y"}));
        }
        let outside: Vec<_> = std::fs::read_dir(sandbox.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        prop_assert_eq!(outside, vec![std::ffi::OsString::from("ws")]);
    }

    #[test]
    fn arbitrary_paths_stay_inside(path in "(\\.\\./|/|[a-z]{1,3}/|\\./){0,5}[a-z]{0,4}") {
        let sandbox = tempfile::tempdir().unwrap();
        let workspace = sandbox.path().join("ws");
        std::fs::create_dir(&workspace).unwrap();
        let toolbox = Toolbox::new(&workspace).unwrap();
        let _ = toolbox.call("write_file", &json!({"path": path, "content": "x"}));
        let outside: Vec<_> = std::fs::read_dir(sandbox.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        prop_assert_eq!(outside, vec![std::ffi::OsString::from("ws")]);
    }
}
