//! The comparisons every matrix gets without asking: what the todo tool
//! buys at each threshold (todo on vs off, same threshold) and what the nag
//! buys (each threshold vs off, todo on). Runs are paired by seed; cells
//! share their random streams seed for seed, so the pairs are fair.

use serde::Serialize;

use super::expect::PairedStats;
use super::summary::{CellSummary, pair_by_seed};
use crate::scenario::{CellSettings, NagThreshold};

/// One paired comparison of two cells.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellComparison {
    /// What is compared, e.g. `todo tool (nag 3)`.
    pub what: String,
    pub a: CellSettings,
    pub b: CellSettings,
    #[serde(flatten)]
    pub stats: PairedStats,
}

/// The standard comparisons present in `cells`, in cell order.
pub fn standard(cells: &[CellSummary]) -> Vec<CellComparison> {
    let find = |settings: CellSettings| cells.iter().find(|c| c.settings == settings);
    let mut out = Vec::new();
    for a in cells.iter().filter(|c| c.settings.todo) {
        let without = CellSettings {
            todo: false,
            ..a.settings
        };
        if let Some(b) = find(without) {
            out.push(compare(
                format!("todo tool (nag {})", a.settings.nag_threshold),
                a,
                b,
            ));
        }
    }
    for a in cells
        .iter()
        .filter(|c| c.settings.todo && c.settings.nag_threshold != NagThreshold::Off)
    {
        let off = CellSettings {
            nag_threshold: NagThreshold::Off,
            ..a.settings
        };
        if let Some(b) = find(off) {
            out.push(compare(
                format!("nag {} vs off (todo tool)", a.settings.nag_threshold),
                a,
                b,
            ));
        }
    }
    out
}

fn compare(what: String, a: &CellSummary, b: &CellSummary) -> CellComparison {
    CellComparison {
        what,
        a: a.settings,
        b: b.settings,
        stats: PairedStats::of(&pair_by_seed(&a.results, &b.results)),
    }
}
