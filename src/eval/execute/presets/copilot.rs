//! The GitHub Copilot CLI preset (`--agent copilot`; pinned 1.0.102).
//!
//! Runs `copilot -p TASK` (non-interactive: one prompt, exit when the model
//! ends its turn) with `--allow-all-tools` (no permission prompts; the run
//! is in a throwaway workspace), `--available-tools` naming exactly the
//! tools offered (`bash`, `view`, `create`, `edit`, and its `sql` tool when
//! the cell's `todo` is on: Copilot's plan is rows of a `todos` table the
//! model keeps through it, the `copilot-sql` dialect), client telemetry
//! off and no log files. The model answers through Copilot's BYOK
//! settings: `COPILOT_PROVIDER_BASE_URL` = the mock's Chat Completions
//! (`$OPENAI_BASE_URL`), `COPILOT_PROVIDER_TYPE=openai`,
//! `COPILOT_PROVIDER_API_KEY` = the mock's dummy key, `COPILOT_MODEL`
//! [`MODEL`]; `COPILOT_OFFLINE=true` turns off GitHub authentication,
//! telemetry, web tools, the GitHub MCP server and updates.
//! `HOME`, `COPILOT_HOME` and `TMPDIR` point into `.agent-home` in the
//! workspace.
//!
//! Its ACP mode (`agent: {preset: copilot, task_via: acp}`) runs `copilot
//! --acp` with the same settings.
//!
//! Copilot CLI 1.0.102 has no planning reminder: fifteen tool turns with
//! pending todos brought no text about them (probed).

use std::path::Path;

use super::{OneDialectCli, quiet_command, sh_quoted};
use crate::plan::dialect::Dialect;
use crate::scenario::{AgentCommand, TaskVia};

/// GitHub Copilot CLI.
pub struct Copilot;

/// The model Copilot is told (any name: BYOK sends it to the mock).
pub const MODEL: &str = "gpt-4.1";

/// The file and shell tools it is offered; `sql` is added with `todo`.
const TOOLS: [&str; 4] = ["bash", "view", "create", "edit"];

/// The start of its command line: the throwaway home and the BYOK
/// settings, then `copilot` with `mode`'s options.
fn command(binary: &Path, todo: bool, mode: &str) -> AgentCommand {
    let mut tools: Vec<&str> = TOOLS.to_vec();
    if todo {
        tools.push("sql");
    }
    let command = format!(
        "mkdir -p \"$PWD/.agent-home/tmp\" && HOME=\"$PWD/.agent-home\" COPILOT_HOME=\"$PWD/.agent-home/.copilot\" TMPDIR=\"$PWD/.agent-home/tmp\" COPILOT_PROVIDER_BASE_URL=\"$OPENAI_BASE_URL\" COPILOT_PROVIDER_API_KEY=\"$OPENAI_API_KEY\" exec {} {mode} --allow-all-tools --disable-client-telemetry --log-level none --available-tools={}",
        sh_quoted(&binary.to_string_lossy()),
        tools.join(",")
    );
    // The caller says how the task is given.
    quiet_command(
        command,
        TaskVia::Stdin,
        &[
            ("COPILOT_PROVIDER_TYPE", "openai"),
            ("COPILOT_MODEL", MODEL),
            ("COPILOT_OFFLINE", "true"),
            ("COPILOT_AUTO_UPDATE", "false"),
            ("NO_COLOR", "1"),
        ],
    )
}

impl OneDialectCli for Copilot {
    const BINARY: &'static str = "copilot";
    const DIALECT: Dialect = Dialect::CopilotSql;
    const REMINDER_WORDS: &'static str = "none (copilot has no planning reminder)";
    const ACP_BINARY: &'static str = "copilot";

    fn run(binary: &Path, todo: bool, acp: bool) -> AgentCommand {
        if acp {
            let mut agent = command(binary, todo, "--acp");
            agent.task_via = TaskVia::Acp;
            return agent;
        }
        // The task is the prompt: the last argument, after `-p`.
        let mut agent = command(binary, todo, "");
        agent.command.push_str(" -p");
        agent.task_via = TaskVia::Arg;
        agent
    }
}
