//! What can be wrong with one command-line value: the one error type of
//! the value parsers in `parse` (clap prints it after "invalid value
//! ... for '--FLAG': "). Each message is the text users read (a test pins
//! them).

use thiserror::Error;

use crate::app::errors::ShardAutoError;
use crate::results::shard::ShardSpecError;
use crate::scenario::AxisError;

/// A value a flag cannot take.
#[derive(Debug, Error)]
pub enum ArgError {
    /// `--agent ''`.
    #[error("the agent command is empty (give a command, or a preset: {presets})")]
    EmptyAgent { presets: String },
    /// `--markdown ''` and the like: most often an unset variable.
    #[error("the path is empty (is the variable it came from unset here?): name a file")]
    EmptyPath,
    /// `--tolerance` outside 0..=1, or not a number.
    #[error("tolerance must be a number from 0 to 1, got `{raw}`")]
    Tolerance { raw: String },
    #[error(transparent)]
    Shard(#[from] ShardSpecError),
    #[error(transparent)]
    ShardAuto(#[from] ShardAutoError),
    #[error("unknown dialect `{raw}` (known: {known})")]
    UnknownDialect { raw: String, known: String },
    /// `--set` without `=`.
    #[error("expected AXIS=VALUE, got `{raw}`")]
    NotASetting { raw: String },
    #[error(transparent)]
    Axis(#[from] AxisError),
}

#[cfg(test)]
mod tests {
    use super::super::parse::{
        parse_agent, parse_dialect, parse_path, parse_setting, parse_tolerance,
    };

    fn message<T>(result: Result<T, super::ArgError>) -> String {
        result.err().map(|e| e.to_string()).unwrap_or_default()
    }

    /// The messages users read, pinned byte for byte as they were when
    /// the parsers returned strings.
    #[test]
    fn messages_are_the_ones_users_read() {
        assert_eq!(
            message(parse_agent(" ")),
            "the agent command is empty (give a command, or a preset: claude-code, codex, gemini-cli, qwen-code, opencode, copilot)"
        );
        assert_eq!(
            message(parse_path("")),
            "the path is empty (is the variable it came from unset here?): name a file"
        );
        assert_eq!(
            message(parse_tolerance("2")),
            "tolerance must be a number from 0 to 1, got `2`"
        );
        assert!(message(parse_dialect("nope")).starts_with("unknown dialect `nope` (known: s03, "));
        assert_eq!(
            message(parse_setting("todo")),
            "expected AXIS=VALUE, got `todo`"
        );
    }
}
