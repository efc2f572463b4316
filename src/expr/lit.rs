//! Literals of the `--where` language and the exact conversions between them and column
//! values: numbers are exact decimals (never floats unless written with an exponent), dates
//! are day numbers, timestamps are nanoseconds since the epoch, times of day nanoseconds since
//! midnight, and binary literals decode DuckDB's `\xHH` escapes.

use std::fmt;

use arrow::datatypes::i256;

/// Nanoseconds in a day.
pub(crate) const DAY_NS: i128 = 86_400 * 1_000_000_000;

/// `infinity` in nanoseconds since the epoch (`TIMESTAMP 'infinity'`, and a date's or a
/// timestamp's infinity in 128-bit nanoseconds): beyond every finite value (at most 2^110).
/// Its negation is `-infinity`.
pub(crate) const INFINITE_NS: i128 = 1 << 120;

/// A number with a fraction but more digits than this is a DOUBLE, as in DuckDB (whose
/// DECIMAL stops at 38 digits).
const MAX_DECIMAL_DIGITS: usize = 38;

/// Integer literals are exact up to this many digits (an `i256` holds 76).
pub(crate) const MAX_INTEGER_DIGITS: usize = 76;

/// An exact decimal number: `mantissa / 10^scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dec {
    /// The digits, as an integer.
    pub mantissa: i256,
    /// How many of them are after the decimal point.
    pub scale: u32,
}

/// A literal value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Lit {
    /// A number without an exponent: exact.
    Num(Dec),
    /// A number with an exponent (`1e3`), or a fraction of more than 38 digits: a DOUBLE.
    Double(f64),
    /// A string.
    Str(String),
    /// `DATE 'YYYY-MM-DD'`, as days since the epoch; `DATE 'infinity'` is `i32::MAX` days and
    /// `-infinity` its negation, as DuckDB stores them.
    Date(i32),
    /// `TIMESTAMP 'YYYY-MM-DD HH:MM:SS.fffffffff'`, as nanoseconds since the epoch (no zone);
    /// `TIMESTAMP 'infinity'` is [`INFINITE_NS`], `-infinity` its negation.
    Timestamp(i128),
    /// `TIMESTAMPTZ '...'` (`TIMESTAMP WITH TIME ZONE`): the instant, as nanoseconds since the
    /// epoch in UTC, whole microseconds (DuckDB's `TIMESTAMPTZ`); infinities as
    /// [`Lit::Timestamp`]'s.
    TimestampTz(i128),
    /// `TIME 'HH:MM:SS.ffffff'`, as nanoseconds since midnight (whole microseconds, as DuckDB's
    /// `TIME`).
    Time(i128),
    /// `TRUE` or `FALSE`.
    Bool(bool),
    /// `NULL`.
    Null,
    /// `INTERVAL '3 days'`, as microseconds (a fixed length: no months or years).
    Interval(i64),
}

impl Lit {
    /// A time of day of `ns` nanoseconds since midnight as DuckDB's `TIME` holds it: whole
    /// microseconds, further digits dropped.
    pub(crate) fn time(ns: i128) -> Lit {
        Lit::Time(ns - ns.rem_euclid(1_000))
    }

    /// What kind of value this is, for error messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Lit::Num(_) | Lit::Double(_) => "a number",
            Lit::Str(_) => "a string",
            Lit::Date(_) => "a date",
            Lit::Timestamp(_) => "a timestamp",
            Lit::TimestampTz(_) => "a timestamp with time zone",
            Lit::Time(_) => "a time of day",
            Lit::Bool(_) => "a boolean",
            Lit::Null => "NULL",
            Lit::Interval(_) => "an interval",
        }
    }
}

impl fmt::Display for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lit::Num(d) => write!(f, "{d}"),
            Lit::Double(v) => write!(f, "{v:e}"),
            Lit::Str(s) => {
                // Error messages stay short and on one line.
                let mut shown: String = s.chars().take(40).collect();
                if shown.len() < s.len() {
                    shown.push('…');
                }
                write!(f, "'{}'", shown.replace('\'', "''").escape_debug())
            }
            Lit::Date(d) if *d == i32::MAX || *d == -i32::MAX => {
                write!(f, "DATE '{}'", infinity_word(*d))
            }
            Lit::Timestamp(ns) if *ns == INFINITE_NS || *ns == -INFINITE_NS => {
                write!(f, "TIMESTAMP '{}'", infinity_word(*ns))
            }
            Lit::TimestampTz(ns) if *ns == INFINITE_NS || *ns == -INFINITE_NS => {
                write!(f, "TIMESTAMPTZ '{}'", infinity_word(*ns))
            }
            Lit::TimestampTz(ns) => {
                let shown = Lit::Timestamp(*ns).to_string();
                let text = shown.strip_prefix("TIMESTAMP ").unwrap_or(&shown);
                match text.strip_suffix('\'') {
                    Some(t) => write!(f, "TIMESTAMPTZ {t}+00'"),
                    None => write!(f, "TIMESTAMPTZ {text}"),
                }
            }
            Lit::Date(d) => match arrow::temporal_conversions::date32_to_datetime(*d) {
                Some(t) => write!(f, "DATE '{}'", t.date()),
                None => write!(f, "DATE (day {d})"),
            },
            Lit::Timestamp(ns) => {
                let secs = ns.div_euclid(1_000_000_000);
                let sub = ns.rem_euclid(1_000_000_000);
                match i64::try_from(secs)
                    .ok()
                    .and_then(arrow::temporal_conversions::timestamp_s_to_datetime)
                {
                    Some(t) if sub == 0 => write!(f, "TIMESTAMP '{t}'"),
                    Some(t) => write!(f, "TIMESTAMP '{t}.{sub:09}'"),
                    None => write!(f, "TIMESTAMP ({ns} ns)"),
                }
            }
            Lit::Time(ns) => {
                let (secs, sub) = (ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000));
                let (h, m, sec) = (secs / 3600, secs / 60 % 60, secs % 60);
                match sub {
                    0 => write!(f, "TIME '{h:02}:{m:02}:{sec:02}'"),
                    _ if sub % 1_000 == 0 => {
                        write!(f, "TIME '{h:02}:{m:02}:{sec:02}.{:06}'", sub / 1_000)
                    }
                    _ => write!(f, "TIME '{h:02}:{m:02}:{sec:02}.{sub:09}'"),
                }
            }
            Lit::Bool(b) => f.write_str(if *b { "TRUE" } else { "FALSE" }),
            Lit::Null => f.write_str("NULL"),
            Lit::Interval(us) => {
                // In the largest units that divide it, as DuckDB prints intervals.
                let sign = if *us < 0 { "-" } else { "" };
                let mut left = us.unsigned_abs();
                let mut parts = Vec::new();
                for (name, per) in [
                    ("day", 86_400_000_000u64),
                    ("hour", 3_600_000_000),
                    ("minute", 60_000_000),
                    ("second", 1_000_000),
                    ("microsecond", 1),
                ] {
                    let n = left / per;
                    left %= per;
                    if n > 0 {
                        let s = if n == 1 { "" } else { "s" };
                        parts.push(format!("{sign}{n} {name}{s}"));
                    }
                }
                if parts.is_empty() {
                    parts.push("0 microseconds".into());
                }
                write!(f, "INTERVAL '{}'", parts.join(" "))
            }
        }
    }
}

impl fmt::Display for Dec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.mantissa.wrapping_abs().to_string();
        let sign = if self.mantissa.is_negative() { "-" } else { "" };
        let scale = self.scale as usize;
        if scale == 0 {
            return write!(f, "{sign}{digits}");
        }
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (int, frac) = padded.split_at(padded.len() - scale);
        write!(f, "{sign}{int}.{frac}")
    }
}

impl Dec {
    /// The nearest `f64` (correctly rounded, through the decimal text).
    pub(crate) fn to_f64(self) -> f64 {
        format!("{}e-{}", self.mantissa, self.scale)
            .parse()
            .unwrap_or(f64::NAN)
    }

    /// The nearest `f32` (correctly rounded from the exact value, as DuckDB casts a DECIMAL
    /// literal to FLOAT).
    pub(crate) fn to_f32(self) -> f32 {
        format!("{}e-{}", self.mantissa, self.scale)
            .parse()
            .unwrap_or(f32::NAN)
    }
}

/// Parse the text of a numeric literal (digits, an optional point, an optional exponent;
/// DuckDB's `_` digit separators allowed), negated when `negative`.
pub(crate) fn number(text: &str, negative: bool) -> Result<Lit, String> {
    let s: String = text.chars().filter(|c| *c != '_').collect();
    let bad = || format!("{text} is not a number");
    if s.contains(['e', 'E']) {
        let v: f64 = s.parse().map_err(|_| bad())?;
        return Ok(Lit::Double(if negative { -v } else { v }));
    }
    let (int, frac, point) = match s.split_once('.') {
        Some((a, b)) => (a, b, true),
        None => (s.as_str(), "", false),
    };
    let digits_only = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits_only(int) || !digits_only(frac) {
        return Err(bad());
    }
    if point && int.len() + frac.len() > MAX_DECIMAL_DIGITS {
        // DuckDB reads such a literal as a DOUBLE; so do we.
        let v: f64 = s.parse().map_err(|_| bad())?;
        return Ok(Lit::Double(if negative { -v } else { v }));
    }
    let all = format!("{int}{frac}");
    let significant = all.trim_start_matches('0');
    if significant.len() > MAX_INTEGER_DIGITS {
        return Err(format!(
            "{text} has more than {MAX_INTEGER_DIGITS} digits (the limit for exact numbers)"
        ));
    }
    let mut mantissa = if significant.is_empty() {
        i256::ZERO
    } else {
        i256::from_string(significant).ok_or_else(bad)?
    };
    if negative {
        mantissa = mantissa.wrapping_neg();
    }
    Ok(Lit::Num(Dec {
        mantissa,
        scale: frac.len() as u32,
    }))
}

/// Microseconds per unit of a fixed-length interval, by the names DuckDB reads (singular,
/// plural and short).
const INTERVAL_UNITS: &[(&[&str], i64)] = &[
    (&["week", "weeks", "w"], 7 * 86_400_000_000),
    (&["day", "days", "d"], 86_400_000_000),
    (&["hour", "hours", "h", "hr", "hrs"], 3_600_000_000),
    (&["minute", "minutes", "m", "min", "mins"], 60_000_000),
    (&["second", "seconds", "s", "sec", "secs"], 1_000_000),
    (
        &["millisecond", "milliseconds", "ms", "msec", "msecs"],
        1_000,
    ),
    (&["microsecond", "microseconds", "us", "usec", "usecs"], 1),
];

/// The length in microseconds of an interval's text: pairs of a number and a unit, `3 days`,
/// `1 day 2 hours`, `-1.5 hours` (a fraction must come to whole microseconds).
pub(crate) fn interval(text: &str) -> Result<i64, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let bad = |why: &str| format!("INTERVAL '{text}': {why}");
    if words.is_empty() || !words.len().is_multiple_of(2) {
        return Err(bad("write <number> <unit> pairs, e.g. '1 day 2 hours'"));
    }
    let mut total: i128 = 0;
    for pair in words.chunks(2) {
        let (n, unit) = (pair[0], pair[1].to_ascii_lowercase());
        let per = match INTERVAL_UNITS
            .iter()
            .find(|(names, _)| names.contains(&unit.as_str()))
        {
            Some((_, per)) => *per,
            None if [
                "month", "months", "mon", "mons", "year", "years", "y", "yr", "yrs",
            ]
            .contains(&unit.as_str()) =>
            {
                return Err(bad(
                    "months and years are unsupported (their length depends on the date); \
                     use days",
                ))
            }
            None => {
                return Err(bad(&format!(
                    "unknown unit {:?} (weeks, days, hours, minutes, seconds, milliseconds, \
                     microseconds)",
                    pair[1]
                )))
            }
        };
        let (digits, negative) = match n.strip_prefix('-') {
            Some(d) => (d, true),
            None => (n.strip_prefix('+').unwrap_or(n), false),
        };
        let d = match number(digits, negative) {
            Ok(Lit::Num(d)) if !digits.starts_with(['-', '+']) => d,
            _ => return Err(bad(&format!("{n:?} is not a number"))),
        };
        let us = d
            .mantissa
            .checked_mul(i256::from_i128(per as i128))
            .ok_or_else(|| bad("too long"))?;
        let div = pow10(d.scale).ok_or_else(|| bad("too many digits"))?;
        if us.wrapping_rem(div) != i256::ZERO {
            return Err(bad(&format!(
                "{n} {} is no whole number of microseconds",
                pair[1]
            )));
        }
        let us = us
            .wrapping_div(div)
            .to_i128()
            .ok_or_else(|| bad("too long"))?;
        total = total.checked_add(us).ok_or_else(|| bad("too long"))?;
    }
    i64::try_from(total).map_err(|_| bad("too long"))
}

/// `10^e` as an `i256`, `None` when it does not fit.
pub(crate) fn pow10(e: u32) -> Option<i256> {
    i256::from_i128(10).checked_pow(e)
}

/// Where an exact value lands among the raw values of a column: `floor` is the largest raw
/// value not above it, `exact` says whether it is one. `Below`/`Above` mean beyond every
/// `i256`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Raw {
    /// Less than any `i256`.
    Below,
    /// Greater than any `i256`.
    Above,
    /// `floor(value)` in raw units, and whether the value is exactly that.
    At { floor: i256, exact: bool },
}

/// `num / den` (den > 0) rounded down, and whether the division was exact.
fn floor_div(num: i256, den: i256) -> Raw {
    let (q, r) = match num.checked_div_rem(den) {
        Some(x) => x,
        None => {
            return if num.is_negative() {
                Raw::Below
            } else {
                Raw::Above
            }
        }
    };
    let exact = r == i256::ZERO;
    let floor = if !exact && num.is_negative() {
        q.wrapping_sub(i256::ONE)
    } else {
        q
    };
    Raw::At { floor, exact }
}

/// The decimal `d` in the raw units of a column whose values are `raw × 10^-scale`.
pub(crate) fn dec_to_raw(d: Dec, scale: i32) -> Raw {
    let e = scale as i64 - d.scale as i64;
    let sign_beyond = || {
        if d.mantissa.is_negative() {
            Raw::Below
        } else {
            Raw::Above
        }
    };
    if e >= 0 {
        if d.mantissa == i256::ZERO {
            return Raw::At {
                floor: i256::ZERO,
                exact: true,
            };
        }
        match pow10(e as u32).and_then(|p| d.mantissa.checked_mul(p)) {
            Some(v) => Raw::At {
                floor: v,
                exact: true,
            },
            None => sign_beyond(),
        }
    } else {
        match pow10((-e) as u32) {
            Some(p) => floor_div(d.mantissa, p),
            // 10^-e exceeds every mantissa: the value lies strictly between -1 and 1.
            None => Raw::At {
                floor: if d.mantissa.is_negative() {
                    i256::MINUS_ONE
                } else {
                    i256::ZERO
                },
                exact: d.mantissa == i256::ZERO,
            },
        }
    }
}

/// The instant `ns` (nanoseconds since the epoch) in the raw units of a column whose values
/// are `raw × unit_ns` nanoseconds.
pub(crate) fn ns_to_raw(ns: i128, unit_ns: i128) -> Raw {
    floor_div(i256::from_i128(ns), i256::from_i128(unit_ns))
}

/// `infinity` or `-infinity`, by the sign of `v`.
fn infinity_word<T: Default + PartialOrd>(v: T) -> &'static str {
    if v > T::default() {
        "infinity"
    } else {
        "-infinity"
    }
}

/// A raw value of `unit` nanoseconds as nanoseconds; `±inf` (the type's raw infinities, if
/// it has them) become [`INFINITE_NS`] and its negation.
pub(crate) fn raw_ns(v: i128, inf: Option<i128>, unit: i128) -> i128 {
    match inf {
        Some(i) if v == i => INFINITE_NS,
        Some(i) if v == -i => -INFINITE_NS,
        _ => v * unit,
    }
}

/// The nanoseconds since the epoch of a date's midnight; [`INFINITE_NS`] (negated) for
/// `infinity` (`-infinity`).
pub(crate) fn date_ns(days: i32) -> i128 {
    raw_ns(days.into(), Some(i32::MAX.into()), DAY_NS)
}

/// A `DATE` literal: `YYYY-MM-DD`, or one of DuckDB's words (`infinity`, `-infinity`,
/// `epoch`: [`super::strtime::special`]).
pub(crate) fn date_literal(s: &str) -> Result<i32, String> {
    super::strtime::special(s.as_bytes()).map_or_else(|| strict_date(s), Ok)
}

/// A `TIMESTAMP` literal: [`strict_timestamp`]'s text, or one of DuckDB's words
/// ([`super::strtime::special`]), in nanoseconds since the epoch ([`date_ns`]).
pub(crate) fn timestamp_literal(s: &str) -> Result<i128, String> {
    super::strtime::special(s.as_bytes()).map_or_else(|| strict_timestamp(s), |d| Ok(date_ns(d)))
}

/// Parse `YYYY-MM-DD` (exactly that shape) into days since the epoch.
pub(crate) fn strict_date(s: &str) -> Result<i32, String> {
    use arrow::compute::kernels::cast_utils::Parser as _;
    let b = s.as_bytes();
    let shape = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        });
    let bad = || format!("'{s}' is not a date (expected 'YYYY-MM-DD')");
    if !shape {
        return Err(bad());
    }
    arrow::datatypes::Date32Type::parse(s).ok_or_else(bad)
}

/// A string literal met by a date column: `YYYY-MM-DD`, DuckDB's words ([`date_literal`]),
/// or a timestamp's text at midnight (`'2020-01-01 00:00:00'`, which DuckDB, Spark and
/// PostgreSQL also read as that date). A timestamp's text with a time of day is refused: those
/// engines drop the time, which changes what `>` or `=` mean, so the user is asked to say
/// which they meant.
pub(crate) fn date_text(s: &str) -> Result<i32, String> {
    let date = date_literal(s);
    if date.is_ok() || s.len() <= 10 {
        return date;
    }
    match strict_timestamp(s) {
        Ok(ns) if ns.rem_euclid(DAY_NS) == 0 => Ok(ns.div_euclid(DAY_NS) as i32),
        Ok(_) => Err(format!(
            "'{s}' has a time of day, and a date column compares with dates: write '{}' for \
             that day (what DuckDB and Spark make of it) or TIMESTAMP '{s}' for the instant",
            &s[..10]
        )),
        Err(_) => date,
    }
}

/// A timestamp literal (`ns`, from `text`) as DuckDB's `TIMESTAMP_NS` (`digits` 9),
/// `TIMESTAMP_US` (6), `TIMESTAMP_MS` (3) or `TIMESTAMP_S` (0) cast of the text has it: the
/// microseconds of the text (further digits dropped), rounded to milliseconds or seconds half
/// away from zero; a nanosecond one only within the nanosecond range. Infinities stay.
pub(crate) fn timestamp_of_precision(l: Lit, digits: u32, text: &str) -> Result<Lit, String> {
    let Lit::Timestamp(ns) = l else {
        return Ok(l);
    };
    if ns == INFINITE_NS || ns == -INFINITE_NS {
        return Ok(l);
    }
    if digits == 9 {
        // DuckDB keeps i64::MAX and MIN for its infinities.
        return if ns > i128::from(i64::MIN) && ns < i128::from(i64::MAX) {
            Ok(l)
        } else {
            Err(format!(
                "{text:?} is out of the range of TIMESTAMP_NS (years 1677 to 2262)"
            ))
        };
    }
    // The fraction's digits beyond microseconds dropped: the microsecond at or before.
    let us = ns.div_euclid(1_000);
    let step = 10i128.pow(6 - digits);
    let half = step / 2;
    let rounded = if us >= 0 {
        (us + half) / step
    } else {
        -((-us + half) / step)
    };
    Ok(Lit::Timestamp(rounded * step * 1_000))
}

/// A string DuckDB binds to `TIMESTAMP_NS` beside `beside` in `what` (an `IN` list, `BETWEEN`;
/// see `parse::ns_lists`): its `TIMESTAMP_NS '...'`, nanoseconds kept; a string with a time
/// zone (which DuckDB drops there), outside the years 1677 to 2262, or no timestamp, refused.
pub(crate) fn ns_string(s: &str, what: &str, beside: &str) -> Result<Lit, String> {
    let plain = timestamp_literal(s);
    let zoned = plain.is_err() && timestamptz_literal(s).is_ok();
    match plain.and_then(|v| timestamp_of_precision(Lit::Timestamp(v), 9, s)) {
        Ok(l) => Ok(l),
        Err(_) if zoned => Err(format!(
            "'{s}' in {what} with {beside}, which DuckDB reads as TIMESTAMP_NS, dropping the \
             string's time zone: write TIMESTAMPTZ '{s}' for the instant"
        )),
        Err(e) => Err(format!(
            "'{s}' in {what} with {beside}, which DuckDB reads as TIMESTAMP_NS: {e}"
        )),
    }
}

/// Parse `YYYY-MM-DD[( |T)HH:MM[:SS[.f]]]` (up to 9 fractional digits, no time zone) into
/// nanoseconds since the epoch.
pub(crate) fn strict_timestamp(s: &str) -> Result<i128, String> {
    let bad = || {
        format!(
            "'{s}' is not a timestamp (expected 'YYYY-MM-DD HH:MM:SS' with up to 9 fractional \
             digits and no time zone)"
        )
    };
    if s.len() < 10 || !s.is_char_boundary(10) {
        return Err(bad());
    }
    let (date, rest) = s.split_at(10);
    let days = strict_date(date).map_err(|_| bad())?;
    let ns = days as i128 * DAY_NS;
    if rest.is_empty() {
        return Ok(ns);
    }
    let rest = rest
        .strip_prefix(' ')
        .or_else(|| rest.strip_prefix('T'))
        .ok_or_else(bad)?;
    Ok(ns + time_of_day(rest).ok_or_else(bad)?)
}

/// A `TIMESTAMPTZ` literal, or a string met by a timestamp column with a time zone:
/// [`strict_timestamp`]'s text, then a zone: none (UTC, DuckDB's with `TimeZone = 'UTC'`),
/// `Z`, a UTC offset `±HH[[:]MM[:SS]]` (DuckDB's), or a space and one of UTC's names
/// (`UTC`, `GMT`, ...: [`super::strtime::utc_name`]); or one of DuckDB's words. The instant,
/// in nanoseconds since the epoch (the offset subtracted: `'2024-01-05 10:00:00+02'` is 08:00
/// UTC). Another zone's name (`' Europe/Oslo'`, `' GMT+2'`) reads the wall-clock time there,
/// from the time zone database bundled in the binary (see `zone`).
pub(crate) fn timestamptz_literal(s: &str) -> Result<i128, String> {
    if let Some(d) = super::strtime::special(s.as_bytes()) {
        return Ok(date_ns(d));
    }
    let bad = || {
        format!(
            "'{s}' is not a timestamp with time zone (expected 'YYYY-MM-DD HH:MM:SS' with up \
             to 9 fractional digits, then maybe Z, a UTC offset such as +02 or -05:30, or \
             ' UTC')"
        )
    };
    // The time of day runs from the 12th character to the first that is not a digit, a colon
    // or a point; the zone follows.
    let b = s.as_bytes();
    let head = match b.len() > 11 {
        true => {
            11 + b[11..]
                .iter()
                .position(|c| !(c.is_ascii_digit() || matches!(c, b':' | b'.')))
                .unwrap_or(b.len() - 11)
        }
        false => b.len(),
    };
    let ns = strict_timestamp(&s[..head]).map_err(|_| bad())?;
    let zone = &s[head..];
    let offset = match zone.as_bytes() {
        [] | [b'Z'] => 0,
        [b'+' | b'-', ..] => match super::strtime::utc_offset(zone.as_bytes(), 0) {
            Some((end, seconds)) if end == zone.len() => seconds,
            _ => return Err(bad()),
        },
        [b' ', name @ ..] if super::strtime::utc_name(name) => 0,
        [b' ', b'+' | b'-', ..] => {
            return Err(format!(
                "'{s}' is not a timestamp with time zone: write the UTC offset right after the \
                 time, without a space ('{}{}')",
                &s[..head],
                &zone[1..]
            ))
        }
        // A zone's name: the wall-clock time there (a gap's with the offset before it, a
        // fold's with the offset after it, as DuckDB's ICU reads them).
        [b' ', name @ ..]
            if name.first().is_some_and(u8::is_ascii_alphabetic)
                && name
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || b"_/+-:".contains(c)) =>
        {
            let zone = super::zone::Zone::named(&zone[1..]).map_err(|e| format!("'{s}': {e}"))?;
            let second = i64::try_from(ns.div_euclid(1_000_000_000)).map_err(|_| bad())?;
            i64::from(
                zone.offset_of_local(second)
                    .map_err(|e| format!("'{s}': {e}"))?,
            )
        }
        _ => return Err(bad()),
    };
    Ok(ns - i128::from(offset) * 1_000_000_000)
}

/// The [`Lit::TimestampTz`] of the instant `ns` ([`timestamptz_literal`]'s): whole
/// microseconds, further digits dropped, as DuckDB's `TIMESTAMPTZ` holds it.
pub(crate) fn timestamptz(ns: i128) -> Lit {
    match ns {
        INFINITE_NS => Lit::TimestampTz(ns),
        ns if ns == -INFINITE_NS => Lit::TimestampTz(ns),
        ns => Lit::TimestampTz(ns.div_euclid(1_000) * 1_000),
    }
}

/// `HH:MM[:SS[.f]]` (two digits each, up to 23:59:59, up to 9 fractional digits after the
/// seconds) as nanoseconds since midnight; `None` for anything else.
fn time_of_day(s: &str) -> Option<i128> {
    let (hms, frac) = match s.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let parts: Vec<&str> = hms.split(':').collect();
    let two = |p: &str, max: i128| -> Option<i128> {
        if p.len() != 2 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let v: i128 = p.parse().ok()?;
        (v <= max).then_some(v)
    };
    let (h, m, sec) = match parts.as_slice() {
        [h, m] if frac.is_none() => (two(h, 23)?, two(m, 59)?, 0),
        [h, m, sec] => (two(h, 23)?, two(m, 59)?, two(sec, 59)?),
        _ => return None,
    };
    let mut ns = ((h * 60 + m) * 60 + sec) * 1_000_000_000;
    if let Some(f) = frac {
        if f.is_empty() || f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let v: i128 = f.parse().ok()?;
        ns += v * 10i128.pow(9 - f.len() as u32);
    }
    Some(ns)
}

/// Parse a time of day, `HH:MM[:SS[.f]]` (up to 9 fractional digits), into nanoseconds since
/// midnight.
pub(crate) fn strict_time(s: &str) -> Result<i128, String> {
    time_of_day(s).ok_or_else(|| {
        format!("'{s}' is not a time of day (expected 'HH:MM:SS' with up to 9 fractional digits)")
    })
}

/// The bytes a string literal stands for when compared with a binary column, as DuckDB casts
/// VARCHAR to BLOB: ASCII characters are themselves, `\xHH` is one byte, anything else is
/// refused.
pub(crate) fn blob(s: &str) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let hex = b.get(i + 1..i + 4).filter(|h| h[0] == b'x');
                let byte = hex
                    .and_then(|h| std::str::from_utf8(&h[1..]).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| {
                        format!("'{s}' is not a binary literal: a backslash must start \\xHH")
                    })?;
                out.push(byte);
                i += 4;
            }
            c if c.is_ascii() => {
                out.push(c);
                i += 1;
            }
            _ => {
                return Err(format!(
                    "'{s}' is not a binary literal: write non-ASCII bytes as \\xHH"
                ))
            }
        }
    }
    Ok(out)
}

/// Translate a SQL `LIKE` pattern with an optional escape character into the pattern syntax
/// of Arrow's `like` kernels (where `\` escapes). Without `ESCAPE`, no character escapes
/// (SQL standard, DuckDB): a backslash is an ordinary character.
pub(crate) fn like_pattern(pattern: &str, escape: Option<char>) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len() + 4);
    let literal = |out: &mut String, c: char| {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    };
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if Some(c) == escape {
            match chars.next() {
                Some(n) => literal(&mut out, n),
                None => {
                    return Err(format!(
                        "the LIKE pattern '{pattern}' ends with its escape character"
                    ))
                }
            }
        } else if c == '%' || c == '_' {
            out.push(c);
        } else {
            literal(&mut out, c);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(s: &str) -> Lit {
        number(s, false).unwrap()
    }

    fn dec(m: i128, scale: u32) -> Lit {
        Lit::Num(Dec {
            mantissa: i256::from_i128(m),
            scale,
        })
    }

    #[test]
    fn numbers_are_exact_unless_written_with_an_exponent() {
        assert_eq!(num("9007199254740993"), dec(9007199254740993, 0));
        assert_eq!(num("0.05"), dec(5, 2));
        assert_eq!(num(".5"), dec(5, 1));
        assert_eq!(num("5."), dec(5, 0));
        assert_eq!(num("1_000"), dec(1000, 0));
        assert_eq!(
            number("9223372036854775808", true).unwrap(),
            dec(i64::MIN as i128, 0)
        );
        assert_eq!(num("1e3"), Lit::Double(1000.0));
        assert_eq!(num("1.5E-1"), Lit::Double(0.15));
        assert_eq!(number("0e0", true).unwrap(), Lit::Double(-0.0));
        // DuckDB: a fraction of 39 digits or more is a DOUBLE; integers stay exact.
        assert!(matches!(
            num("0.00000000000000000000000000000000000001"),
            Lit::Double(_)
        ));
        assert!(matches!(
            num("1234567890123456789012345678901234567.8"),
            Lit::Num(_)
        ));
        assert!(matches!(
            num("1606938044258990275541962092341162602522202993782792835301376"),
            Lit::Num(_)
        ));
        assert!(number(&"9".repeat(77), false)
            .unwrap_err()
            .contains("76 digits"));
        assert!(number("1.2.3", false).is_err());
        assert_eq!(dec(-5, 3).to_string(), "-0.005");
        assert_eq!(dec(12345, 2).to_string(), "123.45");
    }

    #[test]
    fn decimals_land_on_raw_values_with_floor_and_exactness() {
        let d = |m: i128, s: u32| Dec {
            mantissa: i256::from_i128(m),
            scale: s,
        };
        let at = |f: i128, exact: bool| Raw::At {
            floor: i256::from_i128(f),
            exact,
        };
        assert_eq!(dec_to_raw(d(15, 1), 0), at(1, false));
        assert_eq!(dec_to_raw(d(-15, 1), 0), at(-2, false));
        assert_eq!(dec_to_raw(d(20, 1), 0), at(2, true));
        assert_eq!(dec_to_raw(d(5, 2), 2), at(5, true));
        assert_eq!(dec_to_raw(d(5, 0), 3), at(5000, true));
        assert_eq!(dec_to_raw(d(5, 0), -1), at(0, false));
        assert_eq!(dec_to_raw(d(1, 0), 100), Raw::Above);
        assert_eq!(dec_to_raw(d(-1, 0), 100), Raw::Below);
        assert_eq!(dec_to_raw(d(0, 0), 100), at(0, true));
        assert_eq!(dec_to_raw(d(-1, 90), 0), at(-1, false));
        assert_eq!(ns_to_raw(-1, 1000), at(-1, false));
        assert_eq!(ns_to_raw(DAY_NS, DAY_NS), at(1, true));
    }

    #[test]
    fn dates_and_timestamps_parse_strictly() {
        assert_eq!(strict_date("1970-01-02"), Ok(1));
        assert_eq!(strict_date("1969-12-31"), Ok(-1));
        assert!(strict_date("2020-02-30").is_err());
        assert!(strict_date("20200101").is_err());
        assert!(strict_date("2020-1-1").is_err());
        assert_eq!(strict_timestamp("1970-01-02"), Ok(DAY_NS));
        assert_eq!(strict_timestamp("1970-01-01 00:00:01.5"), Ok(1_500_000_000));
        assert_eq!(strict_timestamp("1970-01-01T00:01"), Ok(60_000_000_000));
        assert_eq!(strict_timestamp("1969-12-31 23:59:59.999999999"), Ok(-1));
        for bad in [
            "2020-01-01 10:00:00+02",
            "2020-01-01 10:00:00Z",
            "2020-01-01 24:00:00",
            "2020-01-01 10:00.5",
            "2020-01-01 10:00:00.1234567891",
            "2020-01-01 10",
        ] {
            assert!(strict_timestamp(bad).is_err(), "{bad}");
        }
    }

    /// A `TIMESTAMPTZ`'s text: the instant, its UTC offset subtracted (DuckDB's shapes: `Z`,
    /// `±HH`, `±HHMM`, `±HH:MM[:SS]`, a space and one of UTC's names); other zones' names and
    /// a space before an offset refused, naming what to write.
    #[test]
    fn timestamptz_literals_subtract_their_offsets() {
        let hour = 3_600_000_000_000;
        for (text, ns) in [
            ("1970-01-01 02:00:00+02", 0),
            ("1970-01-01 02:00:00+0200", 0),
            ("1970-01-01 02:00:00+02:00", 0),
            ("1969-12-31 19:00:00-05", 0),
            ("1970-01-01 00:00:00Z", 0),
            ("1970-01-01T00:00:00 utc", 0),
            ("1970-01-01 00:00:00 Etc/GMT-0", 0),
            ("1970-01-01 01:02:03+01:02:03", 0),
            ("1970-01-01 00:00:00.5-00:30", hour / 2 + 500_000_000),
            ("1970-01-01", 0),
            ("1970-01-02 00:00:00", 24 * hour),
        ] {
            assert_eq!(timestamptz_literal(text), Ok(ns), "{text}");
        }
        assert_eq!(timestamptz_literal("infinity"), Ok(INFINITE_NS));
        assert_eq!(
            timestamptz(-1),
            Lit::TimestampTz(-1_000),
            "whole microseconds, floored"
        );
        // A zone's name: the wall-clock time there (Oslo was an hour east in 1970).
        assert_eq!(
            timestamptz_literal("1970-01-01 01:00:00 Europe/Oslo"),
            Ok(0)
        );
        for (bad, says) in [
            (
                "1970-01-01 00:00:00 Europe/Olso",
                "unknown time zone 'Europe/Olso'",
            ),
            (
                "1970-01-01 00:00:00 +02",
                "without a space ('1970-01-01 00:00:00+02')",
            ),
            ("1970-01-01 00:00:00+2", "is not a timestamp with time zone"),
            ("1970-01-01 00:00:00z", "is not a timestamp with time zone"),
            ("1970-01-01+02", "is not a timestamp with time zone"),
            (
                "1970-01-01 00:00:00 UTC x",
                "is not a timestamp with time zone",
            ),
        ] {
            let e = timestamptz_literal(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        assert_eq!(
            Lit::TimestampTz(hour).to_string(),
            "TIMESTAMPTZ '1970-01-01 01:00:00+00'"
        );
    }

    #[test]
    fn times_of_day_are_nanoseconds_since_midnight() {
        assert_eq!(strict_time("00:00"), Ok(0));
        assert_eq!(strict_time("01:02:03"), Ok(3_723_000_000_000));
        assert_eq!(strict_time("01:02:03.5"), Ok(3_723_500_000_000));
        assert_eq!(strict_time("23:59:59.999999999"), Ok(DAY_NS - 1));
        for bad in [
            "",
            "1:02:03",
            "01:02:03+02",
            "24:00:00",
            "01:60",
            "01:02.5",
            "01",
        ] {
            assert!(strict_time(bad).is_err(), "{bad}");
        }
        assert!(strict_time("01:02:03.1234567890").is_err());
        assert_eq!(Lit::Time(0).to_string(), "TIME '00:00:00'");
        assert_eq!(
            Lit::Time(3_723_000_001_000).to_string(),
            "TIME '01:02:03.000001'"
        );
        assert_eq!(Lit::Time(1).to_string(), "TIME '00:00:00.000000001'");
    }

    #[test]
    fn blob_literals_decode_hex_escapes_as_duckdb_does() {
        assert_eq!(blob("ab"), Ok(b"ab".to_vec()));
        assert_eq!(blob("\\x00a\\xFF\\xfe"), Ok(vec![0, b'a', 255, 254]));
        assert!(blob("a\\").is_err());
        assert!(blob("\\X41").is_err());
        assert!(blob("\\x4G").is_err());
        assert!(blob("é").is_err());
    }

    #[test]
    fn like_patterns_escape_only_with_escape() {
        assert_eq!(like_pattern("a\\%", None).unwrap(), "a\\\\%");
        assert_eq!(like_pattern("a!%_", Some('!')).unwrap(), "a\\%_");
        assert_eq!(like_pattern("a!!b!x", Some('!')).unwrap(), "a!bx");
        assert_eq!(like_pattern("a\\%", Some('\\')).unwrap(), "a\\%");
        assert_eq!(like_pattern("a%%", Some('%')).unwrap(), "a\\%");
        assert!(like_pattern("a!", Some('!')).is_err());
    }
}
