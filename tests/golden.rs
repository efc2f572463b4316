//! Golden vectors for the native format: the bytes of small filters are pinned in
//! `tests/golden/`, with the answers they give. Regenerate (after a deliberate format change
//! and a version bump) with `BLOOMJOIN_BLESS=1 cargo test golden`. `tests/golden/v1/` keeps
//! the integer filters as format version 1 wrote them (never regenerated): this build must
//! still read them and find their keys.

use arrow::array::{Int64Array, StringArray, Time32SecondArray, Time64NanosecondArray};
use bloomjoin::bloom::codec::{self, FilterMeta};
use bloomjoin::bloom::{BloomFilter, BloomParams, Layout};
use bloomjoin::key::KeyFamily;

use crate::util::root;

fn golden_filters() -> Vec<(&'static str, BloomFilter)> {
    let meta_free = |layout, bits, k, seed, family| {
        BloomFilter::try_new(
            BloomParams::explicit(layout, bits, k, seed).unwrap(),
            family,
        )
        .unwrap()
    };
    let mut a = meta_free(Layout::Blocked, 1024, 7, 0, KeyFamily::Integer);
    a.insert_array(&Int64Array::from((1..=20).collect::<Vec<i64>>()))
        .unwrap();
    let mut b = meta_free(Layout::Classic, 640, 5, 42, KeyFamily::Integer);
    b.insert_array(&Int64Array::from(
        (1..=20).map(|v| v * 1_000_003).collect::<Vec<i64>>(),
    ))
    .unwrap();
    let mut c = meta_free(Layout::Blocked, 2048, 3, 7, KeyFamily::Bytes);
    c.insert_array(&StringArray::from(vec!["alice", "bob", "zoë", "", "7"]))
        .unwrap();
    let mut d = meta_free(Layout::Split, 1024, 8, 0, KeyFamily::Integer);
    d.insert_array(&Int64Array::from((1..=20).collect::<Vec<i64>>()))
        .unwrap();
    let mut e = meta_free(Layout::Split, 2048, 8, 7, KeyFamily::Bytes);
    e.insert_array(&StringArray::from(vec!["alice", "bob", "zoë", "", "7"]))
        .unwrap();
    // Times of day (family 7): 1..=20 seconds after midnight, inserted in nanoseconds.
    let mut t = meta_free(Layout::Split, 1024, 8, 0, KeyFamily::Time);
    t.insert_array(&Time64NanosecondArray::from(
        (1..=20).map(|s| s * 1_000_000_000).collect::<Vec<i64>>(),
    ))
    .unwrap();
    vec![
        ("blocked_int.bjf", a),
        ("classic_int.bjf", b),
        ("blocked_str.bjf", c),
        ("split_int.bjf", d),
        ("split_str.bjf", e),
        ("split_time.bjf", t),
    ]
}

fn meta() -> FilterMeta {
    FilterMeta {
        created_by: "bloomjoin golden".into(),
        column: Some("k".into()),
        ..Default::default()
    }
}

/// The answers for integer probes 0..64 and a few strings, as a string of 0/1.
fn answers(f: &BloomFilter) -> String {
    match f.family() {
        KeyFamily::Integer => (0..64i64)
            .map(|v| {
                if f.contains_i64(
                    v * if f.params().layout == Layout::Classic {
                        1_000_003
                    } else {
                        1
                    },
                ) {
                    '1'
                } else {
                    '0'
                }
            })
            .collect(),
        KeyFamily::Bytes => [
            "alice", "bob", "zoë", "", "7", "carol", "Alice", "zoe", "8", "dave",
        ]
        .iter()
        .map(|s| {
            if f.contains_bytes(s.as_bytes()) {
                '1'
            } else {
                '0'
            }
        })
        .collect(),
        // Times of day 0..64 seconds, probed in seconds (the keys were inserted in
        // nanoseconds: one value in any unit).
        KeyFamily::Time => {
            let probes = Time32SecondArray::from((0..64).collect::<Vec<i32>>());
            let hits = f.probe_array(&probes).unwrap();
            hits.iter().map(|b| if b { '1' } else { '0' }).collect()
        }
        KeyFamily::Any | KeyFamily::Tuple | KeyFamily::Timestamp | KeyFamily::TimestampTz => {
            panic!("the native golden filters hold integer, bytes or time keys")
        }
    }
}

#[test]
fn golden_files_decode_and_reencode_byte_for_byte() {
    let dir = root().join("tests/golden");
    let bless = std::env::var_os("BLOOMJOIN_BLESS").is_some();
    for (name, f) in golden_filters() {
        let bytes = codec::encode(&f, &meta());
        let path = dir.join(name);
        let ans_path = dir.join(format!("{name}.answers"));
        if bless {
            std::fs::write(&path, &bytes).unwrap();
            std::fs::write(&ans_path, answers(&f) + "\n").unwrap();
        }
        let golden = std::fs::read(&path).unwrap();
        assert!(golden == bytes, "{name}: encoding changed");
        let (decoded, m) = codec::decode(&golden, name).unwrap();
        assert_eq!(decoded, f);
        assert_eq!(m, meta());
        let expected = std::fs::read_to_string(&ans_path).unwrap();
        assert_eq!(
            answers(&decoded),
            expected.trim(),
            "{name}: answers changed"
        );
    }
}

/// Format version 1 (before integers met by value) wrote the same bits for every key that fits
/// `i64`: this build reads its files, finds their keys, keeps hashing a `UInt64` key of 2^63
/// and more the old way (so that no key such a filter holds goes missing), writes them back
/// as version 1 byte for byte, and refuses to merge one with a version-2 filter.
#[test]
fn version_1_integer_files_still_read_and_find_their_keys() {
    let dir = root().join("tests/golden");
    let fresh = golden_filters();
    for name in ["blocked_int.bjf", "classic_int.bjf"] {
        let old = std::fs::read(dir.join("v1").join(name)).unwrap();
        assert_eq!(u16::from_le_bytes([old[8], old[9]]), 1, "{name}");
        let (f, m) = codec::decode(&old, name).unwrap();
        assert!(f.params().legacy_ints, "{name}");
        assert_eq!(m, meta());
        let expected =
            std::fs::read_to_string(dir.join("v1").join(format!("{name}.answers"))).unwrap();
        assert_eq!(answers(&f), expected.trim(), "{name}");
        assert!(
            codec::encode(&f, &m) == old,
            "{name}: not written back as version 1"
        );
        // Same bits as this build's version-2 filter of the same keys.
        let (_, new) = fresh.iter().find(|(n, _)| *n == name).unwrap();
        assert!(f.words().eq(new.words()), "{name}");
        let p = f.params();
        assert_eq!(p.hash_u64(u64::MAX), Some(p.hash_i64(-1)), "{name}");
        assert_ne!(
            new.params().hash_u64(u64::MAX),
            Some(p.hash_i64(-1)),
            "{name}"
        );
        let err = new.clone().union(&f, name).unwrap_err().to_string();
        assert!(
            err.contains("integer key form") && err.contains(name),
            "{err}"
        );
    }
}

/// A version-2 filter holding `UInt64` keys above `i64::MAX` finds them and not their two's
/// complement twins (the golden vectors of the wide form are in `docs/FORMAT.md`).
#[test]
fn version_2_filters_hold_wide_unsigned_keys_by_value() {
    use arrow::array::UInt64Array;
    let mut f = BloomFilter::try_new(
        BloomParams::explicit(Layout::Blocked, 1024, 7, 0).unwrap(),
        KeyFamily::Integer,
    )
    .unwrap();
    f.insert_array(&UInt64Array::from(vec![u64::MAX, 1 << 63, 5]))
        .unwrap();
    let bytes = codec::encode(&f, &meta());
    assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 2);
    let (g, _) = codec::decode(&bytes, "f").unwrap();
    assert!(!g.params().legacy_ints);
    let p = g.params();
    for v in [u64::MAX, 1 << 63, 5] {
        assert!(g.contains_hash(p.hash_u64(v).unwrap()), "{v}");
    }
    assert!(!g.contains_i64(-1) && !g.contains_i64(i64::MIN));
}
