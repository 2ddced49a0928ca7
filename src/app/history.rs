//! `--history FILE` on `run` and `merge`, and `agent-eval history FILE`:
//! where the commit and branch come from (a CI engine's variables, else
//! `git` in the scenario's folder, else none), recording an invocation, and
//! the table of each scenario's cells over time with the moves flagged.
//! The database itself is [`crate::results::history`].

use std::io::Write;
use std::path::{Path, PathBuf};

use super::same_file::{Named, refuse_overlaps};
use super::{AppError, Status};
use crate::report::terminal::escape;
use crate::report::trend_svg::TrendLine;
use crate::results::history::{
    CellTrend, Direction, FLAP_WINDOW, History, HistoryError, Invocation, TrendPoint, trends,
};
use crate::results::scenario_result::ScenarioResult;

impl From<HistoryError> for AppError {
    fn from(e: HistoryError) -> Self {
        AppError::Usage(e.to_string())
    }
}

/// Opens the history before anything runs, so a bad file is refused
/// before an hour of runs, not after.
pub fn open(path: Option<&Path>) -> Result<Option<History>, AppError> {
    path.map(History::open_to_record)
        .transpose()
        .map_err(AppError::from)
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
    /// Only the scenarios whose name contains this text.
    pub scenario: Option<String>,
    /// Only invocations recorded on this branch.
    pub branch: Option<String>,
    /// JSON instead of the table.
    pub json: bool,
    /// Also write the trend chart here (SVG).
    pub svg: Option<PathBuf>,
    /// Also write the trend page here (HTML).
    pub html: Option<PathBuf>,
    /// Only the newest this many whole runs (`--last`; `None`: all).
    pub last: Option<usize>,
    /// List the steady cells too (`--all`).
    pub all: bool,
}

/// `agent-eval history FILE`: every scenario's cells over the recorded
/// whole runs, oldest first, moves and flapping cells flagged. Exit 0; a
/// file that is no history exits 2 and is left as it was.
pub fn history(config: &HistoryConfig, out: &mut dyn Write) -> Result<Status, AppError> {
    for path in [&config.svg, &config.html].into_iter().flatten() {
        super::check_output_path(path)?;
    }
    let outputs: Vec<Named<'_>> = [("--svg", &config.svg), ("--html", &config.html)]
        .into_iter()
        .filter_map(|(flag, path)| path.as_deref().map(|p| Named::new(flag, p)))
        .collect();
    refuse_overlaps(
        &outputs,
        &[Named::new("the history database", &config.file)],
    )?;
    let history = History::open_existing(&config.file)?;
    // One run more than shown: the oldest shown one's move needs it.
    let cells = history.cells(
        config.scenario.as_deref(),
        config.branch.as_deref(),
        config.last.map(|n| n.saturating_add(1)),
    )?;
    if let Some(name) = &config.scenario
        && cells.is_empty()
    {
        return Err(AppError::Usage(format!(
            "{}: no recorded run of a scenario whose name contains {name:?}",
            config.file.display()
        )));
    }
    let trends = trends(cells, config.last);
    let title = format!("{}: completion over recorded runs", config.file.display());
    if config.svg.is_some() || config.html.is_some() {
        let chart = trend_chart(&title, &trends)?;
        if let Some(path) = &config.svg {
            super::write_atomic(path, chart.as_bytes())?;
        }
        if let Some(path) = &config.html {
            let page = crate::report::trend_html::render(&title, &chart, &trends);
            super::write_atomic(path, page.as_bytes())?;
        }
    }
    let text = if config.json {
        serde_json::to_string_pretty(&trends).unwrap_or_default() + "\n"
    } else {
        render(&trends, config.all)
    };
    out.write_all(text.as_bytes()).map_err(AppError::stdout)?;
    Ok(Status::Passed)
}

/// The chart of the cells that flap, moved or changed profile (the steady
/// ones would be flat lines): x is each whole run's position among the
/// shown ones, labelled with its commit and date; a flapping cell is named
/// so in the legend, and each move is marked.
fn trend_chart(title: &str, trends: &[CellTrend]) -> Result<String, AppError> {
    let mut invocations: Vec<(i64, String)> = trends
        .iter()
        .flat_map(|t| &t.runs)
        .map(|p| {
            let date = p.cell.recorded_at.get(..10).unwrap_or(&p.cell.recorded_at);
            let commit: String = p
                .cell
                .commit
                .as_deref()
                .unwrap_or("-")
                .chars()
                .take(7)
                .collect();
            (p.cell.invocation, format!("{commit} {date}"))
        })
        .collect();
    invocations.sort_unstable();
    invocations.dedup_by_key(|(id, _)| *id);
    let labels: Vec<String> = invocations.iter().map(|(_, l)| l.clone()).collect();
    let position = |invocation: i64| {
        invocations
            .binary_search_by_key(&invocation, |(id, _)| *id)
            .ok()
    };
    let lines: Vec<TrendLine> = trends
        .iter()
        .filter(|trend| trend.eventful())
        .map(|trend| TrendLine {
            scenario: trend.scenario.clone(),
            label: format!(
                "{}{}",
                trend.settings,
                if trend.flapping { " (flapping)" } else { "" }
            ),
            points: trend
                .runs
                .iter()
                .filter_map(|p| {
                    let x = position(p.cell.invocation)?;
                    Some((x, p.cell.completion?, p.cell.completion_ci95))
                })
                .collect(),
            moves: trend
                .runs
                .iter()
                .filter_map(|p| {
                    let up = p.direction? == Direction::Up;
                    Some((position(p.cell.invocation)?, p.cell.completion?, up))
                })
                .collect(),
        })
        .collect();
    let runs = crate::report::trend_svg::Runs { labels: &labels };
    crate::report::trend_svg::render(title, runs, &lines)
        .map_err(|e| AppError::Usage(e.to_string()))
}

/// The table: a summary line, the cells that flap, moved or changed
/// profile in full, then one line counting the steady ones (all of them in
/// full with `all`).
fn render(trends: &[CellTrend], all: bool) -> String {
    if trends.is_empty() {
        return "no whole runs recorded yet\n".to_string();
    }
    let (eventful, steady): (Vec<&CellTrend>, Vec<&CellTrend>) =
        trends.iter().partition(|t| t.eventful());
    let (mut text, runs) = summary(trends, &eventful);
    // After one recorded run nothing can have moved yet: every cell shown.
    let fold = !all && runs > 1;
    text.push_str(&cells_in_full(if fold {
        eventful
    } else {
        trends.iter().collect()
    }));
    if fold && !steady.is_empty() {
        text.push_str(&crate::report::fit::lines(&steady_line(&steady)));
    }
    text
}

/// `N cells of S scenarios over R recorded runs: F flapping, M moved, P
/// profile changed, K steady`, then the newest run's commit, branch and
/// time; and R.
fn summary(trends: &[CellTrend], eventful: &[&CellTrend]) -> (String, usize) {
    let points = || trends.iter().flat_map(|t| &t.runs);
    let mut invocations: Vec<i64> = points().map(|p| p.cell.invocation).collect();
    invocations.sort_unstable();
    invocations.dedup();
    let newest = points().max_by_key(|p| p.cell.invocation).map(|p| {
        let [commit, recorded, branch] = p.row_columns();
        format!(
            "the newest: commit {} on {}, recorded {}\n",
            escape(&commit),
            escape(&branch),
            escape(&recorded)
        )
    });
    let mut scenarios: Vec<&str> = trends.iter().map(|t| t.scenario.as_str()).collect();
    scenarios.dedup();
    let count = |f: &dyn Fn(&CellTrend) -> bool| eventful.iter().filter(|t| f(t)).count();
    let flapping = count(&|t| t.flapping);
    let changed = count(&|t| !t.flapping && t.runs.iter().any(|p| p.profile_changed));
    let moved = eventful.len() - flapping - changed;
    let text = format!(
        "{} cell{} of {} scenario{} over {} recorded run{}: {flapping} flapping, {moved} moved, {changed} profile changed, {} steady\n{}",
        trends.len(),
        plural(trends.len()),
        scenarios.len(),
        plural(scenarios.len()),
        invocations.len(),
        plural(invocations.len()),
        trends.len() - eventful.len(),
        newest.unwrap_or_default(),
    );
    (text, invocations.len())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The steady cells on one line: how many, how many always complete, and
/// their scenarios with a count each.
fn steady_line(steady: &[&CellTrend]) -> String {
    let complete = steady.iter().filter(|t| t.always_complete()).count();
    let mut scenarios: Vec<(&str, usize)> = Vec::new();
    for trend in steady {
        match scenarios.last_mut() {
            Some((name, n)) if *name == trend.scenario => *n += 1,
            _ => scenarios.push((&trend.scenario, 1)),
        }
    }
    let named: Vec<String> = scenarios
        .iter()
        .map(|(name, n)| format!("{} ({n})", escape(name)))
        .collect();
    format!(
        "steady: {} cell{} never left the previous run's 95% interval ({complete} of them at 100.0% in every run): {}; --all lists them run by run\n",
        steady.len(),
        plural(steady.len()),
        named.join(", ")
    )
}

/// Each cell under its scenario's name, run by run.
fn cells_in_full(trends: Vec<&CellTrend>) -> String {
    let mut text = String::new();
    let mut last_scenario = None;
    for trend in trends {
        if last_scenario != Some(&trend.scenario) {
            text.push_str(&format!("{}\n", escape(&trend.scenario)));
            last_scenario = Some(&trend.scenario);
        }
        let flapping = if trend.flapping {
            format!(
                "  FLAPPING ({} changes of direction in the last {FLAP_WINDOW} runs)",
                trend.direction_changes
            )
        } else {
            String::new()
        };
        text.push_str(&format!("  {}{flapping}\n", escape(&trend.settings)));
        for point in &trend.runs {
            text.push_str(&point_line(point));
        }
    }
    text
}

/// One run of one cell: commit, time, branch, runs, completion, move.
fn point_line(point: &TrendPoint) -> String {
    let cell = &point.cell;
    let [commit, recorded, branch] = point.row_columns();
    let completion = match (cell.completion, cell.completion_ci95) {
        (Some(v), Some([lo, hi])) => format!(
            "{} [{:.1}, {:.1}]",
            crate::results::format::percent(v, 1),
            lo * 100.0,
            hi * 100.0
        ),
        (Some(v), None) => crate::results::format::percent(v, 1),
        _ => "-".into(),
    };
    let moved = match (point.direction, point.profile_changed, &cell.profile) {
        (Some(Direction::Up), _, _) => "  MOVED up".to_string(),
        (Some(Direction::Down), _, _) => "  MOVED down".to_string(),
        (None, true, Some(profile)) => format!(
            "  profile changed to {} (sha256 {}): not compared",
            escape(&profile.file),
            profile.sha256.get(..12).unwrap_or(&profile.sha256)
        ),
        (None, true, None) => "  profile changed to the defaults: not compared".to_string(),
        (None, false, _) => String::new(),
    };
    format!(
        "    {:<10}  {}  {:<12}  runs {:>4}  completion {completion}{moved}\n",
        escape(&commit),
        escape(&recorded),
        escape(&branch),
        cell.runs,
    )
}
