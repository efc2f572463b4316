//! `join --select "expr AS name"`: computed output columns, checked against a naive reference
//! for every join type and both strategies (values, NULLs of the missing side, types), and
//! their refusals: no name, the other side of a semi join, a type error, a value out of
//! BIGINT's range (exit 2, nothing written). `filter --select` computes and renames columns
//! the same way. `scripts/crosscheck.sh` compares them with DuckDB's `SELECT`.

use std::path::Path;
use std::sync::Arc;

use arrow::array::*;
use arrow::datatypes::DataType;

use crate::util::{files_below, read_rows, run_in, write_parquet};

/// Left rows (id, k, name) and right rows (rid, rk, score): keys 0 to 5 with nulls, some on
/// one side only.
fn write_sides(d: &Path) {
    let l: Vec<(i64, Option<i32>, Option<&str>)> = (0..12)
        .map(|i| {
            let k = (i % 5 != 4).then_some((i % 6) as i32);
            let name = (i % 4 != 3).then_some(["ann", "bo", "émile"][(i % 3) as usize]);
            (i, k, name)
        })
        .collect();
    write_parquet(
        &d.join("left/l.parquet"),
        vec![
            (
                "id",
                Arc::new(Int64Array::from_iter_values(l.iter().map(|x| x.0))) as ArrayRef,
            ),
            ("k", Arc::new(Int32Array::from_iter(l.iter().map(|x| x.1)))),
            (
                "name",
                Arc::new(StringArray::from_iter(l.iter().map(|x| x.2))),
            ),
        ],
        5,
    );
    let r: Vec<(i64, Option<i64>, Option<i32>)> = (0..20)
        .map(|i| {
            let k = (i % 7 != 2).then_some(3 + i % 6);
            let score = (i % 6 != 5).then_some(i as i32 * 3 - 20);
            (100 + i, k, score)
        })
        .collect();
    write_parquet(
        &d.join("right/r.parquet"),
        vec![
            (
                "rid",
                Arc::new(Int64Array::from_iter_values(r.iter().map(|x| x.0))) as ArrayRef,
            ),
            ("rk", Arc::new(Int64Array::from_iter(r.iter().map(|x| x.1)))),
            (
                "score",
                Arc::new(Int32Array::from_iter(r.iter().map(|x| x.2))),
            ),
        ],
        7,
    );
}

/// Join the sides with `extra` options; the output directory.
fn join(d: &Path, out: &str, extra: &[&str]) -> std::path::PathBuf {
    let mut args = vec![
        "-q",
        "join",
        "--left",
        "left",
        "--left-key",
        "k",
        "--right",
        "right",
        "--right-key",
        "rk",
        "--output",
        out,
    ];
    args.extend_from_slice(extra);
    run_in(d, &args).ok();
    d.join(out)
}

/// The type of output column `name` in the first part below `dir`.
fn column_type(dir: &Path, name: &str) -> DataType {
    let f = files_below(dir)
        .into_iter()
        .find(|f| f.ends_with(".parquet"))
        .expect("a part");
    let file = std::fs::File::open(dir.join(f)).unwrap();
    let b = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    b.schema()
        .field_with_name(name)
        .unwrap()
        .data_type()
        .clone()
}

#[test]
fn computed_columns_are_their_expressions_on_the_joined_rows() {
    let d = tempfile::tempdir().unwrap();
    write_sides(d.path());
    let select = "id, rid, score * 2 + k AS s2k, name || ':' || score AS tag, score > 0 AS up, \
                  CASE WHEN score IS NULL THEN 'none' ELSE 'some' END AS has, score * 1.5 AS f, \
                  left.id + right.rid AS sum";
    for jt in ["inner", "left", "right", "full"] {
        let mut want: Option<Vec<String>> = None;
        for strategy in ["replicated", "reduce-side"] {
            let out = format!("out-{jt}-{strategy}");
            let dir = join(
                d.path(),
                &out,
                &["--type", jt, "--strategy", strategy, "--select", select],
            );
            let (rows, names) = read_rows(&dir);
            assert_eq!(
                names,
                ["id", "rid", "s2k", "tag", "up", "has", "f", "sum"],
                "{jt}"
            );
            // The plain columns and the computed ones, row by row: the reference computes
            // each from the row's own id, rid, score and k.
            let (plain, _) = read_rows(&join(
                d.path(),
                &format!("plain-{jt}-{strategy}"),
                &[
                    "--type",
                    jt,
                    "--strategy",
                    strategy,
                    "--select",
                    "id, rid, score, k, name",
                ],
            ));
            let mut reference: Vec<String> = plain
                .iter()
                .map(|r| {
                    let v: Vec<&str> = r.split('|').collect();
                    let num = |s: &str| (s != "NULL").then(|| s.parse::<i64>().unwrap());
                    let (id, rid, score, k, name) =
                        (num(v[0]), num(v[1]), num(v[2]), num(v[3]), v[4]);
                    let opt = |x: Option<i64>| x.map_or("NULL".to_string(), |x| x.to_string());
                    let s2k = score.zip(k).map(|(s, k)| s * 2 + k);
                    let tag = match (name, score) {
                        ("NULL", _) | (_, None) => "NULL".to_string(),
                        (n, Some(s)) => format!("{n}:{s}"),
                    };
                    let up = score.map_or("NULL".to_string(), |s| (s > 0).to_string());
                    let has = if score.is_none() { "none" } else { "some" };
                    let f = score.map_or("NULL".to_string(), |s| {
                        format!("{}.{}", (s * 15) / 10, ((s * 15) % 10).abs())
                    });
                    let f = match score {
                        Some(s) if s * 15 < 0 && (s * 15) / 10 == 0 => format!("-{f}"),
                        _ => f,
                    };
                    format!(
                        "{}|{}|{}|{tag}|{up}|{has}|{f}|{}",
                        opt(id),
                        opt(rid),
                        opt(s2k),
                        opt(id.zip(rid).map(|(a, b)| a + b))
                    )
                })
                .collect();
            reference.sort();
            assert_eq!(rows, reference, "{jt} {strategy}");
            match &want {
                None => want = Some(rows),
                Some(w) => assert_eq!(&rows, w, "{jt}: the strategies agree"),
            }
            let types: Vec<DataType> = ["s2k", "tag", "up", "f", "sum"]
                .iter()
                .map(|c| column_type(&dir, c))
                .collect();
            assert_eq!(
                types[0..3],
                [DataType::Int64, DataType::LargeUtf8, DataType::Boolean],
                "{jt}"
            );
            assert!(
                matches!(types[3], DataType::Decimal128(_, 1)),
                "{:?}",
                types[3]
            );
            assert_eq!(types[4], DataType::Int64);
        }
    }
    // A semi join's computed columns read its side; a CAST keeps its type.
    let dir = join(
        d.path(),
        "semi",
        &[
            "--type",
            "right-semi",
            "--select",
            "rid, CAST(score AS SMALLINT) AS s16, md5(CAST(rid AS VARCHAR)) AS h",
        ],
    );
    assert_eq!(column_type(&dir, "s16"), DataType::Int16);
    let (rows, _) = read_rows(&dir);
    // rid 101 (key 4, score -17): md5('101').
    assert!(
        rows.contains(&"101|-17|38b3eff8baf56627478ec76a704e9b52".to_string()),
        "{rows:?}"
    );
}

/// A --select that starts with a minus sign is the list, not an unknown option (as for
/// --where): `-score AS neg` negates.
#[test]
fn a_select_list_may_start_with_a_minus_sign() {
    let d = tempfile::tempdir().unwrap();
    write_sides(d.path());
    let neg = join(d.path(), "neg", &["--select", "-score AS neg, rid"]);
    let pos = join(d.path(), "pos", &["--select", "score, rid"]);
    let sorted = |dir: &Path| {
        let (mut rows, names) = read_rows(dir);
        rows.sort();
        (rows, names)
    };
    let ((neg, names), (pos, _)) = (sorted(&neg), sorted(&pos));
    assert_eq!(names, ["neg", "rid"]);
    assert!(!pos.is_empty());
    let mut negated: Vec<String> = pos
        .iter()
        .map(|r| {
            let (score, rid) = r.split_once('|').unwrap();
            match score {
                "NULL" => r.clone(),
                s => format!("{}|{rid}", -s.parse::<i64>().unwrap()),
            }
        })
        .collect();
    negated.sort();
    assert_eq!(neg, negated);
    // The filter job's --select too.
    let f = d.path().join("k.bjf");
    run_in(
        d.path(),
        &[
            "-q", "train", "--input", "left", "--column", "k", "--output", "k.bjf",
        ],
    )
    .ok();
    assert!(f.exists());
    run_in(
        d.path(),
        &[
            "-q",
            "filter",
            "--input",
            "right",
            "--key",
            "rk",
            "--filter",
            "k.bjf",
            "--select",
            "-rid AS r",
            "--output",
            "fneg",
        ],
    )
    .ok();
    let (rows, names) = read_rows(&d.path().join("fneg"));
    assert_eq!(names, ["r"]);
    assert!(
        !rows.is_empty() && rows.iter().all(|r| r.starts_with('-')),
        "{rows:?}"
    );
}

#[test]
fn computed_columns_partition_the_output() {
    let d = tempfile::tempdir().unwrap();
    write_sides(d.path());
    let dir = join(
        d.path(),
        "out",
        &[
            "--select",
            "rid, score, score % 2 = 0 AS even",
            "--partition-by",
            "even",
        ],
    );
    let files = files_below(&dir);
    assert!(
        files.iter().any(|f| f.starts_with("even=true/")),
        "{files:?}"
    );
    assert!(
        files.iter().any(|f| f.starts_with("even=false/")),
        "{files:?}"
    );
}

#[test]
fn computed_columns_refuse_what_they_cannot_compute() {
    let d = tempfile::tempdir().unwrap();
    write_sides(d.path());
    let refused = |select: &str, jt: &str, code: i32, needles: &[&str]| {
        let args = [
            "-q",
            "join",
            "--left",
            "left",
            "--left-key",
            "k",
            "--right",
            "right",
            "--right-key",
            "rk",
            "--type",
            jt,
            "--select",
            select,
            "--output",
            "no",
        ];
        let e = run_in(d.path(), &args).fails(code, needles);
        assert_eq!(e.trim().lines().count(), 1, "{e}");
        assert!(!d.path().join("no").exists(), "{select}: nothing written");
    };
    refused(
        "rid, score * 2",
        "inner",
        2,
        &[
            "--select",
            "\"score * 2\" computes a value: name its column, `score * 2 AS name`",
        ],
    );
    refused(
        "rid, name || 'x' AS n",
        "right-semi",
        2,
        &["a right-semi join outputs right columns only", "\"name\""],
    );
    refused("rid, name + 1 AS n", "inner", 2, &["--select", "name"]);
    refused("rid, NULL AS n", "inner", 2, &["always NULL", "CAST"]);
    refused(
        "rid, nosuch * 2 AS n",
        "inner",
        2,
        &["--select", "no column \"nosuch\" on either side"],
    );
    // Beyond BIGINT: a value error, when the rows are joined.
    refused(
        "rid, rid * 9223372036854775807 AS n",
        "inner",
        2,
        &["out of the range of BIGINT", "CAST"],
    );
    // Beyond 38 digits: named as SQL names the type.
    refused(
        "rid, rid * 1000000000000000000000000000000000000.5 AS n",
        "inner",
        2,
        &["a value is out of the range of DECIMAL(38,1) (CAST the expression"],
    );
}

#[test]
fn readme_computed_columns_example_is_true() {
    let (dir, _) = crate::util::run_readme_example("- Computed columns: an item of `--select`");
    let out = dir.path().join("out/weighted_comments");
    assert_eq!(column_type(&out, "weight"), DataType::Int64);
    assert_eq!(column_type(&out, "preview"), DataType::LargeUtf8);
    let (rows, names) = read_rows(&out);
    assert_eq!(names, ["Id", "DisplayName", "weight", "preview"]);
    assert!(rows
        .iter()
        .all(|r| r.ends_with("...") || r.ends_with("|NULL")));
    let files = files_below(&out);
    assert!(files.iter().any(|f| f.starts_with("year=20")), "{files:?}");
}

/// A regression: a semi join's computed column read a bare name both sides have as
/// ambiguous, where a column list reads it as the output side's (found by the DuckDB
/// cross-check, `year(CreationDate)` in a right-semi join).
#[test]
fn semi_joins_read_bare_names_from_their_side() {
    let d = tempfile::tempdir().unwrap();
    let ids = |v: Vec<i64>| Arc::new(Int64Array::from(v)) as ArrayRef;
    write_parquet(
        &d.path().join("left/l.parquet"),
        vec![("k", ids(vec![1, 2, 3])), ("v", ids(vec![10, 20, 30]))],
        10,
    );
    write_parquet(
        &d.path().join("right/r.parquet"),
        vec![("k", ids(vec![2, 3, 4])), ("v", ids(vec![200, 300, 400]))],
        10,
    );
    let run = |jt: &str, out: &str| {
        run_in(
            d.path(),
            &[
                "-q",
                "join",
                "--left",
                "left",
                "--left-key",
                "k",
                "--right",
                "right",
                "--right-key",
                "k",
                "--type",
                jt,
                "--select",
                "k, v + 1 AS w",
                "--output",
                out,
            ],
        )
        .ok();
        read_rows(&d.path().join(out)).0
    };
    assert_eq!(run("left-semi", "ls"), ["2|21", "3|31"]);
    assert_eq!(run("right-semi", "rs"), ["2|201", "3|301"]);
    assert_eq!(run("left-anti", "la"), ["1|11"]);
    assert_eq!(run("right-anti", "ra"), ["4|401"]);
}

/// Train `f.bjf` on the left side's keys, and return a runner of `filter` of the right side
/// by it on `rk`: (output, extra options) -> the output directory.
fn filter_right(d: &Path) -> impl Fn(&str, &[&str]) -> crate::util::Run + '_ {
    run_in(
        d,
        &[
            "-q", "train", "--input", "left", "--column", "k", "--output", "f.bjf",
        ],
    )
    .ok();
    move |out: &str, extra: &[&str]| {
        let mut args = vec![
            "-q", "filter", "--filter", "f.bjf", "--input", "right", "--key", "rk", "--output", out,
        ];
        args.extend_from_slice(extra);
        run_in(d, &args)
    }
}

#[test]
fn filter_select_computes_and_renames_columns() {
    let d = tempfile::tempdir().unwrap();
    write_sides(d.path());
    let filter = filter_right(d.path());
    let select =
        "rid AS id, rk, score * 2 + rk AS s, 'r' || rid AS tag, score IS NULL AS missing, \
                  CAST(score AS SMALLINT) AS small";
    for invert in [&[][..], &["--invert"]] {
        filter(
            "c",
            &[invert, &["--overwrite", "--select", select]].concat(),
        )
        .ok();
        let (rows, names) = read_rows(&d.path().join("c"));
        assert_eq!(names, ["id", "rk", "s", "tag", "missing", "small"]);
        // The same rows' plain columns, and the computed ones from them.
        filter(
            "p",
            &[invert, &["--overwrite", "--select", "rid, rk, score"]].concat(),
        )
        .ok();
        let (plain, _) = read_rows(&d.path().join("p"));
        assert!(!plain.is_empty());
        let mut reference: Vec<String> = plain
            .iter()
            .map(|r| {
                let v: Vec<&str> = r.split('|').collect();
                let num = |s: &str| (s != "NULL").then(|| s.parse::<i64>().unwrap());
                let (rid, rk, score) = (num(v[0]).unwrap(), num(v[1]), num(v[2]));
                let opt = |x: Option<i64>| x.map_or("NULL".to_string(), |x| x.to_string());
                format!(
                    "{rid}|{}|{}|r{rid}|{}|{}",
                    opt(rk),
                    opt(score.zip(rk).map(|(s, k)| s * 2 + k)),
                    score.is_none(),
                    opt(score)
                )
            })
            .collect();
        reference.sort();
        assert_eq!(rows, reference, "{invert:?}");
    }
    let out = d.path().join("c");
    assert_eq!(column_type(&out, "s"), DataType::Int64);
    assert_eq!(column_type(&out, "tag"), DataType::LargeUtf8);
    assert_eq!(column_type(&out, "missing"), DataType::Boolean);
    assert_eq!(column_type(&out, "small"), DataType::Int16);
    // A computed column partitions the output.
    filter(
        "h",
        &[
            "--select",
            "rid, rk % 2 = 0 AS even",
            "--partition-by",
            "even",
        ],
    )
    .ok();
    let files = files_below(&d.path().join("h"));
    for dir in ["even=true/", "even=false/"] {
        assert!(files.iter().any(|f| f.starts_with(dir)), "{files:?}");
    }
}

#[test]
fn filter_select_refuses_what_it_cannot_compute() {
    let d = tempfile::tempdir().unwrap();
    write_sides(d.path());
    let filter = filter_right(d.path());
    for (select, needles) in [
        (
            "rid, score * 2",
            &[
                "--select",
                "\"score * 2\" computes a value: name its column, `score * 2 AS name`",
            ][..],
        ),
        (
            "rid, nosuch * 2 AS n",
            &[
                "--select",
                "no column \"nosuch\" in the input (in \"nosuch * 2\")",
            ],
        ),
        (
            "rid, nosuch AS n",
            &["--select", "\"nosuch\" is not a column of the input"],
        ),
        (
            "rid, score + 'x' AS n",
            &["--select \"score + 'x'\": 'x' is a string: arithmetic takes numbers"],
        ),
        ("rid, NULL AS n", &["always NULL", "CAST"]),
        (
            "rid, rid",
            &["column \"rid\" is selected twice (name the second with `AS`)"],
        ),
        (
            "rid, rk AS rid",
            &["two output columns would be named \"rid\": rename one with `AS`"],
        ),
        ("rid, ", &["has an empty column name"]),
        // Beyond BIGINT: a value error, when the rows are read.
        (
            "rid, rid * 9223372036854775807 AS n",
            &["out of the range of BIGINT", "CAST"],
        ),
    ] {
        let e = filter("no", &["--select", select]).fails(2, needles);
        assert_eq!(e.trim().lines().count(), 1, "{e}");
        assert!(!d.path().join("no").exists(), "{select}: nothing written");
    }
}

#[test]
fn stars_select_every_column_but_those_excluded() {
    let d = tempfile::tempdir().unwrap();
    write_sides(d.path());
    let names = |dir: &Path| read_rows(dir).1;
    assert_eq!(
        names(&join(d.path(), "all", &["--select", "*, score * 2 AS s2"])),
        ["id", "k", "name", "rid", "rk", "score", "s2"]
    );
    let left = join(
        d.path(),
        "left-star",
        &["--type", "left", "--select", "left.* EXCLUDE (name), rid"],
    );
    assert_eq!(names(&left), ["id", "k", "rid"]);
    // The same rows as the columns listed.
    let listed = join(
        d.path(),
        "listed",
        &["--type", "left", "--select", "id, k, rid"],
    );
    assert_eq!(read_rows(&left).0, read_rows(&listed).0);
    let filter = filter_right(d.path());
    filter("f", &["--select", "* EXCLUDE rk, score + 1 AS s1"]).ok();
    assert_eq!(names(&d.path().join("f")), ["rid", "score", "s1"]);
    let e = filter("no", &["--select", "* EXCLUDE (nope)"]).fails(
        2,
        &["--select: \"nope\" of the EXCLUDE list is not a column of the input"],
    );
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(!d.path().join("no").exists());
}

#[test]
fn stars_replace_and_rename_columns_in_their_place() {
    let d = tempfile::tempdir().unwrap();
    write_sides(d.path());
    // DuckDB's `* EXCLUDE (...) REPLACE (...) RENAME (...)`: the same rows as the list written
    // out, the columns in the star's order.
    let star = join(
        d.path(),
        "star",
        &[
            "--select",
            "left.* EXCLUDE (k) REPLACE (upper(name) AS name) RENAME (id AS uid), right.* REPLACE (score * 2 AS score)",
        ],
    );
    let listed = join(
        d.path(),
        "listed",
        &[
            "--select",
            "id AS uid, upper(name) AS name, rid, rk, score * 2 AS score",
        ],
    );
    assert_eq!(read_rows(&star).1, ["uid", "name", "rid", "rk", "score"]);
    assert_eq!(read_rows(&star), read_rows(&listed));
    let filter = filter_right(d.path());
    filter(
        "f",
        &["--select", "* REPLACE (rk + 1 AS rk) RENAME rid AS r"],
    )
    .ok();
    filter("fl", &["--select", "rid AS r, rk + 1 AS rk, score"]).ok();
    assert_eq!(read_rows(&d.path().join("f")).1, ["r", "rk", "score"]);
    // DuckDB's pattern on the names, last: the columns it matches.
    let like = join(
        d.path(),
        "like",
        &["--select", "* EXCLUDE (left.name) NOT LIKE 'r%'"],
    );
    assert_eq!(read_rows(&like).1, ["id", "k", "score"]);
    assert_eq!(
        read_rows(&d.path().join("f")),
        read_rows(&d.path().join("fl"))
    );
    // A name the star does not give, or that both sides give, is one line, exit 2, no output.
    for (select, needle) in [
        (
            "* REPLACE (1 AS nope)",
            "--select: \"nope\" of the REPLACE list is not a column of the input",
        ),
        (
            "* RENAME (score AS rid)",
            "two output columns would be named \"rid\"",
        ),
    ] {
        let e = filter("no", &["--select", select]).fails(2, &[needle]);
        assert_eq!(e.trim().lines().count(), 1, "{e}");
        assert!(!d.path().join("no").exists());
    }
}
