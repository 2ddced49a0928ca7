//! Properties of the TodoManager over arbitrary (and adversarial) input.

use agent_eval::plan::todo::{MAX_TODOS, TodoManager, TodoStatus, parse_render};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A todo item as a model might send it: mostly plausible, sometimes not.
fn item() -> impl Strategy<Value = Value> {
    let status = prop_oneof![
        Just(json!("pending")),
        Just(json!("in_progress")),
        Just(json!("completed")),
        Just(json!("COMPLETED")),
        Just(json!("done")),
        any_json(),
    ];
    let text = prop_oneof![4 => "[A-Za-z][A-Za-z ]{0,15}".prop_map(Value::String), 1 => any_json()];
    let id = prop_oneof![4 => "[a-z0-9]{1,4}".prop_map(Value::String), 1 => any_json()];
    (
        prop::option::of(id),
        prop::option::of(text),
        prop::option::of(status),
    )
        .prop_map(|(id, text, status)| {
            let mut object = serde_json::Map::new();
            if let Some(v) = id {
                object.insert("id".into(), v);
            }
            if let Some(v) = text {
                object.insert("text".into(), v);
            }
            if let Some(v) = status {
                object.insert("status".into(), v);
            }
            Value::Object(object)
        })
}

fn items() -> impl Strategy<Value = Value> {
    prop::collection::vec(item(), 0..24).prop_map(Value::Array)
}

proptest! {
    #[test]
    fn accepted_lists_satisfy_every_invariant(input in items()) {
        let mut manager = TodoManager::new();
        if manager.update(&input).is_ok() {
            let items = manager.items();
            prop_assert!(items.len() <= MAX_TODOS);
            prop_assert!(items.iter().filter(|i| i.status == TodoStatus::InProgress).count() <= 1);
            prop_assert!(items.iter().all(|i| !i.text.is_empty() && i.text.trim() == i.text));
        }
    }

    #[test]
    fn a_rejected_update_changes_nothing(first in items(), second in items()) {
        let mut manager = TodoManager::new();
        let _ = manager.update(&first);
        let before = manager.clone();
        if manager.update(&second).is_err() {
            prop_assert_eq!(&manager, &before);
            prop_assert_eq!(manager.render(), before.render());
        }
    }

    #[test]
    fn the_render_parses_back_to_the_same_items(input in items()) {
        let mut manager = TodoManager::new();
        if let Ok(render) = manager.update(&input) {
            // Ids and texts with line breaks or ": " cannot round-trip a
            // line format; the generator's plausible items never have them.
            let plain = manager.items().iter().all(|i| !i.id.contains(['\n', '\r', ':']) && !i.text.contains(['\n', '\r']) && !i.id.is_empty());
            if plain {
                let parsed = parse_render(&render);
                prop_assert_eq!(parsed.as_deref(), Some(manager.items()));
            }
        }
    }

    #[test]
    fn the_same_input_gives_the_same_output(input in items()) {
        let mut a = TodoManager::new();
        let mut b = TodoManager::new();
        prop_assert_eq!(a.update(&input), b.update(&input));
        prop_assert_eq!(a, b);
    }

    #[test]
    fn any_json_input_is_handled_without_panic(input in any_json()) {
        let mut manager = TodoManager::new();
        let _ = manager.handle_input(&input);
        let _ = manager.handle_input(&json!({"items": input}));
    }
}
