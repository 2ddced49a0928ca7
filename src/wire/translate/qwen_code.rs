//! The built-in tools in Qwen Code's own (0.24.4): `read_file`,
//! `write_file`, `edit`, `run_shell_command`.
//!
//! - `read_file {path, limit?}` → `read_file {file_path, limit?}` (the
//!   same name, another shape: translated even though the name is offered);
//! - `write_file {path, content}` → `write_file {file_path, content}`,
//!   preceded by a `read_file` of the file in the same turn when it exists
//!   (Qwen refuses to overwrite a file this session has not read);
//! - `edit_file {path, old_text, new_text}` → a `read_file` then `edit
//!   {file_path, old_string, new_string}` in the same turn (Qwen refuses to
//!   edit a file not read first);
//! - `bash {command}` → `run_shell_command {command}`;
//! - s03's `todo {items: [{id, text, status}]}` → `todo_write {todos:
//!   [{id, content: text, status}]}` (ids by position when missing).
//!
//! Paths are absolute (Qwen's file tools refuse relative ones). Qwen runs
//! a response's calls in order, so the added `read_file` is done before
//! the call it serves. Over Chat Completions no result is flagged: a
//! failure is known by its text (`Failed to edit`, `File not found`, `...
//! has not been read in this session`, `File path must be absolute`).

use serde_json::{Map, Value, json};

use super::{AgentCall, Builtin, BuiltinCall, Context, Family};

/// Qwen Code.
pub struct QwenCode;

/// How the failures of Qwen's file tools begin or what they say.
const FAILURE_OPENINGS: [&str; 4] = [
    "Failed to edit",
    "File not found",
    "File path must be absolute",
    "Error",
];
const NOT_READ: &str = "has not been read in this session";

fn read(context: &Context<'_>, path: &str) -> AgentCall {
    AgentCall::new("read_file", json!({"file_path": context.absolute(path)}))
}

impl Family for QwenCode {
    fn offered_by(&self, context: &Context<'_>) -> bool {
        context.offers("edit") && context.offers("run_shell_command")
    }

    fn shares_name(&self, builtin: Builtin) -> bool {
        matches!(builtin, Builtin::ReadFile | Builtin::WriteFile)
    }

    fn translate(&self, builtin: &BuiltinCall, context: &Context<'_>) -> Option<Vec<AgentCall>> {
        let calls = match builtin {
            BuiltinCall::ReadFile { path, limit } if context.offers("read_file") => {
                let mut input = Map::new();
                input.insert("file_path".into(), Value::from(context.absolute(path)));
                if let Some(limit) = limit.filter(|n| *n > 0) {
                    input.insert("limit".into(), Value::from(limit));
                }
                vec![AgentCall::new("read_file", Value::Object(input))]
            }
            BuiltinCall::WriteFile { path, content } if context.offers("write_file") => {
                let mut calls = Vec::new();
                if context.exists(path) && context.offers("read_file") {
                    calls.push(read(context, path));
                }
                calls.push(AgentCall::new(
                    "write_file",
                    json!({"file_path": context.absolute(path), "content": content}),
                ));
                calls
            }
            BuiltinCall::EditFile { path, old, new } if context.offers("edit") => {
                let mut calls = Vec::new();
                if context.offers("read_file") {
                    calls.push(read(context, path));
                }
                calls.push(AgentCall::new(
                    "edit",
                    json!({"file_path": context.absolute(path), "old_string": old, "new_string": new}),
                ));
                calls
            }
            BuiltinCall::Bash { command } if context.offers("run_shell_command") => {
                vec![AgentCall::new(
                    "run_shell_command",
                    json!({"command": command}),
                )]
            }
            BuiltinCall::Todo { items } if context.offers("todo_write") => vec![AgentCall::new(
                "todo_write",
                json!({"todos": items
                    .iter()
                    .enumerate()
                    .map(|(k, i)| json!({"id": (k + 1).to_string(), "content": i.text, "status": i.status}))
                    .collect::<Vec<_>>()}),
            )],
            BuiltinCall::Malformed { builtin, input } => {
                let name = match builtin {
                    Builtin::ReadFile => "read_file",
                    Builtin::WriteFile => "write_file",
                    Builtin::EditFile => "edit",
                    Builtin::Bash => "run_shell_command",
                    Builtin::Todo => "todo_write",
                };
                if !context.offers(name) {
                    return None;
                }
                vec![AgentCall::new(name, input.clone())]
            }
            _ => return None,
        };
        Some(calls)
    }

    fn failed(&self, _builtin: Builtin, content: &str, flagged: bool) -> bool {
        flagged
            || FAILURE_OPENINGS.iter().any(|o| content.starts_with(o))
            || (content.starts_with("File ") && content.contains(NOT_READ))
    }
}
