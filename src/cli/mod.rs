//! The command line: one module per subcommand, each with its `Args` (the doc comments are
//! the help text) and a `run` function. `main.rs` only parses and maps errors to exit codes.

pub mod datagen;
pub mod filter;
pub mod inspect;
pub mod job;
pub mod join;
pub mod merge;
pub mod probe;
pub mod run;
pub mod scan;
pub mod train;

use clap::{Parser, Subcommand};

use crate::error::{Error, Result};

/// Bloom-filter batch jobs over Parquet: train filters, prefilter reduce-side joins.
#[derive(Debug, Parser)]
#[command(name = "bloomjoin", version, about, long_about = None)]
pub struct Cli {
    /// Print nothing but errors (no summary, no progress bars).
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Train a Bloom filter on a key column of Parquet files.
    Train(train::Args),
    /// Join two Parquet inputs, prefiltering the right side with a Bloom filter.
    Join(join::Args),
    /// Keep the rows of Parquet inputs whose key a trained filter may hold (a map-only job).
    Filter(filter::Args),
    /// Show a filter's parameters, fill ratio and estimated false-positive rate.
    Inspect(inspect::Args),
    /// Probe keys against a filter: one key per line in, "maybe" or "no" per line out.
    #[command(visible_alias = "contains")]
    Probe(probe::Args),
    /// OR partial filters (same layout, m, k, seed and key family) into one.
    Merge(merge::Args),
    /// Read one column and count it: the plain-scan baseline of the train benchmark.
    Scan(scan::Args),
    /// Run a job file: its steps (train, join, filter) in order, stopping at the first failure.
    Run(run::Args),
    /// Write the deterministic StackOverflow-like sample tables (users, comments) as Parquet.
    Datagen(crate::datagen::DatagenSpec),
}

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let quiet = cli.quiet;
    match cli.command {
        Command::Train(args) => train::run(args, quiet),
        Command::Join(args) => join::run(args, quiet),
        Command::Filter(args) => filter::run(args, quiet),
        Command::Inspect(args) => inspect::run(args),
        Command::Probe(args) => probe::run(args),
        Command::Merge(args) => merge::run(args, quiet),
        Command::Scan(args) => scan::run(args, quiet),
        Command::Run(args) => run::run(args, quiet),
        Command::Datagen(spec) => datagen::run(spec, quiet),
    }
}

pub use crate::report::human_bytes;

/// How `--dry-run` prints its plan: `--dry-run` or `--dry-run=text` for people,
/// `--dry-run=json` for schedulers and scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DryRunFormat {
    /// Lines of text.
    Text,
    /// One JSON object on stdout, printed even with `--quiet`.
    Json,
}

/// `--dry-run[=FORMAT]`, as `train`, `join` and `run` take it.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct DryRunArg {
    /// Check and plan the job as its run would (options, inputs' footers, columns and key
    /// types, a join's filter unless a train step of the job writes it, the output) and
    /// print the plan instead of running: nothing is read but footers (and that filter) and
    /// nothing is written. `--dry-run=json` prints the plan as one JSON object (`run`: the
    /// job file and each step's plan).
    #[arg(
        id = "dry_run",
        long = "dry-run",
        value_enum,
        value_name = "FORMAT",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "text"
    )]
    pub format: Option<DryRunFormat>,
}

/// Print a dry run's plan (text unless `quiet`; JSON always) and its warnings, on stderr
/// even with `--quiet`.
pub(crate) fn print_dry_run(
    d: &crate::report::DryRun,
    format: DryRunFormat,
    quiet: bool,
) -> Result<()> {
    for w in &d.warnings {
        eprintln!("bloomjoin: warning: {w}");
    }
    match format {
        DryRunFormat::Json => print_json(&d.plan),
        DryRunFormat::Text if quiet => Ok(()),
        DryRunFormat::Text => print(&d.summary),
    }
}

/// Print `v` as indented JSON and a newline.
pub(crate) fn print_json(v: &serde_json::Value) -> Result<()> {
    let text = serde_json::to_string_pretty(v)
        .map_err(|e| crate::error::Error::Internal(format!("printing JSON: {e}")))?;
    print(&(text + "\n"))
}

/// Write to stdout; a closed pipe (`| head`) is not an error.
pub fn print(s: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(crate::error::Error::io("stdout", e)),
    }
}

/// What `--overwrite`, `--append` and `--overwrite-partitions` ask a job to do with a
/// committed output (`partitioned`: whether it has a `--partition-by`). clap refuses the
/// pairs on the command line; a job file or Python gets here.
pub(crate) fn write_mode(
    overwrite: bool,
    append: bool,
    overwrite_partitions: bool,
    partitioned: bool,
) -> Result<crate::commit::WriteMode> {
    use crate::commit::WriteMode;
    if append && overwrite {
        return Err(Error::param(
            "--append",
            "adds to the output, --overwrite replaces it: give one",
        ));
    }
    if overwrite_partitions && (overwrite || append) {
        return Err(Error::param(
            "--overwrite-partitions",
            format!(
                "replaces the partitions this run writes, {}: give one",
                if overwrite {
                    "--overwrite the whole output"
                } else {
                    "--append adds to them"
                }
            ),
        ));
    }
    if overwrite_partitions && !partitioned {
        return Err(Error::param(
            "--overwrite-partitions",
            "replaces the partition directories this run writes, and without --partition-by it writes none: give --partition-by, or replace the whole output with --overwrite",
        ));
    }
    Ok(match (overwrite, append, overwrite_partitions) {
        (true, _, _) => WriteMode::Overwrite,
        (_, true, _) => WriteMode::Append,
        (_, _, true) => WriteMode::OverwritePartitions,
        _ => WriteMode::Create,
    })
}

/// The output files' format from `--compression`, `--compression-level`,
/// `--row-group-rows`, `--row-group-size`, `--max-rows-per-file` and `--max-file-size`,
/// checked.
pub(crate) fn file_format(
    compression: crate::commit::Codec,
    compression_level: Option<i32>,
    row_group_rows: Option<usize>,
    row_group_size: Option<&str>,
    max_rows_per_file: Option<u64>,
    max_file_size: Option<&str>,
) -> Result<crate::commit::FileFormat> {
    use std::num::{NonZeroU64, NonZeroUsize};
    let size = |s: Option<&str>, name: &str| -> Result<Option<u64>> {
        s.map(|s| join::parse_size(s, name)).transpose()
    };
    let mut format = crate::commit::FileFormat::new(compression.compression(compression_level)?);
    if let Some(n) = row_group_rows {
        format.row_group_rows = NonZeroUsize::new(n)
            .ok_or_else(|| Error::param("--row-group-rows", "must be at least 1"))?;
    }
    // parse_size gives at least 1 byte.
    format.row_group_bytes = size(row_group_size, "--row-group-size")?
        .and_then(|b| NonZeroUsize::new(usize::try_from(b).unwrap_or(usize::MAX)));
    format.max_rows = max_rows_per_file
        .map(|n| {
            NonZeroU64::new(n)
                .ok_or_else(|| Error::param("--max-rows-per-file", "must be at least 1"))
        })
        .transpose()?;
    format.max_bytes = size(max_file_size, "--max-file-size")?.and_then(NonZeroU64::new);
    Ok(format)
}

/// The most worker threads a job may have. Each is a thread, and a train worker a partial
/// filter of the whole filter's size: 100,000 workers hung a train job for minutes (fifth
/// audit, 2026-11-26). The largest machines have a few hundred hardware threads.
pub(crate) const MAX_WORKERS: usize = 1024;

/// `--workers`: at least 1, at most [`MAX_WORKERS`]; `None` for the default (the CPUs).
pub(crate) fn check_workers(workers: Option<usize>) -> Result<Option<std::num::NonZeroUsize>> {
    workers
        .map(|w| match std::num::NonZeroUsize::new(w) {
            None => Err(Error::param("--workers", "must be at least 1")),
            Some(n) if w > MAX_WORKERS => Err(Error::param(
                "--workers",
                format!("{n} is more than {MAX_WORKERS}"),
            )),
            Some(n) => Ok(n),
        })
        .transpose()
}

/// `--workers`, checked as [`check_workers`] checks it, or all cores when not given.
pub(crate) fn workers(workers: Option<usize>) -> Result<std::num::NonZeroUsize> {
    Ok(check_workers(workers)?.unwrap_or_else(|| {
        std::num::NonZeroUsize::new(crate::sys::default_workers())
            .unwrap_or(std::num::NonZeroUsize::MIN)
    }))
}

/// The key columns of `--column`: one name, or several comma-separated (a composite key).
/// Errors on an empty name or a column named twice.
pub(crate) fn key_columns(spec: &str, option: &str) -> Result<Vec<String>> {
    let names: Vec<String> = spec.split(',').map(|c| c.trim().to_string()).collect();
    if names.iter().any(String::is_empty) {
        return Err(Error::param(
            option,
            format!("{spec:?} has an empty column name"),
        ));
    }
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(Error::param(option, format!("column {n:?} appears twice")));
        }
    }
    Ok(names)
}
