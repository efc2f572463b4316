//! The join job through the binary: every join type against a naive reference, invariance
//! under workers, reducers, split and batch sizes and the prefilter, and bad input.

use std::path::Path;
use std::sync::Arc;

use arrow::array::*;

use crate::util::{files_below, read_rows, root, run_in, write_parquet};

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
        write_comments(&d.join(format!("comments/c{f}.parquet")), chunk, 128);
    }
}

/// `rows` as a comments file (Id, UserId, Text) of row groups of `group` rows.
fn write_comments(path: &Path, rows: &[Comment], group: usize) {
    write_parquet(
        path,
        vec![
            (
                "Id",
                Arc::new(Int64Array::from(
                    rows.iter().map(|x| x.id).collect::<Vec<_>>(),
                )) as ArrayRef,
            ),
            (
                "UserId",
                Arc::new(Int32Array::from(
                    rows.iter().map(|x| x.user).collect::<Vec<_>>(),
                )),
            ),
            (
                "Text",
                Arc::new(StringArray::from(
                    rows.iter().map(|x| x.text.clone()).collect::<Vec<_>>(),
                )),
            ),
        ],
        group,
    );
}

fn opt(v: Option<i64>) -> String {
    v.map_or("NULL".into(), |x| x.to_string())
}

/// The reference result: a nested-loop join written out as sorted `a|b|c` rows with the
/// default columns (left Id, name, Reputation, then right Id_right, UserId, Text; one side's
/// alone for semi and anti joins).
pub fn reference(join_type: &str, min_rep: i64) -> Vec<String> {
    reference_on(join_type, min_rep, false, |_, _| true)
}

/// [`reference`] with the keys compared as `--nulls-equal` does when `nulls_equal`, and a
/// pair of equal keys matching only when `on` holds for it (`--join-where`).
fn reference_on(
    join_type: &str,
    min_rep: i64,
    nulls_equal: bool,
    on: impl Fn(&User, &Comment) -> bool,
) -> Vec<String> {
    let u: Vec<User> = users().into_iter().filter(|x| x.rep > min_rep).collect();
    let c = comments();
    let lrow = |x: &User| format!("{}|{}|{}", opt(x.id), x.name, x.rep);
    let rrow = |x: &Comment| format!("{}|{}|{}", x.id, opt(x.user.map(i64::from)), x.text);
    let matches = |a: &User, b: &Comment| {
        (a.id.is_some() || nulls_equal) && a.id == b.user.map(i64::from) && on(a, b)
    };
    let mut out = Vec::new();
    let mut left_hit = vec![false; u.len()];
    for b in &c {
        let mut hit = false;
        for (i, a) in u.iter().enumerate() {
            if matches(a, b) {
                hit = true;
                left_hit[i] = true;
                if !join_type.contains('-') {
                    out.push(format!("{}|{}", lrow(a), rrow(b)));
                }
            }
        }
        match join_type {
            "right" | "full" if !hit => out.push(format!("NULL|NULL|NULL|{}", rrow(b))),
            "right-semi" if hit => out.push(rrow(b)),
            "right-anti" if !hit => out.push(rrow(b)),
            _ => {}
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
    train_at(d, "0.01");
}

/// `users.bjf`: the users with Reputation > 1500, at `fpp`.
fn train_at(d: &Path, fpp: &str) {
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
            fpp,
            "--output",
            "users.bjf",
        ],
    )
    .ok();
}

/// Every join type.
pub(crate) const JOIN_TYPES: [&str; 8] = [
    "inner",
    "left",
    "left-semi",
    "left-anti",
    "right",
    "right-semi",
    "right-anti",
    "full",
];

/// True for the join types that keep right rows without a match, so the prefilter is off.
fn keeps_right(jt: &str) -> bool {
    matches!(jt, "right" | "right-anti" | "full")
}

/// The sides of the fixture's join: reputable users and their comments.
const SIDES: [&str; 10] = [
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
];

fn join(d: &Path, out: &str, join_type: &str, extra: &[&str]) -> String {
    let mut args = vec!["join", "--filter", "users.bjf"];
    args.extend(SIDES);
    args.extend(["--type", join_type, "--output", out]);
    args.extend_from_slice(extra);
    run_in(d, &args).ok()
}

#[test]
fn every_join_type_matches_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    for jt in JOIN_TYPES {
        let out = format!("out-{jt}");
        let summary = join(d, &out, jt, &["--report", &format!("{out}.json")]);
        let (rows, names) = read_rows(&d.join(&out));
        assert_eq!(rows, reference(jt, 1500), "{jt}");
        if matches!(jt, "left-semi" | "left-anti") {
            assert_eq!(names, ["Id", "name", "Reputation"]);
        } else if matches!(jt, "right-semi" | "right-anti") {
            assert_eq!(names, ["Id", "UserId", "Text"]);
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
        assert_eq!(used, !keeps_right(jt), "{jt}");
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
    // Join users and names on the name, selecting `select` into `out`.
    let select = |select: &str, out: &str| {
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
                select,
                "--output",
                out,
            ],
        )
        .ok();
        read_rows(&d.join(out))
    };
    let (rows, names) = select("who,left.Reputation,name", "s");
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

    // The same columns renamed with AS, one of them twice.
    let (rows2, names2) = select(
        "who AS user, left.Reputation as rep, name AS n1, name AS n2",
        "s2",
    );
    assert_eq!(names2, ["user", "rep", "n1", "n2"]);
    let twice: Vec<String> = expected
        .iter()
        .map(|r| format!("{r}|{}", r.rsplit('|').next().unwrap()))
        .collect();
    assert_eq!(rows2, twice);
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
        let mut a = vec!["join", "--filter", filter];
        a.extend(SIDES);
        a.extend(["--output", out]);
        a.extend_from_slice(extra);
        run_in(d, &a)
    };
    base("names.bjf", "o1", &[]).fails(2, &["key family", "bytes", "integer"]);
    base("users.bjf", "o2", &["--select", "nope"]).fails(2, &["--select", "nope"]);
    base(
        "users.bjf",
        "o2",
        &["--select", "left.Id AS x, right.Id AS x"],
    )
    .fails(2, &["--select", "two output columns would be named \"x\""]);
    base("users.bjf", "o2", &["--select", "left.Id AS"]).fails(2, &["--select", "column AS name"]);
    assert!(!d.join("o2").exists());
    base("users.bjf", "o2", &["--select", "NAME"])
        .fails(2, &["--select", "did you mean \"name\"?"]);
    base("users.bjf", "o2", &["--select", "right.userid"])
        .fails(2, &["--select", "right side", "did you mean \"UserId\"?"]);
    base("users.bjf", "o3", &["--select", "Id"]).fails(2, &["--select", "both sides"]);
    base(
        "users.bjf",
        "o4",
        &["--type", "left-semi", "--select", "right.Text"],
    )
    .fails(2, &["--select", "left-semi"]);
    base(
        "users.bjf",
        "o4r",
        &["--type", "right-semi", "--select", "left.name"],
    )
    .fails(2, &["--select", "right-semi", "right columns only"]);
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
    bytes[8] = 3;
    std::fs::write(d.join("future.bjf"), bytes).unwrap();
    base("future.bjf", "o6", &[]).fails(2, &["future.bjf", "version 3"]);
    base(
        "users.bjf",
        "o7",
        &["--memory-limit", "1KiB", "--strategy", "replicated"],
    )
    .fails(2, &["--memory-limit"]);
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
        &["-q", "--overwrite", "--workers", "1"],
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

fn report(d: &Path, path: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(d.join(path)).unwrap()).unwrap()
}

#[test]
fn every_join_type_is_the_same_under_both_strategies_and_without_the_prefilter() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    // A loose filter (--fpp 0.2), so that the Bloom tier surely lets false positives through
    // and the exact keys tier has rows to drop.
    train_at(d, "0.2");
    let configs: [&[&str]; 9] = [
        &["--strategy", "replicated", "--workers", "1"],
        &[
            "--strategy",
            "replicated",
            "--workers",
            "3",
            "--split-rows",
            "1",
            "--batch-size",
            "5",
        ],
        &[
            "--strategy",
            "replicated",
            "--workers",
            "2",
            "--no-prefilter",
        ],
        &[
            "--strategy",
            "reduce-side",
            "--workers",
            "1",
            "--reducers",
            "1",
        ],
        &[
            "--strategy",
            "reduce-side",
            "--workers",
            "2",
            "--reducers",
            "3",
            "--batch-size",
            "7",
        ],
        &[
            "--strategy",
            "reduce-side",
            "--workers",
            "3",
            "--reducers",
            "13",
            "--split-rows",
            "1",
        ],
        &[
            "--strategy",
            "reduce-side",
            "--workers",
            "2",
            "--no-prefilter",
        ],
        // auto, with a budget the left side outgrows half-way: reduce-side
        &[
            "--workers",
            "2",
            "--memory-limit",
            "8KiB",
            "--batch-size",
            "10",
            "--split-rows",
            "30",
        ],
        // auto, fits: replicated
        &["--workers", "2", "--split-rows", "500"],
    ];
    for jt in JOIN_TYPES {
        let expected = reference(jt, 1500);
        for (i, extra) in configs.iter().enumerate() {
            let out = format!("o-{jt}-{i}");
            let json = format!("{out}.json");
            let mut args = extra.to_vec();
            args.extend(["--report", &json, "-q"]);
            join(d, &out, jt, &args);
            assert_eq!(read_rows(&d.join(&out)).0, expected, "{jt} {extra:?}");
            let r = report(d, &json);
            let used = r["strategy"]["used"].as_str().unwrap();
            let want = match i {
                0..=2 | 8 => "replicated",
                _ => "reduce-side",
            };
            assert_eq!(used, want, "{jt} {extra:?}: {}", r["strategy"]);
            // The prefilter's tiers, and what each dropped.
            let tiers: Vec<&str> = r["prefilter"]["tiers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            let prefiltered = !extra.contains(&"--no-prefilter") && !keeps_right(jt);
            let want_tiers: &[&str] = match (prefiltered, used) {
                (false, _) => &[],
                (true, "replicated") => &["statistics", "bloom", "keys"],
                (true, _) => &["statistics", "bloom"],
            };
            assert_eq!(tiers, want_tiers, "{jt} {extra:?}");
            let by_keys = r["right"]["rows_dropped_by_keys"].as_u64().unwrap();
            let fp = r["prefilter"]["false_positives"].as_u64().unwrap();
            if tiers.contains(&"keys") {
                // Every false positive of the Bloom filter is dropped before the join.
                assert!(by_keys > 0, "{jt} {extra:?}: {r}");
                assert_eq!(fp, by_keys, "{jt} {extra:?}");
            } else {
                assert_eq!(by_keys, 0);
            }
            if used == "reduce-side" {
                let parts = r["strategy"]["partitions"].as_u64().unwrap();
                assert_eq!(r["parts"].as_u64().unwrap(), parts);
                assert_eq!(
                    files_below(&d.join(&out))
                        .iter()
                        .filter(|f| f.starts_with("part-"))
                        .count() as u64,
                    parts
                );
            }
        }
    }
}

#[test]
fn a_left_side_over_the_memory_limit_runs_reduce_side_or_fails_when_replicated_is_forced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    // Spill files go to the temporary directory: a private one, to see that none is left.
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let env = [("TMPDIR".to_string(), tmp.display().to_string())];
    let mut args = vec!["join", "--filter", "users.bjf"];
    args.extend(SIDES);
    args.extend([
        "--output",
        "auto",
        "--memory-limit",
        "4KiB",
        "--report",
        "auto.json",
    ]);
    // auto: the left side does not fit 4 KiB, so the join goes reduce-side and says why.
    let summary = crate::util::run_env(d, &args, &env).ok();
    assert_eq!(read_rows(&d.join("auto")).0, reference("inner", 1500));
    let r = report(d, "auto.json");
    assert_eq!(r["strategy"]["requested"], "auto");
    assert_eq!(r["strategy"]["used"], "reduce-side");
    let reason = r["strategy"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("outgrew the memory budget (4.00 KiB)"),
        "{reason}"
    );
    assert!(summary.contains("reduce-side strategy"), "{summary}");
    assert!(r["strategy"]["spilled_bytes"].as_u64().unwrap() > 0);
    assert!(r["strategy"]["build_bytes"].as_u64().unwrap() <= 4096);
    // Forced replicated: a one-line error naming the limit, exit 2, nothing written.
    args[14] = "forced";
    args.extend(["--strategy", "replicated"]);
    crate::util::run_env(d, &args, &env)
        .fails(2, &["--memory-limit", "--strategy replicated", "4.00 KiB"]);
    assert!(files_below(&d.join("forced")).is_empty());
    // A budget no partition fits (100 bytes): reduce-side joins each partition in passes,
    // one spilled batch of left rows at a time, and says so.
    args[14] = "passes";
    args[16] = "100";
    args[18] = "passes.json";
    args[20] = "reduce-side";
    let summary = crate::util::run_env(d, &args, &env).ok();
    assert_eq!(read_rows(&d.join("passes")).0, reference("inner", 1500));
    let r = report(d, "passes.json");
    assert_eq!(r["strategy"]["used"], "reduce-side");
    assert!(r["strategy"]["max_passes"].as_u64().unwrap() > 1, "{r}");
    assert!(
        r["strategy"]["partitions_in_passes"].as_u64().unwrap() >= 1,
        "{r}"
    );
    assert!(
        summary.contains("over --memory-limit, joined a chunk of left rows at a time"),
        "{summary}"
    );
    assert!(files_below(&tmp).is_empty(), "{:?}", files_below(&tmp));
    assert!(std::fs::read_dir(&tmp).unwrap().next().is_none());
}

#[test]
fn a_failing_reducer_leaves_nothing_under_either_strategy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    for strategy in ["replicated", "reduce-side"] {
        for (fault, needle) in [
            ("reduce:error", "injected fault at reduce"),
            ("reduce", "panicked"),
        ] {
            let out = format!("o-{strategy}");
            let r = crate::util::run_env(
                d,
                &[
                    "join",
                    "--filter",
                    "users.bjf",
                    "--left",
                    "users",
                    "--left-key",
                    "Id",
                    "--right",
                    "comments",
                    "--right-key",
                    "UserId",
                    "--left-where",
                    "Reputation > 1500",
                    "--output",
                    &out,
                    "--strategy",
                    strategy,
                ],
                &[("BLOOMJOIN_FAULT".to_string(), fault.to_string())],
            );
            let err = r.fails(1, &[needle, "reduce task"]);
            assert!(!err.contains("panicked at"), "{err}");
            let files = files_below(&d.join(&out));
            assert!(
                !files
                    .iter()
                    .any(|f| f == "_SUCCESS" || f.starts_with("part-")),
                "{strategy} {fault}: {files:?}"
            );
        }
    }
}

/// Fuzzer finding F2: a Date64 column came out as a bare INT64 (milliseconds) that DuckDB and
/// pyarrow read as BIGINT. The part's Parquet schema must say DATE.
#[test]
fn date64_output_columns_are_parquet_dates() {
    use parquet::basic::{LogicalType, Type as PhysicalType};
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let day = 86_400_000i64;
    write_parquet(
        &d.join("in/d.parquet"),
        vec![
            ("k", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
            (
                "d",
                Arc::new(Date64Array::from(vec![0, day, 2 * day])) as ArrayRef,
            ),
        ],
        10,
    );
    for strategy in ["replicated", "reduce-side"] {
        let out = format!("o-{strategy}");
        run_in(
            d,
            &[
                "join",
                "-q",
                "--no-prefilter",
                "--left",
                "in",
                "--left-key",
                "k",
                "--right",
                "in",
                "--right-key",
                "k",
                "--select",
                "left.k,left.d",
                "--strategy",
                strategy,
                "--output",
                &out,
            ],
        )
        .ok();
        let mut seen = 0;
        for f in files_below(&d.join(&out))
            .iter()
            .filter(|f| f.ends_with(".parquet"))
        {
            let r = SerializedFileReader::new(std::fs::File::open(d.join(&out).join(f)).unwrap())
                .unwrap();
            let col = r.metadata().file_metadata().schema_descr().column(1);
            assert_eq!(col.name(), "d");
            assert_eq!(col.physical_type(), PhysicalType::INT32, "{strategy}");
            assert_eq!(
                col.logical_type_ref(),
                Some(&LogicalType::Date),
                "{strategy}"
            );
            seen += 1;
        }
        assert!(seen > 0);
        // arrow-rs reads the same dates back (as Date64, from the embedded Arrow schema).
        let (rows, _) = read_rows(&d.join(&out));
        assert_eq!(
            rows,
            [
                "1|1970-01-01T00:00:00",
                "2|1970-01-02T00:00:00",
                "3|1970-01-03T00:00:00"
            ],
            "{strategy}"
        );
    }
}

/// `--right-where` runs after the key tiers in the same row filter; the key hashes carried
/// from the tiers to the join must follow it row for row.
#[test]
fn right_where_gives_the_same_rows_under_both_strategies() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    for jt in ["inner", "left", "left-semi", "left-anti"] {
        let mut results = Vec::new();
        for (i, extra) in [
            vec!["--strategy", "replicated", "--batch-size", "7"],
            vec!["--strategy", "reduce-side", "--reducers", "3"],
            vec!["--no-prefilter"],
        ]
        .into_iter()
        .enumerate()
        {
            let out = format!("rw-{jt}-{i}");
            let mut args = vec!["--right-where", "Id < 1500 AND Text LIKE 'c1%'", "-q"];
            args.extend(extra);
            join(d, &out, jt, &args);
            results.push(read_rows(&d.join(&out)).0);
        }
        assert_eq!(results[0], results[2], "{jt}");
        assert_eq!(results[1], results[2], "{jt}");
        if jt == "inner" {
            let want: Vec<String> = reference("inner", 1500)
                .into_iter()
                .filter(|r| {
                    let c: Vec<&str> = r.split('|').collect();
                    c[3].parse::<i64>().unwrap() < 1500 && c[5].starts_with("c1")
                })
                .collect();
            assert!(!want.is_empty());
            assert_eq!(results[0], want);
        }
    }
}

/// A left side with no rows (nothing passes --left-where) under both strategies.
#[test]
fn an_empty_left_side_joins_under_both_strategies() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    for jt in JOIN_TYPES {
        for strategy in ["replicated", "reduce-side"] {
            let out = format!("e-{jt}-{strategy}");
            run_in(
                d,
                &[
                    "join",
                    "-q",
                    "--filter",
                    "users.bjf",
                    "--left",
                    "users",
                    "--left-key",
                    "Id",
                    "--left-where",
                    "Reputation > 1000000",
                    "--right",
                    "comments",
                    "--right-key",
                    "UserId",
                    "--type",
                    jt,
                    "--strategy",
                    strategy,
                    "--output",
                    &out,
                ],
            )
            .ok();
            let rows = read_rows(&d.join(&out)).0;
            let want = if keeps_right(jt) { 3000 } else { 0 };
            assert_eq!(rows.len(), want, "{jt} {strategy}");
            if jt == "right-anti" {
                // The right rows alone, all of them.
                assert_eq!(rows, reference(jt, 1_000_000), "{jt} {strategy}");
            } else {
                assert!(
                    rows.iter().all(|r| r.starts_with("NULL|NULL|NULL|")),
                    "{jt} {strategy}"
                );
            }
        }
    }
}

/// String keys (with nulls, duplicates and keys missing on either side): every join type
/// gives the reference's rows under both strategies, with the prefilter and without it, for
/// any workers, reducers, split and batch size.
#[test]
fn string_keys_every_join_type_under_both_strategies() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    let who: Vec<Option<String>> = (0..500)
        .map(|i| (i % 17 != 0).then(|| format!("u{}", i * 3 % 400)))
        .collect();
    write_parquet(
        &d.join("names/n.parquet"),
        vec![
            ("who", Arc::new(StringArray::from(who.clone())) as ArrayRef),
            ("n", Arc::new(Int64Array::from_iter_values(0..500))),
        ],
        64,
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
            "--where",
            "Reputation > 1500",
            "--output",
            "names.bjf",
        ],
    )
    .ok();
    let left: Vec<User> = users().into_iter().filter(|u| u.rep > 1500).collect();
    let lrow = |u: &User| format!("{}|{}|{}", opt(u.id), u.name, u.rep);
    let rrow = |i: usize| format!("{}|{i}", who[i].as_deref().unwrap_or("NULL"));
    let hit = |u: &User, i: usize| who[i].as_deref() == Some(u.name.as_str());
    let configs: [&[&str]; 5] = [
        &["--strategy", "replicated", "--workers", "1"],
        &[
            "--strategy",
            "replicated",
            "--workers",
            "3",
            "--split-rows",
            "1",
            "--batch-size",
            "7",
        ],
        &[
            "--strategy",
            "reduce-side",
            "--workers",
            "2",
            "--reducers",
            "5",
            "--batch-size",
            "3",
        ],
        &[
            "--strategy",
            "reduce-side",
            "--workers",
            "2",
            "--no-prefilter",
        ],
        &[
            "--workers",
            "2",
            "--memory-limit",
            "8KiB",
            "--split-rows",
            "20",
            "--batch-size",
            "10",
        ],
    ];
    for jt in JOIN_TYPES {
        let mut expected = Vec::new();
        for u in &left {
            let n = (0..who.len()).filter(|&i| hit(u, i)).count();
            match jt {
                "left-semi" if n > 0 => expected.push(lrow(u)),
                "left-anti" if n == 0 => expected.push(lrow(u)),
                "left-semi" | "left-anti" | "right-semi" | "right-anti" => {}
                _ => {
                    for i in (0..who.len()).filter(|&i| hit(u, i)) {
                        expected.push(format!("{}|{}", lrow(u), rrow(i)));
                    }
                    if n == 0 && matches!(jt, "left" | "full") {
                        expected.push(format!("{}|NULL|NULL", lrow(u)));
                    }
                }
            }
        }
        for i in 0..who.len() {
            let matched = left.iter().any(|u| hit(u, i));
            match jt {
                "right" | "full" if !matched => {
                    expected.push(format!("NULL|NULL|NULL|{}", rrow(i)))
                }
                "right-semi" if matched => expected.push(rrow(i)),
                "right-anti" if !matched => expected.push(rrow(i)),
                _ => {}
            }
        }
        expected.sort();
        assert!(!expected.is_empty(), "{jt}");
        for (c, extra) in configs.iter().enumerate() {
            let out = format!("s-{jt}-{c}");
            let mut args = vec![
                "join",
                "-q",
                "--filter",
                "names.bjf",
                "--left",
                "users",
                "--left-key",
                "name",
                "--left-where",
                "Reputation > 1500",
                "--right",
                "names",
                "--right-key",
                "who",
                "--type",
                jt,
                "--output",
                &out,
            ];
            args.extend_from_slice(extra);
            run_in(d, &args).ok();
            assert_eq!(read_rows(&d.join(&out)).0, expected, "{jt} {extra:?}");
        }
    }
}

/// Regression: a reduce-side partition that fits the memory budget alone, but not next to
/// the partition another worker is reducing, waits for it instead of failing the job with
/// "needs more than the limit".
#[test]
fn reducers_wait_for_the_budget_instead_of_failing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let base = [
        "--strategy",
        "reduce-side",
        "--workers",
        "2",
        "--reducers",
        "4",
        "--batch-size",
        "16",
    ];
    let mut args = base.to_vec();
    args.extend(["--report", "big.json", "-q"]);
    join(d, "big", "inner", &args);
    let largest = report(d, "big.json")["strategy"]["build_bytes"]
        .as_u64()
        .unwrap();
    assert!(largest > 0);
    // Room for the largest partition and a half: not for two partitions of similar size.
    let limit = (largest * 3 / 2).to_string();
    for i in 0..3 {
        let out = format!("tight-{i}");
        let json = format!("{out}.json");
        let mut args = base.to_vec();
        args.extend(["--memory-limit", &limit, "--report", &json, "-q"]);
        join(d, &out, "inner", &args);
        assert_eq!(
            read_rows(&d.join(&out)).0,
            reference("inner", 1500),
            "run {i}"
        );
        let r = report(d, &json);
        assert_eq!(r["strategy"]["used"], "reduce-side");
        assert_eq!(r["strategy"]["partitions"], 4);
    }
}

/// Right rows with a null key are counted as such (`rows_dropped_null_key`), the same with
/// the prefilter under either strategy and without it; the filter's count
/// (`rows_dropped_by_filter`, and the observed FPP built on it) holds only keys it probed.
/// Before, the key tiers counted null keys as dropped by the filter, or not at all.
#[test]
fn null_right_keys_count_as_null_keys_under_every_prefilter() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_parquet(
        &d.join("l/l.parquet"),
        vec![("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef)],
        10,
    );
    let right: Vec<Option<i64>> =
        vec![Some(1), None, Some(4), None, Some(2), None, Some(1_000_000)];
    write_parquet(
        &d.join("r/r.parquet"),
        vec![
            ("k", Arc::new(Int64Array::from(right)) as ArrayRef),
            ("v", Arc::new(Int32Array::from((0..7).collect::<Vec<_>>()))),
        ],
        10,
    );
    run_in(
        d,
        &[
            "train", "-q", "--input", "l", "--column", "id", "--output", "l.bjf",
        ],
    )
    .ok();
    for (name, extra) in [
        ("filter", &["--filter", "l.bjf"][..]),
        (
            "filter reduce-side",
            &["--filter", "l.bjf", "--strategy", "reduce-side"][..],
        ),
        ("none", &["--no-prefilter"][..]),
    ] {
        let json = format!("{}.json", name.replace(' ', "-"));
        let out = format!("out-{}", name.replace(' ', "-"));
        let mut args = vec![
            "join",
            "-q",
            "--left",
            "l",
            "--left-key",
            "id",
            "--right",
            "r",
            "--right-key",
            "k",
            "--output",
            &out,
            "--report",
            &json,
        ];
        args.extend_from_slice(extra);
        run_in(d, &args).ok();
        let r = report(d, &json);
        let right = &r["right"];
        assert_eq!(right["rows_read"], 7, "{name}: {r}");
        assert_eq!(right["rows_dropped_null_key"], 3, "{name}: {r}");
        assert_eq!(r["rows_out"], 2, "{name}: {r}");
        let by_filter = right["rows_dropped_by_filter"].as_u64().unwrap();
        let by_keys = right["rows_dropped_by_keys"].as_u64().unwrap();
        // Keys 4 and 1,000,000 are not on the left: the filter or the keys drop them, or
        // (no prefilter) the join finds no match.
        assert!(by_filter + by_keys <= 2, "{name}: {r}");
        if name != "none" {
            let fp = r["prefilter"]["false_positives"].as_u64().unwrap();
            assert_eq!(by_filter + fp, 2, "{name}: {r}");
        }
    }
}

/// Without `--filter` the join builds its filter from the left side's keys in memory (as a
/// Spark runtime filter does): every join type gives the reference rows for any workers,
/// splits and batches, the Bloom and key tiers run for the types that may drop right rows,
/// and a left side that does not stay in memory joins without a prefilter and says why.
#[test]
fn a_join_without_a_filter_builds_one_from_the_left_side() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    // The left rows in memory: those with a key, for the types that drop null keys.
    let kept = users().iter().filter(|u| u.rep > 1500).count() as u64;
    let keyed = users()
        .iter()
        .filter(|u| u.rep > 1500 && u.id.is_some())
        .count() as u64;
    let mut base = vec!["join"];
    base.extend(SIDES);
    let report = |name: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(d.join(name)).unwrap()).unwrap()
    };
    for jt in JOIN_TYPES {
        let expected = reference(jt, 1500);
        for (i, extra) in [
            vec!["--workers", "1"],
            vec!["--workers", "3", "--split-rows", "1", "--batch-size", "5"],
            vec!["--workers", "2", "--filter-fpp", "0.3"],
        ]
        .into_iter()
        .enumerate()
        {
            let out = format!("b-{jt}-{i}");
            let json = format!("b-{jt}-{i}.json");
            let mut args = base.clone();
            args.extend(["--type", jt, "--output", &out, "--report", &json]);
            args.extend(extra.iter().copied());
            let summary = run_in(d, &args).ok();
            assert_eq!(read_rows(&d.join(&out)).0, expected, "{jt} {extra:?}");
            let r = report(&json);
            let p = &r["prefilter"];
            if keeps_right(jt) {
                assert_eq!(p["used"], false, "{jt}");
                assert!(p["built_from_rows"].is_null(), "{jt}");
                continue;
            }
            assert_eq!(p["used"], true, "{jt} {summary}");
            assert!(p["filter"].is_null());
            let left_rows = r["left"]["rows_mapped"].as_u64().unwrap();
            assert_eq!(p["built_from_rows"], left_rows, "{jt}");
            assert_eq!(
                left_rows,
                if matches!(jt, "inner" | "left-semi" | "right-semi") {
                    keyed
                } else {
                    kept
                },
                "{jt}"
            );
            assert_eq!(
                p["tiers"],
                serde_json::json!(["statistics", "bloom", "keys"])
            );
            assert_eq!(p["params"]["layout"], "split");
            assert!(
                r["right"]["rows_dropped_by_filter"].as_u64().unwrap() > 0,
                "{jt}"
            );
            assert!(
                summary.contains(&format!(
                    "filter built from the left side's {left_rows} rows"
                )),
                "{summary}"
            );
        }
    }
    // The same filter for any workers, splits and batches: the same bits, hence the same
    // rows dropped by it.
    let dropped: Vec<_> = (0..2)
        .map(|i| {
            let r = report(&format!("b-inner-{i}.json"));
            (
                r["prefilter"]["params"].clone(),
                r["right"]["rows_dropped_by_filter"].clone(),
            )
        })
        .collect();
    assert_eq!(dropped[0], dropped[1]);
    // A left side partitioned to disk (forced, or past --memory-limit part-way) builds the
    // filter from partials of the keys it spills, folded down from the footers' bound: the
    // same filter for any workers and any point of the switch, and the reference rows.
    let mut seen = Vec::new();
    for (i, extra) in [
        vec!["--strategy", "reduce-side", "--workers", "1"],
        vec![
            "--strategy",
            "reduce-side",
            "--workers",
            "3",
            "--split-rows",
            "1",
        ],
        vec![
            "--memory-limit",
            "4KiB",
            "--workers",
            "2",
            "--batch-size",
            "7",
        ],
    ]
    .into_iter()
    .enumerate()
    {
        let (out, json) = (format!("s-{i}"), format!("s-{i}.json"));
        let mut args = base.clone();
        args.extend(["--output", &out, "--report", &json]);
        args.extend(extra.iter().copied());
        let summary = run_in(d, &args).ok();
        assert_eq!(
            read_rows(&d.join(&out)).0,
            reference("inner", 1500),
            "{extra:?}"
        );
        let r = report(&json);
        let p = &r["prefilter"];
        assert_eq!(r["strategy"]["used"], "reduce-side", "{extra:?}");
        assert_eq!(p["used"], true, "{extra:?} {summary}");
        assert_eq!(p["built_from_rows"], keyed, "{extra:?}");
        assert_eq!(p["tiers"], serde_json::json!(["statistics", "bloom"]));
        assert!(summary.contains(&format!("filter built from the left side's {keyed} rows")));
        seen.push((
            p["params"].clone(),
            r["right"]["rows_dropped_by_filter"].clone(),
        ));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
    // Partials that would not fit --memory-limit (one per worker, and the merged one) are
    // not built: the join runs without a prefilter and says why.
    let mut args = base.clone();
    args.extend([
        "--memory-limit",
        "4KiB",
        "--workers",
        "8",
        "--filter-fpp",
        "0.0001",
        "--output",
        "s-big",
        "--report",
        "s-big.json",
    ]);
    let run = run_in(d, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("8 + 1 partial filters")
            && run.stderr.contains("would not fit --memory-limit 4.00 KiB"),
        "{}",
        run.stderr
    );
    assert_eq!(read_rows(&d.join("s-big")).0, reference("inner", 1500));
    let r = report("s-big.json");
    assert_eq!(r["prefilter"]["used"], false);
    assert!(r["prefilter"]["built_from_rows"].is_null());
    // --spark-keys reads a trained filter: without one it is ignored, and said so.
    let mut args = base.clone();
    args.extend(["--output", "b-spark", "--spark-keys", "xxhash64"]);
    let run = run_in(d, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("warning: --spark-keys says how to read a trained filter"),
        "{}",
        run.stderr
    );
    assert_eq!(read_rows(&d.join("b-spark")).0, reference("inner", 1500));
    // A rate that is no rate is refused before anything is read.
    let mut args = base.clone();
    args.extend(["--output", "b-bad", "--filter-fpp", "1.5"]);
    run_in(d, &args).fails(2, &["--filter-fpp", "1.5"]);
    assert!(!d.join("b-bad").exists());
    // One the split layout cannot reach (its blocks have a floor) is refused once the left
    // side is counted, with nothing written.
    let mut args = base.clone();
    args.extend(["--output", "b-bad", "--filter-fpp", "1e-300"]);
    run_in(d, &args).fails(2, &["--filter-fpp", "1e-300", "rows", "--filter"]);
    assert!(!d.join("b-bad").exists());
}

/// A right key sorted into runs of equal keys (each run hashed, probed and looked up once in
/// the key tiers) gives the reference's rows, and the same prefilter counts as batches of one
/// row (which have no runs), for every join type the prefilter serves, under both strategies,
/// with batches that cut runs in two.
#[test]
fn a_sorted_right_key_probed_run_by_run_gives_the_same_rows_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let mut c = comments();
    // By key, nulls last: the keyed rows in runs of about five.
    c.sort_by_key(|x| (x.user.is_none(), x.user, x.id));
    write_comments(&d.join("sorted/s.parquet"), &c, 512);
    let counts = |json: &str| {
        let r = report(d, json);
        let right = &r["right"];
        let n = |k: &str| right[k].as_u64().unwrap();
        let counts = [
            n("rows_dropped_by_filter"),
            n("rows_dropped_by_keys"),
            n("rows_dropped_null_key"),
            n("rows_skipped_by_stats"),
        ];
        assert!(counts[0] > 0, "{json}: {r}");
        counts
    };
    let run = |jt: &str, out: &str, extra: &[&str]| {
        let mut args = vec!["join", "-q", "--filter", "users.bjf"];
        args.extend(SIDES);
        let at = args.iter().position(|a| *a == "comments").unwrap();
        args[at] = "sorted";
        let json = format!("{out}.json");
        args.extend(["--type", jt, "--output", out, "--report", &json]);
        args.extend_from_slice(extra);
        run_in(d, &args).ok();
        assert_eq!(
            read_rows(&d.join(out)).0,
            reference(jt, 1500),
            "{jt} {extra:?}"
        );
        counts(&json)
    };
    for jt in ["inner", "left", "left-semi", "left-anti", "right-semi"] {
        for strategy in ["replicated", "reduce-side"] {
            let rows = run(
                jt,
                &format!("one-{jt}-{strategy}"),
                &["--strategy", strategy, "--batch-size", "1"],
            );
            for batch in ["7", "8192"] {
                let out = format!("runs-{jt}-{strategy}-{batch}");
                let extra = ["--strategy", strategy, "--batch-size", batch];
                assert_eq!(run(jt, &out, &extra), rows, "{jt} {extra:?}");
            }
        }
    }
}

/// `--compression` and `--compression-level`: every codec gives the same rows (read back by
/// arrow-rs), the parts' column chunks say which codec wrote them, and a higher level makes
/// smaller parts (Parquet does not record levels); a level a codec cannot take is an error
/// naming `--compression-level`, with nothing written.
#[test]
fn every_output_codec_gives_the_same_rows_and_says_so_in_the_parts() {
    use parquet::basic::Compression;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    join(d, "default", "inner", &["-q"]);
    let (want, _) = read_rows(&d.join("default"));
    assert!(want.len() > 100, "{}", want.len());
    let mut bytes = std::collections::HashMap::new();
    for (codec, level, expect) in [
        ("zstd", None, "ZSTD"),
        ("zstd", Some("9"), "ZSTD"),
        ("snappy", None, "SNAPPY"),
        ("gzip", None, "GZIP"),
        ("gzip", Some("1"), "GZIP"),
        ("lz4", None, "LZ4_RAW"),
        ("brotli", Some("3"), "BROTLI"),
        ("none", None, "UNCOMPRESSED"),
        ("uncompressed", None, "UNCOMPRESSED"),
    ] {
        let out = format!("out-{codec}-{}", level.unwrap_or("default"));
        // One worker: one part, the same rows in the same order whatever the codec.
        let mut extra = vec!["-q", "--workers", "1", "--compression", codec];
        if let Some(l) = level {
            extra.extend(["--compression-level", l]);
        }
        join(d, &out, "inner", &extra);
        let (rows, _) = read_rows(&d.join(&out));
        assert_eq!(rows, want, "{codec} {level:?}");
        let mut chunks = 0;
        let mut size = 0;
        for f in files_below(&d.join(&out))
            .iter()
            .filter(|f| f.ends_with(".parquet"))
        {
            let file = std::fs::File::open(d.join(&out).join(f)).unwrap();
            size += file.metadata().unwrap().len();
            let r = SerializedFileReader::new(file).unwrap();
            for rg in r.metadata().row_groups() {
                for c in rg.columns() {
                    let got: Compression = c.compression();
                    let name = format!("{got:?}");
                    assert_eq!(
                        name.split('(').next(),
                        Some(expect),
                        "{codec} {level:?} {f}"
                    );
                    chunks += 1;
                }
            }
        }
        assert!(chunks > 0, "{codec}");
        bytes.insert(out, size);
    }
    let b = |out: &str| bytes[out];
    assert!(b("out-zstd-9") < b("out-zstd-default"), "{bytes:?}");
    assert!(b("out-gzip-default") < b("out-gzip-1"), "{bytes:?}");
    assert_eq!(b("out-none-default"), b("out-uncompressed-default"));
    assert!(
        bytes.values().all(|&v| v <= b("out-none-default")),
        "{bytes:?}"
    );
    for (codec, level, needle) in [
        ("snappy", "1", "snappy has no levels"),
        ("none", "0", "none has no levels"),
        ("gzip", "10", "not a gzip level (0 to 9)"),
        ("gzip", "-1", "not a gzip level (0 to 9)"),
        ("brotli", "12", "not a brotli level (0 to 11)"),
        ("zstd", "23", "not a zstd level"),
    ] {
        let mut args = vec!["join", "--filter", "users.bjf"];
        args.extend(SIDES);
        args.extend([
            "--output",
            "refused",
            "--compression",
            codec,
            "--compression-level",
            level,
        ]);
        run_in(d, &args).fails(2, &["--compression-level", needle]);
        assert!(!d.join("refused").exists(), "{codec} {level}");
    }
    let mut args = vec!["join", "--filter", "users.bjf"];
    args.extend(SIDES);
    args.extend(["--output", "refused", "--compression", "lzo"]);
    // clap's own message, which lists the codecs.
    let r = run_in(d, &args);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("'lzo' for '--compression <CODEC>'")
            && r.stderr.contains("zstd, snappy, gzip, lz4, brotli, none"),
        "{}",
        r.stderr
    );
    assert!(!d.join("refused").exists());
}

/// Found by a black-box audit (2026-11-26): a left side that outgrows `--memory-limit` must
/// go reduce-side with partitions that fit. Two ways it failed with "partition 0 ... needs
/// more than" on keys without any skew:
/// - a left file of one row group: the partitions were sized from the rows of the row groups
///   *started*, so the side looked fully read when the budget ran out (3 partitions for a
///   side 5x the budget);
/// - string view columns (TPC-H files from tpchgen): every partition's rows, taken from a
///   batch, kept the batch's whole data buffers, spilled and counted once per partition.
#[test]
fn a_left_side_of_one_row_group_or_of_string_views_spills_into_partitions_that_fit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 20_000i64;
    let text: Vec<String> = (0..n).map(|i| format!("{i:0>120}")).collect();
    let strings: [(&str, ArrayRef); 2] = [
        (
            "left/plain.parquet",
            Arc::new(StringArray::from_iter_values(&text)),
        ),
        (
            "views/v.parquet",
            Arc::new(StringViewArray::from_iter_values(&text)),
        ),
    ];
    for (path, s) in strings {
        let k: ArrayRef = Arc::new(Int64Array::from_iter_values(0..n));
        write_parquet(&d.join(path), vec![("k", k), ("s", s)], n as usize);
    }
    write_parquet(
        &d.join("right/r.parquet"),
        vec![(
            "k",
            Arc::new(Int64Array::from_iter_values((0..2 * n).step_by(7))) as ArrayRef,
        )],
        1000,
    );
    /// The join of `left` with the right side on one worker, options to follow.
    fn one_worker(left: &str) -> Vec<&str> {
        vec![
            "join",
            "-q",
            "--left",
            left,
            "--left-key",
            "k",
            "--right",
            "right",
            "--right-key",
            "k",
            "--workers",
            "1",
        ]
    }
    let join = |left: &str, out: &str, extra: &[&str]| {
        let rep = format!("{out}.json");
        let mut args = one_worker(left);
        args.extend(["--output", out, "--report", &rep]);
        args.extend_from_slice(extra);
        run_in(d, &args).ok();
        (read_rows(&d.join(out)).0, report(d, &rep))
    };
    for left in ["left", "views"] {
        // The side is about 2.7 MiB in memory: replicated under the default budget.
        let (want, r) = join(left, &format!("{left}-mem"), &[]);
        assert_eq!(r["strategy"]["used"], "replicated");
        assert_eq!(want.len(), (n as usize).div_ceil(7));
        // auto under a budget a fifth of the side: reduce-side, enough partitions.
        let (rows, r) = join(left, &format!("{left}-auto"), &["--memory-limit", "512KiB"]);
        assert_eq!(r["strategy"]["used"], "reduce-side", "{left}: {r}");
        assert!(
            r["strategy"]["partitions"].as_u64().unwrap() >= 6,
            "{left}: {}",
            r["strategy"]
        );
        assert_eq!(rows, want, "{left}");
        // Forced reduce-side with many partitions: each holds a sixtieth of the side.
        let (rows, r) = join(
            left,
            &format!("{left}-forced"),
            &[
                "--memory-limit",
                "512KiB",
                "--strategy",
                "reduce-side",
                "--reducers",
                "60",
            ],
        );
        assert_eq!(r["strategy"]["partitions"], 60, "{left}");
        assert!(
            r["strategy"]["build_bytes"].as_u64().unwrap() < 512 << 10,
            "{left}: {}",
            r["strategy"]
        );
        assert_eq!(rows, want, "{left}");
        // Forced with too few partitions for the budget: each partition is joined in passes,
        // a chunk of its left rows at a time (it failed with "needs more than" before).
        let (rows, r) = join(
            left,
            &format!("{left}-few"),
            &[
                "--memory-limit",
                "512KiB",
                "--strategy",
                "reduce-side",
                "--reducers",
                "2",
            ],
        );
        assert_eq!(rows, want, "{left}");
        assert_eq!(r["strategy"]["partitions_in_passes"], 2, "{left}: {r}");
        assert!(r["strategy"]["max_passes"].as_u64().unwrap() >= 2, "{r}");
        assert!(
            r["strategy"]["build_bytes"].as_u64().unwrap() <= 512 << 10,
            "{left}: {}",
            r["strategy"]
        );
    }
}

/// Found by a black-box audit (2026-11-26): an output or report under a regular file failed
/// after the work (the join after its whole map stage), exit 1, naming a temporary file.
/// Now: exit 2 before any work, naming the file in the way, nothing written.
#[test]
fn an_output_or_report_under_a_file_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    std::fs::write(d.join("afile"), b"not a directory").unwrap();
    run_in(
        d,
        &[
            "train",
            "-q",
            "--input",
            "users",
            "--column",
            "Id",
            "--output",
            "afile/f.bjf",
        ],
    )
    .fails(2, &["afile/f.bjf", "afile is a file, not a directory"]);
    let mut args = vec!["join", "--filter", "users.bjf"];
    args.extend(SIDES);
    let mut out = args.clone();
    out.extend(["--output", "afile/j"]);
    run_in(d, &out).fails(2, &["afile/j", "is a file, not a directory"]);
    let mut rep = args.clone();
    rep.extend(["--output", "j", "--report", "afile/r.json"]);
    run_in(d, &rep).fails(2, &["--report", "afile is a file, not a directory"]);
    assert!(!d.join("j").exists());
    run_in(d, &["merge", "-o", "afile/m.bjf", "users.bjf", "users.bjf"])
        .fails(2, &["afile/m.bjf", "is a file, not a directory"]);
    assert_eq!(std::fs::read(d.join("afile")).unwrap(), b"not a directory");
    // A filter where a directory is, or named like one: refused too (it wrote a file
    // named `newdir`).
    std::fs::create_dir(d.join("adir")).unwrap();
    for (out, needle) in [
        ("adir", "is a directory, expected a file"),
        ("newdir/", "ends with '/'"),
    ] {
        run_in(
            d,
            &[
                "train",
                "-q",
                "--input",
                "users",
                "--column",
                "Id",
                "--output",
                out,
                "--overwrite",
            ],
        )
        .fails(2, &[out, needle]);
    }
    assert!(!d.join("newdir").exists());
}

/// Found by an audit (2026-11-26): `--report` could replace an input or the filter just
/// written and exit 0, and a join's report inside its output directory made the next run
/// refuse the directory. Each is now refused before any work (a report named `_*` inside the
/// output is fine: readers skip it); `memory://` outputs of the command line are refused
/// (nothing written there outlives the command).
#[test]
fn a_report_that_would_replace_an_input_the_filter_or_land_in_the_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let users: Vec<String> = files_below(&d.join("users"));
    let first = format!("users/{}", users[0]);
    let before = std::fs::read(d.join(&first)).unwrap();
    let train_with = |report: &str, extra: &[&str]| {
        let mut a = vec![
            "train", "-q", "--input", "users", "--column", "Id", "--output", "t.bjf", "--report",
            report,
        ];
        a.extend_from_slice(extra);
        run_in(d, &a)
    };
    train_with(&first, &[]).fails(2, &["--report", "lies inside the input users (--input)"]);
    train_with("t.bjf", &["--overwrite"]).fails(2, &["--report", "is the filter --output writes"]);
    assert_eq!(std::fs::read(d.join(&first)).unwrap(), before);
    assert!(!d.join("t.bjf").exists());
    let join_with = |report: &str| {
        let mut a = vec!["join", "-q", "--filter", "users.bjf"];
        a.extend(SIDES);
        a.extend(["--output", "j", "--report", report]);
        run_in(d, &a)
    };
    join_with("users.bjf").fails(2, &["--report", "is the input users.bjf (--filter)"]);
    join_with(&first).fails(2, &["--report", "(--left)"]);
    join_with("j/report.json").fails(2, &["--report", "lies inside the output", "leading _"]);
    assert!(!d.join("j").exists());
    join_with("j/_report.json").ok();
    // The rerun is not refused: the report's name begins with `_`.
    let mut again = vec!["join", "-q", "--filter", "users.bjf"];
    again.extend(SIDES);
    again.extend(["--output", "j", "--report", "j/_report.json", "--overwrite"]);
    run_in(d, &again).ok();
    assert_eq!(
        report(d, "j/_report.json")["rows_out"].as_u64().unwrap() as usize,
        reference("inner", 1500).len()
    );
    run_in(
        d,
        &[
            "train",
            "-q",
            "--input",
            "users",
            "--column",
            "Id",
            "--output",
            "memory:///t.bjf",
        ],
    )
    .fails(2, &["memory:///t.bjf", "ends with this command"]);
    let mut mem = vec!["join", "-q", "--filter", "users.bjf"];
    mem.extend(SIDES);
    mem.extend(["--output", "memory:///j"]);
    run_in(d, &mem).fails(2, &["memory:///j", "ends with this command"]);
}

/// A key with very many left rows used to fail a reduce-side join ("partition 0 of the left
/// side ... needs more than ... a key with very many rows?"): no number of partitions can
/// split one key. Such a partition is now joined in passes, a chunk of its left rows at a
/// time, and every join type gives the rows of a nested-loop join computed here, null keys
/// on both sides included.
#[test]
fn a_key_with_very_many_left_rows_is_joined_in_passes_for_every_join_type() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Left: 6,000 rows, 4,500 of them key 7, a few null keys; right: keys 0..40 and nulls.
    let lk: Vec<Option<i64>> = (0..6000i64)
        .map(|i| match i {
            _ if i % 97 == 0 => None,
            _ if i < 4500 => Some(7),
            _ => Some(i % 50),
        })
        .collect();
    let lv: Vec<String> = (0..6000).map(|i| format!("l{i:0>30}")).collect();
    let rk: Vec<Option<i64>> = (0..900i64)
        .map(|i| (i % 31 != 0).then_some(i % 60))
        .collect();
    let rv: Vec<i64> = (0..900).collect();
    write_parquet(
        &d.join("l/l.parquet"),
        vec![
            ("k", Arc::new(Int64Array::from(lk.clone())) as ArrayRef),
            ("lv", Arc::new(StringArray::from_iter_values(&lv))),
        ],
        1000,
    );
    write_parquet(
        &d.join("r/r.parquet"),
        vec![
            ("k", Arc::new(Int64Array::from(rk.clone())) as ArrayRef),
            ("rv", Arc::new(Int64Array::from(rv.clone()))),
        ],
        200,
    );
    let show = |k: Option<i64>| k.map_or("NULL".to_string(), |k| k.to_string());
    let left_row = |i: usize| format!("{}|{}", show(lk[i]), lv[i]);
    let right_row = |j: usize| format!("{}|{}", show(rk[j]), rv[j]);
    let matches = |i: usize, j: usize| lk[i].is_some() && lk[i] == rk[j];
    for jt in [
        "inner",
        "left",
        "left-semi",
        "left-anti",
        "right",
        "right-semi",
        "right-anti",
        "full",
    ] {
        let mut want = Vec::new();
        let (nl, nr) = (lk.len(), rk.len());
        let null_left = "NULL|NULL";
        let null_right = "NULL|NULL";
        for i in 0..nl {
            let hits: Vec<usize> = (0..nr).filter(|&j| matches(i, j)).collect();
            match jt {
                "inner" | "left" | "right" | "full" => {
                    for &j in &hits {
                        want.push(format!("{}|{}", left_row(i), right_row(j)));
                    }
                    if hits.is_empty() && matches!(jt, "left" | "full") {
                        want.push(format!("{}|{null_right}", left_row(i)));
                    }
                }
                "left-semi" if !hits.is_empty() => want.push(left_row(i)),
                "left-anti" if hits.is_empty() => want.push(left_row(i)),
                _ => {}
            }
        }
        for j in 0..nr {
            let hit = (0..nl).any(|i| matches(i, j));
            match jt {
                "right" | "full" if !hit => want.push(format!("{null_left}|{}", right_row(j))),
                "right-semi" if hit => want.push(right_row(j)),
                "right-anti" if !hit => want.push(right_row(j)),
                _ => {}
            }
        }
        want.sort();
        let out = format!("out-{jt}");
        let rep = format!("{out}.json");
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
                "--type",
                jt,
                "--strategy",
                "reduce-side",
                "--reducers",
                "3",
                "--memory-limit",
                "64KiB",
                "--workers",
                "2",
                "--batch-size",
                "500",
                "--output",
                &out,
                "--report",
                &rep,
            ],
        )
        .ok();
        assert_eq!(read_rows(&d.join(&out)).0, want, "{jt}");
        let r = report(d, &rep);
        assert!(
            r["strategy"]["max_passes"].as_u64().unwrap() >= 2,
            "{jt}: {r}"
        );
        assert!(
            r["strategy"]["build_bytes"].as_u64().unwrap() <= 64 << 10,
            "{jt}: {r}"
        );
    }
}

/// Found by an audit (2026-11-26): a dictionary column on the reduce-side path was counted,
/// and spilled, with its row group's whole dictionary once per batch and partition: a left
/// side of 86 MiB was judged "about 3.35 GiB" (reduce-side in passes under a 1 GiB budget),
/// a 4.6 MB input spilled 5.6 GB, 512 partitions, hundreds of passes. Dictionaries are now
/// compacted to the values their rows use, like string views: the same side as plain strings
/// and as a dictionary plans, spills and passes alike.
#[test]
fn a_dictionary_column_is_counted_and_spilled_by_the_values_its_rows_use() {
    use arrow::datatypes::Int32Type;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 60_000i64;
    let text: Vec<String> = (0..n).map(|i| format!("{i:0>60}")).collect();
    let plain: ArrayRef = Arc::new(StringArray::from_iter_values(&text));
    let dict: ArrayRef = Arc::new(
        text.iter()
            .map(|s| s.as_str())
            .collect::<DictionaryArray<Int32Type>>(),
    );
    for (name, s) in [("plain", plain), ("dict", dict)] {
        let k: ArrayRef = Arc::new(Int64Array::from_iter_values((0..n).map(|i| i % 5000)));
        // One row group: every batch of 1,000 rows holds the whole 60,000-value dictionary.
        write_parquet(
            &d.join(format!("{name}/l.parquet")),
            vec![("k", k), ("s", s)],
            n as usize,
        );
    }
    write_parquet(
        &d.join("r/r.parquet"),
        vec![(
            "k",
            Arc::new(Int64Array::from_iter_values((0..10_000).step_by(3))) as ArrayRef,
        )],
        1000,
    );
    let run = |left: &str, limit: &str| {
        let (out, rep) = (format!("{left}-{limit}"), format!("{left}-{limit}.json"));
        run_in(
            d,
            &[
                "join",
                "-q",
                "--left",
                left,
                "--left-key",
                "k",
                "--right",
                "r",
                "--right-key",
                "k",
                "--workers",
                "2",
                "--batch-size",
                "1000",
                "--memory-limit",
                limit,
                "--output",
                &out,
                "--report",
                &rep,
            ],
        )
        .ok();
        (
            read_rows(&d.join(&out)).0,
            report(d, &rep)["strategy"].clone(),
        )
    };
    // Under a budget a tenth of the side: reduce-side, alike for both.
    let (rows_p, p) = run("plain", "512KiB");
    let (rows_d, s) = run("dict", "512KiB");
    assert_eq!(rows_p, rows_d);
    assert_eq!(s["used"], "reduce-side", "{s}");
    let num = |v: &serde_json::Value, f: &str| v[f].as_u64().unwrap();
    assert!(
        num(&s, "partitions") <= 2 * num(&p, "partitions"),
        "{s} against {p}"
    );
    assert!(
        num(&s, "spilled_bytes") <= 2 * num(&p, "spilled_bytes"),
        "{s} against {p}"
    );
    assert!(
        num(&s, "max_passes") <= 2 * num(&p, "max_passes"),
        "{s} against {p}"
    );
    assert!(num(&s, "build_bytes") <= 512 << 10, "{s}");
    // Under a budget that holds it (the side is about 5 MiB): replicated, as plain strings.
    let (rows, s) = run("dict", "64MiB");
    assert_eq!(s["used"], "replicated", "{s}");
    assert_eq!(rows, rows_p);
}

/// The right side's selection is applied by skipping runs of rows (a projection of fewer than
/// three string columns) or by decoding every row and filtering (three or more): both must
/// give exactly the rows whose key is on the left, with plain and dictionary strings, nulls
/// and rows kept far apart (about 5 %, as a Bloom join keeps), for every strategy.
#[test]
fn wide_and_narrow_string_projections_read_the_same_rows() {
    use parquet::file::properties::WriterProperties;
    use parquet::schema::types::ColumnPath;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 6000i64;
    // Right keys scattered over 0..n; the left holds every 20th key.
    let key: Vec<i64> = (0..n).map(|i| i * 7919 % n).collect();
    let note: Vec<Option<String>> = (0..n)
        .map(|i| (i % 13 != 0).then(|| format!("note {i} {}", "x".repeat((i % 40) as usize))))
        .collect();
    let mode: Vec<&str> = (0..n)
        .map(|i| ["AIR", "RAIL", "SHIP", "MAIL"][(i % 4) as usize])
        .collect();
    let flag: Vec<Option<&str>> = (0..n)
        .map(|i| (i % 7 != 0).then_some(["A", "N", "R"][(i % 3) as usize]))
        .collect();
    let tag: Vec<String> = (0..n).map(|i| format!("tag-{}", i % 50)).collect();
    let qty: Vec<i64> = (0..n).map(|i| i * 3).collect();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(1500))
        .set_data_page_row_count_limit(300)
        // `note` in plain pages, the other strings dictionary-encoded.
        .set_column_dictionary_enabled(ColumnPath::from("note"), false)
        .build();
    crate::util::write_parquet_with(
        &d.join("right.parquet"),
        vec![
            ("k", Arc::new(Int64Array::from(key.clone())) as ArrayRef),
            ("note", Arc::new(StringArray::from(note.clone()))),
            ("mode", Arc::new(StringArray::from(mode.clone()))),
            ("flag", Arc::new(StringArray::from(flag.clone()))),
            ("tag", Arc::new(StringArray::from(tag.clone()))),
            ("qty", Arc::new(Int64Array::from(qty.clone()))),
        ],
        props,
    );
    let left: Vec<i64> = (0..n).filter(|k| k % 20 == 3).collect();
    write_parquet(
        &d.join("left.parquet"),
        vec![("id", Arc::new(Int64Array::from(left)) as ArrayRef)],
        1000,
    );
    let s = |v: Option<&str>| v.unwrap_or("NULL").to_string();
    let want: Vec<String> = {
        let mut rows: Vec<String> = (0..n as usize)
            .filter(|&i| key[i] % 20 == 3)
            .map(|i| {
                [
                    key[i].to_string(),
                    s(note[i].as_deref()),
                    mode[i].to_string(),
                    s(flag[i]),
                    tag[i].clone(),
                    qty[i].to_string(),
                ]
                .join("|")
            })
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(want.len(), 300);
    // Columns of `want` by name, for the narrow projections.
    let names = ["k", "note", "mode", "flag", "tag", "qty"];
    let project = |cols: &[&str]| {
        let at: Vec<usize> = cols
            .iter()
            .map(|c| names.iter().position(|n| n == c).unwrap())
            .collect();
        let mut rows: Vec<String> = want
            .iter()
            .map(|r| {
                let f: Vec<&str> = r.split('|').collect();
                at.iter().map(|&j| f[j]).collect::<Vec<_>>().join("|")
            })
            .collect();
        rows.sort();
        rows
    };
    for strategy in ["replicated", "reduce-side"] {
        for (i, select) in [
            "k, note, mode, flag, tag, qty",
            "k, note, mode, flag",
            "k, note, qty",
            "k, mode, tag",
            "k, qty",
        ]
        .into_iter()
        .enumerate()
        {
            let out = format!("out-{strategy}-{i}");
            let batch = if i % 2 == 0 { "8192" } else { "64" };
            run_in(
                d,
                &[
                    "join",
                    "-q",
                    "--left",
                    "left.parquet",
                    "--left-key",
                    "id",
                    "--right",
                    "right.parquet",
                    "--right-key",
                    "k",
                    "--type",
                    "right-semi",
                    "--select",
                    select,
                    "--strategy",
                    strategy,
                    "--batch-size",
                    batch,
                    "--workers",
                    "2",
                    "--output",
                    &out,
                ],
            )
            .ok();
            let cols: Vec<&str> = select.split(", ").collect();
            assert_eq!(
                read_rows(&d.join(&out)).0,
                project(&cols),
                "{strategy}: {select}"
            );
        }
    }
}

/// A side whose files have different columns (a table that gained a column, lost one, and
/// wrote them in another order) is read as the union of its columns by name: `*` gives every
/// column, with nulls where a file lacks it; a `--where` on such a column is null there (the
/// row fails a comparison, passes `IS NULL`); the same whatever the files' order, under both
/// strategies. A key column must be in every file.
#[test]
fn files_with_different_columns_are_unioned_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for sub in ["ab", "ba", "r"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    let old = || -> Vec<(&str, ArrayRef)> {
        vec![
            ("id", Arc::new(Int32Array::from(vec![1, 2, 3]))),
            ("a", Arc::new(StringArray::from(vec!["x", "y", "z"]))),
        ]
    };
    let new = || -> Vec<(&str, ArrayRef)> {
        vec![
            ("b", Arc::new(Float64Array::from(vec![Some(1.5), None]))),
            ("id", Arc::new(Int64Array::from(vec![4, 5]))),
            ("a", Arc::new(StringArray::from(vec!["u", "v"]))),
        ]
    };
    // The same two files, the old one first or last.
    write_parquet(&d.join("ab/p0.parquet"), old(), 2);
    write_parquet(&d.join("ab/p1.parquet"), new(), 2);
    write_parquet(&d.join("ba/p0.parquet"), new(), 2);
    write_parquet(&d.join("ba/p1.parquet"), old(), 2);
    write_parquet(
        &d.join("r/c.parquet"),
        vec![
            ("rid", Arc::new(Int64Array::from(vec![1, 2, 4, 5, 9]))),
            (
                "t",
                Arc::new(StringArray::from(vec!["t1", "t2", "t4", "t5", "t9"])),
            ),
        ],
        5,
    );
    let run = |left: &str, out: &str, extra: &[&str]| {
        let mut a = vec![
            "join",
            "-q",
            "--left",
            left,
            "--left-key",
            "id",
            "--right",
            "r",
            "--right-key",
            "rid",
            "--output",
            out,
        ];
        a.extend_from_slice(extra);
        run_in(d, &a).ok();
        read_rows(&d.join(out))
    };
    for left in ["ab", "ba"] {
        for strategy in ["replicated", "reduce-side"] {
            let s = ["--strategy", strategy];
            let (rows, names) = run(left, &format!("{left}-{strategy}-all"), &s);
            // The columns in the order they first appear, file by file.
            let want_names = if left == "ab" {
                ["id", "a", "b", "rid", "t"]
            } else {
                ["b", "id", "a", "rid", "t"]
            };
            assert_eq!(names, want_names, "{left} {strategy}");
            let row = |id: i64, a: &str, b: &str, t: &str| {
                if left == "ab" {
                    format!("{id}|{a}|{b}|{id}|{t}")
                } else {
                    format!("{b}|{id}|{a}|{id}|{t}")
                }
            };
            let mut want = vec![
                row(1, "x", "NULL", "t1"),
                row(2, "y", "NULL", "t2"),
                row(4, "u", "1.5", "t4"),
                row(5, "v", "NULL", "t5"),
            ];
            want.sort();
            assert_eq!(rows, want, "{left} {strategy}");

            // `b` from the file that has it; a comparison with a missing `b` fails, `IS
            // NULL` holds in both files.
            let where_ = |w: &str, out: &str| {
                let mut e = vec!["--left-where", w, "--select", "id,b"];
                e.extend_from_slice(&s);
                run(left, &format!("{left}-{strategy}-{out}"), &e).0
            };
            assert_eq!(where_("b > 1", "gt"), ["4|1.5"]);
            assert_eq!(
                where_("b IS NULL OR a = 'u'", "null"),
                ["1|NULL", "2|NULL", "4|1.5", "5|NULL"]
            );
        }
    }
    // A filter trained with the same --where holds only the passing keys.
    run_in(
        d,
        &[
            "train", "-q", "--input", "ba", "--column", "id", "--where", "b > 1", "--output",
            "f.bjf",
        ],
    )
    .ok();
    let probe = run_in(d, &["probe", "--filter", "f.bjf", "1", "2", "3", "4", "5"]).ok();
    assert_eq!(
        probe.lines().collect::<Vec<_>>(),
        ["no", "no", "no", "maybe", "no"]
    );
    // A key column missing from a file: refused, naming both files.
    run_in(
        d,
        &[
            "join",
            "--left",
            "ab",
            "--left-key",
            "b",
            "--right",
            "r",
            "--right-key",
            "rid",
            "--output",
            "bad",
        ],
    )
    .fails(
        2,
        &[
            "ab/p0.parquet",
            "\"b\"",
            "ab/p1.parquet has",
            "in every file",
        ],
    );
    assert!(!d.join("bad").exists());
    run_in(
        d,
        &[
            "train", "--input", "ab", "--column", "b", "--output", "bad.bjf",
        ],
    )
    .fails(
        2,
        &[
            "ab/p0.parquet",
            "\"b\"",
            "ab/p1.parquet has",
            "in every file",
        ],
    );
    assert!(!d.join("bad.bjf").exists());
    // A column in no file is still an error.
    run_in(
        d,
        &[
            "join",
            "--left",
            "ab",
            "--left-key",
            "id",
            "--right",
            "r",
            "--right-key",
            "rid",
            "--left-where",
            "nope = 1",
            "--output",
            "bad",
        ],
    )
    .fails(2, &["\"nope\"", "no such column"]);
}

/// `join` of the sample's users (key `Id`) and comments (key `UserId`) into `out`, then
/// `extra`.
fn sample_join_args(out: &str, extra: &[&str]) -> Vec<String> {
    let sample = root().join("data/sample");
    let (users, comments) = (sample.join("users"), sample.join("comments"));
    let mut args: Vec<String> = ["join", "--left"].map(String::from).to_vec();
    args.push(users.to_str().unwrap().into());
    args.extend(["--left-key", "Id", "--right"].map(String::from));
    args.push(comments.to_str().unwrap().into());
    args.extend(["--right-key", "UserId", "--output", out].map(String::from));
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// `args` as the `&str`s `run_in` takes.
fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// The files of an output, below `out` (`.parquet` names, partition directories included),
/// each with its rows and the rows of each of its row groups.
fn output_files(out: &Path) -> Vec<(String, u64, Vec<u64>)> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    files_below(out)
        .into_iter()
        .filter(|f| f.ends_with(".parquet") && !f.starts_with('_'))
        .map(|f| {
            let r = SerializedFileReader::new(std::fs::File::open(out.join(&f)).unwrap()).unwrap();
            let groups: Vec<u64> = r
                .metadata()
                .row_groups()
                .iter()
                .map(|g| g.num_rows() as u64)
                .collect();
            (f, groups.iter().sum(), groups)
        })
        .collect()
}

/// `--max-rows-per-file`, `--max-file-size`, `--row-group-rows` and `--row-group-size` (Spark's
/// maxRecordsPerFile and parquet.block.size, DuckDB's FILE_SIZE_BYTES and ROW_GROUP_SIZE):
/// under both strategies, with and without `--partition-by`, the output holds the same rows
/// as without them, in files and row groups within the limits, named `part-NNNNN-<run>` and
/// then `part-NNNNN-K-<run>`, every one listed in `_SUCCESS` and counted in the report's
/// `parts`. A limit that is not a positive number is refused naming its option, exit 2,
/// nothing written.
#[test]
fn bounded_files_and_row_groups_hold_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = |out: &str, extra: &[&str]| {
        sample_join_args(
            out,
            &[&["--left-where", "Reputation > 1500"], extra].concat(),
        )
    };
    let join = |out: &str, extra: &[&str]| run_in(d, &strs(&args(out, extra))).ok();
    for strategy in ["replicated", "reduce-side"] {
        for partition in [None, Some("Location")] {
            let mut base = vec!["-q", "--strategy", strategy];
            if let Some(p) = partition {
                base.extend(["--partition-by", p]);
            }
            let plain = format!("plain-{strategy}-{}", partition.is_some());
            join(&plain, &base);
            let (want, _) = read_rows(&d.join(&plain));
            assert_eq!(want.len(), 18_635);
            let plain_files = output_files(&d.join(&plain)).len();
            for (limits, max_rows, max_group) in [
                (&["--max-rows-per-file", "2000"][..], Some(2000), None),
                (&["--row-group-rows", "1000"][..], None, Some(1000)),
                (
                    &["--max-rows-per-file", "1500", "--row-group-rows", "400"][..],
                    Some(1500),
                    Some(400),
                ),
                (&["--max-file-size", "64KiB"][..], None, None),
                (&["--row-group-size", "16KiB"][..], None, None),
            ] {
                let out = format!("{plain}-{}", limits.join("").replace("--", "-"));
                let mut extra = base.clone();
                extra.extend_from_slice(limits);
                extra.extend(["--report", "r.json"]);
                join(&out, &extra);
                let what = format!("{strategy} {partition:?} {limits:?}");
                assert_eq!(read_rows(&d.join(&out)).0, want, "{what}");
                let files = output_files(&d.join(&out));
                if let Some(m) = max_rows {
                    assert!(files.iter().all(|(_, n, _)| *n <= m), "{what}: {files:?}");
                }
                if let Some(g) = max_group {
                    assert!(
                        files.iter().all(|(_, _, gs)| gs.iter().all(|n| *n <= g)),
                        "{what}: {files:?}"
                    );
                }
                if limits[0] == "--row-group-size" || limits[0] == "--row-group-rows" {
                    // Row groups, not files: as many files as without the limit.
                    assert_eq!(files.len(), plain_files, "{what}");
                    let groups: usize = files.iter().map(|(_, _, g)| g.len()).sum();
                    assert!(groups > files.len(), "{what}: {files:?}");
                } else if partition.is_none() || max_rows.is_some() {
                    // (Partition directories hold too few bytes each for a size limit.)
                    assert!(files.len() > plain_files, "{what}: {files:?}");
                }
                // Each task's files in a directory: part-NNNNN, then part-NNNNN-1, -2, ...
                let mut tasks: std::collections::BTreeMap<(String, String), Vec<usize>> =
                    Default::default();
                for (f, _, _) in &files {
                    let (dir, name) = f.rsplit_once('/').unwrap_or(("", f));
                    let stem = name.strip_prefix("part-").unwrap().strip_suffix(".parquet");
                    let fields: Vec<&str> = stem.unwrap().split('-').collect();
                    let (task, k, run) = match fields.as_slice() {
                        [task, run] => (task, 0, run),
                        [task, k, run] => (task, k.parse().unwrap(), run),
                        _ => panic!("{what}: {f}"),
                    };
                    assert!(task.len() == 5 && run.len() == 32, "{what}: {f}");
                    tasks
                        .entry((dir.to_string(), task.to_string()))
                        .or_default()
                        .push(k);
                }
                for (task, mut ks) in tasks {
                    ks.sort();
                    assert_eq!(ks, (0..ks.len()).collect::<Vec<_>>(), "{what}: {task:?}");
                }
                let success: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(d.join(&out).join("_SUCCESS")).unwrap())
                        .unwrap();
                let mut listed: Vec<&str> = success["parts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p.as_str().unwrap())
                    .collect();
                listed.sort();
                let mut found: Vec<&str> = files.iter().map(|(f, _, _)| f.as_str()).collect();
                found.sort();
                assert_eq!(listed, found, "{what}");
                let report: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
                assert_eq!(report["parts"].as_u64(), Some(files.len() as u64), "{what}");
            }
        }
    }
    for (option, value, needle) in [
        (
            "--max-rows-per-file",
            "0",
            "--max-rows-per-file: must be at least 1",
        ),
        (
            "--row-group-rows",
            "0",
            "--row-group-rows: must be at least 1",
        ),
        (
            "--max-file-size",
            "0",
            "--max-file-size: \"0\" must be positive",
        ),
        (
            "--max-file-size",
            "12XB",
            "--max-file-size: \"12XB\" has an unknown unit",
        ),
        (
            "--row-group-size",
            "big",
            "--row-group-size: \"big\" is not a size",
        ),
    ] {
        run_in(d, &strs(&args("refused", &[option, value]))).fails(2, &[needle]);
        assert!(!d.join("refused").exists(), "{option} {value}");
    }
}

/// The README's `--max-rows-per-file` example runs as written: its rows, and the names it
/// lists (`<run-id>` standing for the run's id), each file within the limit.
#[test]
fn readme_bounded_files_example_is_true() {
    let block = crate::util::readme_block("- Row groups and files (job keys");
    let dir = crate::util::readme_dir();
    let mut lines = block.iter().map(String::as_str);
    let cmd = lines.next().unwrap();
    let (_, max) = cmd.split_once("--max-rows-per-file ").unwrap();
    let max: u64 = max.split_whitespace().next().unwrap().parse().unwrap();
    let out = crate::util::run_readme_line(dir.path(), cmd);
    let (head, _) = lines.next().unwrap().split_once(" rows, ").unwrap();
    assert!(out.contains(&format!("{head} rows, ")), "{out}");
    let ls = lines.next().unwrap().strip_prefix("$ ls ").unwrap();
    let files = output_files(&dir.path().join(ls));
    let run = {
        let (name, _, _) = &files[0];
        let stem = name.strip_suffix(".parquet").unwrap();
        stem.rsplit_once('-').unwrap().1.to_string()
    };
    let mut listed = std::fs::read_dir(dir.path().join(ls))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect::<Vec<_>>();
    listed.sort();
    let mut checked = 0;
    for name in lines.filter(|l| *l != "...") {
        let name = name.replace("<run-id>", &run);
        assert!(listed.contains(&name), "{name:?} not in {listed:?}");
        checked += 1;
    }
    assert_eq!(checked, 3);
    assert!(files.iter().all(|(_, n, _)| *n <= max), "{files:?}");
    assert_eq!(
        files.iter().map(|(_, n, _)| n).sum::<u64>().to_string(),
        head.trim().trim_start_matches("output ").to_string()
    );
}

/// On S3 (moto) a part's files are all committed (and uploaded as each completes, through a
/// local temporary file that is removed), hold the rows of the local run, and an
/// `--overwrite` run without limits leaves none of them behind.
#[test]
fn bounded_files_on_s3() {
    let s3 = crate::util::S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = |out: &str, extra: &[&str]| sample_join_args(out, &[&["-q"], extra].concat());
    let run =
        |a: Vec<String>, env: &[(String, String)]| crate::util::run_env(d, &strs(&a), env).ok();
    s3.python("s3.create_bucket(Bucket='lake')");
    run(args("local", &[]), &[]);
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut env = s3.env();
    env.push(("TMPDIR".into(), tmp.to_str().unwrap().into()));
    let bounded = ["--max-rows-per-file", "7000", "--workers", "2"];
    run(args("s3://lake/out", &bounded), &env);
    let keys = s3.keys("lake", "out/");
    let parts: Vec<&String> = keys.iter().filter(|k| k.ends_with(".parquet")).collect();
    // 2 workers' parts of about 50,000 rows each: 8 files or more.
    assert!(parts.len() >= 8, "{keys:?}");
    assert!(
        parts.iter().any(|k| k.starts_with("out/part-00000-1-")),
        "{keys:?}"
    );
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "temporary files left"
    );
    s3.download("lake", "out", &d.join("remote"));
    assert_eq!(
        read_rows(&d.join("remote")).0,
        read_rows(&d.join("local")).0
    );
    assert!(output_files(&d.join("remote"))
        .iter()
        .all(|(_, n, _)| *n <= 7000));
    run(
        args("s3://lake/out", &["--overwrite", "--workers", "2"]),
        &env,
    );
    let keys = s3.keys("lake", "out/");
    let parts: Vec<&String> = keys.iter().filter(|k| k.ends_with(".parquet")).collect();
    assert_eq!(parts.len(), 2, "{keys:?}");
}

/// `//` of two integer columns in `--join-where` truncates, as DuckDB's `//` of BIGINTs: a
/// comment id below the user's reputation gives 0, a larger one 1 or more. (The fuzzer's
/// DuckDB text once cast both operands to DECIMAL(38,0), whose `//` DuckDB computes as the
/// DOUBLE quotient, 71 // 4989 = 0.0142..., and took bloomjoin's answer for wrong: seed
/// 9201, join case 23.)
#[test]
fn integer_division_of_two_columns_in_a_join_condition_truncates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train_at(d, "0.2");
    let expected = reference_on("inner", 1500, false, |a, b| b.id / a.rep == 0);
    assert!(!expected.is_empty());
    assert_ne!(expected, reference("inner", 1500));
    // A DOUBLE quotient is 0 for no pair: the rows would all be gone.
    join(
        d,
        "idiv",
        "inner",
        &["--join-where", "right.Id // left.Reputation = 0", "-q"],
    );
    assert_eq!(read_rows(&d.join("idiv")).0, expected);
}

/// `--join-where`: pairs of equal keys match only where the condition holds, for every join
/// type, under both strategies (reduce-side in passes too), any workers, splits and batches,
/// with and without the prefilter; with `--nulls-equal`, a null in the condition is false.
#[test]
fn join_where_is_part_of_the_match_for_every_join_type_and_strategy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train_at(d, "0.2");
    let configs: [&[&str]; 7] = [
        &["--strategy", "replicated", "--workers", "1"],
        &[
            "--strategy",
            "replicated",
            "--workers",
            "3",
            "--split-rows",
            "1",
            "--batch-size",
            "5",
        ],
        &["--strategy", "replicated", "--no-prefilter"],
        &[
            "--strategy",
            "reduce-side",
            "--workers",
            "2",
            "--reducers",
            "3",
            "--batch-size",
            "7",
        ],
        // The left side outgrows the budget: reduce-side.
        &[
            "--workers",
            "2",
            "--memory-limit",
            "8KiB",
            "--batch-size",
            "10",
            "--split-rows",
            "30",
        ],
        &[
            "--strategy",
            "reduce-side",
            "--no-prefilter",
            "--workers",
            "1",
        ],
        // A budget no partition fits: every partition joined in passes, a spilled batch of
        // left rows at a time.
        &[
            "--strategy",
            "reduce-side",
            "--memory-limit",
            "100",
            "--reducers",
            "2",
            "--batch-size",
            "10",
        ],
    ];
    // A comment id above the user's reputation, and a conjunct on one side alone: the text
    // of the comment (pushed into the right side's where where right rows are not all kept),
    // or the user's reputation (into the left side's where, where left rows are not all
    // kept). The users of reputation 3000 and more keep no pair.
    struct Case {
        cond: &'static str,
        on: fn(&User, &Comment) -> bool,
        /// The conjunct on one side, as the report prints it, its side, and what it keeps.
        pushed: &'static str,
        side: &'static str,
        keeps: fn(&User, &Comment) -> bool,
    }
    let cases = [
        Case {
            cond: "right.Id > left.Reputation AND NOT Text LIKE 'c1%'",
            on: |a, b| b.id > a.rep && !b.text.starts_with("c1"),
            pushed: "NOT Text LIKE 'c1%'",
            side: "right",
            keeps: |_, b| !b.text.starts_with("c1"),
        },
        Case {
            cond: "(left.Reputation < 3000) AND right.Id > left.Reputation",
            on: |a, b| a.rep < 3000 && b.id > a.rep,
            pushed: "left.Reputation < 3000",
            side: "left",
            keeps: |a, _| a.rep < 3000,
        },
    ];
    for (c, case) in cases.iter().enumerate() {
        for jt in JOIN_TYPES {
            let expected = reference_on(jt, 1500, false, case.on);
            // The condition changes the result (it rules out some pairs of equal keys).
            assert_ne!(expected, reference(jt, 1500), "{jt}");
            let pushed = match case.side {
                "right" => !keeps_right(jt),
                _ => !matches!(jt, "left" | "full" | "left-anti"),
            };
            for (i, extra) in configs.iter().enumerate() {
                // The left pushdown under three configurations is enough.
                if c == 1 && ![0, 3, 6].contains(&i) {
                    continue;
                }
                let out = format!("w-{c}-{jt}-{i}");
                let json = format!("{out}.json");
                let mut args = extra.to_vec();
                args.extend(["--join-where", case.cond, "-q", "--report", &json]);
                join(d, &out, jt, &args);
                assert_eq!(read_rows(&d.join(&out)).0, expected, "{jt} {extra:?}");
                let r = report(d, &json);
                if i == 6 {
                    assert!(r["strategy"]["max_passes"].as_u64().unwrap() > 2, "{r}");
                }
                let w = &r["join_where"];
                assert_eq!(w["condition"], case.cond);
                let (to, other) = match case.side {
                    "right" => ("pushed_to_right", "pushed_to_left"),
                    _ => ("pushed_to_left", "pushed_to_right"),
                };
                assert_eq!(w[other], serde_json::json!([]), "{jt}");
                match pushed {
                    true => assert_eq!(w[to], serde_json::json!([case.pushed]), "{jt}"),
                    false => assert_eq!(w[to], serde_json::json!([]), "{jt}"),
                }
                // Every pair of matching keys (whose rows the pushed conjunct keeps) is tested
                // once, however the join runs; a right row whose pairs all fail is unmatched
                // for the condition, not a false positive of the filter.
                let before = |a: &User, b: &Comment| !pushed || (case.keeps)(a, b);
                let count = |jt: &str, on: &dyn Fn(&User, &Comment) -> bool| {
                    reference_on(jt, 1500, false, on).len() as u64
                };
                assert_eq!(w["pairs_tested"], count("inner", &before), "{jt} {extra:?}");
                assert_eq!(
                    w["pairs_passed"],
                    count("inner", &case.on),
                    "{jt} {extra:?}"
                );
                assert_eq!(
                    w["right_rows_failed"],
                    count("right-semi", &before) - count("right-semi", &case.on),
                    "{jt} {extra:?}"
                );
                if jt == "inner" && c == 0 {
                    // The same as the pushed conjunct written as --right-where: the same
                    // rows, prefilter counters and rows dropped by where.
                    let plain = format!("p-{i}");
                    let mut args = extra.to_vec();
                    args.extend([
                        "-q",
                        "--report",
                        &plain,
                        "--right-where",
                        case.pushed,
                        "--join-where",
                        "right.Id > left.Reputation",
                    ]);
                    join(d, &format!("{plain}-out"), jt, &args);
                    assert_eq!(read_rows(&d.join(format!("{plain}-out"))).0, expected);
                    let p = report(d, &plain);
                    assert_eq!(r["prefilter"], p["prefilter"], "{extra:?}");
                    assert_eq!(r["right"], p["right"], "{extra:?}");
                    assert_eq!(p["join_where"]["pushed_to_right"], serde_json::json!([]));
                }
            }
        }
    }
    // --nulls-equal: null ids meet, and `left.Id < right.Id` is null for them: no match.
    for jt in ["inner", "left", "right-anti", "full"] {
        let expected = reference_on(jt, 1500, true, |a, b| a.id.is_some_and(|id| id < b.id));
        assert_ne!(expected, reference_on(jt, 1500, true, |_, _| true), "{jt}");
        for (i, strategy) in ["replicated", "reduce-side"].iter().enumerate() {
            let out = format!("n-{jt}-{i}");
            let args = [
                "--nulls-equal",
                "--strategy",
                strategy,
                "--join-where",
                "left.Id < right.Id",
                "-q",
            ];
            join(d, &out, jt, &args);
            assert_eq!(read_rows(&d.join(&out)).0, expected, "{jt} {strategy}");
        }
    }
}

/// `--join-where` names what is wrong with it, in one line, before anything is written; the
/// dry run shows it.
#[test]
fn join_where_errors_and_dry_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let with = |cond: &str, out: &str| {
        let mut a = vec!["join", "--filter", "users.bjf"];
        a.extend(SIDES);
        a.extend(["--output", out, "--join-where", cond]);
        run_in(d, &a)
    };
    with("Id > 3", "e1").fails(2, &["--join-where", "\"Id\" is on both sides", "left.Id"]);
    with("left.Text > 'a'", "e2").fails(2, &["--join-where", "no left column \"Text\""]);
    with("right.Reputation > 1", "e3").fails(2, &["--join-where", "no right column"]);
    with("userid > 1", "e4").fails(2, &["--join-where", "either side", "UserId"]);
    // A conjunct on one side alone is checked before it joins that side's where.
    let e = with("name > 3 AND right.Id > left.Reputation", "e5")
        .fails(2, &["--join-where \"name > 3\"", "cannot compare"]);
    assert!(!e.contains("--left-where"), "{e}");
    with("right.Id >", "e6").fails(2, &["--join-where"]);
    for o in ["e1", "e2", "e3", "e4", "e5", "e6"] {
        assert!(!d.join(o).exists(), "{o}");
    }
    let mut a = vec!["join", "--filter", "users.bjf"];
    a.extend(SIDES);
    a.extend([
        "--output",
        "dry",
        "--join-where",
        "right.Id > left.Reputation AND (Text LIKE 'c%')",
        "--dry-run=json",
    ]);
    let plan: serde_json::Value = serde_json::from_str(&run_in(d, &a).ok()).unwrap();
    assert_eq!(
        plan["join_where"],
        serde_json::json!({
            "condition": "right.Id > left.Reputation AND (Text LIKE 'c%')",
            "pushed_to_left": [],
            "pushed_to_right": ["Text LIKE 'c%'"],
            "on_pairs": "right.Id > left.Reputation",
        })
    );
    a.pop();
    a.push("--dry-run");
    let text = run_in(d, &a).ok();
    for line in [
        "\"right.Id > left.Reputation\" (--join-where) on each pair of matching keys",
        "\"Text LIKE 'c%'\" (--join-where, on right columns alone) into the right side's where",
    ] {
        assert!(text.contains(line), "{text}");
    }
    assert!(!d.join("dry").exists());
}

/// The README's `--join-where` examples: 4,347 pairs (DuckDB's count of the same `ON`), each
/// with a comment score above its user's up-votes; and 32,390 comments (DuckDB's count of
/// `ON l.Id = r.UserId AND r.CreationDate < l.CreationDate + INTERVAL '30 days'`), each
/// within 30 days of its user's creation.
#[test]
fn readme_functions_example_is_true() {
    let (dir, _) = crate::util::run_readme_example("Deutschland in any case (165 rows");
    let (rows, names) = read_rows(&dir.path().join("out/first_year_comments"));
    assert_eq!(rows.len(), 165);
    assert_eq!(names, ["Id", "Location", "joined", "commented"]);
    for r in &rows {
        let f: Vec<&str> = r.rsplitn(3, '|').collect();
        let (location, joined, commented) = (f[2], f[1], f[0]);
        assert!(location.to_lowercase().contains("deutschland"), "{r}");
        assert_eq!(joined[..4], commented[..4], "{r}");
    }
}

/// The README's string functions example: 248 comments (DuckDB's count of the same query),
/// each by a user in "Москва, Россия", the one location whose part after its comma is Россия.
#[test]
fn readme_string_functions_example_is_true() {
    let (dir, _) = crate::util::run_readme_example("after its comma is Россия (248");
    let (rows, names) = read_rows(&dir.path().join("out/thanks_from_russia"));
    assert_eq!(rows.len(), 248);
    assert_eq!(names, ["Id", "Location", "comment"]);
    for r in &rows {
        let f: Vec<&str> = r.split('|').collect();
        assert_eq!(f[1], "Москва, Россия", "{r}");
    }
}

/// The README's regular expression example: 434 comments (DuckDB's count of the same query),
/// each by a user in one of the three states and naming Java as a word.
#[test]
fn readme_regular_expression_example_is_true() {
    let (dir, _) = crate::util::run_readme_example("Washington state, whose location ends");
    let (rows, names) = read_rows(&dir.path().join("out/java_in_three_states"));
    assert_eq!(rows.len(), 434);
    assert_eq!(names, ["Id", "Location", "comment", "Text"]);
    for r in &rows {
        let f: Vec<&str> = r.splitn(4, '|').collect();
        assert!(
            [", CA", ", NY", ", WA"].iter().any(|s| f[1].ends_with(s)),
            "{r}"
        );
        let text = f[3].to_ascii_lowercase();
        assert!(
            text.match_indices("java").any(|(at, _)| {
                let word =
                    |c: Option<&u8>| c.is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
                !word(at.checked_sub(1).and_then(|i| text.as_bytes().get(i)))
                    && !word(text.as_bytes().get(at + 4))
            }),
            "{r}"
        );
    }
}

#[test]
fn readme_remainder_and_cast_example_is_true() {
    let (dir, _) = crate::util::run_readme_example("A deterministic one-in-ten sample");
    let (rows, names) = read_rows(&dir.path().join("out/sample_noon_comments"));
    assert_eq!(rows.len(), 330);
    assert_eq!(names, ["Id", "comment", "CreationDate"]);
    for r in &rows {
        let f: Vec<&str> = r.splitn(3, '|').collect();
        let id: i64 = f[0].parse().unwrap();
        assert_eq!(id % 10, 0, "{r}");
        assert_eq!(&f[2][10..14], "T12:", "{r}");
    }
}

#[test]
fn readme_join_where_example_is_true() {
    let (dir, _) = crate::util::run_readme_example("- `--join-where EXPR` (job key");
    let (rows, names) = read_rows(&dir.path().join("out/first_month_comments"));
    assert_eq!(rows.len(), 32390);
    assert_eq!(names, ["Id", "DisplayName", "joined", "commented"]);
    // Milliseconds since the epoch of `YYYY-MM-DD HH:MM:SS[.fff]` (days from the civil
    // date by Howard Hinnant's algorithm).
    let ms = |s: &str| -> i64 {
        let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
        let mut n: Vec<i64> = whole
            .split(['-', ' ', 'T', ':'])
            .map(|x| x.parse().unwrap_or_else(|e| panic!("{s}: {e}")))
            .collect();
        n.push(format!("{frac:0<3}")[..3].parse().unwrap());
        let (y, m, d) = (n[0] - i64::from(n[1] <= 2), n[1], n[2]);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
        let days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
        ((days * 24 + n[3]) * 60 + n[4]) * 60_000 + n[5] * 1000 + n[6]
    };
    assert_eq!(ms("1970-01-02T00:00:01.5"), 86_401_500);
    assert_eq!(ms("2000-03-01 00:00:00"), 951_868_800_000);
    for r in &rows {
        let f: Vec<&str> = r.rsplitn(3, '|').collect();
        let (joined, commented) = (ms(f[1]), ms(f[0]));
        assert!(commented < joined + 30 * 86_400_000, "{r}");
    }
    let (rows, names) = read_rows(&dir.path().join("out/comments_over_upvotes"));
    assert_eq!(rows.len(), 4347);
    // UpVotes is the sixth column, Score the last (a comment's text may hold a `|`).
    assert_eq!(names[5], "UpVotes");
    assert_eq!(names.last().unwrap(), "Score");
    for r in &rows {
        let up = r.split('|').nth(5).unwrap();
        let score = r.rsplit('|').next().unwrap();
        assert!(
            score.parse::<i64>().unwrap() > up.parse::<i64>().unwrap(),
            "{r}"
        );
    }
}

#[test]
fn readme_division_example_is_true() {
    let (dir, _) = crate::util::run_readme_example("The comments of the users who gave more");
    let (rows, names) = read_rows(&dir.path().join("out/sample_voters"));
    assert_eq!(rows.len(), 61021);
    assert_eq!(names, ["Id", "UpVotes", "Reputation", "comment"]);
    for r in &rows {
        let f: Vec<f64> = r.split('|').map(|v| v.parse().unwrap()).collect();
        assert!(f[1] / f[2] > 0.5, "{r}");
    }
}

#[test]
fn readme_rounding_example_is_true() {
    let (dir, _) = crate::util::run_readme_example("The comments of the users with a four-digit");
    let (rows, names) = read_rows(&dir.path().join("out/sample_rounded"));
    assert_eq!(rows.len(), 5879);
    assert_eq!(names, ["Id", "UpVotes", "Reputation", "comment"]);
    for r in &rows {
        let f: Vec<f64> = r.split('|').map(|v| v.parse().unwrap()).collect();
        assert!((1000.0..10000.0).contains(&f[2]), "{r}");
        // Rounded to two digits, at least 0.1: no ratio near the 0.095 tie in the sample.
        assert!(f[1] / f[2] >= 0.095, "{r}");
    }
}

#[test]
fn readme_guarded_cast_example_is_true() {
    let (dir, runs) =
        crate::util::run_readme_example("The users' comments that start with a positive");
    let (rows, names) = read_rows(&dir.path().join("out/sample_upvotes"));
    assert_eq!(rows.len(), 1693);
    assert_eq!(names, ["Id", "comment", "Text"]);
    for r in &rows {
        let text = r.splitn(3, '|').nth(2).unwrap();
        let first = text.split(' ').next().unwrap();
        assert!(
            first.trim_start_matches('+').parse::<i64>().unwrap() > 0,
            "{r}"
        );
    }
    // Without the guard, the cast fails on the texts that hold no number: one line, exit
    // 2, nothing committed.
    let line = &runs[0].0;
    let unguarded = line.replace("regexp_matches(Text, '^[+-]?[0-9]+ ') AND ", "");
    assert_ne!(&unguarded, line);
    let args = crate::composite_keys::shell_words(unguarded.strip_prefix("$ bloomjoin ").unwrap())
        .into_iter()
        .map(|a| a.replace("out/sample_upvotes", "out/unguarded"))
        .collect::<Vec<_>>();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = crate::util::run_in(dir.path(), &args);
    out.fails(
        2,
        &[
            "--right-where",
            "regexp_extract() holds '', which is not a number",
        ],
    );
    assert!(!dir.path().join("out/unguarded/_SUCCESS").exists());
}
