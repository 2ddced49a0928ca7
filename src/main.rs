//! The `agent-eval` binary: parses arguments into the library's configs,
//! runs one command and maps the outcome to an exit status (0 passed,
//! 1 an expectation failed, 2 bad input). All the work is in the library.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use agent_eval::app::{self, ReplayConfig, ReplayFormat, RunConfig, Status};
use agent_eval::scenario::NagThreshold;
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "agent-eval",
    version,
    about = "Measure the s03 TodoWrite design of coding agents against a mock LLM"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run scenarios (files or folders) and check their expectations.
    Run {
        /// Scenario files or folders (every *.yaml / *.yml below).
        #[arg(default_value = "scenarios/")]
        paths: Vec<PathBuf>,
        /// Write the JSON report here.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Seeds per cell for simulated scenarios (overrides the scenario).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        seeds: Option<u64>,
        /// Worker threads (default: every core).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
        jobs: Option<u32>,
        /// Only scenarios whose name contains TEXT.
        #[arg(long, value_name = "TEXT")]
        filter: Option<String>,
        /// Print only failing scenarios and the summary.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Run one scenario once and show the conversation.
    Replay {
        scenario: PathBuf,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Do not offer the todo tool.
        #[arg(long)]
        no_todo: bool,
        /// Nag threshold: an integer >= 1 or "off".
        #[arg(long, value_name = "N|off", value_parser = parse_threshold)]
        threshold: Option<NagThreshold>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Compare nag thresholds, with and without the todo tool, on one scenario.
    Sweep {
        scenario: PathBuf,
        /// Comma-separated thresholds: integers >= 1 and/or "off".
        #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_threshold, default_value = "1,2,3,5,8,off")]
        thresholds: Vec<NagThreshold>,
        /// Seeds per cell (overrides the scenario).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        seeds: Option<u64>,
        /// Worker threads (default: every core).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
        jobs: Option<u32>,
    },
    /// Validate scenarios without running them.
    Check {
        #[arg(default_value = "scenarios/")]
        paths: Vec<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn parse_threshold(raw: &str) -> Result<NagThreshold, String> {
    NagThreshold::parse(raw)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let mut out = io::stdout().lock();
    let mut err = io::stderr();
    let outcome = match cli.command {
        Command::Run {
            paths,
            json,
            seeds,
            jobs,
            filter,
            quiet,
        } => app::run(
            &RunConfig {
                paths,
                json,
                seeds,
                jobs: jobs.map(|j| j as usize),
                filter,
                quiet,
            },
            &mut out,
            &mut err,
        ),
        Command::Replay {
            scenario,
            seed,
            no_todo,
            threshold,
            format,
        } => app::replay(
            &ReplayConfig {
                scenario,
                seed,
                todo: no_todo.then_some(false),
                threshold,
                format: match format {
                    Format::Text => ReplayFormat::Text,
                    Format::Json => ReplayFormat::Json,
                },
            },
            &mut out,
        ),
        Command::Sweep {
            scenario,
            thresholds,
            seeds,
            jobs,
        } => app::sweep(
            &app::SweepConfig {
                scenario,
                thresholds,
                seeds,
                jobs: jobs.map(|j| j as usize),
            },
            &mut out,
        ),
        Command::Check { paths } => app::check(&paths, &mut out, &mut err),
    };
    match outcome {
        Ok(status) => ExitCode::from(status.exit_code()),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(Status::BadInput.exit_code())
        }
    }
}
