//! The replicated strategy (MapReduce Design Patterns' replicated join): the whole left side
//! in one hash table, shared by every map worker; each worker streams its right splits
//! through the prefilter, probes the table directly and writes its own part. No shuffle, no
//! reducers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::left::InMemory;
use super::{Ctx, Side, Strategy, StrategyReport, Written};
use crate::bloom::BloomFilter;
use crate::commit::partition::WrittenPart;
use crate::error::Result;
use crate::map::prefilter::{RightPrefilter, SbbfTier};
use crate::map::prune::KeyRange;
use crate::reduce::{ConditionCounts, Emitter, JoinTable};

/// The replicated strategy: build the table of the left side `rows`, then probe it with the
/// right side through the prefilter's tiers (the table's keys the last, exact one). Returns
/// what was written, the strategy's report (reason left empty), the right side's prefilter
/// (for its counters) and the probe's milliseconds.
pub(crate) fn run(
    ctx: &Ctx,
    rows: InMemory,
    key_ranges: Vec<Option<KeyRange>>,
    filter: Option<Arc<BloomFilter>>,
    sbbf: Option<Arc<SbbfTier>>,
) -> Result<(Written, StrategyReport, RightPrefilter, u64)> {
    let build_bytes = rows.bytes;
    let table = Arc::new(build(ctx, rows)?);
    let keys = filter.as_ref().map(|_| Arc::clone(&table));
    let prefilter = RightPrefilter::new(key_ranges, filter, keys, ctx.hash_seed)
        .with_sbbf(sbbf)
        .with_null_keys(ctx.null_keys_meet());
    let t_probe = Instant::now();
    let written = probe(ctx, &table, &prefilter)?;
    let strategy = StrategyReport {
        requested: ctx.job.strategy,
        used: Strategy::Replicated,
        reason: String::new(),
        build_bytes,
        memory_limit: ctx.job.memory_limit,
        partitions: None,
        spilled_bytes: None,
        partitions_in_passes: None,
        max_passes: None,
    };
    Ok((
        written,
        strategy,
        prefilter,
        t_probe.elapsed().as_millis() as u64,
    ))
}

/// Build the one table of the left side.
fn build(ctx: &Ctx, rows: InMemory) -> Result<JoinTable> {
    super::task("reduce", "build of the replicated table", || {
        crate::fault::hit("reduce")?;
        JoinTable::build(
            &ctx.shape.left_schema,
            ctx.shape.key_arity,
            ctx.shape.nulls_equal,
            rows.batches,
            rows.hashes,
        )
    })
}

/// Stream the right side through the prefilter into the table, one part per worker; then
/// write the left rows the join type keeps at the end, spread over the same parts.
fn probe(ctx: &Ctx, table: &JoinTable, prefilter: &RightPrefilter) -> Result<Written> {
    let bar = ctx.bar(Side::Right);
    let reader = ctx.reader(Side::Right, Some(prefilter), &bar);
    let next_part = AtomicUsize::new(0);
    let staging = ctx.output.staging();
    // Each worker's part encodes its joined rows in bursts, apart from the decoding of the
    // right side (reduce-side's reducers write in a stage of their own already).
    let write_buffer = crate::reduce::write_buffer_bytes(ctx.job.memory_limit, ctx.workers());
    let mut emitters = reader.run(
        ctx.workers(),
        || {
            let name = format!("part-{:05}", next_part.fetch_add(1, Ordering::Relaxed));
            let e = super::task("reduce", &name, || {
                Emitter::new(ctx.shape.clone(), &staging, &name, write_buffer)
            })?;
            Ok((name, e))
        },
        |(_, e), batch, hashes| e.probe(table, &batch, &hashes),
    )?;
    bar.finish_and_clear();
    emitters.sort_by(|a, b| a.0.cmp(&b.0));
    let n = table.num_rows();
    let k = emitters.len();
    emitters
        .par_iter_mut()
        .enumerate()
        .try_for_each(|(i, (name, e))| {
            super::task("reduce", name, || {
                e.emit_left(table, i * n / k..(i + 1) * n / k)
            })
        })?;
    // The parts are closed at once: each writes its last buffered rows and its footer.
    let finished: Vec<((u64, ConditionCounts), Vec<WrittenPart>)> = emitters
        .into_par_iter()
        .map(|(name, e)| {
            let counts = (e.right_unmatched, e.condition);
            let parts = super::task("reduce", &name, || e.finish())?;
            Ok((counts, parts))
        })
        .collect::<Result<_>>()?;
    let mut written = Written::default();
    for ((unmatched, condition), parts) in finished {
        written.right_unmatched += unmatched;
        written.condition.add(condition);
        written.add(parts);
    }
    Ok(written)
}
