//! `calibrate` on transcripts made to hurt: links below a folder (to `/`,
//! back up the tree), outputs named over or inside what is read, forged
//! versions and model names, unknown record types carrying text, absurd
//! usage, and one line of 30 MB of small nested objects. Each is read or
//! skipped cleanly; nothing the transcript says reaches stderr or the
//! files meant to be shared except as numbers or a checked name.

// The helpers these tests do not use (tools that may be missing).
#[allow(dead_code)]
use std::path::Path;
use std::process::Output;

use crate::support::agent_eval_command;

/// One Claude Code session: a user message, a planning call and its
/// result, an answer. `version` and `model` are written as given.
fn session(version: &str, model: &str, input_tokens: u64) -> String {
    let user = |content: &str| {
        format!(
            r#"{{"type":"user","sessionId":"s","version":"{version}","uuid":"u","message":{{"role":"user","content":{content}}}}}"#
        )
    };
    let assistant = |id: &str, content: &str| {
        format!(
            r#"{{"type":"assistant","sessionId":"s","version":"{version}","uuid":"a","message":{{"id":"{id}","role":"assistant","model":"{model}","usage":{{"input_tokens":{input_tokens},"output_tokens":5}},"content":{content}}}}}"#
        )
    };
    [
        user(r#""Fix the docs.""#),
        assistant(
            "m1",
            r#"[{"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"pending"}]}}]"#,
        ),
        user(r#"[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]"#),
        assistant("m2", r#"[{"type":"text","text":"done"}]"#),
    ]
    .join("\n")
        + "\n"
}

fn calibrate(dir: &Path, args: &[&str]) -> Output {
    agent_eval_command()
        .arg("calibrate")
        .args(args)
        .args(["--simulated-runs", "2"])
        .current_dir(dir)
        .output()
        .expect("agent-eval runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn links_below_a_folder_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("t")).unwrap();
    std::fs::write(d.join("t/a.jsonl"), session("2.1.0", "m-1", 100)).unwrap();
    // Elsewhere: a transcript only a followed link would reach.
    std::fs::create_dir(d.join("elsewhere")).unwrap();
    std::fs::write(d.join("elsewhere/b.jsonl"), session("2.1.0", "m-2", 100)).unwrap();
    std::os::unix::fs::symlink(d.join("elsewhere"), d.join("t/to-folder")).unwrap();
    std::os::unix::fs::symlink(d.join("elsewhere/b.jsonl"), d.join("t/c.jsonl")).unwrap();
    std::os::unix::fs::symlink("/", d.join("t/root")).unwrap();
    std::os::unix::fs::symlink(d.join("t"), d.join("t/loop")).unwrap();
    let out = calibrate(d, &["t", "--json", "c.json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("c.json")).unwrap()).unwrap();
    let text = json.to_string();
    assert!(text.contains("m-1") && !text.contains("m-2"), "{text}");
    // A link named on the command line is the user's choice: followed.
    let out = calibrate(d, &["t/to-folder", "--json", "d.json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // A system folder is never walked, even named.
    let out = calibrate(d, &["/proc/self"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("system folder"), "{}", stderr(&out));
}

#[test]
fn outputs_over_or_inside_the_transcripts_read_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("t")).unwrap();
    let text = session("2.1.0", "m-1", 100);
    std::fs::write(d.join("t/a.jsonl"), &text).unwrap();
    std::fs::write(d.join("one.jsonl"), &text).unwrap();
    for (args, why) in [
        (&["one.jsonl", "--out", "one.jsonl"][..], "would overwrite"),
        (&["one.jsonl", "--json", "./one.jsonl"], "would overwrite"),
        (
            &["one.jsonl", "--html", "t/../one.jsonl"],
            "would overwrite",
        ),
        (&["t", "--json", "t/new.json"], "inside"),
        (&["t", "--out", "t/a.jsonl"], "inside"),
        (&["t", "--html", "t/./p.html"], "inside"),
    ] {
        let out = calibrate(d, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(why), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(std::fs::read_to_string(d.join("one.jsonl")).unwrap(), text);
    assert_eq!(std::fs::read_to_string(d.join("t/a.jsonl")).unwrap(), text);
    assert!(!d.join("t/new.json").exists());
}

#[test]
fn forged_versions_model_names_and_record_types_do_not_leak() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let long_model = format!("m{}", "x".repeat(2048));
    let mut text = session("2.1.50 SECRET-IN-VERSION", "m-1", 100);
    text += &session("2.1.0", "Model With SECRET-IN-MODEL", 100);
    text += &session("2.1.0", &long_model, 100);
    text += "{\"type\":\"SECRET-IN-TYPE\",\"sessionId\":\"s\",\"uuid\":\"x\"}\n";
    std::fs::write(d.join("a.jsonl"), text).unwrap();
    let out = calibrate(d, &["a.jsonl", "--json", "c.json", "--out", "p.yaml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json = std::fs::read_to_string(d.join("c.json")).unwrap();
    let profile = std::fs::read_to_string(d.join("p.yaml")).unwrap();
    for shown in [&stderr(&out), &json, &profile] {
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(!shown.contains(&long_model[..100]), "the long name leaked");
    }
    assert!(stderr(&out).contains("a.jsonl:"), "{}", stderr(&out));
    assert!(profile.contains("other"), "{profile}");
    // The profile is one `run --profile` reads.
    assert_run_reads_profile(&d.join("p.yaml"));
}

#[test]
fn absurd_usage_is_not_data_and_the_profile_is_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = session("2.1.0", "m-1", u64::MAX) + &session("2.1.0", "m-1", u64::MAX - 1);
    std::fs::write(d.join("a.jsonl"), text).unwrap();
    let out = calibrate(d, &["a.jsonl", "--out", "p.yaml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let profile = std::fs::read_to_string(d.join("p.yaml")).unwrap();
    assert!(!profile.contains("18446744073709551"), "{profile}");
    assert_run_reads_profile(&d.join("p.yaml"));
}

#[test]
fn a_30_mb_line_of_nested_objects_is_skipped_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A user record whose content is 30 MB of small nested objects: as a
    // tree, gigabytes; read against the cap, skipped as too large.
    let mut line = String::from(
        r#"{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":["#,
    );
    let piece = r#"{"a":{"b":[0]}},"#;
    for _ in 0..(30 << 20) / piece.len() {
        line.push_str(piece);
    }
    line.push_str("0]}}\n");
    let text = session("2.1.0", "m-1", 100) + &line + &session("2.1.0", "m-1", 100);
    std::fs::write(d.join("big.jsonl"), text).unwrap();
    let out = calibrate(d, &["big.jsonl"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("big.jsonl:5: too-large"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_scenario_profile_stays_in_its_repository_and_is_never_quoted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("repo/.git")).unwrap();
    std::fs::write(d.join("secret.yaml"), "secret_token: abc\n").unwrap();
    std::fs::write(d.join("repo/notes.yaml"), "secret_note: abc\n").unwrap();
    let scenario =
        |profile: &str| format!("name: s\ntask: t\nmodel:\n  simulate:\n    profile: {profile}\n");
    for (profile, why) in [
        ("../secret.yaml", "outside the scenario's repository"),
        ("/etc/passwd", "relative to the scenario file"),
        ("notes.yaml", "not a calibration profile"),
    ] {
        std::fs::write(d.join("repo/s.yaml"), scenario(profile)).unwrap();
        let out = agent_eval_command()
            .args(["check", "repo/s.yaml"])
            .current_dir(d)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{profile}: {}", stderr(&out));
        assert!(stderr(&out).contains(why), "{profile}: {}", stderr(&out));
        assert!(
            !stderr(&out).contains("secret"),
            "{profile}: {}",
            stderr(&out)
        );
    }
}

/// `run --profile PROFILE` on a shipped simulated scenario accepts the
/// profile: it runs (exit 0, or 1 when an expectation written for the
/// defaults no longer holds), never exit 2 for a profile it refuses.
fn assert_run_reads_profile(profile: &std::path::Path) {
    let run = agent_eval_command()
        .args([
            "run",
            "scenarios/simulated/docs_fixes.yaml",
            "--seeds",
            "1",
            "-q",
        ])
        .arg("--profile")
        .arg(profile)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        run.status.code().is_some_and(|c| c <= 1),
        "{}",
        stderr(&run)
    );
}

/// Every spelling of a walk out of the transcripts: below the folder, a
/// link to `/`, to `/proc/self`, back up the tree, to itself, a chain of
/// links; named on the command line, a link to `/`, to `/proc/self`, a
/// file of /proc (directly and through a link), a device, a loop of links.
/// Nothing outside is read; each named one is said, and the read of the
/// good folder is not disturbed.
#[test]
fn no_spelling_of_a_link_or_a_system_path_walks_out() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let link = |target: &str, name: &str| std::os::unix::fs::symlink(target, d.join(name)).unwrap();
    std::fs::create_dir_all(d.join("t/sub")).unwrap();
    std::fs::write(d.join("t/a.jsonl"), session("2.1.0", "m-1", 100)).unwrap();
    std::fs::create_dir(d.join("elsewhere")).unwrap();
    std::fs::write(d.join("elsewhere/b.jsonl"), session("2.1.0", "m-2", 100)).unwrap();
    for (target, name) in [
        ("/", "t/root"),
        ("/proc/self", "t/proc"),
        ("..", "t/up"),
        (".", "t/self"),
        ("../../elsewhere", "t/sub/out"),
        ("out", "t/sub/chain"),
        ("../elsewhere/b.jsonl", "t/b.jsonl"),
    ] {
        link(target, name);
    }
    let out = calibrate(d, &["t", "--json", "c.json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json = std::fs::read_to_string(d.join("c.json")).unwrap();
    assert!(json.contains("m-1") && !json.contains("m-2"), "{json}");
    link("/", "to-root");
    link("/proc/self", "to-proc");
    link("/proc/self/status", "status.jsonl");
    link("loop-b", "loop-a");
    link("loop-a", "loop-b");
    for (named, said) in [
        ("to-root", "the root folder is never walked"),
        ("to-proc", "system folder"),
        ("/proc/self/environ", "system folder"),
        ("status.jsonl", "system folder"),
        ("/dev/zero", "system folder"),
        ("loop-a", "loop-a: Too many levels of symbolic links"),
    ] {
        let out = calibrate(d, &[named]);
        assert_eq!(out.status.code(), Some(2), "{named}: {}", stderr(&out));
        assert!(stderr(&out).contains(said), "{named}: {}", stderr(&out));
        assert!(
            !stderr(&out).contains("not-json"),
            "{named} was read: {}",
            stderr(&out)
        );
    }
}

/// Lines that hurt a parser: 200,000 nested arrays, 100,000 nested
/// objects, and a line far over the line cap; each skipped by reason and
/// line, the sessions around them read.
#[test]
fn deep_and_huge_lines_are_skipped_by_reason() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let arrays = "[".repeat(200_000);
    let objects = r#"{"a":"#.repeat(100_000);
    let good = session("2.1.0", "m-1", 100);
    let text = format!("{good}{arrays}\n{objects}\n{good}");
    std::fs::write(d.join("deep.jsonl"), text).unwrap();
    let out = calibrate(d, &["deep.jsonl", "--json", "c.json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("deep.jsonl:5:") && err.contains("deep.jsonl:6:"),
        "{err}"
    );
    let json = std::fs::read_to_string(d.join("c.json")).unwrap();
    assert!(json.contains("m-1"), "{json}");
}
