//! `date_diff('unit', start, end)` (`datediff`), `date_sub('unit', start, end)` (`datesub`)
//! and `last_day(x)`, as DuckDB's functions of those names (checked against DuckDB 2.0 with
//! `SET TimeZone = 'UTC'` by `scripts/date_func_check.py`).
//!
//! `date_sub` counts whole units instead, toward zero: months (and the units made of months)
//! as the months of DuckDB's `age(end, start)`, after moving `start` back to the last day of
//! `end`'s month when `end` is on it; weeks, days and shorter units as whole spans of the
//! microseconds between them; dates as their midnights. Of a timestamp with a time zone,
//! DuckDB's ICU counts hours, days and weeks between whole milliseconds (the start floored,
//! the end truncated), as here, and months in its own calendar (Julian before 1582), which
//! this refuses.
//!
//! `date_diff` counts the unit's boundaries crossed from `start` to `end` (T-SQL's
//! `DATEDIFF`), as a BIGINT: `date_diff('month', DATE '2024-01-31', DATE '2024-02-01')` is 1.
//! DuckDB's rules, quirks included:
//!
//! - Years, quarters, months, days and ISO years are those of the calendar dates; decades,
//!   centuries and millennia divide the (astronomical) year toward zero, so year -5 and year 5
//!   are in the same decade; quarters count `(12 × year + month − 1) / 3`, toward zero too.
//! - Weeks are whole 7-day spans between the dates (no Monday is counted), toward zero.
//! - Hours, minutes, seconds and milliseconds floor each instant to the unit; microseconds
//!   are the exact difference (an error where it leaves BIGINT).
//! - A date meeting a timestamp is its midnight; a string literal is read as a timestamp
//!   (`'2024-01-05 10:00'`) or a time of day, as the other argument asks. Two times of day
//!   count hours to microseconds.
//! - An infinite date or timestamp gives NULL.
//!
//! Two things follow the rest of this language rather than DuckDB's: a nanosecond timestamp
//! counts from its instant floored to the microsecond (DuckDB's cast to `TIMESTAMP` rounds
//! it, its `TIMESTAMPTZ_NS` floors it), and a timestamp with a time zone counts as one
//! without (DuckDB's calendar library, ICU, counts decades, centuries, millennia and
//! quarters of years before 1 differently).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, Date32Array, Int64Array};
use arrow::datatypes::{DataType, TimeUnit};

use super::arith::Value;
use super::eval::{exact_kind, infinite, infinity, Exact, Reason};
use super::func::{
    civil, days_and_ns, days_from_civil, describe, map_finite, operand_array, raw, str_values,
    time_of, Arg, Part,
};
use super::lit::{self, DAY_NS};
use super::strtime;

/// Microseconds in a day.
const DAY_US: i64 = DAY_NS as i64 / 1_000;

/// A unit `date_diff` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    Millennium,
    Century,
    Decade,
    Year,
    Quarter,
    Month,
    /// Whole weeks of 7 days.
    Week,
    /// `yearweek`: whole weeks of 7 days, as `week`, except between timestamps with a time
    /// zone, where DuckDB (ICU) counts the Mondays crossed.
    YearWeek,
    /// The year of the ISO week.
    IsoYear,
    Day,
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
}

/// The units, for messages.
const UNITS: &str = "millennium, century, decade, year, quarter, month, week, isoyear, day, \
                     hour, minute, second, millisecond, microsecond";

impl Unit {
    /// The unit a name stands for, in any case, as DuckDB's date part specifiers: the parts
    /// of a day (`dow`, `doy`, `julian`, ...) count days, `yearweek` weeks and `epoch`
    /// seconds. Else the one-line error.
    pub(crate) fn named(name: &str) -> Result<Unit, String> {
        Ok(match name.to_ascii_lowercase().as_str() {
            "year" | "yr" | "y" | "years" | "yrs" => Unit::Year,
            "month" | "mon" | "months" | "mons" => Unit::Month,
            "day" | "days" | "d" | "dayofmonth" | "dow" | "dayofweek" | "weekday" | "isodow"
            | "doy" | "dayofyear" | "julian" | "jd" => Unit::Day,
            "decade" | "dec" | "decades" | "decs" => Unit::Decade,
            "century" | "cent" | "centuries" | "c" => Unit::Century,
            "millennium" | "mil" | "millenniums" | "millennia" | "mils" | "millenium" => {
                Unit::Millennium
            }
            "microseconds" | "microsecond" | "us" | "usec" | "usecs" | "usecond" | "useconds" => {
                Unit::Microsecond
            }
            "milliseconds" | "millisecond" | "ms" | "msec" | "msecs" | "msecond" | "mseconds" => {
                Unit::Millisecond
            }
            "second" | "sec" | "seconds" | "secs" | "s" | "epoch" => Unit::Second,
            "minute" | "min" | "minutes" | "mins" | "m" => Unit::Minute,
            "hour" | "hr" | "hours" | "hrs" | "h" => Unit::Hour,
            "week" | "weeks" | "w" | "weekofyear" => Unit::Week,
            "yearweek" => Unit::YearWeek,
            "quarter" | "quarters" => Unit::Quarter,
            "isoyear" => Unit::IsoYear,
            _ => {
                return Err(format!(
                    "unsupported: date_diff() in {name} (the units are {UNITS})"
                ))
            }
        })
    }

    /// The unit's name, for messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Unit::Millennium => "millennium",
            Unit::Century => "century",
            Unit::Decade => "decade",
            Unit::Year => "year",
            Unit::Quarter => "quarter",
            Unit::Month => "month",
            Unit::Week => "week",
            Unit::YearWeek => "yearweek",
            Unit::IsoYear => "isoyear",
            Unit::Day => "day",
            Unit::Hour => "hour",
            Unit::Minute => "minute",
            Unit::Second => "second",
            Unit::Millisecond => "millisecond",
            Unit::Microsecond => "microsecond",
        }
    }

    /// Months in the unit, for the units made of months (`date_sub` counts them in months;
    /// `isoyear` as `year`, as DuckDB's does).
    fn months(self) -> Option<i64> {
        Some(match self {
            Unit::Millennium => 12_000,
            Unit::Century => 1_200,
            Unit::Decade => 120,
            Unit::Year | Unit::IsoYear => 12,
            Unit::Quarter => 3,
            Unit::Month => 1,
            _ => return None,
        })
    }

    /// Microseconds in the unit, for the units shorter than a day.
    fn micros(self) -> Option<i64> {
        Some(match self {
            Unit::Hour => 3_600_000_000,
            Unit::Minute => 60_000_000,
            Unit::Second => 1_000_000,
            Unit::Millisecond => 1_000,
            Unit::Microsecond => 1,
            _ => return None,
        })
    }

    /// The boundaries crossed between two dates, `days` after the epoch; `zoned` when a
    /// timestamp with a time zone is among the arguments.
    fn of_days(self, start: i64, end: i64, zoned: bool) -> i64 {
        let year = |d: i64| civil(d).0;
        // 12 × year + month − 1.
        let months = |d: i64| {
            let (y, m, _) = civil(d);
            y * 12 + m - 1
        };
        match self {
            Unit::Millennium => year(end) / 1000 - year(start) / 1000,
            Unit::Century => year(end) / 100 - year(start) / 100,
            Unit::Decade => year(end) / 10 - year(start) / 10,
            Unit::Year => year(end) - year(start),
            Unit::Quarter => months(end) / 3 - months(start) / 3,
            Unit::Month => months(end) - months(start),
            Unit::Week => (end - start) / 7,
            // 1970-01-01 was a Thursday: day 4 of the week that starts on Monday -3.
            Unit::YearWeek if zoned => (end + 3).div_euclid(7) - (start + 3).div_euclid(7),
            Unit::YearWeek => (end - start) / 7,
            Unit::IsoYear => Part::IsoYear.of(end, 0) - Part::IsoYear.of(start, 0),
            // Finer units are counted in microseconds.
            _ => end - start,
        }
    }
}

/// What an argument holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Days since the epoch.
    Date,
    /// Microseconds since the epoch, floored.
    Stamp,
    /// Microseconds since midnight, floored.
    Clock,
    /// A string literal, read once the other argument says as what.
    Text,
}

/// An argument: what it holds, its values (`None`: NULL or infinite), and whether it is a
/// literal (one value for every row).
struct Side {
    kind: Kind,
    /// A timestamp with a time zone.
    zoned: bool,
    values: Vec<Option<i64>>,
    text: Option<String>,
    one: bool,
}

/// The argument `a` of `shown` as a [`Side`]; `what` names it in messages.
fn side(a: ArrayRef, one: bool, shown: &str, what: &str) -> Result<Side, Reason> {
    let t = a.data_type();
    let takes = || {
        format!(
            "{shown} takes dates, timestamps or times of day, {what} is {}",
            describe(t)
        )
    };
    if let Some(strings) = str_values(&a) {
        if !one {
            return Err(format!("{}; CAST it to DATE or TIMESTAMP", takes()));
        }
        let text = strings.into_iter().next().flatten().map(str::to_owned);
        return Ok(Side {
            kind: Kind::Text,
            zoned: false,
            values: Vec::new(),
            text,
            one,
        });
    }
    let raw = |a: &ArrayRef| raw(a).map(|r| r.iter().collect::<Vec<_>>());
    let inf = infinity(t);
    let finite = |v: Option<i64>| v.filter(|v| !infinite(inf, *v));
    let (kind, values) = match (t, exact_kind(t)) {
        (DataType::Date32, _) => (Kind::Date, raw(&a)?.into_iter().map(finite).collect()),
        (_, Some(Exact::Time(per))) => {
            // Floored to whole microseconds (exact: `per` is a whole number of them, or 1).
            let per = per as i64;
            let us = |v: i64| match per {
                1 => Some(v.div_euclid(1_000)),
                p => v.checked_mul(p / 1_000),
            };
            let mut values = Vec::with_capacity(a.len());
            for v in raw(&a)? {
                values.push(match finite(v) {
                    None => None,
                    Some(v) => Some(us(v).ok_or_else(|| {
                        format!("{what} has a date out of the range of timestamps")
                    })?),
                });
            }
            (Kind::Stamp, values)
        }
        (_, Some(Exact::Clock(per))) => {
            let per = per as i64;
            let us = |v: i64| {
                if per == 1 {
                    v / 1_000
                } else {
                    v * (per / 1_000)
                }
            };
            (
                Kind::Clock,
                raw(&a)?.into_iter().map(|v| v.map(us)).collect(),
            )
        }
        _ => return Err(takes()),
    };
    Ok(Side {
        kind,
        zoned: matches!(t, DataType::Timestamp(_, Some(_))),
        values,
        text: None,
        one,
    })
}

/// A string literal's value as `kind` (a date's days, a timestamp's microseconds or a time
/// of day's), read as the comparisons read literals (`YYYY-MM-DD[ HH:MM[:SS[.f]]]`,
/// `HH:MM[:SS[.f]]`, no time zone, or DuckDB's words `infinity`, `-infinity` and `epoch`), to
/// the microsecond as DuckDB's cast reads it. `None` for an infinity (whose difference is NULL).
/// Met by a timestamp with a time zone (`zoned`), the string is DuckDB's `TIMESTAMPTZ`: a UTC
/// offset in it counts (`'2024-01-05 10:00:00+02'` is 08:00 UTC), as where it meets such a
/// column in a comparison.
fn read_text(s: &str, kind: Kind, zoned: bool) -> Result<Option<i64>, Reason> {
    let b = s.as_bytes();
    // The strict shape read, DuckDB's reading can still find the value out of range.
    let range = |_| format!("'{s}' is out of the range of timestamps");
    let (v, inf) = match kind {
        Kind::Clock => (
            lit::strict_time(s).and_then(|_| strtime::time(b).map_err(range))?,
            None,
        ),
        Kind::Date => (lit::date_text(s)?.into(), infinity(&DataType::Date32)),
        _ if zoned => (
            lit::timestamptz_literal(s).and_then(|_| strtime::timestamptz(b).map_err(range))?,
            infinity(&DataType::Timestamp(TimeUnit::Microsecond, None)),
        ),
        _ => (
            lit::timestamp_literal(s).and_then(|_| strtime::timestamp(b).map_err(range))?,
            infinity(&DataType::Timestamp(TimeUnit::Microsecond, None)),
        ),
    };
    Ok(Some(v).filter(|v| !infinite(inf, *v)))
}

/// `date_diff('unit', start, end)`.
pub(super) fn date_diff(unit: Unit, args: Vec<Arg>) -> Result<Value, Reason> {
    count(unit, args, false)
}

/// `date_sub('unit', start, end)`: the whole units from `start` to `end`.
pub(super) fn date_sub(unit: Unit, args: Vec<Arg>) -> Result<Value, Reason> {
    count(unit, args, true)
}

/// `date_diff` (boundaries crossed) or, `sub`, `date_sub` (whole units).
fn count(unit: Unit, args: Vec<Arg>, sub: bool) -> Result<Value, Reason> {
    let shown = format!(
        "{}('{}', ...)",
        if sub { "date_sub" } else { "date_diff" },
        unit.name()
    );
    // Check both arguments' types first: a NULL does not excuse a wrong type elsewhere.
    let mut sides = Vec::with_capacity(2);
    let mut null = false;
    let mut whats = Vec::with_capacity(2);
    for (o, what) in args {
        match operand_array(o, &shown, &what)? {
            Some((a, one)) => sides.push(Some(side(a, one, &shown, &what)?)),
            None => {
                null = true;
                sides.push(None);
            }
        }
        whats.push(what);
    }
    let kinds: Vec<Kind> = sides.iter().flatten().map(|s| s.kind).collect();
    let clock = kinds.contains(&Kind::Clock);
    if clock && kinds.iter().any(|k| matches!(k, Kind::Date | Kind::Stamp)) {
        return Err(format!(
            "{shown} takes two dates or timestamps, or two times of day: {} and {} are not alike",
            whats[0], whats[1]
        ));
    }
    if kinds == [Kind::Text, Kind::Text] {
        return Err(format!(
            "{shown} of two strings: say what they are, with DATE '...', TIMESTAMP '...' or \
             TIME '...'"
        ));
    }
    if clock && unit.micros().is_none() {
        return Err(format!(
            "{shown} of times of day: they count hours, minutes, seconds, milliseconds and \
             microseconds"
        ));
    }
    if null {
        return Ok(Value::Null);
    }
    let mut sides: Vec<Side> = sides.into_iter().flatten().collect();
    let end = sides.pop().expect("two");
    let start = sides.pop().expect("two");
    // Dates alone count in days (a string meeting a date is a date, DuckDB's DATE overload;
    // a time of day in it is refused, as comparisons refuse it). With a timestamp they count
    // in microseconds (DuckDB's TIMESTAMP overload), where a date out of the range of
    // timestamps fails, and a string is a timestamp.
    let dates = kinds.iter().all(|k| matches!(k, Kind::Date | Kind::Text));
    let zoned = start.zoned || end.zoned;
    if sub && zoned && unit.months().is_some() {
        // ICU adds months in its own calendar (Julian before 1582-10-15, and clamping the day
        // when it goes back), which this does not follow.
        return Err(format!(
            "{shown} of a timestamp with a time zone: DuckDB counts its months in ICU's \
             calendar, which this does not follow; CAST it AS TIMESTAMP to count them as a \
             zone-less timestamp's"
        ));
    }
    let to = if clock {
        Kind::Clock
    } else if dates {
        Kind::Date
    } else {
        Kind::Stamp
    };
    let resolve = |s: Side, what: &str| -> Result<Side, Reason> {
        match s.kind {
            Kind::Text => {
                let v = match &s.text {
                    None => None,
                    Some(t) => read_text(t, to, zoned)?,
                };
                Ok(Side {
                    kind: to,
                    values: vec![v],
                    ..s
                })
            }
            Kind::Date if !dates => {
                let mut values = Vec::with_capacity(s.values.len());
                for v in &s.values {
                    values.push(match v {
                        None => None,
                        Some(d) => Some(micros_of_day(*d).ok_or_else(|| {
                            format!(
                                "{shown}: {what} has a date out of the range of timestamps, \
                                 which a date meeting a timestamp becomes"
                            )
                        })?),
                    });
                }
                Ok(Side {
                    kind: Kind::Stamp,
                    values,
                    ..s
                })
            }
            _ => Ok(s),
        }
    };
    let start = resolve(start, &whats[0])?;
    let end = resolve(end, &whats[1])?;
    let n = if start.one {
        end.values.len()
    } else {
        start.values.len()
    };
    let at = |s: &Side, i: usize| if s.one { s.values[0] } else { s.values[i] };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (Some(a), Some(b)) = (at(&start, i), at(&end, i)) else {
            out.push(None);
            continue;
        };
        out.push(Some(if sub {
            // DuckDB counts dates as their midnights' timestamps.
            let us = |v: i64, what: &str| match dates {
                true => micros_of_day(v).ok_or_else(|| {
                    format!("{shown}: {what} has a date out of the range of timestamps")
                }),
                false => Ok(v),
            };
            let (mut a, mut b) = (us(a, &whats[0])?, us(b, &whats[1])?);
            if zoned
                && !matches!(
                    unit,
                    Unit::Minute | Unit::Second | Unit::Millisecond | Unit::Microsecond
                )
            {
                // DuckDB's ICU counts hours and longer units between whole milliseconds:
                // the start floored, the end truncated toward zero.
                a = a.div_euclid(1_000) * 1_000;
                b = b / 1_000 * 1_000;
            }
            whole_units(unit, a, b).ok_or_else(|| {
                format!(
                    "{shown}: the difference of {} and {} leaves BIGINT",
                    whats[0], whats[1]
                )
            })?
        } else if dates {
            count_dates(unit, a, b).ok_or_else(|| {
                format!(
                    "{shown}: {} or {} has a date whose microseconds leave BIGINT",
                    whats[0], whats[1]
                )
            })?
        } else {
            count_micros(unit, a, b, zoned).ok_or_else(|| {
                format!(
                    "{shown}: the difference of {} and {} leaves BIGINT",
                    whats[0], whats[1]
                )
            })?
        }));
    }
    let r: ArrayRef = Arc::new(Int64Array::from(out));
    Ok(if start.one && end.one {
        Value::One(r)
    } else {
        Value::Rows(r)
    })
}

/// The microseconds of a date's midnight, inside the range of timestamps (not an infinity).
fn micros_of_day(days: i64) -> Option<i64> {
    days.checked_mul(DAY_US).filter(|us| us.abs() < i64::MAX)
}

/// `date_diff` of two dates: days for the units of a day and longer, their midnights'
/// microseconds for the others (`None` where those leave BIGINT, as DuckDB fails).
fn count_dates(unit: Unit, start: i64, end: i64) -> Option<i64> {
    // Dates have no time zone.
    match unit {
        Unit::Hour | Unit::Minute | Unit::Second => {
            // DuckDB counts these in seconds of the epoch, which never overflow.
            let per = unit.micros().expect("finer than a day") / 1_000_000;
            Some(end * 86_400 / per - start * 86_400 / per)
        }
        Unit::Millisecond | Unit::Microsecond => {
            let (a, b) = (micros_of_day(start)?, micros_of_day(end)?);
            match unit {
                Unit::Microsecond => b.checked_sub(a),
                _ => Some(b / 1_000 - a / 1_000),
            }
        }
        _ => Some(unit.of_days(start, end, false)),
    }
}

/// `date_diff` of two instants or times of day in microseconds (`None` where the
/// microseconds between them leave BIGINT).
fn count_micros(unit: Unit, start: i64, end: i64, zoned: bool) -> Option<i64> {
    match unit.micros() {
        Some(1) => end.checked_sub(start),
        Some(per) => Some(end.div_euclid(per) - start.div_euclid(per)),
        None => Some(unit.of_days(start.div_euclid(DAY_US), end.div_euclid(DAY_US), zoned)),
    }
}

/// `date_sub` of two instants (or times of day) in microseconds: the whole units from
/// `start` to `end`, toward zero (`None` where the microseconds between them leave BIGINT).
/// Units of a month and longer count the months of DuckDB's `age(end, start)`, after
/// moving `start` back to the last day of `end`'s month when `end` is on it (so that
/// 2024-01-31 to 2024-02-29 is a whole month).
fn whole_units(unit: Unit, start: i64, end: i64) -> Option<i64> {
    if let Some(per) = unit.months() {
        return Some(age_months(start, end) / per);
    }
    match unit {
        Unit::Week | Unit::YearWeek => Some(end.checked_sub(start)? / (7 * DAY_US)),
        Unit::Day => Some(end.checked_sub(start)? / DAY_US),
        _ => Some(end.checked_sub(start)? / unit.micros().expect("finer than a day")),
    }
}

/// The whole months from `start` to `end` (microseconds since the epoch), negative when
/// `end` is earlier: DuckDB's `DateSub::MonthOperator`.
fn age_months(start: i64, end: i64) -> i64 {
    if start > end {
        return -age_months(end, start);
    }
    let split = |us: i64| days_and_ns(us, 1_000);
    let month_days = strtime::month_days;
    let (end_day, end_time) = split(end);
    let (ey, em, ed) = civil(end_day);
    let (start_day, start_time) = split(start);
    let (sy, sm, mut sd) = civil(start_day);
    let end_days = month_days(ey, em);
    if ed == end_days && (sd > end_days || (sd == end_days && start_time < end_time)) {
        // The same time on the last day of the (shorter) end month, in the start's month.
        sd = end_days;
    }
    // `Interval::GetAge(end, start)`: the fields' differences, each negative one borrowing
    // from the next larger (a day borrows the start month's days).
    let mut days = ed - sd;
    let mut months = (ey - sy) * 12 + (em - sm);
    if end_time < start_time {
        days -= 1;
    }
    while days < 0 {
        days += month_days(sy, sm);
        months -= 1;
    }
    months
}

/// `last_day(x)`: the last day of the month of a date or of a timestamp's day (its instant,
/// floored to the day, in UTC), as a date; NULL for an infinity.
pub(super) fn last_day(a: &ArrayRef, what: &str) -> Result<ArrayRef, Reason> {
    let (raw, per) = time_of(a, "last_day() takes a date or a timestamp", what)?;
    let out = map_finite(&raw, infinity(a.data_type()), |v| {
        let days = days_and_ns(v, per).0;
        let (y, m, _) = civil(days);
        let last = days_from_civil(y, m, strtime::month_days(y, m));
        i32::try_from(last)
            .ok()
            .filter(|d| *d != i32::MAX)
            .ok_or_else(|| {
                format!("{what} has a date whose last_day() is out of the range of dates")
            })
    })?;
    Ok(Arc::new(Date32Array::from(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_count_as_duckdb_counts_them() {
        let d = |y, m, dd| days_from_civil(y, m, dd);
        // DuckDB 2.0.1's answers.
        assert_eq!(Unit::Month.of_days(d(2024, 1, 31), d(2024, 2, 1), false), 1);
        assert_eq!(Unit::Decade.of_days(d(-5, 6, 1), d(5, 6, 1), false), 0);
        assert_eq!(Unit::Decade.of_days(d(-15, 6, 1), d(5, 6, 1), false), 1);
        assert_eq!(Unit::Quarter.of_days(d(-15, 6, 1), d(5, 6, 1), false), 79);
        assert_eq!(
            Unit::Millennium.of_days(d(2001, 1, 1), d(-999, 1, 1), false),
            -2
        );
        assert_eq!(Unit::Week.of_days(d(2024, 1, 10), d(2024, 1, 1), false), -1);
        assert_eq!(Unit::IsoYear.of_days(d(-15, 6, 1), d(5, 6, 1), false), 20);
        assert_eq!(
            count_dates(Unit::Second, d(5_000_000, 1, 1), d(-5_000_000, 1, 1)),
            Some(-315_569_520_000_000)
        );
        assert_eq!(
            count_dates(Unit::Microsecond, d(290_000, 1, 1), d(-290_000, 1, 1)),
            None
        );
        assert_eq!(
            count_dates(Unit::Millisecond, d(5_000_000, 1, 1), d(2024, 1, 1)),
            None
        );
        // -1 µs to 0: a second, a microsecond.
        assert_eq!(count_micros(Unit::Second, -1, 0, false), Some(1));
        assert_eq!(
            count_micros(
                Unit::Hour,
                10 * 3_600_000_000 + 1_800_000_000,
                9 * 3_600_000_000 + 600_000_000,
                false
            ),
            Some(-1)
        );
        assert_eq!(
            count_micros(Unit::Microsecond, i64::MIN + 1, i64::MAX - 1, false),
            None
        );
    }

    #[test]
    fn unit_names_are_duckdbs() {
        assert_eq!(Unit::named("DOW"), Ok(Unit::Day));
        assert_eq!(Unit::named("epoch"), Ok(Unit::Second));
        assert_eq!(Unit::named("yearweek"), Ok(Unit::YearWeek));
        assert!(Unit::named("era").unwrap_err().contains("the units are"));
        assert!(Unit::named("yyyy").is_err());
    }
}
