//! The simulated model run through the engine on task shapes like the
//! observed sessions': one task a part that had a plan, with as many steps
//! as that plan had items, the steps reading files sized like the observed
//! turns' new context (its quantiles). The runs are read back as sessions by the
//! run-log reader, so they are measured exactly as the observed ones are.

use std::collections::BTreeMap;
use std::path::Path;

use crate::eval::{Cell, run_once};
use crate::model::simulated::SimulateParams;
use crate::plan::dialect::Dialect;
use crate::plan::reminder::ReminderSpec;
use crate::scenario::{ModelSpec, Scenario, load_str};
use crate::transcript::run_log::session_of;
use crate::transcript::{Session, Turn};

/// The longest task shape simulated (longer plans are cut to it).
pub const MAX_STEPS: usize = 20;

/// A task shape: a part's step count, and the reminder policy its
/// session ran under ([`super::policy::policy_for`]).
pub type Shape = (usize, ReminderSpec);

/// The task shapes of `sessions`: one a part with a plan (its step count,
/// its session's reminder policy), cut to `limit` shapes taken evenly
/// (deterministic).
pub fn shapes_of(sessions: &[Session], limit: usize) -> Vec<Shape> {
    let all: Vec<Shape> = sessions
        .iter()
        .flat_map(|s| {
            let policy = super::policy::policy_for(s);
            s.parts.iter().filter_map(move |part| {
                let steps = part
                    .turns
                    .iter()
                    .filter_map(|t| t.plan_after.as_ref().map(Vec::len))
                    .max()?;
                (steps > 0).then_some((steps.min(MAX_STEPS), policy))
            })
        })
        .collect();
    if all.len() <= limit || limit == 0 {
        return all;
    }
    (0..limit)
        .filter_map(|i| all.get(i * all.len() / limit).copied())
        .collect()
}

/// The task shapes of the sessions in `sessions` that never write a plan:
/// one a part that acts, of as many steps as its acting turns over
/// `turns_per_step` (at least one, at most [`MAX_STEPS`]): with no plan
/// there is no item count, and a step takes that many turns.
pub fn unplanned_shapes_of(sessions: &[Session], turns_per_step: f64) -> Vec<Shape> {
    sessions
        .iter()
        .filter(|s| !super::length::plans(s))
        .flat_map(|s| {
            let policy = super::policy::policy_for(s);
            s.parts.iter().filter_map(move |part| {
                let acting = part
                    .turns
                    .iter()
                    .filter(|t| !t.planning_calls.is_empty() || t.other_tool_calls > 0)
                    .count();
                let steps = (acting as f64 / turns_per_step.max(1.0)).round() as usize;
                (acting > 0).then_some((steps.clamp(1, MAX_STEPS), policy))
            })
        })
        .collect()
}

/// Each shape `times` times over, in order: the simulated sample of a
/// fidelity check is [`FIDELITY_REPLICATES`] times the observed one.
pub fn replicate(shapes: &[Shape], times: usize) -> Vec<Shape> {
    shapes
        .iter()
        .flat_map(|&s| std::iter::repeat_n(s, times))
        .collect()
}

/// How many simulated runs the fidelity check makes of each held-out task
/// shape: a simulated sample ten times the observed one, so a verdict of
/// "too few" is about the data, never the simulation.
pub const FIDELITY_REPLICATES: usize = 10;

/// How many file sizes the simulated steps read ([`turn_sizes`]).
pub const SIZES: usize = MAX_STEPS;

/// The characters the simulated steps' files hold: [`SIZES`] quantiles
/// (at `(j + ½) / SIZES`) of what the observed turns after a session's
/// first add, each bounded to keep the simulated workspace small. A step
/// reads one of them ([`size_of_step`]), so the simulated turns vary as
/// the observed ones do: the token gaps the fidelity check compares are
/// sums of a few turns, and a sum of heavy-tailed turns has a median far
/// below the sum of their means (one size for every step, the mean, read
/// the median gap 2.6 times the observed one on a public corpus).
pub fn turn_sizes(sessions: &[Session]) -> Vec<usize> {
    let mut chars: Vec<f64> = sessions
        .iter()
        .flat_map(|s| s.turns().skip(1))
        .map(|t: &Turn| t.new_context_chars as f64)
        .filter(|&c| c > 0.0)
        .collect();
    if chars.is_empty() {
        return vec![200; SIZES];
    }
    chars.sort_by(f64::total_cmp);
    (0..SIZES)
        .map(|j| {
            let q = super::bootstrap::quantile(&chars, (j as f64 + 0.5) / SIZES as f64);
            (q.max(0.0) as usize).clamp(20, 32_000)
        })
        .collect()
}

/// Which of the sizes step `i` (from 0) reads: a stride through them
/// (7 is prime to 20), so a task of a few steps reads small and large
/// files alike, not the smallest ones only.
pub fn size_of_step(i: usize) -> usize {
    (i * 7) % SIZES
}

/// Why the simulator could not be built (its message follows "cannot
/// build the simulated task shapes: ").
#[derive(Debug, thiserror::Error)]
pub enum SimulatorError {
    /// A shape's reminder policy could not be written as JSON.
    #[error("{0}")]
    Policy(#[from] serde_json::Error),
    /// A shape's scenario did not load.
    #[error("{0}")]
    Scenario(#[from] crate::scenario::LoadError),
}

/// The simulator: one scenario a task shape, built once.
pub struct Simulator {
    scenarios: BTreeMap<Shape, Scenario>,
}

impl Simulator {
    /// Scenarios for every shape in `shapes`, step `i` reading a file of
    /// `sizes[size_of_step(i)]` characters ([`turn_sizes`]), the loop
    /// reminding by the shape's policy.
    pub fn new(shapes: &[Shape], sizes: &[usize]) -> Result<Self, SimulatorError> {
        let mut scenarios = BTreeMap::new();
        for &shape in shapes {
            if scenarios.contains_key(&shape) {
                continue;
            }
            let policy = serde_json::to_string(&shape.1)?;
            let text = scenario_yaml(shape.0, sizes, &policy);
            let file = format!("calibrate-shape-{}.yaml", shape.0);
            let scenario = load_str(Path::new(&file), &text)?;
            scenarios.insert(shape, scenario);
        }
        Ok(Self { scenarios })
    }

    /// One run a shape with `params`, seeds `seed`, `seed + 1`, ... (the
    /// same seeds for every parameter set: common random numbers, so the
    /// fit's objective is smooth in the parameters).
    pub fn run(&mut self, params: SimulateParams, shapes: &[Shape], seed: u64) -> Vec<Session> {
        let mut sessions = Vec::with_capacity(shapes.len());
        for (i, shape) in shapes.iter().enumerate() {
            // Ctrl-C: the caller sees the flag and writes nothing.
            if crate::cancel::requested() {
                break;
            }
            let Some(scenario) = self.scenarios.get_mut(shape) else {
                continue;
            };
            scenario.model = ModelSpec::Simulate(params);
            let cell = Cell::of_agent(scenario);
            // A run that cannot happen (no workspace) is left out.
            if let Ok(record) = run_once(scenario, &cell, seed.wrapping_add(i as u64)) {
                sessions.push(session_of(
                    &record.messages,
                    Dialect::default(),
                    true,
                    Some(&record.result.reminders_at),
                ));
            }
        }
        sessions
    }
}

/// A task of `steps` steps, step `i` reading its `input{k}.txt` (of
/// `sizes[k]` characters, `k` = [`size_of_step`]) and writing its own file.
fn scenario_yaml(steps: usize, sizes: &[usize], reminder: &str) -> String {
    let mut text = format!("name: calibrate-shape-{steps}\ntask: |\n  Do {steps} steps:\n");
    for i in 1..=steps {
        text.push_str(&format!("  {i}. Step {i}\n"));
    }
    text.push_str("workspace:\n  files:\n");
    let mut files: Vec<usize> = (0..steps).map(size_of_step).collect();
    files.sort_unstable();
    files.dedup();
    for k in files {
        let chars = sizes.get(k).copied().unwrap_or(200);
        text.push_str(&format!("    input{k}.txt: \"{}\"\n", "x".repeat(chars)));
    }
    text.push_str("steps:\n");
    for i in 1..=steps {
        let k = size_of_step(i - 1);
        text.push_str(&format!(
            "  - text: \"Step {i}\"\n    check: {{file: \"out{i}.txt\", contains: \"done\"}}\n    do:\n      - {{tool: read_file, input: {{path: \"input{k}.txt\"}}}}\n      - {{tool: write_file, input: {{path: \"out{i}.txt\", content: \"done\"}}}}\n"
        ));
    }
    text.push_str(&format!(
        "agent:\n  reminder: {reminder}\nmodel:\n  simulate: {{}}\n"
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The steps read files of the observed turns' sizes, small and large
    /// alike in a short task, and every shape's scenario loads.
    #[test]
    fn the_steps_read_files_sized_like_the_observed_turns() {
        use crate::transcript::{Format, Part, Reminders};
        let turns = (0..=200u64)
            .map(|i| Turn {
                new_context_chars: 100 + 10 * i,
                ..Turn::default()
            })
            .collect();
        let session = Session {
            format: Format::ClaudeCode,
            agent_version: None,
            models: Vec::new(),
            reminders: Reminders::Recorded,
            parts: vec![Part { turns }],
            id: None,
            group: String::new(),
            content_hash: String::new(),
        };
        let sizes = turn_sizes(&[session]);
        assert_eq!(sizes.len(), SIZES);
        // The first turn is left out: 110..=2100, quantiles at 2.5% (159.75),
        // 7.5%... 97.5% (2050.25), whole characters.
        assert_eq!(sizes.first(), Some(&159));
        assert_eq!(sizes.last(), Some(&2050));
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]));
        // A three-step task reads the 1st, 8th and 15th of twenty sizes.
        assert_eq!((0..3).map(size_of_step).collect::<Vec<_>>(), vec![0, 7, 14]);
        let shapes = [(3, ReminderSpec::Off), (MAX_STEPS, ReminderSpec::Off)];
        let simulator = Simulator::new(&shapes, &sizes).unwrap();
        assert_eq!(simulator.scenarios.len(), 2);
    }

    /// The message `calibrate` prints is the cause's, after its prefix,
    /// as when the error was a string.
    #[test]
    fn a_simulator_error_reads_as_its_cause() {
        let cause = load_str(Path::new("shape.yaml"), "name: [").unwrap_err();
        let text = cause.to_string();
        let error = crate::calibrate::CalibrateError::from(SimulatorError::from(cause));
        assert_eq!(
            error.to_string(),
            format!("cannot build the simulated task shapes: {text}")
        );
    }
}
