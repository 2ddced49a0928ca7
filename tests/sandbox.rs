//! Processes and the sandbox: nothing a command starts outlives its call,
//! the timeout covers reading the output, cancellation is not a timeout,
//! and Landlock keeps writes in the workspace, TCP off and signals in.
//!
//! Each test finishes in seconds. Survivors are found by an exact argument
//! in /proc/*/cmdline (`sleep 1000.1NN`, unique per test, since the tests
//! run in parallel). Where this machine lacks Landlock or namespaces, the
//! tests that need them print why and return.

use crate::support;

use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use agent_eval::agent::tools::{ToolError, run_bash, run_bash_with};
use agent_eval::cancel::{self, CancelToken};
use agent_eval::sandbox::command::{CommandError, CommandSettings, run_command, run_command_with};
use agent_eval::sandbox::landlock::{self, SandboxStatus};
use agent_eval::sandbox::process::{self, Containment};

/// Generous: only a hang (the bug) comes near it.
const LONG: Duration = Duration::from_secs(60);

fn alive(marker: &str) -> bool {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return false;
    };
    procs.flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline")).is_ok_and(|cmdline| {
            cmdline
                .split(|&b| b == 0)
                .any(|arg| arg == marker.as_bytes())
        })
    })
}

/// Asserts no process with `marker` is left, allowing the kernel a moment
/// to finish killing what the call already killed.
fn assert_gone(marker: &str) {
    for _ in 0..50 {
        if !alive(marker) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("a process `sleep {marker}` survived its call");
}

fn settings(containment: Containment) -> CommandSettings {
    CommandSettings {
        containment: Some(containment),
        ..CommandSettings::new(LONG)
    }
}

/// The containments to test here: the best one, and the fallback.
fn containments() -> Vec<Containment> {
    let best = process::containment();
    if best == Containment::ProcessGroup {
        eprintln!("note: PID namespaces unavailable here; testing the fallback only");
        vec![best]
    } else {
        vec![best, Containment::ProcessGroup]
    }
}

fn landlock_enforced() -> bool {
    match landlock::status() {
        SandboxStatus::Unavailable { reason } => {
            support::skip_unless_required(&format!("Landlock unavailable ({reason})"));
            false
        }
        _ => true,
    }
}

fn landlock_full() -> bool {
    let status = landlock::status();
    if !status.is_full() {
        support::skip_unless_required(&status.to_string());
    }
    status.is_full()
}

#[test]
fn a_setsid_background_job_ends_with_the_call() {
    let dir = tempfile::tempdir().unwrap();
    // Holding the output pipe: the call must still return, and kill it.
    for (n, containment) in containments().into_iter().enumerate() {
        let marker = format!("1000.10{n}");
        let out = run_bash_with(
            dir.path(),
            &format!("setsid sleep {marker} & echo started"),
            &settings(containment),
        )
        .unwrap();
        assert_eq!(out, "started", "{containment:?}");
        assert_gone(&marker);
    }
}

#[test]
fn a_double_forked_daemon_holding_the_pipe_ends_with_the_call() {
    let dir = tempfile::tempdir().unwrap();
    for (n, containment) in containments().into_iter().enumerate() {
        let marker = format!("1000.11{n}");
        let command =
            format!("(setsid sh -c 'sleep {marker}; echo late' &) ; echo started; exit 4");
        let outcome = run_command_with(dir.path(), &command, &settings(containment)).unwrap();
        assert_eq!(outcome.stdout, b"started\n", "{containment:?}");
        assert_eq!(outcome.exit_code, Some(4));
        assert_gone(&marker);
    }
}

#[test]
fn a_fully_detached_daemon_ends_with_the_call_in_a_pid_namespace() {
    if process::containment() == Containment::ProcessGroup {
        support::skip_unless_required("no PID namespaces (the fallback cannot find such a daemon)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = run_bash(
        dir.path(),
        "(setsid sleep 1000.120 </dev/null >/dev/null 2>&1 &) ; echo detached",
        LONG,
    )
    .unwrap();
    assert_eq!(out, "detached");
    assert_gone("1000.120");
}

#[test]
fn the_timeout_kills_the_tree_and_covers_reading() {
    let dir = tempfile::tempdir().unwrap();
    for (n, containment) in containments().into_iter().enumerate() {
        let (a, b) = (format!("1000.13{n}"), format!("1000.14{n}"));
        let settings = CommandSettings {
            timeout: Duration::from_millis(300),
            ..settings(containment)
        };
        // The shell waits on a job that left its session and holds stdout.
        let err = run_command_with(
            dir.path(),
            &format!("setsid sleep {a} & sleep {b}; echo never"),
            &settings,
        )
        .unwrap_err();
        assert!(matches!(err, CommandError::Timeout(_)), "{err}");
        assert_gone(&a);
        assert_gone(&b);
    }
}

#[test]
fn output_is_capped_while_read() {
    let dir = tempfile::tempdir().unwrap();
    let settings = CommandSettings {
        capture_limit: 1000,
        ..CommandSettings::new(LONG)
    };
    let outcome = run_command_with(
        dir.path(),
        "head -c 10000000 /dev/zero; head -c 5000 /dev/zero >&2; echo tail",
        &settings,
    )
    .unwrap();
    assert_eq!(outcome.stdout.len(), 1000);
    assert_eq!(outcome.stderr.len(), 1000);
    assert_eq!(outcome.exit_code, Some(0));
}

#[test]
fn cancellation_ends_the_call_promptly_and_is_not_a_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let token = CancelToken::new();
    let settings = CommandSettings {
        cancel: token.clone(),
        ..CommandSettings::new(Duration::from_secs(120))
    };
    // Cancels once the command is running (its last process is up).
    let canceller = {
        let token = token.clone();
        std::thread::spawn(move || {
            assert!(
                support::wait_for(LONG, || alive("1000.151")),
                "the command never started"
            );
            token.cancel();
        })
    };
    let err = run_bash_with(dir.path(), "sleep 1000.150 & sleep 1000.151", &settings).unwrap_err();
    canceller.join().unwrap();
    assert!(
        matches!(err, ToolError::Command(CommandError::Cancelled)),
        "{err}"
    );
    assert_eq!(err.to_string(), "Cancelled");
    assert_gone("1000.150");
    assert_gone("1000.151");

    // The next call, with its own token, is not poisoned.
    let next = CommandSettings::new(LONG);
    assert_eq!(run_bash_with(dir.path(), "echo ok", &next).unwrap(), "ok");
    // A cancelled token does not even start a command.
    let started = dir.path().join("started");
    let err = run_bash_with(dir.path(), "touch started", &settings).unwrap_err();
    assert!(matches!(err, ToolError::Command(CommandError::Cancelled)));
    assert!(!started.exists());
}

/// Ctrl-C goes through the process-wide flag, which every test of this
/// binary would see: this runs in a child process of its own.
#[test]
fn a_process_wide_cancellation_is_not_a_timeout_and_does_not_leak() {
    support::run_alone(module_path!(), "process_wide_cancellation_child", &[]);
}

#[test]
#[ignore = "run in a child process by a_process_wide_cancellation_is_not_a_timeout_and_does_not_leak"]
fn process_wide_cancellation_child() {
    let dir = tempfile::tempdir().unwrap();
    let session = cancel::Session::begin();
    // Asks once the command is running.
    let requester = std::thread::spawn(|| {
        assert!(
            support::wait_for(LONG, || alive("1000.160")),
            "the command never started"
        );
        cancel::request();
    });
    let err = run_bash(dir.path(), "sleep 1000.160", Duration::from_secs(120)).unwrap_err();
    requester.join().unwrap();
    assert_eq!(err.to_string(), "Cancelled");
    assert!(cancel::requested(), "the caller still sees the request");
    drop(session);
    // The evaluation that was cancelled is over: the next one runs.
    let _next = cancel::Session::begin();
    assert_eq!(run_bash(dir.path(), "echo again", LONG).unwrap(), "again");
    assert_gone("1000.160");
}

#[test]
fn writes_outside_the_workspace_fail() {
    if !landlock_enforced() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let kept = outside.path().join("kept");
    std::fs::write(&kept, "keep me").unwrap();
    let target = outside.path().join("elsewhere");
    let command = format!(
        "cd /; echo x > {t}; touch {t}2; mkdir {t}3; rm -f {k}; echo y >> {k}; echo done",
        t = target.display(),
        k = kept.display(),
    );
    let out = run_bash(dir.path(), &command, LONG).unwrap();
    assert!(out.contains("done"), "{out}");
    assert!(out.contains("Permission denied"), "{out}");
    for suffix in ["", "2", "3"] {
        assert!(!Path::new(&format!("{}{suffix}", target.display())).exists());
    }
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "keep me");
}

#[test]
fn the_workspace_and_dev_null_stay_writable_and_reads_work_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_bash(
        dir.path(),
        "mkdir -p a/b && echo hi > a/b/c && mv a/b/c a/d && ln -s d a/e && cat a/e && \
         echo quiet >/dev/null 2>&1 && head -c 5 /proc/version && rm -r a && ls",
        LONG,
    )
    .unwrap();
    assert_eq!(out, "hi\nLinux");
    // A check command sees the same rules.
    let outcome = run_command(dir.path(), "echo x > f && test -s f", LONG).unwrap();
    assert_eq!(outcome.exit_code, Some(0));
}

#[test]
fn kill_ppid_does_not_end_the_harness() {
    let dir = tempfile::tempdir().unwrap();
    // In a PID namespace $PPID is 0, which names the command's own group.
    let out = run_bash(
        dir.path(),
        "kill $PPID; kill -9 $PPID; echo still here",
        LONG,
    )
    .unwrap();
    assert!(out.contains("still here"), "{out}");
    let me = std::process::id();
    // A PID namespace alone (no Landlock) already hides the harness.
    if process::containment() != Containment::ProcessGroup {
        let unsandboxed = CommandSettings {
            sandbox: false,
            ..CommandSettings::new(LONG)
        };
        let outcome =
            run_command_with(dir.path(), &format!("kill -TERM {me}"), &unsandboxed).unwrap();
        assert_ne!(outcome.exit_code, Some(0));
    }
    if !landlock_full() {
        return;
    }
    // Our real pid, from inside: scoped signals refuse it.
    for containment in containments() {
        let outcome = run_command_with(
            dir.path(),
            &format!("kill -TERM {me} && kill -KILL {me}"),
            &settings(containment),
        )
        .unwrap();
        assert_ne!(outcome.exit_code, Some(0), "{containment:?}");
    }
}

#[test]
fn tcp_connect_and_bind_are_refused() {
    if !landlock_full() {
        return;
    }
    if !Path::new("/usr/bin/perl").exists() {
        support::skip_unless_required("no /usr/bin/perl to open a socket with");
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let connect = format!(
        "/usr/bin/perl -MIO::Socket::INET -e 'IO::Socket::INET->new(PeerAddr => \"127.0.0.1:{port}\") \
         or die \"refused\\n\"; print \"connected\\n\"'"
    );
    let out = run_bash(dir.path(), &connect, LONG).unwrap();
    assert_eq!(out, "refused");
    assert!(
        listener.accept().is_err(),
        "a connection reached the listener"
    );
    let bind = "/usr/bin/perl -MIO::Socket::INET -e 'IO::Socket::INET->new(LocalAddr => \
                \"127.0.0.1:0\", Listen => 1) or die \"refused\\n\"; print \"bound\\n\"'";
    assert_eq!(run_bash(dir.path(), bind, LONG).unwrap(), "refused");
}

#[test]
fn exit_codes_and_spawn_errors_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = run_command(dir.path(), "exit 3", LONG).unwrap();
    assert_eq!(outcome.exit_code, Some(3));
    // A NUL byte cannot reach execve: an error for the model, not a panic.
    let err = run_bash(dir.path(), "echo a\0b", LONG).unwrap_err();
    assert!(
        matches!(err, ToolError::Command(CommandError::Io(_))),
        "{err}"
    );
    // A workspace that is gone: an error, not a panic.
    let gone = dir.path().join("gone");
    assert!(run_command(&gone, "true", LONG).is_err());
}

/// Runs alone: it counts its process's descriptors, which the tests
/// running beside it in a shared binary open and close at any time.
#[test]
fn many_calls_leave_no_descriptor_behind() {
    support::run_alone(
        module_path!(),
        "many_calls_leave_no_descriptor_behind_alone",
        &[],
    );
}

#[test]
#[ignore = "run in a process of its own by many_calls_leave_no_descriptor_behind"]
fn many_calls_leave_no_descriptor_behind_alone() {
    let dir = tempfile::tempdir().unwrap();
    let count = || std::fs::read_dir("/proc/self/fd").unwrap().count();
    run_bash(dir.path(), "true", LONG).unwrap();
    let before = count();
    for _ in 0..50 {
        run_bash(dir.path(), "echo x; echo y >&2", LONG).unwrap();
    }
    // Ours would add 150+.
    assert!(count() < before + 20, "{before} -> {}", count());
}

/// Regression: a fallback sweep for pipe holders once killed other calls'
/// children in the instant between clone and exec (when they hold a copy
/// of every descriptor of the harness), so their output came back empty.
#[test]
fn concurrent_fallback_sweeps_do_not_disturb_other_calls() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::thread::scope(|scope| {
        for thread in 0..4 {
            scope.spawn(move || {
                for call in 0..15 {
                    if thread % 2 == 0 {
                        // Leaves a holder of the pipe: triggers a sweep.
                        let marker = format!("1000.17{thread}");
                        let out = run_bash_with(
                            root,
                            &format!("(setsid sleep {marker} &) ; echo started"),
                            &settings(Containment::ProcessGroup),
                        )
                        .unwrap();
                        assert_eq!(out, "started");
                        assert_gone(&marker);
                    } else {
                        let out = run_bash_with(
                            root,
                            &format!("echo {call}"),
                            &CommandSettings::new(LONG),
                        )
                        .unwrap();
                        assert_eq!(out, call.to_string());
                    }
                }
            });
        }
    });
}

#[test]
fn a_check_command_cannot_write_outside_either() {
    if !landlock_enforced() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("from-a-check");
    let outcome = run_command(dir.path(), &format!("echo x > {}", target.display()), LONG).unwrap();
    assert_ne!(outcome.exit_code, Some(0));
    assert!(!target.exists());
}

#[test]
fn require_sandbox_exits_2_exactly_when_landlock_is_not_full() {
    let output = support::agent_eval_command()
        .args([
            "replay",
            "scenarios/scripted/guards.yaml",
            "--require-sandbox",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if landlock::status().is_full() {
        assert_eq!(output.status.code(), Some(0), "{stderr}");
    } else {
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("Landlock"), "{stderr}");
    }
}

#[test]
fn an_unbounded_timeout_is_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_bash(dir.path(), "echo fine", Duration::MAX).unwrap();
    assert_eq!(out, "fine");
}

#[test]
fn dev_stdout_and_stderr_stay_usable() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = run_command(
        dir.path(),
        "echo out >/dev/stdout; echo err >/dev/stderr; printf x | cat /dev/stdin",
        LONG,
    )
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&outcome.stdout), "out\nx");
    assert_eq!(String::from_utf8_lossy(&outcome.stderr), "err\n");
}
