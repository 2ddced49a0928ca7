//! The GitHub Action (`action.yml`): its logic, `action/run.sh`, run as the
//! runner runs it (its `GITHUB_*`, `RUNNER_TEMP` and `INPUT_*` variables
//! set, agent-eval on the PATH), on a failing and a passing run and with a
//! history kept between runs; and `action.yml` checked against the script.

use crate::support;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

const FAILING: &str = "name: fails\ntask: t\nmodel:\n  script:\n    - text: done\nexpect:\n  - stop: end_turn\n  - turns: 2\n";
const PASSING: &str =
    "name: passes\ntask: t\nmodel:\n  script:\n    - text: done\nexpect:\n  - stop: end_turn\n";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A workspace holding the two scenarios, as `actions/checkout` leaves it.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scenarios")).unwrap();
    std::fs::create_dir_all(dir.path().join("runner-temp")).unwrap();
    std::fs::write(dir.path().join("scenarios/failing.yaml"), FAILING).unwrap();
    std::fs::write(dir.path().join("scenarios/passing.yaml"), PASSING).unwrap();
    dir
}

/// `action/run.sh` in `workspace` with these inputs.
fn run_action(workspace: &Path, inputs: &[(&str, &str)]) -> (Output, BTreeMap<String, String>) {
    let bin = Path::new(env!("CARGO_BIN_EXE_agent-eval"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let outputs = workspace.join("github-output");
    let mut command = support::command("bash");
    command
        .arg(root().join("action/run.sh"))
        .current_dir(workspace)
        .env("PATH", path)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_WORKSPACE", workspace)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", workspace.join("step-summary.md"))
        .env("RUNNER_TEMP", workspace.join("runner-temp"));
    for (name, value) in inputs {
        command.env(format!("INPUT_{name}"), value);
    }
    let out = command.output().expect("bash runs");
    let written = std::fs::read_to_string(&outputs).unwrap_or_default();
    let values = written
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    (out, values)
}

#[test]
fn a_failing_run_sets_the_outputs_annotates_and_leaves_the_gate_to_the_last_step() {
    let dir = workspace();
    let (out, outputs) = run_action(dir.path(), &[("PATHS", "scenarios/failing.yaml")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(outputs["passed"], "false");
    assert_eq!(outputs["exit-code"], "1");
    for report in ["json", "html", "markdown"] {
        assert!(
            Path::new(&outputs[report]).is_file(),
            "{report}: {}",
            outputs[report]
        );
    }
    assert!(
        stdout.contains("::error file=scenarios/failing.yaml,line=8,title=agent-eval%3A fails::turns == 2: measured 1"),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(dir.path().join("step-summary.md")).unwrap();
    assert!(summary.contains("❌ failed"), "{summary}");
}

#[test]
fn a_passing_run_with_a_history_records_then_compares_with_it() {
    let dir = workspace();
    let db = dir.path().join("runner-temp/agent-eval-history/history.db");
    let inputs = [
        ("PATHS", "scenarios/passing.yaml"),
        ("BASELINE", "history"),
        ("HISTORY_PATH", db.to_str().unwrap()),
        ("HTML", "false"),
    ];
    let (first, outputs) = run_action(dir.path(), &inputs);
    assert_eq!(
        outputs["passed"],
        "true",
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(outputs["html"], "");
    assert!(db.is_file());
    assert!(!String::from_utf8_lossy(&first.stdout).contains("--baseline"));
    let (second, outputs) = run_action(dir.path(), &inputs);
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert!(
        stdout.contains(&format!("--baseline {}", db.display())),
        "{stdout}"
    );
    assert_eq!(outputs["exit-code"], "0", "{stdout}");
}

#[test]
fn action_yml_passes_every_input_the_script_reads_and_exposes_what_it_writes() {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let action: serde_json::Value = serde_saphyr::from_str(&text).expect("action.yml is YAML");
    assert_eq!(action["runs"]["using"], "composite");
    let script = std::fs::read_to_string(root().join("action/run.sh")).unwrap();
    let steps = action["runs"]["steps"].as_array().unwrap();
    let run = steps
        .iter()
        .find(|s| s["id"] == "run")
        .expect("a step with id run");
    let env = run["env"].as_object().unwrap();
    for (name, _) in env {
        assert!(
            script.contains(name.as_str()),
            "action.yml sets {name}, which run.sh never reads"
        );
    }
    for read in [
        "INPUT_PATHS",
        "INPUT_AGENT",
        "INPUT_BASELINE",
        "INPUT_HTML",
        "INPUT_ARGS",
        "INPUT_HISTORY_PATH",
    ] {
        assert!(
            env.contains_key(read),
            "run.sh reads {read}, which action.yml does not set"
        );
    }
    for (name, output) in action["outputs"].as_object().unwrap() {
        let value = output["value"].as_str().unwrap();
        assert_eq!(value, format!("${{{{ steps.run.outputs.{name} }}}}"));
        assert!(
            script.contains(&format!("echo \"{name}=")) || script.contains(&format!("\"{name}=")),
            "run.sh never writes {name}"
        );
    }
    for (name, _) in action["inputs"].as_object().unwrap() {
        assert!(
            text.contains(&format!("inputs.{name}")),
            "input {name} is declared but never used"
        );
    }
}
