//! `create-update`: a plan built by steps rather than sent whole. Two tools:
//! `create_todos {items: [string]}` appends pending steps (ids 1, 2, ...
//! continuing) and `update_todo {id, status}` moves one step to `running`,
//! `completed` or `failed`. Every result shows the whole plan, in Chinese,
//! as the source does.

use serde_json::{Value, json};

use super::error::CreateUpdateError;
use super::{InvalidUpdate, PlanCall, PlanDialect, PlanItem, PlanOutcome, PlanStatus};
use std::sync::LazyLock;

use crate::llm::ToolSchema;
use crate::plan::pyrepr::{json_kind, python_str, python_strip};

const CREATE: &str = "create_todos";
const UPDATE: &str = "update_todo";
const PREFIX: &str = "错误:";
const EMPTY: &str = "当前没有执行计划。";
const HEADER: &str = "执行计划:";

#[derive(Debug, Clone, Copy)]
pub struct CreateUpdate;

fn word(status: PlanStatus) -> &'static str {
    match status {
        PlanStatus::Pending => "pending",
        PlanStatus::InProgress => "running",
        PlanStatus::Completed => "completed",
        PlanStatus::Failed | PlanStatus::Cancelled => "failed",
    }
}

fn label(status: PlanStatus) -> &'static str {
    match status {
        PlanStatus::Pending => "[ ]",
        PlanStatus::InProgress => "[>]",
        PlanStatus::Completed => "[x]",
        PlanStatus::Failed | PlanStatus::Cancelled => "[!]",
    }
}

fn from_label(label: &str) -> Option<PlanStatus> {
    match label {
        "[ ]" => Some(PlanStatus::Pending),
        "[>]" => Some(PlanStatus::InProgress),
        "[x]" => Some(PlanStatus::Completed),
        "[!]" => Some(PlanStatus::Failed),
        _ => None,
    }
}

/// The status words `update_todo` accepts.
fn update_status(word: &str) -> Option<PlanStatus> {
    match word {
        "running" => Some(PlanStatus::InProgress),
        "completed" => Some(PlanStatus::Completed),
        "failed" => Some(PlanStatus::Failed),
        _ => None,
    }
}

/// The id the next created step gets: one more than the largest so far.
fn next_id(plan: &[PlanItem]) -> usize {
    plan.iter()
        .filter_map(|item| item.id.parse::<usize>().ok())
        .max()
        .unwrap_or(0)
        .max(plan.len())
        + 1
}

fn arguments(input: &Value) -> Result<&serde_json::Map<String, Value>, CreateUpdateError> {
    input
        .as_object()
        .ok_or_else(|| CreateUpdateError::NotAnObject {
            kind: json_kind(input),
        })
}

/// The steps `create_todos` appends; the plan is not touched.
fn create(plan: &[PlanItem], input: &Value) -> Result<Vec<PlanItem>, CreateUpdateError> {
    let args = arguments(input)?;
    let items = match args.get("items") {
        None | Some(Value::Null) => return Err(CreateUpdateError::NoSteps),
        Some(Value::Array(items)) if items.is_empty() => return Err(CreateUpdateError::NoSteps),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(CreateUpdateError::ItemsNotAList {
                kind: json_kind(other),
            });
        }
    };
    let first = next_id(plan);
    let mut created = Vec::with_capacity(items.len());
    for (k, item) in items.iter().enumerate() {
        let Value::String(text) = item else {
            return Err(CreateUpdateError::StepNotAString {
                n: k + 1,
                kind: json_kind(item),
            });
        };
        let text = python_strip(text);
        if text.is_empty() {
            return Err(CreateUpdateError::EmptyStep { n: k + 1 });
        }
        created.push(PlanItem::new(
            (first + k).to_string(),
            text,
            PlanStatus::Pending,
        ));
    }
    Ok(created)
}

/// The index of the step `update_todo` changes, and its new status.
fn update(plan: &[PlanItem], input: &Value) -> Result<(usize, PlanStatus), CreateUpdateError> {
    let args = arguments(input)?;
    let status_word = match args.get("status") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => python_str(other),
        None => String::new(),
    };
    let status = update_status(&status_word).ok_or_else(|| CreateUpdateError::BadStatus {
        status: status_word.clone(),
    })?;
    let id = match args.get("id") {
        Some(Value::String(s)) => python_strip(s).to_string(),
        Some(other) => python_str(other),
        None => return Err(CreateUpdateError::MissingId),
    };
    let index = plan
        .iter()
        .position(|item| item.id == id)
        .ok_or(CreateUpdateError::UnknownId { id })?;
    Ok((index, status))
}

/// The tool schemas offered to the model, from `create_update.json` beside this file.
static SCHEMAS: LazyLock<Vec<ToolSchema>> = super::schema_file::schemas!("create_update.json");

impl PlanDialect for CreateUpdate {
    fn name(&self) -> &'static str {
        "create-update"
    }

    fn tools(&self) -> Vec<ToolSchema> {
        SCHEMAS.clone()
    }

    fn is_planning_tool(&self, tool: &str) -> bool {
        tool == CREATE || tool == UPDATE
    }

    fn apply(&self, plan: &mut Vec<PlanItem>, tool: &str, input: &Value) -> PlanOutcome {
        match tool {
            CREATE => match create(plan, input) {
                Ok(created) => {
                    let k = created.len();
                    plan.extend(created);
                    PlanOutcome::accepted(format!("已创建 {k} 个步骤:\n{}", self.render(plan)))
                }
                Err(e) => PlanOutcome::rejected(e.to_string()),
            },
            UPDATE => match update(plan, input) {
                Ok((index, status)) => {
                    let Some(item) = plan.get_mut(index) else {
                        return PlanOutcome::rejected(format!("{PREFIX}内部错误。"));
                    };
                    item.status = status;
                    let line = format!("步骤 #{} \"{}\" → {}", item.id, item.text, word(status));
                    PlanOutcome::accepted(format!("{line}\n{}", self.render(plan)))
                }
                Err(e) => PlanOutcome::rejected(e.to_string()),
            },
            other => PlanOutcome::rejected(format!("{PREFIX}未知的计划工具 \"{other}\"。")),
        }
    }

    fn render(&self, plan: &[PlanItem]) -> String {
        if plan.is_empty() {
            return EMPTY.into();
        }
        let mut out = String::from(HEADER);
        for item in plan {
            out.push_str(&format!(
                "\n  {} #{} {}",
                label(item.status),
                item.id,
                item.text
            ));
        }
        out
    }

    /// Reads a create or update result, or a bare plan render. A line that
    /// does not start a step continues the previous step's text.
    fn plan_from_result(&self, result: &str) -> Option<Vec<PlanItem>> {
        if result == EMPTY {
            return Some(Vec::new());
        }
        let body = match result.split_once('\n') {
            Some((first, rest))
                if (first.starts_with("已创建 ") || first.starts_with("步骤 #"))
                    && rest.starts_with(HEADER) =>
            {
                rest
            }
            _ => result,
        };
        let mut lines = body.strip_prefix(HEADER)?.strip_prefix('\n')?.split('\n');
        let mut plan: Vec<PlanItem> = Vec::new();
        let parse_step = |line: &str| -> Option<PlanItem> {
            let rest = line.strip_prefix("  ")?;
            let status = from_label(rest.get(..3)?)?;
            let (id, text) = rest.get(3..)?.strip_prefix(" #")?.split_once(' ')?;
            id.parse::<usize>().ok()?;
            Some(PlanItem::new(id, text, status))
        };
        plan.push(parse_step(lines.next()?)?);
        for line in lines {
            match parse_step(line) {
                Some(item) => plan.push(item),
                None => {
                    let last = plan.last_mut()?;
                    last.text.push('\n');
                    last.text.push_str(line);
                }
            }
        }
        Some(plan)
    }

    fn error_prefix(&self) -> &'static str {
        PREFIX
    }

    /// `create_todos` for the wanted items `before` does not hold (all of
    /// them when `before` is empty), then one `update_todo` per item whose
    /// status differs. A wanted item is the step of `before` with the same
    /// id and text, else the first other one with the same text, else the
    /// one with the same id (so a plan whose ids were not this dialect's
    /// still finds its steps). What the tools cannot express is left out:
    /// a step cannot go back to `pending`, be removed, or change its text;
    /// `cancelled` is sent as `failed`.
    fn write_update(&self, before: &[PlanItem], wanted: &[PlanItem]) -> Vec<PlanCall> {
        let mut calls = Vec::new();
        let mut ids: Vec<(String, PlanStatus, PlanStatus)> = Vec::new();
        let mut new_texts = Vec::new();
        let mut next = next_id(before);
        let mut used = vec![false; before.len()];
        for item in wanted {
            let free = |matches: &dyn Fn(&PlanItem) -> bool, used: &[bool]| {
                before
                    .iter()
                    .enumerate()
                    .position(|(k, b)| !used.get(k).copied().unwrap_or(true) && matches(b))
            };
            let found = free(&|b| b.id == item.id && b.text == item.text, &used)
                .or_else(|| free(&|b| b.text == item.text, &used))
                .or_else(|| free(&|b| b.id == item.id, &used));
            match found.and_then(|k| Some((k, before.get(k)?))) {
                Some((k, old)) => {
                    if let Some(slot) = used.get_mut(k) {
                        *slot = true;
                    }
                    ids.push((old.id.clone(), old.status, item.status));
                }
                None => {
                    new_texts.push(item.text.clone());
                    ids.push((next.to_string(), PlanStatus::Pending, item.status));
                    next += 1;
                }
            }
        }
        if !new_texts.is_empty() {
            calls.push(PlanCall {
                tool: CREATE.into(),
                input: json!({ "items": new_texts }),
            });
        }
        for (id, old, new) in ids {
            let new = if new == PlanStatus::Cancelled {
                PlanStatus::Failed
            } else {
                new
            };
            if old != new && new != PlanStatus::Pending {
                calls.push(PlanCall {
                    tool: UPDATE.into(),
                    input: json!({"id": id, "status": word(new)}),
                });
            }
        }
        calls
    }

    fn status_word(&self, status: PlanStatus) -> &'static str {
        word(status)
    }

    fn statuses(&self) -> &'static [PlanStatus] {
        &[
            PlanStatus::Pending,
            PlanStatus::InProgress,
            PlanStatus::Completed,
            PlanStatus::Failed,
        ]
    }

    fn write_invalid(&self, wanted: &[PlanItem], kind: InvalidUpdate) -> Option<PlanCall> {
        match kind {
            InvalidUpdate::EmptyText => Some(PlanCall {
                tool: CREATE.into(),
                input: json!({ "items": [""] }),
            }),
            InvalidUpdate::UnknownStatus => Some(PlanCall {
                tool: UPDATE.into(),
                input: json!({"id": wanted.first().map_or("1", |item| item.id.as_str()), "status": "done"}),
            }),
            // No count limit, and any number of steps may be running.
            InvalidUpdate::TwoInProgress | InvalidUpdate::TooMany => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(plan: &mut Vec<PlanItem>, tool: &str, input: Value) -> PlanOutcome {
        let before = plan.clone();
        let outcome = CreateUpdate.apply(plan, tool, &input);
        if !outcome.accepted {
            assert_eq!(*plan, before, "a rejected call changed the plan");
            assert!(
                CreateUpdate.is_error(&outcome.content),
                "{}",
                outcome.content
            );
        }
        outcome
    }

    #[test]
    fn create_then_update_exactly() {
        let mut plan = Vec::new();
        let created = run(&mut plan, CREATE, json!({"items": ["Read", " Write "]}));
        assert_eq!(
            created,
            PlanOutcome::accepted("已创建 2 个步骤:\n执行计划:\n  [ ] #1 Read\n  [ ] #2 Write")
        );
        let more = run(&mut plan, CREATE, json!({"items": ["Test"]}));
        assert_eq!(
            more.content,
            "已创建 1 个步骤:\n执行计划:\n  [ ] #1 Read\n  [ ] #2 Write\n  [ ] #3 Test"
        );
        assert_eq!(
            run(&mut plan, UPDATE, json!({"id": "1", "status": "completed"})).content,
            "步骤 #1 \"Read\" → completed\n执行计划:\n  [x] #1 Read\n  [ ] #2 Write\n  [ ] #3 Test"
        );
        assert_eq!(
            run(&mut plan, UPDATE, json!({"id": 2, "status": "running"})).content,
            "步骤 #2 \"Write\" → running\n执行计划:\n  [x] #1 Read\n  [>] #2 Write\n  [ ] #3 Test"
        );
        let failed = run(&mut plan, UPDATE, json!({"id": "3", "status": "failed"}));
        assert_eq!(
            failed.content,
            "步骤 #3 \"Test\" → failed\n执行计划:\n  [x] #1 Read\n  [>] #2 Write\n  [!] #3 Test"
        );
        assert_eq!(
            CreateUpdate.plan_from_result(&failed.content),
            Some(plan.clone())
        );
        assert_eq!(
            CreateUpdate
                .plan_from_result(&created.content)
                .map(|p| p.len()),
            Some(2)
        );
        assert_eq!(CreateUpdate.render(&[]), "当前没有执行计划。");
        assert_eq!(
            CreateUpdate.plan_from_result("当前没有执行计划。"),
            Some(vec![])
        );
        assert_eq!(CreateUpdate.plan_from_result("Wrote 3 bytes"), None);
    }

    #[test]
    fn every_rejection_message() {
        let mut plan = vec![PlanItem::new("1", "Read", PlanStatus::Pending)];
        for input in [json!({}), json!({"items": []}), json!({"items": null})] {
            assert_eq!(
                run(&mut plan, CREATE, input).content,
                "错误:必须提供至少一个步骤描述。"
            );
        }
        assert_eq!(
            run(&mut plan, UPDATE, json!({"id": "1", "status": "done"})).content,
            "错误:无效状态 \"done\",可选值: running, completed, failed"
        );
        assert_eq!(
            run(&mut plan, UPDATE, json!({"id": "1", "status": "pending"})).content,
            "错误:无效状态 \"pending\",可选值: running, completed, failed"
        );
        // The status is checked before the id.
        assert_eq!(
            run(&mut plan, UPDATE, json!({"id": "9"})).content,
            "错误:无效状态 \"\",可选值: running, completed, failed"
        );
        assert_eq!(
            run(&mut plan, UPDATE, json!({"id": "9", "status": "completed"})).content,
            "错误:未找到 ID 为 \"9\" 的步骤。"
        );
        assert_eq!(
            run(&mut plan, UPDATE, json!({"status": "completed"})).content,
            "错误:必须提供步骤 ID。"
        );
        assert_eq!(
            run(&mut plan, CREATE, json!("x")).content,
            "错误:参数必须是一个对象,收到的是 a string。"
        );
        assert_eq!(
            run(&mut plan, CREATE, json!({"items": "a"})).content,
            "错误:items 必须是字符串列表,收到的是 a string。"
        );
        assert_eq!(
            run(&mut plan, CREATE, json!({"items": ["a", 3]})).content,
            "错误:第 2 个步骤描述必须是字符串,收到的是 a number。"
        );
        assert_eq!(
            run(&mut plan, CREATE, json!({"items": ["a", "  "]})).content,
            "错误:第 2 个步骤描述不能为空。"
        );
        assert_eq!(
            run(&mut plan, "todo", json!({})).content,
            "错误:未知的计划工具 \"todo\"。"
        );
    }

    #[test]
    fn writes_updates_in_its_own_shape() {
        let wanted = vec![
            PlanItem::new("1", "Read", PlanStatus::Completed),
            PlanItem::new("2", "Write", PlanStatus::InProgress),
            PlanItem::new("3", "Test", PlanStatus::Pending),
        ];
        let calls = CreateUpdate.write_update(&[], &wanted);
        let tools: Vec<&str> = calls.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(tools, [CREATE, UPDATE, UPDATE]);
        let mut plan = Vec::new();
        for call in &calls {
            assert!(
                CreateUpdate
                    .apply(&mut plan, &call.tool, &call.input)
                    .accepted
            );
        }
        assert_eq!(plan, wanted);
        let mut later = wanted.clone();
        later[1].status = PlanStatus::Completed;
        later[2].status = PlanStatus::InProgress;
        let calls = CreateUpdate.write_update(&plan, &later);
        assert_eq!(calls.len(), 2);
        assert!(calls.iter().all(|c| c.tool == UPDATE));
        // Steps named by other ids are found by their text.
        let renamed: Vec<PlanItem> = later
            .iter()
            .map(|item| {
                PlanItem::new(
                    format!("step-{}", item.id),
                    item.text.clone(),
                    PlanStatus::Completed,
                )
            })
            .collect();
        let calls = CreateUpdate.write_update(&plan, &renamed);
        assert!(calls.iter().all(|c| c.tool == UPDATE), "{calls:?}");
        let mut done = plan.clone();
        for call in &calls {
            assert!(
                CreateUpdate
                    .apply(&mut done, &call.tool, &call.input)
                    .accepted
            );
        }
        assert!(done.iter().all(|i| i.status == PlanStatus::Completed));
        assert_eq!(done.len(), 3);
        assert!(
            CreateUpdate
                .write_invalid(&wanted, InvalidUpdate::TooMany)
                .is_none()
        );
        assert!(
            CreateUpdate
                .write_invalid(&wanted, InvalidUpdate::TwoInProgress)
                .is_none()
        );
        for kind in [InvalidUpdate::EmptyText, InvalidUpdate::UnknownStatus] {
            let call = CreateUpdate
                .write_invalid(&wanted, kind)
                .unwrap_or_else(|| panic!("{kind:?}"));
            assert!(!run(&mut plan, &call.tool, call.input).accepted, "{kind:?}");
        }
    }
}
