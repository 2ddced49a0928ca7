//! Integrity at the boundaries: the run cap, shards that merge only when
//! they are whole and of one run, errors with their line, report paths
//! checked before running, terminal escapes shown and not obeyed, a file
//! named twice run once, and noise not called a regression.

use crate::support;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;

fn agent_eval_in(dir: &Path, args: &[&str]) -> Output {
    support::agent_eval_command()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn agent_eval(args: &[&str]) -> Output {
    agent_eval_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

fn read_json(file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

fn write_json(file: &str, value: &Value) {
    std::fs::write(file, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

#[test]
fn every_bad_file_exits_2_naming_its_file_and_line() {
    let mut files: Vec<PathBuf> = std::fs::read_dir("tests/data/bad")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for file in files {
        let name = file.to_string_lossy().into_owned();
        let out = agent_eval(&["check", &name]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let stderr = text(&out.stderr);
        let after = stderr
            .split_once(&format!("{name}:"))
            .map(|(_, rest)| rest)
            .unwrap_or_else(|| panic!("{name}: no file in {stderr}"));
        assert!(
            after.starts_with(|c: char| c.is_ascii_digit()),
            "{name}: no line in {stderr}"
        );
    }
}

#[test]
fn a_matrix_over_the_run_cap_is_a_load_error_at_its_runs_key() {
    let file = "tests/data/bad/oversize_matrix.yaml";
    for command in ["check", "run"] {
        let out = agent_eval(&[command, file]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "{file}:10:1: runs: the matrix makes more than the cap of 1000000 runs"
            )),
            "{command}: {stderr}"
        );
        assert!(stderr.contains("--max-runs"), "{stderr}");
    }
    // Allowed with a higher cap (checked only: it would run 2.1 million runs).
    let out = agent_eval(&["check", file, "--max-runs", "3000000"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Or with fewer seeds from the command line, under a lower cap.
    let dir = tempfile::tempdir().unwrap();
    let report = path(dir.path(), "r.json");
    let out = agent_eval(&[
        "run",
        file,
        "--seeds",
        "2",
        "--max-runs",
        "42",
        "--json",
        &report,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        read_json(&report)["scenarios"][0]["cells"]
            .as_array()
            .unwrap()
            .len(),
        21
    );
    let out = agent_eval(&["run", file, "--seeds", "2", "--max-runs", "41"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        !text(&out.stdout).contains("oversize_matrix ("),
        "it did not run"
    );
}

#[test]
fn the_matrix_of_the_issue_is_refused_without_planning_it() {
    // 2 × 40,000 thresholds × 100,000 seeds: 8 billion units if planned.
    let dir = tempfile::tempdir().unwrap();
    let thresholds: Vec<String> = (1..=40_000).map(|n| n.to_string()).collect();
    let file = path(dir.path(), "huge.yaml");
    std::fs::write(
        &file,
        format!(
            "task: t\nsteps:\n  - text: s\n    do: [{{tool: bash, input: {{command: ls}}}}]\nmodel:\n  simulate: {{}}\nruns:\n  todo: [true, false]\n  nag_threshold: [{}]\n  seeds: 100000\n",
            thresholds.join(", ")
        ),
    )
    .unwrap();
    for command in ["check", "run"] {
        let out = agent_eval(&[command, &file]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(
            text(&out.stderr).contains("huge.yaml:7:1: runs: the matrix makes more than the cap"),
            "{}",
            text(&out.stderr)
        );
    }
}

/// A small simulated scenario: two cells, its seeds from `--seeds`.
const SCENARIO: &str = "name: small
task: Write a and b.
steps:
  - text: write a
    check: {file: a.txt, exists: true}
    do: [{tool: write_file, input: {path: a.txt, content: a}}]
  - text: write b
    check: {file: b.txt, exists: true}
    do: [{tool: write_file, input: {path: b.txt, content: b}}]
model:
  simulate: {}
runs:
  todo: [true, false]
expect:
  - where: {todo: true}
    completion_rate: {at_least: 0.0}
";

/// Runs the scenario in `dir` whole and in `n` shards with `seeds` seeds;
/// returns the full report's path and the shards'.
fn full_and_shards(dir: &Path, seeds: &str, n: usize) -> (String, Vec<String>) {
    std::fs::write(dir.join("small.yaml"), SCENARIO).unwrap();
    let full = path(dir, "full.json");
    let out = agent_eval_in(
        dir,
        &["run", "small.yaml", "--seeds", seeds, "--json", &full],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shards = (1..=n)
        .map(|k| {
            let shard = path(dir, &format!("shard{k}.json"));
            let out = agent_eval_in(
                dir,
                &[
                    "run",
                    "small.yaml",
                    "--seeds",
                    seeds,
                    "--shard",
                    &format!("{k}/{n}"),
                    "--json",
                    &shard,
                ],
            );
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            shard
        })
        .collect();
    (full, shards)
}

/// Merges `shards`: exit 2 naming `culprit` and saying `what`.
fn refused(dir: &Path, shards: &[String], culprit: &str, what: &str) {
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    let out = agent_eval_in(dir, &args);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    assert!(stderr.contains("error: cannot merge: "), "{stderr}");
    assert!(stderr.contains(culprit), "{culprit} not named: {stderr}");
    assert!(stderr.contains(what), "{what} not said: {stderr}");
    assert!(text(&out.stdout).is_empty(), "no report from a bad merge");
}

#[test]
fn shards_merge_into_the_single_run_and_print_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (full, shards) = full_and_shards(dir.path(), "5", 3);
    let shard = read_json(&shards[1]);
    assert_eq!(
        shard["plan"],
        json!({"units": 10, "seeds": 5, "model": null})
    );
    assert_eq!(shard["scenarios"][0]["sha256"].as_str().unwrap().len(), 64);
    assert!(read_json(&full).get("plan").is_none());
    assert!(read_json(&full)["scenarios"][0].get("sha256").is_none());

    let merged = agent_eval_in(dir.path(), &["merge", &shards[2], &shards[0], &shards[1]]);
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
    assert_eq!(
        text(&merged.stdout),
        std::fs::read_to_string(&full).unwrap()
    );
    // The summary, like run's, goes to stderr when the report takes stdout.
    let summary = text(&merged.stderr);
    assert!(summary.contains("small (small.yaml)"), "{summary}");
    assert!(summary.contains("1 expectation: all held"), "{summary}");

    // Or to stdout, with every report written.
    let (json_out, junit, markdown, html) = (
        path(dir.path(), "m.json"),
        path(dir.path(), "m.xml"),
        path(dir.path(), "m.md"),
        path(dir.path(), "m.html"),
    );
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    args.extend([
        "--json",
        &json_out,
        "--junit",
        &junit,
        "--markdown",
        &markdown,
        "--html",
        &html,
    ]);
    let out = agent_eval_in(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("small (small.yaml)"));
    assert_eq!(
        std::fs::read_to_string(&json_out).unwrap(),
        std::fs::read_to_string(&full).unwrap()
    );
    assert!(
        std::fs::read_to_string(&junit)
            .unwrap()
            .contains("<testsuites")
    );
    assert!(
        std::fs::read_to_string(&markdown)
            .unwrap()
            .contains("small")
    );
    assert!(
        std::fs::read_to_string(&html)
            .unwrap()
            .starts_with("<!DOCTYPE html>")
    );
}

#[test]
fn a_failed_expectation_after_merge_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let (_, shards) = full_and_shards(dir.path(), "3", 2);
    // Shards carry the expectations; make one that cannot hold.
    for shard in &shards {
        let mut report = read_json(shard);
        report["scenarios"][0]["expect_spec"][0]["completion_rate"] = json!({"at_least": 2.0});
        write_json(shard, &report);
    }
    let out = agent_eval_in(
        dir.path(),
        &["merge", &shards[0], &shards[1], "--json", "m.json"],
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    // Printed once, under its scenario's table, and counted in the summary.
    assert!(stdout.contains("FAIL completion_rate >= 2"), "{stdout}");
    assert_eq!(
        stdout.matches("completion_rate >= 2").count(),
        1,
        "{stdout}"
    );
    assert!(stdout.contains("1 failed"), "{stdout}");
}

#[test]
fn shards_of_different_runs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, shards) = full_and_shards(dir.path(), "4", 2);
    // Another --seeds.
    let other = path(dir.path(), "other.json");
    let out = agent_eval_in(
        dir.path(),
        &[
            "run",
            "small.yaml",
            "--seeds",
            "6",
            "--shard",
            "2/2",
            "--json",
            &other,
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    refused(
        dir.path(),
        &[shards[0].clone(), other.clone()],
        "other.json",
        "--seeds",
    );
    // Other scenario bytes (a comment is enough).
    std::fs::write(
        dir.path().join("small.yaml"),
        format!("# edited\n{SCENARIO}"),
    )
    .unwrap();
    let out = agent_eval_in(
        dir.path(),
        &[
            "run",
            "small.yaml",
            "--seeds",
            "4",
            "--shard",
            "2/2",
            "--json",
            &other,
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    refused(
        dir.path(),
        &[shards[0].clone(), other.clone()],
        "other.json",
        "another version of its file",
    );
    // Another split, a shard twice, a shard missing, a whole report.
    let third = path(dir.path(), "third.json");
    let out = agent_eval_in(
        dir.path(),
        &[
            "run",
            "small.yaml",
            "--seeds",
            "4",
            "--shard",
            "3/3",
            "--json",
            &third,
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    refused(
        dir.path(),
        &[shards[0].clone(), third],
        "third.json",
        "another split",
    );
    refused(
        dir.path(),
        &[shards[0].clone(), shards[0].clone()],
        "shard1.json",
        "given twice",
    );
    refused(dir.path(), &[shards[1].clone()], "", "shard 1/2 is missing");
    let full = path(dir.path(), "full.json");
    refused(
        dir.path(),
        std::slice::from_ref(&full),
        "full.json",
        "not a shard report",
    );
}

#[test]
fn doctored_duplicated_and_missing_units_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, shards) = full_and_shards(dir.path(), "4", 2);
    let original = read_json(&shards[0]);
    let doctor = |change: &dyn Fn(&mut Value)| {
        let mut report = original.clone();
        change(&mut report);
        write_json(&shards[0], &report);
    };
    fn result(report: &mut Value) -> &mut Value {
        &mut report["scenarios"][0]["cells"][0]["results"][0]
    }
    type Doctoring = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(Doctoring, &str)> = vec![
        (
            Box::new(|r| result(r)["steps_completed"] = json!(999)),
            "steps_completed 999 is more than steps_total 2",
        ),
        (
            Box::new(|r| r["scenarios"][0]["cells"][0]["completion_rate"] = json!(2.64)),
            "completion_rate 2.64 is not in [0, 1]",
        ),
        (
            Box::new(|r| {
                let turns = result(r)["turns"].as_u64().unwrap();
                result(r)["reminders_at"] = json!([turns + 1]);
            }),
            "reminders_at lists turn",
        ),
        (
            Box::new(|r| result(r)["rejected_todo_updates"] = json!(1000)),
            "rejected_todo_updates 1000 is more than todo_calls",
        ),
        (
            Box::new(|r| result(r)["turns"] = json!(-1)),
            "not an agent-eval JSON report",
        ),
        (
            Box::new(|r| r["scenarios"][0]["cells"][0]["runs"] = json!(7)),
            "runs is 7 but 2 results are listed",
        ),
        (
            Box::new(|r| {
                let copy = result(r).clone();
                let results = r["scenarios"][0]["cells"][0]["results"]
                    .as_array_mut()
                    .unwrap();
                results.push(copy);
                r["scenarios"][0]["cells"][0]["runs"] = json!(3);
            }),
            "is listed twice",
        ),
        (
            Box::new(|r| {
                let results = r["scenarios"][0]["cells"][1]["results"]
                    .as_array_mut()
                    .unwrap();
                results.remove(0);
                r["scenarios"][0]["cells"][1]["runs"] = json!(1);
            }),
            "is missing (3 of the shard's 4 runs are listed)",
        ),
        (
            Box::new(|r| result(r)["seed"] = json!(1)),
            "belongs to shard 2/2, not 1/2",
        ),
        (
            Box::new(|r| result(r)["seed"] = json!(77)),
            "seed 77: the seed is not one of the run's seeds",
        ),
        (Box::new(|r| r["plan"]["units"] = json!(12)), "plan"),
    ];
    for (change, what) in &cases {
        doctor(change.as_ref());
        refused(dir.path(), &shards, "shard1.json", what);
    }
    // Untouched, they merge.
    write_json(&shards[0], &original);
    let out = agent_eval_in(dir.path(), &["merge", &shards[0], &shards[1]]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn a_bad_report_path_is_refused_before_anything_runs() {
    // The scenario's first call sleeps 100 s: an answer now means it never ran.
    let scenario = "tests/data/slow/sleepy.yaml";
    for option in ["--json", "--junit", "--markdown", "--html"] {
        for target in [
            "/nonexistent-folder/report.out",
            "tests/data/bad/no_such_folder/report.out",
            "tests",
        ] {
            let out = agent_eval(&["run", scenario, option, target]);
            assert_eq!(out.status.code(), Some(2), "{option} {target}");
            let stderr = text(&out.stderr);
            assert!(stderr.contains(target), "{stderr}");
            assert!(stderr.contains("cannot write a report there"), "{stderr}");
            assert!(text(&out.stdout).is_empty());
        }
    }
    for option in ["--svg", "--json", "--html"] {
        let out = agent_eval(&["sweep", scenario, option, "/nonexistent-folder/s.out"]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{option}: {}",
            text(&out.stderr)
        );
        assert!(text(&out.stderr).contains("cannot write a report there"));
        assert!(text(&out.stdout).is_empty(), "{option}");
    }
}

#[test]
fn a_read_only_folder_is_refused_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o500)).unwrap();
    // Root may write anyway: then there is nothing to refuse.
    let writable = tempfile::NamedTempFile::new_in(&locked).is_ok();
    let report = locked.join("r.json").to_string_lossy().into_owned();
    // A quick scenario: where the folder is writable after all, it runs.
    let out = agent_eval(&["run", "scenarios/scripted/no_todo.yaml", "--json", &report]);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).unwrap();
    if !writable {
        assert_eq!(out.status.code(), Some(2));
        assert!(text(&out.stderr).contains("cannot write a report there"));
    }
}

const HOSTILE: &str = "name: \"evil\\e[2J\\e]0;title\\a\\u202e\"
task: \"do \\e[31mit\"
steps:
  - text: \"step \\e[5mblink\"
    check: {file: a.txt, exists: true}
model:
  script:
    - {tool: bash, input: {command: \"printf '\\\\033[2Jcleared'\"}}
    - {text: \"done \\e[0m\\u009b\"}
";

#[test]
fn escapes_from_scenarios_and_tools_are_shown_not_obeyed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("evil.yaml"), HOSTILE).unwrap();
    let run = agent_eval_in(dir.path(), &["run", "evil.yaml"]);
    let replay = agent_eval_in(dir.path(), &["replay", "evil.yaml"]);
    let check = agent_eval_in(dir.path(), &["check", "evil.yaml"]);
    for (what, out) in [("run", &run), ("replay", &replay), ("check", &check)] {
        let shown = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(!shown.contains('\x1b'), "{what}: {shown:?}");
        assert!(
            !shown.contains('\u{9b}') && !shown.contains('\u{202e}'),
            "{what}"
        );
        // Controls are shown escaped; the bidirectional override is
        // dropped, as in every report (docs/security.md).
        assert!(
            what == "replay" || shown.contains("evil\\x1b[2J\\x1b]0;title\\x07"),
            "{what}: {shown}"
        );
        assert!(!shown.contains("\\u{202e}"), "{what}: {shown}");
    }
    let replayed = text(&replay.stdout);
    assert!(replayed.contains("do \\x1b[31mit"), "{replayed}");
    assert!(replayed.contains("\\x1b[2Jcleared"), "{replayed}");
    assert!(replayed.contains("step \\x1b[5mblink"), "{replayed}");
    assert!(replayed.contains("done \\x1b[0m\\u{9b}"), "{replayed}");
}

#[test]
fn a_file_named_twice_runs_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("s")).unwrap();
    std::fs::write(
        dir.path().join("s/x.yaml"),
        "task: t\nmodel:\n  script: [{text: hi}]\n",
    )
    .unwrap();
    let out = agent_eval_in(
        dir.path(),
        &[
            "run",
            "s/x.yaml",
            "./s/x.yaml",
            "s",
            "s/./x.yaml",
            "--json",
            "r.json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = read_json(&path(dir.path(), "r.json"));
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 1);
    assert_eq!(scenarios[0]["file"], "s/x.yaml");
    assert_eq!(text(&out.stdout).matches("x (s/x.yaml)").count(), 1);
}

#[test]
fn diff_calls_a_move_within_the_noise_of_other_run_counts_no_regression() {
    let dir = tempfile::tempdir().unwrap();
    let (full, _) = full_and_shards(dir.path(), "40", 1);
    let old = read_json(&full);
    let cell = |report: &mut Value, runs: usize, completion: f64, ci: [f64; 2]| {
        let c = &mut report["scenarios"][0]["cells"][0];
        let results = c["results"].as_array_mut().unwrap();
        results.truncate(runs);
        c["runs"] = json!(runs);
        c["completion_rate"] = json!(completion);
        c["completion_ci95"] = json!(ci);
    };
    let mut before = old.clone();
    cell(&mut before, 40, 0.8, [0.7, 0.9]);
    let mut noisy = old.clone();
    cell(&mut noisy, 5, 0.7, [0.4, 0.95]);
    let mut collapsed = old.clone();
    cell(&mut collapsed, 5, 0.1, [0.0, 0.3]);
    let (a, b, c) = (
        path(dir.path(), "before.json"),
        path(dir.path(), "noisy.json"),
        path(dir.path(), "collapsed.json"),
    );
    write_json(&a, &before);
    write_json(&b, &noisy);
    write_json(&c, &collapsed);
    let out = agent_eval(&["diff", &a, &b]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("noise?"), "{stdout}");
    assert!(
        stdout.contains("warning: 1 cell ran a different number of runs"),
        "{stdout}"
    );
    let out = agent_eval(&["diff", &a, &c]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("REGRESSED"));
    // --filter: only the scenarios it names.
    let out = agent_eval(&["diff", &a, &c, "--filter", "sma"]);
    assert_eq!(out.status.code(), Some(1));
    let out = agent_eval(&["diff", &a, &c, "--filter", "nothing-like-it"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn merging_a_hundred_thousand_seeds_is_linear() {
    // Two shards of one cell over 100,000 seeds, made up directly.
    let dir = tempfile::tempdir().unwrap();
    let seeds: Vec<u64> = (0..100_000).collect();
    let shards: Vec<String> = (1..=2u64)
        .map(|k| {
            let results: Vec<Value> = seeds
                .iter()
                .filter(|s| *s % 2 == k - 1)
                .map(|&seed| {
                    json!({"seed": seed, "turns": 5, "stop": "end_turn",
                           "steps_completed": (seed % 3) as usize, "steps_total": 2,
                           "reminders_at": [3], "rejected_todo_updates": 0,
                           "todo_calls": 1, "protocol_violations": 0})
                })
                .collect();
            let report = json!({
                "version": 1, "ok": false, "shard": format!("{k}/2"),
                "plan": {"units": 100_000, "seeds": null, "model": null},
                "scenarios": [{
                    "name": "wide", "file": "wide.yaml", "seeds": seeds,
                    "sha256": "0".repeat(64),
                    "cells": [{"settings": {"todo": true, "nag_threshold": 3},
                               "steps_total": 2, "results": results}],
                    "expect_spec": []
                }],
                "errors": []
            });
            let file = path(dir.path(), &format!("w{k}.json"));
            write_json(&file, &report);
            file
        })
        .collect();
    let merged = path(dir.path(), "m.json");
    let out = agent_eval(&["merge", &shards[1], &shards[0], "--json", &merged]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = read_json(&merged);
    let results = report["scenarios"][0]["cells"][0]["results"]
        .as_array()
        .unwrap();
    assert_eq!(results.len(), 100_000);
    assert!(
        results
            .iter()
            .enumerate()
            .all(|(i, r)| r["seed"] == json!(i)),
        "runs back in seed order"
    );
}

#[test]
fn a_workspace_that_cannot_be_prepared_at_run_time_is_an_error_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let report = path(dir.path(), "r.json");
    let out = support::agent_eval_command()
        .args([
            "run",
            "scenarios/scripted/no_todo.yaml",
            "scenarios/scripted/guards.yaml",
        ])
        .args(["--quiet", "--json", &report])
        .env("TMPDIR", dir.path().join("missing"))
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for file in ["no_todo.yaml", "guards.yaml"] {
        assert!(
            stderr.contains(&format!("scenarios/scripted/{file}"))
                && stderr.contains("cannot prepare the workspace"),
            "each failing scenario is named once: {stderr}"
        );
    }
    assert!(stdout.contains("2 run errors (above)"), "{stdout}");
    let report = read_json(&report);
    assert_eq!(report["ok"], false);
    assert_eq!(
        report["errors"].as_array().map(Vec::len),
        Some(2),
        "{report}"
    );
}
