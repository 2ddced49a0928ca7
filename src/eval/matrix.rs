//! The run matrix: every combination of the `runs` axes is a cell, every
//! cell runs every seed. All (scenario, cell, seed) units of an evaluation
//! go through one rayon pool; results are collected in unit order, so the
//! output never depends on `--jobs` or thread timing.
//!
//! A whole evaluation is capped at [`DEFAULT_MAX_RUNS`] units (cells ×
//! seeds, summed over its scenarios) unless told otherwise, and planned
//! lazily: a [`Plan`] counts the units and computes the i-th one on
//! demand, so a matrix is never materialised as a list of units, and a
//! matrix over the cap is refused after counting at most cap + 1 cells.
//!
//! Memory stays flat in the number of runs: units run in batches, each
//! batch's outcomes are handed over in unit order before the next batch
//! starts, and a cell keeps of each run only a compact row and running
//! totals; the full records go to a spill file (see [`crate::results::cell_runs`]).

use rayon::prelude::*;
use std::ops::Range;

use super::error::{CapError, TooManyRuns};
use super::execute::{RunEnv, RunError, run_once_in};
use crate::results::cell_runs::{RunsBuilder, Spill, SpillError};
use crate::results::record::RunResult;
use crate::results::scenario_result::{RunFailure, ScenarioResult};
pub use crate::results::shard::Shard;
use crate::results::summary::CellSummary;
pub use crate::scenario::cells::{Cell, cells};
use crate::scenario::cells::{cells_up_to, combinations};
use crate::scenario::{CellSettings, LoadError, ModelSpec, Scenario};

/// Seeds a simulated scenario runs when neither it nor `--seeds` says.
pub const DEFAULT_SIMULATED_SEEDS: u64 = 50;

/// The most runs (cells × seeds, over every scenario) one evaluation makes
/// unless `--max-runs` says otherwise.
pub const DEFAULT_MAX_RUNS: u64 = 1_000_000;

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
    /// The cap on runs (`--max-runs`); `None` is [`DEFAULT_MAX_RUNS`].
    pub max_runs: Option<u64>,
}

impl EvalOptions {
    /// The cap on runs in force.
    pub fn max_runs(&self) -> u64 {
        self.max_runs.unwrap_or(DEFAULT_MAX_RUNS)
    }
}

/// Why the runs did not all finish.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Run(#[from] RunError),
    #[error("interrupted: runs were stopped before they all finished; no report was written")]
    Interrupted,
    /// The matrix holds more runs than the cap; nothing was run.
    #[error(transparent)]
    TooManyRuns(TooManyRuns),
    /// The runs' records could not be kept in the temporary spill file.
    #[error(transparent)]
    Spill(#[from] SpillError),
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
        metrics: &'a RunResult,
        /// The run's place in the evaluation's unit list (its run order),
        /// and the unit itself.
        position: usize,
        unit: Unit,
        /// Everything the run produced (for run logs).
        record: &'a crate::results::record::RunRecord,
    },
    /// A unit ended without a measurement: its run could not happen, or
    /// was never started (a spend limit). Reporters that count units to a
    /// scenario's end count these too.
    RunUnmeasured {
        unit: Unit,
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

/// How many runs a scenario's matrix makes, counted without building more
/// than `limit` runs' worth of cells: `Ok(runs)`, or why they are more
/// than `limit`.
pub fn count_runs(scenario: &Scenario, options: &EvalOptions, limit: u64) -> Result<u64, CapError> {
    let seeds = seed_count(scenario, options);
    let combos = combinations(scenario);
    // Cheap answers first: every combination is at most one cell.
    if combos.saturating_mul(seeds) <= limit {
        return Ok(cells(scenario).len() as u64 * seeds);
    }
    if combos > limit {
        return Err(CapError::Combinations {
            limit,
            combos,
            seeds,
        });
    }
    let most_cells = usize::try_from(limit / seeds.max(1)).unwrap_or(usize::MAX);
    match cells_up_to(scenario, most_cells) {
        (found, true) => Ok(found.len() as u64 * seeds),
        (_, false) => Err(CapError::Cells {
            limit,
            cells: most_cells,
            seeds,
        }),
    }
}

/// The number of seeds each cell of `scenario` runs (see [`seeds`]).
fn seed_count(scenario: &Scenario, options: &EvalOptions) -> u64 {
    match (&scenario.model, options.seeds, &scenario.runs.seeds) {
        (ModelSpec::Simulate(_) | ModelSpec::Real(_), Some(n), _) => n,
        (_, _, Some(crate::scenario::Seeds::Count(n))) => *n,
        (_, _, Some(crate::scenario::Seeds::List(list))) => list.len() as u64,
        (ModelSpec::Simulate(_), None, None) => DEFAULT_SIMULATED_SEEDS,
        (ModelSpec::Script(_) | ModelSpec::Real(_), _, None) => 1,
    }
}

/// Refuses, as load errors of their files (at their `runs:` key), the
/// scenarios whose matrix alone makes more runs than the cap; the others
/// are returned. `check` and `run` both call it, so `check` reports what
/// `run` would refuse.
pub fn admit(scenarios: Vec<Scenario>, options: &EvalOptions) -> (Vec<Scenario>, Vec<LoadError>) {
    let limit = options.max_runs();
    let mut admitted = Vec::with_capacity(scenarios.len());
    let mut errors = Vec::new();
    for scenario in scenarios {
        match count_runs(&scenario, options, limit) {
            Ok(_) => admitted.push(scenario),
            Err(e) => errors.push(LoadError::new(
                &scenario.file,
                scenario.runs_position,
                e.to_string(),
            )),
        }
    }
    (admitted, errors)
}

/// One scenario's share of a plan: its units are positions
/// `offset .. offset + cells × seeds` of the whole run, cell by cell, each
/// cell seed by seed.
#[derive(Debug, Clone)]
struct PlannedScenario {
    offset: u64,
    cells: Vec<Cell>,
    seeds: Vec<u64>,
}

impl PlannedScenario {
    fn units(&self) -> u64 {
        self.cells.len() as u64 * self.seeds.len() as u64
    }
}

/// The units of an evaluation (or of its shard), in report order, counted
/// but not listed: [`Plan::unit`] computes the i-th one.
#[derive(Debug, Clone)]
pub struct Plan {
    scenarios: Vec<PlannedScenario>,
    /// Units of the whole run (every shard).
    total: u64,
    shard: Option<Shard>,
}

impl Plan {
    /// Plans `scenarios`, refusing a run over the cap before building any
    /// cell list longer than the cap allows.
    pub fn new(scenarios: &[Scenario], options: &EvalOptions) -> Result<Self, EvalError> {
        let limit = options.max_runs();
        let mut planned = Vec::with_capacity(scenarios.len());
        let mut total: u64 = 0;
        for scenario in scenarios {
            let remaining = limit.saturating_sub(total);
            count_runs(scenario, options, remaining).map_err(|source| {
                let file = scenario.file.clone();
                EvalError::TooManyRuns(if total == 0 {
                    TooManyRuns::Scenario { file, source }
                } else {
                    TooManyRuns::InAll {
                        limit,
                        before: total,
                        file,
                    }
                })
            })?;
            let scenario_plan = PlannedScenario {
                offset: total,
                cells: cells(scenario),
                seeds: seeds(scenario, options),
            };
            total += scenario_plan.units();
            planned.push(scenario_plan);
        }
        Ok(Self {
            scenarios: planned,
            total,
            shard: options.shard,
        })
    }

    /// Units of the whole run, every shard included.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Units this plan runs (its shard's share).
    pub fn len(&self) -> usize {
        let units = match self.shard {
            None => self.total,
            Some(shard) => {
                let (k, n) = (shard.index as u64 - 1, shard.count as u64);
                if self.total > k {
                    (self.total - k).div_ceil(n)
                } else {
                    0
                }
            }
        };
        usize::try_from(units).unwrap_or(usize::MAX)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The position in the whole run of this plan's i-th unit.
    fn position(&self, i: usize) -> u64 {
        match self.shard {
            None => i as u64,
            Some(shard) => shard.index as u64 - 1 + i as u64 * shard.count as u64,
        }
    }

    /// The plan's i-th unit, in report order.
    pub fn unit(&self, i: usize) -> Option<Unit> {
        let position = self.position(i);
        if position >= self.total {
            return None;
        }
        let s = self
            .scenarios
            .partition_point(|p| p.offset + p.units() <= position);
        let planned = self.scenarios.get(s)?;
        let relative = position - planned.offset;
        let seeds = planned.seeds.len() as u64;
        Some(Unit {
            scenario: s,
            cell: usize::try_from(relative / seeds).ok()?,
            seed: *planned.seeds.get(usize::try_from(relative % seeds).ok()?)?,
        })
    }

    /// Every unit of the plan, in report order.
    pub fn units(&self) -> impl Iterator<Item = Unit> + '_ {
        (0..self.len()).filter_map(|i| self.unit(i))
    }

    /// The plan indices of scenario `s`'s units (they are contiguous).
    #[cfg(test)]
    fn range_of(&self, s: usize) -> Range<usize> {
        let Some(planned) = self.scenarios.get(s) else {
            return 0..0;
        };
        let (start, end) = (planned.offset, planned.offset + planned.units());
        let index_of = |position: u64| -> usize {
            let i = match self.shard {
                None => position,
                Some(shard) => {
                    let (k, n) = (shard.index as u64 - 1, shard.count as u64);
                    position.saturating_sub(k).div_ceil(n)
                }
            };
            usize::try_from(i).unwrap_or(usize::MAX).min(self.len())
        };
        index_of(start)..index_of(end)
    }

    /// The cells of scenario `s`, as planned.
    fn cells_of(&self, s: usize) -> &[Cell] {
        self.scenarios.get(s).map_or(&[], |p| p.cells.as_slice())
    }

    fn seeds_of(&self, s: usize) -> &[u64] {
        self.scenarios.get(s).map_or(&[], |p| p.seeds.as_slice())
    }
}

/// Plans an evaluation: see [`Plan::new`].
pub fn plan(scenarios: &[Scenario], options: &EvalOptions) -> Result<Plan, EvalError> {
    Plan::new(scenarios, options)
}

/// What became of one unit of a plan.
#[derive(Debug, Clone, PartialEq)]
pub enum UnitOutcome {
    Ran(Box<RunResult>),
    /// Never started: the spend limit was reached before its turn (runs
    /// already started finish).
    NotRun,
    /// Could not happen; the failure says why.
    Failed(RunFailure),
}

/// Units per thread in a batch. Every unit of a batch finishes before the
/// next batch starts, so what waits to be put in unit order (outcomes,
/// run-log lines) is bounded by the batch, whatever the run count; the
/// cost is a thread idling at the end of a batch, about 1/64 of the time.
const BATCH_PER_THREAD: usize = 64;

/// Where the runs of a batch are run.
enum Workers {
    /// On the calling thread, in order: one job. A pool of one would hand
    /// every batch to its worker and back (a futex wake, and the worker
    /// spinning between batches: about a tenth of a short episode's CPU)
    /// to run the same units in the same order.
    Here,
    /// On a pool of `--jobs` threads.
    Pool(rayon::ThreadPool),
    /// On rayon's global pool (no `--jobs`, or a pool that could not be
    /// built).
    Global,
}

impl Workers {
    fn of(jobs: Option<usize>) -> Self {
        match jobs {
            Some(1) => Self::Here,
            Some(jobs) => rayon::ThreadPoolBuilder::new()
                .num_threads(jobs)
                .build()
                .map_or(Self::Global, Self::Pool),
            None => Self::Global,
        }
    }

    fn threads(&self) -> usize {
        match self {
            Self::Here => 1,
            Self::Pool(pool) => pool.current_num_threads(),
            Self::Global => rayon::current_num_threads(),
        }
    }
}

/// Runs the units of `plan` on a pool of `options.jobs` threads and hands
/// what became of each to `sink`, in plan order (with its plan index).
pub fn run_units(
    scenarios: &[Scenario],
    plan: &Plan,
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
    sink: &mut dyn FnMut(usize, UnitOutcome) -> Result<(), EvalError>,
) -> Result<(), EvalError> {
    // A Ctrl-C during this call is handled by it, then forgotten.
    let _session = crate::cancel::Session::begin();
    let budget = options.env.real.as_ref().and_then(|real| real.budget());
    let run_one = |position: usize| {
        if crate::cancel::requested() {
            return Err(EvalError::Interrupted);
        }
        let Some(unit) = plan.unit(position) else {
            return Ok(UnitOutcome::NotRun);
        };
        let (Some(scenario), Some(cell)) = (
            scenarios.get(unit.scenario),
            plan.cells_of(unit.scenario).get(unit.cell),
        ) else {
            return Ok(UnitOutcome::NotRun);
        };
        let spends = matches!(scenario.model, ModelSpec::Real(_));
        if spends && budget.is_some_and(|b| !b.allows_new_run()) {
            on_event(&EvalEvent::RunUnmeasured { unit });
            return Ok(UnitOutcome::NotRun);
        }
        // A run that cannot happen costs its scenario only: the
        // error is kept for the scenario's result, the others go on.
        let record = match run_once_in(scenario, cell, unit.seed, &options.env) {
            Ok(record) => record,
            Err(e) => {
                on_event(&EvalEvent::RunUnmeasured { unit });
                return Ok(UnitOutcome::Failed(RunFailure {
                    agent: matches!(e, RunError::Agent { .. }),
                    message: e.to_string(),
                }));
            }
        };
        // A run cut short by Ctrl-C measured nothing meaningful.
        if crate::cancel::requested() {
            return Err(EvalError::Interrupted);
        }
        on_event(&EvalEvent::RunFinished {
            scenario: &scenario.name,
            settings: &cell.settings,
            metrics: &record.result,
            position,
            unit,
            record: &record,
        });
        Ok(UnitOutcome::Ran(Box::new(record.result)))
    };
    let workers = Workers::of(options.jobs);
    let batch = |range: Range<usize>| {
        let work = || {
            range
                .clone()
                .into_par_iter()
                .map(run_one)
                .collect::<Result<Vec<_>, EvalError>>()
        };
        match &workers {
            Workers::Here => range.map(run_one).collect::<Result<Vec<_>, EvalError>>(),
            Workers::Pool(pool) => pool.install(work),
            Workers::Global => work(),
        }
    };
    let threads = workers.threads();
    let batch_len = threads.max(1) * BATCH_PER_THREAD;
    let mut start = 0;
    while start < plan.len() {
        let end = start.saturating_add(batch_len).min(plan.len());
        for (position, outcome) in (start..end).zip(batch(start..end)?) {
            sink(position, outcome)?;
        }
        start = end;
    }
    Ok(())
}

/// Runs a plan and summarises each of its scenarios: each run's row and
/// totals go to its cell as it is handed over, its record to one spill
/// file shared by the cells (runs arrive cell by cell, seed by seed, so a
/// cell's records lie together in it).
fn run_and_summarise(
    scenarios: &[Scenario],
    plan: &Plan,
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<Vec<ScenarioResult>, EvalError> {
    // Made when the first record arrives: an evaluation none of whose runs
    // happened (no temporary folder, say) reports its run errors.
    let mut spill: Option<(
        std::sync::Arc<Spill>,
        crate::results::cell_runs::SpillWriter,
    )> = None;
    let share = |seeds: usize| match options.shard {
        Some(shard) => seeds.div_ceil(shard.count),
        None => seeds,
    };
    let mut builders: Vec<Vec<RunsBuilder>> = (0..scenarios.len())
        .map(|s| {
            let seeds = share(plan.seeds_of(s).len());
            plan.cells_of(s)
                .iter()
                .map(|_| RunsBuilder::with_capacity(seeds))
                .collect()
        })
        .collect();
    let mut run_errors: Vec<Vec<RunFailure>> = vec![Vec::new(); scenarios.len()];
    run_units(
        scenarios,
        plan,
        options,
        on_event,
        &mut |position, outcome| {
            let Some(unit) = plan.unit(position) else {
                return Ok(());
            };
            match outcome {
                UnitOutcome::Ran(metrics) => {
                    if let Some(cell) = builders
                        .get_mut(unit.scenario)
                        .and_then(|cells| cells.get_mut(unit.cell))
                    {
                        let (_, writer) = match &mut spill {
                            Some(spill) => spill,
                            None => spill.insert(Spill::create()?),
                        };
                        cell.push(&metrics, writer)?;
                    }
                }
                UnitOutcome::Failed(failure) => {
                    if let Some(errors) = run_errors.get_mut(unit.scenario)
                        && !errors.contains(&failure)
                    {
                        errors.push(failure);
                    }
                }
                UnitOutcome::NotRun => {}
            }
            Ok(())
        },
    )?;
    let spill = match spill {
        Some((spill, writer)) => {
            writer.finish()?;
            Some(spill)
        }
        None => None,
    };
    Ok(scenarios
        .iter()
        .zip(builders)
        .zip(run_errors)
        .enumerate()
        .map(|(i, ((scenario, cells), errors))| {
            summarise(scenario, i, plan, cells, spill.as_ref(), errors, options)
        })
        .collect())
}

/// Builds scenario `scenario_index`'s cell summaries from its cells' runs
/// and, unless `shard` (a part of the runs only), checks the expectations.
fn summarise(
    scenario: &Scenario,
    scenario_index: usize,
    plan: &Plan,
    cells: Vec<RunsBuilder>,
    spill: Option<&std::sync::Arc<Spill>>,
    run_errors: Vec<RunFailure>,
    options: &EvalOptions,
) -> ScenarioResult {
    let steps_total = scenario.steps_total();
    let labels = crate::results::summary::StepLabel::of(scenario);
    let summaries: Vec<CellSummary> = plan
        .cells_of(scenario_index)
        .iter()
        .zip(cells)
        .map(|(cell, runs)| {
            CellSummary::of_runs(cell.settings.clone(), steps_total, runs.finish(spill))
                .with_steps(&labels)
        })
        .collect();
    let mut result = ScenarioResult::build(
        scenario.name.clone(),
        scenario.file.display().to_string(),
        plan.seeds_of(scenario_index).to_vec(),
        summaries,
        scenario.expect.clone(),
        options.shard.is_none(),
    );
    if options.shard.is_some() {
        result.sha256 = Some(scenario.sha256.clone());
    }
    result.run_errors = run_errors;
    result.agent = scenario.agent.preset.map(super::execute::presets::describe);
    if scenario.agent.preset.is_some() {
        // The agent's own reminder policy stands where agent-eval's would:
        // a setting of agent-eval's policy no cell shows (nag, placement)
        // is left out of the expectations' words.
        let unseen: Vec<_> = super::execute::presets::OWN_POLICY_AXES
            .into_iter()
            .filter(|axis| result.cells.iter().all(|c| c.settings.get(axis).is_none()))
            .collect();
        result.hide_axes(&unseen);
    }
    result.profile = scenario.profile.clone();
    result
}

/// Plans, runs and summarises one scenario on its own.
pub fn evaluate_scenario(
    scenario: &Scenario,
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<ScenarioResult, EvalError> {
    let scenarios = std::slice::from_ref(scenario);
    let plan = Plan::new(scenarios, options)?;
    // One scenario in, one result out.
    run_and_summarise(scenarios, &plan, options, on_event)?
        .pop()
        .ok_or_else(|| SpillError::Io(std::io::Error::other("no scenario was summarised")).into())
}

/// Plans, runs and summarises several scenarios in one pool.
pub fn evaluate(
    scenarios: &[Scenario],
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<Vec<ScenarioResult>, EvalError> {
    let plan = Plan::new(scenarios, options)?;
    evaluate_plan(scenarios, &plan, options, on_event)
}

/// Runs and summarises a plan made by [`Plan::new`] for `scenarios`.
pub fn evaluate_plan(
    scenarios: &[Scenario],
    plan: &Plan,
    options: &EvalOptions,
    on_event: &(dyn Fn(&EvalEvent<'_>) + Sync),
) -> Result<Vec<ScenarioResult>, EvalError> {
    on_event(&EvalEvent::Started { runs: plan.len() });
    let results = run_and_summarise(scenarios, plan, options, on_event)?;
    for result in &results {
        on_event(&EvalEvent::ScenarioFinished { result });
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn scenario(name: &str, runs: &str) -> Scenario {
        crate::scenario::load_str(
            Path::new(&format!("{name}.yaml")),
            &format!("name: {name}\ntask: t\nsteps:\n  - text: a\n    do: [{{tool: bash, input: {{command: ls}}}}]\nmodel:\n  simulate: {{}}\nruns:\n{runs}"),
        )
        .unwrap()
    }

    /// Every unit in report order, listed the plain way.
    fn listed(scenarios: &[Scenario], options: &EvalOptions) -> Vec<Unit> {
        let mut units = Vec::new();
        for (s, scenario) in scenarios.iter().enumerate() {
            for cell in 0..cells(scenario).len() {
                for seed in seeds(scenario, options) {
                    units.push(Unit {
                        scenario: s,
                        cell,
                        seed,
                    });
                }
            }
        }
        units
    }

    #[test]
    fn a_plan_computes_the_units_it_would_list() {
        let scenarios = [
            scenario(
                "a",
                "  todo: [true, false]\n  nag_threshold: [1, 2, off]\n  seeds: [7, 3, 5]\n",
            ),
            scenario("b", "  seeds: 4\n"),
            scenario("c", "  dialect: [s03, codex]\n  seeds: 2\n"),
        ];
        let whole = EvalOptions::default();
        let all = listed(&scenarios, &whole);
        let plan = Plan::new(&scenarios, &whole).unwrap();
        assert_eq!(plan.total(), all.len() as u64);
        assert_eq!(plan.units().collect::<Vec<_>>(), all);
        for count in 1..=5 {
            let mut seen = Vec::new();
            for index in 1..=count {
                let shard = Shard { index, count };
                let options = EvalOptions {
                    shard: Some(shard),
                    ..EvalOptions::default()
                };
                let plan = Plan::new(&scenarios, &options).unwrap();
                let expected: Vec<Unit> = all
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| shard.owns(*i))
                    .map(|(_, u)| *u)
                    .collect();
                assert_eq!(plan.units().collect::<Vec<_>>(), expected, "{shard}");
                for s in 0..scenarios.len() {
                    let range = plan.range_of(s);
                    assert!(range.clone().all(|i| plan.unit(i).unwrap().scenario == s));
                    let outside = (0..plan.len()).filter(|i| !range.contains(i));
                    assert!(
                        outside
                            .into_iter()
                            .all(|i| plan.unit(i).unwrap().scenario != s)
                    );
                }
                seen.extend(expected);
            }
            assert_eq!(seen.len(), all.len());
        }
    }

    #[test]
    fn a_matrix_over_the_cap_is_refused_after_counting() {
        // 2 × 40,000 thresholds × 100,000 seeds: refused at once.
        let thresholds: Vec<String> = (1..=40_000).map(|n| n.to_string()).collect();
        let big = scenario(
            "big",
            &format!(
                "  todo: [true, false]\n  nag_threshold: [{}]\n  seeds: 100000\n",
                thresholds.join(", ")
            ),
        );
        let options = EvalOptions::default();
        let e = count_runs(&big, &options, DEFAULT_MAX_RUNS).unwrap_err();
        assert!(
            e.to_string().contains("more than the cap of 1000000 runs"),
            "{e}"
        );
        assert!(matches!(
            Plan::new(std::slice::from_ref(&big), &options),
            Err(EvalError::TooManyRuns(_))
        ));
        let (admitted, errors) = admit(vec![big.clone()], &options);
        assert!(admitted.is_empty());
        assert_eq!(errors[0].position, Some((8, 1)), "{}", errors[0]);
        // Cells are counted after equal ones merge: todo false is one cell.
        let seeds_for = |n: u64| EvalOptions {
            seeds: Some(n),
            ..EvalOptions::default()
        };
        assert_eq!(count_runs(&big, &seeds_for(1), 80_000), Ok(40_001));
        assert!(count_runs(&big, &seeds_for(1), 40_000).is_err());
        let merged = scenario(
            "m",
            "  todo: [true, false]\n  nag_threshold: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n",
        );
        assert_eq!(
            count_runs(&merged, &seeds_for(60_000), 1_000_000),
            Ok(11 * 60_000)
        );
        assert!(count_runs(&merged, &seeds_for(100_000), 1_000_000).is_err());
        // The cap is over the whole run.
        let two = [merged.clone(), scenario("n", "  todo: [true, false]\n")];
        let options = EvalOptions {
            seeds: Some(50_000),
            max_runs: Some(600_000),
            ..EvalOptions::default()
        };
        assert!(
            matches!(Plan::new(&two, &options), Err(EvalError::TooManyRuns(m)) if m.to_string().contains("in all"))
        );
        let options = EvalOptions {
            max_runs: Some(650_000),
            ..options
        };
        assert_eq!(Plan::new(&two, &options).unwrap().total(), 650_000);
    }

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
