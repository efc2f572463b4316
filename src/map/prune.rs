//! The first prefilter tier: skip whole row groups whose key min/max statistics cannot meet
//! the left keys' range.
//!
//! Integer keys compare by value, as in SQL, whatever their width and signedness: ranges and
//! statistics are read as `i128`, so a `UInt64` maximum of 2^63 + 1 is that number, never a
//! negative `i64`.

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Int16Type, Int32Type, Int64Type, Int8Type,
    UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use parquet::arrow::arrow_reader::statistics::StatisticsConverter;

use crate::plan::InputFile;

/// A range of integer keys, by value.
pub(crate) type KeyRange = (i128, i128);

/// The values of an integer or `Date32` array (or a dictionary of them) by value; `None` for
/// other types.
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
        _ => return None,
    })
}

/// The row groups of `rgs` in `file` whose key column `key_name` may hold a key in `range`;
/// `skipped(row_group)` is called for every other one. Row groups without usable statistics
/// are kept.
pub(crate) fn row_groups_in_range(
    file: &InputFile,
    key_name: &str,
    rgs: std::ops::Range<usize>,
    (lo, hi): KeyRange,
    mut skipped: impl FnMut(usize),
) -> Vec<usize> {
    let meta = file.parquet();
    let Ok(conv) =
        StatisticsConverter::try_new(key_name, file.schema(), meta.file_metadata().schema_descr())
    else {
        return rgs.collect();
    };
    let groups: Vec<_> = rgs.clone().map(|i| meta.row_group(i)).collect();
    let (Ok(mins), Ok(maxs)) = (
        conv.row_group_mins(groups.iter().copied()),
        conv.row_group_maxes(groups.iter().copied()),
    ) else {
        return rgs.collect();
    };
    let (Some(mins), Some(maxs)) = (values_i128(mins.as_ref()), values_i128(maxs.as_ref())) else {
        return rgs.collect();
    };
    let mut keep = Vec::new();
    for (n, rg) in rgs.enumerate() {
        let disjoint = matches!(
            (mins.get(n), maxs.get(n)),
            (Some(Some(mn)), Some(Some(mx))) if *mx < lo || *mn > hi
        );
        if disjoint {
            skipped(rg);
        } else {
            keep.push(rg);
        }
    }
    keep
}

/// The range of the non-null keys of an integer key column, by value; `None` for other
/// types and all-null columns.
pub(crate) fn key_range(col: &dyn Array) -> Option<KeyRange> {
    values_i128(col)?
        .into_iter()
        .flatten()
        .fold(None, |acc, x| union(acc, Some((x, x))))
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
}
