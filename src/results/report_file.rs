//! The JSON report read back (`diff`, `run --baseline`, `merge`): only
//! what the results are rebuilt from, and every value checked within its
//! bounds ([`ReportFile::check_bounds`]). A cell's keys are read through
//! the metric table, so a later key is skipped and a duplicate refused;
//! a cell's runs are checked as they are parsed and kept as compact rows
//! (their records go to a spill file when merging shards,
//! [`super::merge`]). The writer is `crate::report::json`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::metric::{METRICS, Metric};
use crate::results::CellSummary;
use crate::results::baseline::CellRates;
use crate::results::cell_runs::{RunRow, RunTotals, Runs, SpillError, SpillWriter};
use crate::results::record::RunResult;
use crate::results::run_rows::RunRows;
use crate::scenario::{CellSettings, Expectation};

/// The report's format version.
pub const VERSION: u32 = 1;

/// What a shard report states about the whole run it is part of, so that
/// `merge` combines only shards of one run: every shard of a run states the
/// same plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardPlan {
    /// Units (cells × seeds over every scenario) of the whole run.
    pub units: u64,
    /// `--seeds`, when given.
    pub seeds: Option<u64>,
    /// `--model`, when given (it replaces every scenario's model).
    pub model: Option<serde_json::Value>,
}

/// A report read back from a file: only what the results are rebuilt from,
/// and what is checked.
#[derive(Debug, Clone, Deserialize)]
pub struct ReportFile {
    pub version: u32,
    #[serde(default)]
    pub shard: Option<String>,
    #[serde(default)]
    pub plan: Option<ShardPlan>,
    pub scenarios: Vec<ScenarioFile>,
    #[serde(default)]
    pub errors: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ScenarioFile {
    pub name: String,
    pub file: String,
    pub seeds: Vec<u64>,
    pub cells: Vec<CellFile>,
    #[serde(default)]
    pub expect_spec: Vec<Expectation>,
    /// The scenario file's SHA-256 (shard reports).
    #[serde(default)]
    pub sha256: Option<String>,
    /// The calibration profile it ran under (`None`: the defaults).
    #[serde(default)]
    pub profile: Option<crate::model::simulated::profile::ProfileRef>,
}

/// A cell as read back. The metric keys are those of the metric table
/// ([`crate::metric`]), read by a hand-written visitor so that a
/// metric added to the table is read with no change here.
#[derive(Debug, Clone)]
pub struct CellFile {
    pub settings: CellSettings,
    pub steps_total: usize,
    /// The runs, checked and kept compact as they are read (see
    /// [`ReadRuns`]).
    pub results: ReadRuns,
    pub runs: Option<usize>,
    /// The per-step rates as written (their ids and texts label the
    /// rebuilt ones).
    pub step_rates: Vec<crate::results::summary::StepRate>,
    pub pass_hat_k: Option<BTreeMap<String, f64>>,
    /// The aggregates as written, in file order: a baseline is compared on
    /// the rates, and each is checked to be within its bounds.
    pub metrics: Vec<(&'static Metric, f64)>,
    /// The rates' intervals as written.
    pub intervals: Vec<(&'static Metric, [f64; 2])>,
}

impl CellFile {
    /// The value of metric `name` as the file states it.
    pub fn stated(&self, name: &str) -> Option<f64> {
        self.metrics
            .iter()
            .find(|(m, _)| m.name == name)
            .map(|(_, x)| *x)
    }

    /// The interval of rate `name` as the file states it.
    pub fn stated_interval(&self, name: &str) -> Option<[f64; 2]> {
        self.intervals
            .iter()
            .find(|(m, _)| m.name == name)
            .map(|(_, ci)| *ci)
    }
}

impl<'de> Deserialize<'de> for CellFile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(CellFileVisitor)
    }
}

struct CellFileVisitor;

/// A cell's key, told apart without allocating (a report may hold many
/// cells).
#[derive(Clone, Copy, PartialEq)]
enum CellKey {
    Settings,
    StepsTotal,
    Results,
    Runs,
    StepRates,
    PassHatK,
    Metric(&'static Metric),
    Interval(&'static Metric),
    /// A key this version does not read (skipped, as a newer writer's).
    Other,
}

impl<'de> Deserialize<'de> for CellKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl serde::de::Visitor<'_> for KeyVisitor {
            type Value = CellKey;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a cell key")
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<CellKey, E> {
                Ok(match key {
                    "settings" => CellKey::Settings,
                    "steps_total" => CellKey::StepsTotal,
                    "results" => CellKey::Results,
                    "runs" => CellKey::Runs,
                    "step_rates" => CellKey::StepRates,
                    "pass_hat_k" => CellKey::PassHatK,
                    other => Metric::named(other)
                        .map(CellKey::Metric)
                        .unwrap_or_else(|| {
                            METRICS
                                .iter()
                                .find(|m| m.interval().is_some_and(|i| i.key == other))
                                .map_or(CellKey::Other, CellKey::Interval)
                        }),
                })
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

impl CellKey {
    fn name(self) -> &'static str {
        match self {
            Self::Settings => "settings",
            Self::StepsTotal => "steps_total",
            Self::Results => "results",
            Self::Runs => "runs",
            Self::StepRates => "step_rates",
            Self::PassHatK => "pass_hat_k",
            Self::Metric(m) => m.name,
            Self::Interval(m) => m.interval().map_or(m.name, |i| i.key),
            Self::Other => "?",
        }
    }
}

impl<'de> serde::de::Visitor<'de> for CellFileVisitor {
    type Value = CellFile;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a cell (a map)")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<CellFile, A::Error> {
        use serde::de::Error;
        let (mut settings, mut steps_total, mut results) = (None, None, None);
        let mut cell = CellFile {
            settings: CellSettings::default(),
            steps_total: 0,
            results: ReadRuns::default(),
            runs: None,
            step_rates: Vec::new(),
            pass_hat_k: None,
            metrics: Vec::new(),
            intervals: Vec::new(),
        };
        let mut seen: Vec<CellKey> = Vec::new();
        while let Some(key) = map.next_key::<CellKey>()? {
            if key != CellKey::Other {
                if seen.contains(&key) {
                    return Err(A::Error::duplicate_field(key.name()));
                }
                seen.push(key);
            }
            match key {
                CellKey::Settings => settings = Some(map.next_value()?),
                CellKey::StepsTotal => steps_total = Some(map.next_value()?),
                CellKey::Results => results = Some(map.next_value()?),
                CellKey::Runs => cell.runs = map.next_value()?,
                CellKey::StepRates => cell.step_rates = map.next_value()?,
                CellKey::PassHatK => cell.pass_hat_k = map.next_value()?,
                CellKey::Metric(metric) => {
                    if let Some(x) = map.next_value::<Option<f64>>()? {
                        cell.metrics.push((metric, x));
                    }
                }
                CellKey::Interval(metric) => {
                    if let Some(ci) = map.next_value::<Option<[f64; 2]>>()? {
                        cell.intervals.push((metric, ci));
                    }
                }
                CellKey::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        cell.settings = settings.ok_or_else(|| A::Error::missing_field("settings"))?;
        cell.steps_total = steps_total.ok_or_else(|| A::Error::missing_field("steps_total"))?;
        cell.results = results.ok_or_else(|| A::Error::missing_field("results"))?;
        Ok(cell)
    }
}

/// Where the records of the report being read go: set by
/// [`ReportFile::read_into`] for the one parse on this thread. (A context
/// for a derived `Deserialize` deep inside the report: the cells' other
/// fields keep their derived parsing.)
#[derive(Default)]
struct RecordsTo {
    /// `None`: the records are checked, counted and dropped.
    spill: Option<SpillWriter>,
    /// Why a record could not be spilled (the parse then stops).
    error: Option<SpillError>,
}

thread_local! {
    static RECORDS_TO: std::cell::RefCell<RecordsTo> =
        std::cell::RefCell::new(RecordsTo::default());
}

/// A cell's `results` as read: each run checked as it is parsed, kept as
/// its compact row and added to the totals, its record appended to the
/// spill file when one is given (else dropped). Memory per run: its row.
#[derive(Debug, Clone, Default)]
pub struct ReadRuns {
    /// Each run's row, in the order listed.
    pub rows: RunRows,
    /// Sums over the runs, in the order listed.
    pub totals: RunTotals,
    /// Bytes `start..end` of the spill file holding the records (none
    /// when no spill file was given or there is no run).
    pub(super) span: Option<(u64, u64)>,
    /// The first run's seed and steps scored.
    first: Option<(u64, usize)>,
    /// The first run whose steps scored differ from the first run's: its
    /// index, seed and steps.
    first_other_steps: Option<(usize, u64, usize)>,
    /// The first run inconsistent in itself: its index, seed and why.
    first_invalid: Option<(usize, u64, RunFault)>,
}

impl ReadRuns {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn push(&mut self, record: &RunResult) {
        let index = self.rows.len();
        match self.first {
            None => self.first = Some((record.seed, record.steps_total)),
            Some((_, steps)) => {
                if self.first_other_steps.is_none() && record.steps_total != steps {
                    self.first_other_steps = Some((index, record.seed, record.steps_total));
                }
            }
        }
        if self.first_invalid.is_none()
            && let Err(e) = check_run_values(record)
        {
            self.first_invalid = Some((index, record.seed, e));
        }
        self.rows.push(RunRow::of(record));
        self.totals.add(record);
    }

    /// The first run (in the order listed) that [`check_run`] finds at
    /// fault against a cell scoring `steps_total` steps: its seed and why.
    /// Found from what was noted while reading, whatever the order of the
    /// cell's keys.
    fn first_fault(&self, steps_total: usize) -> Option<(u64, RunFault)> {
        let other_steps = match self.first {
            Some((seed, steps)) if steps != steps_total => Some((0, seed, steps)),
            _ => self.first_other_steps,
        };
        let other_steps = other_steps.map(|(index, seed, steps)| {
            let why = RunFault::StepsTotal {
                run: steps,
                cell: steps_total,
            };
            (index, seed, why)
        });
        // The earlier run's fault; at one run, its steps (checked first).
        match (other_steps, &self.first_invalid) {
            (Some((i, seed, why)), Some((j, _, _))) if i <= *j => Some((seed, why)),
            (_, Some((_, seed, why))) => Some((*seed, why.clone())),
            (Some((_, seed, why)), None) => Some((seed, why)),
            (None, None) => None,
        }
    }
}

impl<'de> Deserialize<'de> for ReadRuns {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct RunsVisitor;
        impl<'de> serde::de::Visitor<'de> for RunsVisitor {
            type Value = ReadRuns;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of run records")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<ReadRuns, A::Error> {
                let mut runs = ReadRuns::default();
                while let Some(record) = seq.next_element::<RunResult>()? {
                    let spilled = RECORDS_TO.with(|to| {
                        let mut to = to.borrow_mut();
                        let to = &mut *to;
                        match to.spill.as_mut().map(|spill| spill.append(&record)) {
                            None => Ok(None),
                            Some(Ok(span)) => Ok(Some(span)),
                            Some(Err(e)) => {
                                let message = e.to_string();
                                to.error = Some(e);
                                Err(message)
                            }
                        }
                    });
                    if let Some((start, end)) = spilled.map_err(serde::de::Error::custom)? {
                        runs.span = Some((runs.span.map_or(start, |(first, _)| first), end));
                    }
                    runs.push(&record);
                }
                Ok(runs)
            }
        }
        d.deserialize_seq(RunsVisitor)
    }
}

/// Why a report file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ReportFileError {
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    /// Shards that are not the shards of one run, or a shard that is not
    /// whole (`path`: the file at fault, when one is).
    #[error("cannot merge: {}{message}", path.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default())]
    Mismatch {
        path: Option<PathBuf>,
        message: String,
    },
}

impl ReportFile {
    /// Reads a report and checks every value is within its bounds. Its
    /// runs are checked and kept as compact rows (for the aggregates);
    /// their records are not kept.
    pub fn read(path: &Path) -> Result<Self, ReportFileError> {
        Self::read_into(path, &mut None)
    }

    /// As [`ReportFile::read`], each run's record appended to `spill` as it
    /// is read (the cells then say where their records lie). The writer is
    /// put back, also when the file could not be read; it is dropped when
    /// it failed.
    pub(super) fn read_into(
        path: &Path,
        spill: &mut Option<SpillWriter>,
    ) -> Result<Self, ReportFileError> {
        let invalid = |message: String| ReportFileError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        // Parsed as it is read: the file's text is never held whole.
        let file = match crate::input::open_regular(path) {
            Ok(file) => file,
            Err(e) => return Err(invalid(format!("cannot read: {e}"))),
        };
        let reader = std::io::BufReader::with_capacity(1 << 16, file);
        let (parsed, spill_error) = RECORDS_TO.with(|to| {
            *to.borrow_mut() = RecordsTo {
                spill: spill.take(),
                error: None,
            };
            let parsed: Result<Self, serde_json::Error> = serde_json::from_reader(reader);
            let RecordsTo {
                spill: writer,
                error,
            } = std::mem::take(&mut *to.borrow_mut());
            *spill = writer;
            (parsed, error)
        });
        if let Some(e) = spill_error {
            *spill = None;
            return Err(invalid(e.to_string()));
        }
        let report = parsed.map_err(|e| {
            invalid(if e.is_io() {
                format!("cannot read: {e}")
            } else {
                format!("not an agent-eval JSON report: {e}")
            })
        })?;
        if report.version != VERSION {
            return Err(invalid(format!(
                "report version {} (this agent-eval reads version {VERSION})",
                report.version
            )));
        }
        report.check_bounds().map_err(|e| invalid(e.to_string()))?;
        Ok(report)
    }

    /// Every value within its bounds: rates and intervals in [0, 1], means
    /// finite and not negative (mean steps at most the steps scored),
    /// `runs` the number of results, and each run consistent (see
    /// [`check_run`]).
    pub fn check_bounds(&self) -> Result<(), BoundsError> {
        for s in &self.scenarios {
            for c in &s.cells {
                let at = || format!("scenario `{}`, cell {}", s.name, c.settings);
                let out = |why: String| BoundsError::Cell { at: at(), why };
                // In the table's written order: the rates, their intervals,
                // pass^k; then the means.
                let stated = |rates: bool| {
                    Metric::written()
                        .filter(move |m| m.is_rate() == rates)
                        .filter_map(|m| c.stated(m.name).map(|x| (m, x)))
                };
                let intervals = Metric::written().filter_map(|m| {
                    let key = m.interval()?.key;
                    c.stated_interval(m.name).map(|ci| (key, ci))
                });
                let rates = stated(true)
                    .map(|(m, x)| (m.name, x))
                    .chain(intervals.flat_map(|(key, ci)| ci.map(|x| (key, x))))
                    .chain(
                        c.pass_hat_k
                            .iter()
                            .flat_map(|m| m.values().map(|&x| ("pass_hat_k", x))),
                    );
                for (key, x) in rates {
                    if !(0.0..=1.0).contains(&x) {
                        return Err(out(format!("{key} {x} is not in [0, 1]")));
                    }
                }
                for (metric, x) in stated(false) {
                    if let Some(why) = metric.out_of_range(x) {
                        return Err(out(why));
                    }
                }
                if let Some(x) = c.stated("mean_steps_completed")
                    && x > c.steps_total as f64
                {
                    return Err(out(format!(
                        "mean_steps_completed {x} is more than steps_total {}",
                        c.steps_total
                    )));
                }
                if let Some(runs) = c.runs
                    && runs != c.results.len()
                {
                    return Err(out(format!(
                        "runs is {runs} but {} results are listed",
                        c.results.len()
                    )));
                }
                if let Some((seed, fault)) = c.results.first_fault(c.steps_total) {
                    return Err(BoundsError::Run {
                        at: at(),
                        seed,
                        fault,
                    });
                }
            }
        }
        Ok(())
    }

    /// Each cell's gated rates (completion and full completion) as the
    /// file states them (computed from the runs where a file lacks them),
    /// with its run count and intervals.
    pub fn rates(&self) -> Vec<CellRates> {
        self.scenarios
            .iter()
            .flat_map(|s| {
                s.cells.iter().map(|c| {
                    let whole = Metric::gated()
                        .all(|m| c.stated(m.name).is_some() && c.stated_interval(m.name).is_some());
                    // From the runs' rows: their records are not kept.
                    let computed = (!whole).then(|| {
                        let runs =
                            Runs::summary_only(c.results.rows.clone(), c.results.totals.clone());
                        CellSummary::of_runs(c.settings.clone(), c.steps_total, runs)
                    });
                    CellRates::new(
                        s.name.clone(),
                        c.settings.clone(),
                        c.runs.unwrap_or(c.results.len()),
                        |m| match &computed {
                            None => (
                                c.stated(m.name).unwrap_or_default(),
                                c.stated_interval(m.name).unwrap_or([0.0, 1.0]),
                            ),
                            Some(cell) => (
                                c.stated(m.name).unwrap_or(cell.value(m.name)),
                                cell.interval(m.name),
                            ),
                        },
                    )
                    .under(s.profile.clone())
                })
            })
            .collect()
    }
}

/// One run's values against each other: steps completed at most the steps
/// scored (and the cell's count of them), rejected planning calls at most
/// the planning calls, reminders and drifts at turns that happened, in
/// order, a cost finite and not negative. (Counts cannot be negative: they
/// are read as unsigned numbers.)
pub fn check_run(r: &RunResult, steps_total: usize) -> Result<(), RunFault> {
    if r.steps_total != steps_total {
        return Err(RunFault::StepsTotal {
            run: r.steps_total,
            cell: steps_total,
        });
    }
    check_run_values(r)
}

/// A report's value out of its bounds ([`ReportFile::check_bounds`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BoundsError {
    /// A cell's stated value; `at` names the scenario and the cell.
    #[error("{at}: {why}")]
    Cell { at: String, why: String },
    /// One of the cell's runs.
    #[error("{at}, seed {seed}: {fault}")]
    Run {
        at: String,
        seed: u64,
        fault: RunFault,
    },
}

/// Why one run's values do not fit together ([`check_run`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunFault {
    #[error("steps_total {run} differs from its cell's {cell}")]
    StepsTotal { run: usize, cell: usize },
    #[error("steps_completed {completed} is more than steps_total {total}")]
    StepsCompleted { completed: usize, total: usize },
    #[error("rejected_todo_updates {rejected} is more than todo_calls {calls}")]
    Rejected { rejected: usize, calls: usize },
    #[error("{name} lists turn {turn}, outside turns 1..={last}")]
    TurnOutside {
        name: &'static str,
        turn: usize,
        last: usize,
    },
    #[error("{name} is not in increasing turn order")]
    TurnOrder { name: &'static str },
    #[error("cost {0} is not an amount of US dollars")]
    Cost(f64),
}

/// [`check_run`] but for the cell's count of steps.
fn check_run_values(r: &RunResult) -> Result<(), RunFault> {
    if r.steps_completed > r.steps_total {
        return Err(RunFault::StepsCompleted {
            completed: r.steps_completed,
            total: r.steps_total,
        });
    }
    if r.rejected_todo_updates > r.todo_calls {
        return Err(RunFault::Rejected {
            rejected: r.rejected_todo_updates,
            calls: r.todo_calls,
        });
    }
    let within_turns = |name: &'static str, turns: &[usize], last: usize| {
        if let Some(&turn) = turns.iter().find(|&&t| t == 0 || t > last) {
            return Err(RunFault::TurnOutside { name, turn, last });
        }
        if turns.windows(2).any(|w| matches!(w, [a, b] if a >= b)) {
            return Err(RunFault::TurnOrder { name });
        }
        Ok(())
    };
    within_turns("reminders_at", &r.reminders_at, r.turns)?;
    // A drifted request may be the one that found the script finished.
    within_turns("drift_turns", &r.drift_turns, r.turns.saturating_add(1))?;
    if let Some(cost) = r.cost
        && !(cost.is_finite() && cost >= 0.0)
    {
        return Err(RunFault::Cost(cost));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cell_file(extra: serde_json::Value) -> Result<CellFile, serde_json::Error> {
        let mut cell = json!({"settings": {"todo": true}, "steps_total": 2, "results": []});
        if let (Some(cell), Some(extra)) = (cell.as_object_mut(), extra.as_object()) {
            cell.extend(extra.clone());
        }
        serde_json::from_value(cell)
    }

    #[test]
    fn a_cell_reads_the_table_keys_and_skips_others() {
        let cell = cell_file(json!({
            "completion_rate": 0.5, "completion_ci95": [0.25, 0.75],
            "mean_turns": 4.0, "mean_todo_calls": null, "a_later_key": {"x": [1]}
        }))
        .unwrap();
        assert_eq!(cell.stated("completion_rate"), Some(0.5));
        assert_eq!(cell.stated_interval("completion_rate"), Some([0.25, 0.75]));
        assert_eq!(cell.stated("mean_turns"), Some(4.0));
        assert_eq!(cell.stated("mean_todo_calls"), None);
        assert_eq!(cell.stated_interval("full_completion_rate"), None);
    }

    #[test]
    fn a_cell_refuses_duplicates_missing_keys_and_wrong_types() {
        let duplicated = serde_json::from_str::<CellFile>(
            r#"{"settings": {}, "steps_total": 1, "results": [], "mean_turns": 1, "mean_turns": 2}"#,
        );
        let message = duplicated.unwrap_err().to_string();
        assert!(
            message.contains("duplicate field `mean_turns`"),
            "{message}"
        );
        let missing = serde_json::from_value::<CellFile>(json!({"settings": {}, "results": []}));
        let message = missing.unwrap_err().to_string();
        assert!(message.contains("missing field `steps_total`"), "{message}");
        let wrong = cell_file(json!({"mean_turns": "many"}));
        assert!(wrong.is_err());
    }

    #[test]
    fn bounds_are_checked_for_every_written_metric() {
        let report = |cell: serde_json::Value| -> ReportFile {
            serde_json::from_value(json!({
                "version": VERSION,
                "scenarios": [{"name": "s", "file": "s.yaml", "seeds": [], "cells": [cell]}]
            }))
            .unwrap()
        };
        let base = json!({"settings": {"todo": true}, "steps_total": 2, "results": []});
        let with = |key: &str, value: serde_json::Value| {
            let mut cell = base.clone();
            cell[key] = value;
            report(cell).check_bounds()
        };
        assert_eq!(with("mean_turns", json!(3.0)), Ok(()));
        let negative = with("mean_protocol_violations", json!(-1.0))
            .unwrap_err()
            .to_string();
        assert!(negative.ends_with("mean_protocol_violations -1 is not a mean of counts"));
        let interval = with("full_completion_ci95", json!([0.5, 1.5]))
            .unwrap_err()
            .to_string();
        assert!(interval.ends_with("full_completion_ci95 1.5 is not in [0, 1]"));
        let steps = with("mean_steps_completed", json!(3.0))
            .unwrap_err()
            .to_string();
        assert!(steps.ends_with("mean_steps_completed 3 is more than steps_total 2"));
    }
}
