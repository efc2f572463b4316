//! `bloomjoin datagen`: the command-line face of [`crate::datagen`].

use crate::datagen::{self, DatagenSpec};
use crate::error::Result;

/// Run `datagen` and print the summary.
pub fn run(spec: DatagenSpec, quiet: bool) -> Result<()> {
    let report = datagen::run(&spec)?;
    if !quiet {
        crate::cli::print(&report.summary())?;
    }
    Ok(())
}
