//! The matrix's named axes: what a cell's settings are, how they are
//! written and read back, and how `where:` / `compare:` select cells.
//!
//! Axes come in a fixed order — `todo`, `dialect`, `reminder`,
//! `nag_threshold`, `placement`, then `simulate.<param>` in the order of
//! [`SimulateParams::NAMES`] — and a cell lists its settings in that order.
//! A cell lists `todo` always, every axis the matrix varies, and
//! `nag_threshold` whenever it applies and no `reminder` axis replaces it
//! (so reports keep the `todo`/`nag_threshold` keys they always had). An
//! axis that makes no difference in a cell (anything about planning when
//! `todo` is false, a threshold under another policy) is left out of it.

use serde::de::{self, Deserializer};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

use crate::model::simulated::SimulateParams;
use crate::plan::dialect::Dialect;
use crate::plan::reminder::{NagThreshold, Placement, ReminderSpec, ReminderSpecError};

/// An axis name or value that cannot be read; the message follows the
/// file:LINE of the entry that wrote it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AxisError {
    #[error(
        "unknown axis `{0}` (axes: todo, dialect, reminder, nag_threshold, placement, simulate.<param>)"
    )]
    UnknownAxis(String),
    #[error("unknown simulate parameter `{param}` (known: {known})")]
    UnknownParameter { param: String, known: String },
    #[error("{axis} values are true or false, got {got}")]
    NotABool { axis: String, got: Value },
    #[error("unknown dialect {got} (known: {known})")]
    UnknownDialect { got: Value, known: String },
    #[error(transparent)]
    Reminder(#[from] ReminderSpecError),
    #[error("placement is prepend, append or fold, got {0}")]
    Placement(Value),
    #[error("{axis} values are numbers, got {got}")]
    NotANumber { axis: String, got: Value },
}

/// One named axis.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Axis {
    Todo,
    Dialect,
    Reminder,
    NagThreshold,
    Placement,
    /// A simulated-model parameter (its index in [`SimulateParams::NAMES`]).
    Simulate(usize),
}

impl Axis {
    /// Parses `todo`, `dialect`, `reminder`, `nag_threshold`, `placement`
    /// or `simulate.<param>`.
    pub fn parse(name: &str) -> Result<Self, AxisError> {
        Ok(match name {
            "todo" => Self::Todo,
            "dialect" => Self::Dialect,
            "reminder" => Self::Reminder,
            "nag_threshold" => Self::NagThreshold,
            "placement" => Self::Placement,
            other => {
                let param = other
                    .strip_prefix("simulate.")
                    .ok_or_else(|| AxisError::UnknownAxis(other.to_string()))?;
                let index = SimulateParams::NAMES
                    .iter()
                    .position(|n| *n == param)
                    .ok_or_else(|| AxisError::UnknownParameter {
                        param: param.to_string(),
                        known: SimulateParams::NAMES.join(", "),
                    })?;
                Self::Simulate(index)
            }
        })
    }

    /// Whether the axis's values lie on a line (a nag threshold, a
    /// simulated-model parameter), so that neighbours can be joined and
    /// differences between them read as a rate; a category (dialect,
    /// reminder, placement) has no order.
    pub fn is_ordered(&self) -> bool {
        matches!(self, Self::NagThreshold | Self::Simulate(_))
    }

    pub fn name(&self) -> String {
        match self {
            Self::Todo => "todo".into(),
            Self::Dialect => "dialect".into(),
            Self::Reminder => "reminder".into(),
            Self::NagThreshold => "nag_threshold".into(),
            Self::Placement => "placement".into(),
            Self::Simulate(i) => format!(
                "simulate.{}",
                SimulateParams::NAMES.get(*i).copied().unwrap_or("?")
            ),
        }
    }

    /// The short name tables and labels use.
    pub fn label(&self) -> String {
        match self {
            Self::NagThreshold => "nag".into(),
            Self::Simulate(i) => SimulateParams::NAMES.get(*i).copied().unwrap_or("?").into(),
            other => other.name(),
        }
    }

    /// Reads one value of this axis.
    pub fn value(&self, raw: &Value) -> Result<AxisValue, AxisError> {
        let name = self.name();
        match self {
            Self::Todo => raw
                .as_bool()
                .map(AxisValue::Bool)
                .ok_or_else(|| AxisError::NotABool {
                    axis: name,
                    got: raw.clone(),
                }),
            Self::Dialect => Dialect::deserialize(raw)
                .map(AxisValue::Dialect)
                .map_err(|_| {
                    let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
                    AxisError::UnknownDialect {
                        got: raw.clone(),
                        known: known.join(", "),
                    }
                }),
            Self::Reminder => Ok(AxisValue::Reminder(ReminderSpec::from_value(raw)?)),
            Self::NagThreshold => {
                let text = match raw {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                Ok(AxisValue::Threshold(NagThreshold::parse(&text)?))
            }
            Self::Placement => Placement::deserialize(raw)
                .map(AxisValue::Placement)
                .map_err(|_| AxisError::Placement(raw.clone())),
            Self::Simulate(_) => raw
                .as_f64()
                .filter(|x| x.is_finite())
                .map(AxisValue::Number)
                .ok_or_else(|| AxisError::NotANumber {
                    axis: name,
                    got: raw.clone(),
                }),
        }
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// One axis's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AxisValue {
    Bool(bool),
    Dialect(Dialect),
    Reminder(ReminderSpec),
    Threshold(NagThreshold),
    Placement(Placement),
    Number(f64),
}

impl fmt::Display for AxisValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bool(b) => write!(f, "{b}"),
            Self::Dialect(d) => write!(f, "{d}"),
            Self::Reminder(r) => write!(f, "{r}"),
            Self::Threshold(t) => write!(f, "{t}"),
            Self::Placement(p) => write!(f, "{p}"),
            Self::Number(x) => write!(f, "{x}"),
        }
    }
}

impl Serialize for AxisValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Bool(b) => s.serialize_bool(*b),
            Self::Dialect(d) => d.serialize(s),
            Self::Reminder(r) => r.serialize(s),
            Self::Threshold(t) => t.serialize(s),
            Self::Placement(p) => p.serialize(s),
            Self::Number(x) => s.serialize_f64(*x),
        }
    }
}

/// Reads a map of axis names to values, in the order written.
fn read_map(map: serde_json::Map<String, Value>) -> Result<Vec<(Axis, AxisValue)>, AxisError> {
    let mut entries: Vec<(Axis, AxisValue)> = Vec::new();
    for (key, raw) in map {
        let axis = Axis::parse(&key)?;
        let value = axis.value(&raw)?;
        entries.push((axis, value));
    }
    Ok(entries)
}

/// A cell's settings (`settings` in every report), in axis order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CellSettings(Vec<(Axis, AxisValue)>);

impl CellSettings {
    /// Settings from (axis, value) pairs; they are put in axis order.
    pub fn new(mut entries: Vec<(Axis, AxisValue)>) -> Self {
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries.dedup_by(|a, b| a.0 == b.0);
        Self(entries)
    }

    pub fn entries(&self) -> &[(Axis, AxisValue)] {
        &self.0
    }

    /// This cell's value on `axis`, if it lists one.
    pub fn get(&self, axis: &Axis) -> Option<&AxisValue> {
        self.0.iter().find(|(a, _)| a == axis).map(|(_, v)| v)
    }

    /// Whether the planning tool is offered.
    pub fn todo(&self) -> bool {
        !matches!(self.get(&Axis::Todo), Some(AxisValue::Bool(false)))
    }

    /// These settings without `axis`.
    pub fn without(&self, axis: &Axis) -> Self {
        Self(self.0.iter().filter(|(a, _)| a != axis).cloned().collect())
    }

    /// Whether the two cells agree on every axis both list, except those
    /// in `except`.
    pub fn agrees_with(&self, other: &Self, except: &[&Axis]) -> bool {
        self.0.iter().all(|(axis, value)| {
            except.contains(&axis) || other.get(axis).is_none_or(|v| v == value)
        })
    }
}

/// `todo=true nag=3 dialect=codex`.
impl fmt::Display for CellSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|(a, v)| format!("{}={v}", a.label()))
            .collect();
        f.write_str(&parts.join(" "))
    }
}

impl Serialize for CellSettings {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (axis, value) in &self.0 {
            map.serialize_entry(&axis.name(), value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for CellSettings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = serde_json::Map::deserialize(d)?;
        read_map(map).map(Self::new).map_err(de::Error::custom)
    }
}

/// Selects cells by their settings: every key must match. A cell that
/// does not list an axis matches any value of it (the axis does not vary,
/// or makes no difference in that cell).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CellSelector(Vec<(Axis, AxisValue)>);

impl CellSelector {
    pub fn new(entries: Vec<(Axis, AxisValue)>) -> Self {
        Self(CellSettings::new(entries).0)
    }

    pub fn entries(&self) -> &[(Axis, AxisValue)] {
        &self.0
    }

    /// The selector's value on `axis`, if it fixes one.
    pub fn get(&self, axis: &Axis) -> Option<&AxisValue> {
        self.0.iter().find(|(a, _)| a == axis).map(|(_, v)| v)
    }

    pub fn matches(&self, cell: &CellSettings) -> bool {
        self.0
            .iter()
            .all(|(axis, value)| cell.get(axis).is_none_or(|v| v == value))
    }
}

impl fmt::Display for CellSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("all cells");
        }
        fmt::Display::fmt(&CellSettings(self.0.clone()), f)
    }
}

impl Serialize for CellSelector {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        CellSettings(self.0.clone()).serialize(s)
    }
}

impl<'de> Deserialize<'de> for CellSelector {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let Value::Object(map) = value else {
            return Err(de::Error::custom(format!(
                "a selector is a map of axis names to values, got {value}"
            )));
        };
        read_map(map).map(Self::new).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    /// The messages users read after an axis's file:LINE, pinned byte for
    /// byte.
    #[test]
    fn axis_messages_are_the_ones_users_read() {
        let err = |name: &str, raw: serde_json::Value| match Axis::parse(name) {
            Ok(axis) => axis
                .value(&raw)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default(),
            Err(e) => e.to_string(),
        };

        assert_eq!(
            err("speed", serde_json::json!(1)),
            "unknown axis `speed` (axes: todo, dialect, reminder, nag_threshold, placement, simulate.<param>)"
        );
        assert!(
            err("simulate.speed", serde_json::json!(1))
                .starts_with("unknown simulate parameter `speed` (known: attention_span, ")
        );
        assert_eq!(
            err("todo", serde_json::json!(1)),
            "todo values are true or false, got 1"
        );
        assert!(
            err("dialect", serde_json::json!("x"))
                .starts_with("unknown dialect \"x\" (known: s03, ")
        );
        assert_eq!(
            err("placement", serde_json::json!("top")),
            "placement is prepend, append or fold, got \"top\""
        );
        assert_eq!(
            err("simulate.plan_first", serde_json::json!("a")),
            "simulate.plan_first values are numbers, got \"a\""
        );
        assert_eq!(
            err("nag_threshold", serde_json::json!(0)),
            "nag threshold must be an integer >= 1 or \"off\", got `0`"
        );
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn settings_keep_axis_order_and_today_s_keys() {
        let s = CellSettings::new(vec![
            (
                Axis::NagThreshold,
                AxisValue::Threshold(NagThreshold::After(3)),
            ),
            (Axis::Todo, AxisValue::Bool(true)),
        ]);
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"todo":true,"nag_threshold":3}"#
        );
        let back: CellSettings =
            serde_json::from_value(json!({"todo": true, "nag_threshold": 3})).unwrap();
        assert_eq!(back, s);
        assert_eq!(s.to_string(), "todo=true nag=3");
    }

    #[test]
    fn selectors_match_what_the_cell_lists() {
        let cell = CellSettings::new(vec![(Axis::Todo, AxisValue::Bool(false))]);
        let sel: CellSelector =
            serde_json::from_value(json!({"todo": false, "nag_threshold": 3})).unwrap();
        assert!(
            sel.matches(&cell),
            "a threshold makes no difference without todo"
        );
        let sel: CellSelector = serde_json::from_value(json!({"todo": true})).unwrap();
        assert!(!sel.matches(&cell));
        let sel: CellSelector =
            serde_json::from_value(json!({"dialect": "s03", "simulate.attention_span": 300}))
                .unwrap();
        assert_eq!(sel.entries().len(), 2);
        assert!(serde_json::from_value::<CellSelector>(json!({"todoo": true})).is_err());
        assert!(serde_json::from_value::<CellSelector>(json!({"simulate.nope": 1})).is_err());
    }
}
