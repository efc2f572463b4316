//! The join job: broadcast filter, map-side prefilter, shuffle to reducers, reduce-side hash
//! join, atomic Parquet output.
//!
//! In: a [`JoinSpec`]. Out: `part-NNNNN.parquet` files and `_SUCCESS` under `output`, and a
//! [`JoinReport`]. The filter is loaded once and shared (`Arc`) by every map worker. Left
//! splits are read, filtered by `--left-where`, partitioned by a hash of the key and sent to R
//! reducer threads over bounded channels; when the left side is built, right splits are read
//! with the filter as a Parquet row filter on the key column (other columns are decoded only
//! for rows that pass), partitioned the same way and streamed through the reducers' hash
//! tables. The prefilter is used only for join types whose result it cannot change.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use arrow::array::{Array, BooleanArray, RecordBatch};
use arrow::compute::{cast_with_options, filter_record_batch, CastOptions};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use crossbeam_channel::{bounded, Receiver, Sender};
use parquet::arrow::arrow_reader::{ArrowPredicateFn, RowFilter};
use parquet::arrow::ProjectionMask;
use serde::{Deserialize, Serialize};

use crate::bloom::{codec, BloomFilter, BloomParams};
use crate::commit::OutputDir;
use crate::error::{Error, Result};
use crate::expr::Predicate;
use crate::key::{self, KeyFamily};
use crate::plan::{self, InputFile, Plan, SplitOptions};
use crate::read::{ReadOptions, SplitReader};
pub use crate::reduce::JoinType;
use crate::reduce::{JoinShape, OutColumn, ReduceCounts, Reducer, Side};
use crate::shuffle::{shuffle_seed, Partitioner};
use crate::store::Location;

/// The join job's options, shared by the command line and job files.
#[derive(Debug, Clone, clap::Args, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, rename_all = "kebab-case")]
pub struct JoinSpec {
    /// The Bloom filter trained on the left key (a path or an object-store URL).
    #[arg(long, value_name = "LOC", required_unless_present = "no_prefilter")]
    pub filter: Option<String>,
    /// Left (build, filtered-on) inputs: files, directories, globs or URLs.
    #[arg(long, required = true, num_args = 1.., value_name = "LOC")]
    pub left: Vec<String>,
    /// Left key column.
    #[arg(long, value_name = "COL")]
    pub left_key: String,
    /// Keep only left rows where this SQL condition holds.
    #[arg(long, value_name = "EXPR")]
    pub left_where: Option<String>,
    /// Right (big, prefiltered) inputs.
    #[arg(long, required = true, num_args = 1.., value_name = "LOC")]
    pub right: Vec<String>,
    /// Right key column.
    #[arg(long, value_name = "COL")]
    pub right_key: String,
    /// Keep only right rows where this SQL condition holds.
    #[arg(long, value_name = "EXPR")]
    pub right_where: Option<String>,
    /// Join type.
    #[arg(long = "type", value_enum, default_value = "inner")]
    #[serde(rename = "type")]
    pub join_type: JoinType,
    /// Output columns, comma-separated: `left.x`, `right.y` or unambiguous bare names
    /// [default: all left columns, then all right columns].
    #[arg(long, value_name = "COLS")]
    pub select: Option<String>,
    /// Number of reducers (output parts) [default: the number of workers].
    #[arg(long, short = 'r', value_name = "R")]
    pub reducers: Option<usize>,
    /// Map worker threads [default: all cores].
    #[arg(long, short, value_name = "W")]
    pub workers: Option<usize>,
    /// Output directory (a path or an object-store URL).
    #[arg(long, short)]
    pub output: String,
    /// Write the counters as JSON to this path.
    #[arg(long, value_name = "PATH")]
    pub report: Option<String>,
    /// Replace an existing output.
    #[arg(long)]
    pub overwrite: bool,
    /// Rows per decoded batch.
    #[arg(long, default_value_t = 8192, value_name = "ROWS")]
    pub batch_size: usize,
    /// Close a split once it holds this many rows [default: total rows / (4 x workers)].
    #[arg(long, value_name = "ROWS")]
    pub split_rows: Option<u64>,
    /// Memory for the build (left) side, e.g. 2GiB [default: half the machine's memory].
    #[arg(long, value_name = "SIZE")]
    pub memory_limit: Option<String>,
    /// Do not use the filter (for comparisons); the result is the same.
    #[arg(long)]
    pub no_prefilter: bool,
}

impl Default for JoinSpec {
    fn default() -> Self {
        JoinSpec {
            filter: None,
            left: Vec::new(),
            left_key: String::new(),
            left_where: None,
            right: Vec::new(),
            right_key: String::new(),
            right_where: None,
            join_type: JoinType::Inner,
            select: None,
            reducers: None,
            workers: None,
            output: String::new(),
            report: None,
            overwrite: false,
            batch_size: 8192,
            split_rows: None,
            memory_limit: None,
            no_prefilter: false,
        }
    }
}

/// Parse a size like `512MiB`, `2G`, `1.5GiB` or a number of bytes.
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

/// Counters of one side's map stage.
#[derive(Debug, Default, Serialize)]
pub struct SideReport {
    /// Input files.
    pub files: usize,
    /// Splits read.
    pub splits: usize,
    /// Rows in the row groups read (after skipping).
    pub rows_read: u64,
    /// Bytes fetched.
    pub bytes_read: u64,
    /// Row groups skipped by key min/max statistics.
    pub row_groups_skipped: u64,
    /// Rows in skipped row groups.
    pub rows_skipped_by_stats: u64,
    /// Rows dropped by the Bloom filter (right side).
    pub rows_dropped_by_filter: u64,
    /// Rows dropped by `--left-where` / `--right-where`.
    pub rows_dropped_by_where: u64,
    /// Rows dropped because their key is null and the join type does not keep them.
    pub rows_dropped_null_key: u64,
    /// Rows sent to reducers.
    pub rows_shuffled: u64,
}

/// About the prefilter.
#[derive(Debug, Serialize)]
pub struct PrefilterReport {
    /// Whether the filter was applied.
    pub used: bool,
    /// Why not, when it was not.
    pub reason: Option<String>,
    /// The filter's location.
    pub filter: Option<String>,
    /// The filter's parameters.
    pub params: Option<BloomParams>,
    /// Right rows that passed the filter but matched nothing.
    pub false_positives: u64,
    /// `false_positives / (false_positives + rows dropped by the filter)`.
    pub observed_fpp: Option<f64>,
}

/// Time per stage, in milliseconds.
#[derive(Debug, Default, Serialize)]
pub struct JoinTimes {
    /// Loading the filter, planning both sides.
    pub plan_ms: u64,
    /// Left map, shuffle and hash-table build.
    pub build_ms: u64,
    /// Right map (prefilter), shuffle and probe, part writing.
    pub probe_ms: u64,
    /// Moving parts into place, `_SUCCESS`.
    pub commit_ms: u64,
    /// Everything.
    pub total_ms: u64,
}

/// What the join job did: the counters of its `--report`.
#[derive(Debug, Serialize)]
pub struct JoinReport {
    /// `bloomjoin <version>`.
    pub created_by: &'static str,
    /// The join type.
    pub join_type: JoinType,
    /// Map workers.
    pub workers: usize,
    /// Reducers (parts).
    pub reducers: usize,
    /// Left side counters.
    pub left: SideReport,
    /// Right side counters.
    pub right: SideReport,
    /// The prefilter.
    pub prefilter: PrefilterReport,
    /// Output directory.
    pub output: String,
    /// Output columns.
    pub columns: Vec<String>,
    /// Rows written.
    pub rows_out: u64,
    /// Bytes written (Parquet parts).
    pub bytes_out: u64,
    /// Time per stage.
    pub times: JoinTimes,
    /// Peak resident memory of the process, bytes.
    pub peak_rss_bytes: Option<u64>,
    /// Warnings (e.g. the filter was trained on another column).
    pub warnings: Vec<String>,
}

impl JoinReport {
    /// The human summary with the counters.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "joined ({} join, {} workers, {} reducers) into {}\n",
            self.join_type.name(),
            self.workers,
            self.reducers,
            self.output
        );
        for (name, side) in [("left", &self.left), ("right", &self.right)] {
            s += &format!(
                "  {name:<6} {} files, {} splits, {} rows read ({}), {} dropped by where, {} null keys dropped, {} shuffled\n",
                side.files,
                side.splits,
                side.rows_read,
                crate::cli::human_bytes(side.bytes_read),
                side.rows_dropped_by_where,
                side.rows_dropped_null_key,
                side.rows_shuffled
            );
        }
        let p = &self.prefilter;
        if p.used {
            s += &format!(
                "  filter {} rows dropped by the filter, {} row groups ({} rows) skipped by statistics, {} false positives (observed fpp {})\n",
                self.right.rows_dropped_by_filter,
                self.right.row_groups_skipped,
                self.right.rows_skipped_by_stats,
                p.false_positives,
                p.observed_fpp.map_or("n/a".into(), |f| format!("{f:.4}"))
            );
        } else {
            s += &format!("  filter off: {}\n", p.reason.as_deref().unwrap_or(""));
        }
        s += &format!(
            "  output {} rows, {}\n",
            self.rows_out,
            crate::cli::human_bytes(self.bytes_out)
        );
        let t = &self.times;
        s += &format!(
            "  time   {} ms (plan {}, build {}, probe {}, commit {})",
            t.total_ms, t.plan_ms, t.build_ms, t.probe_ms, t.commit_ms
        );
        if let Some(r) = self.peak_rss_bytes {
            s += &format!(", peak RSS {}", crate::cli::human_bytes(r));
        }
        s += "\n";
        for w in &self.warnings {
            s += &format!("  warning: {w}\n");
        }
        s
    }
}

/// One side, planned and checked.
struct SideInput {
    plan: Plan,
    /// Columns of the shuffled batches (key first), with the first file's types.
    schema: SchemaRef,
    /// Per file: top-level column indices to decode and, per shuffled column, its position
    /// in the decoded batch.
    files: Vec<FileProjection>,
    predicate: Option<Predicate>,
    family: KeyFamily,
}

struct FileProjection {
    decode: Vec<usize>,
    key: usize,
    positions: Vec<usize>,
    where_positions: Vec<usize>,
}

fn same_class(a: &DataType, b: &DataType) -> bool {
    let class = |t: &DataType| -> u8 {
        let t = match t {
            DataType::Dictionary(_, v) => v.as_ref(),
            t => t,
        };
        if t.is_integer() {
            1
        } else if t.is_floating() {
            2
        } else if matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) {
            3
        } else if matches!(
            t,
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView
        ) {
            4
        } else {
            0
        }
    };
    a == b || (class(a) != 0 && class(a) == class(b))
}

fn plan_side(
    name: &str,
    inputs: &[String],
    key: &str,
    where_text: Option<&str>,
    columns: &[String],
    split: &(dyn Fn(u64) -> SplitOptions + Sync),
) -> Result<SideInput> {
    let plan = plan::plan(inputs, split)?;
    let predicate = where_text
        .map(|w| Predicate::parse(w, &format!("--{name}-where")))
        .transpose()?;
    let first = plan
        .files
        .first()
        .ok_or_else(|| Error::Usage(format!("no {name} input files")))?;
    // Shuffled columns: the key, then the output columns (each once).
    let mut names: Vec<String> = vec![key.to_string()];
    for c in columns {
        if !names.contains(c) {
            names.push(c.clone());
        }
    }
    let mut fields = Vec::with_capacity(names.len());
    let mut family = None;
    let mut files = Vec::with_capacity(plan.files.len());
    for f in &plan.files {
        let schema = f.schema();
        let file = f.location.to_string();
        let mut decode = Vec::new();
        let mut idx_of = |c: &str, what: &str| -> Result<usize> {
            let i = schema.index_of(c).map_err(|_| Error::Column {
                file: file.clone(),
                column: c.to_string(),
                reason: format!(
                    "no such column ({what} of --{name}; the file has {})",
                    schema
                        .fields()
                        .iter()
                        .map(|f| f.name().as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })?;
            decode.push(i);
            Ok(i)
        };
        let key_idx = idx_of(key, "key")?;
        let key_type = schema.field(key_idx).data_type();
        let fam = KeyFamily::check(key_type, &file, key)?;
        match family {
            None => family = Some(fam),
            Some(f0) if f0 != fam => {
                return Err(Error::Column {
                    file,
                    column: key.to_string(),
                    reason: format!(
                    "type {key_type} ({fam} keys) differs from the other {name} files ({f0} keys)"
                ),
                })
            }
            _ => {}
        }
        let mut col_idx = Vec::with_capacity(names.len());
        for (n, c) in names.iter().enumerate() {
            let i = idx_of(c, if n == 0 { "key" } else { "output column" })?;
            let dt = schema.field(i).data_type();
            if std::ptr::eq(f.as_ref(), first.as_ref()) {
                fields.push(Field::new(c, dt.clone(), true));
            } else if !same_class(fields[n].data_type(), dt) {
                return Err(Error::Column {
                    file: file.clone(),
                    column: c.clone(),
                    reason: format!(
                        "type {dt} differs from {} in {}: the {name} files' schemas do not match",
                        fields[n].data_type(),
                        first.location
                    ),
                });
            }
            col_idx.push(i);
        }
        let mut where_idx = Vec::new();
        if let Some(p) = &predicate {
            p.check(schema, &file)?;
            for c in p.columns() {
                where_idx.push(idx_of(c, "--where column")?);
            }
        }
        decode.sort_unstable();
        decode.dedup();
        let pos = |i: usize| decode.iter().position(|d| *d == i).expect("decoded");
        files.push(FileProjection {
            positions: col_idx.iter().map(|i| pos(*i)).collect(),
            where_positions: where_idx.iter().map(|i| pos(*i)).collect(),
            key: pos(key_idx),
            decode: decode.clone(),
        });
    }
    Ok(SideInput {
        plan,
        schema: Arc::new(Schema::new(fields)),
        files,
        predicate,
        family: family.expect("at least one file"),
    })
}

/// Resolve `--select` into per-side column lists and the output columns.
fn resolve_select(
    spec: &JoinSpec,
    left: &Schema,
    right: &Schema,
) -> Result<Vec<(Side, String, String)>> {
    let jt = spec.join_type;
    let mut picked: Vec<(Side, String)> = Vec::new();
    match &spec.select {
        None => {
            picked.extend(left.fields().iter().map(|f| (Side::Left, f.name().clone())));
            if jt.outputs_right() {
                picked.extend(
                    right
                        .fields()
                        .iter()
                        .map(|f| (Side::Right, f.name().clone())),
                );
            }
        }
        Some(list) => {
            for item in list.split(',').map(str::trim) {
                if item.is_empty() {
                    return Err(Error::param(
                        "--select",
                        format!("{list:?} has an empty column name"),
                    ));
                }
                let (side, name) = if let Some(n) = item.strip_prefix("left.") {
                    (Side::Left, n)
                } else if let Some(n) = item.strip_prefix("right.") {
                    (Side::Right, n)
                } else {
                    let in_l = left.index_of(item).is_ok();
                    let in_r = right.index_of(item).is_ok() && jt.outputs_right();
                    match (in_l, in_r) {
                        (true, false) => (Side::Left, item),
                        (false, true) => (Side::Right, item),
                        (true, true) => {
                            return Err(Error::param(
                                "--select",
                                format!("column {item:?} is on both sides: write left.{item} or right.{item}"),
                            ))
                        }
                        (false, false) => {
                            return Err(Error::param("--select", format!("no column {item:?} on either side")))
                        }
                    }
                };
                let schema = if side == Side::Left { left } else { right };
                if schema.index_of(name).is_err() {
                    return Err(Error::param(
                        "--select",
                        format!(
                            "no column {name:?} on the {} side",
                            if side == Side::Left { "left" } else { "right" }
                        ),
                    ));
                }
                if side == Side::Right && !jt.outputs_right() {
                    return Err(Error::param(
                        "--select",
                        format!(
                            "a {} join outputs left columns only, not right.{name}",
                            jt.name()
                        ),
                    ));
                }
                picked.push((side, name.to_string()));
            }
        }
    }
    // Output names: bare names; where a left and a right column share a name, the right one
    // gets `_right` (again, until the name is free).
    for (i, (side, name)) in picked.iter().enumerate() {
        if picked[..i].contains(&(*side, name.clone())) {
            return Err(Error::param(
                "--select",
                format!("column {name:?} is selected twice"),
            ));
        }
    }
    let mut out: Vec<(Side, String, String)> = picked
        .iter()
        .map(|(s, n)| (*s, n.clone(), n.clone()))
        .collect();
    for i in 0..out.len() {
        if out[i].0 != Side::Right {
            continue;
        }
        while out
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && o.2 == out[i].2)
        {
            out[i].2.push_str("_right");
        }
    }
    Ok(out)
}

enum Msg {
    Left(RecordBatch),
    LeftDone,
    Right(RecordBatch),
}

/// Shared counters of the map stages.
#[derive(Default)]
struct MapCounters {
    rows_read: AtomicU64,
    bytes_read: AtomicU64,
    rg_skipped: AtomicU64,
    rows_skipped: AtomicU64,
    dropped_filter: AtomicU64,
    dropped_where: AtomicU64,
    dropped_null: AtomicU64,
    shuffled: AtomicU64,
}

impl MapCounters {
    fn report(&self, files: usize, splits: usize) -> SideReport {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        SideReport {
            files,
            splits,
            rows_read: g(&self.rows_read),
            bytes_read: g(&self.bytes_read),
            row_groups_skipped: g(&self.rg_skipped),
            rows_skipped_by_stats: g(&self.rows_skipped),
            rows_dropped_by_filter: g(&self.dropped_filter),
            rows_dropped_by_where: g(&self.dropped_where),
            rows_dropped_null_key: g(&self.dropped_null),
            rows_shuffled: g(&self.shuffled),
        }
    }
}

/// Cast a decoded column to the side's (first file's) type when a later file differs.
fn conform(
    batch: &RecordBatch,
    fp: &FileProjection,
    schema: &SchemaRef,
    file: &str,
) -> Result<RecordBatch> {
    let mut cols = Vec::with_capacity(fp.positions.len());
    for (p, f) in fp.positions.iter().zip(schema.fields()) {
        let c = batch.column(*p);
        if c.data_type() == f.data_type() {
            cols.push(c.clone());
        } else {
            let opts = CastOptions {
                safe: false,
                ..Default::default()
            };
            cols.push(cast_with_options(c, f.data_type(), &opts).map_err(|e| {
                Error::arrow(
                    format!(
                        "{file}: column {:?} does not fit type {}",
                        f.name(),
                        f.data_type()
                    ),
                    e,
                )
            })?);
        }
    }
    RecordBatch::try_new(schema.clone(), cols)
        .map_err(|e| Error::arrow(format!("{file}: batch"), e))
}

/// Everything a map task needs.
struct MapCtx<'a> {
    side: &'a SideInput,
    tag: Side,
    counters: &'a MapCounters,
    partitioner: Partitioner,
    senders: &'a [Sender<Msg>],
    batch_size: usize,
    keep_null_keys: bool,
    cancel: &'a AtomicBool,
    /// Right side only: the prefilter.
    filter: Option<Arc<BloomFilter>>,
    /// Right side only: the left keys' range, for row-group skipping.
    key_range: Option<(i64, i64)>,
    /// Left side only: min and max of the left keys seen.
    min_max: Option<(&'a AtomicI64, &'a AtomicI64)>,
    bar: &'a indicatif::ProgressBar,
}

fn row_groups_to_read(
    ctx: &MapCtx,
    file: &InputFile,
    key_name: &str,
    rgs: std::ops::Range<usize>,
) -> Vec<usize> {
    let Some((lo, hi)) = ctx.key_range else {
        return rgs.collect();
    };
    let meta = file.parquet();
    let conv = match parquet::arrow::arrow_reader::statistics::StatisticsConverter::try_new(
        key_name,
        file.schema(),
        meta.file_metadata().schema_descr(),
    ) {
        Ok(c) => c,
        Err(_) => return rgs.collect(),
    };
    let groups: Vec<_> = rgs.clone().map(|i| meta.row_group(i)).collect();
    let (Ok(mins), Ok(maxs)) = (
        conv.row_group_mins(groups.iter().copied()),
        conv.row_group_maxes(groups.iter().copied()),
    ) else {
        return rgs.collect();
    };
    let as_i64 = |a: &dyn Array| -> Option<Vec<Option<i64>>> {
        let t = match a.data_type() {
            DataType::Dictionary(_, v) => v.as_ref().clone(),
            t => t.clone(),
        };
        if !(t.is_integer() || t == DataType::Date32) {
            return None;
        }
        let unpacked = arrow::compute::cast(a, &t).ok()?;
        let mut out = Vec::new();
        key::CanonicalKeys::try_new(unpacked.as_ref())
            .ok()
            .map(|k| match k {
                key::CanonicalKeys::Int(v) => {
                    out.extend((0..v.len()).map(|i| unpacked.is_valid(i).then_some(v[i])));
                    out
                }
                key::CanonicalKeys::Bytes(_) => Vec::new(),
            })
    };
    let (Some(mins), Some(maxs)) = (as_i64(mins.as_ref()), as_i64(maxs.as_ref())) else {
        return rgs.collect();
    };
    let mut keep = Vec::new();
    for (n, rg) in rgs.enumerate() {
        let disjoint = matches!((mins.get(n), maxs.get(n)), (Some(Some(mn)), Some(Some(mx))) if *mx < lo || *mn > hi);
        if disjoint {
            ctx.counters.rg_skipped.fetch_add(1, Ordering::Relaxed);
            ctx.counters
                .rows_skipped
                .fetch_add(file.row_group_rows(rg), Ordering::Relaxed);
        } else {
            keep.push(rg);
        }
    }
    keep
}

/// Read one split, filter it, shuffle its rows.
fn map_split(ctx: &MapCtx, split_index: usize, scratch: &mut Vec<u64>) -> Result<()> {
    let side = ctx.side;
    let split = &side.plan.splits[split_index];
    let file = side.plan.files[split.file].clone();
    let fp = &side.files[split.file];
    let file_name = file.location.to_string();
    let key_name = side.schema.field(0).name().clone();
    let row_groups = row_groups_to_read(ctx, &file, &key_name, split.row_groups.clone());
    if row_groups.is_empty() {
        ctx.bar.inc(split.rows);
        return Ok(());
    }
    let rows_in_groups: u64 = row_groups.iter().map(|rg| file.row_group_rows(*rg)).sum();
    ctx.counters
        .rows_read
        .fetch_add(rows_in_groups, Ordering::Relaxed);

    // The right side's row filter: the Bloom probe on the key column alone, then --right-where;
    // the other columns are decoded only for rows that pass both.
    let mut predicates: Vec<Box<dyn parquet::arrow::arrow_reader::ArrowPredicate>> = Vec::new();
    let parquet_schema = file.parquet().file_metadata().schema_descr();
    let key_top = fp.decode[fp.key];
    let dropped_filter = Arc::new(AtomicU64::new(0));
    let dropped_where = Arc::new(AtomicU64::new(0));
    if let Some(filter) = &ctx.filter {
        let filter = Arc::clone(filter);
        let dropped = Arc::clone(&dropped_filter);
        let keep_nulls = ctx.keep_null_keys;
        predicates.push(Box::new(ArrowPredicateFn::new(
            ProjectionMask::roots(parquet_schema, [key_top]),
            move |batch: RecordBatch| {
                let keys = filter
                    .hash_array(batch.column(0).as_ref())
                    .map_err(|e| arrow::error::ArrowError::ComputeError(e.to_string()))?;
                let mut hits = filter.probe_hashes(&keys.hashes);
                if keep_nulls {
                    if let Some(n) = &keys.nulls {
                        hits = &hits | &!n.inner();
                    }
                } else if let Some(n) = &keys.nulls {
                    hits = &hits & n.inner();
                }
                dropped.fetch_add(
                    (batch.num_rows() - hits.count_set_bits()) as u64,
                    Ordering::Relaxed,
                );
                Ok(BooleanArray::new(hits, None))
            },
        )));
    }
    if let Some(p) = &side.predicate {
        let p = p.clone();
        let dropped = Arc::clone(&dropped_where);
        let mut where_top: Vec<usize> = fp.where_positions.iter().map(|i| fp.decode[*i]).collect();
        where_top.sort_unstable();
        where_top.dedup();
        predicates.push(Box::new(ArrowPredicateFn::new(
            ProjectionMask::roots(parquet_schema, where_top),
            move |batch: RecordBatch| {
                let keep = p.evaluate(&batch).map_err(|e| {
                    arrow::error::ArrowError::ComputeError(crate::error::one_line(&e))
                })?;
                dropped.fetch_add(
                    (batch.num_rows() - keep.true_count()) as u64,
                    Ordering::Relaxed,
                );
                Ok(keep)
            },
        )));
    }
    let row_filter = (!predicates.is_empty()).then(|| RowFilter::new(predicates));
    let mut reader = SplitReader::with_row_groups(
        file.clone(),
        row_groups,
        ReadOptions {
            columns: fp.decode.clone(),
            batch_size: ctx.batch_size,
            row_filter,
        },
    )?;
    let mut read_rows = 0u64;
    for batch in reader.by_ref() {
        if ctx.cancel.load(Ordering::Relaxed) {
            return Ok(());
        }
        let batch = conform(&batch?, fp, &side.schema, &file_name)?;
        let batch = if ctx.keep_null_keys || batch.column(0).null_count() == 0 {
            batch
        } else {
            let valid = arrow::compute::is_not_null(batch.column(0))
                .map_err(|e| Error::arrow("null keys", e))?;
            let kept =
                filter_record_batch(&batch, &valid).map_err(|e| Error::arrow("null keys", e))?;
            ctx.counters.dropped_null.fetch_add(
                (batch.num_rows() - kept.num_rows()) as u64,
                Ordering::Relaxed,
            );
            kept
        };
        read_rows += batch.num_rows() as u64;
        if let Some((mn, mx)) = ctx.min_max {
            if let Ok(key::CanonicalKeys::Int(v)) =
                key::CanonicalKeys::try_new(batch.column(0).as_ref())
            {
                let col = batch.column(0);
                let (mut lo, mut hi) = (i64::MAX, i64::MIN);
                for (i, x) in v.iter().enumerate() {
                    if col.is_valid(i) {
                        lo = lo.min(*x);
                        hi = hi.max(*x);
                    }
                }
                mn.fetch_min(lo, Ordering::Relaxed);
                mx.fetch_max(hi, Ordering::Relaxed);
            }
        }
        ctx.counters
            .shuffled
            .fetch_add(batch.num_rows() as u64, Ordering::Relaxed);
        for (p, part) in ctx.partitioner.split(&batch, 0, scratch)? {
            let msg = match ctx.tag {
                Side::Left => Msg::Left(part),
                Side::Right => Msg::Right(part),
            };
            if ctx.senders[p].send(msg).is_err() {
                // The reducer is gone (it failed); its error is reported by the coordinator.
                return Ok(());
            }
        }
    }
    let _ = read_rows;
    ctx.bar.inc(split.rows);
    ctx.counters
        .bytes_read
        .fetch_add(reader.bytes_read(), Ordering::Relaxed);
    ctx.counters
        .dropped_filter
        .fetch_add(dropped_filter.load(Ordering::Relaxed), Ordering::Relaxed);
    ctx.counters
        .dropped_where
        .fetch_add(dropped_where.load(Ordering::Relaxed), Ordering::Relaxed);
    Ok(())
}

/// Run every split of one side on the pool.
fn run_map(ctx: &MapCtx, workers: usize) -> Result<()> {
    let stage = if ctx.tag == Side::Left {
        "left map"
    } else {
        "right map"
    };
    crate::map::run_splits(
        &ctx.side.plan,
        stage,
        workers,
        ctx.cancel,
        || Ok(Vec::new()),
        |scratch, i| map_split(ctx, i, scratch),
    )
    .map(|_| ())
}

/// A reducer thread's loop: build from left batches, probe with right batches.
fn reduce_loop(
    rx: Receiver<Msg>,
    mut reducer: Reducer,
    memory: &AtomicU64,
    limit: u64,
    cancel: &AtomicBool,
) -> Result<ReduceCounts> {
    let mut failed: Option<Error> = None;
    if let Err(e) = crate::fault::hit("reduce") {
        cancel.store(true, Ordering::Relaxed);
        failed = Some(e);
    }
    for msg in rx.iter() {
        if failed.is_some() || cancel.load(Ordering::Relaxed) {
            continue; // drain so that map workers never block on a dead reducer
        }
        let r = match msg {
            Msg::Left(b) => {
                // Kept until the end: compact first, so that neither the memory nor its
                // accounting includes the decoder's buffers the rows merely point into.
                let b = crate::reduce::compact_views(b);
                let size = b.get_array_memory_size() as u64;
                let total = memory.fetch_add(size, Ordering::Relaxed) + size;
                if total > limit {
                    Err(Error::param(
                        "--memory-limit",
                        format!(
                            "the left (build) side needs more than {} of memory: raise --memory-limit, narrow the left side with --left-where or --select, or swap the sides",
                            crate::cli::human_bytes(limit)
                        ),
                    ))
                } else {
                    reducer.push_left(b);
                    Ok(())
                }
            }
            Msg::LeftDone => reducer.build(),
            Msg::Right(b) => reducer.push_right(b),
        };
        if let Err(e) = r {
            cancel.store(true, Ordering::Relaxed);
            failed = Some(e);
        }
    }
    match failed {
        Some(e) => Err(e),
        None => reducer.finish(),
    }
}

impl JoinSpec {
    /// Check the options without reading anything: required options, ranges, sizes, the
    /// `--left-where`/`--right-where` syntax and the locations. [`run`] calls it first; job
    /// files call it for every step before running any.
    pub fn validate(&self) -> Result<()> {
        let spec = self;
        if spec.workers == Some(0) {
            return Err(Error::param("--workers", "must be at least 1"));
        }
        match spec.reducers {
            Some(0) => return Err(Error::param("--reducers", "must be at least 1")),
            Some(r) if r > 10_000 => {
                return Err(Error::param(
                    "--reducers",
                    format!("{r} is more than 10000"),
                ))
            }
            _ => {}
        }
        if spec.batch_size == 0 {
            return Err(Error::param("--batch-size", "must be at least 1"));
        }
        if spec.split_rows == Some(0) {
            return Err(Error::param("--split-rows", "must be at least 1"));
        }
        if spec.left.is_empty() {
            return Err(Error::param("--left", "is required"));
        }
        if spec.right.is_empty() {
            return Err(Error::param("--right", "is required"));
        }
        if spec.left_key.is_empty() {
            return Err(Error::param("--left-key", "is required"));
        }
        if spec.right_key.is_empty() {
            return Err(Error::param("--right-key", "is required"));
        }
        if spec.filter.is_none() && !spec.no_prefilter {
            return Err(Error::param(
                "--filter",
                "is required (or --no-prefilter to join without a filter)",
            ));
        }
        if let Some(s) = &spec.memory_limit {
            parse_size(s, "--memory-limit")?;
        }
        if let Some(w) = &spec.left_where {
            Predicate::parse(w, "--left-where")?;
        }
        if let Some(w) = &spec.right_where {
            Predicate::parse(w, "--right-where")?;
        }
        if let Some(f) = &spec.filter {
            Location::parse(f)?;
        }
        Location::parse(&spec.output)?;
        Ok(())
    }
}

/// Run the join job.
pub fn run(spec: &JoinSpec, show_progress: bool) -> Result<JoinReport> {
    let t0 = Instant::now();
    spec.validate()?;
    let workers = spec.workers.unwrap_or_else(crate::sys::default_workers);
    let reducers = spec.reducers.unwrap_or(workers);
    if reducers > 10_000 {
        return Err(Error::param(
            "--reducers",
            format!("{reducers} (one per worker) is more than 10000"),
        ));
    }
    let limit = match &spec.memory_limit {
        Some(s) => parse_size(s, "--memory-limit")?,
        None => crate::sys::total_memory().map_or(4 << 30, |m| m / 2),
    };
    let jt = spec.join_type;
    let mut warnings = Vec::new();

    // The broadcast: load the filter once.
    let use_filter = jt.allows_prefilter() && !spec.no_prefilter;
    let loaded = match &spec.filter {
        Some(f) => {
            let loc = Location::parse(f)?;
            Some(codec::read(&loc)?)
        }
        None => None,
    };
    let reason = if !jt.allows_prefilter() {
        Some(format!(
            "a {} join keeps right rows without a match, so dropping them early would change the result",
            jt.name()
        ))
    } else if spec.no_prefilter || loaded.is_none() {
        Some("--no-prefilter".to_string())
    } else {
        None
    };
    let output_dir = OutputDir::prepare(Location::parse(&spec.output)?, spec.overwrite)?;

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .thread_name(|i| format!("bloomjoin-map-{i}"))
        .build()
        .map_err(|e| Error::Internal(format!("cannot start {workers} worker threads: {e}")))?;
    pool.install(|| {
        let split = |total: u64| match spec.split_rows {
            Some(r) => SplitOptions { target_rows: r },
            None => SplitOptions::for_workers(total, workers),
        };
        // Resolve output columns against the first file of each side.
        let left_probe = plan::expand(&spec.left[0])?;
        let right_probe = plan::expand(&spec.right[0])?;
        let lf = InputFile::open(left_probe[0].clone())?;
        let rf = InputFile::open(right_probe[0].clone())?;
        let out = resolve_select(spec, lf.schema(), rf.schema())?;
        let left_cols: Vec<String> = out.iter().filter(|o| o.0 == Side::Left).map(|o| o.1.clone()).collect();
        let right_cols: Vec<String> = out.iter().filter(|o| o.0 == Side::Right).map(|o| o.1.clone()).collect();
        let left = plan_side("left", &spec.left, &spec.left_key, spec.left_where.as_deref(), &left_cols, &split)?;
        let right = plan_side("right", &spec.right, &spec.right_key, spec.right_where.as_deref(), &right_cols, &split)?;
        if left.family != right.family {
            return Err(Error::Usage(format!(
                "key family mismatch: --left-key {} holds {} keys, --right-key {} holds {} keys",
                spec.left_key, left.family, spec.right_key, right.family
            )));
        }
        let filter = match &loaded {
            Some((f, meta)) => {
                if f.check_family(right.family).is_err() {
                    return Err(Error::Usage(format!(
                        "key family mismatch: the filter {} holds {} keys, but --right-key {} holds {} keys",
                        spec.filter.as_deref().unwrap_or_default(),
                        f.family(),
                        spec.right_key,
                        right.family
                    )));
                }
                if let Some(c) = &meta.column {
                    if *c != spec.left_key {
                        warnings.push(format!(
                            "the filter was trained on column {c:?}, the left key is {:?}",
                            spec.left_key
                        ));
                    }
                }
                if meta.predicate != spec.left_where && meta.predicate.is_some() {
                    warnings.push(format!(
                        "the filter was trained with --where {:?} but --left-where is {:?}: left keys outside the filter never match",
                        meta.predicate.as_deref().unwrap_or_default(),
                        spec.left_where.as_deref().unwrap_or("")
                    ));
                }
                use_filter.then(|| Arc::new(f.clone()))
            }
            None => None,
        };
        let mut times = JoinTimes {
            plan_ms: t0.elapsed().as_millis() as u64,
            ..Default::default()
        };

        // Output schema and where each column comes from.
        let mut out_fields = Vec::new();
        let mut out_columns = Vec::new();
        for (side, src, name) in &out {
            let (schema, _) = match side {
                Side::Left => (&left.schema, ()),
                Side::Right => (&right.schema, ()),
            };
            let index = schema.index_of(src).expect("planned");
            out_fields.push(Field::new(name, schema.field(index).data_type().clone(), true));
            out_columns.push(OutColumn { side: *side, index });
        }
        let out_schema = Arc::new(Schema::new(out_fields));
        let seed = shuffle_seed(loaded.as_ref().map_or(0, |(f, _)| f.params().seed));
        let shape = JoinShape {
            join_type: jt,
            out_schema: out_schema.clone(),
            out_columns: Arc::new(out_columns),
            left_schema: left.schema.clone(),
            left_key: 0,
            right_key: 0,
            seed,
        };
        let part_names: Vec<String> = (0..reducers).map(|r| format!("part-{r:05}")).collect();
        let cancel = AtomicBool::new(false);
        let memory = AtomicU64::new(0);
        let left_counters = MapCounters::default();
        let right_counters = MapCounters::default();
        let (lo, hi) = (AtomicI64::new(i64::MAX), AtomicI64::new(i64::MIN));

        let result: Result<Vec<ReduceCounts>> = std::thread::scope(|scope| {
            let mut senders = Vec::with_capacity(reducers);
            let mut handles = Vec::with_capacity(reducers);
            for name in &part_names {
                let (tx, rx) = bounded::<Msg>(4);
                senders.push(tx);
                let reducer = Reducer::new(&shape, output_dir.staged(name))?;
                let (memory, cancel) = (&memory, &cancel);
                handles.push(
                    std::thread::Builder::new()
                        .name(format!("bloomjoin-reduce-{name}"))
                        .spawn_scoped(scope, move || {
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                reduce_loop(rx, reducer, memory, limit, cancel)
                            }))
                            .unwrap_or_else(|p| Err(Error::Internal(format!("a reducer panicked: {}", crate::map::panic_message(p.as_ref())))))
                            .map_err(|e| Error::Task {
                                stage: "reduce",
                                task: name.clone(),
                                source: Box::new(e),
                            })
                        })
                        .map_err(|e| Error::Internal(format!("cannot start a reducer: {e}")))?,
                );
            }
            let partitioner = Partitioner::new(reducers, seed);
            let t_build = Instant::now();
            let bar = crate::progress::rows("left", left.plan.num_rows(), show_progress);
            let left_ctx = MapCtx {
                side: &left,
                tag: Side::Left,
                counters: &left_counters,
                partitioner,
                senders: &senders,
                batch_size: spec.batch_size,
                keep_null_keys: jt.keeps_left(),
                cancel: &cancel,
                filter: None,
                key_range: None,
                min_max: Some((&lo, &hi)),
                bar: &bar,
            };
            let map_result = run_map(&left_ctx, workers).map(|()| {
                bar.finish_and_clear();
                for tx in &senders {
                    let _ = tx.send(Msg::LeftDone);
                }
                let key_range = (filter.is_some() && left.family == KeyFamily::Integer).then(|| {
                    (lo.load(Ordering::Relaxed), hi.load(Ordering::Relaxed))
                });
                let t_probe = Instant::now();
                let bar = crate::progress::rows("right", right.plan.num_rows(), show_progress);
                let right_ctx = MapCtx {
                    side: &right,
                    tag: Side::Right,
                    counters: &right_counters,
                    partitioner,
                    senders: &senders,
                    batch_size: spec.batch_size,
                    keep_null_keys: jt.keeps_right(),
                    cancel: &cancel,
                    filter: filter.clone(),
                    key_range,
                    min_max: None,
                    bar: &bar,
                };
                let r = run_map(&right_ctx, workers);
                bar.finish_and_clear();
                (t_probe, r)
            });
            drop(senders);
            let mut counts = Vec::with_capacity(reducers);
            let mut reduce_err = None;
            for h in handles {
                match h.join() {
                    Ok(Ok(c)) => counts.push(c),
                    Ok(Err(e)) => {
                        reduce_err.get_or_insert(e);
                    }
                    Err(_) => {
                        reduce_err.get_or_insert(Error::Internal("a reducer thread died".into()));
                    }
                }
            }
            let (t_probe, right_result) = map_result?;
            times.build_ms = t_probe.duration_since(t_build).as_millis() as u64;
            times.probe_ms = t_probe.elapsed().as_millis() as u64;
            right_result?;
            if let Some(e) = reduce_err {
                return Err(e);
            }
            Ok(counts)
        });
        let counts = match result {
            Ok(c) => c,
            Err(e) => {
                output_dir.cleanup_staging();
                return Err(e);
            }
        };

        let t_commit = Instant::now();
        let total = counts.iter().fold(ReduceCounts::default(), |mut a, c| {
            a.rows_out += c.rows_out;
            a.bytes_out += c.bytes_out;
            a.right_unmatched += c.right_unmatched;
            a
        });
        let mut report = JoinReport {
            created_by: crate::CREATED_BY,
            join_type: jt,
            workers,
            reducers,
            left: left_counters.report(left.plan.files.len(), left.plan.splits.len()),
            right: right_counters.report(right.plan.files.len(), right.plan.splits.len()),
            prefilter: PrefilterReport {
                used: filter.is_some(),
                reason,
                filter: spec.filter.clone(),
                params: loaded.as_ref().map(|(f, _)| *f.params()),
                false_positives: if filter.is_some() { total.right_unmatched } else { 0 },
                observed_fpp: None,
            },
            output: output_dir.location().to_string(),
            columns: out_schema.fields().iter().map(|f| f.name().clone()).collect(),
            rows_out: total.rows_out,
            bytes_out: total.bytes_out,
            times,
            peak_rss_bytes: None,
            warnings,
        };
        if report.prefilter.used {
            let fp = report.prefilter.false_positives;
            let negatives = fp + report.right.rows_dropped_by_filter;
            report.prefilter.observed_fpp = (negatives > 0).then(|| fp as f64 / negatives as f64);
        }
        let marker = serde_json::to_vec_pretty(&report).expect("report serializes");
        output_dir.commit(&part_names, bytes::Bytes::from(marker))?;
        report.times.commit_ms = t_commit.elapsed().as_millis() as u64;
        report.times.total_ms = t0.elapsed().as_millis() as u64;
        report.peak_rss_bytes = crate::sys::peak_rss();
        if let Some(path) = &spec.report {
            crate::train::write_report(path, &report)?;
        }
        Ok(report)
    })
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

    #[test]
    fn select_resolves_names_and_suffixes() {
        let l = Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("x", DataType::Utf8, true),
        ]);
        let r = Schema::new(vec![
            Field::new("uid", DataType::Int64, true),
            Field::new("x", DataType::Utf8, true),
        ]);
        let spec = |sel: Option<&str>, jt| JoinSpec {
            select: sel.map(str::to_string),
            join_type: jt,
            ..Default::default()
        };
        let names =
            |v: Vec<(Side, String, String)>| v.into_iter().map(|(_, _, n)| n).collect::<Vec<_>>();
        assert_eq!(
            names(resolve_select(&spec(None, JoinType::Inner), &l, &r).unwrap()),
            ["id", "x", "uid", "x_right"]
        );
        assert_eq!(
            names(resolve_select(&spec(None, JoinType::LeftAnti), &l, &r).unwrap()),
            ["id", "x"]
        );
        assert_eq!(
            names(
                resolve_select(&spec(Some("uid, right.x, left.x"), JoinType::Inner), &l, &r)
                    .unwrap()
            ),
            ["uid", "x_right", "x"]
        );
        // In a semi join only left columns exist, so a bare name is not ambiguous.
        assert_eq!(
            names(resolve_select(&spec(Some("x"), JoinType::LeftSemi), &l, &r).unwrap()),
            ["x"]
        );
        assert!(resolve_select(&spec(Some("x"), JoinType::Inner), &l, &r).is_err());
        assert!(resolve_select(&spec(Some("id,id"), JoinType::Inner), &l, &r).is_err());
        assert!(resolve_select(&spec(Some("left.uid"), JoinType::Inner), &l, &r).is_err());
        assert!(resolve_select(&spec(Some("a,,b"), JoinType::Inner), &l, &r).is_err());
    }
}
