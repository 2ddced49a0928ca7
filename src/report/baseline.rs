//! Regression gating: a new report against a baseline (`run --baseline`,
//! `diff OLD NEW`). Cells are matched by scenario name and settings. A cell
//! regresses when its completion rate or full-completion rate fell by more
//! than the tolerance; improvements, new and removed cells are reported,
//! never failed.

use std::fmt::Write;
use tabled::builder::Builder;
use tabled::settings::Style;

use crate::eval::ScenarioResult;
use crate::scenario::CellSettings;

/// The default tolerance: an absolute drop of 0.05 (five points).
pub const DEFAULT_TOLERANCE: f64 = 0.05;

/// How a cell moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Movement {
    Regressed,
    Improved,
    Unchanged,
    New,
    Removed,
}

impl Movement {
    fn label(self) -> &'static str {
        match self {
            Self::Regressed => "REGRESSED",
            Self::Improved => "improved",
            Self::Unchanged => "unchanged",
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
    pub movement: Movement,
}

/// One cell's rates, keyed by scenario and settings.
#[derive(Debug, Clone, PartialEq)]
pub struct CellRates {
    pub scenario: String,
    pub settings: CellSettings,
    pub completion: f64,
    pub full_completion: f64,
}

/// The rates of freshly computed results.
pub fn rates(results: &[ScenarioResult]) -> Vec<CellRates> {
    results
        .iter()
        .flat_map(|s| {
            s.cells.iter().map(|c| CellRates {
                scenario: s.name.clone(),
                settings: c.settings.clone(),
                completion: c.completion_rate,
                full_completion: c.full_completion_rate,
            })
        })
        .collect()
}

/// Compares every cell of `old` and `new`.
pub fn compare(old: &[CellRates], new: &[CellRates], tolerance: f64) -> Vec<CellDiff> {
    let key_rates = |list: &[CellRates]| -> Vec<(String, CellSettings, (f64, f64))> {
        list.iter()
            .map(|c| {
                (
                    c.scenario.clone(),
                    c.settings.clone(),
                    (c.completion, c.full_completion),
                )
            })
            .collect()
    };
    let (old, new) = (key_rates(old), key_rates(new));
    let find =
        |list: &[(String, CellSettings, (f64, f64))], name: &str, settings: &CellSettings| {
            list.iter()
                .find(|(n, s, _)| n == name && s == settings)
                .map(|(_, _, r)| *r)
        };
    let mut diffs: Vec<CellDiff> = new
        .iter()
        .map(|(name, settings, rates)| {
            let before = find(&old, name, settings);
            let movement = match before {
                None => Movement::New,
                Some((c0, f0)) => {
                    let (c1, f1) = *rates;
                    if c1 < c0 - tolerance || f1 < f0 - tolerance {
                        Movement::Regressed
                    } else if c1 > c0 + tolerance || f1 > f0 + tolerance {
                        Movement::Improved
                    } else {
                        Movement::Unchanged
                    }
                }
            };
            CellDiff {
                scenario: name.clone(),
                settings: settings.clone(),
                old: before,
                new: Some(*rates),
                movement,
            }
        })
        .collect();
    diffs.extend(
        old.iter()
            .filter(|(name, settings, _)| find(&new, name, settings).is_none())
            .map(|(name, settings, rates)| CellDiff {
                scenario: name.clone(),
                settings: settings.clone(),
                old: Some(*rates),
                new: None,
                movement: Movement::Removed,
            }),
    );
    diffs
}

/// Whether any cell regressed.
pub fn regressed(diffs: &[CellDiff]) -> bool {
    diffs.iter().any(|d| d.movement == Movement::Regressed)
}

/// The table of what moved (unchanged cells are counted, not listed).
pub fn render(diffs: &[CellDiff], tolerance: f64) -> String {
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{:.1}%", x * 100.0));
    let delta = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => format!("{:+.1}", (b - a) * 100.0),
        _ => "-".into(),
    };
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
                d.scenario.clone(),
                d.settings.to_string(),
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

    fn rates(name: &str, nag: u32, completion: f64, full: f64) -> CellRates {
        CellRates {
            scenario: name.into(),
            settings: CellSettings::new(vec![
                (Axis::Todo, AxisValue::Bool(true)),
                (
                    Axis::NagThreshold,
                    AxisValue::Threshold(NagThreshold::After(nag)),
                ),
            ]),
            completion,
            full_completion: full,
        }
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
    }
}
