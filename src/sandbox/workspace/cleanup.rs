//! Removing a workspace folder, whatever the run left in it.
//!
//! A model can `chmod 000` a folder (or the workspace itself): as a normal
//! user nothing below it can then be listed or removed, and the folder
//! would stay in the temp folder forever. Removal therefore first tries
//! plainly, then gives every folder back its owner's permissions (never
//! through a symlink) and tries again.

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Removes `root` and everything below it.
pub fn remove_tree(root: &Path) -> io::Result<()> {
    match fs::remove_dir_all(root) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(_) => {}
    }
    restore_permissions(root);
    match fs::remove_dir_all(root) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Makes `dir` and every folder below it readable, writable and
/// searchable by its owner. Symlinks are not followed (`symlink_metadata`
/// says what the entry itself is, and the run's processes are gone, so
/// nothing swaps it).
fn restore_permissions(dir: &Path) {
    let Ok(meta) = fs::symlink_metadata(dir) else {
        return;
    };
    if !meta.is_dir() {
        return;
    }
    let mode = meta.permissions().mode();
    if mode & 0o700 != 0o700 {
        let _ = fs::set_permissions(dir, fs::Permissions::from_mode(mode | 0o700));
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            restore_permissions(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locked_folders_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/b/f"), "x").unwrap();
        fs::set_permissions(root.join("a/b/f"), fs::Permissions::from_mode(0o000)).unwrap();
        fs::set_permissions(root.join("a/b"), fs::Permissions::from_mode(0o000)).unwrap();
        fs::set_permissions(root.join("a"), fs::Permissions::from_mode(0o000)).unwrap();
        remove_tree(&root).unwrap();
        assert!(!root.exists());
        remove_tree(&root).unwrap();
    }
}
