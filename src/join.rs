//! The join job: the driver that runs the stages in order.
//!
//! ```text
//! filter ──load once, Arc──> every map worker                          (bloom::codec)
//! plan:   both sides' files, splits, columns, output schema            (plan::side)
//! left:   map (--left-where; every key checked against the filter) ──> in memory while it
//!         fits --memory-limit, else partitioned to local disk          (map::task, shuffle)
//! replicated (the left side fit):
//!   no --filter: build one from the left keys                 (left::InMemory::build_filter)
//!   build one hash table ──> right map (statistics, Bloom filter, exact key set,
//!   --right-where) probes it directly; each worker writes its own part  (map, reduce, commit)
//! reduce-side (it did not):
//!   no --filter: the left keys spilled, set in per-worker partials, OR-ed and folded
//!                                                                      (left::SpillFilter)
//!   right map (statistics, Bloom filter, --right-where) ──partitioned to local disk──>
//!   a reducer per partition builds, probes, writes part-r              (shuffle, reduce)
//! commit: _temporary/<run-id>/part-* ──> final names ──> _SUCCESS       (commit)
//! ```
//!
//! In: a [`JoinJob`] (validated options, see [`crate::cli::join::JoinSpec::to_job`]). Out:
//! `part-NNNNN-<run-id>.parquet` files and `_SUCCESS` under the output, and a [`JoinReport`].
//! Both strategies give the same rows. The prefilter is used only for join types whose
//! result it cannot change.

use std::num::{NonZeroU64, NonZeroUsize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::bloom::{codec, BloomFilter, Layout};
use crate::commit::{OutputDir, WriteMode};
use crate::error::{Error, Result};
use crate::expr::Predicate;
use crate::key::KeyFamily;
use crate::map::prefilter::{Coverage, RightPrefilter, SbbfTier};
use crate::map::task::{MapCounters, SideReader};
use crate::plan::side::{JoinPlan, SideInput};
use crate::plan::SplitOptions;
use crate::reduce::{Budget, JoinShape};
use crate::store::Location;

pub(crate) mod condition;
pub use condition::Pushed;
mod left;
mod reduce_side;
mod replicated;
mod report;

pub use crate::map::prefilter::FilterMismatch;
pub use crate::reduce::{ConditionCounts, JoinType, OutColumn, Side};
pub(crate) use report::partition_dirs_summary;
pub use report::{
    JoinReport, JoinTimes, JoinWhereReport, KeptReport, PrefilterReport, SbbfReport, SideReport,
    StrategyReport,
};

/// How the join runs on this machine.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[value(rename_all = "kebab-case")]
pub enum Strategy {
    /// Replicated when the left side fits `--memory-limit`, else reduce-side.
    Auto,
    /// One hash table of the whole left side, probed by every map worker; no shuffle.
    Replicated,
    /// Both sides partitioned by key through local disk; one hash join per partition.
    ReduceSide,
}

impl Strategy {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Auto => "auto",
            Strategy::Replicated => "replicated",
            Strategy::ReduceSide => "reduce-side",
        }
    }
}

/// A validated join job: what [`run`] consumes. Build it with
/// [`JoinSpec::to_job`](crate::cli::join::JoinSpec::to_job).
#[derive(Debug, Clone)]
pub struct JoinJob {
    /// The filter trained on the left key (`None`: the join builds one from the left side's
    /// keys, unless `--no-prefilter`).
    pub(crate) filter: Option<Location>,
    /// The false-positive rate of the filter built from the left side (`--filter-fpp`).
    pub(crate) filter_fpp: f64,
    /// Whether to prefilter the right side (off with `--no-prefilter`).
    pub(crate) prefilter: bool,
    /// `--spark-keys`: how to read a filter in Spark's format.
    pub(crate) spark_keys: crate::bloom::spark_keys::SparkKeyMode,
    /// What to do when a left key is not in the filter.
    pub(crate) filter_mismatch: FilterMismatch,
    /// The build (filtered-on) side.
    pub(crate) left: SideJob,
    /// The probe (prefiltered) side.
    pub(crate) right: SideJob,
    /// The join type.
    pub(crate) join_type: JoinType,
    /// `--join-where`: a condition over both sides' columns that matching pairs must meet.
    pub(crate) join_where: Option<Predicate>,
    /// `--nulls-equal`: null key components match each other (SQL's `IS NOT DISTINCT FROM`,
    /// Spark's `<=>`), rather than never matching.
    pub(crate) nulls_equal: bool,
    /// `--coalesce-keys`: one output column per key pair, the left key or else the right one.
    pub(crate) coalesce_keys: bool,
    /// The strategy asked for.
    pub(crate) strategy: Strategy,
    /// `--select`, parsed but not yet resolved against the inputs.
    pub(crate) select: Option<Vec<ColumnRef>>,
    /// Map worker threads.
    pub(crate) workers: NonZeroUsize,
    /// Partitions (reducers, output parts) of the reduce-side strategy; more when the left
    /// side needs them to fit the memory budget.
    pub(crate) reducers: NonZeroUsize,
    /// The output directory.
    pub(crate) output: Location,
    /// Where to write the report JSON.
    pub(crate) report: Option<String>,
    /// What the run does with a committed output: refuse it, replace it (`--overwrite`), add
    /// to it (`--append`) or replace the partitions it writes (`--overwrite-partitions`).
    pub(crate) write_mode: WriteMode,
    /// Rows per decoded batch.
    pub(crate) batch_size: NonZeroUsize,
    /// Rows per split (`None`: [`crate::plan::SplitOptions::for_workers`]).
    pub(crate) split_rows: Option<NonZeroU64>,
    /// Bytes the build side may hold.
    pub(crate) memory_limit: u64,
    /// Output columns that get a Parquet Bloom filter per row group (`None`: the key
    /// columns; empty: none). Checked against the output schema when the sides are planned.
    pub(crate) bloom_columns: Option<Vec<String>>,
    /// Their target false-positive rate.
    pub(crate) bloom_fpp: f64,
    /// `--partition-by`: output columns whose values name the parts' directories
    /// (`dt=2024-01-01/`) instead of being written in them. Checked against the output
    /// schema when the sides are planned.
    pub(crate) partition_by: Option<Vec<String>>,
    /// How the output's files are written: the pages' codec (`--compression`,
    /// `--compression-level`), the row groups (`--row-group-rows`, `--row-group-size`) and
    /// the files' limits (`--max-rows-per-file`, `--max-file-size`).
    pub(crate) format: crate::commit::FileFormat,
    /// Skip right row groups with the right files' own Parquet Bloom filters (off with
    /// `--no-sbbf`).
    pub(crate) sbbf: bool,
    /// ... when the left side has at most this many distinct keys.
    pub(crate) sbbf_max_keys: usize,
}

/// One side of a join job.
#[derive(Debug, Clone)]
pub(crate) struct SideJob {
    /// Files, directories, globs or URLs.
    pub(crate) inputs: Vec<String>,
    /// The key columns (one, or the components of a composite key in order).
    pub(crate) keys: Vec<String>,
    /// `--left-where` / `--right-where`.
    pub(crate) predicate: Option<Predicate>,
    /// Read `name=value` directories as columns (off with `--no-hive-partitioning`).
    pub(crate) hive_partitioning: bool,
}

impl SideJob {
    /// How to read the side's inputs.
    pub(crate) fn input_options(&self) -> crate::plan::InputOptions {
        crate::plan::InputOptions {
            hive_partitioning: self.hive_partitioning,
            predicate: self.predicate.clone(),
            key_filter: None,
        }
    }
}

/// One item of `--select`: a column name, qualified by its side or bare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ColumnRef {
    /// `left.` or `right.`; `None` for a bare name (resolved against both sides).
    pub(crate) side: Option<Side>,
    /// The column.
    pub(crate) name: String,
    /// `AS alias`: the output column's name, instead of the column's.
    pub(crate) alias: Option<String>,
    /// With an alias, the item as written after its side (`x AS y`): a column of that very
    /// name is selected instead, under its own name.
    pub(crate) literal: Option<String>,
    /// The whole item as written, side included: where it names no column, an expression
    /// (`left.price * qty AS total`; see `plan::side::resolve_select`).
    pub(crate) item: String,
}

impl JoinJob {
    /// What the run does with a committed output.
    pub(crate) fn write_mode(&self) -> WriteMode {
        self.write_mode
    }

    /// The filter's location, if any.
    pub fn filter(&self) -> Option<&Location> {
        self.filter.as_ref()
    }

    /// The output directory.
    pub fn output(&self) -> &Location {
        &self.output
    }

    /// The join type.
    pub fn join_type(&self) -> JoinType {
        self.join_type
    }
}

/// The state the stages of one run share.
pub(crate) struct Ctx<'a> {
    job: &'a JoinJob,
    plan: &'a JoinPlan,
    shape: Arc<JoinShape>,
    output: &'a OutputDir,
    budget: Budget,
    cancel: AtomicBool,
    /// Seed of the base hash every key is hashed with, once, in the map stage.
    hash_seed: u64,
    left_counters: MapCounters,
    right_counters: MapCounters,
    show_progress: bool,
    /// Collect the left side's distinct keys, up to this many, for SBBF pruning.
    sbbf_max_keys: Option<usize>,
}

impl<'a> Ctx<'a> {
    /// The state of a run of `job` as planned, writing into `output`, keys hashed as
    /// `filter` hashes them when it hashes natively, the left side's distinct keys collected
    /// up to `sbbf_max_keys` (SBBF pruning; `None`: off).
    fn new(
        job: &'a JoinJob,
        plan: &'a JoinPlan,
        output: &'a OutputDir,
        filter: Option<&BloomFilter>,
        show_progress: bool,
        sbbf_max_keys: Option<usize>,
    ) -> Self {
        Ctx {
            job,
            plan,
            shape: Arc::new(JoinShape {
                join_type: job.join_type,
                out_schema: plan.out_schema.clone(),
                out_columns: plan.out_columns.clone(),
                left_schema: plan.left.schema.clone(),
                key_arity: plan.left.arity(),
                nulls_equal: job.nulls_equal,
                condition: plan.condition.clone(),
                blooms: crate::bloom::sbbf::WriteBlooms {
                    columns: plan.bloom_columns.clone(),
                    fpp: job.bloom_fpp,
                    max_distinct: Vec::new(),
                },
                format: job.format,
                partitioning: plan.partitioning.clone(),
                // Reduce-side keeps a spill file per partition and side open.
                open_parts: match plan.partitioning {
                    Some(_) => crate::commit::partition::open_parts_per_task(
                        crate::sys::open_files_limit(),
                        job.workers.get(),
                        2 * job.reducers.get() as u64,
                    ),
                    None => crate::commit::partition::MAX_OPEN_PARTS,
                },
            }),
            output,
            budget: Budget::new(job.memory_limit),
            cancel: AtomicBool::new(false),
            hash_seed: hash_seed(filter),
            left_counters: MapCounters::default(),
            right_counters: MapCounters::default(),
            show_progress,
            sbbf_max_keys,
        }
    }

    /// Under `--nulls-equal`, once the left side is mapped: whether it has a key with a null
    /// (in any column), which right keys with nulls may then match. Without one the right
    /// side's null keys match nothing and are dropped, as without `--nulls-equal`.
    fn null_keys_meet(&self) -> bool {
        self.job.nulls_equal && self.left_counters.null_key_rows() > 0
    }

    fn workers(&self) -> usize {
        self.job.workers.get()
    }

    /// A reader of one side's splits.
    fn reader<'b>(
        &'b self,
        side: Side,
        prefilter: Option<&'b RightPrefilter>,
        bar: &'b indicatif::ProgressBar,
    ) -> SideReader<'b> {
        let (input, stage, counters, keep): (&SideInput, _, _, _) = match side {
            Side::Left => (
                &self.plan.left,
                "left map",
                &self.left_counters,
                self.job.join_type.keeps_left() || self.job.nulls_equal,
            ),
            Side::Right => (
                &self.plan.right,
                "right map",
                &self.right_counters,
                self.job.join_type.keeps_right() || self.null_keys_meet(),
            ),
        };
        SideReader {
            side: input,
            stage,
            counters,
            batch_size: self.job.batch_size.get(),
            keep_null_keys: keep,
            nulls_equal: self.job.nulls_equal,
            hash_seed: self.hash_seed,
            prefilter: prefilter.filter(|p| p.is_active()),
            cancel: &self.cancel,
            bar,
        }
    }

    /// A progress bar over one side's rows.
    fn bar(&self, side: Side) -> indicatif::ProgressBar {
        let (name, input) = match side {
            Side::Left => ("left", &self.plan.left),
            Side::Right => ("right", &self.plan.right),
        };
        crate::progress::rows(name, input.plan.num_rows(), self.show_progress)
    }
}

/// What a strategy wrote.
#[derive(Default)]
struct Written {
    /// Task part names (`part-NNNNN`, or `dt=2024-01-01/part-NNNNN` with `--partition-by`),
    /// in order.
    parts: Vec<String>,
    rows_out: u64,
    bytes_out: u64,
    /// Right rows with a non-null key that matched no left row.
    right_unmatched: u64,
    /// `--join-where`'s counters.
    condition: crate::reduce::ConditionCounts,
    /// Output rows that went through a task's partition overflow.
    overflow_rows: u64,
}

impl Written {
    /// Count the parts a task closed.
    fn add(&mut self, parts: Vec<crate::commit::partition::WrittenPart>) {
        for p in parts {
            self.rows_out += p.file.rows;
            self.bytes_out += p.file.bytes;
            self.overflow_rows += p.overflow_rows;
            self.parts.push(p.file.name);
        }
    }
}

/// Run `f` as task `task` of `stage`: its error or panic comes back wrapped once, naming
/// both (the driver then removes the staged parts).
pub(crate) fn task<T>(stage: &'static str, task: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|p| {
            Err(Error::Internal(format!(
                "a {stage} task panicked: {}",
                crate::map::panic_message(p.as_ref())
            )))
        })
        .map_err(|e| Error::Task {
            stage,
            task: task.to_string(),
            source: Box::new(e),
        })
}

/// The base key hash seed: the filter's own seed when the filter hashes natively (then its
/// probe and the join share one hash per key), else a fixed one.
pub(crate) fn hash_seed(filter: Option<&BloomFilter>) -> u64 {
    match filter {
        Some(f) if f.params().layout.hashes_natively() => f.params().seed,
        _ => crate::shuffle::partition_hash(0),
    }
}

/// Whether some row group of `file` has a Parquet Bloom filter on the side's key column.
fn key_has_sbbf(file: &crate::plan::InputFile, side: &SideInput) -> bool {
    let meta = file.parquet();
    let schema = meta.file_metadata().schema_descr();
    let key = side.schema.field(0).name();
    if side.arity() > 1 {
        return false;
    }
    let Some(leaf) = (0..schema.num_columns()).find(|i| {
        let root = schema.get_column_root_idx(*i);
        schema.root_schema().get_fields()[root].name() == key
    }) else {
        return false;
    };
    meta.row_groups()
        .iter()
        .any(|rg| rg.column(leaf).bloom_filter_offset().is_some())
}

/// Check that the filter was trained on a key like the join's: the same number of columns,
/// each of the same family as the right key's (which matches the left key's). One-line
/// usage errors.
fn check_filter_key(
    f: &BloomFilter,
    meta: &codec::FilterMeta,
    job: &JoinJob,
    plan: &JoinPlan,
) -> Result<()> {
    let filter = job
        .filter
        .as_ref()
        .map(|l| l.to_string())
        .unwrap_or_default();
    check_key_of(
        f,
        meta,
        &filter,
        "--right-key",
        &job.right.keys,
        &plan.right,
    )
}

/// Check that the filter `filter` was trained on a key like `side`'s (the `keys` of option
/// `flag`): the same number of columns, each of the same family. One-line usage errors.
pub(crate) fn check_key_of(
    f: &BloomFilter,
    meta: &codec::FilterMeta,
    filter: &str,
    flag: &str,
    keys: &[String],
    side: &SideInput,
) -> Result<()> {
    let key = keys.join(",");
    let arity = side.arity();
    if f.family() == KeyFamily::Any && arity > 1 {
        // Spark's format records no key: a composite key hashed as xxhash64 of the key
        // columns' Spark types (set by spark_keys_of), or nothing it can hold.
        if f.spark_types().len() == arity {
            return Ok(());
        }
        return Err(Error::Usage(format!(
            "the filter {filter} is in Spark's format, which holds one long or string per key: a composite key ({flag} {key}) needs a filter of Spark's xxhash64 of the columns, read with --spark-keys xxhash64"
        )));
    }
    if f.family() == KeyFamily::Tuple || arity > 1 {
        let recorded = meta.key_columns_of(f.family());
        if f.family() != KeyFamily::Tuple || recorded.len() != arity {
            return Err(Error::Usage(format!(
                "key arity mismatch: the filter {filter} holds keys of {} column(s), but {flag} {key} has {arity}",
                if f.family() == KeyFamily::Tuple { recorded.len() } else { 1 },
            )));
        }
        for (i, ((name, fam), rf)) in recorded.iter().zip(&side.families).enumerate() {
            if fam != rf {
                return Err(Error::Usage(format!(
                    "key family mismatch: column {} of the filter {filter}'s key ({name}) holds {fam} keys, but {flag} column {} ({}) holds {rf} keys",
                    i + 1,
                    i + 1,
                    keys[i]
                )));
            }
            if let Some(c) = meta.key_columns.get(i) {
                let recorded = (c.logical_type.as_str(), c.key_type.as_str());
                if let Some(e) = logical_mismatch(recorded, side, keys, i, filter, flag) {
                    return Err(e);
                }
            }
        }
        return Ok(());
    }
    if f.check_family(side.family()).is_err() {
        return Err(Error::Usage(format!(
            "key family mismatch: the filter {filter} holds {} keys, but {flag} {key} holds {} keys",
            f.family(),
            side.family()
        )));
    }
    let recorded = (
        meta.logical_type.as_deref().unwrap_or_default(),
        meta.key_type.as_deref().unwrap_or_default(),
    );
    match logical_mismatch(recorded, side, keys, 0, filter, flag) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The error when key column `i` of `side` (`keys[i]` of option `flag`) does not meet what
/// the filter's column holds, by the logical type and the Arrow key type it `recorded`: a
/// UUID against a string either way, a TIMETZ against a local TIME either way.
fn logical_mismatch(
    (logical_type, key_type): (&str, &str),
    side: &SideInput,
    keys: &[String],
    i: usize,
    filter: &str,
    flag: &str,
) -> Option<Error> {
    let (uuid, text) = (logical_type == "UUID", key_type.contains("Utf8"));
    uuid_text_mismatch(uuid, text, side, keys, i, filter, flag)
        .or_else(|| time_utc_filter_mismatch(logical_type == "TIMETZ", side, keys, i, filter, flag))
}

/// Times of day adjusted to UTC (DuckDB's `TIMETZ`) and local ones meet only under a session
/// time zone, so they are refused against each other (see the join's check in
/// `plan::side`). The error when key column `i` of `side` (`keys[i]` of option `flag`) is a
/// time of day of the other kind than the filter's (`utc`: the filter records `TIMETZ`).
fn time_utc_filter_mismatch(
    utc: bool,
    side: &SideInput,
    keys: &[String],
    i: usize,
    filter: &str,
    flag: &str,
) -> Option<Error> {
    if side.families.get(i) != Some(&KeyFamily::Time) {
        return None;
    }
    let side_utc = crate::plan::side::time_utc_key(side, &keys[i]);
    if side_utc == utc {
        return None;
    }
    let kind = crate::read::logical::times_of_day;
    Some(Error::Usage(format!(
        "time zone mismatch: the filter {filter} holds {}, but {flag} {} holds {}: they meet only under a session time zone; train the filter on the key's own type",
        kind(utc),
        keys[i],
        kind(side_utc)
    )))
}

/// UUIDs and strings are both bytes keys, but a UUID's are its 16 bytes and a string's its
/// text: probed against each other they would find nothing, silently. The error when key
/// column `i` of `side` (`keys[i]` of option `flag`) is a string and the filter's column
/// holds UUIDs (`uuid`), or is a UUID and the filter's holds strings (`text`).
fn uuid_text_mismatch(
    uuid: bool,
    text: bool,
    side: &SideInput,
    keys: &[String],
    i: usize,
    filter: &str,
    flag: &str,
) -> Option<Error> {
    let side_text = crate::key::is_text(side.schema.field(i).data_type());
    let side_uuid = crate::plan::side::uuid_key(side, &keys[i]);
    let (ours, theirs) = match (uuid && side_text, text && side_uuid) {
        (true, _) => ("UUIDs (16 bytes)", "a string"),
        (_, true) => ("strings", "a UUID (16 bytes)"),
        _ => return None,
    };
    Some(Error::Usage(format!(
        "type mismatch: the filter {filter} holds {ours}, but {flag} {} is {theirs}: a UUID's bytes never equal its text (DuckDB casts the text to a UUID); train the filter on the key's own type",
        keys[i]
    )))
}

/// Apply `--spark-keys` to the loaded filter: a filter in Spark's format (which does not
/// record it) holding `xxhash64` longs hashes keys as the left key column's Spark type; a
/// native filter records its mode, which must be the one asked for, if any.
fn spark_keys_for_join(
    job: &JoinJob,
    plan: &crate::plan::side::JoinPlan,
    f: &mut crate::bloom::BloomFilter,
) -> Result<()> {
    let name = job
        .filter
        .as_ref()
        .map(|l| l.to_string())
        .unwrap_or_default();
    spark_keys_of(job.spark_keys, &name, &job.left.keys, &plan.left, f, None)
}

/// Apply `mode` (`--spark-keys`) to the loaded filter `name`: a filter in Spark's format
/// (which does not record it) holding `xxhash64` longs hashes keys as the Spark types of the
/// `keys` of `side` (those it was trained on); a native filter records its mode, which must
/// be the one asked for, if any.
pub(crate) fn spark_keys_of(
    mode: crate::bloom::spark_keys::SparkKeyMode,
    name: &str,
    keys: &[String],
    side: &SideInput,
    f: &mut crate::bloom::BloomFilter,
    spark_type: Option<&str>,
) -> Result<()> {
    use crate::bloom::spark_keys::{SparkKeyMode, SparkKeys, SparkType};
    if mode == SparkKeyMode::Plain {
        return match spark_type {
            Some(_) => Err(Error::param(
                "--spark-type",
                "says how a filter in Spark's format hashed its keys with --spark-keys xxhash64, which is not given",
            )),
            None => Ok(()),
        };
    }
    if f.family() != KeyFamily::Any {
        if spark_type.is_some() {
            return Err(Error::param(
                "--spark-type",
                format!("the filter {name} records its keys' types: leave --spark-type out"),
            ));
        }
        return match f.params().spark_keys {
            SparkKeys::Xxhash64(_) | SparkKeys::Xxhash64Tuple => Ok(()),
            SparkKeys::Plain => Err(Error::param(
                "--spark-keys",
                format!("xxhash64, but the filter {name} records plain keys"),
            )),
        };
    }
    // Spark's format records nothing: the types given, else the key columns' Spark types
    // (what Spark's `xxhash64(a, b)` over the trained table hashed, when it is this side).
    let types = match spark_type {
        Some(text) => crate::bloom::spark_keys::parse_types(text, &side.families, "--key")?,
        None => (0..side.arity())
            .map(|i| SparkType::of(side.schema.field(i).data_type(), &keys[i]))
            .collect::<Result<Vec<_>>>()?,
    };
    match types.as_slice() {
        [t] => f.set_spark_keys(SparkKeys::Xxhash64(*t)),
        _ => f.set_spark_tuple(types),
    }
    .map_err(|e| Error::Usage(format!("{name}: {e}")))
}

/// What a job file's join step must pass before any step of the job runs: the output and
/// report locations, the inputs (their footers: files, key, `--where` and `--select`
/// columns, key types) and the output directory (not committed unless `--overwrite`, and
/// holding nothing bloomjoin did not write). The filter is not read: an earlier step of the
/// job may be the one that writes it.
pub fn check(job: &JoinJob) -> Result<()> {
    refuse_bad_locations(job, "")?;
    let workers = job.workers.get();
    let split = |total: u64| SplitOptions::for_job(job.split_rows.map(|r| r.get()), total, workers);
    let plan = crate::plan::side::plan_join(job, &split, None)?;
    OutputDir::prepare(job.output.clone(), job.write_mode())?;
    check_kept_parts(job, &plan)
}

/// `--dry-run`: check and plan `job` as [`run`] would, in the same order, and describe the
/// plan instead of running it. Nothing is read but the inputs' footers and the filter, and
/// nothing is written. `in_job_file`: errors name options as a job file's keys;
/// `filter_from_step`: the job file's train step writes the filter, which is then not read
/// (it may not exist yet). Errors are the run's.
pub fn dry_run(
    job: &JoinJob,
    in_job_file: bool,
    filter_from_step: bool,
) -> Result<crate::report::DryRun> {
    use crate::report::human_bytes;
    refuse_bad_locations(job, if in_job_file { "" } else { "--" })?;
    let mut loaded = match &job.filter {
        Some(f) if !filter_from_step => Some(codec::read(f)?),
        _ => None,
    };
    OutputDir::prepare(job.output.clone(), job.write_mode())?;
    let fresh = job.write_mode() == WriteMode::Create
        || !job.output.child(crate::commit::SUCCESS).exists()?;
    let workers = job.workers.get();
    let pool = crate::map::worker_pool(workers)?;
    let split = |total: u64| SplitOptions::for_job(job.split_rows.map(|r| r.get()), total, workers);
    let plan =
        pool.install(|| crate::plan::side::plan_join(job, &split, key_filter(job, &loaded)))?;
    check_kept_parts(job, &plan)?;
    let mut warnings: Vec<String> = plan.left.wide_decimals.clone();
    warnings.extend(plan.right.wide_decimals.iter().cloned());
    let reason = prefilter_off(job);
    let used = reason.is_none();
    let (filter_line, filter_json) = match (&job.filter, loaded.as_mut()) {
        (Some(name), Some((f, meta))) => {
            spark_keys_for_join(job, &plan, f)?;
            check_filter_key(f, meta, job, &plan)?;
            warnings.extend(filter_warnings(f, meta, job));
            let p = f.params();
            let json = serde_json::json!({
                "location": name.to_string(),
                "source": "file",
                "params": p,
                "bytes": p.num_bytes(),
                "key_family": f.family().to_string(),
                "used": used,
                "reason": reason,
                "filter_mismatch": job.filter_mismatch,
            });
            let what = format!(
                "{name}: {} layout, {}, k={}, {} keys",
                p.layout,
                human_bytes(p.num_bytes()),
                p.num_hashes,
                f.family()
            );
            let line = match &reason {
                Some(why) => format!("{what}; not used: {why}"),
                None => format!(
                    "{what}; every left key is checked against it ({})",
                    match job.filter_mismatch {
                        FilterMismatch::Error => "one it lacks fails the job",
                        FilterMismatch::IgnoreFilter =>
                            "if one is missing, the join builds its own filter",
                    }
                ),
            };
            (line, json)
        }
        (Some(name), None) => {
            let json = serde_json::json!({
                "location": name.to_string(),
                "source": "train_step",
                "used": used,
                "reason": reason,
            });
            let line = match &reason {
                Some(why) => format!("{name}, written by the train step; not used: {why}"),
                None => format!("{name}, written by the train step (read when the join runs)"),
            };
            (line, json)
        }
        (None, _) => {
            if job.spark_keys != crate::bloom::spark_keys::SparkKeyMode::Plain {
                warnings.push(
                    "--spark-keys says how to read a trained filter in Spark's format; without --filter it has nothing to read and is ignored"
                        .to_string(),
                );
            }
            let json = serde_json::json!({
                "location": null,
                "source": if used { "built" } else { "none" },
                "fpp": used.then_some(job.filter_fpp),
                "used": used,
                "reason": reason,
            });
            let line = match &reason {
                Some(why) => format!("none: {why}"),
                None => format!(
                    "built from the left side's keys once they are read (--filter-fpp {})",
                    job.filter_fpp
                ),
            };
            (line, json)
        }
    };
    // What each side's splits read, from the footers: once per side, for its line and (the
    // left's) for the strategy's.
    let extent = |side: &SideInput| side.plan.extent(|i| &side.files[i].decode);
    let (left_extent, right_extent) = (extent(&plan.left), extent(&plan.right));
    let left_skips = where_skips(&plan.left, &job.left.predicate);
    let right_skips = where_skips(&plan.right, &job.right.predicate);
    let strategy = match job.strategy {
        Strategy::Auto => format!(
            "auto: replicated if the left side after its where fits --memory-limit {} (its column chunks hold {} uncompressed), else reduce-side with at least {} partitions",
            human_bytes(job.memory_limit),
            human_bytes(left_extent.bytes_uncompressed),
            job.reducers
        ),
        Strategy::Replicated => format!(
            "replicated (--strategy): fails if the left side after its where outgrows --memory-limit {} (its column chunks hold {} uncompressed)",
            human_bytes(job.memory_limit),
            human_bytes(left_extent.bytes_uncompressed)
        ),
        Strategy::ReduceSide => format!(
            "reduce-side (--strategy): both sides partitioned into {} partitions on local disk",
            job.reducers
        ),
    };
    let sbbf_why = sbbf_off(job, &plan);
    let sbbf_json = serde_json::json!({
        "used": sbbf_why.is_none(),
        "reason": sbbf_why,
        "max_keys": job.sbbf_max_keys,
    });
    let sbbf = match sbbf_why {
        Some(why) => format!("off: {why}"),
        None => format!(
            "on: the right row groups' Parquet Bloom filters are probed if the left side has at most {} distinct keys",
            job.sbbf_max_keys
        ),
    };
    let output = OutputPlan {
        location: &job.output,
        fresh,
        mode: job.write_mode(),
        schema: &plan.out_schema,
        format: &job.format,
        bloom_columns: &plan.bloom_columns,
        partition_by: plan.partitioning.as_ref().map(|p| p.names()),
    };
    let mut summary = format!(
        "dry run ({} join{}{}, {workers} workers): checked; nothing read but footers{}, nothing written\n",
        job.join_type.name(),
        if job.nulls_equal { ", nulls equal" } else { "" },
        if job.coalesce_keys { ", keys coalesced" } else { "" },
        if loaded.is_some() { " and the filter" } else { "" }
    );
    summary += &side_line(
        "left",
        &plan.left,
        &left_extent,
        &job.left.keys,
        &job.left.predicate,
        left_skips,
    );
    summary += &side_line(
        "right",
        &plan.right,
        &right_extent,
        &job.right.keys,
        &job.right.predicate,
        right_skips,
    );
    let pushed = plan.pushed.clone().unwrap_or_default();
    summary += &pushed.lines();
    if let Some(c) = &plan.condition {
        summary += &format!(
            "  on     the keys, and {:?} (--join-where) on each pair of matching keys\n",
            c.text()
        );
    }
    summary += &format!("  filter {filter_line}\n");
    summary += &format!("  sbbf   {sbbf}\n");
    summary += &format!("  plan   {strategy}\n");
    summary += &format!("  output {}\n", output.line());
    if let Some(r) = &job.report {
        summary += &format!("  report {r} (written when the join runs)\n");
    }
    let plan_json = serde_json::json!({
        "dry_run": "join",
        "join_type": job.join_type.name(),
        "nulls_equal": job.nulls_equal,
        "coalesce_keys": job.coalesce_keys,
        "join_where": job.join_where.as_ref().map(|w| serde_json::json!({
            "condition": w.text(),
            "pushed_to_left": pushed.left,
            "pushed_to_right": pushed.right,
            "on_pairs": plan.condition.as_ref().map(|c| c.text()),
        })),
        "workers": workers,
        "left": side_json(&plan.left, &left_extent, &job.left.keys, &job.left.predicate, left_skips),
        "right": side_json(&plan.right, &right_extent, &job.right.keys, &job.right.predicate, right_skips),
        "filter": filter_json,
        "sbbf": sbbf_json,
        "strategy": {
            "requested": job.strategy.name(),
            "memory_limit": job.memory_limit,
            "left_bytes_uncompressed": left_extent.bytes_uncompressed,
            "reducers": job.reducers,
        },
        "output": output.json(),
        "report": job.report.as_ref().map(|r| r.to_string()),
        "warnings": warnings,
    });
    Ok(crate::report::DryRun {
        summary,
        warnings,
        plan: plan_json,
    })
}

/// A side's lines of a dry run: what its splits read, its key and `--where`, and the files
/// its partition values rule out.
pub(crate) fn side_line(
    name: &str,
    side: &SideInput,
    extent: &crate::plan::Extent,
    keys: &[String],
    pred: &Option<Predicate>,
    skips: Option<crate::plan::WhereSkips>,
) -> String {
    let key = keys
        .iter()
        .enumerate()
        .map(|(i, k)| format!("{k} ({})", side.schema.field(i).data_type()))
        .collect::<Vec<_>>()
        .join(", ");
    let mut s = format!("  {name:<6} {extent}\n         key {key}");
    if let (Some(p), Some(skips)) = (pred, skips) {
        s += &format!("; where {}{skips}", p.text());
    }
    if side.plan.files_pruned > 0 {
        s += &format!(
            "; {} file(s) not opened: their partition values fail the where",
            side.plan.files_pruned
        );
    }
    if side.plan.files_pruned_by_key > 0 {
        s += &format!(
            "; {} file(s) not opened: the filter rules out their partition key",
            side.plan.files_pruned_by_key
        );
    }
    s + "\n"
}

/// The row groups a side's `--where` rules out by their statistics, for its dry-run line and
/// JSON (computed once, for both).
pub(crate) fn where_skips(
    side: &SideInput,
    pred: &Option<Predicate>,
) -> Option<crate::plan::WhereSkips> {
    let p = pred.as_ref()?;
    Some(side.plan.where_skips(p, |i| &side.files[i].where_fill))
}

/// A side in a dry run's JSON plan ([`side_line`]'s facts).
pub(crate) fn side_json(
    side: &SideInput,
    extent: &crate::plan::Extent,
    keys: &[String],
    pred: &Option<Predicate>,
    skips: Option<crate::plan::WhereSkips>,
) -> serde_json::Value {
    let mut v = serde_json::json!(extent);
    let keys: Vec<serde_json::Value> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            serde_json::json!({
                "name": k,
                "type": side.schema.field(i).data_type().to_string(),
            })
        })
        .collect();
    v["keys"] = keys.into();
    v["where"] = pred.as_ref().map(|p| p.text()).into();
    if let Some(skips) = skips {
        v["row_groups_skipped_by_where"] = skips.row_groups.into();
        v["rows_skipped_by_where"] = skips.rows.into();
    }
    v["files_pruned_by_partition"] = side.plan.files_pruned.into();
    v["files_pruned_by_partition_key"] = side.plan.files_pruned_by_key.into();
    v
}

/// The output a dry run describes (a join's or a filter job's).
pub(crate) struct OutputPlan<'a> {
    /// The output directory.
    pub location: &'a Location,
    /// Whether no committed output is there for the run to replace or add to.
    pub fresh: bool,
    /// What the run does with a committed one.
    pub mode: WriteMode,
    /// The output columns.
    pub schema: &'a arrow::datatypes::Schema,
    /// The files' codec and limits.
    pub format: &'a crate::commit::FileFormat,
    /// Columns with Parquet Bloom filters.
    pub bloom_columns: &'a [String],
    /// `--partition-by`.
    pub partition_by: Option<&'a [String]>,
}

impl OutputPlan<'_> {
    fn columns(&self) -> Vec<&str> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect()
    }

    /// The dry run's `output` line.
    pub(crate) fn line(&self) -> String {
        let columns = self.columns();
        let mut output = format!(
            "{} ({}): {} columns ({}), {}",
            self.location,
            match (self.fresh, self.mode) {
                (true, _) => "new",
                (false, WriteMode::Append) => "adds to the committed output: --append",
                (false, WriteMode::OverwritePartitions) =>
                    "replaces the committed partitions it writes and keeps the others: --overwrite-partitions",
                (false, _) => "replaces the committed output: --overwrite",
            },
            columns.len(),
            columns.join(", "),
            codec_name(self.format.compression)
        );
        if !self.bloom_columns.is_empty() {
            output += &format!(
                ", Parquet Bloom filters on {}",
                self.bloom_columns.join(", ")
            );
        }
        if let Some(p) = self.partition_by {
            output += &format!(", partitioned by {}", p.join(", "));
        }
        output + &file_limits(self.format)
    }

    /// The dry run's `output` object.
    pub(crate) fn json(&self) -> serde_json::Value {
        let f = self.format;
        serde_json::json!({
            "location": self.location.to_string(),
            "replaces": !self.fresh,
            "write_mode": self.mode.name(),
            "columns": self.columns(),
            "compression": codec_name(f.compression),
            "row_group_rows": f.row_group_rows,
            "row_group_size": f.row_group_bytes,
            "max_rows_per_file": f.max_rows,
            "max_file_size": f.max_bytes,
            "bloom_columns": self.bloom_columns,
            "partition_by": self.partition_by,
        })
    }
}

/// The row groups' and files' limits of `format` that are not the defaults, for the dry
/// run's output line (empty when all are).
fn file_limits(format: &crate::commit::FileFormat) -> String {
    let mut out = String::new();
    if format.row_group_rows.get() != crate::commit::DEFAULT_ROW_GROUP_ROWS {
        out += &format!(", row groups of at most {} rows", format.row_group_rows);
    }
    if let Some(b) = format.row_group_bytes {
        out += &format!(
            ", row groups of about {} at most",
            crate::report::human_bytes(b.get() as u64)
        );
    }
    if let Some(n) = format.max_rows {
        out += &format!(", files of at most {n} rows");
    }
    if let Some(b) = format.max_bytes {
        out += &format!(
            ", files of about {} at most",
            crate::report::human_bytes(b.get())
        );
    }
    out
}

/// A codec as `--compression` and `--compression-level` name it.
fn codec_name(c: parquet::basic::Compression) -> String {
    use parquet::basic::Compression as C;
    match c {
        C::UNCOMPRESSED => "uncompressed".into(),
        C::SNAPPY => "snappy".into(),
        C::LZ4_RAW | C::LZ4 => "lz4".into(),
        C::ZSTD(l) => format!("zstd level {}", l.compression_level()),
        C::GZIP(l) => format!("gzip level {}", l.compression_level()),
        C::BROTLI(l) => format!("brotli level {}", l.compression_level()),
        other => other.to_string(),
    }
}

/// Refuse an output or report that overlaps an input, and a report that could not be
/// written (`dashes`: `--` for the command line's option names, empty for a job file's).
fn refuse_bad_locations(job: &JoinJob, dashes: &str) -> Result<()> {
    crate::plan::refuse_join_overlap(job, dashes)?;
    job.report
        .as_deref()
        .map_or(Ok(()), crate::report::check_report_path)
}

/// `--append` or `--overwrite-partitions` to a committed output: see
/// [`crate::commit::check_kept_parts`].
fn check_kept_parts(job: &JoinJob, plan: &crate::plan::side::JoinPlan) -> Result<()> {
    crate::commit::check_kept_parts(
        &job.output,
        job.write_mode(),
        job.partition_by.as_deref().unwrap_or_default(),
        &plan.out_schema,
        "join",
    )
}

/// Run the join job: the stages of the diagram above, in order.
pub fn run(job: &JoinJob, show_progress: bool) -> Result<JoinReport> {
    let t0 = Instant::now();
    refuse_bad_locations(job, "--")?;
    // The broadcast: load the filter once.
    let mut loaded = job.filter.as_ref().map(codec::read).transpose()?;
    let output_dir = OutputDir::prepare(job.output.clone(), job.write_mode())?;
    let workers = job.workers.get();
    let pool = crate::map::worker_pool(workers)?;
    let (mut report, committed, commit_ms) = output_dir.stage_and_commit(|| {
        pool.install(|| run_stages(job, &mut loaded, &output_dir, show_progress, t0))
    })?;
    report.kept = committed.map(|c| KeptReport::of(c, job.write_mode()));
    report.times.commit_ms = commit_ms;
    report.times.total_ms = t0.elapsed().as_millis() as u64;
    report.peak_rss_bytes = crate::sys::peak_rss();
    if let Some(path) = &job.report {
        crate::report::write_report(path, &report)?;
    }
    Ok(report)
}

/// Plan, map the left side, run the strategy it allows; the report (but for the commit's
/// figures) and the staged part names.
fn run_stages(
    job: &JoinJob,
    loaded: &mut Option<(BloomFilter, codec::FilterMeta)>,
    output_dir: &OutputDir,
    show_progress: bool,
    t0: Instant,
) -> Result<(JoinReport, Vec<String>)> {
    let workers = job.workers.get();
    let split = |total: u64| SplitOptions::for_job(job.split_rows.map(|r| r.get()), total, workers);
    let plan = crate::plan::side::plan_join(job, &split, key_filter(job, loaded))?;
    check_kept_parts(job, &plan)?;
    let mut warnings: Vec<String> = plan.left.wide_decimals.clone();
    warnings.extend(plan.right.wide_decimals.iter().cloned());
    if job.filter.is_none() && job.spark_keys != crate::bloom::spark_keys::SparkKeyMode::Plain {
        warnings.push(
            "--spark-keys says how to read a trained filter in Spark's format; without --filter it has nothing to read and is ignored"
                .to_string(),
        );
    }
    let mut reason = prefilter_off(job);
    let filter = match loaded.as_mut() {
        Some((f, meta)) => {
            spark_keys_for_join(job, &plan, f)?;
            check_filter_key(f, meta, job, &plan)?;
            warnings.extend(filter_warnings(f, meta, job));
            reason.is_none().then(|| Arc::new(f.clone()))
        }
        None => None,
    };
    let mut sbbf_reason = sbbf_off(job, &plan);
    let sbbf_max_keys = sbbf_reason.is_none().then_some(job.sbbf_max_keys);
    let mut ctx = Ctx::new(
        job,
        &plan,
        output_dir,
        filter.as_deref(),
        show_progress,
        sbbf_max_keys,
    );
    let mut times = JoinTimes {
        plan_ms: t0.elapsed().as_millis() as u64,
        ..Default::default()
    };

    // The left side: in memory while it fits, else partitioned to disk; every key checked
    // against the filter.
    let t_build = Instant::now();
    let filter_name = job
        .filter
        .as_ref()
        .map(|l| l.to_string())
        .unwrap_or_default();
    let coverage = filter.as_deref().map(|f| {
        Coverage::new(
            f,
            filter_name.clone(),
            f.params().layout.hashes_natively(),
            job.filter_mismatch,
        )
    });
    // No --filter (or, with ignore-filter, a trained one that may be set aside): the keys
    // of a left side that goes to disk are gathered into partial filters on the way; one
    // in memory is built from its rows below.
    let may_build = job.filter.is_none() || job.filter_mismatch == FilterMismatch::IgnoreFilter;
    let spill_filter = (reason.is_none() && may_build)
        .then(|| spill_filter(job, &plan, ctx.hash_seed))
        .transpose()?;
    let build = spill_filter.as_ref().and_then(|b| b.as_ref().ok());
    let mut left = left::map_left(&ctx, coverage.as_ref(), build)?;
    ctx.shape =
        Arc::new(JoinShape::clone(&ctx.shape).bounded_by_left(ctx.left_counters.rows_mapped()));
    let mut own = job.filter.is_none();
    let filter = match coverage.and_then(|c| c.missing()) {
        Some(key) => {
            warnings.push(format!(
                "the filter {filter_name} does not cover the left side (left key {key} is not in it): --filter-mismatch=ignore-filter sets it aside, and the join builds its own from the left side"
            ));
            own = true;
            None
        }
        None => filter,
    };
    // No --filter (or one set aside): the left side's keys make one, as a Spark runtime
    // filter would (its rows in memory, or the partials of the keys it spilled).
    let built = if filter.is_some() || reason.is_some() || !own {
        None
    } else {
        match &left.side {
            left::LeftSide::InMemory(rows) => {
                Some(rows.build_filter(plan.left.family(), job.filter_fpp, ctx.hash_seed)?)
            }
            left::LeftSide::Spilled(_) => {
                if left.built.is_none() {
                    // Why the partials were not built (spill_filter ran: the filter is ours).
                    let why = spill_filter.and_then(|b| b.err()).unwrap_or_default();
                    warnings.push(why.clone());
                    reason = Some(why);
                }
                left.built.take()
            }
        }
    };
    let built_from_rows = built.as_ref().map(|b| b.rows);
    let filter = filter.or_else(|| built.map(|b| Arc::new(b.filter)));
    let key_ranges = pruning_ranges(&left, &plan, filter.is_some());
    let mut left_distinct = None;
    let sbbf = match left.distinct.map(|d| d.probe_keys()) {
        Some(Some((keys, n))) => {
            left_distinct = Some(n as u64);
            Some(Arc::new(SbbfTier::new(keys)))
        }
        Some(None) => {
            sbbf_reason = Some(format!(
                "the left side has more than {} distinct keys (--sbbf-max-keys): nearly every row group would have a false positive",
                job.sbbf_max_keys
            ));
            None
        }
        None => None,
    };

    // The right side, by the strategy the left side allows.
    let (written, mut strategy, prefilter) = match left.side {
        left::LeftSide::InMemory(rows) => {
            let (w, strategy, prefilter, probe_ms) =
                replicated::run(&ctx, rows, key_ranges, filter.clone(), sbbf.clone())?;
            // The left map and the table's build: all but the probe.
            times.build_ms = (t_build.elapsed().as_millis() as u64).saturating_sub(probe_ms);
            times.probe_ms = probe_ms;
            (w, strategy, prefilter)
        }
        left::LeftSide::Spilled(spill) => {
            times.build_ms = t_build.elapsed().as_millis() as u64;
            let prefilter = RightPrefilter::new(key_ranges, filter.clone(), None, ctx.hash_seed)
                .with_sbbf(sbbf.clone())
                .with_null_keys(ctx.null_keys_meet());
            let (w, strategy, (probe_ms, reduce_ms)) = reduce_side::run(&ctx, spill, &prefilter)?;
            times.probe_ms = probe_ms;
            times.reduce_ms = reduce_ms;
            (w, strategy, prefilter)
        }
    };
    strategy.reason = left.reason;
    if crate::cancel::requested() {
        return Err(Error::Cancelled);
    }
    if ctx.cancel.load(Ordering::Relaxed) {
        return Err(Error::Internal("the job was cancelled".into()));
    }
    let (unreadable, first_unreadable) = sbbf.as_ref().map_or((0, None), |t| t.unreadable());
    if let Some(first) = &first_unreadable {
        warnings.push(format!(
            "{unreadable} right row group(s) have a Parquet Bloom filter that cannot be read; they were read in full (first: {first})"
        ));
    }
    let mut report = JoinReport {
        created_by: crate::CREATED_BY,
        join_type: job.join_type,
        nulls_equal: job.nulls_equal,
        coalesce_keys: job.coalesce_keys,
        workers,
        strategy,
        parts: written.parts.len(),
        partition_by: plan.partitioning.as_ref().map(|p| p.names().to_vec()),
        partition_dirs: plan
            .partitioning
            .as_ref()
            .map(|_| crate::commit::partition::dirs_of(&written.parts)),
        partition_overflow_rows: plan.partitioning.as_ref().map(|_| written.overflow_rows),
        kept: None,
        join_where: job.join_where.as_ref().map(|w| report::JoinWhereReport {
            condition: w.text().to_string(),
            pushed: plan.pushed.clone().unwrap_or_default(),
            on_pairs: plan.condition.as_ref().map(|c| c.text().to_string()),
            counts: written.condition,
        }),
        left: ctx.left_counters.report(&plan.left, None),
        right: ctx.right_counters.report(&plan.right, Some(&prefilter)),
        prefilter: PrefilterReport {
            used: filter.is_some(),
            reason,
            filter: job.filter.as_ref().filter(|_| !own).map(|l| l.to_string()),
            built_from_rows,
            params: filter.as_ref().map(|f| *f.params()),
            tiers: prefilter.tiers(),
            // Past the Bloom filter without a left match: dropped by the keys tier, or
            // probed in vain.
            false_positives: if filter.is_some() {
                prefilter.dropped().1 + written.right_unmatched
            } else {
                0
            },
            observed_fpp: None,
            sbbf: SbbfReport {
                used: sbbf.is_some(),
                reason: sbbf_reason,
                left_distinct_keys: left_distinct,
                max_keys: job.sbbf_max_keys,
                unreadable,
            },
        },
        output: output_dir.location().to_string(),
        columns: plan
            .out_schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect(),
        rows_out: written.rows_out,
        bytes_out: written.bytes_out,
        times,
        peak_rss_bytes: None,
        warnings,
    };
    if report.prefilter.used {
        let fp = report.prefilter.false_positives;
        let negatives = fp + report.right.rows_dropped_by_filter;
        report.prefilter.observed_fpp = (negatives > 0).then(|| fp as f64 / negatives as f64);
    }
    Ok((report, written.parts))
}

/// For a join type that keeps right rows without a match: why `doing` (dropping right rows
/// before the join) would change the result.
fn keeps_unmatched_right(jt: JoinType, doing: &str) -> Option<String> {
    (!jt.allows_prefilter()).then(|| {
        format!(
            "a {} join keeps right rows without a match, so {doing} would change the result",
            jt.name()
        )
    })
}

/// The trained filter, to rule right files out by a right key of one partition column alone
/// while they are planned: only where the prefilter runs, a filter that does not cover the
/// left side fails the job (rather than being set aside), and the filter hashes keys natively
/// (a Spark filter's hashing depends on the planned left side).
fn key_filter(
    job: &JoinJob,
    loaded: &Option<(BloomFilter, codec::FilterMeta)>,
) -> Option<crate::plan::KeyFilter> {
    let (f, _) = loaded.as_ref()?;
    let [key] = job.right.keys.as_slice() else {
        return None;
    };
    (prefilter_off(job).is_none()
        && job.filter_mismatch == FilterMismatch::Error
        && job.spark_keys == crate::bloom::spark_keys::SparkKeyMode::Plain
        && f.params().layout.hashes_natively())
    .then(|| crate::plan::KeyFilter {
        key: key.clone(),
        filter: Arc::new(f.clone()),
        keep_null: job.nulls_equal,
    })
}

/// Why the Bloom filter cannot prefilter this job, if it cannot.
fn prefilter_off(job: &JoinJob) -> Option<String> {
    if let Some(why) = keeps_unmatched_right(job.join_type, "dropping them early") {
        Some(why)
    } else if !job.prefilter {
        Some("--no-prefilter".to_string())
    } else {
        None
    }
}

/// How to build the filter from a left side that goes to disk (no `--filter`): partials sized
/// for the most distinct keys the left inputs can hold ([`crate::map::prune::key_distinct_bound`],
/// the bound `train` sizes by). `Err(why not)` when `workers + 1` of them would not fit
/// `--memory-limit` or a quarter of the memory.
fn spill_filter(
    job: &JoinJob,
    plan: &JoinPlan,
    seed: u64,
) -> Result<std::result::Result<left::SpillFilter, String>> {
    let bound = crate::map::prune::key_distinct_bound(
        &plan.left.plan.files,
        &job.left.keys,
        plan.left.plan.num_rows(),
    );
    let fpp = job.filter_fpp;
    let workers = job.workers.get() as u64;
    let params = crate::train::fold_start(Layout::Split, bound, fpp, seed, workers as usize)
        .map_err(|_| {
            Error::param(
                "--filter-fpp",
                format!("{fpp:e} is out of a split-layout filter's reach for the left side's {bound} rows: ask for a larger rate, or pass a trained --filter"),
            )
        })?;
    let too_large = || {
        format!(
            "no filter could be built from the left side on disk ({workers} + 1 partial filters for up to {bound} keys would not fit --memory-limit {}, or a quarter of the memory): the join runs without a prefilter; train one (bloomjoin train) and pass it with --filter",
            crate::report::human_bytes(job.memory_limit)
        )
    };
    Ok(match params {
        Some(p) if p.num_bytes().saturating_mul(workers + 1) <= job.memory_limit => {
            Ok(left::SpillFilter {
                params: p,
                family: plan.left.family(),
                fpp,
            })
        }
        _ => Err(too_large()),
    })
}

/// Warnings about a filter trained on another key column or under another `--where` than
/// the join's left side.
fn filter_warnings(f: &BloomFilter, meta: &codec::FilterMeta, job: &JoinJob) -> Vec<String> {
    let mut warnings = Vec::new();
    let trained: Vec<String> = meta
        .key_columns_of(f.family())
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    if trained.iter().all(|n| !n.is_empty()) && trained != job.left.keys {
        let show = |k: &[String]| match k {
            [one] => one.clone(),
            many => format!("({})", many.join(", ")),
        };
        warnings.push(format!(
            "the filter was trained on column {:?}, the left key is {:?}",
            show(&trained),
            show(&job.left.keys)
        ));
    }
    let left_where = job.left.predicate.as_ref().map(|p| p.text().to_string());
    if meta.predicate != left_where && meta.predicate.is_some() {
        warnings.push(format!(
            "the filter was trained with --where {:?} but --left-where is {:?}: left keys outside the filter never match",
            meta.predicate.as_deref().unwrap_or_default(),
            left_where.as_deref().unwrap_or("")
        ));
    }
    warnings
}

/// Why the right files' own Parquet Bloom filters cannot prune this job's row groups, if
/// they cannot: only where the prefilter may drop right rows, and only when some right row
/// group has a filter on the key column.
fn sbbf_off(job: &JoinJob, plan: &JoinPlan) -> Option<String> {
    if let Some(why) = keeps_unmatched_right(job.join_type, "skipping row groups") {
        Some(why)
    } else if !job.sbbf {
        Some("--no-sbbf".to_string())
    } else if plan.right.arity() > 1 {
        Some(
            "a composite key: Parquet Bloom filters hold the values of one column, not tuples"
                .to_string(),
        )
    } else if matches!(
        plan.left.family(),
        KeyFamily::Timestamp | KeyFamily::TimestampTz | KeyFamily::Time
    ) {
        Some(format!(
            "{} keys: a Parquet Bloom filter holds the column's raw values in its own unit",
            plan.left.family()
        ))
    } else if !plan
        .right
        .plan
        .files
        .iter()
        .any(|f| key_has_sbbf(f, &plan.right))
    {
        Some(format!(
            "no right row group has a Parquet Bloom filter on {}",
            job.right.keys[0]
        ))
    } else {
        None
    }
}

/// Per key column, the left keys' range for the statistics tier: integer-like columns only,
/// and only when prefiltering.
fn pruning_ranges(
    left: &left::Left,
    plan: &JoinPlan,
    prefiltering: bool,
) -> Vec<Option<crate::map::prune::KeyRange>> {
    left.key_ranges
        .iter()
        .zip(&plan.left.families)
        .map(|(r, fam)| {
            r.filter(|_| {
                prefiltering
                    && matches!(
                        fam,
                        KeyFamily::Integer
                            | KeyFamily::Timestamp
                            | KeyFamily::TimestampTz
                            | KeyFamily::Time
                    )
            })
        })
        .collect()
}
