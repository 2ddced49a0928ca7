//! The translation on its own: built-in calls out in each family's tools,
//! and the model's view back.

use super::codex::{add_file_patch, update_file_patch};
use super::*;
use crate::llm::{Role, ToolSchema};
use serde_json::json;

fn request(tools: &[&str], messages: Vec<Message>) -> WireRequest {
    WireRequest {
        system: String::new(),
        messages,
        tools: tools
            .iter()
            .map(|n| ToolSchema {
                name: n.to_string().into(),
                description: "".into(),
                input_schema: json!({}),
            })
            .collect(),
        stream: false,
        stream_usage: false,
        late_system: Vec::new(),
        model: None,
        error_results: Vec::new(),
    }
}

fn call(id: &str, name: &str, input: Value) -> ContentBlock {
    ContentBlock::ToolUse {
        id: id.into(),
        name: name.into(),
        input: input.into(),
    }
}

fn calls(response: &ModelResponse) -> Vec<(String, String, Value)> {
    response
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => {
                Some((id.clone(), name.clone(), (**input).clone()))
            }
            _ => None,
        })
        .collect()
}

const CLAUDE: [&str; 5] = ["Bash", "Edit", "Read", "TodoWrite", "Write"];
const CODEX: [&str; 3] = ["exec_command", "update_plan", "apply_patch"];

/// A response of every built-in tool (and a TodoWrite), translated for
/// Claude Code in a workspace holding `a.py`: the translation and what it
/// sent.
fn translated_for_claude_code(dir: &Path) -> (Translation, ModelResponse) {
    std::fs::write(dir.join("a.py"), "x = 1\n").unwrap();
    let mut t = Translation::new(Some(dir.to_path_buf()));
    let response = ModelResponse::from_blocks(vec![
        ContentBlock::text("Working."),
        call(
            "toolu_1_1",
            "edit_file",
            json!({"path": "a.py", "old_text": "1", "new_text": "2"}),
        ),
        call(
            "toolu_1_2",
            "write_file",
            json!({"path": "a.py", "content": "y"}),
        ),
        call(
            "toolu_1_3",
            "write_file",
            json!({"path": "new.py", "content": "z"}),
        ),
        call("toolu_1_4", "bash", json!({"command": "ls"})),
        call(
            "toolu_1_5",
            "read_file",
            json!({"path": "{WORKDIR}/a.py", "limit": 3}),
        ),
        call("toolu_1_6", "TodoWrite", json!({"todos": []})),
    ]);
    let out = t.agent_view(&request(&CLAUDE, vec![Message::user_text("t")]), response);
    (t, out)
}

#[test]
fn claude_code_gets_its_tools_with_a_read_before_an_edit() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_string_lossy().into_owned();
    let (_, out) = translated_for_claude_code(dir.path());
    let got = calls(&out);
    let path = format!("{root}/a.py");
    assert_eq!(
        got,
        vec![
            (
                "toolu_1_1_pre1".into(),
                "Read".into(),
                json!({"file_path": path})
            ),
            (
                "toolu_1_1".into(),
                "Edit".into(),
                json!({"file_path": path, "old_string": "1", "new_string": "2"})
            ),
            (
                "toolu_1_2_pre1".into(),
                "Read".into(),
                json!({"file_path": path})
            ),
            (
                "toolu_1_2".into(),
                "Write".into(),
                json!({"file_path": path, "content": "y"})
            ),
            (
                "toolu_1_3".into(),
                "Write".into(),
                json!({"file_path": format!("{root}/new.py"), "content": "z"})
            ),
            ("toolu_1_4".into(), "Bash".into(), json!({"command": "ls"})),
            (
                "toolu_1_5".into(),
                "Read".into(),
                json!({"file_path": path, "limit": 3})
            ),
            ("toolu_1_6".into(), "TodoWrite".into(), json!({"todos": []})),
        ]
    );
    assert!(matches!(&out.content[0], ContentBlock::Text { text } if text == "Working."));
}

/// Back: the model sees its own calls, the added Reads gone, and a
/// flagged failure of a file tool as an error.
#[test]
fn claude_code_results_reach_the_model_as_answers_to_its_own_calls() {
    let dir = tempfile::tempdir().unwrap();
    let (t, out) = translated_for_claude_code(dir.path());
    let results = |ids: &[&str]| {
        Message::blocks(
            Role::User,
            ids.iter()
                .map(|id| ContentBlock::ToolResult {
                    tool_use_id: id.to_string(),
                    content: format!("result of {id}"),
                    is_error: false,
                })
                .collect(),
        )
    };
    let mut next = request(
        &CLAUDE,
        vec![
            Message::user_text("t"),
            Message::blocks(Role::Assistant, out.content.clone()),
            results(&[
                "toolu_1_1_pre1",
                "toolu_1_1",
                "toolu_1_2_pre1",
                "toolu_1_2",
                "toolu_1_3",
                "toolu_1_4",
                "toolu_1_5",
                "toolu_1_6",
            ]),
        ],
    );
    next.error_results = vec!["toolu_1_1".into(), "toolu_1_4".into()];
    let seen = t.model_view(&next);
    let names: Vec<(String, Value)> = seen.messages[1]
        .content_blocks()
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { name, input, .. } => Some((name.clone(), (**input).clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        names[0],
        (
            "edit_file".into(),
            json!({"path": "a.py", "old_text": "1", "new_text": "2"})
        )
    );
    assert_eq!(
        names[4],
        (
            "read_file".into(),
            json!({"path": "{WORKDIR}/a.py", "limit": 3})
        )
    );
    assert_eq!(names.len(), 6);
    let contents: Vec<&str> = seen.messages[2]
        .content_blocks()
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(contents.len(), 6);
    assert_eq!(contents[0], "Error: result of toolu_1_1");
    // A failed bash is output, as in the built-in loop.
    assert_eq!(contents[3], "result of toolu_1_4");
}

#[test]
fn built_in_tools_an_agent_offers_go_unchanged() {
    let mut t = Translation::new(None);
    let response =
        ModelResponse::from_blocks(vec![call("toolu_1_1", "bash", json!({"command": "ls"}))]);
    let out = t.agent_view(&request(&["bash", "read_file"], vec![]), response.clone());
    assert_eq!(out, response);
    // An unknown family: unchanged too.
    let out = t.agent_view(&request(&["shell"], vec![]), response.clone());
    assert_eq!(out, response);
}

#[test]
fn codex_gets_exec_command_and_patches() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "def f(x):\n    return x\n").unwrap();
    let mut t = Translation::new(Some(dir.path().to_path_buf()));
    let response = ModelResponse::from_blocks(vec![
        call(
            "toolu_2_1",
            "edit_file",
            json!({"path": "a.py", "old_text": "return x", "new_text": "return x + 1"}),
        ),
        call(
            "toolu_2_2",
            "write_file",
            json!({"path": "b.txt", "content": "one\ntwo\n"}),
        ),
        call("toolu_2_3", "read_file", json!({"path": "it's.txt"})),
        call("toolu_2_4", "bash", json!({"command": "ls -R"})),
    ]);
    let got = calls(&t.agent_view(&request(&CODEX, vec![]), response));
    assert_eq!(
        got[0],
        (
            "toolu_2_1".into(),
            "apply_patch".into(),
            json!(
                "*** Begin Patch\n*** Update File: a.py\n@@\n-    return x\n+    return x + 1\n*** End Patch\n"
            )
        )
    );
    assert_eq!(
        got[1].2,
        json!("*** Begin Patch\n*** Add File: b.txt\n+one\n+two\n*** End Patch\n")
    );
    assert_eq!(got[2].2, json!({"cmd": "cat -- 'it'\\''s.txt'"}));
    assert_eq!(got[3].2, json!({"cmd": "ls -R"}));
}

#[test]
fn an_s03_plan_goes_out_as_the_agents_planning_call() {
    let todo = call(
        "toolu_1_1",
        "todo",
        json!({"items": [{"id": "1", "text": "Fix it", "status": "in_progress"}, {"id": "2", "text": "Test it"}]}),
    );
    let mut t = Translation::new(None);
    let got = calls(&t.agent_view(
        &request(&CLAUDE, vec![]),
        ModelResponse::from_blocks(vec![todo.clone()]),
    ));
    assert_eq!(
        got[0].2,
        json!({"todos": [
            {"content": "Fix it", "status": "in_progress", "activeForm": "Fix it"},
            {"content": "Test it", "status": "pending", "activeForm": "Test it"}]})
    );
    let got = calls(&t.agent_view(
        &request(&CODEX, vec![]),
        ModelResponse::from_blocks(vec![todo.clone()]),
    ));
    assert_eq!(got[0].1, "update_plan");
    assert_eq!(
        got[0].2,
        json!({"plan": [{"step": "Fix it", "status": "in_progress"}, {"step": "Test it", "status": "pending"}]})
    );
    // No planning tool offered: it stays an (unknown) `todo` call.
    let got = calls(&t.agent_view(
        &request(&["Bash", "Read"], vec![]),
        ModelResponse::from_blocks(vec![todo]),
    ));
    assert_eq!(got[0].1, "todo");
}

#[test]
fn a_later_edit_of_the_same_response_sees_the_earlier_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "one two\n").unwrap();
    let mut t = Translation::new(Some(dir.path().to_path_buf()));
    let response = ModelResponse::from_blocks(vec![
        call(
            "toolu_1_1",
            "edit_file",
            json!({"path": "a.py", "old_text": "one", "new_text": "1"}),
        ),
        call(
            "toolu_1_2",
            "edit_file",
            json!({"path": "a.py", "old_text": "1 two", "new_text": "1 2"}),
        ),
    ]);
    let got = calls(&t.agent_view(&request(&CODEX, vec![]), response));
    assert_eq!(
        got[1].2,
        json!("*** Begin Patch\n*** Update File: a.py\n@@\n-1 two\n+1 2\n*** End Patch\n")
    );
}

#[test]
fn update_patches_cover_whole_lines() {
    let file = "a\nb c\nd\n";
    assert_eq!(
        update_file_patch("f", Some(file), "c\nd", "C\nD"),
        "*** Begin Patch\n*** Update File: f\n@@\n-b c\n-d\n+b C\n+D\n*** End Patch\n"
    );
    // Whole lines removed: no `+` line.
    assert_eq!(
        update_file_patch("f", Some(file), "b c\n", ""),
        "*** Begin Patch\n*** Update File: f\n@@\n-b c\n*** End Patch\n"
    );
    // A multibyte last character.
    assert_eq!(
        update_file_patch("f", Some("x é\ny\n"), "é", "e"),
        "*** Begin Patch\n*** Update File: f\n@@\n-x é\n+x e\n*** End Patch\n"
    );
    // Not found: the texts themselves (Codex says it found no such lines).
    assert_eq!(
        update_file_patch("f", Some(file), "zzz", "y"),
        "*** Begin Patch\n*** Update File: f\n@@\n-zzz\n+y\n*** End Patch\n"
    );
    assert_eq!(
        add_file_patch("e", ""),
        "*** Begin Patch\n*** Add File: e\n*** End Patch\n"
    );
}

#[test]
fn codex_failures_read_as_errors_for_file_tools_only() {
    let codex = codex::Codex;
    assert!(codex.failed(
        Builtin::EditFile,
        "apply_patch verification failed: Failed to find expected lines",
        false
    ));
    assert!(!codex.failed(Builtin::EditFile, "Exit code: 0\nOutput:\nSuccess.", false));
    assert!(codex.failed(
        Builtin::ReadFile,
        "Chunk ID: x\nProcess exited with code 1\nOutput:\ncat: no such file",
        false
    ));
    assert!(!codex.failed(
        Builtin::ReadFile,
        "Process exited with code 0\nOutput:\nx",
        false
    ));
}

const GEMINI: [&str; 5] = [
    "read_file",
    "write_file",
    "replace",
    "run_shell_command",
    "write_todos",
];
const QWEN: [&str; 5] = [
    "read_file",
    "write_file",
    "edit",
    "run_shell_command",
    "todo_write",
];
const OPENCODE: [&str; 5] = ["bash", "edit", "read", "todowrite", "write"];

/// Every built-in call once, in a workspace holding `a.py`, out for the
/// agent offering `tools`.
fn every_builtin(dir: &Path, tools: &[&str]) -> Vec<(String, String, Value)> {
    std::fs::write(dir.join("a.py"), "x = 1\n").unwrap();
    let mut t = Translation::new(Some(dir.to_path_buf()));
    let response = ModelResponse::from_blocks(vec![
        call(
            "toolu_1_1",
            "read_file",
            json!({"path": "a.py", "limit": 3}),
        ),
        call(
            "toolu_1_2",
            "write_file",
            json!({"path": "a.py", "content": "y"}),
        ),
        call(
            "toolu_1_3",
            "edit_file",
            json!({"path": "a.py", "old_text": "y", "new_text": "z"}),
        ),
        call("toolu_1_4", "bash", json!({"command": "ls"})),
        call(
            "toolu_1_5",
            "todo",
            json!({"items": [{"id": "1", "text": "A", "status": "pending"}]}),
        ),
    ]);
    calls(&t.agent_view(&request(tools, vec![]), response))
}

#[test]
fn gemini_cli_gets_its_own_shapes_even_for_the_names_it_shares() {
    let dir = tempfile::tempdir().unwrap();
    let sent = every_builtin(dir.path(), &GEMINI);
    let expected = [
        (
            "toolu_1_1",
            "read_file",
            json!({"file_path": "a.py", "end_line": 3}),
        ),
        (
            "toolu_1_2",
            "write_file",
            json!({"file_path": "a.py", "content": "y"}),
        ),
        (
            "toolu_1_3",
            "replace",
            json!({"file_path": "a.py", "instruction": gemini_cli::INSTRUCTION, "old_string": "y", "new_string": "z"}),
        ),
        ("toolu_1_4", "run_shell_command", json!({"command": "ls"})),
        (
            "toolu_1_5",
            "write_todos",
            json!({"todos": [{"description": "A", "status": "pending"}]}),
        ),
    ];
    let expected: Vec<_> = expected
        .into_iter()
        .map(|(i, n, v)| (i.to_string(), n.to_string(), v))
        .collect();
    assert_eq!(sent, expected);
    // A call already in Gemini's shape goes to its tool as written.
    let mut t = Translation::new(Some(dir.path().to_path_buf()));
    let own = json!({"file_path": "a.py"});
    let response = ModelResponse::from_blocks(vec![call("toolu_2_1", "read_file", own.clone())]);
    let out = calls(&t.agent_view(&request(&GEMINI, vec![]), response));
    assert_eq!(out, [("toolu_2_1".into(), "read_file".into(), own)]);
}

#[test]
fn qwen_code_reads_before_it_edits_or_overwrites_with_absolute_paths() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.py").to_string_lossy().into_owned();
    let sent = every_builtin(dir.path(), &QWEN);
    let names: Vec<(&str, &str)> = sent
        .iter()
        .map(|(i, n, _)| (i.as_str(), n.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("toolu_1_1", "read_file"),
            ("toolu_1_2_pre1", "read_file"),
            ("toolu_1_2", "write_file"),
            ("toolu_1_3_pre1", "read_file"),
            ("toolu_1_3", "edit"),
            ("toolu_1_4", "run_shell_command"),
            ("toolu_1_5", "todo_write"),
        ]
    );
    assert_eq!(sent[0].2, json!({"file_path": a, "limit": 3}));
    assert_eq!(
        sent[4].2,
        json!({"file_path": a, "old_string": "y", "new_string": "z"})
    );
    assert_eq!(
        sent[6].2,
        json!({"todos": [{"id": "1", "content": "A", "status": "pending"}]})
    );
    assert!(qwen_code::QwenCode.failed(
        Builtin::EditFile,
        "Failed to edit, 0 occurrences found",
        false
    ));
    assert!(qwen_code::QwenCode.failed(
        Builtin::EditFile,
        "File /w/a.py has not been read in this session. Use the read_file tool first",
        false
    ));
    assert!(!qwen_code::QwenCode.failed(Builtin::ReadFile, "x = 1\n", false));
}

#[test]
fn opencode_gets_absolute_file_paths_and_its_own_bash() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.py").to_string_lossy().into_owned();
    let sent = every_builtin(dir.path(), &OPENCODE);
    let expected = [
        ("toolu_1_1", "read", json!({"filePath": a, "limit": 3})),
        ("toolu_1_2", "write", json!({"filePath": a, "content": "y"})),
        (
            "toolu_1_3",
            "edit",
            json!({"filePath": a, "oldString": "y", "newString": "z"}),
        ),
        ("toolu_1_4", "bash", json!({"command": "ls"})),
        (
            "toolu_1_5",
            "todowrite",
            json!({"todos": [{"content": "A", "status": "pending", "priority": "medium"}]}),
        ),
    ];
    let expected: Vec<_> = expected
        .into_iter()
        .map(|(i, n, v)| (i.to_string(), n.to_string(), v))
        .collect();
    assert_eq!(sent, expected);
    assert!(opencode::OpenCode.failed(
        Builtin::EditFile,
        "Could not find oldString in the file.",
        false
    ));
}

const COPILOT: [&str; 5] = ["bash", "view", "create", "edit", "sql"];

#[test]
fn copilot_gets_its_own_file_tools_a_described_bash_and_its_sql_as_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
    let root = dir.path().to_string_lossy().into_owned();
    let mut t = Translation::new(Some(dir.path().to_path_buf()));
    let sql = json!({"description": "Insert todos", "query": "INSERT INTO todos (id, title) VALUES ('a', 'A')"});
    let response = ModelResponse::from_blocks(vec![
        call("c1", "read_file", json!({"path": "a.py", "limit": 3})),
        call(
            "c2",
            "write_file",
            json!({"path": "new.py", "content": "z"}),
        ),
        call(
            "c3",
            "write_file",
            json!({"path": "a.py", "content": "it's\n"}),
        ),
        call(
            "c4",
            "edit_file",
            json!({"path": "a.py", "old_text": "1", "new_text": "2"}),
        ),
        call("c5", "bash", json!({"command": "ls"})),
        call(
            "c6",
            "bash",
            json!({"command": "pwd", "description": "Where"}),
        ),
        call("c7", "sql", sql.clone()),
    ]);
    let sent = calls(&t.agent_view(&request(&COPILOT, vec![]), response));
    let names: Vec<&str> = sent.iter().map(|(_, n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["view", "create", "bash", "edit", "bash", "bash", "sql"]
    );
    assert_eq!(
        sent[0].2,
        json!({"path": format!("{root}/a.py"), "view_range": [1, 3]})
    );
    assert_eq!(
        sent[1].2,
        json!({"path": format!("{root}/new.py"), "file_text": "z"})
    );
    // `create` refuses a file that exists: the exact bytes through bash.
    assert_eq!(
        sent[2].2["command"],
        format!("mkdir -p '{root}' && printf '%s' 'it'\\''s\n' > '{root}/a.py'")
    );
    assert_eq!(
        sent[3].2,
        json!({"path": format!("{root}/a.py"), "old_str": "1", "new_str": "2"})
    );
    assert_eq!(
        sent[4].2,
        json!({"command": "ls", "description": "Run a command"})
    );
    assert_eq!(sent[5].2, json!({"command": "pwd", "description": "Where"}));
    assert_eq!(sent[6].2, sql);
    // The run's bash write does what write_file says.
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(sent[2].2["command"].as_str().unwrap())
        .status()
        .unwrap();
    assert!(out.success());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        "it's\n"
    );
}

#[test]
fn copilot_failures_read_as_the_built_in_tools_errors() {
    let family = super::copilot::Copilot;
    assert!(family.failed(
        Builtin::ReadFile,
        "Path /w/x does not exist. Please provide a valid path.",
        false
    ));
    assert!(family.failed(Builtin::EditFile, "No match found: old_str not found in /w/a.txt; no changes made; you might want to try again with correct old_str", false));
    assert!(family.failed(
        Builtin::WriteFile,
        "Parent directory /w/sub does not exist. You need to create it before creating the file.",
        false
    ));
    assert!(!family.failed(
        Builtin::EditFile,
        "File /w/a.txt updated with changes.",
        false
    ));
    assert!(!family.failed(Builtin::ReadFile, "Path of least resistance\n", false));
}

/// The lines an `apply_patch` of an edit of `path` takes out: the file's
/// whole line when the translation read the file, the old text alone when
/// it did not.
fn patched_out(t: &mut Translation, path: &str) -> String {
    let response = ModelResponse::from_blocks(vec![call(
        "toolu_9",
        "edit_file",
        json!({"path": path, "old_text": "SECRET", "new_text": "x"}),
    )]);
    let got = calls(&t.agent_view(&request(&CODEX, vec![]), response));
    let patch = got[0].2.as_str().unwrap_or_default().to_string();
    patch
        .lines()
        .find(|l| l.starts_with('-'))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn only_regular_files_inside_the_workspace_are_read_and_never_a_fifo() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "SECRET line\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.txt"), "SECRET line\n").unwrap();
    std::os::unix::fs::symlink(&secret, root.join("link.txt")).unwrap();
    std::fs::hard_link(&secret, root.join("hard.txt")).unwrap();
    let fifo = std::ffi::CString::new(root.join("f.txt").as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let mut big = "SECRET line\n".to_string();
    big.push_str(&"y".repeat(super::workspace_file::MAX_FILE_BYTES as usize));
    std::fs::write(root.join("big.txt"), big).unwrap();
    let mut t = Translation::new(Some(root.clone()));
    assert_eq!(patched_out(&mut t, "a.txt"), "-SECRET line");
    let inside_absolute = root.join("a.txt").to_string_lossy().into_owned();
    assert_eq!(patched_out(&mut t, &inside_absolute), "-SECRET line");
    for path in [
        "../../".to_string() + &secret.to_string_lossy(),
        secret.to_string_lossy().into_owned(),
        "link.txt".into(),
        "hard.txt".into(),
        "f.txt".into(),
        "big.txt".into(),
    ] {
        assert_eq!(patched_out(&mut t, &path), "-SECRET", "{path}");
    }
}
