//! A session's cells read part by part: a run seen as one of its parts
//! alone (for `part:` expectations), and each cell's per-part figures (for
//! the tables, Markdown and HTML). Both are read off the run records'
//! `parts`, so they work the same on fresh runs and on a report read back.

use super::record::RunMetrics;
use super::runs::SpillError;
use super::summary::{CellSummary, round6};

/// The cells with every run read as its part `part` (1-based) alone.
pub fn part_cells(cells: &[CellSummary], part: usize) -> Result<Vec<CellSummary>, SpillError> {
    cells
        .iter()
        .map(|cell| {
            let runs = cell
                .results
                .records()
                .map(|r| r.map(|run| part_view(&run, part)))
                .collect::<Result<Vec<_>, _>>()?;
            let steps_total = runs.first().map_or(0, |r| r.steps_total);
            Ok(CellSummary::new(cell.settings.clone(), steps_total, runs))
        })
        .collect()
}

/// One run read as its part `part` (1-based): that part's steps (and their
/// checks), turns, planning calls and reminders; the rest as the run's. A
/// run without parts (a single task) is its own part 1; a part it never
/// reached has no turns.
pub fn part_view(run: &RunMetrics, part: usize) -> RunMetrics {
    if run.parts.is_empty() && part == 1 {
        return run.clone();
    }
    let index = part.saturating_sub(1);
    let figures = run.parts.get(index).cloned().unwrap_or_default();
    let before: usize = run.parts.iter().take(index).map(|p| p.steps_total).sum();
    let step_checks = run
        .step_checks
        .get(before..before + figures.steps_total)
        .unwrap_or_default()
        .to_string();
    RunMetrics {
        turns: figures.turns,
        steps_completed: figures.steps_completed,
        steps_total: figures.steps_total,
        reminders_at: figures.reminders_at,
        todo_calls: figures.todo_calls,
        step_checks,
        parts: Vec::new(),
        ..run.clone()
    }
}

/// One part's figures over a cell's runs.
#[derive(Debug, Clone, PartialEq)]
pub struct PartSummary {
    /// 1-based.
    pub part: usize,
    pub runs: usize,
    pub steps_total: usize,
    pub completion_rate: f64,
    pub full_completion_rate: f64,
    pub mean_turns: f64,
    pub mean_todo_calls: f64,
    pub mean_reminders: f64,
}

/// Each part's figures over `cell`'s runs (rounded to 6 decimals); empty
/// when its runs have no parts (a single task) or their records are not
/// kept.
pub fn part_summaries(cell: &CellSummary) -> Vec<PartSummary> {
    let runs: Vec<RunMetrics> = cell.results.records().map_while(Result::ok).collect();
    let parts = runs.iter().map(|r| r.parts.len()).max().unwrap_or(0);
    (1..=parts)
        .map(|part| {
            let views: Vec<RunMetrics> = runs.iter().map(|r| part_view(r, part)).collect();
            let n = views.len().max(1) as f64;
            let mean =
                |f: &dyn Fn(&RunMetrics) -> f64| round6(views.iter().map(f).sum::<f64>() / n);
            PartSummary {
                part,
                runs: views.len(),
                steps_total: views.first().map_or(0, |r| r.steps_total),
                completion_rate: mean(&|r| r.completion()),
                full_completion_rate: mean(&|r| f64::from(u8::from(r.fully_completed()))),
                mean_turns: mean(&|r| r.turns as f64),
                mean_todo_calls: mean(&|r| r.todo_calls as f64),
                mean_reminders: mean(&|r| r.reminders_at.len() as f64),
            }
        })
        .collect()
}
