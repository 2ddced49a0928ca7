//! The `agent-eval` binary: takes the API keys out of the environment,
//! puts an init above itself when it is process 1,
//! parses the arguments (their definition is `agent_eval::app::cli`),
//! installs the Ctrl-C handler and runs the one command given; its exit
//! status is the command's (0 passed, 1 an expectation failed or a
//! baseline regressed, 2 bad input, 3 no scenario, 130 interrupted). All
//! the work is in the library.

use std::process::ExitCode;

use agent_eval::app::cli::{self, Cli};
use clap::Parser;

fn main() -> ExitCode {
    // SAFETY: nothing has run yet, so this is the only thread and no one
    // reads the environment concurrently. The API keys leave the
    // environment (and its /proc/PID/environ copy) before any agent, thread
    // or child process can see them.
    unsafe { agent_eval::model::http::secrets::take_from_environment() };
    // SAFETY: still the only thread. As process 1 (a container without an
    // init), an init that reaps orphans stays above agent-eval.
    unsafe { agent_eval::sandbox::reaper::init_if_pid_1() };
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            cli::print_parse_error(&e);
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    // Ctrl-C / SIGTERM: stop starting runs, kill running commands, write
    // nothing.
    let _ = ctrlc::set_handler(agent_eval::cancel::request);
    ExitCode::from(cli::execute(cli.command))
}

/// mimalloc, not the system allocator: an episode is many small, short-lived
/// allocations, and glibc's `malloc`/`free` were about a fifth of its
/// instructions (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
