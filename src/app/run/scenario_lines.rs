//! One line on stderr as each scenario's runs end, for a `run` whose
//! stderr is not a terminal (a redirected log, a CI job): with no progress
//! bar there, a long run (real agents, real models) would otherwise print
//! nothing until its summary. A reporter (see `run::reporters`): it counts
//! each scenario's ended runs as the engine's events arrive, from any
//! worker thread, and writes the scenario's line when the last one ends.

use std::io::Write;
use std::sync::Mutex;

use super::reporters::Reporter;
use crate::eval::{EvalEvent, Plan};
use crate::report::terminal::escape;
use crate::report::workflow_safe::WorkflowSafe;
use crate::scenario::Scenario;

/// What is known of one scenario while its runs go on.
struct Tally {
    /// Its line's words: name and file.
    label: String,
    /// Units planned for it (its shard's share).
    planned: usize,
    /// Units ended, measured or not.
    ended: usize,
    /// Units that ended without a measurement.
    unmeasured: usize,
}

/// The reporter: a tally per scenario, and the scenarios ended so far.
pub(super) struct ScenarioLines {
    tallies: Mutex<(Vec<Tally>, usize)>,
}

impl ScenarioLines {
    pub(super) fn new(scenarios: &[Scenario], plan: &Plan) -> Self {
        let mut tallies: Vec<Tally> = scenarios
            .iter()
            .map(|s| Tally {
                label: format!("{} ({})", s.name, s.file.display()),
                planned: 0,
                ended: 0,
                unmeasured: 0,
            })
            .collect();
        for unit in plan.units() {
            if let Some(tally) = tallies.get_mut(unit.scenario) {
                tally.planned += 1;
            }
        }
        Self {
            tallies: Mutex::new((tallies, 0)),
        }
    }

    /// Notes that a unit of scenario `index` ended; the scenario's line
    /// once it was the last.
    fn ended(&self, index: usize, measured: bool) -> Option<String> {
        let mut guard = self.tallies.lock().ok()?;
        let (tallies, done) = &mut *guard;
        let count = tallies.iter().filter(|t| t.planned > 0).count();
        let tally = tallies.get_mut(index)?;
        tally.ended += 1;
        tally.unmeasured += usize::from(!measured);
        if tally.ended != tally.planned {
            return None;
        }
        *done += 1;
        let runs = tally.planned - tally.unmeasured;
        let mut line = format!(
            "[{done}/{count}] ended: {}: {runs} run{}",
            tally.label,
            super::plural(runs)
        );
        if tally.unmeasured > 0 {
            line.push_str(&format!(", {} not measured", tally.unmeasured));
        }
        Some(line)
    }
}

impl Reporter for ScenarioLines {
    fn on_event(&self, event: &EvalEvent<'_>) {
        let line = match event {
            EvalEvent::RunFinished { unit, .. } => self.ended(unit.scenario, true),
            EvalEvent::RunUnmeasured { unit } => self.ended(unit.scenario, false),
            EvalEvent::Started { .. } | EvalEvent::ScenarioFinished { .. } => None,
        };
        if let Some(line) = line {
            // Names are foreign text: escaped, and never a workflow
            // command, whatever the stream is read by.
            let mut err = WorkflowSafe::new(std::io::stderr());
            let _ = writeln!(err, "{}", escape(&line));
        }
    }
}
