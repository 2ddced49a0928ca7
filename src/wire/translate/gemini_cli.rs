//! The built-in tools in the Gemini CLI's own (0.61.0): `read_file`,
//! `write_file`, `replace`, `run_shell_command`.
//!
//! - `read_file {path, limit?}` → `read_file {file_path, end_line?}` (the
//!   same name, another shape: translated even though the name is offered);
//! - `write_file {path, content}` → `write_file {file_path, content}`;
//! - `edit_file {path, old_text, new_text}` → `replace {file_path,
//!   instruction, old_string, new_string}` (`instruction` is required: a
//!   fixed sentence);
//! - `bash {command}` → `run_shell_command {command}`;
//! - s03's `todo {items: [{id, text, status}]}` → `write_todos {todos:
//!   [{description: text, status}]}`.
//!
//! Paths stay relative: the CLI resolves them against its workspace.
//! A failure comes back as a `functionResponse` with an `error`, which the
//! wire flags.

use serde_json::{Map, Value, json};

use super::{AgentCall, Builtin, BuiltinCall, Context, Family};

/// The Gemini CLI.
pub struct GeminiCli;

/// What `replace` is told to do (it requires an instruction).
pub const INSTRUCTION: &str = "Replace old_string with new_string exactly as given.";

impl Family for GeminiCli {
    fn offered_by(&self, context: &Context<'_>) -> bool {
        context.offers("replace") && context.offers("run_shell_command")
    }

    fn shares_name(&self, builtin: Builtin) -> bool {
        matches!(builtin, Builtin::ReadFile | Builtin::WriteFile)
    }

    fn translate(&self, builtin: &BuiltinCall, context: &Context<'_>) -> Option<Vec<AgentCall>> {
        let sent = match builtin {
            BuiltinCall::ReadFile { path, limit } if context.offers("read_file") => {
                let mut input = Map::new();
                input.insert("file_path".into(), Value::from(path.as_str()));
                if let Some(limit) = limit.filter(|n| *n > 0) {
                    input.insert("end_line".into(), Value::from(limit));
                }
                AgentCall::new("read_file", Value::Object(input))
            }
            BuiltinCall::WriteFile { path, content } if context.offers("write_file") => {
                AgentCall::new("write_file", json!({"file_path": path, "content": content}))
            }
            BuiltinCall::EditFile { path, old, new } if context.offers("replace") => {
                AgentCall::new(
                    "replace",
                    json!({"file_path": path, "instruction": INSTRUCTION, "old_string": old, "new_string": new}),
                )
            }
            BuiltinCall::Bash { command } if context.offers("run_shell_command") => {
                AgentCall::new("run_shell_command", json!({"command": command}))
            }
            BuiltinCall::Todo { items } if context.offers("write_todos") => AgentCall::new(
                "write_todos",
                json!({"todos": items
                    .iter()
                    .map(|i| json!({"description": i.text, "status": i.status}))
                    .collect::<Vec<_>>()}),
            ),
            BuiltinCall::Malformed { builtin, input } => {
                let name = match builtin {
                    Builtin::ReadFile => "read_file",
                    Builtin::WriteFile => "write_file",
                    Builtin::EditFile => "replace",
                    Builtin::Bash => "run_shell_command",
                    Builtin::Todo => "write_todos",
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

    fn failed(&self, _builtin: Builtin, _content: &str, flagged: bool) -> bool {
        flagged
    }
}
