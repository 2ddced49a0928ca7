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
fn a_job_summary_that_is_a_fifo_is_refused_not_waited_on() {
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
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("$GITHUB_STEP_SUMMARY names a FIFO, not a regular file"),
        "{stderr}"
    );
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

/// The spellings of foreign text at a line start: plain, after blanks the
/// runner trims, after a carriage return, after the characters some
/// readers break lines at (U+2028, U+2029, NEL, vertical tab, form feed),
/// and after invisible characters (zero-width space, bidi override, BOM).
const SPELLINGS: [&str; 14] = [
    "::stop-commands::s0",
    "  ::error::s1",
    "\t::error::s2",
    "a\r::error::s3",
    "a\u{2028}::error::s4",
    "a\u{2029}::error::s5",
    "a\u{85}::error::s6",
    "a\u{b}::error::s7",
    "a\u{c}::error::s8",
    "\u{200b}::error::s9",
    "\u{202e}::error::s10",
    "\u{feff}::error::s11",
    "\u{a0}::error::s12",
    "\u{200e}\u{3000}::error::s13",
];

/// Characters a reader may skip at a line start.
fn blank(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}')
}

/// Every line start of both streams, lines broken at every character some
/// reader breaks at, that is a command once blanks are skipped, other than
/// agent-eval's own annotations (which start their line plainly).
fn foreign_commands(out: &Output) -> Vec<String> {
    let breaks = [
        '\n', '\r', '\u{b}', '\u{c}', '\u{85}', '\u{2028}', '\u{2029}',
    ];
    let mut found = Vec::new();
    for stream in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(stream);
        for line in text.split(breaks) {
            let own = line.starts_with("::error file=")
                || line.starts_with("::error title=")
                || line.starts_with("::warning ");
            if !own && line.trim_start_matches(blank).starts_with("::") {
                found.push(line.to_string());
            }
            assert!(!line.contains("##["), "legacy command form: {line:?}");
        }
    }
    found
}

fn assert_no_foreign_commands(what: &str, out: &Output) {
    let found = foreign_commands(out);
    assert!(
        found.is_empty(),
        "{what}: foreign text starts a command line: {found:?}\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every subcommand, every spelling: in scenario names, tasks, step texts,
/// the model's words, file and folder names, and arguments clap quotes.
#[test]
fn no_spelling_of_foreign_text_starts_a_command_line_in_any_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let scenarios = d.join("sc");
    std::fs::create_dir(&scenarios).unwrap();
    for (i, spelling) in SPELLINGS.iter().enumerate() {
        let quoted = serde_json::to_string(spelling).unwrap();
        let text = format!(
            "name: {quoted}\ntask: {quoted}\nsteps:\n  - text: {quoted}\n    check: {{file: a, exists: true}}\nmodel:\n  script:\n    - text: {quoted}\nexpect:\n  - turns: 2\n"
        );
        std::fs::write(scenarios.join(format!("s{i}.yaml")), text).unwrap();
        // A bad file whose name is the spelling: its error quotes it.
        std::fs::write(d.join(format!("{spelling}.yaml")), "name: [\n").unwrap();
    }
    let all: &[&str] = &[
        "run",
        "sc",
        "--json",
        "a.json",
        "--history",
        "h.db",
        "--log-dir",
        "logs",
        "--verbose",
        "--steps",
        "--markdown",
        "m.md",
    ];
    let run = on_github(d, all);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    assert_no_foreign_commands("run", &run);
    let mut commands: Vec<Vec<String>> = [
        &["run", "sc", "--list"][..],
        &["run", "sc", "-q"],
        &["check", "sc"],
        &["merge", "a.json"],
        &["history", "h.db"],
        &["diff", "a.json", "a.json"],
        &["calibrate", "logs"],
    ]
    .iter()
    .map(|args| args.iter().map(|a| a.to_string()).collect())
    .collect();
    for (i, spelling) in SPELLINGS.iter().enumerate() {
        let file = format!("sc/s{i}.yaml");
        commands.push(vec!["replay".into(), file.clone()]);
        commands.push(vec!["sweep".into(), file, "--seeds".into(), "1".into()]);
        commands.push(vec!["check".into(), format!("{spelling}.yaml")]);
        commands.push(vec!["run".into(), format!("{spelling}.yaml")]);
        commands.push(vec!["serve".into(), format!("{spelling}.yaml")]);
        commands.push(vec!["init".into(), format!("init{i}/{spelling}")]);
        commands.push(vec![
            "run".into(),
            "sc".into(),
            "--seeds".into(),
            spelling.to_string(),
        ]);
        commands.push(vec![
            "run".into(),
            "sc".into(),
            "--filter".into(),
            spelling.to_string(),
        ]);
    }
    for args in &commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = on_github(d, &args);
        assert_no_foreign_commands(&format!("{args:?}"), &out);
    }
}
