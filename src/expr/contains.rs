//! `x LIKE '%lit%'` without calling the substring search once per value.
//!
//! Arrow's `like` kernel runs `memmem` on every value: for short values (a TPC-H `p_name` is
//! about 33 bytes) the search's setup costs more than the search, and it was 20 % of the
//! CPU of `train --where "p_name LIKE '%green%'"`. Here the search runs over the values'
//! bytes as they lie in the array's buffers, from the start of a value to the next match,
//! which it then gives to the value that holds it: one long SIMD search per run of values
//! that do not match, instead of one short one per value.
//!
//! A match that crosses the end of a value belongs to no value; the search then restarts at
//! the next value's start, so overlapping candidates are not skipped. Values not laid out in
//! order (a view array whose views point backwards, e.g. into a dictionary) are searched one
//! by one.

use arrow::array::{Array, AsArray, BooleanArray, GenericStringArray, OffsetSizeTrait};
use arrow::buffer::BooleanBuffer;
use arrow::datatypes::DataType;
use memchr::memmem::Finder;

/// The literal of a `LIKE` pattern of the form `%lit%` (no other wildcard, no escape, `lit`
/// not empty); `None` for any other pattern.
pub(super) fn contains_literal(pattern: &str) -> Option<&str> {
    let lit = pattern.strip_prefix('%')?.strip_suffix('%')?;
    (!lit.is_empty() && !lit.contains(['%', '_', '\\'])).then_some(lit)
}

/// `array LIKE '%needle%'` (or `NOT LIKE` when `negated`) for string arrays: null where the
/// value is null. `None` for other types (the caller uses Arrow's kernel).
pub(super) fn like_contains(
    array: &dyn Array,
    needle: &str,
    negated: bool,
) -> Option<BooleanArray> {
    let finder = Finder::new(needle.as_bytes());
    let found = match array.data_type() {
        DataType::Utf8 => contiguous(array.as_string::<i32>(), &finder),
        DataType::LargeUtf8 => contiguous(array.as_string::<i64>(), &finder),
        DataType::Utf8View => views(array, &finder),
        _ => return None,
    };
    let values = if negated { !&found } else { found };
    Some(BooleanArray::new(values, array.logical_nulls()))
}

/// Values stored back to back (`Utf8`, `LargeUtf8`).
fn contiguous<O: OffsetSizeTrait>(a: &GenericStringArray<O>, finder: &Finder) -> BooleanBuffer {
    let offsets: Vec<usize> = a.value_offsets().iter().map(|o| o.as_usize()).collect();
    let data = a.value_data();
    let mut out = vec![false; a.len()];
    let mut row = 0;
    while row < a.len() {
        // Search from this value's start to the next match anywhere after it.
        let Some(at) = finder.find(&data[offsets[row]..offsets[a.len()]]) else {
            break;
        };
        let at = offsets[row] + at;
        // The value that holds the match's start (offsets never decrease).
        row += offsets[row + 1..].partition_point(|&end| end <= at);
        if at + finder.needle().len() <= offsets[row + 1] {
            out[row] = true;
        }
        // Either way, this value is decided: a later match inside it would end after a match
        // that already crosses its end.
        row += 1;
    }
    BooleanBuffer::from(out)
}

/// `Utf8View`: values of up to 12 bytes are in their views; longer ones in data buffers,
/// searched as runs while the views point forward through a buffer (as a Parquet reader lays
/// them out), one value at a time where a view points back.
///
/// One plain loop over the views that packs the answers 64 to a word. A search runs from a
/// value's start over at most [`WINDOW`] bytes of its buffer, so that the last one of an array
/// (a slice of a large buffer, or a batch of a page) stops soon after its values: the state is
/// the last search's buffer `cur`, start `from`, end `to` and first match `at` (`NONE`: none
/// starts in `from..to - n`). (An earlier form first measured how far the values reach in each
/// buffer, a second pass over the views: a third of the predicate's CPU in
/// `train --where "p_name LIKE '%green%'"`.)
fn views(array: &dyn Array, finder: &Finder) -> BooleanBuffer {
    windowed_views(array, finder, WINDOW)
}

/// [`views`] with searches of at most `window` bytes (tests use small ones, so that values
/// cross the searches' ends).
fn windowed_views(array: &dyn Array, finder: &Finder, window: usize) -> BooleanBuffer {
    const NONE: usize = usize::MAX;
    let a = array.as_string_view();
    let views = a.views();
    let buffers = a.data_buffers();
    let n = finder.needle().len();
    let (mut cur, mut from, mut to, mut at) = (u32::MAX, 0usize, 0usize, NONE);
    let mut words = Vec::with_capacity(views.len().div_ceil(64));
    for chunk in views.chunks(64) {
        let mut word = 0u64;
        for (j, &view) in chunk.iter().enumerate() {
            let len = view as u32 as usize;
            let hit = if len < n {
                false
            } else if len <= 12 {
                finder.find(&view.to_le_bytes()[4..4 + len]).is_some()
            } else {
                let (b, s) = ((view >> 64) as u32, (view >> 96) as u32 as usize);
                let data = buffers[b as usize].as_slice();
                if b == cur && s < from {
                    // Pointing back: this value alone, the run's state kept.
                    finder.find(&data[s..s + len]).is_some()
                } else {
                    // Unless the last search decided this value, search from its start.
                    let decided = b == cur && if at == NONE { s + len <= to } else { s <= at };
                    if !decided {
                        cur = b;
                        from = s;
                        to = data.len().min(s + window.max(len));
                        at = finder.find(&data[s..to]).map_or(NONE, |p| s + p);
                    }
                    at != NONE && at + n <= s + len
                }
            };
            word |= (hit as u64) << j;
        }
        words.push(word);
    }
    BooleanBuffer::new(words.into(), 0, views.len())
}

/// The most bytes one search of [`views`] covers past a value's start.
const WINDOW: usize = 4 << 10;

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{
        ArrayRef, LargeStringArray, StringArray, StringViewArray, StringViewBuilder,
    };
    use arrow::compute::kernels::comparison::{like, nlike};
    use arrow::datatypes::DataType;
    use proptest::prelude::*;
    use std::sync::Arc;

    #[test]
    fn patterns_of_the_fast_path() {
        assert_eq!(contains_literal("%green%"), Some("green"));
        assert_eq!(contains_literal("%a b%"), Some("a b"));
        for other in [
            "green", "%green", "green%", "%%", "%", "%gr_en%", "%gr%en%", "%a\\%b%",
        ] {
            assert_eq!(contains_literal(other), None, "{other}");
        }
    }

    /// Arrow's kernel on the same array and pattern.
    fn arrow_like(a: &ArrayRef, needle: &str, negated: bool) -> BooleanArray {
        let pat = arrow::compute::cast(
            &(Arc::new(StringArray::from(vec![format!("%{needle}%")])) as ArrayRef),
            a.data_type(),
        )
        .unwrap();
        let pat = arrow::array::Scalar::new(pat);
        if negated {
            nlike(a, &pat)
        } else {
            like(a, &pat)
        }
        .unwrap()
    }

    #[test]
    fn a_match_across_two_values_does_not_hide_one_inside_the_second() {
        let a: ArrayRef = Arc::new(StringArray::from(vec!["xa", "aa", "ba", "ab"]));
        let got = like_contains(&a, "aa", false).unwrap();
        assert_eq!(got, BooleanArray::from(vec![false, true, false, false]));
        let v: ArrayRef = Arc::new(StringViewArray::from(vec![
            "aaaaaaaaaaaaaaaaaaaaxa",
            "aaaaaaaaaaaaaaaaaaaaaa",
            "short aa",
        ]));
        let got = like_contains(&v, "aa", false).unwrap();
        assert_eq!(got, arrow_like(&v, "aa", false));
    }

    /// Every way a search's end can fall: values of `b` of many lengths, each with or
    /// without `xa` in some place, against windows of 1 to 60 bytes.
    #[test]
    fn searches_ending_anywhere_decide_every_value() {
        let mut values = Vec::new();
        for len in 13..40usize {
            for at in [None, Some(0), Some(len / 2), Some(len - 2)] {
                let mut v = vec![b'b'; len];
                if let Some(i) = at {
                    v[i] = b'x';
                    v[i + 1] = b'a';
                }
                values.push(String::from_utf8(v).unwrap());
            }
        }
        let view: ArrayRef = Arc::new(StringViewArray::from_iter_values(&values));
        let finder = Finder::new(b"xa");
        let want = arrow_like(&view, "xa", false);
        for window in 1..60 {
            let got = BooleanArray::new(windowed_views(&view, &finder, window), None);
            assert_eq!(got, want, "window {window}");
        }
    }

    fn value() -> impl Strategy<Value = Option<String>> {
        // A small alphabet, so that matches, overlaps and matches across values are common;
        // lengths around the 12-byte inline limit of views.
        proptest::option::weighted(0.9, "[abø]{0,20}")
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// The same answers (values and nulls) as Arrow's `like`/`nlike`, for every string
        /// type, sliced arrays, views that point backwards and views spread over many buffers
        /// (as a Parquet reader makes them, a buffer per page).
        #[test]
        fn equals_arrows_like(
            values in proptest::collection::vec(value(), 0..40),
            needle in "[abø]{1,4}",
            slice in (0usize..5, 0usize..5),
            negated: bool,
            layout in 0u8..3,
        ) {
            let utf8: ArrayRef = Arc::new(StringArray::from(values.clone()));
            let large: ArrayRef = Arc::new(LargeStringArray::from(values.clone()));
            let view: ArrayRef = match layout {
                0 => Arc::new(StringViewArray::from(values.clone())),
                1 => {
                    // Views into one buffer, but in reverse order of their data.
                    let rev: Vec<Option<String>> = values.iter().rev().cloned().collect();
                    let built = StringViewArray::from(rev);
                    let idx: Vec<u32> = (0..values.len() as u32).rev().collect();
                    arrow::compute::take(&built, &arrow::array::UInt32Array::from(idx), None)
                        .unwrap()
                }
                _ => {
                    // Buffers of 32 bytes: a few long values each.
                    let mut b = StringViewBuilder::new().with_fixed_block_size(32);
                    b.extend(values.iter().cloned());
                    Arc::new(b.finish())
                }
            };
            let (lo, cut) = slice;
            for a in [utf8, large, view.clone()] {
                let lo = lo.min(a.len());
                let len = (a.len() - lo).saturating_sub(cut);
                let a = a.slice(lo, len);
                let got = like_contains(&a, &needle, negated).unwrap();
                prop_assert_eq!(&got, &arrow_like(&a, &needle, negated), "{:?}", a.data_type());
            }
            // Searches that end inside values, the needle or the next value.
            let want = arrow_like(&view, &needle, false);
            let finder = Finder::new(needle.as_bytes());
            for window in [1, 2, 3, 5, 8, 13, 21, 40] {
                let got = BooleanArray::new(windowed_views(&view, &finder, window), view.logical_nulls());
                prop_assert_eq!(&got, &want, "window {}", window);
            }
        }
    }

    #[test]
    fn other_types_are_left_to_arrow() {
        let a: ArrayRef = Arc::new(arrow::array::Int32Array::from(vec![1]));
        assert!(like_contains(&a, "1", false).is_none());
        assert_eq!(
            DataType::Utf8View,
            StringViewArray::from(vec!["a"]).data_type().clone()
        );
    }
}
