//! A baseline read from the history (`run --baseline HISTORY.db`): for
//! each scenario about to run, the cells of the last whole run recorded
//! for the same scenario file (its SHA-256) on the chosen branch, as the
//! [`CellRates`] the baseline judgement ([`crate::results::baseline`])
//! compares. Shards' partial rows are never a baseline; a scenario with no
//! recorded run is named, not failed.

use rusqlite::{OptionalExtension, params};

use super::{History, HistoryError, sqlite_error};
use crate::metric::Metric;
use crate::model::simulated::profile::ProfileRef;
use crate::results::baseline::CellRates;
use crate::scenario::CellSettings;

/// Which branch's runs may be a baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BranchChoice {
    /// Only runs recorded on this branch (`--baseline-branch NAME`).
    Only(String),
    /// This branch's last run; when it has none, the last on any branch
    /// (the default: the branch being evaluated).
    Prefer(String),
    /// The last run on any branch (no branch known).
    Any,
}

/// The recorded run a scenario is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineRun {
    pub scenario: String,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub recorded_at: String,
    /// The profile it ran under (`None`: the defaults).
    pub profile: Option<ProfileRef>,
}

/// The baseline cells, where they come from, and the scenarios that have
/// no recorded run to compare with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HistoryBaseline {
    pub cells: Vec<CellRates>,
    pub runs: Vec<BaselineRun>,
    pub missing: Vec<String>,
}

impl History {
    /// The baseline of each `(name, sha256, profile sha256)` scenario, in
    /// the order given: only a run under the same profile (or, without
    /// one, under none) is a baseline.
    pub fn baseline(
        &self,
        scenarios: &[(&str, &str, Option<&str>)],
        branch: &BranchChoice,
    ) -> Result<HistoryBaseline, HistoryError> {
        let mut baseline = HistoryBaseline::default();
        for &(name, hash, profile) in scenarios {
            let key = (hash, profile);
            let found = match branch {
                BranchChoice::Only(b) => self.last_run(key, Some(b))?,
                BranchChoice::Prefer(b) => match self.last_run(key, Some(b))? {
                    Some(run) => Some(run),
                    None => self.last_run(key, None)?,
                },
                BranchChoice::Any => self.last_run(key, None)?,
            };
            let Some((scenario_run, mut run)) = found else {
                baseline.missing.push(name.to_string());
                continue;
            };
            let profile = run.profile.clone();
            baseline.cells.extend(
                self.recorded_rates(scenario_run, name)?
                    .into_iter()
                    .map(|cell| cell.under(profile.clone())),
            );
            run.scenario = name.to_string();
            baseline.runs.push(run);
        }
        Ok(baseline)
    }

    /// The last whole run of the scenario file `hash` under `profile` (on
    /// `branch` when given): its `scenario_run` id and where it was
    /// recorded.
    fn last_run(
        &self,
        (hash, profile): (&str, Option<&str>),
        branch: Option<&str>,
    ) -> Result<Option<(i64, BaselineRun)>, HistoryError> {
        self.conn
            .query_row(
                "SELECT s.id, i.commit_sha, i.branch, i.recorded_at, s.profile, s.profile_sha256
                 FROM scenario_run s JOIN invocation i ON s.invocation_id = i.id
                 WHERE s.scenario_sha256 = ?1 AND i.shard IS NULL
                   AND (?2 IS NULL OR i.branch = ?2) AND s.profile_sha256 IS ?3
                 ORDER BY i.id DESC, s.id DESC LIMIT 1",
                params![hash, branch, profile],
                |row| {
                    Ok((
                        row.get(0)?,
                        BaselineRun {
                            scenario: String::new(),
                            commit: row.get(1)?,
                            branch: row.get(2)?,
                            recorded_at: row.get(3)?,
                            profile: match (row.get(4)?, row.get(5)?) {
                                (Some(file), Some(sha256)) => Some(ProfileRef { file, sha256 }),
                                _ => None,
                            },
                        },
                    ))
                },
            )
            .optional()
            .map_err(|e| sqlite_error(&self.path, e))
    }

    /// The gated rates of one recorded scenario run's cells; a cell that
    /// lacks a gated metric (recorded before the metric was gated) is left
    /// out, so it counts as new.
    fn recorded_rates(
        &self,
        scenario_run: i64,
        name: &str,
    ) -> Result<Vec<CellRates>, HistoryError> {
        let sql = |e| sqlite_error(&self.path, e);
        let mut cells = self
            .conn
            .prepare(
                "SELECT id, settings, runs FROM cell WHERE scenario_run_id = ?1 ORDER BY position",
            )
            .map_err(sql)?;
        let mut metrics = self
            .conn
            .prepare("SELECT metric, value, lo, hi FROM cell_metric WHERE cell_id = ?1")
            .map_err(sql)?;
        let rows: Vec<(i64, String, i64)> = cells
            .query_map([scenario_run], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(sql)?
            .collect::<Result<_, _>>()
            .map_err(sql)?;
        let mut rates = Vec::with_capacity(rows.len());
        for (id, settings, runs) in rows {
            let settings: CellSettings =
                serde_json::from_str(&settings).map_err(|e| HistoryError::Unreadable {
                    path: self.path.clone(),
                    reason: format!("cell {id}'s settings: {e}"),
                })?;
            let recorded: Vec<(String, f64, Option<f64>, Option<f64>)> = metrics
                .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .map_err(sql)?
                .collect::<Result<_, _>>()
                .map_err(sql)?;
            let of = |metric: &Metric| recorded.iter().find(|m| m.0 == metric.name);
            if !Metric::gated().all(|m| of(m).is_some()) {
                continue;
            }
            self.check_recorded(id, &recorded)?;
            let runs = usize::try_from(runs).map_err(|_| HistoryError::Unreadable {
                path: self.path.clone(),
                reason: format!("cell {id}: runs {runs} is not a count"),
            })?;
            rates.push(CellRates::new(name.to_string(), settings, runs, |m| {
                of(m).map_or((0.0, [0.0, 1.0]), |&(_, value, lo, hi)| {
                    (value, [lo.unwrap_or(0.0), hi.unwrap_or(1.0)])
                })
            }));
        }
        Ok(rates)
    }

    /// The recorded figures of cell `id` within their ranges, as a JSON
    /// baseline's are (`Metric::out_of_range`): a value and each end of
    /// its interval. A forged or damaged figure is
    /// an error naming the file, never a baseline.
    fn check_recorded(
        &self,
        id: i64,
        recorded: &[(String, f64, Option<f64>, Option<f64>)],
    ) -> Result<(), HistoryError> {
        let bad = |reason: String| HistoryError::Unreadable {
            path: self.path.clone(),
            reason: format!("cell {id}: {reason}"),
        };
        for (name, value, lo, hi) in recorded {
            let Some(metric) = Metric::gated().find(|m| m.name == name) else {
                continue;
            };
            for x in [Some(*value), *lo, *hi].into_iter().flatten() {
                if let Some(why) = metric.out_of_range(x) {
                    return Err(bad(why));
                }
            }
        }
        Ok(())
    }
}
