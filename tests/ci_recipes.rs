//! The CI recipes of docs/ci.md and examples/k8s-indexed-job.yaml, run as
//! each engine runs them: every parallel job's command with the variables
//! that engine sets (`--shard auto` reading them), then `merge` over the
//! shard files, which must equal the unsharded run's report byte for byte.
//! Also the bad-input side of `--shard auto` through the binary.

use crate::support;
use agent_eval::app::ci::parallel_variables;
use std::path::Path;
use std::process::Output;

/// A small, fast scenario stands in for the recipes' `scenarios/`.
const SCENARIO: &str = "scenarios/simulated/docs_fixes.yaml";
const SEEDS: &str = "4";

fn scenario() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(SCENARIO)
        .to_string_lossy()
        .into_owned()
}

/// The binary in `dir`, with `vars` set (the builder inherits no engine's
/// variables: the tests may themselves run on such an engine).
fn agent_eval(dir: &Path, vars: &[(&str, String)], args: &[&str]) -> Output {
    let mut command = support::agent_eval_command();
    command.current_dir(dir);
    for (name, value) in vars {
        command.env(name, value);
    }
    command.args(args).output().expect("the binary runs")
}

/// `agent-eval run scenarios/ --shard SHARD --quiet --json FILE` with the
/// recipe's scenarios swapped for the small one.
fn run_shard(dir: &Path, vars: &[(&str, String)], shard: &str, file: &str) {
    let scenario = scenario();
    let out = agent_eval(
        dir,
        vars,
        &[
            "run", &scenario, "--seeds", SEEDS, "--shard", shard, "--quiet", "--json", file,
        ],
    );
    let code = out.status.code();
    assert!(
        code == Some(0) || code == Some(1),
        "shard {shard} with {vars:?}: {code:?} {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The unsharded run's report, the reference every merge must equal.
fn unsharded() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let scenario = scenario();
    agent_eval(
        dir.path(),
        &[],
        &[
            "run",
            &scenario,
            "--seeds",
            SEEDS,
            "--quiet",
            "--json",
            "whole.json",
        ],
    );
    std::fs::read(dir.path().join("whole.json")).unwrap()
}

/// `agent-eval merge` over the files (given in reverse, order must not
/// matter), returning the merged report's bytes.
fn merge(dir: &Path, files: &[String]) -> Vec<u8> {
    let mut args = vec!["merge"];
    args.extend(files.iter().rev().map(String::as_str));
    args.extend(["--json", "report.json", "--junit", "report.xml"]);
    let out = agent_eval(dir, &[], &args);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "merge: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(dir.join("report.json")).unwrap()
}

/// One engine's recipe: `jobs` parallel jobs, job `i` (0-based) sees the
/// variables `vars(i)` and writes `file(i)`; all with `--shard auto`.
fn engine_recipe(
    jobs: usize,
    vars: impl Fn(usize) -> Vec<(&'static str, String)>,
    file: impl Fn(usize) -> String,
) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<String> = (0..jobs).map(&file).collect();
    for (job, name) in files.iter().enumerate() {
        run_shard(dir.path(), &vars(job), "auto", name);
    }
    merge(dir.path(), &files)
}

fn docs() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci.md")).unwrap()
}

#[test]
fn every_recipe_merges_to_the_unsharded_report() {
    let whole = unsharded();
    // GitLab `parallel: 4`: CI_NODE_INDEX 1..=4, file shard-$CI_NODE_INDEX.json.
    let gitlab = engine_recipe(
        4,
        |i| {
            vec![
                ("CI_NODE_INDEX", (i + 1).to_string()),
                ("CI_NODE_TOTAL", "4".into()),
            ]
        },
        |i| format!("shard-{}.json", i + 1),
    );
    assert!(gitlab == whole, "GitLab recipe's merge differs");
    // Kubernetes Indexed Job: JOB_COMPLETION_INDEX 0..=3, AGENT_EVAL_SHARDS=4.
    let k8s = engine_recipe(
        4,
        |i| {
            vec![
                ("JOB_COMPLETION_INDEX", i.to_string()),
                ("AGENT_EVAL_SHARDS", "4".into()),
            ]
        },
        |i| format!("shard-{i}.json"),
    );
    assert!(k8s == whole, "Kubernetes recipe's merge differs");
    // CircleCI and Buildkite count from 0, like Kubernetes.
    let circle = engine_recipe(
        3,
        |i| {
            vec![
                ("CIRCLE_NODE_INDEX", i.to_string()),
                ("CIRCLE_NODE_TOTAL", "3".into()),
            ]
        },
        |i| format!("shard-{i}.json"),
    );
    assert!(circle == whole, "CircleCI merge differs");
    let buildkite = engine_recipe(
        2,
        |i| {
            vec![
                ("BUILDKITE_PARALLEL_JOB", i.to_string()),
                ("BUILDKITE_PARALLEL_JOB_COUNT", "2".into()),
            ]
        },
        |i| format!("shard-{i}.json"),
    );
    assert!(buildkite == whole, "Buildkite merge differs");
    // GitHub Actions matrix: shard: [1, 2, 3, 4], --shard ${{ matrix.shard }}/4.
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<String> = (1..=4).map(|k| format!("shard-{k}.json")).collect();
    for (k, file) in (1..=4).zip(&files) {
        run_shard(dir.path(), &[], &format!("{k}/4"), file);
    }
    assert!(
        merge(dir.path(), &files) == whole,
        "GitHub matrix merge differs"
    );
}

#[test]
fn the_recipes_carry_the_commands_tested() {
    let docs = docs();
    for line in [
        "agent-eval run scenarios/ --shard ${{ matrix.shard }}/4 --quiet --json shard-${{ matrix.shard }}.json",
        "agent-eval run scenarios/ --shard auto --quiet --json shard-$CI_NODE_INDEX.json",
        "agent-eval run scenarios/ --shard auto --quiet --json /reports/shard-$JOB_COMPLETION_INDEX.json",
        "agent-eval merge shard-*.json --json report.json --junit report.xml",
        "agent-eval merge /reports/shard-*.json --json /reports/report.json --junit /reports/report.xml",
    ] {
        assert!(docs.contains(line), "docs/ci.md lacks `{line}`");
    }
    let manifest = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/k8s-indexed-job.yaml"),
    )
    .unwrap();
    for line in [
        "completionMode: Indexed",
        "name: AGENT_EVAL_SHARDS",
        "agent-eval run scenarios/ --shard auto --quiet --json /reports/shard-$JOB_COMPLETION_INDEX.json",
        "agent-eval merge /reports/shard-*.json --json /reports/report.json --junit /reports/report.xml",
    ] {
        assert!(manifest.contains(line), "the manifest lacks `{line}`");
    }
    for name in parallel_variables() {
        assert!(docs.contains(name), "docs/ci.md does not name {name}");
    }
}

#[test]
fn shard_auto_without_or_with_bad_variables_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = scenario();
    let run = |vars: &[(&str, String)]| {
        agent_eval(
            dir.path(),
            vars,
            &[
                "run", &scenario, "--shard", "auto", "--quiet", "--json", "x.json",
            ],
        )
    };
    let none = run(&[]);
    assert_eq!(none.status.code(), Some(2));
    let message = String::from_utf8_lossy(&none.stderr);
    for name in parallel_variables() {
        assert!(message.contains(name), "{message} lacks {name}");
    }
    for vars in [
        vec![
            ("CI_NODE_INDEX", "5".to_string()),
            ("CI_NODE_TOTAL", "4".into()),
        ],
        vec![
            ("CIRCLE_NODE_INDEX", "x".to_string()),
            ("CIRCLE_NODE_TOTAL", "4".into()),
        ],
        vec![
            ("CI_NODE_INDEX", "1".to_string()),
            ("CI_NODE_TOTAL", "2".into()),
            ("BUILDKITE_PARALLEL_JOB", "1".into()),
            ("BUILDKITE_PARALLEL_JOB_COUNT", "2".into()),
        ],
    ] {
        let out = run(&vars);
        assert_eq!(out.status.code(), Some(2), "{vars:?} accepted");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--shard auto"));
    }
    assert!(
        !dir.path().join("x.json").exists(),
        "no report on bad input"
    );
}
