//! Which files a command line names (folders expand to their `*.yaml` /
//! `*.yml`, sorted) and loading them all at once: each file once, each
//! scenario name once, a bad file costing only itself.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Component, Path, PathBuf};

use super::error::LoadError;
use super::load;
use crate::scenario::Scenario;

/// Expands files and folders into scenario files: a file is taken as it
/// is; a folder gives every `*.yaml` / `*.yml` below it, in sorted path order.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LoadError> {
    let mut files = Vec::new();
    for path in paths {
        let meta = fs::metadata(path)
            .map_err(|e| LoadError::new(path, None, format!("cannot read: {e}")))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found)?;
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

pub(super) fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), LoadError> {
    let entries = fs::read_dir(dir)
        .map_err(|e| LoadError::new(dir, None, format!("cannot read folder: {e}")))?;
    for entry in entries {
        let entry =
            entry.map_err(|e| LoadError::new(dir, None, format!("cannot read folder: {e}")))?;
        let path = entry.path();
        let file_type = entry
            .file_type()
            .map_err(|e| LoadError::new(&path, None, format!("cannot read: {e}")))?;
        if file_type.is_dir() {
            walk(&path, found)?;
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) {
            found.push(path);
        }
    }
    Ok(())
}

/// Loads every scenario the paths name (files, or folders via [`discover`]),
/// and returns them with the errors of the rest: a bad file costs only
/// itself. A file named twice — `x.yaml` and `./x.yaml`, or through its
/// folder and by name — is loaded once (files are told apart by their
/// canonical path); a scenario whose name another file already uses is an
/// error (reports, baselines and shards key on it).
/// Stops early, with what it has, when a process-wide cancellation is
/// requested ([`crate::cancel::requested`]): callers check it after.
pub fn load_all(paths: &[PathBuf]) -> (Vec<Scenario>, Vec<LoadError>) {
    let mut scenarios: Vec<Scenario> = Vec::new();
    let mut errors = Vec::new();
    let mut seen_files: BTreeSet<PathBuf> = BTreeSet::new();
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    for path in paths {
        let files = match discover(std::slice::from_ref(path)) {
            Ok(files) => files,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        for file in files {
            // Ctrl-C / SIGTERM while loading thousands of files: stop here;
            // the caller sees the request and reports the interruption.
            if crate::cancel::requested() {
                return (scenarios, errors);
            }
            let identity = fs::canonicalize(&file).unwrap_or_else(|_| tidy(&file));
            if !seen_files.insert(identity) {
                continue;
            }
            match load(&tidy(&file)) {
                Ok(s) => match names.get(&s.name).and_then(|&i| scenarios.get(i)) {
                    Some(other) => errors.push(LoadError::new(
                        &s.file,
                        None,
                        format!(
                            "scenario name `{}` is already used by {}",
                            s.name,
                            other.file.display()
                        ),
                    )),
                    None => {
                        names.insert(s.name.clone(), scenarios.len());
                        scenarios.push(s);
                    }
                },
                Err(e) => errors.push(e),
            }
        }
    }
    (scenarios, errors)
}

/// The path without its `.` components (`./a/./b.yaml` is `a/b.yaml`), so
/// reports name a file the same however it was given.
pub(super) fn tidy(path: &Path) -> PathBuf {
    let tidied: PathBuf = path
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    if tidied.as_os_str().is_empty() {
        path.to_path_buf()
    } else {
        tidied
    }
}
