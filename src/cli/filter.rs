//! `bloomjoin filter`: keep the rows of Parquet inputs whose key a trained filter may hold
//! (MapReduce Design Patterns' Bloom filtering; see [`crate::sieve`]).

use serde::{Deserialize, Serialize};

use crate::bloom::spark_keys::SparkKeyMode;
use crate::commit::{Codec, FileFormat, WriteMode};
use crate::error::{Error, Result};
use crate::expr::Predicate;
use crate::join::SideJob;
use crate::sieve::FilterJob;
use crate::store::Location;

/// Arguments of `filter`, from the command line or the Python package's `filter_rows`
/// (kebab-case keys).
#[derive(Debug, Clone, clap::Args, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, rename_all = "kebab-case")]
pub struct Args {
    /// The trained filter (a path or an object-store URL; bloomjoin's format or Spark's).
    #[arg(long, value_name = "LOC")]
    pub filter: String,
    /// Input Parquet files: paths, directories, globs or object-store URLs.
    #[arg(long, short, required = true, num_args = 1.., value_name = "LOC")]
    pub input: Vec<String>,
    /// The key column the filter was trained on; several, comma-separated (`a,b`), for a
    /// composite key.
    #[arg(long, short, value_name = "COL[,COL...]")]
    pub key: String,
    /// Keep only rows where this SQL condition holds too.
    #[arg(long = "where", value_name = "EXPR", allow_hyphen_values = true)]
    #[serde(rename = "where")]
    pub predicate: Option<String>,
    /// Output columns, comma-separated [default: every input column].
    #[arg(long, value_name = "COLS")]
    pub select: Option<String>,
    /// Output directory (a path or an object-store URL).
    #[arg(long, short)]
    pub output: String,
    /// Replace an existing output.
    #[arg(long)]
    pub overwrite: bool,
    /// Write the counters as JSON here (a path or an object-store URL).
    #[arg(long, value_name = "LOC")]
    pub report: Option<String>,
    /// How a filter in Spark's format hashed its keys (see `join --spark-keys`).
    #[arg(long, value_enum, default_value = "plain")]
    pub spark_keys: SparkKeyMode,
    /// Codec of the output's pages.
    #[arg(long, value_enum, default_value = "zstd", value_name = "CODEC")]
    pub compression: Codec,
    /// Level of --compression (as `join --compression-level`).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub compression_level: Option<i32>,
    /// False-positive rate of the Parquet Bloom filters written on the output's key columns.
    #[arg(long, default_value_t = crate::bloom::sbbf::DEFAULT_FPP, value_name = "P")]
    pub bloom_fpp: f64,
    /// Map worker threads (one output part each), 1 to 1024 [default: all cores].
    #[arg(long, short, value_name = "W")]
    pub workers: Option<usize>,
    /// Rows per decoded batch.
    #[arg(long, default_value_t = 8192, value_name = "ROWS")]
    pub batch_size: usize,
    /// Close a split once it holds this many rows [default: as near total rows / (4 x
    /// workers) as the row groups allow].
    #[arg(long, value_name = "ROWS")]
    pub split_rows: Option<u64>,
    /// Do not read `name=value` directories as columns.
    #[arg(long)]
    pub no_hive_partitioning: bool,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            filter: String::new(),
            input: Vec::new(),
            key: String::new(),
            predicate: None,
            select: None,
            output: String::new(),
            overwrite: false,
            report: None,
            spark_keys: SparkKeyMode::Plain,
            compression: Codec::Zstd,
            compression_level: None,
            bloom_fpp: crate::bloom::sbbf::DEFAULT_FPP,
            workers: None,
            batch_size: 8192,
            split_rows: None,
            no_hive_partitioning: false,
        }
    }
}

impl Args {
    /// Check the options into a [`FilterJob`] before anything is read.
    pub fn to_job(&self) -> Result<FilterJob> {
        for (name, value) in [
            ("--filter", &self.filter),
            ("--key", &self.key),
            ("--output", &self.output),
        ] {
            if value.is_empty() {
                return Err(Error::param(name, "is required"));
            }
        }
        if self.input.is_empty() {
            return Err(Error::param("--input", "is required"));
        }
        let keys = crate::cli::key_columns(&self.key, "--key")?;
        let select = self
            .select
            .as_deref()
            .map(|list| crate::cli::key_columns(list, "--select"))
            .transpose()?;
        if self.batch_size == 0 {
            return Err(Error::param("--batch-size", "must be at least 1"));
        }
        if self.split_rows == Some(0) {
            return Err(Error::param("--split-rows", "must be at least 1"));
        }
        Ok(FilterJob {
            filter: Location::parse(&self.filter)?,
            input: SideJob {
                inputs: self.input.clone(),
                keys,
                predicate: self
                    .predicate
                    .as_deref()
                    .map(|w| Predicate::parse(w, "--where"))
                    .transpose()?,
                hive_partitioning: !self.no_hive_partitioning,
            },
            select,
            spark_keys: self.spark_keys,
            output: Location::parse(&self.output)?,
            write_mode: match self.overwrite {
                true => WriteMode::Overwrite,
                false => WriteMode::Create,
            },
            format: FileFormat::new(self.compression.compression(self.compression_level)?),
            bloom_fpp: crate::bloom::sbbf::check_fpp(self.bloom_fpp, "--bloom-fpp")?,
            workers: crate::cli::workers(self.workers)?.get(),
            batch_size: self.batch_size,
            split_rows: self.split_rows,
            report: self.report.clone(),
        })
    }
}

/// Run `filter`.
pub fn run(args: Args, quiet: bool) -> Result<()> {
    let job = args.to_job()?;
    let report = crate::sieve::run(&job, !quiet)?;
    if !quiet {
        crate::cli::print(&report.summary())?;
    }
    Ok(())
}
