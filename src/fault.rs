//! Fault injection for the reliability tests (`docs/RELIABILITY.md`).
//!
//! `BLOOMJOIN_FAULT=<point>[:<action>]` makes the named point fail: `panic` (the default for
//! map/reduce points), `error`, or `sleep-<ms>` (to widen a window, e.g. for a kill during
//! commit). Points: `map` (every map task), `reduce` (every reducer), `commit` (between moving
//! the parts and writing `_SUCCESS`). Unset in normal use; checking it costs one environment
//! lookup per task.

use crate::error::{Error, Result};

/// Trigger the fault configured for `point`, if any.
pub fn hit(point: &str) -> Result<()> {
    let Ok(spec) = std::env::var("BLOOMJOIN_FAULT") else {
        return Ok(());
    };
    let (p, action) = spec.split_once(':').unwrap_or((spec.as_str(), "panic"));
    if p != point {
        return Ok(());
    }
    if let Some(ms) = action.strip_prefix("sleep-") {
        let ms: u64 = ms.parse().unwrap_or(1000);
        std::thread::sleep(std::time::Duration::from_millis(ms));
        return Ok(());
    }
    match action {
        "error" => Err(Error::Internal(format!("injected fault at {point}"))),
        _ => panic!("injected fault at {point}"),
    }
}
