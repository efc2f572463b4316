//! Time zones by name: `x AT TIME ZONE 'Europe/Oslo'` and `timezone('Europe/Oslo', x)`, as
//! DuckDB's (its ICU) with the session time zone UTC.
//!
//! - A timestamp with a time zone (an instant) becomes the wall-clock time a clock in the zone
//!   showed then: a timestamp without one, of the same unit.
//! - A timestamp without a time zone (a wall-clock time) or a date (its midnight) becomes the
//!   instant a clock in the zone showed it: a timestamp with time zone UTC. A wall-clock time
//!   the zone skipped (a spring-forward gap) or showed twice (a fall-back fold) is read as ICU
//!   reads it, the later of its two readings: with the offset before a gap, after a fold.
//!
//! The zone is an IANA name (`America/New_York`, `US/Eastern`, `CET`, `EST5EDT`, `Etc/GMT-2`,
//! in any case) from the database bundled in the binary (jiff's), never the machine's, so an
//! answer does not depend on where the job runs; one of ICU's legacy names for an IANA zone
//! (`PST`, see `ICU_LINKS`); or ICU's fixed offsets `GMT+2`, `GMT-03:30`, `GMT+0530`, `UTC+2`
//! (east of UTC, as ICU reads them, unlike POSIX's `Etc/GMT+2`; see `fixed_offset`).
//! `infinity` and `-infinity` stay as they are.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use arrow::array::{ArrayRef, Int64Array};
use arrow::datatypes::{DataType, TimeUnit};
use jiff::civil::DateTime;
use jiff::tz::{AmbiguousOffset, TimeZone, TimeZoneDatabase};
use jiff::Timestamp;

use super::eval::{infinite, infinity, Reason};
use super::func::{civil, describe, raw, timestamps};

/// ICU's legacy zone IDs (Java's three-letter IDs, and three old names) the IANA database no
/// longer holds, and the IANA zones ICU links them to. Each reads as its zone in DuckDB 2.0.1
/// at every instant `scripts/zone_check.py` tries (1800 to 2100), both ways. `BST` is Dhaka's,
/// `IST` India's, `CST` Chicago's, as ICU has them.
const ICU_LINKS: [(&str, &str); 34] = [
    ("ACT", "Australia/Darwin"),
    ("AET", "Australia/Sydney"),
    ("AGT", "America/Argentina/Buenos_Aires"),
    ("ART", "Africa/Cairo"),
    ("AST", "America/Anchorage"),
    ("BET", "America/Sao_Paulo"),
    ("BST", "Asia/Dhaka"),
    ("CAT", "Africa/Harare"),
    ("CNT", "America/St_Johns"),
    ("CST", "America/Chicago"),
    ("CTT", "Asia/Shanghai"),
    ("EAT", "Africa/Addis_Ababa"),
    ("ECT", "Europe/Paris"),
    ("IET", "America/Indiana/Indianapolis"),
    ("IST", "Asia/Kolkata"),
    ("JST", "Asia/Tokyo"),
    ("MIT", "Pacific/Apia"),
    ("NET", "Asia/Yerevan"),
    ("NST", "Pacific/Auckland"),
    ("PLT", "Asia/Karachi"),
    ("PNT", "America/Phoenix"),
    ("PRT", "America/Puerto_Rico"),
    ("PST", "America/Los_Angeles"),
    ("SST", "Pacific/Guadalcanal"),
    ("VST", "Asia/Ho_Chi_Minh"),
    ("Canada/East-Saskatchewan", "America/Regina"),
    ("US/Pacific-New", "America/Los_Angeles"),
    // ICU's SystemV zones without daylight saving: fixed offsets.
    ("SystemV/AST4", "Etc/GMT+4"),
    ("SystemV/EST5", "Etc/GMT+5"),
    ("SystemV/CST6", "Etc/GMT+6"),
    ("SystemV/MST7", "Etc/GMT+7"),
    ("SystemV/PST8", "Etc/GMT+8"),
    ("SystemV/YST9", "Etc/GMT+9"),
    ("SystemV/HST10", "Etc/GMT+10"),
];

/// ICU's SystemV zones with daylight saving, which keep the US rules of 1976 in every year
/// since 1902 (and 1974's and 1975's): no IANA zone is any of them, so they are refused. Each
/// with the IANA zone a user likely means.
const ICU_RULE_ZONES: [(&str, &str); 6] = [
    ("SystemV/AST4ADT", "America/Halifax"),
    ("SystemV/EST5EDT", "America/New_York"),
    ("SystemV/CST6CDT", "America/Chicago"),
    ("SystemV/MST7MDT", "America/Denver"),
    ("SystemV/PST8PDT", "America/Los_Angeles"),
    ("SystemV/YST9YDT", "America/Anchorage"),
];

/// A time zone: a fixed offset or an IANA zone of the bundled database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Zone {
    /// Seconds east of UTC: `UTC`, `GMT+2`, `GMT-03:30`.
    Fixed(i32),
    /// The zone at this index of the bundled database's sorted names.
    Named(u16),
}

/// The bundled database and its zones' names, sorted, each zone read on first use.
struct Zones {
    db: TimeZoneDatabase,
    names: Vec<String>,
    read: Vec<OnceLock<TimeZone>>,
    /// Every name a zone is read by, in lower case (the database's and ICU's legacy ones), and
    /// the index of its zone in `names`: a string column's zone names are looked up per row.
    index: HashMap<String, u16>,
}

fn zones() -> &'static Zones {
    static ZONES: OnceLock<Zones> = OnceLock::new();
    ZONES.get_or_init(|| {
        let db = TimeZoneDatabase::bundled();
        let mut names: Vec<String> = db.available().map(|n| n.as_str().to_string()).collect();
        names.sort();
        let read = names.iter().map(|_| OnceLock::new()).collect();
        let mut index: HashMap<String, u16> = names
            .iter()
            .enumerate()
            // `Etc/Unknown` is jiff's name for a zone it does not know (ICU's, which DuckDB
            // reads as UTC): a name that says its zone is unknown is refused as a likely
            // mistake.
            .filter(|(_, n)| !n.eq_ignore_ascii_case("Etc/Unknown"))
            .filter_map(|(i, n)| Some((n.to_ascii_lowercase(), u16::try_from(i).ok()?)))
            .collect();
        // ICU's legacy names for IANA zones (`PST`), read as their zones.
        for (legacy, zone) in ICU_LINKS {
            if let Some(&i) = index.get(&zone.to_ascii_lowercase()) {
                index.insert(legacy.to_ascii_lowercase(), i);
            }
        }
        Zones {
            db,
            names,
            read,
            index,
        }
    })
}

/// The bundled database's zone at index `i` of its sorted names, read on first use.
fn named_zone(i: u16) -> Result<&'static TimeZone, Reason> {
    let z = zones();
    let i = usize::from(i);
    if let Some(tz) = z.read[i].get() {
        return Ok(tz);
    }
    let tz =
        z.db.get(&z.names[i])
            .map_err(|e| format!("time zone '{}': {e}", z.names[i]))?;
    Ok(z.read[i].get_or_init(|| tz))
}

impl Zone {
    /// The zone `name` names, or a one-line error saying what names are read.
    pub(crate) fn named(name: &str) -> Result<Zone, Reason> {
        if name.eq_ignore_ascii_case("UTC") {
            return Ok(Zone::Fixed(0));
        }
        if let Some(seconds) = fixed_offset(name) {
            return Ok(Zone::Fixed(seconds));
        }
        if let Some(rule) = ICU_RULE_ZONES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            return Err(format!(
                "time zone '{}' is ICU's obsolete rule zone (its standard time, and daylight \
                 saving from the last Sunday of April to the last of October, in every year \
                 since 1902), which no IANA zone matches: name an IANA zone, such as '{}'",
                rule.0, rule.1
            ));
        }
        match zones().index.get(&name.to_ascii_lowercase()) {
            Some(&i) => Ok(Zone::Named(i)),
            None if name.starts_with(['+', '-']) => Err(format!(
                "unknown time zone '{name}': write a UTC offset as 'GMT{name}' (east of UTC), \
                 or name the zone, such as 'Europe/Oslo'"
            )),
            None => Err(format!(
                "unknown time zone '{name}': name an IANA zone, such as 'Europe/Oslo', \
                 'America/New_York' or 'UTC', or an offset east of UTC, such as 'GMT+05:30'"
            )),
        }
    }

    /// The zone's name, as messages show it.
    pub(crate) fn name(&self) -> String {
        match *self {
            Zone::Fixed(0) => "UTC".to_string(),
            Zone::Fixed(s) => {
                let (sign, a) = if s < 0 { ('-', -s) } else { ('+', s) };
                let seconds = if a % 60 == 0 {
                    String::new()
                } else {
                    format!(":{:02}", a % 60)
                };
                format!("GMT{sign}{:02}:{:02}{seconds}", a / 3600, a / 60 % 60)
            }
            Zone::Named(i) => zones().names[usize::from(i)].clone(),
        }
    }

    /// The zone's offset east of UTC, in seconds, at the instant `second` seconds after the
    /// epoch.
    fn offset_at(&self, second: i64) -> Result<i32, Reason> {
        match *self {
            Zone::Fixed(s) => Ok(s),
            Zone::Named(i) => {
                // The database's instants stop a day short of the years' ends (so that every
                // offset keeps them in range). Within two days after the last one the edge's
                // offset holds (no zone changes its clocks on the year's last days); before the
                // first one every zone keeps its first offset (its local mean time) forever.
                let (min, max) = (Timestamp::MIN.as_second(), Timestamp::MAX.as_second());
                let near = second.clamp(min, max);
                if second > max + 2 * 86_400 {
                    return Err(self.beyond());
                }
                let t = Timestamp::from_second(near).map_err(|_| self.beyond())?;
                Ok(named_zone(i)?.to_offset(t).seconds())
            }
        }
    }

    /// The offset east of UTC, in seconds, at which the zone's clocks showed the wall-clock
    /// time `second` seconds after 1970-01-01 00:00:00: before a gap, after a fold (ICU's
    /// reading, the later instant).
    pub(crate) fn offset_of_local(&self, second: i64) -> Result<i32, Reason> {
        match *self {
            Zone::Fixed(s) => Ok(s),
            Zone::Named(i) => {
                let (days, of_day) = (second.div_euclid(86_400), second.rem_euclid(86_400));
                let (y, m, d) = civil(days);
                if y < -9999 {
                    // Local mean time, before any zone's first transition (see `offset_at`).
                    return self.offset_at(Timestamp::MIN.as_second());
                }
                let civil = i16::try_from(y)
                    .ok()
                    .and_then(|y| {
                        let hms = |v: i64| i8::try_from(v).ok();
                        DateTime::new(
                            y,
                            hms(m)?,
                            hms(d)?,
                            hms(of_day / 3600)?,
                            hms(of_day / 60 % 60)?,
                            hms(of_day % 60)?,
                            0,
                        )
                        .ok()
                    })
                    .ok_or_else(|| self.beyond())?;
                Ok(
                    match named_zone(i)?.to_ambiguous_timestamp(civil).offset() {
                        AmbiguousOffset::Unambiguous { offset } => offset.seconds(),
                        AmbiguousOffset::Gap { before, .. } => before.seconds(),
                        AmbiguousOffset::Fold { after, .. } => after.seconds(),
                    },
                )
            }
        }
    }

    fn beyond(&self) -> Reason {
        format!(
            "AT TIME ZONE '{}': a timestamp after the year 9999, which the time zone \
             database does not cover",
            self.name()
        )
    }
}

/// ICU's custom zone `GMT` (any case) and a signed offset, or `UTC` and a signed number of
/// hours: the seconds east of UTC.
///
/// After `GMT`, as ICU's custom time zone IDs: `H`, `HH`, `HMM`, `HHMM`, `HMMSS`, `HHMMSS`, or
/// `H[H]:MM[:SS]`, hours up to 23 and minutes and seconds up to 59 (`GMT+005` is five minutes,
/// `GMT+5:30:15` five and a half hours and 15 seconds).
///
/// After `UTC` (DuckDB's own reading, upper case only), whole hours from -12 to +14, the hours
/// of the IANA zones `Etc/GMT+12` to `Etc/GMT-14`; DuckDB drops any minutes (`UTC-03:30` is
/// three hours west), so an offset with minutes is refused rather than read either way.
fn fixed_offset(name: &str) -> Option<i32> {
    let (utc, rest) = if name.get(..3)?.eq_ignore_ascii_case("GMT") {
        (false, &name[3..])
    } else {
        (true, name.strip_prefix("UTC")?)
    };
    let (sign, digits) = match rest.as_bytes().first()? {
        b'+' => (1, &rest[1..]),
        b'-' => (-1, &rest[1..]),
        _ => return None,
    };
    let num = |s: &str| -> Option<i32> {
        (!s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let (h, m, sec) = if digits.contains(':') {
        let mut parts = digits.split(':');
        let h = num(parts.next()?)?;
        let mut two = || parts.next().filter(|p| p.len() == 2).and_then(num);
        let m = two()?;
        let sec = match parts.next() {
            None => 0,
            Some(p) if p.len() == 2 => num(p)?,
            Some(_) => return None,
        };
        if parts.next().is_some() {
            return None;
        }
        (h, m, sec)
    } else {
        // The hours take one or two digits, the minutes and seconds two each.
        let hours = match digits.len() {
            1 | 2 => digits.len(),
            3 | 5 => 1,
            4 | 6 => 2,
            _ => return None,
        };
        let (h, rest) = digits.split_at(hours);
        let (m, sec) = rest.split_at(rest.len().min(2));
        let or_zero = |s: &str| if s.is_empty() { Some(0) } else { num(s) };
        (num(h)?, or_zero(m)?, or_zero(sec)?)
    };
    if h > 23 || m > 59 || sec > 59 {
        return None;
    }
    if utc && (m != 0 || sec != 0 || !(-12..=14).contains(&(sign * h))) {
        return None;
    }
    Some(sign * (h * 3600 + m * 60 + sec))
}

/// `x AT TIME ZONE zone`: see the module's documentation.
pub(super) fn at_zone(zone: Zone, a: &ArrayRef, what: &str) -> Result<ArrayRef, Reason> {
    let shown = || format!("AT TIME ZONE '{}'", zone.name());
    let (unit, zoned) = match a.data_type() {
        DataType::Timestamp(u, z) => (*u, z.is_some()),
        DataType::Date32 => (TimeUnit::Microsecond, false),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            return Err(format!(
                "{} of a string ({what}): say what it is, TIMESTAMP '...' (a wall-clock time) \
                 or TIMESTAMPTZ '...' (an instant)",
                shown()
            ))
        }
        t => {
            return Err(format!(
                "{} takes a timestamp or a date, {what} is {}",
                shown(),
                describe(t)
            ))
        }
    };
    let per_second = 1_000_000_000 / crate::key::unit_ns(&unit);
    let inf = infinity(a.data_type());
    let values = raw(a)?;
    let is_date = a.data_type() == &DataType::Date32;
    let out_of_range = || {
        format!(
            "{}: {what} holds a value whose result is out of the range of timestamps",
            shown()
        )
    };
    let mut out = Vec::with_capacity(values.len());
    for v in values.iter() {
        let Some(v) = v else {
            out.push(None);
            continue;
        };
        if infinite(inf, v) {
            out.push(Some(if v > 0 { i64::MAX } else { -i64::MAX }));
            continue;
        }
        // A date is its midnight, in microseconds.
        let v = if is_date {
            v.checked_mul(86_400 * per_second)
                .ok_or_else(out_of_range)?
        } else {
            v
        };
        let second = v.div_euclid(per_second);
        let r = if zoned {
            let offset = zone.offset_at(second)?;
            v.checked_add(i64::from(offset) * per_second)
        } else {
            let offset = zone.offset_of_local(second)?;
            v.checked_sub(i64::from(offset) * per_second)
        };
        // An infinity's raw value is no finite result.
        match r.filter(|r| *r != i64::MAX && *r != -i64::MAX && *r != i64::MIN) {
            Some(r) => out.push(Some(r)),
            None => return Err(out_of_range()),
        }
    }
    let out = Int64Array::from(out);
    Ok(timestamps(
        unit,
        (!zoned).then(|| Arc::<str>::from("UTC")),
        &out,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_read_by_name_and_as_icu_offsets() {
        assert_eq!(Zone::named("utc"), Ok(Zone::Fixed(0)));
        assert_eq!(Zone::named("GMT+2"), Ok(Zone::Fixed(7200)));
        assert_eq!(Zone::named("GMT-03:30"), Ok(Zone::Fixed(-12600)));
        assert_eq!(Zone::named("UTC-03"), Ok(Zone::Fixed(-10800)));
        assert_eq!(Zone::named("UTC-03:00"), Ok(Zone::Fixed(-10800)));
        assert_eq!(Zone::named("GMT+0530"), Ok(Zone::Fixed(19800)));
        assert_eq!(Zone::named("GMT+2:30"), Ok(Zone::Fixed(9000)));
        // ICU's custom IDs, as DuckDB 2.0.1 reads them (scripts/zone_check.py).
        for (name, seconds) in [
            ("gmt-3", -10800),
            ("Gmt+5", 18000),
            ("GMT+005", 300),
            ("GMT+123", 4980),
            ("GMT+12345", 5025),
            ("GMT-235959", -86399),
            ("GMT+05:30:15", 19815),
            ("GMT+5:30:15", 19815),
            ("UTC+14", 50400),
            ("UTC-12", -43200),
            ("UTC+0500", 18000),
        ] {
            assert_eq!(Zone::named(name), Ok(Zone::Fixed(seconds)), "{name}");
        }
        assert_eq!(Zone::named("GMT+5:30:15").unwrap().name(), "GMT+05:30:15");
        assert_eq!(Zone::named("UTC-3").unwrap().name(), "GMT-03:00");
        // DuckDB 2.0.1 refuses all of these but `UTC-03:30` (three hours west: refused here
        // rather than read either way) and `Etc/Unknown` (UTC; a likely mistake).
        for bad in [
            "GMT+25",
            "GMT+24",
            "GMT+2400",
            "GMT+2360",
            "GMT+235960",
            "GMT+1234567",
            "GMT+5:3",
            "GMT+005:30",
            "GMT+5:30:1",
            "GMT+5:",
            "GMT+5:30:",
            "GMT+5:30:15:1",
            "GMT+ 5",
            "GMT+5 ",
            "+02:00",
            "Nowhere/Land",
            "",
            "Etc/Unknown",
            "UTC-03:30",
            "UTC+15",
            "UTC-13",
            "utc+5",
            "Z",
        ] {
            assert!(Zone::named(bad).is_err(), "{bad}");
        }
        let oslo = Zone::named("europe/OSLO").unwrap();
        assert_eq!(oslo.name(), "Europe/Oslo");
        // 2024-07-05 12:00:00 UTC: CEST.
        assert_eq!(oslo.offset_at(1_720_180_800), Ok(7200));
        // ICU's legacy names, in any case, as their IANA zones.
        for (legacy, iana) in [
            ("PST", "America/Los_Angeles"),
            ("ist", "Asia/Kolkata"),
            ("BST", "Asia/Dhaka"),
            ("systemv/est5", "Etc/GMT+5"),
            ("US/Pacific-New", "America/Los_Angeles"),
        ] {
            assert_eq!(Zone::named(legacy), Zone::named(iana), "{legacy}");
        }
        // Every link's zone is in the bundled database.
        for (legacy, iana) in ICU_LINKS {
            assert!(
                matches!(Zone::named(legacy), Ok(Zone::Named(_))),
                "{legacy} -> {iana}"
            );
        }
        // ICU's SystemV rule zones are no IANA zone: refused, naming one a user likely means.
        let e = Zone::named("SystemV/EST5EDT").unwrap_err();
        assert!(e.contains("'America/New_York'"), "{e}");
        // POSIX's sign: Etc/GMT-2 is two hours east.
        let etc = Zone::named("Etc/GMT-2").unwrap();
        assert_eq!(etc.offset_at(0), Ok(7200));
    }

    #[test]
    fn gaps_and_folds_read_as_icu_reads_them() {
        let ny = Zone::named("America/New_York").unwrap();
        let local = |y, m, d, h, mi| {
            jiff::civil::date(y, m, d)
                .at(h, mi, 0, 0)
                .to_zoned(TimeZone::UTC)
                .unwrap()
                .timestamp()
                .as_second()
        };
        // DuckDB 2.0.1: TIMESTAMP '2024-03-10 02:30:00' AT TIME ZONE 'America/New_York' is
        // 07:30 UTC (the gap, EST), '2024-11-03 01:30:00' is 06:30 UTC (the fold, EST).
        assert_eq!(ny.offset_of_local(local(2024, 3, 10, 2, 30)), Ok(-5 * 3600));
        assert_eq!(ny.offset_of_local(local(2024, 11, 3, 1, 30)), Ok(-5 * 3600));
        assert_eq!(ny.offset_of_local(local(2024, 7, 1, 1, 30)), Ok(-4 * 3600));
        let oslo = Zone::named("Europe/Oslo").unwrap();
        assert_eq!(oslo.offset_of_local(local(2024, 3, 31, 2, 30)), Ok(3600));
        assert_eq!(oslo.offset_of_local(local(2024, 10, 27, 2, 30)), Ok(3600));
    }
}
