//! What can go wrong when a tool or a check touches the workspace, worded
//! for the model (the texts follow Python's `OSError` where the reference
//! would raise one).

use std::io;
use std::path::Path;

/// The largest file `read_file` and `edit_file` will read (256 MiB).
pub const MAX_READ_BYTES: u64 = 256 << 20;

/// std's wording for a path holding a NUL byte (what `fs::read` says), so
/// both workspace kinds answer as the reference's harness did.
pub const NUL_IN_PATH: &str = "file name contained an unexpected NUL byte";

/// Why a workspace access failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// The path resolves outside the workspace (or a symlink on the way
    /// changed to lead outside while it was opened).
    #[error("Path escapes workspace: {path}")]
    Escapes { path: String },
    /// An operating-system error, as Python words an `OSError`.
    #[error("{0}")]
    Os(String),
    /// A FIFO, a device or a socket: opening or reading one could block
    /// forever or have side effects.
    #[error("Not a regular file: '{path}' is a {kind}")]
    NotRegular { path: String, kind: &'static str },
    /// A second name of a file may live outside the workspace.
    #[error("Refusing '{path}': it has {links} hard links (one may be outside the workspace)")]
    HardLinked { path: String, links: u64 },
    #[error("File too large: {size} bytes (the limit is {MAX_READ_BYTES})")]
    TooLarge { size: u64 },
    /// What was checked is not what was opened: something replaced it.
    #[error("'{path}' changed while it was being opened")]
    Changed { path: String },
}

/// An I/O error worded as Python words it (`[Errno 2] No such file or
/// directory: '/ws/x'`), so transcripts match the reference's.
pub fn os_error(error: &io::Error, path: &Path) -> AccessError {
    AccessError::Os(match error.raw_os_error() {
        Some(code) => {
            let text = error.to_string();
            let reason = text
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&text)
                .to_string();
            format!("[Errno {code}] {reason}: '{}'", path.display())
        }
        None => error.to_string(),
    })
}

/// [`os_error`] for a raw error number.
pub fn errno(code: i32, path: &Path) -> AccessError {
    os_error(&io::Error::from_raw_os_error(code), path)
}

/// How a non-regular file is named in errors.
pub fn kind_name(mode: u32) -> &'static str {
    match mode & libc::S_IFMT {
        libc::S_IFIFO => "FIFO",
        libc::S_IFCHR => "character device",
        libc::S_IFBLK => "block device",
        libc::S_IFSOCK => "socket",
        libc::S_IFLNK => "symlink",
        libc::S_IFDIR => "folder",
        _ => "special file",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_wording_is_std_s() {
        let err = std::fs::read("a\0b").unwrap_err();
        assert_eq!(err.to_string(), NUL_IN_PATH);
        assert_eq!(
            os_error(&err, Path::new("x")),
            AccessError::Os(NUL_IN_PATH.into())
        );
    }

    #[test]
    fn errno_is_worded_like_python() {
        assert_eq!(
            errno(libc::ENOENT, Path::new("/ws/x")).to_string(),
            "[Errno 2] No such file or directory: '/ws/x'"
        );
    }
}
