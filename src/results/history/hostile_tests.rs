//! The history database under hostile conditions, at the library level
//! (the binary's side is `tests/history_hostile.rs`): a lock held past the
//! busy timeout, a file changed between opening and recording, names full
//! of SQL, a broken table, and a history too long to read whole.

use std::time::Duration;

use rusqlite::Connection;

use super::*;

fn invocation(branch: &str) -> Invocation {
    Invocation {
        command: "run".into(),
        branch: Some(branch.into()),
        version: "0".into(),
        ..Invocation::default()
    }
}

#[test]
fn a_lock_held_past_the_busy_timeout_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.db");
    drop(History::open(&path).unwrap());
    let mut history = History::open_with_timeout(&path, Duration::from_millis(50)).unwrap();
    let holder = Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let e = history.record(&invocation("main"), &[]).unwrap_err();
    assert!(matches!(e, HistoryError::Locked { .. }), "{e}");
    assert!(e.to_string().contains("h.db") && e.to_string().contains("locked"));
    holder.execute_batch("ROLLBACK").unwrap();
    // Once the lock is gone the same connection records.
    history.record(&invocation("main"), &[]).unwrap();
    assert_eq!(history.invocations().unwrap(), 1);
}

#[test]
fn a_file_changed_during_the_runs_is_checked_again_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.db");
    let mut history = History::open(&path).unwrap();
    Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA user_version = 99;")
        .unwrap();
    let e = history.record(&invocation("main"), &[]).unwrap_err();
    assert!(matches!(e, HistoryError::Newer { found: 99, .. }), "{e}");
    let other = Connection::open(&path).unwrap();
    let rows: i64 = other
        .query_row("SELECT count(*) FROM invocation", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 0, "nothing was written");
}

#[test]
fn names_full_of_sql_are_only_ever_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.db");
    let mut history = History::open(&path).unwrap();
    let branch = "x'); DROP TABLE cell; --\nsecond line \"quoted\" %_";
    history.record(&invocation(branch), &[]).unwrap();
    history.record(&invocation("main"), &[]).unwrap();
    let stored: Vec<Option<String>> = history
        .conn
        .prepare("SELECT branch FROM invocation ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(stored, [Some(branch.to_string()), Some("main".into())]);
    // A LIKE pattern or a quote in a filter matches nothing but itself.
    assert!(
        history
            .cells(Some("%"), Some("%"), None)
            .unwrap()
            .is_empty()
    );
    let found = history
        .baseline(
            &[("s'; --", "' OR 1=1 --")],
            &BranchChoice::Only(branch.into()),
        )
        .unwrap();
    assert_eq!(found.missing, ["s'; --"]);
    drop(history);
    assert!(History::open(&path).is_ok(), "every table is still there");
}

#[test]
fn a_broken_table_is_refused_at_open_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.db");
    drop(History::open(&path).unwrap());
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "PRAGMA journal_mode = DELETE; DROP TABLE cell_metric;
             CREATE TABLE cell_metric (junk TEXT);",
        )
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    let e = History::open(&path).err().unwrap();
    assert!(matches!(e, HistoryError::Unreadable { .. }), "{e}");
    assert!(e.to_string().contains("table cell_metric"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_long_history_is_read_from_its_newest_runs_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.db");
    let history = History::open(&path).unwrap();
    // 3000 whole runs of one one-cell scenario, and shards in between.
    history
        .conn
        .execute_batch(
            "BEGIN;
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
             INSERT INTO invocation (id, recorded_at, command, shard, branch, version)
                 SELECT i, 't', 'run', CASE WHEN i % 7 = 0 THEN '1/2' END, 'main', '0' FROM n;
             INSERT INTO scenario_run (id, invocation_id, scenario, file, seeds)
                 SELECT id, id, 's', 's.yaml', 1 FROM invocation;
             INSERT INTO cell (scenario_run_id, position, settings, label, runs, completion)
                 SELECT id, 0, '{}', 'todo=true', 1, 0.5 FROM scenario_run;
             COMMIT;",
        )
        .unwrap();
    let cells = history.cells(None, Some("main"), Some(11)).unwrap();
    assert_eq!(cells.len(), 11);
    assert!(cells.iter().all(|c| c.invocation > 2980), "the newest");
    assert_eq!(history.cells(None, None, None).unwrap().len(), 3000 - 428);
}
