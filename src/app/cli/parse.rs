//! The parsers of the command line's values (`--shard`, `--tolerance`,
//! `--dialect`, `--set`, ...): each turns one argument into the library's
//! type or says, in clap's error, what was wrong with it.

use crate::app::ci::shard_from_env;
use crate::eval::Shard;
use crate::plan::reminder::ReminderSpecError;
use crate::scenario::{Axis, AxisValue, Dialect, ReminderSpec};

/// `--agent`: a preset's name or a shell command; an empty one would run
/// `sh -c ''` and count every run as a broken agent.
pub(super) fn parse_agent(raw: &str) -> Result<String, String> {
    if raw.trim().is_empty() {
        Err(
            "the agent command is empty (give a command, or a preset: claude-code, codex, gemini-cli, qwen-code, opencode, copilot)"
                .into(),
        )
    } else {
        Ok(raw.to_string())
    }
}

/// A file or folder argument (`--markdown FILE`, `--log-dir DIR`, ...):
/// an empty one is almost always a variable that is not set where the
/// command runs (`--markdown "$GITHUB_STEP_SUMMARY"` outside GitHub
/// Actions), so it is refused with that said rather than failing later
/// on a file named "".
pub(super) fn parse_path(raw: &str) -> Result<std::path::PathBuf, String> {
    if raw.trim().is_empty() {
        Err("the path is empty (is the variable it came from unset here?): name a file".into())
    } else {
        Ok(raw.into())
    }
}

pub(super) fn parse_tolerance(raw: &str) -> Result<f64, String> {
    match raw.parse::<f64>() {
        Ok(t) if (0.0..=1.0).contains(&t) => Ok(t),
        _ => Err(format!(
            "tolerance must be a number from 0 to 1, got `{raw}`"
        )),
    }
}

/// `--shard K/N` or `--shard auto` (resolved from the environment before
/// the run starts).
#[derive(Clone, Copy)]
pub enum ShardChoice {
    Fixed(Shard),
    Auto,
}

pub(super) fn parse_shard(raw: &str) -> Result<ShardChoice, String> {
    if raw.trim() == "auto" {
        Ok(ShardChoice::Auto)
    } else {
        Shard::parse(raw)
            .map(ShardChoice::Fixed)
            .map_err(|e| e.to_string())
    }
}

/// The shard asked for, with `auto` read off the CI's variables.
pub(super) fn resolve_shard(choice: Option<ShardChoice>) -> Result<Option<Shard>, String> {
    match choice {
        None => Ok(None),
        Some(ShardChoice::Fixed(shard)) => Ok(Some(shard)),
        Some(ShardChoice::Auto) => shard_from_env(&|name| std::env::var(name).ok()).map(Some),
    }
}

pub(super) fn parse_dialect(raw: &str) -> Result<Dialect, String> {
    Dialect::ALL
        .iter()
        .copied()
        .find(|d| d.name() == raw)
        .ok_or_else(|| {
            let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
            format!("unknown dialect `{raw}` (known: {})", known.join(", "))
        })
}

pub(super) fn parse_setting(raw: &str) -> Result<(Axis, AxisValue), String> {
    let (name, value) = raw
        .split_once('=')
        .ok_or_else(|| format!("expected AXIS=VALUE, got `{raw}`"))?;
    let axis = Axis::parse(name.trim()).map_err(|e| e.to_string())?;
    let value = serde_json::from_str(value.trim())
        .unwrap_or_else(|_| serde_json::Value::String(value.trim().to_string()));
    let value = axis.value(&value).map_err(|e| e.to_string())?;
    Ok((axis, value))
}

pub(super) fn parse_reminder(raw: &str) -> Result<ReminderSpec, ReminderSpecError> {
    ReminderSpec::from_value(&serde_json::Value::String(raw.to_string()))
}
