//! The Landlock sandbox of bash commands and `command:` checks.
//!
//! A sandboxed command may read anywhere but write only beneath its
//! workspace (and to `/dev/null`); it may not bind or connect TCP sockets,
//! and it may not signal processes or reach abstract unix sockets outside
//! its own Landlock domain (so `kill $PPID` cannot end the harness).
//!
//! The ruleset is built here, in the parent, because building it allocates;
//! [`crate::sandbox::process`] only applies it between fork and exec with two
//! raw system calls (`PR_SET_NO_NEW_PRIVS`, `landlock_restrict_self`). The
//! last ruleset built on a thread is kept for the next command in the same
//! workspace: a run's commands all happen on one thread.
//!
//! A command known to only read ([`read_only_ruleset`]) runs in a stricter
//! ruleset that allows no write at all but to `/dev/null`: it is shared by
//! every workspace, and it guarantees that such a command leaves the
//! workspace exactly as it found it.
//!
//! Where the kernel lacks Landlock (or lacks some of it), the first command
//! says so once on stderr and the work goes on; [`require`] turns that into
//! an error for `--require-sandbox`.

use std::cell::RefCell;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Once, OnceLock};

use landlock::{
    ABI, Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset as LandlockRuleset, RulesetAttr,
    RulesetCreatedAttr, Scope,
};

/// The lowest Landlock ABI that gives every guarantee of the module doc:
/// writes incl. truncation (3), TCP (4), device ioctls (5), scopes (6).
pub const FULL_ABI: i32 = 6;

/// Why sandboxing failed or is not enough.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("the Landlock sandbox is not fully available: {0}")]
    NotEnforced(String),
    #[error("cannot build the Landlock ruleset: {0}")]
    Ruleset(#[from] landlock::RulesetError),
    #[error("cannot read the workspace {path}: {source}")]
    Workspace {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot open {path} for the Landlock ruleset: {source}")]
    Path {
        path: PathBuf,
        source: landlock::PathFdError,
    },
}

/// What Landlock can enforce on this kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxStatus {
    /// Every guarantee holds.
    Full { abi: i32 },
    /// Writes are confined, but some guarantees are missing.
    Partial {
        abi: i32,
        missing: Vec<&'static str>,
    },
    /// Commands run unsandboxed.
    Unavailable { reason: String },
}

impl std::fmt::Display for SandboxStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Full { abi } => write!(f, "Landlock ABI {abi}: fully enforced"),
            Self::Partial { abi, missing } => write!(
                f,
                "Landlock ABI {abi} lacks {} (needs ABI {FULL_ABI})",
                missing.join(", ")
            ),
            Self::Unavailable { reason } => write!(f, "Landlock is unavailable: {reason}"),
        }
    }
}

impl SandboxStatus {
    pub fn is_full(&self) -> bool {
        matches!(self, Self::Full { .. })
    }
}

/// What this kernel offers, probed once.
pub fn status() -> &'static SandboxStatus {
    static STATUS: OnceLock<SandboxStatus> = OnceLock::new();
    STATUS.get_or_init(probe)
}

/// `Ok` when every guarantee holds; the CLI's `--require-sandbox` exits 2
/// on the error.
pub fn require() -> Result<(), SandboxError> {
    match status() {
        SandboxStatus::Full { .. } => Ok(()),
        other => Err(SandboxError::NotEnforced(other.to_string())),
    }
}

fn probe() -> SandboxStatus {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute pointer and size 0 this call only
    // returns the ABI version; it touches no memory.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if abi < 1 {
        let err = std::io::Error::last_os_error();
        let reason = match err.raw_os_error() {
            Some(libc::ENOSYS) => "the kernel is built without it".to_string(),
            Some(libc::EOPNOTSUPP) => "it is not enabled at boot (lsm=)".to_string(),
            _ => err.to_string(),
        };
        return SandboxStatus::Unavailable { reason };
    }
    let abi = i32::try_from(abi).unwrap_or(i32::MAX);
    let mut missing = Vec::new();
    if abi < 3 {
        missing.push("control of truncate(2)");
    }
    if abi < 4 {
        missing.push("TCP restrictions");
    }
    if abi < 5 {
        missing.push("device ioctl control");
    }
    if abi < 6 {
        missing.push("signal and abstract-socket scoping");
    }
    if missing.is_empty() {
        SandboxStatus::Full { abi }
    } else {
        SandboxStatus::Partial { abi, missing }
    }
}

/// Says once on stderr that commands are less sandboxed than documented.
fn warn_once(status: &SandboxStatus) {
    static WARNED: Once = Once::new();
    WARNED.call_once(|| match status {
        SandboxStatus::Full { .. } => {}
        SandboxStatus::Partial { .. } => {
            eprintln!("warning: {status}; commands run partly sandboxed");
        }
        SandboxStatus::Unavailable { .. } => {
            eprintln!("warning: {status}; bash commands and command checks run unsandboxed");
        }
    });
}

/// A built Landlock ruleset, ready to be applied by a child process.
#[derive(Debug)]
pub struct Ruleset {
    fd: OwnedFd,
}

impl Ruleset {
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

struct Cached {
    root: PathBuf,
    dev: u64,
    ino: u64,
    ruleset: Arc<Ruleset>,
}

thread_local! {
    static LAST: RefCell<Option<Cached>> = const { RefCell::new(None) };
}

/// The ruleset confining writes to `root`; `None` (after a warning, once)
/// where Landlock is unavailable.
///
/// The cache is keyed by path, device and inode: a ruleset names the folder
/// by inode (and keeps it alive), so a new folder at an old path gets its
/// own ruleset.
pub fn ruleset_for(root: &Path) -> Result<Option<Arc<Ruleset>>, SandboxError> {
    let status = status();
    warn_once(status);
    if matches!(status, SandboxStatus::Unavailable { .. }) {
        return Ok(None);
    }
    let meta = std::fs::metadata(root).map_err(|source| SandboxError::Workspace {
        path: root.to_path_buf(),
        source,
    })?;
    let (dev, ino) = (meta.dev(), meta.ino());
    let hit = LAST.with(|last| {
        last.borrow()
            .as_ref()
            .filter(|c| c.dev == dev && c.ino == ino && c.root == root)
            .map(|c| Arc::clone(&c.ruleset))
    });
    if let Some(ruleset) = hit {
        return Ok(Some(ruleset));
    }
    let Some(ruleset) = build(Some(root))? else {
        return Ok(None);
    };
    let ruleset = Arc::new(ruleset);
    LAST.with(|last| {
        *last.borrow_mut() = Some(Cached {
            root: root.to_path_buf(),
            dev,
            ino,
            ruleset: Arc::clone(&ruleset),
        });
    });
    Ok(Some(ruleset))
}

fn path_fd(path: &Path) -> Result<PathFd, SandboxError> {
    PathFd::new(path).map_err(|source| SandboxError::Path {
        path: path.to_path_buf(),
        source,
    })
}

/// The ruleset of a command that only reads: like [`ruleset_for`]'s, but
/// without the workspace's write rule — nothing may be written anywhere
/// but `/dev/null`. Built once and shared; `None` (after a warning, once)
/// where Landlock is unavailable.
pub fn read_only_ruleset() -> Result<Option<Arc<Ruleset>>, SandboxError> {
    static READ_ONLY: OnceLock<Arc<Ruleset>> = OnceLock::new();
    let status = status();
    warn_once(status);
    if matches!(status, SandboxStatus::Unavailable { .. }) {
        return Ok(None);
    }
    if let Some(ruleset) = READ_ONLY.get() {
        return Ok(Some(Arc::clone(ruleset)));
    }
    let Some(ruleset) = build(None)? else {
        return Ok(None);
    };
    Ok(Some(Arc::clone(
        READ_ONLY.get_or_init(|| Arc::new(ruleset)),
    )))
}

/// Builds the ruleset allowing writes beneath `root` (none with `None`),
/// best effort: rights this kernel lacks are dropped, which [`status`]
/// reports.
fn build(root: Option<&Path>) -> Result<Option<Ruleset>, SandboxError> {
    let writes = AccessFs::from_write(ABI::V5);
    let mut created = LandlockRuleset::default()
        .handle_access(writes)?
        .handle_access(AccessNet::from_all(ABI::V4))?
        .scope(Scope::from_all(ABI::V6))?
        .create()?;
    if let Some(root) = root {
        created = created.add_rule(PathBeneath::new(path_fd(root)?, writes))?;
    }
    let created = created.add_rule(PathBeneath::new(
        path_fd(Path::new("/dev/null"))?,
        AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev,
    ))?;
    let fd: Option<OwnedFd> = created.into();
    Ok(fd.map(|fd| Ruleset { fd }))
}

/// The ruleset of a sandboxed external agent (`agent.sandbox: true`):
/// writes only beneath `root` and to `/dev/null`, TCP connect only to
/// `port` (the run's mock server; ABI 4 and later), no TCP bind, signals
/// and abstract sockets scoped to the agent. `None` where Landlock is
/// unavailable (announced once, as for commands).
pub fn agent_ruleset(root: &Path, port: u16) -> Result<Option<Ruleset>, SandboxError> {
    let status = status();
    warn_once(status);
    if matches!(status, SandboxStatus::Unavailable { .. }) {
        return Ok(None);
    }
    let writes = AccessFs::from_write(ABI::V5);
    let created = LandlockRuleset::default()
        .handle_access(writes)?
        .handle_access(AccessNet::from_all(ABI::V4))?
        .scope(Scope::from_all(ABI::V6))?
        .create()?
        .add_rule(PathBeneath::new(path_fd(root)?, writes))?
        .add_rule(PathBeneath::new(
            path_fd(Path::new("/dev/null"))?,
            AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev,
        ))?
        .add_rule(landlock::NetPort::new(port, AccessNet::ConnectTcp))?;
    let fd: Option<OwnedFd> = created.into();
    Ok(fd.map(|fd| Ruleset { fd }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where a machine without full Landlock must fail this test instead
    /// of skipping it: in CI, or with `AGENT_EVAL_REQUIRE_TOOLS=1` (the
    /// rule of the integration tests' `skip_unless_required`).
    fn landlock_required() -> bool {
        ["CI", "AGENT_EVAL_REQUIRE_TOOLS"].iter().any(|name| {
            std::env::var(name).is_ok_and(|v| matches!(v.trim(), "1" | "true" | "TRUE" | "yes"))
        })
    }

    #[test]
    fn the_ruleset_is_cached_per_workspace() {
        if !status().is_full() {
            assert!(
                !landlock_required(),
                "in CI this test must really run: {}",
                status()
            );
            eprintln!("SKIPPED: {}", status());
            return;
        }
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let first = ruleset_for(a.path()).unwrap().unwrap();
        let again = ruleset_for(a.path()).unwrap().unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        let other = ruleset_for(b.path()).unwrap().unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
    }

    #[test]
    fn require_agrees_with_status() {
        assert_eq!(require().is_ok(), status().is_full());
        if let Err(e) = require() {
            assert!(e.to_string().contains("Landlock"), "{e}");
        }
    }
}
