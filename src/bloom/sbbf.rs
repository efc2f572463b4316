//! Parquet's split-block Bloom filters (SBBF): the per-column-chunk filters of the Parquet
//! format, written into our outputs and read from our inputs.
//!
//! The format (parquet-format `BloomFilter.md`) fixes everything: 256-bit blocks of eight
//! 32-bit words, k = 8 with the spec's salts, XXH64 with seed 0 of the value's *plain
//! encoding*. The encoding depends on the column's physical type: an INT32 column hashes 4
//! little-endian bytes, INT64 8, BYTE_ARRAY the bytes without the length prefix. Writing and
//! reading go through the parquet crate ([`parquet::bloom_filter::Sbbf`] and its writer
//! properties); this module only says which columns get one and how our keys are hashed.

use parquet::basic::Type;
pub use parquet::bloom_filter::Sbbf;
use parquet::errors::ParquetError;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::properties::WriterPropertiesBuilder;
use parquet::file::reader::ChunkReader;
use parquet::schema::types::ColumnPath;

use crate::error::{Error, Result};
use crate::plan::RangeReader;

/// The default false-positive rate of the filters we write (`--bloom-fpp`).
pub const DEFAULT_FPP: f64 = 0.01;

/// Which columns of a Parquet file we write get an SBBF per row group, and at what rate.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WriteBlooms {
    /// Top-level column names (primitive columns).
    pub columns: Vec<String>,
    /// Target false-positive rate of each filter.
    pub fpp: f64,
}

impl WriteBlooms {
    /// No filters.
    pub fn none() -> Self {
        WriteBlooms {
            columns: Vec::new(),
            fpp: DEFAULT_FPP,
        }
    }

    /// Turn the filters on in a writer's properties. The parquet crate sizes each filter for
    /// the row group's largest row count, inserts the chunk's values and then folds it down to
    /// the smallest size that still meets `fpp` for the values actually written.
    pub fn apply(&self, mut b: WriterPropertiesBuilder) -> WriterPropertiesBuilder {
        for c in &self.columns {
            let path = ColumnPath::from(c.as_str());
            b = b
                .set_column_bloom_filter_enabled(path.clone(), true)
                .set_column_bloom_filter_fpp(path, self.fpp);
        }
        b
    }
}

/// Parse `--bloom-columns`: `none` (no filters) or comma-separated column names. `None` for
/// the default (decided by the caller).
pub fn parse_columns(list: Option<&str>, name: &str) -> Result<Option<Vec<String>>> {
    let Some(list) = list else {
        return Ok(None);
    };
    if list.trim().eq_ignore_ascii_case("none") {
        return Ok(Some(Vec::new()));
    }
    let mut out: Vec<String> = Vec::new();
    for item in list.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(Error::param(
                name,
                format!("{list:?} has an empty column name"),
            ));
        }
        if !out.iter().any(|c| c == item) {
            out.push(item.to_string());
        }
    }
    Ok(Some(out))
}

/// Check `--bloom-fpp`.
pub fn check_fpp(fpp: f64, name: &str) -> Result<f64> {
    if fpp.is_finite() && fpp > 0.0 && fpp < 1.0 {
        Ok(fpp)
    } else {
        Err(Error::param(
            name,
            format!("{fpp} must be between 0 and 1 (exclusive)"),
        ))
    }
}

/// Check that every column of `columns` is a primitive column of `schema` (what `what`
/// names in the message, e.g. "an output column").
pub fn check_columns(
    columns: &[String],
    schema: &arrow::datatypes::Schema,
    what: &str,
    name: &str,
) -> Result<()> {
    for c in columns {
        let Ok(field) = schema.field_with_name(c) else {
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            return Err(Error::param(
                name,
                format!("{c:?} is not {what} (they are: {})", names.join(", ")),
            ));
        };
        if field.data_type().is_nested() {
            return Err(Error::param(
                name,
                format!(
                    "{c:?} is a {} column; Bloom filters cover primitive columns",
                    field.data_type()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_parse() {
        assert_eq!(parse_columns(None, "--bloom-columns").unwrap(), None);
        assert_eq!(
            parse_columns(Some("NONE"), "--bloom-columns").unwrap(),
            Some(vec![])
        );
        assert_eq!(
            parse_columns(Some("a, b,a"), "--bloom-columns").unwrap(),
            Some(vec!["a".to_string(), "b".to_string()])
        );
        let e = parse_columns(Some("a,,b"), "--bloom-columns").unwrap_err();
        assert!(e.to_string().contains("--bloom-columns"), "{e}");
        for bad in [0.0, 1.0, -0.5, f64::NAN] {
            assert!(check_fpp(bad, "--bloom-fpp").is_err(), "{bad}");
        }
        assert_eq!(check_fpp(0.01, "--bloom-fpp").unwrap(), 0.01);
    }

    /// Keys by value against the plain encodings of each physical type: an INT32 chunk
    /// hashes 4 bytes (an unsigned 32-bit value as the bits of its `i32`), an INT64 chunk 8
    /// (a `UInt64` value as the bits of its `i64`); keys a type cannot hold are absent.
    #[test]
    fn integer_keys_probe_the_plain_encoding_of_the_physical_type() {
        let mut f32 = Sbbf::new_with_ndv_fpp(100, 0.001).unwrap();
        for v in [-5i32, 4_000_000_000u32 as i32, 7] {
            f32.insert(&v);
        }
        let mut f64 = Sbbf::new_with_ndv_fpp(100, 0.001).unwrap();
        for v in [-1i64, 7] {
            f64.insert(&v);
        }
        let maybe = |k: i128, f: &Sbbf, t: Type| ProbeKeys::integers([k]).any_maybe(f, t);
        assert_eq!(maybe(-5, &f32, Type::INT32), Some(true));
        assert_eq!(maybe(4_000_000_000, &f32, Type::INT32), Some(true));
        assert_eq!(maybe(7, &f32, Type::INT32), Some(true));
        assert_eq!(
            maybe(1 << 40, &f32, Type::INT32),
            Some(false),
            "out of INT32 range"
        );
        assert_eq!(maybe(7, &f64, Type::INT64), Some(true));
        assert_eq!(maybe(-1, &f64, Type::INT64), Some(true));
        // 2^64-1 shares -1's bits: kept (the join then compares by value).
        assert_eq!(maybe(u64::MAX.into(), &f64, Type::INT64), Some(true));
        assert_eq!(maybe(1 << 70, &f64, Type::INT64), Some(false));
        assert_eq!(maybe(7, &f64, Type::DOUBLE), None);
        let mut fb = Sbbf::new_with_ndv_fpp(100, 0.001).unwrap();
        fb.insert("abc");
        let keys = ProbeKeys::bytes([b"abc".to_vec()]);
        assert_eq!(keys.any_maybe(&fb, Type::BYTE_ARRAY), Some(true));
        assert_eq!(
            ProbeKeys::integers([]).any_maybe(&fb, Type::BYTE_ARRAY),
            Some(false)
        );
    }
}

/// The left side's distinct keys, encoded for the SBBF of each physical type a right key
/// column may have. A key that a column of that type cannot hold is left out (it is absent).
#[derive(Debug, Default)]
pub struct ProbeKeys {
    /// INT32 columns (`Int8`..`Int32`, `UInt8`..`UInt32`, `Date32`): the value's 4 bytes, for
    /// integer keys in `i32::MIN..=u32::MAX` (an unsigned 32-bit value is stored as the same 4
    /// bytes as the `i32` it wraps to).
    int32: Vec<i32>,
    /// INT64 columns (`Int64`, `UInt64`): the value's 8 bytes, for integer keys in
    /// `i64::MIN..=u64::MAX` (a `UInt64` value as the bits of the `i64` it wraps to).
    int64: Vec<i64>,
    /// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY columns: the key's bytes (no length prefix).
    bytes: Vec<Vec<u8>>,
}

impl ProbeKeys {
    /// Integer keys, by value, distinct. Where a signed and an unsigned value share their
    /// bits (-1 and 2^64-1), both probe the same bits: the row group is kept, and the join
    /// compares by value.
    pub fn integers(keys: impl IntoIterator<Item = i128>) -> Self {
        let keys: Vec<i128> = keys.into_iter().collect();
        let int32 = keys
            .iter()
            .filter(|k| (i128::from(i32::MIN)..=i128::from(u32::MAX)).contains(*k))
            .map(|k| *k as u32 as i32)
            .collect();
        let int64 = keys
            .iter()
            .filter(|k| (i128::from(i64::MIN)..=i128::from(u64::MAX)).contains(*k))
            .map(|k| *k as u64 as i64)
            .collect();
        ProbeKeys {
            int32,
            int64,
            bytes: Vec::new(),
        }
    }

    /// Bytes keys, distinct.
    pub fn bytes(keys: impl IntoIterator<Item = Vec<u8>>) -> Self {
        ProbeKeys {
            bytes: keys.into_iter().collect(),
            ..Default::default()
        }
    }

    /// Whether `filter`, the SBBF of a column of `physical` type, may hold any of the keys;
    /// `None` when the type is not one our keys can be compared with (then nothing is known).
    pub fn any_maybe(&self, filter: &Sbbf, physical: Type) -> Option<bool> {
        Some(match physical {
            Type::INT32 => self.int32.iter().any(|k| filter.check(k)),
            Type::INT64 => self.int64.iter().any(|k| filter.check(k)),
            Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY => {
                self.bytes.iter().any(|k| filter.check(k.as_slice()))
            }
            _ => return None,
        })
    }
}

/// Read the SBBF of column chunk `leaf` of row group `rg` with ranged reads of `io` (a file
/// of `size` bytes): `Ok(None)` when the chunk has none, else the filter and the bytes
/// fetched. A filter that cannot be read whole (truncated, a bad header, lengths that
/// disagree) is an error: the caller reads the row group instead.
pub fn read_column_chunk(
    meta: &ParquetMetaData,
    rg: usize,
    leaf: usize,
    io: &RangeReader,
    size: u64,
) -> Result<Option<(Sbbf, u64)>, String> {
    let chunk = meta.row_group(rg).column(leaf);
    let Some(offset) = chunk.bloom_filter_offset() else {
        return Ok(None);
    };
    let offset = u64::try_from(offset).map_err(|_| format!("bad offset {offset}"))?;
    let filter = match chunk.bloom_filter_length() {
        // The writer recorded the length: one ranged read, and the header must account for
        // every byte of it.
        Some(len) => {
            let len = u64::try_from(len).map_err(|_| format!("bad length {len}"))?;
            let bytes = ranged(io, size, offset, len)?;
            let f = Sbbf::from_bytes(&bytes).map_err(|e| e.to_string())?;
            (f, len)
        }
        // No length (older writers): the header first, then exactly the bitset it announces.
        None => {
            let reader = Ranged {
                io,
                size,
                fetched: Default::default(),
            };
            let f = Sbbf::read_from_column_chunk(chunk, &reader)
                .map_err(|e| e.to_string())?
                .ok_or("no filter")?;
            (f, reader.fetched.load(std::sync::atomic::Ordering::Relaxed))
        }
    };
    if filter.0.num_blocks() == 0 {
        return Err("an empty bitset".into());
    }
    Ok(Some(filter))
}

/// Fetch `len` bytes at `offset`, all of them within the file.
fn ranged(io: &RangeReader, size: u64, offset: u64, len: u64) -> Result<bytes::Bytes, String> {
    let end = offset
        .checked_add(len)
        .filter(|e| *e <= size)
        .ok_or_else(|| {
            format!("{len} bytes at {offset} run past the end of the file ({size} bytes)")
        })?;
    let mut got = io
        .fetch(std::slice::from_ref(&(offset..end)))
        .map_err(|e| e.to_string())?;
    let b = got.pop().unwrap_or_default();
    if b.len() as u64 != len {
        return Err(format!("short read: {} of {len} bytes", b.len()));
    }
    Ok(b)
}

/// A [`ChunkReader`] over ranged reads, for the parquet crate's own SBBF reader.
struct Ranged<'a> {
    io: &'a RangeReader,
    size: u64,
    fetched: std::sync::atomic::AtomicU64,
}

impl parquet::file::reader::Length for Ranged<'_> {
    fn len(&self) -> u64 {
        self.size
    }
}

impl ChunkReader for Ranged<'_> {
    type T = std::io::Cursor<bytes::Bytes>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        // Never to the end of a remote file: a bounded window is all a header needs.
        let len = (self.size.saturating_sub(start)).min(64);
        Ok(std::io::Cursor::new(self.get_bytes(start, len as usize)?))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        // Exactly these bytes or an error: a bitset cut short is never taken for a smaller
        // filter. (The header is read with a 20-byte guess of its size; the footer always
        // follows a filter, so the guess stays inside the file.)
        let b = ranged(self.io, self.size, start, length as u64).map_err(ParquetError::General)?;
        self.fetched
            .fetch_add(b.len() as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(b)
    }
}

/// The SBBFs of one column of a Parquet file, row group by row group (for `inspect` and
/// `probe` on `FILE.parquet --column C`).
pub struct ColumnFilters {
    /// The file.
    pub location: String,
    /// The column.
    pub column: String,
    /// Its physical type.
    pub physical: Type,
    /// Per row group asked for: its index, rows, and filter with its size in bytes (`None`
    /// when the chunk has none).
    pub groups: Vec<(usize, u64, Option<SizedSbbf>)>,
}

/// A filter and its size in the file, in bytes.
pub type SizedSbbf = (Sbbf, u64);

impl ColumnFilters {
    /// Read the SBBFs of `column` in `location` (row group `row_group`, or all). Errors: no
    /// such column or row group, a nested column, no filter in any row group asked for, a
    /// filter that cannot be read.
    pub fn read(location: &str, column: &str, row_group: Option<usize>) -> Result<Self> {
        let loc = crate::store::Location::parse(location)?;
        let file = crate::plan::InputFile::open(loc.clone())?;
        let meta = file.parquet();
        let schema = meta.file_metadata().schema_descr();
        let Some(leaf) = (0..schema.num_columns()).find(|i| {
            let c = schema.column(*i);
            c.path().string() == column
        }) else {
            let names: Vec<String> = (0..schema.num_columns())
                .map(|i| schema.column(i).path().string())
                .collect();
            return Err(Error::param(
                "--column",
                format!(
                    "{location} has no column {column:?} (it has: {})",
                    names.join(", ")
                ),
            ));
        };
        let groups: Vec<usize> = match row_group {
            Some(n) if n >= meta.num_row_groups() => {
                return Err(Error::param(
                    "--row-group",
                    format!(
                        "{location} has {} row groups (0 to {}), not {n}",
                        meta.num_row_groups(),
                        meta.num_row_groups().saturating_sub(1)
                    ),
                ))
            }
            Some(n) => vec![n],
            None => (0..meta.num_row_groups()).collect(),
        };
        let io = RangeReader::open(&loc)?;
        let mut out = Vec::with_capacity(groups.len());
        for rg in groups {
            let f = read_column_chunk(meta, rg, leaf, &io, file.size).map_err(|why| {
                Error::Input {
                    location: location.to_string(),
                    reason: format!(
                        "the Parquet Bloom filter of column {column:?} in row group {rg} cannot be read: {why}"
                    ),
                }
            })?;
            out.push((rg, file.row_group_rows(rg), f));
        }
        if out.iter().all(|g| g.2.is_none()) {
            return Err(Error::Usage(format!(
                "{location}: column {column:?} has no Parquet Bloom filter{}",
                row_group.map_or(String::new(), |n| format!(" in row group {n}"))
            )));
        }
        Ok(ColumnFilters {
            location: location.to_string(),
            column: column.to_string(),
            physical: schema.column(leaf).physical_type(),
            groups: out,
        })
    }

    /// The keys of one line of text for this column: an integer for INT32/INT64 columns, the
    /// UTF-8 bytes for byte-array columns.
    pub fn keys_of(&self, text: &str, at: &str) -> Result<ProbeKeys> {
        match self.physical {
            Type::INT32 | Type::INT64 => {
                let v: i128 = text.trim().parse().map_err(|_| {
                    Error::Usage(format!(
                        "{at}: {text:?} is not an integer (column {:?} is {})",
                        self.column, self.physical
                    ))
                })?;
                Ok(ProbeKeys::integers([v]))
            }
            Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY => {
                Ok(ProbeKeys::bytes([text.as_bytes().to_vec()]))
            }
            other => Err(Error::Usage(format!(
                "{}: column {:?} is {other}: probe takes INT32, INT64 and byte-array columns",
                self.location, self.column
            ))),
        }
    }

    /// Whether `keys` may be in the column: in some row group asked for (a row group without a
    /// filter may hold anything).
    pub fn maybe(&self, keys: &ProbeKeys) -> bool {
        self.groups.iter().any(|(_, _, f)| match f {
            Some((f, _)) => keys.any_maybe(f, self.physical) != Some(false),
            None => true,
        })
    }
}
