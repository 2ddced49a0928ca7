//! Cooperative cancellation (Ctrl-C). The binary installs a handler that
//! calls [`request`]; the engine stops starting runs, running `bash` calls
//! kill their process group, and the evaluation ends with an error instead
//! of a partial report. Workspaces are removed as their owners unwind.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks everything running to stop.
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
