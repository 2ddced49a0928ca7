//! `--history FILE` through the binary: four shards writing at once lose
//! nothing, `merge` records the whole run, `agent-eval history` shows it,
//! and a file that is not a history is refused with exit 2 and left byte
//! for byte as it was.

use crate::support;
use std::path::Path;
use std::process::{Command, Output};

const SCENARIO: &str = "scenarios/simulated/docs_fixes.yaml";

fn scenario() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(SCENARIO)
        .to_string_lossy()
        .into_owned()
}

/// The binary in `dir` with a fixed commit and branch (as GitHub Actions
/// sets them), so no test depends on the checkout's git state.
fn agent_eval(dir: &Path, args: &[&str]) -> Command {
    let mut command = support::agent_eval_command();
    command
        .current_dir(dir)
        .env("GITHUB_SHA", "0123456789abcdef")
        .env("GITHUB_REF_NAME", "main")
        .args(args);
    command
}

fn output(mut command: Command) -> Output {
    command.output().expect("the binary runs")
}

#[test]
fn four_shards_at_once_then_merge_are_all_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = scenario();
    let children: Vec<_> = (1..=4)
        .map(|k| {
            let shard = format!("{k}/4");
            let file = format!("shard-{k}.json");
            agent_eval(
                dir.path(),
                &[
                    "run",
                    &scenario,
                    "--seeds",
                    "4",
                    "--shard",
                    &shard,
                    "--quiet",
                    "--json",
                    &file,
                    "--history",
                    "h.db",
                ],
            )
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let merged = output(agent_eval(
        dir.path(),
        &[
            "merge",
            "shard-1.json",
            "shard-2.json",
            "shard-3.json",
            "shard-4.json",
            "--json",
            "all.json",
            "--history",
            "h.db",
        ],
    ));
    assert!(
        matches!(merged.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    // Every shard's rows and the merge's are there.
    let db = rusqlite::Connection::open(dir.path().join("h.db")).unwrap();
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(
        count("SELECT count(*) FROM invocation WHERE shard IS NOT NULL"),
        4
    );
    assert_eq!(
        count("SELECT count(*) FROM invocation WHERE command = 'merge'"),
        1
    );
    // The shards' runs add up to the merged cells' runs.
    assert_eq!(
        count(
            "SELECT sum(c.runs) FROM cell c JOIN scenario_run s ON c.scenario_run_id = s.id
             JOIN invocation i ON s.invocation_id = i.id WHERE i.shard IS NOT NULL"
        ),
        count(
            "SELECT sum(c.runs) FROM cell c JOIN scenario_run s ON c.scenario_run_id = s.id
             JOIN invocation i ON s.invocation_id = i.id WHERE i.command = 'merge'"
        )
    );
    let merged_cells = count(
        "SELECT count(*) FROM cell c JOIN scenario_run s ON c.scenario_run_id = s.id
         JOIN invocation i ON s.invocation_id = i.id WHERE i.command = 'merge'",
    );
    assert!(merged_cells > 0);
    assert_eq!(
        count(
            "SELECT count(*) FROM invocation WHERE commit_sha = '0123456789abcdef' AND branch = 'main'"
        ),
        5
    );
    let hashes = count("SELECT count(DISTINCT scenario_sha256) FROM scenario_run");
    assert_eq!(hashes, 1, "one scenario file, one hash");
    let version: i64 = db
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, agent_eval::results::history::SCHEMA_VERSION as i64);
    drop(db);
    // `history --json` shows the merged (whole) run only, one point per cell.
    let shown = output(agent_eval(dir.path(), &["history", "h.db", "--json"]));
    assert_eq!(shown.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let series = json.as_array().unwrap();
    assert_eq!(series.len() as i64, merged_cells);
    for cell in series {
        assert_eq!(cell["runs"].as_array().unwrap().len(), 1);
        assert_eq!(cell["runs"][0]["commit"], "0123456789abcdef");
    }
    let table = output(agent_eval(dir.path(), &["history", "h.db"]));
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("0123456789"), "{text}");
    assert!(text.contains("completion"), "{text}");
}

#[test]
fn moves_beyond_the_interval_are_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = scenario();
    for seeds in ["2", "2"] {
        let out = output(agent_eval(
            dir.path(),
            &[
                "run",
                &scenario,
                "--seeds",
                seeds,
                "--quiet",
                "--history",
                "h.db",
            ],
        ));
        assert!(matches!(out.status.code(), Some(0 | 1)));
    }
    let db = rusqlite::Connection::open(dir.path().join("h.db")).unwrap();
    // A completion far outside the first run's interval, as a regression
    // would record it.
    db.execute_batch(
        "UPDATE cell SET completion = CASE WHEN completion_lo > 0.5 THEN 0.0 ELSE 1.0 END
         WHERE scenario_run_id = (SELECT max(id) FROM scenario_run)",
    )
    .unwrap();
    drop(db);
    let shown = output(agent_eval(dir.path(), &["history", "h.db", "--json"]));
    let json: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    for cell in json.as_array().unwrap() {
        let runs = cell["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0]["moved"], false);
        let [lo, hi] = [0, 1].map(|i| runs[0]["completion_ci95"][i].as_f64().unwrap());
        let now = runs[1]["completion"].as_f64().unwrap();
        assert_eq!(runs[1]["moved"], now < lo || now > hi, "{cell}");
    }
    let table = output(agent_eval(
        dir.path(),
        &["history", "h.db", "--svg", "trend.svg"],
    ));
    assert!(String::from_utf8_lossy(&table.stdout).contains("MOVED"));
    let svg = std::fs::read_to_string(dir.path().join("trend.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("docs-fixes"),
        "{svg}"
    );
    let none = output(agent_eval(
        dir.path(),
        &["history", "h.db", "--scenario", "no such scenario"],
    ));
    assert_eq!(none.status.code(), Some(2));
    let branch = |name: &str| {
        let out = output(agent_eval(
            dir.path(),
            &["history", "h.db", "--branch", name, "--json"],
        ));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json.as_array().unwrap().len()
    };
    assert!(branch("main") > 0);
    assert_eq!(branch("elsewhere"), 0);
}

#[test]
fn a_file_that_is_no_history_is_refused_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("app.sqlite");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello\n").unwrap();
    let noise: Vec<u8> = (0..3000u32)
        .map(|i| (i.wrapping_mul(40_503) >> 7) as u8)
        .collect();
    std::fs::write(dir.path().join("noise.bin"), noise).unwrap();
    let scenario = scenario();
    for name in ["app.sqlite", "notes.txt", "noise.bin"] {
        let before = std::fs::read(dir.path().join(name)).unwrap();
        for args in [
            vec![
                "run",
                &scenario,
                "--seeds",
                "1",
                "--quiet",
                "--history",
                name,
            ],
            vec!["history", name],
        ] {
            let out = output(agent_eval(dir.path(), &args));
            assert_eq!(out.status.code(), Some(2), "{name} {args:?}");
            let message = String::from_utf8_lossy(&out.stderr);
            assert!(message.contains(name), "{message}");
            assert_eq!(
                std::fs::read(dir.path().join(name)).unwrap(),
                before,
                "{name}"
            );
        }
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}

#[test]
fn a_flapping_cell_is_flagged_in_the_table_json_and_page() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = scenario();
    for _ in 0..4 {
        let out = output(agent_eval(
            dir.path(),
            &[
                "run",
                &scenario,
                "--seeds",
                "2",
                "--quiet",
                "--history",
                "h.db",
            ],
        ));
        assert!(matches!(out.status.code(), Some(0 | 1)));
    }
    // Down, up, down beyond a narrow interval: three moves, two changes
    // of direction.
    let db = rusqlite::Connection::open(dir.path().join("h.db")).unwrap();
    db.execute_batch(
        "UPDATE cell SET completion_lo = completion - 0.01, completion_hi = completion + 0.01;
         UPDATE cell SET completion = 0.9, completion_lo = 0.89, completion_hi = 0.91
             WHERE scenario_run_id IN (SELECT id FROM scenario_run WHERE invocation_id IN (1, 3));
         UPDATE cell SET completion = 0.1, completion_lo = 0.09, completion_hi = 0.11
             WHERE scenario_run_id IN (SELECT id FROM scenario_run WHERE invocation_id IN (2, 4));",
    )
    .unwrap();
    drop(db);
    let shown = output(agent_eval(dir.path(), &["history", "h.db", "--json"]));
    let json: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    for cell in json.as_array().unwrap() {
        assert_eq!(cell["flapping"], true, "{cell}");
        assert_eq!(cell["direction_changes"], 2, "{cell}");
        assert_eq!(cell["runs"][1]["move"], "down", "{cell}");
        assert_eq!(cell["runs"][2]["move"], "up", "{cell}");
    }
    let table = output(agent_eval(
        dir.path(),
        &["history", "h.db", "--html", "trend.html"],
    ));
    assert_eq!(table.status.code(), Some(0));
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("FLAPPING (2 changes of direction"), "{text}");
    let page = std::fs::read_to_string(dir.path().join("trend.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<svg"));
    assert!(page.contains("docs-fixes") && page.contains("flapping: 2 changes"));
    // The last two runs: one move left, no flap.
    let last = output(agent_eval(
        dir.path(),
        &["history", "h.db", "--json", "--last", "2"],
    ));
    let json: serde_json::Value = serde_json::from_slice(&last.stdout).unwrap();
    for cell in json.as_array().unwrap() {
        assert_eq!(cell["runs"].as_array().unwrap().len(), 2, "{cell}");
        assert_eq!(
            cell["runs"][0]["move"], "up",
            "moved against the hidden run"
        );
        assert_eq!(cell["flapping"], false, "{cell}");
    }
}

#[test]
fn history_leads_with_what_moved_and_folds_the_steady_cells() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scripted = root.join("scenarios/scripted/ten_step_refactor.yaml");
    let scripted = scripted.to_string_lossy();
    let simulated = scenario();
    for _ in 0..4 {
        let out = output(agent_eval(
            dir.path(),
            &[
                "run",
                &simulated,
                &scripted,
                "--seeds",
                "2",
                "--quiet",
                "--history",
                "h.db",
            ],
        ));
        assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    }
    // One cell of docs-fixes drops far below its interval on the last run.
    let db = rusqlite::Connection::open(dir.path().join("h.db")).unwrap();
    db.execute_batch(
        "UPDATE cell SET completion_lo = 0.5, completion_hi = 0.9, completion = 0.7
             WHERE label LIKE '%todo=true%' AND scenario_run_id IN
                 (SELECT id FROM scenario_run WHERE scenario = 'docs-fixes');
         UPDATE cell SET completion = 0.0, completion_lo = 0.0, completion_hi = 0.1
             WHERE id = (SELECT min(c.id) FROM cell c JOIN scenario_run s ON c.scenario_run_id = s.id
                         WHERE s.scenario = 'docs-fixes' AND c.label LIKE '%todo=true%'
                           AND s.invocation_id = (SELECT max(id) FROM invocation));",
    )
    .unwrap();
    drop(db);
    let shown = output(agent_eval(dir.path(), &["history", "h.db"]));
    assert_eq!(shown.status.code(), Some(0), "{shown:?}");
    let text = String::from_utf8_lossy(&shown.stdout);
    let lines: Vec<&str> = text.lines().collect();
    // The summary first, then the one cell that moved, then one line for
    // the rest.
    assert!(
        lines[0].contains(
            " of 2 scenarios over 4 recorded runs: 0 flapping, 1 moved, 0 profile changed, "
        ),
        "{text}"
    );
    assert!(
        lines[1].starts_with("the newest: commit 0123456789 on main, recorded "),
        "{text}"
    );
    assert_eq!(lines[2], "docs-fixes", "{text}");
    assert_eq!(text.matches("MOVED down").count(), 1, "{text}");
    let steady = lines
        .iter()
        .position(|l| l.starts_with("steady: "))
        .unwrap();
    assert!(steady > 3, "{text}");
    assert!(
        lines[steady].contains("cells never left the previous run's 95% interval (1 of them at 100.0% in every run): docs-fixes ("),
        "{text}"
    );
    assert!(
        text.contains("ten-step-refactor-scripted (1); --all lists them run by run"),
        "{text}"
    );
    // The summary, the moved cell's heading and four runs, the steady
    // line (wrapped within 120 columns).
    assert!(lines.len() <= 10, "{text}");
    // --all lists every cell run by run.
    let all = output(agent_eval(dir.path(), &["history", "h.db", "--all"]));
    let all = String::from_utf8_lossy(&all.stdout);
    assert!(all.contains("ten-step-refactor-scripted\n  "), "{all}");
    assert!(!all.contains("steady: "), "{all}");
    // The page charts the cell that moved only, marks its move, names
    // each run by commit and date, and folds the steady cells.
    let page = output(agent_eval(
        dir.path(),
        &["history", "h.db", "--html", "trend.html"],
    ));
    assert_eq!(page.status.code(), Some(0));
    let page = std::fs::read_to_string(dir.path().join("trend.html")).unwrap();
    let chart_end = page.find("</svg>").unwrap();
    let chart = &page[..chart_end];
    assert!(chart.contains("docs-fixes"), "{chart}");
    assert!(!chart.contains("ten-step-refactor-scripted"), "{chart}");
    assert_eq!(chart.matches("<polygon").count(), 1, "one move: {chart}");
    assert!(
        chart.contains("\n0123456 20"),
        "commit and date on the x axis: {chart}"
    );
    let folded = page.find("<details class=\"steady\"><summary>").unwrap();
    assert!(page[folded..].contains("<h2>ten-step-refactor-scripted</h2>"));
}
