//! Expectations (`expect:`): exact results of every run, bounds on
//! aggregates of selected cells, and paired comparisons of two selections.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

use super::axes::CellSelector;
use crate::agent::StopKind;
use crate::metric::{METRICS, Metric};

/// A bound on a measured number.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Bound {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_least: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_most: Option<f64>,
}

/// How close to a threshold a measured number counts as on it: relative
/// to the larger of the two magnitudes and 1. Measures are ratios of
/// counts computed in floating point (18/45 − 9/45 is
/// 0.19999999999999993), so an exact comparison would let the last bit of
/// a rounding decide a verdict. The tolerance is millions of times that
/// rounding and far below the differences thresholds of a few decimals
/// are written to (docs/scenario-format.md).
pub const THRESHOLD_TOLERANCE: f64 = 1e-9;

/// Whether `measured` is at least `threshold`, within the tolerance. A
/// NaN is at least nothing.
pub fn reaches(measured: f64, threshold: f64) -> bool {
    let scale = measured.abs().max(threshold.abs()).max(1.0);
    measured >= threshold || threshold - measured <= THRESHOLD_TOLERANCE * scale
}

/// Whether `measured` is at most `threshold`, within the tolerance.
pub fn stays_within(measured: f64, threshold: f64) -> bool {
    reaches(-measured, -threshold)
}

impl Bound {
    /// Whether `measured` lies within the bound, each end within
    /// [`THRESHOLD_TOLERANCE`].
    pub fn holds(&self, measured: f64) -> bool {
        self.at_least.is_none_or(|lo| reaches(measured, lo))
            && self.at_most.is_none_or(|hi| stays_within(measured, hi))
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
    /// User messages an outside agent sent that the scenario did not.
    UnexpectedUserMessages(usize),
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
            Self::UnexpectedUserMessages(_) => "unexpected_user_messages",
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
            | Self::UnexpectedUserMessages(v)
            | Self::Turns(v)
            | Self::ProtocolViolations(v) => serde_json::json!(v),
            Self::Stop(v) => serde_json::json!(v),
        }
    }
}

/// How two selections are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// metric(a) / metric(b)
    Ratio(&'static Metric),
    /// metric(a) - metric(b)
    Diff(&'static Metric),
    /// The paired test's p-value for a differing from b on this metric.
    PValue(&'static Metric),
}

impl Comparison {
    pub fn name(self) -> String {
        match self {
            Self::Ratio(m) => format!("{}_ratio", m.name),
            Self::Diff(m) => format!("{}_diff", m.name),
            Self::PValue(m) => format!("{}_p_value", m.name),
        }
    }

    /// The metric compared.
    pub fn metric(self) -> &'static Metric {
        match self {
            Self::Ratio(m) | Self::Diff(m) | Self::PValue(m) => m,
        }
    }

    /// The comparison a key names (`completion_rate_ratio`, ...), if the
    /// metric table allows it.
    pub fn parse(key: &str) -> Option<Self> {
        METRICS.iter().find_map(|m| {
            let suffix = key.strip_prefix(m.name)?;
            match suffix {
                "_ratio" if m.compare.ratio => Some(Self::Ratio(m)),
                "_diff" if m.compare.diff => Some(Self::Diff(m)),
                "_p_value" if m.compare.p_value.is_some() => Some(Self::PValue(m)),
                _ => None,
            }
        })
    }

    /// Every comparison key the metric table allows, in table order.
    pub fn all() -> impl Iterator<Item = Self> {
        METRICS.iter().flat_map(|m| {
            [
                m.compare.ratio.then_some(Self::Ratio(m)),
                m.compare.diff.then_some(Self::Diff(m)),
                m.compare.p_value.map(|_| Self::PValue(m)),
            ]
            .into_iter()
            .flatten()
        })
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
        metric: &'static Metric,
        bound: Bound,
    },
    /// Selection `a` against selection `b`, paired by seed.
    Compare {
        a: CellSelector,
        b: CellSelector,
        comparison: Comparison,
        bound: Bound,
    },
    /// An expectation on one part of a session (`part: N`, 1-based): every
    /// run is read as its part N alone (its steps, turns, planning calls
    /// and reminders).
    Part {
        part: usize,
        expectation: Box<Expectation>,
    },
}

impl Expectation {
    /// Whether `part:` may select what this expectation measures: the
    /// figures a session records per part.
    pub fn measures_per_part(&self) -> bool {
        use crate::metric::PerRun as P;
        let per_part = |m: &Metric| {
            matches!(
                m.per_run,
                P::Completion
                    | P::FullCompletion
                    | P::StepsCompleted
                    | P::Reminders
                    | P::TodoCalls
                    | P::Turns
            )
        };
        match self {
            Self::Exact(exact) => matches!(
                exact,
                ExactExpectation::RemindersAt(_)
                    | ExactExpectation::StepsCompleted(_)
                    | ExactExpectation::TodoCalls(_)
                    | ExactExpectation::Turns(_)
            ),
            Self::Bound { metric, .. } => per_part(metric),
            // A p-value pairs whole runs; ratios and differences of means
            // are per part.
            Self::Compare { comparison, .. } => {
                !matches!(comparison, Comparison::PValue(_)) && per_part(comparison.metric())
            }
            Self::Part { .. } => false,
        }
    }
}

/// The keys `part:` may go with, for its error message.
const PER_PART_KEYS: &str = "steps_completed, turns, todo_calls, reminders_at; bounds on completion_rate, full_completion_rate, mean_steps_completed, mean_turns, mean_todo_calls, mean_reminders; their _ratio and _diff comparisons";

/// An `expect:` entry's keys as read, before the one-thing check.
#[derive(Default)]
struct RawExpectation {
    exact: Vec<ExactExpectation>,
    selector: Option<CellSelector>,
    aggregates: Vec<(&'static Metric, Bound)>,
    compare: Option<ComparePair>,
    comparisons: Vec<(Comparison, Bound)>,
    part: Option<usize>,
}

/// The exact-metric keys, in the order error messages list them.
const EXACT_KEYS: [&str; 10] = [
    "reminders_at",
    "steps_completed",
    "rejected_todo_updates",
    "todo_calls",
    "unknown_tool_calls",
    "unexpected_user_messages",
    "stop",
    "turns",
    "protocol_violations",
    "drift_turns",
];

/// Every key an expectation may have: the exact metrics, `where` and the
/// metric table's bounds, `compare` and the table's comparisons.
fn expectation_keys() -> &'static [&'static str] {
    static KEYS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
        let bounds = METRICS.iter().filter(|m| m.bound).map(|m| m.name);
        // Built once per process: the comparison names are leaked so that
        // serde's unknown-field error can list them.
        let comparisons = Comparison::all().map(|c| &*Box::leak(c.name().into_boxed_str()));
        EXACT_KEYS
            .into_iter()
            .chain(["part", "where"])
            .chain(bounds)
            .chain(["compare"])
            .chain(comparisons)
            .collect()
    });
    &KEYS
}

struct RawVisitor;

impl<'de> de::Visitor<'de> for RawVisitor {
    type Value = RawExpectation;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an expectation (a map)")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<RawExpectation, A::Error> {
        use ExactExpectation as E;
        let mut raw = RawExpectation::default();
        let mut seen: Vec<String> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                return Err(de::Error::custom(format!("duplicate field `{key}`")));
            }
            // An explicit `null` is as if the key were absent.
            let exact = match key.as_str() {
                "reminders_at" => map.next_value::<Option<_>>()?.map(E::RemindersAt),
                "steps_completed" => map.next_value::<Option<_>>()?.map(E::StepsCompleted),
                "rejected_todo_updates" => {
                    map.next_value::<Option<_>>()?.map(E::RejectedTodoUpdates)
                }
                "todo_calls" => map.next_value::<Option<_>>()?.map(E::TodoCalls),
                "unknown_tool_calls" => map.next_value::<Option<_>>()?.map(E::UnknownToolCalls),
                "unexpected_user_messages" => map
                    .next_value::<Option<_>>()?
                    .map(E::UnexpectedUserMessages),
                "stop" => map.next_value::<Option<_>>()?.map(E::Stop),
                "turns" => map.next_value::<Option<_>>()?.map(E::Turns),
                "protocol_violations" => map.next_value::<Option<_>>()?.map(E::ProtocolViolations),
                "drift_turns" => map.next_value::<Option<_>>()?.map(E::DriftTurns),
                "where" => {
                    raw.selector = map.next_value()?;
                    None
                }
                "compare" => {
                    raw.compare = map.next_value()?;
                    None
                }
                "part" => {
                    raw.part = map.next_value()?;
                    if raw.part == Some(0) {
                        return Err(de::Error::custom(
                            "part counts from 1 (the session's first part)",
                        ));
                    }
                    None
                }
                other => {
                    if let Some(metric) = Metric::named(other).filter(|m| m.bound) {
                        if let Some(bound) = map.next_value::<Option<Bound>>()? {
                            raw.aggregates.push((metric, bound));
                        }
                    } else if let Some(comparison) = Comparison::parse(other) {
                        if let Some(bound) = map.next_value::<Option<Bound>>()? {
                            raw.comparisons.push((comparison, bound));
                        }
                    } else {
                        return Err(de::Error::unknown_field(other, expectation_keys()));
                    }
                    None
                }
            };
            raw.exact.extend(exact);
            seen.push(key);
        }
        Ok(raw)
    }
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
        self.write_entries(&mut map)?;
        map.end()
    }
}

impl Expectation {
    fn write_entries<M: serde::ser::SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
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
                map.serialize_entry(metric.name, bound)?;
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
            Expectation::Part { part, expectation } => {
                map.serialize_entry("part", part)?;
                expectation.write_entries(map)?;
            }
        }
        Ok(())
    }
}

impl<'de> Deserialize<'de> for Expectation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut raw = d.deserialize_map(RawVisitor)?;
        let part = raw.part.take();
        let expectation = Self::from_raw(raw).map_err(de::Error::custom)?;
        match part {
            None => Ok(expectation),
            Some(_) if !expectation.measures_per_part() => Err(de::Error::custom(format!(
                "`part` selects a figure a session records per part: {PER_PART_KEYS}"
            ))),
            Some(part) => Ok(Expectation::Part {
                part,
                expectation: Box::new(expectation),
            }),
        }
    }
}

impl Expectation {
    fn from_raw(raw: RawExpectation) -> Result<Self, &'static str> {
        let RawExpectation {
            mut exact,
            selector,
            aggregates,
            compare,
            comparisons,
            part: _,
        } = raw;
        let bounds = aggregates.iter().map(|(_, b)| b);
        for bound in bounds.chain(comparisons.iter().map(|(_, b)| b)) {
            if bound.at_least.is_none() && bound.at_most.is_none() {
                return Err("a bound needs `at_least` and/or `at_most`");
            }
        }
        let kinds = usize::from(!exact.is_empty())
            + usize::from(!aggregates.is_empty() || selector.is_some())
            + usize::from(!comparisons.is_empty() || compare.is_some());
        let count = exact.len() + aggregates.len() + comparisons.len();
        if kinds != 1 || count != 1 {
            return Err(
                "each expectation states one thing: one exact metric (e.g. `turns: 9`), \
                 or `where` with one aggregate bound (e.g. `completion_rate: {at_least: 0.8}`), \
                 or `compare: {a, b}` with one comparison bound (e.g. `completion_rate_ratio: {at_least: 2}`)",
            );
        }
        if let Some(e) = exact.pop() {
            return Ok(Expectation::Exact(e));
        }
        if let Some((metric, bound)) = aggregates.into_iter().next() {
            return Ok(Expectation::Bound {
                selector: selector.unwrap_or_default(),
                metric,
                bound,
            });
        }
        let pair = compare.ok_or("a comparison bound needs `compare: {a: ..., b: ...}`")?;
        let (comparison, bound) = comparisons
            .into_iter()
            .next()
            .ok_or("`compare` needs a comparison bound")?;
        Ok(Expectation::Compare {
            a: pair.a,
            b: pair.b,
            comparison,
            bound,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_rounding_does_not_decide_a_verdict() {
        // 18/45 − 9/45 as a difference of means over runs came out as
        // 0.19999999999999993.
        let diff: f64 = 0.199_999_999_999_999_93;
        assert!(diff < 0.2);
        let bound = |lo, hi| Bound {
            at_least: lo,
            at_most: hi,
        };
        assert!(bound(Some(0.2), None).holds(diff));
        assert!(bound(None, Some(0.1)).holds(0.3 - 0.2));
        assert!(!bound(Some(0.2), None).holds(0.2 - 1e-6));
        assert!(!bound(None, Some(0.2)).holds(0.2 + 1e-6));
        assert!(!bound(Some(0.0), None).holds(f64::NAN));
        assert!(bound(Some(1e12), None).holds(1e12 - 1.0));
        assert!(!bound(Some(1e12), None).holds(1e12 - 1e4));
    }

    proptest! {
        /// A bound equal to a difference or ratio of count ratios holds on
        /// that difference however floating point rounds it, and one a
        /// count apart does not.
        #[test]
        fn bounds_on_ratios_of_counts_compare_as_the_exact_fractions(
            n in 1u32..2000, a in 0u32..2000, b in 0u32..2000,
        ) {
            let (a, b) = (a.min(n), b.min(n));
            let diff = f64::from(a) / f64::from(n) - f64::from(b) / f64::from(n);
            let exact = f64::from(a as i32 - b as i32) / f64::from(n);
            let step = 1.0 / f64::from(n);
            let bound = |lo, hi| Bound { at_least: lo, at_most: hi };
            prop_assert!(bound(Some(exact), Some(exact)).holds(diff));
            prop_assert!(!bound(Some(exact + step), None).holds(diff));
            prop_assert!(!bound(None, Some(exact - step)).holds(diff));
        }
    }
}
