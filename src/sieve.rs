//! The `filter` job: MapReduce Design Patterns' *Bloom filtering*, a map-only job. Every map
//! worker streams its splits of the input through a trained filter (the broadcast, loaded
//! once) and writes the rows whose key it may hold to its own part, committed as a join's
//! output is (`_SUCCESS`, atomically). It is the join's right side alone: the same reader,
//! row filter and Parquet-Bloom-filter pruning, with no left side to check the survivors
//! against, so a false positive is kept (at the filter's rate).
//!
//! `--invert` keeps the other rows: those whose key the filter rules out, and those with a
//! null key, which no filter holds. The row filter then has nothing to skip (the rows kept
//! are most of them, usually), so every row is decoded and the filter probed after.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use arrow::array::{BooleanArray, RecordBatch};
use arrow::datatypes::{Field, FieldRef, Schema, SchemaRef};
use serde::Serialize;

use crate::bloom::codec;
use crate::bloom::spark_keys::{SparkKeyMode, SparkKeys};
use crate::bloom::{BloomFilter, BloomParams};
use crate::commit::partition::{OutputPartitioning, PartSink};
use crate::commit::{FileFormat, OutputDir, WriteMode};
use crate::error::{Error, Result};
use crate::expr::Predicate;
use crate::join::condition::Computed;
use crate::join::KeptReport;
use crate::join::SideJob;
use crate::map::prefilter::RightPrefilter;
use crate::map::task::{MapCounters, SideReader};
use crate::plan::side::{project_side, SideInput};
use crate::plan::SplitOptions;
use crate::report::human_bytes;
use crate::store::Location;

/// A checked `filter` job (see [`crate::cli::filter::Args`]).
#[derive(Debug, Clone)]
pub struct FilterJob {
    /// The trained filter.
    pub(crate) filter: Location,
    /// The input side: locations, key columns, `--where`, Hive partitions.
    pub(crate) input: SideJob,
    /// `--select`: its items, in order (`None`: every input column): a column, a column
    /// renamed (`column AS name`) or a computed column (`expression AS name`), resolved against
    /// the input's columns when it is planned.
    pub(crate) select: Option<Vec<String>>,
    /// How a filter in Spark's format hashed its keys.
    pub(crate) spark_keys: SparkKeyMode,
    /// `--spark-type`: the Spark types a filter in Spark's format hashed its keys as
    /// (`None`: the input key columns').
    pub(crate) spark_type: Option<String>,
    /// The output directory.
    pub(crate) output: Location,
    /// `--invert`: keep the rows whose key the filter rules out (and null keys) instead.
    pub(crate) invert: bool,
    /// What the run does with a committed output.
    pub(crate) write_mode: WriteMode,
    /// `--partition-by`: the output's Hive partition columns.
    pub(crate) partition_by: Option<Vec<String>>,
    /// The parts' codec and file limits.
    pub(crate) format: FileFormat,
    /// False-positive rate of the parts' Parquet Bloom filters on the key columns.
    pub(crate) bloom_fpp: f64,
    /// Map workers (one part each).
    pub(crate) workers: usize,
    /// Rows per decoded batch.
    pub(crate) batch_size: usize,
    /// Rows per split (`None`: [`crate::plan::SplitOptions::for_workers`]).
    pub(crate) split_rows: Option<u64>,
    /// Where to write the report JSON.
    pub(crate) report: Option<String>,
}

/// What a `filter` run did: the counters of its `--report`.
#[derive(Debug, Serialize)]
pub struct FilterReport {
    /// `bloomjoin <version>`.
    pub created_by: &'static str,
    /// The filter's location.
    pub filter: String,
    /// Its parameters.
    pub params: BloomParams,
    /// Map workers.
    pub workers: usize,
    /// `--invert`: the rows kept are those whose key the filter rules out, and null keys.
    pub invert: bool,
    /// A filter in Spark's format, which records no key types, read with `--spark-keys
    /// xxhash64`: the Spark types the input's keys were hashed as, and whence (`--spark-type`,
    /// or `input`: the input key columns' own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spark_types: Option<SparkTypes>,
    /// The input's counters, as a join's right side's (with `--invert`,
    /// `rows_dropped_by_filter` counts the rows whose key the filter may hold, and
    /// `rows_null_key` the rows kept for their null key).
    pub input: crate::join::SideReport,
    /// The output directory.
    pub output: String,
    /// Its columns.
    pub columns: Vec<String>,
    /// `--partition-by`: its Hive partition columns (the manifest's, for `--append`).
    pub partition_by: Option<Vec<String>>,
    /// Partition directories written (with `--partition-by`).
    pub partition_dirs: Option<usize>,
    /// What became of a committed output this run kept parts of (`--append`,
    /// `--overwrite-partitions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<crate::join::KeptReport>,
    /// Parts (files) written.
    pub parts: usize,
    /// Rows written: those whose key the filter may hold.
    pub rows_out: u64,
    /// Bytes of the parts.
    pub bytes_out: u64,
    /// Milliseconds: planning, the map stage, the commit, all.
    pub plan_ms: u64,
    /// The map stage.
    pub map_ms: u64,
    /// The commit.
    pub commit_ms: u64,
    /// Everything.
    pub total_ms: u64,
    /// Peak resident memory of the process, when known.
    pub peak_rss_bytes: Option<u64>,
}

/// The Spark types keys were hashed as for a filter in Spark's format (see
/// [`FilterReport::spark_types`]).
#[derive(Debug, Serialize)]
pub struct SparkTypes {
    /// One per key column (`int`, `decimal(12,2)`, ...).
    pub types: Vec<String>,
    /// `--spark-type`, or `input`.
    pub from: &'static str,
}

impl FilterReport {
    /// The human summary.
    pub fn summary(&self) -> String {
        let i = &self.input;
        let mut s = format!(
            "filtered {} by {} ({} workers, {} parts)\n",
            self.output, self.filter, self.workers, self.parts
        );
        if let Some(t) = &self.spark_types {
            s += &format!(
                "  keys   hashed as Spark's xxhash64 of {} ({}): the filter's format does not record the types it was trained on{}\n",
                t.types.join(", "),
                match t.from {
                    "input" => "the input key's own",
                    other => other,
                },
                match t.from {
                    "input" => "; a filter of another type's keys (INT 7 and 7.00 of DECIMAL(12,2) hash differently) needs --spark-type",
                    _ => "",
                }
            );
        }
        s += &format!(
            "  input  {} files, {} splits, {} rows read ({}), {} dropped by where{}, {} null keys dropped\n",
            i.files,
            i.splits,
            i.rows_read,
            human_bytes(i.bytes_read),
            i.rows_dropped_by_where,
            crate::report::where_skipped_note(i.row_groups_skipped_by_where, i.rows_skipped_by_where, i.rows_skipped_by_page_index),
            i.rows_dropped_null_key
        );
        if self.invert {
            s += &format!(
                "  filter {} rows dropped: the filter may hold their key (--invert; the rows of its false positives among them, at its rate); {} rows kept for their null key\n",
                i.rows_dropped_by_filter, i.rows_null_key
            );
            s += &format!(
                "  output {} rows, {}",
                self.rows_out,
                human_bytes(self.bytes_out)
            );
        } else {
            s += &format!(
                "  filter {} rows dropped by the filter\n",
                i.rows_dropped_by_filter
            );
            s += &format!(
                "  output {} rows, {} (the filter's false positives among them, at its rate)",
                self.rows_out,
                human_bytes(self.bytes_out)
            );
        }
        if let (Some(cols), Some(dirs)) = (&self.partition_by, self.partition_dirs) {
            s += &crate::join::partition_dirs_summary(cols, dirs);
        }
        if let Some(k) = &self.kept {
            s += &k.summary();
        }
        s += "\n";
        s += &format!(
            "  time   {} ms (plan {}, map {}, commit {})",
            self.total_ms, self.plan_ms, self.map_ms, self.commit_ms
        );
        if let Some(r) = self.peak_rss_bytes {
            s += &format!(", peak RSS {}", human_bytes(r));
        }
        s + "\n"
    }
}

/// Run the job: load the filter, plan the input, map every split through the filter into
/// one part per worker (or per worker and partition directory), commit.
pub fn run(job: &FilterJob, show_progress: bool) -> Result<FilterReport> {
    let t0 = Instant::now();
    crate::plan::refuse_filter_overlap(job, "--")?;
    let (filter, meta) = codec::read(&job.filter)?;
    let output = OutputDir::prepare(job.output.clone(), job.write_mode)?;
    let pool = crate::map::worker_pool(job.workers)?;
    let (mut report, committed, commit_ms) = output.stage_and_commit(|| {
        pool.install(|| map(job, filter, &meta, &output, show_progress, t0))
    })?;
    report.kept = committed.map(|c| KeptReport::of(c, job.write_mode));
    report.commit_ms = commit_ms;
    report.total_ms = t0.elapsed().as_millis() as u64;
    report.peak_rss_bytes = crate::sys::peak_rss();
    if let Some(path) = &job.report {
        crate::report::write_report(path, &report)?;
    }
    Ok(report)
}

/// Check `job` as a job file's step, before any step runs (its filter may not be written
/// yet): its locations, its input's columns and key, and its output.
pub fn check(job: &FilterJob) -> Result<()> {
    crate::plan::refuse_filter_overlap(job, "")?;
    plan(job, None)?;
    OutputDir::prepare(job.output.clone(), job.write_mode).map(|_| ())
}

/// One `--select` item, resolved against the input's columns.
enum Pick {
    /// An input column.
    Column(String),
    /// A computed column's expression.
    Computed(Predicate),
}

/// An output column in the map stage.
enum Output {
    /// The index of the input column in the side's batches.
    Column(usize),
    /// A computed column.
    Computed(Computed),
}

/// Resolve `--select` (its items; `None`: every column) against `all`, the input's columns:
/// each output column's name and what it is. An item that is a column's name (bare or
/// `"quoted"`) is that column, whatever it looks like; `x AS name` renames column `x` or, where
/// `x` is an expression of the `--where` language, computes it.
fn resolve_select(items: Option<&[String]>, all: &Schema) -> Result<Vec<(String, Pick)>> {
    let Some(items) = items else {
        return Ok(all
            .fields()
            .iter()
            .map(|f| (f.name().clone(), Pick::Column(f.name().clone())))
            .collect());
    };
    let column_of = |text: &str| -> Option<String> {
        if all.index_of(text).is_ok() {
            return Some(text.to_string());
        }
        let p = Predicate::parse(text, "--select").ok()?;
        let c = p.columns().first()?;
        (p.is_column() && all.index_of(c).is_ok()).then(|| c.clone())
    };
    let not_a_column = |c: &str| {
        let hint = crate::error::did_you_mean(c, all)
            .or_else(|| crate::plan::side::rename_hint(c))
            .unwrap_or_else(|| {
                format!(
                    "it has {}",
                    all.fields()
                        .iter()
                        .map(|f| f.name().as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            });
        Error::param(
            "--select",
            format!("{c:?} is not a column of the input ({hint})"),
        )
    };
    // One item that is no `*`: its output name and what it is.
    let resolve_one = |item: &str| -> Result<(String, Pick)> {
        Ok(if let Some(c) = column_of(item) {
            (c.clone(), Pick::Column(c))
        } else if let Some((expr, alias)) = crate::plan::side::split_alias(item) {
            match column_of(expr) {
                Some(c) => (alias, Pick::Column(c)),
                None => {
                    let p = Predicate::parse(expr, "--select")?;
                    if p.is_column() {
                        return Err(not_a_column(&p.columns()[0]));
                    }
                    if let Some(c) = p.columns().iter().find(|c| all.index_of(c).is_err()) {
                        let hint = crate::error::did_you_mean(c, all)
                            .map(|h| format!("; {h}"))
                            .unwrap_or_default();
                        return Err(Error::param(
                            "--select",
                            format!("no column {c:?} in the input (in {expr:?}){hint}"),
                        ));
                    }
                    (alias, Pick::Computed(p))
                }
            }
        } else if let Some((expr, _)) = crate::plan::side::computed_item(item) {
            return Err(Error::param(
                "--select",
                format!("{expr:?} computes a value: name its column, `{expr} AS name`"),
            ));
        } else {
            return Err(not_a_column(item));
        })
    };
    let mut picks: Vec<(String, Pick)> = Vec::with_capacity(items.len());
    for item in items {
        let mut one = Vec::new();
        // `*`, maybe `EXCLUDE`, `REPLACE` and `RENAME` lists: every input column but those
        // excluded, some computed or renamed in their place.
        if let Some(star) = crate::plan::side::star_item(item).filter(|_| column_of(item).is_none())
        {
            let star = star?;
            let lists = star.exclude.iter().map(|x| ("EXCLUDE", x));
            let lists = lists
                .chain(star.replace.iter().map(|(_, x)| ("REPLACE", x)))
                .chain(star.rename.iter().map(|(x, _)| ("RENAME", x)));
            for (list, x) in lists {
                if all.index_of(x).is_err() {
                    return Err(Error::param(
                        "--select",
                        format!("{x:?} of the {list} list is not a column of the input"),
                    ));
                }
            }
            // The pattern judges the names left after EXCLUDE, as DuckDB's does.
            let fields: Vec<&FieldRef> = (all.fields().iter())
                .filter(|f| !star.exclude.contains(f.name()))
                .collect();
            let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
            let keep = star.keeps(&names, item)?;
            for (f, _) in fields.into_iter().zip(keep).filter(|(_, k)| *k) {
                let name = f.name();
                if let Some((expr, _)) = star.replace.iter().find(|(_, x)| x == name) {
                    let quoted = crate::plan::side::quote_name(name);
                    let (_, pick) = resolve_one(&format!("{expr} AS {quoted}"))?;
                    one.push((name.clone(), pick));
                } else if let Some((_, to)) = star.rename.iter().find(|(x, _)| x == name) {
                    one.push((to.clone(), Pick::Column(name.clone())));
                } else {
                    one.push((name.clone(), Pick::Column(name.clone())));
                }
            }
        } else {
            one.push(resolve_one(item)?);
        }
        for (name, pick) in one {
            if let Some((_, first)) = picks.iter().find(|(n, _)| *n == name) {
                return Err(Error::param(
                    "--select",
                    match (first, &pick) {
                        (Pick::Column(a), Pick::Column(c)) if *a == name && *c == name => {
                            format!("column {name:?} is selected twice (name the second with `AS`)")
                        }
                        _ => {
                            format!(
                                "two output columns would be named {name:?}: rename one with `AS`"
                            )
                        }
                    },
                ));
            }
            picks.push((name, pick));
        }
    }
    Ok(picks)
}

/// The planned job: the input side and the output's shape.
struct FilterPlan {
    /// The input, its key columns first.
    side: SideInput,
    /// The output columns.
    columns: Vec<String>,
    /// Their schema.
    out_schema: SchemaRef,
    /// Each output column: where it is in the side's batches, or how it is computed.
    outputs: Vec<Output>,
    /// The Parquet Bloom filters the parts get.
    blooms: crate::bloom::sbbf::WriteBlooms,
    /// `--partition-by`.
    partitioning: Option<Arc<OutputPartitioning>>,
}

/// Plan the input and the output, and check the filter (`None`: a job file's train step
/// writes it, unread yet) against the key; then `--append` and `--overwrite-partitions`
/// against the committed output.
fn plan(
    job: &FilterJob,
    filter: Option<(&mut BloomFilter, &codec::FilterMeta)>,
) -> Result<FilterPlan> {
    let workers = job.workers;
    let plan = crate::plan::plan_with(&job.input.inputs, &job.input.input_options(), |t| {
        SplitOptions::for_job(job.split_rows, t, workers)
    })?;
    if plan.files.is_empty() {
        return Err(Error::Usage("no input files".into()));
    }
    let all = crate::plan::side::union_by_name(&plan);
    let picks = resolve_select(job.select.as_deref(), &all)?;
    // The columns handed on: those output, then those the computed columns read.
    let mut read: Vec<String> = Vec::new();
    for (_, p) in &picks {
        let names = match p {
            Pick::Column(c) => std::slice::from_ref(c),
            Pick::Computed(e) => e.columns(),
        };
        for c in names {
            if !read.contains(c) {
                read.push(c.clone());
            }
        }
    }
    let columns: Vec<String> = picks.iter().map(|(name, _)| name.clone()).collect();
    // The output columns that are key columns, under their output names (`UserId AS uid`).
    let key_outputs: Vec<String> = picks
        .iter()
        .filter(|(_, p)| matches!(p, Pick::Column(c) if job.input.keys.contains(c)))
        .map(|(name, _)| name.clone())
        .collect();
    let side = project_side("input", plan, &job.input, &read)?;
    if let Some((filter, meta)) = filter {
        let name = job.filter.to_string();
        crate::join::spark_keys_of(
            job.spark_keys,
            &name,
            &job.input.keys,
            &side,
            filter,
            job.spark_type.as_deref(),
        )?;
        crate::join::check_key_of(filter, meta, &name, "--key", &job.input.keys, &side)?;
    }
    let outputs: Vec<Output> = picks
        .into_iter()
        .map(|(_, p)| match p {
            Pick::Column(c) => Ok(Output::Column(side.schema.index_of(&c).expect("planned"))),
            Pick::Computed(e) => Computed::on(e, &side.schema).map(Output::Computed),
        })
        .collect::<Result<_>>()?;
    let out_schema = Schema::new(
        columns
            .iter()
            .zip(&outputs)
            .map(|(name, o)| {
                let (data_type, annotation) = match o {
                    Output::Column(i) => (
                        side.schema.field(*i).data_type(),
                        crate::read::logical::annotation(side.schema.field(*i)),
                    ),
                    Output::Computed(c) => (c.data_type(), c.annotation()),
                };
                crate::read::logical::annotate(
                    Field::new(name, data_type.clone(), true),
                    annotation,
                )
            })
            .collect::<Vec<_>>(),
    );
    let partitioning = job
        .partition_by
        .as_deref()
        .map(|names| OutputPartitioning::new(&out_schema, names))
        .transpose()?;
    let partition_by = job.partition_by.as_deref().unwrap_or_default();
    crate::commit::check_kept_parts(
        &job.output,
        job.write_mode,
        partition_by,
        &out_schema,
        "filter",
    )?;
    // The key columns in the files (a partition column's values are in the directory names).
    let blooms = crate::bloom::sbbf::WriteBlooms {
        columns: key_outputs
            .iter()
            .filter(|k| {
                !partition_by.contains(k)
                    && out_schema
                        .field_with_name(k)
                        .is_ok_and(|f| !f.data_type().is_nested())
            })
            .cloned()
            .collect(),
        fpp: job.bloom_fpp,
        max_distinct: Vec::new(),
    };
    Ok(FilterPlan {
        side,
        columns,
        out_schema: Arc::new(out_schema),
        outputs,
        blooms,
        partitioning: partitioning.map(Arc::new),
    })
}

/// `--dry-run`: check and plan `job` as [`run`] would, and describe the plan instead of
/// running it. Nothing is read but the inputs' footers and the filter (not even that when
/// `filter_from_step`: a job file's train step writes it), and nothing is written.
/// `dashes`: how errors name options (`--`, or nothing in a job file).
pub fn dry_run(
    job: &FilterJob,
    dashes: &str,
    filter_from_step: bool,
) -> Result<crate::report::DryRun> {
    use crate::report::human_bytes;
    crate::plan::refuse_filter_overlap(job, dashes)?;
    let mut loaded = match filter_from_step {
        false => Some(codec::read(&job.filter)?),
        true => None,
    };
    OutputDir::prepare(job.output.clone(), job.write_mode)?;
    let fresh = job.write_mode == WriteMode::Create
        || !job.output.child(crate::commit::SUCCESS).exists()?;
    let pool = crate::map::worker_pool(job.workers)?;
    let planned = pool.install(|| plan(job, loaded.as_mut().map(|(f, m)| (f, &*m))))?;
    let side = &planned.side;
    let warnings = side.wide_decimals.clone();
    let name = job.filter.to_string();
    let keeps = match job.invert {
        false => "keeps the rows whose key it may hold (its false positives' rows too, at its rate)",
        true => "--invert: keeps the rows whose key it rules out, and null keys (the rows of its false positives are dropped, at its rate)",
    };
    let (filter_line, filter_json) = match &loaded {
        Some((f, _)) => {
            let p = f.params();
            (
                format!(
                    "{name}: {} layout, {}, k={}, {} keys; {keeps}",
                    p.layout,
                    human_bytes(p.num_bytes()),
                    p.num_hashes,
                    f.family()
                ),
                serde_json::json!({
                    "location": name,
                    "source": "file",
                    "params": p,
                    "bytes": p.num_bytes(),
                    "key_family": f.family().to_string(),
                }),
            )
        }
        None => (
            format!("{name}, written by the train step (read when the filter runs); {keeps}"),
            serde_json::json!({"location": name, "source": "train_step"}),
        ),
    };
    let extent = side.plan.extent(|i| &side.files[i].decode);
    let output = crate::join::OutputPlan {
        location: &job.output,
        fresh,
        mode: job.write_mode,
        schema: &planned.out_schema,
        format: &job.format,
        bloom_columns: &planned.blooms.columns,
        partition_by: job.partition_by.as_deref(),
    };
    let mut summary =
        format!(
        "dry run (filter{}, {} workers): checked; nothing read but footers{}, nothing written\n",
        if job.invert { ", inverted" } else { "" },
        job.workers,
        if loaded.is_some() { " and the filter" } else { "" }
    );
    let skips = crate::join::where_skips(side, &job.input.predicate);
    summary += &crate::join::side_line(
        "input",
        side,
        &extent,
        &job.input.keys,
        &job.input.predicate,
        skips,
    );
    summary += &format!("  filter {filter_line}\n");
    summary += &format!("  output {}\n", output.line());
    if let Some(r) = &job.report {
        summary += &format!("  report {r} (written when the filter runs)\n");
    }
    let plan_json = serde_json::json!({
        "dry_run": "filter",
        "invert": job.invert,
        "workers": job.workers,
        "input": crate::join::side_json(side, &extent, &job.input.keys, &job.input.predicate, skips),
        "filter": filter_json,
        "output": output.json(),
        "report": job.report,
        "warnings": warnings,
    });
    Ok(crate::report::DryRun {
        summary,
        warnings,
        plan: plan_json,
    })
}

/// Plan the input, check the filter against its key, and write the staged parts; the
/// report (but for the commit) and the parts' names.
fn map(
    job: &FilterJob,
    mut filter: BloomFilter,
    meta: &codec::FilterMeta,
    output: &OutputDir,
    show_progress: bool,
    t0: Instant,
) -> Result<(FilterReport, Vec<String>)> {
    let workers = job.workers;
    let FilterPlan {
        side,
        columns,
        out_schema,
        outputs,
        blooms,
        partitioning,
    } = plan(job, Some((&mut filter, meta)))?;
    let hash_seed = crate::join::hash_seed(Some(&filter));
    let filter = Arc::new(filter);
    // Kept rows are those the filter may hold: its probe is the row filter, and the rows it
    // rules out are never decoded beyond their key. Inverted, every row is decoded and the
    // probe comes after.
    let prefilter = RightPrefilter::new(
        vec![None; side.arity()],
        Some(Arc::clone(&filter)).filter(|_| !job.invert),
        None,
        hash_seed,
    );
    let dropped_inverted = AtomicU64::new(0);
    let plan_ms = t0.elapsed().as_millis() as u64;
    let t_map = Instant::now();
    let counters = MapCounters::default();
    let cancel = AtomicBool::new(false);
    let bar = crate::progress::rows("input", side.plan.num_rows(), show_progress);
    let reader = SideReader {
        side: &side,
        stage: "map",
        counters: &counters,
        batch_size: job.batch_size,
        keep_null_keys: job.invert,
        nulls_equal: false,
        hash_seed,
        prefilter: Some(&prefilter).filter(|p| p.is_active()),
        cancel: &cancel,
        bar: &bar,
    };
    let next_part = AtomicUsize::new(0);
    let staging = output.staging();
    let open_parts = match &partitioning {
        Some(_) => crate::commit::partition::open_parts_per_task(
            crate::sys::open_files_limit(),
            workers,
            0,
        ),
        None => crate::commit::partition::MAX_OPEN_PARTS,
    };
    let sinks = reader.run(
        workers,
        || {
            let name = format!("part-{:05}", next_part.fetch_add(1, Ordering::Relaxed));
            PartSink::create(
                &staging,
                &name,
                &out_schema,
                partitioning.as_ref(),
                &blooms,
                &job.format,
                open_parts,
            )
        },
        |sink, batch: RecordBatch, hashes| {
            let batch = match job.invert {
                false => batch,
                true => {
                    let keys = side.key_columns(&batch);
                    let may_hold =
                        crate::map::prefilter::bloom_pass(&filter, hash_seed, &keys, &hashes)?;
                    // A null key is in no filter: its row is kept, whatever its placeholder
                    // hash probes to.
                    let keep = match crate::key::tuple_nulls(&keys) {
                        Some(valid) => &!&may_hold | &!valid.inner(),
                        None => !&may_hold,
                    };
                    let kept = keep.count_set_bits();
                    dropped_inverted.fetch_add((batch.num_rows() - kept) as u64, Ordering::Relaxed);
                    if kept == 0 {
                        return Ok(());
                    }
                    arrow::compute::filter_record_batch(&batch, &BooleanArray::new(keep, None))
                        .map_err(|e| Error::arrow("--invert", e))?
                }
            };
            let arrays = outputs
                .iter()
                .map(|o| match o {
                    Output::Column(i) => Ok(Arc::clone(batch.column(*i))),
                    Output::Computed(c) => c.evaluate_batch(&batch),
                })
                .collect::<Result<Vec<_>>>()?;
            let batch = RecordBatch::try_new(Arc::clone(&out_schema), arrays)
                .map_err(|e| Error::arrow("the output columns", e))?;
            sink.write(&batch)
        },
    )?;
    bar.finish_and_clear();
    let (mut parts, mut rows_out, mut bytes_out) = (Vec::new(), 0, 0);
    for sink in sinks {
        for p in sink.finish()? {
            rows_out += p.file.rows;
            bytes_out += p.file.bytes;
            parts.push(p.file.name);
        }
    }
    parts.sort();
    let mut input = counters.report(&side, Some(&prefilter));
    if job.invert {
        input.rows_dropped_by_filter = dropped_inverted.load(Ordering::Relaxed);
    }
    let report = FilterReport {
        created_by: crate::CREATED_BY,
        filter: job.filter.to_string(),
        params: *filter.params(),
        workers,
        invert: job.invert,
        spark_types: (filter.family() == crate::key::KeyFamily::Any)
            .then(|| match filter.params().spark_keys {
                SparkKeys::Plain => None,
                SparkKeys::Xxhash64(t) => Some(vec![t]),
                SparkKeys::Xxhash64Tuple => Some(filter.spark_types().to_vec()),
            })
            .flatten()
            .map(|types| SparkTypes {
                types: types.iter().map(|t| t.to_string()).collect(),
                from: match job.spark_type {
                    Some(_) => "--spark-type",
                    None => "input",
                },
            }),
        input,
        output: job.output.to_string(),
        columns,
        partition_by: job.partition_by.clone(),
        partition_dirs: partitioning
            .as_ref()
            .map(|_| crate::commit::partition::dirs_of(&parts)),
        kept: None,
        parts: parts.len(),
        rows_out,
        bytes_out,
        plan_ms,
        map_ms: t_map.elapsed().as_millis() as u64,
        commit_ms: 0,
        total_ms: 0,
        peak_rss_bytes: None,
    };
    Ok((report, parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::DataType;

    fn resolved(select: &str, all: &Schema) -> Result<Vec<(String, Option<String>)>> {
        let items: Vec<String> = crate::cli::join::select_items(select)
            .into_iter()
            .map(|i| i.trim().to_string())
            .collect();
        Ok(resolve_select(Some(&items), all)?
            .into_iter()
            .map(|(name, p)| match p {
                Pick::Column(c) => (name, Some(c)),
                Pick::Computed(_) => (name, None),
            })
            .collect())
    }

    #[test]
    fn select_items_are_columns_renames_or_computed() {
        let all = Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("a + b", DataType::Int64, true),
            Field::new("sold as new", DataType::Boolean, true),
            Field::new("x,y", DataType::Utf8, true),
        ]);
        let col = |n: &str, c: &str| (n.to_string(), Some(c.to_string()));
        assert_eq!(
            resolved(
                "id, a + b, sold as new, \"x,y\", id AS key, \"a + b\" AS ab, id * 2 AS twice, concat('a,b', id) AS \"c d\"",
                &all
            )
            .unwrap(),
            vec![
                col("id", "id"),
                col("a + b", "a + b"),
                col("sold as new", "sold as new"),
                col("x,y", "x,y"),
                col("key", "id"),
                col("ab", "a + b"),
                ("twice".to_string(), None),
                ("c d".to_string(), None),
            ]
        );
        assert_eq!(
            resolved("* EXCLUDE (\"x,y\", \"a + b\"), id * 2 AS twice", &all).unwrap(),
            vec![
                col("id", "id"),
                col("sold as new", "sold as new"),
                ("twice".to_string(), None)
            ]
        );
        assert_eq!(resolved("*", &all).unwrap().len(), 4);
        assert_eq!(
            resolved("* EXCLUDE id NOT LIKE '%a%'", &all).unwrap(),
            vec![col("x,y", "x,y")]
        );
        assert_eq!(
            resolved("COLUMNS('[+,]')", &all).unwrap(),
            vec![col("a + b", "a + b"), col("x,y", "x,y")]
        );
        // DuckDB's REPLACE and RENAME: the column computed or renamed in its place.
        assert_eq!(
            resolved(
                "* EXCLUDE \"x,y\" REPLACE (id * 2 AS id, \"a + b\" AS \"sold as new\") RENAME (\"a + b\" AS ab)",
                &all
            )
            .unwrap(),
            vec![
                ("id".to_string(), None),
                col("ab", "a + b"),
                col("sold as new", "a + b"),
            ]
        );
        // No select: every column, as it is.
        let every = resolve_select(None, &all).unwrap();
        assert_eq!(every.len(), 4);
        for (select, needle) in [
            ("id * 2", "computes a value: name its column"),
            (
                "nope",
                "\"nope\" is not a column of the input (it has id, a + b",
            ),
            ("idd", "did you mean \"id\""),
            (
                "nope * 2 AS n",
                "no column \"nope\" in the input (in \"nope * 2\")",
            ),
            ("id, id", "column \"id\" is selected twice"),
            ("id, 1 AS id", "two output columns would be named \"id\""),
            ("id as", "not a column of the input"),
            ("*, id", "column \"id\" is selected twice"),
            (
                "* EXCLUDE (nope)",
                "\"nope\" of the EXCLUDE list is not a column of the input",
            ),
            (
                "* AS all",
                "after a *, write EXCLUDE (columns), REPLACE (expression AS column) or RENAME",
            ),
            (
                "* REPLACE (1 AS nope)",
                "\"nope\" of the REPLACE list is not a column of the input",
            ),
            (
                "* RENAME (nope AS x)",
                "\"nope\" of the RENAME list is not a column of the input",
            ),
            (
                "* REPLACE (nope + 1 AS id)",
                "no column \"nope\" in the input (in \"nope + 1\")",
            ),
            (
                "* RENAME (id AS \"x,y\")",
                "two output columns would be named \"x,y\"",
            ),
            (
                "* EXCLUDE (id) RENAME (id AS k)",
                "in both the EXCLUDE and the RENAME list",
            ),
            ("* LIKE 'z%'", "no column's name matches"),
            ("COLUMNS('^z')", "no column's name matches"),
            ("* EXCLUDE (id) LIKE 'i%'", "no column's name matches"),
        ] {
            let e = resolved(select, &all).unwrap_err().to_string();
            assert!(e.contains(needle), "{select}: {e}");
        }
    }
}
