//! `CAST(x AS type)` and `TRY_CAST` to integers, decimals, `DOUBLE`, `FLOAT` and `VARCHAR`, as
//! DuckDB 2.0 casts (`CAST` to `DATE` and `TIMESTAMP` is in `func`):
//!
//! - To an integer type (`TINYINT` .. `UBIGINT`) or a `DECIMAL(p, s)`: an integer, a decimal
//!   or a boolean (1 or 0) is rounded half away from zero to the target's scale; a float is
//!   rounded half to even, to integers only (DuckDB computes a float's decimal digits in
//!   floating point). A string is read as DuckDB reads it ([`parse_int`],
//!   [`parse_decimal`]): spaces around it, a sign, digits with single `_` between them, a
//!   fraction and an exponent, and for integers the unsigned forms `0x1F` and `0b101`, with
//!   DuckDB's rounding, quirks included.
//! - To `DOUBLE` or `FLOAT` ([`to_float`]): numbers rounded once to the nearest float,
//!   booleans 1 and 0, strings read as DuckDB reads them ([`parse_float`]).
//! - To `VARCHAR`: numbers as DuckDB prints them (a decimal with all its scale's digits,
//!   `1.50`), booleans `true` and `false`, dates `YYYY-MM-DD` (`0045-03-15 (BC)` before year
//!   1), timestamps `YYYY-MM-DD HH:MM:SS[.fraction]` with the fraction's trailing zeros cut
//!   and `+00` after one with a time zone (the session's zone is UTC, as everywhere here),
//!   times `HH:MM:SS[.fraction]` likewise, DOUBLEs by their shortest round-trip digits
//!   (`0.1`, `100.0`, `1e+16`, `1.5e-05`, `nan`, `inf`). A FLOAT is refused: DuckDB writes
//!   some by their digits as a DOUBLE.
//!
//! A value that does not convert (out of the target's range, a string that is not a number)
//! fails the job with a one-line error naming it; under `TRY_CAST` it is NULL.

use std::fmt::Write as _;
use std::sync::Arc;

use arrow::array::{
    cast::AsArray, Array, ArrayRef, ArrowPrimitiveType, BooleanBufferBuilder, Decimal128Array,
    LargeStringBuilder, PrimitiveArray,
};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{
    i256, DataType, Decimal128Type, Decimal256Type, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};

use super::arith;
use super::eval::Reason;
use super::func::{civil, days_and_ns, describe, str_values};
use super::lit::DAY_NS;

/// What `CAST` converts to (besides `DATE` and `TIMESTAMP`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Int(IntTy),
    /// `DECIMAL(precision, scale)`.
    Decimal(u8, i8),
    /// `DOUBLE` (`true`) or `FLOAT` (`REAL`).
    Float(bool),
    Varchar,
    /// `UUID`: text read as a UUID ([`super::uuid`]).
    Uuid,
}

/// The integer types, by DuckDB's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntTy {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
}

impl IntTy {
    /// The least and greatest values.
    fn bounds(self) -> (i128, i128) {
        match self {
            IntTy::I8 => (i8::MIN.into(), i8::MAX.into()),
            IntTy::I16 => (i16::MIN.into(), i16::MAX.into()),
            IntTy::I32 => (i32::MIN.into(), i32::MAX.into()),
            IntTy::I64 => (i64::MIN.into(), i64::MAX.into()),
            IntTy::U8 => (0, u8::MAX.into()),
            IntTy::U16 => (0, u16::MAX.into()),
            IntTy::U32 => (0, u32::MAX.into()),
            IntTy::U64 => (0, u64::MAX.into()),
        }
    }

    fn name(self) -> &'static str {
        match self {
            IntTy::I8 => "TINYINT",
            IntTy::I16 => "SMALLINT",
            IntTy::I32 => "INTEGER",
            IntTy::I64 => "BIGINT",
            IntTy::U8 => "UTINYINT",
            IntTy::U16 => "USMALLINT",
            IntTy::U32 => "UINTEGER",
            IntTy::U64 => "UBIGINT",
        }
    }

    /// The type a name stands for, in any case (DuckDB's names and aliases).
    pub(crate) fn named(name: &str) -> Option<IntTy> {
        Some(match name.to_ascii_uppercase().as_str() {
            "TINYINT" | "INT1" => IntTy::I8,
            "SMALLINT" | "INT2" | "SHORT" => IntTy::I16,
            "INTEGER" | "INT" | "INT4" | "SIGNED" => IntTy::I32,
            "BIGINT" | "INT8" | "LONG" => IntTy::I64,
            "UTINYINT" => IntTy::U8,
            "USMALLINT" => IntTy::U16,
            "UINTEGER" => IntTy::U32,
            "UBIGINT" => IntTy::U64,
            _ => return None,
        })
    }
}

impl Target {
    /// The type as messages name it.
    pub(crate) fn shown(self) -> String {
        match self {
            Target::Int(t) => t.name().into(),
            Target::Decimal(p, s) => format!("DECIMAL({p},{s})"),
            Target::Float(true) => "DOUBLE".into(),
            Target::Float(false) => "FLOAT".into(),
            Target::Varchar => "VARCHAR".into(),
            Target::Uuid => "UUID".into(),
        }
    }
}

/// `CAST(a AS t)`; `try_`: NULL where a value does not convert. `what` names the operand.
pub(super) fn cast(t: Target, try_: bool, a: &ArrayRef, what: &str) -> Result<ArrayRef, Reason> {
    let call = format!(
        "{}CAST(.. AS {})",
        if try_ { "TRY_" } else { "" },
        t.shown()
    );
    match t {
        Target::Varchar => to_varchar(a, &call, what),
        Target::Uuid => to_uuid(a, try_, &call, what),
        Target::Float(double) => to_float(double, try_, a, &call, what),
        Target::Int(_) | Target::Decimal(..) => to_number(t, try_, a, &call, what),
    }
}

/// `CAST(a AS UUID)` of text (a UUID column's own cast is itself, [`super::eval`]).
fn to_uuid(a: &ArrayRef, try_: bool, call: &str, what: &str) -> Result<ArrayRef, Reason> {
    if *a.data_type() == DataType::Null {
        return Ok(arrow::array::new_null_array(
            &DataType::FixedSizeBinary(16),
            a.len(),
        ));
    }
    match super::uuid::from_strings(a, try_, &format!("{call} of {what}")) {
        Some(r) => r,
        None => Err(format!(
            "{call} takes a string or a UUID, {what} is {}",
            a.data_type()
        )),
    }
}

/// `CAST(a AS DOUBLE | FLOAT)`, as DuckDB 2.0 casts: an integer or a decimal is rounded once
/// to the nearest float, a boolean is 1 or 0, a DOUBLE is rounded to a FLOAT (a finite one
/// beyond FLOAT's range does not convert; `inf` and NaN stay), and a string is read by
/// [`parse_float`] (beyond the range it is `inf`, as DuckDB reads it).
fn to_float(
    double: bool,
    try_: bool,
    a: &ArrayRef,
    call: &str,
    what: &str,
) -> Result<ArrayRef, Reason> {
    let dt = a.data_type();
    let to = if double {
        DataType::Float64
    } else {
        DataType::Float32
    };
    let converted = if let Some(strs) = str_values(a) {
        let rows = strs.map(|s| {
            s.map(|s| {
                if double {
                    parse_float::<f64>(s)
                } else {
                    parse_float::<f32>(s).map(f64::from)
                }
                .ok_or(false)
            })
        });
        gather(rows, a.len(), try_)
    } else if arith::number(dt).is_some()
        || matches!(
            dt,
            DataType::Boolean | DataType::Float16 | DataType::Float32 | DataType::Float64
        )
    {
        // Arrow's casts round an integer or a decimal once, as DuckDB's do.
        let f = arith::cast(a, &to)?;
        if double || matches!(dt, DataType::Float16 | DataType::Float32) {
            return Ok(f);
        }
        // To FLOAT: a finite value that became infinite was beyond FLOAT's range. Only a batch
        // with an infinity is cast again, to tell which values were finite.
        let narrow = f.as_primitive::<Float32Type>();
        if !narrow.values().iter().any(|n| n.is_infinite()) {
            return Ok(f);
        }
        let wide = arith::cast(a, &DataType::Float64)?;
        let wide = wide.as_primitive::<Float64Type>();
        let rows = narrow.iter().zip(wide.iter()).map(|(n, w)| {
            n.zip(w).map(|(n, w)| {
                Some(f64::from(n))
                    .filter(|_| !(n.is_infinite() && w.is_finite()))
                    .ok_or(true)
            })
        });
        gather(rows, a.len(), try_)
    } else {
        return Err(format!("{call} does not take {what}, {}", describe(dt)));
    };
    // The values as DOUBLEs (a FLOAT's exactly), then as the target.
    let (values, nulls) =
        converted.map_err(|e| unconverted(Target::Float(double), call, what, a, e))?;
    let f: ArrayRef = Arc::new(PrimitiveArray::<Float64Type>::new(values.into(), nulls));
    arith::cast(&f, &to)
}

/// A string read as a float, as DuckDB 2.0 reads one (checked on random strings against its
/// answers): ASCII spaces around it; one `+` dropped before anything, even a `-` (`'+-1'` is
/// -1); digits with single `_` between them, in the fraction and the exponent too; a fraction
/// with or without digits on either side of the point (`5.`, `.5`); an exponent; `inf`,
/// `infinity` and `nan` in any case, with a sign, and `nan(chars)`. The nearest float, `inf`
/// beyond the range. `None` for anything else.
pub(crate) fn parse_float<F: std::str::FromStr>(s: &str) -> Option<F> {
    let s = s.trim_matches([' ', '\t', '\n', '\u{b}', '\u{c}', '\r']);
    let s = s.strip_prefix('+').unwrap_or(s);
    if s.starts_with('+') {
        return None;
    }
    let body = s.strip_prefix('-').unwrap_or(s).as_bytes();
    if body.len() >= 5
        && body[..4].eq_ignore_ascii_case(b"nan(")
        && body.ends_with(b")")
        && body[4..body.len() - 1]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        return "nan".parse().ok();
    }
    let b = s.as_bytes();
    if !b.contains(&b'_') {
        return s.parse().ok();
    }
    let mut clean = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        if c == '_' {
            let digit = |j: Option<usize>| j.and_then(|j| b.get(j)).is_some_and(u8::is_ascii_digit);
            if !(digit(i.checked_sub(1)) && digit(Some(i + 1))) {
                return None;
            }
        } else {
            clean.push(c);
        }
    }
    clean.parse().ok()
}

/// A row's converted value (`None`: NULL), or why it has none: out of the target's range
/// (true) or not a number at all (false).
type Conv<T> = Option<Result<T, bool>>;

fn to_number(
    t: Target,
    try_: bool,
    a: &ArrayRef,
    call: &str,
    what: &str,
) -> Result<ArrayRef, Reason> {
    let (lo, hi, scale) = match t {
        Target::Int(ty) => {
            let (lo, hi) = ty.bounds();
            (lo, hi, 0)
        }
        Target::Decimal(p, s) => {
            let top = 10i128.pow(p.into()) - 1;
            (-top, top, s)
        }
        Target::Varchar | Target::Uuid | Target::Float(_) => unreachable!("not an exact number"),
    };
    let in_range = |v: &i128| (lo..=hi).contains(v);
    let dt = a.data_type();
    let n = a.len();
    // A negative scale is folded into the precision: `s` is then 0.
    let got = if let Some((_, s)) = arith::number(dt) {
        if matches!(dt, DataType::Decimal256(..)) {
            let d = arith::cast(a, &DataType::Decimal256(76, s))?;
            let rows = d.as_primitive::<Decimal256Type>().iter().map(|v| {
                v.map(|v| {
                    rescale(v, s, scale)
                        .and_then(|r| r.to_i128())
                        .filter(in_range)
                        .ok_or(true)
                })
            });
            gather(rows, n, try_)
        } else {
            // Up to 38 digits: 128-bit arithmetic (a 256-bit division costs several times
            // more).
            let d = arith::cast(a, &DataType::Decimal128(38, s))?;
            let rows = d
                .as_primitive::<Decimal128Type>()
                .iter()
                .map(|v| v.map(|v| rescale_i128(v, s, scale).filter(in_range).ok_or(true)));
            gather(rows, n, try_)
        }
    } else if dt == &DataType::Boolean {
        let rows = a.as_boolean().iter().map(|b| {
            b.map(|b| {
                rescale_i128(b.into(), 0, scale)
                    .filter(in_range)
                    .ok_or(true)
            })
        });
        gather(rows, n, try_)
    } else if matches!(
        dt,
        DataType::Float16 | DataType::Float32 | DataType::Float64
    ) {
        let Target::Int(_) = t else {
            return Err(format!(
                "{call} does not take {what}, a float (DuckDB computes its decimal digits in \
                 floating point): cast it to an integer, or compare it as it is"
            ));
        };
        let f = arith::cast(a, &DataType::Float64)?;
        let rows = f.as_primitive::<Float64Type>().iter().map(|v| {
            v.map(|v| {
                let r = v.round_ties_even();
                // Beyond 2^127 no integer type holds it; NaN is no number.
                if r.is_finite() && r.abs() < 1.7e38 {
                    Some(r as i128).filter(in_range).ok_or(true)
                } else {
                    Err(!r.is_nan())
                }
            })
        });
        gather(rows, n, try_)
    } else if let Some(strs) = str_values(a) {
        let rows = strs.map(|s| {
            s.map(|s| {
                match t {
                    Target::Int(ty) => parse_int(s.as_bytes(), ty),
                    Target::Decimal(p, scale) => parse_decimal(s.as_bytes(), p, scale as u8),
                    Target::Varchar | Target::Uuid | Target::Float(_) => {
                        unreachable!("not an exact number")
                    }
                }
                .ok_or(false)
            })
        });
        gather(rows, n, try_)
    } else {
        return Err(format!("{call} does not take {what}, {}", describe(dt)));
    };
    let (values, nulls) = got.map_err(|e| unconverted(t, call, what, a, e))?;
    build(t, values, nulls)
}

/// The error of a cast to `t` (`call`) of `what` (array `a`) that could not convert row
/// `row`: out of the target's range (`range`), or not a number.
fn unconverted(
    t: Target,
    call: &str,
    what: &str,
    a: &ArrayRef,
    (row, range): (usize, bool),
) -> Reason {
    let value = match shown_at(a, row) {
        Ok(v) => v,
        Err(e) => return e,
    };
    if range {
        format!(
            "{call}: {what} holds {value}, out of the range of {}",
            t.shown()
        )
    } else {
        format!("{call}: {what} holds {value}, which is not a number")
    }
}

/// The values of `rows` (every one within the target's range) and their nulls; a value that
/// does not convert is NULL with `try_`, else its row and why (see [`Conv`]).
#[allow(clippy::type_complexity)]
fn gather<T: Default>(
    rows: impl Iterator<Item = Conv<T>>,
    len: usize,
    try_: bool,
) -> Result<(Vec<T>, Option<NullBuffer>), (usize, bool)> {
    let mut values = Vec::with_capacity(len);
    let mut valid = BooleanBufferBuilder::new(len);
    for (i, r) in rows.enumerate() {
        match r {
            Some(Ok(v)) => {
                values.push(v);
                valid.append(true);
            }
            Some(Err(range)) if !try_ => return Err((i, range)),
            _ => {
                values.push(T::default());
                valid.append(false);
            }
        }
    }
    Ok((
        values,
        Some(NullBuffer::new(valid.finish())).filter(|n| n.null_count() > 0),
    ))
}

/// Row `row` of `a` (a value a cast could not convert) as the messages show it.
fn shown_at(a: &ArrayRef, row: usize) -> Result<String, Reason> {
    let one = a.slice(row, 1);
    let dt = a.data_type();
    Ok(if let Some((_, s)) = arith::number(dt) {
        let d = arith::cast(&one, &DataType::Decimal256(76, s))?;
        decimal_text(d.as_primitive::<Decimal256Type>().value(0), s, bare(dt))
    } else if dt == &DataType::Boolean {
        one.as_boolean().value(0).to_string()
    } else if let Some(mut strs) = str_values(&one) {
        format!(
            "'{}'",
            strs.next().flatten().unwrap_or_default().escape_debug()
        )
    } else {
        let f = arith::cast(&one, &DataType::Float64)?;
        format!("{:?}", f.as_primitive::<Float64Type>().value(0))
    })
}

/// The array of the target type holding `values` (each within its range), with `nulls`.
fn build(t: Target, values: Vec<i128>, nulls: Option<NullBuffer>) -> Result<ArrayRef, Reason> {
    fn of<T: ArrowPrimitiveType>(values: &[i128], nulls: Option<NullBuffer>) -> ArrayRef
    where
        T::Native: TryFrom<i128> + Default,
    {
        let values: Vec<T::Native> = values
            .iter()
            .map(|&v| T::Native::try_from(v).unwrap_or_default())
            .collect();
        Arc::new(PrimitiveArray::<T>::new(values.into(), nulls))
    }
    Ok(match t {
        Target::Int(IntTy::I8) => of::<Int8Type>(&values, nulls),
        Target::Int(IntTy::I16) => of::<Int16Type>(&values, nulls),
        Target::Int(IntTy::I32) => of::<Int32Type>(&values, nulls),
        Target::Int(IntTy::I64) => of::<Int64Type>(&values, nulls),
        Target::Int(IntTy::U8) => of::<UInt8Type>(&values, nulls),
        Target::Int(IntTy::U16) => of::<UInt16Type>(&values, nulls),
        Target::Int(IntTy::U32) => of::<UInt32Type>(&values, nulls),
        Target::Int(IntTy::U64) => of::<UInt64Type>(&values, nulls),
        Target::Decimal(p, s) => Arc::new(
            Decimal128Array::new(values.into(), nulls)
                .with_precision_and_scale(p, s)
                .map_err(|e| e.to_string())?,
        ),
        Target::Varchar | Target::Uuid | Target::Float(_) => unreachable!("not an exact number"),
    })
}

fn pow10(n: u32) -> Option<i256> {
    i256::from_i128(10).checked_pow(n)
}

/// `v × 10^-from` at scale `to`, rounded half away from zero; `None` beyond 256 bits.
fn rescale(v: i256, from: i8, to: i8) -> Option<i256> {
    if to >= from {
        return v.checked_mul(pow10((to - from) as u32)?);
    }
    let Some(d) = pow10((from - to) as u32) else {
        return Some(i256::ZERO);
    };
    let (q, r) = (v / d, v % d);
    let half = r.wrapping_abs().checked_mul(i256::from_i128(2))? >= d;
    Some(match (half, v.is_negative()) {
        (false, _) => q,
        (true, false) => q + i256::ONE,
        (true, true) => q - i256::ONE,
    })
}

/// [`rescale`] in 128 bits; `None` beyond them.
fn rescale_i128(v: i128, from: i8, to: i8) -> Option<i128> {
    if to >= from {
        return v.checked_mul(10i128.checked_pow((to - from) as u32)?);
    }
    let Some(d) = 10i128.checked_pow((from - to) as u32) else {
        return Some(0);
    };
    let (q, r) = (v / d, v % d);
    Some(if r.unsigned_abs() * 2 >= d.unsigned_abs() {
        q + v.signum()
    } else {
        q
    })
}

/// `v × 10^-scale` as DuckDB prints a decimal: every digit of the scale (`1.50`), and no `0`
/// before the point when the type has no integer digits (`bare`: a DECIMAL(4,4) prints
/// `.5000`).
fn decimal_text(v: i256, scale: i8, bare: bool) -> String {
    let digits = v.wrapping_abs().to_string();
    let sign = if v.is_negative() { "-" } else { "" };
    let scale = scale.max(0) as usize;
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let digits = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = digits.split_at(digits.len() - scale);
    let int = if bare && int == "0" { "" } else { int };
    format!("{sign}{int}.{frac}")
}

/// [`decimal_text`] of a 128-bit value, written into `t`.
fn push_decimal(t: &mut String, v: i128, scale: i8, bare: bool) {
    if v < 0 {
        t.push('-');
    }
    let start = t.len();
    let _ = write!(t, "{}", v.unsigned_abs());
    let scale = scale.max(0) as usize;
    if scale == 0 {
        return;
    }
    let digits = t.len() - start;
    if digits <= scale {
        // Zeros before the digits, and the integer digit 0.
        let zeros = scale + 1 - digits;
        t.insert_str(start, &"0".repeat(zeros));
    }
    let point = t.len() - scale;
    t.insert(point, '.');
    if bare && &t[start..point] == "0" {
        t.remove(start);
    }
}

/// Whether values of `t` print without an integer digit: a decimal whose scale is its width.
fn bare(t: &DataType) -> bool {
    matches!(t, DataType::Decimal32(p, s) | DataType::Decimal64(p, s)
        | DataType::Decimal128(p, s) | DataType::Decimal256(p, s) if *s >= 0 && *p == *s as u8)
}

/// `CAST(a AS VARCHAR)`.
pub(super) fn to_varchar(a: &ArrayRef, call: &str, what: &str) -> Result<ArrayRef, Reason> {
    let dt = a.data_type();
    let mut out = LargeStringBuilder::with_capacity(a.len(), a.len() * 12);
    if str_values(a).is_some() {
        return Ok(Arc::clone(a));
    } else if let Some((_, s)) = arith::number(dt) {
        // A negative scale is folded into the precision: `s` is then 0.
        let bare = bare(dt);
        match dt {
            DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
                let v = arith::cast(a, &DataType::Int64)?;
                texts(&mut out, v.as_primitive::<Int64Type>(), |t, v| {
                    let _ = write!(t, "{v}");
                });
            }
            DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
                let v = arith::cast(a, &DataType::UInt64)?;
                texts(&mut out, v.as_primitive::<UInt64Type>(), |t, v| {
                    let _ = write!(t, "{v}");
                });
            }
            DataType::Decimal256(..) => {
                let d = arith::cast(a, &DataType::Decimal256(76, s))?;
                texts(&mut out, d.as_primitive::<Decimal256Type>(), |t, v| {
                    t.push_str(&decimal_text(v, s, bare))
                });
            }
            _ => {
                let d = arith::cast(a, &DataType::Decimal128(38, s))?;
                texts(&mut out, d.as_primitive::<Decimal128Type>(), |t, v| {
                    push_decimal(t, v, s, bare)
                });
            }
        }
    } else if dt == &DataType::Boolean {
        texts(&mut out, a.as_boolean(), |t, b| {
            t.push_str(if b { "true" } else { "false" })
        });
    } else if dt == &DataType::Date32 {
        let days = arith::cast(a, &DataType::Int32)?;
        // Dates repeat (TPC-H's 6 million shipping dates are 2,526 days in a row): each one's
        // text is made once per batch, into a cache indexed by the date's low bits.
        // A slot's text is empty until a date takes it (no date's text is empty).
        let mut cache = vec![(0i32, String::new()); DATE_CACHE];
        texts(&mut out, days.as_primitive::<Int32Type>(), |t, d| {
            let (at, text) = &mut cache[d.rem_euclid(DATE_CACHE as i32) as usize];
            if *at != d || text.is_empty() {
                *at = d;
                text.clear();
                date_text(text, d);
            }
            t.push_str(text);
        });
    } else if let DataType::Timestamp(unit, tz) = dt {
        let per = crate::key::unit_ns(unit);
        let raw = arith::cast(a, &DataType::Int64)?;
        texts(&mut out, raw.as_primitive::<Int64Type>(), |t, v| {
            timestamp_text(t, v, per, tz.is_some())
        });
    } else if dt == &DataType::Float64 {
        texts(&mut out, a.as_primitive::<Float64Type>(), |t, v| {
            if v.is_nan() {
                // fmt writes the sign of a NaN: x86's 0/0 and inf - inf are `-nan`.
                t.push_str(if v.is_sign_negative() { "-nan" } else { "nan" });
            } else {
                float_text(t, &shortest(v));
            }
        });
    } else if matches!(dt, DataType::Float16 | DataType::Float32) {
        // DuckDB's FLOAT text (fmt 6's Grisu with FLOAT bounds) falls back to the digits of
        // the DOUBLE the FLOAT converts to wherever Grisu is unsure (1 % of random FLOATs).
        return Err(format!(
            "{call} does not take {what}, a FLOAT (DuckDB writes some FLOATs by their \
             digits as a DOUBLE, others by their own): CAST it to DOUBLE first, whose digits \
             are written alike everywhere"
        ));
    } else if let DataType::Time32(unit) | DataType::Time64(unit) = dt {
        let per = crate::key::unit_ns(unit);
        let raw = arith::cast(a, &DataType::Int64)?;
        texts(&mut out, raw.as_primitive::<Int64Type>(), |t, v| {
            time_text(t, i128::from(v) * i128::from(per), per == 1)
        });
    } else {
        return Err(format!("{call} does not take {what}, {}", describe(dt)));
    }
    Ok(Arc::new(out.finish()))
}

/// The fewest digits that read back as `v`, the closest of them to `v` and on a tie the even
/// one, with an exponent (`1.5e-5`, `1e16`): what DuckDB's fmt and Python's `repr` pick. Rust's
/// `{:e}` gives the fewest digits but rounds a tie up (`1160542857142857.25` as `...857.3`);
/// `{:.*e}` rounds the exact value to that many digits, half to even.
fn shortest(v: f64) -> String {
    let sci = format!("{v:e}");
    let digits = sci
        .split('e')
        .next()
        .unwrap_or("")
        .bytes()
        .filter(u8::is_ascii_digit)
        .count();
    let even = format!("{:.*e}", digits.saturating_sub(1), v);
    if even.parse::<f64>() == Ok(v) {
        even
    } else {
        sci
    }
}

/// A float (not NaN) as DuckDB prints it, from its shortest round-trip digits `sci` (Rust's
/// `{:e}`: `-1.5e-5`, `1e16`, `0e0`): `inf` and `-inf`; fixed notation with at least one
/// fractional digit (`100.0`, `0.0001`, `-0.0`) for exponents from -4 to 15, else the digits
/// with an exponent of at least two digits (`1e+16`, `1.5e-05`), as Python's `repr`.
fn float_text(t: &mut String, sci: &str) {
    let sci = match sci.strip_prefix('-') {
        Some(rest) => {
            t.push('-');
            rest
        }
        None => sci,
    };
    if sci == "inf" {
        t.push_str("inf");
        return;
    }
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (first, rest) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if (-4..16).contains(&exp) {
        let digits = format!("{first}{rest}");
        if exp < 0 {
            t.push_str("0.");
            t.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            t.push_str(&digits);
        } else {
            let int = exp as usize + 1;
            if digits.len() <= int {
                t.push_str(&digits);
                t.extend(std::iter::repeat_n('0', int - digits.len()));
                t.push_str(".0");
            } else {
                t.push_str(&digits[..int]);
                t.push('.');
                t.push_str(&digits[int..]);
            }
        }
    } else {
        t.push_str(first);
        if !rest.is_empty() {
            t.push('.');
            t.push_str(rest);
        }
        let _ = write!(t, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
}

/// A time of day of `ns` nanoseconds as DuckDB prints it: `HH:MM:SS`, then a fraction with
/// its trailing zeros cut, of microseconds (`TIME`), or of nanoseconds for a nanosecond
/// column (`TIME_NS`).
fn time_text(t: &mut String, ns: i128, nanos: bool) {
    let secs = ns.div_euclid(1_000_000_000);
    let frac = ns.rem_euclid(1_000_000_000);
    let _ = write!(
        t,
        "{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if frac != 0 {
        let digits = format!("{frac:09}");
        let digits = if nanos { &digits[..] } else { &digits[..6] };
        let digits = digits.trim_end_matches('0');
        if !digits.is_empty() {
            t.push('.');
            t.push_str(digits);
        }
    }
}

/// How many dates' texts a cast to text keeps at once (about eleven years of days).
const DATE_CACHE: usize = 4096;

/// One text a row into `out`: each value written by `write` (into a buffer reused from row to
/// row), a NULL for a null.
fn texts<T>(
    out: &mut LargeStringBuilder,
    values: impl IntoIterator<Item = Option<T>>,
    mut write: impl FnMut(&mut String, T),
) {
    let mut text = String::new();
    for v in values {
        match v {
            Some(v) => {
                text.clear();
                write(&mut text, v);
                out.append_value(&text);
            }
            None => out.append_null(),
        }
    }
}

/// A date as DuckDB prints it: `YYYY-MM-DD`, `YYYY-MM-DD (BC)` before year 1 (year 0 is
/// 1 BC); `infinity` and `-infinity` for the raw values `±i32::MAX` DuckDB reads as those.
fn date_text(t: &mut String, days: i32) {
    match days {
        i32::MAX => t.push_str("infinity"),
        d if d == -i32::MAX => t.push_str("-infinity"),
        d => {
            if write_date(t, d.into()) {
                t.push_str(" (BC)");
            }
        }
    }
}

/// `YYYY-MM-DD` of `days` after the epoch, the year counted from 1 BC backwards before year 1;
/// whether it is such a year (before Christ).
fn write_date(t: &mut String, days: i64) -> bool {
    let (y, m, d) = civil(days);
    if (1..=9999).contains(&y) {
        // The common case, digit by digit (no formatting machinery).
        let digit = |v: i64| char::from(b'0' + v as u8);
        for c in [
            digit(y / 1000),
            digit(y / 100 % 10),
            digit(y / 10 % 10),
            digit(y % 10),
            '-',
            digit(m / 10),
            digit(m % 10),
            '-',
            digit(d / 10),
            digit(d % 10),
        ] {
            t.push(c);
        }
        return false;
    }
    let year = if y <= 0 { 1 - y } else { y };
    let _ = write!(t, "{year:04}-{m:02}-{d:02}");
    y <= 0
}

/// A timestamp of `v` units of `per` nanoseconds as DuckDB prints it: the date, ` (BC)`
/// before year 1, the time, its fraction without trailing zeros, `+00` for a zoned one.
fn timestamp_text(t: &mut String, v: i64, per: i64, zoned: bool) {
    if v == i64::MAX || v == -i64::MAX {
        t.push_str(if v > 0 { "infinity" } else { "-infinity" });
        return;
    }
    let (days, ns) = days_and_ns(v, per);
    debug_assert!(ns < DAY_NS as i64);
    if write_date(t, days) {
        t.push_str(" (BC)");
    }
    t.push(' ');
    // DuckDB prints microseconds, or nanoseconds for a nanosecond timestamp.
    time_text(t, ns.into(), per == 1);
    if zoned {
        t.push_str("+00");
    }
}

/// Whether DuckDB's string casts skip `b` as a space.
fn space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// A string read as DuckDB 2.0 reads one into an integer type (`TryIntegerCast`, with its
/// decimal and exponent path), `None` where DuckDB's cast fails. Its rules, quirks included,
/// since `TRY_CAST` gives NULL where it fails and a wrong value would be a wrong row:
///
/// - Spaces (space, `\t`, `\n`, `\v`, `\f`, `\r`) before; after, only behind digits.
/// - A `-` or `+`, digits with single `_` between two digits, `.` and more digits (`1.`
///   and `.5`, not `.`), then `e` or `E` and an exponent (a 16-bit integer, signed).
/// - `0x` / `0b` (any case) then hex or binary digits, unsigned, with no spaces after.
/// - An unsigned type takes a `-` only when every character after it is `0`.
/// - The integer digits are gathered in a 64-bit integer (unsigned for `UBIGINT`); the first
///   fractional digit rounds half away from zero. Exponents shift digits between the two
///   as DuckDB does (`8e-2` is 0, `0.0049e3` is 5).
pub(crate) fn parse_int(s: &[u8], ty: IntTy) -> Option<i128> {
    let start = s.iter().position(|&b| !space(b))?;
    let s = &s[start..];
    let (lo, hi) = ty.bounds();
    // The store: u64 for UBIGINT, else i64.
    let (slo, shi) = if ty == IntTy::U64 {
        (0, u64::MAX as i128)
    } else {
        (i64::MIN as i128, i64::MAX as i128)
    };
    let r = IntReader {
        slo,
        shi,
        lo,
        hi,
        result: 0,
        decimal: 0,
        decimal_digits: 0,
    };
    if s[0] == b'-' {
        if lo == 0 && s[1..].iter().any(|&b| b != b'0') {
            return None;
        }
        return read(r, s, true, true);
    }
    if s.len() > 1 && s[0] == b'0' {
        let radix = match s[1] {
            b'x' | b'X' => 16,
            b'b' | b'B' => 2,
            _ => return read(r, s, false, true),
        };
        return radix_int(&s[2..], radix, shi, (lo, hi));
    }
    read(r, s, false, true)
}

/// A string read as DuckDB 2.0 reads one into a `DECIMAL(width, scale)`
/// (`TryDecimalStringCast`), as the scaled integer; `None` where DuckDB's cast fails. The text
/// is read as by [`parse_int`] (spaces, signs, `_`, fractions, exponents; no `0x` or `0b`),
/// and then:
///
/// - Leading zeros do not count; more integer digits than `width - scale` fail.
/// - Fraction digits are kept up to the digits of DuckDB's store (4, 9, 18 or 38 by the
///   width) and cut to the scale; without an exponent the digit after the scale rounds half
///   away from zero, with a positive one the last digit cut does, with a negative one the
///   last digit divided away does (and the digits cut before it do not).
/// - A value rounded or shifted past the width fails.
pub(crate) fn parse_decimal(s: &[u8], width: u8, scale: u8) -> Option<i128> {
    let start = s.iter().position(|&b| !space(b))?;
    let s = &s[start..];
    let store_digits = match width {
        0..=4 => 4,
        5..=9 => 9,
        10..=18 => 18,
        _ => 38,
    };
    let r = DecReader {
        width,
        scale,
        store_digits,
        result: 0,
        digit_count: 0,
        decimal_count: 0,
        round_set: false,
        should_round: false,
        excessive: 0,
        exp: ExpKind::None,
    };
    let v = if s[0] == b'-' {
        read(r, s, true, true)
    } else if s.len() > 1 && s[0] == b'0' && matches!(s[1], b'x' | b'X' | b'b' | b'B') {
        None
    } else {
        read(r, s, false, true)
    }?;
    // A value rounded or shifted past the width fails (`'9.995'` as a DECIMAL(3,2)).
    (v.unsigned_abs() < 10u128.pow(width.into())).then_some(v)
}

/// What DuckDB's string reader (`IntegerCastLoop`) does with each part of a number: the
/// operations of its integer, decimal and exponent readers.
trait Reader: Sized {
    /// An integer digit, into the value (negatively for a negative number).
    fn digit(&mut self, d: i128, negative: bool) -> Option<()>;
    /// A digit after the point.
    fn fraction(&mut self, d: i128, negative: bool) -> Option<()>;
    /// The exponent, ending the number.
    fn exponent(self, e: i16, negative: bool) -> Option<i128>;
    /// The number read.
    fn finalize(&mut self, negative: bool) -> Option<i128>;
}

/// DuckDB's loop over the characters of a number, after its leading spaces (and, for
/// `negative`, its `-`).
fn read<R: Reader>(mut r: R, s: &[u8], negative: bool, allow_exponent: bool) -> Option<i128> {
    let len = s.len();
    let start = usize::from(negative || s[0] == b'+');
    let is_digit = |i: usize| i < len && s[i].is_ascii_digit();
    let mut pos = start;
    while pos < len {
        if !s[pos].is_ascii_digit() {
            if s[pos] == b'.' {
                let before = pos > start;
                pos += 1;
                let first = pos;
                while is_digit(pos) {
                    r.fraction((s[pos] - b'0') as i128, negative)?;
                    pos += 1;
                    if pos < len && s[pos] == b'_' {
                        pos += 1;
                        if !is_digit(pos) {
                            return None;
                        }
                    }
                }
                if !(before || pos > first) {
                    return None;
                }
                if pos >= len {
                    break;
                }
            }
            if space(s[pos]) {
                // Trailing spaces, behind at least one digit (`- ` is not a number).
                if s[pos + 1..].iter().all(|&b| space(b)) {
                    break;
                }
                return None;
            }
            if allow_exponent && (s[pos] == b'e' || s[pos] == b'E') {
                if pos == start {
                    return None;
                }
                pos += 1;
                if pos >= len {
                    return None;
                }
                let e = read(ExpReader(0), &s[pos..], s[pos] == b'-', false)?;
                return r.exponent(e as i16, negative);
            }
            return None;
        }
        let d = (s[pos] - b'0') as i128;
        pos += 1;
        r.digit(d, negative)?;
        if pos < len && s[pos] == b'_' {
            pos += 1;
            if !is_digit(pos) {
                return None;
            }
        }
    }
    let v = r.finalize(negative)?;
    (pos > start).then_some(v)
}

/// `0x...` or `0b...` (after the prefix): digits with single `_` between them, into the store
/// (at most `shi`), then within the target's bounds.
fn radix_int(s: &[u8], radix: u32, shi: i128, (lo, hi): (i128, i128)) -> Option<i128> {
    let mut v: i128 = 0;
    let mut i = 0;
    if s.is_empty() {
        return None;
    }
    let is_digit = |i: usize| i < s.len() && (s[i] as char).is_digit(radix);
    while i < s.len() {
        let d = (s[i] as char).to_digit(radix)? as i128;
        i += 1;
        if i < s.len() && s[i] == b'_' {
            i += 1;
            if !is_digit(i) {
                return None;
            }
        }
        if v > (shi - d) / radix as i128 {
            return None;
        }
        v = v * radix as i128 + d;
    }
    (lo..=hi).contains(&v).then_some(v)
}

/// Digits into a value within `lo..=hi`, negatively for a negative number, as DuckDB's
/// `HandleDigit` (its bound test, with C++'s division toward zero, as Rust's).
fn push_digit(v: &mut i128, d: i128, negative: bool, (lo, hi): (i128, i128)) -> Option<()> {
    if negative {
        if *v < (lo + d) / 10 {
            return None;
        }
        *v = *v * 10 - d;
    } else {
        if *v > (hi - d) / 10 {
            return None;
        }
        *v = *v * 10 + d;
    }
    Some(())
}

/// The exponent after `e`: a 16-bit integer, read by the same loop without a fraction or an
/// exponent of its own (`1e2.` is 100, `1e2.5` fails).
struct ExpReader(i128);

impl Reader for ExpReader {
    fn digit(&mut self, d: i128, negative: bool) -> Option<()> {
        push_digit(&mut self.0, d, negative, (i16::MIN.into(), i16::MAX.into()))
    }
    fn fraction(&mut self, _: i128, _: bool) -> Option<()> {
        None
    }
    fn exponent(self, _: i16, _: bool) -> Option<i128> {
        None
    }
    fn finalize(&mut self, _: bool) -> Option<i128> {
        Some(self.0)
    }
}

/// DuckDB's integer reader with fractions and exponents (`IntegerDecimalCastOperation`): the
/// store's bounds, the target's, and its state.
struct IntReader {
    slo: i128,
    shi: i128,
    lo: i128,
    hi: i128,
    result: i128,
    decimal: i128,
    decimal_digits: u16,
}

impl IntReader {
    fn checked(&self, v: Option<i128>) -> Option<i128> {
        v.filter(|v| (self.slo..=self.shi).contains(v))
    }
}

impl Reader for IntReader {
    fn digit(&mut self, d: i128, negative: bool) -> Option<()> {
        push_digit(&mut self.result, d, negative, (self.slo, self.shi))
    }

    fn fraction(&mut self, d: i128, _: bool) -> Option<()> {
        // DuckDB ignores the digits its store cannot take.
        if self.decimal <= (self.shi - d) / 10 {
            self.decimal_digits = self.decimal_digits.wrapping_add(1);
            self.decimal = self.decimal * 10 + d;
        }
        Some(())
    }

    fn exponent(mut self, exp: i16, negative: bool) -> Option<i128> {
        let mut e = exp;
        if e < 0 {
            while self.result != 0 && e < 0 {
                e += 1;
                self.decimal = self.result % 10;
                self.result /= 10;
            }
            if self.decimal < 0 {
                self.decimal = -self.decimal;
            }
            if e < 0 {
                // The digits ran out before the exponent: the first fractional digit is 0
                // (`8e-2` is 0, and so is `0.5e-1`).
                self.decimal = 0;
            }
            self.decimal_digits = 1;
            return self.finalize(negative);
        }
        while self.result != 0 && e > 0 {
            e -= 1;
            self.result = self.checked(self.result.checked_mul(10))?;
        }
        if self.decimal == 0 {
            return self.finalize(negative);
        }
        let mut e = i32::from(exp) - i32::from(self.decimal_digits);
        let mut remainder = 0;
        if e < 0 {
            let digits = if self.shi > i64::MAX as i128 { 20 } else { 19 };
            if -e <= digits {
                let mut power: i128 = 1;
                while e < 0 {
                    e += 1;
                    power *= 10;
                }
                remainder = self.decimal % power;
                self.decimal /= power;
            } else {
                self.decimal = 0;
            }
        } else {
            while e > 0 {
                e -= 1;
                self.decimal = self.checked(self.decimal.checked_mul(10))?;
            }
        }
        self.decimal_digits = self.decimal_digits.wrapping_sub(exp as u16);
        self.result = self.checked(if negative {
            self.result.checked_sub(self.decimal)
        } else {
            self.result.checked_add(self.decimal)
        })?;
        self.decimal = remainder;
        self.finalize(negative)
    }

    /// Into the target type, rounding by the first fractional digit.
    fn finalize(&mut self, negative: bool) -> Option<i128> {
        let mut v = self.result;
        if !(self.lo..=self.hi).contains(&v) {
            return None;
        }
        while self.decimal > 10 {
            self.decimal /= 10;
            self.decimal_digits = self.decimal_digits.wrapping_sub(1);
        }
        if self.decimal_digits == 1 && self.decimal >= 5 {
            v += if negative { -1 } else { 1 };
            if !(self.lo..=self.hi).contains(&v) {
                return None;
            }
        }
        Some(v)
    }
}

/// Whether an exponent was read, and its sign.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ExpKind {
    None,
    Positive,
    Negative,
}

/// DuckDB's decimal reader (`DecimalCastOperation`) and its state.
struct DecReader {
    width: u8,
    scale: u8,
    /// The digits DuckDB's store of this width keeps (4, 9, 18 or 38).
    store_digits: u8,
    result: i128,
    digit_count: u8,
    decimal_count: u8,
    round_set: bool,
    should_round: bool,
    excessive: u8,
    exp: ExpKind,
}

impl DecReader {
    fn round_up(&mut self, negative: bool) {
        self.result += if negative { -1 } else { 1 };
    }

    /// One digit divided away, and whether it rounds up.
    fn cut(&mut self, negative: bool) -> bool {
        let m = self.result % 10;
        self.result /= 10;
        if negative {
            m <= -5
        } else {
            m >= 5
        }
    }
}

impl Reader for DecReader {
    fn digit(&mut self, d: i128, negative: bool) -> Option<()> {
        if self.result == 0 && d == 0 {
            // Leading zeros do not count.
            return Some(());
        }
        if self.digit_count == self.width - self.scale {
            return None;
        }
        self.digit_count += 1;
        // The bounds of DuckDB's store (16 to 128 bits, by the width).
        let max = match self.store_digits {
            4 => i16::MAX.into(),
            9 => i32::MAX.into(),
            18 => i64::MAX.into(),
            _ => i128::MAX,
        };
        if negative {
            if self.result < -max / 10 {
                return None;
            }
            self.result = self.result * 10 - d;
        } else {
            if self.result > max / 10 {
                return None;
            }
            self.result = self.result * 10 + d;
        }
        Some(())
    }

    fn fraction(&mut self, d: i128, negative: bool) -> Option<()> {
        if self.decimal_count == self.scale && !self.round_set {
            self.round_set = true;
            self.should_round = d >= 5;
        }
        if self.digit_count + self.decimal_count >= self.store_digits {
            return Some(());
        }
        self.decimal_count += 1;
        self.result = if negative {
            self.result * 10 - d
        } else {
            self.result * 10 + d
        };
        Some(())
    }

    fn exponent(mut self, e: i16, negative: bool) -> Option<i128> {
        let mut e = i32::from(e);
        let excess = i32::from(self.decimal_count.saturating_sub(self.scale));
        if e > 0 {
            self.exp = ExpKind::Positive;
            if excess > e {
                self.excessive = (excess - e) as u8;
                e = 0;
            } else {
                e -= excess;
            }
        } else if e < 0 {
            self.exp = ExpKind::Negative;
        }
        self.finalize(negative)?;
        if e < 0 {
            // Divide by 10^-e; the last digit divided away rounds (none when the digits ran
            // out before: `8e-2` is 0).
            let mut up = false;
            for i in 0..-e {
                up = self.cut(negative);
                if self.result == 0 {
                    up &= i + 1 == -e;
                    break;
                }
            }
            if up {
                self.round_up(negative);
            }
        } else {
            for _ in 0..e {
                self.digit(0, negative)?;
            }
        }
        Some(self.result)
    }

    fn finalize(&mut self, negative: bool) -> Option<i128> {
        if self.exp != ExpKind::Positive && self.decimal_count > self.scale {
            self.excessive = self.decimal_count - self.scale;
        }
        if self.excessive > 0 {
            let mut up = false;
            for _ in 0..self.excessive {
                up = self.cut(negative);
            }
            if self.exp == ExpKind::Positive && up {
                self.round_up(negative);
            }
            self.decimal_count = self.scale;
        }
        if self.exp == ExpKind::None && self.round_set && self.should_round {
            self.round_up(negative);
        }
        for _ in self.decimal_count..self.scale {
            self.result *= 10;
        }
        Some(self.result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_sharing_a_cache_slot_keep_their_own_text() {
        let n = DATE_CACHE as i32;
        let days = [
            0,
            n,
            0,
            -n,
            n,
            i32::MAX,
            -i32::MAX,
            i32::MIN,
            i32::MIN + n,
            -719_162,
            -719_162 - 366,
            2_932_896,
        ];
        let a: ArrayRef = Arc::new(arrow::array::Date32Array::from(
            days.iter()
                .map(|&d| Some(d))
                .chain([None])
                .collect::<Vec<_>>(),
        ));
        let got = cast(Target::Varchar, false, &a, "column \"d\"").unwrap();
        let got = got.as_string::<i64>();
        for (i, &d) in days.iter().enumerate() {
            let mut want = String::new();
            date_text(&mut want, d);
            assert_eq!(got.value(i), want, "{d}");
        }
        assert_eq!(got.value(0), "1970-01-01");
        assert_eq!(got.value(1), "1981-03-20");
        assert_eq!(got.value(3), "1958-10-15");
        assert_eq!(got.value(5), "infinity");
        assert_eq!(got.value(10), "0001-01-01 (BC)");
        assert!(got.is_null(days.len()));
    }

    #[test]
    // The rows write the exact values, which the compiler rounds as the reader must.
    #[allow(clippy::excessive_precision)]
    fn strings_read_as_floats_as_duckdb_reads_them() {
        // DuckDB 2.0.1's TRY_CAST(s AS DOUBLE) and TRY_CAST(s AS FLOAT), the latter widened.
        let cases: &[(&str, Option<f64>, Option<f64>)] = &[
            ("1_000", Some(1000.0f64), Some(1000.0f64)),
            ("1__0", None, None),
            ("_1", None, None),
            ("1_", None, None),
            ("1e", None, None),
            ("e5", None, None),
            (".", None, None),
            ("-", None, None),
            ("+-1", Some(-1.0f64), Some(-1.0f64)),
            ("++1", None, None),
            ("-+1", None, None),
            ("1.5.5", None, None),
            ("1E2", Some(100.0f64), Some(100.0f64)),
            ("0x10", None, None),
            (" \t12", Some(12.0f64), Some(12.0f64)),
            ("12\n", Some(12.0f64), Some(12.0f64)),
            ("\n12\r", Some(12.0f64), Some(12.0f64)),
            ("\u{b}12", Some(12.0f64), Some(12.0f64)),
            ("\u{c}12", Some(12.0f64), Some(12.0f64)),
            ("inf", Some(f64::INFINITY), Some(f64::INFINITY)),
            ("-inf", Some(f64::NEG_INFINITY), Some(f64::NEG_INFINITY)),
            ("+inf", Some(f64::INFINITY), Some(f64::INFINITY)),
            ("INFINITY", Some(f64::INFINITY), Some(f64::INFINITY)),
            (
                "-Infinity",
                Some(f64::NEG_INFINITY),
                Some(f64::NEG_INFINITY),
            ),
            ("infin", None, None),
            ("nan", Some(f64::NAN), Some(f64::NAN)),
            ("-nan", Some(f64::NAN), Some(f64::NAN)),
            ("NAN", Some(f64::NAN), Some(f64::NAN)),
            ("nan(1)", Some(f64::NAN), Some(f64::NAN)),
            ("nan()", Some(f64::NAN), Some(f64::NAN)),
            ("nan(", None, None),
            ("nanx", None, None),
            ("1e-5", Some(1e-05f64), Some(9.999999747378752e-06f64)),
            ("1e309", Some(f64::INFINITY), Some(f64::INFINITY)),
            ("-1e309", Some(f64::NEG_INFINITY), Some(f64::NEG_INFINITY)),
            ("1e-400", Some(0.0f64), Some(0.0f64)),
            ("4.9e-324", Some(5e-324f64), Some(0.0f64)),
            ("1.5_", None, None),
            ("+.5", Some(0.5f64), Some(0.5f64)),
            ("-.", None, None),
            ("+", None, None),
            ("  ", None, None),
            ("", None, None),
            ("1e2_0", Some(1e20f64), Some(1.0000000200408773e20f64)),
            ("1 e2", None, None),
            ("1e 2", None, None),
            (" +1", Some(1.0f64), Some(1.0f64)),
            ("+ 1", None, None),
            ("1\u{a0}", None, None),
            ("-0", Some(-0.0f64), Some(-0.0f64)),
            ("5.", Some(5.0f64), Some(5.0f64)),
            ("5.e3", Some(5000.0f64), Some(5000.0f64)),
            (".e3", None, None),
            ("0.1", Some(0.1f64), Some(0.10000000149011612f64)),
            (
                "3.4028235e38",
                Some(3.4028235e38f64),
                Some(3.4028234663852886e38f64),
            ),
            ("3.4028236e38", Some(3.4028236e38f64), Some(f64::INFINITY)),
            ("1e-46", Some(1e-46f64), Some(0.0f64)),
            ("0x1p3", None, None),
            ("1d", None, None),
            ("1f", None, None),
            (
                "9007199254740993",
                Some(9007199254740992.0f64),
                Some(9007199254740992.0f64),
            ),
            ("1_0.5", Some(10.5f64), Some(10.5f64)),
            ("1._5", None, None),
            ("1_.5", None, None),
            ("1.5_5", Some(1.55f64), Some(1.5499999523162842f64)),
            ("1e_2", None, None),
            ("1_e2", None, None),
            ("-_1", None, None),
            ("0.0_1", Some(0.01f64), Some(0.009999999776482582f64)),
            ("1e-0_5", Some(1e-05f64), Some(9.999999747378752e-06f64)),
            ("+-inf", Some(f64::NEG_INFINITY), Some(f64::NEG_INFINITY)),
            ("+ nan", None, None),
            ("  -inf  ", Some(f64::NEG_INFINITY), Some(f64::NEG_INFINITY)),
            ("1e1000000000000", Some(f64::INFINITY), Some(f64::INFINITY)),
            ("0e99999999999", Some(0.0f64), Some(0.0f64)),
            ("0_.5", None, None),
            (".5_5", Some(0.55f64), Some(0.550000011920929f64)),
            ("-5_", None, None),
            ("１２", None, None),
        ];
        let same = |got: Option<f64>, want: Option<f64>| match (got, want) {
            (Some(g), Some(w)) => {
                g == w && g.is_sign_negative() == w.is_sign_negative() || g.is_nan() && w.is_nan()
            }
            (g, w) => g.is_none() && w.is_none(),
        };
        // Where DuckDB 2.0.1's reader (its fork of fast_float, which takes `_`) goes wrong, the
        // text as written: a `_` right after the fraction's first 8 digits, which it reads 8 at
        // a time (NULL there), and a `_` in more than 19 digits (a wrong value there).
        let misread: &[(&str, Option<f64>, Option<f64>)] = &[
            (
                ".12941046_7_8",
                Some(0.1294104678),
                Some(0.1294104678f32 as f64),
            ),
            (
                "0_404_5_13620_053535264",
                Some(404513620053535264.0),
                Some(404513620053535264.0f32 as f64),
            ),
            (
                "+46998027529477407448516_78.",
                Some(4.699802752947740744851678e24),
                Some(4.699802752947740744851678e24f32 as f64),
            ),
        ];
        for &(s, double, float) in cases.iter().chain(misread) {
            let d = parse_float::<f64>(s);
            assert!(same(d, double), "{s:?} as DOUBLE: {d:?}, want {double:?}");
            let f = parse_float::<f32>(s).map(f64::from);
            assert!(same(f, float), "{s:?} as FLOAT: {f:?}, want {float:?}");
        }
    }

    /// DuckDB 2.0's `TRY_CAST(s AS INTEGER)` and `TRY_CAST(s AS UINTEGER)`, probed.
    #[test]
    fn strings_read_as_duckdb_reads_them() {
        let cases: &[(&str, Option<i128>, Option<i128>)] = &[
            (" 12 ", Some(12), Some(12)),
            ("+5", Some(5), Some(5)),
            ("1.5", Some(2), Some(2)),
            ("-2.5", Some(-3), None),
            ("1e2", Some(100), Some(100)),
            ("1_000", Some(1000), Some(1000)),
            ("0x10", Some(16), Some(16)),
            ("0b101", Some(5), Some(5)),
            ("0xff_ff", Some(65535), Some(65535)),
            ("", None, None),
            ("12abc", None, None),
            ("1__0", None, None),
            ("_1", None, None),
            ("1_", None, None),
            ("1e", None, None),
            ("e5", None, None),
            (".", None, None),
            ("-", None, None),
            ("1.", Some(1), Some(1)),
            (".5", Some(1), Some(1)),
            ("1.49999999999999999999999", Some(1), Some(1)),
            ("999.994", Some(1000), Some(1000)),
            ("2147483647.5", None, Some(2147483648)),
            ("4294967295.4", None, Some(4294967295)),
            ("-0", Some(0), Some(0)),
            ("-0.4", Some(0), None),
            ("1e-5", Some(0), Some(0)),
            ("25e-1", Some(3), Some(3)),
            ("0.000000001e9", Some(1), Some(1)),
            (
                "12345678901234567890123456789012345678901234567890e-45",
                None,
                None,
            ),
            ("0e999999999999999999999", None, None),
            ("1e1_0", None, None),
            ("1_0e2", Some(1000), Some(1000)),
            (" 0x10 ", None, None),
            ("-0x10", None, None),
            ("+0x10", None, None),
            ("0x10e2", Some(4322), Some(4322)),
            ("1.5.5", None, None),
            ("1 e2", None, None),
            ("\u{a0}12", None, None),
            ("\u{b}12\r", Some(12), Some(12)),
            // Found by the crosscheck's random strings against DuckDB 2.0.1: digits that run
            // out before a negative exponent leave a first fractional digit of 0, and a sign
            // or an exponent sign followed by spaces alone is not a number.
            ("8e-2", Some(0), Some(0)),
            ("826E-7", Some(0), Some(0)),
            ("0.5e-1", Some(0), Some(0)),
            (".9e-1", Some(0), Some(0)),
            (" -6.e-5", Some(0), None),
            ("- ", None, None),
            ("+\u{b}\n", None, None),
            ("123E-\r", None, None),
            ("1e- ", None, None),
            ("1854_863042E\t\t", None, None),
            // Probed: the exponent moves fraction digits into the integer, and the first
            // digit left behind rounds.
            (".5e-0", Some(1), Some(1)),
            ("0.0049e3", Some(5), Some(5)),
            ("0.00051e3", Some(1), Some(1)),
            ("1.2355e2", Some(124), Some(124)),
            ("95e-1", Some(10), Some(10)),
            ("5.5e-1", Some(1), Some(1)),
            ("1.5e-1", Some(0), Some(0)),
            ("123456789012345678901e-10", None, None),
        ];
        for (s, int, uint) in cases {
            assert_eq!(parse_int(s.as_bytes(), IntTy::I32), *int, "INTEGER {s:?}");
            assert_eq!(parse_int(s.as_bytes(), IntTy::U32), *uint, "UINTEGER {s:?}");
        }
    }

    /// DuckDB 2.0.1's `TRY_CAST(s AS DECIMAL(w, s))`, probed (and found by random strings:
    /// the crosscheck holds 200,000 of them).
    #[test]
    fn strings_read_into_decimals_as_duckdb_reads_them() {
        let cases: &[(&str, u8, u8, Option<i128>)] = &[
            ("1.255", 4, 2, Some(126)),
            ("-1.255", 4, 2, Some(-126)),
            ("1.9999", 4, 2, Some(200)),
            (" 1.5 ", 5, 1, Some(15)),
            ("1.5e1", 5, 1, Some(150)),
            ("0x10", 9, 0, None),
            ("abc", 4, 2, None),
            ("123.4", 3, 1, None),
            // Integer digits count before the exponent: 0.85 does not fit a DECIMAL(3,2).
            ("85e-2", 3, 2, None),
            ("8e-2", 3, 2, Some(8)),
            ("8e-2", 4, 0, Some(0)),
            ("8e-1", 4, 0, Some(1)),
            ("8e-361", 4, 0, Some(0)),
            (" -0.7E-872", 3, 2, Some(0)),
            // Rounded or shifted past the width.
            ("9.995", 3, 2, None),
            ("999.5", 4, 0, Some(1000)),
            ("-0.578e+4", 5, 2, None),
            ("0.578e+4", 4, 0, Some(5780)),
            ("0.7e+39", 38, 0, None),
            // With a positive exponent, the last fraction digit cut rounds.
            ("6268153021.7011729913E+3", 18, 4, Some(62681530217011730)),
            ("0.125e1", 3, 2, Some(125)),
            ("1234.5e-1", 4, 0, Some(123)),
        ];
        for (s, w, sc, want) in cases {
            assert_eq!(
                parse_decimal(s.as_bytes(), *w, *sc),
                *want,
                "DECIMAL({w},{sc}) {s:?}"
            );
        }
    }

    #[test]
    fn decimals_print_every_digit_of_their_scale() {
        let v = |x: i128| i256::from_i128(x);
        assert_eq!(decimal_text(v(150), 2, false), "1.50");
        assert_eq!(decimal_text(v(-5), 2, false), "-0.05");
        assert_eq!(decimal_text(v(0), 3, false), "0.000");
        assert_eq!(decimal_text(v(-7), 0, false), "-7");
        assert_eq!(decimal_text(v(-2760), 4, true), "-.2760");
        assert_eq!(decimal_text(v(0), 4, true), ".0000");
        for (x, scale, bare) in [
            (150, 2, false),
            (-5, 2, false),
            (0, 3, false),
            (-7, 0, false),
            (-2760, 4, true),
            (0, 4, true),
            (5, 4, true),
            (123456, 3, false),
            (i128::MIN + 1, 10, false),
        ] {
            let mut t = String::from("x");
            push_decimal(&mut t, x, scale, bare);
            assert_eq!(t[1..], decimal_text(v(x), scale, bare), "{x} {scale}");
        }
        assert_eq!(rescale_i128(1255, 3, 2), Some(126));
        assert_eq!(rescale_i128(-1255, 3, 2), Some(-126));
        assert_eq!(rescale_i128(-4, 3, 2), Some(0));
        assert_eq!(rescale_i128(5, 0, 3), Some(5000));
        assert_eq!(rescale_i128(i128::MAX, 0, 1), None);
        assert_eq!(rescale(v(1255), 3, 2), Some(v(126)));
        assert_eq!(rescale(v(-1255), 3, 2), Some(v(-126)));
        assert_eq!(rescale(v(-4), 3, 2), Some(v(0)));
        assert_eq!(rescale(v(5), 0, 3), Some(v(5000)));
    }

    #[test]
    fn dates_and_timestamps_print_as_duckdb_prints_them() {
        let date = |d: i32| {
            let mut t = String::new();
            date_text(&mut t, d);
            t
        };
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(-719162), "0001-01-01");
        assert_eq!(date(-735525), "0045-03-15 (BC)");
        assert_eq!(date(i32::MAX), "infinity");
        assert_eq!(date(-i32::MAX), "-infinity");
        let ts = |v: i64, per: i64, z: bool| {
            let mut t = String::new();
            timestamp_text(&mut t, v, per, z);
            t
        };
        assert_eq!(ts(-1, 1000, false), "1969-12-31 23:59:59.999999");
        assert_eq!(ts(-1, 1, false), "1969-12-31 23:59:59.999999999");
        assert_eq!(ts(1_000_000, 1000, true), "1970-01-01 00:00:01+00");
        assert_eq!(ts(120_120_000, 1_000, false), "1970-01-01 00:02:00.12");
        assert_eq!(
            ts(-62135596801, 1_000_000_000, false),
            "0001-12-31 (BC) 23:59:59"
        );
        assert_eq!(ts(-i64::MAX, 1, false), "-infinity");
    }
}
