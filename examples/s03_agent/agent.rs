//! An example external agent: the s03 TodoWrite design, written as a user
//! of agent-eval would write their own agent, with nothing of agent-eval's
//! code. It talks to any Anthropic Messages API endpoint
//! (`$ANTHROPIC_BASE_URL/v1/messages`, key `$ANTHROPIC_API_KEY`, model
//! `$MODEL_ID`) with a plain HTTP client, works in its current directory,
//! and reads its task from `$AGENT_TASK`, else its last argument, else
//! stdin.
//!
//! Tools `bash`, `read_file`, `write_file`, `edit_file` and `todo` with the
//! s03 texts; the nag reminder `<reminder>Update your todos.</reminder>`
//! after 3 rounds without a todo call, placed first in the results (the
//! s03 reference). Settings from the environment, each `S03_<NAME>` or else
//! the `AGENT_EVAL_<NAME>` agent-eval sets from the run's cell: `TODO=0`
//! (no todo tool), `NAG_THRESHOLD=N|off`, `PLACEMENT=prepend|append`,
//! `MAX_TURNS=N` (default 50, over the whole session), `STREAM=1` (ask for
//! server-sent events instead of one JSON body), `REPL=1` or
//! `TASK_VIA=lines` (agent-eval sets `AGENT_EVAL_TASK_VIA`): read stdin as
//! a line REPL, as the s03 reference does, each line the next user message
//! of one session (the todo list carries over, the nag counter restarts),
//! until an empty line, `q`, `exit` or the end of input.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "an example agent outside the library: it stops on what it cannot use"
)]

use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const REMINDER: &str = "<reminder>Update your todos.</reminder>";
const MAX_CHARS: usize = 50_000;
const DANGEROUS: [&str; 5] = ["rm -rf /", "sudo", "shutdown", "reboot", "> /dev/"];

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("s03-agent: {message}");
            ExitCode::from(1)
        }
    }
}

struct Settings {
    todo: bool,
    threshold: Option<usize>,
    append: bool,
    max_turns: usize,
    stream: bool,
}

/// A setting: `S03_<NAME>`, else agent-eval's `AGENT_EVAL_<NAME>` (the run's
/// cell), else empty.
fn setting(name: &str) -> String {
    std::env::var(format!("S03_{name}"))
        .or_else(|_| std::env::var(format!("AGENT_EVAL_{name}")))
        .unwrap_or_default()
}

fn settings() -> Settings {
    let reminder_off = std::env::var("AGENT_EVAL_REMINDER").is_ok_and(|r| r == "off");
    Settings {
        todo: setting("TODO") != "0",
        threshold: match setting("NAG_THRESHOLD").as_str() {
            "off" => None,
            "" if reminder_off => None,
            "" => Some(3),
            n => Some(n.parse().unwrap_or(3)),
        },
        append: setting("PLACEMENT") == "append",
        max_turns: setting("MAX_TURNS").parse().unwrap_or(50),
        stream: setting("STREAM") == "1",
    }
}

fn task() -> Result<String, String> {
    if let Ok(task) = std::env::var("AGENT_TASK") {
        return Ok(task);
    }
    if let Some(task) = std::env::args().nth(1) {
        return Ok(task);
    }
    let mut task = String::new();
    std::io::stdin()
        .read_to_string(&mut task)
        .map_err(|e| format!("cannot read the task from stdin: {e}"))?;
    Ok(task)
}

fn run() -> Result<(), String> {
    let settings = settings();
    let workdir = std::env::current_dir().map_err(|e| e.to_string())?;
    let system = format!(
        "You are a coding agent at {}.\nUse the todo tool to plan multi-step tasks. Mark in_progress before starting, completed when done.\nPrefer tools over prose.",
        workdir.display()
    );
    let mut agent = Agent {
        base: std::env::var("ANTHROPIC_BASE_URL")
            .unwrap_or_else(|_| "https://api.anthropic.com".to_string()),
        key: std::env::var("ANTHROPIC_API_KEY").unwrap_or_default(),
        model: std::env::var("MODEL_ID").unwrap_or_else(|_| "claude-sonnet-4-5".to_string()),
        tools: tool_schemas(settings.todo),
        client: reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(300))
            .build()
            .map_err(|e| e.to_string())?,
        settings,
        workdir,
        system,
        todos: Vec::new(),
        messages: Vec::new(),
        turns: 0,
    };
    // A line REPL, as the s03 reference's `__main__`: each line of stdin is
    // the next user message, until an empty line, `q`, `exit` or the end.
    if setting("TASK_VIA") == "lines" || setting("REPL") == "1" {
        for line in std::io::stdin().lines() {
            let query = line.map_err(|e| format!("cannot read stdin: {e}"))?;
            if matches!(query.trim().to_lowercase().as_str(), "" | "q" | "exit") {
                break;
            }
            agent
                .messages
                .push(json!({"role": "user", "content": query}));
            agent.agent_loop()?;
        }
        return Ok(());
    }
    agent
        .messages
        .push(json!({"role": "user", "content": task()?}));
    agent.agent_loop()
}

/// One session: the conversation and the TodoManager live as long as it
/// does; the nag counter lives in each call of [`Agent::agent_loop`].
struct Agent {
    settings: Settings,
    workdir: PathBuf,
    system: String,
    base: String,
    key: String,
    model: String,
    tools: Value,
    client: reqwest::blocking::Client,
    todos: Vec<(String, String, String)>,
    messages: Vec<Value>,
    /// Model turns over the whole session (capped at `MAX_TURNS`).
    turns: usize,
}

impl Agent {
    fn agent_loop(&mut self) -> Result<(), String> {
        let mut rounds_since_todo = 0;
        while self.turns < self.settings.max_turns {
            self.turns += 1;
            let (content, stop_reason) = self.ask()?;
            self.messages
                .push(json!({"role": "assistant", "content": content}));
            if stop_reason != "tool_use" {
                for block in content.as_array().into_iter().flatten() {
                    if let Some(text) = block["text"].as_str() {
                        println!("{text}");
                    }
                }
                return Ok(());
            }
            let (mut results, used_todo) = self.run_tools(&content);
            rounds_since_todo = if used_todo { 0 } else { rounds_since_todo + 1 };
            let settings = &self.settings;
            if settings.todo && settings.threshold.is_some_and(|t| rounds_since_todo >= t) {
                let reminder = json!({"type": "text", "text": REMINDER});
                if settings.append {
                    results.push(reminder);
                } else {
                    results.insert(0, reminder);
                }
            }
            self.messages
                .push(json!({"role": "user", "content": results}));
        }
        Ok(())
    }

    /// One request: the model's content and stop reason.
    fn ask(&self) -> Result<(Value, Value), String> {
        let body = json!({
            "model": self.model, "max_tokens": 8000, "system": self.system,
            "messages": self.messages, "tools": self.tools, "stream": self.settings.stream,
        });
        let response = self
            .client
            .post(format!("{}/v1/messages", self.base.trim_end_matches('/')))
            .header("x-api-key", &self.key)
            .header("anthropic-version", "2023-06-01")
            .json(&body)
            .send()
            .map_err(|e| format!("request failed: {e}"))?;
        let status = response.status();
        let text = response.text().map_err(|e| e.to_string())?;
        if !status.is_success() {
            return Err(format!("the API answered {status}: {text}"));
        }
        if self.settings.stream {
            from_stream(&text)
        } else {
            let reply: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            Ok((reply["content"].clone(), reply["stop_reason"].clone()))
        }
    }

    /// Runs the calls of `content`: their results, and whether `todo` was
    /// called.
    fn run_tools(&mut self, content: &Value) -> (Vec<Value>, bool) {
        let mut results = Vec::new();
        let mut used_todo = false;
        for block in content.as_array().into_iter().flatten() {
            if block["type"] != "tool_use" {
                continue;
            }
            let name = block["name"].as_str().unwrap_or_default();
            let input = &block["input"];
            let output = match name {
                "todo" if self.settings.todo => {
                    used_todo = true;
                    todo_update(&mut self.todos, input).unwrap_or_else(|e| format!("Error: {e}"))
                }
                "bash" | "read_file" | "write_file" | "edit_file" => {
                    call_tool(&self.workdir, name, input).unwrap_or_else(|e| format!("Error: {e}"))
                }
                _ => {
                    used_todo |= name == "todo";
                    format!("Unknown tool: {name}")
                }
            };
            results.push(
                json!({"type": "tool_result", "tool_use_id": block["id"], "content": output}),
            );
        }
        (results, used_todo)
    }
}

/// Rebuilds the content and stop reason from the Messages API's events.
fn from_stream(body: &str) -> Result<(Value, Value), String> {
    let mut blocks: Vec<Value> = Vec::new();
    let mut partial: Vec<String> = Vec::new();
    let mut stop = Value::Null;
    for line in body.lines() {
        let Some(data) = line.strip_prefix("data:") else {
            continue;
        };
        let event: Value = serde_json::from_str(data.trim()).map_err(|e| e.to_string())?;
        match event["type"].as_str() {
            Some("content_block_start") => {
                blocks.push(event["content_block"].clone());
                partial.push(String::new());
            }
            Some("content_block_delta") => {
                let i = event["index"].as_u64().unwrap_or(0) as usize;
                let (Some(block), Some(json_text)) = (blocks.get_mut(i), partial.get_mut(i)) else {
                    return Err("a delta for a block that was not started".into());
                };
                match event["delta"]["type"].as_str() {
                    Some("text_delta") => {
                        let text = block["text"].as_str().unwrap_or_default().to_string()
                            + event["delta"]["text"].as_str().unwrap_or_default();
                        block["text"] = Value::String(text);
                    }
                    Some("input_json_delta") => json_text
                        .push_str(event["delta"]["partial_json"].as_str().unwrap_or_default()),
                    _ => {}
                }
            }
            Some("message_delta") => stop = event["delta"]["stop_reason"].clone(),
            _ => {}
        }
    }
    for (block, json_text) in blocks.iter_mut().zip(&partial) {
        if block["type"] == "tool_use" && !json_text.is_empty() {
            block["input"] = serde_json::from_str(json_text).map_err(|e| e.to_string())?;
        }
    }
    Ok((Value::Array(blocks), stop))
}

fn tool_schemas(todo: bool) -> Value {
    let mut tools = vec![
        json!({"name": "bash", "description": "Run a shell command.", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}),
        json!({"name": "read_file", "description": "Read file contents.", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["path"]}}),
        json!({"name": "write_file", "description": "Write content to file.", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}}),
        json!({"name": "edit_file", "description": "Replace exact text in file.", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}, "old_text": {"type": "string"}, "new_text": {"type": "string"}}, "required": ["path", "old_text", "new_text"]}}),
    ];
    if todo {
        tools.push(json!({"name": "todo", "description": "Update task list. Track progress on multi-step tasks.", "input_schema": {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}, "text": {"type": "string"}, "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}}, "required": ["id", "text", "status"]}}}, "required": ["items"]}}));
    }
    Value::Array(tools)
}

// --- the todo tool -------------------------------------------------------

/// Python's `str()` of a JSON value, as the reference turns fields to text.
fn py_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        other => other.to_string(),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn todo_update(todos: &mut Vec<(String, String, String)>, input: &Value) -> Result<String, String> {
    let Some(fields) = input.as_object() else {
        return Err(format!(
            "todo input must be an object with an items array, got {}",
            kind(input)
        ));
    };
    if let Some(field) = fields.keys().find(|k| k.as_str() != "items") {
        return Err(format!(
            "unknown field `{field}` in todo input, expected `items`"
        ));
    }
    let items = fields
        .get("items")
        .ok_or("items is required: an array of {id, text, status} objects")?;
    let Some(items) = items.as_array() else {
        return Err(format!(
            "items must be an array of todo objects, got {}",
            kind(items)
        ));
    };
    if items.len() > 20 {
        return Err("Max 20 todos allowed".into());
    }
    let mut validated = Vec::new();
    let mut in_progress = 0;
    for (i, item) in items.iter().enumerate() {
        let Some(item) = item.as_object() else {
            return Err(format!(
                "Item {i}: must be an object with id, text and status, got {}",
                kind(item)
            ));
        };
        let text = item
            .get("text")
            .map(py_str)
            .unwrap_or_default()
            .trim()
            .to_string();
        let status = item
            .get("status")
            .map(py_str)
            .unwrap_or_else(|| "pending".into())
            .to_lowercase();
        let id = item
            .get("id")
            .map(py_str)
            .unwrap_or_else(|| (i + 1).to_string());
        if text.is_empty() {
            return Err(format!("Item {id}: text required"));
        }
        if !matches!(status.as_str(), "pending" | "in_progress" | "completed") {
            return Err(format!("Item {id}: invalid status '{status}'"));
        }
        if status == "in_progress" {
            in_progress += 1;
        }
        validated.push((id, text, status));
    }
    if in_progress > 1 {
        return Err("Only one task can be in_progress at a time".into());
    }
    *todos = validated;
    Ok(render(todos))
}

fn render(todos: &[(String, String, String)]) -> String {
    if todos.is_empty() {
        return "No todos.".into();
    }
    let mut lines: Vec<String> = todos
        .iter()
        .map(|(id, text, status)| {
            let marker = match status.as_str() {
                "completed" => "[x]",
                "in_progress" => "[>]",
                _ => "[ ]",
            };
            format!("{marker} #{id}: {text}")
        })
        .collect();
    let done = todos.iter().filter(|t| t.2 == "completed").count();
    lines.push(String::new());
    lines.push(format!("({done}/{} completed)", todos.len()));
    lines.join("\n")
}

// --- the workspace tools -------------------------------------------------

fn arg<'a>(input: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match input.get(key) {
        None => Err(format!("'{key}'")),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!("invalid type: {}, expected a string", kind(other))),
    }
}

fn call_tool(workdir: &Path, name: &str, input: &Value) -> Result<String, String> {
    let empty = Map::new();
    let input = input.as_object().unwrap_or(&empty);
    match name {
        "bash" => bash(workdir, arg(input, "command")?),
        "read_file" => {
            let path = arg(input, "path")?;
            let limit = input.get("limit").and_then(Value::as_i64);
            read_file(workdir, path, limit)
        }
        "write_file" => {
            let path = arg(input, "path")?;
            let content = arg(input, "content")?;
            let full = safe_path(workdir, path)?;
            if let Some(parent) = full.parent() {
                std::fs::create_dir_all(parent).map_err(|e| os_error(e, parent))?;
            }
            std::fs::write(&full, content).map_err(|e| os_error(e, &full))?;
            Ok(format!("Wrote {} bytes", content.chars().count()))
        }
        _ => {
            let path = arg(input, "path")?;
            let old = arg(input, "old_text")?;
            let new = arg(input, "new_text")?;
            let full = safe_path(workdir, path)?;
            let text = read_text(&full)?;
            if !text.contains(old) {
                return Err(format!("Text not found in {path}"));
            }
            std::fs::write(&full, text.replacen(old, new, 1)).map_err(|e| os_error(e, &full))?;
            Ok(format!("Edited {path}"))
        }
    }
}

fn cut(text: &str) -> &str {
    match text.char_indices().nth(MAX_CHARS) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

fn newlines(text: String) -> String {
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text
    }
}

fn bash(workdir: &Path, command: &str) -> Result<String, String> {
    if DANGEROUS.iter().any(|d| command.contains(d)) {
        return Err("Dangerous command blocked".into());
    }
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (out_path, err_path) = (dir.path().join("out"), dir.path().join("err"));
    let file = |p: &Path| std::fs::File::create(p).map_err(|e| e.to_string());
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(workdir)
        .stdin(Stdio::null())
        .stdout(file(&out_path)?)
        .stderr(file(&err_path)?)
        .process_group(0)
        .spawn()
        .map_err(|e| e.to_string())?;
    let group = child.id() as i32;
    let deadline = Instant::now() + Duration::from_secs(120);
    let timed_out = loop {
        if let Ok(Some(_)) = child.try_wait() {
            break false;
        }
        if Instant::now() >= deadline {
            break true;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // SAFETY: kill has no memory-safety preconditions; -group is the
    // command's own process group.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
    let _ = child.wait();
    if timed_out {
        return Err("Timeout (120s)".into());
    }
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    let text = newlines(read(&out_path) + &read(&err_path));
    let trimmed = text.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c));
    Ok(if trimmed.is_empty() {
        "(no output)".into()
    } else {
        cut(trimmed).to_string()
    })
}

fn os_error(error: std::io::Error, path: &Path) -> String {
    match error.raw_os_error() {
        Some(code) => {
            let text = error.to_string();
            let reason = text
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&text)
                .to_string();
            format!("[Errno {code}] {reason}: '{}'", path.display())
        }
        None => error.to_string(),
    }
}

fn read_text(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| os_error(e, path))?;
    String::from_utf8(bytes)
        .map(newlines)
        .map_err(|e| format!("'utf-8' codec can't decode: {e}"))
}

fn read_file(workdir: &Path, path: &str, limit: Option<i64>) -> Result<String, String> {
    let full = safe_path(workdir, path)?;
    let text = read_text(&full)?;
    let mut lines = split_lines(&text);
    let rest;
    if let Some(limit) = limit.and_then(|l| usize::try_from(l).ok())
        && limit > 0
        && limit < lines.len()
    {
        rest = format!("... ({} more)", lines.len() - limit);
        lines.truncate(limit);
        lines.push(&rest);
    }
    Ok(cut(&lines.join("\n")).to_string())
}

/// Python's `str.splitlines()`.
fn split_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !matches!(
            c,
            '\n' | '\r'
                | '\x0b'
                | '\x0c'
                | '\x1c'
                | '\x1d'
                | '\x1e'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        ) {
            continue;
        }
        lines.push(&text[start..i]);
        start = i + c.len_utf8();
        if c == '\r'
            && let Some(&(j, '\n')) = chars.peek()
        {
            chars.next();
            start = j + 1;
        }
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// `(workdir / path).resolve()`, refused unless it stays inside `workdir`.
fn safe_path(workdir: &Path, path: &str) -> Result<PathBuf, String> {
    let escapes = || format!("Path escapes workspace: {path}");
    let mut pending: VecDeque<OsString> = components(&workdir.join(path));
    let mut current = PathBuf::from("/");
    let mut links = 0;
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            current.pop();
            continue;
        }
        let next = current.join(&part);
        match std::fs::read_link(&next) {
            Ok(target) => {
                links += 1;
                if links > 40 {
                    return Err(escapes());
                }
                if target.is_absolute() {
                    current = PathBuf::from("/");
                }
                for p in components(&target).into_iter().rev() {
                    pending.push_front(p);
                }
            }
            Err(_) => current = next,
        }
    }
    if current.starts_with(workdir) {
        Ok(current)
    } else {
        Err(escapes())
    }
}

fn components(path: &Path) -> VecDeque<OsString> {
    let mut parts = VecDeque::new();
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) => parts.clear(),
            Component::CurDir => {}
            Component::ParentDir => parts.push_back(OsString::from("..")),
            Component::Normal(p) => parts.push_back(p.to_os_string()),
        }
    }
    parts
}
