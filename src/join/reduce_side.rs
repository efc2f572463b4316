//! The reduce-side strategy (MapReduce Design Patterns' reduce-side join, on one machine):
//! both sides partitioned by key to local disk, then one hash join per partition, as many at
//! once as the memory budget and the workers allow. For left sides over the memory budget.

use std::sync::{Condvar, Mutex};
use std::time::Instant;

use rayon::prelude::*;

use super::{Ctx, Side, Strategy, StrategyReport, Written};
use crate::error::{Error, Result};
use crate::map::prefilter::RightPrefilter;
use crate::reduce::{Emitter, JoinTable, TABLE_BYTES_PER_ROW};
use crate::shuffle::{Partitioner, Spill};

/// What one reducer wrote.
struct Reduced {
    rows_out: u64,
    bytes_out: u64,
    right_unmatched: u64,
    build_bytes: u64,
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
    let mut written = Written {
        parts,
        rows_out: 0,
        bytes_out: 0,
        right_unmatched: 0,
    };
    let mut build_bytes = 0;
    for r in &reduced {
        written.rows_out += r.rows_out;
        written.bytes_out += r.bytes_out;
        written.right_unmatched += r.right_unmatched;
        build_bytes = build_bytes.max(r.build_bytes);
    }
    let report = StrategyReport {
        requested: ctx.job.strategy,
        used: Strategy::ReduceSide,
        reason: String::new(),
        build_bytes,
        memory_limit: ctx.budget.limit(),
        partitions: Some(spill.partitions()),
        spilled_bytes: Some(spilled_bytes),
    };
    Ok((
        written,
        report,
        (map_ms, t_reduce.elapsed().as_millis() as u64),
    ))
}

/// Admits reducers to the memory budget: a partition that fits the budget but not next to
/// the partitions being reduced waits for them to finish. Only a partition that does not fit
/// even alone fails the job. (Reducers run no nested parallel work, so a waiting worker never
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
/// the part `name`.
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
    if !admission.enter(ctx, need) {
        if crate::cancel::requested() {
            return Err(Error::Cancelled);
        }
        // A partition well above the mean is a key with very many rows; one near it, too
        // few partitions for the side.
        let parts = spill.partitions().max(1) as u64;
        let total: u64 = (0..spill.partitions()).map(|q| spill.left.rows(q)).sum();
        let hint = if rows > 2 * total.div_ceil(parts) {
            "a key with very many rows?"
        } else {
            "more --reducers would make each smaller"
        };
        return Err(ctx.budget.exceeded(&format!(
            "partition {p} of the left side ({rows} of its {total} rows in {parts} partitions; {hint})"
        )));
    }
    let result = (|| {
        let (mut batches, mut hashes) = (Vec::new(), Vec::new());
        spill.left.for_each(p, |b, h| {
            batches.push(b);
            hashes.push(h);
            Ok(())
        })?;
        let table = JoinTable::build(&ctx.shape.left_schema, ctx.shape.key_arity, batches, hashes)?;
        let mut e = Emitter::new(ctx.shape.clone(), ctx.output.staged(name))?;
        spill.right.for_each(p, |b, h| e.probe(&table, &b, &h))?;
        e.emit_left(&table, 0..table.num_rows())?;
        let right_unmatched = e.right_unmatched;
        let (rows_out, bytes_out) = e.finish()?;
        Ok(Reduced {
            rows_out,
            bytes_out,
            right_unmatched,
            build_bytes: need,
        })
    })();
    admission.leave(ctx, need);
    spill.remove(p);
    result
}
