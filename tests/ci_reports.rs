//! What CI relies on: JUnit that parses, byte-identical shard merges, a
//! baseline gate that catches a doctored baseline, atomic reports, clean
//! Ctrl-C, no progress or colour when not on a terminal.

use crate::support;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    let mut command = support::agent_eval_command();
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

fn agent_eval(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

/// A small matrix: every scripted scenario and one simulated one.
const SCENARIOS: [&str; 2] = ["scenarios/scripted", "scenarios/simulated/docs_fixes.yaml"];

fn run_with(extra: &[&str]) -> Output {
    let mut args = vec!["run"];
    args.extend(SCENARIOS);
    args.extend(["--seeds", "5", "--quiet"]);
    args.extend(extra);
    agent_eval(&args)
}

#[test]
fn junit_parses_and_carries_failures() {
    let dir = tempfile::tempdir().unwrap();
    let failing = dir.path().join("failing.yaml");
    std::fs::write(
        &failing,
        "task: t\nmodel:\n  script:\n    - text: done\nexpect:\n  - turns: 2\n  - stop: end_turn\n",
    )
    .unwrap();
    let xml = path(dir.path(), "report.xml");
    let out = agent_eval(&[
        "run",
        "scenarios/scripted/max_turns.yaml",
        &failing.to_string_lossy(),
        "--junit",
        &xml,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc_text = std::fs::read_to_string(&xml).unwrap();
    let doc = roxmltree::Document::parse(&doc_text).unwrap();
    let suites: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 2);
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(
        cases.len(),
        5 + 3,
        "one case per expectation plus one per scenario"
    );
    let failures: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .collect();
    assert_eq!(failures.len(), 1);
    let message = failures[0].attribute("message").unwrap();
    assert!(
        message.contains("expected turns == 2, measured 1"),
        "{message}"
    );
    assert!(!doc_text.contains("timestamp"));
    // Byte-stable: the same run gives the same file.
    let again = path(dir.path(), "again.xml");
    agent_eval(&[
        "run",
        "scenarios/scripted/max_turns.yaml",
        &failing.to_string_lossy(),
        "--junit",
        &again,
    ]);
    assert_eq!(doc_text, std::fs::read_to_string(&again).unwrap());
}

#[test]
fn merged_shards_equal_the_single_run_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let full = path(dir.path(), "full.json");
    assert_eq!(run_with(&["--json", &full]).status.code(), Some(0));
    let mut shards = Vec::new();
    for k in 1..=3 {
        let shard = path(dir.path(), &format!("shard{k}.json"));
        let out = run_with(&[
            "--shard",
            &format!("{k}/3"),
            "--json",
            &shard,
            "--jobs",
            "1",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&shard).unwrap()).unwrap();
        assert_eq!(report["ok"], false, "a shard is never a complete report");
        assert_eq!(report["shard"], format!("{k}/3"));
        shards.push(shard);
    }
    // Shard order on the command line does not matter.
    let merged = agent_eval(&["merge", &shards[2], &shards[0], &shards[1]]);
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
    assert_eq!(
        text(&merged.stdout),
        std::fs::read_to_string(&full).unwrap()
    );

    for bad in [
        vec![&shards[0], &shards[1]],
        vec![&shards[0], &shards[0], &shards[1], &shards[2]],
        vec![&full],
    ] {
        let mut args = vec!["merge"];
        args.extend(bad.iter().map(|s| s.as_str()));
        let out = agent_eval(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains("cannot merge"),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn shards_are_balanced_and_disjoint() {
    let dir = tempfile::tempdir().unwrap();
    let mut counts = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for k in 1..=4 {
        let shard = path(dir.path(), &format!("s{k}.json"));
        run_with(&["--shard", &format!("{k}/4"), "--json", &shard]);
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&shard).unwrap()).unwrap();
        let mut count = 0;
        for scenario in report["scenarios"].as_array().unwrap() {
            for (c, cell) in scenario["cells"].as_array().unwrap().iter().enumerate() {
                for run in cell["results"].as_array().unwrap() {
                    count += 1;
                    let key = (
                        scenario["name"].to_string(),
                        c,
                        run["seed"].as_u64().unwrap(),
                    );
                    assert!(seen.insert(key), "a unit ran in two shards");
                }
            }
        }
        counts.push(count);
    }
    let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
    assert!(max - min <= 1, "{counts:?}");
}

#[test]
fn a_doctored_baseline_fails_the_gate_and_a_true_one_passes() {
    let dir = tempfile::tempdir().unwrap();
    let base = path(dir.path(), "base.json");
    assert_eq!(run_with(&["--json", &base]).status.code(), Some(0));
    let out = run_with(&["--baseline", &base]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("0 regressed"));

    let mut report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    let cell = &mut report["scenarios"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|s| s["name"] == "docs-fixes")
        .unwrap()["cells"][2];
    cell["completion_rate"] = serde_json::json!(0.99);
    cell["full_completion_rate"] = serde_json::json!(0.99);
    let doctored = path(dir.path(), "doctored.json");
    std::fs::write(&doctored, serde_json::to_string(&report).unwrap()).unwrap();
    let out = run_with(&["--baseline", &doctored]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("REGRESSED") && stdout.contains("docs-fixes"),
        "{stdout}"
    );
    // A huge tolerance forgives it; diff reports the same.
    assert_eq!(
        run_with(&["--baseline", &doctored, "--tolerance", "1"])
            .status
            .code(),
        Some(0)
    );
    let diff = agent_eval(&["diff", &doctored, &base]);
    assert_eq!(diff.status.code(), Some(1));
    assert!(text(&diff.stdout).contains("REGRESSED"));
    assert_eq!(
        agent_eval(&["diff", &base, &doctored]).status.code(),
        Some(0),
        "improvements do not fail"
    );
    assert_eq!(
        agent_eval(&["diff", &base, "no/such.json"]).status.code(),
        Some(2)
    );
}

#[test]
fn reports_are_written_whole_and_readable() {
    let dir = tempfile::tempdir().unwrap();
    let (json, md) = (path(dir.path(), "r.json"), path(dir.path(), "summary.md"));
    let out = agent_eval(&[
        "run",
        "scenarios/scripted",
        "--json",
        &json,
        "--markdown",
        &md,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let names: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(names.len(), 2, "no temporary files left: {names:?}");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&json).unwrap().permissions().mode() & 0o777,
        0o644
    );
    let summary = std::fs::read_to_string(&md).unwrap();
    assert!(
        summary.starts_with("# agent-eval\n\n**✅ passed**"),
        "{summary}"
    );
    // One row per scenario, then its figures, folded.
    assert!(
        summary.contains(
            "| ✅ | ten-step-refactor-scripted | `scenarios/scripted/ten_step_refactor.yaml` |"
        ),
        "{summary}"
    );
    assert!(
        summary.contains("**ten-step-refactor-scripted**"),
        "{summary}"
    );
    // Not a terminal: no progress bar on stderr (a line as each scenario
    // ends instead), no colour on stdout.
    let stderr = text(&out.stderr);
    assert!(
        stderr
            .lines()
            .all(|l| l.starts_with('[') && l.contains("] ended: ")),
        "{stderr}"
    );
    assert!(
        !stderr.contains('\r') && !stderr.contains('\x1b'),
        "{stderr}"
    );
    assert!(!text(&out.stdout).contains('\x1b'));
}

/// Whether process `pid` has a child, on any of its threads.
fn has_children(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|task| {
        std::fs::read_to_string(task.path().join("children")).is_ok_and(|c| !c.trim().is_empty())
    })
}

#[test]
fn ctrl_c_stops_cleanly_without_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let json = path(dir.path(), "r.json");
    let mut child = bin()
        .args(["run", "tests/data/slow/sleepy.yaml", "--json", &json])
        .env("TMPDIR", &tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the run's workspace exists and its `sleep 100` runs
    // (agent-eval has a child process), then interrupt.
    let start = Instant::now();
    let running = support::wait_for(Duration::from_secs(20), || {
        std::fs::read_dir(&tmp).unwrap().next().is_some() && has_children(child.id())
    });
    assert!(running, "the run never started its command");
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "Ctrl-C did not stop the run promptly"
    );
    assert_eq!(status.code(), Some(130));
    assert!(!Path::new(&json).exists(), "no report after an interrupt");
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "workspaces left behind: {left:?}");
}

#[test]
fn sweep_writes_a_table_json_and_an_svg_chart() {
    let dir = tempfile::tempdir().unwrap();
    let (svg, json) = (
        path(dir.path(), "sweep.svg"),
        path(dir.path(), "sweep.json"),
    );
    let out = agent_eval(&[
        "sweep",
        "scenarios/simulated/docs_fixes.yaml",
        "--thresholds",
        "1,3,off",
        "--seeds",
        "8",
        "--svg",
        &svg,
        "--json",
        &json,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("best threshold: "), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["with_todo"].as_array().unwrap().len(), 3);
    assert_eq!(report["without_todo"]["settings"]["todo"], false);
    let chart = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&chart).unwrap();
    let texts: Vec<&str> = doc
        .descendants()
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    for label in [
        "docs-fixes: completion vs tokens, by nag threshold",
        "with todo tool, by nag threshold",
        "context tokens per run (the cost)",
        "off",
    ] {
        assert!(texts.contains(&label), "missing {label:?}");
    }
    for bad in [
        vec![
            "sweep",
            "scenarios/simulated/docs_fixes.yaml",
            "--thresholds",
            "0",
        ],
        vec!["sweep", "tests/data/bad/no_task.yaml"],
    ] {
        assert_eq!(agent_eval(&bad).status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn a_report_on_stdout_keeps_stdout_machine_readable() {
    let out = agent_eval(&["run", "scenarios/scripted/max_turns.yaml", "--json", "-"]);
    assert_eq!(out.status.code(), Some(0));
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("stdout is the JSON report alone");
    assert_eq!(report["ok"], true);
    assert!(
        text(&out.stderr).contains("max-turns-cutoff"),
        "the tables moved to stderr"
    );
    assert_eq!(
        agent_eval(&["run", "scenarios/scripted", "--json", "-", "--junit", "-"])
            .status
            .code(),
        Some(2)
    );
}

/// A scenario whose name and step text hold a table border, a line break,
/// an HTML comment opener, tags and control characters: the Markdown
/// summary keeps its table and hides nothing, and the sweep chart is still
/// valid XML.
#[test]
fn hostile_names_are_escaped_in_markdown_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string("scenarios/simulated/docs_fixes.yaml").unwrap();
    let hostile = source
        .replace(
            "name: docs-fixes",
            r#"name: "docs|x\n<!-- hide \x07\e[31m <b>bold</b> [l](http://x)""#,
        )
        .replace(
            r#"text: "Fix the install command""#,
            r#"text: "Fix | the <i>install</i>\n- command\x01""#,
        )
        // A failing scenario's summary shows its per-step table too.
        .replace("expect:\n", "expect:\n  - turns: 100000\n");
    let scenario = path(dir.path(), "hostile.yaml");
    std::fs::write(&scenario, hostile).unwrap();
    let markdown = path(dir.path(), "summary.md");
    let out = agent_eval(&["run", &scenario, "--seeds", "2", "--markdown", &markdown]);
    assert!(
        matches!(out.status.code(), Some(1)),
        "{}",
        text(&out.stderr)
    );
    let summary = std::fs::read_to_string(&markdown).unwrap();
    assert!(!summary.contains("<!--"), "{summary}");
    assert!(
        !summary.contains("<b>") && !summary.contains("<i>"),
        "{summary}"
    );
    assert!(
        !summary.chars().any(|c| c.is_control() && c != '\n'),
        "{summary}"
    );
    assert!(
        summary.contains("### docs\\|x &lt;\\!--") || summary.contains("### docs\\|x &lt;!--"),
        "{summary}"
    );
    // Every row of the step table has the header's number of cells.
    let rows: Vec<&str> = summary
        .lines()
        .skip_while(|l| !l.starts_with("| step |"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(rows.len(), 8, "{summary}");
    let cells = |row: &str| row.replace("\\|", "").matches('|').count();
    assert!(rows.iter().all(|r| cells(r) == cells(rows[0])), "{rows:?}");

    let svg = path(dir.path(), "chart.svg");
    let out = agent_eval(&[
        "sweep",
        &scenario,
        "--thresholds",
        "1,off",
        "--seeds",
        "2",
        "--svg",
        &svg,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let chart = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&chart).unwrap();
    assert!(
        doc.descendants()
            .filter_map(|n| n.text())
            .any(|t| t.contains("docs|x") && t.contains("<b>bold</b>")),
        "{chart}"
    );
}
