//! Parquet's split-block Bloom filters (SBBF): the per-column-chunk filters of the Parquet
//! format, written into our outputs and read from our inputs.
//!
//! The format (parquet-format `BloomFilter.md`) fixes everything: 256-bit blocks of eight
//! 32-bit words, k = 8 with the spec's salts, XXH64 with seed 0 of the value's *plain
//! encoding*. The encoding depends on the column's physical type: an INT32 column hashes 4
//! little-endian bytes, INT64 8, BYTE_ARRAY the bytes without the length prefix. Writing and
//! reading go through the parquet crate ([`parquet::bloom_filter::Sbbf`] and its writer
//! properties); this module only says which columns get one and how our keys are hashed.
//!
//! A trained filter can also have this layout ([`super::Layout::Sbbf`], `train --layout
//! sbbf`): the same bits as a column chunk's filter over the same values, so the two merge
//! and compare. It records the [`Physical`] type whose plain encoding it hashed. Its bits live
//! in a [`super::BloomFilter`] like every layout's, because the filter pipeline inserts and
//! probes batches of pre-hashed keys and ORs partials, and the parquet crate's `Sbbf` offers
//! neither (only `insert`/`check` of one value); [`block_index`] and [`bit_in_word`] are the
//! spec's two formulas, and tests check the bits against the `Sbbf` the parquet crate builds
//! and writes for the same values.

use parquet::basic::Type;
pub use parquet::bloom_filter::Sbbf;
use parquet::errors::ParquetError;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::properties::WriterPropertiesBuilder;
use parquet::file::reader::ChunkReader;
use parquet::schema::types::ColumnPath;

use crate::error::{Error, Result};
use crate::key::{KeyFamily, KeyHasher};
use crate::plan::RangeReader;

/// The spec's eight salts (parquet-format `BloomFilter.md`), one per 32-bit word of a block.
pub const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// Bits in one SBBF block (eight 32-bit words).
pub const SBBF_BLOCK_BITS: u64 = 256;

/// The largest SBBF, in bits: the parquet crate's (and Arrow C++'s) 128 MiB bitset limit.
pub const SBBF_MAX_BITS: u64 = parquet::bloom_filter::BITSET_MAX_LENGTH as u64 * 8;

/// The block of a hash in a filter of `num_blocks` blocks: `((h >> 32) * num_blocks) >> 32`.
#[inline(always)]
pub fn block_index(h: u64, num_blocks: u64) -> u64 {
    ((h >> 32) * num_blocks) >> 32
}

/// The bit (0..32) a hash sets in word `i` of its block: `(low32(h) * SALT[i]) >> 27`.
#[inline(always)]
pub fn bit_in_word(h: u64, i: usize) -> u32 {
    (h as u32).wrapping_mul(SALT[i]) >> 27
}

/// XXH64 with seed 0, the spec's hash.
#[inline(always)]
pub fn xxh64(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh64::xxh64(bytes, 0)
}

/// The size, in bytes, of an SBBF for `ndv` distinct values at false-positive rate `fpp`, as
/// the parquet crate sizes it (`Sbbf::new_with_ndv_fpp`): `m = -8 n / ln(1 - p^(1/8))` bits,
/// `m / 8` bytes rounded up to a power of two of at least 32. More than the 128 MiB limit is
/// an error naming `--expected-items/--fpp` (the crate would cap it silently).
pub fn num_bytes_for(ndv: u64, fpp: f64) -> Result<u64> {
    if !(fpp > 0.0 && fpp < 1.0) {
        return Err(Error::param(
            "--fpp",
            format!("{fpp} is not a probability strictly between 0 and 1"),
        ));
    }
    let bits = -8.0 * ndv as f64 / (1.0 - fpp.powf(1.0 / 8.0)).ln();
    let bytes = (bits / 8.0).floor();
    let max = parquet::bloom_filter::BITSET_MAX_LENGTH as u64;
    if !bytes.is_finite() || bytes > max as f64 {
        return Err(Error::param(
            "--expected-items/--fpp",
            format!(
                "{ndv} items at fpp {} need {}more than the 128 MiB that a Parquet SBBF may have",
                crate::bloom::show_fpp(fpp),
                if bytes.is_finite() && bytes > 0.0 {
                    format!("{bytes} bytes, ")
                } else {
                    String::new()
                }
            ),
        ));
    }
    Ok((bytes as u64)
        .max(parquet::bloom_filter::BITSET_MIN_LENGTH as u64)
        .next_power_of_two())
}

/// The Parquet physical type whose plain encoding an SBBF hashes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Physical {
    /// 4 little-endian bytes (`Int8`..`Int32`, `UInt8`..`UInt32`, `Date32`).
    #[serde(rename = "INT32")]
    Int32,
    /// 8 little-endian bytes (`Int64`, `UInt64`).
    #[serde(rename = "INT64")]
    Int64,
    /// The value's bytes, without the plain encoding's length prefix (strings, binary).
    #[serde(rename = "BYTE_ARRAY")]
    ByteArray,
    /// The value's bytes (`FixedSizeBinary`).
    #[serde(rename = "FIXED_LEN_BYTE_ARRAY")]
    FixedLenByteArray,
}

impl Physical {
    /// Every type, in code order.
    pub const ALL: [Physical; 4] = [
        Physical::Int32,
        Physical::Int64,
        Physical::ByteArray,
        Physical::FixedLenByteArray,
    ];

    /// The type's name in Parquet (`INT32`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Physical::Int32 => "INT32",
            Physical::Int64 => "INT64",
            Physical::ByteArray => "BYTE_ARRAY",
            Physical::FixedLenByteArray => "FIXED_LEN_BYTE_ARRAY",
        }
    }

    /// The type's value in parquet-format's `Type` enum, its code in our filter files.
    pub fn code(self) -> u32 {
        match self {
            Physical::Int32 => 1,
            Physical::Int64 => 2,
            Physical::ByteArray => 6,
            Physical::FixedLenByteArray => 7,
        }
    }

    /// The type of a code.
    pub fn from_code(code: u32) -> Option<Self> {
        Physical::ALL.into_iter().find(|p| p.code() == code)
    }

    /// The type of a Parquet column, `None` for the types our keys never are (BOOLEAN, INT96,
    /// FLOAT, DOUBLE).
    pub fn of(t: Type) -> Option<Self> {
        match t {
            Type::INT32 => Some(Physical::Int32),
            Type::INT64 => Some(Physical::Int64),
            Type::BYTE_ARRAY => Some(Physical::ByteArray),
            Type::FIXED_LEN_BYTE_ARRAY => Some(Physical::FixedLenByteArray),
            _ => None,
        }
    }

    /// The key family of the values.
    pub fn family(self) -> KeyFamily {
        match self {
            Physical::Int32 | Physical::Int64 => KeyFamily::Integer,
            Physical::ByteArray | Physical::FixedLenByteArray => KeyFamily::Bytes,
        }
    }
}

impl std::fmt::Display for Physical {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The key hasher of the SBBF layout: XXH64 (seed 0) of the key's plain encoding as a value
/// of the filter's physical type, integers by value. An integer key in `i32::MIN..=u32::MAX`
/// hashes as the 4 bytes an INT32 column stores for it (an unsigned 32-bit value as the bits
/// of the `i32` it wraps to), one in `i64::MIN..=u64::MAX` as the 8 bytes of an INT64 column.
/// A key the type cannot hold (2^40 against INT32, 1.5 against INT64) hashes its own wider
/// bytes: no value of the column has that hash's bytes, so it meets the filter only as a
/// false positive, which the join's exact comparison removes.
#[derive(Debug, Clone, Copy)]
pub struct SbbfHasher(pub Physical);

impl SbbfHasher {
    #[inline(always)]
    fn hash_value(&self, v: i128) -> u64 {
        let int32 = i128::from(i32::MIN)..=i128::from(u32::MAX);
        let int64 = i128::from(i64::MIN)..=i128::from(u64::MAX);
        match self.0 {
            Physical::Int32 if int32.contains(&v) => xxh64(&(v as u32).to_le_bytes()),
            _ if int64.contains(&v) => xxh64(&(v as u64).to_le_bytes()),
            _ => xxh64(&v.to_le_bytes()),
        }
    }
}

impl KeyHasher for SbbfHasher {
    #[inline(always)]
    fn hash_int(&self, v: i64) -> u64 {
        self.hash_value(v.into())
    }
    #[inline(always)]
    fn hash_wide(&self, v: u64) -> Option<u64> {
        Some(self.hash_value(v.into()))
    }
    #[inline(always)]
    fn hash_canonical(&self, bytes: &[u8]) -> Option<u64> {
        // A number beyond 64 bits or with a fraction: no INT32/INT64 value.
        Some(xxh64(bytes))
    }
    #[inline(always)]
    fn hash_bytes(&self, v: &[u8]) -> u64 {
        xxh64(v)
    }
    /// Never called: an sbbf filter holds integer or bytes keys (the family check refuses
    /// timestamp keys before hashing).
    #[inline(always)]
    fn hash_timestamp(&self, _ns: i128) -> Option<u64> {
        None
    }
}

/// The physical type an SBBF of key column `column` (top-level column `key_top`) of `file`
/// hashes; an error naming the file and column when the column has none that compares by
/// value with our keys: a decimal (the SBBF hashes the unscaled integer, 7.00 as 700), a
/// boolean, a `Date64` (stored in milliseconds, our key is the day), a nested column, or a
/// physical type our keys never have.
pub fn physical_of(
    file: &crate::plan::InputFile,
    key_top: usize,
    column: &str,
) -> Result<Physical> {
    let schema = file.parquet().file_metadata().schema_descr();
    let leaves = (0..schema.num_columns())
        .filter(|i| schema.get_column_root_idx(*i) == key_top)
        .map(|i| schema.column(i).physical_type());
    physical_of_leaves(
        file.schema().field(key_top).data_type(),
        leaves,
        &file.location.to_string(),
        column,
    )
}

/// The physical type an SBBF of an in-memory key array of type `dt` hashes: the one a Parquet
/// writer stores it as (`parquet`'s Arrow schema conversion), so that the filter is the one
/// `train --layout sbbf` builds over a file of the same keys. Errors as [`physical_of`]'s,
/// naming `what` (the array) instead of a file.
pub fn physical_of_arrow(
    dt: &arrow::datatypes::DataType,
    what: &str,
    column: &str,
) -> Result<Physical> {
    let field = arrow::datatypes::Field::new(column, dt.clone(), true);
    let descr = parquet::arrow::ArrowSchemaConverter::new()
        .convert(&arrow::datatypes::Schema::new(vec![field]))
        .map_err(|e| Error::Column {
            file: what.to_string(),
            column: column.to_string(),
            reason: format!("type {dt} has no Parquet type: {e}"),
        })?;
    let leaves = descr.columns().iter().map(|c| c.physical_type());
    physical_of_leaves(dt, leaves, what, column)
}

/// The physical type of a key column of Arrow type `dt` whose Parquet leaves have `leaves`
/// physical types (one, unless nested): see [`physical_of`].
fn physical_of_leaves(
    dt: &arrow::datatypes::DataType,
    mut leaves: impl Iterator<Item = parquet::basic::Type>,
    file: &str,
    column: &str,
) -> Result<Physical> {
    let bad = |reason: String| Error::Column {
        file: file.to_string(),
        column: column.to_string(),
        reason,
    };
    let value_type = match dt {
        arrow::datatypes::DataType::Dictionary(_, v) => v.as_ref(),
        t => t,
    };
    use arrow::datatypes::DataType as D;
    if matches!(
        value_type,
        D::Decimal32(..)
            | D::Decimal64(..)
            | D::Decimal128(..)
            | D::Decimal256(..)
            | D::Boolean
            | D::Date64
    ) {
        return Err(bad(format!(
            "type {dt} cannot be an sbbf key: Parquet's filter hashes its stored form (a decimal's unscaled integer, a Date64's milliseconds), not the key by value; use another --layout"
        )));
    }
    let (Some(t), None) = (leaves.next(), leaves.next()) else {
        return Err(bad("a nested column has no SBBF of its own".into()));
    };
    Physical::of(t).ok_or_else(|| {
        bad(format!(
            "physical type {t} is none of INT32, INT64, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY"
        ))
    })
}

/// The default false-positive rate of the filters we write (`--bloom-fpp`).
pub const DEFAULT_FPP: f64 = 0.01;

/// Which columns of a Parquet file we write get an SBBF per row group, and at what rate.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WriteBlooms {
    /// Top-level column names (primitive columns).
    pub columns: Vec<String>,
    /// Target false-positive rate of each filter.
    pub fpp: f64,
    /// Columns known to hold at most this many distinct values (a join's output columns
    /// that come from a left side of that many rows). Their filters start at that size
    /// rather than at the row group's row count: a small filter takes its inserts in cache.
    pub max_distinct: Vec<(String, u64)>,
}

impl WriteBlooms {
    /// No filters.
    pub fn none() -> Self {
        WriteBlooms {
            columns: Vec::new(),
            fpp: DEFAULT_FPP,
            max_distinct: Vec::new(),
        }
    }

    /// The same filters for a file of at most `rows` rows: every column holds at most that
    /// many distinct values. (A filter starts at the row group's row count otherwise, a
    /// million rows: allocating, zeroing and folding that for a part of a few thousand rows
    /// cost more than writing the rows.)
    pub fn at_most(&self, rows: u64) -> WriteBlooms {
        let mut w = self.clone();
        w.max_distinct = self
            .columns
            .iter()
            .map(|c| {
                let known = self.max_distinct.iter().find(|(name, _)| name == c);
                (c.clone(), known.map_or(rows, |(_, n)| (*n).min(rows)))
            })
            .collect();
        w
    }

    /// Turn the filters on in a writer's properties. The parquet crate sizes each filter for
    /// the row group's largest row count (or the column's `max_distinct`, when smaller),
    /// inserts the chunk's values and then folds it down to the smallest size that still
    /// meets `fpp` for the values actually written.
    pub fn apply(&self, mut b: WriterPropertiesBuilder) -> WriterPropertiesBuilder {
        for c in &self.columns {
            let path = ColumnPath::from(c.as_str());
            b = b
                .set_column_bloom_filter_enabled(path.clone(), true)
                .set_column_bloom_filter_fpp(path.clone(), self.fpp);
            if let Some((_, n)) = self.max_distinct.iter().find(|(name, _)| name == c) {
                let n = (*n).clamp(1, parquet::file::properties::DEFAULT_BLOOM_FILTER_NDV);
                b = b.set_column_bloom_filter_max_ndv(path, n);
            }
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
    fn a_row_bound_caps_every_filter_column() {
        let w = WriteBlooms {
            columns: vec!["a".into(), "b".into()],
            fpp: 0.02,
            max_distinct: vec![("a".into(), 10), ("x".into(), 3)],
        };
        let capped = w.at_most(100);
        assert_eq!(capped.columns, w.columns);
        assert_eq!(capped.fpp, 0.02);
        assert_eq!(
            capped.max_distinct,
            [("a".to_string(), 10), ("b".to_string(), 100)]
        );
        assert_eq!(
            w.at_most(5).max_distinct,
            [("a".to_string(), 5), ("b".to_string(), 5)]
        );
        assert_eq!(WriteBlooms::none().at_most(7), WriteBlooms::none());
    }

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

    use crate::bloom::{BloomFilter, BloomParams, Layout};
    use arrow::array::{
        Array, Date32Array, FixedSizeBinaryArray, Int16Array, Int32Array, Int64Array, StringArray,
        UInt32Array, UInt64Array,
    };

    /// Our sizing is the parquet crate's (`Sbbf::new_with_ndv_fpp`), byte for byte.
    #[test]
    fn sizing_is_the_parquet_crates() {
        for ndv in [
            1u64, 2, 7, 100, 999, 1000, 4096, 65_536, 1_000_000, 20_000_000,
        ] {
            for fpp in [0.5, 0.1, 0.05, 0.01, 0.001, 0.0001] {
                let theirs = Sbbf::new_with_ndv_fpp(ndv, fpp).unwrap().num_blocks() as u64 * 32;
                assert_eq!(num_bytes_for(ndv, fpp).unwrap(), theirs, "{ndv} at {fpp}");
                let p = BloomParams::for_items(Layout::Sbbf, ndv, fpp, 0).unwrap();
                assert_eq!(p.num_bits, theirs * 8);
                assert_eq!(p.num_hashes, 8);
            }
        }
        let e = num_bytes_for(1 << 40, 0.01).unwrap_err().to_string();
        assert!(
            e.contains("--expected-items/--fpp") && e.contains("128 MiB"),
            "{e}"
        );
        for (m, k, seed, what) in [
            (1000, 8, 0, "--bits"),
            (128, 8, 0, "--bits"),
            (1024, 7, 0, "--hashes"),
            (1024, 8, 3, "--seed"),
        ] {
            let e = BloomParams::explicit(Layout::Sbbf, m, k, seed).unwrap_err();
            assert!(e.to_string().contains(what), "{e}");
        }
    }

    /// The bits of an sbbf-layout filter over an Arrow key array: each physical type.
    fn ours(physical: Physical, bytes: usize, keys: &dyn Array) -> BloomFilter {
        let params = BloomParams::explicit(Layout::Sbbf, bytes as u64 * 8, 8, 0)
            .unwrap()
            .with_physical(physical);
        let mut f = BloomFilter::try_new(params, physical.family()).unwrap();
        f.insert_array(keys).unwrap();
        f
    }

    fn bitset(f: &Sbbf) -> Vec<u8> {
        let mut out = Vec::new();
        f.write_bitset(&mut out).unwrap();
        out
    }

    /// Golden: the bits are those of the parquet crate's `Sbbf` with the same values
    /// inserted (as the Parquet writer inserts them: the value's native type), for every
    /// physical type and Arrow key type, and `to_sbbf`/`from_sbbf` keep them.
    #[test]
    fn bits_equal_the_parquet_crates_sbbf() {
        for bytes in [32usize, 64, 1024, 8192] {
            let i32s: Vec<i32> = (-300..300).map(|i| i * 7919).collect();
            let mut theirs = Sbbf::new_with_num_of_bytes(bytes);
            i32s.iter().for_each(|v| theirs.insert(v));
            let f = ours(Physical::Int32, bytes, &Int32Array::from(i32s.clone()));
            assert_eq!(f.to_sbbf().map(|s| bitset(&s)), Some(bitset(&theirs)));
            // Int16 and Int64 keys of the same values, by value: the same bits.
            let i16s: Vec<i16> = (-300..300).map(|i| (i * 97) as i16).collect();
            let mut t16 = Sbbf::new_with_num_of_bytes(bytes);
            i16s.iter().for_each(|v| t16.insert(&(*v as i32)));
            let f16 = ours(Physical::Int32, bytes, &Int16Array::from(i16s));
            assert_eq!(bitset(&f16.to_sbbf().unwrap()), bitset(&t16));
            let as64 = Int64Array::from(i32s.iter().map(|v| *v as i64).collect::<Vec<_>>());
            assert_eq!(
                ours(Physical::Int32, bytes, &as64).word_slice(),
                f.word_slice()
            );
            // UInt32 is stored as the bits of the i32 it wraps to.
            let u32s: Vec<u32> = (0..500).map(|i| u32::MAX - i * 104_729).collect();
            let mut tu = Sbbf::new_with_num_of_bytes(bytes);
            u32s.iter().for_each(|v| tu.insert(&(*v as i32)));
            let fu = ours(Physical::Int32, bytes, &UInt32Array::from(u32s));
            assert_eq!(bitset(&fu.to_sbbf().unwrap()), bitset(&tu));
            // Date32: the day number.
            let days: Vec<i32> = (0..400).map(|i| 18_000 + i * 3).collect();
            let mut td = Sbbf::new_with_num_of_bytes(bytes);
            days.iter().for_each(|v| td.insert(v));
            let fd = ours(Physical::Int32, bytes, &Date32Array::from(days));
            assert_eq!(bitset(&fd.to_sbbf().unwrap()), bitset(&td));
            // INT64 and UInt64 (as the bits of the i64 it wraps to).
            let i64s: Vec<i64> = (-300..300).map(|i| i * 1_000_000_007_i64).collect();
            let mut t64 = Sbbf::new_with_num_of_bytes(bytes);
            i64s.iter().for_each(|v| t64.insert(v));
            let f64_ = ours(Physical::Int64, bytes, &Int64Array::from(i64s));
            assert_eq!(bitset(&f64_.to_sbbf().unwrap()), bitset(&t64));
            let u64s: Vec<u64> = (0..500).map(|i| u64::MAX - i * 3_000_000_019).collect();
            let mut tu64 = Sbbf::new_with_num_of_bytes(bytes);
            u64s.iter().for_each(|v| tu64.insert(&(*v as i64)));
            let fu64 = ours(Physical::Int64, bytes, &UInt64Array::from(u64s));
            assert_eq!(bitset(&fu64.to_sbbf().unwrap()), bitset(&tu64));
            // BYTE_ARRAY: the bytes, no length prefix; FIXED_LEN_BYTE_ARRAY likewise.
            let strs: Vec<String> = (0..500).map(|i| format!("key-{i}")).collect();
            let mut ts = Sbbf::new_with_num_of_bytes(bytes);
            strs.iter().for_each(|v| ts.insert(v.as_str()));
            let fs = ours(Physical::ByteArray, bytes, &StringArray::from(strs.clone()));
            assert_eq!(bitset(&fs.to_sbbf().unwrap()), bitset(&ts));
            let fixed: Vec<[u8; 4]> = (0..300u32).map(|i| (i * 7).to_be_bytes()).collect();
            let mut tf = Sbbf::new_with_num_of_bytes(bytes);
            fixed.iter().for_each(|v| tf.insert(&v[..]));
            let ff = ours(
                Physical::FixedLenByteArray,
                bytes,
                &FixedSizeBinaryArray::try_from_iter(fixed.iter()).unwrap(),
            );
            assert_eq!(bitset(&ff.to_sbbf().unwrap()), bitset(&tf));
            // Round trip through the crate's type.
            let back = BloomFilter::from_sbbf(&theirs, Physical::Int32, 600).unwrap();
            assert_eq!(back.word_slice(), f.word_slice());
            assert_eq!(back.params(), f.params());
            // Our probes answer as the crate's check does.
            for v in -5000..5000i32 {
                assert_eq!(f.contains_i64(v.into()), theirs.check(&v), "{v}");
            }
            for s in ["key-1", "key-499", "key-500", "nope", ""] {
                assert_eq!(fs.contains_bytes(s.as_bytes()), ts.check(s), "{s}");
            }
        }
    }

    /// Folding an SBBF to a smaller power of two gives exactly the bits of the parquet
    /// crate's `Sbbf` of that size with the same values inserted (what `merge` relies on to
    /// OR column chunks that writers sized differently); sizes that are not smaller, not a
    /// power of two or below one block are refused.
    #[test]
    fn folding_equals_the_crates_sbbf_at_the_smaller_size() {
        let keys: Vec<i64> = (0..3000).map(|i| i * 1_000_003 - 77).collect();
        let big = ours(Physical::Int64, 16_384, &Int64Array::from(keys.clone()));
        for bytes in [16_384usize, 8192, 1024, 64, 32] {
            let mut theirs = Sbbf::new_with_num_of_bytes(bytes);
            keys.iter().for_each(|v| theirs.insert(v));
            let folded = big.fold_sbbf_to(bytes as u64 * 8).unwrap();
            assert_eq!(
                bitset(&folded.to_sbbf().unwrap()),
                bitset(&theirs),
                "{bytes}"
            );
            assert_eq!(folded.params().physical, Some(Physical::Int64));
            assert!(keys.iter().all(|k| folded.contains_i64(*k)));
        }
        for bits in [16_384 * 8 * 2, 3000 * 8, 128] {
            assert!(big.fold_sbbf_to(bits).is_err(), "{bits}");
        }
    }

    /// Keys a physical type cannot hold hash their own wider bytes: an INT32 filter never
    /// holds them unless by a false positive; in range they hash as the column's bytes.
    #[test]
    fn sbbf_hasher_encodes_by_physical_type() {
        let h32 = SbbfHasher(Physical::Int32);
        let h64 = SbbfHasher(Physical::Int64);
        assert_eq!(h32.hash_int(-5), xxh64(&(-5i32).to_le_bytes()));
        assert_eq!(
            h32.hash_int(4_000_000_000),
            xxh64(&(4_000_000_000u32).to_le_bytes())
        );
        assert_eq!(h32.hash_int(1 << 40), xxh64(&(1i64 << 40).to_le_bytes()));
        assert_eq!(h64.hash_int(-1), xxh64(&(-1i64).to_le_bytes()));
        assert_eq!(
            h64.hash_wide(u64::MAX),
            Some(xxh64(&u64::MAX.to_le_bytes()))
        );
        assert_eq!(
            h32.hash_wide(u64::MAX),
            Some(xxh64(&u64::MAX.to_le_bytes()))
        );
        assert_eq!(
            SbbfHasher(Physical::ByteArray).hash_bytes(b"abc"),
            xxh64(b"abc")
        );
        // The spec's XXH64 (seed 0) of the empty input.
        assert_eq!(xxh64(b""), 0xef46_db37_51d8_e999);
        for t in Physical::ALL {
            assert_eq!(Physical::from_code(t.code()), Some(t));
            assert_eq!(
                Physical::of(match t {
                    Physical::Int32 => Type::INT32,
                    Physical::Int64 => Type::INT64,
                    Physical::ByteArray => Type::BYTE_ARRAY,
                    Physical::FixedLenByteArray => Type::FIXED_LEN_BYTE_ARRAY,
                }),
                Some(t)
            );
        }
        assert_eq!(Physical::of(Type::DOUBLE), None);
    }

    /// Partials OR-merge only with the same size and physical type; the file format keeps
    /// the physical type and refuses an unknown code.
    #[test]
    fn union_and_codec_keep_the_physical_type() {
        let a = ours(Physical::Int32, 64, &Int32Array::from(vec![1, 2, 3]));
        let b = ours(Physical::Int32, 64, &Int32Array::from(vec![4, 5]));
        let mut m = a.clone();
        m.union(&b, "b").unwrap();
        for v in 1..=5 {
            assert!(m.contains_i64(v));
        }
        let c = ours(Physical::Int64, 64, &Int64Array::from(vec![4, 5]));
        let e = a.clone().union(&c, "c.bjf").unwrap_err().to_string();
        assert!(
            e.contains("c.bjf") && e.contains("physical type") && e.contains("INT64"),
            "{e}"
        );
        let d = ours(Physical::Int32, 128, &Int32Array::from(vec![4, 5]));
        let e = a.clone().union(&d, "d.bjf").unwrap_err().to_string();
        assert!(e.contains("num_bits"), "{e}");
        let bytes = crate::bloom::codec::encode(&m, &Default::default());
        assert_eq!(&bytes[44..48], &1u32.to_le_bytes());
        let (back, _) = crate::bloom::codec::decode(&bytes, "m.bjf").unwrap();
        assert_eq!(back, m);
        assert_eq!(crate::bloom::codec::version_for(&m), 2);
        let s = ours(Physical::ByteArray, 32, &StringArray::from(vec!["x"]));
        let sb = crate::bloom::codec::encode(&s, &Default::default());
        assert_eq!(crate::bloom::codec::decode(&sb, "s").unwrap().0, s);
        // A wrong physical code (the checksum recomputed, so only the code is wrong).
        let mut bad = bytes.clone();
        bad[44] = 3;
        let n = bad.len() - 8;
        let sum = xxhash_rust::xxh3::xxh3_64(&bad[..n]);
        bad[n..].copy_from_slice(&sum.to_le_bytes());
        let e = crate::bloom::codec::decode(&bad, "bad.bjf")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("bad.bjf") && e.contains("physical type code 3"),
            "{e}"
        );
        // INT32 values with the bytes family: refused.
        bad[44] = 6;
        let sum = xxhash_rust::xxh3::xxh3_64(&bad[..n]);
        bad[n..].copy_from_slice(&sum.to_le_bytes());
        assert!(crate::bloom::codec::decode(&bad, "bad.bjf").is_err());
        // No physical type: no filter.
        let unbound = BloomParams::explicit(Layout::Sbbf, 256, 8, 0).unwrap();
        assert!(BloomFilter::try_new(unbound, KeyFamily::Integer).is_err());
        assert!(BloomFilter::try_new(
            unbound.with_physical(Physical::ByteArray),
            KeyFamily::Integer
        )
        .is_err());
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

/// [`read_column_chunk`] for column chunk `leaf` of each row group of `rgs`, in order, with
/// the filters whose length the footer records fetched in one call to `io`: over an object
/// store, filters stored together (writers put them after the row groups) come in one ranged
/// GET instead of one GET per row group. A batch that cannot be fetched falls back to one
/// read per row group, whose errors say why.
pub fn read_column_chunks(
    meta: &ParquetMetaData,
    rgs: &[usize],
    leaf: usize,
    io: &RangeReader,
    size: u64,
) -> Vec<Result<Option<SizedSbbf>, String>> {
    let mut batched = Vec::new();
    for (i, rg) in rgs.iter().enumerate() {
        let chunk = meta.row_group(*rg).column(leaf);
        let (Some(offset), Some(len)) = (chunk.bloom_filter_offset(), chunk.bloom_filter_length())
        else {
            continue;
        };
        let (Ok(offset), Ok(len)) = (u64::try_from(offset), u64::try_from(len)) else {
            continue;
        };
        if let Some(end) = offset.checked_add(len).filter(|e| *e <= size) {
            batched.push((i, offset..end));
        }
    }
    let mut out: Vec<Option<Result<Option<SizedSbbf>, String>>> =
        (0..rgs.len()).map(|_| None).collect();
    if batched.len() > 1 {
        let ranges: Vec<_> = batched.iter().map(|(_, r)| r.clone()).collect();
        if let Ok(got) = io.fetch(&ranges) {
            for ((i, r), bytes) in batched.iter().zip(got) {
                let len = r.end - r.start;
                out[*i] = Some(if bytes.len() as u64 != len {
                    Err(format!("short read: {} of {len} bytes", bytes.len()))
                } else {
                    match Sbbf::from_bytes(&bytes) {
                        Ok(f) if f.num_blocks() == 0 => Err("an empty bitset".into()),
                        Ok(f) => Ok(Some((f, len))),
                        Err(e) => Err(e.to_string()),
                    }
                });
            }
        }
    }
    rgs.iter()
        .zip(out)
        .map(|(rg, got)| got.unwrap_or_else(|| read_column_chunk(meta, *rg, leaf, io, size)))
        .collect()
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
    /// Its logical type, if the file gives one (a decimal's keys are its unscaled values).
    pub logical: Option<parquet::basic::LogicalType>,
    /// Its byte length, for FIXED_LEN_BYTE_ARRAY.
    pub type_length: i32,
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
        let c = schema.column(leaf);
        Ok(ColumnFilters {
            location: location.to_string(),
            column: column.to_string(),
            physical: c.physical_type(),
            logical: c.logical_type_ref().cloned(),
            type_length: c.type_length(),
            groups: out,
        })
    }

    /// The keys of one line of text for this column: an integer for INT32/INT64 columns, the
    /// UTF-8 bytes for byte-array columns; for a DECIMAL column the value's unscaled integer
    /// as the column stores it (INT32, INT64, or big-endian bytes of the fixed length), and
    /// for a UUID column its 16 bytes. Other logical types of fixed-length bytes (FLOAT16,
    /// INTERVAL) and decimals in variable-length bytes (whose length the writer chose) are
    /// refused: their stored bytes cannot be formed from text, and a wrong form would answer
    /// "no" for a value that is there.
    pub fn keys_of(&self, text: &str, at: &str) -> Result<ProbeKeys> {
        use parquet::basic::LogicalType;
        let what = || format!("column {:?} is {}", self.column, self.type_name());
        if let Some(LogicalType::Decimal(parquet::basic::DecimalType { scale, precision })) =
            &self.logical
        {
            let v = arrow::compute::kernels::cast_utils::parse_decimal::<
                arrow::datatypes::Decimal256Type,
            >(text.trim(), (*precision).clamp(1, 76) as u8, *scale as i8)
            .map_err(|_| {
                Error::Usage(format!(
                    "{at}: {text:?} is not a number that {} holds",
                    what()
                ))
            })?;
            return match self.physical {
                // A value beyond i128 is beyond any INT32 or INT64 column: in none of them.
                Type::INT32 | Type::INT64 => Ok(ProbeKeys::integers(v.to_i128())),
                Type::FIXED_LEN_BYTE_ARRAY => {
                    // Big-endian two's complement of the column's length: the low bytes of
                    // the 32-byte form, sign-extended if the column's length is longer.
                    let len = usize::try_from(self.type_length).unwrap_or(0);
                    let sign = if v.is_negative() { 0xFF } else { 0 };
                    let mut bytes = vec![sign; len.saturating_sub(32)];
                    bytes.extend_from_slice(&v.to_be_bytes()[32 - len.min(32)..]);
                    Ok(ProbeKeys::bytes([bytes]))
                }
                _ => Err(Error::Usage(format!(
                    "{}: {}: probe cannot form the bytes a writer stored for a decimal of variable length",
                    self.location,
                    what()
                ))),
            };
        }
        match (self.physical, &self.logical) {
            (Type::INT32 | Type::INT64, _) => {
                let v: i128 = text.trim().parse().map_err(|_| {
                    Error::Usage(format!("{at}: {text:?} is not an integer ({})", what()))
                })?;
                Ok(ProbeKeys::integers([v]))
            }
            (Type::FIXED_LEN_BYTE_ARRAY, Some(LogicalType::Uuid)) => {
                let hex: String = text.trim().chars().filter(|c| *c != '-').collect();
                let bytes = (hex.len() == 32 && hex.is_ascii())
                    .then(|| {
                        (0..16)
                            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
                            .collect::<Option<Vec<u8>>>()
                    })
                    .flatten()
                    .ok_or_else(|| {
                        Error::Usage(format!("{at}: {text:?} is not a UUID ({})", what()))
                    })?;
                Ok(ProbeKeys::bytes([bytes]))
            }
            (Type::FIXED_LEN_BYTE_ARRAY, Some(_)) => Err(Error::Usage(format!(
                "{}: {}: probe takes integers, decimals, UUIDs, strings and plain bytes",
                self.location,
                what()
            ))),
            (Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY, _) => {
                Ok(ProbeKeys::bytes([text.as_bytes().to_vec()]))
            }
            (other, _) => Err(Error::Usage(format!(
                "{}: column {:?} is {other}: probe takes INT32, INT64 and byte-array columns",
                self.location, self.column
            ))),
        }
    }

    /// The column's type as messages name it: the physical type, and the logical one.
    fn type_name(&self) -> String {
        match &self.logical {
            Some(l) => format!("{} ({l:?})", self.physical),
            None => self.physical.to_string(),
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
