//! The results history: an SQLite database (`run --history FILE`,
//! `merge --history FILE`) that keeps every invocation's cells, so a team
//! can see how a cell moved over commits (`agent-eval history FILE`).
//!
//! One invocation is one transaction: its row, each scenario's row and each
//! cell's figures commit together or not at all. The database is in WAL
//! mode with a busy timeout, so four shards writing at once each wait their
//! turn and lose nothing. The file carries agent-eval's
//! `PRAGMA application_id` and its schema version in `PRAGMA user_version`;
//! a file that is neither empty nor such a database (random bytes, a text
//! file, another application's SQLite database) is refused before anything
//! is written to it, and stays byte for byte as it was.
//!
//! The clock is read here (SQLite's `now`, in UTC) only to say when an
//! invocation was recorded; reports never carry it.

mod baseline;
mod reader_copy;
mod schema;
mod trend;

#[cfg(test)]
mod hostile_tests;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};

use super::scenario_result::ScenarioResult;
use crate::metric::{COMPLETION_RATE, FULL_COMPLETION_RATE};
use crate::model::simulated::profile::ProfileRef;
pub use baseline::{BaselineRun, BranchChoice, HistoryBaseline};
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};
use schema::{State, not_history};
pub use trend::{
    CellTrend, Direction, FLAP_CHANGES, FLAP_WINDOW, TrendPoint, short_commit, trends,
};

/// How long a writer waits for another to finish its transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// Why the history could not be used.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error(
        "{path}: not an agent-eval history database ({reason}); it was left as it was. Give a new file name or an existing history"
    )]
    NotHistory { path: PathBuf, reason: String },
    #[error(
        "{path}: history schema version {found} is newer than this agent-eval knows ({SCHEMA_VERSION}); it was left as it was. Use a newer agent-eval"
    )]
    Newer { path: PathBuf, found: i32 },
    #[error(
        "{path}: the history stayed locked by another process for more than {seconds} s; nothing was written. Try again when that process is done"
    )]
    Locked { path: PathBuf, seconds: u64 },
    #[error(
        "{path}: the history cannot be written or opened here ({source}); check the file's and its folder's permissions (SQLite also makes FILE-wal and FILE-shm beside it)"
    )]
    CannotWrite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error(
        "{path}: {} beside it belongs to user {owner} and this process cannot write it, so the history cannot be recorded; it was left by another user's agent-eval (an older one's reader, or a writer still at work): when none is using the history, its owner may remove it",
        companion.display()
    )]
    CompanionNotWritable {
        path: PathBuf,
        companion: PathBuf,
        owner: u32,
    },
    #[error(
        "{path}: the history is read-only here; recording needs to write it (and FILE-wal beside it)"
    )]
    ReadOnly { path: PathBuf },
    #[error(
        "{path}: the history's schema is not the one agent-eval writes at version {version} ({differences}); it was left as it was. A table, index, trigger or view added by hand could change what is recorded: give a history only agent-eval has written"
    )]
    Schema {
        path: PathBuf,
        version: i32,
        differences: String,
    },
    #[error("{path}: the history database is damaged ({source}); nothing was written to it")]
    Damaged {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error(
        "{path}: the history holds a record agent-eval cannot read ({reason}); it was left as it was"
    )]
    Unreadable { path: PathBuf, reason: String },
    #[error("{path}: {source}")]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// An SQLite error on `path`, told apart by what the user can do about it.
fn sqlite_error(path: &Path, source: rusqlite::Error) -> HistoryError {
    let path = path.to_path_buf();
    match source.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => HistoryError::Locked {
            path,
            seconds: BUSY_TIMEOUT.as_secs(),
        },
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
            HistoryError::Damaged { path, source }
        }
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
            HistoryError::CannotWrite { path, source }
        }
        _ => HistoryError::Sqlite { path, source },
    }
}

/// Who recorded an invocation, and on what.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Invocation {
    /// `run` or `merge`.
    pub command: String,
    /// `K/N` for a shard's own partial cells.
    pub shard: Option<String>,
    pub commit: Option<String>,
    pub branch: Option<String>,
    /// Where the commit came from (a CI engine's name, `git`).
    pub commit_source: Option<String>,
    /// agent-eval's version.
    pub version: String,
}

/// An open history database.
pub struct History {
    path: PathBuf,
    conn: Connection,
    /// A reader's private copy of the database and its journal (see
    /// [`History::open_existing`]); removed when the history is dropped.
    _copy: Option<tempfile::TempDir>,
}

impl History {
    /// Opens (or creates) the history at `path`, refusing a file that is
    /// not one without writing to it, and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Self, HistoryError> {
        Self::open_with_timeout(path, BUSY_TIMEOUT)
    }

    /// Opens an existing history for reading only (`agent-eval history`,
    /// `--baseline`): a missing or empty file is an error, not a new
    /// history, and nothing is written beside the file either. When no
    /// journal is beside it and it is at the current version, SQLite reads
    /// it as `immutable` (no lock, no `-wal`, no `-shm`: a reader in a
    /// shared folder leaves nothing its owner cannot write); otherwise its
    /// bytes and its journal are copied into a private folder and that copy
    /// is read (and migrated, if older).
    pub fn open_existing(path: &Path) -> Result<Self, HistoryError> {
        if !schema::check_path(path)? {
            return Err(HistoryError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such history file"),
            });
        }
        let header = schema::read_header(path).map_err(|source| HistoryError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if header.is_empty() {
            return Err(not_history(
                path,
                "an empty file: nothing is recorded in it, and reading never makes a history",
            ));
        }
        let version = schema::header_i32(&header, 60);
        if version == SCHEMA_VERSION && !reader_copy::journal_beside(path) {
            let sql = |source| sqlite_error(path, source);
            let conn = schema::connect_immutable(path).map_err(sql)?;
            let tx = conn.unchecked_transaction().map_err(sql)?;
            if schema::state(&tx, path)? == State::Current {
                drop(tx);
                schema::check_pages(&conn, path)?;
                return Ok(Self {
                    path: path.to_path_buf(),
                    conn,
                    _copy: None,
                });
            }
        }
        let copy = reader_copy::copy(path)?;
        let conn = Self::connect_checked(&copy.path().join(reader_copy::NAME), path, BUSY_TIMEOUT)?;
        Ok(Self {
            path: path.to_path_buf(),
            conn,
            _copy: Some(copy),
        })
    }

    /// Opens (or creates) the history to record in it (`run --history`,
    /// `merge --history`): a companion file beside it this process cannot
    /// write is named before SQLite opens anything, and a history that
    /// cannot be written is refused ([`History::check_writable`]).
    pub fn open_to_record(path: &Path) -> Result<Self, HistoryError> {
        schema::check_path(path)?;
        schema::companions_are_writable(path)?;
        Self::open(path)?.check_writable()
    }

    /// [`History::open`] with another busy timeout.
    pub fn open_with_timeout(path: &Path, busy: Duration) -> Result<Self, HistoryError> {
        schema::check_path(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            conn: Self::connect_checked(path, path, busy)?,
            _copy: None,
        })
    }

    /// Connects to the database at `file` (named `shown` in errors),
    /// brings its schema up to date and checks it.
    fn connect_checked(
        file: &Path,
        shown: &Path,
        busy: Duration,
    ) -> Result<Connection, HistoryError> {
        let sql = |source| sqlite_error(shown, source);
        let mut conn = schema::connect(file).map_err(sql)?;
        conn.busy_timeout(busy).map_err(sql)?;
        // A read first: an up-to-date history is used as it is, so a
        // reader needs no write lock (and a read-only file can be read).
        let tx = conn.transaction().map_err(sql)?;
        let state = schema::state(&tx, shown)?;
        drop(tx);
        if let State::Behind(_) = state {
            Self::migrate(&mut conn, shown)?;
        }
        schema::check_pages(&conn, shown)?;
        Ok(conn)
    }

    /// Refuses, before any run, a history this process cannot write to
    /// (`run --history`, `merge --history`).
    pub fn check_writable(self) -> Result<Self, HistoryError> {
        match self.conn.is_readonly(rusqlite::MAIN_DB) {
            Ok(false) => Ok(self),
            Ok(true) => Err(HistoryError::ReadOnly { path: self.path }),
            Err(e) => Err(sqlite_error(&self.path, e)),
        }
    }

    /// Creates or migrates the schema under the write lock, checking again
    /// there what the file is (another writer may have created it since).
    fn migrate(conn: &mut Connection, path: &Path) -> Result<(), HistoryError> {
        let sql = |source| sqlite_error(path, source);
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        if let State::Behind(version) = schema::state(&tx, path)? {
            schema::migrate(&tx, version).map_err(sql)?;
        }
        tx.commit().map_err(sql)?;
        // WAL (only now that the file is known to be ours): readers never
        // block the writer, writers queue on the lock. It is kept in the
        // file, so when another writer holds the lock at this moment the
        // rollback journal still serves (with the same busy timeout).
        let _ = conn.query_row("PRAGMA journal_mode=WAL", [], |row| row.get::<_, String>(0));
        Ok(())
    }

    /// Records one invocation's results in one transaction; returns its id.
    /// What the file is gets checked again inside that transaction: the
    /// file may have changed during the runs.
    pub fn record(
        &mut self,
        invocation: &Invocation,
        results: &[ScenarioResult],
    ) -> Result<i64, HistoryError> {
        let path = self.path.clone();
        let sql = |source| sqlite_error(&path, source);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        if schema::state(&tx, &path)? != State::Current {
            return Err(not_history(&path, "its schema changed during the runs"));
        }
        tx.execute(
            "INSERT INTO invocation (recorded_at, command, shard, commit_sha, branch, commit_source, version)
             VALUES (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                invocation.command,
                invocation.shard,
                invocation.commit,
                invocation.branch,
                invocation.commit_source,
                invocation.version
            ],
        )
        .map_err(sql)?;
        let id = tx.last_insert_rowid();
        for result in results {
            insert_scenario(&tx, id, result).map_err(sql)?;
        }
        tx.commit().map_err(sql)?;
        Ok(id)
    }

    /// Every recorded cell of whole runs (not shards' partial cells), in
    /// the order recorded, for the scenarios whose name contains `scenario`
    /// and for `branch` only when given, of
    /// the newest `newest` such invocations when given (a huge history is
    /// never read whole for a table of its last runs).
    pub fn cells(
        &self,
        scenario: Option<&str>,
        branch: Option<&str>,
        newest: Option<usize>,
    ) -> Result<Vec<RecordedCell>, HistoryError> {
        // SQLite reads a negative LIMIT as none.
        let limit = newest.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let sql = |source| sqlite_error(&self.path, source);
        let mut statement = self
            .conn
            .prepare(
                "SELECT i.id, i.recorded_at, i.commit_sha, i.branch, i.version, s.scenario,
                        s.scenario_sha256, c.label, c.runs, c.completion, c.completion_lo,
                        c.completion_hi, c.full_completion, c.mean_tokens, s.profile,
                        s.profile_sha256
                 FROM cell c JOIN scenario_run s ON c.scenario_run_id = s.id
                      JOIN invocation i ON s.invocation_id = i.id
                 WHERE i.shard IS NULL AND (?1 IS NULL OR instr(s.scenario, ?1) > 0)
                   AND (?2 IS NULL OR i.branch = ?2)
                   AND i.id >= coalesce((
                       SELECT min(id) FROM (
                           SELECT i2.id FROM invocation i2
                           WHERE i2.shard IS NULL AND (?2 IS NULL OR i2.branch = ?2)
                             AND (?1 IS NULL OR EXISTS (SELECT 1 FROM scenario_run s2
                                  WHERE s2.invocation_id = i2.id AND instr(s2.scenario, ?1) > 0))
                           ORDER BY i2.id DESC LIMIT ?3)), 0)
                 ORDER BY i.id, s.id, c.position",
            )
            .map_err(sql)?;
        let rows = statement
            .query_map(params![scenario, branch, limit], |row| {
                Ok(RecordedCell {
                    invocation: row.get(0)?,
                    recorded_at: row.get(1)?,
                    commit: row.get(2)?,
                    branch: row.get(3)?,
                    version: row.get(4)?,
                    scenario: row.get(5)?,
                    scenario_sha256: row.get(6)?,
                    settings: row.get(7)?,
                    runs: row.get(8)?,
                    completion: row.get(9)?,
                    completion_ci95: match (row.get(10)?, row.get(11)?) {
                        (Some(lo), Some(hi)) => Some([lo, hi]),
                        _ => None,
                    },
                    full_completion: row.get(12)?,
                    mean_tokens: row.get(13)?,
                    profile: match (row.get::<_, Option<String>>(14)?, row.get(15)?) {
                        (Some(file), Some(sha256)) => Some(ProfileRef { file, sha256 }),
                        _ => None,
                    },
                })
            })
            .map_err(sql)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(sql)
    }

    /// How many invocations are recorded (shards included).
    pub fn invocations(&self) -> Result<i64, HistoryError> {
        self.conn
            .query_row("SELECT count(*) FROM invocation", [], |row| row.get(0))
            .optional()
            .map(Option::unwrap_or_default)
            .map_err(|source| sqlite_error(&self.path, source))
    }
}

/// One cell of one recorded invocation.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RecordedCell {
    pub invocation: i64,
    pub recorded_at: String,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub version: String,
    pub scenario: String,
    pub scenario_sha256: Option<String>,
    /// The cell's settings as the table shows them (`todo=true nag=3`).
    pub settings: String,
    pub runs: i64,
    pub completion: Option<f64>,
    pub completion_ci95: Option<[f64; 2]>,
    pub full_completion: Option<f64>,
    pub mean_tokens: Option<f64>,
    /// The calibration profile it ran under; none: the defaults.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileRef>,
}

fn insert_scenario(
    tx: &rusqlite::Transaction<'_>,
    invocation: i64,
    result: &ScenarioResult,
) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO scenario_run (invocation_id, scenario, file, scenario_sha256, seeds,
             profile, profile_sha256)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            invocation,
            result.name,
            result.file,
            scenario_hash(result),
            result.seeds.len() as i64,
            result.profile.as_ref().map(|p| p.file.as_str()),
            result.profile.as_ref().map(|p| p.sha256.as_str()),
        ],
    )?;
    let scenario_run = tx.last_insert_rowid();
    for (position, cell) in result.cells.iter().enumerate() {
        let completion = cell.metric(COMPLETION_RATE);
        let full = cell.metric(FULL_COMPLETION_RATE);
        let mean_tokens = cell
            .input_tokens
            .zip(cell.output_tokens)
            .filter(|_| cell.runs > 0)
            .map(|(i, o)| (i + o) as f64 / cell.runs as f64);
        let settings = serde_json::to_string(&cell.settings).unwrap_or_default();
        tx.execute(
            "INSERT INTO cell (scenario_run_id, position, settings, label, runs, completion,
                 completion_lo, completion_hi, full_completion, full_completion_lo,
                 full_completion_hi, mean_tokens)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                scenario_run,
                position as i64,
                settings,
                cell.settings.to_string(),
                cell.runs as i64,
                completion.map(|m| m.value),
                completion.and_then(|m| m.ci95).map(|c| c[0]),
                completion.and_then(|m| m.ci95).map(|c| c[1]),
                full.map(|m| m.value),
                full.and_then(|m| m.ci95).map(|c| c[0]),
                full.and_then(|m| m.ci95).map(|c| c[1]),
                mean_tokens
            ],
        )?;
        let cell_id = tx.last_insert_rowid();
        for metric in cell.metrics.iter().filter(|m| m.value.is_finite()) {
            tx.execute(
                "INSERT INTO cell_metric (cell_id, metric, value, lo, hi) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    cell_id,
                    metric.metric.name,
                    metric.value,
                    metric.ci95.map(|c| c[0]),
                    metric.ci95.map(|c| c[1])
                ],
            )?;
        }
    }
    Ok(())
}

/// SHA-256 of the scenario file's bytes: what the shards recorded (merge),
/// else the file as it is now (run, just after loading it).
pub fn scenario_hash(result: &ScenarioResult) -> Option<String> {
    use sha2::{Digest, Sha256};
    result.sha256.clone().or_else(|| {
        let bytes = std::fs::read(&result.file).ok()?;
        Some(
            Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user_version(history: &History) -> i32 {
        history
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn a_new_file_gets_the_schema_and_its_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let history = History::open(&path).unwrap();
        let version = user_version(&history);
        assert_eq!(version, SCHEMA_VERSION);
        assert_eq!(history.invocations().unwrap(), 0);
        drop(history);
        // Opened again, it is the same database.
        assert_eq!(History::open(&path).unwrap().invocations().unwrap(), 0);
    }

    #[test]
    fn other_files_are_refused_and_left_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("other.db");
        Connection::open(&other)
            .unwrap()
            .execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
            .unwrap();
        let random: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        std::fs::write(dir.path().join("random.bin"), &random).unwrap();
        std::fs::write(dir.path().join("text.txt"), "not a database\n").unwrap();
        for name in ["other.db", "random.bin", "text.txt"] {
            let path = dir.path().join(name);
            let before = std::fs::read(&path).unwrap();
            let Err(e) = History::open(&path) else {
                panic!("{name} was accepted");
            };
            assert!(e.to_string().contains(name), "{e}");
            assert_eq!(std::fs::read(&path).unwrap(), before, "{name} changed");
        }
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 3, "no -wal or -journal file was made");
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        drop(History::open(&path).unwrap());
        Connection::open(&path)
            .unwrap()
            .execute_batch("PRAGMA user_version = 99;")
            .unwrap();
        let before = std::fs::read(&path).unwrap();
        let e = History::open(&path).err().unwrap();
        assert!(matches!(e, HistoryError::Newer { found: 99, .. }), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), before, "left as it was");
    }

    /// The version 1 schema as agent-eval 0.x wrote it, kept here
    /// verbatim so the migration is tested against the real old layout.
    const V1_SCHEMA: &str = "
        CREATE TABLE invocation (id INTEGER PRIMARY KEY, recorded_at TEXT NOT NULL,
            command TEXT NOT NULL, shard TEXT, commit_sha TEXT, branch TEXT,
            commit_source TEXT, version TEXT NOT NULL);
        CREATE TABLE scenario_run (id INTEGER PRIMARY KEY,
            invocation_id INTEGER NOT NULL REFERENCES invocation(id), scenario TEXT NOT NULL,
            file TEXT NOT NULL, scenario_sha256 TEXT, seeds INTEGER NOT NULL);
        CREATE TABLE cell (id INTEGER PRIMARY KEY,
            scenario_run_id INTEGER NOT NULL REFERENCES scenario_run(id),
            position INTEGER NOT NULL, settings TEXT NOT NULL, label TEXT NOT NULL,
            runs INTEGER NOT NULL, completion REAL, completion_lo REAL, completion_hi REAL,
            full_completion REAL, full_completion_lo REAL, full_completion_hi REAL,
            mean_tokens REAL);
        CREATE INDEX scenario_run_by_invocation ON scenario_run(invocation_id);
        CREATE INDEX cell_by_scenario_run ON cell(scenario_run_id);
        PRAGMA application_id = 1095071304;
        PRAGMA user_version = 1;
        PRAGMA journal_mode = WAL;
        INSERT INTO invocation VALUES (1, '2026-11-01T10:00:00Z', 'run', NULL, 'abc', 'main', 'git', '0.1.0');
        INSERT INTO scenario_run VALUES (1, 1, 'docs_fixes', 'd.yaml', 'ff', 4);
        INSERT INTO cell VALUES (1, 1, 0, '{\"todo\":true}', 'todo=true', 4,
            0.75, 0.3, 0.95, 0.5, 0.15, 0.85, NULL);
    ";

    #[test]
    fn a_version_1_history_migrates_and_keeps_its_rows() {
        assert_eq!(APPLICATION_ID, 1_095_071_304);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch(V1_SCHEMA)
            .unwrap();
        let history = History::open(&path).unwrap();
        let version = user_version(&history);
        assert_eq!(version, SCHEMA_VERSION);
        let cells = history.cells(None, None, None).unwrap();
        assert_eq!(cells.len(), 1);
        assert_eq!(cells[0].completion, Some(0.75));
        assert_eq!(cells[0].completion_ci95, Some([0.3, 0.95]));
        let metrics: Vec<(String, f64, f64, f64)> = history
            .conn
            .prepare("SELECT metric, value, lo, hi FROM cell_metric ORDER BY metric")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            metrics,
            [
                ("completion_rate".into(), 0.75, 0.3, 0.95),
                ("full_completion_rate".into(), 0.5, 0.15, 0.85)
            ]
        );
    }

    /// A reader migrates a private copy: the file keeps its version and
    /// its bytes, and nothing is made beside it.
    #[test]
    fn reading_a_version_1_history_leaves_it_at_version_1() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(V1_SCHEMA).unwrap();
        conn.execute_batch("PRAGMA journal_mode = DELETE;").unwrap();
        drop(conn);
        let before = std::fs::read(&path).unwrap();
        let reader = History::open_existing(&path).unwrap();
        assert_eq!(reader.cells(None, None, None).unwrap().len(), 1);
        drop(reader);
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_migration_leaves_version_1_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(V1_SCHEMA).unwrap();
        // A table in the way of v2's: the migration fails half-way.
        conn.execute_batch("CREATE TABLE cell_metric (x TEXT);")
            .unwrap();
        drop(conn);
        assert!(History::open(&path).is_err());
        let conn = Connection::open(&path).unwrap();
        let version: i32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, 1, "one transaction: all of it or none");
        let indexes: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'scenario_run_by_hash'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(indexes, 0);
    }
}
