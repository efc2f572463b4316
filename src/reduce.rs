//! The reduce side: one hash join per partition, written as one Parquet part.
//!
//! A [`Reducer`] receives its partition's left batches first (the build side), builds a hash
//! table on the canonical key, then streams the right batches through it and writes joined
//! batches to its [`PartWriter`] as they are produced. Null keys never match.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, UInt32Array};
use arrow::compute::{concat_batches, take};
use arrow::datatypes::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::error::{Error, Result};
use crate::key::{self, CanonicalKeys};
use crate::store::Location;

/// The join types (MapReduce Design Patterns' set).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[value(rename_all = "kebab-case")]
pub enum JoinType {
    /// Matching pairs only.
    Inner,
    /// Every left row, with its matches or nulls.
    Left,
    /// Left rows that have a match (left columns only).
    LeftSemi,
    /// Left rows that have no match (left columns only).
    LeftAnti,
    /// Every right row, with its matches or nulls.
    Right,
    /// Every row of both sides.
    Full,
}

impl JoinType {
    /// True when dropping right rows whose key is not on the left cannot change the result,
    /// so the Bloom prefilter may be used.
    pub fn allows_prefilter(self) -> bool {
        matches!(
            self,
            JoinType::Inner | JoinType::Left | JoinType::LeftSemi | JoinType::LeftAnti
        )
    }

    /// True when right columns appear in the output.
    pub fn outputs_right(self) -> bool {
        !matches!(self, JoinType::LeftSemi | JoinType::LeftAnti)
    }

    /// True when unmatched left rows are kept.
    pub fn keeps_left(self) -> bool {
        matches!(self, JoinType::Left | JoinType::Full | JoinType::LeftAnti)
    }

    /// True when unmatched right rows are kept.
    pub fn keeps_right(self) -> bool {
        matches!(self, JoinType::Right | JoinType::Full)
    }

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            JoinType::Inner => "inner",
            JoinType::Left => "left",
            JoinType::LeftSemi => "left-semi",
            JoinType::LeftAnti => "left-anti",
            JoinType::Right => "right",
            JoinType::Full => "full",
        }
    }
}

/// Which input an output column comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The filtered-on (build) side.
    Left,
    /// The big (probe) side.
    Right,
}

/// One output column: its side, its position in that side's shuffled batches, its name.
#[derive(Debug, Clone)]
pub struct OutColumn {
    /// The side.
    pub side: Side,
    /// Index in the side's shuffled batch schema.
    pub index: usize,
}

/// Hashes are already well mixed: use them as they are.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | *b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

const NONE: u32 = u32::MAX;

/// Writes one Parquet part (zstd): straight into the staging location for local outputs, to a
/// local temporary file uploaded at the end for object stores.
pub struct PartWriter {
    writer: Option<ArrowWriter<std::fs::File>>,
    local: std::path::PathBuf,
    target: Location,
    upload: bool,
    rows: u64,
}

impl PartWriter {
    /// Start a part at `target` with `schema`.
    pub fn create(target: Location, schema: SchemaRef) -> Result<Self> {
        let (local, upload) = match target.local_path() {
            Some(p) => (p.to_path_buf(), false),
            None => {
                let name = format!(
                    "bloomjoin-part-{}-{}.parquet",
                    std::process::id(),
                    target.path().as_ref().replace('/', "_")
                );
                (std::env::temp_dir().join(name), true)
            }
        };
        if let Some(dir) = local.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
        }
        let file =
            std::fs::File::create(&local).map_err(|e| Error::io(local.display().to_string(), e))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(
                ZstdLevel::try_new(1).expect("level 1 is valid"),
            ))
            .build();
        let writer =
            ArrowWriter::try_new(file, schema, Some(props)).map_err(|source| Error::Parquet {
                location: target.to_string(),
                source,
            })?;
        Ok(PartWriter {
            writer: Some(writer),
            local,
            target,
            upload,
            rows: 0,
        })
    }

    /// Append a batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.rows += batch.num_rows() as u64;
        let w = self.writer.as_mut().expect("open writer");
        w.write(batch).map_err(|source| Error::Parquet {
            location: self.target.to_string(),
            source,
        })
    }

    /// Finish the part; returns `(rows, bytes)`.
    pub fn finish(mut self) -> Result<(u64, u64)> {
        let w = self.writer.take().expect("open writer");
        w.close().map_err(|source| Error::Parquet {
            location: self.target.to_string(),
            source,
        })?;
        let bytes = std::fs::metadata(&self.local)
            .map_err(|e| Error::io(self.local.display().to_string(), e))?
            .len();
        if self.upload {
            crate::store::upload_file(&self.local, &self.target)?;
            let _ = std::fs::remove_file(&self.local);
        }
        Ok((self.rows, bytes))
    }
}

impl Drop for PartWriter {
    fn drop(&mut self) {
        if self.upload {
            let _ = std::fs::remove_file(&self.local);
        }
    }
}

/// Counters of one reducer.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReduceCounts {
    /// Left rows received.
    pub left_rows: u64,
    /// Right rows received.
    pub right_rows: u64,
    /// Right rows (non-null key) that matched no left row.
    pub right_unmatched: u64,
    /// Rows written.
    pub rows_out: u64,
    /// Bytes written.
    pub bytes_out: u64,
}

/// The hash join of one partition.
pub struct Reducer {
    join_type: JoinType,
    out_schema: SchemaRef,
    out_columns: Arc<Vec<OutColumn>>,
    left_schema: SchemaRef,
    left_key: usize,
    right_key: usize,
    seed: u64,
    left_batches: Vec<RecordBatch>,
    build: Option<Build>,
    writer: PartWriter,
    /// Counters so far.
    pub counts: ReduceCounts,
}

struct Build {
    batch: RecordBatch,
    keys: CanonicalKeys,
    table: HashMap<u64, u32, BuildHasherDefault<IdHasher>>,
    next: Vec<u32>,
    matched: Vec<bool>,
}

/// The static description of a join shared by every reducer.
#[derive(Debug, Clone)]
pub struct JoinShape {
    /// The join type.
    pub join_type: JoinType,
    /// Output schema.
    pub out_schema: SchemaRef,
    /// Where each output column comes from.
    pub out_columns: Arc<Vec<OutColumn>>,
    /// Schema of the left side's shuffled batches.
    pub left_schema: SchemaRef,
    /// Key column index in the left batches.
    pub left_key: usize,
    /// Key column index in the right batches.
    pub right_key: usize,
    /// Hash seed of the join table (the shuffle seed).
    pub seed: u64,
}

impl Reducer {
    /// A reducer writing its part to `part`.
    pub fn new(shape: &JoinShape, part: Location) -> Result<Self> {
        Ok(Reducer {
            join_type: shape.join_type,
            out_schema: shape.out_schema.clone(),
            out_columns: shape.out_columns.clone(),
            left_schema: shape.left_schema.clone(),
            left_key: shape.left_key,
            right_key: shape.right_key,
            seed: shape.seed,
            left_batches: Vec::new(),
            build: None,
            writer: PartWriter::create(part, shape.out_schema.clone())?,
            counts: ReduceCounts::default(),
        })
    }

    /// Take a left (build-side) batch.
    pub fn push_left(&mut self, batch: RecordBatch) {
        self.counts.left_rows += batch.num_rows() as u64;
        self.left_batches.push(batch);
    }

    /// All left batches are in: build the hash table.
    pub fn build(&mut self) -> Result<()> {
        let batch = concat_batches(&self.left_schema, &self.left_batches)
            .map_err(|e| Error::arrow("concatenating the build side", e))?;
        self.left_batches = Vec::new();
        let key_col = batch.column(self.left_key);
        let keys = CanonicalKeys::try_new(key_col.as_ref())?;
        let hashed = key::hash_array(key_col.as_ref(), self.seed)?;
        let n = batch.num_rows();
        let mut table: HashMap<u64, u32, BuildHasherDefault<IdHasher>> =
            HashMap::with_capacity_and_hasher(n, Default::default());
        let mut next = vec![NONE; n];
        // Insert in reverse so each chain lists rows in input order.
        for i in (0..n).rev() {
            if !hashed.is_valid(i) {
                continue;
            }
            let head = table.entry(hashed.hashes[i]).or_insert(NONE);
            next[i] = *head;
            *head = i as u32;
        }
        self.build = Some(Build {
            batch,
            keys,
            table,
            next,
            matched: vec![false; n],
        });
        Ok(())
    }

    /// Stream a right batch through the table.
    pub fn push_right(&mut self, right: RecordBatch) -> Result<()> {
        self.counts.right_rows += right.num_rows() as u64;
        let build = self
            .build
            .as_mut()
            .ok_or_else(|| Error::Internal("right batch before build".into()))?;
        let key_col = right.column(self.right_key);
        let hashed = key::hash_array(key_col.as_ref(), self.seed)?;
        let rkeys = CanonicalKeys::try_new(key_col.as_ref())?;
        let mut li: Vec<Option<u32>> = Vec::new();
        let mut ri: Vec<Option<u32>> = Vec::new();
        let keep_right = self.join_type.keeps_right();
        for j in 0..right.num_rows() {
            let mut found = false;
            if hashed.is_valid(j) {
                if let Some(&head) = build.table.get(&hashed.hashes[j]) {
                    let mut i = head;
                    while i != NONE {
                        if build.keys.eq_at(i as usize, &rkeys, j) {
                            found = true;
                            build.matched[i as usize] = true;
                            if self.join_type.outputs_right() {
                                li.push(Some(i));
                                ri.push(Some(j as u32));
                            }
                        }
                        i = build.next[i as usize];
                    }
                }
                if !found {
                    self.counts.right_unmatched += 1;
                }
            }
            if !found && keep_right {
                li.push(None);
                ri.push(Some(j as u32));
            }
        }
        if !li.is_empty() {
            let out = self.assemble(
                &UInt32Array::from(li),
                Some((&right, &UInt32Array::from(ri))),
            )?;
            self.writer.write(&out)?;
        }
        Ok(())
    }

    fn assemble(
        &self,
        left_idx: &UInt32Array,
        right: Option<(&RecordBatch, &UInt32Array)>,
    ) -> Result<RecordBatch> {
        let build = self.build.as_ref().expect("built");
        let n = left_idx.len();
        let cols: Vec<ArrayRef> = self
            .out_columns
            .iter()
            .zip(self.out_schema.fields())
            .map(|(c, f)| match (c.side, right) {
                (Side::Left, _) => take(build.batch.column(c.index).as_ref(), left_idx, None),
                (Side::Right, Some((rb, ri))) => take(rb.column(c.index).as_ref(), ri, None),
                // Right columns of left-only rows are all null.
                (Side::Right, None) => Ok(arrow::array::new_null_array(f.data_type(), n)),
            })
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| Error::arrow("assembling output rows", e))?;
        RecordBatch::try_new(self.out_schema.clone(), cols)
            .map_err(|e| Error::arrow("output batch", e))
    }

    /// No more right batches: emit what depends on the whole right side, close the part.
    pub fn finish(mut self) -> Result<ReduceCounts> {
        if self.build.is_none() {
            self.build()?;
        }
        let build = self.build.as_ref().expect("built");
        let wanted = match self.join_type {
            JoinType::LeftSemi => Some(true),
            JoinType::Left | JoinType::Full | JoinType::LeftAnti => Some(false),
            _ => None,
        };
        if let Some(flag) = wanted {
            let rows: Vec<u32> = build
                .matched
                .iter()
                .enumerate()
                .filter(|(_, m)| **m == flag)
                .map(|(i, _)| i as u32)
                .collect();
            for chunk in rows.chunks(65_536) {
                let out = self.assemble(&UInt32Array::from(chunk.to_vec()), None)?;
                self.writer.write(&out)?;
            }
        }
        let (rows, bytes) = self.writer.finish()?;
        self.counts.rows_out = rows;
        self.counts.bytes_out = bytes;
        Ok(self.counts)
    }
}

/// A batch whose string and binary view columns hold only the bytes their rows use. Filtered
/// or shuffled view arrays still point into the buffers they were decoded into (whole
/// dictionary pages, whole batches); a build side kept for the whole job would keep all of
/// those alive.
pub fn compact_views(batch: RecordBatch) -> RecordBatch {
    use arrow::array::AsArray;
    use arrow::datatypes::DataType;
    if !batch
        .columns()
        .iter()
        .any(|c| matches!(c.data_type(), DataType::Utf8View | DataType::BinaryView))
    {
        return batch;
    }
    let columns = batch
        .columns()
        .iter()
        .map(|c| -> ArrayRef {
            match c.data_type() {
                DataType::Utf8View => Arc::new(c.as_string_view().gc()),
                DataType::BinaryView => Arc::new(c.as_binary_view().gc()),
                _ => Arc::clone(c),
            }
        })
        .collect();
    // Same schema, same row count: only the buffers change.
    RecordBatch::try_new(batch.schema(), columns).unwrap_or(batch)
}

#[cfg(test)]
mod tests {
    use arrow::array::{Array, AsArray, Int64Array, StringViewArray};
    use arrow::compute::filter_record_batch;
    use arrow::datatypes::{DataType, Field, Schema};

    use super::*;

    #[test]
    fn compact_views_keeps_values_and_drops_unused_bytes() {
        let long: Vec<String> = (0..10_000).map(|i| format!("{i:040}")).collect();
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("s", DataType::Utf8View, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from_iter_values(0..10_000)),
                Arc::new(StringViewArray::from_iter_values(&long)),
            ],
        )
        .unwrap();
        let keep = arrow::array::BooleanArray::from_iter((0..10_000).map(|i| Some(i % 100 == 0)));
        let few = filter_record_batch(&batch, &keep).unwrap();
        let compact = compact_views(few.clone());
        assert_eq!(compact, few);
        let bytes = |b: &RecordBatch| -> usize {
            let a = b.column(1).as_string_view();
            a.data_buffers().iter().map(|d| d.len()).sum()
        };
        assert!(
            bytes(&few) >= 400_000,
            "the filtered array still points at every string"
        );
        assert_eq!(bytes(&compact), 100 * 40);
        assert!(compact.get_array_memory_size() * 10 < few.get_array_memory_size());
        assert_eq!(compact.column(1).len(), 100);
    }
}
