//! A run's workspace: a fresh temporary folder holding a copy of the
//! scenario's fixture, then its `files`. Removed when dropped.

use std::fs;
use std::io;
use std::path::Path;

use crate::agent::tools::path::resolve_in_workspace;
use crate::scenario::WorkspaceSpec;

/// Creates and fills a workspace.
pub fn create(spec: &WorkspaceSpec) -> io::Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new().prefix("agent-eval-").tempdir()?;
    let root = dir.path().canonicalize()?;
    if let Some(fixture) = &spec.fixture {
        copy_tree(&fixture.value, &root)?;
    }
    for (path, content) in &spec.files {
        // Paths were checked at load time; the guard also refuses a path
        // that a fixture symlink would lead out of the workspace.
        let target = resolve_in_workspace(&root, path.as_str())
            .map_err(|e| io::Error::new(io::ErrorKind::PermissionDenied, e.to_string()))?;
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(target, content)?;
    }
    Ok(dir)
}

/// Copies a folder's contents; symlinks are copied as links.
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    let mut entries = fs::read_dir(from)?.collect::<Result<Vec<_>, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let source = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            fs::create_dir_all(&target)?;
            copy_tree(&source, &target)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&source)?, &target)?;
        } else {
            fs::copy(&source, &target)?;
        }
    }
    Ok(())
}
