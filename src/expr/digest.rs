//! `md5(x)`, `sha1(x)` and `sha256(x)` of the `--where` language, as DuckDB 2.0's: the digest
//! of a string's UTF-8 bytes or of a binary value's bytes, as lowercase hexadecimal text
//! (`md5('abc')` is `'900150983cd24fb0d6963f7d28e17f72'`). NULL gives NULL. They serve
//! sampling that any engine repeats: `md5(email) < '1'` keeps a sixteenth of the emails,
//! the same ones in DuckDB, Spark (`md5`, `sha1`, `sha2(x, 256)`) and Python's `hashlib`.

use std::sync::Arc;

use arrow::array::{cast::AsArray, Array, ArrayRef, LargeStringBuilder};
use arrow::datatypes::DataType;
use sha2::Digest as _;

use super::eval::Reason;

/// The digest a function computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hash {
    Md5,
    Sha1,
    Sha256,
}

impl Hash {
    /// The function's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Hash::Md5 => "md5",
            Hash::Sha1 => "sha1",
            Hash::Sha256 => "sha256",
        }
    }

    /// The function a name (in lower case) calls.
    pub(crate) fn named(name: &str) -> Option<Hash> {
        Some(match name {
            "md5" => Hash::Md5,
            "sha1" => Hash::Sha1,
            "sha256" => Hash::Sha256,
            _ => return None,
        })
    }

    /// The digest of `bytes`, as lowercase hexadecimal, appended to `out`.
    fn hex(self, bytes: &[u8], out: &mut String) {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut push = |d: &[u8]| {
            for b in d {
                out.push(DIGITS[usize::from(b >> 4)] as char);
                out.push(DIGITS[usize::from(b & 15)] as char);
            }
        };
        match self {
            Hash::Md5 => push(&md5::Md5::digest(bytes)),
            Hash::Sha1 => push(&sha1::Sha1::digest(bytes)),
            Hash::Sha256 => push(&sha2::Sha256::digest(bytes)),
        }
    }
}

/// `h(a)`: each value's digest (`what` names `a` in messages).
pub(super) fn digest(h: Hash, a: &ArrayRef, what: &str) -> Result<ArrayRef, Reason> {
    let shown = format!("{}()", h.name());
    let a = match a.data_type() {
        DataType::Dictionary(_, values) => {
            arrow::compute::cast(a, values).map_err(|e| format!("{shown} of {what}: {e}"))?
        }
        _ => Arc::clone(a),
    };
    let mut out = LargeStringBuilder::with_capacity(a.len(), a.len() * 64);
    let mut text = String::with_capacity(64);
    let mut row = |v: Option<&[u8]>| match v {
        Some(v) => {
            text.clear();
            h.hex(v, &mut text);
            out.append_value(&text);
        }
        None => out.append_null(),
    };
    match a.data_type() {
        DataType::Utf8 => a
            .as_string::<i32>()
            .iter()
            .for_each(|v| row(v.map(str::as_bytes))),
        DataType::LargeUtf8 => a
            .as_string::<i64>()
            .iter()
            .for_each(|v| row(v.map(str::as_bytes))),
        DataType::Utf8View => a
            .as_string_view()
            .iter()
            .for_each(|v| row(v.map(str::as_bytes))),
        DataType::Binary => a.as_binary::<i32>().iter().for_each(row),
        DataType::LargeBinary => a.as_binary::<i64>().iter().for_each(row),
        DataType::BinaryView => a.as_binary_view().iter().for_each(row),
        DataType::FixedSizeBinary(_) => a.as_fixed_size_binary().iter().for_each(row),
        other => {
            return Err(format!(
                "{shown} takes a string or a binary value, {what} is {}",
                super::func::describe(other)
            ))
        }
    }
    Ok(Arc::new(out.finish()))
}
