//! The terminal summary of `run`, a reporter: each failing scenario whole,
//! each passing one on one line when there are several (whole with
//! `--verbose`, left out with `--quiet`), the summary line, what could
//! not run, and the cells against `--baseline`. It goes to stdout, or to
//! stderr when a report takes stdout.

use std::io::Write;

use super::reporters::{Finished, Reporter, Streams};
use crate::app::AppError;
use crate::eval::Shard;
use crate::report::table;
use crate::results::ScenarioResult;
use crate::results::verdict::Verdict;

/// How the summary is shown.
pub(super) struct TerminalSummary {
    pub quiet: bool,
    /// `--verbose`: every scenario whole, every column and comparison.
    pub detail: table::Detail,
    pub color: bool,
    /// `--steps`: each step's completion rate per cell under the table.
    pub steps: bool,
    pub shard: Option<Shard>,
    pub tolerance: f64,
    /// A report takes stdout: the summary goes to stderr.
    pub to_stderr: bool,
}

impl TerminalSummary {
    fn render(&self, finished: &Finished<'_>) -> Vec<u8> {
        let mut human: Vec<u8> = Vec::new();
        // A shard's cells hold a part of their runs: tables of them would
        // mislead, so a shard prints only its summary line.
        let count = finished.results.len();
        for result in finished.results.iter().filter(|_| self.shard.is_none()) {
            match table::showing(result, count, self.quiet, self.detail) {
                table::Shown::Hidden => {}
                table::Shown::OneLine => {
                    let _ = write!(human, "{}", table::one_line(result, self.color));
                }
                table::Shown::Whole => {
                    let _ = writeln!(human, "{}", table::render(result, self.color, self.detail));
                    if self.steps {
                        let _ = writeln!(human, "{}", table::steps_table(&result.cells));
                    }
                }
            }
        }
        if count > 1 && !self.quiet && self.shard.is_none() {
            let _ = writeln!(human);
        }
        match self.shard {
            Some(shard) => {
                let _ = writeln!(
                    human,
                    "shard {shard}: {} run{}; expectations are checked when the shards are merged{}",
                    finished.ran,
                    plural(finished.ran),
                    bad_files(finished.bad_files)
                );
            }
            None => self.render_totals(&mut human, finished),
        }
        if let Some(diffs) = finished.baseline {
            let text = crate::report::baseline::render(diffs, self.tolerance);
            let regressed = diffs
                .iter()
                .any(|d| d.movement == crate::results::baseline::Movement::Regressed);
            // `-q`: the table of moves only when a cell regressed, else
            // just the closing line (how many were compared, and how).
            let shown = if self.quiet && !regressed {
                table::closing_line(&text)
            } else {
                text
            };
            let _ = write!(human, "{shown}");
        }
        human
    }

    /// The summary line of an unsharded run, and what did not run. When
    /// nothing was measured because runs could not happen, no "0
    /// scenarios" line comes first: the last line says what happened.
    fn render_totals(&self, human: &mut Vec<u8>, finished: &Finished<'_>) {
        let nothing_measured = finished.results.is_empty() && finished.bad_files == 0;
        if finished.run_failures == 0 || !nothing_measured {
            summary_line(
                human,
                finished.results,
                finished.bad_files,
                finished.run_failures,
            );
        }
        let other_failures = finished
            .run_failures
            .saturating_sub(finished.agent_failures);
        if other_failures > 0 {
            let _ = writeln!(
                human,
                "{other_failures} run error{} (above): those scenarios are not reported",
                plural(other_failures)
            );
        }
        if finished.agent_failures > 0 {
            let _ = writeln!(
                human,
                "could not start the agent: {} scenario{} not measured (the error{} above)",
                finished.agent_failures,
                plural(finished.agent_failures),
                plural(finished.agent_failures)
            );
        }
        if !finished.skipped.is_empty() {
            let _ = writeln!(
                human,
                "--fail-fast: {} scenario{} not run: {}",
                finished.skipped.len(),
                plural(finished.skipped.len()),
                finished.skipped.join(", ")
            );
        }
    }
}

impl Reporter for TerminalSummary {
    fn write(
        &mut self,
        finished: &Finished<'_>,
        streams: &mut Streams<'_>,
    ) -> Result<(), AppError> {
        let human = self.render(finished);
        let target: &mut dyn Write = if self.to_stderr {
            streams.err
        } else {
            streams.out
        };
        target.write_all(&human).map_err(AppError::stdout)
    }
}

/// The summary's last line (`merge` prints it too).
pub(crate) fn print_failures(out: &mut dyn Write, results: &[ScenarioResult]) {
    summary_line(out, results, 0, 0);
}

/// The last line of the summary: scenarios, expectations, failures and
/// files that could not be read. Each failure itself is printed once,
/// with its detail, under its scenario's table. `not_run`: runs that
/// could not happen (said on lines of their own after this one).
fn summary_line(out: &mut dyn Write, results: &[ScenarioResult], bad: usize, not_run: usize) {
    let count = |verdict: Verdict| ScenarioResult::count_verdicts(results, verdict);
    let (held, failed, na) = (
        count(Verdict::Pass),
        count(Verdict::Fail),
        count(Verdict::NotApplicable),
    );
    let total: usize = results.iter().map(|r| r.expectations.len()).sum();
    // "all held" only when nothing else is to be said: not after a file
    // that could not be read or a run that could not happen, nor beside a
    // failure or a comparison that did not apply.
    let verdict = if failed == 0 && na == 0 && bad == 0 && not_run == 0 {
        "all held".to_string()
    } else {
        [(held, "held"), (failed, "failed"), (na, "not applicable")]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, word)| format!("{n} {word}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let verdict = if verdict.is_empty() {
        "none to check".to_string()
    } else {
        verdict
    };
    let _ = writeln!(
        out,
        "{} scenario{}, {total} expectation{}: {verdict}{}",
        results.len(),
        plural(results.len()),
        plural(total),
        bad_files(bad)
    );
}

fn bad_files(bad: usize) -> String {
    match bad {
        0 => String::new(),
        n => format!("; {n} file{} could not be read", plural(n)),
    }
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
