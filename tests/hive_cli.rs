//! Hive-style partition directories (`dt=2024-01-01/part-0.parquet`) through the binary: their
//! values are columns of the files' rows, typed, in `*`, `--select` and `--where` (join and
//! train), files whose values fail a `--where` are not read, and bad layouts are refused.

use std::path::Path;
use std::sync::Arc;

use arrow::array::*;

use crate::util::{read_rows, run_in, write_parquet};

/// Left: users by `region` (one of them Hive's null); right: orders by `dt` and `h`.
fn partitioned(d: &Path) {
    for (region, ids) in [
        ("EU", vec![1i64, 2]),
        ("US", vec![3]),
        ("a%2Fb", vec![4]),
        ("__HIVE_DEFAULT_PARTITION__", vec![5]),
    ] {
        let dir = d.join(format!("users/region={region}"));
        std::fs::create_dir_all(&dir).unwrap();
        let names: Vec<String> = ids.iter().map(|i| format!("u{i}")).collect();
        write_parquet(
            &dir.join("part-0.parquet"),
            vec![
                ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
                ("name", Arc::new(StringArray::from(names))),
            ],
            10,
        );
    }
    for (dt, h, uids) in [
        ("2024-01-01", 7, vec![1i64, 3, 9]),
        ("2024-01-02", 7, vec![2, 4, 5]),
        ("2024-01-02", 8, vec![1, 5]),
    ] {
        let dir = d.join(format!("orders/dt={dt}/h={h}"));
        std::fs::create_dir_all(&dir).unwrap();
        let amt: Vec<f64> = uids.iter().map(|u| *u as f64 / 2.0).collect();
        write_parquet(
            &dir.join("part-0.parquet"),
            vec![
                ("uid", Arc::new(Int64Array::from(uids)) as ArrayRef),
                ("amt", Arc::new(Float64Array::from(amt))),
            ],
            10,
        );
    }
}

/// `join` of users (key `lkey`) and orders (on `uid`) into `out`, with `extra` options.
fn join_args<'a>(lkey: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "join",
        "--left",
        "users",
        "--left-key",
        lkey,
        "--right",
        "orders",
        "--right-key",
        "uid",
        "--output",
        out,
    ];
    a.extend_from_slice(extra);
    a
}

fn join(d: &Path, out: &str, extra: &[&str]) -> String {
    run_in(d, &join_args("id", out, extra)).ok()
}

#[test]
fn partition_directories_are_typed_columns() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    partitioned(d);
    for strategy in ["replicated", "reduce-side"] {
        let out = format!("all-{strategy}");
        join(d, &out, &["--strategy", strategy, "--workers", "3"]);
        let (rows, names) = read_rows(&d.join(&out));
        // The partition columns come after the files' own, in the order of their directories;
        // values are percent-decoded and typed (a date, an integer), Hive's null is null.
        assert_eq!(names, ["id", "name", "region", "uid", "amt", "dt", "h"]);
        assert_eq!(
            rows,
            [
                "1|u1|EU|1|0.5|2024-01-01|7",
                "1|u1|EU|1|0.5|2024-01-02|8",
                "2|u2|EU|2|1.0|2024-01-02|7",
                "3|u3|US|3|1.5|2024-01-01|7",
                "4|u4|a/b|4|2.0|2024-01-02|7",
                "5|u5|NULL|5|2.5|2024-01-02|7",
                "5|u5|NULL|5|2.5|2024-01-02|8",
            ],
            "{strategy}"
        );
    }
    let schema = |out: &str| {
        let f = std::fs::read_dir(d.join(out))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "parquet"))
            .unwrap();
        let r = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
            std::fs::File::open(f).unwrap(),
        )
        .unwrap();
        r.schema()
            .fields()
            .iter()
            .map(|f| format!("{}:{}", f.name(), f.data_type()))
            .collect::<Vec<_>>()
    };
    assert_eq!(schema("all-replicated")[5..], ["dt:Date32", "h:Int64"]);
    assert_eq!(schema("all-replicated")[2], "region:Utf8");

    // --select and AS take partition columns like any other.
    join(d, "sel", &["--select", "id, region AS r, dt"]);
    let (rows, names) = read_rows(&d.join("sel"));
    assert_eq!(names, ["id", "r", "dt"]);
    assert_eq!(rows.len(), 7);
    assert!(rows.contains(&"4|a/b|2024-01-02".to_string()), "{rows:?}");

    // With --no-hive-partitioning the directories are just directories.
    join(d, "plain", &["--no-hive-partitioning"]);
    let (rows, names) = read_rows(&d.join("plain"));
    assert_eq!(names, ["id", "name", "uid", "amt"]);
    assert_eq!(rows.len(), 7);
}

#[test]
fn where_on_partition_columns_skips_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    partitioned(d);
    for strategy in ["replicated", "reduce-side"] {
        let out = format!("w-{strategy}");
        let summary = join(
            d,
            &out,
            &[
                "--strategy",
                strategy,
                "--right-where",
                "dt = DATE '2024-01-02' AND amt > 0.5",
                "--left-where",
                "region IS NULL OR region <> 'US'",
                "--select",
                "id,region,amt,dt,h",
            ],
        );
        let (rows, _) = read_rows(&d.join(&out));
        assert_eq!(
            rows,
            [
                "2|EU|1.0|2024-01-02|7",
                "4|a/b|2.0|2024-01-02|7",
                "5|NULL|2.5|2024-01-02|7",
                "5|NULL|2.5|2024-01-02|8",
            ],
            "{strategy}"
        );
        // The right file of 2024-01-01 is not read: the conjunct on dt alone rules it out.
        // No left file is: its condition holds for the null region (IS NULL), and `<> 'US'`
        // rules out US only.
        assert!(
            summary.contains("right  2 files (and 1 skipped by their partition values)"),
            "{summary}"
        );
        assert!(
            summary.contains("left   3 files (and 1 skipped by their partition values)"),
            "{summary}"
        );
    }
    // The same conditions in --join-where: its conjuncts on one side's columns alone go into
    // that side's where, and those on partition columns alone skip the files (an inner join
    // keeps no unmatched row). In a left join the left conjunct stays on the pairs: every
    // left file is read, and its failing users come out with nulls.
    let cond = "right.dt = DATE '2024-01-02' AND amt > 0.5 AND (region IS NULL OR region <> 'US')";
    for (jt, left_files, rows) in [
        (
            "inner",
            "left   3 files (and 1 skipped by their partition values)",
            4,
        ),
        ("left", "left   4 files, ", 6),
    ] {
        let out = format!("jw-{jt}");
        let summary = join(
            d,
            &out,
            &[
                "--type",
                jt,
                "--join-where",
                cond,
                "--select",
                "id,region,amt,dt,h",
            ],
        );
        assert!(
            summary.contains("right  2 files (and 1 skipped by their partition values)"),
            "{summary}"
        );
        assert!(summary.contains(left_files), "{summary}");
        let (got, _) = read_rows(&d.join(&out));
        assert_eq!(got.len(), rows, "{jt}: {got:?}");
        if jt == "inner" {
            assert_eq!(got, read_rows(&d.join("w-replicated")).0);
        }
    }
    // An OR with a file column decides nothing per file: every file is read.
    let summary = join(d, "or", &["--right-where", "h = 8 OR amt > 2"]);
    assert!(summary.contains("right  3 files, "), "{summary}");
    let (rows, _) = read_rows(&d.join("or"));
    assert_eq!(rows.len(), 3, "{rows:?}");

    // train: the same columns in --where; the filter holds the passing keys only. Each:
    // the --where, the summary's inputs, and the probe of keys 1, 2, 3, 4, 5, 9.
    for (i, (w, inputs, probe)) in [
        (
            "h = 7",
            "2 files (and 1 skipped by their partition values)",
            "yyyyyy",
        ),
        (
            "h = 8",
            "1 files (and 2 skipped by their partition values)",
            "ynnnyn",
        ),
        // No file passes: none read (the first opened for the columns alone), an empty filter.
        (
            "h = 9",
            "0 files (and 3 skipped by their partition values), 0 splits",
            "nnnnnn",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let f = format!("f{i}.bjf");
        let args = [
            "train", "--input", "orders", "--column", "uid", "--where", w, "-o", &f,
        ];
        let out = run_in(d, &args).ok();
        assert!(out.contains(inputs), "{w}: {out}");
        let keys = ["1", "2", "3", "4", "5", "9"];
        let got = run_in(d, &[&["probe", "--filter", &f][..], &keys].concat()).ok();
        let want: Vec<&str> = probe
            .chars()
            .map(|c| if c == 'y' { "maybe" } else { "no" })
            .collect();
        assert_eq!(got.lines().collect::<Vec<_>>(), want, "{w}");
    }
    // A join whose right --where no file passes: no right rows.
    for strategy in ["replicated", "reduce-side"] {
        let out = format!("none-{strategy}");
        join(
            d,
            &out,
            &[
                "--right-where",
                "h > 8",
                "--type",
                "left",
                "--strategy",
                strategy,
            ],
        );
        let (rows, names) = read_rows(&d.join(&out));
        assert_eq!(names, ["id", "name", "region", "uid", "amt", "dt", "h"]);
        assert_eq!(rows.len(), 5, "{rows:?}");
        assert!(
            rows.iter().all(|r| r.ends_with("|NULL|NULL|NULL|NULL")),
            "{rows:?}"
        );
    }
}

#[test]
fn bad_partition_layouts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    partitioned(d);
    let fails = |args: &[&str], needles: &[&str]| {
        run_in(d, args).fails(2, needles);
        assert!(!d.join("bad").exists());
    };
    // Parquet's own filter hashes a column's stored values, which a directory has none of.
    fails(
        &[
            "train", "--input", "orders", "--column", "dt", "--layout", "sbbf", "--output", "bad",
        ],
        &[
            "dt=2024-01-01/h=7/part-0.parquet",
            "column \"dt\"",
            "a partition column",
            "train another --layout",
        ],
    );
    // A misspelt partition column gets a hint.
    fails(
        &join_args("id", "bad", &["--left-where", "regoin = 'EU'"]),
        &["\"regoin\"", "did you mean \"region\""],
    );
    // Files of one side with different directories.
    std::fs::create_dir_all(d.join("orders/misplaced")).unwrap();
    std::fs::copy(
        d.join("orders/dt=2024-01-01/h=7/part-0.parquet"),
        d.join("orders/misplaced/part-0.parquet"),
    )
    .unwrap();
    fails(
        &join_args("id", "bad", &[]),
        &[
            "orders/misplaced/part-0.parquet",
            "(none)",
            "(dt=/h=)",
            "--no-hive-partitioning",
        ],
    );
    // ... which --no-hive-partitioning reads.
    join(d, "plain", &["--no-hive-partitioning"]);
    assert_eq!(read_rows(&d.join("plain")).0.len(), 9);
    // A column both in the file and in its path.
    std::fs::create_dir_all(d.join("dup/id=1")).unwrap();
    std::fs::copy(
        d.join("users/region=EU/part-0.parquet"),
        d.join("dup/id=1/part-0.parquet"),
    )
    .unwrap();
    fails(
        &[
            "train", "--input", "dup", "--column", "name", "--output", "bad",
        ],
        &[
            "dup/id=1/part-0.parquet",
            "column \"id\"",
            "partition directory",
            "--no-hive-partitioning",
        ],
    );
}

/// On an object store (S3, moto): the same partition columns (a percent-encoded value in the
/// key included) and the same files skipped as locally.
#[test]
fn partitions_on_s3_are_read_as_locally() {
    let s3 = crate::util::S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    partitioned(d);
    s3.upload_dir("lake", &d.join("users"), "users");
    s3.upload_dir("lake", &d.join("orders"), "orders");
    assert!(s3
        .keys("lake", "users/")
        .contains(&"users/region=a%2Fb/part-0.parquet".to_string()));
    let extra = ["--right-where", "dt = DATE '2024-01-02'"];
    let local = join(d, "local", &extra);
    let mut args = join_args("id", "s3://lake/out", &extra);
    args[2] = "s3://lake/users";
    args[6] = "s3://lake/orders";
    let remote = crate::util::run_env(d, &args, &s3.env()).ok();
    for summary in [&local, &remote] {
        assert!(
            summary.contains("right  2 files (and 1 skipped by their partition values)"),
            "{summary}"
        );
    }
    s3.download("lake", "out", &d.join("remote"));
    let (rows, names) = read_rows(&d.join("remote"));
    assert_eq!((rows.clone(), names), read_rows(&d.join("local")));
    assert!(
        rows.contains(&"4|u4|a/b|4|2.0|2024-01-02|7".to_string()),
        "{rows:?}"
    );
    // Joined on the partition column `h` alone: the file of h=8 is not fetched there either.
    write_parquet(
        &d.join("hours/hours.parquet"),
        vec![(
            "hour",
            Arc::new(Int64Array::from(vec![7i64, 9])) as ArrayRef,
        )],
        10,
    );
    s3.upload_dir("lake", &d.join("hours"), "hours");
    let by_hour = |left: &str, right: &str, out: &str, report: &str| {
        let args = [
            "join",
            "--left",
            left,
            "--left-key",
            "hour",
            "--right",
            right,
            "--right-key",
            "h",
            "--output",
            out,
            "--report",
            report,
        ];
        crate::util::run_env(d, &args, &s3.env()).ok();
    };
    by_hour("hours", "orders", "h-local", "h-local.json");
    by_hour(
        "s3://lake/hours",
        "s3://lake/orders",
        "s3://lake/by-hour",
        "h-remote.json",
    );
    s3.download("lake", "by-hour", &d.join("h-remote"));
    let (rows, _) = read_rows(&d.join("h-remote"));
    assert_eq!(rows, read_rows(&d.join("h-local")).0);
    assert_eq!(rows.len(), 6, "{rows:?}");
    for report in ["h-local.json", "h-remote.json"] {
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join(report)).unwrap()).unwrap();
        assert_eq!(
            r["right"]["files_skipped_by_partition_key"], 1,
            "{report}: {r}"
        );
        assert_eq!(
            r["right"]["rows_skipped_by_partition_key"], 2,
            "{report}: {r}"
        );
        assert_eq!(r["right"]["rows_read"], 6, "{report}: {r}");
    }
}

/// A relative input's partition directories are those of the path as written: the working
/// directory's own `name=value` directories are no columns (an absolute path's are, as in
/// DuckDB).
#[test]
fn the_working_directorys_own_directories_are_no_partitions() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("run=7");
    std::fs::create_dir_all(&d).unwrap();
    partitioned(&d);
    join(&d, "rel", &["--select", "id, region"]);
    assert_eq!(read_rows(&d.join("rel")).1, ["id", "region"]);
    let users = d.join("users").display().to_string();
    let mut args = join_args("id", "abs", &[]);
    args[2] = &users;
    run_in(&d, &args).ok();
    let names = read_rows(&d.join("abs")).1;
    assert_eq!(names[..4], ["id", "name", "run", "region"]);
}

/// A file whose partition values fail the `--where` is never opened: a corrupt one there is
/// no error (it is, when its partition is read).
#[test]
fn pruned_files_are_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    partitioned(d);
    let bad = d.join("orders/dt=2023-12-31/h=7");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("part-0.parquet"), b"not parquet at all").unwrap();
    let summary = join(d, "ok", &["--right-where", "dt >= DATE '2024-01-01'"]);
    assert!(
        summary.contains("right  3 files (and 1 skipped by their partition values)"),
        "{summary}"
    );
    assert_eq!(read_rows(&d.join("ok")).0.len(), 7);
    run_in(d, &join_args("id", "bad", &[])).fails(2, &["dt=2023-12-31/h=7/part-0.parquet"]);
    assert!(!d.join("bad").exists());
    // The side's columns are those of the files read: a column only a skipped file holds
    // is not there, and the error says why.
    std::fs::remove_dir_all(&bad).unwrap();
    let old = d.join("orders/dt=2023-12-30/h=7");
    std::fs::create_dir_all(&old).unwrap();
    write_parquet(
        &old.join("part-0.parquet"),
        vec![
            ("uid", Arc::new(Int64Array::from(vec![1i64])) as ArrayRef),
            ("amt", Arc::new(Float64Array::from(vec![9.5]))),
            ("note", Arc::new(StringArray::from(vec!["old"]))),
        ],
        10,
    );
    let recent = ["--right-where", "dt >= DATE '2024-01-01'"];
    let (rows, names) = {
        join(d, "recent", &recent);
        read_rows(&d.join("recent"))
    };
    assert_eq!((rows.len(), names.len()), (7, 7), "{names:?}");
    let mut args = join_args("id", "bad", &recent);
    args.extend(["--select", "id, note"]);
    run_in(d, &args).fails(
        2,
        &[
            "\"note\"",
            "1 file skipped by its partition values was not read",
        ],
    );
    let mut args = join_args("id", "bad", &recent);
    args[12] = "dt >= DATE '2024-01-01' AND note IS NULL";
    run_in(d, &args).fails(
        2,
        &[
            "\"note\"",
            "1 file skipped by its partition values was not read",
        ],
    );
    // Read, the old file gives its column to every file's rows (nulls where they lack it).
    join(d, "all", &[]);
    let (rows, names) = read_rows(&d.join("all"));
    assert_eq!(
        names,
        ["id", "name", "region", "uid", "amt", "note", "dt", "h"]
    );
    assert_eq!(rows.len(), 8);
    assert!(
        rows.contains(&"1|u1|EU|1|9.5|old|2023-12-30|7".to_string()),
        "{rows:?}"
    );
}

/// A partition column beside a column of the files makes a composite key (daily tables
/// joined on `(dt, id)`): the same rows as the key's columns in the files, for train and
/// join, both strategies, with the filter trained on the tuple.
#[test]
fn partition_columns_in_composite_keys() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A daily snapshot and daily events: user 1 on both days, user 2 on the first only.
    for (day, ids) in [("2024-01-01", vec![1i64, 2]), ("2024-01-02", vec![1])] {
        let snap = d.join(format!("snap/dt={day}"));
        std::fs::create_dir_all(&snap).unwrap();
        let names: Vec<String> = ids.iter().map(|i| format!("{day}:{i}")).collect();
        write_parquet(
            &snap.join("part-0.parquet"),
            vec![
                ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
                ("v", Arc::new(StringArray::from(names))),
            ],
            10,
        );
    }
    for (day, uids) in [
        ("2024-01-01", vec![Some(1i64), Some(2), None, Some(3)]),
        ("2024-01-02", vec![Some(2), Some(1), Some(1)]),
    ] {
        let ev = d.join(format!("events/dt={day}"));
        std::fs::create_dir_all(&ev).unwrap();
        let n = uids.len();
        write_parquet(
            &ev.join("part-0.parquet"),
            vec![
                ("uid", Arc::new(Int64Array::from(uids)) as ArrayRef),
                ("n", Arc::new(Int64Array::from_iter_values(0..n as i64))),
            ],
            2,
        );
    }
    run_in(
        d,
        &[
            "train", "-q", "--input", "snap", "--column", "dt,id", "--output", "f.bjf",
        ],
    )
    .ok();
    // A partition column of a filter's key is inspected as such.
    let info = run_in(d, &["inspect", "f.bjf"]).ok();
    assert!(info.contains("Date32"), "{info}");
    let want = [
        "2024-01-01:1|2024-01-01|1|0",
        "2024-01-01:2|2024-01-01|2|1",
        "2024-01-02:1|2024-01-02|1|1",
        "2024-01-02:1|2024-01-02|1|2",
    ];
    for strategy in ["replicated", "reduce-side"] {
        for filter in [&["--filter", "f.bjf"][..], &[]] {
            let out = format!("j-{strategy}-{}", filter.len());
            let report = format!("{out}.json");
            let mut args = vec![
                "join",
                "--left",
                "snap",
                "--left-key",
                "dt,id",
                "--right",
                "events",
                "--right-key",
                "dt,uid",
                "--select",
                "v,left.dt,uid,n",
                "--strategy",
                strategy,
                "--split-rows",
                "2",
                "--workers",
                "3",
                "--output",
                &out,
                "--report",
                &report,
            ];
            args.extend_from_slice(filter);
            let summary = run_in(d, &args).ok();
            let (rows, names) = read_rows(&d.join(&out));
            assert_eq!(names, ["v", "dt", "uid", "n"]);
            assert_eq!(rows, want, "{strategy} {filter:?}");
            // Only the 4 matching events reach the join: user 3's and the null go by the
            // statistics, the filter or the null check, and user 2's of the second day (whose
            // id alone a left row has) by the filter on the tuple or the left keys.
            let report: serde_json::Value =
                serde_json::from_slice(&std::fs::read(d.join(&report)).unwrap()).unwrap();
            assert_eq!(report["right"]["rows_mapped"], 4, "{summary}");
        }
    }
    // The same filter bytes for any workers and split size.
    for (w, rows) in [("1", "1"), ("3", "1000")] {
        run_in(
            d,
            &[
                "train",
                "-q",
                "--input",
                "snap",
                "--column",
                "dt,id",
                "--output",
                "g.bjf",
                "--overwrite",
                "--workers",
                w,
                "--split-rows",
                rows,
            ],
        )
        .ok();
        assert_eq!(
            std::fs::read(d.join("g.bjf")).unwrap(),
            std::fs::read(d.join("f.bjf")).unwrap()
        );
    }
}

/// A key of partition columns alone (events in `dt=` directories joined with a table of
/// days on `dt`): every row of a file holds the file's one key, so the key tiers probe it
/// once and a file whose key they rule out is not read, as Spark's dynamic partition
/// pruning skips partitions. The rows are the same as without the prefilter (which reads
/// every file), for every join type, both strategies, built and trained filters, any
/// workers and split size; a filter trained on the partition column has the bytes of one
/// trained on a file column of the same values.
#[test]
fn partition_keys_alone_skip_whole_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let day = |s: &str| {
        let days = chrono_days(s);
        Some(days)
    };
    // The days: 01-02 twice, 01-04 (whose events file is empty), 01-09 (no events), null.
    let days: Vec<(Option<i32>, &str)> = vec![
        (day("2024-01-02"), "b"),
        (day("2024-01-02"), "b2"),
        (day("2024-01-04"), "d"),
        (day("2024-01-09"), "z"),
        (None, "n"),
    ];
    write_parquet(
        &d.join("days/days.parquet"),
        vec![
            (
                "dt",
                Arc::new(Date32Array::from(
                    days.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
                )) as ArrayRef,
            ),
            (
                "name",
                Arc::new(StringArray::from(
                    days.iter().map(|(_, n)| *n).collect::<Vec<_>>(),
                )),
            ),
        ],
        10,
    );
    // The same days as partitions of their own (a key of partition columns on both sides).
    for (dir_name, names) in [
        ("2024-01-02", vec!["b", "b2"]),
        ("2024-01-04", vec!["d"]),
        ("2024-01-09", vec!["z"]),
        ("__HIVE_DEFAULT_PARTITION__", vec!["n"]),
    ] {
        write_parquet(
            &d.join(format!("pt/days/dt={dir_name}/part-0.parquet")),
            vec![("name", Arc::new(StringArray::from(names)) as ArrayRef)],
            10,
        );
    }
    // Events: 01-02's two rows in two row groups (two splits with --split-rows 1).
    for (dir_name, uids) in [
        ("2024-01-01", vec![1i64, 2, 3]),
        ("2024-01-02", vec![4, 5]),
        ("2024-01-03", vec![6]),
        ("2024-01-04", vec![]),
        ("__HIVE_DEFAULT_PARTITION__", vec![7]),
    ] {
        let v: Vec<String> = uids.iter().map(|u| format!("e{u}")).collect();
        write_parquet(
            &d.join(format!("events/dt={dir_name}/part-0.parquet")),
            vec![
                ("uid", Arc::new(Int64Array::from(uids)) as ArrayRef),
                ("v", Arc::new(StringArray::from(v))),
            ],
            1,
        );
    }
    run_in(
        d,
        &[
            "train", "-q", "--input", "days", "--column", "dt", "--output", "days.bjf",
        ],
    )
    .ok();
    let join = |left: &str, jt: &str, strategy: &str, extra: &[&str], out: &str| {
        let report = format!("{out}.json");
        let mut args = vec![
            "join",
            "--left",
            left,
            "--left-key",
            "dt",
            "--right",
            "events",
            "--right-key",
            "dt",
            "--type",
            jt,
            "--strategy",
            strategy,
            "--output",
            out,
            "--report",
            &report,
        ];
        args.extend_from_slice(extra);
        let summary = run_in(d, &args).ok();
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join(&report)).unwrap()).unwrap();
        (read_rows(&d.join(out)).0, r, summary)
    };
    // (Sorted as text: `b2|` before `b|`.)
    let inner = [
        "2024-01-02|b2|4|e4|2024-01-02",
        "2024-01-02|b2|5|e5|2024-01-02",
        "2024-01-02|b|4|e4|2024-01-02",
        "2024-01-02|b|5|e5|2024-01-02",
    ];
    let mut n = 0;
    for strategy in ["replicated", "reduce-side"] {
        for filter in [&[][..], &["--filter", "days.bjf"], &["--no-prefilter"]] {
            for (workers, split) in [("1", "1000"), ("3", "1")] {
                n += 1;
                let out = format!("inner-{n}");
                let mut extra = vec!["--workers", workers, "--split-rows", split];
                extra.extend_from_slice(filter);
                let (rows, r, summary) = join("days", "inner", strategy, &extra, &out);
                let case = format!("{strategy} {extra:?}");
                assert_eq!(rows, inner, "{case}");
                let right = &r["right"];
                if filter == ["--no-prefilter"] {
                    assert_eq!(right["files_skipped_by_partition_key"], 0, "{case}");
                    assert_eq!(right["files_pruned_by_partition_key"], 0, "{case}");
                    assert_eq!(right["rows_read"], 7, "{case}");
                    assert!(!summary.contains("never read"), "{case}: {summary}");
                } else if filter == ["--filter", "days.bjf"] {
                    // A trained filter rules the files out while they are planned: 01-01,
                    // 01-03 and the null day are not even opened (their rows are not known).
                    assert_eq!(right["files_pruned_by_partition_key"], 3, "{case}: {r}");
                    assert_eq!(right["files_skipped_by_partition_key"], 0, "{case}");
                    assert_eq!(right["files"], 2, "{case}");
                    assert_eq!(right["rows_read"], 2, "{case}");
                    assert!(
                        summary.contains(
                            "right  2 files (and 3 not opened: the filter rules out their partition key)"
                        ),
                        "{case}: {summary}"
                    );
                } else {
                    // 01-01, 01-03 and the null day are never read: 5 rows, counted as
                    // dropped by the tier that ruled each out.
                    assert_eq!(right["files_skipped_by_partition_key"], 3, "{case}: {r}");
                    assert_eq!(right["rows_skipped_by_partition_key"], 5, "{case}");
                    assert_eq!(right["rows_read"], 2, "{case}");
                    assert_eq!(right["rows_mapped"], 2, "{case}");
                    let dropped = [
                        "rows_dropped_by_filter",
                        "rows_dropped_by_keys",
                        "rows_dropped_null_key",
                    ]
                    .map(|k| right[k].as_u64().unwrap());
                    assert_eq!(dropped.iter().sum::<u64>(), 5, "{case}: {r}");
                    assert_eq!(dropped[2], 1, "{case}: the null day");
                    assert!(
                        summary.contains(
                            "3 files (5 rows) never read: their partition key was ruled out"
                        ),
                        "{case}: {summary}"
                    );
                }
            }
        }
    }
    // Every join type: the rows of the join that reads every file; the left side in
    // partitions of its own gives the same rows.
    for jt in [
        "inner",
        "left",
        "right",
        "full",
        "left-semi",
        "left-anti",
        "right-semi",
        "right-anti",
    ] {
        let select = match jt {
            "left-semi" | "left-anti" => "dt,name",
            "right-semi" | "right-anti" => "uid,v,dt",
            _ => "left.dt,name,uid,v,right.dt",
        };
        for strategy in ["replicated", "reduce-side"] {
            let all = join(
                "days",
                jt,
                strategy,
                &["--no-prefilter", "--select", select],
                &format!("{jt}-{strategy}-all"),
            )
            .0;
            for (left, extra) in [
                ("days", &[][..]),
                (
                    "days",
                    &[
                        "--filter",
                        "days.bjf",
                        "--workers",
                        "3",
                        "--split-rows",
                        "1",
                    ],
                ),
                ("pt/days", &["--workers", "2"]),
            ] {
                let out = format!("{jt}-{strategy}-{left}-{}", extra.len());
                let mut extra = extra.to_vec();
                extra.extend(["--select", select]);
                let (rows, r, _) = join(left, jt, strategy, &extra, &out);
                assert_eq!(rows, all, "{jt} {strategy} {left} {extra:?}: {r}");
            }
        }
    }
    let (semi, _, _) = join("days", "right-semi", "replicated", &[], "semi");
    assert_eq!(semi, ["4|e4|2024-01-02", "5|e5|2024-01-02"]);
    // The filter trained on the partition column: the same bytes for any workers and split
    // size, and the same as one trained on a file column of the same values.
    for (workers, split) in [("1", "1000"), ("3", "1")] {
        // (Trained from pt/, so that the filter's metadata names the same input, `days`.)
        run_in(
            &d.join("pt"),
            &[
                "train",
                "-q",
                "--input",
                "days",
                "--column",
                "dt",
                "--output",
                "../p.bjf",
                "--overwrite",
                "--workers",
                workers,
                "--split-rows",
                split,
            ],
        )
        .ok();
        assert_eq!(
            std::fs::read(d.join("p.bjf")).unwrap(),
            std::fs::read(d.join("days.bjf")).unwrap(),
            "{workers} {split}"
        );
    }
    // A Spark layout takes the partition column's values too.
    run_in(
        d,
        &[
            "train", "-q", "--input", "pt/days", "--column", "dt", "--layout", "spark-v1",
            "--output", "s.bjf",
        ],
    )
    .ok();
    let (rows, r, _) = join(
        "days",
        "inner",
        "reduce-side",
        &["--filter", "s.bjf"],
        "spark",
    );
    assert_eq!(rows, inner);
    assert_eq!(r["right"]["files_skipped_by_partition_key"], 3, "{r}");
    // A file the trained filter rules out is not opened: a corrupt one there is no error
    // (it is when the filter is built from the left side, after the files are opened).
    let bad = d.join("events/dt=2024-02-01");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("part-0.parquet"), b"not parquet at all").unwrap();
    let (rows, r, _) = join(
        "days",
        "inner",
        "replicated",
        &["--filter", "days.bjf"],
        "bad-ok",
    );
    assert_eq!(rows, inner);
    assert_eq!(r["right"]["files_pruned_by_partition_key"], 4, "{r}");
    let args = [
        "join",
        "--left",
        "days",
        "--left-key",
        "dt",
        "--right",
        "events",
        "--right-key",
        "dt",
        "--output",
        "bad",
    ];
    run_in(d, &args).fails(2, &["dt=2024-02-01/part-0.parquet"]);
    assert!(!d.join("bad").exists());
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date.
fn chrono_days(s: &str) -> i32 {
    let t = arrow::compute::cast(
        &StringArray::from(vec![s]),
        &arrow::datatypes::DataType::Date32,
    )
    .unwrap();
    t.as_any().downcast_ref::<Date32Array>().unwrap().value(0)
}

/// A key of two partition columns alone, `(dt, h)`: every file holds one tuple, probed once
/// (the filter trained on the tuple, or built); the rows equal those of the join that reads
/// every file.
#[test]
fn composite_keys_of_partition_columns_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    partitioned(d);
    write_parquet(
        &d.join("slots/slots.parquet"),
        vec![
            (
                "dt",
                Arc::new(Date32Array::from(vec![
                    chrono_days("2024-01-02"),
                    chrono_days("2024-01-01"),
                ])) as ArrayRef,
            ),
            ("h", Arc::new(Int64Array::from(vec![8i64, 9]))),
        ],
        10,
    );
    run_in(
        d,
        &[
            "train",
            "-q",
            "--input",
            "slots",
            "--column",
            "dt,h",
            "--output",
            "slots.bjf",
        ],
    )
    .ok();
    let join = |extra: &[&str], out: &str| {
        let report = format!("{out}.json");
        let mut args = vec![
            "join",
            "--left",
            "slots",
            "--left-key",
            "dt,h",
            "--right",
            "orders",
            "--right-key",
            "dt,h",
            "--select",
            "uid,amt,right.dt,right.h",
            "--output",
            out,
            "--report",
            &report,
        ];
        args.extend_from_slice(extra);
        run_in(d, &args).ok();
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join(&report)).unwrap()).unwrap();
        (read_rows(&d.join(out)).0, r)
    };
    let (all, _) = join(&["--no-prefilter"], "all");
    assert_eq!(all, ["1|0.5|2024-01-02|8", "5|2.5|2024-01-02|8"]);
    for (extra, out) in [
        (&["--filter", "slots.bjf"][..], "trained"),
        (&["--strategy", "reduce-side"], "built"),
    ] {
        let (rows, r) = join(extra, out);
        assert_eq!(rows, all, "{extra:?}");
        assert_eq!(
            r["right"]["files_skipped_by_partition_key"], 2,
            "{extra:?}: {r}"
        );
        assert_eq!(r["right"]["rows_read"], 2, "{extra:?}: {r}");
    }
}
