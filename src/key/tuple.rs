//! Composite keys: a tuple of canonical keys (`train --column a,b`, `join --left-key a,b`),
//! hashed in one pass over the component arrays, without building a binary row.
//!
//! A one-component tuple is an ordinary key and hashes exactly as [`super::hash_array_into`].
//! For two or more components the hash runs a 64-bit state `a` through the components, with
//! the filter's seed `s` and XXH3-64 (see docs/FORMAT.md, "Composite keys"):
//!
//! - start: `a` is the first component's value as 64 bits when its canonical form is an
//!   8-byte form (an integer that fits `i64`, a `Date32` day, a boolean, a decimal with an
//!   integer value, a timestamp's nanoseconds that fit `i64`), else `XXH3(form, s)`;
//! - each further component with canonical form `c`: `a = XXH3(le8(a) ++ c, s)`.
//!
//! So a tuple of two integers is XXH3 of their 16 canonical bytes (`le8(x) ++ le8(y)`), one
//! call of XXH3's 9-to-16-byte path ([`hash_pair`]), as cheap as one integer key. A null in
//! any component makes the tuple null: never inserted, never matched.

use arrow::array::{Array, AsArray, PrimitiveArray};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Date64Type, Decimal128Type, Decimal256Type,
    Decimal32Type, Decimal64Type, DecimalType, Int16Type, Int32Type, Int64Type, Int8Type,
    UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::{
    canonical_number, date64_days, parse_number, unit_ns, unrepresentable_decimal, unsupported,
    CanonicalKeys, KeyFamily, ToI256, WidenToI64,
};
use crate::error::{Error, Result};

/// XXH3-64 with `seed` of the 16 bytes `le8(a) ++ le8(b)`: XXH3's path for 9 to 16 input
/// bytes written out for exactly 16, as [`super::hash_i64`] is for 8. Equal to
/// `xxh3_64_with_seed(&[a.to_le_bytes(), b.to_le_bytes()].concat(), seed)`; a test pins it.
#[inline(always)]
pub fn hash_pair(a: u64, b: u64, seed: u64) -> u64 {
    pair::<false>(a, b, seed)
}

/// The low and the high 64 bits of the 128-bit product `a * b`, XORed (XXH3's
/// `mul128_fold64`). `SPLIT`: from four 32 x 32-bit products, which vectorize (AVX-512 has no
/// 64 x 64 -> 128-bit multiply); otherwise one 128-bit multiply. The same value either way.
#[inline(always)]
fn mul_fold64<const SPLIT: bool>(a: u64, b: u64) -> u64 {
    if SPLIT {
        const LOW: u64 = 0xffff_ffff;
        let (a0, a1, b0, b1) = (a & LOW, a >> 32, b & LOW, b >> 32);
        let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
        let mid = (p00 >> 32) + (p01 & LOW) + (p10 & LOW);
        let lo = (mid << 32) | (p00 & LOW);
        let hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
        lo ^ hi
    } else {
        let m = (a as u128).wrapping_mul(b as u128);
        (m as u64) ^ ((m >> 64) as u64)
    }
}

/// [`hash_pair`], with the multiply of [`mul_fold64`].
#[inline(always)]
fn pair<const SPLIT: bool>(a: u64, b: u64, seed: u64) -> u64 {
    // Bytes 24..32, 32..40, 40..48 and 48..56 of the XXH3 default secret.
    const S24: u64 = 0x1f67_b3b7_a4a4_4072;
    const S32: u64 = 0x78e5_c0cc_4ee6_79cb;
    const S40: u64 = 0x2172_ffcc_7dd0_5a82;
    const S48: u64 = 0x8e24_43f7_7446_08b8;
    const PRIME_MX1: u64 = 0x1656_6791_9E37_79F9;
    let lo = a ^ (S24 ^ S32).wrapping_add(seed);
    let hi = b ^ (S40 ^ S48).wrapping_sub(seed);
    let mut h = 16u64
        .wrapping_add(lo.swap_bytes())
        .wrapping_add(hi)
        .wrapping_add(mul_fold64::<SPLIT>(lo, hi));
    h ^= h >> 37;
    h = h.wrapping_mul(PRIME_MX1);
    h ^ (h >> 32)
}

/// One component's canonical form, as the tuple hash consumes it.
#[derive(Debug, Clone, Copy)]
pub enum Canon<'a> {
    /// An 8-byte form (an integer's value, a timestamp's nanoseconds, as `i64`).
    Int(i64),
    /// Any other canonical form: a wide integer (16 bytes), a decimal's number form (16, 32
    /// or 33 bytes), a bytes key's bytes.
    Bytes(&'a [u8]),
}

/// The state after the first component.
#[inline(always)]
fn start(c: Canon<'_>, seed: u64) -> u64 {
    match c {
        Canon::Int(v) => v as u64,
        Canon::Bytes(b) => xxh3_64_with_seed(b, seed),
    }
}

/// The state after one more component; `buf` is scratch space.
#[inline(always)]
fn step(a: u64, c: Canon<'_>, seed: u64, buf: &mut Vec<u8>) -> u64 {
    match c {
        Canon::Int(v) => hash_pair(a, v as u64, seed),
        Canon::Bytes(b) => {
            buf.clear();
            buf.extend_from_slice(&a.to_le_bytes());
            buf.extend_from_slice(b);
            xxh3_64_with_seed(buf, seed)
        }
    }
}

/// The hash of one tuple given by its components' canonical forms (at least one). One
/// component: the ordinary key hash.
pub fn hash_canon_tuple(parts: &[Canon<'_>], seed: u64) -> u64 {
    match parts {
        [] => start(Canon::Bytes(&[]), seed),
        [one] => match one {
            Canon::Int(v) => super::hash_i64(*v, seed),
            Canon::Bytes(b) => xxh3_64_with_seed(b, seed),
        },
        [first, rest @ ..] => {
            let mut buf = Vec::new();
            rest.iter()
                .fold(start(*first, seed), |a, c| step(a, *c, seed, &mut buf))
        }
    }
}

/// Hash the rows of a composite key, one array per component (all of one length), with
/// `seed` into `out` (cleared first). Returns each component's family. One component hashes
/// exactly as [`super::hash_array_into`]. Null slots (in any component) hold an unspecified
/// hash; see [`tuple_nulls`].
pub fn hash_tuple_into(
    columns: &[&dyn Array],
    seed: u64,
    out: &mut Vec<u64>,
) -> Result<Vec<KeyFamily>> {
    match columns {
        [] => Err(Error::Internal("a key of no columns".into())),
        [one] => Ok(vec![super::hash_array_into(*one, seed, out)?]),
        [first, rest @ ..] => {
            out.clear();
            let n = first.len();
            if rest.iter().any(|c| c.len() != n) {
                return Err(Error::Internal("key columns of different lengths".into()));
            }
            if let [second] = rest {
                // Two integer columns (the common composite key): one fused pass.
                let (mut s1, mut s2) = (Vec::new(), Vec::new());
                if let (Some(x), Some(y)) = (as_i64s(*first, &mut s1), as_i64s(*second, &mut s2)) {
                    out.resize(n, 0);
                    fused_pairs(x, y, seed, out);
                    return Ok(vec![KeyFamily::Integer, KeyFamily::Integer]);
                }
            }
            let mut families = Vec::with_capacity(columns.len());
            families.push(component(*first, seed, true, out)?);
            for c in rest {
                families.push(component(*c, seed, false, out)?);
            }
            Ok(families)
        }
    }
}

/// The values of an integer column whose canonical forms are all the 8-byte form, as `i64`:
/// an `Int64` column's own values, other widths widened into `scratch`. `None` for other
/// types (and `UInt64` values above `i64::MAX`).
fn as_i64s<'a>(array: &'a dyn Array, scratch: &'a mut Vec<i64>) -> Option<&'a [i64]> {
    fn widen<T: ArrowPrimitiveType>(a: &dyn Array, scratch: &mut Vec<i64>)
    where
        T::Native: WidenToI64,
    {
        scratch.clear();
        scratch.extend(a.as_primitive::<T>().values().iter().map(|v| v.widen()));
    }
    match array.data_type() {
        DataType::Int64 => return Some(array.as_primitive::<Int64Type>().values()),
        DataType::Int8 => widen::<Int8Type>(array, scratch),
        DataType::Int16 => widen::<Int16Type>(array, scratch),
        DataType::Int32 => widen::<Int32Type>(array, scratch),
        DataType::UInt8 => widen::<UInt8Type>(array, scratch),
        DataType::UInt16 => widen::<UInt16Type>(array, scratch),
        DataType::UInt32 => widen::<UInt32Type>(array, scratch),
        DataType::Date32 => widen::<Date32Type>(array, scratch),
        DataType::UInt64 => {
            let v = array.as_primitive::<UInt64Type>().values();
            if v.iter().any(|&x| x > i64::MAX as u64) {
                return None;
            }
            widen::<UInt64Type>(array, scratch)
        }
        _ => return None,
    }
    Some(scratch)
}

/// `out[i] = hash_pair(x[i], y[i], seed)`: a tuple of two integers in one pass.
fn fused_pairs(x: &[i64], y: &[i64], seed: u64, out: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if simd_pairs() {
        // SAFETY: simd_pairs checked that the CPU has AVX-512 F, DQ, VL and BW.
        return unsafe { fused_pairs_avx512(x, y, seed, out) };
    }
    fused_pairs_with::<false>(x, y, seed, out)
}

#[inline(always)]
fn fused_pairs_with<const SPLIT: bool>(x: &[i64], y: &[i64], seed: u64, out: &mut [u64]) {
    for ((o, &a), &b) in out.iter_mut().zip(x).zip(y) {
        *o = pair::<SPLIT>(a as u64, b as u64, seed);
    }
}

/// [`fused_pairs`] compiled for AVX-512 (see [`pair_steps_avx512`]). Same values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
fn fused_pairs_avx512(x: &[i64], y: &[i64], seed: u64, out: &mut [u64]) {
    fused_pairs_with::<true>(x, y, seed, out)
}

/// The validity of a composite key's rows: valid where every component is.
pub fn tuple_nulls(columns: &[&dyn Array]) -> Option<NullBuffer> {
    columns.iter().fold(None, |acc, c| {
        NullBuffer::union(acc.as_ref(), c.logical_nulls().as_ref())
    })
}

/// The mark a null component stands for in [`hash_null_rows`] (the bytes of "nullkey_").
const NULL_COMPONENT: u64 = 0x5f79_656b_6c6c_756e;

/// Under `--nulls-equal`: give each row of `columns` that has a null component (in any) the
/// hash of its null-aware form, in place in `out` (the rows' hashes from
/// [`hash_tuple_into`], whose null rows hold an unspecified hash). The form folds, with
/// [`hash_pair`], each component's one-column key hash ([`super::hash_array_into`]) or, where
/// the component is null, a fixed mark. Rows that are not distinct (SQL's `IS NOT DISTINCT
/// FROM`, per component) get the same hash whatever their columns' types, as equal keys do;
/// rows without a null keep theirs.
pub fn hash_null_rows(columns: &[&dyn Array], seed: u64, out: &mut [u64]) -> Result<()> {
    let Some(valid) = tuple_nulls(columns).filter(|v| v.null_count() > 0) else {
        return Ok(());
    };
    if out.len() != valid.len() {
        return Err(Error::Internal("key hashes and rows out of step".into()));
    }
    let mut parts = Vec::with_capacity(columns.len());
    for c in columns {
        let mut h = Vec::new();
        super::hash_array_into(*c, seed, &mut h)?;
        parts.push((h, c.logical_nulls()));
    }
    for i in (0..out.len()).filter(|&i| valid.is_null(i)) {
        out[i] = parts.iter().fold(NULL_COMPONENT ^ seed, |acc, (h, n)| {
            let v = match n.as_ref().is_none_or(|n| n.is_valid(i)) {
                true => h[i],
                false => NULL_COMPONENT,
            };
            hash_pair(acc, v, seed)
        });
    }
    Ok(())
}

/// Fold one component into the states `out` (`first`: start them, `out` empty).
fn component(array: &dyn Array, seed: u64, first: bool, out: &mut Vec<u64>) -> Result<KeyFamily> {
    let dt = array.data_type();
    let family = KeyFamily::of(dt).ok_or_else(|| unsupported(dt))?;
    if let DataType::Dictionary(_, v) = dt {
        let unpacked =
            arrow::compute::cast(array, v).map_err(|e| Error::arrow("unpack key dictionary", e))?;
        return component(unpacked.as_ref(), seed, first, out);
    }
    match dt {
        DataType::Int8 => ints::<Int8Type>(array, seed, first, out),
        DataType::Int16 => ints::<Int16Type>(array, seed, first, out),
        DataType::Int32 => ints::<Int32Type>(array, seed, first, out),
        DataType::Int64 => ints::<Int64Type>(array, seed, first, out),
        DataType::UInt8 => ints::<UInt8Type>(array, seed, first, out),
        DataType::UInt16 => ints::<UInt16Type>(array, seed, first, out),
        DataType::UInt32 => ints::<UInt32Type>(array, seed, first, out),
        DataType::Date32 => ints::<Date32Type>(array, seed, first, out),
        DataType::UInt64
            if array
                .as_primitive::<UInt64Type>()
                .values()
                .iter()
                .all(|&v| v <= i64::MAX as u64) =>
        {
            ints::<UInt64Type>(array, seed, first, out)
        }
        _ => {
            if first {
                out.resize(array.len(), 0);
            }
            let mut buf = Vec::new();
            for_each_canon(array, |i, c| {
                out[i] = if first {
                    start(c, seed)
                } else {
                    step(out[i], c, seed, &mut buf)
                };
            })?;
        }
    }
    Ok(family)
}

/// An integer component (values that fit `i64`): the fast path.
fn ints<T: ArrowPrimitiveType>(array: &dyn Array, seed: u64, first: bool, out: &mut Vec<u64>)
where
    T::Native: WidenToI64,
{
    let values = array.as_primitive::<T>().values();
    if first {
        out.extend(values.iter().map(|&v| v.widen() as u64));
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if simd_pairs() {
        // SAFETY: simd_pairs checked that the CPU has AVX-512 F, DQ, VL and BW.
        return unsafe { pair_steps_avx512(values, seed, out) };
    }
    pair_steps::<T::Native, false>(values, seed, out);
}

#[inline(always)]
fn pair_steps<T: WidenToI64, const SPLIT: bool>(values: &[T], seed: u64, out: &mut [u64]) {
    for (a, &v) in out.iter_mut().zip(values) {
        *a = pair::<SPLIT>(*a, v.widen() as u64, seed);
    }
}

/// Whether the CPU runs [`pair_steps_avx512`].
#[cfg(target_arch = "x86_64")]
fn simd_pairs() -> bool {
    super::simd_hash() && std::arch::is_x86_feature_detected!("avx512bw")
}

/// [`pair_steps`] compiled for AVX-512, with the multiply split into 32-bit halves so that
/// the compiler hashes 8 pairs per instruction (byte swaps need AVX-512 BW). Same values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
fn pair_steps_avx512<T: WidenToI64>(values: &[T], seed: u64, out: &mut [u64]) {
    pair_steps::<T, true>(values, seed, out)
}

/// Call `f(slot, form)` with the canonical form of every slot of a key array (not a
/// dictionary). Null slots may be skipped. Errors for a type that cannot be a key and for a
/// non-null decimal beyond 256 bits.
fn for_each_canon(array: &dyn Array, mut f: impl FnMut(usize, Canon<'_>)) -> Result<()> {
    fn prim<T: ArrowPrimitiveType>(a: &dyn Array, f: &mut impl FnMut(usize, Canon<'_>))
    where
        T::Native: WidenToI64,
    {
        for (i, &v) in a.as_primitive::<T>().values().iter().enumerate() {
            f(i, Canon::Int(v.widen()));
        }
    }
    fn dec<T: DecimalType>(
        a: &dyn Array,
        scale: i8,
        f: &mut impl FnMut(usize, Canon<'_>),
    ) -> Result<()>
    where
        T::Native: ToI256,
    {
        let a: &PrimitiveArray<T> = a.as_primitive::<T>();
        let nulls = a.logical_nulls();
        for (i, v) in a.values().iter().enumerate() {
            match with_number_canon(v.to_i256(), scale, |c| f(i, c)) {
                Some(()) => {}
                None if nulls.as_ref().is_some_and(|n| n.is_null(i)) => {}
                None => return Err(unrepresentable_decimal(v.to_i256(), scale)),
            }
        }
        Ok(())
    }
    let dt = array.data_type();
    match dt {
        DataType::Int8 => prim::<Int8Type>(array, &mut f),
        DataType::Int16 => prim::<Int16Type>(array, &mut f),
        DataType::Int32 => prim::<Int32Type>(array, &mut f),
        DataType::Int64 => prim::<Int64Type>(array, &mut f),
        DataType::UInt8 => prim::<UInt8Type>(array, &mut f),
        DataType::UInt16 => prim::<UInt16Type>(array, &mut f),
        DataType::UInt32 => prim::<UInt32Type>(array, &mut f),
        DataType::Date32 => prim::<Date32Type>(array, &mut f),
        DataType::UInt64 => {
            for (i, &v) in array
                .as_primitive::<UInt64Type>()
                .values()
                .iter()
                .enumerate()
            {
                with_wide_canon(v.into(), |c| f(i, c));
            }
        }
        DataType::Date64 => {
            for (i, &ms) in array
                .as_primitive::<Date64Type>()
                .values()
                .iter()
                .enumerate()
            {
                f(i, Canon::Int(date64_days(ms)));
            }
        }
        DataType::Boolean => {
            for (i, b) in array.as_boolean().values().iter().enumerate() {
                f(i, Canon::Int(b as i64));
            }
        }
        DataType::Decimal32(_, s) => dec::<Decimal32Type>(array, *s, &mut f)?,
        DataType::Decimal64(_, s) => dec::<Decimal64Type>(array, *s, &mut f)?,
        DataType::Decimal128(_, s) => dec::<Decimal128Type>(array, *s, &mut f)?,
        DataType::Decimal256(_, s) => dec::<Decimal256Type>(array, *s, &mut f)?,
        DataType::Utf8 => {
            for (i, v) in array.as_string::<i32>().iter().enumerate() {
                f(i, Canon::Bytes(v.unwrap_or_default().as_bytes()));
            }
        }
        DataType::LargeUtf8 => {
            for (i, v) in array.as_string::<i64>().iter().enumerate() {
                f(i, Canon::Bytes(v.unwrap_or_default().as_bytes()));
            }
        }
        DataType::Utf8View => {
            let a = array.as_string_view();
            for i in 0..a.len() {
                f(i, Canon::Bytes(a.value(i).as_bytes()));
            }
        }
        DataType::Binary => {
            for (i, v) in array.as_binary::<i32>().iter().enumerate() {
                f(i, Canon::Bytes(v.unwrap_or_default()));
            }
        }
        DataType::LargeBinary => {
            for (i, v) in array.as_binary::<i64>().iter().enumerate() {
                f(i, Canon::Bytes(v.unwrap_or_default()));
            }
        }
        DataType::BinaryView => {
            let a = array.as_binary_view();
            for i in 0..a.len() {
                f(i, Canon::Bytes(a.value(i)));
            }
        }
        DataType::FixedSizeBinary(_) => {
            let a = array.as_fixed_size_binary();
            for i in 0..a.len() {
                f(i, Canon::Bytes(a.value(i)));
            }
        }
        DataType::Timestamp(unit, _) => {
            let unit = unit_ns(unit) as i128;
            for (i, &v) in super::timestamp_values(array).iter().enumerate() {
                with_wide_canon(v as i128 * unit, |c| f(i, c));
            }
        }
        // Any other key type: the canonical keys the join compares (the same forms).
        _ => match CanonicalKeys::try_new(array)? {
            CanonicalKeys::Time(v) => v
                .iter()
                .enumerate()
                .for_each(|(i, ns)| with_wide_canon(*ns, |c| f(i, c))),
            CanonicalKeys::Int(v) => v.iter().enumerate().for_each(|(i, x)| f(i, Canon::Int(*x))),
            CanonicalKeys::Wide(v) => v
                .iter()
                .enumerate()
                .for_each(|(i, x)| with_wide_canon((*x).into(), |c| f(i, c))),
            CanonicalKeys::Num(b) | CanonicalKeys::Bytes(b) => {
                let num = matches!(KeyFamily::of(dt), Some(KeyFamily::Integer));
                for (i, x) in b.iter().enumerate() {
                    match x {
                        Some(c) if num && c.len() == 8 => f(
                            i,
                            Canon::Int(i64::from_le_bytes(c.try_into().expect("8 bytes"))),
                        ),
                        Some(c) => f(i, Canon::Bytes(c)),
                        None => {}
                    }
                }
            }
        },
    }
    Ok(())
}

/// Call `f` with the canonical form of an integer of up to 128 bits: the 8-byte form when it
/// fits `i64`, else its 16 little-endian bytes. A `UInt64` of 2^63 and more, and a timestamp
/// component in nanoseconds since the epoch (as a one-column timestamp key, see
/// [`super::canonical_timestamp`]), take this form.
#[inline(always)]
fn with_wide_canon<R>(v: i128, f: impl FnOnce(Canon<'_>) -> R) -> R {
    match i64::try_from(v) {
        Ok(v) => f(Canon::Int(v)),
        Err(_) => f(Canon::Bytes(&v.to_le_bytes())),
    }
}

/// Call `f` with the canonical form of the number `m * 10^-scale` ([`canonical_number`]): the
/// 8-byte form of an integer that fits `i64`, else the number's bytes. `None` (and `f` not
/// called) for a number beyond 256 bits.
#[inline(always)]
fn with_number_canon<R>(
    m: arrow::datatypes::i256,
    scale: i8,
    f: impl FnOnce(Canon<'_>) -> R,
) -> Option<R> {
    let mut buf = [0u8; 33];
    Some(match canonical_number(m, scale, &mut buf)? {
        8 => f(Canon::Int(i64::from_le_bytes(
            buf[..8].try_into().expect("8 bytes"),
        ))),
        n => f(Canon::Bytes(&buf[..n])),
    })
}

/// Parse one component of a text key (a tab-separated field of a `probe` line) as a key of
/// `family` and call `f` with its canonical form. Integers parse by value (also decimals such
/// as `1.50`); `is_date`: `YYYY-MM-DD` is taken as its day number too.
pub fn with_text_canon<R>(
    text: &str,
    family: KeyFamily,
    is_date: bool,
    f: impl FnOnce(Canon<'_>) -> R,
) -> Result<R> {
    match family {
        KeyFamily::Bytes => Ok(f(Canon::Bytes(text.as_bytes()))),
        KeyFamily::Integer => {
            let t = text.trim();
            if let Ok(v) = t.parse::<i64>() {
                return Ok(f(Canon::Int(v)));
            }
            if is_date {
                if let Ok(days) = crate::expr::parse_date(t) {
                    return Ok(f(Canon::Int(days as i64)));
                }
            }
            let (m, scale) = parse_number(t).ok_or_else(|| {
                Error::Usage(format!(
                    "key {text:?} is not a number, and the filter holds integers"
                ))
            })?;
            with_number_canon(m, scale, f).ok_or_else(|| unrepresentable_decimal(m, scale))
        }
        KeyFamily::Timestamp | KeyFamily::TimestampTz => Ok(with_wide_canon(
            super::parse_text_timestamp(text, family)?,
            f,
        )),
        KeyFamily::Time => Ok(with_wide_canon(super::parse_text_time(text)?, f)),
        other => Err(Error::Usage(format!(
            "a key component of family {other}: say whether it is integer, bytes, timestamp, timestamptz or time"
        ))),
    }
}

/// Hash a text tuple (the fields of one `probe` line) whose components have `families`
/// (`dates[i]`: component `i` is a date column, `YYYY-MM-DD` accepted).
pub fn hash_text_tuple(
    fields: &[&str],
    families: &[KeyFamily],
    dates: &[bool],
    seed: u64,
) -> Result<u64> {
    check_text_arity(fields, families)?;
    let mut a = 0u64;
    let mut buf = Vec::new();
    for (i, (t, fam)) in fields.iter().zip(families).enumerate() {
        let is_date = dates.get(i).copied().unwrap_or(false);
        a = with_text_canon(t, *fam, is_date, |c| {
            if families.len() == 1 {
                hash_canon_tuple(&[c], seed)
            } else if i == 0 {
                start(c, seed)
            } else {
                step(a, c, seed, &mut buf)
            }
        })
        .map_err(|e| Error::Usage(format!("field {}: {}", i + 1, crate::error::one_line(&e))))?;
    }
    Ok(a)
}

/// A `probe` line's tab-separated fields must be as many as the key's columns.
pub fn check_text_arity(fields: &[&str], families: &[KeyFamily]) -> Result<()> {
    if fields.len() != families.len() {
        return Err(Error::Usage(format!(
            "{} tab-separated fields, but the key has {} columns",
            fields.len(),
            families.len()
        )));
    }
    Ok(())
}

/// The first `arity` columns of `batch`: the key columns of a batch the map stage handed on
/// (key columns first, in key order).
pub fn leading_key_columns(batch: &arrow::array::RecordBatch, arity: usize) -> Vec<&dyn Array> {
    batch.columns()[..arity]
        .iter()
        .map(|c| c.as_ref())
        .collect()
}

/// Canonical keys of a composite key, one [`CanonicalKeys`] per component, for the join's
/// exact comparison: two rows are equal when every component is.
#[derive(Debug, Clone)]
pub struct TupleKeys {
    parts: Vec<CanonicalKeys>,
    /// Each component's validity (`None`: no nulls).
    nulls: Vec<Option<NullBuffer>>,
}

impl TupleKeys {
    /// Canonical keys of the component arrays.
    pub fn try_new(columns: &[&dyn Array]) -> Result<Self> {
        Ok(TupleKeys {
            parts: columns
                .iter()
                .map(|c| CanonicalKeys::try_new(*c))
                .collect::<Result<_>>()?,
            nulls: columns.iter().map(|c| c.logical_nulls()).collect(),
        })
    }

    /// True when row `i` of `self` equals row `j` of `other` in every component (both
    /// non-null; components of matching families).
    #[inline]
    pub fn eq_at(&self, i: usize, other: &TupleKeys, j: usize) -> bool {
        self.parts
            .iter()
            .zip(&other.parts)
            .all(|(a, b)| a.eq_at(i, b, j))
    }

    /// True when row `i` of `self` is not distinct from row `j` of `other` (SQL's `IS NOT
    /// DISTINCT FROM`, Spark's `<=>`), component by component: both null, or both non-null
    /// and equal.
    #[inline]
    pub fn not_distinct_at(&self, i: usize, other: &TupleKeys, j: usize) -> bool {
        self.parts
            .iter()
            .zip(&other.parts)
            .zip(self.nulls.iter().zip(&other.nulls))
            .all(|((a, b), (na, nb))| {
                let va = na.as_ref().is_none_or(|n| n.is_valid(i));
                let vb = nb.as_ref().is_none_or(|n| n.is_valid(j));
                match (va, vb) {
                    (true, true) => a.eq_at(i, b, j),
                    (false, false) => true,
                    _ => false,
                }
            })
    }

    /// True when some component of row `j` is null.
    #[inline]
    pub fn has_null_at(&self, j: usize) -> bool {
        self.nulls
            .iter()
            .any(|n| n.as_ref().is_some_and(|n| n.is_null(j)))
    }

    /// The keys of a one-column integer key (all widened to `i64`), else `None`.
    #[inline]
    pub fn single_int(&self) -> Option<&[i64]> {
        match self.parts.as_slice() {
            [CanonicalKeys::Int(v)] => Some(v),
            _ => None,
        }
    }

    /// The keys of a two-column integer key (both widened to `i64`), else `None`.
    #[inline]
    pub fn pair_int(&self) -> Option<(&[i64], &[i64])> {
        match self.parts.as_slice() {
            [CanonicalKeys::Int(a), CanonicalKeys::Int(b)] => Some((a, b)),
            _ => None,
        }
    }

    /// Row `j` of a two-column key as the two `i64` it equals, when it equals some: each
    /// component as [`CanonicalKeys::as_i64_at`] gives it. `None` for other arities.
    #[inline]
    pub fn pair_as_i64_at(&self, j: usize) -> Option<(i64, i64)> {
        match self.parts.as_slice() {
            [a, b] => Some((a.as_i64_at(j)?, b.as_i64_at(j)?)),
            _ => None,
        }
    }

    /// Row `j` of a one-column key as the `i64` it equals, when it equals one: `Some(v)`
    /// exactly when `Int([v]).eq_at(0, self, j)` would be true for that `v` (see
    /// [`CanonicalKeys::as_i64_at`]). `None` for composite keys.
    #[inline]
    pub fn single_as_i64_at(&self, j: usize) -> Option<i64> {
        match self.parts.as_slice() {
            [one] => one.as_i64_at(j),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::*;
    use proptest::prelude::*;

    use super::*;
    use crate::key::{hash_array_into, hash_i64};

    proptest! {
        /// Under `--nulls-equal`, rows that are not distinct (per component: both null, or
        /// equal by value) hash alike whatever their columns' types (Int32 and a string
        /// against Int64 and a dictionary of strings); rows without a null keep their tuple
        /// hash; and a null in one place is not a null in another.
        #[test]
        fn not_distinct_rows_hash_alike(
            rows in proptest::collection::vec(
                (proptest::option::weighted(0.6, -2i32..3), proptest::option::weighted(0.6, 0u8..3)), 1..40),
            seed in any::<u64>(),
        ) {
            let names = |v: Option<u8>| v.map(|b| ["a", "bb", ""][b as usize]);
            let a32: ArrayRef = Arc::new(Int32Array::from(rows.iter().map(|r| r.0).collect::<Vec<_>>()));
            let a64: ArrayRef = Arc::new(Int64Array::from(rows.iter().map(|r| r.0.map(i64::from)).collect::<Vec<_>>()));
            let s: ArrayRef = Arc::new(StringArray::from(rows.iter().map(|r| names(r.1)).collect::<Vec<_>>()));
            let d: ArrayRef = Arc::new(rows.iter().map(|r| names(r.1)).collect::<DictionaryArray<arrow::datatypes::Int32Type>>());
            let hash = |cols: &[&dyn Array]| {
                let mut h = Vec::new();
                hash_tuple_into(cols, seed, &mut h).unwrap();
                let plain = h.clone();
                hash_null_rows(cols, seed, &mut h).unwrap();
                (plain, h)
            };
            let (plain_l, left) = hash(&[a32.as_ref(), s.as_ref()]);
            let (_, right) = hash(&[a64.as_ref(), d.as_ref()]);
            let (_, swapped) = hash(&[s.as_ref(), a32.as_ref()]);
            for (i, r) in rows.iter().enumerate() {
                prop_assert_eq!(left[i], right[i], "row {:?}", r);
                if r.0.is_some() && r.1.is_some() {
                    prop_assert_eq!(left[i], plain_l[i]);
                }
                for (j, o) in rows.iter().enumerate() {
                    if (r.0.is_none() || r.1.is_none()) && r != o {
                        prop_assert_ne!(left[i], left[j], "{:?} and {:?}", r, o);
                    }
                }
                // (x, NULL) and (NULL, x) differ: the mark stands in the component's place.
                if r.0.is_none() != r.1.is_none() {
                    prop_assert_ne!(left[i], swapped[i], "{:?}", r);
                }
            }
        }

        #[test]
        fn hash_pair_is_xxh3_of_the_16_le_bytes(a in any::<u64>(), b in any::<u64>(), seed in any::<u64>()) {
            let bytes = [a.to_le_bytes(), b.to_le_bytes()].concat();
            prop_assert_eq!(hash_pair(a, b, seed), xxh3_64_with_seed(&bytes, seed));
            prop_assert_eq!(pair::<true>(a, b, seed), hash_pair(a, b, seed));
        }

        /// The vectorized integer step (where the CPU has it) equals the scalar one at every
        /// length (SIMD bodies and tails).
        #[test]
        fn integer_steps_are_the_same_on_every_path(
            v in prop::collection::vec((any::<i64>(), any::<u64>()), 0..100),
            seed in any::<u64>(),
        ) {
            let (xs, start): (Vec<i64>, Vec<u64>) = v.into_iter().unzip();
            let mut scalar = start.clone();
            pair_steps::<i64, false>(&xs, seed, &mut scalar);
            let mut split = start.clone();
            pair_steps::<i64, true>(&xs, seed, &mut split);
            prop_assert_eq!(&split, &scalar);
            let mut auto = start.clone();
            ints::<arrow::datatypes::Int64Type>(&Int64Array::from(xs.clone()), seed, false, &mut auto);
            prop_assert_eq!(&auto, &scalar);
            // The fused pass of two integer columns (Int64 and Int32) equals the definition.
            let first: Vec<i64> = start.iter().map(|&a| a as i64).collect();
            let narrow: Vec<i32> = xs.iter().map(|&x| x as i32).collect();
            let (a, b) = (Int64Array::from(first.clone()), Int32Array::from(narrow.clone()));
            let mut fused = Vec::new();
            hash_tuple_into(&[&a, &b], seed, &mut fused).unwrap();
            let want: Vec<u64> = first
                .iter()
                .zip(&narrow)
                .map(|(&p, &q)| hash_pair(p as u64, q as i64 as u64, seed))
                .collect();
            prop_assert_eq!(&fused, &want);
        }

        /// The tuple hash of arrays equals the definition (state through the components'
        /// canonical bytes) for every batch split, and one column is today's key hash.
        #[test]
        fn tuple_hash_follows_its_definition_for_any_batch_split(
            rows in prop::collection::vec((any::<i32>(), any::<u64>(), ".{0,12}", any::<bool>()), 1..60),
            cut in 0usize..60,
            seed in any::<u64>(),
        ) {
            let a: ArrayRef = Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.0)));
            let b: ArrayRef = Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.1)));
            let s: ArrayRef = Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.2.clone())));
            let d: ArrayRef = Arc::new(
                Decimal128Array::from_iter_values(rows.iter().map(|r| r.0 as i128 * if r.3 { 100 } else { 7 }))
                    .with_precision_and_scale(20, 2).unwrap(),
            );
            let want: Vec<u64> = rows.iter().map(|r| {
                let mut st = r.0 as i64 as u64; // Int32: the 8-byte form, raw
                let canon_b: Vec<u8> = match i64::try_from(r.1) {
                    Ok(v) => v.to_le_bytes().to_vec(),
                    Err(_) => (r.1 as u128).to_le_bytes().to_vec(),
                };
                st = xxh3_64_with_seed(&[&st.to_le_bytes()[..], &canon_b].concat(), seed);
                st = xxh3_64_with_seed(&[&st.to_le_bytes()[..], r.2.as_bytes()].concat(), seed);
                let mut buf = [0u8; 33];
                let m = r.0 as i128 * if r.3 { 100 } else { 7 };
                let n = canonical_number(arrow::datatypes::i256::from_i128(m), 2, &mut buf).unwrap();
                xxh3_64_with_seed(&[&st.to_le_bytes()[..], &buf[..n]].concat(), seed)
            }).collect();
            let cols = [a.as_ref(), b.as_ref(), s.as_ref(), d.as_ref()];
            let mut whole = Vec::new();
            let fams = hash_tuple_into(&cols, seed, &mut whole).unwrap();
            prop_assert_eq!(&fams, &[KeyFamily::Integer, KeyFamily::Integer, KeyFamily::Bytes, KeyFamily::Integer]);
            prop_assert_eq!(&whole, &want);
            let cut = cut.min(rows.len());
            let mut parts = Vec::new();
            for (off, len) in [(0, cut), (cut, rows.len() - cut)] {
                let sl: Vec<ArrayRef> = [&a, &b, &s, &d].iter().map(|c| c.slice(off, len)).collect();
                let refs: Vec<&dyn Array> = sl.iter().map(|c| c.as_ref()).collect();
                let mut h = Vec::new();
                hash_tuple_into(&refs, seed, &mut h).unwrap();
                parts.extend(h);
            }
            prop_assert_eq!(&parts, &want);
            // One column: the ordinary key hash.
            let mut one = Vec::new();
            let mut today = Vec::new();
            for c in [&a, &b, &s, &d] {
                hash_tuple_into(&[c.as_ref()], seed, &mut one).unwrap();
                hash_array_into(c.as_ref(), seed, &mut today).unwrap();
                prop_assert_eq!(&one, &today);
            }
        }
    }

    /// Golden vectors of the tuple hash (seed 0), also in docs/FORMAT.md.
    #[test]
    fn tuple_golden_vectors() {
        let t = |a: &[Canon<'_>]| hash_canon_tuple(a, 0);
        assert_eq!(t(&[Canon::Int(1), Canon::Int(2)]), 0x07ee_86c2_8144_6bef);
        assert_eq!(
            t(&[Canon::Int(1), Canon::Int(2)]),
            xxh3_64_with_seed(&[1u64.to_le_bytes(), 2u64.to_le_bytes()].concat(), 0)
        );
        assert_eq!(
            t(&[Canon::Int(1), Canon::Int(2), Canon::Int(3)]),
            0x4e41_abc2_bc32_468c
        );
        assert_eq!(
            t(&[Canon::Int(7), Canon::Bytes(b"ab")]),
            0xf216_15fa_ad0f_9614
        );
        assert_eq!(
            t(&[Canon::Bytes(b"ab"), Canon::Int(7)]),
            0x0302_f9fd_2f1f_8cfd
        );
        assert_eq!(
            t(&[Canon::Bytes(b"ab"), Canon::Int(7)]),
            hash_pair(xxh3_64_with_seed(b"ab", 0), 7, 0)
        );
        assert_eq!(t(&[Canon::Int(7)]), hash_i64(7, 0));
        // (1, 1970-01-01 00:00:01) of any unit: the timestamp's nanoseconds.
        let id = Int64Array::from(vec![1, 1]);
        let ts: Vec<ArrayRef> = vec![
            Arc::new(TimestampSecondArray::from(vec![1, 1])),
            Arc::new(TimestampMillisecondArray::from(vec![1_000, 1_000]).with_timezone("UTC")),
            Arc::new(TimestampNanosecondArray::from(vec![
                1_000_000_000,
                1_000_000_000,
            ])),
        ];
        for c in &ts {
            let mut h = Vec::new();
            hash_tuple_into(&[&id, c.as_ref()], 0, &mut h).unwrap();
            assert_eq!(h, [0x7d59_9f98_4b8e_cdd4; 2], "{}", c.data_type());
        }
        assert_eq!(
            t(&[Canon::Int(1), Canon::Int(1_000_000_000)]),
            0x7d59_9f98_4b8e_cdd4
        );
        let fams = [KeyFamily::Integer, KeyFamily::TimestampTz];
        for text in ["1970-01-01 00:00:01", "1970-01-01T00:00:01.000Z"] {
            let h = hash_text_tuple(&["1", text], &fams, &[false, false], 0).unwrap();
            assert_eq!(h, 0x7d59_9f98_4b8e_cdd4, "{text}");
        }
        let e = hash_text_tuple(&["1", "12"], &fams, &[], 0).unwrap_err();
        assert!(e.to_string().contains("field 2") && e.to_string().contains("not a timestamp"));
        // Order matters.
        assert_ne!(
            t(&[Canon::Int(1), Canon::Int(2)]),
            t(&[Canon::Int(2), Canon::Int(1)])
        );
    }

    /// Components meet by value as single keys do: an Int32 and an Int64 column, a decimal
    /// 7.00 and the integer 7, a dictionary of strings and a string view; a null anywhere
    /// makes the row null.
    #[test]
    fn components_meet_by_value_and_nulls_spread() {
        let x: ArrayRef = Arc::new(Int32Array::from(vec![Some(7), Some(1), None]));
        let y: ArrayRef = Arc::new(StringArray::from(vec![Some("a"), None, Some("c")]));
        let x2: ArrayRef = Arc::new(
            Decimal128Array::from(vec![700, 100, 0])
                .with_precision_and_scale(10, 2)
                .unwrap(),
        );
        let y2: ArrayRef = Arc::new(
            vec![Some("a"), Some("b"), Some("c")]
                .into_iter()
                .collect::<DictionaryArray<arrow::datatypes::Int8Type>>(),
        );
        let (mut h1, mut h2) = (Vec::new(), Vec::new());
        hash_tuple_into(&[x.as_ref(), y.as_ref()], 5, &mut h1).unwrap();
        hash_tuple_into(&[x2.as_ref(), y2.as_ref()], 5, &mut h2).unwrap();
        assert_eq!(h1[0], h2[0]);
        let n = tuple_nulls(&[x.as_ref(), y.as_ref()]).unwrap();
        assert!(n.is_valid(0) && n.is_null(1) && n.is_null(2));
        assert!(tuple_nulls(&[x2.as_ref(), y2.as_ref()]).is_none());
        let k1 = TupleKeys::try_new(&[x.as_ref(), y.as_ref()]).unwrap();
        let k2 = TupleKeys::try_new(&[x2.as_ref(), y2.as_ref()]).unwrap();
        assert!(k1.eq_at(0, &k2, 0) && !k1.eq_at(0, &k2, 2));
        // Text: the same tuple from a probe line.
        let t = hash_text_tuple(
            &["7.00", "a"],
            &[KeyFamily::Integer, KeyFamily::Bytes],
            &[false, false],
            5,
        )
        .unwrap();
        assert_eq!(t, h1[0]);
        let e = hash_text_tuple(&["x", "a"], &[KeyFamily::Integer, KeyFamily::Bytes], &[], 5)
            .unwrap_err()
            .to_string();
        assert!(e.contains("field 1") && e.contains("not a number"), "{e}");
        let e = hash_text_tuple(&["1"], &[KeyFamily::Integer, KeyFamily::Bytes], &[], 5)
            .unwrap_err()
            .to_string();
        assert!(e.contains("1 tab-separated fields"), "{e}");
    }
}
