//! `bloomjoin join`: the command-line face of [`crate::join`].

use crate::error::Result;
use crate::join::{self, JoinSpec};

/// Run `join` and print the summary with the counters.
pub fn run(spec: JoinSpec, quiet: bool) -> Result<()> {
    let report = join::run(&spec, !quiet)?;
    if !quiet {
        crate::cli::print(&report.summary())?;
    }
    Ok(())
}
