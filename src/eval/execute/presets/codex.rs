//! The Codex CLI preset (`--agent codex`; pinned 0.169.0).
//!
//! Runs `codex exec` (headless: the task on stdin until end of input, exit
//! when the model ends its turn) with `--skip-git-repo-check` (the
//! workspace is no repository) and
//! `--dangerously-bypass-approvals-and-sandbox` (no approval prompts, and
//! no bubblewrap sandbox, which needs user namespaces; the run is already
//! in a throwaway workspace). Its `config.toml`, written into `CODEX_HOME`
//! = `.agent-home/codex` in the workspace, points a custom model provider
//! at the mock (`base_url = $OPENAI_BASE_URL`, `wire_api = "responses"`),
//! names the model `gpt-5.5` (a slug Codex's bundled catalog gives the
//! classic tools: `exec_command`, `apply_patch`, `update_plan`, ...), turns
//! analytics, feedback and update checks off, and offers `update_plan` (the
//! `codex` dialect) only when the cell's `todo` is on.
//!
//! Its ACP mode (`agent: {preset: codex, task_via: acp}`) runs the adapter
//! `codex-acp` (pinned 0.16.0) with the same home and config, plus
//! `approval_policy = "never"` and `sandbox_mode = "danger-full-access"`
//! (what `exec`'s flags say): every part of a session is a `session/prompt`.
//! The adapter links its own copy of Codex's core, which has no switch for
//! the planning tool: `[tools.update_plan] enabled = false` (Codex 0.152
//! and later) is unknown to it, and it offers `update_plan` in every
//! request. So in a cell with planning off the mock server withholds the
//! dialect's planning tools from the model (`ServerOptions::
//! withheld_planning`, for every outside agent): the model is never
//! offered `update_plan`, though Codex's instructions still name it. An
//! agent that plans anyway (a plan reported over ACP, an offered planning
//! tool called) makes the cell invalid and fails the run (see
//! `results::summary::invalid_reason`), never measured.
//!
//! Codex 0.169 has no planning reminder: nothing it sends counts as one.

use std::path::Path;

use super::{OneDialectCli, THROWAWAY_HOME, quiet_command, sh_quoted};
use crate::plan::dialect::Dialect;
use crate::scenario::{AgentCommand, TaskVia};

/// The Codex CLI.
pub struct Codex;

/// The model slug Codex is told (see the module doc).
pub const MODEL: &str = "gpt-5.5";

impl OneDialectCli for Codex {
    const BINARY: &'static str = "codex";
    const DIALECT: Dialect = Dialect::Codex;
    const REMINDER_WORDS: &'static str = "none (codex has no planning reminder)";
    const ACP_BINARY: &'static str = "codex-acp";
    const TRANSCRIPT_DIR: Option<&'static str> = Some(".agent-home/codex/sessions");

    fn run(binary: &Path, todo: bool, acp: bool) -> AgentCommand {
        if acp {
            // The adapter takes no flags: the config says what `exec`'s
            // flags say (no approvals, no sandbox).
            let adapter = format!("exec {}", sh_quoted(&binary.to_string_lossy()));
            let no_prompts = [
                "approval_policy = \"never\"",
                "sandbox_mode = \"danger-full-access\"",
            ];
            let mut agent = configured(&adapter, todo, &no_prompts);
            agent.task_via = TaskVia::Acp;
            return agent;
        }
        let headless = format!(
            "exec {} exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox --color never",
            sh_quoted(&binary.to_string_lossy())
        );
        let mut agent = configured(&headless, todo, &[]);
        agent.task_via = TaskVia::Stdin;
        agent
    }
}

/// The command that writes Codex's config into its throwaway home and then
/// runs `tail` (`exec ...`), with `extra` top-level settings.
fn configured(tail: &str, todo: bool, extra: &[&str]) -> AgentCommand {
    let mut config = vec![
        format!("model = \"{MODEL}\""),
        "model_provider = \"mock\"".into(),
        "check_for_update_on_startup = false".into(),
    ];
    config.extend(extra.iter().map(|line| line.to_string()));
    config.extend([
        "[analytics]".into(),
        "enabled = false".into(),
        "[feedback]".into(),
        "enabled = false".into(),
        "[model_providers.mock]".into(),
        "name = \"mock\"".into(),
        "base_url = \"$OPENAI_BASE_URL\"".into(),
        "env_key = \"OPENAI_API_KEY\"".into(),
        "wire_api = \"responses\"".into(),
        "[tools.update_plan]".into(),
        format!("enabled = {todo}"),
    ]);
    // printf's arguments in double quotes: $OPENAI_BASE_URL expands.
    let lines: Vec<String> = config
        .iter()
        .map(|l| format!("\"{}\"", l.replace('"', "\\\"")))
        .collect();
    let command = format!(
        "mkdir -p \"$PWD/.agent-home/codex\" && printf '%s\\n' {} > \"$PWD/.agent-home/codex/config.toml\" && {THROWAWAY_HOME} {tail}",
        lines.join(" "),
    );
    // The caller says how the task is given.
    quiet_command(command, TaskVia::Stdin, &[])
}
