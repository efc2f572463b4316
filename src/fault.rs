//! Fault injection for the reliability tests (`docs/RELIABILITY.md`).
//!
//! `BLOOMJOIN_FAULT=<point>[:<action>]` makes the named point fail: `panic` (the default for
//! map/reduce points), `error`, or `sleep-<ms>` (to widen a window, e.g. for a kill during
//! commit). Points: `map` (every map task), `reduce` (every reducer), `commit` (between moving
//! the parts and writing `_SUCCESS`). Sleeps end early when the job is cancelled.
//! `write:enospc` makes every write of output files fail as on a full disk (join parts, filters).
//! `BLOOMJOIN_FAULT_MARK=<path>` writes that file when the fault triggers, so a test knows the
//! job got there (e.g. before sending it a signal). Unset in normal use; checking it costs one
//! environment lookup per task.

use crate::error::{Error, Result};

/// The I/O error configured for writes at `point` (`BLOOMJOIN_FAULT=<point>:enospc`: the
/// disk is full), if any. Writers check it once when they open their file.
pub fn io_error(point: &str) -> Option<std::io::Error> {
    let spec = std::env::var("BLOOMJOIN_FAULT").ok()?;
    (spec == format!("{point}:enospc")).then(|| {
        if cfg!(unix) {
            std::io::Error::from_raw_os_error(28) // ENOSPC
        } else {
            std::io::Error::new(std::io::ErrorKind::StorageFull, "no space left on device")
        }
    })
}

/// Trigger the fault configured for `point`, if any.
pub fn hit(point: &str) -> Result<()> {
    let Ok(spec) = std::env::var("BLOOMJOIN_FAULT") else {
        return Ok(());
    };
    let (p, action) = spec.split_once(':').unwrap_or((spec.as_str(), "panic"));
    if p != point {
        return Ok(());
    }
    // Tests wait for this file to know that the job reached the point.
    if let Some(mark) = std::env::var_os("BLOOMJOIN_FAULT_MARK") {
        let _ = std::fs::write(mark, point);
    }
    if let Some(ms) = action.strip_prefix("sleep-") {
        // In steps, so that a cancelled job stops sleeping.
        let until = std::time::Instant::now()
            + std::time::Duration::from_millis(ms.parse().unwrap_or(1000));
        while std::time::Instant::now() < until {
            if crate::cancel::requested() {
                return Err(Error::Cancelled);
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        return Ok(());
    }
    match action {
        "error" => Err(Error::Internal(format!("injected fault at {point}"))),
        _ => panic!("injected fault at {point}"),
    }
}
