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

/// A folder holding `scenario` as `s.yaml` and the shipped public
/// profile as `p.yaml`.
fn with_profile(scenario: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("s.yaml"), scenario).expect("scenario");
    let profile = Path::new(env!("CARGO_MANIFEST_DIR")).join("profiles/public-sessions.yaml");
    std::fs::copy(&profile, dir.path().join("p.yaml")).expect("profile");
    dir
}

#[test]
fn a_profile_run_is_compared_only_with_runs_under_the_same_profile() {
    let dir = with_profile(SCENARIO);
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

/// The completion rate of every cell of a JSON report.
fn completions(path: &Path) -> Vec<f64> {
    let text = std::fs::read_to_string(path).expect("report");
    let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    report["scenarios"][0]["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .map(|c| c["completion_rate"].as_f64().expect("completion_rate"))
        .collect()
}

/// Ten steps, with and without the planning tool: long enough for the
/// profile's parameters to move the figures well beyond the tolerance.
/// (Six were, while the public profile kept the assumed 420-token
/// attention span; with its fitted span the profile's model forgets
/// little over six steps, and only a longer task drops its completion.)
fn ten_steps() -> String {
    let steps: String = (0..10)
        .map(|i| {
            format!(
                "  - text: Write f{i}.txt\n    check: {{file: f{i}.txt, contains: \"X\"}}\n    \
                 do:\n      - {{tool: write_file, input: {{path: f{i}.txt, content: \"X\"}}}}\n"
            )
        })
        .collect();
    format!(
        "name: ten-steps\ntask: \"Write the ten files.\"\nsteps:\n{steps}model:\n  simulate: {{}}\n\
         runs:\n  todo: [true, false]\n  seeds: 20\n"
    )
}

#[test]
fn diff_names_a_profile_change_and_compares_only_like_with_like() {
    let dir = with_profile(&ten_steps());
    let (code, text) = run(dir.path(), &["run", "s.yaml", "--json", "defaults.json"]);
    assert_eq!(code, 0, "{text}");
    let (code, text) = run(
        dir.path(),
        &[
            "run",
            "s.yaml",
            "--profile",
            "p.yaml",
            "--json",
            "profile.json",
        ],
    );
    assert!(code == 0 || code == 1, "{text}");
    // The profile moves the figures beyond the tolerance: compared as
    // like, the cells would read as regressed.
    let (before, after) = (
        completions(&dir.path().join("defaults.json")),
        completions(&dir.path().join("profile.json")),
    );
    assert!(
        before.iter().zip(&after).any(|(a, b)| a - b > 0.05),
        "{before:?} {after:?}"
    );
    let (code, text) = run(dir.path(), &["diff", "defaults.json", "profile.json"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("profile changed: ten-steps: the defaults → p.yaml (sha256 "),
        "{text}"
    );
    assert!(
        text.contains("; 2 under another profile, not compared"),
        "{text}"
    );
    assert!(!text.contains("REGRESSED"), "{text}");
    let (code, text) = run(
        dir.path(),
        &["diff", "defaults.json", "profile.json", "--markdown"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("✅ **no regression**: 0 cells compared"),
        "{text}"
    );
    assert!(
        text.contains("🔀 **profile changed** in ten-steps"),
        "{text}"
    );
    // The same profile on both sides is compared as usual.
    let (code, text) = run(dir.path(), &["diff", "profile.json", "profile.json"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("baseline: 2 cells compared, 2 unchanged"),
        "{text}"
    );
    assert!(!text.contains("profile changed"), "{text}");
}

/// `merge` keeps the profile the shards ran under, as the unsharded run's
/// report names it, and refuses shards run under different profiles.
#[test]
fn merge_keeps_the_profile_and_refuses_shards_of_two_profiles() {
    let dir = with_profile(SCENARIO);
    let shard = |k: &str, out: &str, profile: bool| {
        let mut args = vec!["run", "s.yaml", "--shard", k, "--quiet", "--json", out];
        if profile {
            args.extend(["--profile", "p.yaml"]);
        }
        let (code, text) = run(dir.path(), &args);
        assert_eq!(code, 0, "{text}");
    };
    shard("1/2", "a.json", true);
    shard("2/2", "b.json", true);
    shard("2/2", "d.json", false);
    let (code, text) = run(
        dir.path(),
        &[
            "run",
            "s.yaml",
            "--profile",
            "p.yaml",
            "--quiet",
            "--json",
            "whole.json",
        ],
    );
    assert_eq!(code, 0, "{text}");
    let (code, text) = run(
        dir.path(),
        &["merge", "a.json", "b.json", "--json", "merged.json"],
    );
    assert_eq!(code, 0, "{text}");
    let profile_of = |file: &str| {
        let text = std::fs::read_to_string(dir.path().join(file)).expect("report");
        let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        report["scenarios"][0]["profile"].clone()
    };
    assert!(
        profile_of("whole.json").is_object(),
        "{}",
        profile_of("whole.json")
    );
    assert_eq!(profile_of("merged.json"), profile_of("whole.json"));
    let (code, text) = run(
        dir.path(),
        &["merge", "a.json", "d.json", "--json", "mixed.json"],
    );
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("another calibration profile"), "{text}");
    assert!(text.contains("the defaults"), "{text}");
}
