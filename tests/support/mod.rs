//! What every module of the integration tests shares:
//!
//! - the one way to start `agent-eval` ([`agent_eval_command`]) or any
//!   other process ([`command`]): the child never sees the CI engine's
//!   variables, so the suite behaves the same on a laptop and inside
//!   GitHub Actions (where a child would otherwise append to the job's
//!   real summary, print `::error` lines, or read `--shard auto`'s
//!   variables); `layout.rs` fails on a process started any other way;
//! - the one way to skip ([`skip_unless_required`]): a test that needs a
//!   tool `.ci/install.sh` installs (the real CLIs, chromium, the Python
//!   SDKs, user namespaces) skips, saying why, on a machine without it,
//!   but fails in CI, where a skip would pass unseen (cargo hides a
//!   passing test's output) and leave the feature it covers untested;
//! - [`require_agents`]: the folder of the real CLIs `.ci/install-agents.sh`
//!   installs, or a skip through [`skip_unless_required`] (a missing `HOME`
//!   included);
//! - [`run_alone`]: a test that needs process state of its own runs again
//!   in a child process of this binary, filtered to its name;
//! - processes found by a unique argument ([`unique_sleep`],
//!   [`processes_running`], [`gone_soon`]): how a test waits for a process
//!   to appear or to end, bounded, instead of sleeping a fixed time;
//! - [`rust_files`]: the one walk of a source folder the layout checks
//!   (`floors.rs`, `function_length.rs`, `layout.rs`) make.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// Whether a missing tool must fail the test: in CI (`CI=true`) or with
/// `AGENT_EVAL_REQUIRE_TOOLS=1`, which `.ci/run` exports.
pub fn tools_required() -> bool {
    let set = |name: &str| {
        std::env::var(name).is_ok_and(|v| matches!(v.trim(), "1" | "true" | "TRUE" | "yes"))
    };
    set("CI") || set("AGENT_EVAL_REQUIRE_TOOLS")
}

/// Prints that the test is skipped and why; in CI, fails with `why`. Every
/// skip of the suite goes through here.
pub fn skip_unless_required(why: &str) {
    assert!(!tools_required(), "in CI this test must really run: {why}");
    eprintln!("SKIPPED: {why}");
}

/// The prefixes of the variables CI engines set: GitHub Actions (`GITHUB_*`,
/// `RUNNER_*`, `ACTIONS_*`), GitLab (`GITLAB_*`, `CI_*`), `CI` itself,
/// CircleCI, Buildkite, Travis, Jenkins, TeamCity, Bitbucket, Drone,
/// AppVeyor, CodeBuild, Woodpecker and Azure Pipelines (`TF_BUILD`,
/// `SYSTEM_*`, `BUILD_*`).
const CI_PREFIXES: &[&str] = &[
    "GITHUB_",
    "RUNNER_",
    "ACTIONS_",
    "GITLAB_",
    "CI",
    "BUILDKITE",
    "TRAVIS",
    "JENKINS_",
    "TEAMCITY_",
    "BITBUCKET_",
    "DRONE",
    "APPVEYOR",
    "CODEBUILD_",
    "WOODPECKER_",
    "TF_BUILD",
    "SYSTEM_",
    "BUILD_",
];

/// Whether `name` is a CI engine's variable: one of [`CI_PREFIXES`], or one
/// `agent-eval` itself reads to tell its shard, commit or branch.
pub fn is_ci_variable(name: &str) -> bool {
    CI_PREFIXES.iter().any(|prefix| name.starts_with(prefix))
        || agent_eval::app::ci::ENGINES.iter().any(|engine| {
            let parallel = engine.parallel.map(|p| [p.index, p.total]);
            [engine.commit, engine.branch]
                .into_iter()
                .flatten()
                .chain(parallel.into_iter().flatten())
                .any(|variable| variable == name)
        })
}

/// A command for `program` whose process does not inherit any CI engine's
/// variable (a test that wants one sets it on the command).
pub fn command(program: impl AsRef<OsStr>) -> Command {
    let mut command = Command::new(program);
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(is_ci_variable) {
            command.env_remove(&name);
        }
    }
    command
}

/// The built `agent-eval`, as [`command`] starts it.
pub fn agent_eval_command() -> Command {
    command(env!("CARGO_BIN_EXE_agent-eval"))
}

/// Runs the ignored test `name` of `module` (the caller's `module_path!()`)
/// in a child process of this test binary, with `env` added to its
/// environment, and returns its stdout. Fails when the test fails or did
/// not run. For tests that need process state of their own: the
/// process-wide Ctrl-C flag, variables of their own environment, their
/// own memory peak or descriptor count.
pub fn run_alone(module: &str, name: &str, env: &[(&str, &str)]) -> String {
    // `module_path!()` starts with the crate's name; libtest's names do not.
    let module = module.split_once("::").map_or("", |(_, rest)| rest);
    let test = format!("{module}::{name}");
    let exe = std::env::current_exe().expect("the test binary's path");
    let output = command(exe)
        .args([
            &test,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .envs(env.iter().copied())
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{test} failed in its own process:\n{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("1 passed"), "{test} did not run:\n{stdout}");
    stdout
}

/// Where `.ci/install-agents.sh` puts the real CLIs:
/// `$AGENT_EVAL_AGENTS_DIR`, else `~/.cache/agent-eval/agents`.
pub fn agents_dir() -> Option<PathBuf> {
    match std::env::var_os("AGENT_EVAL_AGENTS_DIR") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => std::env::var_os("HOME")
            .map(|home| PathBuf::from(home).join(".cache/agent-eval/agents")),
    }
}

/// The agents folder when every CLI in `clis` is installed there; else a
/// skip, saying why (a failure in CI), and `None`. No agents folder at all
/// (neither variable set) is a missing tool too, never a silent return.
pub fn require_agents(clis: &[&str]) -> Option<PathBuf> {
    let Some(dir) = agents_dir() else {
        skip_unless_required(&format!(
            "no agents folder for {clis:?}: neither AGENT_EVAL_AGENTS_DIR nor HOME is set"
        ));
        return None;
    };
    let missing: Vec<&str> = clis
        .iter()
        .copied()
        .filter(|cli| !dir.join("node_modules/.bin").join(cli).exists())
        .collect();
    if missing.is_empty() {
        return Some(dir);
    }
    skip_unless_required(&format!(
        "the {missing:?} CLI(s) are not installed under {} (run `bash .ci/install-agents.sh`, \
         or set AGENT_EVAL_AGENTS_DIR)",
        dir.display()
    ));
    None
}

/// A `sleep` argument no other process on the machine uses, so a test can
/// find the process in `/proc` (from outside its namespace too). `test`
/// tells the callers apart: containment uses 1 to 3, wire_external 4 and 5.
pub fn unique_sleep(test: u32) -> String {
    format!("{}.{test}7", 70_000 + std::process::id() % 20_000)
}

/// The pids whose command line mentions `needle`.
pub fn processes_running(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        // A zombie has an empty command line: it is gone already.
        if String::from_utf8_lossy(&cmdline).contains(needle) {
            found.push(pid);
        }
    }
    found
}

/// Polls `done` every 20 ms until it holds or `bound` passes; whether it
/// held. The bound only turns a regression into a failure instead of a
/// hang: the test waits for the event, never for a fixed time.
pub fn wait_for(bound: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + bound;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The processes mentioning `needle` still there after waiting (bounded,
/// 10 s) for the kernel to finish tearing their tree down.
pub fn gone_soon(needle: &str) -> Vec<u32> {
    wait_for(Duration::from_secs(10), || {
        processes_running(needle).is_empty()
    });
    processes_running(needle)
}

/// The built `agent-eval`, run in `dir` with the CI engines' variables
/// ([`command`]) and the model APIs' (`ANTHROPIC_*`, `OPENAI_*`) cleared,
/// so it behaves the same inside GitHub Actions and on a machine holding a
/// real key.
pub fn agent_eval_in(dir: &std::path::Path) -> Command {
    let mut command = agent_eval_command();
    command.current_dir(dir).stdin(std::process::Stdio::null());
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("ANTHROPIC_") || name.starts_with("OPENAI_") {
            command.env_remove(name.as_ref());
        }
    }
    command
}

/// Copies the folder `from` to `to`, recursively (a clone's scenarios and
/// fixtures for a test that runs README blocks in a folder of its own).
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The Rust files under `dir`, recursively, in sorted path order.
pub fn rust_files(dir: &std::path::Path) -> Vec<PathBuf> {
    fn walk(dir: &std::path::Path, found: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|entry| entry.expect("a folder entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, &mut found);
    found
}

/// The sessions of `scenario`'s `cell` run in-process for each of
/// `seeds`, as calibration reads agent-eval's own run logs (the reminders
/// the run counted included).
pub fn sessions_of_runs(
    scenario: &agent_eval::scenario::Scenario,
    cell: &agent_eval::eval::Cell,
    seeds: std::ops::Range<u64>,
) -> Vec<agent_eval::transcript::Session> {
    seeds
        .map(|seed| {
            let record = agent_eval::eval::run_once(scenario, cell, seed).unwrap();
            agent_eval::transcript::run_log::session_of(
                &record.messages,
                Default::default(),
                true,
                Some(&record.result.reminders_at),
            )
        })
        .collect()
}
