//! The run matrix (`runs:`): the values each varied axis takes, and the
//! seeds. Unset axes take the `agent:` (or `model.simulate`) value.

use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;
use std::collections::BTreeMap;

use super::axes::{Axis, AxisValue};
use super::seeds::Seeds;
use crate::plan::dialect::Dialect;
use crate::plan::reminder::{NagThreshold, Placement, ReminderSpec};

/// The run matrix.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunsSpec {
    /// Each varied axis with its values, in axis order.
    pub axes: Vec<(Axis, Vec<AxisValue>)>,
    pub seeds: Option<Seeds>,
}

impl RunsSpec {
    /// The values `axis` takes, if the matrix varies it.
    pub fn values(&self, axis: &Axis) -> Option<&[AxisValue]> {
        self.axes
            .iter()
            .find(|(a, _)| a == axis)
            .map(|(_, v)| v.as_slice())
    }

    /// Sets (or replaces) the values of `axis`.
    pub fn set(&mut self, axis: Axis, values: Vec<AxisValue>) {
        self.axes.retain(|(a, _)| *a != axis);
        self.axes.push((axis, values));
        self.axes.sort_by(|a, b| a.0.cmp(&b.0));
    }

    /// Stops varying `axis`.
    pub fn clear(&mut self, axis: &Axis) {
        self.axes.retain(|(a, _)| a != axis);
    }
}

/// Unknown keys land in `simulate` and are refused there by name (serde
/// cannot deny unknown fields beside a flattened map).
#[derive(Deserialize)]
struct RawRuns {
    todo: Option<Vec<bool>>,
    dialect: Option<Vec<Dialect>>,
    reminder: Option<Vec<ReminderSpec>>,
    nag_threshold: Option<Vec<NagThreshold>>,
    placement: Option<Vec<Placement>>,
    seeds: Option<Seeds>,
    /// `simulate.<param>: [values]`, read by name.
    #[serde(flatten)]
    simulate: BTreeMap<String, Value>,
}

impl<'de> Deserialize<'de> for RunsSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawRuns::deserialize(d)?;
        let mut spec = RunsSpec {
            axes: Vec::new(),
            seeds: raw.seeds,
        };
        let mut add = |axis: Axis, values: Vec<AxisValue>| -> Result<(), D::Error> {
            if values.is_empty() {
                return Err(de::Error::custom(format!(
                    "runs.{axis} must list at least one value"
                )));
            }
            spec.set(axis, values);
            Ok(())
        };
        if let Some(v) = raw.todo {
            add(Axis::Todo, v.into_iter().map(AxisValue::Bool).collect())?;
        }
        if let Some(v) = raw.dialect {
            add(
                Axis::Dialect,
                v.into_iter().map(AxisValue::Dialect).collect(),
            )?;
        }
        if let Some(v) = raw.reminder {
            add(
                Axis::Reminder,
                v.into_iter().map(AxisValue::Reminder).collect(),
            )?;
        }
        if let Some(v) = raw.nag_threshold {
            add(
                Axis::NagThreshold,
                v.into_iter().map(AxisValue::Threshold).collect(),
            )?;
        }
        if let Some(v) = raw.placement {
            add(
                Axis::Placement,
                v.into_iter().map(AxisValue::Placement).collect(),
            )?;
        }
        for (key, raw_values) in raw.simulate {
            let axis = match Axis::parse(&key) {
                Ok(axis @ Axis::Simulate(_)) => axis,
                _ => {
                    return Err(de::Error::custom(format!(
                        "unknown field `{key}` in runs, expected one of todo, dialect, reminder, nag_threshold, placement, seeds, simulate.<param>"
                    )));
                }
            };
            let Value::Array(list) = raw_values else {
                return Err(de::Error::custom(format!(
                    "runs.{key} must be a list of numbers"
                )));
            };
            let values = list
                .iter()
                .map(|v| axis.value(v))
                .collect::<Result<Vec<_>, _>>()
                .map_err(de::Error::custom)?;
            add(axis, values)?;
        }
        Ok(spec)
    }
}
