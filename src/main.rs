//! The `agent-eval` binary: parses arguments into the library's configs,
//! runs one command and maps the outcome to an exit status (0 passed,
//! 1 an expectation failed or a baseline regressed, 2 bad input, 130
//! interrupted). All the work is in the library.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use agent_eval::app::{
    self, NameFilter, ReplayConfig, ReplayFormat, ReportPaths, RunConfig, Status, SweepConfig,
};
use agent_eval::eval::Shard;
use agent_eval::eval::sweep::DEFAULT_MIN_EFFECT;
use agent_eval::results::baseline::DEFAULT_TOLERANCE;
use agent_eval::scenario::{Axis, AxisValue, Dialect, MAX_SEEDS, NagThreshold, ReminderSpec};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "agent-eval",
    version,
    about = "Measure planning designs of coding agents (s03 TodoWrite and others) against a mock LLM"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// The variants are parsed once per process: their sizes do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Run scenarios (files or folders) and check their expectations.
    #[command(after_help = RUN_EXAMPLES)]
    Run {
        /// Scenario files or folders (every *.yaml / *.yml below).
        #[arg(default_value = "scenarios/")]
        paths: Vec<PathBuf>,
        /// Write the JSON report here (`-`: stdout; the tables then go to stderr).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Write a JUnit XML report here.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Write a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY).
        #[arg(long, value_name = "FILE")]
        markdown: Option<PathBuf>,
        /// Write one self-contained HTML report here (opens from disk; with
        /// --log-dir it shows every logged transcript, else those of the
        /// first 20 runs that did not complete every step).
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// Write every run's transcript as JSON lines, one file per
        /// scenario (DIR/<scenario>.jsonl), in run order.
        #[arg(long, value_name = "DIR")]
        log_dir: Option<PathBuf>,
        /// Also print each scored step's completion rate per cell (which
        /// steps get dropped).
        #[arg(long)]
        steps: bool,
        /// Print what would run (scenarios, cells, seeds) and run nothing.
        #[arg(long)]
        list: bool,
        /// Seeds per cell for simulated scenarios (overrides the scenario).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_SEEDS))]
        seeds: Option<u64>,
        /// Worker threads (default: every core).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
        jobs: Option<u32>,
        /// Only scenarios whose name contains PATTERN, ignoring case;
        /// repeat it or give a comma list for several (any matches);
        /// `!PATTERN` leaves out the names that contain it.
        #[arg(long, value_name = "PATTERN")]
        filter: Vec<String>,
        /// Run the scenarios one after another and start none after the
        /// first one with a failed expectation (exit 1; those not run are
        /// named).
        #[arg(long)]
        fail_fast: bool,
        /// Run only shard K of N of all (scenario, cell, seed) units;
        /// `auto` reads K and N from the CI engine's parallel-job variables
        /// (GitLab, CircleCI, Buildkite, Kubernetes Indexed Job).
        #[arg(long, value_name = "K/N|auto", value_parser = parse_shard)]
        shard: Option<ShardChoice>,
        /// Fail (exit 1) when a cell's completion or full completion fell
        /// below this earlier JSON report by more than --tolerance.
        #[arg(long, value_name = "OLD.json")]
        baseline: Option<PathBuf>,
        /// Largest drop (absolute, 0..1) tolerated against --baseline.
        #[arg(long, value_name = "T", default_value_t = DEFAULT_TOLERANCE, value_parser = parse_tolerance)]
        tolerance: f64,
        /// Print only failing scenarios and the summary; no progress bar.
        #[arg(long, short)]
        quiet: bool,
        /// Allow at most N runs (cells × seeds over every scenario; default 1000000).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_runs: Option<u64>,
        /// Exit 2 unless bash commands and command checks can be fully
        /// sandboxed (Landlock) on this machine.
        #[arg(long)]
        require_sandbox: bool,
        /// Start a process for every bash command and command check, never
        /// reusing the effect of an identical one over identical files
        /// (slower; the results are the same).
        #[arg(long)]
        no_reuse: bool,
        #[command(flatten)]
        real: app::RealModelArgs,
        /// Run COMMAND (by `sh -c`, in each run's workspace) as an external
        /// agent against a mock endpoint, instead of the built-in loop.
        #[arg(long, value_name = "COMMAND", value_parser = parse_agent)]
        agent: Option<String>,
        /// Record this invocation (commit, branch, every cell's figures) in
        /// this SQLite history database, created when missing.
        #[arg(long, value_name = "FILE")]
        history: Option<PathBuf>,
    },
    /// Run one scenario once and show the conversation.
    #[command(after_help = REPLAY_EXAMPLES)]
    Replay {
        /// The scenario file.
        scenario: PathBuf,
        /// The run's seed (the simulated model's randomness).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Do not offer the todo tool.
        #[arg(long)]
        no_todo: bool,
        /// Nag threshold: an integer >= 1 or "off".
        #[arg(long, value_name = "N|off", value_parser = NagThreshold::parse)]
        threshold: Option<NagThreshold>,
        /// Planning dialect (s03, s03-guarded, planning-state, java-port,
        /// create-update, claude-code, claude-code-tasks, codex, gemini).
        #[arg(long, value_name = "NAME", value_parser = parse_dialect)]
        dialect: Option<Dialect>,
        /// Reminder policy (s03, planning-state, claude-code, interval,
        /// every-turn, off), default parameters.
        #[arg(long, value_name = "NAME", value_parser = parse_reminder)]
        reminder: Option<ReminderSpec>,
        /// Set any matrix axis, as a cell of `run` has it: AXIS=VALUE, e.g.
        /// placement=append, simulate.attention_span=4,
        /// reminder={"policy":"interval","every":4} (repeatable).
        #[arg(long = "set", value_name = "AXIS=VALUE", value_parser = parse_setting)]
        settings: Vec<(Axis, AxisValue)>,
        /// text: the conversation with the todo panel and the step checks;
        /// json: {"messages", "metrics", "violations"}.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Exit 2 unless bash commands and command checks can be fully
        /// sandboxed (Landlock) on this machine.
        #[arg(long)]
        require_sandbox: bool,
        /// Start a process for every bash command and command check, never
        /// reusing the effect of an identical one over identical files
        /// (slower; the results are the same).
        #[arg(long)]
        no_reuse: bool,
        /// Run COMMAND (by `sh -c`, in each run's workspace) as an external
        /// agent against a mock endpoint, instead of the built-in loop.
        #[arg(long, value_name = "COMMAND", value_parser = parse_agent)]
        agent: Option<String>,
    },
    /// Compare the values of one axis (nag thresholds by default) with the
    /// planning tool, and the baseline without it, on one scenario.
    #[command(after_help = SWEEP_EXAMPLES)]
    Sweep {
        /// The scenario file.
        scenario: PathBuf,
        /// The axis to sweep: nag_threshold, dialect, reminder, placement or
        /// simulate.<param>.
        #[arg(long, value_name = "NAME", default_value = "nag_threshold")]
        axis: String,
        /// Comma-separated values of the axis (default: 1,2,3,5,8,off for
        /// thresholds; every dialect, policy or placement).
        #[arg(long, value_name = "LIST", value_delimiter = ',')]
        values: Vec<String>,
        /// Comma-separated thresholds (integers >= 1 and/or "off"): the
        /// values of --axis nag_threshold.
        #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = NagThreshold::parse, conflicts_with = "values")]
        thresholds: Vec<NagThreshold>,
        /// Seeds per cell (overrides the scenario).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_SEEDS))]
        seeds: Option<u64>,
        /// Worker threads (default: every core).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
        jobs: Option<u32>,
        /// Draw completion and reminder cost against threshold as SVG.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        /// Write the sweep's cells, p-values and pick as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Write one self-contained HTML page: the sweep's cells and chart.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// The smallest gain in completion rate (0..1) worth more
        /// reminders: the pick is the cheapest value whose completion is
        /// within this of the best one and not significantly below it.
        #[arg(long, value_name = "X", default_value_t = DEFAULT_MIN_EFFECT, value_parser = parse_tolerance)]
        min_effect: f64,
        /// Print only the pick; no table, no progress bar.
        #[arg(long, short)]
        quiet: bool,
        /// Allow at most N runs (cells × seeds over every scenario; default 1000000).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_runs: Option<u64>,
        /// Exit 2 unless bash commands and command checks can be fully
        /// sandboxed (Landlock) on this machine.
        #[arg(long)]
        require_sandbox: bool,
        /// Start a process for every bash command and command check, never
        /// reusing the effect of an identical one over identical files
        /// (slower; the results are the same).
        #[arg(long)]
        no_reuse: bool,
    },
    /// Merge shard reports (from `run --shard K/N --json`) into one report.
    ///
    /// Every shard of one run must be given once: the shards are checked to
    /// come from the same scenario files, seeds and settings, and to hold
    /// each run exactly once. Prints the summary like `run`.
    #[command(after_help = MERGE_EXAMPLES)]
    Merge {
        /// The shard reports (every shard of one split, once each).
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// Write the merged report here instead of stdout (the summary
        /// then goes to stdout instead of stderr).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Write a JUnit XML report here.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Write a Markdown summary here.
        #[arg(long, value_name = "FILE")]
        markdown: Option<PathBuf>,
        /// Write a self-contained HTML report here.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// Print only failing scenarios and the summary.
        #[arg(long, short)]
        quiet: bool,
        /// Record the merged results in this SQLite history database.
        #[arg(long, value_name = "FILE")]
        history: Option<PathBuf>,
    },
    /// Show each scenario's cells over the runs recorded with --history.
    ///
    /// Oldest first: commit, time, branch, runs and completion with its 95%
    /// interval; MOVED marks a completion outside the previous run's
    /// interval.
    History {
        /// The history database (`run --history FILE`).
        file: PathBuf,
        /// Only this scenario (its exact name).
        #[arg(long, value_name = "NAME")]
        scenario: Option<String>,
        /// Only runs recorded on this branch.
        #[arg(long, value_name = "NAME")]
        branch: Option<String>,
        /// Print JSON instead of the table.
        #[arg(long)]
        json: bool,
        /// Also write a trend chart of completion with its intervals here.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
    },
    /// Compare two JSON reports cell by cell; exit 1 on a regression.
    ///
    /// Cells whose run counts differ are flagged: a move within their 95%
    /// intervals is shown as `noise?`, not failed.
    #[command(after_help = DIFF_EXAMPLES)]
    Diff {
        /// The earlier JSON report.
        old: PathBuf,
        /// The later JSON report.
        new: PathBuf,
        /// Largest drop (absolute, 0..1) that is not a regression.
        #[arg(long, value_name = "T", default_value_t = DEFAULT_TOLERANCE, value_parser = parse_tolerance)]
        tolerance: f64,
        /// Only scenarios whose name contains TEXT.
        #[arg(long, value_name = "TEXT")]
        filter: Option<String>,
    },
    /// Serve a scenario's model over HTTP (Anthropic Messages, OpenAI Chat
    /// Completions and Responses) until Ctrl-C.
    #[command(after_help = SERVE_EXAMPLES)]
    Serve {
        /// The scenario whose model answers.
        scenario: PathBuf,
        /// The simulated model's seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Address to listen on (loopback with a free port by default).
        #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:0")]
        listen: std::net::SocketAddr,
        /// The folder your agent works in: the simulated model counts its
        /// path as a placeholder, as in `run --agent`, so its choices do not
        /// depend on where the folder is.
        #[arg(long, value_name = "DIR")]
        workdir: Option<PathBuf>,
    },
    /// Validate scenarios without running them: load each, dry-run every
    /// step's `do` calls in a fresh workspace and check each step holds
    /// after them, and check every `where`/`compare` matches a cell.
    #[command(after_help = CHECK_EXAMPLES)]
    Check {
        /// Scenario files or folders (every *.yaml / *.yml below).
        #[arg(default_value = "scenarios/")]
        paths: Vec<PathBuf>,
        /// Allow at most N runs (cells × seeds over every scenario; default 1000000).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_runs: Option<u64>,
    },
    /// Write a scripted and a simulated scenario and their fixture that
    /// pass, to start from (never overwrites a file).
    #[command(after_help = "Example:\n  agent-eval init && agent-eval run scenarios/")]
    Init {
        /// The folder to write into.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Print a shell completion script.
    #[command(
        after_help = "Example:\n  agent-eval completions bash > ~/.local/share/bash-completion/completions/agent-eval"
    )]
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

const RUN_EXAMPLES: &str = "Examples:
  agent-eval run                                  every scenario under scenarios/
  agent-eval run scenarios/ --filter refactor,smoke --filter '!slow'
  agent-eval run --list                           what would run, without running
  agent-eval run --steps --seeds 200 --jobs 4
  agent-eval run --json report.json --html report.html --log-dir logs/
  agent-eval run --fail-fast -q

Exit status: 0 every expectation held; 1 an expectation failed (or a
baseline regressed); 2 bad input; 3 no scenario found; 130 interrupted.";

const REPLAY_EXAMPLES: &str = "Examples:
  agent-eval replay scenarios/ten_step_refactor.yaml --seed 7
  agent-eval replay scenarios/ten_step_refactor.yaml --seed 7 --dialect codex --threshold 3
  agent-eval replay scenarios/ten_step_refactor.yaml --set placement=append --format json";

const SWEEP_EXAMPLES: &str = "Examples:
  agent-eval sweep scenarios/ten_step_refactor.yaml --thresholds 1,2,3,5,8,off --svg sweep.svg
  agent-eval sweep scenarios/ten_step_refactor.yaml --axis dialect --seeds 100 --min-effect 0.05
  agent-eval sweep scenarios/ten_step_refactor.yaml --axis simulate.attention_span --values 4,8,16 -q";

const MERGE_EXAMPLES: &str = "Example:
  agent-eval run --shard 1/2 --json a.json && agent-eval run --shard 2/2 --json b.json
  agent-eval merge a.json b.json --json full.json --junit junit.xml";

const DIFF_EXAMPLES: &str = "Example:
  agent-eval diff old.json new.json --tolerance 0.02 --filter refactor";

const SERVE_EXAMPLES: &str = "Example:
  agent-eval serve scenarios/ten_step_refactor.yaml --seed 3 --listen 127.0.0.1:8080";

const CHECK_EXAMPLES: &str = "Examples:
  agent-eval check
  agent-eval check scenarios/my_scenario.yaml

Exit status: 0 every scenario is valid; 2 a scenario is invalid or cannot be
finished by its own steps; 3 no scenario found.";

impl Command {
    /// Whether `--no-reuse` was given (run, replay, sweep).
    fn no_reuse(&self) -> bool {
        matches!(
            self,
            Command::Run { no_reuse: true, .. }
                | Command::Replay { no_reuse: true, .. }
                | Command::Sweep { no_reuse: true, .. }
        )
    }

    /// Whether `--require-sandbox` was given (run, replay, sweep).
    fn requires_sandbox(&self) -> bool {
        matches!(
            self,
            Command::Run {
                require_sandbox: true,
                ..
            } | Command::Replay {
                require_sandbox: true,
                ..
            } | Command::Sweep {
                require_sandbox: true,
                ..
            }
        )
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// `--agent`: a preset's name or a shell command; an empty one would run
/// `sh -c ''` and count every run as a broken agent.
fn parse_agent(raw: &str) -> Result<String, String> {
    if raw.trim().is_empty() {
        Err("the agent command is empty (give a command, or a preset: claude-code, codex)".into())
    } else {
        Ok(raw.to_string())
    }
}

fn parse_tolerance(raw: &str) -> Result<f64, String> {
    match raw.parse::<f64>() {
        Ok(t) if (0.0..=1.0).contains(&t) => Ok(t),
        _ => Err(format!(
            "tolerance must be a number from 0 to 1, got `{raw}`"
        )),
    }
}

/// `--shard K/N` or `--shard auto` (resolved from the environment before
/// the run starts).
#[derive(Clone, Copy)]
enum ShardChoice {
    Fixed(Shard),
    Auto,
}

fn parse_shard(raw: &str) -> Result<ShardChoice, String> {
    if raw.trim() == "auto" {
        Ok(ShardChoice::Auto)
    } else {
        Shard::parse(raw).map(ShardChoice::Fixed)
    }
}

/// The shard asked for, with `auto` read off the CI's variables.
fn resolve_shard(choice: Option<ShardChoice>) -> Result<Option<Shard>, String> {
    match choice {
        None => Ok(None),
        Some(ShardChoice::Fixed(shard)) => Ok(Some(shard)),
        Some(ShardChoice::Auto) => {
            app::ci::shard_from_env(&|name| std::env::var(name).ok()).map(Some)
        }
    }
}

fn parse_dialect(raw: &str) -> Result<Dialect, String> {
    Dialect::ALL
        .iter()
        .copied()
        .find(|d| d.name() == raw)
        .ok_or_else(|| {
            let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
            format!("unknown dialect `{raw}` (known: {})", known.join(", "))
        })
}

fn parse_setting(raw: &str) -> Result<(Axis, AxisValue), String> {
    let (name, value) = raw
        .split_once('=')
        .ok_or_else(|| format!("expected AXIS=VALUE, got `{raw}`"))?;
    let axis = Axis::parse(name.trim())?;
    let value = serde_json::from_str(value.trim())
        .unwrap_or_else(|_| serde_json::Value::String(value.trim().to_string()));
    Ok((axis.clone(), axis.value(&value)?))
}

fn parse_reminder(raw: &str) -> Result<ReminderSpec, String> {
    ReminderSpec::from_value(&serde_json::Value::String(raw.to_string()))
}

fn main() -> ExitCode {
    // SAFETY: nothing has run yet, so this is the only thread and no one
    // reads the environment concurrently. The API keys leave the
    // environment (and its /proc/PID/environ copy) before any agent, thread
    // or child process can see them.
    unsafe { agent_eval::model::http::secrets::take_from_environment() };
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    // Ctrl-C / SIGTERM: stop starting runs, kill running commands, write
    // nothing.
    let _ = ctrlc::set_handler(agent_eval::cancel::request);
    if cli.command.requires_sandbox()
        && let Err(e) = agent_eval::sandbox::landlock::require()
    {
        eprintln!("error: {e} (--require-sandbox)");
        return ExitCode::from(Status::BadInput.exit_code());
    }
    if cli.command.no_reuse() {
        agent_eval::sandbox::outcome::set_reuse_default(false);
    }
    let mut out = io::stdout().lock();
    let mut err = io::stderr();
    let progress = app::stderr_is_terminal();
    let outcome = match cli.command {
        Command::Run {
            paths,
            json,
            junit,
            markdown,
            html,
            log_dir,
            steps,
            list,
            seeds,
            jobs,
            filter,
            fail_fast,
            shard,
            baseline,
            tolerance,
            quiet,
            real,
            max_runs,
            agent,
            history,
            ..
        } => {
            let shard = match resolve_shard(shard) {
                Ok(shard) => shard,
                Err(message) => {
                    eprintln!("error: {message}");
                    return ExitCode::from(Status::BadInput.exit_code());
                }
            };
            app::run(
                &RunConfig {
                    paths,
                    reports: ReportPaths {
                        json,
                        junit,
                        markdown,
                        html,
                    },
                    seeds,
                    jobs: jobs.map(|j| j as usize),
                    filter: NameFilter::new(&filter),
                    steps,
                    log_dir,
                    list,
                    fail_fast,
                    shard,
                    baseline,
                    tolerance,
                    quiet,
                    color: app::stdout_wants_color(),
                    progress,
                    real,
                    max_runs,
                    agent,
                    history,
                },
                &mut out,
                &mut err,
            )
        }
        Command::Replay {
            scenario,
            seed,
            no_todo,
            threshold,
            dialect,
            reminder,
            settings,
            format,
            agent,
            ..
        } => app::replay(
            &ReplayConfig {
                scenario,
                seed,
                todo: no_todo.then_some(false),
                threshold,
                dialect,
                reminder,
                settings,
                format: match format {
                    Format::Text => ReplayFormat::Text,
                    Format::Json => ReplayFormat::Json,
                },
                agent,
            },
            &mut out,
        ),
        Command::Sweep {
            scenario,
            axis,
            values,
            thresholds,
            seeds,
            jobs,
            svg,
            json,
            html,
            min_effect,
            quiet,
            max_runs,
            ..
        } => app::sweep(
            &SweepConfig {
                scenario,
                values: if thresholds.is_empty() {
                    values
                } else if axis == "nag_threshold" {
                    thresholds.iter().map(ToString::to_string).collect()
                } else {
                    eprintln!(
                        "error: --thresholds are the values of --axis nag_threshold; use --values with --axis {axis}"
                    );
                    return ExitCode::from(Status::BadInput.exit_code());
                },
                axis,
                seeds,
                jobs: jobs.map(|j| j as usize),
                svg,
                json,
                html,
                min_effect,
                quiet,
                progress: progress && !quiet,
                max_runs,
            },
            &mut out,
            &mut err,
        ),
        Command::Merge {
            reports,
            json,
            junit,
            markdown,
            html,
            quiet,
            history,
        } => app::merge(
            &app::MergeConfig {
                parts: reports,
                json,
                junit,
                markdown,
                html,
                quiet,
                color: app::stdout_wants_color(),
                history,
            },
            &mut out,
            &mut err,
        ),
        Command::History {
            file,
            scenario,
            branch,
            json,
            svg,
        } => app::history(
            &app::HistoryConfig {
                file,
                scenario,
                branch,
                json,
                svg,
            },
            &mut out,
        ),
        Command::Diff {
            old,
            new,
            tolerance,
            filter,
        } => app::diff(&old, &new, tolerance, filter.as_deref(), &mut out),
        Command::Serve {
            scenario,
            seed,
            listen,
            workdir,
        } => app::serve(
            &app::ServeConfig {
                scenario,
                seed,
                listen,
                workdir,
            },
            &mut out,
            &mut err,
        ),
        Command::Check { paths, max_runs } => app::check(&paths, max_runs, &mut out, &mut err),
        Command::Init { dir } => app::init(&dir, &mut out),
        Command::Completions { shell } => {
            // Generated into memory first: clap_complete panics when its
            // writer fails (a closed pipe), and a closed pipe is no panic.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "agent-eval", &mut script);
            io::Write::write_all(&mut out, &script)
                .map(|()| Status::Passed)
                .map_err(|source| app::AppError::Write {
                    path: "stdout".into(),
                    source,
                })
        }
    };
    match outcome {
        Ok(status) => ExitCode::from(status.exit_code()),
        Err(app::AppError::Interrupted) => {
            eprintln!("interrupted: no report was written");
            ExitCode::from(Status::Interrupted.exit_code())
        }
        Err(e) => {
            // What a scenario or report wrote is shown, not obeyed.
            eprintln!(
                "error: {}",
                agent_eval::report::terminal::escape(&e.to_string())
            );
            ExitCode::from(Status::BadInput.exit_code())
        }
    }
}
