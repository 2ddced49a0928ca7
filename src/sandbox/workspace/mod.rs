//! The workspace a run works in, and the only way the file tools and the
//! file checks touch it.
//!
//! A run's workspace starts **in memory**: the scenario's fixture and
//! `files:` are read once into a [`WorkspaceImage`] that every run shares
//! (copy-on-write), and `read_file` / `write_file` / `edit_file` and the
//! file checks work on that tree, with the same results and error texts as
//! on disk. The run still gets a real, empty temporary folder (the system
//! prompt names it); the tree is written there only when a process needs
//! it — a `bash` call, a `command:` check, an external agent — and from
//! then on the workspace stays **on disk**, accessed race-free (see
//! `disk`). A process that only reads ([`Workspace::mirror_folder`]: a
//! read-only command in a read-only sandbox) leaves the files in memory:
//! the folder then *mirrors* the tree, and the next such process finds
//! only what changed since written into it. The folder is removed when
//! the workspace is dropped, even if the run locked folders with
//! `chmod 000`.

mod cleanup;
mod disk;
mod effect;
mod error;
mod image;
mod memory;
pub mod path;
pub mod redact;

use std::fmt;
use std::fs::File;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

pub use cleanup::remove_tree;
pub use disk::{DiskRoot, Target};
pub use effect::Change;
pub use error::{AccessError, MAX_READ_BYTES, NUL_IN_PATH};
pub use image::{
    ImageError, WorkspaceImage, fixture_outside_repository, locate_key, repository_of,
};

use memory::{Fail, NodeKind, Tree};
use path::{disk_link, resolve_with};

/// The longest path a file tool or check accepts, in bytes: Linux's
/// `PATH_MAX` less its NUL. Longer is `File name too long` (`ENAMETOOLONG`),
/// in memory and on disk alike.
pub const MAX_REQUESTED_PATH: usize = 4095;

/// Whether `requested` is a relative path of plain names only: not empty,
/// no leading `/`, no empty, `.` or `..` component, so joining it to the
/// root spells the path resolution would give.
fn is_plain_relative(requested: &str) -> bool {
    // Split as bytes: `/` is one byte in UTF-8, and a byte search is
    // cheaper than a `char` one (every file tool call and check asks).
    !requested.is_empty()
        && requested
            .as_bytes()
            .split(|b| *b == b'/')
            .all(|part| !part.is_empty() && part != b"." && part != b"..")
}

/// Why a workspace could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("workspace.files `{path}`: {error}")]
    File { path: String, error: AccessError },
}

impl From<CreateError> for io::Error {
    fn from(e: CreateError) -> Self {
        match e {
            CreateError::Io(e) => e,
            other => io::Error::other(other.to_string()),
        }
    }
}

enum State {
    Memory(MemoryState),
    Disk(DiskRoot),
}

/// The files while they are held in memory.
struct MemoryState {
    tree: Arc<Tree>,
    /// The tree's digest, kept until the next write.
    digest: Option<[u8; 32]>,
    /// The folder when it mirrors an earlier version of the tree (written
    /// for a read-only process): its descriptor and the tree it holds.
    mirror: Option<(DiskRoot, Arc<Tree>)>,
}

impl MemoryState {
    fn new(tree: Arc<Tree>) -> Self {
        Self {
            tree,
            digest: None,
            mirror: None,
        }
    }
}

/// A file opened for a check: its bytes, or a file to stream.
pub enum CheckSource {
    Memory(Arc<[u8]>),
    Disk(File),
}

/// One run's workspace.
pub struct Workspace {
    /// Canonical path of the folder.
    root: PathBuf,
    /// Whether the folder is ours to remove.
    owned: bool,
    state: Mutex<State>,
    /// Whether the folder has been made (a deferred workspace makes it
    /// only when a process needs it).
    folder_made: std::sync::atomic::AtomicBool,
}

impl fmt::Debug for Workspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Workspace")
            .field("root", &self.root)
            .field("in_memory", &self.in_memory())
            .finish()
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        if !self.owned || !self.folder_made.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        // A workspace that stayed in memory left its folder empty: one
        // `rmdir` removes it.
        if self.in_memory() && std::fs::remove_dir(&self.root).is_ok() {
            return;
        }
        let _ = remove_tree(&self.root);
    }
}

/// The temp folder, canonical (cached: `realpath` on every run costs a
/// system call per component). Keyed by the temp folder's path, so a
/// changed `TMPDIR` is honoured.
fn canonical_temp_dir() -> io::Result<PathBuf> {
    static CACHE: Mutex<Option<(PathBuf, PathBuf)>> = Mutex::new(None);
    let base = std::env::temp_dir();
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((raw, canonical)) = &*cache
        && *raw == base
    {
        return Ok(canonical.clone());
    }
    let canonical = base.canonicalize()?;
    *cache = Some((base, canonical.clone()));
    Ok(canonical)
}

/// `base` joined with `agent-eval-SUFFIX`, spelled as `Path::join` spells
/// it, in one buffer (every run names its workspace).
fn named_in(base: PathBuf, suffix: &str) -> PathBuf {
    let mut root = base.into_os_string();
    root.reserve(suffix.len() + 12);
    if !root.is_empty() && !root.as_encoded_bytes().ends_with(b"/") {
        root.push("/");
    }
    root.push("agent-eval-");
    root.push(suffix);
    PathBuf::from(root)
}

impl Workspace {
    /// A fresh temporary folder holding `image`: in memory when the image
    /// allows, else written out now.
    pub fn create(image: &WorkspaceImage) -> Result<Self, CreateError> {
        Self::make(image, true)
    }

    /// Like [`Workspace::create`], but the temporary folder is only named,
    /// and made when a process first needs it ([`Workspace::materialize`]).
    /// A run that only uses the file tools then costs no folder at all:
    /// on a disk that discards freed blocks, a `mkdir` + `rmdir` pair costs
    /// more than the whole episode. The name is random (as `mkdtemp`'s)
    /// and the folder is made with `mkdir`, which fails rather than adopt
    /// a folder someone else made under that name.
    pub fn create_deferred(image: &WorkspaceImage) -> Result<Self, CreateError> {
        Self::make(image, false)
    }

    fn make(image: &WorkspaceImage, make_folder: bool) -> Result<Self, CreateError> {
        // In the canonical temp folder, so its path is canonical too (the
        // path guard compares canonical paths).
        let base = canonical_temp_dir()?;
        let root = if make_folder {
            tempfile::Builder::new()
                .prefix("agent-eval-")
                .tempdir_in(base)?
                .keep()
        } else {
            named_in(base, &random_suffix()?)
        };
        let workspace = Self {
            root,
            owned: true,
            state: Mutex::new(State::Memory(MemoryState::new(image.tree.clone()))),
            folder_made: std::sync::atomic::AtomicBool::new(make_folder),
        };
        if !image.in_memory {
            workspace.materialize()?;
            for (path, content) in &image.files {
                workspace
                    .write(path, content, true)
                    .map_err(|error| CreateError::File {
                        path: path.clone(),
                        error,
                    })?;
            }
        }
        Ok(workspace)
    }

    /// An existing folder, used on disk as it is and never removed.
    pub fn on_disk(root: &Path) -> io::Result<Self> {
        let root = root.canonicalize()?;
        let disk = DiskRoot::open(&root)?;
        Ok(Self {
            root,
            owned: false,
            state: Mutex::new(State::Disk(disk)),
            folder_made: std::sync::atomic::AtomicBool::new(true),
        })
    }

    /// The folder's canonical path. It exists once the workspace is on
    /// disk (always for [`Workspace::create`]; for a deferred workspace
    /// only after [`Workspace::materialize`] — use [`Workspace::folder`]
    /// to get a path a process can use).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder, with the files written into it: what a process (a
    /// shell, a check command, an external agent) may be started in.
    pub fn folder(&self) -> io::Result<&Path> {
        self.materialize()?;
        Ok(&self.root)
    }

    pub fn in_memory(&self) -> bool {
        matches!(*self.state(), State::Memory(_))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes the files to the folder if they are still in memory; from
    /// then on the workspace is on disk. Call before anything that needs
    /// the folder (a process).
    pub fn materialize(&self) -> io::Result<()> {
        let mut state = self.state();
        let State::Memory(memory) = &mut *state else {
            return Ok(());
        };
        let (disk, result) = self.write_out(memory)?;
        // Whatever happened, the folder is the truth from now on.
        *state = State::Disk(disk);
        result
    }

    /// The folder, holding the files, for a process that only **reads**
    /// them (the caller runs it in a read-only sandbox): the files stay in
    /// memory and remain the truth. The first call writes the whole tree;
    /// later ones write only what changed since (new entries in creation
    /// order, changed files rewritten in place), so the folder always reads
    /// as a folder the run had worked in directly. On disk already: the
    /// folder as it is.
    pub fn mirror_folder(&self) -> io::Result<&Path> {
        let mut state = self.state();
        let State::Memory(memory) = &mut *state else {
            return Ok(&self.root);
        };
        let (disk, result) = self.write_out(memory)?;
        match result {
            Ok(()) => memory.mirror = Some((disk, memory.tree.clone())),
            // The folder's content is unknown: it becomes the truth, as
            // after any failed write-out.
            Err(e) => {
                *state = State::Disk(disk);
                return Err(e);
            }
        }
        Ok(&self.root)
    }

    /// After a contained command ran in the folder given by
    /// [`Workspace::mirror_folder`]: reads what it changed back into the
    /// files, which stay in memory (the folder mirrors them again), and
    /// returns the changes. `None` when the folder holds what a memory
    /// tree cannot (see `effect`): the folder is then the workspace from
    /// now on, as after any other command.
    pub fn read_back_mirror(&self) -> io::Result<Option<Arc<[Change]>>> {
        let mut state = self.state();
        let State::Memory(memory) = &mut *state else {
            return Ok(None);
        };
        let Some((disk, written)) = memory.mirror.take() else {
            // No mirror: the folder was never written for the tree.
            return Err(io::Error::other("the workspace folder mirrors no files"));
        };
        let Some(changes) = effect::scan(&self.root, &written) else {
            *state = State::Disk(disk);
            return Ok(None);
        };
        drop(written);
        if !changes.is_empty() {
            effect::apply(Arc::make_mut(&mut memory.tree), &changes);
            memory.digest = None;
        }
        memory.mirror = Some((disk, memory.tree.clone()));
        Ok(Some(changes.into()))
    }

    /// Applies changes read back from an earlier run of the same command
    /// over the same files ([`Workspace::read_back_mirror`]), with `digest`
    /// the files' digest afterwards. Fails once the workspace is on disk.
    pub fn apply_changes(&self, changes: &[Change], digest: [u8; 32]) -> io::Result<()> {
        let mut state = self.state();
        let State::Memory(memory) = &mut *state else {
            return Err(io::Error::other("the workspace is no longer in memory"));
        };
        if !changes.is_empty() {
            effect::apply(Arc::make_mut(&mut memory.tree), changes);
        }
        memory.digest = Some(digest);
        Ok(())
    }

    /// Brings the folder up to the tree in memory: the mirror's folder by
    /// writing what changed, else a (new) folder by writing everything.
    /// The mirror is taken; the outer error is a folder that could not be
    /// opened, the inner one a failed write (the folder then holds part of
    /// the tree).
    fn write_out(&self, memory: &mut MemoryState) -> io::Result<(DiskRoot, io::Result<()>)> {
        Ok(match memory.mirror.take() {
            Some((disk, written)) => {
                let result = sync_mirror(&disk, &written, &memory.tree);
                (disk, result)
            }
            None => {
                self.make_folder()?;
                let disk = DiskRoot::open(&self.root)?;
                let result = write_tree(&disk, &memory.tree);
                (disk, result)
            }
        })
    }

    /// A digest of the files while they are in memory (see
    /// `Tree::digest`); `None` once the workspace is on disk, where no
    /// digest is kept.
    pub fn content_digest(&self) -> Option<[u8; 32]> {
        let mut state = self.state();
        let State::Memory(memory) = &mut *state else {
            return None;
        };
        Some(*memory.digest.get_or_insert_with(|| memory.tree.digest()))
    }

    /// Makes the (deferred) folder if it is not made yet.
    fn make_folder(&self) -> io::Result<()> {
        if !self.folder_made.load(std::sync::atomic::Ordering::Acquire) {
            std::fs::DirBuilder::new().mode(0o700).create(&self.root)?;
            self.folder_made
                .store(true, std::sync::atomic::Ordering::Release);
        }
        Ok(())
    }

    /// Resolves `requested` (Python's `resolve()` semantics, see
    /// [`path`]).
    fn resolve(&self, state: &State, requested: &str) -> Result<PathBuf, AccessError> {
        // The kernel refuses such a path in any one system call; refusing
        // it before resolving keeps resolution (and a memory tree) from
        // doing work quadratic in a model's arbitrarily long path.
        if requested.len() > MAX_REQUESTED_PATH {
            let start: String = requested.chars().take(60).collect();
            return Err(error::errno(
                libc::ENAMETOOLONG,
                Path::new(&format!("{start}…")),
            ));
        }
        let in_memory = matches!(state, State::Memory(_));
        let root = &self.root;
        // A memory tree holds no symlinks: a plain relative path names the
        // file it spells, as the resolution below would find it.
        if in_memory && is_plain_relative(requested) {
            // Sized once: `join` grows the copy of the root (every file
            // tool call and every check resolves a path).
            let len = root.as_os_str().len() + 1 + requested.len();
            let mut resolved = PathBuf::with_capacity(len);
            resolved.push(root);
            resolved.push(requested);
            return Ok(resolved);
        }
        // A memory tree holds no symlinks; outside the root the disk says.
        let lookup = |p: &Path| {
            if in_memory && p.starts_with(root) {
                None
            } else {
                disk_link(p)
            }
        };
        resolve_with(root, requested, &lookup).ok_or_else(|| AccessError::Escapes {
            path: requested.to_string(),
        })
    }

    fn relative<'a>(&self, resolved: &'a Path, requested: &str) -> Result<&'a Path, AccessError> {
        // A resolved path is the root's spelling and its own components:
        // the root's bytes and a separator start it (as `strip_prefix`,
        // which compares component by component, would also find).
        let rest = resolved
            .as_os_str()
            .as_encoded_bytes()
            .strip_prefix(self.root.as_os_str().as_encoded_bytes())
            .and_then(|rest| rest.strip_prefix(b"/"));
        if let Some(rest) = rest.and_then(|rest| std::str::from_utf8(rest).ok()) {
            return Ok(Path::new(rest));
        }
        resolved
            .strip_prefix(&self.root)
            .map_err(|_| AccessError::Escapes {
                path: requested.to_string(),
            })
    }

    /// The whole file (at most [`MAX_READ_BYTES`]).
    pub fn read(&self, requested: &str) -> Result<Vec<u8>, AccessError> {
        let state = self.state();
        if let (State::Memory(memory), Some(rel)) = (&*state, plain_in_memory(&state, requested)) {
            let resolved = || self.root.join(requested);
            return read_memory(memory, rel, &resolved);
        }
        let resolved = self.resolve(&state, requested)?;
        let rel = self.relative(&resolved, requested)?;
        match &*state {
            State::Memory(memory) => read_memory(memory, rel, &|| resolved.clone()),
            State::Disk(disk) => disk.read(&Target {
                requested,
                resolved: &resolved,
                rel,
            }),
        }
    }

    /// Writes `data` to the file, first creating its parent folders when
    /// `create_parents` (as `write_file` does; `edit_file` does not).
    pub fn write(
        &self,
        requested: &str,
        data: &[u8],
        create_parents: bool,
    ) -> Result<(), AccessError> {
        let mut state = self.state();
        if let Some(rel) = plain_in_memory(&state, requested)
            && let State::Memory(memory) = &mut *state
        {
            let resolved = || self.root.join(requested);
            return write_memory(memory, rel, data, create_parents, &resolved);
        }
        let resolved = self.resolve(&state, requested)?;
        let rel = self.relative(&resolved, requested)?;
        match &mut *state {
            State::Memory(memory) => {
                write_memory(memory, rel, data, create_parents, &|| resolved.clone())
            }
            State::Disk(disk) => disk.write(
                &Target {
                    requested,
                    resolved: &resolved,
                    rel,
                },
                data,
                create_parents,
            ),
        }
    }

    /// Whether the path names something (symlinks followed).
    pub fn exists(&self, requested: &str) -> bool {
        let state = self.state();
        let Ok(resolved) = self.resolve(&state, requested) else {
            return false;
        };
        let Ok(rel) = self.relative(&resolved, requested) else {
            return false;
        };
        match &*state {
            State::Memory(memory) => matches!(memory.tree.lookup(rel), Ok(Some(_))),
            State::Disk(disk) => disk.exists(&Target {
                requested,
                resolved: &resolved,
                rel,
            }),
        }
    }

    /// The file's content for a check: `None` when it is missing, escapes,
    /// or is not a regular file with one link. Never blocks.
    pub fn open_for_check(&self, requested: &str) -> Option<CheckSource> {
        let state = self.state();
        if let (State::Memory(memory), Some(rel)) = (&*state, plain_in_memory(&state, requested)) {
            return memory.tree.read(rel).ok().map(CheckSource::Memory);
        }
        let resolved = self.resolve(&state, requested).ok()?;
        let rel = self.relative(&resolved, requested).ok()?;
        match &*state {
            State::Memory(memory) => memory.tree.read(rel).ok().map(CheckSource::Memory),
            State::Disk(disk) => disk
                .open_read(&Target {
                    requested,
                    resolved: &resolved,
                    rel,
                })
                .ok()
                .map(|(file, _)| CheckSource::Disk(file)),
        }
    }
}

/// `requested` as the path below the root it names, when the files are in
/// memory and it is a plain relative path (what [`Workspace::resolve`]
/// then [`Workspace::relative`] find for it: the root joined with it, then
/// it again), found without building the joined path (every file tool
/// call and every check names a path; the joined path is built only for an
/// error message).
fn plain_in_memory<'r>(state: &State, requested: &'r str) -> Option<&'r Path> {
    let plain = matches!(state, State::Memory(_))
        && requested.len() <= MAX_REQUESTED_PATH
        && is_plain_relative(requested);
    plain.then(|| Path::new(requested))
}

/// A file of the memory tree (at most [`MAX_READ_BYTES`]); `resolved`
/// spells its path for an error.
fn read_memory(
    memory: &MemoryState,
    rel: &Path,
    resolved: &dyn Fn() -> PathBuf,
) -> Result<Vec<u8>, AccessError> {
    let data = memory.tree.read(rel).map_err(|f| fail(f, &resolved()))?;
    if data.len() as u64 > MAX_READ_BYTES {
        return Err(AccessError::TooLarge {
            size: data.len() as u64,
        });
    }
    Ok(data.to_vec())
}

/// Writes a file of the memory tree, first creating its parent folders
/// when `create_parents`; `resolved` spells its path for an error.
fn write_memory(
    memory: &mut MemoryState,
    rel: &Path,
    data: &[u8],
    create_parents: bool,
    resolved: &dyn Fn() -> PathBuf,
) -> Result<(), AccessError> {
    memory.digest = None;
    let tree = Arc::make_mut(&mut memory.tree);
    if create_parents && let Some(parent) = rel.parent() {
        tree.create_dir_all(parent).map_err(|f| {
            let resolved = resolved();
            fail(f, resolved.parent().unwrap_or(&resolved))
        })?;
    }
    tree.write(rel, Arc::from(data))
        .map_err(|f| fail(f, &resolved()))
}

/// Six random letters and digits, as `mkdtemp` and `tempfile` use (the
/// same length: the path's length shows in what a model reads).
fn random_suffix() -> io::Result<String> {
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let word = random_word()?.to_le_bytes();
    Ok(word
        .iter()
        .take(6)
        .map(|b| {
            let letter = CHARS.get(usize::from(*b) % CHARS.len());
            letter.map_or('0', |&c| char::from(c))
        })
        .collect())
}

/// A random word for a folder name: the system's randomness once per
/// process (a seed), then SplitMix64 of the seed and a counter, as
/// `tempfile`'s own generator does without a system call per name (every
/// run names a workspace, and a `getrandom` call per run was a visible part
/// of an episode's CPU). The names need not be secret: a folder is made
/// with `mkdir`, which refuses a name already taken.
fn random_word() -> io::Result<u64> {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEED: OnceLock<u64> = OnceLock::new();
    static DRAWN: AtomicU64 = AtomicU64::new(0);
    let seed = match SEED.get() {
        Some(seed) => *seed,
        None => {
            let mut bytes = [0u8; 8];
            system_random(&mut bytes)?;
            *SEED.get_or_init(|| u64::from_le_bytes(bytes))
        }
    };
    let drawn = DRAWN.fetch_add(1, Ordering::Relaxed);
    let mut z = seed.wrapping_add(drawn.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    Ok(z ^ (z >> 31))
}

/// Fills `bytes` from the system's randomness (`getrandom`).
fn system_random(bytes: &mut [u8]) -> io::Result<()> {
    let mut filled = 0;
    while filled < bytes.len() {
        let Some(rest) = bytes.get_mut(filled..) else {
            break;
        };
        // SAFETY: `rest` is a live, writable buffer of `rest.len()` bytes.
        let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        filled += n as usize;
    }
    Ok(())
}

/// An emulated system call's failure, worded as the real one's.
fn fail(f: Fail, path: &Path) -> AccessError {
    match f {
        Fail::Nul => AccessError::Os(NUL_IN_PATH.into()),
        Fail::Errno(code) => error::errno(code, path),
    }
}

/// Writes `image` into a new folder `folder` (its parent must exist): the
/// fixture copy a cassette keeps beside it. Fails if `folder` exists.
pub fn write_image(image: &WorkspaceImage, folder: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new().create(folder)?;
    let disk = DiskRoot::open(folder)?;
    write_tree(&disk, &image.tree)
}

/// Brings a mirror folder holding `written` up to `tree`: new nodes are
/// created in creation order, changed files rewritten in place. The file
/// tools and contained commands' effects never remove a node or change its
/// kind; should a tree have done so, the folder is refused (an error)
/// rather than patched.
fn sync_mirror(disk: &DiskRoot, written: &Tree, tree: &Tree) -> io::Result<()> {
    if std::ptr::eq(written, tree) {
        return Ok(());
    }
    let diverged = || io::Error::other("the workspace folder no longer mirrors its files");
    if written.nodes().any(|(rel, _)| tree.get(rel).is_none()) {
        return Err(diverged());
    }
    for (rel, node) in tree.in_creation_order() {
        match (written.get(rel).map(|n| &n.kind), &node.kind) {
            (None, NodeKind::Dir) => disk.create_dir(rel)?,
            (None, NodeKind::File { data, mode }) => disk.create_file(rel, data, *mode)?,
            (None, NodeKind::Symlink(target)) => disk.create_symlink(rel, target)?,
            (Some(NodeKind::Dir), NodeKind::Dir) => {}
            (
                Some(NodeKind::File {
                    data: old,
                    mode: old_mode,
                }),
                NodeKind::File { data, mode },
            ) => {
                if !Arc::ptr_eq(old, data) && old != data {
                    disk.replace_file(rel, data)?;
                }
                // A contained command's `chmod` (see `effect`); a mode
                // never goes back to "the default".
                if old_mode != mode {
                    disk.set_mode(rel, mode.ok_or_else(diverged)?)?;
                }
            }
            (Some(NodeKind::Symlink(old)), NodeKind::Symlink(target)) if old == target => {}
            _ => return Err(diverged()),
        }
    }
    Ok(())
}

/// Creates every node of `tree` in the folder, in creation order.
fn write_tree(disk: &DiskRoot, tree: &Tree) -> io::Result<()> {
    for (rel, node) in tree.in_creation_order() {
        match &node.kind {
            NodeKind::Dir => disk.create_dir(rel)?,
            NodeKind::File { data, mode } => disk.create_file(rel, data, *mode)?,
            NodeKind::Symlink(target) => disk.create_symlink(rel, target)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
