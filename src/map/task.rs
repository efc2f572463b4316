//! The join's map task: read one split of a side with its row filter (the right side's
//! prefilter tiers and the side's `--where`), bring the batches to the side's schema, drop
//! null keys the join type cannot keep, hash every key once, and hand `(batch, hashes)` to
//! the strategy's sink (build, probe or shuffle).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::compute::{cast_with_options, filter_record_batch, CastOptions};
use arrow::datatypes::SchemaRef;
use parquet::arrow::arrow_reader::{ArrowPredicate, ArrowPredicateFn, RowFilter};
use parquet::arrow::ProjectionMask;

use super::prefilter::{FileVerdict, HashCarry, RightPrefilter};
use crate::error::{Error, Result};
use crate::join::SideReport;
use crate::key;
use crate::plan::side::{FileProjection, SideInput, Source};
use crate::read::ahead::{Prefetched, ReadAhead};
use crate::read::{ReadOptions, SplitReader};

/// Shared counters of one side's map stage.
#[derive(Default)]
pub(crate) struct MapCounters {
    /// Rows of the row groups read (counted when a split starts).
    pub rows_read: AtomicU64,
    /// Rows of the splits finished, read or skipped (counted when a split ends): how far
    /// the side has got, never ahead of it.
    pub rows_finished: AtomicU64,
    bytes_read: AtomicU64,
    /// Of those, bytes fetched ahead of the worker ([`crate::read::ahead`]).
    pub bytes_read_ahead: AtomicU64,
    /// Row groups skipped by key statistics.
    pub rg_skipped: AtomicU64,
    /// Rows in those row groups.
    pub rows_skipped: AtomicU64,
    /// Compressed bytes of the decoded columns of those row groups.
    pub bytes_skipped_stats: AtomicU64,
    /// Row groups skipped by the statistics of the `--where` columns.
    pub rg_skipped_where: AtomicU64,
    /// Rows in those row groups, and in the pages the page index ruled out.
    pub rows_skipped_where: AtomicU64,
    /// Of those, the rows in pages ruled out in the row groups read.
    pub rows_skipped_pages: AtomicU64,
    /// Row groups skipped by the right files' own Parquet Bloom filters.
    pub rg_skipped_sbbf: AtomicU64,
    /// Rows in those row groups.
    pub rows_skipped_sbbf: AtomicU64,
    /// Compressed bytes of the decoded columns of those row groups.
    pub bytes_skipped_sbbf: AtomicU64,
    /// Row groups whose Parquet Bloom filter was probed.
    pub sbbf_probed: AtomicU64,
    /// Bytes of Parquet Bloom filters fetched.
    pub sbbf_bytes: AtomicU64,
    /// Files not read (but for their footers, at planning) because the key tiers ruled out
    /// their one key (a key of partition columns alone).
    pub files_skipped_by_key: AtomicU64,
    /// Rows of those files.
    pub rows_skipped_by_key: AtomicU64,
    dropped_where: AtomicU64,
    dropped_null: AtomicU64,
    /// Rows handed on with a null key (in any column): those the join type keeps, and under
    /// `--nulls-equal` those that may match.
    null_keys: AtomicU64,
    mapped: AtomicU64,
}

impl MapCounters {
    /// Rows handed on so far (past `--where` and, on the right, the prefilter).
    pub(crate) fn rows_mapped(&self) -> u64 {
        self.mapped.load(Ordering::Relaxed)
    }

    /// Of those, rows with a null key (in any column).
    pub(crate) fn null_key_rows(&self) -> u64 {
        self.null_keys.load(Ordering::Relaxed)
    }

    /// The side's report (`prefilter`: the right side's tiers, which count their own drops).
    pub(crate) fn report(
        &self,
        side: &SideInput,
        prefilter: Option<&RightPrefilter>,
    ) -> SideReport {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let (by_filter, by_keys) = prefilter.map_or((0, 0), |p| p.dropped());
        SideReport {
            files: side.plan.files_read(),
            files_pruned_by_partition: side.plan.files_pruned,
            files_pruned_by_partition_key: side.plan.files_pruned_by_key,
            splits: side.plan.splits.len(),
            rows_read: g(&self.rows_read),
            bytes_read: g(&self.bytes_read) + g(&self.sbbf_bytes),
            bytes_read_ahead: g(&self.bytes_read_ahead),
            row_groups_skipped: g(&self.rg_skipped),
            rows_skipped_by_stats: g(&self.rows_skipped),
            bytes_skipped_by_stats: g(&self.bytes_skipped_stats),
            row_groups_skipped_by_where: g(&self.rg_skipped_where),
            rows_skipped_by_where: g(&self.rows_skipped_where),
            rows_skipped_by_page_index: g(&self.rows_skipped_pages),
            row_groups_skipped_by_sbbf: g(&self.rg_skipped_sbbf),
            rows_skipped_by_sbbf: g(&self.rows_skipped_sbbf),
            bytes_skipped_by_sbbf: g(&self.bytes_skipped_sbbf),
            row_groups_sbbf_probed: g(&self.sbbf_probed),
            files_skipped_by_partition_key: g(&self.files_skipped_by_key),
            rows_skipped_by_partition_key: g(&self.rows_skipped_by_key),
            sbbf_bytes_read: g(&self.sbbf_bytes),
            rows_dropped_by_filter: by_filter,
            rows_dropped_by_keys: by_keys,
            rows_dropped_by_where: g(&self.dropped_where),
            rows_dropped_null_key: g(&self.dropped_null)
                + prefilter.map_or(0, |p| p.dropped_null()),
            rows_null_key: g(&self.null_keys),
            rows_mapped: g(&self.mapped),
        }
    }
}

/// Cast a decoded column to the side's (first file's) type when a later file differs, or when
/// it was read in its stored form ([`crate::read::stored_form`]): the rows the row filter kept
/// are widened or gathered here.
fn conform(
    batch: &RecordBatch,
    fp: &FileProjection,
    schema: &SchemaRef,
    file: &str,
) -> Result<RecordBatch> {
    let mut cols = Vec::with_capacity(fp.positions.len());
    for (source, f) in fp.positions.iter().zip(schema.fields()) {
        let c = match source {
            Source::Decoded(p) => batch.column(*p),
            // A column of the side that this file lacks.
            Source::Null => {
                cols.push(arrow::array::new_null_array(
                    f.data_type(),
                    batch.num_rows(),
                ));
                continue;
            }
            // Every file's partition column has the side's type.
            Source::Partition(value) => {
                cols.push(crate::plan::hive::repeat(value, batch.num_rows())?);
                continue;
            }
        };
        if c.data_type() == f.data_type() {
            cols.push(c.clone());
        } else {
            let opts = CastOptions {
                safe: false,
                ..Default::default()
            };
            // A value the side's type cannot hold (a timestamp in seconds beyond the years
            // of nanoseconds) is bad input: exit 2, naming the file and the column.
            cols.push(
                cast_with_options(c, f.data_type(), &opts).map_err(|e| Error::Column {
                    file: file.to_string(),
                    column: f.name().clone(),
                    reason: format!(
                        "does not fit type {} (the type of the side's other files): {}",
                        f.data_type(),
                        crate::error::one_line(&e)
                    ),
                })?,
            );
        }
    }
    let opts = arrow::array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(schema.clone(), cols, &opts)
        .map_err(|e| Error::arrow(format!("{file}: batch"), e))
}

/// Reads the splits of one side for the join.
pub(crate) struct SideReader<'a> {
    /// The planned side.
    pub side: &'a SideInput,
    /// `left map` or `right map`, for errors.
    pub stage: &'static str,
    /// Its counters.
    pub counters: &'a MapCounters,
    /// Rows per decoded batch.
    pub batch_size: usize,
    /// Whether rows with a null key go on (outer joins keep them, and `--nulls-equal` joins
    /// where they may match).
    pub keep_null_keys: bool,
    /// `--nulls-equal`: a key with a null gets its null-aware hash
    /// ([`key::hash_null_rows`]), the same on both sides for keys that are not distinct.
    pub nulls_equal: bool,
    /// Seed of the base key hash every row carries.
    pub hash_seed: u64,
    /// Right side: the prefilter tiers.
    pub prefilter: Option<&'a RightPrefilter>,
    /// Set when the job fails; stops the workers.
    pub cancel: &'a AtomicBool,
    /// Progress.
    pub bar: &'a indicatif::ProgressBar,
}

impl SideReader<'_> {
    /// A guard on the carried hashes: the first and last rows' keys hash to what came along.
    /// Rows are in step or the job fails; a hash out of step would send a row to the wrong
    /// bucket of the table, and the join would miss its matches without a word.
    fn check_carried(&self, batch: &RecordBatch, hashes: &[u64], file: &str) -> Result<()> {
        let mut one = Vec::with_capacity(1);
        for i in [0, batch.num_rows() - 1] {
            let row = batch.slice(i, 1);
            self.hash_keys(&self.side.key_columns(&row), &mut one)?;
            if one[0] != hashes[i] {
                return Err(Error::Internal(format!(
                    "{file}: carried key hash of row {i} does not match its key"
                )));
            }
        }
        Ok(())
    }

    /// The base hashes of the rows of key columns `cols` into `out`: null-aware under
    /// `--nulls-equal`.
    fn hash_keys(&self, cols: &[&dyn arrow::array::Array], out: &mut Vec<u64>) -> Result<()> {
        key::hash_tuple_into(cols, self.hash_seed, out)?;
        if self.nulls_equal {
            key::hash_null_rows(cols, self.hash_seed, out)?;
        }
        Ok(())
    }

    /// Run every split on `workers` threads of the current pool. Each worker starts from
    /// `init()` and feeds its batches to `sink(acc, batch, hashes)`; returns the workers'
    /// accumulators.
    pub(crate) fn run<A: Send>(
        &self,
        workers: usize,
        init: impl Fn() -> Result<A> + Sync,
        sink: impl Fn(&mut A, RecordBatch, Vec<u64>) -> Result<()> + Sync,
    ) -> Result<Vec<A>> {
        let ahead = ReadAhead::new(&self.side.plan, |i| self.ahead_ranges(i, false))?
            .or_all(|i| self.ahead_ranges(i, true));
        let accs = super::run_splits(
            &self.side.plan,
            self.stage,
            workers,
            self.cancel,
            init,
            |acc, i| self.read_split(i, ahead.take(i), &mut |b, h| sink(acc, b, h)),
        )?;
        self.counters
            .bytes_read_ahead
            .fetch_add(ahead.served(), Ordering::Relaxed);
        Ok(accs)
    }

    /// The right side's prefilter when its key tiers run: they let a null key through only
    /// under `--nulls-equal` ([`RightPrefilter::null_keys_pass`]), so otherwise not when the
    /// join keeps null keys.
    fn key_tiers(&self) -> Option<&RightPrefilter> {
        self.prefilter
            .filter(|p| p.has_key_tier() && (!self.keep_null_keys || p.null_keys_pass()))
    }

    /// The key tiers, for a file whose key is all partition columns: its rows all hold one
    /// key, probed once for the whole file.
    fn whole_file_key(&self, fp: &FileProjection) -> Option<&RightPrefilter> {
        self.key_tiers().filter(|_| fp.keys.is_empty())
    }

    /// The key names of the handed-on batches, in key order.
    fn key_names(&self) -> Vec<&str> {
        self.side.schema.fields()[..self.side.arity()]
            .iter()
            .map(|f| f.name().as_str())
            .collect()
    }

    /// What [`Self::read_split`] asks first of split `i`, to fetch it ahead: the chunks of
    /// the row filter's columns (the key, `--where`) in the row groups the statistics keep,
    /// or of every decoded column when no row filter runs (or with `all`: what it may ask,
    /// every decoded column). Nothing for a file whose key the key tiers rule out, or whose
    /// row groups the SBBF tier will probe first.
    fn ahead_ranges(&self, i: usize, all: bool) -> Vec<std::ops::Range<u64>> {
        let side = self.side;
        let split = &side.plan.splits[i];
        let file = &side.plan.files[split.file];
        let fp = &side.files[split.file];
        let whole_file_key = self.whole_file_key(fp);
        if whole_file_key.is_some_and(|p| !p.partition_key_passes(&fp.key_values)) {
            return Vec::new();
        }
        let row_groups = self.where_row_groups(file, fp, split.row_groups.clone().collect(), false);
        let row_groups = match self.prefilter {
            Some(p) => match p.row_groups_ahead(file, fp, &self.key_names(), row_groups) {
                Some(kept) => kept,
                None => return Vec::new(),
            },
            None => row_groups,
        };
        // The page index of the --where's columns, which the reader reads first.
        let index = side
            .predicate
            .as_ref()
            .and_then(|p| crate::read::pages::index_range(p, file, &fp.where_fill, &row_groups));
        let key_filter = !fp.keys.is_empty() && self.key_tiers().is_some();
        let tops: Vec<usize> = if !all && (key_filter || side.predicate.is_some()) {
            let keys = fp.keys.iter().filter(|_| key_filter);
            let wheres = fp
                .where_positions
                .iter()
                .filter(|_| side.predicate.is_some());
            keys.chain(wheres).map(|k| fp.decode[*k]).collect()
        } else {
            fp.decode.clone()
        };
        let mut ranges = crate::read::ahead::chunk_ranges(file, row_groups, &tops);
        ranges.extend(index);
        ranges
    }

    /// The row groups of `rgs` (of `file`) where the side's `--where` may hold, from their
    /// statistics (see `expr::stats`); with `count`, the others are counted as skipped.
    fn where_row_groups(
        &self,
        file: &crate::plan::InputFile,
        fp: &FileProjection,
        rgs: Vec<usize>,
        count: bool,
    ) -> Vec<usize> {
        let Some(p) = self.side.predicate.as_ref().filter(|_| !rgs.is_empty()) else {
            return rgs;
        };
        let (kept, skipped) =
            p.partition_row_groups(file.parquet(), file.schema(), rgs, &fp.where_fill);
        if count {
            self.count_where_skipped(file, &skipped);
        }
        kept
    }

    /// Count row groups `skipped` of `file`, and their rows, as skipped by the `--where`.
    fn count_where_skipped(&self, file: &crate::plan::InputFile, skipped: &[usize]) {
        let c = self.counters;
        for rg in skipped {
            c.rg_skipped_where.fetch_add(1, Ordering::Relaxed);
            c.rows_skipped_where
                .fetch_add(file.row_group_rows(*rg), Ordering::Relaxed);
        }
    }

    /// The row groups of `rgs` (of `file`) with pages where the side's `--where` may hold,
    /// from the page index (see `read::pages`), the reader's selection of their rows when
    /// some were ruled out, and how many were; the row groups and rows ruled out are counted
    /// as skipped.
    fn where_pages(
        &self,
        file: &crate::plan::InputFile,
        fp: &FileProjection,
        rgs: Vec<usize>,
        ahead: Option<&Prefetched>,
    ) -> Result<(Vec<usize>, Option<crate::read::pages::Pages>, u64)> {
        let Some(p) = self.side.predicate.as_ref().filter(|_| !rgs.is_empty()) else {
            return Ok((rgs, None, 0));
        };
        let plan = crate::read::pages::plan(p, file, &fp.where_fill, rgs, || {
            Ok(crate::plan::RangeReader::open(&file.location)?.with_ahead(ahead.cloned()))
        })?;
        self.count_where_skipped(file, &plan.skipped_groups);
        let c = self.counters;
        c.rows_skipped_where
            .fetch_add(plan.skipped_rows, Ordering::Relaxed);
        c.rows_skipped_pages
            .fetch_add(plan.skipped_rows, Ordering::Relaxed);
        Ok((plan.row_groups, plan.pages, plan.skipped_rows))
    }

    /// Read split `split_index` (`ahead`: its ranges fetched ahead) and feed its batches to
    /// `sink`.
    fn read_split(
        &self,
        split_index: usize,
        ahead: Option<Prefetched>,
        sink: &mut dyn FnMut(RecordBatch, Vec<u64>) -> Result<()>,
    ) -> Result<()> {
        let side = self.side;
        let split = &side.plan.splits[split_index];
        let file = side.plan.files[split.file].clone();
        let fp = &side.files[split.file];
        let file_name = file.location.to_string();
        let finished = || {
            self.bar.inc(split.rows);
            self.counters
                .rows_finished
                .fetch_add(split.rows, Ordering::Relaxed);
        };
        // A key of partition columns alone: the file's rows all hold one key, which the key
        // tiers probe once. A file ruled out is not read; the others are read whole, every
        // row with the key's one hash.
        let mut file_hash = None;
        if let Some(p) = self.whole_file_key(fp) {
            match p.partition_key_verdict(&fp.key_values, split.rows)? {
                FileVerdict::Read(h) => file_hash = Some(h),
                FileVerdict::Skip => {
                    // A file's splits all skip: it counts once, with its first split.
                    if split.row_groups.start == 0 {
                        self.counters
                            .files_skipped_by_key
                            .fetch_add(1, Ordering::Relaxed);
                    }
                    self.counters
                        .rows_skipped_by_key
                        .fetch_add(split.rows, Ordering::Relaxed);
                    finished();
                    return Ok(());
                }
            }
        }
        // The --where's statistics first (the footer's, free), then the key tiers' (whose
        // SBBF tier reads the row groups' Parquet Bloom filters), then the page index.
        let row_groups = self.where_row_groups(&file, fp, split.row_groups.clone().collect(), true);
        let row_groups = match self.prefilter {
            Some(p) => p.row_groups(&file, fp, &self.key_names(), row_groups, self.counters),
            None => row_groups,
        };
        let (row_groups, pages, rows_in_pages_skipped) =
            self.where_pages(&file, fp, row_groups, ahead.as_ref())?;
        if row_groups.is_empty() {
            finished();
            return Ok(());
        }
        let rows_in_groups: u64 = row_groups.iter().map(|rg| file.row_group_rows(*rg)).sum();
        self.counters
            .rows_read
            .fetch_add(rows_in_groups - rows_in_pages_skipped, Ordering::Relaxed);

        // The row filter: the prefilter's key tiers on the key column alone, then the side's
        // --where; the other columns are decoded only for rows that pass both.
        let mut predicates: Vec<Box<dyn ArrowPredicate>> = Vec::new();
        let parquet_schema = file.parquet().file_metadata().schema_descr();
        let key_tops: Vec<usize> = fp.keys.iter().map(|k| fp.decode[*k]).collect();
        // The key tiers hash every key; the survivors' hashes come along to the sink. (Only
        // when null keys are dropped: the key tiers never let a null key through.)
        let carry = self
            .key_tiers()
            .filter(|_| file_hash.is_none())
            .map(|_| HashCarry::new(side.predicate.is_some()));
        if let (Some(p), Some(carry)) = (self.prefilter, &carry) {
            if let Some(pred) =
                p.key_predicate(parquet_schema, &key_tops, &fp.key_values, Arc::clone(carry))
            {
                predicates.push(pred);
            }
        }
        let dropped_where = Arc::new(AtomicU64::new(0));
        if let Some(p) = &side.predicate {
            let p = p.clone();
            let missing = fp.where_fill.clone();
            let dropped = Arc::clone(&dropped_where);
            let carry = carry.clone();
            let mut where_top: Vec<usize> =
                fp.where_positions.iter().map(|i| fp.decode[*i]).collect();
            where_top.sort_unstable();
            where_top.dedup();
            predicates.push(Box::new(ArrowPredicateFn::new(
                ProjectionMask::roots(parquet_schema, where_top),
                move |batch: RecordBatch| {
                    let keep = p.evaluate_filling(&batch, &missing).map_err(|e| {
                        arrow::error::ArrowError::ComputeError(crate::error::one_line(&e))
                    })?;
                    dropped.fetch_add(
                        (batch.num_rows() - keep.true_count()) as u64,
                        Ordering::Relaxed,
                    );
                    if let Some(c) = &carry {
                        c.lock()
                            .expect("hash carry")
                            .filter(&keep)
                            .map_err(|e| arrow::error::ArrowError::ComputeError(e.to_string()))?;
                    }
                    Ok(keep)
                },
            )));
        }
        let row_filter = (!predicates.is_empty()).then(|| RowFilter::new(predicates));
        // The columns no row filter reads come at their stored width and are widened by
        // `conform` after the filter, for the rows kept.
        let filtered: Vec<usize> = key_tops
            .iter()
            .chain(fp.where_positions.iter().map(|i| &fp.decode[*i]))
            .copied()
            .collect();
        let stored_form = fp
            .decode
            .iter()
            .copied()
            .filter(|c| !filtered.contains(c))
            .collect();
        let mut reader = SplitReader::with_row_groups(
            file.clone(),
            row_groups,
            ReadOptions {
                columns: fp.decode.clone(),
                batch_size: self.batch_size,
                row_filter,
                ahead,
                pages,
                stored_form,
            },
        )?;
        for batch in reader.by_ref() {
            if crate::cancel::requested() {
                return Err(Error::Cancelled);
            }
            if self.cancel.load(Ordering::Relaxed) {
                return Ok(());
            }
            let batch = conform(&batch?, fp, &side.schema, &file_name)?;
            let nulls = key::tuple_nulls(&side.key_columns(&batch));
            if let Some(n) = nulls.as_ref().filter(|_| self.keep_null_keys) {
                self.counters
                    .null_keys
                    .fetch_add(n.null_count() as u64, Ordering::Relaxed);
            }
            let batch = match nulls.filter(|n| !self.keep_null_keys && n.null_count() > 0) {
                None => batch,
                Some(valid) => {
                    let valid = arrow::array::BooleanArray::new(valid.into_inner(), None);
                    let kept = filter_record_batch(&batch, &valid)
                        .map_err(|e| Error::arrow("null keys", e))?;
                    self.counters.dropped_null.fetch_add(
                        (batch.num_rows() - kept.num_rows()) as u64,
                        Ordering::Relaxed,
                    );
                    kept
                }
            };
            if batch.num_rows() == 0 {
                continue;
            }
            let hashes = match &carry {
                Some(c) => {
                    let h = c.lock().expect("hash carry").take(batch.num_rows())?;
                    self.check_carried(&batch, &h, &file_name)?;
                    h
                }
                None => match file_hash {
                    Some(one) => {
                        let h = vec![one; batch.num_rows()];
                        self.check_carried(&batch, &h, &file_name)?;
                        h
                    }
                    None => {
                        let mut h = Vec::with_capacity(batch.num_rows());
                        self.hash_keys(&side.key_columns(&batch), &mut h)?;
                        h
                    }
                },
            };
            self.counters
                .mapped
                .fetch_add(batch.num_rows() as u64, Ordering::Relaxed);
            sink(batch, hashes)?;
        }
        if carry.is_some_and(|c| !c.lock().expect("hash carry").is_empty()) {
            return Err(Error::Internal(format!(
                "{file_name}: key hashes left over after the last batch"
            )));
        }
        finished();
        self.counters
            .bytes_read
            .fetch_add(reader.bytes_read(), Ordering::Relaxed);
        self.counters
            .dropped_where
            .fetch_add(dropped_where.load(Ordering::Relaxed), Ordering::Relaxed);
        Ok(())
    }
}
