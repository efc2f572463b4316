//! Reading remote splits ahead of the workers.
//!
//! A worker that reads a split of a remote file waits a round trip for every request it
//! makes, and the map stage has as many workers as cores: with many small objects the job
//! waits on the network, not on its cores (200 files of one row group behind a 20 ms delay
//! took 2.4 s to map on 2 workers, one request after the other).
//!
//! [`ReadAhead`] starts the first requests of the next splits while the workers decode the
//! current ones. The workers take splits in order (see [`crate::map::run_splits`]), so when
//! one starts split `i`, the next [`WINDOW`] splits after it that read anything are fetched
//! on the I/O runtime: the byte ranges their readers will ask first (the stage says which,
//! [`ReadAhead::new`]). The worker that later reads split `j` gets its fetch as a
//! [`Prefetched`], which its [`RangeReader`](crate::plan::RangeReader) serves those ranges
//! from; a range it does not hold is fetched as before, so a guess that misses costs bytes,
//! never a wrong answer.
//!
//! A reader with a row filter (the join's key tiers, a `--where`) reads in two rounds: the
//! filter's columns, then the other columns of the row groups where rows passed. The first
//! round is certain; the second depends on the data. A stage that has one gives a second
//! guess, every column ([`ReadAhead::or_all`]): the fetches ahead start with the first round
//! alone (a few splits ahead, until four have been read), take in the second as well once
//! the readers have been fetching more bytes on their own than they were given (most row
//! groups have rows that pass), and go back to the first round for good if a quarter of the
//! bytes so fetched go unread.
//!
//! The bytes fetched ahead and not yet released (in flight, waiting, or held by a reader
//! until its split ends) are at most [`BUDGET`]; a split that needs more is read by its
//! worker alone. Local files are never read ahead: a read is a system call there.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;

use crate::error::{Error, Result};
use crate::plan::Plan;

/// How many splits fetched ahead may wait for their readers. Splits with nothing to fetch
/// ahead (a file whose key the prefilter rules out, a local file) do not count: with most
/// of a partitioned table's files ruled out, the few read are still fetched well ahead.
pub(crate) const WINDOW: usize = 32;

/// The most bytes fetched ahead and not yet released, unless `BLOOMJOIN_READ_AHEAD` says
/// otherwise ([`budget`]).
pub(crate) const BUDGET: u64 = 64 << 20;

/// The environment variable that sets the budget, in MiB (0 turns reading ahead off).
pub const BUDGET_VAR: &str = "BLOOMJOIN_READ_AHEAD";

/// The budget: [`BUDGET_VAR`] in MiB, else [`BUDGET`].
pub(crate) fn budget() -> Result<u64> {
    match std::env::var(BUDGET_VAR) {
        Err(_) => Ok(BUDGET),
        Ok(v) => crate::store::whole(&v)
            .and_then(|mib| mib.checked_mul(1 << 20))
            .ok_or_else(|| {
                Error::param(
                    BUDGET_VAR,
                    format!("{v:?} is not a whole number of MiB (0 turns reading ahead off)"),
                )
            }),
    }
}

/// Splits whose fetches ahead are judged before [`ReadAhead`] changes its guess; until then,
/// no more than this many splits are fetched ahead, so that the guess made then reaches
/// most of the splits of an input of few.
const JUDGE_AFTER: u64 = 4;

/// A guess at what a split's reader will ask for.
type Guess<'a> = Box<dyn Fn(usize) -> Vec<Range<u64>> + Sync + 'a>;

/// Fetches ahead of the workers of one map stage over `plan`'s splits.
pub(crate) struct ReadAhead<'a> {
    plan: &'a Plan,
    /// What a split's reader surely asks first.
    first: Guess<'a>,
    /// Everything it may ask ([`Self::or_all`]).
    all: Option<Guess<'a>>,
    /// How the fetches ahead of each guess fared.
    record: Arc<Record>,
    state: Mutex<State>,
    /// Bytes fetched ahead and not yet released.
    held: Arc<AtomicU64>,
    /// The most bytes fetched ahead and not yet released.
    budget: u64,
    enabled: bool,
}

#[derive(Default)]
struct State {
    /// The first split not yet considered.
    next: usize,
    /// Fetches started and not yet taken, by split.
    pending: HashMap<usize, Prefetched>,
}

impl<'a> ReadAhead<'a> {
    /// Read `plan`'s remote splits ahead; `ranges(split)` says which byte ranges of its file
    /// the split's reader will ask first (none: nothing to fetch ahead, as for a split the
    /// stage will skip).
    pub(crate) fn new(
        plan: &'a Plan,
        ranges: impl Fn(usize) -> Vec<Range<u64>> + Sync + 'a,
    ) -> Result<Self> {
        Ok(ReadAhead::with_budget(plan, ranges, budget()?))
    }

    /// A second guess: every byte range split `i`'s reader may ask for (a row filter's
    /// second round as well as its first).
    pub(crate) fn or_all(mut self, all: impl Fn(usize) -> Vec<Range<u64>> + Sync + 'a) -> Self {
        self.all = Some(Box::new(all));
        self
    }

    /// [`Self::new`] holding at most `budget` bytes (0: never reading ahead).
    fn with_budget(
        plan: &'a Plan,
        ranges: impl Fn(usize) -> Vec<Range<u64>> + Sync + 'a,
        budget: u64,
    ) -> Self {
        ReadAhead {
            plan,
            first: Box::new(ranges),
            all: None,
            record: Arc::new(Record::default()),
            state: Mutex::new(State::default()),
            held: Arc::new(AtomicU64::new(0)),
            budget,
            enabled: budget > 0 && plan.files.iter().any(|f| f.location.local_path().is_none()),
        }
    }

    /// A reader that never reads ahead.
    #[cfg(test)]
    pub(crate) fn off(plan: &'a Plan) -> Self {
        ReadAhead::with_budget(plan, |_| Vec::new(), 0)
    }

    /// Called by the worker that starts `split`, before it reads anything: the split's fetch
    /// ahead, if one was started, and the fetches of the splits after it are started.
    pub(crate) fn take(&self, split: usize) -> Option<Prefetched> {
        if !self.enabled {
            return None;
        }
        let mut state = self.state.lock().expect("read ahead");
        let mine = state.pending.remove(&split);
        state.next = state.next.max(split + 1);
        let window = match &self.all {
            Some(_) if !self.record.judged() => JUDGE_AFTER as usize,
            _ => WINDOW,
        };
        while state.next < self.plan.splits.len() && state.pending.len() < window {
            let j = state.next;
            let file = &self.plan.files[self.plan.splits[j].file];
            if file.location.local_path().is_some() {
                state.next += 1;
                continue;
            }
            let size = |rs: &[Range<u64>]| rs.iter().map(|r| r.end - r.start).sum::<u64>();
            // The second guess, unless it is more than may be held (a row group of 128 MB):
            // then the first.
            let all = self
                .all
                .as_ref()
                .filter(|_| self.record.take_all())
                .map(|all| all(j))
                .filter(|rs| size(rs) <= self.budget);
            let taken_all = all.is_some();
            let ranges = all.unwrap_or_else(|| (self.first)(j));
            let bytes = size(&ranges);
            if ranges.is_empty() || bytes > self.budget {
                // Nothing to fetch, or more than may be held: its worker reads it.
                state.next += 1;
                continue;
            }
            if self.held.load(Ordering::Relaxed) + bytes > self.budget {
                // Wait for readers to release some: the next split started tries again.
                break;
            }
            self.held.fetch_add(bytes, Ordering::Relaxed);
            let (store, path) = (file.location.store().clone(), file.location.path().clone());
            let wanted = ranges.clone();
            let handle = crate::store::spawn(async move { store.get_ranges(&path, &wanted).await });
            state.pending.insert(
                j,
                Prefetched(Arc::new(Inner {
                    ranges,
                    bytes,
                    data: Mutex::new(Data::Pending(handle)),
                    held: Arc::clone(&self.held),
                    served_here: AtomicU64::new(0),
                    missed_here: AtomicU64::new(0),
                    all: taken_all,
                    record: Arc::clone(&self.record),
                })),
            );
            state.next += 1;
        }
        mine
    }

    /// Bytes that readers took from fetches ahead (the fetches released so far: all of them
    /// once the stage's readers are done).
    pub(crate) fn served(&self) -> u64 {
        let r = &self.record;
        r.first.served.load(Ordering::Relaxed) + r.all.served.load(Ordering::Relaxed)
    }
}

/// The bytes of one split fetched ahead (clones share them). Dropping the last clone
/// releases them, and cancels the fetch if it has not finished.
#[derive(Clone)]
pub struct Prefetched(Arc<Inner>);

impl std::fmt::Debug for Prefetched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Prefetched({} ranges, {} bytes)",
            self.0.ranges.len(),
            self.0.bytes
        )
    }
}

struct Inner {
    ranges: Vec<Range<u64>>,
    bytes: u64,
    data: Mutex<Data>,
    held: Arc<AtomicU64>,
    /// Bytes its reader took from it.
    served_here: AtomicU64,
    /// Bytes its reader fetched on its own.
    missed_here: AtomicU64,
    /// Whether it holds the second guess.
    all: bool,
    record: Arc<Record>,
}

/// How the fetches ahead fared, per guess: their bytes, the bytes their readers took from
/// them and those they fetched on their own.
#[derive(Default)]
struct Record {
    first: Tally,
    all: Tally,
    /// The second guess left too many bytes unread: the first alone from now on.
    settled: std::sync::atomic::AtomicBool,
}

#[derive(Default)]
struct Tally {
    splits: AtomicU64,
    fetched: AtomicU64,
    served: AtomicU64,
    missed: AtomicU64,
}

impl Record {
    /// Whether enough fetches ahead of the first guess have been read to judge it.
    fn judged(&self) -> bool {
        self.first.splits.load(Ordering::Relaxed) >= JUDGE_AFTER
    }

    /// Whether the next fetch ahead takes the second guess: the readers of the first fetched
    /// more on their own than they took from it, and the second has not left a quarter of
    /// its bytes unread.
    fn take_all(&self) -> bool {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        if self.settled.load(Ordering::Relaxed) {
            return false;
        }
        let all = &self.all;
        if g(&all.splits) >= JUDGE_AFTER
            && g(&all.fetched).saturating_sub(g(&all.served)) * 4 > g(&all.fetched)
        {
            self.settled.store(true, Ordering::Relaxed);
            return false;
        }
        let first = &self.first;
        g(&first.splits) >= JUDGE_AFTER && g(&first.missed) > g(&first.served)
    }
}

enum Data {
    Pending(tokio::task::JoinHandle<object_store::Result<Vec<Bytes>>>),
    Ready(Vec<Bytes>),
    /// The fetch failed: its ranges are read again as if never fetched, and fail or not there.
    Failed,
}

impl Prefetched {
    /// For each range of `wanted`: its bytes, when a fetched range holds it whole (waiting for
    /// the fetch to finish), else `None`.
    pub(crate) fn serve(&self, wanted: &[Range<u64>]) -> Vec<Option<Bytes>> {
        let inner = &self.0;
        let mut data = inner.data.lock().expect("prefetched");
        if let Data::Pending(handle) = &mut *data {
            *data = match crate::store::block_on(handle) {
                Ok(Ok(bytes)) if bytes.len() == inner.ranges.len() => Data::Ready(bytes),
                _ => Data::Failed,
            };
        }
        let Data::Ready(bytes) = &*data else {
            return vec![None; wanted.len()];
        };
        wanted
            .iter()
            .map(|w| {
                let (r, b) = inner.ranges.iter().zip(bytes).find(|(r, b)| {
                    r.start <= w.start && w.end <= r.end && b.len() as u64 == r.end - r.start
                })?;
                let from = (w.start - r.start) as usize;
                inner
                    .served_here
                    .fetch_add(w.end - w.start, Ordering::Relaxed);
                Some(b.slice(from..from + (w.end - w.start) as usize))
            })
            .collect()
    }

    /// Its reader fetched `bytes` it did not hold.
    pub(crate) fn missed(&self, bytes: u64) {
        self.0.missed_here.fetch_add(bytes, Ordering::Relaxed);
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        match self.data.get_mut() {
            Ok(Data::Pending(h)) => h.abort(),
            // A fetch that finished: how it fared decides the next guesses.
            Ok(Data::Ready(_)) => {
                let tally = match self.all {
                    true => &self.record.all,
                    false => &self.record.first,
                };
                tally.splits.fetch_add(1, Ordering::Relaxed);
                tally.fetched.fetch_add(self.bytes, Ordering::Relaxed);
                let served = self.served_here.load(Ordering::Relaxed);
                tally.served.fetch_add(served, Ordering::Relaxed);
                let missed = self.missed_here.load(Ordering::Relaxed);
                tally.missed.fetch_add(missed, Ordering::Relaxed);
            }
            _ => {}
        }
        self.held.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// The byte ranges of the column chunks of the top-level columns `tops` in `row_groups` of
/// `file`: what a reader of those columns asks for (the page index is not read, so a chunk
/// is fetched whole).
pub(crate) fn chunk_ranges(
    file: &crate::plan::InputFile,
    row_groups: impl IntoIterator<Item = usize>,
    tops: &[usize],
) -> Vec<Range<u64>> {
    let meta = file.parquet();
    let schema = meta.file_metadata().schema_descr();
    let leaves: Vec<usize> = (0..schema.num_columns())
        .filter(|i| tops.contains(&schema.get_column_root_idx(*i)))
        .collect();
    let mut out = Vec::new();
    for rg in row_groups {
        let Some(group) = meta.row_groups().get(rg) else {
            continue;
        };
        for &leaf in &leaves {
            let (start, len) = group.column(leaf).byte_range();
            if len > 0 && start.saturating_add(len) <= file.size {
                out.push(start..start + len);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Int64Array, RecordBatch, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;

    use super::*;
    use crate::plan::{self, SplitOptions};
    use crate::read::{ReadOptions, SplitReader};
    use crate::store::Location;

    /// `files` objects of `groups` row groups of 100 rows each (an id and a string) in the
    /// in-process store under `dir`.
    fn remote_table(dir: &str, files: usize, groups: usize) -> Vec<String> {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        (0..files)
            .map(|f| {
                let mut buf = Vec::new();
                let props = WriterProperties::builder()
                    .set_max_row_group_row_count(Some(100))
                    .build();
                let mut w = ArrowWriter::try_new(&mut buf, schema.clone(), Some(props)).unwrap();
                for g in 0..groups {
                    let ids: Vec<i64> = (0..100)
                        .map(|r| (f * 10_000 + g * 100 + r) as i64)
                        .collect();
                    let s: Vec<String> = ids.iter().map(|i| format!("value {i}")).collect();
                    let batch = RecordBatch::try_new(
                        schema.clone(),
                        vec![
                            Arc::new(Int64Array::from(ids)),
                            Arc::new(StringArray::from(s)),
                        ],
                    )
                    .unwrap();
                    w.write(&batch).unwrap();
                }
                w.close().unwrap();
                let url = format!("memory:///{dir}/part-{f:03}.parquet");
                Location::parse(&url).unwrap().put(buf, true).unwrap();
                url
            })
            .collect()
    }

    /// Every split's batches, read in order, each with `ahead.take(i)`.
    fn read_all(plan: &Plan, ahead: &ReadAhead<'_>, columns: &[usize]) -> Vec<RecordBatch> {
        let mut out = Vec::new();
        for (i, split) in plan.splits.iter().enumerate() {
            let reader = SplitReader::try_new(
                plan.files[split.file].clone(),
                split,
                ReadOptions {
                    columns: columns.to_vec(),
                    batch_size: 64,
                    row_filter: None,
                    stored_form: Vec::new(),
                    ahead: ahead.take(i),
                    pages: None,
                },
            )
            .unwrap();
            for b in reader {
                out.push(b.unwrap());
            }
        }
        out
    }

    /// [`remote_table`] planned, one split per `split_rows` rows.
    fn remote_plan(dir: &str, files: usize, groups: usize, split_rows: u64) -> Plan {
        remote_table(dir, files, groups);
        plan::plan(&[format!("memory:///{dir}")], |_| {
            SplitOptions::at_least(split_rows)
        })
        .unwrap()
    }

    /// The chunks of `columns` in split `i`.
    fn chunks(plan: &Plan, i: usize, columns: &[usize]) -> Vec<Range<u64>> {
        let s = &plan.splits[i];
        chunk_ranges(&plan.files[s.file], s.row_groups.clone(), columns)
    }

    fn size(rs: Vec<Range<u64>>) -> u64 {
        rs.iter().map(|r| r.end - r.start).sum()
    }

    #[test]
    fn splits_read_ahead_give_the_same_batches_and_release_their_bytes() {
        let plan = remote_plan("ahead-test/same", 5, 3, 150);
        assert_eq!(plan.files.len(), 5);
        assert!(plan.splits.len() > 5, "{} splits", plan.splits.len());
        for columns in [vec![0], vec![1], vec![0, 1]] {
            let plain = read_all(&plan, &ReadAhead::off(&plan), &columns);
            let ranges = |i: usize| chunks(&plan, i, &columns);
            let ahead = ReadAhead::with_budget(&plan, ranges, BUDGET);
            let read = read_all(&plan, &ahead, &columns);
            assert_eq!(plain, read, "columns {columns:?}");
            // Every split but the first was fetched ahead, and its reader took all of it.
            let expected: u64 = (1..plan.splits.len()).map(|i| size(ranges(i))).sum();
            assert!(expected > 0);
            assert_eq!(ahead.served(), expected, "columns {columns:?}");
            assert_eq!(ahead.held.load(Ordering::Relaxed), 0, "bytes still held");
        }
    }

    #[test]
    fn a_guess_that_misses_is_read_as_before() {
        let plan = remote_plan("ahead-test/miss", 3, 2, 100);
        let plain = read_all(&plan, &ReadAhead::off(&plan), &[0, 1]);
        // Ahead: the chunks of column 0 only, cut short by a byte; the reader asks for both
        // columns whole.
        let ahead = ReadAhead::with_budget(
            &plan,
            |i| {
                chunks(&plan, i, &[0])
                    .into_iter()
                    .map(|r| r.start..r.end - 1)
                    .collect()
            },
            BUDGET,
        );
        assert_eq!(read_all(&plan, &ahead, &[0, 1]), plain);
        assert_eq!(ahead.served(), 0);
        // A split taken out of order, and splits never taken (a failed job): their fetches
        // are released when dropped.
        let ahead = ReadAhead::with_budget(&plan, |i| chunks(&plan, i, &[0, 1]), BUDGET);
        drop(ahead.take(0));
        assert!(ahead.held.load(Ordering::Relaxed) > 0);
        let last = plan.splits.len() - 1;
        let p = ahead.take(last).expect("fetched ahead");
        drop(p);
        let held = Arc::clone(&ahead.held);
        drop(ahead);
        assert_eq!(held.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn the_second_guess_is_taken_when_readers_fetch_more_on_their_own() {
        let plan = remote_plan("ahead-test/widen", 60, 1, 100);
        let plain = read_all(&plan, &ReadAhead::off(&plan), &[0, 1]);
        // The first guess is the id column; the readers ask for both.
        let ahead = ReadAhead::with_budget(&plan, |i| chunks(&plan, i, &[0]), BUDGET)
            .or_all(|i| chunks(&plan, i, &[0, 1]));
        assert_eq!(read_all(&plan, &ahead, &[0, 1]), plain);
        let ids: u64 = (1..60).map(|i| size(chunks(&plan, i, &[0]))).sum();
        let strings: u64 = (1..60).map(|i| size(chunks(&plan, i, &[1]))).sum();
        // Until 4 readers were done, 4 splits ahead with the first guess (splits 1 to 8);
        // from then on the second, 32 ahead.
        let late: u64 = (9..60).map(|i| size(chunks(&plan, i, &[1]))).sum();
        assert!(late < strings);
        assert_eq!(ahead.served(), ids + late);
        assert!(!ahead.record.settled.load(Ordering::Relaxed));
    }

    #[test]
    fn a_second_guess_over_the_budget_gives_way_to_the_first() {
        let plan = remote_plan("ahead-test/budget", 30, 1, 100);
        let n = plan.splits.len();
        let ids_max = (0..n).map(|i| size(chunks(&plan, i, &[0]))).max().unwrap();
        let both_min = (0..n)
            .map(|i| size(chunks(&plan, i, &[0, 1])))
            .min()
            .unwrap();
        let budget = 2 * ids_max;
        assert!(budget < both_min, "{budget} {both_min}");
        let plain = read_all(&plan, &ReadAhead::off(&plan), &[0, 1]);
        let ahead = ReadAhead::with_budget(&plan, |i| chunks(&plan, i, &[0]), budget)
            .or_all(|i| chunks(&plan, i, &[0, 1]));
        assert_eq!(read_all(&plan, &ahead, &[0, 1]), plain);
        // Every split but the first was fetched ahead, with the first guess alone.
        let ids: u64 = (1..n).map(|i| size(chunks(&plan, i, &[0]))).sum();
        assert_eq!(ahead.served(), ids);
        assert_eq!(ahead.held.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn splits_with_nothing_to_fetch_do_not_count_in_the_window() {
        let plan = remote_plan("ahead-test/sparse", 200, 1, 100);
        // One split in ten reads anything (the others' files ruled out by their key).
        let ahead = ReadAhead::with_budget(
            &plan,
            |i| match i % 10 {
                0 => chunks(&plan, i, &[0]),
                _ => Vec::new(),
            },
            BUDGET,
        );
        drop(ahead.take(0));
        let mut pending: Vec<usize> = ahead
            .state
            .lock()
            .unwrap()
            .pending
            .keys()
            .copied()
            .collect();
        pending.sort_unstable();
        assert_eq!(pending, (1..=19).map(|i| i * 10).collect::<Vec<_>>());
    }

    #[test]
    fn the_guess_follows_the_bytes_readers_take() {
        let tally = |t: &Tally, splits, fetched, served, missed| {
            t.splits.store(splits, Ordering::Relaxed);
            t.fetched.store(fetched, Ordering::Relaxed);
            t.served.store(served, Ordering::Relaxed);
            t.missed.store(missed, Ordering::Relaxed);
        };
        let r = Record::default();
        assert!(!r.take_all(), "nothing judged yet");
        tally(&r.first, 3, 300, 300, 900);
        assert!(!r.take_all(), "too few splits to judge");
        tally(&r.first, 4, 400, 400, 1200);
        assert!(r.take_all(), "readers fetched 3x on their own");
        tally(&r.first, 40, 4000, 4000, 3000);
        assert!(!r.take_all(), "the first guess served most");
        tally(&r.first, 4, 400, 400, 1200);
        tally(&r.all, 4, 1000, 800, 0);
        assert!(r.take_all(), "a fifth unread is within the quarter");
        tally(&r.all, 4, 1000, 700, 0);
        assert!(!r.take_all(), "three tenths unread");
        tally(&r.all, 4, 1000, 1000, 0);
        assert!(!r.take_all(), "settled on the first guess for good");
    }

    #[test]
    fn a_fetch_ahead_that_fails_leaves_the_error_to_the_reader() {
        let plan = remote_plan("ahead-test/gone", 3, 1, 100);
        let gone = plan.files[1].location.clone();
        gone.delete().unwrap();
        let ahead = ReadAhead::with_budget(&plan, |i| chunks(&plan, i, &[0]), BUDGET);
        drop(ahead.take(0));
        let split = &plan.splits[1];
        let reader = SplitReader::try_new(
            plan.files[1].clone(),
            split,
            ReadOptions {
                columns: vec![0],
                batch_size: 64,
                row_filter: None,
                stored_form: Vec::new(),
                ahead: ahead.take(1),
                pages: None,
            },
        )
        .unwrap();
        let err = reader.into_iter().try_for_each(|b| b.map(|_| ()));
        let msg = err.unwrap_err().to_string();
        assert!(msg.contains("ahead-test/gone/part-001.parquet"), "{msg}");
        assert_eq!(ahead.served(), 0);
    }

    #[test]
    fn local_files_are_never_read_ahead() {
        let dir = tempfile::tempdir().unwrap();
        let urls = remote_table("ahead-test/local", 2, 2);
        for (i, url) in urls.iter().enumerate() {
            let bytes = Location::parse(url).unwrap().read_all().unwrap();
            std::fs::write(dir.path().join(format!("p{i}.parquet")), bytes).unwrap();
        }
        let plan = plan::plan(&[dir.path().display().to_string()], |_| {
            SplitOptions::at_least(100)
        })
        .unwrap();
        let ahead = ReadAhead::with_budget(&plan, |i| chunks(&plan, i, &[0]), BUDGET);
        for i in 0..plan.splits.len() {
            assert!(ahead.take(i).is_none());
        }
        assert_eq!(ahead.held.load(Ordering::Relaxed), 0);
    }
}
