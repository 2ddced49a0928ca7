//! Containment of everything agent-eval starts: an external agent's whole
//! tree (even a daemon that double-forked, closed its descriptors, left its
//! session and cleared its environment) is gone when the run ends, whether
//! the agent exited or timed out; stdin carries the task then end of input;
//! the environment has no real key; an early-stop request ends a command
//! with SIGTERM, then SIGKILL, keeping its output.

use crate::support;

use agent_eval::agent::StopKind;
use agent_eval::cancel::CancelToken;
use agent_eval::eval::execute::agent_process::{ExternalOutcome, ExternalRun, run_external};
use agent_eval::llm::{ContentBlock, Model, ModelError, ModelRequest, ModelResponse};
use agent_eval::sandbox::process::{self, Containment, Invocation, Limits};
use agent_eval::scenario::{AgentCommand, TaskVia};
use std::path::Path;
use std::time::Duration;

/// Ends its turn at once.
struct Done;

impl Model for Done {
    fn respond(&mut self, _: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        Ok(ModelResponse::from_blocks(vec![ContentBlock::text("ok")]))
    }
}

fn external(workspace: &Path, command: &str, task: &str, timeout_s: u64) -> ExternalOutcome {
    let mut agent = AgentCommand::new(command);
    agent.task_via = TaskVia::Stdin;
    agent.timeout_s = timeout_s;
    let mut run = ExternalRun::new(workspace, task, &agent);
    run.grace = Duration::from_millis(300);
    run_external(Box::new(Done), &run).unwrap()
}

/// A command that double-forks a daemon which closes its descriptors,
/// starts a new session and clears its environment (no run mark left),
/// then sleeps `sleep` seconds; the daemon creates `started` first.
fn daemon_command(sleep: &str) -> String {
    format!(
        "( setsid /usr/bin/env -i /bin/sh -c \
         'exec 0<&- 1>&- 2>&-; : > started; exec /bin/sleep {sleep}' & ); \
         while [ ! -e started ]; do sleep 0.05; done"
    )
}

fn namespaces_available() -> bool {
    if process::containment() == Containment::ProcessGroup {
        support::skip_unless_required(
            "no PID namespaces here; a daemon that leaves the group and clears \
             its environment can outlive the run (documented)",
        );
        return false;
    }
    true
}

#[test]
fn a_daemon_that_closed_its_fds_left_its_session_and_cleared_its_environment_dies_with_the_run() {
    if !namespaces_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sleep = support::unique_sleep(1);
    let command = format!("{}; exit 0", daemon_command(&sleep));
    let outcome = external(dir.path(), &command, "the task", 60);
    assert_eq!(outcome.exit_code, Some(0), "{}", outcome.log);
    assert_eq!(outcome.observed.stop, StopKind::AgentExit);
    assert!(dir.path().join("started").exists(), "the daemon never ran");
    // The agent exited: PID 1 of its namespace is gone, so the daemon was
    // killed before the run returned (a zombie at worst, reaped by init).
    assert_eq!(
        support::processes_running(&sleep),
        Vec::<u32>::new(),
        "the daemon outlived the run"
    );
}

#[test]
fn the_timeout_kills_the_whole_tree_daemon_included() {
    if !namespaces_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sleep = support::unique_sleep(2);
    let foreground = support::unique_sleep(3);
    let command = format!("{}; /bin/sleep {foreground}", daemon_command(&sleep));
    let outcome = external(dir.path(), &command, "the task", 2);
    assert_eq!(outcome.observed.stop, StopKind::Timeout, "{}", outcome.log);
    assert_eq!(outcome.exit_code, None);
    assert!(dir.path().join("started").exists(), "the daemon never ran");
    assert_eq!(
        support::gone_soon(&sleep),
        Vec::<u32>::new(),
        "the daemon survived"
    );
    assert_eq!(support::gone_soon(&foreground), Vec::<u32>::new());
}

#[test]
fn stdin_carries_the_whole_task_then_end_of_input() {
    let dir = tempfile::tempdir().unwrap();
    // Larger than a pipe's buffer: the writer must not block the run.
    let task: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    let outcome = external(dir.path(), "cat > got; echo \"eof:$?\"", &task, 60);
    assert_eq!(outcome.exit_code, Some(0), "{}", outcome.log);
    assert_eq!(outcome.log, "eof:0\n");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("got")).unwrap(),
        task
    );
}

#[test]
fn an_agent_that_never_reads_stdin_does_not_block_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let task = "x".repeat(1 << 20);
    let outcome = external(dir.path(), "echo done", &task, 60);
    assert_eq!(outcome.exit_code, Some(0));
    assert_eq!(outcome.log, "done\n");
}

/// Run by [`the_environment_is_scrubbed_of_real_keys`] in a child test
/// process whose environment holds real-looking keys (so no test of this
/// binary has to change its own environment while others run).
#[test]
#[ignore = "run by the_environment_is_scrubbed_of_real_keys"]
fn containment_environment_inner() {
    if std::env::var("ANTHROPIC_AUTH_TOKEN").as_deref() != Ok("real-secret") {
        println!("SKIPPED: run only by the_environment_is_scrubbed_of_real_keys");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let outcome = external(dir.path(), "env | sort", "t", 60);
    let log = &outcome.log;
    assert!(!log.contains("real-secret"), "{log}");
    assert!(!log.contains("real-org"), "{log}");
    assert!(!log.contains("https://real.example"), "{log}");
    assert!(
        log.contains("ANTHROPIC_API_KEY=agent-eval-dummy-key"),
        "{log}"
    );
    assert!(
        log.contains("ANTHROPIC_BASE_URL=http://127.0.0.1:"),
        "{log}"
    );
    assert!(log.contains("OPENAI_API_KEY=agent-eval-dummy-key"), "{log}");
    assert!(log.contains("KEEP_ME=kept"), "{log}");
    for line in log.lines() {
        if line.starts_with("ANTHROPIC_") || line.starts_with("OPENAI_") {
            assert!(
                line.starts_with("ANTHROPIC_API_KEY=")
                    || line.starts_with("ANTHROPIC_BASE_URL=")
                    || line.starts_with("OPENAI_API_KEY=")
                    || line.starts_with("OPENAI_BASE_URL="),
                "a variable of the caller's leaked: {line}"
            );
        }
    }
    println!("INNER-CHECKED");
}

#[test]
fn the_environment_is_scrubbed_of_real_keys() {
    // The variables are set in a process of its own: setting them here
    // would reach every test running beside this one.
    let stdout = support::run_alone(
        module_path!(),
        "containment_environment_inner",
        &[
            ("ANTHROPIC_AUTH_TOKEN", "real-secret"),
            ("ANTHROPIC_BASE_URL", "https://real.example"),
            ("OPENAI_ORG_ID", "real-org"),
            ("KEEP_ME", "kept"),
        ],
    );
    assert!(stdout.contains("INNER-CHECKED"), "{stdout}");
}

fn limits(timeout: Duration) -> Limits {
    Limits {
        timeout,
        capture_limit: 1 << 16,
        cancel: CancelToken::new(),
        sandbox: false,
        containment: None,
    }
}

#[test]
fn an_early_stop_sends_sigterm_and_keeps_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    let asked = || ready.exists();
    let invocation = Invocation {
        stop_requested: Some(&asked),
        term_grace: Duration::from_secs(30),
        ..Invocation::default()
    };
    let command = "trap 'echo got-term; exit 3' TERM; echo before; : > ready; \
                   while :; do sleep 0.05; done";
    let output = process::run_invocation(
        dir.path(),
        command,
        &invocation,
        &limits(Duration::from_secs(60)),
    )
    .unwrap();
    assert!(output.stopped);
    assert_eq!(output.exit_code, Some(3));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "before\ngot-term\n"
    );
}

#[test]
fn an_early_stop_ignored_by_the_command_ends_in_sigkill_after_the_grace() {
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    let asked = || ready.exists();
    let invocation = Invocation {
        stop_requested: Some(&asked),
        term_grace: Duration::from_millis(300),
        ..Invocation::default()
    };
    let command = "trap '' TERM; echo before; : > ready; while :; do sleep 0.05; done";
    let output = process::run_invocation(
        dir.path(),
        command,
        &invocation,
        &limits(Duration::from_secs(60)),
    )
    .unwrap();
    assert!(output.stopped);
    assert_eq!(output.exit_code, None, "killed by a signal");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "before\n");
}

#[test]
fn an_invocation_has_arguments_its_own_environment_and_a_log() {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("log");
    let log = std::fs::File::create(&log_path).unwrap();
    let invocation = Invocation {
        args: vec!["name".into(), "first arg".into()],
        env: Some([("ONLY".into(), "this".into())].into_iter().collect()),
        log: Some(&log),
        ..Invocation::default()
    };
    let output = process::run_invocation(
        dir.path(),
        "echo \"$0|$1|$ONLY|${HOME:-no-home}\"; echo err >&2",
        &invocation,
        &Limits {
            capture_limit: 4,
            ..limits(Duration::from_secs(60))
        },
    )
    .unwrap();
    assert_eq!(output.exit_code, Some(0));
    assert!(!output.stopped);
    // The capture is capped; the log has everything.
    assert_eq!(output.stdout, b"name");
    assert_eq!(output.stderr, b"err\n");
    let logged = std::fs::read_to_string(&log_path).unwrap();
    assert!(logged.contains("name|first arg|this|no-home\n"), "{logged}");
    assert!(logged.contains("err\n"), "{logged}");
}

#[test]
fn a_sandboxed_agent_reaches_only_its_mock_server_and_writes_only_its_workspace() {
    let status = agent_eval::sandbox::landlock::status();
    if !status.is_full() {
        support::skip_unless_required(&status.to_string());
        return;
    }
    if support::command("curl").arg("--version").output().is_err() {
        support::skip_unless_required("curl is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    // Another loopback server: the sandbox must refuse to connect to it.
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let other_port = other.local_addr().unwrap().port();
    let command = format!(
        "curl -s -o /dev/null -w 'mock:%{{http_code}}\\n' \"$ANTHROPIC_BASE_URL/v1/models\"; \
         curl -s -m 5 -o /dev/null http://127.0.0.1:{other_port}/ || echo other:refused; \
         touch inside && echo inside:ok; \
         touch '{}/escaped' 2>/dev/null || echo outside:refused",
        outside.path().display()
    );
    let mut agent = AgentCommand::new(command);
    agent.sandbox = true;
    let mut run = ExternalRun::new(dir.path(), "t", &agent);
    run.grace = Duration::from_millis(300);
    let outcome = run_external(Box::new(Done), &run).unwrap();
    let log = &outcome.log;
    assert!(log.contains("mock:200"), "{log}");
    assert!(log.contains("other:refused"), "{log}");
    assert!(log.contains("inside:ok"), "{log}");
    assert!(log.contains("outside:refused"), "{log}");
    assert!(!outside.path().join("escaped").exists());
    drop(other);
}

#[test]
fn the_process_group_fallback_also_feeds_stdin_logs_and_stops_early() {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("log");
    let log = std::fs::File::create(&log_path).unwrap();
    let ready = dir.path().join("ready");
    let asked = || ready.exists();
    let invocation = Invocation {
        stdin: Some(b"from stdin".to_vec()),
        log: Some(&log),
        stop_requested: Some(&asked),
        term_grace: Duration::from_millis(300),
        ..Invocation::default()
    };
    let command = "cat; echo; : > ready; sleep 300 & sleep 300";
    let output = process::run_invocation(
        dir.path(),
        command,
        &invocation,
        &Limits {
            containment: Some(Containment::ProcessGroup),
            ..limits(Duration::from_secs(60))
        },
    )
    .unwrap();
    assert!(output.stopped);
    assert_eq!(output.stdout, b"from stdin\n");
    assert_eq!(std::fs::read_to_string(&log_path).unwrap(), "from stdin\n");
}

/// A gated stdin hands its bytes over only as they are released: the
/// second line waits until the command has answered the first, and stdin
/// closes once every byte is written (so `cat` ends).
#[test]
fn a_gated_stdin_hands_over_each_message_once_released() {
    let dir = tempfile::tempdir().unwrap();
    let answered = dir.path().join("first");
    let released = || {
        if answered.exists() { 13 } else { 6 }
    };
    let invocation = Invocation {
        stdin: Some(b"one 1\ntwo 22\n".to_vec()),
        stdin_release: Some(&released),
        ..Invocation::default()
    };
    // While the first line is unanswered nothing more arrives: `early`
    // stays empty (were the gate open, the second line would be in it).
    let command = "read a; timeout 0.3 cat > early; echo \"$a\" > first; cat > rest";
    let output = process::run_invocation(
        dir.path(),
        command,
        &invocation,
        &limits(Duration::from_secs(60)),
    )
    .unwrap();
    assert_eq!(output.exit_code, Some(0));
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    assert_eq!(read("first"), "one 1\n");
    assert_eq!(read("early"), "");
    assert_eq!(read("rest"), "two 22\n");
}
