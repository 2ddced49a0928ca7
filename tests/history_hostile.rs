//! The history's hostile pass through the binary: a path that is a
//! dangling symlink, a symlink to a file elsewhere, a planted `-wal` link
//! or hard link, a directory, a FIFO, a read-only file or folder, a file
//! with SQLite's header but damaged pages, an empty file read, a report
//! named over the history or an input, a reader of a shared folder; and
//! names full of SQL and line breaks. Each refused case exits 2 with a
//! message naming the file, never hangs, and leaves every file as it was
//! (nothing created through a link). The library side (locks, a file
//! changed during the runs, broken tables, long histories) is
//! `src/results/history/hostile_tests.rs`.

use crate::support;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const SCENARIO: &str = "scenarios/simulated/docs_fixes.yaml";

fn scenario() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(SCENARIO)
        .to_string_lossy()
        .into_owned()
}

/// Runs the binary in `dir` with `branch` as the CI's branch, killing it
/// if it takes more than a minute (a hang is a failure, not a stuck CI).
fn agent_eval(dir: &Path, branch: &str, args: &[&str]) -> Output {
    agent_eval_with(support::agent_eval_command(), dir, branch, args)
}

/// [`agent_eval`] with a command the caller prepared.
fn agent_eval_with(mut command: Command, dir: &Path, branch: &str, args: &[&str]) -> Output {
    let mut child = command
        .current_dir(dir)
        .env("GITHUB_SHA", "0123456789abcdef")
        .env("GITHUB_REF_NAME", branch)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    for _ in 0..600 {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    panic!("agent-eval {args:?} hung");
}

fn record(dir: &Path, history: &str) -> Output {
    let s = scenario();
    agent_eval(
        dir,
        "main",
        &["run", &s, "--seeds", "1", "--quiet", "--history", history],
    )
}

/// `run --history NAME` and `history NAME` both exit 2 naming `NAME`
/// with `reason` in the message.
fn refused(dir: &Path, name: &str, reason: &str) {
    let s = scenario();
    for args in [
        vec!["run", &s, "--seeds", "1", "--quiet", "--history", name],
        vec!["history", name],
    ] {
        let out = agent_eval(dir, "main", &args);
        let message = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {message}");
        assert!(
            message.contains(name) && message.contains(reason),
            "{args:?}: {message}"
        );
    }
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn links_directories_and_fifos_are_refused_without_following_or_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A dangling link: nothing may be created where it points.
    std::os::unix::fs::symlink(elsewhere.path().join("made.db"), d.join("dangling.db")).unwrap();
    // A link to someone's file, and one to a real history elsewhere.
    std::fs::write(elsewhere.path().join("notes.txt"), "keep me\n").unwrap();
    std::os::unix::fs::symlink(elsewhere.path().join("notes.txt"), d.join("notes.db")).unwrap();
    assert_eq!(record(elsewhere.path(), "real.db").status.code(), Some(0));
    std::os::unix::fs::symlink(elsewhere.path().join("real.db"), d.join("real.db")).unwrap();
    std::fs::create_dir(d.join("folder.db")).unwrap();
    let fifo = std::ffi::CString::new(d.join("pipe.db").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let before_elsewhere: Vec<(String, Vec<u8>)> = listing(elsewhere.path())
        .into_iter()
        .map(|n| {
            let bytes = std::fs::read(elsewhere.path().join(&n)).unwrap();
            (n, bytes)
        })
        .collect();
    // A WAL file planted as a link, to redirect SQLite's writes.
    std::fs::create_dir(d.join("planted")).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.path().join("notes.txt"),
        d.join("planted").join("h.db-wal"),
    )
    .unwrap();
    let before_here = listing(d);
    for (name, reason) in [
        ("dangling.db", "symbolic link"),
        ("notes.db", "symbolic link"),
        ("real.db", "symbolic link"),
        ("folder.db", "a directory"),
        ("pipe.db", "not a regular file"),
        ("planted/h.db", "h.db-wal is a symbolic link"),
    ] {
        refused(d, name, reason);
    }
    assert_eq!(listing(d), before_here, "nothing made here");
    assert_eq!(listing(&d.join("planted")), ["h.db-wal"]);
    let after: Vec<(String, Vec<u8>)> = listing(elsewhere.path())
        .into_iter()
        .map(|n| {
            let bytes = std::fs::read(elsewhere.path().join(&n)).unwrap();
            (n, bytes)
        })
        .collect();
    assert_eq!(after, before_elsewhere, "nothing changed or made elsewhere");
}

#[test]
fn damaged_pages_behind_a_valid_header_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_eq!(record(d, "h.db").status.code(), Some(0));
    // Fold the WAL in and leave one plain file, then spoil every page but
    // the first (the header and the schema stay valid).
    rusqlite::Connection::open(d.join("h.db"))
        .unwrap()
        .execute_batch("PRAGMA journal_mode = DELETE;")
        .unwrap();
    let mut bytes = std::fs::read(d.join("h.db")).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    assert!(bytes.len() > page, "more than one page");
    for (i, b) in bytes[page..].iter_mut().enumerate() {
        *b = (i.wrapping_mul(151) % 251) as u8;
    }
    std::fs::write(d.join("h.db"), &bytes).unwrap();
    refused(d, "h.db", "damaged");
    assert_eq!(std::fs::read(d.join("h.db")).unwrap(), bytes);
    assert_eq!(listing(d), ["h.db"]);
}

/// A command that may write nothing anywhere (but `/dev/null`): a file's
/// mode bits do not stop root, so as root (as CI runs) the binary runs
/// under the read-only Landlock ruleset of agent-eval's own sandbox.
fn unable_to_write() -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = support::agent_eval_command();
    if unsafe { libc::geteuid() } != 0 {
        return command;
    }
    let Some(ruleset) = agent_eval::sandbox::landlock::read_only_ruleset().unwrap() else {
        panic!("running as root needs Landlock to take write access away");
    };
    let fd = ruleset.raw_fd();
    // SAFETY: only async-signal-safe system calls between fork and exec;
    // the shared ruleset (and so its fd) lives as long as the process.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::syscall(libc::SYS_landlock_restrict_self, fd, 0) < 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
}

#[test]
fn a_read_only_history_is_read_but_not_written() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("ro");
    std::fs::create_dir(&d).unwrap();
    assert_eq!(record(&d, "h.db").status.code(), Some(0));
    let before = std::fs::read(d.join("h.db")).unwrap();
    std::fs::set_permissions(d.join("h.db"), std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o555)).unwrap();
    let s = scenario();
    let args = ["run", &s, "--seeds", "1", "--quiet", "--history", "h.db"];
    let out = agent_eval_with(unable_to_write(), &d, "main", &args);
    let message = String::from_utf8_lossy(&out.stderr).into_owned();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(
        message.contains("h.db: the history cannot be written"),
        "{message}"
    );
    assert_eq!(std::fs::read(d.join("h.db")).unwrap(), before);
}

#[test]
fn names_full_of_sql_and_line_breaks_are_stored_and_shown_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let yaml = std::fs::read_to_string(scenario())
        .unwrap()
        .replace("name: docs-fixes", "name: \"docs'); DROP TABLE cell; --\"");
    std::fs::write(d.join("s.yaml"), yaml).unwrap();
    let branch = "fix'; DELETE FROM invocation; --\nsecond";
    let out = agent_eval(
        d,
        branch,
        &[
            "run",
            "s.yaml",
            "--seeds",
            "4",
            "--quiet",
            "--history",
            "h.db",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = agent_eval(
        d,
        "main",
        &["history", "h.db", "--json", "--branch", branch],
    );
    assert_eq!(shown.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let cells = json.as_array().unwrap();
    assert!(!cells.is_empty());
    for cell in cells {
        assert_eq!(cell["scenario"], "docs'); DROP TABLE cell; --");
        assert_eq!(cell["runs"][0]["branch"], branch);
    }
    // The table shows the line break escaped, on one line.
    let table = agent_eval(d, "main", &["history", "h.db"]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(!text.contains("--\nsecond"), "{text}");
    let gate = agent_eval(
        d,
        branch,
        &[
            "run",
            "s.yaml",
            "--seeds",
            "4",
            "--quiet",
            "--baseline",
            "h.db",
        ],
    );
    assert_eq!(gate.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&gate.stdout).contains("0 regressed"));
}

/// A `-wal` or `-shm` beside the history that is a second name (a hard
/// link) of another file, or not a regular file, is refused before SQLite
/// opens anything: SQLite would write the other file's bytes over.
#[test]
fn hard_linked_or_special_companions_are_refused_and_their_file_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("victim.txt"), "keep me\n").unwrap();
    for suffix in ["-wal", "-shm"] {
        let folder = d.join(format!("linked{suffix}"));
        std::fs::create_dir(&folder).unwrap();
        assert_eq!(record(&folder, "h.db").status.code(), Some(0));
        std::fs::hard_link(d.join("victim.txt"), folder.join(format!("h.db{suffix}"))).unwrap();
        let name = format!("linked{suffix}/h.db");
        refused(d, &name, "is a hard link");
        assert_eq!(
            std::fs::read_to_string(d.join("victim.txt")).unwrap(),
            "keep me\n"
        );
    }
    let folder = d.join("special");
    std::fs::create_dir(&folder).unwrap();
    assert_eq!(record(&folder, "h.db").status.code(), Some(0));
    std::fs::create_dir(folder.join("h.db-shm")).unwrap();
    refused(d, "special/h.db", "is not a regular file");
}

/// `history` on an empty file exits 2 and leaves it empty, with nothing
/// made beside it; on a history it makes no `-wal` or `-shm`.
#[test]
fn reading_a_history_never_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("empty.db"), "").unwrap();
    let out = agent_eval(d, "main", &["history", "empty.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty.db: not an agent-eval history"));
    assert_eq!(std::fs::read(d.join("empty.db")).unwrap(), b"");
    assert_eq!(listing(d), ["empty.db"]);
    assert_eq!(record(d, "h.db").status.code(), Some(0));
    let before = std::fs::read(d.join("h.db")).unwrap();
    let out = agent_eval(d, "main", &["history", "h.db", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(listing(d), ["empty.db", "h.db"]);
    assert_eq!(std::fs::read(d.join("h.db")).unwrap(), before);
}

/// Any output over any input or the history, by any name, exits 2 before
/// anything runs, and every file is left as it was (a history named for
/// the first time is not even made).
#[test]
fn an_output_over_an_input_or_the_history_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(scenario(), d.join("s.yaml")).unwrap();
    assert_eq!(record(d, "h.db").status.code(), Some(0));
    let shard = agent_eval(
        d,
        "main",
        &[
            "run",
            "s.yaml",
            "--seeds",
            "1",
            "--quiet",
            "--shard",
            "1/1",
            "--json",
            "part.json",
        ],
    );
    assert_eq!(shard.status.code(), Some(0));
    std::os::unix::fs::symlink(d.join("h.db"), d.join("alias.db")).unwrap();
    std::fs::hard_link(d.join("s.yaml"), d.join("second.yaml")).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "s.yaml", "--seeds", "1", "--quiet"];
        args.extend_from_slice(extra);
        args.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let cases: Vec<Vec<String>> = vec![
        vec![
            "history".into(),
            "h.db".into(),
            "--svg".into(),
            "h.db".into(),
        ],
        vec![
            "history".into(),
            "h.db".into(),
            "--html".into(),
            "./alias.db".into(),
        ],
        run(&["--history", "h.db", "--json", "h.db"]),
        run(&["--history", "h.db", "--html", "alias.db"]),
        run(&["--history", "new.db", "--markdown", "./new.db"]),
        run(&["--junit", "second.yaml"]),
        run(&["--baseline", "part.json", "--json", "part.json"]),
        run(&["--json", "r.json", "--html", "./r.json"]),
        run(&["--history", "docs-fixes.jsonl", "--log-dir", "."]),
        vec![
            "merge".into(),
            "part.json".into(),
            "--json".into(),
            "part.json".into(),
        ],
        vec![
            "merge".into(),
            "part.json".into(),
            "--history".into(),
            "h.db".into(),
            "--html".into(),
            "h.db".into(),
        ],
        vec![
            "sweep".into(),
            "s.yaml".into(),
            "--axis".into(),
            "nag_threshold".into(),
            "--values".into(),
            "2,3".into(),
            "--json".into(),
            "second.yaml".into(),
        ],
    ];
    let snapshot = || -> Vec<(String, Vec<u8>)> {
        listing(d)
            .into_iter()
            .filter(|n| n != "alias.db")
            .map(|n| {
                let bytes = std::fs::read(d.join(&n)).unwrap_or_default();
                (n, bytes)
            })
            .collect()
    };
    let before = snapshot();
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = agent_eval(d, "main", &args);
        let message = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {message}");
        assert!(message.contains("would overwrite"), "{args:?}: {message}");
        assert_eq!(snapshot(), before, "{args:?} changed a file");
    }
}

/// `agent-eval` run as another user (`setpriv`), from `dir`, with its
/// binary linked into `dir` (the build folder may not be theirs to enter).
fn as_user(dir: &Path, uid: u32, args: &[&str]) -> Output {
    let binary = dir.join("agent-eval");
    if !binary.exists() {
        std::fs::hard_link(env!("CARGO_BIN_EXE_agent-eval"), &binary)
            .or_else(|_| std::fs::copy(env!("CARGO_BIN_EXE_agent-eval"), &binary).map(drop))
            .unwrap();
    }
    let mut command = support::command("setpriv");
    command
        .args([
            format!("--reuid={uid}"),
            format!("--regid={uid}"),
            "--clear-groups".into(),
        ])
        .arg(&binary)
        .env("HOME", dir);
    agent_eval_with(command, dir, "main", args)
}

/// A history in a folder shared by two users: when the second has only
/// read it (`history`, `--baseline`), its owner's next `run --history`
/// still works, because a reader leaves no `-wal` or `-shm` behind (files
/// the owner could not write). Run as two real users when this runs as
/// root (as CI does).
#[test]
fn a_reader_in_a_shared_folder_never_locks_the_owner_out() {
    use std::os::unix::fs::PermissionsExt;
    if unsafe { libc::geteuid() } != 0
        || support::command("setpriv")
            .arg("--version")
            .output()
            .is_err()
    {
        support::skip_unless_required("two users need root and setpriv (util-linux)");
        return;
    }
    let (owner, reader) = (65534, 1);
    let top = tempfile::tempdir().unwrap();
    let d = top.path().join("shared");
    std::fs::create_dir(&d).unwrap();
    std::fs::set_permissions(top.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::copy(scenario(), d.join("s.yaml")).unwrap();
    let s = ["run", "s.yaml", "--seeds", "1", "--quiet"];
    let recorded = |out: &Output| {
        let message = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{message}");
    };
    recorded(&as_user(
        &d,
        owner,
        &[&s[..], &["--history", "h.db"]].concat(),
    ));
    recorded(&as_user(&d, reader, &["history", "h.db"]));
    recorded(&as_user(
        &d,
        reader,
        &[&s[..], &["--baseline", "h.db"]].concat(),
    ));
    assert_eq!(listing(&d), ["agent-eval", "h.db", "s.yaml"]);
    recorded(&as_user(
        &d,
        owner,
        &[&s[..], &["--history", "h.db"]].concat(),
    ));
    let shown = as_user(&d, reader, &["history", "h.db", "--json"]);
    recorded(&shown);
    let json: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(json[0]["runs"].as_array().unwrap().len(), 2);
}

/// Every bidirectional control, fed through a scenario's name, a step's
/// text (tables, transcripts, expectations) and a file the model reads
/// (transcripts), is dropped from every report of every command: run's
/// terminal, HTML, Markdown and JUnit, the history's table, page and
/// chart, merge's and diff's, sweep's chart and page, replay and check.
/// JSON reports and run logs are data and keep the text as it was.
#[test]
fn bidirectional_controls_reach_no_report() {
    const BIDI: [char; 12] = [
        '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}',
        '\u{2068}', '\u{2069}', '\u{200e}', '\u{200f}', '\u{061c}',
    ];
    let hostile: String = BIDI.iter().map(|c| format!("x{c}")).collect();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let yaml = std::fs::read_to_string(scenario())
        .unwrap()
        .replace("name: docs-fixes", &format!("name: \"docs {hostile}\""))
        .replace(
            "text: \"Fix the install command\"",
            &format!("text: \"Fix the install {hostile}\""),
        )
        .replace("# Install\\n\\n", &format!("# Install {hostile}\\n\\n"));
    std::fs::write(d.join("s.yaml"), yaml).unwrap();
    let mut said: Vec<(String, Vec<u8>)> = Vec::new();
    let commands: [&[&str]; 8] = [
        &[
            "run",
            "s.yaml",
            "--seeds",
            "2",
            "--history",
            "h.db",
            "--json",
            "r.json",
            "--junit",
            "r.xml",
            "--markdown",
            "r.md",
            "--html",
            "r.html",
            "--log-dir",
            "logs",
        ],
        &["history", "h.db", "--html", "h.html", "--svg", "h.svg"],
        &[
            "run",
            "s.yaml",
            "--seeds",
            "2",
            "--shard",
            "1/1",
            "--json",
            "part.json",
        ],
        &[
            "merge",
            "part.json",
            "--json",
            "m.json",
            "--junit",
            "m.xml",
            "--markdown",
            "m.md",
            "--html",
            "m.html",
        ],
        &["diff", "r.json", "m.json"],
        &[
            "sweep",
            "s.yaml",
            "--thresholds",
            "2,3",
            "--seeds",
            "2",
            "--svg",
            "w.svg",
            "--html",
            "w.html",
        ],
        &["replay", "s.yaml", "--seed", "0"],
        &["check", "s.yaml"],
    ];
    for args in commands {
        let out = agent_eval(d, "main", args);
        assert!(
            out.status.code().is_some_and(|c| c < 2),
            "{args:?}: {out:?}"
        );
        said.push((format!("{args:?} stdout"), out.stdout));
        said.push((format!("{args:?} stderr"), out.stderr));
    }
    for name in listing(d) {
        if !name.ends_with(".json") && !["s.yaml", "h.db", "logs"].contains(&name.as_str()) {
            said.push((name.clone(), std::fs::read(d.join(&name)).unwrap()));
        }
    }
    assert!(said.len() > 20);
    let plain = "docs xxxxxxxxxxxx";
    let mut named = 0;
    for (what, bytes) in &said {
        let text = String::from_utf8_lossy(bytes);
        let found: Vec<char> = text.chars().filter(|c| BIDI.contains(c)).collect();
        assert!(found.is_empty(), "{what} keeps {found:?}");
        named += usize::from(text.contains(plain));
    }
    assert!(named >= 10, "the name itself is shown, less its controls");
    let report = std::fs::read_to_string(d.join("r.json")).unwrap();
    assert!(report.contains(&hostile) || report.contains("\\u202e"));
}

/// A `-shm` another user left beside the history (an older agent-eval's
/// reader did): the owner's `run --history` exits 2 naming that file and
/// what to do, not SQLite's bare "readonly database"; once it is removed,
/// recording works.
#[test]
fn a_companion_another_user_left_is_named() {
    use std::os::unix::fs::PermissionsExt;
    if unsafe { libc::geteuid() } != 0
        || support::command("setpriv")
            .arg("--version")
            .output()
            .is_err()
    {
        support::skip_unless_required("two users need root and setpriv (util-linux)");
        return;
    }
    let (owner, other) = (65534, 1);
    let top = tempfile::tempdir().unwrap();
    let d = top.path().join("shared");
    std::fs::create_dir(&d).unwrap();
    std::fs::set_permissions(top.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::copy(scenario(), d.join("s.yaml")).unwrap();
    let args = [
        "run",
        "s.yaml",
        "--seeds",
        "1",
        "--quiet",
        "--history",
        "h.db",
    ];
    assert_eq!(as_user(&d, owner, &args).status.code(), Some(0));
    std::fs::write(d.join("h.db-shm"), "").unwrap();
    std::os::unix::fs::chown(d.join("h.db-shm"), Some(other), Some(other)).unwrap();
    std::fs::set_permissions(d.join("h.db-shm"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = as_user(&d, owner, &args);
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(
        message.contains("h.db-shm beside it belongs to user 1"),
        "{message}"
    );
    std::fs::remove_file(d.join("h.db-shm")).unwrap();
    assert_eq!(as_user(&d, owner, &args).status.code(), Some(0));
}
