//! Reports do not depend on where the workspace lives: the same scenario
//! run under two TMPDIRs of different lengths gives byte-identical JSON
//! reports, even when the simulated model reads the workspace path (`pwd`).

use crate::support;
use std::path::Path;

/// A simulated scenario whose every step prints the working folder, so the
/// absolute workspace path is in the context the model measures.
fn scenario() -> String {
    let mut yaml = String::from(
        "name: workdir-determinism\n\
         task: Eight steps, each printing the working folder.\n\
         workspace:\n  files:\n    notes.txt: \"start\\n\"\n\
         model:\n  simulate: {attention_span: 120}\n\
         runs:\n  seeds: 40\n\
         steps:\n",
    );
    for i in 1..=8 {
        yaml.push_str(&format!(
            "  - text: \"Step {i}: print the folder\"\n    \
             check: {{file: \"s{i}.txt\", contains: \"done\"}}\n    \
             do:\n      \
             - {{tool: bash, input: {{command: \"pwd; pwd; pwd\"}}}}\n      \
             - {{tool: write_file, input: {{path: \"s{i}.txt\", content: \"done\"}}}}\n"
        ));
    }
    yaml
}

fn report_under(tmpdir: &Path, scenario: &Path, report: &Path) -> Vec<u8> {
    std::fs::create_dir_all(tmpdir).unwrap();
    let status = support::agent_eval_command()
        .arg("run")
        .arg(scenario)
        .arg("--json")
        .arg(report)
        .env("TMPDIR", tmpdir)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "run failed: {status}");
    std::fs::read(report).unwrap()
}

#[test]
fn reports_are_identical_under_two_tmpdirs_of_different_lengths() {
    let dir = tempfile::tempdir().unwrap();
    let scenario_path = dir.path().join("det.yaml");
    std::fs::write(&scenario_path, scenario()).unwrap();
    let short = dir.path().join("t");
    let long = dir
        .path()
        .join("a-much-longer-temporary-folder-name/with/several/more/levels");
    let first = report_under(&short, &scenario_path, &dir.path().join("a.json"));
    let second = report_under(&long, &scenario_path, &dir.path().join("b.json"));
    assert!(!first.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&first),
        String::from_utf8_lossy(&second)
    );
}
