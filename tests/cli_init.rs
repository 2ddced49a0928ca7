//! `init` writes scenarios that pass, never overwrites, and `completions`
//! prints a script for the shell asked for.

use crate::support;
use std::process::Command;

fn agent_eval() -> Command {
    support::agent_eval_command()
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

/// The first table a new user sees shows no protocol violations: the simulated
/// starter puts its reminder where a real API accepts it (`append`), and the JSON
/// report agrees.
#[test]
fn the_starter_runs_without_protocol_violations() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        agent_eval()
            .arg("init")
            .arg(dir.path())
            .status()
            .unwrap()
            .success()
    );
    let report = dir.path().join("r.json");
    let run = agent_eval()
        .arg("run")
        .arg(dir.path().join("scenarios"))
        .arg("--json")
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let mut cells = 0;
    for scenario in report["scenarios"].as_array().unwrap() {
        for cell in scenario["cells"].as_array().unwrap() {
            cells += 1;
            assert_eq!(cell["mean_protocol_violations"], 0.0, "{cell}");
        }
    }
    assert_eq!(cells, 3);
}

/// No path and no `scenarios/` here: nothing found (exit 3, as docs/cli.md says),
/// with the way to start; a path the user names that is not there is bad input
/// (exit 2). After a file that could not be read the closing line never says
/// "all held".
#[test]
fn a_missing_default_folder_is_nothing_found_and_says_how_to_start() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["run", "check"] {
        let out = agent_eval()
            .arg(command)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{command}: {stderr}");
        assert!(
            stderr.contains("no scenarios/ folder here") && stderr.contains("agent-eval init DIR"),
            "{stderr}"
        );
    }
    let named = agent_eval()
        .args(["run", "elsewhere/"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(named.status.code(), Some(2));

    std::fs::write(dir.path().join("bad.yaml"), "task: [unclosed\n").unwrap();
    std::fs::write(
        dir.path().join("good.yaml"),
        "task: t\nsteps: [{text: s, check: {file: a, exists: false}}]\nmodel: {script: [{text: done}]}\nexpect: [{steps_completed: 1}]\n",
    )
    .unwrap();
    let mixed = agent_eval().arg("run").arg(dir.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&mixed.stdout);
    assert_eq!(mixed.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("1 scenario, 1 expectation: 1 held; 1 file could not be read")
            && !stdout.contains("all held"),
        "{stdout}"
    );
}
