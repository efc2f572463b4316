//! The join job through the binary: every join type against a naive reference, invariance
//! under workers, reducers, split and batch sizes and the prefilter, and bad input.

use std::path::Path;
use std::sync::Arc;

use arrow::array::*;

use crate::util::{files_below, read_rows, run_in, write_parquet};

struct User {
    id: Option<i64>,
    name: String,
    rep: i64,
}
struct Comment {
    id: i64,
    user: Option<i32>,
    text: String,
}

fn users() -> Vec<User> {
    (0..300)
        .map(|i| User {
            // Duplicate ids (i % 250) and some null ids.
            id: (i % 41 != 0).then_some((i % 250) as i64),
            name: format!("u{i}"),
            rep: (i * 53 % 4000) as i64,
        })
        .collect()
}

fn comments() -> Vec<Comment> {
    (0..3000)
        .map(|i| Comment {
            id: i,
            user: (i % 29 != 0).then_some((i * 7 % 600) as i32),
            text: format!("c{i} ✓"),
        })
        .collect()
}

pub fn fixture(d: &Path) {
    let u = users();
    for (f, chunk) in u.chunks(100).enumerate() {
        write_parquet(
            &d.join(format!("users/u{f}.parquet")),
            vec![
                (
                    "Id",
                    Arc::new(Int64Array::from(
                        chunk.iter().map(|x| x.id).collect::<Vec<_>>(),
                    )) as ArrayRef,
                ),
                (
                    "name",
                    Arc::new(StringArray::from(
                        chunk.iter().map(|x| x.name.clone()).collect::<Vec<_>>(),
                    )),
                ),
                (
                    "Reputation",
                    Arc::new(Int64Array::from(
                        chunk.iter().map(|x| x.rep).collect::<Vec<_>>(),
                    )),
                ),
            ],
            30,
        );
    }
    let c = comments();
    for (f, chunk) in c.chunks(1000).enumerate() {
        write_parquet(
            &d.join(format!("comments/c{f}.parquet")),
            vec![
                (
                    "Id",
                    Arc::new(Int64Array::from(
                        chunk.iter().map(|x| x.id).collect::<Vec<_>>(),
                    )) as ArrayRef,
                ),
                (
                    "UserId",
                    Arc::new(Int32Array::from(
                        chunk.iter().map(|x| x.user).collect::<Vec<_>>(),
                    )),
                ),
                (
                    "Text",
                    Arc::new(StringArray::from(
                        chunk.iter().map(|x| x.text.clone()).collect::<Vec<_>>(),
                    )),
                ),
            ],
            128,
        );
    }
}

fn opt(v: Option<i64>) -> String {
    v.map_or("NULL".into(), |x| x.to_string())
}

/// The reference result: a nested-loop join written out as sorted `a|b|c` rows with the
/// default columns (left Id, name, Reputation, then right Id_right, UserId, Text).
pub fn reference(join_type: &str, min_rep: i64) -> Vec<String> {
    let u: Vec<User> = users().into_iter().filter(|x| x.rep > min_rep).collect();
    let c = comments();
    let lrow = |x: &User| format!("{}|{}|{}", opt(x.id), x.name, x.rep);
    let rrow = |x: &Comment| format!("{}|{}|{}", x.id, opt(x.user.map(i64::from)), x.text);
    let matches = |a: &User, b: &Comment| a.id.is_some() && a.id == b.user.map(i64::from);
    let mut out = Vec::new();
    let mut left_hit = vec![false; u.len()];
    for b in &c {
        let mut hit = false;
        for (i, a) in u.iter().enumerate() {
            if matches(a, b) {
                hit = true;
                left_hit[i] = true;
                if !matches!(join_type, "left-semi" | "left-anti") {
                    out.push(format!("{}|{}", lrow(a), rrow(b)));
                }
            }
        }
        if !hit && matches!(join_type, "right" | "full") {
            out.push(format!("NULL|NULL|NULL|{}", rrow(b)));
        }
    }
    for (i, a) in u.iter().enumerate() {
        match join_type {
            "left" | "full" if !left_hit[i] => out.push(format!("{}|NULL|NULL|NULL", lrow(a))),
            "left-semi" if left_hit[i] => out.push(lrow(a)),
            "left-anti" if !left_hit[i] => out.push(lrow(a)),
            _ => {}
        }
    }
    out.sort();
    out
}

pub fn train(d: &Path) {
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
            "--fpp",
            "0.01",
            "--output",
            "users.bjf",
        ],
    )
    .ok();
}

fn join(d: &Path, out: &str, join_type: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "join",
        "--filter",
        "users.bjf",
        "--left",
        "users",
        "--left-key",
        "Id",
        "--left-where",
        "Reputation > 1500",
        "--right",
        "comments",
        "--right-key",
        "UserId",
        "--type",
        join_type,
        "--output",
        out,
    ];
    args.extend_from_slice(extra);
    run_in(d, &args).ok()
}

#[test]
fn every_join_type_matches_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    for jt in ["inner", "left", "left-semi", "left-anti", "right", "full"] {
        let out = format!("out-{jt}");
        let summary = join(d, &out, jt, &["--report", &format!("{out}.json")]);
        let (rows, names) = read_rows(&d.join(&out));
        assert_eq!(rows, reference(jt, 1500), "{jt}");
        if matches!(jt, "left-semi" | "left-anti") {
            assert_eq!(names, ["Id", "name", "Reputation"]);
        } else {
            assert_eq!(
                names,
                ["Id", "name", "Reputation", "Id_right", "UserId", "Text"]
            );
        }
        assert!(d.join(&out).join("_SUCCESS").exists(), "{jt}");
        assert!(!d.join(&out).join("_temporary").exists(), "{jt}");
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(format!("{out}.json"))).unwrap())
                .unwrap();
        assert_eq!(r["rows_out"].as_u64().unwrap() as usize, rows.len());
        let used = r["prefilter"]["used"].as_bool().unwrap();
        assert_eq!(used, !matches!(jt, "right" | "full"), "{jt}");
        if used {
            assert!(
                r["right"]["rows_dropped_by_filter"].as_u64().unwrap() > 1000,
                "{jt}: {r}"
            );
            assert!(summary.contains("dropped by the filter"), "{summary}");
        } else {
            assert!(summary.contains("filter off"), "{summary}");
            assert!(r["prefilter"]["reason"].as_str().unwrap().contains(jt));
        }
        assert_eq!(
            r["right"]["rows_read"].as_u64().unwrap()
                + r["right"]["rows_skipped_by_stats"].as_u64().unwrap(),
            3000
        );
    }
}

#[test]
fn same_rows_for_any_workers_reducers_splits_batches_and_prefilter() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    for jt in ["inner", "left-anti", "full"] {
        let expected = reference(jt, 1500);
        for (i, extra) in [
            vec!["--workers", "1", "--reducers", "1"],
            vec!["--workers", "2", "--reducers", "3"],
            vec!["--workers", "3", "--reducers", "7", "--split-rows", "1"],
            vec!["--workers", "2", "--batch-size", "5", "--split-rows", "500"],
            vec!["--workers", "2", "--no-prefilter"],
        ]
        .into_iter()
        .enumerate()
        {
            let out = format!("o-{jt}-{i}");
            join(d, &out, jt, &extra);
            assert_eq!(read_rows(&d.join(&out)).0, expected, "{jt} {extra:?}");
        }
    }
}

#[test]
fn select_and_string_keys() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    // String keys: join users.name to a table of names.
    write_parquet(
        &d.join("names/n.parquet"),
        vec![(
            "who",
            Arc::new(StringArray::from(vec!["u1", "u2", "u2", "zz", "u299"])) as ArrayRef,
        )],
        2,
    );
    run_in(
        d,
        &[
            "train",
            "-q",
            "--input",
            "users",
            "--column",
            "name",
            "--output",
            "names.bjf",
        ],
    )
    .ok();
    run_in(
        d,
        &[
            "join",
            "-q",
            "--filter",
            "names.bjf",
            "--left",
            "users",
            "--left-key",
            "name",
            "--right",
            "names",
            "--right-key",
            "who",
            "--select",
            "who,left.Reputation,name",
            "--output",
            "s",
        ],
    )
    .ok();
    let (rows, names) = read_rows(&d.join("s"));
    assert_eq!(names, ["who", "Reputation", "name"]);
    let rep = |i: i64| i * 53 % 4000;
    let mut expected = vec![
        format!("u1|{}|u1", rep(1)),
        format!("u2|{}|u2", rep(2)),
        format!("u2|{}|u2", rep(2)),
        format!("u299|{}|u299", rep(299)),
    ];
    expected.sort();
    assert_eq!(rows, expected);
}

#[test]
fn bad_input_one_line_exit_2_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    run_in(
        d,
        &[
            "train",
            "-q",
            "--input",
            "users",
            "--column",
            "name",
            "--output",
            "names.bjf",
        ],
    )
    .ok();
    let base = |filter: &str, out: &str, extra: &[&str]| {
        let mut a = vec![
            "join",
            "--filter",
            filter,
            "--left",
            "users",
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
        run_in(d, &a)
    };
    base("names.bjf", "o1", &[]).fails(2, &["key family", "bytes", "integer"]);
    base("users.bjf", "o2", &["--select", "nope"]).fails(2, &["--select", "nope"]);
    base("users.bjf", "o3", &["--select", "Id"]).fails(2, &["--select", "both sides"]);
    base(
        "users.bjf",
        "o4",
        &["--type", "left-semi", "--select", "right.Text"],
    )
    .fails(2, &["--select", "left-semi"]);
    let mut a = vec![
        "join",
        "--filter",
        "users.bjf",
        "--left",
        "users",
        "--left-key",
        "nope",
        "--right",
        "comments",
        "--right-key",
        "UserId",
        "--output",
        "o5",
    ];
    run_in(d, &a).fails(2, &["\"nope\"", "u0.parquet"]);
    a[6] = "Id";
    a[10] = "Text";
    run_in(d, &a).fails(2, &["key family"]);
    let mut bytes = std::fs::read(d.join("users.bjf")).unwrap();
    bytes[8] = 2;
    std::fs::write(d.join("future.bjf"), bytes).unwrap();
    base("future.bjf", "o6", &[]).fails(2, &["future.bjf", "version 2"]);
    base("users.bjf", "o7", &["--memory-limit", "1KiB"]).fails(2, &["--memory-limit"]);
    for o in ["o1", "o2", "o3", "o4", "o5", "o6", "o7"] {
        assert!(
            files_below(&d.join(o)).is_empty(),
            "{o}: {:?}",
            files_below(&d.join(o))
        );
    }
    // Existing output: refused without --overwrite, replaced with it.
    base("users.bjf", "done", &["-q"]).ok();
    let before = files_below(&d.join("done"));
    base("users.bjf", "done", &[]).fails(2, &["done", "--overwrite"]);
    assert_eq!(files_below(&d.join("done")), before);
    base(
        "users.bjf",
        "done",
        &["-q", "--overwrite", "--reducers", "1"],
    )
    .ok();
    let after = files_below(&d.join("done"));
    assert_eq!(after.len(), 2, "{after:?}");
    assert_eq!(after[0], "_SUCCESS");
    assert!(
        after[1].starts_with("part-00000-") && after[1].ends_with(".parquet"),
        "{after:?}"
    );
}
