//! Each dialect's tool schemas live in a JSON file beside its code
//! (`src/plan/dialect/<name>.json`). These tests check that every file
//! parses, that it is exactly what its dialect offers the model (the same
//! bytes once serialised, keys in the file's order), that every tool it
//! names is one the dialect handles, and that no file is left unused.

use std::collections::BTreeSet;
use std::path::Path;

use agent_eval::plan::dialect::{Dialect, PlanItem, PlanStatus};
use serde_json::Value;

/// Which file declares each dialect's tools. `java-port` is s03's design
/// ported: it offers s03's tool.
const FILES: &[(Dialect, &str)] = &[
    (Dialect::S03, "s03.json"),
    (Dialect::S03Guarded, "s03_guarded.json"),
    (Dialect::PlanningState, "planning_state.json"),
    (Dialect::JavaPort, "s03.json"),
    (Dialect::CreateUpdate, "create_update.json"),
    (Dialect::ClaudeCode, "claude_code.json"),
    (Dialect::ClaudeCodeTasks, "claude_code_tasks.json"),
    (Dialect::Codex, "codex.json"),
    (Dialect::Gemini, "gemini.json"),
    (Dialect::QwenCode, "qwen_code.json"),
    (Dialect::OpenCode, "opencode.json"),
    (Dialect::CopilotSql, "copilot_sql.json"),
];

fn dialect_folder() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/plan/dialect")
}

fn schema_file(name: &str) -> Value {
    let path = dialect_folder().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_dialect_has_a_file() {
    let listed: BTreeSet<&str> = FILES.iter().map(|(d, _)| d.name()).collect();
    let all: BTreeSet<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
    assert_eq!(listed, all);
}

#[test]
fn each_file_is_what_its_dialect_offers() {
    for (dialect, file) in FILES {
        let declared = schema_file(file);
        let entries = declared.as_array().expect("a schema file is a JSON array");
        assert!(!entries.is_empty(), "{file} declares no tool");
        for entry in entries {
            let keys: Vec<&str> = entry
                .as_object()
                .expect("each entry is an object")
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(keys, ["name", "description", "input_schema"], "{file}");
        }
        let offered = serde_json::to_string(&dialect.get().tools()).expect("schemas serialise");
        let written = serde_json::to_string(&declared).expect("a value serialises");
        assert_eq!(offered, written, "{} does not offer {file}", dialect.name());
    }
}

#[test]
fn every_declared_tool_is_handled_by_its_dialect() {
    for (dialect, file) in FILES {
        let plan = dialect.get();
        for entry in schema_file(file).as_array().into_iter().flatten() {
            let name = entry["name"].as_str().expect("a tool name");
            let handled = plan.is_planning_tool(name)
                || plan.load_tools(name, &serde_json::json!({})).is_some();
            assert!(handled, "{file}: {} does not handle `{name}`", plan.name());
        }
    }
}

#[test]
fn every_call_a_dialect_writes_uses_a_declared_tool() {
    let wanted = vec![
        PlanItem::new("1", "Write the parser", PlanStatus::InProgress),
        PlanItem::new("2", "Test the parser", PlanStatus::Pending),
    ];
    for (dialect, file) in FILES {
        let names: BTreeSet<String> = schema_file(file)
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|entry| entry["name"].as_str().map(str::to_string))
            .collect();
        let calls = dialect.get().write_update(&[], &wanted);
        assert!(!calls.is_empty(), "{}", dialect.name());
        for call in calls {
            assert!(
                names.contains(call.tool.as_str()),
                "{}: writes `{}`, which {file} does not declare",
                dialect.name(),
                call.tool
            );
        }
    }
}

#[test]
fn no_schema_file_is_left_unused() {
    let used: BTreeSet<&str> = FILES.iter().map(|(_, f)| *f).collect();
    let mut present = BTreeSet::new();
    for entry in std::fs::read_dir(dialect_folder()).expect("the dialect folder") {
        let name = entry.expect("an entry").file_name();
        let name = name.to_string_lossy().into_owned();
        if name.ends_with(".json") {
            present.insert(name);
        }
    }
    let used: BTreeSet<String> = used.into_iter().map(str::to_string).collect();
    assert_eq!(present, used);
}
