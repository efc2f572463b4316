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
    // A number no 64-bit column holds is simply absent (it has its own key form).
    assert_eq!(
        answers(
            "unsigned.bjf",
            &["18446744073709551616", "-18446744073709551615"]
        ),
        "no\nno\n"
    );
    run_in(d, &["probe", "--filter", "unsigned.bjf", "12x"]).fails(2, &["not a number"]);
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
    // A right key the Spark filter cannot hold equals no left key (each of which it holds):
    // the prefilter drops it. The join failed with the train's error before (found by an
    // audit, 2026-11-26). The rows are those of the join without the filter.
    for (flag, out) in [
        (["--filter", "s.spark"], "with-filter"),
        (["--no-prefilter", "--no-sbbf"], "without"),
    ] {
        let mut args = vec![
            "join",
            "-q",
            "--left",
            "signed",
            "--left-key",
            "k",
            "--right",
            "unsigned",
            "--right-key",
            "k",
            "--workers",
            "1",
            "--batch-size",
            "2",
            "--output",
            out,
        ];
        args.extend(flag);
        run_in(d, &args).ok();
    }
    let (rows, _) = read_rows(&d.join("with-filter"));
    assert!(!rows.is_empty());
    assert_eq!(rows, read_rows(&d.join("without")).0);
    // A left key the filter cannot hold is not in it: an error naming the key, or with
    // --filter-mismatch ignore-filter the filter is set aside (it was the same error).
    let swapped = |out: &str, extra: &[&str]| {
        let mut a = vec![
            "join",
            "-q",
            "--left",
            "unsigned",
            "--left-key",
            "k",
            "--right",
            "signed",
            "--right-key",
            "k",
            "--workers",
            "1",
            "--output",
            out,
        ];
        a.extend_from_slice(extra);
        run_in(d, &a)
    };
    swapped("refused", &["--filter", "s.spark"]).fails(2, &["18446744073709551615", "Spark"]);
    let r = swapped(
        "set-aside",
        &["--filter", "s.spark", "--filter-mismatch", "ignore-filter"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("sets it aside"), "{}", r.stderr);
    swapped("no-filter", &[]).ok();
    assert_eq!(
        read_rows(&d.join("set-aside")).0,
        read_rows(&d.join("no-filter")).0
    );
}

fn decimals(values: &[Option<i128>], precision: u8, scale: i8) -> ArrayRef {
    Arc::new(
        Decimal128Array::from(values.to_vec())
            .with_precision_and_scale(precision, scale)
            .unwrap(),
    )
}

fn strings(v: &[&str]) -> ArrayRef {
    Arc::new(StringArray::from(v.to_vec()))
}

/// Issue 16: decimal keys by exact value, scales normalised as in SQL: `1.50` of
/// `Decimal(10,2)` meets `1.5` of `Decimal(5,1)`, `7.00` meets the integer 7, and a
/// `Decimal(38,0)` id meets a `UInt64` of the same value. DuckDB's rows.
#[test]
fn decimal_keys_meet_by_value_across_scales_and_integers_like_duckdb() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let p = |v: &[Option<i128>], prec, s| decimals(v, prec, s);
    write_parquet(
        &d.join("d2/a.parquet"),
        vec![
            (
                "k",
                p(
                    &[
                        Some(150),
                        Some(700),
                        Some(-200),
                        Some(10),
                        None,
                        Some(12345),
                    ],
                    10,
                    2,
                ),
            ),
            ("v", strings(&["a", "b", "c", "d", "e", "f"])),
        ],
        3,
    );
    write_parquet(
        &d.join("d1/a.parquet"),
        vec![
            (
                "k",
                p(
                    &[Some(15), Some(70), Some(1), Some(1234), Some(-20), None],
                    5,
                    1,
                ),
            ),
            ("w", strings(&["p", "q", "r", "s", "t", "u"])),
        ],
        6,
    );
    write_parquet(
        &d.join("ints/a.parquet"),
        vec![
            (
                "k",
                Arc::new(Int64Array::from(vec![7, -2, 1, 123])) as ArrayRef,
            ),
            ("w", strings(&["x", "y", "z", "zz"])),
        ],
        4,
    );
    write_parquet(
        &d.join("big/a.parquet"),
        vec![
            (
                "k",
                p(
                    &[
                        Some(10i128.pow(30)),
                        Some(u64::MAX as i128),
                        Some(-1),
                        Some(5),
                    ],
                    38,
                    0,
                ),
            ),
            ("v", strings(&["e30", "umax", "m1", "five"])),
        ],
        4,
    );
    write_parquet(
        &d.join("u/a.parquet"),
        vec![
            (
                "k",
                Arc::new(UInt64Array::from(vec![u64::MAX, 5, 1 << 63])) as ArrayRef,
            ),
            ("w", strings(&["U", "F", "H"])),
        ],
        3,
    );
    for side in ["d2", "ints", "big"] {
        train(d, side);
    }
    check(
        d,
        "d2",
        "d1",
        "inner",
        &[
            "-2.00|c|-2.0|t",
            "0.10|d|0.1|r",
            "1.50|a|1.5|p",
            "7.00|b|7.0|q",
        ],
    );
    check(d, "d2", "ints", "inner", &["-2.00|c|-2|y", "7.00|b|7|x"]);
    check(
        d,
        "d2",
        "ints",
        "left-anti",
        &["0.10|d", "1.50|a", "123.45|f", "NULL|e"],
    );
    check(
        d,
        "ints",
        "d2",
        "right",
        &[
            "-2|y|-2.00|c",
            "7|x|7.00|b",
            "NULL|NULL|0.10|d",
            "NULL|NULL|1.50|a",
            "NULL|NULL|123.45|f",
            "NULL|NULL|NULL|e",
        ],
    );
    check(
        d,
        "big",
        "u",
        "inner",
        &[
            "18446744073709551615|umax|18446744073709551615|U",
            "5|five|5|F",
        ],
    );
    // probe reads decimals by value too.
    let out = run_in(
        d,
        &[
            "probe",
            "--filter",
            "d2.bjf",
            "1.5",
            "1.500",
            "7",
            "0.1",
            "0.01",
            "1000000000000000000000000000000",
        ],
    )
    .ok();
    assert_eq!(out, "maybe\nmaybe\nmaybe\nmaybe\nno\nno\n");
    let out = run_in(
        d,
        &[
            "probe",
            "--filter",
            "big.bjf",
            "1000000000000000000000000000000",
        ],
    )
    .ok();
    assert_eq!(out, "maybe\n");
}

/// Issue 16: a float key is refused on one line naming the column and suggesting a cast.
#[test]
fn float_keys_are_refused_with_a_cast_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_parquet(
        &d.join("f/a.parquet"),
        vec![(
            "x",
            Arc::new(Float64Array::from(vec![1.0, -0.0])) as ArrayRef,
        )],
        2,
    );
    run_in(
        d,
        &[
            "train", "-q", "--input", "f", "--column", "x", "--output", "f.bjf",
        ],
    )
    .fails(2, &["\"x\"", "Float64", "cast"]);
    assert!(!d.join("f.bjf").exists());
}

/// Issue 16: `Boolean` keys are 0 and 1, as DuckDB compares `true = 1` (and `true = 2` is
/// false). (`Date64`, which Parquet stores as a `Date32`, is covered in `key::tests`.)
#[test]
fn boolean_keys_join_like_duckdb() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_parquet(
        &d.join("b/a.parquet"),
        vec![(
            "k",
            Arc::new(BooleanArray::from(vec![Some(true), Some(false), None])) as ArrayRef,
        )],
        3,
    );
    write_parquet(
        &d.join("i/a.parquet"),
        vec![("k", Arc::new(Int8Array::from(vec![1, 2, 0, 1])) as ArrayRef)],
        4,
    );
    train(d, "b");
    check(d, "b", "i", "inner", &["false|0", "true|1", "true|1"]);
    check(
        d,
        "b",
        "i",
        "right",
        &["NULL|2", "false|0", "true|1", "true|1"],
    );
}

/// A decimal right key column with Parquet Bloom filters (SBBFs): they hold the unscaled
/// integers (7.00 as 700), so probing them with the left keys by value would skip row groups
/// that match. The SBBF tier leaves decimal columns alone.
#[test]
fn decimal_right_keys_with_parquet_bloom_filters_are_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_parquet(
        &d.join("ints/a.parquet"),
        vec![("k", Arc::new(Int64Array::from(vec![7, 9])) as ArrayRef)],
        2,
    );
    let right = decimals(&[Some(700), Some(150), Some(900)], 10, 2);
    let schema = Arc::new(arrow::datatypes::Schema::new(vec![
        arrow::datatypes::Field::new("k", right.data_type().clone(), true),
    ]));
    let batch = arrow::array::RecordBatch::try_new(schema.clone(), vec![right]).unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(1))
        .set_bloom_filter_enabled(true)
        .build();
    std::fs::create_dir_all(d.join("dec")).unwrap();
    let file = std::fs::File::create(d.join("dec/a.parquet")).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, schema, Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    train(d, "ints");
    check(d, "ints", "dec", "inner", &["7|7.00", "9|9.00"]);
}
