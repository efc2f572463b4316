//! The reduce-side strategy (MapReduce Design Patterns' reduce-side join, on one machine):
//! both sides partitioned by key to local disk, then one hash join per partition, as many at
//! once as the memory budget and the workers allow. For left sides over the memory budget.

use std::sync::{Condvar, Mutex};
use std::time::Instant;

use rayon::prelude::*;

use super::{Ctx, Side, Strategy, StrategyReport, Written};
use crate::error::{Error, Result};
use crate::map::prefilter::RightPrefilter;
use crate::reduce::{ConditionCounts, Emitter, JoinTable, TABLE_BYTES_PER_ROW};
use crate::shuffle::{Partitioner, Spill};

/// What one reducer wrote.
struct Reduced {
    /// The parts written.
    parts: Vec<crate::commit::partition::WrittenPart>,
    right_unmatched: u64,
    condition: ConditionCounts,
    build_bytes: u64,
    /// Passes over the partition's right rows: 1, or more when its left rows were joined in
    /// chunks.
    passes: u64,
}

/// Map the right side into the spill, then reduce every partition. Returns what was
/// written, the strategy's report (reason left empty) and the right map's and the reducers'
/// milliseconds.
pub(crate) fn run(
    ctx: &Ctx,
    spill: Box<Spill>,
    prefilter: &RightPrefilter,
) -> Result<(Written, StrategyReport, (u64, u64))> {
    let t_map = Instant::now();
    let partitioner = Partitioner::new(spill.partitions());
    let bar = ctx.bar(Side::Right);
    let reader = ctx.reader(Side::Right, Some(prefilter), &bar);
    reader.run(
        ctx.workers(),
        || Ok(()),
        |_, batch, hashes| {
            for (p, part, h) in partitioner.split(&batch, &hashes)? {
                spill.right.write(p, &part, h)?;
            }
            Ok(())
        },
    )?;
    bar.finish_and_clear();
    spill.right.finish()?;
    let map_ms = t_map.elapsed().as_millis() as u64;
    let spilled_bytes = spill.disk_bytes();

    let t_reduce = Instant::now();
    let admission = Admission::default();
    let parts: Vec<String> = (0..spill.partitions())
        .map(|p| format!("part-{p:05}"))
        .collect();
    let reduced: Vec<Reduced> = parts
        .par_iter()
        .enumerate()
        .map(|(p, name)| {
            super::task("reduce", name, || {
                reduce_partition(ctx, &spill, &admission, p, name)
            })
        })
        .collect::<Result<_>>()?;
    let mut written = Written::default();
    let (mut build_bytes, mut passes, mut in_passes) = (0, 1, 0);
    for r in reduced {
        written.add(r.parts);
        written.right_unmatched += r.right_unmatched;
        written.condition.add(r.condition);
        build_bytes = build_bytes.max(r.build_bytes);
        passes = passes.max(r.passes);
        in_passes += usize::from(r.passes > 1);
    }
    let report = StrategyReport {
        requested: ctx.job.strategy,
        used: Strategy::ReduceSide,
        reason: String::new(),
        build_bytes,
        memory_limit: ctx.budget.limit(),
        partitions: Some(spill.partitions()),
        spilled_bytes: Some(spilled_bytes),
        partitions_in_passes: Some(in_passes),
        max_passes: Some(passes),
    };
    Ok((
        written,
        report,
        (map_ms, t_reduce.elapsed().as_millis() as u64),
    ))
}

/// Admits reducers to the memory budget: a partition that fits the budget but not next to
/// the partitions being reduced waits for them to finish; one over the whole budget waits
/// for all of them and takes it all. (Reducers run no nested parallel work, so a waiting worker never
/// holds up the reducers it waits for.)
#[derive(Default)]
struct Admission {
    /// Reducers holding part of the budget.
    running: Mutex<usize>,
    done: Condvar,
}

impl Admission {
    /// Take `need` bytes of the budget, waiting while running reducers hold too much of it;
    /// false when it cannot fit even with no other reducer running.
    fn enter(&self, ctx: &Ctx, need: u64) -> bool {
        let mut running = self.running.lock().expect("admission");
        loop {
            if ctx.budget.try_take(need) {
                *running += 1;
                return true;
            }
            if *running == 0
                || crate::cancel::requested()
                || ctx.cancel.load(std::sync::atomic::Ordering::Relaxed)
            {
                return false;
            }
            running = self.done.wait(running).expect("admission");
        }
    }

    /// Give `need` bytes back and wake the waiting reducers.
    fn leave(&self, ctx: &Ctx, need: u64) {
        let mut running = self.running.lock().expect("admission");
        ctx.budget.release(need);
        *running -= 1;
        self.done.notify_all();
    }
}

/// The reducer of partition `p`: build its left rows, stream its right rows through, write
/// the part `name`. A partition whose left rows are over the whole budget (a key with very
/// many rows, or too few partitions) is joined in passes instead: it takes the whole budget,
/// and its left rows are built in chunks that fit, each probed by every right row of the
/// partition ([`Passes`](crate::reduce::Passes)).
fn reduce_partition(
    ctx: &Ctx,
    spill: &Spill,
    admission: &Admission,
    p: usize,
    name: &str,
) -> Result<Reduced> {
    crate::fault::hit("reduce")?;
    if crate::cancel::requested() {
        return Err(Error::Cancelled);
    }
    let rows = spill.left.rows(p);
    let need = spill.left.bytes(p) + rows * TABLE_BYTES_PER_ROW;
    let limit = ctx.budget.limit();
    let take = need.min(limit);
    if !admission.enter(ctx, take) {
        return Err(if crate::cancel::requested() {
            Error::Cancelled
        } else {
            ctx.budget
                .exceeded(&format!("partition {p} of the left side"))
        });
    }
    let result = if need <= limit {
        one_pass(ctx, spill, p, name, need)
    } else {
        in_passes(ctx, spill, p, name, limit)
    };
    admission.leave(ctx, take);
    spill.remove(p);
    result
}

/// Join partition `p` in one pass: every left row in one table.
fn one_pass(ctx: &Ctx, spill: &Spill, p: usize, name: &str, need: u64) -> Result<Reduced> {
    let (mut batches, mut hashes) = (Vec::new(), Vec::new());
    spill.left.for_each(p, |b, h| {
        batches.push(b);
        hashes.push(h);
        Ok(())
    })?;
    let table = JoinTable::build(
        &ctx.shape.left_schema,
        ctx.shape.key_arity,
        ctx.shape.nulls_equal,
        batches,
        hashes,
    )?;
    let mut e = Emitter::new(ctx.shape.clone(), &ctx.output.staging(), name, 0)?;
    spill.right.for_each(p, |b, h| e.probe(&table, &b, &h))?;
    e.emit_left(&table, 0..table.num_rows())?;
    finish(e, need, 1)
}

/// Close a partition's part: what it wrote, with the bytes built and the passes made.
fn finish(e: Emitter, build_bytes: u64, passes: u64) -> Result<Reduced> {
    let (right_unmatched, condition) = (e.right_unmatched, e.condition);
    Ok(Reduced {
        parts: e.finish()?,
        right_unmatched,
        condition,
        build_bytes,
        passes,
    })
}

/// Join partition `p` in passes: its left rows in chunks of at most `limit` bytes (as the
/// spill counts them, with the table's bytes per row), each built into a table that every
/// right row of the partition probes. A spilled batch over the limit alone is cut into
/// slices of rows that fit.
fn in_passes(ctx: &Ctx, spill: &Spill, p: usize, name: &str, limit: u64) -> Result<Reduced> {
    let mut e = Emitter::new(ctx.shape.clone(), &ctx.output.staging(), name, 0)?
        .with_passes(spill.right.rows(p));
    let (mut batches, mut hashes, mut size) = (Vec::new(), Vec::new(), 0u64);
    let (mut passes, mut build_bytes) = (0u64, 0u64);
    let mut pass = |e: &mut Emitter,
                    batches: &mut Vec<arrow::array::RecordBatch>,
                    hashes: &mut Vec<Vec<u64>>,
                    size: &mut u64,
                    last: bool|
     -> Result<()> {
        if crate::cancel::requested() {
            return Err(Error::Cancelled);
        }
        let table = JoinTable::build(
            &ctx.shape.left_schema,
            ctx.shape.key_arity,
            ctx.shape.nulls_equal,
            std::mem::take(batches),
            std::mem::take(hashes),
        )?;
        e.start_pass(last);
        spill.right.for_each(p, |b, h| e.probe(&table, &b, &h))?;
        e.emit_left(&table, 0..table.num_rows())?;
        passes += 1;
        build_bytes = build_bytes.max(*size);
        *size = 0;
        Ok(())
    };
    spill.left.for_each(p, |b, h| {
        // A spilled batch over the limit alone is cut into slices that fit.
        let rows = h.len().max(1);
        let whole = crate::shuffle::data_bytes(&b) + (8 + TABLE_BYTES_PER_ROW) * rows as u64;
        let per_row = whole.div_ceil(rows as u64).max(1);
        let step = ((limit / per_row) as usize).clamp(1, rows);
        for start in (0..h.len()).step_by(step) {
            let len = step.min(h.len() - start);
            let more = per_row * len as u64;
            if !batches.is_empty() && size + more > limit {
                pass(&mut e, &mut batches, &mut hashes, &mut size, false)?;
            }
            // A slice of a view column would keep (and the table's concatenation copy) the
            // whole batch's strings: compact it.
            batches.push(if len < h.len() {
                crate::reduce::compact(b.slice(start, len))
            } else {
                b.clone()
            });
            hashes.push(h[start..start + len].to_vec());
            size += more;
        }
        Ok(())
    })?;
    pass(&mut e, &mut batches, &mut hashes, &mut size, true)?;
    finish(e, build_bytes, passes)
}
