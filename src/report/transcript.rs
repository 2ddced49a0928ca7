//! `replay --format text`: a run as a person reads it. Each turn shows the
//! assistant's words, each tool call with its (shortened) result, the todo
//! panel whenever the plan changes, and reminders where they were injected;
//! then the metrics and each step's check.

use std::fmt::Write;

use crate::agent::todo::parse_render;
use crate::eval::RunRecord;
use crate::llm::{Content, ContentBlock, Message, Role};
use crate::scenario::Scenario;

/// Result lines shown per tool call before eliding.
const RESULT_LINES: usize = 8;

pub fn render(scenario: &Scenario, record: &RunRecord) -> String {
    let mut out = String::new();
    let mut turn = 0;
    let mut calls: Vec<(String, String)> = Vec::new();
    for message in &record.messages {
        match (&message.role, &message.content) {
            (Role::User, Content::Text(task)) => {
                let _ = writeln!(out, "── task ──\n{}", task.trim_end());
            }
            (Role::Assistant, _) => {
                turn += 1;
                let _ = writeln!(out, "\n── turn {turn} ──");
                calls.clear();
                for block in message.content_blocks() {
                    match block {
                        ContentBlock::Text { text } => {
                            let _ = writeln!(out, "assistant: {text}");
                        }
                        ContentBlock::ToolUse { id, name, input } => {
                            calls.push((id.clone(), name.clone()));
                            let _ = writeln!(out, "  → {name} {}", describe_call(name, input));
                        }
                        ContentBlock::ToolResult { .. } => {}
                    }
                }
            }
            (Role::User, Content::Blocks(blocks)) => render_results(&mut out, blocks, &calls),
        }
    }
    render_summary(&mut out, scenario, record);
    out
}

fn render_results(out: &mut String, blocks: &[ContentBlock], calls: &[(String, String)]) {
    for block in blocks {
        match block {
            ContentBlock::Text { text } => {
                let _ = writeln!(out, "  ⚑ {text}");
            }
            ContentBlock::ToolResult {
                tool_use_id,
                content,
            } => {
                let name = calls
                    .iter()
                    .find(|(id, _)| id == tool_use_id)
                    .map_or("?", |(_, n)| n.as_str());
                match parse_render(content).filter(|_| name == "todo") {
                    Some(_) => todo_panel(out, content),
                    None => {
                        let _ = writeln!(out, "  ← {name}: {}", shorten(content));
                    }
                }
            }
            ContentBlock::ToolUse { .. } => {}
        }
    }
}

/// A call's input; a todo list is summarised as `status "text"` per item
/// (an accepted list shows up whole in the panel that follows).
fn describe_call(name: &str, input: &serde_json::Value) -> String {
    const SHOWN: usize = 4;
    let items = input.get("items").and_then(|v| v.as_array());
    match items {
        Some(items) if name == "todo" => {
            let field = |item: &serde_json::Value, key: &str| {
                item.get(key).map(crate::agent::todo::python_str)
            };
            let mut parts: Vec<String> = items
                .iter()
                .take(SHOWN)
                .map(|item| match item.as_object() {
                    Some(_) => format!(
                        "{} {:?}",
                        field(item, "status").unwrap_or_else(|| "(no status)".into()),
                        field(item, "text").unwrap_or_default()
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

fn todo_panel(out: &mut String, render: &str) {
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

fn shorten(content: &str) -> String {
    let lines: Vec<&str> = content.lines().collect();
    if lines.len() <= RESULT_LINES {
        return content.replace('\n', "\n    ");
    }
    format!(
        "{}\n    … ({} more lines)",
        lines[..RESULT_LINES].join("\n    "),
        lines.len() - RESULT_LINES
    )
}

fn render_summary(out: &mut String, scenario: &Scenario, record: &RunRecord) {
    let m = &record.metrics;
    let _ = writeln!(
        out,
        "\n── result ──\nstop: {}  turns: {}  steps: {}/{}  reminders at: {:?}  todo calls: {}  rejected: {}  protocol violations: {}",
        m.stop,
        m.turns,
        m.steps_completed,
        m.steps_total,
        m.reminders_at,
        m.todo_calls,
        m.rejected_todo_updates,
        m.protocol_violations
    );
    for (step, result) in scenario.steps.iter().zip(&record.step_results) {
        let mark = match result {
            Some(true) => "[x]",
            Some(false) => "[ ]",
            None => " - ",
        };
        let _ = writeln!(out, "{mark} #{}: {}", step.id, step.text);
    }
    for v in &record.violations {
        let _ = writeln!(out, "protocol: {v}");
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
        metrics: &'a crate::eval::RunMetrics,
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
        metrics: &record.metrics,
        violations,
    })
}
