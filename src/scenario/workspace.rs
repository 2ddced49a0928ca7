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
    /// Files written after the fixture, in path order.
    #[serde(default)]
    pub files: BTreeMap<WorkspacePath, String>,
    /// The fixture and files read once (by the loader, or on first use)
    /// and shared by every run.
    #[serde(skip)]
    pub image: std::sync::OnceLock<std::sync::Arc<crate::sandbox::workspace::WorkspaceImage>>,
}

/// A relative path that stays inside the workspace (no root, no `..`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct WorkspacePath(String);

impl WorkspacePath {
    pub fn parse(raw: &str) -> Result<Self, String> {
        if raw.trim().is_empty() {
            return Err("workspace path is empty".into());
        }
        if raw.contains('\0') {
            return Err(format!("workspace path {raw:?} holds a NUL byte"));
        }
        for component in Path::new(raw).components() {
            match component {
                Component::Normal(_) | Component::CurDir => {}
                Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                    return Err(format!(
                        "workspace path `{raw}` escapes the workspace (use a relative path without `..`)"
                    ));
                }
            }
        }
        Ok(Self(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for WorkspacePath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Self::parse(&raw).map_err(de::Error::custom)
    }
}
