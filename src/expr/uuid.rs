//! UUIDs in expressions, as DuckDB treats them: a Parquet `UUID` column (16 bytes, read as
//! Arrow's `FixedSizeBinary(16)`) compared with text reads the text as a UUID, `CAST(u AS
//! VARCHAR)` is its canonical text, and `CAST(s AS UUID)` reads text.
//!
//! DuckDB reads a UUID from text (`UUID::FromString`) leniently: optional braces around it
//! (both or neither), hyphens anywhere (ignored), and exactly 32 hexadecimal digits of
//! either case. Nothing else, not even a space, is a UUID. Two UUIDs order as their bytes,
//! which is also the order of their canonical texts (lowercase, `8-4-4-4-12`).

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, FixedSizeBinaryArray, FixedSizeBinaryBuilder, StringBuilder,
};
use arrow::datatypes::DataType;

use super::eval::Reason;

/// The 16 bytes of the UUID `s` reads as, by DuckDB's rules; `None` when it is no UUID.
pub(crate) fn parse(s: &str) -> Option<[u8; 16]> {
    let s = s.as_bytes();
    let inner = match s {
        [b'{', inner @ .., b'}'] => inner,
        [b'{', ..] => return None,
        _ => s,
    };
    let mut out = [0u8; 16];
    let mut count = 0;
    for &c in inner {
        if c == b'-' {
            continue;
        }
        let d = (c as char).to_digit(16)? as u8;
        if count == 32 {
            return None;
        }
        out[count / 2] |= d << (4 * (1 - count % 2));
        count += 1;
    }
    (count == 32).then_some(out)
}

/// The canonical text of a UUID: lowercase, `8-4-4-4-12` hexadecimal digits.
pub(crate) fn text(bytes: &[u8]) -> String {
    let mut t = String::with_capacity(36);
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            t.push('-');
        }
        t.push_str(&format!("{b:02x}"));
    }
    t
}

/// The error for a string that is no UUID.
pub(crate) fn not_a_uuid(s: &str, what: &str) -> Reason {
    let s = s.replace('\'', "''");
    format!(
        "could not convert string '{s}' to UUID ({what}; a UUID is 32 hexadecimal digits, \
         hyphens anywhere, in braces or not)"
    )
}

/// Strings (`a`, of any of arrow's string layouts) read as UUIDs; `try_`: a string that is no
/// UUID becomes NULL instead of an error. `None` when `a` holds no strings.
pub(crate) fn from_strings(
    a: &ArrayRef,
    try_: bool,
    what: &str,
) -> Option<Result<ArrayRef, Reason>> {
    let values = super::func::str_values(a)?;
    let mut b = FixedSizeBinaryBuilder::with_capacity(a.len(), 16);
    for v in values {
        let Some(s) = v else {
            b.append_null();
            continue;
        };
        match parse(s) {
            Some(bytes) => b.append_value(bytes).expect("16 bytes"),
            None if try_ => b.append_null(),
            None => return Some(Err(not_a_uuid(s, what))),
        }
    }
    Some(Ok(Arc::new(b.finish())))
}

/// One UUID as a one-row array (a comparison's scalar).
pub(crate) fn one(bytes: [u8; 16]) -> FixedSizeBinaryArray {
    FixedSizeBinaryArray::try_from_iter(std::iter::once(bytes)).expect("16 bytes")
}

/// The canonical texts of UUIDs `a` (16-byte values), nulls kept.
pub(crate) fn texts(a: &ArrayRef) -> Result<ArrayRef, Reason> {
    let DataType::FixedSizeBinary(16) = a.data_type() else {
        return Err(format!("a UUID is 16 bytes, not {}", a.data_type()));
    };
    let a = a.as_fixed_size_binary();
    let mut b = StringBuilder::with_capacity(a.len(), a.len() * 36);
    for v in a.iter() {
        match v {
            Some(bytes) => b.append_value(text(bytes)),
            None => b.append_null(),
        }
    }
    Ok(Arc::new(b.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: [u8; 16] = [
        0xec, 0xcb, 0xc8, 0x7e, 0x4b, 0x5c, 0xe2, 0xfe, 0x28, 0x30, 0x8f, 0xd9, 0xf2, 0xa7, 0xba,
        0xf3,
    ];

    /// DuckDB 2.0's answers to `'<s>'::UUID`, checked by hand on each string.
    #[test]
    fn text_reads_as_duckdb_reads_it() {
        for ok in [
            "eccbc87e-4b5c-e2fe-2830-8fd9f2a7baf3",
            "ECCBC87E4B5CE2FE28308FD9F2A7BAF3",
            "{eccbc87e-4b5c-e2fe-2830-8fd9f2a7baf3}",
            "{eccbc87e4b5ce2fe28308fd9f2a7baf3}",
            "eccbc87e4b5c-e2fe-2830-8fd9f2a7baf3",
            "ecc-bc87e4b5ce2fe28308fd9f2a7baf3",
            "-eccbc87e4b5ce2fe28308fd9f2a7baf3",
            "eccbc87e4b5ce2fe28308fd9f2a7baf3-",
            "e-c-c-b-c-8-7-e4b5ce2fe28308fd9f2a7baf3",
        ] {
            assert_eq!(parse(ok), Some(U), "{ok}");
        }
        for no in [
            "",
            "zz",
            "{}",
            "{",
            "  eccbc87e-4b5c-e2fe-2830-8fd9f2a7baf3 ",
            "eccbc87e-4b5c-e2fe-2830-8fd9f2a7baf3x",
            "eccbc87e-4b5c-e2fe-2830-8fd9f2a7baf",
            "eccbc87e-4b5c-e2fe-2830-8fd9f2a7baf3}",
            "{eccbc87e-4b5c-e2fe-2830-8fd9f2a7baf3",
            "eccbc87e-4b5c-e2fe-2830-8fd9f2a7baf30",
            "ｅccbc87e-4b5c-e2fe-2830-8fd9f2a7baf3",
        ] {
            assert_eq!(parse(no), None, "{no:?}");
        }
    }

    #[test]
    fn canonical_text_round_trips_and_orders_as_the_bytes() {
        assert_eq!(text(&U), "eccbc87e-4b5c-e2fe-2830-8fd9f2a7baf3");
        assert_eq!(parse(&text(&U)), Some(U));
        let mut lo = U;
        lo[0] = 0x7f;
        assert!(text(&lo) < text(&U) && lo < U);
    }
}
