//! A workspace held in memory: a map from paths (relative to the root) to
//! folders and files, with the few system calls the file tools make
//! emulated on it — same results, same error numbers as on disk.
//!
//! Every node remembers when it was created (`seq`), so writing the tree to
//! a real folder creates entries in the order a disk workspace would have,
//! and folder listings (whose order some file systems keep by creation)
//! come out the same.
//!
//! Paths are keys as bytes, ordered as `Path` orders them (component by
//! component): a lookup compares bytes instead of splitting both paths
//! into components at every node it passes (a fifth of a file tool call).

use std::borrow::Borrow;
use std::cmp::Ordering;
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

/// A key's bytes: a relative path spelled plainly (no empty, `.` or `..`
/// component), compared as `Path` compares such paths.
#[derive(PartialEq, Eq)]
#[repr(transparent)]
struct KeyBytes([u8]);

impl KeyBytes {
    fn new(bytes: &[u8]) -> &Self {
        let bytes: *const [u8] = bytes;
        // SAFETY: `KeyBytes` is `repr(transparent)` over `[u8]`: the same
        // layout and metadata, and the borrow keeps the lifetime.
        unsafe { &*(bytes as *const Self) }
    }

    fn of(path: &Path) -> &Self {
        Self::new(path.as_os_str().as_bytes())
    }

    fn path(&self) -> &Path {
        Path::new(OsStr::from_bytes(&self.0))
    }
}

impl Ord for KeyBytes {
    fn cmp(&self, other: &Self) -> Ordering {
        component_order(&self.0, &other.0)
    }
}

impl PartialOrd for KeyBytes {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The order of two plainly spelled relative paths by their components,
/// which is `Path`'s order: bytes compared in turn, a separator below any
/// other byte (a name that is a prefix of another comes first, and so do
/// the paths beneath it).
fn component_order(a: &[u8], b: &[u8]) -> Ordering {
    let rank = |byte: u8| {
        if byte == b'/' { 0 } else { u16::from(byte) + 1 }
    };
    match a.iter().zip(b).find(|(x, y)| x != y) {
        Some((x, y)) => rank(*x).cmp(&rank(*y)),
        None => a.len().cmp(&b.len()),
    }
}

/// A key of the tree: a path's bytes, spelled plainly.
#[derive(Clone, PartialEq, Eq)]
struct Key(Box<[u8]>);

impl Key {
    /// `rel`'s key: its bytes when plainly spelled, else its components
    /// (`Path::iter`'s) joined by single separators, as they compare.
    fn of(rel: &Path) -> Self {
        let bytes = rel.as_os_str().as_bytes();
        if is_plain(bytes) {
            return Self(bytes.into());
        }
        let mut joined = Vec::with_capacity(bytes.len());
        for part in rel.iter() {
            if !joined.is_empty() {
                joined.push(b'/');
            }
            joined.extend_from_slice(part.as_bytes());
        }
        Self(joined.into())
    }
}

impl Borrow<KeyBytes> for Key {
    fn borrow(&self) -> &KeyBytes {
        KeyBytes::new(&self.0)
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        component_order(&self.0, &other.0)
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        KeyBytes::new(&self.0).path().fmt(f)
    }
}

/// The tree; keys are relative paths without `.`/`..` (the root is not a
/// key: it always exists and is a folder), in `Path`'s order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    nodes: BTreeMap<Key, Node>,
    next_seq: u64,
}

impl Tree {
    /// The nodes in their paths' order.
    pub fn nodes(&self) -> impl Iterator<Item = (&Path, &Node)> {
        self.nodes.iter().map(|(key, node)| (key_path(key), node))
    }

    /// Nodes in creation order.
    pub fn in_creation_order(&self) -> Vec<(&Path, &Node)> {
        let mut nodes: Vec<_> = self.nodes().collect();
        nodes.sort_by_key(|(_, n)| n.seq);
        nodes
    }

    /// The node at `rel`, if any (no walk: `rel` is a key, however it is
    /// spelled).
    pub fn get(&self, rel: &Path) -> Option<&Node> {
        if is_plain(rel.as_os_str().as_bytes()) {
            return self.nodes.get(KeyBytes::of(rel));
        }
        let key = Key::of(rel);
        self.nodes.get::<KeyBytes>(key.borrow())
    }

    /// [`Self::get`], to change the node.
    fn get_mut(&mut self, rel: &Path) -> Option<&mut Node> {
        if is_plain(rel.as_os_str().as_bytes()) {
            return self.nodes.get_mut(KeyBytes::of(rel));
        }
        let key = Key::of(rel);
        self.nodes.get_mut::<KeyBytes>(key.borrow())
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
    pub fn insert(&mut self, rel: &Path, kind: NodeKind) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.nodes.insert(Key::of(rel), Node { kind, seq });
    }

    /// Replaces the content of the file at `rel` (a key), keeping its mode.
    pub fn replace_content(&mut self, rel: &Path, new: Arc<[u8]>) {
        if let Some(Node {
            kind: NodeKind::File { data, .. },
            ..
        }) = self.get_mut(rel)
        {
            *data = new;
        }
    }

    /// Sets the permission bits of the file at `rel` (a key).
    pub fn set_mode(&mut self, rel: &Path, new: u32) {
        if let Some(Node {
            kind: NodeKind::File { mode, .. },
            ..
        }) = self.get_mut(rel)
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
        let spelling = Spelling::of(bytes);
        if spelling.nul {
            return Err(Fail::Nul);
        }
        if spelling.plain {
            return self.lookup_plain(bytes);
        }
        let mut node: Option<&NodeKind> = Some(&NodeKind::Dir);
        // Each ancestor is looked up by its components joined plainly, as
        // keys are spelled (`a//b` finds `a/b`).
        let mut at = Vec::with_capacity(bytes.len());
        for part in rel.iter() {
            match node {
                Some(NodeKind::Dir) => {}
                Some(_) => return Err(Fail::Errno(libc::ENOTDIR)),
                None => return Err(Fail::Errno(libc::ENOENT)),
            }
            Self::check_name(part)?;
            if !at.is_empty() {
                at.push(b'/');
            }
            at.extend_from_slice(part.as_bytes());
            node = self.nodes.get(KeyBytes::new(&at)).map(|n| &n.kind);
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
                .get(KeyBytes::new(bytes.get(..end).unwrap_or(bytes)))
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
            match self.get(&at).map(|n| &n.kind) {
                Some(NodeKind::Dir) => {}
                None => self.insert(&at, NodeKind::Dir),
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
                self.insert(rel, NodeKind::File { data, mode: None });
                Ok(())
            }
            Some(NodeKind::Dir) => Err(Fail::Errno(libc::EISDIR)),
            Some(NodeKind::Symlink(_)) => Err(Fail::Errno(libc::ELOOP)),
            Some(NodeKind::File { .. }) => {
                if let Some(Node {
                    kind: NodeKind::File { data: old, .. },
                    ..
                }) = self.get_mut(rel)
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
    Spelling::of(path).plain
}

/// What one pass over a path's bytes finds (every file tool call and
/// check looks a path up: one pass, not a search for NUL and a split).
struct Spelling {
    /// [`is_plain`].
    plain: bool,
    /// Whether it holds a NUL byte.
    nul: bool,
}

impl Spelling {
    fn of(path: &[u8]) -> Self {
        // The current component's length, and how many of its bytes are
        // dots (a name of one or two dots only is `.` or `..`).
        let (mut len, mut dots) = (0usize, 0usize);
        let is_name = |len: usize, dots: usize| len > dots || len > 2;
        let mut plain = !path.is_empty();
        let mut nul = false;
        for &b in path {
            match b {
                b'/' => {
                    plain &= is_name(len, dots);
                    (len, dots) = (0, 0);
                }
                b'.' => (len, dots) = (len + 1, dots + 1),
                0 => (len, nul) = (len + 1, true),
                _ => len += 1,
            }
        }
        Self {
            plain: plain && is_name(len, dots),
            nul,
        }
    }
}

/// A key's path.
fn key_path(key: &Key) -> &Path {
    KeyBytes::new(&key.0).path()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `the_digest_is_unchanged`'s tree's digest: the paths' bytes and
    /// nodes in creation order, as the tree keyed by `PathBuf` hashed them.
    const DIGEST: &str = "ff1e009e5d8011a55d65657ddd005b078ac6b59887f12a94e668db1b5413324e";

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
            .map(|(p, _)| p.to_path_buf())
            .collect();
        assert_eq!(order, [PathBuf::from("x"), PathBuf::from("d")]);
    }

    /// A name of bytes around the separator's (`-`, `.`, bytes below `/`,
    /// bytes above ASCII), never `.` or `..`.
    fn any_name() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let byte = prop_oneof![
            Just(1u8),
            Just(b' '),
            Just(b'-'),
            Just(b'.'),
            Just(b'0'),
            Just(b'a'),
            Just(0x7f),
            Just(0xc3),
            Just(0xff),
        ];
        proptest::collection::vec(byte, 1..4)
            .prop_filter("a name", |name| name != b"." && name != b"..")
    }

    /// A plainly spelled relative path of one to three names.
    fn any_plain_path() -> impl proptest::strategy::Strategy<Value = PathBuf> {
        use proptest::prelude::*;
        proptest::collection::vec(any_name(), 1..4)
            .prop_map(|names| PathBuf::from(OsStr::from_bytes(&names.join(&b'/'))))
    }

    proptest::proptest! {
        /// One pass finds what splitting finds.
        #[test]
        fn spellings_are_found_in_one_pass(path in proptest::collection::vec(
            proptest::sample::select(&b"a./\0"[..]), 0..9)
        ) {
            let by_parts = !path.is_empty()
                && path
                    .split(|b| *b == b'/')
                    .all(|part| !part.is_empty() && part != b"." && part != b"..");
            let spelling = Spelling::of(&path);
            proptest::prop_assert_eq!(spelling.plain, by_parts);
            proptest::prop_assert_eq!(spelling.nul, path.contains(&0));
        }

        #[test]
        fn keys_order_as_paths(a in any_plain_path(), b in any_plain_path()) {
            let (ka, kb) = (Key::of(&a), Key::of(&b));
            proptest::prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
            proptest::prop_assert_eq!(KeyBytes::of(&a).cmp(KeyBytes::of(&b)), a.cmp(&b));
            proptest::prop_assert_eq!(ka == kb, a == b);
        }

        /// The listing (paths' order) and the creation order, which the
        /// digest and the folder written follow, are those of a map keyed
        /// by `PathBuf`; every path is found again, however it is spelled.
        #[test]
        fn listings_are_those_of_paths(paths in proptest::collection::vec(any_plain_path(), 0..12)) {
            let mut tree = Tree::default();
            let mut model: BTreeMap<PathBuf, Node> = BTreeMap::new();
            for (seq, path) in paths.iter().enumerate() {
                let kind = NodeKind::File { data: data(&seq.to_string()), mode: None };
                tree.insert(path, kind.clone());
                model.insert(path.clone(), Node { kind, seq: seq as u64 });
            }
            let listed: Vec<(&Path, &Node)> = tree.nodes().collect();
            let expected: Vec<(&Path, &Node)> =
                model.iter().map(|(p, n)| (p.as_path(), n)).collect();
            proptest::prop_assert_eq!(&listed, &expected);
            let mut by_seq = expected.clone();
            by_seq.sort_by_key(|(_, n)| n.seq);
            proptest::prop_assert_eq!(tree.in_creation_order(), by_seq);
            for path in &paths {
                let spelled = PathBuf::from(OsStr::from_bytes(
                    &[path.as_os_str().as_bytes(), b"//"].concat(),
                ));
                proptest::prop_assert_eq!(tree.get(&spelled), model.get(path));
                proptest::prop_assert_eq!(tree.get(path), model.get(path));
            }
        }
    }

    #[test]
    fn the_digest_is_unchanged() {
        let mut tree = Tree::default();
        tree.create_dir_all(Path::new("a-b/c")).unwrap();
        tree.write(Path::new("a-b/c/f.txt"), data("one")).unwrap();
        tree.write(Path::new("a/z"), data("two")).unwrap_err();
        tree.create_dir_all(Path::new("a")).unwrap();
        tree.write(Path::new("a/z"), data("two")).unwrap();
        tree.write(Path::new("a.b"), data("three")).unwrap();
        tree.set_mode(Path::new("a.b"), 0o755);
        let hex: String = tree.digest().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, DIGEST);
    }
}
