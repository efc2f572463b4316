//! `strftime(x, 'format')`: a date or a timestamp written as text, a port of DuckDB 2.0's
//! `StrfTimeFormat` (and of its ICU variant for timestamps with a time zone, with
//! `TimeZone = 'UTC'` as everywhere in the language).
//!
//! The format is a string literal: DuckDB binds it once, and so does this (a bad one is
//! refused when the expression is parsed). Its specifiers are DuckDB's: `%Y` (four digits from year
//! 0 to 9999, else the signed number: `-43` for 44 BC), `%y`/`%-y`, `%G` (the ISO year,
//! written as `%Y`), `%m`/`%-m`, `%d`/`%-d`, `%H`/`%-H`, `%I`/`%-I`, `%p`, `%M`/`%-M`,
//! `%S`/`%-S`, `%g`, `%f`, `%n` (the second's milli-, micro- and nanoseconds), `%j`/`%-j`,
//! `%U`, `%W`, `%V`, `%a`, `%A`, `%w`, `%u`, `%b`/`%h`, `%B`, `%z` (`+00`), `%Z` (`UTC` of a
//! timestamp with a time zone, else empty), `%c`, `%x`, `%X`, `%T` (ISO forms) and `%%`.
//! An infinite value is written `infinity` or `-infinity`, whatever the format.
//!
//! `strptime(s, 'format')` and `try_strptime` read strings back in the same formats (but
//! `%Z`, whose time zone names DuckDB reads with ICU), a port of DuckDB's
//! `StrpTimeFormat::Parse` as 2.0.1 behaves (`scripts/strptime_check.py` compares 60 formats
//! on mutated strings): up to a specifier's digits for a number, names in any case, runs of
//! spaces, the day from `%j`, `%U`/`%W` or `%G`/`%V` when no `%d` or `%m` came, DuckDB's
//! words whatever the format, and a day past the year's last refused.

use std::fmt::Write as _;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, LargeStringBuilder};
use arrow::datatypes::{DataType, TimeUnit};

use super::arith::{Operand, Value};
use super::eval::{infinite, infinity, Reason};
use super::func::{
    civil, days_and_ns, days_from_civil, describe, operand_array, shown, str_values, time_of,
    timestamps, Arg, Part,
};
use super::lit::DAY_NS;
use super::strtime::space;

/// What a specifier writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spec {
    /// `%a`, `%A`.
    WeekdayName { full: bool },
    /// `%w`: Sunday 0.
    Weekday,
    /// `%u`: Monday 1 to Sunday 7.
    IsoWeekday,
    /// `%b` (`%h`), `%B`.
    MonthName { full: bool },
    /// `%Y`.
    Year,
    /// `%G`.
    IsoYear,
    /// `%y`, `%-y`: the year's last two digits (of its absolute value).
    Year2 { pad: bool },
    /// `%m`, `%-m`.
    Month { pad: bool },
    /// `%d`, `%-d`.
    Day { pad: bool },
    /// `%H`, `%-H`.
    Hour24 { pad: bool },
    /// `%I`, `%-I`.
    Hour12 { pad: bool },
    /// `%p`.
    AmPm,
    /// `%M`, `%-M`.
    Minute { pad: bool },
    /// `%S`, `%-S`.
    Second { pad: bool },
    /// `%g`, `%f`, `%n`: the digits of the second's fraction (3, 6 or 9).
    Fraction(u32),
    /// `%j`, `%-j`.
    YearDay { pad: bool },
    /// `%U` (weeks from the first Sunday) and `%W` (from the first Monday).
    Week { monday: bool },
    /// `%V`.
    IsoWeek,
    /// `%z`.
    Offset,
    /// `%Z`.
    Zone,
}

/// A parsed format: literal text and specifiers in turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Format {
    items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Text(String),
    Spec(Spec),
}

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

impl Format {
    /// The format `f`, read as DuckDB's `StrTimeFormat::ParseFormatSpecifier` reads it, or
    /// why it is not one.
    pub(super) fn parse(f: &str, name: &str) -> Result<Format, String> {
        let bad = |why: String| format!("{name}()'s format '{f}' is not one: {why}");
        if f.is_empty() {
            return Err(bad("it is empty".into()));
        }
        let mut items = Vec::new();
        let mut text = String::new();
        let mut chars = f.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                text.push(c);
                continue;
            }
            let Some(mut c) = chars.next() else {
                return Err(bad("it ends in a lone %".into()));
            };
            let dash = c == '-' && !chars.as_str().is_empty();
            if dash {
                c = chars.next().expect("not empty");
            }
            let unknown = || {
                bad(format!(
                    "%{}{c} is no specifier",
                    if dash { "-" } else { "" }
                ))
            };
            let spec = if dash {
                match c {
                    'd' => Spec::Day { pad: false },
                    'm' => Spec::Month { pad: false },
                    'y' => Spec::Year2 { pad: false },
                    'H' => Spec::Hour24 { pad: false },
                    'I' => Spec::Hour12 { pad: false },
                    'M' => Spec::Minute { pad: false },
                    'S' => Spec::Second { pad: false },
                    'j' => Spec::YearDay { pad: false },
                    _ => return Err(unknown()),
                }
            } else {
                match c {
                    '%' => {
                        text.push('%');
                        continue;
                    }
                    'a' => Spec::WeekdayName { full: false },
                    'A' => Spec::WeekdayName { full: true },
                    'w' => Spec::Weekday,
                    'u' => Spec::IsoWeekday,
                    'd' => Spec::Day { pad: true },
                    'h' | 'b' => Spec::MonthName { full: false },
                    'B' => Spec::MonthName { full: true },
                    'm' => Spec::Month { pad: true },
                    'y' => Spec::Year2 { pad: true },
                    'Y' => Spec::Year,
                    'G' => Spec::IsoYear,
                    'H' => Spec::Hour24 { pad: true },
                    'I' => Spec::Hour12 { pad: true },
                    'p' => Spec::AmPm,
                    'M' => Spec::Minute { pad: true },
                    'S' => Spec::Second { pad: true },
                    'n' => Spec::Fraction(9),
                    'f' => Spec::Fraction(6),
                    'g' => Spec::Fraction(3),
                    'z' => Spec::Offset,
                    'Z' => Spec::Zone,
                    'j' => Spec::YearDay { pad: true },
                    'U' => Spec::Week { monday: false },
                    'W' => Spec::Week { monday: true },
                    'V' => Spec::IsoWeek,
                    // The locale's forms, ISO's here as in DuckDB.
                    'c' | 'x' | 'X' | 'T' => {
                        let sub = match c {
                            'c' => "%Y-%m-%d %H:%M:%S",
                            'x' => "%Y-%m-%d",
                            _ => "%H:%M:%S",
                        };
                        let sub = Format::parse(sub, name).expect("a valid format");
                        for item in sub.items {
                            match item {
                                Item::Text(t) => text.push_str(&t),
                                Item::Spec(s) => {
                                    items.push(Item::Text(std::mem::take(&mut text)));
                                    items.push(Item::Spec(s));
                                }
                            }
                        }
                        continue;
                    }
                    _ => return Err(unknown()),
                }
            };
            items.push(Item::Text(std::mem::take(&mut text)));
            items.push(Item::Spec(spec));
        }
        items.push(Item::Text(text));
        items.retain(|i| !matches!(i, Item::Text(t) if t.is_empty()));
        Ok(Format { items })
    }

    /// Write the instant `days` days and `ns` nanoseconds (`0 <= ns < DAY_NS`) after the
    /// epoch to `out`; `zoned`: it is a timestamp with a time zone (`%Z` is `UTC`).
    fn write(&self, days: i64, ns: i64, zoned: bool, out: &mut String) {
        let (y, m, d) = civil(days);
        let (hour, minute, second) = (
            ns / 3_600_000_000_000,
            ns / 60_000_000_000 % 60,
            ns / 1_000_000_000 % 60,
        );
        // Monday 1 to Sunday 7.
        let isodow = Part::Isodow.of(days, 0);
        let year = |out: &mut String, y: i64| {
            let _ = if (0..=9999).contains(&y) {
                write!(out, "{y:04}")
            } else {
                write!(out, "{y}")
            };
        };
        let two = |out: &mut String, v: i64, pad: bool| {
            let _ = if pad {
                write!(out, "{v:02}")
            } else {
                write!(out, "{v}")
            };
        };
        for item in &self.items {
            let spec = match item {
                Item::Text(t) => {
                    out.push_str(t);
                    continue;
                }
                Item::Spec(s) => *s,
            };
            match spec {
                Spec::WeekdayName { full } => {
                    let name = DAYS[(isodow % 7) as usize];
                    out.push_str(if full { name } else { &name[..3] });
                }
                Spec::Weekday => two(out, isodow % 7, false),
                Spec::IsoWeekday => two(out, isodow, false),
                Spec::MonthName { full } => {
                    let name = MONTHS[(m - 1) as usize];
                    out.push_str(if full { name } else { &name[..3] });
                }
                Spec::Year => year(out, y),
                Spec::IsoYear => year(out, Part::IsoYear.of(days, 0)),
                Spec::Year2 { pad } => two(out, y.abs() % 100, pad),
                Spec::Month { pad } => two(out, m, pad),
                Spec::Day { pad } => two(out, d, pad),
                Spec::Hour24 { pad } => two(out, hour, pad),
                Spec::Hour12 { pad } => {
                    let h = hour % 12;
                    two(out, if h == 0 { 12 } else { h }, pad)
                }
                Spec::AmPm => out.push_str(if hour >= 12 { "PM" } else { "AM" }),
                Spec::Minute { pad } => two(out, minute, pad),
                Spec::Second { pad } => two(out, second, pad),
                Spec::Fraction(digits) => {
                    let f = ns % 1_000_000_000 / 10i64.pow(9 - digits);
                    let _ = write!(out, "{f:0w$}", w = digits as usize);
                }
                Spec::YearDay { pad } => {
                    let doy = Part::Doy.of(days, 0);
                    let _ = if pad {
                        write!(out, "{doy:03}")
                    } else {
                        write!(out, "{doy}")
                    };
                }
                Spec::Week { monday } => {
                    // DuckDB's `ExtractWeekNumberRegular`: week 1 starts on the year's first
                    // Monday (or Sunday); the days before it are week 0.
                    let jan1 = days_from_civil(y, 1, 1);
                    let doy = days - jan1;
                    let first = Part::Isodow.of(jan1, 0);
                    let start = match (monday, first) {
                        (true, 1) => 0,
                        (true, f) => 8 - f,
                        (false, f) => 7 - f,
                    };
                    let week = if doy < start {
                        0
                    } else {
                        (doy - start) / 7 + 1
                    };
                    two(out, week, true)
                }
                Spec::IsoWeek => two(out, Part::Week.of(days, 0), true),
                // The offset of UTC.
                Spec::Offset => out.push_str("+00"),
                Spec::Zone => {
                    if zoned {
                        out.push_str("UTC")
                    }
                }
            }
        }
    }
}

/// The text of a format argument (a string literal: the parser makes sure), `None` for NULL.
fn format_text(f: Operand, name: &str, what: &str) -> Result<Option<String>, Reason> {
    let not_one = || format!("{name}() takes its format as a string literal, {what} is not one");
    match f {
        Operand::Null => Ok(None),
        Operand::One(a) if a.data_type() == &DataType::Null => Ok(None),
        Operand::One(a) => Ok(str_values(&a)
            .ok_or_else(not_one)?
            .next()
            .flatten()
            .map(str::to_string)),
        Operand::Rows(_) | Operand::Interval(_) => Err(not_one()),
    }
}

/// `strftime(x, format)` (the parser has put the format second).
pub(super) fn call(mut args: Vec<Arg>) -> Result<Value, Reason> {
    let (f, f_what) = args.pop().expect("two arguments");
    let (x, what) = args.pop().expect("two arguments");
    // The argument's type first: a NULL format does not excuse a wrong one.
    let x = match operand_array(x, "strftime()", &what)? {
        Some((a, one)) => {
            let (values, per) = time_of(&a, "strftime() takes a date or a timestamp", &what)?;
            Some((a, one, values, per))
        }
        None => None,
    };
    let Some(text) = format_text(f, "strftime", &f_what)? else {
        return Ok(Value::Null);
    };
    let format = Format::parse(&text, "strftime")?;
    let Some((a, one, values, per)) = x else {
        return Ok(Value::Null);
    };
    let zoned = matches!(a.data_type(), DataType::Timestamp(_, Some(_)));
    let inf = infinity(a.data_type());
    let mut b = LargeStringBuilder::with_capacity(values.len(), values.len() * 16);
    let mut s = String::new();
    for v in values.iter() {
        match v {
            None => b.append_null(),
            Some(v) if infinite(inf, v) => {
                b.append_value(if v > 0 { "infinity" } else { "-infinity" })
            }
            Some(v) => {
                s.clear();
                let (days, ns) = days_and_ns(v, per);
                format.write(days, ns, zoned, &mut s);
                b.append_value(&s);
            }
        }
    }
    let r: ArrayRef = Arc::new(b.finish());
    Ok(if one { Value::One(r) } else { Value::Rows(r) })
}

/// Where a date is taken from when the format gives more than its year, month and day: the
/// first of these specifiers the format holds (DuckDB's `offset_specifier`; a day or a month
/// overrides the others, a year switches to them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum From {
    /// Year, month and day alone (DuckDB's `WEEKDAY_DECIMAL`).
    Ymd,
    /// `%d` or `%m` came.
    DayOrMonth,
    /// `%y` or `%Y` came first.
    Year,
    IsoYear,
    IsoWeek,
    Week {
        monday: bool,
    },
    YearDay,
}

/// What `strptime` read: DuckDB's `ParseResult`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    /// `infinity` (true) or `-infinity`.
    Infinity(bool),
    /// A date, a time of day in nanoseconds (minus the UTC offset read, so that it may leave
    /// the day) and whether the date exists.
    At { days: Option<i64>, ns: i64 },
}

impl Spec {
    /// The most digits `strptime` reads for a number, 0 for the specifiers of words.
    fn width(self) -> usize {
        match self {
            Spec::Weekday | Spec::IsoWeekday => 1,
            Spec::Day { .. }
            | Spec::Month { .. }
            | Spec::Year2 { .. }
            | Spec::Hour24 { .. }
            | Spec::Hour12 { .. }
            | Spec::Minute { .. }
            | Spec::Second { .. }
            | Spec::Week { .. }
            | Spec::IsoWeek => 2,
            Spec::YearDay { .. } => 3,
            Spec::Fraction(d) => d as usize,
            Spec::Year | Spec::IsoYear => 4,
            Spec::WeekdayName { .. }
            | Spec::MonthName { .. }
            | Spec::AmPm
            | Spec::Offset
            | Spec::Zone => 0,
        }
    }
}

/// The index of the first of `names` that `b` holds at `pos` (ASCII case ignored), and
/// where it ends.
fn one_of(b: &[u8], pos: usize, names: &[&str], abbreviated: bool) -> Option<(usize, usize)> {
    names.iter().enumerate().find_map(|(i, n)| {
        let n = if abbreviated { &n[..3] } else { n };
        let end = pos + n.len();
        (end <= b.len() && b[pos..end].eq_ignore_ascii_case(n.as_bytes())).then_some((i, end))
    })
}

impl Format {
    /// Whether the format holds `spec`.
    fn has(&self, spec: Spec) -> bool {
        self.items.contains(&Item::Spec(spec))
    }

    /// `s` read by the format as DuckDB 2.0's `StrpTimeFormat::Parse` reads it (not
    /// strictly), or `None` where it does not match.
    fn read(&self, s: &[u8]) -> Option<Read> {
        let start = s.iter().position(|c| !space(*c)).unwrap_or(s.len());
        let b = &s[start..];
        // The words, whatever the format.
        if b.len() > 4 {
            let word = |w: &str| -> Option<usize> {
                (b.len() >= w.len() && b[..w.len()].eq_ignore_ascii_case(w.as_bytes()))
                    .then_some(w.len())
            };
            let special = if b[0].is_ascii_alphabetic() {
                word("infinity")
                    .map(|n| (n, Some(true)))
                    .or_else(|| word("epoch").map(|n| (n, None)))
            } else if b[0] == b'-' {
                word("-infinity").map(|n| (n, Some(false)))
            } else {
                None
            };
            if let Some((n, what)) = special {
                if !b[n..].iter().all(|c| space(*c)) {
                    return None;
                }
                return Some(match what {
                    Some(positive) => Read::Infinity(positive),
                    None => Read::At {
                        days: Some(0),
                        ns: 0,
                    },
                });
            }
        }
        let (mut y, mut m, mut d) = (1900i64, 1i64, 1i64);
        let (mut hour, mut minute, mut second, mut nanos, mut offset) =
            (0i64, 0i64, 0i64, 0i64, 0i64);
        let mut ampm: Option<bool> = None;
        let mut from = From::Ymd;
        let (mut weekno, mut weekday, mut yearday, mut has_weekday) = (0i64, 0i64, 0i64, false);
        let (mut iso_year, mut iso_week, mut iso_weekday) = (10_000i64, 54i64, 8i64);
        let mut pos = 0;
        for item in &self.items {
            let spec = match item {
                Item::Text(t) => {
                    let t = t.as_bytes();
                    let mut l = 0;
                    while l < t.len() {
                        if space(t[l]) {
                            // A run of spaces matches a run of spaces.
                            if !b.get(pos).is_some_and(|c| space(*c)) {
                                return None;
                            }
                            while pos < b.len() && space(b[pos]) {
                                pos += 1;
                            }
                            while l < t.len() && space(t[l]) {
                                l += 1;
                            }
                            continue;
                        }
                        if b.get(pos) != Some(&t[l]) {
                            return None;
                        }
                        pos += 1;
                        l += 1;
                    }
                    continue;
                }
                Item::Spec(s) => *s,
            };
            let width = spec.width();
            if width > 0 {
                let begin = pos;
                let mut n = 0i64;
                while pos < b.len() && pos < begin + width && b[pos].is_ascii_digit() {
                    n = n * 10 + i64::from(b[pos] - b'0');
                    pos += 1;
                }
                if pos == begin {
                    return None;
                }
                let digits = (pos - begin) as u32;
                match spec {
                    Spec::Day { .. } | Spec::Month { .. } => {
                        let (lo, hi) = if matches!(spec, Spec::Day { .. }) {
                            (1, 31)
                        } else {
                            (1, 12)
                        };
                        if !(lo..=hi).contains(&n) {
                            return None;
                        }
                        if matches!(spec, Spec::Day { .. }) {
                            d = n;
                        } else {
                            m = n;
                        }
                        from = From::DayOrMonth;
                    }
                    Spec::Year2 { .. } | Spec::Year => {
                        if matches!(from, From::IsoYear | From::IsoWeek | From::Ymd) {
                            from = From::Year;
                        }
                        y = match spec {
                            // Python's pivot: 69 to 99 are 19xx.
                            Spec::Year2 { .. } if n >= 69 => 1900 + n,
                            Spec::Year2 { .. } => 2000 + n,
                            _ => n,
                        };
                    }
                    Spec::IsoYear => {
                        match from {
                            From::DayOrMonth | From::Year => {}
                            From::Ymd => from = From::IsoYear,
                            From::IsoYear | From::IsoWeek if iso_year <= 9999 => return None,
                            From::IsoYear | From::IsoWeek => {}
                            _ => return None,
                        }
                        iso_year = n;
                    }
                    Spec::Hour24 { .. } if n >= 24 => return None,
                    Spec::Hour12 { .. } if !(1..=12).contains(&n) => return None,
                    Spec::Hour24 { .. } | Spec::Hour12 { .. } => hour = n,
                    Spec::Minute { .. } if n >= 60 => return None,
                    Spec::Minute { .. } => minute = n,
                    Spec::Second { .. } if n >= 60 => return None,
                    Spec::Second { .. } => second = n,
                    Spec::Fraction(w) => nanos = n * 10i64.pow(w - digits) * 10i64.pow(9 - w),
                    Spec::Week { monday } => {
                        match from {
                            From::DayOrMonth => {}
                            From::Year | From::Ymd => from = From::Week { monday },
                            _ => return None,
                        }
                        if n > 53 {
                            return None;
                        }
                        weekno = n;
                    }
                    Spec::Weekday => {
                        if n > 6 {
                            return None;
                        }
                        has_weekday = true;
                        weekday = n;
                    }
                    Spec::IsoWeek => {
                        match from {
                            From::Year => return None,
                            From::DayOrMonth => {}
                            From::Ymd => from = From::IsoWeek,
                            From::IsoWeek | From::IsoYear if iso_week <= 53 => return None,
                            From::IsoWeek | From::IsoYear => {}
                            _ => return None,
                        }
                        if !(1..=53).contains(&n) {
                            return None;
                        }
                        iso_week = n;
                    }
                    Spec::IsoWeekday => {
                        if iso_weekday <= 7 || !(1..=7).contains(&n) {
                            return None;
                        }
                        iso_weekday = n;
                    }
                    Spec::YearDay { .. } => {
                        match from {
                            From::DayOrMonth => {}
                            From::Year | From::Ymd => from = From::YearDay,
                            _ => return None,
                        }
                        if !(1..=366).contains(&n) {
                            return None;
                        }
                        yearday = n;
                    }
                    _ => unreachable!("a number's specifier"),
                }
                continue;
            }
            match spec {
                Spec::AmPm => {
                    let pm = match b.get(pos..pos + 2).map(|w| w.to_ascii_lowercase()) {
                        Some(w) if w == b"am" => false,
                        Some(w) if w == b"pm" => true,
                        _ => return None,
                    };
                    ampm = Some(pm);
                    pos += 2;
                }
                // Weekdays' names are read, not used.
                Spec::WeekdayName { full } => pos = one_of(b, pos, &DAYS, !full)?.1,
                Spec::MonthName { full } => {
                    let (i, end) = one_of(b, pos, &MONTHS, !full)?;
                    m = i as i64 + 1;
                    pos = end;
                }
                Spec::Offset => {
                    let (end, secs) = super::strtime::utc_offset(b, pos)?;
                    offset = secs;
                    pos = end;
                }
                _ => unreachable!("refused when the format is read"),
            }
        }
        if !b[pos..].iter().all(|c| space(*c)) {
            return None;
        }
        if let Some(pm) = ampm {
            if hour > 12 {
                return None;
            }
            hour = match (pm, hour) {
                (false, 12) => 0,
                (false, h) | (true, h @ 12) => h,
                (true, h) => h + 12,
            };
        }
        let monday_of = |days: i64| days - (Part::Isodow.of(days, 0) - 1);
        let date = match from {
            From::IsoYear | From::IsoWeek => {
                let iso_year = if iso_year > 9999 { 1900 } else { iso_year };
                let iso_week = if iso_week > 53 { 1 } else { iso_week };
                let iso_weekday = if iso_weekday > 7 { 1 } else { iso_weekday };
                // Week 1 holds January 4.
                let week1 = monday_of(days_from_civil(iso_year, 1, 4));
                Some(week1 + (iso_week - 1) * 7 + iso_weekday - 1)
            }
            From::Week { monday } => {
                if has_weekday {
                    weekday = (weekday + 7 - i64::from(monday)) % 7;
                }
                let jan1 = days_from_civil(y, 1, 1);
                let mut start = monday_of(jan1) - i64::from(!monday);
                if start >= jan1 {
                    start -= 7;
                }
                Some(start + weekno * 7 + weekday)
            }
            // DuckDB 2.0.1 refuses a day past the year's last.
            From::YearDay if yearday > 365 + i64::from(super::strtime::month_days(y, 2) == 29) => {
                return None
            }
            From::YearDay => Some(days_from_civil(y, 1, 1) + yearday - 1),
            From::Ymd | From::DayOrMonth | From::Year => None,
        };
        let days = match date {
            Some(days) => Some(days),
            None => (d <= super::strtime::month_days(y, m)).then(|| days_from_civil(y, m, d)),
        };
        let ns = ((hour * 60 + minute) * 60 + second - offset) * 1_000_000_000 + nanos;
        Some(Read::At { days, ns })
    }
}

/// The format of `strptime` (`name`): a format without `%Z`, whose time zones' names DuckDB
/// reads with ICU.
pub(super) fn strptime_format(f: &str, name: &str) -> Result<Format, String> {
    let format = Format::parse(f, name)?;
    if format.has(Spec::Zone) {
        return Err(format!(
            "{name}() does not read %Z (a time zone's name, which DuckDB reads with ICU): \
             read an offset with %z"
        ));
    }
    Ok(format)
}

/// `strptime(s, format)` (`try_`: `try_strptime`): a string read as a timestamp of the format,
/// as DuckDB's: a `TIMESTAMP`, of nanoseconds with `%n`, with a time zone (UTC) with `%z`. A
/// string that does not match, or names a day that does not exist, fails the job (NULL under
/// `try_strptime`).
pub(super) fn strptime(mut args: Vec<Arg>, try_: bool) -> Result<Value, Reason> {
    let name = if try_ { "try_strptime" } else { "strptime" };
    let (f, f_what) = args.pop().expect("two arguments");
    let (x, what) = args.pop().expect("two arguments");
    let x = operand_array(x, &format!("{name}()"), &what)?;
    if let Some((a, _)) = &x {
        if str_values(a).is_none() {
            return Err(format!(
                "{name}() takes a string, {what} is {}",
                describe(a.data_type())
            ));
        }
    }
    let Some(text) = format_text(f, name, &f_what)? else {
        return Ok(Value::Null);
    };
    let format = strptime_format(&text, name)?;
    // DuckDB's type: of nanoseconds with %n, with a time zone with %z.
    let (nanos, zoned) = (format.has(Spec::Fraction(9)), format.has(Spec::Offset));
    let Some((a, one)) = x else {
        return Ok(Value::Null);
    };
    let mut out = Vec::with_capacity(a.len());
    for s in str_values(&a).expect("checked") {
        let Some(s) = s else {
            out.push(None);
            continue;
        };
        let v = match format.read(s.as_bytes()) {
            Some(Read::Infinity(positive)) => Ok(if positive { i64::MAX } else { -i64::MAX }),
            Some(Read::At {
                days: Some(days),
                ns,
            }) => {
                let v = if nanos {
                    days.checked_mul(DAY_NS as i64)
                        .and_then(|v| v.checked_add(ns))
                } else {
                    Some(days * (DAY_NS as i64 / 1_000) + ns / 1_000)
                };
                v.filter(|v| !infinite(Some(i64::MAX), *v))
                    .ok_or("out of the range of timestamps")
            }
            Some(Read::At { days: None, .. }) => Err("a day that does not exist"),
            None => Err("which the format does not match"),
        };
        out.push(match v {
            Ok(v) => Some(v),
            Err(_) if try_ => None,
            Err(why) => {
                return Err(format!(
                    "{name}(x, '{}'): {what} holds '{}', {why} (try_strptime gives NULL for it)",
                    text.escape_debug(),
                    shown(s)
                ));
            }
        });
    }
    let unit = if nanos {
        TimeUnit::Nanosecond
    } else {
        TimeUnit::Microsecond
    };
    let r = timestamps(
        unit,
        zoned.then(|| Arc::from("UTC")),
        &Int64Array::from(out),
    );
    Ok(if one { Value::One(r) } else { Value::Rows(r) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(f: &str, days: i64, ns: i64, zoned: bool) -> String {
        let mut s = String::new();
        Format::parse(f, "strftime")
            .unwrap()
            .write(days, ns, zoned, &mut s);
        s
    }

    #[test]
    fn formats_as_duckdb() {
        // DuckDB 2.0.1's answers: format, (year, month, day), nanoseconds into the day, zoned.
        const H10: i64 = 10 * 3_600_000_000_000;
        type Case = (&'static str, (i64, i64, i64), i64, bool, &'static str);
        let cases: &[Case] = &[
            (
                "%z|%Z|%c",
                (2024, 1, 5),
                H10,
                true,
                "+00|UTC|2024-01-05 10:00:00",
            ),
            ("%z|%Z|", (2024, 1, 5), H10, false, "+00||"),
            (
                "%Y|%y|%-y|%G|%V|%U|%W|%j|%-j|%a|%A|%b|%B|%h",
                (-43, 3, 15),
                0,
                false,
                "-43|43|43|-43|11|10|10|074|74|Fri|Friday|Mar|March|Mar",
            ),
            ("%Y|%G|%y|%-y|%j", (5, 1, 1), 0, false, "0005|0004|05|5|001"),
            ("%Y|%G|%y", (0, 1, 1), 0, false, "0000|-1|00"),
            (
                "%Y|%G|%y|%-d|%-m|%-H|%-I|%I|%p|%-M|%-S",
                (-5, 1, 1),
                0,
                false,
                "-5|-6|05|1|1|0|12|12|AM|0|0",
            ),
            (
                "%x %X %T %w %u",
                (1, 1, 1),
                0,
                false,
                "0001-01-01 00:00:00 00:00:00 1 1",
            ),
            ("%Y %G %y", (12345, 1, 1), 0, false, "12345 12345 45"),
            (
                "%I %p %-I",
                (1970, 1, 1),
                1_800_000_000_000,
                false,
                "12 AM 12",
            ),
            (
                "%I %p %-I",
                (1970, 1, 1),
                45_000_000_000_000,
                false,
                "12 PM 12",
            ),
            (
                "%n|%f|%g",
                (1970, 1, 1),
                H10 + 123_456_789,
                false,
                "123456789|123456|123",
            ),
            ("a%%b", (1970, 1, 1), 0, false, "a%b"),
            ("é%Yü", (2024, 1, 1), 0, false, "é2024ü"),
        ];
        for &(f, (y, m, d), ns, zoned, want) in cases {
            assert_eq!(fmt(f, days_from_civil(y, m, d), ns, zoned), want, "{f}");
        }
    }

    #[test]
    fn bad_formats_are_refused_as_duckdb_refuses_them() {
        for f in ["", "%", "%Q", "%-Q", "%-", "a%%b%-%", "%C", "%-j%-", "%-a"] {
            let e = Format::parse(f, "strftime").unwrap_err();
            assert!(e.starts_with("strftime()'s format '"), "{f}: {e}");
        }
    }
}
