//! The run matrix: every combination of the `runs` axes is a cell, every
//! cell runs every seed. All (scenario, cell, seed) units of an evaluation
//! go through one rayon pool; results are collected in unit order, so the
//! output never depends on `--jobs` or thread timing.

use rayon::prelude::*;

pub use super::cells::{Cell, cells};
use super::run::{RunEnv, RunError, RunMetrics, run_once_in};
use super::summary::{CellSummary, ScenarioResult};
use crate::scenario::{CellSettings, ModelSpec, Scenario};

/// Seeds a simulated scenario runs when neither it nor `--seeds` says.
pub const DEFAULT_SIMULATED_SEEDS: u64 = 50;

/// Options that apply to a whole evaluation.
#[derive(Debug, Clone, Default)]
pub struct EvalOptions {
    /// Overrides the seed count of simulated scenarios (`--seeds`).
    pub seeds: Option<u64>,
    /// Worker threads; `None` uses every core.
    pub jobs: Option<usize>,
    /// Run only this share of the units (`--shard K/N`).
    pub shard: Option<Shard>,
    /// Real-model backends (with the spend limit) and `--record`.
    pub env: RunEnv,
}

/// Shard `index` (1-based) of `count`: every unit whose position in the
/// full unit list is congruent to `index - 1` modulo `count`. Round-robin
/// keeps shards balanced in size and mixes scenarios and cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Parses `K/N` with 1 <= K <= N.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let bad = || format!("shard must be K/N with 1 <= K <= N, got `{raw}`");
        let (k, n) = raw.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Self { index, count })
    }

    pub fn owns(&self, position: usize) -> bool {
        position % self.count == self.index - 1
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Why the runs did not all finish.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Run(#[from] RunError),
    #[error("interrupted: runs were stopped before they all finished; no report was written")]
    Interrupted,
}

/// One run to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    pub scenario: usize,
    pub cell: usize,
    pub seed: u64,
}

/// What the engine reports while it works (for progress displays).
#[derive(Debug)]
pub enum EvalEvent<'a> {
    Started {
        runs: usize,
    },
    RunFinished {
        scenario: &'a str,
        settings: &'a CellSettings,
        metrics: &'a RunMetrics,
        /// The run's place in the evaluation's unit list (its run order),
        /// and the unit itself.
        position: usize,
        unit: Unit,
        /// Everything the run produced (for run logs).
        record: &'a super::run::RunRecord,
    },
    ScenarioFinished {
        result: &'a ScenarioResult,
    },
}

/// The seeds each cell of `scenario` runs. A scripted model replays the
/// same responses whatever the seed, so it runs once per cell unless the
/// scenario lists seeds itself.
pub fn seeds(scenario: &Scenario, options: &EvalOptions) -> Vec<u64> {
    match (&scenario.model, options.seeds, &scenario.runs.seeds) {
        (ModelSpec::Simulate(_) | ModelSpec::Real(_), Some(n), _) => (0..n).collect(),
        (_, _, Some(seeds)) => seeds.to_vec(),
        (ModelSpec::Simulate(_), None, None) => (0..DEFAULT_SIMULATED_SEEDS).collect(),
        (ModelSpec::Script(_) | ModelSpec::Real(_), _, None) => vec![0],
    }
}

/// Every unit of an evaluation (or of its shard), in report order.
pub fn plan_units(scenarios: &[Scenario], options: &EvalOptions) -> Vec<Unit> {
    let all = all_units(scenarios, options);
    match options.shard {
        Some(shard) => all
            .into_iter()
            .enumerate()
            .filter(|(i, _)| shard.owns(*i))
            .map(|(_, u)| u)
            .collect(),
        None => all,
    }
}

fn all_units(scenarios: &[Scenario], options: &EvalOptions) -> Vec<Unit> {
    let mut units = Vec::new();
    for (s, scenario) in scenarios.iter().enumerate() {
        let seeds = seeds(scenario, options);
        for cell in 0..cells(scenario).len() {
            units.extend(seeds.iter().map(|&seed| Unit {
                scenario: s,
                cell,
                seed,
            }));
        }
    }
    units
}

/// Runs `units` (from [`plan_units`]) on a pool of `options.jobs` threads.
/// A unit is `None` when it never started: the spend limit was reached
/// before its turn (runs already started finish).
pub fn run_units(
    scenarios: &[Scenario],
    units: &[Unit],
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<Vec<Option<RunMetrics>>, EvalError> {
    // A Ctrl-C during this call is handled by it, then forgotten.
    let _session = crate::cancel::Session::begin();
    let budget = options.env.real.as_ref().and_then(|real| real.budget());
    let all_cells: Vec<Vec<Cell>> = scenarios.iter().map(cells).collect();
    let work = || {
        units
            .par_iter()
            .enumerate()
            .map(|(position, unit)| {
                if crate::cancel::requested() {
                    return Err(EvalError::Interrupted);
                }
                let scenario = &scenarios[unit.scenario];
                let spends = matches!(scenario.model, ModelSpec::Real(_));
                if spends && budget.is_some_and(|b| !b.allows_new_run()) {
                    return Ok(None);
                }
                let cell = &all_cells[unit.scenario][unit.cell];
                let record = run_once_in(scenario, cell, unit.seed, &options.env)?;
                // A run cut short by Ctrl-C measured nothing meaningful.
                if crate::cancel::requested() {
                    return Err(EvalError::Interrupted);
                }
                on_event(&EvalEvent::RunFinished {
                    scenario: &scenario.name,
                    settings: &cell.settings,
                    metrics: &record.metrics,
                    position,
                    unit: *unit,
                    record: &record,
                });
                Ok(Some(record.metrics))
            })
            .collect::<Result<Vec<_>, EvalError>>()
    };
    match options.jobs {
        Some(jobs) => rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map(|pool| pool.install(work))
            .unwrap_or_else(|_| work()),
        None => work(),
    }
}

/// Groups unit results into cell summaries and, unless `shard` (a part of
/// the runs only), checks the expectations.
pub fn summarise(
    scenario: &Scenario,
    scenario_index: usize,
    units: &[Unit],
    results: &[Option<RunMetrics>],
    options: &EvalOptions,
) -> ScenarioResult {
    let scenario_cells = cells(scenario);
    let steps_total = scenario.steps_total();
    let labels = super::summary::StepLabel::of(scenario);
    let summaries: Vec<CellSummary> = scenario_cells
        .into_iter()
        .enumerate()
        .map(|(c, cell)| {
            let runs = units
                .iter()
                .zip(results)
                .filter(|(u, _)| u.scenario == scenario_index && u.cell == c)
                .filter_map(|(_, r)| r.clone())
                .collect();
            CellSummary::new(cell.settings, steps_total, runs).with_steps(&labels)
        })
        .collect();
    ScenarioResult::build(
        scenario.name.clone(),
        scenario.file.display().to_string(),
        seeds(scenario, options),
        summaries,
        scenario.expect.clone(),
        options.shard.is_none(),
    )
}

/// Plans, runs and summarises one scenario on its own.
pub fn evaluate_scenario(
    scenario: &Scenario,
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<ScenarioResult, EvalError> {
    let scenarios = std::slice::from_ref(scenario);
    let units = plan_units(scenarios, options);
    let results = run_units(scenarios, &units, options, on_event)?;
    Ok(summarise(scenario, 0, &units, &results, options))
}

/// Plans, runs and summarises several scenarios in one pool.
pub fn evaluate(
    scenarios: &[Scenario],
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<Vec<ScenarioResult>, EvalError> {
    let units = plan_units(scenarios, options);
    on_event(&EvalEvent::Started { runs: units.len() });
    let results = run_units(scenarios, &units, options, on_event)?;
    Ok(scenarios
        .iter()
        .enumerate()
        .map(|(i, scenario)| {
            let result = summarise(scenario, i, &units, &results, options);
            on_event(&EvalEvent::ScenarioFinished { result: &result });
            result
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_partition() {
        assert_eq!(Shard::parse("2/3"), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "1/0", "x/2", "2", "1/2/3"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let shards: Vec<Shard> = (1..=3).map(|index| Shard { index, count: 3 }).collect();
        for position in 0..30 {
            assert_eq!(shards.iter().filter(|s| s.owns(position)).count(), 1);
        }
    }
}
