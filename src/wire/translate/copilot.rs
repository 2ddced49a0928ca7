//! The built-in tools in GitHub Copilot CLI's own: `view`, `create`,
//! `edit`, `bash` (1.0.102).
//!
//! - `read_file {path, limit?}` → `view {path, view_range?: [1, limit]}`;
//! - `write_file {path, content}` → `create {path, file_text}` for a new
//!   file whose folder exists; else (Copilot's `create` refuses a file that
//!   exists, and a missing parent folder) `bash` writing the exact bytes
//!   with `printf` (after `mkdir -p` of the folder);
//! - `edit_file {path, old_text, new_text}` → `edit {path, old_str,
//!   new_str}`;
//! - `bash {command}` → `bash {command, description}` (Copilot requires a
//!   description; a call that already has one goes as written).
//!
//! Paths are absolute (the workspace joined with the model's relative
//! path) when the workspace is known, as Copilot's tools ask for. The
//! planning tool (`sql`, the `copilot-sql` dialect) is Copilot's own: its
//! calls go as written.
//!
//! Failures, as the pinned binary words them (never flagged): `Path ...
//! does not exist. ...`, `Path ... already exists as a file. ...`, `No
//! match found: ...`, `Parent directory ... does not exist. ...`.

use serde_json::{Value, json};

use super::{AgentCall, Builtin, BuiltinCall, Context, Family};
use crate::wire::fields;

/// GitHub Copilot CLI.
pub struct Copilot;

/// What a translated `bash` call says it does (Copilot requires a
/// description of at most 100 characters).
const RUN_DESCRIPTION: &str = "Run a command";

fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

impl Copilot {
    fn path(context: &Context<'_>, path: &str) -> String {
        match context.workspace {
            Some(root) if !std::path::Path::new(path).is_absolute() => {
                root.join(path).to_string_lossy().into_owned()
            }
            _ => path.to_string(),
        }
    }

    /// Whether the folder `path` goes in exists (the workspace is).
    fn folder_exists(context: &Context<'_>, path: &str) -> bool {
        let absolute = Self::path(context, path);
        std::path::Path::new(&absolute)
            .parent()
            .is_some_and(std::path::Path::is_dir)
    }

    fn write(context: &Context<'_>, path: &str, content: &str) -> AgentCall {
        if !context.exists(path) && Self::folder_exists(context, path) {
            return AgentCall {
                name: "create".into(),
                input: json!({"path": Self::path(context, path), "file_text": content}),
            };
        }
        let absolute = Self::path(context, path);
        let folder = std::path::Path::new(&absolute)
            .parent()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|| ".".into());
        let command = format!(
            "mkdir -p {} && printf '%s' {} > {}",
            quoted(&folder),
            quoted(content),
            quoted(&absolute)
        );
        AgentCall {
            name: "bash".into(),
            input: json!({"command": command, "description": format!("Write {path}")}),
        }
    }
}

impl Family for Copilot {
    fn offered_by(&self, context: &Context<'_>) -> bool {
        context.offers("view") && context.offers("create")
    }

    fn keeps(&self, name: &str, input: &Value, context: &Context<'_>) -> bool {
        // Its `bash` needs a description the built-in one has not.
        context.offers(name) && (name != "bash" || input.get("description").is_some())
    }

    fn translate(&self, call: &BuiltinCall, context: &Context<'_>) -> Option<Vec<AgentCall>> {
        let call = match call {
            BuiltinCall::ReadFile { path, limit } if context.offers("view") => {
                let mut input = json!({"path": Self::path(context, path)});
                if let Some(limit) = limit {
                    fields::set(&mut input, "view_range", json!([1, limit]));
                }
                AgentCall {
                    name: "view".into(),
                    input,
                }
            }
            BuiltinCall::WriteFile { path, content } if context.offers("create") => {
                Self::write(context, path, content)
            }
            BuiltinCall::EditFile { path, old, new } if context.offers("edit") => AgentCall {
                name: "edit".into(),
                input: json!({"path": Self::path(context, path), "old_str": old, "new_str": new}),
            },
            BuiltinCall::Bash { command } if context.offers("bash") => AgentCall {
                name: "bash".into(),
                input: json!({"command": command, "description": RUN_DESCRIPTION}),
            },
            BuiltinCall::Malformed { builtin, input } => {
                let name = match builtin {
                    Builtin::ReadFile => "view",
                    Builtin::WriteFile => "create",
                    Builtin::EditFile => "edit",
                    Builtin::Bash => "bash",
                    Builtin::Todo => return None,
                };
                if !context.offers(name) {
                    return None;
                }
                AgentCall {
                    name: name.into(),
                    input: input.clone(),
                }
            }
            _ => return None,
        };
        Some(vec![call])
    }

    fn failed(&self, builtin: Builtin, content: &str, flagged: bool) -> bool {
        let file_error = content.starts_with("No match found: ")
            || content.starts_with("Parent directory ")
            || content.starts_with("Invalid input: ")
            || (content.starts_with("Path ")
                && (content.contains(" does not exist.")
                    || content.contains(" already exists as a file.")));
        flagged || (builtin != Builtin::Bash && file_error)
    }
}
