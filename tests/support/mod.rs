//! Shared by the integration tests that need a tool `.ci/install.sh`
//! installs (the real CLIs, chromium, the Python SDKs): such a test skips,
//! saying why, on a machine without the tool, but fails in CI, where a
//! skip would pass unseen (cargo hides a passing test's output) and leave
//! the feature it covers untested.

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

/// `command` with none of the CI engine's variables (`GITHUB_*`,
/// `GITLAB_*`, `CI*`) inherited: run inside GitHub Actions, a child would
/// otherwise append to the job's real summary and print `::error` lines,
/// and the tests would behave unlike anywhere else. A test sets the ones
/// it simulates afterwards.
// Not every test file that includes this module spawns the binary.
#[allow(dead_code)]
pub fn without_ci_env(command: &mut std::process::Command) -> &mut std::process::Command {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("GITHUB_") || name.starts_with("GITLAB_") || name.starts_with("CI") {
            command.env_remove(name.as_ref());
        }
    }
    command
}
