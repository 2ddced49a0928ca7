//! agent-eval as process 1 without PID namespaces (a container's default):
//! run under `unshare --user --pid --fork --mount-proc`, with PID
//! namespaces then forbidden inside (`user.max_pid_namespaces = 0`, which
//! touches only that user namespace), so agents run in the process-group
//! fallback and their orphans are reparented to process 1. An agent whose
//! double-forked child exits looks for zombies: none may be left.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;

/// The agent: a grandchild that exits at once (reparented to process 1,
/// a zombie unless reaped), then a look at every process's state.
const AGENT: &str = r#"#!/bin/sh
( (exit 0) & )
( (sleep 0.2; exit 0) & )
sleep 1
zombies=0
for f in /proc/[0-9]*/stat; do
  state=$(sed 's/.*) //' "$f" 2>/dev/null | cut -d' ' -f1)
  [ "$state" = Z ] && zombies=$((zombies + 1))
done
echo "pid1=$(tr '\0' ' ' < /proc/1/cmdline | cut -c1-40)"
echo "zombies=$zombies"
"#;

#[test]
fn as_process_1_without_pid_namespaces_orphans_are_reaped() {
    let probe = support::command("unshare")
        .args([
            "--user",
            "--map-root-user",
            "--pid",
            "--fork",
            "--mount-proc",
            "true",
        ])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        support::skip_unless_required("unshare cannot make user and PID namespaces here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent.sh");
    std::fs::write(&agent, AGENT).unwrap();
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
    let scenario = dir.path().join("s.yaml");
    std::fs::write(
        &scenario,
        format!(
            "task: t\nsteps:\n  - text: a\n    check: {{file: a, exists: true}}\n    do: [{{tool: write_file, input: {{path: a, content: x}}}}]\nmodel:\n  simulate: {{}}\nruns:\n  seeds: 1\nagent:\n  command: {}\n",
            agent.display()
        ),
    )
    .unwrap();
    let logs = dir.path().join("logs");
    let inner = format!(
        "echo 0 > /proc/sys/user/max_pid_namespaces && exec '{}' run '{}' --log-dir '{}'",
        env!("CARGO_BIN_EXE_agent-eval"),
        scenario.display(),
        logs.display()
    );
    let output = support::command("unshare")
        .args([
            "--user",
            "--map-root-user",
            "--pid",
            "--fork",
            "--mount-proc",
            "sh",
            "-c",
        ])
        .arg(&inner)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let mut log = String::new();
    for entry in std::fs::read_dir(&logs).into_iter().flatten().flatten() {
        log.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
    }
    let all = format!(
        "status {:?}\n{}\n{log}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(all.contains("PID namespaces are unavailable"), "{all}");
    assert!(all.contains("pid1="), "the agent ran: {all}");
    assert!(all.contains("pid1=") && all.contains("agent-eval"), "{all}");
    assert!(all.contains("zombies=0"), "{all}");
}
