//! Composite keys (issue 16, "Composite keys"): `train --column a,b`, `join --left-key a,b
//! --right-key x,y`, `probe` of tab-separated tuples, `inspect` and `merge` of tuple filters.
//! Components meet by value as single keys do (an `Int32` column meets an `Int64` one, a
//! string column a dictionary of strings); a null in any component never matches. Expected
//! rows come from a nested-loop oracle over the same values, for every join type, both
//! strategies, with and without the prefilter.

use std::path::Path;
use std::sync::Arc;

use arrow::array::*;
use arrow::datatypes::Int8Type;

use crate::util::{read_rows, run_in, run_stdin, write_parquet};

type Row = (Option<i64>, Option<&'static str>, &'static str);

const LEFT: &[Row] = &[
    (Some(1), Some("x"), "L1"),
    (Some(1), Some("y"), "L2"),
    (Some(2), Some("x"), "L3"),
    (Some(2), Some("x"), "L3b"),
    (Some(3), None, "L4"),
    (None, Some("x"), "L5"),
    (Some(4), Some("z"), "L6"),
    (Some(6), Some("q"), "L7"),
];

const RIGHT: &[Row] = &[
    (Some(1), Some("x"), "R1"),
    (Some(1), Some("x"), "R2"),
    (Some(2), Some("x"), "R3"),
    (Some(1), Some("z"), "R4"),
    (Some(3), None, "R5"),
    (None, Some("x"), "R6"),
    (Some(4), Some("z"), "R7"),
    (Some(5), Some("y"), "R8"),
    (Some(2), Some("y"), "R9"),
];

/// Left: `a` Int32, `b` Utf8; right: `x` Int64, `y` a dictionary of strings (other types
/// than the left's, the same values).
fn write_sides(d: &Path) {
    write_parquet(
        &d.join("left/l.parquet"),
        vec![
            (
                "a",
                Arc::new(Int32Array::from_iter(
                    LEFT.iter().map(|r| r.0.map(|v| v as i32)),
                )) as ArrayRef,
            ),
            (
                "b",
                Arc::new(StringArray::from_iter(LEFT.iter().map(|r| r.1))) as ArrayRef,
            ),
            (
                "lv",
                Arc::new(StringArray::from_iter_values(LEFT.iter().map(|r| r.2))) as ArrayRef,
            ),
        ],
        3,
    );
    write_parquet(
        &d.join("right/r.parquet"),
        vec![
            (
                "x",
                Arc::new(Int64Array::from_iter(RIGHT.iter().map(|r| r.0))) as ArrayRef,
            ),
            (
                "y",
                Arc::new(
                    RIGHT
                        .iter()
                        .map(|r| r.1)
                        .collect::<DictionaryArray<Int8Type>>(),
                ) as ArrayRef,
            ),
            (
                "rv",
                Arc::new(StringArray::from_iter_values(RIGHT.iter().map(|r| r.2))) as ArrayRef,
            ),
        ],
        4,
    );
}

/// The expected rows of a join of LEFT and RIGHT on (a, b) = (x, y), as `read_rows` prints
/// them: left columns then (except semi/anti) right columns.
fn oracle(join_type: &str) -> Vec<String> {
    let s = |v: Option<i64>| v.map_or("NULL".to_string(), |v| v.to_string());
    let t = |v: Option<&str>| v.unwrap_or("NULL").to_string();
    let l = |r: &Row| format!("{}|{}|{}", s(r.0), t(r.1), r.2);
    let r = |r: &Row| format!("{}|{}|{}", s(r.0), t(r.1), r.2);
    let eq = |a: &Row, b: &Row| a.0.is_some() && a.1.is_some() && a.0 == b.0 && a.1 == b.1;
    let mut out = Vec::new();
    let nulls = "NULL|NULL|NULL";
    for lr in LEFT {
        let m: Vec<&Row> = RIGHT.iter().filter(|rr| eq(lr, rr)).collect();
        match join_type {
            "inner" | "left" | "right" | "full" => {
                for &rr in &m {
                    out.push(format!("{}|{}", l(lr), r(rr)));
                }
                if m.is_empty() && matches!(join_type, "left" | "full") {
                    out.push(format!("{}|{nulls}", l(lr)));
                }
            }
            "left-semi" if !m.is_empty() => out.push(l(lr)),
            "left-anti" if m.is_empty() => out.push(l(lr)),
            _ => {}
        }
    }
    if matches!(join_type, "right" | "full") {
        for rr in RIGHT {
            if !LEFT.iter().any(|lr| eq(lr, rr)) {
                out.push(format!("{nulls}|{}", r(rr)));
            }
        }
    }
    out.sort();
    out
}

fn train(d: &Path, extra: &[&str]) -> String {
    let mut a = vec![
        "train", "-q", "--input", "left", "--column", "a,b", "--output", "l.bjf", "--fpp", "0.001",
    ];
    a.extend_from_slice(extra);
    run_in(d, &a).ok()
}

#[test]
fn composite_join_equals_the_oracle_for_every_type_and_strategy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    train(d, &[]);
    for jt in ["inner", "left", "left-semi", "left-anti", "right", "full"] {
        let want = oracle(jt);
        for (i, extra) in [
            vec![],
            vec!["--no-prefilter"],
            vec!["--strategy", "reduce-side", "--reducers", "3"],
            vec!["--strategy", "reduce-side", "--no-prefilter"],
            vec!["--workers", "1", "--batch-size", "2"],
        ]
        .into_iter()
        .enumerate()
        {
            let out = format!("o-{jt}-{i}");
            let mut a = vec![
                "join",
                "-q",
                "--filter",
                "l.bjf",
                "--left",
                "left",
                "--left-key",
                "a, b",
                "--right",
                "right",
                "--right-key",
                "x,y",
                "--type",
                jt,
                "--output",
                &out,
                "--report",
            ];
            let report = format!("{out}.json");
            a.push(&report);
            a.extend(extra.iter().copied());
            run_in(d, &a).ok();
            let (rows, _) = read_rows(&d.join(&out));
            assert_eq!(rows, want, "{jt} {extra:?}");
            let r: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(d.join(&report)).unwrap()).unwrap();
            let sbbf = r["prefilter"]["sbbf"]["reason"].as_str().unwrap_or("");
            if ["inner", "left", "left-semi", "left-anti"].contains(&jt) {
                assert!(sbbf.contains("composite key"), "{jt}: {sbbf}");
                if extra.is_empty() {
                    assert_eq!(r["prefilter"]["used"], true, "{jt}");
                    // R4 (1,z), R8 (5,y), R9 (2,y): no left tuple; R5, R6 have a null.
                    let dropped = r["right"]["rows_dropped_by_filter"].as_u64().unwrap()
                        + r["right"]["rows_dropped_by_keys"].as_u64().unwrap()
                        + r["right"]["rows_dropped_null_key"].as_u64().unwrap();
                    assert!(dropped >= 2, "{jt}: {r}");
                }
            }
        }
    }
}

/// A null in any component: not inserted (counted as a null key), never joined.
#[test]
fn a_null_in_any_component_is_a_null_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    train(d, &["--report", "t.json"]);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("t.json")).unwrap()).unwrap();
    assert_eq!(r["null_keys"], 2, "{r}");
    assert_eq!(r["keys_inserted"], 6, "{r}");
    assert_eq!(r["key_family"], "tuple");
    // Probing (3, "") and ("", x): empty strings are keys, not nulls, and were not inserted.
    let out = run_stdin(
        d,
        &["probe", "--filter", "l.bjf"],
        "1\tx\n2\tx\n4\tz\n6\tq\n",
    )
    .ok();
    assert_eq!(out, "maybe\nmaybe\nmaybe\nmaybe\n");
}

/// The tuple filter's bytes do not depend on workers, splits or batch sizes.
#[test]
fn tuple_filter_bytes_are_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 5000;
    write_parquet(
        &d.join("in/a.parquet"),
        vec![
            (
                "a",
                Arc::new(Int64Array::from_iter_values((0..n).map(|i| i % 97))) as ArrayRef,
            ),
            (
                "b",
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| format!("s{}", i % 13)),
                )) as ArrayRef,
            ),
        ],
        700,
    );
    // The native tuple hash, and Spark's xxhash64(a, b) in a Spark layout.
    for mode in [
        vec![],
        vec![
            "--layout",
            "spark-v2",
            "--spark-keys",
            "xxhash64",
            "--expected-items",
            "2000",
        ],
    ] {
        let mut bytes = Vec::new();
        for (i, extra) in [
            vec!["--workers", "1"],
            vec![
                "--workers",
                "2",
                "--split-rows",
                "700",
                "--batch-size",
                "33",
            ],
            vec!["--workers", "2", "--batch-size", "4096"],
        ]
        .into_iter()
        .enumerate()
        {
            let out = format!("f{i}.bjf");
            let mut a = vec![
                "train",
                "-q",
                "--input",
                "in",
                "--column",
                "a,b",
                "--overwrite",
                "--output",
                &out,
            ];
            a.extend(extra);
            a.extend(mode.iter().copied());
            run_in(d, &a).ok();
            bytes.push(std::fs::read(d.join(&out)).unwrap());
        }
        assert_eq!(bytes[0], bytes[1], "{mode:?}");
        assert_eq!(bytes[0], bytes[2], "{mode:?}");
    }
}

#[test]
fn inspect_shows_the_key_columns_and_probe_reads_tuples() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    train(d, &[]);
    let table = run_in(d, &["inspect", "l.bjf"]).ok();
    assert!(table.contains("key family    tuple"), "{table}");
    assert!(
        table.contains("key columns   a (integer, Int32), b (bytes, Utf8)"),
        "{table}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&run_in(d, &["inspect", "--json", "l.bjf"]).ok()).unwrap();
    assert_eq!(json["key_family"], "tuple");
    assert_eq!(json["metadata"]["key_columns"][1]["family"], "bytes");
    assert_eq!(json["metadata"]["key_columns"][0]["name"], "a");
    // Integers by value: 2.00 and +2 are the integer 2.
    let out = run_stdin(
        d,
        &[
            "probe",
            "--filter",
            "l.bjf",
            "--with-keys",
            "--key-type",
            "integer,bytes",
        ],
        "2.00\tx\n+2\tx\n1\ty\n",
    )
    .ok();
    assert_eq!(out, "2.00\tx\tmaybe\n+2\tx\tmaybe\n1\ty\tmaybe\n");
    // Absent tuples: most are "no" at fpp 0.001 (the answers are deterministic).
    let absent: String = (100..200).map(|i| format!("{i}\tx\n")).collect();
    let out = run_stdin(d, &["probe", "--filter", "l.bjf"], &absent).ok();
    assert!(out.matches("no").count() >= 95, "{out}");
    run_stdin(d, &["probe", "--filter", "l.bjf"], "1\n")
        .fails(2, &["stdin line 1", "1 tab-separated fields", "2 columns"]);
    run_stdin(d, &["probe", "--filter", "l.bjf"], "1\tx\nq\tx\n")
        .fails(2, &["stdin line 2", "field 1", "not a number"]);
    run_stdin(
        d,
        &["probe", "--filter", "l.bjf", "--key-type", "bytes,bytes"],
        "1\tx\n",
    )
    .fails(2, &["--key-type", "integer,bytes"]);
}

#[test]
fn arity_and_family_mismatches_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    train(d, &[]);
    run_in(
        d,
        &[
            "train", "-q", "--input", "left", "--column", "a", "--output", "a.bjf",
        ],
    )
    .ok();
    let join = |filter: &str, lk: &str, rk: &str| {
        run_in(
            d,
            &[
                "join",
                "-q",
                "--filter",
                filter,
                "--left",
                "left",
                "--left-key",
                lk,
                "--right",
                "right",
                "--right-key",
                rk,
                "--output",
                "out",
            ],
        )
    };
    join("l.bjf", "a,b", "x").fails(2, &["--right-key", "1 columns", "--left-key a,b has 2"]);
    join("l.bjf", "a,b", "y,x").fails(2, &["key family mismatch", "--left-key a", "--right-key y"]);
    join("a.bjf", "a,b", "x,y").fails(2, &["key arity mismatch", "1 column(s)", "has 2"]);
    join("l.bjf", "a", "x").fails(2, &["key arity mismatch", "2 column(s)", "has 1"]);
    join("l.bjf", "a,a", "x,y").fails(2, &["--left-key", "\"a\" appears twice"]);
    join("l.bjf", "a,nope", "x,y").fails(2, &["nope", "no such column"]);
    assert!(!d.join("out/_SUCCESS").exists());
    // A Spark layout holds one long or string per key.
    run_in(
        d,
        &[
            "train", "-q", "--input", "left", "--column", "a,b", "--layout", "spark-v2",
            "--output", "s.bjf",
        ],
    )
    .fails(2, &["--layout", "composite key"]);
    // merge: a tuple filter and a one-column filter; tuples of other families.
    run_in(d, &["merge", "-q", "--output", "m.bjf", "l.bjf", "a.bjf"])
        .fails(2, &["a.bjf", "key columns"]);
    run_in(
        d,
        &[
            "train", "-q", "--input", "left", "--column", "b,a", "--output", "ba.bjf", "--fpp",
            "0.001",
        ],
    )
    .ok();
    run_in(d, &["merge", "-q", "--output", "m.bjf", "l.bjf", "ba.bjf"]).fails(
        2,
        &["ba.bjf", "key columns", "integer, bytes", "bytes, integer"],
    );
    assert!(!d.join("m.bjf").exists());
    // Two tuple filters of the same key merge.
    run_in(d, &["merge", "-q", "--output", "m.bjf", "l.bjf", "l.bjf"]).ok();
    let table = run_in(d, &["inspect", "m.bjf"]).ok();
    assert!(
        table.contains("key columns   a (integer, Int32), b (bytes, Utf8)"),
        "{table}"
    );
}

/// Row-group pruning by min/max per key column, an AND of the ranges: the right row groups
/// each hold one value of `y` (0..9) and every value of `x`; the left tuples have y = 5, so
/// the statistics of `y` alone skip 9 of 10 row groups, with the same rows as without.
#[test]
fn statistics_prune_by_each_key_column() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 1000i64;
    write_parquet(
        &d.join("right/r.parquet"),
        vec![
            (
                "x",
                Arc::new(Int64Array::from_iter_values((0..n).map(|i| i % 10))) as ArrayRef,
            ),
            (
                "y",
                Arc::new(Int32Array::from_iter_values(
                    (0..n).map(|i| (i / 100) as i32),
                )) as ArrayRef,
            ),
            (
                "v",
                Arc::new(Int64Array::from_iter_values(0..n)) as ArrayRef,
            ),
        ],
        100,
    );
    write_parquet(
        &d.join("left/l.parquet"),
        vec![
            ("a", Arc::new(Int16Array::from(vec![1, 2, 3])) as ArrayRef),
            ("b", Arc::new(UInt8Array::from(vec![5, 5, 5])) as ArrayRef),
        ],
        10,
    );
    run_in(
        d,
        &[
            "train", "-q", "--input", "left", "--column", "a,b", "--output", "l.bjf",
        ],
    )
    .ok();
    let mut rows = Vec::new();
    for (out, extra) in [("o1", vec![]), ("o2", vec!["--no-prefilter"])] {
        let report = format!("{out}.json");
        let mut a = vec![
            "join",
            "-q",
            "--filter",
            "l.bjf",
            "--left",
            "left",
            "--left-key",
            "a,b",
            "--right",
            "right",
            "--right-key",
            "x,y",
            "--output",
            out,
            "--report",
            &report,
        ];
        a.extend(extra);
        run_in(d, &a).ok();
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(&report)).unwrap()).unwrap();
        let skipped = r["right"]["row_groups_skipped"].as_u64().unwrap();
        assert_eq!(skipped, if out == "o1" { 9 } else { 0 }, "{r}");
        rows.push(read_rows(&d.join(out)).0);
    }
    assert_eq!(rows[0], rows[1]);
    // y = 5 is rows 500..599; x in 1..=3 is 30 of them.
    assert_eq!(rows[0].len(), 30);
    assert!(rows[0].iter().all(|r| r.split('|').nth(3) == Some("5")));
}

/// Split a README command line into arguments: spaces separate, double quotes group.
pub(crate) fn shell_words(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// The README's composite-key example runs as written: the join on (Id, DisplayName) equals
/// the join on Id alone, keeping the rows whose display names agree (both non-null).
#[test]
fn readme_composite_key_example_runs() {
    let readme = std::fs::read_to_string(crate::util::root().join("README.md")).unwrap();
    let section = &readme[readme.find("### Composite keys").expect("README section")..];
    let block = section
        .split("```sh")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("README example block");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::os::unix::fs::symlink(crate::util::root().join("data"), d.join("data")).unwrap();
    let mut ran = 0;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let line = line.split("  #").next().unwrap().trim();
        let (stdin, cmd) = match line.split_once(" | ") {
            Some((printf, cmd)) => {
                let text = printf
                    .trim_start_matches("printf '")
                    .trim_end_matches('\'')
                    .replace("\\t", "\t")
                    .replace("\\n", "\n");
                (Some(text), cmd)
            }
            None => (None, line),
        };
        let words = shell_words(cmd);
        assert_eq!(words[0], "bloomjoin", "{line}");
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        let out = match &stdin {
            Some(text) => run_stdin(d, &args, text).ok(),
            None => run_in(d, &args).ok(),
        };
        match args[0] {
            "inspect" => {
                assert!(out.contains("key family    tuple"), "{out}");
                assert!(
                    out.contains("key columns   Id (integer, Int64), DisplayName (bytes, Utf8)"),
                    "{out}"
                );
            }
            "probe" => assert_eq!(out, "maybe\n"),
            _ => {}
        }
        ran += 1;
    }
    assert_eq!(ran, 4);
    let (rows, names) = read_rows(&d.join("out/comments_by_id_name"));
    assert_eq!(names, ["Id", "DisplayName", "Text"]);
    run_in(
        d,
        &[
            "join",
            "-q",
            "--no-prefilter",
            "--left",
            "data/sample/users",
            "--left-key",
            "Id",
            "--left-where",
            "Reputation > 1500",
            "--right",
            "data/sample/comments",
            "--right-key",
            "UserId",
            "--select",
            "left.Id,DisplayName,UserDisplayName,Text",
            "--output",
            "by_id",
        ],
    )
    .ok();
    // Only Text, the last column, holds '|' in the sample: split into four columns.
    let mut want: Vec<String> = read_rows(&d.join("by_id"))
        .0
        .into_iter()
        .filter_map(|r| {
            let f: Vec<&str> = r.splitn(4, '|').collect();
            (f[1] != "NULL" && f[1] == f[2]).then(|| format!("{}|{}|{}", f[0], f[1], f[3]))
        })
        .collect();
    want.sort();
    assert_eq!(rows.len(), 18177);
    assert_eq!(rows, want);
}

/// Issue 16: a timestamp column is a component like any other, in its canonical form
/// (nanoseconds), so `(id, ts[ms])` on the left meets `(id, ts[us])` on the right for the
/// same instants, through the filter, min/max pruning per component (row groups of 2 rows)
/// and the exact comparison; `probe` reads the timestamp field. A component with a time zone
/// against one without is refused naming both columns, exit 2, nothing written. (This
/// replaces the earlier refusal of timestamp components.)
#[test]
fn timestamp_components_meet_across_units() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Left: (id Int64, ts ms); right: (id Int32, ts us) and a zoned copy of ts.
    let left_ms = [Some(1_000), Some(2_000), Some(2_500), None, Some(9_000_000)];
    let left_id = [1i64, 2, 2, 3, 4];
    write_parquet(
        &d.join("left/l.parquet"),
        vec![
            (
                "id",
                Arc::new(Int64Array::from(left_id.to_vec())) as ArrayRef,
            ),
            (
                "ts",
                Arc::new(TimestampMillisecondArray::from(left_ms.to_vec())) as ArrayRef,
            ),
            (
                "lv",
                Arc::new(StringArray::from(vec!["L1", "L2", "L3", "L4", "L5"])) as ArrayRef,
            ),
        ],
        2,
    );
    let right_us = [
        Some(1_000_000),
        Some(2_000_000),
        Some(2_000_001),
        Some(1_000_000),
        None,
        Some(9_000_000_000),
        Some(2_500_000),
        Some(50_000_000_000),
        // A row group of ids the left holds at instants after every left one: the ts
        // statistics (microseconds, against the left's range in nanoseconds) skip it.
        Some(20_000_000_000),
        Some(30_000_000_000),
    ];
    let right_id = [1i32, 2, 2, 2, 3, 4, 2, 7, 1, 2];
    write_parquet(
        &d.join("right/r.parquet"),
        vec![
            (
                "id",
                Arc::new(Int32Array::from(right_id.to_vec())) as ArrayRef,
            ),
            (
                "ts",
                Arc::new(TimestampMicrosecondArray::from(right_us.to_vec())) as ArrayRef,
            ),
            (
                "tz",
                Arc::new(TimestampMicrosecondArray::from(right_us.to_vec()).with_timezone("UTC"))
                    as ArrayRef,
            ),
            (
                "rv",
                Arc::new(StringArray::from(vec![
                    "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10",
                ])) as ArrayRef,
            ),
        ],
        2,
    );
    run_in(
        d,
        &[
            "train", "-q", "--input", "left", "--column", "id,ts", "--fpp", "0.001", "--output",
            "l.bjf",
        ],
    )
    .ok();
    let shown = run_in(d, &["inspect", "l.bjf"]).ok();
    assert!(shown.contains("timestamp"), "{shown}");
    // The oracle: equal ids and equal instants (ms * 1000 = us).
    let mut want = Vec::new();
    for (li, lt) in left_id.iter().zip(&left_ms) {
        for (ri, rt) in right_id.iter().zip(&right_us) {
            if let (Some(lt), Some(rt)) = (lt, rt) {
                if *li == *ri as i64 && lt * 1000 == *rt {
                    want.push((*li, *lt));
                }
            }
        }
    }
    assert_eq!(want.len(), 4, "L1-R1, L2-R2, L3-R7, L5-R6");
    for prefilter in [true, false] {
        let out = format!("out-{prefilter}");
        let mut args = vec![
            "join",
            "-q",
            "--left",
            "left",
            "--left-key",
            "id,ts",
            "--right",
            "right",
            "--right-key",
            "id,ts",
            "--select",
            "left.id,left.ts,lv,rv",
            "--output",
            &out,
        ];
        let report = format!("{out}.json");
        args.extend(["--report", &report]);
        if prefilter {
            args.extend(["--filter", "l.bjf"]);
        } else {
            args.push("--no-prefilter");
        }
        run_in(d, &args).ok();
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(&report)).unwrap()).unwrap();
        let skipped = j["right"]["rows_skipped_by_stats"].as_u64().unwrap();
        assert_eq!(skipped, if prefilter { 2 } else { 0 }, "{j}");
        let (rows, _) = read_rows(&d.join(&out));
        assert_eq!(
            rows,
            [
                "1|1970-01-01T00:00:01|L1|R1",
                "2|1970-01-01T00:00:02.500|L3|R7",
                "2|1970-01-01T00:00:02|L2|R2",
                "4|1970-01-01T02:30:00|L5|R6",
            ],
            "prefilter {prefilter}"
        );
    }
    // Probe: one tuple per line, the timestamp as text.
    let out = run_stdin(
        d,
        &["probe", "--filter", "l.bjf", "--with-keys"],
        "1\t1970-01-01 00:00:01\n2\t1970-01-01 00:00:02.5\n",
    )
    .ok();
    assert_eq!(out.matches("maybe").count(), 2, "{out}");
    run_stdin(d, &["probe", "--filter", "l.bjf"], "1\t1000\n")
        .fails(2, &["line 1", "field 2", "not a timestamp"]);
    // A zoned component against a zone-less one: refused, naming both columns.
    run_in(
        d,
        &[
            "join",
            "-q",
            "--no-prefilter",
            "--left",
            "left",
            "--left-key",
            "id,ts",
            "--right",
            "right",
            "--right-key",
            "id,tz",
            "--output",
            "out-tz",
        ],
    )
    .fails(
        2,
        &["time zone mismatch", "--left-key ts", "--right-key tz"],
    );
    assert!(!d.join("out-tz").exists(), "no output");
}

/// Issue 16: `--spark-keys xxhash64` with a composite key inserts Spark's `xxhash64(a, b)`
/// (each column as its Spark type, the seed chained): the filter in Spark's format is, byte
/// for byte, the plain Spark filter of the column of those longs; a row with a null column is
/// not inserted. The native file records each column's Spark type (`inspect` shows them);
/// `join` with it (and with the Spark-format file and `--spark-keys xxhash64`, the types then
/// from the left key columns) gives the rows of the join without a filter and drops right
/// rows; `probe` reads tab-separated tuples. Errors: a right column of another family, and a
/// composite key in a Spark layout without xxhash64.
#[test]
fn xxhash64_composite_keys_train_join_probe_and_inspect() {
    use xxhash_rust::xxh64::xxh64;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ids: Vec<Option<i64>> = (0..300).map(|i| (i % 17 != 5).then_some(i * 3)).collect();
    let names: Vec<Option<String>> = (0..300)
        .map(|i| (i % 23 != 7).then(|| format!("n{}", i % 40)))
        .collect();
    write_parquet(
        &d.join("left/l.parquet"),
        vec![
            ("id", Arc::new(Int64Array::from(ids.clone())) as ArrayRef),
            (
                "name",
                Arc::new(StringArray::from(names.clone())) as ArrayRef,
            ),
            (
                "tag",
                Arc::new(StringArray::from(names.clone())) as ArrayRef,
            ),
            (
                "small",
                Arc::new(Int32Array::from_iter(
                    ids.iter().map(|v| v.map(|x| x as i32)),
                )) as ArrayRef,
            ),
        ],
        64,
    );
    // Right: every left tuple shifted by one in half the rows (absent tuples), Int32 ids
    // (hashed as the filter's BIGINT) and a dictionary of strings.
    let rid: Vec<Option<i32>> = (0..600)
        .map(|i| ids[i % 300].map(|v| v as i32 + (i >= 300) as i32))
        .collect();
    let rname: Vec<Option<String>> = (0..600).map(|i| names[i % 300].clone()).collect();
    write_parquet(
        &d.join("right/r.parquet"),
        vec![
            ("rid", Arc::new(Int32Array::from(rid)) as ArrayRef),
            (
                "rname",
                Arc::new(
                    rname
                        .iter()
                        .map(|s| s.as_deref())
                        .collect::<DictionaryArray<Int8Type>>(),
                ) as ArrayRef,
            ),
            (
                "rs",
                Arc::new(StringArray::from(vec!["x"; 600])) as ArrayRef,
            ),
        ],
        64,
    );
    // The longs Spark's xxhash64(id, name) gives the non-null tuples.
    let longs: Vec<i64> = ids
        .iter()
        .zip(&names)
        .filter_map(|(i, n)| Some((i.as_ref()?, n.as_ref()?)))
        .map(|(i, n)| xxh64(n.as_bytes(), xxh64(&i.to_le_bytes(), 42)) as i64)
        .collect();
    let present = longs.len();
    write_parquet(
        &d.join("longs/k.parquet"),
        vec![("k", Arc::new(Int64Array::from(longs)) as ArrayRef)],
        64,
    );
    let train = |input: &str, column: &str, out: &str, extra: &[&str]| {
        let mut a = vec![
            "train",
            "-q",
            "--input",
            input,
            "--column",
            column,
            "--layout",
            "spark-v2",
            "--expected-items",
            "500",
            "--output",
            out,
        ];
        a.extend_from_slice(extra);
        run_in(d, &a)
    };
    train(
        "left",
        "id,name",
        "t.spark",
        &["--spark-keys", "xxhash64", "--format", "spark"],
    )
    .ok();
    train("longs", "k", "longs.spark", &["--format", "spark"]).ok();
    assert_eq!(
        std::fs::read(d.join("t.spark")).unwrap(),
        std::fs::read(d.join("longs.spark")).unwrap(),
        "the filter of Spark's xxhash64(id, name) longs"
    );
    train("left", "id,name", "t.bjf", &["--spark-keys", "xxhash64"]).ok();
    let info: serde_json::Value =
        serde_json::from_str(&run_in(d, &["inspect", "t.bjf", "--json"]).ok()).unwrap();
    assert_eq!(info["key_family"], "tuple", "{info}");
    assert_eq!(
        info["inserted"], present as u64,
        "null tuples are not inserted"
    );
    let cols = &info["metadata"]["key_columns"];
    assert_eq!(cols[0]["spark_type"], "bigint", "{info}");
    assert_eq!(cols[1]["spark_type"], "string", "{info}");
    let table = run_in(d, &["inspect", "t.bjf"]).ok();
    assert!(
        table.contains("xxhash64(CAST(id AS BIGINT), CAST(name AS STRING))"),
        "{table}"
    );
    assert!(
        table.contains("name (bytes, Utf8, Spark string)"),
        "{table}"
    );

    let join = |out: &str, extra: &[&str]| {
        let mut a = vec![
            "join",
            "-q",
            "--left",
            "left",
            "--left-key",
            "id,name",
            "--right",
            "right",
            "--right-key",
            "rid,rname",
            "--select",
            "id,name,rs",
            "--output",
            out,
        ];
        let report = format!("{out}.json");
        a.extend(["--report", &report]);
        a.extend_from_slice(extra);
        let r = run_in(d, &a);
        (r, d.join(report))
    };
    join("plain", &["--no-prefilter"]).0.ok();
    let want = read_rows(&d.join("plain")).0;
    assert!(want.len() > 200, "{}", want.len());
    for (out, extra) in [
        ("native", vec!["--filter", "t.bjf"]),
        (
            "spark",
            vec!["--filter", "t.spark", "--spark-keys", "xxhash64"],
        ),
        (
            "spark-reduce",
            vec![
                "--filter",
                "t.spark",
                "--spark-keys",
                "xxhash64",
                "--strategy",
                "reduce-side",
            ],
        ),
    ] {
        let (r, report) = join(out, &extra);
        r.ok();
        assert_eq!(read_rows(&d.join(out)).0, want, "{out}");
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
        assert!(
            j["right"]["rows_dropped_by_filter"].as_u64().unwrap() > 200,
            "{out}: {j}"
        );
    }
    // Spark's format does not record the mode: without --spark-keys xxhash64 a composite
    // key is refused.
    join("unsaid", &["--filter", "t.spark"])
        .0
        .fails(2, &["t.spark", "Spark's format", "--spark-keys xxhash64"]);
    assert!(!d.join("unsaid").exists());
    // Probe: tuples; the Spark-format file with the mode and the families.
    let text = "3\tn1\n3\tn2\n0\tn0\n";
    assert_eq!(
        run_stdin(d, &["probe", "--filter", "t.bjf"], text).ok(),
        "maybe\nno\nmaybe\n"
    );
    assert_eq!(
        run_stdin(
            d,
            &[
                "probe",
                "--filter",
                "t.spark",
                "--spark-keys",
                "xxhash64",
                "--key-type",
                "integer,bytes"
            ],
            text
        )
        .ok(),
        "maybe\nno\nmaybe\n"
    );
    // Spark's format does not record the Spark types: --spark-type names them (default
    // bigint, string by --key-type); hashed as INT the ids are other longs.
    // (Keys as arguments, not standard input: a run that fails before reading its input
    // must not race the writer.)
    let spark_probe = |types: &str| {
        run_in(
            d,
            &[
                "probe",
                "--filter",
                "t.spark",
                "--spark-keys",
                "xxhash64",
                "--key-type",
                "integer,bytes",
                "--spark-type",
                types,
                "3\tn1",
                "3\tn2",
                "0\tn0",
            ],
        )
    };
    assert_eq!(spark_probe("bigint,string").ok(), "maybe\nno\nmaybe\n");
    assert_ne!(spark_probe("int,string").ok(), "maybe\nno\nmaybe\n");
    spark_probe("decimal(10,0),string").ok();
    spark_probe("string,string").fails(2, &["--spark-type", "string does not hold integer keys"]);
    spark_probe("bigint").fails(2, &["--spark-type", "1 types for 2 key columns"]);
    run_in(
        d,
        &[
            "probe",
            "--filter",
            "t.bjf",
            "--spark-type",
            "int,string",
            "3\tn1",
        ],
    )
    .fails(2, &["--spark-type", "records its key types"]);
    run_in(d, &["probe", "--filter", "t.bjf", "x\tn1"]).fails(2, &["field 1", "not a number"]);
    // Shards merge into the filter of the whole input; other Spark types do not merge.
    for i in 0..2 {
        let shard = format!("{i}/2");
        train(
            "left",
            "id,name",
            &format!("s{i}.bjf"),
            &["--spark-keys", "xxhash64", "--shard", &shard],
        )
        .ok();
    }
    run_in(d, &["merge", "-q", "--output", "m.bjf", "s0.bjf", "s1.bjf"]).ok();
    assert_eq!(
        std::fs::read(d.join("m.bjf")).unwrap(),
        std::fs::read(d.join("t.bjf")).unwrap()
    );
    train(
        "left",
        "small,name",
        "ints.bjf",
        &["--spark-keys", "xxhash64"],
    )
    .ok();
    run_in(
        d,
        &["merge", "-q", "--output", "m2.bjf", "t.bjf", "ints.bjf"],
    )
    .fails(
        2,
        &[
            "ints.bjf",
            "spark key types",
            "bigint, string vs int, string",
        ],
    );
    assert!(!d.join("m2.bjf").exists());
    // inspect's might_contain call: a zone-less timestamp is Spark's TIMESTAMP_NTZ (a cast to
    // TIMESTAMP would shift it by the session time zone), a zoned one TIMESTAMP.
    write_parquet(
        &d.join("ts/t.parquet"),
        vec![
            ("id", Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef),
            (
                "wall",
                Arc::new(TimestampMillisecondArray::from(vec![1_000, 2_000])) as ArrayRef,
            ),
            (
                "instant",
                Arc::new(TimestampMillisecondArray::from(vec![1_000, 2_000]).with_timezone("UTC"))
                    as ArrayRef,
            ),
        ],
        2,
    );
    train(
        "ts",
        "id,wall,instant",
        "ts.bjf",
        &["--spark-keys", "xxhash64"],
    )
    .ok();
    let table = run_in(d, &["inspect", "ts.bjf"]).ok();
    assert!(
        table.contains(
            "xxhash64(CAST(id AS BIGINT), CAST(wall AS TIMESTAMP_NTZ), CAST(instant AS TIMESTAMP))"
        ),
        "{table}"
    );
    train("ts", "wall", "wall.bjf", &["--spark-keys", "xxhash64"]).ok();
    let table = run_in(d, &["inspect", "wall.bjf"]).ok();
    assert!(
        table.contains("xxhash64(CAST(col AS TIMESTAMP_NTZ))"),
        "{table}"
    );
    // Errors: a right column of another family; no xxhash64 with a Spark layout.
    run_in(
        d,
        &[
            "join",
            "-q",
            "--filter",
            "t.bjf",
            "--left",
            "left",
            "--left-key",
            "tag,name",
            "--right",
            "right",
            "--right-key",
            "rname,rs",
            "--output",
            "bad",
        ],
    )
    .fails(2, &["key family mismatch", "--right-key column 1 (rname)"]);
    assert!(!d.join("bad").exists());
    train("left", "id,name", "p.bjf", &[])
        .fails(2, &["--layout", "composite key", "--spark-keys xxhash64"]);
    assert!(!d.join("p.bjf").exists());
}
