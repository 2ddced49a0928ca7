//! Properties every planning dialect keeps, over arbitrary (and adversarial)
//! input: accepted plans satisfy the dialect's invariants, rejected calls
//! change nothing and are recognised as errors, renders read back, written
//! updates do what they were written for, and written invalid updates are
//! rejected.

use agent_eval::plan::dialect::{
    Dialect, InvalidUpdate, PlanDialect, PlanItem, PlanStatus, active_form_for,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{Map, Value, json};

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z]{1,10}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A status word as some model of some dialect might write it.
fn status_word() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => Just(json!("pending")),
        3 => Just(json!("in_progress")),
        3 => Just(json!("completed")),
        1 => Just(json!("cancelled")),
        1 => Just(json!("running")),
        1 => Just(json!("failed")),
        1 => Just(json!("COMPLETED")),
        1 => Just(json!(" pending ")),
        1 => Just(json!("done")),
        1 => Just(json!("")),
        1 => any_json(),
    ]
}

fn text_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => "[A-Za-z][A-Za-z0-9 :#().\\[\\]]{0,15}".prop_map(Value::String),
        1 => Just(json!("")),
        1 => Just(json!("  ")),
        1 => "[ \\t\\n\u{1f}]{0,2}[a-z]{1,4}[ \\n]{0,2}".prop_map(Value::String),
        1 => any_json(),
    ]
}

/// The item keys every dialect uses, so that each dialect sees items in
/// its own shape, in another dialect's shape, and in none.
const ITEM_KEYS: &[&str] = &[
    "id",
    "text",
    "content",
    "description",
    "step",
    "status",
    "activeForm",
];

fn item() -> impl Strategy<Value = Value> {
    let field = |key: &'static str| {
        let value = match key {
            "status" => status_word().boxed(),
            "id" => prop_oneof![
                4 => "[a-z0-9_]{1,4}".prop_map(Value::String),
                1 => any_json()
            ]
            .boxed(),
            _ => text_value().boxed(),
        };
        prop::option::weighted(0.5, value).prop_map(move |v| (key, v))
    };
    let fields: Vec<_> = ITEM_KEYS.iter().map(|k| field(k)).collect();
    (fields, prop::option::weighted(0.1, any_json())).prop_map(|(fields, extra)| {
        let mut object = Map::new();
        for (key, value) in fields {
            if let Some(value) = value {
                object.insert(key.to_string(), value);
            }
        }
        if let Some(extra) = extra {
            object.insert("extra".into(), extra);
        }
        Value::Object(object)
    })
}

/// A whole planning-tool input: a list under one of the list keys, or an
/// update of one item, or anything at all.
fn input() -> impl Strategy<Value = Value> {
    let list = prop_oneof![
        8 => prop::collection::vec(item(), 0..24).prop_map(Value::Array),
        1 => prop::collection::vec(text_value(), 0..6).prop_map(Value::Array),
        1 => any_json(),
    ];
    let whole = (
        prop_oneof![Just("items"), Just("todos"), Just("plan")],
        list,
        prop::option::weighted(0.1, ("[a-z]{1,11}", any_json())),
    )
        .prop_map(|(key, list, extra)| {
            let mut object = Map::new();
            object.insert(key.to_string(), list);
            if let Some((k, v)) = extra {
                object.insert(k, v);
            }
            Value::Object(object)
        });
    let update = (
        prop_oneof![
            "[1-9]".prop_map(Value::String),
            (1u64..9).prop_map(|n| json!(n)),
            any_json()
        ],
        status_word(),
    )
        .prop_map(|(id, status)| json!({"id": id, "status": status}));
    prop_oneof![6 => whole, 2 => update, 1 => any_json()]
}

/// The list key and item keys of a dialect's own shape.
fn own_shape(dialect: Dialect) -> (&'static str, &'static [&'static str]) {
    match dialect {
        Dialect::S03 | Dialect::JavaPort => ("items", &["id", "text", "status"]),
        Dialect::S03Guarded => ("todos", &["id", "text", "status"]),
        Dialect::PlanningState | Dialect::CreateUpdate => {
            ("items", &["content", "status", "activeForm"])
        }
        Dialect::ClaudeCode => ("todos", &["content", "status", "activeForm"]),
        // One task a call; `own_call` builds those.
        Dialect::ClaudeCodeTasks => ("", &["subject", "description", "activeForm"]),
        Dialect::Codex => ("plan", &["step", "status"]),
        Dialect::Gemini => ("todos", &["description", "status"]),
        Dialect::QwenCode => ("todos", &["id", "content", "status"]),
        Dialect::OpenCode => ("todos", &["content", "status", "priority"]),
        // SQL statements; `own_call` builds those.
        Dialect::CopilotSql => ("", &[]),
    }
}

/// An item in the dialect's own shape, mostly plausible: each own key is
/// usually there with a usual value, sometimes missing or odd.
fn own_item(keys: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let field = |key: &'static str| {
        let value = match key {
            "status" => prop_oneof![
                6 => prop::sample::select(vec!["pending", "in_progress", "completed", "cancelled"]).prop_map(|s| json!(s)),
                1 => status_word(),
            ]
            .boxed(),
            "id" => "[a-z0-9_]{1,4}".prop_map(Value::String).boxed(),
            _ => prop_oneof![
                8 => "[A-Za-z][A-Za-z0-9 :#.]{0,12}".prop_map(Value::String),
                1 => text_value(),
            ]
            .boxed(),
        };
        prop::option::weighted(0.92, value).prop_map(move |v| (key, v))
    };
    let fields: Vec<_> = keys.iter().map(|k| field(k)).collect();
    (fields, prop::option::weighted(0.05, any_json())).prop_map(|(fields, extra)| {
        let mut object = Map::new();
        for (key, value) in fields {
            if let Some(value) = value {
                object.insert(key.to_string(), value);
            }
        }
        if let Some(extra) = extra {
            object.insert("extra".into(), extra);
        }
        Value::Object(object)
    })
}

/// A call in the dialect's own shape: the whole list, or (create-update)
/// a create of plain texts or an update of one step.
fn own_call(dialect: Dialect) -> BoxedStrategy<(usize, Value)> {
    let (key, keys) = own_shape(dialect);
    if dialect == Dialect::CreateUpdate {
        let create = prop::collection::vec(
            prop_oneof![8 => "[A-Za-z][A-Za-z ]{0,10}".prop_map(Value::String), 1 => text_value()],
            0..5,
        )
        .prop_map(|items| (0usize, json!({ "items": items })));
        let update = (
            prop_oneof!["[1-9]".prop_map(Value::String), (1u64..9).prop_map(|n| json!(n))],
            prop_oneof![
                6 => prop::sample::select(vec!["running", "completed", "failed"]).prop_map(|s| json!(s)),
                1 => status_word(),
            ],
        )
            .prop_map(|(id, status)| (1usize, json!({"id": id, "status": status})));
        return prop_oneof![create, update].boxed();
    }
    if dialect == Dialect::CopilotSql {
        return copilot_sql_call().boxed();
    }
    if dialect == Dialect::ClaudeCodeTasks {
        // Tools by index: TaskCreate 0, TaskGet 1, TaskList 2, TaskUpdate 3.
        let create = own_item(keys).prop_map(|task| (0usize, task));
        let update = (
            prop_oneof!["[1-9]".prop_map(Value::String), (1u64..9).prop_map(|n| json!(n))],
            prop_oneof![
                6 => prop::sample::select(vec!["pending", "in_progress", "completed", "deleted"]).prop_map(|s| json!(s)),
                1 => status_word(),
            ],
        )
            .prop_map(|(id, status)| (3usize, json!({"taskId": id, "status": status})));
        return prop_oneof![3 => create, 2 => update, 1 => Just((2usize, json!({})))].boxed();
    }
    prop_oneof![
        6 => prop::collection::vec(own_item(keys), 0..6),
        1 => prop::collection::vec(own_item(keys), 0..24),
    ]
    .prop_map(move |items| (0usize, json!({ key: items })))
    .boxed()
}

/// A `sql` call of Copilot CLI's design: mostly plausible statements on
/// its `todos` and `todo_deps` tables, one or two a call, sometimes odd.
fn copilot_sql_call() -> impl Strategy<Value = (usize, Value)> {
    let id = "[a-c]{1,2}";
    let status = prop::sample::select(vec![
        "pending",
        "in_progress",
        "done",
        "blocked",
        "completed",
        "",
    ]);
    let statement = prop_oneof![
        3 => (id, "[A-Za-z' ]{0,8}").prop_map(|(id, title)| format!("INSERT INTO todos (id, title) VALUES ('{id}', '{}')", title.replace('\'', "''"))),
        3 => (id, status).prop_map(|(id, status)| format!("UPDATE todos SET status = '{status}' WHERE id = '{id}'")),
        1 => (id, id).prop_map(|(a, b)| format!("INSERT INTO todo_deps VALUES ('{a}', '{b}')")),
        1 => id.prop_map(|id| format!("DELETE FROM todos WHERE id = '{id}'")),
        1 => Just("SELECT * FROM todos".to_string()),
        1 => Just("DROP TABLE todo_deps".to_string()),
        1 => "[ -~]{0,20}",
    ];
    (
        prop::collection::vec(statement, 1..3),
        prop::option::weighted(0.95, "[A-Za-z ]{1,8}"),
    )
        .prop_map(|(statements, description)| {
            (
                0usize,
                json!({"description": description, "query": statements.join("; ")}),
            )
        })
}

/// A dialect and calls of its tools (by index): mostly in its own shape,
/// sometimes in another's or in none.
fn dialect_and_calls() -> impl Strategy<Value = (Dialect, Vec<(usize, Value)>)> {
    dialects().prop_flat_map(|dialect| {
        let call = prop_oneof![
            3 => own_call(dialect),
            1 => (0usize..3, input()),
        ];
        (Just(dialect), prop::collection::vec(call, 1..6))
    })
}

fn dialects() -> impl Strategy<Value = Dialect> {
    prop::sample::select(Dialect::ALL.to_vec())
}

fn tool_name(dialect: &dyn PlanDialect, index: usize) -> String {
    let tools = dialect.tools();
    tools
        .get(index)
        .or_else(|| tools.first())
        .map(|t| t.name.to_string())
        .unwrap_or_default()
}

/// Whether a dialect requires every stored text to be non-empty (Codex
/// takes an empty step, as its source does).
fn requires_text(dialect: Dialect) -> bool {
    !matches!(
        dialect,
        Dialect::Codex | Dialect::ClaudeCodeTasks | Dialect::OpenCode | Dialect::CopilotSql
    )
}

fn check_invariants(dialect: Dialect, plan: &[PlanItem]) -> Result<(), TestCaseError> {
    let d = dialect.get();
    if let Some(max) = d.max_items() {
        prop_assert!(plan.len() <= max, "{dialect}: {} items", plan.len());
    }
    if d.single_in_progress() {
        let n = plan
            .iter()
            .filter(|i| i.status == PlanStatus::InProgress)
            .count();
        prop_assert!(n <= 1, "{dialect}: {n} in progress");
    }
    for item in plan {
        prop_assert!(d.statuses().contains(&item.status), "{dialect}: {item:?}");
        match dialect {
            // Claude Code's zod schema asks for one character, white space
            // or not; Gemini and Qwen trim with JavaScript's notion of
            // space.
            Dialect::ClaudeCode | Dialect::Gemini | Dialect::QwenCode => {
                prop_assert!(!item.text.is_empty(), "{dialect}: {item:?}");
            }
            _ if requires_text(dialect) => {
                prop_assert!(!item.text.trim().is_empty(), "{dialect}: {item:?}");
            }
            _ => {}
        }
    }
    if dialect == Dialect::ClaudeCode && !plan.is_empty() {
        prop_assert!(plan.iter().any(|i| i.status != PlanStatus::Completed));
    }
    if dialect == Dialect::CreateUpdate {
        let mut ids: Vec<&str> = plan.iter().map(|i| i.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        prop_assert_eq!(ids.len(), plan.len(), "ids are unique");
    }
    Ok(())
}

/// Raw material for a plan a dialect can hold.
fn raw_plan() -> impl Strategy<Value = Vec<(String, String, PlanStatus, Option<String>)>> {
    let status = prop::sample::select(vec![
        PlanStatus::Pending,
        PlanStatus::InProgress,
        PlanStatus::Completed,
        PlanStatus::Failed,
        PlanStatus::Cancelled,
    ]);
    // No parentheses: planning-state's in-progress line `text (form)` is
    // ambiguous for a text that ends in a parenthesised group.
    let text = "[A-Za-z0-9é中][A-Za-z0-9 :#.\\[\\]é中-]{0,14}[A-Za-z0-9.é]";
    prop::collection::vec(
        (
            "[a-z0-9_]{1,5}",
            text,
            status,
            prop::option::of("[A-Z][a-z ]{0,10}[a-z]"),
        ),
        0..24,
    )
}

/// The plan as the dialect stores it: within its limits, in its statuses,
/// with its ids (positions where it has none), and the `activeForm`s it
/// keeps.
fn shape(dialect: Dialect, raw: &[(String, String, PlanStatus, Option<String>)]) -> Vec<PlanItem> {
    let d = dialect.get();
    let max = d.max_items().unwrap_or(usize::MAX);
    let mut seen_in_progress = false;
    raw.iter()
        .take(max)
        .enumerate()
        .map(|(i, (id, text, status, form))| {
            let mut status = if d.statuses().contains(status) {
                *status
            } else {
                PlanStatus::Pending
            };
            if status == PlanStatus::InProgress && d.single_in_progress() {
                if seen_in_progress {
                    status = PlanStatus::Pending;
                }
                seen_in_progress = true;
            }
            let id = match dialect {
                Dialect::S03 | Dialect::JavaPort | Dialect::S03Guarded => id.clone(),
                _ => (i + 1).to_string(),
            };
            let active_form = match dialect {
                Dialect::PlanningState | Dialect::ClaudeCode | Dialect::ClaudeCodeTasks => {
                    form.clone()
                }
                _ => None,
            };
            PlanItem {
                id,
                text: text.clone(),
                status,
                active_form,
                task: None,
            }
        })
        .collect()
}

/// What the dialect shows of a plan: planning-state shows the
/// `activeForm` of the in-progress item only, TaskList none.
fn shown(dialect: Dialect, plan: &[PlanItem]) -> Vec<PlanItem> {
    plan.iter()
        .map(|item| {
            let mut item = item.clone();
            if dialect == Dialect::PlanningState && item.status != PlanStatus::InProgress
                || dialect == Dialect::ClaudeCodeTasks
            {
                item.active_form = None;
            }
            // A SELECT of id, title and status shows no description.
            if dialect == Dialect::CopilotSql {
                item.task = None;
            }
            item
        })
        .collect()
}

/// What a dialect stores after the calls `write_update` wrote for
/// `wanted`: the dialect fills in the `activeForm`s it requires, and
/// Claude Code empties a list whose every item is completed.
fn stored(dialect: Dialect, wanted: &[PlanItem]) -> Vec<PlanItem> {
    let mut plan: Vec<PlanItem> = wanted.to_vec();
    if matches!(
        dialect,
        Dialect::PlanningState | Dialect::ClaudeCode | Dialect::ClaudeCodeTasks
    ) {
        for item in &mut plan {
            if item.active_form.is_none() {
                item.active_form = Some(active_form_for(&item.text));
            }
        }
    }
    if dialect == Dialect::ClaudeCode && plan.iter().all(|i| i.status == PlanStatus::Completed) {
        plan.clear();
    }
    plan
}

/// A plan as `TaskList` shows it: id, subject and status only.
fn bare(plan: &[PlanItem]) -> Vec<PlanItem> {
    plan.iter()
        .map(|i| PlanItem::new(i.id.clone(), i.text.clone(), i.status))
        .collect()
}

/// Subjects and statuses, sorted: what a Task plan holds whatever the
/// order its tasks were created in (an update keeps a task's activeForm).
fn tasks_by_text(plan: &[PlanItem]) -> Vec<(String, PlanStatus)> {
    let mut tasks: Vec<_> = plan.iter().map(|i| (i.text.clone(), i.status)).collect();
    tasks.sort();
    tasks
}

/// For create-update, a `wanted` reachable from `before`: the same steps
/// (a step cannot go back to pending) followed by new ones.
fn reachable(before: &[PlanItem], wanted: &[PlanItem]) -> Vec<PlanItem> {
    let mut plan: Vec<PlanItem> = before
        .iter()
        .zip(wanted.iter().chain(std::iter::repeat(&PlanItem::new(
            "",
            "",
            PlanStatus::Pending,
        ))))
        .map(|(old, new)| {
            let status = if new.status == PlanStatus::Pending {
                old.status
            } else {
                new.status
            };
            PlanItem::new(old.id.clone(), old.text.clone(), status)
        })
        .collect();
    let next = before.len() + 1;
    for (k, item) in wanted.iter().skip(before.len()).enumerate() {
        plan.push(PlanItem::new(
            (next + k).to_string(),
            item.text.clone(),
            item.status,
        ));
    }
    plan
}

/// Builds `plan` in a create-update dialect (create, then updates).
fn build(dialect: &dyn PlanDialect, plan: &[PlanItem]) -> Vec<PlanItem> {
    let mut built = Vec::new();
    for call in dialect.write_update(&[], plan) {
        let _ = dialect.apply(&mut built, &call.tool, &call.input);
    }
    built
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/dialect_properties.txt",
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn accepted_plans_keep_the_invariants_and_rejections_change_nothing(
        (dialect, calls) in dialect_and_calls(),
    ) {
        let d = dialect.get();
        let mut plan: Vec<PlanItem> = Vec::new();
        for (index, input) in calls {
            let tool = tool_name(d, index);
            let before = plan.clone();
            let outcome = d.apply(&mut plan, &tool, &input);
            prop_assert_eq!(d.is_error(&outcome.content), !outcome.accepted, "{}: {}", dialect, outcome.content);
            if outcome.accepted {
                check_invariants(dialect, &plan)?;
                let written = d.plan_from_call(&before, &tool, &input);
                if dialect == Dialect::ClaudeCode && plan.is_empty() {
                    prop_assert!(written.is_some());
                } else {
                    prop_assert_eq!(written.as_ref(), Some(&plan), "{}: plan_from_call", dialect);
                }
            } else {
                prop_assert_eq!(&plan, &before, "{}: a rejected call changed the plan", dialect);
                // Gemini's schema errors and Qwen's have no common
                // prefix: the dialect says what its errors are.
                prop_assert!(d.is_error(&outcome.content), "{}: {}", dialect, outcome.content);
                prop_assert_eq!(d.plan_from_call(&before, &tool, &input), None);
            }
        }
    }

    #[test]
    fn the_same_call_gives_the_same_outcome(dialect in dialects(), index in 0usize..3, input in input()) {
        let d = dialect.get();
        let tool = tool_name(d, index);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        prop_assert_eq!(d.apply(&mut a, &tool, &input), d.apply(&mut b, &tool, &input));
        prop_assert_eq!(a, b);
    }

    #[test]
    fn renders_read_back(dialect in dialects(), raw in raw_plan()) {
        let d = dialect.get();
        let plan = shown(dialect, &shape(dialect, &raw));
        let render = d.render(&plan);
        match dialect {
            Dialect::ClaudeCode | Dialect::Codex => {
                prop_assert_eq!(d.plan_from_result(&render), None);
            }
            // `Query returned 0 rows.` may be a filtered query's: no plan.
            Dialect::CopilotSql if plan.is_empty() => {
                prop_assert_eq!(d.plan_from_result(&render), None);
            }
            _ => {
                prop_assert_eq!(d.plan_from_result(&render), Some(plan.clone()), "{}:\n{}", dialect, render);
            }
        }
    }

    #[test]
    fn accepted_results_read_back_as_the_stored_plan(dialect in dialects(), raw in raw_plan()) {
        let d = dialect.get();
        let wanted = shape(dialect, &raw);
        let mut plan = Vec::new();
        for call in d.write_update(&[], &wanted) {
            if d.load_tools(&call.tool, &call.input).is_some() {
                continue;
            }
            let outcome = d.apply(&mut plan, &call.tool, &call.input);
            prop_assert!(outcome.accepted, "{}: {}", dialect, outcome.content);
            match d.plan_from_result(&outcome.content) {
                Some(read) if dialect == Dialect::ClaudeCodeTasks => {
                    prop_assert_eq!(read, bare(&plan));
                }
                Some(read) => prop_assert_eq!(read, shown(dialect, &plan)),
                // The Task tools echo the plan from TaskList only.
                // Qwen shows no list when the one written is already stored.
                None => prop_assert!(
                    matches!(dialect, Dialect::ClaudeCode | Dialect::Codex | Dialect::ClaudeCodeTasks)
                        || (dialect == Dialect::QwenCode
                            && outcome.content.starts_with("Todo list is already up to date"))
                ),
            }
        }
    }

    #[test]
    fn written_updates_turn_before_into_wanted(
        dialect in dialects(),
        raw_before in raw_plan(),
        raw_wanted in raw_plan(),
    ) {
        let d = dialect.get();
        let (mut plan, wanted) = if dialect == Dialect::CreateUpdate {
            let before = build(d, &shape(dialect, &raw_before));
            let wanted = reachable(&before, &shape(dialect, &raw_wanted));
            (before, wanted)
        } else {
            let mut before = Vec::new();
            for call in d.write_update(&[], &shape(dialect, &raw_before)) {
                let _ = d.apply(&mut before, &call.tool, &call.input);
            }
            (before, shape(dialect, &raw_wanted))
        };
        let calls = d.write_update(&plan, &wanted);
        for call in calls {
            if d.load_tools(&call.tool, &call.input).is_some() {
                prop_assert!(plan.is_empty(), "{}: loads its tools only at first", dialect);
                continue;
            }
            prop_assert!(d.is_planning_tool(&call.tool));
            let before = plan.clone();
            let outcome = d.apply(&mut plan, &call.tool, &call.input);
            prop_assert!(outcome.accepted, "{}: {} -> {}", dialect, call.input, outcome.content);
            let written = d.plan_from_call(&before, &call.tool, &call.input);
            if !(dialect == Dialect::ClaudeCode && plan.is_empty()) {
                prop_assert_eq!(written, Some(plan.clone()));
            }
        }
        if matches!(dialect, Dialect::ClaudeCodeTasks | Dialect::CopilotSql) {
            // Tasks (and todo rows) keep their ids and places; new ones
            // come last.
            prop_assert_eq!(tasks_by_text(&plan), tasks_by_text(&stored(dialect, &wanted)));
        } else {
            prop_assert_eq!(plan, stored(dialect, &wanted), "{}", dialect);
        }
    }

    #[test]
    fn written_invalid_updates_are_rejected(dialect in dialects(), raw in raw_plan()) {
        let d = dialect.get();
        let wanted = shape(dialect, &raw);
        let mut plan = Vec::new();
        for call in d.write_update(&[], &wanted) {
            let _ = d.apply(&mut plan, &call.tool, &call.input);
        }
        for kind in [
            InvalidUpdate::TwoInProgress,
            InvalidUpdate::EmptyText,
            InvalidUpdate::UnknownStatus,
            InvalidUpdate::TooMany,
        ] {
            if let Some(call) = d.write_invalid(&wanted, kind) {
                let before = plan.clone();
                let outcome = d.apply(&mut plan, &call.tool, &call.input);
                prop_assert!(!outcome.accepted, "{} {:?}: {}", dialect, kind, call.input);
                prop_assert!(d.is_error(&outcome.content));
                prop_assert_eq!(&plan, &before);
            }
        }
    }
}

/// Which kinds of invalid update each dialect can be sent: the kinds it
/// accepts are `None` because it would take them.
#[test]
fn the_invalid_kinds_each_dialect_rejects() {
    let wanted = vec![
        PlanItem::new("1", "Read", PlanStatus::Completed),
        PlanItem::new("2", "Write", PlanStatus::Pending),
    ];
    let kinds = [
        InvalidUpdate::TwoInProgress,
        InvalidUpdate::EmptyText,
        InvalidUpdate::UnknownStatus,
        InvalidUpdate::TooMany,
    ];
    let table: Vec<(&str, Vec<bool>)> = Dialect::ALL
        .iter()
        .map(|dialect| {
            let d = dialect.get();
            (
                dialect.name(),
                kinds
                    .iter()
                    .map(|kind| d.write_invalid(&wanted, *kind).is_some())
                    .collect(),
            )
        })
        .collect();
    let expected: Vec<(&str, Vec<bool>)> = vec![
        ("s03", vec![true, true, true, true]),
        ("s03-guarded", vec![true, true, true, true]),
        ("planning-state", vec![true, true, true, true]),
        ("java-port", vec![true, true, false, true]),
        ("create-update", vec![false, true, true, false]),
        ("claude-code", vec![false, true, true, false]),
        ("claude-code-tasks", vec![false, false, true, false]),
        ("codex", vec![false, false, true, false]),
        ("gemini", vec![true, true, true, false]),
        ("qwen-code", vec![false, true, true, false]),
        ("opencode", vec![false, false, false, false]),
        // A NULL title and the status `completed` are SQLite constraint
        // errors; two in progress and many todos are fine.
        ("copilot-sql", vec![false, true, true, false]),
    ];
    assert_eq!(table, expected);
}

/// The calls the properties run on reach accepted, non-empty plans for
/// every dialect often enough: the properties are not vacuous.
#[test]
fn the_generated_calls_are_often_accepted() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    for &dialect in Dialect::ALL {
        let d = dialect.get();
        let mut runner = TestRunner::new_with_rng(
            Config::default(),
            TestRng::deterministic_rng(RngAlgorithm::ChaCha),
        );
        let strategy = own_call(dialect);
        let mut plan = Vec::new();
        let (mut accepted, mut rejected) = (0, 0);
        for _ in 0..400 {
            let Ok(tree) = strategy.new_tree(&mut runner) else {
                continue;
            };
            let (index, input) = tree.current();
            let outcome = d.apply(&mut plan, &tool_name(d, index), &input);
            if outcome.accepted && !plan.is_empty() {
                accepted += 1;
            } else if !outcome.accepted {
                rejected += 1;
            }
        }
        assert!(
            accepted >= 40,
            "{dialect}: {accepted} accepted non-empty of 400"
        );
        assert!(rejected >= 20, "{dialect}: {rejected} rejected of 400");
    }
}
