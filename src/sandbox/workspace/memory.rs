//! A workspace held in memory: a map from paths (relative to the root) to
//! folders and files, with the few system calls the file tools make
//! emulated on it — same results, same error numbers as on disk.
//!
//! Every node remembers when it was created (`seq`), so writing the tree to
//! a real folder creates entries in the order a disk workspace would have,
//! and folder listings (whose order some file systems keep by creation)
//! come out the same.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The longest name one path component may have (ext4, tmpfs).
const NAME_MAX: usize = 255;

/// A failed emulated system call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fail {
    Errno(i32),
    /// A NUL byte in a path (std refuses it before any system call).
    Nul,
}

/// What a path holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeKind {
    Dir,
    File {
        data: Arc<[u8]>,
        /// Permission bits to set (a fixture's file keeps its own, as
        /// `fs::copy` does); `None`: the default of a new file.
        mode: Option<u32>,
    },
    /// Only in images that are written to disk before use.
    Symlink(PathBuf),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub kind: NodeKind,
    pub seq: u64,
}

/// The tree; keys are relative paths without `.`/`..` (the root is not a
/// key: it always exists and is a folder).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    nodes: BTreeMap<PathBuf, Node>,
    next_seq: u64,
}

impl Tree {
    pub fn nodes(&self) -> impl Iterator<Item = (&PathBuf, &Node)> {
        self.nodes.iter()
    }

    /// Nodes in creation order.
    pub fn in_creation_order(&self) -> Vec<(&PathBuf, &Node)> {
        let mut nodes: Vec<_> = self.nodes.iter().collect();
        nodes.sort_by_key(|(_, n)| n.seq);
        nodes
    }

    /// The node at `rel`, if any (no walk: `rel` is a key).
    pub fn get(&self, rel: &Path) -> Option<&Node> {
        self.nodes.get(rel)
    }

    /// A digest of everything a process could observe of the tree:
    /// paths, kinds, modes, contents and the order of creation (folder
    /// listings follow it on some file systems). Equal digests mean the
    /// folder written from either tree reads the same.
    pub fn digest(&self) -> [u8; 32] {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        for (rel, node) in self.in_creation_order() {
            let path = rel.as_os_str().as_bytes();
            hasher.update((path.len() as u64).to_le_bytes());
            hasher.update(path);
            match &node.kind {
                NodeKind::Dir => hasher.update([0u8]),
                NodeKind::File { data, mode } => {
                    hasher.update([1u8]);
                    hasher.update(mode.map_or(u64::MAX, u64::from).to_le_bytes());
                    hasher.update((data.len() as u64).to_le_bytes());
                    hasher.update(data);
                }
                NodeKind::Symlink(target) => {
                    let target = target.as_os_str().as_bytes();
                    hasher.update([2u8]);
                    hasher.update((target.len() as u64).to_le_bytes());
                    hasher.update(target);
                }
            }
        }
        hasher.finalize().into()
    }

    pub fn has_symlinks(&self) -> bool {
        self.nodes
            .values()
            .any(|n| matches!(n.kind, NodeKind::Symlink(_)))
    }

    /// Adds a node as a copy would (no checks: used to load a fixture).
    pub fn insert(&mut self, rel: PathBuf, kind: NodeKind) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.nodes.insert(rel, Node { kind, seq });
    }

    /// Replaces the content of the file at `rel` (a key), keeping its mode.
    pub fn replace_content(&mut self, rel: &Path, new: Arc<[u8]>) {
        if let Some(Node {
            kind: NodeKind::File { data, .. },
            ..
        }) = self.nodes.get_mut(rel)
        {
            *data = new;
        }
    }

    /// Sets the permission bits of the file at `rel` (a key).
    pub fn set_mode(&mut self, rel: &Path, new: u32) {
        if let Some(Node {
            kind: NodeKind::File { mode, .. },
            ..
        }) = self.nodes.get_mut(rel)
        {
            *mode = Some(new);
        }
    }

    fn check_name(name: &OsStr) -> Result<(), Fail> {
        if name.as_bytes().contains(&0) {
            Err(Fail::Nul)
        } else if name.len() > NAME_MAX {
            Err(Fail::Errno(libc::ENAMETOOLONG))
        } else {
            Ok(())
        }
    }

    /// Walks to `rel` as the kernel does: every ancestor must exist and be
    /// a folder. `Ok(None)` when only the last component is missing.
    pub fn lookup(&self, rel: &Path) -> Result<Option<&NodeKind>, Fail> {
        let bytes = rel.as_os_str().as_bytes();
        if bytes.contains(&0) {
            return Err(Fail::Nul);
        }
        if is_plain(bytes) {
            return self.lookup_plain(bytes);
        }
        let mut node: Option<&NodeKind> = Some(&NodeKind::Dir);
        // Each ancestor is a prefix of `rel` ending before a separator: it
        // is looked up as that slice, with no path built (keys compare by
        // components, so `a//b` finds `a/b` as a built path would).
        let mut end = 0;
        for part in rel.iter() {
            match node {
                Some(NodeKind::Dir) => {}
                Some(_) => return Err(Fail::Errno(libc::ENOTDIR)),
                None => return Err(Fail::Errno(libc::ENOENT)),
            }
            Self::check_name(part)?;
            end = next_component_end(bytes, end, part);
            let at = Path::new(OsStr::from_bytes(bytes.get(..end).unwrap_or(bytes)));
            node = self.nodes.get(at).map(|n| &n.kind);
        }
        Ok(node)
    }

    /// [`Self::lookup`] of a path that [`is_plain`]: its components are
    /// the slices between its separators (what `Path::iter` would yield,
    /// found without it: most paths a model names are plain, and this runs
    /// for every file tool call and check). `rel` holds no NUL.
    fn lookup_plain(&self, bytes: &[u8]) -> Result<Option<&NodeKind>, Fail> {
        let mut node: Option<&NodeKind> = Some(&NodeKind::Dir);
        let mut end = 0;
        for part in bytes.split(|b| *b == b'/') {
            match node {
                Some(NodeKind::Dir) => {}
                Some(_) => return Err(Fail::Errno(libc::ENOTDIR)),
                None => return Err(Fail::Errno(libc::ENOENT)),
            }
            if part.len() > NAME_MAX {
                return Err(Fail::Errno(libc::ENAMETOOLONG));
            }
            end += part.len();
            node = self
                .nodes
                .get(Path::new(OsStr::from_bytes(
                    bytes.get(..end).unwrap_or(bytes),
                )))
                .map(|n| &n.kind);
            end += 1;
        }
        Ok(node)
    }

    /// `std::fs::create_dir_all(rel)` with its results (`EEXIST` when `rel`
    /// is a file, `ENOTDIR` when an ancestor is, `ENAMETOOLONG`), in one
    /// walk from the root: each level is looked up once, so a deep path
    /// costs one map lookup per level, not a walk from the root per level
    /// (std's recursion, emulated, was quadratic and as deep as the path).
    pub fn create_dir_all(&mut self, rel: &Path) -> Result<(), Fail> {
        if rel.as_os_str().as_bytes().contains(&0) {
            return Err(Fail::Nul);
        }
        let parts: Vec<&OsStr> = rel.iter().collect();
        let mut at = PathBuf::new();
        for (i, part) in parts.iter().enumerate() {
            Self::check_name(part)?;
            at.push(part);
            match self.nodes.get(&at).map(|n| &n.kind) {
                Some(NodeKind::Dir) => {}
                None => self.insert(at.clone(), NodeKind::Dir),
                Some(_) if i + 1 == parts.len() => return Err(Fail::Errno(libc::EEXIST)),
                Some(_) => return Err(Fail::Errno(libc::ENOTDIR)),
            }
        }
        Ok(())
    }

    /// `open(rel, O_RDONLY)` then read.
    pub fn read(&self, rel: &Path) -> Result<Arc<[u8]>, Fail> {
        match self.lookup(rel)? {
            None => Err(Fail::Errno(libc::ENOENT)),
            Some(NodeKind::Dir) => Err(Fail::Errno(libc::EISDIR)),
            Some(NodeKind::File { data, .. }) => Ok(data.clone()),
            // Trees with symlinks are never used in memory.
            Some(NodeKind::Symlink(_)) => Err(Fail::Errno(libc::ELOOP)),
        }
    }

    /// `open(rel, O_WRONLY | O_CREAT | O_TRUNC)` then write: replaces a
    /// file's content (keeping its mode) or creates it.
    pub fn write(&mut self, rel: &Path, data: Arc<[u8]>) -> Result<(), Fail> {
        if rel.as_os_str().is_empty() {
            return Err(Fail::Errno(libc::EISDIR));
        }
        match self.lookup(rel)? {
            None => {
                self.insert(rel.to_path_buf(), NodeKind::File { data, mode: None });
                Ok(())
            }
            Some(NodeKind::Dir) => Err(Fail::Errno(libc::EISDIR)),
            Some(NodeKind::Symlink(_)) => Err(Fail::Errno(libc::ELOOP)),
            Some(NodeKind::File { .. }) => {
                if let Some(Node {
                    kind: NodeKind::File { data: old, .. },
                    ..
                }) = self.nodes.get_mut(rel)
                {
                    *old = data;
                }
                Ok(())
            }
        }
    }
}

/// Whether `path` is relative and spelled plainly: separated by single
/// slashes, every component a name (not empty, `.` or `..`).
fn is_plain(path: &[u8]) -> bool {
    !path.is_empty()
        && path
            .split(|b| *b == b'/')
            .all(|part| !part.is_empty() && part != b"." && part != b"..")
}

/// Where `part`, the next component of `path` after byte `from`, ends:
/// separators and `.` components before it are skipped as
/// [`Path::iter`] skips them.
fn next_component_end(path: &[u8], from: usize, part: &OsStr) -> usize {
    let part = part.as_bytes();
    let mut at = from;
    loop {
        while path.get(at) == Some(&b'/') {
            at += 1;
        }
        let len = path
            .get(at..)
            .unwrap_or_default()
            .iter()
            .position(|b| *b == b'/')
            .unwrap_or(path.len() - at);
        if path.get(at..at + len) == Some(part) || at + len >= path.len() {
            return at + len;
        }
        // A `.` component that `Path::iter` left out.
        at += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(text: &str) -> Arc<[u8]> {
        Arc::from(text.as_bytes())
    }

    #[test]
    fn create_dir_all_fails_as_std_does() {
        let mut tree = Tree::default();
        tree.write(Path::new("a"), data("x")).unwrap();
        assert_eq!(
            tree.create_dir_all(Path::new("a")),
            Err(Fail::Errno(libc::EEXIST))
        );
        assert_eq!(
            tree.create_dir_all(Path::new("a/b/c")),
            Err(Fail::Errno(libc::ENOTDIR))
        );
        tree.create_dir_all(Path::new("d/e/f")).unwrap();
        assert_eq!(tree.lookup(Path::new("d/e")), Ok(Some(&NodeKind::Dir)));
        tree.create_dir_all(Path::new("d/e")).unwrap();
        // Same answers as the real thing.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), "x").unwrap();
        let real = |p: &str| {
            std::fs::create_dir_all(dir.path().join(p))
                .unwrap_err()
                .raw_os_error()
        };
        assert_eq!(real("a"), Some(libc::EEXIST));
        assert_eq!(real("a/b/c"), Some(libc::ENOTDIR));
    }

    /// Two thousand levels (what 4095 bytes allow) in one call: one lookup per
    /// level, no recursion
    /// (the emulation of std's recursion walked from the root per level).
    #[test]
    fn create_dir_all_is_one_walk() {
        let mut tree = Tree::default();
        let deep = vec!["d"; 2_000].join("/");
        tree.create_dir_all(Path::new(&deep)).unwrap();
        assert_eq!(tree.nodes().count(), 2_000);
        tree.create_dir_all(Path::new(&deep)).unwrap();
        assert_eq!(tree.nodes().count(), 2_000);
        let order: Vec<usize> = tree
            .in_creation_order()
            .iter()
            .map(|(p, _)| p.iter().count())
            .collect();
        assert!(order.windows(2).all(|w| w[0] + 1 == w[1]));
    }

    /// A path is looked up by its components, however it is spelled.
    #[test]
    fn plain_paths_are_looked_up_as_any_other() {
        let mut tree = Tree::default();
        tree.create_dir_all(Path::new("a/b")).unwrap();
        tree.write(Path::new("a/b/f"), data("x")).unwrap();
        tree.write(Path::new("a/g"), data("y")).unwrap();
        let long = "n".repeat(NAME_MAX + 1);
        for path in [
            "a",
            "a/b",
            "a/b/f",
            "a/g",
            "a/g/h",
            "a/c/d",
            "z",
            "a/b/f/x",
            long.as_str(),
        ] {
            let bytes = path.as_bytes();
            assert!(is_plain(bytes), "{path}");
            let slow = tree.lookup(Path::new(&format!("{}/", path.replace('/', "//"))));
            assert_eq!(tree.lookup_plain(bytes), slow, "{path}");
            assert_eq!(tree.lookup(Path::new(path)), slow, "{path}");
        }
        for spelled in ["", "/a", "a//b", "a/./b", "a/", "../a", "a/.."] {
            assert!(!is_plain(spelled.as_bytes()), "{spelled}");
        }
    }

    #[test]
    fn lookups_follow_components() {
        let mut tree = Tree::default();
        tree.create_dir_all(Path::new("a/b")).unwrap();
        tree.write(Path::new("a/b/f"), data("x")).unwrap();
        for spelled in ["a/b/f", "a//b/f", "a/./b/f", "a/b//f/", "a/b/./f"] {
            assert!(
                matches!(
                    tree.lookup(Path::new(spelled)),
                    Ok(Some(NodeKind::File { .. }))
                ),
                "{spelled}"
            );
        }
        assert_eq!(tree.lookup(Path::new("a/b/g")), Ok(None));
        assert_eq!(
            tree.lookup(Path::new("a/c/g")),
            Err(Fail::Errno(libc::ENOENT))
        );
        assert_eq!(
            tree.lookup(Path::new("a/b/f/g")),
            Err(Fail::Errno(libc::ENOTDIR))
        );
        assert_eq!(
            tree.lookup(Path::new("./a")),
            Err(Fail::Errno(libc::ENOENT))
        );
    }

    #[test]
    fn reads_and_writes() {
        let mut tree = Tree::default();
        assert_eq!(tree.read(Path::new("x")), Err(Fail::Errno(libc::ENOENT)));
        assert_eq!(tree.read(Path::new("x/y")), Err(Fail::Errno(libc::ENOENT)));
        tree.write(Path::new("x"), data("1")).unwrap();
        assert_eq!(tree.read(Path::new("x/y")), Err(Fail::Errno(libc::ENOTDIR)));
        tree.write(Path::new("x"), data("2")).unwrap();
        assert_eq!(&*tree.read(Path::new("x")).unwrap(), b"2");
        tree.create_dir_all(Path::new("d")).unwrap();
        assert_eq!(tree.read(Path::new("d")), Err(Fail::Errno(libc::EISDIR)));
        assert_eq!(
            tree.write(Path::new("d"), data("")),
            Err(Fail::Errno(libc::EISDIR))
        );
        assert_eq!(tree.read(Path::new("")), Err(Fail::Errno(libc::EISDIR)));
        assert_eq!(tree.read(Path::new("a\0b")), Err(Fail::Nul));
        let long = "n".repeat(256);
        assert_eq!(
            tree.write(Path::new(&long), data("")),
            Err(Fail::Errno(libc::ENAMETOOLONG))
        );
        let order: Vec<_> = tree
            .in_creation_order()
            .into_iter()
            .map(|(p, _)| p.clone())
            .collect();
        assert_eq!(order, [PathBuf::from("x"), PathBuf::from("d")]);
    }
}
