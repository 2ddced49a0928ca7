//! Speed of reading transcripts (`agent_eval::transcript::read_paths`, what
//! `calibrate` reads with) over a generated corpus: Claude Code sessions
//! shaped like real ones (responses split into a record per content block,
//! tool results of a few kilobytes, TodoWrite calls and their reminders,
//! the bookkeeping records 2.1.x writes) and Codex rollouts. Throughput is
//! in bytes of transcript a second, on one core; the target is 100 MB/s.
//! `benches/calibrate_read.sh` pairs the whole command with a plain Python
//! pass over the same kind of files.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test, benchmark or example: a failed assumption is a failure to see"
)]

use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};

use agent_eval::transcript::{ReadOptions, read_paths};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

/// Sessions a corpus holds, and turns a session.
const SESSIONS: usize = 40;
const TURNS: usize = 60;

/// A tool result of `n` characters, text like a file's.
fn file_text(n: usize, seed: usize) -> String {
    let line = format!("    let value_{seed} = compute(&input, {seed}); // a line of code\n");
    line.repeat(n / line.len() + 1)[..n].to_string()
}

fn claude_code_session(session: usize) -> Vec<Value> {
    let meta = |kind: &str| {
        json!({"parentUuid": "p", "isSidechain": false, "userType": "external",
               "cwd": "/home/user/project", "sessionId": format!("s{session}"),
               "version": "2.1.330", "gitBranch": "main", "type": kind,
               "uuid": "00000000-0000-0000-0000-000000000000",
               "timestamp": "2026-11-27T00:00:00.000Z"})
    };
    let with = |kind: &str, key: &str, value: Value| {
        let mut record = meta(kind);
        record[key] = value;
        record
    };
    let mut records = vec![with(
        "user",
        "message",
        json!({"role": "user", "content": "Refactor the parser into modules and keep the tests green."}),
    )];
    for turn in 0..TURNS {
        let id = format!("msg_{session}_{turn}");
        let usage = json!({"input_tokens": 4, "cache_read_input_tokens": 20_000 + turn * 900,
                           "cache_creation_input_tokens": 300, "output_tokens": 250});
        let block = |content: Value| {
            with(
                "assistant",
                "message",
                json!({"id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                       "content": [content], "stop_reason": null, "usage": usage}),
            )
        };
        records.push(block(json!({"type": "text", "text": file_text(300, turn)})));
        let (tool, input) = if turn % 7 == 0 {
            let todos: Vec<Value> = (0..6)
                .map(|k| json!({"content": format!("Step {k} of the refactor"), "activeForm": format!("Doing step {k}"),
                                "status": if k < turn / 7 { "completed" } else { "pending" }}))
                .collect();
            ("TodoWrite", json!({"todos": todos}))
        } else {
            (
                "Read",
                json!({"file_path": format!("/home/user/project/src/m{turn}.rs")}),
            )
        };
        let call = format!("toolu_{session}_{turn}");
        records.push(block(
            json!({"type": "tool_use", "id": call, "name": tool, "input": input}),
        ));
        records.push(with(
            "user",
            "message",
            json!({"role": "user", "content": [{"tool_use_id": call, "type": "tool_result",
                                                 "content": file_text(6_000, turn)}]}),
        ));
        if turn % 10 == 9 {
            records.push(with(
                "attachment",
                "attachment",
                json!({"type": "todo_reminder", "content": [], "itemCount": 6}),
            ));
        }
        records.push(
            json!({"type": "api-request", "sessionId": format!("s{session}"), "version": "2.1.330",
                            "params": {"model": "claude-sonnet-4-5", "max_tokens": 32000}}),
        );
    }
    records
}

fn codex_session(session: usize) -> Vec<Value> {
    let rec = |kind: &str, payload: Value| json!({"timestamp": "2026-11-27T00:00:00.000Z", "type": kind, "payload": payload});
    let mut records = vec![
        rec(
            "session_meta",
            json!({"id": format!("c{session}"), "cwd": "/w", "cli_version": "0.169.0"}),
        ),
        rec("turn_context", json!({"cwd": "/w", "model": "gpt-5.5"})),
        rec(
            "event_msg",
            json!({"type": "user_message", "message": "Fix the build."}),
        ),
    ];
    for turn in 0..TURNS {
        let call = format!("call_{turn}");
        let (name, args) = if turn % 5 == 0 {
            (
                "update_plan",
                json!({"plan": [{"step": "build", "status": "in_progress"}, {"step": "test", "status": "pending"}]}),
            )
        } else {
            (
                "exec_command",
                json!({"cmd": format!("sed -n 1,200p src/m{turn}.rs")}),
            )
        };
        records.push(rec(
            "response_item",
            json!({"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": file_text(300, turn)}]}),
        ));
        records.push(rec(
            "response_item",
            json!({"type": "function_call", "name": name,
            "arguments": args.to_string(), "call_id": call}),
        ));
        records.push(rec(
            "token_usage_record",
            json!({"usage": {"input_tokens": 20_000 + turn * 900, "output_tokens": 250}}),
        ));
        records.push(rec(
            "response_item",
            json!({"type": "function_call_output", "call_id": call,
            "output": file_text(6_000, turn)}),
        ));
        records.push(rec("event_msg", json!({"type": "token_count", "info": {"last_token_usage": {"input_tokens": 1, "output_tokens": 1}}})));
    }
    records
}

/// Writes the corpus of `make` sessions into `dir`; returns its files and
/// bytes.
fn corpus(dir: &Path, make: fn(usize) -> Vec<Value>) -> (Vec<PathBuf>, u64) {
    let mut files = Vec::new();
    let mut bytes = 0;
    for session in 0..SESSIONS {
        let path = dir.join(format!("s{session}.jsonl"));
        let mut file =
            std::io::BufWriter::new(std::fs::File::create(&path).expect("a corpus file"));
        for record in make(session) {
            let line = serde_json::to_string(&record).expect("JSON");
            bytes += line.len() as u64 + 1;
            writeln!(file, "{line}").expect("write the corpus");
        }
        files.push(path);
    }
    (files, bytes)
}

fn read(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut group = c.benchmark_group("transcripts");
    group.sample_size(10);
    for (name, make) in [
        (
            "claude-code",
            claude_code_session as fn(usize) -> Vec<Value>,
        ),
        ("codex", codex_session),
    ] {
        let sub = dir.path().join(name);
        std::fs::create_dir(&sub).expect("a corpus folder");
        let (files, bytes) = corpus(&sub, make);
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function(
            format!(
                "{name}: {SESSIONS} sessions × {TURNS} turns, {} MB",
                bytes >> 20
            ),
            |b| {
                b.iter(|| {
                    let mut turns = 0;
                    let summary = read_paths(black_box(&files), &ReadOptions::default(), |s| {
                        turns += s.turns().count()
                    })
                    .expect("the corpus reads");
                    assert_eq!(summary.skipped_total(), 0);
                    black_box(turns)
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, read);
criterion_main!(benches);
