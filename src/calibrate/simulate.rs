//! The simulated model run through the engine on task shapes like the
//! observed sessions': one task a part that had a plan, with as many steps
//! as that plan had items, each step reading a file as large as a typical
//! observed turn's new context. The runs are read back as sessions by the
//! run-log reader, so they are measured exactly as the observed ones are.

use std::collections::BTreeMap;
use std::path::Path;

use super::observe::{StopShares, TurnKind, classify_ends};
use crate::eval::{Cell, run_once};
use crate::llm::Role;
use crate::model::simulated::DONE_ANSWER;
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

/// The typical characters a turn adds (the mean over turns after the
/// first: the token gaps the fidelity check compares are sums, so the mean
/// is what they follow), bounded to keep the simulated workspace small.
pub fn typical_turn_chars(sessions: &[Session]) -> usize {
    let chars: Vec<u64> = sessions
        .iter()
        .flat_map(|s| s.turns())
        .skip(1)
        .map(|t: &Turn| t.new_context_chars)
        .filter(|&c| c > 0)
        .collect();
    let mean = if chars.is_empty() {
        200
    } else {
        // Summed wide: a forged count near u64::MAX must not overflow.
        let sum: u128 = chars.iter().map(|&c| u128::from(c)).sum();
        u64::try_from(sum / chars.len() as u128).unwrap_or(u64::MAX)
    };
    usize::try_from(mean).unwrap_or(usize::MAX).clamp(20, 8000)
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
    /// Scenarios for every shape in `shapes`, each step reading a file of
    /// `chars` characters, the loop reminding by the shape's policy.
    pub fn new(shapes: &[Shape], chars: usize) -> Result<Self, SimulatorError> {
        let mut scenarios = BTreeMap::new();
        for &shape in shapes {
            if scenarios.contains_key(&shape) {
                continue;
            }
            let policy = serde_json::to_string(&shape.1)?;
            let text = scenario_yaml(shape.0, chars, &policy);
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
        self.run_reading_ends(params, shapes, seed)
            .into_iter()
            .map(|(session, _)| session)
            .collect()
    }

    /// [`Simulator::run`], each session with whether the model's last
    /// answer is [`DONE_ANSWER`] (it believed every step done), not an
    /// early stop: what no transcript shows, and [`stop_shares`] counts.
    pub fn run_reading_ends(
        &mut self,
        params: SimulateParams,
        shapes: &[Shape],
        seed: u64,
    ) -> Vec<(Session, bool)> {
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
                let done = record
                    .messages
                    .iter()
                    .rev()
                    .find(|m| m.role == Role::Assistant)
                    .is_some_and(|m| m.texts().eq([DONE_ANSWER]));
                let session = session_of(
                    &record.messages,
                    Dialect::default(),
                    true,
                    Some(&record.result.reminders_at),
                );
                sessions.push((session, done));
            }
        }
        sessions
    }
}

/// The share of open ends that are early stops among `runs` (each with
/// whether its last answer was the done answer, as
/// [`Simulator::run_reading_ends`] gives them), by the kind of chance
/// they answer to: the weight calibration counts an observed open end
/// with ([`StopShares`]). A kind without an open end keeps the weight 1.
pub fn stop_shares(runs: &[(Session, bool)]) -> StopShares {
    let share = |of: TurnKind| {
        let (stops, ends) = runs
            .iter()
            .flat_map(|(session, done)| {
                classify_ends(session)
                    .into_iter()
                    .filter(move |(_, _, kind, open_end)| *open_end && *kind == of)
                    .map(move |_| f64::from(u8::from(!done)))
            })
            .fold((0.0, 0.0), |(s, n), stop| (s + stop, n + 1.0));
        if ends > 0.0 { stops / ends } else { 1.0 }
    };
    StopShares {
        reminded: share(TurnKind::Reminded),
        ordinary: share(TurnKind::Ordinary),
    }
}

/// A task of `steps` steps, each reading `input.txt` (of `chars`
/// characters) and writing its own file.
fn scenario_yaml(steps: usize, chars: usize, reminder: &str) -> String {
    let mut text = format!("name: calibrate-shape-{steps}\ntask: |\n  Do {steps} steps:\n");
    for i in 1..=steps {
        text.push_str(&format!("  {i}. Step {i}\n"));
    }
    text.push_str(&format!(
        "workspace:\n  files:\n    input.txt: \"{}\"\nsteps:\n",
        "x".repeat(chars)
    ));
    for i in 1..=steps {
        text.push_str(&format!(
            "  - text: \"Step {i}\"\n    check: {{file: \"out{i}.txt\", contains: \"done\"}}\n    do:\n      - {{tool: read_file, input: {{path: \"input.txt\"}}}}\n      - {{tool: write_file, input: {{path: \"out{i}.txt\", content: \"done\"}}}}\n"
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

    /// A session of one part: a turn that plans, one that acts, then the
    /// last answer with items open, reminded or not.
    fn ending(reminded: bool) -> Session {
        use crate::transcript::{Format, ItemStatus, Part, PlanningCall, Reminders};
        let open = Some(vec![ItemStatus::Completed, ItemStatus::InProgress]);
        let acting = |plans: bool| Turn {
            planning_calls: plans
                .then(|| PlanningCall {
                    tool: "TodoWrite".into(),
                    accepted: true,
                    writes: true,
                })
                .into_iter()
                .collect(),
            plan_after: open.clone(),
            other_tool_calls: 1,
            ..Turn::default()
        };
        let end = Turn {
            reminder_before: reminded,
            plan_after: open.clone(),
            ..Turn::default()
        };
        Session {
            format: Format::RunLog,
            agent_version: None,
            models: Vec::new(),
            reminders: Reminders::Recorded,
            parts: vec![Part {
                turns: vec![acting(true), acting(false), end],
            }],
            id: None,
            group: String::new(),
            content_hash: String::new(),
        }
    }

    #[test]
    fn stop_shares_count_early_stops_among_open_ends_by_kind() {
        let runs = vec![
            (ending(true), false),
            (ending(true), true),
            (ending(true), false),
            (ending(false), true),
        ];
        let shares = stop_shares(&runs);
        assert_eq!(shares.reminded, 2.0 / 3.0);
        assert_eq!(shares.ordinary, 0.0);
        // No open end of a kind: the weight stays a whole chance.
        assert_eq!(stop_shares(&runs[3..]).reminded, 1.0);
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
