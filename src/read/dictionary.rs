//! A row group's distinct keys read from its dictionary page alone (train's dictionary
//! shortcut).
//!
//! When every data page of a column chunk is dictionary-encoded, the chunk's values are the
//! entries of its dictionary page: the data pages only say which entry each row holds. A
//! Bloom filter is a set, so `train` (one key column, no `--where`) inserts the dictionary's
//! entries and reads none of the data pages: they are neither fetched, decompressed nor
//! decoded. The filter's bytes are those of the row-by-row path whenever every entry is used by
//! some row, which is how writers build dictionaries (arrow-rs, parquet-mr, DuckDB: from the
//! values they are given). An entry no row uses (a writer may store an Arrow dictionary array
//! as it is) goes into the filter too: one more member, as a false positive is; never one fewer.
//!
//! Which chunks qualify is in the footer (page encoding statistics, or a list of encodings
//! that settles it). A footer that does not say (Polars writes no page encoding statistics and
//! lists `PLAIN` for its dictionary pages) costs a fetch of the whole chunk, whose data pages'
//! headers then say it; their bodies are still neither decompressed nor decoded.
//!
//! Anything this module does not recognise gives `None`, and the row group is read row by
//! row: a chunk with a data page of another encoding (a dictionary that grew too large and fell
//! back to plain), a nullable column without a null count, a key type outside the plain ones
//! below, a page header or a dictionary page that does not read or decode. A corrupt file is
//! then reported by the row path, with its usual message.

use std::sync::Arc;

use arrow::array::{
    ArrayRef, BinaryArray, BinaryViewArray, Date32Array, Decimal128Array, Int16Array, Int32Array,
    Int64Array, Int8Array, LargeBinaryArray, LargeStringArray, StringArray, StringViewArray,
    Time32MillisecondArray, Time64MicrosecondArray, Time64NanosecondArray,
    TimestampMicrosecondArray, TimestampMillisecondArray, TimestampNanosecondArray, UInt16Array,
    UInt32Array, UInt64Array, UInt8Array,
};
use arrow::datatypes::{DataType, TimeUnit};
use bytes::{Buf, Bytes};
use parquet::basic::{Compression, Encoding, LogicalType, PageType, Type as PhysicalType};
use parquet::column::page::{Page, PageReader};
use parquet::errors::ParquetError;
use parquet::file::metadata::ColumnChunkMetaData;
use parquet::file::reader::{ChunkReader, Length};
use parquet::file::serialized_reader::SerializedPageReader;

use crate::error::Result;
use crate::plan::{InputFile, RangeReader};

/// The distinct keys of one row group's key column, with what the rows would have counted.
#[derive(Debug)]
pub struct DictionaryKeys {
    /// The dictionary's entries, as an array of the column's Arrow type (no nulls).
    pub values: ArrayRef,
    /// Rows of the row group.
    pub rows: u64,
    /// Rows whose key is null.
    pub nulls: u64,
    /// Bytes fetched (the dictionary page).
    pub bytes: u64,
}

impl DictionaryKeys {
    /// The row group's non-null keys, which the entries stand for.
    pub fn keys(&self) -> u64 {
        self.rows - self.nulls
    }
}

/// What [`dictionary_keys`] reads of one row group's key chunk: the bytes `start..end` (the
/// dictionary page, or the whole chunk when the footer does not say that every data page
/// is dictionary-encoded), and the figures the decode needs.
struct DictionaryRead {
    leaf: usize,
    start: u64,
    end: u64,
    /// Whether the footer says every data page is dictionary-encoded.
    known: bool,
    rows: u64,
    nulls: u64,
}

/// The plan of [`dictionary_keys`] for `column` of `row_group`, or `None` when the row group
/// must be read row by row. Reads nothing but the footer.
fn dictionary_read(file: &InputFile, row_group: usize, column: usize) -> Option<DictionaryRead> {
    let meta = file.metadata.metadata();
    let field = file.metadata.schema().field(column);
    let descr = meta.file_metadata().schema_descr();
    // The leaf of a top-level column: only a column whose path is its own name (not nested).
    let leaf = descr
        .columns()
        .iter()
        .position(|c| c.path().parts() == [field.name().as_str()])?;
    let rg = meta.row_group(row_group);
    let chunk = rg.column(leaf);
    let column = descr.column(leaf);
    if !plain_type(
        field.data_type(),
        chunk.column_type(),
        column.logical_type_ref(),
    ) {
        return None;
    }
    let nulls = if column.max_def_level() == 0 {
        0
    } else {
        chunk.statistics().and_then(|s| s.null_count_opt())?
    };
    let rows = rg.num_rows().max(0) as u64;
    if nulls > rows {
        return None;
    }
    let (Some(start), data) = (chunk.dictionary_page_offset(), chunk.data_page_offset()) else {
        return None;
    };
    // The dictionary page lies inside the chunk, before its first data page: anything else
    // (offsets a writer got wrong) is left to the row path, never a large fetch.
    if start < 0 || data <= start || data - start > chunk.compressed_size() {
        return None;
    }
    // When the footer says every data page is dictionary-encoded, the dictionary page alone
    // is fetched; else the whole chunk, whose data pages' headers then say it (their bodies
    // are neither decompressed nor decoded).
    let known = match all_dictionary(chunk) {
        Some(false) => return None,
        Some(true) => true,
        None => false,
    };
    let (start, end) = match known {
        true => (start as u64, data as u64),
        false => (start as u64, (start + chunk.compressed_size()) as u64),
    };
    Some(DictionaryRead {
        leaf,
        start,
        end,
        known,
        rows,
        nulls,
    })
}

/// The byte range [`dictionary_keys`] fetches for `column` of `row_group`, if it fetches
/// one (to fetch it ahead, [`crate::read::ahead`]).
pub(crate) fn dictionary_range(
    file: &InputFile,
    row_group: usize,
    column: usize,
) -> Option<std::ops::Range<u64>> {
    dictionary_read(file, row_group, column).map(|d| d.start..d.end)
}

/// The dictionary of column `column` (a top-level column of a flat schema) in row group
/// `row_group` of `file`, when its data pages are all dictionary-encoded; `None` when the
/// row group must be read row by row. I/O errors (the fetch) are errors.
pub fn dictionary_keys(
    file: &InputFile,
    io: &RangeReader,
    row_group: usize,
    column: usize,
) -> Result<Option<DictionaryKeys>> {
    let Some(DictionaryRead {
        leaf,
        start,
        end,
        known,
        rows,
        nulls,
    }) = dictionary_read(file, row_group, column)
    else {
        return Ok(None);
    };
    let meta = file.metadata.metadata();
    let field = file.metadata.schema().field(column);
    let chunk = meta.row_group(row_group).column(leaf);
    let mut fetched = io.fetch(std::slice::from_ref(&(start..end)))?;
    let Some(bytes) = fetched.pop() else {
        return Ok(None);
    };
    let fetched = Fetched { start, bytes };
    // The parquet crate panics on some corrupt pages: that page is then read by the row path,
    // which reports it.
    let values = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if !known && !data_pages_all_dictionary(&fetched, chunk, rows)? {
            return None;
        }
        dictionary_page(fetched, chunk, rows)
            .and_then(|(buf, n)| decode(field.data_type(), chunk.column_type(), &buf, n))
    }))
    .ok()
    .flatten();
    Ok(values.map(|values| DictionaryKeys {
        values,
        rows,
        nulls,
        bytes: end - start,
    }))
}

/// Whether every data page of the chunk in `fetched` (the whole chunk, from its dictionary
/// page) is dictionary-encoded, by the pages' headers: a chunk whose footer does not say so
/// (no page encoding statistics, as Polars writes them). The pages are walked as if they were
/// not compressed, so that their bodies are sliced, never decompressed. `None` when a header
/// does not read.
fn data_pages_all_dictionary(
    fetched: &Fetched,
    chunk: &ColumnChunkMetaData,
    rows: u64,
) -> Option<bool> {
    let raw = chunk
        .clone()
        .into_builder()
        .set_compression(Compression::UNCOMPRESSED)
        .build()
        .ok()?;
    let mut pages =
        SerializedPageReader::new(Arc::new(fetched.clone()), &raw, rows as usize, None).ok()?;
    let (mut dictionary, mut data_pages) = (false, 0);
    while let Some(page) = pages.get_next_page().ok()? {
        match page.page_type() {
            // One dictionary page, first.
            PageType::DICTIONARY_PAGE if !dictionary && data_pages == 0 => dictionary = true,
            PageType::DATA_PAGE | PageType::DATA_PAGE_V2 => {
                if !matches!(
                    page.encoding(),
                    Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY
                ) {
                    return Some(false);
                }
                data_pages += 1;
            }
            _ => return Some(false),
        }
    }
    Some(data_pages > 0)
}

/// Whether the Arrow type is read from the physical type by a conversion of each value that
/// [`decode`] repeats, so that the plain-decoded dictionary entries become the values the row
/// path would hash: none for 32- and 64-bit integers, dates and byte arrays; for narrower and
/// unsigned integers the parquet crate's own (`as`, a reinterpretation of the bits for
/// `UInt32` and `UInt64`, a truncation for 8 and 16 bits); timestamps and decimals stored as
/// integers when the file's logical type says the same unit, or precision and scale (a
/// reinterpretation, or a widening to 128 bits).
fn plain_type(arrow: &DataType, physical: PhysicalType, logical: Option<&LogicalType>) -> bool {
    use parquet::basic::TimeUnit as Unit;
    match (arrow, physical, logical) {
        (
            DataType::Int32
            | DataType::Date32
            | DataType::Int8
            | DataType::Int16
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32,
            PhysicalType::INT32,
            _,
        )
        | (DataType::Int64 | DataType::UInt64, PhysicalType::INT64, _) => true,
        (DataType::Timestamp(unit, _), PhysicalType::INT64, Some(LogicalType::Timestamp(t))) => {
            matches!(
                (unit, &t.unit),
                (TimeUnit::Millisecond, Unit::MILLIS)
                    | (TimeUnit::Microsecond, Unit::MICROS)
                    | (TimeUnit::Nanosecond, Unit::NANOS)
            )
        }
        (
            DataType::Decimal128(p, s),
            PhysicalType::INT32 | PhysicalType::INT64,
            Some(LogicalType::Decimal(d)),
        ) => i32::from(*p) == d.precision && i32::from(*s) == d.scale,
        // Times of day stored in the unit the reader hands on (a `Time32(s)` column is stored
        // in milliseconds, and divided on reading: row by row).
        (
            DataType::Time32(TimeUnit::Millisecond),
            PhysicalType::INT32,
            Some(LogicalType::Time(t)),
        ) => t.unit == Unit::MILLIS,
        (DataType::Time64(unit), PhysicalType::INT64, Some(LogicalType::Time(t))) => matches!(
            (unit, &t.unit),
            (TimeUnit::Microsecond, Unit::MICROS) | (TimeUnit::Nanosecond, Unit::NANOS)
        ),
        (
            DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView,
            PhysicalType::BYTE_ARRAY,
            _,
        ) => true,
        _ => false,
    }
}

/// Whether the chunk has a dictionary page and every data page is dictionary-encoded, as its
/// footer says it: `Some(true)` or `Some(false)` from its page encoding statistics; without
/// them, from its list of encodings as parquet-mr's dictionary filter reads it
/// (`hasNonDictionaryPages`), where `PLAIN_DICTIONARY` and nothing else but the levels' `RLE`
/// and `BIT_PACKED` is a version 1 writer whose pages all kept the dictionary. `None` when the
/// footer does not say: a list with `PLAIN` (version 2 writers encode the dictionary page itself
/// as `PLAIN`, so a plain data page would not show), as Polars writes it; the data pages'
/// headers then decide ([`data_pages_all_dictionary`]).
pub(crate) fn all_dictionary(chunk: &ColumnChunkMetaData) -> Option<bool> {
    let dict = |e: Encoding| matches!(e, Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY);
    if chunk.dictionary_page_offset().is_none() {
        return Some(false);
    }
    match (
        chunk.page_encoding_stats_mask(),
        chunk.page_encoding_stats(),
    ) {
        (Some(mask), _) => {
            Some(mask.is_only(Encoding::RLE_DICTIONARY) || mask.is_only(Encoding::PLAIN_DICTIONARY))
        }
        (None, Some(stats)) => {
            let data = |s: &&parquet::file::metadata::PageEncodingStats| {
                matches!(s.page_type, PageType::DATA_PAGE | PageType::DATA_PAGE_V2)
            };
            Some(
                stats.iter().filter(data).all(|s| dict(s.encoding))
                    && stats.iter().filter(data).any(|s| s.count > 0),
            )
        }
        // BIT_PACKED is deprecated as an encoding to write, not to read in old files.
        #[allow(deprecated)]
        (None, None) => {
            let levels = |e: Encoding| matches!(e, Encoding::RLE | Encoding::BIT_PACKED);
            if !chunk.encodings().any(dict) {
                Some(false)
            } else if chunk
                .encodings()
                .all(|e| e == Encoding::PLAIN_DICTIONARY || levels(e))
            {
                Some(true)
            } else {
                None
            }
        }
    }
}

/// The first page of the chunk, which must be its dictionary page: its decompressed bytes
/// and its entry count.
fn dictionary_page(
    fetched: Fetched,
    chunk: &ColumnChunkMetaData,
    rows: u64,
) -> Option<(Bytes, usize)> {
    let mut pages =
        SerializedPageReader::new(Arc::new(fetched), chunk, rows as usize, None).ok()?;
    match pages.get_next_page().ok()?? {
        Page::DictionaryPage {
            buf,
            num_values,
            encoding: Encoding::PLAIN | Encoding::PLAIN_DICTIONARY,
            ..
        } => Some((buf, num_values as usize)),
        _ => None,
    }
}

/// `n` plain-encoded entries of `buf` as an array of `arrow`; `None` when they do not decode
/// to exactly `n` values (or, for a string type, are not UTF-8).
fn decode(arrow: &DataType, physical: PhysicalType, buf: &[u8], n: usize) -> Option<ArrayRef> {
    fn fixed<const W: usize>(buf: &[u8], n: usize) -> Option<impl Iterator<Item = [u8; W]> + '_> {
        (buf.len() == n.checked_mul(W)?).then(|| {
            buf.chunks_exact(W)
                .map(|c| <[u8; W]>::try_from(c).expect("chunks of W bytes"))
        })
    }
    Some(match arrow {
        DataType::Int32 => Arc::new(Int32Array::from_iter_values(
            fixed::<4>(buf, n)?.map(i32::from_le_bytes),
        )),
        DataType::Date32 => Arc::new(Date32Array::from_iter_values(
            fixed::<4>(buf, n)?.map(i32::from_le_bytes),
        )),
        DataType::Int64 => Arc::new(Int64Array::from_iter_values(
            fixed::<8>(buf, n)?.map(i64::from_le_bytes),
        )),
        // As the parquet crate converts them (`PrimitiveArrayReader`).
        DataType::Int8 => Arc::new(Int8Array::from_iter_values(
            fixed::<4>(buf, n)?.map(|b| i32::from_le_bytes(b) as i8),
        )),
        DataType::Int16 => Arc::new(Int16Array::from_iter_values(
            fixed::<4>(buf, n)?.map(|b| i32::from_le_bytes(b) as i16),
        )),
        DataType::UInt8 => Arc::new(UInt8Array::from_iter_values(
            fixed::<4>(buf, n)?.map(|b| i32::from_le_bytes(b) as u8),
        )),
        DataType::UInt16 => Arc::new(UInt16Array::from_iter_values(
            fixed::<4>(buf, n)?.map(|b| i32::from_le_bytes(b) as u16),
        )),
        DataType::UInt32 => Arc::new(UInt32Array::from_iter_values(
            fixed::<4>(buf, n)?.map(u32::from_le_bytes),
        )),
        DataType::UInt64 => Arc::new(UInt64Array::from_iter_values(
            fixed::<8>(buf, n)?.map(u64::from_le_bytes),
        )),
        DataType::Time32(TimeUnit::Millisecond) => Arc::new(
            Time32MillisecondArray::from_iter_values(fixed::<4>(buf, n)?.map(i32::from_le_bytes)),
        ),
        DataType::Time64(TimeUnit::Microsecond) => Arc::new(
            Time64MicrosecondArray::from_iter_values(fixed::<8>(buf, n)?.map(i64::from_le_bytes)),
        ),
        DataType::Time64(TimeUnit::Nanosecond) => Arc::new(
            Time64NanosecondArray::from_iter_values(fixed::<8>(buf, n)?.map(i64::from_le_bytes)),
        ),
        DataType::Timestamp(unit, tz) => {
            let values = fixed::<8>(buf, n)?.map(i64::from_le_bytes);
            match unit {
                TimeUnit::Millisecond => Arc::new(
                    TimestampMillisecondArray::from_iter_values(values)
                        .with_timezone_opt(tz.clone()),
                ),
                TimeUnit::Microsecond => Arc::new(
                    TimestampMicrosecondArray::from_iter_values(values)
                        .with_timezone_opt(tz.clone()),
                ),
                TimeUnit::Nanosecond => Arc::new(
                    TimestampNanosecondArray::from_iter_values(values)
                        .with_timezone_opt(tz.clone()),
                ),
                TimeUnit::Second => return None,
            }
        }
        DataType::Decimal128(p, s) => {
            let values: Vec<i128> = match physical {
                PhysicalType::INT32 => fixed::<4>(buf, n)?
                    .map(|b| i32::from_le_bytes(b) as i128)
                    .collect(),
                PhysicalType::INT64 => fixed::<8>(buf, n)?
                    .map(|b| i64::from_le_bytes(b) as i128)
                    .collect(),
                _ => return None,
            };
            Arc::new(
                Decimal128Array::from_iter_values(values)
                    .with_precision_and_scale(*p, *s)
                    .ok()?,
            )
        }
        _ => {
            let values = byte_arrays(buf, n)?;
            let strings = || {
                values
                    .iter()
                    .map(|v| std::str::from_utf8(v).ok())
                    .collect::<Option<Vec<_>>>()
            };
            match arrow {
                DataType::Utf8 => Arc::new(StringArray::from_iter_values(strings()?)),
                DataType::LargeUtf8 => Arc::new(LargeStringArray::from_iter_values(strings()?)),
                DataType::Utf8View => Arc::new(StringViewArray::from_iter_values(strings()?)),
                DataType::Binary => Arc::new(BinaryArray::from_iter_values(values)),
                DataType::LargeBinary => Arc::new(LargeBinaryArray::from_iter_values(values)),
                DataType::BinaryView => Arc::new(BinaryViewArray::from_iter_values(values)),
                _ => return None,
            }
        }
    })
}

/// `n` plain-encoded byte arrays (a 4-byte little-endian length, then the bytes), exactly
/// filling `buf`.
fn byte_arrays(mut buf: &[u8], n: usize) -> Option<Vec<&[u8]>> {
    let mut out = Vec::with_capacity(n.min(buf.len() / 4));
    for _ in 0..n {
        let len = u32::from_le_bytes(buf.get(..4)?.try_into().ok()?) as usize;
        let value = buf.get(4..4usize.checked_add(len)?)?;
        out.push(value);
        buf = &buf[4 + len..];
    }
    buf.is_empty().then_some(out)
}

/// A fetched range of a file, served to the parquet crate's page reader at its file offsets.
#[derive(Clone)]
struct Fetched {
    start: u64,
    bytes: Bytes,
}

impl Fetched {
    fn slice(&self, start: u64, len: Option<usize>) -> parquet::errors::Result<Bytes> {
        let eof = || ParquetError::EOF(format!("offset {start} is outside the fetched range"));
        let from =
            usize::try_from(start.checked_sub(self.start).ok_or_else(eof)?).map_err(|_| eof())?;
        let to = match len {
            Some(len) => from.checked_add(len).ok_or_else(eof)?,
            None => self.bytes.len(),
        };
        if from > to || to > self.bytes.len() {
            return Err(eof());
        }
        Ok(self.bytes.slice(from..to))
    }
}

impl Length for Fetched {
    fn len(&self) -> u64 {
        self.start + self.bytes.len() as u64
    }
}

impl ChunkReader for Fetched {
    type T = bytes::buf::Reader<Bytes>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(self.slice(start, None)?.reader())
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        self.slice(start, Some(length))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, AsArray, RecordBatch};
    use arrow::datatypes::{Field, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;

    /// Write `col` as a one-column file with `props`; open it as a job would.
    fn file(dir: &std::path::Path, col: ArrayRef, props: WriterProperties) -> Arc<InputFile> {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "k",
            col.data_type().clone(),
            true,
        )]));
        let path = dir.join("t.parquet");
        let mut w = ArrowWriter::try_new(
            std::fs::File::create(&path).unwrap(),
            schema.clone(),
            Some(props),
        )
        .unwrap();
        w.write(&RecordBatch::try_new(schema, vec![col]).unwrap())
            .unwrap();
        w.close().unwrap();
        let loc = crate::store::Location::parse(path.to_str().unwrap()).unwrap();
        Arc::new(InputFile::open(loc).unwrap())
    }

    fn keys(f: &InputFile) -> Option<DictionaryKeys> {
        let io = RangeReader::open(&f.location).unwrap();
        dictionary_keys(f, &io, 0, 0).unwrap()
    }

    #[test]
    fn the_dictionary_holds_each_distinct_key_once_and_the_counts_are_the_rows() {
        let dir = tempfile::tempdir().unwrap();
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![
            Some(7),
            None,
            Some(3),
            Some(7),
            None,
            Some(-1),
        ]));
        let f = file(dir.path(), ints, WriterProperties::builder().build());
        let d = keys(&f).expect("an all-dictionary chunk");
        assert_eq!((d.rows, d.nulls), (6, 2));
        assert_eq!(
            d.values
                .as_primitive::<arrow::datatypes::Int64Type>()
                .values(),
            &[7, 3, -1]
        );
        assert!(d.bytes > 0);

        let strings: ArrayRef = Arc::new(StringViewArray::from(vec![
            "a rather long value, over 12 bytes",
            "b",
            "b",
            "é",
        ]));
        let f = file(dir.path(), strings, WriterProperties::builder().build());
        let d = keys(&f).expect("an all-dictionary chunk");
        assert_eq!(d.values.data_type(), &DataType::Utf8View);
        let got: Vec<&str> = d
            .values
            .as_string_view()
            .iter()
            .map(|v| v.unwrap())
            .collect();
        assert_eq!(got, ["a rather long value, over 12 bytes", "b", "é"]);
    }

    /// Times of day stored in their own unit (milliseconds, microseconds, nanoseconds) take
    /// the shortcut, with the values the row path reads; `Time32(s)`, stored in milliseconds
    /// and divided on reading, does not.
    #[test]
    fn times_of_day_take_the_dictionary_in_their_stored_unit() {
        use arrow::datatypes::{
            Time32MillisecondType, Time64MicrosecondType, Time64NanosecondType,
        };
        let dir = tempfile::tempdir().unwrap();
        let props = || WriterProperties::builder().build();
        let ms: ArrayRef = Arc::new(Time32MillisecondArray::from(vec![1_000, 86_399_999, 1_000]));
        let d = keys(&file(dir.path(), ms, props())).expect("an all-dictionary chunk");
        assert_eq!(
            d.values.as_primitive::<Time32MillisecondType>().values(),
            &[1_000, 86_399_999]
        );
        let us: ArrayRef = Arc::new(Time64MicrosecondArray::from(vec![7, 7, 5]));
        let d = keys(&file(dir.path(), us, props())).expect("an all-dictionary chunk");
        assert_eq!(
            d.values.as_primitive::<Time64MicrosecondType>().values(),
            &[7, 5]
        );
        let ns: ArrayRef = Arc::new(Time64NanosecondArray::from(vec![1, 86_399_999_999_999]));
        let d = keys(&file(dir.path(), ns, props())).expect("an all-dictionary chunk");
        assert_eq!(
            d.values.as_primitive::<Time64NanosecondType>().values(),
            &[1, 86_399_999_999_999]
        );
        let s: ArrayRef = Arc::new(arrow::array::Time32SecondArray::from(vec![1, 2, 2]));
        assert!(keys(&file(dir.path(), s, props())).is_none());
    }

    #[test]
    fn other_chunks_are_read_row_by_row() {
        let dir = tempfile::tempdir().unwrap();
        let ints: ArrayRef = Arc::new(Int64Array::from_iter_values(0..10_000));
        // No dictionary.
        let plain = WriterProperties::builder()
            .set_dictionary_enabled(false)
            .build();
        assert!(keys(&file(dir.path(), ints.clone(), plain)).is_none());
        // A dictionary that fell back to plain pages part way.
        let small = WriterProperties::builder()
            .set_dictionary_page_size_limit(1024)
            .set_data_page_size_limit(1024)
            .build();
        assert!(keys(&file(dir.path(), ints, small)).is_none());
        // A type whose values are converted on reading in a way the shortcut does not repeat
        // (seconds, which the file holds as milliseconds), and a nullable column without
        // statistics.
        let timestamps: ArrayRef =
            Arc::new(arrow::array::TimestampSecondArray::from(vec![1, 2, 2]));
        assert!(keys(&file(
            dir.path(),
            timestamps,
            WriterProperties::builder().build()
        ))
        .is_none());
        let no_stats = WriterProperties::builder()
            .set_statistics_enabled(parquet::file::properties::EnabledStatistics::None)
            .build();
        let nullable: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None]));
        assert!(keys(&file(dir.path(), nullable, no_stats)).is_none());
    }

    /// The data pages' headers, read without decompressing the pages (as for a footer that
    /// does not say): every page of a dictionary chunk is dictionary-encoded; a chunk that fell
    /// back to plain pages part way is not, whatever its compression and page version.
    #[test]
    fn the_data_page_headers_say_whether_every_page_kept_the_dictionary() {
        use parquet::basic::Compression as C;
        use parquet::file::properties::WriterVersion;
        let dir = tempfile::tempdir().unwrap();
        let ints: ArrayRef = Arc::new(Int64Array::from_iter_values(
            (0..10_000i64).map(|i| (i * 7919) % 3001),
        ));
        for compression in [C::SNAPPY, C::UNCOMPRESSED, C::ZSTD(Default::default())] {
            for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
                let props = || {
                    WriterProperties::builder()
                        .set_compression(compression)
                        .set_writer_version(version)
                        .set_data_page_size_limit(1024)
                        .set_data_page_row_count_limit(500)
                        .set_write_batch_size(64)
                };
                for (limit, all) in [(1 << 20, true), (4096, false)] {
                    let f = file(
                        dir.path(),
                        ints.clone(),
                        props().set_dictionary_page_size_limit(limit).build(),
                    );
                    let chunk = f.metadata.metadata().row_group(0).column(0);
                    let start = chunk.dictionary_page_offset().unwrap() as u64;
                    let io = RangeReader::open(&f.location).unwrap();
                    let range = start..start + chunk.compressed_size() as u64;
                    let bytes = io
                        .fetch(std::slice::from_ref(&range))
                        .unwrap()
                        .pop()
                        .unwrap();
                    let fetched = Fetched { start, bytes };
                    let what = format!("{compression:?}, {version:?}, dictionary limit {limit}");
                    assert_eq!(all_dictionary(chunk), Some(all), "{what}");
                    assert_eq!(
                        data_pages_all_dictionary(&fetched, chunk, 10_000),
                        Some(all),
                        "{what}"
                    );
                    // Several data pages: the walk went past the first.
                    let mut pages =
                        SerializedPageReader::new(Arc::new(fetched), chunk, 10_000, None).unwrap();
                    let mut data_pages = 0;
                    while let Some(p) = pages.get_next_page().unwrap() {
                        data_pages += (p.page_type() != PageType::DICTIONARY_PAGE) as usize;
                    }
                    assert!(data_pages > 2, "{what}: {data_pages} data pages");
                }
            }
        }
    }

    #[test]
    fn byte_arrays_must_fill_the_page_exactly() {
        let page = [1u8, 0, 0, 0, b'x', 0, 0, 0, 0];
        assert_eq!(byte_arrays(&page, 2), Some(vec![&b"x"[..], &b""[..]]));
        assert_eq!(byte_arrays(&page, 1), None);
        assert_eq!(byte_arrays(&page, 3), None);
        assert_eq!(byte_arrays(&[9, 0, 0, 0, b'x'], 1), None);
        assert!(decode(&DataType::Int64, PhysicalType::INT64, &[0; 12], 2).is_none());
        let utf8 = decode(
            &DataType::Utf8,
            PhysicalType::BYTE_ARRAY,
            &[1, 0, 0, 0, 0xff],
            1,
        );
        assert!(utf8.is_none());
    }

    /// Without page encoding statistics, the encodings list settles it as parquet-mr's
    /// dictionary filter does (only a version 1 dictionary, `PLAIN_DICTIONARY`, and level
    /// encodings: yes; no dictionary: no), or leaves it to the data pages' headers.
    #[test]
    #[allow(deprecated)] // BIT_PACKED
    fn without_page_statistics_the_encoding_list_settles_it_or_leaves_it_to_the_headers() {
        use parquet::basic::Type as T;
        use parquet::schema::types::{ColumnDescriptor, ColumnPath, Type as SchemaType};
        let leaf = SchemaType::primitive_type_builder("k", T::INT64)
            .build()
            .unwrap();
        let descr = Arc::new(ColumnDescriptor::new(
            Arc::new(leaf),
            1,
            0,
            ColumnPath::from("k"),
        ));
        let chunk = |encodings: Vec<Encoding>, dictionary: Option<i64>| {
            ColumnChunkMetaData::builder(descr.clone())
                .set_encodings(encodings)
                .set_dictionary_page_offset(dictionary)
                .set_data_page_offset(100)
                .build()
                .unwrap()
        };
        use Encoding::*;
        for (encodings, dictionary, all) in [
            (vec![PLAIN_DICTIONARY], Some(4), Some(true)),
            (vec![PLAIN_DICTIONARY, RLE, BIT_PACKED], Some(4), Some(true)),
            (vec![PLAIN_DICTIONARY], None, Some(false)),
            (vec![PLAIN, RLE], Some(4), Some(false)),
            (vec![PLAIN], None, Some(false)),
            // Fell back to plain pages, or not: the pages' headers say.
            (vec![PLAIN_DICTIONARY, PLAIN, RLE], Some(4), None),
            (vec![PLAIN_DICTIONARY, DELTA_BINARY_PACKED], Some(4), None),
            // Version 2: the dictionary page is PLAIN, so a plain data page would not show.
            (vec![RLE_DICTIONARY, PLAIN, RLE], Some(4), None),
            (vec![RLE_DICTIONARY], Some(4), None),
        ] {
            let c = chunk(encodings.clone(), dictionary);
            assert!(c.page_encoding_stats().is_none() && c.page_encoding_stats_mask().is_none());
            assert_eq!(all_dictionary(&c), all, "{encodings:?}, {dictionary:?}");
        }
    }
}
