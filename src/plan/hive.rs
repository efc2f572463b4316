//! Hive-style partition directories: `name=value` directories in a file's path are columns of
//! its rows (`sales/dt=2024-01-01/region=EU/part-0.parquet` gives every row of that file
//! `dt = DATE '2024-01-01'` and `region = 'EU'`), as Hive, Spark and DuckDB read them.
//!
//! In: the sorted locations of a side. Out: [`Partitions`], the partition columns (in the
//! order of their directories) and each file's values. Rules:
//! - Every `name=value` directory of the path as the user wrote it counts (the file name does
//!   not), split at the first `=`; both parts are percent-decoded (Spark writes `/` in a value
//!   as `%2F`). For a relative local input that is the path below the working directory (whose
//!   own directories never count), as DuckDB reads the path it is given.
//! - Either no file has such directories, or every file has the same names in the same
//!   order; anything else is an error naming two files that differ.
//! - `__HIVE_DEFAULT_PARTITION__` (Hive's and Spark's spelling of a null) is null.
//! - A column's type is the narrowest that holds every file's value: `Int64` when each is
//!   a plain integer (`-` and digits, no leading zero or `+`), `Date32` when each is
//!   `YYYY-MM-DD`, `Timestamp(µs)` when each is `YYYY-MM-DD HH:MM:SS[.ffffff]`, else `Utf8`.
//! - A `--where` conjunct (an operand of the top-level `AND`, or the whole condition) that
//!   reads partition columns only is evaluated once per file: a file where it cannot hold is
//!   not read ([`Partitions::may_pass`]).

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, Date32Array, Int64Array, RecordBatch, RecordBatchOptions, StringArray,
    TimestampMicrosecondArray,
};
use arrow::datatypes::{Field, FieldRef, Schema, SchemaRef};

use crate::error::{Error, Result};
use crate::expr::Predicate;
use crate::store::Location;

/// How Hive and Spark write a null partition value.
pub const DEFAULT_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

/// The partition columns of a side's files.
#[derive(Debug)]
pub struct Partitions {
    /// The columns, in the order of their directories.
    pub schema: SchemaRef,
    /// The files' values: row `i` is file `i`'s (in the order of the locations).
    pub values: RecordBatch,
}

/// The directories of `location`'s path, outermost first (the file name left out), as
/// stored: the local path's components below `base` (when it lies below it), or the
/// object's key's segments.
fn directories(location: &Location, base: Option<&std::path::Path>) -> Vec<String> {
    let mut parts: Vec<String> = match location.local_path() {
        Some(p) => base
            .and_then(|b| p.strip_prefix(b).ok())
            .unwrap_or(p)
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect(),
        None => location
            .path()
            .as_ref()
            .split('/')
            .map(str::to_string)
            .collect(),
    };
    parts.pop();
    parts
}

fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// The `name=value` directories of `location`'s path below `base`, decoded; a null value is
/// `None`.
fn segments(location: &Location, base: Option<&std::path::Path>) -> Vec<(String, Option<String>)> {
    directories(location, base)
        .iter()
        .filter_map(|d| {
            let (name, value) = d.split_once('=')?;
            if name.is_empty() {
                return None;
            }
            let value = (value != DEFAULT_PARTITION).then(|| decode(value));
            Some((decode(name), value))
        })
        .collect()
}

/// A plain integer: an optional `-`, then digits without a leading zero (but `0` itself).
fn plain_integer(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let plain = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && s != "-0";
    if plain {
        s.parse().ok()
    } else {
        None
    }
}

/// `YYYY-MM-DD HH:MM:SS[.f]` (a space or a `T` between them), as microseconds, when the value
/// is a whole number of them.
fn timestamp_micros(s: &str) -> Option<i64> {
    if s.len() <= 10 {
        return None;
    }
    let ns = crate::expr::parse_timestamp(s).ok()?;
    (ns % 1000 == 0).then(|| i64::try_from(ns / 1000).ok())?
}

/// The narrowest type that holds every value, and the column of them.
fn typed_column(values: &[Option<String>]) -> ArrayRef {
    let present = || values.iter().flatten();
    let all = |ok: &dyn Fn(&str) -> bool| present().all(|v| ok(v));
    if present().next().is_some() {
        if all(&|v| plain_integer(v).is_some()) {
            return Arc::new(Int64Array::from_iter(
                values.iter().map(|v| v.as_deref().and_then(plain_integer)),
            ));
        }
        let date = |v: &str| crate::expr::strict_date(v).ok();
        if all(&|v| date(v).is_some()) {
            return Arc::new(Date32Array::from_iter(
                values.iter().map(|v| v.as_deref().and_then(date)),
            ));
        }
        if all(&|v| timestamp_micros(v).is_some()) {
            return Arc::new(TimestampMicrosecondArray::from_iter(
                values
                    .iter()
                    .map(|v| v.as_deref().and_then(timestamp_micros)),
            ));
        }
    }
    Arc::new(StringArray::from_iter(values.iter().map(|v| v.as_deref())))
}

impl Partitions {
    /// The partition columns of `locations` (sorted as the side reads them), each read below
    /// its base directory (the working directory, for a relative local input), or `None`
    /// when no file's path has a `name=value` directory.
    pub fn discover(
        locations: &[Location],
        bases: &[Option<std::path::PathBuf>],
    ) -> Result<Option<Partitions>> {
        let all: Vec<Vec<(String, Option<String>)>> = locations
            .iter()
            .zip(bases)
            .map(|(l, b)| segments(l, b.as_deref()))
            .collect();
        let Some(first) = all.iter().position(|s| !s.is_empty()) else {
            return Ok(None);
        };
        let names: Vec<&String> = all[first].iter().map(|(n, _)| n).collect();
        for (i, segs) in all.iter().enumerate() {
            let these: Vec<&String> = segs.iter().map(|(n, _)| n).collect();
            if these != names {
                let list = |v: &[&String]| {
                    if v.is_empty() {
                        "none".to_string()
                    } else {
                        v.iter()
                            .map(|n| format!("{n}="))
                            .collect::<Vec<_>>()
                            .join("/")
                    }
                };
                return Err(Error::Input {
                    location: locations[i].to_string(),
                    reason: format!(
                        "its partition directories ({}) differ from those of {} ({}): every file of a side needs the same name=value directories, in the same order (or pass --no-hive-partitioning to read none of them as columns)",
                        list(&these),
                        locations[first],
                        list(&names)
                    ),
                });
            }
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = names.iter().find(|n| !seen.insert(n.as_str())) {
            return Err(Error::Input {
                location: locations[first].to_string(),
                reason: format!(
                    "two partition directories name the column {dup}: rename one (or pass --no-hive-partitioning)"
                ),
            });
        }
        let mut fields = Vec::with_capacity(names.len());
        let mut columns = Vec::with_capacity(names.len());
        for (c, name) in names.iter().enumerate() {
            let values: Vec<Option<String>> = all.iter().map(|s| s[c].1.clone()).collect();
            let column = typed_column(&values);
            fields.push(Field::new(name.as_str(), column.data_type().clone(), true));
            columns.push(column);
        }
        let schema = Arc::new(Schema::new(fields));
        let opts = RecordBatchOptions::new().with_row_count(Some(locations.len()));
        let values = RecordBatch::try_new_with_options(schema.clone(), columns, &opts)
            .map_err(|e| Error::arrow("partition values", e))?;
        Ok(Some(Partitions { schema, values }))
    }

    /// The partitions of the files at `indices` (of those discovered), in that order.
    pub fn subset(self, indices: &[usize]) -> Result<Partitions> {
        let indices =
            arrow::array::UInt32Array::from_iter_values(indices.iter().map(|i| *i as u32));
        let values = arrow::compute::take_record_batch(&self.values, &indices)
            .map_err(|e| Error::arrow("partition values", e))?;
        Ok(Partitions {
            values,
            schema: self.schema,
        })
    }

    /// The partition column `name`, when there is one.
    pub fn field(&self, name: &str) -> Option<&FieldRef> {
        self.schema.fields().iter().find(|f| f.name() == name)
    }

    /// File `file`'s value of partition column `name` (a one-row array).
    pub fn value(&self, file: usize, name: &str) -> Option<ArrayRef> {
        let i = self.schema.index_of(name).ok()?;
        Some(self.values.column(i).slice(file, 1))
    }

    /// Per file, whether a row of it may pass `predicate`: false when a conjunct of it that
    /// reads partition columns only is not true for the file's values. Each such conjunct is
    /// evaluated once, over every file's values.
    pub fn may_pass(&self, predicate: &Predicate) -> Result<Vec<bool>> {
        let mut pass = vec![true; self.values.num_rows()];
        for c in predicate.conjuncts() {
            let Some(at) = c
                .columns()
                .iter()
                .map(|n| self.schema.index_of(n).ok())
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            let batch = self
                .values
                .project(&at)
                .map_err(|e| Error::arrow("partition values", e))?;
            let holds = c.evaluate(&batch)?;
            for (p, h) in pass.iter_mut().zip(holds.values()) {
                *p &= h;
            }
        }
        Ok(pass)
    }
}

/// `value` (a one-row array) repeated `rows` times.
pub fn repeat(value: &ArrayRef, rows: usize) -> Result<ArrayRef> {
    if value.is_null(0) {
        return Ok(arrow::array::new_null_array(value.data_type(), rows));
    }
    let indices = arrow::array::UInt32Array::from(vec![0u32; rows]);
    arrow::compute::take(value.as_ref(), &indices, None)
        .map_err(|e| Error::arrow("partition value", e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::{DataType, TimeUnit};

    fn locs(paths: &[&str]) -> Vec<Location> {
        paths.iter().map(|p| Location::parse(p).unwrap()).collect()
    }

    fn discover(paths: &[&str]) -> Result<Option<Partitions>> {
        Partitions::discover(&locs(paths), &vec![None; paths.len()])
    }

    #[test]
    fn types_are_the_narrowest_for_every_value() {
        let p = discover(&[
            "/t/n=1/d=2024-01-01/ts=2024-01-01 10:00:00/s=01/p.parquet",
            "/t/n=-22/d=__HIVE_DEFAULT_PARTITION__/ts=2024-01-02T00:00:00.5/s=a%2Fb/p.parquet",
        ])
        .unwrap()
        .unwrap();
        let types: Vec<_> = p
            .schema
            .fields()
            .iter()
            .map(|f| (f.name().as_str(), f.data_type().clone()))
            .collect();
        assert_eq!(
            types,
            vec![
                ("n", DataType::Int64),
                ("d", DataType::Date32),
                ("ts", DataType::Timestamp(TimeUnit::Microsecond, None)),
                ("s", DataType::Utf8),
            ]
        );
        let s = p.value(1, "s").unwrap();
        assert_eq!(arrow::array::AsArray::as_string::<i32>(&s).value(0), "a/b");
        assert!(p.value(1, "d").unwrap().is_null(0));
        let n = p.value(1, "n").unwrap();
        assert_eq!(
            arrow::array::AsArray::as_primitive::<arrow::datatypes::Int64Type>(&n).value(0),
            -22
        );
    }

    #[test]
    fn integers_must_be_plain() {
        for (v, want) in [
            ("0", Some(0)),
            ("-7", Some(-7)),
            ("01", None),
            ("+3", None),
            ("-0", None),
            (" 5", None),
            ("99999999999999999999", None),
            ("", None),
        ] {
            assert_eq!(plain_integer(v), want, "{v:?}");
        }
        // One value that is not makes the column text.
        let p = discover(&["/t/x=1/p.parquet", "/t/x=1.5/p.parquet"])
            .unwrap()
            .unwrap();
        assert_eq!(p.schema.field(0).data_type(), &DataType::Utf8);
        let p = discover(&[
            "/t/x=2024-01-01/p.parquet",
            "/t/x=2024-01-02 10:00:00/p.parquet",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(p.schema.field(0).data_type(), &DataType::Utf8);
    }

    #[test]
    fn files_must_agree_on_their_directories() {
        assert!(discover(&["/t/a/p.parquet", "/t/b/p.parquet"])
            .unwrap()
            .is_none());
        let e = discover(&["/t/x=1/p.parquet", "/t/x=1/y=2/p.parquet"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/t/x=1/y=2/p.parquet") && e.contains("(x=/y=)") && e.contains("(x=)"),
            "{e}"
        );
        let e = discover(&["/t/p.parquet", "/t/x=1/p.parquet"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("(none)"), "{e}");
        let e = discover(&["/t/x=1/x=2/p.parquet"]).unwrap_err().to_string();
        assert!(
            e.contains("two partition directories name the column x"),
            "{e}"
        );
        // The file name is never a partition.
        assert!(discover(&["/t/x=1.parquet"]).unwrap().is_none());
    }

    #[test]
    fn directories_above_the_base_do_not_count() {
        let l = locs(&["/w=1/t/x=2/p.parquet"]);
        let p = Partitions::discover(&l, &[None]).unwrap().unwrap();
        assert_eq!(p.schema.fields().len(), 2);
        let base = Some(std::path::PathBuf::from("/w=1"));
        let p = Partitions::discover(&l, &[base]).unwrap().unwrap();
        let names: Vec<_> = p.schema.fields().iter().map(|f| f.name().clone()).collect();
        assert_eq!(names, ["x"]);
    }

    #[test]
    fn conjuncts_on_partition_columns_prune_files() {
        let p = discover(&[
            "/t/dt=2024-01-01/r=EU/p.parquet",
            "/t/dt=2024-01-02/r=US/p.parquet",
            "/t/dt=2024-01-03/r=__HIVE_DEFAULT_PARTITION__/p.parquet",
        ])
        .unwrap()
        .unwrap();
        let keep = |w: &str| -> Vec<bool> {
            let pred = Predicate::parse(w, "--where").unwrap();
            p.may_pass(&pred).unwrap()
        };
        assert_eq!(keep("dt >= DATE '2024-01-02'"), vec![false, true, true]);
        assert_eq!(keep("r = 'EU' AND amount > 3"), vec![true, false, false]);
        assert_eq!(keep("r IS NULL"), vec![false, false, true]);
        // A conjunct that reads a file column decides nothing here.
        assert_eq!(keep("r = 'EU' OR amount > 3"), vec![true, true, true]);
        assert_eq!(keep("amount > 3"), vec![true, true, true]);
        // Conjuncts of no column decide for every file.
        assert_eq!(keep("FALSE"), vec![false, false, false]);
        assert_eq!(keep("1 = 1 AND r = 'US'"), vec![false, true, false]);
        assert_eq!(
            keep("NOT (r <> 'US') AND dt < DATE '2024-01-03'"),
            vec![false, true, false]
        );
    }
}
