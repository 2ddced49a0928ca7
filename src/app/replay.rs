//! `agent-eval replay`: one run, shown as a conversation or as JSON.

use std::io::Write;
use std::path::PathBuf;

use super::{AppError, Status};
use crate::eval::{self, Cell};
use crate::report::transcript;
use crate::scenario::{self, Dialect, NagThreshold, ReminderSpec};

/// Output format of `replay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReplayFormat {
    #[default]
    Text,
    Json,
}

/// `agent-eval replay`.
#[derive(Debug, Clone)]
pub struct ReplayConfig {
    pub scenario: PathBuf,
    pub seed: u64,
    /// `--no-todo` sets this to false.
    pub todo: Option<bool>,
    pub threshold: Option<NagThreshold>,
    /// `--dialect` and `--reminder` override the scenario's `agent:`.
    pub dialect: Option<Dialect>,
    pub reminder: Option<ReminderSpec>,
    pub format: ReplayFormat,
    /// Run this command as an external agent instead of the built-in loop.
    pub agent: Option<String>,
}

/// Runs one replay and prints it.
pub fn replay(config: &ReplayConfig, out: &mut dyn Write) -> Result<Status, AppError> {
    // A Ctrl-C during this call is handled by it, then forgotten.
    let _session = crate::cancel::Session::begin();
    let mut scenario = scenario::load(&config.scenario)?;
    if let Some(command) = &config.agent {
        scenario.agent.use_command(command);
    }
    let mut cell = Cell::of_agent(&scenario);
    if let Some(todo) = config.todo {
        cell = cell.with_todo(todo);
    }
    if let Some(dialect) = config.dialect {
        cell = cell.with(
            &scenario::Axis::Dialect,
            &scenario::AxisValue::Dialect(dialect),
        );
    }
    if let Some(reminder) = config.reminder {
        cell = cell.with(
            &scenario::Axis::Reminder,
            &scenario::AxisValue::Reminder(reminder),
        );
    }
    if let Some(threshold) = config.threshold {
        cell = cell.with_threshold(threshold);
    }
    let record = eval::run_once(&scenario, &cell, config.seed)?;
    if crate::cancel::requested() {
        return Ok(Status::Interrupted);
    }
    let text = match config.format {
        ReplayFormat::Text => {
            let mut text = transcript::render(&scenario, &record);
            // An external agent's own output, after its conversation.
            if let Some(log) = record.agent_log.as_deref().filter(|l| !l.trim().is_empty()) {
                text.push_str("\n--- agent output (stdout and stderr) ---\n");
                text.push_str(log);
                if !log.ends_with('\n') {
                    text.push('\n');
                }
            }
            text
        }
        ReplayFormat::Json => transcript::to_json(&record)
            .map_err(|e| AppError::Usage(format!("cannot write the replay as JSON: {e}")))?,
    };
    let _ = out.write_all(text.as_bytes());
    Ok(Status::Passed)
}
