//! The built-in tools in OpenCode's own (1.18.33): `read`, `write`,
//! `edit`, `bash`.
//!
//! - `read_file {path, limit?}` → `read {filePath, limit?}`;
//! - `write_file {path, content}` → `write {filePath, content}`;
//! - `edit_file {path, old_text, new_text}` → `edit {filePath, oldString,
//!   newString}` (OpenCode needs no read first);
//! - `bash {command}` → `bash {command}` (the same tool: it goes out
//!   unchanged);
//! - s03's `todo {items: [{id, text, status}]}` → `todowrite {todos:
//!   [{content: text, status, priority: "medium"}]}`.
//!
//! Paths are absolute, as OpenCode's tools ask for. Over Chat Completions
//! no result is flagged: a failure is known by its text (`Could not find
//! oldString`, `File not found`, `Error`). `bash` shows no exit status.

use serde_json::{Map, Value, json};

use super::{AgentCall, Builtin, BuiltinCall, Context, Family};

/// OpenCode.
pub struct OpenCode;

const FAILURE_OPENINGS: [&str; 5] = [
    "Could not find oldString",
    "File not found",
    "oldString and newString",
    "Found multiple matches",
    "Error",
];

impl Family for OpenCode {
    fn offered_by(&self, context: &Context<'_>) -> bool {
        context.offers("read") && context.offers("edit") && context.offers("write")
    }

    fn translate(&self, builtin: &BuiltinCall, context: &Context<'_>) -> Option<Vec<AgentCall>> {
        let sent = match builtin {
            BuiltinCall::ReadFile { path, limit } if context.offers("read") => {
                let mut input = Map::new();
                input.insert("filePath".into(), Value::from(context.absolute(path)));
                if let Some(limit) = limit.filter(|n| *n > 0) {
                    input.insert("limit".into(), Value::from(limit));
                }
                AgentCall::new("read", Value::Object(input))
            }
            BuiltinCall::WriteFile { path, content } if context.offers("write") => AgentCall::new(
                "write",
                json!({"filePath": context.absolute(path), "content": content}),
            ),
            BuiltinCall::EditFile { path, old, new } if context.offers("edit") => AgentCall::new(
                "edit",
                json!({"filePath": context.absolute(path), "oldString": old, "newString": new}),
            ),
            BuiltinCall::Todo { items } if context.offers("todowrite") => AgentCall::new(
                "todowrite",
                json!({"todos": items
                    .iter()
                    .map(|i| json!({"content": i.text, "status": i.status, "priority": "medium"}))
                    .collect::<Vec<_>>()}),
            ),
            BuiltinCall::Malformed { builtin, input } => {
                let name = match builtin {
                    Builtin::ReadFile => "read",
                    Builtin::WriteFile => "write",
                    Builtin::EditFile => "edit",
                    Builtin::Bash => "bash",
                    Builtin::Todo => "todowrite",
                };
                if !context.offers(name) {
                    return None;
                }
                AgentCall::new(name, input.clone())
            }
            _ => return None,
        };
        Some(vec![sent])
    }

    fn failed(&self, _builtin: Builtin, content: &str, flagged: bool) -> bool {
        flagged || FAILURE_OPENINGS.iter().any(|o| content.starts_with(o))
    }
}
