//! What `run` and `replay` say must not contradict what happened: a run
//! whose agent could not start does not end "all held", the presets the
//! help names are the presets there are, a preset's expectation lines do
//! not show agent-eval's own reminder parameter, and a redirected log
//! hears of each scenario as it ends.

#[allow(dead_code)] // each test file uses some of the shared helpers
use crate::support;

use std::path::Path;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn an_agent_that_cannot_start_ends_the_run_saying_so_with_its_output_as_lines() {
    let output = support::agent_eval_in(repo())
        .args(["run", "scenarios/scripted/guards.yaml", "--agent"])
        .arg("echo first line; echo '::error::from the agent'; exit 3")
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("the binary runs");
    let (out, err) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert_eq!(output.status.code(), Some(2), "{out}\n{err}");
    assert!(!out.contains("all held"), "{out}");
    assert!(!out.contains("0 scenarios"), "{out}");
    let last = out.lines().rfind(|l| !l.starts_with("::"));
    assert_eq!(
        last,
        Some("could not start the agent: 1 scenario not measured (the error above)"),
        "{out}"
    );
    // The agent's output as lines of their own, and its would-be workflow
    // command defused.
    assert!(
        err.contains("its output ends:\nfirst line\n| ::error::from the agent\n"),
        "{err}"
    );
    assert!(!err.contains("\\n"), "{err}");
}

/// `text` with every run of whitespace made one space (help and Markdown
/// wrap their lines where they like).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn help_docs_and_readme_list_the_presets_of_the_registry() {
    let listing = agent_eval::scenario::AgentPreset::listing();
    for preset in agent_eval::scenario::AgentPreset::ALL {
        assert!(
            listing.contains(&format!("`{}`", preset.name())),
            "{listing}"
        );
    }
    for command in ["run", "replay"] {
        let help = support::agent_eval_command()
            .args([command, "--help"])
            .output()
            .expect("the binary runs");
        let help = one_line(&String::from_utf8_lossy(&help.stdout));
        assert!(help.contains(&listing), "{command} --help: {help}");
        assert!(!help.contains("more presets will follow"), "{help}");
    }
    for doc in ["docs/cli.md", "README.md"] {
        let text = std::fs::read_to_string(repo().join(doc)).expect("the doc reads");
        assert!(
            one_line(&text).contains(&listing),
            "{doc} does not list the presets as {listing}"
        );
    }
}

#[test]
fn a_preset_run_does_not_show_agent_eval_nag_in_its_expectations() {
    let Some(agents) = support::require_agents(&["codex"]) else {
        return;
    };
    let output = support::agent_eval_in(repo())
        .args([
            "run",
            "scenarios/simulated/docs_fixes.yaml",
            "--agent",
            "codex",
        ])
        .args(["--seeds", "1", "--verbose"])
        .env("AGENT_EVAL_AGENTS_DIR", &agents)
        .output()
        .expect("the binary runs");
    let (out, err) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    // (Lines wrap at 120 columns.)
    assert!(
        one_line(&out).contains("nag, placement, reminder: n/a (agent's own)"),
        "{out}\n{err}"
    );
    // The scenario writes `nag_threshold: 3` in both comparisons; under the
    // preset no cell has it, so no expectation line says it.
    // Nothing of the output says it (the table has no nag column either).
    assert!(!out.contains("nag="), "{out}");
    assert!(out.contains("n/a  completion_rate_diff"), "{out}");
    assert!(out.contains("(todo=true vs todo=false)"), "{out}");
}

#[test]
fn a_real_agent_replay_shows_its_task_as_the_task_not_as_a_reminder() {
    let Some(agents) = support::require_agents(&["codex"]) else {
        return;
    };
    let output = support::agent_eval_in(repo())
        .args([
            "replay",
            "scenarios/simulated/docs_fixes.yaml",
            "--seed",
            "0",
        ])
        .args(["--agent", "codex"])
        .env("AGENT_EVAL_AGENTS_DIR", &agents)
        .output()
        .expect("the binary runs");
    let out = String::from_utf8_lossy(&output.stdout);
    let before_turn_1 = out.split("── turn 1 ──").next().unwrap_or_default();
    let task = before_turn_1.split("── task ──\n").nth(1);
    assert!(
        task.is_some_and(|t| t.contains("Fix the docs in six steps:")),
        "{out}"
    );
    // Codex has no planning reminder: nothing in its run is one.
    assert!(!out.contains('⚑'), "{out}");
}

#[test]
fn a_redirected_stderr_hears_of_each_scenario_as_it_ends() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let log = dir.path().join("stderr.log");
    let run = |extra: &[&str]| {
        let file = std::fs::File::create(&log).expect("the log file");
        let status = support::agent_eval_in(repo())
            .args(["run", "scenarios/scripted/guards.yaml"])
            .args(["scenarios/scripted/no_todo.yaml"])
            .args(extra)
            .stdout(std::process::Stdio::null())
            .stderr(file)
            .status()
            .expect("the binary runs");
        (
            status,
            std::fs::read_to_string(&log).expect("the log reads"),
        )
    };
    let (status, text) = run(&[]);
    assert_eq!(status.code(), Some(0), "{text}");
    // One line each, in the order they ended (any, when runs go in
    // parallel), counted.
    assert_eq!(text.lines().count(), 2, "{text}");
    for name in ["guards", "no_todo"] {
        let file = format!("(scenarios/scripted/{name}.yaml): 1 run");
        assert!(
            text.lines()
                .any(|l| l.contains("] ended: ") && l.ends_with(&file)),
            "{text}"
        );
    }
    let counters: Vec<&str> = text.lines().filter_map(|l| l.split(']').next()).collect();
    assert_eq!(counters, ["[1/2", "[2/2"], "{text}");
    // `--quiet` keeps stderr for what went wrong.
    let (_, quiet) = run(&["--quiet"]);
    assert_eq!(quiet, "");
}

#[test]
fn a_scenario_whose_runs_could_not_happen_still_gets_its_line() {
    let output = support::agent_eval_in(repo())
        .args(["run", "scenarios/scripted/guards.yaml", "--agent", "exit 3"])
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.lines().any(|l| l.starts_with("[1/1] ended: ")
            && l.ends_with("(scenarios/scripted/guards.yaml): 0 runs, 1 not measured")),
        "{err}"
    );
}

#[test]
fn calibrate_draws_no_conclusion_beside_too_few_observations() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let logs = dir.path().join("logs");
    let ran = support::agent_eval_in(repo())
        .args([
            "run",
            "scenarios/simulated/docs_fixes.yaml",
            "--seeds",
            "2",
            "-q",
        ])
        .arg("--log-dir")
        .arg(&logs)
        .output()
        .expect("the binary runs");
    assert!(ran.status.code().is_some_and(|c| c <= 1), "{ran:?}");
    let output = support::agent_eval_in(repo())
        .arg("calibrate")
        .arg(&logs)
        .output()
        .expect("the binary runs");
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{out}");
    // The fit stands, but every statistic rests on a handful of sessions:
    // nothing is concluded, so nothing is said to be uncontradicted.
    assert!(out.contains("the fit is not rejected"), "{out}");
    assert!(out.contains("too few observed (n = "), "{out}");
    assert!(out.contains("Nothing is concluded about them."), "{out}");
    assert!(!out.contains("is contradicted"), "{out}");
}
