//! The history records the calibration profile each scenario ran under
//! and compares like with like: a run under a profile is never gated
//! against a run under the defaults (nor the reverse), so a change of
//! profile reads as such in `history`, not as a list of regressions.

#[allow(dead_code)] // each test file uses some of the shared helpers
use crate::support;

use std::path::Path;

const SCENARIO: &str = r#"
name: two-steps
task: "Write a.txt then b.txt."
steps:
  - text: Write a.txt
    check: {file: a.txt, contains: "A"}
    do:
      - {tool: write_file, input: {path: a.txt, content: "A"}}
  - text: Write b.txt
    check: {file: b.txt, contains: "B"}
    do:
      - {tool: write_file, input: {path: b.txt, content: "B"}}
model:
  simulate: {}
runs:
  seeds: 20
"#;

fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let output = support::agent_eval_in(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs");
    (
        output.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

#[test]
fn a_profile_run_is_compared_only_with_runs_under_the_same_profile() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("s.yaml"), SCENARIO).expect("scenario");
    let profile = Path::new(env!("CARGO_MANIFEST_DIR")).join("profiles/public-sessions.yaml");
    std::fs::copy(&profile, dir.path().join("p.yaml")).expect("profile");
    let (code, text) = run(dir.path(), &["run", "s.yaml", "--history", "h.db"]);
    assert_eq!(code, 0, "{text}");
    // Under the profile, the history's run under the defaults is no
    // baseline: the scenario is not gated, nothing "regressed".
    let (code, text) = run(
        dir.path(),
        &[
            "run",
            "s.yaml",
            "--profile",
            "p.yaml",
            "--baseline",
            "h.db",
            "--history",
            "h.db",
        ],
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("holds no recorded run"), "{text}");
    assert!(!text.contains("REGRESSED"), "{text}");
    // The same profile again has its baseline.
    let (code, text) = run(
        dir.path(),
        &["run", "s.yaml", "--profile", "p.yaml", "--baseline", "h.db"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("holds no recorded run"), "{text}");
    let (code, text) = run(dir.path(), &["history", "h.db"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("profile changed to p.yaml (sha256 "),
        "{text}"
    );
    assert!(!text.contains("MOVED"), "{text}");
}
