//! `copilot-sql`: GitHub Copilot CLI's plan, kept as rows of a `todos`
//! table (and `todo_deps`) in the session's SQLite database, which the
//! model writes and queries through the generic `sql` tool (`{description,
//! query}`). Copilot CLI 1.0.102 has no planning tool of its own and no
//! planning reminder; this is its design as the pinned binary answers it
//! (`tests/data/copilot/`).
//!
//! Each call runs the model's SQL on an in-memory SQLite database with the
//! CLI's own schema ([`SCHEMA`]), holding the plan as it stands: the plan's
//! items are the `todos` rows (id, title, status; the description and the
//! `todo_deps` rows of each kept in its [`TaskFields`]), so the database
//! is rebuilt from the plan at each call and the plan read back from the
//! table after it. Tables the model creates besides the two, and columns it
//! adds, last one call (the plan is the two tables). Statements run one
//! after another, as the CLI runs them (no transaction: those before a
//! failing one stay done); results and errors are worded as the CLI words
//! them (`2 row(s) inserted. Last inserted row ID: 2.`, a markdown table for
//! a `SELECT`, `SQL Error: Error: <SQLite's message>`).
//!
//! The model's SQL is untrusted: `ATTACH`, `VACUUM INTO` and
//! `load_extension` are refused as the CLI refuses them, and past that
//! wording an authorizer refuses every PRAGMA but the schema-reading ones,
//! every attach and extension, however spelt (`guard`); temporary storage
//! stays in memory, `main` and `temp` are capped at 32 MiB each, strings
//! at 1 MB, SQLite's heap in the process at
//! 1 GiB, a call may run a bounded number of SQLite steps (then
//! `interrupted`), and a result is streamed, showing at most [`MAX_ROWS`]
//! rows and [`MAX_SHOWN_BYTES`] bytes of them. `datetime`,
//! `date`, `time`, `julianday` and `unixepoch` answer one fixed instant, so
//! none of their results depends on the clock (SQLite's `CURRENT_TIMESTAMP`
//! keywords still read it).

use std::cell::Cell;
use std::sync::LazyLock;

use rusqlite::functions::FunctionFlags;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, params};
use serde_json::Value;

use guard::MAX_LENGTH;
use guard::Refusal;

use super::error::CopilotSqlError;

use super::{
    InvalidUpdate, PlanCall, PlanDialect, PlanItem, PlanOutcome, PlanStatus, TaskFields,
    match_by_text,
};
use crate::llm::ToolSchema;

const TOOL: &str = "sql";

/// The CLI's built-in tables, as its database holds them.
pub const SCHEMA: &str = "CREATE TABLE todos (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        description TEXT,
        status TEXT DEFAULT 'pending' CHECK(status IN ('pending', 'in_progress', 'done', 'blocked')),
        created_at TEXT DEFAULT (datetime('now')),
        updated_at TEXT DEFAULT (datetime('now'))
    );
CREATE TABLE todo_deps (
        todo_id TEXT NOT NULL,
        depends_on TEXT NOT NULL,
        PRIMARY KEY (todo_id, depends_on),
        FOREIGN KEY (todo_id) REFERENCES todos(id),
        FOREIGN KEY (depends_on) REFERENCES todos(id)
    );";

/// The instant every date function answers.
const FIXED_NOW: &str = "2026-01-01 00:00:00";

/// SQLite virtual-machine steps one call may take.
const MAX_STEPS: u64 = 20_000_000;
/// Rows a result shows.
pub const MAX_ROWS: usize = 1000;
/// Bytes of rows a result shows (the rows past them are counted only).
pub const MAX_SHOWN_BYTES: usize = 64 * 1024;

/// Statements the CLI refuses, as the words it names them by.
const BLOCKED: [(&str, &str); 3] = [
    ("ATTACH", "ATTACH"),
    ("LOAD_EXTENSION", "load_extension"),
    ("VACUUM INTO", "VACUUM INTO"),
];

#[derive(Debug, Clone, Copy)]
pub struct CopilotSql;

static SCHEMAS: LazyLock<Vec<ToolSchema>> = super::schema_file::schemas!("copilot_sql.json");

fn status_of(word: &str) -> Option<PlanStatus> {
    match word {
        "pending" => Some(PlanStatus::Pending),
        "in_progress" => Some(PlanStatus::InProgress),
        "done" => Some(PlanStatus::Completed),
        "blocked" => Some(PlanStatus::Failed),
        _ => None,
    }
}

fn word(status: PlanStatus) -> &'static str {
    match status {
        PlanStatus::Pending => "pending",
        PlanStatus::InProgress => "in_progress",
        PlanStatus::Completed => "done",
        PlanStatus::Failed | PlanStatus::Cancelled => "blocked",
    }
}

/// zod's complaint about a bad field, as the CLI answers it.
fn field_error(input: &Value, field: &'static str) -> Option<CopilotSqlError> {
    match input.get(field) {
        Some(Value::String(_)) => None,
        None | Some(Value::Null) => Some(CopilotSqlError::Required { field }),
        Some(other) => Some(CopilotSqlError::NotAString {
            field,
            received: super::zod_type(other),
        }),
    }
}

/// The query, or the error the CLI gives before running anything.
fn checked_query(input: &Value) -> Result<&str, CopilotSqlError> {
    if !input.is_object() {
        return Err(CopilotSqlError::NotAnObject {
            received: super::zod_type(input),
        });
    }
    if let Some(error) = field_error(input, "description").or_else(|| field_error(input, "query")) {
        return Err(error);
    }
    let query = input
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if query.trim().is_empty() {
        return Err(CopilotSqlError::EmptyQuery);
    }
    if query.len() > MAX_LENGTH as usize {
        return Err(CopilotSqlError::TooBig);
    }
    let upper = query.to_ascii_uppercase();
    let squeezed = upper.split_whitespace().collect::<Vec<_>>().join(" ");
    for (needle, name) in BLOCKED {
        if contains_word(&squeezed, needle) {
            return Err(CopilotSqlError::Blocked { name });
        }
    }
    Ok(query)
}

/// Whether `needle` occurs in `text` as a whole word.
fn contains_word(text: &str, needle: &str) -> bool {
    let word_char = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    text.match_indices(needle).any(|(at, _)| {
        !word_char(text[..at].chars().next_back())
            && !word_char(text[at + needle.len()..].chars().next())
    })
}

/// Where the first `stop` at or after `from` is in `bytes`, else the
/// length.
fn byte_from(bytes: &[u8], from: usize, stop: u8) -> usize {
    bytes
        .get(from..)
        .and_then(|rest| rest.iter().position(|&b| b == stop))
        .map_or(bytes.len(), |k| from + k)
}

/// The statements of a query, split at the semicolons outside quotes and
/// comments (empty ones dropped).
fn statements(query: &str) -> Vec<&str> {
    let bytes = query.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut at) = (0, 0);
    while let Some(&byte) = bytes.get(at) {
        match byte {
            quote @ (b'\'' | b'"' | b'`') => at = byte_from(bytes, at + 1, quote),
            b'[' => at = byte_from(bytes, at, b']'),
            b'-' if bytes.get(at + 1) == Some(&b'-') => at = byte_from(bytes, at, b'\n'),
            // To the comment's closing `/` (past the end when it has none).
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at = bytes
                    .get(at + 2..)
                    .and_then(|rest| rest.windows(2).position(|pair| pair == b"*/"))
                    .map_or(bytes.len(), |k| at + 2 + k + 1);
            }
            b';' => {
                out.push(&query[start..at]);
                start = at + 1;
            }
            _ => {}
        }
        at += 1;
    }
    out.push(&query[start.min(query.len())..]);
    out.into_iter().filter(|s| !keyword(s).is_empty()).collect()
}

/// A statement's first word, upper-cased, after white space and comments.
fn keyword(statement: &str) -> String {
    let mut rest = statement.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.split_once('\n').map_or("", |(_, r)| r).trim_start();
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r).trim_start();
        } else {
            break;
        }
    }
    rest.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect::<String>()
        .to_ascii_uppercase()
}

/// One SQLite value as the CLI prints it in a table, appended to `line`
/// and cut once `line` is `room` bytes long (a value may be a megabyte,
/// and a blob's text eight times its size).
fn push_cell(line: &mut String, value: ValueRef<'_>, room: usize) {
    use std::fmt::Write;
    match value {
        ValueRef::Null => line.push_str("NULL"),
        ValueRef::Integer(n) => {
            let _ = write!(line, "{n}");
        }
        ValueRef::Real(x) => {
            let _ = write!(line, "{x}");
        }
        ValueRef::Text(text) => {
            let fits = text.len().min(room.saturating_sub(line.len()));
            line.push_str(&String::from_utf8_lossy(text.get(..fits).unwrap_or(text)));
        }
        // Node's Buffer as JSON: byte by index.
        ValueRef::Blob(bytes) => {
            line.push('{');
            for (k, b) in bytes.iter().enumerate() {
                if line.len() >= room {
                    break;
                }
                let comma = if k == 0 { "" } else { "," };
                let _ = write!(line, "{comma}\"{k}\":{b}");
            }
            line.push('}');
        }
    }
}

/// A row as a table line, or `None` when it does not fit in `room` bytes.
fn table_line(row: &rusqlite::Row<'_>, columns: usize, room: usize) -> Option<String> {
    let mut line = String::from("|");
    for k in 0..columns {
        line.push(' ');
        if let Ok(value) = row.get_ref(k) {
            push_cell(&mut line, value, room);
        }
        line.push_str(" |");
        if line.len() > room {
            return None;
        }
    }
    Some(line)
}

/// Runs a row-returning statement: the CLI's markdown table. Rows are
/// streamed: at most [`MAX_ROWS`] rows and [`MAX_SHOWN_BYTES`] bytes of
/// them are kept, the others only counted.
fn select(conn: &Connection, sql: &str) -> rusqlite::Result<String> {
    let mut statement = conn.prepare(sql)?;
    let names: Vec<String> = statement.column_names().map(str::to_string).collect();
    let mut rows = statement.query([])?;
    let (mut shown, mut room) = (String::new(), MAX_SHOWN_BYTES);
    let (mut count, mut kept) = (0usize, 0usize);
    while let Some(row) = rows.next()? {
        count += 1;
        // Once a row is left out, so are all after it.
        if kept == count - 1
            && kept < MAX_ROWS
            && let Some(line) = table_line(row, names.len(), room)
        {
            room -= line.len().min(room);
            shown.push('\n');
            shown.push_str(&line);
            kept += 1;
        }
    }
    if count == 0 {
        return Ok("Query returned 0 rows.".into());
    }
    let header = format!("| {} |", names.join(" | "));
    let rule = format!("|{}", " --- |".repeat(names.len()));
    let mut text = format!("{count} row(s) returned:\n\n{header}\n{rule}{shown}");
    if count > kept {
        text.push_str(&format!("\n({} more row(s) not shown)", count - kept));
    }
    Ok(text)
}

/// Runs one statement and words its result as the CLI does.
fn run_statement(conn: &Connection, sql: &str, keyword: &str) -> rusqlite::Result<String> {
    if matches!(keyword, "SELECT" | "WITH") {
        return select(conn, sql);
    }
    let before = conn.total_changes();
    let mut statement = conn.prepare(sql)?;
    // Rows a statement returns (PRAGMA, RETURNING) are stepped through.
    let mut rows = statement.query([])?;
    while rows.next()?.is_some() {}
    drop(rows);
    let changed = conn.total_changes().saturating_sub(before);
    Ok(match keyword {
        "INSERT" | "REPLACE" => format!(
            "{changed} row(s) inserted. Last inserted row ID: {}.",
            conn.last_insert_rowid()
        ),
        "UPDATE" => format!("{changed} row(s) updated."),
        "DELETE" => format!("{changed} row(s) deleted."),
        "CREATE" | "DROP" | "ALTER" => "Schema operation completed successfully.".into(),
        _ => format!("Query executed successfully. Rows affected: {changed}."),
    })
}

/// SQLite's message for `error`, with the guard's reason when the guard
/// refused the statement.
fn sqlite_message(error: &rusqlite::Error, refusal: &Refusal) -> String {
    // A refusal fails the statement at once: one noted is this error's.
    let text = bare_message(error);
    match refusal.take() {
        Some(why) => format!("{text}: {why}"),
        None => text,
    }
}

fn bare_message(error: &rusqlite::Error) -> String {
    match error {
        rusqlite::Error::SqliteFailure(code, Some(message))
            if code.code == rusqlite::ErrorCode::OperationInterrupted =>
        {
            format!("{message} (the query ran past its limit of steps)")
        }
        rusqlite::Error::SqliteFailure(_, Some(message)) => message.clone(),
        // A statement that did not prepare: SQLite's message alone.
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        other => other.to_string(),
    }
}

/// `text` with every line indented by three spaces (a multi-statement
/// result's entries).
fn indented(text: &str) -> String {
    text.split('\n')
        .map(|line| format!("   {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn listed(done: &[(String, String)]) -> String {
    done.iter()
        .enumerate()
        .map(|(k, (keyword, result))| format!("{}. {keyword}\n{}", k + 1, indented(result)))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Runs the query's statements in order; the result text, and whether
/// any statement ran.
fn run_query(conn: &Connection, refusal: &Refusal, query: &str) -> (String, bool) {
    let parts = statements(query);
    let mut done: Vec<(String, String)> = Vec::new();
    for sql in &parts {
        let keyword = keyword(sql);
        match run_statement(conn, sql, &keyword) {
            Ok(result) => done.push((keyword, result)),
            Err(error) if done.is_empty() => {
                return (
                    format!("SQL Error: Error: {}", sqlite_message(&error, refusal)),
                    false,
                );
            }
            Err(error) => {
                let text = format!(
                    "SQL Error after statement {} ({keyword}): Error: {}\n\nCompleted {} statement(s) before failure:\n\n{}",
                    done.len() + 1,
                    sqlite_message(&error, refusal),
                    done.len(),
                    listed(&done)
                );
                return (text, true);
            }
        }
    }
    match done.as_slice() {
        [] => ("Error: Empty query provided.".into(), false),
        [(_, only)] => (only.clone(), true),
        _ => (
            format!("Executed {} statement(s):\n\n{}", done.len(), listed(&done)),
            true,
        ),
    }
}

/// A fresh in-memory database with the CLI's schema, bounded, holding
/// `plan`, and the note of what its guard refuses the model.
fn database(plan: &[PlanItem]) -> rusqlite::Result<(Connection, Refusal)> {
    let mut conn = Connection::open_in_memory()?;
    guard::bound(&conn)?;
    for name in ["datetime", "date", "time", "julianday", "unixepoch"] {
        use rusqlite::types::Value as Sql;
        let fixed = match name {
            "date" => Sql::Text("2026-01-01".into()),
            "time" => Sql::Text("00:00:00".into()),
            "julianday" => Sql::Real(2_461_041.5),
            "unixepoch" => Sql::Integer(1_767_225_600),
            _ => Sql::Text(FIXED_NOW.into()),
        };
        let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
        conn.create_scalar_function(name, -1, flags, move |_| Ok(fixed.clone()))?;
    }
    conn.execute_batch(SCHEMA)?;
    load(&conn, plan)?;
    let steps = Cell::new(0u64);
    conn.progress_handler(
        1000,
        Some(move || {
            steps.set(steps.get() + 1000);
            steps.get() > MAX_STEPS
        }),
    )?;
    let refusal = guard::guard(&mut conn)?;
    Ok((conn, refusal))
}

fn load(conn: &Connection, plan: &[PlanItem]) -> rusqlite::Result<()> {
    let mut todo =
        conn.prepare("INSERT INTO todos (id, title, description, status) VALUES (?1, ?2, ?3, ?4)")?;
    for item in plan {
        let description = item
            .task
            .as_ref()
            .map(|t| t.description.as_str())
            .filter(|d| !d.is_empty());
        todo.execute(params![item.id, item.text, description, word(item.status)])?;
    }
    let mut dep =
        conn.prepare("INSERT OR IGNORE INTO todo_deps (todo_id, depends_on) VALUES (?1, ?2)")?;
    for item in plan {
        for on in item.task.iter().flat_map(|t| &t.blocked_by) {
            dep.execute(params![item.id, on])?;
        }
    }
    Ok(())
}

/// The plan the tables hold (empty when `todos` cannot be read).
fn read_plan(conn: &Connection) -> Vec<PlanItem> {
    let rows = || -> rusqlite::Result<Vec<PlanItem>> {
        let mut statement =
            conn.prepare("SELECT id, title, description, status FROM todos ORDER BY rowid")?;
        let items = statement.query_map([], |row| {
            let id: String = row.get::<_, Option<String>>(0)?.unwrap_or_default();
            let title: String = row.get::<_, Option<String>>(1)?.unwrap_or_default();
            let description: Option<String> = row.get(2)?;
            let status: Option<String> = row.get(3)?;
            let mut item = PlanItem::new(
                id,
                title,
                status
                    .as_deref()
                    .and_then(status_of)
                    .unwrap_or(PlanStatus::Pending),
            );
            item.task = Some(Box::new(TaskFields {
                description: description.unwrap_or_default(),
                ..TaskFields::default()
            }));
            Ok(item)
        })?;
        items.collect()
    };
    let mut plan = rows().unwrap_or_default();
    let deps = || -> rusqlite::Result<Vec<(String, String)>> {
        let mut statement =
            conn.prepare("SELECT todo_id, depends_on FROM todo_deps ORDER BY rowid")?;
        let pairs = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
        pairs.collect()
    };
    for (todo, on) in deps().unwrap_or_default() {
        if let Some(task) = plan
            .iter_mut()
            .find(|i| i.id == todo)
            .and_then(|i| i.task.as_mut())
        {
            task.blocked_by.push(on);
        }
    }
    plan
}

/// The todos a result shows as the plan: its last table of exactly `id`,
/// `title` and `status` (what `SELECT id, title, status FROM todos`
/// answers, alone or as one statement of several), every row of it
/// readable. What the model sees is the plan it reads, even when its
/// query left rows out.
fn table_of_todos(result: &str) -> Option<Vec<PlanItem>> {
    let lines: Vec<&str> = result
        .lines()
        .map(|l| l.strip_prefix("   ").unwrap_or(l))
        .collect();
    let header = lines
        .iter()
        .rposition(|l| *l == "| id | title | status |")?;
    if lines.get(header + 1) != Some(&"| --- | --- | --- |") {
        return None;
    }
    lines
        .get(header + 2..)?
        .iter()
        .take_while(|l| l.starts_with("| "))
        .map(|line| {
            let inner = line.strip_prefix("| ")?.strip_suffix(" |")?;
            let cells: Vec<&str> = inner.split(" | ").collect();
            let [id, title, status] = cells.as_slice() else {
                return None;
            };
            Some(PlanItem::new(*id, *title, status_of(status)?))
        })
        .collect()
}

/// `text` as SQL text: in single quotes, quotes doubled.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// A kebab-case id for `text`, not among `taken`.
fn slug(text: &str, taken: &[String]) -> String {
    let mut base = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            base.push(c);
        } else if !base.is_empty() && !base.ends_with('-') {
            base.push('-');
        }
        if base.len() >= 40 {
            break;
        }
    }
    let base = match base.trim_end_matches('-') {
        "" => "todo".to_string(),
        trimmed => trimmed.to_string(),
    };
    let mut id = base.clone();
    let mut n = 1;
    while taken.contains(&id) {
        n += 1;
        id = format!("{base}-{n}");
    }
    id
}

fn sql_call(description: &str, statements: &[String]) -> PlanCall {
    PlanCall {
        tool: TOOL.into(),
        input: serde_json::json!({"description": description, "query": statements.join(";\n")}),
    }
}

impl PlanDialect for CopilotSql {
    fn name(&self) -> &'static str {
        "copilot-sql"
    }

    fn tools(&self) -> Vec<ToolSchema> {
        SCHEMAS.clone()
    }

    fn is_planning_tool(&self, tool: &str) -> bool {
        tool == TOOL
    }

    fn apply(&self, plan: &mut Vec<PlanItem>, _tool: &str, input: &Value) -> PlanOutcome {
        let query = match checked_query(input) {
            Ok(query) => query,
            Err(error) => return PlanOutcome::rejected(error.to_string()),
        };
        let (conn, refusal) = match database(plan) {
            Ok(opened) => opened,
            Err(error) => {
                return PlanOutcome::rejected(format!(
                    "SQL Error: Error: {}",
                    bare_message(&error)
                ));
            }
        };
        let (text, ran) = run_query(&conn, &refusal, query);
        if ran {
            *plan = read_plan(&conn);
            PlanOutcome::accepted(text)
        } else {
            PlanOutcome::rejected(text)
        }
    }

    fn render(&self, plan: &[PlanItem]) -> String {
        if plan.is_empty() {
            return "Query returned 0 rows.".into();
        }
        let rows: Vec<String> = plan
            .iter()
            .map(|item| format!("| {} | {} | {} |", item.id, item.text, word(item.status)))
            .collect();
        format!(
            "{} row(s) returned:\n\n| id | title | status |\n| --- | --- | --- |\n{}",
            plan.len(),
            rows.join("\n")
        )
    }

    fn plan_from_result(&self, result: &str) -> Option<Vec<PlanItem>> {
        table_of_todos(result)
    }

    fn is_error(&self, result: &str) -> bool {
        // A query that failed after some statements ran is no rejection:
        // those statements stay done, as in the CLI.
        ["SQL Error: ", "Error: ", "Invalid input: "]
            .iter()
            .any(|prefix| result.starts_with(prefix))
    }

    fn error_prefix(&self) -> &'static str {
        "SQL Error: "
    }

    fn write_update(&self, before: &[PlanItem], wanted: &[PlanItem]) -> Vec<PlanCall> {
        let mut taken: Vec<String> = before.iter().map(|i| i.id.clone()).collect();
        let (matches, dropped) = match_by_text(before, wanted);
        let (mut inserts, mut updates) = (Vec::new(), Vec::new());
        for (item, found) in wanted.iter().zip(matches) {
            let Some(old) = found else {
                let id = slug(&item.text, &taken);
                taken.push(id.clone());
                inserts.push(format!(
                    "({}, {}, {}, {})",
                    quoted(&id),
                    quoted(&item.text),
                    quoted(&item.text),
                    quoted(word(item.status))
                ));
                continue;
            };
            if word(old.status) != word(item.status) {
                updates.push(format!(
                    "UPDATE todos SET status = {} WHERE id = {}",
                    quoted(word(item.status)),
                    quoted(&old.id)
                ));
            }
        }
        let mut statements = Vec::new();
        // Todos the wanted plan dropped (a stale plan rewritten) go, with
        // their dependencies first.
        for old in dropped {
            statements.push(format!(
                "DELETE FROM todo_deps WHERE todo_id = {0} OR depends_on = {0}",
                quoted(&old.id)
            ));
            statements.push(format!("DELETE FROM todos WHERE id = {}", quoted(&old.id)));
        }
        if !inserts.is_empty() {
            statements.push(format!(
                "INSERT INTO todos (id, title, description, status) VALUES {}",
                inserts.join(", ")
            ));
        }
        statements.extend(updates);
        if statements.is_empty() {
            return Vec::new();
        }
        statements.push("SELECT id, title, status FROM todos".into());
        let description = if before.is_empty() {
            "Insert plan todos"
        } else {
            "Update todo status"
        };
        vec![sql_call(description, &statements)]
    }

    fn write_invalid(&self, wanted: &[PlanItem], kind: InvalidUpdate) -> Option<PlanCall> {
        let text = wanted.first().map_or("Next step", |i| i.text.as_str());
        let id = slug(text, &[]);
        let statement = match kind {
            // A todo without its title: NOT NULL constraint failed.
            InvalidUpdate::EmptyText => format!(
                "INSERT INTO todos (id, title, description) VALUES ({}, NULL, {})",
                quoted(&format!("{id}-x")),
                quoted(text)
            ),
            // `completed` is not one of the table's statuses (`done` is).
            InvalidUpdate::UnknownStatus => format!(
                "INSERT INTO todos (id, title, status) VALUES ({}, {}, 'completed')",
                quoted(&format!("{id}-x")),
                quoted(text)
            ),
            InvalidUpdate::TwoInProgress | InvalidUpdate::TooMany => return None,
        };
        Some(sql_call("Insert todo", &[statement]))
    }

    fn status_word(&self, status: PlanStatus) -> &'static str {
        word(status)
    }

    fn statuses(&self) -> &'static [PlanStatus] {
        &[
            PlanStatus::Pending,
            PlanStatus::InProgress,
            PlanStatus::Completed,
            PlanStatus::Failed,
        ]
    }
}

mod guard;
#[cfg(test)]
mod tests;
