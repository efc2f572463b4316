//! The join never returns wrong rows silently (issue 12): a filter that does not cover the
//! left side is an error (or, asked for, ignored and said so), unsigned statistics prune by
//! value, and a side whose files hold the key in different integer types joins.

use std::path::Path;
use std::sync::Arc;

use arrow::array::*;

use crate::join_cli::{fixture, reference};
use crate::util::{files_below, read_rows, root, run_in, write_parquet, Run};

fn args<'a>(filter: &'a str, left: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "join",
        "-q",
        "--filter",
        filter,
        "--left",
        left,
        "--left-key",
        "Id",
        "--right",
        "comments",
        "--right-key",
        "UserId",
        "--output",
        out,
    ];
    a.extend_from_slice(extra);
    a
}

/// A failed join: exit 2, one line naming the filter and a left key, nothing written.
#[track_caller]
fn refused(d: &Path, r: Run, filter: &str, out: &str) -> String {
    let err = r.fails(2, &[filter, "does not cover the left side", "left key "]);
    assert!(
        files_below(&d.join(out)).is_empty(),
        "{:?}",
        files_below(&d.join(out))
    );
    err
}

/// Issue 12, defect 2, as reported: on data/sample, a filter trained with
/// `--where "Reputation > 1500"` and a join without `--left-where` gave 19,109 rows instead of
/// 94,208, exit 0, nothing on stderr.
#[test]
fn a_filter_trained_with_another_where_is_an_error_or_ignored_and_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::os::unix::fs::symlink(root().join("data/sample/users"), d.join("users")).unwrap();
    std::os::unix::fs::symlink(root().join("data/sample/comments"), d.join("comments")).unwrap();
    run_in(
        d,
        &[
            "train",
            "-q",
            "--input",
            "users",
            "--column",
            "Id",
            "--where",
            "Reputation > 1500",
            "--output",
            "rep.bjf",
        ],
    )
    .ok();
    for strategy in ["replicated", "reduce-side"] {
        let out = format!("o-{strategy}");
        let r = run_in(
            d,
            &args("rep.bjf", "users", &out, &["--strategy", strategy]),
        );
        refused(d, r, "rep.bjf", &out);
    }
    // ignore-filter: the filter is set aside and the join builds its own from the left side
    // (in memory, or from the keys it spills), gives the right rows, and says so even with -q.
    for strategy in ["replicated", "reduce-side"] {
        let (out, json) = (
            format!("ignored-{strategy}"),
            format!("ignored-{strategy}.json"),
        );
        let r = run_in(
            d,
            &args(
                "rep.bjf",
                "users",
                &out,
                &[
                    "--filter-mismatch",
                    "ignore-filter",
                    "--strategy",
                    strategy,
                    "--report",
                    &json,
                ],
            ),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.is_empty());
        assert!(
            r.stderr
                .contains("bloomjoin: warning: the filter rep.bjf does not cover")
                && r.stderr.contains("ignore-filter sets it aside")
                && r.stderr.contains("builds its own from the left side"),
            "{}",
            r.stderr
        );
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(&json)).unwrap()).unwrap();
        assert_eq!(report["rows_out"], 94_208);
        let p = &report["prefilter"];
        assert_eq!(p["used"], true, "{strategy}");
        assert!(p["filter"].is_null(), "{strategy}");
        assert!(p["built_from_rows"].as_u64().unwrap() > 0, "{strategy}");
        assert_eq!(read_rows(&d.join(&out)).0.len(), 94_208);
    }
    // With the condition the filter was trained with, the filter covers the left side.
    let r = run_in(
        d,
        &args(
            "rep.bjf",
            "users",
            "covered",
            &["--left-where", "Reputation > 1500"],
        ),
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(read_rows(&d.join("covered")).0.len(), 18_635);
    // A stricter --left-where is covered, but the metadata differ: a warning on stderr even
    // with -q, and the right rows.
    let r = run_in(
        d,
        &args(
            "rep.bjf",
            "users",
            "stricter",
            &["--left-where", "Reputation > 5000"],
        ),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("bloomjoin: warning: the filter was trained with --where"),
        "{}",
        r.stderr
    );
}

/// Defect 2: a filter trained on another column, and a Spark-format filter (which records
/// nothing about what was inserted), are caught by the same check.
#[test]
fn a_filter_of_another_column_or_in_spark_format_is_checked_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    // Reputation values are integers too, but not the ids.
    run_in(
        d,
        &[
            "train",
            "-q",
            "--input",
            "users",
            "--column",
            "Reputation",
            "--output",
            "rep.bjf",
        ],
    )
    .ok();
    refused(
        d,
        run_in(d, &args("rep.bjf", "users", "o1", &[])),
        "rep.bjf",
        "o1",
    );
    for layout in ["spark-v1", "spark-v2"] {
        let f = format!("{layout}.spark");
        run_in(
            d,
            &[
                "train",
                "-q",
                "--input",
                "users",
                "--column",
                "Id",
                "--where",
                "Reputation > 1500",
                "--layout",
                layout,
                "--format",
                "spark",
                "--output",
                &f,
            ],
        )
        .ok();
        let out = format!("o-{layout}");
        refused(d, run_in(d, &args(&f, "users", &out, &[])), &f, &out);
        // Covered: the right rows.
        let ok = format!("ok-{layout}");
        run_in(
            d,
            &args(
                &f,
                "users",
                &ok,
                &["--left-where", "Reputation > 1500", "--type", "left"],
            ),
        )
        .ok();
        assert_eq!(
            read_rows(&d.join(&ok)).0,
            reference("left", 1500),
            "{layout}"
        );
    }
}

/// Issue 12, defect 7: a filter trained on one shard of the left side, or before a file was
/// added to the left directory, dropped the rows of the keys it lacks; now it fails clearly.
#[test]
fn a_filter_from_a_shard_or_an_older_snapshot_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    let train_args = |input: &'static str, out: &'static str, extra: &[&'static str]| {
        let mut a = vec![
            "train", "-q", "--input", input, "--column", "Id", "--output", out,
        ];
        a.extend_from_slice(extra);
        a
    };
    run_in(
        d,
        &train_args(
            "users",
            "shard0.bjf",
            &["--shard", "0/2", "--bits", "4096", "--hashes", "8"],
        ),
    )
    .ok();
    for jt in ["inner", "left-semi", "left-anti", "left"] {
        let out = format!("shard-{jt}");
        refused(
            d,
            run_in(d, &args("shard0.bjf", "users", &out, &["--type", jt])),
            "shard0.bjf",
            &out,
        );
    }
    // The merge of both shards covers the left side again.
    run_in(
        d,
        &train_args(
            "users",
            "shard1.bjf",
            &["--shard", "1/2", "--bits", "4096", "--hashes", "8"],
        ),
    )
    .ok();
    run_in(
        d,
        &[
            "merge",
            "-q",
            "--output",
            "merged.bjf",
            "shard0.bjf",
            "shard1.bjf",
        ],
    )
    .ok();
    run_in(
        d,
        &args("merged.bjf", "users", "merged", &["--type", "left-anti"]),
    )
    .ok();
    assert_eq!(
        read_rows(&d.join("merged")).0,
        reference("left-anti", i64::MIN)
    );

    // Yesterday's filter, today's left directory: users 300..349 are new, and have comments.
    run_in(d, &train_args("users", "yesterday.bjf", &[])).ok();
    write_parquet(
        &d.join("users/u9.parquet"),
        vec![
            (
                "Id",
                Arc::new(Int64Array::from_iter_values(300..350)) as ArrayRef,
            ),
            (
                "name",
                Arc::new(StringArray::from_iter_values(
                    (300..350).map(|i| format!("new{i}")),
                )),
            ),
            (
                "Reputation",
                Arc::new(Int64Array::from_iter_values(300..350)),
            ),
        ],
        50,
    );
    for strategy in ["replicated", "reduce-side"] {
        let out = format!("snapshot-{strategy}");
        let r = run_in(
            d,
            &args("yesterday.bjf", "users", &out, &["--strategy", strategy]),
        );
        refused(d, r, "yesterday.bjf", &out);
    }
    run_in(d, &train_args("users", "today.bjf", &[])).ok();
    run_in(d, &args("today.bjf", "users", "today", &[])).ok();
    assert!(read_rows(&d.join("today"))
        .0
        .iter()
        .any(|r| r.starts_with("300|new300|")));
}

/// Issue 12, defect 1 (pruning): a right row group holding {5, 2^63 + 1, 7} in a UInt64 key
/// has a maximum that, read as i64, is negative: the row group was skipped and the inner join
/// gave 0 rows with the prefilter, 2 without.
#[test]
fn unsigned_row_group_statistics_prune_by_value() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let big = (1u64 << 63) + 1;
    write_parquet(
        &d.join("right/r.parquet"),
        vec![(
            "k",
            Arc::new(UInt64Array::from(vec![5, big, 7])) as ArrayRef,
        )],
        3,
    );
    write_parquet(
        &d.join("left-i64/l.parquet"),
        vec![("k", Arc::new(Int64Array::from(vec![5, 7])) as ArrayRef)],
        2,
    );
    write_parquet(
        &d.join("left-u64/l.parquet"),
        vec![("k", Arc::new(UInt64Array::from(vec![5, 7])) as ArrayRef)],
        2,
    );
    for left in ["left-i64", "left-u64"] {
        let f = format!("{left}.bjf");
        run_in(
            d,
            &[
                "train", "-q", "--input", left, "--column", "k", "--output", &f,
            ],
        )
        .ok();
        for (i, extra) in [
            vec![],
            vec!["--no-prefilter"],
            vec!["--strategy", "reduce-side"],
        ]
        .into_iter()
        .enumerate()
        {
            let out = format!("o-{left}-{i}");
            let json = format!("{out}.json");
            let mut a = vec![
                "join",
                "-q",
                "--filter",
                &f,
                "--left",
                left,
                "--left-key",
                "k",
                "--right",
                "right",
                "--right-key",
                "k",
                "--output",
                &out,
                "--report",
                &json,
            ];
            a.extend_from_slice(&extra);
            run_in(d, &a).ok();
            assert_eq!(
                read_rows(&d.join(&out)).0,
                ["5|5", "7|7"],
                "{left} {extra:?}"
            );
            let r: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(d.join(&json)).unwrap()).unwrap();
            assert_eq!(r["right"]["row_groups_skipped"], 0, "{left} {extra:?}");
        }
    }
    // The statistics tier still skips what is truly out of range.
    write_parquet(
        &d.join("right2/r.parquet"),
        vec![(
            "k",
            Arc::new(UInt64Array::from(vec![5, 7, big, big + 1])) as ArrayRef,
        )],
        2,
    );
    let a = [
        "join",
        "-q",
        "--filter",
        "left-i64.bjf",
        "--left",
        "left-i64",
        "--left-key",
        "k",
        "--right",
        "right2",
        "--right-key",
        "k",
        "--output",
        "o2",
        "--report",
        "o2.json",
    ];
    run_in(d, &a).ok();
    assert_eq!(read_rows(&d.join("o2")).0, ["5|5", "7|7"]);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("o2.json")).unwrap()).unwrap();
    assert_eq!(r["right"]["row_groups_skipped"], 1);
}

/// Issue 12, defect 10: a left side whose first file has an Int32 key and a later file an
/// Int64 key holding 2^40 trained fine, but the join failed with exit 1 (the second file was
/// cast to the first file's Int32).
#[test]
fn a_side_whose_files_hold_the_key_in_different_integer_types_joins() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let big = 1i64 << 40;
    write_parquet(
        &d.join("left/a.parquet"),
        vec![("k", Arc::new(Int32Array::from(vec![1, 2])) as ArrayRef)],
        2,
    );
    write_parquet(
        &d.join("left/b.parquet"),
        vec![("k", Arc::new(Int64Array::from(vec![big, 3])) as ArrayRef)],
        2,
    );
    write_parquet(
        &d.join("right/r.parquet"),
        vec![
            ("k", Arc::new(UInt32Array::from(vec![1, 5, 3])) as ArrayRef),
            (
                "v",
                Arc::new(StringArray::from(vec!["one", "five", "three"])) as ArrayRef,
            ),
        ],
        3,
    );
    write_parquet(
        &d.join("right/s.parquet"),
        vec![
            (
                "k",
                Arc::new(Int64Array::from(vec![big, big + 1])) as ArrayRef,
            ),
            (
                "v",
                Arc::new(DictionaryArray::<arrow::datatypes::Int8Type>::from_iter([
                    "big", "bigger",
                ])) as ArrayRef,
            ),
        ],
        2,
    );
    run_in(
        d,
        &[
            "train", "-q", "--input", "left", "--column", "k", "--output", "f.bjf",
        ],
    )
    .ok();
    for strategy in ["replicated", "reduce-side"] {
        let out = format!("o-{strategy}");
        run_in(
            d,
            &[
                "join",
                "-q",
                "--filter",
                "f.bjf",
                "--left",
                "left",
                "--left-key",
                "k",
                "--right",
                "right",
                "--right-key",
                "k",
                "--strategy",
                strategy,
                "--type",
                "full",
                "--output",
                &out,
            ],
        )
        .ok();
        let (rows, _) = read_rows(&d.join(&out));
        let b = big.to_string();
        let mut want = vec![
            "1|1|one".to_string(),
            "2|NULL|NULL".to_string(),
            "3|3|three".to_string(),
            format!("{b}|{b}|big"),
            "NULL|5|five".to_string(),
            format!("NULL|{}|bigger", big + 1),
        ];
        want.sort();
        assert_eq!(rows, want, "{strategy}");
    }
    // No type holds both a string and a binary column (UInt64 and Int64 meet in a decimal
    // since 2026-11-26: `key_types::the_files_of_one_side_may_hold_a_column_in_types_that_meet_by_value`):
    // a one-line refusal naming file and column.
    write_parquet(
        &d.join("mixed/a.parquet"),
        vec![("k", Arc::new(StringArray::from(vec!["x"])) as ArrayRef)],
        1,
    );
    write_parquet(
        &d.join("mixed/b.parquet"),
        vec![(
            "k",
            Arc::new(BinaryArray::from(vec![&b"y"[..]])) as ArrayRef,
        )],
        1,
    );
    run_in(
        d,
        &[
            "join",
            "-q",
            "--no-prefilter",
            "--left",
            "mixed",
            "--left-key",
            "k",
            "--right",
            "right",
            "--right-key",
            "k",
            "--output",
            "o-mixed",
        ],
    )
    .fails(2, &["b.parquet", "\"k\"", "Utf8", "Binary", "do not match"]);
    assert!(files_below(&d.join("o-mixed")).is_empty());
}
