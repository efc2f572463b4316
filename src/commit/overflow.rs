//! The rows of a task's partition directories that found every part slot taken (more
//! directories than the task keeps parts open reached it, in no order): held in memory, then
//! spilled to local disk in runs sorted by directory, and handed back at the end directory by
//! directory in name order, so that each directory still gets one part per task. Spark's
//! writer falls back to sorting the same way once it has too many files open.
//!
//! A run is an Arrow IPC stream: one batch or more per directory, the directories in name
//! order, with the list of each batch's directory kept beside it in memory. Handing the rows
//! back merges the runs, reading each one front to back, a batch at a time; past
//! [`MAX_RUNS`] runs, they are merged into one first, so that at most that many files are open.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use arrow::ipc::reader::StreamReader;
use arrow::ipc::writer::StreamWriter;

use crate::error::{Error, Result};

/// Bytes of rows held in memory before they are spilled as a run.
pub(crate) const RUN_BYTES: usize = 32 << 20;

/// The most runs kept before they are merged into one (and so the most files a hand-back
/// keeps open).
pub(crate) const MAX_RUNS: usize = 16;

/// Tells the spill directories of the tasks of one process apart.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// One spilled run.
struct Run {
    path: PathBuf,
    /// The directory of each of its batches, in order (sorted).
    dirs: Vec<Arc<str>>,
}

/// A task's overflow rows (see the module docs).
pub(crate) struct Overflow {
    schema: SchemaRef,
    /// The spill directory, made with the first run; removed on drop.
    dir: Option<PathBuf>,
    held: BTreeMap<Arc<str>, Vec<RecordBatch>>,
    held_bytes: usize,
    run_bytes: usize,
    runs: Vec<Run>,
    /// Runs written so far (their file names).
    written: usize,
    /// The rows that went through here, by directory.
    dir_rows: HashMap<Arc<str>, u64>,
}

impl Overflow {
    /// Overflow rows of the files' `schema`, spilled in runs of `run_bytes`.
    pub(crate) fn new(schema: SchemaRef, run_bytes: usize) -> Self {
        Overflow {
            schema,
            dir: None,
            held: BTreeMap::new(),
            held_bytes: 0,
            run_bytes,
            runs: Vec::new(),
            written: 0,
            dir_rows: HashMap::new(),
        }
    }

    /// Rows that went through here.
    #[cfg(test)]
    fn rows(&self) -> u64 {
        self.dir_rows.values().sum()
    }

    /// Runs spilled to disk (merges included).
    #[cfg(test)]
    fn runs_written(&self) -> usize {
        self.written
    }

    /// Hold `rows` of directory `dir`; spill a run when the rows held pass the run size.
    pub(crate) fn push(&mut self, dir: &Arc<str>, rows: RecordBatch) -> Result<()> {
        // A slice of a larger batch would keep (and spill) all of its buffers.
        let rows = crate::reduce::compact(rows);
        self.held_bytes += crate::shuffle::data_bytes(&rows) as usize;
        *self.dir_rows.entry(Arc::clone(dir)).or_default() += rows.num_rows() as u64;
        self.held.entry(Arc::clone(dir)).or_default().push(rows);
        if self.held_bytes > self.run_bytes {
            self.spill()?;
        }
        Ok(())
    }

    /// Write the rows held as a run (merging the runs first when there are [`MAX_RUNS`]).
    fn spill(&mut self) -> Result<()> {
        if self.runs.len() >= MAX_RUNS {
            let runs = std::mem::take(&mut self.runs);
            let mut w = self.run_writer()?;
            merge(runs, BTreeMap::new(), |dir, b| w.write(dir, &b))?;
            self.runs.push(w.finish()?);
        }
        let held = std::mem::take(&mut self.held);
        self.held_bytes = 0;
        let mut w = self.run_writer()?;
        for (dir, pieces) in held {
            if let Some(one) = one_batch(pieces)? {
                w.write(&dir, &one)?;
            }
        }
        self.runs.push(w.finish()?);
        Ok(())
    }

    fn run_writer(&mut self) -> Result<RunWriter> {
        let dir = match &self.dir {
            Some(d) => d.clone(),
            None => {
                let d = std::env::temp_dir().join(format!(
                    "bloomjoin-partitions-{}-{}",
                    std::process::id(),
                    NEXT.fetch_add(1, Ordering::Relaxed)
                ));
                std::fs::create_dir_all(&d).map_err(|e| Error::io(d.display().to_string(), e))?;
                self.dir = Some(d.clone());
                d
            }
        };
        let path = dir.join(format!("run-{:05}.arrow", self.written));
        self.written += 1;
        let name = path.display().to_string();
        let f = File::create(&path).map_err(|e| Error::io(name.clone(), e))?;
        let writer =
            StreamWriter::try_new_buffered(f, &self.schema).map_err(|e| Error::arrow(name, e))?;
        Ok(RunWriter {
            run: Run {
                path,
                dirs: Vec::new(),
            },
            writer,
        })
    }

    /// Hand every row back, directory by directory in name order: `f(dir, n, rows)` once per
    /// batch, all of a directory's batches before the next directory's, `n` the directory's
    /// rows in all.
    pub(crate) fn drain(
        mut self,
        mut f: impl FnMut(&Arc<str>, u64, RecordBatch) -> Result<()>,
    ) -> Result<()> {
        let runs = std::mem::take(&mut self.runs);
        let held = std::mem::take(&mut self.held);
        let dir_rows = std::mem::take(&mut self.dir_rows);
        merge(runs, held, |dir, rows| {
            f(dir, dir_rows.get(dir).copied().unwrap_or(0), rows)
        })
    }
}

impl Drop for Overflow {
    fn drop(&mut self) {
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// A run being written.
struct RunWriter {
    run: Run,
    writer: StreamWriter<BufWriter<File>>,
}

impl RunWriter {
    fn write(&mut self, dir: &Arc<str>, rows: &RecordBatch) -> Result<()> {
        self.writer
            .write(rows)
            .map_err(|e| Error::arrow(self.run.path.display().to_string(), e))?;
        self.run.dirs.push(Arc::clone(dir));
        Ok(())
    }

    fn finish(mut self) -> Result<Run> {
        self.writer
            .finish()
            .map_err(|e| Error::arrow(self.run.path.display().to_string(), e))?;
        Ok(self.run)
    }
}

/// A directory's held pieces as one batch (the piece itself when there is one); `None` for
/// none.
fn one_batch(pieces: Vec<RecordBatch>) -> Result<Option<RecordBatch>> {
    match pieces.len() {
        0 | 1 => Ok(pieces.into_iter().next()),
        _ => arrow::compute::concat_batches(&pieces[0].schema(), &pieces)
            .map(Some)
            .map_err(|e| Error::arrow("partitioned output overflow", e)),
    }
}

/// The rows of `runs` and `held`, directory by directory in name order (see
/// [`Overflow::drain`]); each run is read front to back and removed once read.
fn merge(
    runs: Vec<Run>,
    mut held: BTreeMap<Arc<str>, Vec<RecordBatch>>,
    mut f: impl FnMut(&Arc<str>, RecordBatch) -> Result<()>,
) -> Result<()> {
    let dirs: BTreeSet<Arc<str>> = runs
        .iter()
        .flat_map(|r| r.dirs.iter().cloned())
        .chain(held.keys().cloned())
        .collect();
    let mut readers = Vec::with_capacity(runs.len());
    for r in &runs {
        let name = r.path.display().to_string();
        let file = File::open(&r.path).map_err(|e| Error::io(name.clone(), e))?;
        let reader =
            StreamReader::try_new_buffered(file, None).map_err(|e| Error::arrow(name, e))?;
        readers.push((reader, 0usize));
    }
    for dir in &dirs {
        for (run, (reader, at)) in runs.iter().zip(readers.iter_mut()) {
            while run.dirs.get(*at) == Some(dir) {
                let name = || run.path.display().to_string();
                let batch = reader
                    .next()
                    .ok_or_else(|| Error::Internal(format!("{}: the run ends early", name())))?
                    .map_err(|e| Error::arrow(name(), e))?;
                *at += 1;
                f(dir, batch)?;
            }
        }
        // The pieces held of a directory, as one batch: a part's writer pays its fixed costs
        // per write.
        if let Some(one) = one_batch(held.remove(dir).unwrap_or_default())? {
            f(dir, one)?;
        }
    }
    drop(readers);
    for r in &runs {
        let _ = std::fs::remove_file(&r.path);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, Int64Array, StringViewArray};
    use arrow::datatypes::{DataType, Field, Schema};

    /// Rows of 7 directories in no order, through runs of a few hundred bytes (so many runs
    /// that they are merged): every row comes back once, with its directory, the directories
    /// in name order, a directory's rows in the order they came.
    #[test]
    fn rows_come_back_by_directory_in_order() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("v", DataType::Int64, false),
            Field::new("s", DataType::Utf8View, false),
        ]));
        let names: Vec<Arc<str>> = (0..7)
            .map(|i| Arc::from(format!("p={}", (i * 5) % 7)))
            .collect();
        let mut o = Overflow::new(schema.clone(), 300);
        let mut want: BTreeMap<Arc<str>, Vec<i64>> = BTreeMap::new();
        for b in 0..60i64 {
            let dir = &names[(b * 3 % 7) as usize];
            let v: Vec<i64> = (0..10).map(|i| b * 10 + i).collect();
            // A slice of a larger batch: spilled compacted.
            let s =
                StringViewArray::from_iter_values(v.iter().map(|i| format!("a long value {i}")));
            let full = RecordBatch::try_new(
                schema.clone(),
                vec![Arc::new(Int64Array::from(v.clone())), Arc::new(s)],
            )
            .unwrap();
            o.push(dir, full.slice(2, 8)).unwrap();
            want.entry(Arc::clone(dir)).or_default().extend(&v[2..]);
        }
        assert_eq!(o.rows(), 480);
        assert!(o.runs_written() > MAX_RUNS, "{} runs", o.runs_written());
        assert!(o.runs.len() <= MAX_RUNS);
        let spill_dir = o.dir.clone().unwrap();
        let mut got: Vec<(Arc<str>, Vec<i64>)> = Vec::new();
        o.drain(|dir, n, b| {
            assert_eq!(n, want[dir].len() as u64);
            let v = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            let s = b
                .column(1)
                .as_any()
                .downcast_ref::<StringViewArray>()
                .unwrap();
            for i in 0..b.num_rows() {
                assert_eq!(s.value(i), format!("a long value {}", v.value(i)));
            }
            match got.last_mut() {
                Some((d, rows)) if d == dir => rows.extend(v.values()),
                _ => got.push((Arc::clone(dir), v.values().to_vec())),
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(got, want.into_iter().collect::<Vec<_>>());
        assert!(!spill_dir.exists(), "the spill directory is removed");
    }

    #[test]
    fn rows_held_in_memory_alone_touch_no_disk() {
        let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
        let mut o = Overflow::new(schema.clone(), RUN_BYTES);
        for (i, d) in ["b", "a", "b"].into_iter().enumerate() {
            let b = RecordBatch::try_new(
                schema.clone(),
                vec![Arc::new(Int64Array::from(vec![i as i64]))],
            )
            .unwrap();
            o.push(&Arc::from(d), b).unwrap();
        }
        assert!(o.dir.is_none());
        let mut got = Vec::new();
        o.drain(|d, n, b| {
            assert_eq!(n, if d.as_ref() == "a" { 1 } else { 2 });
            let v = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            got.push((d.to_string(), v.value(0), v.len()));
            Ok(())
        })
        .unwrap();
        // A directory's pieces come back as one batch.
        assert_eq!(got, [("a".into(), 1, 1), ("b".into(), 0, 2)]);
    }
}
