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

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::scenario_result::ScenarioResult;
use crate::metric::{COMPLETION_RATE, FULL_COMPLETION_RATE};

/// `PRAGMA application_id` of an agent-eval history ("AEvH").
pub const APPLICATION_ID: i32 = 0x4145_7648;
/// The schema version written in `PRAGMA user_version`.
pub const SCHEMA_VERSION: i32 = 1;
/// How long a writer waits for another to finish its transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// The schema, one script per version: `MIGRATIONS[v]` takes a database at
/// version `v` to `v + 1`.
const MIGRATIONS: &[&str] = &["
    CREATE TABLE invocation (
        id INTEGER PRIMARY KEY,
        recorded_at TEXT NOT NULL,
        command TEXT NOT NULL,
        shard TEXT,
        commit_sha TEXT,
        branch TEXT,
        commit_source TEXT,
        version TEXT NOT NULL
    );
    CREATE TABLE scenario_run (
        id INTEGER PRIMARY KEY,
        invocation_id INTEGER NOT NULL REFERENCES invocation(id),
        scenario TEXT NOT NULL,
        file TEXT NOT NULL,
        scenario_sha256 TEXT,
        seeds INTEGER NOT NULL
    );
    CREATE TABLE cell (
        id INTEGER PRIMARY KEY,
        scenario_run_id INTEGER NOT NULL REFERENCES scenario_run(id),
        position INTEGER NOT NULL,
        settings TEXT NOT NULL,
        label TEXT NOT NULL,
        runs INTEGER NOT NULL,
        completion REAL,
        completion_lo REAL,
        completion_hi REAL,
        full_completion REAL,
        full_completion_lo REAL,
        full_completion_hi REAL,
        mean_tokens REAL
    );
    CREATE INDEX scenario_run_by_invocation ON scenario_run(invocation_id);
    CREATE INDEX cell_by_scenario_run ON cell(scenario_run_id);
"];

/// Why the history could not be used.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error(
        "{path}: not an agent-eval history database ({reason}); it was left as it was. Give a new file name or an existing history"
    )]
    NotHistory { path: PathBuf, reason: String },
    #[error(
        "{path}: history schema version {found} is newer than this agent-eval knows ({SCHEMA_VERSION}); use a newer agent-eval"
    )]
    Newer { path: PathBuf, found: i32 },
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
}

impl History {
    /// Opens (or creates) the history at `path`, refusing a file that is
    /// not one without writing to it, and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Self, HistoryError> {
        check_header(path)?;
        let sql = |source| HistoryError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let mut conn = Connection::open(path).map_err(sql)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        let app: i32 = tx
            .query_row("PRAGMA application_id", [], |row| row.get(0))
            .map_err(sql)?;
        let version: i32 = tx
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(sql)?;
        let tables: i64 = tx
            .query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))
            .map_err(sql)?;
        if app != APPLICATION_ID && (app != 0 || tables != 0) {
            return Err(not_history(path, "another application's database"));
        }
        if version > SCHEMA_VERSION {
            return Err(HistoryError::Newer {
                path: path.to_path_buf(),
                found: version,
            });
        }
        for script in &MIGRATIONS[usize::try_from(version).unwrap_or(0)..] {
            tx.execute_batch(script).map_err(sql)?;
        }
        tx.execute_batch(&format!(
            "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
        ))
        .map_err(sql)?;
        tx.commit().map_err(sql)?;
        // WAL (only now that the file is known to be ours): readers never
        // block the writer, writers queue on the lock. It is kept in the
        // file, so when another writer holds the lock at this moment the
        // rollback journal still serves (with the same busy timeout).
        let _ = conn.query_row("PRAGMA journal_mode=WAL", [], |row| row.get::<_, String>(0));
        Ok(Self {
            path: path.to_path_buf(),
            conn,
        })
    }

    /// Records one invocation's results in one transaction; returns its id.
    pub fn record(
        &mut self,
        invocation: &Invocation,
        results: &[ScenarioResult],
    ) -> Result<i64, HistoryError> {
        let path = self.path.clone();
        let sql = |source| HistoryError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
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
    /// the order recorded, for `scenario` and `branch` only when given.
    pub fn cells(
        &self,
        scenario: Option<&str>,
        branch: Option<&str>,
    ) -> Result<Vec<RecordedCell>, HistoryError> {
        let sql = |source| HistoryError::Sqlite {
            path: self.path.clone(),
            source,
        };
        let mut statement = self
            .conn
            .prepare(
                "SELECT i.id, i.recorded_at, i.commit_sha, i.branch, i.version, s.scenario,
                        s.scenario_sha256, c.label, c.runs, c.completion, c.completion_lo,
                        c.completion_hi, c.full_completion, c.mean_tokens
                 FROM cell c JOIN scenario_run s ON c.scenario_run_id = s.id
                      JOIN invocation i ON s.invocation_id = i.id
                 WHERE i.shard IS NULL AND (?1 IS NULL OR s.scenario = ?1)
                   AND (?2 IS NULL OR i.branch = ?2)
                 ORDER BY i.id, s.id, c.position",
            )
            .map_err(sql)?;
        let rows = statement
            .query_map(params![scenario, branch], |row| {
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
            .map_err(|source| HistoryError::Sqlite {
                path: self.path.clone(),
                source,
            })
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
}

fn insert_scenario(
    tx: &rusqlite::Transaction<'_>,
    invocation: i64,
    result: &ScenarioResult,
) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO scenario_run (invocation_id, scenario, file, scenario_sha256, seeds)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            invocation,
            result.name,
            result.file,
            scenario_hash(result),
            result.seeds.len() as i64
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
    }
    Ok(())
}

/// SHA-256 of the scenario file's bytes: what the shards recorded (merge),
/// else the file as it is now (run, just after loading it).
fn scenario_hash(result: &ScenarioResult) -> Option<String> {
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

fn not_history(path: &Path, reason: &str) -> HistoryError {
    HistoryError::NotHistory {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// Refuses, by reading its first 100 bytes only, a file that is neither
/// missing, empty nor an SQLite database that may be agent-eval's
/// (SQLite's header: the magic string, and the application id at offset
/// 68, ours or not yet set).
fn check_header(path: &Path) -> Result<(), HistoryError> {
    let io = |source| HistoryError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(e)),
    };
    if !file.metadata().map_err(io)?.is_file() {
        return Err(not_history(path, "not a regular file"));
    }
    let mut header = Vec::with_capacity(100);
    file.by_ref()
        .take(100)
        .read_to_end(&mut header)
        .map_err(io)?;
    if header.is_empty() {
        return Ok(());
    }
    if header.len() < 100 || !header.starts_with(b"SQLite format 3\0") {
        return Err(not_history(path, "not an SQLite database"));
    }
    // 0: a database just being created by a concurrent writer, or another
    // application's; the check under the write lock in [`History::open`]
    // tells them apart before anything is written.
    let app = i32::from_be_bytes([header[68], header[69], header[70], header[71]]);
    if app != APPLICATION_ID && app != 0 {
        return Err(not_history(path, "another application's SQLite database"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_gets_the_schema_and_its_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let history = History::open(&path).unwrap();
        let version: i32 = history
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
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
        let e = History::open(&path).err().unwrap();
        assert!(matches!(e, HistoryError::Newer { found: 99, .. }), "{e}");
    }
}
