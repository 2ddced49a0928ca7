//! A hostile model and a careless scenario author against the workspace:
//! FIFOs, devices, symlink swaps, hard links, fixtures that point at the
//! host, huge sparse files, locked folders, impossible `files:`. Every case
//! must end promptly, never touch anything outside the workspace, and
//! leave nothing behind. All loops are bounded by a count, not a clock.

use crate::support;
use std::ffi::CString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use agent_eval::agent::tools::Toolbox;
use agent_eval::eval::checks;
use agent_eval::sandbox::workspace::{Workspace, WorkspaceImage};
use agent_eval::scenario::{self, Check, WorkspacePath};
use serde_json::json;

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, 0, "mkfifo");
}

/// A disk workspace on a fresh folder (what the tools see after a `bash`
/// call made something there).
fn disk_workspace() -> (tempfile::TempDir, Toolbox) {
    let dir = tempfile::tempdir().unwrap();
    let toolbox = Toolbox::new(dir.path()).unwrap();
    (dir, toolbox)
}

fn call(toolbox: &Toolbox, tool: &str, input: serde_json::Value) -> Result<String, String> {
    toolbox
        .call(tool, &input)
        .expect("a workspace tool")
        .map_err(|e| e.to_string())
}

fn file(path: &str) -> WorkspacePath {
    WorkspacePath::parse(path).unwrap()
}

#[test]
fn fifos_are_refused_by_every_file_tool_without_blocking() {
    let (_dir, toolbox) = disk_workspace();
    mkfifo(&toolbox.root().join("pipe"));
    let err = call(&toolbox, "read_file", json!({"path": "pipe"})).unwrap_err();
    assert!(err.contains("is a FIFO"), "{err}");
    let err = call(
        &toolbox,
        "write_file",
        json!({"path": "pipe", "content": "x"}),
    )
    .unwrap_err();
    assert!(err.contains("is a FIFO"), "{err}");
    let err = call(
        &toolbox,
        "edit_file",
        json!({"path": "pipe", "old_text": "a", "new_text": "b"}),
    )
    .unwrap_err();
    assert!(err.contains("is a FIFO"), "{err}");
    // Through a symlink, and as a parent folder.
    symlink_to(&toolbox, "pipe", "alias");
    let err = call(&toolbox, "read_file", json!({"path": "alias"})).unwrap_err();
    assert!(err.contains("is a FIFO"), "{err}");
    let err = call(
        &toolbox,
        "write_file",
        json!({"path": "pipe/x", "content": "x"}),
    )
    .unwrap_err();
    assert!(err.contains("File exists"), "{err}");
}

/// A symlink `name` -> `target` inside the toolbox's folder.
fn symlink_to(toolbox: &Toolbox, target: &str, name: &str) {
    std::os::unix::fs::symlink(target, toolbox.root().join(name)).unwrap();
}

#[test]
fn a_fifo_in_a_check_fails_the_check_without_blocking() {
    let (_dir, toolbox) = disk_workspace();
    mkfifo(&toolbox.root().join("pipe"));
    let ws = toolbox.workspace();
    let contains = Check::Contains {
        file: file("pipe"),
        contains: "x".into(),
    };
    let not_contains = Check::NotContains {
        file: file("pipe"),
        not_contains: "x".into(),
    };
    let equals = Check::Equals {
        file: file("pipe"),
        equals: "".into(),
    };
    assert!(!checks::holds(&contains, ws));
    assert!(!checks::holds(&not_contains, ws));
    assert!(!checks::holds(&equals, ws));
    let exists = Check::Exists {
        file: file("pipe"),
        exists: true,
    };
    assert!(
        checks::holds(&exists, ws),
        "a FIFO exists; it is just not read"
    );
}

/// Writes `scenario.yaml` (with `text`) in a fresh folder and loads it.
fn load_in(dir: &Path, text: &str) -> Result<scenario::Scenario, String> {
    let file = dir.join("scenario.yaml");
    fs::write(&file, text).unwrap();
    scenario::load(&file).map_err(|e| e.to_string())
}

const MODEL: &str = "model:\n  script:\n    - text: Done.\n";

#[test]
fn special_files_in_a_fixture_are_a_load_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("fx")).unwrap();
    fs::write(dir.path().join("fx/ok.txt"), "fine").unwrap();
    mkfifo(&dir.path().join("fx/pipe"));
    let text = format!("task: t\nworkspace:\n  fixture: fx\n{MODEL}");
    let err = load_in(dir.path(), &text).unwrap_err();
    assert!(err.contains("scenario.yaml:3:"), "{err}");
    assert!(err.contains("is a FIFO"), "{err}");

    // A device, where this process may make one (root).
    fs::remove_file(dir.path().join("fx/pipe")).unwrap();
    let node = CString::new(dir.path().join("fx/null").as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid path; makes a character device like /dev/null.
    let made = unsafe { libc::mknod(node.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    if made == 0 {
        let err = load_in(dir.path(), &text).unwrap_err();
        assert!(err.contains("is a character device"), "{err}");
        fs::remove_file(dir.path().join("fx/null")).unwrap();
    }
    load_in(dir.path(), &text).unwrap();
}

#[test]
fn a_fixture_outside_the_repository_is_a_load_error() {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = dir.path().join("repo/scenarios");
    fs::create_dir_all(&scenarios).unwrap();
    let text = format!("task: t\nworkspace:\n  fixture: ../../../../../../../../etc\n{MODEL}");
    let err = load_in(&scenarios, &text).unwrap_err();
    assert!(err.contains("scenario.yaml:3:"), "{err}");
    assert!(err.contains("outside the scenario's repository"), "{err}");
    // Without .git the scenario's own folder is the limit; with one, the
    // repository's whole tree is allowed.
    fs::create_dir_all(dir.path().join("repo/fixtures/f")).unwrap();
    let sibling = format!("task: t\nworkspace:\n  fixture: ../fixtures/f\n{MODEL}");
    assert!(load_in(&scenarios, &sibling).is_err());
    fs::create_dir(dir.path().join("repo/.git")).unwrap();
    load_in(&scenarios, &sibling).unwrap();
    // A symlink inside the repository that leads out is no way around it.
    std::os::unix::fs::symlink("/etc", dir.path().join("repo/fixtures/etc")).unwrap();
    let via_link = format!("task: t\nworkspace:\n  fixture: ../fixtures/etc\n{MODEL}");
    let err = load_in(&scenarios, &via_link).unwrap_err();
    assert!(err.contains("outside the scenario's repository"), "{err}");
}

#[test]
fn impossible_files_are_load_errors_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let nul = format!("task: t\nworkspace:\n  files:\n    \"a\\0b\": x\n{MODEL}");
    let err = load_in(dir.path(), &nul).unwrap_err();
    assert!(err.contains("scenario.yaml:4:"), "{err}");
    assert!(err.contains("NUL"), "{err}");
    let nested = format!("task: t\nworkspace:\n  files:\n    a: x\n    a/b: y\n{MODEL}");
    let err = load_in(dir.path(), &nested).unwrap_err();
    assert!(err.contains("scenario.yaml:5:5:"), "{err}");
    assert!(err.contains("`a/b`"), "{err}");
}

#[test]
fn hard_links_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret");
    fs::write(&secret, "outside").unwrap();
    let dir = tempfile::tempdir_in(outside.path()).unwrap();
    let toolbox = Toolbox::new(dir.path()).unwrap();
    fs::hard_link(&secret, toolbox.root().join("link")).unwrap();
    for (tool, input) in [
        ("read_file", json!({"path": "link"})),
        ("write_file", json!({"path": "link", "content": "pwned"})),
        (
            "edit_file",
            json!({"path": "link", "old_text": "outside", "new_text": "pwned"}),
        ),
    ] {
        let err = call(&toolbox, tool, input).unwrap_err();
        assert!(err.contains("hard links"), "{tool}: {err}");
    }
    let check = Check::Contains {
        file: file("link"),
        contains: "outside".into(),
    };
    assert!(!checks::holds(&check, toolbox.workspace()));
    assert_eq!(fs::read_to_string(&secret).unwrap(), "outside");
}

/// Swaps `a` and `b` atomically (`renameat2(RENAME_EXCHANGE)`).
fn exchange(a: &Path, b: &Path) -> bool {
    let a = CString::new(a.as_os_str().as_encoded_bytes()).unwrap();
    let b = CString::new(b.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: valid NUL-terminated paths.
    unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        ) == 0
    }
}

#[test]
fn a_symlink_swapped_during_access_never_leads_outside() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("f"), "OUTSIDE").unwrap();
    let (_dir, toolbox) = disk_workspace();
    let root = toolbox.root().to_path_buf();
    // `link` is a real folder when the path is checked, and may be a
    // symlink to the outside folder by the time it is opened.
    fs::create_dir(root.join("link")).unwrap();
    fs::write(root.join("link/f"), "inside").unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("alt")).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let stop = stop.clone();
        let root = root.clone();
        std::thread::spawn(move || {
            let mut flips = 0u64;
            while !stop.load(Ordering::Relaxed) && flips < 50_000_000 {
                exchange(&root.join("link"), &root.join("alt"));
                flips += 1;
            }
        })
    };
    let mut inside_reads = 0;
    for i in 0..5000 {
        if let Ok(text) = call(&toolbox, "read_file", json!({"path": "link/f"})) {
            assert_ne!(text, "OUTSIDE", "read {i} escaped");
            inside_reads += 1;
        }
        let _ = call(
            &toolbox,
            "write_file",
            json!({"path": "link/f", "content": "inside"}),
        );
        let _ = call(
            &toolbox,
            "write_file",
            json!({"path": "link/new", "content": "inside"}),
        );
        let _ = call(
            &toolbox,
            "edit_file",
            json!({"path": "link/f", "old_text": "inside", "new_text": "inside"}),
        );
        let check = Check::Contains {
            file: file("link/f"),
            contains: "OUTSIDE".into(),
        };
        assert!(
            !checks::holds(&check, toolbox.workspace()),
            "check {i} escaped"
        );
    }
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    assert_eq!(
        fs::read_to_string(outside.path().join("f")).unwrap(),
        "OUTSIDE"
    );
    assert_eq!(
        fs::read_dir(outside.path()).unwrap().count(),
        1,
        "nothing created outside"
    );
    // Not just failing closed every time: the folder was reached too.
    assert!(inside_reads > 0);
}

/// Runs alone: the memory peak it bounds is its process's, which the
/// tests running beside it in a shared binary would raise.
#[test]
fn a_huge_sparse_file_is_checked_by_streaming() {
    support::run_alone(
        module_path!(),
        "a_huge_sparse_file_is_checked_by_streaming_alone",
        &[],
    );
}

#[test]
#[ignore = "run in a process of its own by a_huge_sparse_file_is_checked_by_streaming"]
fn a_huge_sparse_file_is_checked_by_streaming_alone() {
    let (_dir, toolbox) = disk_workspace();
    let path = toolbox.root().join("big");
    let size = 3u64 << 30;
    let handle = fs::File::create(&path).unwrap();
    handle.set_len(size).unwrap();
    drop(handle);
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut handle = fs::OpenOptions::new().write(true).open(&path).unwrap();
        handle.seek(SeekFrom::Start(size - 16)).unwrap();
        handle.write_all(b"needle").unwrap();
    }
    let ws = toolbox.workspace();
    let contains = |text: &str| {
        checks::holds(
            &Check::Contains {
                file: file("big"),
                contains: text.into(),
            },
            ws,
        )
    };
    assert!(contains("needle"));
    assert!(!contains("haystack"));
    let equals = Check::Equals {
        file: file("big"),
        equals: "short".into(),
    };
    assert!(!checks::holds(&equals, ws));
    // The tools refuse to read it whole.
    let err = call(&toolbox, "read_file", json!({"path": "big"})).unwrap_err();
    assert!(err.contains("File too large"), "{err}");
    // Memory stayed far below the file's size.
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    assert!(peak_kib < 1 << 20, "peak RSS {peak_kib} KiB");
}

#[test]
fn locked_folders_do_not_leave_the_workspace_behind() {
    let image = WorkspaceImage::build(None, [("a.txt", "x")]).unwrap();
    let workspace = Workspace::create(&image).unwrap();
    let root = workspace.root().to_path_buf();
    let toolbox = Toolbox::with_workspace(Arc::new(workspace));
    call(
        &toolbox,
        "bash",
        json!({"command": "mkdir -p locked/inner && echo x > locked/inner/f && chmod 000 locked/inner/f locked/inner locked"}),
    )
    .unwrap();
    assert_eq!(
        fs::metadata(root.join("locked"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0
    );
    drop(toolbox);
    assert!(!root.exists(), "the workspace folder survived");
}

#[test]
fn a_run_starts_in_memory_and_writes_the_folder_only_for_a_process() {
    let image = WorkspaceImage::build(None, [("a.txt", "x")]).unwrap();
    let workspace = Arc::new(Workspace::create(&image).unwrap());
    let toolbox = Toolbox::with_workspace(workspace.clone());
    call(
        &toolbox,
        "write_file",
        json!({"path": "b.txt", "content": "y"}),
    )
    .unwrap();
    assert!(workspace.in_memory());
    assert_eq!(fs::read_dir(workspace.root()).unwrap().count(), 0);
    assert_eq!(
        call(&toolbox, "bash", json!({"command": "cat a.txt b.txt"})).unwrap(),
        "xy"
    );
    // A process that only reads sees the files in the folder (a mirror);
    // the workspace stays in memory.
    assert!(workspace.in_memory());
    assert_eq!(
        fs::read_to_string(workspace.root().join("b.txt")).unwrap(),
        "y"
    );
    // One that may write makes the folder the workspace.
    assert_eq!(
        call(
            &toolbox,
            "bash",
            json!({"command": "cat a.txt b.txt > ab.txt; cat ab.txt"})
        )
        .unwrap(),
        "xy"
    );
    assert!(!workspace.in_memory());
    call(
        &toolbox,
        "write_file",
        json!({"path": "c.txt", "content": "z"}),
    )
    .unwrap();
    assert_eq!(
        fs::read_to_string(workspace.root().join("c.txt")).unwrap(),
        "z"
    );
}

/// A cassette's `request_hash` that no request could ever hash to (not 64
/// lowercase hex digits) is a load error on its line, not drift on every
/// replay.
#[test]
fn a_malformed_request_hash_is_a_load_error_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let with_hash = |hash: &str| {
        format!("task: t\nmodel:\n  script:\n    - text: Done.\n      request_hash: {hash}\n")
    };
    let good = "0123456789abcdef".repeat(4);
    load_in(dir.path(), &with_hash(&good)).unwrap();
    for bad in [
        "h".to_string(),
        good.to_uppercase(),
        good[1..].to_string(),
        format!("{good}0"),
        format!("\"{}\"", "é".repeat(32)),
        format!("{}g", &good[1..]),
    ] {
        let err = load_in(dir.path(), &with_hash(&bad)).unwrap_err();
        assert!(err.contains("scenario.yaml:5:"), "{bad}: {err}");
        assert!(err.contains("64 lowercase hex digits"), "{bad}: {err}");
    }
}

/// Paths thousands of levels deep. In a scenario they are a load error on
/// their line (a documented limit); from a model, a path longer than the
/// kernel takes is `File name too long` at once, in memory and on disk,
/// and nothing is created.
#[test]
fn deep_paths_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let deep = vec!["d"; 5_000].join("/");
    // (YAML keys are at most 1024 characters: a long path is a value.)
    let check = |path: &str| {
        format!("task: t\nsteps:\n  - text: s\n    check: {{file: {path}, exists: true}}\n{MODEL}")
    };
    let err = load_in(dir.path(), &check(&deep)).unwrap_err();
    assert!(err.contains("scenario.yaml:4:"), "{err}");
    assert!(err.contains("at most 4095"), "{err}");
    let levels = vec!["d"; 129].join("/");
    let files = format!("task: t\nworkspace:\n  files:\n    {levels}: x\n{MODEL}");
    let err = load_in(dir.path(), &files).unwrap_err();
    assert!(err.contains("scenario.yaml:4:"), "{err}");
    assert!(err.contains("more than 128 folders deep"), "{err}");
    let err = load_in(dir.path(), &check(&levels)).unwrap_err();
    assert!(err.contains("scenario.yaml:4:"), "{err}");
    assert!(err.contains("more than 128 folders deep"), "{err}");
    let fine = vec!["d"; 128].join("/");
    let files = format!("task: t\nworkspace:\n  files:\n    {fine}: x\n{MODEL}");
    load_in(dir.path(), &files).unwrap();

    let image = WorkspaceImage::build(None, [("a.txt", "x")]).unwrap();
    let memory = Toolbox::with_workspace(Arc::new(Workspace::create(&image).unwrap()));
    let (_disk_dir, disk) = disk_workspace();
    for toolbox in [&memory, &disk] {
        let err = call(
            toolbox,
            "write_file",
            json!({"path": format!("{deep}/f"), "content": "x"}),
        )
        .unwrap_err();
        assert!(err.contains("File name too long"), "{err}");
        assert!(
            !err.contains(&deep),
            "the message shows the path's start only"
        );
        let err = call(toolbox, "read_file", json!({"path": deep})).unwrap_err();
        assert!(err.contains("File name too long"), "{err}");
        assert!(!toolbox.root().join("d").exists());
    }
}

/// SIGTERM while `check` dry-runs a scenario (its `do` command waits on a
/// FIFO that this test holds open) stops it: exit 130, nothing printed,
/// the command killed. A scenario file that is itself a FIFO is refused
/// at once instead of blocking the loader.
#[test]
fn check_honours_sigterm_and_never_blocks_on_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let gate = dir.path().join("gate");
    mkfifo(&gate);
    let scenario = dir.path().join("s.yaml");
    fs::write(
        &scenario,
        format!(
            "task: t\nsteps:\n  - text: s\n    check: {{file: x, exists: true}}\n    do:\n      - {{tool: bash, input: {{command: \"cat {}\"}}}}\n{MODEL}",
            gate.display()
        ),
    )
    .unwrap();
    let mut child = support::agent_eval_command()
        .arg("check")
        .arg(&scenario)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The write end opens once the `do` command has opened the read end:
    // the dry run is under way (bounded by a count of tries).
    let c = CString::new(gate.as_os_str().as_encoded_bytes()).unwrap();
    let mut writer = -1;
    for _ in 0..6000 {
        // SAFETY: a valid path; non-blocking, so it fails while no reader.
        writer = unsafe { libc::open(c.as_ptr(), libc::O_WRONLY | libc::O_NONBLOCK) };
        if writer >= 0 || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(writer >= 0, "the dry run never reached its command");
    // SAFETY: signalling the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    // SAFETY: closing the descriptor opened above.
    unsafe { libc::close(writer) };
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());

    fs::remove_file(&scenario).unwrap();
    mkfifo(&scenario);
    let out = support::agent_eval_command()
        .arg("check")
        .arg(&scenario)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("s.yaml: cannot read: not a regular file: a FIFO"),
        "{stderr}"
    );
}

/// A fixture symlink that leads out of the fixture's tree (to a file or a
/// folder, absolute or relative): writing `files:` through it is refused
/// at load, naming the scenario file and the entry's line, and nothing
/// outside is touched.
#[test]
fn files_through_a_fixture_symlink_that_leads_out_name_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let (fixture, outside) = (dir.path().join("fx"), dir.path().join("outside"));
    fs::create_dir_all(&fixture).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("target.txt"), "orig").unwrap();
    std::os::unix::fs::symlink(outside.join("target.txt"), fixture.join("abs")).unwrap();
    std::os::unix::fs::symlink("../outside/target.txt", fixture.join("rel")).unwrap();
    std::os::unix::fs::symlink(&outside, fixture.join("dir")).unwrap();
    for entry in ["abs", "rel", "dir/new.txt"] {
        let text = format!("task: t\nworkspace:\n  fixture: fx\n  files:\n    {entry}: x\n{MODEL}");
        let err = load_in(dir.path(), &text).unwrap_err();
        assert!(err.contains("scenario.yaml:5:5:"), "{entry}: {err}");
        assert!(err.contains("Path escapes workspace"), "{entry}: {err}");
    }
    assert_eq!(
        fs::read_to_string(outside.join("target.txt")).unwrap(),
        "orig"
    );
    assert!(!outside.join("new.txt").exists());
}

/// `agent-eval check` and `agent-eval run` on `file` in `dir`: their exit
/// statuses and stderr.
fn check_and_run(dir: &Path, file: &str, run_extra: &[&str]) -> [(Option<i32>, String); 2] {
    let bin = env!("CARGO_BIN_EXE_agent-eval");
    let mut run = vec!["run", file, "--seeds", "1", "--quiet"];
    run.extend_from_slice(run_extra);
    [vec!["check", file], run].map(|args| {
        let out = support::command(bin)
            .current_dir(dir)
            .args(&args)
            .env("ANTHROPIC_API_KEY", "sk-ant-test")
            .env("OPENAI_API_KEY", "sk-test")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    })
}

/// What `run` refuses, `check` refuses too, with the same file:LINE: a
/// price that is NaN, infinite or negative, a temperature that is NaN or
/// negative, a model without a name.
#[test]
fn check_and_run_refuse_the_same_model_settings_at_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "openai",
            "price: {input_per_mtok: .nan, output_per_mtok: 1.0}",
            "s.yaml:5:",
            "price",
        ),
        (
            "anthropic",
            "price: {input_per_mtok: 1.0, output_per_mtok: .inf}",
            "s.yaml:5:",
            "price",
        ),
        (
            "anthropic",
            "price: {input_per_mtok: -2, output_per_mtok: 1}",
            "s.yaml:5:",
            "price",
        ),
        ("openai", "temperature: .nan", "s.yaml:5:", "temperature"),
        ("anthropic", "temperature: -1", "s.yaml:5:", "temperature"),
    ];
    for (provider, setting, at, said) in cases {
        let text = format!(
            "task: t\nmodel:\n  {provider}:\n    model: m\n    {setting}\nsteps:\n  - text: one\n    check: {{file: a, exists: true}}\n"
        );
        fs::write(dir.path().join("s.yaml"), &text).unwrap();
        for (code, stderr) in check_and_run(dir.path(), "s.yaml", &[]) {
            assert_eq!(code, Some(2), "{setting}: {stderr}");
            assert!(
                stderr.contains(at) && stderr.contains(said),
                "{setting}: {stderr}"
            );
        }
    }
    let unnamed = "task: t\nmodel:\n  anthropic:\n    model: \"\"\nsteps:\n  - text: one\n";
    fs::write(dir.path().join("s.yaml"), unnamed).unwrap();
    for (code, stderr) in check_and_run(dir.path(), "s.yaml", &[]) {
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("s.yaml:4:"), "{stderr}");
    }
}

/// `--agent COMMAND` gives a scenario that sets an outside agent's
/// `task_via`, `env` and `timeout_s` without a command its command, and
/// those keys apply; without `--agent` both `check` and `run` refuse it
/// at `agent:`'s line.
#[test]
fn agent_keys_without_a_command_wait_for_dash_dash_agent() {
    let dir = tempfile::tempdir().unwrap();
    let text = "task: t\nmodel:\n  script:\n    - text: Done.\nagent:\n  task_via: arg\n  timeout_s: 30\n  env: {GREETING: hello}\nsteps:\n  - text: one\n    check: {file: a.txt, contains: hello}\n";
    fs::write(dir.path().join("s.yaml"), text).unwrap();
    for (code, stderr) in check_and_run(dir.path(), "s.yaml", &[]) {
        assert_eq!(code, Some(2), "{stderr}");
        assert!(
            stderr.contains("s.yaml:5:1:") && stderr.contains("--agent COMMAND"),
            "{stderr}"
        );
    }
    let agent = "printf '%s' \"$GREETING\" > a.txt";
    let [_, (code, stderr)] = check_and_run(dir.path(), "s.yaml", &["--agent", agent]);
    assert_eq!(code, Some(0), "{stderr}");
}

/// A step whose `do` call writes through a fixture symlink that leads out
/// of the workspace is refused by `check` with the step's file:LINE, and
/// nothing outside is written.
#[test]
fn a_do_call_through_a_fixture_symlink_that_leads_out_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let (fixture, outside) = (dir.path().join("fx"), dir.path().join("outside"));
    fs::create_dir_all(&fixture).unwrap();
    fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, fixture.join("out")).unwrap();
    let text = "task: t\nmodel: {simulate: {}}\nworkspace:\n  fixture: fx\nsteps:\n  - text: one\n    check: {file: out/x.txt, contains: x}\n    do:\n      - {tool: write_file, input: {path: out/x.txt, content: x}}\n";
    fs::write(dir.path().join("s.yaml"), text).unwrap();
    let [(code, _), _] = check_and_run(dir.path(), "s.yaml", &[]);
    assert_eq!(code, Some(2));
    let out = support::agent_eval_command()
        .current_dir(dir.path())
        .args(["check", "s.yaml"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "s.yaml:6:5: step #1: `do` call 1 (write_file) fails: Path escapes workspace"
        ),
        "{stdout}"
    );
    assert!(!outside.join("x.txt").exists());
}

/// Every way a fixture symlink can lead out, through every subcommand that
/// materialises a scenario's workspace: the error names the scenario file
/// and the line of the entry at fault, exit 2, nothing outside touched.
/// The links: to `/`, to `../..`, to an absolute file, a chain of links,
/// a dangling link to an absolute path, a link inside a fixture folder;
/// the fixture itself as such a link. The `files:` keys: block, flow,
/// quoted with an escape, and a complex (`? `) key, whose text no search
/// finds (the mapping's line is named then).
#[test]
fn fixture_links_out_are_refused_at_their_line_by_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let fixture = root.join("fx");
    fs::create_dir_all(fixture.join("sub")).unwrap();
    fs::create_dir(root.join(".git")).unwrap();
    let outside = dir.path().join("outside");
    fs::create_dir_all(&outside).unwrap();
    let link =
        |target: &Path, name: &str| std::os::unix::fs::symlink(target, fixture.join(name)).unwrap();
    link(Path::new("/"), "root");
    link(Path::new("../.."), "up");
    link(&outside.join("file.txt"), "file");
    link(Path::new("up"), "chain");
    link(&outside.join("gone/deeper"), "dangling");
    link(Path::new("../../../outside"), "sub/out");
    let entries = [
        ("root/tmp/x", 6),
        ("up/outside/x", 6),
        ("file", 6),
        ("chain/outside/y", 6),
        ("dangling", 6),
        ("sub/out/x", 6),
    ];
    let scenario = |workspace: &str| {
        format!(
            "name: s\ntask: t\nsteps: [{{text: a}}]\n{workspace}model: {{script: [{{text: done}}]}}\n"
        )
    };
    let mut cases: Vec<(String, usize)> = Vec::new();
    for (entry, line) in entries {
        let block = format!("workspace:\n  fixture: fx\n  files:\n    {entry}: x\n");
        cases.push((scenario(&block), line + 1));
        let flow = format!("workspace:\n  fixture: fx\n  files: {{{entry}: x}}\n");
        cases.push((scenario(&flow), line));
    }
    let whole_flow = "workspace: {fixture: fx, files: {file: x}}\n";
    cases.push((scenario(whole_flow), 4));
    let escaped = "workspace:\n  fixture: fx\n  files:\n    \"fil\\x65\": x\n";
    cases.push((scenario(escaped), 7));
    let complex = "workspace:\n  fixture: fx\n  files:\n    ? file\n    : x\n";
    cases.push((scenario(complex), 7));
    for target in [
        "fx/root",
        "fx/up",
        "fx/file",
        "fx/chain",
        "fx/dangling",
        "fx/sub/out",
    ] {
        cases.push((scenario(&format!("workspace:\n  fixture: {target}\n")), 5));
    }
    let subcommands: [&[&str]; 6] = [
        &["check"],
        &["run", "--quiet"],
        &["run", "--list"],
        &["replay"],
        &["sweep"],
        &["run", "--agent", "codex", "--quiet"],
    ];
    for (text, line) in &cases {
        fs::write(root.join("s.yaml"), text).unwrap();
        for args in subcommands {
            let out = support::agent_eval_command()
                .current_dir(&root)
                .args(args)
                .arg("s.yaml")
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?} {text}: {stderr}");
            assert!(
                stderr.contains(&format!("s.yaml:{line}:")),
                "{args:?} {text}: {stderr}"
            );
        }
    }
    assert_eq!(
        fs::read_dir(&outside).unwrap().count(),
        0,
        "nothing written outside"
    );
}
