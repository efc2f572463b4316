//! `inspect`, `probe` and `merge` through the binary, on filters built with the library.

use std::path::Path;

use arrow::array::{Int64Array, StringArray};
use bloomjoin::bloom::codec::{self, FilterMeta};
use bloomjoin::bloom::{BloomFilter, BloomParams, Layout};
use bloomjoin::key::KeyFamily;

use crate::util::{files_below, run_in, run_stdin};

fn write_int_filter(path: &Path, keys: &[i64], seed: u64, shard: Option<&str>) {
    let params = BloomParams::for_items(Layout::Blocked, 1000, 0.01, seed).unwrap();
    let mut f = BloomFilter::try_new(params, KeyFamily::Integer).unwrap();
    f.insert_array(&Int64Array::from(keys.to_vec())).unwrap();
    let meta = FilterMeta {
        column: Some("id".into()),
        shard: shard.map(str::to_string),
        ..FilterMeta::new()
    };
    std::fs::write(path, codec::encode(&f, &meta)).unwrap();
}

#[test]
fn inspect_table_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f.bjf");
    write_int_filter(&p, &(0..500).collect::<Vec<_>>(), 9, None);
    let out = run_in(dir.path(), &["inspect", "f.bjf"]).ok();
    for needle in [
        "layout        blocked",
        "hashes (k)",
        "seed          9",
        "key family    integer",
        "inserted      500",
        "fill ratio",
        "est. fpp",
        "size",
        "column        id",
    ] {
        assert!(out.contains(needle), "{needle:?} missing from\n{out}");
    }
    let json = run_in(dir.path(), &["inspect", "f.bjf", "--json"]).ok();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["layout"], "blocked");
    assert_eq!(v["seed"], 9);
    assert_eq!(v["inserted"], 500);
    assert_eq!(v["key_family"], "integer");
    assert_eq!(v["metadata"]["column"], "id");
    let est = v["estimated_distinct"].as_u64().unwrap();
    assert!((450..=550).contains(&est), "{est}");
    assert!(v["estimated_fpp"].as_f64().unwrap() < 0.01);
    assert_eq!(
        v["file_bytes"].as_u64().unwrap(),
        std::fs::metadata(&p).unwrap().len()
    );
}

#[test]
fn probe_answers_per_line() {
    let dir = tempfile::tempdir().unwrap();
    write_int_filter(&dir.path().join("f.bjf"), &[1, 2, 3], 0, None);
    let out = run_stdin(dir.path(), &["probe", "--filter", "f.bjf"], "1\n2\n3\n").ok();
    assert_eq!(out, "maybe\nmaybe\nmaybe\n");
    // Absent keys: nearly all "no" at p = 1 %.
    let absent: String = (1000..2000).map(|i| format!("{i}\n")).collect();
    std::fs::write(dir.path().join("keys.txt"), &absent).unwrap();
    let out = run_in(
        dir.path(),
        &["probe", "--filter", "f.bjf", "--keys", "keys.txt"],
    )
    .ok();
    assert_eq!(out.lines().count(), 1000);
    let maybes = out.lines().filter(|l| *l == "maybe").count();
    assert!(maybes < 30, "{maybes} false positives in 1000");
    let out = run_in(
        dir.path(),
        &["contains", "--filter", "f.bjf", "--with-keys", "2", "-7"],
    )
    .ok();
    assert!(out.starts_with("2\tmaybe\n-7\t"), "{out}");
    run_in(dir.path(), &["probe", "--filter", "f.bjf", "abc"])
        .fails(2, &["argument 1", "not a number"]);
}

#[test]
fn probe_string_filter() {
    let dir = tempfile::tempdir().unwrap();
    let params = BloomParams::for_items(Layout::Classic, 100, 0.001, 0).unwrap();
    let mut f = BloomFilter::try_new(params, KeyFamily::Bytes).unwrap();
    f.insert_array(&StringArray::from(vec!["zürich", "7", ""]))
        .unwrap();
    std::fs::write(
        dir.path().join("s.bjf"),
        codec::encode(&f, &FilterMeta::new()),
    )
    .unwrap();
    let out = run_stdin(
        dir.path(),
        &["probe", "--filter", "s.bjf"],
        "zürich\r\n7\n\n",
    )
    .ok();
    assert_eq!(out, "maybe\nmaybe\nmaybe\n");

    // A KEY argument is one key, whole: an empty one is the empty key (it printed nothing),
    // one with a newline is not two keys, one with a carriage return keeps it (a key
    // "y\r" trained from data answered "no" as an argument: fifth audit, 2026-11-26).
    let params = BloomParams::for_items(Layout::Classic, 100, 0.001, 0).unwrap();
    let mut g = BloomFilter::try_new(params, KeyFamily::Bytes).unwrap();
    g.insert_array(&StringArray::from(vec!["", "y\r", "a"]))
        .unwrap();
    std::fs::write(
        dir.path().join("g.bjf"),
        codec::encode(&g, &FilterMeta::new()),
    )
    .unwrap();
    let probe = |keys: &[&str]| {
        let mut args = vec!["probe", "--filter", "g.bjf", "--with-keys"];
        args.extend_from_slice(keys);
        run_in(dir.path(), &args).ok()
    };
    assert_eq!(probe(&[""]), "\tmaybe\n");
    assert_eq!(probe(&["a", "", ""]), "a\tmaybe\n\tmaybe\n\tmaybe\n");
    assert_eq!(probe(&["y\r"]), "\"y\\r\"\tmaybe\n");
    assert_eq!(probe(&["a\nb"]).lines().count(), 1);
    assert!(probe(&["a\nb"]).starts_with("\"a\\nb\"\t"));
}

#[test]
fn merge_of_shards_equals_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let keys: Vec<i64> = (0..900).map(|i| i * 7).collect();
    write_int_filter(&d.join("whole.bjf"), &keys, 1, None);
    write_int_filter(&d.join("a.bjf"), &keys[..300], 1, Some("0/3"));
    write_int_filter(&d.join("b.bjf"), &keys[300..600], 1, Some("1/3"));
    write_int_filter(&d.join("c.bjf"), &keys[600..], 1, Some("2/3"));
    run_in(
        d,
        &["merge", "--output", "m.bjf", "a.bjf", "b.bjf", "c.bjf"],
    )
    .ok();
    // Metadata is re-stamped the same way for both, so whole files compare.
    let (whole, _) = codec::decode(&std::fs::read(d.join("whole.bjf")).unwrap(), "w").unwrap();
    let (merged, meta) = codec::decode(&std::fs::read(d.join("m.bjf")).unwrap(), "m").unwrap();
    assert_eq!(whole, merged);
    assert_eq!(meta.shard, None);
    assert_eq!(meta.column.as_deref(), Some("id"));
    // An existing output is refused and left as it was.
    let before = std::fs::read(d.join("m.bjf")).unwrap();
    run_in(d, &["merge", "--output", "m.bjf", "a.bjf"]).fails(2, &["m.bjf", "--overwrite"]);
    assert_eq!(std::fs::read(d.join("m.bjf")).unwrap(), before);
    run_in(d, &["merge", "--overwrite", "--output", "m.bjf", "a.bjf"]).ok();
}

#[test]
fn merge_refuses_mismatched_params() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_int_filter(&d.join("a.bjf"), &[1], 1, None);
    write_int_filter(&d.join("b.bjf"), &[2], 2, None);
    run_in(d, &["merge", "--output", "m.bjf", "a.bjf", "b.bjf"]).fails(2, &["b.bjf", "seed"]);
    assert!(!d.join("m.bjf").exists());
}

#[test]
fn bad_filters_give_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_int_filter(&d.join("good.bjf"), &[1, 2], 0, None);
    let good = std::fs::read(d.join("good.bjf")).unwrap();
    std::fs::write(d.join("trunc.bjf"), &good[..good.len() - 9]).unwrap();
    let mut flipped = good.clone();
    flipped[100] ^= 0x10;
    std::fs::write(d.join("flip.bjf"), &flipped).unwrap();
    let mut future = good.clone();
    future[8] = 9;
    std::fs::write(d.join("future.bjf"), &future).unwrap();
    std::fs::write(d.join("text.bjf"), "hello").unwrap();

    run_in(d, &["inspect", "trunc.bjf"]).fails(2, &["trunc.bjf", "truncated"]);
    run_in(d, &["inspect", "flip.bjf"]).fails(2, &["flip.bjf", "checksum"]);
    run_in(d, &["inspect", "future.bjf"]).fails(2, &["future.bjf", "version 9"]);
    run_in(d, &["inspect", "text.bjf"]).fails(2, &["text.bjf", "magic"]);
    run_in(d, &["inspect", "missing.bjf"]).fails(2, &["missing.bjf"]);
    run_in(d, &["probe", "--filter", "flip.bjf", "1"]).fails(2, &["flip.bjf"]);
    run_in(d, &["merge", "--output", "o.bjf", "good.bjf", "trunc.bjf"]).fails(2, &["trunc.bjf"]);
    run_in(d, &["inspect", "ftp://host/f.bjf"]).fails(2, &["ftp", "scheme"]);
    assert!(!d.join("o.bjf").exists());
    let before = files_below(d);
    assert!(before.iter().all(|f| f.ends_with(".bjf")));
}

/// The merge of a training's shards, sized by `--fpp` alone, is the unsharded filter byte for
/// byte. `merge` counted the merged keys with a 2 % margin that `train` does not add, so near
/// a size boundary it folded to another size (the fuzzer's shard check, seed 2611306, join
/// case 526: 1,024 bits against 512). These three trainings of the sample differed so.
#[test]
fn sharded_training_with_fpp_alone_merges_into_the_unsharded_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let users = crate::util::root().join("data/sample/users");
    let users = users.to_str().unwrap();
    for (fpp, predicate, layout) in [
        ("0.3", "Reputation > 10000", "split"),
        ("0.1", "Id < 500", "split"),
        ("0.0001", "Id < 60", "split"),
        ("0.3", "Reputation > 10000", "sbbf"),
        ("0.01", "Id < 500", "sbbf"),
        ("0.0001", "Id < 60", "sbbf"),
    ] {
        let train = |out: &str, shard: Option<&str>| {
            let mut args = vec![
                "train",
                "-q",
                "-i",
                users,
                "-c",
                "Id",
                "--layout",
                layout,
                "--fpp",
                fpp,
                "--where",
                predicate,
                "-o",
                out,
                "--overwrite",
            ];
            if let Some(s) = shard {
                args.extend(["--shard", s]);
            }
            run_in(d, &args).ok();
        };
        train("whole.bjf", None);
        for n in [2, 3] {
            let shards: Vec<String> = (0..n).map(|i| format!("s{i}.bjf")).collect();
            for (i, s) in shards.iter().enumerate() {
                train(s, Some(&format!("{i}/{n}")));
            }
            let mut args = vec!["merge", "-q", "--overwrite", "-o", "m.bjf"];
            args.extend(shards.iter().map(String::as_str));
            run_in(d, &args).ok();
            assert!(
                std::fs::read(d.join("m.bjf")).unwrap()
                    == std::fs::read(d.join("whole.bjf")).unwrap(),
                "{layout} --fpp {fpp} --where {predicate:?}: the merge of {n} shards differs"
            );
        }
    }
}

/// A shard of a layout that cannot fold, sized by `--fpp` alone, is refused before anything
/// is read or written: two `sbbf` halves of one input, each sized for its own keys, merged
/// into a filter at an estimated FPP of 0.13 for `--fpp 0.01`.
#[test]
fn a_shard_without_fixed_sizing_is_refused_for_layouts_that_cannot_fold() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let users = crate::util::root().join("data/sample/users");
    let users = users.to_str().unwrap();
    for layout in ["classic", "spark-v1", "spark-v2"] {
        let args = [
            "train", "-i", users, "-c", "Id", "--layout", layout, "-o", "s0.bjf", "--shard", "0/2",
        ];
        run_in(d, &args).fails(2, &["--shard", "fixed sizing", layout]);
        assert!(!d.join("s0.bjf").exists());
        run_in(
            d,
            &[&args[..], &["--expected-items", "3000", "--fpp", "0.01"]].concat(),
        )
        .ok();
        std::fs::remove_file(d.join("s0.bjf")).unwrap();
    }
}

/// `--layout sbbf --fpp` alone trains in one pass: into Parquet's size for every row, folded
/// to Parquet's size for the keys counted in its bits. An SBBF's block index is the top bits
/// of the hash and its block count a power of two, so the fold gives the bits of a filter
/// trained at the smaller size directly.
#[test]
fn sbbf_with_fpp_alone_folds_to_the_bits_of_a_filter_trained_at_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let users = crate::util::root().join("data/sample/users");
    let users = users.to_str().unwrap();
    let train = |out: &str, sizing: &[&str]| {
        let report = format!("{out}.json");
        let args = [
            &[
                "train", "-q", "-i", users, "-c", "Id", "--where", "Id < 500", "--layout", "sbbf",
                "-o", out, "--report", &report,
            ][..],
            sizing,
        ]
        .concat();
        run_in(d, &args).ok();
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join(format!("{out}.json"))).unwrap()).unwrap();
        report
    };
    let folded = train("fpp.bjf", &["--fpp", "0.01"]);
    let sizing = &folded["sizing"];
    assert_eq!(sizing["method"], "folded", "{folded}");
    let (before, after) = (
        sizing["bits_before_fold"].as_u64().unwrap(),
        sizing["bits_after_fold"].as_u64().unwrap(),
    );
    assert!(after < before, "{sizing}");
    assert!(after.is_power_of_two(), "{sizing}");
    assert!(
        folded["estimated_fpp"].as_f64().unwrap() <= 0.01,
        "{folded}"
    );
    // About 500 keys counted (Ids below 500 in the sample).
    let counted = sizing["items"].as_u64().unwrap();
    assert!((440..=560).contains(&counted), "{sizing}");
    let bytes = (after / 8).to_string();
    train("fixed.bjf", &["--num-bytes", &bytes]);
    let words = |f: &str| {
        let b = std::fs::read(d.join(f)).unwrap();
        let n = (after / 8) as usize;
        b[b.len() - 8 - n..b.len() - 8].to_vec()
    };
    assert!(
        words("fpp.bjf") == words("fixed.bjf"),
        "the folded bits differ"
    );
}

/// Found by a black-box audit (2026-11-26): `probe` read `YYYY-MM-DD` as a day only for
/// filters of `Date32` keys; a `Date64` key is the same day number (issue 16), so its filter
/// takes the same text.
#[test]
fn probe_reads_dates_for_date32_and_date64_filters() {
    use arrow::array::{ArrayRef, Date32Array, Date64Array};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let days = [0i32, 365, -1];
    let ms = 86_400_000i64;
    crate::util::write_parquet(
        &d.join("t.parquet"),
        vec![
            (
                "d32",
                Arc::new(Date32Array::from(days.to_vec())) as ArrayRef,
            ),
            (
                "d64",
                Arc::new(Date64Array::from(
                    days.iter().map(|&x| x as i64 * ms).collect::<Vec<_>>(),
                )) as ArrayRef,
            ),
        ],
        10,
    );
    for col in ["d32", "d64"] {
        let f = format!("{col}.bjf");
        run_in(
            d,
            &[
                "train",
                "-q",
                "-i",
                "t.parquet",
                "-c",
                col,
                "--expected-items",
                "1000",
                "-o",
                &f,
            ],
        )
        .ok();
        let out = run_stdin(
            d,
            &["probe", "--filter", &f],
            "1970-01-01\n1971-01-01\n1969-12-31\n365\n",
        )
        .ok();
        assert_eq!(out, "maybe\nmaybe\nmaybe\nmaybe\n", "{col}");
        let err = run_stdin(d, &["probe", "--filter", &f], "yesterday\n").fails(2, &["yesterday"]);
        assert!(err.contains("the filter holds"), "{err}");
    }
}

/// Found by an audit (2026-11-26): `merge` took the same shard twice (and doubled the
/// inserted count) or shards of differently split trainings without a word, and said
/// nothing when a shard was missing; a join with such a filter drops the missing shards'
/// rows. Now the first two are errors (exit 2, nothing written) and a missing shard is a
/// warning, even with `-q`.
#[test]
fn merge_checks_the_shards_it_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let users = crate::util::root().join("data/sample/users");
    let users = users.to_str().unwrap();
    for (out, shard) in [
        ("a0.bjf", "0/3"),
        ("a1.bjf", "1/3"),
        ("a2.bjf", "2/3"),
        ("b0.bjf", "0/2"),
    ] {
        run_in(
            d,
            &[
                "train", "-q", "-i", users, "-c", "Id", "--fpp", "0.01", "-o", out, "--shard",
                shard,
            ],
        )
        .ok();
    }
    run_in(
        d,
        &["merge", "-q", "-o", "m.bjf", "a0.bjf", "a1.bjf", "a0.bjf"],
    )
    .fails(2, &["a0.bjf and a0.bjf are both shard 0/3", "copy"]);
    run_in(d, &["merge", "-q", "-o", "m.bjf", "a0.bjf", "b0.bjf"])
        .fails(2, &["b0.bjf is shard 0/2 but a0.bjf is shard 0/3"]);
    assert!(!d.join("m.bjf").exists());
    let r = run_in(d, &["merge", "-q", "-o", "m.bjf", "a0.bjf", "a2.bjf"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("warning: shard 1 of the training is not among the partials"),
        "{}",
        r.stderr
    );
    let r = run_in(
        d,
        &["merge", "-q", "-o", "all.bjf", "a2.bjf", "a0.bjf", "a1.bjf"],
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    // `--shard 0/1` is a whole training (separate runs over different inputs): any number
    // of them merge, without a word.
    for out in ["w0.bjf", "w1.bjf"] {
        run_in(
            d,
            &[
                "train", "-q", "-i", users, "-c", "Id", "--fpp", "0.01", "-o", out, "--shard",
                "0/1",
            ],
        )
        .ok();
    }
    let r = run_in(d, &["merge", "-q", "-o", "w.bjf", "w0.bjf", "w1.bjf"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
}
