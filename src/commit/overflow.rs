//! The rows of a task's partition directories that found every part slot taken (more
//! directories than the task keeps parts open reached it, in no order): held in memory, then
//! spilled to local disk in runs sorted by directory, and handed back at the end directory by
//! directory in name order, so that each directory still gets one part per task. Spark's
//! writer falls back to sorting the same way once it has too many files open.
//!
//! - What is held is a list of batches, each of them the overflow rows of one split of the
//!   task's rows, gathered directory by directory in name order, with each directory's row
//!   count beside it: a few large batches, however many directories they hold.
//! - A run is an Arrow IPC stream of batches of [`CHUNK_ROWS`] rows (the last one shorter):
//!   the rows of every held batch merged by directory, in name order, with each directory's
//!   row count kept beside it in memory. A chunk holds the rows of many directories, or a
//!   part of one.
//! - Handing the rows back merges the runs and the held batches by directory, reading each
//!   run front to back a chunk at a time, and hands each directory's rows on in batches of
//!   about [`HAND_BYTES`]; past [`MAX_RUNS`] runs, they are merged into one first, so that at
//!   most that many files are open.
//! - A directory's rows come back in the order they were pushed.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use arrow::ipc::reader::StreamReader;
use arrow::ipc::writer::StreamWriter;

use crate::error::{Error, Result};
use crate::shuffle::data_bytes;

/// Bytes of rows held in memory before they are spilled as a run.
pub(crate) const RUN_BYTES: usize = 32 << 20;

/// The most runs kept before they are merged into one (and so the most files a hand-back
/// keeps open).
pub(crate) const MAX_RUNS: usize = 16;

/// Rows in each batch of a run.
const CHUNK_ROWS: usize = 8192;

/// The most bytes of a directory's rows handed back in one batch.
const HAND_BYTES: usize = 8 << 20;

/// Tells the spill directories of the tasks of one process apart.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// Directories and their row counts, in the order of their rows (by name, each once).
type Dirs = Vec<(Arc<str>, usize)>;

/// One spilled run.
struct Run {
    path: PathBuf,
    dirs: Dirs,
}

/// Rows of several directories, directory by directory in name order.
struct Sorted {
    rows: RecordBatch,
    dirs: Dirs,
}

/// A task's overflow rows (see the module docs).
pub(crate) struct Overflow {
    schema: SchemaRef,
    /// The spill directory, made with the first run; removed on drop.
    dir: Option<PathBuf>,
    held: Vec<Sorted>,
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
            held: Vec::new(),
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

    /// Hold `rows`, the rows of the directories `dirs` (each with its row count, in name
    /// order, each once) one directory after another; spill a run when the rows held pass
    /// the run size.
    pub(crate) fn push(&mut self, rows: RecordBatch, dirs: Dirs) -> Result<()> {
        if rows.num_rows() == 0 {
            return Ok(());
        }
        let counted: usize = dirs.iter().map(|(_, n)| n).sum();
        if counted != rows.num_rows() || !dirs.is_sorted_by(|a, b| a.0 < b.0) {
            return Err(Error::Internal(format!(
                "partitioned output overflow: {} rows pushed as {counted} of {} directories out of order",
                rows.num_rows(),
                dirs.len()
            )));
        }
        // Rows gathered from larger batches would keep (and spill) all of their buffers.
        let rows = crate::reduce::compact(rows);
        self.held_bytes += data_bytes(&rows) as usize;
        for (dir, n) in &dirs {
            *self.dir_rows.entry(Arc::clone(dir)).or_default() += *n as u64;
        }
        self.held.push(Sorted { rows, dirs });
        if self.held_bytes > self.run_bytes {
            self.spill()?;
        }
        Ok(())
    }

    /// Write the rows held as a run, merged with the runs written so far when there are
    /// [`MAX_RUNS`] of them.
    fn spill(&mut self) -> Result<()> {
        let mut sources = Vec::new();
        if self.runs.len() >= MAX_RUNS {
            for run in std::mem::take(&mut self.runs) {
                sources.push(Source::run(run)?);
            }
        }
        sources.extend(std::mem::take(&mut self.held).into_iter().map(Source::held));
        self.held_bytes = 0;
        let mut w = self.run_writer()?;
        merge(&mut sources, |dir, rows| w.write(dir, rows))?;
        drop(sources);
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
            chunk: Vec::new(),
            chunk_rows: 0,
        })
    }

    /// Hand every row back, directory by directory in name order: `f(dir, n, rows)` once per
    /// batch, all of a directory's batches before the next directory's, `n` the directory's
    /// rows in all. A batch joins the pieces a directory's rows were read in until they pass
    /// [`HAND_BYTES`].
    pub(crate) fn drain(
        mut self,
        mut f: impl FnMut(&Arc<str>, u64, RecordBatch) -> Result<()>,
    ) -> Result<()> {
        let mut sources = Vec::new();
        for run in std::mem::take(&mut self.runs) {
            sources.push(Source::run(run)?);
        }
        sources.extend(std::mem::take(&mut self.held).into_iter().map(Source::held));
        let dir_rows = std::mem::take(&mut self.dir_rows);
        let mut pieces: Vec<RecordBatch> = Vec::new();
        let mut bytes = 0;
        let mut current: Option<Arc<str>> = None;
        let mut hand = |dir: &Arc<str>, pieces: &mut Vec<RecordBatch>| -> Result<()> {
            if let Some(one) = one_batch(std::mem::take(pieces))? {
                f(dir, dir_rows.get(dir).copied().unwrap_or(0), one)?;
            }
            Ok(())
        };
        merge(&mut sources, |dir, rows| {
            if current.as_ref() != Some(dir) {
                if let Some(done) = current.replace(Arc::clone(dir)) {
                    hand(&done, &mut pieces)?;
                }
                bytes = 0;
            }
            bytes += data_bytes(&rows) as usize;
            pieces.push(rows);
            if bytes >= HAND_BYTES {
                hand(dir, &mut pieces)?;
                bytes = 0;
            }
            Ok(())
        })?;
        if let Some(done) = current {
            hand(&done, &mut pieces)?;
        }
        Ok(())
    }
}

impl Drop for Overflow {
    fn drop(&mut self) {
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// A run being written: the rows come a directory's piece at a time, and go out in batches
/// of [`CHUNK_ROWS`].
struct RunWriter {
    run: Run,
    writer: StreamWriter<BufWriter<File>>,
    chunk: Vec<RecordBatch>,
    chunk_rows: usize,
}

impl RunWriter {
    fn write(&mut self, dir: &Arc<str>, mut rows: RecordBatch) -> Result<()> {
        match self.run.dirs.last_mut() {
            Some((d, n)) if d == dir => *n += rows.num_rows(),
            _ => self.run.dirs.push((Arc::clone(dir), rows.num_rows())),
        }
        while rows.num_rows() > 0 {
            let take = rows.num_rows().min(CHUNK_ROWS - self.chunk_rows);
            self.chunk.push(rows.slice(0, take));
            rows = rows.slice(take, rows.num_rows() - take);
            self.chunk_rows += take;
            if self.chunk_rows == CHUNK_ROWS {
                self.write_chunk()?;
            }
        }
        Ok(())
    }

    fn write_chunk(&mut self) -> Result<()> {
        self.chunk_rows = 0;
        let Some(chunk) = one_batch(std::mem::take(&mut self.chunk))? else {
            return Ok(());
        };
        // The pieces are slices of larger batches: write only their own bytes.
        let chunk = crate::reduce::compact(chunk);
        self.writer
            .write(&chunk)
            .map_err(|e| Error::arrow(self.run.path.display().to_string(), e))
    }

    fn finish(mut self) -> Result<Run> {
        self.write_chunk()?;
        self.writer
            .finish()
            .map_err(|e| Error::arrow(self.run.path.display().to_string(), e))?;
        Ok(self.run)
    }
}

/// Where a merge takes rows from: a run, read a chunk at a time, or a held batch.
struct Source {
    /// The directories still to come, with their rows.
    dirs: VecDeque<(Arc<str>, usize)>,
    /// The batch being read, and the first of its rows still to come.
    rows: Option<RecordBatch>,
    at: usize,
    /// The run read (none for a held batch), removed once read.
    run: Option<(PathBuf, StreamReader<BufReader<File>>)>,
}

impl Source {
    fn held(sorted: Sorted) -> Self {
        Source {
            dirs: sorted.dirs.into(),
            rows: Some(sorted.rows),
            at: 0,
            run: None,
        }
    }

    fn run(run: Run) -> Result<Self> {
        let name = run.path.display().to_string();
        let file = File::open(&run.path).map_err(|e| Error::io(name.clone(), e))?;
        let reader =
            StreamReader::try_new_buffered(file, None).map_err(|e| Error::arrow(name, e))?;
        Ok(Source {
            dirs: run.dirs.into(),
            rows: None,
            at: 0,
            run: Some((run.path, reader)),
        })
    }

    /// The directory whose rows come next.
    fn next_dir(&self) -> Option<&Arc<str>> {
        self.dirs.front().map(|(d, _)| d)
    }

    /// Give the next directory's rows to `f`, in slices of the batches read.
    fn take(&mut self, f: &mut impl FnMut(&Arc<str>, RecordBatch) -> Result<()>) -> Result<()> {
        let Some((dir, mut left)) = self.dirs.pop_front() else {
            return Ok(());
        };
        while left > 0 {
            let have = self.rows.as_ref().map_or(0, |b| b.num_rows() - self.at);
            if have == 0 {
                let Some((path, reader)) = &mut self.run else {
                    return Err(Error::Internal(
                        "partitioned output overflow: held rows end early".into(),
                    ));
                };
                let name = || path.display().to_string();
                let batch = reader
                    .next()
                    .ok_or_else(|| Error::Internal(format!("{}: the run ends early", name())))?
                    .map_err(|e| Error::arrow(name(), e))?;
                self.rows = Some(batch);
                self.at = 0;
                continue;
            }
            let n = have.min(left);
            let rows = self.rows.as_ref().expect("rows to read").slice(self.at, n);
            self.at += n;
            left -= n;
            f(&dir, rows)?;
        }
        Ok(())
    }
}

impl Drop for Source {
    fn drop(&mut self) {
        if let Some((path, _)) = &self.run {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A directory's pieces as one batch (the piece itself when there is one); `None` for none.
fn one_batch(pieces: Vec<RecordBatch>) -> Result<Option<RecordBatch>> {
    match pieces.len() {
        0 | 1 => Ok(pieces.into_iter().next()),
        _ => arrow::compute::concat_batches(&pieces[0].schema(), &pieces)
            .map(Some)
            .map_err(|e| Error::arrow("partitioned output overflow", e)),
    }
}

/// The rows of `sources`, directory by directory in name order, and each directory's rows
/// source by source: `f(dir, rows)` for each slice.
fn merge(
    sources: &mut [Source],
    mut f: impl FnMut(&Arc<str>, RecordBatch) -> Result<()>,
) -> Result<()> {
    while let Some(dir) = sources.iter().filter_map(Source::next_dir).min().cloned() {
        for s in sources.iter_mut() {
            if s.next_dir() == Some(&dir) {
                s.take(&mut f)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, Int64Array, StringViewArray};
    use arrow::datatypes::{DataType, Field, Schema};
    use std::collections::BTreeMap;

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("v", DataType::Int64, false),
            Field::new("s", DataType::Utf8View, false),
        ]))
    }

    /// Rows `v` with their text, as a slice of a larger batch (spilled compacted).
    fn rows(schema: &SchemaRef, v: &[i64]) -> RecordBatch {
        let mut all = vec![-1];
        all.extend(v);
        let s = StringViewArray::from_iter_values(all.iter().map(|i| format!("a long value {i}")));
        let full = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from(all)), Arc::new(s)],
        )
        .unwrap();
        full.slice(1, v.len())
    }

    /// Pushes of the rows of 7 directories, a few each, through runs of `run_bytes`: every
    /// row comes back once, with its directory and its text, the directories in name order,
    /// a directory's rows in the order they came, in batches whose counts add up.
    fn round_trip(run_bytes: usize, pushes: i64, per_dir: i64) -> Overflow {
        let schema = schema();
        let names: Vec<Arc<str>> = (0..7)
            .map(|i| Arc::from(format!("p={}", (i * 5) % 7)))
            .collect();
        let mut o = Overflow::new(schema.clone(), run_bytes);
        let mut want: BTreeMap<Arc<str>, Vec<i64>> = BTreeMap::new();
        let mut next = 0i64;
        for b in 0..pushes {
            // 3 directories a push, each once, in name order.
            let mut dirs: Vec<Arc<str>> = (0..3)
                .map(|k| Arc::clone(&names[((b * 3 + k * 2) % 7) as usize]))
                .collect();
            dirs.sort();
            dirs.dedup();
            let mut v = Vec::new();
            let mut counts = Vec::new();
            for d in dirs {
                let n = 1 + (b + next) % per_dir;
                let rows: Vec<i64> = (next..next + n).collect();
                next += n;
                want.entry(Arc::clone(&d)).or_default().extend(&rows);
                v.extend(rows);
                counts.push((d, n as usize));
            }
            o.push(rows(&schema, &v), counts).unwrap();
        }
        assert_eq!(o.rows(), next as u64);
        let spill_dir = o.dir.clone();
        let runs = o.runs_written();
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
        if let Some(d) = spill_dir {
            assert!(!d.exists(), "the spill directory is removed");
        }
        let mut o = Overflow::new(schema, run_bytes);
        o.written = runs;
        o
    }

    #[test]
    fn rows_come_back_by_directory_in_order() {
        // Runs of a few hundred bytes: so many runs that they are merged.
        let o = round_trip(300, 60, 10);
        assert!(o.runs_written() > MAX_RUNS, "{} runs", o.runs_written());
        // Directories of more rows than a run's chunk, spilled and merged.
        let o = round_trip(64 << 10, 200, 3 * CHUNK_ROWS as i64);
        assert!(o.runs_written() > MAX_RUNS, "{} runs", o.runs_written());
        // A handful of runs, and rows still held at the end.
        let o = round_trip(2000, 30, 10);
        assert!(
            (2..MAX_RUNS).contains(&o.runs_written()),
            "{}",
            o.runs_written()
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Any pushes (each a few of 9 directories, in name order, with any row counts),
        /// through runs of any size: every row comes back once, in its directory, the
        /// directories in name order, a directory's rows in the order they were pushed, with
        /// the directory's count; and the spill directory is gone.
        #[test]
        fn any_pushes_come_back_by_directory_in_order(
            pushes in proptest::collection::vec(
                proptest::collection::btree_map(0usize..9, 1usize..40, 1..5), 1..40),
            run_bytes in proptest::prop_oneof![
                proptest::strategy::Just(1usize), 200usize..20_000, proptest::strategy::Just(RUN_BYTES)],
        ) {
            let schema = schema();
            let names: Vec<Arc<str>> = (0..9).map(|i| Arc::from(format!("d={i}"))).collect();
            let mut o = Overflow::new(schema.clone(), run_bytes);
            let mut want: BTreeMap<Arc<str>, Vec<i64>> = BTreeMap::new();
            let mut next = 0i64;
            for push in &pushes {
                let mut v = Vec::new();
                let mut dirs = Vec::new();
                for (&d, &n) in push {
                    let rows: Vec<i64> = (next..next + n as i64).collect();
                    next += n as i64;
                    want.entry(Arc::clone(&names[d])).or_default().extend(&rows);
                    v.extend(rows);
                    dirs.push((Arc::clone(&names[d]), n));
                }
                o.push(rows(&schema, &v), dirs).unwrap();
            }
            let spill_dir = o.dir.clone();
            let mut got: Vec<(Arc<str>, Vec<i64>)> = Vec::new();
            o.drain(|dir, n, b| {
                assert_eq!(n, want[dir].len() as u64);
                let v = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                match got.last_mut() {
                    Some((d, rows)) if d == dir => rows.extend(v.values()),
                    _ => got.push((Arc::clone(dir), v.values().to_vec())),
                }
                Ok(())
            })
            .unwrap();
            proptest::prop_assert_eq!(got, want.into_iter().collect::<Vec<_>>());
            proptest::prop_assert!(spill_dir.is_none_or(|d| !d.exists()));
        }
    }

    #[test]
    fn rows_held_in_memory_alone_touch_no_disk() {
        let schema = schema();
        let mut o = Overflow::new(schema.clone(), RUN_BYTES);
        let (a, b): (Arc<str>, Arc<str>) = (Arc::from("a"), Arc::from("b"));
        o.push(rows(&schema, &[0, 1]), vec![(Arc::clone(&b), 2)])
            .unwrap();
        o.push(
            rows(&schema, &[2, 3, 4]),
            vec![(Arc::clone(&a), 1), (Arc::clone(&b), 2)],
        )
        .unwrap();
        assert!(o.dir.is_none());
        let mut got = Vec::new();
        o.drain(|d, n, batch| {
            let v = batch
                .column(0)
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap();
            got.push((d.to_string(), n, v.values().to_vec()));
            Ok(())
        })
        .unwrap();
        // A directory's pieces come back as one batch.
        assert_eq!(
            got,
            [("a".into(), 1, vec![2]), ("b".into(), 4, vec![0, 1, 3, 4])]
        );
    }

    #[test]
    fn pushes_that_miscount_their_rows_are_refused() {
        let schema = schema();
        let mut o = Overflow::new(schema.clone(), RUN_BYTES);
        let (a, b): (Arc<str>, Arc<str>) = (Arc::from("a"), Arc::from("b"));
        for dirs in [
            vec![(Arc::clone(&a), 2)],
            vec![(Arc::clone(&b), 1), (Arc::clone(&a), 2)],
            vec![(Arc::clone(&a), 1), (Arc::clone(&a), 2)],
        ] {
            let e = o.push(rows(&schema, &[0, 1, 2]), dirs).unwrap_err();
            assert!(e.to_string().contains("overflow"), "{e}");
        }
        assert_eq!(o.rows(), 0);
    }

    /// A directory's rows past the hand-back size come back in more than one batch.
    #[test]
    fn large_directories_come_back_in_bounded_batches() {
        let schema = schema();
        let mut o = Overflow::new(schema.clone(), RUN_BYTES);
        let n = 200_000i64;
        let v: Vec<i64> = (0..n).collect();
        let d: Arc<str> = Arc::from("d");
        o.push(rows(&schema, &v), vec![(Arc::clone(&d), n as usize)])
            .unwrap();
        o.spill().unwrap();
        let mut batches = 0;
        let mut seen = 0i64;
        o.drain(|_, total, b| {
            assert_eq!(total, n as u64);
            // Pieces of a run's chunks, joined until they pass the hand-back size.
            let chunk = CHUNK_ROWS * data_bytes(&b) as usize / b.num_rows();
            assert!(
                data_bytes(&b) as usize <= HAND_BYTES + chunk,
                "{}",
                data_bytes(&b)
            );
            let v = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            for x in v.values() {
                assert_eq!(*x, seen);
                seen += 1;
            }
            batches += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, n);
        assert!(batches > 1, "{batches}");
    }
}
