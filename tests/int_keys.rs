//! Integer keys meet by value, as in SQL (issue 12, defect 1; issue 16): a `UInt64` key of
//! 2^63 and more never meets a signed key's negative value, in train, join (both strategies,
//! with and without the prefilter, every join type) and probe. Expected rows are DuckDB's
//! answers to the same queries (`UBIGINT` against `BIGINT`), written out below.

use std::path::Path;
use std::sync::Arc;

use arrow::array::*;

use crate::util::{read_rows, run_in, write_parquet};

const I64_MIN: i64 = i64::MIN;
const I64_MAX: i64 = i64::MAX;

/// A signed side and an unsigned side whose large values wrap onto the signed side's
/// negative ones (`u64::MAX` is -1 and 2^63 is `i64::MIN` in two's complement).
fn write_sides(d: &Path) {
    write_parquet(
        &d.join("signed/s.parquet"),
        vec![
            (
                "k",
                Arc::new(Int64Array::from(vec![
                    Some(-1),
                    Some(-2),
                    Some(5),
                    Some(I64_MIN),
                    Some(I64_MAX),
                    None,
                    Some(7),
                ])) as ArrayRef,
            ),
            (
                "v",
                Arc::new(StringArray::from(vec![
                    "m1", "m2", "five", "min", "max", "null", "seven",
                ])) as ArrayRef,
            ),
        ],
        4,
    );
    write_parquet(
        &d.join("unsigned/u.parquet"),
        vec![
            (
                "k",
                Arc::new(UInt64Array::from(vec![
                    Some(u64::MAX),
                    Some(u64::MAX - 1),
                    Some(5),
                    Some(1 << 63),
                    Some(I64_MAX as u64),
                    None,
                    Some(9),
                ])) as ArrayRef,
            ),
            (
                "v",
                Arc::new(StringArray::from(vec![
                    "umax", "umax1", "u5", "u2e63", "umaxi", "unull", "u9",
                ])) as ArrayRef,
            ),
        ],
        4,
    );
}

fn sorted(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// Join `left` (with its filter) and `right` on `k` with every strategy, with and without
/// the prefilter, and compare with `want`.
fn check(d: &Path, left: &str, right: &str, join_type: &str, want: &[&str]) {
    let filter = format!("{left}.bjf");
    for (i, extra) in [
        vec![],
        vec!["--no-prefilter"],
        vec!["--strategy", "reduce-side"],
        vec!["--strategy", "reduce-side", "--no-prefilter"],
    ]
    .into_iter()
    .enumerate()
    {
        let out = format!("o-{left}-{right}-{join_type}-{i}");
        let mut a = vec![
            "join",
            "-q",
            "--filter",
            &filter,
            "--left",
            left,
            "--left-key",
            "k",
            "--right",
            right,
            "--right-key",
            "k",
            "--type",
            join_type,
            "--output",
            &out,
        ];
        a.extend_from_slice(&extra);
        run_in(d, &a).ok();
        assert_eq!(
            read_rows(&d.join(&out)).0,
            sorted(want),
            "{left} {join_type} {right} {extra:?}"
        );
    }
}

fn train(d: &Path, input: &str) {
    let out = format!("{input}.bjf");
    run_in(
        d,
        &[
            "train", "-q", "--input", input, "--column", "k", "--output", &out,
        ],
    )
    .ok();
}

/// Issue 12, defect 1: `UInt64` keys of 2^63 and more wrapped to negative `i64` and matched
/// unrelated negative signed keys (extra rows in inner and right joins, missing rows in left
/// anti). DuckDB's rows for `BIGINT` against `UBIGINT`, both ways round.
#[test]
fn mixed_signedness_keys_join_by_value_like_duckdb() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    train(d, "signed");
    train(d, "unsigned");

    let inner_su = [
        "5|five|5|u5",
        "9223372036854775807|max|9223372036854775807|umaxi",
    ];
    check(d, "signed", "unsigned", "inner", &inner_su);
    check(
        d,
        "signed",
        "unsigned",
        "right",
        &[
            "5|five|5|u5",
            "9223372036854775807|max|9223372036854775807|umaxi",
            "NULL|NULL|18446744073709551614|umax1",
            "NULL|NULL|18446744073709551615|umax",
            "NULL|NULL|9223372036854775808|u2e63",
            "NULL|NULL|9|u9",
            "NULL|NULL|NULL|unull",
        ],
    );
    check(
        d,
        "signed",
        "unsigned",
        "left-anti",
        &[
            "-1|m1",
            "-2|m2",
            "-9223372036854775808|min",
            "7|seven",
            "NULL|null",
        ],
    );

    check(
        d,
        "unsigned",
        "signed",
        "inner",
        &[
            "5|u5|5|five",
            "9223372036854775807|umaxi|9223372036854775807|max",
        ],
    );
    check(
        d,
        "unsigned",
        "signed",
        "right",
        &[
            "5|u5|5|five",
            "9223372036854775807|umaxi|9223372036854775807|max",
            "NULL|NULL|-1|m1",
            "NULL|NULL|-2|m2",
            "NULL|NULL|-9223372036854775808|min",
            "NULL|NULL|7|seven",
            "NULL|NULL|NULL|null",
        ],
    );
    check(
        d,
        "unsigned",
        "signed",
        "left-anti",
        &[
            "18446744073709551614|umax1",
            "18446744073709551615|umax",
            "9223372036854775808|u2e63",
            "9|u9",
            "NULL|unull",
        ],
    );
    // Same-type joins still find the large values.
    check(
        d,
        "unsigned",
        "unsigned",
        "inner",
        &[
            "18446744073709551614|umax1|18446744073709551614|umax1",
            "18446744073709551615|umax|18446744073709551615|umax",
            "5|u5|5|u5",
            "9223372036854775807|umaxi|9223372036854775807|umaxi",
            "9223372036854775808|u2e63|9223372036854775808|u2e63",
            "9|u9|9|u9",
        ],
    );
}

/// Issue 12, defect 10: `probe` of 18446744073709551615 on a `UInt64` filter said "not an
/// integer". It is the key the filter holds, and it is not the signed filter's -1.
#[test]
fn probe_takes_u64_max_and_it_is_not_minus_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    train(d, "signed");
    train(d, "unsigned");
    let answers = |filter: &str, keys: &[&str]| {
        let mut a = vec!["probe", "--filter", filter];
        a.extend_from_slice(keys);
        run_in(d, &a).ok()
    };
    assert_eq!(
        answers(
            "unsigned.bjf",
            &["18446744073709551615", "9223372036854775808", "5", "9"]
        ),
        "maybe\nmaybe\nmaybe\nmaybe\n"
    );
    // The signed filter holds -1 and i64::MIN, never their unsigned twins.
    assert_eq!(
        answers(
            "signed.bjf",
            &[
                "-1",
                "-9223372036854775808",
                "18446744073709551615",
                "9223372036854775808"
            ]
        ),
        "maybe\nmaybe\nno\nno\n"
    );
    // A number no integer column holds is refused on one line, not called "not an integer".
    run_in(
        d,
        &["probe", "--filter", "unsigned.bjf", "18446744073709551616"],
    )
    .fails(2, &["18446744073709551616", "outside the range"]);
    run_in(d, &["probe", "--filter", "unsigned.bjf", "12x"]).fails(2, &["not an integer"]);
}

/// A Spark filter holds longs: a `UInt64` key of 2^63 and more cannot be put in one, and
/// training one from such a column is a one-line error naming the value, not a wrapped key.
#[test]
fn a_spark_filter_refuses_u64_keys_above_i64_max() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_sides(d);
    let err = run_in(
        d,
        &[
            "train", "-q", "--input", "unsigned", "--column", "k", "--layout", "spark-v1",
            "--format", "spark", "--output", "u.spark",
        ],
    )
    .fails(2, &["18446744073709551615", "Spark"]);
    assert!(!d.join("u.spark").exists(), "{err}");
    run_in(
        d,
        &[
            "train", "-q", "--input", "signed", "--column", "k", "--layout", "spark-v1",
            "--format", "spark", "--output", "s.spark",
        ],
    )
    .ok();
    run_in(
        d,
        &[
            "probe",
            "--filter",
            "s.spark",
            "--key-type",
            "integer",
            "18446744073709551615",
        ],
    )
    .fails(2, &["18446744073709551615", "Spark"]);
}
