//! `--agent gemini` or `--agent claude` is a command, not a preset: run
//! says which preset it was likely meant as, before the runs.

#[allow(dead_code)] // each test file uses some of the shared helpers
use crate::support;

#[test]
fn a_word_near_a_preset_name_gets_a_did_you_mean() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (word, preset) in [("gemini", "gemini-cli"), ("claude", "claude-code")] {
        let output = support::agent_eval_in(repo)
            .args(["run", "scenarios/scripted/guards.yaml", "--agent", word])
            .env("PATH", "/nonexistent")
            .output()
            .expect("the binary runs");
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(
            err.contains(&format!(
                "did you mean the preset {preset} (--agent {preset})?"
            )),
            "{err}"
        );
    }
}
