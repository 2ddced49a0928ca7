//! Agent presets: the real CLI agents people ship, run headless as the
//! agent under test (`--agent claude-code`, `--agent codex`, `--agent
//! gemini-cli`, `--agent qwen-code`, `--agent opencode`, or `agent:
//! {preset: ...}` in a scenario). One file per preset ([`claude_code`],
//! [`codex`], [`gemini_cli`], [`qwen_code`], [`opencode`]); this module finds the CLI, settles a scenario for it, and
//! builds the command of one run.
//!
//! A preset owns: the command line (headless), where its binary is (the
//! install script's folder, `${AGENT_EVAL_AGENTS_DIR:-~/.cache/agent-eval/agents}/node_modules/.bin`,
//! then `PATH`), a throwaway `HOME` (and `CODEX_HOME`, `TMPDIR`) inside the
//! run's workspace, telemetry and updates off, which tools are offered (by
//! the cell's `todo` and `dialect`), and which text is its planning
//! reminder. The run itself is any outside agent's (see
//! [`super::external`]): the mock endpoint's base URLs and dummy keys in
//! the environment, metrics off the wire, the tool translation on the
//! server (`crate::wire::translate`).
//!
//! Settling ([`settle`]): an unset `dialect` becomes the agent's default;
//! a dialect set in the file (or on a `runs:` axis) that the agent lacks is
//! bad input naming the file and line; the built-in reminder settings
//! (`nag`, `placement`, `reminder`, and their axes) do not apply: the
//! agent's own reminder policy stands in the cell's settings instead.

pub mod claude_code;
pub mod codex;
pub mod copilot;
pub mod gemini_cli;
pub mod opencode;
pub mod qwen_code;

use std::path::{Path, PathBuf};

use crate::plan::dialect::Dialect;
use crate::plan::reminder::ReminderSpec;
use crate::scenario::{AgentCommand, TaskVia};
use crate::scenario::{AgentPreset, Axis, AxisValue, LoadError, Scenario};

/// The command that installs the pinned CLIs.
pub const INSTALL_COMMAND: &str = "bash .ci/install-agents.sh";

/// A real CLI agent.
pub trait Preset: Sync {
    /// The binary's name (`claude`, `codex`).
    fn binary(&self) -> &'static str;
    /// The planning dialects it has, its default first.
    fn dialects(&self) -> Vec<Dialect>;
    /// The text that starts its planning reminder under `dialect`, if it
    /// has one (most CLIs have none).
    fn reminder_text(&self, _dialect: Dialect) -> Option<&'static str> {
        None
    }
    /// Its own reminder policy, as the cell's settings show it (off unless
    /// the CLI reminds).
    fn own_reminder(&self) -> ReminderSpec {
        ReminderSpec::Off
    }
    /// Its own reminder policy in words (tables, reports).
    fn own_reminder_words(&self) -> &'static str;
    /// The shell command line of one run (cwd = the workspace) and its
    /// environment, for the cell's `todo` and `dialect`.
    fn command_line(&self, binary: &Path, todo: bool, dialect: Dialect) -> AgentCommand;
    /// The options that make it read a session's parts one user message at
    /// a time from a JSON stream on stdin (`task_via: stream-json`), if it
    /// can take a session at all.
    fn session_options(&self) -> Option<&'static str> {
        None
    }
    /// The folder, relative to the run's workspace, where the CLI writes
    /// its own session transcripts under the throwaway HOME
    /// (`run --keep-transcripts` copies the `*.jsonl` below it); `None`
    /// when it writes none that agent-eval reads.
    fn transcript_dir(&self) -> Option<&'static str> {
        None
    }

    /// The binary of its Agent Client Protocol mode (`task_via: acp`), if
    /// it has one (`codex-acp` for Codex).
    fn acp_binary(&self) -> Option<&'static str> {
        None
    }
    /// The shell command line of one run in its ACP mode (the same home,
    /// config and tools as [`Preset::command_line`], the agent speaking
    /// ACP on its stdio), for the cell's `todo` and `dialect`.
    fn acp_command_line(
        &self,
        _binary: &Path,
        _todo: bool,
        _dialect: Dialect,
    ) -> Option<AgentCommand> {
        None
    }
}

/// A CLI with one planning dialect, no planning reminder of its own and
/// an Agent Client Protocol mode (Codex, Copilot, Gemini CLI, OpenCode):
/// its facts are constants and its runs one function; [`Preset`] follows
/// from them, written once below.
pub trait OneDialectCli: Sync {
    /// [`Preset::binary`].
    const BINARY: &'static str;
    /// Its one planning dialect.
    const DIALECT: Dialect;
    /// [`Preset::own_reminder_words`]: "none (NAME has no planning reminder)".
    const REMINDER_WORDS: &'static str;
    /// [`Preset::acp_binary`].
    const ACP_BINARY: &'static str;
    /// [`Preset::transcript_dir`].
    const TRANSCRIPT_DIR: Option<&'static str> = None;
    /// One run's command line (cwd = the workspace) for the cell's `todo`:
    /// headless, or in its ACP mode when `acp`.
    fn run(binary: &Path, todo: bool, acp: bool) -> AgentCommand;
}

impl<T: OneDialectCli> Preset for T {
    fn binary(&self) -> &'static str {
        T::BINARY
    }

    fn dialects(&self) -> Vec<Dialect> {
        vec![T::DIALECT]
    }

    fn own_reminder_words(&self) -> &'static str {
        T::REMINDER_WORDS
    }

    fn transcript_dir(&self) -> Option<&'static str> {
        T::TRANSCRIPT_DIR
    }

    fn command_line(&self, binary: &Path, todo: bool, _dialect: Dialect) -> AgentCommand {
        T::run(binary, todo, false)
    }

    fn acp_binary(&self) -> Option<&'static str> {
        Some(T::ACP_BINARY)
    }

    fn acp_command_line(&self, binary: &Path, todo: bool, _: Dialect) -> Option<AgentCommand> {
        Some(T::run(binary, todo, true))
    }
}

/// The preset of this name.
pub fn of(preset: AgentPreset) -> &'static dyn Preset {
    match preset {
        AgentPreset::ClaudeCode => &claude_code::ClaudeCode,
        AgentPreset::Codex => &codex::Codex,
        AgentPreset::GeminiCli => &gemini_cli::GeminiCli,
        AgentPreset::QwenCode => &qwen_code::QwenCode,
        AgentPreset::OpenCode => &opencode::OpenCode,
        AgentPreset::Copilot => &copilot::Copilot,
    }
}

/// Why a preset cannot run.
#[derive(Debug, thiserror::Error)]
pub enum PresetError {
    #[error(
        "agent preset `{preset}`: the `{binary}` CLI is not installed (looked in {looked} and on PATH); install it with `{INSTALL_COMMAND}` (or set AGENT_EVAL_AGENTS_DIR)"
    )]
    Missing {
        preset: AgentPreset,
        binary: &'static str,
        looked: String,
    },
    #[error(
        "agent preset `{preset}` cannot run a session (several user messages): its CLI takes one prompt a process"
    )]
    NoSessions { preset: AgentPreset },
    #[error(
        "agent preset `{preset}` has no Agent Client Protocol mode (`task_via: acp`); run its ACP adapter as an `agent.command` with `task_via: acp`"
    )]
    NoAcp { preset: AgentPreset },
    #[error("agent preset `{preset}` has no `{dialect}` dialect (it has: {has})")]
    Dialect {
        preset: AgentPreset,
        dialect: Dialect,
        has: String,
    },
}

/// The install script's folder of binaries, absolute: a relative
/// `AGENT_EVAL_AGENTS_DIR` (or `HOME`) is taken from the folder agent-eval
/// was started in, never from a run's workspace, where the command runs
/// (a scenario's fixture could otherwise plant the CLI that runs).
pub fn agents_bin_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("AGENT_EVAL_AGENTS_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".cache/agent-eval/agents"),
    };
    Some(absolute(dir)?.join("node_modules/.bin"))
}

/// `path` made absolute against the current folder (the invocation's:
/// agent-eval never changes it), `None` if that cannot be read.
fn absolute(path: PathBuf) -> Option<PathBuf> {
    if path.is_absolute() {
        Some(path)
    } else {
        std::path::absolute(&path).ok()
    }
}

/// Where `binary` is: the install script's folder, then `PATH`; always an
/// absolute path (a relative `PATH` entry such as `.` is taken from the
/// invocation's folder, as the lookup itself was).
pub fn find_binary(binary: &str) -> Option<PathBuf> {
    let installed = agents_bin_dir().map(|dir| dir.join(binary));
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .filter_map(|dir| absolute(dir.join(binary)));
    installed
        .into_iter()
        .chain(on_path)
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The binary of `preset` (of its ACP mode with `acp`), or the error
/// naming the install command.
pub fn binary_of(preset: AgentPreset, acp: bool) -> Result<PathBuf, PresetError> {
    let binary = match acp {
        true => of(preset)
            .acp_binary()
            .ok_or(PresetError::NoAcp { preset })?,
        false => of(preset).binary(),
    };
    find_binary(binary).ok_or_else(|| PresetError::Missing {
        preset,
        binary,
        looked: agents_bin_dir().map_or_else(|| "(no HOME)".into(), |d| d.display().to_string()),
    })
}

/// Settles a scenario's agent once `--agent` has been applied: outside-agent
/// keys still without a command are refused at `agent:`'s line. For a
/// preset (nothing more to do otherwise): the agent's default dialect when
/// none is set, every dialect set checked,
/// the agent's own reminder policy in place of the built-in one. With
/// `require_binary`, a missing CLI is an error too.
pub fn settle(scenario: &mut Scenario, require_binary: bool) -> Result<(), LoadError> {
    if let Some((at, message)) = scenario.agent.awaiting_command_error() {
        return Err(LoadError::new(&scenario.file, at, message));
    }
    let Some(name) = scenario.agent.preset else {
        return Ok(());
    };
    let preset = of(name);
    let error = |position, e: PresetError| LoadError::new(&scenario.file, position, e.to_string());
    let acp = scenario.agent.preset_acp;
    if acp && preset.acp_binary().is_none() {
        return Err(error(None, PresetError::NoAcp { preset: name }));
    }
    if require_binary {
        binary_of(name, acp).map_err(|e| error(None, e))?;
    }
    // Over ACP every part is a prompt of one session.
    if scenario.session && !acp && preset.session_options().is_none() {
        let at = scenario.session_position;
        return Err(error(at, PresetError::NoSessions { preset: name }));
    }
    let has = preset.dialects();
    let lacks = |dialect: Dialect| PresetError::Dialect {
        preset: name,
        dialect,
        has: has.iter().map(|d| d.name()).collect::<Vec<_>>().join(", "),
    };
    match scenario.agent.dialect_set_at {
        Some(at) if !has.contains(&scenario.agent.dialect) => {
            return Err(error(Some(at), lacks(scenario.agent.dialect)));
        }
        Some(_) => {}
        None => {
            if let Some(&first) = has.first() {
                scenario.agent.dialect = first;
            }
        }
    }
    for (axis, values) in &scenario.runs.axes {
        for value in values {
            if let (Axis::Dialect, AxisValue::Dialect(d)) = (axis, value)
                && !has.contains(d)
            {
                return Err(error(scenario.runs_position, lacks(*d)));
            }
        }
    }
    // The agent keeps its own reminders: the built-in settings of them do
    // not apply, and the cells show the agent's policy.
    scenario.agent.reminder = preset.own_reminder();
    scenario.agent.placement = Default::default();
    scenario
        .runs
        .axes
        .retain(|(axis, _)| !OWN_POLICY_AXES.contains(axis));
    Ok(())
}

/// The axes of agent-eval's own reminder policy: a preset keeps the
/// agent's own, so they neither vary its cells nor show in its
/// expectations.
pub const OWN_POLICY_AXES: [Axis; 3] = [Axis::Reminder, Axis::NagThreshold, Axis::Placement];

/// What the tables say of a preset's settings.
pub fn describe(preset: AgentPreset) -> String {
    format!(
        "agent: {preset} (the real CLI); reminders: {}; nag, placement, reminder: n/a (agent's own)",
        of(preset).own_reminder_words()
    )
}

/// The outside-agent command of one run of `preset` with the cell's
/// `todo` and `dialect`, `env` and `timeout_s` the scenario gave added.
pub fn agent_command(
    preset: AgentPreset,
    binary: &Path,
    cell: (bool, Dialect),
    session: bool,
    env: &std::collections::BTreeMap<String, String>,
    timeout_s: Option<u64>,
) -> AgentCommand {
    agent_command_in(preset, binary, cell, (session, false), env, timeout_s)
}

/// [`agent_command`] in the preset's ACP mode when `mode.1` is set (and it
/// has one; else as [`agent_command`]): `binary` is then its ACP binary.
pub fn agent_command_in(
    preset: AgentPreset,
    binary: &Path,
    cell: (bool, Dialect),
    mode: (bool, bool),
    env: &std::collections::BTreeMap<String, String>,
    timeout_s: Option<u64>,
) -> AgentCommand {
    let (todo, dialect) = cell;
    let (session, acp) = mode;
    let acp_agent = acp
        .then(|| of(preset).acp_command_line(binary, todo, dialect))
        .flatten();
    let over_acp = acp_agent.is_some();
    let mut agent = acp_agent.unwrap_or_else(|| of(preset).command_line(binary, todo, dialect));
    if over_acp {
        agent.task_via = TaskVia::Acp;
    } else if session && let Some(options) = of(preset).session_options() {
        agent.command = format!("{} {options}", agent.command);
        agent.task_via = TaskVia::StreamJson;
    }
    agent.reminder_pattern = of(preset).reminder_text(dialect).map(str::to_string);
    agent.reminder_pattern_only = true;
    for (key, value) in env {
        agent.env.insert(key.clone(), value.clone());
    }
    if let Some(timeout) = timeout_s {
        agent.timeout_s = timeout;
    }
    agent
}

/// `text` quoted for `sh`.
pub(crate) fn sh_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// How long a preset run may take unless the scenario says (a run costs
/// about the CLI's start-up, a second or two).
pub const DEFAULT_TIMEOUT_S: u64 = 300;

/// The shell assignments that put every place a CLI reads its settings or
/// keeps its state in the run's throwaway home (`.agent-home` in the
/// workspace): `HOME`, `TMPDIR`, the XDG folders, `CLAUDE_CONFIG_DIR`,
/// `CODEX_HOME`. Set on the command line, after the scenario's `env` and
/// whatever the user exported, so a preset never reads or writes the
/// user's real agent configuration.
pub(crate) const THROWAWAY_HOME: &str = concat!(
    "mkdir -p \"$PWD/.agent-home/tmp\" && ",
    "HOME=\"$PWD/.agent-home\" TMPDIR=\"$PWD/.agent-home/tmp\" ",
    "XDG_CONFIG_HOME=\"$PWD/.agent-home/.config\" XDG_DATA_HOME=\"$PWD/.agent-home/.local/share\" ",
    "XDG_STATE_HOME=\"$PWD/.agent-home/.local/state\" XDG_CACHE_HOME=\"$PWD/.agent-home/.cache\" ",
    "CLAUDE_CONFIG_DIR=\"$PWD/.agent-home/.claude\" CODEX_HOME=\"$PWD/.agent-home/codex\""
);

/// The environment every preset sets: no telemetry, no update checks.
pub(crate) const QUIET_ENV: [(&str, &str); 4] = [
    ("DISABLE_TELEMETRY", "1"),
    ("DISABLE_AUTOUPDATER", "1"),
    ("DISABLE_ERROR_REPORTING", "1"),
    ("NO_UPDATE_NOTIFIER", "1"),
];

/// A preset's run of `command`: the presets' timeout, the agent's own
/// variables `own_env` and [`QUIET_ENV`], the task given `via`.
pub(crate) fn quiet_command(
    command: String,
    via: TaskVia,
    own_env: &[(&str, &str)],
) -> AgentCommand {
    let mut agent = AgentCommand::new(command);
    agent.task_via = via;
    agent.timeout_s = DEFAULT_TIMEOUT_S;
    for (key, value) in own_env.iter().chain(&QUIET_ENV) {
        agent.env.insert((*key).into(), (*value).into());
    }
    agent
}

#[cfg(test)]
mod tests;
