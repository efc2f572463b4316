//! `bloomjoin train`: the command-line face of [`crate::train`].

use crate::error::Result;
use crate::train::{self, TrainSpec};

/// Run `train` and print the summary.
pub fn run(spec: TrainSpec, quiet: bool) -> Result<()> {
    let report = train::run(&spec, !quiet)?;
    if !quiet {
        crate::cli::print(&report.summary())?;
    }
    Ok(())
}
