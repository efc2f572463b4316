//! Golden vectors for the native format: the bytes of small filters are pinned in
//! `tests/golden/`, with the answers they give. Regenerate (after a deliberate format change
//! and a version bump) with `BLOOMJOIN_BLESS=1 cargo test golden`.

use arrow::array::{Int64Array, StringArray};
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
    vec![
        ("blocked_int.bjf", a),
        ("classic_int.bjf", b),
        ("blocked_str.bjf", c),
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
        KeyFamily::Any => panic!("the native golden filters record their key family"),
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
