//! `--where`, `--left-where` and `--right-where` through the binary: exact comparisons over
//! Parquet (expected counts as DuckDB gives them for the same file), long and deep
//! expressions evaluated on worker threads, and one-line errors.

use std::path::Path;
use std::sync::Arc;

use arrow::array::*;

use crate::util::{read_rows, run_in, write_parquet, write_parquet_with};

/// One file, row groups of 3 rows, a unique `id` and columns of many types.
fn typed_fixture(d: &Path) {
    let cols: Vec<(&str, ArrayRef)> = vec![
        (
            "id",
            Arc::new(Int64Array::from((0..8).collect::<Vec<i64>>())),
        ),
        (
            "i8",
            Arc::new(Int8Array::from(vec![
                Some(-128),
                Some(-1),
                Some(0),
                Some(1),
                Some(127),
                None,
                Some(5),
                Some(100),
            ])),
        ),
        (
            "u64",
            Arc::new(UInt64Array::from(vec![
                Some(0),
                Some(1),
                Some((1 << 63) - 1),
                Some(1 << 63),
                Some(u64::MAX),
                None,
                Some((1 << 63) + 1),
                Some(5),
            ])),
        ),
        (
            "i64",
            Arc::new(Int64Array::from(vec![
                Some(i64::MIN),
                Some(i64::MIN + 1),
                Some(-1),
                Some(0),
                Some(1),
                None,
                Some(i64::MAX),
                Some(9007199254740993),
            ])),
        ),
        (
            "big",
            Arc::new(
                Decimal128Array::from(vec![
                    Some(9007199254740993),
                    Some(9007199254740992),
                    Some(-1),
                    Some(0),
                    Some(10i128.pow(37)),
                    None,
                    Some(-(10i128.pow(37))),
                    Some(5),
                ])
                .with_precision_and_scale(38, 0)
                .unwrap(),
            ),
        ),
        (
            "dec",
            Arc::new(
                Decimal128Array::from(vec![
                    Some(150),
                    Some(-150),
                    Some(0),
                    Some(5),
                    Some(9999999999),
                    None,
                    Some(200),
                    Some(199),
                ])
                .with_precision_and_scale(10, 2)
                .unwrap(),
            ),
        ),
        (
            "f64",
            Arc::new(Float64Array::from(vec![
                Some(-0.0),
                Some(0.0),
                Some(f64::NAN),
                Some(f64::INFINITY),
                Some(f64::NEG_INFINITY),
                None,
                Some(0.1),
                Some(1e308),
            ])),
        ),
        (
            "s",
            Arc::new(StringArray::from(vec![
                Some("a%b"),
                Some("a\\b"),
                Some("é"),
                Some(""),
                Some("abc"),
                None,
                Some("A_C"),
                Some("ÉCOLE"),
            ])),
        ),
        (
            "bin",
            Arc::new(BinaryArray::from(vec![
                Some(&b"\x00a"[..]),
                Some(b""),
                Some(b"abc"),
                Some(b"\xff"),
                Some(b"ab"),
                None,
                Some(b"b"),
                Some(b"b\x00"),
            ])),
        ),
        (
            "b",
            Arc::new(BooleanArray::from(vec![
                Some(true),
                Some(false),
                None,
                Some(true),
                Some(false),
                None,
                Some(true),
                Some(false),
            ])),
        ),
        (
            "d32",
            Arc::new(Date32Array::from(vec![
                Some(0),
                Some(-1),
                Some(18262),
                Some(18263),
                None,
                Some(18262),
                Some(2932896),
                Some(-719162),
            ])),
        ),
        (
            "ts_us",
            Arc::new(TimestampMicrosecondArray::from(vec![
                Some(0),
                Some(-1),
                Some(1577836800000000),
                Some(1577836800000001),
                Some(1577923200000000),
                None,
                Some(1577880000000000),
                Some(-62135596800000000),
            ])),
        ),
        (
            "ts_tz",
            Arc::new(
                TimestampMicrosecondArray::from(vec![
                    Some(0),
                    Some(-1),
                    Some(1577836800000000),
                    Some(1577836800000001),
                    Some(1577923200000000),
                    None,
                    Some(1577880000000000),
                    Some(1),
                ])
                .with_timezone("UTC"),
            ),
        ),
    ];
    write_parquet(&d.join("t/t.parquet"), cols, 3);
}

/// `train --where <expr>` over the files in `t` (key `id`): its report.
fn train_where(d: &Path, expr: &str) -> serde_json::Value {
    run_in(
        d,
        &[
            "train",
            "-q",
            "--input",
            "t",
            "--column",
            "id",
            "--where",
            expr,
            "--output",
            "t.bjf",
            "--overwrite",
            "--report",
            "r.json",
        ],
    )
    .ok();
    report(d, "r.json")
}

/// A report's JSON.
fn report(d: &Path, name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(d.join(name)).unwrap()).unwrap()
}

/// `train --where <expr>` over the typed fixture; the rows that passed.
fn passing(d: &Path, expr: &str) -> u64 {
    train_where(d, expr)["rows_passing_where"].as_u64().unwrap()
}

#[test]
fn where_compares_exactly_over_parquet_as_duckdb_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    typed_fixture(d);
    // DuckDB 2.0 over the same file: SELECT count(*) FROM 't/t.parquet' WHERE <expr>.
    for (expr, want) in [
        ("u64 > -1", 7),
        ("u64 >= 9223372036854775808", 3),
        ("u64 = 18446744073709551615", 1),
        ("i64 = -9223372036854775808", 1),
        ("i64 = 9007199254740992", 0),
        ("i64 > 1.5", 2),
        ("i8 < 300", 7),
        ("i8 < u64", 6),
        ("big = 9007199254740993", 1),
        ("big = 9007199254740992", 1),
        ("dec > 1.499999999", 4),
        ("dec < i8", 4),
        ("f64 = -0.0", 2),
        ("f64 = f64", 7),
        ("s LIKE 'a\\%'", 1),
        ("s LIKE 'a!%b' ESCAPE '!'", 1),
        ("s NOT LIKE 'a$%b' ESCAPE '$'", 6),
        ("s ILIKE 'école'", 1),
        ("s LIKE '_'", 1),
        ("bin = '\\x00a'", 1),
        ("b", 3),
        ("d32 = ts_us", 3),
        ("ts_us = d32", 3),
        ("ts_tz = d32", 2),
        ("ts_us > TIMESTAMP '2020-01-01 00:00:00'", 3),
        ("d32 < TIMESTAMP '2020-01-01 12:00:00'", 5),
        ("i8 IN (1, 5, NULL)", 2),
        ("i8 NOT IN (1, NULL)", 0),
        ("i8 NOT BETWEEN 0 AND NULL", 2),
        ("NOT (i8 > 0 AND NULL)", 3),
    ] {
        assert_eq!(passing(d, expr), want, "{expr}");
    }
}

/// Found by scripts/fuzz.sh (where kind, seed 2): DuckDB gives an `IN` list's literals and
/// `BETWEEN`'s operands one common type, so one DOUBLE among them (`1e0`) makes every number a
/// DOUBLE, and 2^63 - 1 (as a DOUBLE, 2^63) then holds for the UInt64 values 2^63 and 2^63 + 1.
/// We compared each literal exactly and missed those rows.
#[test]
fn where_in_list_and_between_with_a_double_compare_as_double_as_duckdb_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    typed_fixture(d);
    // DuckDB 2.0 over the same u64 values: SELECT count(*) ... WHERE <expr>.
    for (expr, want) in [
        ("u64 IN (9223372036854775807, 1e0)", 4),
        ("u64 IN (9223372036854775807, 1)", 2),
        ("u64 NOT IN (9223372036854775807, 1e0)", 3),
        ("u64 BETWEEN 0e0 AND 9223372036854775807", 6),
        ("u64 BETWEEN 0 AND 9223372036854775807", 4),
        ("u64 NOT BETWEEN 9223372036854775807 AND 1e19", 4),
        // A long list (looked up in a sorted set when every literal is exact).
        (
            "u64 IN (9223372036854775807, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 1e0)",
            4,
        ),
        (
            "u64 IN (9223372036854775807, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 1)",
            2,
        ),
    ] {
        assert_eq!(passing(d, expr), want, "{expr}");
    }
}

/// `Reputation = 0 OR Reputation = 1 OR ... OR Reputation = n-1`.
fn or_chain(column: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{column} = {i}"))
        .collect::<Vec<_>>()
        .join(" OR ")
}

#[test]
fn where_of_2000_or_terms_runs_on_worker_threads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::join_cli::fixture(d);
    let train = |expr: &str, out: &str| {
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
                expr,
                "--workers",
                "2",
                "--output",
                out,
                "--report",
                &format!("{out}.json"),
            ],
        )
        .ok();
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(format!("{out}.json"))).unwrap())
                .unwrap();
        (
            r["rows_passing_where"].as_u64().unwrap(),
            r["keys_inserted"].as_u64().unwrap(),
        )
    };
    let long = or_chain("Reputation", 2000);
    let (rows, keys) = train(&long, "long.bjf");
    assert!(rows > 0 && keys > 0);
    assert_eq!(
        (rows, keys),
        train("Reputation >= 0 AND Reputation < 2000", "short.bjf")
    );
    let join = |left_where: &str, right_where: &str, out: &str| {
        run_in(
            d,
            &[
                "join",
                "-q",
                "--filter",
                "long.bjf",
                "--left",
                "users",
                "--left-key",
                "Id",
                "--left-where",
                left_where,
                "--right",
                "comments",
                "--right-key",
                "UserId",
                "--right-where",
                right_where,
                "--workers",
                "2",
                "--reducers",
                "2",
                "--output",
                out,
            ],
        )
        .ok();
        read_rows(&d.join(out)).0
    };
    let long_rows = join(&long, &or_chain("Id", 2000), "long");
    let short_rows = join("Reputation < 2000", "Id < 2000", "short");
    assert!(!short_rows.is_empty());
    assert_eq!(long_rows, short_rows);
}

#[test]
fn where_beyond_the_limits_fails_with_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::join_cli::fixture(d);
    let deep = format!("{}Id = 1{}", "(".repeat(10_001), ")".repeat(10_001));
    let long = or_chain("Id", 5001);
    let nots = format!("{}Id = 1", "NOT ".repeat(10_001));
    for expr in [&deep, &long, &nots] {
        run_in(
            d,
            &[
                "train", "--input", "users", "--column", "Id", "--where", expr, "--output", "f.bjf",
            ],
        )
        .fails(2, &["--where", "too long", "10000"]);
        run_in(
            d,
            &[
                "join",
                "--filter",
                "f.bjf",
                "--left",
                "users",
                "--left-key",
                "Id",
                "--right",
                "comments",
                "--right-key",
                "UserId",
                "--right-where",
                expr,
                "--output",
                "out",
            ],
        )
        .fails(2, &["--right-where", "too long"]);
    }
    assert!(!d.join("f.bjf").exists());
    assert!(!d.join("out").exists());
}

#[test]
fn where_errors_name_the_option_and_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::join_cli::fixture(d);
    crate::join_cli::train(d);
    let join = |left_where: &str, right_where: &str| {
        run_in(
            d,
            &[
                "join",
                "--filter",
                "users.bjf",
                "--left",
                "users",
                "--left-key",
                "Id",
                "--left-where",
                left_where,
                "--right",
                "comments",
                "--right-key",
                "UserId",
                "--right-where",
                right_where,
                "--output",
                "out",
            ],
        )
    };
    join("name > 5", "Id > 0").fails(2, &["--left-where", "column \"name\"", "cannot compare"]);
    join("Reputation > 1500", "nope = 1")
        .fails(2, &["--right-where", "\"nope\"", "no such column"]);
    join("reputation > 1500", "Id > 0").fails(
        2,
        &[
            "--left-where",
            "\"reputation\"",
            "did you mean \"Reputation\"?",
        ],
    );
    join("Reputation > 1500", "Id = 'x'").fails(2, &["--right-where", "column \"Id\""]);
    join("Reputation LIKE 'a%'", "Id > 0").fails(2, &["--left-where", "LIKE needs a string"]);
    join("Reputation > 1500", "UserId + Text > 0").fails(
        2,
        &[
            "--right-where",
            "column \"Text\" is a string",
            "arithmetic takes",
        ],
    );
    join("Reputation // 2 > 1500", "Id > 0 AND Text // 2 > 0")
        .fails(2, &["--right-where", "column \"Text\" is a string"]);
    join("name LIKE 'a!' ESCAPE '!'", "Id > 0")
        .fails(2, &["--left-where", "ends with its escape character"]);
    join("abs(name) > 1", "Id > 0").fails(
        2,
        &[
            "--left-where",
            "abs() takes a number, column \"name\" is a string",
        ],
    );
    join("Reputation > 1", "CAST(UserId AS BLOB) = '1'")
        .fails(2, &["--right-where", "unsupported: CAST to BLOB"]);
    join("Reputation > 1", "year(Text) = 2020").fails(
        2,
        &[
            "--right-where",
            "year() takes a date or a timestamp, column \"Text\"",
        ],
    );
    join("coalesce(name, Reputation) = 'x'", "Id > 0")
        .fails(2, &["--left-where", "coalesce() takes values of one kind"]);
    join("soundex(name) = 'x'", "Id > 0")
        .fails(2, &["--left-where", "unsupported: function soundex()"]);
    join(
        "Reputation > 1",
        "date_trunc('fortnight', CreationDate) IS NULL",
    )
    .fails(
        2,
        &[
            "--right-where",
            "unsupported: date_trunc() to fortnight (the units are millennium",
        ],
    );
    join("Reputation > 1", "date_trunc('month', Text) IS NULL").fails(
        2,
        &[
            "--right-where",
            "date_trunc() takes a date or a timestamp, column \"Text\" is a string",
        ],
    );
    join("substr(name, 1.5) = 'x'", "Id > 0").fails(
        2,
        &[
            "--left-where",
            "substr() takes an integer start, 1.5 is a number with a fraction",
        ],
    );
    join("Reputation > 1", "Text || INTERVAL '1 day' = 'x'").fails(
        2,
        &[
            "--right-where",
            "|| does not take INTERVAL '1 day' (an interval stands alone",
        ],
    );
    join("Reputation > 1", "trim(Text, 'a', 'b') = 'x'")
        .fails(2, &["--right-where", "trim() takes 1 or 2 arguments"]);
    join("CASE WHEN name THEN 1 END = 1", "Id > 0").fails(
        2,
        &[
            "--left-where",
            "CASE takes a condition after WHEN, column \"name\" is a string",
        ],
    );
    assert!(!d.join("out").exists());
}

/// Fuzzer finding F1: `--where` on a timestamp with a named time zone failed with exit 1.
#[test]
fn where_on_timestamps_with_named_time_zones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let day = 86_400_000_000_000i64;
    write_parquet(
        &d.join("tz/tz.parquet"),
        vec![
            ("k", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
            (
                "t",
                Arc::new(
                    TimestampNanosecondArray::from(vec![0, day, 2 * day]).with_timezone("UTC"),
                ),
            ),
            (
                "o",
                Arc::new(
                    TimestampMicrosecondArray::from(vec![0, day / 1000 - 1, day / 1000])
                        .with_timezone("Europe/Oslo"),
                ),
            ),
        ],
        2,
    );
    let count = |expr: &str| {
        run_in(
            d,
            &[
                "train",
                "-q",
                "-i",
                "tz",
                "-c",
                "k",
                "-o",
                "tz.bjf",
                "--overwrite",
                "--where",
                expr,
                "--report",
                "r.json",
            ],
        )
        .ok();
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
        r["rows_passing_where"].as_u64().unwrap()
    };
    // DuckDB (TimeZone 'UTC'): 2, 1, 1, 2.
    assert_eq!(count("t >= DATE '1970-01-02'"), 2);
    assert_eq!(count("o >= TIMESTAMP '1970-01-02 00:00:00'"), 1);
    assert_eq!(count("t = o"), 1);
    assert_eq!(count("o < '1970-01-02'"), 2);
}

/// Fuzzer finding F4: a condition starting with `-` was taken for an option by the argument
/// parser.
#[test]
fn where_may_start_with_a_minus_sign() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::join_cli::fixture(d);
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
            "-1 < Reputation",
            "--output",
            "u.bjf",
        ],
    )
    .ok();
    let rows = |left_where: &str, right_where: &str, out: &str| {
        run_in(
            d,
            &[
                "join",
                "-q",
                "--filter",
                "u.bjf",
                "--left",
                "users",
                "--left-key",
                "Id",
                "--left-where",
                left_where,
                "--right",
                "comments",
                "--right-key",
                "UserId",
                "--right-where",
                right_where,
                "--output",
                out,
            ],
        )
        .ok();
        read_rows(&d.join(out)).0
    };
    let minus = rows("-1 < Reputation", "-5 <= Id", "minus");
    assert!(!minus.is_empty());
    assert_eq!(minus, rows("Reputation > -1", "Id >= -5", "plain"));
}

/// Fuzzer findings (seed 20261125, where cases 903 and 2973): a string compared with a
/// timestamp column is read to microseconds (nanoseconds for a nanosecond column) and compared
/// exactly, as DuckDB's Parquet reader types the column (`TIMESTAMP`, zone or not). The fuzzer's
/// DuckDB had read the rows through Arrow, where `TIMESTAMP_MS` rounds the string to
/// milliseconds; for a zoned column the rounding was wrong even there. Expected counts from
/// DuckDB 2.0 reading the same values from Parquet.
#[test]
fn a_string_against_a_timestamp_column_is_read_to_microseconds_as_duckdb_reads_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 1969-11-01 01:00:00, 2020-01-01 00:00:00 and 9999-12-31 23:59:59, seconds since the epoch.
    let (old, new, big) = (-5_266_800i64, 1_577_836_800i64, 253_402_300_799i64);
    write_parquet(
        &d.join("ts/ts.parquet"),
        vec![
            (
                "k",
                Arc::new(Int64Array::from(vec![1, 2, 3, 4])) as ArrayRef,
            ),
            (
                "ms",
                Arc::new(TimestampMillisecondArray::from(vec![
                    old * 1000 + 500,
                    old * 1000 + 501,
                    new * 1000 + 500,
                    new * 1000 + 501,
                ])),
            ),
            (
                "s",
                Arc::new(TimestampSecondArray::from(vec![old, old + 1, new, new + 1])),
            ),
            (
                "mstz",
                Arc::new(
                    TimestampMillisecondArray::from(vec![
                        big * 1000 + 499,
                        big * 1000 + 500,
                        big * 1000 + 500,
                        big * 1000 + 501,
                    ])
                    .with_timezone("UTC"),
                ),
            ),
        ],
        2,
    );
    let count = |expr: &str| {
        run_in(
            d,
            &[
                "train",
                "-q",
                "-i",
                "ts",
                "-c",
                "k",
                "-o",
                "ts.bjf",
                "--overwrite",
                "--where",
                expr,
                "--report",
                "r.json",
            ],
        )
        .ok();
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
        r["rows_passing_where"].as_u64().unwrap()
    };
    assert_eq!(count("ms = '1969-11-01 01:00:00.500001'"), 0);
    assert_eq!(count("ms = '1969-11-01 01:00:00.5006'"), 0);
    assert_eq!(count("ms = '2020-01-01 00:00:00.5005'"), 0);
    assert_eq!(count("ms >= '2020-01-01 00:00:00.5005'"), 1);
    assert_eq!(count("ms = '2020-01-01 00:00:00.501'"), 1);
    assert_eq!(count("ms < '1969-11-01 01:00:00.5009999'"), 1);
    assert_eq!(count("s = '1969-11-01 01:00:00.9'"), 0);
    assert_eq!(count("s > '2020-01-01 00:00:00.9'"), 1);
    assert_eq!(count("s < '1969-11-01 01:00:00.6'"), 1);
    assert_eq!(count("s >= '2020-01-01 00:00:00.0000001'"), 2);
    assert_eq!(count("mstz >= '9999-12-31 23:59:59.500001'"), 1);
    assert_eq!(count("mstz = '9999-12-31 23:59:59.5000009'"), 2);
    assert_eq!(
        count("mstz IN ('9999-12-31 23:59:59.5000009', '9999-12-31 23:59:59.501')"),
        3
    );
    assert_eq!(
        count("ms IN ('2020-01-01 00:00:00.5005', '1969-11-01 01:00:00.5010001')"),
        1
    );
}

#[test]
fn where_skips_the_row_groups_its_statistics_rule_out() {
    // 1,000 rows in row groups of 100, sorted by `id`; `s` sorts as `id` does.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ids: Vec<i64> = (0..1000).collect();
    let s: Vec<String> = ids.iter().map(|i| format!("k{i:04}")).collect();
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int64Array::from(ids.clone()))),
        ("s", Arc::new(StringArray::from(s))),
    ];
    write_parquet(&d.join("t/t.parquet"), cols, 100);
    // train: the rows that pass (as DuckDB counts them) and the row groups never read.
    for (expr, pass, skipped) in [
        ("id >= 250 AND id < 420", 170, 7),
        ("s BETWEEN 'k0100' AND 'k0199'", 100, 9),
        ("id IN (5, 999, 2000) OR s = 'k0450'", 3, 7),
        ("id < 0 OR s > 'k9'", 0, 10),
        ("id % 2 = 0", 500, 0),
        ("id > 950 OR lower(s) = 'k0001'", 50, 0),
    ] {
        let r = train_where(d, expr);
        assert_eq!(r["rows_passing_where"], pass, "{expr}");
        assert_eq!(r["row_groups_skipped_by_where"], skipped, "{expr}");
        assert_eq!(r["rows_skipped_by_where"], skipped * 100, "{expr}");
        assert_eq!(r["rows_read"], 1000 - skipped * 100, "{expr}");
    }
    // join (on `s`, whose strings the key statistics tier does not judge) and filter: the
    // right side's --where skips 9 row groups of 10.
    let r = run_in(
        d,
        &[
            "join",
            "-q",
            "--left",
            "t",
            "--right",
            "t",
            "--left-key",
            "s",
            "--right-key",
            "s",
            "--right-where",
            "id >= 900",
            "--left-where",
            "id < 950",
            "--output",
            "j",
            "--report",
            "j.json",
        ],
    );
    r.ok();
    let j = report(d, "j.json");
    assert_eq!(j["rows_out"], 50);
    assert_eq!(j["right"]["row_groups_skipped_by_where"], 9);
    assert_eq!(j["right"]["rows_skipped_by_where"], 900);
    assert_eq!(j["left"]["row_groups_skipped_by_where"], 0);
    assert_eq!(read_rows(&d.join("j")).0.len(), 50);
    run_in(
        d,
        &[
            "train", "-q", "--input", "t", "--column", "s", "--output", "s.bjf",
        ],
    )
    .ok();
    let r = run_in(
        d,
        &[
            "filter", "-q", "--filter", "s.bjf", "--input", "t", "--key", "s", "--where",
            "id < 100", "--output", "f", "--report", "f.json",
        ],
    );
    r.ok();
    let f = report(d, "f.json");
    assert_eq!(f["input"]["row_groups_skipped_by_where"], 9, "{f}");
    assert_eq!(read_rows(&d.join("f")).0.len(), 100);
}

/// `train --where expr` over `d/t` (1,000 rows in row groups of 100): `pass` rows pass, and
/// `skipped` row groups are ruled out by their statistics and never read.
fn assert_rows_and_skips(d: &Path, expr: &str, pass: u64, skipped: u64) {
    let r = train_where(d, expr);
    assert_eq!(r["rows_passing_where"], pass, "{expr}");
    assert_eq!(r["row_groups_skipped_by_where"], skipped, "{expr}");
    assert_eq!(r["rows_read"], 1000 - skipped * 100, "{expr}");
}

#[test]
fn where_skips_row_groups_by_floats_booleans_and_negations() {
    // 1,000 rows in row groups of 100, sorted by `id`: `x` is `id / 10` but NaN at ids 350
    // and 450 (NaN is above every number, and writers leave it out of min and max; this
    // writer records NaN counts), `b` is `id >= 500`.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ids: Vec<i64> = (0..1000).collect();
    let x = ids.iter().map(|i| match i {
        350 | 450 => f64::NAN,
        i => *i as f64 / 10.0,
    });
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int64Array::from(ids.clone()))),
        ("x", Arc::new(Float64Array::from_iter_values(x))),
        (
            "b",
            Arc::new(BooleanArray::from_iter(ids.iter().map(|i| Some(*i >= 500)))),
        ),
    ];
    write_parquet(&d.join("t/t.parquet"), cols, 100);
    // The rows that pass (as DuckDB counts them), the row groups never read.
    for (expr, pass, skipped) in [
        ("x < 12.5", 125, 8),
        // The NaNs pass: their row groups are read.
        ("x > 95.5", 46, 7),
        ("x NOT BETWEEN 10 AND 99.8", 103, 6),
        ("NOT x <= 95.5", 46, 7),
        ("NOT b AND x >= 40", 101, 8),
        ("b", 500, 5),
        ("NOT (b OR id < 200)", 300, 7),
        ("x IS NOT DISTINCT FROM 0.5", 1, 9),
        ("id NOT IN (1, 2) AND id < 100", 98, 9),
    ] {
        assert_rows_and_skips(d, expr, pass, skipped);
    }
}

#[test]
fn where_skips_row_groups_by_times_of_day() {
    // 1,000 rows in row groups of 100, sorted by `id`: `t` is `id` seconds after midnight (in
    // microseconds), `t_ns` one nanosecond later.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ids: Vec<i64> = (0..1000).collect();
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int64Array::from(ids.clone()))),
        (
            "t",
            Arc::new(Time64MicrosecondArray::from_iter_values(
                ids.iter().map(|i| i * 1_000_000),
            )),
        ),
        (
            "t_ns",
            Arc::new(Time64NanosecondArray::from_iter_values(
                ids.iter().map(|i| i * 1_000_000_000 + 1),
            )),
        ),
    ];
    write_parquet(&d.join("t/t.parquet"), cols, 100);
    // The rows that pass (as DuckDB counts them), the row groups never read.
    for (expr, pass, skipped) in [
        ("t < '00:02:00'", 120, 8),
        ("t >= TIME '00:15:00'", 100, 9),
        ("t BETWEEN '00:05:00' AND '00:05:59.5'", 60, 9),
        ("NOT t < '00:16:00'", 40, 9),
        ("t IN ('00:00:01', TIME '00:16:39', '23:00')", 2, 8),
        // The string is read to nanoseconds for a nanosecond column: only 16:39 + 1 ns passes.
        ("t_ns > '00:16:39'", 1, 9),
        ("t_ns <= '00:00:00.000000001'", 1, 9),
        // Two columns are not judged by their statistics.
        ("t_ns < t", 0, 0),
    ] {
        assert_rows_and_skips(d, expr, pass, skipped);
    }
}

#[test]
fn where_skips_the_pages_its_page_index_rules_out() {
    // 1,000 rows sorted by `id` in row groups of 500 and pages of 50, with a page index
    // (`p/t/`) and without one (`q/t/`); `s` sorts as `id` does, `v` does not.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ids: Vec<i64> = (0..1000).collect();
    let cols = || -> Vec<(&str, ArrayRef)> {
        vec![
            ("id", Arc::new(Int64Array::from(ids.clone()))),
            (
                "s",
                Arc::new(StringArray::from_iter_values(
                    ids.iter().map(|i| format!("k{i:04}")),
                )),
            ),
            (
                "v",
                Arc::new(Int64Array::from_iter_values(ids.iter().map(|i| i % 7))),
            ),
        ]
    };
    let props = |index: bool| {
        use parquet::file::properties::{EnabledStatistics, WriterProperties};
        WriterProperties::builder()
            .set_max_row_group_row_count(Some(500))
            .set_data_page_row_count_limit(50)
            .set_write_batch_size(50)
            .set_statistics_enabled(match index {
                true => EnabledStatistics::Page,
                false => EnabledStatistics::Chunk,
            })
            .set_offset_index_disabled(!index)
            .build()
    };
    write_parquet_with(&d.join("p/t/t.parquet"), cols(), props(true));
    write_parquet_with(&d.join("q/t/t.parquet"), cols(), props(false));
    // `train_where` in `p/` or `q/`: its report and the filter's bytes.
    let train = |dir: &str, expr: &str| {
        let d = d.join(dir);
        (
            train_where(&d, expr),
            std::fs::read(d.join("t.bjf")).unwrap(),
        )
    };
    // The rows that pass (as DuckDB counts them), the rows read, the row groups skipped.
    for (expr, pass, read, groups) in [
        ("id >= 120 AND id < 130", 10, 50, 1),
        ("s BETWEEN 'k0480' AND 'k0520'", 41, 100, 0),
        ("id < 10 OR id >= 990", 20, 100, 0),
        ("id = 260 AND v = 1", 1, 50, 1),
        ("id IN (3, 777) AND v IS NOT NULL", 2, 100, 0),
        ("v = 3", 143, 1000, 0),
        ("id > 2000 OR s < 'a'", 0, 0, 2),
    ] {
        let (r, filter) = train("p", expr);
        assert_eq!(r["rows_passing_where"], pass, "{expr}");
        assert_eq!(r["rows_read"], read, "{expr}");
        assert_eq!(r["rows_skipped_by_where"], 1000 - read, "{expr}");
        assert_eq!(r["row_groups_skipped_by_where"], groups, "{expr}");
        assert_eq!(
            r["rows_skipped_by_page_index"],
            1000 - read - groups * 500,
            "{expr}"
        );
        // The same filter, byte for byte, as from the file without a page index, where
        // only the row groups' statistics skip.
        let (plain, plain_filter) = train("q", expr);
        assert_eq!(plain["rows_passing_where"], pass, "{expr}");
        assert_eq!(filter, plain_filter, "{expr}");
    }
    // join and filter: the same rows from either file, the page index's reading fewer.
    let join = |dir: &str, workers: &str| {
        let out = format!("{dir}/j{workers}");
        let input = format!("{dir}/t");
        run_in(
            d,
            &[
                "join",
                "-q",
                "--left",
                &input,
                "--right",
                &input,
                "--left-key",
                "s",
                "--right-key",
                "s",
                "--left-where",
                "id < 600",
                "--right-where",
                "id BETWEEN 120 AND 130 OR id >= 580 AND id < 600",
                "--workers",
                workers,
                "--output",
                &out,
                "--report",
                "j.json",
            ],
        )
        .ok();
        (report(d, "j.json"), read_rows(&d.join(&out)).0)
    };
    let (j, rows) = join("p", "2");
    assert_eq!(j["rows_out"], 31, "{j}");
    assert_eq!(j["right"]["rows_read"], 100, "{j}");
    assert_eq!(j["right"]["rows_skipped_by_where"], 900, "{j}");
    assert_eq!(j["right"]["rows_skipped_by_page_index"], 900, "{j}");
    assert_eq!(j["left"]["rows_read"], 600, "{j}");
    assert_eq!(rows.len(), 31);
    assert_eq!(join("p", "1").1, rows);
    for workers in ["1", "2"] {
        assert_eq!(join("q", workers).1, rows);
    }
    run_in(
        d,
        &[
            "train", "-q", "--input", "q/t", "--column", "s", "--output", "s.bjf",
        ],
    )
    .ok();
    let filter = |dir: &str| {
        let out = format!("{dir}/f");
        let input = format!("{dir}/t");
        run_in(
            d,
            &[
                "filter",
                "-q",
                "--filter",
                "s.bjf",
                "--input",
                &input,
                "--key",
                "s",
                "--where",
                "id >= 990 OR v = 8",
                "--output",
                &out,
                "--report",
                "f.json",
            ],
        )
        .ok();
        (report(d, "f.json"), read_rows(&d.join(&out)).0)
    };
    let (f, rows) = filter("p");
    assert_eq!(f["input"]["rows_read"], 50, "{f}");
    assert_eq!(f["input"]["row_groups_skipped_by_where"], 1, "{f}");
    assert_eq!(rows.len(), 10);
    assert_eq!(filter("q").1, rows);
}
