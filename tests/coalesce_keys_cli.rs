//! `join --coalesce-keys`: one output column per key pair, the left key or else the right one
//! (SQL's `COALESCE`, DuckDB's and Spark's `USING`), in the keys' common type; checked against
//! a naive reference for the join types that output both sides, both strategies, with and
//! without a prefilter, one and two key columns of different types (Int32 against Int64, a
//! string against a dictionary of strings), `--nulls-equal`, `--select` and `--partition-by`.

use std::path::Path;
use std::sync::Arc;

use arrow::array::*;
use arrow::datatypes::Int32Type;

use crate::util::{read_rows, run_in, write_parquet};

/// A left row: (id, k, s).
type LeftRow = (i64, Option<i32>, Option<&'static str>);
/// A right row: (rid, rk, rs).
type RightRow = (i64, Option<i64>, Option<&'static str>);

const WORDS: [&str; 3] = ["x", "y", "z"];

/// Left rows: `k` 0 to 8 with nulls, `s` x or y with nulls.
fn left_rows() -> Vec<LeftRow> {
    (0..40)
        .map(|i| {
            let k = (i % 7 != 3).then_some((i % 9) as i32);
            let s = (i % 5 != 1).then_some(WORDS[(i % 2) as usize]);
            (i, k, s)
        })
        .collect()
}

/// Right rows: `rk` 4 to 13 with nulls (some only on this side), `rs` x, y or z with nulls.
fn right_rows() -> Vec<RightRow> {
    (0..90)
        .map(|i| {
            let k = (i % 11 != 4).then_some(4 + i % 10);
            let s = (i % 6 != 2).then_some(WORDS[(i % 3) as usize]);
            (1000 + i, k, s)
        })
        .collect()
}

/// The left side (`k` Int32, `s` a string) and the right (`rk` Int64, `rs` a dictionary of
/// strings), in row groups of 13 rows.
fn write_sides(d: &Path) {
    let l = left_rows();
    write_parquet(
        &d.join("left/l.parquet"),
        vec![
            (
                "id",
                Arc::new(Int64Array::from_iter_values(l.iter().map(|x| x.0))) as ArrayRef,
            ),
            ("k", Arc::new(Int32Array::from_iter(l.iter().map(|x| x.1)))),
            ("s", Arc::new(StringArray::from_iter(l.iter().map(|x| x.2)))),
        ],
        13,
    );
    let r = right_rows();
    let rs: DictionaryArray<Int32Type> = r.iter().map(|x| x.2).collect();
    write_parquet(
        &d.join("right/r.parquet"),
        vec![
            (
                "rid",
                Arc::new(Int64Array::from_iter_values(r.iter().map(|x| x.0))) as ArrayRef,
            ),
            ("rk", Arc::new(Int64Array::from_iter(r.iter().map(|x| x.1)))),
            ("rs", Arc::new(rs)),
        ],
        13,
    );
}

/// The reference rows of a join of type `jt` on `arity` key columns, as `read_rows` prints
/// the columns `k[|s]|id|rid`: the coalesced key columns, then the ids (NULL on the side a
/// row lacks), sorted. Keys compare as `=` (a null matches nothing), or as IS NOT DISTINCT
/// FROM under `nulls_equal`.
fn reference(jt: &str, arity: usize, nulls_equal: bool) -> Vec<String> {
    let (l, r) = (left_rows(), right_rows());
    let lkey = |x: &LeftRow| (x.1.map(i64::from), if arity == 2 { x.2 } else { None });
    let rkey = |x: &RightRow| (x.1, if arity == 2 { x.2 } else { None });
    let meets = |a: &LeftRow, b: &RightRow| {
        let (ka, kb) = (lkey(a), rkey(b));
        let has_null = ka.0.is_none() || (arity == 2 && ka.1.is_none());
        ka == kb && (nulls_equal || !has_null)
    };
    let show = |v: Option<String>| v.unwrap_or_else(|| "NULL".into());
    let row = |key: (Option<i64>, Option<&str>), a: Option<i64>, b: Option<i64>| {
        let mut cols = vec![show(key.0.map(|k| k.to_string()))];
        if arity == 2 {
            cols.push(show(key.1.map(str::to_string)));
        }
        cols.push(show(a.map(|a| a.to_string())));
        cols.push(show(b.map(|b| b.to_string())));
        cols.join("|")
    };
    let mut out = Vec::new();
    for a in &l {
        for b in r.iter().filter(|b| meets(a, b)) {
            out.push(row(lkey(a), Some(a.0), Some(b.0)));
        }
    }
    if matches!(jt, "left" | "full") {
        for a in l.iter().filter(|a| !r.iter().any(|b| meets(a, b))) {
            out.push(row(lkey(a), Some(a.0), None));
        }
    }
    if matches!(jt, "right" | "full") {
        for b in r.iter().filter(|b| !l.iter().any(|a| meets(a, b))) {
            out.push(row(rkey(b), None, Some(b.0)));
        }
    }
    out.sort();
    out
}

/// The keys of `arity` columns on both sides.
fn keys(arity: usize) -> (&'static str, &'static str) {
    if arity == 2 {
        ("k,s", "rk,rs")
    } else {
        ("k", "rk")
    }
}

/// The arguments of `join --coalesce-keys` of type `jt` on the left side's keys `lk` and the
/// keys `rk` of the side in directory `right`, into `out`.
fn args<'a>(jt: &'a str, lk: &'a str, right: &'a str, rk: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "join",
        "--left",
        "left",
        "--left-key",
        lk,
        "--right",
        right,
        "--right-key",
        rk,
        "--type",
        jt,
        "--coalesce-keys",
        "--output",
        out,
    ]
}

/// Run `join --coalesce-keys` of `jt` into `out` with `extra` options; its rows and columns.
fn join(d: &Path, out: &str, jt: &str, arity: usize, extra: &[&str]) -> (Vec<String>, Vec<String>) {
    let (lk, rk) = keys(arity);
    let mut args = args(jt, lk, "right", rk, out);
    args.push("-q");
    args.extend_from_slice(extra);
    run_in(d, &args).ok();
    read_rows(&d.join(out))
}

#[test]
fn the_keys_are_coalesced_for_every_join_type_strategy_and_prefilter() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    for arity in [1, 2] {
        let select = if arity == 2 { "k,s,id,rid" } else { "k,id,rid" };
        let f = format!("f{arity}.bjf");
        run_in(
            d,
            &["train", "-q", "-i", "left", "-c", keys(arity).0, "-o", &f],
        )
        .ok();
        for jt in ["inner", "left", "right", "full"] {
            let variants: [&[&str]; 5] = [
                &[],
                &["--strategy", "reduce-side", "--reducers", "3"],
                &["--no-prefilter", "--workers", "1", "--batch-size", "4"],
                &["--filter", &f],
                &["--nulls-equal"],
            ];
            for (v, extra) in variants.iter().enumerate() {
                let want = reference(jt, arity, extra.contains(&"--nulls-equal"));
                let mut args = vec!["--select", select];
                args.extend_from_slice(extra);
                let (rows, names) = join(d, &format!("c-{arity}-{jt}-{v}"), jt, arity, &args);
                assert_eq!(rows, want, "{jt}, {arity} key columns, {extra:?}");
                assert_eq!(names.join(","), select);
            }
        }
    }
    // The right-only rows of a full join hold keys the left side lacks (10 to 13).
    assert!(reference("full", 1, false)
        .iter()
        .any(|r| r.starts_with("13|NULL|")));
}

#[test]
fn the_default_columns_are_the_keys_then_the_other_columns_in_their_common_type() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    let mut full = args("full", "k,s", "right", "rk,rs", "out");
    full.extend(["--report", "r.json"]);
    let run = run_in(d, &full).ok();
    assert!(
        run.starts_with("joined (full join, keys coalesced, "),
        "{run}"
    );
    let file = parts(&d.join("out")).remove(0);
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&file).unwrap(),
    )
    .unwrap();
    let fields: Vec<String> = reader
        .schema()
        .fields()
        .iter()
        .map(|f| format!("{}:{}", f.name(), f.data_type()))
        .collect();
    // Int32 and Int64: Int64; a string and a dictionary of strings: a string.
    assert_eq!(fields, ["k:Int64", "s:Utf8", "id:Int64", "rid:Int64"]);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    assert_eq!(report["coalesce_keys"], true);
    assert_eq!(
        report["columns"],
        serde_json::json!(["k", "s", "id", "rid"])
    );
    assert_eq!(
        read_rows(&d.join("out")).0,
        reference("full", 2, false),
        "the default columns hold the reference's rows in its order"
    );
    // The dry run says so too.
    let mut dry = args("right", "k", "right", "rk", "dry");
    dry.push("--dry-run=json");
    let dry = run_in(d, &dry).ok();
    let plan: serde_json::Value = serde_json::from_str(&dry).unwrap();
    assert_eq!(plan["coalesce_keys"], true);
}

/// The Parquet parts in `dir`.
fn parts(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut parts: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    parts.sort();
    assert!(!parts.is_empty(), "no parts in {dir:?}");
    parts
}

#[test]
fn select_names_the_coalesced_key_by_either_key_and_the_sides_by_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    // `rk` (a right key's name) is the coalesced key too, under the name given; `left.k` and
    // `right.rk` are the sides' own columns.
    let (rows, names) = join(
        d,
        "sel",
        "full",
        1,
        &[
            "--select",
            "rk, k AS key, left.k, right.rk, id, rid",
            "--workers",
            "1",
        ],
    );
    assert_eq!(names, ["rk", "key", "k", "rk_right", "id", "rid"]);
    let want: Vec<String> = reference("full", 1, false);
    assert_eq!(rows.len(), want.len());
    for row in &rows {
        let c: Vec<&str> = row.split('|').collect();
        assert_eq!(c[0], c[1], "{row}");
        let coalesced = if c[2] != "NULL" { c[2] } else { c[3] };
        assert_eq!(c[0], coalesced, "{row}");
    }
    let mut keyed: Vec<String> = rows
        .iter()
        .map(|r| {
            let c: Vec<&str> = r.split('|').collect();
            format!("{}|{}|{}", c[0], c[4], c[5])
        })
        .collect();
    keyed.sort();
    assert_eq!(keyed, want);
}

#[test]
fn partition_by_the_coalesced_key_and_its_parquet_bloom_filter() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    let (rows, _) = join(
        d,
        "part",
        "right",
        1,
        &[
            "--select",
            "k,id,rid",
            "--partition-by",
            "k",
            "--report",
            "p.json",
        ],
    );
    // The partition column's values are in the directory names: every right key has one.
    let mut want: Vec<String> = reference("right", 1, false)
        .iter()
        .map(|r| r.split_once('|').unwrap().1.to_string())
        .collect();
    want.sort();
    assert_eq!(rows, want);
    for k in 4..14 {
        assert!(d.join(format!("part/k={k}")).is_dir(), "k={k}");
    }
    // Without --partition-by, the coalesced key carries the parts' Parquet Bloom filters: a
    // key of the right side alone (13) is in one part's, a key of neither side in none.
    run_in(d, &args("full", "k", "right", "rk", "bf")).ok();
    let answers = |key: &str| -> Vec<String> {
        parts(&d.join("bf"))
            .iter()
            .map(|p| {
                let p = p.to_str().unwrap();
                run_in(d, &["probe", "-q", "--filter", p, "--column", "k", key])
                    .ok()
                    .trim()
                    .to_string()
            })
            .collect()
    };
    assert!(
        answers("13").contains(&"maybe".to_string()),
        "{:?}",
        answers("13")
    );
    assert!(
        answers("999").iter().all(|a| a == "no"),
        "{:?}",
        answers("999")
    );
}

#[test]
fn refused_where_there_is_nothing_to_coalesce_or_no_common_type() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    write_parquet(
        &d.join("bin/b.parquet"),
        vec![(
            "b",
            Arc::new(BinaryArray::from_iter_values([b"x"])) as ArrayRef,
        )],
        10,
    );
    for (jt, side) in [
        ("left-semi", "left"),
        ("left-anti", "left"),
        ("right-semi", "right"),
        ("right-anti", "right"),
    ] {
        let needle =
            format!("invalid --coalesce-keys: a {jt} join outputs the {side} columns only");
        run_in(d, &args(jt, "k", "right", "rk", "no")).fails(2, &[&needle]);
    }
    run_in(d, &args("full", "s", "bin", "b", "no")).fails(
        2,
        &["--left-key s is Utf8 and --right-key b is Binary, which have no common type"],
    );
    assert!(!d.join("no").exists());
}

#[test]
fn readme_coalesce_keys_example_is_true() {
    let (dir, _) = crate::util::run_readme_example("- `--coalesce-keys` (job key");
    // 3,030 rows without an Id: the 10 users and 3,020 comments whose key is null.
    let (rows, names) = read_rows(&dir.path().join("out/users_comments_full"));
    assert_eq!(names, ["Id", "DisplayName", "Score"]);
    assert_eq!(rows.iter().filter(|r| r.starts_with("NULL|")).count(), 3030);
    let nulls = |side: &str, column: &str| -> usize {
        let dir = crate::util::root().join("data/sample").join(side);
        crate::util::files_below(&dir)
            .iter()
            .map(|f| {
                let file = std::fs::File::open(dir.join(f)).unwrap();
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
                    .unwrap()
                    .build()
                    .unwrap()
                    .map(|b| b.unwrap().column_by_name(column).unwrap().null_count())
                    .sum::<usize>()
            })
            .sum()
    };
    assert_eq!(nulls("users", "Id") + nulls("comments", "UserId"), 3030);
}
