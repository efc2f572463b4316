//! The `filter` job: MapReduce Design Patterns' *Bloom filtering*, a map-only job. Every map
//! worker streams its splits of the input through a trained filter (the broadcast, loaded
//! once) and writes the rows whose key it may hold to its own part, committed as a join's
//! output is (`_SUCCESS`, atomically). It is the join's right side alone: the same reader,
//! row filter and Parquet-Bloom-filter pruning, with no left side to check the survivors
//! against, so a false positive is kept (at the filter's rate).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use arrow::array::RecordBatch;
use arrow::datatypes::{Field, Schema, SchemaRef};
use serde::Serialize;

use crate::bloom::codec;
use crate::bloom::spark_keys::SparkKeyMode;
use crate::bloom::BloomParams;
use crate::commit::partition::PartSink;
use crate::commit::{FileFormat, OutputDir, PartWriter, WriteMode};
use crate::error::{Error, Result};
use crate::join::SideJob;
use crate::map::prefilter::RightPrefilter;
use crate::map::task::{MapCounters, SideReader};
use crate::plan::side::project_side;
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
    /// `--select`: the output columns, in order (`None`: every input column).
    pub(crate) select: Option<Vec<String>>,
    /// How a filter in Spark's format hashed its keys.
    pub(crate) spark_keys: SparkKeyMode,
    /// The output directory.
    pub(crate) output: Location,
    /// What the run does with a committed output.
    pub(crate) write_mode: WriteMode,
    /// The parts' codec and file limits.
    pub(crate) format: FileFormat,
    /// False-positive rate of the parts' Parquet Bloom filters on the key columns.
    pub(crate) bloom_fpp: f64,
    /// Map workers (one part each).
    pub(crate) workers: usize,
    /// Rows per decoded batch.
    pub(crate) batch_size: usize,
    /// Rows per split (`None`: about four splits per worker).
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
    /// The input's counters, as a join's right side's.
    pub input: crate::join::SideReport,
    /// The output directory.
    pub output: String,
    /// Its columns.
    pub columns: Vec<String>,
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

impl FilterReport {
    /// The human summary.
    pub fn summary(&self) -> String {
        let i = &self.input;
        let mut s = format!(
            "filtered {} by {} ({} workers, {} parts)\n",
            self.output, self.filter, self.workers, self.parts
        );
        s += &format!(
            "  input  {} files, {} splits, {} rows read ({}), {} dropped by where, {} null keys dropped\n",
            i.files,
            i.splits,
            i.rows_read,
            human_bytes(i.bytes_read),
            i.rows_dropped_by_where,
            i.rows_dropped_null_key
        );
        s += &format!(
            "  filter {} rows dropped by the filter\n",
            i.rows_dropped_by_filter
        );
        s += &format!(
            "  output {} rows, {} (the filter's false positives among them, at its rate)\n",
            self.rows_out,
            human_bytes(self.bytes_out)
        );
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
/// one part per worker, commit.
pub fn run(job: &FilterJob, show_progress: bool) -> Result<FilterReport> {
    let t0 = Instant::now();
    crate::plan::refuse_filter_overlap(job)?;
    let (filter, meta) = codec::read(&job.filter)?;
    let output = OutputDir::prepare(job.output.clone(), job.write_mode)?;
    let pool = crate::map::worker_pool(job.workers)?;
    let (mut report, _, commit_ms) = output.stage_and_commit(|| {
        pool.install(|| map(job, filter, &meta, &output, show_progress, t0))
    })?;
    report.commit_ms = commit_ms;
    report.total_ms = t0.elapsed().as_millis() as u64;
    report.peak_rss_bytes = crate::sys::peak_rss();
    if let Some(path) = &job.report {
        crate::report::write_report(path, &report)?;
    }
    Ok(report)
}

/// Plan the input, check the filter against its key, and write the staged parts; the
/// report (but for the commit) and the parts' names.
fn map(
    job: &FilterJob,
    mut filter: crate::bloom::BloomFilter,
    meta: &codec::FilterMeta,
    output: &OutputDir,
    show_progress: bool,
    t0: Instant,
) -> Result<(FilterReport, Vec<String>)> {
    let workers = job.workers;
    let plan = crate::plan::plan_with(&job.input.inputs, &job.input.input_options(), |t| {
        SplitOptions::for_job(job.split_rows, t, workers)
    })?;
    if plan.files.is_empty() {
        return Err(Error::Usage("no input files".into()));
    }
    let all = crate::plan::side::union_by_name(&plan);
    let columns: Vec<String> = match &job.select {
        Some(cols) => {
            for c in cols {
                if all.field_with_name(c).is_err() {
                    return Err(Error::param(
                        "--select",
                        format!(
                            "{c:?} is not a column of the input ({})",
                            match crate::error::did_you_mean(c, &all) {
                                Some(hint) => hint,
                                None => format!(
                                    "it has {}",
                                    all.fields()
                                        .iter()
                                        .map(|f| f.name().as_str())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ),
                            }
                        ),
                    ));
                }
            }
            cols.clone()
        }
        None => all.fields().iter().map(|f| f.name().clone()).collect(),
    };
    let side = project_side("input", plan, &job.input, &columns)?;
    let name = job.filter.to_string();
    crate::join::spark_keys_of(job.spark_keys, &name, &job.input.keys, &side, &mut filter)?;
    crate::join::check_key_of(&filter, meta, &name, "--key", &job.input.keys, &side)?;
    let out_schema: SchemaRef = Arc::new(Schema::new(
        columns
            .iter()
            .map(|c| {
                let f = side.schema.field_with_name(c).expect("planned");
                Field::new(c, f.data_type().clone(), true)
            })
            .collect::<Vec<_>>(),
    ));
    let indices: Vec<usize> = columns
        .iter()
        .map(|c| side.schema.index_of(c).expect("planned"))
        .collect();
    let blooms = crate::bloom::sbbf::WriteBlooms {
        columns: job
            .input
            .keys
            .iter()
            .filter(|k| {
                out_schema
                    .field_with_name(k)
                    .is_ok_and(|f| !f.data_type().is_nested())
            })
            .cloned()
            .collect(),
        fpp: job.bloom_fpp,
        max_distinct: Vec::new(),
    };
    let hash_seed = crate::join::hash_seed(Some(&filter));
    let filter = Arc::new(filter);
    let prefilter = RightPrefilter::new(
        vec![None; side.arity()],
        Some(Arc::clone(&filter)),
        None,
        hash_seed,
    );
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
        keep_null_keys: false,
        nulls_equal: false,
        hash_seed,
        prefilter: Some(&prefilter).filter(|p| p.is_active()),
        cancel: &cancel,
        bar: &bar,
    };
    let next_part = AtomicUsize::new(0);
    let staging = output.staging();
    let sinks = reader.run(
        workers,
        || {
            let name = format!("part-{:05}", next_part.fetch_add(1, Ordering::Relaxed));
            let writer =
                PartWriter::create(&staging, &name, out_schema.clone(), &blooms, &job.format)?;
            Ok(PartSink::One { writer })
        },
        |sink, batch: RecordBatch, _hashes| {
            let batch = batch
                .project(&indices)
                .map_err(|e| Error::arrow("projecting the output columns", e))?;
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
    let report = FilterReport {
        created_by: crate::CREATED_BY,
        filter: name,
        params: *filter.params(),
        workers,
        input: counters.report(&side, Some(&prefilter)),
        output: job.output.to_string(),
        columns,
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
