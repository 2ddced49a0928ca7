//! What `agent-eval run` was asked to do: the validated flags `main` hands
//! over ([`RunConfig`]), read by every phase of the command.

use std::path::PathBuf;

use super::filter::NameFilter;
use crate::eval::Shard;

/// Where `run` writes its reports.
#[derive(Debug, Clone, Default)]
pub struct ReportPaths {
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    /// One self-contained HTML page.
    pub html: Option<PathBuf>,
    /// The GitLab Code Quality report.
    pub codequality: Option<PathBuf>,
    /// Inside GitHub Actions: annotations and the job summary.
    pub github: Option<crate::app::ci::GithubOutputs>,
    /// The CI's checkout folder: the Code Quality report's paths are
    /// relative to it.
    pub ci_workspace: Option<PathBuf>,
}

impl ReportPaths {
    /// Every report path given, in the order the reports are written (the
    /// job summary is appended to, not written: it is not one of them).
    pub fn given(&self) -> impl Iterator<Item = &PathBuf> {
        [
            &self.json,
            &self.junit,
            &self.markdown,
            &self.html,
            &self.codequality,
        ]
        .into_iter()
        .flatten()
    }
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
    /// `--baseline-branch`: with a history as the baseline, only runs
    /// recorded on this branch.
    pub baseline_branch: Option<String>,
    pub tolerance: f64,
    pub quiet: bool,
    /// `--verbose`: every scenario whole, every column and comparison.
    pub detail: crate::report::table::Detail,
    /// Colour the terminal output.
    pub color: bool,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Write a line to stderr as each scenario's runs end (stderr is not
    /// a terminal, so no bar shows progress).
    pub scenario_lines: bool,
    /// `--steps`: print each step's completion rate per cell.
    pub steps: bool,
    /// `--log-dir`: write every run's transcript as JSON lines here.
    pub log_dir: Option<PathBuf>,
    /// `--keep-transcripts`: copy a preset's own transcripts here.
    pub keep_transcripts: Option<PathBuf>,
    /// `--list`: say what would run, run nothing.
    pub list: bool,
    /// `--fail-fast`: start no further scenario once one has a failed
    /// expectation.
    pub fail_fast: bool,
    /// `--model`, `--max-concurrency`, `--max-cost`, `--price`, `--record`.
    pub real: crate::app::RealModelArgs,
    /// The cap on runs (`--max-runs`; default [`crate::eval::DEFAULT_MAX_RUNS`]).
    pub max_runs: Option<u64>,
    /// Run this command as an external agent instead of the built-in loop.
    pub agent: Option<String>,
    /// `--history`: record this invocation in this SQLite database.
    pub history: Option<PathBuf>,
    /// `--profile`: every simulated scenario under this calibration profile.
    pub profile: Option<PathBuf>,
}
