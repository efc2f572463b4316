//! The train job: Parquet splits across worker threads, one partial filter per worker,
//! OR-merge, atomic write.
//!
//! In: a [`TrainJob`] (validated options, see [`crate::cli::train::TrainSpec::to_job`]). Out: the filter written to
//! `output` and a [`TrainReport`]. Every worker trains a partial with the same params; the
//! partials are ORed, so the bytes are the same for any worker count, split size and batch
//! size. Nothing is written unless every split succeeded.

use std::num::{NonZeroU64, NonZeroUsize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use cardinality_estimator::CardinalityEstimator;
use serde::Serialize;

use crate::bloom::codec::{self, FileFormat, FilterMeta};
use crate::bloom::spark_keys::{SparkKeyMode, SparkKeys, SparkType};
use crate::bloom::{self, BloomFilter, BloomParams, Layout, BLOCK_BITS, MAX_BITS};
use crate::error::{Error, Result};
use crate::expr::Predicate;
use crate::key::KeyFamily;
use crate::plan::side::Source;
use crate::plan::{self, InputFile, Plan, RangeReader, SplitOptions};
use crate::read::ahead::ReadAhead;
use crate::read::{ReadOptions, SplitReader};
use crate::store::Location;

pub mod build;

/// A validated train job: what [`run`] consumes. Build it with
/// [`TrainSpec::to_job`](crate::cli::train::TrainSpec::to_job).
#[derive(Debug, Clone)]
pub struct TrainJob {
    /// Input locations as given (paths, directories, globs, URLs).
    pub(crate) inputs: Vec<String>,
    /// `--column` as given (the report and summary quote it).
    pub(crate) column: String,
    /// The key columns, in order (several: a composite key).
    pub(crate) columns: Vec<String>,
    /// `--where`, parsed.
    pub(crate) predicate: Option<Predicate>,
    /// What filter to build.
    pub(crate) filter: FilterOptions,
    /// Worker threads.
    pub(crate) workers: NonZeroUsize,
    /// Where to write the filter.
    pub(crate) output: Location,
    /// Where to write the report JSON.
    pub(crate) report: Option<String>,
    /// Replace an existing output.
    pub(crate) overwrite: bool,
    /// Train only this slice of the splits.
    pub(crate) shard: Option<Shard>,
    /// Rows per decoded batch.
    pub(crate) batch_size: NonZeroUsize,
    /// Rows per split (`None`: [`crate::plan::SplitOptions::for_workers`]).
    pub(crate) split_rows: Option<NonZeroU64>,
    /// Read `name=value` directories as columns (off with `--no-hive-partitioning`).
    pub(crate) hive_partitioning: bool,
}

impl TrainJob {
    /// Where the filter is written.
    pub fn output(&self) -> &Location {
        &self.output
    }

    /// The input locations, as given.
    pub fn inputs(&self) -> &[String] {
        &self.inputs
    }
}

/// What filter a training builds, whatever its keys and where they come from: the options
/// `train` and the Python package's `Filter.build` share, checked together
/// ([`crate::cli::train::BuildSpec`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FilterOptions {
    /// How to size the filter.
    pub(crate) sizing: Sizing,
    /// The bit layout.
    pub(crate) layout: Layout,
    /// The hash seed, checked for the layout.
    pub(crate) seed: u64,
    /// What a Spark-layout filter inserts for a key.
    pub(crate) spark_keys: SparkKeyMode,
    /// The format the filter is written in (by default, for `Filter.build`).
    pub(crate) format: FileFormat,
}

/// How a train job sizes its filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sizing {
    /// `--bits`/`--hashes`, or `--num-bytes` (sbbf): the params themselves.
    Explicit(BloomParams),
    /// `--expected-items N` at `fpp`.
    Items {
        /// The expected distinct keys.
        n: u64,
        /// The target false-positive rate.
        fpp: f64,
    },
    /// `--fpp` alone: split and blocked filters train in one pass and fold to the keys
    /// counted; other layouts count the distinct keys in a first pass.
    Fpp(f64),
}

impl Sizing {
    /// The target false-positive rate: the one asked for, or (explicit m and k) the default
    /// 0.01 that the report's checks use.
    pub fn fpp(&self) -> f64 {
        match *self {
            Sizing::Items { fpp, .. } | Sizing::Fpp(fpp) => fpp,
            Sizing::Explicit(_) => 0.01,
        }
    }
}

/// `--shard i/N`: the i-th (0-based) of N deterministic slices of the splits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// i.
    pub index: usize,
    /// N.
    pub count: usize,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The distinct-count sketch: HyperLogLog with 2^14 registers (about 0.8 % error), fed with
/// our own key hashes so the estimate is deterministic.
type Sketch = CardinalityEstimator<u64, wyhash::WyHash, 14, 6>;

/// How the filter was sized, as the report tells it.
#[derive(Debug, Clone, Serialize)]
pub struct SizingReport {
    /// `expected-items`, `explicit`, `estimated-distinct` (a counting pass, then training) or
    /// `folded` (one pass into an oversized blocked filter, folded down to the counted keys).
    pub method: &'static str,
    /// The item count used for sizing (absent for explicit m and k).
    pub items: Option<u64>,
    /// The target false-positive rate (absent for explicit m and k).
    pub fpp: Option<f64>,
    /// The estimate of the distinct keys: HyperLogLog for `estimated-distinct`, the filter's
    /// bits block by block for `folded`; `items` is this plus a 2 % margin (about 2.5 standard errors) for `estimated-distinct`,
    /// and this (at most the keys inserted) for `folded`, whose bits are checked instead.
    pub estimated_distinct: Option<u64>,
    /// For `folded`: the filter size trained into (bits), from the row counts of the Parquet
    /// footers (the most distinct keys there can be).
    pub bits_before_fold: Option<u64>,
    /// For `folded`: the size after folding (bits); equal to `bits_before_fold` for a shard,
    /// which `merge` folds instead.
    pub bits_after_fold: Option<u64>,
    /// For `folded`: the model FPP at the counted keys (mean plus 3 sd for the blocked layout).
    pub model_fpp: Option<f64>,
}

impl SizingReport {
    /// A sizing by `method` for `items` at `fpp`, before any count or fold.
    fn new(method: &'static str, items: Option<u64>, fpp: Option<f64>) -> Self {
        SizingReport {
            method,
            items,
            fpp,
            estimated_distinct: None,
            bits_before_fold: None,
            bits_after_fold: None,
            model_fpp: None,
        }
    }
}

/// Time per stage, in milliseconds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TrainTimes {
    /// Expanding inputs, reading footers, checking columns.
    pub plan_ms: u64,
    /// The distinct-count pass (when sizing needs it).
    pub count_ms: u64,
    /// Training the partials.
    pub map_ms: u64,
    /// ORing the partials.
    pub reduce_ms: u64,
    /// Encoding and writing the filter.
    pub write_ms: u64,
    /// Everything.
    pub total_ms: u64,
}

/// What the train job did: the counters of its `--report`.
#[derive(Debug, Clone, Serialize)]
pub struct TrainReport {
    /// `bloomjoin <version>`.
    pub created_by: &'static str,
    /// The input files read.
    pub inputs: Vec<String>,
    /// Number of input files.
    pub files: usize,
    /// Files not read: their Hive partition values fail `--where`.
    pub files_pruned_by_partition: usize,
    /// Number of splits trained (after sharding).
    pub splits: usize,
    /// The shard, when sharded.
    pub shard: Option<String>,
    /// Worker threads.
    pub workers: usize,
    /// The key column.
    pub column: String,
    /// Its key family.
    pub key_family: KeyFamily,
    /// The `--where` predicate.
    #[serde(rename = "where")]
    pub predicate: Option<String>,
    /// Rows read from the splits.
    pub rows_read: u64,
    /// Rows that passed `--where` (all rows without it).
    pub rows_passing_where: u64,
    /// Passing rows whose key was null (skipped).
    pub null_keys: u64,
    /// Keys inserted (passing, non-null rows).
    pub keys_inserted: u64,
    /// Bytes fetched from the inputs.
    pub bytes_read: u64,
    /// Of those, bytes of remote files fetched ahead of the worker that read them, while
    /// other splits were decoded.
    pub bytes_read_ahead: u64,
    /// Row groups whose keys were read from their key column's dictionary page alone, its
    /// data pages never fetched (one key column, no `--where`, every data page of the chunk
    /// dictionary-encoded).
    pub row_groups_from_dictionary: u64,
    /// Row groups never read: the statistics of their `--where` columns (of the row group,
    /// or of every page in the page index) show that no row can pass.
    pub row_groups_skipped_by_where: u64,
    /// Rows of those row groups, and of the pages of other row groups that the page index
    /// rules out (not counted in `rows_read`).
    pub rows_skipped_by_where: u64,
    /// Of those, the rows of pages that the page index rules out in the row groups read.
    pub rows_skipped_by_page_index: u64,
    /// How the filter was sized.
    pub sizing: SizingReport,
    /// The filter's parameters.
    pub params: BloomParams,
    /// The output file format.
    pub format: FileFormat,
    /// Fraction of bits set.
    pub fill_ratio: f64,
    /// False-positive rate estimated from the bits.
    pub estimated_fpp: f64,
    /// Where the filter was written.
    pub output: String,
    /// Size of the written filter file.
    pub filter_bytes: u64,
    /// Time per stage.
    pub times: TrainTimes,
    /// Peak resident memory of the process, bytes.
    pub peak_rss_bytes: Option<u64>,
}

impl TrainReport {
    /// The human summary.
    pub fn summary(&self) -> String {
        let p = &self.params;
        let mut s = format!(
            "trained {} ({} layout, {} format, m={} bits, k={}, seed={}) on column {:?} ({} keys)\n",
            self.output,
            p.layout,
            self.format,
            p.num_bits,
            p.num_hashes,
            p.seed,
            self.column,
            match p.physical {
                Some(t) => format!("{}, hashed as Parquet {t}", self.key_family),
                None => self.key_family.to_string(),
            }
        );
        s += &format!(
            "  inputs       {} files{}, {} splits, {} workers{}\n",
            self.files,
            crate::report::pruned_note(self.files_pruned_by_partition),
            self.splits,
            self.workers,
            self.shard
                .as_ref()
                .map(|x| format!(", shard {x}"))
                .unwrap_or_default()
        );
        s += &format!("  rows read    {}", self.rows_read);
        if self.row_groups_from_dictionary > 0 {
            s += &format!(
                " ({} row groups from their key's dictionary page alone)",
                self.row_groups_from_dictionary
            );
        }
        s += "\n";
        if let Some(w) = &self.predicate {
            s += &format!(
                "  where        {w}: {} rows pass{}\n",
                self.rows_passing_where,
                crate::report::where_skipped_note(
                    self.row_groups_skipped_by_where,
                    self.rows_skipped_by_where,
                    self.rows_skipped_by_page_index
                ),
            );
        }
        s += &format!(
            "  keys         {} inserted, {} null keys skipped\n",
            self.keys_inserted, self.null_keys
        );
        match (self.sizing.method, self.sizing.items, self.sizing.fpp) {
            ("estimated-distinct", Some(n), Some(f)) => {
                s += &format!(
                    "  sizing       ~{} distinct keys (HyperLogLog estimate), sized for {n} at fpp {f}\n",
                    self.sizing.estimated_distinct.unwrap_or(n)
                )
            }
            ("folded", Some(n), Some(f)) => {
                s += &format!(
                    "  sizing       ~{} distinct keys (estimated from the filter's bits, same pass), sized for {n} at fpp {f}: m={} bits folded to {}{}\n",
                    self.sizing.estimated_distinct.unwrap_or(n),
                    self.sizing.bits_before_fold.unwrap_or(0),
                    self.sizing.bits_after_fold.unwrap_or(0),
                    if self.shard.is_some() { " (a shard: merge folds)" } else { "" }
                )
            }
            (_, Some(n), Some(f)) => {
                s += &format!("  sizing       {n} expected items at fpp {f}\n")
            }
            _ => s += "  sizing       explicit m and k\n",
        }
        s += &format!(
            "  filter       {} bytes, fill ratio {:.4}, est. fpp {:.6}\n",
            self.filter_bytes, self.fill_ratio, self.estimated_fpp
        );
        let t = &self.times;
        s += &format!(
            "  time         {} ms (plan {}, count {}, map {}, reduce {}, write {})",
            t.total_ms, t.plan_ms, t.count_ms, t.map_ms, t.reduce_ms, t.write_ms
        );
        if let Some(r) = self.peak_rss_bytes {
            s += &format!(", peak RSS {}", crate::report::human_bytes(r));
        }
        s + "\n"
    }
}

/// Per-file facts the map tasks need.
struct FileKey {
    /// Index of each key column among the file's top-level columns (key order); `None` for a
    /// partition column of a composite key.
    keys: Vec<Option<usize>>,
    /// Each key column's type (key order).
    key_types: Vec<arrow::datatypes::DataType>,
    /// Columns to decode, in schema order.
    columns: Vec<usize>,
    /// Where each key column comes from (key order): the decoded batch, or a partition value.
    key_pos: Vec<Source>,
    /// The `--where` columns this file does not hold: partition values or nulls (see
    /// [`Predicate::evaluate_filling`]).
    where_fill: Vec<crate::plan::side::Filled>,
}

/// Counters of one worker.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    rows_read: u64,
    rows_passing: u64,
    nulls: u64,
    inserted: u64,
    bytes_read: u64,
    dictionary_row_groups: u64,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.rows_read += o.rows_read;
        self.rows_passing += o.rows_passing;
        self.nulls += o.nulls;
        self.inserted += o.inserted;
        self.bytes_read += o.bytes_read;
        self.dictionary_row_groups += o.dictionary_row_groups;
    }
}

/// The Spark type of the key column for `--spark-keys xxhash64`: the same in every file.
fn spark_type(plan: &Plan, file_keys: &[FileKey], i: usize, column: &str) -> Result<SparkType> {
    same_in_every_file(
        plan,
        file_keys,
        column,
        |_, fk| SparkType::of(&fk.key_types[i], column),
        |t, t0, file0| {
            format!(
                "--spark-keys xxhash64 hashes the key as its Spark type, {t} here but {t0} in {file0}: give the column one type in every file"
            )
        },
    )
}

/// A property of a key column (`column`) that every input file must share: `of` each
/// file's, or an error naming the first file that differs (`differs(here, first, first file)`).
fn same_in_every_file<T: PartialEq + Copy>(
    plan: &Plan,
    file_keys: &[FileKey],
    column: &str,
    of: impl Fn(&crate::plan::InputFile, &FileKey) -> Result<T>,
    differs: impl Fn(T, T, &str) -> String,
) -> Result<T> {
    let mut first: Option<(T, String)> = None;
    for (f, fk) in plan.files.iter().zip(file_keys) {
        let t = of(f, fk)?;
        match &first {
            None => first = Some((t, f.location.to_string())),
            Some((t0, file0)) if *t0 != t => {
                return Err(Error::Column {
                    file: f.location.to_string(),
                    column: column.to_string(),
                    reason: differs(t, *t0, file0),
                })
            }
            _ => {}
        }
    }
    first
        .map(|(t, _)| t)
        .ok_or_else(|| Error::Usage("no input files".into()))
}

/// Check the key columns and predicate against every file; returns each key column's family
/// and the per-file projections.
fn check_inputs(
    plan: &Plan,
    columns: &[String],
    predicate: Option<&Predicate>,
) -> Result<(Vec<KeyFamily>, Vec<FileKey>)> {
    let mut families: Vec<Option<(KeyFamily, String, String)>> = vec![None; columns.len()];
    let mut keys = Vec::with_capacity(plan.files.len());
    // The files are unioned by name: a `--where` column that a file lacks is null there.
    let where_fields = match predicate {
        Some(p) if !plan.files.is_empty() => crate::plan::side::where_fields(plan, p)?,
        _ => Vec::new(),
    };
    for (file_index, f) in plan.files.iter().enumerate() {
        let schema = f.schema();
        let file = f.location.to_string();
        // Each key column: the file's column (its index in the file), or a partition column
        // beside one (the file's value).
        let mut key_src = Vec::with_capacity(columns.len());
        let mut key_types = Vec::with_capacity(columns.len());
        for (column, family) in columns.iter().zip(families.iter_mut()) {
            let (src, dt) = match schema.index_of(column) {
                Ok(k) => (Source::Decoded(k), schema.field(k).data_type().clone()),
                Err(_) => match crate::plan::side::partition_column(plan, file_index, column) {
                    Some((field, value)) => (Source::Partition(value), field.data_type().clone()),
                    None => {
                        return Err(crate::plan::side::missing_key(
                            plan, &file, column, schema, "",
                        ))
                    }
                },
            };
            let fam = KeyFamily::check(&dt, &file, column)?;
            f.check_key(column, &plan.files[0])?;
            match &*family {
                None => *family = Some((fam, dt.to_string(), file.clone())),
                Some((f0, t0, file0)) if *f0 != fam => {
                    return Err(Error::Column {
                        file,
                        column: column.to_string(),
                        reason: format!(
                            "type {dt} ({fam} keys) differs from {t0} ({f0} keys) in {file0}"
                        ),
                    })
                }
                _ => {}
            }
            key_src.push(src);
            key_types.push(dt);
        }
        let key_idx: Vec<Option<usize>> = key_src
            .iter()
            .map(|s| match s {
                Source::Decoded(k) => Some(*k),
                _ => None,
            })
            .collect();
        let mut columns: Vec<usize> = key_idx.iter().flatten().copied().collect();
        let (read, where_missing) =
            crate::plan::side::where_columns(predicate, schema, &file, &where_fields)?;
        columns.extend(read);
        let where_fill = crate::plan::side::where_fill(plan, file_index, where_missing);
        columns.sort_unstable();
        columns.dedup();
        // From indices in the file to positions in the decoded batch.
        let key_pos = key_src
            .into_iter()
            .map(|s| match s {
                Source::Decoded(k) => Source::Decoded(
                    columns
                        .iter()
                        .position(|c| *c == k)
                        .expect("key is projected"),
                ),
                other => other,
            })
            .collect();
        keys.push(FileKey {
            keys: key_idx,
            key_types,
            columns,
            key_pos,
            where_fill,
        });
    }
    let families = families
        .into_iter()
        .map(|f| f.map(|(fam, _, _)| fam))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::Usage("no input files".into()))?;
    Ok((families, keys))
}

/// Keys (hashed as a filter with `params` does, a composite key in xxhash64 mode as its columns'
/// `spark_types`) of the rows of `batch` that pass the predicate and are not null, written to
/// `out` (replacing what it held); updates `counts`. `scratch` is
/// working space; the two buffers may trade places.
fn passing_hashes(
    batch: &arrow::array::RecordBatch,
    fk: &FileKey,
    predicate: Option<&Predicate>,
    (params, spark_types): (&BloomParams, &[SparkType]),
    counts: &mut Counts,
    scratch: &mut Vec<u64>,
    out: &mut Vec<u64>,
) -> Result<()> {
    counts.rows_read += batch.num_rows() as u64;
    // Each key column: decoded, or a partition column's value repeated for every row.
    let column = |s: &Source| match s {
        Source::Decoded(p) => Ok(batch.column(*p).clone()),
        Source::Partition(v) => crate::plan::hive::repeat(v, batch.num_rows()),
        Source::Null => Err(Error::Internal("a key column of nulls".into())),
    };
    let nulls = match fk.key_pos.as_slice() {
        [one] => {
            let keys = column(one)?;
            crate::bloom::hash_into(params, keys.as_ref(), scratch)?;
            keys.logical_nulls()
        }
        many => {
            // A composite key: the tuple hash, or Spark's xxhash64 of the columns.
            let cols: Vec<arrow::array::ArrayRef> =
                many.iter().map(column).collect::<Result<_>>()?;
            let cols: Vec<&dyn arrow::array::Array> = cols.iter().map(|c| c.as_ref()).collect();
            crate::bloom::hash_tuple_into(params, spark_types, &cols, scratch)?;
            crate::key::tuple_nulls(&cols)
        }
    };
    out.clear();
    match predicate {
        None => {
            counts.rows_passing += batch.num_rows() as u64;
            match &nulls {
                // Every hash is wanted: hand the buffer over instead of copying it.
                None => std::mem::swap(scratch, out),
                Some(n) => {
                    counts.nulls += n.null_count() as u64;
                    out.extend(n.valid_indices().map(|i| scratch[i]));
                }
            }
        }
        Some(p) => {
            let mask = p.evaluate_filling(batch, &fk.where_fill)?;
            let pass = mask.values();
            counts.rows_passing += pass.count_set_bits() as u64;
            for i in pass.set_indices() {
                if nulls.as_ref().is_none_or(|n| n.is_valid(i)) {
                    out.push(scratch[i]);
                } else {
                    counts.nulls += 1;
                }
            }
        }
    }
    Ok(())
}

/// The keys a split hands to train, by row group.
enum Keys<'a> {
    /// A batch of decoded rows.
    Rows(&'a arrow::array::RecordBatch),
    /// The distinct keys of a row group, from its dictionary page.
    Dictionary(&'a crate::read::dictionary::DictionaryKeys),
}

impl Keys<'_> {
    /// The hashes of the keys to insert, written to `out` (see [`passing_hashes`]), with
    /// `counts` updated for the rows they stand for; returns those rows. A dictionary's entries
    /// are hashed once each and stand for the row group's rows: its non-null keys are all
    /// inserted (no `--where` runs on this path).
    fn passing_hashes(
        &self,
        fk: &FileKey,
        predicate: Option<&Predicate>,
        params: (&BloomParams, &[SparkType]),
        counts: &mut Counts,
        scratch: &mut Vec<u64>,
        out: &mut Vec<u64>,
    ) -> Result<u64> {
        match self {
            Keys::Rows(b) => {
                passing_hashes(b, fk, predicate, params, counts, scratch, out)?;
                counts.inserted += out.len() as u64;
                Ok(b.num_rows() as u64)
            }
            Keys::Dictionary(d) => {
                crate::bloom::hash_into(params.0, d.values.as_ref(), out)?;
                counts.rows_read += d.rows;
                counts.rows_passing += d.rows;
                counts.nulls += d.nulls;
                counts.inserted += d.keys();
                counts.dictionary_row_groups += 1;
                Ok(d.rows)
            }
        }
    }

    /// Insert `hashes`, from [`Keys::passing_hashes`], into `filter`: a dictionary's entries
    /// are inserted once each and counted as the keys of its rows.
    fn insert(&self, filter: &mut BloomFilter, hashes: &[u64]) {
        match self {
            Keys::Rows(_) => filter.insert_hashes(hashes),
            Keys::Dictionary(d) => filter.insert_distinct_hashes(hashes, d.keys()),
        }
    }
}

/// The error for an sbbf filter trained on partition column `column` of file `f`.
fn sbbf_of_partition(f: &crate::plan::InputFile, column: &str) -> Error {
    Error::Column {
        file: f.location.to_string(),
        column: column.to_string(),
        reason: format!(
            "a partition column (from the {column}= directories of the paths): the sbbf layout hashes a Parquet column's stored values, which a directory name has none of; train another --layout on it"
        ),
    }
}

/// The physical type an sbbf filter trained on `column` of the inputs hashes: the one of
/// the column in every file, or an error naming the file that differs.
fn sbbf_physical(plan: &Plan, keys: &[FileKey], column: &str) -> Result<bloom::sbbf::Physical> {
    same_in_every_file(
        plan,
        keys,
        column,
        // One key column; a partition column's values are in the paths, not in Parquet.
        |f, fk| match fk.keys[..] {
            [Some(key)] => bloom::sbbf::physical_of(f, key, column),
            _ => Err(sbbf_of_partition(f, column)),
        },
        |t, t0, file0| {
            format!(
                "Parquet type {t} differs from {t0} in {file0}: an sbbf filter hashes one physical type (train one filter per type)"
            )
        },
    )
}

/// The physical type an sbbf filter of the key `columns` (of `family`) hashes: `physical` of
/// the one column, checked to hash that family by value; `None` for another layout. An error
/// names `--layout` for a composite key, or a column whose keys its physical type cannot hash.
fn sbbf_key(
    layout: Layout,
    columns: &[String],
    family: KeyFamily,
    physical: impl FnOnce(&str) -> Result<bloom::sbbf::Physical>,
) -> Result<Option<bloom::sbbf::Physical>> {
    if layout != Layout::Sbbf {
        return Ok(None);
    }
    let [column] = columns else {
        return Err(Error::param(
            "--layout",
            "sbbf: Parquet's Bloom filter hashes one column's values; a composite key needs a native layout (split, blocked or classic)",
        ));
    };
    let p = physical(column)?;
    // A timestamp stored as INT64 (or INT96) holds instants that compare across units, which
    // a hash of the stored integers cannot (audit, 2026-11-26: the message named neither the
    // column nor the layout).
    if p.family() != family {
        return Err(Error::param(
            "--layout",
            format!(
                "sbbf: column {column} holds {family} keys, which Parquet's Bloom filter cannot hash as the stored {p} values (a native layout can: split, blocked or classic)"
            ),
        ));
    }
    Ok(Some(p))
}

/// A train job's inputs planned and checked, before any row is read: what [`run`] and
/// [`dry_run`] share.
struct Planned {
    plan: Plan,
    file_keys: Vec<FileKey>,
    families: Vec<KeyFamily>,
    family: KeyFamily,
    physical: Option<bloom::sbbf::Physical>,
    spark_keys: SparkKeys,
    spark_types: Vec<crate::bloom::spark_keys::SparkType>,
    /// The most distinct keys the inputs can hold (from their footers).
    rows_bound: u64,
}

/// Plan `job`'s inputs (in the worker pool: footers are read in parallel) and check its key
/// columns, `--where`, layout and Spark key types against them.
fn plan_train(job: &TrainJob) -> Result<Planned> {
    let workers = job.workers.get();
    let predicate = job.predicate.as_ref();
    let inputs = plan::InputOptions {
        hive_partitioning: job.hive_partitioning,
        predicate: job.predicate.clone(),
        key_filter: None,
    };
    let plan = plan::plan_with(&job.inputs, &inputs, |total| {
        SplitOptions::for_job(job.split_rows.map(NonZeroU64::get), total, workers)
    })?;
    let columns = &job.columns;
    let (families, file_keys) = check_inputs(&plan, columns, predicate)?;
    let family = KeyFamily::of_key(&families);
    let physical = sbbf_key(job.filter.layout, columns, family, |one| {
        sbbf_physical(&plan, &file_keys, one)
    })?;
    // Spark's xxhash64 mode: the Spark type of each key column (Spark chains the columns'
    // hashes, each by its own type).
    let (spark_keys, spark_types) = spark_keys_for(job.filter.spark_keys, columns, |i, c| {
        spark_type(&plan, &file_keys, i, c)
    })?;
    // The most distinct keys there can be, from the footers of every input (of every
    // shard, so that shards agree on the size they train into): the rows, and for
    // integer keys the ranges of the row groups' min/max statistics. A tuple: at most
    // the rows, and at most the product of its columns' bounds.
    let rows_bound = crate::map::prune::key_distinct_bound(&plan.files, columns, plan.num_rows());
    Ok(Planned {
        plan,
        file_keys,
        families,
        family,
        physical,
        spark_keys,
        spark_types,
        rows_bound,
    })
}

/// The parameters a train trains with: bound to the key's Parquet type for an sbbf filter,
/// and refused when the workers' partials would not fit in memory ([`check_memory`]).
fn trained_params(
    params: BloomParams,
    physical: Option<bloom::sbbf::Physical>,
    workers: usize,
) -> Result<BloomParams> {
    let params = match physical {
        Some(t) => params.with_physical(t),
        None => params,
    };
    check_memory(&params, workers)?;
    Ok(params)
}

/// Refuse an output or report that overlaps an input or could not be written, and an
/// output that exists (without `--overwrite`).
fn check_locations(job: &TrainJob) -> Result<()> {
    let output = &job.output;
    plan::refuse_train_overlap(output, &job.inputs, job.report.as_deref(), "--")?;
    output.check_file_output()?;
    if let Some(r) = &job.report {
        crate::report::check_report_path(r)?;
    }
    if !job.overwrite && output.exists()? {
        return Err(Error::OutputExists {
            location: output.to_string(),
        });
    }
    Ok(())
}

/// `--dry-run`: check and plan `job` as [`run`] would, and describe the plan and the
/// filter's size instead of training it. Nothing is read but the inputs' footers, and
/// nothing is written. Errors are the run's (those of the rows aside).
pub fn dry_run(job: &TrainJob) -> Result<crate::report::DryRun> {
    use crate::report::human_bytes;
    let workers = job.workers.get();
    check_locations(job)?;
    let fresh = !job.overwrite || !job.output.exists()?;
    let Planned {
        mut plan,
        file_keys,
        families,
        physical,
        rows_bound,
        ..
    } = crate::map::worker_pool(workers)?.install(|| plan_train(job))?;
    if let Some(s) = job.shard {
        plan.shard(s.index, s.count);
    }
    let extent = plan.extent(|i| &file_keys[i].columns);
    let key = job
        .columns
        .iter()
        .zip(&families)
        .enumerate()
        .map(|(i, (c, f))| format!("{c} ({}, {f} keys)", file_keys[0].key_types[i]))
        .collect::<Vec<_>>()
        .join(", ");
    let known = |p: BloomParams| trained_params(p, physical, workers);
    let shape = |p: &BloomParams| {
        format!(
            "{} layout, m={} bits ({}), k={}, seed={}",
            p.layout,
            p.num_bits,
            human_bytes(p.num_bytes()),
            p.num_hashes,
            p.seed
        )
    };
    // The line, and the sizing as JSON: how, the parameters trained into (when known
    // before the keys are read), the fpp asked for.
    let (sizing, sizing_json) = match job.filter.sizing {
        Sizing::Explicit(p) => {
            let p = known(p)?;
            let json =
                serde_json::json!({"sizing": "explicit", "params": p, "bytes": p.num_bytes()});
            (format!("explicit: {}", shape(&p)), json)
        }
        Sizing::Items { n, fpp } => {
            let p = known(BloomParams::for_items(
                job.filter.layout,
                n,
                fpp,
                job.filter.seed,
            )?)?;
            let json = serde_json::json!({
                "sizing": "expected_items", "expected_items": n, "fpp": fpp,
                "params": p, "bytes": p.num_bytes(),
            });
            (
                format!("{n} expected keys at fpp {fpp}: {}", shape(&p)),
                json,
            )
        }
        Sizing::Fpp(fpp) => match job
            .filter
            .layout
            .sizes_by_folding()
            .then(|| fold_start(job.filter.layout, rows_bound, fpp, job.filter.seed, workers))
            .transpose()?
            .flatten()
        {
            Some(p) => {
                let p = known(p)?;
                let json = serde_json::json!({
                    "sizing": "fold", "fpp": fpp, "max_distinct_keys": rows_bound,
                    "params": p, "bytes": p.num_bytes(),
                });
                (format!(
                    "one pass, sized by folding: trained into {} for at most {rows_bound} distinct keys (the footers' bound), then folded down to the smallest size that meets fpp {fpp} for the keys counted",
                    shape(&p)
                ), json)
            }
            None => {
                let json = serde_json::json!({
                    "sizing": "count_then_train", "fpp": fpp, "max_distinct_keys": rows_bound,
                    "layout": job.filter.layout, "params": null,
                });
                (format!(
                    "a first pass counts the distinct keys (at most {rows_bound}, the footers' bound), a second trains a {} filter sized for them at fpp {fpp}",
                    job.filter.layout
                ), json)
            }
        },
    };
    let mut summary = format!(
        "dry run (train, {workers} workers): checked; nothing read but footers, nothing written\n"
    );
    summary += &format!("  input  {extent}\n         key {key}");
    let skips = job
        .predicate
        .as_ref()
        .map(|p| plan.where_skips(p, |i| &file_keys[i].where_fill));
    if let (Some(p), Some(skips)) = (&job.predicate, skips) {
        summary += &format!("; where {}{skips}", p.text());
    }
    if plan.files_pruned > 0 {
        summary += &format!(
            "; {} file(s) not opened: their partition values fail the where",
            plan.files_pruned
        );
    }
    if let Some(s) = job.shard {
        summary += &format!("; shard {s}");
    }
    summary += &format!("\n  filter {sizing}\n");
    summary += &format!(
        "  output {} ({}), {} format\n",
        job.output,
        if fresh {
            "new"
        } else {
            "replaces the filter there: --overwrite"
        },
        job.filter.format.name()
    );
    if let Some(r) = &job.report {
        summary += &format!("  report {r} (written when the train runs)\n");
    }
    let mut input = serde_json::json!(extent);
    input["keys"] = job
        .columns
        .iter()
        .zip(&families)
        .enumerate()
        .map(|(i, (c, f))| {
            serde_json::json!({
                "name": c,
                "type": file_keys[0].key_types[i].to_string(),
                "family": f.to_string(),
            })
        })
        .collect::<Vec<_>>()
        .into();
    input["where"] = job.predicate.as_ref().map(|p| p.text()).into();
    if let Some(skips) = skips {
        input["row_groups_skipped_by_where"] = skips.row_groups.into();
        input["rows_skipped_by_where"] = skips.rows.into();
    }
    input["files_pruned_by_partition"] = plan.files_pruned.into();
    input["shard"] = job.shard.map(|s| s.to_string()).into();
    let plan_json = serde_json::json!({
        "dry_run": "train",
        "workers": workers,
        "input": input,
        "filter": sizing_json,
        "output": {
            "location": job.output.to_string(),
            "replaces": !fresh,
            "format": job.filter.format.name(),
        },
        "report": job.report.as_ref().map(|r| r.to_string()),
        "warnings": [],
    });
    Ok(crate::report::DryRun {
        summary,
        warnings: Vec::new(),
        plan: plan_json,
    })
}

/// Run the train job.
pub fn run(job: &TrainJob, show_progress: bool) -> Result<TrainReport> {
    let t0 = Instant::now();
    let workers = job.workers.get();
    let fpp = job.filter.sizing.fpp();
    let seed = job.filter.seed;
    let predicate = job.predicate.as_ref();
    let output = &job.output;
    check_locations(job)?;
    crate::map::worker_pool(workers)?.install(|| {
        let cancel = AtomicBool::new(false);
        let mut times = TrainTimes::default();
        let Planned {
            mut plan,
            file_keys,
            families,
            family,
            physical,
            spark_keys,
            spark_types,
            rows_bound,
        } = plan_train(job)?;
        let columns = &job.columns;
        if let Some(s) = job.shard {
            plan.shard(s.index, s.count);
        }
        // The row groups of each split that --where may pass, from their statistics (see
        // expr::stats); the others are never read.
        let (mut skipped_where, mut rows_skipped_where) = (0u64, 0u64);
        let split_groups: Vec<Vec<usize>> = plan
            .splits
            .iter()
            .map(|s| {
                let all: Vec<usize> = s.row_groups.clone().collect();
                let Some(p) = predicate else { return all };
                let file = &plan.files[s.file];
                let (kept, skipped) = p.partition_row_groups(
                    file.parquet(),
                    file.schema(),
                    all,
                    &file_keys[s.file].where_fill,
                );
                skipped_where += skipped.len() as u64;
                rows_skipped_where += skipped
                    .iter()
                    .map(|rg| file.row_group_rows(*rg))
                    .sum::<u64>();
                kept
            })
            .collect();
        times.plan_ms = t0.elapsed().as_millis() as u64;

        // A split's keys: row by row, or (one key column, no --where) the dictionary pages of
        // the row groups whose key chunk is all dictionary-encoded, whose data pages are then
        // never read (crate::read::dictionary).
        let dictionaries = predicate.is_none();
        // The key column read from its dictionary pages: one key column (not a partition
        // column beside it) and no --where.
        let dictionary_key = |fk: &FileKey| match fk.columns[..] {
            [key] if dictionaries && fk.keys.len() == 1 => Some(key),
            _ => None,
        };
        // Row groups and rows that the page index rules out (read::pages), counted by the
        // pass that trains (a count pass before it reads the same splits).
        let page_skips = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
        let read_split = |i: usize,
                          ahead: &ReadAhead<'_>,
                          counted: bool,
                          each: &mut dyn FnMut(Keys<'_>, &FileKey) -> Result<()>|
         -> Result<u64> {
            let ahead = ahead.take(i);
            let s = &plan.splits[i];
            let file = plan.files[s.file].clone();
            let fk = &file_keys[s.file];
            let mut rest = Vec::new();
            let mut bytes = 0;
            match dictionary_key(fk) {
                Some(key) => {
                    let io = RangeReader::open(&file.location)?.with_ahead(ahead.clone());
                    for rg in s.row_groups.clone() {
                        match crate::read::dictionary::dictionary_keys(&file, &io, rg, key)? {
                            Some(d) => {
                                bytes += d.bytes;
                                each(Keys::Dictionary(&d), fk)?;
                            }
                            None => rest.push(rg),
                        }
                    }
                }
                None => rest.extend(split_groups[i].iter().copied()),
            }
            let mut pages = None;
            if let Some(p) = predicate.filter(|_| !rest.is_empty()) {
                let planned = crate::read::pages::plan(p, &file, &fk.where_fill, rest, || {
                    Ok(RangeReader::open(&file.location)?.with_ahead(ahead.clone()))
                })?;
                if counted {
                    let rows: u64 = planned
                        .skipped_groups
                        .iter()
                        .map(|rg| file.row_group_rows(*rg))
                        .sum();
                    page_skips
                        .0
                        .fetch_add(planned.skipped_groups.len() as u64, Ordering::Relaxed);
                    page_skips
                        .1
                        .fetch_add(rows + planned.skipped_rows, Ordering::Relaxed);
                    page_skips
                        .2
                        .fetch_add(planned.skipped_rows, Ordering::Relaxed);
                }
                rest = planned.row_groups;
                pages = planned.pages;
            }
            if rest.is_empty() {
                return Ok(bytes);
            }
            let mut reader = SplitReader::with_row_groups(
                file,
                rest,
                ReadOptions {
                    columns: fk.columns.clone(),
                    batch_size: job.batch_size.get(),
                    row_filter: None,
                    stored_form: Vec::new(),
                    ahead,
                    pages,
                },
            )?;
            for b in reader.by_ref() {
                each(Keys::Rows(&b?), fk)?;
            }
            Ok(bytes + reader.bytes_read())
        };
        // What read_split asks first of a split: each row group's dictionary page, or its
        // key chunks.
        let ahead_ranges = |i: usize| -> Vec<std::ops::Range<u64>> {
            let s = &plan.splits[i];
            let file = &plan.files[s.file];
            let fk = &file_keys[s.file];
            let dictionary = |rg| {
                dictionary_key(fk)
                    .and_then(|key| crate::read::dictionary::dictionary_range(file, rg, key))
            };
            // With a --where, the page index of its columns first (read::pages).
            let index = predicate.and_then(|p| {
                crate::read::pages::index_range(p, file, &fk.where_fill, &split_groups[i])
            });
            index
                .into_iter()
                .chain(split_groups[i].iter().flat_map(|&rg| match dictionary(rg) {
                    Some(r) => vec![r],
                    None => crate::read::ahead::chunk_ranges(file, [rg], &fk.columns),
                }))
                .collect()
        };

        // Sizing: explicit, from --expected-items, or (blocked, --fpp alone) one pass into a
        // filter sized for every row, folded down to the keys counted in the same pass; other
        // layouts count first in a separate pass.
        let t_count = Instant::now();
        let (params, mut sizing) = start_sizing(
            job.filter.sizing,
            job.filter.layout,
            rows_bound,
            seed,
            workers,
            |count_params| {
                let ahead = ReadAhead::new(&plan, ahead_ranges)?;
                let bar = crate::progress::rows(
                    "count",
                    plan.splits.iter().map(|s| s.rows).sum(),
                    show_progress,
                );
                let sketches = crate::map::run_splits(
                    &plan,
                    "count",
                    workers,
                    &cancel,
                    || Ok(Box::new(Sketch::new())),
                    |est, i| {
                        let mut counts = Counts::default();
                        let (mut scratch, mut hashes) = (Vec::new(), Vec::new());
                        read_split(i, &ahead, false, &mut |keys, fk| {
                            let rows = keys.passing_hashes(
                                fk,
                                predicate,
                                (count_params, &[]),
                                &mut counts,
                                &mut scratch,
                                &mut hashes,
                            )?;
                            for h in &hashes {
                                est.insert_hash(*h);
                            }
                            bar.inc(rows);
                            Ok(())
                        })?;
                        Ok(())
                    },
                )?;
                bar.finish_and_clear();
                Ok(merged_estimate(&sketches))
            },
        )?;
        let params = BloomParams {
            spark_keys,
            ..params
        };
        times.count_ms = t_count.elapsed().as_millis() as u64;
        let params = trained_params(params, physical, workers)?;
        let folding = sizing.method == "folded";

        // Map: one partial per worker (and, when folding, a distinct-count sketch of its keys;
        // the sketch of the union of the keys does not depend on how they were split).
        let t_map = Instant::now();
        let bar = crate::progress::rows(
            "train",
            plan.splits.iter().map(|s| s.rows).sum(),
            show_progress,
        );
        let ahead = ReadAhead::new(&plan, ahead_ranges)?;
        let partials = crate::map::run_splits(
            &plan,
            "map",
            workers,
            &cancel,
            || {
                let mut f = BloomFilter::try_new(params, family)?;
                if !spark_types.is_empty() {
                    f.set_spark_tuple(spark_types.clone())?;
                }
                Ok((f, Counts::default()))
            },
            |(filter, counts), i| {
                let (mut scratch, mut hashes) = (Vec::new(), Vec::new());
                let bytes = read_split(i, &ahead, true, &mut |keys, fk| {
                    let rows = keys.passing_hashes(
                        fk,
                        predicate,
                        (&params, &spark_types),
                        counts,
                        &mut scratch,
                        &mut hashes,
                    )?;
                    keys.insert(filter, &hashes);
                    bar.inc(rows);
                    Ok(())
                })?;
                counts.bytes_read += bytes;
                Ok(())
            },
        )?;
        bar.finish_and_clear();
        let bytes_read_ahead = ahead.served();
        drop(ahead);
        times.map_ms = t_map.elapsed().as_millis() as u64;

        // Reduce: OR the partials, then fold.
        let t_reduce = Instant::now();
        let (filter, total) = or_partials(partials)?;
        let (filter, stats) =
            finish_sizing(filter, &mut sizing, fpp, rows_bound, job.shard.is_none())?;
        let params = *filter.params();
        times.reduce_ms = t_reduce.elapsed().as_millis() as u64;

        // Write.
        let t_write = Instant::now();
        let logical: Vec<Option<&str>> = columns
            .iter()
            .map(|c| recorded_logical_type(&plan.files, c))
            .collect();
        let meta = filter_meta(
            columns,
            &families,
            &file_keys[0].key_types,
            &logical,
            &spark_types,
            FilterMeta {
                predicate: predicate.map(|p| p.text().to_string()),
                inputs: job.inputs.clone(),
                shard: job.shard.map(|s| s.to_string()),
                // Sized by folding: `merge` folds such partials and re-checks this target.
                fpp: folding.then_some(fpp),
                ..FilterMeta::default()
            },
        );
        if crate::cancel::requested() {
            return Err(Error::Cancelled);
        }
        let filter = std::sync::Arc::new(filter);
        let filter_bytes =
            codec::write_as(output, &filter, &meta, job.filter.format, job.overwrite)?;
        times.write_ms = t_write.elapsed().as_millis() as u64;
        times.total_ms = t0.elapsed().as_millis() as u64;

        let report = TrainReport {
            created_by: crate::CREATED_BY,
            inputs: plan.files.iter().map(|f| f.location.to_string()).collect(),
            files: plan.files_read(),
            files_pruned_by_partition: plan.files_pruned,
            splits: plan.splits.len(),
            shard: job.shard.map(|s| s.to_string()),
            workers,
            column: job.column.clone(),
            key_family: family,
            predicate: predicate.map(|p| p.text().to_string()),
            rows_read: total.rows_read,
            rows_passing_where: total.rows_passing,
            null_keys: total.nulls,
            keys_inserted: total.inserted,
            bytes_read: total.bytes_read,
            bytes_read_ahead,
            row_groups_from_dictionary: total.dictionary_row_groups,
            row_groups_skipped_by_where: skipped_where + page_skips.0.load(Ordering::Relaxed),
            rows_skipped_by_where: rows_skipped_where + page_skips.1.load(Ordering::Relaxed),
            rows_skipped_by_page_index: page_skips.2.load(Ordering::Relaxed),
            sizing,
            params,
            format: job.filter.format,
            fill_ratio: stats.fill_ratio(),
            estimated_fpp: stats.estimated_fpp(),
            output: output.to_string(),
            filter_bytes,
            times,
            peak_rss_bytes: crate::sys::peak_rss(),
        };
        if let Some(path) = &job.report {
            crate::report::write_report(path, &report)?;
        }
        Ok(report)
    })
}

/// The OR of the workers' partial filters (all of one params) and the sum of their counters.
fn or_partials(
    partials: impl IntoIterator<Item = (BloomFilter, Counts)>,
) -> Result<(BloomFilter, Counts)> {
    let mut total = Counts::default();
    let mut filters = Vec::new();
    for (f, c) in partials {
        filters.push(f);
        total.add(&c);
    }
    if filters.is_empty() {
        return Err(Error::Internal("no partial filters".into()));
    }
    let mut filter = filters.swap_remove(0);
    filter.union_all(&filters, "partial")?;
    Ok((filter, total))
}

/// The params of the filter the HyperLogLog count pass hashes with: any fixed 64-bit key
/// hash serves the sketch, and the native one is fastest.
fn count_params(seed: u64) -> BloomParams {
    BloomParams {
        layout: Layout::Blocked,
        num_bits: crate::bloom::BLOCK_BITS,
        num_hashes: 1,
        seed,
        legacy_ints: false,
        physical: None,
        spark_keys: SparkKeys::Plain,
    }
}

/// The distinct-count estimate of the union of the keys the `sketches` saw.
fn merged_estimate(sketches: &[Box<Sketch>]) -> u64 {
    let mut all = Sketch::new();
    for s in sketches {
        all.merge(s);
    }
    all.estimate() as u64
}

/// The params a training inserts into, and how they were chosen: explicit, from
/// `--expected-items`, or with `--fpp` alone either one pass into a filter sized for
/// `rows_bound` keys and folded afterwards ([`finish_sizing`]: split, blocked and sbbf, when
/// it fits in memory), or a first pass, `count`, that estimates the distinct keys with a
/// HyperLogLog sketch of their hashes under the params it is given ([`merged_estimate`]).
/// The params keep the plain Spark key mode; the caller sets its own.
fn start_sizing(
    sizing: Sizing,
    layout: Layout,
    rows_bound: u64,
    seed: u64,
    workers: usize,
    count: impl FnOnce(&BloomParams) -> Result<u64>,
) -> Result<(BloomParams, SizingReport)> {
    Ok(match sizing {
        Sizing::Explicit(p) => (p, SizingReport::new("explicit", None, None)),
        Sizing::Items { n, fpp } => (
            BloomParams::for_items(layout, n, fpp, seed)?,
            SizingReport::new("expected-items", Some(n), Some(fpp)),
        ),
        Sizing::Fpp(fpp) => {
            let start = if layout.sizes_by_folding() {
                fold_start(layout, rows_bound, fpp, seed, workers)?
            } else {
                None
            };
            match start {
                Some(p) => (
                    p,
                    SizingReport {
                        bits_before_fold: Some(p.num_bits),
                        ..SizingReport::new("folded", None, Some(fpp))
                    },
                ),
                None => {
                    let estimate = count(&count_params(seed))?;
                    let n = with_margin(estimate);
                    (
                        BloomParams::for_items(layout, n, fpp, seed)?,
                        SizingReport {
                            estimated_distinct: Some(estimate),
                            ..SizingReport::new("estimated-distinct", Some(n), Some(fpp))
                        },
                    )
                }
            }
        }
    })
}

/// After the partials are ORed into `filter`: for a filter sized by folding, count the
/// distinct keys in its bits and (`fold`: not a shard, which `merge` folds instead) fold it to
/// the smallest size that meets `fpp` for them, recording both in `sizing`. Returns the
/// filter and its bit statistics (counted once, again only if the fold changed the bits).
fn finish_sizing(
    mut filter: BloomFilter,
    sizing: &mut SizingReport,
    fpp: f64,
    rows_bound: u64,
    fold: bool,
) -> Result<(BloomFilter, bloom::BitStats)> {
    let mut stats = filter.bit_stats();
    if sizing.method != "folded" {
        return Ok((filter, stats));
    }
    // The distinct keys counted in the merged filter's bits, at most the keys inserted (not
    // the footers' bound: `merge` bounds the OR of shards the same way, without the footers,
    // so the merge of a training's shards folds to this filter's bytes).
    let (estimate, n) = counted_distinct(&stats, filter.inserted());
    if estimate as f64 > rows_bound as f64 * 1.05 {
        // Only footers with wrong statistics get here; the filter is then smaller than the
        // target needs, and the report's model_fpp says by how much.
        eprintln!(
            "bloomjoin: warning: ~{estimate} distinct keys counted, more than the {rows_bound} the Parquet footers allow (wrong min/max statistics?); the filter may miss --fpp {fpp}"
        );
    }
    if fold {
        let bits = filter.params().num_bits;
        filter = fold_to_target(filter, n, fpp)?;
        if filter.params().num_bits != bits {
            stats = filter.bit_stats();
        }
    }
    sizing.estimated_distinct = Some(estimate);
    sizing.items = Some(n);
    sizing.bits_after_fold = Some(filter.params().num_bits);
    sizing.model_fpp = Some(filter.params().model_fpp(n));
    Ok((filter, stats))
}

/// The metadata of a filter of the key `columns` (names; "" for an unnamed one), with their
/// `families`, Arrow `key_types`, the logical type each records (`logical`: `UUID`, `TIMETZ`;
/// missing ones none, see [`recorded_logical_type`]) and Spark types (`--spark-keys xxhash64` on a composite key), over the rest of `meta`
/// (predicate, inputs, shard, fpp).
fn filter_meta(
    columns: &[String],
    families: &[KeyFamily],
    key_types: &[arrow::datatypes::DataType],
    logical: &[Option<&str>],
    spark_types: &[SparkType],
    meta: FilterMeta,
) -> FilterMeta {
    let single = columns.len() == 1;
    let logical_type = |i: usize| logical.get(i).copied().flatten();
    FilterMeta {
        created_by: crate::CREATED_BY.to_string(),
        column: single.then(|| columns[0].clone()).filter(|c| !c.is_empty()),
        key_type: single.then(|| key_types[0].to_string()),
        logical_type: logical_type(0).filter(|_| single).map(str::to_string),
        key_columns: if single {
            Vec::new()
        } else {
            columns
                .iter()
                .zip(families)
                .zip(key_types)
                .enumerate()
                .map(|(i, ((name, family), key_type))| codec::KeyColumn {
                    name: name.clone(),
                    family: *family,
                    key_type: key_type.to_string(),
                    spark_type: spark_types
                        .get(i)
                        .map(|t| t.to_string())
                        .unwrap_or_default(),
                    logical_type: logical_type(i).unwrap_or_default().to_string(),
                })
                .collect()
        },
        ..meta
    }
}

/// The logical type a filter records for key column `column` of `files`, where it changes
/// what the keys mean: `UUID` (16 bytes, never a string's text), `TIMETZ` (times of day
/// adjusted to UTC, never met with local ones).
fn recorded_logical_type(
    files: &[std::sync::Arc<InputFile>],
    column: &str,
) -> Option<&'static str> {
    use crate::read::logical::Annotation;
    let any = |a: Annotation| {
        files
            .iter()
            .any(|f| f.annotation(column).as_ref() == Some(&a))
    };
    if any(Annotation::Uuid) {
        Some("UUID")
    } else if any(Annotation::TimeUtc) {
        Some("TIMETZ")
    } else {
        None
    }
}

/// What a Spark-layout filter inserts for the key `columns` in `mode`: the key itself, or
/// `xxhash64` of it as its Spark type (`type_of(i, column)`: one column's, checked), or of
/// a composite key's columns (their types returned beside).
fn spark_keys_for(
    mode: SparkKeyMode,
    columns: &[String],
    type_of: impl Fn(usize, &str) -> Result<SparkType>,
) -> Result<(SparkKeys, Vec<SparkType>)> {
    Ok(match (mode, columns) {
        (SparkKeyMode::Plain, _) => (SparkKeys::Plain, Vec::new()),
        (SparkKeyMode::Xxhash64, [one]) => (SparkKeys::Xxhash64(type_of(0, one)?), Vec::new()),
        (SparkKeyMode::Xxhash64, many) => (
            SparkKeys::Xxhash64Tuple,
            many.iter()
                .enumerate()
                .map(|(i, c)| type_of(i, c))
                .collect::<Result<_>>()?,
        ),
    })
}

/// The HyperLogLog estimate plus a 2 % margin (about 2.5 standard errors), at least 1.
fn with_margin(estimate: u64) -> u64 {
    ((estimate as f64 * 1.02).ceil() as u64).max(1)
}

/// The split, blocked or sbbf filter one-pass training starts from: sized for `rows`
/// distinct keys, the most the inputs can hold (split and blocked: with
/// [`bloom::fold_hashes`]'s k, rounded up to a count of blocks with many divisors; sbbf: by
/// Parquet's sizing, a power of two). `None` (count in a separate pass instead) when `workers +
/// 1` such filters would take more than a quarter of the memory, or an SBBF more than 128 MiB.
pub(crate) fn fold_start(
    layout: Layout,
    rows: u64,
    fpp: f64,
    seed: u64,
    workers: usize,
) -> Result<Option<BloomParams>> {
    if layout == Layout::Sbbf {
        // Parquet's sizing for every row: a power of two, which halves down to any smaller
        // one. More than an SBBF may hold (128 MiB): count first instead.
        let Ok(params) = BloomParams::for_items(layout, rows.max(1), fpp, seed) else {
            return Ok(None);
        };
        return Ok(fits(&params, workers).then_some(params));
    }
    let k = bloom::fold_hashes(layout, fpp)?;
    let max_blocks = MAX_BITS / BLOCK_BITS;
    let need = bloom::blocks_for(layout, rows.max(1), k, fpp, max_blocks);
    let blocks = bloom::fold_start_blocks(need);
    if blocks > max_blocks {
        return Ok(None);
    }
    let params = BloomParams {
        layout,
        num_bits: blocks * BLOCK_BITS,
        num_hashes: k,
        seed,
        legacy_ints: false,
        physical: None,
        spark_keys: SparkKeys::Plain,
    };
    params.validate()?;
    Ok(fits(&params, workers).then_some(params))
}

/// False when `workers + 1` filters of `params` would take more than a quarter of the memory.
fn fits(params: &BloomParams, workers: usize) -> bool {
    crate::sys::total_memory()
        .is_none_or(|total| params.num_bytes().saturating_mul(workers as u64 + 1) <= total / 4)
}

/// The distinct keys a merged split or blocked filter holds, estimated from its bits block by
/// block (which does not depend on how the keys were split among its partials), and the
/// count to fold it for: the estimate within `1..=bound`, `bound` being an exact upper bound
/// (the keys inserted, in `train` and in `merge` alike). A full block only happens when the
/// filter started far too small:
/// the estimate is then "more than the bound", `2 * bound`. No margin for the estimate's
/// error: [`fold_to_target`] checks the folded bits themselves against the target.
pub(crate) fn counted_distinct(stats: &bloom::BitStats, bound: u64) -> (u64, u64) {
    let estimate = match stats.estimated_distinct_by_block() {
        Some(e) => e.round() as u64,
        None => bound.saturating_mul(2).max(2),
    };
    (estimate, estimate.clamp(1, bound.max(1)))
}

/// Fold a split or blocked filter holding about `n` distinct keys to the smallest size whose
/// model FPP at `n` meets `fpp` ([`bloom::fold_target`]), then make sure the folded bits
/// themselves meet it too (their estimated FPP, which does not depend on how well `n` was
/// counted), growing the size by 1 % at a time if not. An SBBF folds to Parquet's size for
/// `n` (a power of two), doubled while its bits miss. A filter that needs no fold is returned
/// as it is (no copy: orders' 9.5 MB filter at scale 5).
pub(crate) fn fold_to_target(filter: BloomFilter, n: u64, fpp: f64) -> Result<BloomFilter> {
    if filter.params().layout == Layout::Sbbf {
        // Parquet's size for `n` keys (a power of two), doubled while the folded bits miss.
        let from = filter.params().num_bits;
        let mut to = bloom::sbbf::num_bytes_for(n, fpp).map_or(from, |b| b * 8);
        while to < from {
            let folded = filter.fold_sbbf_to(to)?;
            if folded.estimated_fpp() <= fpp {
                return Ok(folded);
            }
            to *= 2;
        }
        return Ok(filter);
    }
    let from = filter.num_blocks();
    let k = filter.params().num_hashes;
    let mut to = bloom::fold_target(filter.params().layout, n, k, fpp, from);
    loop {
        if to >= from {
            return Ok(filter);
        }
        let folded = filter.fold_to(to)?;
        if folded.estimated_fpp() <= fpp {
            return Ok(folded);
        }
        to = (to + 1).max((to as f64 * 1.01) as u64);
    }
}

/// Refuse filters whose partials (one per worker plus the merged one) cannot fit in memory.
fn check_memory(params: &BloomParams, workers: usize) -> Result<()> {
    let Some(total) = crate::sys::total_memory() else {
        return Ok(());
    };
    let need = params.num_bytes().saturating_mul(workers as u64 + 1);
    if need > total / 10 * 8 {
        return Err(Error::param(
            "--bits/--expected-items",
            format!(
                "{} workers x {} filter need {}, more than 80 % of this machine's {} (fewer --workers or a larger --fpp)",
                workers,
                crate::report::human_bytes(params.num_bytes()),
                crate::report::human_bytes(need),
                crate::report::human_bytes(total)
            ),
        ));
    }
    Ok(())
}
