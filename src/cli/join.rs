//! `bloomjoin join`: the options as the user gives them ([`JoinSpec`], from the command line
//! or a job file's `[join]` table), checked once into a [`JoinJob`] that [`crate::join::run`]
//! consumes.

use std::num::{NonZeroU64, NonZeroUsize};

use serde::{Deserialize, Serialize};

use crate::bloom::spark_keys::SparkKeyMode;
use crate::commit::Codec;
use crate::error::{Error, Result};
use crate::expr::Predicate;
use crate::join::{self, ColumnRef, FilterMismatch, JoinJob, JoinType, Side, SideJob, Strategy};
use crate::store::Location;

/// The join job's options, shared by the command line and job files (kebab-case keys).
#[derive(Debug, Clone, clap::Args, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, rename_all = "kebab-case")]
pub struct JoinSpec {
    /// The Bloom filter trained on the left key (a path or an object-store URL) [default:
    /// one the join builds from the left side's keys].
    #[arg(long, value_name = "LOC")]
    pub filter: Option<String>,
    /// False-positive rate of the filter the join builds from the left side's keys when no
    /// --filter is given.
    #[arg(long, default_value_t = DEFAULT_FILTER_FPP, value_name = "P")]
    pub filter_fpp: f64,
    /// Left (build, filtered-on) inputs: files, directories, globs or URLs.
    #[arg(long, required = true, num_args = 1.., value_name = "LOC")]
    pub left: Vec<String>,
    /// Left key column; several, comma-separated (`a,b`), make a composite key (the filter
    /// must be trained on the same tuple).
    #[arg(long, value_name = "COL[,COL...]")]
    pub left_key: String,
    /// Keep only left rows where this SQL condition holds.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub left_where: Option<String>,
    /// Right (big, prefiltered) inputs.
    #[arg(long, required = true, num_args = 1.., value_name = "LOC")]
    pub right: Vec<String>,
    /// Right key column; as many as --left-key, paired in order.
    #[arg(long, value_name = "COL[,COL...]")]
    pub right_key: String,
    /// Keep only right rows where this SQL condition holds.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub right_where: Option<String>,
    /// A condition a left and a right row with matching keys must also meet to match, over
    /// both sides' columns (`left.x`, `right.y`, or bare names only one side has), as SQL's
    /// `ON l.k = r.k AND <condition>`: `right.ship_date >= left.order_date`. A pair it does
    /// not hold for is no match: outer joins then keep the row with nulls, anti joins keep it.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub join_where: Option<String>,
    /// Join type.
    #[arg(long = "type", value_enum, default_value = "inner")]
    #[serde(rename = "type")]
    pub join_type: JoinType,
    /// Null keys match each other, as SQL's `IS NOT DISTINCT FROM`, Spark's `<=>` and Polars'
    /// `nulls_equal` (a composite key's components compared one by one): a left and a right
    /// row whose keys are both null join [default: a null key matches nothing, as SQL's `=`].
    #[arg(long)]
    pub nulls_equal: bool,
    /// One output column per key pair, named after the left key, holding the left key where
    /// the row has a left side and the right key where it does not (SQL's `COALESCE`, in the
    /// keys' common type): DuckDB's and Spark's `USING`, Polars' `coalesce`. The keys come
    /// first, then the other left and right columns; in --select, a bare key name (left or
    /// right) is the coalesced key. For the join types that output both sides.
    #[arg(long)]
    pub coalesce_keys: bool,
    /// How to run the join: replicated (the whole left side in one hash table, probed by every
    /// worker; no shuffle) when the left side fits --memory-limit, else reduce-side (both
    /// sides partitioned by key through local disk).
    #[arg(long, value_enum, default_value = "auto")]
    pub strategy: Strategy,
    /// Output columns, comma-separated: `left.x`, `right.y` or unambiguous bare names, `x AS
    /// name`, `expression AS name`, `*`, `left.*`, `right.*` (after a `*`, DuckDB's `EXCLUDE (a,
    /// b)`, `REPLACE (expression AS a)`, `RENAME (a AS b)`, `LIKE 'pattern'`), `COLUMNS('regex')`
    /// [default: all left columns, then all right columns].
    #[arg(long, value_name = "COLS", allow_hyphen_values = true)]
    pub select: Option<String>,
    /// Reducers (partitions, output parts) of the reduce-side strategy; more when the left
    /// side needs them to fit --memory-limit [default: the number of workers].
    #[arg(long, short = 'r', value_name = "R")]
    pub reducers: Option<usize>,
    /// Map worker threads, 1 to 1024 [default: all cores].
    #[arg(long, short, value_name = "W")]
    pub workers: Option<usize>,
    /// Output directory (a path or an object-store URL).
    #[arg(long, short)]
    pub output: String,
    /// Write the counters as JSON here (a path or an object-store URL).
    #[arg(long, value_name = "LOC")]
    pub report: Option<String>,
    /// Replace an existing output.
    #[arg(long)]
    pub overwrite: bool,
    /// Add to an existing output: its parts stay, this run's join them, and the new
    /// `_SUCCESS` names them all (Spark's `mode("append")`). The output's columns and their
    /// types, and its --partition-by columns, must be this join's.
    #[arg(long, conflicts_with = "overwrite")]
    pub append: bool,
    /// Replace the partitions this run writes and keep the others (Spark's dynamic
    /// `partitionOverwriteMode`): with --partition-by, the committed parts in the partition
    /// directories this run's rows reach are replaced, and the other directories stay. The
    /// output's columns and their types, and its --partition-by columns, must be this join's.
    #[arg(long, conflicts_with_all = ["overwrite", "append"])]
    pub overwrite_partitions: bool,
    /// Rows per decoded batch.
    #[arg(long, default_value_t = 8192, value_name = "ROWS")]
    pub batch_size: usize,
    /// Close a split once it holds this many rows [default: as near total rows / (32 x
    /// workers) as the row groups allow, / (4 x workers) for files in an object store].
    #[arg(long, value_name = "ROWS")]
    pub split_rows: Option<u64>,
    /// Memory for the build (left) side, e.g. 2GiB [default: half the machine's memory].
    /// A left side (after --left-where) over it runs reduce-side, where a partition over it
    /// is joined in passes, a chunk of its left rows at a time.
    #[arg(long, value_name = "SIZE")]
    pub memory_limit: Option<String>,
    /// For a filter in Spark's format, which does not record it: what the filter holds for a
    /// key, the key itself (plain) or Spark SQL's `xxhash64(key)` (a Spark runtime filter, or
    /// `train --spark-keys xxhash64 --format spark`), hashed as the left key column's Spark
    /// type. Native filters record it.
    #[arg(long, value_enum, default_value_t = SparkKeyMode::Plain, value_name = "plain|xxhash64")]
    pub spark_keys: SparkKeyMode,
    /// Do not use the filter (for comparisons); the result is the same.
    #[arg(long)]
    pub no_prefilter: bool,
    /// Do not read `name=value` directories in the inputs' paths (`dt=2024-01-01/`) as
    /// columns of their files' rows.
    #[arg(long)]
    pub no_hive_partitioning: bool,
    /// When a left key (after --left-where) is not in the filter, which then does not cover
    /// the left side: fail (error), or set it aside, build one from the left side (as
    /// without --filter) and say so (ignore-filter).
    #[arg(long, value_enum, default_value = "error")]
    pub filter_mismatch: FilterMismatch,
    /// Write a Parquet split-block Bloom filter per row group for these output columns,
    /// comma-separated, or `none` [default: the join key columns in the output].
    #[arg(long, value_name = "COLS")]
    pub bloom_columns: Option<String>,
    /// Write the output into Hive partition directories of these output columns,
    /// comma-separated (`dt,region`: `dt=2024-01-01/region=EU/part-....parquet`), as Spark's
    /// partitionBy does; the columns' values are in the directory names, not in the files.
    #[arg(long, value_name = "COLS")]
    pub partition_by: Option<String>,
    /// Target false-positive rate of those filters; each is sized for the rows its row group
    /// actually holds.
    #[arg(long, default_value_t = crate::bloom::sbbf::DEFAULT_FPP, value_name = "P")]
    pub bloom_fpp: f64,
    /// Codec of the output's pages.
    #[arg(long, value_enum, default_value = "zstd", value_name = "CODEC")]
    pub compression: Codec,
    /// Level of --compression: zstd -131072 to 22 [default: 1], gzip 0 to 9 (default 6),
    /// brotli 0 to 11 (default 1); snappy, lz4 and none have no levels.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub compression_level: Option<i32>,
    /// The most rows of an output row group (DuckDB's ROW_GROUP_SIZE) [default: 1048576].
    #[arg(long, value_name = "N")]
    pub row_group_rows: Option<usize>,
    /// About the most encoded bytes of an output row group, e.g. 128MiB (Spark's
    /// parquet.block.size) [default: no limit but --row-group-rows].
    #[arg(long, value_name = "SIZE")]
    pub row_group_size: Option<String>,
    /// The most rows of an output file (Spark's maxRecordsPerFile): a part's further rows go
    /// on in further files (`part-00000-1-<run>.parquet`, ...) [default: no limit].
    #[arg(long, value_name = "N")]
    pub max_rows_per_file: Option<u64>,
    /// About the most bytes of an output file, e.g. 256MiB (DuckDB's FILE_SIZE_BYTES): a file
    /// is closed after the batch that takes it past this [default: no limit].
    #[arg(long, value_name = "SIZE")]
    pub max_file_size: Option<String>,
    /// Do not skip right row groups with the right files' own Parquet Bloom filters (for
    /// comparisons); the result is the same.
    #[arg(long)]
    pub no_sbbf: bool,
    /// Probe the right files' Parquet Bloom filters only when the left side (after
    /// --left-where) has at most this many distinct keys: with more, nearly every row group
    /// has a false positive and fetching the filters costs more than it saves.
    #[arg(long, default_value_t = DEFAULT_SBBF_MAX_KEYS, value_name = "N")]
    pub sbbf_max_keys: usize,
}

/// The default of `--filter-fpp`: `train`'s usual target.
pub const DEFAULT_FILTER_FPP: f64 = 0.01;

/// The default of `--sbbf-max-keys` (docs/BENCHMARKS.md has the measurement).
pub const DEFAULT_SBBF_MAX_KEYS: usize = 1000;

impl Default for JoinSpec {
    fn default() -> Self {
        JoinSpec {
            filter: None,
            filter_fpp: DEFAULT_FILTER_FPP,
            left: Vec::new(),
            left_key: String::new(),
            left_where: None,
            right: Vec::new(),
            right_key: String::new(),
            right_where: None,
            join_where: None,
            join_type: JoinType::Inner,
            nulls_equal: false,
            coalesce_keys: false,
            strategy: Strategy::Auto,
            select: None,
            reducers: None,
            workers: None,
            output: String::new(),
            report: None,
            overwrite: false,
            append: false,
            overwrite_partitions: false,
            batch_size: 8192,
            split_rows: None,
            memory_limit: None,
            no_prefilter: false,
            no_hive_partitioning: false,
            spark_keys: SparkKeyMode::Plain,
            filter_mismatch: FilterMismatch::Error,
            bloom_columns: None,
            partition_by: None,
            bloom_fpp: crate::bloom::sbbf::DEFAULT_FPP,
            compression: Codec::Zstd,
            compression_level: None,
            row_group_rows: None,
            row_group_size: None,
            max_rows_per_file: None,
            max_file_size: None,
            no_sbbf: false,
            sbbf_max_keys: DEFAULT_SBBF_MAX_KEYS,
        }
    }
}

/// The most reducers (output parts) a join may have.
const MAX_REDUCERS: usize = 10_000;

impl JoinSpec {
    /// Check the options without reading any input and turn them into a [`JoinJob`]: required
    /// options, ranges, sizes, the `--left-where`/`--right-where` and `--select` syntax and the
    /// locations. Job files call it for every step before running any.
    pub fn to_job(&self) -> Result<JoinJob> {
        let spec = self;
        let nonzero = |v: Option<usize>, name: &str| -> Result<Option<NonZeroUsize>> {
            v.map(|v| NonZeroUsize::new(v).ok_or_else(|| Error::param(name, "must be at least 1")))
                .transpose()
        };
        let workers = crate::cli::workers(spec.workers)?;
        let reducers = nonzero(spec.reducers, "--reducers")?;
        if let Some(r) = reducers.filter(|r| r.get() > MAX_REDUCERS) {
            return Err(Error::param(
                "--reducers",
                format!("{r} is more than {MAX_REDUCERS}"),
            ));
        }
        let batch_size = NonZeroUsize::new(spec.batch_size)
            .ok_or_else(|| Error::param("--batch-size", "must be at least 1"))?;
        let split_rows = spec
            .split_rows
            .map(|r| {
                NonZeroU64::new(r).ok_or_else(|| Error::param("--split-rows", "must be at least 1"))
            })
            .transpose()?;
        for (name, inputs) in [("--left", &spec.left), ("--right", &spec.right)] {
            if inputs.is_empty() {
                return Err(Error::param(name, "is required"));
            }
        }
        for (name, key) in [
            ("--left-key", &spec.left_key),
            ("--right-key", &spec.right_key),
        ] {
            if key.is_empty() {
                return Err(Error::param(name, "is required"));
            }
        }
        let left_keys = crate::cli::key_columns(&spec.left_key, "--left-key")?;
        let right_keys = crate::cli::key_columns(&spec.right_key, "--right-key")?;
        if left_keys.len() != right_keys.len() {
            return Err(Error::param(
                "--right-key",
                format!(
                    "{} has {} columns but --left-key {} has {}: the keys are paired in order",
                    spec.right_key,
                    right_keys.len(),
                    spec.left_key,
                    left_keys.len()
                ),
            ));
        }
        let write_mode = crate::cli::write_mode(
            spec.overwrite,
            spec.append,
            spec.overwrite_partitions,
            spec.partition_by.is_some(),
        )?;
        let jt = spec.join_type;
        if spec.coalesce_keys && !(jt.outputs_left() && jt.outputs_right()) {
            let side = if jt.outputs_left() { "left" } else { "right" };
            return Err(Error::param(
                "--coalesce-keys",
                format!(
                    "a {} join outputs the {side} columns only, whose keys are the {side} keys: there is nothing to coalesce (inner, left, right and full joins output both sides)",
                    jt.name()
                ),
            ));
        }
        let memory_limit = match &spec.memory_limit {
            Some(s) => parse_size(s, "--memory-limit")?,
            None => crate::sys::total_memory().map_or(4 << 30, |m| m / 2),
        };
        let predicate = |w: &Option<String>, name: &str| {
            w.as_deref().map(|w| Predicate::parse(w, name)).transpose()
        };
        let reducers = reducers.unwrap_or(workers);
        if reducers.get() > MAX_REDUCERS {
            return Err(Error::param(
                "--reducers",
                format!("{reducers} (one per worker) is more than {MAX_REDUCERS}"),
            ));
        }
        Ok(JoinJob {
            filter: spec.filter.as_deref().map(Location::parse).transpose()?,
            filter_fpp: crate::bloom::sbbf::check_fpp(spec.filter_fpp, "--filter-fpp")?,
            prefilter: !spec.no_prefilter,
            spark_keys: spec.spark_keys,
            filter_mismatch: spec.filter_mismatch,
            left: SideJob {
                inputs: spec.left.clone(),
                keys: left_keys,
                predicate: predicate(&spec.left_where, "--left-where")?,
                hive_partitioning: !spec.no_hive_partitioning,
            },
            right: SideJob {
                inputs: spec.right.clone(),
                keys: right_keys,
                predicate: predicate(&spec.right_where, "--right-where")?,
                hive_partitioning: !spec.no_hive_partitioning,
            },
            join_where: predicate(&spec.join_where, "--join-where")?,
            join_type: spec.join_type,
            nulls_equal: spec.nulls_equal,
            coalesce_keys: spec.coalesce_keys,
            strategy: spec.strategy,
            select: spec.select.as_deref().map(parse_select).transpose()?,
            workers,
            reducers,
            output: Location::parse(&spec.output)?,
            report: spec.report.clone(),
            write_mode,
            batch_size,
            split_rows,
            memory_limit,
            bloom_columns: crate::bloom::sbbf::parse_columns(
                spec.bloom_columns.as_deref(),
                "--bloom-columns",
            )?,
            bloom_fpp: crate::bloom::sbbf::check_fpp(spec.bloom_fpp, "--bloom-fpp")?,
            partition_by: spec
                .partition_by
                .as_deref()
                .map(|list| crate::cli::key_columns(list, "--partition-by"))
                .transpose()?,
            format: crate::cli::file_format(
                spec.compression,
                spec.compression_level,
                spec.row_group_rows,
                spec.row_group_size.as_deref(),
                spec.max_rows_per_file,
                spec.max_file_size.as_deref(),
            )?,
            sbbf: !spec.no_sbbf,
            sbbf_max_keys: spec.sbbf_max_keys,
        })
    }
}

/// `list` cut at its commas outside parentheses, `'strings'` and `"quoted names"`.
pub(crate) fn select_items(list: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut quote, mut start) = (0usize, None, 0);
    for (i, c) in list.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth = depth.saturating_sub(1),
            (None, ',') if depth == 0 => {
                items.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&list[start..]);
    items
}

/// Parse a `--select` list: comma-separated names, each bare or qualified (`left.x`,
/// `right.y`), each maybe renamed (`left.x AS y`, `AS` in any case), or expressions named with
/// `AS` (a comma within parentheses or quotes does not end an item). Resolving them against
/// the inputs' schemas happens when the sides are planned (where a column named `x AS y`, if
/// there is one, is that column, and an item that names no column is an expression).
pub(crate) fn parse_select(list: &str) -> Result<Vec<ColumnRef>> {
    select_items(list)
        .into_iter()
        .map(str::trim)
        .map(|item| {
            let (side, rest) = if let Some(n) = item.strip_prefix("left.") {
                (Some(Side::Left), n.trim())
            } else if let Some(n) = item.strip_prefix("right.") {
                (Some(Side::Right), n.trim())
            } else {
                (None, item)
            };
            if rest.is_empty() {
                return Err(Error::param(
                    "--select",
                    format!("{list:?} has an empty column name"),
                ));
            }
            // `column AS alias`, the alias bare or `"quoted"`.
            Ok(match crate::plan::side::split_alias(rest) {
                Some((column, alias)) => ColumnRef {
                    side,
                    name: column.to_string(),
                    alias: Some(alias),
                    literal: Some(rest.to_string()),
                    item: item.to_string(),
                },
                None => ColumnRef {
                    side,
                    name: rest.to_string(),
                    alias: None,
                    literal: None,
                    item: item.to_string(),
                },
            })
        })
        .collect()
}

/// Parse a size like `512MiB`, `2G`, `1.5GiB` or a number of bytes; `name` is the option.
pub fn parse_size(s: &str, name: &str) -> Result<u64> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num
        .parse()
        .map_err(|_| Error::param(name, format!("{s:?} is not a size (e.g. 512MiB, 4GiB)")))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => 1024.0 * 1024.0,
        "g" | "gb" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tb" | "tib" => 1024.0f64.powi(4),
        _ => return Err(Error::param(name, format!("{s:?} has an unknown unit"))),
    };
    let bytes = v * mult;
    if bytes.is_nan() || bytes < 1.0 {
        return Err(Error::param(name, format!("{s:?} must be positive")));
    }
    Ok(bytes as u64)
}

/// Arguments of `join`: the job's options and how to run it.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The job's options (also a job file's `[join]` table).
    #[command(flatten)]
    pub spec: JoinSpec,
    #[command(flatten)]
    pub dry_run: crate::cli::DryRunArg,
}

/// Run `join` and print the summary with the counters; warnings go to stderr, even with
/// `--quiet`.
pub fn run(args: Args, quiet: bool) -> Result<()> {
    let job = args.spec.to_job()?;
    if let Some(format) = args.dry_run.format {
        return crate::cli::print_dry_run(&join::dry_run(&job, false, false)?, format, quiet);
    }
    let report = join::run(&job, !quiet)?;
    warn(&report);
    if !quiet {
        crate::cli::print(&report.summary())?;
    }
    Ok(())
}

/// Print a join's warnings on stderr, one line each.
pub fn warn(report: &join::JoinReport) {
    for w in &report.warnings {
        eprintln!("bloomjoin: warning: {w}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("512MiB", "--memory-limit").unwrap(), 512 << 20);
        assert_eq!(parse_size("2G", "--memory-limit").unwrap(), 2 << 30);
        assert_eq!(parse_size("1.5 GiB", "--memory-limit").unwrap(), 3 << 29);
        assert_eq!(parse_size("4096", "--memory-limit").unwrap(), 4096);
        for bad in ["", "abc", "0", "5 parsecs", "-1G"] {
            let e = parse_size(bad, "--memory-limit").unwrap_err().to_string();
            assert!(e.contains("--memory-limit"), "{e}");
        }
    }

    fn spec() -> JoinSpec {
        JoinSpec {
            filter: Some("f.bjf".into()),
            left: vec!["u".into()],
            left_key: "Id".into(),
            right: vec!["c".into()],
            right_key: "UserId".into(),
            output: "out".into(),
            ..Default::default()
        }
    }

    #[test]
    fn select_lists_split_at_commas_outside_parentheses_and_quotes() {
        let items: Vec<String> = parse_select(
            "a, concat(b, ',', c) AS x ,'q,r' || d AS \"y,z\", left.e, coalesce(f, g(h, i))",
        )
        .unwrap()
        .into_iter()
        .map(|c| c.item)
        .collect();
        assert_eq!(
            items,
            [
                "a",
                "concat(b, ',', c) AS x",
                "'q,r' || d AS \"y,z\"",
                "left.e",
                "coalesce(f, g(h, i))"
            ]
        );
        assert!(parse_select("a,,b").is_err());
        // A quoted alias is the name inside the quotes (it was `"uid"`, quotes and all, and one
        // with a space was no alias at all).
        let aliases: Vec<Option<String>> =
            parse_select("left.Id AS \"u id\", Id AS \"uid\", x as y, \"a\"\"b\" AS c")
                .unwrap()
                .into_iter()
                .map(|c| c.alias)
                .collect();
        assert_eq!(
            aliases,
            [Some("u id"), Some("uid"), Some("y"), Some("c")].map(|a| a.map(String::from))
        );
    }

    #[test]
    fn to_job_checks_every_option_once() {
        let job = JoinSpec {
            workers: Some(3),
            select: Some("left.Id, Text".into()),
            left_where: Some("Reputation > 1500".into()),
            ..spec()
        }
        .to_job()
        .unwrap();
        assert_eq!(job.workers.get(), 3);
        assert_eq!(job.reducers.get(), 3, "reducers default to the workers");
        assert_eq!(
            job.select.unwrap(),
            [
                ColumnRef {
                    side: Some(Side::Left),
                    name: "Id".into(),
                    alias: None,
                    literal: None,
                    item: "left.Id".into(),
                },
                ColumnRef {
                    side: None,
                    name: "Text".into(),
                    alias: None,
                    literal: None,
                    item: "Text".into(),
                }
            ]
        );
        assert_eq!(job.left.predicate.unwrap().text(), "Reputation > 1500");
        for (bad, needle) in [
            (
                JoinSpec {
                    workers: Some(0),
                    ..spec()
                },
                "--workers",
            ),
            (
                JoinSpec {
                    workers: Some(1025),
                    ..spec()
                },
                "--workers",
            ),
            (
                JoinSpec {
                    reducers: Some(10_001),
                    ..spec()
                },
                "--reducers",
            ),
            (
                JoinSpec {
                    batch_size: 0,
                    ..spec()
                },
                "--batch-size",
            ),
            (
                JoinSpec {
                    split_rows: Some(0),
                    ..spec()
                },
                "--split-rows",
            ),
            (
                JoinSpec {
                    filter: None,
                    filter_fpp: 0.0,
                    ..spec()
                },
                "--filter-fpp",
            ),
            (
                JoinSpec {
                    select: Some("a,,b".into()),
                    ..spec()
                },
                "--select",
            ),
            (
                JoinSpec {
                    right_where: Some("x >".into()),
                    ..spec()
                },
                "--right-where",
            ),
            (
                JoinSpec {
                    memory_limit: Some("lots".into()),
                    ..spec()
                },
                "--memory-limit",
            ),
            (
                JoinSpec {
                    bloom_fpp: 1.5,
                    ..spec()
                },
                "--bloom-fpp",
            ),
            (
                JoinSpec {
                    bloom_columns: Some("Id,".into()),
                    ..spec()
                },
                "--bloom-columns",
            ),
        ] {
            let e = bad.to_job().unwrap_err();
            assert!(e.to_string().contains(needle), "{needle}: {e}");
            assert_eq!(e.exit_code(), 2, "{e}");
        }
    }
}
