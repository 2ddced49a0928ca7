//! The reuse of command effects in a run's workspace, and their cache.
//!
//! When thousands of episodes run the same command over the same files,
//! starting a process each time is work without information. While a
//! run's files are held in memory, a command whose whole effect provably
//! depends on nothing but those files is run once and its **effect** —
//! exit code, output, and the files it changed — is kept under a digest of
//! the command, the files and the settings ([`key`]); the next call with
//! the same key gets the same effect without a process. The runner
//! ([`super::command::run_command_in`]) tells two kinds apart:
//!
//! - a **read-only** command ([`super::read_only`]) runs in a folder
//!   mirroring the files, in a Landlock ruleset that forbids every write;
//!   its effect is its outcome alone;
//! - a **contained** command ([`super::contained`]) runs in that mirror
//!   folder in the workspace's own ruleset (writes only beneath it, no
//!   TCP); what it changed is then read back from the folder into the
//!   files, which stay in memory (see
//!   [`super::workspace::Workspace::read_back_mirror`]). Only with the full Landlock sandbox; a change a memory tree cannot
//!   hold makes the folder the workspace, and nothing is kept.
//!
//! Any other command gets the files written to the folder, which is the
//! workspace from then on. Timeouts, cancellations and errors are never
//! kept. The cache is bounded ([`BUDGET`] bytes; it is emptied when full),
//! so only speed depends on it, never a result: the reports of every
//! shipped scenario are the same bytes with reuse on and off
//! (`--no-reuse`), which `tests/reuse.rs` checks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use super::outcome::{BashOutcome, CommandSettings};
use super::workspace::Change;

/// Bytes of effects kept at most (the cache is emptied when a new one
/// would pass it).
pub const BUDGET: usize = 8 << 20;

/// Effects larger than this are not kept (a listing of a big tree is
/// cheap to redo next to what it would hold in memory).
const LARGEST_KEPT: usize = 256 << 10;

/// What a command's effect can be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Its outcome only.
    ReadOnly,
    /// Its outcome and the files it writes in the workspace.
    Contained,
}

/// The key an effect is kept under: the kind, the command, the files
/// (their digest) and every setting that could change the effect.
pub fn key(kind: Kind, command: &str, files: &[u8; 32], settings: &CommandSettings) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(match kind {
        Kind::ReadOnly => b"agent-eval read-only command 1\0".as_slice(),
        Kind::Contained => b"agent-eval contained command 1\0".as_slice(),
    });
    hasher.update((command.len() as u64).to_le_bytes());
    hasher.update(command.as_bytes());
    hasher.update(files);
    hasher.update(settings.timeout.as_nanos().to_le_bytes());
    hasher.update((settings.capture_limit as u64).to_le_bytes());
    hasher.update([u8::from(settings.sandbox)]);
    hasher.finalize().into()
}

/// What a command did: its outcome, the changes it made to the files, and
/// the files' digest afterwards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effect {
    pub outcome: BashOutcome,
    pub changes: Arc<[Change]>,
    pub files_after: [u8; 32],
}

impl Effect {
    /// Bytes it holds, roughly.
    fn size(&self) -> usize {
        let changed: usize = self
            .changes
            .iter()
            .map(|c| match c {
                Change::File { data, .. } | Change::Content { data, .. } => data.len() + 64,
                Change::Dir(_) | Change::Mode { .. } => 64,
            })
            .sum();
        self.outcome.stdout.len() + self.outcome.stderr.len() + changed + 128
    }
}

#[derive(Default)]
struct Cache {
    effects: HashMap<[u8; 32], Effect>,
    bytes: usize,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

fn cache() -> std::sync::MutexGuard<'static, Option<Cache>> {
    CACHE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The effect kept under `key`, if any.
pub fn lookup(key: &[u8; 32]) -> Option<Effect> {
    let cache = cache();
    cache.as_ref()?.effects.get(key).cloned()
}

/// Keeps `effect` under `key` (unless it is too large to be worth it).
pub fn store(key: [u8; 32], effect: Effect) {
    let size = effect.size();
    if size > LARGEST_KEPT {
        return;
    }
    let mut cache = cache();
    let cache = cache.get_or_insert_with(Cache::default);
    if cache.bytes + size > BUDGET {
        cache.effects.clear();
        cache.bytes = 0;
    }
    if cache.effects.insert(key, effect).is_none() {
        cache.bytes += size;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_kind_command_files_and_settings() {
        let settings = CommandSettings::new(std::time::Duration::from_secs(120));
        let files = [7u8; 32];
        let base = key(Kind::ReadOnly, "ls", &files, &settings);
        assert_eq!(base, key(Kind::ReadOnly, "ls", &files, &settings));
        assert_ne!(base, key(Kind::Contained, "ls", &files, &settings));
        assert_ne!(base, key(Kind::ReadOnly, "ls -R", &files, &settings));
        assert_ne!(base, key(Kind::ReadOnly, "ls", &[8u8; 32], &settings));
        let mut other = settings.clone();
        other.sandbox = false;
        assert_ne!(base, key(Kind::ReadOnly, "ls", &files, &other));
        let mut other = settings.clone();
        other.timeout = std::time::Duration::from_secs(1);
        assert_ne!(base, key(Kind::ReadOnly, "ls", &files, &other));
    }

    #[test]
    fn the_cache_keeps_and_returns_effects() {
        let effect = |stdout: Vec<u8>| Effect {
            outcome: BashOutcome {
                exit_code: Some(1),
                stdout,
                stderr: b"err".to_vec(),
            },
            changes: Arc::from([Change::Dir("out".into())]),
            files_after: [1u8; 32],
        };
        let key = [42u8; 32];
        store(key, effect(b"out".to_vec()));
        assert_eq!(lookup(&key), Some(effect(b"out".to_vec())));
        assert_eq!(lookup(&[43u8; 32]), None);
        store([44u8; 32], effect(vec![b'x'; LARGEST_KEPT + 1]));
        assert_eq!(lookup(&[44u8; 32]), None);
    }
}
