//! One run of an external agent: a per-run mock server, the agent command
//! in the workspace, and the metrics read off the wire.
//!
//! The agent runs as `sh -c COMMAND` through [`crate::sandbox::process`]:
//! PID 1 of its own PID namespace where the kernel allows it (so every
//! process it starts dies with it, even one that left its session and
//! cleared its environment), else the leader of its own process group; cwd =
//! the workspace and agent-eval's environment minus every `ANTHROPIC_*` and
//! `OPENAI_*` variable and every credential-like one
//! (`crate::sandbox::secrets`: a real key never reaches it), plus:
//! `ANTHROPIC_BASE_URL` (`http://127.0.0.1:PORT`), `ANTHROPIC_API_KEY` (a
//! dummy), `OPENAI_BASE_URL` (`http://127.0.0.1:PORT/v1`),
//! `OPENAI_API_KEY` (a dummy), `MODEL_ID`, `NO_PROXY`/`no_proxy` extended
//! with the loopback names, then the command's own `env`. The task goes on
//! stdin followed by end of input (`task_via: stdin`, the default), as the
//! last argument of the command (`arg`: run as `COMMAND "$@"`), or in
//! `AGENT_TASK` (`env`); stdin is empty unless it carries the task.
//! stdout and stderr go, interleaved, to one log. No Landlock sandbox by
//! default: the agent must reach the mock server over loopback TCP and
//! write its HOME; `sandbox: true` applies one that allows exactly the
//! mock server's port and writes beneath the workspace, and gives the agent
//! a `/proc` of its own PID namespace (it sees no other process).
//!
//! The run ends when the agent exits; or when the model is done (its last
//! response ended the turn, or the script ran out) and no request came for
//! the grace period ([`DEFAULT_GRACE`]): the agent then gets SIGTERM and,
//! a second later, SIGKILL; or at the timeout (SIGKILL). Whatever ends it,
//! the agent's whole tree is gone before this returns: the namespace dies
//! with its PID 1; in the fallback the group is killed, and so is every
//! process that left the group but still carries the run's mark
//! (`AGENT_EVAL_RUN_MARK`, inherited through the environment).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Duration;

use crate::acp::{AcpClient, AcpReport, AcpTalk};
use crate::agent::StopKind;
use crate::cancel::CancelToken;
use crate::llm::{Message, Model};
use crate::plan::dialect::Dialect;
use crate::sandbox::process::{self, Invocation, Limits, ProcessError};
use crate::scenario::{AgentCommand, TaskVia};
use crate::wire::WireError;
use crate::wire::observed::{ObservedRun, ReminderMarks, observe_run_marked, transcript};
use crate::wire::record::Exchange;
use crate::wire::server::{MockServer, RunningServer, ServerOptions};

/// How long a finished run waits for the agent to exit by itself.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(2);

/// Where each line of `text` ends (byte offsets just past its newline).
fn message_ends(text: &str) -> Vec<usize> {
    text.match_indices('\n').map(|(at, _)| at + 1).collect()
}

/// Between SIGTERM and SIGKILL.
const TERM_BOUND: Duration = Duration::from_secs(1);

/// The log kept in memory (the file keeps everything).
pub const LOG_CAP: u64 = 1 << 20;

/// The dummy key the agent gets.
pub const DUMMY_KEY: &str = "agent-eval-dummy-key";

/// One run's inputs besides the model.
#[derive(Debug, Clone)]
pub struct ExternalRun<'a> {
    /// The prepared workspace (the agent's cwd).
    pub workspace: &'a Path,
    pub task: &'a str,
    /// A session's parts, in order (empty: `task` alone). Sent one a line
    /// on stdin (`task_via: lines`).
    pub parts: &'a [String],
    pub agent: &'a AgentCommand,
    /// The planning design the metrics read (`todo_calls`, rejections).
    pub dialect: Dialect,
    /// The loop's turn cap, enforced at the server.
    pub max_turns: Option<usize>,
    /// Whether the cell offers planning: when it does not, the server
    /// withholds the dialect's planning tools from the model
    /// (`ServerOptions::withheld_planning`).
    pub planning: bool,
    /// `MODEL_ID` and the id `/v1/models` lists.
    pub model_id: &'a str,
    /// Where the agent's stdout/stderr go (else a temporary file).
    pub log_path: Option<&'a Path>,
    pub grace: Duration,
}

impl<'a> ExternalRun<'a> {
    pub fn new(workspace: &'a Path, task: &'a str, agent: &'a AgentCommand) -> Self {
        Self {
            workspace,
            task,
            parts: &[],
            agent,
            dialect: Dialect::default(),
            max_turns: None,
            planning: true,
            model_id: "agent-eval-mock",
            log_path: None,
            grace: DEFAULT_GRACE,
        }
    }
}

/// What one external run gave.
#[derive(Debug, Clone)]
pub struct ExternalOutcome {
    pub observed: ObservedRun,
    /// The conversation in the Anthropic shape (last request + last
    /// response), comparable with the built-in loop's.
    pub transcript: Vec<Message>,
    /// stdout and stderr, interleaved (the first [`LOG_CAP`] bytes).
    pub log: String,
    /// The agent's exit code (`None`: ended by a signal).
    pub exit_code: Option<i32>,
    /// Whether the agent was stopped after the grace period.
    pub stopped_after_grace: bool,
    pub exchanges: Vec<Exchange>,
    /// What the ACP conversation gave (`task_via: acp`).
    pub acp: Option<AcpReport>,
}

impl ExternalOutcome {
    pub fn stop(&self) -> StopKind {
        self.observed.stop
    }
}

/// Runs the agent once against `model`.
pub fn run_external(
    model: Box<dyn Model + Send>,
    run: &ExternalRun<'_>,
) -> Result<ExternalOutcome, WireError> {
    let server = MockServer::start(
        model,
        ServerOptions {
            model_id: run.model_id.to_string(),
            max_turns: run.max_turns,
            workspace: Some(run.workspace.to_path_buf()),
            withheld_planning: (!run.planning).then_some(run.dialect),
            ..ServerOptions::default()
        },
    )?;
    let mut log = open_log(run)?;
    // Every process the agent starts inherits this mark (unless it clears
    // its environment): where PID namespaces are missing, strays that left
    // the process group are found by it after the run.
    let run_mark = format!("{}:{}", std::process::id(), server.addr().port());
    let env = agent_env(run, &server, &run_mark);
    let (command, args) = command_and_args(run);
    let ruleset = if run.agent.sandbox {
        crate::sandbox::landlock::agent_ruleset(run.workspace, server.addr().port())
            .map_err(|e| spawn_error(run, std::io::Error::other(e.to_string())))?
    } else {
        None
    };
    let stdin = if run.parts.is_empty() {
        run.agent
            .task_via
            .stdin_text(std::slice::from_ref(&run.task.to_string()))
    } else {
        run.agent.task_via.stdin_text(run.parts)
    };
    // A JSON stream takes a session's messages one at a time: each is
    // written once the model has ended its turn on the one before (a
    // message queued while the agent works would not be answered).
    let message_ends = match run.agent.task_via {
        TaskVia::StreamJson => message_ends(stdin.as_deref().unwrap_or_default()),
        _ => Vec::new(),
    };
    let released = || {
        let answered = server.turns_ended();
        message_ends
            .get(answered)
            .copied()
            .unwrap_or_else(|| message_ends.last().copied().unwrap_or_default())
    };
    // Done only once the last message got its answer too.
    let all_answered = || message_ends.len() <= server.turns_ended();
    let model_done = || server.finished() && all_answered() && server.idle_for() >= run.grace;
    // Over ACP the run ends when the last prompt is answered (or the
    // conversation failed), not after a quiet grace period.
    let acp = (run.agent.task_via == TaskVia::Acp).then(|| acp_talk(run, &env, &server, &log));
    let acp_over = || acp.as_ref().is_some_and(AcpTalk::finished);
    let stop_requested = || match &acp {
        Some(_) => acp_over(),
        None => model_done(),
    };
    let invocation = Invocation {
        args,
        env: Some(env),
        stdin: stdin.map(String::into_bytes),
        stdin_release: (!message_ends.is_empty()).then_some(&released as &dyn Fn() -> usize),
        log: Some(&log),
        stop_requested: Some(&stop_requested),
        term_grace: TERM_BOUND,
        ruleset: ruleset.as_ref(),
        // A sandboxed agent sees only its own processes in /proc.
        own_proc: run.agent.sandbox,
        conversation: acp.as_ref().map(|talk| talk as _),
    };
    let limits = Limits {
        timeout: Duration::from_secs(run.agent.timeout_s),
        // Everything goes to the log; nothing is kept in memory here.
        capture_limit: 0,
        cancel: CancelToken::process(),
        sandbox: false,
        containment: None,
    };
    let result = process::run_invocation(run.workspace, &command, &invocation, &limits);
    // Only the fallback containment can leave a daemon behind: one that
    // left the group still carries the run's mark.
    kill_marked(&run_mark);
    let ended = process_end(run, result);
    let acp = acp.map(|talk| match &ended {
        Ok(end) => talk.conclude(end.exit_code, end.timed_out),
        Err(_) => talk.conclude(None, false),
    });
    let exchanges = server.stop();
    let ended = ended?;
    let log = read_log(&mut log).map_err(|e| log_error(run, e))?;
    Ok(ExternalOutcome {
        observed: observe(run, &exchanges, ended.timed_out),
        transcript: transcript(&exchanges),
        log,
        exit_code: ended.exit_code,
        stopped_after_grace: ended.stopped_after_grace,
        exchanges,
        acp,
    })
}

/// The ACP client of a run: the scenario's parts (or its task) in the
/// workspace, each prompt bounded by the agent's timeout, plans stamped
/// with the model responses served so far.
fn acp_talk<'a>(
    run: &ExternalRun<'_>,
    env: &BTreeMap<OsString, OsString>,
    server: &'a RunningServer,
    log: &'a File,
) -> AcpTalk<'a> {
    let parts = if run.parts.is_empty() {
        vec![run.task.to_string()]
    } else {
        run.parts.to_vec()
    };
    let env_names = env
        .iter()
        .filter(|(_, value)| !value.is_empty())
        .map(|(key, _)| key.to_string_lossy().into_owned())
        .collect();
    let client = AcpClient::new(
        parts,
        run.workspace.to_string_lossy().into_owned(),
        env_names,
        Duration::from_secs(run.agent.timeout_s),
        Box::new(|| server.turns()),
    );
    AcpTalk::new(client, Some(log))
}

/// The run's log of the agent's output: the file asked for, or an unnamed
/// temporary one.
fn open_log(run: &ExternalRun<'_>) -> Result<File, WireError> {
    match run.log_path {
        Some(path) => File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path),
        None => tempfile::tempfile(),
    }
    .map_err(|source| log_error(run, source))
}

/// The agent's environment: ours without any API settings or
/// credential-like variable (`crate::sandbox::secrets`), the mock
/// endpoint's base URLs and dummy keys, loopback kept off any proxy, the
/// task when it goes by environment, the command's own variables, and the
/// run's mark last.
fn agent_env(
    run: &ExternalRun<'_>,
    server: &RunningServer,
    run_mark: &str,
) -> BTreeMap<OsString, OsString> {
    let mut env: BTreeMap<OsString, OsString> = std::env::vars_os()
        .filter(|(key, _)| {
            let name = key.as_bytes();
            !name.starts_with(b"ANTHROPIC_")
                && !name.starts_with(b"OPENAI_")
                && !crate::sandbox::secrets::is_credential(key)
        })
        .collect();
    let no_proxy = match std::env::var("NO_PROXY").or_else(|_| std::env::var("no_proxy")) {
        Ok(existing) if !existing.is_empty() => format!("{existing},127.0.0.1,localhost"),
        _ => "127.0.0.1,localhost".to_string(),
    };
    let mut set = |key: &str, value: &str| {
        env.insert(key.into(), value.into());
    };
    set("ANTHROPIC_BASE_URL", &server.base_url());
    set("ANTHROPIC_API_KEY", DUMMY_KEY);
    set("OPENAI_BASE_URL", &server.openai_base_url());
    set("OPENAI_API_KEY", DUMMY_KEY);
    set("MODEL_ID", run.model_id);
    set("NO_PROXY", &no_proxy);
    set("no_proxy", &no_proxy);
    if run.agent.task_via == TaskVia::Env {
        set("AGENT_TASK", run.task);
    }
    for (key, value) in &run.agent.env {
        set(key, value);
    }
    // Set last: the mark is how strays are found, whatever the command's
    // env says (a scenario's is refused at load; a library caller's too).
    set(RUN_MARK_VAR, run_mark);
    env
}

/// The shell command and its arguments: the task as `$1` when it goes as
/// an argument.
fn command_and_args(run: &ExternalRun<'_>) -> (String, Vec<String>) {
    match run.agent.task_via {
        TaskVia::Arg => (
            format!("{} \"$@\"", run.agent.command),
            vec!["agent-eval".to_string(), run.task.to_string()],
        ),
        TaskVia::Stdin | TaskVia::Env | TaskVia::Lines | TaskVia::StreamJson | TaskVia::Acp => {
            (run.agent.command.clone(), Vec::new())
        }
    }
}

fn spawn_error(run: &ExternalRun<'_>, source: std::io::Error) -> WireError {
    WireError::Spawn {
        command: run.agent.command.clone(),
        source,
    }
}

/// How the agent's process ended.
struct ProcessEnd {
    exit_code: Option<i32>,
    timed_out: bool,
    stopped_after_grace: bool,
}

/// The process's end, or the error that ends the run (interrupted, or the
/// agent could not start).
fn process_end(
    run: &ExternalRun<'_>,
    result: Result<process::Output, ProcessError>,
) -> Result<ProcessEnd, WireError> {
    let (exit_code, timed_out, stopped_after_grace) = match result {
        Ok(output) => (output.exit_code, false, output.stopped),
        Err(ProcessError::Timeout) => (None, true, false),
        Err(ProcessError::Cancelled) => return Err(WireError::Interrupted),
        Err(ProcessError::Sandbox(e)) => {
            return Err(spawn_error(run, std::io::Error::other(e.to_string())));
        }
        Err(ProcessError::Spawn(source)) => return Err(spawn_error(run, source)),
    };
    Ok(ProcessEnd {
        exit_code,
        timed_out,
        stopped_after_grace,
    })
}

/// The run's metrics, read off the wire with the agent's reminder marks.
fn observe(run: &ExternalRun<'_>, exchanges: &[Exchange], timed_out: bool) -> ObservedRun {
    let pattern = run.agent.reminder_pattern.as_deref();
    let marks = if run.agent.reminder_pattern_only {
        ReminderMarks::Exactly(pattern.unwrap_or(""))
    } else {
        ReminderMarks::Tagged(pattern)
    };
    observe_run_marked(
        exchanges,
        run.dialect.get(),
        marks,
        Some(run.workspace),
        timed_out,
    )
}

fn log_error(run: &ExternalRun<'_>, source: std::io::Error) -> WireError {
    WireError::Log {
        path: run
            .log_path
            .map_or_else(|| "(temporary file)".into(), Path::to_path_buf),
        source,
    }
}

fn read_log(log: &mut File) -> std::io::Result<String> {
    log.seek(SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    log.take(LOG_CAP).read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The variable that marks every process of one external run.
pub use crate::scenario::RUN_MARK_VAR;

/// Kills every process of ours whose environment carries `mark` (read from
/// `/proc/PID/environ`), until none is left or a few rounds have passed (a
/// process may fork while it is being looked for).
fn kill_marked(mark: &str) {
    let needle = format!("{RUN_MARK_VAR}={mark}\0");
    for _ in 0..5 {
        let Some(procs) = process::other_processes() else {
            return;
        };
        let mut found = false;
        for (pid, folder) in procs {
            let Ok(environ) = std::fs::read(folder.join("environ")) else {
                continue;
            };
            if environ
                .windows(needle.len())
                .any(|w| w == needle.as_bytes())
                && let Ok(pid) = libc::pid_t::try_from(pid)
            {
                found = true;
                // SAFETY: kill has no memory-safety preconditions; the pid
                // is a process of ours that carries this run's mark.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
        if !found {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
