//! One check every command that writes files makes before anything runs:
//! no output is the same file as an input, the history database, or
//! another output. `history h.db --svg h.db` or `run --history h.db
//! --json h.db` would otherwise replace the whole history with a report
//! and exit 0. "The same file" is the same device and inode when the path
//! exists (a second name, a symbolic link or `./` in front is still the
//! same file), else the same canonical folder and name; `-` is stdout.
//! No output may name a FIFO, a socket or a device either
//! ([`not_a_file`]): opening a FIFO nobody reads blocks for ever, and a
//! device is no report's place. `/dev/null` alone is taken (and may be
//! named twice): it keeps nothing.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::{AppError, STDOUT};

/// What a path names, for telling whether two paths name one file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Identity {
    /// An existing file or folder.
    Inode { device: u64, inode: u64 },
    /// A file not made yet: its folder's canonical path and its name.
    Planned(PathBuf),
}

/// The file `path` names; `None` for stdout, a device or a pipe (written
/// in place, never replaced).
fn identity(path: &Path) -> Option<Identity> {
    if path == Path::new(STDOUT) {
        return None;
    }
    if let Ok(meta) = std::fs::metadata(path) {
        return (meta.is_file() || meta.is_dir()).then(|| Identity::Inode {
            device: meta.dev(),
            inode: meta.ino(),
        });
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(Identity::Planned(
        match (folder.canonicalize(), path.file_name()) {
            (Ok(folder), Some(name)) => folder.join(name),
            _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
        },
    ))
}

/// Whether `path` lies below the folder `folder` names (at any depth,
/// through any name, symbolic links followed: the folders above it are
/// compared by device and inode).
fn inside(path: &Path, folder: &Identity) -> bool {
    let Identity::Inode { .. } = folder else {
        return false;
    };
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // An output that exists is judged where it leads (a symbolic link to
    // a transcript inside a folder read); one not made yet by its folder.
    let start = match path.canonicalize() {
        Ok(real) => real.parent().map(Path::to_path_buf),
        Err(_) => parent.canonicalize().ok(),
    };
    let Some(mut at) = start else {
        return false;
    };
    loop {
        if std::fs::metadata(&at).is_ok_and(|meta| {
            *folder
                == Identity::Inode {
                    device: meta.dev(),
                    inode: meta.ino(),
                }
        }) {
            return true;
        }
        if !at.pop() {
            return false;
        }
    }
}

/// Why `path`, as an output, is refused before anything runs: it is (or a
/// symbolic link leads to) a FIFO, a socket or a device other than
/// `/dev/null`. `None` for a regular file, a folder, a path not made yet,
/// and `-` (stdout).
pub fn not_a_file(path: &Path) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if path == Path::new(STDOUT) {
        return None;
    }
    let kind = std::fs::metadata(path).ok()?.file_type();
    let what = if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        return None;
    };
    let null = path
        .canonicalize()
        .is_ok_and(|p| p == Path::new("/dev/null"));
    (!null).then_some(what)
}

/// [`not_a_file`] as the error of `role` (`--json`, `$GITHUB_STEP_SUMMARY`).
pub fn refuse_not_a_file(role: &str, path: &Path) -> Result<(), AppError> {
    match not_a_file(path) {
        Some(what) => Err(AppError::Usage(format!(
            "{}: {role} names {what}, not a regular file (a FIFO would block, a device is no place for it); nothing was run or written. Give it a regular file",
            path.display()
        ))),
        None => Ok(()),
    }
}

/// Whether `a` and `b` name one file (never for stdout, a device or a
/// pipe, which are written in place).
pub fn same_file(a: &Path, b: &Path) -> bool {
    matches!((identity(a), identity(b)), (Some(x), Some(y)) if x == y)
}

/// A file a command reads or writes, and what it is to the command
/// (`--json`, `scenario`, `the history database`), for the message.
pub struct Named<'a> {
    pub role: String,
    pub path: &'a Path,
}

impl<'a> Named<'a> {
    pub fn new(role: impl Into<String>, path: &'a Path) -> Self {
        Self {
            role: role.into(),
            path,
        }
    }
}

/// Refuses (exit 2, before anything runs or is written) an output that
/// is the same file as one of `inputs` (the files read, the history
/// database) or as an earlier output, or that lies inside a folder among
/// `inputs` (a folder read whole, as `calibrate` reads one).
pub fn refuse_overlaps(outputs: &[Named<'_>], inputs: &[Named<'_>]) -> Result<(), AppError> {
    let inputs: Vec<(&Named<'_>, Identity)> = inputs
        .iter()
        .filter_map(|n| identity(n.path).map(|id| (n, id)))
        .collect();
    let mut written: Vec<(&Named<'_>, Identity)> = Vec::new();
    for output in outputs {
        refuse_not_a_file(&output.role, output.path)?;
        let Some(id) = identity(output.path) else {
            continue;
        };
        let clash = inputs
            .iter()
            .map(|(n, i)| (n, i, "read"))
            .chain(written.iter().map(|(n, i)| (n, i, "written")))
            .find(|(_, other, _)| **other == id);
        if let Some((folder, _)) = inputs.iter().find(|(_, i)| inside(output.path, i)) {
            return Err(AppError::Usage(format!(
                "{}: {} would be written inside {} ({}, a folder read by this command); nothing was run or written. Give {} a file outside it",
                output.path.display(),
                output.role,
                folder.path.display(),
                folder.role,
                output.role
            )));
        }
        if let Some((other, _, how)) = clash {
            return Err(AppError::Usage(format!(
                "{}: {} would overwrite {} ({}, also {how} by this command); nothing was run or written. Give {} another file",
                output.path.display(),
                output.role,
                other.path.display(),
                other.role,
                output.role
            )));
        }
        written.push((output, id));
    }
    Ok(())
}

/// `$GITHUB_STEP_SUMMARY` is appended to by every step of the job (a
/// `--markdown` of the same file is a documented recipe), but never over
/// a file the command reads.
pub fn refuse_step_summary_over(
    step_summary: Option<&Path>,
    inputs: &[Named<'_>],
) -> Result<(), AppError> {
    match step_summary {
        Some(summary) => refuse_overlaps(&[Named::new("$GITHUB_STEP_SUMMARY", summary)], inputs),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clash(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Option<String> {
        fn named<'a>(list: &[(&str, &'a Path)]) -> Vec<Named<'a>> {
            list.iter().map(|(r, p)| Named::new(*r, p)).collect()
        }
        refuse_overlaps(&named(outputs), &named(inputs))
            .err()
            .map(|e| e.to_string())
    }

    #[test]
    fn the_same_file_under_another_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("h.db"), "x").unwrap();
        std::fs::hard_link(d.join("h.db"), d.join("second")).unwrap();
        std::os::unix::fs::symlink(d.join("h.db"), d.join("link")).unwrap();
        std::fs::create_dir(d.join("sub")).unwrap();
        let db = d.join("h.db");
        let input = [("the history database", db.as_path())];
        for other in ["h.db", "second", "link", "sub/../h.db"] {
            let output = d.join(other);
            let e = clash(&[("--json", &output)], &input).expect(other);
            assert!(
                e.contains("--json would overwrite") && e.contains("history"),
                "{e}"
            );
        }
        // A file not made yet, named twice by two routes.
        let (a, b) = (d.join("new.json"), d.join("sub/../new.json"));
        let e = clash(&[("--json", &a), ("--html", &b)], &[]).unwrap();
        assert!(e.contains("--html would overwrite"), "{e}");
        // A missing history and a report of the same name.
        let missing = d.join("fresh.db");
        let e = clash(
            &[("--svg", &missing)],
            &[("the history database", &missing)],
        );
        assert!(e.is_some());
        // Other files, stdout twice and a device twice are fine.
        let (x, dash, null) = (d.join("x.json"), Path::new("-"), Path::new("/dev/null"));
        assert_eq!(
            clash(
                &[("--json", &x), ("--junit", null), ("--html", null)],
                &input
            ),
            None
        );
        assert_eq!(clash(&[("--json", dash), ("--html", dash)], &input), None);
    }

    #[test]
    fn an_output_inside_a_folder_read_is_refused_at_any_depth() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("logs/deep")).unwrap();
        std::os::unix::fs::symlink(d.join("logs"), d.join("alias")).unwrap();
        let logs = d.join("logs");
        let input = [("a transcript folder", logs.as_path())];
        for output in [
            "logs/new.json",
            "logs/deep/p.yaml",
            "alias/x.html",
            "logs/deep/../y",
        ] {
            let output = d.join(output);
            let e = clash(&[("--out", &output)], &input).expect("refused");
            assert!(e.contains("inside"), "{e}");
        }
        let beside = d.join("profile.yaml");
        assert_eq!(clash(&[("--out", &beside)], &input), None);
    }
}
