//! Expectations (`expect:`): exact results of every run, bounds on
//! aggregates of selected cells, and paired comparisons of two selections.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

use super::axes::CellSelector;
use crate::agent::StopKind;

/// A bound on a measured number.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Bound {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_least: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_most: Option<f64>,
}

impl Bound {
    pub fn holds(&self, measured: f64) -> bool {
        self.at_least.is_none_or(|lo| measured >= lo)
            && self.at_most.is_none_or(|hi| measured <= hi)
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.at_least, self.at_most) {
            (Some(lo), Some(hi)) => write!(f, "in [{lo}, {hi}]"),
            (Some(lo), None) => write!(f, ">= {lo}"),
            (None, Some(hi)) => write!(f, "<= {hi}"),
            (None, None) => f.write_str("(any)"),
        }
    }
}

/// A metric one run reports exactly.
#[derive(Debug, Clone, PartialEq)]
pub enum ExactExpectation {
    RemindersAt(Vec<usize>),
    StepsCompleted(usize),
    RejectedTodoUpdates(usize),
    TodoCalls(usize),
    UnknownToolCalls(usize),
    Stop(StopKind),
    Turns(usize),
    ProtocolViolations(usize),
    /// A cassette's drifting turns; `drift_turns: []` is "no drift".
    DriftTurns(Vec<usize>),
}

impl ExactExpectation {
    /// The key it is written under.
    pub fn name(&self) -> &'static str {
        match self {
            Self::RemindersAt(_) => "reminders_at",
            Self::StepsCompleted(_) => "steps_completed",
            Self::RejectedTodoUpdates(_) => "rejected_todo_updates",
            Self::TodoCalls(_) => "todo_calls",
            Self::UnknownToolCalls(_) => "unknown_tool_calls",
            Self::Stop(_) => "stop",
            Self::Turns(_) => "turns",
            Self::ProtocolViolations(_) => "protocol_violations",
            Self::DriftTurns(_) => "drift_turns",
        }
    }

    /// The expected value, as JSON.
    pub fn expected(&self) -> Value {
        match self {
            Self::RemindersAt(v) | Self::DriftTurns(v) => serde_json::json!(v),
            Self::StepsCompleted(v)
            | Self::RejectedTodoUpdates(v)
            | Self::TodoCalls(v)
            | Self::UnknownToolCalls(v)
            | Self::Turns(v)
            | Self::ProtocolViolations(v) => serde_json::json!(v),
            Self::Stop(v) => serde_json::json!(v),
        }
    }
}

/// An aggregate over the runs of the selected cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AggregateMetric {
    CompletionRate,
    FullCompletionRate,
    MeanStepsCompleted,
    MeanReminders,
    MeanRejectedTodoUpdates,
    MeanTurns,
    MeanProtocolViolations,
}

impl AggregateMetric {
    pub fn name(self) -> &'static str {
        match self {
            Self::CompletionRate => "completion_rate",
            Self::FullCompletionRate => "full_completion_rate",
            Self::MeanStepsCompleted => "mean_steps_completed",
            Self::MeanReminders => "mean_reminders",
            Self::MeanRejectedTodoUpdates => "mean_rejected_todo_updates",
            Self::MeanTurns => "mean_turns",
            Self::MeanProtocolViolations => "mean_protocol_violations",
        }
    }
}

/// How two selections are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// metric(a) / metric(b)
    Ratio(AggregateMetric),
    /// metric(a) - metric(b)
    Diff(AggregateMetric),
    /// The paired test's p-value for a differing from b on this metric.
    PValue(AggregateMetric),
}

impl Comparison {
    pub fn name(self) -> String {
        match self {
            Self::Ratio(m) => format!("{}_ratio", m.name()),
            Self::Diff(m) => format!("{}_diff", m.name()),
            Self::PValue(m) => format!("{}_p_value", m.name()),
        }
    }
}

/// One validated `expect:` entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Expectation {
    /// Holds for every run of every cell.
    Exact(ExactExpectation),
    /// An aggregate over the runs of the cells `selector` matches.
    Bound {
        selector: CellSelector,
        metric: AggregateMetric,
        bound: Bound,
    },
    /// Selection `a` against selection `b`, paired by seed.
    Compare {
        a: CellSelector,
        b: CellSelector,
        comparison: Comparison,
        bound: Bound,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpectation {
    reminders_at: Option<Vec<usize>>,
    steps_completed: Option<usize>,
    rejected_todo_updates: Option<usize>,
    todo_calls: Option<usize>,
    unknown_tool_calls: Option<usize>,
    stop: Option<StopKind>,
    turns: Option<usize>,
    protocol_violations: Option<usize>,
    drift_turns: Option<Vec<usize>>,
    #[serde(rename = "where")]
    selector: Option<CellSelector>,
    completion_rate: Option<Bound>,
    full_completion_rate: Option<Bound>,
    mean_steps_completed: Option<Bound>,
    mean_reminders: Option<Bound>,
    mean_rejected_todo_updates: Option<Bound>,
    mean_turns: Option<Bound>,
    mean_protocol_violations: Option<Bound>,
    compare: Option<ComparePair>,
    completion_rate_ratio: Option<Bound>,
    completion_rate_diff: Option<Bound>,
    completion_rate_p_value: Option<Bound>,
    full_completion_rate_ratio: Option<Bound>,
    full_completion_rate_diff: Option<Bound>,
    full_completion_rate_p_value: Option<Bound>,
    mean_reminders_diff: Option<Bound>,
    mean_turns_diff: Option<Bound>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct ComparePair {
    a: CellSelector,
    b: CellSelector,
}

/// Written back in the shape it is read in, so a report can carry its
/// scenario's expectations and `merge` can check them again.
impl Serialize for Expectation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        match self {
            Expectation::Exact(exact) => {
                map.serialize_entry(exact.name(), &exact.expected())?;
            }
            Expectation::Bound {
                selector,
                metric,
                bound,
            } => {
                map.serialize_entry("where", selector)?;
                map.serialize_entry(metric.name(), bound)?;
            }
            Expectation::Compare {
                a,
                b,
                comparison,
                bound,
            } => {
                map.serialize_entry(
                    "compare",
                    &ComparePair {
                        a: a.clone(),
                        b: b.clone(),
                    },
                )?;
                map.serialize_entry(&comparison.name(), bound)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Expectation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use AggregateMetric as M;
        let raw = RawExpectation::deserialize(d)?;
        let mut exact = Vec::new();
        if let Some(v) = raw.reminders_at {
            exact.push(ExactExpectation::RemindersAt(v));
        }
        if let Some(v) = raw.steps_completed {
            exact.push(ExactExpectation::StepsCompleted(v));
        }
        if let Some(v) = raw.rejected_todo_updates {
            exact.push(ExactExpectation::RejectedTodoUpdates(v));
        }
        if let Some(v) = raw.todo_calls {
            exact.push(ExactExpectation::TodoCalls(v));
        }
        if let Some(v) = raw.unknown_tool_calls {
            exact.push(ExactExpectation::UnknownToolCalls(v));
        }
        if let Some(v) = raw.stop {
            exact.push(ExactExpectation::Stop(v));
        }
        if let Some(v) = raw.turns {
            exact.push(ExactExpectation::Turns(v));
        }
        if let Some(v) = raw.protocol_violations {
            exact.push(ExactExpectation::ProtocolViolations(v));
        }
        if let Some(v) = raw.drift_turns {
            exact.push(ExactExpectation::DriftTurns(v));
        }
        let aggregates: Vec<(M, Bound)> = [
            (M::CompletionRate, raw.completion_rate),
            (M::FullCompletionRate, raw.full_completion_rate),
            (M::MeanStepsCompleted, raw.mean_steps_completed),
            (M::MeanReminders, raw.mean_reminders),
            (M::MeanRejectedTodoUpdates, raw.mean_rejected_todo_updates),
            (M::MeanTurns, raw.mean_turns),
            (M::MeanProtocolViolations, raw.mean_protocol_violations),
        ]
        .into_iter()
        .filter_map(|(m, b)| b.map(|b| (m, b)))
        .collect();
        let comparisons: Vec<(Comparison, Bound)> = [
            (
                Comparison::Ratio(M::CompletionRate),
                raw.completion_rate_ratio,
            ),
            (
                Comparison::Diff(M::CompletionRate),
                raw.completion_rate_diff,
            ),
            (
                Comparison::PValue(M::CompletionRate),
                raw.completion_rate_p_value,
            ),
            (
                Comparison::Ratio(M::FullCompletionRate),
                raw.full_completion_rate_ratio,
            ),
            (
                Comparison::Diff(M::FullCompletionRate),
                raw.full_completion_rate_diff,
            ),
            (
                Comparison::PValue(M::FullCompletionRate),
                raw.full_completion_rate_p_value,
            ),
            (Comparison::Diff(M::MeanReminders), raw.mean_reminders_diff),
            (Comparison::Diff(M::MeanTurns), raw.mean_turns_diff),
        ]
        .into_iter()
        .filter_map(|(c, b)| b.map(|b| (c, b)))
        .collect();

        let bounds = aggregates.iter().map(|(_, b)| b);
        for bound in bounds.chain(comparisons.iter().map(|(_, b)| b)) {
            if bound.at_least.is_none() && bound.at_most.is_none() {
                return Err(de::Error::custom(
                    "a bound needs `at_least` and/or `at_most`",
                ));
            }
        }
        let kinds = usize::from(!exact.is_empty())
            + usize::from(!aggregates.is_empty() || raw.selector.is_some())
            + usize::from(!comparisons.is_empty() || raw.compare.is_some());
        let count = exact.len() + aggregates.len() + comparisons.len();
        if kinds != 1 || count != 1 {
            return Err(de::Error::custom(
                "each expectation states one thing: one exact metric (e.g. `turns: 9`), \
                 or `where` with one aggregate bound (e.g. `completion_rate: {at_least: 0.8}`), \
                 or `compare: {a, b}` with one comparison bound (e.g. `completion_rate_ratio: {at_least: 2}`)",
            ));
        }
        if let Some(e) = exact.pop() {
            return Ok(Expectation::Exact(e));
        }
        if let Some((metric, bound)) = aggregates.into_iter().next() {
            return Ok(Expectation::Bound {
                selector: raw.selector.unwrap_or_default(),
                metric,
                bound,
            });
        }
        let pair = raw.compare.ok_or_else(|| {
            de::Error::custom("a comparison bound needs `compare: {a: ..., b: ...}`")
        })?;
        let (comparison, bound) = comparisons
            .into_iter()
            .next()
            .ok_or_else(|| de::Error::custom("`compare` needs a comparison bound"))?;
        Ok(Expectation::Compare {
            a: pair.a,
            b: pair.b,
            comparison,
            bound,
        })
    }
}
