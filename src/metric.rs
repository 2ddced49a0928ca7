//! The metric table: every aggregate a cell reports, in one place.
//!
//! Each [`Metric`] entry says everything the rest of the crate needs to
//! know about one aggregate: its name (the JSON `cells` key and the
//! `expect:` key), what it measures on one run ([`PerRun`]), how runs are
//! aggregated and whether it carries an interval ([`Kind`]), whether it is
//! written to the JSON report, which direction is better, what `expect:`
//! may do with it, and the columns it fills in the text, Markdown, HTML and
//! sweep tables. Summaries, the JSON writer and reader, the expectation
//! parser and checker, the report tables and the replay hints all iterate
//! [`METRICS`] instead of naming metrics, so adding a metric is adding an
//! entry here (plus a [`PerRun`] variant and its `RunResult` field when
//! it measures something new).
//!
//! The table lives at the scenario floor because the `expect:` parser needs
//! the names; the one function that reads a [`PerRun`] off a run record is
//! at the eval floor (`eval::metrics`), next to the record.

use std::fmt;

/// What a metric measures on one run (read off the run's record by
/// `eval::metrics::per_run`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerRun {
    /// steps_completed / steps_total (1 for a scenario with no scored step).
    Completion,
    /// 1 when every scored step was completed, else 0.
    FullCompletion,
    /// Scored steps whose check held.
    StepsCompleted,
    /// Reminders injected.
    Reminders,
    /// Todo updates the tool rejected.
    RejectedTodoUpdates,
    /// Calls of the planning tool.
    TodoCalls,
    /// Model turns.
    Turns,
    /// Protocol violations (answers the dialect could not accept).
    ProtocolViolations,
    /// Calls of tools that were not offered.
    UnknownToolCalls,
    /// Tokens of every request the model answered.
    ContextTokens,
    /// The planning part of them (planning calls, their results, reminders).
    PlanningTokens,
    /// planning tokens / context tokens; over a cell, the share of all its
    /// runs' tokens (a ratio of the two sums, not a mean of shares).
    PlanningShare,
    /// Turns whose every call was a planning call.
    PlanningTurns,
    /// Reminders added right after a turn with a planning call.
    RemindersAfterPlanning,
    /// User messages an outside agent sent that the scenario did not.
    UnexpectedUserMessages,
}

/// How a cell's runs are aggregated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A share in [0, 1]: the mean of a per-run value in [0, 1], with an
    /// optional 95% interval. JSON writes rates before `pass_hat_k`.
    Rate(Option<Interval>),
    /// The mean of a per-run count (finite, not negative). JSON writes
    /// means after `pass_hat_k`.
    Mean,
}

/// A rate's 95% interval: the JSON key it is written under and its method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub key: &'static str,
    pub method: IntervalMethod,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalMethod {
    /// Student-t interval of the mean of the per-run values, clipped to [0, 1].
    MeanT,
    /// Wilson interval of the runs whose value is 1.
    Wilson,
}

/// Whether a cell's JSON entry carries the metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    Always,
    /// Not written (a new key would change the bytes of existing reports);
    /// still measured for `expect:`.
    Never,
}

/// What `compare:` may ask of a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompareUse {
    /// `<name>_ratio`: metric(a) / metric(b).
    pub ratio: bool,
    /// `<name>_diff`: metric(a) - metric(b).
    pub diff: bool,
    /// `<name>_p_value`: the paired test's p-value.
    pub p_value: Option<PairedTest>,
}

impl CompareUse {
    pub const NONE: Self = Self {
        ratio: false,
        diff: false,
        p_value: None,
    };
}

/// The paired test behind a `<name>_p_value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairedTest {
    /// Exact sign test on the per-seed completion differences.
    SignTest,
    /// Exact McNemar test on per-seed full completion.
    McNemar,
}

/// How a column shows a cell's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `{:.N}`.
    Decimals(usize),
    /// A share as a whole percentage, `83%`.
    Percent,
    /// A share with its interval, in percent to one decimal: `83.0% [80.1, 86.2]`.
    PercentWithCi,
    /// Mean steps of the total with the completion interval in steps:
    /// `8.3/10 [8.0, 8.6]`.
    StepsWithCi,
    /// HTML only: a bar and a whole percentage.
    Bar,
    /// A token count, whole, with thousands separators: `11,833`.
    Tokens,
}

/// One column of a table: its header and format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub header: &'static str,
    pub format: Format,
}

/// The columns a metric fills in each table (in table order; `None`: not shown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    /// The terminal cells table (`agent-eval run`).
    pub text: Option<Column>,
    pub markdown: Option<Column>,
    pub html: Option<Column>,
    /// The sweep table (`agent-eval sweep`).
    pub sweep: Option<Column>,
}

impl Columns {
    pub const NONE: Self = Self {
        text: None,
        markdown: None,
        html: None,
        sweep: None,
    };
}

/// One aggregate metric.
#[derive(Debug)]
pub struct Metric {
    /// The JSON `cells` key and the `expect:` key.
    pub name: &'static str,
    /// What it measures, for the docs and `--help`-like listings.
    pub definition: &'static str,
    pub per_run: PerRun,
    pub kind: Kind,
    pub written: Written,
    /// Whether a higher value is better (replay hints show the worst runs;
    /// the baseline gate fails a move in the other direction).
    pub higher_is_better: bool,
    /// The baseline gate (`run --baseline`, `diff`) compares this metric,
    /// under this column header (rates with an interval only: a move within
    /// the intervals of differing run counts is noise).
    pub baseline: Option<&'static str>,
    /// Whether `expect:` accepts `where: ...` with a bound on it.
    pub bound: bool,
    pub compare: CompareUse,
    pub columns: Columns,
}

/// Metrics are told apart by name (names are unique; a test checks it).
impl PartialEq for Metric {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Metric {}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// Names code refers to directly (the sweep picks by them).
pub const COMPLETION_RATE: &str = "completion_rate";
pub const FULL_COMPLETION_RATE: &str = "full_completion_rate";
pub const MEAN_REMINDERS: &str = "mean_reminders";
pub const MEAN_CONTEXT_TOKENS: &str = "mean_context_tokens";

/// Every metric, in display order (tables show columns in this order; the
/// JSON writes the rates in this order, then `pass_hat_k`, then the means).
pub static METRICS: &[Metric] = &[
    Metric {
        name: "mean_steps_completed",
        definition: "mean over runs of the scored steps whose check held",
        per_run: PerRun::StepsCompleted,
        kind: Kind::Mean,
        written: Written::Always,
        higher_is_better: true,
        baseline: None,
        bound: true,
        compare: CompareUse::NONE,
        columns: Columns {
            text: Some(Column {
                header: "steps done (95% CI)",
                format: Format::StepsWithCi,
            }),
            markdown: None,
            html: Some(Column {
                header: "steps done (95% CI)",
                format: Format::StepsWithCi,
            }),
            sweep: None,
        },
    },
    Metric {
        name: COMPLETION_RATE,
        definition: "mean over runs of steps_completed / steps_total (1 when no step is scored), with a Student-t 95% interval (`completion_ci95`)",
        per_run: PerRun::Completion,
        kind: Kind::Rate(Some(Interval {
            key: "completion_ci95",
            method: IntervalMethod::MeanT,
        })),
        written: Written::Always,
        higher_is_better: true,
        baseline: Some("completion"),
        bound: true,
        compare: CompareUse {
            ratio: true,
            diff: true,
            p_value: Some(PairedTest::SignTest),
        },
        columns: Columns {
            text: Some(Column {
                header: "completion",
                format: Format::Percent,
            }),
            markdown: Some(Column {
                header: "completion (95% CI)",
                format: Format::PercentWithCi,
            }),
            html: Some(Column {
                header: "completion",
                format: Format::Bar,
            }),
            sweep: Some(Column {
                header: "completion (95% CI)",
                format: Format::PercentWithCi,
            }),
        },
    },
    Metric {
        name: FULL_COMPLETION_RATE,
        definition: "share of runs that completed every scored step, with a Wilson 95% interval (`full_completion_ci95`)",
        per_run: PerRun::FullCompletion,
        kind: Kind::Rate(Some(Interval {
            key: "full_completion_ci95",
            method: IntervalMethod::Wilson,
        })),
        written: Written::Always,
        higher_is_better: true,
        baseline: Some("full"),
        bound: true,
        compare: CompareUse {
            ratio: true,
            diff: true,
            p_value: Some(PairedTest::McNemar),
        },
        columns: Columns {
            text: Some(Column {
                header: "full",
                format: Format::Percent,
            }),
            markdown: Some(Column {
                header: "full",
                format: Format::Percent,
            }),
            html: Some(Column {
                header: "full",
                format: Format::Percent,
            }),
            sweep: Some(Column {
                header: "full",
                format: Format::Percent,
            }),
        },
    },
    Metric {
        name: MEAN_REMINDERS,
        definition: "mean over runs of the reminders injected",
        per_run: PerRun::Reminders,
        kind: Kind::Mean,
        written: Written::Always,
        higher_is_better: false,
        baseline: None,
        bound: true,
        compare: CompareUse {
            ratio: false,
            diff: true,
            p_value: None,
        },
        columns: Columns {
            text: Some(Column {
                header: "reminders",
                format: Format::Decimals(2),
            }),
            markdown: Some(Column {
                header: "reminders",
                format: Format::Decimals(2),
            }),
            html: Some(Column {
                header: "reminders",
                format: Format::Decimals(2),
            }),
            sweep: Some(Column {
                header: "reminders/run",
                format: Format::Decimals(2),
            }),
        },
    },
    Metric {
        name: "mean_rejected_todo_updates",
        definition: "mean over runs of the todo updates the tool rejected",
        per_run: PerRun::RejectedTodoUpdates,
        kind: Kind::Mean,
        written: Written::Always,
        higher_is_better: false,
        baseline: None,
        bound: true,
        compare: CompareUse::NONE,
        columns: Columns {
            text: Some(Column {
                header: "rejected",
                format: Format::Decimals(2),
            }),
            markdown: Some(Column {
                header: "rejected",
                format: Format::Decimals(2),
            }),
            html: Some(Column {
                header: "rejected",
                format: Format::Decimals(2),
            }),
            sweep: None,
        },
    },
    Metric {
        name: "mean_todo_calls",
        definition: "mean over runs of the calls of the planning tool",
        per_run: PerRun::TodoCalls,
        kind: Kind::Mean,
        written: Written::Always,
        higher_is_better: false,
        baseline: None,
        bound: false,
        compare: CompareUse::NONE,
        columns: Columns {
            text: Some(Column {
                header: "planning calls",
                format: Format::Decimals(1),
            }),
            markdown: Some(Column {
                header: "planning calls / run",
                format: Format::Decimals(1),
            }),
            html: Some(Column {
                header: "planning calls",
                format: Format::Decimals(1),
            }),
            sweep: None,
        },
    },
    Metric {
        name: "mean_turns",
        definition: "mean over runs of the model turns",
        per_run: PerRun::Turns,
        kind: Kind::Mean,
        written: Written::Always,
        higher_is_better: false,
        baseline: None,
        bound: true,
        compare: CompareUse {
            ratio: false,
            diff: true,
            p_value: None,
        },
        columns: Columns {
            text: Some(Column {
                header: "turns",
                format: Format::Decimals(1),
            }),
            markdown: Some(Column {
                header: "turns",
                format: Format::Decimals(1),
            }),
            html: Some(Column {
                header: "turns",
                format: Format::Decimals(1),
            }),
            sweep: Some(Column {
                header: "turns",
                format: Format::Decimals(1),
            }),
        },
    },
    Metric {
        name: "mean_protocol_violations",
        definition: "mean over runs of the answers the dialect could not accept",
        per_run: PerRun::ProtocolViolations,
        kind: Kind::Mean,
        written: Written::Always,
        higher_is_better: false,
        baseline: None,
        bound: true,
        compare: CompareUse::NONE,
        columns: Columns {
            text: Some(Column {
                header: "violations",
                format: Format::Decimals(2),
            }),
            markdown: None,
            html: Some(Column {
                header: "violations",
                format: Format::Decimals(2),
            }),
            sweep: None,
        },
    },
    // The price of planning (see `llm::price`).
    Metric {
        name: MEAN_CONTEXT_TOKENS,
        definition: "mean over runs of the tokens of every request the model answered (system prompt and messages, tool schemas excluded; characters / 4 rounded up per request, or a real API's input tokens)",
        per_run: PerRun::ContextTokens,
        kind: Kind::Mean,
        written: Written::Always,
        higher_is_better: false,
        baseline: None,
        bound: true,
        compare: CompareUse {
            ratio: true,
            diff: true,
            p_value: None,
        },
        columns: Columns {
            text: Some(Column {
                header: "tokens",
                format: Format::Tokens,
            }),
            markdown: Some(Column {
                header: "tokens",
                format: Format::Tokens,
            }),
            html: Some(Column {
                header: "tokens",
                format: Format::Tokens,
            }),
            sweep: Some(Column {
                header: "tokens/run",
                format: Format::Tokens,
            }),
        },
    },
    Metric {
        name: "mean_planning_tokens",
        definition: "mean over runs of the planning part of those tokens: planning calls' inputs, their results and reminder texts, each time they are sent",
        per_run: PerRun::PlanningTokens,
        kind: Kind::Mean,
        written: Written::Always,
        higher_is_better: false,
        baseline: None,
        bound: true,
        compare: CompareUse {
            ratio: true,
            diff: true,
            p_value: None,
        },
        columns: Columns::NONE,
    },
    Metric {
        name: "planning_share",
        definition: "the cell's planning tokens over its context tokens (a ratio of the two sums over the runs)",
        per_run: PerRun::PlanningShare,
        kind: Kind::Rate(None),
        written: Written::Always,
        higher_is_better: false,
        baseline: None,
        bound: true,
        compare: CompareUse {
            ratio: true,
            diff: true,
            p_value: None,
        },
        columns: Columns {
            text: Some(Column {
                header: "planning",
                format: Format::Percent,
            }),
            markdown: Some(Column {
                header: "planning share",
                format: Format::Percent,
            }),
            html: Some(Column {
                header: "planning share",
                format: Format::Percent,
            }),
            sweep: Some(Column {
                header: "planning",
                format: Format::Percent,
            }),
        },
    },
    Metric {
        name: "mean_planning_turns",
        definition: "mean over runs of the turns whose every call was a planning call",
        per_run: PerRun::PlanningTurns,
        kind: Kind::Mean,
        written: Written::Always,
        higher_is_better: false,
        baseline: None,
        bound: true,
        compare: CompareUse {
            ratio: false,
            diff: true,
            p_value: None,
        },
        columns: Columns::NONE,
    },
    Metric {
        name: "mean_reminders_after_planning",
        definition: "mean over runs of the reminders added right after a turn with a planning call",
        per_run: PerRun::RemindersAfterPlanning,
        kind: Kind::Mean,
        written: Written::Always,
        higher_is_better: false,
        baseline: None,
        bound: true,
        compare: CompareUse {
            ratio: false,
            diff: true,
            p_value: None,
        },
        columns: Columns::NONE,
    },
    // Measured for `expect:` only: writing it to every cell would change
    // the bytes of every existing report.
    Metric {
        name: "mean_unknown_tool_calls",
        definition: "mean over runs of the calls of tools that were not offered (not written to reports; for `expect:` bounds and diffs)",
        per_run: PerRun::UnknownToolCalls,
        kind: Kind::Mean,
        written: Written::Never,
        higher_is_better: false,
        baseline: None,
        bound: true,
        compare: CompareUse {
            ratio: false,
            diff: true,
            p_value: None,
        },
        columns: Columns::NONE,
    },
    Metric {
        name: "mean_unexpected_user_messages",
        definition: "mean over runs of the user messages an outside agent sent that the scenario did not (not written to reports; for `expect:` bounds and diffs)",
        per_run: PerRun::UnexpectedUserMessages,
        kind: Kind::Mean,
        written: Written::Never,
        higher_is_better: false,
        baseline: None,
        bound: true,
        compare: CompareUse {
            ratio: false,
            diff: true,
            p_value: None,
        },
        columns: Columns::NONE,
    },
];

impl Metric {
    /// The metric of this name.
    pub fn named(name: &str) -> Option<&'static Metric> {
        METRICS.iter().find(|m| m.name == name)
    }

    /// The metrics a cell's JSON entry carries, in the order they are written.
    pub fn written() -> impl Iterator<Item = &'static Metric> {
        let written = METRICS.iter().filter(|m| m.written == Written::Always);
        let rates = written.clone().filter(|m| m.is_rate());
        rates.chain(written.filter(|m| !m.is_rate()))
    }

    /// The metrics the baseline gate compares, in table order.
    pub fn gated() -> impl Iterator<Item = &'static Metric> {
        METRICS.iter().filter(|m| m.baseline.is_some())
    }

    pub fn is_rate(&self) -> bool {
        matches!(self.kind, Kind::Rate(_))
    }

    /// Why `x` cannot be a value of this metric, if it cannot: a rate (and
    /// each end of its interval) lies in [0, 1], a mean of counts is finite
    /// and not negative. The one rule for every figure read back (a JSON
    /// report, a history database).
    pub fn out_of_range(&self, x: f64) -> Option<String> {
        if self.is_rate() {
            (!(0.0..=1.0).contains(&x)).then(|| format!("{} {x} is not in [0, 1]", self.name))
        } else {
            (!(x.is_finite() && x >= 0.0))
                .then(|| format!("{} {x} is not a mean of counts", self.name))
        }
    }

    pub fn interval(&self) -> Option<Interval> {
        match self.kind {
            Kind::Rate(interval) => interval,
            Kind::Mean => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_the_named_ones_exist() {
        let mut names: Vec<&str> = METRICS.iter().map(|m| m.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), METRICS.len());
        for name in [
            COMPLETION_RATE,
            FULL_COMPLETION_RATE,
            MEAN_REMINDERS,
            MEAN_CONTEXT_TOKENS,
        ] {
            assert!(Metric::named(name).is_some(), "{name}");
        }
        assert!(Metric::named("mean_nothing").is_none());
    }

    #[test]
    fn the_json_order_is_rates_then_means() {
        let written: Vec<&str> = Metric::written().map(|m| m.name).collect();
        assert_eq!(
            written,
            [
                "completion_rate",
                "full_completion_rate",
                "planning_share",
                "mean_steps_completed",
                "mean_reminders",
                "mean_rejected_todo_updates",
                "mean_todo_calls",
                "mean_turns",
                "mean_protocol_violations",
                "mean_context_tokens",
                "mean_planning_tokens",
                "mean_planning_turns",
                "mean_reminders_after_planning",
            ]
        );
    }

    #[test]
    fn only_rates_carry_intervals_and_p_values_need_a_rate() {
        for m in METRICS {
            if m.baseline.is_some() {
                assert!(
                    m.interval().is_some() && m.written == Written::Always,
                    "{m}"
                );
            }
            if m.compare.p_value.is_some() {
                assert!(m.is_rate(), "{m}");
            }
            if !m.is_rate() {
                assert!(m.interval().is_none(), "{m}");
            }
        }
    }
}
