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
//! `disk`). The folder is removed when the workspace is dropped, even if
//! the run locked folders with `chmod 000`.

mod cleanup;
mod disk;
mod error;
mod image;
mod memory;

use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

pub use cleanup::remove_tree;
pub use error::{AccessError, MAX_READ_BYTES, NUL_IN_PATH};
pub use image::{
    ImageError, WorkspaceImage, fixture_outside_repository, locate_key, repository_of,
};

use crate::agent::tools::path::{disk_link, resolve_with};
use disk::{DiskRoot, Target};
use memory::{Fail, NodeKind, Tree};

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
    Memory(Arc<Tree>),
    Disk(DiskRoot),
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
        if self.owned {
            let _ = remove_tree(&self.root);
        }
    }
}

impl Workspace {
    /// A fresh temporary folder holding `image`: in memory when the image
    /// allows, else written out now.
    pub fn create(image: &WorkspaceImage) -> Result<Self, CreateError> {
        let dir = tempfile::Builder::new().prefix("agent-eval-").tempdir()?;
        let kept = dir.keep();
        let root = match kept.canonicalize() {
            Ok(root) => root,
            Err(e) => {
                let _ = remove_tree(&kept);
                return Err(e.into());
            }
        };
        let workspace = Self {
            root,
            owned: true,
            state: Mutex::new(State::Memory(image.tree.clone())),
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
        })
    }

    /// The folder's canonical path (it exists even while the files are
    /// in memory).
    pub fn root(&self) -> &Path {
        &self.root
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
        let State::Memory(tree) = &*state else {
            return Ok(());
        };
        let tree = tree.clone();
        let disk = DiskRoot::open(&self.root)?;
        // Whatever happens next, the folder is the truth from now on.
        let result = write_tree(&disk, &tree);
        *state = State::Disk(disk);
        result
    }

    /// Resolves `requested` (Python's `resolve()` semantics, see
    /// [`crate::agent::tools::path`]).
    fn resolve(&self, state: &State, requested: &str) -> Result<PathBuf, AccessError> {
        let in_memory = matches!(state, State::Memory(_));
        let root = &self.root;
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
        resolved
            .strip_prefix(&self.root)
            .map_err(|_| AccessError::Escapes {
                path: requested.to_string(),
            })
    }

    /// The whole file (at most [`MAX_READ_BYTES`]).
    pub fn read(&self, requested: &str) -> Result<Vec<u8>, AccessError> {
        let state = self.state();
        let resolved = self.resolve(&state, requested)?;
        let rel = self.relative(&resolved, requested)?;
        match &*state {
            State::Memory(tree) => {
                let data = tree.read(rel).map_err(|f| fail(f, &resolved))?;
                if data.len() as u64 > MAX_READ_BYTES {
                    return Err(AccessError::TooLarge {
                        size: data.len() as u64,
                    });
                }
                Ok(data.to_vec())
            }
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
        let resolved = self.resolve(&state, requested)?;
        let rel = self.relative(&resolved, requested)?;
        match &mut *state {
            State::Memory(tree) => {
                let tree = Arc::make_mut(tree);
                if create_parents && let Some(parent) = rel.parent() {
                    let shown = resolved.parent().unwrap_or(&resolved);
                    tree.create_dir_all(parent).map_err(|f| fail(f, shown))?;
                }
                tree.write(rel, Arc::from(data))
                    .map_err(|f| fail(f, &resolved))
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
            State::Memory(tree) => matches!(tree.lookup(rel), Ok(Some(_))),
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
        let resolved = self.resolve(&state, requested).ok()?;
        let rel = self.relative(&resolved, requested).ok()?;
        match &*state {
            State::Memory(tree) => tree.read(rel).ok().map(CheckSource::Memory),
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

/// An emulated system call's failure, worded as the real one's.
fn fail(f: Fail, path: &Path) -> AccessError {
    match f {
        Fail::Nul => AccessError::Os(NUL_IN_PATH.into()),
        Fail::Errno(code) => error::errno(code, path),
    }
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
