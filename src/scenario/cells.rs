//! A scenario's cells: the combinations of its matrix axes, each with the
//! settings it reports and the loop and model settings a run of it uses.
//!
//! Combinations run in axis order (the first axis varies slowest). A
//! setting that makes no difference in a combination is dropped from its
//! settings (see `scenario/axes.rs`); combinations whose settings
//! are then equal are one cell, run once and reported once.

use crate::agent::LoopSettings;
use crate::model::simulated::SimulateParams;
use crate::plan::reminder::{NagThreshold, ReminderSpec};
use crate::scenario::{Axis, AxisValue, CellSettings, ModelSpec, Scenario};

/// One cell of a scenario's matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// What reports list for it.
    pub settings: CellSettings,
    pub loop_settings: LoopSettings,
    /// The simulated model's parameters (`None` for a scripted model).
    pub simulate: Option<SimulateParams>,
    /// The agent keeps its own reminder policy (a preset): the cell shows
    /// that policy as its `reminder`, and no threshold or placement.
    pub own_reminder: bool,
}

impl Cell {
    /// The cell the scenario's `agent:` and `model:` sections describe.
    pub fn of_agent(scenario: &Scenario) -> Self {
        let mut cell = Self {
            settings: CellSettings::default(),
            loop_settings: scenario.agent.loop_settings(),
            simulate: match &scenario.model {
                ModelSpec::Simulate(p) => Some(*p),
                ModelSpec::Script(_) | ModelSpec::Real(_) => None,
            },
            own_reminder: scenario.agent.preset.is_some(),
        };
        cell.describe(&[]);
        cell
    }

    /// This cell with `value` on `axis` (settings re-described as if only
    /// the axes `varying` vary).
    pub fn with(mut self, axis: &Axis, value: &AxisValue) -> Self {
        self.apply(axis, value);
        let mut varying: Vec<Axis> = self
            .settings
            .entries()
            .iter()
            .map(|(a, _)| a.clone())
            .collect();
        varying.push(axis.clone());
        self.describe(&varying);
        self
    }

    /// Shorthands for tests and `replay`.
    pub fn with_todo(self, todo: bool) -> Self {
        self.with(&Axis::Todo, &AxisValue::Bool(todo))
    }

    pub fn with_threshold(self, threshold: NagThreshold) -> Self {
        self.with(&Axis::NagThreshold, &AxisValue::Threshold(threshold))
    }

    fn apply(&mut self, axis: &Axis, value: &AxisValue) {
        let s = &mut self.loop_settings;
        match (axis, value) {
            (Axis::Todo, AxisValue::Bool(b)) => s.todo = *b,
            (Axis::Dialect, AxisValue::Dialect(d)) => s.dialect = *d,
            (Axis::Reminder, AxisValue::Reminder(r)) => s.reminder = *r,
            // A threshold is the s03 policy's: it sets s03's threshold, and
            // makes the policy s03 when no reminder axis says otherwise.
            (Axis::NagThreshold, AxisValue::Threshold(t)) => {
                if matches!(s.reminder, ReminderSpec::S03 { .. }) {
                    s.reminder = ReminderSpec::S03 { threshold: *t };
                }
            }
            (Axis::Placement, AxisValue::Placement(p)) => s.placement = *p,
            (Axis::Simulate(i), AxisValue::Number(x)) => {
                if let Some(params) = self.simulate.as_mut()
                    && let Some(name) = SimulateParams::NAMES.get(*i)
                    && let Some(field) = params.field_mut(name)
                {
                    *field = *x;
                }
            }
            _ => {}
        }
    }

    /// Sets the reported settings: `todo`, the varying axes that make a
    /// difference here, and `nag_threshold` under s03 unless a reminder
    /// axis alone says the policy.
    fn describe(&mut self, varying: &[Axis]) {
        let s = &self.loop_settings;
        let varies = |axis: &Axis| varying.contains(axis);
        let mut entries = vec![(Axis::Todo, AxisValue::Bool(s.todo))];
        if s.todo {
            if varies(&Axis::Dialect) {
                entries.push((Axis::Dialect, AxisValue::Dialect(s.dialect)));
            }
            if self.own_reminder {
                entries.push((Axis::Reminder, AxisValue::Reminder(s.reminder)));
            } else if let ReminderSpec::S03 { threshold } = s.reminder {
                if varies(&Axis::Reminder) {
                    let shown = if varies(&Axis::NagThreshold) {
                        ReminderSpec::default()
                    } else {
                        s.reminder
                    };
                    entries.push((Axis::Reminder, AxisValue::Reminder(shown)));
                }
                if varies(&Axis::NagThreshold) || !varies(&Axis::Reminder) {
                    entries.push((Axis::NagThreshold, AxisValue::Threshold(threshold)));
                }
            } else if varies(&Axis::Reminder) {
                entries.push((Axis::Reminder, AxisValue::Reminder(s.reminder)));
            }
            if varies(&Axis::Placement) && !s.reminder.is_off() && !self.own_reminder {
                entries.push((Axis::Placement, AxisValue::Placement(s.placement)));
            }
        }
        if let Some(params) = &self.simulate {
            for axis in varying {
                if let Axis::Simulate(i) = axis
                    && let Some(name) = SimulateParams::NAMES.get(*i)
                    && (s.todo || !SimulateParams::only_with_planning(name))
                {
                    let mut p = *params;
                    let x = p.field_mut(name).map_or(0.0, |f| *f);
                    entries.push((axis.clone(), AxisValue::Number(x)));
                }
            }
        }
        self.settings = CellSettings::new(entries);
    }
}

/// A scenario's cells, in axis order, each distinct.
pub fn cells(scenario: &Scenario) -> Vec<Cell> {
    cells_up_to(scenario, usize::MAX).0
}

/// The number of combinations of the matrix's axis values (before equal
/// cells are merged), saturating: an upper bound on the cell count that
/// costs nothing to compute.
pub fn combinations(scenario: &Scenario) -> u64 {
    scenario
        .runs
        .axes
        .iter()
        .fold(1u64, |n, (_, values)| n.saturating_mul(values.len() as u64))
}

/// The first `limit` distinct cells, in axis order, and whether they are
/// all of them. Combinations are walked one at a time (never all held at
/// once) and told apart by a hashed key, so this costs time in the number
/// of combinations and memory in the number of cells kept.
pub fn cells_up_to(scenario: &Scenario, limit: usize) -> (Vec<Cell>, bool) {
    let base = Cell::of_agent(scenario);
    let axes = &scenario.runs.axes;
    let varying: Vec<Axis> = axes.iter().map(|(a, _)| a.clone()).collect();
    if axes.iter().any(|(_, values)| values.is_empty()) {
        return (Vec::new(), true);
    }
    // An odometer over the axes' values: the last axis turns fastest, so
    // the first axis varies slowest.
    let mut digits = vec![0usize; axes.len()];
    let mut seen: std::collections::HashSet<Vec<u8>> = std::collections::HashSet::new();
    let mut cells: Vec<Cell> = Vec::new();
    loop {
        let mut cell = base.clone();
        for ((axis, values), &digit) in axes.iter().zip(&digits) {
            if let Some(value) = values.get(digit) {
                cell.apply(axis, value);
            }
        }
        cell.describe(&varying);
        if seen.insert(settings_key(&cell.settings)) {
            if cells.len() == limit {
                return (cells, false);
            }
            cells.push(cell);
        }
        // The last digit turns; a full one turns back to 0 and carries
        // into the one before it; a carry out of the first is the end.
        let mut carried = true;
        for (digit, (_, values)) in digits.iter_mut().zip(axes).rev() {
            *digit += 1;
            if *digit < values.len() {
                carried = false;
                break;
            }
            *digit = 0;
        }
        if carried {
            return (cells, true);
        }
    }
}

/// A key equal for equal settings (numbers compared by value, so 0 and -0
/// are one key): the settings' text, numbers by their bits.
fn settings_key(settings: &CellSettings) -> Vec<u8> {
    let mut key = Vec::new();
    for (axis, value) in settings.entries() {
        key.extend_from_slice(axis.name().as_bytes());
        key.push(0);
        match value {
            AxisValue::Number(x) => key.extend_from_slice(&(x + 0.0).to_bits().to_le_bytes()),
            other => key.extend_from_slice(other.to_string().as_bytes()),
        }
        key.push(0);
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn scenario(runs: &str) -> Scenario {
        crate::scenario::load_str(
            Path::new("t.yaml"),
            &format!("task: t\nsteps:\n  - text: a\n    do: [{{tool: bash, input: {{command: ls}}}}]\nmodel:\n  simulate: {{}}\nruns:\n{runs}"),
        )
        .unwrap()
    }

    fn names(cells: &[Cell]) -> Vec<String> {
        cells.iter().map(|c| c.settings.to_string()).collect()
    }

    #[test]
    fn a_threshold_without_todo_is_one_cell() {
        let cells = cells(&scenario(
            "  todo: [true, false]\n  nag_threshold: [1, 3, off]\n",
        ));
        assert_eq!(
            names(&cells),
            [
                "todo=true nag=1",
                "todo=true nag=3",
                "todo=true nag=off",
                "todo=false"
            ]
        );
        assert_eq!(
            cells[1].loop_settings.reminder,
            ReminderSpec::S03 {
                threshold: NagThreshold::After(3)
            }
        );
        assert!(!cells[3].loop_settings.todo);
    }

    #[test]
    fn axes_combine_in_order_and_drop_what_makes_no_difference() {
        let cells = cells(&scenario(
            "  todo: [true, false]\n  dialect: [s03]\n  reminder: [s03, off, {policy: interval, every: 4}]\n  placement: [prepend, append]\n  simulate.attention_span: [300, 600]\n",
        ));
        let n = names(&cells);
        assert_eq!(
            n[..4],
            [
                "todo=true dialect=s03 reminder=s03 placement=prepend attention_span=300",
                "todo=true dialect=s03 reminder=s03 placement=prepend attention_span=600",
                "todo=true dialect=s03 reminder=s03 placement=append attention_span=300",
                "todo=true dialect=s03 reminder=s03 placement=append attention_span=600",
            ]
        );
        // off: placement makes no difference; todo false: nothing about
        // planning does.
        assert!(n.contains(&"todo=true dialect=s03 reminder=off attention_span=300".to_string()));
        assert!(n.contains(&"todo=true dialect=s03 reminder=interval(every=4) placement=append attention_span=600".to_string()));
        assert_eq!(n.iter().filter(|s| s.starts_with("todo=false")).count(), 2);
        assert_eq!(cells.len(), 4 + 2 + 4 + 2);
        let attention = cells[1].simulate.unwrap().attention_span;
        assert_eq!(attention, 600.0);
    }
}
