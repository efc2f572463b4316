//! The shuffle: route rows to reducers by a hash of their canonical key.
//!
//! A [`Partitioner`] hashes a batch's key column (with a seed distinct from the filter's),
//! buckets the row indices per reducer and does one `take` per non-empty bucket, so the
//! channels carry Arrow batches, never single rows.

use arrow::array::{RecordBatch, UInt32Array};
use arrow::compute::take_record_batch;

use crate::error::{Error, Result};
use crate::key;

/// The seed of the shuffle hash, derived from (and never equal to) the filter's seed.
pub fn shuffle_seed(filter_seed: u64) -> u64 {
    let s = crate::bloom::fmix64(filter_seed ^ 0x5348_5546_464C_4531); // "SHUFFLE1"
    if s == filter_seed {
        s.wrapping_add(1)
    } else {
        s
    }
}

/// Routes rows to `reducers` partitions.
#[derive(Debug, Clone, Copy)]
pub struct Partitioner {
    reducers: usize,
    seed: u64,
}

impl Partitioner {
    /// A partitioner over `reducers` partitions hashing with `seed`.
    pub fn new(reducers: usize, seed: u64) -> Self {
        Partitioner {
            reducers: reducers.max(1),
            seed,
        }
    }

    /// The partition of a key hash.
    #[inline]
    pub fn partition_of(&self, h: u64) -> usize {
        ((h as u128 * self.reducers as u128) >> 64) as usize
    }

    /// Split `batch` by the key in column `key`: `(partition, rows)` for every non-empty
    /// partition, in partition order.
    pub fn split(
        &self,
        batch: &RecordBatch,
        key: usize,
        scratch: &mut Vec<u64>,
    ) -> Result<Vec<(usize, RecordBatch)>> {
        if batch.num_rows() == 0 {
            return Ok(Vec::new());
        }
        if self.reducers == 1 {
            return Ok(vec![(0, batch.clone())]);
        }
        key::hash_array_into(batch.column(key).as_ref(), self.seed, scratch)?;
        let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); self.reducers];
        for (i, h) in scratch.iter().enumerate() {
            buckets[self.partition_of(*h)].push(i as u32);
        }
        let mut out = Vec::new();
        for (p, rows) in buckets.into_iter().enumerate() {
            if rows.is_empty() {
                continue;
            }
            let part = if rows.len() == batch.num_rows() {
                batch.clone()
            } else {
                take_record_batch(batch, &UInt32Array::from(rows))
                    .map_err(|e| Error::arrow("shuffle take", e))?
            };
            out.push((p, part));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, AsArray, Int64Array};
    use arrow::datatypes::Int64Type;
    use std::sync::Arc;

    #[test]
    fn every_row_goes_to_exactly_one_partition_by_key() {
        let keys: Vec<i64> = (0..1000).map(|i| i % 37).collect();
        let batch =
            RecordBatch::try_from_iter(vec![("k", Arc::new(Int64Array::from(keys)) as _)]).unwrap();
        let p = Partitioner::new(4, shuffle_seed(0));
        let parts = p.split(&batch, 0, &mut Vec::new()).unwrap();
        assert_eq!(parts.iter().map(|(_, b)| b.num_rows()).sum::<usize>(), 1000);
        let mut owner = std::collections::HashMap::new();
        for (pi, b) in &parts {
            for v in b.column(0).as_primitive::<Int64Type>().values() {
                assert_eq!(
                    *owner.entry(*v).or_insert(*pi),
                    *pi,
                    "key {v} in two partitions"
                );
            }
        }
        assert!(parts.len() > 1);
        assert_ne!(shuffle_seed(0), 0);
        let _ = batch.column(0).len();
    }
}
