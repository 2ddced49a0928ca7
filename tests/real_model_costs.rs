//! Costs before they are spent: a real-model run shows its requests,
//! tokens and estimated cost before it starts, `--list` needs no key, and
//! an estimate above the budget is refused (exit 2) unless `--max-cost` or
//! `--yes` says otherwise. Everything here runs offline: the estimate and
//! the refusal come before any key is read or request sent.

#[allow(dead_code)] // each test file uses some of the shared helpers
use crate::support;

use std::path::Path;
use std::process::Output;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let output: Output = support::agent_eval_in(repo())
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn list_shows_the_estimate_without_a_key() {
    let (code, out, err) = run(
        &[
            "run",
            "scenarios/",
            "--model",
            "anthropic:claude-sonnet-4-5",
            "--list",
        ],
        &[],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("29 scenarios, 4541 runs (nothing was run)"),
        "{out}"
    );
    assert!(
        out.contains("real models: 4,541 runs, at most 227,004 requests"),
        "{out}"
    );
    assert!(out.contains("estimated $3745.57"), "{out}");
    assert!(!err.contains("ANTHROPIC_API_KEY"), "{err}");
}

#[test]
fn above_the_default_budget_is_refused_before_the_key_is_asked_for() {
    let (code, out, err) = run(
        &[
            "run",
            "scenarios/",
            "--model",
            "anthropic:claude-sonnet-4-5",
        ],
        &[],
    );
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("estimated $3745.57"), "{err}");
    assert!(err.contains("default budget of $5.00"), "{err}");
    assert!(err.contains("--max-cost") && err.contains("--yes"), "{err}");
    assert!(!err.contains("ANTHROPIC_API_KEY"), "refused first: {err}");
}

#[test]
fn an_estimate_above_max_cost_is_refused_and_yes_goes_on_to_the_key() {
    let scenario = "scenarios/ten_step_refactor.yaml";
    let model = "anthropic:claude-sonnet-4-5";
    let (code, _, err) = run(
        &[
            "run",
            scenario,
            "--model",
            model,
            "--seeds",
            "3",
            "--max-cost",
            "10",
        ],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("estimated cost $14.85 is above --max-cost $10.00"),
        "{err}"
    );
    // Within --max-cost, or with --yes, it goes on: here to the missing key.
    let extras: [&[&str]; 2] = [&["--max-cost", "15"], &["--yes"]];
    for extra in extras {
        let mut args = vec!["run", scenario, "--model", model, "--seeds", "3"];
        args.extend(extra);
        let (code, _, err) = run(&args, &[]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("ANTHROPIC_API_KEY"), "{err}");
        assert!(err.contains("real models: 18 runs"), "{err}");
    }
}

#[test]
fn a_model_of_no_known_family_is_tokens_only_and_not_refused() {
    let (code, _, err) = run(&["run", "scenarios/", "--model", "openai:llama3.1:8b"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("plus openai:llama3.1:8b (no known price"),
        "{err}"
    );
    assert!(err.contains("OPENAI_API_KEY"), "went on to the key: {err}");
    // A price given on the command line is the one estimated with.
    let (code, _, err) = run(
        &[
            "run",
            "scenarios/",
            "--model",
            "openai:llama3.1:8b",
            "--price",
            "llama3.1:8b=1,1",
        ],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("default budget"), "{err}");
}
