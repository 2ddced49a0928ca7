use super::*;
use std::io::Write;
use std::ops::ControlFlow;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/transcripts");

/// A Claude Code session of one user message and one response.
const ONE_TURN: &str = concat!(
    r#"{"type":"user","sessionId":"s","version":"2.1.330","message":{"role":"user","content":"hi"}}"#,
    "\n",
    r#"{"type":"assistant","sessionId":"s","version":"2.1.330","message":{"id":"m1","model":"claude-x","content":[{"type":"text","text":"hello"}]}}"#,
    "\n"
);

fn read_all(paths: &[PathBuf], opts: &ReadOptions) -> (Vec<Session>, ReadSummary) {
    let mut sessions = Vec::new();
    let summary = read_paths(paths, opts, |s| sessions.push(s)).unwrap();
    (sessions, summary)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_folder_of_fixtures_is_read_format_by_format() {
    let (sessions, summary) = read_all(&[PathBuf::from(FIXTURES)], &ReadOptions::default());
    assert_eq!(summary.files, 7);
    assert_eq!(summary.files_by_format[&Format::ClaudeCode], 5);
    assert_eq!(summary.files_by_format[&Format::Codex], 2);
    // The 3.0.1 file holds no session it could read.
    assert_eq!(summary.sessions, 6);
    assert_eq!(sessions.len(), 6);
    assert_eq!(summary.skipped[&SkipReason::BadRecord], 4);
    let first = summary.first_skips[0].to_string();
    assert!(
        first.ends_with(
            "v2_split_sidechain_reminder.jsonl:25: bad-record: an unknown Claude Code record type"
        ) && !first.contains("mystery"),
        "{first}"
    );
    assert_eq!(summary.inputs_sha256.len(), 64);
}

#[test]
fn the_hash_names_the_contents_not_the_paths() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    write(a.path(), "x.jsonl", ONE_TURN.as_bytes());
    write(b.path(), "elsewhere.jsonl", ONE_TURN.as_bytes());
    let (_, first) = read_all(&[a.path().into()], &ReadOptions::default());
    let (_, second) = read_all(&[b.path().into()], &ReadOptions::default());
    assert_eq!(first.inputs_sha256, second.inputs_sha256);
    write(b.path(), "elsewhere.jsonl", b"{}\n");
    let (_, third) = read_all(&[b.path().into()], &ReadOptions::default());
    assert_ne!(first.inputs_sha256, third.inputs_sha256);
}

#[test]
fn bad_lines_are_skipped_counted_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = ONE_TURN.as_bytes().to_vec();
    text.extend_from_slice(b"\x00\xff\xfebinary garbage\n");
    text.extend_from_slice(&b"[".repeat(10_000));
    text.extend_from_slice(b"\n42\n\n");
    text.extend_from_slice(br#"{"type":"assistant","sessionId":"s","message":{"id":"m2","con"#);
    let file = write(dir.path(), "bad.jsonl", &text);
    let (sessions, summary) = read_all(&[file], &ReadOptions::default());
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].turns().count(), 1);
    let skipped: Vec<(SkipReason, u64)> = summary.skipped.iter().map(|(r, n)| (*r, *n)).collect();
    assert_eq!(
        skipped,
        [
            (SkipReason::NotJson, 1),
            (SkipReason::TooDeep, 1),
            (SkipReason::NotAnObject, 1),
            (SkipReason::Truncated, 1),
        ]
    );
    let lines: Vec<Option<u64>> = summary.first_skips.iter().map(|s| s.line).collect();
    assert_eq!(lines, [Some(3), Some(4), Some(5), Some(7)]);
}

#[test]
fn a_100_mb_line_is_skipped_as_it_streams_past() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    file.write_all(ONE_TURN.as_bytes()).unwrap();
    file.write_all(br#"{"type":"user","message":{"content":""#)
        .unwrap();
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..100 {
        file.write_all(&chunk).unwrap();
    }
    file.write_all(b"\"}}\n").unwrap();
    file.write_all(ONE_TURN.as_bytes()).unwrap();
    drop(file);
    let (sessions, summary) = read_all(&[path], &ReadOptions::default());
    assert_eq!(sessions[0].turns().count(), 2);
    assert_eq!(summary.skipped[&SkipReason::TooLong], 1);
    assert_eq!(summary.first_skips[0].line, Some(3));
    assert_eq!(summary.lines, 5);
}

#[test]
fn link_loops_unreadable_files_and_unknown_formats_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    write(&sub, "a.jsonl", ONE_TURN.as_bytes());
    write(&sub, "notes.txt", b"not read");
    std::os::unix::fs::symlink(dir.path(), sub.join("loop")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("gone"), sub.join("dangling.jsonl")).unwrap();
    let fifo = sub.join("pipe.jsonl");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    write(&sub, "other.jsonl", b"{\"hello\":1}\n{\"world\":2}\n");
    let (sessions, summary) = read_all(&[dir.path().into()], &ReadOptions::default());
    assert_eq!(sessions.len(), 1);
    assert_eq!(summary.skipped[&SkipReason::Unreadable], 2);
    assert_eq!(summary.skipped[&SkipReason::UnknownFormat], 1);
}

#[test]
fn a_missing_path_is_an_error() {
    let err = read_paths(
        &[PathBuf::from("/no/such/transcripts")],
        &ReadOptions::default(),
        |_| {},
    )
    .unwrap_err();
    assert!(
        err.to_string().starts_with("/no/such/transcripts: "),
        "{err}"
    );
}

#[test]
fn a_forced_format_and_a_model_filter() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "a.jsonl", ONE_TURN.as_bytes());
    let opts = ReadOptions {
        format: Some(Format::Codex),
        model_filter: None,
        ..ReadOptions::default()
    };
    let (sessions, summary) = read_all(std::slice::from_ref(&file), &opts);
    assert!(sessions.is_empty());
    assert_eq!(summary.skipped[&SkipReason::BadRecord], 2);
    let opts = ReadOptions {
        format: None,
        model_filter: Some(Box::new(|m: &str| m.starts_with("gpt"))),
        ..ReadOptions::default()
    };
    let (sessions, summary) = read_all(&[file], &opts);
    assert!(sessions.is_empty());
    assert_eq!(summary.sessions_filtered_out, 1);
}

#[test]
fn run_logs_are_detected_and_read_by_their_reader() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "s.jsonl",
        br#"{"scenario":"s","file":"s.yaml","settings":{},"seed":0,"metrics":{},"messages":[]}"#,
    );
    let (_, summary) = read_all(&[file], &ReadOptions::default());
    assert_eq!(summary.files_by_format[&Format::RunLog], 1);
}

#[test]
fn lines_split_across_reads_are_whole() {
    // A reader that hands over three bytes at a time.
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(buf.len()).min(3);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let mut lines = Vec::new();
    let mut hasher = Sha256::new();
    let total = for_each_line(Trickle(b"ab\r\ncdef\n\nlast"), &mut hasher, |n, line| {
        if let Line::Whole(bytes, last) = line {
            lines.push((n, String::from_utf8_lossy(bytes).into_owned(), last));
        }
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(total, 14);
    let expected = [
        (1, "ab\r".to_string(), false),
        (2, "cdef".to_string(), false),
        (3, String::new(), false),
        (4, "last".to_string(), true),
    ];
    assert_eq!(lines, expected);
}

/// A Codex rollout of one response, its session id and working directory
/// given.
fn codex_rollout(id: &str, cwd: &str) -> String {
    format!(
        "{}\n{}\n{}\n",
        serde_json::json!({"type": "session_meta", "payload": {"id": id, "cwd": cwd, "cli_version": "0.169.0"}}),
        serde_json::json!({"type": "event_msg", "payload": {"type": "user_message", "message": "hi"}}),
        serde_json::json!({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": []}}),
    )
}

#[test]
fn sessions_are_grouped_by_project_folder_or_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    for (project, name) in [("p1", "a"), ("p1", "b"), ("p2", "c")] {
        std::fs::create_dir_all(dir.path().join(project)).unwrap();
        write(
            &dir.path().join(project),
            &format!("{name}.jsonl"),
            ONE_TURN.as_bytes(),
        );
    }
    write(
        dir.path(),
        "r1.jsonl",
        codex_rollout("x", "/home/a/repo").as_bytes(),
    );
    write(
        dir.path(),
        "r2.jsonl",
        codex_rollout("y", "/home/a/repo").as_bytes(),
    );
    write(
        dir.path(),
        "r3.jsonl",
        codex_rollout("z", "/home/a/other").as_bytes(),
    );
    let groups = |group_by| {
        let opts = ReadOptions {
            group_by,
            ..ReadOptions::default()
        };
        let (sessions, _) = read_all(&[dir.path().to_path_buf()], &opts);
        let groups: Vec<String> = sessions.iter().map(|s| s.group.clone()).collect();
        // Which sessions share a group, by their order: a, b, c, r1, r2, r3.
        (0..groups.len())
            .map(|i| groups.iter().position(|g| *g == groups[i]).unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(groups(GroupBy::Project), vec![0, 0, 2, 3, 3, 5]);
    // The three rollouts share a folder; the projects are folders too.
    assert_eq!(groups(GroupBy::Folder), vec![0, 0, 2, 3, 3, 3]);
    assert_eq!(groups(GroupBy::File), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(groups(GroupBy::Session), vec![0, 1, 2, 3, 4, 5]);
    let (sessions, _) = read_all(&[dir.path().to_path_buf()], &ReadOptions::default());
    // No path is kept: a group is a hash.
    let text = serde_json::to_string(&sessions).unwrap();
    assert!(!text.contains("home") && !text.contains("p1"), "{text}");
    assert_eq!(sessions[0].id.as_deref(), Some("s"));
    assert_eq!(sessions[3].id.as_deref(), Some("x"));
    // The same bytes in two files: the same content hash.
    assert_eq!(sessions[0].content_hash, sessions[1].content_hash);
    assert_ne!(sessions[3].content_hash, sessions[4].content_hash);
}
