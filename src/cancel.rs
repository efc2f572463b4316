//! Cancellation: one process-wide flag that a signal handler (the binary's SIGINT/SIGTERM, the
//! Python package's Ctrl-C) sets and every long loop polls.
//!
//! Map workers check it between splits and batches, reducers between batches, the commit
//! before `_SUCCESS`; a job that sees it stops, removes what it staged and returns
//! [`Error::Cancelled`](crate::Error::Cancelled). Nothing is committed after a request.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Ask every running job of this process to stop.
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// True once [`request`] was called (and until [`reset`]).
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Clear the flag, so the next job runs (an embedding process that caught the cancellation).
pub fn reset() {
    REQUESTED.store(false, Ordering::SeqCst);
}
