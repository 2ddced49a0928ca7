//! Each command's arguments as clap parses them, and how they become the
//! command's config (`RunConfig`, `SweepConfig`, ...): the only place that
//! knows both the flags and the library's types.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::parse::{
    ShardChoice, parse_agent, parse_dialect, parse_path, parse_reminder, parse_setting,
    parse_shard, parse_tolerance, resolve_shard,
};
use crate::app::{
    self, AppError, HistoryConfig, MergeConfig, NameFilter, ReplayConfig, ReplayFormat,
    ReportPaths, RunConfig, ServeConfig, SweepConfig,
};
use crate::eval::sweep::DEFAULT_MIN_EFFECT;
use crate::results::baseline::DEFAULT_TOLERANCE;
use crate::scenario::{
    AgentPreset, Axis, AxisValue, Dialect, MAX_SEEDS, NagThreshold, ReminderSpec,
};

/// `replay --format`.
#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// The arguments of `run`.
#[derive(Args)]
pub struct RunArgs {
    /// Scenario files or folders (every *.yaml / *.yml below).
    #[arg(default_value = "scenarios/")]
    pub paths: Vec<PathBuf>,
    /// Write the JSON report here (`-`: stdout; the tables then go to stderr).
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub junit: Option<PathBuf>,
    /// Write a Markdown summary here (in GitHub Actions it is also
    /// appended to the job summary without this flag).
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub markdown: Option<PathBuf>,
    /// Write one self-contained HTML report here (opens from disk; with
    /// --log-dir it shows every logged transcript, else those of the
    /// first 20 runs that did not complete every step).
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub html: Option<PathBuf>,
    /// Write every run's transcript as JSON lines, one file per
    /// scenario (DIR/SCENARIO.jsonl, SCENARIO its name), in run order.
    #[arg(long, value_name = "DIR", value_parser = parse_path)]
    pub log_dir: Option<PathBuf>,
    /// Copy each run's own session transcripts, as a real CLI agent
    /// (`--agent claude-code`, `--agent codex`) writes them in its
    /// throwaway HOME, into DIR/SCENARIO/CELL/seed-N/ before it is deleted.
    #[arg(long, value_name = "DIR", value_parser = parse_path)]
    pub keep_transcripts: Option<PathBuf>,
    /// Also print each scored step's completion rate per cell (which
    /// steps get dropped).
    #[arg(long)]
    pub steps: bool,
    /// Print what would run (scenarios, cells, seeds) and run nothing.
    #[arg(long)]
    pub list: bool,
    /// Seeds per cell for simulated scenarios (overrides the scenario).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_SEEDS))]
    pub seeds: Option<u64>,
    /// Worker threads (default: every core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: Option<u32>,
    /// Only scenarios whose name contains PATTERN, ignoring case;
    /// repeat it or give a comma list for several (any matches);
    /// `!PATTERN` leaves out the names that contain it.
    #[arg(long, value_name = "PATTERN")]
    pub filter: Vec<String>,
    /// Run the scenarios one after another and start none after the
    /// first one with a failed expectation (exit 1; those not run are
    /// named).
    #[arg(long)]
    pub fail_fast: bool,
    /// Run only shard K of N of all (scenario, cell, seed) units;
    /// `auto` reads K and N from the CI engine's parallel-job variables
    /// (GitLab, CircleCI, Buildkite, Kubernetes Indexed Job).
    #[arg(long, value_name = "K/N|auto", value_parser = parse_shard)]
    pub shard: Option<ShardChoice>,
    /// Fail (exit 1) when a cell's completion or full completion fell
    /// below this earlier JSON report, or the last run recorded in this
    /// history database, by more than --tolerance.
    #[arg(long, value_name = "OLD.json|HISTORY.db")]
    pub baseline: Option<PathBuf>,
    /// With a history as --baseline: compare with the last run recorded
    /// on this branch (default: the branch being evaluated, else any).
    #[arg(long, value_name = "NAME", requires = "baseline")]
    pub baseline_branch: Option<String>,
    /// Largest drop (absolute, 0..1) tolerated against --baseline.
    #[arg(long, value_name = "T", default_value_t = DEFAULT_TOLERANCE, value_parser = parse_tolerance)]
    pub tolerance: f64,
    /// Print only failing scenarios and the summary; no progress bar.
    #[arg(long, short, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Show every scenario whole: every column, every comparison, every
    /// expectation (by default a passing scenario of several is one line
    /// and only the comparisons that differ are listed).
    #[arg(long, short)]
    pub verbose: bool,
    /// Allow at most N runs (cells × seeds over every scenario; default 1000000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_runs: Option<u64>,
    /// Exit 2 unless bash commands and command checks can be fully
    /// sandboxed (Landlock) on this machine.
    #[arg(long)]
    pub require_sandbox: bool,
    /// Start a process for every bash command and command check, never
    /// reusing the effect of an identical one over identical files
    /// (slower; the results are the same).
    #[arg(long)]
    pub no_reuse: bool,
    #[command(flatten)]
    pub ci: CiArgs,
    #[command(flatten)]
    pub real: app::RealModelArgs,
    /// Run COMMAND (by `sh -c`, in each run's workspace) as an external
    /// agent against a mock endpoint, instead of the built-in loop; or a
    /// preset (the help lists them, see [`agent_help`]).
    #[arg(long, value_name = "COMMAND", value_parser = parse_agent, help = agent_help())]
    pub agent: Option<String>,
    /// Record this invocation (commit, branch, every cell's figures) in
    /// this SQLite history database, created when missing.
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub history: Option<PathBuf>,
    /// Run every simulated scenario under this calibration profile
    /// (`calibrate --out`); parameters a scenario writes still win.
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub profile: Option<PathBuf>,
}

/// The help of `--agent`, its presets listed from the registry
/// ([`AgentPreset::ALL`]), so the help names every preset there is.
fn agent_help() -> String {
    format!(
        "Run COMMAND (by `sh -c`, in each run's workspace) as an external agent against a mock \
         endpoint, instead of the built-in loop. Or a preset, a real CLI run headless: {}, \
         installed by `{}` (see docs/real-agents.md). A preset keeps its own reminders: nag, \
         placement and reminder do not apply, and a comparison that only they tell apart is \
         reported as n/a",
        AgentPreset::listing(),
        crate::eval::execute::presets::INSTALL_COMMAND
    )
}

/// The arguments of `replay`.
#[derive(Args)]
pub struct ReplayArgs {
    /// The scenario file.
    pub scenario: PathBuf,
    /// The run's seed (the simulated model's randomness).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Do not offer the todo tool.
    #[arg(long)]
    pub no_todo: bool,
    /// Nag threshold: an integer >= 1 or "off".
    #[arg(long, value_name = "N|off", value_parser = NagThreshold::parse)]
    pub threshold: Option<NagThreshold>,
    /// Planning dialect (s03, s03-guarded, planning-state, java-port,
    /// create-update, claude-code, claude-code-tasks, codex, gemini, qwen-code,
    /// opencode).
    #[arg(long, value_name = "NAME", value_parser = parse_dialect)]
    pub dialect: Option<Dialect>,
    /// Reminder policy (s03, planning-state, claude-code, interval,
    /// every-turn, off), default parameters.
    #[arg(long, value_name = "NAME", value_parser = parse_reminder)]
    pub reminder: Option<ReminderSpec>,
    /// Set any matrix axis, as a cell of `run` has it: AXIS=VALUE, e.g.
    /// placement=append, simulate.attention_span=4,
    /// reminder={"policy":"interval","every":4} (repeatable).
    #[arg(long = "set", value_name = "AXIS=VALUE", value_parser = parse_setting)]
    pub settings: Vec<(Axis, AxisValue)>,
    /// text: the conversation with the todo panel and the step checks;
    /// json: {"messages", "metrics", "violations"}.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Exit 2 unless bash commands and command checks can be fully
    /// sandboxed (Landlock) on this machine.
    #[arg(long)]
    pub require_sandbox: bool,
    /// Start a process for every bash command and command check, never
    /// reusing the effect of an identical one over identical files
    /// (slower; the results are the same).
    #[arg(long)]
    pub no_reuse: bool,
    /// Run COMMAND (by `sh -c`, in each run's workspace) as an external
    /// agent against a mock endpoint, instead of the built-in loop; or a
    /// preset (see [`agent_help`]).
    #[arg(long, value_name = "COMMAND", value_parser = parse_agent, help = agent_help())]
    pub agent: Option<String>,
}

/// The arguments of `sweep`.
#[derive(Args)]
pub struct SweepArgs {
    /// The scenario file.
    pub scenario: PathBuf,
    /// The axis to sweep: nag_threshold, dialect, reminder, placement or
    /// simulate.<param>.
    #[arg(long, value_name = "NAME", default_value = "nag_threshold")]
    pub axis: String,
    /// Comma-separated values of the axis (default: 1,2,3,5,8,off for
    /// thresholds; every dialect, policy or placement).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub values: Vec<String>,
    /// Comma-separated thresholds (integers >= 1 and/or "off"): the
    /// values of --axis nag_threshold.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = NagThreshold::parse, conflicts_with = "values")]
    pub thresholds: Vec<NagThreshold>,
    /// Seeds per cell (overrides the scenario).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_SEEDS))]
    pub seeds: Option<u64>,
    /// Worker threads (default: every core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: Option<u32>,
    /// Draw the chart as SVG: completion (with its 95% interval) against
    /// context tokens per run, one point per value, the baseline without
    /// the todo tool as a point of its own, the pick ringed.
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub svg: Option<PathBuf>,
    /// Write the sweep's cells, p-values and pick as JSON.
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub json: Option<PathBuf>,
    /// Write one self-contained HTML page: the sweep's cells and chart.
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub html: Option<PathBuf>,
    /// The smallest gain in completion rate (0..1) worth more
    /// reminders: the pick is the cheapest value whose completion is
    /// within this of the best one and not significantly below it.
    #[arg(long, value_name = "X", default_value_t = DEFAULT_MIN_EFFECT, value_parser = parse_tolerance)]
    pub min_effect: f64,
    /// Print only the pick; no table, no progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Allow at most N runs (cells × seeds over every scenario; default 1000000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_runs: Option<u64>,
    /// Exit 2 unless bash commands and command checks can be fully
    /// sandboxed (Landlock) on this machine.
    #[arg(long)]
    pub require_sandbox: bool,
    /// Start a process for every bash command and command check, never
    /// reusing the effect of an identical one over identical files
    /// (slower; the results are the same).
    #[arg(long)]
    pub no_reuse: bool,
    /// Run every simulated scenario under this calibration profile
    /// (`calibrate --out`); parameters a scenario writes still win.
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub profile: Option<PathBuf>,
}

/// The CI outputs of `run` and `merge`.
#[derive(Args)]
pub struct CiArgs {
    /// Write a GitLab Code Quality report here (failures shown in the
    /// merge request at their file and line).
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub codequality: Option<PathBuf>,
    /// In GitHub Actions: do not print an `::error` annotation for each
    /// failed expectation and bad file.
    #[arg(long)]
    pub no_annotations: bool,
    /// In GitHub Actions: do not append the Markdown summary to
    /// $GITHUB_STEP_SUMMARY.
    #[arg(long)]
    pub no_step_summary: bool,
}

impl CiArgs {
    /// `reports` with the CI outputs asked for (GitHub's read off the
    /// environment); a `--markdown` naming the job summary file is
    /// appended to it once, as the step summary.
    fn apply(self, reports: ReportPaths) -> ReportPaths {
        let get = |name: &str| std::env::var(name).ok();
        let github = app::ci::github_outputs(&get, !self.no_annotations, !self.no_step_summary);
        let (markdown, github) =
            app::ci::fold_markdown_into_step_summary(reports.markdown, github, &get);
        ReportPaths {
            markdown,
            codequality: self.codequality,
            github,
            ci_workspace: app::ci::workspace_dir(&get),
            ..reports
        }
    }
}

/// The arguments of `merge`.
#[derive(Args)]
pub struct MergeArgs {
    /// The shard reports (every shard of one split, once each).
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// Write the merged report here instead of stdout (the summary
    /// then goes to stdout instead of stderr).
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub junit: Option<PathBuf>,
    /// Write a Markdown summary here.
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub markdown: Option<PathBuf>,
    /// Write a self-contained HTML report here.
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub html: Option<PathBuf>,
    /// Print only failing scenarios and the summary.
    #[arg(long, short, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Show every scenario whole: every column, every comparison, every
    /// expectation.
    #[arg(long, short)]
    pub verbose: bool,
    /// Record the merged results in this SQLite history database.
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub history: Option<PathBuf>,
    #[command(flatten)]
    pub ci: CiArgs,
}

/// The arguments of `history`.
#[derive(Args)]
pub struct HistoryArgs {
    /// The history database (`run --history FILE`).
    pub file: PathBuf,
    /// Only scenarios whose name contains TEXT (as `diff --filter`;
    /// `--filter` is the same flag).
    #[arg(long, alias = "filter", value_name = "TEXT")]
    pub scenario: Option<String>,
    /// Only runs recorded on this branch.
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also write a trend chart of completion with its intervals here
    /// (the cells that moved, flapped or changed profile).
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub svg: Option<PathBuf>,
    /// Also write a self-contained HTML page: the chart of the cells that
    /// moved and every cell's runs, the steady ones folded.
    #[arg(long, value_name = "FILE", value_parser = parse_path)]
    pub html: Option<PathBuf>,
    /// List every cell run by run, the steady ones too (by default they
    /// are counted on one line).
    #[arg(long)]
    pub all: bool,
    /// Show the last N recorded whole runs (0: all of them).
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub last: usize,
}

/// The arguments of `diff`.
#[derive(Args)]
pub struct DiffArgs {
    /// The earlier JSON report.
    pub old: PathBuf,
    /// The later JSON report.
    pub new: PathBuf,
    /// Largest drop (absolute, 0..1) that is not a regression.
    #[arg(long, value_name = "T", default_value_t = DEFAULT_TOLERANCE, value_parser = parse_tolerance)]
    pub tolerance: f64,
    /// Only scenarios whose name contains TEXT.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// Print Markdown for a pull-request comment instead of the table:
    /// the verdict, then the cells that moved beyond their interval.
    #[arg(long)]
    pub markdown: bool,
}

/// The arguments of `serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// The scenario whose model answers.
    pub scenario: PathBuf,
    /// The simulated model's seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Address to listen on (loopback with a free port by default).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:0")]
    pub listen: std::net::SocketAddr,
    /// The folder your agent works in: the simulated model counts its
    /// path as a placeholder, as in `run --agent`, so its choices do not
    /// depend on where the folder is.
    #[arg(long, value_name = "DIR", value_parser = parse_path)]
    pub workdir: Option<PathBuf>,
}

/// The arguments of `check`.
#[derive(Args)]
pub struct CheckArgs {
    /// Scenario files or folders (every *.yaml / *.yml below).
    #[arg(default_value = "scenarios/")]
    pub paths: Vec<PathBuf>,
    /// Allow at most N runs (cells × seeds over every scenario; default 1000000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_runs: Option<u64>,
}

/// The arguments of `init`.
#[derive(Args)]
pub struct InitArgs {
    /// The folder to write into.
    #[arg(default_value = ".")]
    pub dir: PathBuf,
}

/// The arguments of `completions`.
#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

impl RunArgs {
    /// The run's config; `--shard auto` is read off the CI's variables
    /// here.
    pub fn config(self, progress: bool) -> Result<RunConfig, AppError> {
        Ok(RunConfig {
            paths: self.paths,
            reports: self.ci.apply(ReportPaths {
                json: self.json,
                junit: self.junit,
                markdown: self.markdown,
                html: self.html,
                ..ReportPaths::default()
            }),
            seeds: self.seeds,
            jobs: self.jobs.map(|j| j as usize),
            filter: NameFilter::new(&self.filter),
            steps: self.steps,
            log_dir: self.log_dir,
            keep_transcripts: self.keep_transcripts,
            list: self.list,
            fail_fast: self.fail_fast,
            shard: resolve_shard(self.shard).map_err(|e| AppError::Usage(e.to_string()))?,
            baseline: self.baseline,
            baseline_branch: self.baseline_branch,
            tolerance: self.tolerance,
            quiet: self.quiet,
            detail: detail(self.verbose),
            color: app::stdout_wants_color(),
            progress,
            scenario_lines: !progress,
            real: self.real,
            max_runs: self.max_runs,
            agent: self.agent,
            history: self.history,
            profile: self.profile,
        })
    }
}

impl ReplayArgs {
    pub fn config(self) -> ReplayConfig {
        ReplayConfig {
            scenario: self.scenario,
            seed: self.seed,
            todo: self.no_todo.then_some(false),
            threshold: self.threshold,
            dialect: self.dialect,
            reminder: self.reminder,
            settings: self.settings,
            format: match self.format {
                Format::Text => ReplayFormat::Text,
                Format::Json => ReplayFormat::Json,
            },
            agent: self.agent,
        }
    }
}

impl SweepArgs {
    /// The sweep's config; `--thresholds` are the values of the threshold
    /// axis only.
    pub fn config(self, progress: bool) -> Result<SweepConfig, AppError> {
        let values = if self.thresholds.is_empty() {
            self.values
        } else if self.axis == "nag_threshold" {
            self.thresholds.iter().map(ToString::to_string).collect()
        } else {
            return Err(AppError::Usage(format!(
                "--thresholds are the values of --axis nag_threshold; use --values with --axis {}",
                self.axis
            )));
        };
        Ok(SweepConfig {
            scenario: self.scenario,
            values,
            axis: self.axis,
            seeds: self.seeds,
            jobs: self.jobs.map(|j| j as usize),
            svg: self.svg,
            json: self.json,
            html: self.html,
            min_effect: self.min_effect,
            quiet: self.quiet,
            progress: progress && !self.quiet,
            max_runs: self.max_runs,
            profile: self.profile,
        })
    }
}

impl MergeArgs {
    pub fn config(self) -> MergeConfig {
        let ci = self.ci.apply(ReportPaths {
            markdown: self.markdown,
            ..ReportPaths::default()
        });
        MergeConfig {
            parts: self.reports,
            json: self.json,
            junit: self.junit,
            markdown: ci.markdown.clone(),
            html: self.html,
            quiet: self.quiet,
            detail: detail(self.verbose),
            color: app::stdout_wants_color(),
            history: self.history,
            ci,
        }
    }
}

impl HistoryArgs {
    pub fn config(self) -> HistoryConfig {
        HistoryConfig {
            file: self.file,
            scenario: self.scenario,
            branch: self.branch,
            json: self.json,
            svg: self.svg,
            html: self.html,
            last: (self.last > 0).then_some(self.last),
            all: self.all,
        }
    }
}

impl ServeArgs {
    pub fn config(self) -> ServeConfig {
        ServeConfig {
            scenario: self.scenario,
            seed: self.seed,
            listen: self.listen,
            workdir: self.workdir,
        }
    }
}

/// How much `--verbose` shows.
fn detail(verbose: bool) -> crate::report::table::Detail {
    if verbose {
        crate::report::table::Detail::Full
    } else {
        crate::report::table::Detail::Brief
    }
}
