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
            &[("s'; --", "' OR 1=1 --", Some("' OR 1=1 --"))],
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
    assert!(matches!(e, HistoryError::Schema { .. }), "{e}");
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

/// What a forger who wrote the file once may have added: a trigger that
/// rewrites every later completion (with the table it keeps its state
/// in), a view, an index, or an index taken away. Each is refused at open
/// and the file is left byte for byte as it was.
#[test]
fn a_schema_not_exactly_ours_is_refused_untouched() {
    let forgeries = [
        (
            "CREATE TABLE forged (n INTEGER);
             CREATE TRIGGER forge AFTER INSERT ON cell_metric BEGIN
                 UPDATE cell_metric SET value = 1.0 WHERE rowid = new.rowid; END;",
            "an extra trigger forge",
        ),
        (
            "CREATE VIEW cells AS SELECT * FROM cell;",
            "an extra view cells",
        ),
        (
            "CREATE INDEX by_label ON cell(label);",
            "an extra index by_label",
        ),
        (
            "DROP INDEX invocation_by_branch;",
            "no index invocation_by_branch",
        ),
    ];
    for (sql, said) in forgeries {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        drop(History::open(&path).unwrap());
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA journal_mode = DELETE;").unwrap();
        conn.execute_batch(sql).unwrap();
        drop(conn);
        let before = std::fs::read(&path).unwrap();
        for e in [
            History::open(&path).err().unwrap(),
            History::open_existing(&path).err().unwrap(),
        ] {
            assert!(matches!(e, HistoryError::Schema { .. }), "{sql}: {e}");
            assert!(e.to_string().contains(said), "{e}");
        }
        assert_eq!(std::fs::read(&path).unwrap(), before, "{sql}");
    }
}

/// A trigger planted while the runs went on is found under the write
/// lock, before the invocation is written.
#[test]
fn a_trigger_planted_during_the_runs_is_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.db");
    let mut history = History::open(&path).unwrap();
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TRIGGER forge AFTER INSERT ON invocation BEGIN
                 DELETE FROM invocation; END;",
        )
        .unwrap();
    let e = history.record(&invocation("main"), &[]).unwrap_err();
    assert!(e.to_string().contains("an extra trigger forge"), "{e}");
}

/// SQLite's own statistics (`ANALYZE`) change no figure: accepted.
#[test]
fn sqlite_statistics_are_no_forgery() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.db");
    drop(History::open(&path).unwrap());
    Connection::open(&path)
        .unwrap()
        .execute_batch("ANALYZE;")
        .unwrap();
    let mut history = History::open(&path).unwrap();
    history.record(&invocation("main"), &[]).unwrap();
}

fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Reading never writes: an empty file stays empty, an up-to-date
/// history gets no `-wal` or `-shm` beside it, and an older one is
/// migrated in a private copy while the file keeps its version.
#[test]
fn reading_writes_nothing_beside_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("empty.db"), "").unwrap();
    let e = History::open_existing(&d.join("empty.db")).err().unwrap();
    assert!(e.to_string().contains("an empty file"), "{e}");
    assert_eq!(std::fs::read(d.join("empty.db")).unwrap(), b"");
    let path = d.join("h.db");
    History::open(&path)
        .unwrap()
        .record(&invocation("main"), &[])
        .unwrap();
    assert_eq!(listing(d), ["empty.db", "h.db"]);
    let before = std::fs::read(&path).unwrap();
    let reader = History::open_existing(&path).unwrap();
    assert_eq!(reader.invocations().unwrap(), 1);
    assert_eq!(
        listing(d),
        ["empty.db", "h.db"],
        "no companion while reading"
    );
    drop(reader);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // A writer at work: its WAL holds a committed row the file does not.
    let mut writer = History::open(&path).unwrap();
    writer.record(&invocation("main"), &[]).unwrap();
    let wal = std::fs::read(d.join("h.db-wal")).unwrap();
    assert!(!wal.is_empty());
    let (db, shm) = (
        std::fs::read(&path).unwrap(),
        std::fs::read(d.join("h.db-shm")).unwrap(),
    );
    let reader = History::open_existing(&path).unwrap();
    assert_eq!(reader.invocations().unwrap(), 2, "the WAL's row is read");
    drop(reader);
    assert_eq!(std::fs::read(&path).unwrap(), db);
    assert_eq!(std::fs::read(d.join("h.db-wal")).unwrap(), wal);
    assert_eq!(std::fs::read(d.join("h.db-shm")).unwrap(), shm);
    drop(writer);
}
