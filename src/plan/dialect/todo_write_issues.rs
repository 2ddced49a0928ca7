//! Why Claude Code's `TodoWrite` refused a call: the issues zod reports
//! of its input, grouped and worded the way Claude Code words them
//! (`<tool_use_error>InputValidationError: TodoWrite failed due to the
//! following issue(s):\n...</tool_use_error>`). The dialect
//! (`claude_code.rs`) finds them; the shared refusal type (`error.rs`)
//! carries them.

use serde_json::Value;

use super::zod_type;

/// The tool's name.
pub(super) const TOOL: &str = "TodoWrite";
/// How every refusal begins.
pub(super) const PREFIX: &str = "<tool_use_error>";

/// The issues zod reports, grouped the way Claude Code words them: why
/// a call was refused. Its message lists them all in one text, assembled
/// in [`Issues::message`].
#[derive(Debug, Default, thiserror::Error)]
#[error("{}", self.message())]
pub struct Issues {
    pub missing: Vec<String>,
    pub unexpected: Vec<String>,
    pub mistyped: Vec<(String, &'static str, &'static str)>,
    pub invalid: Vec<(String, String)>,
}

impl Issues {
    pub fn is_empty(&self) -> bool {
        self.missing.is_empty()
            && self.unexpected.is_empty()
            && self.mistyped.is_empty()
            && self.invalid.is_empty()
    }

    fn message(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        parts.extend(
            self.missing
                .iter()
                .map(|p| format!("The required parameter `{p}` is missing")),
        );
        parts.extend(
            self.unexpected
                .iter()
                .map(|p| format!("An unexpected parameter `{p}` was provided")),
        );
        parts.extend(self.mistyped.iter().map(|(p, expected, received)| {
            format!(
                "The parameter `{p}` type is expected as `{expected}` but provided as `{received}`"
            )
        }));
        parts.extend(
            self.invalid
                .iter()
                .map(|(p, why)| format!("The parameter `{p}` is invalid: {why}")),
        );
        let noun = if parts.len() > 1 { "issues" } else { "issue" };
        format!(
            "{PREFIX}InputValidationError: {TOOL} failed due to the following {noun}:\n{}</tool_use_error>",
            parts.join("\n")
        )
    }

    /// A required string of at least one character.
    pub fn string<'a>(
        &mut self,
        path: String,
        value: Option<&'a Value>,
        empty: &str,
    ) -> Option<&'a str> {
        match value {
            None => self.missing.push(path),
            Some(Value::String(s)) if s.is_empty() => self.invalid.push((path, empty.into())),
            Some(Value::String(s)) => return Some(s),
            Some(other) => self.mistyped.push((path, "string", zod_type(other))),
        }
        None
    }
}
