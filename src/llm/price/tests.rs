//! The price of conversations: rounding per request, reminders, measured
//! figures, JSON counting against serde_json, the workspace placeholder.

use super::*;
use crate::llm::tool_use_id;
use serde_json::Value;
use serde_json::json;

fn call(turn: usize, name: &str, input: serde_json::Value) -> ContentBlock {
    ContentBlock::ToolUse {
        id: tool_use_id(turn, 1),
        name: name.into(),
        input: input.into(),
    }
}

fn result(turn: usize, content: &str) -> ContentBlock {
    ContentBlock::ToolResult {
        tool_use_id: tool_use_id(turn, 1),
        content: content.into(),
        is_error: false,
    }
}

fn rules<'a>(workdir: &'a WorkdirSpelling, is_todo: &'a dyn Fn(&str) -> bool) -> PriceRules<'a> {
    PriceRules {
        workdir,
        is_planning: is_todo,
        reminder_pattern: None,
        pattern_only: false,
    }
}

#[test]
fn each_request_is_counted_whole_and_rounded_up() {
    let workdir = WorkdirSpelling::default();
    let is_todo = |n: &str| n == "todo";
    let rules = rules(&workdir, &is_todo);
    let messages = vec![
        Message::user_text("task"), // 4
        Message::blocks(Role::Assistant, vec![call(1, "todo", json!({"a": 1}))]), // {"a":1} = 7
        Message::blocks(Role::User, vec![result(1, "plan")]), // 4
        Message::blocks(
            Role::Assistant,
            vec![ContentBlock::text("hi"), call(2, "bash", json!({}))],
        ), // 2 + 2
        Message::blocks(
            Role::User,
            vec![
                ContentBlock::ToolResult {
                    tool_use_id: tool_use_id(2, 1),
                    content: "out".into(),
                    is_error: false,
                },
                ContentBlock::text("<reminder>Update your todos.</reminder>"),
            ],
        ), // 3 + 39
        Message::blocks(Role::Assistant, vec![ContentBlock::text("done")]),
    ];
    let price = PlanningPrice::of_transcript("sys", &messages, &[2], &rules);
    // Requests: 3+4 = 7 -> 2; 3+4+7+4 = 18 -> 5; 18+4+3+39 = 64 -> 16.
    // Planning: 0; 7+4 = 11 -> 3; 11+39 = 50 -> 13.
    assert_eq!(
        price,
        PlanningPrice {
            context_tokens: 2 + 5 + 16,
            planning_tokens: 3 + 13,
            planning_turns: 1,
            reminders_after_planning: 0,
        }
    );
    // A reminder right after the planning turn.
    let price = PlanningPrice::of_transcript("sys", &messages, &[1], &rules);
    assert_eq!(price.reminders_after_planning, 1);
}

#[test]
fn a_folded_reminder_counts_from_its_line_and_the_task_never() {
    let workdir = WorkdirSpelling::new(std::path::Path::new("/very/long/work"));
    let is_todo = |_: &str| false;
    let mut rules = rules(&workdir, &is_todo);
    rules.reminder_pattern = Some("NAG");
    let messages = [
        Message::user_text("<reminder> in the task"),
        Message::blocks(Role::Assistant, vec![call(1, "bash", json!({}))]),
        Message::blocks(Role::User, vec![result(1, "/very/long/work\nxx NAG!")]),
    ];
    let mut conversation = ConversationChars::default();
    conversation.add(&messages[0], &rules);
    assert_eq!(conversation.planning_chars, 0);
    conversation.add(&messages[1], &rules);
    conversation.add(&messages[2], &rules);
    // "{WORKDIR}\nxx NAG!": 9 + 1 + 7 characters; the reminder is its
    // last line.
    assert_eq!(conversation.chars, 22 + 2 + 17);
    assert_eq!(conversation.planning_chars, 7);
    assert_eq!(tokens(0), 0);
    assert_eq!(tokens(1), 1);
    assert_eq!(tokens(8), 2);
}

#[test]
fn a_measured_wall_time_counts_the_same_whatever_it_measured() {
    let workdir = WorkdirSpelling::new(std::path::Path::new("/w"));
    let counted = |text: &str| workdir.chars(text);
    let quick = "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n";
    let slow = "Exit code: 0\nWall time: 12.3 seconds\nOutput:\nSuccess.\n";
    assert_eq!(counted(quick), quick.chars().count());
    assert_eq!(counted(slow), counted(quick));
    assert_eq!(
        counted("Wall time: 0.0031 seconds in /w/x, Wall time: 2 seconds"),
        "Wall time: 0 seconds in {WORKDIR}/x, Wall time: 0 seconds"
            .chars()
            .count()
    );
    // Not a measured time: counted as written.
    for text in [
        "Wall time: soon seconds",
        "Wall time: 3 minutes",
        "Wall time: ",
    ] {
        assert_eq!(counted(text), text.chars().count(), "{text}");
    }
}

#[test]
fn a_process_group_id_counts_the_same_whatever_it_is() {
    let workdir = WorkdirSpelling::new(std::path::Path::new("/w"));
    let counted = |text: &str| workdir.chars(text);
    let one = "Output: hi\nExit Code: 0\nProcess Group PGID: 7";
    let other = "Output: hi\nExit Code: 0\nProcess Group PGID: 1234567";
    assert_eq!(counted(one), one.chars().count());
    assert_eq!(counted(other), counted(one));
    assert_eq!(
        counted("Process Group PGID: 42 in /w, Wall time: 1.5 seconds"),
        "Process Group PGID: 0 in {WORKDIR}, Wall time: 0 seconds"
            .chars()
            .count()
    );
    let no_id = "Process Group PGID: (none)";
    assert_eq!(counted(no_id), no_id.chars().count());
}

#[test]
fn json_is_counted_as_serde_json_writes_it() {
    let workdir = WorkdirSpelling::default();
    for value in [
        json!(null),
        json!(true),
        json!(false),
        json!(-12.5),
        json!(""),
        json!("tab\tquote\"back\\slash\u{1}é\u{8}\u{c}\r\n"),
        json!([]),
        json!({}),
        json!([1, [2, {"a": null}], "x"]),
        json!({"items": [{"id": "1", "text": "Type hints", "status": "pending"}], "n": 3}),
    ] {
        let written = serde_json::to_string(&value).unwrap();
        assert_eq!(
            json_chars(&value, &workdir),
            written.chars().count(),
            "{written}"
        );
    }
    let short = WorkdirSpelling::new(std::path::Path::new("/w"));
    let long = WorkdirSpelling::new(std::path::Path::new("/a/much/longer/w"));
    assert_eq!(
        json_chars(&json!({"path": "/w/x"}), &short),
        json_chars(&json!({"path": "/a/much/longer/w/x"}), &long)
    );
}

/// Any JSON value: strings from any characters (control characters,
/// quotes and backslashes included), any numbers, nested.
fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|x| json!(x)),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(any::<String>(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest::proptest! {
    #[test]
    fn json_chars_are_those_serde_json_writes(value in any_json()) {
        let written = serde_json::to_string(&value).unwrap();
        proptest::prop_assert_eq!(
            json_chars(&value, &WorkdirSpelling::default()),
            written.chars().count()
        );
    }
}

#[test]
fn the_workspace_path_counts_as_the_placeholder() {
    let short = WorkdirSpelling::new(std::path::Path::new("/t/w"));
    let long = WorkdirSpelling::new(std::path::Path::new("/a/much/longer/tmp/w"));
    let text = |root: &str| format!("Error: {root}/x is outside; cwd {root}");
    assert_eq!(
        short.chars(&text("/t/w")),
        long.chars(&text("/a/much/longer/tmp/w"))
    );
    assert_eq!(
        short.chars(&text("/t/w")),
        text(WORKDIR_PLACEHOLDER).chars().count()
    );
    // Text without the path is counted as it is.
    assert_eq!(short.chars("héllo"), 5);
    assert_eq!(WorkdirSpelling::default().chars("/t/w"), 4);
}

proptest::proptest! {
    /// A shared input counted once (the fast path) counts as the general
    /// walk does, on its first count and later ones, whatever the
    /// workspace path and whether the path, a wall time or a process group
    /// occurs in it.
    #[test]
    fn a_shared_input_counts_as_the_walk(
        value in any_json(),
        inserted in proptest::sample::select(vec![
            "", "/w", "/w/x", "Wall time: 0.25 seconds", "Process Group PGID: 7", "W", "P/",
        ]),
        roots in proptest::collection::vec(
            proptest::sample::select(vec!["/w", "/a/much/longer/w", "w", "Wall"]), 1..4),
    ) {
        let value = json!({"v": value, "x": inserted, inserted: [inserted, 1]});
        let input: crate::llm::ToolInput = std::sync::Arc::new(value);
        let script = std::sync::Arc::clone(&input);
        let workdirs = roots
            .iter()
            .map(|root| WorkdirSpelling::new(std::path::Path::new(root)))
            .chain([WorkdirSpelling::default()]);
        for workdir in workdirs {
            for _ in 0..2 {
                proptest::prop_assert_eq!(
                    input_chars(&input, &workdir),
                    json_chars(&input, &workdir)
                );
            }
        }
        drop(script);
        proptest::prop_assert_eq!(
            input_chars(&input, &WorkdirSpelling::default()),
            json_chars(&input, &WorkdirSpelling::default())
        );
    }
}

#[test]
fn a_shared_input_is_counted_once_per_workdir_it_cannot_hold() {
    let workdir = WorkdirSpelling::new(std::path::Path::new("/t/w"));
    let plain: crate::llm::ToolInput = std::sync::Arc::new(json!({"text": "Write the docs"}));
    let _script = std::sync::Arc::clone(&plain);
    let with_path: crate::llm::ToolInput = std::sync::Arc::new(json!({"path": "/t/w/a"}));
    let _script_too = std::sync::Arc::clone(&with_path);
    for _ in 0..2 {
        assert_eq!(input_chars(&plain, &workdir), 25);
        // `{"path":"{WORKDIR}/a"}`: the path read as the placeholder.
        assert_eq!(input_chars(&with_path, &workdir), 22);
    }
}

/// `PriceRules::reminder_start` settles a text with one scan for the
/// markers' first byte: every marker must start with it.
#[test]
fn the_reminder_markers_share_their_first_byte() {
    let first: Vec<u8> = REMINDER_MARKERS.iter().map(|m| m.as_bytes()[0]).collect();
    assert!(first.iter().all(|b| *b == first[0]), "{REMINDER_MARKERS:?}");
}
