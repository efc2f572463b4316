//! Arithmetic of the `--where` language: exact for integers, decimals, dates and timestamps, as
//! its comparisons are, and DuckDB's DOUBLE and FLOAT operations for `/` and floats:
//!
//! - `+`, `-`, `*` and unary `-` of integers (any width and signedness), decimals (any
//!   precision and scale) and exact number literals give a decimal wide enough for every
//!   result (for `+` and `-`, one digit more than the wider operand's integer part and the
//!   larger scale; for `*`, the sum of the precisions and of the scales). Nothing wraps or
//!   rounds: a result needs over 76 digits before it is an error (DuckDB types `INTEGER +
//!   INTEGER` as INTEGER and fails when a sum overflows it; the values it does give are these).
//!   Up to 38 digits the work is done in 128-bit decimals, beyond in 256-bit ones.
//! - A date plus or minus an integer is a date (days); a date minus a date is the integer
//!   number of days between them. A date or a timestamp plus or minus an `INTERVAL` of fixed
//!   length is a timestamp, in microseconds (a nanosecond timestamp stays in nanoseconds),
//!   keeping the column's time zone. As in DuckDB.
//! - `%` (`mod`) of exact numbers is the remainder of the truncated quotient, with the sign
//!   of the dividend, at the larger scale (`7.5 % 2` is `1.5`, `-7 % 2` is `-1`); `a % 0` is
//!   NULL.
//! - `//` (`divide`) of integers is the quotient truncated toward zero (`-7 // 2` is `-3`), an
//!   integer; `a // 0` is NULL, as `a % 0` is. Of anything else it is `/`, as DuckDB's
//!   (`7.5 // 2` is 3.75).
//! - `/` is DuckDB's: a DOUBLE division, of exact numbers too (`7 / 2` is 3.5). Each operand
//!   is first rounded once to the nearest DOUBLE, as DuckDB 2.0 converts integers and
//!   decimals; `x / 0` is `inf`, `-inf` or NaN, as in IEEE 754 and DuckDB.
//! - A float operand makes the whole operation float, of the type DuckDB binds: DOUBLE when
//!   either operand is a DOUBLE (`1e0` is one), else FLOAT (a FLOAT meeting an integer or a
//!   decimal), the other operand rounded once to it. `+ - * / %` are then IEEE 754's, which
//!   round each result once and identically in every engine; `%` is C's `fmod` (`x % 0` is
//!   NaN), as DuckDB's. Only the operands' conversions could differ between engines, and
//!   these are DuckDB's.

use std::sync::Arc;

use arrow::array::{cast::AsArray, Array, ArrayRef, Date32Array, Datum, Scalar};
use arrow::compute::kernels::numeric;
use arrow::compute::{cast_with_options, CastOptions};
use arrow::datatypes::{DataType, Int32Type, Int64Type, TimeUnit};

use super::eval::{infinite, infinity, Reason};
use super::func;
use super::parse::ArithOp;

/// An operand of an arithmetic operation.
#[derive(Clone)]
pub(super) enum Operand {
    /// A column or a computed value: one value per row.
    Rows(ArrayRef),
    /// A literal, as a one-row array.
    One(ArrayRef),
    /// An `INTERVAL` literal, in microseconds.
    Interval(i64),
    /// `NULL`.
    Null,
}

/// The result of an operation.
pub(super) enum Value {
    /// One value per row, or one for every row (`One`: both operands were literals).
    Rows(ArrayRef),
    One(ArrayRef),
    /// NULL for every row.
    Null,
}

/// What an operand is to arithmetic.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// An exact number: its precision and scale (integers have scale 0).
    Num(u8, i8),
    /// A float: a DOUBLE (`true`) or a FLOAT (Float16 and Float32, as DuckDB reads both).
    Float(bool),
    Date,
    Ts(TimeUnit, Option<Arc<str>>),
    Interval,
}

/// `(precision, scale)` of an exact number type; a negative scale is folded into the
/// precision (the values are cast to scale 0).
fn kind(t: &DataType) -> Option<Kind> {
    use DataType::*;
    Some(match t {
        Int8 | UInt8 => Kind::Num(3, 0),
        Int16 | UInt16 => Kind::Num(5, 0),
        Int32 | UInt32 => Kind::Num(10, 0),
        Int64 => Kind::Num(19, 0),
        UInt64 => Kind::Num(20, 0),
        Decimal32(p, s) | Decimal64(p, s) | Decimal128(p, s) | Decimal256(p, s) => {
            if *s < 0 {
                Kind::Num(p.saturating_add(s.unsigned_abs()), 0)
            } else {
                Kind::Num(*p, *s)
            }
        }
        Float16 | Float32 => Kind::Float(false),
        Float64 => Kind::Float(true),
        Date32 => Kind::Date,
        Timestamp(u, tz) => Kind::Ts(*u, tz.clone()),
        _ => return None,
    })
}

/// The precision and scale of an exact number type (integers have scale 0).
pub(super) fn number(t: &DataType) -> Option<(u8, i8)> {
    match kind(t)? {
        Kind::Num(p, s) => Some((p, s)),
        _ => None,
    }
}

fn operand_kind(o: &Operand, what: &str) -> Result<Option<Kind>, Reason> {
    let t = match o {
        Operand::Rows(a) | Operand::One(a) => a.data_type(),
        Operand::Interval(_) => return Ok(Some(Kind::Interval)),
        Operand::Null => return Ok(None),
    };
    match kind(t) {
        Some(k) => Ok(Some(k)),
        None if matches!(t, DataType::Date64) => Err(format!(
            "{what} is a Date64: arithmetic takes Date32 dates (as Parquet stores them)"
        )),
        None => Err(format!(
            "{what} is {}: arithmetic takes numbers, dates and timestamps",
            describe_type(t)
        )),
    }
}

fn describe_type(t: &DataType) -> String {
    match t {
        DataType::Boolean => "a boolean".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "a string".into(),
        other => format!("of type {other}"),
    }
}

fn strict() -> CastOptions<'static> {
    CastOptions {
        safe: false,
        ..Default::default()
    }
}

pub(super) fn cast(a: &ArrayRef, to: &DataType) -> Result<ArrayRef, Reason> {
    if a.data_type() == to {
        return Ok(Arc::clone(a));
    }
    cast_with_options(a, to, &strict()).map_err(|e| e.to_string())
}

/// The array of an operand with a value per row or one.
#[derive(Clone)]
struct Side {
    array: ArrayRef,
    one: bool,
}

impl Side {
    fn map(&self, f: impl FnOnce(&ArrayRef) -> Result<ArrayRef, Reason>) -> Result<Side, Reason> {
        Ok(Side {
            array: f(&self.array)?,
            one: self.one,
        })
    }

    fn datum(&self) -> Box<dyn Datum + '_> {
        if self.one {
            Box::new(Scalar::new(&self.array))
        } else {
            Box::new(&self.array)
        }
    }
}

fn result(a: &Side, b: &Side, r: ArrayRef) -> Value {
    if a.one && b.one {
        Value::One(r)
    } else {
        Value::Rows(r)
    }
}

/// `a op b`. `what` describes each operand for messages.
pub(super) fn binary(
    op: ArithOp,
    a: Operand,
    b: Operand,
    what: (&str, &str),
) -> Result<Value, Reason> {
    let (ka, kb) = (operand_kind(&a, what.0)?, operand_kind(&b, what.1)?);
    let sym = op.symbol();
    let refuse = |ka: &Kind, kb: &Kind| {
        Err(format!(
            "cannot compute {} {sym} {}: {}",
            what.0,
            what.1,
            why_not(op, ka, kb)
        ))
    };
    let (Some(ka), Some(kb)) = (ka, kb) else {
        // NULL and a value arithmetic takes: NULL, whatever the types would make of it.
        return Ok(Value::Null);
    };
    let side = |o: Operand| match o {
        Operand::Rows(a) => Some(Side {
            array: a,
            one: false,
        }),
        Operand::One(a) => Some(Side {
            array: a,
            one: true,
        }),
        _ => None,
    };
    // DuckDB's `//` divides integers as integers, and anything else as `/` does.
    let op = match (op, &ka, &kb) {
        (ArithOp::IntDiv, Kind::Num(_, 0), Kind::Num(_, 0)) => ArithOp::IntDiv,
        (ArithOp::IntDiv, ..) => ArithOp::Div,
        _ => op,
    };
    match (op, &ka, &kb) {
        (_, Kind::Num(..) | Kind::Float(_), Kind::Num(..) | Kind::Float(_))
            if op == ArithOp::Div
                || matches!(ka, Kind::Float(_))
                || matches!(kb, Kind::Float(_)) =>
        {
            // DOUBLE unless a FLOAT meets no DOUBLE (exact numbers divide as DOUBLEs).
            let float = |k: &Kind, double| *k == Kind::Float(double);
            let double =
                float(&ka, true) || float(&kb, true) || !(float(&ka, false) || float(&kb, false));
            let (a, b) = (side(a).expect("a number"), side(b).expect("a number"));
            floats(op, &a, &b, double).map(|r| result(&a, &b, r))
        }
        (_, Kind::Num(p1, s1), Kind::Num(p2, s2)) => {
            let (a, b) = (side(a).expect("a number"), side(b).expect("a number"));
            if op == ArithOp::Rem {
                if let Some(r) = rem_by_literal(&a, &b) {
                    return r.map(|r| result(&a, &b, r));
                }
            }
            numbers(op, (&a, *p1, *s1), (&b, *p2, *s2)).map(|r| result(&a, &b, r))
        }
        (ArithOp::Add | ArithOp::Sub, Kind::Date, Kind::Num(p, 0)) => {
            let (d, n) = (side(a).expect("a date"), side(b).expect("a number"));
            date_plus_days(op, &d, (&n, *p)).map(|r| result(&d, &n, r))
        }
        (ArithOp::Add, Kind::Num(p, 0), Kind::Date) => {
            let (n, d) = (side(a).expect("a number"), side(b).expect("a date"));
            date_plus_days(op, &d, (&n, *p)).map(|r| result(&d, &n, r))
        }
        (ArithOp::Sub, Kind::Date, Kind::Date) => {
            let (a, b) = (side(a).expect("a date"), side(b).expect("a date"));
            let days = |s: &Side| s.map(|x| cast(x, &DataType::Int32));
            numbers(op, (&days(&a)?, 10, 0), (&days(&b)?, 10, 0)).map(|r| result(&a, &b, r))
        }
        (ArithOp::Add | ArithOp::Sub, Kind::Date | Kind::Ts(..), Kind::Interval) => {
            let Operand::Interval(us) = b else {
                unreachable!("an interval")
            };
            let t = side(a).expect("a date or timestamp");
            let us = if op == ArithOp::Sub {
                us.checked_neg().ok_or("the interval is too long")?
            } else {
                us
            };
            plus_interval(&t, &ka, us).map(|r| result(&t, &t, r))
        }
        (ArithOp::Add, Kind::Interval, Kind::Date | Kind::Ts(..)) => {
            let Operand::Interval(us) = a else {
                unreachable!("an interval")
            };
            let t = side(b).expect("a date or timestamp");
            plus_interval(&t, &kb, us).map(|r| result(&t, &t, r))
        }
        _ => refuse(&ka, &kb),
    }
}

/// Why `a op b` is refused, for operand kinds no rule of [`binary`] takes.
fn why_not(op: ArithOp, a: &Kind, b: &Kind) -> &'static str {
    use Kind::*;
    // A float is refused where any number is.
    let number = |k: &Kind| match k {
        Float(_) => Num(1, 0),
        k => k.clone(),
    };
    match (op, &number(a), &number(b)) {
        (_, Interval, Interval) => "write one interval, e.g. INTERVAL '1 day 2 hours'",
        (ArithOp::Mul, ..) => "only numbers multiply",
        (ArithOp::Div, ..) => "only numbers divide",
        (ArithOp::Rem, ..) => "only numbers have a remainder",
        (ArithOp::IntDiv, ..) => "only numbers divide",
        (_, Date, Num(..)) | (_, Num(..), Date) => {
            "a date takes a whole number of days (or an INTERVAL), and a number is subtracted \
             from a date, not a date from a number"
        }
        (_, Ts(..), Num(..)) | (_, Num(..), Ts(..)) => "a timestamp takes an INTERVAL",
        (_, Interval, Num(..)) | (_, Num(..), Interval) => {
            "an interval is added to or subtracted from a date or a timestamp"
        }
        (_, Interval, _) => "subtract the interval from the date or the timestamp instead",
        _ => {
            "dates and timestamps take INTERVALs, not each other (a date minus a date is a \
              number of days)"
        }
    }
}

/// `-a` (or `+a`: the same value, checked to be a number).
pub(super) fn sign(a: Operand, negated: bool, what: &str) -> Result<Value, Reason> {
    let Some(k) = operand_kind(&a, what)? else {
        return Ok(Value::Null);
    };
    if !matches!(k, Kind::Num(..) | Kind::Float(_)) {
        return Err(format!(
            "cannot compute -{what}: only numbers have a sign{}",
            if k == Kind::Interval {
                " (subtract the interval instead)"
            } else {
                ""
            }
        ));
    }
    let (array, one) = match a {
        Operand::Rows(a) => (a, false),
        Operand::One(a) => (a, true),
        _ => unreachable!("a number"),
    };
    let r = if negated {
        // An exact number in a decimal that holds its negation, a float as it is (a Float16
        // as a FLOAT, as DuckDB reads it).
        let x = match k {
            Kind::Num(p, s) => cast(&array, &decimal(p, s))?,
            _ if *array.data_type() == DataType::Float16 => cast(&array, &DataType::Float32)?,
            _ => array,
        };
        numeric::neg(&x).map_err(|e| e.to_string())?
    } else {
        array
    };
    Ok(if one { Value::One(r) } else { Value::Rows(r) })
}

/// The decimal type that holds `p` digits at scale `s` (128 bits up to 38, 256 beyond).
pub(super) fn decimal(p: u8, s: i8) -> DataType {
    if p <= 38 {
        DataType::Decimal128(38, s)
    } else {
        DataType::Decimal256(76, s)
    }
}

/// Two numbers, one of them a float or the operation a division: both rounded once to a
/// DOUBLE (or a FLOAT), then IEEE 754's operation. Arrow's casts round an integer or a
/// decimal once, to the nearest value, as DuckDB 2.0 does.
fn floats(op: ArithOp, a: &Side, b: &Side, double: bool) -> Result<ArrayRef, Reason> {
    let to = if double {
        DataType::Float64
    } else {
        DataType::Float32
    };
    let (a, b) = (a.map(|x| cast(x, &to))?, b.map(|x| cast(x, &to))?);
    kernel(op, &a, &b).map_err(|e| e.to_string())
}

/// Arrow's kernel of `op` on two operands of one type.
fn kernel(op: ArithOp, a: &Side, b: &Side) -> Result<ArrayRef, arrow::error::ArrowError> {
    let (a, b) = (a.datum(), b.datum());
    let (a, b) = (a.as_ref(), b.as_ref());
    match op {
        ArithOp::Add => numeric::add(a, b),
        ArithOp::Sub => numeric::sub(a, b),
        ArithOp::Mul => numeric::mul(a, b),
        ArithOp::Div => numeric::div(a, b),
        ArithOp::Rem => numeric::rem(a, b),
        ArithOp::IntDiv => unreachable!("an integer quotient is computed by int_div"),
    }
}

/// `a // b` of integers as decimals of scale 0 and one precision, `b`'s zeros NULL: the
/// quotient truncated toward zero, of the same type (its magnitude is at most `a`'s).
fn int_div(a: &Side, b: &Side) -> Result<ArrayRef, Reason> {
    use arrow::array::PrimitiveArray;
    use arrow::datatypes::{ArrowPrimitiveType, Decimal128Type, Decimal256Type};
    fn quotients<T: ArrowPrimitiveType>(
        a: &Side,
        b: &Side,
        div: impl Fn(T::Native, T::Native) -> Option<T::Native>,
    ) -> Result<ArrayRef, Reason> {
        let (x, y) = (a.array.as_primitive::<T>(), b.array.as_primitive::<T>());
        let n = if a.one && b.one {
            1
        } else if a.one {
            y.len()
        } else {
            x.len()
        };
        let at = |s: &Side, arr: &PrimitiveArray<T>, i: usize| {
            let i = if s.one { 0 } else { i };
            arr.is_valid(i).then(|| arr.value(i))
        };
        let q: PrimitiveArray<T> = (0..n)
            .map(|i| match (at(a, x, i), at(b, y, i)) {
                (Some(x), Some(y)) => div(x, y),
                _ => None,
            })
            .collect();
        Ok(Arc::new(q.with_data_type(a.array.data_type().clone())))
    }
    match a.array.data_type() {
        DataType::Decimal128(..) => quotients::<Decimal128Type>(a, b, |x, y| x.checked_div(y)),
        DataType::Decimal256(..) => quotients::<Decimal256Type>(a, b, |x, y| x.checked_div(y)),
        other => Err(format!("an integer quotient of {other}")),
    }
}

/// Two exact numbers, as decimals of the width every result needs.
fn numbers(
    op: ArithOp,
    (a, p1, s1): (&Side, u8, i8),
    (b, p2, s2): (&Side, u8, i8),
) -> Result<ArrayRef, Reason> {
    let (p1, s1, p2, s2) = (p1 as i32, s1 as i32, p2 as i32, s2 as i32);
    let (p, s) = match op {
        ArithOp::Add | ArithOp::Sub => ((p1 - s1).max(p2 - s2) + s1.max(s2) + 1, s1.max(s2)),
        ArithOp::Mul => (p1 + p2, s1 + s2),
        // The remainder is smaller than either operand, at their common scale.
        ArithOp::Rem => ((p1 - s1).max(p2 - s2) + s1.max(s2), s1.max(s2)),
        // An integer quotient is at most the dividend (the divisor's width is for its cast).
        ArithOp::IntDiv => (p1.max(p2), 0),
        ArithOp::Div => unreachable!("a division is a float's"),
    };
    if s > 76 {
        return Err(format!(
            "the result would have {s} digits after the point (at most 76)"
        ));
    }
    let p = p.min(76) as u8;
    let of = |x: &Side, sx: i32| x.map(|arr| cast(arr, &decimal(p, sx as i8)));
    let (a, b) = (of(a, s1)?, of(b, s2)?);
    let b = if matches!(op, ArithOp::Rem | ArithOp::IntDiv) {
        b.map(no_zeros)?
    } else {
        b
    };
    if op == ArithOp::IntDiv {
        return int_div(&a, &b);
    }
    kernel(op, &a, &b).map_err(|e| format!("{e} (beyond 76 digits)"))
}

/// `a % b` of a column of integers that fit an i64 by an integer literal other than 0 and -1
/// (`id % 10`, the common case), in 64-bit integers; `None` for other operands.
fn rem_by_literal(a: &Side, b: &Side) -> Option<Result<ArrayRef, Reason>> {
    use DataType::*;
    if a.one
        || !b.one
        || !matches!(
            a.array.data_type(),
            Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32
        )
        || number(b.array.data_type())?.1 != 0
    {
        return None;
    }
    let d = cast(&b.array, &Int64).ok()?;
    let d = d.as_any().downcast_ref::<arrow::array::Int64Array>()?;
    if !d.is_valid(0) || matches!(d.value(0), 0 | -1) {
        return None;
    }
    Some(
        cast(&a.array, &Int64)
            .and_then(|x| numeric::rem(&x, &Scalar::new(d.clone())).map_err(|e| e.to_string())),
    )
}

/// The divisor `b` with its zeros made NULL: `a % 0` is NULL (as in DuckDB with
/// `error_on_division_by_zero = false` and in Spark without ANSI mode; DuckDB 2.0's default
/// fails the query instead). Where the rest of the condition decides the row (`b <> 0 AND
/// a % b = 1`), NULL gives the answer DuckDB gives, which does not evaluate it there.
fn no_zeros(b: &ArrayRef) -> Result<ArrayRef, Reason> {
    let zero: ArrayRef = Arc::new(arrow::array::Int8Array::from(vec![0]));
    let zero = cast(&zero, b.data_type())?;
    let is_zero =
        arrow::compute::kernels::cmp::eq(b, &Scalar::new(&zero)).map_err(|e| e.to_string())?;
    if is_zero.true_count() == 0 {
        return Ok(Arc::clone(b));
    }
    arrow::compute::nullif(b, &is_zero).map_err(|e| e.to_string())
}

/// Operand `o` with its zeros (`-0.0` too) made NULL: a divisor DuckDB's `//` gives NULL for.
pub(super) fn zeros_to_null(o: Operand) -> Result<Operand, Reason> {
    let nulled = |a: &ArrayRef| -> Result<ArrayRef, Reason> {
        if !a.data_type().is_floating() {
            return no_zeros(a);
        }
        let f = cast(a, &DataType::Float64)?;
        let zero: arrow::array::BooleanArray = f
            .as_primitive::<arrow::datatypes::Float64Type>()
            .iter()
            .map(|v| Some(v == Some(0.0)))
            .collect();
        arrow::compute::nullif(a, &zero).map_err(|e| e.to_string())
    };
    Ok(match o {
        Operand::Rows(a) => Operand::Rows(nulled(&a)?),
        Operand::One(a) => Operand::One(nulled(&a)?),
        other => other,
    })
}

/// A date plus (or minus) a whole number of days: a date. An infinite date stays infinite
/// (NULL days give NULL), as in DuckDB.
fn date_plus_days(op: ArithOp, d: &Side, (n, p): (&Side, u8)) -> Result<ArrayRef, Reason> {
    let days = d.map(|x| cast(x, &DataType::Int32))?;
    let inf = infinity(&DataType::Date32);
    let raw = days.array.as_primitive::<Int32Type>().clone();
    let any_infinite = raw.iter().flatten().any(|v| infinite(inf, v.into()));
    // The sum is computed with 0 in an infinite date's place, which is put back after.
    let finite = if any_infinite {
        days.map(|_| {
            Ok(
                Arc::new(raw.unary::<_, Int32Type>(|v| if infinite(inf, v.into()) { 0 } else { v }))
                    as ArrayRef,
            )
        })?
    } else {
        days
    };
    let out_of_range = || "a date plus that many days is out of the range of dates (Date32)";
    let sum = numbers(op, (&finite, 10, 0), (n, p, 0))?;
    let sum = cast(&sum, &DataType::Int32).map_err(|_| out_of_range().to_string())?;
    let mut out = Vec::with_capacity(sum.len());
    for (i, v) in sum.as_primitive::<Int32Type>().iter().enumerate() {
        let date = raw.value(if finite.one { 0 } else { i });
        out.push(match v {
            None => None,
            Some(_) if infinite(inf, date.into()) => Some(date),
            // A finite date does not become an infinite one.
            Some(v) if infinite(inf, v.into()) => return Err(out_of_range().to_string()),
            Some(v) => Some(v),
        });
    }
    Ok(Arc::new(Date32Array::from(out)))
}

/// A date or a timestamp plus `us` microseconds: a timestamp in microseconds (nanoseconds
/// for a nanosecond one), in the column's time zone.
fn plus_interval(t: &Side, k: &Kind, us: i64) -> Result<ArrayRef, Reason> {
    let (unit, tz) = match k {
        Kind::Ts(TimeUnit::Nanosecond, tz) => (TimeUnit::Nanosecond, tz.clone()),
        Kind::Ts(_, tz) => (TimeUnit::Microsecond, tz.clone()),
        _ => (TimeUnit::Microsecond, None),
    };
    let out = DataType::Timestamp(unit, tz.clone());
    let delta = match unit {
        TimeUnit::Nanosecond => us
            .checked_mul(1000)
            .ok_or("the interval is too long for a nanosecond timestamp")?,
        _ => us,
    };
    let ts = func::rescale(&t.array, unit, &|| {
        "the timestamp is out of range".to_string()
    })?;
    let raw = cast(&ts, &DataType::Int64)?;
    // An infinite timestamp stays infinite, as in DuckDB; a finite one does not become one.
    let inf = infinity(&out);
    let sum = raw
        .as_primitive::<Int64Type>()
        .try_unary::<_, Int64Type, ()>(|v| match v.checked_add(delta) {
            _ if infinite(inf, v) => Ok(v),
            Some(s) if !infinite(inf, s) => Ok(s),
            _ => Err(()),
        })
        .map_err(|()| {
            "a timestamp plus that interval is out of the range of timestamps".to_string()
        })?;
    Ok(func::timestamps(unit, tz, &sum))
}
