//! No credential reaches an agent under test, by any route: a stand-in
//! agent (a shell script) dumps its environment and every `/proc/*/environ`
//! it can read (agent-eval's own among them, found through its parent and
//! through the run's mark), sandboxed and not, while agent-eval was started
//! with real-looking credentials in its environment. A preset never reads
//! the user's own agent configuration, and a relative
//! `AGENT_EVAL_AGENTS_DIR` never reaches into a run's workspace.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// The credentials agent-eval is started with, each holding `secret`.
fn credentials(secret: &str) -> Vec<(String, String)> {
    [
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CODEX_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "COPILOT_GITHUB_TOKEN",
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "MY_SERVICE_SECRET",
        "HF_TOKEN",
    ]
    .iter()
    .map(|name| (name.to_string(), format!("{secret}-{name}")))
    .collect()
}

/// A value no other process on the machine holds.
fn nonce(what: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{what}{}x{nanos}", std::process::id())
}

/// The stand-in agent (`dump.sh SECRET`): says which credential names are
/// in its environment, where a value holding SECRET shows up (its own
/// environment, its parent's environ, every environ in `/proc`), and
/// whether it sees agent-eval's environ at all. Its log is kept short:
/// only the tail of it is in the run record.
const DUMP: &str = r#"secret="$1"
harness=${AGENT_EVAL_RUN_MARK%%:*}
env | grep -F "$secret" | cut -c1-60 | sed 's/^/LEAK-ENV /'
env | cut -d= -f1 | grep -E 'AUTH_TOKEN|OAUTH|CODEX_API_KEY|GEMINI|GOOGLE_API|GITHUB_TOKEN|GH_TOKEN|AWS_|SERVICE_SECRET|HF_TOKEN' | sed 's/^/LEAK-NAME /'
[ -n "$HOSTILE_CANARY" ] && echo canary:env
if [ -r /proc/$harness/environ ]; then
  echo harness:visible
  tr '\0' '\n' < /proc/$harness/environ | grep -q HOSTILE_CANARY && echo canary:harness
else
  echo harness:hidden
fi
for f in /proc/$PPID/environ /proc/[0-9]*/environ; do
  tr '\0' '\n' < "$f" | grep -F "$secret" | cut -c1-40 | sed "s|^|LEAK-PROC $f |"
done 2>/dev/null
echo "== end"
"#;

/// Every file under `dir`, read and joined.
fn all_text(dir: &Path) -> String {
    let mut text = String::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return text;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            text.push_str(&all_text(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            text.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    text
}

/// Runs `scenario` with the log in `dir/logs`, agent-eval's environment
/// carrying `extra`; returns its output and every log's text.
fn run(dir: &Path, scenario: &Path, extra: &[(String, String)], agents: &str) -> (Output, String) {
    let logs = dir.join("logs");
    let output = support::agent_eval_command()
        .args(["run", &scenario.to_string_lossy(), "--log-dir"])
        .arg(&logs)
        .current_dir(dir)
        .envs(extra.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("AGENT_EVAL_AGENTS_DIR", agents)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .stdin(Stdio::null())
        .output()
        .expect("agent-eval runs");
    (output, all_text(&logs))
}

/// A scenario whose agent is `agent` (YAML lines under `agent:`).
fn scenario(dir: &Path, agent: &str) -> PathBuf {
    let file = dir.join("s.yaml");
    std::fs::write(
        &file,
        format!(
            "task: Write a.txt\nsteps:\n  - text: Write it\n    check: {{file: a.txt, exists: true}}\n    do: [{{tool: write_file, input: {{path: a.txt, content: x}}}}]\nmodel:\n  simulate: {{}}\nruns:\n  seeds: 1\nagent:\n{agent}"
        ),
    )
    .expect("scenario written");
    file
}

fn write_script(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn check_no_secret(sandbox: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("dump.sh");
    write_script(&script, DUMP);
    let secret = nonce("sk-hostile-");
    let mut extra = credentials(&secret);
    extra.push(("HOSTILE_CANARY".into(), "visible".into()));
    let file = scenario(
        dir.path(),
        &format!(
            "  command: {} {secret}\n  sandbox: {sandbox}\n  timeout_s: 30\n",
            script.display()
        ),
    );
    let (output, log) = run(dir.path(), &file, &extra, "/nonexistent");
    let all = format!(
        "status {:?}\n{}\n{log}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(log.contains("== end"), "the stand-in ran to its end: {all}");
    // The dump works: an ordinary variable of agent-eval's reaches the agent.
    assert!(log.contains("canary:env"), "{all}");
    assert!(
        !log.contains("LEAK-"),
        "a credential reached the agent: {all}"
    );
    assert!(!all.contains(&format!("{secret}-")), "{all}");
    log
}

#[test]
fn no_credential_reaches_an_unsandboxed_agent_by_env_or_proc() {
    let log = check_no_secret(false);
    // Unsandboxed it does see agent-eval's environ: the credentials must
    // be gone from it, not merely hidden.
    assert!(log.contains("harness:visible"), "{log}");
    assert!(log.contains("canary:harness"), "{log}");
}

#[test]
fn a_sandboxed_agent_has_its_own_proc_and_no_credential() {
    let status = agent_eval::sandbox::landlock::status();
    if !status.is_full() {
        support::skip_unless_required(&status.to_string());
        return;
    }
    let log = check_no_secret(true);
    assert!(log.contains("harness:hidden"), "{log}");
}

#[test]
fn a_preset_never_follows_the_users_agent_config() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents");
    write_script(
        &agents.join("node_modules/.bin/claude"),
        "echo \"== claude\"; env | grep -E '^(CLAUDE_CONFIG_DIR|CODEX_HOME|XDG_)'; exit 3\n",
    );
    let real = dir.path().join("real-config");
    let extra: Vec<(String, String)> = [
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
    ]
    .iter()
    .map(|name| (name.to_string(), format!("{}/{name}", real.display())))
    .collect();
    let file = scenario(dir.path(), "  preset: claude-code\n");
    let (output, log) = run(dir.path(), &file, &extra, &agents.to_string_lossy());
    // The broken agent's output is quoted with its line breaks escaped.
    let all = format!("{}\n{log}", String::from_utf8_lossy(&output.stderr)).replace("\\n", "\n");
    assert!(all.contains("== claude"), "{all}");
    assert!(!all.contains(&real.display().to_string()), "{all}");
    for (name, _) in &extra {
        assert!(
            all.lines()
                .any(|l| l.starts_with(&format!("{name}=")) && l.contains("/.agent-home")),
            "{name} is not in the throwaway home: {all}"
        );
    }
}

#[test]
fn a_relative_agents_dir_is_the_invocations_folder_not_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    write_script(
        &dir.path().join("agents/node_modules/.bin/claude"),
        "echo REAL-CLI; exit 3\n",
    );
    // The scenario's fixture plants a CLI at the same relative path.
    let fixture = dir.path().join("fixture");
    write_script(
        &fixture.join("agents/node_modules/.bin/claude"),
        "echo PLANTED-CLI; exit 3\n",
    );
    let file = dir.path().join("s.yaml");
    std::fs::write(
        &file,
        "task: Write a.txt\nworkspace:\n  fixture: fixture\nsteps:\n  - text: Write it\n    check: {file: a.txt, exists: true}\n    do: [{tool: write_file, input: {path: a.txt, content: x}}]\nmodel:\n  simulate: {}\nruns:\n  seeds: 1\nagent:\n  preset: claude-code\n",
    )
    .unwrap();
    let (output, log) = run(dir.path(), &file, &[], "agents");
    let all = format!("{}\n{log}", String::from_utf8_lossy(&output.stderr));
    assert!(!all.contains("PLANTED-CLI"), "{all}");
    assert!(all.contains("REAL-CLI"), "{all}");
}
