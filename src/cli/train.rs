//! `bloomjoin train`: the options as the user gives them ([`TrainSpec`], from the command line
//! or a job file's `[train]` table), checked once into a [`TrainJob`] that [`crate::train::run`]
//! consumes.

use std::num::{NonZeroU64, NonZeroUsize};

use serde::{Deserialize, Serialize};

use crate::bloom::codec::FileFormat;
use crate::bloom::spark_keys::SparkKeyMode;
use crate::bloom::{BloomParams, Layout};
use crate::error::{Error, Result};
use crate::expr::Predicate;
use crate::seed::Seed;
use crate::store::Location;
use crate::train::{self, FilterOptions, Shard, Sizing, TrainJob};

/// The train job's options, shared by the command line and job files.
#[derive(Debug, Clone, clap::Args, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, rename_all = "kebab-case")]
pub struct TrainSpec {
    /// Input Parquet files: paths, directories, globs or object-store URLs (repeatable).
    #[arg(long, short, required = true, num_args = 1.., value_name = "LOC")]
    pub input: Vec<String>,
    /// The key column; several, comma-separated (`a,b`), make a composite key: one filter
    /// over the tuple.
    #[arg(long, short, value_name = "COL[,COL...]")]
    pub column: String,
    /// Train only on rows where this SQL condition holds, e.g. "Reputation > 1500".
    #[arg(long = "where", value_name = "EXPR", allow_hyphen_values = true)]
    #[serde(rename = "where")]
    pub predicate: Option<String>,
    /// Expected number of distinct keys (with --fpp). Without it (and without --bits), split,
    /// blocked and sbbf filters are sized in one pass by folding; other layouts first count
    /// the distinct keys that pass --where.
    #[arg(long, value_name = "N")]
    pub expected_items: Option<u64>,
    /// Target false-positive rate [default: 0.01].
    #[arg(long, value_name = "P")]
    pub fpp: Option<f64>,
    /// Explicit number of bits m (with --hashes).
    #[arg(long, value_name = "M", conflicts_with_all = ["expected_items", "fpp"], requires = "hashes")]
    pub bits: Option<u64>,
    /// Explicit number of hash functions k (with --bits).
    #[arg(long, value_name = "K", requires = "bits")]
    pub hashes: Option<u32>,
    /// The sbbf layout's size in bytes: a power of two from 32 to 134217728 (128 MiB), as
    /// Parquet writers size their filters (instead of --expected-items/--fpp).
    #[arg(long, value_name = "B", conflicts_with_all = ["expected_items", "fpp", "bits", "hashes"])]
    pub num_bytes: Option<u64>,
    /// Hash seed: 0..=2^64-1; for spark-v2 also Spark's Java int (-1640531527 is the same seed
    /// as 2654435769).
    #[arg(long, default_value_t = Seed::default(), allow_negative_numbers = true, value_name = "S")]
    pub seed: Seed,
    /// Bit layout: split (one cache line per key, one bit in each of its 8 words: the
    /// fastest), blocked (one cache line per key, k bits anywhere in it: smaller where the
    /// best k is far from 8, e.g. --fpp 0.1 or 1e-6), classic, Apache Spark's spark-v1 / spark-v2 (bit-exact with Spark's
    /// BloomFilter; Spark's sizing), or sbbf (Parquet's split-block Bloom filter, bit-exact
    /// with a column chunk's filter over the same values; hashes the plain encoding of the key
    /// column's Parquet physical type).
    #[arg(long, default_value = "split")]
    pub layout: Layout,
    /// What a Spark-layout filter inserts for a key: plain (the key itself, as Spark's
    /// `df.stat.bloomFilter` does) or xxhash64 (Spark SQL's `xxhash64(key)` as a long, so that
    /// Spark probes it with `might_contain(filter, xxhash64(col))`; strings, decimals and
    /// timestamps too). The filter records the mode and the key's Spark type.
    #[arg(long, value_enum, default_value_t = SparkKeyMode::Plain, value_name = "plain|xxhash64")]
    pub spark_keys: SparkKeyMode,
    /// Output file format: native, or spark (Spark's BloomFilter.writeTo bytes, readable by
    /// BloomFilter.readFrom; needs --layout spark-v1 or spark-v2).
    #[arg(long, value_enum, default_value_t = FileFormat::Native)]
    pub format: FileFormat,
    /// Worker threads, 1 to 1024 [default: all cores].
    #[arg(long, short, value_name = "W")]
    pub workers: Option<usize>,
    /// Where to write the filter (a path or an object-store URL).
    #[arg(long, short)]
    pub output: String,
    /// Write the counters as JSON here (a path or an object-store URL).
    #[arg(long, value_name = "LOC")]
    pub report: Option<String>,
    /// Replace an existing output.
    #[arg(long)]
    pub overwrite: bool,
    /// Train only the i-th of N deterministic slices of the splits (0-based), e.g. 0/4.
    #[arg(long, value_name = "i/N")]
    pub shard: Option<String>,
    /// Rows per decoded batch.
    #[arg(long, default_value_t = 65_536, value_name = "ROWS")]
    pub batch_size: usize,
    /// Close a split once it holds this many rows [default: as near total rows / (32 x
    /// workers) as the row groups allow, / (4 x workers) for files in an object store].
    #[arg(long, value_name = "ROWS")]
    pub split_rows: Option<u64>,
    /// Do not read `name=value` directories in the inputs' paths (`dt=2024-01-01/`) as
    /// columns of their files' rows (for --where).
    #[arg(long)]
    pub no_hive_partitioning: bool,
}

impl Default for TrainSpec {
    fn default() -> Self {
        TrainSpec {
            input: Vec::new(),
            column: String::new(),
            predicate: None,
            expected_items: None,
            fpp: None,
            bits: None,
            hashes: None,
            num_bytes: None,
            seed: Seed::default(),
            layout: Layout::Split,
            spark_keys: SparkKeyMode::Plain,
            format: FileFormat::Native,
            workers: None,
            output: String::new(),
            report: None,
            overwrite: false,
            shard: None,
            batch_size: 65_536,
            split_rows: None,
            no_hive_partitioning: false,
        }
    }
}

impl TrainSpec {
    /// Check the options without reading any input and turn them into a [`TrainJob`]:
    /// required options, ranges, the sizing, the seed for the layout, the `--where` syntax,
    /// the shard and the output location. Job files call it for every step before running any.
    pub fn to_job(&self) -> Result<TrainJob> {
        let spec = self;
        let workers = crate::cli::workers(spec.workers)?;
        let batch_size = NonZeroUsize::new(spec.batch_size)
            .ok_or_else(|| Error::param("--batch-size", "must be at least 1"))?;
        if spec.column.is_empty() {
            return Err(Error::param("--column", "is required"));
        }
        let columns = crate::cli::key_columns(&spec.column, "--column")?;
        check_composite_layout(spec.layout, spec.spark_keys, columns.len(), &spec.column)?;
        if spec.input.is_empty() {
            return Err(Error::param("--input", "is required"));
        }
        let split_rows = spec
            .split_rows
            .map(|r| {
                NonZeroU64::new(r).ok_or_else(|| Error::param("--split-rows", "must be at least 1"))
            })
            .transpose()?;
        let shard = spec.shard.as_deref().map(parse_shard).transpose()?;
        let filter = self.filter_spec().filter_options()?;
        if shard.is_some()
            && matches!(filter.sizing, Sizing::Fpp(_))
            && !spec.layout.sizes_by_folding()
        {
            // Each shard would size itself for its own keys: shards of equal sizes would
            // then merge into a filter sized for a fraction of the keys, far over --fpp.
            return Err(Error::param(
                "--shard",
                format!(
                    "a shard of the {} layout needs fixed sizing, --expected-items N --fpp P or --bits M --hashes K: with --fpp alone each shard sizes itself for its own keys, and their merge would miss --fpp (only split, blocked and sbbf filters fold)",
                    spec.layout,
                ),
            ));
        }
        Ok(TrainJob {
            inputs: spec.input.clone(),
            column: spec.column.clone(),
            columns,
            predicate: spec
                .predicate
                .as_deref()
                .map(|w| Predicate::parse(w, "--where"))
                .transpose()?,
            filter,
            workers,
            output: Location::parse(&spec.output)?,
            report: spec.report.clone(),
            overwrite: spec.overwrite,
            shard,
            batch_size,
            split_rows,
            hive_partitioning: !spec.no_hive_partitioning,
        })
    }
}

impl TrainSpec {
    /// The options that say what filter to build, whatever its keys: what `train` shares
    /// with [`BuildSpec`].
    fn filter_spec(&self) -> BuildSpec {
        BuildSpec {
            column: None,
            expected_items: self.expected_items,
            fpp: self.fpp,
            bits: self.bits,
            hashes: self.hashes,
            num_bytes: self.num_bytes,
            seed: self.seed,
            layout: self.layout,
            spark_keys: self.spark_keys,
            format: self.format,
            workers: self.workers,
        }
    }
}

/// The options of a filter built from keys in memory (the Python package's `Filter.build`):
/// `train`'s options that say what filter to build (sizing, layout, seed, Spark keys, format),
/// without the inputs, `--where` and output. Checked into a
/// [`BuildJob`](crate::train::build::BuildJob) by [`BuildSpec::to_job`].
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, rename_all = "kebab-case")]
pub struct BuildSpec {
    /// For one array of keys, the key column's name, recorded in the filter; for a struct
    /// array (a table's rows), the fields that make the key, comma-separated for a composite
    /// key. `None`: every field of a struct, or no name.
    pub column: Option<String>,
    /// As `train --expected-items`.
    pub expected_items: Option<u64>,
    /// As `train --fpp` [default: 0.01].
    pub fpp: Option<f64>,
    /// As `train --bits`.
    pub bits: Option<u64>,
    /// As `train --hashes`.
    pub hashes: Option<u32>,
    /// As `train --num-bytes`.
    pub num_bytes: Option<u64>,
    /// As `train --seed`.
    pub seed: Seed,
    /// As `train --layout`.
    pub layout: Layout,
    /// As `train --spark-keys`.
    pub spark_keys: SparkKeyMode,
    /// As `train --format`: the format the filter is written in by default.
    pub format: FileFormat,
    /// As `train --workers`.
    pub workers: Option<usize>,
}

impl Default for BuildSpec {
    fn default() -> Self {
        TrainSpec::default().filter_spec()
    }
}

impl BuildSpec {
    /// Check the filter's options as `train` checks them (named by `train`'s flags): bits and
    /// hashes together and alone, one way of sizing, the format and Spark key mode for the
    /// layout, the seed for the layout, and `fpp` (and the items) for the layout.
    fn filter_options(&self) -> Result<FilterOptions> {
        let spec = self;
        if spec.bits.is_some() != spec.hashes.is_some() {
            return Err(Error::param(
                if spec.bits.is_some() {
                    "--hashes"
                } else {
                    "--bits"
                },
                "--bits and --hashes go together",
            ));
        }
        if spec.bits.is_some() && (spec.fpp.is_some() || spec.expected_items.is_some()) {
            return Err(Error::param(
                "--bits",
                "cannot be combined with --fpp or --expected-items",
            ));
        }
        spec.format.check_layout(spec.layout, "--format")?;
        if spec.spark_keys == SparkKeyMode::Xxhash64 && !spec.layout.is_spark() {
            return Err(Error::param(
                "--spark-keys",
                format!(
                    "xxhash64 needs --layout spark-v1 or spark-v2, not {} (Spark's might_contain probes Spark's filters)",
                    spec.layout
                ),
            ));
        }
        let seed = spec.seed.for_layout(spec.layout)?;
        if spec.num_bytes.is_some()
            && (spec.bits.is_some() || spec.fpp.is_some() || spec.expected_items.is_some())
        {
            return Err(Error::param(
                "--num-bytes",
                "cannot be combined with --bits, --fpp or --expected-items",
            ));
        }
        let fpp = spec.fpp.unwrap_or(0.01);
        let sizing = match (spec.bits, spec.hashes, spec.num_bytes, spec.expected_items) {
            (_, _, Some(b), _) => Sizing::Explicit(num_bytes_params(spec.layout, b, seed)?),
            (Some(m), Some(k), None, _) => {
                Sizing::Explicit(BloomParams::explicit(spec.layout, m, k, seed)?)
            }
            (_, _, None, items) => {
                // Checks --fpp (and N) for the layout before anything is read.
                BloomParams::for_items(spec.layout, items.unwrap_or(1), fpp, seed)?;
                match items {
                    Some(n) => Sizing::Items { n, fpp },
                    None => Sizing::Fpp(fpp),
                }
            }
        };
        Ok(FilterOptions {
            sizing,
            layout: spec.layout,
            seed,
            spark_keys: spec.spark_keys,
            format: spec.format,
        })
    }

    /// Check the options into a [`BuildJob`](crate::train::build::BuildJob), before any key is
    /// seen (the key's arity is checked against the layout when the keys come).
    pub fn to_job(&self) -> Result<crate::train::build::BuildJob> {
        let filter = self.filter_options()?;
        let workers = crate::cli::workers(self.workers)?;
        let columns = self
            .column
            .as_deref()
            .map(|c| crate::cli::key_columns(c, "--column"))
            .transpose()?;
        Ok(crate::train::build::BuildJob {
            columns,
            filter,
            workers,
        })
    }
}

/// Refuse a composite key (`columns`, as given: `column`) on a Spark layout in the plain key
/// mode, whose filters hold one long or string per key.
pub(crate) fn check_composite_layout(
    layout: Layout,
    spark_keys: SparkKeyMode,
    columns: usize,
    column: &str,
) -> Result<()> {
    if columns > 1 && layout.is_spark() && spark_keys == SparkKeyMode::Plain {
        return Err(Error::param(
            "--layout",
            format!(
                "{layout}: a composite key (--column {column}) needs a native layout (split, blocked or classic), or --spark-keys xxhash64; Spark's layouts hold one long or string per key",
            ),
        ));
    }
    Ok(())
}

/// Parse `--shard i/N` (0 <= i < N).
fn parse_shard(s: &str) -> Result<Shard> {
    let bad = || Error::param("--shard", format!("{s:?} is not i/N with 0 <= i < N"));
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok(Shard { index: i, count: n })
}

/// The params of `--num-bytes B`: an sbbf filter of `B` bytes (a power of two from 32 to
/// 128 MiB). Errors name `--num-bytes`.
fn num_bytes_params(layout: Layout, bytes: u64, seed: u64) -> Result<BloomParams> {
    if layout != Layout::Sbbf {
        return Err(Error::param(
            "--num-bytes",
            format!("sizes sbbf filters only, not {layout} (use --bits and --hashes)"),
        ));
    }
    let max = parquet::bloom_filter::BITSET_MAX_LENGTH as u64;
    if !bytes.is_power_of_two() || !(32..=max).contains(&bytes) {
        return Err(Error::param(
            "--num-bytes",
            format!("{bytes} is not a power of two from 32 to {max} (a Parquet SBBF's sizes)"),
        ));
    }
    BloomParams::explicit(layout, bytes * 8, 8, seed)
}

/// Arguments of `train`: the job's options and how to run it.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The job's options (also a job file's `[train]` table).
    #[command(flatten)]
    pub spec: TrainSpec,
    #[command(flatten)]
    pub dry_run: crate::cli::DryRunArg,
}

/// Run `train` and print the summary.
pub fn run(args: Args, quiet: bool) -> Result<()> {
    let job = args.spec.to_job()?;
    if let Some(format) = args.dry_run.format {
        return crate::cli::print_dry_run(&train::dry_run(&job)?, format, quiet);
    }
    let report = train::run(&job, !quiet)?;
    if !quiet {
        crate::cli::print(&report.summary())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> TrainSpec {
        TrainSpec {
            input: vec!["data/sample/users".into()],
            column: "Id".into(),
            output: "out.bjf".into(),
            ..TrainSpec::default()
        }
    }

    #[test]
    fn to_job_types_every_option_once() {
        let job = TrainSpec {
            column: "a, b".into(),
            predicate: Some("Reputation > 10".into()),
            fpp: Some(0.001),
            shard: Some(" 1 / 4 ".into()),
            workers: Some(3),
            split_rows: Some(1000),
            ..spec()
        }
        .to_job()
        .unwrap();
        assert_eq!(job.columns, ["a", "b"]);
        assert_eq!(job.predicate.as_ref().unwrap().text(), "Reputation > 10");
        assert!(matches!(job.filter.sizing, Sizing::Fpp(p) if p == 0.001));
        assert_eq!(job.shard, Some(Shard { index: 1, count: 4 }));
        assert_eq!(job.shard.unwrap().to_string(), "1/4");
        assert_eq!(job.workers.get(), 3);
        assert_eq!(job.split_rows.map(NonZeroU64::get), Some(1000));
        assert_eq!(job.output.as_str(), "out.bjf");

        let items = TrainSpec {
            expected_items: Some(500),
            ..spec()
        };
        assert!(matches!(
            items.to_job().unwrap().filter.sizing,
            Sizing::Items { n: 500, fpp } if fpp == 0.01
        ));
        let explicit = TrainSpec {
            bits: Some(4096),
            hashes: Some(3),
            layout: Layout::Classic,
            ..spec()
        };
        assert!(matches!(
            explicit.to_job().unwrap().filter.sizing,
            Sizing::Explicit(p) if p.num_bits == 4096 && p.num_hashes == 3
        ));
    }

    #[test]
    fn to_job_names_the_bad_option() {
        let cases: Vec<(TrainSpec, &str)> = vec![
            (
                TrainSpec {
                    workers: Some(0),
                    ..spec()
                },
                "--workers",
            ),
            // 100,000 worker threads hung the job (fifth audit, 2026-11-26).
            (
                TrainSpec {
                    workers: Some(100_000),
                    ..spec()
                },
                "--workers",
            ),
            (
                TrainSpec {
                    batch_size: 0,
                    ..spec()
                },
                "--batch-size",
            ),
            (
                TrainSpec {
                    split_rows: Some(0),
                    ..spec()
                },
                "--split-rows",
            ),
            (
                TrainSpec {
                    column: String::new(),
                    ..spec()
                },
                "--column",
            ),
            (
                TrainSpec {
                    column: "a,,b".into(),
                    ..spec()
                },
                "--column",
            ),
            (
                TrainSpec {
                    input: vec![],
                    ..spec()
                },
                "--input",
            ),
            (
                TrainSpec {
                    shard: Some("4/4".into()),
                    ..spec()
                },
                "--shard",
            ),
            (
                TrainSpec {
                    bits: Some(64),
                    ..spec()
                },
                "--hashes",
            ),
            (
                TrainSpec {
                    fpp: Some(1.5),
                    ..spec()
                },
                "fpp",
            ),
            (
                TrainSpec {
                    num_bytes: Some(1000),
                    layout: Layout::Sbbf,
                    ..spec()
                },
                "--num-bytes",
            ),
            (
                TrainSpec {
                    num_bytes: Some(1024),
                    ..spec()
                },
                "--num-bytes",
            ),
            (
                TrainSpec {
                    predicate: Some("Id >".into()),
                    ..spec()
                },
                "--where",
            ),
            (
                TrainSpec {
                    output: "ftp://x/y".into(),
                    ..spec()
                },
                "ftp",
            ),
            (
                TrainSpec {
                    spark_keys: SparkKeyMode::Xxhash64,
                    ..spec()
                },
                "--spark-keys",
            ),
        ];
        for (bad, name) in cases {
            let e = bad.to_job().unwrap_err().to_string();
            assert!(e.contains(name), "{name}: {e}");
        }
    }

    /// A shard of a layout that cannot fold, sized by --fpp alone, would size itself for its
    /// own keys; shards of equal sizes then merged into a filter far over --fpp (an sbbf
    /// filter at 0.13 for 0.01, found by the fuzzer). Fixed sizing, or a layout that folds,
    /// is accepted.
    #[test]
    fn a_shard_of_a_layout_that_cannot_fold_needs_fixed_sizing() {
        // An sbbf shard with --fpp alone folds, as split and blocked ones do.
        TrainSpec {
            layout: Layout::Sbbf,
            shard: Some("0/2".into()),
            ..spec()
        }
        .to_job()
        .unwrap();
        for layout in [Layout::Classic, Layout::SparkV1, Layout::SparkV2] {
            let sharded = |s: TrainSpec| TrainSpec {
                layout,
                shard: Some("0/2".into()),
                ..s
            };
            let e = sharded(spec()).to_job().unwrap_err().to_string();
            assert!(
                e.contains("--shard") && e.contains("fixed sizing"),
                "{layout}: {e}"
            );
            let e = sharded(TrainSpec {
                fpp: Some(0.001),
                ..spec()
            })
            .to_job()
            .unwrap_err()
            .to_string();
            assert!(e.contains("--shard"), "{layout}: {e}");
            sharded(TrainSpec {
                expected_items: Some(100),
                ..spec()
            })
            .to_job()
            .unwrap();
            sharded(TrainSpec {
                bits: Some(4096),
                hashes: Some(3),
                ..spec()
            })
            .to_job()
            .unwrap();
            // Unsharded, --fpp alone sizes from the counted keys as before.
            TrainSpec { layout, ..spec() }.to_job().unwrap();
        }
        for layout in [Layout::Split, Layout::Blocked] {
            TrainSpec {
                layout,
                shard: Some("1/2".into()),
                ..spec()
            }
            .to_job()
            .unwrap();
        }
    }
}
