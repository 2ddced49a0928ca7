//! The bounds on the model's SQL in the `copilot-sql` dialect, as a class
//! rather than as spellings: an authorizer that SQLite asks about every
//! action of every statement (whatever its case, schema prefix or
//! comment), SQLite's own limits, a page cap on every schema, and one
//! process-wide ceiling on SQLite's heap.
//!
//! What the model may not do, however it is written:
//! - run a PRAGMA other than the schema-reading ones in [`READABLE_PRAGMAS`]
//!   (so `max_page_count`, `temp_store`, `page_size`, `cache_size`,
//!   `journal_mode`, ... cannot be changed on `main`, `temp` or any schema);
//! - attach a database or load an extension;
//! - grow `main` or `temp` past [`MAX_PAGES`] pages each.
//!
//! Sorting and materialised results live in memory (temporary storage
//! never goes to a file), and SQLite caps no such memory by itself: the
//! ceiling [`HEAP_CEILING`] over all of SQLite's heap in the process turns
//! a query that would exhaust memory into `out of memory`.

use std::sync::{Arc, Mutex, Once};

use rusqlite::Connection;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;

/// Pages of 4 KiB each schema (`main`, `temp`) may grow to (32 MiB).
pub const MAX_PAGES: u32 = 8192;
/// The longest string or blob, and the longest query.
pub const MAX_LENGTH: i32 = 1_000_000;
/// Bytes of heap all SQLite connections of the process may hold together.
pub const HEAP_CEILING: i64 = 1 << 30;

/// The PRAGMAs a model may run: they read the schema and change nothing.
pub const READABLE_PRAGMAS: [&str; 10] = [
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "foreign_key_check",
    "integrity_check",
    "quick_check",
];

/// SQLite's limits on one statement's shape, besides the length.
const SHAPE_LIMITS: [(Limit, i32); 7] = [
    (Limit::SQLITE_LIMIT_ATTACHED, 0),
    (Limit::SQLITE_LIMIT_COLUMN, 200),
    (Limit::SQLITE_LIMIT_EXPR_DEPTH, 200),
    (Limit::SQLITE_LIMIT_COMPOUND_SELECT, 100),
    (Limit::SQLITE_LIMIT_VDBE_OP, 250_000),
    (Limit::SQLITE_LIMIT_FUNCTION_ARG, 100),
    (Limit::SQLITE_LIMIT_TRIGGER_DEPTH, 10),
];

/// Why the authorizer last refused an action, for the model's error.
#[derive(Clone, Default)]
pub struct Refusal(Arc<Mutex<Option<String>>>);

impl Refusal {
    fn set(&self, why: String) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(why);
        }
    }

    /// The last refusal's reason, taken.
    pub fn take(&self) -> Option<String> {
        self.0.lock().ok().and_then(|mut slot| slot.take())
    }
}

/// Sets the process-wide ceiling on SQLite's heap, once.
fn set_heap_ceiling() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: sqlite3_hard_heap_limit64 takes a plain integer, is
        // thread-safe (it holds SQLite's memory mutex) and may be called
        // before or after sqlite3_initialize.
        unsafe {
            rusqlite::ffi::sqlite3_hard_heap_limit64(HEAP_CEILING);
        }
    });
}

/// Bounds `conn` before the model's SQL runs on it: limits, temporary
/// storage in memory, the page cap on `main` and `temp`.
pub fn bound(conn: &Connection) -> rusqlite::Result<()> {
    set_heap_ceiling();
    for (limit, value) in SHAPE_LIMITS {
        conn.set_limit(limit, value)?;
    }
    conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_LENGTH)?;
    conn.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, MAX_LENGTH)?;
    conn.execute_batch(&format!(
        "PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY;
         PRAGMA main.max_page_count = {MAX_PAGES}; PRAGMA temp.max_page_count = {MAX_PAGES};"
    ))
}

/// From here on, every statement prepared on `conn` is asked about: the
/// refusals are noted in the returned [`Refusal`].
pub fn guard(conn: &mut Connection) -> rusqlite::Result<Refusal> {
    let refusal = Refusal::default();
    let noted = refusal.clone();
    conn.authorizer(Some(move |context: AuthContext<'_>| {
        match refused(&context) {
            Some(why) => {
                noted.set(why);
                Authorization::Deny
            }
            None => Authorization::Allow,
        }
    }))?;
    Ok(refusal)
}

/// Why `context`'s action is refused, or `None` when it is allowed.
fn refused(context: &AuthContext<'_>) -> Option<String> {
    match context.action {
        AuthAction::Pragma { pragma_name, .. } => {
            let name = pragma_name.to_ascii_lowercase();
            (!READABLE_PRAGMAS.contains(&name.as_str()))
                .then(|| format!("PRAGMA {name} is not allowed"))
        }
        AuthAction::Attach { .. } => Some("ATTACH is not allowed".into()),
        AuthAction::Function { function_name }
            if function_name.eq_ignore_ascii_case("load_extension") =>
        {
            Some("load_extension is not allowed".into())
        }
        _ => None,
    }
}
