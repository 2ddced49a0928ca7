//! `agent-eval sweep`: one scenario across the values of one axis. Values
//! that cannot be had are a [`SweepValuesError`] (`app/errors.rs`), said
//! as a usage error (exit 2).

use std::io::Write;
use std::path::PathBuf;

use super::errors::SweepValuesError;
use super::same_file::{Named, refuse_overlaps};
use super::{AppError, Progress, Status, write_atomic, write_atomic_with};
use crate::eval::{self, EvalError, EvalOptions};
use crate::report::{html, json, svg, table};
use crate::scenario::{self, Axis, AxisValue};

/// `agent-eval sweep`.
#[derive(Debug, Clone)]
pub struct SweepConfig {
    pub scenario: PathBuf,
    /// The axis to sweep (`nag_threshold`, `dialect`, `reminder`,
    /// `placement`, `simulate.<param>`).
    pub axis: String,
    /// Its values as written (`3`, `off`, `codex`, `{"policy": "interval",
    /// "every": 4}`); empty: every dialect, policy or placement, or the
    /// thresholds 1, 2, 3, 5, 8, off.
    pub values: Vec<String>,
    pub seeds: Option<u64>,
    pub jobs: Option<usize>,
    pub svg: Option<PathBuf>,
    pub json: Option<PathBuf>,
    /// One self-contained HTML page with the sweep's cells and chart.
    pub html: Option<PathBuf>,
    /// The smallest completion gain worth more reminders (see
    /// [`eval::sweep`]).
    pub min_effect: f64,
    /// Print only the pick.
    pub quiet: bool,
    pub progress: bool,
    /// The cap on runs (`--max-runs`; default [`eval::DEFAULT_MAX_RUNS`]).
    pub max_runs: Option<u64>,
    /// `--profile`: the simulated scenario under this calibration profile.
    pub profile: Option<PathBuf>,
}

/// The values swept when none are given.
fn default_values(axis: &Axis) -> Result<Vec<AxisValue>, SweepValuesError> {
    use crate::plan::dialect::Dialect;
    use crate::plan::reminder::{NagThreshold, Placement, ReminderSpec};
    Ok(match axis {
        Axis::NagThreshold => [1, 2, 3, 5, 8]
            .into_iter()
            .map(|n| AxisValue::Threshold(NagThreshold::After(n)))
            .chain([AxisValue::Threshold(NagThreshold::Off)])
            .collect(),
        Axis::Dialect => Dialect::ALL
            .iter()
            .map(|d| AxisValue::Dialect(*d))
            .collect(),
        Axis::Reminder => ReminderSpec::all()
            .into_iter()
            .map(AxisValue::Reminder)
            .collect(),
        Axis::Placement => Placement::ALL
            .into_iter()
            .map(AxisValue::Placement)
            .collect(),
        other => {
            return Err(SweepValuesError::NeedsValues {
                axis: other.clone(),
            });
        }
    })
}

/// The HTML page of a sweep: its cells (planning tool per value, then the
/// baseline without it) as one scenario of the report, and its chart.
fn sweep_page(
    scenario: &scenario::Scenario,
    result: &eval::sweep::SweepResult,
    svg: String,
) -> String {
    let mut cells = result.with_todo.clone();
    cells.push(result.without_todo.clone());
    let document = serde_json::json!({
        "version": json::VERSION,
        "ok": true,
        "scenarios": [{
            "name": result.scenario,
            "file": scenario.file.display().to_string(),
            "cells": cells,
            "comparisons": [],
            "expectations": [],
        }],
        "errors": [],
    });
    let best = result.best.map_or("-".to_string(), |v| v.to_string());
    html::render(html::HtmlInput {
        report: &document,
        transcripts: &crate::report::html_runs::Transcripts::default(),
        transcripts_note: None,
        charts: &[html::Chart {
            title: format!("{} sweep of {}: pick {best}", result.axis, result.scenario),
            svg,
        }],
    })
}

/// Reads one value as written on the command line: JSON where it parses
/// (numbers, booleans, maps), else a word.
fn parse_value(axis: &Axis, raw: &str) -> Result<AxisValue, SweepValuesError> {
    let value = serde_json::from_str(raw.trim())
        .unwrap_or_else(|_| serde_json::Value::String(raw.trim().to_string()));
    Ok(axis.value(&value)?)
}

/// Runs a sweep and prints its table and recommendation: admit (the axis,
/// its values, the outputs, the scenario), evaluate, write.
pub fn sweep(
    config: &SweepConfig,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    // A Ctrl-C during this call is handled by it, then forgotten.
    let _session = crate::cancel::Session::begin();
    let (axis, values) = axis_and_values(config)?;
    for path in [&config.svg, &config.json, &config.html]
        .into_iter()
        .flatten()
    {
        super::check_output_path(path)?;
    }
    let outputs: Vec<Named<'_>> = [
        ("--svg", &config.svg),
        ("--json", &config.json),
        ("--html", &config.html),
    ]
    .into_iter()
    .filter_map(|(flag, path)| path.as_deref().map(|p| Named::new(flag, p)))
    .collect();
    refuse_overlaps(&outputs, &[Named::new("the scenario", &config.scenario)])?;
    let scenario = load_scenario(config, &axis, err)?;
    let options = EvalOptions {
        seeds: config.seeds,
        jobs: config.jobs,
        shard: None,
        max_runs: config.max_runs,
        ..EvalOptions::default()
    };
    let progress = Progress::new(config.progress);
    let outcome = eval::sweep::sweep_with(
        &scenario,
        &axis,
        &values,
        &options,
        config.min_effect,
        &|event| progress.on_event(event),
    );
    progress.finish();
    let result = match outcome {
        Ok(result) => result,
        Err(EvalError::Interrupted) => return Ok(Status::Interrupted),
        Err(e) => return Err(e.into()),
    };
    write_outputs(config, &scenario, &result, out)?;
    Ok(Status::Passed)
}

/// The axis and the values swept (given, or the axis' defaults), checked.
fn axis_and_values(config: &SweepConfig) -> Result<(Axis, Vec<AxisValue>), AppError> {
    let axis = Axis::parse(&config.axis).map_err(|e| AppError::Usage(e.to_string()))?;
    let values = if config.values.is_empty() {
        default_values(&axis)
    } else {
        config
            .values
            .iter()
            .map(|v| parse_value(&axis, v))
            .collect()
    }
    .and_then(|values| {
        eval::sweep::check_axis(&axis, &values)?;
        Ok(values)
    })
    .map_err(|e: SweepValuesError| AppError::Usage(e.to_string()))?;
    Ok((axis, values))
}

/// The scenario, settled, if the axis can vary on it; a scripted one is
/// swept with a warning.
fn load_scenario(
    config: &SweepConfig,
    axis: &Axis,
    err: &mut dyn Write,
) -> Result<scenario::Scenario, AppError> {
    let mut scenario = scenario::load(&config.scenario)?;
    if let Some(path) = &config.profile {
        let loaded = super::read_profile(path)?;
        scenario.use_profile(&loaded);
    }
    eval::execute::presets::settle(&mut scenario, true)?;
    if matches!(axis, Axis::Simulate(_))
        && !matches!(scenario.model, scenario::ModelSpec::Simulate(_))
    {
        return Err(AppError::Usage(format!(
            "--axis {axis} varies a simulated-model parameter, but {} is scripted",
            config.scenario.display()
        )));
    }
    if matches!(scenario.model, scenario::ModelSpec::Script(_)) {
        let _ = writeln!(
            err,
            "warning: {} is scripted: its model answers the same whatever the settings' effect on a real model, so the sweep measures the script, not the design",
            config.scenario.display()
        );
    }
    Ok(scenario)
}

/// The table (or, quiet, its last line: the pick and why) on stdout, then
/// the SVG chart, the HTML page and the JSON asked for.
fn write_outputs(
    config: &SweepConfig,
    scenario: &scenario::Scenario,
    result: &eval::sweep::SweepResult,
    out: &mut dyn Write,
) -> Result<(), AppError> {
    let text = table::sweep(result);
    let shown = if config.quiet {
        table::closing_line(&text)
    } else {
        text
    };
    out.write_all(shown.as_bytes()).map_err(AppError::stdout)?;
    let chart = if config.svg.is_some() || config.html.is_some() {
        Some(svg::render(result).map_err(|e| AppError::Usage(e.to_string()))?)
    } else {
        None
    };
    if let (Some(path), Some(chart)) = (&config.svg, &chart) {
        write_atomic(path, chart.as_bytes())?;
    }
    if let (Some(path), Some(chart)) = (&config.html, chart) {
        write_atomic(path, sweep_page(scenario, result, chart).as_bytes())?;
    }
    if let Some(path) = &config.json {
        write_atomic_with(path, &mut |out| json::write_pretty(out, result))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages users read when the values cannot be had, pinned
    /// byte for byte as they were when these checks returned strings.
    #[test]
    fn value_messages_are_the_ones_users_read() {
        let simulate = Axis::parse("simulate.sharpness").unwrap();
        let cases = [
            (
                default_values(&Axis::Todo)
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                "sweep --axis todo needs --values",
            ),
            (
                default_values(&simulate)
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                "sweep --axis simulate.sharpness needs --values",
            ),
            (
                parse_value(&Axis::Placement, " sideways ")
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                "placement is prepend, append or fold, got \"sideways\"",
            ),
            (
                parse_value(&Axis::Todo, "3")
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                "todo values are true or false, got 3",
            ),
        ];
        for (got, text) in cases {
            assert_eq!(got, Err(text.to_string()));
        }
    }
}
