//! The HTML report (`run --html FILE`): one self-contained page a person can
//! open from disk.
//!
//! It is a consumer of two documents the run already produces — the JSON
//! report (see `docs/json-report.md`) and the logged transcripts (one
//! `--log-dir` record per run) — so it never reaches into the engine's
//! types, and `merge` can render it from shards just as `run` does. The page
//! holds no script, no font, no stylesheet link and no image from outside:
//! everything is inline, and folding is done with `<details>`, so it works
//! offline in any browser.

use serde_json::Value;
use std::fmt::Write as _;

use super::table::MetricValues as _;
use crate::metric::{Format, Metric};

/// A sweep chart to embed (the SVG text `sweep --svg` writes).
#[derive(Debug, Clone)]
pub struct Chart {
    pub title: String,
    pub svg: String,
}

/// Everything the page shows.
#[derive(Debug, Clone, Copy)]
pub struct HtmlInput<'a> {
    /// The JSON report document.
    pub report: &'a Value,
    /// Logged runs (the `--log-dir` records), in run order.
    pub runs: &'a [Value],
    pub charts: &'a [Chart],
}

/// Tool output longer than this many characters (or lines) is folded.
const FOLD_CHARS: usize = 400;
const FOLD_LINES: usize = 8;

/// The whole page.
pub fn render(input: HtmlInput<'_>) -> String {
    let mut page = String::with_capacity(64 * 1024);
    let ok = input
        .report
        .get("ok")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    page.push_str("<title>agent-eval report</title>\n<style>\n");
    page.push_str(STYLE);
    page.push_str("</style>\n</head>\n<body>\n");
    let _ = writeln!(
        page,
        "<header><h1>agent-eval report</h1><p class=\"verdict {}\">{}</p></header>",
        if ok { "ok" } else { "fail" },
        if ok {
            "every expectation held"
        } else {
            "an expectation failed or a scenario could not run"
        }
    );
    page.push_str("<nav><ul>");
    for scenario in scenarios(input.report) {
        let name = str_of(scenario, "name");
        let _ = write!(
            page,
            "<li><a href=\"#{}\">{}</a></li>",
            anchor(name),
            esc(name)
        );
    }
    page.push_str("</ul></nav>\n<main>\n");
    errors_section(&mut page, input.report);
    for scenario in scenarios(input.report) {
        scenario_section(&mut page, scenario, input.runs);
    }
    if !input.charts.is_empty() {
        page.push_str("<section><h2>Sweeps</h2>\n");
        for chart in input.charts {
            let _ = writeln!(
                page,
                "<figure><figcaption>{}</figcaption>{}</figure>",
                esc(&chart.title),
                strip_xml_prolog(&chart.svg)
            );
        }
        page.push_str("</section>\n");
    }
    page.push_str("</main>\n</body>\n</html>\n");
    page
}

fn scenarios(report: &Value) -> impl Iterator<Item = &Value> {
    report
        .get("scenarios")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn errors_section(page: &mut String, report: &Value) {
    let Some(errors) = report.get("errors").and_then(Value::as_array) else {
        return;
    };
    if errors.is_empty() {
        return;
    }
    page.push_str("<section class=\"errors\"><h2>Scenarios that could not run</h2><ul>");
    for error in errors {
        let text = match error {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let _ = write!(page, "<li><code>{}</code></li>", esc(&text));
    }
    page.push_str("</ul></section>\n");
}

fn scenario_section(page: &mut String, scenario: &Value, runs: &[Value]) {
    let name = str_of(scenario, "name");
    let _ = writeln!(
        page,
        "<section class=\"scenario\" id=\"{}\"><h2>{}</h2><p class=\"file\">{}</p>",
        anchor(name),
        esc(name),
        esc(str_of(scenario, "file"))
    );
    let cells: Vec<&Value> = scenario
        .get("cells")
        .and_then(Value::as_array)
        .map(|c| c.iter().collect())
        .unwrap_or_default();
    cells_table(page, &cells);
    part_table(page, &cells);
    step_rates(page, &cells);
    comparisons(page, scenario);
    expectations(page, scenario);
    let logged: Vec<&Value> = runs
        .iter()
        .filter(|r| r.get("scenario").and_then(Value::as_str) == Some(name))
        .collect();
    if !logged.is_empty() {
        let _ = writeln!(
            page,
            "<h3>Transcripts ({} logged run{})</h3>",
            logged.len(),
            plural(logged.len())
        );
        for run in logged {
            transcript(page, run);
        }
    }
    page.push_str("</section>\n");
}

/// The settings of a cell as `axis=value` pairs.
fn settings_text(settings: Option<&Value>) -> String {
    match settings.and_then(Value::as_object) {
        Some(map) if !map.is_empty() => map
            .iter()
            .map(|(k, v)| format!("{k}={}", value_text(v)))
            .collect::<Vec<_>>()
            .join(" "),
        _ => "default".to_string(),
    }
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn cells_table(page: &mut String, cells: &[&Value]) {
    if cells.is_empty() {
        return;
    }
    let metrics = super::table::shown(|c| c.html);
    page.push_str("<table class=\"cells\"><thead><tr><th>settings</th><th>runs</th>");
    for (_, column) in &metrics {
        let _ = write!(page, "<th>{}</th>", esc(column.header));
    }
    page.push_str("</tr></thead><tbody>\n");
    for cell in cells {
        let cell = JsonCell(cell);
        let _ = write!(
            page,
            "<tr><td class=\"settings\">{}</td><td>{}</td>",
            esc(&settings_text(cell.0.get("settings"))),
            num(cell.0, "runs"),
        );
        for (metric, column) in &metrics {
            let text = match column.format {
                Format::Bar => bar(cell.value(metric.name)),
                format => super::table::metric_text(metric, format, &cell),
            };
            let _ = write!(page, "<td>{text}</td>");
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</tbody></table>\n");
}

/// A cell of the JSON report, as the metric columns read it (a missing
/// value reads as 0, a missing interval as none).
struct JsonCell<'a>(&'a Value);

impl super::table::MetricValues for JsonCell<'_> {
    fn value(&self, name: &str) -> f64 {
        num(self.0, name)
    }

    fn interval(&self, name: &str) -> Option<[f64; 2]> {
        let key = Metric::named(name)?.interval()?.key;
        let pair = self.0.get(key).and_then(Value::as_array)?;
        let end = |i: usize| pair.get(i).and_then(Value::as_f64).unwrap_or(0.0);
        Some([end(0), end(1)])
    }

    fn steps_total(&self) -> f64 {
        num(self.0, "steps_total")
    }
}

/// Which steps get dropped: each step's completion rate per cell.
/// A session's figures per part and cell, read off the runs' `parts`.
fn part_table(page: &mut String, cells: &[&Value]) {
    let mut rows = String::new();
    for cell in cells {
        let runs: Vec<&Vec<Value>> = cell
            .get("results")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(|run| run.get("parts").and_then(Value::as_array))
                    .collect()
            })
            .unwrap_or_default();
        let parts = runs.iter().map(|p| p.len()).max().unwrap_or(0);
        for part in 0..parts {
            let figures: Vec<&Value> = runs.iter().filter_map(|p| p.get(part)).collect();
            let n = figures.len().max(1) as f64;
            let mean = |f: &dyn Fn(&Value) -> f64| figures.iter().map(|v| f(v)).sum::<f64>() / n;
            let completion = |v: &Value| {
                let total = num(v, "steps_total");
                if total == 0.0 {
                    1.0
                } else {
                    num(v, "steps_completed") / total
                }
            };
            let reminders = |v: &Value| {
                v.get("reminders_at")
                    .and_then(Value::as_array)
                    .map_or(0.0, |r| r.len() as f64)
            };
            let _ = writeln!(
                rows,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.2}</td><td>{:.2}</td></tr>",
                esc(&settings_text(cell.get("settings"))),
                part + 1,
                bar(mean(&completion)),
                percent(mean(&|v| f64::from(u8::from(completion(v) >= 1.0)))),
                mean(&|v| num(v, "turns")),
                mean(&|v| num(v, "todo_calls")),
                mean(&reminders),
            );
        }
    }
    if rows.is_empty() {
        return;
    }
    page.push_str("<h3>Per part</h3>\n<table class=\"parts\"><thead><tr><th>settings</th><th>part</th><th>completion</th><th>full</th><th>turns</th><th>todo calls</th><th>reminders</th></tr></thead><tbody>\n");
    page.push_str(&rows);
    page.push_str("</tbody></table>\n");
}

fn step_rates(page: &mut String, cells: &[&Value]) {
    let with_steps: Vec<(&Value, &Vec<Value>)> = cells
        .iter()
        .filter_map(|c| {
            c.get("step_rates")
                .and_then(Value::as_array)
                .map(|s| (*c, s))
        })
        .collect();
    let Some((_, first)) = with_steps.first() else {
        return;
    };
    page.push_str("<h3>Per-step completion</h3>\n<table class=\"steps\"><thead><tr><th>step</th>");
    for (cell, _) in &with_steps {
        let _ = write!(
            page,
            "<th>{}</th>",
            esc(&settings_text(cell.get("settings")))
        );
    }
    page.push_str("</tr></thead><tbody>\n");
    for (index, step) in first.iter().enumerate() {
        let _ = write!(
            page,
            "<tr><td>#{} {}</td>",
            esc(str_of(step, "id")),
            esc(str_of(step, "text"))
        );
        for (_, steps) in &with_steps {
            let rate = steps.get(index).map(|s| num(s, "rate")).unwrap_or(0.0);
            let _ = write!(page, "<td>{}</td>", bar(rate));
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</tbody></table>\n");
}

fn comparisons(page: &mut String, scenario: &Value) {
    let Some(list) = scenario.get("comparisons").and_then(Value::as_array) else {
        return;
    };
    if list.is_empty() {
        return;
    }
    page.push_str(
        "<h3>Paired comparisons (same seeds)</h3>\n<table class=\"comparisons\"><thead><tr>\
         <th>comparison</th><th>a</th><th>b</th><th>pairs</th><th>completion diff (95% CI)</th>\
         <th>a better / b better</th><th>sign test</th><th>full: only a / only b</th>\
         <th>McNemar</th></tr></thead><tbody>\n",
    );
    for comparison in list {
        let completion = comparison.get("completion").unwrap_or(&Value::Null);
        let full = comparison.get("full_completion").unwrap_or(&Value::Null);
        let ci = completion
            .get("diff_ci95")
            .and_then(Value::as_array)
            .map(|a| {
                format!(
                    " [{:+.3}, {:+.3}]",
                    a.first().and_then(Value::as_f64).unwrap_or(0.0),
                    a.get(1).and_then(Value::as_f64).unwrap_or(0.0)
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:+.3}{}</td><td>{} / {}</td>\
             <td>{}</td><td>{} / {}</td><td>{}</td></tr>",
            esc(str_of(comparison, "what")),
            esc(&settings_text(comparison.get("a"))),
            esc(&settings_text(comparison.get("b"))),
            num(completion, "pairs"),
            num(completion, "mean_diff"),
            ci,
            num(completion, "a_better"),
            num(completion, "b_better"),
            p_text(completion.get("p_value")),
            num(full, "only_a"),
            num(full, "only_b"),
            p_text(full.get("p_value")),
        );
    }
    page.push_str("</tbody></table>\n");
}

fn expectations(page: &mut String, scenario: &Value) {
    let Some(list) = scenario.get("expectations").and_then(Value::as_array) else {
        return;
    };
    if list.is_empty() {
        return;
    }
    page.push_str("<h3>Expectations</h3>\n<ul class=\"expectations\">\n");
    for expectation in list {
        let ok = expectation
            .get("ok")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let measured = expectation
            .get("measured")
            .map(value_text)
            .unwrap_or_default();
        let _ = write!(
            page,
            "<li class=\"{}\"><span class=\"mark\">{}</span> <code>{}</code>: measured <code>{}</code>",
            if ok { "ok" } else { "fail" },
            if ok { "ok" } else { "FAIL" },
            esc(str_of(expectation, "text")),
            esc(&measured)
        );
        if let Some(detail) = expectation.get("detail").and_then(Value::as_str) {
            let _ = write!(page, " <span class=\"detail\">({})</span>", esc(detail));
        }
        if let Some(replays) = expectation.get("replay").and_then(Value::as_array) {
            page.push_str("<ul class=\"replay\">");
            for command in replays.iter().filter_map(Value::as_str) {
                let _ = write!(page, "<li><code>{}</code></li>", esc(command));
            }
            page.push_str("</ul>");
        }
        page.push_str("</li>\n");
    }
    page.push_str("</ul>\n");
}

/// One logged run as a readable conversation with its plan panel.
fn transcript(page: &mut String, run: &Value) {
    let metrics = run.get("metrics").unwrap_or(&Value::Null);
    let _ = writeln!(
        page,
        "<details class=\"run\"><summary>seed {} · {} · steps {}/{} · stop {} · reminders at {}</summary>",
        num(run, "seed"),
        esc(&settings_text(run.get("settings"))),
        num(metrics, "steps_completed"),
        num(metrics, "steps_total"),
        esc(str_of(metrics, "stop")),
        esc(&metrics
            .get("reminders_at")
            .map(Value::to_string)
            .unwrap_or_else(|| "[]".into())),
    );
    if let Some(replay) = run.get("replay").and_then(Value::as_str) {
        let _ = writeln!(page, "<p class=\"replay\"><code>{}</code></p>", esc(replay));
    }
    let plans: Vec<&Value> = run
        .get("plans")
        .and_then(Value::as_array)
        .map(|p| p.iter().collect())
        .unwrap_or_default();
    let messages = run
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let mut turn = 0usize;
    let mut typed = 0usize;
    page.push_str("<ol class=\"conversation\">\n");
    for (index, message) in messages.iter().enumerate() {
        let role = str_of(message, "role");
        // A turn's plans show under its tool results; a turn without any
        // (a plan an agent reported over ACP beside a plain answer) shows
        // them under the answer.
        let results_follow = messages.get(index + 1).is_some_and(|next| {
            str_of(next, "role") == "user" && next.get("content").is_some_and(Value::is_array)
        });
        match message.get("content") {
            Some(Value::String(text)) => {
                typed += 1;
                // The first message is the task; each later one a new user
                // message of the session, marked where it begins.
                let who = match (turn, typed) {
                    (0, _) => "task".to_string(),
                    (_, 1) => esc(role),
                    (_, n) => format!("user message {n} · after turn {turn}"),
                };
                let _ = writeln!(
                    page,
                    "<li class=\"msg {}{}\"><div class=\"who\">{who}</div><pre>{}</pre></li>",
                    esc(role),
                    if typed > 1 { " part-start" } else { "" },
                    esc(text)
                );
            }
            Some(Value::Array(blocks)) => {
                if role == "assistant" {
                    turn += 1;
                }
                let _ = writeln!(
                    page,
                    "<li class=\"msg {}\"><div class=\"who\">{} · turn {turn}</div>",
                    esc(role),
                    esc(role)
                );
                for block in blocks {
                    block_html(page, block);
                }
                if role == "user" || !results_follow {
                    for plan in plans.iter().filter(|p| num(p, "turn") as usize == turn) {
                        plan_panel(page, plan);
                    }
                }
                page.push_str("</li>\n");
            }
            _ => {}
        }
    }
    page.push_str("</ol>\n</details>\n");
}

fn block_html(page: &mut String, block: &Value) {
    match str_of(block, "type") {
        "text" => {
            let text = str_of(block, "text");
            let class = if is_reminder(text) {
                "reminder"
            } else {
                "text"
            };
            let flag = if class == "reminder" { "⚑ " } else { "" };
            let _ = writeln!(page, "<div class=\"{class}\">{flag}{}</div>", esc(text));
        }
        "tool_use" => {
            let input = block.get("input").map(Value::to_string).unwrap_or_default();
            let _ = writeln!(
                page,
                "<div class=\"call\">→ <b>{}</b> <code>{}</code></div>",
                esc(str_of(block, "name")),
                esc(&input)
            );
        }
        "tool_result" => {
            let content = match block.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            let reminder = if is_reminder(&content) {
                " reminder"
            } else {
                ""
            };
            let lines = content.lines().count();
            if content.chars().count() > FOLD_CHARS || lines > FOLD_LINES {
                let first = content.lines().next().unwrap_or("");
                let _ = writeln!(
                    page,
                    "<details class=\"result{reminder}\"><summary>← {} … ({lines} lines)</summary><pre>{}</pre></details>",
                    esc(first),
                    esc(&content)
                );
            } else {
                let _ = writeln!(
                    page,
                    "<div class=\"result{reminder}\">← <pre>{}</pre></div>",
                    esc(&content)
                );
            }
        }
        other => {
            let _ = writeln!(page, "<div class=\"other\">[{}]</div>", esc(other));
        }
    }
}

fn plan_panel(page: &mut String, plan: &Value) {
    let items = plan
        .get("items")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    page.push_str("<div class=\"plan\"><div class=\"who\">plan</div><ul>");
    if items.is_empty() {
        page.push_str("<li class=\"empty\">(empty)</li>");
    }
    for item in items {
        let status = str_of(item, "status");
        let _ = write!(
            page,
            "<li class=\"{}\"><span class=\"status\">{}</span> #{} {}</li>",
            esc(status),
            esc(status),
            esc(str_of(item, "id")),
            esc(str_of(item, "text"))
        );
    }
    page.push_str("</ul></div>\n");
}

fn is_reminder(text: &str) -> bool {
    text.contains("<reminder>") || text.contains("<system-reminder>") || text.contains("REMINDERS")
}

/// A p-value as every report prints it.
fn p_text(p: Option<&Value>) -> String {
    match p.and_then(Value::as_f64) {
        Some(p) => crate::results::summary::p_text(p),
        None => "–".into(),
    }
}

fn bar(rate: f64) -> String {
    let width = (rate.clamp(0.0, 1.0) * 100.0).round();
    format!(
        "<span class=\"bar\"><span style=\"width:{width}%\"></span></span> {}",
        percent(rate)
    )
}

fn percent(rate: f64) -> String {
    format!("{:.0}%", rate * 100.0)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn num(value: &Value, key: &str) -> f64 {
    value.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// An id usable in `href="#..."`.
fn anchor(name: &str) -> String {
    let slug: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("s-{slug}")
}

fn strip_xml_prolog(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(start) => &svg[start..],
        None => "",
    }
}

/// Escapes text for HTML content and attribute values
/// ([`super::escape::html`]).
pub fn esc(text: &str) -> String {
    super::escape::html(text)
}

const STYLE: &str = r#"
:root { --ok: #1a7f37; --fail: #cf222e; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1f2328; }
header { padding: 12px 24px; border-bottom: 1px solid var(--line); background: var(--bg); }
header h1 { margin: 0; font-size: 20px; }
.verdict.ok { color: var(--ok); } .verdict.fail { color: var(--fail); font-weight: 600; }
nav ul { list-style: none; padding: 8px 24px; margin: 0; display: flex; flex-wrap: wrap; gap: 12px; }
main { padding: 0 24px 48px; }
section.scenario { border-top: 1px solid var(--line); margin-top: 24px; }
.file { color: var(--muted); font-family: monospace; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--bg); }
td.settings { font-family: monospace; }
.bar { display: inline-block; width: 80px; height: 10px; background: #eaeef2; vertical-align: middle; }
.bar span { display: block; height: 100%; background: #2f81f7; }
ul.expectations li.ok .mark { color: var(--ok); } ul.expectations li.fail .mark { color: var(--fail); font-weight: 700; }
.detail { color: var(--muted); }
details.run { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 8px; }
details.run > summary { cursor: pointer; font-family: monospace; }
ol.conversation { list-style: none; padding-left: 0; }
.msg { margin: 8px 0; padding: 6px 8px; border-left: 3px solid var(--line); }
.msg.assistant { border-color: #8250df; } .msg.user { border-color: #2f81f7; }
.msg.part-start { border-left-width: 6px; background: #f0f6ff; }
.who { font-size: 12px; color: var(--muted); text-transform: uppercase; }
pre { white-space: pre-wrap; margin: 2px 0; font-size: 13px; }
.call code { background: var(--bg); }
.reminder { background: #fff8c5; border: 1px solid #d4a72c; padding: 2px 6px; }
.result { color: #24292f; }
.plan { background: var(--bg); border: 1px solid var(--line); padding: 4px 8px; margin-top: 6px; }
.plan ul { list-style: none; padding-left: 0; margin: 0; font-family: monospace; }
.plan .status { display: inline-block; min-width: 90px; color: var(--muted); }
.plan li.completed { color: var(--ok); } .plan li.in_progress { font-weight: 700; }
figure { margin: 16px 0; } figure svg { max-width: 100%; height: auto; }
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report() -> Value {
        json!({
            "version": 1, "ok": false,
            "scenarios": [{
                "name": "demo <x>", "file": "scenarios/demo.yaml",
                "cells": [{"settings": {"todo": true, "nag_threshold": 3}, "runs": 2,
                           "steps_total": 2, "completion_rate": 0.75, "completion_ci95": [0.5, 1.0],
                           "full_completion_rate": 0.5, "mean_steps_completed": 1.5,
                           "mean_reminders": 1.0, "mean_rejected_todo_updates": 0.0,
                           "mean_turns": 4.0, "mean_protocol_violations": 1.0,
                           "step_rates": [{"id": "1", "text": "Read", "rate": 1.0},
                                          {"id": "2", "text": "Write", "rate": 0.5}]}],
                "comparisons": [],
                "expectations": [{"text": "steps_completed == 2", "ok": false, "measured": 1,
                                  "replay": ["agent-eval replay scenarios/demo.yaml --seed 1"]}]
            }]
        })
    }

    fn run() -> Value {
        json!({
            "scenario": "demo <x>", "seed": 1, "settings": {"todo": true, "nag_threshold": 3},
            "metrics": {"steps_completed": 1, "steps_total": 2, "stop": "end_turn", "reminders_at": [1]},
            "plans": [{"turn": 1, "items": [{"id": "1", "text": "Read", "status": "in_progress"}]}],
            "messages": [
                {"role": "user", "content": "Do <it>"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1_1", "name": "todo", "input": {"items": []}}]},
                {"role": "user", "content": [{"type": "text", "text": "<reminder>Update your todos.</reminder>"},
                                             {"type": "tool_result", "tool_use_id": "toolu_1_1", "content": "x\n".repeat(20)}]}
            ]
        })
    }

    #[test]
    fn page_is_self_contained_and_escaped() {
        let report = report();
        let runs = [run()];
        let page = render(HtmlInput {
            report: &report,
            runs: &runs,
            charts: &[],
        });
        assert!(page.starts_with("<!DOCTYPE html>"));
        for outside in ["http://", "https://", "<script", "<link", "@import", "src="] {
            assert!(!page.contains(outside), "page refers outside: {outside}");
        }
        assert!(page.contains("demo &lt;x&gt;"));
        assert!(!page.contains("demo <x>"));
        assert!(page.contains("Do &lt;it&gt;"));
        assert!(page.contains("class=\"reminder\""), "reminders are marked");
        assert!(
            page.contains("<details class=\"result\">"),
            "long output is folded"
        );
        assert!(page.contains("Per-step completion"));
        assert!(page.contains("#2 Write"));
        assert!(page.contains("agent-eval replay scenarios/demo.yaml --seed 1"));
        assert!(page.contains("<span class=\"status\">in_progress</span> #1 Read"));
    }

    #[test]
    fn control_characters_are_not_passed_through() {
        assert_eq!(esc("a\u{1b}[31mb"), "a\\u{1b}[31mb");
        assert_eq!(esc("<&>\"'"), "&lt;&amp;&gt;&quot;&#39;");
    }

    #[test]
    fn charts_are_inlined_without_prolog() {
        let report = json!({"ok": true, "scenarios": []});
        let charts = [Chart {
            title: "sweep".into(),
            svg: "<?xml version=\"1.0\"?>\n<svg width=\"1\"></svg>".into(),
        }];
        let page = render(HtmlInput {
            report: &report,
            runs: &[],
            charts: &charts,
        });
        assert!(
            page.contains("<figure><figcaption>sweep</figcaption><svg width=\"1\"></svg></figure>")
        );
        assert!(!page.contains("<?xml"));
    }
}
