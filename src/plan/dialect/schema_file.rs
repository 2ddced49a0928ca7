//! A dialect's tool schemas as a JSON file beside its code: the name,
//! description and input schema of each tool offered to the model, in the
//! order they are offered. The file is compiled in (`include_str!`) and
//! parsed once, on first use; `tests/dialect_schemas.rs` checks that every
//! file parses and is what its dialect offers. The key order of the file is
//! the order on the wire (serde_json keeps it), so a file is edited as the
//! bytes the model should see.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::llm::ToolSchema;

/// One entry of a schema file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SchemaEntry {
    name: String,
    description: String,
    input_schema: Value,
}

/// The tools a schema file declares. A file that does not parse declares
/// none (the file is compiled in, so this cannot come from a user; the
/// test of every file keeps it from happening).
pub(super) fn parse(text: &str) -> Vec<ToolSchema> {
    serde_json::from_str::<Vec<SchemaEntry>>(text)
        .unwrap_or_default()
        .into_iter()
        .map(|entry| ToolSchema {
            name: Cow::Owned(entry.name),
            description: Cow::Owned(entry.description),
            input_schema: entry.input_schema,
        })
        .collect()
}

/// A dialect's schemas: `schemas!("FILE.json")` is a `LazyLock` of the
/// tools the file beside the dialect declares.
macro_rules! schemas {
    ($file:literal) => {
        std::sync::LazyLock::new(|| super::schema_file::parse(include_str!($file)))
    };
}
pub(super) use schemas;
