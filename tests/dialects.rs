//! The planning dialects through the public API: the registry, each
//! dialect's exact texts for one plan, its tool schemas, and the scripted
//! dialect scenarios replayed against the dialect alone (their planning
//! calls give exactly the rejections and calls the scenarios expect).

use crate::support;
use std::fs;
use std::path::{Path, PathBuf};

use agent_eval::plan::dialect::{Dialect, PlanItem, PlanStatus};
use serde_json::{Value, json};

fn plan() -> Vec<PlanItem> {
    let mut writing = PlanItem::new("2", "Write notes", PlanStatus::InProgress);
    writing.active_form = Some("Writing notes".into());
    vec![
        PlanItem::new("1", "Read hello.py", PlanStatus::Completed),
        writing,
        PlanItem::new("3", "Run tests", PlanStatus::Pending),
    ]
}

/// Each dialect's answer to the calls that set [`plan`] from nothing (the
/// last call's result).
#[test]
fn each_dialect_answers_exactly() {
    let expected = [
        (
            Dialect::S03,
            "[x] #1: Read hello.py\n[>] #2: Write notes\n[ ] #3: Run tests\n\n(1/3 completed)",
        ),
        (
            Dialect::S03Guarded,
            "\x1b[32m[x] - 1: Read hello.py\x1b[0m\n\x1b[36m[>] - 2: Write notes\x1b[0m\n\x1b[33m[ ] - 3: Run tests\x1b[0m\n\x1b[36mDone: 1/3\x1b[0m",
        ),
        (
            Dialect::PlanningState,
            "[x] Read hello.py\n[>] Write notes (Writing notes)\n[ ] Run tests\n\n(1/3 completed)",
        ),
        (
            Dialect::JavaPort,
            "[x] #1: Read hello.py\n[>] #2: Write notes\n[ ] #3: Run tests\n\n(1/3 completed)",
        ),
        (
            Dialect::CreateUpdate,
            "步骤 #2 \"Write notes\" → running\n执行计划:\n  [x] #1 Read hello.py\n  [>] #2 Write notes\n  [ ] #3 Run tests",
        ),
        (
            Dialect::ClaudeCode,
            "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
        ),
        (
            Dialect::ClaudeCodeTasks,
            "#1 [completed] Read hello.py\n#2 [in_progress] Write notes\n#3 [pending] Run tests",
        ),
        (Dialect::Codex, "Plan updated"),
        (
            Dialect::Gemini,
            "Successfully updated the todo list. The current list is now:\n1. [completed] Read hello.py\n2. [in_progress] Write notes\n3. [pending] Run tests",
        ),
        (
            Dialect::QwenCode,
            "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable\n\n<system-reminder>\nYour todo list has changed. DO NOT mention this explicitly to the user. Here are the latest contents of your todo list:\n\n[{\"id\":\"1\",\"content\":\"Read hello.py\",\"status\":\"completed\"},{\"id\":\"2\",\"content\":\"Write notes\",\"status\":\"in_progress\"},{\"id\":\"3\",\"content\":\"Run tests\",\"status\":\"pending\"}]. Continue on with the tasks at hand if applicable.\n</system-reminder>",
        ),
        (
            Dialect::OpenCode,
            "[\n  {\n    \"content\": \"Read hello.py\",\n    \"status\": \"completed\",\n    \"priority\": \"medium\"\n  },\n  {\n    \"content\": \"Write notes\",\n    \"status\": \"in_progress\",\n    \"priority\": \"medium\"\n  },\n  {\n    \"content\": \"Run tests\",\n    \"status\": \"pending\",\n    \"priority\": \"medium\"\n  }\n]",
        ),
        (
            Dialect::CopilotSql,
            "Executed 2 statement(s):\n\n1. INSERT\n   3 row(s) inserted. Last inserted row ID: 3.\n\n2. SELECT\n   3 row(s) returned:\n   \n   | id | title | status |\n   | --- | --- | --- |\n   | read-hello-py | Read hello.py | done |\n   | write-notes | Write notes | in_progress |\n   | run-tests | Run tests | pending |",
        ),
    ];
    assert_eq!(expected.len(), Dialect::ALL.len());
    for (dialect, text) in expected {
        let d = dialect.get();
        let mut stored = Vec::new();
        let mut last = None;
        for call in d.write_update(&[], &plan()) {
            if d.load_tools(&call.tool, &call.input).is_some() {
                continue;
            }
            let outcome = d.apply(&mut stored, &call.tool, &call.input);
            assert!(outcome.accepted, "{dialect}: {}", outcome.content);
            last = Some(outcome.content);
        }
        assert_eq!(last.as_deref(), Some(text), "{dialect}");
        assert!(!d.is_error(text), "{dialect}");
    }
}

/// What each dialect renders for an empty plan.
#[test]
fn empty_plans_render_exactly() {
    let expected = [
        (Dialect::S03, "No todos."),
        (Dialect::S03Guarded, "No todos"),
        (Dialect::PlanningState, "No session plan yet."),
        (Dialect::JavaPort, "No todos."),
        (Dialect::CreateUpdate, "当前没有执行计划。"),
        (Dialect::ClaudeCode, "No todos."),
        (Dialect::ClaudeCodeTasks, "No tasks found"),
        (Dialect::Codex, "No plan."),
        (Dialect::Gemini, "Successfully cleared the todo list."),
        (
            Dialect::QwenCode,
            "Todo list has been cleared.\n\n<system-reminder>\nYour todo list is now empty. DO NOT mention this explicitly to the user. You have no pending tasks in your todo list.\n</system-reminder>",
        ),
        (Dialect::OpenCode, "[]"),
        (Dialect::CopilotSql, "Query returned 0 rows."),
    ];
    for (dialect, text) in expected {
        assert_eq!(dialect.get().render(&[]), text, "{dialect}");
    }
}

#[test]
fn error_prefixes_and_planning_tools() {
    let expected: [(Dialect, &str, &[&str]); 12] = [
        (Dialect::S03, "Error: ", &["todo"]),
        (Dialect::S03Guarded, "Error in tool call: ", &["todo"]),
        (Dialect::PlanningState, "Error: ", &["todo"]),
        (Dialect::JavaPort, "Error: ", &["todo"]),
        (
            Dialect::CreateUpdate,
            "错误:",
            &["create_todos", "update_todo"],
        ),
        (Dialect::ClaudeCode, "<tool_use_error>", &["TodoWrite"]),
        (
            Dialect::ClaudeCodeTasks,
            "<tool_use_error>",
            &[
                "TaskCreate",
                "TaskGet",
                "TaskList",
                "TaskUpdate",
                "ToolSearch",
            ],
        ),
        (
            Dialect::Codex,
            "failed to parse function arguments: ",
            &["update_plan"],
        ),
        (Dialect::Gemini, "Invalid parameters: ", &["write_todos"]),
        (Dialect::QwenCode, "Each todo must", &["todo_write"]),
        (
            Dialect::OpenCode,
            "The todowrite tool was called with invalid arguments: SchemaError(",
            &["todowrite"],
        ),
        (Dialect::CopilotSql, "SQL Error: ", &["sql"]),
    ];
    for (dialect, prefix, tools) in expected {
        let d = dialect.get();
        assert_eq!(d.error_prefix(), prefix, "{dialect}");
        let names: Vec<String> = d.tools().iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, tools, "{dialect}");
        for tool in d.tools() {
            assert!(!tool.description.is_empty());
            assert_eq!(tool.input_schema["type"], "object", "{dialect}");
            // TaskList takes nothing and lists no required field.
            let takes_nothing = tool.input_schema["properties"] == json!({});
            assert!(
                tool.input_schema["required"].is_array() || takes_nothing,
                "{dialect}"
            );
        }
        // Whatever the input, a rejected call's text starts with the
        // prefix, and only a rejected call's does.
        let mut stored = Vec::new();
        for input in [json!(null), json!([]), json!({}), json!({"items": 1})] {
            let outcome = d.apply(&mut stored, &names[0], &input);
            assert!(!outcome.accepted, "{dialect}: {input}");
            assert!(d.is_error(&outcome.content), "{dialect}");
            // Copilot CLI answers a bad input before SQL with zod's words;
            // Gemini CLI 0.61 and Qwen Code word their schema errors with
            // no common prefix (docs/dialects.md lists each), so only the
            // dialect's own `is_error` tells them.
            let prefix = match dialect {
                Dialect::CopilotSql => "Invalid input: ",
                Dialect::Gemini | Dialect::QwenCode => continue,
                _ => prefix,
            };
            assert!(outcome.content.starts_with(prefix), "{dialect}");
        }
    }
}

#[test]
fn dialects_are_named_in_scenarios_in_kebab_case() {
    for &dialect in Dialect::ALL {
        let parsed: Dialect =
            serde_json::from_value(json!(dialect.name())).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed, dialect);
    }
    assert!(serde_json::from_value::<Dialect>(json!("claude_code")).is_err());
    assert_eq!(Dialect::default(), Dialect::S03);
}

/// The folder holding one scripted scenario per dialect.
fn scenario_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/dialects")
}

fn load(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The (tool, input) calls of one scripted response.
fn calls(response: &Value) -> Vec<(String, Value)> {
    let one = response
        .get("tool")
        .map(|tool| (tool, response.get("input").cloned().unwrap_or(Value::Null)));
    let many = response
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|call| Some((call.get("tool")?, call.get("input")?.clone())));
    one.into_iter()
        .chain(many)
        .filter_map(|(tool, input)| Some((tool.as_str()?.to_string(), input)))
        .collect()
}

fn expected(scenario: &Value, key: &str) -> Option<u64> {
    scenario["expect"]
        .as_array()?
        .iter()
        .find_map(|e| e.get(key)?.as_u64())
}

/// Every dialect has its scenario, and replaying the scenario's planning
/// calls against the dialect alone gives the calls and rejections it
/// expects, and a final plan with every step completed (or, for
/// claude-code, emptied because every step was).
#[test]
fn each_dialect_scenario_counts_what_it_expects() {
    let dir = scenario_dir();
    for &dialect in Dialect::ALL {
        let path = dir.join(format!("{}.yaml", dialect.name()));
        let scenario = load(&path);
        assert_eq!(
            scenario["agent"]["dialect"],
            json!(dialect.name()),
            "{}",
            path.display()
        );
        let d = dialect.get();
        let mut plan = Vec::new();
        let (mut planning_calls, mut rejected) = (0, 0);
        for response in scenario["model"]["script"].as_array().into_iter().flatten() {
            for (tool, input) in calls(response) {
                if d.is_planning_tool(&tool) {
                    planning_calls += 1;
                    let before = plan.clone();
                    let outcome = d.apply(&mut plan, &tool, &input);
                    assert_eq!(d.is_error(&outcome.content), !outcome.accepted);
                    if !outcome.accepted {
                        rejected += 1;
                        assert_eq!(plan, before);
                    }
                }
            }
        }
        assert_eq!(
            Some(planning_calls),
            expected(&scenario, "todo_calls"),
            "{dialect}"
        );
        assert_eq!(
            Some(rejected),
            expected(&scenario, "rejected_todo_updates"),
            "{dialect}"
        );
        let finished = plan
            .iter()
            .all(|i| matches!(i.status, PlanStatus::Completed | PlanStatus::Cancelled));
        assert!(finished, "{dialect}: {plan:?}");
        assert_eq!(plan.is_empty(), dialect == Dialect::ClaudeCode, "{dialect}");
    }
}

/// The user docs carry every dialect, its tools and its exact texts.
#[test]
fn the_docs_name_every_dialect_and_text() {
    // Texts may wrap across lines in the docs.
    let docs = fs::read_to_string("docs/dialects.md")
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for &dialect in Dialect::ALL {
        let d = dialect.get();
        assert!(docs.contains(&format!("`{}`", dialect.name())), "{dialect}");
        for tool in d.tools() {
            assert!(docs.contains(&format!("`{}`", tool.name)), "{}", tool.name);
            let description = tool
                .description
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            // A long description the docs may leave in the dialect's schema
            // file (the binary's own text, byte for byte), if they say where.
            let schema_file = format!("src/plan/dialect/{}.json", dialect.name().replace('-', "_"));
            assert!(
                docs.contains(&description) || docs.contains(&schema_file),
                "the description of {} (or where it is, {schema_file})",
                tool.name
            );
        }
        assert!(docs.contains(d.error_prefix().trim_end()), "{dialect}");
    }
    for text in [
        "Max 15 todos allowed",
        "Max 1 in_progress todo allowed",
        "Max 12 plan items allowed",
        "Only one plan item can be in_progress",
        "错误:必须提供至少一个步骤描述。",
        "可选值: running, completed, failed",
        "的步骤。",
        "Todos have been modified successfully.",
        "Plan updated",
        "Only one task can be \"in_progress\" at a time.",
        "Successfully updated the todo list. The current list is now:",
        "Successfully cleared the todo list.",
        "No session plan yet.",
        "当前没有执行计划。",
        "Working on: ",
        "Task #1 created successfully:",
        "Updated task #1 status",
        "No tasks found",
        "Task not found",
        "The task tools haven't been used recently.",
        "row(s) inserted. Last inserted row ID:",
        "Query returned 0 rows.",
        "Schema operation completed successfully.",
        "Error: Blocked SQL statement:",
        "Completed 1 statement(s) before failure:",
    ] {
        assert!(docs.contains(text), "docs/dialects.md lacks {text}");
    }
}

/// The dialect scenarios run through the built-in loop and every exact
/// expectation holds.
#[test]
fn the_dialect_scenarios_pass_end_to_end() {
    let out = support::agent_eval_command()
        .args(["run", "scenarios/dialects", "--json", "-"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("the binary runs: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report["ok"], json!(true));
    let names: Vec<&str> = report["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["name"].as_str())
        .collect();
    for &dialect in Dialect::ALL {
        assert!(
            names.contains(&format!("dialect-{}", dialect.name()).as_str()),
            "{dialect}: {names:?}"
        );
    }
}
