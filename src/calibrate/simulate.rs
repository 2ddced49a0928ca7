//! The simulated model run through the engine on task shapes like the
//! observed sessions': one task a part that had a plan, with as many steps
//! as that plan had items, each step reading a file as large as a typical
//! observed turn's new context. The runs are read back as sessions by the
//! run-log reader, so they are measured exactly as the observed ones are.

use std::collections::BTreeMap;
use std::path::Path;

use crate::eval::{Cell, run_once};
use crate::model::simulated::SimulateParams;
use crate::plan::dialect::Dialect;
use crate::scenario::{ModelSpec, Scenario, load_str};
use crate::transcript::run_log::session_of;
use crate::transcript::{Session, Turn};

/// The longest task shape simulated (longer plans are cut to it).
pub const MAX_STEPS: usize = 20;

/// The task shapes of `sessions`: one step count a part with a plan, cut
/// to `limit` shapes taken evenly (deterministic).
pub fn shapes_of(sessions: &[Session], limit: usize) -> Vec<usize> {
    let all: Vec<usize> = sessions
        .iter()
        .flat_map(|s| s.parts.iter())
        .filter_map(|part| {
            part.turns
                .iter()
                .filter_map(|t| t.plan_after.as_ref().map(Vec::len))
                .max()
        })
        .filter(|&n| n > 0)
        .map(|n| n.min(MAX_STEPS))
        .collect();
    if all.len() <= limit || limit == 0 {
        return all;
    }
    (0..limit).map(|i| all[i * all.len() / limit]).collect()
}

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

/// The simulator: one scenario a step count, built once.
pub struct Simulator {
    scenarios: BTreeMap<usize, Scenario>,
}

impl Simulator {
    /// Scenarios for every step count in `shapes`, each step reading a
    /// file of `chars` characters.
    pub fn new(shapes: &[usize], chars: usize) -> Result<Self, String> {
        let mut scenarios = BTreeMap::new();
        for &steps in shapes {
            if scenarios.contains_key(&steps) {
                continue;
            }
            let text = scenario_yaml(steps, chars);
            let file = format!("calibrate-shape-{steps}.yaml");
            let scenario = load_str(Path::new(&file), &text).map_err(|e| e.to_string())?;
            scenarios.insert(steps, scenario);
        }
        Ok(Self { scenarios })
    }

    /// One run a shape with `params`, seeds `seed`, `seed + 1`, ... (the
    /// same seeds for every parameter set: common random numbers, so the
    /// fit's objective is smooth in the parameters).
    pub fn run(&mut self, params: SimulateParams, shapes: &[usize], seed: u64) -> Vec<Session> {
        let mut sessions = Vec::with_capacity(shapes.len());
        for (i, steps) in shapes.iter().enumerate() {
            // Ctrl-C: the caller sees the flag and writes nothing.
            if crate::cancel::requested() {
                break;
            }
            let Some(scenario) = self.scenarios.get_mut(steps) else {
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

/// A task of `steps` steps, each reading `input.txt` (of `chars`
/// characters) and writing its own file.
fn scenario_yaml(steps: usize, chars: usize) -> String {
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
    text.push_str("model:\n  simulate: {}\n");
    text
}
