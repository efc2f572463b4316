//! Strings read as dates, timestamps and times of day the way DuckDB 2.0's casts read them,
//! for `CAST(s AS DATE | TIMESTAMP | TIMESTAMPTZ | TIME)` of a string column (and a literal
//! the strict parsers of `lit` refuse). A port of DuckDB's `Date::TryConvertDate`,
//! `Timestamp::TryConvertTimestampTZ`, `Time::TryConvertInternal`,
//! `Timestamp::TryParseUTCOffset` and of the casts that call them, quirks included:
//!
//! - A date is `[-]Y-M-D` with any number of year digits (up to nine that are not leading
//!   zeros), one or two of month and day, one separator used twice (`-`, `/`, `\` or a
//!   space), spaces around it and an optional ` (BC)`; `infinity` (or `inf`), `-infinity`
//!   and `epoch` in any case. A date followed by a time is read as a timestamp and keeps its
//!   day (`'2024-01-05 12:34'` is that day, `'2024-01-05 25:00'` is no date).
//! - A timestamp is a date, then after one space or `T` a time `H:M[:S[.fraction]]` (up to 24
//!   hours, further fraction digits dropped), then `Z`, a UTC offset `±HH[[:]MM[:SS]]` or a
//!   space and a time zone's name, all ignored (DuckDB's `TIMESTAMP` cast keeps the wall
//!   clock), and spaces. `CAST(s AS TIMESTAMPTZ)` subtracts the offset instead, and takes
//!   only UTC's names (there is no time zone database here).
//! - A time of day is `H:M[:S[.fraction]]` followed by anything (`'12:00:00+05'` is noon), up
//!   to 24:00:00, or else the time of day of a timestamp.
//!
//! Every value is in microseconds, as DuckDB's `TIMESTAMP` and `TIME`. The tests hold DuckDB
//! 2.0.1's answers for generated strings; `scripts/strtime_check.py` compares thousands more.

use super::eval::infinite;
use super::func::days_from_civil;
use super::lit::DAY_NS;

/// Why a string is not a value: not of the shape (`Format`) or out of the type's range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bad {
    Format,
    Range,
    /// A time zone's name the bundled database lacks, for a `TIMESTAMPTZ`.
    Zone,
    /// A wall-clock time in a named zone after the years the bundled database covers (DuckDB's
    /// ICU extends the zone's rules).
    ZoneRange,
}

const DAY_US: i64 = (DAY_NS / 1_000) as i64;

pub(super) fn space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn skip_spaces(b: &[u8], mut pos: usize) -> usize {
    while pos < b.len() && space(b[pos]) {
        pos += 1;
    }
    pos
}

fn digit(b: &[u8], pos: usize) -> Option<i64> {
    b.get(pos)
        .filter(|c| c.is_ascii_digit())
        .map(|c| i64::from(c - b'0'))
}

/// One or two digits (DuckDB's `ParseDoubleDigit`).
fn one_or_two_digits(b: &[u8], pos: &mut usize) -> Option<i64> {
    let mut v = digit(b, *pos)?;
    *pos += 1;
    if let Some(d) = digit(b, *pos) {
        v = v * 10 + d;
        *pos += 1;
    }
    Some(v)
}

/// `word` in any case at `pos`, or its first `abbr` letters ending the string.
fn word(b: &[u8], pos: &mut usize, word: &[u8], abbr: usize) -> bool {
    let (mut p, mut i) = (*pos, 0);
    while p < b.len() && i < word.len() {
        if b[p].to_ascii_lowercase() != word[i] {
            return false;
        }
        p += 1;
        i += 1;
    }
    if i < word.len() && p - *pos != abbr {
        return false;
    }
    *pos = p;
    true
}

fn leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// The days of month `m` (1 to 12) of year `y`, proleptic Gregorian.
pub(super) fn month_days(y: i64, m: i64) -> i64 {
    const DAYS: [i64; 13] = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if m == 2 && leap(y) {
        29
    } else {
        DAYS[m as usize]
    }
}

/// Days since the epoch of a valid date in DuckDB's range (5877642 BC-06-25 to
/// 5881580-07-10), proleptic Gregorian with a year 0.
pub(super) fn from_date(y: i64, m: i64, d: i64) -> Option<i32> {
    if !(1..=12).contains(&m) || d < 1 {
        return None;
    }
    if (y, m, d) < (-5_877_641, 6, 25) || (y, m, d) > (5_881_580, 7, 10) {
        return None;
    }
    if d > month_days(y, m) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

/// DuckDB's words for a date: `infinity` (or `inf`), `-infinity`, `epoch`, in any case, with
/// spaces around, as days (`±i32::MAX`, 0); `None` for any other text, a date's included.
pub(crate) fn special(b: &[u8]) -> Option<i32> {
    let start = skip_spaces(b, 0);
    let rest = &b[start..];
    let rest = rest.strip_prefix(b"-").unwrap_or(rest);
    if rest.first().is_none_or(u8::is_ascii_digit) {
        return None;
    }
    match date_prefix(b) {
        (Ok(days), end) if end == b.len() => Some(days),
        _ => None,
    }
}

/// DuckDB's `Date::TryConvertDate` (not strict): the days, and where the date ended.
fn date_prefix(b: &[u8]) -> (Result<i32, Bad>, usize) {
    use Bad::*;
    let len = b.len();
    let mut pos = skip_spaces(b, 0);
    if pos >= len {
        return (Err(Format), pos);
    }
    let negative = b[pos] == b'-';
    if negative {
        pos += 1;
        if pos >= len {
            return (Err(Format), pos);
        }
    }
    if !b[pos].is_ascii_digit() {
        let days = if word(b, &mut pos, b"infinity", 3) {
            if negative {
                -i32::MAX
            } else {
                i32::MAX
            }
        } else if word(b, &mut pos, b"epoch", 5) {
            0
        } else {
            return (Err(Format), pos);
        };
        pos = skip_spaces(b, pos);
        return (if pos == len { Ok(days) } else { Err(Format) }, pos);
    }
    let mut year = 0i64;
    while let Some(d) = digit(b, pos) {
        if year >= 100_000_000 {
            return (Err(Range), pos);
        }
        year = year * 10 + d;
        pos += 1;
    }
    if negative {
        year = -year;
    }
    if pos >= len {
        return (Err(Format), pos);
    }
    let sep = b[pos];
    pos += 1;
    if !matches!(sep, b' ' | b'-' | b'/' | b'\\') {
        return (Err(Format), pos);
    }
    let Some(month) = one_or_two_digits(b, &mut pos) else {
        return (Err(Format), pos);
    };
    if pos >= len || b[pos] != sep {
        return (Err(Format), pos);
    }
    pos += 1;
    let Some(day) = one_or_two_digits(b, &mut pos) else {
        return (Err(Format), pos);
    };
    if len - pos >= 5
        && space(b[pos])
        && b[pos + 1] == b'('
        && b[pos + 2].eq_ignore_ascii_case(&b'b')
        && b[pos + 3].eq_ignore_ascii_case(&b'c')
        && b[pos + 4] == b')'
    {
        if negative || year == 0 {
            return (Err(Format), pos);
        }
        year = 1 - year;
        pos += 5;
    }
    if digit(b, pos).is_some() {
        return (Err(Format), pos);
    }
    (from_date(year, month, day).ok_or(Range), pos)
}

/// DuckDB's `Time::TryConvertInternal` (not strict): where the time ended and its
/// microseconds (hours up to nine digits, as an interval's).
fn time_prefix(b: &[u8]) -> Option<(usize, i64)> {
    let len = b.len();
    let mut pos = skip_spaces(b, 0);
    digit(b, pos)?;
    let mut hour = 0i64;
    let mut digits = 9;
    while let Some(d) = digit(b, pos) {
        if digits == 0 {
            return None;
        }
        digits -= 1;
        hour = hour * 10 + d;
        pos += 1;
    }
    if pos >= len || b[pos] != b':' {
        return None;
    }
    pos += 1;
    let mut minute = 0;
    if pos < len {
        minute = one_or_two_digits(b, &mut pos).filter(|m| *m < 60)?;
    }
    let mut second = 0;
    if pos < len {
        if b[pos] != b':' {
            return None;
        }
        pos += 1;
        if pos < len {
            second = one_or_two_digits(b, &mut pos).filter(|s| *s < 60)?;
        }
    }
    let mut micros = 0;
    if pos < len && b[pos] == b'.' {
        pos += 1;
        let mut mult = 100_000;
        while let Some(d) = digit(b, pos) {
            micros += d * mult;
            mult /= 10;
            pos += 1;
        }
    }
    Some((
        pos,
        ((hour * 60 + minute) * 60 + second) * 1_000_000 + micros,
    ))
}

/// DuckDB's `Timestamp::TryParseUTCOffset` (strict): where a `±HH[[:]MM[:SS]]` offset ends,
/// and its seconds.
pub(super) fn utc_offset(b: &[u8], pos: usize) -> Option<(usize, i64)> {
    let len = b.len();
    if pos + 3 > len || !matches!(b[pos], b'+' | b'-') {
        return None;
    }
    let sign = if b[pos] == b'-' { -1 } else { 1 };
    let two = |p: usize| Some(digit(b, p)? * 10 + digit(b, p + 1)?);
    let mut p = pos + 1;
    let mut seconds = two(p)? * 3600;
    p += 2;
    if p >= len {
        return Some((p, sign * seconds));
    }
    let colons = b[p] == b':';
    if colons {
        p += 1;
    }
    if p + 2 > len || digit(b, p).is_none() {
        return (!colons).then_some((p, sign * seconds));
    }
    seconds += two(p)? * 60;
    p += 2;
    if p >= len || !colons || b[p] != b':' {
        return Some((p, sign * seconds));
    }
    p += 1;
    if p + 2 > len || digit(b, p).is_none() {
        return None;
    }
    seconds += two(p)?;
    Some((p + 2, sign * seconds))
}

/// A date at a time of day as microseconds since the epoch, if a timestamp holds it (DuckDB's
/// `TryFromDatetime`: not an infinity either).
fn from_datetime(days: i32, us: i64) -> Option<i64> {
    i64::from(days)
        .checked_mul(DAY_US)?
        .checked_add(us)
        .filter(|v| !infinite(Some(i64::MAX), *v))
}

/// `CAST(s AS TIMESTAMP)`: DuckDB's `Timestamp::TryConvertTimestamp` without using the offset,
/// in microseconds (`±i64::MAX` for `infinity` and `-infinity`).
pub(crate) fn timestamp(b: &[u8]) -> Result<i64, Bad> {
    zoned(b, false)
}

/// `CAST(s AS TIMESTAMPTZ)`: DuckDB's `Timestamp::TryConvertTimestampTZ` with the offset
/// subtracted (the instant in UTC, as DuckDB with `TimeZone = 'UTC'`), in microseconds. A
/// zone's name reads the wall-clock time there (see `zone`); [`Bad::Zone`] for a name
/// bloomjoin does not read (DuckDB's ICU may know it: `SystemV/EST5EDT`).
pub(crate) fn timestamptz(b: &[u8]) -> Result<i64, Bad> {
    zoned(b, true)
}

/// The names DuckDB's ICU gives UTC (any case): a time zone's name after a timestamp that
/// changes nothing.
pub(crate) fn utc_name(name: &[u8]) -> bool {
    const NAMES: &[&str] = &[
        "UTC",
        "GMT",
        "UCT",
        "Universal",
        "Zulu",
        "Greenwich",
        "GMT0",
        "GMT+0",
        "GMT-0",
        "Etc/UTC",
        "Etc/GMT",
        "Etc/UCT",
        "Etc/Universal",
        "Etc/Zulu",
        "Etc/Greenwich",
        "Etc/GMT0",
        "Etc/GMT+0",
        "Etc/GMT-0",
    ];
    NAMES
        .iter()
        .any(|n| n.as_bytes().eq_ignore_ascii_case(name))
}

/// [`timestamp`], and with `tz` [`timestamptz`].
fn zoned(b: &[u8], tz: bool) -> Result<i64, Bad> {
    let (days, mut pos) = date_prefix(b);
    let days = days?;
    let len = b.len();
    if pos == len {
        return match days {
            i32::MAX => Ok(i64::MAX),
            d if d == -i32::MAX => Ok(-i64::MAX),
            d => from_datetime(d, 0).ok_or(Bad::Range),
        };
    }
    if matches!(b[pos], b' ' | b'T') {
        pos += 1;
    }
    // The time runs to the first `Z`, sign or space after its own leading spaces.
    let rest = &b[pos..];
    let start = skip_spaces(rest, 0);
    let time_len = rest[start..]
        .iter()
        .position(|c| matches!(c, b'Z' | b'+' | b'-') || space(*c))
        .map_or(rest.len(), |n| start + n);
    match time_prefix(&rest[..time_len]) {
        Some((end, us)) if end == time_len => {
            if us > DAY_US {
                return Err(Bad::Range);
            }
            pos += end;
            let v = from_datetime(days, us).ok_or(Bad::Range)?;
            let mut offset = 0;
            let mut named = None;
            if pos < len {
                if b[pos] == b'Z' {
                    pos += 1;
                } else if let Some((p, seconds)) = utc_offset(b, pos) {
                    pos = p;
                    offset = seconds;
                } else {
                    // A time zone's name, after a space.
                    if b[pos] != b' ' {
                        return Err(Bad::Format);
                    }
                    pos += 1;
                    let start = pos;
                    while pos < len
                        && (b[pos].is_ascii_alphanumeric() || b"_/+-:".contains(&b[pos]))
                    {
                        pos += 1;
                    }
                    named = Some(&b[start..pos]);
                }
                if skip_spaces(b, pos) < len {
                    return Err(Bad::Format);
                }
            }
            if !tz {
                return Ok(v);
            }
            match named {
                // A zone's name starts with a letter: DuckDB's ICU knows no other (` +05`, ` 1`:
                // NULL for TRY_CAST).
                Some([c, ..]) if !c.is_ascii_alphabetic() => return Err(Bad::Format),
                // Another zone's name: the wall-clock time there, as `zone` reads it; a name
                // bloomjoin does not read (ICU's `SystemV/EST5EDT`, or none) is refused, never NULL.
                Some(n) if !n.is_empty() && !utc_name(n) => {
                    let zone = std::str::from_utf8(n)
                        .ok()
                        .and_then(|n| super::zone::Zone::named(n).ok())
                        .ok_or(Bad::Zone)?;
                    offset = zone
                        .offset_of_local(v.div_euclid(1_000_000))
                        .map_err(|_| Bad::ZoneRange)?
                        .into();
                }
                _ => {}
            }
            v.checked_sub(offset * 1_000_000)
                .filter(|v| !infinite(Some(i64::MAX), *v))
                .ok_or(Bad::Range)
        }
        _ => Err(Bad::Format),
    }
}

/// `CAST(s AS DATE)`: a date, or the day of a timestamp's text (DuckDB's
/// `TryConvertDateCast`, not strict), in days (`±i32::MAX` for the infinities).
pub(crate) fn date(b: &[u8]) -> Result<i32, Bad> {
    let (days, pos) = date_prefix(b);
    let days = days?;
    if skip_spaces(b, pos) == b.len() {
        return Ok(days);
    }
    // More follows: it must make a timestamp, whose day this is. One out of the timestamps'
    // range is tried again with its time after a date they hold.
    match timestamp(b) {
        Ok(_) => Ok(days),
        Err(Bad::Range) => {
            let mut again = b"2000-01-01".to_vec();
            again.extend_from_slice(&b[pos..]);
            timestamp(&again).map(|_| days)
        }
        Err(e) => Err(e),
    }
}

/// `CAST(s AS TIME)`: as DuckDB 2.0.1 casts (a time with a time zone's reading, its offset
/// dropped): a time of day up to 24:00:00, then spaces and `Z` or a UTC offset within 16
/// hours, and spaces; or else a timestamp's time of day. In microseconds.
pub(crate) fn time(b: &[u8]) -> Result<i64, Bad> {
    match time_prefix(b) {
        Some((_, us)) if us > DAY_US => Err(Bad::Range),
        Some((pos, us)) => {
            let mut pos = skip_spaces(b, pos);
            if pos < b.len() {
                if b[pos] == b'Z' {
                    pos += 1;
                } else {
                    match utc_offset(b, pos) {
                        Some((p, offset)) if offset.abs() < 16 * 3600 => pos = p,
                        _ => return Err(Bad::Format),
                    }
                }
            }
            if skip_spaces(b, pos) < b.len() {
                return Err(Bad::Format);
            }
            Ok(us)
        }
        None => match timestamp(b)? {
            v if infinite(Some(i64::MAX), v) => Err(Bad::Range),
            v => Ok(v.rem_euclid(DAY_US)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DuckDB 2.0.1's `TRY_CAST` of each string to DATE (days), TIMESTAMP (microseconds,
    /// `±i64::MAX` for its infinities) and TIME (microseconds).
    #[test]
    fn strings_read_as_duckdb_reads_them() {
        /// A string and its DATE, TIMESTAMP and TIME.
        type Row = (&'static str, Option<i32>, Option<i64>, Option<i64>);
        const DUCKDB: &[Row] = &[
            ("2024-01-05", Some(19727), Some(1704412800000000), Some(0)),
            ("2024-1-5", Some(19727), Some(1704412800000000), Some(0)),
            (" 2024-01-05 ", Some(19727), None, None),
            ("\t2024-01-05\n", Some(19727), None, None),
            ("2024/01/05", Some(19727), Some(1704412800000000), Some(0)),
            ("2024 01 05", Some(19727), Some(1704412800000000), Some(0)),
            ("2024\\01\\05", Some(19727), Some(1704412800000000), Some(0)),
            ("2024-01/05", None, None, None),
            ("2024.01.05", None, None, None),
            ("2024-01-05abc", None, None, None),
            (
                "2024-01-05 12:34",
                Some(19727),
                Some(1704458040000000),
                Some(45240000000),
            ),
            (
                "2024-01-05T12:34:56.789",
                Some(19727),
                Some(1704458096789000),
                Some(45296789000),
            ),
            ("2024-01-05t12:34", None, None, None),
            ("2024-01-0512", None, None, None),
            ("2024-01-005", None, None, None),
            ("02024-01-05", Some(19727), Some(1704412800000000), Some(0)),
            (
                "0000000002024-01-05",
                Some(19727),
                Some(1704412800000000),
                Some(0),
            ),
            ("24-01-05", Some(-710758), Some(-61409491200000000), Some(0)),
            ("4-1-5", Some(-718063), Some(-62040643200000000), Some(0)),
            (
                "-2024-01-05",
                Some(-1458775),
                Some(-126038160000000000),
                Some(0),
            ),
            ("+2024-01-05", None, None, None),
            (
                "2024-01-05 (BC)",
                Some(-1458409),
                Some(-126006537600000000),
                Some(0),
            ),
            (
                "2024-01-05 (bc)",
                Some(-1458409),
                Some(-126006537600000000),
                Some(0),
            ),
            ("2024-01-05(BC)", None, None, None),
            ("0-01-05 (BC)", None, None, None),
            (
                "0000-01-01",
                Some(-719528),
                Some(-62167219200000000),
                Some(0),
            ),
            (
                "infinity",
                Some(2147483647),
                Some(9223372036854775807),
                None,
            ),
            (
                "-infinity",
                Some(-2147483647),
                Some(-9223372036854775807),
                None,
            ),
            ("inf", Some(2147483647), Some(9223372036854775807), None),
            ("INF", Some(2147483647), Some(9223372036854775807), None),
            ("infi", None, None, None),
            ("epoch", Some(0), Some(0), Some(0)),
            ("-epoch", Some(0), Some(0), Some(0)),
            ("epo", None, None, None),
            (
                " Infinity ",
                Some(2147483647),
                Some(9223372036854775807),
                None,
            ),
            ("infinity x", None, None, None),
            ("2024-02-29", Some(19782), Some(1709164800000000), Some(0)),
            ("2023-02-29", None, None, None),
            ("2024-02-30", None, None, None),
            ("2024-13-01", None, None, None),
            ("2024-00-10", None, None, None),
            ("2024-01-00", None, None, None),
            ("5881580-07-10", Some(2147483646), None, None),
            ("5881580-07-11", None, None, None),
            ("5877642-06-25 (BC)", Some(-2147483646), None, None),
            ("5877642-06-24 (BC)", None, None, None),
            ("-5877641-06-25", Some(-2147483646), None, None),
            ("123456789-01-01", None, None, None),
            (
                "2024-01-05 24:00:00",
                Some(19727),
                Some(1704499200000000),
                Some(0),
            ),
            ("2024-01-05 24:00:00.000001", None, None, None),
            ("2024-01-05 25:00:00", None, None, None),
            ("2024-01-05 12:60", None, None, None),
            (
                "2024-01-05 1:2:3",
                Some(19727),
                Some(1704416523000000),
                Some(3723000000),
            ),
            (
                "2024-01-05 12:",
                Some(19727),
                Some(1704456000000000),
                Some(43200000000),
            ),
            (
                "2024-01-05 12:00:",
                Some(19727),
                Some(1704456000000000),
                Some(43200000000),
            ),
            ("2024-01-05 12", None, None, None),
            (
                "2024-01-05  12:00",
                Some(19727),
                Some(1704456000000000),
                Some(43200000000),
            ),
            (
                "2024-01-05 12:00:00.1234567",
                Some(19727),
                Some(1704456000123456),
                Some(43200123456),
            ),
            (
                "2024-01-05 12:00:00Z",
                Some(19727),
                Some(1704456000000000),
                Some(43200000000),
            ),
            ("2024-01-05 12:00:00z", None, None, None),
            (
                "2024-01-05 12:00:00+05",
                Some(19727),
                Some(1704456000000000),
                Some(43200000000),
            ),
            (
                "2024-01-05 12:00:00-05:30",
                Some(19727),
                Some(1704456000000000),
                Some(43200000000),
            ),
            (
                "2024-01-05 12:00:00+0530",
                Some(19727),
                Some(1704456000000000),
                Some(43200000000),
            ),
            (
                "2024-01-05 12:00:00+05:30:15",
                Some(19727),
                Some(1704456000000000),
                Some(43200000000),
            ),
            ("2024-01-05 12:00:00+5", None, None, None),
            ("2024-01-05 12:00:00+05x", None, None, None),
            (
                "2024-01-05 12:00:00 UTC",
                Some(19727),
                Some(1704456000000000),
                Some(43200000000),
            ),
            (
                "2024-01-05 12:00:00 America/New_York",
                Some(19727),
                Some(1704456000000000),
                Some(43200000000),
            ),
            (
                "2024-01-05 12:00:00 Foo/Bar ",
                Some(19727),
                Some(1704456000000000),
                Some(43200000000),
            ),
            ("2024-01-05 12:00:00 x y", None, None, None),
            ("2024-01-05 12:00:00x", None, None, None),
            ("2024-01-05 ", Some(19727), None, None),
            ("2024-01-05T", None, None, None),
            (
                "1600-02-29 23:59:59.999999",
                Some(-135081),
                Some(-11670912000000001),
                Some(86399999999),
            ),
            (
                "294247-01-10 04:00:54.775806",
                Some(106751991),
                Some(9223372036854775806),
                Some(14454775806),
            ),
            ("294247-01-10 04:00:54.775807", Some(106751991), None, None),
            ("300000-01-01 12:00:00", Some(108853222), None, None),
            ("300000-01-01 25:00:00", None, None, None),
            (
                "1969-12-31 23:59:59.999999",
                Some(-1),
                Some(-1),
                Some(86399999999),
            ),
            ("12:00:00", None, None, Some(43200000000)),
            ("1:2:3", None, None, Some(3723000000)),
            ("12:00", None, None, Some(43200000000)),
            ("12:", None, None, Some(43200000000)),
            ("12:00:", None, None, Some(43200000000)),
            ("24:00:00", None, None, Some(86400000000)),
            ("24:00:00.000001", None, None, None),
            ("25:00:00", None, None, None),
            ("12:60", None, None, None),
            ("12:00:60", None, None, None),
            ("12:00:00.1234567", None, None, Some(43200123456)),
            ("12:00:00 ", None, None, Some(43200000000)),
            ("  12:00:00", None, None, Some(43200000000)),
            ("12:00:00abc", None, None, None),
            ("12:00:00 x", None, None, None),
            ("12:00:00Z", None, None, Some(43200000000)),
            ("12:00:00 Z", None, None, Some(43200000000)),
            ("12:00:00z", None, None, None),
            ("12:00:00+05", None, None, Some(43200000000)),
            ("12:00:00-15:59:59", None, None, Some(43200000000)),
            ("12:00:00+16", None, None, None),
            ("12:00:00+0530", None, None, Some(43200000000)),
            ("12:00:00+5", None, None, None),
            ("12:00:00 UTC", None, None, None),
            ("1234567890:00", None, None, None),
            ("123456789:00", None, None, None),
            ("", None, None, None),
            (" ", None, None, None),
            ("x", None, None, None),
            ("-", None, None, None),
            ("2024", None, None, None),
            ("2024-01", None, None, None),
        ];
        let mut wrong = Vec::new();
        for (s, d, ts, t) in DUCKDB {
            let got = (
                date(s.as_bytes()).ok(),
                timestamp(s.as_bytes()).ok(),
                time(s.as_bytes()).ok(),
            );
            if got != (*d, *ts, *t) {
                wrong.push(format!("{s:?}: got {got:?}, DuckDB {:?}", (d, ts, t)));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn from_date_counts_days_over_duckdb_range() {
        assert_eq!(from_date(1970, 1, 1), Some(0));
        assert_eq!(from_date(2020, 1, 1), Some(18262));
        assert_eq!(from_date(1, 1, 1), Some(-719162));
        assert_eq!(from_date(5_881_580, 7, 10), Some(i32::MAX - 1));
        assert_eq!(from_date(5_881_580, 7, 11), None);
        assert_eq!(from_date(-5_877_641, 6, 25), Some(-(i32::MAX - 1)));
        assert_eq!(from_date(-5_877_641, 6, 24), None);
        assert_eq!(from_date(2024, 2, 29), Some(19782));
        assert_eq!(from_date(2023, 2, 29), None);
        assert_eq!(from_date(0, 2, 29), Some(-719469));
    }
}
