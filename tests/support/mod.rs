//! Shared by the integration tests that need a tool `.ci/install.sh`
//! installs (the real CLIs, chromium, the Python SDKs): such a test skips,
//! saying why, on a machine without the tool, but fails in CI, where a
//! skip would pass unseen (cargo hides a passing test's output) and leave
//! the feature it covers untested.

#![allow(dead_code)]

/// Whether a missing tool must fail the test: in CI (`CI=true`) or with
/// `AGENT_EVAL_REQUIRE_TOOLS=1`, which `.ci/run` exports.
fn tools_required() -> bool {
    let set = |name: &str| {
        std::env::var(name).is_ok_and(|v| matches!(v.trim(), "1" | "true" | "TRUE" | "yes"))
    };
    set("CI") || set("AGENT_EVAL_REQUIRE_TOOLS")
}

/// Prints that the test is skipped and why; in CI, fails with `why`.
pub fn skip_unless_required(why: &str) {
    assert!(!tools_required(), "in CI this test must really run: {why}");
    eprintln!("SKIPPED: {why}");
}

/// `agent-eval` as a test spawns it: the CI engines' variables (`GITHUB_*`,
/// `GITLAB_*`, `CI*`) are removed from the child's environment, so a test
/// behaves the same on a laptop and inside GitHub Actions (where the child
/// would otherwise append to the job's real summary and print annotations);
/// a test sets back only the ones it is about.
pub fn agent_eval_command() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_agent-eval"));
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if ["GITHUB_", "GITLAB_", "CI"]
            .iter()
            .any(|prefix| name.starts_with(prefix))
        {
            command.env_remove(name.as_ref());
        }
    }
    command
}
