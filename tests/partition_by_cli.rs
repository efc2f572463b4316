//! `join --partition-by`: the output written into Hive partition directories
//! (`region=EU/dt=2024-01-01/part-NNNNN-<run>.parquet`), as Spark's `partitionBy` writes them.
//! The rows, with the directories' values put back, are the rows of the same join written
//! flat, for both strategies and any worker count; names are escaped as Spark escapes them;
//! replacing an output removes the old directories; bad options are one-line errors.

use std::path::Path;
use std::sync::Arc;

use arrow::array::*;

use crate::util::{files_below, read_rows, run_in, write_parquet};

/// Users (`id`, `name`, `region`: a `/` in one, an empty string, a null) and their orders
/// (`uid`, `dt`, `amt`), one order with a user id no user has.
fn tables(d: &Path) {
    write_parquet(
        &d.join("users/part-0.parquet"),
        vec![
            (
                "id",
                Arc::new(Int64Array::from(vec![1, 2, 3, 4, 5])) as ArrayRef,
            ),
            (
                "name",
                Arc::new(StringArray::from(vec!["ann", "bo", "cy", "di", "ed"])),
            ),
            (
                "region",
                Arc::new(StringArray::from(vec![
                    Some("EU"),
                    Some("a/b: c"),
                    Some(""),
                    None,
                    Some("EU"),
                ])),
            ),
        ],
        2,
    );
    let uids: Vec<i64> = (0..60).map(|i| [1, 2, 3, 4, 9][i % 5]).collect();
    let dts: Vec<i32> = (0..60).map(|i| 19723 + i % 3).collect();
    let amt: Vec<f64> = (0..60).map(|i| i as f64 / 4.0).collect();
    write_parquet(
        &d.join("orders/part-0.parquet"),
        vec![
            ("uid", Arc::new(Int64Array::from(uids)) as ArrayRef),
            ("dt", Arc::new(Date32Array::from(dts))),
            ("amt", Arc::new(Float64Array::from(amt))),
        ],
        7,
    );
}

/// `join` of `left` (key `lkey`) and `right` (key `rkey`) into `out`, with `extra` options.
fn join_of<'a>(
    (left, lkey): (&'a str, &'a str),
    (right, rkey): (&'a str, &'a str),
    out: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut a = vec![
        "join",
        "--left",
        left,
        "--left-key",
        lkey,
        "--right",
        right,
        "--right-key",
        rkey,
        "--output",
        out,
    ];
    a.extend_from_slice(extra);
    a
}

/// `join` of `users` and `orders` (`id` = `uid`) into `out`, with `extra` options.
fn join_args<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    join_of(("users", "id"), ("orders", "uid"), out, extra)
}

/// `join` of `l` and `r` on `k` into `out`, with `extra` options.
fn lr_join<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    join_of(("l", "k"), ("r", "k"), out, extra)
}

fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .unwrap()
        .into_owned()
}

/// The rows of a partitioned output with the partition values appended (decoded; Hive's
/// default partition as `NULL`), sorted; and the directories' names.
fn partitioned_rows(dir: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut rows = Vec::new();
    let mut dirs = Vec::new();
    for f in files_below(dir) {
        if !f.ends_with(".parquet") || f.starts_with('_') {
            continue;
        }
        let parts: Vec<&str> = f.split('/').collect();
        let (file, names) = parts.split_last().unwrap();
        assert!(file.starts_with("part-"), "{f}");
        let values: Vec<String> = names
            .iter()
            .map(|n| {
                let (_, v) = n.split_once('=').unwrap();
                match v {
                    "__HIVE_DEFAULT_PARTITION__" => "NULL".to_string(),
                    v => decode(v),
                }
            })
            .collect();
        dirs.push(names.iter().map(|s| s.to_string()).collect());
        let one = tempfile::tempdir().unwrap();
        std::fs::copy(dir.join(&f), one.path().join("p.parquet")).unwrap();
        for r in read_rows(one.path()).0 {
            rows.push(format!("{r}|{}", values.join("|")));
        }
    }
    rows.sort();
    dirs.sort();
    dirs.dedup();
    (rows, dirs)
}

/// The flat output's rows with the columns at `cols` moved to the end (an empty string
/// as `NULL`, as a partition directory holds it), sorted.
fn moved_to_end(rows: &[String], cols: &[usize]) -> Vec<String> {
    let mut out: Vec<String> = rows
        .iter()
        .map(|r| {
            let v: Vec<&str> = r.split('|').collect();
            let mut kept: Vec<&str> = (0..v.len())
                .filter(|i| !cols.contains(i))
                .map(|i| v[i])
                .collect();
            kept.extend(
                cols.iter()
                    .map(|&i| if v[i].is_empty() { "NULL" } else { v[i] }),
            );
            kept.join("|")
        })
        .collect();
    out.sort();
    out
}

#[test]
fn partitioned_output_holds_the_rows_of_the_flat_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tables(d);
    for join_type in ["inner", "full", "left"] {
        let flat = format!("flat-{join_type}");
        run_in(d, &join_args(&flat, &["--type", join_type])).ok();
        let (flat_rows, names) = read_rows(&d.join(&flat));
        let (by, cols): (&str, Vec<usize>) = if join_type == "left" {
            ("region", vec![2])
        } else {
            ("region,dt", vec![2, 4])
        };
        assert_eq!(
            names.iter().map(String::as_str).collect::<Vec<_>>()[..3],
            ["id", "name", "region"]
        );
        let want = moved_to_end(&flat_rows, &cols);
        for strategy in ["replicated", "reduce-side"] {
            for workers in ["1", "3"] {
                let out = format!("p-{join_type}-{strategy}-{workers}");
                let summary = run_in(
                    d,
                    &join_args(
                        &out,
                        &[
                            "--type",
                            join_type,
                            "--partition-by",
                            by,
                            "--strategy",
                            strategy,
                            "--workers",
                            workers,
                            "--batch-size",
                            "4",
                        ],
                    ),
                )
                .ok();
                let (rows, dirs) = partitioned_rows(&d.join(&out));
                assert_eq!(rows, want, "{out}");
                assert!(
                    summary.contains(&format!(
                        "in {} partition directories of {}",
                        dirs.len(),
                        by.replace(',', ", ")
                    )),
                    "{summary}"
                );
                // Spark's escapes; the empty string and the null are Hive's default.
                let firsts: Vec<&str> = dirs.iter().map(|d| d[0].as_str()).collect();
                assert!(firsts.contains(&"region=a%2Fb%3A c"), "{dirs:?}");
                assert!(
                    firsts.contains(&"region=__HIVE_DEFAULT_PARTITION__"),
                    "{dirs:?}"
                );
                if join_type != "left" {
                    assert!(dirs.iter().all(|d| d.len() == 2 && d[1].starts_with("dt=")));
                    assert!(
                        dirs.contains(&vec!["region=EU".to_string(), "dt=2024-01-02".to_string()]),
                        "{dirs:?}"
                    );
                }
                // The manifest names every part, and the files hold no partition column.
                let success = std::fs::read_to_string(d.join(&out).join("_SUCCESS")).unwrap();
                let manifest: serde_json::Value = serde_json::from_str(&success).unwrap();
                let parts = manifest["parts"].as_array().unwrap();
                let files: Vec<String> = files_below(&d.join(&out))
                    .into_iter()
                    .filter(|f| f.ends_with(".parquet"))
                    .collect();
                assert_eq!(parts.len(), files.len());
                for p in parts {
                    assert!(files.contains(&p.as_str().unwrap().to_string()), "{p}");
                }
                assert_eq!(
                    manifest["partition_by"],
                    serde_json::json!(by.split(',').collect::<Vec<_>>())
                );
            }
        }
    }
}

/// The partitioned output is an input like any other: read back with its partition columns
/// (typed), and a `--where` on them skips the other directories' files.
#[test]
fn a_partitioned_output_reads_back_and_prunes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tables(d);
    run_in(d, &join_args("byday", &["--partition-by", "dt"])).ok();
    run_in(
        d,
        &join_args("flat", &["--right-where", "dt = DATE '2024-01-02'"]),
    )
    .ok();
    let summary = run_in(
        d,
        &join_of(
            ("users", "id"),
            ("byday", "id"),
            "again",
            &[
                "--right-where",
                "dt = DATE '2024-01-02'",
                "--select",
                "left.id, left.name, left.region, right.uid, right.dt, right.amt",
            ],
        ),
    )
    .ok();
    assert!(
        summary.contains("skipped by their partition values"),
        "{summary}"
    );
    assert_eq!(read_rows(&d.join("again")).0, read_rows(&d.join("flat")).0);
}

/// `l`: keys 0 to 9; `r`: 3,000 rows of those keys with `bucket`, 150 values in no order
/// (and `v`, the row number).
fn buckets(d: &Path) {
    let n = 3000i64;
    write_parquet(
        &d.join("l/part-0.parquet"),
        vec![(
            "k",
            Arc::new(Int64Array::from_iter_values(0..10)) as ArrayRef,
        )],
        10,
    );
    write_parquet(
        &d.join("r/part-0.parquet"),
        vec![
            (
                "k",
                Arc::new(Int64Array::from_iter_values((0..n).map(|i| i % 10))) as ArrayRef,
            ),
            (
                "bucket",
                Arc::new(Int64Array::from_iter_values((0..n).map(|i| i % 150))),
            ),
            ("v", Arc::new(Int64Array::from_iter_values(0..n))),
        ],
        500,
    );
}

/// More partition directories than a task keeps parts open (64), in no order: the rows of
/// the directories met once every slot is taken wait in the task's overflow (spilled to
/// local disk sorted by directory when they pass its run size) and are written when the task
/// ends. No row is lost, and each directory still gets one part per task. (Before, the least
/// recently written part was closed for a new one, and a later row of its directory started
/// another part there: 150 directories made 1363 parts on the sample's Score column.)
#[test]
fn more_partitions_than_open_parts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    buckets(d);
    run_in(
        d,
        &lr_join("flat", &["--workers", "1", "--batch-size", "100"]),
    )
    .ok();
    let want = moved_to_end(&read_rows(&d.join("flat")).0, &[2]);
    for strategy in ["replicated", "reduce-side"] {
        let out = format!("parts-{strategy}");
        let report = format!("{out}.json");
        let run = run_in(
            d,
            &lr_join(
                &out,
                &[
                    "--workers",
                    "1",
                    "--batch-size",
                    "100",
                    "--partition-by",
                    "bucket",
                    "--strategy",
                    strategy,
                    "--reducers",
                    "1",
                    "--report",
                    &report,
                ],
            ),
        );
        assert_eq!(run.stderr, "", "{strategy}: no warning");
        let summary = run.ok();
        assert!(
            summary.contains("rows held or spilled sorted by directory"),
            "{strategy}: {summary}"
        );
        let (rows, dirs) = partitioned_rows(&d.join(&out));
        assert_eq!(dirs.len(), 150, "{strategy}");
        assert_eq!(rows, want, "{strategy}");
        let files: Vec<String> = files_below(&d.join(&out))
            .into_iter()
            .filter(|f| f.ends_with(".parquet"))
            .collect();
        assert_eq!(
            files.len(),
            150,
            "{strategy}: one part per directory: {files:?}"
        );
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(&report)).unwrap()).unwrap();
        let overflow = report["partition_overflow_rows"].as_u64().unwrap();
        let total = report["rows_out"].as_u64().unwrap();
        assert!(
            overflow > 0 && overflow < total,
            "{strategy}: {overflow} of {total}"
        );
    }
}

/// `--overwrite` replaces a partitioned output whole: the directories of the old run go,
/// whether the new run is partitioned by another column or not partitioned at all. A file
/// bloomjoin did not write in a partition directory is refused.
#[test]
fn overwrite_replaces_the_partition_directories() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tables(d);
    run_in(d, &join_args("out", &["--partition-by", "region"])).ok();
    assert!(d.join("out/region=EU").is_dir());
    run_in(d, &join_args("out", &["--partition-by", "dt"])).fails(2, &["out", "--overwrite"]);
    run_in(
        d,
        &join_args("out", &["--partition-by", "dt", "--overwrite"]),
    )
    .ok();
    let tops: Vec<String> = std::fs::read_dir(d.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('_'))
        .collect();
    assert!(tops.iter().all(|n| n.starts_with("dt=")), "{tops:?}");
    assert_eq!(tops.len(), 3, "{tops:?}");
    run_in(d, &join_args("out", &["--overwrite"])).ok();
    let files = files_below(&d.join("out"));
    assert!(files.iter().all(|f| !f.contains('/')), "{files:?}");
    // Someone's file in a partition directory: not ours to delete, and readers would read it.
    run_in(
        d,
        &join_args("out", &["--partition-by", "dt", "--overwrite"]),
    )
    .ok();
    std::fs::write(d.join("out/dt=2024-01-01/notes.parquet"), b"x").unwrap();
    run_in(
        d,
        &join_args("out", &["--partition-by", "dt", "--overwrite"]),
    )
    .fails(2, &["dt=2024-01-01/", "bloomjoin did not write"]);
}

#[test]
fn bad_partition_columns_are_one_line_errors_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tables(d);
    for (extra, needles) in [
        (
            vec!["--partition-by", "nope"],
            vec!["--partition-by", "\"nope\"", "output column"],
        ),
        (
            vec!["--partition-by", "amt"],
            vec!["--partition-by", "\"amt\"", "Float64"],
        ),
        (
            vec!["--partition-by", "dt,dt"],
            vec!["--partition-by", "\"dt\"", "twice"],
        ),
        (
            vec!["--partition-by", "dt,"],
            vec!["--partition-by", "empty column name"],
        ),
        (
            vec!["--select", "left.id, right.dt", "--partition-by", "id,dt"],
            vec!["--partition-by", "every output column"],
        ),
        (
            vec!["--partition-by", "dt", "--bloom-columns", "dt"],
            vec!["--bloom-columns", "\"dt\"", "--partition-by"],
        ),
    ] {
        let args = join_args("bad", &extra);
        run_in(d, &args).fails(2, &needles);
        assert!(!d.join("bad").exists(), "{extra:?}");
    }
}

/// On S3 (moto) the keys are the directories' escaped names as Spark writes them (`%2F`
/// stays `%2F`), and the rows are those of the local run.
#[test]
fn partitioned_output_on_s3() {
    let s3 = crate::util::S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tables(d);
    s3.python("s3.create_bucket(Bucket='lake')");
    run_in(d, &join_args("local", &["--partition-by", "region"])).ok();
    let args = join_args("s3://lake/out", &["--partition-by", "region"]);
    crate::util::run_env(d, &args, &s3.env()).ok();
    let keys = s3.keys("lake", "out/");
    // Which worker's part holds a directory's rows depends on which worker read them first
    // (a broadcast join's parts are numbered as its workers start), so any part number will do.
    assert!(
        keys.iter()
            .any(|k| k.starts_with("out/region=a%2Fb%3A c/part-0000") && k.ends_with(".parquet")),
        "{keys:?}"
    );
    assert!(keys.contains(&"out/_SUCCESS".to_string()), "{keys:?}");
    s3.download("lake", "out", &d.join("remote"));
    assert_eq!(
        partitioned_rows(&d.join("remote")),
        partitioned_rows(&d.join("local"))
    );
    // Replaced on S3 too: no key of the first run stays.
    let args = join_args("s3://lake/out", &["--partition-by", "dt", "--overwrite"]);
    crate::util::run_env(d, &args, &s3.env()).ok();
    let keys = s3.keys("lake", "out/");
    assert!(
        keys.iter()
            .all(|k| k.starts_with("out/dt=") || k.starts_with("out/_")),
        "{keys:?}"
    );
}

/// The README's example of a key of partition columns alone runs as written on the output of
/// its `--partition-by` example: the rows it reads and skips, and the files it skips (the
/// parts of every directory but the two it reads).
#[test]
fn readme_partition_key_example_is_true() {
    use crate::util::{readme_block, readme_dir, run_readme_line};
    let dir = readme_dir();
    run_readme_line(
        dir.path(),
        &readme_block("`--partition-by a,b` (job key")[0],
    );
    let example = readme_block("- A key of partition columns alone");
    let out = run_readme_line(dir.path(), &example[0]);
    // The files of the directories the join reads: every other part was skipped.
    let parts_in = |d: &str| {
        std::fs::read_dir(dir.path().join("out/by_location").join(d))
            .unwrap()
            .count()
    };
    let all: usize = std::fs::read_dir(dir.path().join("out/by_location"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| parts_in(&e.file_name().to_string_lossy()))
        .sum();
    let read = parts_in("Location=Berlin, Germany") + parts_in("Location=München, Deutschland");
    let (_, rows) = example[1].split_once(" files ").unwrap();
    assert!(
        out.contains(&format!("filter {} files {rows}", all - read)),
        "{out}"
    );
    let (head, _) = example[2].split_once(" rows, ").unwrap();
    assert!(out.contains(&format!("{head} rows, ")), "{out}");
}

/// The README's `--partition-by` example runs as written: its summary line (but for the
/// bytes, which depend on how the workers shared the rows) and the directories it lists.
#[test]
fn readme_partition_by_example_is_true() {
    let block = crate::util::readme_block("`--partition-by a,b` (job key");
    let dir = crate::util::readme_dir();
    let mut lines = block.iter().map(String::as_str);
    let out = crate::util::run_readme_line(dir.path(), lines.next().unwrap());
    let summary = lines.next().unwrap();
    let (head, tail) = summary.split_once(" rows, ").unwrap();
    let (_, tail) = tail.split_once(", in ").unwrap();
    assert!(out.contains(&format!("{head} rows, ")), "{out}");
    assert!(out.contains(&format!(", in {tail}")), "{out}");
    let ls = lines.next().unwrap().strip_prefix("$ ls ").unwrap();
    let listed: Vec<String> = std::fs::read_dir(dir.path().join(ls))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut checked = 0;
    for name in lines.filter(|l| *l != "...") {
        assert!(
            listed.iter().any(|n| n == name),
            "{name:?} not in {listed:?}"
        );
        checked += 1;
    }
    assert!(checked >= 4, "{checked} names checked");
    let dirs = listed.iter().filter(|n| n.starts_with("Location=")).count();
    assert!(
        tail.starts_with(&format!("{dirs} partition directories")),
        "{tail}"
    );
}

/// A failed partitioned join leaves no `_SUCCESS`, no part and no partition directory, at
/// any point: a task's error, a full disk while parts are written, an error in the commit
/// after the parts were moved into their directories. The rerun succeeds.
#[test]
fn a_failed_partitioned_join_leaves_no_directory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tables(d);
    let args = join_args("out", &["--partition-by", "region,dt", "--workers", "2"]);
    for (fault, needle) in [
        ("reduce:error", "injected fault at reduce"),
        ("write:enospc", "No space left on device"),
        ("commit:error", "injected fault at commit"),
    ] {
        let env = vec![("BLOOMJOIN_FAULT".to_string(), fault.to_string())];
        crate::util::run_env(d, &args, &env).fails(1, &[needle]);
        let left: Vec<String> = files_below(&d.join("out"))
            .into_iter()
            .filter(|f| f != "_lease")
            .collect();
        assert_eq!(left, Vec::<String>::new(), "{fault}");
        let dirs: Vec<String> = std::fs::read_dir(d.join("out"))
            .map(|rd| {
                rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .filter(|n| n != "_lease")
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(dirs, Vec::<String>::new(), "{fault}");
    }
    run_in(d, &args).ok();
    let (rows, _) = partitioned_rows(&d.join("out"));
    assert!(!rows.is_empty());
}

/// Values no directory name can hold are one-line errors (exit 2) naming the column, found
/// while the rows are written, and nothing is committed: a date past the year 9999 (the
/// first build wrote `d=ERROR%3A Cast error...`), a string whose directory name is over the
/// 255 bytes a file system allows in a name (the first build failed with the file system's
/// "File name too long").
#[test]
fn values_without_a_directory_name_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_parquet(
        &d.join("l/part-0.parquet"),
        vec![("k", Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef)],
        10,
    );
    write_parquet(
        &d.join("r/part-0.parquet"),
        vec![
            ("k", Arc::new(Int64Array::from(vec![1, 2, 2])) as ArrayRef),
            (
                "d",
                Arc::new(Date32Array::from(vec![19723, 2_147_483_646, 19724])),
            ),
            (
                "s",
                Arc::new(StringArray::from(vec![
                    "short".to_string(),
                    "x".repeat(300),
                    "y".to_string(),
                ])),
            ),
        ],
        10,
    );
    for (by, needles) in [
        (
            "d",
            vec![
                "--partition-by",
                "\"d\"",
                "no text a directory name can hold",
            ],
        ),
        ("s", vec!["--partition-by", "\"s\"", "302 bytes", "255"]),
    ] {
        let args = lr_join("out", &["--partition-by", by]);
        run_in(d, &args).fails(2, &needles);
        assert!(
            !d.join("out").exists(),
            "{by}: {:?}",
            files_below(&d.join("out"))
        );
    }
}

/// Under a limit of open files below what 2 workers would keep open at 64 parts each (150
/// directories), each keeps fewer: the join succeeds with the same rows (the first build
/// failed with "Too many open files", exit 1). A soft limit alone is raised to the hard one.
#[test]
fn parts_open_fit_the_open_files_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    buckets(d);
    run_in(d, &lr_join("flat", &["--workers", "2"])).ok();
    let want = moved_to_end(&read_rows(&d.join("flat")).0, &[2]);
    for (ulimit, out) in [("-n 120", "hard"), ("-S -n 100", "soft")] {
        let args = lr_join(out, &["--workers", "2", "--partition-by", "bucket"]);
        let script = format!("ulimit {ulimit} && exec \"$0\" \"$@\"");
        let o = std::process::Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(crate::util::bin())
            .args(&args)
            .current_dir(d)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "ulimit {ulimit}: {stderr}");
        assert!(!stderr.contains("Too many open files"), "{stderr}");
        assert_eq!(partitioned_rows(&d.join(out)).0, want, "ulimit {ulimit}");
    }
}
