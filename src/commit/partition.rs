//! Hive-partitioned output (`join --partition-by dt,region`): each output row goes to the
//! part of its partition directory, `<output>/dt=2024-01-01/region=EU/part-NNNNN-<run>.parquet`,
//! as Spark's `partitionBy` and DuckDB's `PARTITION_BY` write them.
//!
//! - The partition columns are not in the files: their values are in the directory names,
//!   in `--partition-by` order, and readers that discover Hive partitions (Spark, DuckDB,
//!   Polars, pyarrow, bloomjoin's own inputs) put them back as columns.
//! - Names and values are escaped as Spark escapes them (`escapePathName`: `/` is `%2F`, `:`
//!   is `%3A`, `%` is `%25`, ...). A null value, and an empty string (as in Spark and Hive),
//!   is `__HIVE_DEFAULT_PARTITION__`.
//! - Values are written as SQL prints them: integers and decimals in digits, booleans
//!   `true`/`false`, dates `YYYY-MM-DD`, timestamps `YYYY-MM-DD HH:MM:SS[.f]`.
//! - A task (a replicated worker, a reduce-side partition) writes one part in each partition
//!   directory its rows reach. It keeps at most [`MAX_OPEN_PARTS`] parts open (fewer under a
//!   low limit of open files, [`open_parts_per_task`]). The rows of further directories go to
//!   its [`Overflow`]: held, spilled to local disk in runs sorted by directory, and written
//!   when the task ends, one directory after another, each into a part of its own (or the
//!   directory's open part). Its open parts hold at most [`IN_PROGRESS_BYTES`] of unwritten
//!   row groups together: over that, the largest is written out as a row group, so memory
//!   stays bounded whatever the number of partitions.
//! - A task holds the rows it is given (up to [`HOLD_ROWS_PER_DIR`] for each directory seen,
//!   within its write buffer) and splits them by directory in bulk: a join's batch holds a
//!   few rows of each of many directories.
//! - A value with no text a directory name can hold (a date outside the years 1 to 9999) or a
//!   directory name over [`MAX_NAME_BYTES`] fails the job, naming the column.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, RecordBatch};
use arrow::compute::interleave;
use arrow::datatypes::{DataType, Schema, SchemaRef};
use arrow::row::{RowConverter, SortField};
use arrow::util::display::{ArrayFormatter, FormatOptions};

use super::overflow::{Overflow, MAX_RUNS, RUN_BYTES};
use super::{FileFormat, PartWriter, Staging};
use crate::bloom::sbbf::WriteBlooms;
use crate::error::{Error, Result};
use crate::plan::hive::DEFAULT_PARTITION;

/// The most parts one task keeps open at once (fewer when the process may not open that
/// many files for every task: [`open_parts_per_task`]).
pub(crate) const MAX_OPEN_PARTS: usize = 64;

/// Files kept for everything but the parts: inputs, spills, the runtime, the standard streams.
const OTHER_FILES: u64 = 256;

/// How many parts each of `tasks` tasks running at once may keep open when the process may
/// hold `limit` files (`None`: unknown) and `spills` files go to the reduce-side spill:
/// [`MAX_OPEN_PARTS`], or the share of the limit left after [`OTHER_FILES`] (a quarter of a
/// smaller limit) and the spills, less the runs of the task's overflow it reads at the end
/// ([`MAX_RUNS`]), at least 1. Without it, 16 workers at 64 open parts each would pass the
/// usual limit of 1,024 files and fail with "Too many open files".
pub(crate) fn open_parts_per_task(limit: Option<u64>, tasks: usize, spills: u64) -> usize {
    let Some(limit) = limit else {
        return MAX_OPEN_PARTS;
    };
    let others = OTHER_FILES.min(limit / 4) + spills;
    let share = limit.saturating_sub(others) / tasks.max(1) as u64;
    (share.saturating_sub(MAX_RUNS as u64) as usize).clamp(1, MAX_OPEN_PARTS)
}

/// The most bytes of unwritten row groups one task's open parts hold together.
pub(crate) const IN_PROGRESS_BYTES: usize = 64 << 20;

/// Rows a task holds for each directory its rows reached so far before it splits them by
/// directory (up to its write buffer's bytes): a part handed rows one or two at a time pays
/// its column writers' fixed costs at every write. Measured on TPC-H scale 1, lineitem x
/// orders by `l_shipdate` (151 directories, about 100 output rows in each right batch):
/// 1,024 a directory took 19 % less CPU than no holding; 4,096 no less, and 27 % more peak
/// RSS with 7 directories (by `l_shipmode`).
const HOLD_ROWS_PER_DIR: usize = 1024;

/// The longest directory name (`name=value`, escaped) written: the limit of local file
/// systems (ext4, XFS, APFS, NTFS) on one name. Object stores would take more, but the same
/// output must be copyable to a disk.
pub(crate) const MAX_NAME_BYTES: usize = 255;

/// How a join's output is partitioned: the `--partition-by` columns, checked against the
/// output schema.
#[derive(Debug)]
pub(crate) struct OutputPartitioning {
    /// Positions of the partition columns in the output schema, in `--partition-by` order.
    columns: Vec<usize>,
    /// Their names.
    names: Vec<String>,
    /// The escaped `name=` of each.
    prefixes: Vec<String>,
    /// Whether each is a UUID (Parquet's `UUID`, 16 bytes): its directory holds its text.
    uuids: Vec<bool>,
    /// Positions of the columns the files hold (every other output column, in order).
    kept: Vec<usize>,
    /// The files' schema.
    file_schema: SchemaRef,
}

/// Whether `field` is a UUID (16 bytes of Parquet's `UUID`), whose partition value is its
/// canonical text, as DuckDB writes it.
fn is_uuid(field: &arrow::datatypes::Field) -> bool {
    field.data_type() == &DataType::FixedSizeBinary(16)
        && crate::read::logical::annotation(field) == Some(crate::read::logical::Annotation::Uuid)
}

/// True when a partition column of this type can be written: values with one plain text
/// form that Hive-partition readers read back.
fn partitionable(t: &DataType) -> bool {
    match t {
        DataType::Dictionary(_, v) => partitionable(v),
        t => {
            t.is_integer()
                || matches!(
                    t,
                    DataType::Boolean
                        | DataType::Utf8
                        | DataType::LargeUtf8
                        | DataType::Utf8View
                        | DataType::Date32
                        | DataType::Date64
                        | DataType::Timestamp(..)
                        | DataType::Decimal32(..)
                        | DataType::Decimal64(..)
                        | DataType::Decimal128(..)
                        | DataType::Decimal256(..)
                )
        }
    }
}

impl OutputPartitioning {
    /// Partition the output of `schema` by the columns `names` (`--partition-by`): each must
    /// be an output column, once, of a type with a plain text form, and at least one output
    /// column must stay in the files.
    pub(crate) fn new(schema: &Schema, names: &[String]) -> Result<Self> {
        let param = |msg: String| Error::param("--partition-by", msg);
        let mut columns = Vec::with_capacity(names.len());
        for name in names {
            let Some((i, field)) = schema.column_with_name(name) else {
                let all: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
                return Err(param(format!(
                    "{name:?} is not an output column (they are: {})",
                    all.join(", ")
                )));
            };
            if columns.contains(&i) {
                return Err(param(format!("{name:?} is named twice")));
            }
            if !partitionable(field.data_type()) && !is_uuid(field) {
                return Err(param(format!(
                    "{name:?} is a {} column; partition values are integers, decimals, booleans, strings, dates, timestamps or UUIDs",
                    field.data_type()
                )));
            }
            columns.push(i);
        }
        let kept: Vec<usize> = (0..schema.fields().len())
            .filter(|i| !columns.contains(i))
            .collect();
        if kept.is_empty() {
            return Err(param(
                "names every output column; the files would hold none (select another column)"
                    .to_string(),
            ));
        }
        let file_schema = Arc::new(schema.project(&kept).map_err(|e| {
            Error::Internal(format!(
                "projecting the output schema for --partition-by: {e}"
            ))
        })?);
        let prefixes = columns
            .iter()
            .map(|&i| format!("{}=", escape(schema.field(i).name())))
            .collect();
        let uuids = columns.iter().map(|&i| is_uuid(schema.field(i))).collect();
        Ok(OutputPartitioning {
            columns,
            names: names.to_vec(),
            prefixes,
            uuids,
            kept,
            file_schema,
        })
    }

    /// The directories of row `i` of the partition columns `cols`
    /// (`dt=2024-01-01/region=EU`); a name over [`MAX_NAME_BYTES`] is an error.
    fn dir_of(&self, cols: &[ArrayRef], i: usize) -> Result<String> {
        let mut dirs = Vec::with_capacity(cols.len());
        for (((c, name), prefix), &uuid) in cols
            .iter()
            .zip(&self.names)
            .zip(&self.prefixes)
            .zip(&self.uuids)
        {
            let value = match uuid {
                true if c.is_valid(i) => {
                    crate::expr::uuid::text(arrow::array::AsArray::as_fixed_size_binary(c).value(i))
                }
                _ => value_text(name, c.as_ref(), i)?,
            };
            let dir = format!("{prefix}{value}");
            if dir.len() > MAX_NAME_BYTES {
                return Err(Error::param(
                    "--partition-by",
                    format!(
                        "a value of {name:?} makes a directory name of {} bytes (`{}...`), over the {MAX_NAME_BYTES} a file system allows",
                        dir.len(),
                        dir.chars().take(40).collect::<String>()
                    ),
                ));
            }
            dirs.push(dir);
        }
        Ok(dirs.join("/"))
    }

    /// The partition columns' names, in `--partition-by` order.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }
}

/// The number of partition directories among part names (`dt=2024-01-01/part-00003`).
pub(crate) fn dirs_of(parts: &[String]) -> usize {
    let mut dirs: Vec<&str> = parts
        .iter()
        .filter_map(|p| p.rsplit_once('/').map(|(d, _)| d))
        .collect();
    dirs.sort_unstable();
    dirs.dedup();
    dirs.len()
}

/// `s` as Spark escapes a partition directory's name or value (`escapePathName`): control
/// characters and `"#%'*/:=?\{[]^` as `%XX`.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let escaped = matches!(
            c,
            '\u{0}'
                ..='\u{1f}'
                    | '"'
                    | '#'
                    | '%'
                    | '\''
                    | '*'
                    | '/'
                    | ':'
                    | '='
                    | '?'
                    | '\\'
                    | '\u{7f}'
                    | '{'
                    | '['
                    | ']'
                    | '^'
        );
        if escaped {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The text of row `i` of a partition column: null and the empty string are Hive's default
/// partition.
/// A value with no such text (a date or a timestamp outside the years 1 to 9999, which
/// readers would not read back as one) is an error naming the column `name`.
fn value_text(name: &str, array: &dyn Array, i: usize) -> Result<String> {
    if array.is_null(i) {
        return Ok(DEFAULT_PARTITION.to_string());
    }
    let options = FormatOptions::default()
        .with_display_error(false)
        .with_timestamp_format(Some("%Y-%m-%d %H:%M:%S%.f"))
        .with_timestamp_tz_format(Some("%Y-%m-%d %H:%M:%S%.f%:z"))
        .with_datetime_format(Some("%Y-%m-%d %H:%M:%S%.f"));
    let f = ArrayFormatter::try_new(array, &options)
        .map_err(|e| Error::arrow("formatting a partition value", e))?;
    let no_text = |why: String| {
        Error::param(
            "--partition-by",
            format!("a value of {name:?} has no text a directory name can hold ({why})"),
        )
    };
    let mut text = f
        .value(i)
        .try_to_string()
        .map_err(|e| no_text(e.to_string()))?;
    let temporal = matches!(
        array.data_type(),
        DataType::Date32 | DataType::Date64 | DataType::Timestamp(..)
    );
    // chrono prints years past 9999 with a sign (`+10000-01-01`), year 0 as `0000` and years
    // before it as negative ones: no reader of Hive partitions takes them for dates (DuckDB
    // prints them `0001-12-31 (BC)`).
    let plain_year = text.len() >= 10
        && text.as_bytes()[..4].iter().all(u8::is_ascii_digit)
        && text.as_bytes()[4] == b'-'
        && !text.starts_with("0000");
    if temporal && !plain_year {
        return Err(no_text(format!("{text} is outside the years 1 to 9999")));
    }
    if matches!(array.data_type(), DataType::Timestamp(..)) {
        // As Spark and DuckDB print them: the fraction without its trailing zeros.
        text = trim_fraction(&text);
    }
    Ok(if text.is_empty() {
        DEFAULT_PARTITION.to_string()
    } else {
        escape(&text)
    })
}

/// A timestamp's text (`2024-01-01 10:00:00.500`, maybe an offset after it) with the
/// fraction's trailing zeros, and a fraction of zeros, left out.
fn trim_fraction(text: &str) -> String {
    let Some(dot) = text.find('.') else {
        return text.to_string();
    };
    let end = text[dot + 1..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(text.len(), |e| dot + 1 + e);
    let digits = text[dot + 1..end].trim_end_matches('0');
    let head = if digits.is_empty() {
        text[..dot].to_string()
    } else {
        format!("{}.{digits}", &text[..dot])
    };
    head + &text[end..]
}

/// A file of a part a task closed.
#[derive(Debug)]
pub(crate) struct WrittenPart {
    /// The file (`part-00003`, `dt=2024-01-01/part-00003`, `part-00003-1` for a part's
    /// second file), its rows and bytes.
    pub file: super::WrittenFile,
    /// Of its rows, those that came through the task's overflow (spilled, or held until the
    /// task ended, because every part slot was taken).
    pub overflow_rows: u64,
}

impl WrittenPart {
    /// The files of a part, `overflow_rows` of whose rows came through the overflow
    /// (counted with its first file).
    fn of(files: Vec<super::WrittenFile>, overflow_rows: u64) -> Vec<WrittenPart> {
        let mut overflow_rows = Some(overflow_rows);
        files
            .into_iter()
            .map(|file| WrittenPart {
                file,
                overflow_rows: overflow_rows.take().unwrap_or(0),
            })
            .collect()
    }
}

/// One open part of a partition directory.
struct OpenPart {
    writer: PartWriter,
    /// Rows it took from the overflow.
    overflow_rows: u64,
}

/// The parts one task writes into the partition directories of its rows.
pub(crate) struct PartitionedWriter {
    staging: Staging,
    /// The task's part name (`part-00003`): each directory's first part is named after it.
    task: String,
    spec: Arc<OutputPartitioning>,
    blooms: WriteBlooms,
    format: FileFormat,
    rows: RowConverter,
    /// Each partition's directory (`dt=2024-01-01/region=EU`), by its row in `rows`' form.
    dirs: HashMap<Box<[u8]>, Arc<str>>,
    open: HashMap<Arc<str>, OpenPart>,
    /// The directories a part was started in (one each).
    started: HashSet<Arc<str>>,
    closed: Vec<WrittenPart>,
    /// The most parts open at once ([`open_parts_per_task`]), and [`IN_PROGRESS_BYTES`]
    /// (smaller in tests).
    max_open: usize,
    in_progress_limit: usize,
    /// Bytes of rows written since the open parts' memory was last summed.
    unchecked: usize,
    /// The rows of directories that found every part slot taken.
    overflow: Overflow,
    /// Batches written and not yet split by directory, and their bytes: a join's batches
    /// hold a few rows of each of many directories, and a part handed a few rows at a time
    /// pays its column writers' fixed costs at every write.
    held: Vec<RecordBatch>,
    held_bytes: usize,
    held_rows: usize,
    /// Split and write the held batches once they hold this many bytes.
    hold_limit: usize,
}

impl PartitionedWriter {
    /// The writer of task `task`'s rows (the output schema's) into `staging`.
    pub(crate) fn new(
        staging: Staging,
        task: &str,
        out_schema: &Schema,
        spec: Arc<OutputPartitioning>,
        blooms: WriteBlooms,
        format: FileFormat,
        max_open: usize,
    ) -> Result<Self> {
        let fields = spec
            .columns
            .iter()
            .map(|&i| SortField::new(out_schema.field(i).data_type().clone()))
            .collect();
        let rows = RowConverter::new(fields)
            .map_err(|e| Error::arrow("partition values of the output", e))?;
        let overflow = Overflow::new(spec.file_schema.clone(), RUN_BYTES);
        Ok(PartitionedWriter {
            staging,
            task: task.to_string(),
            spec,
            blooms,
            format,
            rows,
            dirs: HashMap::new(),
            open: HashMap::new(),
            started: HashSet::new(),
            closed: Vec::new(),
            max_open: max_open.max(1),
            in_progress_limit: IN_PROGRESS_BYTES,
            unchecked: 0,
            overflow,
            held: Vec::new(),
            held_bytes: 0,
            held_rows: 0,
            hold_limit: IN_PROGRESS_BYTES / 16,
        })
    }

    /// Hold up to `bytes` of written rows (at least a sixteenth of [`IN_PROGRESS_BYTES`])
    /// before splitting them by directory.
    pub(crate) fn with_write_buffer(mut self, bytes: usize) -> Self {
        self.hold_limit = bytes.max(IN_PROGRESS_BYTES / 16);
        self
    }

    /// Hold `batch` (rows of the output schema, compacted) until the held rows fill the
    /// write buffer or reach [`HOLD_ROWS_PER_DIR`] for each directory seen so far, then
    /// write the held rows to their directories' parts.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        // A join's batch holds a few rows of the right batch it came from, whose string
        // buffers it would keep alive while held.
        let batch = crate::reduce::compact(batch.clone());
        self.held_bytes += crate::shuffle::data_bytes(&batch) as usize;
        self.held_rows += batch.num_rows();
        self.held.push(batch);
        if self.held_bytes >= self.hold_limit
            || self.held_rows >= HOLD_ROWS_PER_DIR * self.dirs.len().max(1)
        {
            self.write_held()?;
        }
        Ok(())
    }

    /// Write the held rows: each directory's rows, in the order they came, in one batch
    /// (a held batch whose rows all go to one directory is written as it is, uncopied).
    fn write_held(&mut self) -> Result<()> {
        let held = std::mem::take(&mut self.held);
        let bytes = std::mem::replace(&mut self.held_bytes, 0);
        self.held_rows = 0;
        if held.is_empty() {
            return Ok(());
        }
        let values: Vec<Vec<ArrayRef>> = held
            .iter()
            .map(|b| {
                self.spec
                    .columns
                    .iter()
                    .map(|&i| Arc::clone(b.column(i)))
                    .collect()
            })
            .collect();
        let rows = values
            .iter()
            .map(|cols| self.rows.convert_columns(cols))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| Error::arrow("partition values of the output", e))?;
        // The held rows' groups, in the order of their first rows: (batch, row) each.
        let mut groups: Vec<(Arc<str>, Vec<HeldRow>)> = Vec::new();
        let mut index: HashMap<&[u8], usize> = HashMap::new();
        for (b, batch_rows) in rows.iter().enumerate() {
            for i in 0..batch_rows.num_rows() {
                let row = batch_rows.row(i).data();
                let g = match index.get(row) {
                    Some(&g) => g,
                    None => {
                        let dir = match self.dirs.get(row) {
                            Some(d) => Arc::clone(d),
                            None => {
                                let d: Arc<str> = self.spec.dir_of(&values[b], i)?.into();
                                self.dirs.insert(row.into(), Arc::clone(&d));
                                d
                            }
                        };
                        groups.push((dir, Vec::new()));
                        index.insert(row, groups.len() - 1);
                        groups.len() - 1
                    }
                };
                groups[g].1.push((b, i));
            }
        }
        drop(index);
        // The kept columns of every held batch, by column.
        let kept: Vec<Vec<&dyn Array>> = self
            .spec
            .kept
            .iter()
            .map(|&c| held.iter().map(|b| b.column(c).as_ref()).collect())
            .collect();
        // The rows of directories that find every part slot taken go to the overflow
        // together, gathered directory by directory in name order.
        let mut overflow: Vec<(Arc<str>, Vec<HeldRow>)> = Vec::new();
        for (dir, idx) in groups {
            if !self.open.contains_key(&dir) {
                if self.open.len() >= self.max_open {
                    overflow.push((dir, idx));
                    continue;
                }
                self.open_part(&dir, None)?;
            }
            // Whole held batches go on as they are; any other rows are gathered into one.
            let pieces: Vec<Vec<ArrayRef>> = match whole_batches(&idx, &held) {
                Some(batches) => batches
                    .into_iter()
                    .map(|b| {
                        let kept = self.spec.kept.iter();
                        kept.map(|&c| Arc::clone(held[b].column(c))).collect()
                    })
                    .collect(),
                None => vec![gather(&kept, &idx)?],
            };
            let open = self.open.get_mut(&dir).expect("opened above");
            for columns in pieces {
                let part = RecordBatch::try_new(self.spec.file_schema.clone(), columns)
                    .map_err(|e| Error::arrow("output batch", e))?;
                open.writer.write(&part)?;
            }
        }
        if !overflow.is_empty() {
            // Stable: a directory named by two values (null and the empty string) keeps
            // the order of its groups.
            overflow.sort_by(|a, b| a.0.cmp(&b.0));
            let mut dirs: Vec<(Arc<str>, usize)> = Vec::new();
            let mut idx: Vec<HeldRow> = Vec::new();
            for (dir, rows) in overflow {
                match dirs.last_mut() {
                    Some((d, n)) if *d == dir => *n += rows.len(),
                    _ => dirs.push((dir, rows.len())),
                }
                idx.extend(rows);
            }
            let rows = RecordBatch::try_new(self.spec.file_schema.clone(), gather(&kept, &idx)?)
                .map_err(|e| Error::arrow("output batch", e))?;
            self.overflow.push(rows, dirs)?;
        }
        self.bound_memory(bytes)
    }

    /// Start the task's part in `dir`, which takes at most `rows` rows when that is known
    /// (its Parquet Bloom filters then start at that size rather than the row group's).
    fn open_part(&mut self, dir: &Arc<str>, rows: Option<u64>) -> Result<()> {
        if !self.started.insert(Arc::clone(dir)) {
            return Err(Error::Internal(format!(
                "a second part of task {} in {dir}",
                self.task
            )));
        }
        let name = format!("{dir}/{}", self.task);
        let writer = PartWriter::create(
            &self.staging,
            &name,
            self.spec.file_schema.clone(),
            &match rows {
                Some(n) => self.blooms.at_most(n),
                None => self.blooms.clone(),
            },
            &self.format,
        )?;
        self.open.insert(
            Arc::clone(dir),
            OpenPart {
                writer,
                overflow_rows: 0,
            },
        );
        Ok(())
    }

    /// Write out the largest buffered row groups while the open parts hold more than
    /// [`IN_PROGRESS_BYTES`]. The parts' sizes are summed (a walk over every open part's
    /// columns and pages: 14 % of a join's CPU when it ran after every batch, with 64 parts
    /// open) once the rows written since the last check could have passed a sixteenth of the
    /// limit.
    fn bound_memory(&mut self, written: usize) -> Result<()> {
        self.unchecked += written;
        if self.unchecked <= self.in_progress_limit / 16 {
            return Ok(());
        }
        self.unchecked = 0;
        let mut sizes: Vec<(usize, Arc<str>)> = self
            .open
            .iter()
            .map(|(d, p)| (p.writer.memory_size(), Arc::clone(d)))
            .collect();
        let mut total: usize = sizes.iter().map(|(s, _)| s).sum();
        // Largest first; ties by name, so that the same rows flush the same parts.
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        for (size, d) in sizes {
            if total <= self.in_progress_limit || size == 0 {
                break;
            }
            self.open
                .get_mut(&d)
                .expect("an open part")
                .writer
                .flush_row_group()?;
            total -= size;
        }
        Ok(())
    }

    fn close(&mut self, dir: &Arc<str>) -> Result<()> {
        if let Some(p) = self.open.remove(dir) {
            self.closed
                .extend(WrittenPart::of(p.writer.finish()?, p.overflow_rows));
        }
        Ok(())
    }

    /// Write the overflow's rows, directory by directory, and close every part; the parts
    /// written, by name.
    pub(crate) fn finish(mut self) -> Result<Vec<WrittenPart>> {
        self.write_held()?;
        let overflow = std::mem::replace(
            &mut self.overflow,
            Overflow::new(self.spec.file_schema.clone(), RUN_BYTES),
        );
        // A directory's rows come all together: its part is closed (or, when it was open
        // already, written on) as soon as the next directory's begin.
        let mut current: Option<Arc<str>> = None;
        overflow.drain(|dir, n, rows| {
            if current.as_ref() != Some(dir) {
                if let Some(done) = current.take() {
                    self.close(&done)?;
                }
                if !self.open.contains_key(dir) {
                    // The part takes the directory's overflow rows alone.
                    self.open_part(dir, Some(n))?;
                }
                current = Some(Arc::clone(dir));
            }
            let part = self.open.get_mut(dir).expect("opened above");
            part.overflow_rows += rows.num_rows() as u64;
            part.writer.write(&rows)?;
            self.bound_memory(crate::shuffle::data_bytes(&rows) as usize)
        })?;
        let mut dirs: Vec<Arc<str>> = self.open.keys().cloned().collect();
        dirs.sort();
        for d in dirs {
            self.close(&d)?;
        }
        self.closed.sort_by(|a, b| a.file.name.cmp(&b.file.name));
        Ok(self.closed)
    }
}

/// A held row: its batch among the held ones, and its row in that batch.
type HeldRow = (usize, usize);

/// The rows `idx` of the held batches' columns `kept` (each column's arrays, by batch), in
/// that order.
fn gather(kept: &[Vec<&dyn Array>], idx: &[HeldRow]) -> Result<Vec<ArrayRef>> {
    kept.iter()
        .map(|arrays| interleave(arrays, idx))
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| Error::arrow("splitting output rows by partition", e))
}

/// The held batches `idx` (a directory's rows, as (batch, row) in order) covers whole, when
/// it is nothing but whole batches.
fn whole_batches(idx: &[HeldRow], held: &[RecordBatch]) -> Option<Vec<usize>> {
    let mut batches = Vec::new();
    let mut k = 0;
    while k < idx.len() {
        let b = idx[k].0;
        let n = held[b].num_rows();
        // Rows come in order, so a batch's run is all of it when it is as long.
        if idx.len() - k < n || idx[k + n - 1].0 != b {
            return None;
        }
        batches.push(b);
        k += n;
    }
    Some(batches)
}

/// Where a task's output rows go: one part, or a part per partition directory.
pub(crate) enum PartSink {
    /// One part (`part-NNNNN`, and `part-NNNNN-1`, ... when its files are bounded).
    One { writer: PartWriter },
    /// Parts in the partition directories of the rows.
    Partitioned(PartitionedWriter),
}

impl PartSink {
    /// Task `name`'s sink in `staging` for rows of `out_schema`: one part, or with
    /// `partitioning` a part per partition directory, keeping at most `open_parts` open.
    pub(crate) fn create(
        staging: &Staging,
        name: &str,
        out_schema: &SchemaRef,
        partitioning: Option<&Arc<OutputPartitioning>>,
        blooms: &WriteBlooms,
        format: &FileFormat,
        open_parts: usize,
    ) -> Result<Self> {
        Ok(match partitioning {
            None => PartSink::One {
                writer: PartWriter::create(staging, name, out_schema.clone(), blooms, format)?,
            },
            Some(p) => PartSink::Partitioned(PartitionedWriter::new(
                staging.clone(),
                name,
                out_schema,
                Arc::clone(p),
                blooms.clone(),
                *format,
                open_parts,
            )?),
        })
    }

    /// Hold up to `bytes` of rows before encoding them ([`PartWriter::with_write_buffer`],
    /// [`PartitionedWriter::with_write_buffer`]).
    pub(crate) fn with_write_buffer(self, bytes: usize) -> Self {
        match self {
            PartSink::One { writer } => PartSink::One {
                writer: writer.with_write_buffer(bytes),
            },
            PartSink::Partitioned(p) => PartSink::Partitioned(p.with_write_buffer(bytes)),
        }
    }

    /// Write a batch of output rows (the output schema's).
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match self {
            PartSink::One { writer, .. } => writer.write(batch),
            PartSink::Partitioned(p) => p.write(batch),
        }
    }

    /// Close the parts; the parts written.
    pub(crate) fn finish(self) -> Result<Vec<WrittenPart>> {
        match self {
            PartSink::One { writer } => Ok(WrittenPart::of(writer.finish()?, 0)),
            PartSink::Partitioned(p) => p.finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::Field;

    /// A writer of task `task` into `dir`, of rows `v` (Int64) partitioned by `p` (Utf8);
    /// and the rows' schema.
    fn v_by_p(
        dir: &std::path::Path,
        task: &str,
        blooms: WriteBlooms,
        max_open: usize,
    ) -> (PartitionedWriter, SchemaRef) {
        let staging = Staging {
            dir: crate::store::Location::parse(dir.to_str().unwrap()).unwrap(),
        };
        let schema = Arc::new(Schema::new(vec![
            Field::new("v", DataType::Int64, true),
            Field::new("p", DataType::Utf8, true),
        ]));
        let spec = Arc::new(OutputPartitioning::new(&schema, &["p".to_string()]).unwrap());
        let w = PartitionedWriter::new(
            staging,
            task,
            &schema,
            spec,
            blooms,
            FileFormat::new(parquet::basic::Compression::UNCOMPRESSED),
            max_open,
        )
        .unwrap();
        (w, schema)
    }

    /// A batch of [`v_by_p`]'s rows.
    fn v_p(schema: &SchemaRef, v: Vec<i64>, p: arrow::array::StringArray) -> RecordBatch {
        let v = arrow::array::Int64Array::from(v);
        RecordBatch::try_new(schema.clone(), vec![Arc::new(v), Arc::new(p)]).unwrap()
    }

    /// Rows of 5 partitions, interleaved, through a writer that keeps `max_open` parts open
    /// and writes out a row group whenever its parts buffer over `limit` bytes, holding `hold`
    /// bytes of rows before splitting them: every row lands once, in its directory, without
    /// the partition column, and a directory's rows keep their order (through the overflow
    /// too). Returns the parts' names and the most row groups a part has.
    fn write_bounded(
        max_open: usize,
        limit: usize,
        run_bytes: usize,
        hold: usize,
    ) -> (Vec<String>, usize) {
        use arrow::array::{Int64Array, StringArray};
        let tmp = tempfile::tempdir().unwrap();
        let (mut w, schema) = v_by_p(tmp.path(), "part-00007", WriteBlooms::none(), max_open);
        w.in_progress_limit = limit;
        w.hold_limit = hold;
        w.overflow = Overflow::new(w.spec.file_schema.clone(), run_bytes);
        let names = ["a", "b/c", "d", "e", "f"];
        for b in 0..20i64 {
            let v: Vec<i64> = (0..50).map(|i| b * 50 + i).collect();
            let p: Vec<Option<&str>> = v
                .iter()
                .map(|i| (i % 7 != 0).then_some(names[(*i as usize / 3) % 5]))
                .collect();
            w.write(&v_p(&schema, v, StringArray::from(p))).unwrap();
        }
        let parts = w.finish().unwrap();
        assert_eq!(parts.iter().map(|p| p.file.rows).sum::<u64>(), 1000);
        // Each directory's first rows open its part while slots are free; the rest of the
        // directories' rows all come through the overflow.
        let overflow: u64 = parts.iter().map(|p| p.overflow_rows).sum();
        assert_eq!(overflow > 0, max_open < 6, "{overflow} overflow rows");
        let mut seen = Vec::new();
        let mut row_groups = 0;
        for WrittenPart {
            file: crate::commit::WrittenFile { name, rows, .. },
            ..
        } in &parts
        {
            let (dir, _) = name.rsplit_once('/').unwrap();
            let file = std::fs::File::open(tmp.path().join(format!("{name}.parquet"))).unwrap();
            let r = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
                .unwrap();
            row_groups = row_groups.max(r.metadata().num_row_groups());
            assert_eq!(r.schema().fields().len(), 1, "{name}: only v");
            let mut n = 0;
            let mut order = Vec::new();
            for b in r.build().unwrap() {
                let b = b.unwrap();
                let v = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                for i in v.values() {
                    let want = if i % 7 == 0 {
                        format!("p={DEFAULT_PARTITION}")
                    } else {
                        format!("p={}", escape(names[(*i as usize / 3) % 5]))
                    };
                    assert_eq!(dir, want, "{i}");
                    seen.push(*i);
                    order.push(*i);
                }
                n += b.num_rows() as u64;
            }
            assert_eq!(n, *rows);
            assert!(order.is_sorted(), "{name}: rows out of order");
        }
        seen.sort();
        assert_eq!(seen, (0..1000).collect::<Vec<i64>>());
        (parts.into_iter().map(|p| p.file.name).collect(), row_groups)
    }

    #[test]
    fn open_parts_and_their_memory_are_bounded() {
        let one_each =
            |parts: &[String]| parts.len() == 6 && parts.iter().all(|p| p.ends_with("/part-00007"));
        // Everything open, nothing written early: a part per directory, one row group each,
        // whether the rows are written as they come or held and split in bulk.
        for hold in [0, 1000, usize::MAX] {
            let (parts, row_groups) = write_bounded(64, IN_PROGRESS_BYTES, RUN_BYTES, hold);
            assert!(one_each(&parts), "{hold}: {parts:?}");
            assert_eq!(row_groups, 1);
        }
        // Two open at most: the other directories' rows wait in the overflow, in memory or
        // spilled in runs of any size, and still make one part per directory.
        for run_bytes in [RUN_BYTES, 1, 2000] {
            for hold in [0, 1000, usize::MAX] {
                let (parts, _) = write_bounded(2, IN_PROGRESS_BYTES, run_bytes, hold);
                assert!(one_each(&parts), "{run_bytes} {hold}: {parts:?}");
            }
        }
        let (parts, _) = write_bounded(1, 1, 1, 0);
        assert!(one_each(&parts), "{parts:?}");
        // Any buffered byte over the limit: row groups are written as the rows come.
        for hold in [0, 1000] {
            let (parts, row_groups) = write_bounded(64, 1, RUN_BYTES, hold);
            assert!(one_each(&parts), "{parts:?}");
            assert!(row_groups > 1, "{hold}: no row group written early");
        }
    }

    /// Parts written from the overflow start their Parquet Bloom filters at the size of
    /// their directory's rows: each filter holds every value of its part.
    #[test]
    fn overflow_parts_carry_filters_of_their_rows() {
        use arrow::array::StringArray;
        use parquet::file::properties::ReaderProperties;
        use parquet::file::reader::{FileReader, SerializedFileReader};
        use parquet::file::serialized_reader::ReadOptionsBuilder;
        let tmp = tempfile::tempdir().unwrap();
        let blooms = WriteBlooms {
            columns: vec!["v".into()],
            fpp: 0.01,
            max_distinct: Vec::new(),
        };
        let (mut w, schema) = v_by_p(tmp.path(), "part-00000", blooms, 1);
        w.hold_limit = 0;
        let v: Vec<i64> = (0..3000).map(|i| i * 1_000_003).collect();
        let p: Vec<String> = (0..3000).map(|i| format!("d{}", i % 3)).collect();
        w.write(&v_p(&schema, v, StringArray::from(p))).unwrap();
        let parts = w.finish().unwrap();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts.iter().filter(|p| p.overflow_rows == 1000).count(), 2);
        for part in &parts {
            let file = std::fs::File::open(tmp.path().join(format!("{}.parquet", part.file.name)));
            let options = ReadOptionsBuilder::new()
                .with_reader_properties(
                    ReaderProperties::builder()
                        .set_read_bloom_filter(true)
                        .build(),
                )
                .build();
            let reader = SerializedFileReader::new_with_options(file.unwrap(), options).unwrap();
            let (dir, _) = part.file.name.split_once('/').unwrap();
            let d: i64 = dir.strip_prefix("p=d").unwrap().parse().unwrap();
            let rg = reader.get_row_group(0).unwrap();
            let filter = rg.get_column_bloom_filter(0).unwrap();
            for i in (0..3000i64).filter(|i| i % 3 == d) {
                assert!(filter.check(&(i * 1_000_003)), "{}: {i}", part.file.name);
            }
        }
    }

    /// Null and the empty string name the same directory: their rows reach the overflow
    /// as one directory's, and land in one part.
    #[test]
    fn two_values_of_one_directory_share_its_overflow_part() {
        use arrow::array::StringArray;
        let tmp = tempfile::tempdir().unwrap();
        let (mut w, schema) = v_by_p(tmp.path(), "part-00001", WriteBlooms::none(), 1);
        let p = StringArray::from(vec![Some("x"), None, Some(""), Some("x"), Some(""), None]);
        w.write(&v_p(&schema, (0..6).collect(), p)).unwrap();
        let parts = w.finish().unwrap();
        let got: Vec<(&str, u64, u64)> = parts
            .iter()
            .map(|p| (p.file.name.as_str(), p.file.rows, p.overflow_rows))
            .collect();
        let default = format!("p={DEFAULT_PARTITION}/part-00001");
        assert_eq!(got, [(default.as_str(), 4, 4), ("p=x/part-00001", 2, 0)]);
    }

    #[test]
    fn whole_held_batches_are_found() {
        use arrow::array::Int32Array;
        let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int32, false)]));
        let batch = |n: i32| {
            RecordBatch::try_new(
                schema.clone(),
                vec![Arc::new(Int32Array::from_iter_values(0..n))],
            )
            .unwrap()
        };
        let held = [batch(2), batch(1), batch(3)];
        let all: Vec<(usize, usize)> = vec![(0, 0), (0, 1), (1, 0), (2, 0), (2, 1), (2, 2)];
        assert_eq!(whole_batches(&all, &held), Some(vec![0, 1, 2]));
        assert_eq!(whole_batches(&all[2..], &held), Some(vec![1, 2]));
        assert_eq!(whole_batches(&[(1, 0)], &held), Some(vec![1]));
        // A batch in part: rows are gathered.
        assert_eq!(whole_batches(&all[1..], &held), None);
        assert_eq!(whole_batches(&all[..5], &held), None);
        assert_eq!(whole_batches(&[(0, 0), (2, 0)], &held), None);
        assert_eq!(whole_batches(&[(2, 1)], &held), None);
    }

    #[test]
    fn open_parts_fit_the_open_files_limit() {
        assert_eq!(open_parts_per_task(None, 1000, 0), MAX_OPEN_PARTS);
        assert_eq!(open_parts_per_task(Some(65_536), 16, 64), MAX_OPEN_PARTS);
        // The usual 1,024 files and 16 workers: 48 each, less the 16 overflow runs each
        // reads at the end (768 + 256 in all), not 64 (1,024 parts alone).
        assert_eq!(open_parts_per_task(Some(1024), 16, 0), 32);
        assert_eq!(open_parts_per_task(Some(1024), 16, 32), 30);
        assert_eq!(open_parts_per_task(Some(120), 2, 0), 29);
        assert_eq!(open_parts_per_task(Some(40), 8, 0), 1);
        assert_eq!(open_parts_per_task(Some(40), 8, 100), 1);
    }

    #[test]
    fn escapes_as_spark() {
        assert_eq!(escape("2024-01-01"), "2024-01-01");
        assert_eq!(escape("a/b"), "a%2Fb");
        assert_eq!(escape("10:00:00"), "10%3A00%3A00");
        assert_eq!(escape("x=1%"), "x%3D1%25");
        assert_eq!(escape("é ü}~"), "é ü}~");
        assert_eq!(
            escape("a\nb#[c]^{'\"*?\\"),
            "a%0Ab%23%5Bc%5D%5E%7B%27%22%2A%3F%5C"
        );
    }

    #[test]
    fn values_print_as_sql() {
        use arrow::array::*;
        let check = |a: ArrayRef, want: &[&str]| {
            let got: Vec<String> = (0..a.len())
                .map(|i| value_text("c", a.as_ref(), i).unwrap())
                .collect();
            assert_eq!(got, want, "{:?}", a.data_type());
        };
        check(
            Arc::new(Int64Array::from(vec![Some(-3), None, Some(12)])),
            &["-3", DEFAULT_PARTITION, "12"],
        );
        check(
            Arc::new(StringArray::from(vec![Some("a/b"), Some(""), None])),
            &["a%2Fb", DEFAULT_PARTITION, DEFAULT_PARTITION],
        );
        check(Arc::new(Date32Array::from(vec![19723])), &["2024-01-01"]);
        check(
            Arc::new(TimestampMicrosecondArray::from(vec![
                1_704_067_200_000_000,
                1_704_067_200_500_000,
            ])),
            &["2024-01-01 00%3A00%3A00", "2024-01-01 00%3A00%3A00.5"],
        );
        check(
            Arc::new(
                Decimal128Array::from(vec![1250])
                    .with_precision_and_scale(15, 2)
                    .unwrap(),
            ),
            &["12.50"],
        );
        check(
            Arc::new(BooleanArray::from(vec![true, false])),
            &["true", "false"],
        );
    }

    #[test]
    fn values_without_a_date_text_are_errors() {
        use arrow::array::*;
        for a in [
            Arc::new(Date32Array::from(vec![2_147_483_646])) as ArrayRef,
            Arc::new(Date32Array::from(vec![-2_147_483_647])),
            Arc::new(Date32Array::from(vec![2_932_897])), // 10000-01-01
            Arc::new(Date32Array::from(vec![-719_163])),  // 0000-12-31
            Arc::new(TimestampSecondArray::from(vec![i64::MAX / 2])),
        ] {
            let e = value_text("d", a.as_ref(), 0).unwrap_err().to_string();
            assert!(e.contains("--partition-by") && e.contains("\"d\""), "{e}");
        }
        let ok = Date32Array::from(vec![-719_162, 2_932_896]); // 0001-01-01, 9999-12-31
        assert_eq!(value_text("d", &ok, 0).unwrap(), "0001-01-01");
        assert_eq!(value_text("d", &ok, 1).unwrap(), "9999-12-31");
    }

    #[test]
    fn timestamp_fractions_lose_trailing_zeros() {
        assert_eq!(trim_fraction("2024-01-01 10:00:00"), "2024-01-01 10:00:00");
        assert_eq!(
            trim_fraction("2024-01-01 10:00:00.000"),
            "2024-01-01 10:00:00"
        );
        assert_eq!(
            trim_fraction("2024-01-01 10:00:00.120"),
            "2024-01-01 10:00:00.12"
        );
        assert_eq!(
            trim_fraction("2024-01-01 10:00:00.500+02:00"),
            "2024-01-01 10:00:00.5+02:00"
        );
        assert_eq!(
            trim_fraction("2024-01-01 10:00:00+02:00"),
            "2024-01-01 10:00:00+02:00"
        );
    }

    #[test]
    fn partition_columns_are_checked() {
        let schema = Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("dt", DataType::Date32, true),
            Field::new("f", DataType::Float64, true),
        ]);
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let p = OutputPartitioning::new(&schema, &names(&["dt"])).unwrap();
        assert_eq!(p.file_schema.fields().len(), 2);
        assert_eq!(p.names(), ["dt"]);
        for (bad, want) in [
            (vec!["nope"], "not an output column"),
            (vec!["dt", "dt"], "named twice"),
            (vec!["f"], "Float64"),
            (vec!["id", "dt", "f"], "Float64"),
        ] {
            let e = OutputPartitioning::new(&schema, &names(&bad)).unwrap_err();
            assert!(e.to_string().contains("--partition-by"), "{e}");
            assert!(e.to_string().contains(want), "{bad:?}: {e}");
        }
        let two = Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("b", DataType::Utf8, true),
        ]);
        let e = OutputPartitioning::new(&two, &names(&["a", "b"])).unwrap_err();
        assert!(e.to_string().contains("every output column"), "{e}");
    }
}
