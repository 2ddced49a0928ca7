//! The CLI as a new user meets it: listing, filtering, fail-fast, exit
//! statuses, per-step rates, run logs with replay commands that show the
//! same run again, `check`'s dry run, and write errors.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

fn agent_eval(args: &[&str]) -> Output {
    support::agent_eval_command()
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn both(out: &Output) -> String {
    format!("{}{}", text(&out.stdout), text(&out.stderr))
}

/// Writes `body` as a scenario file in `dir`.
fn scenario(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

/// A simulated scenario with two steps the model can finish, a `nag`
/// axis and an expectation that fails (no run completes 3 steps of 2).
const SIMULATED: &str = r#"
name: two-steps
task: "Write a.txt then b.txt."
steps:
  - id: 1
    text: Write a.txt
    check: {file: a.txt, contains: "A"}
    do:
      - {tool: write_file, input: {path: a.txt, content: "A"}}
  - id: 2
    text: Write b.txt
    check: {file: b.txt, contains: "B"}
    do:
      - {tool: write_file, input: {path: b.txt, content: "B"}}
model:
  simulate: {}
runs:
  nag_threshold: [2, "off"]
  seeds: 6
expect:
  - mean_steps_completed: {at_least: 2.5}
"#;

#[test]
fn list_says_what_would_run_without_running() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "s.yaml", SIMULATED);
    let out = agent_eval(&["run", "--list", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("two-steps") && stdout.contains("2 scored steps"),
        "{stdout}"
    );
    assert!(stdout.contains("6 seeds (0..5)"), "{stdout}");
    assert!(
        stdout.contains("nag=2") && stdout.contains("nag=off"),
        "{stdout}"
    );
    assert!(stdout.contains("(nothing was run)"), "{stdout}");
}

#[test]
fn filters_ignore_case_combine_and_negate() {
    let list = |filters: &[&str]| {
        let mut args = vec!["run", "--list", "scenarios/scripted"];
        for f in filters {
            args.extend(["--filter", f]);
        }
        let out = agent_eval(&args);
        (out.status.code(), text(&out.stdout))
    };
    let (code, stdout) = list(&["REMINDER"]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("reminder-append") && stdout.contains("reminder-prepend"));
    assert!(stdout.contains("2 scenarios"), "{stdout}");
    let (_, stdout) = list(&["reminder,guards", "!prepend"]);
    assert!(stdout.contains("reminder-append") && stdout.contains("workspace-and-command-guards"));
    assert!(!stdout.contains("reminder-prepend"), "{stdout}");
    assert!(stdout.contains("2 scenarios"), "{stdout}");
    let (_, stdout) = list(&["!reminder"]);
    assert!(!stdout.contains("reminder-"), "{stdout}");
}

#[test]
fn no_scenario_found_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["run", "check"] {
        let out = agent_eval(&[command, dir.path().to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(3), "{command}: {}", both(&out));
        assert!(text(&out.stderr).contains("no scenario files found"));
    }
    let out = agent_eval(&["run", "scenarios/scripted", "--filter", "no-such-name"]);
    assert_eq!(out.status.code(), Some(3), "{}", both(&out));
    assert!(text(&out.stderr).contains("no scenario matches --filter no-such-name"));
}

#[test]
fn a_failure_is_printed_once_with_its_replay_commands_and_they_show_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "s.yaml", SIMULATED);
    let logs = dir.path().join("logs");
    let json = dir.path().join("r.json");
    let out = agent_eval(&[
        "run",
        file.to_str().unwrap(),
        "--log-dir",
        logs.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--steps",
        "--jobs",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout.matches("mean_steps_completed >= 2.5").count(),
        1,
        "printed once: {stdout}"
    );
    assert!(
        stdout.contains("1 scenario, 1 expectation: 1 failed"),
        "{stdout}"
    );
    assert!(stdout.contains("#1 Write a.txt"), "--steps: {stdout}");
    // The JSON names the runs to replay under the failed expectation.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let expectation = &report["scenarios"][0]["expectations"][0];
    let replays: Vec<&str> = expectation["replay"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(!replays.is_empty() && replays.len() <= 3, "{replays:?}");
    for command in &replays {
        assert!(stdout.contains(command), "{command} is printed: {stdout}");
    }
    let cell = &report["scenarios"][0]["cells"][0];
    let rates = cell["step_rates"].as_array().unwrap();
    assert_eq!(rates.len(), 2);
    assert_eq!(rates[0]["id"], "1");
    assert_eq!(rates[0]["text"], "Write a.txt");
    // The log: one line per run, in run order (cells, then seeds).
    let log = std::fs::read_to_string(logs.join("two-steps.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 12);
    let order: Vec<(String, u64)> = records
        .iter()
        .map(|r| (r["settings"].to_string(), r["seed"].as_u64().unwrap()))
        .collect();
    let expected: Vec<(String, u64)> = [
        r#"{"todo":true,"nag_threshold":2}"#,
        r#"{"todo":true,"nag_threshold":"off"}"#,
    ]
    .iter()
    .flat_map(|s| (0..6).map(move |seed| (s.to_string(), seed)))
    .collect();
    assert_eq!(order, expected);
    // The plan as it changed, read through the dialect: items with statuses.
    let plans: Vec<&serde_json::Value> = records
        .iter()
        .flat_map(|r| r["plans"].as_array().unwrap())
        .collect();
    assert!(!plans.is_empty(), "some run used the todo tool");
    for plan in &plans {
        assert!(plan["turn"].as_u64().is_some_and(|t| t >= 1));
        for item in plan["items"].as_array().unwrap() {
            assert!(
                item["status"].is_string() && item["text"].is_string(),
                "{item}"
            );
        }
    }
    for record in &records {
        assert_eq!(record["scenario"], "two-steps");
        assert!(record["messages"].as_array().is_some_and(|m| !m.is_empty()));
        assert!(record["plans"].is_array());
    }
    // Each replay command shows exactly the logged run.
    for command in replays.iter().take(2) {
        let args: Vec<&str> = command.split(' ').skip(1).collect();
        let seed: u64 = args
            .iter()
            .skip_while(|a| **a != "--seed")
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let mut replay_args = args.clone();
        replay_args.extend(["--format", "json"]);
        let out = agent_eval(&replay_args);
        assert_eq!(out.status.code(), Some(0), "{command}: {}", both(&out));
        let replayed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let logged = records
            .iter()
            .find(|r| r["replay"] == *command)
            .unwrap_or_else(|| panic!("{command} names a logged run"));
        assert_eq!(logged["seed"], seed);
        assert_eq!(replayed["metrics"], logged["metrics"], "{command}");
        assert_eq!(replayed["messages"], logged["messages"], "{command}");
    }
}

#[test]
fn run_logs_do_not_depend_on_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "s.yaml", SIMULATED);
    let log_of = |jobs: &str| {
        let logs = dir.path().join(format!("logs-{jobs}"));
        let out = agent_eval(&[
            "run",
            file.to_str().unwrap(),
            "--log-dir",
            logs.to_str().unwrap(),
            "--jobs",
            jobs,
            "-q",
        ]);
        assert_eq!(out.status.code(), Some(1), "{}", both(&out));
        std::fs::read(logs.join("two-steps.jsonl")).unwrap()
    };
    assert_eq!(log_of("1"), log_of("4"));
}

#[test]
fn fail_fast_starts_no_scenario_after_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    scenario(dir.path(), "a_fails.yaml", SIMULATED);
    scenario(
        dir.path(),
        "b_later.yaml",
        &SIMULATED.replace("name: two-steps", "name: later"),
    );
    let out = agent_eval(&["run", dir.path().to_str().unwrap(), "--fail-fast"]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("--fail-fast: 1 scenario not run: later"),
        "{stdout}"
    );
    assert!(!stdout.contains("later ("), "no table for it: {stdout}");
    let out = agent_eval(&["run", dir.path().to_str().unwrap()]);
    assert!(text(&out.stdout).contains("later ("));
}

#[test]
fn check_dry_runs_the_steps_and_checks_selectors() {
    let dir = tempfile::tempdir().unwrap();
    let good = scenario(dir.path(), "good.yaml", SIMULATED);
    let out = agent_eval(&["check", good.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(text(&out.stdout).contains("2 steps, 2 cells, 1 expectation\n"));

    // Step 2's `do` writes the wrong text: the model can never finish it.
    let broken = scenario(
        dir.path(),
        "broken.yaml",
        &SIMULATED.replace("content: \"B\"", "content: \"C\""),
    );
    let out = agent_eval(&["check", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("FAIL"), "{stdout}");
    assert!(
        stdout.contains("step #2: its check (b.txt contains \"B\") does not hold"),
        "{stdout}"
    );
    assert!(!stdout.contains("step #1:"), "{stdout}");

    // A `where` that matches no cell.
    let selector = scenario(
        dir.path(),
        "where.yaml",
        &SIMULATED.replace(
            "  - mean_steps_completed: {at_least: 2.5}",
            "  - completion_rate: {at_least: 0.5}\n    where: {nag_threshold: 7}",
        ),
    );
    let out = agent_eval(&["check", selector.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(
        text(&out.stdout).contains("matches no cell of the matrix"),
        "{}",
        both(&out)
    );

    // Warnings do not fail: a step without a check, a scripted scenario
    // with several seeds.
    let warned = scenario(
        dir.path(),
        "warned.yaml",
        r#"
name: warned
task: "Nothing."
steps:
  - id: 1
    text: Think
model:
  script:
    - text: "done"
runs:
  seeds: 3
"#,
    );
    let out = agent_eval(&["check", warned.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("0 steps (+1 without a check)"), "{stdout}");
    assert!(stdout.contains("warning: step #1 has no check"), "{stdout}");
    assert!(
        stdout.contains("warning: a scripted model answers the same"),
        "{stdout}"
    );
}

#[test]
fn check_and_run_agree_on_the_step_count() {
    let check = text(&agent_eval(&["check", "scenarios/scripted/guards.yaml"]).stdout);
    let list = text(&agent_eval(&["run", "--list", "scenarios/scripted/guards.yaml"]).stdout);
    let count = |text: &str, marker: &str| -> String {
        let at = text.find(marker).unwrap();
        text[..at].rsplit([' ', '(']).next().unwrap().to_string()
    };
    assert_eq!(count(&check, " step"), count(&list, " scored step"));
}

#[test]
fn replay_and_check_report_write_errors() {
    if !Path::new("/dev/full").exists() {
        support::skip_unless_required("no /dev/full here");
        return;
    }
    for args in [
        &["replay", "scenarios/scripted/guards.yaml"][..],
        &["check", "scenarios/scripted/guards.yaml"][..],
        &["run", "scenarios/scripted/guards.yaml"][..],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = support::agent_eval_command()
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(text(&out.stderr).contains("error:"), "{args:?}");
    }
}

#[test]
fn replay_labels_the_step_checks() {
    let out = agent_eval(&["replay", "scenarios/scripted/guards.yaml"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("── step checks ──"));
    assert!(!text(&out.stdout).contains("── result ──"));
}

#[test]
fn replay_set_reaches_any_axis() {
    let out = agent_eval(&[
        "replay",
        "scenarios/scripted/reminder_prepend.yaml",
        "--set",
        "placement=append",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let replay: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(replay["metrics"]["protocol_violations"], 0);
    let out = agent_eval(&[
        "replay",
        "scenarios/scripted/guards.yaml",
        "--set",
        "colour=red",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn every_argument_has_help_and_every_command_an_example() {
    for command in [
        "run",
        "replay",
        "sweep",
        "merge",
        "diff",
        "serve",
        "check",
        "init",
        "completions",
    ] {
        let out = agent_eval(&[command, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{command}");
        let help = text(&out.stdout);
        assert!(help.contains("Example"), "{command}: {help}");
        // An argument line without a description ends right after its
        // name (clap prints the description on the same line or below).
        let bare: Vec<&str> = help
            .lines()
            .zip(help.lines().skip(1).chain(std::iter::once("")))
            .filter(|(line, next)| {
                let trimmed = line.trim_start();
                (trimmed.starts_with('-') || trimmed.starts_with('<') || trimmed.starts_with('['))
                    && !trimmed.starts_with("[default")
                    && !trimmed.starts_with("[possible")
                    && line.starts_with("  ")
                    && !trimmed.contains("  ")
                    && !next.starts_with("          ")
            })
            .map(|(line, _)| line)
            .collect();
        assert!(bare.is_empty(), "{command}: undocumented {bare:?}");
    }
}

/// An empty `--agent` is bad input (exit 2, says why), not a run of
/// `sh -c ''` that fails every expectation as a broken agent.
#[test]
fn an_empty_agent_command_is_refused() {
    for command in ["run", "replay"] {
        for agent in ["", "  "] {
            let out = agent_eval(&[
                command,
                "scenarios/scripted/max_turns.yaml",
                "--agent",
                agent,
            ]);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{command} {agent:?}: {}",
                both(&out)
            );
            assert!(
                both(&out).contains("the agent command is empty"),
                "{}",
                both(&out)
            );
        }
    }
}

/// The CI gate as a person reads it: every shipped scenario passes, so
/// each is one line and the whole output fits a screen; `--verbose` shows
/// the tables; `-q` only the closing line.
#[test]
fn a_passing_gate_fits_a_screen_and_verbose_shows_the_rest() {
    let out = agent_eval(&[
        "run",
        "scenarios/scripted/",
        "scenarios/simulated/docs_fixes.yaml",
        "--seeds",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let stdout = text(&out.stdout);
    assert!(stdout.lines().count() < 40, "{stdout}");
    assert!(
        stdout.contains("ok   docs-fixes (scenarios/simulated/docs_fixes.yaml): 3 cells, 9 runs, 2 expectations held\n"),
        "{stdout}"
    );
    assert!(
        !stdout.contains('│'),
        "no table for a passing scenario of several: {stdout}"
    );
    let verbose = agent_eval(&[
        "run",
        "scenarios/scripted/no_todo.yaml",
        "scenarios/simulated/docs_fixes.yaml",
        "--seeds",
        "3",
        "--verbose",
    ]);
    let verbose = text(&verbose.stdout);
    assert!(verbose.contains("│ runs │"), "{verbose}");
    assert!(
        verbose.contains("discordant pairs"),
        "every comparison: {verbose}"
    );
    let quiet = agent_eval(&[
        "run",
        "scenarios/simulated/docs_fixes.yaml",
        "--seeds",
        "3",
        "-q",
    ]);
    assert_eq!(text(&quiet.stdout).lines().count(), 1, "{}", both(&quiet));
}

/// One scenario: its table and what differs; comparisons that do not
/// differ are counted, not listed, and measurements read in their unit.
#[test]
fn one_scenario_leads_with_what_differs_in_one_number_format() {
    let out = agent_eval(&["run", "scenarios/dialects.yaml", "--seeds", "6"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("dialects (scenarios/dialects.yaml): 37 cells, 222 runs\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("planning calls"),
        "the README's column: {stdout}"
    );
    assert!(
        stdout.contains("comparisons differ (paired by seed"),
        "{stdout}"
    );
    assert!(stdout.contains("    no difference: "), "{stdout}");
    assert!(!stdout.contains("+0.0 pts [+0.0, +0.0]"), "{stdout}");
    // Brief in words: the table's rows aside (a table wider than 120
    // columns is split in two, each led by the settings), a screenful.
    let words = stdout
        .lines()
        .filter(|l| !l.starts_with(['│', '╭', '├', '╰']))
        .count();
    assert!(words < 30, "{stdout}");
    // No raw float: a difference of rates in points, a rate in percent.
    let verbose = text(
        &agent_eval(&[
            "run",
            "scenarios/dialects.yaml",
            "--seeds",
            "6",
            "-v",
            "--steps",
        ])
        .stdout,
    );
    // 37 cells, 10 steps: the per-step table has a row per cell, not a
    // column, and the steps' texts under it.
    assert!(verbose.contains("│ cell "), "{verbose}");
    assert!(
        verbose.contains("\n  #10 Use an f-string for the total line\n"),
        "{verbose}"
    );
    // A line over 120 columns is wrapped: read it whole.
    let verbose = verbose.replace("\n       ", " ");
    let measured: Vec<&str> = verbose
        .lines()
        .filter_map(|l| l.split(": measured ").nth(1))
        .collect();
    assert!(measured.len() >= 10, "{verbose}");
    for value in measured {
        let raw = value.starts_with("0.") || value.contains("e-");
        assert!(!raw, "a raw float: {value}");
    }
    assert!(verbose.contains("completion_rate_diff >= 0.2"), "{verbose}");
    assert!(
        verbose
            .lines()
            .any(|l| l.contains("completion_rate_diff") && l.ends_with(" pts")),
        "{verbose}"
    );
    assert!(
        verbose
            .lines()
            .any(|l| l.contains("completion_rate <=") && l.ends_with('%')),
        "{verbose}"
    );
}

/// `--seeds` below what a scenario's statistical expectations were written for is
/// said, naming the file and the counts; at the scenario's own seeds, or for a
/// scenario with exact expectations only, nothing is said.
#[test]
fn fewer_seeds_than_the_expectations_were_written_for_is_warned_about() {
    let out = agent_eval(&[
        "run",
        "scenarios/simulated/docs_fixes.yaml",
        "--seeds",
        "3",
        "-q",
    ]);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("warning: scenarios/simulated/docs_fixes.yaml: --seeds 3 is below the ")
            && stderr.contains("statistical expectation"),
        "{}",
        both(&out)
    );
    let scripted = agent_eval(&[
        "run",
        "scenarios/scripted/max_turns.yaml",
        "--seeds",
        "1",
        "-q",
    ]);
    assert!(
        !text(&scripted.stderr).contains("warning"),
        "{}",
        both(&scripted)
    );
}

/// `history --scenario TEXT` (alias `--filter`) matches names containing TEXT, as
/// `--filter` does elsewhere.
#[test]
fn history_scenario_matches_substrings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    assert!(agent_eval(&["init", root]).status.success());
    let db = dir.path().join("h.db");
    let db = db.to_str().unwrap();
    let scenarios = format!("{root}/scenarios");
    assert!(
        agent_eval(&["run", &scenarios, "-q", "--history", db])
            .status
            .success()
    );
    for flag in ["--scenario", "--filter"] {
        let out = agent_eval(&["history", db, flag, "simul"]);
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{}", both(&out));
        assert!(
            stdout.contains("greet-simulated") && !stdout.contains("greet-scripted"),
            "{stdout}"
        );
    }
    let none = agent_eval(&["history", db, "--scenario", "nothing-like-it"]);
    assert_eq!(none.status.code(), Some(2));
}
