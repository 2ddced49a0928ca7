//! The HTML report (`run --html FILE`): one self-contained page a person can
//! open from disk.
//!
//! It is a consumer of two documents the run already produces — the JSON
//! report (see `docs/json-report.md`) and the logged transcripts (one
//! `--log-dir` record per run, or the runs kept as they finish) — so it
//! never reaches into the engine's types, and `merge` can render it from
//! shards just as `run` does. The page loads nothing from outside: its
//! style and its one small script are inline, and a Content-Security-Policy
//! allows only that script (by its hash) and no request at all. The
//! transcripts are stored once, compactly, and built when opened
//! ([`super::html_runs`]); the tables and verdicts are plain HTML that
//! reads without the script. The page opens with a headline
//! ([`super::html_headline`]): the verdict, what won by how much, and a
//! chart, before the first table.

use serde_json::Value;
use std::fmt::Write as _;

use super::html_runs::{Transcripts, settings_text};
use super::table::MetricValues as _;
use crate::metric::{Format, Metric};
use crate::results::format;

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
    /// The runs' transcripts, in run order.
    pub transcripts: &'a Transcripts,
    /// Said above the transcripts when the page does not hold every run's
    /// (which runs it holds, and how to see the others).
    pub transcripts_note: Option<&'a str>,
    pub charts: &'a [Chart],
}

/// The script that lists and builds the transcripts.
const SCRIPT: &str = include_str!("html_runs.js");

/// The whole page.
pub fn render(input: HtmlInput<'_>) -> String {
    let mut page = String::with_capacity(64 * 1024);
    let ok = input
        .report
        .get("ok")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    head(&mut page);
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
    // What won, by how much, before any table.
    super::html_headline::render(&mut page, input.report);
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
        scenario_section(&mut page, scenario, &input);
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
    page.push_str("</main>\n");
    if !input.transcripts.is_empty() {
        let _ = write!(
            page,
            "<script type=\"application/json\" id=\"ae-runs\">{}</script>\n<script>{SCRIPT}</script>\n",
            input.transcripts.embedded()
        );
    }
    page.push_str("</body>\n</html>\n");
    super::escape::drop_bidi_owned(page)
}

/// The page's head: its policy (no request; only [`SCRIPT`], by its hash)
/// and its style.
fn head(page: &mut String) {
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(
        page,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{}'\">",
        script_hash()
    );
    page.push_str("<title>agent-eval report</title>\n<style>\n");
    page.push_str(STYLE);
    page.push_str("</style>\n</head>\n<body>\n");
}

/// The base64 SHA-256 of [`SCRIPT`], which the page's policy allows.
fn script_hash() -> String {
    use sha2::{Digest, Sha256};
    base64(&Sha256::digest(SCRIPT.as_bytes()))
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            *chunk.first().unwrap_or(&0),
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                let index = (n >> (18 - 6 * i)) as usize & 63;
                out.push(char::from(*ALPHABET.get(index).unwrap_or(&b'=')));
            } else {
                out.push('=');
            }
        }
    }
    out
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

fn scenario_section(page: &mut String, scenario: &Value, input: &HtmlInput<'_>) {
    let name = str_of(scenario, "name");
    let _ = writeln!(
        page,
        "<section class=\"scenario\" id=\"{}\"><h2>{}</h2><p class=\"file\">{}</p>",
        anchor(name),
        esc(name),
        esc(str_of(scenario, "file"))
    );
    if let Some(profile) = scenario.get("profile") {
        let _ = writeln!(
            page,
            "<p class=\"profile\">Simulated model under the profile {} (sha256 {})</p>",
            esc(str_of(profile, "file")),
            esc(str_of(profile, "sha256"))
        );
    }
    let cells: Vec<&Value> = scenario
        .get("cells")
        .and_then(Value::as_array)
        .map(|c| c.iter().collect())
        .unwrap_or_default();
    expectations(page, scenario, false);
    cells_table(page, &cells);
    part_table(page, &cells);
    step_rates(page, &cells);
    comparisons(page, scenario);
    expectations(page, scenario, true);
    transcripts(page, name, input);
    page.push_str("</section>\n");
}

/// The scenario's transcripts: a filter and the list the script fills.
fn transcripts(page: &mut String, scenario: &str, input: &HtmlInput<'_>) {
    let Some(index) = input.transcripts.scenario_index(scenario) else {
        return;
    };
    let count = input.transcripts.count_of(scenario);
    let _ = writeln!(
        page,
        "<h3>Transcripts ({} run{})</h3>",
        format::thousands(count as u64),
        plural(count)
    );
    if let Some(note) = input.transcripts_note {
        let _ = writeln!(page, "<p class=\"note\">{}</p>", esc(note));
    }
    let _ = writeln!(
        page,
        "<noscript><p class=\"note\">The transcripts are built by the page's script; allow it, or replay a run with the command a failed expectation names.</p></noscript>\n\
         <div class=\"runs\" data-scenario=\"{index}\" hidden><form class=\"filter\">\
         <label>cell <select name=\"cell\"><option value=\"\">every cell</option></select></label> \
         <label>outcome <select name=\"outcome\"><option value=\"\">every run</option>\
         <option value=\"dropped\">dropped a step</option><option value=\"done\">completed every step</option></select></label> \
         <label>seed <input name=\"seed\" type=\"text\" inputmode=\"numeric\" size=\"6\"></label></form>\
         <p class=\"count\"></p><ol class=\"runs\"></ol><button type=\"button\" class=\"more\" hidden>show more</button></div>"
    );
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

/// A cell's step rates: the cell and its `step_rates`.
type StepRates<'a> = (&'a Value, &'a Vec<Value>);

fn rate_of(steps: &[Value], index: usize) -> f64 {
    steps.get(index).map(|s| num(s, "rate")).unwrap_or(0.0)
}

/// Each step's completion rate per cell: one row per step and a column
/// per cell while the cells are few; one row per cell and a column per
/// step (numbered, the texts in a key below) when the cells outnumber the
/// steps, so a wide matrix grows down the page instead of sideways.
fn step_rates(page: &mut String, cells: &[&Value]) {
    let with_steps: Vec<StepRates<'_>> = cells
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
    page.push_str(
        "<h3>Per-step completion</h3>\n<div class=\"wide\"><table class=\"steps\"><thead><tr>",
    );
    if with_steps.len() <= first.len().max(6) {
        steps_by_step(page, first, &with_steps);
    } else {
        steps_by_cell(page, first, &with_steps);
    }
}

/// A row per step, a column per cell.
fn steps_by_step(page: &mut String, first: &[Value], with_steps: &[StepRates<'_>]) {
    page.push_str("<th>step</th>");
    for (cell, _) in with_steps {
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
        for (_, steps) in with_steps {
            let _ = write!(page, "<td>{}</td>", bar(rate_of(steps, index)));
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</tbody></table></div>\n");
}

/// A row per cell, a numbered column per step, the steps' texts in a key.
fn steps_by_cell(page: &mut String, first: &[Value], with_steps: &[StepRates<'_>]) {
    page.push_str("<th>settings</th>");
    for step in first {
        let _ = write!(
            page,
            "<th title=\"{}\">#{}</th>",
            esc(str_of(step, "text")),
            esc(str_of(step, "id"))
        );
    }
    page.push_str("</tr></thead><tbody>\n");
    for (cell, steps) in with_steps {
        let _ = write!(
            page,
            "<tr><td class=\"settings\">{}</td>",
            esc(&settings_text(cell.get("settings")))
        );
        for index in 0..first.len() {
            let value = rate_of(steps, index);
            let _ = write!(
                page,
                "<td class=\"rate\" style=\"--r:{value:.2}\">{}</td>",
                format::percent(value, 0)
            );
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</tbody></table></div>\n<ol class=\"key\">");
    for step in first {
        let number = str_of(step, "id").parse::<u32>().unwrap_or(0);
        let _ = write!(
            page,
            "<li value=\"{number}\">{}</li>",
            esc(str_of(step, "text"))
        );
    }
    page.push_str("</ol>\n");
}

/// Below this p-value (sign test or McNemar) a comparison differs.
const DIFFERS_BELOW: f64 = 0.05;

/// The paired comparisons: those that differ in a table, the others folded
/// under them.
fn comparisons(page: &mut String, scenario: &Value) {
    let Some(list) = scenario.get("comparisons").and_then(Value::as_array) else {
        return;
    };
    if list.is_empty() {
        return;
    }
    let p_of = |c: &Value, key: &str| {
        c.get(key)
            .and_then(|v| v.get("p_value"))
            .and_then(Value::as_f64)
            .unwrap_or(1.0)
    };
    let (invalid, measured): (Vec<&Value>, Vec<&Value>) =
        list.iter().partition(|c| c.get("invalid").is_some());
    let (differ, alike): (Vec<&Value>, Vec<&Value>) = measured.into_iter().partition(|c| {
        p_of(c, "completion") < DIFFERS_BELOW || p_of(c, "full_completion") < DIFFERS_BELOW
    });
    let _ = writeln!(
        page,
        "<h3>Paired comparisons (same seeds)</h3>\n<p class=\"note\">{} of {} differ (sign test or McNemar p&lt;{DIFFERS_BELOW}). The interval is the mean difference's (bootstrap); the sign test counts the pairs each way, so with few unequal pairs the two can disagree.</p>",
        differ.len(),
        list.len()
    );
    invalid_comparisons(page, &invalid);
    if !differ.is_empty() {
        comparison_table(page, &differ);
    }
    if !alike.is_empty() {
        let _ = writeln!(
            page,
            "<details class=\"alike\"><summary>{} comparison{} that do not differ</summary>",
            alike.len(),
            plural(alike.len())
        );
        comparison_table(page, &alike);
        page.push_str("</details>\n");
    }
}

/// The comparisons with an invalid side: why each measures nothing.
fn invalid_comparisons(page: &mut String, list: &[&Value]) {
    if list.is_empty() {
        return;
    }
    page.push_str("<ul class=\"invalid\">\n");
    for comparison in list {
        let _ = writeln!(
            page,
            "<li><strong>{}: invalid</strong>, {}</li>",
            esc(str_of(comparison, "what")),
            esc(str_of(comparison, "invalid"))
        );
    }
    page.push_str("</ul>\n");
}

fn comparison_table(page: &mut String, list: &[&Value]) {
    page.push_str(
        "<div class=\"wide\"><table class=\"comparisons\"><thead><tr>\
         <th>comparison</th><th>pairs</th><th>completion diff [95% CI]</th>\
         <th>better / worse</th><th>sign test</th><th>full: only a / only b</th>\
         <th>McNemar</th></tr></thead><tbody>\n",
    );
    for comparison in list {
        let completion = comparison.get("completion").unwrap_or(&Value::Null);
        let full = comparison.get("full_completion").unwrap_or(&Value::Null);
        let ci = completion
            .get("diff_ci95")
            .and_then(Value::as_array)
            .map(|a| {
                let end = |i: usize| a.get(i).and_then(Value::as_f64).unwrap_or(0.0);
                format!(" {}", format::points_interval([end(0), end(1)]))
            })
            .unwrap_or_default();
        let _ = writeln!(
            page,
            "<tr title=\"{} vs {}\"><td>{}</td><td>{}</td><td>{}{}</td><td>{} / {}</td>\
             <td>{}</td><td>{} / {}</td><td>{}</td></tr>",
            esc(&settings_text(comparison.get("a"))),
            esc(&settings_text(comparison.get("b"))),
            esc(str_of(comparison, "what")),
            num(completion, "pairs"),
            esc(&format::points(num(completion, "mean_diff"))),
            ci,
            num(completion, "a_better"),
            num(completion, "b_better"),
            p_text(completion.get("p_value")),
            num(full, "only_a"),
            num(full, "only_b"),
            p_text(full.get("p_value")),
        );
    }
    page.push_str("</tbody></table></div>\n");
}

/// The failed expectations (`held` false, at the top of the scenario) or
/// those that held (`held` true, below its tables).
fn expectations(page: &mut String, scenario: &Value, held: bool) {
    let Some(list) = scenario.get("expectations").and_then(Value::as_array) else {
        return;
    };
    let ok_of = |e: &Value| e.get("ok").and_then(Value::as_bool).unwrap_or(false);
    let chosen: Vec<&Value> = list.iter().filter(|e| ok_of(e) == held).collect();
    if chosen.is_empty() {
        return;
    }
    let _ = writeln!(
        page,
        "<h3>{}</h3>\n<ul class=\"expectations\">",
        if held {
            "Expectations that held"
        } else {
            "Failed expectations"
        }
    );
    for expectation in chosen {
        let text = str_of(expectation, "text");
        let (class, mark) = match expectation.get("verdict").and_then(Value::as_str) {
            Some("not_applicable") => ("na", "n/a"),
            _ if held => ("ok", "ok"),
            _ => ("fail", "FAIL"),
        };
        let measured = expectation
            .get("measured")
            .map(|v| format::measured(text, v))
            .unwrap_or_default();
        let _ = write!(
            page,
            "<li class=\"{}\"><span class=\"mark\">{}</span> <code>{}</code>: measured <code>{}</code>",
            class,
            mark,
            esc(text),
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
    format::percent(rate, 0)
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
        Some(start) => svg.get(start..).unwrap_or(""),
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
table.cells td:not(.settings) { white-space: nowrap; }
.bar { display: inline-block; width: 80px; height: 10px; background: #eaeef2; vertical-align: middle; }
.bar span { display: block; height: 100%; background: #2f81f7; }
ul.expectations li.na .mark { color: var(--muted); } ul.expectations li.ok .mark { color: var(--ok); } ul.expectations li.fail .mark { color: var(--fail); font-weight: 700; }
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
section.headline { padding: 8px 24px; border-bottom: 1px solid var(--line); }
section.headline h2 { margin: 4px 0; font-size: 16px; } ul.figures li { margin: 4px 0; }
.wide { max-width: 100%; overflow-x: auto; }
.note { color: var(--muted); max-width: 80ch; }
td.rate { background: rgba(47, 129, 247, calc(var(--r) * 0.35)); text-align: right; font-variant-numeric: tabular-nums; }
ol.key { columns: 2; font-size: 13px; color: var(--muted); max-width: 1100px; }
form.filter { display: flex; gap: 16px; flex-wrap: wrap; align-items: center; margin: 8px 0; }
ol.runs { list-style: none; padding-left: 0; }
details.run.dropped > summary::before { content: "✗ "; color: var(--fail); }
details.run.ok > summary::before { content: "✓ "; color: var(--ok); }
.call pre.input { background: var(--bg); padding: 4px 6px; margin: 2px 0 2px 16px; }
.result .tool { font-size: 12px; color: var(--muted); }
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
        let transcripts = Transcripts::of(&runs);
        let page = render(HtmlInput {
            report: &report,
            transcripts: &transcripts,
            transcripts_note: None,
            charts: &[],
        });
        assert!(page.starts_with("<!DOCTYPE html>"));
        for outside in [
            "http://", "https://", "<link", "@import", "src=", "<img", "<iframe",
        ] {
            assert!(!page.contains(outside), "page refers outside: {outside}");
        }
        // One script, inline, allowed by its hash and nothing else.
        assert_eq!(page.matches("<script>").count(), 1);
        let policy = format!("script-src 'sha256-{}'", script_hash());
        assert!(page.contains(&policy) && page.contains("default-src 'none'"));
        assert!(page.contains("demo &lt;x&gt;"));
        assert!(!page.contains("demo <x>"));
        // A run's text is data inside the JSON element, `<` escaped.
        let data_at = page.find("id=\"ae-runs\">").unwrap();
        let data_end = data_at + page[data_at..].find("</script>").unwrap();
        assert!(page[data_at..data_end].contains("Do \\u003cit>"));
        assert!(page.contains("Per-step completion"));
        assert!(page.contains("#2 Write"));
        assert!(page.contains("agent-eval replay scenarios/demo.yaml --seed 1"));
        assert!(page.contains("<h3>Failed expectations</h3>"));
        assert!(page.contains("Transcripts (1 run)"));
        assert!(page.contains("data-scenario=\"0\""));
    }

    #[test]
    fn the_script_hash_is_base64_sha256() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(script_hash().len(), 44);
    }

    #[test]
    fn many_cells_turn_the_steps_table() {
        let cell = |i: usize| {
            json!({"settings": {"dialect": format!("d{i}")}, "runs": 1,
            "step_rates": [{"id": "1", "text": "Read", "rate": 1.0}, {"id": "2", "text": "Write", "rate": 0.5}]})
        };
        let cells: Vec<Value> = (0..12).map(cell).collect();
        let refs: Vec<&Value> = cells.iter().collect();
        let mut page = String::new();
        step_rates(&mut page, &refs);
        assert_eq!(
            page.matches("<tr>").count(),
            1 + 12,
            "a row per cell: {page}"
        );
        assert!(page.contains("<th title=\"Write\">#2</th>"));
        assert!(page.contains("<li value=\"2\">Write</li>"));
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
            transcripts: &Transcripts::default(),
            transcripts_note: None,
            charts: &charts,
        });
        assert!(
            page.contains("<figure><figcaption>sweep</figcaption><svg width=\"1\"></svg></figure>")
        );
        assert!(!page.contains("<?xml"));
    }
}
