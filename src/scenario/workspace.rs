//! What a run's workspace starts with (`workspace:`), and the relative
//! paths scenario files may name inside it.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// What the workspace starts with.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceSpec {
    /// A folder copied in first, relative to the scenario file. The loader
    /// resolves it against the file's folder and checks it is a folder.
    pub fixture: Option<serde_saphyr::Spanned<PathBuf>>,
    /// Files written after the fixture, in path order, with where the
    /// mapping stands in the scenario file (an entry whose key cannot be
    /// found in the text is reported at it).
    #[serde(default)]
    pub files: Option<serde_saphyr::Spanned<BTreeMap<WorkspacePath, String>>>,
    /// The fixture and files read once (by the loader, or on first use)
    /// and shared by every run.
    #[serde(skip)]
    pub image: std::sync::OnceLock<std::sync::Arc<crate::sandbox::workspace::WorkspaceImage>>,
}

impl WorkspaceSpec {
    /// The `files:` entries, in path order.
    pub fn files(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files
            .iter()
            .flat_map(|f| f.value.iter())
            .map(|(p, c)| (p.as_str(), c.as_str()))
    }

    /// The 1-based line and column where the `files:` mapping starts.
    pub fn files_at(&self) -> Option<(u64, u64)> {
        self.files
            .as_ref()
            .map(|f| (f.referenced.line(), f.referenced.column()))
    }
}

/// The most components a workspace path may have. Real trees are far
/// shallower; a path thousands of levels deep is a mistake or an attack
/// on the loader, refused with its line (docs/scenario-format.md).
pub const MAX_PATH_DEPTH: usize = 128;
/// The longest workspace path, in bytes: Linux's `PATH_MAX` less its NUL.
pub const MAX_PATH_BYTES: usize = 4095;
/// The longest component, in bytes (`NAME_MAX` of ext4 and tmpfs).
pub const MAX_NAME_BYTES: usize = 255;

/// A relative path that stays inside the workspace (no root, no `..`) and
/// within `MAX_PATH_DEPTH`, `MAX_PATH_BYTES` and `MAX_NAME_BYTES`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct WorkspacePath(String);

impl WorkspacePath {
    pub fn parse(raw: &str) -> Result<Self, WorkspacePathError> {
        if raw.trim().is_empty() {
            return Err(WorkspacePathError::Empty);
        }
        if raw.contains('\0') {
            return Err(WorkspacePathError::Nul(raw.to_string()));
        }
        if raw.len() > MAX_PATH_BYTES {
            return Err(WorkspacePathError::TooLong {
                start: shorten(raw).to_string(),
                bytes: raw.len(),
            });
        }
        let mut depth = 0;
        for component in Path::new(raw).components() {
            match component {
                Component::Normal(name) => {
                    depth += 1;
                    if depth > MAX_PATH_DEPTH {
                        return Err(WorkspacePathError::TooDeep(shorten(raw).to_string()));
                    }
                    if name.len() > MAX_NAME_BYTES {
                        return Err(WorkspacePathError::LongName(shorten(raw).to_string()));
                    }
                }
                Component::CurDir => {}
                Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                    return Err(WorkspacePathError::Escapes(raw.to_string()));
                }
            }
        }
        Ok(Self(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why a workspace path cannot be used; the message follows the file:LINE
/// of the scenario entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkspacePathError {
    #[error("workspace path is empty")]
    Empty,
    #[error("workspace path {0:?} holds a NUL byte")]
    Nul(String),
    /// `start`: the path's first characters ([`shorten`]).
    #[error("workspace path `{start}…` is {bytes} bytes long (at most {MAX_PATH_BYTES})")]
    TooLong { start: String, bytes: usize },
    #[error("workspace path `{0}…` is more than {MAX_PATH_DEPTH} folders deep")]
    TooDeep(String),
    #[error("workspace path `{0}…` has a name longer than {MAX_NAME_BYTES} bytes")]
    LongName(String),
    #[error("workspace path `{0}` escapes the workspace (use a relative path without `..`)")]
    Escapes(String),
}

/// The start of a long path, for a message (whole characters).
fn shorten(raw: &str) -> &str {
    let end = raw
        .char_indices()
        .map(|(i, c)| i + c.len_utf8())
        .take_while(|&end| end <= 60)
        .last()
        .unwrap_or(0);
    &raw[..end]
}

impl<'de> Deserialize<'de> for WorkspacePath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Self::parse(&raw).map_err(de::Error::custom)
    }
}
