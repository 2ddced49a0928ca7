//! The history database's schema and the checks that keep foreign files
//! untouched: the migrations (one script per version, applied in one
//! transaction), the path checks made before SQLite sees the file (no
//! symbolic link, no directory, FIFO or device, an SQLite header with our
//! `application_id` or none yet), and the checks made inside the open
//! connection under the write lock (the application id, the version, no
//! foreign tables), which close the window between looking at the file and
//! opening it. [`super::History`] is the database's face.

use std::io::Read;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::HistoryError;

/// `PRAGMA application_id` of an agent-eval history ("AEvH").
pub const APPLICATION_ID: i32 = 0x4145_7648;
/// The schema version written in `PRAGMA user_version`.
pub const SCHEMA_VERSION: i32 = 3;

/// Version 1: invocations, the scenarios each ran and their cells, with
/// completion and full completion as columns.
const V1: &str = "
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
";

/// Version 2: every metric of every cell (`cell_metric`, by the metric
/// table's names), so a baseline read from the history judges the same
/// gated metrics a report does, whatever the metric table gates; the v1
/// columns are copied in. Indexes for the baseline's lookup (the last
/// whole run of a scenario hash, on a branch) and for `--last`.
const V2: &str = "
    CREATE TABLE cell_metric (
        cell_id INTEGER NOT NULL REFERENCES cell(id),
        metric TEXT NOT NULL,
        value REAL NOT NULL,
        lo REAL,
        hi REAL,
        PRIMARY KEY (cell_id, metric)
    ) WITHOUT ROWID;
    INSERT INTO cell_metric (cell_id, metric, value, lo, hi)
        SELECT id, 'completion_rate', completion, completion_lo, completion_hi
        FROM cell WHERE completion IS NOT NULL;
    INSERT INTO cell_metric (cell_id, metric, value, lo, hi)
        SELECT id, 'full_completion_rate', full_completion, full_completion_lo, full_completion_hi
        FROM cell WHERE full_completion IS NOT NULL;
    CREATE INDEX scenario_run_by_hash ON scenario_run(scenario_sha256, invocation_id);
    CREATE INDEX invocation_by_branch ON invocation(branch, id);
";

/// Version 3: the calibration profile each scenario ran under (`run
/// --profile`, `simulate: {profile:}`), by file name and SHA-256, so the
/// history compares like with like; NULL (every row of an older history)
/// is the simulated model's defaults.
const V3: &str = "
    ALTER TABLE scenario_run ADD COLUMN profile TEXT;
    ALTER TABLE scenario_run ADD COLUMN profile_sha256 TEXT;
";

/// `MIGRATIONS[v]` takes a database at version `v` to `v + 1`.
const MIGRATIONS: &[&str] = &[V1, V2, V3];

pub(super) fn not_history(path: &Path, reason: &str) -> HistoryError {
    HistoryError::NotHistory {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// Refuses, without following a link and by reading its first 100 bytes
/// only, a path that is not missing, empty or an SQLite database that may
/// be agent-eval's (SQLite's magic string, and the application id at
/// offset 68, ours or not yet set). Returns whether the file exists.
pub(super) fn check_path(path: &Path) -> Result<bool, HistoryError> {
    let io = |source| HistoryError::Io {
        path: path.to_path_buf(),
        source,
    };
    companions_are_safe(path)?;
    let kind = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta.file_type(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(io(e)),
    };
    if kind.is_symlink() {
        return Err(not_history(
            path,
            "a symbolic link; give the history's own path",
        ));
    }
    if kind.is_dir() {
        return Err(not_history(path, "a directory"));
    }
    if !kind.is_file() {
        return Err(not_history(path, "not a regular file"));
    }
    let header = read_header(path).map_err(io)?;
    if header.is_empty() {
        return Ok(true);
    }
    if header.len() < 100 || !header.starts_with(b"SQLite format 3\0") {
        return Err(not_history(path, "not an SQLite database"));
    }
    // 0: a database just being created by a concurrent writer, or another
    // application's; the check under the write lock tells them apart
    // before anything is written.
    let app = header_i32(&header, 68);
    if app != APPLICATION_ID && app != 0 {
        return Err(not_history(path, "another application's SQLite database"));
    }
    Ok(true)
}

/// The big-endian 32-bit number at byte `at` of a database header (0 for
/// a header too short to hold it: what SQLite reads as unset).
pub(super) fn header_i32(header: &[u8], at: usize) -> i32 {
    header
        .get(at..at.saturating_add(4))
        .and_then(|bytes| <[u8; 4]>::try_from(bytes).ok())
        .map_or(0, i32::from_be_bytes)
}

/// The companion files SQLite writes beside the database.
pub(super) const COMPANIONS: [&str; 3] = ["-wal", "-shm", "-journal"];

/// `path` with `suffix` appended to its name (`h.db` → `h.db-wal`).
pub(super) fn companion(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// SQLite writes `FILE-wal`, `FILE-shm` and `FILE-journal` beside the
/// database, through whatever is at that name: one that is a symbolic
/// link, anything but a regular file, or a hard link (a second name of
/// another file, which the writes would overwrite) is refused with its
/// name, before SQLite opens anything.
fn companions_are_safe(path: &Path) -> Result<(), HistoryError> {
    use std::os::unix::fs::MetadataExt;
    for suffix in COMPANIONS {
        let companion = companion(path, suffix);
        let Ok(meta) = std::fs::symlink_metadata(&companion) else {
            continue;
        };
        let problem = if meta.file_type().is_symlink() {
            "is a symbolic link".to_string()
        } else if !meta.is_file() {
            "is not a regular file".to_string()
        } else if meta.nlink() > 1 {
            format!(
                "is a hard link ({} names of one file): writing it would overwrite the other",
                meta.nlink()
            )
        } else {
            continue;
        };
        return Err(not_history(
            path,
            &format!("its companion file {} {problem}", companion.display()),
        ));
    }
    Ok(())
}

/// Refuses, for a writer, a companion file beside the database that this
/// process may not write (another user's, left by an older agent-eval's
/// reader or by a writer still at work): SQLite would only say "readonly
/// database"; this names the file and what to do.
pub(super) fn companions_are_writable(path: &Path) -> Result<(), HistoryError> {
    use std::os::unix::fs::MetadataExt;
    for suffix in COMPANIONS {
        let companion = companion(path, suffix);
        let Ok(meta) = std::fs::symlink_metadata(&companion) else {
            continue;
        };
        let Ok(name) = std::ffi::CString::new(companion.as_os_str().as_encoded_bytes()) else {
            continue;
        };
        // SAFETY: a valid NUL-terminated path; access() only reads it.
        if unsafe { libc::access(name.as_ptr(), libc::W_OK) } != 0 {
            return Err(HistoryError::CompanionNotWritable {
                path: path.to_path_buf(),
                companion,
                owner: meta.uid(),
            });
        }
    }
    Ok(())
}

/// The first 100 bytes, opened without following a link and without
/// blocking (a FIFO swapped in after the type check must not hang us).
pub(super) fn read_header(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut header = Vec::with_capacity(100);
    file.take(100).read_to_end(&mut header)?;
    Ok(header)
}

/// Opens the connection: no link followed, no URI interpretation of the
/// name, created when missing (the caller decides whether it may be).
pub(super) fn connect(path: &Path) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW,
    )
}

/// Opens `path` for reading only, as SQLite's `immutable`: no lock is
/// taken and no `-wal` or `-shm` is made or opened beside it (for a
/// history with no journal beside it, checked by the caller). The name
/// goes in a `file:` URI, every byte but the plain ones percent-encoded.
pub(super) fn connect_immutable(path: &Path) -> rusqlite::Result<Connection> {
    use std::fmt::Write;
    let absolute =
        std::path::absolute(path).map_err(|_| rusqlite::Error::InvalidPath(path.to_path_buf()))?;
    let mut uri = String::from("file://");
    for &byte in absolute.as_os_str().as_encoded_bytes() {
        if byte.is_ascii_alphanumeric() || b"/._~-".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            let _ = write!(uri, "%{byte:02X}");
        }
    }
    uri.push_str("?mode=ro&immutable=1");
    Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW,
    )
}

/// What the open connection says the file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    /// Ours, at the current version.
    Current,
    /// New (no tables, no id) or ours at this older version.
    Behind(i32),
}

/// Reads the application id, version and table count through `conn`
/// (inside the caller's transaction) and refuses what is not ours.
pub(super) fn state(conn: &Connection, path: &Path) -> Result<State, HistoryError> {
    let sql = |source| super::sqlite_error(path, source);
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |row| row.get(0))
        .map_err(sql)?;
    let version: i32 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(sql)?;
    let tables: i64 = conn
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
    if app == APPLICATION_ID && version < 1 {
        return Err(not_history(path, "our id without a schema version"));
    }
    if app == APPLICATION_ID {
        check_exact_schema(conn, path, version)?;
    }
    Ok(if version == SCHEMA_VERSION {
        State::Current
    } else {
        State::Behind(version)
    })
}

/// Refuses a history (ours by its id and version) whose pages are
/// damaged: found when it is opened, not after the runs. The check is
/// SQLite's `quick_check`, linear in the file's size and read-only.
pub(super) fn check_pages(conn: &Connection, path: &Path) -> Result<(), HistoryError> {
    let verdict: String = conn
        .query_row("PRAGMA quick_check(1)", [], |row| row.get(0))
        .map_err(|e| super::sqlite_error(path, e))?;
    if verdict != "ok" {
        return Err(HistoryError::Unreadable {
            path: path.to_path_buf(),
            reason: format!("damaged: {verdict}"),
        });
    }
    Ok(())
}

/// One entry of `sqlite_master`: its kind, name, table and SQL.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct SchemaEntry {
    kind: String,
    name: String,
    table: String,
    sql: String,
}

/// Every table, index, trigger and view of the database behind `conn`,
/// sorted, with the spacing of its SQL folded (a history written with
/// other line breaks is the same schema). SQLite's own statistics tables
/// (`sqlite_stat1` to `4`, made by `ANALYZE`) are left out: they steer
/// query plans and change no figure.
fn schema_of(conn: &Connection) -> rusqlite::Result<Vec<SchemaEntry>> {
    let mut statement = conn.prepare(
        "SELECT type, name, tbl_name, sql FROM sqlite_master
         WHERE name NOT IN ('sqlite_stat1', 'sqlite_stat2', 'sqlite_stat3', 'sqlite_stat4')",
    )?;
    let rows = statement.query_map([], |row| {
        Ok(SchemaEntry {
            kind: row.get(0)?,
            name: row.get(1)?,
            table: row.get(2)?,
            sql: fold_sql(row.get::<_, Option<String>>(3)?.as_deref().unwrap_or("")),
        })
    })?;
    let mut entries = rows.collect::<Result<Vec<_>, _>>()?;
    entries.sort();
    Ok(entries)
}

/// `sql` with every run of white space made one space, none next to
/// `(`, `)` or `,`, and in lower case.
fn fold_sql(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut space = false;
    for c in sql.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space && !matches!(c, '(' | ')' | ',') && !out.ends_with(['(', ')', ',']) {
            out.push(' ');
        }
        space = false;
        out.extend(c.to_lowercase());
    }
    out
}

/// The schema agent-eval writes at `version`: its migrations applied to
/// an empty database in memory, so the expected set can never drift from
/// the scripts.
fn expected_schema(version: i32) -> rusqlite::Result<Vec<SchemaEntry>> {
    let conn = Connection::open_in_memory()?;
    let upto = usize::try_from(version).unwrap_or(0);
    for script in MIGRATIONS.iter().take(upto) {
        conn.execute_batch(script)?;
    }
    schema_of(&conn)
}

/// Refuses a history whose tables, indexes, triggers or views are not
/// exactly those agent-eval writes at `version`: an extra trigger could
/// rewrite every figure recorded after it, an extra view or index could
/// stand in for a table, a missing index slows every read.
fn check_exact_schema(conn: &Connection, path: &Path, version: i32) -> Result<(), HistoryError> {
    let sql = |source| super::sqlite_error(path, source);
    let found = schema_of(conn).map_err(sql)?;
    let expected = expected_schema(version).map_err(sql)?;
    if found == expected {
        return Ok(());
    }
    let named = |entries: &[SchemaEntry], e: &SchemaEntry| {
        entries
            .iter()
            .find(|x| x.kind == e.kind && x.name == e.name)
            .map(|x| x.sql == e.sql && x.table == e.table)
    };
    let mut differences = Vec::new();
    for entry in &found {
        match named(&expected, entry) {
            None => differences.push(format!("an extra {} {}", entry.kind, entry.name)),
            Some(false) => differences.push(format!(
                "{} {} is not as agent-eval writes it",
                entry.kind, entry.name
            )),
            Some(true) => {}
        }
    }
    for entry in &expected {
        if named(&found, entry).is_none() {
            differences.push(format!("no {} {}", entry.kind, entry.name));
        }
    }
    Err(HistoryError::Schema {
        path: path.to_path_buf(),
        version,
        differences: differences.join("; "),
    })
}

/// Applies the migrations from `version` on and stamps the id and the
/// current version, inside the caller's write transaction.
pub(super) fn migrate(conn: &Connection, version: i32) -> rusqlite::Result<()> {
    let from = usize::try_from(version).unwrap_or(0);
    for script in MIGRATIONS.iter().skip(from) {
        conn.execute_batch(script)?;
    }
    conn.execute_batch(&format!(
        "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The number is read big-endian; a header too short gives 0.
    #[test]
    fn header_numbers_are_big_endian_and_0_past_the_end() {
        let mut header = vec![0u8; 100];
        header[68..72].copy_from_slice(&[0x12, 0x34, 0x56, 0x78]);
        assert_eq!(header_i32(&header, 68), 0x1234_5678);
        assert_eq!(header_i32(&header, 98), 0);
        assert_eq!(header_i32(&header, usize::MAX), 0);
    }

    #[test]
    fn one_migration_per_version() {
        assert_eq!(MIGRATIONS.len(), SCHEMA_VERSION as usize);
    }
}
