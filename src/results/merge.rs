//! `agent-eval merge`: shard reports ([`ShardReader`]) combined into the
//! results one unsharded run gives, once they are checked to be all the
//! shards of one run. Each run is checked as it is parsed and its record
//! spilled to one temporary file, so merging holds a row per run, not the
//! records.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::ShardMismatch;
use super::report_file::{ReadRuns, ReportFile, ReportFileError, ScenarioFile, ShardPlan};
use crate::model::simulated::profile::ProfileRef;
use crate::results::cell_runs::{RecordPart, Runs, Spill, SpillError, SpillWriter};
use crate::results::record::RunResult;
use crate::results::shard::Shard;
use crate::results::{CellSummary, ScenarioResult};

/// A shard report as read, with its file.
#[derive(Debug, Clone)]
pub struct ShardFile {
    pub path: PathBuf,
    pub report: ReportFile,
}

/// Reads shard reports for [`ShardReader::merge`]: each run checked as it
/// is parsed, its record appended to one anonymous spill file, and only its
/// compact row kept, so merging takes memory in proportion to the rows
/// (about a byte a run), not to the records.
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
    let mut shards = order_shards(parts)?;
    let Some((lead, first)) = shards.first() else {
        return Err(general("no report given".into()));
    };
    let count = lead.count;
    let plan = check_same_run(&shards)?;
    let layout = Layout::of(first)?;
    if plan.units != layout.total {
        return Err(of(
            &first.path,
            format!(
                "its plan states {} units, but its scenarios make {}",
                plan.units, layout.total
            ),
        ));
    }
    for (shard, part) in &shards {
        check_units(*shard, part, &layout, &first.report.scenarios)?;
    }
    let errors = merged_errors(&mut shards);
    let mut reports: Vec<ReportFile> = shards.into_iter().map(|(_, part)| part.report).collect();
    let mut results: Vec<ScenarioResult> = Vec::with_capacity(layout.offsets.len());
    for j in 0..layout.offsets.len() {
        results.push(merge_scenario(&mut reports, j, &layout, count, spill)?);
    }
    Ok((results, errors))
}

/// A mismatch of the shards as a whole.
fn general(message: String) -> ReportFileError {
    ReportFileError::Mismatch {
        path: None,
        message,
    }
}

/// A mismatch found in the file at `path`.
fn of(path: &Path, message: String) -> ReportFileError {
    ReportFileError::Mismatch {
        path: Some(path.to_path_buf()),
        message,
    }
}

/// Which shard each file is, sorted so that shard 1 leads; every shard of
/// one split, each once.
fn order_shards(parts: Vec<ShardFile>) -> Result<Vec<(Shard, ShardFile)>, ReportFileError> {
    let mut shards: Vec<(Shard, ShardFile)> = Vec::with_capacity(parts.len());
    for part in parts {
        let Some(raw) = part.report.shard.as_deref() else {
            return Err(of(
                &part.path,
                "not a shard report (it has no `shard` key; only the reports of `run --shard K/N` are merged)".into(),
            ));
        };
        let shard = Shard::parse(raw).map_err(|e| of(&part.path, e.to_string()))?;
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
    Ok(shards)
}

/// The lead shard's plan, once every shard states the same run.
fn check_same_run(shards: &[(Shard, ShardFile)]) -> Result<ShardPlan, ReportFileError> {
    let Some((_, first)) = shards.first() else {
        return Err(general("no report given".into()));
    };
    let Some(plan) = first.report.plan.clone() else {
        return Err(of(
            &first.path,
            "has no `plan` (a shard report of an older agent-eval cannot be checked; run the shards again)".into(),
        ));
    };
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
    Ok(plan)
}

/// Where each scenario's units start in the run order, each seed's place
/// in its scenario, and the units of the whole run.
struct Layout {
    offsets: Vec<u64>,
    seed_index: Vec<HashMap<u64, usize>>,
    total: u64,
}

impl Layout {
    /// The layout the lead shard states (its scenarios' hashes and seeds
    /// checked).
    fn of(first: &ShardFile) -> Result<Self, ReportFileError> {
        let scenarios = &first.report.scenarios;
        let mut layout = Layout {
            offsets: Vec::with_capacity(scenarios.len()),
            seed_index: Vec::with_capacity(scenarios.len()),
            total: 0,
        };
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
            layout.offsets.push(layout.total);
            layout.total = layout
                .total
                .saturating_add((s.cells.len() as u64).saturating_mul(s.seeds.len() as u64));
            layout.seed_index.push(index);
        }
        Ok(layout)
    }
}

/// Each shard holds exactly the units it owns: positions k, k + n, ...
fn check_units(
    shard: Shard,
    part: &ShardFile,
    layout: &Layout,
    scenarios: &[ScenarioFile],
) -> Result<(), ReportFileError> {
    let n = shard.count as u64;
    let k = shard.index as u64 - 1;
    let positions = unit_positions(shard, part, layout)?;
    if let Some(twice) = positions.windows(2).find_map(|w| match w {
        [a, b] if a == b => Some(*a),
        _ => None,
    }) {
        return Err(of(
            &part.path,
            format!(
                "{} is listed twice",
                describe_unit(scenarios, &layout.offsets, twice)
            ),
        ));
    }
    let total = layout.total;
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
                describe_unit(scenarios, &layout.offsets, missing),
                positions.len()
            ),
        ));
    }
    Ok(())
}

/// The run-order positions of the runs a shard lists, sorted; each must
/// be one the shard owns.
fn unit_positions(
    shard: Shard,
    part: &ShardFile,
    layout: &Layout,
) -> Result<Vec<u64>, ReportFileError> {
    let (count, n) = (shard.count, shard.count as u64);
    let k = shard.index as u64 - 1;
    let mut positions: Vec<u64> = Vec::new();
    for ((scenario, &offset), index) in part
        .report
        .scenarios
        .iter()
        .zip(&layout.offsets)
        .zip(&layout.seed_index)
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
    Ok(positions)
}

/// The shards' error lines, each once, in shard order.
fn merged_errors(shards: &mut [(Shard, ShardFile)]) -> Vec<String> {
    let mut errors: Vec<String> = Vec::new();
    let mut known_errors: BTreeSet<String> = BTreeSet::new();
    for (_, part) in shards {
        for e in part.report.errors.drain(..) {
            if known_errors.insert(e.clone()) {
                errors.push(e);
            }
        }
    }
    errors
}

/// Scenario `j` merged: described as the lead shard describes it (every
/// shard states the same, checked before), each cell's runs taken from the
/// shards in turn.
fn merge_scenario(
    reports: &mut [ReportFile],
    j: usize,
    layout: &Layout,
    count: usize,
    spill: &Arc<Spill>,
) -> Result<ScenarioResult, ReportFileError> {
    let (Some(&offset), Some(index)) = (layout.offsets.get(j), layout.seed_index.get(j)) else {
        return Err(general(format!("no scenario {j}")));
    };
    let Some(lead) = reports.first_mut().and_then(|r| r.scenarios.get_mut(j)) else {
        return Err(general("no report given".into()));
    };
    let name = std::mem::take(&mut lead.name);
    let file = std::mem::take(&mut lead.file);
    let seeds = std::mem::take(&mut lead.seeds);
    let expect_spec = std::mem::take(&mut lead.expect_spec);
    // Checked the same in every shard (`same_scenario`): the merged
    // report names the profile as the unsharded run's does.
    let profile = lead.profile.take();
    let cell_count = lead.cells.len();
    let mut cells: Vec<CellSummary> = Vec::with_capacity(cell_count);
    for c in 0..cell_count {
        // Shard k holds positions k, k + n, ...: the cell's first run is
        // in the shard its first position falls to.
        let first =
            usize::try_from(offset.saturating_add(c as u64 * seeds.len() as u64) % count as u64)
                .unwrap_or(0);
        let cell = CellOfShards {
            scenario: j,
            cell: c,
            index,
            first,
            seeds: seeds.len(),
        };
        cells.push(cell.merge(reports, spill)?);
    }
    let mut result = ScenarioResult::build(name, file, seeds, cells, expect_spec, true);
    result.profile = profile;
    Ok(result)
}

/// One cell of a merged scenario, as the shards hold it.
struct CellOfShards<'a> {
    scenario: usize,
    cell: usize,
    /// Each seed's place in the scenario.
    index: &'a HashMap<u64, usize>,
    /// The shard holding the cell's first run.
    first: usize,
    seeds: usize,
}

impl CellOfShards<'_> {
    /// The cell's summary over the runs of every shard, each shard's in
    /// seed order, interleaved as the unsharded run made them.
    fn merge(
        &self,
        reports: &mut [ReportFile],
        spill: &Arc<Spill>,
    ) -> Result<CellSummary, ReportFileError> {
        let (j, c) = (self.scenario, self.cell);
        let mut parts: Vec<RecordPart> = Vec::with_capacity(reports.len());
        // The cell's step labels: from the first shard that ran it (a
        // shard without runs of a cell has none for it).
        let mut labels: Vec<crate::results::summary::StepRate> = Vec::new();
        let mut settings_and_steps = None;
        for report in reports.iter_mut() {
            let Some(cell) = report.scenarios.get_mut(j).and_then(|s| s.cells.get_mut(c)) else {
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
            parts.push(record_part(read, self.index, spill).map_err(|e| general(e.to_string()))?);
        }
        let Some((settings, steps_total)) = settings_and_steps else {
            return Err(general("no report given".into()));
        };
        let runs = Runs::interleaved(spill, parts, self.first, self.seeds)
            .map_err(|e| general(e.to_string()))?;
        let labels: Vec<crate::results::summary::StepLabel> = labels
            .iter()
            .map(|s| crate::results::summary::StepLabel {
                id: s.id.clone(),
                text: s.text.clone(),
            })
            .collect();
        Ok(CellSummary::of_runs(settings, steps_total, runs).with_steps(&labels))
    }
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
        .iter()
        .zip(read.rows.iter().skip(1))
        .all(|(a, b)| place(&a.seed) < place(&b.seed));
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
fn same_run(a: &ReportFile, b: &ReportFile) -> Result<(), ShardMismatch> {
    if a.plan != b.plan {
        return Err(ShardMismatch::Plan {
            found: plan_text(b.plan.as_ref()),
            expected: plan_text(a.plan.as_ref()),
        });
    }
    if a.scenarios.len() != b.scenarios.len() {
        return Err(ShardMismatch::ScenarioCount {
            found: b.scenarios.len(),
            expected: a.scenarios.len(),
        });
    }
    for (x, y) in a.scenarios.iter().zip(&b.scenarios) {
        same_scenario(x, y)?;
    }
    Ok(())
}

/// Whether shard scenario `y` is a part of the lead's `x`.
fn same_scenario(x: &ScenarioFile, y: &ScenarioFile) -> Result<(), ShardMismatch> {
    let scenario = || x.name.clone();
    if x.name != y.name {
        return Err(ShardMismatch::ScenarioName {
            found: y.name.clone(),
            expected: x.name.clone(),
        });
    }
    if x.sha256 != y.sha256 {
        let sha = |s: &Option<String>| s.as_deref().unwrap_or("none").to_string();
        return Err(ShardMismatch::FileVersion {
            scenario: scenario(),
            found: sha(&y.sha256),
            expected: sha(&x.sha256),
        });
    }
    if x.seeds != y.seeds {
        return Err(ShardMismatch::Seeds {
            scenario: scenario(),
            found: y.seeds.len(),
            expected: x.seeds.len(),
        });
    }
    if x.expect_spec != y.expect_spec {
        return Err(ShardMismatch::Expectations {
            scenario: scenario(),
        });
    }
    if !ProfileRef::same_parameters(x.profile.as_ref(), y.profile.as_ref()) {
        return Err(ShardMismatch::Profile {
            scenario: scenario(),
            found: crate::results::baseline::profile_name(y.profile.as_ref()),
            expected: crate::results::baseline::profile_name(x.profile.as_ref()),
        });
    }
    if x.cells.len() != y.cells.len() {
        return Err(ShardMismatch::CellCount {
            scenario: scenario(),
            found: y.cells.len(),
            expected: x.cells.len(),
        });
    }
    for (cx, cy) in x.cells.iter().zip(&y.cells) {
        if cx.settings != cy.settings {
            return Err(ShardMismatch::Cell {
                scenario: scenario(),
                found: cy.settings.to_string(),
                expected: cx.settings.to_string(),
            });
        }
        if cx.steps_total != cy.steps_total {
            return Err(ShardMismatch::StepsTotal {
                scenario: scenario(),
                cell: cx.settings.to_string(),
                found: cy.steps_total,
                expected: cx.steps_total,
            });
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
