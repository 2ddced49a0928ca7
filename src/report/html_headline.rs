//! The headline the HTML report opens with, before any table: the
//! verdict (scenarios and expectations counted, each failed expectation
//! named), then per scenario of several cells the few figures that carry
//! it — which cell won and its completion with its interval, the lowest
//! cell beside it, and the largest paired difference that holds, with its
//! interval and p — and a chart of the same: per scenario the winning and
//! the lowest cell's completion, each with its 95% interval. Read from the
//! JSON report ([`super::html`] renders the rest of the page), so `run` and
//! `merge` open their pages alike.

use serde_json::Value;
use std::fmt::Write as _;

use super::escape::html as esc;
use super::html_runs::settings_text;
use crate::results::format;

/// A p-value below which a comparison differs (as in the tables).
const DIFFERS_BELOW: f64 = 0.05;

/// A cell as the headline shows it: its settings, completion and interval.
struct CellFigure {
    settings: String,
    rate: f64,
    ci: Option<[f64; 2]>,
}

/// What carries one scenario: its best and lowest cell and its largest
/// paired difference that holds.
struct ScenarioHeadline {
    name: String,
    best: CellFigure,
    lowest: CellFigure,
    /// What, mean difference, interval, p.
    largest: Option<(String, f64, [f64; 2], f64)>,
}

/// The headline section: the verdict, the figures and the chart.
pub(super) fn render(page: &mut String, report: &Value) {
    let scenarios: Vec<&Value> = report
        .get("scenarios")
        .and_then(Value::as_array)
        .map(|s| s.iter().collect())
        .unwrap_or_default();
    page.push_str("<section class=\"headline\" id=\"headline\"><h2>Headline</h2>\n");
    verdict(page, &scenarios);
    let headlines: Vec<ScenarioHeadline> = scenarios.iter().filter_map(|s| of(s)).collect();
    if !headlines.is_empty() {
        page.push_str("<ul class=\"figures\">\n");
        for h in &headlines {
            figures(page, h);
        }
        page.push_str("</ul>\n");
        page.push_str(&chart(&headlines));
    }
    page.push_str("</section>\n");
}

/// Scenarios and expectations counted, and each failed one named.
fn verdict(page: &mut String, scenarios: &[&Value]) {
    let expectations: Vec<(&str, &Value)> = scenarios
        .iter()
        .flat_map(|s| {
            let name = s.get("name").and_then(Value::as_str).unwrap_or("");
            s.get("expectations")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(move |e| (name, e))
        })
        .collect();
    let failed: Vec<&(&str, &Value)> = expectations
        .iter()
        .filter(|(_, e)| e.get("ok").and_then(Value::as_bool) == Some(false))
        .collect();
    let counted = format!(
        "{} scenario{}, {} expectation{}",
        scenarios.len(),
        plural(scenarios.len()),
        expectations.len(),
        plural(expectations.len())
    );
    if failed.is_empty() {
        let _ = writeln!(page, "<p class=\"verdict ok\">{counted}: all held</p>");
        return;
    }
    let _ = writeln!(
        page,
        "<p class=\"verdict fail\">{counted}: {} failed</p>\n<ul class=\"failed\">",
        failed.len()
    );
    for (scenario, e) in failed {
        let text = e.get("text").and_then(Value::as_str).unwrap_or("");
        let _ = writeln!(
            page,
            "<li><b>{}</b>: <code>{}</code></li>",
            esc(scenario),
            esc(text)
        );
    }
    page.push_str("</ul>\n");
}

/// The headline of a scenario of two cells or more.
fn of(scenario: &Value) -> Option<ScenarioHeadline> {
    let cells = scenario.get("cells").and_then(Value::as_array)?;
    if cells.len() < 2 {
        return None;
    }
    let figure = |cell: &Value| CellFigure {
        settings: settings_text(cell.get("settings")),
        rate: rate(cell),
        ci: interval(cell.get("completion_ci95")),
    };
    // The first of equals wins: the order the scenario lists its cells.
    let best = cells
        .iter()
        .reduce(|a, b| if rate(b) > rate(a) { b } else { a })?;
    let lowest = cells
        .iter()
        .reduce(|a, b| if rate(b) < rate(a) { b } else { a })?;
    Some(ScenarioHeadline {
        name: scenario
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        best: figure(best),
        lowest: figure(lowest),
        largest: largest_difference(scenario),
    })
}

/// The measured comparison with the largest completion difference whose
/// sign test says it holds.
fn largest_difference(scenario: &Value) -> Option<(String, f64, [f64; 2], f64)> {
    scenario
        .get("comparisons")
        .and_then(Value::as_array)?
        .iter()
        .filter(|c| c.get("invalid").is_none())
        .filter_map(|c| {
            let completion = c.get("completion")?;
            let diff = completion.get("mean_diff").and_then(Value::as_f64)?;
            let p = completion.get("p_value").and_then(Value::as_f64)?;
            let ci = interval(completion.get("diff_ci95"))?;
            let what = c.get("what").and_then(Value::as_str).unwrap_or("");
            (p < DIFFERS_BELOW).then(|| (what.to_string(), diff, ci, p))
        })
        .reduce(|a, b| if b.1.abs() > a.1.abs() { b } else { a })
}

/// One scenario's line of figures.
fn figures(page: &mut String, h: &ScenarioHeadline) {
    let _ = write!(
        page,
        "<li><b>{}</b>: best <code>{}</code> at {}; lowest <code>{}</code> at {}",
        esc(&h.name),
        esc(&h.best.settings),
        rate_text(&h.best),
        esc(&h.lowest.settings),
        rate_text(&h.lowest)
    );
    match &h.largest {
        Some((what, diff, ci, p)) => {
            let _ = write!(
                page,
                "; largest difference: {} {} {} ({})",
                esc(what),
                format::points(*diff),
                format::points_interval(*ci),
                esc(&format::p_text(*p))
            );
        }
        None => page.push_str("; no paired comparison differs (p&lt;0.05)"),
    }
    page.push_str("</li>\n");
}

/// `90.0% completion [81.7, 98.3]`.
fn rate_text(cell: &CellFigure) -> String {
    let ci = cell.ci.map_or(String::new(), |[lo, hi]| {
        format!(" [{:.1}, {:.1}]", lo * 100.0, hi * 100.0)
    });
    format!("{} completion{ci}", format::percent(cell.rate, 1))
}

/// Row height, label width and bar width of the chart, in pixels.
const ROW: usize = 22;
const LABEL: usize = 220;
const BARS: usize = 400;

/// Per scenario two bars: the best cell's completion (green) and the
/// lowest's (grey), each with its interval as a whisker.
fn chart(headlines: &[ScenarioHeadline]) -> String {
    let rows = headlines.len() * 2;
    let height = rows * ROW + 30;
    let width = LABEL + BARS + 70;
    let mut svg = format!(
        "<figure class=\"headline-chart\"><figcaption>Completion of each scenario's best (green) and lowest (grey) cell, with 95% intervals</figcaption>\
         <svg width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\">\n"
    );
    let x = |rate: f64| LABEL as f64 + rate.clamp(0.0, 1.0) * BARS as f64;
    for (index, h) in headlines.iter().enumerate() {
        for (offset, cell, colour) in [(0, &h.best, "#1a7f37"), (1, &h.lowest, "#8c959f")] {
            let y = (index * 2 + offset) * ROW + 4;
            if offset == 0 {
                let _ = writeln!(
                    svg,
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"12\">{}</text>",
                    LABEL - 6,
                    y + 14,
                    esc(&h.name)
                );
            }
            let _ = writeln!(
                svg,
                "<rect x=\"{LABEL}\" y=\"{y}\" width=\"{:.1}\" height=\"{}\" fill=\"{colour}\"><title>{}: {}</title></rect>",
                x(cell.rate) - LABEL as f64,
                ROW - 8,
                esc(&cell.settings),
                rate_text(cell)
            );
            if let Some([lo, hi]) = cell.ci {
                let mid = y + (ROW - 8) / 2;
                let _ = writeln!(
                    svg,
                    "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{mid}\" y2=\"{mid}\" stroke=\"#1f2328\"/>",
                    x(lo),
                    x(hi)
                );
            }
            let _ = writeln!(
                svg,
                "<text x=\"{:.1}\" y=\"{}\" font-size=\"11\">{}</text>",
                x(cell.rate.max(cell.ci.map_or(0.0, |[_, hi]| hi))) + 4.0,
                y + 12,
                format::percent(cell.rate, 0)
            );
        }
    }
    let axis_y = rows * ROW + 8;
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{}</text>",
            x(tick),
            axis_y + 12,
            format::percent(tick, 0)
        );
    }
    svg.push_str("</svg></figure>\n");
    svg
}

fn rate(cell: &Value) -> f64 {
    cell.get("completion_rate")
        .and_then(Value::as_f64)
        .unwrap_or(0.0)
}

fn interval(value: Option<&Value>) -> Option<[f64; 2]> {
    let pair = value?.as_array()?;
    Some([pair.first()?.as_f64()?, pair.get(1)?.as_f64()?])
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cell(dialect: &str, rate: f64) -> Value {
        json!({"settings": {"todo": true, "dialect": dialect}, "runs": 30,
               "completion_rate": rate, "completion_ci95": [rate - 0.1, rate + 0.05]})
    }

    #[test]
    fn the_headline_names_the_winner_the_largest_difference_and_failures() {
        let report = json!({"ok": false, "scenarios": [
            {"name": "dialects", "cells": [cell("s03", 0.74), cell("codex", 0.9), cell("gemini", 0.35)],
             "comparisons": [
                {"what": "dialect codex vs s03", "completion": {"mean_diff": 0.16, "diff_ci95": [0.08, 0.24], "p_value": 0.001}},
                {"what": "dialect gemini vs s03", "completion": {"mean_diff": -0.39, "diff_ci95": [-0.5, -0.3], "p_value": 0.0001}},
                {"what": "noise", "completion": {"mean_diff": 0.6, "diff_ci95": [-0.5, 1.0], "p_value": 0.4}}],
             "expectations": [{"text": "completion_rate >= 0.95 where dialect=codex", "ok": false},
                              {"text": "held", "ok": true}]},
            {"name": "one-cell", "cells": [cell("s03", 1.0)], "expectations": [{"text": "x", "ok": true}]}
        ]});
        let mut page = String::new();
        render(&mut page, &report);
        assert!(
            page.contains("<p class=\"verdict fail\">2 scenarios, 3 expectations: 1 failed</p>"),
            "{page}"
        );
        assert!(
            page.contains("<li><b>dialects</b>: <code>completion_rate &gt;= 0.95 where dialect=codex</code></li>"),
            "{page}"
        );
        assert!(
            page.contains(
                "best <code>todo=true dialect=codex</code> at 90.0% completion [80.0, 95.0]"
            ),
            "{page}"
        );
        assert!(
            page.contains("lowest <code>todo=true dialect=gemini</code> at 35.0%"),
            "{page}"
        );
        // The largest difference that holds, not the larger noisy one.
        assert!(
            page.contains(
                "largest difference: dialect gemini vs s03 -39.0 pts [-50.0, -30.0] (p&lt;0.001)"
            ),
            "{page}"
        );
        // A scenario of one cell has no winner to name.
        assert!(!page.contains("<b>one-cell</b>"), "{page}");
        assert_eq!(page.matches("<rect ").count(), 2, "{page}");
    }
}
