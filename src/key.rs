//! Canonical join keys and their seeded 64-bit hashes.
//!
//! A key column is mapped to one of two families. The **integer** family holds every Arrow
//! integer type and `Date32` (its day number); integers meet **by value**, as in SQL, whatever
//! their width and signedness: an `Int32` key on one side meets an `Int64` key on the other,
//! and `UInt64` 2^64-1 never meets `Int64` -1. The **bytes** family holds `Utf8`, `LargeUtf8`,
//! `Utf8View`, `Binary`, `LargeBinary`, `BinaryView`, `FixedSizeBinary` and dictionaries of
//! any of these; a key is its raw bytes (UTF-8 for strings).
//!
//! Canonical integer form: a value that fits `i64` is its 8 little-endian `i64` bytes; a
//! larger one (only `UInt64` values of 2^63 and more) is the 16 little-endian bytes of the
//! value as `i128` (a *wide* key). Hashes are xxh3-64 with an explicit seed over the canonical
//! form (a bytes key hashes its bytes). The same hash drives the filter and (with another
//! seed) the shuffle, so it must never change: golden vectors in the tests pin it.
//!
//! ```
//! use arrow::array::{Int32Array, Int64Array};
//! use bloomjoin::key::{hash_array, KeyFamily};
//! let a = hash_array(&Int32Array::from(vec![7]), 0).unwrap();
//! let b = hash_array(&Int64Array::from(vec![7]), 0).unwrap();
//! assert_eq!(a.family, KeyFamily::Integer);
//! assert_eq!(a.hashes, b.hashes);
//! ```

use std::fmt;
use std::str::FromStr;

use arrow::array::LargeBinaryArray;
use arrow::array::{
    Array, ArrayRef, AsArray, BinaryViewArray, DictionaryArray, GenericByteArray, PrimitiveArray,
    StringViewArray,
};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{
    i256, ArrowDictionaryKeyType, ArrowPrimitiveType, ByteArrayType, DataType, Date32Type,
    Date64Type, Decimal128Type, Decimal256Type, Decimal32Type, Decimal64Type, DecimalType,
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::error::{Error, Result};

pub(crate) mod tuple;
pub use tuple::{
    hash_canon_tuple, hash_null_rows, hash_pair, hash_text_tuple, hash_tuple_into,
    leading_key_columns, tuple_nulls, with_text_canon, Canon, TupleKeys,
};

/// The family a key column belongs to; filters and joins refuse to mix families.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyFamily {
    /// Integers of any width and `Date32`, widened to `i64`.
    Integer,
    /// Strings and binary, as their bytes.
    Bytes,
    /// Timestamps without a time zone (wall-clock times), of any unit, as nanoseconds since
    /// the epoch.
    Timestamp,
    /// Timestamps with a time zone (instants, stored as UTC), of any unit and any zone, as
    /// nanoseconds since the epoch.
    TimestampTz,
    /// Unknown: a filter read from Spark's format, which does not record what was inserted.
    /// Only Spark-layout filters have it; they accept keys of either family (integers hash as
    /// Spark's longs, bytes as Spark's binary/strings), so the caller's key column decides.
    /// No key column has this family.
    Any,
    /// A composite key (`--column a,b`): a tuple of keys hashed in one pass (see
    /// [`hash_tuple_into`]); the filter's metadata records each component's column and
    /// family. No key column has this family.
    Tuple,
    /// Times of day (`Time32`, `Time64`), of any unit, as nanoseconds since midnight.
    Time,
}

impl KeyFamily {
    /// The family of a key whose columns have `families` (key order): the one column's, or
    /// [`KeyFamily::Tuple`] for a composite key.
    pub fn of_key(families: &[KeyFamily]) -> KeyFamily {
        match families {
            [one] => *one,
            _ => KeyFamily::Tuple,
        }
    }

    /// The family's code in the native filter format.
    pub fn code(self) -> u8 {
        match self {
            KeyFamily::Integer => 1,
            KeyFamily::Bytes => 2,
            KeyFamily::Any => 3,
            KeyFamily::Timestamp => 4,
            KeyFamily::TimestampTz => 5,
            KeyFamily::Tuple => 6,
            KeyFamily::Time => 7,
        }
    }

    /// The family for a format code.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(KeyFamily::Integer),
            2 => Some(KeyFamily::Bytes),
            3 => Some(KeyFamily::Any),
            4 => Some(KeyFamily::Timestamp),
            5 => Some(KeyFamily::TimestampTz),
            6 => Some(KeyFamily::Tuple),
            7 => Some(KeyFamily::Time),
            _ => None,
        }
    }

    /// The family of an Arrow type, or `None` when the type cannot be a key.
    pub fn of(data_type: &DataType) -> Option<Self> {
        match data_type {
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
            | DataType::Date32
            | DataType::Date64
            | DataType::Boolean
            | DataType::Decimal32(_, _)
            | DataType::Decimal64(_, _)
            | DataType::Decimal128(_, _)
            | DataType::Decimal256(_, _) => Some(KeyFamily::Integer),
            DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::FixedSizeBinary(_) => Some(KeyFamily::Bytes),
            DataType::Timestamp(_, None) => Some(KeyFamily::Timestamp),
            DataType::Timestamp(_, Some(_)) => Some(KeyFamily::TimestampTz),
            DataType::Time32(_) | DataType::Time64(_) => Some(KeyFamily::Time),
            DataType::Dictionary(k, v) if k.is_dictionary_key_type() => KeyFamily::of(v),
            _ => None,
        }
    }

    /// Check that a column of `data_type` can be a key; the error names file and column.
    pub fn check(data_type: &DataType, file: &str, column: &str) -> Result<Self> {
        KeyFamily::of(data_type).ok_or_else(|| Error::Column {
            file: file.to_string(),
            column: column.to_string(),
            reason: if data_type.is_floating() {
                format!(
                    "type {data_type} cannot be a key: floats have no equality that SQL engines agree on (-0.0, NaN, rounding); cast the column to a decimal or an integer first (CAST({column} AS DECIMAL(38, s)))"
                )
            } else {
                format!(
                    "type {data_type} cannot be a key (integers, decimals, dates, times, timestamps, strings and binary can)"
                )
            },
        })
    }
}

impl fmt::Display for KeyFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyFamily::Integer => "integer",
            KeyFamily::Bytes => "bytes",
            KeyFamily::Any => "any",
            KeyFamily::Timestamp => "timestamp",
            KeyFamily::TimestampTz => "timestamptz",
            KeyFamily::Tuple => "tuple",
            KeyFamily::Time => "time",
        })
    }
}

impl FromStr for KeyFamily {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "integer" => Ok(KeyFamily::Integer),
            "bytes" => Ok(KeyFamily::Bytes),
            "any" => Ok(KeyFamily::Any),
            "timestamp" => Ok(KeyFamily::Timestamp),
            "timestamptz" => Ok(KeyFamily::TimestampTz),
            "time" => Ok(KeyFamily::Time),
            other => Err(Error::param(
                "key family",
                format!("{other:?} (expected integer, bytes, timestamp, timestamptz, time or any)"),
            )),
        }
    }
}

/// How keys turn into 64-bit hashes: one function per family. [`hash_array_with`] walks any
/// key array with a hasher; [`Xxh3`] is the native one, the Spark layouts have their own.
pub trait KeyHasher {
    /// Hash of one integer key (widened to `i64`).
    fn hash_int(&self, v: i64) -> u64;
    /// Hash of one wide integer key: a `UInt64` value above `i64::MAX`. `None` when the
    /// hasher's keys cannot hold it (Spark's longs).
    fn hash_wide(&self, v: u64) -> Option<u64>;
    /// Hash of one number in another canonical form (16 bytes that are no `UInt64` value,
    /// 32 or 33 bytes: see [`canonical_number`]). `None` when the hasher cannot hold it.
    fn hash_canonical(&self, bytes: &[u8]) -> Option<u64>;
    /// Hash of one bytes key.
    fn hash_bytes(&self, v: &[u8]) -> u64;
    /// Hash of one timestamp key, given as nanoseconds since the epoch (see
    /// [`canonical_timestamp`]). `None` when the hasher cannot hold it (Spark's longs hold
    /// whole microseconds).
    fn hash_timestamp(&self, ns: i128) -> Option<u64>;
    /// Append the hashes of timestamp keys given as raw values of `unit` nanoseconds each
    /// to `out`; false (with some hashes appended) when one of them cannot be held.
    fn hash_timestamps(&self, values: &[i64], unit: i64, out: &mut Vec<u64>) -> bool {
        for &v in values {
            match self.hash_timestamp(v as i128 * unit as i128) {
                Some(x) => out.push(x),
                None => return false,
            }
        }
        true
    }
    /// Append the hashes of integer keys to `out`.
    fn hash_ints<T: WidenToI64>(&self, values: &[T], out: &mut Vec<u64>) {
        out.extend(values.iter().map(|&v| self.hash_int(v.widen())));
    }
}

/// The canonical form of a timestamp key: its value in nanoseconds since the epoch (the
/// instant for a zoned timestamp, the wall-clock time read as UTC for one without a zone),
/// as the 8 little-endian bytes of an `i64` when it fits (1677-09-21 to 2262-04-11), else the
/// 16 little-endian bytes of the `i128`; returns the length. `ts[s]`, `ts[ms]`, `ts[us]` and
/// `ts[ns]` of one instant have one form.
pub fn canonical_timestamp(ns: i128, buf: &mut [u8; 16]) -> usize {
    match i64::try_from(ns) {
        Ok(v) => {
            buf[..8].copy_from_slice(&v.to_le_bytes());
            8
        }
        Err(_) => {
            buf.copy_from_slice(&ns.to_le_bytes());
            16
        }
    }
}

/// Hash of one timestamp key (nanoseconds since the epoch) with XXH3-64 and `seed`: of its
/// canonical form ([`canonical_timestamp`]), so a timestamp that fits `i64` nanoseconds hashes
/// as [`hash_i64`] of them (a timestamp key never meets an integer key: the families differ).
#[inline]
pub fn hash_timestamp(ns: i128, seed: u64) -> u64 {
    match i64::try_from(ns) {
        Ok(v) => hash_i64(v, seed),
        Err(_) => hash_bytes(&ns.to_le_bytes(), seed),
    }
}

/// Nanoseconds per unit of a timestamp column.
pub fn unit_ns(unit: &arrow::datatypes::TimeUnit) -> i64 {
    use arrow::datatypes::TimeUnit;
    match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    }
}

/// A timestamp given in nanoseconds since the epoch as text, `YYYY-MM-DD HH:MM:SS.fffffffff`
/// (UTC), or the number of nanoseconds outside the years 1677-2262.
pub fn timestamp_text(ns: i128) -> String {
    match i64::try_from(ns)
        .ok()
        .and_then(arrow::temporal_conversions::timestamp_ns_to_datetime)
    {
        Some(t) => t.format("%Y-%m-%d %H:%M:%S%.9f").to_string(),
        None => format!("{ns} ns after 1970-01-01"),
    }
}

/// The native key hash: XXH3-64 with a seed ([`hash_i64`], [`hash_bytes`]).
#[derive(Debug, Clone, Copy)]
pub struct Xxh3(pub u64);

impl KeyHasher for Xxh3 {
    #[inline(always)]
    fn hash_int(&self, v: i64) -> u64 {
        hash_i64(v, self.0)
    }
    #[inline(always)]
    fn hash_wide(&self, v: u64) -> Option<u64> {
        Some(hash_wide(v, self.0))
    }
    #[inline(always)]
    fn hash_canonical(&self, bytes: &[u8]) -> Option<u64> {
        Some(hash_bytes(bytes, self.0))
    }
    #[inline(always)]
    fn hash_bytes(&self, v: &[u8]) -> u64 {
        hash_bytes(v, self.0)
    }
    #[inline(always)]
    fn hash_timestamp(&self, ns: i128) -> Option<u64> {
        Some(hash_timestamp(ns, self.0))
    }
    fn hash_timestamps(&self, values: &[i64], unit: i64, out: &mut Vec<u64>) -> bool {
        if unit == 1 {
            // Nanoseconds are the canonical value itself: the vectorized integer path.
            self.hash_ints(values, out);
        } else {
            out.extend(
                values
                    .iter()
                    .map(|&v| hash_timestamp(v as i128 * unit as i128, self.0)),
            );
        }
        true
    }
    fn hash_ints<T: WidenToI64>(&self, values: &[T], out: &mut Vec<u64>) {
        #[cfg(target_arch = "x86_64")]
        if simd_hash() {
            // SAFETY: simd_hash checked that the CPU has AVX-512 F, DQ and VL.
            return unsafe { hash_ints_avx512(values, self.0, out) };
        }
        xxh3_ints(values, self.0, out);
    }
}

/// The hasher of filters read from format version 1, which predates by-value integers: a
/// `UInt64` key of 2^63 and more hashes as its two's complement `i64`, as version 1 inserted
/// it (so such a filter still finds every key it holds; a negative key of another column may
/// meet it there, a false positive that the join's exact comparison removes).
#[derive(Debug, Clone, Copy)]
pub struct Wrapping<H>(pub H);

impl<H: KeyHasher> KeyHasher for Wrapping<H> {
    #[inline(always)]
    fn hash_int(&self, v: i64) -> u64 {
        self.0.hash_int(v)
    }
    #[inline(always)]
    fn hash_wide(&self, v: u64) -> Option<u64> {
        Some(self.0.hash_int(v as i64))
    }
    #[inline(always)]
    fn hash_canonical(&self, bytes: &[u8]) -> Option<u64> {
        self.0.hash_canonical(bytes)
    }
    #[inline(always)]
    fn hash_bytes(&self, v: &[u8]) -> u64 {
        self.0.hash_bytes(v)
    }
    #[inline(always)]
    fn hash_timestamp(&self, ns: i128) -> Option<u64> {
        self.0.hash_timestamp(ns)
    }
    fn hash_timestamps(&self, values: &[i64], unit: i64, out: &mut Vec<u64>) -> bool {
        self.0.hash_timestamps(values, unit, out)
    }
    fn hash_ints<T: WidenToI64>(&self, values: &[T], out: &mut Vec<u64>) {
        self.0.hash_ints(values, out)
    }
}

/// [`hash_i64`] over a slice; inlined into [`hash_ints_avx512`] to be compiled for AVX-512.
#[inline(always)]
fn xxh3_ints<T: WidenToI64>(values: &[T], seed: u64, out: &mut Vec<u64>) {
    out.extend(values.iter().map(|&v| hash_i64(v.widen(), seed)));
}

/// Whether the CPU runs [`hash_ints_avx512`].
#[cfg(target_arch = "x86_64")]
pub(crate) fn simd_hash() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

/// [`xxh3_ints`] compiled for AVX-512, so that the compiler hashes 8 keys per instruction
/// (the 64-bit multiplies need AVX-512 DQ). Same values as the scalar loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
fn hash_ints_avx512<T: WidenToI64>(values: &[T], seed: u64, out: &mut Vec<u64>) {
    xxh3_ints(values, seed, out)
}

/// Hash of one integer key (any width, widened to `i64`).
#[inline(always)]
pub fn hash_i64(value: i64, seed: u64) -> u64 {
    // XXH3-64's path for 4 to 8 input bytes (XXH3_len_4to8_64b with the default secret),
    // written out for exactly 8 bytes: the general entry point costs a length dispatch and a
    // call per key. Equal to `xxh3_64_with_seed(&value.to_le_bytes(), seed)`; a test pins it.
    const SECRET_8: u64 = 0x1cad_21f7_2c81_017c; // bytes 8..16 of the XXH3 default secret
    const SECRET_16: u64 = 0xdb97_9083_e96d_d4de; // bytes 16..24
    const PRIME_MX2: u64 = 0x9FB2_1C65_1E98_DF25;
    let seed = seed ^ (((seed as u32).swap_bytes() as u64) << 32);
    let bitflip = (SECRET_8 ^ SECRET_16).wrapping_sub(seed);
    let v = value as u64;
    // input64 = read32(p + 4) + (read32(p) << 32) for the 8 little-endian bytes of `v`.
    let mut h = v.rotate_left(32) ^ bitflip;
    h ^= h.rotate_left(49) ^ h.rotate_left(24);
    h = h.wrapping_mul(PRIME_MX2);
    h ^= (h >> 35).wrapping_add(8);
    h = h.wrapping_mul(PRIME_MX2);
    h ^ (h >> 28)
}

/// Hash of one wide integer key, a value above `i64::MAX`: XXH3-64 of the 16 little-endian
/// bytes of the value as `i128`. (Callers pass only values above `i64::MAX`; a smaller value
/// must go through [`hash_i64`] to keep one form per value.)
#[inline]
pub fn hash_wide(value: u64, seed: u64) -> u64 {
    xxh3_64_with_seed(&(value as u128).to_le_bytes(), seed)
}

/// Hash of one integer key given by value (any width and signedness): [`hash_i64`] when it
/// fits `i64`, [`hash_wide`] otherwise.
#[inline]
pub fn hash_u64(value: u64, seed: u64) -> u64 {
    match i64::try_from(value) {
        Ok(v) => hash_i64(v, seed),
        Err(_) => hash_wide(value, seed),
    }
}

/// Hash of one bytes key.
#[inline(always)]
pub fn hash_bytes(value: &[u8], seed: u64) -> u64 {
    xxh3_64_with_seed(value, seed)
}

/// The hashes of a whole key array, one per slot, with the array's nulls.
///
/// Null slots hold an unspecified hash; consumers skip them using `nulls`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashedKeys {
    /// The key family of the hashed array.
    pub family: KeyFamily,
    /// One hash per slot.
    pub hashes: Vec<u64>,
    /// Validity of the slots (`None`: no nulls).
    pub nulls: Option<NullBuffer>,
}

impl HashedKeys {
    /// Number of slots.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// True when there are no slots.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// Number of null slots.
    pub fn null_count(&self) -> usize {
        self.nulls.as_ref().map_or(0, |n| n.null_count())
    }

    /// True when slot `i` holds a key (is not null).
    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        self.nulls.as_ref().is_none_or(|n| n.is_valid(i))
    }

    /// The hashes of the non-null slots, in order.
    pub fn valid_hashes(&self) -> Vec<u64> {
        match &self.nulls {
            None => self.hashes.clone(),
            Some(n) => n.valid_indices().map(|i| self.hashes[i]).collect(),
        }
    }
}

/// Hash every slot of a key array with `seed`.
///
/// Errors when the array's type cannot be a key (the caller adds file and column).
pub fn hash_array(array: &dyn Array, seed: u64) -> Result<HashedKeys> {
    let mut hashes = Vec::new();
    let family = hash_array_into(array, seed, &mut hashes)?;
    Ok(HashedKeys {
        family,
        hashes,
        nulls: array.logical_nulls(),
    })
}

/// Hash every slot of a key array into `out` (cleared first); returns the key family.
pub fn hash_array_into(array: &dyn Array, seed: u64, out: &mut Vec<u64>) -> Result<KeyFamily> {
    hash_array_with(array, &Xxh3(seed), out)
}

/// Hash every slot of a key array with `hasher` into `out` (cleared first); returns the key
/// family. Integer keys are widened to `i64` first, bytes keys are their raw bytes.
pub fn hash_array_with<H: KeyHasher>(
    array: &dyn Array,
    hasher: &H,
    out: &mut Vec<u64>,
) -> Result<KeyFamily> {
    out.clear();
    out.reserve(array.len());
    let dt = array.data_type();
    let h = hasher;
    match dt {
        DataType::Int8 => ints::<Int8Type, H>(array, h, out),
        DataType::Int16 => ints::<Int16Type, H>(array, h, out),
        DataType::Int32 => ints::<Int32Type, H>(array, h, out),
        DataType::Int64 => ints::<Int64Type, H>(array, h, out),
        DataType::UInt8 => ints::<UInt8Type, H>(array, h, out),
        DataType::UInt16 => ints::<UInt16Type, H>(array, h, out),
        DataType::UInt32 => ints::<UInt32Type, H>(array, h, out),
        DataType::UInt64 => uints64(array, h, out)?,
        DataType::Date32 => ints::<Date32Type, H>(array, h, out),
        DataType::Date64 => {
            let a = array.as_primitive::<Date64Type>();
            out.extend(a.values().iter().map(|&ms| h.hash_int(date64_days(ms))));
        }
        DataType::Boolean => {
            let a = array.as_boolean();
            out.extend(a.values().iter().map(|b| h.hash_int(b as i64)));
        }
        DataType::Timestamp(unit, _) => timestamps(array, unit_ns(unit), h, out)?,
        DataType::Time32(_) | DataType::Time64(_) => {
            let (values, unit) = time_values(array).ok_or_else(|| unsupported(dt))?;
            hashes_of_ns(&values, array, unit, h, out)?
        }
        DataType::Decimal32(_, s) => decimals::<Decimal32Type, H>(array, *s, h, out)?,
        DataType::Decimal64(_, s) => decimals::<Decimal64Type, H>(array, *s, h, out)?,
        DataType::Decimal128(_, s) => decimals::<Decimal128Type, H>(array, *s, h, out)?,
        DataType::Decimal256(_, s) => decimals::<Decimal256Type, H>(array, *s, h, out)?,
        DataType::Utf8 => bytes_of(array.as_string::<i32>(), h, out),
        DataType::LargeUtf8 => bytes_of(array.as_string::<i64>(), h, out),
        DataType::Binary => bytes_of(array.as_binary::<i32>(), h, out),
        DataType::LargeBinary => bytes_of(array.as_binary::<i64>(), h, out),
        DataType::Utf8View => {
            let a: &StringViewArray = array.as_string_view();
            out.extend((0..a.len()).map(|i| h.hash_bytes(a.value(i).as_bytes())));
        }
        DataType::BinaryView => {
            let a: &BinaryViewArray = array.as_binary_view();
            out.extend((0..a.len()).map(|i| h.hash_bytes(a.value(i))));
        }
        DataType::FixedSizeBinary(_) => {
            let a = array.as_fixed_size_binary();
            out.extend((0..a.len()).map(|i| h.hash_bytes(a.value(i))));
        }
        DataType::Dictionary(k, _) => {
            use arrow::datatypes::DataType as D;
            match k.as_ref() {
                D::Int8 => dict::<Int8Type, H>(array, h, out)?,
                D::Int16 => dict::<Int16Type, H>(array, h, out)?,
                D::Int32 => dict::<Int32Type, H>(array, h, out)?,
                D::Int64 => dict::<Int64Type, H>(array, h, out)?,
                D::UInt8 => dict::<UInt8Type, H>(array, h, out)?,
                D::UInt16 => dict::<UInt16Type, H>(array, h, out)?,
                D::UInt32 => dict::<UInt32Type, H>(array, h, out)?,
                D::UInt64 => dict::<UInt64Type, H>(array, h, out)?,
                _ => return Err(unsupported(dt)),
            }
        }
        _ => return Err(unsupported(dt)),
    }
    KeyFamily::of(dt).ok_or_else(|| unsupported(dt))
}

/// Whether a key column's type is a string type (or a dictionary of one): a bytes key that
/// is text, which a UUID's 16 bytes never equal.
pub fn is_text(t: &DataType) -> bool {
    let t = match t {
        DataType::Dictionary(_, v) => v.as_ref(),
        t => t,
    };
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

pub(crate) fn unsupported(dt: &DataType) -> Error {
    Error::Usage(format!(
        "type {dt} cannot be a key (integers, decimals, dates, times, timestamps, strings and binary can)"
    ))
}

/// A `Date64` (milliseconds) as its day number, the key of the same day in `Date32`.
#[inline]
pub(crate) fn date64_days(ms: i64) -> i64 {
    ms.div_euclid(86_400_000)
}

/// The canonical form of a number given as `mantissa * 10^-scale` (a decimal, or an integer
/// with scale 0), into `buf`; returns its length, or `None` when the value is an integer
/// beyond 256 bits (a `Decimal256` with a negative scale). See the module docs: an integer
/// value is its 8 (`i64`), 16 (`i128`) or 32 (`i256`) little-endian bytes, whichever is the
/// first to hold it; any other value is the 32 bytes of its mantissa with the trailing zeros
/// of its fraction stripped, then the remaining scale as one byte (33 bytes).
pub fn canonical_number(mantissa: i256, scale: i8, buf: &mut [u8; 33]) -> Option<usize> {
    let ten = i256::from_i128(10);
    let (mut m, mut s) = (mantissa, scale as i32);
    if s < 0 {
        m = m.checked_mul(ten.checked_pow((-s) as u32)?)?;
        s = 0;
    }
    while s > 0 && m.wrapping_rem(ten) == i256::ZERO {
        m = m.wrapping_div(ten);
        s -= 1;
    }
    if s == 0 {
        if let Some(v) = m.to_i128() {
            if let Ok(v) = i64::try_from(v) {
                buf[..8].copy_from_slice(&v.to_le_bytes());
                return Some(8);
            }
            buf[..16].copy_from_slice(&v.to_le_bytes());
            return Some(16);
        }
        buf[..32].copy_from_slice(&m.to_le_bytes());
        return Some(32);
    }
    buf[..32].copy_from_slice(&m.to_le_bytes());
    buf[32] = s as u8;
    Some(33)
}

/// Hash of a canonical number (see [`canonical_number`]) with `h`: the 8-byte form as an
/// integer key, a 16-byte form of a `UInt64` value as a wide key, anything else through
/// [`KeyHasher::hash_canonical`]. `None` when the hasher cannot hold it.
#[inline]
fn hash_number<H: KeyHasher>(h: &H, c: &[u8]) -> Option<u64> {
    match c.len() {
        8 => Some(h.hash_int(i64::from_le_bytes(c.try_into().expect("8 bytes")))),
        16 => {
            let v = i128::from_le_bytes(c.try_into().expect("16 bytes"));
            match u64::try_from(v) {
                Ok(w) => h.hash_wide(w),
                Err(_) => h.hash_canonical(c),
            }
        }
        _ => h.hash_canonical(c),
    }
}

/// Decimal keys by value (scale normalised): `1.50` of `Decimal(10,2)` meets `1.5` of
/// `Decimal(5,1)`, and `7.0` meets the integer 7.
fn decimals<T: DecimalType, H: KeyHasher>(
    array: &dyn Array,
    scale: i8,
    h: &H,
    out: &mut Vec<u64>,
) -> Result<()>
where
    T::Native: ToI256,
{
    let a: &PrimitiveArray<T> = array.as_primitive::<T>();
    let nulls = a.logical_nulls();
    let mut buf = [0u8; 33];
    for (i, v) in a.values().iter().enumerate() {
        let hash =
            canonical_number(v.to_i256(), scale, &mut buf).and_then(|n| hash_number(h, &buf[..n]));
        out.push(match hash {
            Some(x) => x,
            None if nulls.as_ref().is_some_and(|n| n.is_null(i)) => 0,
            None => return Err(unrepresentable_decimal(v.to_i256(), scale)),
        });
    }
    Ok(())
}

/// The raw values of a timestamp array (any unit).
pub(crate) fn timestamp_values(array: &dyn Array) -> &[i64] {
    use arrow::datatypes::{
        TimeUnit, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
        TimestampSecondType,
    };
    match array.data_type() {
        DataType::Timestamp(TimeUnit::Second, _) => {
            array.as_primitive::<TimestampSecondType>().values()
        }
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            array.as_primitive::<TimestampMillisecondType>().values()
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            array.as_primitive::<TimestampMicrosecondType>().values()
        }
        _ => array.as_primitive::<TimestampNanosecondType>().values(),
    }
}

/// The raw values of a time-of-day array (`Time32` widened to `i64`, `Time64` as stored;
/// null slots hold any value) and the nanoseconds of its unit; `None` for other types.
pub(crate) fn time_values(array: &dyn Array) -> Option<(std::borrow::Cow<'_, [i64]>, i64)> {
    use arrow::datatypes::{
        Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
        TimeUnit,
    };
    use std::borrow::Cow;
    let wide = |v: &[i32]| Cow::Owned(v.iter().map(|&x| x as i64).collect());
    Some(match array.data_type() {
        DataType::Time32(TimeUnit::Second) => (
            wide(array.as_primitive::<Time32SecondType>().values()),
            1_000_000_000,
        ),
        DataType::Time32(TimeUnit::Millisecond) => (
            wide(array.as_primitive::<Time32MillisecondType>().values()),
            1_000_000,
        ),
        DataType::Time64(TimeUnit::Microsecond) => (
            Cow::Borrowed(&array.as_primitive::<Time64MicrosecondType>().values()[..]),
            1_000,
        ),
        DataType::Time64(TimeUnit::Nanosecond) => (
            Cow::Borrowed(&array.as_primitive::<Time64NanosecondType>().values()[..]),
            1,
        ),
        _ => return None,
    })
}

/// Timestamp keys (raw values of `unit` nanoseconds each) by their value in nanoseconds.
/// Errors when a non-null key cannot be held by the hasher.
fn timestamps<H: KeyHasher>(array: &dyn Array, unit: i64, h: &H, out: &mut Vec<u64>) -> Result<()> {
    hashes_of_ns(timestamp_values(array), array, unit, h, out)
}

/// The hashes of `values` (timestamps or times of day, of `unit` nanoseconds each) of
/// `array` by their value in nanoseconds. Errors when a non-null key cannot be held by the
/// hasher.
fn hashes_of_ns<H: KeyHasher>(
    values: &[i64],
    array: &dyn Array,
    unit: i64,
    h: &H,
    out: &mut Vec<u64>,
) -> Result<()> {
    let start = out.len();
    if h.hash_timestamps(values, unit, out) {
        return Ok(());
    }
    out.truncate(start);
    let nulls = array.logical_nulls();
    for (i, &v) in values.iter().enumerate() {
        let ns = v as i128 * unit as i128;
        out.push(match h.hash_timestamp(ns) {
            Some(x) => x,
            // A null slot may hold any value: give it some hash instead of refusing.
            None if nulls.as_ref().is_some_and(|n| n.is_null(i)) => 0,
            None => {
                return Err(Error::Unrepresentable(format!(
                    "timestamp key {} has digits below a microsecond: a Spark filter's keys are longs of microseconds (Spark's TIMESTAMP)",
                    timestamp_text(ns)
                )))
            }
        });
    }
    Ok(())
}

/// Decimal natives as `i256`.
pub trait ToI256: Copy {
    /// The value as `i256`.
    fn to_i256(self) -> i256;
}
impl ToI256 for i32 {
    fn to_i256(self) -> i256 {
        i256::from_i128(self as i128)
    }
}
impl ToI256 for i64 {
    fn to_i256(self) -> i256 {
        i256::from_i128(self as i128)
    }
}
impl ToI256 for i128 {
    fn to_i256(self) -> i256 {
        i256::from_i128(self)
    }
}
impl ToI256 for i256 {
    fn to_i256(self) -> i256 {
        self
    }
}

/// The error for a decimal key that has no key form for a hasher.
pub(crate) fn unrepresentable_decimal(m: i256, scale: i8) -> Error {
    let digits = m.to_string();
    let (sign, digits) = match digits.strip_prefix('-') {
        Some(d) => ("-", d.to_string()),
        None => ("", digits),
    };
    let value = if scale > 0 {
        let s = scale as usize;
        let padded = format!("{digits:0>width$}", width = s + 1);
        let (int, frac) = padded.split_at(padded.len() - s);
        format!("{sign}{int}.{frac}")
    } else {
        format!("{sign}{digits}e{}", -(scale as i32))
    };
    let mut buf = [0u8; 33];
    if canonical_number(m, scale, &mut buf).is_some() {
        Error::Unrepresentable(format!(
            "decimal key {value} does not fit a Spark filter, whose keys are signed 64-bit longs (BIGINT): only integer values that fit a long do"
        ))
    } else {
        Error::Usage(format!(
            "decimal key {value} is an integer beyond 256 bits, which no key holds"
        ))
    }
}

/// The canonical bytes of every slot of a decimal array (null slots empty).
fn decimal_canon<T: DecimalType>(array: &dyn Array, scale: i8) -> Result<LargeBinaryArray>
where
    T::Native: ToI256,
{
    let a: &PrimitiveArray<T> = array.as_primitive::<T>();
    let mut b = arrow::array::LargeBinaryBuilder::with_capacity(a.len(), a.len() * 8);
    let mut buf = [0u8; 33];
    for v in a.iter() {
        match v {
            None => b.append_null(),
            Some(v) => {
                let n = canonical_number(v.to_i256(), scale, &mut buf)
                    .ok_or_else(|| unrepresentable_decimal(v.to_i256(), scale))?;
                b.append_value(&buf[..n]);
            }
        }
    }
    Ok(b.finish())
}

/// The canonical bytes of an integer key given by value (`i64` or a wide `u64`).
#[inline]
fn canon_u64(v: u64) -> ([u8; 16], usize) {
    let mut b = [0u8; 16];
    match i64::try_from(v) {
        Ok(s) => {
            b[..8].copy_from_slice(&s.to_le_bytes());
            (b, 8)
        }
        Err(_) => {
            b.copy_from_slice(&(v as u128).to_le_bytes());
            (b, 16)
        }
    }
}

/// Native integer values that widen to the canonical `i64` key.
pub trait WidenToI64: Copy {
    /// The value as the canonical `i64` key.
    fn widen(self) -> i64;
}

macro_rules! widen {
    ($($t:ty),*) => {$(
        impl WidenToI64 for $t {
            #[inline(always)]
            fn widen(self) -> i64 {
                // Callers pass u64 values only when they fit i64 (wide keys take
                // `KeyHasher::hash_wide`); a null slot's value may wrap, its hash is unused.
                self as i64
            }
        }
    )*};
}
widen!(i8, i16, i32, i64, u8, u16, u32, u64);

fn ints<T: ArrowPrimitiveType, H: KeyHasher>(array: &dyn Array, h: &H, out: &mut Vec<u64>)
where
    T::Native: WidenToI64,
{
    let a: &PrimitiveArray<T> = array.as_primitive::<T>();
    h.hash_ints(a.values(), out);
}

/// `UInt64` keys by value: values up to `i64::MAX` take the integer path (vectorized), larger
/// ones [`KeyHasher::hash_wide`]. Errors when a non-null key cannot be held by the hasher.
fn uints64<H: KeyHasher>(array: &dyn Array, h: &H, out: &mut Vec<u64>) -> Result<()> {
    let a: &PrimitiveArray<UInt64Type> = array.as_primitive::<UInt64Type>();
    let values = a.values();
    if values.iter().all(|&v| v <= i64::MAX as u64) {
        h.hash_ints(values, out);
        return Ok(());
    }
    let nulls = a.logical_nulls();
    for (i, &v) in values.iter().enumerate() {
        out.push(match i64::try_from(v) {
            Ok(s) => h.hash_int(s),
            Err(_) => match h.hash_wide(v) {
                Some(x) => x,
                // A null slot may hold any value: give it some hash instead of refusing.
                None if nulls.as_ref().is_some_and(|n| n.is_null(i)) => h.hash_int(v as i64),
                None => return Err(unrepresentable(v)),
            },
        });
    }
    Ok(())
}

/// The error for a `UInt64` key that a hasher cannot hold.
fn unrepresentable(v: u64) -> Error {
    Error::Unrepresentable(format!(
        "UInt64 key {v} does not fit a Spark filter, whose keys are signed 64-bit longs (BIGINT)"
    ))
}

fn bytes_of<T: ByteArrayType, H: KeyHasher>(a: &GenericByteArray<T>, h: &H, out: &mut Vec<u64>) {
    let offsets = a.value_offsets();
    let data = a.value_data();
    out.extend(offsets.windows(2).map(|w| {
        let (s, e) = (w[0].as_usize(), w[1].as_usize());
        h.hash_bytes(&data[s..e])
    }));
}

fn dict<K: ArrowDictionaryKeyType, H: KeyHasher>(
    array: &dyn Array,
    h: &H,
    out: &mut Vec<u64>,
) -> Result<()> {
    let d: &DictionaryArray<K> = array.as_dictionary::<K>();
    let mut values = Vec::new();
    if hash_array_with(d.values().as_ref(), h, &mut values).is_err() {
        // A dictionary value the hasher refuses may be unused or only behind null keys:
        // unpack the dictionary so that only its rows' values count.
        let unpacked = arrow::compute::cast(array, d.values().data_type())
            .map_err(|e| Error::arrow("unpack key dictionary", e))?;
        hash_array_with(unpacked.as_ref(), h, out)?;
        return Ok(());
    }
    let keys = d.keys();
    out.extend(keys.values().iter().enumerate().map(|(i, k)| {
        // Null keys may hold any index; give them a fixed hash instead of indexing.
        if keys.is_null(i) {
            0
        } else {
            values.get(k.as_usize()).copied().unwrap_or(0)
        }
    }));
    Ok(())
}

use arrow::datatypes::ArrowNativeType as _;

/// Parse a text key (one line of `probe` input) into its canonical form and hash it.
pub fn hash_text_key(text: &str, family: KeyFamily, seed: u64) -> Result<u64> {
    hash_text_key_with(text, family, &Xxh3(seed))
}

/// Parse a text key as a key of `family` and hash it with `hasher`: an integer family key
/// parses by value (any integer from -2^63 to 2^64-1), a bytes key is the text's UTF-8 bytes.
/// [`KeyFamily::Any`] is refused: the caller must say which family the text is.
pub fn hash_text_key_with<H: KeyHasher>(text: &str, family: KeyFamily, hasher: &H) -> Result<u64> {
    match family {
        KeyFamily::Bytes => Ok(hasher.hash_bytes(text.as_bytes())),
        KeyFamily::Integer => {
            let t = text.trim();
            if let Ok(v) = t.parse::<i64>() {
                return Ok(hasher.hash_int(v));
            }
            let (m, scale) = parse_number(t).ok_or_else(|| {
                Error::Usage(format!(
                    "key {text:?} is not a number, and the filter holds integer keys"
                ))
            })?;
            let mut buf = [0u8; 33];
            canonical_number(m, scale, &mut buf)
                .and_then(|n| hash_number(hasher, &buf[..n]))
                .ok_or_else(|| match u64::try_from(m.as_i128()) {
                    Ok(v) if scale == 0 && m.to_i128().is_some() => unrepresentable(v),
                    _ => unrepresentable_decimal(m, scale),
                })
        }
        KeyFamily::Timestamp | KeyFamily::TimestampTz => {
            let ns = parse_text_timestamp(text, family)?;
            hasher.hash_timestamp(ns).ok_or_else(|| {
                Error::Unrepresentable(format!(
                    "timestamp key {} has digits below a microsecond: a Spark filter's keys are longs of microseconds (Spark's TIMESTAMP)",
                    timestamp_text(ns)
                ))
            })
        }
        KeyFamily::Time => {
            let ns = parse_text_time(text)?;
            hasher.hash_timestamp(ns).ok_or_else(|| {
                Error::Unrepresentable(format!(
                    "time key {text:?}: the filter's hasher holds no times of day"
                ))
            })
        }
        KeyFamily::Any => Err(Error::Usage(
            "the filter does not record its key family (Spark format): say whether the keys are integers, bytes or timestamps".into(),
        )),
        KeyFamily::Tuple => Err(Error::Usage(
            "the filter holds composite keys: give one tab-separated field per key column".into(),
        )),
    }
}

/// A text key of a timestamp `family` (a `probe` line or field) as nanoseconds since the
/// epoch: `YYYY-MM-DD HH:MM:SS` with up to 9 fractional digits; a zoned key is an instant,
/// its text is UTC, optionally marked so (`Z`, `+00:00`).
pub(crate) fn parse_text_timestamp(text: &str, family: KeyFamily) -> Result<i128> {
    let t = text.trim();
    let t = match family {
        KeyFamily::TimestampTz => t
            .strip_suffix('Z')
            .or_else(|| t.strip_suffix("+00:00"))
            .unwrap_or(t),
        _ => t,
    };
    crate::expr::parse_timestamp(t).map_err(|_| {
        Error::Usage(format!(
            "key {text:?} is not a timestamp (YYYY-MM-DD HH:MM:SS with up to 9 fractional digits{}), and the filter holds {family} keys",
            if family == KeyFamily::TimestampTz { ", in UTC" } else { "" }
        ))
    })
}

/// A text key of the time family (a `probe` line or field) as nanoseconds since midnight:
/// `HH:MM[:SS]` with up to 9 fractional digits.
pub(crate) fn parse_text_time(text: &str) -> Result<i128> {
    crate::expr::parse_time(text.trim()).map_err(|_| {
        Error::Usage(format!(
            "key {text:?} is not a time of day (HH:MM:SS with up to 9 fractional digits), and the filter holds time keys"
        ))
    })
}

/// A decimal number's text (`-12`, `1.50`, `+.5`) as mantissa and scale; `None` when it is
/// not one or needs more than 76 digits.
pub(crate) fn parse_number(t: &str) -> Option<(i256, i8)> {
    let (neg, digits) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        || int.len() + frac.len() > 76
    {
        return None;
    }
    let m = i256::from_string(&format!("{}{int}{frac}", if neg { "-" } else { "" }))?;
    Some((m, i8::try_from(frac.len()).ok()?))
}

/// Convenience: hash an [`ArrayRef`].
pub fn hash_array_ref(array: &ArrayRef, seed: u64) -> Result<HashedKeys> {
    hash_array(array.as_ref(), seed)
}

/// Key values in canonical form, for exact equality in the join (hashes only route rows).
#[derive(Debug, Clone)]
pub enum CanonicalKeys {
    /// Integer keys that all fit `i64`, widened to it (null slots hold any value).
    Int(Vec<i64>),
    /// Integer keys of a `UInt64` column holding values above `i64::MAX`, by value.
    Wide(Vec<u64>),
    /// Numbers of a decimal column, as their canonical bytes ([`canonical_number`]).
    Num(LargeBinaryArray),
    /// Bytes keys.
    Bytes(LargeBinaryArray),
    /// Timestamp keys (either timestamp family) as nanoseconds since the epoch, or times of
    /// day as nanoseconds since midnight (null slots hold any value). They equal only each
    /// other, and the families never meet in one join.
    Time(Vec<i128>),
}

impl CanonicalKeys {
    /// Canonical keys of an array (any supported key type).
    pub fn try_new(array: &dyn Array) -> Result<Self> {
        let family =
            KeyFamily::of(array.data_type()).ok_or_else(|| unsupported(array.data_type()))?;
        match family {
            KeyFamily::Integer => {
                let unpacked;
                let array = match array.data_type() {
                    DataType::Dictionary(_, v) => {
                        unpacked = arrow::compute::cast(array, v)
                            .map_err(|e| Error::arrow("unpack key dictionary", e))?;
                        unpacked.as_ref()
                    }
                    _ => array,
                };
                match array.data_type() {
                    DataType::Decimal32(_, s) => {
                        return Ok(CanonicalKeys::Num(decimal_canon::<Decimal32Type>(
                            array, *s,
                        )?))
                    }
                    DataType::Decimal64(_, s) => {
                        return Ok(CanonicalKeys::Num(decimal_canon::<Decimal64Type>(
                            array, *s,
                        )?))
                    }
                    DataType::Decimal128(_, s) => {
                        return Ok(CanonicalKeys::Num(decimal_canon::<Decimal128Type>(
                            array, *s,
                        )?))
                    }
                    DataType::Decimal256(_, s) => {
                        return Ok(CanonicalKeys::Num(decimal_canon::<Decimal256Type>(
                            array, *s,
                        )?))
                    }
                    _ => {}
                }
                if let DataType::UInt64 = array.data_type() {
                    let v = array.as_primitive::<UInt64Type>().values();
                    if v.iter().any(|&x| x > i64::MAX as u64) {
                        return Ok(CanonicalKeys::Wide(v.to_vec()));
                    }
                }
                let mut out = Vec::with_capacity(array.len());
                widen_into(array, &mut out)?;
                Ok(CanonicalKeys::Int(out))
            }
            KeyFamily::Bytes => {
                let b = arrow::compute::cast(array, &DataType::LargeBinary)
                    .map_err(|e| Error::arrow("key to bytes", e))?;
                Ok(CanonicalKeys::Bytes(b.as_binary::<i64>().clone()))
            }
            KeyFamily::Timestamp | KeyFamily::TimestampTz | KeyFamily::Time => {
                let unpacked;
                let array = match array.data_type() {
                    DataType::Dictionary(_, v) => {
                        unpacked = arrow::compute::cast(array, v)
                            .map_err(|e| Error::arrow("unpack key dictionary", e))?;
                        unpacked.as_ref()
                    }
                    _ => array,
                };
                let (values, unit) = match array.data_type() {
                    DataType::Timestamp(u, _) => (
                        std::borrow::Cow::Borrowed(timestamp_values(array)),
                        unit_ns(u),
                    ),
                    _ => time_values(array).ok_or_else(|| unsupported(array.data_type()))?,
                };
                let unit = unit as i128;
                Ok(CanonicalKeys::Time(
                    values.iter().map(|&v| v as i128 * unit).collect(),
                ))
            }
            KeyFamily::Any | KeyFamily::Tuple => Err(unsupported(array.data_type())),
        }
    }

    /// Slot `j` as the `i64` integer key it equals, if any: the only `v` for which an `Int`
    /// slot holding `v` is [`eq_at`](Self::eq_at) this slot. `None` where no integer key
    /// equals it (bytes, timestamps, a `UInt64` above `i64::MAX`, a number that is not an
    /// integer of 64 bits).
    #[inline]
    pub fn as_i64_at(&self, j: usize) -> Option<i64> {
        use CanonicalKeys::*;
        match self {
            Int(a) => Some(a[j]),
            Wide(w) => i64::try_from(w[j]).ok(),
            // `eq_at` compares a number's canonical bytes with the integer's 8 LE bytes.
            Num(n) => <[u8; 8]>::try_from(n.value(j)).ok().map(i64::from_le_bytes),
            Bytes(_) | Time(_) => None,
        }
    }

    /// True when slot `i` of `self` equals slot `j` of `other` (both non-null, same family):
    /// integers by value, bytes by bytes.
    #[inline]
    pub fn eq_at(&self, i: usize, other: &CanonicalKeys, j: usize) -> bool {
        use CanonicalKeys::*;
        match (self, other) {
            (Int(a), Int(b)) => a[i] == b[j],
            (Wide(a), Wide(b)) => a[i] == b[j],
            (Int(a), Wide(b)) | (Wide(b), Int(a)) => {
                // Which slot is which depends on the arm: take them from the original order.
                let (s, w) = if matches!(self, Int(_)) {
                    (a[i], b[j])
                } else {
                    (a[j], b[i])
                };
                u64::try_from(s) == Ok(w)
            }
            (Num(a), Num(b)) => a.value(i) == b.value(j),
            (Int(a), Num(n)) | (Num(n), Int(a)) => {
                let (v, c) = if matches!(self, Int(_)) {
                    (a[i], n.value(j))
                } else {
                    (a[j], n.value(i))
                };
                c == v.to_le_bytes()
            }
            (Wide(a), Num(n)) | (Num(n), Wide(a)) => {
                let (v, c) = if matches!(self, Wide(_)) {
                    (a[i], n.value(j))
                } else {
                    (a[j], n.value(i))
                };
                let (b, len) = canon_u64(v);
                c == &b[..len]
            }
            (Bytes(a), Bytes(b)) => a.value(i) == b.value(j),
            (Time(a), Time(b)) => a[i] == b[j],
            _ => false,
        }
    }
}

fn widen_into(array: &dyn Array, out: &mut Vec<i64>) -> Result<()> {
    fn w<T: ArrowPrimitiveType>(a: &dyn Array, out: &mut Vec<i64>)
    where
        T::Native: WidenToI64,
    {
        out.extend(a.as_primitive::<T>().values().iter().map(|&v| v.widen()));
    }
    match array.data_type() {
        DataType::Int8 => w::<Int8Type>(array, out),
        DataType::Int16 => w::<Int16Type>(array, out),
        DataType::Int32 => w::<Int32Type>(array, out),
        DataType::Int64 => w::<Int64Type>(array, out),
        DataType::UInt8 => w::<UInt8Type>(array, out),
        DataType::UInt16 => w::<UInt16Type>(array, out),
        DataType::UInt32 => w::<UInt32Type>(array, out),
        // Only reached when every value fits i64 (see CanonicalKeys::try_new).
        DataType::UInt64 => w::<UInt64Type>(array, out),
        DataType::Date32 => w::<Date32Type>(array, out),
        DataType::Date64 => out.extend(
            array
                .as_primitive::<Date64Type>()
                .values()
                .iter()
                .map(|&ms| date64_days(ms)),
        ),
        DataType::Boolean => out.extend(array.as_boolean().values().iter().map(|b| b as i64)),
        other => return Err(unsupported(other)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use proptest::prelude::*;

    proptest! {
        /// `as_i64_at` is the integer key `eq_at` finds equal, for every family a right key
        /// can come in: an integer slot holding `v` equals slot `j` exactly when
        /// `as_i64_at(j) == Some(v)` (the join table compares its inline keys this way).
        #[test]
        fn as_i64_at_is_the_integer_eq_at_finds_equal(
            v in prop::collection::vec(-3i64..3, 1..8),
            wide in prop::collection::vec(prop_oneof![0u64..4, (i64::MAX as u64)..=u64::MAX], 1..8),
            units in prop::collection::vec(-400i128..400, 1..8),
        ) {
            use arrow::array::{Decimal128Array, Int64Array, StringArray, TimestampSecondArray, UInt64Array};
            let ints = CanonicalKeys::try_new(&Int64Array::from(v.clone())).unwrap();
            let others: Vec<ArrayRef> = vec![
                Arc::new(Int64Array::from(v.clone())),
                Arc::new(UInt64Array::from(wide.clone())),
                // Scale 2: 100 units are the integer 1; others are no integer.
                Arc::new(Decimal128Array::from(units.clone()).with_precision_and_scale(10, 2).unwrap()),
                Arc::new(Decimal128Array::from(units.clone()).with_precision_and_scale(38, 0).unwrap()),
                Arc::new(StringArray::from(vec!["1", "x"])),
                Arc::new(TimestampSecondArray::from(vec![0, 1])),
            ];
            for other in others {
                let o = CanonicalKeys::try_new(other.as_ref()).unwrap();
                for j in 0..other.len() {
                    for (i, &x) in v.iter().enumerate() {
                        prop_assert_eq!(
                            ints.eq_at(i, &o, j),
                            o.as_i64_at(j) == Some(x),
                            "{:?} slot {}", other.data_type(), j
                        );
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn hash_i64_is_xxh3_of_the_8_le_bytes(v in any::<i64>(), seed in any::<u64>()) {
            prop_assert_eq!(super::hash_i64(v, seed), xxh3_64_with_seed(&v.to_le_bytes(), seed));
        }
    }

    proptest! {
        /// The batch integer path (vectorized where the CPU allows) equals the one-key hash
        /// for every integer width, at every length (SIMD bodies and tails).
        #[test]
        fn integer_arrays_hash_like_single_keys(
            v in prop::collection::vec(any::<i64>(), 0..100),
            seed in any::<u64>(),
        ) {
            use arrow::array::{Int16Array, Int64Array, UInt32Array, UInt64Array};
            let h = |x: i64| super::hash_i64(x, seed);
            let arrays: Vec<(ArrayRef, Vec<u64>)> = vec![
                (Arc::new(Int64Array::from(v.clone())), v.iter().map(|&x| h(x)).collect()),
                (Arc::new(Int16Array::from_iter_values(v.iter().map(|&x| x as i16))),
                    v.iter().map(|&x| h(x as i16 as i64)).collect()),
                (Arc::new(UInt32Array::from_iter_values(v.iter().map(|&x| x as u32))),
                    v.iter().map(|&x| h(x as u32 as i64)).collect()),
                // By value: a negative v is a UInt64 above i64::MAX, a wide key.
                (Arc::new(UInt64Array::from_iter_values(v.iter().map(|&x| x as u64))),
                    v.iter().map(|&x| super::hash_u64(x as u64, seed)).collect()),
                // Only non-negative values: the vectorized path.
                (Arc::new(UInt64Array::from_iter_values(v.iter().map(|&x| x.unsigned_abs() >> 1))),
                    v.iter().map(|&x| h((x.unsigned_abs() >> 1) as i64)).collect()),
            ];
            for (array, want) in arrays {
                let got = hash_array(array.as_ref(), seed).unwrap().hashes;
                prop_assert_eq!(got, want);
            }
        }
    }

    proptest! {
        /// A timestamp hashes as its instant: `v` of a unit equals `v * 1000` of the next
        /// finer unit (whenever that fits), and the Spark hasher agrees on microseconds.
        #[test]
        fn timestamps_hash_by_instant_across_units(v in any::<i64>(), seed in any::<u64>()) {
            use arrow::datatypes::TimeUnit::*;
            let units = [Second, Millisecond, Microsecond, Nanosecond];
            let one = |a: ArrayRef| hash_array(a.as_ref(), seed).unwrap().hashes[0];
            let ts = |v: i64, u: &arrow::datatypes::TimeUnit| -> ArrayRef {
                let a = Int64Array::from(vec![v]);
                arrow::compute::cast(&a, &DataType::Timestamp(*u, None)).unwrap()
            };
            for w in units.windows(2) {
                if let Some(finer) = v.checked_mul(1000) {
                    prop_assert_eq!(one(ts(v, &w[0])), one(ts(finer, &w[1])));
                }
                prop_assert_eq!(
                    one(ts(v, &w[0])),
                    hash_timestamp(v as i128 * unit_ns(&w[0]) as i128, seed)
                );
            }
        }

        /// A time of day hashes and compares as its nanoseconds since midnight, whatever its
        /// unit: `s` seconds of `Time32(s)` is `s * 1000` of `Time32(ms)`, `s * 10^6` of
        /// `Time64(us)` and `s * 10^9` of `Time64(ns)` (and a value off a unit's grid meets no
        /// coarser one); the canonical keys, the text key and the key range agree.
        #[test]
        fn times_hash_by_value_across_units(
            s in 0i32..86_400,
            sub in 1i64..1_000_000_000,
            seed in any::<u64>(),
        ) {
            use arrow::array::{
                Time32MillisecondArray, Time32SecondArray, Time64MicrosecondArray,
                Time64NanosecondArray,
            };
            let one = |a: &dyn Array| hash_array(a, seed).unwrap().hashes[0];
            let ns = s as i64 * 1_000_000_000;
            let arrays: [ArrayRef; 4] = [
                Arc::new(Time32SecondArray::from(vec![s])),
                Arc::new(Time32MillisecondArray::from(vec![s * 1000])),
                Arc::new(Time64MicrosecondArray::from(vec![s as i64 * 1_000_000])),
                Arc::new(Time64NanosecondArray::from(vec![ns])),
            ];
            for a in &arrays {
                prop_assert_eq!(KeyFamily::of(a.data_type()), Some(KeyFamily::Time));
                prop_assert_eq!(one(a.as_ref()), hash_timestamp(ns as i128, seed));
                let CanonicalKeys::Time(c) = CanonicalKeys::try_new(a.as_ref()).unwrap() else {
                    panic!("times are canonical nanoseconds");
                };
                prop_assert_eq!(c, vec![ns as i128]);
                prop_assert_eq!(
                    crate::map::prune::key_range(a.as_ref()),
                    Some((ns as i128, ns as i128))
                );
            }
            let text = format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
            prop_assert_eq!(
                hash_text_key_with(&text, KeyFamily::Time, &Xxh3(seed)).unwrap(),
                one(arrays[3].as_ref())
            );
            let off = Time64NanosecondArray::from(vec![ns + sub]);
            prop_assert_ne!(one(&off), one(arrays[0].as_ref()));
            let text = format!("{text}.{sub:09}");
            prop_assert_eq!(
                hash_text_key_with(&text, KeyFamily::Time, &Xxh3(seed)).unwrap(),
                one(&off)
            );
        }
    }

    #[test]
    fn hash_i64_edge_values() {
        for v in [0i64, 1, -1, i64::MIN, i64::MAX, 7, 1 << 32] {
            for seed in [0u64, 1, 42, u64::MAX, 0xdead_beef_0000_0001] {
                assert_eq!(
                    super::hash_i64(v, seed),
                    xxh3_64_with_seed(&v.to_le_bytes(), seed)
                );
            }
        }
    }

    use arrow::array::*;
    use arrow::datatypes::{Int16Type, Int8Type};

    use super::*;

    /// The canonical integer form's golden vectors (seed 0), also in docs/FORMAT.md: a value
    /// that fits i64 hashes its 8 bytes (unchanged since format version 1), a larger UInt64
    /// value the 16 bytes of its i128.
    #[test]
    fn integer_golden_vectors() {
        assert_eq!(hash_i64(0, 0), 0xc77b_3abb_6f87_acd9);
        assert_eq!(hash_i64(-1, 0), 0x5111_c7e4_7d78_4413);
        assert_eq!(hash_wide(u64::MAX, 0), 0x28ac_de8c_eeed_5915);
        assert_eq!(hash_wide(1 << 63, 0), 0x597d_8d53_443c_6129);
        assert_eq!(hash_u64(u64::MAX, 0), 0x28ac_de8c_eeed_5915);
        assert_eq!(hash_u64(7, 0), hash_i64(7, 0));
    }

    /// Issue 12, defect 1: UInt64 keys of 2^63 and more hashed as their two's complement i64,
    /// so u64::MAX met -1 in the filter and in the shuffle. By value, equal values meet
    /// whatever their type, and u64::MAX is not -1; a dictionary of them and null slots too.
    #[test]
    fn unsigned_keys_above_i64_max_hash_by_value_not_as_negative_numbers() {
        let big = vec![
            Some(u64::MAX),
            None,
            Some(1 << 63),
            Some(5),
            Some(i64::MAX as u64),
        ];
        let u = UInt64Array::from(big.clone());
        let got = hash_array(&u, 3).unwrap();
        assert_eq!(got.hashes[0], hash_wide(u64::MAX, 3));
        assert_eq!(got.hashes[2], hash_wide(1 << 63, 3));
        assert_eq!(got.hashes[3], hash_i64(5, 3));
        assert_eq!(got.hashes[4], hash_i64(i64::MAX, 3));
        assert_ne!(got.hashes[0], hash_i64(-1, 3));
        assert_ne!(got.hashes[2], hash_i64(i64::MIN, 3));
        assert!(!got.is_valid(1));
        let d: DictionaryArray<Int8Type> = DictionaryArray::new(
            Int8Array::from(vec![Some(0), None, Some(1), Some(2), Some(3)]),
            Arc::new(UInt64Array::from(vec![
                u64::MAX,
                1 << 63,
                5,
                i64::MAX as u64,
            ])),
        );
        let dh = hash_array(&d, 3).unwrap();
        for i in [0, 2, 3, 4] {
            assert_eq!(dh.hashes[i], got.hashes[i], "slot {i}");
        }
        // Exact comparison: by value across signedness.
        let s = CanonicalKeys::try_new(&Int64Array::from(vec![-1, i64::MIN, 5, i64::MAX])).unwrap();
        let w = CanonicalKeys::try_new(&u).unwrap();
        assert!(matches!(w, CanonicalKeys::Wide(_)));
        let wd = CanonicalKeys::try_new(&d).unwrap();
        for k in [&w, &wd] {
            assert!(
                !k.eq_at(0, &s, 0) && !s.eq_at(0, k, 0),
                "u64::MAX is not -1"
            );
            assert!(
                !k.eq_at(2, &s, 1) && !s.eq_at(1, k, 2),
                "2^63 is not i64::MIN"
            );
            assert!(k.eq_at(3, &s, 2) && s.eq_at(2, k, 3));
            assert!(k.eq_at(4, &s, 3) && s.eq_at(3, k, 4));
            assert!(k.eq_at(0, &w, 0) && !k.eq_at(0, &w, 2));
        }
        // A UInt64 column whose values all fit i64 keeps the fast i64 form.
        let small = CanonicalKeys::try_new(&UInt64Array::from(vec![5u64])).unwrap();
        assert!(matches!(small, CanonicalKeys::Int(_)) && small.eq_at(0, &s, 2));
    }

    /// Issue 16: decimals are keys by exact value; equal values of different scales and types
    /// (and integers) hash alike and compare equal, unequal ones do not.
    #[test]
    fn decimal_keys_are_canonical_numbers() {
        let d = |v: Vec<Option<i128>>, p: u8, s: i8| -> ArrayRef {
            Arc::new(
                Decimal128Array::from(v)
                    .with_precision_and_scale(p, s)
                    .unwrap(),
            )
        };
        let a = d(
            vec![Some(150), Some(700), Some(-200), Some(10), None],
            10,
            2,
        );
        let b = d(vec![Some(15), Some(7), Some(-2), Some(1), Some(0)], 5, 1);
        let ha = hash_array(a.as_ref(), 4).unwrap();
        let hb = hash_array(b.as_ref(), 4).unwrap();
        assert_eq!(ha.family, KeyFamily::Integer);
        assert_eq!(ha.hashes[0], hb.hashes[0], "1.50 is 1.5");
        assert_eq!(ha.hashes[3], hb.hashes[3], "0.10 is 0.1");
        assert_eq!(ha.hashes[1], hash_i64(7, 4), "7.00 is the integer 7");
        assert_eq!(ha.hashes[2], hash_i64(-2, 4));
        assert_ne!(hb.hashes[1], hash_i64(7, 4), "0.7 is not 7");
        let ka = CanonicalKeys::try_new(a.as_ref()).unwrap();
        let kb = CanonicalKeys::try_new(b.as_ref()).unwrap();
        let ki = CanonicalKeys::try_new(&Int64Array::from(vec![7, -2, 1])).unwrap();
        let kw = CanonicalKeys::try_new(&UInt64Array::from(vec![u64::MAX, 7])).unwrap();
        assert!(ka.eq_at(0, &kb, 0) && kb.eq_at(0, &ka, 0));
        assert!(ka.eq_at(3, &kb, 3) && !ka.eq_at(1, &kb, 1));
        assert!(ka.eq_at(1, &ki, 0) && ki.eq_at(0, &ka, 1) && ka.eq_at(2, &ki, 1));
        assert!(!ka.eq_at(0, &ki, 2), "1.50 is not 1");
        assert!(ka.eq_at(1, &kw, 1) && kw.eq_at(1, &ka, 1));
        // Decimal(38,0) ids beyond i64, a Decimal256, a negative scale.
        let big = d(vec![Some(u64::MAX as i128), Some(10i128.pow(30))], 38, 0);
        let hbig = hash_array(big.as_ref(), 4).unwrap();
        assert_eq!(hbig.hashes[0], hash_wide(u64::MAX, 4));
        assert_eq!(hbig.hashes[1], hash_bytes(&10i128.pow(30).to_le_bytes(), 4));
        let kbig = CanonicalKeys::try_new(big.as_ref()).unwrap();
        assert!(kbig.eq_at(0, &kw, 0) && kw.eq_at(0, &kbig, 0));
        let d256 = Decimal256Array::from(vec![i256::from_i128(7000), i256::from_i128(1)])
            .with_precision_and_scale(40, 3)
            .unwrap();
        let h256 = hash_array(&d256, 4).unwrap();
        assert_eq!(h256.hashes[0], hash_i64(7, 4));
        assert_eq!(
            h256.hashes[1],
            hash_text_key_with("0.001", KeyFamily::Integer, &Xxh3(4)).unwrap()
        );
        let neg = d(vec![Some(7)], 5, -2);
        assert_eq!(
            hash_array(neg.as_ref(), 4).unwrap().hashes[0],
            hash_i64(700, 4)
        );
        // Spark filters hold longs: 1.5 and 2^64-1 have no form there, 7.00 does.
        let spark_like = Wrapping(Xxh3(4));
        let mut out = Vec::new();
        hash_array_with(a.as_ref(), &spark_like, &mut out).unwrap();
        assert_eq!(out[1], hash_i64(7, 4));
        let p =
            crate::bloom::BloomParams::explicit(crate::bloom::Layout::SparkV1, 64, 1, 0).unwrap();
        let spark = crate::bloom::spark::SparkHasher::new(&p);
        let e = hash_array_with(a.as_ref(), &spark, &mut out)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("decimal key 1.50 does not fit a Spark filter"),
            "{e}"
        );
        let small = d(vec![Some(-12)], 10, 5);
        let e = hash_array_with(small.as_ref(), &spark, &mut out)
            .unwrap_err()
            .to_string();
        assert!(e.contains("decimal key -0.00012 "), "{e}");
        let ints = d(vec![Some(700), None], 10, 2);
        hash_array_with(ints.as_ref(), &spark, &mut out).unwrap();
        assert_eq!(out[0], spark.hash_int(7));
    }

    /// Issue 16: `Date64` is its day (it meets `Date32` of the same day), `Boolean` is 0 or 1
    /// (as SQL compares `true = 1`).
    #[test]
    fn date64_and_boolean_keys() {
        let day = 86_400_000i64;
        let d64 = Date64Array::from(vec![0, 19_000 * day, -day]);
        let d32 = Date32Array::from(vec![0, 19_000, -1]);
        assert_eq!(
            hash_array(&d64, 1).unwrap().hashes,
            hash_array(&d32, 1).unwrap().hashes
        );
        let k64 = CanonicalKeys::try_new(&d64).unwrap();
        let k32 = CanonicalKeys::try_new(&d32).unwrap();
        assert!((0..3).all(|i| k64.eq_at(i, &k32, i)) && !k64.eq_at(0, &k32, 1));
        let b = BooleanArray::from(vec![Some(true), Some(false), None]);
        let hb = hash_array(&b, 1).unwrap();
        assert_eq!(hb.family, KeyFamily::Integer);
        assert_eq!(&hb.hashes[..2], &[hash_i64(1, 1), hash_i64(0, 1)]);
        assert!(!hb.is_valid(2));
        let kb = CanonicalKeys::try_new(&b).unwrap();
        let ki = CanonicalKeys::try_new(&Int8Array::from(vec![1, 0])).unwrap();
        assert!(kb.eq_at(0, &ki, 0) && kb.eq_at(1, &ki, 1) && !kb.eq_at(0, &ki, 1));
    }

    /// Issue 16: timestamp keys are their value in nanoseconds, whatever the unit: `ts[s]`,
    /// `ts[ms]`, `ts[us]` and `ts[ns]` of one instant are one key; zoned timestamps (any zone)
    /// are another family than zone-less ones, and neither meets integers. Golden vectors
    /// (seed 0) as in docs/FORMAT.md.
    #[test]
    fn timestamp_keys_are_nanoseconds_of_every_unit() {
        assert_eq!(hash_timestamp(1_000_000_000, 0), 0x89f0_3d0b_23bc_b885);
        assert_eq!(hash_timestamp(1_500_000_000, 0), 0x0163_e7ea_a5fd_7759);
        let far = i64::MAX as i128 * 1_000_000_000;
        assert_eq!(hash_timestamp(far, 0), 0x8133_3e2e_ecf9_d275);
        assert_eq!(hash_timestamp(far, 0), hash_bytes(&far.to_le_bytes(), 0));
        assert_eq!(hash_timestamp(-7, 3), hash_i64(-7, 3));

        let s = TimestampSecondArray::from(vec![Some(1), Some(-1), None, Some(i64::MAX)]);
        let ms =
            TimestampMillisecondArray::from(vec![Some(1_000), Some(-1_000), Some(5), Some(1_500)]);
        let us = TimestampMicrosecondArray::from(vec![1_000_000, -1_000_000, 0, 1_500_000]);
        let ns =
            TimestampNanosecondArray::from(vec![1_000_000_000, -1_000_000_000, 0, 1_500_000_000]);
        let h = |a: &dyn Array| hash_array(a, 0).unwrap();
        let (hs, hms, hus, hns) = (h(&s), h(&ms), h(&us), h(&ns));
        assert_eq!(hs.family, KeyFamily::Timestamp);
        for x in [&hms, &hus, &hns] {
            assert_eq!(x.family, KeyFamily::Timestamp);
            assert_eq!(x.hashes[..2], hs.hashes[..2], "1 s and -1 s");
            assert_eq!(x.hashes[3], hash_timestamp(1_500_000_000, 0), "1.5 s");
        }
        assert_eq!(hs.hashes[0], 0x89f0_3d0b_23bc_b885);
        assert_eq!(hs.hashes[3], hash_timestamp(far, 0));
        assert!(!hs.is_valid(2));
        // Zoned: another family, the same instants whatever the zone.
        let utc = hash_array(&ms.clone().with_timezone("UTC"), 0).unwrap();
        let cest = hash_array(&us.clone().with_timezone("+02:00"), 0).unwrap();
        assert_eq!(utc.family, KeyFamily::TimestampTz);
        assert_eq!(cest.family, KeyFamily::TimestampTz);
        assert_eq!(utc.hashes, hms.hashes);
        assert_eq!(cest.hashes[..2], utc.hashes[..2]);
        // A dictionary of timestamps hashes as its values.
        let d = DictionaryArray::<Int8Type>::new(
            Int8Array::from(vec![1, 0]),
            Arc::new(TimestampMillisecondArray::from(vec![1_000, -1_000])),
        );
        assert_eq!(h(&d).hashes, vec![hs.hashes[1], hs.hashes[0]]);

        // Exact comparison: by instant across units, never with integers.
        let k = |a: &dyn Array| CanonicalKeys::try_new(a).unwrap();
        let (ks, kms, kns, kd) = (k(&s), k(&ms), k(&ns), k(&d));
        assert!(ks.eq_at(0, &kms, 0) && kms.eq_at(0, &kns, 0) && kns.eq_at(1, &ks, 1));
        assert!(!ks.eq_at(0, &kms, 1) && kms.eq_at(3, &kns, 3) && !ks.eq_at(3, &kms, 3));
        assert!(kd.eq_at(0, &ks, 1) && kd.eq_at(1, &kms, 0));
        let ints = k(&Int64Array::from(vec![1, 1_000, 1_000_000_000]));
        for i in 0..3 {
            assert!(!ks.eq_at(0, &ints, i) && !ints.eq_at(i, &kns, 0));
        }

        // Text keys (probe): the timestamp's text, UTC for zoned keys.
        let t = |text: &str, f| hash_text_key_with(text, f, &Xxh3(0)).unwrap();
        assert_eq!(t("1970-01-01 00:00:01", KeyFamily::Timestamp), hs.hashes[0]);
        assert_eq!(
            t("1970-01-01T00:00:01.5", KeyFamily::Timestamp),
            hms.hashes[3]
        );
        assert_eq!(
            t("1969-12-31 23:59:59Z", KeyFamily::TimestampTz),
            utc.hashes[1]
        );
        let e = hash_text_key_with("12", KeyFamily::Timestamp, &Xxh3(0)).unwrap_err();
        assert!(e.to_string().contains("is not a timestamp"), "{e}");

        // Spark filters hold longs of microseconds: sub-microsecond keys are refused by value.
        let p =
            crate::bloom::BloomParams::explicit(crate::bloom::Layout::SparkV2, 64, 1, 0).unwrap();
        let spark = crate::bloom::spark::SparkHasher::new(&p);
        let mut out = Vec::new();
        hash_array_with(&s, &spark, &mut out).unwrap_err();
        hash_array_with(&ms, &spark, &mut out).unwrap();
        assert_eq!(out[0], spark.hash_int(1_000_000));
        assert_eq!(out[3], spark.hash_int(1_500_000));
        let odd = TimestampNanosecondArray::from(vec![Some(1_000), None, Some(1_000_000_001)]);
        let e = hash_array_with(&odd, &spark, &mut out)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "timestamp key 1970-01-01 00:00:01.000000001 has digits below a microsecond"
            ),
            "{e}"
        );
        let odd_null = TimestampNanosecondArray::from(vec![Some(1_000), None]);
        let mut odd_null = odd_null.into_data().into_builder();
        odd_null = odd_null.buffers(vec![arrow::buffer::Buffer::from_slice_ref([1_000i64, 7])]);
        let odd_null = TimestampNanosecondArray::from(odd_null.build().unwrap());
        hash_array_with(&odd_null, &spark, &mut out).unwrap();
        assert_eq!(out[0], spark.hash_int(1));
    }

    /// Issue 12, defect 10: probe text "18446744073709551615" was "not an integer".
    #[test]
    fn text_keys_parse_every_integer_by_value() {
        let h = Xxh3(9);
        let t = |s: &str| hash_text_key_with(s, KeyFamily::Integer, &h);
        assert_eq!(t("18446744073709551615").unwrap(), hash_wide(u64::MAX, 9));
        assert_eq!(t(" -1 ").unwrap(), hash_i64(-1, 9));
        assert_eq!(t("-9223372036854775808").unwrap(), hash_i64(i64::MIN, 9));
        assert_eq!(t("9223372036854775807").unwrap(), hash_i64(i64::MAX, 9));
        // Beyond 64 bits and fractions: the canonical number forms (decimal keys).
        assert_eq!(
            t("18446744073709551616").unwrap(),
            hash_bytes(&(1u128 << 64).to_le_bytes(), 9)
        );
        assert_eq!(
            t("-9223372036854775809").unwrap(),
            hash_bytes(&(i64::MIN as i128 - 1).to_le_bytes(), 9)
        );
        assert_eq!(t("7.000").unwrap(), hash_i64(7, 9));
        assert_eq!(t("+1.50").unwrap(), t("1.5").unwrap());
        assert_ne!(t("1.5").unwrap(), t("15").unwrap());
        assert_ne!(t("-1.5").unwrap(), t("1.5").unwrap());
        for bad in ["12x", "", "-", ".", "1.2.3", "1e3"] {
            let e = t(bad).unwrap_err().to_string();
            assert!(e.contains("not a number"), "{bad}: {e}");
        }
        // The version-1 form hashes a wide key as its two's complement.
        let w = Wrapping(h);
        let tw = |s: &str| hash_text_key_with(s, KeyFamily::Integer, &w);
        assert_eq!(tw("18446744073709551615").unwrap(), hash_i64(-1, 9));
        let mut out = Vec::new();
        hash_array_with(&UInt64Array::from(vec![u64::MAX, 3]), &w, &mut out).unwrap();
        assert_eq!(out, [hash_i64(-1, 9), hash_i64(3, 9)]);
    }

    #[test]
    fn canonical_keys_of_every_type_compare_across_types() {
        let strs = vec![Some("a"), None, Some("zoë"), Some("")];
        let bytes: Vec<Option<&[u8]>> = strs.iter().map(|s| s.map(str::as_bytes)).collect();
        let arrays: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(strs.clone())),
            Arc::new(LargeStringArray::from(strs.clone())),
            Arc::new(StringViewArray::from(strs.clone())),
            Arc::new(BinaryArray::from(bytes.clone())),
            Arc::new(LargeBinaryArray::from(bytes.clone())),
            Arc::new(BinaryViewArray::from(bytes.clone())),
            Arc::new(strs.iter().copied().collect::<DictionaryArray<Int16Type>>()),
        ];
        let reference = CanonicalKeys::try_new(arrays[0].as_ref()).unwrap();
        for a in &arrays {
            let k = CanonicalKeys::try_new(a.as_ref())
                .unwrap_or_else(|e| panic!("{}: {e}", a.data_type()));
            for (i, j) in [(0, 2), (2, 3), (3, 0)] {
                assert!(k.eq_at(i, &reference, i), "{} slot {i}", a.data_type());
                assert!(!k.eq_at(i, &reference, j), "{} slot {i}", a.data_type());
            }
        }
        let fixed =
            FixedSizeBinaryArray::try_from_iter(vec![b"ab".to_vec(), b"cd".to_vec()].into_iter())
                .unwrap();
        let k = CanonicalKeys::try_new(&fixed).unwrap();
        let b = CanonicalKeys::try_new(&BinaryArray::from(vec![&b"cd"[..]])).unwrap();
        assert!(k.eq_at(1, &b, 0));

        let ints: Vec<ArrayRef> = vec![
            Arc::new(Int8Array::from(vec![-1, 7])),
            Arc::new(Int32Array::from(vec![-1, 7])),
            Arc::new(Int64Array::from(vec![-1, 7])),
            Arc::new(UInt16Array::from(vec![65535, 7])),
            Arc::new(Date32Array::from(vec![-1, 7])),
        ];
        let r = CanonicalKeys::try_new(ints[2].as_ref()).unwrap();
        for a in &ints {
            let k = CanonicalKeys::try_new(a.as_ref()).unwrap();
            assert!(k.eq_at(1, &r, 1), "{}", a.data_type());
        }
        assert!(CanonicalKeys::try_new(&Float64Array::from(vec![1.0])).is_err());
    }
}
