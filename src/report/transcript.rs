//! `replay --format text`: a run as a person reads it. Each turn shows the
//! assistant's words, each tool call with its (shortened) result, the plan
//! panel whenever the plan changes, and reminders where they were injected;
//! then the metrics (`── metrics ──`) and whether each step's check held
//! on the workspace at the end (`── step checks ──`: `[x]` held, `[ ]` did
//! not, ` - ` not scored).
//!
//! What a planning call looks like and how its plan reads back is the
//! run's dialect's business: the panel shows an accepted planning call's
//! result when the dialect echoes the plan, else the dialect's render of
//! the plan the call set.

use std::fmt::Write;

use super::terminal::{escape, escape_multiline, strip_sgr};
use crate::llm::{Content, ContentBlock, Message, Role};
use crate::plan::dialect::{PlanDialect, PlanItem};
use crate::plan::todo::python_str;
use crate::results::RunRecord;
use crate::scenario::Scenario;

/// Result lines shown per tool call before eliding.
const RESULT_LINES: usize = 8;

pub fn render(scenario: &Scenario, record: &RunRecord) -> String {
    let dialect = record.dialect.get();
    let offered = record.planning_offered;
    let mut out = String::new();
    let mut turn = 0;
    let mut typed = 0;
    let mut calls: Vec<(String, String, crate::llm::ToolInput)> = Vec::new();
    let mut plan: Vec<PlanItem> = Vec::new();
    for message in &record.messages {
        match (&message.role, typed_text(message)) {
            (Role::User, Some(text)) => {
                typed += 1;
                // Each later user message of a session is marked where it
                // begins.
                let label = if typed == 1 {
                    "── task ──".to_string()
                } else {
                    format!("\n══ user message {typed} (after turn {turn}) ══")
                };
                let _ = writeln!(out, "{label}\n{}", escape_multiline(text.trim_end()));
            }
            (Role::Assistant, _) => {
                turn += 1;
                let _ = writeln!(out, "\n── turn {turn} ──");
                calls.clear();
                for block in message.content_blocks() {
                    match block {
                        ContentBlock::Text { text } => {
                            let _ = writeln!(out, "assistant: {}", escape_multiline(text));
                        }
                        ContentBlock::ToolUse { id, name, input } => {
                            calls.push((id.clone(), name.clone(), input.clone()));
                            let call = format!("{name} {}", describe_call(dialect, name, input));
                            let _ = writeln!(out, "  → {}", escape(&call));
                        }
                        ContentBlock::ToolResult { .. } => {}
                    }
                }
            }
            (Role::User, None) => {
                let results = Results {
                    calls: &calls,
                    dialect,
                    offered,
                    reminded: record.result.reminders_at.contains(&turn),
                };
                render_results(&mut out, message.content_blocks(), &results, &mut plan)
            }
        }
    }
    render_summary(&mut out, scenario, record);
    crate::report::escape::drop_bidi_owned(out)
}

/// The text of a message someone typed: a user message of text only (a
/// real agent sends its task as text blocks, its context among them), not
/// one that carries tool results. `None` for any other message.
fn typed_text(message: &Message) -> Option<std::borrow::Cow<'_, str>> {
    match &message.content {
        Content::Text(text) => Some(std::borrow::Cow::Borrowed(text.as_str())),
        Content::Blocks(blocks) => {
            let mut texts = Vec::new();
            for block in blocks {
                match block {
                    ContentBlock::Text { text } => texts.push(text.as_str()),
                    _ => return None,
                }
            }
            (!texts.is_empty()).then(|| std::borrow::Cow::Owned(texts.join("\n")))
        }
    }
}

/// What the results of one turn's calls are read with.
struct Results<'a> {
    calls: &'a [(String, String, crate::llm::ToolInput)],
    dialect: &'a dyn PlanDialect,
    offered: bool,
    /// The run counted a reminder after this turn: its text blocks are
    /// the reminder (⚑). Text an agent adds otherwise is its own context.
    reminded: bool,
}

fn render_results(
    out: &mut String,
    blocks: &[ContentBlock],
    results: &Results<'_>,
    plan: &mut Vec<PlanItem>,
) {
    let Results {
        calls,
        dialect,
        offered,
        reminded,
    } = *results;
    for block in blocks {
        match block {
            ContentBlock::Text { text } => {
                let mark = if reminded { "⚑" } else { "+" };
                let _ = writeln!(out, "  {mark} {}", escape_multiline(text));
            }
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                ..
            } => {
                let call = calls.iter().find(|(id, _, _)| id == tool_use_id);
                let raw_name = call.map_or("?", |(_, n, _)| n.as_str());
                let name = escape(raw_name);
                let planning = offered && call.is_some() && dialect.is_planning_tool(raw_name);
                let shown = planning && !dialect.is_error(content);
                let echoed = shown.then(|| dialect.plan_from_result(content)).flatten();
                match (echoed, call) {
                    (Some(items), _) => {
                        *plan = items;
                        plan_panel(out, content);
                    }
                    (None, Some((_, _, input))) if shown => {
                        // A dialect that does not echo the plan: its result,
                        // then the plan the call set.
                        let _ = writeln!(out, "  ← {name}: {}", shorten(content));
                        if let Some(items) = dialect.plan_from_call(plan, raw_name, input) {
                            *plan = items;
                            plan_panel(out, &dialect.render(plan));
                        }
                    }
                    _ => {
                        let _ = writeln!(out, "  ← {name}: {}", shorten(content));
                    }
                }
            }
            ContentBlock::ToolUse { .. } => {}
        }
    }
}

/// The fields a planning item's text goes by, across dialects.
const TEXT_FIELDS: [&str; 4] = ["text", "content", "step", "description"];

/// The fields a planning call's list goes by, across dialects.
const LIST_FIELDS: [&str; 3] = ["items", "todos", "plan"];

/// A call's input; a planning call's list (`items`, `todos` or `plan`) is
/// summarised as `status "text"` per item (an accepted list shows up whole
/// in the panel that follows).
fn describe_call(dialect: &dyn PlanDialect, name: &str, input: &serde_json::Value) -> String {
    const SHOWN: usize = 4;
    let items = LIST_FIELDS
        .iter()
        .find_map(|key| input.get(key).and_then(|v| v.as_array()));
    match items {
        Some(items) if dialect.is_planning_tool(name) => {
            let field = |item: &serde_json::Value, key: &str| item.get(key).map(python_str);
            let text = |item: &serde_json::Value| {
                TEXT_FIELDS
                    .iter()
                    .find_map(|k| field(item, k))
                    .unwrap_or_default()
            };
            let mut parts: Vec<String> = items
                .iter()
                .take(SHOWN)
                .map(|item| match item.as_object() {
                    Some(_) => format!(
                        "{} {:?}",
                        field(item, "status").unwrap_or_else(|| "(no status)".into()),
                        text(item)
                    ),
                    None => item.to_string(),
                })
                .collect();
            if items.len() > SHOWN {
                parts.push(format!("… {} items in all", items.len()));
            }
            format!("[{}]", parts.join(", "))
        }
        _ => input.to_string(),
    }
}

/// The plan in a box. A dialect's own colours are dropped (they would
/// misalign the box), and anything else unsafe is escaped.
fn plan_panel(out: &mut String, render: &str) {
    let render = escape_multiline(&strip_sgr(render)).into_owned();
    let render = render.as_str();
    let width = render
        .lines()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .max(10);
    let _ = writeln!(out, "  ┌─ todo {}┐", "─".repeat(width + 2 - 7));
    for line in render.lines() {
        let pad = width - line.chars().count();
        let _ = writeln!(out, "  │ {line}{} │", " ".repeat(pad));
    }
    let _ = writeln!(out, "  └{}┘", "─".repeat(width + 2));
}

/// A tool result, escaped, cut after [`RESULT_LINES`] lines.
fn shorten(content: &str) -> String {
    let content = escape_multiline(content);
    let lines: Vec<&str> = content.lines().collect();
    if lines.len() <= RESULT_LINES {
        return content.replace('\n', "\n    ");
    }
    format!(
        "{}\n    … ({} more lines)",
        lines.get(..RESULT_LINES).unwrap_or_default().join("\n    "),
        lines.len() - RESULT_LINES
    )
}

fn render_summary(out: &mut String, scenario: &Scenario, record: &RunRecord) {
    let m = &record.result;
    let _ = writeln!(
        out,
        "\n── metrics ──\nstop: {}  turns: {}  steps: {}/{}  reminders at: {:?}  todo calls: {}  rejected: {}  protocol violations: {}{}",
        m.stop,
        m.turns,
        m.steps_completed,
        m.steps_total,
        m.reminders_at,
        m.todo_calls,
        m.rejected_todo_updates,
        m.protocol_violations,
        if m.unknown_tool_calls > 0 {
            format!("  unknown tool calls: {}", m.unknown_tool_calls)
        } else {
            String::new()
        }
    );
    if !scenario.steps.is_empty() {
        let _ = writeln!(out, "── step checks ──");
    }
    for (step, result) in scenario.steps.iter().zip(&record.step_results) {
        let mark = match result {
            Some(true) => "[x]",
            Some(false) => "[ ]",
            None => " - ",
        };
        let _ = writeln!(out, "{mark} #{}: {}", escape(&step.id), escape(&step.text));
    }
    for v in &record.violations {
        let _ = writeln!(out, "protocol: {}", escape(&v.to_string()));
    }
}

/// The messages as `replay --format json` prints them, with the metrics
/// and each protocol violation with its turn:
/// `{"messages": [...], "metrics": {...}, "violations": [{"turn": 4, "rule": "..."}]}`.
pub fn to_json(record: &RunRecord) -> Result<String, serde_json::Error> {
    #[derive(serde::Serialize)]
    struct Violation<'a> {
        turn: usize,
        rule: &'a str,
    }
    #[derive(serde::Serialize)]
    struct Replay<'a> {
        messages: &'a [Message],
        metrics: &'a crate::results::RunResult,
        violations: Vec<Violation<'a>>,
    }
    let violations = record
        .violations
        .iter()
        .map(|v| Violation {
            turn: v.turn,
            rule: &v.rule,
        })
        .collect();
    super::json::pretty(&Replay {
        messages: &record.messages,
        metrics: &record.result,
        violations,
    })
}
