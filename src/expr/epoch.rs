//! Instants as numbers and back, as DuckDB's functions of these names (checked against
//! DuckDB 2.0 with `SET TimeZone = 'UTC'` by `scripts/date_func_check.py`):
//!
//! - `epoch(x)` (`date_part('epoch', x)`): the seconds since 1970-01-01 as a DOUBLE, to the
//!   microsecond (of a timestamp with a time zone, DuckDB's ICU adds the whole milliseconds
//!   and the microseconds left as two DOUBLEs, which can differ in the last digit; so does
//!   this). `julian(x)` (`date_part('julian', x)`): the day's number, 2,440,588 for
//!   1970-01-01, as a DOUBLE whose fraction is the time of day.
//! - `epoch_ms(x)`, `epoch_us(x)`, `epoch_ns(x)`: the milliseconds, microseconds or
//!   nanoseconds since 1970-01-01 as a BIGINT. `epoch_ms` of a timestamp rounds its
//!   microseconds half away from zero, as DuckDB's cast to `TIMESTAMP_MS` does (1969-12-31
//!   23:59:59.9995 is -1, 2000-01-01 00:00:00.0015 is 946684800002); the others floor. Of
//!   a time of day, those since midnight. Where the count leaves BIGINT, the job fails, as
//!   DuckDB's query does.
//! - `epoch_ms(n)` of a whole number: the timestamp `n` milliseconds after 1970-01-01.
//! - `to_timestamp(s)`: the timestamp with time zone (UTC) `s` seconds after 1970-01-01, `s`
//!   a DOUBLE whose microseconds are rounded half to even (DuckDB's cast to BIGINT).
//! - `make_date(y, m, d)`: the date, an error when there is none (`make_date(2023, 2, 29)`).
//!
//! An infinite date or timestamp gives NULL. A nanosecond timestamp counts from its instant
//! floored to the microsecond, except in `epoch_ns` (as the rest of this language: DuckDB's
//! `epoch` and `epoch_us` floor too, its cast to `TIMESTAMP` rounds). DuckDB 2.0 fails
//! `epoch_ms` of a `TIMESTAMP_S`, `_MS` or `_NS` ("Unimplemented type for cast"); here it is
//! that instant's, as of a `TIMESTAMP`.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Date32Array, Float64Array, Int64Array};
#[cfg(test)]
use arrow::datatypes::Float64Type;
use arrow::datatypes::{DataType, Int64Type, TimeUnit};

use super::arith::{self, Value};
use super::eval::{exact_kind, infinity, Exact, Reason};
use super::func::{days_and_ns, describe, map_finite, operand_array, raw, timestamps, Arg};
use super::lit::{Lit, DAY_NS};
use super::strtime;

/// What `epoch`-like functions give of a date, a timestamp or a time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Epoch {
    /// `epoch(x)`: seconds, a DOUBLE.
    Seconds,
    /// `epoch_ms(x)`: milliseconds, a BIGINT (of a whole number: the timestamp).
    Millis,
    /// `epoch_us(x)`: microseconds, a BIGINT.
    Micros,
    /// `epoch_ns(x)`: nanoseconds, a BIGINT.
    Nanos,
    /// `julian(x)`: the Julian day, a DOUBLE.
    Julian,
}

impl Epoch {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Epoch::Seconds => "epoch",
            Epoch::Millis => "epoch_ms",
            Epoch::Micros => "epoch_us",
            Epoch::Nanos => "epoch_ns",
            Epoch::Julian => "julian",
        }
    }

    /// Nanoseconds per unit counted: the BIGINT functions' units, and microseconds for the
    /// DOUBLEs (DuckDB computes them from a timestamp's microseconds).
    fn per(self) -> i128 {
        match self {
            Epoch::Millis => 1_000_000,
            Epoch::Micros | Epoch::Seconds | Epoch::Julian => 1_000,
            Epoch::Nanos => 1,
        }
    }
}

/// The Julian day of 1970-01-01.
const JULIAN_1970: i64 = 2_440_588;

/// `epoch(x)`, `epoch_ms(x)`, `epoch_us(x)`, `epoch_ns(x)` or `julian(x)` of one array.
pub(super) fn epoch(e: Epoch, a: &ArrayRef, what: &str) -> Result<ArrayRef, Reason> {
    let name = e.name();
    let kind = exact_kind(a.data_type());
    let (raw, per) = match kind {
        Some(Exact::Num(0)) if e == Epoch::Millis => return from_millis(a, what),
        Some(Exact::Time(per)) => (raw(a)?, per),
        Some(Exact::Clock(per)) if e != Epoch::Julian => (raw(a)?, per),
        _ => {
            let takes = match e {
                Epoch::Millis => "a date, a timestamp, a time of day or a whole number",
                Epoch::Julian => "a date or a timestamp",
                _ => "a date, a timestamp or a time of day",
            };
            return Err(format!(
                "{name}() takes {takes}, {what} is {}",
                describe(a.data_type())
            ));
        }
    };
    // Times of day have none.
    let inf = infinity(a.data_type());
    let timestamp = matches!(a.data_type(), DataType::Timestamp(..));
    let zoned = matches!(a.data_type(), DataType::Timestamp(_, Some(_)));
    // Each value as (floored) units of `e` since the epoch; `None` where it leaves BIGINT.
    let units = |v: i64| -> Option<i64> {
        let ns = i128::from(v) * per;
        if e == Epoch::Millis && timestamp {
            // DuckDB's cast to TIMESTAMP_MS (`GetEpochRounded`): the microseconds rounded
            // half away from zero.
            let halves = ns.div_euclid(1_000) / 500;
            let away = if halves < 0 { halves - 1 } else { halves + 1 };
            return i64::try_from(away / 2).ok();
        }
        i64::try_from(ns.div_euclid(e.per())).ok()
    };
    let out_of_range = |v: i64, units: &str| {
        let value = match a.data_type() {
            DataType::Date32 => Lit::Date(v as i32),
            _ => Lit::Timestamp(i128::from(v) * per),
        };
        format!(
            "{name}(): {what} holds {value}, whose {units} since 1970-01-01 are out of the range \
             of BIGINT"
        )
    };
    Ok(match e {
        Epoch::Seconds | Epoch::Julian => {
            Arc::new(Float64Array::from(map_finite(&raw, inf, |v| {
                Ok(if e == Epoch::Julian {
                    // DuckDB's `GetJulianDay`: the day's fraction, then its number.
                    let (days, ns) = days_and_ns(v, per as i64);
                    (ns / 1_000) as f64 / (DAY_NS / 1_000) as f64 + (days + JULIAN_1970) as f64
                } else if a.data_type() == &DataType::Date32 {
                    // DuckDB's `Date::Epoch`: whole seconds.
                    (v * 86_400) as f64
                } else {
                    let us = units(v).ok_or_else(|| out_of_range(v, "microseconds"))?;
                    if zoned {
                        // DuckDB's ICU: whole milliseconds, then the microseconds left.
                        us.div_euclid(1_000) as f64 / 1e3 + us.rem_euclid(1_000) as f64 / 1e6
                    } else {
                        us as f64 / 1e6
                    }
                })
            })?))
        }
        _ => {
            let unit = match e {
                Epoch::Millis => "milliseconds",
                Epoch::Micros => "microseconds",
                _ => "nanoseconds",
            };
            Arc::new(Int64Array::from(map_finite(&raw, inf, |v| {
                units(v).ok_or_else(|| out_of_range(v, unit))
            })?))
        }
    })
}

/// `epoch_ms(n)` of whole numbers: timestamps of microseconds, zone-less.
fn from_millis(a: &ArrayRef, what: &str) -> Result<ArrayRef, Reason> {
    let ms = whole(a, "epoch_ms()", what)?;
    let us = ms
        .try_unary::<_, Int64Type, i64>(|v| v.checked_mul(1_000).ok_or(v))
        .map_err(|v| {
            format!(
                "epoch_ms(): {what} holds {v}, whose timestamp is out of the range of timestamps"
            )
        })?;
    Ok(timestamps(TimeUnit::Microsecond, None, &us))
}

/// Whole numbers as BIGINTs, or an error naming the function and the argument.
fn whole(a: &ArrayRef, f: &str, what: &str) -> Result<Int64Array, Reason> {
    if exact_kind(a.data_type()) != Some(Exact::Num(0)) {
        return Err(format!(
            "{f} takes whole numbers, {what} is {}",
            describe(a.data_type())
        ));
    }
    let r = arith::cast(a, &DataType::Int64)
        .map_err(|_| format!("{f}: {what} holds a value out of the range of BIGINT"))?;
    Ok(r.as_primitive::<Int64Type>().clone())
}

/// `to_timestamp(s)`: `s` seconds (a DOUBLE) after the epoch, rounded to the microsecond half
/// to even (DuckDB's cast of a DOUBLE to BIGINT), as a timestamp with time zone UTC.
pub(super) fn to_timestamp(a: &ArrayRef, what: &str) -> Result<ArrayRef, Reason> {
    if !matches!(exact_kind(a.data_type()), Some(Exact::Num(_)))
        && !super::eval::is_float(a.data_type())
    {
        return Err(format!(
            "to_timestamp() takes a number of seconds, {what} is {}",
            describe(a.data_type())
        ));
    }
    let secs = super::math::doubles(a)?;
    let us = secs
        .try_unary::<_, Int64Type, f64>(|s| {
            let us = (s * 1e6).round_ties_even();
            // DuckDB's range for a DOUBLE cast to BIGINT: [-2^63, 2^63).
            if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&us) {
                Ok(us as i64)
            } else {
                Err(s)
            }
        })
        .map_err(|s| {
            format!("to_timestamp(): {what} holds {s} seconds, out of the range of timestamps")
        })?;
    Ok(timestamps(TimeUnit::Microsecond, Some("UTC".into()), &us))
}

/// `make_date(y, m, d)`: the date of whole numbers, an error where there is none.
pub(super) fn make_date(mut args: Vec<Arg>) -> Result<Value, Reason> {
    let mut parts = Vec::with_capacity(3);
    let mut rows = None;
    for (o, what) in args.drain(..) {
        let Some((a, one)) = operand_array(o, "make_date()", &what)? else {
            return Ok(Value::Null);
        };
        if !one {
            rows = Some(a.len());
        }
        parts.push((whole(&a, "make_date()", &what)?, one));
    }
    let n = rows.unwrap_or(1);
    let at = |(a, one): &(Int64Array, bool), i: usize| {
        let i = if *one { 0 } else { i };
        a.is_valid(i).then(|| a.value(i))
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (Some(y), Some(m), Some(d)) = (at(&parts[0], i), at(&parts[1], i), at(&parts[2], i))
        else {
            out.push(None);
            continue;
        };
        out.push(Some(strtime::from_date(y, m, d).ok_or_else(|| {
            format!("make_date(): there is no date {y}-{m}-{d} (out of range)")
        })?));
    }
    let r: ArrayRef = Arc::new(Date32Array::from(out));
    Ok(if rows.is_none() {
        Value::One(r)
    } else {
        Value::Rows(r)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(e: Epoch, a: ArrayRef) -> ArrayRef {
        epoch(e, &a, "x").unwrap()
    }

    #[test]
    fn epoch_ms_of_timestamps_rounds_half_away_from_zero_as_duckdb() {
        // DuckDB 2.0.1: epoch_ms(TIMESTAMP '2000-01-01 00:00:00.0015') is 946684800002, of
        // '1960-01-01 00:00:00.0015' -315619199999, of '1969-12-31 23:59:59.9995' -1; the
        // microseconds of a time of day are truncated.
        let ts: ArrayRef = Arc::new(arrow::array::TimestampMicrosecondArray::from(vec![
            946_684_800_001_500,
            -315_619_199_998_500,
            -315_619_199_998_400,
            -500,
            -499,
            0,
        ]));
        let ms = one(Epoch::Millis, ts);
        let want = Int64Array::from(vec![
            946_684_800_002,
            -315_619_199_999,
            -315_619_199_998,
            -1,
            0,
            0,
        ]);
        assert_eq!(ms.as_primitive::<Int64Type>(), &want);
        let t: ArrayRef = Arc::new(arrow::array::Time64MicrosecondArray::from(vec![1_999]));
        assert_eq!(
            one(Epoch::Millis, t).as_primitive::<Int64Type>().value(0),
            1
        );
    }

    #[test]
    fn epoch_of_zoned_timestamps_adds_milliseconds_and_microseconds_as_icu() {
        // DuckDB 2.0.1 (ICU) gives -10951199999.999998 for 1622-12-21 00:00:00.000001+00,
        // and -10951200000 for the TIMESTAMP (the microseconds, one DOUBLE, then seconds).
        let us = -10_951_199_999_999_999_i64;
        let tz: ArrayRef =
            Arc::new(arrow::array::TimestampMicrosecondArray::from(vec![us]).with_timezone("UTC"));
        let plain: ArrayRef = Arc::new(arrow::array::TimestampMicrosecondArray::from(vec![us]));
        let secs = |a| {
            one(Epoch::Seconds, a)
                .as_primitive::<Float64Type>()
                .value(0)
        };
        assert_eq!(secs(tz), -10_951_199_999.999_998);
        assert_eq!(secs(plain), -10_951_200_000.0);
    }

    #[test]
    fn make_date_takes_calendar_dates_only() {
        assert_eq!(strtime::from_date(2024, 2, 29), Some(19_782));
        assert_eq!(strtime::from_date(2023, 2, 29), None);
        assert_eq!(strtime::from_date(1900, 2, 29), None);
        assert_eq!(strtime::from_date(2000, 2, 29), Some(11_016));
        assert_eq!(strtime::from_date(2020, 13, 1), None);
        assert_eq!(strtime::from_date(2020, 1, 0), None);
        // DuckDB's range: 5877642-06-25 (BC) to 5881580-07-10, between its infinities.
        assert_eq!(strtime::from_date(5_881_580, 7, 10), Some(i32::MAX - 1));
        assert_eq!(strtime::from_date(5_881_580, 7, 11), None);
        assert_eq!(strtime::from_date(-5_877_641, 6, 25), Some(-i32::MAX + 1));
        assert_eq!(strtime::from_date(-5_877_641, 6, 24), None);
        assert_eq!(strtime::from_date(1 << 40, 1, 1), None);
    }
}
