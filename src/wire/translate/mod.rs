//! The translation layer between a model that speaks the built-in tools
//! (`read_file`, `write_file`, `edit_file`, `bash`, and the default
//! dialect's `todo`) and an outside agent that offers its own: a scenario
//! written for the built-in loop runs unchanged on Claude Code and Codex.
//!
//! Keyed by the tools the agent offered in the request being answered:
//! a model call of a built-in tool that the request does not offer, whose
//! counterpart it does offer, is sent as that counterpart (one file per
//! agent family: [`claude_code`], [`codex`], [`copilot`]). Every other call (the
//! dialect's planning calls, a call already in the agent's own names, a
//! built-in tool the agent itself offers) goes out unchanged. `{WORKDIR}`
//! in any string of a call's input becomes the agent's workspace path.
//!
//! The translation remembers what it sent, by call id, so the model is
//! shown its own calls back ([`Translation::model_view`]): each translated
//! call as the model wrote it, calls the translation added itself (the
//! `Read` Claude Code requires before an `Edit`) hidden with their results,
//! and a result the agent marks as failed for a file tool starting with
//! `Error: ` as the built-in tools' failures do (the simulated model reads
//! a step as done when its calls did not fail). Result texts otherwise
//! stay the agent's own: what they cost in context is part of what is
//! measured. The record of the wire (metrics, transcripts) keeps the
//! agent's side.

pub mod claude_code;
pub mod codex;
pub mod copilot;
pub mod gemini_cli;
pub mod opencode;
pub mod qwen_code;
pub mod workspace_file;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::record::WireRequest;
use crate::llm::{Content, ContentBlock, Message, ModelResponse, ToolInput};

/// The built-in tool a translated call came from: how its failure reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    ReadFile,
    WriteFile,
    EditFile,
    Bash,
    /// The default (s03) dialect's `todo`: a script written for the
    /// built-in loop plans with it.
    Todo,
}

impl Builtin {
    fn of(name: &str) -> Option<Self> {
        Some(match name {
            "read_file" => Self::ReadFile,
            "write_file" => Self::WriteFile,
            "edit_file" => Self::EditFile,
            "bash" => Self::Bash,
            "todo" => Self::Todo,
            _ => return None,
        })
    }
}

/// One item of an s03 `todo` call, as written (text and status as given:
/// the agent's own validation judges them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoItem {
    pub text: Value,
    pub status: Value,
}

/// A built-in call as the translation reads it: its typed fields (a call
/// whose input does not fit goes out unchanged, and the agent answers it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuiltinCall {
    ReadFile {
        path: String,
        limit: Option<u64>,
    },
    WriteFile {
        path: String,
        content: String,
    },
    EditFile {
        path: String,
        old: String,
        new: String,
    },
    Bash {
        command: String,
    },
    /// s03's `todo {items: [{id, text, status}]}`.
    Todo {
        items: Vec<TodoItem>,
    },
    /// A built-in call whose input does not fit its tool: sent to the
    /// agent's counterpart as written, so the agent's own validation
    /// answers it (as the built-in tool would, with an error).
    Malformed {
        builtin: Builtin,
        input: Value,
    },
}

impl BuiltinCall {
    /// The call of `name`, if it is a built-in tool's: typed when its
    /// input fits, else [`BuiltinCall::Malformed`].
    fn read(name: &str, input: &Value) -> Option<Self> {
        let builtin = Builtin::of(name)?;
        Some(
            Self::typed(builtin, input).unwrap_or_else(|| Self::Malformed {
                builtin,
                input: input.clone(),
            }),
        )
    }

    fn typed(builtin: Builtin, input: &Value) -> Option<Self> {
        let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_string);
        Some(match builtin {
            Builtin::ReadFile => Self::ReadFile {
                path: text("path")?,
                limit: input.get("limit").and_then(Value::as_u64),
            },
            Builtin::WriteFile => Self::WriteFile {
                path: text("path")?,
                content: text("content")?,
            },
            Builtin::EditFile => Self::EditFile {
                path: text("path")?,
                old: text("old_text")?,
                new: text("new_text")?,
            },
            Builtin::Bash => Self::Bash {
                command: text("command")?,
            },
            Builtin::Todo => Self::Todo {
                items: input
                    .get("items")?
                    .as_array()?
                    .iter()
                    .map(|item| TodoItem {
                        text: item.get("text").cloned().unwrap_or(Value::Null),
                        status: item
                            .get("status")
                            .cloned()
                            .unwrap_or_else(|| Value::from("pending")),
                    })
                    .collect(),
            },
        })
    }
}

/// One call as sent to the agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentCall {
    pub name: String,
    pub input: Value,
}

impl AgentCall {
    pub fn new(name: &str, input: Value) -> Self {
        Self {
            name: name.into(),
            input,
        }
    }
}

/// What a family needs to translate one call.
pub struct Context<'a> {
    /// The agent's workspace (its cwd), when known.
    pub workspace: Option<&'a Path>,
    /// The tools the request offered.
    pub offered: &'a [String],
    /// Files as the earlier calls of the same response leave them (the
    /// agent runs them in order, before a later call is done).
    pub pending: BTreeMap<String, String>,
    /// Files of the workspace as they were read before the translation
    /// ([`workspace_file`]): the translation itself reads no file.
    pub on_disk: BTreeMap<String, String>,
}

impl Context<'_> {
    /// `path` made absolute against the workspace, for agents whose file
    /// tools take only absolute paths (Qwen Code, OpenCode).
    pub fn absolute(&self, path: &str) -> String {
        match self.workspace {
            Some(root) if !Path::new(path).is_absolute() => {
                root.join(path).to_string_lossy().into_owned()
            }
            _ => path.to_string(),
        }
    }

    pub fn offers(&self, tool: &str) -> bool {
        self.offered.iter().any(|t| t == tool)
    }

    /// The file at `path` (relative to the workspace) as the calls before
    /// leave it, when the workspace is known and the file readable.
    pub fn file(&self, path: &str) -> Option<String> {
        self.pending
            .get(path)
            .or_else(|| self.on_disk.get(path))
            .cloned()
    }

    /// Whether the file exists, as the calls before leave it.
    pub fn exists(&self, path: &str) -> bool {
        self.pending.contains_key(path)
            || self.workspace.is_some_and(|root| root.join(path).is_file())
    }

    /// Notes what `call` does to a file, for the calls after it.
    fn record(&mut self, call: &BuiltinCall) {
        match call {
            BuiltinCall::WriteFile { path, content } => {
                self.pending.insert(path.clone(), content.clone());
            }
            BuiltinCall::EditFile { path, old, new } => {
                if let Some(text) = self.file(path)
                    && text.contains(old.as_str())
                {
                    self.pending
                        .insert(path.clone(), text.replacen(old.as_str(), new, 1));
                }
            }
            BuiltinCall::ReadFile { .. }
            | BuiltinCall::Bash { .. }
            | BuiltinCall::Todo { .. }
            | BuiltinCall::Malformed { .. } => {}
        }
    }
}

/// An agent family: how it spells the built-in tools.
pub trait Family {
    /// Whether the offered tools are this family's.
    fn offered_by(&self, context: &Context<'_>) -> bool;
    /// Whether the agent offers a tool of `builtin`'s name that takes
    /// another input: the call is translated even though its name is
    /// offered (an input already in the agent's shape does not read as the
    /// built-in's and goes to the agent's tool as written).
    fn shares_name(&self, _builtin: Builtin) -> bool {
        false
    }

    /// Whether a call of `name` goes out as written: a tool the agent
    /// offers, unless the family must add to a built-in call of its name
    /// (Copilot's `bash` requires a description), or shares
    /// the name with another input ([`Family::shares_name`]).
    fn keeps(&self, name: &str, _input: &Value, context: &Context<'_>) -> bool {
        context.offers(name) && !Builtin::of(name).is_some_and(|b| self.shares_name(b))
    }
    /// The calls that do `call` in the agent's tools, in order: extra
    /// calls first, the call that stands for the model's last. `None`:
    /// the agent offers no counterpart (the call goes out unchanged).
    fn translate(&self, call: &BuiltinCall, context: &Context<'_>) -> Option<Vec<AgentCall>>;
    /// Whether `content` (flagged as an error by the client or not) says
    /// the translated call of `builtin` failed.
    fn failed(&self, builtin: Builtin, content: &str, flagged: bool) -> bool;
}

const FAMILIES: [&dyn Family; 6] = [
    &claude_code::ClaudeCode,
    &codex::Codex,
    &gemini_cli::GeminiCli,
    &qwen_code::QwenCode,
    &opencode::OpenCode,
    &copilot::Copilot,
];

/// What the translation sent for one agent-side call id.
#[derive(Debug, Clone, PartialEq)]
enum Sent {
    /// The model's call (as the model wrote it), translated from `builtin`.
    Translated {
        name: String,
        input: ToolInput,
        builtin: Builtin,
        family: usize,
    },
    /// The model's call with `{WORKDIR}` resolved in its input.
    Resolved { input: ToolInput },
    /// A call the translation added (hidden from the model).
    Added,
}

/// One run's translation: the workspace and what was sent.
#[derive(Debug, Clone, Default)]
pub struct Translation {
    workspace: Option<PathBuf>,
    sent: BTreeMap<String, Sent>,
}

/// The id of the `n`th call added before the model's call `id`.
fn added_id(id: &str, n: usize) -> String {
    format!("{id}_pre{n}")
}

impl Translation {
    pub fn new(workspace: Option<PathBuf>) -> Self {
        Self {
            workspace,
            sent: BTreeMap::new(),
        }
    }

    /// The workspace, when known.
    pub fn workspace(&self) -> Option<&Path> {
        self.workspace.as_deref()
    }

    /// The workspace files the translation of `response` may read: the
    /// files its `edit_file` calls edit.
    pub fn files_to_read(&self, response: &ModelResponse) -> Vec<String> {
        let mut paths = Vec::new();
        for block in &response.content {
            if let ContentBlock::ToolUse { name, input, .. } = block
                && let Some(BuiltinCall::EditFile { path, .. }) =
                    BuiltinCall::read(name, &self.resolve_workdir(input))
                && !paths.contains(&path)
            {
                paths.push(path);
            }
        }
        paths
    }

    /// [`Translation::agent_view_of`] with the files read here (tests and
    /// callers that hold no lock).
    pub fn agent_view(&mut self, request: &WireRequest, response: ModelResponse) -> ModelResponse {
        let paths = self.files_to_read(&response);
        let on_disk = workspace_file::read_files(self.workspace(), &paths);
        self.agent_view_of(request, response, on_disk)
    }

    /// The model's response with its built-in calls in the tools the
    /// request offered; `on_disk` holds the workspace files it reads, read
    /// beforehand ([`Translation::files_to_read`]).
    pub fn agent_view_of(
        &mut self,
        request: &WireRequest,
        response: ModelResponse,
        on_disk: BTreeMap<String, String>,
    ) -> ModelResponse {
        let offered: Vec<String> = request.tools.iter().map(|t| t.name.to_string()).collect();
        let workspace = self.workspace.clone();
        let mut context = Context {
            workspace: workspace.as_deref(),
            offered: &offered,
            pending: BTreeMap::new(),
            on_disk,
        };
        let family = FAMILIES.iter().position(|f| f.offered_by(&context));
        let mut content = Vec::with_capacity(response.content.len());
        for block in response.content {
            let ContentBlock::ToolUse { id, name, input } = block else {
                content.push(block);
                continue;
            };
            let resolved = self.resolve_workdir(&input);
            let translated = family
                .and_then(|f| Some((f, *FAMILIES.get(f)?)))
                .filter(|(_, family)| !family.keeps(&name, &resolved, &context))
                .and_then(|(f, family)| {
                    let call = BuiltinCall::read(&name, &resolved)?;
                    let calls = family.translate(&call, &context)?;
                    context.record(&call);
                    Some((f, calls))
                });
            match translated {
                Some((f, calls)) if !calls.is_empty() => {
                    let last = calls.len() - 1;
                    for (n, call) in calls.into_iter().enumerate() {
                        let agent_id = if n == last {
                            id.clone()
                        } else {
                            added_id(&id, n + 1)
                        };
                        if n != last {
                            self.sent.insert(agent_id.clone(), Sent::Added);
                        }
                        content.push(ContentBlock::ToolUse {
                            id: agent_id,
                            name: call.name,
                            input: call.input.into(),
                        });
                    }
                    if let Some(builtin) = Builtin::of(&name) {
                        self.sent.insert(
                            id,
                            Sent::Translated {
                                name,
                                input,
                                builtin,
                                family: f,
                            },
                        );
                    }
                }
                _ => {
                    // An input without `{WORKDIR}` goes on as the model's
                    // own (shared, not copied).
                    let sent = if resolved == *input {
                        input
                    } else {
                        self.sent.insert(id.clone(), Sent::Resolved { input });
                        resolved.into()
                    };
                    content.push(ContentBlock::ToolUse {
                        id,
                        name,
                        input: sent,
                    });
                }
            }
        }
        ModelResponse {
            content,
            ..response
        }
    }

    /// `{WORKDIR}` in every string of `input` as the workspace path.
    fn resolve_workdir(&self, input: &Value) -> Value {
        match &self.workspace {
            Some(workspace) => replace_strings(input, &workspace.to_string_lossy()),
            None => input.clone(),
        }
    }

    /// The request as the model is shown it: its own calls as it wrote
    /// them, added calls and their results left out, failures of
    /// translated file tools starting with `Error: `.
    /// The request itself when nothing was translated (copying the whole
    /// conversation for every request cost more than the rest of it).
    pub fn model_view<'r>(&self, request: &'r WireRequest) -> std::borrow::Cow<'r, WireRequest> {
        if self.sent.is_empty() {
            return std::borrow::Cow::Borrowed(request);
        }
        let mut seen = request.clone();
        seen.messages = request
            .messages
            .iter()
            .map(|m| self.message_view(m, &request.error_results))
            .collect();
        std::borrow::Cow::Owned(seen)
    }

    fn message_view(&self, message: &Message, flagged: &[String]) -> Message {
        let Content::Blocks(blocks) = &message.content else {
            return message.clone();
        };
        let blocks = blocks
            .iter()
            .filter_map(|block| self.block_view(block, flagged))
            .collect();
        Message {
            role: message.role,
            content: Content::Blocks(blocks),
        }
    }

    fn block_view(&self, block: &ContentBlock, flagged: &[String]) -> Option<ContentBlock> {
        match block {
            ContentBlock::ToolUse { id, name, input } => match self.sent.get(id) {
                Some(Sent::Added) => None,
                Some(Sent::Translated { name, input, .. }) => Some(ContentBlock::ToolUse {
                    id: id.clone(),
                    name: name.clone(),
                    input: input.clone(),
                }),
                Some(Sent::Resolved { input }) => Some(ContentBlock::ToolUse {
                    id: id.clone(),
                    name: name.clone(),
                    input: input.clone(),
                }),
                None => Some(ContentBlock::ToolUse {
                    id: id.clone(),
                    name: name.clone(),
                    input: input.clone(),
                }),
            },
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                ..
            } => match self.sent.get(tool_use_id) {
                Some(Sent::Added) => None,
                Some(Sent::Translated {
                    builtin, family, ..
                }) if !matches!(builtin, Builtin::Bash | Builtin::Todo)
                    && !content.starts_with("Error")
                    && FAMILIES.get(*family).is_some_and(|family| {
                        family.failed(
                            *builtin,
                            content,
                            flagged.binary_search(tool_use_id).is_ok(),
                        )
                    }) =>
                {
                    Some(ContentBlock::ToolResult {
                        tool_use_id: tool_use_id.clone(),
                        content: format!("Error: {content}"),
                        is_error: false,
                    })
                }
                _ => Some(block.clone()),
            },
            ContentBlock::Text { .. } => Some(block.clone()),
        }
    }
}

/// `value` with `{WORKDIR}` replaced by `workdir` in every string.
fn replace_strings(value: &Value, workdir: &str) -> Value {
    const PLACEHOLDER: &str = "{WORKDIR}";
    match value {
        Value::String(s) if s.contains(PLACEHOLDER) => {
            Value::String(s.replace(PLACEHOLDER, workdir))
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| replace_strings(v, workdir)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), replace_strings(v, workdir)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests;
