//! `bloomjoin filter`: keep the rows of Parquet inputs whose key a trained filter may hold
//! (MapReduce Design Patterns' Bloom filtering; see [`crate::sieve`]).

use serde::{Deserialize, Serialize};

use crate::bloom::spark_keys::SparkKeyMode;
use crate::commit::Codec;
use crate::error::{Error, Result};
use crate::expr::Predicate;
use crate::join::SideJob;
use crate::sieve::FilterJob;
use crate::store::Location;

/// The options of `filter`, from the command line, a job file's `[filter]` table or the
/// Python package's `filter_rows` (kebab-case keys).
#[derive(Debug, Clone, clap::Args, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, rename_all = "kebab-case")]
pub struct FilterSpec {
    /// The trained filter (a path or an object-store URL; bloomjoin's format or Spark's). In
    /// a job file, the train step's output by default.
    #[arg(long, value_name = "LOC")]
    pub filter: String,
    /// Keep the other rows instead: those whose key the filter rules out (no key that was
    /// trained), and those with a null key. A key the filter wrongly may hold (a false
    /// positive, at its rate) loses its rows.
    #[arg(long)]
    pub invert: bool,
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
    /// Output columns, comma-separated: a column, `column AS name`, or `expression AS name`
    /// (the --where language: `Score * 2 AS double`), `*`, maybe with DuckDB's `EXCLUDE (a, b)`,
    /// `REPLACE (expression AS a)`, `RENAME (a AS b)` or `LIKE 'pattern'`; `COLUMNS('regex')`
    /// [default: every input column].
    #[arg(long, value_name = "COLS", allow_hyphen_values = true)]
    pub select: Option<String>,
    /// Output directory (a path or an object-store URL).
    #[arg(long, short)]
    pub output: String,
    /// Replace an existing output.
    #[arg(long)]
    pub overwrite: bool,
    /// Add to an existing output, as `join --append`: its parts stay, this run's join them.
    /// The output's columns, their types and its --partition-by must be this run's.
    #[arg(long, conflicts_with = "overwrite")]
    pub append: bool,
    /// Replace the partition directories this run writes and keep the others, as `join
    /// --overwrite-partitions` (needs --partition-by).
    #[arg(long, conflicts_with_all = ["overwrite", "append"])]
    pub overwrite_partitions: bool,
    /// Write the output into Hive partition directories of these output columns,
    /// comma-separated, as `join --partition-by`.
    #[arg(long, value_name = "COLS")]
    pub partition_by: Option<String>,
    /// Write the counters as JSON here (a path or an object-store URL).
    #[arg(long, value_name = "LOC")]
    pub report: Option<String>,
    /// How a filter in Spark's format hashed its keys (see `join --spark-keys`).
    #[arg(long, value_enum, default_value = "plain")]
    pub spark_keys: SparkKeyMode,
    /// For a filter in Spark's format with --spark-keys xxhash64: the Spark type each key
    /// column was hashed as when it was trained (Spark's xxhash64 depends on it: INT 7,
    /// BIGINT 7 and 7.00 of DECIMAL(12,2) differ), comma-separated for a composite key
    /// (`int,string`; `decimal(p,s)` keeps its comma); the input's keys are hashed as those
    /// types [default: the input key columns' own Spark types]. Native filters record it.
    #[arg(long, value_name = "int|bigint|decimal(p,s)|timestamp|string[,...]")]
    pub spark_type: Option<String>,
    /// Codec of the output's pages.
    #[arg(long, value_enum, default_value = "zstd", value_name = "CODEC")]
    pub compression: Codec,
    /// Level of --compression (as `join --compression-level`).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub compression_level: Option<i32>,
    /// The most rows of an output row group [default: 1048576].
    #[arg(long, value_name = "N")]
    pub row_group_rows: Option<usize>,
    /// About the most encoded bytes of an output row group, e.g. 128MiB.
    #[arg(long, value_name = "SIZE")]
    pub row_group_size: Option<String>,
    /// The most rows of an output file; a part's further rows go on in further files.
    #[arg(long, value_name = "N")]
    pub max_rows_per_file: Option<u64>,
    /// About the most bytes of an output file, e.g. 256MiB.
    #[arg(long, value_name = "SIZE")]
    pub max_file_size: Option<String>,
    /// False-positive rate of the Parquet Bloom filters written on the output's key columns.
    #[arg(long, default_value_t = crate::bloom::sbbf::DEFAULT_FPP, value_name = "P")]
    pub bloom_fpp: f64,
    /// Map worker threads (one output part each), 1 to 1024 [default: all cores].
    #[arg(long, short, value_name = "W")]
    pub workers: Option<usize>,
    /// Rows per decoded batch.
    #[arg(long, default_value_t = 8192, value_name = "ROWS")]
    pub batch_size: usize,
    /// Close a split once it holds this many rows [default: as near total rows / (32 x
    /// workers) as the row groups allow, / (4 x workers) for files in an object store].
    #[arg(long, value_name = "ROWS")]
    pub split_rows: Option<u64>,
    /// Do not read `name=value` directories as columns.
    #[arg(long)]
    pub no_hive_partitioning: bool,
}

impl Default for FilterSpec {
    fn default() -> Self {
        FilterSpec {
            filter: String::new(),
            invert: false,
            input: Vec::new(),
            key: String::new(),
            predicate: None,
            select: None,
            output: String::new(),
            overwrite: false,
            append: false,
            overwrite_partitions: false,
            partition_by: None,
            report: None,
            spark_keys: SparkKeyMode::Plain,
            spark_type: None,
            compression: Codec::Zstd,
            compression_level: None,
            row_group_rows: None,
            row_group_size: None,
            max_rows_per_file: None,
            max_file_size: None,
            bloom_fpp: crate::bloom::sbbf::DEFAULT_FPP,
            workers: None,
            batch_size: 8192,
            split_rows: None,
            no_hive_partitioning: false,
        }
    }
}

impl FilterSpec {
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
        let select = self.select.as_deref().map(select_items).transpose()?;
        if self.batch_size == 0 {
            return Err(Error::param("--batch-size", "must be at least 1"));
        }
        if self.split_rows == Some(0) {
            return Err(Error::param("--split-rows", "must be at least 1"));
        }
        let partition_by = self
            .partition_by
            .as_deref()
            .map(|list| crate::cli::key_columns(list, "--partition-by"))
            .transpose()?;
        let write_mode = crate::cli::write_mode(
            self.overwrite,
            self.append,
            self.overwrite_partitions,
            partition_by.is_some(),
        )?;
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
            spark_type: self.spark_type.clone(),
            output: Location::parse(&self.output)?,
            invert: self.invert,
            write_mode,
            partition_by,
            format: crate::cli::file_format(
                self.compression,
                self.compression_level,
                self.row_group_rows,
                self.row_group_size.as_deref(),
                self.max_rows_per_file,
                self.max_file_size.as_deref(),
            )?,
            bloom_fpp: crate::bloom::sbbf::check_fpp(self.bloom_fpp, "--bloom-fpp")?,
            workers: crate::cli::workers(self.workers)?.get(),
            batch_size: self.batch_size,
            split_rows: self.split_rows,
            report: self.report.clone(),
        })
    }
}

/// Arguments of `filter`: the job's options and how to run it.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The job's options (also a job file's `[filter]` table).
    #[command(flatten)]
    pub spec: FilterSpec,
    #[command(flatten)]
    pub dry_run: crate::cli::DryRunArg,
}

/// Run `filter`.
pub fn run(args: Args, quiet: bool) -> Result<()> {
    let job = args.spec.to_job()?;
    if let Some(format) = args.dry_run.format {
        return crate::cli::print_dry_run(
            &crate::sieve::dry_run(&job, "--", false)?,
            format,
            quiet,
        );
    }
    let report = crate::sieve::run(&job, !quiet)?;
    if !quiet {
        crate::cli::print(&report.summary())?;
    }
    Ok(())
}

/// A `--select` list's items (cut at commas outside parentheses and quotes), each resolved
/// against the input's columns when the job is planned.
fn select_items(list: &str) -> Result<Vec<String>> {
    let items: Vec<String> = crate::cli::join::select_items(list)
        .into_iter()
        .map(|i| i.trim().to_string())
        .collect();
    if items.iter().any(String::is_empty) {
        return Err(Error::param(
            "--select",
            format!("{list:?} has an empty column name"),
        ));
    }
    Ok(items)
}
