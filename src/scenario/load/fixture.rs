//! The workspace a scenario starts from: `workspace.fixture` resolved
//! against the scenario's folder and refused when absolute, missing,
//! outside the repository or too big; the image built once, at load.

use std::fs;
use std::path::Path;

use super::error::LoadError;
use crate::scenario::WorkspaceSpec;

/// Resolves `workspace.fixture` against the scenario file's folder and
/// refuses one that is absolute, missing, outside the repository or too big.
pub(super) fn resolve_fixture(file: &Path, workspace: &mut WorkspaceSpec) -> Result<(), LoadError> {
    let Some(fixture) = workspace.fixture.as_mut() else {
        return Ok(());
    };
    let at = Some((fixture.referenced.line(), fixture.referenced.column()));
    let base = file.parent().unwrap_or(Path::new("."));
    let resolved = base.join(&fixture.value);
    let problem = if fixture.value.is_absolute() {
        Some("must be a path relative to the scenario file".to_string())
    } else if !resolved.is_dir() {
        Some(format!(
            "is not a folder (looked for {})",
            resolved.display()
        ))
    } else {
        crate::sandbox::workspace::fixture_outside_repository(file, &resolved)
            .or_else(|| fixture_too_big(&resolved))
    };
    if let Some(problem) = problem {
        return Err(LoadError::new(
            file,
            at,
            format!("fixture `{}` {problem}", fixture.value.display()),
        ));
    }
    fixture.value = resolved;
    Ok(())
}

/// Reads the fixture and writes the files once, now: what cannot be
/// prepared is an error of this file, not of a run.
pub(super) fn build_workspace_image(
    file: &Path,
    text: &str,
    workspace: &WorkspaceSpec,
) -> Result<(), LoadError> {
    let fixture_at = workspace
        .fixture
        .as_ref()
        .map(|f| (f.referenced.line(), f.referenced.column()));
    let image = crate::sandbox::workspace::WorkspaceImage::build(
        workspace.fixture.as_ref().map(|f| f.value.as_path()),
        workspace.files(),
    )
    .map_err(|e| {
        // Every error names a line: the entry's key where the text shows
        // it, else the `files:` mapping (a flow or escaped key), else the
        // fixture's line.
        let at = match e.file_key() {
            Some(key) => crate::sandbox::workspace::locate_key(text, key)
                .filter(|(line, _)| workspace.files_at().is_none_or(|(from, _)| *line >= from))
                .or(workspace.files_at())
                .or(fixture_at),
            None => fixture_at,
        };
        LoadError::new(file, at, e.to_string())
    })?;
    let _ = workspace.image.set(std::sync::Arc::new(image));
    Ok(())
}

/// The most entries and bytes a fixture may hold: it is copied into every
/// run's workspace, so a typo like `fixture: ../..` must not copy a disk.
pub const MAX_FIXTURE_ENTRIES: usize = 10_000;
pub const MAX_FIXTURE_BYTES: u64 = 64 << 20;

/// Walks a fixture (not following symlinks) and says why it is too big.
pub(super) fn fixture_too_big(root: &Path) -> Option<String> {
    let mut entries = 0usize;
    let mut bytes = 0u64;
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(listing) = fs::read_dir(&dir) else {
            return Some(format!("cannot be read ({})", dir.display()));
        };
        for entry in listing.flatten() {
            entries += 1;
            if entries > MAX_FIXTURE_ENTRIES {
                return Some(format!(
                    "holds more than {MAX_FIXTURE_ENTRIES} files and folders"
                ));
            }
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => pending.push(entry.path()),
                Ok(kind) if kind.is_file() => {
                    bytes += entry.metadata().map(|m| m.len()).unwrap_or(0);
                    if bytes > MAX_FIXTURE_BYTES {
                        return Some(format!("holds more than {MAX_FIXTURE_BYTES} bytes"));
                    }
                }
                _ => {}
            }
        }
    }
    None
}
