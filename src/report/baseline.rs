//! Regression gating: a new report against a baseline (`run --baseline`,
//! `diff OLD NEW`). Cells are matched by scenario name and settings.
//!
//! When a cell ran as many runs before as now (the same seeds, with mock
//! models the same runs), any move is real, and it regresses when its
//! completion rate or full-completion rate fell by more than the
//! tolerance. When the run counts differ, part of a move is noise: the cell
//! regresses only when the drop exceeds the tolerance *and* the new 95%
//! interval lies wholly below the old one; a drop within the intervals is
//! reported as `noise?`, never failed, and the table is followed by a
//! warning naming the cells whose counts differ. Improvements, new and
//! removed cells are reported, never failed.

use std::collections::BTreeMap;
use std::fmt::Write;
use tabled::builder::Builder;
use tabled::settings::Style;

use super::terminal::escape;
use crate::eval::ScenarioResult;
use crate::scenario::CellSettings;
use crate::scenario::metric::{COMPLETION_RATE, FULL_COMPLETION_RATE};

/// The default tolerance: an absolute drop of 0.05 (five points).
pub const DEFAULT_TOLERANCE: f64 = 0.05;

/// How a cell moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Movement {
    Regressed,
    Improved,
    Unchanged,
    /// Moved by more than the tolerance, but within what a different run
    /// count explains (the 95% intervals overlap).
    Noise,
    New,
    Removed,
}

impl Movement {
    fn label(self) -> &'static str {
        match self {
            Self::Regressed => "REGRESSED",
            Self::Improved => "improved",
            Self::Unchanged => "unchanged",
            Self::Noise => "noise?",
            Self::New => "new",
            Self::Removed => "removed",
        }
    }
}

/// One cell's comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct CellDiff {
    pub scenario: String,
    pub settings: CellSettings,
    /// (completion, full completion) before and after.
    pub old: Option<(f64, f64)>,
    pub new: Option<(f64, f64)>,
    /// Runs before and after.
    pub old_runs: Option<usize>,
    pub new_runs: Option<usize>,
    pub movement: Movement,
}

impl CellDiff {
    /// Whether the cell ran a different number of runs before and now.
    pub fn counts_differ(&self) -> bool {
        matches!((self.old_runs, self.new_runs), (Some(a), Some(b)) if a != b)
    }
}

/// One cell's rates, keyed by scenario and settings.
#[derive(Debug, Clone, PartialEq)]
pub struct CellRates {
    pub scenario: String,
    pub settings: CellSettings,
    pub runs: usize,
    pub completion: f64,
    pub full_completion: f64,
    pub completion_ci95: [f64; 2],
    pub full_completion_ci95: [f64; 2],
}

/// The rates of freshly computed results.
pub fn rates(results: &[ScenarioResult]) -> Vec<CellRates> {
    results
        .iter()
        .flat_map(|s| {
            s.cells.iter().map(|c| CellRates {
                scenario: s.name.clone(),
                settings: c.settings.clone(),
                runs: c.runs,
                completion: c.value(COMPLETION_RATE),
                full_completion: c.value(FULL_COMPLETION_RATE),
                completion_ci95: c.interval(COMPLETION_RATE),
                full_completion_ci95: c.interval(FULL_COMPLETION_RATE),
            })
        })
        .collect()
}

/// How one rate moved: -1 down, 0 not beyond the tolerance, 1 up. With
/// different run counts a move also needs the intervals apart.
fn direction(
    before: f64,
    after: f64,
    before_ci: [f64; 2],
    after_ci: [f64; 2],
    tolerance: f64,
    counts_differ: bool,
) -> (i8, bool) {
    let (down, up) = (after < before - tolerance, after > before + tolerance);
    let apart_down = after_ci[1] < before_ci[0];
    let apart_up = after_ci[0] > before_ci[1];
    match (down, up) {
        (true, _) if !counts_differ || apart_down => (-1, false),
        (_, true) if !counts_differ || apart_up => (1, false),
        (true, _) | (_, true) => (0, true),
        _ => (0, false),
    }
}

fn movement(old: &CellRates, new: &CellRates, tolerance: f64) -> Movement {
    let counts_differ = old.runs != new.runs;
    let (completion, noisy_completion) = direction(
        old.completion,
        new.completion,
        old.completion_ci95,
        new.completion_ci95,
        tolerance,
        counts_differ,
    );
    let (full, noisy_full) = direction(
        old.full_completion,
        new.full_completion,
        old.full_completion_ci95,
        new.full_completion_ci95,
        tolerance,
        counts_differ,
    );
    if completion < 0 || full < 0 {
        Movement::Regressed
    } else if completion > 0 || full > 0 {
        Movement::Improved
    } else if noisy_completion || noisy_full {
        Movement::Noise
    } else {
        Movement::Unchanged
    }
}

/// The key a cell is matched by.
fn key(c: &CellRates) -> (String, String) {
    (c.scenario.clone(), c.settings.to_string())
}

/// Compares every cell of `old` and `new` (matched through an index, so
/// linear in the cells up to a log factor).
pub fn compare(old: &[CellRates], new: &[CellRates], tolerance: f64) -> Vec<CellDiff> {
    let old_index: BTreeMap<(String, String), &CellRates> =
        old.iter().map(|c| (key(c), c)).collect();
    let new_index: BTreeMap<(String, String), &CellRates> =
        new.iter().map(|c| (key(c), c)).collect();
    let pair = |c: &CellRates| (c.completion, c.full_completion);
    let mut diffs: Vec<CellDiff> = new
        .iter()
        .map(|now| {
            let before = old_index.get(&key(now)).copied();
            CellDiff {
                scenario: now.scenario.clone(),
                settings: now.settings.clone(),
                old: before.map(pair),
                new: Some(pair(now)),
                old_runs: before.map(|b| b.runs),
                new_runs: Some(now.runs),
                movement: before.map_or(Movement::New, |b| movement(b, now, tolerance)),
            }
        })
        .collect();
    diffs.extend(
        old.iter()
            .filter(|c| !new_index.contains_key(&key(c)))
            .map(|c| CellDiff {
                scenario: c.scenario.clone(),
                settings: c.settings.clone(),
                old: Some(pair(c)),
                new: None,
                old_runs: Some(c.runs),
                new_runs: None,
                movement: Movement::Removed,
            }),
    );
    diffs
}

/// Whether any cell regressed.
pub fn regressed(diffs: &[CellDiff]) -> bool {
    diffs.iter().any(|d| d.movement == Movement::Regressed)
}

/// The table of what moved (unchanged cells are counted, not listed), the
/// warning about cells whose run counts differ, and the summary line.
pub fn render(diffs: &[CellDiff], tolerance: f64) -> String {
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{:.1}%", x * 100.0));
    let delta = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => format!("{:+.1}", (b - a) * 100.0),
        _ => "-".into(),
    };
    let count = |n: Option<usize>| n.map_or("-".to_string(), |n| n.to_string());
    let moved: Vec<&CellDiff> = diffs
        .iter()
        .filter(|d| d.movement != Movement::Unchanged)
        .collect();
    let unchanged = diffs.len() - moved.len();
    let mut out = String::new();
    if !moved.is_empty() {
        let mut builder = Builder::default();
        builder.push_record([
            "scenario",
            "settings",
            "runs",
            "completion",
            "Δ pts",
            "full",
            "Δ pts",
            "status",
        ]);
        for d in &moved {
            let (c0, f0) = (d.old.map(|r| r.0), d.old.map(|r| r.1));
            let (c1, f1) = (d.new.map(|r| r.0), d.new.map(|r| r.1));
            builder.push_record([
                escape(&d.scenario).into_owned(),
                escape(&d.settings.to_string()).into_owned(),
                if d.counts_differ() {
                    format!("{} → {}", count(d.old_runs), count(d.new_runs))
                } else {
                    count(d.new_runs.or(d.old_runs))
                },
                format!("{} → {}", pct(c0), pct(c1)),
                delta(c0, c1),
                format!("{} → {}", pct(f0), pct(f1)),
                delta(f0, f1),
                d.movement.label().to_string(),
            ]);
        }
        let mut table = builder.build();
        table.with(Style::rounded());
        let _ = writeln!(out, "{table}");
    }
    let differing: Vec<&CellDiff> = diffs.iter().filter(|d| d.counts_differ()).collect();
    if let Some(example) = differing.first() {
        let _ = writeln!(
            out,
            "warning: {} cell{} ran a different number of runs than the baseline (e.g. {} {}: {} → {}); \
             their moves count as regressions only when the 95% intervals are apart, and `noise?` marks a move within them",
            differing.len(),
            if differing.len() == 1 { "" } else { "s" },
            escape(&example.scenario),
            escape(&example.settings.to_string()),
            count(example.old_runs),
            count(example.new_runs),
        );
    }
    let regressions = diffs
        .iter()
        .filter(|d| d.movement == Movement::Regressed)
        .count();
    let _ = writeln!(
        out,
        "baseline: {} cells compared, {unchanged} unchanged, {} moved, {regressions} regressed (tolerance {:.1} points)",
        diffs.len(),
        moved.len(),
        tolerance * 100.0
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Axis, AxisValue, NagThreshold};

    fn cell(name: &str, nag: u32, runs: usize, completion: f64, full: f64) -> CellRates {
        // An interval as wide as a few hundred runs give.
        let half = 0.5 / (runs as f64).sqrt();
        let ci = |x: f64| [(x - half).max(0.0), (x + half).min(1.0)];
        CellRates {
            scenario: name.into(),
            settings: CellSettings::new(vec![
                (Axis::Todo, AxisValue::Bool(true)),
                (
                    Axis::NagThreshold,
                    AxisValue::Threshold(NagThreshold::After(nag)),
                ),
            ]),
            runs,
            completion,
            full_completion: full,
            completion_ci95: ci(completion),
            full_completion_ci95: ci(full),
        }
    }

    fn rates(name: &str, nag: u32, completion: f64, full: f64) -> CellRates {
        cell(name, nag, 200, completion, full)
    }

    #[test]
    fn movements() {
        let old = [
            rates("s", 1, 0.9, 0.5),
            rates("s", 2, 0.9, 0.5),
            rates("s", 3, 0.9, 0.5),
            rates("gone", 1, 1.0, 1.0),
        ];
        let new = [
            rates("s", 1, 0.84, 0.5),
            rates("s", 2, 0.9, 0.56),
            rates("s", 3, 0.86, 0.46),
            rates("fresh", 1, 0.0, 0.0),
        ];
        let moves: Vec<Movement> = compare(&old, &new, 0.05)
            .iter()
            .map(|d| d.movement)
            .collect();
        assert_eq!(
            moves,
            [
                Movement::Regressed,
                Movement::Improved,
                Movement::Unchanged,
                Movement::New,
                Movement::Removed
            ]
        );
        assert!(regressed(&compare(&old, &new, 0.05)));
        assert!(!regressed(&compare(&old, &new, 0.2)));
        let table = render(&compare(&old, &new, 0.05), 0.05);
        assert!(
            table.contains("REGRESSED") && table.contains("1 unchanged"),
            "{table}"
        );
        assert!(!table.contains("warning"), "{table}");
    }

    #[test]
    fn a_drop_within_the_noise_of_other_run_counts_is_no_regression() {
        // 200 runs before, 10 now: a 10-point drop is within the intervals.
        let old = [cell("s", 3, 200, 0.8, 0.5)];
        let noisy = [cell("s", 3, 10, 0.7, 0.4)];
        let diffs = compare(&old, &noisy, 0.05);
        assert_eq!(diffs[0].movement, Movement::Noise);
        assert!(!regressed(&diffs));
        let table = render(&diffs, 0.05);
        assert!(table.contains("noise?"), "{table}");
        assert!(table.contains("200 → 10"), "{table}");
        assert!(
            table.contains("warning: 1 cell ran a different number of runs"),
            "{table}"
        );
        // A drop far outside the intervals is still a regression.
        let collapsed = [cell("s", 3, 10, 0.0, 0.0)];
        assert!(regressed(&compare(&old, &collapsed, 0.05)));
        // Equal counts: the tolerance alone decides.
        let same_count = [cell("s", 3, 200, 0.7, 0.5)];
        assert!(regressed(&compare(&old, &same_count, 0.05)));
    }
}
