//! Opening the files a user names (scenarios, reports to read back) so
//! that a wrong path cannot hang the command.
//!
//! A plain `open` of a FIFO blocks until some process opens it for writing,
//! and while blocked the process cannot act on Ctrl-C or SIGTERM (the
//! handler only sets a flag). So input files are opened non-blocking and
//! must be regular files: a FIFO, a device or a socket is refused with a
//! message saying what it is. Fixtures have the same rule (see
//! `sandbox::workspace::image`). Floor 1: imports nothing from the crate.
//!
//! Also the one rule for the other direction, a name from a scenario
//! (its name, a cell's settings) made into a file name: [`file_stem`].

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Opens `path` (symlinks followed) for reading if it is a regular file;
/// otherwise an error naming what it is (`not a regular file: a FIFO`).
/// Never blocks.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        // Reads of a regular file never block; O_NONBLOCK changes nothing.
        return Ok(file);
    }
    let what = if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("not a regular file: {what}"),
    ))
}

/// `text` as a file name's stem: letters, digits, `-`, `_` and `.` kept,
/// anything else (`/` included) replaced by `_`, leading dots dropped (no
/// `..`, no hidden file). Empty when nothing is left: the caller names
/// that case.
pub fn file_stem(text: &str) -> String {
    let stem: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    stem.trim_start_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f.yaml");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = open_regular(&fifo).unwrap_err();
        assert_eq!(err.to_string(), "not a regular file: a FIFO");
        let err = open_regular(dir.path()).unwrap_err();
        assert_eq!(err.to_string(), "not a regular file: a folder");
        let err = open_regular(Path::new("/dev/null")).unwrap_err();
        assert_eq!(err.to_string(), "not a regular file: a character device");
        std::fs::write(dir.path().join("ok"), "x").unwrap();
        assert!(open_regular(&dir.path().join("ok")).is_ok());
    }
}
