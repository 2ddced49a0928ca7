//! `run --keep-transcripts DIR`: a preset's CLI writes its own session
//! transcripts into the run's throwaway HOME (Claude Code
//! `~/.claude/projects/<dir>/<session>.jsonl`, Codex
//! `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`); before the workspace
//! is deleted, every `*.jsonl` below the preset's transcript folder is
//! copied to `DIR/<scenario>/<cell>/seed-<n>/`, keeping its path below that
//! folder. `agent-eval calibrate` reads them back.
//!
//! Symbolic links are not followed (the agent wrote the folder: it could
//! point anywhere), and nothing but `*.jsonl` files is copied.

use std::io;
use std::path::{Path, PathBuf};

use crate::scenario::cells::Cell;

/// Copies the transcripts the run left in `workspace`'s `transcript_dir`
/// into the run's folder under `keep_dir`; returns how many files.
pub fn keep(
    workspace: &Path,
    transcript_dir: &str,
    keep_dir: &Path,
    run: (&str, &Cell, u64),
) -> io::Result<usize> {
    let (scenario, cell, seed) = run;
    let from = workspace.join(transcript_dir);
    let to = run_folder(keep_dir, scenario, cell, seed);
    let mut files = Vec::new();
    collect_jsonl(&from, &mut files)?;
    files.sort();
    for file in &files {
        let Ok(relative) = file.strip_prefix(&from) else {
            continue;
        };
        let target = to.join(relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::copy(file, &target)?;
    }
    Ok(files.len())
}

/// `DIR/<scenario>/<cell>/seed-<n>`, each name made safe for a file name
/// (`<cell>` is the cell's settings, `todo-true`, or `default` with none).
pub fn run_folder(keep_dir: &Path, scenario: &str, cell: &Cell, seed: u64) -> PathBuf {
    let settings: Vec<String> = cell
        .settings
        .entries()
        .iter()
        .map(|(axis, value)| format!("{}-{value}", axis.name()))
        .collect();
    let cell_name = if settings.is_empty() {
        "default".to_string()
    } else {
        settings.join("-")
    };
    keep_dir
        .join(safe_name(scenario))
        .join(safe_name(&cell_name))
        .join(format!("seed-{seed}"))
}

/// `text` made safe for a file name (`_` when nothing is left).
fn safe_name(text: &str) -> String {
    let name = crate::input::file_stem(text);
    if name.is_empty() { "_".into() } else { name }
}

/// Every `*.jsonl` file below `dir` (none when it does not exist), links
/// not followed.
fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let kind = entry.file_type()?;
        let path = entry.path();
        if kind.is_dir() {
            collect_jsonl(&path, out)?;
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_safe_for_a_file_name() {
        assert_eq!(safe_name("../a b/c"), "_a_b_c");
        assert_eq!(safe_name(""), "_");
        assert_eq!(safe_name("agent-x_1.2"), "agent-x_1.2");
    }

    #[test]
    fn a_runs_folder_is_named_by_scenario_cell_and_seed() {
        let scenario = crate::scenario::load_str(
            Path::new("t.yaml"),
            "task: t\nsteps: [{text: a}]\nmodel: {script: [{text: done}]}\nruns: {todo: [true, false]}\n",
        )
        .unwrap();
        let cells = crate::scenario::cells::cells(&scenario);
        let folder = run_folder(Path::new("/k"), "my scenario", &cells[1], 4);
        assert_eq!(folder, Path::new("/k/my_scenario/todo-false/seed-4"));
    }

    #[test]
    fn only_jsonl_files_are_copied_and_links_are_not_followed() {
        let workspace = tempfile::tempdir().unwrap();
        let projects = workspace.path().join("home/projects/-w");
        std::fs::create_dir_all(&projects).unwrap();
        std::fs::write(projects.join("s.jsonl"), "{}\n").unwrap();
        std::fs::write(projects.join("notes.txt"), "x").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.jsonl"), "{}\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), projects.join("link")).unwrap();
        let keep_dir = tempfile::tempdir().unwrap();
        let scenario = crate::scenario::load_str(
            Path::new("t.yaml"),
            "task: t\nsteps: [{text: a}]\nmodel: {script: [{text: done}]}\n",
        )
        .unwrap();
        let cell = Cell::of_agent(&scenario);
        let copied = keep(
            workspace.path(),
            "home/projects",
            keep_dir.path(),
            ("s 1", &cell, 3),
        )
        .unwrap();
        assert_eq!(copied, 1);
        let folder = run_folder(keep_dir.path(), "s 1", &cell, 3);
        assert!(
            folder.starts_with(keep_dir.path().join("s_1")),
            "{folder:?}"
        );
        assert!(folder.ends_with("seed-3"), "{folder:?}");
        let kept = folder.join("-w/s.jsonl");
        assert_eq!(std::fs::read_to_string(kept).unwrap(), "{}\n");
        assert!(!folder.join("-w/link").exists());
    }
}
