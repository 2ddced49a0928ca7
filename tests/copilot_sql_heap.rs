//! The `copilot-sql` dialect's last bound: SQLite keeps sorts and
//! materialised results in memory (temporary storage never goes to a
//! file) and caps no such memory itself, so a process-wide ceiling on
//! SQLite's heap turns a query that would exhaust memory into an error the
//! model reads, not an abort.
//!
//! In a process of its own ([`support::run_alone`]): the ceiling is
//! process-wide state, and this test fills SQLite's heap up to it, which
//! would fail any other test's SQLite in the same process meanwhile.

use crate::support;
use agent_eval::plan::dialect::Dialect;
use serde_json::json;

#[test]
fn a_sort_that_would_exhaust_memory_fails_with_out_of_memory() {
    support::run_alone(
        module_path!(),
        "a_sort_that_would_exhaust_memory_fails_with_out_of_memory_alone",
        &[],
    );
}

#[test]
#[ignore = "run in a process of its own by a_sort_that_would_exhaust_memory_fails_with_out_of_memory"]
fn a_sort_that_would_exhaust_memory_fails_with_out_of_memory_alone() {
    // Each sort key is a real megabyte (zeroblob joined to a number is
    // written out), 5,000 of them: 4.5 GB, well within the step limit.
    let query = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) \
                 SELECT x FROM c ORDER BY zeroblob(900000) || x";
    let input = json!({"description": "sort", "query": query});
    let outcome = Dialect::CopilotSql
        .get()
        .apply(&mut Vec::new(), "sql", &input);
    assert!(!outcome.accepted);
    assert_eq!(outcome.content, "SQL Error: Error: out of memory");
    // The next call works again: the memory was given back.
    let input = json!({"description": "count", "query": "SELECT count(*) AS n FROM todos"});
    let outcome = Dialect::CopilotSql
        .get()
        .apply(&mut Vec::new(), "sql", &input);
    assert!(outcome.accepted, "{}", outcome.content);
}
