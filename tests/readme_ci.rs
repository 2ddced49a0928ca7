//! The README's CI block ("Use in CI") run as written, read from the README
//! itself, in a clone of the shipped scenarios, both where it is meant to
//! run:
//! - on a simulated GitHub Actions runner: `GITHUB_ACTIONS=true` and
//!   `$GITHUB_STEP_SUMMARY` naming a file that already holds an earlier
//!   step's summary, which must survive, with exactly one agent-eval summary
//!   appended after it;
//! - anywhere else (no CI variable at all): it must exit 0 and leave its
//!   reports, the Markdown summary among them.
//!
//! The child inherits no CI engine's variable (`support::command`),
//! so the real CI engine's files are never read or written. Also checks the
//! block the README used to have, `--markdown "$GITHUB_STEP_SUMMARY"`: on the
//! runner it appends once (never wiping the earlier text), and where the
//! variable is empty it is refused with a message that says so.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

/// The earlier step's text the summary file holds before the block runs.
const EARLIER: &str = "## An earlier step\n\nits own summary, which must survive\n";

/// The commands of the first ```sh block after `## Use in CI`, with `\`
/// continuations joined.
fn ci_block() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let section = readme
        .split("\n## Use in CI\n")
        .nth(1)
        .expect("README has a `## Use in CI` section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the section has a ```sh block");
    block.replace("\\\n", " ")
}

/// A clone: the shipped scenarios and their fixtures, a `.git` folder.
fn clone() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for folder in ["scenarios", "fixtures"] {
        support::copy_tree(&repo.join(folder), &dir.path().join(folder));
    }
    std::fs::create_dir_all(dir.path().join(".git")).expect(".git");
    dir
}

/// `bash -c SCRIPT` in `dir` with `agent-eval` on PATH, no CI variable
/// inherited, and `vars` set.
fn bash(script: &str, dir: &Path, vars: &[(&str, &Path)]) -> Output {
    let bin: PathBuf = Path::new(env!("CARGO_BIN_EXE_agent-eval"))
        .parent()
        .expect("the binary's folder")
        .into();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = support::command("bash");
    command
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1");
    for (name, value) in vars {
        command.env(name, value);
    }
    command.output().expect("bash runs")
}

/// The block on a GitHub Actions runner whose job summary already holds an
/// earlier step's text.
fn on_runner(script: &str, dir: &Path) -> (Output, String) {
    let summary = dir.join("step-summary.md");
    std::fs::write(&summary, EARLIER).expect("earlier summary");
    let out = bash(
        script,
        dir,
        &[
            ("GITHUB_ACTIONS", Path::new("true")),
            ("GITHUB_WORKSPACE", dir),
            ("GITHUB_STEP_SUMMARY", &summary),
        ],
    );
    (out, std::fs::read_to_string(&summary).expect("summary"))
}

fn shown(out: &Output) -> String {
    format!(
        "status {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The earlier text first, then exactly one agent-eval summary.
fn assert_appended_once(summary: &str) {
    assert!(summary.starts_with(EARLIER), "{summary}");
    assert_eq!(summary.matches("# agent-eval\n").count(), 1, "{summary}");
    assert_eq!(summary.matches("**✅ passed**").count(), 1, "{summary}");
}

#[test]
fn the_readme_ci_block_on_a_github_runner_appends_one_summary() {
    let script = ci_block();
    let dir = clone();
    let (out, summary) = on_runner(&script, dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    assert_appended_once(&summary);
    for report in ["agent-eval.json", "agent-eval.xml", "agent-eval.md"] {
        assert!(dir.path().join(report).is_file(), "{report} not written");
    }
}

#[test]
fn the_readme_ci_block_elsewhere_writes_its_reports() {
    let script = ci_block();
    let dir = clone();
    let out = bash(&script, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    let markdown = std::fs::read_to_string(dir.path().join("agent-eval.md")).expect("summary");
    assert!(
        markdown.starts_with("# agent-eval\n\n**✅ passed**"),
        "{markdown}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("::error"));
}

/// The block as the README used to write it, naming the job summary file.
const OLD_BLOCK: &str =
    "agent-eval run scenarios/scripted/ --json agent-eval.json --markdown \"$GITHUB_STEP_SUMMARY\"";

#[test]
fn markdown_naming_the_step_summary_is_appended_once_never_replacing_it() {
    let dir = clone();
    let (out, summary) = on_runner(OLD_BLOCK, dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    assert_appended_once(&summary);
    // Also when the automatic summary is turned off: the file is the job's.
    let (out, summary) = on_runner(&format!("{OLD_BLOCK} --no-step-summary"), dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    assert_appended_once(&summary);
}

#[test]
fn an_empty_markdown_path_is_refused_saying_why() {
    let dir = clone();
    let out = bash(OLD_BLOCK, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", shown(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--markdown") && stderr.contains("the path is empty"),
        "{stderr}"
    );
    assert!(!dir.path().join("agent-eval.json").exists());
}
