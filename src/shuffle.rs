//! The shuffle of the reduce-side strategy: route rows to partitions by a remix of their
//! key's base hash, and hold each partition on local disk until its reducer runs.
//!
//! A [`Partitioner`] buckets a batch's row indices per partition and does one `take` per
//! non-empty bucket, so rows move as Arrow batches, never one by one. A [`Spill`] keeps one
//! Arrow IPC stream file per partition and side in a private temporary directory (as
//! Hadoop's map outputs wait on local disk for their reducers); each batch carries its rows'
//! base key hashes as a last column, so no key is hashed twice. The directory is removed
//! when the [`Spill`] is dropped, on success and on failure alike.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use arrow::array::{Array, AsArray, RecordBatch, UInt32Array, UInt64Array};
use arrow::compute::take_record_batch;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, UInt64Type};
use arrow::ipc::reader::StreamReader;
use arrow::ipc::writer::StreamWriter;

use crate::error::{Error, Result};

/// The partitioner's remix of a row's base key hash ("SHUFFLE1" salt).
#[inline]
pub(crate) fn partition_hash(h: u64) -> u64 {
    crate::bloom::fmix64(h ^ 0x5348_5546_464C_4531)
}

/// Routes rows to `partitions` partitions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Partitioner {
    partitions: usize,
}

impl Partitioner {
    /// A partitioner over `partitions` partitions.
    pub(crate) fn new(partitions: usize) -> Self {
        Partitioner {
            partitions: partitions.max(1),
        }
    }

    /// The partition of a row with base key hash `h`.
    #[inline]
    pub(crate) fn partition_of(&self, h: u64) -> usize {
        ((partition_hash(h) as u128 * self.partitions as u128) >> 64) as usize
    }

    /// Split `batch` (with the base key hashes of its rows): `(partition, rows, hashes)` for
    /// every non-empty partition, in partition order.
    pub(crate) fn split(
        &self,
        batch: &RecordBatch,
        hashes: &[u64],
    ) -> Result<Vec<(usize, RecordBatch, Vec<u64>)>> {
        if batch.num_rows() == 0 {
            return Ok(Vec::new());
        }
        if self.partitions == 1 {
            return Ok(vec![(0, batch.clone(), hashes.to_vec())]);
        }
        let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); self.partitions];
        for (i, h) in hashes.iter().enumerate() {
            buckets[self.partition_of(*h)].push(i as u32);
        }
        let mut out = Vec::new();
        for (p, rows) in buckets.into_iter().enumerate() {
            if rows.is_empty() {
                continue;
            }
            let part_hashes: Vec<u64> = rows.iter().map(|&i| hashes[i as usize]).collect();
            let part = if rows.len() == batch.num_rows() {
                batch.clone()
            } else {
                take_record_batch(batch, &UInt32Array::from(rows))
                    .map_err(|e| Error::arrow("shuffle take", e))?
            };
            out.push((p, part, part_hashes));
        }
        Ok(out)
    }
}

/// The name of the hash column in spilled batches.
const HASH_COLUMN: &str = "__bloomjoin_key_hash";

/// One side's partitions on local disk: one IPC stream per partition, written by any map
/// worker (one lock per partition), read back by that partition's reducer.
pub(crate) struct SpillSide {
    dir: PathBuf,
    name: &'static str,
    schema: SchemaRef,
    writers: Vec<Mutex<Option<StreamWriter<BufWriter<File>>>>>,
    rows: Vec<AtomicU64>,
    bytes: Vec<AtomicU64>,
}

impl SpillSide {
    fn path(&self, p: usize) -> PathBuf {
        self.dir.join(format!("{}-{p:05}.arrow", self.name))
    }

    /// Append rows (and their base key hashes) to partition `p`. String and binary view
    /// columns are compacted first: a partition's rows taken from a batch share its whole
    /// data buffers, which the IPC writer would write, and [`data_bytes`] count, once per
    /// partition.
    pub(crate) fn write(&self, p: usize, batch: &RecordBatch, hashes: Vec<u64>) -> Result<()> {
        let batch = crate::reduce::compact(batch.clone());
        let mut columns = batch.columns().to_vec();
        columns.push(Arc::new(UInt64Array::from(hashes)));
        let batch = RecordBatch::try_new(self.schema.clone(), columns)
            .map_err(|e| Error::arrow("spilling a partition", e))?;
        let path = self.path(p);
        let ioerr = |e: std::io::Error| Error::io(path.display().to_string(), e);
        let mut slot = self.writers[p].lock().expect("spill writer");
        if slot.is_none() {
            let f = File::create(&path).map_err(ioerr)?;
            *slot = Some(
                StreamWriter::try_new_buffered(f, &self.schema)
                    .map_err(|e| Error::arrow(path.display().to_string(), e))?,
            );
        }
        let w = slot.as_mut().expect("opened above");
        w.write(&batch)
            .map_err(|e| Error::arrow(path.display().to_string(), e))?;
        self.rows[p].fetch_add(batch.num_rows() as u64, Ordering::Relaxed);
        self.bytes[p].fetch_add(data_bytes(&batch), Ordering::Relaxed);
        Ok(())
    }

    /// Close every partition's file.
    pub(crate) fn finish(&self) -> Result<()> {
        for (p, slot) in self.writers.iter().enumerate() {
            if let Some(mut w) = slot.lock().expect("spill writer").take() {
                let path = self.path(p);
                w.finish()
                    .map_err(|e| Error::arrow(path.display().to_string(), e))?;
            }
        }
        Ok(())
    }

    /// Rows spilled to partition `p`.
    pub(crate) fn rows(&self, p: usize) -> u64 {
        self.rows[p].load(Ordering::Relaxed)
    }

    /// Bytes of the rows spilled to partition `p` (their data, without buffer slack: what
    /// they take once read back and concatenated).
    pub(crate) fn bytes(&self, p: usize) -> u64 {
        self.bytes[p].load(Ordering::Relaxed)
    }

    /// Read partition `p` back, batch by batch: `f(batch without the hash column, hashes)`.
    pub(crate) fn for_each(
        &self,
        p: usize,
        mut f: impl FnMut(RecordBatch, Vec<u64>) -> Result<()>,
    ) -> Result<()> {
        if self.rows(p) == 0 {
            return Ok(());
        }
        let path = self.path(p);
        let name = path.display().to_string();
        let file = File::open(&path).map_err(|e| Error::io(name.clone(), e))?;
        let reader = StreamReader::try_new_buffered(file, None)
            .map_err(|e| Error::arrow(name.clone(), e))?;
        for b in reader {
            let mut b = b.map_err(|e| Error::arrow(name.clone(), e))?;
            let h = b.remove_column(b.num_columns() - 1);
            let hashes = h.as_primitive::<UInt64Type>().values().to_vec();
            f(b, hashes)?;
        }
        Ok(())
    }
}

/// The bytes a batch's rows take (their slices of the buffers, not the buffers' capacity).
pub(crate) fn data_bytes(batch: &RecordBatch) -> u64 {
    batch
        .columns()
        .iter()
        .map(|c| c.to_data().get_slice_memory_size().unwrap_or(0) as u64)
        .sum()
}

/// Both sides' partitions of one job, in a private directory removed on drop.
pub(crate) struct Spill {
    dir: PathBuf,
    /// The left side's partitions.
    pub left: SpillSide,
    /// The right side's partitions.
    pub right: SpillSide,
}

impl Spill {
    /// A spill of `partitions` partitions per side under a new directory in `parent`, named
    /// after the job's run id.
    pub(crate) fn create(
        parent: &Path,
        run_id: &str,
        partitions: usize,
        left: &SchemaRef,
        right: &SchemaRef,
    ) -> Result<Spill> {
        let dir = parent.join(format!("bloomjoin-shuffle-{run_id}"));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
        let side = |name, schema: &SchemaRef| {
            let mut fields: Vec<Arc<Field>> = schema.fields().iter().cloned().collect();
            fields.push(Arc::new(Field::new(HASH_COLUMN, DataType::UInt64, false)));
            SpillSide {
                dir: dir.clone(),
                name,
                schema: Arc::new(Schema::new(fields)),
                writers: (0..partitions).map(|_| Mutex::new(None)).collect(),
                rows: (0..partitions).map(|_| AtomicU64::new(0)).collect(),
                bytes: (0..partitions).map(|_| AtomicU64::new(0)).collect(),
            }
        };
        Ok(Spill {
            left: side("left", left),
            right: side("right", right),
            dir,
        })
    }

    /// Number of partitions.
    pub(crate) fn partitions(&self) -> usize {
        self.left.writers.len()
    }

    /// Bytes on disk now.
    pub(crate) fn disk_bytes(&self) -> u64 {
        std::fs::read_dir(&self.dir)
            .map(|rd| {
                rd.flatten()
                    .filter_map(|e| e.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0)
    }

    /// Remove partition `p`'s files (its reducer is done with them).
    pub(crate) fn remove(&self, p: usize) {
        let _ = std::fs::remove_file(self.left.path(p));
        let _ = std::fs::remove_file(self.right.path(p));
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        // Writers hold open files; close them before removing the directory.
        for side in [&self.left, &self.right] {
            for w in &side.writers {
                if let Ok(mut w) = w.lock() {
                    w.take();
                }
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Int64Array;
    use arrow::datatypes::Int64Type;

    fn batch(keys: Vec<i64>) -> (RecordBatch, Vec<u64>) {
        let hashes = keys.iter().map(|&k| crate::key::hash_i64(k, 0)).collect();
        let b =
            RecordBatch::try_from_iter(vec![("k", Arc::new(Int64Array::from(keys)) as _)]).unwrap();
        (b, hashes)
    }

    #[test]
    fn every_row_goes_to_exactly_one_partition_by_key() {
        let (b, h) = batch((0..1000).map(|i| i % 37).collect());
        let p = Partitioner::new(4);
        let parts = p.split(&b, &h).unwrap();
        assert_eq!(
            parts.iter().map(|(_, b, _)| b.num_rows()).sum::<usize>(),
            1000
        );
        let mut owner = std::collections::HashMap::new();
        for (pi, b, hashes) in &parts {
            assert_eq!(b.num_rows(), hashes.len());
            for (v, h) in b
                .column(0)
                .as_primitive::<Int64Type>()
                .values()
                .iter()
                .zip(hashes)
            {
                assert_eq!(*h, crate::key::hash_i64(*v, 0), "hash travels with its row");
                assert_eq!(
                    *owner.entry(*v).or_insert(*pi),
                    *pi,
                    "key {v} in two partitions"
                );
            }
        }
        assert!(parts.len() > 1);
    }

    #[test]
    fn spilled_partitions_read_back_with_their_hashes_and_vanish_on_drop() {
        let tmp = tempfile::tempdir().unwrap();
        let (b, h) = batch((0..100).collect());
        let schema = b.schema();
        let spill = Spill::create(tmp.path(), "run1", 3, &schema, &schema).unwrap();
        let parts = Partitioner::new(3).split(&b, &h).unwrap();
        for (p, part, hashes) in parts.clone() {
            spill.left.write(p, &part, hashes.clone()).unwrap();
            spill.left.write(p, &part, hashes).unwrap();
        }
        spill.left.finish().unwrap();
        for (p, part, hashes) in parts {
            let mut back = Vec::new();
            spill
                .left
                .for_each(p, |b, h| {
                    back.push((b, h));
                    Ok(())
                })
                .unwrap();
            assert_eq!(back.len(), 2);
            for (b2, h2) in back {
                assert_eq!(b2, part);
                assert_eq!(h2, hashes);
            }
            assert_eq!(spill.left.rows(p), 2 * part.num_rows() as u64);
        }
        spill
            .right
            .for_each(0, |_, _| panic!("nothing spilled"))
            .unwrap();
        let dir = tmp.path().join("bloomjoin-shuffle-run1");
        assert!(dir.exists());
        drop(spill);
        assert!(!dir.exists());
    }
}
