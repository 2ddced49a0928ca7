//! The JSON report of SPEC section 7 (`run --json FILE`).
//!
//! ```json
//! {"version": 1, "ok": true,
//!  "scenarios": [{"name": "...", "file": "...",
//!    "cells": [{"settings": {"todo": true, "nag_threshold": 3}, "runs": 200,
//!               "steps_total": 10, "completion_rate": 0.83, "completion_ci95": [0.8, 0.86],
//!               "full_completion_rate": 0.61, "full_completion_ci95": [...],
//!               "pass_hat_k": {"1": 0.61, "2": 0.37},
//!               "mean_steps_completed": 8.3, "mean_reminders": 1.2,
//!               "mean_rejected_todo_updates": 0.3, "mean_todo_calls": 6.1,
//!               "mean_turns": 25.1, "mean_protocol_violations": 1.2,
//!               "results": [{"seed": 0, "turns": 24, "stop": "end_turn", "steps_completed": 9,
//!                            "steps_total": 10, "reminders_at": [7], "rejected_todo_updates": 0,
//!                            "todo_calls": 6, "protocol_violations": 0}]}],
//!    "comparisons": [{"what": "todo tool (nag 3)", "a": {...}, "b": {...},
//!                     "completion": {"pairs": 200, "mean_diff": 0.47, "diff_ci95": [0.43, 0.51],
//!                                    "a_better": 180, "b_better": 4, "p_value": 0.0},
//!                     "full_completion": {"only_a": 120, "only_b": 6, "p_value": 0.0}}],
//!    "expectations": [{"text": "...", "ok": true, "measured": 2.4, "detail": "..."}]}],
//!  "errors": ["FILE:LINE:COLUMN: message"]}
//! ```
//!
//! `nag_threshold` is a number or `"off"`; numbers are rounded to 6
//! decimals; `errors` lists scenarios that could not be loaded (then `ok`
//! is false). Each scenario also carries `seeds` (the order of its runs)
//! and `expect_spec` (its `expect:` entries) so that [`merge`] can rebuild
//! the report from shards. A shard's report has `"shard": "K/N"`, no
//! expectation outcomes, and `ok` false: it is not a complete report. Keys
//! appear in a fixed order, so equal inputs give equal bytes.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

use crate::eval::run::RunMetrics;
use crate::eval::{CellSummary, ScenarioResult, Shard};
use crate::scenario::{CellSettings, Expectation};

/// The report's format version.
pub const VERSION: u32 = 1;

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report<'a> {
    pub version: u32,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub scenarios: &'a [ScenarioResult],
    pub errors: Vec<String>,
}

impl<'a> Report<'a> {
    pub fn new(scenarios: &'a [ScenarioResult], errors: Vec<String>) -> Self {
        Self {
            version: VERSION,
            ok: errors.is_empty() && scenarios.iter().all(ScenarioResult::ok),
            shard: None,
            scenarios,
            errors,
        }
    }

    /// The report of one shard: never `ok` on its own.
    pub fn for_shard(scenarios: &'a [ScenarioResult], errors: Vec<String>, shard: Shard) -> Self {
        Self {
            ok: false,
            shard: Some(shard.to_string()),
            ..Self::new(scenarios, errors)
        }
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        pretty(self).unwrap_or_else(|e| {
            // Serializing plain data to a string cannot fail; say so if it does.
            format!("{{\"version\": {VERSION}, \"ok\": false, \"errors\": [\"{e}\"]}}\n")
        })
    }
}

/// Pretty JSON with a trailing newline: how every JSON file and stdout
/// document of agent-eval is written.
pub fn pretty(value: &impl Serialize) -> Result<String, serde_json::Error> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}

/// A report read back from a file: only what the results are rebuilt from.
#[derive(Debug, Clone, Deserialize)]
pub struct ReportFile {
    pub version: u32,
    #[serde(default)]
    pub shard: Option<String>,
    pub scenarios: Vec<ScenarioFile>,
    #[serde(default)]
    pub errors: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ScenarioFile {
    pub name: String,
    pub file: String,
    pub seeds: Vec<u64>,
    pub cells: Vec<CellFile>,
    #[serde(default)]
    pub expect_spec: Vec<Expectation>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CellFile {
    pub settings: CellSettings,
    pub steps_total: usize,
    pub results: Vec<RunMetrics>,
    /// The aggregates as written (a baseline is compared on these).
    pub completion_rate: Option<f64>,
    pub full_completion_rate: Option<f64>,
    /// The per-step rates as written (their ids and texts label the
    /// rebuilt ones).
    #[serde(default)]
    pub step_rates: Vec<crate::eval::summary::StepRate>,
}

/// Why a report file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ReportFileError {
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("cannot merge: {0}")]
    Mismatch(String),
}

impl ReportFile {
    pub fn read(path: &Path) -> Result<Self, ReportFileError> {
        let invalid = |message: String| ReportFileError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| invalid(format!("cannot read: {e}")))?;
        let report: Self = serde_json::from_str(&text)
            .map_err(|e| invalid(format!("not an agent-eval JSON report: {e}")))?;
        if report.version != VERSION {
            return Err(invalid(format!(
                "report version {} (this agent-eval reads version {VERSION})",
                report.version
            )));
        }
        Ok(report)
    }

    /// Each cell's completion and full-completion rates as the file states
    /// them (computed from the runs where a file lacks them).
    pub fn rates(&self) -> Vec<crate::report::baseline::CellRates> {
        self.scenarios
            .iter()
            .flat_map(|s| {
                s.cells.iter().map(|c| {
                    let computed =
                        || CellSummary::new(c.settings.clone(), c.steps_total, c.results.clone());
                    let (completion, full) = match (c.completion_rate, c.full_completion_rate) {
                        (Some(a), Some(b)) => (a, b),
                        _ => {
                            let cell = computed();
                            (cell.completion_rate, cell.full_completion_rate)
                        }
                    };
                    crate::report::baseline::CellRates {
                        scenario: s.name.clone(),
                        settings: c.settings.clone(),
                        completion,
                        full_completion: full,
                    }
                })
            })
            .collect()
    }

    /// Rebuilds full results (expectations checked) from the runs stored.
    pub fn into_results(self) -> Vec<ScenarioResult> {
        self.scenarios
            .into_iter()
            .map(|s| {
                let cells = s
                    .cells
                    .into_iter()
                    .map(|c| {
                        let labels: Vec<crate::eval::summary::StepLabel> = c
                            .step_rates
                            .iter()
                            .map(|s| crate::eval::summary::StepLabel {
                                id: s.id.clone(),
                                text: s.text.clone(),
                            })
                            .collect();
                        CellSummary::new(c.settings, c.steps_total, c.results).with_steps(&labels)
                    })
                    .collect();
                ScenarioResult::build(s.name, s.file, s.seeds, cells, s.expect_spec, true)
            })
            .collect()
    }
}

/// Combines shard reports into the report one unsharded run gives: every
/// shard of the same split must be there exactly once, over the same
/// scenarios and cells; runs are put back in seed order.
pub fn merge(
    mut parts: Vec<ReportFile>,
) -> Result<(Vec<ScenarioResult>, Vec<String>), ReportFileError> {
    let mismatch = |m: String| ReportFileError::Mismatch(m);
    let Some(first) = parts.first() else {
        return Err(mismatch("no report given".into()));
    };
    let shards: Vec<Option<Shard>> = parts
        .iter()
        .map(|p| p.shard.as_deref().map(Shard::parse).transpose())
        .collect::<Result<_, _>>()
        .map_err(mismatch)?;
    let count = shards.first().copied().flatten().map_or(1, |s| s.count);
    let mut seen = vec![false; count];
    for shard in &shards {
        let Some(shard) = shard else {
            return Err(mismatch(
                "a report given is not a shard (it has no `shard` key)".into(),
            ));
        };
        if shard.count != count {
            return Err(mismatch(format!(
                "shards of different splits (/{count} and /{})",
                shard.count
            )));
        }
        if std::mem::replace(&mut seen[shard.index - 1], true) {
            return Err(mismatch(format!("shard {shard} is given twice")));
        }
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        return Err(mismatch(format!(
            "shard {}/{count} is missing",
            missing + 1
        )));
    }
    let mut errors: Vec<String> = Vec::new();
    for part in &parts {
        for e in &part.errors {
            if !errors.contains(e) {
                errors.push(e.clone());
            }
        }
    }
    let shape = |r: &ReportFile| -> Vec<(String, String, Vec<CellSettings>)> {
        r.scenarios
            .iter()
            .map(|s| {
                (
                    s.name.clone(),
                    s.file.clone(),
                    s.cells.iter().map(|c| c.settings.clone()).collect(),
                )
            })
            .collect()
    };
    let expected_shape = shape(first);
    if parts.iter().any(|p| shape(p) != expected_shape) {
        return Err(mismatch(
            "the shards cover different scenarios or cells".into(),
        ));
    }
    let mut merged = parts.remove(0);
    for part in parts {
        for (into, from) in merged.scenarios.iter_mut().zip(part.scenarios) {
            for (cell, other) in into.cells.iter_mut().zip(from.cells) {
                cell.results.extend(other.results);
                // A shard without runs of a cell has no step labels for it.
                if cell.step_rates.is_empty() {
                    cell.step_rates = other.step_rates;
                }
            }
        }
    }
    for scenario in &mut merged.scenarios {
        let order = |seed: u64| {
            scenario
                .seeds
                .iter()
                .position(|s| *s == seed)
                .unwrap_or(usize::MAX)
        };
        for cell in &mut scenario.cells {
            cell.results.sort_by_key(|r| order(r.seed));
        }
    }
    merged.shard = None;
    Ok((merged.into_results(), errors))
}
