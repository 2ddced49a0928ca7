//! The `calibrate --html` page: one self-contained file (no script, no
//! stylesheet or font from elsewhere) with the parameters, the fidelity
//! table, the contradictions and, per distribution, an SVG plot of the
//! observed against the simulated empirical distribution functions. Text
//! is escaped as every report page escapes it.

use std::fmt::Write as _;

use serde_json::Value;

use crate::calibrate::Calibration;
use crate::calibrate::fidelity::{Distribution, three_digits};
use crate::report::escape::html as esc;

const WIDTH: f64 = 420.0;
const HEIGHT: f64 = 220.0;
const MARGIN: f64 = 40.0;

/// The page.
pub fn page(result: &Calibration, json: &Value) -> String {
    let mut page = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>agent-eval calibration</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,th:first-child,th:last-child{text-align:left}.differs{color:#b00}.obs{stroke:#1f77b4}.sim{stroke:#d62728}svg{margin:0 1em 1em 0}</style></head><body>\n<h1>Calibration of the simulated model</h1>\n",
    );
    let sessions = json
        .pointer("/inputs/sessions")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let _ = writeln!(
        page,
        "<p>{sessions} sessions: {} for the fit, {} held out.</p>",
        result.training, result.held_out
    );
    parameters(&mut page, result);
    fidelity(&mut page, result);
    page.push_str("<h2>Observed (blue) against simulated (red)</h2>\n");
    for distribution in &result.distributions {
        page.push_str(&plot(distribution));
    }
    page.push_str("<h2>What the sessions say</h2>\n<ul>\n");
    for line in super::render::conclusion_lines(result) {
        let _ = writeln!(page, "<li>{}</li>", esc(&line));
    }
    for said in &result.contradictions {
        let _ = writeln!(page, "<li>{}</li>", esc(said));
    }
    page.push_str("</ul>\n</body></html>\n");
    page
}

fn parameters(page: &mut String, result: &Calibration) {
    page.push_str("<h2>Parameters</h2>\n<table><tr><th>parameter</th><th>value</th><th>default</th><th>interval</th><th>n</th><th>source</th><th>why</th></tr>\n");
    for row in &result.params {
        let interval = row
            .param
            .interval
            .map_or("-".into(), |[a, b]| format!("[{a}, {b}]"));
        let source = serde_json::to_value(row.param.source)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td></tr>",
            esc(row.name),
            row.param.value,
            row.default,
            interval,
            row.param.n,
            source,
            esc(&row.note)
        );
    }
    page.push_str("</table>\n");
    if let Some(test) = result.goodness_of_fit {
        let _ = writeln!(page, "<p>Goodness of fit: {}.</p>", esc(&test.verdict()));
    }
}

fn fidelity(page: &mut String, result: &Calibration) {
    page.push_str("<h2>Fidelity</h2>\n<table><tr><th>statistic</th><th>observed</th><th>simulated</th><th>n observed</th><th>n simulated</th><th>distance</th><th>p</th><th>verdict</th></tr>\n");
    for row in &result.fidelity {
        let [observed, simulated, n_observed, n_simulated, distance, p] = row.figures();
        let _ = writeln!(
            page,
            "<tr class=\"{}\"><td>{}</td><td>{observed}</td><td>{simulated}</td><td>{n_observed}</td><td>{n_simulated}</td><td>{distance}</td><td>{p}</td><td>{}</td></tr>",
            row.verdict.label().replace(' ', "-"),
            esc(row.statistic),
            esc(&row.verdict_text())
        );
    }
    page.push_str("</table>\n");
}

/// An SVG of the two empirical distribution functions, as step lines, on
/// axes with ticks: x the statistic's value, y the share at or below it.
fn plot(distribution: &Distribution) -> String {
    let high = distribution
        .observed
        .iter()
        .chain(&distribution.simulated)
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max)
        .max(1.0);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-size=\"10\"><title>{}</title>",
        esc(distribution.statistic)
    );
    let _ = write!(
        svg,
        "<text x=\"{MARGIN}\" y=\"14\" font-size=\"12\">{} (n = {} observed, {} simulated)</text>",
        esc(distribution.statistic),
        distribution.observed.len(),
        distribution.simulated.len()
    );
    svg.push_str(&axes(high));
    for (class, values) in [
        ("obs", &distribution.observed),
        ("sim", &distribution.simulated),
    ] {
        let _ = write!(
            svg,
            "<polyline class=\"{class}\" fill=\"none\" stroke-width=\"2\" points=\"{}\"/>",
            steps(values, high)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The axes: a frame, five ticks a side with their values, and the axes'
/// names.
fn axes(high: f64) -> String {
    let (left, right) = (MARGIN, WIDTH - MARGIN);
    let (top, bottom) = (20.0, HEIGHT - MARGIN);
    let mut svg = format!(
        "<rect x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>",
        right - left,
        bottom - top
    );
    for i in 0..=4 {
        let share = f64::from(i) / 4.0;
        let x = left + share * (right - left);
        let y = bottom - share * (bottom - top);
        let _ = write!(
            svg,
            "<line x1=\"{x:.1}\" y1=\"{bottom}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#999\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            bottom + 4.0,
            bottom + 14.0,
            three_digits(share * high)
        );
        let _ = write!(
            svg,
            "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{left}\" y2=\"{y:.1}\" stroke=\"#999\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{share}</text>",
            left - 4.0,
            left - 6.0,
            y + 3.0
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">value</text><text x=\"10\" y=\"{:.1}\" transform=\"rotate(-90 10 {:.1})\" text-anchor=\"middle\">share at or below</text>",
        (left + right) / 2.0,
        HEIGHT - 4.0,
        (top + bottom) / 2.0,
        (top + bottom) / 2.0
    );
    svg
}

/// The points of an empirical distribution function's step line.
fn steps(values: &[f64], high: f64) -> String {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let x = |v: f64| MARGIN + (v / high) * (WIDTH - 2.0 * MARGIN);
    let y = |share: f64| HEIGHT - MARGIN - share * (HEIGHT - MARGIN - 20.0);
    let mut points = format!("{:.1},{:.1}", x(0.0), y(0.0));
    let n = sorted.len().max(1) as f64;
    for (i, v) in sorted.iter().enumerate() {
        let _ = write!(
            points,
            " {:.1},{:.1} {:.1},{:.1}",
            x(*v),
            y(i as f64 / n),
            x(*v),
            y((i + 1) as f64 / n)
        );
    }
    let _ = write!(
        points,
        " {:.1},{:.1}",
        x(high),
        y(if sorted.is_empty() { 0.0 } else { 1.0 })
    );
    points
}
