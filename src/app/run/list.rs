//! `run --list`: what would run — each scenario with its cells and seeds,
//! the run count and, for real models, the cost estimate — and nothing is
//! run (nor any key needed).

use std::io::Write;

use super::evaluate::units_of;
use super::summary::plural;
use crate::app::AppError;
use crate::eval::{self, EvalOptions};
use crate::model::http::SpendEstimate;
use crate::report::terminal::escape;
use crate::scenario::Scenario;

/// Prints the listing to `out`.
pub(super) fn list(
    scenarios: &[Scenario],
    options: &EvalOptions,
    estimate: &SpendEstimate,
    out: &mut dyn Write,
) -> Result<(), AppError> {
    let mut text = String::new();
    let mut total = 0;
    for scenario in scenarios {
        let cells = eval::cells(scenario);
        let seeds = eval::matrix::seeds(scenario, options);
        let runs = units_of(scenario, options);
        total += runs;
        let steps = scenario.steps_total();
        text.push_str(&format!(
            "{} ({}): {steps} scored step{}, {} cell{}, {} seed{} ({}), {runs} run{}\n",
            escape(&scenario.name),
            escape(&scenario.file.display().to_string()),
            plural(steps),
            cells.len(),
            plural(cells.len()),
            seeds.len(),
            plural(seeds.len()),
            seed_range(&seeds),
            plural(runs),
        ));
        for cell in &cells {
            text.push_str(&format!("  {}\n", escape(&cell.settings.to_string())));
        }
    }
    text.push_str(&format!(
        "{} scenario{}, {total} run{} (nothing was run)\n",
        scenarios.len(),
        plural(scenarios.len()),
        plural(total)
    ));
    if !estimate.is_empty() {
        text.push_str(&format!("{}\n", estimate.line()));
    }
    out.write_all(text.as_bytes()).map_err(AppError::stdout)
}

/// Seeds as `0..49` when consecutive, else listed.
fn seed_range(seeds: &[u64]) -> String {
    match (seeds.first(), seeds.last()) {
        (Some(first), Some(last))
            if seeds.len() > 2
                && seeds
                    .windows(2)
                    .all(|w| matches!(w, [a, b] if *b == *a + 1)) =>
        {
            format!("{first}..{last}")
        }
        _ => seeds
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::seed_range;

    #[test]
    fn seeds_read_as_ranges() {
        assert_eq!(seed_range(&[0, 1, 2, 3]), "0..3");
        assert_eq!(seed_range(&[0]), "0");
        assert_eq!(seed_range(&[3, 7]), "3, 7");
        assert_eq!(seed_range(&[]), "");
    }
}
