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

use std::fmt::Write as _;
use std::sync::Arc;

use arrow::array::{ArrayRef, LargeStringBuilder};
use arrow::datatypes::DataType;

use super::arith::{Operand, Value};
use super::eval::{infinite, infinity, Reason};
use super::func::{civil, days_and_ns, days_from_civil, describe, raw, str_values, Arg, Part};
use super::lit::DAY_NS;

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
    pub(super) fn parse(f: &str) -> Result<Format, String> {
        let bad = |why: String| format!("strftime()'s format '{f}' is not one: {why}");
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
                        let sub = Format::parse(sub).expect("a valid format");
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
                    let doy = days - days_from_civil(y, 1, 1) + 1;
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

/// `strftime(x, format)` (the parser has put the format second).
pub(super) fn call(mut args: Vec<Arg>) -> Result<Value, Reason> {
    let (f, f_what) = args.pop().expect("two arguments");
    let (x, what) = args.pop().expect("two arguments");
    let takes = "strftime() takes a date or a timestamp";
    let x = match x {
        Operand::Rows(a) => Some((a, false)),
        Operand::One(a) => Some((a, true)),
        Operand::Null => None,
        Operand::Interval(_) => return Err(format!("{takes}, {what} is an interval")),
    };
    let x = x.filter(|(a, _)| a.data_type() != &DataType::Null);
    if let Some((a, _)) = &x {
        if !matches!(
            a.data_type(),
            DataType::Date32 | DataType::Date64 | DataType::Timestamp(..)
        ) {
            return Err(format!("{takes}, {what} is {}", describe(a.data_type())));
        }
    }
    let constant = || {
        format!("strftime() takes its format as a constant string, such as '%Y-%m', {f_what} is not one")
    };
    let format = match f {
        Operand::Null => return Ok(Value::Null),
        Operand::Rows(_) | Operand::Interval(_) => return Err(constant()),
        Operand::One(a) if a.data_type() == &DataType::Null => return Ok(Value::Null),
        Operand::One(a) => {
            let mut v = str_values(&a).ok_or_else(constant)?;
            match v.next().flatten() {
                Some(s) => Format::parse(s)?,
                None => return Ok(Value::Null),
            }
        }
    };
    let Some((a, one)) = x else {
        return Ok(Value::Null);
    };
    let (per, zoned) = match a.data_type() {
        DataType::Date32 => (DAY_NS as i64, false),
        DataType::Date64 => (1_000_000, false),
        DataType::Timestamp(unit, zone) => (
            match unit {
                arrow::datatypes::TimeUnit::Second => 1_000_000_000,
                arrow::datatypes::TimeUnit::Millisecond => 1_000_000,
                arrow::datatypes::TimeUnit::Microsecond => 1_000,
                arrow::datatypes::TimeUnit::Nanosecond => 1,
            },
            zone.is_some(),
        ),
        _ => unreachable!("checked above"),
    };
    let inf = infinity(a.data_type());
    let values = raw(&a)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(f: &str, days: i64, ns: i64, zoned: bool) -> String {
        let mut s = String::new();
        Format::parse(f).unwrap().write(days, ns, zoned, &mut s);
        s
    }

    #[test]
    fn formats_as_duckdb() {
        // DuckDB 2.0.1's answers.
        let d = |y, m, d| days_from_civil(y, m, d);
        let ts = 10 * 3_600_000_000_000;
        assert_eq!(
            fmt("%z|%Z|%c", d(2024, 1, 5), ts, true),
            "+00|UTC|2024-01-05 10:00:00"
        );
        assert_eq!(fmt("%z|%Z|", d(2024, 1, 5), ts, false), "+00||");
        assert_eq!(
            fmt(
                "%Y|%y|%-y|%G|%V|%U|%W|%j|%-j|%a|%A|%b|%B|%h",
                d(-43, 3, 15),
                0,
                false
            ),
            "-43|43|43|-43|11|10|10|074|74|Fri|Friday|Mar|March|Mar"
        );
        assert_eq!(
            fmt("%Y|%G|%y|%-y|%j", d(5, 1, 1), 0, false),
            "0005|0004|05|5|001"
        );
        assert_eq!(fmt("%Y|%G|%y", d(0, 1, 1), 0, false), "0000|-1|00");
        assert_eq!(
            fmt(
                "%Y|%G|%y|%-d|%-m|%-H|%-I|%I|%p|%-M|%-S",
                d(-5, 1, 1),
                0,
                false
            ),
            "-5|-6|05|1|1|0|12|12|AM|0|0"
        );
        assert_eq!(
            fmt("%x %X %T %w %u", d(1, 1, 1), 0, false),
            "0001-01-01 00:00:00 00:00:00 1 1"
        );
        assert_eq!(fmt("%Y %G %y", d(12345, 1, 1), 0, false), "12345 12345 45");
        assert_eq!(fmt("%I %p %-I", 0, 1_800_000_000_000, false), "12 AM 12");
        assert_eq!(fmt("%I %p %-I", 0, 45_000_000_000_000, false), "12 PM 12");
        assert_eq!(
            fmt("%n|%f|%g", 0, 36_000_123_456_789, false),
            "123456789|123456|123"
        );
        assert_eq!(fmt("a%%b", 0, 0, false), "a%b");
        assert_eq!(fmt("é%Yü", d(2024, 1, 1), 0, false), "é2024ü");
    }

    #[test]
    fn bad_formats_are_refused_as_duckdb_refuses_them() {
        for f in ["", "%", "%Q", "%-Q", "%-", "a%%b%-%", "%C", "%-j%-", "%-a"] {
            let e = Format::parse(f).unwrap_err();
            assert!(e.starts_with("strftime()'s format '"), "{f}: {e}");
        }
    }
}
