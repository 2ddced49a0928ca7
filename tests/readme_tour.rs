//! The README's commands run as written: every ```sh block of README.md is read from
//! the README itself (never copied here), and its commands run in order, each from
//! where the previous one left the reader, with the built binary on PATH as
//! `agent-eval`, and each must exit 0, as the README presents every one of them.
//!
//! The reader starts in a clone: here a temporary folder holding copies of the
//! repository's `scenarios/` and `fixtures/` and a `.git` folder (fixtures must stay
//! inside the scenario's repository), outside any CI: no `GITHUB_*`, `GITLAB_*` or
//! `CI*` variable is inherited (`tests/readme_ci.rs` runs the CI block on a simulated
//! GitHub runner too). `agent-eval serve` is started, waited for
//! until it prints its URLs, and stopped with SIGTERM, bounded in time.
//!
//! Lines NOT run, each listed in `EXEMPT` with why (the test fails if one is no longer
//! in the README, so the list stays exact):
//! - `cargo run --release -- run scenarios/`: a release build takes minutes; the same
//!   `run scenarios/` runs below (the CI and history blocks) with the built binary;
//! - `cargo test`: this very test suite;
//! - `cargo build --release --bin s03-agent`: a release build; the test puts the
//!   `s03-agent` cargo built for the tests where that line leaves it
//!   (`target/release/s03-agent` of the clone), so the next line runs as written;
//! - `bash .ci/install-agents.sh`: downloads the real CLIs from npm;
//! - `agent-eval run real-agents/`: needs those real CLIs and minutes of Node
//!   processes; `tests/real_agents*.rs` cover them;
//! - `agent-eval run scenarios/simulated/api_migration.yaml --agent claude-code --seeds 2`:
//!   needs the real Claude Code CLI; `tests/real_agents.rs`
//!   (`a_comparison_the_preset_does_not_distinguish_is_not_applicable`) runs this very
//!   command, failing in CI when the CLI is missing.
//!
//! Runtime: the CI gate runs twice (the CI and history blocks) and the tour runs
//! `dialects.yaml` and the price sweep at their full seeds (no seeds were reduced):
//! about 40 s of CPU in debug, longer on a busy machine.

use crate::support;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The commands not run, and why (see the module's documentation).
const EXEMPT: &[(&str, &str)] = &[
    (
        "cargo run --release -- run scenarios/",
        "a release build; the same run is done by the CI block",
    ),
    ("cargo test", "this very test suite"),
    (
        "cargo build --release --bin s03-agent",
        "a release build; the built s03-agent is put where it leaves it",
    ),
    ("bash .ci/install-agents.sh", "downloads the real CLIs"),
    (
        "agent-eval run real-agents/",
        "needs the real CLIs, minutes of runs",
    ),
    (
        "agent-eval run scenarios/simulated/api_migration.yaml --agent claude-code --seeds 2",
        "needs the real Claude Code CLI; tests/real_agents.rs runs it",
    ),
];

/// A command that runs until stopped.
const SERVE: &str = "agent-eval serve ";

/// No command may take longer than this (the slowest, the gate in debug, takes
/// well under a minute).
const BOUND: Duration = Duration::from_secs(300);

/// The commands of the README's ```sh blocks, in order: comments and blank lines
/// dropped, `\` continuations joined, trailing comments kept (bash ignores them).
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let mut commands = Vec::new();
    for block in readme.split("```sh\n").skip(1) {
        let body = block.split("```").next().unwrap_or_default();
        let mut pending = String::new();
        for line in body.lines() {
            let line = line.trim();
            if pending.is_empty() && (line.is_empty() || line.starts_with('#')) {
                continue;
            }
            match line.strip_suffix('\\') {
                Some(head) => {
                    pending.push_str(head);
                    pending.push(' ');
                }
                None => {
                    pending.push_str(line);
                    commands.push(std::mem::take(&mut pending));
                }
            }
        }
    }
    commands
}

/// The command without its trailing `# comment`.
fn without_comment(command: &str) -> &str {
    command.split(" #").next().unwrap_or(command).trim()
}

/// A clone as the README's reader has it, and a folder with `agent-eval` in it.
struct Clone {
    _root: tempfile::TempDir,
    clone: PathBuf,
    bin: PathBuf,
}

fn make_clone() -> Clone {
    let root = tempfile::tempdir().expect("temp dir");
    let clone = root.path().join("agent-eval");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for folder in ["scenarios", "fixtures"] {
        support::copy_tree(&repo.join(folder), &clone.join(folder));
    }
    std::fs::create_dir_all(clone.join(".git")).expect(".git");
    let release = clone.join("target/release");
    std::fs::create_dir_all(&release).expect("target/release");
    std::fs::copy(env!("CARGO_BIN_EXE_s03-agent"), release.join("s03-agent")).expect("s03-agent");
    let bin = root.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_agent-eval"), bin.join("agent-eval"))
        .expect("agent-eval on PATH");
    Clone {
        _root: root,
        clone,
        bin,
    }
}

/// `bash -c COMMAND` in `cwd` with `agent-eval` on PATH; the folder it ends in is
/// written to `cwd_file`.
fn bash(command: &str, cwd: &Path, setup: &Clone, cwd_file: &Path) -> Command {
    let script = format!(
        "{command}\nstatus=$?\npwd > '{}'\nexit $status",
        cwd_file.display()
    );
    let mut bash = support::command("bash");
    bash.arg("-c")
        .arg(script)
        .current_dir(cwd)
        .env("PATH", path_with(&setup.bin))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    bash
}

fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Runs to the end, killed past `BOUND` (then the test fails). The output goes to
/// files in `scratch`, so a full pipe never stalls the command.
fn finish(mut command: Command, what: &str, scratch: &Path) -> Output {
    let (out, err) = (scratch.join("stdout"), scratch.join("stderr"));
    command
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(std::fs::File::create(&err).expect("stderr file"));
    let mut child = command.spawn().expect("bash starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > BOUND {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`{what}` ran longer than {BOUND:?}:\n{}",
                std::fs::read_to_string(&out).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: std::fs::read(&out).unwrap_or_default(),
        stderr: std::fs::read(&err).unwrap_or_default(),
    }
}

fn text(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Starts `serve` (through `exec`, so the process signalled is agent-eval), waits
/// for its URLs and banner, stops it with SIGTERM; returns what it printed.
fn serve(command: &str, cwd: &Path, setup: &Clone) -> String {
    let mut child = support::command("bash")
        .arg("-c")
        .arg(format!("exec {command}"))
        .current_dir(cwd)
        .env("PATH", path_with(&setup.bin))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let stdout = child.stdout.take().expect("stdout");
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut printed = String::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !printed.contains("side request") {
        let left = deadline.saturating_duration_since(Instant::now());
        match received.recv_timeout(left) {
            Ok(line) => {
                printed.push_str(&line);
                printed.push('\n');
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("`{command}` printed no banner within 60 s:\n{printed}");
            }
        }
    }
    // SAFETY: kill has no memory-safety preconditions; the pid is our child's.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("`{command}` did not stop on SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = child.wait().expect("status");
    assert!(status.success(), "`{command}` stopped with {status:?}");
    printed
}

/// What a command's output must show beyond its exit status (what the README and
/// the issue it fixes promise there).
fn check_output(command: &str, stdout: &str, stderr: &str) {
    let all = format!("{stdout}{stderr}");
    if command.starts_with("agent-eval replay scenarios/greet_simulated.yaml") {
        assert!(all.contains("replaying seed 6 of the cell todo="), "{all}");
    }
    if command.contains("--baseline eval-history.db") {
        assert!(
            all.contains("baseline: nothing compared"),
            "a new history compares nothing and says so:\n{all}"
        );
    }
    if command == "agent-eval run scenarios/" {
        assert!(all.contains("all held"), "{all}");
    }
}

#[test]
fn every_readme_command_runs_as_written_in_order() {
    let commands = readme_commands();
    for (exempt, why) in EXEMPT {
        assert!(
            commands.iter().any(|c| without_comment(c) == *exempt),
            "`{exempt}` is exempt ({why}) but no longer in the README: update EXEMPT"
        );
    }
    let setup = make_clone();
    let cwd_file = setup.clone.parent().expect("root").join("cwd");
    let mut cwd = setup.clone.clone();
    let mut ran = 0;
    for command in &commands {
        let bare = without_comment(command);
        if EXEMPT.iter().any(|(c, _)| *c == bare) {
            continue;
        }
        if bare.starts_with(SERVE) {
            let banner = serve(bare, &cwd, &setup);
            assert!(
                banner.contains("ANTHROPIC_BASE_URL=http://127.0.0.1:"),
                "{banner}"
            );
            ran += 1;
            continue;
        }
        let scratch = setup.clone.parent().expect("root");
        let output = finish(bash(command, &cwd, &setup, &cwd_file), command, scratch);
        assert_eq!(
            output.status.code(),
            Some(0),
            "README command `{command}` (in {}) failed: {}",
            cwd.display(),
            text(&output)
        );
        check_output(
            bare,
            &String::from_utf8_lossy(&output.stdout),
            &String::from_utf8_lossy(&output.stderr),
        );
        let ended = std::fs::read_to_string(&cwd_file).expect("cwd written");
        cwd = PathBuf::from(ended.trim());
        ran += 1;
    }
    // The tour, the s03 agent, the CI gate and the history: nothing was skipped
    // by a parsing slip.
    assert!(ran >= 15, "only {ran} README commands ran: {commands:#?}");
}
