//! Where no output may land, for every command and every output flag: a
//! FIFO (opening one nobody reads would block for ever), a device other
//! than `/dev/null`, one of the command's own inputs (scenario, baseline,
//! shard report, history database, transcripts read), or a symbolic link
//! to any of these. Each is refused before anything runs, exit 2, and
//! nothing is written; `/dev/null` stays a place to throw a report away.

use std::path::Path;
use std::process::Output;

use crate::support;

const PASSING: &str = "name: p\ntask: t\nmodel:\n  script:\n    - text: done\n";

fn agent_eval(dir: &Path, args: &[&str], summary: Option<&str>) -> Output {
    let mut command = support::agent_eval_command();
    command.args(args).current_dir(dir);
    if let Some(summary) = summary {
        command
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_STEP_SUMMARY", dir.join(summary));
    }
    command.output().expect("the binary runs")
}

fn mkfifo(path: &Path) {
    let status = support::command("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

/// A folder with a scenario, its JSON report, a history, run logs, a FIFO
/// and links to each kind of target.
fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("p.yaml"), PASSING).unwrap();
    let args = [
        "run",
        "p.yaml",
        "--json",
        "a.json",
        "--history",
        "h.db",
        "--log-dir",
        "logs",
    ];
    let made = agent_eval(d, &args, None);
    assert_eq!(made.status.code(), Some(0), "{made:?}");
    mkfifo(&d.join("ff"));
    let link = |target: &str, name: &str| std::os::unix::fs::symlink(target, d.join(name)).unwrap();
    link("ff", "to-fifo");
    link("/dev/full", "to-device");
    link("p.yaml", "to-scenario");
    link("a.json", "to-report");
    link("h.db", "to-history");
    link("logs/p.jsonl", "to-log");
    dir
}

fn assert_refused(d: &Path, args: &[&str], summary: Option<&str>, before: &[(&str, Vec<u8>)]) {
    let out = agent_eval(d, args, summary);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?} summary={summary:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (name, bytes) in before {
        assert_eq!(
            &std::fs::read(d.join(name)).unwrap(),
            bytes,
            "{args:?}: {name} changed"
        );
    }
}

#[test]
fn no_output_lands_on_a_fifo_a_device_or_an_input() {
    let dir = setup();
    let d = dir.path();
    let inputs = ["p.yaml", "a.json", "h.db", "logs/p.jsonl"];
    let before: Vec<(&str, Vec<u8>)> = inputs
        .iter()
        .map(|n| (*n, std::fs::read(d.join(n)).unwrap()))
        .collect();
    let special = ["ff", "to-fifo", "/dev/full", "to-device"];
    let mut cases: Vec<Vec<String>> = Vec::new();
    let case = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    for target in special
        .iter()
        .chain(&["p.yaml", "to-scenario", "h.db", "to-history"])
    {
        for flag in ["--json", "--html", "--junit", "--markdown", "--codequality"] {
            cases.push(case(&["run", "p.yaml", "--history", "h.db", flag, target]));
        }
    }
    for target in special.iter().chain(&["p.yaml", "to-scenario"]) {
        cases.push(case(&["sweep", "p.yaml", "--json", target]));
        cases.push(case(&["sweep", "p.yaml", "--html", target]));
    }
    for target in special.iter().chain(&["a.json", "to-report", "h.db"]) {
        for flag in ["--json", "--junit", "--markdown", "--html", "--codequality"] {
            cases.push(case(&[
                "merge",
                "a.json",
                "--history",
                "h.db",
                flag,
                target,
            ]));
        }
    }
    for target in special.iter().chain(&["a.json", "to-report"]) {
        cases.push(case(&[
            "run",
            "p.yaml",
            "--baseline",
            "a.json",
            "--json",
            target,
        ]));
    }
    for target in special.iter().chain(&["h.db", "to-history"]) {
        cases.push(case(&["history", "h.db", "--svg", target]));
        cases.push(case(&["history", "h.db", "--html", target]));
    }
    for target in special {
        cases.push(case(&["run", "p.yaml", "--history", target]));
    }
    for target in special.iter().chain(&["logs/p.jsonl", "to-log"]) {
        for flag in ["--out", "--json", "--html"] {
            cases.push(case(&["calibrate", "logs", flag, target]));
        }
    }
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_refused(d, &args, None, &before);
    }
    // The job summary, from the runner's environment.
    for summary in special.iter().chain(&["p.yaml", "to-scenario", "h.db"]) {
        let summary = summary.trim_start_matches('/');
        let summary = if summary.starts_with("dev/") {
            "to-device"
        } else {
            summary
        };
        assert_refused(
            d,
            &["run", "p.yaml", "--history", "h.db"],
            Some(summary),
            &before,
        );
    }
    // A run log that would land on a FIFO or, through a link, on the scenario.
    for (name, make) in [("fifo", true), ("link", false)] {
        let logs = d.join(format!("logs-{name}"));
        std::fs::create_dir(&logs).unwrap();
        if make {
            mkfifo(&logs.join("p.jsonl"));
        } else {
            std::os::unix::fs::symlink("../p.yaml", logs.join("p.jsonl")).unwrap();
        }
        let dir_arg = format!("logs-{name}");
        assert_refused(d, &["run", "p.yaml", "--log-dir", &dir_arg], None, &before);
    }
    // The one device a report may name: it keeps nothing.
    let thrown = agent_eval(d, &["run", "p.yaml", "--json", "/dev/null"], None);
    assert_eq!(thrown.status.code(), Some(0), "{thrown:?}");
}
