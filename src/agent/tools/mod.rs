//! The s03 tools: `bash`, `read_file`, `write_file`, `edit_file`.
//!
//! The file tools work on the run's [`Workspace`] (in memory until a
//! process needs the folder); `bash` first writes the workspace to its
//! folder, unless the command only reads ([`crate::sandbox::read_only`]).
//!
//! Each tool takes typed arguments (unknown fields are an error) and returns
//! its result text, or a [`ToolError`] whose `Display` is what the model sees
//! after `Error: `. The `todo` tool lives in [`crate::plan::todo`] because
//! it holds state. Schemas are those of the s03 reference.

mod bash;
mod files;

use serde::Deserialize;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub use bash::{run_bash, run_bash_in, run_bash_with};
pub use files::{edit_file, read_file, write_file};

use crate::llm::ToolSchema;
use crate::sandbox::command::{CommandError, CommandSettings};
use crate::sandbox::workspace::{AccessError, Workspace};

/// Results are cut to this many characters.
pub const MAX_OUTPUT_CHARS: usize = 50_000;

/// The reference's bash timeout.
pub const BASH_TIMEOUT: Duration = Duration::from_secs(120);

/// Why a tool call failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("Path escapes workspace: {path}")]
    PathEscapes { path: String },
    #[error("Text not found in {path}")]
    TextNotFound { path: String },
    #[error("Dangerous command blocked")]
    DangerousCommand,
    /// The command did not finish with an outcome (timeout, cancellation,
    /// sandbox, spawn): its own words.
    #[error(transparent)]
    Command(#[from] CommandError),
    #[error("{0}")]
    BadArguments(String),
    /// A file operation failed; worded like Python's OSError.
    #[error("{0}")]
    File(String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl From<AccessError> for ToolError {
    fn from(e: AccessError) -> Self {
        match e {
            AccessError::Escapes { path } => Self::PathEscapes { path },
            other => Self::File(other.to_string()),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BashArgs {
    pub command: String,
}

// The file tools' arguments borrow their text from the call's input (no
// copy of a file's content per call).

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs<'a> {
    #[serde(borrow)]
    pub path: Cow<'a, str>,
    #[serde(default)]
    pub limit: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs<'a> {
    #[serde(borrow)]
    pub path: Cow<'a, str>,
    #[serde(borrow)]
    pub content: Cow<'a, str>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditFileArgs<'a> {
    #[serde(borrow)]
    pub path: Cow<'a, str>,
    #[serde(borrow)]
    pub old_text: Cow<'a, str>,
    #[serde(borrow)]
    pub new_text: Cow<'a, str>,
}

/// The names of the workspace tools, in schema order.
pub const WORKSPACE_TOOLS: [&str; 4] = ["bash", "read_file", "write_file", "edit_file"];

/// The tools one run offers, bound to its workspace.
#[derive(Debug, Clone)]
pub struct Toolbox {
    workspace: Arc<Workspace>,
    bash_timeout: Duration,
}

impl Toolbox {
    /// Tools on an existing folder, used on disk as it is (`root` must
    /// exist; it is canonicalized so the path guard compares like with
    /// like).
    pub fn new(root: &Path) -> std::io::Result<Self> {
        Ok(Self::with_workspace(Arc::new(Workspace::on_disk(root)?)))
    }

    /// Tools on a run's workspace (see [`Workspace::create`]).
    pub fn with_workspace(workspace: Arc<Workspace>) -> Self {
        Self {
            workspace,
            bash_timeout: BASH_TIMEOUT,
        }
    }

    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// The workspace folder (it exists even while the files are in memory).
    pub fn root(&self) -> &Path {
        self.workspace.root()
    }

    /// Runs workspace tool `name`; `None` when there is no such tool.
    pub fn call(&self, name: &str, input: &Value) -> Option<Result<String, ToolError>> {
        let result = match name {
            "bash" => args::<BashArgs>(input, &["command"]).and_then(|a| {
                let settings = CommandSettings::new(self.bash_timeout);
                run_bash_in(&self.workspace, &a.command, &settings)
            }),
            "read_file" => {
                args::<ReadFileArgs>(input, &["path"]).and_then(|a| read_file(&self.workspace, &a))
            }
            "write_file" => args::<WriteFileArgs>(input, &["path", "content"])
                .and_then(|a| write_file(&self.workspace, &a)),
            "edit_file" => args::<EditFileArgs>(input, &["path", "old_text", "new_text"])
                .and_then(|a| edit_file(&self.workspace, &a)),
            _ => return None,
        };
        Some(result)
    }
}

/// Typed arguments. The first missing one of `required` (in the order the
/// reference reads them) is reported first and worded as the reference's
/// `KeyError` (`'path'`), so transcripts match; other problems (unknown
/// fields, wrong types) keep serde's clear message.
fn args<'v, T: Deserialize<'v>>(input: &'v Value, required: &[&str]) -> Result<T, ToolError> {
    // The keys compared one by one, not hashed: a call's input has a few.
    if let Some(fields) = input.as_object()
        && let Some(missing) = required
            .iter()
            .find(|key| !fields.keys().any(|k| k == **key))
    {
        return Err(ToolError::BadArguments(format!("'{missing}'")));
    }
    T::deserialize(input).map_err(|e| ToolError::BadArguments(e.to_string()))
}

/// Cuts `text` to at most `max` characters.
pub fn cut_chars(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((byte, _)) => &text[..byte],
        None => text,
    }
}

/// The tool schemas of the s03 reference, `todo` last and only when offered.
pub fn schemas(with_todo: bool) -> Vec<ToolSchema> {
    let mut tools = vec![
        ToolSchema::new(
            "bash",
            "Run a shell command.",
            json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
        ),
        ToolSchema::new(
            "read_file",
            "Read file contents.",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["path"]}),
        ),
        ToolSchema::new(
            "write_file",
            "Write content to file.",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}),
        ),
        ToolSchema::new(
            "edit_file",
            "Replace exact text in file.",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "old_text": {"type": "string"}, "new_text": {"type": "string"}}, "required": ["path", "old_text", "new_text"]}),
        ),
    ];
    if with_todo {
        // The planning tool is the default dialect's (s03).
        tools.extend(crate::plan::dialect::Dialect::default().get().tools());
    }
    tools
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_and_missing_arguments_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let tools = Toolbox::new(dir.path()).unwrap();
        let err = tools
            .call("bash", &json!({"command": "true", "cwd": "/"}))
            .unwrap()
            .unwrap_err();
        assert!(err.to_string().contains("unknown field `cwd`"), "{err}");
        // A missing argument is reported before an unknown one, as the
        // reference (which ignores extra keys) would.
        let err = tools
            .call("read_file", &json!({"file": "a"}))
            .unwrap()
            .unwrap_err();
        assert_eq!(err.to_string(), "'path'");
        let err = tools
            .call("edit_file", &json!({"path": "a", "new_text": "b"}))
            .unwrap()
            .unwrap_err();
        assert_eq!(err.to_string(), "'old_text'");
        let err = tools
            .call("write_file", &json!({"path": "a"}))
            .unwrap()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "'content'",
            "the reference's KeyError wording"
        );
        assert!(tools.call("todo", &json!({})).is_none());
    }

    #[test]
    fn cut_counts_characters() {
        assert_eq!(cut_chars("héllo", 2), "hé");
        assert_eq!(cut_chars("hi", 5), "hi");
    }
}
