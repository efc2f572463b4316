//! Key types of issue 16 end to end (train, join with both strategies, every join type, with
//! and without the prefilter, probe, inspect): timestamps of every unit and zone, and the
//! string and binary types that are not `Utf8`/`Binary` (`LargeUtf8`, `Utf8View`,
//! `LargeBinary`, `BinaryView`, `FixedSizeBinary`). Expected rows are what DuckDB gives for
//! the same tables (`TIMESTAMP_MS = TIMESTAMP_NS` compares instants; BLOBs compare bytes).

use std::path::Path;
use std::sync::Arc;

use arrow::array::*;

use crate::util::{files_below, read_rows, run_in, run_stdin, write_parquet};

fn sorted(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

fn train(d: &Path, input: &str, extra: &[&str]) -> String {
    let out = format!("{input}.bjf");
    let mut a = vec![
        "train", "-q", "--input", input, "--column", "k", "--output", &out,
    ];
    a.extend_from_slice(extra);
    run_in(d, &a).ok();
    out
}

/// Join `left` and `right` on `k` with `filter`, every strategy, with and without the
/// prefilter; the rows of `--select` must be `want`. Returns the report of the first run.
fn check(
    d: &Path,
    filter: &str,
    (left, right): (&str, &str),
    join_type: &str,
    select: &str,
    want: &[&str],
) -> serde_json::Value {
    let mut first = None;
    for (i, extra) in [
        vec![],
        vec!["--no-prefilter"],
        vec!["--strategy", "reduce-side", "--reducers", "3"],
        vec!["--strategy", "reduce-side", "--no-prefilter"],
    ]
    .into_iter()
    .enumerate()
    {
        let out = format!("o-{left}-{right}-{join_type}-{i}");
        let report = format!("{out}.json");
        let mut a = vec![
            "join",
            "-q",
            "--filter",
            filter,
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
            "--select",
            select,
            "--output",
            &out,
            "--report",
            &report,
        ];
        a.extend_from_slice(&extra);
        run_in(d, &a).ok();
        assert_eq!(
            read_rows(&d.join(&out)).0,
            sorted(want),
            "{left} {join_type} {right} {extra:?}"
        );
        if first.is_none() {
            first = Some(
                serde_json::from_str(&std::fs::read_to_string(d.join(&report)).unwrap()).unwrap(),
            );
        }
    }
    first.unwrap()
}

/// The joins of `check` of every type over `lt` x `right` on `k`, selecting `v` (left) and
/// `w` (right): `inner` are the matched pairs, `left_only` and `right_only` the values of
/// the unmatched rows; the semi and anti joins' rows follow from them. Returns the inner
/// join's report.
fn check_every_type(
    d: &Path,
    filter: &str,
    right: &str,
    inner: &[&str],
    left_only: &[&str],
    right_only: &[&str],
) -> serde_json::Value {
    let sides = ("lt", right);
    let r = check(d, filter, sides, "inner", "v,w", inner);
    let side = |i: usize| -> Vec<&str> {
        let mut v: Vec<&str> = inner.iter().map(|p| p.split('|').nth(i).unwrap()).collect();
        v.sort();
        v.dedup();
        v
    };
    // The pairs, and the unmatched rows of the sides a join type keeps, padded with NULL.
    let rows = |left: bool, right: bool| -> Vec<String> {
        let l = left_only
            .iter()
            .filter(|_| left)
            .map(|x| format!("{x}|NULL"));
        let r = right_only
            .iter()
            .filter(|_| right)
            .map(|x| format!("NULL|{x}"));
        inner
            .iter()
            .map(|p| p.to_string())
            .chain(l)
            .chain(r)
            .collect()
    };
    for (join_type, keeps) in [
        ("left", (true, false)),
        ("right", (false, true)),
        ("full", (true, true)),
    ] {
        let want = rows(keeps.0, keeps.1);
        let want: Vec<&str> = want.iter().map(String::as_str).collect();
        check(d, filter, sides, join_type, "v,w", &want);
    }
    check(d, filter, sides, "left-semi", "v", &side(0));
    check(d, filter, sides, "left-anti", "v", left_only);
    check(d, filter, sides, "right-semi", "w", &side(1));
    check(d, filter, sides, "right-anti", "w", right_only);
    r
}

/// `join` of `left` and `right` on `k` into `out`, with `filter`, or without the prefilter.
fn join_on_k(
    d: &Path,
    filter: Option<&str>,
    left: &str,
    right: &str,
    out: &str,
) -> crate::util::Run {
    let mut a = vec!["join", "-q"];
    match filter {
        Some(f) => a.extend(["--filter", f]),
        None => a.push("--no-prefilter"),
    }
    a.extend([
        "--left",
        left,
        "--left-key",
        "k",
        "--right",
        right,
        "--right-key",
        "k",
        "--output",
        out,
    ]);
    run_in(d, &a)
}

const S: i64 = 1_000_000_000;

/// A left side in milliseconds, right sides in nanoseconds and seconds; `zone` for both.
fn write_timestamps(d: &Path, zone: Option<&str>, right_zone: Option<&str>) {
    // The zone only labels the values (UTC instants); no conversion.
    let tz = |a: ArrayRef, z: Option<&str>| -> ArrayRef {
        use arrow::datatypes::{
            DataType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
            TimestampNanosecondType, TimestampSecondType,
        };
        let Some(z) = z else { return a };
        match a.data_type() {
            DataType::Timestamp(TimeUnit::Second, _) => Arc::new(
                a.as_primitive::<TimestampSecondType>()
                    .clone()
                    .with_timezone(z),
            ),
            DataType::Timestamp(TimeUnit::Millisecond, _) => Arc::new(
                a.as_primitive::<TimestampMillisecondType>()
                    .clone()
                    .with_timezone(z),
            ),
            DataType::Timestamp(TimeUnit::Microsecond, _) => Arc::new(
                a.as_primitive::<TimestampMicrosecondType>()
                    .clone()
                    .with_timezone(z),
            ),
            _ => Arc::new(
                a.as_primitive::<TimestampNanosecondType>()
                    .clone()
                    .with_timezone(z),
            ),
        }
    };
    write_parquet(
        &d.join("lt/l.parquet"),
        vec![
            (
                "k",
                tz(
                    Arc::new(TimestampMillisecondArray::from(vec![
                        Some(1_000),
                        Some(1_500),
                        Some(-1_000),
                        None,
                        Some(2_000),
                    ])),
                    zone,
                ),
            ),
            (
                "v",
                Arc::new(StringArray::from(vec!["a1", "a1.5", "a-1", "anull", "a2"])),
            ),
        ],
        10,
    );
    // Row groups of two rows: [1 s, 1.5 s], [1.5 s + 1 ns, -1 s], [null, 3 s], [1 s]; the
    // third is outside the left keys' range (-1 s to 2 s), its statistics skip it.
    write_parquet(
        &d.join("rt/r.parquet"),
        vec![
            (
                "k",
                tz(
                    Arc::new(TimestampNanosecondArray::from(vec![
                        Some(S),
                        Some(S + S / 2),
                        Some(S + S / 2 + 1),
                        Some(-S),
                        None,
                        Some(3 * S),
                        Some(S),
                    ])),
                    right_zone,
                ),
            ),
            (
                "w",
                Arc::new(StringArray::from(vec![
                    "b1", "b1.5", "b1.5+1ns", "b-1", "bnull", "b3", "b1'",
                ])),
            ),
        ],
        2,
    );
    write_parquet(
        &d.join("rs/r.parquet"),
        vec![
            (
                "k",
                tz(
                    Arc::new(TimestampSecondArray::from(vec![1, 2, -1, 4])),
                    right_zone,
                ),
            ),
            (
                "w",
                Arc::new(StringArray::from(vec!["c1", "c2", "c-1", "c4"])),
            ),
        ],
        10,
    );
}

/// Issue 16: timestamp keys of different units meet by instant (`ts[ms]` 1500 is `ts[ns]`
/// 1500000000), in every join type and strategy; pruning by min/max compares instants.
#[test]
fn timestamp_keys_of_every_unit_meet_by_instant() {
    for (zone, right_zone) in [(None, None), (Some("UTC"), Some("+02:00"))] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write_timestamps(d, zone, right_zone);
        let f = train(d, "lt", &[]);
        let inner = ["a1|b1", "a1|b1'", "a1.5|b1.5", "a-1|b-1"];
        let r = check_every_type(
            d,
            &f,
            "rt",
            &inner,
            &["a2", "anull"],
            &["b1.5+1ns", "bnull", "b3"],
        );
        assert_eq!(r["right"]["row_groups_skipped"].as_u64(), Some(1), "{r}");
        assert_eq!(r["right"]["rows_skipped_by_stats"].as_u64(), Some(2), "{r}");
        // Seconds against milliseconds; 4 s is outside the left range.
        check(
            d,
            &f,
            ("lt", "rs"),
            "inner",
            "v,w",
            &["a1|c1", "a2|c2", "a-1|c-1"],
        );

        // One side whose files differ in unit (seconds, nanoseconds): one key type.
        let z = |a: ArrayRef| -> ArrayRef {
            let data = a.to_data();
            let t = arrow::datatypes::DataType::Timestamp(
                match a.data_type() {
                    arrow::datatypes::DataType::Timestamp(u, _) => *u,
                    _ => unreachable!(),
                },
                right_zone.map(Into::into),
            );
            make_array(data.into_builder().data_type(t).build().unwrap())
        };
        write_parquet(
            &d.join("rmix/s.parquet"),
            vec![
                ("k", z(Arc::new(TimestampSecondArray::from(vec![1, 2])))),
                ("w", Arc::new(StringArray::from(vec!["s1", "s2"]))),
            ],
            10,
        );
        write_parquet(
            &d.join("rmix/t.parquet"),
            vec![
                (
                    "k",
                    z(Arc::new(TimestampNanosecondArray::from(vec![
                        S + S / 2,
                        3 * S,
                    ]))),
                ),
                ("w", Arc::new(StringArray::from(vec!["n1.5", "n3"]))),
            ],
            10,
        );
        check(
            d,
            &f,
            ("lt", "rmix"),
            "inner",
            "v,w",
            &["a1|s1", "a2|s2", "a1.5|n1.5"],
        );

        // probe reads timestamps as text (UTC for zoned keys); inspect shows the family.
        let family = if zone.is_some() {
            "timestamptz"
        } else {
            "timestamp"
        };
        let out = run_stdin(
            d,
            &["probe", "--filter", &f],
            "1970-01-01 00:00:01\n1970-01-01T00:00:01.5\n1969-12-31 23:59:59.000000000\n1970-01-01 00:00:02\n",
        )
        .ok();
        assert_eq!(out, "maybe\nmaybe\nmaybe\nmaybe\n");
        run_stdin(d, &["probe", "--filter", &f], "1500\n")
            .fails(2, &["stdin line 1", "\"1500\" is not a timestamp", family]);
        let json = run_in(d, &["inspect", &f, "--json"]).ok();
        let j: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(j["key_family"], family, "{j}");
    }
}

/// Issue 16: a timestamp with a time zone never meets one without (an instant is no
/// wall-clock time): a one-line error naming both key columns, nothing written. Keys never
/// meet integers either, and a filter of one kind refuses the other.
#[test]
fn timestamp_zone_mismatch_is_an_error_naming_both_columns() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_timestamps(d, None, Some("UTC"));
    let f = train(d, "lt", &[]);
    let join =
        |filter: Option<&str>, left: &str, right: &str| join_on_k(d, filter, left, right, "out");
    join(Some(&f), "lt", "rt").fails(
        2,
        &[
            "time zone mismatch",
            "--left-key k is Timestamp(ms), without a time zone",
            "--right-key k is Timestamp(ns, \"UTC\"), with a time zone",
        ],
    );
    join(None, "lt", "rs").fails(2, &["time zone mismatch"]);
    assert!(!d.join("out").exists());
    // An integer key never meets a timestamp key.
    write_parquet(
        &d.join("ints/i.parquet"),
        vec![("k", Arc::new(Int64Array::from(vec![1_000, S])) as ArrayRef)],
        10,
    );
    join(None, "lt", "ints").fails(2, &["key family mismatch", "timestamp", "integer"]);
    // Files of one side in seconds and nanoseconds share the nanosecond type; a value in
    // seconds beyond it (after 2262) that reaches the join is a one-line error naming the
    // file, nothing written (with the prefilter, its row is dropped before: no such key).
    write_parquet(
        &d.join("big/a.parquet"),
        vec![(
            "k",
            Arc::new(TimestampNanosecondArray::from(vec![S])) as ArrayRef,
        )],
        10,
    );
    write_parquet(
        &d.join("big/b.parquet"),
        vec![(
            "k",
            Arc::new(TimestampSecondArray::from(vec![1, i64::MAX / 2])) as ArrayRef,
        )],
        10,
    );
    join(None, "lt", "big").fails(2, &["b.parquet", "does not fit type Timestamp(ns)"]);
    assert!(crate::util::files_below(&d.join("out")).is_empty());
    let fz = train(d, "rt", &[]);
    join(Some(&fz), "rt", "lt").fails(2, &["time zone mismatch"]);
    run_stdin(
        d,
        &["probe", "--filter", &f, "--key-type", "integer"],
        "1\n",
    )
    .fails(2, &["--key-type", "timestamp keys"]);
}

/// Issue 16: timestamps in a Spark filter are Spark's longs of microseconds; a key with
/// digits below a microsecond has no such long and is refused with its value.
#[test]
fn timestamp_keys_in_spark_filters_are_microseconds() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_timestamps(d, None, None);
    let f = train(
        d,
        "lt",
        &["--layout", "spark-v2", "--expected-items", "100"],
    );
    check(
        d,
        &f,
        ("lt", "rs"),
        "inner",
        "v,w",
        &["a1|c1", "a2|c2", "a-1|c-1"],
    );
    run_in(
        d,
        &[
            "train",
            "-q",
            "--input",
            "rt",
            "--column",
            "k",
            "--layout",
            "spark-v2",
            "--expected-items",
            "100",
            "--output",
            "x.bjf",
        ],
    )
    .fails(
        2,
        &["timestamp key 1970-01-01 00:00:01.500000001 has digits below a microsecond"],
    );
    // Spark's own format keeps no family: probe says which.
    run_in(
        d,
        &[
            "train",
            "-q",
            "--input",
            "lt",
            "--column",
            "k",
            "--layout",
            "spark-v2",
            "--expected-items",
            "100",
            "--format",
            "spark",
            "--output",
            "s.spark",
        ],
    )
    .ok();
    let out = run_stdin(
        d,
        &["probe", "--filter", "s.spark", "--key-type", "timestamp"],
        "1970-01-01 00:00:01.5\n",
    )
    .ok();
    assert_eq!(out, "maybe\n");
}

/// Issue 16: `LargeUtf8`, `Utf8View`, `LargeBinary`, `BinaryView` and `FixedSizeBinary`
/// keys train, join (against each other and `Utf8`/`Binary`) and probe like `Utf8`/`Binary`.
#[test]
fn large_view_and_fixed_size_binary_keys_work_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let strs = vec![Some("ab"), Some("cd"), None, Some("zoë"), Some("ef")];
    let bytes: Vec<Option<&[u8]>> = strs.iter().map(|s| s.map(str::as_bytes)).collect();
    let v = |p: &str| -> ArrayRef {
        Arc::new(StringArray::from(
            ["1", "2", "3", "4", "5"]
                .iter()
                .map(|i| format!("{p}{i}"))
                .collect::<Vec<_>>(),
        ))
    };
    let sides: Vec<(&str, ArrayRef)> = vec![
        ("large_utf8", Arc::new(LargeStringArray::from(strs.clone()))),
        ("utf8_view", Arc::new(StringViewArray::from(strs.clone()))),
        (
            "utf8",
            Arc::new(StringArray::from(vec![
                Some("cd"),
                Some("zoë"),
                Some("xy"),
                None,
                Some("ab"),
            ])),
        ),
        (
            "large_binary",
            Arc::new(LargeBinaryArray::from(bytes.clone())),
        ),
        (
            "binary_view",
            Arc::new(BinaryViewArray::from(bytes.clone())),
        ),
        (
            "binary",
            Arc::new(BinaryArray::from(vec![
                Some(&b"cd"[..]),
                Some("zoë".as_bytes()),
                Some(b"xy"),
                None,
                Some(b"ab"),
            ])),
        ),
    ];
    for (name, k) in sides {
        write_parquet(
            &d.join(format!("{name}/p.parquet")),
            vec![("k", k), ("v", v(&name[..2]))],
            2,
        );
    }
    // FixedSizeBinary(2): "ab", "cd", null, "xy", "ef".
    let fixed = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        vec![Some(b"ab"), Some(b"cd"), None, Some(b"xy"), Some(b"ef")].into_iter(),
        2,
    )
    .unwrap();
    write_parquet(
        &d.join("fixed/p.parquet"),
        vec![("k", Arc::new(fixed) as ArrayRef), ("v", v("fi"))],
        2,
    );
    let sel = "left.v,right.v";
    for (left, right, inner) in [
        ("large_utf8", "utf8", vec!["la1|ut5", "la2|ut1", "la4|ut2"]),
        (
            "utf8_view",
            "large_utf8",
            vec!["ut1|la1", "ut2|la2", "ut4|la4", "ut5|la5"],
        ),
        ("utf8", "utf8_view", vec!["ut1|ut2", "ut2|ut4", "ut5|ut1"]),
        (
            "large_binary",
            "binary",
            vec!["la1|bi5", "la2|bi1", "la4|bi2"],
        ),
        (
            "binary_view",
            "fixed",
            vec!["bi1|fi1", "bi2|fi2", "bi5|fi5"],
        ),
        (
            "fixed",
            "large_binary",
            vec!["fi1|la1", "fi2|la2", "fi5|la5"],
        ),
        (
            "fixed",
            "binary_view",
            vec!["fi1|bi1", "fi2|bi2", "fi5|bi5"],
        ),
        ("binary", "fixed", vec!["bi5|fi1", "bi1|fi2", "bi3|fi4"]),
    ] {
        let f = train(d, left, &["--overwrite"]);
        check(d, &f, (left, right), "inner", sel, &inner);
        let semi: Vec<&str> = inner.iter().map(|r| r.split('|').next().unwrap()).collect();
        let mut semi = sorted(&semi);
        semi.dedup();
        let semi: Vec<&str> = semi.iter().map(String::as_str).collect();
        check(d, &f, (left, right), "left-semi", "v", &semi);
    }
    // probe: bytes keys are the line's bytes, whatever the column's string or binary type.
    for name in [
        "large_utf8",
        "utf8_view",
        "large_binary",
        "binary_view",
        "fixed",
    ] {
        let f = format!("{name}.bjf");
        let out = run_stdin(d, &["probe", "--filter", &f], "ab\ncd\n").ok();
        assert_eq!(out, "maybe\nmaybe\n", "{name}");
    }
}

/// `train --spark-keys xxhash64` inserts Spark's `xxhash64(key)` as a long: its filter is
/// the plain Spark filter of the column of those longs (what Spark's
/// `df.select(xxhash64(k)).stat.bloomFilter` builds), byte for byte, for strings, INT,
/// DECIMAL(10,2) and TIMESTAMP keys (XXH64, seed 42, of the type's bytes).
#[test]
fn xxhash64_keys_are_sparks_xxhash64_longs() {
    use xxhash_rust::xxh64::xxh64;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let x = |b: &[u8]| xxh64(b, 42) as i64;
    let cases: Vec<(&str, ArrayRef, Vec<i64>)> = vec![
        (
            "s",
            Arc::new(LargeStringArray::from(vec!["abc", "", "zoë"])),
            vec![x(b"abc"), x(b""), x("zoë".as_bytes())],
        ),
        (
            "i",
            Arc::new(Int32Array::from(vec![7, -1, i32::MAX])),
            vec![
                x(&7i32.to_le_bytes()),
                x(&(-1i32).to_le_bytes()),
                x(&i32::MAX.to_le_bytes()),
            ],
        ),
        (
            "d",
            Arc::new(
                Decimal128Array::from(vec![150, -700, 1])
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
            ),
            vec![
                x(&150i64.to_le_bytes()),
                x(&(-700i64).to_le_bytes()),
                x(&1i64.to_le_bytes()),
            ],
        ),
        (
            "t",
            Arc::new(TimestampMillisecondArray::from(vec![1_500, -1]).with_timezone("UTC")),
            vec![
                x(&1_500_000i64.to_le_bytes()),
                x(&(-1_000i64).to_le_bytes()),
            ],
        ),
    ];
    for (name, keys, longs) in cases {
        write_parquet(&d.join(format!("{name}/k.parquet")), vec![("k", keys)], 10);
        write_parquet(
            &d.join(format!("{name}_longs/k.parquet")),
            vec![("k", Arc::new(Int64Array::from(longs)) as ArrayRef)],
            10,
        );
        let spark = |input: &str, out: &str, extra: &[&str]| {
            let mut a = vec![
                "train",
                "-q",
                "--input",
                input,
                "--column",
                "k",
                "--layout",
                "spark-v2",
                "--expected-items",
                "50",
                "--format",
                "spark",
                "--output",
                out,
            ];
            a.extend_from_slice(extra);
            run_in(d, &a).ok();
            std::fs::read(d.join(out)).unwrap()
        };
        let ours = spark(
            name,
            &format!("{name}.spark"),
            &["--spark-keys", "xxhash64"],
        );
        let theirs = spark(
            &format!("{name}_longs"),
            &format!("{name}_longs.spark"),
            &[],
        );
        assert_eq!(ours, theirs, "{name}");
    }
}

/// `--spark-keys xxhash64` end to end on the sample data (the README's example): a string key
/// trained into a native filter (which records the mode and the Spark type) and into Spark's
/// format (which does not: `join --spark-keys xxhash64` says so), the same rows as without a
/// filter; probe and inspect; and the errors.
#[test]
fn xxhash64_keys_train_join_probe_and_inspect() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let root = crate::util::root();
    let users = root.join("data/sample/users");
    let comments = root.join("data/sample/comments");
    let (users, comments) = (users.to_str().unwrap(), comments.to_str().unwrap());
    let train = |out: &str, extra: &[&str]| {
        let mut a = vec![
            "train",
            "-q",
            "-i",
            users,
            "-c",
            "DisplayName",
            "--layout",
            "spark-v2",
            "--spark-keys",
            "xxhash64",
            "--expected-items",
            "5000",
            "-o",
            out,
        ];
        a.extend_from_slice(extra);
        run_in(d, &a)
    };
    train("names.bjf", &[]).ok();
    train("names.spark", &["--format", "spark"]).ok();
    let join = |out: &str, extra: &[&str]| {
        let mut a = vec![
            "join",
            "-q",
            "--left",
            users,
            "--left-key",
            "DisplayName",
            "--right",
            comments,
            "--right-key",
            "UserDisplayName",
            "--select",
            "left.Id,right.Id,DisplayName",
            "--output",
            out,
            "--report",
        ];
        let report = format!("{out}.json");
        a.push(&report);
        a.extend_from_slice(extra);
        let run = run_in(d, &a);
        (run, report)
    };
    let (r, _) = join("plain", &["--no-prefilter"]);
    r.ok();
    let want = read_rows(&d.join("plain")).0;
    assert!(want.len() > 1000);
    for (out, extra) in [
        ("native", vec!["--filter", "names.bjf"]),
        (
            "native-explicit",
            vec!["--filter", "names.bjf", "--spark-keys", "xxhash64"],
        ),
        (
            "spark",
            vec!["--filter", "names.spark", "--spark-keys", "xxhash64"],
        ),
        (
            "spark-reduce",
            vec![
                "--filter",
                "names.spark",
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
            serde_json::from_str(&std::fs::read_to_string(d.join(report)).unwrap()).unwrap();
        assert!(
            j["right"]["rows_dropped_by_filter"].as_u64().unwrap() > 1000,
            "{out}: {j}"
        );
    }
    // Spark's format does not record the mode: read as plain keys, it does not cover the left
    // side (the join's check names a missing key).
    join("unsaid", &["--filter", "names.spark"])
        .0
        .fails(2, &["does not cover the left side"]);
    join(
        "plain-native",
        &["--filter", "names.bjf", "--spark-keys", "plain"],
    )
    .0
    .ok();
    // probe: a native filter needs nothing more; Spark's format needs the mode and the type.
    let names: std::collections::BTreeSet<&str> =
        want.iter().map(|r| r.rsplit('|').next().unwrap()).collect();
    let n = names.len();
    let text: String = names.iter().map(|s| format!("{s}\n")).collect();
    std::fs::write(d.join("names.txt"), text).unwrap();
    let maybes = |out: String| out.lines().filter(|l| *l == "maybe").count();
    let p = |args: &[&str]| {
        let mut a = args.to_vec();
        a.extend(["--keys", "names.txt"]);
        run_in(d, &a).ok()
    };
    assert_eq!(maybes(p(&["probe", "--filter", "names.bjf"])), n);
    assert_eq!(
        maybes(p(&[
            "probe",
            "--filter",
            "names.spark",
            "--key-type",
            "bytes",
            "--spark-keys",
            "xxhash64"
        ])),
        n
    );
    assert!(
        maybes(p(&[
            "probe",
            "--filter",
            "names.spark",
            "--key-type",
            "bytes"
        ])) < n / 2
    );
    let info = run_in(d, &["inspect", "names.bjf", "--json"]).ok();
    let j: serde_json::Value = serde_json::from_str(&info).unwrap();
    assert_eq!(
        j["spark_keys"],
        serde_json::json!({"xxhash64": "string"}),
        "{j}"
    );
    let table = run_in(d, &["inspect", "names.bjf"]).ok();
    assert!(table.contains("xxhash64"), "{table}");
    // Errors: a native layout, a plain filter asked for xxhash64.
    run_in(
        d,
        &[
            "train",
            "-q",
            "-i",
            users,
            "-c",
            "DisplayName",
            "--spark-keys",
            "xxhash64",
            "-o",
            "x.bjf",
        ],
    )
    .fails(2, &["--spark-keys", "spark-v1 or spark-v2"]);
    run_in(
        d,
        &[
            "train",
            "-q",
            "-i",
            users,
            "-c",
            "DisplayName",
            "--layout",
            "spark-v2",
            "--expected-items",
            "5000",
            "-o",
            "plain.bjf",
        ],
    )
    .ok();
    join(
        "mismatch",
        &["--filter", "plain.bjf", "--spark-keys", "xxhash64"],
    )
    .0
    .fails(2, &["--spark-keys", "records plain keys"]);
    run_stdin(
        d,
        &["probe", "--filter", "plain.bjf", "--spark-keys", "xxhash64"],
        "a\n",
    )
    .fails(2, &["--spark-keys", "records plain keys"]);
}

/// Timestamp filters have the same bytes for any workers, batch size and split size, and
/// whatever the unit the same instants are stored in.
#[test]
fn timestamp_filters_are_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let us: Vec<Option<i64>> = (0..5000i64)
        .map(|i| (i % 13 != 0).then_some((i * 7919 % 4001 - 2000) * 1_000_000))
        .collect();
    let ns: Vec<Option<i64>> = us.iter().map(|v| v.map(|v| v * 1000)).collect();
    write_parquet(
        &d.join("us/a.parquet"),
        vec![(
            "k",
            Arc::new(TimestampMicrosecondArray::from(us)) as ArrayRef,
        )],
        700,
    );
    write_parquet(
        &d.join("ns/a.parquet"),
        vec![(
            "k",
            Arc::new(TimestampNanosecondArray::from(ns)) as ArrayRef,
        )],
        300,
    );
    let mut files = Vec::new();
    for (i, (input, extra)) in [
        ("us", vec!["--workers", "1"]),
        (
            "us",
            vec!["--workers", "3", "--batch-size", "7", "--split-rows", "100"],
        ),
        ("ns", vec!["--workers", "2", "--batch-size", "1000"]),
    ]
    .into_iter()
    .enumerate()
    {
        let out = format!("f{i}.bjf");
        let mut a = vec![
            "train",
            "-q",
            "--input",
            input,
            "--column",
            "k",
            "--expected-items",
            "5000",
            "--output",
            &out,
        ];
        a.extend_from_slice(&extra);
        run_in(d, &a).ok();
        let bytes = std::fs::read(d.join(&out)).unwrap();
        // The metadata names the input and the key type: compare the header's params and
        // the bits (m / 8 bytes before the checksum).
        let m = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
        let bits = &bytes[bytes.len() - 8 - m / 8..bytes.len() - 8];
        files.push((bytes[8..40].to_vec(), bits.to_vec()));
    }
    assert_eq!(files[0], files[1]);
    assert_eq!(files[0], files[2]);
}

/// Found by a differential audit (2026-11-26): dictionary columns with 8-bit indices (what
/// pandas categoricals become) failed every join, exit 1, "Dictionary key bigger than the
/// key type", once the left side's row groups held more than 127 values together (the build
/// side concatenates them); on the right side the join exited 0 with parts whose row groups
/// held more than 127 values under an `int8` dictionary type, which pyarrow and Polars cannot
/// read. Such columns are now read with 32-bit indices.
#[test]
fn dictionaries_of_narrow_indices_join_past_127_values() {
    use arrow::datatypes::{DataType, Field, Int8Type, Schema};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let dict = DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8));
    // Three row groups of 100 values each, each group's dictionary its own.
    let write = |path: &str, key: &str, other: &str| {
        let schema = Arc::new(Schema::new(vec![
            Field::new(key, dict.clone(), true),
            Field::new(other, DataType::Int64, true),
        ]));
        std::fs::create_dir_all(d.join(path).parent().unwrap()).unwrap();
        let f = std::fs::File::create(d.join(path)).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(f, schema.clone(), None).unwrap();
        for g in 0..3i64 {
            let vals: Vec<String> = (0..100).map(|i| format!("v{}", g * 100 + i)).collect();
            let keys: DictionaryArray<Int8Type> = vals.iter().map(|s| s.as_str()).collect();
            let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(g * 100..g * 100 + 100));
            let b = RecordBatch::try_new(schema.clone(), vec![Arc::new(keys), ids]).unwrap();
            w.write(&b).unwrap();
            w.flush().unwrap();
        }
        w.close().unwrap();
    };
    write("l/l.parquet", "k", "lid");
    write("r/r.parquet", "rk", "rid");
    for (jt, strategy) in [
        ("inner", "replicated"),
        ("inner", "reduce-side"),
        ("full", "replicated"),
        ("right", "reduce-side"),
    ] {
        let out = format!("out-{jt}-{strategy}");
        run_in(
            d,
            &[
                "join",
                "-q",
                "--left",
                "l",
                "--left-key",
                "k",
                "--right",
                "r",
                "--right-key",
                "rk",
                "--type",
                jt,
                "--strategy",
                strategy,
                "--workers",
                "1",
                "--output",
                &out,
            ],
        )
        .ok();
        let (rows, names) = read_rows(&d.join(&out));
        assert_eq!(names, ["k", "lid", "rk", "rid"]);
        // Every key is on both sides: 300 pairs, each id with itself.
        assert_eq!(rows.len(), 300, "{jt} {strategy}");
        for r in &rows {
            let f: Vec<&str> = r.split('|').collect();
            assert_eq!((f[0], f[1]), (f[2], f[3]), "{r}");
            assert_eq!(f[0], format!("v{}", f[1]), "{r}");
        }
        // The parts say 32-bit indices, which every reader takes for 300 values.
        for part in crate::util::files_below(&d.join(&out))
            .iter()
            .filter(|p| p.ends_with(".parquet"))
        {
            let f = std::fs::File::open(d.join(&out).join(part)).unwrap();
            let b =
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
            for c in ["k", "rk"] {
                assert_eq!(
                    b.schema().field_with_name(c).unwrap().data_type(),
                    &DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
                    "{part} {c}"
                );
            }
        }
    }
}

/// Found by a differential audit (2026-11-26): a date key met an integer, decimal or boolean
/// key by its day number (`DATE '2022-01-08'` with `19000`, `true` with `1970-01-02`), exit
/// 0, where SQL refuses the comparison (DuckDB: "Unimplemented type for cast (INTEGER ->
/// DATE)"; our own `--where` too). Now refused in one line, exit 2, nothing written; dates of
/// either width still meet each other.
#[test]
fn a_date_key_never_meets_a_number_key() {
    use arrow::datatypes::i256;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let days = [1i32, 19000, 19001];
    write_parquet(
        &d.join("l/l.parquet"),
        vec![(
            "day",
            Arc::new(Date32Array::from(days.to_vec())) as ArrayRef,
        )],
        10,
    );
    let rights: [(&str, ArrayRef); 5] = [
        ("int", Arc::new(Int32Array::from(days.to_vec()))),
        (
            "dec",
            Arc::new(
                Decimal128Array::from(vec![100i128, 1_900_000])
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
            ),
        ),
        (
            "dec256",
            Arc::new(
                Decimal256Array::from(vec![i256::from(19000)])
                    .with_precision_and_scale(40, 0)
                    .unwrap(),
            ),
        ),
        ("bool", Arc::new(BooleanArray::from(vec![true, false]))),
        (
            "date64",
            Arc::new(Date64Array::from(vec![86_400_000i64, 19000 * 86_400_000])),
        ),
    ];
    for (name, col) in rights {
        let dir = format!("r-{name}");
        write_parquet(&d.join(&dir).join("r.parquet"), vec![("k", col)], 10);
        let out = format!("out-{name}");
        for (left, right, lk, rk) in [
            ("l", dir.as_str(), "day", "k"),
            (dir.as_str(), "l", "k", "day"),
        ] {
            let r = run_in(
                d,
                &[
                    "join",
                    "-q",
                    "--left",
                    left,
                    "--left-key",
                    lk,
                    "--right",
                    right,
                    "--right-key",
                    rk,
                    "--workers",
                    "1",
                    "--output",
                    &out,
                    "--overwrite",
                ],
            );
            if name == "date64" {
                r.ok();
                assert_eq!(read_rows(&d.join(&out)).0.len(), 2, "{name}");
            } else {
                r.fails(
                    2,
                    &["type mismatch", "a date never equals a number", lk, rk],
                );
                assert!(!d.join(&out).exists(), "{name}");
            }
        }
    }
}

/// Found by a differential audit (2026-11-26): the files of one side could not hold a key
/// (or any column) as decimals of different scales, as an integer and a decimal, as `Date32`
/// and `Date64`, or as `Int64` and `UInt64` ("no type holds both"), although the same pairs
/// meet across sides; that is what a widened decimal or a rewritten date column leaves
/// behind. Each pair now reads into a type that holds both files' values, `--where` runs on
/// it, and the keys meet by value.
#[test]
fn the_files_of_one_side_may_hold_a_column_in_types_that_meet_by_value() {
    use arrow::datatypes::DataType;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let dec = |v: Vec<i128>, p: u8, s: i8| -> ArrayRef {
        Arc::new(
            Decimal128Array::from(v)
                .with_precision_and_scale(p, s)
                .unwrap(),
        )
    };
    let big = u64::MAX - 1;
    // (name, files of the left side, right keys, --left-where, the key type the output has)
    let cases: Vec<(&str, Vec<ArrayRef>, ArrayRef, &str, DataType)> = vec![
        (
            "decimals",
            vec![
                dec(vec![150, 200], 10, 2),          // 1.50 2.00
                dec(vec![25_000, 30_001], 12, 4),    // 2.5000 3.0001
                Arc::new(Int32Array::from(vec![7])), // 7
            ],
            dec(vec![15, 25, 70, 20], 5, 1), // 1.5 2.5 7.0 2.0
            "k > 1.9",
            DataType::Decimal128(14, 4),
        ),
        (
            "signedness",
            vec![
                Arc::new(Int64Array::from(vec![-1, 5])),
                Arc::new(UInt64Array::from(vec![big, 6])),
            ],
            Arc::new(UInt64Array::from(vec![big, 5, 6, u64::MAX])),
            "k > 0",
            DataType::Decimal128(20, 0),
        ),
        (
            "dates",
            vec![
                Arc::new(Date32Array::from(vec![1, 19000])),
                Arc::new(Date64Array::from(vec![2 * 86_400_000])),
            ],
            Arc::new(Date32Array::from(vec![1, 2, 19000, 5])),
            "k >= DATE '1970-01-02'",
            DataType::Date64,
        ),
        (
            // 19 digits before the point and 20 after: only a 256-bit decimal holds both,
            // which the job says on stderr (some readers cannot take the type).
            "wide",
            vec![
                Arc::new(Int64Array::from(vec![-1, 5])),
                dec(vec![150_000_000_000_000_000_000], 38, 20), // 1.5
            ],
            Arc::new(Int64Array::from(vec![5, 7, -1])),
            "k > 0",
            DataType::Decimal256(39, 20),
        ),
    ];
    for (name, files, right, where_, want_type) in cases {
        for (i, f) in files.into_iter().enumerate() {
            let path = d.join(format!("{name}/l/{i}.parquet"));
            write_parquet(&path, vec![("k", f)], 10);
        }
        write_parquet(
            &d.join(format!("{name}/r/r.parquet")),
            vec![("rk", right)],
            10,
        );
        let (l, r, out) = (
            format!("{name}/l"),
            format!("{name}/r"),
            format!("{name}/out"),
        );
        let run = run_in(
            d,
            &[
                "join",
                "-q",
                "--left",
                &l,
                "--left-key",
                "k",
                "--left-where",
                where_,
                "--right",
                &r,
                "--right-key",
                "rk",
                "--workers",
                "2",
                "--output",
                &out,
            ],
        );
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        let warned = run.stderr.contains(
            "bloomjoin: warning: the left files' column k holds Int64 in one file and Decimal128(38, 20) in ",
        ) && run.stderr.contains("as Decimal256(39, 20), exact");
        assert_eq!(warned, name == "wide", "{name}: {}", run.stderr);
        let (rows, _) = read_rows(&d.join(&out));
        let want: Vec<&str> = match name {
            "decimals" => vec!["2.0000|2.0", "2.5000|2.5", "7.0000|7.0"],
            "wide" => vec!["5.00000000000000000000|5"],
            "signedness" => vec!["18446744073709551614|18446744073709551614", "5|5", "6|6"],
            // Date64 shows its milliseconds as a time of day.
            _ => vec![
                "1970-01-02T00:00:00|1970-01-02",
                "1970-01-03T00:00:00|1970-01-03",
                "2022-01-08T00:00:00|2022-01-08",
            ],
        };
        assert_eq!(rows, want, "{name}");
        let part = crate::util::files_below(&d.join(&out))
            .into_iter()
            .find(|p| p.ends_with(".parquet"))
            .unwrap();
        let f = std::fs::File::open(d.join(&out).join(part)).unwrap();
        let b = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
        assert_eq!(b.schema().field(0).data_type(), &want_type, "{name}");
    }
}

/// Times of day (`TIME`, `TIME_NS`) are keys: every unit meets by value in nanoseconds since
/// midnight, as DuckDB compares `TIME` with `TIME_NS` (`01:00:00` meets `01:00:00.000000000`,
/// not `01:00:00.000000001`), in every join type and strategy; the key range prunes row
/// groups; the files of one side may differ in unit; `probe` reads `HH:MM:SS[.f]`; a time
/// never meets a timestamp or an integer, and Spark's format, which has no TIME, refuses one.
#[test]
fn time_keys_of_every_unit_meet_by_value() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let strs = |v: &[&str]| -> ArrayRef { Arc::new(StringArray::from(v.to_vec())) };
    write_parquet(
        &d.join("lt/l.parquet"),
        vec![
            (
                "k",
                Arc::new(Time32MillisecondArray::from(vec![
                    Some(1_000),
                    Some(1_500),
                    Some(10_000),
                    None,
                    Some(2_000),
                ])) as ArrayRef,
            ),
            ("v", strs(&["a1", "a1.5", "a10", "anull", "a2"])),
        ],
        10,
    );
    // Row groups of two rows: [1 s, 1.5 s], [1.5 s + 1 ns, 10 s], [null, 20 s], [1 s]; the
    // third is outside the left keys' range (1 s to 10 s), its statistics skip it.
    write_parquet(
        &d.join("rt/r.parquet"),
        vec![
            (
                "k",
                Arc::new(Time64NanosecondArray::from(vec![
                    Some(S),
                    Some(S + S / 2),
                    Some(S + S / 2 + 1),
                    Some(10 * S),
                    None,
                    Some(20 * S),
                    Some(S),
                ])) as ArrayRef,
            ),
            (
                "w",
                strs(&["b1", "b1.5", "b1.5+1ns", "b10", "bnull", "b20", "b1'"]),
            ),
        ],
        2,
    );
    let f = train(d, "lt", &[]);
    let inner = ["a1|b1", "a1|b1'", "a1.5|b1.5", "a10|b10"];
    let r = check_every_type(
        d,
        &f,
        "rt",
        &inner,
        &["a2", "anull"],
        &["b1.5+1ns", "bnull", "b20"],
    );
    assert_eq!(r["right"]["row_groups_skipped"].as_u64(), Some(1), "{r}");
    assert_eq!(r["right"]["rows_skipped_by_stats"].as_u64(), Some(2), "{r}");

    // One side's files in seconds and microseconds: one key type (the finer unit).
    write_parquet(
        &d.join("rmix/s.parquet"),
        vec![
            (
                "k",
                Arc::new(Time32SecondArray::from(vec![1, 2])) as ArrayRef,
            ),
            ("w", strs(&["s1", "s2"])),
        ],
        10,
    );
    write_parquet(
        &d.join("rmix/u.parquet"),
        vec![
            (
                "k",
                Arc::new(Time64MicrosecondArray::from(vec![1_500_000, 3_000_000])) as ArrayRef,
            ),
            ("w", strs(&["u1.5", "u3"])),
        ],
        10,
    );
    check(
        d,
        &f,
        ("lt", "rmix"),
        "inner",
        "v,w",
        &["a1|s1", "a2|s2", "a1.5|u1.5"],
    );

    // probe reads times of day as text; inspect shows the family.
    let out = run_stdin(
        d,
        &["probe", "--filter", &f],
        "00:00:01\n00:00:01.5\n00:00:10.000000000\n00:00:02\n",
    )
    .ok();
    assert_eq!(out, "maybe\nmaybe\nmaybe\nmaybe\n");
    run_stdin(d, &["probe", "--filter", &f], "1000\n").fails(
        2,
        &["stdin line 1", "\"1000\" is not a time of day", "time keys"],
    );
    let json = run_in(d, &["inspect", &f, "--json"]).ok();
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(j["key_family"], "time", "{j}");

    // A time never meets a timestamp or an integer (DuckDB: no cast from TIME to
    // TIMESTAMP); nothing is written.
    write_parquet(
        &d.join("ts/t.parquet"),
        vec![(
            "k",
            Arc::new(TimestampNanosecondArray::from(vec![S])) as ArrayRef,
        )],
        10,
    );
    write_parquet(
        &d.join("ints/i.parquet"),
        vec![("k", Arc::new(Int64Array::from(vec![1_000, S])) as ArrayRef)],
        10,
    );
    for (right, other) in [("ts", "timestamp"), ("ints", "integer")] {
        join_on_k(d, Some(&f), "lt", right, "out")
            .fails(2, &["key family mismatch", "time keys", other]);
        assert!(!d.join("out").exists());
    }
    // Spark's format has no TIME: train, and a join that builds its filter for Spark's
    // layout, refuse with one line and write nothing.
    run_in(
        d,
        &[
            "train", "-q", "--input", "lt", "--column", "k", "--layout", "spark-v1", "--output",
            "s.bjf",
        ],
    )
    .fails(2, &["Spark's BloomFilter has no TIME type"]);
    assert!(!d.join("s.bjf").exists());

    // A composite key with a time component: (id, time) meets across units.
    write_parquet(
        &d.join("cl/l.parquet"),
        vec![
            ("id", Arc::new(Int32Array::from(vec![1, 1, 2])) as ArrayRef),
            (
                "t",
                Arc::new(Time64MicrosecondArray::from(vec![
                    1_000_000, 2_000_000, 1_000_000,
                ])) as ArrayRef,
            ),
            ("v", strs(&["l1a", "l1b", "l2a"])),
        ],
        10,
    );
    write_parquet(
        &d.join("cr/r.parquet"),
        vec![
            (
                "id",
                Arc::new(Int64Array::from(vec![1, 2, 2, 1])) as ArrayRef,
            ),
            (
                "t",
                Arc::new(Time32MillisecondArray::from(vec![
                    2_000, 1_000, 2_000, 1_001,
                ])) as ArrayRef,
            ),
            ("w", strs(&["r1b", "r2a", "r2b", "r1x"])),
        ],
        10,
    );
    run_in(
        d,
        &[
            "train", "-q", "--input", "cl", "--column", "id,t", "--output", "c.bjf",
        ],
    )
    .ok();
    for extra in [vec![], vec!["--strategy", "reduce-side"]] {
        let mut a = vec![
            "join",
            "-q",
            "--filter",
            "c.bjf",
            "--left",
            "cl",
            "--left-key",
            "id,t",
            "--right",
            "cr",
            "--right-key",
            "id,t",
            "--select",
            "v,w",
            "--output",
            "cout",
            "--overwrite",
        ];
        a.extend_from_slice(&extra);
        run_in(d, &a).ok();
        assert_eq!(
            read_rows(&d.join("cout")).0,
            sorted(&["l1b|r1b", "l2a|r2a"]),
            "{extra:?}"
        );
    }
    let out = run_stdin(
        d,
        &["probe", "--filter", "c.bjf"],
        "1\t00:00:02\n2\t00:00:01.000\n",
    )
    .ok();
    assert_eq!(out, "maybe\nmaybe\n");
}

/// The crate's low-level Parquet writer of a new file at `path` of the schema `message`
/// (Parquet's schema text), for logical types the Arrow writer does not write.
fn low_level_writer(
    path: &Path,
    message: &str,
) -> parquet::file::writer::SerializedFileWriter<std::fs::File> {
    let schema = Arc::new(parquet::schema::parser::parse_message_type(message).unwrap());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = std::fs::File::create(path).unwrap();
    parquet::file::writer::SerializedFileWriter::new(file, schema, Default::default()).unwrap()
}

/// Write the next column of row group `rg`: `values` of Parquet type `T`, with definition
/// levels `def` (for nullable columns), and close it.
fn write_column<T: parquet::data_type::DataType>(
    rg: &mut parquet::file::writer::SerializedRowGroupWriter<'_, std::fs::File>,
    values: &[T::T],
    def: Option<&[i16]>,
) {
    let mut col = rg.next_column().unwrap().unwrap();
    col.typed::<T>().write_batch(values, def, None).unwrap();
    col.close().unwrap();
}

/// Four distinct UUIDs (as 128-bit integers) for the UUID tests.
fn four_uuids() -> Vec<u128> {
    (1..=4)
        .map(|i| i * 0x0123_4567_89ab_cdef_0011_2233_4455_6677)
        .collect()
}

/// A UUID's canonical text: lower-case hex in groups of 8-4-4-4-12.
fn uuid_text(u: u128) -> String {
    let h = format!("{u:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

/// A Parquet file of one `UUID` column `k` (16 bytes each, Parquet's UUID logical type, as
/// DuckDB and pyarrow write it) and an `Int64` column `id`, through the crate's low-level
/// writer (the Arrow writer does not mark UUIDs).
fn write_uuids(path: &Path, uuids: &[u128]) {
    use parquet::data_type::{FixedLenByteArray, FixedLenByteArrayType, Int64Type};
    let mut w = low_level_writer(
        path,
        "message m { required fixed_len_byte_array(16) k (UUID); required int64 id; }",
    );
    let mut rg = w.next_row_group().unwrap();
    let values: Vec<FixedLenByteArray> = uuids
        .iter()
        .map(|u| FixedLenByteArray::from(u.to_be_bytes().to_vec()))
        .collect();
    write_column::<FixedLenByteArrayType>(&mut rg, &values, None);
    let ids: Vec<i64> = (0..uuids.len() as i64).collect();
    write_column::<Int64Type>(&mut rg, &ids, None);
    rg.close().unwrap();
    w.close().unwrap();
}

/// A UUID key is its 16 bytes and a string key its text: they are both bytes keys, but never
/// meet, where DuckDB casts the text to a UUID and joins them. Every way they could be
/// brought together fails with one line and writes nothing: a join of the two (either side),
/// a filter trained on one probing the other (`join --filter`, `filter`). UUIDs still meet
/// plain 16-byte binary keys by their bytes (as DuckDB compares a UUID with a BLOB), and
/// `probe` of a UUID filter reads UUID text, as DuckDB does, in any case and with or without
/// hyphens.
#[test]
fn uuid_keys_never_meet_strings_silently() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let uuids = four_uuids();
    let text = uuid_text;
    write_uuids(&d.join("u/u.parquet"), &uuids);
    write_parquet(
        &d.join("s/s.parquet"),
        vec![(
            "k",
            Arc::new(StringArray::from(vec![text(uuids[0]), text(uuids[2])])) as ArrayRef,
        )],
        10,
    );
    write_parquet(
        &d.join("b/b.parquet"),
        vec![(
            "k",
            Arc::new(
                FixedSizeBinaryArray::try_from_iter(
                    [uuids[1], uuids[3], 7].iter().map(|u| u.to_be_bytes()),
                )
                .unwrap(),
            ) as ArrayRef,
        )],
        10,
    );
    let join = |filter: Option<&str>, left: &str, right: &str, out: &str| {
        join_on_k(d, filter, left, right, out)
    };
    join(None, "u", "s", "o1").fails(
        2,
        &[
            "type mismatch",
            "--left-key k is a UUID (16 bytes)",
            "--right-key k is a string",
        ],
    );
    join(None, "s", "u", "o2").fails(2, &["--right-key k is a UUID", "--left-key k is a string"]);
    let fu = train(d, "u", &[]);
    let fs = train(d, "s", &[]);
    let json = run_in(d, &["inspect", &fu, "--json"]).ok();
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(j["metadata"]["logical_type"], "UUID", "{j}");
    for (f, input, needle) in [
        (&fu, "s", "holds UUIDs (16 bytes), but --key k is a string"),
        (&fs, "u", "holds strings, but --key k is a UUID (16 bytes)"),
    ] {
        run_in(
            d,
            &[
                "filter", "-q", "--filter", f, "--input", input, "--key", "k", "--output", "o3",
            ],
        )
        .fails(2, &["type mismatch", needle]);
    }
    join(Some(&fs), "s", "u", "o4").fails(2, &["type mismatch"]);
    for o in ["o1", "o2", "o3", "o4"] {
        assert!(!d.join(o).exists(), "{o}");
    }
    // The same for a UUID in a composite key: the filter records it per column.
    write_parquet(
        &d.join("s2/s.parquet"),
        vec![
            ("id", Arc::new(Int64Array::from(vec![0, 2])) as ArrayRef),
            (
                "k",
                Arc::new(StringArray::from(vec![text(uuids[0]), text(uuids[2])])) as ArrayRef,
            ),
        ],
        10,
    );
    run_in(d, &["train", "-q", "-i", "u", "-c", "id,k", "-o", "cu.bjf"]).ok();
    let json = run_in(d, &["inspect", "cu.bjf", "--json"]).ok();
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        j["metadata"]["key_columns"][1]["logical_type"], "UUID",
        "{j}"
    );
    run_in(
        d,
        &[
            "filter", "-q", "--filter", "cu.bjf", "--input", "s2", "--key", "id,k", "--output",
            "o6",
        ],
    )
    .fails(
        2,
        &[
            "type mismatch",
            "holds UUIDs (16 bytes), but --key k is a string",
        ],
    );
    run_in(
        d,
        &[
            "join",
            "-q",
            "--left",
            "u",
            "--left-key",
            "id,k",
            "--right",
            "s2",
            "--right-key",
            "id,k",
            "--output",
            "o7",
        ],
    )
    .fails(2, &["type mismatch", "--left-key k is a UUID (16 bytes)"]);
    assert!(!d.join("o6").exists() && !d.join("o7").exists());
    // UUIDs meet 16-byte binary keys by their bytes.
    run_in(
        d,
        &[
            "join",
            "-q",
            "--filter",
            &fu,
            "--left",
            "u",
            "--left-key",
            "k",
            "--right",
            "b",
            "--right-key",
            "k",
            "--select",
            "id",
            "--output",
            "o5",
        ],
    )
    .ok();
    assert_eq!(read_rows(&d.join("o5")).0, sorted(&["1", "3"]));
    // probe reads UUID text; text that is no UUID is a one-line error.
    let keys = format!(
        "{}\n{}\n{{{}}}\n{}\n",
        text(uuids[0]),
        text(uuids[1]).to_uppercase().replace('-', ""),
        text(uuids[2]),
        text(5)
    );
    let out = run_stdin(d, &["probe", "--filter", &fu], &keys).ok();
    assert_eq!(out, "maybe\nmaybe\nmaybe\nno\n");
    run_stdin(d, &["probe", "--filter", &fu], "not-a-uuid\n")
        .fails(2, &["stdin line 1", "is not a UUID"]);
}

/// A file of the Parquet logical types whose Arrow types do not say them, as DuckDB writes
/// them: `k` (Int64), `iv` (INTERVAL: months, days, milliseconds), `u` (UUID), `j` (JSON)
/// and `t` (TIME adjusted to UTC, DuckDB's TIMETZ). Row `i` has key `i`, interval
/// (`i` + 1 months, `i` days, `i` * 1,000 + 500 ms), UUID `i` + 1, JSON `{"i":i}` and time
/// `i` hours.
fn write_logical_types(path: &Path, rows: i64) {
    use parquet::data_type::{ByteArray, ByteArrayType, FixedLenByteArray};
    use parquet::data_type::{FixedLenByteArrayType, Int64Type};
    let mut w = low_level_writer(
        path,
        "message m {
                required int64 k;
                required fixed_len_byte_array(12) iv (INTERVAL);
                required fixed_len_byte_array(16) u (UUID);
                required binary j (JSON);
                required int64 t (TIME(MICROS,true));
                required group st {
                    required fixed_len_byte_array(16) su (UUID);
                    required int64 stz (TIME(MICROS,true));
                }
            }",
    );
    let mut rg = w.next_row_group().unwrap();
    let ids: Vec<i64> = (0..rows).collect();
    write_column::<Int64Type>(&mut rg, &ids, None);
    let flba = |v: Vec<Vec<u8>>| -> Vec<FixedLenByteArray> {
        v.into_iter().map(FixedLenByteArray::from).collect()
    };
    let intervals = flba(
        ids.iter()
            .map(|&i| {
                let i = i as u32;
                [i + 1, i, i * 1_000 + 500]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect()
            })
            .collect(),
    );
    let uuids = flba(
        ids.iter()
            .map(|&i| (i as u128 + 1).to_be_bytes().to_vec())
            .collect(),
    );
    for values in [&intervals, &uuids] {
        write_column::<FixedLenByteArrayType>(&mut rg, values, None);
    }
    let json: Vec<ByteArray> = ids
        .iter()
        .map(|i| ByteArray::from(format!("{{\"i\":{i}}}").into_bytes()))
        .collect();
    write_column::<ByteArrayType>(&mut rg, &json, None);
    let times: Vec<i64> = ids.iter().map(|i| i * 3_600_000_000).collect();
    write_column::<Int64Type>(&mut rg, &times, None);
    // The struct's UUID and time of day in UTC.
    write_column::<FixedLenByteArrayType>(&mut rg, &uuids, None);
    write_column::<Int64Type>(&mut rg, &times, None);
    rg.close().unwrap();
    w.close().unwrap();
}

/// A row's key and its interval's months, days and milliseconds.
type IntervalRow = (i64, i32, i32, i32);

/// The Parquet logical type of each top-level leaf of the Parquet files below `dir`, as
/// `name: type` (the logical type, else the converted one), and every file's rows of
/// `iv` as (months, days, milliseconds) read twice: as `Interval(YearMonth)` (the months)
/// and as `Interval(DayTime)` (days and milliseconds).
fn logical_types_and_intervals(dir: &Path) -> (Vec<String>, Vec<IntervalRow>) {
    use arrow::array::{AsArray, Int64Array};
    use arrow::datatypes::{IntervalDayTimeType, IntervalUnit, IntervalYearMonthType, Schema};
    use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
    use parquet::file::reader::FileReader;
    let mut types = Vec::new();
    let mut rows = Vec::new();
    for f in files_below(dir)
        .into_iter()
        .filter(|f| f.ends_with(".parquet"))
    {
        let path = dir.join(&f);
        let reader =
            parquet::file::reader::SerializedFileReader::new(std::fs::File::open(&path).unwrap())
                .unwrap();
        let descr = reader.metadata().file_metadata().schema_descr_ptr();
        if types.is_empty() {
            for c in descr.columns() {
                let t = match (c.logical_type_ref(), c.converted_type()) {
                    (Some(parquet::basic::LogicalType::Time(t)), _) => {
                        format!("TIME(adjusted to UTC: {})", t.is_adjusted_to_u_t_c)
                    }
                    (Some(l), _) => format!("{l:?}"),
                    (None, ct) => format!("{ct}"),
                };
                types.push(format!("{}: {t}", c.name()));
            }
        }
        let read = |unit: IntervalUnit| {
            let file = std::fs::File::open(&path).unwrap();
            let plain = ParquetRecordBatchReaderBuilder::try_new(file.try_clone().unwrap())
                .unwrap()
                .schema()
                .clone();
            let fields: Vec<_> = plain
                .fields()
                .iter()
                .map(|f| match f.name().as_str() {
                    "iv" => Arc::new(
                        f.as_ref()
                            .clone()
                            .with_data_type(arrow::datatypes::DataType::Interval(unit)),
                    ),
                    _ => Arc::clone(f),
                })
                .collect();
            let options = ArrowReaderOptions::new().with_schema(Arc::new(Schema::new(fields)));
            ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
                .unwrap()
                .build()
                .unwrap()
                .map(|b| b.unwrap())
                .collect::<Vec<_>>()
        };
        for (ym, dt) in read(IntervalUnit::YearMonth)
            .iter()
            .zip(read(IntervalUnit::DayTime))
        {
            let k = ym.column_by_name("k").unwrap();
            let k = k.as_any().downcast_ref::<Int64Array>().unwrap();
            let months = ym
                .column_by_name("iv")
                .unwrap()
                .as_primitive::<IntervalYearMonthType>()
                .clone();
            let day_ms = dt
                .column_by_name("iv")
                .unwrap()
                .as_primitive::<IntervalDayTimeType>()
                .clone();
            for i in 0..k.len() {
                let d = day_ms.value(i);
                rows.push((k.value(i), months.value(i), d.days, d.milliseconds));
            }
        }
    }
    rows.sort_unstable();
    (types, rows)
}

/// Columns whose Parquet logical type their Arrow type does not say pass through `join` and
/// `filter` with their values and their types: an INTERVAL keeps its months (**wrong
/// values before:** the reader's `Interval(DayTime)` dropped them, so `1 month 2 days` came
/// out as `2 days`), and a UUID, JSON text and a TIME adjusted to UTC (DuckDB's TIMETZ) stay
/// so (before: BLOB, VARCHAR, TIME in DuckDB). Where their bytes are not their value, we
/// refuse with one line instead of answering otherwise than DuckDB: an INTERVAL key (DuckDB
/// compares intervals normalized, `'1 month'` = `'30 days'`), and a condition comparing an
/// INTERVAL, or a UUID with text.
#[test]
fn logical_types_pass_through_with_their_values_and_types() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_logical_types(&d.join("l/l.parquet"), 5);
    write_parquet(
        &d.join("r/r.parquet"),
        vec![(
            "k",
            Arc::new(Int64Array::from(vec![1, 3, 3, 9])) as ArrayRef,
        )],
        10,
    );
    let want_types = [
        "k: NONE",
        "iv: INTERVAL",
        "u: Uuid",
        "j: Json",
        "t: TIME(adjusted to UTC: true)",
        // Inside a struct too.
        "su: Uuid",
        "stz: TIME(adjusted to UTC: true)",
    ];
    let want_rows = |keys: &[i64]| -> Vec<IntervalRow> {
        keys.iter()
            .map(|&i| (i, i as i32 + 1, i as i32, i as i32 * 1_000 + 500))
            .collect()
    };
    for (out, extra) in [
        ("o1", vec![]),
        ("o2", vec!["--no-prefilter"]),
        ("o3", vec!["--strategy", "reduce-side", "--reducers", "2"]),
    ] {
        let mut a = vec![
            "join",
            "-q",
            "--left",
            "l",
            "--left-key",
            "k",
            "--right",
            "r",
            "--right-key",
            "k",
            "--select",
            "left.*",
            "--output",
            out,
        ];
        a.extend(extra);
        run_in(d, &a).ok();
        let (types, rows) = logical_types_and_intervals(&d.join(out));
        assert_eq!(types, want_types, "{out}");
        assert_eq!(rows, want_rows(&[1, 3, 3]), "{out}");
    }
    // A renamed column keeps its type; a condition may test an annotated column for NULL.
    run_in(
        d,
        &[
            "join",
            "-q",
            "--left",
            "l",
            "--left-key",
            "k",
            "--right",
            "r",
            "--right-key",
            "k",
            "--select",
            "left.k, left.iv, left.u AS u2",
            "--left-where",
            "iv IS NOT NULL AND u IS NOT NULL",
            "--output",
            "o4",
        ],
    )
    .ok();
    let (types, _) = logical_types_and_intervals(&d.join("o4"));
    assert_eq!(types, ["k: NONE", "iv: INTERVAL", "u2: Uuid"]);
    // The filter job too.
    let f = train(d, "r", &[]);
    run_in(
        d,
        &[
            "filter", "-q", "--input", "l", "--key", "k", "--filter", &f, "--output", "o5",
        ],
    )
    .ok();
    let (types, rows) = logical_types_and_intervals(&d.join("o5"));
    assert_eq!(types, want_types);
    assert_eq!(rows, want_rows(&[1, 3]));
    // Refused, with one line and nothing written.
    let interval_key = "an INTERVAL cannot be a key";
    for (args, needles) in [
        (
            vec![
                "train", "--input", "l", "--column", "iv", "--output", "iv.bjf",
            ],
            vec![interval_key, "column \"iv\""],
        ),
        (
            vec![
                "train", "--input", "l", "--column", "k,iv", "--output", "iv.bjf",
            ],
            vec![interval_key],
        ),
        (
            vec![
                "join",
                "--left",
                "l",
                "--left-key",
                "iv",
                "--right",
                "l",
                "--right-key",
                "iv",
                "--output",
                "bad",
            ],
            vec![interval_key],
        ),
        (
            vec![
                "join",
                "--left",
                "l",
                "--left-key",
                "k",
                "--right",
                "r",
                "--right-key",
                "k",
                "--left-where",
                "iv = '1 month'",
                "--output",
                "bad",
            ],
            vec!["column \"iv\" is a Parquet INTERVAL", "--left-where"],
        ),
        (
            vec![
                "join",
                "--left",
                "l",
                "--left-key",
                "k",
                "--right",
                "r",
                "--right-key",
                "k",
                "--left-where",
                "lower(u) = '00000000-0000-0000-0000-000000000001'",
                "--output",
                "bad",
            ],
            vec!["column \"u\" is a UUID", "CAST it to VARCHAR"],
        ),
        (
            vec![
                "join",
                "--left",
                "l",
                "--left-key",
                "k",
                "--right",
                "l",
                "--right-key",
                "k",
                "--join-where",
                "left.iv <> right.iv",
                "--output",
                "bad",
            ],
            vec!["is a Parquet INTERVAL", "--join-where"],
        ),
        (
            vec![
                "filter",
                "--input",
                "l",
                "--key",
                "k",
                "--filter",
                &f,
                "--where",
                "u IN ('x')",
                "--output",
                "bad",
            ],
            vec!["could not convert string 'x' to UUID", "column \"u\""],
        ),
    ] {
        let err = run_in(d, &args).fails(2, &needles);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            !d.join("bad").exists() && !d.join("iv.bjf").exists(),
            "{args:?}"
        );
    }
    // A TIME adjusted to UTC (DuckDB's TIMETZ) meets its own kind, and is refused against a
    // local TIME (DuckDB meets them under a session time zone): in a join, and through a
    // filter, which records the kind it holds.
    write_parquet(
        &d.join("local/t.parquet"),
        vec![(
            "t",
            Arc::new(Time64MicrosecondArray::from(vec![3_600_000_000, 7])) as ArrayRef,
        )],
        10,
    );
    let on_t = |left: &str, right: &str, out: &str, extra: &[&str]| {
        let mut a = vec![
            "join",
            "-q",
            "--left",
            left,
            "--left-key",
            "t",
            "--right",
            right,
            "--right-key",
            "t",
            "--output",
            out,
        ];
        a.extend_from_slice(extra);
        run_in(d, &a)
    };
    on_t("l", "l", "o7", &["--select", "left.k"]).ok();
    assert_eq!(read_rows(&d.join("o7")).0, ["0", "1", "2", "3", "4"]);
    on_t("l", "local", "bad", &[]).fails(
        2,
        &[
            "time zone mismatch",
            "--left-key t holds times of day adjusted to UTC (TIMETZ)",
            "--right-key t holds local times of day (TIME)",
        ],
    );
    on_t("local", "l", "bad", &[]).fails(
        2,
        &[
            "time zone mismatch",
            "--left-key t holds local times of day",
        ],
    );
    run_in(
        d,
        &[
            "train", "-q", "--input", "l", "--column", "t", "--output", "t.bjf",
        ],
    )
    .ok();
    let json = run_in(d, &["inspect", "t.bjf", "--json"]).ok();
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(j["metadata"]["logical_type"], "TIMETZ", "{j}");
    run_in(
        d,
        &[
            "filter", "-q", "--input", "local", "--key", "t", "--filter", "t.bjf", "--output",
            "bad",
        ],
    )
    .fails(
        2,
        &[
            "time zone mismatch",
            "the filter t.bjf holds times of day adjusted to UTC (TIMETZ)",
        ],
    );
    on_t("local", "local", "bad", &["--filter", "t.bjf"]).fails(
        2,
        &[
            "time zone mismatch",
            "--right-key t holds local times of day (TIME)",
        ],
    );
    // A composite key's columns show their logical types too.
    run_in(
        d,
        &[
            "train", "-q", "--input", "l", "--column", "k,u,t", "--output", "kut.bjf",
        ],
    )
    .ok();
    let shown = run_in(d, &["inspect", "kut.bjf"]).ok();
    assert!(
        shown.contains(
            "key columns   k (integer, Int64), u (bytes, FixedSizeBinary(16) (UUID)), t (time, Time64(µs) (TIMETZ))"
        ),
        "{shown}"
    );
    // A side whose files hold both kinds is refused too, naming the file.
    std::fs::create_dir_all(d.join("mixed")).unwrap();
    std::fs::copy(d.join("l/l.parquet"), d.join("mixed/a.parquet")).unwrap();
    std::fs::copy(d.join("local/t.parquet"), d.join("mixed/b.parquet")).unwrap();
    run_in(
        d,
        &[
            "train", "--input", "mixed", "--column", "t", "--output", "m.bjf",
        ],
    )
    .fails(
        2,
        &[
            "mixed/b.parquet: column \"t\": holds local times of day (TIME)",
            "TIMETZ",
        ],
    );
    on_t("mixed", "l", "bad", &[]).fails(2, &["holds local times of day (TIME)"]);
    assert!(!d.join("bad").exists() && !d.join("m.bjf").exists());
    // Two UUID columns compare by their bytes, which are equal exactly when the UUIDs are.
    run_in(
        d,
        &[
            "join",
            "-q",
            "--left",
            "l",
            "--left-key",
            "k",
            "--right",
            "l",
            "--right-key",
            "k",
            "--join-where",
            "left.u = right.u AND left.u >= right.u",
            "--select",
            "left.k",
            "--output",
            "o6",
        ],
    )
    .ok();
    let (rows, _) = read_rows(&d.join("o6"));
    assert_eq!(rows, ["0", "1", "2", "3", "4"]);
}

/// A file as Spark, Hive and Impala write timestamps: INT96 (nanoseconds of the day, Julian
/// day), with no embedded Arrow schema. Columns `k` (Int64, 0..), `ts` (INT96; null where
/// `days` is `None`) and `st`, a struct of one INT96 field `t` holding `ts` again. `days` are
/// days since 1970-01-01, each at 12:00:00.000001.
fn write_int96(path: &Path, days: &[Option<i64>]) {
    use parquet::data_type::{Int64Type, Int96, Int96Type};
    let mut w = low_level_writer(
        path,
        "message spark_schema {
                required int64 k;
                optional int96 ts;
                optional group st { optional int96 t; }
            }",
    );
    let mut rg = w.next_row_group().unwrap();
    let ids: Vec<i64> = (0..days.len() as i64).collect();
    write_column::<Int64Type>(&mut rg, &ids, None);
    let nanos: u64 = 12 * 3_600_000_000_000 + 1_000;
    let values: Vec<Int96> = days
        .iter()
        .flatten()
        .map(|d| {
            let mut v = Int96::new();
            v.set_data(nanos as u32, (nanos >> 32) as u32, (d + 2_440_588) as u32);
            v
        })
        .collect();
    // `ts` (levels: 1 present, 0 null), then `st.t` (2 present, the struct always there).
    for present in [1i16, 2] {
        let def: Vec<i16> = days
            .iter()
            .map(|d| if d.is_some() { present } else { present - 1 })
            .collect();
        write_column::<Int96Type>(&mut rg, &values, Some(&def));
    }
    rg.close().unwrap();
    w.close().unwrap();
}

/// INT96 timestamps without an embedded Arrow schema (Spark's, Hive's, Impala's) are read in
/// microseconds, as DuckDB and Spark read them. **Wrong values before:** the parquet crate
/// reads them as `Timestamp(ns)`, whose `i64` ends in 2262, so `9999-12-31` (the open end of
/// many warehouse tables) and `0001-01-01` came out as dates in 1816 and 1754, met no key of
/// their value and failed conditions they meet.
#[test]
fn int96_timestamps_keep_dates_past_2262() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 0001-01-01, 1500-06-01, 2024-01-01, 9999-12-31, null.
    let days = [
        Some(-719_162),
        Some(-171_513),
        Some(19_723),
        Some(2_932_896),
        None,
    ];
    write_int96(&d.join("spark/part-0.parquet"), &days);
    let us = |day: i64| day * 86_400_000_000 + 12 * 3_600_000_000 + 1;
    write_parquet(
        &d.join("ts/ts.parquet"),
        vec![(
            "ts",
            Arc::new(TimestampMicrosecondArray::from(vec![
                us(2_932_896),
                us(-719_162),
                us(19_723),
                us(0),
            ])) as ArrayRef,
        )],
        10,
    );
    // Passed on: the values, top-level and in a struct.
    run_in(
        d,
        &[
            "train", "-q", "--input", "spark", "--column", "k", "--output", "k.bjf",
        ],
    )
    .ok();
    run_in(
        d,
        &[
            "filter", "-q", "--input", "spark", "--key", "k", "--filter", "k.bjf", "--output", "o1",
        ],
    )
    .ok();
    let (rows, names) = read_rows(&d.join("o1"));
    assert_eq!(names, ["k", "ts", "st"]);
    assert_eq!(
        rows,
        [
            "0|0001-01-01T12:00:00.000001|{t: 0001-01-01T12:00:00.000001}",
            "1|1500-06-01T12:00:00.000001|{t: 1500-06-01T12:00:00.000001}",
            "2|2024-01-01T12:00:00.000001|{t: 2024-01-01T12:00:00.000001}",
            "3|9999-12-31T12:00:00.000001|{t: 9999-12-31T12:00:00.000001}",
            "4|NULL|{t: NULL}",
        ]
    );
    // As a key: they meet microsecond timestamps of the same value, in every strategy.
    for extra in [
        vec![],
        vec!["--strategy", "reduce-side"],
        vec!["--no-prefilter"],
    ] {
        let out = format!("o2-{}", extra.len());
        let mut a = vec![
            "join",
            "-q",
            "--left",
            "spark",
            "--left-key",
            "ts",
            "--right",
            "ts",
            "--right-key",
            "ts",
            "--select",
            "left.k",
            "--output",
            &out,
        ];
        a.extend(extra);
        run_in(d, &a).ok();
        assert_eq!(read_rows(&d.join(&out)).0, ["0", "2", "3"]);
    }
    // In a condition.
    run_in(
        d,
        &[
            "join",
            "-q",
            "--left",
            "spark",
            "--left-key",
            "k",
            "--right",
            "spark",
            "--right-key",
            "k",
            "--left-where",
            "ts < '1600-01-01' OR ts > '9000-01-01'",
            "--select",
            "left.k",
            "--output",
            "o3",
        ],
    )
    .ok();
    assert_eq!(read_rows(&d.join("o3")).0, ["0", "1", "3"]);
}

/// A UUID column in a condition compares with text read as a UUID, as in DuckDB (`k =
/// '<any case, hyphens anywhere, braces>'`, `IN`, `BETWEEN`), `k::VARCHAR` is its canonical
/// text, and `CAST(text AS UUID)` in a
/// `--select` is a Parquet UUID column; text that is no UUID fails with one line and writes
/// nothing. Before, every comparison of a UUID with text was refused. A UUID column
/// partitions the output (`--partition-by`) by its text; it was refused.
#[test]
fn uuid_columns_compare_with_text_in_conditions() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let uuids = four_uuids();
    let hex = |u: u128| format!("{u:032x}");
    let text = uuid_text;
    write_uuids(&d.join("u/u.parquet"), &uuids);
    let w = format!(
        "k IN ('{}', '{{{}}}') AND k BETWEEN '{}' AND '{}'",
        hex(uuids[2]).to_uppercase(),
        text(uuids[3]),
        text(uuids[1]),
        &hex(uuids[2])[..10]
            .chars()
            .chain("-".chars())
            .chain(hex(uuids[2])[10..].chars())
            .collect::<String>(),
    );
    run_in(d, &["train", "-q", "-i", "u", "-c", "id", "-o", "id.bjf"]).ok();
    // The filter job over `u`, with `extra` options, into `out`.
    let filter = |extra: &[&str], out: &str| {
        let mut a = vec![
            "filter", "-q", "--filter", "id.bjf", "--input", "u", "--key", "id",
        ];
        a.extend_from_slice(extra);
        a.extend(["--output", out]);
        run_in(d, &a).ok()
    };
    let select = "id, k::VARCHAR AS t, CAST(upper(k::VARCHAR) AS UUID) AS u2";
    filter(&["--where", &w, "--select", select], "o1");
    let (rows, names) = read_rows(&d.join("o1"));
    assert_eq!(names, ["id", "t", "u2"]);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(
        rows[0].starts_with(&format!("2|{}|", text(uuids[2]))),
        "{rows:?}"
    );
    // u2 is a Parquet UUID, as DuckDB writes `CAST(.. AS UUID)`.
    let part = files_below(&d.join("o1"))
        .into_iter()
        .find(|f| f.ends_with(".parquet"))
        .unwrap();
    let file = std::fs::File::open(d.join("o1").join(part)).unwrap();
    let r = parquet::file::reader::SerializedFileReader::new(file).unwrap();
    use parquet::file::reader::FileReader;
    let schema = r.metadata().file_metadata().schema_descr_ptr();
    assert_eq!(
        schema.column(2).logical_type_ref(),
        Some(&parquet::basic::LogicalType::Uuid)
    );
    // A UUID output partitions by its canonical text, as DuckDB's PARTITION_BY writes it.
    filter(&["--partition-by", "k"], "o3");
    let dirs: Vec<String> = files_below(&d.join("o3"))
        .iter()
        .filter_map(|f| f.split_once('/').map(|(dir, _)| dir.to_string()))
        .collect();
    let mut want: Vec<String> = uuids.iter().map(|&u| format!("k={}", text(u))).collect();
    want.sort();
    assert_eq!(dirs, want);
    // The join's --right-where, and a --join-where of UUIDs against text.
    run_in(
        d,
        &[
            "join",
            "-q",
            "--left",
            "u",
            "--left-key",
            "id",
            "--right",
            "u",
            "--right-key",
            "id",
            "--right-where",
            &format!("k > '{}'", text(uuids[1])),
            "--join-where",
            &format!("left.k::VARCHAR <> '{}'", text(uuids[3])),
            "--select",
            "left.id",
            "--output",
            "o2",
        ],
    )
    .ok();
    assert_eq!(read_rows(&d.join("o2")).0, sorted(&["2"]));
    for (w, says) in [
        ("k = 'zz'", "could not convert string 'zz' to UUID"),
        ("k = 7", "cannot compare column \"k\" (a UUID) with 7"),
        ("lower(k) = 'a'", "column \"k\" is a UUID"),
    ] {
        run_in(
            d,
            &[
                "train", "-q", "-i", "u", "-c", "id", "--where", w, "-o", "f.bjf",
            ],
        )
        .fails(2, &[says]);
        assert!(!d.join("f.bjf").exists(), "{w}");
    }
}
