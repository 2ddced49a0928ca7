//! `diff OLD NEW --markdown`: what moved between two reports as a
//! pull-request comment body. The verdict comes first, then the cells
//! that moved beyond their interval (regressions, then improvements), then
//! the rest that changed (new, removed, moves within the noise); cells
//! that did not move are counted, not listed. The judgement is
//! [`crate::results::baseline`]'s, as for the terminal table.

use std::fmt::Write;

use super::escape::{markdown_code as code, markdown_text as text};
use crate::metric::Metric;
use crate::results::baseline::{CellDiff, Movement, profile_changes, profile_name};

/// The order cells are listed in: what a reviewer must see first.
const ORDER: [Movement; 5] = [
    Movement::Regressed,
    Movement::Improved,
    Movement::New,
    Movement::Removed,
    Movement::Noise,
];

/// The comment body for `diffs` at `tolerance` (absolute, 0..1).
pub fn render(diffs: &[CellDiff], tolerance: f64) -> String {
    let count = |m: Movement| diffs.iter().filter(|d| d.movement == m).count();
    let regressed = count(Movement::Regressed);
    let mut out = String::from("### agent-eval: what moved\n\n");
    let verdict = if regressed > 0 {
        format!("❌ **{regressed} {} regressed**", cells(regressed))
    } else {
        "✅ **no regression**".to_string()
    };
    let compared = diffs.len() - count(Movement::ProfileChanged);
    let _ = writeln!(
        out,
        "{verdict}: {} {} compared, {} improved, {} unchanged (tolerance {:.1} points).\n",
        compared,
        cells(compared),
        count(Movement::Improved),
        count(Movement::Unchanged),
        tolerance * 100.0
    );
    // Other parameters make other figures: named, never compared.
    for change in profile_changes(diffs) {
        let _ = writeln!(
            out,
            "🔀 **profile changed** in {}: {} → {}; its {} {} not compared.\n",
            text(&change.scenario),
            code(&profile_name(change.from.as_ref())),
            code(&profile_name(change.to.as_ref())),
            change.cells,
            cells(change.cells)
        );
    }
    let listed: Vec<&CellDiff> = ORDER
        .iter()
        .flat_map(|m| diffs.iter().filter(move |d| d.movement == *m))
        .collect();
    if listed.is_empty() {
        return out;
    }
    table(&mut out, &listed);
    out
}

fn cells(n: usize) -> &'static str {
    if n == 1 { "cell" } else { "cells" }
}

fn table(out: &mut String, listed: &[&CellDiff]) {
    let gated: Vec<&Metric> = Metric::gated().collect();
    let mut header = String::from("| status | scenario | settings | runs |");
    for metric in &gated {
        let _ = write!(header, " {} |", metric.baseline.unwrap_or(metric.name));
    }
    let _ = writeln!(out, "{header}");
    let _ = writeln!(out, "|---|---|---|---:|{}", "---:|".repeat(gated.len()));
    for d in listed {
        let runs = match (d.old_runs, d.new_runs) {
            (Some(a), Some(b)) if a != b => format!("{a} → {b}"),
            (a, b) => b.or(a).map_or("–".into(), |n| n.to_string()),
        };
        let _ = write!(
            out,
            "| {} | {} | `{}` | {runs} |",
            status(d.movement),
            text(&d.scenario),
            code(&d.settings.to_string())
        );
        for index in 0..gated.len() {
            let at = |v: &Option<Vec<f64>>| v.as_ref().and_then(|v| v.get(index).copied());
            let _ = write!(out, " {} |", change(at(&d.old), at(&d.new)));
        }
        out.push('\n');
    }
}

fn status(movement: Movement) -> &'static str {
    match movement {
        Movement::Regressed => "❌ regressed",
        Movement::Improved => "⬆️ improved",
        Movement::New => "🆕 new",
        Movement::Removed => "➖ removed",
        Movement::Noise => "〰️ within noise",
        Movement::Unchanged => "unchanged",
        Movement::ProfileChanged => "🔀 profile changed",
    }
}

/// `before → after (Δ points)`, in percent.
fn change(before: Option<f64>, after: Option<f64>) -> String {
    let pct = |v: f64| format!("{:.1}%", v * 100.0);
    match (before, after) {
        (Some(a), Some(b)) => format!("{} → {} ({:+.1} pts)", pct(a), pct(b), (b - a) * 100.0),
        (None, Some(b)) => format!("– → {}", pct(b)),
        (Some(a), None) => format!("{} → –", pct(a)),
        (None, None) => "–".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::baseline::{CellRates, compare};
    use crate::scenario::{Axis, AxisValue, CellSettings, NagThreshold};

    fn cell(nag: u32, completion: f64, full: f64) -> CellRates {
        let settings = CellSettings::new(vec![
            (Axis::Todo, AxisValue::Bool(true)),
            (
                Axis::NagThreshold,
                AxisValue::Threshold(NagThreshold::After(nag)),
            ),
        ]);
        CellRates::new("s|x".into(), settings, 400, |m| {
            let x = if m.name == "completion_rate" {
                completion
            } else {
                full
            };
            (x, [(x - 0.02).max(0.0), (x + 0.02).min(1.0)])
        })
    }

    #[test]
    fn regressions_come_first_then_improvements_and_unchanged_cells_are_counted() {
        let old = [cell(1, 0.9, 0.5), cell(2, 0.5, 0.2), cell(3, 0.7, 0.3)];
        let new = [cell(1, 0.9, 0.5), cell(2, 0.8, 0.4), cell(3, 0.5, 0.1)];
        let body = render(&compare(&old, &new, 0.05), 0.05);
        assert!(
            body.contains("❌ **1 cell regressed**: 3 cells compared, 1 improved, 1 unchanged (tolerance 5.0 points)."),
            "{body}"
        );
        let regressed = body.find("❌ regressed").unwrap();
        let improved = body.find("⬆️ improved").unwrap();
        assert!(regressed < improved, "{body}");
        assert!(body.contains("70.0% → 50.0% (-20.0 pts)"), "{body}");
        // A `|` in a scenario name cannot break the table.
        assert!(body.contains("s\\|x"), "{body}");
        assert_eq!(
            body.matches("\n| ").count(),
            3,
            "header and two moved rows:\n{body}"
        );
    }

    #[test]
    fn nothing_moved_says_so_without_a_table() {
        let same = [cell(1, 0.9, 0.5)];
        let body = render(&compare(&same, &same, 0.05), 0.05);
        assert!(
            body.contains("✅ **no regression**: 1 cell compared, 0 improved, 1 unchanged"),
            "{body}"
        );
        assert!(!body.contains("| status"));
    }
}
