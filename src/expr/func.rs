//! Functions of the `--where` language: `lower`, `upper`, `length`, `abs`, `coalesce`,
//! `CAST(x AS DATE)`, `CAST(x AS TIMESTAMP)`, the parts of dates and timestamps (`year`,
//! `month`, `EXTRACT(HOUR FROM ts)`, `millisecond`, `decade`, `yearweek`, ...) and
//! `date_trunc`. Each follows DuckDB's function of that name (checked against DuckDB 2.0
//! with `SET TimeZone = 'UTC'`), and is exact as the rest of the language is:
//!
//! - `abs` of an integer or a decimal is its exact value (DuckDB's `abs(-128::TINYINT)`
//!   fails; this is 128).
//! - `CAST(ts AS DATE)` is the day of the instant, floored: DuckDB first truncates a
//!   nanosecond timestamp to microseconds toward zero, so a nanosecond before a midnight before
//!   1970 is the next day there. `CAST(ts AS TIMESTAMP)` keeps nanoseconds (DuckDB truncates
//!   them to microseconds). `date_trunc` of a nanosecond timestamp floors the instant too.
//! - Parts are computed from the stored instant in UTC, whatever the column's time zone, as
//!   DuckDB does with `TimeZone = 'UTC'`; years are astronomical (0 is 1 BC), over the
//!   whole range of Date32.
//! - DuckDB's infinite dates and timestamps (`±i32::MAX` days, `±i64::MAX` of any unit) have
//!   NULL parts, and casts and `date_trunc` keep them infinite.
//! - `CAST` of a string column to a date, a timestamp or a time of day reads each string as
//!   DuckDB does (`strtime`).

use std::sync::Arc;

use arrow::array::{
    cast::AsArray, Array, ArrayRef, Date32Array, GenericStringArray, Int64Array, LargeStringArray,
    OffsetSizeTrait, PrimitiveArray, TimestampMicrosecondArray,
};
use arrow::buffer::{Buffer, OffsetBuffer};
use arrow::compute::kernels::{cmp, numeric, zip::zip};
use arrow::compute::{is_not_null, nullif};
use arrow::datatypes::*;

use super::arith::{self, Operand, Value};
use super::cast::Target;
use super::diff::{self, Unit};
use super::epoch::{self, Epoch};
use super::eval::{self, exact_kind, infinite, infinity, Exact, Reason};
use super::lit::DAY_NS;
use super::math::Math;
use super::strtime::{self, Bad};
use super::text::Text;

/// A function of the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Func {
    Lower,
    Upper,
    Length,
    Abs,
    Coalesce,
    /// `greatest(...)` (true) or `least(...)`: each row's largest or smallest value that is
    /// not NULL.
    Extreme(bool),
    /// `CAST(x AS DATE)`; `TRY_CAST` (true) gives NULL where the date is out of range or a
    /// string is not one.
    Date(bool),
    /// `CAST(x AS TIMESTAMP)`; `TRY_CAST` (true) gives NULL where a string is not one.
    Timestamp(bool),
    /// `CAST(x AS TIMESTAMPTZ)` (`TIMESTAMP WITH TIME ZONE`): the instant, labelled UTC;
    /// `TRY_CAST` (true) gives NULL where a string is not one.
    TimestampTz(bool),
    /// `CAST(x AS TIMESTAMP_S | TIMESTAMP_MS | TIMESTAMP_NS)` of a column: the instant in that
    /// unit, rounded half away from zero; `TRY_CAST` (true) gives NULL where a string is not a
    /// timestamp or a value is out of the unit's range.
    TimestampUnit(TimeUnit, bool),
    /// `CAST(x AS TIME)`; `TRY_CAST` (true) gives NULL for an infinite timestamp or a string
    /// that is not a time.
    Clock(bool),
    /// A part of a date or a timestamp, as a BIGINT.
    Part(Part),
    /// `date_trunc('unit', x)`: the instant truncated to the start of its unit.
    Trunc(Trunc),
    /// `date_diff('unit', start, end)`: the unit's boundaries crossed (see `diff`).
    DateDiff(Unit),
    /// `date_sub('unit', start, end)`: the whole units from start to end (see `diff`).
    DateSub(Unit),
    /// `last_day(x)`: the last day of the month, as a date.
    LastDay,
    /// `epoch(x)`, `epoch_ms(x)`, ... (see `epoch`).
    Epoch(Epoch),
    /// `to_timestamp(seconds)`: a timestamp with time zone.
    ToTimestamp,
    /// `x AT TIME ZONE 'zone'`, `timezone('zone', x)`: an instant as the zone's wall-clock
    /// time, or a wall-clock time (or a date) in the zone as an instant (see `zone`).
    AtZone(super::zone::Zone),
    /// `make_date(year, month, day)`.
    MakeDate,
    /// `strftime(x, format)`: a date or a timestamp as text (see `strftime`).
    Strftime,
    /// `strptime(s, format)`: a string read as a timestamp; `try_strptime` (true) gives NULL
    /// where it does not match.
    Strptime(bool),
    /// A string function (`substr`, `trim`, `||`, ...: see `text`).
    Text(Text),
    /// `md5(x)`, `sha1(x)`, `sha256(x)`: a digest as hexadecimal text (see `digest`).
    Digest(super::digest::Hash),
    /// A numeric function (`round`, `sqrt`, ...: see `math`).
    Math(Math),
    /// `CASE WHEN c THEN v ... [ELSE e] END`: the arguments are the conditions and values in
    /// turn, then the `ELSE` value when there is one (true).
    Case(bool),
    /// `CAST(x AS INTEGER | DECIMAL(p, s) | VARCHAR | ...)`; `TRY_CAST` (true) gives NULL
    /// where a value does not convert (see `cast`).
    Cast(Target, bool),
}

/// A unit `date_trunc` truncates to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trunc {
    Millennium,
    Century,
    Decade,
    Year,
    Quarter,
    Month,
    /// The ISO week's Monday.
    Week,
    /// The Monday of the ISO year's first week.
    IsoYear,
    Day,
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
}

impl Trunc {
    /// The unit a name stands for, in any case: the names of DuckDB's date parts.
    pub(crate) fn named(name: &str) -> Option<Trunc> {
        Some(match Part::named(name) {
            Some(Part::Year) => Trunc::Year,
            Some(Part::Quarter) => Trunc::Quarter,
            Some(Part::Month) => Trunc::Month,
            Some(Part::Week) => Trunc::Week,
            Some(Part::IsoYear) => Trunc::IsoYear,
            Some(Part::Day) => Trunc::Day,
            Some(Part::Hour) => Trunc::Hour,
            Some(Part::Minute) => Trunc::Minute,
            Some(Part::Second) => Trunc::Second,
            Some(Part::Millisecond) => Trunc::Millisecond,
            Some(Part::Microsecond) => Trunc::Microsecond,
            Some(Part::Decade) => Trunc::Decade,
            Some(Part::Century) => Trunc::Century,
            Some(Part::Millennium) => Trunc::Millennium,
            Some(
                Part::Dow
                | Part::Isodow
                | Part::Doy
                | Part::Era
                | Part::YearWeek
                | Part::Nanosecond,
            )
            | None => return None,
        })
    }

    /// The start of the unit that holds the instant `days` days and `ns` nanoseconds
    /// (`0 <= ns < DAY_NS`) after the epoch, as days and nanoseconds. Decades, centuries and
    /// millennia start at years that are multiples of 10, 100 and 1000, counted from year 0
    /// toward it (as DuckDB's: year -4, 5 BC, is in the decade of year 0, and 2000 starts a
    /// century).
    fn of(self, days: i64, ns: i64) -> (i64, i64) {
        let (y, m, _) = civil(days);
        let first = |y: i64, m: i64| (days_from_civil(y, m, 1), 0);
        let within = |unit: i64| (days, ns - ns % unit);
        match self {
            Trunc::Millennium => first(y - y % 1000, 1),
            Trunc::Century => first(y - y % 100, 1),
            Trunc::Decade => first(y - y % 10, 1),
            Trunc::Year => first(y, 1),
            Trunc::Quarter => first(y, (m - 1) / 3 * 3 + 1),
            Trunc::Month => first(y, m),
            Trunc::Week => (days - (days + 3).rem_euclid(7), 0),
            Trunc::IsoYear => {
                // Week 1 holds January 4th.
                let year = Part::IsoYear.of(days, 0);
                let jan4 = days_from_civil(year, 1, 4);
                (jan4 - (jan4 + 3).rem_euclid(7), 0)
            }
            Trunc::Day => (days, 0),
            Trunc::Hour => within(3_600_000_000_000),
            Trunc::Minute => within(60_000_000_000),
            Trunc::Second => within(1_000_000_000),
            Trunc::Millisecond => within(1_000_000),
            Trunc::Microsecond => within(1_000),
        }
    }
}

/// A part of a date or a timestamp (`EXTRACT(part FROM x)`, `date_part('part', x)`, `part(x)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Year,
    Quarter,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    /// Day of the week, Sunday 0 to Saturday 6.
    Dow,
    /// ISO day of the week, Monday 1 to Sunday 7.
    Isodow,
    /// Day of the year, 1 to 366.
    Doy,
    /// ISO 8601 week, 1 to 53 (weeks start on Monday; week 1 holds the year's first Thursday).
    Week,
    /// The year of the ISO week.
    IsoYear,
    /// The second with its milliseconds, 0 to 59,999.
    Millisecond,
    /// The second with its microseconds, 0 to 59,999,999.
    Microsecond,
    /// The second with its nanoseconds, 0 to 59,999,999,999 (`nanosecond(x)` only: DuckDB's
    /// `date_part` does not name it).
    Nanosecond,
    /// The year divided by 10, toward zero.
    Decade,
    /// The century: 1 from year 1 to 100, -1 from year 0 back to -99, ...
    Century,
    /// The millennium, counted as centuries are.
    Millennium,
    /// 1 from year 1 on, 0 before.
    Era,
    /// The ISO year and week as one number, `yyyyww` (2021-01-01 is 202053).
    YearWeek,
}

impl Part {
    /// The part a name stands for (`year`, `dow`, `dayofweek`, ...), in any case.
    pub(crate) fn named(name: &str) -> Option<Part> {
        Some(match name.to_ascii_lowercase().as_str() {
            "year" | "years" | "y" | "yr" | "yrs" | "yyyy" => Part::Year,
            "quarter" | "quarters" => Part::Quarter,
            "month" | "months" | "mon" | "mons" => Part::Month,
            "day" | "days" | "d" | "dayofmonth" => Part::Day,
            "hour" | "hours" | "h" | "hr" | "hrs" => Part::Hour,
            "minute" | "minutes" | "m" | "min" | "mins" => Part::Minute,
            "second" | "seconds" | "s" | "sec" | "secs" => Part::Second,
            "dow" | "dayofweek" | "weekday" => Part::Dow,
            "isodow" => Part::Isodow,
            "doy" | "dayofyear" => Part::Doy,
            "week" | "weeks" | "w" | "weekofyear" => Part::Week,
            "isoyear" => Part::IsoYear,
            "milliseconds" | "millisecond" | "ms" | "msec" | "msecs" | "msecond" | "mseconds" => {
                Part::Millisecond
            }
            "microseconds" | "microsecond" | "us" | "usec" | "usecs" | "usecond" | "useconds" => {
                Part::Microsecond
            }
            "decade" | "dec" | "decades" | "decs" => Part::Decade,
            "century" | "cent" | "centuries" | "c" => Part::Century,
            "millennium" | "mil" | "millenniums" | "millennia" | "mils" | "millenium" => {
                Part::Millennium
            }
            "era" => Part::Era,
            "yearweek" => Part::YearWeek,
            _ => return None,
        })
    }

    /// Whether a time of day has this part (DuckDB's `hour` to `nanosecond`).
    fn of_clock(self) -> bool {
        matches!(
            self,
            Part::Hour
                | Part::Minute
                | Part::Second
                | Part::Millisecond
                | Part::Microsecond
                | Part::Nanosecond
        )
    }

    fn name(self) -> &'static str {
        match self {
            Part::Year => "year",
            Part::Quarter => "quarter",
            Part::Month => "month",
            Part::Day => "day",
            Part::Hour => "hour",
            Part::Minute => "minute",
            Part::Second => "second",
            Part::Dow => "dayofweek",
            Part::Isodow => "isodow",
            Part::Doy => "dayofyear",
            Part::Week => "week",
            Part::IsoYear => "isoyear",
            Part::Millisecond => "millisecond",
            Part::Microsecond => "microsecond",
            Part::Nanosecond => "nanosecond",
            Part::Decade => "decade",
            Part::Century => "century",
            Part::Millennium => "millennium",
            Part::Era => "era",
            Part::YearWeek => "yearweek",
        }
    }

    /// This part of the instant `days` days and `ns` nanoseconds (`0 <= ns < DAY_NS`) after
    /// the epoch.
    pub(super) fn of(self, days: i64, ns: i64) -> i64 {
        let (y, m, d) = civil(days);
        match self {
            Part::Year => y,
            Part::Quarter => (m - 1) / 3 + 1,
            Part::Month => m,
            Part::Day => d,
            Part::Hour => ns / 3_600_000_000_000,
            Part::Minute => ns / 60_000_000_000 % 60,
            Part::Second => ns / 1_000_000_000 % 60,
            Part::Millisecond => ns / 1_000_000 % 60_000,
            Part::Microsecond => ns / 1_000 % 60_000_000,
            Part::Nanosecond => ns % 60_000_000_000,
            // As PostgreSQL's: there is no century 0.
            Part::Decade => y / 10,
            Part::Century if y > 0 => (y - 1) / 100 + 1,
            Part::Century => y / 100 - 1,
            Part::Millennium if y > 0 => (y - 1) / 1000 + 1,
            Part::Millennium => y / 1000 - 1,
            Part::Era => i64::from(y > 0),
            // 1970-01-01 was a Thursday.
            Part::Dow => (days + 4).rem_euclid(7),
            Part::Isodow => (days + 3).rem_euclid(7) + 1,
            Part::Doy => days - days_from_civil(y, 1, 1) + 1,
            Part::Week | Part::IsoYear | Part::YearWeek => {
                // The week's Thursday decides its year.
                let thursday = days - (days + 3).rem_euclid(7) + 3;
                let year = civil(thursday).0;
                let week = (thursday - days_from_civil(year, 1, 1)) / 7 + 1;
                match self {
                    Part::Week => week,
                    Part::IsoYear => year,
                    // DuckDB's sign: year -1's week 1 is -101.
                    _ => year * 100 + if year > 0 { week } else { -week },
                }
            }
        }
    }
}

impl Func {
    /// The call as messages show it: `lower()`, `CAST(... AS DATE)`.
    pub(crate) fn shown(self) -> String {
        let name = match self {
            Func::Lower => "lower",
            Func::Upper => "upper",
            Func::Length => "length",
            Func::Abs => "abs",
            Func::Coalesce => "coalesce",
            Func::Extreme(true) => "greatest",
            Func::Extreme(false) => "least",
            Func::Date(_) => return "CAST(... AS DATE)".into(),
            Func::Timestamp(_) => return "CAST(... AS TIMESTAMP)".into(),
            Func::TimestampTz(_) => return "CAST(... AS TIMESTAMPTZ)".into(),
            Func::TimestampUnit(u, _) => return format!("CAST(... AS {})", unit_type(u)),
            Func::Clock(_) => return "CAST(... AS TIME)".into(),
            Func::Part(p) => p.name(),
            Func::Trunc(_) => "date_trunc",
            Func::DateDiff(u) => return format!("date_diff('{}', ...)", u.name()),
            Func::DateSub(u) => return format!("date_sub('{}', ...)", u.name()),
            Func::LastDay => "last_day",
            Func::Epoch(e) => e.name(),
            Func::ToTimestamp => "to_timestamp",
            Func::AtZone(z) => return format!("AT TIME ZONE '{}'", z.name()),
            Func::MakeDate => "make_date",
            Func::Strftime => "strftime",
            Func::Strptime(false) => "strptime",
            Func::Strptime(true) => "try_strptime",
            Func::Text(Text::Pipe) => return "||".into(),
            Func::Case(_) => return "CASE".into(),
            Func::Cast(t, _) => return format!("CAST(... AS {})", t.shown()),
            Func::Text(t) => t.name(),
            Func::Digest(h) => h.name(),
            Func::Math(m) => m.name(),
        };
        format!("{name}()")
    }
}

/// The year, month and day of `days` after 1970-01-01 in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`), exact for any `i64` a Date32 or a timestamp holds.
pub(super) fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Days from 1970-01-01 to the date `y-m-d` (`days_from_civil`).
pub(super) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Whether Unicode gave `c` a case mapping after version 15.1, the one DuckDB 2.0's tables
/// (utf8proc) follow, while Rust's follow a later one: DuckDB leaves these characters as they
/// are, and so do `lower`, `upper` and `ILIKE` here. (The Latin letters U+019B, U+0264 and
/// those added at U+A7CB..U+A7DC, Cyrillic U+1C89..U+1C8A, Garay, and Beria Erfe; the
/// crosscheck compares every character with the installed DuckDB.)
pub(super) fn newer_case(c: char) -> bool {
    matches!(
        c,
        '\u{19B}'
            | '\u{264}'
            | '\u{1C89}'..='\u{1C8A}'
            | '\u{A7CB}'..='\u{A7CF}'
            | '\u{A7D2}'..='\u{A7D5}'
            | '\u{A7DA}'..='\u{A7DC}'
            | '\u{10D50}'..='\u{10D65}'
            | '\u{10D70}'..='\u{10D85}'
            | '\u{16EA0}'..='\u{16EB8}'
            | '\u{16EBB}'..='\u{16ED3}'
    )
}

/// A case mapping: `lower` or `upper`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Case {
    Lower,
    Upper,
}

/// One character lowercased as DuckDB's `lower` does: by Unicode's simple lowercase mapping
/// (one character to one; Rust's full mapping differs only for 'İ', which becomes 'i'), of
/// Unicode 15.1 (see [`newer_case`]).
fn lower_char(c: char) -> char {
    match c {
        '\u{130}' => 'i',
        c if newer_case(c) => c,
        c => c.to_lowercase().next().unwrap_or(c),
    }
}

/// One character uppercased as DuckDB's `upper` does: to one character. Where Unicode's full
/// mapping gives several, DuckDB keeps the character, except 'ß' (to 'ẞ') and the Greek
/// letters with a ypogegrammeni, which become their title case forms (ᾀ to ᾈ).
fn upper_char(c: char) -> char {
    if newer_case(c) {
        return c;
    }
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) => u,
        _ => match c {
            'ß' => 'ẞ',
            '\u{1F80}'..='\u{1F87}' | '\u{1F90}'..='\u{1F97}' | '\u{1FA0}'..='\u{1FA7}' => {
                char::from_u32(c as u32 + 8).unwrap_or(c)
            }
            '\u{1FB3}' => '\u{1FBC}',
            '\u{1FC3}' => '\u{1FCC}',
            '\u{1FF3}' => '\u{1FFC}',
            _ => c,
        },
    }
}

/// Appends `s` case-mapped to `out`: runs of ASCII by their bytes (most text, and no
/// character decoding), each other character by its mapping.
fn push_mapped(out: &mut String, mut s: &str, case: Case) {
    while !s.is_empty() {
        let ascii = s.bytes().position(|b| !b.is_ascii()).unwrap_or(s.len());
        let start = out.len();
        out.push_str(&s[..ascii]);
        match case {
            Case::Lower => out[start..].make_ascii_lowercase(),
            Case::Upper => out[start..].make_ascii_uppercase(),
        }
        s = &s[ascii..];
        let mut chars = s.chars();
        if let Some(c) = chars.next() {
            out.push(match case {
                Case::Lower => lower_char(c),
                Case::Upper => upper_char(c),
            });
        }
        s = chars.as_str();
    }
}

/// `s` lowercased as DuckDB's `lower` does (see [`lower_char`]).
pub(super) fn lowercase(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_mapped(&mut out, s, Case::Lower);
    out
}

/// `s` uppercased as DuckDB's `upper` does (see [`upper_char`]).
#[cfg(test)]
fn uppercase(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_mapped(&mut out, s, Case::Upper);
    out
}

/// The strings of `a` (any of arrow's string layouts) case-mapped, as one `LargeUtf8` array
/// whose values are written into a single buffer: no allocation per value. `None` for other
/// types.
pub(super) fn case_mapped(a: &ArrayRef, case: Case) -> Option<Result<ArrayRef, Reason>> {
    let values = str_values(a)?;
    let mut out = String::with_capacity(str_bytes(a));
    let mut offsets = Vec::with_capacity(a.len() + 1);
    offsets.push(0i64);
    for v in values {
        if let Some(s) = v {
            push_mapped(&mut out, s, case);
        }
        offsets.push(out.len() as i64);
    }
    Some(
        LargeStringArray::try_new(
            OffsetBuffer::new(offsets.into()),
            Buffer::from_vec(out.into_bytes()),
            a.logical_nulls(),
        )
        .map(|r| Arc::new(r) as ArrayRef)
        .map_err(|e| e.to_string()),
    )
}

/// The bytes the values of a string array hold (0 for other types).
fn str_bytes(a: &ArrayRef) -> usize {
    fn span<O: OffsetSizeTrait>(a: &GenericStringArray<O>) -> usize {
        let o = a.value_offsets();
        (o[o.len() - 1] - o[0]).as_usize()
    }
    match a.data_type() {
        DataType::Utf8 => span(a.as_string::<i32>()),
        DataType::LargeUtf8 => span(a.as_string::<i64>()),
        DataType::Utf8View => a.as_string_view().lengths().map(|n| n as usize).sum(),
        _ => 0,
    }
}

/// One argument: its value and how messages name it.
pub(super) type Arg = (Operand, String);

/// `f(args)`.
pub(super) fn call(f: Func, mut args: Vec<Arg>) -> Result<Value, Reason> {
    match f {
        Func::Coalesce => return coalesce(args),
        Func::Extreme(greatest) => return extreme(args, greatest),
        Func::Text(t) => return super::text::call(t, args),
        Func::Math(m) => return super::math::call(m, args),
        Func::Case(has_else) => return case(args, has_else),
        Func::DateDiff(u) => return diff::date_diff(u, args),
        Func::DateSub(u) => return diff::date_sub(u, args),
        Func::MakeDate => return epoch::make_date(args),
        Func::Strftime => return super::strftime::call(args),
        Func::Strptime(try_) => return super::strftime::strptime(args, try_),
        _ => {}
    }
    let (a, what) = args.pop().expect("one argument");
    let Some((array, one)) = operand_array(a, &f.shown(), &what)? else {
        return Ok(Value::Null);
    };
    let r = match f {
        Func::Lower | Func::Upper | Func::Length => string(f, &array, &what)?,
        Func::Abs => abs(&array, &what)?,
        Func::Date(try_) => to_date(&array, try_, &what)?,
        Func::Timestamp(try_) => to_timestamp(&array, try_, &what)?,
        Func::TimestampTz(try_) => to_timestamptz(&array, try_, &what)?,
        Func::TimestampUnit(u, try_) => to_timestamp_unit(&array, u, try_, &what)?,
        Func::Clock(try_) => to_clock(&array, try_, &what)?,
        Func::Part(p) => part(p, &array, &what)?,
        Func::Trunc(t) => trunc(t, &array, &what)?,
        Func::LastDay => diff::last_day(&array, &what)?,
        Func::Epoch(e) => epoch::epoch(e, &array, &what)?,
        Func::ToTimestamp => epoch::to_timestamp(&array, &what)?,
        Func::AtZone(z) => super::zone::at_zone(z, &array, &what)?,
        Func::Cast(t, try_) => super::cast::cast(t, try_, &array, &what)?,
        Func::Digest(h) => super::digest::digest(h, &array, &what)?,
        Func::Coalesce
        | Func::Extreme(_)
        | Func::Text(_)
        | Func::Math(_)
        | Func::Case(_)
        | Func::DateDiff(_)
        | Func::DateSub(_)
        | Func::MakeDate
        | Func::Strftime
        | Func::Strptime(_) => {
            unreachable!("handled above")
        }
    };
    Ok(if one { Value::One(r) } else { Value::Rows(r) })
}

/// The values of a string array of any of arrow's layouts; `None` for other types.
pub(super) fn str_values(a: &ArrayRef) -> Option<Box<dyn Iterator<Item = Option<&str>> + '_>> {
    Some(match a.data_type() {
        DataType::Utf8 => Box::new(a.as_string::<i32>().iter()),
        DataType::LargeUtf8 => Box::new(a.as_string::<i64>().iter()),
        DataType::Utf8View => Box::new(a.as_string_view().iter()),
        _ => return None,
    })
}

fn string(f: Func, a: &ArrayRef, what: &str) -> Result<ArrayRef, Reason> {
    let not_string = || {
        format!(
            "{} takes a string, {what} is {}",
            f.shown(),
            describe(a.data_type())
        )
    };
    match f {
        Func::Length => Ok(Arc::new(
            str_values(a)
                .ok_or_else(not_string)?
                .map(|v| v.map(|s| s.chars().count() as i64))
                .collect::<Int64Array>(),
        )),
        Func::Lower => case_mapped(a, Case::Lower).ok_or_else(not_string)?,
        _ => case_mapped(a, Case::Upper).ok_or_else(not_string)?,
    }
}

/// A type as messages name it: "a string", "a date", ...
pub(super) fn describe(t: &DataType) -> String {
    match t {
        DataType::Boolean => "a boolean".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "a string".into(),
        DataType::Date32 | DataType::Date64 => "a date".into(),
        DataType::Timestamp(..) => format!("a timestamp ({t})"),
        DataType::Time32(_) | DataType::Time64(_) => format!("a time of day ({t})"),
        DataType::Decimal256(76, _) => "a number".into(),
        other => format!("of type {other}"),
    }
}

fn abs(a: &ArrayRef, what: &str) -> Result<ArrayRef, Reason> {
    let t = a.data_type();
    match t {
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
            return Ok(Arc::clone(a))
        }
        DataType::Float16 => {
            let f = arith::cast(a, &DataType::Float32)?;
            return Ok(Arc::new(
                f.as_primitive::<Float32Type>()
                    .unary::<_, Float32Type>(f32::abs),
            ));
        }
        DataType::Float32 => {
            return Ok(Arc::new(
                a.as_primitive::<Float32Type>()
                    .unary::<_, Float32Type>(f32::abs),
            ) as ArrayRef)
        }
        DataType::Float64 => {
            return Ok(Arc::new(
                a.as_primitive::<Float64Type>()
                    .unary::<_, Float64Type>(f64::abs),
            ) as ArrayRef)
        }
        _ => {}
    }
    let Some((p, s)) = arith::number(t) else {
        return Err(format!("abs() takes a number, {what} is {}", describe(t)));
    };
    // The exact value, in a decimal that holds it and its negation.
    let d = arith::cast(a, &arith::decimal(p, s))?;
    let neg = numeric::neg(&d).map_err(|e| e.to_string())?;
    let zero = arith::cast(
        &(Arc::new(Int64Array::from(vec![0])) as ArrayRef),
        d.data_type(),
    )?;
    let negative = cmp::lt(&d, &arrow::array::Scalar::new(&zero)).map_err(|e| e.to_string())?;
    zip(&negative, &neg, &d).map_err(|e| e.to_string())
}

/// Nanoseconds per raw unit of a date or timestamp type (the comparisons' table).
fn unit_ns(t: &DataType) -> Option<i64> {
    match exact_kind(t)? {
        Exact::Time(ns) => Some(ns as i64),
        Exact::Num(_) | Exact::Clock(_) => None,
    }
}

/// The raw values of a date, timestamp or time-of-day array, as `i64`.
pub(super) fn raw(a: &ArrayRef) -> Result<Int64Array, Reason> {
    let r = match a.data_type() {
        DataType::Date32 | DataType::Time32(_) => {
            arith::cast(a, &DataType::Int32).and_then(|x| arith::cast(&x, &DataType::Int64))?
        }
        _ => arith::cast(a, &DataType::Int64)?,
    };
    Ok(r.as_primitive::<Int64Type>().clone())
}

/// Each raw value of a date or timestamp array mapped by `f`, NULL for a NULL and for an
/// infinity (`inf`, see [`infinity`]), as DuckDB's functions of those give.
pub(super) fn map_finite<T>(
    raw: &Int64Array,
    inf: Option<i64>,
    mut f: impl FnMut(i64) -> Result<T, Reason>,
) -> Result<Vec<Option<T>>, Reason> {
    raw.iter()
        .map(|v| v.filter(|v| !infinite(inf, *v)).map(&mut f).transpose())
        .collect()
}

/// Split raw values of `per` nanoseconds into whole days and the nanoseconds into the day.
pub(super) fn days_and_ns(v: i64, per: i64) -> (i64, i64) {
    if per >= DAY_NS as i64 {
        return (v * (per / DAY_NS as i64), 0);
    }
    let per_day = DAY_NS as i64 / per;
    (v.div_euclid(per_day), v.rem_euclid(per_day) * per)
}

/// The raw values of a date or timestamp and nanoseconds per unit, or the error
/// "`takes`, `what` is ...".
pub(super) fn time_of(a: &ArrayRef, takes: &str, what: &str) -> Result<(Int64Array, i64), Reason> {
    match unit_ns(a.data_type()) {
        Some(per) => Ok((raw(a)?, per)),
        None => Err(format!("{takes}, {what} is {}", describe(a.data_type()))),
    }
}

/// A string a function fails on, as its message shows it: its first 60 characters (then
/// `...`), escaped.
pub(super) fn shown(s: &str) -> String {
    let head: String = s.chars().take(60).collect();
    let cut = if head.len() < s.len() { "..." } else { "" };
    format!("{}{cut}", head.escape_debug())
}

/// Strings read by `read` (DuckDB's reading, see `strtime`) as values of the type `ty`,
/// which `(one, many)` name ("a date", "dates"): `None` unless `a` holds strings. Under
/// `TRY_CAST` a string that is not one gives NULL, else the first fails the job, named as the
/// other casts name a value they cannot convert.
fn read_strings<T>(
    a: &ArrayRef,
    try_: bool,
    what: &str,
    (ty, one, many): (&str, &str, &str),
    read: fn(&[u8]) -> Result<T, Bad>,
) -> Option<Result<Vec<Option<T>>, Reason>> {
    let values = str_values(a)?;
    let mut out = Vec::with_capacity(a.len());
    for s in values {
        out.push(match s.map(|s| (s, read(s.as_bytes()))) {
            None => None,
            Some((_, Ok(v))) => Some(v),
            // A zone's name we do not know may be one DuckDB's ICU reads: never NULL.
            Some((_, Err(why))) if try_ && !matches!(why, Bad::Zone | Bad::ZoneRange) => None,
            Some((s, Err(why))) => {
                let why = match why {
                    Bad::Format => format!("which is not {one} (TRY_CAST gives NULL for it)"),
                    Bad::Range => {
                        format!("out of the range of {many} (TRY_CAST gives NULL for it)")
                    }
                    Bad::Zone => "which names a time zone the bundled time zone database \
                                  does not know: write its IANA name (Europe/Oslo) or its UTC \
                                  offset (+01:00)"
                        .to_string(),
                    Bad::ZoneRange => "a wall-clock time in a named time zone after the year \
                                       9999, which the bundled time zone database does not \
                                       cover"
                        .to_string(),
                };
                return Some(Err(format!(
                    "CAST(.. AS {ty}): {what} holds '{}', {why}",
                    shown(s)
                )));
            }
        });
    }
    Some(Ok(out))
}

fn to_date(a: &ArrayRef, try_: bool, what: &str) -> Result<ArrayRef, Reason> {
    if a.data_type() == &DataType::Date32 {
        return Ok(Arc::clone(a));
    }
    if let Some(days) = read_strings(a, try_, what, ("DATE", "a date", "dates"), strtime::date) {
        return Ok(Arc::new(Date32Array::from(days?)));
    }
    let takes = "CAST(... AS DATE) takes a date, a timestamp or a string";
    let (raw, per) = time_of(a, takes, what)?;
    let inf = infinity(a.data_type());
    let mut out = Vec::with_capacity(raw.len());
    for v in raw.iter() {
        out.push(match v {
            None => None,
            // An infinite timestamp is the infinite date of its sign.
            Some(v) if infinite(inf, v) => Some(v.signum() as i32 * i32::MAX),
            Some(v) => match i32::try_from(days_and_ns(v, per).0) {
                Ok(d) => Some(d),
                Err(_) if try_ => None,
                Err(_) => {
                    return Err(format!(
                        "{what} has a date out of the range of dates (Date32)"
                    ))
                }
            },
        });
    }
    Ok(Arc::new(Date32Array::from(out)))
}

/// `CAST(... AS TIMESTAMP)`: a date's midnight in microseconds, a timestamp's instant
/// without its time zone, a string's wall clock in microseconds.
fn to_timestamp(a: &ArrayRef, try_: bool, what: &str) -> Result<ArrayRef, Reason> {
    if let Some(us) = read_strings(
        a,
        try_,
        what,
        ("TIMESTAMP", "a timestamp", "timestamps"),
        strtime::timestamp,
    ) {
        return Ok(Arc::new(TimestampMicrosecondArray::from(us?)));
    }
    let unit = match a.data_type() {
        DataType::Timestamp(_, None) => return Ok(Arc::clone(a)),
        DataType::Date32 | DataType::Date64 => TimeUnit::Microsecond,
        DataType::Timestamp(u, _) => *u,
        other => {
            return Err(format!(
                "CAST(... AS TIMESTAMP) takes a date, a timestamp or a string, {what} is {}",
                describe(other)
            ))
        }
    };
    rescale(a, unit, &|| {
        format!("{what} has a date out of the range of timestamps")
    })
}

/// `CAST(... AS TIMESTAMPTZ)`: the instant, labelled UTC (DuckDB's with `TimeZone = 'UTC'`).
/// A string is read by `strtime` with its UTC offset subtracted (`'2024-01-05 10:00+02'` is
/// 08:00 UTC; a zone's name must be UTC's); a date is its midnight in UTC, a timestamp
/// without a time zone is read as UTC, one with a zone keeps its instant; units as
/// `CAST(... AS TIMESTAMP)` keeps them.
fn to_timestamptz(a: &ArrayRef, try_: bool, what: &str) -> Result<ArrayRef, Reason> {
    let utc = Some(Arc::<str>::from("UTC"));
    if let Some(us) = read_strings(
        a,
        try_,
        what,
        ("TIMESTAMPTZ", "a timestamp", "timestamps"),
        strtime::timestamptz,
    ) {
        return Ok(Arc::new(
            TimestampMicrosecondArray::from(us?).with_timezone_opt(utc),
        ));
    }
    instants("TIMESTAMPTZ", a, what)?;
    let t = to_timestamp(a, try_, what)?;
    let DataType::Timestamp(unit, _) = t.data_type() else {
        unreachable!("CAST(... AS TIMESTAMP) gives a timestamp")
    };
    Ok(timestamps(*unit, utc, &raw(&t)?))
}

/// That `a` (not a string) holds instants, a cast to the timestamp type `ty` takes: dates and
/// timestamps.
fn instants(ty: &str, a: &ArrayRef, what: &str) -> Result<(), Reason> {
    match a.data_type() {
        DataType::Date32 | DataType::Date64 | DataType::Timestamp(..) => Ok(()),
        other => Err(format!(
            "CAST(... AS {ty}) takes a date, a timestamp or a string, {what} is {}",
            describe(other)
        )),
    }
}

/// DuckDB's name of the zone-less timestamp type of `unit`.
fn unit_type(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Second => "TIMESTAMP_S",
        TimeUnit::Millisecond => "TIMESTAMP_MS",
        TimeUnit::Microsecond => "TIMESTAMP",
        TimeUnit::Nanosecond => "TIMESTAMP_NS",
    }
}

/// `CAST(... AS TIMESTAMP_S | TIMESTAMP_MS | TIMESTAMP_NS)` of a column, as DuckDB 2.0.1 casts
/// (a `TIMESTAMP_S` held in milliseconds, whole seconds, as Parquet holds seconds):
/// the instant (a date's midnight, a zoned timestamp's instant in UTC, a string read as
/// `CAST(... AS TIMESTAMP)` reads it, to microseconds) rounded to the unit half away from zero
/// from its exact value (`'1969-12-31 23:59:59.5'` is 23:59:59 in seconds, a nanosecond
/// timestamp's 1.4995 ms is 1 ms), the infinities kept. A value out of the unit's range (a
/// nanosecond timestamp's years 1677 to 2262) fails the cast (`TRY_CAST`: NULL). DuckDB reads a
/// string's nanoseconds for `TIMESTAMP_NS`, which `strtime` does not: a string column is
/// refused there. (DuckDB has no cast of `TIMESTAMP_NS` to `TIMESTAMP_S`; this rounds it as
/// the others.)
fn to_timestamp_unit(
    a: &ArrayRef,
    unit: TimeUnit,
    try_: bool,
    what: &str,
) -> Result<ArrayRef, Reason> {
    let ty = unit_type(unit);
    let string = str_values(a).is_some();
    if string && unit == TimeUnit::Nanosecond {
        return Err(format!(
            "CAST(... AS TIMESTAMP_NS) of a string: {what} is a string column, whose \
             nanoseconds DuckDB reads and this does not; cast it to TIMESTAMP"
        ));
    }
    if !string {
        instants(ty, a, what)?;
    }
    let t = to_timestamp(a, try_, what)?;
    let per = i128::from(unit_ns(t.data_type()).expect("a timestamp"));
    let to_per = i128::from(unit_ns(&DataType::Timestamp(unit, None)).expect("a timestamp"));
    let inf = infinity(t.data_type());
    let mut out = Vec::with_capacity(t.len());
    for v in raw(&t)?.iter() {
        out.push(match v {
            None => None,
            Some(v) if infinite(inf, v) => Some(v.signum() * i64::MAX),
            Some(v) => {
                let ns = i128::from(v) * per;
                let half = to_per / 2;
                let r = if ns >= 0 {
                    (ns + half) / to_per
                } else {
                    -((-ns + half) / to_per)
                };
                match i64::try_from(r)
                    .ok()
                    .filter(|r| !infinite(Some(i64::MAX), *r))
                {
                    // Seconds are held in milliseconds (whole seconds), as Parquet, pyarrow
                    // and our reader hold them: there is no Parquet type of seconds.
                    Some(r) if unit == TimeUnit::Second => Some(r * 1_000),
                    Some(r) => Some(r),
                    None if try_ => None,
                    None => {
                        return Err(format!(
                            "CAST(... AS {ty}): {what} holds a timestamp out of the range of \
                             {ty} (TRY_CAST gives NULL for it)"
                        ))
                    }
                }
            }
        });
    }
    let held = match unit {
        TimeUnit::Second => TimeUnit::Millisecond,
        u => u,
    };
    Ok(timestamps(held, None, &Int64Array::from(out)))
}

/// `CAST(... AS TIME)`: a time of day in whole microseconds (DuckDB's `TIME`), of a zone-less
/// timestamp or of a time of day of another unit. Nanoseconds round to the nearest microsecond,
/// halves away from zero, before the day is taken, as in DuckDB: 23:59:59.9999997 of a
/// timestamp is midnight, of a time of day 24:00:00. An infinite timestamp (DuckDB's, the
/// largest and smallest but one `i64`) has no time of day. A string is read by `strtime`.
fn to_clock(a: &ArrayRef, try_: bool, what: &str) -> Result<ArrayRef, Reason> {
    if let Some(us) = read_strings(
        a,
        try_,
        what,
        ("TIME", "a time of day", "times of day"),
        strtime::time,
    ) {
        return Ok(Arc::new(arrow::array::Time64MicrosecondArray::from(us?)));
    }
    let (per, timestamp) = match (a.data_type(), exact_kind(a.data_type())) {
        (DataType::Timestamp(_, None), Some(Exact::Time(per))) => (per, true),
        (_, Some(Exact::Clock(per))) => (per, false),
        (t, _) => {
            return Err(format!(
                "CAST(... AS TIME) takes a time of day, a timestamp without a time zone or a \
                 string, {what} is {}",
                describe(t)
            ))
        }
    };
    let raw = raw(a)?;
    let mut out = Vec::with_capacity(raw.len());
    for v in raw.iter() {
        out.push(match v {
            None => None,
            Some(v) if timestamp && infinite(Some(i64::MAX), v) => {
                if try_ {
                    None
                } else {
                    return Err(format!(
                        "{what} holds an infinite timestamp, which has no time of day"
                    ));
                }
            }
            Some(v) => {
                let ns = v as i128 * per;
                let (q, r) = (ns / 1_000, ns % 1_000);
                let us = q + (r >= 500) as i128 - (r <= -500) as i128;
                let us = if timestamp {
                    us.rem_euclid(DAY_NS / 1_000)
                } else {
                    us
                };
                Some(us as i64)
            }
        });
    }
    Ok(Arc::new(arrow::array::Time64MicrosecondArray::from(out)))
}

fn part(p: Part, a: &ArrayRef, what: &str) -> Result<ArrayRef, Reason> {
    if let Some(Exact::Clock(per)) = exact_kind(a.data_type()) {
        // A time of day has hours, minutes, seconds (whole, as DuckDB's `second`) and their
        // fractions.
        if !p.of_clock() {
            return Err(format!(
                "{}() takes a date or a timestamp (a time of day has hour, minute, second, \
                 millisecond, microsecond and nanosecond), {what} is {}",
                p.name(),
                describe(a.data_type())
            ));
        }
        let per = per as i64;
        return Ok(Arc::new(
            raw(a)?.unary::<_, Int64Type>(|v| p.of(0, v * per)),
        ));
    }
    let (raw, per) = time_of(
        a,
        &format!("{}() takes a date or a timestamp", p.name()),
        what,
    )?;
    // An infinite date or timestamp has no parts: NULL, as in DuckDB.
    let parts = map_finite(&raw, infinity(a.data_type()), |v| {
        let (days, ns) = days_and_ns(v, per);
        Ok(p.of(days, ns))
    })?;
    Ok(Arc::new(Int64Array::from(parts)))
}

/// `date_trunc`: a timestamp keeps its time zone (the truncation is computed in UTC) and its
/// unit, but nanoseconds become microseconds; a date becomes a timestamp of microseconds, as
/// in DuckDB.
fn trunc(t: Trunc, a: &ArrayRef, what: &str) -> Result<ArrayRef, Reason> {
    let takes = "date_trunc() takes a date or a timestamp";
    let (raw, per) = time_of(a, takes, what)?;
    // Every unit starts on a whole microsecond: nanoseconds become microseconds (exact, and
    // a truncation before 1677 stays in range), coarser units stay.
    let (unit, zone, to_per) = match a.data_type() {
        DataType::Timestamp(unit @ (TimeUnit::Second | TimeUnit::Millisecond), zone) => {
            (*unit, zone.clone(), per)
        }
        DataType::Timestamp(_, zone) => (TimeUnit::Microsecond, zone.clone(), 1_000),
        _ => (TimeUnit::Microsecond, None, 1_000),
    };
    let out_of_range =
        || format!("{what} has a date whose date_trunc() is out of the range of timestamps");
    let inf = infinity(a.data_type());
    let out = checked_unary(&raw, &out_of_range, |v| {
        if infinite(inf, v) {
            return Some(v.signum() * i64::MAX);
        }
        let (days, ns) = days_and_ns(v, per);
        let (days, ns) = t.of(days, ns);
        days.checked_mul(DAY_NS as i64 / to_per)
            .and_then(|d| d.checked_add(ns / to_per))
    })?;
    Ok(timestamps(unit, zone, &out))
}

/// What a value is to `coalesce`: values of one class share a type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Exact,
    Float,
    String,
    Binary,
    Time,
    /// Times of day.
    Clock,
    Bool,
}

fn class(t: &DataType) -> Option<Class> {
    use DataType::*;
    Some(match t {
        Float16 | Float32 | Float64 => Class::Float,
        Utf8 | LargeUtf8 | Utf8View => Class::String,
        Binary | LargeBinary | BinaryView | FixedSizeBinary(_) => Class::Binary,
        Date32 | Date64 | Timestamp(..) => Class::Time,
        Time32(_) | Time64(_) => Class::Clock,
        Boolean => Class::Bool,
        t if arith::number(t).is_some() => Class::Exact,
        _ => return None,
    })
}

/// The arguments of `name` that are not NULL: each array, whether it is a literal's, and how
/// messages name it; an interval is refused.
fn values(args: Vec<Arg>, name: &str) -> Result<Vec<(ArrayRef, bool, String)>, Reason> {
    let mut out = Vec::with_capacity(args.len());
    for (o, what) in args {
        if let Some((a, one)) = operand_array(o, name, &what)? {
            out.push((a, one, what));
        }
    }
    Ok(out)
}

/// An argument of the function `shown` as its array and whether it is a literal's; `None`
/// for NULL; an interval is refused with `what` named.
pub(super) fn operand_array(
    o: Operand,
    shown: &str,
    what: &str,
) -> Result<Option<(ArrayRef, bool)>, Reason> {
    let (a, one) = match o {
        Operand::Rows(a) => (a, false),
        Operand::One(a) => (a, true),
        Operand::Null => return Ok(None),
        Operand::Interval(_) => {
            return Err(format!(
                "{shown} does not take {what} (an interval stands alone: it is added to or \
                 subtracted from a date or a timestamp)"
            ))
        }
    };
    Ok((a.data_type() != &DataType::Null).then_some((a, one)))
}

/// `coalesce(a, b, ...)`: each row's first non-NULL value. The values share a type, as
/// DuckDB binds them: exact numbers a decimal wide enough for each (any float makes them
/// floats, a DOUBLE among them DOUBLEs), strings a string, dates a date, dates and
/// timestamps a timestamp of the finest unit among them.
fn coalesce(args: Vec<Arg>) -> Result<Value, Reason> {
    // NULLs never give a value.
    let args = values(args, "coalesce()")?;
    if args.is_empty() {
        return Ok(Value::Null);
    }
    let to = common_type(&args, "coalesce()")?;
    let mut acc: Option<(ArrayRef, bool)> = None;
    for (a, one, _) in &args {
        acc = Some(match acc {
            None => (convert(a, &to, "coalesce()")?, *one),
            // A literal that is not NULL decides every row.
            Some((x, true)) if x.is_valid(0) => (x, true),
            Some((_, true)) => (convert(a, &to, "coalesce()")?, *one),
            Some((x, false)) => {
                let has = is_not_null(&x).map_err(|e| e.to_string())?;
                if has.true_count() == has.len() {
                    (x, false)
                } else {
                    (fill(&x, &has, a, *one, &to, "coalesce()")?, false)
                }
            }
        });
    }
    let (r, one) = acc.expect("at least one argument");
    Ok(if one { Value::One(r) } else { Value::Rows(r) })
}

/// `greatest(a, b, ...)` (or `least`): each row's largest (smallest) value that is not NULL,
/// NULL where all are. The values share a type as `coalesce`'s do; they compare as the
/// language's comparisons do (NaN equal to NaN and above every other float, `-0.0 = 0`), and
/// of equal values the first is kept, as DuckDB's.
fn extreme(args: Vec<Arg>, greatest: bool) -> Result<Value, Reason> {
    let name = if greatest { "greatest()" } else { "least()" };
    let args = values(args, name)?;
    if args.is_empty() {
        return Ok(Value::Null);
    }
    let to = match common_type(&args, name)? {
        // A half float compares as the FLOAT it is read as.
        DataType::Float16 => DataType::Float32,
        t => t,
    };
    let e = |e: arrow::error::ArrowError| e.to_string();
    let mut acc: Option<(ArrayRef, bool)> = None;
    for (a, one, _) in &args {
        let b = convert(a, &to, name)?;
        let Some((x, x_one)) = acc.take() else {
            acc = Some((b, *one));
            continue;
        };
        let datum = |v: &ArrayRef, one: bool| -> Box<dyn arrow::array::Datum> {
            if one {
                Box::new(arrow::array::Scalar::new(Arc::clone(v)))
            } else {
                Box::new(Arc::clone(v))
            }
        };
        // Where b replaces the value so far: that value is NULL, or b is beyond it, compared
        // as the comparisons compare (floats made canonical: NaN above all, -0.0 = 0; the
        // values kept are the arguments' own).
        let (bc, xc) = (eval::canon(&b)?, eval::canon(&x)?);
        let (bd, xd) = (datum(&bc, *one), datum(&xc, x_one));
        let cmp = if greatest {
            cmp::gt(bd.as_ref(), xd.as_ref())
        } else {
            cmp::lt(bd.as_ref(), xd.as_ref())
        }
        .map_err(e)?;
        // A NULL comparison (b NULL, or the value so far) does not replace; a NULL value so
        // far is replaced by b.
        let known = arrow::array::BooleanArray::new(eval::true_rows(&cmp), None);
        let none = if x_one {
            arrow::array::BooleanArray::from(vec![x.is_null(0); known.len()])
        } else {
            arrow::compute::is_null(&x).map_err(e)?
        };
        let beyond = arrow::compute::or(&known, &none).map_err(e)?;
        let r = zip(&beyond, datum(&b, *one).as_ref(), datum(&x, x_one).as_ref()).map_err(e)?;
        acc = Some((r, x_one && *one));
    }
    let (r, one) = acc.expect("at least one argument");
    Ok(if one { Value::One(r) } else { Value::Rows(r) })
}

/// `CASE WHEN c1 THEN v1 [WHEN c2 THEN v2 ...] [ELSE e] END`: each row's value of the first
/// condition that is TRUE (NULL is not), else `e`, else NULL. The values share a type as
/// `coalesce`'s do, and a value is converted to it only on the rows that take it.
fn case(args: Vec<Arg>, has_else: bool) -> Result<Value, Reason> {
    let branches = (args.len() - usize::from(has_else)) / 2;
    // Every row count is one batch's; literals are one row.
    let n = args.iter().find_map(|(o, _)| match o {
        Operand::Rows(a) => Some(a.len()),
        _ => None,
    });
    let one = n.is_none();
    let n = n.unwrap_or(1);
    let widen = |a: &ArrayRef, lit: bool| -> Result<ArrayRef, Reason> {
        if lit && n != 1 {
            crate::plan::hive::repeat(a, n).map_err(|e| e.to_string())
        } else {
            Ok(Arc::clone(a))
        }
    };
    let mut conds = Vec::with_capacity(branches);
    let mut values = Vec::with_capacity(branches + 1);
    for (i, (o, what)) in args.into_iter().enumerate() {
        let is_cond = i < 2 * branches && i % 2 == 0;
        let (a, lit) = match o {
            Operand::Rows(a) if a.data_type() != &DataType::Null => (a, false),
            Operand::One(a) if a.data_type() != &DataType::Null => (a, true),
            Operand::Interval(_) => {
                return Err(format!(
                    "CASE does not take {what} (an interval stands alone: it is added to or \
                     subtracted from a date or a timestamp)"
                ))
            }
            // NULL: a condition never true, a value NULL.
            _ => {
                if is_cond {
                    conds.push(None);
                } else {
                    values.push(None);
                }
                continue;
            }
        };
        if !is_cond {
            values.push(Some((a, lit, what)));
        } else if a.data_type() == &DataType::Boolean {
            conds.push(Some(widen(&a, lit)?));
        } else {
            return Err(format!(
                "CASE takes a condition after WHEN, {what} is {}",
                describe(a.data_type())
            ));
        }
    }
    let typed: Vec<(ArrayRef, bool, String)> = values.iter().flatten().cloned().collect();
    if typed.is_empty() {
        return Ok(Value::Null);
    }
    let to = common_type(&typed, "CASE")?;
    let mut acc = arrow::array::new_null_array(&to, n);
    // The rows a condition before has taken.
    let mut taken = arrow::buffer::BooleanBuffer::new_unset(n);
    for (i, value) in values.iter().enumerate() {
        let take = match conds.get(i) {
            Some(Some(c)) => {
                let t = super::eval::true_rows(c.as_boolean());
                let take = &t & &!&taken;
                taken = &taken | &t;
                take
            }
            // A NULL condition is never true.
            Some(None) => continue,
            // ELSE: every row not taken.
            None => !&taken,
        };
        if let Some((v, lit, _)) = value {
            if take.count_set_bits() > 0 {
                let keep = arrow::array::BooleanArray::new(!&take, None);
                acc = fill(&acc, &keep, v, *lit, &to, "CASE")?;
            }
        }
    }
    Ok(if one {
        Value::One(acc)
    } else {
        Value::Rows(acc)
    })
}

/// `x` where `has` is true, else `a` (one value for every row when `one`), as `to`. Only
/// the rows that take `a` are converted, so a value out of the range of `to` fails only
/// where it is the answer, as in DuckDB.
fn fill(
    x: &ArrayRef,
    has: &arrow::array::BooleanArray,
    a: &ArrayRef,
    one: bool,
    to: &DataType,
    name: &str,
) -> Result<ArrayRef, Reason> {
    let e = |e: arrow::error::ArrowError| e.to_string();
    if one {
        let a = convert(a, to, name)?;
        return zip(has, x, &arrow::array::Scalar::new(&a)).map_err(e);
    }
    let a = convert(&nullif(a, has).map_err(e)?, to, name)?;
    zip(has, x, &a).map_err(e)
}

fn common_type(args: &[(ArrayRef, bool, String)], name: &str) -> Result<DataType, Reason> {
    let first = args[0].0.data_type();
    if args.iter().all(|(a, ..)| a.data_type() == first) {
        return Ok(first.clone());
    }
    let mut classes = Vec::with_capacity(args.len());
    for (a, _, what) in args {
        let c = class(a.data_type())
            .ok_or_else(|| format!("{name} does not take {what} ({})", describe(a.data_type())))?;
        classes.push(c);
    }
    let c0 = classes[0];
    for (c, (a, _, what)) in classes.iter().zip(args) {
        let same = *c == c0
            || matches!(
                (c0, c),
                (Class::Exact | Class::Float, Class::Exact | Class::Float)
            );
        if !same {
            return Err(format!(
                "{name} takes values of one kind: {} is {}, {what} is {}",
                args[0].2,
                describe(first),
                describe(a.data_type())
            ));
        }
    }
    let types = || args.iter().map(|(a, ..)| a.data_type());
    Ok(match c0 {
        Class::Exact | Class::Float if classes.contains(&Class::Float) => {
            if types().any(|t| t == &DataType::Float64) {
                DataType::Float64
            } else {
                DataType::Float32
            }
        }
        Class::Exact | Class::Float => {
            let (mut int, mut scale) = (0i32, 0i32);
            for (a, one, _) in args {
                let (p, s) = if *one {
                    literal_digits(a)
                } else {
                    arith::number(a.data_type())
                }
                .expect("an exact number");
                int = int.max(p as i32 - s as i32);
                scale = scale.max(s as i32);
            }
            // Computed values declare more digits than they hold (`i64 + 1` is typed from
            // the literal's 76): past 76, a value that does not fit fails where it is taken.
            arith::decimal((int + scale).min(76) as u8, scale as i8)
        }
        Class::String => DataType::LargeUtf8,
        Class::Binary => DataType::LargeBinary,
        Class::Bool => DataType::Boolean,
        // The finest unit of the arguments: every time of day converts to it exactly.
        Class::Clock => types()
            .min_by_key(|t| match exact_kind(t) {
                Some(Exact::Clock(per)) => per,
                _ => i128::MAX,
            })
            .expect("at least one argument")
            .clone(),
        Class::Time => {
            // A literal counts in microseconds unless it has digits below them, as DuckDB
            // types `TIMESTAMP '...'` (so a TIMESTAMP literal does not take a millisecond
            // column to nanoseconds, where 9999-12-31 does not fit).
            let finest = args
                .iter()
                .filter(|(a, ..)| {
                    matches!(a.data_type(), DataType::Timestamp(..) | DataType::Date64)
                })
                .filter_map(|(a, one, _)| {
                    let per = unit_ns(a.data_type())?;
                    let whole_us = |a: &ArrayRef| {
                        a.as_primitive::<TimestampNanosecondType>().value(0) % 1000 == 0
                    };
                    Some(if *one && per == 1 && a.is_valid(0) && whole_us(a) {
                        1000
                    } else {
                        per
                    })
                })
                .min();
            match finest {
                None => DataType::Date32,
                Some(per) => DataType::Timestamp(
                    match per {
                        1 => TimeUnit::Nanosecond,
                        1_000 => TimeUnit::Microsecond,
                        1_000_000 => TimeUnit::Millisecond,
                        _ => TimeUnit::Second,
                    },
                    None,
                ),
            }
        }
    })
}

/// The precision and scale of an exact number: a literal's (a one-row 76-digit decimal) by
/// its value, so that `coalesce(dec, 7)` needs the decimal's digits, not 76.
fn literal_digits(a: &ArrayRef) -> Option<(u8, i8)> {
    match a.data_type() {
        DataType::Decimal256(_, s) if a.len() == 1 && a.is_valid(0) => {
            let v = a.as_primitive::<Decimal256Type>().value(0);
            let digits = v.wrapping_abs().to_string().trim_start_matches('-').len();
            let p = digits.max(*s as usize + 1).min(76) as u8;
            Some((p, *s))
        }
        t => arith::number(t),
    }
}

/// `a` as a value of `to` (a type [`common_type`] chose for it): exactly, or an error.
fn convert(a: &ArrayRef, to: &DataType, name: &str) -> Result<ArrayRef, Reason> {
    match to {
        _ if a.data_type() == to => Ok(Arc::clone(a)),
        DataType::Timestamp(unit, None) => rescale(a, *unit, &|| {
            format!("{name} takes a value out of the range of {to}")
        }),
        _ => arith::cast(a, to),
    }
}

/// The instants of a date or timestamp array as zone-less timestamps of `unit`: the raw
/// values scaled (no cast, which would read a zone's wall clock), to a finer unit, or (a
/// literal of whole microseconds) a coarser one, exactly; `out_of_range` says why not. An
/// infinite date or timestamp is the infinite timestamp of its sign.
pub(super) fn rescale(
    a: &ArrayRef,
    unit: TimeUnit,
    out_of_range: &dyn Fn() -> String,
) -> Result<ArrayRef, Reason> {
    let per = unit_ns(a.data_type()).expect("a date or a timestamp");
    let to_per = unit_ns(&DataType::Timestamp(unit, None)).expect("a timestamp");
    let inf = infinity(a.data_type());
    let scaled = checked_unary(&raw(a)?, out_of_range, |v| {
        if infinite(inf, v) {
            // An infinite date or timestamp is the infinite timestamp of its sign.
            Some(v.signum() * i64::MAX)
        } else if per >= to_per {
            v.checked_mul(per / to_per)
        } else {
            Some(v / (to_per / per))
        }
    })?;
    Ok(timestamps(unit, None, &scaled))
}

/// `f` of each raw value, or the error `out_of_range()` where it gives `None`.
fn checked_unary(
    raw: &Int64Array,
    out_of_range: &dyn Fn() -> String,
    f: impl Fn(i64) -> Option<i64>,
) -> Result<Int64Array, Reason> {
    raw.try_unary(|v| f(v).ok_or(()))
        .map_err(|()| out_of_range())
}

/// Raw values as timestamps of `unit` in `zone` (none: zone-less).
pub(super) fn timestamps(unit: TimeUnit, zone: Option<Arc<str>>, raw: &Int64Array) -> ArrayRef {
    fn of<T: ArrowTimestampType>(raw: &Int64Array, zone: Option<Arc<str>>) -> ArrayRef {
        Arc::new(
            PrimitiveArray::<T>::new(raw.values().clone(), raw.nulls().cloned())
                .with_timezone_opt(zone),
        )
    }
    match unit {
        TimeUnit::Second => of::<TimestampSecondType>(raw, zone),
        TimeUnit::Millisecond => of::<TimestampMillisecondType>(raw, zone),
        TimeUnit::Microsecond => of::<TimestampMicrosecondType>(raw, zone),
        TimeUnit::Nanosecond => of::<TimestampNanosecondType>(raw, zone),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trips_over_the_range_of_date32() {
        for days in (-2_147_483_648i64..=2_147_483_647)
            .step_by(9_999_991)
            .chain([-1, 0, 1, -719_468, 11_016])
        {
            let (y, m, d) = civil(days);
            assert!((1..=12).contains(&m) && (1..=31).contains(&d), "{days}");
            assert_eq!(days_from_civil(y, m, d), days, "{days}");
        }
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(-1), (1969, 12, 31));
        assert_eq!(civil(18_321), (2020, 2, 29));
        // DuckDB: year(DATE '0001-01-01' - 1) = 0, year(DATE '-5877641-06-25') = -5877641.
        assert_eq!(civil(days_from_civil(1, 1, 1) - 1), (0, 12, 31));
        assert_eq!(civil(-2_147_483_648).0, -5_877_641);
        assert_eq!(civil(2_147_483_647).0, 5_881_580);
    }

    #[test]
    fn parts_follow_duckdb() {
        // 2024-01-07 was a Sunday: dayofweek 0, isodow 7.
        let d = days_from_civil(2024, 1, 7);
        assert_eq!(Part::Dow.of(d, 0), 0);
        assert_eq!(Part::Isodow.of(d, 0), 7);
        assert_eq!(Part::Doy.of(days_from_civil(2024, 12, 31), 0), 366);
        assert_eq!(Part::Quarter.of(days_from_civil(2024, 12, 31), 0), 4);
        // DuckDB: week(DATE '2021-01-01') = 53 of isoyear 2020, week(DATE '2024-12-30') = 1
        // of isoyear 2025.
        let (a, b) = (days_from_civil(2021, 1, 1), days_from_civil(2024, 12, 30));
        assert_eq!((Part::Week.of(a, 0), Part::IsoYear.of(a, 0)), (53, 2020));
        assert_eq!((Part::Week.of(b, 0), Part::IsoYear.of(b, 0)), (1, 2025));
        let ns = ((10 * 60 + 11) * 60 + 12) * 1_000_000_000 + 500_000_000;
        assert_eq!(Part::Hour.of(d, ns), 10);
        assert_eq!(Part::Minute.of(d, ns), 11);
        assert_eq!(Part::Second.of(d, ns), 12);
        // A nanosecond before the epoch is 1969-12-31 23:59:59.
        let (days, ns) = days_and_ns(-1, 1);
        assert_eq!(
            (days, Part::Hour.of(days, ns), Part::Second.of(days, ns)),
            (-1, 23, 59)
        );
    }

    #[test]
    fn date_trunc_gives_the_start_of_the_unit_that_holds_the_instant() {
        use Trunc::*;
        let units = [
            Millennium,
            Century,
            Decade,
            Year,
            Quarter,
            Month,
            Week,
            IsoYear,
            Day,
            Hour,
            Minute,
            Second,
            Millisecond,
            Microsecond,
        ];
        for days in (-2_147_483_648i64..=2_147_483_647)
            .step_by(7_777_777)
            .chain(-800..800)
        {
            for ns in [0, 1, 999, 1_000, 59_999_999_999, DAY_NS as i64 - 1] {
                let (y, m, d) = civil(days);
                for t in units {
                    let (d2, n2) = t.of(days, ns);
                    // Not after the instant (but decades, centuries and millennia before
                    // year 0 are counted toward it, as DuckDB's), and the start of its own
                    // unit.
                    let toward_0 = y < 0 && matches!(t, Millennium | Century | Decade);
                    assert!(toward_0 || (d2, n2) <= (days, ns), "{t:?} of {days} {ns}");
                    assert_eq!(t.of(d2, n2), (d2, n2), "{t:?} of {days} {ns}");
                    let (y2, m2, d2c) = civil(d2);
                    let want = match t {
                        Millennium => (y / 1000 * 1000, 1, 1, 0),
                        Century => (y / 100 * 100, 1, 1, 0),
                        Decade => (y / 10 * 10, 1, 1, 0),
                        Year => (y, 1, 1, 0),
                        Quarter => (y, (m - 1) / 3 * 3 + 1, 1, 0),
                        Month => (y, m, 1, 0),
                        Day => (y, m, d, 0),
                        Hour => (y, m, d, ns / 3_600_000_000_000 * 3_600_000_000_000),
                        Microsecond => (y, m, d, ns / 1_000 * 1_000),
                        Week | IsoYear => {
                            // A Monday, within the week or the ISO year of the instant.
                            assert_eq!((Part::Isodow.of(d2, 0), n2), (1, 0), "{t:?}");
                            let same = if t == Week { Part::Week } else { Part::IsoYear };
                            assert_eq!(same.of(d2, 0), same.of(days, 0), "{t:?} of {days}");
                            assert!(days - d2 < if t == Week { 7 } else { 371 });
                            continue;
                        }
                        _ => continue,
                    };
                    assert_eq!((y2, m2, d2c, n2), want, "{t:?} of {days} {ns}");
                }
            }
        }
    }

    #[test]
    fn upper_and_lower_map_one_character_to_one_as_duckdb() {
        assert_eq!(uppercase("straße ᾀ ﬀ ǆ σς"), "STRAẞE ᾈ ﬀ Ǆ ΣΣ");
        assert_eq!(
            uppercase("\u{1FB3}\u{1FC3}\u{1FF3}ŉ"),
            "\u{1FBC}\u{1FCC}\u{1FFC}ŉ"
        );
        assert_eq!(lowercase("İSTANBUL ǅ Σ"), "istanbul ǆ σ");
        // Mappings Unicode added after 15.1 (Garay), which DuckDB 2.0 does not have.
        assert_eq!(uppercase("\u{10D70}\u{A7CD}"), "\u{10D70}\u{A7CD}");
        assert_eq!(lowercase("\u{10D50}\u{A7CC}"), "\u{10D50}\u{A7CC}");
    }

    #[test]
    fn case_mapped_keeps_nulls_and_takes_every_layout() {
        let values = [
            Some("Ab"),
            None,
            Some("a longer value than twelve bytes, ÄÖ"),
            Some(""),
            Some("İ ß"),
        ];
        let want_lower = [
            Some("ab"),
            None,
            Some("a longer value than twelve bytes, äö"),
            Some(""),
            Some("i ß"),
        ];
        let want_upper = [
            Some("AB"),
            None,
            Some("A LONGER VALUE THAN TWELVE BYTES, ÄÖ"),
            Some(""),
            Some("İ ẞ"),
        ];
        let utf8: ArrayRef = Arc::new(arrow::array::StringArray::from(values.to_vec()));
        let arrays: [ArrayRef; 4] = [
            Arc::clone(&utf8),
            Arc::new(LargeStringArray::from(values.to_vec())),
            Arc::new(arrow::array::StringViewArray::from(values.to_vec())),
            // A slice: its offsets do not start at 0.
            utf8.slice(1, 4),
        ];
        for a in arrays {
            let skip = values.len() - a.len();
            for (case, want) in [(Case::Lower, &want_lower), (Case::Upper, &want_upper)] {
                let got = case_mapped(&a, case).unwrap().unwrap();
                let got: Vec<_> = got.as_string::<i64>().iter().collect();
                assert_eq!(got, want[skip..], "{case:?} of {}", a.data_type());
            }
        }
        assert!(case_mapped(
            &(Arc::new(Int64Array::from(vec![1])) as ArrayRef),
            Case::Lower
        )
        .is_none());
    }

    proptest::proptest! {
        // Runs of ASCII are mapped by their bytes, the rest by character: the same as mapping
        // every character.
        #[test]
        fn mapping_by_runs_is_mapping_by_characters(s in "[a-zA-Z0-9 ]{0,6}(\\PC{0,3}[a-zA-Z ]{0,6}){0,4}") {
            proptest::prop_assert_eq!(lowercase(&s), s.chars().map(lower_char).collect::<String>());
            proptest::prop_assert_eq!(uppercase(&s), s.chars().map(upper_char).collect::<String>());
        }
    }
}
