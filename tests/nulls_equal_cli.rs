//! `join --nulls-equal`: null key components match each other (SQL's `IS NOT DISTINCT FROM`),
//! checked against a naive reference over every join type, both strategies, every prefilter
//! (built, trained, none) and other workers, batches and splits; one- and two-column keys of
//! different integer widths; the right side's tiers (statistics, Parquet Bloom filters, a
//! key of partition columns alone) keeping what a null may match; and the default, where a
//! null matches nothing, unchanged.

use std::path::Path;
use std::sync::Arc;

use arrow::array::*;

use crate::join_cli::JOIN_TYPES;
use crate::util::{read_rows, run_in, write_parquet, write_parquet_with};

/// A left row: (id, a, b).
type LeftRow = (i64, Option<i32>, Option<&'static str>);
/// A right row: (id, a, b).
type RightRow = (i64, Option<i64>, Option<&'static str>);

/// Left rows: (id, a, b), `a` Int32 and `b` a string, both with nulls.
fn left_rows() -> Vec<LeftRow> {
    (0..60)
        .map(|i| {
            let a = (i % 7 != 3).then_some((i % 9) as i32);
            let b = (i % 5 != 1).then_some(["x", "y"][(i % 2) as usize]);
            (i, a, b)
        })
        .collect()
}

/// Right rows: (id, a, b), `a` Int64 (another width than the left's), both with nulls, in
/// row groups of 40 rows (`write_sides`): groups 0 to 3 hold `a` 0 to 11 (key values the left
/// side lacks too) and nulls; group 4 only 7 and nulls; groups 5 to 9 one value each, 5 to
/// 9, and no null.
fn right_rows() -> Vec<RightRow> {
    (0..400)
        .map(|i| {
            let a = match i {
                0..160 => (i % 11 != 4).then_some(i % 12),
                160..200 => (i % 2 == 1).then_some(7),
                _ => Some(5 + (i - 200) / 40),
            };
            let b = (i % 6 != 2).then_some(["x", "y", "z"][(i % 3) as usize]);
            (1000 + i, a, b)
        })
        .collect()
}

/// A side's columns, named `names`: the ids (Int64), `a` and `b` (strings).
fn side<'a>(
    names: [&'a str; 3],
    ids: Vec<i64>,
    a: ArrayRef,
    b: Vec<Option<&str>>,
) -> Vec<(&'a str, ArrayRef)> {
    vec![
        (names[0], Arc::new(Int64Array::from(ids)) as ArrayRef),
        (names[1], a),
        (names[2], Arc::new(StringArray::from(b))),
    ]
}

fn write_sides(d: &Path) {
    let l = left_rows();
    let r = right_rows();
    let la = Int32Array::from(l.iter().map(|x| x.1).collect::<Vec<_>>());
    write_parquet(
        &d.join("left/l.parquet"),
        side(
            ["lid", "la", "lb"],
            l.iter().map(|x| x.0).collect(),
            Arc::new(la),
            l.iter().map(|x| x.2).collect(),
        ),
        13,
    );
    // Row groups of 40 rows, some of them without a null `ra`, with statistics and Parquet
    // Bloom filters on both key columns.
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(40))
        .set_bloom_filter_enabled(true)
        .build();
    let ra = Int64Array::from(r.iter().map(|x| x.1).collect::<Vec<_>>());
    write_parquet_with(
        &d.join("right/r.parquet"),
        side(
            ["rid", "ra", "rb"],
            r.iter().map(|x| x.0).collect(),
            Arc::new(ra),
            r.iter().map(|x| x.2).collect(),
        ),
        props,
    );
}

/// The reference: the ids a join of type `jt` on `arity` key columns writes, as `read_rows`
/// prints them (`lid|rid` for pairs, one id for semi and anti joins), sorted. Keys compare
/// as IS NOT DISTINCT FROM under `nulls_equal`, as `=` otherwise (a null matches nothing);
/// `left_ok` keeps the left rows a `--left-where` keeps.
fn reference(
    jt: &str,
    arity: usize,
    nulls_equal: bool,
    left_ok: impl Fn(&LeftRow) -> bool,
) -> Vec<String> {
    let l: Vec<_> = left_rows().into_iter().filter(|x| left_ok(x)).collect();
    let r = right_rows();
    let lkey = |x: &LeftRow| (x.1.map(i64::from), if arity == 2 { x.2 } else { None });
    let rkey = |x: &RightRow| (x.1, if arity == 2 { x.2 } else { None });
    let has_null = |k: &(Option<i64>, Option<&str>)| k.0.is_none() || (arity == 2 && k.1.is_none());
    let meets = |a: &LeftRow, b: &RightRow| {
        let (ka, kb) = (lkey(a), rkey(b));
        ka == kb && (nulls_equal || !has_null(&ka))
    };
    let null = "NULL".to_string();
    let mut out = Vec::new();
    match jt {
        "left-semi" | "left-anti" => {
            for a in &l {
                if r.iter().any(|b| meets(a, b)) == (jt == "left-semi") {
                    out.push(a.0.to_string());
                }
            }
        }
        "right-semi" | "right-anti" => {
            for b in &r {
                if l.iter().any(|a| meets(a, b)) == (jt == "right-semi") {
                    out.push(b.0.to_string());
                }
            }
        }
        _ => {
            for a in &l {
                for b in &r {
                    if meets(a, b) {
                        out.push(format!("{}|{}", a.0, b.0));
                    }
                }
            }
            if matches!(jt, "left" | "full") {
                for a in l.iter().filter(|a| !r.iter().any(|b| meets(a, b))) {
                    out.push(format!("{}|{null}", a.0));
                }
            }
            if matches!(jt, "right" | "full") {
                for b in r.iter().filter(|b| !l.iter().any(|a| meets(a, b))) {
                    out.push(format!("{null}|{}", b.0));
                }
            }
        }
    }
    out.sort();
    out
}

/// Run the join of `jt` on `arity` key columns into `out` with `extra` options; its rows.
fn join(d: &Path, out: &str, jt: &str, arity: usize, extra: &[&str]) -> Vec<String> {
    let (lk, rk) = if arity == 2 {
        ("la,lb", "ra,rb")
    } else {
        ("la", "ra")
    };
    let select = match jt {
        "left-semi" | "left-anti" => "lid",
        "right-semi" | "right-anti" => "rid",
        _ => "lid,rid",
    };
    let mut args = vec![
        "join",
        "-q",
        "--left",
        "left",
        "--left-key",
        lk,
        "--right",
        "right",
        "--right-key",
        rk,
        "--type",
        jt,
        "--select",
        select,
        "--output",
        out,
    ];
    args.extend_from_slice(extra);
    run_in(d, &args).ok();
    read_rows(&d.join(out)).0
}

#[test]
fn every_join_type_strategy_and_prefilter_matches_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    for arity in [1, 2] {
        let (lk, f) = if arity == 2 {
            ("la,lb", "f2.bjf")
        } else {
            ("la", "f1.bjf")
        };
        run_in(
            d,
            &[
                "train", "-q", "-i", "left", "-c", lk, "--fpp", "0.01", "-o", f,
            ],
        )
        .ok();
        for jt in JOIN_TYPES {
            let want = reference(jt, arity, true, |_| true);
            // Without --nulls-equal a null matches nothing: the rows differ on these sides.
            let plain = reference(jt, arity, false, |_| true);
            assert_ne!(
                want, plain,
                "{jt}: the sides must hold keys with nulls that meet"
            );
            let variants: [&[&str]; 7] = [
                &[],
                &["--strategy", "reduce-side", "--reducers", "3"],
                &["--no-prefilter"],
                &["--filter", f],
                &[
                    "--filter",
                    f,
                    "--strategy",
                    "reduce-side",
                    "--workers",
                    "3",
                    "--batch-size",
                    "7",
                ],
                &["--workers", "1", "--batch-size", "1", "--split-rows", "5"],
                &[
                    "--strategy",
                    "reduce-side",
                    "--memory-limit",
                    "2KiB",
                    "--reducers",
                    "1",
                ],
            ];
            for (v, extra) in variants.iter().enumerate() {
                let out = format!("ne-{arity}-{jt}-{v}");
                let mut args = vec!["--nulls-equal"];
                args.extend_from_slice(extra);
                assert_eq!(
                    join(d, &out, jt, arity, &args),
                    want,
                    "{jt}, {arity} key columns, {extra:?}"
                );
            }
            assert_eq!(
                join(d, &format!("eq-{arity}-{jt}"), jt, arity, &[]),
                plain,
                "{jt} without --nulls-equal"
            );
        }
    }
}

#[test]
fn a_left_side_without_null_keys_drops_the_right_ones_as_without_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    let no_nulls = |x: &LeftRow| x.1.is_some();
    for jt in ["inner", "right-semi", "right-anti", "full"] {
        let want = reference(jt, 1, true, no_nulls);
        assert_eq!(want, reference(jt, 1, false, no_nulls), "{jt}");
        let got = join(
            d,
            &format!("out-{jt}"),
            jt,
            1,
            &[
                "--nulls-equal",
                "--left-where",
                "la IS NOT NULL",
                "--report",
                &format!("r-{jt}.json"),
            ],
        );
        assert_eq!(got, want, "{jt}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(format!("r-{jt}.json"))).unwrap())
                .unwrap();
        assert_eq!(report["nulls_equal"], true);
        assert_eq!(report["left"]["rows_null_key"], 0);
        // The right side's null keys (every 11th row) match nothing: dropped, unless the
        // join type keeps the right side's unmatched rows.
        let right_nulls = right_rows().iter().filter(|x| x.1.is_none()).count() as u64;
        let keeps = matches!(jt, "right-anti" | "full");
        assert_eq!(
            report["right"]["rows_dropped_null_key"],
            if keeps { 0 } else { right_nulls },
            "{jt}"
        );
    }
}

/// A right-semi join with `--left-where` under `--nulls-equal` or not: its rows against the
/// reference, and its report.
fn semi_with(d: &Path, out: &str, left_where: &str, nulls_equal: bool) -> serde_json::Value {
    let report = format!("{out}.json");
    let mut args = vec!["--left-where", left_where, "--report", &report];
    if nulls_equal {
        args.push("--nulls-equal");
    }
    let got = join(d, out, "right-semi", 1, &args);
    let cond: Box<dyn Fn(&LeftRow) -> bool> = match left_where {
        "la = 1 OR la IS NULL" => Box::new(|x| x.1.is_none_or(|a| a == 1)),
        _ => Box::new(|x| x.1.is_none_or(|a| a == 1 || a == 8)),
    };
    assert_eq!(got, reference("right-semi", 1, nulls_equal, cond), "{out}");
    serde_json::from_str(&std::fs::read_to_string(d.join(report)).unwrap()).unwrap()
}

#[test]
fn the_right_tiers_keep_what_a_null_key_may_match() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    let skipped = |r: &serde_json::Value, what: &str| r["right"][what].as_u64().unwrap();
    // Left keys 1 and null: the left keys' range, [1, 1], rules out right row groups 4 to 9
    // by their statistics; but group 4 holds nulls, which the left's null matches.
    let plain = semi_with(d, "range-plain", "la = 1 OR la IS NULL", false);
    assert_eq!(skipped(&plain, "row_groups_skipped"), 6, "{plain}");
    let ne = semi_with(d, "range-ne", "la = 1 OR la IS NULL", true);
    assert_eq!(skipped(&ne, "row_groups_skipped"), 5, "{ne}");
    let left_nulls = left_rows().iter().filter(|x| x.1.is_none()).count() as u64;
    let right_nulls = right_rows().iter().filter(|x| x.1.is_none()).count() as u64;
    assert_eq!(ne["left"]["rows_null_key"], left_nulls);
    assert_eq!(plain["right"]["rows_dropped_null_key"], right_nulls - 20);
    assert_eq!(ne["right"]["rows_dropped_null_key"], 0);
    assert_eq!(ne["right"]["rows_null_key"], right_nulls);
    // Left keys 1, 8 and null: the range [1, 8] rules out group 9 alone; the right file's
    // Parquet Bloom filters rule out groups 4 to 7 (no 1, no 8), but group 4's nulls.
    let plain = semi_with(d, "sbbf-plain", "la = 1 OR la = 8 OR la IS NULL", false);
    assert_eq!(skipped(&plain, "row_groups_skipped"), 1, "{plain}");
    assert_eq!(skipped(&plain, "row_groups_skipped_by_sbbf"), 4, "{plain}");
    let ne = semi_with(d, "sbbf-ne", "la = 1 OR la = 8 OR la IS NULL", true);
    assert_eq!(skipped(&ne, "row_groups_skipped"), 1, "{ne}");
    assert_eq!(skipped(&ne, "row_groups_skipped_by_sbbf"), 3, "{ne}");
}

#[test]
fn a_null_partition_key_is_read_and_matched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Right rows in directories of their key, one of them the null directory.
    for (dir_name, ids) in [
        ("k=1", [1, 2]),
        ("k=2", [3, 4]),
        ("k=__HIVE_DEFAULT_PARTITION__", [5, 6]),
    ] {
        write_parquet(
            &d.join("right").join(dir_name).join("part-0.parquet"),
            vec![("rid", Arc::new(Int64Array::from(ids.to_vec())) as ArrayRef)],
            10,
        );
    }
    write_parquet(
        &d.join("left/l.parquet"),
        vec![
            (
                "lid",
                Arc::new(Int64Array::from(vec![10, 11, 12])) as ArrayRef,
            ),
            (
                "lk",
                Arc::new(Int64Array::from(vec![Some(1), None, Some(9)])),
            ),
        ],
        10,
    );
    run_in(
        d,
        &[
            "train", "-q", "-i", "left", "-c", "lk", "--fpp", "0.01", "-o", "f.bjf",
        ],
    )
    .ok();
    for extra in [
        &[][..],
        &["--filter", "f.bjf"],
        &["--strategy", "reduce-side"],
    ] {
        let run = |out: &str, nulls_equal: bool| {
            let mut args = vec![
                "join",
                "-q",
                "--left",
                "left",
                "--left-key",
                "lk",
                "--right",
                "right",
                "--right-key",
                "k",
                "--select",
                "lid,rid",
                "--output",
                out,
            ];
            if nulls_equal {
                args.push("--nulls-equal");
            }
            args.extend_from_slice(extra);
            run_in(d, &args).ok();
            read_rows(&d.join(out)).0
        };
        let tag = extra.join("");
        assert_eq!(
            run(&format!("ne{tag}"), true),
            ["10|1", "10|2", "11|5", "11|6"],
            "{extra:?}"
        );
        assert_eq!(
            run(&format!("eq{tag}"), false),
            ["10|1", "10|2"],
            "{extra:?}"
        );
    }
}

#[test]
fn a_job_file_and_the_dry_run_take_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    std::fs::write(
        d.join("job.toml"),
        "[join]\nleft = [\"left\"]\nleft-key = \"la\"\nright = [\"right\"]\nright-key = \"ra\"\ntype = \"right-semi\"\nnulls-equal = true\nselect = \"rid\"\noutput = \"from-job\"\n",
    )
    .unwrap();
    run_in(d, &["run", "-q", "job.toml"]).ok();
    assert_eq!(
        read_rows(&d.join("from-job")).0,
        reference("right-semi", 1, true, |_| true)
    );
    // The inner join of the sides on `la = ra`, null keys equal, with `extra` options.
    let inner = |extra: &[&str]| {
        let mut args = vec![
            "join",
            "--left",
            "left",
            "--left-key",
            "la",
            "--right",
            "right",
            "--right-key",
            "ra",
            "--nulls-equal",
        ];
        args.extend_from_slice(extra);
        run_in(d, &args).ok()
    };
    let plan = inner(&["--output", "x", "--dry-run=json"]);
    let plan: serde_json::Value = serde_json::from_str(&plan).unwrap();
    assert_eq!(plan["nulls_equal"], true, "{plan}");
    let text = inner(&["--output", "x", "--dry-run"]);
    assert!(text.contains("inner join, nulls equal"), "{text}");
    let summary = inner(&["--output", "y"]);
    assert!(summary.contains("inner join, nulls equal"), "{summary}");
    assert!(summary.contains("kept, --nulls-equal"), "{summary}");
}

#[test]
fn readme_nulls_equal_example_is_true() {
    let (dir, runs) = crate::util::run_readme_example("- `--nulls-equal` (job key");
    let (cmd, out) = &runs[0];
    // 3,020 more rows than the same join without it.
    let plain = crate::util::run_readme_line(
        dir.path(),
        &cmd.replace(" --nulls-equal", "")
            .replace("comments_nulls_equal", "comments_plain"),
    );
    let rows = |s: &str| -> u64 {
        let (_, after) = s.split_once("  output ").unwrap();
        after.split_whitespace().next().unwrap().parse().unwrap()
    };
    assert_eq!(rows(out), rows(&plain) + 3020, "{out}\n{plain}");
}
