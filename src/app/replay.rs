//! `agent-eval replay`: one run, shown as a conversation or as JSON.

use std::io::Write;
use std::path::PathBuf;

use super::{AppError, Status};
use crate::eval::{self, Cell};
use crate::report::transcript;
use crate::scenario::{self, Axis, AxisValue, Dialect, NagThreshold, ReminderSpec};

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
    /// `--set AXIS=VALUE`: any axis, as a cell of `run` has it.
    pub settings: Vec<(scenario::Axis, scenario::AxisValue)>,
    pub format: ReplayFormat,
    /// Run this command as an external agent instead of the built-in loop.
    pub agent: Option<String>,
}

/// For a scenario with a matrix: which of its cells this replay shows
/// (the `agent:` settings with the flags given) and how to pick another;
/// nothing for a scenario of one cell.
fn which_cell(scenario: &scenario::Scenario, cell: &Cell, seed: u64) -> String {
    if scenario.runs.axes.is_empty() {
        return String::new();
    }
    let matrix: Vec<String> = scenario
        .runs
        .axes
        .iter()
        .map(|(axis, values)| {
            let values: Vec<String> = values.iter().map(ToString::to_string).collect();
            format!("{} {}", axis.name(), values.join(", "))
        })
        .collect();
    format!(
        "replaying seed {seed} of the cell {} (the scenario's `agent:` settings and the flags given); \
         its matrix runs {}: pick another cell with --no-todo, --threshold N|off, --dialect NAME, \
         --reminder NAME or --set AXIS=VALUE\n\n",
        cell.settings,
        matrix.join("; ")
    )
}

/// Runs one replay and prints it.
pub fn replay(config: &ReplayConfig, out: &mut dyn Write) -> Result<Status, AppError> {
    // A Ctrl-C during this call is handled by it, then forgotten.
    let _session = crate::cancel::Session::begin();
    let mut scenario = scenario::load(&config.scenario)?;
    if let Some(command) = &config.agent {
        scenario.agent.use_command(command);
    }
    crate::eval::execute::presets::settle(&mut scenario, true)?;
    // Every override, applied in axis order as the matrix applies a
    // cell's values (the named flags win over `--set` of the same axis).
    let mut overrides: Vec<(Axis, AxisValue)> = Vec::new();
    let mut set = |axis: Axis, value: AxisValue| {
        overrides.retain(|(a, _)| *a != axis);
        overrides.push((axis, value));
    };
    for (axis, value) in &config.settings {
        set(axis.clone(), *value);
    }
    if let Some(todo) = config.todo {
        set(Axis::Todo, AxisValue::Bool(todo));
    }
    if let Some(dialect) = config.dialect {
        set(Axis::Dialect, AxisValue::Dialect(dialect));
    }
    if let Some(reminder) = config.reminder {
        set(Axis::Reminder, AxisValue::Reminder(reminder));
    }
    if let Some(threshold) = config.threshold {
        set(Axis::NagThreshold, AxisValue::Threshold(threshold));
    }
    overrides.sort_by(|a, b| a.0.cmp(&b.0));
    let cell = overrides
        .iter()
        .fold(Cell::of_agent(&scenario), |cell, (axis, value)| {
            cell.with(axis, value)
        });
    let record = eval::run_once(&scenario, &cell, config.seed)?;
    if crate::cancel::requested() {
        return Ok(Status::Interrupted);
    }
    let text = match config.format {
        ReplayFormat::Text => {
            let mut text = which_cell(&scenario, &cell, config.seed);
            text.push_str(&transcript::render(&scenario, &record));
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
    // The workspace's random folder out, so a replay reads the same on
    // every machine (as the run logs do).
    let text = crate::sandbox::workspace::redact::workspace_paths(&text);
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(AppError::stdout)?;
    Ok(Status::Passed)
}
