//! The left (build) side's map: every worker keeps its batches in memory while the side fits
//! the memory budget; once it does not (or when `--strategy reduce-side` asks for it), the
//! rows are partitioned to local disk instead and the join runs reduce-side.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use arrow::array::RecordBatch;
use rayon::prelude::*;

use super::{Ctx, Side, Strategy};
use crate::bloom::sbbf::ProbeKeys;
use crate::bloom::{BloomFilter, BloomParams, Layout};
use crate::error::{Error, Result};
use crate::key::{CanonicalKeys, KeyFamily};
use crate::map::prefilter::Coverage;
use crate::map::prune;
use crate::reduce::{compact, TABLE_BYTES_PER_ROW};
use crate::shuffle::{Partitioner, Spill};

/// The most partitions the reduce-side strategy makes on its own (each is one open file per
/// side while the map runs).
const MAX_PARTITIONS: usize = 512;

/// The left rows, in memory: batches (key in column 0) and the base hashes of their keys.
#[derive(Default)]
pub(crate) struct InMemory {
    pub batches: Vec<RecordBatch>,
    pub hashes: Vec<Vec<u64>>,
    /// Bytes counted against the budget.
    pub bytes: u64,
}

impl InMemory {
    /// The rows held.
    pub fn num_rows(&self) -> u64 {
        self.hashes.iter().map(|h| h.len() as u64).sum()
    }

    /// The prefilter's filter when no `--filter` is given: a split-layout filter of every
    /// row's base hash (seeded with the map stage's `seed`, so the right side's base hashes
    /// probe it as they are), sized for the rows at `fpp`. The same rows give the same
    /// filter whatever the workers, splits and batches.
    pub(crate) fn build_filter(
        &self,
        family: KeyFamily,
        fpp: f64,
        seed: u64,
    ) -> Result<BuiltFilter> {
        let rows = self.num_rows();
        let params = BloomParams::for_items(Layout::Split, rows.max(1), fpp, seed).map_err(|_| {
            Error::param(
                "--filter-fpp",
                format!("{fpp:e} for the left side's {rows} rows needs a filter over the size limit: ask for a larger rate, or pass a trained --filter"),
            )
        })?;
        let mut filter = BloomFilter::try_new(params, family)?;
        for h in &self.hashes {
            filter.insert_hashes(h);
        }
        Ok(BuiltFilter { filter, rows })
    }

    fn push(&mut self, batch: RecordBatch, hashes: Vec<u64>, bytes: u64) {
        self.batches.push(batch);
        self.hashes.push(hashes);
        self.bytes += bytes;
    }

    fn append(&mut self, other: InMemory) {
        self.batches.extend(other.batches);
        self.hashes.extend(other.hashes);
        self.bytes += other.bytes;
    }
}

/// Where the left rows went.
pub(crate) enum LeftSide {
    /// All in memory: the replicated strategy builds one table.
    InMemory(InMemory),
    /// Partitioned to local disk: the reduce-side strategy.
    Spilled(Box<Spill>),
}

/// A filter to build from the left keys that go to disk (no `--filter`): every worker inserts
/// the hashes of the rows it spills into a partial of `params` (sized for the most distinct
/// keys the inputs can hold); the partials are OR-ed and folded down to `fpp` for the keys
/// counted in their bits, as `train` does, so the filter does not depend on who spilled what.
pub(crate) struct SpillFilter {
    pub params: BloomParams,
    pub family: KeyFamily,
    pub fpp: f64,
}

/// A filter built from the left keys (in memory or spilled), and the rows it holds.
pub(crate) struct BuiltFilter {
    pub filter: BloomFilter,
    pub rows: u64,
}

/// The mapped left side.
pub(crate) struct Left {
    pub side: LeftSide,
    /// The range of the left keys per key column (integer columns), for the right side's
    /// statistics tier.
    pub key_ranges: Vec<Option<prune::KeyRange>>,
    /// The distinct non-null keys, for the right files' Parquet Bloom filters (`None`: not
    /// collected, SBBF pruning is off).
    pub distinct: Option<DistinctKeys>,
    /// Why the side ended where it did.
    pub reason: String,
    /// Spilled with a [`SpillFilter`] to build: the filter.
    pub built: Option<BuiltFilter>,
}

/// One worker's share of the left side.
#[derive(Default)]
struct Acc {
    rows: InMemory,
    ranges: Vec<Option<prune::KeyRange>>,
    distinct: DistinctKeys,
    /// The hashes of the rows this worker spilled (with a [`SpillFilter`]), and their count.
    partial: Option<(BloomFilter, u64)>,
}

impl Acc {
    /// Write rows (with their hashes) to their partitions, and their hashes to this worker's
    /// partial filter when one is built.
    fn spill(
        &mut self,
        s: &Spilling,
        build: Option<&SpillFilter>,
        batch: &RecordBatch,
        hashes: &[u64],
    ) -> Result<()> {
        if let Some(b) = build {
            if self.partial.is_none() {
                self.partial = Some((BloomFilter::try_new(b.params, b.family)?, 0));
            }
            let (f, n) = self.partial.as_mut().expect("created above");
            f.insert_hashes(hashes);
            *n += hashes.len() as u64;
        }
        for (p, part, h) in s.partitioner.split(batch, hashes)? {
            s.spill.left.write(p, &part, h)?;
        }
        Ok(())
    }
}

/// Distinct left keys, up to a cap (ordered sets: the same keys in the same order whatever
/// the split of the work).
#[derive(Default, Debug)]
pub(crate) enum DistinctKeys {
    /// Not collected.
    #[default]
    Off,
    /// Integer keys, by value.
    Int(BTreeSet<i128>),
    /// Bytes keys.
    Bytes(BTreeSet<Vec<u8>>),
    /// More than the cap.
    TooMany,
}

impl DistinctKeys {
    fn len(&self) -> usize {
        match self {
            DistinctKeys::Int(s) => s.len(),
            DistinctKeys::Bytes(s) => s.len(),
            DistinctKeys::Off | DistinctKeys::TooMany => 0,
        }
    }

    /// Add the non-null keys of `col`; past `cap` keys the set becomes `TooMany`.
    fn add(&mut self, col: &dyn arrow::array::Array, cap: usize) -> Result<()> {
        if matches!(self, DistinctKeys::TooMany) {
            return Ok(());
        }
        let nulls = col.logical_nulls();
        let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
        let ints: Option<Vec<i128>> = match CanonicalKeys::try_new(col)? {
            CanonicalKeys::Int(v) => Some(v.into_iter().map(i128::from).collect()),
            CanonicalKeys::Wide(v) => Some(v.into_iter().map(i128::from).collect()),
            // Decimal keys (canonical numbers): a decimal column's SBBF holds unscaled
            // integers that need the column's scale; give up pruning (every group is read).
            // Timestamps: SBBF pruning is off for them (see join.rs).
            CanonicalKeys::Num(_) | CanonicalKeys::Time(_) => {
                *self = DistinctKeys::TooMany;
                return Ok(());
            }
            CanonicalKeys::Bytes(b) => {
                if matches!(self, DistinctKeys::Off) {
                    *self = DistinctKeys::Bytes(BTreeSet::new());
                }
                if let DistinctKeys::Bytes(s) = self {
                    s.extend(b.iter().flatten().map(<[u8]>::to_vec));
                }
                None
            }
        };
        if let Some(v) = ints {
            if matches!(self, DistinctKeys::Off) {
                *self = DistinctKeys::Int(BTreeSet::new());
            }
            if let DistinctKeys::Int(s) = self {
                s.extend(
                    v.into_iter()
                        .enumerate()
                        .filter(|(i, _)| valid(*i))
                        .map(|(_, k)| k),
                );
            }
        }
        if self.len() > cap {
            *self = DistinctKeys::TooMany;
        }
        Ok(())
    }

    fn merge(self, other: DistinctKeys, cap: usize) -> DistinctKeys {
        let out = match (self, other) {
            (DistinctKeys::TooMany, _) | (_, DistinctKeys::TooMany) => DistinctKeys::TooMany,
            (DistinctKeys::Off, x) | (x, DistinctKeys::Off) => x,
            (DistinctKeys::Int(mut a), DistinctKeys::Int(b)) => {
                a.extend(b);
                DistinctKeys::Int(a)
            }
            (DistinctKeys::Bytes(mut a), DistinctKeys::Bytes(b)) => {
                a.extend(b);
                DistinctKeys::Bytes(a)
            }
            // One side has one key family (checked when planned).
            _ => DistinctKeys::TooMany,
        };
        if out.len() > cap {
            DistinctKeys::TooMany
        } else {
            out
        }
    }

    /// The keys, encoded for the Parquet Bloom filters; `None` when too many.
    pub(crate) fn probe_keys(self) -> Option<(ProbeKeys, usize)> {
        match self {
            DistinctKeys::Int(s) => {
                let n = s.len();
                Some((ProbeKeys::integers(s), n))
            }
            DistinctKeys::Bytes(s) => {
                let n = s.len();
                Some((ProbeKeys::bytes(s), n))
            }
            DistinctKeys::Off => Some((ProbeKeys::integers([]), 0)),
            DistinctKeys::TooMany => None,
        }
    }
}

/// The partitioned left side, once spilling started.
struct Spilling {
    spill: Spill,
    partitioner: Partitioner,
}

/// Map the left side.
pub(crate) fn map_left(
    ctx: &Ctx,
    coverage: Option<&Coverage>,
    build: Option<&SpillFilter>,
) -> Result<Left> {
    let job = ctx.job;
    let left = &ctx.plan.left;
    let budget = &ctx.budget;
    let state: Mutex<Option<Arc<Spilling>>> = Mutex::new(None);
    let spilling = AtomicBool::new(false);
    let start_spill = |partitions: usize| -> Result<Arc<Spilling>> {
        let mut slot = state.lock().expect("spill state");
        if let Some(s) = slot.as_ref() {
            return Ok(Arc::clone(s));
        }
        let spill = Spill::create(
            &std::env::temp_dir(),
            ctx.output.run_id(),
            partitions,
            &left.schema,
            &ctx.plan.right.schema,
        )?;
        let s = Arc::new(Spilling {
            partitioner: Partitioner::new(spill.partitions()),
            spill,
        });
        *slot = Some(Arc::clone(&s));
        spilling.store(true, Ordering::Release);
        Ok(s)
    };
    let mut reason = String::new();
    if job.strategy == Strategy::ReduceSide {
        start_spill(job.reducers.get())?;
        reason = format!(
            "--strategy reduce-side: both sides partitioned into {} partitions on local disk",
            job.reducers
        );
    }
    let overflow_reason: Mutex<Option<String>> = Mutex::new(None);
    let total_rows = left.plan.num_rows().max(1);
    let bar = ctx.bar(Side::Left);
    let reader = ctx.reader(Side::Left, None, &bar);
    let mut accs = reader.run(
        ctx.workers(),
        || Ok(Acc::default()),
        |acc, batch, hashes| {
            let keys = left.key_columns(&batch);
            if let Some(c) = coverage {
                c.check(&keys, &hashes)?;
            }
            acc.ranges.resize(keys.len(), None);
            for (r, k) in acc.ranges.iter_mut().zip(&keys) {
                *r = prune::union(*r, prune::key_range(*k));
            }
            if let Some(cap) = ctx.sbbf_max_keys {
                acc.distinct.add(batch.column(0).as_ref(), cap)?;
            }
            if !spilling.load(Ordering::Acquire) {
                let batch = compact(batch);
                let size =
                    batch.get_array_memory_size() as u64 + batch.num_rows() as u64 * TABLE_BYTES_PER_ROW;
                if budget.try_take(size) {
                    acc.rows.push(batch, hashes, size);
                    return Ok(());
                }
                if job.strategy == Strategy::Replicated {
                    return Err(budget.exceeded(
                        "--strategy replicated: the left side (after --left-where)",
                    ));
                }
                // Over the budget: partition what we have and what comes to local disk. Size
                // the partitions from the bytes held so far, projected to the whole side so
                // that each reducer's part fits the budget with room to spare. Two
                // projections, both at least the truth, the smaller taken: by the rows of the
                // splits finished (the rows held include some of the splits still being read),
                // and by the rows held as if the rest of the side passed --left-where as a
                // whole (for a side of one split, which finishes only at its end).
                let held = (budget.used() + size) as f64;
                let finished = reader.counters.rows_finished.load(Ordering::Relaxed);
                let mapped = reader.counters.rows_mapped().max(1);
                let by_rows = held * total_rows as f64 / mapped as f64;
                let projected = if finished > 0 {
                    by_rows.min(held * total_rows as f64 / finished as f64)
                } else {
                    by_rows
                };
                let read = reader.counters.rows_read.load(Ordering::Relaxed).max(1);
                let per_partition = (budget.limit() / (2 * ctx.workers() as u64)).max(1);
                let partitions = ((projected / per_partition as f64).ceil() as usize)
                    .clamp(job.reducers.get(), MAX_PARTITIONS.max(job.reducers.get()));
                overflow_reason.lock().expect("reason").get_or_insert_with(|| {
                    format!(
                        "the left side outgrew the memory budget ({}) with {} of its rows in memory and {} of {} rows read (about {} in all): both sides partitioned into {partitions} partitions on local disk",
                        crate::report::human_bytes(budget.limit()),
                        mapped,
                        read.min(total_rows),
                        total_rows,
                        crate::report::human_bytes(projected as u64),
                    )
                });
                start_spill(partitions)?;
                return acc.spill(&spilling_state(&state), build, &batch, &hashes);
            }
            let s = spilling_state(&state);
            // This worker's rows still in memory go first.
            let mine = std::mem::take(&mut acc.rows);
            budget.release(mine.bytes);
            for (b, h) in mine.batches.iter().zip(&mine.hashes) {
                acc.spill(&s, build, b, h)?;
            }
            acc.spill(&s, build, &batch, &hashes)
        },
    )?;
    bar.finish_and_clear();
    let key_ranges = (0..left.arity())
        .map(|i| {
            accs.iter().fold(None, |r, a| {
                prune::union(r, a.ranges.get(i).copied().flatten())
            })
        })
        .collect();
    let distinct = ctx.sbbf_max_keys.map(|cap| {
        accs.iter_mut()
            .map(|a| std::mem::take(&mut a.distinct))
            .fold(DistinctKeys::Off, |x, y| x.merge(y, cap))
    });
    let mut built = None;
    let side = match state.into_inner().expect("spill state") {
        Some(s) => {
            // Workers that finished before the switch still hold rows.
            let partials = accs
                .into_par_iter()
                .map(|mut a| {
                    budget.release(a.rows.bytes);
                    let rows = std::mem::take(&mut a.rows);
                    for (b, h) in rows.batches.iter().zip(&rows.hashes) {
                        a.spill(&s, build, b, h)?;
                    }
                    Ok(a.partial)
                })
                .collect::<Result<Vec<_>>>()?;
            if let Some(b) = build {
                built = Some(merge_partials(b, partials)?);
            }
            s.spill.left.finish()?;
            match Arc::try_unwrap(s) {
                Ok(s) => LeftSide::Spilled(Box::new(s.spill)),
                Err(_) => return Err(Error::Internal("the spill is still shared".into())),
            }
        }
        None => {
            let mut all = InMemory::default();
            for a in accs {
                all.append(a.rows);
            }
            reason = format!(
                "the left side ({} rows, {}) fits the memory budget ({})",
                all.num_rows(),
                crate::report::human_bytes(all.bytes),
                crate::report::human_bytes(budget.limit())
            );
            if job.strategy == Strategy::Replicated {
                reason = format!("--strategy replicated: {reason}");
            }
            LeftSide::InMemory(all)
        }
    };
    if let Some(r) = overflow_reason.into_inner().expect("reason") {
        reason = r;
    }
    Ok(Left {
        side,
        key_ranges,
        distinct,
        reason,
        built,
    })
}

/// OR the workers' partial filters and fold the result down to the target for the distinct
/// keys its bits hold (the partials' order does not change the bits).
fn merge_partials(
    b: &SpillFilter,
    partials: Vec<Option<(BloomFilter, u64)>>,
) -> Result<BuiltFilter> {
    // The first partial is the base the others are ORed into (an empty one when no worker
    // spilled a row), as train merges its partials.
    let mut filters = Vec::with_capacity(partials.len());
    let mut rows = 0;
    for (f, n) in partials.into_iter().flatten() {
        filters.push(f);
        rows += n;
    }
    let mut filter = match filters.is_empty() {
        true => BloomFilter::try_new(b.params, b.family)?,
        false => filters.swap_remove(0),
    };
    filter.union_all(&filters, "partial")?;
    drop(filters);
    // The keys inserted bound the distinct keys exactly.
    let (_, n) = crate::train::counted_distinct(&filter.bit_stats(), rows);
    Ok(BuiltFilter {
        filter: crate::train::fold_to_target(filter, n, b.fpp)?,
        rows,
    })
}

fn spilling_state(state: &Mutex<Option<Arc<Spilling>>>) -> Arc<Spilling> {
    Arc::clone(
        state
            .lock()
            .expect("spill state")
            .as_ref()
            .expect("spilling"),
    )
}
