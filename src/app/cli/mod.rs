//! The command line: clap's definition of every command ([`Cli`]), and
//! [`execute`], which prepares the process for the command given (the
//! sandbox requirement, command reuse), calls it — one call per command —
//! and maps its outcome to the exit status (0 passed, 1 an expectation
//! failed or a baseline regressed, 2 bad input, 3 no scenario, 130
//! interrupted). The binary only parses and calls [`execute`].

mod args;
mod calibrate;
mod error;
mod help;
mod parse;

use std::io::{self, Write};

use clap::{CommandFactory, Parser, Subcommand};

pub use args::{
    CheckArgs, CompletionsArgs, DiffArgs, Format, HistoryArgs, InitArgs, MergeArgs, ReplayArgs,
    RunArgs, ServeArgs, SweepArgs,
};
pub use calibrate::CalibrateArgs;
use help::{
    CALIBRATE_EXAMPLES, CHECK_EXAMPLES, DIFF_EXAMPLES, HISTORY_EXAMPLES, MERGE_EXAMPLES,
    REPLAY_EXAMPLES, RUN_EXAMPLES, SERVE_EXAMPLES, SWEEP_EXAMPLES,
};

use crate::app::{self, AppError, Status};
use crate::report::workflow_safe::WorkflowSafe;

#[derive(Parser)]
#[command(
    name = "agent-eval",
    version,
    about = "Measure planning designs of coding agents (s03 TodoWrite and others) against a mock LLM"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// One command and its arguments.
// Parsed once per process: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
pub enum Command {
    /// Run scenarios (files or folders) and check their expectations.
    #[command(after_help = RUN_EXAMPLES)]
    Run(RunArgs),
    /// Run one scenario once and show the conversation.
    #[command(after_help = REPLAY_EXAMPLES)]
    Replay(ReplayArgs),
    /// Compare the values of one axis (nag thresholds by default) with the
    /// planning tool, and the baseline without it, on one scenario.
    #[command(after_help = SWEEP_EXAMPLES)]
    Sweep(SweepArgs),
    /// Merge shard reports (from `run --shard K/N --json`) into one report.
    ///
    /// Every shard of one run must be given once: the shards are checked to
    /// come from the same scenario files, seeds and settings, and to hold
    /// each run exactly once. Prints the summary like `run`.
    #[command(after_help = MERGE_EXAMPLES)]
    Merge(MergeArgs),
    /// Show each scenario's cells over the runs recorded with --history.
    ///
    /// Oldest first: commit, time, branch, runs and completion with its 95%
    /// interval; MOVED marks a completion outside the previous run's
    /// interval.
    #[command(after_help = HISTORY_EXAMPLES)]
    History(HistoryArgs),
    /// Compare two JSON reports cell by cell; exit 1 on a regression.
    ///
    /// Cells whose run counts differ are flagged: a move within their 95%
    /// intervals is shown as `noise?`, not failed.
    #[command(after_help = DIFF_EXAMPLES)]
    Diff(DiffArgs),
    /// Serve a scenario's model over HTTP (Anthropic Messages, OpenAI Chat
    /// Completions and Responses) until Ctrl-C.
    #[command(after_help = SERVE_EXAMPLES)]
    Serve(ServeArgs),
    /// Validate scenarios without running them: load each, dry-run every
    /// step's `do` calls in a fresh workspace and check each step holds
    /// after them, and check every `where`/`compare` matches a cell.
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
    /// Write a scripted and a simulated scenario and their fixture that
    /// pass, to start from (never overwrites a file).
    #[command(after_help = "Example:\n  agent-eval init && agent-eval run scenarios/")]
    Init(InitArgs),
    /// Fit the simulated model to an agent's own transcripts (agent-eval
    /// run logs; Claude Code and Codex with the transcript readers), check
    /// it on held-out sessions and write a profile.
    ///
    /// Measured parameters come with their count and a 95% interval; the
    /// attention parameters and drift weights are fitted by simulation
    /// only where the data identify them, else kept and labelled assumed.
    #[command(after_help = CALIBRATE_EXAMPLES)]
    Calibrate(CalibrateArgs),
    /// Print a shell completion script.
    #[command(
        after_help = "Example:\n  agent-eval completions bash > ~/.local/share/bash-completion/completions/agent-eval"
    )]
    Completions(CompletionsArgs),
}

impl Command {
    /// Whether `--no-reuse` was given (run, replay, sweep).
    fn no_reuse(&self) -> bool {
        matches!(
            self,
            Command::Run(RunArgs { no_reuse: true, .. })
                | Command::Replay(ReplayArgs { no_reuse: true, .. })
                | Command::Sweep(SweepArgs { no_reuse: true, .. })
        )
    }

    /// Whether `--require-sandbox` was given (run, replay, sweep).
    fn requires_sandbox(&self) -> bool {
        matches!(
            self,
            Command::Run(RunArgs {
                require_sandbox: true,
                ..
            }) | Command::Replay(ReplayArgs {
                require_sandbox: true,
                ..
            }) | Command::Sweep(SweepArgs {
                require_sandbox: true,
                ..
            })
        )
    }
}

/// Runs `command` in this process, printing to stdout and stderr; returns
/// the exit status. Inside GitHub Actions both streams go through the
/// [`WorkflowSafe`] sink: no line of foreign text becomes a command to
/// the runner.
pub fn execute(command: Command) -> u8 {
    let (mut out, mut err): (Box<dyn Write>, Box<dyn Write>) = if on_github() {
        (
            Box::new(WorkflowSafe::new(io::stdout().lock())),
            Box::new(WorkflowSafe::new(io::stderr())),
        )
    } else {
        (Box::new(io::stdout().lock()), Box::new(io::stderr()))
    };
    let code = execute_with(command, &mut out, &mut err);
    let _ = out.flush();
    let _ = err.flush();
    code
}

/// Whether this process runs inside GitHub Actions.
fn on_github() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v.trim() == "true")
}

/// Prints a command line clap could not parse (or its help) where clap
/// would, through the [`WorkflowSafe`] sink inside GitHub Actions as
/// [`execute`] does: clap's messages quote the arguments, which may hold a
/// file name or text from a scenario.
pub fn print_parse_error(error: &clap::Error) {
    if !on_github() {
        let _ = error.print();
        return;
    }
    let text = error.render().to_string();
    let mut sink: Box<dyn Write> = if error.use_stderr() {
        Box::new(WorkflowSafe::new(io::stderr()))
    } else {
        Box::new(WorkflowSafe::new(io::stdout().lock()))
    };
    let _ = sink.write_all(text.as_bytes());
    let _ = sink.flush();
}

/// [`execute`] with the streams chosen.
fn execute_with(command: Command, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    if command.requires_sandbox()
        && let Err(e) = crate::sandbox::landlock::require()
    {
        let _ = writeln!(err, "error: {e} (--require-sandbox)");
        return Status::BadInput.exit_code();
    }
    if command.no_reuse() {
        crate::sandbox::outcome::set_reuse_default(false);
    }
    let outcome = dispatch(command, out, err);
    exit_code(outcome, err)
}

/// Calls the command.
fn dispatch(
    command: Command,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    let progress = app::stderr_is_terminal();
    match command {
        Command::Run(args) => app::run(&args.config(progress)?, out, err),
        Command::Replay(args) => app::replay(&args.config(), out),
        Command::Sweep(args) => app::sweep(&args.config(progress)?, out, err),
        Command::Merge(args) => app::merge(&args.config(), out, err),
        Command::History(args) => app::history(&args.config(), out),
        Command::Diff(args) => app::diff(
            &args.old,
            &args.new,
            args.tolerance,
            args.filter.as_deref(),
            args.markdown,
            out,
        ),
        Command::Serve(args) => app::serve(&args.config(), out, err),
        Command::Check(args) => app::check(&args.paths, args.max_runs, out, err),
        Command::Init(args) => app::init(&args.dir, out),
        Command::Calibrate(args) => app::calibrate(&args.config()?, out, err),
        Command::Completions(args) => completions(args.shell, out),
    }
}

/// `completions SHELL`: the script, generated into memory first (clap_complete
/// panics when its writer fails, and a closed pipe is no panic).
fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<Status, AppError> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "agent-eval", &mut script);
    out.write_all(&script)
        .map(|()| Status::Passed)
        .map_err(AppError::stdout)
}

/// The exit status of an outcome; an error is printed to `err`.
fn exit_code(outcome: Result<Status, AppError>, err: &mut dyn Write) -> u8 {
    match outcome {
        Ok(status) => status.exit_code(),
        Err(AppError::Interrupted) => {
            let _ = writeln!(err, "interrupted: no report was written");
            Status::Interrupted.exit_code()
        }
        Err(e) => {
            // What a scenario or report wrote is shown, not obeyed.
            let _ = writeln!(
                err,
                "error: {}",
                crate::report::terminal::escape(&e.to_string())
            );
            Status::BadInput.exit_code()
        }
    }
}
