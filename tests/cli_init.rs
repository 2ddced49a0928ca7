//! `init` writes scenarios that pass, never overwrites, and `completions`
//! prints a script for the shell asked for.

use std::process::Command;

fn agent_eval() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agent-eval"))
}

#[test]
fn init_scaffold_runs_green_and_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let out = agent_eval().arg("init").arg(dir.path()).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = agent_eval()
        .args(["run", "--quiet"])
        .arg(dir.path().join("scenarios"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("2 scenarios"), "{stdout}");
    let check = agent_eval()
        .arg("check")
        .arg(dir.path().join("scenarios"))
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(0));

    let scripted = dir.path().join("scenarios/greet_scripted.yaml");
    let before = std::fs::read_to_string(&scripted).unwrap();
    let again = agent_eval().arg("init").arg(dir.path()).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    assert_eq!(std::fs::read_to_string(&scripted).unwrap(), before);
}

#[test]
fn completions_for_each_shell() {
    for (shell, marker) in [
        ("bash", "complete -F _agent__eval"),
        ("zsh", "#compdef agent-eval"),
        ("fish", "complete -c agent-eval"),
    ] {
        let out = agent_eval().args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(
            script.contains(marker),
            "{shell}: {}",
            &script[..script.len().min(200)]
        );
    }
    let bad = agent_eval()
        .args(["completions", "cmd.exe"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}
