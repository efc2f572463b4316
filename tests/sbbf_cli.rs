//! Parquet's own split-block Bloom filters (issue 15): the filters the join and datagen write,
//! SBBF pruning of right row groups, and SBBFs as filters of ours.

use std::path::Path;

use parquet::bloom_filter::Sbbf;
use parquet::file::reader::{FileReader, SerializedFileReader};

use crate::join_cli::{fixture, train};
use crate::util::{files_below, read_rows, root, run_in};

/// The Parquet parts below `dir` (final names, no `_temporary`).
fn parts(dir: &Path) -> Vec<std::path::PathBuf> {
    files_below(dir)
        .into_iter()
        .filter(|f| f.ends_with(".parquet") && !f.starts_with('_'))
        .map(|f| dir.join(f))
        .collect()
}

/// Per row group of `file`: the SBBF of each column (by name), or `None`.
fn sbbfs(file: &Path) -> Vec<Vec<(String, Option<Sbbf>)>> {
    let reader = SerializedFileReader::new_with_options(
        std::fs::File::open(file).unwrap(),
        parquet::file::serialized_reader::ReadOptionsBuilder::new()
            .with_reader_properties(
                parquet::file::properties::ReaderProperties::builder()
                    .set_read_bloom_filter(true)
                    .build(),
            )
            .build(),
    )
    .unwrap();
    let meta = reader.metadata().clone();
    (0..meta.num_row_groups())
        .map(|rg| {
            let group = reader.get_row_group(rg).unwrap();
            (0..meta.row_group(rg).num_columns())
                .map(|c| {
                    (
                        meta.row_group(rg).column(c).column_path().string(),
                        group.get_column_bloom_filter(c).cloned(),
                    )
                })
                .collect()
        })
        .collect()
}

#[test]
fn join_writes_sbbfs_on_the_key_columns_by_default_and_on_the_columns_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let base = [
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
        "-q",
    ];
    let join = |out: &str, extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(&["--output", out]);
        args.extend_from_slice(extra);
        run_in(d, &args).ok();
    };
    join("keys", &[]);
    let (rows, names) = read_rows(&d.join("keys"));
    assert!(!rows.is_empty());
    let mut groups = 0;
    for part in parts(&d.join("keys")) {
        for group in sbbfs(&part) {
            groups += 1;
            for (col, f) in &group {
                let want = matches!(col.as_str(), "Id" | "UserId");
                assert_eq!(f.is_some(), want, "{part:?} {col}");
            }
        }
    }
    assert!(groups > 0);
    // Every value written is "maybe" in its part's filter (Id is INT64, UserId INT32: the
    // filter hashes each as its physical type).
    let id = names.iter().position(|n| n == "Id").unwrap();
    let user = names.iter().position(|n| n == "UserId").unwrap();
    for part in parts(&d.join("keys")) {
        let (rows, _) = read_rows_of(&part);
        let groups = sbbfs(&part);
        if groups.is_empty() {
            assert!(rows.is_empty(), "{part:?}");
            continue;
        }
        let get = |g: &Vec<(String, Option<Sbbf>)>, n: &str| {
            g.iter().find(|(c, _)| c == n).unwrap().1.clone().unwrap()
        };
        let filters: Vec<(Sbbf, Sbbf)> = groups
            .iter()
            .map(|g| (get(g, "Id"), get(g, "UserId")))
            .collect();
        for r in rows {
            let v: Vec<&str> = r.split('|').collect();
            let (a, b) = (
                v[id].parse::<i64>().unwrap(),
                v[user].parse::<i32>().unwrap(),
            );
            assert!(filters.iter().any(|(fid, _)| fid.check(&a)), "{r}");
            assert!(filters.iter().any(|(_, fuser)| fuser.check(&b)), "{r}");
        }
    }

    join("text", &["--bloom-columns", "Text", "--bloom-fpp", "0.001"]);
    for part in parts(&d.join("text")) {
        for group in sbbfs(&part) {
            for (col, f) in &group {
                assert_eq!(f.is_some(), col == "Text", "{part:?} {col}");
            }
        }
    }
    join("none", &["--bloom-columns", "none"]);
    for part in parts(&d.join("none")) {
        assert!(sbbfs(&part).iter().flatten().all(|(_, f)| f.is_none()));
    }
    // Same rows whatever the filters.
    assert_eq!(read_rows(&d.join("text")).0, rows);
    assert_eq!(read_rows(&d.join("none")).0, rows);

    // Bad input: one line, exit 2, nothing written.
    let mut args = base.to_vec();
    args.extend_from_slice(&["--output", "bad", "--bloom-columns", "Id,Nope"]);
    run_in(d, &args).fails(2, &["--bloom-columns", "\"Nope\"", "output column"]);
    assert!(!d.join("bad").join("_SUCCESS").exists());
    let mut args = base.to_vec();
    args.extend_from_slice(&["--output", "bad", "--bloom-fpp", "2"]);
    run_in(d, &args).fails(2, &["--bloom-fpp"]);
}

/// The rows of one Parquet file.
fn read_rows_of(file: &Path) -> (Vec<String>, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(file, tmp.path().join("one.parquet")).unwrap();
    read_rows(tmp.path())
}

#[test]
fn datagen_writes_sbbfs_on_the_columns_each_table_has() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_in(
        d,
        &[
            "datagen",
            "-q",
            "-o",
            "g",
            "--comments",
            "3000",
            "--row-group-rows",
            "1000",
            "--bloom-columns",
            "UserId",
        ],
    )
    .ok();
    let comments = sbbfs(&d.join("g/comments/part-00000.parquet"));
    assert_eq!(comments.len(), 3);
    for group in &comments {
        for (col, f) in group {
            assert_eq!(f.is_some(), col == "UserId", "{col}");
        }
    }
    let users = sbbfs(&d.join("g/users/part-00000.parquet"));
    assert!(users.iter().flatten().all(|(_, f)| f.is_none()));
    run_in(
        d,
        &[
            "datagen",
            "-q",
            "-o",
            "h",
            "--comments",
            "300",
            "--bloom-columns",
            "UserId,Nope",
        ],
    )
    .fails(2, &["--bloom-columns", "\"Nope\""]);
    assert!(!d.join("h/comments").exists() || files_below(&d.join("h")).is_empty());
}

/// A right side with Parquet Bloom filters on its INT32 key `UserId` (and `Text`), 30 row
/// groups whose keys are disjoint sets spread over the whole range (statistics cannot skip
/// them), and a left side whose few keys hit a handful of groups.
fn sbbf_fixture(d: &Path) {
    use arrow::array::{ArrayRef, Int32Array, Int64Array, StringArray};
    use std::sync::Arc;
    let groups = 30i32;
    let per = 200i32;
    let key = |i: i32| i / per + groups * ((i * 7919) % 500);
    let user: Vec<Option<i32>> = (0..groups * per)
        .map(|i| (i % 97 != 0).then_some(key(i)))
        .collect();
    let text: Vec<String> = (0..groups * per).map(|i| format!("t{i}")).collect();
    let id: Vec<i64> = (0..(groups * per) as i64).collect();
    let schema = Arc::new(arrow::datatypes::Schema::new(vec![
        arrow::datatypes::Field::new("Id", arrow::datatypes::DataType::Int64, false),
        arrow::datatypes::Field::new("UserId", arrow::datatypes::DataType::Int32, true),
        arrow::datatypes::Field::new("Text", arrow::datatypes::DataType::Utf8, false),
    ]));
    let batch = arrow::array::RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from(id)) as ArrayRef,
            Arc::new(Int32Array::from(user)),
            Arc::new(StringArray::from(text)),
        ],
    )
    .unwrap();
    std::fs::create_dir_all(d.join("right")).unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(per as usize))
        .set_column_bloom_filter_enabled("UserId".into(), true)
        .set_column_bloom_filter_fpp("UserId".into(), 0.001)
        .build();
    let f = std::fs::File::create(d.join("right/r.parquet")).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, schema, Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    // Left: keys of groups 3 and 17 (rows 650, 3500, 3501: each key is on one row), one
    // absent key, a null, a duplicate.
    let keys: Vec<Option<i64>> = vec![
        Some(key(650).into()),
        Some(key(3500).into()),
        Some(key(650).into()),
        Some(-123_456_789_012),
        None,
        Some(key(3501).into()),
    ];
    crate::util::write_parquet(
        &d.join("left/l.parquet"),
        vec![
            ("Id", Arc::new(Int64Array::from(keys)) as ArrayRef),
            (
                "name",
                Arc::new(StringArray::from(vec!["a", "b", "c", "d", "e", "f"])),
            ),
        ],
        4,
    );
}

fn report(d: &Path, name: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(d.join(name)).unwrap()).unwrap()
}

/// The same rows with SBBF pruning on and off, for every join type and both strategies; on
/// an inner join the filters skip most row groups (the INT32 key hashes as 4 bytes: hashing
/// the widened i64 would skip every group and lose the matches).
#[test]
fn sbbf_pruning_skips_row_groups_and_never_changes_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    sbbf_fixture(d);
    for strategy in ["replicated", "reduce-side"] {
        for jt in ["inner", "left", "left-semi", "left-anti", "right", "full"] {
            let join = |out: &str, extra: &[&str]| {
                let mut args = vec![
                    "join",
                    "-q",
                    "--no-prefilter",
                    "--left",
                    "left",
                    "--left-key",
                    "Id",
                    "--right",
                    "right",
                    "--right-key",
                    "UserId",
                    "--type",
                    jt,
                    "--strategy",
                    strategy,
                    "--output",
                    out,
                    "--report",
                ];
                let rep = format!("{out}.json");
                args.push(&rep);
                args.extend_from_slice(extra);
                run_in(d, &args).ok();
                (read_rows(&d.join(out)).0, report(d, &rep))
            };
            let on = format!("on-{strategy}-{jt}");
            let off = format!("off-{strategy}-{jt}");
            let (rows_on, rep_on) = join(&on, &[]);
            let (rows_off, rep_off) = join(&off, &["--no-sbbf"]);
            assert_eq!(rows_on, rows_off, "{strategy} {jt}");
            assert_eq!(rep_off["prefilter"]["sbbf"]["used"], false);
            if !matches!(jt, "right" | "full") {
                assert_eq!(rep_off["prefilter"]["sbbf"]["reason"], "--no-sbbf");
            }
            let skipped = rep_on["right"]["row_groups_skipped_by_sbbf"]
                .as_u64()
                .unwrap();
            if matches!(jt, "right" | "full") {
                assert_eq!(rep_on["prefilter"]["sbbf"]["used"], false, "{jt}");
                assert_eq!(skipped, 0);
            } else {
                assert_eq!(rep_on["prefilter"]["sbbf"]["used"], true, "{jt}");
                assert_eq!(rep_on["prefilter"]["sbbf"]["left_distinct_keys"], 4);
                // Groups 3 and 17 hold the keys; the other 28 are skipped (fpp 0.001).
                assert!(skipped >= 25, "{strategy} {jt}: {skipped}");
                // Data pages fetched (the filters' own bytes aside) drop with the groups.
                let read_on = rep_on["right"]["bytes_read"].as_u64().unwrap()
                    - rep_on["right"]["sbbf_bytes_read"].as_u64().unwrap();
                let read_off = rep_off["right"]["bytes_read"].as_u64().unwrap();
                assert!(read_on * 3 < read_off, "{read_on} vs {read_off}");
                assert!(rep_on["right"]["bytes_skipped_by_sbbf"].as_u64().unwrap() > 0);
            }
            if jt == "inner" {
                assert_eq!(rows_on.len(), 4, "{rows_on:?}");
            }
        }
    }
    // Over --sbbf-max-keys: not used, and the report says why.
    run_in(
        d,
        &[
            "join",
            "-q",
            "--no-prefilter",
            "--left",
            "left",
            "--left-key",
            "Id",
            "--right",
            "right",
            "--right-key",
            "UserId",
            "--output",
            "many",
            "--report",
            "many.json",
            "--sbbf-max-keys",
            "3",
        ],
    )
    .ok();
    let r = report(d, "many.json");
    assert_eq!(r["prefilter"]["sbbf"]["used"], false);
    assert!(
        r["prefilter"]["sbbf"]["reason"]
            .as_str()
            .unwrap()
            .contains("more than 3 distinct keys"),
        "{r}"
    );
    assert_eq!(r["right"]["row_groups_skipped_by_sbbf"], 0);
}

/// The right side's `--where` rules row groups out by their statistics before the SBBF tier
/// reads their Parquet Bloom filters: those filters are never read.
#[test]
fn the_where_skips_row_groups_before_the_sbbf_tier_reads_their_filters() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    sbbf_fixture(d);
    let join = |out: &str, extra: &[&str]| {
        let rep = format!("{out}.json");
        let args = [
            &[
                "join",
                "-q",
                "--no-prefilter",
                "--left",
                "left",
                "--left-key",
                "Id",
                "--right",
                "right",
                "--right-key",
                "UserId",
                "--output",
                out,
                "--report",
                &rep,
            ][..],
            extra,
        ]
        .concat();
        run_in(d, &args).ok();
        (read_rows(&d.join(out)).0, report(d, &rep))
    };
    // Ids are sorted: `Id >= 3000` rules out the first 15 of the 30 row groups.
    let (rows, r) = join("where", &["--right-where", "Id >= 3000"]);
    let right = &r["right"];
    assert_eq!(right["row_groups_skipped_by_where"], 15, "{r}");
    let by_sbbf = right["row_groups_skipped_by_sbbf"].as_u64().unwrap();
    // Of the other 15, group 17 holds left keys (rows 3500, 3501).
    assert!((12..=14).contains(&by_sbbf), "{by_sbbf}: {r}");
    assert_eq!(rows.len(), 2, "{rows:?}");
    let (all_rows, all) = join("all", &[]);
    let filters = |r: &serde_json::Value| r["right"]["sbbf_bytes_read"].as_u64().unwrap();
    assert!(
        filters(&r) * 3 < filters(&all) * 2,
        "{} vs {}",
        filters(&r),
        filters(&all)
    );
    let (plain, _) = join("plain", &["--right-where", "Id >= 3000", "--no-sbbf"]);
    assert_eq!(rows, plain);
    assert_eq!(all_rows.len(), 4);
}

/// A row group whose Parquet Bloom filter is corrupt is read, not skipped, and the join
/// warns; the rows are those of a join without SBBF pruning.
#[test]
fn a_corrupt_sbbf_is_read_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    sbbf_fixture(d);
    let path = d.join("right/r.parquet");
    let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    let meta = reader.metadata().clone();
    let mut bytes = std::fs::read(&path).unwrap();
    // Row group 3 (holds a left key): a garbage header. Row group 5 (no left key): a header
    // announcing more bytes than the recorded length.
    let chunk = |rg: usize| meta.row_group(rg).column(1).clone();
    let off3 = chunk(3).bloom_filter_offset().unwrap() as usize;
    bytes[off3..off3 + 8].copy_from_slice(&[0xff; 8]);
    let off5 = chunk(5).bloom_filter_offset().unwrap() as usize;
    let len5 = chunk(5).bloom_filter_length().unwrap() as usize;
    // The header's num_bytes (a zigzag varint after field header 0x15): double it.
    assert_eq!(bytes[off5], 0x15, "header starts with num_bytes");
    let mut fixed = Vec::new();
    let mut n = 0u64;
    let mut i = off5 + 1;
    let mut shift = 0;
    loop {
        let b = bytes[i];
        n |= u64::from(b & 0x7f) << shift;
        i += 1;
        shift += 7;
        if b & 0x80 == 0 {
            break;
        }
    }
    let num_bytes = (n >> 1) as i64 ^ -((n & 1) as i64);
    let doubled = ((num_bytes * 2) << 1) as u64;
    let mut v = doubled;
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            fixed.push(b);
            break;
        }
        fixed.push(b | 0x80);
    }
    assert_eq!(fixed.len(), i - off5 - 1, "same varint length");
    bytes[off5 + 1..i].copy_from_slice(&fixed);
    assert!(len5 > 0);
    std::fs::write(&path, &bytes).unwrap();

    let join = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "join",
            "--no-prefilter",
            "--left",
            "left",
            "--left-key",
            "Id",
            "--right",
            "right",
            "--right-key",
            "UserId",
            "--output",
            out,
            "--report",
        ];
        let rep = format!("{out}.json");
        args.push(&rep);
        args.extend_from_slice(extra);
        let run = run_in(d, &args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        (read_rows(&d.join(out)).0, report(d, &rep), run.stderr)
    };
    let (rows, rep, stderr) = join("on", &[]);
    let (rows_off, _, _) = join("off", &["--no-sbbf"]);
    assert_eq!(rows, rows_off);
    assert_eq!(rows.len(), 4);
    assert_eq!(rep["prefilter"]["sbbf"]["unreadable"], 2, "{rep}");
    assert!(
        stderr.contains(
            "warning: 2 right row group(s) have a Parquet Bloom filter that cannot be read"
        ),
        "{stderr}"
    );
    assert_eq!(rep["warnings"].as_array().unwrap().len(), 1);
    // The two unreadable groups were read: of 30, groups 3 (a hit, unreadable), 5
    // (unreadable) and 17 (a hit) are not skipped.
    assert!(rep["right"]["row_groups_skipped_by_sbbf"].as_u64().unwrap() <= 27);
}

/// `inspect` and `probe` on a Parquet column's own filters: present keys are "maybe", keys
/// of other row groups "no" for that row group; bad input is one line and exit 2.
#[test]
fn inspect_and_probe_read_a_columns_sbbfs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    sbbf_fixture(d);
    let f = "right/r.parquet";
    let out = run_in(d, &["inspect", f, "--column", "UserId", "--json"]).ok();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["physical_type"], "INT32");
    let groups = v["row_groups"].as_array().unwrap();
    assert_eq!(groups.len(), 30);
    assert!(groups
        .iter()
        .all(|g| g["has_filter"] == true && g["blocks"].as_u64().unwrap() >= 1));
    let table = run_in(d, &["inspect", f, "--column", "UserId", "--row-group", "2"]).ok();
    assert!(
        table.contains("INT32") && table.lines().count() == 5,
        "{table}"
    );
    // A row group's filter has the estimates of the same bits as a filter file: `inspect
    // --column` used the parquet crate's mean fill to the 8th power, half the measured rate.
    run_in(
        d,
        &[
            "merge",
            "-q",
            "-o",
            "rg2.bjf",
            f,
            "--column",
            "UserId",
            "--row-group",
            "2",
        ],
    )
    .ok();
    let one: serde_json::Value =
        serde_json::from_str(&run_in(d, &["inspect", "rg2.bjf", "--json"]).ok()).unwrap();
    for key in ["fill_ratio", "estimated_fpp"] {
        assert_eq!(groups[2][key], one[key], "{key}");
    }

    // Row 650 is in row group 3 (200 rows a group); its key is nowhere else.
    let key = (650 / 200 + 30 * ((650 * 7919) % 500)).to_string();
    let probe = |extra: &[&str]| {
        let mut args = vec!["probe", "--filter", f, "--column", "UserId"];
        args.extend_from_slice(extra);
        run_in(d, &args).ok()
    };
    assert_eq!(probe(&[&key]), "maybe\n");
    assert_eq!(probe(&["--row-group", "3", &key]), "maybe\n");
    assert_eq!(
        probe(&["--with-keys", "--row-group", "3", &key, "-5"]),
        format!("{key}\tmaybe\n-5\tno\n")
    );
    // Another group's filter rules it out (fpp 0.001: groups 4 and 5 both being false
    // positives for this key would be a 1e-6 event, and the bytes are fixed).
    assert_eq!(probe(&["--row-group", "4", &key]), "no\n");
    assert_eq!(probe(&["--row-group", "5", &key]), "no\n");
    // Out of the INT32 range: no INT32 column holds it.
    assert_eq!(probe(&["99999999999"]), "no\n");

    run_in(d, &["probe", "--filter", f, "--column", "Text", "x"])
        .fails(2, &["r.parquet", "\"Text\"", "no Parquet Bloom filter"]);
    run_in(d, &["probe", "--filter", f, "--column", "Nope", "1"])
        .fails(2, &["--column", "\"Nope\""]);
    run_in(
        d,
        &[
            "probe",
            "--filter",
            f,
            "--column",
            "UserId",
            "--row-group",
            "30",
            "1",
        ],
    )
    .fails(2, &["--row-group", "30 row groups"]);
    run_in(d, &["probe", "--filter", f, "--column", "UserId", "abc"])
        .fails(2, &["\"abc\" is not an integer"]);
    run_in(d, &["inspect", f, "--column", "Text"]).fails(2, &["no Parquet Bloom filter"]);
}

/// Over S3 (moto): the filters are fetched with ranged GETs and skipped row groups are never
/// fetched; the rows are those of --no-sbbf.
#[test]
fn sbbf_pruning_over_s3_fetches_only_the_row_groups_it_keeps() {
    let s3 = crate::util::S3Server::start();
    let env = s3.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    sbbf_fixture(d);
    s3.upload_dir("lake", &d.join("right"), "right");
    let join = |out: &str, extra: &[&str]| {
        let rep = format!("{out}.json");
        let mut args = vec![
            "join",
            "-q",
            "--no-prefilter",
            "--left",
            "left",
            "--left-key",
            "Id",
            "--right",
            "s3://lake/right",
            "--right-key",
            "UserId",
            "--output",
            out,
            "--report",
            &rep,
        ];
        args.extend_from_slice(extra);
        crate::util::run_env(d, &args, &env).ok();
        (read_rows(&d.join(out)).0, report(d, &rep))
    };
    let (rows_on, on) = join("on", &[]);
    let (rows_off, off) = join("off", &["--no-sbbf"]);
    assert_eq!(rows_on, rows_off);
    assert_eq!(rows_on.len(), 4);
    assert!(
        on["right"]["row_groups_skipped_by_sbbf"].as_u64().unwrap() >= 25,
        "{on}"
    );
    let data_on = on["right"]["bytes_read"].as_u64().unwrap()
        - on["right"]["sbbf_bytes_read"].as_u64().unwrap();
    let data_off = off["right"]["bytes_read"].as_u64().unwrap();
    assert!(data_on * 3 < data_off, "{data_on} vs {data_off}");
}

/// A Parquet file of one row group whose columns each carry the parquet crate's SBBF: an
/// INT32 key with negatives and nulls, a UInt32 key above 2^31 (stored as INT32), an INT64,
/// a string and a Date32 column; and a second file of 8 row groups of INT32 keys.
fn golden_fixture(d: &Path) {
    use arrow::array::{ArrayRef, Date32Array, Int32Array, Int64Array, StringArray, UInt32Array};
    use std::sync::Arc;
    let n = 3000i32;
    let cols: Vec<(&str, ArrayRef)> = vec![
        (
            "k",
            Arc::new(Int32Array::from(
                (0..n)
                    .map(|i| (i % 11 != 0).then_some((i - 1500) * 7919))
                    .collect::<Vec<_>>(),
            )),
        ),
        (
            "u",
            Arc::new(UInt32Array::from(
                (0..n)
                    .map(|i| u32::MAX - i as u32 * 104_729)
                    .collect::<Vec<_>>(),
            )),
        ),
        (
            "l",
            Arc::new(Int64Array::from(
                (0..n)
                    .map(|i| (i as i64 - 1500) * 1_000_000_007)
                    .collect::<Vec<_>>(),
            )),
        ),
        (
            "s",
            Arc::new(StringArray::from(
                (0..n)
                    .map(|i| format!("user-{}", i % 2000))
                    .collect::<Vec<_>>(),
            )),
        ),
        (
            "d",
            Arc::new(Date32Array::from(
                (0..n).map(|i| 18_000 + i % 700).collect::<Vec<_>>(),
            )),
        ),
    ];
    let schema = Arc::new(arrow::datatypes::Schema::new(
        cols.iter()
            .map(|(c, a)| arrow::datatypes::Field::new(*c, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let batch =
        arrow::array::RecordBatch::try_new(schema.clone(), cols.into_iter().map(|c| c.1).collect())
            .unwrap();
    let mut props = parquet::file::properties::WriterProperties::builder();
    for c in ["k", "u", "l", "s", "d"] {
        props = props
            .set_column_bloom_filter_enabled(c.into(), true)
            .set_column_bloom_filter_fpp(c.into(), 0.01);
    }
    std::fs::create_dir_all(d.join("g")).unwrap();
    let f = std::fs::File::create(d.join("g/g.parquet")).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, schema, Some(props.build())).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    // 8 row groups of 500 INT32 keys (and one Int64 column).
    let keys: Vec<i32> = (0..4000).map(|i| i * 31 - 60_000).collect();
    crate::util::write_parquet(
        &d.join("multi/m.parquet"),
        vec![
            ("k", Arc::new(Int32Array::from(keys)) as ArrayRef),
            (
                "l",
                Arc::new(Int64Array::from((0..4000).collect::<Vec<i64>>())),
            ),
        ],
        500,
    );
}

/// The bitset of a parquet-crate SBBF.
fn bitset(f: &Sbbf) -> Vec<u8> {
    let mut out = Vec::new();
    f.write_bitset(&mut out).unwrap();
    out
}

/// A native filter file, decoded.
fn filter_at(path: &Path) -> bloomjoin::bloom::BloomFilter {
    let bytes = std::fs::read(path).unwrap();
    bloomjoin::bloom::codec::decode(&bytes, "f").unwrap().0
}

/// Golden (issue 15): `train --layout sbbf --num-bytes B` over a column is bit-identical to
/// the SBBF the parquet crate wrote into that column chunk (B its size), for an INT32, a
/// UInt32-as-INT32, an INT64, a string and a Date32 column; `inspect` reports the physical
/// type, and `probe` of the trained filter answers exactly as `probe` of the column chunk.
#[test]
fn train_layout_sbbf_is_bit_identical_to_the_column_chunks_filter() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    golden_fixture(d);
    let chunk = sbbfs(&d.join("g/g.parquet")).remove(0);
    for (col, physical, keys) in [
        (
            "k",
            "INT32",
            vec!["-11870581", "0", "7919", "8", "-1", "123456"],
        ),
        (
            "u",
            "INT32",
            vec!["4294967295", "4294862566", "-1", "5", "2147483648"],
        ),
        (
            "l",
            "INT64",
            vec!["-1500000010500", "0", "1000000007", "3", "-1"],
        ),
        (
            "s",
            "BYTE_ARRAY",
            vec!["user-0", "user-1999", "user-2000", "x", ""],
        ),
        (
            "d",
            "INT32",
            vec!["18000", "18699", "18700", "2019-04-14", "1970-01-01"],
        ),
    ] {
        let theirs = chunk
            .iter()
            .find(|(c, _)| c == col)
            .and_then(|(_, f)| f.clone())
            .unwrap_or_else(|| panic!("{col} has a filter"));
        let bytes = (theirs.num_blocks() * 32).to_string();
        let out = format!("{col}.bjf");
        run_in(
            d,
            &[
                "train",
                "-q",
                "--input",
                "g",
                "--column",
                col,
                "--layout",
                "sbbf",
                "--num-bytes",
                &bytes,
                "--output",
                &out,
            ],
        )
        .ok();
        let ours = filter_at(&d.join(&out));
        assert_eq!(bitset(&ours.to_sbbf().unwrap()), bitset(&theirs), "{col}");
        let info: serde_json::Value =
            serde_json::from_str(&run_in(d, &["inspect", &out, "--json"]).ok()).unwrap();
        assert_eq!(info["layout"], "sbbf", "{info}");
        assert_eq!(info["physical_type"], physical, "{info}");
        assert_eq!(info["num_hashes"], 8);
        assert_eq!(
            info["num_bits"].as_u64().unwrap(),
            bytes.parse::<u64>().unwrap() * 8
        );
        // Date keys: the trained filter (Date32) takes YYYY-MM-DD too; the chunk's probe takes
        // day numbers only, so compare those.
        let keys: Vec<&str> = keys
            .into_iter()
            .filter(|k| !k.contains('-') || col != "d")
            .collect();
        let mut a = vec!["probe", "--with-keys", "--filter", &out];
        a.extend_from_slice(&keys);
        let mut b = vec![
            "probe",
            "--with-keys",
            "--filter",
            "g/g.parquet",
            "--column",
            col,
        ];
        b.extend_from_slice(&keys);
        let (ours, theirs) = (run_in(d, &a).ok(), run_in(d, &b).ok());
        assert_eq!(ours, theirs, "{col}");
        assert!(
            ours.lines().next().unwrap().ends_with("maybe"),
            "{col}: {ours}"
        );
    }
}

/// The same bytes for any worker count and split size (partials OR-merged), sized from
/// --expected-items/--fpp as the parquet crate sizes; the sizes and options Parquet does not
/// allow are refused naming the option.
#[test]
fn train_layout_sbbf_is_deterministic_and_checks_its_options() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    golden_fixture(d);
    let train = |out: &str, extra: &[&str]| {
        let mut a = vec![
            "train", "-q", "--input", "multi", "--column", "k", "--layout", "sbbf",
        ];
        a.extend_from_slice(&["--output", out]);
        a.extend_from_slice(extra);
        run_in(d, &a).ok();
        std::fs::read(d.join(out)).unwrap()
    };
    let sized = ["--expected-items", "4000", "--fpp", "0.01"];
    let one = train("w1.bjf", &[&sized[..], &["--workers", "1"]].concat());
    let many = train(
        "w4.bjf",
        &[&sized[..], &["--workers", "4", "--split-rows", "1"]].concat(),
    );
    assert_eq!(one, many);
    let f = filter_at(&d.join("w1.bjf"));
    let expect = Sbbf::new_with_ndv_fpp(4000, 0.01).unwrap().num_blocks() as u64 * 256;
    assert_eq!(f.params().num_bits, expect);
    // One Sbbf with every key inserted has these bits.
    let mut theirs = Sbbf::new_with_num_of_bytes(expect as usize / 8);
    (0..4000).for_each(|i: i32| theirs.insert(&(i * 31 - 60_000)));
    assert_eq!(bitset(&f.to_sbbf().unwrap()), bitset(&theirs));
    // --fpp alone: one pass, folded to the crate's size for the keys counted in the bits.
    train("c.bjf", &["--fpp", "0.01", "--report", "c.json"]);
    assert_eq!(filter_at(&d.join("c.bjf")).params().num_bits, expect);
    let rep = report(d, "c.json");
    assert_eq!(rep["sizing"]["method"], "folded");
    assert_eq!(rep["sizing"]["bits_after_fold"], expect);
    assert_eq!(rep["params"]["physical"], "INT32");

    let fails = |extra: &[&str], needles: &[&str]| {
        let mut a = vec![
            "train", "-q", "--input", "multi", "--column", "k", "--output", "x.bjf",
        ];
        a.extend_from_slice(extra);
        run_in(d, &a).fails(2, needles);
        assert!(!d.join("x.bjf").exists());
    };
    fails(
        &["--layout", "sbbf", "--num-bytes", "100"],
        &["--num-bytes", "power of two"],
    );
    fails(&["--layout", "sbbf", "--num-bytes", "16"], &["--num-bytes"]);
    fails(&["--num-bytes", "1024"], &["--num-bytes", "sbbf"]);
    fails(&["--layout", "sbbf", "--seed", "7"], &["--seed", "XXH64"]);
    fails(
        &["--layout", "sbbf", "--bits", "1000", "--hashes", "8"],
        &["--bits", "power of two"],
    );
    fails(
        &["--layout", "sbbf", "--bits", "1024", "--hashes", "4"],
        &["--hashes", "8"],
    );
    fails(&["--layout", "sbbf", "--format", "spark"], &["--format"]);
    // A timestamp column: the message names the layout, the column and the keys' family.
    let ts = root().join("data/sample/users");
    run_in(
        d,
        &[
            "train",
            "-q",
            "--input",
            ts.to_str().unwrap(),
            "--column",
            "CreationDate",
            "--layout",
            "sbbf",
            "--output",
            "x.bjf",
        ],
    )
    .fails(2, &["--layout", "CreationDate", "timestamp"]);
    assert!(!d.join("x.bjf").exists());
    // Two files whose key column has different physical types.
    crate::util::write_parquet(
        &d.join("mixed/a.parquet"),
        vec![(
            "k",
            std::sync::Arc::new(arrow::array::Int64Array::from(vec![1i64, 2])) as _,
        )],
        10,
    );
    std::fs::copy(d.join("multi/m.parquet"), d.join("mixed/b.parquet")).unwrap();
    run_in(
        d,
        &[
            "train", "-q", "--input", "mixed", "--column", "k", "--layout", "sbbf", "--output",
            "x.bjf",
        ],
    )
    .fails(2, &["\"k\"", "INT32", "INT64", "one physical type"]);
    // A decimal key: its SBBF hashes the unscaled integer, not the value.
    let dec = arrow::array::Decimal128Array::from(vec![700i128, 150])
        .with_precision_and_scale(10, 2)
        .unwrap();
    crate::util::write_parquet(
        &d.join("dec/a.parquet"),
        vec![("p", std::sync::Arc::new(dec) as _)],
        10,
    );
    run_in(
        d,
        &[
            "train", "-q", "--input", "dec", "--column", "p", "--layout", "sbbf", "--output",
            "x.bjf",
        ],
    )
    .fails(2, &["\"p\"", "Decimal128", "unscaled"]);
}

/// `join --filter` with an sbbf-layout filter: the rows of the blocked filter's join, and the
/// filter drops right rows.
#[test]
fn join_with_an_sbbf_layout_filter() {
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
            "Id",
            "--where",
            "Reputation > 1500",
            "--layout",
            "sbbf",
            "--fpp",
            "0.01",
            "--output",
            "users-sbbf.bjf",
        ],
    )
    .ok();
    let join = |filter: &str, out: &str, strategy: &str| {
        let rep = format!("{out}.json");
        run_in(
            d,
            &[
                "join",
                "-q",
                "--filter",
                filter,
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
                "--strategy",
                strategy,
                "--output",
                out,
                "--report",
                &rep,
            ],
        )
        .ok();
        (read_rows(&d.join(out)).0, report(d, &rep))
    };
    for strategy in ["replicated", "reduce-side"] {
        let (blocked, _) = join("users.bjf", &format!("b-{strategy}"), strategy);
        let (sbbf, rep) = join("users-sbbf.bjf", &format!("s-{strategy}"), strategy);
        assert!(!sbbf.is_empty());
        assert_eq!(sbbf, blocked, "{strategy}");
        assert!(
            rep["right"]["rows_dropped_by_filter"].as_u64().unwrap() > 0,
            "{strategy}: {rep}"
        );
    }
}

/// `merge` ORs an sbbf-layout filter with a column chunk's SBBF of the same physical type,
/// folding the larger to the smaller size first; other types or layouts are a one-line error
/// naming the field.
#[test]
fn merge_ors_a_trained_sbbf_with_column_chunk_filters() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    golden_fixture(d);
    let g = d.join("g/g.parquet");
    let chunk = sbbfs(&g).remove(0);
    let k = chunk
        .iter()
        .find(|(c, _)| c == "k")
        .unwrap()
        .1
        .clone()
        .unwrap();
    let bytes = (k.num_blocks() * 32).to_string();
    let bytes2 = (k.num_blocks() * 64).to_string();
    let train = |col: &str, size: &str, out: &str| {
        run_in(
            d,
            &[
                "train",
                "-q",
                "--input",
                "multi",
                "--column",
                col,
                "--layout",
                "sbbf",
                "--num-bytes",
                size,
                "--output",
                out,
            ],
        )
        .ok();
    };
    train("k", &bytes, "t.bjf");
    run_in(
        d,
        &[
            "merge",
            "-q",
            "-o",
            "m.bjf",
            "t.bjf",
            "g/g.parquet",
            "--column",
            "k",
        ],
    )
    .ok();
    let (t, m) = (filter_at(&d.join("t.bjf")), filter_at(&d.join("m.bjf")));
    let ored: Vec<u8> = bitset(&t.to_sbbf().unwrap())
        .iter()
        .zip(bitset(&k))
        .map(|(a, b)| a | b)
        .collect();
    assert_eq!(bitset(&m.to_sbbf().unwrap()), ored);
    assert_eq!(m.params().physical, t.params().physical);
    // Keys of both inputs are in the merged filter.
    let probe = run_in(
        d,
        &[
            "probe",
            "--filter",
            "m.bjf",
            "-60000",
            "63969",
            "-11870581",
            "7919",
        ],
    )
    .ok();
    assert_eq!(probe, "maybe\nmaybe\nmaybe\nmaybe\n");
    // --row-group 0 is the file's only row group: the same filter.
    run_in(
        d,
        &[
            "merge",
            "-q",
            "-o",
            "m0.bjf",
            "t.bjf",
            "g/g.parquet",
            "--column",
            "k",
            "--row-group",
            "0",
        ],
    )
    .ok();
    assert_eq!(filter_at(&d.join("m0.bjf")).word_slice(), m.word_slice());

    // A partial twice the size is folded to the common (smallest) size before the OR: that
    // is exactly the filter trained at the smaller size, so the merge gives the same bits.
    train("k", &bytes2, "t2.bjf");
    let run = run_in(
        d,
        &[
            "merge",
            "-o",
            "m2.bjf",
            "t2.bjf",
            "g/g.parquet",
            "--column",
            "k",
        ],
    );
    let said = run.stderr.clone();
    run.ok();
    assert!(
        said.contains("folded t2.bjf to the common size of"),
        "{said}"
    );
    assert_eq!(filter_at(&d.join("m2.bjf")).word_slice(), m.word_slice());

    // Another physical type, another layout: one line, exit 2, nothing written.
    train("l", &bytes, "t64.bjf");
    let fails = |args: &[&str], needles: &[&str]| {
        let mut a = vec!["merge", "-q", "-o", "x.bjf"];
        a.extend_from_slice(args);
        run_in(d, &a).fails(2, needles);
        assert!(!d.join("x.bjf").exists());
    };
    fails(
        &["t64.bjf", "g/g.parquet", "--column", "k"],
        &["physical type", "INT64", "INT32"],
    );
    run_in(
        d,
        &[
            "train", "-q", "--input", "multi", "--column", "k", "--output", "b.bjf",
        ],
    )
    .ok();
    fails(
        &["b.bjf", "g/g.parquet", "--column", "k"],
        &["layout", "split", "sbbf"],
    );
    fails(
        &["t.bjf", "g/g.parquet"],
        &["--column", "g.parquet is a Parquet file"],
    );
    fails(&["t.bjf", "t2.bjf", "--column", "k"], &["--column", "none"]);
    fails(
        &["t.bjf", "multi/m.parquet", "--column", "k"],
        &["m.parquet", "no Parquet Bloom filter"],
    );
    fails(
        &["t.bjf", "g/g.parquet", "--column", "nope"],
        &["--column", "\"nope\""],
    );
}

/// The README's sbbf example (train, inspect, probe over data/sample) prints what the README
/// shows: every line that is not an elision (`...`) appears in its command's output.
#[test]
fn readme_sbbf_example_is_true() {
    let readme = std::fs::read_to_string(crate::util::root().join("README.md")).unwrap();
    let start = readme
        .find("filter answers `probe` and drives")
        .expect("README sbbf example intro");
    let body = readme[start..]
        .split("```")
        .nth(1)
        .expect("README sbbf block");
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(crate::util::root().join("data"), dir.path().join("data")).unwrap();
    let (mut out, mut commands, mut checked) = (String::new(), 0, 0);
    for line in body.lines().skip(1) {
        if let Some(cmd) = line.strip_prefix("$ bloomjoin ") {
            let args: Vec<&str> = cmd.split_whitespace().collect();
            out = run_in(dir.path(), &args).ok();
            commands += 1;
        } else if !line.trim().is_empty() && line.trim() != "..." {
            assert!(
                out.contains(line),
                "README line {line:?} not in the output:\n{out}"
            );
            checked += 1;
        }
    }
    assert!(
        commands == 3 && checked >= 7,
        "{commands} commands, {checked} lines"
    );
}

/// Over S3, the row groups' filters come in one request batch, not one GET each: with 30
/// row groups and 2 of them kept, SBBF pruning makes fewer than half the requests of a join
/// that reads every row group (it made more than that join, one GET per filter, before).
#[test]
fn sbbf_pruning_over_s3_fetches_the_filters_together() {
    use std::sync::atomic::Ordering;
    let s3 = crate::util::S3Server::start();
    let proxy = crate::util::FaultProxy::start(s3.port);
    // Without reading ahead, which would fetch the row groups of a split in one request
    // (src/read/ahead.rs): here every row group read is a request of its own.
    let mut env = crate::util::S3Server::env_for(proxy.port);
    env.push(("BLOOMJOIN_READ_AHEAD".into(), "0".into()));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    sbbf_fixture(d);
    s3.upload_dir("lake", &d.join("right"), "right");
    let requests = |out: &str, extra: &[&str]| {
        let before = proxy.seen.load(Ordering::SeqCst);
        let mut args = vec![
            "join",
            "-q",
            "--no-prefilter",
            "--workers",
            "1",
            "--left",
            "left",
            "--left-key",
            "Id",
            "--right",
            "s3://lake/right",
            "--right-key",
            "UserId",
            "--output",
            out,
        ];
        args.extend_from_slice(extra);
        crate::util::run_env(d, &args, &env).ok();
        proxy.seen.load(Ordering::SeqCst) - before
    };
    let on = requests("on", &[]);
    let off = requests("off", &["--no-sbbf"]);
    assert_eq!(read_rows(&d.join("on")).0, read_rows(&d.join("off")).0);
    assert!(off >= 30, "{off} requests reading 30 row groups");
    assert!(
        on * 2 < off,
        "{on} requests with SBBF pruning, {off} without"
    );
}

/// A Parquet writer sizes each row group's SBBF for the values it holds (the parquet crate
/// folds it down to them), so the row groups of one file differ in size. `merge FILE
/// --column C` folds them all to the smallest and ORs them: no key of any row group is lost.
/// When the smallest is too small for all the keys, a warning says so (even with -q), and the
/// filter is still written.
#[test]
fn merge_folds_row_groups_of_different_sbbf_sizes() {
    use arrow::array::{ArrayRef, Int64Array};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |name: &str, groups: &[Vec<i64>]| {
        let schema = Arc::new(arrow::datatypes::Schema::new(vec![
            arrow::datatypes::Field::new("k", arrow::datatypes::DataType::Int64, false),
        ]));
        let props = parquet::file::properties::WriterProperties::builder()
            .set_column_bloom_filter_enabled("k".into(), true)
            .set_column_bloom_filter_fpp("k".into(), 0.01)
            .build();
        let f = std::fs::File::create(d.join(name)).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(f, schema.clone(), Some(props)).unwrap();
        for g in groups {
            let b = arrow::array::RecordBatch::try_new(
                schema.clone(),
                vec![Arc::new(Int64Array::from(g.clone())) as ArrayRef],
            )
            .unwrap();
            w.write(&b).unwrap();
            w.flush().unwrap();
        }
        w.close().unwrap();
    };
    // Similar row groups (4000 and 3000 distinct keys): a useful merged filter.
    let a: Vec<i64> = (0..4000).map(|i| i * 7_919).collect();
    let b: Vec<i64> = (0..3000).map(|i| -1 - i * 104_729).collect();
    // A row group of few distinct keys gets a small SBBF.
    let c: Vec<i64> = (0..4000).map(|i| 1_000_000_007 + i % 20).collect();
    write("ab.parquet", &[a.clone(), b.clone()]);
    write("abc.parquet", &[a.clone(), b.clone(), c.clone()]);
    let sizes = |f: &str| -> Vec<usize> {
        sbbfs(&d.join(f))
            .iter()
            .map(|rg| rg[0].1.as_ref().unwrap().num_blocks())
            .collect()
    };
    let (ab, abc) = (sizes("ab.parquet"), sizes("abc.parquet"));
    assert_ne!(
        ab[0], ab[1],
        "the writer sized the row groups alike: {ab:?}"
    );
    assert!(abc[2] < abc[1].min(abc[0]), "{abc:?}");

    let merge = |f: &str, out: &str| run_in(d, &["merge", "-q", "-o", out, f, "--column", "k"]);
    let run = merge("ab.parquet", "ab.bjf");
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    run.ok();
    let m = filter_at(&d.join("ab.bjf"));
    assert_eq!(m.params().num_bits, *ab.iter().min().unwrap() as u64 * 256);
    assert!(a.iter().chain(&b).all(|k| m.contains_i64(*k)));
    assert!(m.estimated_fpp() <= 0.5, "{}", m.estimated_fpp());

    let run = merge("abc.parquet", "abc.bjf");
    let said = run.stderr.clone();
    run.ok();
    assert!(
        said.contains("warning: the merged filter is nearly full"),
        "{said}"
    );
    let m = filter_at(&d.join("abc.bjf"));
    assert_eq!(m.params().num_bits, *abc.iter().min().unwrap() as u64 * 256);
    assert!(a.iter().chain(&b).chain(&c).all(|k| m.contains_i64(*k)));
}

/// `probe --column` on a decimal column probes the value's unscaled integer as the column
/// stores it: INT32/INT64 for up to 18 digits, big-endian bytes of the fixed length beyond.
/// The text's own bytes were probed for a FIXED_LEN_BYTE_ARRAY decimal, so every value
/// present answered "no" (fifth audit, 2026-11-26).
#[test]
fn probe_column_reads_decimals_as_the_column_stores_them() {
    use arrow::array::{ArrayRef, Decimal128Array};
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let big = 10i128.pow(30);
    let wide = Decimal128Array::from_iter_values((0..100).map(|i| big + i))
        .with_precision_and_scale(38, 0)
        .unwrap();
    let small = Decimal128Array::from_iter_values(0..100)
        .with_precision_and_scale(10, 2)
        .unwrap();
    let props = WriterProperties::builder()
        .set_bloom_filter_enabled(true)
        .build();
    crate::util::write_parquet_with(
        &d.join("t.parquet"),
        vec![
            ("wide", Arc::new(wide) as ArrayRef),
            ("small", Arc::new(small) as ArrayRef),
        ],
        props,
    );
    let probe = |col: &str, keys: &[&str]| {
        let mut args = vec![
            "probe",
            "--filter",
            "t.parquet",
            "--column",
            col,
            "--with-keys",
        ];
        args.extend_from_slice(keys);
        run_in(d, &args).ok()
    };
    // Every value present is a "maybe".
    let present: Vec<String> = (0..100).map(|i| (big + i).to_string()).collect();
    let keys: Vec<&str> = present.iter().map(String::as_str).collect();
    let out = probe("wide", &keys);
    assert_eq!(out.matches("\tmaybe").count(), 100, "{out}");
    let cents: Vec<String> = (0..100)
        .map(|i| format!("{}.{:02}", i / 100, i % 100))
        .collect();
    let keys: Vec<&str> = cents.iter().map(String::as_str).collect();
    let out = probe("small", &keys);
    assert_eq!(out.matches("\tmaybe").count(), 100, "{out}");
    // By value: 0.5 is 0.50; 5 is 5.00, not the unscaled 5 (0.05); out of range, "no".
    let out = probe("small", &["0.5", "5", "99.99"]);
    assert!(out.starts_with("0.5\tmaybe\n"), "{out}");
    assert!(
        out.contains("\n5\tno\n") && out.contains("99.99\tno"),
        "{out}"
    );
    // Not a number the column holds: one line, naming the column and its type.
    run_in(
        d,
        &["probe", "--filter", "t.parquet", "--column", "small", "abc"],
    )
    .fails(2, &["\"abc\"", "small", "Decimal"]);
}

/// A regression: `filter --select "UserId AS uid"` wrote no SBBF on the key, which it looked
/// for under the input's name.
#[test]
fn filter_writes_sbbfs_on_its_key_columns_under_their_output_names() {
    let dir = crate::util::readme_dir();
    let d = dir.path();
    run_in(
        d,
        &[
            "-q",
            "train",
            "--input",
            "data/sample/users",
            "--column",
            "Id",
            "--output",
            "u.bjf",
        ],
    )
    .ok();
    run_in(
        d,
        &[
            "-q",
            "filter",
            "--filter",
            "u.bjf",
            "--input",
            "data/sample/comments",
            "--key",
            "UserId",
            "--select",
            "Id, UserId AS uid, UserId + 0 AS same",
            "--output",
            "out",
        ],
    )
    .ok();
    let parts = parts(&d.join("out"));
    assert!(!parts.is_empty());
    for p in parts {
        for group in sbbfs(&p) {
            for (c, f) in group {
                assert_eq!(f.is_some(), c == "uid", "{c} in {}", p.display());
            }
        }
    }
}
