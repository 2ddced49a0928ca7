//! The GitHub Action (`action.yml`): its logic, `action/run.sh`, run as the
//! runner runs it (its `GITHUB_*`, `RUNNER_TEMP` and `INPUT_*` variables
//! set, agent-eval on the PATH), on a failing and a passing run and with a
//! history kept between runs; and `action.yml` checked against the script.

use crate::support;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

const FAILING: &str = "name: fails\ntask: t\nmodel:\n  script:\n    - text: done\nexpect:\n  - stop: end_turn\n  - turns: 2\n";
const PASSING: &str =
    "name: passes\ntask: t\nmodel:\n  script:\n    - text: done\nexpect:\n  - stop: end_turn\n";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A workspace holding the two scenarios, as `actions/checkout` leaves it.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scenarios")).unwrap();
    std::fs::create_dir_all(dir.path().join("runner-temp")).unwrap();
    std::fs::write(dir.path().join("scenarios/failing.yaml"), FAILING).unwrap();
    std::fs::write(dir.path().join("scenarios/passing.yaml"), PASSING).unwrap();
    dir
}

/// `action/run.sh` in `workspace` with these inputs.
fn run_action(workspace: &Path, inputs: &[(&str, &str)]) -> (Output, BTreeMap<String, String>) {
    let bin = Path::new(env!("CARGO_BIN_EXE_agent-eval"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let outputs = workspace.join("github-output");
    let mut command = support::command("bash");
    command
        .arg(root().join("action/run.sh"))
        .current_dir(workspace)
        .env("PATH", path)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_WORKSPACE", workspace)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", workspace.join("step-summary.md"))
        .env("RUNNER_TEMP", workspace.join("runner-temp"));
    for (name, value) in inputs {
        command.env(format!("INPUT_{name}"), value);
    }
    let out = command.output().expect("bash runs");
    let written = std::fs::read_to_string(&outputs).unwrap_or_default();
    let values = written
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    (out, values)
}

#[test]
fn a_failing_run_sets_the_outputs_annotates_and_leaves_the_gate_to_the_last_step() {
    let dir = workspace();
    let (out, outputs) = run_action(dir.path(), &[("PATHS", "scenarios/failing.yaml")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(outputs["passed"], "false");
    assert_eq!(outputs["exit-code"], "1");
    for report in ["json", "html", "markdown"] {
        assert!(
            Path::new(&outputs[report]).is_file(),
            "{report}: {}",
            outputs[report]
        );
    }
    assert!(
        stdout.contains("::error file=scenarios/failing.yaml,line=8,title=agent-eval%3A fails::turns == 2: measured 1"),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(dir.path().join("step-summary.md")).unwrap();
    assert!(summary.contains("❌ failed"), "{summary}");
}

#[test]
fn a_passing_run_with_a_history_records_then_compares_with_it() {
    let dir = workspace();
    let db = dir.path().join("runner-temp/agent-eval-history/history.db");
    let inputs = [
        ("PATHS", "scenarios/passing.yaml"),
        ("BASELINE", "history"),
        ("HISTORY_PATH", db.to_str().unwrap()),
        ("HTML", "false"),
    ];
    let (first, outputs) = run_action(dir.path(), &inputs);
    assert_eq!(
        outputs["passed"],
        "true",
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(outputs["html"], "");
    assert!(db.is_file());
    assert!(!String::from_utf8_lossy(&first.stdout).contains("--baseline"));
    let (second, outputs) = run_action(dir.path(), &inputs);
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert!(
        stdout.contains(&format!("--baseline {}", db.display())),
        "{stdout}"
    );
    assert_eq!(outputs["exit-code"], "0", "{stdout}");
}

#[test]
fn action_yml_passes_every_input_the_script_reads_and_exposes_what_it_writes() {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let action: serde_json::Value = serde_saphyr::from_str(&text).expect("action.yml is YAML");
    assert_eq!(action["runs"]["using"], "composite");
    let script = std::fs::read_to_string(root().join("action/run.sh")).unwrap();
    let steps = action["runs"]["steps"].as_array().unwrap();
    let run = steps
        .iter()
        .find(|s| s["id"] == "run")
        .expect("a step with id run");
    let env = run["env"].as_object().unwrap();
    for (name, _) in env {
        assert!(
            script.contains(name.as_str()),
            "action.yml sets {name}, which run.sh never reads"
        );
    }
    for read in [
        "INPUT_PATHS",
        "INPUT_AGENT",
        "INPUT_BASELINE",
        "INPUT_HTML",
        "INPUT_ARGS",
        "INPUT_HISTORY_PATH",
    ] {
        assert!(
            env.contains_key(read),
            "run.sh reads {read}, which action.yml does not set"
        );
    }
    for (name, output) in action["outputs"].as_object().unwrap() {
        let value = output["value"].as_str().unwrap();
        assert_eq!(value, format!("${{{{ steps.run.outputs.{name} }}}}"));
        assert!(
            script.contains(&format!("echo \"{name}=")) || script.contains(&format!("\"{name}=")),
            "run.sh never writes {name}"
        );
    }
    for (name, _) in action["inputs"].as_object().unwrap() {
        assert!(
            text.contains(&format!("inputs.{name}")),
            "input {name} is declared but never used"
        );
    }
}

/// The workspace with a scenario whose name has a space in it.
fn with_two_words(dir: &Path) {
    std::fs::write(
        dir.join("scenarios/two_words.yaml"),
        PASSING.replace("name: passes", "name: two words"),
    )
    .unwrap();
}

#[test]
fn args_carry_quoted_words_and_nothing_in_them_runs() {
    let dir = workspace();
    with_two_words(dir.path());
    // One quoted argument holding a space, a second line, and a command
    // substitution that must stay text.
    let args = "--filter 'two words'\n--filter \"$(touch ran)\"";
    let (out, outputs) = run_action(dir.path(), &[("PATHS", "scenarios/"), ("ARGS", args)]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        outputs.get("exit-code").map(String::as_str),
        Some("0"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("--filter two\\ words"), "{stdout}");
    assert!(
        !dir.path().join("ran").exists(),
        "a word was run as a command"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&outputs["json"]).unwrap()).unwrap();
    let names: Vec<&str> = report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["two words"]);
}

#[test]
fn args_with_an_unmatched_quote_are_refused() {
    let dir = workspace();
    let (out, outputs) = run_action(dir.path(), &[("ARGS", "--filter 'two words")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(outputs.is_empty(), "{outputs:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the 'args' input is not valid shell words"),
        "{stderr}"
    );
}

/// `action/cache-key.sh` over `source` as the action's checkout at `reference`.
fn cache_key(source: &Path, reference: &str) -> String {
    let outputs = source.join("github-output");
    let _ = std::fs::remove_file(&outputs);
    let out = support::command("bash")
        .arg(root().join("action/cache-key.sh"))
        .env("GITHUB_ACTION_PATH", source)
        .env("GITHUB_ACTION_REF", reference)
        .env("GITHUB_OUTPUT", &outputs)
        .env("AGENT_EVAL_TOOLCHAIN", "1.95")
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_ARCH", "X64")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read_to_string(&outputs).unwrap();
    written.trim().strip_prefix("key=").unwrap().to_string()
}

#[test]
fn the_binary_cache_key_moves_with_the_sources_under_one_ref() {
    let source = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(source.path().join("src")).unwrap();
    for file in ["Cargo.toml", "Cargo.lock", "src/main.rs"] {
        std::fs::write(source.path().join(file), file).unwrap();
    }
    let first = cache_key(source.path(), "main");
    assert!(
        first.starts_with("agent-eval-bin-Linux-X64-rust1.95-main-"),
        "{first}"
    );
    assert_eq!(
        cache_key(source.path(), "main"),
        first,
        "stable for the same sources"
    );
    // `@main` moved on: the same ref, other sources, another key.
    std::fs::write(source.path().join("src/main.rs"), "changed").unwrap();
    let moved = cache_key(source.path(), "main");
    assert_ne!(moved, first);
    // A ref's `/` does not reach the key.
    assert!(cache_key(source.path(), "feature/x").contains("-feature_x-"));
}

/// `action/comment.sh` with a stand-in `gh` that logs its arguments and
/// answers the comment lookup with `existing` (a comment id, or nothing).
fn comment(dir: &Path, head_repo: &str, existing: &str) -> (Output, String) {
    let bin = dir.join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = dir.join("gh.log");
    let _ = std::fs::remove_file(&log);
    let gh = format!(
        "#!/usr/bin/env bash\nprintf '%s\\n' \"$*\" >> '{}'\nif [ \"$3\" = --paginate ] || [ \"$2\" = --paginate ]; then printf '%s' '{existing}'; fi\n",
        log.display()
    );
    std::fs::write(bin.join("gh"), gh).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("gh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let body = dir.join("summary.md");
    std::fs::write(&body, "# agent-eval\n").unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = support::command("bash")
        .arg(root().join("action/comment.sh"))
        .env("PATH", path)
        .env("RUNNER_TEMP", dir)
        .env("COMMENT_BODY", &body)
        .env("PR_NUMBER", "7")
        .env("GITHUB_REPOSITORY", "me/repo")
        .env("HEAD_REPO", head_repo)
        .output()
        .unwrap();
    (out, std::fs::read_to_string(&log).unwrap_or_default())
}

#[test]
fn the_pull_request_comment_is_updated_in_place_and_skipped_for_forks() {
    let dir = tempfile::tempdir().unwrap();
    let (out, calls) = comment(dir.path(), "me/repo", "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        calls.contains("--method POST repos/me/repo/issues/7/comments"),
        "{calls}"
    );
    let posted = std::fs::read_to_string(dir.path().join("agent-eval-comment.md")).unwrap();
    assert!(
        posted.starts_with("<!-- agent-eval summary -->\n# agent-eval"),
        "{posted}"
    );
    // A later push finds the marked comment and edits it.
    let (out, calls) = comment(dir.path(), "me/repo", "42");
    assert!(out.status.success());
    assert!(
        calls.contains("--method PATCH repos/me/repo/issues/comments/42"),
        "{calls}"
    );
    assert!(!calls.contains("POST"), "{calls}");
    // From a fork: no call at all, a notice, and success (the gate still runs).
    let (out, calls) = comment(dir.path(), "someone/fork", "");
    assert!(out.status.success());
    assert_eq!(calls, "");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("::notice"));
}
