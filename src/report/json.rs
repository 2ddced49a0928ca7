//! The JSON report (`run --json FILE`; docs/json-report.md).
//!
//! ```json
//! {"version": 1, "ok": true,
//!  "scenarios": [{"name": "...", "file": "...",
//!    "cells": [{"settings": {"todo": true, "nag_threshold": 3}, "runs": 200,
//!               "steps_total": 10, "completion_rate": 0.83, "completion_ci95": [0.8, 0.86],
//!               "full_completion_rate": 0.61, "full_completion_ci95": [...],
//!               "pass_hat_k": {"1": 0.61, "2": 0.37},
//!               "mean_steps_completed": 8.3, "mean_reminders": 1.2,
//!               "mean_rejected_todo_updates": 0.3, "mean_todo_calls": 6.1,
//!               "mean_turns": 25.1, "mean_protocol_violations": 1.2,
//!               "results": [{"seed": 0, "turns": 24, "stop": "end_turn", "steps_completed": 9,
//!                            "steps_total": 10, "reminders_at": [7], "rejected_todo_updates": 0,
//!                            "todo_calls": 6, "protocol_violations": 0}]}],
//!    "comparisons": [{"what": "todo tool (nag 3)", "a": {...}, "b": {...},
//!                     "completion": {"pairs": 200, "mean_diff": 0.47, "diff_ci95": [0.43, 0.51],
//!                                    "a_better": 180, "b_better": 4, "p_value": 0.0},
//!                     "full_completion": {"only_a": 120, "only_b": 6, "p_value": 0.0}}],
//!    "expectations": [{"text": "...", "ok": true, "measured": 2.4, "detail": "..."}]}],
//!  "errors": ["FILE:LINE:COLUMN: message"]}
//! ```
//!
//! `nag_threshold` is a number or `"off"`; numbers are rounded to 6
//! decimals; `errors` lists scenarios that could not be loaded (then `ok`
//! is false). Each scenario also carries `seeds` (the order of its runs)
//! and `expect_spec` (its `expect:` entries) so that
//! [`ShardReader::merge`] can rebuild the report from shards. A shard's report has `"shard": "K/N"`, a
//! `"plan"` (the whole run's unit count, `--seeds` and `--model`), each
//! scenario's `sha256` (of its file), no expectation outcomes, and `ok`
//! false: it is not a complete report. Keys appear in a fixed order, so
//! equal inputs give equal bytes. Reports read back are checked: every
//! value within its bounds ([`ReportFile::check_bounds`]), and shards
//! merged only when they are all the shards of one run
//! ([`ShardReader::merge`]).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::results::baseline::CellRates;

use crate::metric::{METRICS, Metric};
use crate::results::cell_runs::{
    RecordPart, RunRow, RunTotals, Runs, Spill, SpillError, SpillWriter,
};
use crate::results::record::RunResult;
use crate::results::shard::Shard;
use crate::results::{CellSummary, ScenarioResult};
use crate::scenario::{CellSettings, Expectation};

/// The report's format version.
pub const VERSION: u32 = 1;

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report<'a> {
    pub version: u32,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<ShardPlan>,
    pub scenarios: &'a [ScenarioResult],
    pub errors: Vec<String>,
}

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

impl<'a> Report<'a> {
    pub fn new(scenarios: &'a [ScenarioResult], errors: Vec<String>) -> Self {
        Self {
            version: VERSION,
            ok: errors.is_empty() && scenarios.iter().all(ScenarioResult::ok),
            shard: None,
            plan: None,
            scenarios,
            errors,
        }
    }

    /// The report of one shard: never `ok` on its own.
    pub fn for_shard(
        scenarios: &'a [ScenarioResult],
        errors: Vec<String>,
        shard: Shard,
        plan: ShardPlan,
    ) -> Self {
        Self {
            ok: false,
            shard: Some(shard.to_string()),
            plan: Some(plan),
            ..Self::new(scenarios, errors)
        }
    }

    /// Writes [`Report::to_json`]'s bytes to `out`, streaming: the runs'
    /// records are copied from where they are kept, one at a time.
    pub fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        write_pretty(out, self)
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        pretty(self).unwrap_or_else(|e| {
            // Serializing plain data to a string cannot fail; say so if it does.
            format!("{{\"version\": {VERSION}, \"ok\": false, \"errors\": [\"{e}\"]}}\n")
        })
    }
}

/// Pretty JSON with a trailing newline: how every JSON file and stdout
/// document of agent-eval is written.
pub fn pretty(value: &impl Serialize) -> Result<String, serde_json::Error> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}

/// Writes `value` as [`pretty`] returns it, through a buffer: the same
/// bytes, never held whole.
pub fn write_pretty(out: &mut dyn std::io::Write, value: &impl Serialize) -> std::io::Result<()> {
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut buffered, value)?;
    std::io::Write::write_all(&mut buffered, b"\n")?;
    std::io::Write::flush(&mut buffered)
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
    pub rows: Vec<RunRow>,
    /// Sums over the runs, in the order listed.
    pub totals: RunTotals,
    /// Bytes `start..end` of the spill file holding the records (none
    /// when no spill file was given or there is no run).
    span: Option<(u64, u64)>,
    /// The first run's seed and steps scored.
    first: Option<(u64, usize)>,
    /// The first run whose steps scored differ from the first run's: its
    /// index, seed and steps.
    first_other_steps: Option<(usize, u64, usize)>,
    /// The first run inconsistent in itself: its index, seed and why.
    first_invalid: Option<(usize, u64, String)>,
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
    fn first_fault(&self, steps_total: usize) -> Option<(u64, String)> {
        let other_steps = match self.first {
            Some((seed, steps)) if steps != steps_total => Some((0, seed, steps)),
            _ => self.first_other_steps,
        };
        let other_steps = other_steps.map(|(index, seed, steps)| {
            let why = check_run_steps_total(steps, steps_total).err();
            (index, seed, why.unwrap_or_default())
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
    fn read_into(path: &Path, spill: &mut Option<SpillWriter>) -> Result<Self, ReportFileError> {
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
        report.check_bounds().map_err(invalid)?;
        Ok(report)
    }

    /// Every value within its bounds: rates and intervals in [0, 1], means
    /// finite and not negative (mean steps at most the steps scored),
    /// `runs` the number of results, and each run consistent (see
    /// [`check_run`]).
    pub fn check_bounds(&self) -> Result<(), String> {
        for s in &self.scenarios {
            for c in &s.cells {
                let at = || format!("scenario `{}`, cell {}", s.name, c.settings);
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
                        return Err(format!("{}: {key} {x} is not in [0, 1]", at()));
                    }
                }
                for (metric, x) in stated(false) {
                    if !(x.is_finite() && x >= 0.0) {
                        return Err(format!(
                            "{}: {} {x} is not a mean of counts",
                            at(),
                            metric.name
                        ));
                    }
                }
                if let Some(x) = c.stated("mean_steps_completed")
                    && x > c.steps_total as f64
                {
                    return Err(format!(
                        "{}: mean_steps_completed {x} is more than steps_total {}",
                        at(),
                        c.steps_total
                    ));
                }
                if let Some(runs) = c.runs
                    && runs != c.results.len()
                {
                    return Err(format!(
                        "{}: runs is {runs} but {} results are listed",
                        at(),
                        c.results.len()
                    ));
                }
                if let Some((seed, e)) = c.results.first_fault(c.steps_total) {
                    return Err(format!("{}, seed {seed}: {e}", at()));
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
pub fn check_run(r: &RunResult, steps_total: usize) -> Result<(), String> {
    check_run_steps_total(r.steps_total, steps_total)?;
    check_run_values(r)
}

fn check_run_steps_total(run: usize, cell: usize) -> Result<(), String> {
    if run == cell {
        Ok(())
    } else {
        Err(format!("steps_total {run} differs from its cell's {cell}"))
    }
}

/// [`check_run`] but for the cell's count of steps.
fn check_run_values(r: &RunResult) -> Result<(), String> {
    if r.steps_completed > r.steps_total {
        return Err(format!(
            "steps_completed {} is more than steps_total {}",
            r.steps_completed, r.steps_total
        ));
    }
    if r.rejected_todo_updates > r.todo_calls {
        return Err(format!(
            "rejected_todo_updates {} is more than todo_calls {}",
            r.rejected_todo_updates, r.todo_calls
        ));
    }
    let within_turns = |name: &str, turns: &[usize], last: usize| -> Result<(), String> {
        if let Some(t) = turns.iter().find(|&&t| t == 0 || t > last) {
            return Err(format!("{name} lists turn {t}, outside turns 1..={last}"));
        }
        if turns.windows(2).any(|w| w[0] >= w[1]) {
            return Err(format!("{name} is not in increasing turn order"));
        }
        Ok(())
    };
    within_turns("reminders_at", &r.reminders_at, r.turns)?;
    // A drifted request may be the one that found the script finished.
    within_turns("drift_turns", &r.drift_turns, r.turns.saturating_add(1))?;
    if let Some(cost) = r.cost
        && !(cost.is_finite() && cost >= 0.0)
    {
        return Err(format!("cost {cost} is not an amount of US dollars"));
    }
    Ok(())
}

/// A shard report as read, with its file.
#[derive(Debug, Clone)]
pub struct ShardFile {
    pub path: PathBuf,
    pub report: ReportFile,
}

/// Reads shard reports for [`ShardReader::merge`]: each run checked as it
/// is parsed, its record appended to one anonymous spill file, and only its
/// compact row kept, so merging takes memory in proportion to the rows
/// (16 bytes a run), not to the records.
#[derive(Debug)]
pub struct ShardReader {
    spill: Arc<Spill>,
    /// `None` only after a write failed (the reader is then spent).
    writer: Option<SpillWriter>,
}

impl ShardReader {
    /// A reader spilling to a file in the system's temporary folder.
    pub fn new() -> Result<Self, SpillError> {
        let (spill, writer) = Spill::create()?;
        Ok(Self {
            spill,
            writer: Some(writer),
        })
    }

    /// Reads (and checks, as [`ReportFile::read`]) the shard report at
    /// `path`.
    pub fn read(&mut self, path: &Path) -> Result<ShardFile, ReportFileError> {
        if self.writer.is_none() {
            return Err(ReportFileError::Invalid {
                path: path.to_path_buf(),
                message: "cannot keep the run records: the temporary file failed before".into(),
            });
        }
        let report = ReportFile::read_into(path, &mut self.writer)?;
        Ok(ShardFile {
            path: path.to_path_buf(),
            report,
        })
    }

    /// Combines shards this reader read into the report one unsharded run
    /// gives, after checking they are all the shards of one run: each of
    /// `1/N` .. `N/N` once, with the same plan, scenarios (names and file
    /// hashes), seeds, expectations and cells, each unit in the shard that
    /// owns it exactly once.
    pub fn merge(
        &mut self,
        parts: Vec<ShardFile>,
    ) -> Result<(Vec<ScenarioResult>, Vec<String>), ReportFileError> {
        let spilled = match self.writer.as_mut() {
            Some(writer) => writer.flush(),
            None => Ok(()),
        };
        spilled.map_err(|e| ReportFileError::Mismatch {
            path: None,
            message: e.to_string(),
        })?;
        merge(parts, &self.spill)
    }
}

/// Combines shard reports into the report one unsharded run gives. The
/// shards must be those of one run: each of `1/N` .. `N/N` exactly once,
/// with the same plan, scenarios (names and file hashes), seeds,
/// expectations and cells; and each unit (scenario, cell, seed) must be in
/// the shard that owns it, exactly once. Runs are put back in seed order.
/// Linear in the number of runs, but for one sort of each shard's unit
/// positions. The runs' records are read back from `spill` (where
/// [`ShardReader`] put them) as the merged report is written; what is held
/// is a row per run.
fn merge(
    parts: Vec<ShardFile>,
    spill: &Arc<Spill>,
) -> Result<(Vec<ScenarioResult>, Vec<String>), ReportFileError> {
    let general = |message: String| ReportFileError::Mismatch {
        path: None,
        message,
    };
    let of = |path: &Path, message: String| ReportFileError::Mismatch {
        path: Some(path.to_path_buf()),
        message,
    };
    // Which shard each file is; sorted so that shard 1 leads.
    let mut shards: Vec<(Shard, ShardFile)> = Vec::with_capacity(parts.len());
    for part in parts {
        let Some(raw) = part.report.shard.as_deref() else {
            return Err(of(
                &part.path,
                "not a shard report (it has no `shard` key; only the reports of `run --shard K/N` are merged)".into(),
            ));
        };
        let shard = Shard::parse(raw).map_err(|e| of(&part.path, e))?;
        shards.push((shard, part));
    }
    shards.sort_by_key(|(shard, _)| shard.index);
    let Some((lead, first)) = shards.first() else {
        return Err(general("no report given".into()));
    };
    let count = lead.count;
    for (shard, part) in &shards {
        if shard.count != count {
            return Err(of(
                &part.path,
                format!(
                    "is shard {shard}, of another split than shard {lead} ({})",
                    first.path.display()
                ),
            ));
        }
    }
    for pair in shards.windows(2) {
        if let [(a, a_file), (b, b_file)] = pair
            && a == b
        {
            return Err(general(format!(
                "shard {a} is given twice ({} and {})",
                a_file.path.display(),
                b_file.path.display()
            )));
        }
    }
    if let Some(missing) =
        (1..=count).find(|&k| shards.get(k - 1).is_none_or(|(s, _)| s.index != k))
    {
        return Err(general(format!("shard {missing}/{count} is missing")));
    }
    let Some(plan) = first.report.plan.clone() else {
        return Err(of(
            &first.path,
            "has no `plan` (a shard report of an older agent-eval cannot be checked; run the shards again)".into(),
        ));
    };
    // Every shard states the same run.
    for (_, part) in shards.iter().skip(1) {
        same_run(&first.report, &part.report).map_err(|what| {
            of(
                &part.path,
                format!(
                    "is not a shard of the same run as {}: {what}",
                    first.path.display()
                ),
            )
        })?;
    }
    // Where each scenario's units start, and each seed's place.
    let scenarios = &first.report.scenarios;
    let mut offsets: Vec<u64> = Vec::with_capacity(scenarios.len());
    let mut seed_index: Vec<HashMap<u64, usize>> = Vec::with_capacity(scenarios.len());
    let mut total: u64 = 0;
    for s in scenarios {
        match &s.sha256 {
            Some(hash) if hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {}
            Some(hash) => {
                return Err(of(
                    &first.path,
                    format!("scenario `{}`: sha256 `{hash}` is not a SHA-256", s.name),
                ));
            }
            None => {
                return Err(of(
                    &first.path,
                    format!("scenario `{}` has no sha256 of its file", s.name),
                ));
            }
        }
        let mut index = HashMap::with_capacity(s.seeds.len());
        for (i, &seed) in s.seeds.iter().enumerate() {
            if index.insert(seed, i).is_some() {
                return Err(of(
                    &first.path,
                    format!("scenario `{}` lists seed {seed} twice", s.name),
                ));
            }
        }
        offsets.push(total);
        total = total.saturating_add((s.cells.len() as u64).saturating_mul(s.seeds.len() as u64));
        seed_index.push(index);
    }
    if plan.units != total {
        return Err(of(
            &first.path,
            format!(
                "its plan states {} units, but its scenarios make {total}",
                plan.units
            ),
        ));
    }
    // Each shard holds exactly the units it owns: positions k, k + n, ...
    let n = count as u64;
    for (shard, part) in &shards {
        let k = shard.index as u64 - 1;
        let mut positions: Vec<u64> = Vec::new();
        for ((scenario, &offset), index) in
            part.report.scenarios.iter().zip(&offsets).zip(&seed_index)
        {
            let seeds = scenario.seeds.len() as u64;
            for (c, cell) in scenario.cells.iter().enumerate() {
                for r in &cell.results.rows {
                    let unit = || {
                        format!(
                            "scenario `{}`, cell {}, seed {}",
                            scenario.name, cell.settings, r.seed
                        )
                    };
                    let Some(&i) = index.get(&r.seed) else {
                        return Err(of(
                            &part.path,
                            format!("{}: the seed is not one of the run's seeds", unit()),
                        ));
                    };
                    let position = offset + c as u64 * seeds + i as u64;
                    if position % n != k {
                        return Err(of(
                            &part.path,
                            format!(
                                "{}: the run belongs to shard {}/{count}, not {shard}",
                                unit(),
                                position % n + 1
                            ),
                        ));
                    }
                    positions.push(position);
                }
            }
        }
        positions.sort_unstable();
        if let Some(twice) = positions.windows(2).find(|w| w[0] == w[1]).map(|w| w[0]) {
            return Err(of(
                &part.path,
                format!(
                    "{} is listed twice",
                    describe_unit(scenarios, &offsets, twice)
                ),
            ));
        }
        let owned = if total > k {
            (total - k).div_ceil(n)
        } else {
            0
        };
        if positions.len() as u64 != owned {
            // The first owned position not listed.
            let missing = positions
                .iter()
                .zip((0..).map(|i: u64| k + i * n))
                .find(|(listed, expected)| **listed != *expected)
                .map_or(k + positions.len() as u64 * n, |(_, expected)| expected);
            return Err(of(
                &part.path,
                format!(
                    "{} is missing ({} of the shard's {owned} runs are listed)",
                    describe_unit(scenarios, &offsets, missing),
                    positions.len()
                ),
            ));
        }
    }
    // Each merged cell takes its runs from the shards in turn (shard k
    // holds positions k, k + n, ...), each shard's in seed order.
    let mut errors: Vec<String> = Vec::new();
    let mut known_errors: BTreeSet<String> = BTreeSet::new();
    for (_, part) in &mut shards {
        for e in part.report.errors.drain(..) {
            if known_errors.insert(e.clone()) {
                errors.push(e);
            }
        }
    }
    let mut reports: Vec<ReportFile> = shards.into_iter().map(|(_, part)| part.report).collect();
    let mut results: Vec<ScenarioResult> = Vec::with_capacity(offsets.len());
    for (j, (&offset, index)) in offsets.iter().zip(&seed_index).enumerate() {
        // The merged scenario is described as the lead shard describes it
        // (every shard states the same, checked above).
        let Some(lead) = reports.first_mut().and_then(|r| r.scenarios.get_mut(j)) else {
            return Err(general("no report given".into()));
        };
        let name = std::mem::take(&mut lead.name);
        let file = std::mem::take(&mut lead.file);
        let seeds = std::mem::take(&mut lead.seeds);
        let expect_spec = std::mem::take(&mut lead.expect_spec);
        let cell_count = lead.cells.len();
        let mut cells: Vec<CellSummary> = Vec::with_capacity(cell_count);
        for c in 0..cell_count {
            let mut parts: Vec<RecordPart> = Vec::with_capacity(reports.len());
            // The cell's step labels: from the first shard that ran it (a
            // shard without runs of a cell has none for it).
            let mut labels: Vec<crate::results::summary::StepRate> = Vec::new();
            let mut settings_and_steps = None;
            for report in &mut reports {
                let Some(cell) = report.scenarios.get_mut(j).and_then(|s| s.cells.get_mut(c))
                else {
                    return Err(general(format!("scenario {j} lacks cell {c}")));
                };
                if labels.is_empty() {
                    labels = std::mem::take(&mut cell.step_rates);
                }
                if settings_and_steps.is_none() {
                    settings_and_steps = Some((cell.settings.clone(), cell.steps_total));
                }
                // The rows were for the checks: they go now, the merged
                // cell's take their place.
                let read = std::mem::take(&mut cell.results);
                parts.push(record_part(read, index, spill).map_err(|e| general(e.to_string()))?);
            }
            let Some((settings, steps_total)) = settings_and_steps else {
                return Err(general("no report given".into()));
            };
            let first = usize::try_from(offset.saturating_add(c as u64 * seeds.len() as u64) % n)
                .unwrap_or(0);
            let runs = Runs::interleaved(spill, parts, first, seeds.len())
                .map_err(|e| general(e.to_string()))?;
            let labels: Vec<crate::results::summary::StepLabel> = labels
                .iter()
                .map(|s| crate::results::summary::StepLabel {
                    id: s.id.clone(),
                    text: s.text.clone(),
                })
                .collect();
            cells.push(CellSummary::of_runs(settings, steps_total, runs).with_steps(&labels));
        }
        results.push(ScenarioResult::build(
            name,
            file,
            seeds,
            cells,
            expect_spec,
            true,
        ));
    }
    Ok((results, errors))
}

/// A shard's runs of one cell as a part of the merged cell: its span of
/// the spill file when its runs are listed in seed order (as `run` writes
/// them), else its records read back and put in seed order.
fn record_part(
    read: ReadRuns,
    seed_index: &HashMap<u64, usize>,
    spill: &Spill,
) -> Result<RecordPart, SpillError> {
    let place = |seed: &u64| seed_index.get(seed).copied().unwrap_or(usize::MAX);
    let in_order = read
        .rows
        .windows(2)
        .all(|w| place(&w[0].seed) < place(&w[1].seed));
    let Some((start, end)) = read.span else {
        return Ok(RecordPart::Spilled { start: 0, end: 0 });
    };
    let part = RecordPart::Spilled { start, end };
    if in_order {
        return Ok(part);
    }
    let mut records: Vec<RunResult> = part.read_all(spill)?;
    records.sort_by_key(|r| place(&r.seed));
    Ok(RecordPart::Held(records))
}

/// Whether two shard reports state the same run; else what differs.
fn same_run(a: &ReportFile, b: &ReportFile) -> Result<(), String> {
    if a.plan != b.plan {
        return Err(format!(
            "its plan {} differs from {} (were --seeds and --model the same?)",
            plan_text(b.plan.as_ref()),
            plan_text(a.plan.as_ref())
        ));
    }
    if a.scenarios.len() != b.scenarios.len() {
        return Err(format!(
            "it holds {} scenarios, not {}",
            b.scenarios.len(),
            a.scenarios.len()
        ));
    }
    for (x, y) in a.scenarios.iter().zip(&b.scenarios) {
        if x.name != y.name {
            return Err(format!(
                "scenario `{}` where `{}` was expected",
                y.name, x.name
            ));
        }
        if x.sha256 != y.sha256 {
            return Err(format!(
                "scenario `{}` was run from another version of its file (sha256 {} vs {})",
                x.name,
                y.sha256.as_deref().unwrap_or("none"),
                x.sha256.as_deref().unwrap_or("none")
            ));
        }
        if x.seeds != y.seeds {
            return Err(format!(
                "scenario `{}` ran other seeds ({} seeds, not {}: was --seeds the same?)",
                x.name,
                y.seeds.len(),
                x.seeds.len()
            ));
        }
        if x.expect_spec != y.expect_spec {
            return Err(format!("scenario `{}` states other expectations", x.name));
        }
        if x.cells.len() != y.cells.len() {
            return Err(format!(
                "scenario `{}` has {} cells, not {}",
                x.name,
                y.cells.len(),
                x.cells.len()
            ));
        }
        for (cx, cy) in x.cells.iter().zip(&y.cells) {
            if cx.settings != cy.settings {
                return Err(format!(
                    "scenario `{}`: cell {} where {} was expected",
                    x.name, cy.settings, cx.settings
                ));
            }
            if cx.steps_total != cy.steps_total {
                return Err(format!(
                    "scenario `{}`, cell {}: {} steps scored, not {}",
                    x.name, cx.settings, cy.steps_total, cx.steps_total
                ));
            }
        }
    }
    Ok(())
}

fn plan_text(plan: Option<&ShardPlan>) -> String {
    plan.and_then(|p| serde_json::to_string(p).ok())
        .unwrap_or_else(|| "(none)".into())
}

/// The unit at `position` of the run, as a person finds it.
fn describe_unit(scenarios: &[ScenarioFile], offsets: &[u64], position: u64) -> String {
    let s = offsets
        .partition_point(|&o| o <= position)
        .saturating_sub(1);
    let Some(scenario) = scenarios.get(s) else {
        return format!("unit {position}");
    };
    let seeds = scenario.seeds.len().max(1) as u64;
    let relative = position - offsets.get(s).copied().unwrap_or(0);
    let cell = usize::try_from(relative / seeds)
        .ok()
        .and_then(|c| scenario.cells.get(c));
    let seed = usize::try_from(relative % seeds)
        .ok()
        .and_then(|i| scenario.seeds.get(i));
    match (cell, seed) {
        (Some(cell), Some(seed)) => format!(
            "the run of scenario `{}`, cell {}, seed {seed}",
            scenario.name, cell.settings
        ),
        _ => format!("unit {position}"),
    }
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
        let negative = with("mean_protocol_violations", json!(-1.0)).unwrap_err();
        assert!(negative.ends_with("mean_protocol_violations -1 is not a mean of counts"));
        let interval = with("full_completion_ci95", json!([0.5, 1.5])).unwrap_err();
        assert!(interval.ends_with("full_completion_ci95 1.5 is not in [0, 1]"));
        let steps = with("mean_steps_completed", json!(3.0)).unwrap_err();
        assert!(steps.ends_with("mean_steps_completed 3 is more than steps_total 2"));
    }
}

/// Shards read as a stream and merged.
#[cfg(test)]
mod shard_tests {
    use super::*;
    use serde_json::{Value, json};

    fn record(seed: u64, steps_completed: usize, steps_total: usize) -> RunResult {
        RunResult {
            seed,
            turns: 4 + seed as usize % 3,
            stop: crate::agent::StopKind::EndTurn,
            steps_completed,
            steps_total,
            reminders_at: vec![2],
            rejected_todo_updates: 0,
            todo_calls: 1,
            protocol_violations: 0,
            unknown_tool_calls: 0,
            context_tokens: 0,
            planning_tokens: 0,
            planning_turns: 0,
            reminders_after_planning: 0,
            input_tokens: Some(100 + seed),
            output_tokens: None,
            // Sums of these depend on their order.
            cost: Some(0.1 * (seed % 4) as f64 + 1e-7 / (seed + 1) as f64),
            drift_turns: Vec::new(),
            model_error: (seed == 5).then(|| "gave up".to_string()),
            step_checks: if steps_completed == steps_total {
                "11".into()
            } else {
                "10".into()
            },
            parts: Vec::new(),
            unexpected_user_messages: 0,
        }
    }

    const SEEDS: u64 = 7;

    fn runs_of(cell: u64) -> Vec<RunResult> {
        (0..SEEDS)
            .map(|seed| record(seed * 3 + 1, ((seed + cell) % 3).min(2) as usize, 2))
            .collect()
    }

    fn settings(cell: u64) -> Value {
        if cell == 0 {
            json!({"todo": true, "nag_threshold": 3})
        } else {
            json!({"todo": false})
        }
    }

    /// Shard `k`/`n` of a run of two cells over 7 seeds, its runs listed
    /// in seed order or, when `reversed`, backwards.
    fn shard(k: u64, n: u64, reversed: bool) -> Value {
        let seeds: Vec<u64> = runs_of(0).iter().map(|r| r.seed).collect();
        let cells: Vec<Value> = (0..2)
            .map(|c| {
                let mut results: Vec<Value> = runs_of(c)
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| (c * SEEDS + *i as u64) % n == k - 1)
                    .map(|(_, r)| serde_json::to_value(r).unwrap())
                    .collect();
                if reversed {
                    results.reverse();
                }
                json!({"settings": settings(c), "steps_total": 2,
                       "step_rates": [{"id": "a", "text": "A", "rate": 0.0},
                                      {"id": "b", "text": "B", "rate": 0.0}],
                       "results": results})
            })
            .collect();
        json!({
            "version": 1, "ok": false, "shard": format!("{k}/{n}"),
            "plan": {"units": 2 * SEEDS, "seeds": null, "model": null},
            "scenarios": [{"name": "s", "file": "s.yaml", "seeds": seeds,
                           "sha256": "a".repeat(64), "cells": cells, "expect_spec": []}],
            "errors": []
        })
    }

    fn write(dir: &Path, name: &str, value: &Value) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
        path
    }

    /// The report one unsharded run of the same runs gives.
    fn unsharded() -> String {
        let labels = [
            crate::results::summary::StepLabel {
                id: "a".into(),
                text: "A".into(),
            },
            crate::results::summary::StepLabel {
                id: "b".into(),
                text: "B".into(),
            },
        ];
        let cells = (0..2)
            .map(|c| {
                let settings: CellSettings = serde_json::from_value(settings(c)).unwrap();
                // As a shard's reader reads them (a cost's decimal may
                // read back as another float).
                let read_back = runs_of(c)
                    .iter()
                    .map(|r| serde_json::from_str(&serde_json::to_string(r).unwrap()).unwrap())
                    .collect();
                CellSummary::new(settings, 2, read_back).with_steps(&labels)
            })
            .collect();
        let seeds = runs_of(0).iter().map(|r| r.seed).collect();
        let result =
            ScenarioResult::build("s".into(), "s.yaml".into(), seeds, cells, Vec::new(), true);
        Report::new(&[result], Vec::new()).to_json()
    }

    #[test]
    fn spilled_shards_merge_into_the_unsharded_report_in_any_listing_order() {
        let dir = tempfile::tempdir().unwrap();
        for n in [1, 2, 3, 5, 20] {
            for reversed in [false, true] {
                let mut reader = ShardReader::new().unwrap();
                let parts: Vec<ShardFile> = (1..=n)
                    .rev()
                    .map(|k| {
                        let path = write(dir.path(), &format!("{k}.json"), &shard(k, n, reversed));
                        reader.read(&path).unwrap()
                    })
                    .collect();
                let (results, errors) = reader.merge(parts).unwrap();
                assert!(errors.is_empty());
                assert_eq!(
                    Report::new(&results, errors).to_json(),
                    unsharded(),
                    "{n} shards, reversed: {reversed}"
                );
            }
        }
    }

    #[test]
    fn a_bad_run_is_found_as_check_run_finds_it_whatever_the_key_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut invalid = record(9, 1, 2);
        invalid.rejected_todo_updates = 5;
        let other_steps = record(4, 1, 3);
        let runs_cases: [Vec<RunResult>; 4] = [
            vec![record(1, 1, 2), invalid.clone(), other_steps.clone()],
            vec![record(1, 1, 2), other_steps.clone(), invalid.clone()],
            vec![other_steps.clone(), record(1, 1, 2)],
            vec![record(1, 1, 2), record(2, 2, 2)],
        ];
        for runs in &runs_cases {
            for cell_steps in [2, 3] {
                let expected = runs
                    .iter()
                    .find_map(|r| check_run(r, cell_steps).err().map(|e| (r.seed, e)));
                let results = serde_json::to_value(runs).unwrap();
                for results_first in [false, true] {
                    let cell = if results_first {
                        json!({"settings": {"todo": true}, "results": results, "steps_total": cell_steps})
                    } else {
                        json!({"settings": {"todo": true}, "steps_total": cell_steps, "results": results})
                    };
                    let report = json!({"version": 1, "scenarios": [
                        {"name": "s", "file": "s.yaml", "seeds": [], "cells": [cell]}]});
                    let path = write(dir.path(), "r.json", &report);
                    let got = ReportFile::read(&path).err().map(|e| e.to_string());
                    let want = expected.as_ref().map(|(seed, e)| {
                        format!(
                            "{}: scenario `s`, cell todo=true, seed {seed}: {e}",
                            path.display()
                        )
                    });
                    assert_eq!(got, want, "{runs:?} in a cell of {cell_steps} steps");
                }
            }
        }
    }
}
