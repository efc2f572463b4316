//! The first prefilter tier: skip whole row groups whose key min/max statistics cannot meet
//! the left keys' range.
//!
//! Integer keys compare by value, as in SQL, whatever their width and signedness: ranges and
//! statistics are read as `i128`, so a `UInt64` maximum of 2^63 + 1 is that number, never a
//! negative `i64`.

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{
    ArrowNumericType, ArrowPrimitiveType, DataType, Date32Type, Int16Type, Int32Type, Int64Type,
    Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use parquet::arrow::arrow_reader::statistics::StatisticsConverter;

use crate::plan::InputFile;

/// A range of integer keys, by value.
pub(crate) type KeyRange = (i128, i128);

/// The values of an integer, `Date32`, timestamp or time-of-day array (or a dictionary of
/// them) by value (timestamps and times in nanoseconds); `None` for other types.
fn values_i128(a: &dyn Array) -> Option<Vec<Option<i128>>> {
    fn of<T: ArrowPrimitiveType>(a: &dyn Array) -> Vec<Option<i128>>
    where
        T::Native: Into<i128>,
    {
        a.as_primitive::<T>()
            .iter()
            .map(|v| v.map(Into::into))
            .collect()
    }
    let unpacked: ArrayRef;
    let a = match a.data_type() {
        DataType::Dictionary(_, v) => {
            unpacked = arrow::compute::cast(a, v).ok()?;
            unpacked.as_ref()
        }
        _ => a,
    };
    Some(match a.data_type() {
        DataType::Int8 => of::<Int8Type>(a),
        DataType::Int16 => of::<Int16Type>(a),
        DataType::Int32 => of::<Int32Type>(a),
        DataType::Int64 => of::<Int64Type>(a),
        DataType::UInt8 => of::<UInt8Type>(a),
        DataType::UInt16 => of::<UInt16Type>(a),
        DataType::UInt32 => of::<UInt32Type>(a),
        DataType::UInt64 => of::<UInt64Type>(a),
        DataType::Date32 => of::<Date32Type>(a),
        // Timestamps and times of day by value in nanoseconds, whatever their unit (the left
        // and right keys of a join may differ in unit; both are of one family).
        DataType::Timestamp(..) | DataType::Time32(_) | DataType::Time64(_) => {
            let (raw, unit) = stored_ns(a)?;
            raw.as_primitive::<Int64Type>()
                .iter()
                .map(|v| v.map(|v| v as i128 * unit))
                .collect()
        }
        _ => return None,
    })
}

/// The stored integers of a timestamp or time-of-day array as `Int64`, and the nanoseconds
/// of its unit; `None` for other types.
fn stored_ns(a: &dyn Array) -> Option<(ArrayRef, i128)> {
    let (unit, raw) = match a.data_type() {
        DataType::Timestamp(u, _) | DataType::Time64(u) => (u, DataType::Int64),
        DataType::Time32(u) => (u, DataType::Int32),
        _ => return None,
    };
    let raw = arrow::compute::cast(a, &raw).ok()?;
    let raw = arrow::compute::cast(&raw, &DataType::Int64).ok()?;
    Some((raw, crate::key::unit_ns(unit) as i128))
}

/// The row groups of `rgs` in `file` whose key column `key_name` may hold a key in `range`
/// (or, with `keep_nulls`, a null: under `--nulls-equal` a null may match);
/// `skipped(row_group)` is called for every other one. Row groups without usable statistics
/// are kept.
pub(crate) fn row_groups_in_range(
    file: &InputFile,
    key_name: &str,
    rgs: Vec<usize>,
    (lo, hi): KeyRange,
    keep_nulls: bool,
    mut skipped: impl FnMut(usize),
) -> Vec<usize> {
    let meta = file.parquet();
    let Ok(conv) =
        StatisticsConverter::try_new(key_name, file.schema(), meta.file_metadata().schema_descr())
    else {
        return rgs;
    };
    let groups: Vec<_> = rgs.iter().map(|i| meta.row_group(*i)).collect();
    let (Ok(mins), Ok(maxs)) = (
        conv.row_group_mins(groups.iter().copied()),
        conv.row_group_maxes(groups.iter().copied()),
    ) else {
        return rgs;
    };
    let (Some(mins), Some(maxs)) = (values_i128(mins.as_ref()), values_i128(maxs.as_ref())) else {
        return rgs;
    };
    // Under --nulls-equal a row group whose null count is not known to be 0 may hold a
    // null key.
    let no_nulls: Option<Vec<bool>> = match keep_nulls {
        false => None,
        true => match conv.row_group_null_counts(groups.iter().copied()) {
            Ok(c) => Some(
                (0..rgs.len())
                    .map(|n| c.is_valid(n) && c.value(n) == 0)
                    .collect(),
            ),
            Err(_) => return rgs,
        },
    };
    let mut keep = Vec::new();
    for (n, rg) in rgs.into_iter().enumerate() {
        let disjoint = matches!(
            (mins.get(n), maxs.get(n)),
            (Some(Some(mn)), Some(Some(mx))) if *mx < lo || *mn > hi
        ) && no_nulls.as_ref().is_none_or(|z| z[n]);
        if disjoint {
            skipped(rg);
        } else {
            keep.push(rg);
        }
    }
    keep
}

/// The most distinct keys a key of `columns` (one, or a tuple's components) in `files` can
/// hold: one column's [`distinct_bound`]; a tuple's, at most the product of its columns'
/// bounds and at most the `rows` of the files.
pub(crate) fn key_distinct_bound(
    files: &[std::sync::Arc<InputFile>],
    columns: &[String],
    rows: u64,
) -> u64 {
    match columns {
        [one] => distinct_bound(files, one),
        many => many
            .iter()
            .map(|c| distinct_bound(files, c))
            .fold(1u64, u64::saturating_mul)
            .min(rows),
    }
}

/// The most distinct non-null keys the integer (or `Date32`) column `key_name` of `files` can
/// hold, from the footers alone: a row group holds at most its rows and at most `max - min + 1`
/// values, and all of them together at most the length of the union of their ranges. Row
/// groups without statistics count their rows; other key types count rows.
pub(crate) fn distinct_bound(files: &[std::sync::Arc<InputFile>], key_name: &str) -> u64 {
    let mut total: u64 = 0;
    let mut ranges: Option<Vec<KeyRange>> = Some(Vec::new());
    for file in files {
        let meta = file.parquet();
        let rgs = 0..file.num_row_groups();
        let stats = StatisticsConverter::try_new(
            key_name,
            file.schema(),
            meta.file_metadata().schema_descr(),
        )
        .ok()
        .and_then(|conv| {
            let groups: Vec<_> = rgs.clone().map(|i| meta.row_group(i)).collect();
            let mins = conv.row_group_mins(groups.iter().copied()).ok()?;
            let maxs = conv.row_group_maxes(groups.iter().copied()).ok()?;
            Some((values_i128(mins.as_ref())?, values_i128(maxs.as_ref())?))
        });
        for rg in rgs {
            let rows = file.row_group_rows(rg);
            let range = stats.as_ref().and_then(|(mins, maxs)| {
                match (
                    mins.get(rg).copied().flatten(),
                    maxs.get(rg).copied().flatten(),
                ) {
                    (Some(lo), Some(hi)) if lo <= hi => Some((lo, hi)),
                    _ => None,
                }
            });
            match range {
                Some((lo, hi)) => {
                    let len = u64::try_from(hi - lo + 1).unwrap_or(u64::MAX);
                    total = total.saturating_add(rows.min(len));
                    if let Some(r) = ranges.as_mut() {
                        r.push((lo, hi));
                    }
                }
                None => {
                    total = total.saturating_add(rows);
                    // A row group with rows but no range: the union no longer bounds.
                    if rows > 0 {
                        ranges = None;
                    }
                }
            }
        }
    }
    if let Some(mut r) = ranges {
        r.sort_unstable();
        let mut union_len: u128 = 0;
        let mut cur: Option<KeyRange> = None;
        for (lo, hi) in r {
            cur = match cur {
                Some((clo, chi)) if lo <= chi.saturating_add(1) => Some((clo, chi.max(hi))),
                Some((clo, chi)) => {
                    union_len += (chi - clo + 1) as u128;
                    Some((lo, hi))
                }
                None => Some((lo, hi)),
            };
        }
        if let Some((clo, chi)) = cur {
            union_len += (chi - clo + 1) as u128;
        }
        total = total.min(u64::try_from(union_len).unwrap_or(u64::MAX));
    }
    total
}

/// The range of the non-null keys of an integer key column, by value (timestamps and times
/// of day in nanoseconds); `None` for other types and all-null columns. With arrow's min/max kernels:
/// no copy of the keys (a 10M-key array was 320 MB of `Option<i128>`).
pub(crate) fn key_range(col: &dyn Array) -> Option<KeyRange> {
    fn range<T: ArrowNumericType>(a: &dyn Array, scale: i128) -> Option<KeyRange>
    where
        T::Native: Into<i128>,
    {
        let a = a.as_primitive::<T>();
        let (lo, hi) = (arrow::compute::min(a)?, arrow::compute::max(a)?);
        Some((lo.into() * scale, hi.into() * scale))
    }
    let unpacked: ArrayRef;
    let a = match col.data_type() {
        DataType::Dictionary(_, v) => {
            unpacked = arrow::compute::cast(col, v).ok()?;
            unpacked.as_ref()
        }
        _ => col,
    };
    match a.data_type() {
        DataType::Int8 => range::<Int8Type>(a, 1),
        DataType::Int16 => range::<Int16Type>(a, 1),
        DataType::Int32 => range::<Int32Type>(a, 1),
        DataType::Int64 => range::<Int64Type>(a, 1),
        DataType::UInt8 => range::<UInt8Type>(a, 1),
        DataType::UInt16 => range::<UInt16Type>(a, 1),
        DataType::UInt32 => range::<UInt32Type>(a, 1),
        DataType::UInt64 => range::<UInt64Type>(a, 1),
        DataType::Date32 => range::<Date32Type>(a, 1),
        // Instants and times of day in nanoseconds, whatever the unit: the order of the
        // stored integers.
        DataType::Timestamp(..) | DataType::Time32(_) | DataType::Time64(_) => {
            let (raw, unit) = stored_ns(a)?;
            range::<Int64Type>(raw.as_ref(), unit)
        }
        _ => None,
    }
}

/// The union of two key ranges.
pub(crate) fn union(a: Option<KeyRange>, b: Option<KeyRange>) -> Option<KeyRange> {
    match (a, b) {
        (Some((l1, h1)), Some((l2, h2))) => Some((l1.min(l2), h1.max(h2))),
        (x, None) | (None, x) => x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, UInt64Array};
    use std::sync::Arc;

    /// Issue 12, defect 1: a UInt64 maximum of 2^63 + 1 read as i64 was negative, so the row
    /// group looked disjoint from left keys 5..7 and was skipped.
    #[test]
    fn unsigned_statistics_and_keys_compare_by_value() {
        let big = (1u64 << 63) + 1;
        let right = UInt64Array::from(vec![5, big, 7]);
        assert_eq!(key_range(&right), Some((5, big as i128)));
        let left = Int64Array::from(vec![Some(7), None, Some(5), Some(-3)]);
        assert_eq!(key_range(&left), Some((-3, 7)));
        assert_eq!(key_range(&Int64Array::from(vec![None, None])), None);
        let u = UInt64Array::from(vec![u64::MAX]);
        assert_eq!(key_range(&u), Some((u64::MAX as i128, u64::MAX as i128)));
        assert_eq!(union(Some((1, 2)), Some((-5, 0))), Some((-5, 2)));
    }

    /// Issue 16: timestamp ranges are instants in nanoseconds, whatever the unit, so a
    /// millisecond left side prunes a nanosecond right side by value.
    #[test]
    fn timestamp_ranges_are_nanoseconds() {
        use arrow::array::{
            TimestampMillisecondArray, TimestampNanosecondArray, TimestampSecondArray,
        };
        let ms = TimestampMillisecondArray::from(vec![Some(1_500), None, Some(-1_000)]);
        assert_eq!(key_range(&ms), Some((-1_000_000_000, 1_500_000_000)));
        let ns = TimestampNanosecondArray::from(vec![1_500_000_001]).with_timezone("UTC");
        assert_eq!(key_range(&ns), Some((1_500_000_001, 1_500_000_001)));
        let s = TimestampSecondArray::from(vec![i64::MAX, i64::MIN]);
        let far = i64::MAX as i128 * 1_000_000_000;
        assert_eq!(key_range(&s), Some((i64::MIN as i128 * 1_000_000_000, far)));
        let dir = tempfile::tempdir().unwrap();
        // Row groups [0 s, 1 s] and [3 s, 4 s] against left keys 1.5 s to 2.5 s: both out.
        let f = write(
            &dir.path().join("t.parquet"),
            Arc::new(TimestampSecondArray::from(vec![0, 1, 3, 4])),
            2,
        );
        let mut skipped = Vec::new();
        let kept = row_groups_in_range(
            &f,
            "k",
            vec![0, 1],
            (1_500_000_000, 2_500_000_000),
            false,
            |rg| skipped.push(rg),
        );
        assert_eq!((kept, skipped), (vec![], vec![0, 1]));
        let kept = row_groups_in_range(
            &f,
            "k",
            vec![0, 1],
            (1_000_000_000, 1_000_000_000),
            false,
            |_| {},
        );
        assert_eq!(kept, vec![0]);
    }

    /// Times of day: ranges and row-group statistics in nanoseconds since midnight, whatever
    /// the unit (a `Time32(s)` column's statistics, stored in milliseconds, read as seconds).
    #[test]
    fn time_ranges_are_nanoseconds() {
        use arrow::array::{Time32SecondArray, Time64MicrosecondArray};
        let us = Time64MicrosecondArray::from(vec![Some(1_500_000), None, Some(7)]);
        assert_eq!(key_range(&us), Some((7_000, 1_500_000_000)));
        assert_eq!(
            key_range(&Time64MicrosecondArray::from(vec![None, None])),
            None
        );
        let dir = tempfile::tempdir().unwrap();
        // Row groups [0 s, 1 s] and [3 s, 4 s] against left keys 1.5 s to 3 s: the first out.
        let f = write(
            &dir.path().join("t.parquet"),
            Arc::new(Time32SecondArray::from(vec![0, 1, 3, 4])),
            2,
        );
        let mut skipped = Vec::new();
        let kept = row_groups_in_range(
            &f,
            "k",
            vec![0, 1],
            (1_500_000_000, 3_000_000_000),
            false,
            |rg| skipped.push(rg),
        );
        assert_eq!((kept, skipped), (vec![1], vec![0]));
    }

    fn write(path: &std::path::Path, col: ArrayRef, rg_rows: usize) -> std::sync::Arc<InputFile> {
        let batch = arrow::array::RecordBatch::try_from_iter([("k", col)]).unwrap();
        let props = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(rg_rows))
            .build();
        let file = std::fs::File::create(path).unwrap();
        let mut w =
            parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let loc = crate::store::Location::parse(&path.to_string_lossy()).unwrap();
        std::sync::Arc::new(InputFile::open(loc).unwrap())
    }

    /// The one-pass training's starting size: rows, row-group ranges and their union bound
    /// the distinct keys; unsigned keys by value; strings count rows.
    #[test]
    fn distinct_bound_from_footers() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        // Row groups 0..999 and 500..1499 (1000 rows each): the union has 1500 values.
        let keys: Vec<i64> = (0..1000).chain(500..1500).collect();
        let a = write(&d.join("a.parquet"), Arc::new(Int64Array::from(keys)), 1000);
        assert_eq!(distinct_bound(std::slice::from_ref(&a), "k"), 1500);
        // 3000 rows of 10 values (and nulls) in row groups of 1000: 10.
        let keys: Vec<Option<i64>> = (0..3000).map(|i| (i % 7 != 0).then_some(i % 10)).collect();
        let b = write(&d.join("b.parquet"), Arc::new(Int64Array::from(keys)), 1000);
        assert_eq!(distinct_bound(std::slice::from_ref(&b), "k"), 10);
        // Both files: the union of ranges 0..1499.
        assert_eq!(distinct_bound(&[a, b], "k"), 1500);
        // UInt64 near the top of its range: by value, 4 values in 5 rows.
        let big = u64::MAX - 3;
        let u = UInt64Array::from(vec![big, big + 1, big + 2, big + 3, big]);
        let u = write(&d.join("u.parquet"), Arc::new(u), 10);
        assert_eq!(distinct_bound(&[u], "k"), 4);
        // Strings: no range, the rows.
        let s = arrow::array::StringArray::from(vec!["a", "b", "a"]);
        let s = write(&d.join("s.parquet"), Arc::new(s), 10);
        assert_eq!(distinct_bound(&[s], "k"), 3);
    }
}
