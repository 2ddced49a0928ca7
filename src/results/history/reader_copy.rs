//! What a reader of the history (`agent-eval history`, `--baseline`) reads
//! when it cannot read the file in place without writing beside it: a
//! journal is beside the database (a writer is at work, or one stopped
//! half-way), or the file is at an older schema version a reader may not
//! migrate. Then the database and its journal are copied, byte for byte
//! and without following a link, into a private folder, and SQLite reads
//! (recovers, migrates) the copy: the user's folder gets no `-wal` or
//! `-shm` of the reader's, which its owner could not write after.

use std::path::Path;

use super::HistoryError;
use super::schema::companion;

/// The copy's file name in its private folder.
pub(super) const NAME: &str = "history.db";

/// The journals that can hold committed pages not yet in the file.
const JOURNALS: [&str; 2] = ["-wal", "-journal"];

/// Whether a journal with something in it is beside `path`.
pub(super) fn journal_beside(path: &Path) -> bool {
    JOURNALS
        .iter()
        .any(|suffix| std::fs::symlink_metadata(companion(path, suffix)).is_ok_and(|m| m.len() > 0))
}

/// Copies `path` and its non-empty journals into a new private folder.
pub(super) fn copy(path: &Path) -> Result<tempfile::TempDir, HistoryError> {
    let io = |at: &Path| {
        let at = at.to_path_buf();
        move |source| HistoryError::Io { path: at, source }
    };
    let folder = tempfile::Builder::new()
        .prefix("agent-eval-history-")
        .tempdir()
        .map_err(io(path))?;
    let target = folder.path().join(NAME);
    copy_regular(path, &target).map_err(io(path))?;
    for suffix in JOURNALS {
        let journal = companion(path, suffix);
        match std::fs::symlink_metadata(&journal) {
            Ok(meta) if meta.len() > 0 => {
                copy_regular(&journal, &companion(&target, suffix)).map_err(io(&journal))?;
            }
            _ => {}
        }
    }
    Ok(folder)
}

/// Copies a regular file, opened without following a link or blocking.
fn copy_regular(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut source = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(from)?;
    if !source.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut target = std::fs::File::create_new(to)?;
    std::io::copy(&mut source, &mut target)?;
    Ok(())
}
