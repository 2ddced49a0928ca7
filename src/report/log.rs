//! Run log records (`run --log-dir DIR`, and the transcripts of the HTML
//! page): one JSON object per run, written as one line of
//! `DIR/<scenario>.jsonl` in run order.
//!
//! A record is the `replay --format json` object (`messages`, `metrics`,
//! `violations`) plus what names the run — `scenario`, `file`, `settings`,
//! `seed` and `replay`, the exact command that shows it again — and
//! `plans`: the plan after each turn where it changed, read through the
//! run's planning dialect (so every dialect's plan reads the same way).
//! This module also builds the `replay` commands failing expectations name.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::llm::{Content, ContentBlock, Role};
use crate::plan::dialect::PlanItem;
use crate::results::{RunRecord, RunResult};
use crate::sandbox::workspace::redact;
use crate::scenario::cells::Cell;
use crate::scenario::{
    Axis, AxisValue, CellSettings, Expectation, ReminderSpec, Scenario, StopKind,
};

/// The plan after `turn` (1-based), when that turn changed it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanAt {
    pub turn: usize,
    pub items: Vec<PlanItem>,
}

/// One run's log record.
pub fn record(scenario: &Scenario, settings: &CellSettings, run: &RunRecord) -> Value {
    #[derive(Serialize)]
    struct Violation<'a> {
        turn: usize,
        rule: &'a str,
    }
    #[derive(Serialize)]
    struct Record<'a> {
        scenario: &'a str,
        file: String,
        settings: &'a CellSettings,
        seed: u64,
        replay: String,
        metrics: &'a RunResult,
        plans: Vec<PlanAt>,
        violations: Vec<Violation<'a>>,
        messages: &'a [crate::llm::Message],
        #[serde(skip_serializing_if = "Option::is_none")]
        agent_log_tail: Option<&'a str>,
    }
    let value = serde_json::to_value(Record {
        scenario: &scenario.name,
        file: scenario.file.display().to_string(),
        settings,
        seed: run.result.seed,
        replay: replay_command(scenario, settings, run.result.seed),
        metrics: &run.result,
        plans: plans(run),
        violations: run
            .violations
            .iter()
            .map(|v| Violation {
                turn: v.turn,
                rule: &v.rule,
            })
            .collect(),
        messages: &run.messages,
        agent_log_tail: failed_agent_tail(run),
    });
    // Plain data always serializes; an error would only drop the record.
    let mut value = value.unwrap_or(Value::Null);
    without_workspace_paths(&mut value);
    value
}

/// Every string in `value` with the run's workspace folder written as
/// `<workspace>` (see [`crate::sandbox::workspace::redact`]), so a log
/// reads the same on every machine and every time.
fn without_workspace_paths(value: &mut Value) {
    match value {
        Value::String(text) => {
            if let Cow::Owned(redacted) = redact::workspace_paths(text) {
                *text = redacted;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(without_workspace_paths),
        Value::Object(fields) => fields.values_mut().for_each(without_workspace_paths),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// How much of an outside agent's output a failed run's record keeps.
pub const AGENT_LOG_TAIL: usize = 4000;

/// The end of an outside agent's stdout and stderr when its run failed
/// (it exited or was cut off while the model still had work, or the model
/// failed): what it said last is why. Runs that ended well keep none (a
/// CLI's chatter is not part of the measurement).
fn failed_agent_tail(run: &RunRecord) -> Option<&str> {
    let failed = matches!(
        run.result.stop,
        StopKind::AgentExit | StopKind::Timeout | StopKind::ModelError
    );
    let log = run.agent_log.as_deref().filter(|_| failed)?;
    let mut start = log.len().saturating_sub(AGENT_LOG_TAIL);
    while !log.is_char_boundary(start) {
        start += 1;
    }
    log.get(start..)
}

/// The record as one line of a `.jsonl` file (newline included).
pub fn line(record: &Value) -> String {
    let mut text = record.to_string();
    text.push('\n');
    text
}

/// The log file of a scenario: its name with anything but letters, digits,
/// `-`, `_` and `.` replaced by `_`, then `.jsonl`.
pub fn file_name(scenario: &str) -> String {
    let stem = crate::input::file_stem(scenario);
    format!("{}.jsonl", if stem.is_empty() { "scenario" } else { &stem })
}

/// The plan after each turn where it changed, read through the dialect:
/// an accepted planning call's echoed plan, else the plan the call set.
/// An agent that reported its plans over ACP: those, each after the turn
/// it came.
pub fn plans(run: &RunRecord) -> Vec<PlanAt> {
    // The plans an agent told over ACP are its own account of them.
    if !run.result.agent_plans.is_empty() {
        return run
            .result
            .agent_plans
            .iter()
            .map(|plan| PlanAt {
                turn: plan.turn,
                items: plan.items(),
            })
            .collect();
    }
    let dialect = run.dialect.get();
    let mut out: Vec<PlanAt> = Vec::new();
    if !run.planning_offered {
        return out;
    }
    let mut turn = 0;
    let mut plan: Vec<PlanItem> = Vec::new();
    let mut calls: Vec<(&str, &str, &Value)> = Vec::new();
    for message in &run.messages {
        match (&message.role, &message.content) {
            (Role::Assistant, _) => {
                turn += 1;
                calls = message
                    .content_blocks()
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::ToolUse { id, name, input } => {
                            Some((id.as_str(), name.as_str(), &**input))
                        }
                        _ => None,
                    })
                    .collect();
            }
            (Role::User, Content::Blocks(blocks)) => {
                let before = plan.clone();
                for block in blocks {
                    let ContentBlock::ToolResult {
                        tool_use_id,
                        content,
                        ..
                    } = block
                    else {
                        continue;
                    };
                    let Some((_, name, input)) = calls.iter().find(|(id, _, _)| id == tool_use_id)
                    else {
                        continue;
                    };
                    if !dialect.is_planning_tool(name) || dialect.is_error(content) {
                        continue;
                    }
                    if let Some(items) = dialect
                        .plan_from_result(content)
                        .or_else(|| dialect.plan_from_call(&plan, name, input))
                    {
                        plan = items;
                    }
                }
                if plan != before {
                    out.push(PlanAt {
                        turn,
                        items: plan.clone(),
                    });
                }
            }
            (Role::User, Content::Text(_)) => {}
        }
    }
    out
}

/// The exact `agent-eval replay` command that shows the run of the cell
/// with `settings` and `seed` (named flags where `replay` has them,
/// `--set AXIS=VALUE` for the other axes).
pub fn replay_command(scenario: &Scenario, settings: &CellSettings, seed: u64) -> String {
    let default_todo = Cell::of_agent(scenario).loop_settings.todo;
    let mut args: Vec<String> = vec![
        "agent-eval".into(),
        "replay".into(),
        scenario.file.display().to_string(),
        "--seed".into(),
        seed.to_string(),
    ];
    // An external agent (the scenario's or `run --agent`'s) runs again
    // under `replay --agent`.
    if let Some(agent) = &scenario.agent.external {
        args.extend(["--agent".to_string(), agent.command.clone()]);
    }
    if let Some(preset) = scenario.agent.preset {
        args.extend(["--agent".to_string(), preset.to_string()]);
    }
    for (axis, value) in settings.entries() {
        match (axis, value) {
            // A preset's reminder is its own: nothing to set.
            (Axis::Reminder, _) if scenario.agent.preset.is_some() => {}
            (Axis::Todo, AxisValue::Bool(todo)) if *todo == default_todo => {}
            (Axis::Todo, AxisValue::Bool(false)) => args.push("--no-todo".into()),
            (Axis::Dialect, AxisValue::Dialect(d)) => {
                args.extend(["--dialect".to_string(), d.to_string()]);
            }
            (Axis::NagThreshold, AxisValue::Threshold(t)) => {
                args.extend(["--threshold".to_string(), t.to_string()]);
            }
            (Axis::Reminder, AxisValue::Reminder(r))
                if ReminderSpec::from_value(&Value::String(r.to_string())).ok() == Some(*r) =>
            {
                args.extend(["--reminder".to_string(), r.to_string()]);
            }
            _ => {
                let shown = match serde_json::to_value(value) {
                    Ok(Value::String(s)) => s,
                    Ok(other) => other.to_string(),
                    Err(_) => value.to_string(),
                };
                args.extend(["--set".to_string(), format!("{}={shown}", axis.name())]);
            }
        }
    }
    args.iter()
        .map(|a| shell_quote(a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `arg` as a shell reads it back unchanged, on one line: plain, in
/// single quotes, or, when it holds a line break or another character a
/// report would escape or drop (a control, a bidirectional control), as
/// `$'...'` with those characters written as escapes (bash, zsh, ksh,
/// busybox sh and POSIX.1-2024 read it), so the printed command, escaped
/// for a terminal or put in a Markdown code span, still runs as it was.
fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:=,@+%".contains(c));
    let unprintable =
        |c: char| c.is_control() || super::escape::is_bidi_control(c) || is_invisible_format(c);
    if plain {
        arg.to_string()
    } else if arg.chars().any(unprintable) {
        use std::fmt::Write;
        let mut quoted = String::from("$'");
        for c in arg.chars() {
            let _ = match c {
                '\\' => write!(quoted, "\\\\"),
                '\'' => write!(quoted, "\\'"),
                '\n' => write!(quoted, "\\n"),
                '\t' => write!(quoted, "\\t"),
                '\r' => write!(quoted, "\\r"),
                c if unprintable(c) && c.is_ascii() => write!(quoted, "\\x{:02x}", c as u32),
                c if unprintable(c) && (c as u32) <= 0xffff => {
                    write!(quoted, "\\u{:04x}", c as u32)
                }
                c if unprintable(c) => write!(quoted, "\\U{:08x}", c as u32),
                c => write!(quoted, "{c}"),
            };
        }
        quoted.push('\'');
        quoted
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The zero-width and other invisible formatting characters a terminal
/// view escapes (see `super::terminal`).
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// How many runs a failing expectation names.
pub const REPLAYS_PER_EXPECTATION: usize = 3;

/// The runs that show why `expectation` failed, worst first, at most
/// [`REPLAYS_PER_EXPECTATION`], as their cells' settings and seeds: for an
/// exact expectation, the runs whose value differs; otherwise the runs of
/// the selected cells (side `a` of a comparison) worst on the metric: for a
/// metric where higher is better (the completion measures), the runs that
/// completed the smallest share of steps; otherwise the runs with the
/// highest value of it (the first runs when they are all alike). Runs are
/// looked at one at a time (records read back from where they are kept),
/// and only the worst few are held.
pub fn failing_runs<'a>(
    expectation: &Expectation,
    cells: &'a [crate::results::CellSummary],
) -> Vec<(&'a CellSettings, u64)> {
    let (selector, metric) = match expectation {
        Expectation::Exact(exact) => {
            let expected = exact.expected();
            return cells
                .iter()
                .flat_map(|c| {
                    c.results
                        .records()
                        .map_while(Result::ok)
                        .map(move |r| (&c.settings, r))
                })
                .filter(|(_, r)| crate::results::verdict::exact_measure(exact, r) != expected)
                .map(|(settings, r)| (settings, r.seed))
                .take(REPLAYS_PER_EXPECTATION)
                .collect();
        }
        Expectation::Bound {
            selector, metric, ..
        } => (selector, *metric),
        Expectation::Compare { a, comparison, .. } => (a, comparison.metric()),
        // The runs worst on the whole session show the part too.
        Expectation::Part { expectation, .. } => return failing_runs(expectation, cells),
    };
    let selected = cells.iter().filter(|c| selector.matches(&c.settings));
    let mut worst = Worst::default();
    if metric.higher_is_better {
        // Read from the runs' rows, which every cell holds.
        for c in selected {
            for r in &c.results {
                worst.offer(1.0 - r.completion(), &c.settings, r.seed);
            }
        }
    } else {
        for c in selected {
            for r in c.results.records().map_while(Result::ok) {
                let badness = crate::results::metric_values::per_run(metric.per_run, &r);
                worst.offer(badness, &c.settings, r.seed);
            }
        }
    }
    worst
        .runs
        .into_iter()
        .map(|(_, settings, seed)| (settings, seed))
        .collect()
}

/// The worst runs offered so far, worst first; equally bad runs stay in
/// the order offered (when every run is as bad, the first ones show it).
#[derive(Default)]
struct Worst<'a> {
    runs: Vec<(f64, &'a CellSettings, u64)>,
}

impl<'a> Worst<'a> {
    fn offer(&mut self, badness: f64, settings: &'a CellSettings, seed: u64) {
        let at = self
            .runs
            .iter()
            .position(|(b, _, _)| b.total_cmp(&badness).is_lt())
            .unwrap_or(self.runs.len());
        if at < REPLAYS_PER_EXPECTATION {
            self.runs.insert(at, (badness, settings, seed));
            self.runs.truncate(REPLAYS_PER_EXPECTATION);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failing_runs_are_the_worst_first_and_at_most_three() {
        use crate::scenario::{Axis, AxisValue, Bound, CellSelector, Metric};
        let settings = CellSettings::new(vec![(Axis::Todo, AxisValue::Bool(true))]);
        let cells = [crate::results::summary::test_cell(
            settings,
            10,
            &[10, 4, 10, 7, 2, 9],
            0,
        )];
        let expectation = Expectation::Bound {
            selector: CellSelector::default(),
            metric: Metric::named("completion_rate").unwrap(),
            bound: Bound {
                at_least: Some(0.99),
                at_most: None,
            },
        };
        let seeds: Vec<u64> = failing_runs(&expectation, &cells)
            .iter()
            .map(|(_, seed)| *seed)
            .collect();
        assert_eq!(seeds, [4, 1, 3]);
        // A selector that matches no cell names no run.
        let elsewhere = Expectation::Bound {
            selector: CellSelector::new(vec![(Axis::Todo, AxisValue::Bool(false))]),
            metric: Metric::named("completion_rate").unwrap(),
            bound: Bound {
                at_least: Some(0.99),
                at_most: None,
            },
        };
        assert!(failing_runs(&elsewhere, &cells).is_empty());
    }

    #[test]
    fn file_names_stay_in_the_folder() {
        assert_eq!(file_name("ten-step refactor"), "ten-step_refactor.jsonl");
        assert_eq!(file_name("../x/y"), "_x_y.jsonl");
        assert_eq!(file_name(""), "scenario.jsonl");
        assert_eq!(file_name(".."), "scenario.jsonl");
    }

    #[test]
    fn arguments_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("scenarios/a.yaml"), "scenarios/a.yaml");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(
            shell_quote(r#"reminder={"policy":"interval","every":4}"#),
            r#"'reminder={"policy":"interval","every":4}'"#
        );
    }

    /// A multi-line `--agent` (or any argument with a control) is quoted
    /// on one line, with no character a report escapes or drops, and a
    /// shell reads it back exactly.
    #[test]
    fn line_breaks_and_controls_are_quoted_on_one_line() {
        let args = [
            "cat <<'EOF' > a.txt\nline 'two'\tx\\y\nEOF\n",
            "a\u{1b}[31mred\u{202e}b\u{200b}c\u{7f}",
        ];
        for arg in args {
            let quoted = shell_quote(arg);
            assert!(quoted.starts_with("$'"), "{quoted}");
            assert!(
                quoted.chars().all(|c| !c.is_control()
                    && !crate::report::escape::is_bidi_control(c)
                    && !is_invisible_format(c)),
                "{quoted:?}"
            );
            assert_eq!(crate::report::terminal::escape(&quoted), quoted);
            let Ok(out) = std::process::Command::new("bash")
                .arg("-c")
                .arg(format!("printf %s {quoted}"))
                .output()
            else {
                continue;
            };
            assert_eq!(String::from_utf8_lossy(&out.stdout), arg, "{quoted}");
        }
    }
}
