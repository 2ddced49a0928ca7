//! `agent-eval serve`: prints its URLs, answers, and stops on SIGTERM with
//! a summary of what the wire saw.

use crate::support;
use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;
use std::time::Duration;

#[test]
fn serve_prints_its_urls_answers_and_stops_on_sigterm() {
    let mut child = support::agent_eval_command()
        .args([
            "serve",
            "scenarios/scripted/no_todo.yaml",
            "--listen",
            "127.0.0.1:0",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut base = None;
    let mut printed = String::new();
    for _ in 0..10 {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        printed.push_str(&line);
        if let Some(url) = line.trim().strip_prefix("ANTHROPIC_BASE_URL=") {
            base = Some(url.to_string());
        }
        if line.contains("OPENAI_BASE_URL=") {
            assert!(line.trim().ends_with("/v1"), "{line}");
            break;
        }
    }
    let base = base.unwrap_or_else(|| panic!("no URL printed: {printed}"));
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    let response: serde_json::Value = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .no_proxy()
        .build()
        .unwrap()
        .post(format!("{base}/v1/messages"))
        .json(&serde_json::json!({
            "model": "x", "max_tokens": 10,
            "tools": [{"name": "bash", "input_schema": {"type": "object"}}],
            "messages": [{"role": "user", "content": "go"}]
        }))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(response["type"], "message");
    assert_eq!(response["model"], "x");
    // SAFETY: kill has no memory-safety preconditions; the pid is our child.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(
        stderr.contains("stopped after 1 requests: turns 1"),
        "{stderr}"
    );
}

#[test]
fn serve_refuses_a_workdir_that_does_not_exist() {
    let out = support::agent_eval_command()
        .args([
            "serve",
            "scenarios/simulated/docs_fixes.yaml",
            "--workdir",
            "/nonexistent/agent-eval-workdir",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--workdir /nonexistent/agent-eval-workdir"),
        "{stderr}"
    );
}

/// The API keys leave agent-eval's environment at start-up, including the
/// start-up block `/proc/PID/environ` shows to any process of the same
/// user (an agent under test among them).
#[test]
fn the_api_keys_are_gone_from_proc_environ() {
    const SECRET: &str = "sk-proc-environ-SECRET-42";
    let mut child = support::agent_eval_command()
        .args([
            "serve",
            "scenarios/scripted/no_todo.yaml",
            "--listen",
            "127.0.0.1:0",
        ])
        .env("ANTHROPIC_API_KEY", SECRET)
        .env("OPENAI_API_KEY", SECRET)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Once it prints a URL, main has long passed its first statement.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("BASE_URL=") {
        line.clear();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
    }
    let environ = std::fs::read(format!("/proc/{}/environ", child.id())).unwrap();
    // SAFETY: kill has no memory-safety preconditions; the pid is our child.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    let _ = child.wait();
    let environ = String::from_utf8_lossy(&environ);
    assert!(line.contains("BASE_URL="), "{line}");
    assert!(!environ.contains("SECRET"), "{environ}");
    assert!(environ.contains("ANTHROPIC_API_KEY=xxxx"), "{environ}");
}
