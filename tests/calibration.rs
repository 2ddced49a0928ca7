//! Calibration recovers what it can of the simulated model's parameters
//! from transcripts written while the simulated model drove an agent with
//! KNOWN parameters: each measured parameter's 95% interval holds its true
//! value, and a fitted one is recovered or reported not identified.
//!
//! The data source is a function from known parameters to a folder of
//! transcripts ([`Source`]): today `agent-eval run --log-dir` on a
//! simulated scenario; a real CLI's transcripts (Claude Code, Codex, under
//! `run --keep-transcripts`) are one more entry of [`sources`].

use crate::support;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Known parameters, as a scenario's `simulate:` writes them.
struct Known {
    plan_first: f64,
    todo_update_rate: f64,
    reminder_compliance: f64,
    /// The default (420) unless set.
    attention_span: f64,
    /// Runs written, and simulated runs per point of the fit.
    runs: u32,
    simulated_runs: u32,
    /// Whether to check the measured parameters too.
    check_measured: bool,
}

impl Known {
    fn planner(plan_first: f64, todo_update_rate: f64, reminder_compliance: f64) -> Self {
        Self {
            plan_first,
            todo_update_rate,
            reminder_compliance,
            attention_span: 420.0,
            // 160: half of them train, and `reminder_compliance` then rests
            // on about 180 reminded turns. At 80 it rested on about 80,
            // with a last answer left open counted as part of a chance (the
            // fitted model's share of early stops), and one split in a few
            // read the reluctant planner's 0.2 just outside its interval.
            runs: 160,
            simulated_runs: 16,
            check_measured: true,
        }
    }

    fn yaml(&self) -> String {
        format!(
            "{{plan_first: {}, todo_update_rate: {}, reminder_compliance: {}, attention_span: {}}}",
            self.plan_first, self.todo_update_rate, self.reminder_compliance, self.attention_span
        )
    }
}

/// Writes transcripts of runs with `known` parameters under `dir`; returns
/// the folder to calibrate on.
type Source = fn(&Known, &Path) -> PathBuf;

fn sources() -> Vec<(&'static str, Source)> {
    vec![("run-log", run_logs)]
}

/// The binary, with the CI engines' variables cleared so it behaves the
/// same inside GitHub Actions.
fn agent_eval() -> Command {
    support::agent_eval_command()
}

/// A task of eight steps, each reading a file and writing one.
fn scenario(known: &Known, seeds: u32) -> String {
    let mut text = String::from(
        "name: known\ntask: |\n  Do eight steps.\nworkspace:\n  files:\n    input.txt: \"",
    );
    text.push_str(&"x".repeat(300));
    text.push_str("\"\nsteps:\n");
    for i in 1..=8 {
        text.push_str(&format!(
            "  - text: \"Step {i}\"\n    check: {{file: \"out{i}.txt\", contains: \"done\"}}\n    do:\n      - {{tool: read_file, input: {{path: \"input.txt\"}}}}\n      - {{tool: write_file, input: {{path: \"out{i}.txt\", content: \"done\"}}}}\n"
        ));
    }
    text.push_str(&format!(
        "model:\n  simulate: {}\nruns:\n  seeds: {seeds}\n",
        known.yaml()
    ));
    text
}

fn run_logs(known: &Known, dir: &Path) -> PathBuf {
    let file = dir.join("known.yaml");
    std::fs::write(&file, scenario(known, known.runs)).unwrap();
    let logs = dir.join("logs");
    let status = agent_eval()
        .arg("run")
        .arg(&file)
        .arg("--log-dir")
        .arg(&logs)
        .arg("-q")
        .status()
        .unwrap();
    assert!(
        status.code().is_some_and(|c| c <= 1),
        "run failed: {status}"
    );
    logs
}

fn calibrate(logs: &Path, dir: &Path, simulated_runs: u32) -> Value {
    let json = dir.join("calibration.json");
    let output = agent_eval()
        .arg("calibrate")
        .arg(logs)
        .args(["--seed", "3", "--json"])
        .arg(&json)
        .arg("--out")
        .arg(dir.join("profile.yaml"))
        .arg("--simulated-runs")
        .arg(simulated_runs.to_string())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap()
}

fn param<'a>(result: &'a Value, name: &str) -> &'a Value {
    result["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap()
}

fn assert_measured(result: &Value, name: &str, truth: f64, source: &str) {
    let p = param(result, name);
    assert_eq!(p["source"], "measured", "{source}: {name}: {p}");
    let low = p["interval"][0].as_f64().unwrap();
    let high = p["interval"][1].as_f64().unwrap();
    assert!(
        low <= truth && truth <= high,
        "{source}: {name} = {truth} outside [{low}, {high}]: {p}"
    );
    assert!(p["n"].as_u64().unwrap() >= 20, "{source}: {name}: {p}");
}

/// A fitted parameter holds its true value in its interval; one not
/// identified keeps the assumed default and says why.
fn assert_fitted_or_not_identified(result: &Value, name: &str, truth: f64, source: &str) {
    let p = param(result, name);
    match p["source"].as_str().unwrap() {
        "fitted" => {
            let low = p["interval"][0].as_f64().unwrap();
            let high = p["interval"][1].as_f64().unwrap();
            assert!(
                low <= truth && truth <= high,
                "{source}: {name} = {truth} outside [{low}, {high}]: {p}"
            );
        }
        "assumed" => assert!(
            p["note"].as_str().unwrap().contains("not identified"),
            "{source}: {p}"
        ),
        other => panic!("{source}: {name} is {other}"),
    }
}

/// Calibrates the transcripts of every source; returns the results.
fn recovers(known: Known) -> Vec<Value> {
    let mut results = Vec::new();
    for (source, make) in sources() {
        let dir = tempfile::tempdir().unwrap();
        let logs = make(&known, dir.path());
        let result = calibrate(&logs, dir.path(), known.simulated_runs);
        if known.check_measured {
            assert_measured(&result, "plan_first", known.plan_first, source);
            assert_measured(&result, "todo_update_rate", known.todo_update_rate, source);
            assert_measured(
                &result,
                "reminder_compliance",
                known.reminder_compliance,
                source,
            );
            assert_measured(&result, "invalid_todo_rate", 0.05, source);
        }
        // The defaults the scenario left alone.
        for (name, truth) in [
            ("attention_span", known.attention_span),
            ("recall_floor", 0.05),
            ("stop_weight", 0.35),
            ("skip_weight", 0.4),
            ("sharpness", 4.0),
        ] {
            assert_fitted_or_not_identified(&result, name, truth, source);
        }
        // The profile is numbers only: no path of the inputs.
        let profile = std::fs::read_to_string(dir.path().join("profile.yaml")).unwrap();
        assert!(!profile.contains(dir.path().to_str().unwrap()), "{profile}");
        assert!(!profile.contains("Step "), "{profile}");
        results.push(result);
    }
    results
}

#[test]
fn recovers_a_reluctant_planner() {
    recovers(Known::planner(0.3, 0.05, 0.2));
}

#[test]
fn recovers_an_eager_planner() {
    recovers(Known::planner(0.9, 0.3, 0.9));
}

/// A short attention span drifts often enough for the data to pin it
/// down: it must be fitted, its interval holding the true value. (The
/// measured parameters are the tests above'; here the model drifts into
/// many early stops, and `todo_update_rate` reads a little low — the
/// simulated model never plans in its closing answer, which counts as a
/// chance; docs/calibration.md.)
#[test]
fn recovers_a_short_attention_span() {
    let known = Known {
        attention_span: 150.0,
        runs: 160,
        simulated_runs: 40,
        check_measured: false,
        ..Known::planner(0.9, 0.05, 0.9)
    };
    for result in recovers(known) {
        let p = param(&result, "attention_span");
        assert_eq!(p["source"], "fitted", "{p}");
    }
}

#[test]
fn no_session_is_exit_2_and_bad_lines_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("garbage.jsonl");
    std::fs::write(
        &file,
        b"{\"not\": \"a run\"}\n\x00\x01binary\n{\"truncated\": ",
    )
    .unwrap();
    let output = agent_eval()
        .arg("calibrate")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Line 1 is JSON but of no known format (the file is named as such),
    // line 2 is binary garbage, line 3 is cut short.
    assert!(stderr.contains("garbage.jsonl:2: not-json"), "{stderr}");
    assert!(stderr.contains("garbage.jsonl:3: truncated"), "{stderr}");
    assert!(stderr.contains("garbage.jsonl: unknown-format"), "{stderr}");
    assert!(stderr.contains("no session"), "{stderr}");
}

/// A scenario under a profile: the path is relative to the scenario, the
/// parameters written beside it win, reports name the profile and its
/// hash, and a bad profile is refused at its file and line.
#[test]
fn scenarios_run_under_a_profile() {
    let dir = tempfile::tempdir().unwrap();
    let profiles = dir.path().join("profiles");
    std::fs::create_dir(&profiles).unwrap();
    let profile = "version: 1\nparams:\n  plan_first: {value: 0.0, n: 10, source: measured}\n  todo_update_rate: {value: 0.0, n: 10, source: measured}\n  reminder_compliance: {value: 0.0, n: 10, source: measured}\nfitted_on: {files: 1, sessions: 2, parts: 2, turns: 9, inputs_hash: ab}\n";
    std::fs::write(profiles.join("p.yaml"), profile).unwrap();
    let known = Known::planner(1.0, 0.0, 0.0);
    // The file writes plan_first itself: it plans on turn 1 whatever the
    // profile says; the profile keeps it from ever planning again.
    let text = scenario(&known, 3).replace(
        "simulate: {plan_first: 1, todo_update_rate: 0, reminder_compliance: 0, attention_span: 420}",
        "simulate: {profile: profiles/p.yaml, plan_first: 1}",
    );
    assert!(text.contains("profiles/p.yaml"), "{text}");
    let file = dir.path().join("s.yaml");
    std::fs::write(&file, &text).unwrap();
    let json = dir.path().join("r.json");
    let output = agent_eval()
        .arg("run")
        .arg(&file)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("profile p.yaml (sha256 "), "{stdout}");
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let scenario = &report["scenarios"][0];
    assert_eq!(scenario["profile"]["file"], "p.yaml");
    assert_eq!(scenario["profile"]["sha256"].as_str().unwrap().len(), 64);
    let todo_cell = scenario["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["settings"]["todo"] == true)
        .unwrap();
    // One plan a run (turn 1), never another: 3 runs, 3 calls.
    assert_eq!(
        todo_cell["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["todo_calls"].as_u64().unwrap())
            .sum::<u64>(),
        3,
        "{todo_cell}"
    );

    std::fs::write(
        profiles.join("p.yaml"),
        profile.replace(
            "value: 0.0, n: 10, source: measured}\n  todo",
            "value: 3.0, n: 10, source: measured}\n  todo",
        ),
    )
    .unwrap();
    let output = agent_eval().arg("run").arg(&file).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stdout) + String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("p.yaml:3:"), "{stderr}");
}

/// A symlink loop is not followed, and bad lines beside good ones are
/// skipped and counted while the good sessions are calibrated.
#[test]
fn bad_lines_beside_good_ones_are_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let logs = run_logs(
        &Known {
            runs: 6,
            ..Known::planner(0.9, 0.2, 0.9)
        },
        dir.path(),
    );
    std::os::unix::fs::symlink(&logs, logs.join("loop")).unwrap();
    let log = logs.join("known.jsonl");
    let mut text = std::fs::read(&log).unwrap();
    text.extend_from_slice(
        b"\xff\xfe garbage\n{\"messages\": [], \"metrics\": {}, \"settings\": {}, \"deep\": ",
    );
    text.extend_from_slice(&b"[".repeat(10_000));
    std::fs::write(&log, text).unwrap();
    let json = dir.path().join("c.json");
    let output = agent_eval()
        .arg("calibrate")
        .arg(&logs)
        .args(["--simulated-runs", "4", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("known.jsonl:7:"), "{stderr}");
    assert!(stderr.contains("known.jsonl:8:"), "{stderr}");
    let result: Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    assert_eq!(result["inputs"]["bad"], 2);
    assert_eq!(result["inputs"]["sessions"], 6);
}

/// A Claude Code session (version 2.1.100, which records reminders) of
/// one task: a plan of three items, `work` turns of other calls each
/// followed by an update ticking one item, and a closing answer; a
/// reminder recorded before every turn in `reminded`.
fn claude_code_session(id: &str, work: usize, reminded: &[usize]) -> String {
    claude_code_version_session("2.1.100", id, (work, 0), reminded)
}

/// As [`claude_code_session`], of `version`, with `quiet` turns of other
/// calls only after the work.
fn claude_code_version_session(
    version: &str,
    id: &str,
    (work, quiet): (usize, usize),
    reminded: &[usize],
) -> String {
    let mut lines = Vec::new();
    let record = |kind: &str, body: serde_json::Value| {
        let mut value = serde_json::json!({"type": kind, "sessionId": id, "version": version});
        if let (Some(map), serde_json::Value::Object(body)) = (value.as_object_mut(), body) {
            map.extend(body);
        }
        value.to_string()
    };
    lines.push(record(
        "user",
        serde_json::json!({"message": {"role": "user", "content": "Do three things"}}),
    ));
    let statuses = |done: usize| -> Vec<serde_json::Value> {
        (0..3)
            .map(|i| {
                let status = if i < done { "completed" } else { "pending" };
                serde_json::json!({"content": format!("item {i}"), "status": status, "activeForm": "doing"})
            })
            .collect()
    };
    let mut turn = 0;
    let mut respond = |lines: &mut Vec<String>, tool: &str, input: serde_json::Value| {
        turn += 1;
        if reminded.contains(&turn) {
            lines.push(record(
                "attachment",
                serde_json::json!({"attachment": {"type": "todo_reminder", "content": []}}),
            ));
        }
        let call = format!("{id}-t{turn}");
        lines.push(record(
            "assistant",
            serde_json::json!({"message": {"id": format!("{id}-m{turn}"), "model": "claude-test",
            "usage": {"input_tokens": 1000 * turn, "output_tokens": 120},
            "content": [{"type": "tool_use", "id": call, "name": tool, "input": input}]}}),
        ));
        lines.push(record(
            "user",
            serde_json::json!({"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call, "content": "ok ".repeat(200)}]}}),
        ));
    };
    respond(
        &mut lines,
        "TodoWrite",
        serde_json::json!({"todos": statuses(0)}),
    );
    for step in 0..work {
        respond(&mut lines, "Bash", serde_json::json!({"command": "ls"}));
        respond(
            &mut lines,
            "TodoWrite",
            serde_json::json!({"todos": statuses((step + 1).min(3))}),
        );
    }
    for _ in 0..quiet {
        respond(&mut lines, "Bash", serde_json::json!({"command": "ls"}));
    }
    lines.push(record(
        "assistant",
        serde_json::json!({"message": {"id": format!("{id}-end"), "model": "claude-test",
        "content": [{"type": "text", "text": "Done."}]}}),
    ));
    lines.join("\n") + "\n"
}

fn calibrate_folder(folder: &Path, extra: &[&str]) -> (Value, String) {
    let json = folder.join("out.json");
    let output = agent_eval()
        .arg("calibrate")
        .arg(folder.join("projects"))
        .args(["--simulated-runs", "6", "--json"])
        .arg(&json)
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let result = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    (result, stderr + &stdout)
}

/// Sessions of one project folder are one group; a session copied to a
/// second place counts once, with a warning; the fit is tested as a whole.
#[test]
fn groups_duplicates_and_the_goodness_of_fit_test() {
    let dir = tempfile::tempdir().unwrap();
    let projects = dir.path().join("projects");
    for (project, name, work) in [
        ("p1", "a", 3),
        ("p1", "b", 2),
        ("p2", "c", 3),
        ("p3", "d", 1),
    ] {
        std::fs::create_dir_all(projects.join(project)).unwrap();
        std::fs::write(
            projects.join(project).join(format!("{name}.jsonl")),
            claude_code_session(name, work, &[2]),
        )
        .unwrap();
    }
    // The same file again, in a backup folder read after the original
    // (the first copy read is kept, in its own project).
    std::fs::create_dir_all(projects.join("zz-backup")).unwrap();
    std::fs::copy(
        projects.join("p1/a.jsonl"),
        projects.join("zz-backup/a.jsonl"),
    )
    .unwrap();
    let (result, printed) = calibrate_folder(dir.path(), &[]);
    assert!(
        printed.contains("warning: 1 session(s) read twice"),
        "{printed}"
    );
    assert_eq!(
        result["inputs"]["duplicates_dropped"], 1,
        "{}",
        result["inputs"]
    );
    assert_eq!(result["fitted_on"]["sessions"], 4);
    assert_eq!(result["fitted_on"]["duplicates_dropped"], 1);
    let groups = &result["inputs"]["groups"];
    assert_eq!(groups["by"], "project");
    assert_eq!(groups["count"], 3, "{groups}");
    assert_eq!(groups["sessions_alone"], false);
    assert!(
        printed.contains("groups: 3 (--group-by project)"),
        "{printed}"
    );
    // Three groups, a third held out: the held-out sessions are one
    // project's (one or two sessions), never a part of one.
    let held = result["inputs"]["held_out"].as_u64().unwrap();
    assert!(held == 1 || held == 2, "{}", result["inputs"]);
    let test = &result["goodness_of_fit"];
    assert!(test["statistic"].as_f64().unwrap() >= 0.0, "{test}");
    let df = test["df"].as_u64().unwrap();
    assert_eq!(
        df,
        test["moments"].as_u64().unwrap() - test["fitted"].as_u64().unwrap()
    );
    assert!(printed.contains("Goodness of fit: "), "{printed}");
    if test["fits"] == false {
        // A model that does not fit calls nothing fitted.
        assert!(printed.contains("does not fit these sessions"), "{printed}");
        for p in result["params"].as_array().unwrap() {
            assert_ne!(p["source"], "fitted", "{p}");
        }
    }
    let (result, _) = calibrate_folder(dir.path(), &["--group-by", "session"]);
    assert_eq!(result["inputs"]["groups"]["count"], 4);
}

/// Reminders recorded and inferred are counted apart; compliance is
/// measured on the recorded ones, and the inferred ones join only when
/// asked, with the rule's check on the recording sessions beside them.
#[test]
fn reminders_recorded_and_inferred_are_counted_apart() {
    let dir = tempfile::tempdir().unwrap();
    let projects = dir.path().join("projects");
    for i in 0..4 {
        let folder = projects.join(format!("p{i}"));
        std::fs::create_dir_all(&folder).unwrap();
        // 2.1.100 records a reminder before its 4th response.
        std::fs::write(
            folder.join("new.jsonl"),
            claude_code_version_session("2.1.100", &format!("n{i}"), (3, 12), &[4]),
        )
        .unwrap();
        // 2.0.50 records none: the policy infers one 10 blocks after the
        // last TodoWrite, in the quiet stretch.
        std::fs::write(
            folder.join("old.jsonl"),
            claude_code_version_session("2.0.50", &format!("o{i}"), (3, 12), &[]),
        )
        .unwrap();
    }
    let compliance = |result: &Value| param(result, "reminder_compliance").clone();
    let (result, printed) = calibrate_folder(dir.path(), &["--holdout", "0"]);
    let reminders = &result["reminders"];
    assert_eq!(reminders["recorded"], 4, "{reminders}");
    assert_eq!(reminders["inferred"], 4, "{reminders}");
    assert_eq!(reminders["counted"], "recorded");
    assert_eq!(result["fitted_on"]["reminders"]["inferred"], 4);
    let measured = compliance(&result);
    assert_eq!(measured["source"], "measured", "{measured}");
    assert_eq!(measured["n"], 4, "{measured}");
    assert!(
        printed.contains("reminders: 4 recorded, 4 inferred"),
        "{printed}"
    );
    // The rule, checked on the recording sessions: their reminder was on
    // turn 4, the rule says turn 18 (ten quiet blocks after the last plan).
    let check = &reminders["inference_check"];
    assert_eq!(check["recorded"], 4, "{check}");
    assert_eq!(check["hit_rate"], 0.0, "{check}");
    assert!(
        printed.contains("the inference rule, checked: on 4 session(s)"),
        "{printed}"
    );

    let (result, printed) = calibrate_folder(dir.path(), &["--holdout", "0", "--infer-reminders"]);
    let inferred = compliance(&result);
    assert_eq!(inferred["source"], "inferred", "{inferred}");
    assert_eq!(inferred["n"], 8, "{inferred}");
    assert!(
        inferred["note"].as_str().unwrap().contains("exact turn"),
        "{inferred}"
    );
    assert_eq!(result["reminders"]["counted"], "recorded and inferred");
    assert!(printed.contains("(source: inferred)"), "{printed}");
}

/// Fidelity output that cannot mislead: every row with its n on both
/// sides, a verdict about the observed data, "too few" never followed by
/// "nothing contradicted", shares as percentages, and HTML plots on axes
/// with ticks, each default beside its value.
#[test]
fn fidelity_output_names_its_n_and_concludes_nothing_from_too_few() {
    let dir = tempfile::tempdir().unwrap();
    let projects = dir.path().join("projects");
    for i in 0..3 {
        std::fs::create_dir_all(projects.join(format!("p{i}"))).unwrap();
        std::fs::write(
            projects.join(format!("p{i}/s.jsonl")),
            claude_code_session(&format!("s{i}"), 3, &[]),
        )
        .unwrap();
    }
    let html = dir.path().join("c.html");
    let (result, printed) = calibrate_folder(
        dir.path(),
        &["--holdout", "0", "--html", html.to_str().unwrap()],
    );
    let rows = result["fidelity"].as_array().unwrap();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["statistic"].as_str().unwrap())
        .collect();
    for name in [
        "turns before the first plan",
        "share of a session's turns that plan",
        "last plan left with open items",
    ] {
        assert!(names.contains(&name), "{names:?}");
    }
    let first = rows
        .iter()
        .find(|r| r["statistic"] == "turns before the first plan")
        .unwrap();
    // Three sessions: three first plans, too few to judge.
    assert_eq!(first["n_observed"], 3, "{first}");
    assert_eq!(first["verdict"], "too_few_observed");
    assert_eq!(first["verdict_text"], "too few observed (n = 3)");
    assert!(printed.contains("too few observed (n = 3)"), "{printed}");
    assert!(
        printed.contains("n obs") && printed.contains("n sim"),
        "{printed}"
    );
    assert!(
        printed.contains("Too few observations to judge: "),
        "{printed}"
    );
    assert!(
        !printed.contains("is contradicted by these sessions"),
        "{printed}"
    );
    assert!(!printed.contains("unfinished"), "{printed}");
    // A share reads as a percentage.
    assert!(printed.contains("50.0%"), "{printed}");
    let page = std::fs::read_to_string(html).unwrap();
    assert!(page.contains("<th>default</th>"), "default column");
    assert!(
        page.contains("share at or below") && page.contains("<line "),
        "axes"
    );
    assert!(!page.contains("Nothing."), "no conclusion from too few");
    let plan_first = param(&result, "plan_first");
    assert_eq!(plan_first["default"], 0.9, "{plan_first}");
}

/// A Claude Code session of `turns` responses by `model`: a TodoWrite on
/// the first, a Bash call on the others, each answered by its tool result.
fn claude_session(id: &str, model: &str, turns: usize) -> String {
    let head = format!(r#""sessionId":"{id}","version":"2.0.14","cwd":"/p","isSidechain":false"#);
    let mut lines = vec![format!(
        r#"{{{head},"type":"user","message":{{"role":"user","content":"Do it."}}}}"#
    )];
    for k in 0..turns {
        let tool = if k == 0 {
            r#""name":"TodoWrite","input":{"todos":[{"content":"a","status":"in_progress","activeForm":"A"}]}"#
        } else {
            r#""name":"Bash","input":{"command":"ls"}"#
        };
        lines.push(format!(
            r#"{{{head},"type":"assistant","message":{{"id":"m{k}","role":"assistant","model":"{model}","content":[{{"type":"tool_use","id":"t{k}",{tool}}}],"usage":{{"input_tokens":{},"output_tokens":50}}}}}}"#,
            1000 + 100 * k
        ));
        lines.push(format!(
            r#"{{{head},"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{k}","content":"ok"}}]}}}}"#
        ));
    }
    lines.join("\n") + "\n"
}

#[test]
fn by_model_writes_a_profile_per_family_with_enough_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("projects").join("p");
    std::fs::create_dir_all(&sessions).unwrap();
    // Two date stamps of one family (6 sessions), and a family of 2.
    for i in 0..6 {
        let model = if i % 2 == 0 {
            "claude-a-4-5-20250929"
        } else {
            "claude-a-4-5-20251001"
        };
        std::fs::write(
            sessions.join(format!("a{i}.jsonl")),
            claude_session(&format!("a{i}"), model, 6),
        )
        .unwrap();
    }
    for i in 0..2 {
        std::fs::write(
            sessions.join(format!("b{i}.jsonl")),
            claude_session(&format!("b{i}"), "glm-4.7", 6),
        )
        .unwrap();
    }
    let out = dir.path().join("profiles");
    let json = dir.path().join("by-model.json");
    let output = agent_eval()
        .args([
            "calibrate",
            "--by",
            "model",
            "--min-sessions",
            "4",
            "--simulated-runs",
            "2",
        ])
        .arg(&sessions)
        .arg("--out")
        .arg(&out)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("claude-a-4-5"), "{stdout}");
    assert!(
        stdout.contains("left out, fewer than 4 sessions: glm-4.7 (2)"),
        "{stdout}"
    );
    let written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(written, ["claude-a-4-5.yaml"]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let families = doc["families"].as_array().unwrap();
    assert_eq!(families.len(), 2);
    assert_eq!(families[0]["family"], "claude-a-4-5");
    assert_eq!(families[0]["sessions"], 6);
    assert_eq!(families[0]["profile"]["fitted_on"]["sessions"], 6);
    assert!(families[1]["profile"].is_null());
    // plan_first: every session planned on its first turn.
    assert_eq!(families[0]["profile"]["params"]["plan_first"]["value"], 1.0);
}
