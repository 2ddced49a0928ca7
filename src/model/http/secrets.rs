//! API keys taken out of the process environment at start-up, and every
//! other credential-like variable (the rule is
//! [`crate::sandbox::secrets::is_credential`]) cleared from it.
//!
//! An agent under test runs as the same user as agent-eval, so it can read
//! `/proc/<agent-eval's pid>/environ`. That file shows the environment
//! block the process was started with, not the current `environ` array:
//! removing a variable with `unsetenv` leaves its bytes there. So the
//! binary calls [`take_from_environment`] first thing in `main`: each key
//! variable's value is copied into this module, its bytes in the original
//! block are overwritten, and the variable is removed. From then on the
//! key lives only in agent-eval's heap, which another process of the same
//! user reads only with ptrace rights (see docs/security.md), and
//! [`Endpoint::from_env`](super::Endpoint::from_env) finds it here.
//! Library users who never call it keep the plain environment lookup.

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The variables holding API keys.
pub const KEY_VARIABLES: [&str; 2] = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"];

static TAKEN: OnceLock<BTreeMap<&'static str, String>> = OnceLock::new();

/// Moves every [`KEY_VARIABLES`] value out of the environment and clears
/// every other credential-like variable from it, bytes and all (see the
/// module doc); later calls do nothing.
///
/// # Safety
///
/// No other thread may exist or read the environment while this runs
/// (`std::env::remove_var` and the write into the environment block are
/// not synchronised with C code that reads `environ`). Calling it before
/// anything else in `main` satisfies that: the process then has one
/// thread.
pub unsafe fn take_from_environment() {
    if TAKEN.get().is_some() {
        return;
    }
    let mut taken = BTreeMap::new();
    for name in KEY_VARIABLES {
        if let Ok(value) = std::env::var(name) {
            taken.insert(name, value);
        }
    }
    let credentials: Vec<std::ffi::OsString> = std::env::vars_os()
        .map(|(name, _)| name)
        .filter(|name| crate::sandbox::secrets::is_credential(name))
        .collect();
    // SAFETY: single-threaded by the caller's contract: no one reads or
    // changes the environment meanwhile.
    unsafe {
        wipe_credentials();
        for name in credentials {
            std::env::remove_var(&name);
        }
    }
    let _ = TAKEN.set(taken);
}

/// Overwrites the value of every credential-like entry of `environ` in
/// place (each of them, should a name appear twice): the bytes are the
/// original block's, which `/proc/<pid>/environ` shows, or copies `setenv`
/// made.
///
/// # Safety
///
/// As [`take_from_environment`].
unsafe fn wipe_credentials() {
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: see the caller; `environ` is a NULL-terminated array of
    // NUL-terminated strings that stays valid while no one changes the
    // environment, and each string's bytes are writable.
    unsafe {
        let mut entry = libc::environ;
        while !entry.is_null() && !(*entry).is_null() {
            let text = *entry;
            let len = libc::strlen(text);
            let bytes = std::slice::from_raw_parts_mut(text.cast::<u8>(), len);
            if let Some(eq) = bytes.iter().position(|&b| b == b'=') {
                let (name, value) = bytes.split_at_mut(eq);
                if crate::sandbox::secrets::is_credential(std::ffi::OsStr::from_bytes(name))
                    && let Some(value) = value.get_mut(1..)
                {
                    value.fill(b'x');
                }
            }
            entry = entry.add(1);
        }
    }
}

/// The key moved out of variable `name`, if [`take_from_environment`]
/// ran and it was set.
pub fn taken(name: &str) -> Option<String> {
    TAKEN.get()?.get(name).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_taken_before_start_up() {
        // The test binary never calls take_from_environment (it is
        // multi-threaded); the lookup then falls back to the environment.
        assert_eq!(taken("ANTHROPIC_API_KEY"), None);
        assert_eq!(taken("NOT_A_KEY"), None);
    }
}
