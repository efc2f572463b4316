//! Parquet's own split-block Bloom filters (issue 15): the filters the join and datagen write,
//! SBBF pruning of right row groups, and SBBFs as filters of ours.

use std::path::Path;

use parquet::bloom_filter::Sbbf;
use parquet::file::reader::{FileReader, SerializedFileReader};

use crate::join_cli::{fixture, train};
use crate::util::{files_below, read_rows, run_in};

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
        let f = &sbbfs(&part)[0];
        let get = |n: &str| f.iter().find(|(c, _)| c == n).unwrap().1.clone().unwrap();
        let (fid, fuser) = (get("Id"), get("UserId"));
        for r in rows {
            let v: Vec<&str> = r.split('|').collect();
            assert!(fid.check(&v[id].parse::<i64>().unwrap()), "{r}");
            assert!(fuser.check(&v[user].parse::<i32>().unwrap()), "{r}");
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
