//! The workspace path guard: what a path from the model means.
//!
//! A path from the model is joined to the workspace root and resolved the
//! way Python's `Path.resolve()` does: components in order, `..` applied to
//! what is resolved so far, symlinks followed as they are met (non-existent
//! tails are kept as written). If the result is not inside the (canonical)
//! root, the path escapes and nothing may be read or written.
//!
//! This resolution gives the reference's *semantics* (which file a path
//! names, and the path shown in error messages). It is not what keeps the
//! tools inside the workspace: the file is then opened relative to the
//! workspace's folder descriptor with `openat2(RESOLVE_BENEATH)` (see
//! [`crate::sandbox::workspace`]), so a symlink swapped in between cannot
//! lead the open outside.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs;
use std::path::{Component, Path, PathBuf};

use super::error::AccessError;

/// How many symlinks one resolution may follow before giving up, as the OS does.
const MAX_SYMLINKS: usize = 40;

/// Resolves `requested` against `root` (which must be canonical) and checks
/// it stays inside.
pub fn resolve_in_workspace(root: &Path, requested: &str) -> Result<PathBuf, AccessError> {
    resolve_with(root, requested, &disk_link).ok_or_else(|| AccessError::Escapes {
        path: requested.to_string(),
    })
}

/// Resolves `requested` against the canonical `root`, asking `read_link`
/// whether a path is a symlink (and where it points); `None` when the path
/// escapes or meets a symlink loop.
pub fn resolve_with(
    root: &Path,
    requested: &str,
    read_link: &dyn Fn(&Path) -> Option<PathBuf>,
) -> Option<PathBuf> {
    let requested = Path::new(requested);
    // The root is canonical: none of its components is a symlink, so a
    // relative path starts there without looking them up again.
    let start = if requested.is_absolute() {
        PathBuf::from("/")
    } else {
        root.to_path_buf()
    };
    let resolved = resolve(start, requested, read_link)?;
    resolved.starts_with(root).then_some(resolved)
}

/// Where the symlink at `path` points on disk; `None` if it is none.
pub fn disk_link(path: &Path) -> Option<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::read_link(path).ok(),
        _ => None,
    }
}

/// `realpath` of `path` from `current` without requiring existence.
/// `None` on a symlink loop (or a link that cannot be read).
fn resolve(
    mut current: PathBuf,
    path: &Path,
    read_link: &dyn Fn(&Path) -> Option<PathBuf>,
) -> Option<PathBuf> {
    let mut pending: VecDeque<OsString> = VecDeque::new();
    push_components(path, &mut pending, &mut current);
    let mut followed = 0;
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            current.pop();
            continue;
        }
        let candidate = current.join(&part);
        match read_link(&candidate) {
            Some(target) => {
                followed += 1;
                if followed > MAX_SYMLINKS {
                    return None;
                }
                let mut target_parts = VecDeque::new();
                if target.is_absolute() {
                    current = PathBuf::from("/");
                }
                push_components(&target, &mut target_parts, &mut current);
                while let Some(p) = target_parts.pop_back() {
                    pending.push_front(p);
                }
            }
            None => current = candidate,
        }
    }
    Some(current)
}

/// Queues the normal and `..` components of `path`; a root resets `current`.
fn push_components(path: &Path, queue: &mut VecDeque<OsString>, current: &mut PathBuf) {
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) => {
                queue.clear();
                *current = PathBuf::from("/");
            }
            Component::CurDir => {}
            Component::ParentDir => queue.push_back(OsString::from("..")),
            Component::Normal(part) => queue.push_back(part.to_os_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let canonical = dir.path().canonicalize().unwrap();
        (dir, canonical)
    }

    #[test]
    fn inside_paths_resolve() {
        let (_dir, root) = root();
        assert_eq!(
            resolve_in_workspace(&root, "a/b/../c.txt").unwrap(),
            root.join("a/c.txt")
        );
        let absolute_inside = root.join("x").to_string_lossy().into_owned();
        assert_eq!(
            resolve_in_workspace(&root, &absolute_inside).unwrap(),
            root.join("x")
        );
    }

    #[test]
    fn escapes_are_refused() {
        let (_dir, root) = root();
        for bad in ["../x", "a/../../x", "/etc/passwd", ".."] {
            let err = resolve_in_workspace(&root, bad).unwrap_err();
            assert_eq!(err.to_string(), format!("Path escapes workspace: {bad}"));
        }
    }

    #[test]
    fn symlinks_that_lead_out_are_refused() {
        let (_dir, root) = root();
        let (_other, outside) = super::tests::root();
        std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
        std::os::unix::fs::symlink("sub", root.join("in")).unwrap();
        fs::create_dir(root.join("sub")).unwrap();
        assert!(resolve_in_workspace(&root, "out/secret").is_err());
        assert_eq!(
            resolve_in_workspace(&root, "in/f").unwrap(),
            root.join("sub/f")
        );
        std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
        assert!(resolve_in_workspace(&root, "loop").is_err());
    }
}
