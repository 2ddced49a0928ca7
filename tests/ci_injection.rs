//! Inside GitHub Actions no line agent-eval prints may be a workflow
//! command it did not mean: a scenario named `::stop-commands::x`, a model
//! that answers `::error::forged`, a transcript file named like a command,
//! seen through every command that prints them (run, merge, history,
//! replay, check, sweep, calibrate). The only commands that reach the
//! runner are agent-eval's own annotations. Also: the job summary and the
//! Code Quality report never land on a file the command reads, and a job
//! summary that is a FIFO does not block.

// The helpers these tests do not use (tools that may be missing).
#[allow(dead_code)]
use std::path::Path;
use std::process::Output;

use crate::support::{self, agent_eval_command};

/// A failing scenario whose name and model text are workflow commands.
const HOSTILE: &str = "name: \"::stop-commands::x\"\ntask: \"::warning::in the task\"\nmodel:\n  script:\n    - text: \"::error::forged\\n  ::add-mask::y\\r::notice::z ##[error]legacy\"\nexpect:\n  - turns: 2\n";

fn on_github(dir: &Path, args: &[&str]) -> Output {
    agent_eval_command()
        .args(args)
        .current_dir(dir)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_WORKSPACE", dir)
        .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
        .output()
        .expect("the binary runs")
}

/// Every line (ending at `\n` or `\r`, as the runner splits them) of both
/// streams that the runner would obey.
fn commands(out: &Output) -> Vec<String> {
    let mut found = Vec::new();
    for stream in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(stream);
        for line in text.split(['\n', '\r']) {
            if line.trim_start().starts_with("::") || line.contains("##[") {
                found.push(line.to_string());
            }
        }
    }
    found
}

/// The commands printed are agent-eval's own annotations only, and the
/// foreign text was printed (shown, not obeyed).
fn assert_only_own_commands(what: &str, out: &Output, shown: &str) {
    for line in commands(out) {
        assert!(
            line.starts_with("::error file=") || line.starts_with("::error title="),
            "{what}: a foreign line reaches the runner as a command: {line:?}"
        );
    }
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(all.contains(shown), "{what}: {shown:?} not shown in {all}");
}

#[test]
fn foreign_text_never_starts_a_command_line_in_any_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("hostile.yaml"), HOSTILE).unwrap();
    let run = on_github(d, &["run", "hostile.yaml", "--history", "h.db"]);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    assert_only_own_commands("run", &run, "::stop-commands::x");
    let shard = on_github(
        d,
        &[
            "run",
            "hostile.yaml",
            "--shard",
            "1/1",
            "--json",
            "shard.json",
        ],
    );
    assert_eq!(shard.status.code(), Some(0), "{shard:?}");
    let quiet = on_github(d, &["run", "hostile.yaml", "--verbose", "--no-annotations"]);
    assert_only_own_commands("run --verbose", &quiet, "::stop-commands::x");
    let merge = on_github(d, &["merge", "shard.json"]);
    assert_only_own_commands("merge", &merge, "::stop-commands::x");
    let history = on_github(d, &["history", "h.db"]);
    assert_only_own_commands("history", &history, "::stop-commands::x");
    let replay = on_github(d, &["replay", "hostile.yaml"]);
    assert_only_own_commands("replay", &replay, "::error::forged");
    let check = on_github(d, &["check", "hostile.yaml"]);
    assert_only_own_commands("check", &check, "::stop-commands::x");
    // A transcript named like a command: calibrate names it at the start
    // of its skip lines.
    std::fs::write(d.join("::error::named.jsonl"), "not json\n").unwrap();
    let calibrate = on_github(d, &["calibrate", "::error::named.jsonl"]);
    assert_only_own_commands("calibrate", &calibrate, "::error::named.jsonl");
    // A bad scenario file whose error quotes its name.
    std::fs::write(d.join("::error::bad.yaml"), "name: [\n").unwrap();
    let bad = on_github(d, &["check", "::error::bad.yaml"]);
    assert_only_own_commands("check of a bad file", &bad, "::error::bad.yaml");
}

#[test]
fn the_own_annotations_still_reach_the_runner() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hostile.yaml"), HOSTILE).unwrap();
    let out = on_github(dir.path(), &["run", "hostile.yaml"]);
    let own: Vec<String> = commands(&out)
        .into_iter()
        .filter(|l| l.starts_with("::error file=hostile.yaml,line=7,"))
        .collect();
    assert_eq!(own.len(), 1, "{out:?}");
    // Outside GitHub Actions nothing is changed: the model's words as said.
    let plain = agent_eval_command()
        .args(["replay", "hostile.yaml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&plain.stdout)
            .lines()
            .any(|l| l.trim_start().starts_with("::add-mask::y")),
        "{plain:?}"
    );
}

#[test]
fn a_job_summary_that_is_a_fifo_is_refused_with_a_warning_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("passing.yaml"),
        "name: p\ntask: t\nmodel:\n  script:\n    - text: done\n",
    )
    .unwrap();
    let fifo = d.join("summary.fifo");
    let status = support::command("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    // No reader ever opens the FIFO: a blocking open would hang here.
    let out = agent_eval_command()
        .args(["run", "passing.yaml"])
        .current_dir(d)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &fifo)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a regular file"), "{stderr}");
}

#[test]
fn the_job_summary_and_code_quality_never_land_on_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("hostile.yaml"), HOSTILE).unwrap();
    let run = agent_eval_command()
        .args([
            "run",
            "hostile.yaml",
            "--json",
            "shard.json",
            "--history",
            "h.db",
        ])
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let before = |name: &str| std::fs::read(d.join(name)).unwrap();
    let (scenario, shard, history) = (before("hostile.yaml"), before("shard.json"), before("h.db"));
    let refused = |args: &[&str], summary: &str| {
        let out = agent_eval_command()
            .args(args)
            .current_dir(d)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_STEP_SUMMARY", d.join(summary))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?} {summary}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("would overwrite"));
    };
    refused(&["run", "hostile.yaml"], "hostile.yaml");
    refused(&["run", "hostile.yaml", "--history", "h.db"], "./h.db");
    refused(
        &["run", "hostile.yaml", "--baseline", "shard.json"],
        "shard.json",
    );
    refused(&["merge", "shard.json"], "shard.json");
    refused(&["merge", "shard.json", "--history", "h.db"], "h.db");
    refused(
        &["run", "hostile.yaml", "--codequality", "hostile.yaml"],
        "s.md",
    );
    refused(
        &[
            "run",
            "hostile.yaml",
            "--history",
            "h.db",
            "--codequality",
            "h.db",
        ],
        "s.md",
    );
    refused(
        &["merge", "shard.json", "--codequality", "./shard.json"],
        "s.md",
    );
    assert_eq!(before("hostile.yaml"), scenario);
    assert_eq!(before("shard.json"), shard);
    assert_eq!(before("h.db"), history);
}
