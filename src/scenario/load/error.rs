//! The one error of loading a scenario: a file, a position when known,
//! and a message.

use std::path::{Path, PathBuf};

/// A scenario that could not be read or is invalid. Displays as
/// `FILE:LINE:COLUMN: message` when a position is known, else `FILE: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.headline())]
pub struct LoadError {
    pub file: PathBuf,
    /// 1-based line and column.
    pub position: Option<(u64, u64)>,
    pub message: String,
}

impl LoadError {
    /// An error of `file` at `position` (1-based line and column), if known.
    pub fn new(file: &Path, position: Option<(u64, u64)>, message: impl Into<String>) -> Self {
        Self {
            file: file.to_path_buf(),
            position,
            message: message.into(),
        }
    }

    fn headline(&self) -> String {
        match self.position {
            Some((line, column)) => {
                format!("{}:{line}:{column}: {}", self.file.display(), self.message)
            }
            None => format!("{}: {}", self.file.display(), self.message),
        }
    }
}
