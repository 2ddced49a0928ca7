//! The parsers of the command line's values (`--shard`, `--tolerance`,
//! `--dialect`, `--set`, ...): each turns one argument into the library's
//! type or says, in clap's error, what was wrong with it.

use super::error::ArgError;
use crate::app::ci::shard_from_env;
use crate::eval::Shard;
use crate::plan::reminder::ReminderSpecError;
use crate::scenario::{AgentPreset, Axis, AxisValue, Dialect, ReminderSpec};

/// `--agent`: a preset's name or a shell command; an empty one would run
/// `sh -c ''` and count every run as a broken agent.
pub(super) fn parse_agent(raw: &str) -> Result<String, ArgError> {
    if raw.trim().is_empty() {
        let presets: Vec<&str> = AgentPreset::ALL.iter().map(|p| p.name()).collect();
        Err(ArgError::EmptyAgent {
            presets: presets.join(", "),
        })
    } else {
        Ok(raw.to_string())
    }
}

/// A file or folder argument (`--markdown FILE`, `--log-dir DIR`, ...):
/// an empty one is almost always a variable that is not set where the
/// command runs (`--markdown "$GITHUB_STEP_SUMMARY"` outside GitHub
/// Actions), so it is refused with that said rather than failing later
/// on a file named "".
pub(super) fn parse_path(raw: &str) -> Result<std::path::PathBuf, ArgError> {
    if raw.trim().is_empty() {
        Err(ArgError::EmptyPath)
    } else {
        Ok(raw.into())
    }
}

pub(super) fn parse_tolerance(raw: &str) -> Result<f64, ArgError> {
    match raw.parse::<f64>() {
        Ok(t) if (0.0..=1.0).contains(&t) => Ok(t),
        _ => Err(ArgError::Tolerance {
            raw: raw.to_string(),
        }),
    }
}

/// `--shard K/N` or `--shard auto` (resolved from the environment before
/// the run starts).
#[derive(Clone, Copy)]
pub enum ShardChoice {
    Fixed(Shard),
    Auto,
}

pub(super) fn parse_shard(raw: &str) -> Result<ShardChoice, ArgError> {
    if raw.trim() == "auto" {
        Ok(ShardChoice::Auto)
    } else {
        Ok(ShardChoice::Fixed(Shard::parse(raw)?))
    }
}

/// The shard asked for, with `auto` read off the CI's variables.
pub(super) fn resolve_shard(choice: Option<ShardChoice>) -> Result<Option<Shard>, ArgError> {
    match choice {
        None => Ok(None),
        Some(ShardChoice::Fixed(shard)) => Ok(Some(shard)),
        Some(ShardChoice::Auto) => Ok(Some(shard_from_env(&|name| std::env::var(name).ok())?)),
    }
}

pub(super) fn parse_dialect(raw: &str) -> Result<Dialect, ArgError> {
    Dialect::ALL
        .iter()
        .copied()
        .find(|d| d.name() == raw)
        .ok_or_else(|| {
            let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
            ArgError::UnknownDialect {
                raw: raw.to_string(),
                known: known.join(", "),
            }
        })
}

pub(super) fn parse_setting(raw: &str) -> Result<(Axis, AxisValue), ArgError> {
    let (name, value) = raw.split_once('=').ok_or_else(|| ArgError::NotASetting {
        raw: raw.to_string(),
    })?;
    let axis = Axis::parse(name.trim())?;
    let value = serde_json::from_str(value.trim())
        .unwrap_or_else(|_| serde_json::Value::String(value.trim().to_string()));
    let value = axis.value(&value)?;
    Ok((axis, value))
}

pub(super) fn parse_reminder(raw: &str) -> Result<ReminderSpec, ReminderSpecError> {
    ReminderSpec::from_value(&serde_json::Value::String(raw.to_string()))
}
