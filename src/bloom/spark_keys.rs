//! Spark's key mode `xxhash64` for the Spark layouts: the long a filter inserts for a key is
//! Spark SQL's `xxhash64(key)`, bit-exact with Spark's `XxHash64` expression, so that Spark
//! probes the filter with `might_contain(filter, xxhash64(col))` (what its own runtime join
//! filters insert for string and multi-column keys; `might_contain` takes only a BIGINT).
//!
//! Spark's `xxhash64(c1, c2, ...)` is XXH64 (the standard 64-bit xxHash) with seed 42 over
//! the first column's value, whose result is the seed of the next column's hash. Per value,
//! by the column's Spark type ([`SparkType`]):
//!
//! | Spark type | hashed bytes |
//! |---|---|
//! | BOOLEAN, TINYINT, SMALLINT, INT, DATE | the 4 little-endian bytes of the `int` (true = 1, a date its day number) |
//! | BIGINT | the 8 little-endian bytes of the `long` |
//! | TIMESTAMP, TIMESTAMP_NTZ | the 8 little-endian bytes of the `long` of microseconds since the epoch |
//! | DECIMAL(p, s), p <= 18 | the 8 little-endian bytes of the unscaled `long` (7.00 of DECIMAL(10,2) is 700) |
//! | DECIMAL(p, s), p > 18 | the unscaled value's `BigInteger.toByteArray()`: minimal big-endian two's complement |
//! | STRING, BINARY | the UTF-8 bytes / the bytes |
//!
//! The hash depends on the Spark type, not only the value (INT 7 and BIGINT 7 differ, so do
//! 7.00 of DECIMAL(10,2) and 7.000 of DECIMAL(12,3)), so a filter records the Spark type of
//! its key ([`SparkType::of`]: the type Spark's Parquet reader gives the trained column), and
//! keys of any type are hashed *as that type*: a key whose value the type holds exactly is
//! hashed as Spark would hash it; any other key cannot equal a trained key, and is hashed to a
//! long that depends only on its value ([`fallback`]), which at worst is a false positive.

use std::fmt;

use arrow::array::Array;
use arrow::datatypes::{i256, DataType};
use xxhash_rust::xxh64::xxh64;

use crate::error::{Error, Result};
use crate::key::{CanonicalKeys, KeyFamily};

/// Spark's seed of `xxhash64`.
pub const XXHASH64_SEED: u64 = 42;

/// The `--spark-keys` option: what a Spark-layout filter inserts for a key.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SparkKeyMode {
    /// The key itself (Spark's `putLong`/`putBinary`).
    #[default]
    Plain,
    /// Spark SQL's `xxhash64(key)` (seed 42), as a long.
    Xxhash64,
}

/// How a Spark-layout filter turns keys into the longs it inserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SparkKeys {
    /// The key itself (Spark's `putLong` of an integer, `putBinary` of bytes): what
    /// `df.stat.bloomFilter` and `bloom_filter_agg(col)` insert.
    #[default]
    Plain,
    /// Spark's `xxhash64(key)` of the key as the given Spark type, inserted as a long.
    Xxhash64(SparkType),
    /// Spark's `xxhash64(c1, c2, ...)` of a composite key, each column as its own Spark type
    /// (the filter's [`crate::bloom::BloomFilter::spark_types`], recorded in the metadata's
    /// key columns), inserted as a long. Rows with a null column are not inserted.
    #[serde(rename = "xxhash64_tuple")]
    Xxhash64Tuple,
}

impl SparkKeys {
    /// True for [`SparkKeys::Plain`].
    pub fn is_plain(&self) -> bool {
        *self == SparkKeys::Plain
    }
}

impl fmt::Display for SparkKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SparkKeys::Plain => f.write_str("plain"),
            SparkKeys::Xxhash64(t) => write!(f, "xxhash64 ({t})"),
            SparkKeys::Xxhash64Tuple => f.write_str("xxhash64 (composite key)"),
        }
    }
}

/// The Spark SQL type of a key, as far as `xxhash64` tells types apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SparkType {
    /// A 4-byte integer: BOOLEAN, TINYINT, SMALLINT, INT or DATE (Spark hashes them alike).
    Int,
    /// BIGINT.
    Bigint,
    /// DECIMAL(precision, scale), 0 <= scale <= precision <= 38.
    Decimal(u8, u8),
    /// TIMESTAMP or TIMESTAMP_NTZ: a long of microseconds.
    Timestamp,
    /// STRING or BINARY: their bytes.
    String,
}

impl fmt::Display for SparkType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SparkType::Int => f.write_str("int"),
            SparkType::Bigint => f.write_str("bigint"),
            SparkType::Decimal(p, s) => write!(f, "decimal({p},{s})"),
            SparkType::Timestamp => f.write_str("timestamp"),
            SparkType::String => f.write_str("string"),
        }
    }
}

/// The Spark types of a `--spark-type` list (`int,decimal(12,2)`: split at the commas outside
/// parentheses), one per key column of `families` (said by option `what`); each must hold
/// keys of its family.
pub(crate) fn parse_types(
    text: &str,
    families: &[KeyFamily],
    what: &str,
) -> Result<Vec<SparkType>> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    if parts.len() != families.len() {
        return Err(Error::param(
            "--spark-type",
            format!(
                "{} types for {} key columns ({what})",
                parts.len(),
                families.len()
            ),
        ));
    }
    parts
        .iter()
        .zip(families)
        .map(|(p, f)| {
            let t: SparkType = p
                .trim()
                .parse()
                .map_err(|e| Error::param("--spark-type", crate::error::one_line(&e)))?;
            let holds =
                t.family() == *f || (t == SparkType::Timestamp && *f == KeyFamily::TimestampTz);
            if !holds {
                return Err(Error::param(
                    "--spark-type",
                    format!("{t} does not hold {f} keys ({what})"),
                ));
            }
            Ok(t)
        })
        .collect()
}

impl std::str::FromStr for SparkType {
    type Err = Error;
    /// The type's name as [`fmt::Display`] writes it (`int`, `bigint`, `decimal(p,s)`,
    /// `timestamp`, `string`).
    fn from_str(s: &str) -> Result<Self> {
        let t = match s {
            "int" => SparkType::Int,
            "bigint" => SparkType::Bigint,
            "timestamp" => SparkType::Timestamp,
            "string" => SparkType::String,
            _ => s
                .strip_prefix("decimal(")
                .and_then(|r| r.strip_suffix(')'))
                .and_then(|r| r.split_once(','))
                .and_then(|(p, sc)| Some((p.trim().parse().ok()?, sc.trim().parse().ok()?)))
                .and_then(|(p, sc)| SparkType::from_code([3, p, sc]))
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "unknown Spark type {s:?} (int, bigint, decimal(p,s), timestamp or string)"
                    ))
                })?,
        };
        Ok(t)
    }
}

impl SparkType {
    /// The Spark type Spark's Parquet reader gives a column of this Arrow type (and which
    /// holds its values): 8- to 32-bit signed integers, `UInt8`, `UInt16`, `Boolean` and
    /// `Date32` are INT-like (`Date64` is refused: Spark reads it as DATE or as BIGINT
    /// milliseconds, by the writer), `Int64` and `UInt32` BIGINT, `UInt64` DECIMAL(20,0), decimals
    /// themselves, timestamps TIMESTAMP, strings and binary STRING/BINARY. `column` names
    /// the column in errors.
    pub fn of(data_type: &DataType, column: &str) -> Result<Self> {
        use DataType as D;
        Ok(match data_type {
            D::Dictionary(_, v) => return SparkType::of(v, column),
            D::Boolean | D::Int8 | D::Int16 | D::Int32 | D::UInt8 | D::UInt16 | D::Date32 => {
                SparkType::Int
            }
            D::Date64 => {
                return Err(Error::Usage(format!(
                    "--spark-keys xxhash64: column {column:?} is a Date64, which Spark reads as DATE or as BIGINT milliseconds depending on the writer: cast it to Date32 (DATE) or Int64 first"
                )))
            }
            D::Int64 | D::UInt32 => SparkType::Bigint,
            D::UInt64 => SparkType::Decimal(20, 0),
            D::Decimal32(p, s) | D::Decimal64(p, s) | D::Decimal128(p, s) | D::Decimal256(p, s)
                if *s >= 0 && *p <= 38 =>
            {
                SparkType::Decimal(*p, *s as u8)
            }
            D::Timestamp(_, _) => SparkType::Timestamp,
            D::Time32(_) | D::Time64(_) => {
                return Err(Error::Usage(format!(
                    "column {column:?}: {}",
                    crate::error::one_line(&spark_time())
                )))
            }
            t if KeyFamily::of(t) == Some(KeyFamily::Bytes) => SparkType::String,
            other => {
                return Err(Error::Usage(format!(
                    "--spark-keys xxhash64: column {column:?} of type {other} has no Spark SQL type that xxhash64 hashes (decimals need a precision of at most 38 and a scale of 0 or more; floats are no keys)"
                )))
            }
        })
    }

    /// The Spark type for keys of `family` when nothing else says (`probe` of a file in
    /// Spark's format): BIGINT, TIMESTAMP or STRING.
    pub fn for_family(family: KeyFamily) -> Option<Self> {
        match family {
            KeyFamily::Integer => Some(SparkType::Bigint),
            KeyFamily::Bytes => Some(SparkType::String),
            KeyFamily::Timestamp | KeyFamily::TimestampTz => Some(SparkType::Timestamp),
            KeyFamily::Any | KeyFamily::Tuple | KeyFamily::Time => None,
        }
    }

    /// The key family of values of this type.
    pub fn family(self) -> KeyFamily {
        match self {
            SparkType::Int | SparkType::Bigint | SparkType::Decimal(..) => KeyFamily::Integer,
            SparkType::Timestamp => KeyFamily::Timestamp,
            SparkType::String => KeyFamily::Bytes,
        }
    }

    /// The type's code in the native filter header (see docs/FORMAT.md): one byte of type,
    /// then precision and scale (decimals; else 0).
    pub fn code(self) -> [u8; 3] {
        match self {
            SparkType::Int => [1, 0, 0],
            SparkType::Bigint => [2, 0, 0],
            SparkType::Decimal(p, s) => [3, p, s],
            SparkType::Timestamp => [4, 0, 0],
            SparkType::String => [5, 0, 0],
        }
    }

    /// The type of a header code; `None` for an unknown or impossible one.
    pub fn from_code(c: [u8; 3]) -> Option<Self> {
        Some(match c {
            [1, 0, 0] => SparkType::Int,
            [2, 0, 0] => SparkType::Bigint,
            [3, p, s] if (1..=38).contains(&p) && s <= p => SparkType::Decimal(p, s),
            [4, 0, 0] => SparkType::Timestamp,
            [5, 0, 0] => SparkType::String,
            _ => return None,
        })
    }

    /// XXH64 with `seed` of a number `mantissa · 10^-scale` as a value of this type, or
    /// `None` when the type does not hold it exactly.
    pub fn hash_number(self, mantissa: i256, scale: u8, seed: u64) -> Option<u64> {
        match self {
            SparkType::Int => {
                let v = i32::try_from(integer(mantissa, scale)?).ok()?;
                Some(xxh64(&v.to_le_bytes(), seed))
            }
            SparkType::Bigint => {
                let v = i64::try_from(integer(mantissa, scale)?).ok()?;
                Some(xxh64(&v.to_le_bytes(), seed))
            }
            SparkType::Decimal(p, s) => {
                if scale > s {
                    // Trailing zeros are stripped: a finer scale left means a finer value.
                    return None;
                }
                let unscaled = mantissa.checked_mul(pow10(s - scale)?)?.to_i128()?;
                if unscaled.unsigned_abs() >= 10u128.pow(p as u32) {
                    return None;
                }
                if p <= 18 {
                    Some(xxh64(&(unscaled as i64).to_le_bytes(), seed))
                } else {
                    Some(xxh64(&big_integer_bytes(unscaled), seed))
                }
            }
            SparkType::Timestamp | SparkType::String => None,
        }
    }

    /// XXH64 with `seed` of a timestamp (nanoseconds since the epoch) as a value of this
    /// type, or `None` when the type does not hold it (not TIMESTAMP, or digits below a
    /// microsecond).
    pub fn hash_timestamp(self, ns: i128, seed: u64) -> Option<u64> {
        let us = crate::bloom::spark::timestamp_micros(ns)?;
        (self == SparkType::Timestamp).then(|| xxh64(&us.to_le_bytes(), seed))
    }

    /// XXH64 with `seed` of bytes as a value of this type (`None` unless STRING).
    pub fn hash_bytes(self, v: &[u8], seed: u64) -> Option<u64> {
        (self == SparkType::String).then(|| xxh64(v, seed))
    }
}

/// `mantissa · 10^-scale` as an integer, if it is one (the scale of a canonical number is
/// 0 for every integer).
fn integer(mantissa: i256, scale: u8) -> Option<i128> {
    if scale == 0 {
        mantissa.to_i128()
    } else {
        None
    }
}

fn pow10(e: u8) -> Option<i256> {
    i256::from_i128(10).checked_pow(e as u32)
}

/// Java's `BigInteger.toByteArray()`: the minimal big-endian two's complement bytes (at
/// least one).
pub fn big_integer_bytes(v: i128) -> Vec<u8> {
    let b = v.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (x, next) = (b[start], b[start + 1]);
        if (x == 0 && next & 0x80 == 0) || (x == 0xff && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    b[start..].to_vec()
}

/// The long for a key that its filter's Spark type does not hold (so no trained key equals
/// it): XXH64 of the key's canonical bytes (docs/FORMAT.md) with `seed`. It depends only on
/// the key's value, so the same key gets the same long in `train`, `join` and `probe`.
pub fn fallback(canonical: &[u8], seed: u64) -> u64 {
    xxh64(canonical, seed)
}

/// Spark's `xxhash64` step for one key column: `seeds[i]` becomes the XXH64 of row `i`'s
/// value (as the Spark type `ty`) with seed `seeds[i]`. Start with every seed at
/// [`XXHASH64_SEED`]; for a tuple `xxhash64(a, b)`, call it for `a`, then for `b` with the
/// same seeds (Spark chains them so). Null rows get some value (they are never inserted and
/// never match). Errors when the column's type cannot be a key.
pub fn xxhash64_column(array: &dyn Array, ty: SparkType, seeds: &mut [u64]) -> Result<()> {
    debug_assert_eq!(array.len(), seeds.len());
    let keys = CanonicalKeys::try_new(array)?;
    let num = |m: i256, scale: u8, seed: u64, canonical: &[u8]| {
        ty.hash_number(m, scale, seed)
            .unwrap_or_else(|| fallback(canonical, seed))
    };
    match &keys {
        CanonicalKeys::Int(v) => {
            for (s, &x) in seeds.iter_mut().zip(v) {
                *s = num(i256::from_i128(x as i128), 0, *s, &x.to_le_bytes());
            }
        }
        CanonicalKeys::Wide(v) => {
            for (s, &x) in seeds.iter_mut().zip(v) {
                // The canonical form: 8 bytes when the value fits i64, else 16.
                let canonical = (x as u128).to_le_bytes();
                let n = if x <= i64::MAX as u64 { 8 } else { 16 };
                *s = num(i256::from_i128(x as i128), 0, *s, &canonical[..n]);
            }
        }
        CanonicalKeys::Num(b) => {
            for (i, s) in seeds.iter_mut().enumerate() {
                if b.is_null(i) {
                    continue;
                }
                let c = b.value(i);
                let (m, scale) = parse_canonical(c);
                *s = num(m, scale, *s, c);
            }
        }
        CanonicalKeys::Time(v) => {
            for (s, &ns) in seeds.iter_mut().zip(v) {
                let mut buf = [0u8; 16];
                let n = crate::key::canonical_timestamp(ns, &mut buf);
                *s = ty
                    .hash_timestamp(ns, *s)
                    .unwrap_or_else(|| fallback(&buf[..n], *s));
            }
        }
        CanonicalKeys::Bytes(b) => {
            for (i, s) in seeds.iter_mut().enumerate() {
                let v = b.value(i);
                *s = ty.hash_bytes(v, *s).unwrap_or_else(|| fallback(v, *s));
            }
        }
    }
    Ok(())
}

/// A canonical number's bytes (8, 16, 32 or 33; see [`crate::key::canonical_number`]) as
/// mantissa and scale.
fn parse_canonical(c: &[u8]) -> (i256, u8) {
    match c.len() {
        8 => (
            i256::from_i128(i64::from_le_bytes(c.try_into().expect("8")) as i128),
            0,
        ),
        16 => (
            i256::from_i128(i128::from_le_bytes(c.try_into().expect("16"))),
            0,
        ),
        32 => (i256::from_le_bytes(c.try_into().expect("32")), 0),
        _ => (i256::from_le_bytes(c[..32].try_into().expect("33")), c[32]),
    }
}

/// The `xxhash64` long of one text key (a line of `probe`): a number (integer family), a
/// timestamp, or the text's bytes, as `ty`.
pub fn xxhash64_text(text: &str, family: KeyFamily, ty: SparkType) -> Result<u64> {
    let array = text_key_array(text, family, false)?;
    let mut seeds = [XXHASH64_SEED];
    xxhash64_column(array.as_ref(), ty, &mut seeds)?;
    Ok(seeds[0])
}

/// Spark's `xxhash64(c1, c2, ...)` of the rows of a composite key, one array per column,
/// each hashed as its Spark type in `types`, chained through the seeds as Spark chains them
/// (see [`xxhash64_column`]); one long per row into `out` (replacing what it held). Rows
/// with a null column get some long: they are never inserted and never match.
pub fn xxhash64_columns(
    columns: &[&dyn Array],
    types: &[SparkType],
    out: &mut Vec<u64>,
) -> Result<()> {
    if columns.len() != types.len() || columns.is_empty() {
        return Err(Error::Internal(format!(
            "xxhash64 of {} key columns with {} Spark types",
            columns.len(),
            types.len()
        )));
    }
    out.clear();
    out.resize(columns[0].len(), XXHASH64_SEED);
    for (c, t) in columns.iter().zip(types) {
        xxhash64_column(*c, *t, out)?;
    }
    Ok(())
}

/// The `xxhash64` long of one text tuple (the tab-separated fields of a `probe` line):
/// field `i` parsed as a key of `families[i]` (`dates[i]`: `YYYY-MM-DD` is its day number),
/// hashed as `types[i]`, chained as [`xxhash64_columns`] does.
pub fn xxhash64_text_tuple(
    fields: &[&str],
    families: &[KeyFamily],
    dates: &[bool],
    types: &[SparkType],
) -> Result<u64> {
    crate::key::tuple::check_text_arity(fields, families)?;
    let mut seeds = [XXHASH64_SEED];
    for (i, ((t, fam), ty)) in fields.iter().zip(families).zip(types).enumerate() {
        let is_date = dates.get(i).copied().unwrap_or(false);
        text_key_array(t, *fam, is_date)
            .and_then(|a| xxhash64_column(a.as_ref(), *ty, &mut seeds))
            .map_err(|e| {
                Error::Usage(format!("field {}: {}", i + 1, crate::error::one_line(&e)))
            })?;
    }
    Ok(seeds[0])
}

/// The error for a time-of-day key in a Spark filter.
pub(crate) fn spark_time() -> Error {
    Error::Usage(
        "time-of-day keys cannot go into a Spark filter: Spark's BloomFilter has no TIME type (cast the key to a string, or train our format)".into(),
    )
}

/// One text key as a one-row array of its family: a number (integer family; `is_date`:
/// `YYYY-MM-DD` too, as its day number), a timestamp, or the text's bytes.
fn text_key_array(text: &str, family: KeyFamily, is_date: bool) -> Result<arrow::array::ArrayRef> {
    use arrow::array::{
        ArrayRef, Decimal256Array, Int64Array, StringArray, TimestampNanosecondArray,
    };
    let array: ArrayRef = match family {
        KeyFamily::Integer => {
            let t = text.trim();
            let day = || crate::expr::parse_date(t).ok().filter(|_| is_date);
            match t.parse::<i64>() {
                Ok(v) => std::sync::Arc::new(Int64Array::from(vec![v])),
                Err(_) if day().is_some() => {
                    std::sync::Arc::new(Int64Array::from(vec![day().expect("a date") as i64]))
                }
                Err(_) => {
                    let (m, scale) = crate::key::parse_number(t).ok_or_else(|| {
                        Error::Usage(format!(
                            "key {text:?} is not a number, and the filter holds integer keys"
                        ))
                    })?;
                    std::sync::Arc::new(
                        Decimal256Array::from(vec![m])
                            .with_precision_and_scale(76, scale)
                            .map_err(|e| Error::arrow("decimal key", e))?,
                    )
                }
            }
        }
        KeyFamily::Bytes => std::sync::Arc::new(StringArray::from(vec![text])),
        KeyFamily::Timestamp | KeyFamily::TimestampTz => {
            let t = text.trim();
            let t = t
                .strip_suffix('Z')
                .or_else(|| t.strip_suffix("+00:00"))
                .unwrap_or(t);
            let ns = crate::expr::parse_timestamp(t).map_err(|_| {
                Error::Usage(format!(
                    "key {text:?} is not a timestamp (YYYY-MM-DD HH:MM:SS with up to 9 fractional digits), and the filter holds {family} keys"
                ))
            })?;
            let ns = i64::try_from(ns).map_err(|_| {
                Error::Usage(format!("timestamp key {text:?} is outside the years 1677 to 2262"))
            })?;
            std::sync::Arc::new(TimestampNanosecondArray::from(vec![ns]))
        }
        KeyFamily::Any => {
            return Err(Error::Usage(
                "the filter does not record its key family (Spark format): say whether the keys are integers, bytes or timestamps".into(),
            ))
        }
        KeyFamily::Tuple => {
            return Err(Error::Usage(
                "the filter holds composite keys: give one tab-separated field per key column"
                    .into(),
            ))
        }
        KeyFamily::Time => return Err(spark_time()),
    };
    Ok(array)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::*;

    use super::*;

    fn strings(v: &[&str]) -> StringArray {
        StringArray::from(v.to_vec())
    }

    fn one(a: &dyn Array, ty: SparkType) -> Vec<i64> {
        let mut seeds = vec![XXHASH64_SEED; a.len()];
        xxhash64_column(a, ty, &mut seeds).unwrap();
        seeds.into_iter().map(|s| s as i64).collect()
    }

    /// Values of Spark 4 itself (`SELECT xxhash64(...)` in Spark SQL), including the
    /// documentation's example `xxhash64('Spark', array(123), 2)` = 5602566077635097486,
    /// which chains the seed through the columns.
    #[test]
    fn xxhash64_equals_sparks() {
        let mut seeds = [XXHASH64_SEED];
        xxhash64_column(&strings(&["Spark"]), SparkType::String, &mut seeds).unwrap();
        xxhash64_column(&Int32Array::from(vec![123]), SparkType::Int, &mut seeds).unwrap();
        xxhash64_column(&Int32Array::from(vec![2]), SparkType::Int, &mut seeds).unwrap();
        assert_eq!(seeds[0] as i64, 5602566077635097486);
    }

    /// Composite keys: values of Spark 4 itself (`SELECT xxhash64(CAST(1 AS BIGINT), 'a')`,
    /// `xxhash64(1, 2)` of two INTs, and `xxhash64(CAST(7.00 AS DECIMAL(10,2)),
    /// TIMESTAMP_NTZ'1970-01-01 00:00:01', CAST(5 AS DECIMAL(20,0)))`); a text tuple (probe)
    /// hashes as the columns do. Spark leaves the seed unchanged for a null column
    /// (`xxhash64(CAST(1 AS BIGINT), NULL)` = `xxhash64(CAST(1 AS BIGINT))`): we never insert
    /// such a row.
    #[test]
    fn xxhash64_of_composite_keys_equals_sparks() {
        let row = |cols: &[&dyn Array], types: &[SparkType]| {
            let mut out = Vec::new();
            xxhash64_columns(cols, types, &mut out).unwrap();
            out[0] as i64
        };
        let one = Int64Array::from(vec![1]);
        let a = strings(&["a"]);
        let two = [SparkType::Bigint, SparkType::String];
        assert_eq!(row(&[&one, &a], &two), -8527884376001292090);
        // Spark's xxhash64(CAST(1 AS BIGINT), NULL): the one column's (such rows are never
        // inserted: a null never joins).
        assert_eq!(row(&[&one], &[SparkType::Bigint]), -7001672635703045582);
        assert_eq!(
            row(
                &[&Int32Array::from(vec![1]), &Int32Array::from(vec![2])],
                &[SparkType::Int; 2]
            ),
            -8133857028838179022
        );
        let d = Decimal128Array::from(vec![700])
            .with_precision_and_scale(10, 2)
            .unwrap();
        let ts = TimestampMicrosecondArray::from(vec![1_000_000]);
        let five = UInt64Array::from(vec![5]);
        let three = [
            SparkType::Decimal(10, 2),
            SparkType::Timestamp,
            SparkType::Decimal(20, 0),
        ];
        assert_eq!(row(&[&d, &ts, &five], &three), 6097242733870265653);
        // Text tuples.
        let fams = [KeyFamily::Integer, KeyFamily::Bytes];
        assert_eq!(
            xxhash64_text_tuple(&["1", "a"], &fams, &[], &two).unwrap() as i64,
            -8527884376001292090
        );
        let fams3 = [KeyFamily::Integer, KeyFamily::Timestamp, KeyFamily::Integer];
        assert_eq!(
            xxhash64_text_tuple(&["7", "1970-01-01 00:00:01", "5"], &fams3, &[], &three).unwrap()
                as i64,
            6097242733870265653
        );
        let e = xxhash64_text_tuple(&["x", "a"], &fams, &[], &two).unwrap_err();
        assert!(e.to_string().contains("field 1"), "{e}");
        let e = xxhash64_text_tuple(&["1"], &fams, &[], &two).unwrap_err();
        assert!(e.to_string().contains("1 tab-separated fields"), "{e}");
        // Dates: a DATE column is an INT of its day.
        assert_eq!(
            xxhash64_text_tuple(
                &["1970-01-02", "1"],
                &[KeyFamily::Integer; 2],
                &[true, false],
                &[SparkType::Int; 2]
            )
            .unwrap(),
            xxhash64_text_tuple(
                &["1", "1"],
                &[KeyFamily::Integer; 2],
                &[],
                &[SparkType::Int; 2]
            )
            .unwrap()
        );
        // Types round-trip through their names (the metadata's spark_type).
        for t in [
            SparkType::Int,
            SparkType::Decimal(38, 10),
            SparkType::String,
            SparkType::Timestamp,
            SparkType::Bigint,
        ] {
            assert_eq!(t.to_string().parse::<SparkType>().unwrap(), t);
        }
        assert!("decimal(3,4)".parse::<SparkType>().is_err());
        assert!("float".parse::<SparkType>().is_err());
    }

    #[test]
    fn java_big_integer_bytes() {
        assert_eq!(big_integer_bytes(0), [0]);
        assert_eq!(big_integer_bytes(127), [127]);
        assert_eq!(big_integer_bytes(128), [0, 128]);
        assert_eq!(big_integer_bytes(-1), [0xff]);
        assert_eq!(big_integer_bytes(-128), [0x80]);
        assert_eq!(big_integer_bytes(-129), [0xff, 0x7f]);
        assert_eq!(big_integer_bytes(1 << 64), [1, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(big_integer_bytes(i128::MIN).len(), 16);
    }

    /// Keys are hashed as the filter's Spark type: a value the type holds as Spark would,
    /// whatever the key column's own type; any other value to its fallback.
    #[test]
    fn keys_hash_as_the_filters_spark_type() {
        let x = |b: &[u8]| xxh64(b, XXHASH64_SEED) as i64;
        let ints = Int64Array::from(vec![7, -1, 1 << 40]);
        assert_eq!(
            one(&ints, SparkType::Int),
            [
                x(&7i32.to_le_bytes()),
                x(&(-1i32).to_le_bytes()),
                fallback(&(1i64 << 40).to_le_bytes(), 42) as i64
            ]
        );
        assert_eq!(
            one(&Int8Array::from(vec![7]), SparkType::Bigint),
            [x(&7i64.to_le_bytes())]
        );
        assert_eq!(
            one(&BooleanArray::from(vec![true]), SparkType::Int),
            [x(&1i32.to_le_bytes())]
        );
        assert_eq!(
            one(&Date32Array::from(vec![19_000]), SparkType::Int),
            [x(&19_000i32.to_le_bytes())]
        );
        // Decimals: the unscaled long at the type's scale; p > 18 the BigInteger bytes.
        let d = Decimal128Array::from(vec![Some(150), Some(700), None, Some(1)])
            .with_precision_and_scale(10, 2)
            .unwrap();
        let got = one(&d, SparkType::Decimal(10, 2));
        assert_eq!(got[0], x(&150i64.to_le_bytes()));
        assert_eq!(got[1], x(&700i64.to_le_bytes()));
        assert_eq!(got[3], x(&1i64.to_le_bytes()));
        // 1.5 of DECIMAL(5,1) and the integer 7 as DECIMAL(10,2): the same longs.
        let d1 = Decimal128Array::from(vec![15])
            .with_precision_and_scale(5, 1)
            .unwrap();
        assert_eq!(one(&d1, SparkType::Decimal(10, 2))[0], got[0]);
        assert_eq!(
            one(&Int32Array::from(vec![7]), SparkType::Decimal(10, 2))[0],
            got[1]
        );
        // 0.001 is no DECIMAL(10,2); 10^9 does not fit its precision: fallbacks.
        let d3 = Decimal128Array::from(vec![1])
            .with_precision_and_scale(10, 3)
            .unwrap();
        let mut c = [0u8; 33];
        let n = crate::key::canonical_number(i256::from_i128(1), 3, &mut c).unwrap();
        assert_eq!(
            one(&d3, SparkType::Decimal(10, 2))[0],
            fallback(&c[..n], 42) as i64
        );
        let big = UInt64Array::from(vec![u64::MAX, 5]);
        let got = one(&big, SparkType::Decimal(20, 0));
        assert_eq!(got[0], x(&big_integer_bytes(u64::MAX as i128)));
        assert_eq!(got[1], x(&[5]));
        // Timestamps: microseconds, any unit.
        let ts = TimestampMillisecondArray::from(vec![1_500]);
        assert_eq!(
            one(&ts, SparkType::Timestamp),
            [x(&1_500_000i64.to_le_bytes())]
        );
        // Strings and binary of every kind: their bytes.
        let s: ArrayRef = Arc::new(LargeStringArray::from(vec!["abc"]));
        let b: ArrayRef = Arc::new(BinaryViewArray::from(vec![&b"abc"[..]]));
        assert_eq!(one(s.as_ref(), SparkType::String), [x(b"abc")]);
        assert_eq!(one(b.as_ref(), SparkType::String), [x(b"abc")]);
        // Text keys (probe) hash like columns.
        assert_eq!(
            xxhash64_text("1.50", KeyFamily::Integer, SparkType::Decimal(10, 2)).unwrap() as i64,
            x(&150i64.to_le_bytes())
        );
        assert_eq!(
            xxhash64_text("abc", KeyFamily::Bytes, SparkType::String).unwrap() as i64,
            x(b"abc")
        );
        assert_eq!(
            xxhash64_text(
                "1970-01-01 00:00:01.5",
                KeyFamily::Timestamp,
                SparkType::Timestamp
            )
            .unwrap() as i64,
            x(&1_500_000i64.to_le_bytes())
        );
    }

    #[test]
    fn spark_types_of_arrow_types_and_codes() {
        use arrow::datatypes::{DataType as D, TimeUnit};
        for (t, want) in [
            (D::Int16, SparkType::Int),
            (D::UInt16, SparkType::Int),
            (D::Boolean, SparkType::Int),
            (D::Date32, SparkType::Int),
            (D::Int64, SparkType::Bigint),
            (D::UInt32, SparkType::Bigint),
            (D::UInt64, SparkType::Decimal(20, 0)),
            (D::Decimal128(38, 10), SparkType::Decimal(38, 10)),
            (
                D::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
                SparkType::Timestamp,
            ),
            (D::Utf8View, SparkType::String),
            (D::FixedSizeBinary(16), SparkType::String),
            (
                D::Dictionary(Box::new(D::Int32), Box::new(D::LargeUtf8)),
                SparkType::String,
            ),
        ] {
            let got = SparkType::of(&t, "k").unwrap();
            assert_eq!(got, want, "{t}");
            assert_eq!(SparkType::from_code(got.code()), Some(got));
        }
        for bad in [D::Decimal256(40, 0), D::Decimal128(10, -2), D::Float64] {
            let e = SparkType::of(&bad, "k").unwrap_err().to_string();
            assert!(e.contains("column \"k\""), "{e}");
        }
        assert_eq!(SparkType::from_code([3, 10, 11]), None);
        assert_eq!(SparkType::from_code([6, 0, 0]), None);
    }
}
