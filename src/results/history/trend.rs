//! Each cell over the recorded whole runs (`agent-eval history`): the
//! points in recorded order, which of them moved beyond the previous run's
//! 95% interval (and which way), and whether the cell flaps.
//!
//! A point **moved** when its completion lies outside the 95% interval of
//! the same cell's previous recorded run: up above it, down below it. A
//! cell **flaps** when, among its last [`FLAP_WINDOW`] shown runs, its
//! moves changed direction at least [`FLAP_CHANGES`] times (up, down, up:
//! two changes): a cell that jumps back and forth beyond its own noise is
//! not measuring the agent, or measures something unstable. A single
//! regression (one move, or moves all one way) is no flap.

use std::collections::BTreeMap;

use super::RecordedCell;

/// How many of a cell's most recent shown runs the flap rule looks at.
pub const FLAP_WINDOW: usize = 10;
/// How many changes of direction among them make a cell flap.
pub const FLAP_CHANGES: usize = 2;

/// Which way a point moved beyond the previous run's interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Up,
    Down,
}

/// One cell at one recorded invocation.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TrendPoint {
    #[serde(flatten)]
    pub cell: RecordedCell,
    /// The completion lies outside the previous recorded run's 95%
    /// interval of the same cell.
    pub moved: bool,
    /// Which way, when it moved.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// It ran under another calibration profile than the previous run:
    /// not compared with it (a change of parameters is no move).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub profile_changed: bool,
}

/// A commit as trend rows and baselines show it: its first ten
/// characters, `-` without one (before the renderer's escaping).
pub fn short_commit(commit: Option<&str>) -> String {
    commit.unwrap_or("-").chars().take(10).collect()
}

impl TrendPoint {
    /// The columns every rendering of a trend row starts with, unescaped:
    /// the short commit, when it was recorded, the branch (`-` without
    /// one). The text table and the HTML page differ only in markup.
    pub fn row_columns(&self) -> [String; 3] {
        [
            short_commit(self.cell.commit.as_deref()),
            self.cell.recorded_at.clone(),
            self.cell.branch.as_deref().unwrap_or("-").to_string(),
        ]
    }
}

/// One cell (scenario and settings) over the shown runs, oldest first.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CellTrend {
    pub scenario: String,
    pub settings: String,
    /// Its moves changed direction at least [`FLAP_CHANGES`] times in the
    /// last [`FLAP_WINDOW`] runs.
    pub flapping: bool,
    /// How many times they did.
    pub direction_changes: usize,
    pub runs: Vec<TrendPoint>,
}

impl CellTrend {
    /// Whether the cell is worth a look: it flaps, a run moved beyond the
    /// previous run's interval, or its profile changed. The others are
    /// steady, and reports fold them.
    pub fn eventful(&self) -> bool {
        self.flapping || self.runs.iter().any(|p| p.moved || p.profile_changed)
    }

    /// Whether every shown run completed every step (a scripted cell
    /// that passes, typically).
    pub fn always_complete(&self) -> bool {
        self.runs.iter().all(|p| p.cell.completion == Some(1.0))
    }
}

/// The cells (in recorded order) grouped by scenario and settings (in name
/// order), with moves flagged against each previous run. With `newest`,
/// only points of the newest that many invocations are kept; the older
/// points still serve as the previous run of the first kept one.
pub fn trends(cells: Vec<RecordedCell>, newest: Option<usize>) -> Vec<CellTrend> {
    // The oldest invocation kept.
    let cutoff = newest.and_then(|n| {
        let mut invocations: Vec<i64> = cells.iter().map(|c| c.invocation).collect();
        invocations.sort_unstable();
        invocations.dedup();
        let skip = invocations.len().checked_sub(n)?;
        invocations.get(skip).copied()
    });
    let mut series: BTreeMap<(String, String), Vec<TrendPoint>> = BTreeMap::new();
    for cell in cells {
        let points = series
            .entry((cell.scenario.clone(), cell.settings.clone()))
            .or_default();
        let profile_changed = points
            .last()
            .is_some_and(|p| p.cell.profile != cell.profile);
        let direction = points
            .last()
            .filter(|_| !profile_changed)
            .and_then(|p| direction(&p.cell, &cell));
        points.push(TrendPoint {
            cell,
            moved: direction.is_some(),
            direction,
            profile_changed,
        });
    }
    series
        .into_iter()
        .filter_map(|((scenario, settings), mut runs)| {
            if let Some(first) = cutoff {
                runs.retain(|p| p.cell.invocation >= first);
            }
            let direction_changes = direction_changes(&runs);
            (!runs.is_empty()).then_some(CellTrend {
                scenario,
                settings,
                flapping: direction_changes >= FLAP_CHANGES,
                direction_changes,
                runs,
            })
        })
        .collect()
}

/// Which way `now` left `previous`'s interval, if it did.
fn direction(previous: &RecordedCell, now: &RecordedCell) -> Option<Direction> {
    let [lo, hi] = previous.completion_ci95?;
    let value = now.completion?;
    if value > hi {
        Some(Direction::Up)
    } else if value < lo {
        Some(Direction::Down)
    } else {
        None
    }
}

/// Changes of direction among the moves of the last [`FLAP_WINDOW`] points.
fn direction_changes(points: &[TrendPoint]) -> usize {
    let moves: Vec<Direction> = points
        .iter()
        .rev()
        .take(FLAP_WINDOW)
        .filter_map(|p| p.direction)
        .collect();
    moves
        .iter()
        .zip(moves.iter().skip(1))
        .filter(|(a, b)| a != b)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(invocation: i64, completion: f64) -> RecordedCell {
        RecordedCell {
            invocation,
            recorded_at: format!("2026-11-{:02}T00:00:00Z", invocation),
            commit: None,
            branch: Some("main".into()),
            version: "0".into(),
            scenario: "s".into(),
            scenario_sha256: None,
            settings: "todo=true".into(),
            runs: 100,
            completion: Some(completion),
            completion_ci95: Some([completion - 0.05, completion + 0.05]),
            full_completion: None,
            mean_tokens: None,
            profile: None,
        }
    }

    fn of(values: &[f64]) -> Vec<RecordedCell> {
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| cell(i as i64 + 1, v))
            .collect()
    }

    #[test]
    fn a_change_of_profile_is_no_move_and_is_said() {
        let mut cells = of(&[0.8, 0.4, 0.4]);
        let realistic = crate::model::simulated::profile::ProfileRef {
            file: "my-agent.yaml".into(),
            sha256: "ab".into(),
        };
        cells[1].profile = Some(realistic.clone());
        cells[2].profile = Some(realistic);
        let trend = &trends(cells, None)[0];
        let changed: Vec<bool> = trend.runs.iter().map(|p| p.profile_changed).collect();
        assert_eq!(changed, [false, true, false]);
        assert!(trend.runs.iter().all(|p| !p.moved), "{trend:?}");
    }

    #[test]
    fn up_down_up_flaps_and_a_single_drop_does_not() {
        let flap = trends(of(&[0.5, 0.8, 0.5, 0.8]), None);
        assert_eq!(flap[0].direction_changes, 2);
        assert!(flap[0].flapping);
        let moves: Vec<Option<Direction>> = flap[0].runs.iter().map(|p| p.direction).collect();
        use Direction::{Down, Up};
        assert_eq!(moves, [None, Some(Up), Some(Down), Some(Up)]);
        let drop = trends(of(&[0.8, 0.8, 0.5, 0.5, 0.2]), None);
        assert_eq!(drop[0].direction_changes, 0);
        assert!(!drop[0].flapping);
        // Noise within the interval is no move at all.
        let steady = trends(of(&[0.8, 0.82, 0.79, 0.81]), None);
        assert!(steady[0].runs.iter().all(|p| !p.moved));
    }

    #[test]
    fn old_flaps_leave_the_window() {
        let mut values = vec![0.5, 0.8, 0.5, 0.8];
        values.extend([0.8; FLAP_WINDOW]);
        assert!(!trends(of(&values), None)[0].flapping);
    }

    #[test]
    fn newest_keeps_the_last_runs_and_their_moves() {
        let shown = trends(of(&[0.5, 0.8, 0.8]), Some(2));
        let invocations: Vec<i64> = shown[0].runs.iter().map(|p| p.cell.invocation).collect();
        assert_eq!(invocations, [2, 3]);
        // The first shown run moved against the hidden one before it.
        assert_eq!(shown[0].runs[0].direction, Some(Direction::Up));
        assert_eq!(trends(of(&[0.5]), Some(5))[0].runs.len(), 1);
    }
}
