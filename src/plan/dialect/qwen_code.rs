//! `qwen-code`: Qwen Code's `todo_write` (probed on 0.24.4: the texts in
//! `tests/data/agents/probe/qwen_code.json`). The whole list is sent every
//! time (`{todos: [{id, content, status, blockedBy?}]}`); ids are the
//! model's own (non-empty strings, unique), statuses pending, in_progress
//! and completed, any number in progress, `blockedBy` lists ids of the
//! same list (no unknown id, no self, no repeat, no cycle). Fields it does
//! not know are kept as sent.
//!
//! The result shows the list back as the JSON the model sent, inside a
//! `<system-reminder>` (`Todos have been modified successfully. ...
//! Here are the latest contents of your todo list:\n\n[{...}]. Continue on
//! with the tasks at hand if applicable.`); an empty list says `Todo list
//! has been cleared.`; a list equal to the stored one is not written and
//! says `Todo list is already up to date. No changes were needed.` (the
//! stored list compared by id, content and status). Errors are the
//! binary's sentences, without a prefix (`Each todo must have a valid
//! "status" (pending, in_progress, completed).`).
//!
//! Qwen's planning reminder is not part of the tool: it is the
//! `qwen-code` reminder policy (`crate::plan::reminder`).

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use super::error::QwenTodoError;
use super::error::Refusal;
use super::whole_list::{Apply, WholeList};
use super::{
    AddedItem, InvalidUpdate, PlanCall, PlanDialect, PlanItem, PlanOutcome, PlanStatus, js_blank,
};
use crate::llm::ToolSchema;

const TOOL: &str = "todo_write";
/// The opening of an accepted write's result.
pub const MODIFIED: &str = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable\n\n<system-reminder>\nYour todo list has changed. DO NOT mention this explicitly to the user. Here are the latest contents of your todo list:\n\n";
const MODIFIED_END: &str =
    ". Continue on with the tasks at hand if applicable.\n</system-reminder>";
/// The result of writing an empty list.
pub const CLEARED: &str = "Todo list has been cleared.\n\n<system-reminder>\nYour todo list is now empty. DO NOT mention this explicitly to the user. You have no pending tasks in your todo list.\n</system-reminder>";
/// The result of writing the list already stored.
pub const UNCHANGED: &str = "Todo list is already up to date. No changes were needed.\n\n<system-reminder>\nYour todo list was not modified because it is already current. Continue with your existing tasks.\n</system-reminder>";
/// Every accepted result begins with one of these.
const SUCCESS_OPENINGS: [&str; 3] = [
    "Todos have been modified",
    "Todo list has been cleared",
    "Todo list is already up to date",
];
const MAX_ID_UNITS: usize = 500;

#[derive(Debug, Clone, Copy)]
pub struct QwenCode;

/// A non-empty, non-blank id of at most 500 UTF-16 units (JavaScript's
/// `length`).
fn valid_id(value: Option<&Value>) -> Option<&str> {
    let id = value?.as_str()?;
    (!js_blank(id) && id.encode_utf16().count() <= MAX_ID_UNITS).then_some(id)
}

/// The item checks, in the binary's order, first failure wins.
fn check_item(todo: &Value) -> Result<PlanItem, QwenTodoError> {
    let fields = todo.as_object().ok_or(QwenTodoError::NotAnObject)?;
    let id = valid_id(fields.get("id")).ok_or(QwenTodoError::BadId)?;
    let content = fields
        .get("content")
        .and_then(Value::as_str)
        .filter(|c| !js_blank(c))
        .ok_or(QwenTodoError::BadContent)?;
    let status = fields
        .get("status")
        .and_then(Value::as_str)
        .and_then(PlanStatus::from_three_words)
        .ok_or(QwenTodoError::BadStatus)?;
    if let Some(blocked_by) = fields.get("blockedBy") {
        let ok = blocked_by
            .as_array()
            .is_some_and(|deps| deps.iter().all(|d| valid_id(Some(d)).is_some()));
        if !ok {
            return Err(QwenTodoError::BadBlockedBy);
        }
    }
    Ok(PlanItem::new(id, content, status))
}

fn blocked_by(todo: &Value) -> Vec<&str> {
    todo.get("blockedBy")
        .and_then(Value::as_array)
        .map(|deps| deps.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The list checks after every item passed: unique ids, then each item's
/// dependencies, then no cycle.
fn check_dependencies(todos: &[Value], items: &[PlanItem]) -> Result<(), QwenTodoError> {
    let ids: BTreeSet<&str> = items.iter().map(|i| i.id.as_str()).collect();
    if ids.len() != items.len() {
        return Err(QwenTodoError::DuplicateIds);
    }
    for (todo, item) in todos.iter().zip(items) {
        let deps = blocked_by(todo);
        if deps.iter().collect::<BTreeSet<_>>().len() != deps.len() {
            return Err(QwenTodoError::DuplicateBlockers {
                id: item.id.clone(),
            });
        }
        if deps.contains(&item.id.as_str()) {
            return Err(QwenTodoError::SelfDependency {
                id: item.id.clone(),
            });
        }
        if let Some(missing) = deps.iter().find(|d| !ids.contains(*d)) {
            return Err(QwenTodoError::UnknownDependency {
                id: item.id.clone(),
                missing: missing.to_string(),
            });
        }
    }
    // Kahn's order: every item must come free once its blockers are.
    let mut remaining: BTreeMap<&str, usize> = BTreeMap::new();
    let mut dependents: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (todo, item) in todos.iter().zip(items) {
        let deps = blocked_by(todo);
        remaining.insert(&item.id, deps.len());
        for dep in deps {
            dependents.entry(dep).or_default().push(&item.id);
        }
    }
    let mut queue: Vec<&str> = items
        .iter()
        .map(|i| i.id.as_str())
        .filter(|id| remaining.get(id) == Some(&0))
        .collect();
    let mut at = 0;
    while let Some(&id) = queue.get(at) {
        for dependent in dependents.get(id).cloned().unwrap_or_default() {
            if let Some(n) = remaining.get_mut(dependent) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    queue.push(dependent);
                }
            }
        }
        at += 1;
    }
    if queue.len() != items.len() {
        return Err(QwenTodoError::Cycle);
    }
    Ok(())
}

/// The list as sent (for the echo) and as plan items, or the error.
fn check_list(input: &Value) -> Result<(&Vec<Value>, Vec<PlanItem>), QwenTodoError> {
    let todos = input
        .get("todos")
        .and_then(Value::as_array)
        .ok_or(QwenTodoError::NotAnArray)?;
    let items = todos
        .iter()
        .map(check_item)
        .collect::<Result<Vec<_>, _>>()?;
    check_dependencies(todos, &items)?;
    Ok((todos, items))
}

fn same_plan(a: &[PlanItem], b: &[PlanItem]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.id == y.id && x.text == y.text && x.status == y.status)
}

fn item_json(item: &PlanItem, position: usize) -> Value {
    let id = if item.id.is_empty() {
        (position + 1).to_string()
    } else {
        item.id.clone()
    };
    json!({"id": id, "content": item.text, "status": item.status.three_words()})
}

fn modified(todos_json: &str) -> String {
    format!("{MODIFIED}{todos_json}{MODIFIED_END}")
}

/// The tool schemas offered to the model, from `qwen_code.json` beside this file.
static SCHEMAS: LazyLock<Vec<ToolSchema>> = super::schema_file::schemas!("qwen_code.json");

/// The plan a call sets, or the binary's error.
fn validate(input: &Value) -> Result<Vec<PlanItem>, Refusal> {
    Ok(check_list(input).map(|(_, items)| items)?)
}

/// An accepted list is echoed as the JSON sent, or said cleared when
/// empty; a list equal to the stored one is not written.
fn apply(plan: &mut Vec<PlanItem>, input: &Value) -> PlanOutcome {
    let (todos, items) = match check_list(input) {
        Ok(valid) => valid,
        Err(e) => return PlanOutcome::rejected(e.to_string()),
    };
    if same_plan(plan, &items) {
        return PlanOutcome::accepted(UNCHANGED);
    }
    let content = if items.is_empty() {
        CLEARED.to_string()
    } else {
        modified(&Value::Array(todos.clone()).to_string())
    };
    *plan = items;
    PlanOutcome::accepted(content)
}

/// The shared whole-list piece, described for this dialect.
static LIST: WholeList = WholeList {
    name: "qwen-code",
    tool: TOOL,
    key: "todos",
    schemas: &SCHEMAS,
    validate,
    item_json,
    apply: Apply::Own(apply),
};

impl PlanDialect for QwenCode {
    // `plan_from_call` is the list as sent; an unchanged list is the
    // stored one (equal in everything a qwen-code item holds).
    super::whole_list::forward_to_whole_list!(LIST);

    fn render(&self, plan: &[PlanItem]) -> String {
        if plan.is_empty() {
            return CLEARED.into();
        }
        let items: Vec<Value> = plan
            .iter()
            .enumerate()
            .map(|(k, i)| item_json(i, k))
            .collect();
        modified(&Value::Array(items).to_string())
    }

    fn plan_from_result(&self, result: &str) -> Option<Vec<PlanItem>> {
        if result == CLEARED {
            return Some(Vec::new());
        }
        let body = result.strip_prefix(MODIFIED)?.strip_suffix(MODIFIED_END)?;
        let todos: Vec<Value> = serde_json::from_str(body).ok()?;
        todos.iter().map(|t| check_item(t).ok()).collect()
    }

    fn is_error(&self, result: &str) -> bool {
        !SUCCESS_OPENINGS.iter().any(|o| result.starts_with(o))
    }

    /// Its errors have no common prefix ([`PlanDialect::is_error`] is
    /// overridden): this is the opening of the most common one.
    fn error_prefix(&self) -> &'static str {
        "Each todo must"
    }

    fn write_invalid(&self, wanted: &[PlanItem], kind: InvalidUpdate) -> Option<PlanCall> {
        // No count limit and no limit on items in progress: only an empty
        // content and an unknown status are refused.
        if !matches!(
            kind,
            InvalidUpdate::EmptyText | InvalidUpdate::UnknownStatus
        ) {
            return None;
        }
        let mut items: Vec<Value> = wanted
            .iter()
            .enumerate()
            .map(|(k, i)| item_json(i, k))
            .collect();
        kind.break_list(&mut items, "content", None, |added| match added {
            AddedItem::EmptyText => json!({"id": "1", "content": "", "status": "pending"}),
            _ => json!({"id": "1", "content": "Start", "status": "done"}),
        });
        Some(PlanCall::whole_list(TOOL, "todos", items))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::dialect::test_support::apply_checked;

    fn apply_to(plan: &mut Vec<PlanItem>, input: Value) -> PlanOutcome {
        apply_checked(&QwenCode, plan, TOOL, &input)
    }

    #[test]
    fn results_echo_the_list_as_sent() {
        let mut plan = Vec::new();
        assert_eq!(
            apply_to(&mut plan, json!({"todos": []})),
            PlanOutcome::accepted(UNCHANGED)
        );
        let input = json!({"todos": [
            {"id": "1", "content": "A", "status": "in_progress", "x": 1},
            {"id": "2", "content": "B", "status": "in_progress"},
        ]});
        let outcome = apply_to(&mut plan, input.clone());
        assert_eq!(
            outcome.content,
            modified(
                r#"[{"id":"1","content":"A","status":"in_progress","x":1},{"id":"2","content":"B","status":"in_progress"}]"#
            )
        );
        assert_eq!(
            QwenCode.plan_from_result(&outcome.content),
            Some(plan.clone())
        );
        assert_eq!(apply_to(&mut plan, input), PlanOutcome::accepted(UNCHANGED));
        assert_eq!(
            apply_to(&mut plan, json!({"todos": []})),
            PlanOutcome::accepted(CLEARED)
        );
        assert_eq!(QwenCode.plan_from_result(CLEARED), Some(vec![]));
        assert_eq!(QwenCode.plan_from_result(UNCHANGED), None);
        assert!(!QwenCode.is_error(UNCHANGED));
    }

    #[test]
    fn every_rejection_message() {
        let todo = |extra: Value| {
            let mut t = json!({"id": "1", "content": "A", "status": "pending"});
            if let (Some(t), Some(extra)) = (t.as_object_mut(), extra.as_object()) {
                t.extend(extra.clone());
            }
            t
        };
        let cases = [
            (json!({}), "Parameter \"todos\" must be an array."),
            (json!({"todos": [1]}), "Each todo must be an object."),
            (
                json!({"todos": [todo(json!({"id": 1}))]}),
                "Each todo must have a non-empty \"id\" string of at most 500 characters.",
            ),
            (
                json!({"todos": [todo(json!({"id": "x".repeat(501)}))]}),
                "Each todo must have a non-empty \"id\" string of at most 500 characters.",
            ),
            (
                json!({"todos": [todo(json!({"content": " "}))]}),
                "Each todo must have a non-empty \"content\" string.",
            ),
            (
                json!({"todos": [todo(json!({"status": "done"}))]}),
                "Each todo must have a valid \"status\" (pending, in_progress, completed).",
            ),
            (
                json!({"todos": [todo(json!({"blockedBy": "2"}))]}),
                "Each todo \"blockedBy\" value must be an array of non-empty Todo IDs of at most 500 characters.",
            ),
            (
                json!({"todos": [todo(json!({})), todo(json!({}))]}),
                "Todo IDs must be unique within the array.",
            ),
            (
                json!({"todos": [todo(json!({"blockedBy": ["2"]}))]}),
                "Todo \"1\" references unknown dependency \"2\".",
            ),
            (
                json!({"todos": [todo(json!({"blockedBy": ["1"]}))]}),
                "Todo \"1\" must not depend on itself.",
            ),
            (
                json!({"todos": [todo(json!({"blockedBy": ["2", "2"]})), {"id": "2", "content": "B", "status": "pending"}]}),
                "Todo \"1\" must not contain duplicate blockedBy references.",
            ),
            (
                json!({"todos": [todo(json!({"blockedBy": ["2"]})), {"id": "2", "content": "B", "status": "pending", "blockedBy": ["1"]}]}),
                "Todo dependencies must not contain a cycle.",
            ),
        ];
        for (input, message) in cases {
            let mut plan = vec![PlanItem::new("9", "Keep", PlanStatus::Pending)];
            assert_eq!(
                apply_to(&mut plan, input.clone()),
                PlanOutcome::rejected(message),
                "{input}"
            );
            assert!(QwenCode.is_error(message));
        }
    }

    #[test]
    fn invalid_kinds() {
        let wanted = vec![PlanItem::new("1", "Read", PlanStatus::Pending)];
        for kind in [InvalidUpdate::TwoInProgress, InvalidUpdate::TooMany] {
            assert!(QwenCode.write_invalid(&wanted, kind).is_none(), "{kind:?}");
        }
        for w in [vec![], wanted] {
            for kind in [InvalidUpdate::EmptyText, InvalidUpdate::UnknownStatus] {
                let call = QwenCode
                    .write_invalid(&w, kind)
                    .unwrap_or_else(|| panic!("{kind:?}"));
                let mut plan = Vec::new();
                assert!(!apply_to(&mut plan, call.input).accepted, "{kind:?}");
            }
        }
    }
}
