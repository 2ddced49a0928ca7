//! The files of the agent's workspace the translation reads (an edit sent
//! as Codex's `apply_patch` needs the file's text for its context), read
//! as untrusted: the agent and the model shape the workspace and the path.
//!
//! A path is read only when it stays in the workspace (relative, or
//! absolute below it; resolved by the kernel beneath the workspace folder,
//! so no `..` or symlink leads out), names a regular file with one link
//! (a FIFO, a device or a socket is never opened for reading, and the
//! open is non-blocking), is at most [`MAX_FILE_BYTES`] long and is UTF-8.
//! Anything else reads as no file. The server reads them before it takes
//! the translation's lock ([`Translation::files_to_read`], then
//! [`read_files`]).
//!
//! [`Translation::files_to_read`]: super::Translation::files_to_read

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use crate::sandbox::workspace::{DiskRoot, Target};

/// The longest file the translation reads.
pub const MAX_FILE_BYTES: u64 = 8 << 20;

/// The text of `path` in the workspace `root`, under the rules above.
pub fn read_beneath(root: &Path, path: &str) -> Option<String> {
    let asked = Path::new(path);
    let rel = if asked.is_absolute() {
        asked.strip_prefix(root).ok()?
    } else {
        asked
    };
    let disk = DiskRoot::open(root).ok()?;
    let resolved = root.join(rel);
    let target = Target {
        requested: path,
        resolved: &resolved,
        rel,
    };
    let (file, size) = disk.open_read(&target).ok()?;
    if size > MAX_FILE_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The texts of `paths` that read, by path.
pub fn read_files(root: Option<&Path>, paths: &[String]) -> BTreeMap<String, String> {
    let Some(root) = root else {
        return BTreeMap::new();
    };
    paths
        .iter()
        .filter_map(|path| Some((path.clone(), read_beneath(root, path)?)))
        .collect()
}
