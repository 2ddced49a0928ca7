//! `agent-eval run`: every scenario, its tables, reports, run logs and
//! gates.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::Value;

use super::{
    AppError, STDOUT, Status, no_scenarios, progress_bar, write_report, write_report_with,
};
use crate::eval::{self, EvalError, EvalEvent, EvalOptions, Shard};
use crate::report::json::{Report, ReportFile, ShardPlan};
use crate::report::terminal::escape;
use crate::report::{html, junit, log, markdown, table};
use crate::results::ScenarioResult;
use crate::results::baseline;
use crate::scenario::{self, Scenario};

/// Where `run` writes its reports.
#[derive(Debug, Clone, Default)]
pub struct ReportPaths {
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    /// One self-contained HTML page.
    pub html: Option<PathBuf>,
}

/// `agent-eval run`.
#[derive(Debug, Clone, Default)]
pub struct RunConfig {
    pub paths: Vec<PathBuf>,
    pub reports: ReportPaths,
    pub seeds: Option<u64>,
    pub jobs: Option<usize>,
    /// `--filter`: which scenarios run.
    pub filter: NameFilter,
    pub shard: Option<Shard>,
    /// Compare with this report and fail on regressions.
    pub baseline: Option<PathBuf>,
    pub tolerance: f64,
    pub quiet: bool,
    /// Colour the terminal output.
    pub color: bool,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// `--steps`: print each step's completion rate per cell.
    pub steps: bool,
    /// `--log-dir`: write every run's transcript as JSON lines here.
    pub log_dir: Option<PathBuf>,
    /// `--list`: say what would run, run nothing.
    pub list: bool,
    /// `--fail-fast`: start no further scenario once one has a failed
    /// expectation.
    pub fail_fast: bool,
    /// `--model`, `--max-concurrency`, `--max-cost`, `--price`, `--record`.
    pub real: super::RealModelArgs,
    /// The cap on runs (`--max-runs`; default [`eval::DEFAULT_MAX_RUNS`]).
    pub max_runs: Option<u64>,
    /// Run this command as an external agent instead of the built-in loop.
    pub agent: Option<String>,
    /// `--history`: record this invocation in this SQLite database.
    pub history: Option<PathBuf>,
}

/// `--filter` patterns: a scenario is kept when its name contains one of
/// the plain patterns (any, when there are none) and none of the `!`
/// patterns, ignoring case.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameFilter {
    include: Vec<String>,
    exclude: Vec<String>,
}

impl NameFilter {
    /// Reads patterns as given (each may hold several, comma-separated).
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Self {
        let mut filter = Self::default();
        for pattern in patterns.iter().flat_map(|p| p.as_ref().split(',')) {
            let pattern = pattern.trim();
            match pattern.strip_prefix('!') {
                Some(negated) if !negated.trim().is_empty() => {
                    filter.exclude.push(negated.trim().to_lowercase());
                }
                Some(_) => {}
                None if pattern.is_empty() => {}
                None => filter.include.push(pattern.to_lowercase()),
            }
        }
        filter
    }

    pub fn is_empty(&self) -> bool {
        self.include.is_empty() && self.exclude.is_empty()
    }

    pub fn matches(&self, name: &str) -> bool {
        let name = name.to_lowercase();
        (self.include.is_empty() || self.include.iter().any(|p| name.contains(p.as_str())))
            && !self.exclude.iter().any(|p| name.contains(p.as_str()))
    }
}

impl std::fmt::Display for NameFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .include
            .iter()
            .cloned()
            .chain(self.exclude.iter().map(|p| format!("!{p}")))
            .collect();
        write!(f, "{}", parts.join(","))
    }
}

/// With `--html` and no `--log-dir`, the page shows the transcripts of at
/// most this many runs that did not complete every step.
pub const HTML_FAILING_RUNS: usize = 20;

/// Runs every scenario, prints the tables and failed expectations to `out`,
/// load errors to `err`, writes the reports asked for, and gates on the
/// baseline if one is given.
pub fn run(
    config: &RunConfig,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    // A Ctrl-C during this call is handled by it, then forgotten.
    let _session = crate::cancel::Session::begin();
    let stdout_reports = [
        &config.reports.json,
        &config.reports.junit,
        &config.reports.markdown,
        &config.reports.html,
    ]
    .iter()
    .filter(|p| p.as_deref() == Some(Path::new(STDOUT)))
    .count();
    if stdout_reports > 1 {
        return Err(AppError::Usage(
            "only one report can go to stdout (`-`)".into(),
        ));
    }
    // A report that cannot be written is found now, not after the runs.
    for path in [
        &config.reports.json,
        &config.reports.junit,
        &config.reports.markdown,
        &config.reports.html,
    ]
    .into_iter()
    .flatten()
    {
        super::check_output_path(path)?;
    }
    if config.shard.is_some() && config.baseline.is_some() {
        return Err(AppError::Usage(
            "--baseline compares whole cells; with --shard, merge the shards first, then use `agent-eval diff`".into(),
        ));
    }
    if config.shard.is_some() && config.fail_fast {
        return Err(AppError::Usage(
            "--fail-fast stops on a failed expectation, and a shard checks none: merge the shards first".into(),
        ));
    }
    let baseline = config
        .baseline
        .as_deref()
        .map(ReportFile::read)
        .transpose()?
        .map(|report| report.rates());
    let mut history = super::history::open(config.history.as_deref())?;
    let (scenarios, mut errors) = scenario::load_all(&config.paths);
    if crate::cancel::requested() {
        return Err(AppError::Interrupted);
    }
    let (mut scenarios, over_cap) = eval::admit(
        scenarios,
        &EvalOptions {
            seeds: config.seeds,
            max_runs: config.max_runs,
            ..EvalOptions::default()
        },
    );
    errors.extend(over_cap);
    let env = config
        .real
        .prepare(&mut scenarios)
        .map_err(AppError::Usage)?;
    if let Some(command) = &config.agent {
        for scenario in &mut scenarios {
            scenario.agent.use_command(command);
        }
    }
    scenarios.retain(|s| config.filter.matches(&s.name));
    // A preset's CLI missing, or a dialect it lacks, is an error of the file.
    let mut settled = Vec::with_capacity(scenarios.len());
    for mut scenario in scenarios {
        match eval::execute::presets::settle(&mut scenario, true) {
            Ok(()) => settled.push(scenario),
            Err(e) => errors.push(e),
        }
    }
    let scenarios = settled;
    for e in &errors {
        let _ = writeln!(err, "error: {}", escape(&e.to_string()));
    }
    if scenarios.is_empty() && errors.is_empty() {
        let _ = writeln!(
            err,
            "error: {}",
            if config.filter.is_empty() {
                no_scenarios(&config.paths)
            } else {
                format!("no scenario matches --filter {}", config.filter)
            }
        );
        return Ok(Status::NoScenarios);
    }
    let options = EvalOptions {
        seeds: config.seeds,
        jobs: config.jobs,
        shard: config.shard,
        env,
        max_runs: config.max_runs,
    };
    if config.list {
        list(&scenarios, &options, out)?;
        return Ok(if errors.is_empty() {
            Status::Passed
        } else {
            Status::BadInput
        });
    }
    // Counted before anything runs: a run over the cap is refused whole.
    let plan = eval::plan(&scenarios, &options)?;
    let planned = plan.len();
    let keep_failing = if config.reports.html.is_some() && config.log_dir.is_none() {
        HTML_FAILING_RUNS
    } else {
        0
    };
    let run_log = RunLog::open(&scenarios, config.log_dir.as_deref(), keep_failing)?;
    let bar = progress_bar(config.progress && !config.quiet);
    bar.set_length(planned as u64);
    let outcome = evaluate(
        &scenarios,
        &plan,
        &options,
        config.fail_fast,
        &bar,
        &run_log,
    );
    bar.finish_and_clear();
    let mut results = match outcome {
        Ok(results) => results,
        Err(EvalError::Interrupted) => {
            let _ = writeln!(
                err,
                "interrupted: runs stopped early; no report was written"
            );
            return Ok(Status::Interrupted);
        }
        Err(e) => return Err(e.into()),
    };
    let logged = run_log.finish()?;
    let skipped: Vec<&Scenario> = scenarios.iter().skip(results.len()).collect();
    let ran: usize = results.iter().flat_map(|r| &r.cells).map(|c| c.runs).sum();
    let planned_ran = planned - skipped.iter().map(|s| units_of(s, &options)).sum::<usize>();
    let not_started = super::real::runs_not_started(&options.env, planned_ran, ran);
    if let Some(note) = &not_started {
        let _ = writeln!(err, "{note}");
    }
    // A scenario some of whose runs could not happen (a workspace that
    // could not be prepared, an agent that could not start) is an error of
    // its own, like a bad file: the others still run and report.
    let mut run_failures: Vec<String> = Vec::new();
    results.retain(|result| {
        run_failures.extend(
            result
                .run_errors
                .iter()
                .map(|message| format!("{}: {message}", result.file)),
        );
        result.run_errors.is_empty()
    });
    for failure in &run_failures {
        let _ = writeln!(err, "error: {}", escape(failure));
    }
    if let Some(warning) = super::real::model_failures(&results) {
        let _ = writeln!(err, "{warning}");
    }
    if let Some(usage) = super::real::usage_summary(&results) {
        let _ = writeln!(err, "{usage}");
    }
    if config.shard.is_none() {
        name_replays(&mut results, &scenarios);
    }
    let error_texts: Vec<String> = errors
        .iter()
        .map(ToString::to_string)
        .chain(run_failures.iter().cloned())
        .collect();
    // The human summary; it goes to stderr when a report takes stdout.
    let mut human: Vec<u8> = Vec::new();
    // A shard's cells hold a part of their runs: tables of them would
    // mislead, so a shard prints only its summary line.
    for result in results.iter().filter(|_| config.shard.is_none()) {
        if !config.quiet || !result.ok() {
            let _ = writeln!(human, "{}", table::render(result, config.color));
            if config.steps {
                let _ = writeln!(human, "{}", table::steps_table(&result.cells));
            }
        }
    }
    let report = match config.shard {
        Some(shard) => {
            let _ = writeln!(
                human,
                "shard {shard}: {ran} run{}; expectations are checked when the shards are merged{}",
                plural(ran),
                bad_files(errors.len())
            );
            let plan = ShardPlan {
                units: plan.total(),
                seeds: config.seeds,
                model: config
                    .real
                    .model
                    .as_ref()
                    .and_then(|m| serde_json::to_value(m).ok()),
            };
            Report::for_shard(&results, error_texts.clone(), shard, plan)
        }
        None => {
            summary_line(&mut human, &results, errors.len());
            if !run_failures.is_empty() {
                let _ = writeln!(
                    human,
                    "{} run error{} (above): those scenarios are not reported",
                    run_failures.len(),
                    plural(run_failures.len())
                );
            }
            if !skipped.is_empty() {
                let names: Vec<&str> = skipped.iter().map(|s| s.name.as_str()).collect();
                let _ = writeln!(
                    human,
                    "--fail-fast: {} scenario{} not run: {}",
                    skipped.len(),
                    plural(skipped.len()),
                    names.join(", ")
                );
            }
            Report::new(&results, error_texts.clone())
        }
    };
    let mut regressed = false;
    if let Some(old) = &baseline {
        let diffs = baseline::compare(old, &baseline::rates(&results), config.tolerance);
        let _ = write!(
            human,
            "{}",
            crate::report::baseline::render(&diffs, config.tolerance)
        );
        regressed = baseline::regressed(&diffs);
    }
    let shown = if stdout_reports == 1 {
        err.write_all(&human)
    } else {
        out.write_all(&human)
    };
    shown.map_err(|source| AppError::Write {
        path: "stdout".into(),
        source,
    })?;
    super::history::record(
        history.as_mut(),
        "run",
        config.shard.map(|s| s.to_string()),
        &results,
    )?;
    write_reports(
        &config.reports,
        &report,
        &results,
        &error_texts,
        &logged,
        out,
    )?;
    Ok(if !errors.is_empty() || !run_failures.is_empty() {
        Status::BadInput
    } else if config.shard.is_some()
        || (report.ok && !regressed && not_started.is_none() && skipped.is_empty())
    {
        Status::Passed
    } else {
        Status::ExpectationsFailed
    })
}

/// Runs the scenarios: all in one pool, or with `fail_fast` one scenario
/// after another until one has a failed expectation (the results then
/// cover the scenarios that ran, in order).
fn evaluate(
    scenarios: &[Scenario],
    plan: &eval::Plan,
    options: &EvalOptions,
    fail_fast: bool,
    bar: &indicatif::ProgressBar,
    run_log: &RunLog<'_>,
) -> Result<Vec<ScenarioResult>, EvalError> {
    let on_event = |offset_scenario: usize, offset_position: usize| {
        move |event: &EvalEvent<'_>| {
            if let EvalEvent::RunFinished {
                position,
                unit,
                record,
                settings,
                ..
            } = event
            {
                bar.inc(1);
                run_log.add(
                    offset_position + position,
                    offset_scenario + unit.scenario,
                    settings,
                    record,
                );
            }
        }
    };
    if !fail_fast {
        return eval::evaluate_plan(scenarios, plan, options, &on_event(0, 0));
    }
    let mut results = Vec::new();
    let mut position = 0;
    for (index, scenario) in scenarios.iter().enumerate() {
        let result = eval::evaluate_scenario(scenario, options, &on_event(index, position))?;
        position += units_of(scenario, options);
        let failed = !result.ok();
        results.push(result);
        if failed {
            break;
        }
    }
    Ok(results)
}

/// The runs of one scenario (its share, under `--shard`).
fn units_of(scenario: &Scenario, options: &EvalOptions) -> usize {
    eval::plan(std::slice::from_ref(scenario), options).map_or(0, |p| p.len())
}

/// `run --list`: each scenario with its cells and seeds, and the run count.
fn list(
    scenarios: &[Scenario],
    options: &EvalOptions,
    out: &mut dyn Write,
) -> Result<(), AppError> {
    let mut text = String::new();
    let mut total = 0;
    for scenario in scenarios {
        let cells = eval::cells(scenario);
        let seeds = eval::matrix::seeds(scenario, options);
        let runs = units_of(scenario, options);
        total += runs;
        let steps = scenario.steps_total();
        text.push_str(&format!(
            "{} ({}): {steps} scored step{}, {} cell{}, {} seed{} ({}), {runs} run{}\n",
            escape(&scenario.name),
            escape(&scenario.file.display().to_string()),
            plural(steps),
            cells.len(),
            plural(cells.len()),
            seeds.len(),
            plural(seeds.len()),
            seed_range(&seeds),
            plural(runs),
        ));
        for cell in &cells {
            text.push_str(&format!("  {}\n", escape(&cell.settings.to_string())));
        }
    }
    text.push_str(&format!(
        "{} scenario{}, {total} run{} (nothing was run)\n",
        scenarios.len(),
        plural(scenarios.len()),
        plural(total)
    ));
    out.write_all(text.as_bytes())
        .map_err(|source| AppError::Write {
            path: "stdout".into(),
            source,
        })
}

/// Seeds as `0..49` when consecutive, else listed.
fn seed_range(seeds: &[u64]) -> String {
    match (seeds.first(), seeds.last()) {
        (Some(first), Some(last))
            if seeds.len() > 2 && seeds.windows(2).all(|w| w[1] == w[0] + 1) =>
        {
            format!("{first}..{last}")
        }
        _ => seeds
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// Names, under each failed expectation, the runs that show why.
fn name_replays(results: &mut [ScenarioResult], scenarios: &[Scenario]) {
    for (result, scenario) in results.iter_mut().zip(scenarios) {
        let ScenarioResult {
            cells,
            expectations,
            expect_spec,
            ..
        } = result;
        for (outcome, spec) in expectations.iter_mut().zip(expect_spec.iter()) {
            if outcome.ok {
                continue;
            }
            outcome.replay = log::failing_runs(spec, cells)
                .into_iter()
                .map(|(settings, seed)| log::replay_command(scenario, settings, seed))
                .collect();
        }
    }
}

fn write_reports(
    paths: &ReportPaths,
    report: &Report<'_>,
    results: &[ScenarioResult],
    errors: &[String],
    logged: &[Value],
    stdout: &mut dyn Write,
) -> Result<(), AppError> {
    if let Some(path) = &paths.json {
        write_report_with(path, stdout, &mut |out| report.write_json(out))?;
    }
    if let Some(path) = &paths.junit {
        write_report(path, junit::render(results, errors).as_bytes(), stdout)?;
    }
    if let Some(path) = &paths.markdown {
        write_report(path, markdown::render(results, errors).as_bytes(), stdout)?;
    }
    if let Some(path) = &paths.html {
        let document = serde_json::to_value(report)
            .map_err(|e| AppError::Usage(format!("cannot build the HTML report: {e}")))?;
        let page = html::render(html::HtmlInput {
            report: &document,
            runs: logged,
            charts: &[],
        });
        write_report(path, page.as_bytes(), stdout)?;
    }
    Ok(())
}

/// The summary's last line (`merge` prints it too).
pub(super) fn print_failures(out: &mut dyn Write, results: &[ScenarioResult]) {
    summary_line(out, results, 0);
}

/// The last line of the summary: scenarios, expectations, failures and
/// files that could not be read. Each failure itself is printed once,
/// with its detail, under its scenario's table.
fn summary_line(out: &mut dyn Write, results: &[ScenarioResult], bad: usize) {
    let failed: usize = results
        .iter()
        .map(|r| r.expectations.iter().filter(|e| !e.ok).count())
        .sum();
    let total: usize = results.iter().map(|r| r.expectations.len()).sum();
    let verdict = if failed == 0 {
        "all held".to_string()
    } else {
        format!("{failed} failed")
    };
    let _ = writeln!(
        out,
        "{} scenario{}, {total} expectation{}: {verdict}{}",
        results.len(),
        plural(results.len()),
        plural(total),
        bad_files(bad)
    );
}

fn bad_files(bad: usize) -> String {
    match bad {
        0 => String::new(),
        n => format!("; {n} file{} could not be read", plural(n)),
    }
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The run log: records arrive from worker threads in any order and are
/// written in run order (a record waits until every earlier run's is
/// out), one `.jsonl` file per scenario. It also keeps, for the HTML page,
/// the records of the first runs that did not complete every step.
struct RunLog<'a> {
    scenarios: &'a [Scenario],
    dir: Option<PathBuf>,
    keep_failing: usize,
    state: Mutex<LogState>,
}

#[derive(Default)]
struct LogState {
    next: usize,
    /// Records (scenario index, JSON line) waiting for earlier runs;
    /// `None` for a run nothing needs. Held as text: far smaller than a
    /// parsed document while runs finish out of order.
    pending: BTreeMap<usize, Option<(usize, String)>>,
    /// One writer per log file (scenarios whose names map to the same file
    /// share it).
    files: BTreeMap<String, BufWriter<File>>,
    kept: Vec<Value>,
    error: Option<AppError>,
}

impl<'a> RunLog<'a> {
    /// Creates `dir` and one empty log file per scenario.
    fn open(
        scenarios: &'a [Scenario],
        dir: Option<&Path>,
        keep_failing: usize,
    ) -> Result<Self, AppError> {
        let mut state = LogState::default();
        if let Some(dir) = dir {
            let wrap = |path: &Path| {
                let path = path.to_path_buf();
                move |source| AppError::Write { path, source }
            };
            std::fs::create_dir_all(dir).map_err(wrap(dir))?;
            for scenario in scenarios {
                let name = log::file_name(&scenario.name);
                if state.files.contains_key(&name) {
                    continue;
                }
                let path = dir.join(&name);
                let file = File::create(&path).map_err(wrap(&path))?;
                state.files.insert(name, BufWriter::new(file));
            }
        }
        Ok(Self {
            scenarios,
            dir: dir.map(Path::to_path_buf),
            keep_failing,
            state: Mutex::new(state),
        })
    }

    fn add(
        &self,
        position: usize,
        scenario: usize,
        settings: &crate::scenario::CellSettings,
        record: &crate::results::RunRecord,
    ) {
        let wanted =
            self.dir.is_some() || (self.keep_failing > 0 && !record.result.fully_completed());
        let entry = match self.scenarios.get(scenario) {
            Some(s) if wanted => Some((scenario, log::line(&log::record(s, settings, record)))),
            _ => None,
        };
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        state.pending.insert(position, entry);
        self.flush(&mut state, false);
    }

    /// Writes the records that are next in run order (all, at the end).
    fn flush(&self, state: &mut LogState, all: bool) {
        loop {
            let Some((&position, _)) = state.pending.first_key_value() else {
                return;
            };
            if !all && position != state.next {
                return;
            }
            let Some((_, entry)) = state.pending.pop_first() else {
                return;
            };
            state.next = position + 1;
            let Some((scenario, line)) = entry else {
                continue;
            };
            if let (Some(dir), Some(s)) = (&self.dir, self.scenarios.get(scenario)) {
                let name = log::file_name(&s.name);
                if let Some(file) = state.files.get_mut(&name)
                    && let Err(source) = file.write_all(line.as_bytes())
                    && state.error.is_none()
                {
                    state.error = Some(AppError::Write {
                        path: dir.join(&name),
                        source,
                    });
                }
            } else if state.kept.len() < self.keep_failing
                && let Ok(record) = serde_json::from_str(&line)
            {
                state.kept.push(record);
            }
        }
    }

    /// Flushes every file; returns the records the HTML page shows: every
    /// logged run (read back from the log files), or the failing runs kept.
    fn finish(self) -> Result<Vec<Value>, AppError> {
        let mut state = std::mem::take(
            &mut *self
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        self.flush(&mut state, true);
        if let Some(e) = state.error.take() {
            return Err(e);
        }
        let Some(dir) = &self.dir else {
            return Ok(state.kept);
        };
        for (name, mut file) in std::mem::take(&mut state.files) {
            file.flush().map_err(|source| AppError::Write {
                path: dir.join(&name),
                source,
            })?;
        }
        // The page lists runs per scenario; read them back in scenario order.
        let mut runs = Vec::new();
        let mut read: Vec<String> = Vec::new();
        for scenario in self.scenarios {
            let name = log::file_name(&scenario.name);
            if read.contains(&name) {
                continue;
            }
            let path = dir.join(&name);
            let text = std::fs::read_to_string(&path).map_err(|source| AppError::Write {
                path: path.clone(),
                source,
            })?;
            runs.extend(
                text.lines()
                    .filter_map(|line| serde_json::from_str::<Value>(line).ok()),
            );
            read.push(name);
        }
        Ok(runs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_ignore_case_take_several_patterns_and_negation() {
        let f = NameFilter::new(&["Refactor,smoke", "!SLOW"]);
        assert!(f.matches("ten-step-refactor"));
        assert!(f.matches("SMOKE-test"));
        assert!(!f.matches("slow-refactor"));
        assert!(!f.matches("other"));
        let only_negated = NameFilter::new(&["!slow"]);
        assert!(only_negated.matches("anything"));
        assert!(!only_negated.matches("very-Slow-one"));
        assert!(NameFilter::new(&[""]).is_empty());
        assert_eq!(f.to_string(), "refactor,smoke,!slow");
    }

    #[test]
    fn seeds_read_as_ranges() {
        assert_eq!(seed_range(&[0, 1, 2, 3]), "0..3");
        assert_eq!(seed_range(&[0]), "0");
        assert_eq!(seed_range(&[3, 7]), "3, 7");
        assert_eq!(seed_range(&[]), "");
    }
}
