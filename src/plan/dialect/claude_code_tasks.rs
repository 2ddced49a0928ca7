//! `claude-code-tasks`: Claude Code's Task tools (2.1.330 with
//! `CLAUDE_CODE_ENABLE_TASKS=1`), the design that replaces TodoWrite.
//!
//! Four tools change or read one task at a time: `TaskCreate {subject,
//! description, activeForm?, metadata?}`, `TaskUpdate {taskId, status?,
//! subject?, description?, activeForm?, owner?, metadata?, addBlocks?,
//! addBlockedBy?}`, `TaskList {}` and `TaskGet {taskId}`. Ids are strings
//! counting from "1"; `status: deleted` removes a task (and every reference
//! to it). The tools are deferred: Claude Code offers `ToolSearch` to load
//! their schemas (this dialect answers it through
//! [`PlanDialect::load_tools`]); the binary accepts Task calls made before
//! it all the same, and so does this dialect.
//!
//! Every string is the real binary's, probed into
//! `tests/data/claude-code-tasks/` (the tests below replay every probed
//! call). What the probe showed and this file follows: `TaskCreate` fills a
//! missing `subject` from `description` and the other way round when that
//! one holds more than white space (else the missing one is named: `{subject:
//! ""}` is refused for its `description`), and ignores unknown fields; the other tools reject unknown fields; an unknown id is
//! `Task not found` (a plain result, not an error, as on the binary); `TaskUpdate` names the fields it changed, in a fixed
//! order, and ignores blocking ids of tasks that do not exist. The schemas
//! are `claude_code_tasks.json` beside this file.

use std::sync::LazyLock;

use serde_json::{Map, Value, json};

use super::{
    InvalidUpdate, PlanCall, PlanDialect, PlanItem, PlanOutcome, PlanStatus, TaskFields,
    active_form_for, match_by_text, zod_type,
};
use crate::llm::ToolSchema;

const CREATE: &str = "TaskCreate";
const UPDATE: &str = "TaskUpdate";
const LIST: &str = "TaskList";
const GET: &str = "TaskGet";
/// The tool that loads the deferred Task tools.
pub const TOOL_SEARCH: &str = "ToolSearch";
/// The query that loads all four.
pub const SELECT_ALL: &str = "select:TaskCreate,TaskUpdate,TaskList,TaskGet";
const PREFIX: &str = "<tool_use_error>";
const NOT_FOUND: &str = "Task not found";
const NO_TASKS: &str = "No tasks found";
const NO_MATCH: &str = "No matching deferred tools found";
/// The deferred tools in the order a keyword search ranks them (as probed).
const DEFERRED: [&str; 4] = [CREATE, GET, UPDATE, LIST];
/// zod's answer to a status outside the union (pending | in_progress |
/// completed, or deleted), whatever the value sent.
const INVALID_STATUS: &str = r#"<tool_use_error>InputValidationError: [
  {
    "code": "invalid_union",
    "errors": [
      [
        {
          "code": "invalid_value",
          "values": [
            "pending",
            "in_progress",
            "completed"
          ],
          "path": [],
          "message": "Invalid option: expected one of \"pending\"|\"in_progress\"|\"completed\""
        }
      ],
      [
        {
          "code": "invalid_value",
          "values": [
            "deleted"
          ],
          "path": [],
          "message": "Invalid input: expected \"deleted\""
        }
      ]
    ],
    "path": [
      "status"
    ],
    "message": "Invalid input"
  }
]</tool_use_error>"#;

#[derive(Debug, Clone, Copy)]
pub struct ClaudeCodeTasks;

/// The schemas as Claude Code offers them: the four tools, then
/// ToolSearch, from `claude_code_tasks.json` beside this file.
static SCHEMAS: LazyLock<Vec<ToolSchema>> = super::schema_file::schemas!("claude_code_tasks.json");

/// The issues of one call, worded the way Claude Code words zod's: why
/// a call was refused, its text assembled in [`Issues::message`].
#[derive(Debug, thiserror::Error)]
#[error("{}", self.message())]
struct Issues {
    tool: &'static str,
    lines: Vec<String>,
    bad_status: bool,
}

impl Issues {
    fn new(tool: &'static str) -> Self {
        Self {
            tool,
            lines: Vec::new(),
            bad_status: false,
        }
    }

    fn missing(&mut self, key: &str) {
        self.lines
            .push(format!("The required parameter `{key}` is missing"));
    }

    fn mistyped(&mut self, key: &str, expected: &str, value: &Value) {
        self.lines.push(format!(
            "The parameter `{key}` type is expected as `{expected}` but provided as `{}`",
            zod_type(value)
        ));
    }

    /// Unknown keys of a strict schema.
    fn unexpected(&mut self, input: &Map<String, Value>, known: &[&str]) {
        for key in input.keys().filter(|k| !known.contains(&k.as_str())) {
            self.lines
                .push(format!("An unexpected parameter `{key}` was provided"));
        }
    }

    /// An optional string field.
    fn string(&mut self, input: &Map<String, Value>, key: &str) -> Option<String> {
        match input.get(key)? {
            Value::String(s) => Some(s.clone()),
            other => {
                self.mistyped(key, "string", other);
                None
            }
        }
    }

    /// An optional list of ids.
    fn ids(&mut self, input: &Map<String, Value>, key: &str) -> Vec<String> {
        match input.get(key) {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| match item {
                    Value::String(s) => Some(s.clone()),
                    other => {
                        self.mistyped(&format!("{key}[{i}]"), "string", other);
                        None
                    }
                })
                .collect(),
            Some(other) => {
                self.mistyped(key, "array", other);
                Vec::new()
            }
        }
    }

    fn object(&mut self, input: &Map<String, Value>, key: &str) -> bool {
        match input.get(key) {
            None => false,
            Some(Value::Object(_)) => true,
            Some(other) => {
                self.mistyped(key, "object", other);
                false
            }
        }
    }

    /// The refusal, or `None` when the call is valid.
    fn error(self) -> Option<Self> {
        (self.bad_status || !self.lines.is_empty()).then_some(self)
    }

    /// The refusal's text: zod's status union error as the CLI prints it,
    /// or every issue, one a line.
    fn message(&self) -> String {
        if self.bad_status {
            return INVALID_STATUS.to_string();
        }
        let noun = if self.lines.len() > 1 {
            "issues"
        } else {
            "issue"
        };
        format!(
            "{PREFIX}InputValidationError: {} failed due to the following {noun}:\n{}</tool_use_error>",
            self.tool,
            self.lines.join("\n")
        )
    }
}

/// The input as an object, or the error for a call that sent no object.
fn object<'a>(tool: &'static str, input: &'a Value) -> Result<&'a Map<String, Value>, Issues> {
    input.as_object().ok_or_else(|| {
        let mut issues = Issues::new(tool);
        issues.mistyped("input", "object", input);
        issues
    })
}

/// A status word of the union; `Some(None)` is `deleted`.
fn parse_status(value: &Value) -> Option<Option<PlanStatus>> {
    match value.as_str()? {
        "pending" => Some(Some(PlanStatus::Pending)),
        "in_progress" => Some(Some(PlanStatus::InProgress)),
        "completed" => Some(Some(PlanStatus::Completed)),
        "deleted" => Some(None),
        _ => None,
    }
}

/// A required `taskId`.
fn task_id(issues: &mut Issues, input: &Map<String, Value>) -> Option<String> {
    match input.get("taskId") {
        None => {
            issues.missing("taskId");
            None
        }
        Some(_) => issues.string(input, "taskId"),
    }
}

/// The id the next task gets: one past the highest id given out, as the
/// remaining tasks remember it (the binary keeps a counter; with every
/// task deleted this list has nothing to remember it by and starts at 1).
fn next_id(plan: &[PlanItem]) -> u64 {
    plan.iter()
        .map(|item| {
            let id = item.id.parse::<u64>().unwrap_or(0);
            id.max(item.task.as_ref().map_or(0, |t| t.last_id))
        })
        .max()
        .unwrap_or(0)
        + 1
}

fn fields(item: &PlanItem) -> TaskFields {
    item.task.as_deref().cloned().unwrap_or_default()
}

fn find(plan: &[PlanItem], id: &str) -> Option<usize> {
    plan.iter().position(|item| item.id == id)
}

/// The task whose id is `id`.
fn task_of<'p>(plan: &'p [PlanItem], id: &str) -> Option<&'p PlanItem> {
    plan.iter().find(|item| item.id == id)
}

/// Changes the fields of task `k` (of none when there is no task `k`).
fn edit_fields(plan: &mut [PlanItem], k: usize, change: impl FnOnce(&mut TaskFields)) {
    if let Some(item) = plan.get_mut(k) {
        let mut task = fields(item);
        change(&mut task);
        item.task = Some(Box::new(task));
    }
}

fn hashes(ids: &[String]) -> String {
    ids.iter()
        .map(|id| format!("#{id}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn create(plan: &mut Vec<PlanItem>, input: &Value) -> PlanOutcome {
    let input = match object(CREATE, input) {
        Ok(input) => input,
        Err(issues) => return PlanOutcome::rejected(issues.to_string()),
    };
    let mut issues = Issues::new(CREATE);
    let subject = issues.string(input, "subject");
    let description = issues.string(input, "description");
    let active_form = issues.string(input, "activeForm");
    issues.object(input, "metadata");
    // A missing text is filled from the other only when that one has more
    // than white space (as the binary does: `{subject: ""}` is refused for
    // its missing `description`, `{subject: "", description: ""}` is
    // created); what is still missing is named.
    let filled = |own: &Option<String>, present: bool, other: &Option<String>| {
        if present {
            own.clone()
        } else {
            other.clone().filter(|t| !t.trim().is_empty())
        }
    };
    let (has_subject, has_description) = (
        input.contains_key("subject"),
        input.contains_key("description"),
    );
    let subject_filled = filled(&subject, has_subject, &description);
    let description_filled = filled(&description, has_description, &subject);
    if !has_subject && subject_filled.is_none() {
        issues.missing("subject");
    }
    if !has_description && description_filled.is_none() {
        issues.missing("description");
    }
    if let Some(refused) = issues.error() {
        return PlanOutcome::rejected(refused.to_string());
    }
    let (subject, description) = (
        subject_filled.unwrap_or_default(),
        description_filled.unwrap_or_default(),
    );
    let number = next_id(plan);
    let id = number.to_string();
    let content = format!("Task #{id} created successfully: {subject}");
    plan.push(PlanItem {
        id,
        text: subject,
        status: PlanStatus::Pending,
        active_form,
        task: Some(Box::new(TaskFields {
            description,
            last_id: number,
            ..TaskFields::default()
        })),
    });
    PlanOutcome::accepted(content)
}

/// A checked `TaskUpdate`.
struct Update {
    id: String,
    subject: Option<String>,
    description: Option<String>,
    active_form: Option<String>,
    owner: Option<String>,
    metadata: bool,
    /// `Some(None)` deletes.
    status: Option<Option<PlanStatus>>,
    add_blocks: Vec<String>,
    add_blocked_by: Vec<String>,
}

const UPDATE_KEYS: [&str; 9] = [
    "taskId",
    "subject",
    "description",
    "activeForm",
    "status",
    "addBlocks",
    "addBlockedBy",
    "owner",
    "metadata",
];

fn check_update(input: &Value) -> Result<Update, Issues> {
    let input = object(UPDATE, input)?;
    let mut issues = Issues::new(UPDATE);
    issues.unexpected(input, &UPDATE_KEYS);
    let id = task_id(&mut issues, input);
    let status = input.get("status").and_then(|value| {
        let status = parse_status(value);
        issues.bad_status |= status.is_none();
        status
    });
    let update = Update {
        id: id.unwrap_or_default(),
        subject: issues.string(input, "subject"),
        description: issues.string(input, "description"),
        active_form: issues.string(input, "activeForm"),
        owner: issues.string(input, "owner"),
        metadata: issues.object(input, "metadata"),
        status,
        add_blocks: issues.ids(input, "addBlocks"),
        add_blocked_by: issues.ids(input, "addBlockedBy"),
    };
    match issues.error() {
        Some(refused) => Err(refused),
        None => Ok(update),
    }
}

/// Links task `k` to each of `ids` (`blocks`: k blocks them, else they
/// block k) in both tasks, where the other task exists. `true` when an id
/// was new to task k's list.
fn add_links(plan: &mut [PlanItem], k: usize, ids: &[String], blocks: bool) -> bool {
    let Some(this) = plan.get(k).map(|item| item.id.clone()) else {
        return false;
    };
    let mut new = false;
    for other in ids {
        let own = plan.get(k).map(fields).unwrap_or_default();
        let list = if blocks { &own.blocks } else { &own.blocked_by };
        if list.contains(other) {
            continue;
        }
        new = true;
        let Some(j) = find(plan, other) else {
            continue;
        };
        // (the blocking task, the id it records) and (the blocked one, ditto)
        let ((blocker, blocked_id), (blocked, blocker_id)) = if blocks {
            ((k, other.clone()), (j, this.clone()))
        } else {
            ((j, this.clone()), (k, other.clone()))
        };
        edit_fields(plan, blocker, |task| task.blocks.push(blocked_id));
        edit_fields(plan, blocked, |task| task.blocked_by.push(blocker_id));
    }
    new
}

/// Removes task `k` and every reference to it; the others remember the
/// highest id given out.
fn delete(plan: &mut Vec<PlanItem>, k: usize) {
    let last_id = next_id(plan) - 1;
    let id = plan.remove(k).id;
    for item in plan.iter_mut() {
        let mut task = fields(item);
        task.blocks.retain(|b| *b != id);
        task.blocked_by.retain(|b| *b != id);
        task.last_id = last_id;
        item.task = Some(Box::new(task));
    }
}

fn update(plan: &mut Vec<PlanItem>, input: &Value) -> PlanOutcome {
    let update = match check_update(input) {
        Ok(update) => update,
        Err(issues) => return PlanOutcome::rejected(issues.to_string()),
    };
    let Some(k) = find(plan, &update.id) else {
        return PlanOutcome::accepted(NOT_FOUND);
    };
    let id = update.id.clone();
    if update.status == Some(None) {
        delete(plan, k);
        return PlanOutcome::accepted(format!("Updated task #{id} deleted"));
    }
    let mut changed: Vec<&str> = Vec::new();
    let Some(item) = plan.get_mut(k) else {
        return PlanOutcome::accepted(NOT_FOUND);
    };
    let mut task = fields(item);
    if let Some(subject) = update.subject.filter(|s| *s != item.text) {
        item.text = subject;
        changed.push("subject");
    }
    if let Some(description) = update.description.filter(|d| *d != task.description) {
        task.description = description;
        changed.push("description");
    }
    if let Some(form) = update
        .active_form
        .filter(|f| item.active_form.as_deref() != Some(f.as_str()))
    {
        item.active_form = Some(form);
        changed.push("activeForm");
    }
    if let Some(owner) = update.owner.filter(|o| *o != task.owner) {
        task.owner = owner;
        changed.push("owner");
    }
    if update.metadata {
        changed.push("metadata");
    }
    if let Some(Some(status)) = update.status.filter(|s| *s != Some(item.status)) {
        item.status = status;
        changed.push("status");
    }
    item.task = Some(Box::new(task));
    // A list counts as changed when it names an id new to this task, even
    // one of no task (the binary says so, then links nothing).
    if add_links(plan, k, &update.add_blocks, true) {
        changed.push("blocks");
    }
    if add_links(plan, k, &update.add_blocked_by, false) {
        changed.push("blockedBy");
    }
    PlanOutcome::accepted(format!("Updated task #{id} {}", changed.join(", ")))
}

/// `TaskList`'s line for one task: open blockers only (not completed).
fn list_line(plan: &[PlanItem], item: &PlanItem) -> String {
    let task = fields(item);
    let mut line = format!("#{} [{}] {}", item.id, item.status.three_words(), item.text);
    if !task.owner.is_empty() {
        line.push_str(&format!(" ({})", task.owner));
    }
    let open: Vec<String> = task
        .blocked_by
        .iter()
        .filter(|b| task_of(plan, b).is_some_and(|t| t.status != PlanStatus::Completed))
        .cloned()
        .collect();
    if !open.is_empty() {
        line.push_str(&format!(" [blocked by {}]", hashes(&open)));
    }
    line
}

fn list(plan: &[PlanItem]) -> String {
    if plan.is_empty() {
        return NO_TASKS.to_string();
    }
    plan.iter()
        .map(|item| list_line(plan, item))
        .collect::<Vec<_>>()
        .join("\n")
}

fn get(plan: &[PlanItem], input: &Value) -> PlanOutcome {
    let input = match object(GET, input) {
        Ok(input) => input,
        Err(issues) => return PlanOutcome::rejected(issues.to_string()),
    };
    let mut issues = Issues::new(GET);
    issues.unexpected(input, &["taskId"]);
    let id = task_id(&mut issues, input);
    if let Some(refused) = issues.error() {
        return PlanOutcome::rejected(refused.to_string());
    }
    let Some(item) = id.and_then(|id| task_of(plan, &id)) else {
        return PlanOutcome::accepted(NOT_FOUND);
    };
    let task = fields(item);
    let mut out = format!(
        "Task #{}: {}\nStatus: {}\nDescription: {}",
        item.id,
        item.text,
        item.status.three_words(),
        task.description
    );
    if !task.blocked_by.is_empty() {
        out.push_str(&format!("\nBlocked by: {}", hashes(&task.blocked_by)));
    }
    if !task.blocks.is_empty() {
        out.push_str(&format!("\nBlocks: {}", hashes(&task.blocks)));
    }
    PlanOutcome::accepted(out)
}

/// `ToolSearch`'s answer. The real binary answers with tool references the
/// API expands; the built-in loop has no such blocks, so it answers with
/// the `<functions>` block the tool's description promises.
fn tool_search(input: &Value) -> String {
    let input = match object(TOOL_SEARCH, input) {
        Ok(input) => input,
        Err(issues) => return issues.to_string(),
    };
    let mut issues = Issues::new(TOOL_SEARCH);
    issues.unexpected(input, &["query", "max_results"]);
    let query = match input.get("query") {
        None => {
            issues.missing("query");
            None
        }
        Some(_) => issues.string(input, "query"),
    };
    let max = match input.get("max_results") {
        None => 5,
        Some(Value::Number(n)) => n.as_f64().unwrap_or(5.0).max(0.0) as usize,
        Some(other) => {
            issues.mistyped("max_results", "number", other);
            0
        }
    };
    if let Some(refused) = issues.error() {
        return refused.to_string();
    }
    let query = query.unwrap_or_default();
    let names: Vec<&str> = match query.strip_prefix("select:") {
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|name| DEFERRED.contains(name))
            .collect(),
        None => {
            let terms: Vec<String> = query
                .split_whitespace()
                .map(|t| t.trim_start_matches('+').to_lowercase())
                .collect();
            DEFERRED
                .into_iter()
                .filter(|name| terms.iter().any(|t| name.to_lowercase().contains(t)))
                .take(max)
                .collect()
        }
    };
    if names.is_empty() {
        return NO_MATCH.to_string();
    }
    let lines: Vec<String> = names
        .iter()
        .filter_map(|name| SCHEMAS.iter().find(|s| s.name == *name))
        .map(|s| {
            let function =
                json!({"description": s.description, "name": s.name, "parameters": s.input_schema});
            format!("<function>{function}</function>")
        })
        .collect();
    format!("<functions>\n{}\n</functions>", lines.join("\n"))
}

/// Reads one `TaskList` line back (subject without the owner and blocker
/// suffixes it may carry: a subject ending in ` (…)` keeps it).
fn parse_list_line(line: &str) -> Option<PlanItem> {
    let rest = line.strip_prefix('#')?;
    let (id, rest) = rest.split_once(" [")?;
    let (status, subject) = rest.split_once("] ")?;
    let status = parse_status(&Value::from(status))??;
    let subject = match subject.rfind(" [blocked by #") {
        Some(at) if subject.ends_with(']') => &subject[..at],
        _ => subject,
    };
    Some(PlanItem::new(id, subject, status))
}

fn item_create(item: &PlanItem) -> PlanCall {
    let form = item
        .active_form
        .clone()
        .filter(|f| !f.is_empty())
        .unwrap_or_else(|| active_form_for(&item.text));
    PlanCall {
        tool: CREATE.into(),
        input: json!({"subject": item.text, "description": item.text, "activeForm": form}),
    }
}

impl PlanDialect for ClaudeCodeTasks {
    fn name(&self) -> &'static str {
        "claude-code-tasks"
    }

    /// TaskCreate, TaskGet, TaskList, TaskUpdate, then ToolSearch (Claude
    /// Code's order).
    fn tools(&self) -> Vec<ToolSchema> {
        SCHEMAS.clone()
    }

    fn is_planning_tool(&self, tool: &str) -> bool {
        matches!(tool, CREATE | UPDATE | LIST | GET)
    }

    fn reads_plan_only(&self, tool: &str) -> bool {
        matches!(tool, LIST | GET)
    }

    fn load_tools(&self, tool: &str, input: &Value) -> Option<String> {
        (tool == TOOL_SEARCH).then(|| tool_search(input))
    }

    /// Reads (`TaskList`, `TaskGet`) and calls naming an unknown task are
    /// accepted calls that change nothing: the binary answers them as
    /// plain results, not errors.
    fn apply(&self, plan: &mut Vec<PlanItem>, tool: &str, input: &Value) -> PlanOutcome {
        match tool {
            CREATE => create(plan, input),
            UPDATE => update(plan, input),
            GET => get(plan, input),
            LIST => match object(LIST, input) {
                Ok(fields) if fields.is_empty() => PlanOutcome::accepted(list(plan)),
                Ok(fields) => {
                    let mut issues = Issues::new(LIST);
                    issues.unexpected(fields, &[]);
                    PlanOutcome::rejected(issues.to_string())
                }
                Err(issues) => PlanOutcome::rejected(issues.to_string()),
            },
            _ => PlanOutcome::rejected(format!(
                "{PREFIX}Error: No such tool available: {tool}</tool_use_error>"
            )),
        }
    }

    /// `TaskList`'s answer.
    fn render(&self, plan: &[PlanItem]) -> String {
        list(plan)
    }

    fn plan_from_result(&self, result: &str) -> Option<Vec<PlanItem>> {
        if result == NO_TASKS {
            return Some(Vec::new());
        }
        result.split('\n').map(parse_list_line).collect()
    }

    fn flags_errors(&self) -> bool {
        true
    }

    fn error_prefix(&self) -> &'static str {
        PREFIX
    }

    /// ToolSearch when there is no task yet, a TaskCreate per new item, a
    /// TaskUpdate per changed status, then TaskList to read the plan back.
    /// Items are matched to tasks by subject (the model's ids are not the
    /// tasks'); tasks no wanted item matches are deleted.
    fn write_update(&self, before: &[PlanItem], wanted: &[PlanItem]) -> Vec<PlanCall> {
        let mut calls = Vec::new();
        if before.is_empty() {
            calls.push(PlanCall {
                tool: TOOL_SEARCH.into(),
                input: json!({"query": SELECT_ALL}),
            });
        }
        let (matches, dropped) = match_by_text(before, wanted);
        let mut next = next_id(before);
        let mut updates = Vec::new();
        for (item, found) in wanted.iter().zip(matches) {
            let (id, status) = match found {
                Some(old) => (old.id.clone(), old.status),
                None => {
                    calls.push(item_create(item));
                    next += 1;
                    ((next - 1).to_string(), PlanStatus::Pending)
                }
            };
            if status != item.status {
                updates.push(PlanCall {
                    tool: UPDATE.into(),
                    input: json!({"taskId": id, "status": item.status.three_words()}),
                });
            }
        }
        calls.extend(updates);
        // Tasks the wanted plan dropped (a stale plan rewritten) go.
        for old in dropped {
            calls.push(PlanCall {
                tool: UPDATE.into(),
                input: json!({"taskId": old.id, "status": "deleted"}),
            });
        }
        calls.push(PlanCall {
            tool: LIST.into(),
            input: json!({}),
        });
        calls
    }

    /// Only a status outside the union is rejected: an empty subject, any
    /// number of tasks and of tasks in progress are all accepted.
    fn write_invalid(&self, wanted: &[PlanItem], kind: InvalidUpdate) -> Option<PlanCall> {
        if kind != InvalidUpdate::UnknownStatus {
            return None;
        }
        let id = wanted
            .first()
            .map_or("1".to_string(), |item| item.id.clone());
        Some(PlanCall {
            tool: UPDATE.into(),
            input: json!({"taskId": id, "status": "done"}),
        })
    }
}
