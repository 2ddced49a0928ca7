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

/// The built `agent-eval`, run in `dir` with the CI engines' variables
/// (GITHUB_*, GITLAB_*, CI*) and the model APIs' (ANTHROPIC_*, OPENAI_*)
/// cleared, so it behaves the same inside GitHub Actions and on a machine
/// holding a real key.
#[allow(dead_code)]
pub fn agent_eval_in(dir: &std::path::Path) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_agent-eval"));
    command.current_dir(dir).stdin(std::process::Stdio::null());
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if ["GITHUB_", "GITLAB_", "CI", "ANTHROPIC_", "OPENAI_"]
            .iter()
            .any(|prefix| name.starts_with(prefix))
        {
            command.env_remove(name.as_ref());
        }
    }
    command
}
