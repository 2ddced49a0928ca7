//! API keys taken out of the process environment at start-up.
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

/// Moves every [`KEY_VARIABLES`] value out of the environment (see the
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
    let mut taken = BTreeMap::new();
    for name in KEY_VARIABLES {
        let Ok(value) = std::env::var(name) else {
            continue;
        };
        // SAFETY: single-threaded by the caller's contract; `getenv`
        // returns the value's bytes in place (the original block, or a
        // copy `setenv` made), valid and writable until the variable is
        // removed, which happens right after.
        unsafe {
            wipe(name);
            std::env::remove_var(name);
        }
        taken.insert(name, value);
    }
    let _ = TAKEN.set(taken);
}

/// Overwrites the value of `name` where `getenv` finds it.
///
/// # Safety
///
/// As [`take_from_environment`].
unsafe fn wipe(name: &str) {
    let Ok(c_name) = std::ffi::CString::new(name) else {
        return;
    };
    // SAFETY: see the caller; the pointer is to a NUL-terminated string
    // that stays valid while no one changes the environment.
    unsafe {
        let value = libc::getenv(c_name.as_ptr());
        if value.is_null() {
            return;
        }
        let len = libc::strlen(value);
        std::ptr::write_bytes(value, b'x', len);
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
