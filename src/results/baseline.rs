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
//!
//! Only like is compared with like: a cell run under another calibration
//! profile (by its SHA-256; none stands for the simulated model's
//! defaults) than its baseline is marked `profile changed` and not
//! compared, since other parameters make other figures by design.

use std::collections::BTreeMap;

use super::scenario_result::ScenarioResult;
use crate::metric::Metric;
use crate::model::simulated::profile::ProfileRef;
use crate::scenario::{CellSettings, reaches, stays_within};

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
    /// Run under another calibration profile than the baseline: not
    /// compared (its figures answer other parameters).
    ProfileChanged,
}

impl Movement {
    pub fn label(self) -> &'static str {
        match self {
            Self::Regressed => "REGRESSED",
            Self::Improved => "improved",
            Self::Unchanged => "unchanged",
            Self::Noise => "noise?",
            Self::New => "new",
            Self::Removed => "removed",
            Self::ProfileChanged => "profile changed",
        }
    }
}

/// One cell's comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct CellDiff {
    pub scenario: String,
    pub settings: CellSettings,
    /// The gated rates ([`Metric::gated`], e.g. completion and full
    /// completion) before and after.
    pub old: Option<Vec<f64>>,
    pub new: Option<Vec<f64>>,
    /// Runs before and after.
    pub old_runs: Option<usize>,
    pub new_runs: Option<usize>,
    pub movement: Movement,
    /// The profiles the cell ran under before and after (`None`: the
    /// defaults).
    pub old_profile: Option<ProfileRef>,
    pub new_profile: Option<ProfileRef>,
}

impl CellDiff {
    /// Whether the cell ran a different number of runs before and now.
    pub fn counts_differ(&self) -> bool {
        matches!((self.old_runs, self.new_runs), (Some(a), Some(b)) if a != b)
    }
}

/// One cell's gated rates, keyed by scenario and settings.
#[derive(Debug, Clone, PartialEq)]
pub struct CellRates {
    pub scenario: String,
    pub settings: CellSettings,
    pub runs: usize,
    /// One per gated metric, in table order.
    pub rates: Vec<GatedRate>,
    /// The calibration profile the cell ran under (`None`: the defaults).
    pub profile: Option<ProfileRef>,
}

/// A gated rate's value and 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GatedRate {
    pub metric: &'static Metric,
    pub value: f64,
    pub ci95: [f64; 2],
}

impl CellRates {
    /// A cell's rates, each gated metric's value and interval given by `rate`.
    pub fn new(
        scenario: String,
        settings: CellSettings,
        runs: usize,
        rate: impl Fn(&'static Metric) -> (f64, [f64; 2]),
    ) -> Self {
        let rates = Metric::gated()
            .map(|metric| {
                let (value, ci95) = rate(metric);
                GatedRate {
                    metric,
                    value,
                    ci95,
                }
            })
            .collect();
        Self {
            scenario,
            settings,
            runs,
            rates,
            profile: None,
        }
    }

    /// The same rates, run under `profile`.
    pub fn under(self, profile: Option<ProfileRef>) -> Self {
        Self { profile, ..self }
    }

    /// Whether `other` ran under the same parameters: the same profile
    /// file content, or both under the defaults.
    fn same_profile(&self, other: &Self) -> bool {
        ProfileRef::same_parameters(self.profile.as_ref(), other.profile.as_ref())
    }

    fn values(&self) -> Vec<f64> {
        self.rates.iter().map(|r| r.value).collect()
    }
}

/// The rates of freshly computed results.
pub fn rates(results: &[ScenarioResult]) -> Vec<CellRates> {
    results
        .iter()
        .flat_map(|s| {
            s.cells.iter().map(|c| {
                CellRates::new(s.name.clone(), c.settings.clone(), c.runs, |m| {
                    (c.value(m.name), c.interval(m.name))
                })
                .under(s.profile.clone())
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
    // Beyond the tolerance, not on it: a drop of exactly the tolerance
    // (0.45 to 0.40 is 0.04999999999999999 in floating point) is no move.
    let (down, up) = (
        !reaches(after, before - tolerance),
        !stays_within(after, before + tolerance),
    );
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
    let moves: Vec<(i8, bool)> = old
        .rates
        .iter()
        .filter_map(|before| {
            let after = new.rates.iter().find(|r| r.metric == before.metric)?;
            let (moved, noisy) = direction(
                before.value,
                after.value,
                before.ci95,
                after.ci95,
                tolerance,
                counts_differ,
            );
            // A move is better or worse as the metric's direction says.
            let better = if before.metric.higher_is_better {
                moved
            } else {
                -moved
            };
            Some((better, noisy))
        })
        .collect();
    if moves.iter().any(|(m, _)| *m < 0) {
        Movement::Regressed
    } else if moves.iter().any(|(m, _)| *m > 0) {
        Movement::Improved
    } else if moves.iter().any(|(_, noisy)| *noisy) {
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
    let pair = CellRates::values;
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
                movement: before.map_or(Movement::New, |b| {
                    if b.same_profile(now) {
                        movement(b, now, tolerance)
                    } else {
                        Movement::ProfileChanged
                    }
                }),
                old_profile: before.and_then(|b| b.profile.clone()),
                new_profile: now.profile.clone(),
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
                old_profile: c.profile.clone(),
                new_profile: None,
            }),
    );
    diffs
}

/// Whether any cell regressed.
pub fn regressed(diffs: &[CellDiff]) -> bool {
    diffs.iter().any(|d| d.movement == Movement::Regressed)
}

/// A scenario run under another profile than its baseline: its cells
/// were not compared.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileChange {
    pub scenario: String,
    pub from: Option<ProfileRef>,
    pub to: Option<ProfileRef>,
    /// How many of its cells were left out.
    pub cells: usize,
}

/// The scenarios whose profile changed, in the order of `diffs`.
pub fn profile_changes(diffs: &[CellDiff]) -> Vec<ProfileChange> {
    let mut changes: Vec<ProfileChange> = Vec::new();
    for d in diffs
        .iter()
        .filter(|d| d.movement == Movement::ProfileChanged)
    {
        match changes.iter_mut().find(|c| c.scenario == d.scenario) {
            Some(change) => change.cells += 1,
            None => changes.push(ProfileChange {
                scenario: d.scenario.clone(),
                from: d.old_profile.clone(),
                to: d.new_profile.clone(),
                cells: 1,
            }),
        }
    }
    changes
}

/// How a profile is named in a comparison: its file and the start of its
/// hash, or `the defaults`.
pub fn profile_name(profile: Option<&ProfileRef>) -> String {
    profile.map_or("the defaults".to_string(), |p| {
        format!(
            "{} (sha256 {})",
            p.file,
            p.sha256.get(..12).unwrap_or(&p.sha256)
        )
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::scenario::{Axis, AxisValue, NagThreshold};

    /// A cell whose completion and full-completion rates are `completion`
    /// and `full`, with an interval as wide as `runs` runs give (the
    /// baseline table's tests build theirs the same way).
    pub(crate) fn cell(name: &str, nag: u32, runs: usize, completion: f64, full: f64) -> CellRates {
        let half = 0.5 / (runs as f64).sqrt();
        let ci = |x: f64| [(x - half).max(0.0), (x + half).min(1.0)];
        let settings = CellSettings::new(vec![
            (Axis::Todo, AxisValue::Bool(true)),
            (
                Axis::NagThreshold,
                AxisValue::Threshold(NagThreshold::After(nag)),
            ),
        ]);
        CellRates::new(name.into(), settings, runs, |m| {
            let x = match m.name {
                "completion_rate" => completion,
                "full_completion_rate" => full,
                other => panic!("a test cell has no {other}"),
            };
            (x, ci(x))
        })
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
    }

    #[test]
    fn a_cell_under_another_profile_is_not_compared() {
        let profile = |sha: &str| {
            Some(ProfileRef {
                file: "p.yaml".into(),
                sha256: sha.into(),
            })
        };
        // Far apart: under the same parameters this is a regression.
        let old = [rates("s", 1, 0.9, 0.5), rates("t", 1, 0.9, 0.5)];
        let new = [
            rates("s", 1, 0.3, 0.1).under(profile("aa")),
            rates("t", 1, 0.3, 0.1),
        ];
        let diffs = compare(&old, &new, 0.05);
        assert_eq!(diffs[0].movement, Movement::ProfileChanged);
        assert_eq!(diffs[1].movement, Movement::Regressed);
        let changes = profile_changes(&diffs);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].scenario, "s");
        assert_eq!(profile_name(changes[0].from.as_ref()), "the defaults");
        assert_eq!(profile_name(changes[0].to.as_ref()), "p.yaml (sha256 aa)");
        // Another file name with the same content is the same parameters.
        let same = [rates("s", 1, 0.3, 0.1).under(Some(ProfileRef {
            file: "other.yaml".into(),
            sha256: "aa".into(),
        }))];
        assert_eq!(
            compare(&new[..1], &same, 0.05)[0].movement,
            Movement::Unchanged
        );
        assert!(!regressed(&compare(&old[..1], &new[..1], 0.05)));
    }

    #[test]
    fn a_metric_where_lower_is_better_regresses_when_it_rises() {
        // Were `mean_turns` gated, more turns would be the regression.
        let turns = Metric::named("mean_turns").unwrap();
        let with_turns = |x: f64| {
            let mut c = cell("s", 3, 200, 0.8, 0.5);
            c.rates = vec![GatedRate {
                metric: turns,
                value: x,
                ci95: [x, x],
            }];
            c
        };
        let moved = |a: f64, b: f64| compare(&[with_turns(a)], &[with_turns(b)], 0.05)[0].movement;
        assert_eq!(moved(10.0, 12.0), Movement::Regressed);
        assert_eq!(moved(12.0, 10.0), Movement::Improved);
        assert_eq!(moved(10.0, 10.01), Movement::Unchanged);
    }

    #[test]
    fn a_drop_within_the_noise_of_other_run_counts_is_no_regression() {
        // 200 runs before, 10 now: a 10-point drop is within the intervals.
        let old = [cell("s", 3, 200, 0.8, 0.5)];
        let noisy = [cell("s", 3, 10, 0.7, 0.4)];
        let diffs = compare(&old, &noisy, 0.05);
        assert_eq!(diffs[0].movement, Movement::Noise);
        assert!(!regressed(&diffs));
        // A drop far outside the intervals is still a regression.
        let collapsed = [cell("s", 3, 10, 0.0, 0.0)];
        assert!(regressed(&compare(&old, &collapsed, 0.05)));
        // Equal counts: the tolerance alone decides.
        let same_count = [cell("s", 3, 200, 0.7, 0.5)];
        assert!(regressed(&compare(&old, &same_count, 0.05)));
    }

    #[test]
    fn a_drop_of_exactly_the_tolerance_is_no_regression_however_it_rounds() {
        // 8/20 to 7/20: 0.35 < 0.4 - 0.05 in floating point.
        let before = [cell("s", 3, 20, 8.0 / 20.0, 0.5)];
        let after = [cell("s", 3, 20, 7.0 / 20.0, 0.5)];
        assert_eq!(
            compare(&before, &after, 0.05)[0].movement,
            Movement::Unchanged
        );
        let further = [cell("s", 3, 20, 6.0 / 20.0, 0.5)];
        assert_eq!(
            compare(&before, &further, 0.05)[0].movement,
            Movement::Regressed
        );
    }
}
