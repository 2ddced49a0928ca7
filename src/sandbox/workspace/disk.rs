//! Race-free access to a workspace folder on disk.
//!
//! Every open is one `openat2` call relative to the workspace's folder
//! descriptor with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`: the kernel
//! resolves the whole path and refuses (`EXDEV`) any step that would leave
//! the folder — `..`, an absolute symlink, a symlink leading out — at the
//! moment of the open. Nothing is re-walked after a check, so a symlink
//! swapped in between cannot lead the open outside.
//!
//! A path is first opened with `O_PATH` (which opens nothing: no FIFO can
//! block, no device can react) and `fstat`ed; only a regular file with a
//! single link is then opened for reading or writing, non-blocking, and
//! checked to be the same file (device and inode) as the one inspected.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{FileType, Mode, OFlags, ResolveFlags, Stat};

use super::error::{AccessError, MAX_READ_BYTES, NUL_IN_PATH, errno, kind_name, os_error};

const RESOLVE: ResolveFlags = ResolveFlags::BENEATH.union(ResolveFlags::NO_MAGICLINKS);

/// The workspace folder, held open.
#[derive(Debug)]
pub struct DiskRoot {
    fd: OwnedFd,
}

/// A path inside the workspace: what the model asked for (for escape
/// errors), where it resolved (for other errors) and the part below the
/// root (what is opened).
pub struct Target<'a> {
    pub requested: &'a str,
    pub resolved: &'a Path,
    pub rel: &'a Path,
}

impl Target<'_> {
    fn rel_or_dot(&self) -> &Path {
        if self.rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            self.rel
        }
    }

    fn escapes(&self) -> AccessError {
        AccessError::Escapes {
            path: self.requested.to_string(),
        }
    }

    /// An error of an open beneath the root: leaving it is an escape.
    fn open_error(&self, e: rustix::io::Errno) -> AccessError {
        if e == rustix::io::Errno::XDEV || e == rustix::io::Errno::LOOP {
            self.escapes()
        } else {
            errno(e.raw_os_error(), self.resolved)
        }
    }

    fn has_nul(&self) -> bool {
        self.rel.as_os_str().as_bytes().contains(&0)
    }
}

fn io_error(e: rustix::io::Errno) -> io::Error {
    io::Error::from_raw_os_error(e.raw_os_error())
}

impl DiskRoot {
    /// Opens the (canonical) workspace folder.
    pub fn open(root: &Path) -> io::Result<Self> {
        let fd = rustix::fs::open(
            root,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(io_error)?;
        Ok(Self { fd })
    }

    fn openat(&self, rel: &Path, flags: OFlags, mode: Mode) -> rustix::io::Result<OwnedFd> {
        rustix::fs::openat2(&self.fd, rel, flags | OFlags::CLOEXEC, mode, RESOLVE)
    }

    /// `O_PATH` open and `fstat`; `Ok(None)` when the path does not exist.
    fn probe(&self, target: &Target<'_>) -> Result<Option<Stat>, AccessError> {
        match self.openat(target.rel_or_dot(), OFlags::PATH, Mode::empty()) {
            Ok(fd) => rustix::fs::fstat(&fd)
                .map(Some)
                .map_err(|e| errno(e.raw_os_error(), target.resolved)),
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(e) => Err(target.open_error(e)),
        }
    }

    /// Whether the path exists (as `Path::exists`: symlinks followed).
    pub fn exists(&self, target: &Target<'_>) -> bool {
        !target.has_nul() && matches!(self.probe(target), Ok(Some(_)))
    }

    /// Opens a regular, singly linked file for reading; a folder gives
    /// `EISDIR` (what reading one gives).
    pub fn open_read(&self, target: &Target<'_>) -> Result<(File, u64), AccessError> {
        if target.has_nul() {
            return Err(AccessError::Os(NUL_IN_PATH.into()));
        }
        let stat = self
            .probe(target)?
            .ok_or_else(|| errno(libc::ENOENT, target.resolved))?;
        refuse_unless_regular(&stat, target)?;
        let fd = self
            .openat(
                target.rel_or_dot(),
                OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY,
                Mode::empty(),
            )
            .map_err(|e| target.open_error(e))?;
        same_file(&fd, &stat, target)?;
        Ok((File::from(fd), stat.st_size as u64))
    }

    /// Reads a whole file, capped at [`MAX_READ_BYTES`].
    pub fn read(&self, target: &Target<'_>) -> Result<Vec<u8>, AccessError> {
        let (file, size) = self.open_read(target)?;
        if size > MAX_READ_BYTES {
            return Err(AccessError::TooLarge { size });
        }
        let mut bytes = Vec::with_capacity(size as usize);
        file.take(MAX_READ_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| os_error(&e, target.resolved))?;
        if bytes.len() as u64 > MAX_READ_BYTES {
            return Err(AccessError::TooLarge {
                size: bytes.len() as u64,
            });
        }
        Ok(bytes)
    }

    /// Writes `data` to the file (creating it, and its parent folders when
    /// `create_parents`), as `create_dir_all(parent)` then `fs::write`
    /// would, but beneath the root only.
    pub fn write(
        &self,
        target: &Target<'_>,
        data: &[u8],
        create_parents: bool,
    ) -> Result<(), AccessError> {
        if create_parents && let Some(parent) = target.rel.parent() {
            self.create_parents(target, parent)?;
        }
        if target.has_nul() {
            return Err(AccessError::Os(NUL_IN_PATH.into()));
        }
        let flags = OFlags::WRONLY | OFlags::NONBLOCK | OFlags::NOCTTY;
        let fd = match self.probe(target)? {
            Some(stat) => {
                refuse_unless_regular(&stat, target)?;
                let fd = self
                    .openat(target.rel_or_dot(), flags, Mode::empty())
                    .map_err(|e| target.open_error(e))?;
                same_file(&fd, &stat, target)?;
                // Truncated only once known to be the file inspected.
                rustix::fs::ftruncate(&fd, 0)
                    .map_err(|e| errno(e.raw_os_error(), target.resolved))?;
                fd
            }
            None => self
                .openat(
                    target.rel_or_dot(),
                    flags | OFlags::CREATE | OFlags::EXCL,
                    Mode::from_raw_mode(0o666),
                )
                .map_err(|e| match e {
                    // O_EXCL refuses a symlink put at the last component.
                    rustix::io::Errno::EXIST => AccessError::Changed {
                        path: target.resolved.display().to_string(),
                    },
                    e => target.open_error(e),
                })?,
        };
        File::from(fd)
            .write_all(data)
            .map_err(|e| os_error(&e, target.resolved))
    }

    /// Creates the folders of `parent` (relative) one component at a time,
    /// each relative to the previous one's descriptor. Errors are those of
    /// `create_dir_all` on the whole parent path.
    fn create_parents(&self, target: &Target<'_>, parent: &Path) -> Result<(), AccessError> {
        let shown = target.resolved.parent().unwrap_or(target.resolved);
        if parent.as_os_str().as_bytes().contains(&0) {
            return Err(AccessError::Os(NUL_IN_PATH.into()));
        }
        let parts: Vec<_> = parent.iter().collect();
        let mut current: Option<OwnedFd> = None;
        for (i, part) in parts.iter().enumerate() {
            let dir = current.as_ref().map_or(self.fd.as_fd(), |fd| fd.as_fd());
            let open = || {
                rustix::fs::openat2(
                    dir,
                    *part,
                    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                    Mode::empty(),
                    RESOLVE,
                )
            };
            let fd = match open() {
                Ok(fd) => fd,
                Err(rustix::io::Errno::NOENT) => {
                    match rustix::fs::mkdirat(dir, *part, Mode::from_raw_mode(0o777)) {
                        Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                        Err(e) => return Err(errno(e.raw_os_error(), shown)),
                    }
                    open().map_err(|e| target.open_error(e))?
                }
                // Something that is not a folder: `mkdir` of the whole
                // path says EEXIST when it is the parent itself, ENOTDIR
                // when it is further up.
                Err(rustix::io::Errno::NOTDIR) => {
                    let code = if i + 1 == parts.len() {
                        libc::EEXIST
                    } else {
                        libc::ENOTDIR
                    };
                    return Err(errno(code, shown));
                }
                Err(e @ (rustix::io::Errno::XDEV | rustix::io::Errno::LOOP)) => {
                    return Err(target.open_error(e));
                }
                Err(e) => return Err(errno(e.raw_os_error(), shown)),
            };
            current = Some(fd);
        }
        Ok(())
    }

    /// Writes a memory tree's node into the (fresh, private) folder.
    pub fn create_dir(&self, rel: &Path) -> io::Result<()> {
        rustix::fs::mkdirat(&self.fd, rel, Mode::from_raw_mode(0o777)).map_err(io_error)
    }

    pub fn create_file(&self, rel: &Path, data: &[u8], mode: Option<u32>) -> io::Result<()> {
        let fd = rustix::fs::openat2(
            &self.fd,
            rel,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
            RESOLVE | ResolveFlags::NO_SYMLINKS,
        )
        .map_err(io_error)?;
        if let Some(mode) = mode {
            rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode)).map_err(io_error)?;
        }
        File::from(fd).write_all(data)
    }

    /// Replaces the content of a file this workspace wrote into its own
    /// folder (a mirror brought up to date), keeping its inode and mode so
    /// the folder reads as if the file had been edited in place.
    pub fn replace_file(&self, rel: &Path, data: &[u8]) -> io::Result<()> {
        let fd = rustix::fs::openat2(
            &self.fd,
            rel,
            OFlags::WRONLY | OFlags::TRUNC | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
            Mode::empty(),
            RESOLVE | ResolveFlags::NO_SYMLINKS,
        )
        .map_err(io_error)?;
        File::from(fd).write_all(data)
    }

    /// Sets the permission bits of a file this workspace wrote into its
    /// own folder (a mirror brought up to date).
    pub fn set_mode(&self, rel: &Path, mode: u32) -> io::Result<()> {
        let fd = rustix::fs::openat2(
            &self.fd,
            rel,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
            Mode::empty(),
            RESOLVE | ResolveFlags::NO_SYMLINKS,
        )
        .map_err(io_error)?;
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode)).map_err(io_error)
    }

    pub fn create_symlink(&self, rel: &Path, target: &Path) -> io::Result<()> {
        rustix::fs::symlinkat(target, &self.fd, rel).map_err(io_error)
    }
}

/// Refuses folders (as reading one fails), special files and files with
/// more than one link.
fn refuse_unless_regular(stat: &Stat, target: &Target<'_>) -> Result<(), AccessError> {
    let mode = stat.st_mode;
    match FileType::from_raw_mode(mode) {
        FileType::RegularFile => {}
        FileType::Directory => return Err(errno(libc::EISDIR, target.resolved)),
        _ => {
            return Err(AccessError::NotRegular {
                path: target.resolved.display().to_string(),
                kind: kind_name(mode),
            });
        }
    }
    #[allow(clippy::useless_conversion)]
    let links = u64::from(stat.st_nlink);
    if links > 1 {
        return Err(AccessError::HardLinked {
            path: target.resolved.display().to_string(),
            links,
        });
    }
    Ok(())
}

/// The opened file must be the one inspected (a swap in between is caught).
fn same_file(fd: &OwnedFd, inspected: &Stat, target: &Target<'_>) -> Result<(), AccessError> {
    let now = rustix::fs::fstat(fd).map_err(|e| errno(e.raw_os_error(), target.resolved))?;
    if now.st_dev != inspected.st_dev || now.st_ino != inspected.st_ino {
        return Err(AccessError::Changed {
            path: target.resolved.display().to_string(),
        });
    }
    refuse_unless_regular(&now, target)
}
