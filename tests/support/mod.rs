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
//! - [`run_alone`]: a test that needs process state of its own runs again
//!   in a child process of this binary, filtered to its name.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::process::Command;

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
