//! The built-in tools in the Codex CLI's own: `exec_command` and the
//! freeform `apply_patch` (0.169.0, model `gpt-5.5`).
//!
//! - `bash {command}` → `exec_command {cmd}`;
//! - `read_file {path, limit?}` → `exec_command {cmd: "cat -- 'path'"}`
//!   (`head -n LIMIT -- 'path'` with a limit);
//! - `write_file {path, content}` → an `*** Add File:` patch (Codex's
//!   `Add File` also replaces a file that exists; a patch line cannot say
//!   "no newline at the end", so the file always ends with one);
//! - `edit_file {path, old_text, new_text}` → an `*** Update File:` patch
//!   whose hunk replaces the whole lines holding the first occurrence of
//!   `old_text` (read from the workspace: a patch changes lines, an edit a
//!   substring); when the file or the text is not there, the hunk is the
//!   texts themselves and Codex answers that it found no such lines;
//! - s03's `todo {items: [{id, text, status}]}` → `update_plan {plan:
//!   [{step: text, status}]}` (Codex judges the items by its own rules).
//!
//! Patches are in Codex's freeform grammar (`*** Begin Patch` …
//! `*** End Patch`), sent as the input string of a custom tool call; paths
//! stay relative (Codex resolves them against its cwd, the workspace).
//!
//! Failures: `apply_patch verification failed: ...`, or a command whose
//! output says `Process exited with code N` with N other than 0.

use serde_json::json;

use super::{AgentCall, Builtin, BuiltinCall, Context, Family};

/// The Codex CLI.
pub struct Codex;

/// `text` quoted for `sh`.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn patch(body: &str) -> String {
    format!("*** Begin Patch\n{body}*** End Patch\n")
}

/// Lines of `text`, each prefixed with `mark`, each ending in a newline
/// (none for an empty text).
fn marked(text: &str, mark: char) -> String {
    if text.is_empty() {
        return String::new();
    }
    let text = text.strip_suffix('\n').unwrap_or(text);
    text.split('\n').map(|l| format!("{mark}{l}\n")).collect()
}

/// The `*** Add File:` patch that writes `content` to `path`.
pub fn add_file_patch(path: &str, content: &str) -> String {
    patch(&format!("*** Add File: {path}\n{}", marked(content, '+')))
}

/// The `*** Update File:` patch that replaces the first `old` with `new`
/// in `file` (the file's text, when known).
pub fn update_file_patch(path: &str, file: Option<&str>, old: &str, new: &str) -> String {
    let found = file
        .filter(|_| !old.is_empty())
        .and_then(|f| f.find(old).map(|at| (f, at)));
    let (before, after) = match found {
        Some((file, at)) => {
            // The whole lines holding the occurrence (with the newline
            // that ends the last), before and after.
            let start = file[..at].rfind('\n').map_or(0, |n| n + 1);
            let end_of_old = at + old.len();
            let end = if old.ends_with('\n') {
                end_of_old
            } else {
                file[end_of_old..]
                    .find('\n')
                    .map_or(file.len(), |n| end_of_old + n + 1)
            };
            let lines = &file[start..end];
            (lines.to_string(), lines.replacen(old, new, 1))
        }
        None => (old.to_string(), new.to_string()),
    };
    let mut body = format!("*** Update File: {path}\n@@\n");
    body.push_str(&marked(&before, '-'));
    body.push_str(&marked(&after, '+'));
    patch(&body)
}

impl Family for Codex {
    fn offered_by(&self, context: &Context<'_>) -> bool {
        context.offers("exec_command") || context.offers("apply_patch")
    }

    fn translate(&self, call: &BuiltinCall, context: &Context<'_>) -> Option<Vec<AgentCall>> {
        let exec = |cmd: String| AgentCall {
            name: "exec_command".into(),
            input: json!({"cmd": cmd}),
        };
        let apply = |patch: String| AgentCall {
            name: "apply_patch".into(),
            input: patch.into(),
        };
        let call = match call {
            BuiltinCall::Bash { command } if context.offers("exec_command") => {
                exec(command.clone())
            }
            BuiltinCall::ReadFile { path, limit } if context.offers("exec_command") => {
                exec(match limit {
                    Some(n) if *n > 0 => format!("head -n {n} -- {}", quoted(path)),
                    _ => format!("cat -- {}", quoted(path)),
                })
            }
            BuiltinCall::WriteFile { path, content } if context.offers("apply_patch") => {
                apply(add_file_patch(path, content))
            }
            BuiltinCall::EditFile { path, old, new } if context.offers("apply_patch") => apply(
                update_file_patch(path, context.file(path).as_deref(), old, new),
            ),
            BuiltinCall::Todo { items } if context.offers("update_plan") => AgentCall {
                name: "update_plan".into(),
                input: json!({"plan": items
                    .iter()
                    .map(|i| json!({"step": i.text, "status": i.status}))
                    .collect::<Vec<_>>()}),
            },
            BuiltinCall::Malformed { builtin, input } => {
                // Codex's apply_patch takes a patch text, not fields: a
                // malformed file call goes to exec_command, whose argument
                // parsing refuses it as Codex refuses any bad input.
                let name = match builtin {
                    Builtin::Todo => "update_plan",
                    _ => "exec_command",
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
        match builtin {
            Builtin::WriteFile | Builtin::EditFile => {
                flagged || content.starts_with("apply_patch verification failed")
            }
            Builtin::ReadFile | Builtin::Bash | Builtin::Todo => {
                flagged
                    || content.lines().any(|l| {
                        l.strip_prefix("Process exited with code ")
                            .is_some_and(|code| code.trim() != "0")
                    })
            }
        }
    }
}
