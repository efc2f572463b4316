//! String functions of the `--where` language, as DuckDB 2.0's: `starts_with` (`prefix`),
//! `ends_with` (`suffix`), `contains`, `strpos` (`instr`, `position(p IN s)`), `substr`
//! (`substring`, `SUBSTRING(s FROM a FOR b)`), `left`, `right`, `trim`, `ltrim`, `rtrim`
//! (`TRIM([BOTH | LEADING | TRAILING] [c FROM] s)`), `replace`, `concat`, `||`,
//! `concat_ws`, `split_part`, `lpad`, `rpad`, `reverse`, `repeat`, `translate`, `strlen`,
//! `length_grapheme`, `bit_length`, `ascii`, `unicode`, `chr`, `levenshtein`, `hamming` (`mismatches`) and
//! `regexp_escape` (the regular expressions themselves are in `re`).
//!
//! - Positions and lengths count characters (Unicode code points) from 1. `substr` takes a
//!   start of 0 or below as DuckDB does: `substr('hello', 0, 2)` is `'h'` (the start is one
//!   character before the first), a negative start counts from the end, and a negative length
//!   takes the characters before the start. `left` and `right` of a negative count drop that
//!   many characters from the other end. DuckDB refuses a start or a length beyond ±2^32;
//!   here every integer counts as it is.
//! - `trim` without characters removes space separators (Unicode's category Zs: the space,
//!   the no-break space, the ideographic space, ...), not tabs or line breaks, as DuckDB's.
//!   With characters, it removes any of them.
//! - `split_part`, `lpad`, `rpad`, `translate`, `levenshtein` and `hamming` count characters
//!   too (an empty separator splits a string into its characters); `reverse` reverses
//!   grapheme clusters (a letter keeps its accents, a flag its two characters), as DuckDB's,
//!   which reverses a string of ASCII alone by characters (CR LF too).
//!   `length_grapheme` counts the clusters (the bytes of a string of ASCII alone, as DuckDB's,
//!   so CR LF is two), `strlen` bytes, `bit_length` bits.
//! - A NULL argument gives NULL, except in `concat` and `concat_ws` (after the separator),
//!   which skip NULLs (and give `''` when every one is NULL), as DuckDB's.
//! - The arguments are strings, and integers for positions and counts; `||`, `concat` and
//!   `concat_ws` cast other values to text, as DuckDB's.
//! - As in DuckDB, `lpad` and `rpad` fail on an empty padding they need, `chr` on a number
//!   that is not a code point, `hamming` on strings of different lengths or empty ones, and a
//!   result over 4,294,967,295 bytes (DuckDB's largest string) fails.

use std::fmt::Write as _;
use std::sync::Arc;

use arrow::array::{
    cast::AsArray, Array, ArrayRef, BooleanArray, Decimal256Array, Int32Array, Int64Array,
    LargeStringBuilder, StringArray,
};
use arrow::datatypes::{i256, DataType, Decimal256Type};
use memchr::memmem::Finder;

use super::arith::{self, Value};
use super::eval::Reason;
use super::func::Arg;
use super::re::{self, Compiled, Re};

/// A string function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Text {
    StartsWith,
    EndsWith,
    Contains,
    /// `strpos(s, p)`: the position of the first `p` in `s`, 0 when there is none.
    Strpos,
    /// `substr(s, start[, length])`.
    Substr,
    Left,
    Right,
    Trim(Side),
    Replace,
    /// `concat(...)`: NULLs are skipped.
    Concat,
    /// `a || b`: NULL gives NULL.
    Pipe,
    /// A regular expression function (`regexp_matches`, `~`, ...: see `re`).
    Regex(Re),
    /// `regexp_escape(s)`: `s` as a pattern that matches it literally.
    RegexEscape,
    /// `concat_ws(sep, ...)`: the values (NULLs skipped, others cast to text) joined by `sep`.
    ConcatWs,
    /// `split_part(s, sep, i)`: the `i`-th piece of `s` split at `sep` (from the end when
    /// negative; `''` past either end).
    SplitPart,
    /// `lpad(s, n, p)` (`Leading`) and `rpad` (`Trailing`): `s` padded with `p` repeated, or
    /// cut, to `n` characters.
    Pad(Side),
    /// `reverse(s)`: the grapheme clusters of `s` in reverse order.
    Reverse,
    /// `repeat(s, n)`: `s` `n` times.
    Repeat,
    /// `translate(s, from, to)`: each character of `from` in `s` replaced by the one at the
    /// same place in `to`, or removed when `to` is shorter.
    Translate,
    /// `strlen(s)`: bytes.
    Strlen,
    /// `length_grapheme(s)`: grapheme clusters (bytes for a string of ASCII alone).
    LengthGrapheme,
    /// `bit_length(s)`: bits.
    BitLength,
    /// `ascii(s)`: the first character's code point, 0 for `''`.
    Ascii,
    /// `unicode(s)`: the first character's code point, -1 for `''`.
    Unicode,
    /// `chr(n)`: the character of code point `n`.
    Chr,
    /// `levenshtein(a, b)`: the edit distance in characters.
    Levenshtein,
    /// `hamming(a, b)` (`mismatches`): the places where strings of equal length differ.
    Hamming,
}

/// The ends `trim` works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Both,
    Leading,
    Trailing,
}

/// What an argument must be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Str,
    Int,
}

impl Text {
    /// The name messages use.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Text::StartsWith => "starts_with",
            Text::EndsWith => "ends_with",
            Text::Contains => "contains",
            Text::Strpos => "strpos",
            Text::Substr => "substr",
            Text::Left => "left",
            Text::Right => "right",
            Text::Trim(Side::Both) => "trim",
            Text::Trim(Side::Leading) => "ltrim",
            Text::Trim(Side::Trailing) => "rtrim",
            Text::Replace => "replace",
            Text::Concat => "concat",
            Text::Pipe => "||",
            Text::Regex(r) => r.name(),
            Text::RegexEscape => "regexp_escape",
            Text::ConcatWs => "concat_ws",
            Text::SplitPart => "split_part",
            Text::Pad(Side::Trailing) => "rpad",
            Text::Pad(_) => "lpad",
            Text::Reverse => "reverse",
            Text::Repeat => "repeat",
            Text::Translate => "translate",
            Text::Strlen => "strlen",
            Text::LengthGrapheme => "length_grapheme",
            Text::BitLength => "bit_length",
            Text::Ascii => "ascii",
            Text::Unicode => "unicode",
            Text::Chr => "chr",
            Text::Levenshtein => "levenshtein",
            Text::Hamming => "hamming",
        }
    }

    /// The function a name calls, in lower case, and the counts of arguments it takes.
    pub(crate) fn named(name: &str) -> Option<(Text, usize, usize)> {
        Some(match name {
            "starts_with" | "prefix" => (Text::StartsWith, 2, 2),
            "ends_with" | "suffix" => (Text::EndsWith, 2, 2),
            "contains" => (Text::Contains, 2, 2),
            "strpos" | "instr" => (Text::Strpos, 2, 2),
            "substr" | "substring" => (Text::Substr, 2, 3),
            "left" => (Text::Left, 2, 2),
            "right" => (Text::Right, 2, 2),
            "trim" => (Text::Trim(Side::Both), 1, 2),
            "ltrim" => (Text::Trim(Side::Leading), 1, 2),
            "rtrim" => (Text::Trim(Side::Trailing), 1, 2),
            "replace" => (Text::Replace, 3, 3),
            "concat" => (Text::Concat, 1, usize::MAX),
            "regexp_escape" => (Text::RegexEscape, 1, 1),
            "concat_ws" => (Text::ConcatWs, 2, usize::MAX),
            "split_part" => (Text::SplitPart, 3, 3),
            "lpad" => (Text::Pad(Side::Leading), 3, 3),
            "rpad" => (Text::Pad(Side::Trailing), 3, 3),
            "reverse" => (Text::Reverse, 1, 1),
            "repeat" => (Text::Repeat, 2, 2),
            "translate" => (Text::Translate, 3, 3),
            "strlen" => (Text::Strlen, 1, 1),
            "length_grapheme" => (Text::LengthGrapheme, 1, 1),
            "bit_length" => (Text::BitLength, 1, 1),
            "ascii" => (Text::Ascii, 1, 1),
            "unicode" => (Text::Unicode, 1, 1),
            "chr" => (Text::Chr, 1, 1),
            "levenshtein" => (Text::Levenshtein, 2, 2),
            "hamming" | "mismatches" => (Text::Hamming, 2, 2),
            _ => {
                let (r, min, max) = Re::named(name)?;
                (Text::Regex(r), min, max)
            }
        })
    }

    fn role(self, arg: usize) -> Role {
        match (self, arg) {
            (Text::Substr | Text::Left | Text::Right, 1..)
            | (Text::Pad(_), 1)
            | (Text::Repeat, 1)
            | (Text::SplitPart, 2)
            | (Text::Chr, _) => Role::Int,
            _ => Role::Str,
        }
    }

    /// The argument as messages describe what it must be.
    fn wants(self, role: Role, arg: usize) -> &'static str {
        match (self, role, arg) {
            (Text::Substr, Role::Int, 1) => "an integer start",
            (Text::Substr, Role::Int, _) => "an integer length",
            (Text::SplitPart, Role::Int, _) => "an integer index",
            (Text::Chr, Role::Int, _) => "an integer code point",
            (_, Role::Int, _) => "an integer count",
            _ => "a string",
        }
    }
}

/// A string argument: one value per row, or one for every row.
struct Strs<'a> {
    col: StrCol<'a>,
    one: bool,
}

enum StrCol<'a> {
    Utf8(&'a StringArray),
    Large(&'a arrow::array::LargeStringArray),
    View(&'a arrow::array::StringViewArray),
}

impl<'a> Strs<'a> {
    fn new(a: &'a ArrayRef, one: bool) -> Option<Strs<'a>> {
        let col = match a.data_type() {
            DataType::Utf8 => StrCol::Utf8(a.as_string::<i32>()),
            DataType::LargeUtf8 => StrCol::Large(a.as_string::<i64>()),
            DataType::Utf8View => StrCol::View(a.as_string_view()),
            _ => return None,
        };
        Some(Strs { col, one })
    }

    fn get(&self, i: usize) -> Option<&'a str> {
        let i = if self.one { 0 } else { i };
        match self.col {
            StrCol::Utf8(a) => a.is_valid(i).then(|| a.value(i)),
            StrCol::Large(a) => a.is_valid(i).then(|| a.value(i)),
            StrCol::View(a) => a.is_valid(i).then(|| a.value(i)),
        }
    }
}

/// An integer argument, as 256-bit values (every integer type and literal fits, and sums of
/// two do not overflow).
struct Ints {
    values: Decimal256Array,
    one: bool,
}

impl Ints {
    fn get(&self, i: usize) -> Option<i256> {
        let i = if self.one { 0 } else { i };
        self.values.is_valid(i).then(|| self.values.value(i))
    }
}

/// `f(args)`.
pub(super) fn call(t: Text, args: Vec<Arg>) -> Result<Value, Reason> {
    let name = t.name();
    let shown = if t == Text::Pipe {
        "||".to_string()
    } else {
        format!("{name}()")
    };
    // Check every argument's type first: a NULL does not excuse a wrong type elsewhere.
    let mut null = false;
    let mut null_separator = false;
    let mut kept: Vec<(ArrayRef, bool, Role)> = Vec::with_capacity(args.len());
    for (i, (o, what)) in args.into_iter().enumerate() {
        let role = t.role(i);
        let Some((a, one)) = super::func::operand_array(o, &shown, &what)? else {
            null = true;
            null_separator |= i == 0;
            continue;
        };
        // `||`, concat() and concat_ws()'s values cast numbers, booleans, dates and timestamps
        // to text, as DuckDB (strings stay as they are).
        let a = if matches!(t, Text::Concat | Text::Pipe) || (t == Text::ConcatWs && i > 0) {
            super::cast::to_varchar(&a, &shown, &what)?
        } else {
            a
        };
        let t_ = a.data_type();
        let fits = match role {
            Role::Str => matches!(
                t_,
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
            ),
            Role::Int => matches!(arith::number(t_), Some((_, 0))),
        };
        if !fits {
            let is = match arith::number(t_) {
                Some((_, s)) if s != 0 => "a number with a fraction".to_string(),
                Some(_) => "a number".to_string(),
                None => super::func::describe(t_),
            };
            return Err(format!(
                "{shown} takes {}, {what} is {is}",
                t.wants(role, i)
            ));
        }
        kept.push((a, one, role));
    }
    match t {
        Text::Concat if kept.is_empty() => {
            return Ok(Value::One(Arc::new(StringArray::from(vec![""]))));
        }
        Text::Concat => {}
        Text::ConcatWs if null_separator => return Ok(Value::Null),
        Text::ConcatWs => {}
        _ if null => return Ok(Value::Null),
        _ => {}
    }
    let one = kept.iter().all(|(_, one, _)| *one);
    let n = kept
        .iter()
        .find(|(_, one, _)| !*one)
        .map_or(1, |(a, ..)| a.len());
    let mut strs = Vec::new();
    let mut ints = Vec::new();
    for (a, o, role) in &kept {
        match role {
            Role::Str => strs.push(Strs::new(a, *o).expect("checked to be a string")),
            Role::Int => {
                let values = arith::cast(a, &DataType::Decimal256(76, 0))?;
                ints.push(Ints {
                    values: values.as_primitive::<Decimal256Type>().clone(),
                    one: *o,
                });
            }
        }
    }
    let r = eval(t, n, &strs, &ints, &kept)?;
    Ok(if one { Value::One(r) } else { Value::Rows(r) })
}

fn eval(
    t: Text,
    n: usize,
    strs: &[Strs],
    ints: &[Ints],
    kept: &[(ArrayRef, bool, Role)],
) -> Result<ArrayRef, Reason> {
    // Every function but chr() takes a string first.
    let Some(s) = strs.first() else {
        return chr(n, &ints[0]);
    };
    Ok(match t {
        Text::StartsWith | Text::EndsWith | Text::Contains => {
            let p = &strs[1];
            if t == Text::Contains && !s.one && p.one {
                if let Some(needle) = p.get(0).filter(|x| !x.is_empty()) {
                    if let Some(r) = super::contains::like_contains(&kept[0].0, needle, false) {
                        return Ok(Arc::new(r));
                    }
                }
            }
            let test = |h: &str, p: &str| match t {
                Text::StartsWith => h.starts_with(p),
                Text::EndsWith => h.ends_with(p),
                _ => h.contains(p),
            };
            Arc::new(
                (0..n)
                    .map(|i| Some(test(s.get(i)?, p.get(i)?)))
                    .collect::<BooleanArray>(),
            )
        }
        Text::Strpos => {
            let p = &strs[1];
            // A literal needle's searcher is built once, not per value.
            let finder = literal(p).map(|q| Finder::new(q.as_bytes()));
            Arc::new(
                (0..n)
                    .map(|i| {
                        let (h, q) = (s.get(i)?, p.get(i)?);
                        let at = match &finder {
                            Some(f) => f.find(h.as_bytes()),
                            None => h.find(q),
                        };
                        Some(position(h, at))
                    })
                    .collect::<Int64Array>(),
            )
        }
        Text::Substr | Text::Left | Text::Right => strings(n, |i, out| {
            let (Some(v), Some(k)) = (s.get(i), ints[0].get(i)) else {
                return Ok(false);
            };
            // An optional argument that is NULL on this row makes it NULL.
            let len = match ints.get(1).map(|l| l.get(i)) {
                Some(None) => return Ok(false),
                given => given.flatten(),
            };
            out.push_str(cut(v, t, k, len));
            Ok(true)
        })?,
        Text::Trim(side) => strings(n, |i, out| {
            let Some(v) = s.get(i) else {
                return Ok(false);
            };
            let set = match strs.get(1).map(|c| c.get(i)) {
                Some(None) => return Ok(false),
                given => given.flatten(),
            };
            out.push_str(trim(v, set, side));
            Ok(true)
        })?,
        Text::Replace => {
            let finder = literal(&strs[1]).map(|q| Finder::new(q.as_bytes()));
            strings(n, |i, out| {
                let (Some(v), Some(from), Some(to)) = (s.get(i), strs[1].get(i), strs[2].get(i))
                else {
                    return Ok(false);
                };
                if from.is_empty() {
                    out.push_str(v);
                    return Ok(true);
                }
                match &finder {
                    Some(f) => splice(out, v, from.len(), to, f.find_iter(v.as_bytes())),
                    None => splice(out, v, from.len(), to, v.match_indices(from).map(|m| m.0)),
                }
                Ok(true)
            })?
        }
        Text::Regex(r) => regex(r, n, strs)?,
        Text::RegexEscape => strings(n, |i, out| {
            let Some(v) = s.get(i) else {
                return Ok(false);
            };
            re::escape(v, |x| out.push_str(x));
            Ok(true)
        })?,
        Text::Concat | Text::Pipe => strings(n, |i, out| {
            if t == Text::Pipe && strs.iter().any(|s| s.get(i).is_none()) {
                return Ok(false);
            }
            for v in strs.iter().filter_map(|s| s.get(i)) {
                out.push_str(v);
            }
            Ok(true)
        })?,
        Text::ConcatWs => strings(n, |i, out| {
            let Some(sep) = s.get(i) else {
                return Ok(false);
            };
            for (k, v) in strs[1..].iter().filter_map(|s| s.get(i)).enumerate() {
                if k > 0 {
                    out.push_str(sep);
                }
                out.push_str(v);
            }
            Ok(true)
        })?,
        Text::SplitPart => strings(n, |i, out| {
            let (Some(v), Some(sep), Some(k)) = (s.get(i), strs[1].get(i), ints[0].get(i)) else {
                return Ok(false);
            };
            out.push_str(split_part(v, sep, k));
            Ok(true)
        })?,
        Text::Pad(side) => strings(n, |i, out| {
            let (Some(v), Some(k), Some(p)) = (s.get(i), ints[0].get(i), strs[1].get(i)) else {
                return Ok(false);
            };
            pad(out, v, k, p, side)?;
            Ok(true)
        })?,
        Text::Reverse => strings(n, |i, out| {
            let Some(v) = s.get(i) else {
                return Ok(false);
            };
            // DuckDB reverses a string of ASCII byte by byte, CR LF too, which grapheme
            // clusters keep in order.
            if v.is_ascii() {
                for c in v.chars().rev() {
                    out.push_char(c);
                }
            } else {
                for g in super::grapheme::clusters(v).into_iter().rev() {
                    out.push_str(g);
                }
            }
            Ok(true)
        })?,
        Text::Repeat => strings(n, |i, out| {
            let (Some(v), Some(k)) = (s.get(i), ints[0].get(i)) else {
                return Ok(false);
            };
            if v.is_empty() || k <= i256::ZERO {
                return Ok(true);
            }
            let bytes = k.checked_mul(i256::from_i128(v.len() as i128));
            match bytes.and_then(|b| b.to_i128()) {
                Some(b) if b <= MAX_BYTES => {
                    for _ in 0..k.as_i128() {
                        out.push_str(v);
                    }
                    Ok(true)
                }
                _ => Err(too_long("repeat", format!("{k} times {} bytes", v.len()))),
            }
        })?,
        Text::Translate => strings(n, |i, out| {
            let (Some(v), Some(from), Some(to)) = (s.get(i), strs[1].get(i), strs[2].get(i)) else {
                return Ok(false);
            };
            for c in v.chars() {
                match from.chars().position(|f| f == c) {
                    None => out.push_char(c),
                    Some(at) => {
                        if let Some(r) = to.chars().nth(at) {
                            out.push_char(r);
                        }
                    }
                }
            }
            Ok(true)
        })?,
        Text::Strlen | Text::BitLength => {
            let unit = if t == Text::Strlen { 1 } else { 8 };
            Arc::new(
                (0..n)
                    .map(|i| Some(s.get(i)?.len() as i64 * unit))
                    .collect::<Int64Array>(),
            )
        }
        // DuckDB counts a string of ASCII by its bytes (CR LF is two), as `reverse` reverses.
        Text::LengthGrapheme => Arc::new(
            (0..n)
                .map(|i| {
                    let v = s.get(i)?;
                    Some(if v.is_ascii() {
                        v.len()
                    } else {
                        super::grapheme::clusters(v).len()
                    } as i64)
                })
                .collect::<Int64Array>(),
        ),
        Text::Ascii | Text::Unicode => {
            let empty = if t == Text::Ascii { 0 } else { -1 };
            Arc::new(
                (0..n)
                    .map(|i| Some(s.get(i)?.chars().next().map_or(empty, |c| c as i32)))
                    .collect::<Int32Array>(),
            )
        }
        Text::Levenshtein => Arc::new(
            (0..n)
                .map(|i| Some(strsim::levenshtein(s.get(i)?, strs[1].get(i)?) as i64))
                .collect::<Int64Array>(),
        ),
        Text::Hamming => {
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                out.push(match (s.get(i), strs[1].get(i)) {
                    (Some(a), Some(b)) => Some(hamming(a, b)?),
                    _ => None,
                });
            }
            Arc::new(Int64Array::from(out))
        }
        Text::Chr => chr(n, &ints[0])?,
    })
}

/// `chr(k)`: the character of each code point.
fn chr(n: usize, k: &Ints) -> Result<ArrayRef, Reason> {
    strings(n, |i, out| {
        let Some(c) = k.get(i) else {
            return Ok(false);
        };
        let c = c
            .to_i128()
            .and_then(|c| u32::try_from(c).ok())
            .and_then(char::from_u32)
            .ok_or_else(|| format!("chr(): {c} is not a Unicode code point"))?;
        out.push_char(c);
        Ok(true)
    })
}

/// DuckDB's longest string, in bytes.
const MAX_BYTES: i128 = 4_294_967_295;

/// The failure of `name()` making a string of `size` (its size as the message says it), longer
/// than [`MAX_BYTES`].
fn too_long(name: &str, size: String) -> Reason {
    format!("{name}(): a string of {size} is longer than the longest, {MAX_BYTES} bytes")
}

/// `split_part(v, sep, k)`: the `k`-th piece (from 1; from the end when negative) of `v` split
/// at each `sep` left to right, or at each character when `sep` is empty; `''` past either
/// end and for 0.
fn split_part<'a>(v: &'a str, sep: &str, k: i256) -> &'a str {
    let Some(k) = k.to_i128().filter(|&k| k != 0) else {
        return "";
    };
    let pieces: Vec<&str> = if sep.is_empty() {
        v.char_indices()
            .map(|(at, c)| &v[at..at + c.len_utf8()])
            .collect()
    } else {
        v.split(sep).collect()
    };
    let at = if k > 0 {
        k - 1
    } else {
        pieces.len() as i128 + k
    };
    usize::try_from(at)
        .ok()
        .and_then(|at| pieces.get(at))
        .copied()
        .unwrap_or("")
}

/// `lpad(v, k, p)` (`side` `Leading`) or `rpad` into `out`: `v` cut to its first `k`
/// characters, or padded to `k` with `p` repeated (and cut) on that side.
fn pad(out: &mut Out, v: &str, k: i256, p: &str, side: Side) -> Result<(), Reason> {
    let name = Text::Pad(side).name();
    if k <= i256::ZERO {
        return Ok(());
    }
    let have = i256::from_i128(v.chars().count() as i128);
    if k <= have {
        out.push_str(chars_between(v, i256::ZERO, Some(k)));
        return Ok(());
    }
    if p.is_empty() {
        return Err(format!(
            "{name}(): the padding is empty, and '{}' is shorter than {k} characters",
            super::func::shown(v)
        ));
    }
    // Every character is a byte at least: `k` characters past the longest string are too long.
    let need = k.wrapping_sub(have);
    if k > i256::from_i128(MAX_BYTES) {
        return Err(too_long(name, format!("{k} characters")));
    }
    let need = need.as_i128() as usize;
    let per = p.chars().count();
    let rest = chars_between(p, i256::ZERO, Some(i256::from_i128((need % per) as i128)));
    let bytes = v.len() as i128 + (need / per) as i128 * p.len() as i128 + rest.len() as i128;
    if bytes > MAX_BYTES {
        return Err(too_long(name, format!("{bytes} bytes")));
    }
    if side == Side::Trailing {
        out.push_str(v);
    }
    for _ in 0..need / per {
        out.push_str(p);
    }
    out.push_str(rest);
    if side != Side::Trailing {
        out.push_str(v);
    }
    Ok(())
}

/// `hamming(a, b)`: the characters that differ at the same places of strings of equal length,
/// which DuckDB requires (and not empty).
fn hamming(a: &str, b: &str) -> Result<i64, Reason> {
    match strsim::hamming(a, b) {
        Err(_) => Err(format!(
            "hamming(): '{}' and '{}' are of different lengths",
            super::func::shown(a),
            super::func::shown(b)
        )),
        Ok(_) if a.is_empty() => Err("hamming(): the strings are empty".into()),
        Ok(d) => Ok(d as i64),
    }
}

/// A regular expression function of `strs` (the text, the pattern, `regexp_replace`'s
/// replacement): each pattern (and replacement) is compiled once.
fn regex(r: Re, n: usize, strs: &[Strs]) -> Result<ArrayRef, Reason> {
    let (s, p) = (&strs[0], &strs[1]);
    let mut compiled = Compiled::new(r, literal(p))?;
    Ok(match r {
        Re::Matches { .. } => {
            let mut out = arrow::array::BooleanBuilder::with_capacity(n);
            for i in 0..n {
                match (s.get(i), p.get(i)) {
                    (Some(v), Some(q)) => out.append_value(compiled.get(q)?.is_match(v)),
                    _ => out.append_null(),
                }
            }
            Arc::new(out.finish())
        }
        Re::Replace(opts) => {
            let to = &strs[2];
            // A literal replacement of a literal pattern is read once.
            let fixed = match (literal(p), literal(to)) {
                (Some(q), Some(t)) => {
                    Some(re::replacement(t, compiled.get(q)?.captures_len() - 1)?)
                }
                _ => None,
            };
            strings(n, |i, out| {
                let (Some(v), Some(q), Some(t)) = (s.get(i), p.get(i), to.get(i)) else {
                    return Ok(false);
                };
                let rx = compiled.get(q)?;
                let row;
                let pieces = match &fixed {
                    Some(pieces) => pieces,
                    None => {
                        row = re::replacement(t, rx.captures_len() - 1)?;
                        &row
                    }
                };
                re::replace(rx, v, pieces, opts.global, |x| out.push_str(x));
                Ok(true)
            })?
        }
        Re::Extract { group, .. } => strings(n, |i, out| {
            let (Some(v), Some(q)) = (s.get(i), p.get(i)) else {
                return Ok(false);
            };
            out.push_str(re::extract(compiled.get(q)?, v, group as usize));
            Ok(true)
        })?,
    })
}

/// A string value being written: [`strings`] hands one to each row.
struct Out<'b>(&'b mut LargeStringBuilder);

impl Out<'_> {
    fn push_str(&mut self, s: &str) {
        // Writing into the builder cannot fail.
        let _ = self.0.write_str(s);
    }

    fn push_char(&mut self, c: char) {
        let _ = self.0.write_char(c);
    }
}

/// A `LargeUtf8` array of `n` rows, each written by `row` into one buffer (`false`: NULL).
fn strings(
    n: usize,
    mut row: impl FnMut(usize, &mut Out) -> Result<bool, Reason>,
) -> Result<ArrayRef, Reason> {
    let mut b = LargeStringBuilder::with_capacity(n, n * 8);
    for i in 0..n {
        if row(i, &mut Out(&mut b))? {
            b.append_value("");
        } else {
            b.append_null();
        }
    }
    Ok(Arc::new(b.finish()))
}

/// `v` with the `len` bytes at each of `found` (matches left to right, without overlaps; a
/// match of UTF-8 in UTF-8 starts and ends on characters) replaced by `to`.
fn splice(out: &mut Out, v: &str, len: usize, to: &str, found: impl Iterator<Item = usize>) {
    let mut last = 0;
    for at in found {
        out.push_str(&v[last..at]);
        out.push_str(to);
        last = at + len;
    }
    out.push_str(&v[last..]);
}

/// The value of a string argument that is one literal for every row (not NULL).
fn literal<'a>(a: &Strs<'a>) -> Option<&'a str> {
    a.one.then(|| a.get(0)).flatten()
}

/// The 1-based character position of a match at byte `at` of `h`; 0 for none.
fn position(h: &str, at: Option<usize>) -> i64 {
    match at {
        None => 0,
        Some(at) if h.as_bytes()[..at].is_ascii() => at as i64 + 1,
        Some(at) => h[..at].chars().count() as i64 + 1,
    }
}

/// The 1-based character position of the first `p` in `h`; 0 when there is none, 1 when `p`
/// is empty.
#[cfg(test)]
fn strpos(h: &str, p: &str) -> i64 {
    position(h, h.find(p))
}

/// `substr(s, k[, len])`, `left(s, k)` or `right(s, k)`, as DuckDB counts.
fn cut(s: &str, t: Text, k: i256, len: Option<i256>) -> &str {
    let zero = i256::ZERO;
    // Sums of two values of at most 76 digits do not overflow 256 bits.
    let add = |a: i256, b: i256| a.wrapping_add(b);
    // The count of characters, only where the range depends on it: `left(s, 2)` and
    // `substr(s, 2, 3)` read only the characters they take.
    let n = || {
        i256::from_i128(if s.is_ascii() {
            s.len()
        } else {
            s.chars().count()
        } as i128)
    };
    // The characters [from, to) counted from 0 (`None`: to the end).
    let (from, to) = match t {
        Text::Substr => {
            // The start as a 0-based index: 0 is one before the first character.
            let v = if k > zero {
                k.wrapping_sub(i256::ONE)
            } else if k < zero {
                add(n(), k)
            } else {
                i256::MINUS_ONE
            };
            match len {
                None => (v, None),
                Some(l) if l >= zero => (v, Some(add(v, l))),
                Some(l) => (add(v, l), Some(v)),
            }
        }
        Text::Left if k >= zero => (zero, Some(k)),
        Text::Left => (zero, Some(add(n(), k))),
        Text::Right if k >= zero => (n().wrapping_sub(k), None),
        _ => (k.wrapping_neg(), None),
    };
    chars_between(s, from, to)
}

/// The characters `[from, to)` of `s`, counted from 0 (`to` `None`: to the end), clamped to
/// `s`.
fn chars_between(s: &str, from: i256, to: Option<i256>) -> &str {
    // A character's index is at most its byte's: past the bytes is past the end.
    let bytes = i256::from_i128(s.len() as i128);
    let at = |v: i256| v.max(i256::ZERO).min(bytes).as_i128() as usize;
    let (a, b) = (at(from), to.map_or(s.len(), at));
    if b <= a {
        return "";
    }
    if s.as_bytes()[..b].is_ascii() {
        return &s[a..b];
    }
    let mut at = s.char_indices().map(|(at, _)| at).chain([s.len()]);
    let first = at.nth(a).unwrap_or(s.len());
    let last = at.nth(b - a - 1).unwrap_or(s.len());
    &s[first..last]
}

/// Whether `c` is a space separator (Unicode's general category Zs), what `trim` removes
/// when given no characters.
pub(super) fn space_separator(c: char) -> bool {
    matches!(
        c,
        ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

/// `s` without the characters of `set` (space separators when `None`) at `side`.
fn trim<'s>(s: &'s str, set: Option<&str>, side: Side) -> &'s str {
    let strip = |c: char| match set {
        None => space_separator(c),
        Some(set) => set.contains(c),
    };
    match side {
        Side::Both => s.trim_matches(strip),
        Side::Leading => s.trim_start_matches(strip),
        Side::Trailing => s.trim_end_matches(strip),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i128) -> i256 {
        i256::from_i128(v)
    }

    #[test]
    fn cut_counts_as_duckdb() {
        // DuckDB 2.0's answers.
        for (k, len, want) in [
            (0, Some(2), "h"),
            (-2, None, "lo"),
            (-3, Some(2), "ll"),
            (2, Some(-1), "h"),
            (3, Some(-2), "he"),
            (10, None, ""),
            (0, None, "hello"),
            (-10, Some(3), ""),
            (-10, Some(8), "hel"),
            (-10, None, "hello"),
            (1, Some(0), ""),
            (-1, Some(-2), "ll"),
            (0, Some(-1), ""),
        ] {
            assert_eq!(
                cut("hello", Text::Substr, int(k), len.map(int)),
                want,
                "substr('hello', {k}, {len:?})"
            );
        }
        assert_eq!(cut("héllo", Text::Substr, int(2), Some(int(2))), "él");
        for (t, k, want) in [
            (Text::Left, -2, "hel"),
            (Text::Left, 2, "he"),
            (Text::Right, -2, "llo"),
            (Text::Right, 2, "lo"),
            (Text::Left, 0, ""),
            (Text::Right, 10, "hello"),
            (Text::Left, -10, ""),
            (Text::Left, i64::MIN as i128, ""),
            (Text::Right, i64::MIN as i128, ""),
        ] {
            assert_eq!(cut("hello", t, int(k), None), want, "{t:?}('hello', {k})");
        }
        assert_eq!(cut("hé", Text::Left, int(1), None), "h");
        // Exact past DuckDB's ±2^32 (it refuses these).
        let big = i256::from_i128(1 << 100);
        assert_eq!(cut("hello", Text::Substr, big, None), "");
        assert_eq!(
            cut("hello", Text::Substr, big, Some(big.wrapping_neg())),
            "hello"
        );
        assert_eq!(
            cut("hello", Text::Substr, big, Some(int(3).wrapping_sub(big))),
            "llo"
        );
        assert_eq!(cut("hello", Text::Left, big, None), "hello");
    }

    #[test]
    fn trim_removes_space_separators_or_the_given_characters() {
        assert_eq!(trim("  a b  ", None, Side::Both), "a b");
        assert_eq!(trim("\t a \n", None, Side::Both), "\t a \n");
        assert_eq!(trim("\u{3000}\u{A0}a\u{202F}", None, Side::Both), "a");
        assert_eq!(trim("  a  ", None, Side::Leading), "a  ");
        assert_eq!(trim("  a  ", None, Side::Trailing), "  a");
        assert_eq!(trim("xyaxy", Some("yx"), Side::Both), "a");
        assert_eq!(trim("aaa", Some(""), Side::Both), "aaa");
        assert_eq!(trim("ééaé", Some("é"), Side::Both), "a");
        // Every Zs character, and no other in the first planes' spaces and controls.
        let zs: Vec<char> = (0..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|&c| space_separator(c))
            .collect();
        assert_eq!(zs.len(), 17);
        assert!(zs.iter().all(|c| c.is_whitespace()));
    }

    /// DuckDB's model over a vector of characters: the 0-based range, clamped.
    fn model(s: &str, t: Text, k: i128, len: Option<i128>) -> String {
        let c: Vec<char> = s.chars().collect();
        let n = c.len() as i128;
        let (from, to) = match t {
            Text::Substr => {
                let v = if k > 0 {
                    k - 1
                } else if k < 0 {
                    n + k
                } else {
                    -1
                };
                match len {
                    None => (v, n),
                    Some(l) if l >= 0 => (v, v + l),
                    Some(l) => (v + l, v),
                }
            }
            Text::Left if k >= 0 => (0, k),
            Text::Left => (0, n + k),
            Text::Right if k >= 0 => (n - k, n),
            _ => (-k, n),
        };
        let (a, b) = (from.clamp(0, n) as usize, to.clamp(0, n) as usize);
        if b <= a {
            return String::new();
        }
        c[a..b].iter().collect()
    }

    proptest::proptest! {
        #[test]
        fn cut_is_the_model_on_any_string(
            s in "[ab é€\u{3000}]{0,12}",
            t in proptest::sample::select(vec![Text::Substr, Text::Left, Text::Right]),
            k in -15i128..15,
            len in proptest::option::of(-15i128..15),
        ) {
            let len = if t == Text::Substr { len } else { None };
            proptest::prop_assert_eq!(cut(&s, t, int(k), len.map(int)), model(&s, t, k, len));
        }
    }

    #[test]
    fn strpos_counts_characters() {
        assert_eq!(strpos("hello", "l"), 3);
        assert_eq!(strpos("héllo", "l"), 3);
        assert_eq!(strpos("hello", ""), 1);
        assert_eq!(strpos("", ""), 1);
        assert_eq!(strpos("abc", "abcd"), 0);
    }
}
