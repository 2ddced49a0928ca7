//! A scenario's starting workspace, read once: the fixture folder's
//! entries and the `files:` written after it, as a [`Tree`] every run
//! shares (copy-on-write).
//!
//! Building the image is also how a scenario's workspace is validated at
//! load time: a special file in the fixture, a NUL in a name, or `a` and
//! `a/b` both written fail here, with the path at fault, before any run.

use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::Workspace;
use super::error::kind_name;
use super::memory::{Fail, NodeKind, Tree};

/// The most bytes one fixture file may hold (the loader caps the whole
/// fixture lower; this bounds a file that grows while it is read).
const MAX_FIXTURE_FILE_BYTES: u64 = 64 << 20;

/// Why a workspace cannot be prepared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("fixture entry `{path}` cannot be read: {message}")]
    FixtureUnreadable { path: String, message: String },
    #[error(
        "fixture entry `{path}` is a {kind}: a fixture may hold only files, folders and symlinks"
    )]
    FixtureSpecial { path: String, kind: &'static str },
    #[error("workspace.files `{path}` cannot be written: {message}")]
    File { path: String, message: String },
    /// The same, found while writing the memory tree.
    #[error("workspace.files `{path}` cannot be written: {error}")]
    FileInMemory { path: String, error: FileEntryError },
}

impl ImageError {
    /// The `files:` key at fault, if any (to point at its line).
    pub fn file_key(&self) -> Option<&str> {
        match self {
            Self::File { path, .. } | Self::FileInMemory { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// The starting state of every run of a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceImage {
    pub(crate) tree: Arc<Tree>,
    /// Whether runs may start in memory. Fixtures with symlinks, or with
    /// files their owner may not read and write, are written to disk at
    /// the start of every run (memory cannot imitate either faithfully).
    pub(crate) in_memory: bool,
    /// The `files:` of an image that goes to disk, written after the
    /// fixture through the race-free disk access.
    pub(crate) files: Vec<(String, Arc<[u8]>)>,
}

impl WorkspaceImage {
    /// An empty workspace.
    pub fn empty() -> Self {
        Self {
            tree: Arc::new(Tree::default()),
            in_memory: true,
            files: Vec::new(),
        }
    }

    /// Reads `fixture` (a folder, already checked to be one) and applies
    /// `files` (path, content) in order, as preparing a workspace does.
    pub fn build<'a>(
        fixture: Option<&Path>,
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, ImageError> {
        let mut tree = Tree::default();
        if let Some(fixture) = fixture {
            copy_tree(fixture, Path::new(""), &mut tree)?;
        }
        let in_memory = !tree.has_symlinks()
            && tree.nodes().all(|(_, n)| match n.kind {
                NodeKind::File { mode, .. } => mode.is_none_or(|m| m & 0o600 == 0o600),
                _ => true,
            });
        let files: Vec<(String, Arc<[u8]>)> = files
            .into_iter()
            .map(|(p, c)| (p.to_string(), Arc::from(c.as_bytes())))
            .collect();
        if in_memory {
            for (path, content) in &files {
                write_file(&mut tree, path, content.clone()).map_err(|error| {
                    ImageError::FileInMemory {
                        path: path.clone(),
                        error,
                    }
                })?;
            }
            return Ok(Self {
                tree: Arc::new(tree),
                in_memory,
                files: Vec::new(),
            });
        }
        let image = Self {
            tree: Arc::new(tree),
            in_memory,
            files,
        };
        // Through symlinks only the real thing says what a path names:
        // prepare one workspace on disk to find out.
        Workspace::create(&image).map_err(|e| match e {
            super::CreateError::File { path, error } => ImageError::File {
                path,
                message: error.to_string(),
            },
            super::CreateError::Io(e) => ImageError::FixtureUnreadable {
                path: ".".into(),
                message: e.to_string(),
            },
        })?;
        Ok(image)
    }

    /// Whether runs start in memory.
    pub fn in_memory(&self) -> bool {
        self.in_memory
    }
}

/// Why a `files:` entry cannot be written into a memory tree (shown after
/// `cannot be written: `).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileEntryError {
    #[error("the path escapes the workspace")]
    Escapes,
    #[error("the path holds a NUL byte")]
    Nul,
    /// The system's reason, without its ` (os error N)` tail.
    #[error("{reason}: '{path}'")]
    Refused { reason: String, path: String },
}

/// Writes a `files:` entry into a memory tree (no symlinks there, so the
/// path means what it says once `.` is dropped).
fn write_file(tree: &mut Tree, path: &str, content: Arc<[u8]>) -> Result<(), FileEntryError> {
    let mut rel = PathBuf::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(part) => rel.push(part),
            Component::CurDir => {}
            _ => return Err(FileEntryError::Escapes),
        }
    }
    let explain = |fail: Fail, at: &Path| match fail {
        Fail::Nul => FileEntryError::Nul,
        Fail::Errno(code) => {
            let reason = std::io::Error::from_raw_os_error(code).to_string();
            let reason = reason
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&reason)
                .to_string();
            FileEntryError::Refused {
                reason,
                path: at.display().to_string(),
            }
        }
    };
    if let Some(parent) = rel.parent() {
        tree.create_dir_all(parent)
            .map_err(|f| explain(f, parent))?;
    }
    tree.write(&rel, content).map_err(|f| explain(f, &rel))
}

/// Copies a folder's entries into `tree` under `rel`, in the order the
/// disk copy made them: sorted by name, a folder before its contents.
fn copy_tree(from: &Path, rel: &Path, tree: &mut Tree) -> Result<(), ImageError> {
    let unreadable = |path: &Path, e: std::io::Error| ImageError::FixtureUnreadable {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let mut entries = fs::read_dir(from)
        .and_then(|list| list.collect::<Result<Vec<_>, _>>())
        .map_err(|e| unreadable(from, e))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name: OsString = entry.file_name();
        let source = entry.path();
        let target = rel.join(&name);
        let meta = fs::symlink_metadata(&source).map_err(|e| unreadable(&source, e))?;
        let kind = meta.file_type();
        if kind.is_dir() {
            tree.insert(&target, NodeKind::Dir);
            copy_tree(&source, &target, tree)?;
        } else if kind.is_symlink() {
            let link = fs::read_link(&source).map_err(|e| unreadable(&source, e))?;
            tree.insert(&target, NodeKind::Symlink(link));
        } else if kind.is_file() {
            let data = read_fixture_file(&source)?;
            let mode = meta.permissions().mode() & 0o7777;
            tree.insert(
                &target,
                NodeKind::File {
                    data: Arc::from(data),
                    mode: Some(mode),
                },
            );
        } else {
            return Err(ImageError::FixtureSpecial {
                path: source.display().to_string(),
                kind: kind_name(meta.permissions().mode()),
            });
        }
    }
    Ok(())
}

/// Reads a fixture file that was listed as regular: non-blocking and
/// without following a symlink, and checked again once open, so an entry
/// swapped for a FIFO cannot block.
fn read_fixture_file(path: &Path) -> Result<Vec<u8>, ImageError> {
    let unreadable = |e: std::io::Error| ImageError::FixtureUnreadable {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY)
        .open(path)
        .map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(ImageError::FixtureSpecial {
            path: path.display().to_string(),
            kind: kind_name(meta.permissions().mode()),
        });
    }
    let mut data = Vec::new();
    file.take(MAX_FIXTURE_FILE_BYTES + 1)
        .read_to_end(&mut data)
        .map_err(unreadable)?;
    if data.len() as u64 > MAX_FIXTURE_FILE_BYTES {
        return Err(ImageError::FixtureUnreadable {
            path: path.display().to_string(),
            message: format!("larger than {MAX_FIXTURE_FILE_BYTES} bytes"),
        });
    }
    Ok(data)
}

/// The folder tree a scenario's fixture must stay in: the nearest
/// ancestor of the scenario file holding `.git`, else the file's folder.
pub fn repository_of(scenario_file: &Path) -> Option<PathBuf> {
    let folder = scenario_file.parent().unwrap_or(Path::new("."));
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let folder = folder.canonicalize().ok()?;
    let repository = folder
        .ancestors()
        .find(|a| a.join(".git").exists())
        .unwrap_or(&folder);
    Some(repository.to_path_buf())
}

/// Why the fixture folder `resolved` (as joined to the scenario's folder)
/// may not be used: it resolves outside the scenario's repository.
pub fn fixture_outside_repository(scenario_file: &Path, resolved: &Path) -> Option<String> {
    let repository = repository_of(scenario_file)?;
    let real = resolved.canonicalize().ok()?;
    if real.starts_with(&repository) {
        None
    } else {
        // No absolute paths: the message must read the same on any machine.
        Some(
            "resolves outside the scenario's repository (the nearest folder above the scenario holding .git, else the scenario's own folder)"
                .to_string(),
        )
    }
}

/// The 1-based line and column of `key` as a mapping key in YAML `text`
/// (plain or quoted), for errors found after parsing.
pub fn locate_key(text: &str, key: &str) -> Option<(u64, u64)> {
    let forms = [
        format!("{key}:"),
        format!("\"{key}\":"),
        format!("'{key}':"),
    ];
    // Keys of `files:` come after it.
    let skip = text
        .lines()
        .position(|l| l.trim_start().starts_with("files:"))
        .map_or(0, |i| i + 1);
    text.lines().enumerate().skip(skip).find_map(|(i, line)| {
        let trimmed = line.trim_start();
        let column = line.len() - trimmed.len() + 1;
        forms
            .iter()
            .any(|f| trimmed.starts_with(f.as_str()))
            .then_some(((i + 1) as u64, column as u64))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_conflicts_are_image_errors() {
        let err = WorkspaceImage::build(None, [("a", "x"), ("a/b", "y")]).unwrap_err();
        assert_eq!(err.file_key(), Some("a/b"));
        assert!(err.to_string().contains("File exists: 'a'"), "{err}");
        let err = WorkspaceImage::build(None, [("a\0b", "x")]).unwrap_err();
        assert!(err.to_string().contains("NUL"), "{err}");
        let image = WorkspaceImage::build(None, [("d/e.txt", "x"), ("./f", "y")]).unwrap();
        assert!(image.in_memory());
    }

    #[test]
    fn fixture_order_and_modes_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("b")).unwrap();
        fs::write(dir.path().join("b/z"), "z").unwrap();
        fs::write(dir.path().join("a"), "a").unwrap();
        fs::set_permissions(dir.path().join("a"), fs::Permissions::from_mode(0o755)).unwrap();
        let image = WorkspaceImage::build(Some(dir.path()), [("c", "c")]).unwrap();
        let order: Vec<_> = image
            .tree
            .in_creation_order()
            .into_iter()
            .map(|(p, n)| (p.display().to_string(), n.kind.clone()))
            .collect();
        let names: Vec<_> = order.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["a", "b", "b/z", "c"]);
        assert!(matches!(
            order[0].1,
            NodeKind::File {
                mode: Some(0o755),
                ..
            }
        ));
    }

    #[test]
    fn special_files_in_fixtures_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let err = WorkspaceImage::build(Some(dir.path()), []).unwrap_err();
        assert!(
            matches!(err, ImageError::FixtureSpecial { kind: "FIFO", .. }),
            "{err}"
        );
    }

    #[test]
    fn keys_are_located() {
        let text = "task: 'a: b'\nworkspace:\n  files:\n    a: x\n    \"a/b\": y\n";
        assert_eq!(locate_key(text, "a/b"), Some((5, 5)));
        assert_eq!(locate_key(text, "a"), Some((4, 5)));
        assert_eq!(locate_key(text, "zz"), None);
    }

    /// What a `files:` entry that cannot be written says, byte for byte.
    #[test]
    fn a_file_entry_error_says_what_it_always_said() {
        let in_memory = |error| {
            ImageError::FileInMemory {
                path: "a/b".into(),
                error,
            }
            .to_string()
        };
        assert_eq!(
            in_memory(FileEntryError::Escapes),
            "workspace.files `a/b` cannot be written: the path escapes the workspace"
        );
        assert_eq!(
            in_memory(FileEntryError::Nul),
            "workspace.files `a/b` cannot be written: the path holds a NUL byte"
        );
        let mut tree = Tree::default();
        write_file(&mut tree, "f", Arc::from(&b"x"[..])).unwrap();
        let error = write_file(&mut tree, "f/g", Arc::from(&b"y"[..])).unwrap_err();
        assert_eq!(
            in_memory(error),
            "workspace.files `a/b` cannot be written: File exists: 'f'"
        );
    }
}
