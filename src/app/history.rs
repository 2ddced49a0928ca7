//! `--history FILE` on `run` and `merge`, and `agent-eval history FILE`:
//! where the commit and branch come from (a CI engine's variables, else
//! `git` in the scenario's folder, else none), recording an invocation, and
//! the table of each scenario's cells over time with the moves flagged.
//! The database itself is [`crate::results::history`].

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{AppError, Status};
use crate::report::trend_svg::TrendLine;
use crate::results::history::{History, HistoryError, Invocation, RecordedCell};
use crate::results::scenario_result::ScenarioResult;

impl From<HistoryError> for AppError {
    fn from(e: HistoryError) -> Self {
        AppError::Usage(e.to_string())
    }
}

/// Opens the history before anything runs, so a bad file is refused
/// before an hour of runs, not after.
pub fn open(path: Option<&Path>) -> Result<Option<History>, AppError> {
    path.map(History::open).transpose().map_err(AppError::from)
}

/// Records `results` as one invocation of `command` (`run` or `merge`).
pub fn record(
    history: Option<&mut History>,
    command: &str,
    shard: Option<String>,
    results: &[ScenarioResult],
) -> Result<(), AppError> {
    let Some(history) = history else {
        return Ok(());
    };
    let folder = results
        .first()
        .and_then(|r| Path::new(&r.file).parent().map(Path::to_path_buf));
    let (commit, branch, commit_source) = commit_and_branch(folder.as_deref());
    history.record(
        &Invocation {
            command: command.into(),
            shard,
            commit,
            branch,
            commit_source,
            version: env!("CARGO_PKG_VERSION").into(),
        },
        results,
    )?;
    Ok(())
}

/// The branch being evaluated (CI variables, else git in `folder`).
pub(crate) fn current_branch(folder: Option<&Path>) -> Option<String> {
    commit_and_branch(folder).1
}

/// The commit and branch being evaluated, and where they were read.
fn commit_and_branch(folder: Option<&Path>) -> (Option<String>, Option<String>, Option<String>) {
    if let Some((commit, branch, engine)) =
        super::ci::commit_from_env(&|name| std::env::var(name).ok())
    {
        return (commit, branch, Some(engine.into()));
    }
    let dir = match folder {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&dir)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (out.status.success() && !text.is_empty()).then_some(text)
    };
    match git(&["rev-parse", "HEAD"]) {
        Some(commit) => {
            // A detached HEAD has no branch: `HEAD` is not one.
            let branch = git(&["rev-parse", "--abbrev-ref", "HEAD"]).filter(|b| b != "HEAD");
            (Some(commit), branch, Some("git".into()))
        }
        None => (None, None, None),
    }
}

/// `agent-eval history FILE`.
#[derive(Debug, Clone, Default)]
pub struct HistoryConfig {
    pub file: PathBuf,
    /// Only this scenario (its exact name).
    pub scenario: Option<String>,
    /// Only invocations recorded on this branch.
    pub branch: Option<String>,
    /// JSON instead of the table.
    pub json: bool,
    /// Also write the trend chart here (SVG).
    pub svg: Option<PathBuf>,
}

/// One cell at one recorded invocation, with whether it moved.
#[derive(Debug, Clone, serde::Serialize)]
struct Point {
    #[serde(flatten)]
    cell: RecordedCell,
    /// The completion lies outside the previous recorded run's 95%
    /// interval of the same cell.
    moved: bool,
}

/// `agent-eval history FILE`: every scenario's cells over the recorded
/// whole runs, oldest first; a cell whose completion left the previous
/// run's 95% interval is flagged `MOVED`. Exit 0; a file that is no history
/// exits 2 and is left as it was.
pub fn history(config: &HistoryConfig, out: &mut dyn Write) -> Result<Status, AppError> {
    let history = History::open_existing(&config.file)?;
    let cells = history.cells(config.scenario.as_deref(), config.branch.as_deref())?;
    if let Some(name) = &config.scenario
        && cells.is_empty()
    {
        return Err(AppError::Usage(format!(
            "{}: no recorded run of scenario {name:?}",
            config.file.display()
        )));
    }
    let series = series(cells);
    if let Some(path) = &config.svg {
        let chart = trend_chart(&config.file, &series)?;
        super::write_atomic(path, chart.as_bytes())?;
    }
    let text = if config.json {
        let list: Vec<serde_json::Value> = series
            .iter()
            .map(|((scenario, settings), points)| {
                serde_json::json!({"scenario": scenario, "settings": settings, "runs": points})
            })
            .collect();
        serde_json::to_string_pretty(&list).unwrap_or_default() + "\n"
    } else {
        render(&series)
    };
    out.write_all(text.as_bytes())
        .map_err(|source| AppError::Write {
            path: "stdout".into(),
            source,
        })?;
    Ok(Status::Passed)
}

/// The chart of every series: x is each whole run's position among the
/// recorded ones.
fn trend_chart(file: &Path, series: &Series) -> Result<String, AppError> {
    let mut invocations: Vec<i64> = series
        .values()
        .flatten()
        .map(|p| p.cell.invocation)
        .collect();
    invocations.sort_unstable();
    invocations.dedup();
    let lines: Vec<TrendLine> = series
        .iter()
        .map(|((scenario, settings), points)| TrendLine {
            label: format!("{scenario} {settings}"),
            points: points
                .iter()
                .filter_map(|p| {
                    let x = invocations.binary_search(&p.cell.invocation).ok()?;
                    Some((x, p.cell.completion?, p.cell.completion_ci95))
                })
                .collect(),
        })
        .collect();
    let title = format!("{}: completion over recorded runs", file.display());
    crate::report::trend_svg::render(&title, invocations.len(), &lines).map_err(AppError::Usage)
}

type Series = BTreeMap<(String, String), Vec<Point>>;

/// The cells grouped by scenario and settings, each in recorded order,
/// with the moves flagged.
fn series(cells: Vec<RecordedCell>) -> Series {
    let mut series: Series = BTreeMap::new();
    for cell in cells {
        let points = series
            .entry((cell.scenario.clone(), cell.settings.clone()))
            .or_default();
        let moved = match (points.last(), cell.completion) {
            (Some(previous), Some(now)) => previous
                .cell
                .completion_ci95
                .is_some_and(|[lo, hi]| now < lo || now > hi),
            _ => false,
        };
        points.push(Point { cell, moved });
    }
    series
}

fn render(series: &Series) -> String {
    let mut text = String::new();
    let mut last_scenario = None;
    for ((scenario, settings), points) in series {
        if last_scenario != Some(scenario) {
            text.push_str(&format!("{scenario}\n"));
            last_scenario = Some(scenario);
        }
        text.push_str(&format!("  {settings}\n"));
        for point in points {
            let cell = &point.cell;
            let commit: String = cell
                .commit
                .as_deref()
                .unwrap_or("-")
                .chars()
                .take(10)
                .collect();
            let completion = match (cell.completion, cell.completion_ci95) {
                (Some(v), Some([lo, hi])) => format!("{v:.3} [{lo:.3}, {hi:.3}]"),
                (Some(v), None) => format!("{v:.3}"),
                _ => "-".into(),
            };
            text.push_str(&format!(
                "    {commit:<10}  {}  {:<12}  runs {:>4}  completion {completion}{}\n",
                cell.recorded_at,
                cell.branch.as_deref().unwrap_or("-"),
                cell.runs,
                if point.moved { "  MOVED" } else { "" }
            ));
        }
    }
    if text.is_empty() {
        text.push_str("no whole runs recorded yet\n");
    }
    text
}
