//! What the jobs' reports share: human units for summaries, atomic JSON report files.
//!
//! Kept out of [`crate::cli`] so that the jobs (`join`, `train`) do not depend on the command
//! line that calls them.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::store::Location;

/// Format a byte count for people (`1.50 MiB`).
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

/// Fail before any work when the report at `path` (`--report`: a path or an object-store
/// URL) could not be written: a path on the way to it is a file, or it is a `memory://`
/// location of the command line.
pub fn check_report_path(path: &str) -> Result<()> {
    Location::parse(path)
        .and_then(|l| l.check_file_output())
        .map_err(|e| Error::param("--report", e))
}

/// Write a JSON report to a path or an object-store URL, atomically (one put: locally a
/// temporary file, then a rename; missing directories are created).
pub fn write_report<T: Serialize>(path: &str, report: &T) -> Result<()> {
    let json = serde_json::to_string_pretty(report).expect("report serializes") + "\n";
    Location::parse(path)?.put(bytes::Bytes::from(json), true)
}

/// ` (and N skipped by their partition values)`, or nothing when no file was.
pub(crate) fn pruned_note(files: usize) -> String {
    match files {
        0 => String::new(),
        n => format!(" (and {n} skipped by their partition values)"),
    }
}

/// What a `--where`'s statistics skipped, for a summary's where line: ` (and R rows of G
/// row groups skipped by its statistics)`, with the rows of pages that the page index ruled
/// out in the row groups read (`page_rows`, of the `rows`) said apart; empty when nothing was.
pub(crate) fn where_skipped_note(row_groups: u64, rows: u64, page_rows: u64) -> String {
    let groups = match row_groups {
        0 => None,
        1 => Some("1 row group".to_string()),
        g => Some(format!("{g} row groups")),
    };
    match (groups, page_rows) {
        (None, 0) => String::new(),
        (Some(g), 0) => format!(" (and {rows} rows of {g} skipped by its statistics)"),
        (None, p) => format!(" (and {p} rows of pages skipped by the page index)"),
        (Some(g), p) => format!(
            " (and {rows} rows skipped by its statistics: {} of {g}, {p} of pages in the page index)",
            rows - p.min(rows)
        ),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn where_skipped_note_says_row_groups_and_pages_apart() {
        use super::where_skipped_note as note;
        assert_eq!(note(0, 0, 0), "");
        assert_eq!(
            note(1, 100, 0),
            " (and 100 rows of 1 row group skipped by its statistics)"
        );
        assert_eq!(
            note(0, 40, 40),
            " (and 40 rows of pages skipped by the page index)"
        );
        assert_eq!(
            note(2, 1040, 40),
            " (and 1040 rows skipped by its statistics: 1000 of 2 row groups, 40 of pages in the page index)"
        );
    }

    #[test]
    fn human_bytes_picks_the_unit() {
        assert_eq!(super::human_bytes(0), "0 B");
        assert_eq!(super::human_bytes(1023), "1023 B");
        assert_eq!(super::human_bytes(1536), "1.50 KiB");
        assert_eq!(super::human_bytes(3 << 30), "3.00 GiB");
    }
}

/// What `--dry-run` found: a job checked and planned as its run would be, from the inputs'
/// footers (and a join's filter), with nothing written.
#[derive(Debug, Clone)]
pub struct DryRun {
    /// The plan, a line or two each for the inputs, the filter, the strategy and the output.
    pub summary: String,
    /// What the run would warn about before reading a row.
    pub warnings: Vec<String>,
    /// The same plan as JSON (`--dry-run=json`): the numbers behind each line, named as the
    /// run's report names them, and the warnings.
    pub plan: serde_json::Value,
}
