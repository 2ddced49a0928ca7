//! The fallback's last resort: without a PID namespace, a process that
//! left the shell's group may still hold the call's output pipes (a
//! double-forked daemon); it is found through `/proc` by the pipes' inodes
//! and killed. [`other_processes`] is the walk of `/proc` it makes, shared
//! with the search for an outside agent's marked processes.

use std::path::{Path, PathBuf};

use super::wait::Child;

impl Child {
    /// Fallback: kills every process holding one of our pipes, except us
    /// and our direct children. A child of ours is either a call's shell
    /// (its own call kills it) or, for an instant, another call's child
    /// between clone and exec, which still holds a copy of every descriptor
    /// we have, ours included; killing it would kill that other command.
    /// What a command forks is never our child (orphans go to init).
    pub(super) fn kill_pipe_holders(&self) {
        let links: Vec<String> = [self.stdout.inode(), self.stderr.inode()]
            .into_iter()
            .flatten()
            .map(|ino| format!("pipe:[{ino}]"))
            .collect();
        if links.is_empty() {
            return;
        }
        let me = std::process::id();
        let Some(procs) = other_processes() else {
            return;
        };
        for (pid, folder) in procs {
            if parent_of(&folder) == Some(me) {
                continue;
            }
            let Ok(fds) = std::fs::read_dir(folder.join("fd")) else {
                continue;
            };
            let holds = fds.flatten().any(|fd| {
                std::fs::read_link(fd.path())
                    .is_ok_and(|target| links.iter().any(|l| target.as_os_str() == l.as_str()))
            });
            if holds && let Ok(pid) = libc::pid_t::try_from(pid) {
                // SAFETY: see `kill`; this process holds our pipe, so it
                // was started by this call.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
    }
}

/// Every process in `/proc` but this one: its pid and its folder there
/// (`/proc/PID`); `None` when `/proc` cannot be read.
pub fn other_processes() -> Option<impl Iterator<Item = (u32, PathBuf)>> {
    let me = std::process::id();
    let entries = std::fs::read_dir("/proc").ok()?;
    Some(entries.flatten().filter_map(move |entry| {
        let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
        (pid != me).then(|| (pid, entry.path()))
    }))
}

/// The parent pid in `/proc/PID/stat` (after the command name, which may
/// hold spaces and parentheses).
fn parent_of(proc_dir: &Path) -> Option<u32> {
    let stat = std::fs::read(proc_dir.join("stat")).ok()?;
    let after_name = stat.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(stat.get(after_name + 1..)?).ok()?;
    // " S PPID ...": state, then the parent.
    rest.split_ascii_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn the_parent_is_read_from_proc_stat() {
        // SAFETY: getppid cannot fail.
        let parent = unsafe { libc::getppid() };
        assert_eq!(
            parent_of(Path::new("/proc/self")),
            u32::try_from(parent).ok()
        );
        assert_eq!(parent_of(Path::new("/proc/no-such-process")), None);
    }
}
