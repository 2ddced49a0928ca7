//! The built-in tools in Claude Code's own: `Read`, `Write`, `Edit`,
//! `Bash` (2.1.330).
//!
//! - `read_file {path, limit?}` → `Read {file_path, limit?}`;
//! - `write_file {path, content}` → `Write {file_path, content}`, preceded
//!   by a `Read` of the file in the same turn when it exists (Claude Code
//!   refuses to overwrite a file the conversation has not read);
//! - `edit_file {path, old_text, new_text}` → a `Read` then `Edit
//!   {file_path, old_string, new_string}` in the same turn (Claude Code
//!   refuses to edit a file not read first, or changed since it was read);
//! - `bash {command}` → `Bash {command}`;
//! - s03's `todo {items: [{id, text, status}]}` → `TodoWrite {todos:
//!   [{content: text, status, activeForm: text}]}` (Claude Code judges the
//!   items by its own rules).
//!
//! The `Read` goes in the same response as the call it serves, not as an
//! extra turn: Claude Code runs the calls of one response in order (the
//! read-only `Read` first), so the turn count stays the model's. Paths are
//! absolute (the workspace joined with the model's relative path) when the
//! workspace is known, as Claude Code's tools ask for; else they go as
//! written (Claude Code resolves them against its cwd).
//!
//! A failure comes back flagged `is_error: true` (a `<tool_use_error>`).

use serde_json::{Map, Value, json};

use super::{AgentCall, Builtin, BuiltinCall, Context, Family};

/// Claude Code.
pub struct ClaudeCode;

impl ClaudeCode {
    fn path(context: &Context<'_>, path: &str) -> String {
        match context.workspace {
            Some(root) if !std::path::Path::new(path).is_absolute() => {
                root.join(path).to_string_lossy().into_owned()
            }
            _ => path.to_string(),
        }
    }

    fn read(context: &Context<'_>, path: &str) -> AgentCall {
        AgentCall {
            name: "Read".into(),
            input: json!({"file_path": Self::path(context, path)}),
        }
    }
}

impl Family for ClaudeCode {
    fn offered_by(&self, context: &Context<'_>) -> bool {
        ["Read", "Write", "Edit", "Bash"]
            .iter()
            .any(|t| context.offers(t))
    }

    fn translate(&self, call: &BuiltinCall, context: &Context<'_>) -> Option<Vec<AgentCall>> {
        let calls = match call {
            BuiltinCall::ReadFile { path, limit } if context.offers("Read") => {
                let mut input = Map::new();
                input.insert("file_path".into(), Value::from(Self::path(context, path)));
                if let Some(limit) = limit {
                    input.insert("limit".into(), Value::from(*limit));
                }
                vec![AgentCall {
                    name: "Read".into(),
                    input: Value::Object(input),
                }]
            }
            BuiltinCall::WriteFile { path, content } if context.offers("Write") => {
                let exists = context.exists(path);
                let mut calls = Vec::new();
                if exists && context.offers("Read") {
                    calls.push(Self::read(context, path));
                }
                calls.push(AgentCall {
                    name: "Write".into(),
                    input: json!({"file_path": Self::path(context, path), "content": content}),
                });
                calls
            }
            BuiltinCall::EditFile { path, old, new } if context.offers("Edit") => {
                let mut calls = Vec::new();
                if context.offers("Read") {
                    calls.push(Self::read(context, path));
                }
                calls.push(AgentCall {
                    name: "Edit".into(),
                    input: json!({
                        "file_path": Self::path(context, path),
                        "old_string": old,
                        "new_string": new,
                    }),
                });
                calls
            }
            BuiltinCall::Bash { command } if context.offers("Bash") => vec![AgentCall {
                name: "Bash".into(),
                input: json!({"command": command}),
            }],
            BuiltinCall::Todo { items } if context.offers("TodoWrite") => vec![AgentCall {
                name: "TodoWrite".into(),
                input: json!({"todos": items
                    .iter()
                    .map(|i| json!({"content": i.text, "status": i.status, "activeForm": i.text}))
                    .collect::<Vec<_>>()}),
            }],
            BuiltinCall::Malformed { builtin, input } => {
                let name = match builtin {
                    Builtin::ReadFile => "Read",
                    Builtin::WriteFile => "Write",
                    Builtin::EditFile => "Edit",
                    Builtin::Bash => "Bash",
                    Builtin::Todo => "TodoWrite",
                };
                if !context.offers(name) {
                    return None;
                }
                vec![AgentCall {
                    name: name.into(),
                    input: input.clone(),
                }]
            }
            _ => return None,
        };
        Some(calls)
    }

    fn failed(&self, _builtin: Builtin, content: &str, flagged: bool) -> bool {
        flagged || content.starts_with("<tool_use_error>")
    }
}
