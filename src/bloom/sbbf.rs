//! Parquet's split-block Bloom filters (SBBF): the per-column-chunk filters of the Parquet
//! format, written into our outputs and read from our inputs.
//!
//! The format (parquet-format `BloomFilter.md`) fixes everything: 256-bit blocks of eight
//! 32-bit words, k = 8 with the spec's salts, XXH64 with seed 0 of the value's *plain
//! encoding*. The encoding depends on the column's physical type: an INT32 column hashes 4
//! little-endian bytes, INT64 8, BYTE_ARRAY the bytes without the length prefix. Writing and
//! reading go through the parquet crate ([`parquet::bloom_filter::Sbbf`] and its writer
//! properties); this module only says which columns get one and how our keys are hashed.

use parquet::file::properties::WriterPropertiesBuilder;
use parquet::schema::types::ColumnPath;

use crate::error::{Error, Result};

/// The default false-positive rate of the filters we write (`--bloom-fpp`).
pub const DEFAULT_FPP: f64 = 0.01;

/// Which columns of a Parquet file we write get an SBBF per row group, and at what rate.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WriteBlooms {
    /// Top-level column names (primitive columns).
    pub columns: Vec<String>,
    /// Target false-positive rate of each filter.
    pub fpp: f64,
}

impl WriteBlooms {
    /// No filters.
    pub fn none() -> Self {
        WriteBlooms {
            columns: Vec::new(),
            fpp: DEFAULT_FPP,
        }
    }

    /// Turn the filters on in a writer's properties. The parquet crate sizes each filter for
    /// the row group's largest row count, inserts the chunk's values and then folds it down to
    /// the smallest size that still meets `fpp` for the values actually written.
    pub fn apply(&self, mut b: WriterPropertiesBuilder) -> WriterPropertiesBuilder {
        for c in &self.columns {
            let path = ColumnPath::from(c.as_str());
            b = b
                .set_column_bloom_filter_enabled(path.clone(), true)
                .set_column_bloom_filter_fpp(path, self.fpp);
        }
        b
    }
}

/// Parse `--bloom-columns`: `none` (no filters) or comma-separated column names. `None` for
/// the default (decided by the caller).
pub fn parse_columns(list: Option<&str>, name: &str) -> Result<Option<Vec<String>>> {
    let Some(list) = list else {
        return Ok(None);
    };
    if list.trim().eq_ignore_ascii_case("none") {
        return Ok(Some(Vec::new()));
    }
    let mut out: Vec<String> = Vec::new();
    for item in list.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(Error::param(
                name,
                format!("{list:?} has an empty column name"),
            ));
        }
        if !out.iter().any(|c| c == item) {
            out.push(item.to_string());
        }
    }
    Ok(Some(out))
}

/// Check `--bloom-fpp`.
pub fn check_fpp(fpp: f64, name: &str) -> Result<f64> {
    if fpp.is_finite() && fpp > 0.0 && fpp < 1.0 {
        Ok(fpp)
    } else {
        Err(Error::param(
            name,
            format!("{fpp} must be between 0 and 1 (exclusive)"),
        ))
    }
}

/// Check that every column of `columns` is a primitive column of `schema` (what `what`
/// names in the message, e.g. "an output column").
pub fn check_columns(
    columns: &[String],
    schema: &arrow::datatypes::Schema,
    what: &str,
    name: &str,
) -> Result<()> {
    for c in columns {
        let Ok(field) = schema.field_with_name(c) else {
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            return Err(Error::param(
                name,
                format!("{c:?} is not {what} (they are: {})", names.join(", ")),
            ));
        };
        if field.data_type().is_nested() {
            return Err(Error::param(
                name,
                format!(
                    "{c:?} is a {} column; Bloom filters cover primitive columns",
                    field.data_type()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_parse() {
        assert_eq!(parse_columns(None, "--bloom-columns").unwrap(), None);
        assert_eq!(
            parse_columns(Some("NONE"), "--bloom-columns").unwrap(),
            Some(vec![])
        );
        assert_eq!(
            parse_columns(Some("a, b,a"), "--bloom-columns").unwrap(),
            Some(vec!["a".to_string(), "b".to_string()])
        );
        let e = parse_columns(Some("a,,b"), "--bloom-columns").unwrap_err();
        assert!(e.to_string().contains("--bloom-columns"), "{e}");
        for bad in [0.0, 1.0, -0.5, f64::NAN] {
            assert!(check_fpp(bad, "--bloom-fpp").is_err(), "{bad}");
        }
        assert_eq!(check_fpp(0.01, "--bloom-fpp").unwrap(), 0.01);
    }
}
