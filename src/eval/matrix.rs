//! The run matrix: every combination of the `runs` axes is a cell, every
//! cell runs every seed. All (scenario, cell, seed) units of an evaluation
//! go through one rayon pool; results are collected in unit order, so the
//! output never depends on `--jobs` or thread timing.

use rayon::prelude::*;

use super::expect;
use super::run::{RunError, RunMetrics, run_once};
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
        settings: CellSettings,
        metrics: &'a RunMetrics,
    },
    ScenarioFinished {
        result: &'a ScenarioResult,
    },
}

/// A scenario's cells, in axis order (todo values, then thresholds).
pub fn cells(scenario: &Scenario) -> Vec<CellSettings> {
    let todos = scenario
        .runs
        .todo
        .clone()
        .unwrap_or_else(|| vec![scenario.agent.todo]);
    let thresholds = scenario
        .runs
        .nag_threshold
        .clone()
        .unwrap_or_else(|| vec![scenario.agent.nag.threshold]);
    let mut cells = Vec::new();
    for &todo in &todos {
        for &nag_threshold in &thresholds {
            let cell = CellSettings {
                todo,
                nag_threshold,
            };
            if !cells.contains(&cell) {
                cells.push(cell);
            }
        }
    }
    cells
}

/// The seeds each cell of `scenario` runs. A scripted model replays the
/// same responses whatever the seed, so it runs once per cell unless the
/// scenario lists seeds itself.
pub fn seeds(scenario: &Scenario, options: &EvalOptions) -> Vec<u64> {
    match (&scenario.model, options.seeds, &scenario.runs.seeds) {
        (ModelSpec::Simulate(_), Some(n), _) => (0..n).collect(),
        (_, _, Some(seeds)) => seeds.to_vec(),
        (ModelSpec::Simulate(_), None, None) => (0..DEFAULT_SIMULATED_SEEDS).collect(),
        (ModelSpec::Script(_), _, None) => vec![0],
    }
}

/// Every unit of an evaluation, in report order.
pub fn plan_units(scenarios: &[Scenario], options: &EvalOptions) -> Vec<Unit> {
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
pub fn run_units(
    scenarios: &[Scenario],
    units: &[Unit],
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<Vec<RunMetrics>, RunError> {
    let all_cells: Vec<Vec<CellSettings>> = scenarios.iter().map(cells).collect();
    let work = || {
        units
            .par_iter()
            .map(|unit| {
                let scenario = &scenarios[unit.scenario];
                let settings = all_cells[unit.scenario][unit.cell];
                let metrics = run_once(scenario, settings, unit.seed)?.metrics;
                on_event(&EvalEvent::RunFinished {
                    scenario: &scenario.name,
                    settings,
                    metrics: &metrics,
                });
                Ok(metrics)
            })
            .collect::<Result<Vec<_>, RunError>>()
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

/// Groups unit results into cell summaries and checks the expectations.
pub fn summarise(
    scenario: &Scenario,
    scenario_index: usize,
    units: &[Unit],
    results: &[RunMetrics],
) -> ScenarioResult {
    let cell_settings = cells(scenario);
    let steps_total = scenario.steps_total();
    let summaries: Vec<CellSummary> = cell_settings
        .iter()
        .enumerate()
        .map(|(c, &settings)| {
            let runs = units
                .iter()
                .zip(results)
                .filter(|(u, _)| u.scenario == scenario_index && u.cell == c)
                .map(|(_, r)| r.clone())
                .collect();
            CellSummary::new(settings, steps_total, runs)
        })
        .collect();
    let expectations = scenario
        .expect
        .iter()
        .map(|e| expect::evaluate(e, &summaries))
        .collect();
    ScenarioResult {
        name: scenario.name.clone(),
        file: scenario.file.display().to_string(),
        cells: summaries,
        expectations,
    }
}

/// Plans, runs and summarises one scenario on its own.
pub fn evaluate_scenario(
    scenario: &Scenario,
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<ScenarioResult, RunError> {
    let scenarios = std::slice::from_ref(scenario);
    let units = plan_units(scenarios, options);
    let results = run_units(scenarios, &units, options, on_event)?;
    Ok(summarise(scenario, 0, &units, &results))
}

/// Plans, runs and summarises several scenarios in one pool.
pub fn evaluate(
    scenarios: &[Scenario],
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<Vec<ScenarioResult>, RunError> {
    let units = plan_units(scenarios, options);
    on_event(&EvalEvent::Started { runs: units.len() });
    let results = run_units(scenarios, &units, options, on_event)?;
    Ok(scenarios
        .iter()
        .enumerate()
        .map(|(i, scenario)| {
            let result = summarise(scenario, i, &units, &results);
            on_event(&EvalEvent::ScenarioFinished { result: &result });
            result
        })
        .collect())
}
