//! What a command did to a workspace held in memory, read back from the
//! folder it ran in, so the same effect can be applied to another run's
//! files without running the command again.
//!
//! A contained command (see [`crate::agent::tools::effects`]) runs in the
//! workspace's mirror folder. Afterwards [`scan`] compares the folder with
//! the tree it mirrored and lists the [`Change`]s: new folders, new files,
//! files whose content or permission bits changed. Only what a memory
//! tree can hold faithfully is accepted; anything else — a removed or
//! replaced entry, a symlink, a hard link, a special file, a folder whose
//! permissions changed, a file its owner can no longer read and write,
//! two new entries in one folder (their order in the folder's listing is
//! not known) — makes the scan answer `None`, and the folder becomes the
//! workspace, as after any other command.

use std::fs;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::memory::{NodeKind, Tree};

/// Files larger than this are not read back (the folder becomes the
/// workspace instead).
const LARGEST_READ_BACK: u64 = 1 << 20;

/// One change a command made to the files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A new folder (its parent existed or was created before it).
    Dir(PathBuf),
    /// A new file, with its permission bits (`None`: a new file's default).
    File {
        rel: PathBuf,
        data: Arc<[u8]>,
        mode: Option<u32>,
    },
    /// A file's new content, same inode.
    Content { rel: PathBuf, data: Arc<[u8]> },
    /// A file's new permission bits.
    Mode { rel: PathBuf, mode: u32 },
}

/// The process's file mode creation mask, read once (from
/// `/proc/self/status`: `umask(2)` cannot be read without being set).
/// `None` where it cannot be read; no effect is then read back.
pub fn umask() -> Option<u32> {
    static UMASK: OnceLock<Option<u32>> = OnceLock::new();
    *UMASK.get_or_init(|| {
        let status = fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find_map(|l| l.strip_prefix("Umask:"))?;
        u32::from_str_radix(line.trim(), 8).ok()
    })
}

/// The changes that make `tree` read as the folder `root` (which held
/// `tree` before a command ran in it), in an order that creates parents
/// first; `None` when the folder holds something a tree cannot (see the
/// module doc).
pub fn scan(root: &Path, tree: &Tree) -> Option<Vec<Change>> {
    let umask = umask()?;
    // The root keeps the mode it was made with.
    let meta = fs::symlink_metadata(root).ok()?;
    if meta.mode() & 0o7777 != 0o700 {
        return None;
    }
    let mut scan = Scan {
        root,
        tree,
        umask,
        changes: Vec::new(),
        seen: 0,
    };
    scan.folder(Path::new(""))?;
    // Every node of the tree was found again: nothing was removed.
    (scan.seen == tree.nodes().count()).then_some(scan.changes)
}

struct Scan<'a> {
    root: &'a Path,
    tree: &'a Tree,
    umask: u32,
    changes: Vec<Change>,
    /// Nodes of the tree found in the folder.
    seen: usize,
}

impl Scan<'_> {
    /// Compares the folder `rel` (relative to the root) and everything
    /// beneath it with the tree.
    fn folder(&mut self, rel: &Path) -> Option<()> {
        let mut entries = Vec::new();
        for entry in fs::read_dir(self.root.join(rel)).ok()? {
            entries.push(rel.join(entry.ok()?.file_name()));
        }
        entries.sort();
        let new = entries
            .iter()
            .filter(|e| self.tree.get(e).is_none())
            .count();
        if new > 1 {
            return None;
        }
        for entry in entries {
            self.entry(&entry)?;
        }
        Some(())
    }

    fn entry(&mut self, rel: &Path) -> Option<()> {
        let path = self.root.join(rel);
        let meta = fs::symlink_metadata(&path).ok()?;
        let mode = meta.mode() & 0o7777;
        let known = self.tree.get(rel).map(|n| &n.kind);
        if known.is_some() {
            self.seen += 1;
        }
        if meta.is_dir() {
            if mode != 0o777 & !self.umask {
                return None;
            }
            match known {
                None => self.changes.push(Change::Dir(rel.to_path_buf())),
                Some(NodeKind::Dir) => {}
                Some(_) => return None,
            }
            return self.folder(rel);
        }
        // Regular files with one link, which their owner may read and write.
        if !meta.is_file() || meta.nlink() != 1 || mode & 0o600 != 0o600 {
            return None;
        }
        let default = 0o666 & !self.umask;
        match known {
            None => {
                let data = read(&path, meta.len())?;
                let mode = (mode != default).then_some(mode);
                let rel = rel.to_path_buf();
                self.changes.push(Change::File { rel, data, mode });
            }
            Some(NodeKind::File {
                data: old,
                mode: old_mode,
            }) => {
                if meta.len() != old.len() as u64 || *read(&path, meta.len())? != **old {
                    let data = read(&path, meta.len())?;
                    let rel = rel.to_path_buf();
                    self.changes.push(Change::Content { rel, data });
                }
                if mode != old_mode.unwrap_or(default) {
                    let rel = rel.to_path_buf();
                    self.changes.push(Change::Mode { rel, mode });
                }
            }
            Some(_) => return None,
        }
        Some(())
    }
}

/// A file's bytes, refusing what grew past `len` or is too large.
fn read(path: &Path, len: u64) -> Option<Arc<[u8]>> {
    if len > LARGEST_READ_BACK {
        return None;
    }
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let mut data = Vec::with_capacity(len as usize);
    file.take(len + 1).read_to_end(&mut data).ok()?;
    (data.len() as u64 == len).then(|| Arc::from(data))
}

/// Applies `changes` (from [`scan`]) to `tree`.
pub fn apply(tree: &mut Tree, changes: &[Change]) {
    for change in changes {
        match change {
            Change::Dir(rel) => tree.insert(rel, NodeKind::Dir),
            Change::File { rel, data, mode } => tree.insert(
                rel,
                NodeKind::File {
                    data: data.clone(),
                    mode: *mode,
                },
            ),
            Change::Content { rel, data } => tree.replace_content(rel, data.clone()),
            Change::Mode { rel, mode } => tree.set_mode(rel, *mode),
        }
    }
}
