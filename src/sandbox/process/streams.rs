//! The three pipes of a running call as the poll loop sees them: the
//! bytes still to write to stdin ([`Feed`]) and what is kept of stdout and
//! stderr ([`Capture`], at most `capture_limit` bytes, the rest read and
//! dropped so a loud command neither blocks nor fills memory).

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd};

use super::Conversation;

/// The bytes still to write to the command's stdin, and the pipe for them.
pub(super) struct Feed {
    pub(super) fd: Option<OwnedFd>,
    pub(super) bytes: Vec<u8>,
    pub(super) written: usize,
    /// Kept open when everything is written (a conversation says more).
    pub(super) open_ended: bool,
}

impl Feed {
    /// Whether bytes released by `release` wait to be written.
    pub(super) fn waiting(&self, release: Option<&dyn Fn() -> usize>) -> bool {
        self.fd.is_some() && self.written < self.released(release)
    }

    pub(super) fn released(&self, release: Option<&dyn Fn() -> usize>) -> usize {
        release.map_or(self.bytes.len(), |released| {
            released().min(self.bytes.len())
        })
    }

    /// One non-blocking write (the pipe was reported ready) of what
    /// `release` allows; closes the pipe once everything is written or the
    /// reader is gone.
    pub(super) fn write_once(&mut self, release: Option<&dyn Fn() -> usize>) {
        let upto = self.released(release);
        let Some(fd) = &self.fd else { return };
        if self.written >= self.bytes.len() {
            if !self.open_ended {
                self.fd = None;
            }
            return;
        }
        let rest = self.bytes.get(self.written..upto).unwrap_or_default();
        if rest.is_empty() {
            // Nothing released yet: the caller's next message waits.
            return;
        }
        // SAFETY: writes from `rest`, valid for its length, to our pipe.
        let n = unsafe { libc::write(fd.as_raw_fd(), rest.as_ptr().cast(), rest.len()) };
        match usize::try_from(n) {
            Ok(n) => {
                self.written += n;
                if self.written >= self.bytes.len() && !self.open_ended {
                    self.fd = None;
                }
            }
            Err(_) => {
                let e = io::Error::last_os_error().raw_os_error();
                if !matches!(e, Some(libc::EINTR | libc::EAGAIN)) {
                    // EPIPE: the command stopped reading; that is its call.
                    self.fd = None;
                }
            }
        }
    }
}

/// One output pipe: what was kept of it, and whether it is still open.
pub(super) struct Capture {
    pub(super) fd: Option<OwnedFd>,
    pub(super) kept: Vec<u8>,
}

impl Capture {
    pub(super) fn new(fd: OwnedFd) -> Self {
        Self {
            fd: Some(fd),
            kept: Vec::new(),
        }
    }

    pub(super) fn is_open(&self) -> bool {
        self.fd.is_some()
    }

    /// One read (the pipe was reported ready); closes it on end of file.
    /// What is read also goes to `log` (a failing log is dropped, the
    /// command goes on).
    pub(super) fn read_once(
        &mut self,
        scratch: &mut [u8],
        limit: usize,
        log: &mut Option<&File>,
        listener: Option<&dyn Conversation>,
    ) {
        let Some(fd) = &self.fd else { return };
        // SAFETY: reads into `scratch`, which is valid for its length.
        let n = unsafe { libc::read(fd.as_raw_fd(), scratch.as_mut_ptr().cast(), scratch.len()) };
        match usize::try_from(n) {
            Ok(0) => self.fd = None,
            Ok(n) => {
                let read = scratch.get(..n).unwrap_or_default();
                if let Some(listener) = listener {
                    listener.heard(read);
                } else if let Some(file) = log
                    && file.write_all(read).is_err()
                {
                    *log = None;
                }
                let room = limit.saturating_sub(self.kept.len());
                self.kept
                    .extend_from_slice(read.get(..room).unwrap_or(read));
            }
            Err(_) => {
                let e = io::Error::last_os_error().raw_os_error();
                if !matches!(e, Some(libc::EINTR | libc::EAGAIN)) {
                    self.fd = None;
                }
            }
        }
    }

    pub(super) fn inode(&self) -> Option<u64> {
        let fd = self.fd.as_ref()?;
        // SAFETY: fstat fills `stat` for a descriptor we own.
        unsafe {
            let mut stat: libc::stat = std::mem::zeroed();
            (libc::fstat(fd.as_raw_fd(), &mut stat) == 0).then_some(stat.st_ino)
        }
    }
}

pub(super) fn poll_entry(fd: Option<&OwnedFd>) -> libc::pollfd {
    libc::pollfd {
        fd: fd.map_or(-1, AsRawFd::as_raw_fd),
        events: libc::POLLIN,
        revents: 0,
    }
}
