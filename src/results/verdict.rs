//! Checking `expect:` entries against a scenario's cells.
//!
//! Exact expectations must hold for every run of every cell. Bounds apply
//! to the runs of the selected cells pooled together. Comparisons compute
//! the metric on each side's pooled runs (ratio or difference) and, for the
//! statistics, pair runs that share a seed and every setting neither
//! selector fixes.

use serde::Serialize;
use serde_json::{Value, json};

use super::cell_runs::{RunRow, Runs};
use super::compare::PairedStats;
use super::format;
use super::record::RunResult;
use super::summary::{CellSummary, pair_by_seed, round6};
use crate::metric::PairedTest;
use crate::scenario::{
    Axis, CellSelector, CellSettings, Comparison, ExactExpectation, Expectation, Metric,
};

/// The outcome of one expectation (an `expectations` entry of the report).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpectationOutcome {
    /// What was expected, e.g. `completion_rate_ratio >= 2`.
    pub text: String,
    /// `false` only when it failed: a pass or a comparison that does not
    /// apply (see `verdict`) lets the run pass.
    pub ok: bool,
    /// `pass`, `fail` or `not_applicable` (then `detail` says why).
    pub verdict: Verdict,
    /// What was measured (a number, a list, a word; `null` if nothing was).
    pub measured: Value,
    /// Where the measurement came from, and why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// For comparisons: the paired statistics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired: Option<PairedStats>,
    /// When it failed: the `agent-eval replay` commands of the runs that
    /// show why (filled in by `run`, which knows the scenario files).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replay: Vec<String>,
}

/// How an expectation came out. `NotApplicable`: the runs cannot tell
/// what it asks, e.g. a comparison whose two sides are the same cells
/// because the agent under test does not distinguish them (a preset keeps
/// its own reminders, so `nag=3` and `nag=off` are one cell); it neither
/// passes nor fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
    NotApplicable,
}

impl Verdict {
    /// `Pass` when `ok`, else `Fail`.
    pub fn of(ok: bool) -> Self {
        if ok { Self::Pass } else { Self::Fail }
    }

    /// The word the terminal and the reports show.
    pub fn word(self) -> &'static str {
        match self {
            Self::Pass => "ok",
            Self::Fail => "FAIL",
            Self::NotApplicable => "n/a",
        }
    }
}

/// The expectation every cell with planning off carries without asking:
/// the agent does not plan there. It fails for an invalid cell (see
/// [`CellSummary::invalid`]), so the run fails and every report says why;
/// `None` for a cell that is a measurement.
pub fn planning_off_held(cell: &CellSummary) -> Option<ExpectationOutcome> {
    let why = cell.invalid.as_ref()?;
    Some(ExpectationOutcome {
        text: format!("no planning in cell {} (planning off)", cell.settings),
        ok: false,
        verdict: Verdict::Fail,
        measured: json!(cell.results.totals().planned_runs),
        detail: Some(format!(
            "cell {} is invalid: {why}; its figures and comparisons are no measurement",
            cell.settings
        )),
        paired: None,
        replay: Vec::new(),
    })
}

/// Evaluates one expectation.
pub fn evaluate(expectation: &Expectation, cells: &[CellSummary]) -> ExpectationOutcome {
    match expectation {
        Expectation::Exact(exact) => evaluate_exact(exact, cells),
        Expectation::Bound {
            selector,
            metric,
            bound,
        } => {
            let text = text_of(expectation, &[]);
            let selected = select_cells(selector, cells);
            let runs: usize = selected.iter().map(|c| c.results.len()).sum();
            if runs == 0 {
                return failed_without_runs(text, selector);
            }
            let measured = aggregate(metric, &selected);
            ExpectationOutcome {
                ok: bound.holds(measured),
                verdict: Verdict::of(bound.holds(measured)),
                measured: number(measured),
                detail: Some(format!("{runs} runs")),
                text,
                paired: None,
                replay: Vec::new(),
            }
        }
        Expectation::Compare {
            a,
            b,
            comparison,
            bound,
        } => evaluate_compare(text_of(expectation, &[]), a, b, *comparison, bound, cells),
        Expectation::Part { part, expectation } => {
            let mut outcome = match part_cells(cells, *part) {
                Ok(cells) => evaluate(expectation, &cells),
                Err(e) => failed_unmeasured(String::new(), e.to_string()),
            };
            outcome.text = format!("part {part}: {}", outcome.text);
            outcome
        }
    }
}

/// What `expectation` asks, as its outcome's `text` shows it, with the
/// `hidden` axes left out of its selectors: under a preset the agent's
/// own reminder policy stands where agent-eval's would, so a selector's
/// `nag=3` names nothing that ran.
pub fn text_of(expectation: &Expectation, hidden: &[Axis]) -> String {
    let shown = |selector: &CellSelector| {
        let entries = selector.entries().iter();
        CellSelector::new(
            entries
                .filter(|(axis, _)| !hidden.contains(axis))
                .cloned()
                .collect(),
        )
    };
    match expectation {
        Expectation::Exact(exact) => exact_text(exact),
        Expectation::Bound {
            selector,
            metric,
            bound,
        } => format!("{} {bound} where {}", metric.name, shown(selector)),
        Expectation::Compare {
            a,
            b,
            comparison,
            bound,
        } => format!(
            "{} {bound} ({} vs {})",
            comparison.name(),
            shown(a),
            shown(b)
        ),
        Expectation::Part { part, expectation } => {
            format!("part {part}: {}", text_of(expectation, hidden))
        }
    }
}

/// What an exact expectation asks, e.g. `steps_completed == 10`.
fn exact_text(exact: &ExactExpectation) -> String {
    match exact {
        ExactExpectation::DriftTurns(turns) if turns.is_empty() => "no drift".to_string(),
        _ => format!("{} == {}", exact.name(), exact.expected()),
    }
}

/// The cells with every run read as its part `part` (1-based) alone.
fn part_cells(
    cells: &[CellSummary],
    part: usize,
) -> Result<Vec<CellSummary>, super::cell_runs::SpillError> {
    cells
        .iter()
        .map(|cell| {
            let runs = cell
                .results
                .records()
                .map(|r| r.map(|run| super::parts::part_view(&run, part)))
                .collect::<Result<Vec<_>, _>>()?;
            let steps_total = runs.first().map_or(0, |r| r.steps_total);
            Ok(CellSummary::new(cell.settings.clone(), steps_total, runs))
        })
        .collect()
}

fn failed_without_runs(text: String, selector: &CellSelector) -> ExpectationOutcome {
    failed_unmeasured(text, format!("no cell matches {selector}"))
}

/// A failure with nothing measured, `why` in its detail.
fn failed_unmeasured(text: String, why: String) -> ExpectationOutcome {
    ExpectationOutcome {
        text,
        ok: false,
        verdict: Verdict::Fail,
        measured: Value::Null,
        detail: Some(why),
        paired: None,
        replay: Vec::new(),
    }
}

fn number(x: f64) -> Value {
    if x.is_finite() {
        json!(round6(x))
    } else {
        json!(x.to_string())
    }
}

/// The runs of `cells`, with their cell's settings.
fn runs_of<'a>(cells: &[&'a CellSummary]) -> Vec<(&'a CellSettings, RunRow)> {
    cells
        .iter()
        .flat_map(|c| c.results.iter().map(move |r| (&c.settings, r)))
        .collect()
}

/// The matching cells.
fn select_cells<'a>(selector: &CellSelector, cells: &'a [CellSummary]) -> Vec<&'a CellSummary> {
    cells
        .iter()
        .filter(|c| selector.matches(&c.settings))
        .collect()
}

/// An aggregate metric over the pooled runs of `cells` (see
/// [`super::metric_values::aggregate`]).
pub fn aggregate(metric: &Metric, cells: &[&CellSummary]) -> f64 {
    let runs: Vec<&Runs> = cells.iter().map(|c| &c.results).collect();
    super::metric_values::aggregate(metric, &runs)
}

/// What an exact expectation measures on one run.
pub fn exact_measure(exact: &ExactExpectation, r: &RunResult) -> Value {
    match exact {
        ExactExpectation::RemindersAt(_) => json!(r.reminders_at),
        ExactExpectation::StepsCompleted(_) => json!(r.steps_completed),
        ExactExpectation::RejectedTodoUpdates(_) => json!(r.rejected_todo_updates),
        ExactExpectation::TodoCalls(_) => json!(r.todo_calls),
        ExactExpectation::UnknownToolCalls(_) => json!(r.unknown_tool_calls),
        ExactExpectation::UnexpectedUserMessages(_) => json!(r.unexpected_user_messages),
        ExactExpectation::Stop(_) => json!(r.stop),
        ExactExpectation::Turns(_) => json!(r.turns),
        ExactExpectation::ProtocolViolations(_) => json!(r.protocol_violations),
        ExactExpectation::DriftTurns(_) => json!(r.drift_turns),
    }
}

fn evaluate_exact(exact: &ExactExpectation, cells: &[CellSummary]) -> ExpectationOutcome {
    let expected = exact.expected();
    let measure = |r: &RunResult| exact_measure(exact, r);
    let text = exact_text(exact);
    if let Some(outcome) = exact_from_tallies(exact, &expected, &text, cells) {
        return outcome;
    }
    // Every run's record, read back one at a time: the first measured, and
    // the first that differs.
    let mut first: Option<Value> = None;
    let mut mismatch: Option<(&CellSettings, RunResult)> = None;
    'cells: for cell in cells {
        for record in cell.results.records() {
            let run = match record {
                Ok(run) => run,
                Err(e) => return failed_unmeasured(text, e.to_string()),
            };
            if first.is_none() {
                first = Some(measure(&run));
            }
            if measure(&run) != expected {
                mismatch = Some((&cell.settings, run));
                break 'cells;
            }
        }
    }
    let Some(first) = first else {
        return failed_without_runs(text, &CellSelector::default());
    };
    match mismatch {
        None => ExpectationOutcome {
            text,
            ok: true,
            verdict: Verdict::Pass,
            measured: first,
            detail: None,
            paired: None,
            replay: Vec::new(),
        },
        Some((settings, run)) => ExpectationOutcome {
            text,
            ok: false,
            verdict: Verdict::Fail,
            measured: measure(&run),
            detail: Some(format!(
                "expected {expected}, measured {} (seed {}, {settings})",
                measure(&run),
                run.seed
            )),
            paired: None,
            replay: Vec::new(),
        },
    }
}

/// The outcome of an exact expectation read off the cells' tallies, when
/// they decide it: the first run measures something else (it is the first
/// mismatch), or every cell's runs all measure the expected value. `None`
/// when some run must be read back to find the first mismatch. Gives what
/// reading every record would.
fn exact_from_tallies(
    exact: &ExactExpectation,
    expected: &Value,
    text: &str,
    cells: &[CellSummary],
) -> Option<ExpectationOutcome> {
    let mut ran = cells.iter().filter(|c| !c.results.is_empty());
    let first_cell = ran.next()?;
    let first = first_cell.results.totals().exact.first()?;
    let measured = exact_measure(exact, first);
    let outcome = |ok: bool, detail: Option<String>| ExpectationOutcome {
        text: text.to_string(),
        ok,
        verdict: Verdict::of(ok),
        measured: measured.clone(),
        detail,
        paired: None,
        replay: Vec::new(),
    };
    if measured != *expected {
        let detail = format!(
            "expected {expected}, measured {measured} (seed {}, {})",
            first.seed, first_cell.settings
        );
        return Some(outcome(false, Some(detail)));
    }
    let all_expected = std::iter::once(first_cell).chain(ran).all(|cell| {
        let tally = &cell.results.totals().exact;
        tally.uniform(exact)
            && tally.first().map(|r| exact_measure(exact, r)) == Some(measured.clone())
    });
    all_expected.then(|| outcome(true, None))
}

fn evaluate_compare(
    text: String,
    a: &CellSelector,
    b: &CellSelector,
    comparison: Comparison,
    bound: &crate::scenario::Bound,
    cells: &[CellSummary],
) -> ExpectationOutcome {
    let (side_a, side_b) = (select_cells(a, cells), select_cells(b, cells));
    let runs_a: usize = side_a.iter().map(|c| c.results.len()).sum();
    let runs_b: usize = side_b.iter().map(|c| c.results.len()).sum();
    if runs_a == 0 {
        return failed_without_runs(text, a);
    }
    if runs_b == 0 {
        return failed_without_runs(text, b);
    }
    if same_cells(&side_a, &side_b) {
        return not_applicable(text, a, b, &side_a);
    }
    // A side the agent planned in with planning off measures nothing.
    if let Some(cell) = side_a.iter().chain(&side_b).find(|c| c.invalid.is_some()) {
        let why = cell.invalid.as_deref().unwrap_or_default();
        let detail = format!(
            "cell {} is invalid: {why}; nothing is measured",
            cell.settings
        );
        return failed_unmeasured(text, detail);
    }
    let PairedStats {
        completion,
        full_completion: full,
    } = paired_stats(a, b, &side_a, &side_b);
    let measured = match comparison {
        Comparison::Ratio(m) => aggregate(m, &side_a) / aggregate(m, &side_b),
        Comparison::Diff(m) => aggregate(m, &side_a) - aggregate(m, &side_b),
        Comparison::PValue(m) => match m.compare.p_value {
            Some(PairedTest::McNemar) => full.p_value,
            Some(PairedTest::SignTest) | None => completion.p_value,
        },
    };
    ExpectationOutcome {
        ok: bound.holds(measured),
        verdict: Verdict::of(bound.holds(measured)),
        measured: number(measured),
        detail: Some(format!(
            "{} vs {} runs, {} pairs; completion {} {} (mean, bootstrap 95%), {} better / {} worse, sign test {}; full completion only-a {} only-b {}, McNemar {}",
            runs_a,
            runs_b,
            completion.pairs,
            format::points(completion.mean_diff),
            format::points_interval(completion.diff_ci95),
            completion.a_better,
            completion.b_better,
            super::summary::p_text(completion.p_value),
            full.only_a,
            full.only_b,
            super::summary::p_text(full.p_value)
        )),
        text,
        paired: Some(PairedStats {
            completion,
            full_completion: full,
        }),
        replay: Vec::new(),
    }
}

/// Whether both sides select exactly the same cells: then the runs do not
/// distinguish what the comparison asks about.
fn same_cells(side_a: &[&CellSummary], side_b: &[&CellSummary]) -> bool {
    side_a.len() == side_b.len() && side_a.iter().zip(side_b).all(|(x, y)| std::ptr::eq(*x, *y))
}

/// A comparison of a selection with itself: not applicable, saying which
/// settings of the two sides no cell has (the agent under test does not
/// distinguish them, e.g. a preset keeps its own reminders) and which
/// cells both sides are.
fn not_applicable(
    text: String,
    a: &CellSelector,
    b: &CellSelector,
    cells: &[&CellSummary],
) -> ExpectationOutcome {
    let differing: Vec<String> = a
        .entries()
        .iter()
        .chain(b.entries())
        .filter(|(axis, value)| a.get(axis) != Some(value) || b.get(axis) != Some(value))
        .map(|(axis, _)| axis.name())
        .fold(Vec::new(), |mut names, name| {
            if !names.contains(&name) {
                names.push(name);
            }
            names
        });
    let which: Vec<String> = cells.iter().map(|c| c.settings.to_string()).collect();
    let why = if differing.is_empty() {
        "the two sides select the same settings".to_string()
    } else {
        format!(
            "no cell varies {}, so both sides are the same {} ({}); the agent under test does not distinguish them",
            differing.join(", "),
            if which.len() == 1 { "cell" } else { "cells" },
            which.join("; ")
        )
    };
    ExpectationOutcome {
        text,
        ok: true,
        verdict: Verdict::NotApplicable,
        measured: Value::Null,
        detail: Some(why),
        paired: None,
        replay: Vec::new(),
    }
}

/// The paired statistics of the runs of cells `side_a` (selected by `a`)
/// against those of `side_b` (by `b`). One cell on each side (the usual
/// `compare:`) pairs the two cells' rows as they are read, which is what
/// [`pair_runs`] finds then, without a list of every run.
fn paired_stats(
    a: &CellSelector,
    b: &CellSelector,
    side_a: &[&CellSummary],
    side_b: &[&CellSummary],
) -> PairedStats {
    if let ([cell_a], [cell_b]) = (side_a, side_b) {
        let fixed = fixed_axes(a, b);
        if !cell_a.settings.agrees_with(&cell_b.settings, &fixed) {
            return PairedStats::of(std::iter::empty());
        }
        return PairedStats::of(pair_by_seed(&cell_a.results, &cell_b.results));
    }
    let runs_a: Vec<(&CellSettings, RunRow)> = runs_of(side_a);
    let runs_b: Vec<(&CellSettings, RunRow)> = runs_of(side_b);
    PairedStats::of(pair_runs(a, b, &runs_a, &runs_b))
}

/// The axes either selector fixes.
fn fixed_axes<'s>(a: &'s CellSelector, b: &'s CellSelector) -> Vec<&'s Axis> {
    a.entries()
        .iter()
        .chain(b.entries())
        .map(|(axis, _)| axis)
        .collect()
}

/// Pairs each run of `a` with the run of `b` that has the same seed and
/// agrees on every axis neither selector fixes (where both cells list it);
/// among several, the one agreeing on most axes, then the first in cell
/// order.
fn pair_runs(
    a: &CellSelector,
    b: &CellSelector,
    runs_a: &[(&CellSettings, RunRow)],
    runs_b: &[(&CellSettings, RunRow)],
) -> Vec<(RunRow, RunRow)> {
    let fixed = fixed_axes(a, b);
    let agreeing = |sa: &CellSettings, sb: &CellSettings| {
        sa.entries()
            .iter()
            .filter(|(axis, value)| sb.get(axis) == Some(value))
            .count()
    };
    // The runs of `b` by seed (then cell order), so that each run of `a`
    // looks only at the runs of its seed.
    let mut by_seed: Vec<usize> = (0..runs_b.len()).collect();
    by_seed.sort_by_key(|&i| runs_b.get(i).map(|(_, r)| r.seed));
    let seed_at = |i: &usize| runs_b.get(*i).map_or(u64::MAX, |(_, r)| r.seed);
    runs_a
        .iter()
        .filter_map(|(sa, ra)| {
            let from = by_seed.partition_point(|i| seed_at(i) < ra.seed);
            let to = by_seed.partition_point(|i| seed_at(i) <= ra.seed);
            // `max_by_key` keeps the last maximum: iterate in reverse so
            // ties go to the first run in cell order.
            by_seed
                .get(from..to)?
                .iter()
                .rev()
                .filter_map(|&i| runs_b.get(i))
                .filter(|(sb, _)| sa.agrees_with(sb, &fixed))
                .max_by_key(|(sb, _)| agreeing(sa, sb))
                .map(|(_, rb)| (*ra, *rb))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{AxisValue, Bound, NagThreshold};

    fn selector(entries: Vec<(Axis, AxisValue)>) -> CellSelector {
        CellSelector::new(entries)
    }

    fn cell(todo: bool, completed: &[usize]) -> CellSummary {
        let settings = CellSettings::new(vec![
            (Axis::Todo, AxisValue::Bool(todo)),
            (
                Axis::NagThreshold,
                AxisValue::Threshold(NagThreshold::After(3)),
            ),
        ]);
        crate::results::summary::test_cell(settings, 4, completed, 0)
    }

    fn metric(name: &str) -> &'static Metric {
        Metric::named(name).unwrap()
    }

    #[test]
    fn a_metric_added_to_the_table_is_parsed_and_checked() {
        // `mean_unknown_tool_calls` is only a table entry: the parser, the
        // checker and the measurement all come from it.
        let off = cell(false, &[4, 4]);
        let mut runs: Vec<RunResult> = off.results.records().map_while(Result::ok).collect();
        runs[0].unknown_tool_calls = 3;
        let cells = [
            cell(true, &[4, 4]),
            CellSummary::new(off.settings.clone(), 4, runs),
        ];
        let spec: Vec<Expectation> = serde_json::from_value(json!([
            {"where": {"todo": false}, "mean_unknown_tool_calls": {"at_most": 1}},
            {"compare": {"a": {"todo": false}, "b": {"todo": true}},
             "mean_unknown_tool_calls_diff": {"at_most": 0}},
        ]))
        .unwrap();
        let outcomes: Vec<(bool, Value)> = spec
            .iter()
            .map(|e| evaluate(e, &cells))
            .map(|o| (o.ok, o.measured))
            .collect();
        assert_eq!(outcomes, [(false, json!(1.5)), (false, json!(1.5))]);
        let texts: Vec<String> = spec.iter().map(|e| evaluate(e, &cells).text).collect();
        assert_eq!(
            texts,
            [
                "mean_unknown_tool_calls <= 1 where todo=false",
                "mean_unknown_tool_calls_diff <= 0 (todo=false vs todo=true)"
            ]
        );
        // A ratio of it is not in its entry, so it is an unknown key.
        let ratio: Result<Expectation, _> = serde_json::from_value(json!(
            {"compare": {"a": {}, "b": {}}, "mean_unknown_tool_calls_ratio": {"at_most": 1}}
        ));
        let message = ratio.unwrap_err().to_string();
        assert!(
            message.contains("unknown field `mean_unknown_tool_calls_ratio`")
                && message.contains("mean_turns_diff"),
            "{message}"
        );
    }

    #[test]
    fn p_values_take_the_test_of_their_metric() {
        let cells = [cell(true, &[4, 4, 4, 4]), cell(false, &[3, 3, 3, 3])];
        let on = selector(vec![(Axis::Todo, AxisValue::Bool(true))]);
        let off = selector(vec![(Axis::Todo, AxisValue::Bool(false))]);
        let p = |name: &str| {
            evaluate(
                &Expectation::Compare {
                    a: on.clone(),
                    b: off.clone(),
                    comparison: Comparison::PValue(metric(name)),
                    bound: Bound {
                        at_least: None,
                        at_most: Some(1.0),
                    },
                },
                &cells,
            )
        };
        let sign = p("completion_rate");
        let mcnemar = p("full_completion_rate");
        let paired = sign.paired.clone().unwrap();
        assert_eq!(sign.measured, number(paired.completion.p_value));
        assert_eq!(mcnemar.measured, number(paired.full_completion.p_value));
    }

    #[test]
    fn a_comparison_of_a_cell_with_itself_is_not_applicable_and_says_why() {
        // As under a preset: the agent keeps its own reminders, so the
        // cells do not list `nag` and both sides select the same cell.
        let own = |todo: bool, completed: &[usize]| {
            let settings = CellSettings::new(vec![(Axis::Todo, AxisValue::Bool(todo))]);
            crate::results::summary::test_cell(settings, 4, completed, 0)
        };
        let cells = [own(true, &[4, 3]), own(false, &[1, 1])];
        let side = |todo: bool, nag: NagThreshold| {
            selector(vec![
                (Axis::Todo, AxisValue::Bool(todo)),
                (Axis::NagThreshold, AxisValue::Threshold(nag)),
            ])
        };
        let compare = |b: CellSelector| Expectation::Compare {
            a: side(true, NagThreshold::After(3)),
            b,
            comparison: Comparison::Diff(metric("completion_rate")),
            bound: Bound {
                at_least: Some(0.05),
                at_most: None,
            },
        };
        let same = evaluate(&compare(side(true, NagThreshold::Off)), &cells);
        assert_eq!((same.verdict, same.ok), (Verdict::NotApplicable, true));
        assert_eq!(same.measured, Value::Null);
        assert_eq!(
            same.detail.as_deref(),
            Some(
                "no cell varies nag_threshold, so both sides are the same cell (todo=true); \
                 the agent under test does not distinguish them"
            )
        );
        // Sides that differ on an axis the cells do vary are compared.
        let todo = evaluate(&compare(side(false, NagThreshold::After(3))), &cells);
        assert_eq!(todo.verdict, Verdict::Pass);
        assert_eq!(todo.measured, json!(0.625));
    }

    #[test]
    fn exact_expectations_name_the_first_run_that_differs() {
        let cells = [cell(true, &[4, 3])];
        let outcome = evaluate(
            &Expectation::Exact(ExactExpectation::StepsCompleted(4)),
            &cells,
        );
        assert!(!outcome.ok);
        assert_eq!(outcome.text, "steps_completed == 4");
        assert_eq!(outcome.measured, json!(3));
        assert_eq!(
            outcome.detail.as_deref(),
            Some("expected 4, measured 3 (seed 1, todo=true nag=3)")
        );
    }

    #[test]
    fn bounds_and_comparisons_pool_the_selected_runs() {
        let cells = [cell(true, &[4, 4, 2, 4]), cell(false, &[2, 1, 2, 1])];
        let on = selector(vec![(Axis::Todo, AxisValue::Bool(true))]);
        let off = selector(vec![(Axis::Todo, AxisValue::Bool(false))]);
        let bound = |at_least| Bound {
            at_least: Some(at_least),
            at_most: None,
        };
        let rate = evaluate(
            &Expectation::Bound {
                selector: on.clone(),
                metric: metric("completion_rate"),
                bound: bound(0.8),
            },
            &cells,
        );
        assert!(rate.ok);
        assert_eq!(rate.measured, json!(0.875));
        let ratio = evaluate(
            &Expectation::Compare {
                a: on.clone(),
                b: off.clone(),
                comparison: Comparison::Ratio(metric("completion_rate")),
                bound: bound(2.0),
            },
            &cells,
        );
        assert_eq!(ratio.measured, json!(2.333333));
        assert!(ratio.ok);
        let paired = ratio.paired.unwrap();
        assert_eq!(
            (
                paired.completion.pairs,
                paired.completion.a_better,
                paired.completion.b_better
            ),
            (4, 3, 0)
        );
        let none = selector(vec![(
            Axis::NagThreshold,
            AxisValue::Threshold(NagThreshold::Off),
        )]);
        let missing = evaluate(
            &Expectation::Bound {
                selector: none,
                metric: metric("mean_turns"),
                bound: bound(1.0),
            },
            &cells,
        );
        assert!(!missing.ok);
        assert_eq!(missing.detail.as_deref(), Some("no cell matches nag=off"));
    }
}
