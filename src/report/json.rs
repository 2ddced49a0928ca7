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
//!    "expectations": [{"text": "...", "ok": true, "measured": 2.4, "detail": "..."}]}],
//!  "errors": ["FILE:LINE:COLUMN: message"]}
//! ```
//!
//! `nag_threshold` is a number or `"off"`; numbers are rounded to 6
//! decimals; `errors` lists scenarios that could not be loaded (then `ok`
//! is false). Keys appear in a fixed order, so equal inputs give equal bytes.

use serde::Serialize;

use crate::eval::ScenarioResult;

/// The report's format version.
pub const VERSION: u32 = 1;

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report<'a> {
    pub version: u32,
    pub ok: bool,
    pub scenarios: &'a [ScenarioResult],
    pub errors: Vec<String>,
}

impl<'a> Report<'a> {
    pub fn new(scenarios: &'a [ScenarioResult], errors: Vec<String>) -> Self {
        Self {
            version: VERSION,
            ok: errors.is_empty() && scenarios.iter().all(ScenarioResult::ok),
            scenarios,
            errors,
        }
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|e| {
            // Serializing plain data to a string cannot fail; say so if it does.
            format!("{{\"version\": {VERSION}, \"ok\": false, \"errors\": [\"{e}\"]}}")
        });
        text.push('\n');
        text
    }
}
