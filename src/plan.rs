//! Input planning: expand locations into Parquet files, read their footers, and cut the
//! row groups into splits balanced by rows.
//!
//! In: the `--input` locations (paths, directories, globs, object-store URLs). Out: a
//! [`Plan`] of [`InputFile`]s (location, size, footer, Arrow schema) and [`Split`]s (one file,
//! a contiguous run of whole row groups). Splits never cross files and their order is fixed
//! by the sorted file list, so any worker count sees the same splits. [`side`] plans the two
//! sides of a join on top of this.

use std::ops::Range;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use bytes::Bytes;
use futures::TryStreamExt;
use object_store::ObjectStoreExt;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData, ParquetMetaDataPushDecoder};
use parquet::DecodeResult;

use crate::error::{Error, Result};
use crate::store::{block_on, Location};

pub mod hive;
pub(crate) mod side;

/// Reads byte ranges of one file: plain positioned reads for local files, ranged GETs
/// (coalesced by `object_store`) for remote ones.
#[derive(Debug)]
pub struct RangeReader {
    location: Location,
    file: Option<std::fs::File>,
    /// Ranges of a remote file fetched ahead of this reader ([`crate::read::ahead`]).
    ahead: Option<crate::read::ahead::Prefetched>,
}

impl RangeReader {
    /// Open a reader for `location`.
    pub fn open(location: &Location) -> Result<Self> {
        let file = match location.local_path() {
            Some(p) => Some(std::fs::File::open(p).map_err(|e| Error::io(location.as_str(), e))?),
            None => None,
        };
        Ok(RangeReader {
            location: location.clone(),
            file,
            ahead: None,
        })
    }

    /// Serve the ranges `ahead` holds from it (a remote file's split fetched ahead).
    pub(crate) fn with_ahead(mut self, ahead: Option<crate::read::ahead::Prefetched>) -> Self {
        self.ahead = ahead;
        self
    }

    /// The file's size in bytes.
    pub fn size(&self) -> Result<u64> {
        match &self.file {
            Some(f) => f
                .metadata()
                .map(|m| m.len())
                .map_err(|e| Error::io(self.location.as_str(), e)),
            None => match self.location.listed_size() {
                Some(size) => Ok(size),
                None => block_on(self.location.store().head(self.location.path()))
                    .map(|m| m.size)
                    .map_err(|source| Error::store(self.location.to_string(), source)),
            },
        }
    }

    /// Fetch the ranges.
    pub fn fetch(&self, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        match &self.file {
            Some(f) => ranges
                .iter()
                .map(|r| {
                    let mut buf = vec![0u8; (r.end - r.start) as usize];
                    read_at(f, &mut buf, r.start)
                        .map_err(|e| Error::io(self.location.as_str(), e))?;
                    Ok(Bytes::from(buf))
                })
                .collect(),
            None => {
                let mut out = match &self.ahead {
                    Some(a) => a.serve(ranges),
                    None => vec![None; ranges.len()],
                };
                let missing: Vec<Range<u64>> = ranges
                    .iter()
                    .zip(&out)
                    .filter(|(_, o)| o.is_none())
                    .map(|(r, _)| r.clone())
                    .collect();
                if !missing.is_empty() {
                    if let Some(a) = &self.ahead {
                        a.missed(missing.iter().map(|r| r.end - r.start).sum());
                    }
                    let mut got = block_on(
                        self.location
                            .store()
                            .get_ranges(self.location.path(), &missing),
                    )
                    .map_err(|source| Error::store(self.location.to_string(), source))?
                    .into_iter();
                    for slot in out.iter_mut().filter(|o| o.is_none()) {
                        *slot = got.next();
                    }
                }
                out.into_iter()
                    .map(|o| {
                        o.ok_or_else(|| {
                            Error::Internal(format!(
                                "{}: the store answered fewer ranges than asked",
                                self.location
                            ))
                        })
                    })
                    .collect()
            }
        }
    }
}

#[cfg(unix)]
fn read_at(f: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, offset)
}

#[cfg(not(unix))]
fn read_at(f: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = f.try_clone()?;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

/// Bytes read from an object's end to take its footer in one request (more are read when
/// the footer is larger).
const FOOTER_GUESS: u64 = 64 * 1024;

/// The same for a local file, where a second read costs a system call, not a round trip:
/// copying 64 KiB of each of 2,526 daily files of 93 KB took more time than their footers'
/// decoding.
const LOCAL_FOOTER_GUESS: u64 = 8 * 1024;

/// How many remote files' footers are fetched at once while planning: each fetch waits on the
/// network, not a core.
const REMOTE_OPENS: usize = 32;

/// A change to the Arrow schema a file is read with (`None`: none to make).
type SchemaStep<'a> = &'a dyn Fn(&SchemaRef) -> Option<SchemaRef>;

/// One Parquet input file with its footer.
#[derive(Debug)]
pub struct InputFile {
    /// Where it is.
    pub location: Location,
    /// Size in bytes.
    pub size: u64,
    /// The decoded footer and the Arrow schema. `INTERVAL` columns are read as their 12
    /// bytes (see [`crate::read::logical`]).
    pub metadata: ArrowReaderMetadata,
    /// The Parquet logical types of top-level columns that their Arrow types do not say.
    pub annotations: Vec<(String, crate::read::logical::Annotation)>,
}

impl InputFile {
    /// Read the footer of the file at `location`.
    pub fn open(location: Location) -> Result<InputFile> {
        let reader = RangeReader::open(&location)?;
        let size = reader.size()?;
        let perr = |source| Error::Parquet {
            location: location.to_string(),
            source,
        };
        let mut decoder = ParquetMetaDataPushDecoder::try_new(size)
            .map_err(perr)?
            .with_page_index_policy(PageIndexPolicy::Skip);
        // The file's tail in one read, which holds most footers whole: one request for an
        // object instead of one for the footer's length and another for the footer.
        // (A file too small to hold a footer is left to the decoder's error.)
        if size >= 8 {
            let guess = match location.local_path() {
                Some(_) => LOCAL_FOOTER_GUESS,
                None => FOOTER_GUESS,
            };
            let tail = size.saturating_sub(guess)..size;
            let data = reader.fetch(std::slice::from_ref(&tail))?;
            decoder.push_ranges(vec![tail], data).map_err(perr)?;
        }
        let meta = loop {
            match decoder.try_decode().map_err(perr)? {
                DecodeResult::NeedsData(ranges) => {
                    let data = reader.fetch(&ranges)?;
                    decoder.push_ranges(ranges, data).map_err(perr)?;
                }
                DecodeResult::Data(m) => break m,
                DecodeResult::Finished => {
                    return Err(Error::Input {
                        location: location.to_string(),
                        reason: "the Parquet footer could not be read".into(),
                    })
                }
            }
        };
        let (meta, annotations) = crate::read::logical::read_footer(meta);
        let derived = ArrowReaderMetadata::try_new(Arc::new(meta), ArrowReaderOptions::new())
            .map_err(perr)?;
        // The schema the file is read with, where it differs from the one derived from its
        // footer, each step over the one before:
        // - INT96 timestamps in microseconds (see `int96_as_micros`);
        // - each annotated column's field saying its Parquet logical type, for the checks of
        //   conditions and keys and for the output's writer;
        // - dictionary columns with 8- or 16-bit indices (pandas categoricals) read with
        //   32-bit ones: a join's build side concatenates batches whose dictionaries together
        //   outgrow 127 values, and an output row group holds the values of many input ones,
        //   which pyarrow and Polars then cannot read back under the narrow type.
        let steps: [SchemaStep; 3] = [
            &|s| crate::read::logical::int96_as_micros(derived.metadata(), s),
            &|s| crate::read::logical::annotated_schema(s, &annotations),
            &|s| wide_dictionaries(s),
        ];
        let mut schema = Arc::clone(derived.schema());
        let mut changed = false;
        for step in steps {
            if let Some(s) = step(&schema) {
                schema = s;
                changed = true;
            }
        }
        let metadata = match changed {
            true => ArrowReaderMetadata::try_new(
                Arc::clone(derived.metadata()),
                ArrowReaderOptions::new().with_schema(schema),
            )
            .map_err(perr)?,
            false => derived,
        };
        Ok(InputFile {
            location,
            size,
            metadata,
            annotations,
        })
    }

    /// The Parquet footer.
    pub fn parquet(&self) -> &Arc<ParquetMetaData> {
        self.metadata.metadata()
    }

    /// Whether the file's top-level column `column` is a UUID: 16 bytes of Parquet's `UUID`
    /// logical type (DuckDB's `UUID`), which the reader hands on as `FixedSizeBinary(16)`.
    pub fn is_uuid(&self, column: &str) -> bool {
        self.annotation(column) == Some(crate::read::logical::Annotation::Uuid)
    }

    /// Refuse a key column `column` of a Parquet type whose bytes are not its value: an
    /// `INTERVAL`, which SQL engines compare normalized (DuckDB's `INTERVAL '1 month'` equals
    /// `INTERVAL '30 days'`, and `'1 day'` equals `'24 hours'`) but which reaches us as 12 bytes.
    ///
    /// Also refuse times of day adjusted to UTC (DuckDB's `TIMETZ`) in this file where the
    /// side's `first` file holds local ones (`TIME`), or the other way round: they meet only
    /// under a session time zone, as a timestamp with a time zone and one without.
    pub fn check_key(&self, column: &str, first: &InputFile) -> Result<()> {
        use crate::read::logical::Annotation::TimeUtc;
        let utc = |f: &InputFile| f.annotation(column) == Some(TimeUtc);
        let is_time = |f: &InputFile| {
            f.schema().field_with_name(column).is_ok_and(|c| {
                matches!(
                    c.data_type(),
                    arrow::datatypes::DataType::Time32(_) | arrow::datatypes::DataType::Time64(_)
                )
            })
        };
        if is_time(self) && is_time(first) && utc(self) != utc(first) {
            let kind = |f: &InputFile| crate::read::logical::times_of_day(utc(f));
            return Err(Error::Column {
                file: self.location.to_string(),
                column: column.to_string(),
                reason: format!(
                    "holds {}, but {} holds {}: they meet only under a session time zone; write the column as one type in every file",
                    kind(self),
                    first.location,
                    kind(first)
                ),
            });
        }
        match self.annotation(column) {
            Some(crate::read::logical::Annotation::Interval) => Err(Error::Column {
                file: self.location.to_string(),
                column: column.to_string(),
                reason: "an INTERVAL cannot be a key: SQL engines compare intervals normalized (INTERVAL '1 month' equals '30 days', '1 day' equals '24 hours'), and its stored months, days and milliseconds would not meet so; key on a column of the interval in one unit".into(),
            }),
            _ => Ok(()),
        }
    }

    /// The Parquet logical type of top-level column `column` that its Arrow type does not
    /// say, if it has one.
    pub fn annotation(&self, column: &str) -> Option<crate::read::logical::Annotation> {
        self.annotations
            .iter()
            .find(|(c, _)| c == column)
            .map(|(_, a)| a.clone())
    }

    /// The Arrow schema.
    pub fn schema(&self) -> &SchemaRef {
        self.metadata.schema()
    }

    /// Total rows.
    pub fn num_rows(&self) -> u64 {
        self.parquet().file_metadata().num_rows().max(0) as u64
    }

    /// Rows of row group `i`.
    pub fn row_group_rows(&self, i: usize) -> u64 {
        self.parquet().row_group(i).num_rows().max(0) as u64
    }

    /// Number of row groups.
    pub fn num_row_groups(&self) -> usize {
        self.parquet().num_row_groups()
    }
}

/// A unit of map work: a contiguous run of whole row groups of one file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Split {
    /// Index of the file in [`Plan::files`].
    pub file: usize,
    /// Row groups `[start, end)`.
    pub row_groups: Range<usize>,
    /// Rows in those row groups.
    pub rows: u64,
}

/// The files and splits of one side of a job.
#[derive(Debug)]
pub struct Plan {
    /// The input files, sorted by location within each `--input`, in `--input` order.
    pub files: Vec<Arc<InputFile>>,
    /// The splits, file by file.
    pub splits: Vec<Split>,
    /// The files' Hive partition columns and values, when their paths have `name=value`
    /// directories (and they are read).
    pub partitions: Option<hive::Partitions>,
    /// Files not opened: their partition values fail the `--where` (when every file's do,
    /// the first is opened for the side's columns, and counted here: it has no splits).
    pub files_pruned: usize,
    /// Files not opened: their key, a partition column alone, is not in the `--filter`
    /// ([`InputOptions::key_filter`]).
    pub files_pruned_by_key: usize,
    /// Every file was pruned: `files` holds the first, opened for the side's columns alone.
    pub schema_only: bool,
}

/// How a side's inputs are read.
#[derive(Debug, Clone, Default)]
pub struct InputOptions {
    /// Read `name=value` directories in the files' paths as columns ([`hive`]).
    pub hive_partitioning: bool,
    /// The side's `--where`: a file whose partition values fail one of its conjuncts is not
    /// opened (the side's columns are those of the files read).
    pub predicate: Option<crate::expr::Predicate>,
    /// A join's right side with a trained filter: a file whose key, a partition column alone,
    /// the filter rules out is not opened.
    pub key_filter: Option<KeyFilter>,
}

/// Prunes a side's files by a key of one partition column alone, before they are opened:
/// a file's rows all hold its value, which the filter is probed with once.
#[derive(Debug, Clone)]
pub struct KeyFilter {
    /// The key column.
    pub key: String,
    /// The filter of the other side's keys.
    pub filter: Arc<crate::bloom::BloomFilter>,
    /// `--nulls-equal`: a null key may match (whether the other side has one is not known
    /// yet), so it is kept.
    pub keep_null: bool,
}

impl KeyFilter {
    /// Whether no row holding `value` (a one-row array) can be joined: a null key (but under
    /// `--nulls-equal`), or one the filter rules out. A value of a family the filter does not
    /// hold is left to the checks after planning (kept).
    fn rules_out(&self, value: &dyn arrow::array::Array) -> bool {
        if value.is_null(0) {
            return !self.keep_null;
        }
        let Ok(family) = crate::key::KeyFamily::check(value.data_type(), "", &self.key) else {
            return false;
        };
        if self.filter.check_family(family).is_err() {
            return false;
        }
        match self.filter.hash_columns(&[value]) {
            Ok(k) => !self.filter.probe_hashes(&k.hashes).value(0),
            // A value the filter's format cannot hold equals no key it holds.
            Err(Error::Unrepresentable(_)) => true,
            Err(_) => false,
        }
    }
}

impl Plan {
    /// Drop the files whose Hive partition values fail `predicate` (see
    /// [`hive::Partitions::may_pass`]) once planned: a `--join-where` conjunct pushed into the
    /// side, known only once both sides' columns are. Their footers were read, but no row of
    /// them will be. When every file fails, the first stays for the side's columns, with no
    /// splits, as [`plan_with`] leaves it. Counted in [`Plan::files_pruned`].
    pub(crate) fn prune_partitions(&mut self, predicate: &crate::expr::Predicate) -> Result<()> {
        let Some(partitions) = self.partitions.take() else {
            return Ok(());
        };
        let pass = match self.schema_only {
            true => vec![true; self.files.len()],
            false => partitions.may_pass(predicate)?,
        };
        if pass.iter().all(|p| *p) {
            self.partitions = Some(partitions);
            return Ok(());
        }
        let mut keep: Vec<usize> = (0..self.files.len()).filter(|i| pass[*i]).collect();
        self.files_pruned += self.files.len() - keep.len();
        self.schema_only = keep.is_empty();
        if self.schema_only {
            keep.push(0);
        }
        let mut index = vec![usize::MAX; self.files.len()];
        for (to, &from) in keep.iter().enumerate() {
            index[from] = to;
        }
        self.files = keep.iter().map(|&i| Arc::clone(&self.files[i])).collect();
        let splits = std::mem::take(&mut self.splits);
        self.splits = match self.schema_only {
            true => Vec::new(),
            false => splits
                .into_iter()
                .filter(|s| pass[s.file])
                .map(|s| Split {
                    file: index[s.file],
                    ..s
                })
                .collect(),
        };
        self.partitions = Some(partitions.subset(&keep)?);
        Ok(())
    }

    /// Files read: all but the pruned ones.
    pub fn files_read(&self) -> usize {
        self.files.len() - usize::from(self.schema_only)
    }

    /// Total rows of all files.
    pub fn num_rows(&self) -> u64 {
        self.files.iter().map(|f| f.num_rows()).sum()
    }

    /// What the splits will read, from the footers alone (`--dry-run`): `decode(file)` gives
    /// the top-level columns read of file `file` (its index in [`Plan::files`]).
    pub(crate) fn extent<'a>(&self, decode: impl Fn(usize) -> &'a [usize]) -> Extent {
        let mut e = Extent {
            files: self.files_read(),
            splits: self.splits.len(),
            ..Extent::default()
        };
        for s in &self.splits {
            let file = &self.files[s.file];
            let tops = decode(s.file);
            e.row_groups += s.row_groups.len();
            e.rows += s.rows;
            e.bytes += crate::read::ahead::chunk_ranges(file, s.row_groups.clone(), tops)
                .iter()
                .map(|r| r.end - r.start)
                .sum::<u64>();
            let meta = file.parquet();
            let schema = meta.file_metadata().schema_descr();
            for rg in s.row_groups.clone() {
                let group = meta.row_group(rg);
                e.bytes_uncompressed += (0..schema.num_columns())
                    .filter(|&leaf| tops.contains(&schema.get_column_root_idx(leaf)))
                    .map(|leaf| group.column(leaf).uncompressed_size().max(0) as u64)
                    .sum::<u64>();
            }
        }
        e
    }

    /// The row groups of the splits that `p`'s statistics rule out, and their rows
    /// (`--dry-run`; the map tasks skip them): `fill(file)` gives the columns filled in for
    /// file `file` (its index in [`Plan::files`]). Pages are judged only as they are read.
    pub(crate) fn where_skips<'a>(
        &self,
        p: &crate::expr::Predicate,
        fill: impl Fn(usize) -> &'a [side::Filled],
    ) -> WhereSkips {
        let mut out = WhereSkips::default();
        for s in &self.splits {
            let file = &self.files[s.file];
            let (_, skipped) = p.partition_row_groups(
                file.parquet(),
                file.schema(),
                s.row_groups.clone().collect(),
                fill(s.file),
            );
            out.row_groups += skipped.len();
            out.rows += skipped
                .iter()
                .map(|rg| file.row_group_rows(*rg))
                .sum::<u64>();
        }
        out
    }

    /// Keep only the `index`-th of `count` deterministic slices of the splits (round robin
    /// over the split list), for sharded training.
    pub fn shard(&mut self, index: usize, count: usize) {
        let splits = std::mem::take(&mut self.splits);
        self.splits = splits
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % count == index)
            .map(|(_, s)| s)
            .collect();
    }
}

/// What a side's splits will read, from its files' footers ([`Plan::extent`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Extent {
    /// Files read (the pruned ones left out).
    pub files: usize,
    /// Splits (map tasks).
    pub splits: usize,
    /// Row groups in the splits.
    pub row_groups: usize,
    /// Rows in the splits.
    pub rows: u64,
    /// Compressed bytes of the column chunks read: what is fetched, before any pruning by
    /// statistics or Bloom filters.
    pub bytes: u64,
    /// The same chunks uncompressed (the footers' sizes): about what decoding them produces.
    pub bytes_uncompressed: u64,
}

/// What a side's `--where` rules out from the row groups' statistics ([`Plan::where_skips`]).
#[derive(Debug, Default, Clone, Copy)]
pub struct WhereSkips {
    /// Row groups ruled out.
    pub row_groups: usize,
    /// Their rows.
    pub rows: u64,
}

impl std::fmt::Display for WhereSkips {
    /// What follows a side's `where <condition>` in a dry run's summary.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.row_groups {
            0 => write!(f, " (its statistics rule out no row group)"),
            n => write!(
                f,
                " (its statistics rule out {n} row group{}, {} row{})",
                if n == 1 { "" } else { "s" },
                self.rows,
                if self.rows == 1 { "" } else { "s" }
            ),
        }
    }
}

impl std::fmt::Display for Extent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = |k: u64, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        write!(
            f,
            "{}, {}, {}, {}, {} of column chunks ({} uncompressed)",
            n(self.files as u64, "file", "files"),
            n(self.row_groups as u64, "row group", "row groups"),
            n(self.rows, "row", "rows"),
            n(self.splits as u64, "split", "splits"),
            crate::report::human_bytes(self.bytes),
            crate::report::human_bytes(self.bytes_uncompressed),
        )
    }
}

/// How many splits a worker gets by default, when the row groups are small enough.
///
/// Workers take the next split when done with one, so the job ends at most one split after
/// the first worker runs out: the smaller the splits, the less the other workers wait at the
/// end. Four a worker cut TPC-H lineitem at scale 1 (53 row groups) into 8 splits of 6 or 7
/// row groups, one worker got 28 and the other 25, and the joins over it took 3 % more wall
/// time than with one row group a split (docs/BENCHMARKS.md, "Splits of a row group"). A
/// split costs its reader's setup, too little to measure at 262 splits of lineitem at scale 5;
/// the cap keeps files of thousands of tiny row groups from making a split of each.
pub const SPLITS_PER_WORKER: u64 = 32;

/// [`SPLITS_PER_WORKER`] for files in an object store. There a split's requests are what it
/// costs: the reads ahead ([`crate::read::ahead`]) fetch a split's ranges together and the
/// Parquet Bloom filter tier fetches a split's filters together, so a split per row group
/// would make a request (a round trip, and a priced GET) of every row group where four a
/// worker make one of several.
pub const REMOTE_SPLITS_PER_WORKER: u64 = 4;

/// How to cut row groups into splits.
#[derive(Debug, Clone, Copy)]
pub struct SplitOptions {
    /// Close a split once it holds at least this many rows.
    pub target_rows: u64,
    /// [`Self::target_rows`] for a file in an object store.
    pub remote_target_rows: u64,
    /// Instead, close a split before the row group that would take it further from
    /// `target_rows` than it is (the nearest size, not the next one above). Without it, row
    /// groups a little smaller than the target pair up: TPC-H part at scale 5 (10 row groups
    /// of 100,000 rows, target 125,000 for 2 workers) made 5 splits of 200,000, three for
    /// one worker and two for the other.
    pub nearest: bool,
}

impl SplitOptions {
    /// `--split-rows`: splits of at least `rows` rows.
    pub fn at_least(rows: u64) -> Self {
        SplitOptions {
            target_rows: rows,
            remote_target_rows: rows,
            nearest: false,
        }
    }

    /// `--split-rows` when given ([`SplitOptions::at_least`]), else the default for
    /// `total_rows` over `workers` ([`SplitOptions::for_workers`]).
    pub fn for_job(split_rows: Option<u64>, total_rows: u64, workers: usize) -> Self {
        match split_rows {
            Some(rows) => SplitOptions::at_least(rows),
            None => SplitOptions::for_workers(total_rows, workers),
        }
    }

    /// The default: about [`SPLITS_PER_WORKER`] splits per worker
    /// ([`REMOTE_SPLITS_PER_WORKER`] of files in an object store), at least one row group
    /// each, each as near that size as the row groups allow.
    pub fn for_workers(total_rows: u64, workers: usize) -> Self {
        let target = |per_worker: u64| (total_rows / (workers as u64 * per_worker).max(1)).max(1);
        SplitOptions {
            target_rows: target(SPLITS_PER_WORKER),
            remote_target_rows: target(REMOTE_SPLITS_PER_WORKER),
            nearest: true,
        }
    }

    /// These options for a file in an object store: [`Self::remote_target_rows`] is the target.
    fn remote(self) -> Self {
        SplitOptions {
            target_rows: self.remote_target_rows,
            ..self
        }
    }
}

/// Expand, open and split `inputs`. The files are opened in parallel on the current pool.
///
/// A file reached more than once (as a directory, a glob and a file; through a symlink or
/// another spelling of its path) is read once, at its first place in that order. (Tests; the
/// jobs plan with [`plan_with`].)
#[cfg(test)]
pub fn plan(inputs: &[String], split: impl Fn(u64) -> SplitOptions) -> Result<Plan> {
    plan_with(inputs, &InputOptions::default(), split)
}

/// [`plan`] with the partition columns of `opts`, pruning files by them.
pub fn plan_with(
    inputs: &[String],
    opts: &InputOptions,
    split: impl Fn(u64) -> SplitOptions,
) -> Result<Plan> {
    let mut locations = Vec::new();
    // Where each file's partition directories start: below the working directory for a
    // relative local input (its path as the user wrote it), else the whole path.
    let mut bases = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for input in inputs {
        let relative = !input.contains("://") && std::path::Path::new(input).is_relative();
        let base = relative
            .then(std::env::current_dir)
            .transpose()
            .ok()
            .flatten();
        for l in expand(input)? {
            if seen.insert(l.resolved()?) {
                locations.push(l);
                bases.push(base.clone());
            }
        }
    }
    let partitions = match opts.hive_partitioning {
        true => hive::Partitions::discover(&locations, &bases)?,
        false => None,
    };
    // Files whose partition values fail the --where are not opened; when none is left, the
    // first is, for the side's columns (with no splits).
    let mut keep: Vec<usize> = match (&partitions, &opts.predicate) {
        (Some(p), Some(pred)) => {
            let pass = p.may_pass(pred)?;
            (0..locations.len()).filter(|i| pass[*i]).collect()
        }
        _ => (0..locations.len()).collect(),
    };
    let files_pruned = locations.len() - keep.len();
    // Then those whose key, a partition column alone, the filter rules out.
    let mut files_pruned_by_key = 0;
    if let (Some(p), Some(kf)) = (&partitions, &opts.key_filter) {
        if p.field(&kf.key).is_some() {
            keep.retain(|i| {
                let out = p
                    .value(*i, &kf.key)
                    .is_some_and(|v| kf.rules_out(v.as_ref()));
                files_pruned_by_key += usize::from(out);
                !out
            });
        }
    }
    let schema_only = keep.is_empty() && !locations.is_empty();
    if schema_only {
        keep.push(0);
    }
    let partitions = partitions.map(|p| p.subset(&keep)).transpose()?;
    use rayon::prelude::*;
    let threads = REMOTE_OPENS.min(keep.len()).max(1);
    let open = || {
        keep.par_iter()
            .map(|i| InputFile::open(locations[*i].clone()).map(Arc::new))
            .collect::<Result<Vec<_>>>()
    };
    // Local footers on the current pool; remote ones many at a time, on threads that wait.
    let files: Vec<Arc<InputFile>> = if locations.iter().all(|l| l.local_path().is_some()) {
        open()?
    } else {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("bloomjoin-open-{i}"))
            .build()
            .map_err(|e| Error::Internal(format!("cannot start the footer threads: {e}")))?
            .install(open)?
    };
    if let Some(p) = &partitions {
        // A column of one name in the file and in its path has no one answer.
        for f in &files {
            if let Some(c) = p
                .schema
                .fields()
                .iter()
                .find(|c| f.schema().index_of(c.name()).is_ok())
            {
                return Err(Error::Column {
                    file: f.location.to_string(),
                    column: c.name().clone(),
                    reason: format!(
                        "a column of the file and a partition directory ({}=) of its path: rename one, or pass --no-hive-partitioning to read the file's column alone",
                        c.name()
                    ),
                });
            }
        }
    }
    let splits = match schema_only {
        true => Vec::new(),
        false => {
            let total: u64 = files.iter().map(|f| f.num_rows()).sum();
            make_splits(&files, split(total))
        }
    };
    Ok(Plan {
        files,
        splits,
        partitions,
        files_pruned,
        files_pruned_by_key,
        schema_only,
    })
}

/// Cut every file's row groups into splits of at least `target_rows` rows (or, with
/// [`SplitOptions::nearest`], as near it as the row groups allow).
pub fn make_splits(files: &[Arc<InputFile>], opts: SplitOptions) -> Vec<Split> {
    let mut splits = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        let rows: Vec<u64> = (0..f.num_row_groups())
            .map(|rg| f.row_group_rows(rg))
            .collect();
        let opts = match f.location.local_path() {
            Some(_) => opts,
            None => opts.remote(),
        };
        for (row_groups, rows) in cut_row_groups(&rows, opts) {
            splits.push(Split {
                file: fi,
                row_groups,
                rows,
            });
        }
    }
    splits
}

/// The runs of consecutive row groups (with their rows) that [`make_splits`] cuts a file
/// whose row groups hold `rows` into.
fn cut_row_groups(rows: &[u64], opts: SplitOptions) -> Vec<(std::ops::Range<usize>, u64)> {
    let mut out = Vec::new();
    let (mut start, mut held) = (0, 0u64);
    for (rg, &n) in rows.iter().enumerate() {
        held += n;
        let close = match rows.get(rg + 1) {
            None => true,
            // Nearer the target now than with the next row group.
            Some(&next) if opts.nearest => {
                held >= opts.target_rows
                    || (held + next).abs_diff(opts.target_rows) > opts.target_rows - held
            }
            Some(_) => held >= opts.target_rows,
        };
        if close {
            out.push((start..rg + 1, held));
            start = rg + 1;
            held = 0;
        }
    }
    out
}

/// True when `s` has glob characters (`*`, `?`, `[`).
pub fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// The location of a glob's literal part: its components before the first one with a glob
/// character (`data/*/x.parquet` -> `data`, `s3://b/p*/x` -> `s3://b`, `*.parquet` -> `.`).
fn glob_root(input: &str) -> Result<Location> {
    let literal: Vec<&str> = input.split('/').take_while(|c| !has_glob(c)).collect();
    let root = literal.join("/");
    Location::parse(if root.is_empty() { "." } else { &root })
}

/// The glob pattern of a local input: a relative input is matched below the working
/// directory, whose own name may hold glob characters (so it is escaped).
fn local_pattern(input: &str, path: &std::path::Path) -> String {
    if !input.contains("://") && std::path::Path::new(input).is_relative() {
        if let Ok(cwd) = std::env::current_dir() {
            let cwd = glob::Pattern::escape(&cwd.to_string_lossy());
            return format!("{}/{input}", cwd.trim_end_matches('/'));
        }
    }
    path.to_string_lossy().into_owned()
}

/// Where an input's files lie: the location itself, or, for a glob that names no existing
/// file or directory, the directory of its literal part.
pub fn input_scope(input: &str) -> Result<Location> {
    let loc = Location::parse(input)?;
    if !has_glob(input) {
        return Ok(loc);
    }
    let exists = match loc.local_path() {
        Some(p) => p.exists(),
        None => loc.exists()?,
    };
    if exists {
        Ok(loc)
    } else {
        glob_root(input)
    }
}

/// [`refuse_overlap`] for a join: the output against both sides and the filter. `dashes` is
/// `--` for the command line, empty for job-file keys.
pub(crate) fn refuse_join_overlap(job: &crate::join::JoinJob, dashes: &str) -> Result<()> {
    let filter: Vec<String> = job
        .filter()
        .iter()
        .map(|f| f.as_str().to_string())
        .collect();
    let flag = |n: &str| format!("{dashes}{n}");
    let inputs: [(&str, &[String]); 3] = [
        (&flag("left"), &job.left.inputs),
        (&flag("right"), &job.right.inputs),
        (&flag("filter"), &filter),
    ];
    refuse_output_overlap(job.output(), job.report.as_deref(), &inputs, dashes)
}

/// Refuse a `filter` job's output or report that overlaps its inputs or its filter, and a
/// report inside its output (as a join's).
pub(crate) fn refuse_filter_overlap(job: &crate::sieve::FilterJob, dashes: &str) -> Result<()> {
    let filter = [job.filter.as_str().to_string()];
    let (input, filter_flag) = (format!("{dashes}input"), format!("{dashes}filter"));
    let inputs: [(&str, &[String]); 2] = [(&input, &job.input.inputs), (&filter_flag, &filter)];
    refuse_output_overlap(&job.output, job.report.as_deref(), &inputs, dashes)?;
    job.report
        .as_deref()
        .map_or(Ok(()), crate::report::check_report_path)
}

/// Refuse an output directory (`output`, and its `report`) that overlaps one of the `inputs`
/// (each with its option), and a report inside the output; options named with `dashes`.
fn refuse_output_overlap(
    output: &Location,
    report: Option<&str>,
    inputs: &[(&str, &[String])],
    dashes: &str,
) -> Result<()> {
    let flag = |n: &str| format!("{dashes}{n}");
    refuse_overlap(output.as_str(), &flag("output"), inputs)?;
    if let Some(report) = report {
        refuse_overlap(report, &flag("report"), inputs)?;
        refuse_report_in_output(report, output, &flag("report"), &flag("output"))?;
    }
    Ok(())
}

/// Refuse a train's `--report` that would replace one of its inputs or the filter it writes.
pub(crate) fn refuse_train_overlap(
    output: &Location,
    inputs: &[String],
    report: Option<&str>,
    dashes: &str,
) -> Result<()> {
    let flag = |n: &str| format!("{dashes}{n}");
    refuse_overlap(
        output.as_str(),
        &flag("output"),
        &[(&flag("input"), inputs)],
    )?;
    if let Some(report) = report {
        refuse_overlap(report, &flag("report"), &[(&flag("input"), inputs)])?;
        if Location::parse(report)?.resolved()? == output.resolved()? {
            return Err(Error::param(
                flag("report"),
                format!(
                    "{report} is the filter {} writes: write the report elsewhere",
                    flag("output")
                ),
            ));
        }
    }
    Ok(())
}

/// Refuse a join's report inside its own output directory, unless its name there begins
/// with `_` or `.`: readers of the output would take it for part of it, and the next run
/// would refuse the directory as holding a file bloomjoin did not write.
fn refuse_report_in_output(
    report: &str,
    output: &Location,
    report_flag: &str,
    output_flag: &str,
) -> Result<()> {
    let (r, o) = (Location::parse(report)?.resolved()?, output.resolved()?);
    let inside = o.contains(&r);
    let hidden = o.child_toward(&r).is_some_and(|first| !is_data_name(first));
    if inside && !hidden {
        return Err(Error::param(
            report_flag,
            format!(
                "{report} lies inside the output {} ({output_flag}), where readers would take it for part of the join's output: write it elsewhere, or name it with a leading _ (the output's _SUCCESS holds the report too)",
                output
            ),
        ));
    }
    Ok(())
}

/// Refuse an output that is, contains or lies inside one of the inputs (each given with its
/// option), comparing resolved locations (relative paths, symlinks, `..`, `file://`): a job
/// must never read what it writes, nor write over what it reads. Checked before anything runs.
pub fn refuse_overlap(output: &str, output_flag: &str, inputs: &[(&str, &[String])]) -> Result<()> {
    let out = Location::parse(output)?.resolved()?;
    for (flag, list) in inputs {
        for input in list.iter() {
            let scope = input_scope(input)?.resolved()?;
            let how = if out == scope {
                "is"
            } else if out.contains(&scope) {
                "contains"
            } else if scope.contains(&out) {
                "lies inside"
            } else {
                continue;
            };
            return Err(Error::Overlap {
                output_flag: output_flag.to_string(),
                output: output.to_string(),
                how,
                input: input.to_string(),
                input_flag: flag.to_string(),
            });
        }
    }
    Ok(())
}

/// A name readers take for data: not beginning with `_` or `.` (which Hadoop, Spark, DuckDB
/// and Arrow readers skip).
pub(crate) fn is_data_name(name: &str) -> bool {
    !name.starts_with('_') && !name.starts_with('.')
}

fn is_parquet_name(name: &str) -> bool {
    is_data_name(name) && name.to_ascii_lowercase().ends_with(".parquet")
}

/// Expand one input location into its Parquet files, sorted: a file is itself; a directory
/// (or object prefix) gives every `*.parquet` below it, skipping names that start with `_` or
/// `.`; a glob gives the files it matches. Matching nothing is an error.
///
/// A location that exists is taken literally even when its name has glob characters
/// (`file[1].parquet` is that file); only a location that does not exist is a glob. To match
/// a glob character literally inside a glob, put it in brackets: `[[]`, `[]]`, `[*]`, `[?]`.
pub fn expand(input: &str) -> Result<Vec<Location>> {
    let loc = Location::parse(input)?;
    let none = |what: &str| Error::Input {
        location: input.to_string(),
        reason: what.to_string(),
    };
    let mut out = if let Some(path) = loc.local_path() {
        if path.is_file() {
            vec![loc]
        } else if path.is_dir() {
            let mut v = Vec::new();
            walk_local(path, &mut v).map_err(|e| Error::io(input, e))?;
            if v.is_empty() {
                return Err(none("the directory holds no *.parquet files"));
            }
            v.into_iter()
                .map(|p| Location::parse(&p.to_string_lossy()))
                .collect::<Result<_>>()?
        } else if has_glob(input) {
            let pattern = local_pattern(input, path);
            let paths = glob::glob(&pattern).map_err(|e| none(&format!("bad glob: {e}")))?;
            let mut v = Vec::new();
            for p in paths {
                let p = p.map_err(|e| Error::io(input, e.into()))?;
                if p.is_file() {
                    v.push(Location::parse(&p.to_string_lossy())?);
                }
            }
            if v.is_empty() {
                return Err(none("the glob matched no files"));
            }
            v
        } else {
            return Err(Error::io(
                input,
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or directory"),
            ));
        }
    } else {
        expand_remote(&loc, input)?
    };
    out.sort_by(|a, b| a.path().as_ref().cmp(b.path().as_ref()));
    Ok(out)
}

fn walk_local(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().to_string();
        let p = e.path();
        // The entry's type comes with the listing; only a symlink is followed by a `stat`.
        let t = e.file_type()?;
        if t.is_dir() || (t.is_symlink() && p.is_dir()) {
            if is_data_name(&name) {
                walk_local(&p, out)?;
            }
        } else if is_parquet_name(&name) {
            out.push(p);
        }
    }
    Ok(())
}

fn expand_remote(loc: &Location, input: &str) -> Result<Vec<Location>> {
    let store = loc.store().clone();
    let serr = |source| Error::store(input.to_string(), source);
    // A path that exists is a path: an object, then a prefix with data objects below it; only
    // then a glob.
    match block_on(store.head(loc.path())) {
        Ok(meta) => return Ok(vec![loc.clone().with_listed_size(meta.size)]),
        Err(object_store::Error::NotFound { .. }) => {}
        Err(e) => return Err(serr(e)),
    }
    let listed: Vec<_> =
        block_on(store.list(Some(loc.path())).try_collect::<Vec<_>>()).map_err(serr)?;
    let v: Vec<Location> = listed
        .into_iter()
        .filter(|m| {
            let rel = m
                .location
                .as_ref()
                .strip_prefix(loc.path().as_ref())
                .unwrap_or_default();
            rel.split('/').filter(|s| !s.is_empty()).all(is_data_name)
                && m.location.filename().is_some_and(is_parquet_name)
        })
        .map(|m| loc.with_path(m.location).with_listed_size(m.size))
        .collect();
    if !v.is_empty() {
        return Ok(v);
    }
    if has_glob(input) {
        // List below the literal prefix, then match the whole path.
        let raw_path = loc.path().as_ref().to_string();
        let parts: Vec<&str> = raw_path.split('/').collect();
        let literal: Vec<&str> = parts.iter().take_while(|p| !has_glob(p)).copied().collect();
        let prefix = object_store::path::Path::from(literal.join("/"));
        let pattern = glob::Pattern::new(&raw_path).map_err(|e| Error::Input {
            location: input.to_string(),
            reason: format!("bad glob: {e}"),
        })?;
        let opts = glob::MatchOptions {
            require_literal_separator: true,
            ..Default::default()
        };
        let listed: Vec<_> =
            block_on(store.list(Some(&prefix)).try_collect::<Vec<_>>()).map_err(serr)?;
        let v: Vec<Location> = listed
            .into_iter()
            .filter(|m| pattern.matches_with(m.location.as_ref(), opts))
            .map(|m| loc.with_path(m.location).with_listed_size(m.size))
            .collect();
        if v.is_empty() {
            return Err(Error::Input {
                location: input.to_string(),
                reason: "the glob matched no objects".into(),
            });
        }
        return Ok(v);
    }
    Err(Error::Input {
        location: input.to_string(),
        reason: "no such object, and no *.parquet objects below it".into(),
    })
}

/// `schema` with every dictionary of 8- or 16-bit indices, at any depth, given 32-bit ones
/// (signed, as Arrow's readers and writers use by default); `None` when it has none.
fn wide_dictionaries(schema: &SchemaRef) -> Option<SchemaRef> {
    use arrow::datatypes::{DataType as D, Field, Schema};
    fn widen(t: &D) -> Option<D> {
        let field = |f: &Arc<Field>| {
            widen(f.data_type()).map(|t| Arc::new(f.as_ref().clone().with_data_type(t)))
        };
        match t {
            D::Dictionary(k, v) => {
                let value = widen(v);
                let narrow = matches!(k.as_ref(), D::Int8 | D::Int16 | D::UInt8 | D::UInt16);
                (narrow || value.is_some()).then(|| {
                    let key = if narrow { D::Int32 } else { k.as_ref().clone() };
                    D::Dictionary(Box::new(key), Box::new(value.unwrap_or_else(|| *v.clone())))
                })
            }
            D::List(f) => field(f).map(D::List),
            D::LargeList(f) => field(f).map(D::LargeList),
            D::ListView(f) => field(f).map(D::ListView),
            D::LargeListView(f) => field(f).map(D::LargeListView),
            D::FixedSizeList(f, n) => field(f).map(|f| D::FixedSizeList(f, *n)),
            D::Map(f, sorted) => field(f).map(|f| D::Map(f, *sorted)),
            D::Struct(fs) => {
                let new: Vec<Option<Arc<Field>>> = fs.iter().map(field).collect();
                new.iter().any(Option::is_some).then(|| {
                    D::Struct(
                        fs.iter()
                            .zip(new)
                            .map(|(f, n)| n.unwrap_or_else(|| Arc::clone(f)))
                            .collect(),
                    )
                })
            }
            _ => None,
        }
    }
    // The schema's fields are a struct's.
    match widen(&D::Struct(schema.fields().clone()))? {
        D::Struct(fields) => Some(Arc::new(Schema::new_with_metadata(
            fields,
            schema.metadata().clone(),
        ))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(rows: &[u64], opts: SplitOptions) -> Vec<u64> {
        let cut = cut_row_groups(rows, opts);
        // Every row group once, in order.
        let groups: Vec<usize> = cut.iter().flat_map(|(r, _)| r.clone()).collect();
        assert_eq!(groups, (0..rows.len()).collect::<Vec<_>>());
        cut.into_iter().map(|(_, n)| n).collect()
    }

    #[test]
    fn default_splits_are_as_near_the_target_as_the_row_groups_allow() {
        // TPC-H part at scale 5: 10 row groups of 100,000 rows, 2 workers (target 15,625).
        let part = [100_000u64; 10];
        let opts = SplitOptions::for_workers(1_000_000, 2);
        assert_eq!(sizes(&part, opts), vec![100_000; 10]);
        // lineitem at scale 1: 53 row groups of about 113,000 rows, a split each (target
        // 93,769); at scale 5, 262 of them, by fours (target 468,746; four make 458,000).
        assert_eq!(
            sizes(&[113_000; 53], SplitOptions::for_workers(6_001_215, 2)).len(),
            53
        );
        assert_eq!(
            sizes(&[114_500; 262], SplitOptions::for_workers(29_999_795, 2)),
            [vec![458_000; 65], vec![229_000]].concat()
        );
        // --split-rows 125000 means at least that many: pairs.
        assert_eq!(
            sizes(&part, SplitOptions::at_least(125_000)),
            vec![200_000; 5]
        );
        // Small row groups still gather up to the target (1,562: 2,000 is nearer than 1,000),
        // so that thousands of them do not make a split each.
        let small = [1_000u64; 100];
        let opts = SplitOptions::for_workers(100_000, 2);
        assert_eq!(sizes(&small, opts), vec![2_000; 50]);
        let tiny = [10u64; 100_000];
        let opts = SplitOptions::for_workers(1_000_000, 2);
        assert_eq!(sizes(&tiny, opts).len(), 64);
        // Files in an object store: about four splits a worker, as before (lineitem at scale
        // 1: target 750,151, 7 row groups of 113,000 make 791,000; 8 splits, the last of 4).
        assert_eq!(
            sizes(
                &[113_000; 53],
                SplitOptions::for_workers(6_001_215, 2).remote()
            ),
            [vec![791_000; 7], vec![452_000]].concat()
        );
        // Uneven row groups, and a last one that closes whatever is held.
        assert_eq!(
            sizes(
                &[5, 50, 5, 5, 100, 1],
                SplitOptions {
                    target_rows: 40,
                    remote_target_rows: 40,
                    nearest: true
                }
            ),
            vec![55, 10, 100, 1]
        );
        assert_eq!(
            sizes(&[], SplitOptions::for_workers(0, 2)),
            Vec::<u64>::new()
        );
    }
}
