//! The `copilot-sql` dialect against what the pinned Copilot CLI answered
//! (`tests/data/copilot/sql_probe.json`: each run's calls in order on a
//! fresh session database), and its bounds on untrusted SQL.

use super::guard::MAX_PAGES;
use super::*;
use serde_json::json;

fn probe_runs() -> Vec<Vec<(Value, String)>> {
    let text = include_str!("../../../../tests/data/copilot/sql_probe.json");
    let doc: Value = serde_json::from_str(text).unwrap();
    doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| {
            run.as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    (
                        c["input"].clone(),
                        c["result"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .collect()
}

/// `text` with every `YYYY-MM-DD HH:MM:SS` made the fixed instant.
fn clock_fixed(text: &str) -> String {
    let shape = |b: &[u8]| {
        b.len() == 19
            && b.iter().enumerate().all(|(k, c)| match k {
                4 | 7 => *c == b'-',
                10 => *c == b' ',
                13 | 16 => *c == b':',
                _ => c.is_ascii_digit(),
            })
    };
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut at = 0;
    while at < text.len() {
        if at + 19 <= bytes.len() && shape(&bytes[at..at + 19]) {
            out.push_str(FIXED_NOW);
            at += 19;
        } else {
            let c = text[at..].chars().next().unwrap_or_default();
            out.push(c);
            at += c.len_utf8();
        }
    }
    out
}

#[test]
fn every_probed_answer_is_given_again() {
    let mut mismatches = Vec::new();
    for run in probe_runs() {
        let mut plan = Vec::new();
        for (input, expected) in run {
            let outcome = CopilotSql.apply(&mut plan, "sql", &input);
            // The CLI's clock; ours is fixed.
            let expected = clock_fixed(&expected);
            // A table the model made lasts one call here (module doc).
            if input["query"] == "DROP TABLE notes" {
                assert_eq!(outcome.content, "SQL Error: Error: no such table: notes");
                continue;
            }
            if outcome.content != expected {
                mismatches.push(format!(
                    "{}\n  cli: {expected:?}\n  ours: {:?}",
                    input["query"], outcome.content
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

fn sql(query: &str) -> Value {
    json!({"description": "Test query", "query": query})
}

#[test]
fn the_plan_is_the_todos_table_with_its_descriptions_and_dependencies() {
    let mut plan = Vec::new();
    let insert = "INSERT INTO todos (id, title, description) VALUES ('a', 'Doing a', 'All of a'), ('b', 'Doing b', NULL); INSERT INTO todo_deps VALUES ('b', 'a'); UPDATE todos SET status = 'in_progress' WHERE id = 'a'";
    let outcome = CopilotSql.apply(&mut plan, "sql", &sql(insert));
    assert!(outcome.accepted, "{}", outcome.content);
    assert_eq!(plan.len(), 2);
    assert_eq!(
        (plan[0].id.as_str(), plan[0].text.as_str(), plan[0].status),
        ("a", "Doing a", PlanStatus::InProgress)
    );
    assert_eq!(plan[1].task.as_ref().unwrap().blocked_by, ["a"]);
    // The next call sees the same tables: the dependency still holds.
    let outcome = CopilotSql.apply(&mut plan, "sql", &sql("DELETE FROM todos WHERE id = 'a'"));
    assert_eq!(
        outcome.content,
        "SQL Error: Error: FOREIGN KEY constraint failed"
    );
    assert!(!outcome.accepted);
    let outcome = CopilotSql.apply(
        &mut plan,
        "sql",
        &sql("UPDATE todos SET status = 'blocked' WHERE id = 'b'"),
    );
    assert!(outcome.accepted);
    assert_eq!(plan[1].status, PlanStatus::Failed);
    assert_eq!(CopilotSql.status_word(plan[1].status), "blocked");
}

#[test]
fn a_query_that_fails_midway_keeps_what_ran_and_is_no_rejection() {
    let mut plan = Vec::new();
    let outcome = CopilotSql.apply(
        &mut plan,
        "sql",
        &sql("INSERT INTO todos (id, title) VALUES ('a', 'A'); SELEC 1"),
    );
    assert!(outcome.accepted);
    assert!(!CopilotSql.is_error(&outcome.content));
    assert_eq!(plan.len(), 1);
    let outcome = CopilotSql.apply(
        &mut plan,
        "sql",
        &sql("SELEC 1; INSERT INTO todos (id, title) VALUES ('b', 'B')"),
    );
    assert!(!outcome.accepted && CopilotSql.is_error(&outcome.content));
    assert_eq!(plan.len(), 1);
}

#[test]
fn untrusted_sql_is_bounded() {
    let mut plan = Vec::new();
    // No file is attached or written, whatever the spelling.
    for query in [
        "attach   database '/tmp/x.db' as x",
        "VACUUM\nINTO '/tmp/v.db'",
        "select LOAD_EXTENSION('x')",
    ] {
        let outcome = CopilotSql.apply(&mut plan, "sql", &sql(query));
        assert!(
            outcome
                .content
                .starts_with("Error: Blocked SQL statement: "),
            "{query}: {}",
            outcome.content
        );
        assert!(!outcome.accepted);
    }
    // A query that never ends is interrupted.
    let endless =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
    let outcome = CopilotSql.apply(&mut plan, "sql", &sql(endless));
    assert!(
        outcome.content.starts_with("SQL Error: Error: interrupted"),
        "{}",
        outcome.content
    );
    // A database that grows without end is stopped.
    let growing = "CREATE TABLE big (b BLOB); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) INSERT INTO big SELECT zeroblob(100000) FROM c";
    let outcome = CopilotSql.apply(&mut plan, "sql", &sql(growing));
    assert!(
        outcome.content.contains("full") || outcome.content.contains("interrupted"),
        "{}",
        outcome.content
    );
    // A huge result shows its first rows only.
    let many = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) SELECT x FROM c";
    let outcome = CopilotSql.apply(&mut plan, "sql", &sql(many));
    assert!(outcome.content.starts_with("5000 row(s) returned:"));
    assert!(outcome.content.ends_with("(4000 more row(s) not shown)"));
    // The clock is not read.
    let outcome = CopilotSql.apply(&mut plan, "sql", &sql("SELECT datetime('now') AS now"));
    assert!(
        outcome.content.ends_with("| 2026-01-01 00:00:00 |"),
        "{}",
        outcome.content
    );
}

#[test]
fn the_simulated_model_plans_in_sql() {
    use crate::plan::dialect::PlanItem;
    let wanted = vec![
        PlanItem::new("1", "Read the code", PlanStatus::InProgress),
        PlanItem::new("2", "Port it", PlanStatus::Pending),
    ];
    let calls = CopilotSql.write_update(&[], &wanted);
    assert_eq!(calls.len(), 1);
    let query = calls[0].input["query"].as_str().unwrap();
    assert!(query.starts_with("INSERT INTO todos (id, title, description, status) VALUES ('read-the-code', 'Read the code'"), "{query}");
    let mut plan = Vec::new();
    let outcome = CopilotSql.apply(&mut plan, "sql", &calls[0].input);
    assert!(outcome.accepted, "{}", outcome.content);
    assert_eq!(
        plan.iter()
            .map(|i| (i.text.as_str(), i.status))
            .collect::<Vec<_>>(),
        [
            ("Read the code", PlanStatus::InProgress),
            ("Port it", PlanStatus::Pending)
        ]
    );
    let mut next = wanted.clone();
    next[0].status = PlanStatus::Completed;
    next[1].status = PlanStatus::InProgress;
    let calls = CopilotSql.write_update(&plan, &next);
    let query = calls[0].input["query"].as_str().unwrap();
    assert!(
        query.contains("UPDATE todos SET status = 'done' WHERE id = 'read-the-code'"),
        "{query}"
    );
    assert!(query.ends_with("SELECT id, title, status FROM todos"));
    let outcome = CopilotSql.apply(&mut plan, "sql", &calls[0].input);
    assert!(
        outcome.content.starts_with("Executed 3 statement(s):"),
        "{}",
        outcome.content
    );
    assert_eq!(plan[0].status, PlanStatus::Completed);
    for kind in [InvalidUpdate::EmptyText, InvalidUpdate::UnknownStatus] {
        let call = CopilotSql.write_invalid(&next, kind).unwrap();
        let outcome = CopilotSql.apply(&mut plan.clone(), "sql", &call.input);
        assert!(
            !outcome.accepted && CopilotSql.is_error(&outcome.content),
            "{kind:?}: {}",
            outcome.content
        );
    }
}

/// The settings the guard keeps, read past the guard after the model's
/// query ran: temporary storage in memory and both schemas' page caps.
fn settings_after(query: &str) -> (String, i64, i64, i64) {
    let (mut conn, refusal) = database(&[]).unwrap();
    let (text, _) = run_query(&conn, &refusal, query);
    conn.authorizer(None::<fn(rusqlite::hooks::AuthContext<'_>) -> rusqlite::hooks::Authorization>)
        .unwrap();
    let read = |pragma: &str| -> i64 {
        conn.query_row(&format!("PRAGMA {pragma}"), [], |row| row.get(0))
            .unwrap()
    };
    (
        text,
        read("temp_store"),
        read("main.max_page_count"),
        read("temp.max_page_count"),
    )
}

#[test]
fn no_pragma_but_the_schema_readers_runs_however_spelt() {
    let lift = "1000000";
    for query in [
        format!("PRAGMA max_page_count = {lift}"),
        format!("pragma MAX_PAGE_COUNT={lift}"),
        format!("PRAGMA main.max_page_count = {lift}"),
        format!("PRAGMA \"main\".Max_Page_Count({lift})"),
        format!("PRAGMA temp.max_page_count = {lift}"),
        format!("/* lift */ PrAgMa\n  TEMP . max_page_count\n=\n{lift}"),
        format!("SELECT 1; PRAGMA max_page_count = {lift}"),
        "PRAGMA temp_store = FILE".into(),
        "pragma TEMP_STORE=1".into(),
        "PRAGMA main.temp_store = 'file'".into(),
        "PRAGMA temp.page_size = 65536".into(),
        "PRAGMA cache_size = -1000000".into(),
        "PRAGMA journal_mode = WAL".into(),
        "SELECT * FROM pragma_max_page_count".into(),
        "SELECT * FROM pragma_temp_store".into(),
    ] {
        let (text, temp_store, main_pages, temp_pages) = settings_after(&query);
        assert!(
            text.contains("not authorized: PRAGMA ") || text.contains("no such table"),
            "{query}: {text}"
        );
        assert_eq!(
            (temp_store, main_pages, temp_pages),
            (2, i64::from(MAX_PAGES), i64::from(MAX_PAGES)),
            "{query}"
        );
    }
    let mut plan = Vec::new();
    for query in [
        "PRAGMA table_info(todos)",
        "pragma Main.TABLE_INFO('todo_deps')",
        "SELECT name FROM pragma_table_info('todos')",
        "PRAGMA foreign_key_check",
    ] {
        let outcome = CopilotSql.apply(&mut plan, "sql", &sql(query));
        assert!(
            !CopilotSql.is_error(&outcome.content),
            "{query}: {}",
            outcome.content
        );
    }
}

#[test]
fn nothing_is_attached_or_loaded_past_the_blocked_words() {
    // Past the CLI's word check (which these spellings would meet first),
    // the guard refuses them on its own.
    for (query, why) in [
        (
            "SELECT load_extension ('x')",
            "load_extension is not allowed",
        ),
        (
            "SELECT \"LOAD_EXTENSION\"('x')",
            "load_extension is not allowed",
        ),
        ("ATTACH ':memory:' AS other", "ATTACH is not allowed"),
        (
            "attach\ndatabase 'file:x?mode=memory' as \"other\"",
            "ATTACH is not allowed",
        ),
        ("VACUUM INTO '/tmp/copy.db'", "ATTACH is not allowed"),
    ] {
        let (text, _, _, _) = settings_after(query);
        assert!(text.starts_with("SQL Error: Error: "), "{query}: {text}");
        assert!(
            text.contains(why) || text.contains("too many attached"),
            "{query}: {text}"
        );
    }
}

#[test]
fn every_schema_is_capped() {
    let fill = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 400) SELECT randomblob(100000) FROM c";
    for create in [
        "CREATE TABLE big (b BLOB)",
        "CREATE TEMP TABLE big (b BLOB)",
        "create temporary table big (b blob)",
        "CREATE TABLE temp.big (b BLOB)",
        "CREATE TABLE \"TEMP\".big (b BLOB)",
    ] {
        let query = format!("{create}; INSERT INTO big {fill}");
        let outcome = CopilotSql.apply(&mut Vec::new(), "sql", &sql(&query));
        assert!(
            outcome.content.contains("database or disk is full"),
            "{create}: {}",
            outcome.content
        );
    }
}

#[test]
fn a_result_is_cut_at_its_stated_size() {
    let rows =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 60) SELECT";
    for (what, shown) in [
        ("randomblob(1000000) AS b", 0),
        ("printf('%.*c', 900000, 'x') AS t, x", 0),
        ("printf('%.*c', 30000, 'x') AS t", 2),
        ("zeroblob(1000) AS b, x", 8),
    ] {
        let query = format!("{rows} {what} FROM c");
        let outcome = CopilotSql.apply(&mut Vec::new(), "sql", &sql(&query));
        let text = &outcome.content;
        assert!(
            text.len() < MAX_SHOWN_BYTES + 200,
            "{what}: {} bytes",
            text.len()
        );
        assert!(text.starts_with("60 row(s) returned:"), "{what}");
        let more = format!("({} more row(s) not shown)", 60 - shown);
        assert!(
            text.ends_with(&more),
            "{what}: {}",
            &text[text.len().saturating_sub(300)..]
        );
    }
}

/// Quotes, brackets and comments hide their semicolons; a comment or a
/// quote left open runs to the end of the query without an out-of-bounds
/// step (the scanner reads by `get`, not by index).
#[test]
fn statements_split_outside_quotes_and_comments() {
    assert_eq!(
        statements("SELECT ';'; /* ; */ SELECT [a;b] -- x;\n; SELECT 1"),
        vec!["SELECT ';'", " /* ; */ SELECT [a;b] -- x;\n", " SELECT 1"]
    );
    assert_eq!(statements("SELECT 1; /* open ;"), vec!["SELECT 1"]);
    assert_eq!(statements("SELECT 'open ;"), vec!["SELECT 'open ;"]);
    assert_eq!(statements("SELECT 1;/*"), vec!["SELECT 1"]);
}
