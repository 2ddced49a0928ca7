//! The baseline comparison as text: the table of cells that moved against
//! a baseline report, the warning about cells whose run counts differ, and
//! the summary line. The judgement itself is [`crate::results::baseline`].

use std::fmt::Write;
use tabled::builder::Builder;
use tabled::settings::Style;

use super::terminal::escape;
use crate::metric::Metric;
use crate::results::baseline::{CellDiff, Movement, profile_changes, profile_name};

/// The table of what moved (unchanged cells are counted, not listed), the
/// warning about cells whose run counts differ, a line per scenario whose
/// profile changed (its cells not compared), and the summary line.
pub fn render(diffs: &[CellDiff], tolerance: f64) -> String {
    // Nothing in the baseline to compare with (a new or empty history, a
    // report of other scenarios): one line saying so, not a table of
    // every cell marked `new`.
    if !diffs.is_empty() && diffs.iter().all(|d| d.movement == Movement::New) {
        return format!(
            "baseline: nothing compared: the baseline holds none of these {} cells (a new or empty history?), so none is gated\n",
            diffs.len()
        );
    }
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |x| crate::results::format::percent(x, 1));
    let delta = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => crate::results::format::points_bare(b - a),
        _ => "-".into(),
    };
    let count = |n: Option<usize>| n.map_or("-".to_string(), |n| n.to_string());
    let new = diffs.iter().filter(|d| d.movement == Movement::New).count();
    let changes = profile_changes(diffs);
    let other_profile: usize = changes.iter().map(|c| c.cells).sum();
    let moved: Vec<&CellDiff> = diffs
        .iter()
        .filter(|d| {
            !matches!(
                d.movement,
                Movement::Unchanged | Movement::New | Movement::ProfileChanged
            )
        })
        .collect();
    let unchanged = diffs.len() - moved.len() - new - other_profile;
    let mut out = String::new();
    if !moved.is_empty() {
        let mut builder = Builder::default();
        let mut header = vec!["scenario", "settings", "runs"];
        for metric in Metric::gated() {
            header.extend([metric.baseline.unwrap_or(metric.name), "Δ pts"]);
        }
        header.push("status");
        builder.push_record(header);
        for d in &moved {
            let mut row = vec![
                escape(&d.scenario).into_owned(),
                escape(&d.settings.to_string()).into_owned(),
                if d.counts_differ() {
                    format!("{} → {}", count(d.old_runs), count(d.new_runs))
                } else {
                    count(d.new_runs.or(d.old_runs))
                },
            ];
            for index in 0..Metric::gated().count() {
                let at = |v: &Option<Vec<f64>>| v.as_ref().and_then(|v| v.get(index).copied());
                let (before, after) = (at(&d.old), at(&d.new));
                row.push(format!("{} → {}", pct(before), pct(after)));
                row.push(delta(before, after));
            }
            row.push(d.movement.label().to_string());
            builder.push_record(row);
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
    for change in &changes {
        let _ = writeln!(
            out,
            "profile changed: {}: {} → {}; its {} cell{} not compared (other parameters make other figures)",
            escape(&change.scenario),
            escape(&profile_name(change.from.as_ref())),
            escape(&profile_name(change.to.as_ref())),
            change.cells,
            if change.cells == 1 { "" } else { "s" },
        );
    }
    let regressions = diffs
        .iter()
        .filter(|d| d.movement == Movement::Regressed)
        .count();
    let _ = writeln!(
        out,
        "baseline: {} cells compared, {unchanged} unchanged, {} moved, {regressions} regressed (tolerance {:.1} points){}{}",
        diffs.len() - new - other_profile,
        moved.len(),
        tolerance * 100.0,
        if new == 0 {
            String::new()
        } else {
            format!("; {new} new, not in the baseline, not gated")
        },
        if other_profile == 0 {
            String::new()
        } else {
            format!("; {other_profile} under another profile, not compared")
        }
    );
    crate::report::escape::drop_bidi_owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::baseline::compare;
    use crate::results::baseline::tests::cell;

    #[test]
    fn the_table_lists_what_moved_and_counts_the_rest() {
        let old = [cell("s", 1, 200, 0.9, 0.5), cell("s", 3, 200, 0.9, 0.5)];
        let new = [cell("s", 1, 200, 0.84, 0.5), cell("s", 3, 200, 0.86, 0.46)];
        let table = render(&compare(&old, &new, 0.05), 0.05);
        assert!(
            table.contains("REGRESSED") && table.contains("1 unchanged"),
            "{table}"
        );
        assert!(!table.contains("warning"), "{table}");
    }

    #[test]
    fn a_baseline_without_these_cells_says_nothing_was_compared() {
        let now = [cell("s", 1, 200, 0.9, 0.5), cell("s", 3, 200, 0.9, 0.5)];
        let empty = render(&compare(&[], &now, 0.05), 0.05);
        assert_eq!(
            empty,
            "baseline: nothing compared: the baseline holds none of these 2 cells \
             (a new or empty history?), so none is gated\n"
        );
        // Beside cells that were compared, new ones are counted, not listed.
        let one = render(&compare(&now[..1], &now, 0.05), 0.05);
        assert_eq!(
            one,
            "baseline: 1 cells compared, 1 unchanged, 0 moved, 0 regressed (tolerance 5.0 points); \
             1 new, not in the baseline, not gated\n"
        );
    }

    #[test]
    fn a_changed_profile_is_named_once_per_scenario_and_not_compared() {
        let profile = crate::model::simulated::profile::ProfileRef {
            file: "my-agent.yaml".into(),
            sha256: "0123456789abcdef".into(),
        };
        let old = [cell("s", 1, 200, 0.9, 0.5), cell("s", 3, 200, 0.9, 0.5)];
        let new = [
            cell("s", 1, 200, 0.2, 0.0).under(Some(profile.clone())),
            cell("s", 3, 200, 0.2, 0.0).under(Some(profile)),
        ];
        let text = render(&compare(&old, &new, 0.05), 0.05);
        assert_eq!(
            text,
            "profile changed: s: the defaults → my-agent.yaml (sha256 0123456789ab); \
             its 2 cells not compared (other parameters make other figures)\n\
             baseline: 0 cells compared, 0 unchanged, 0 moved, 0 regressed (tolerance 5.0 points); \
             2 under another profile, not compared\n"
        );
    }

    #[test]
    fn a_move_within_the_noise_is_marked_and_warned_about() {
        let old = [cell("s", 3, 200, 0.8, 0.5)];
        let noisy = [cell("s", 3, 10, 0.7, 0.4)];
        let table = render(&compare(&old, &noisy, 0.05), 0.05);
        assert!(table.contains("noise?"), "{table}");
        assert!(table.contains("200 → 10"), "{table}");
        assert!(
            table.contains("warning: 1 cell ran a different number of runs"),
            "{table}"
        );
    }
}
