//! `bloomjoin filter`, the map-only Bloom filtering job: its output is exactly the input rows
//! whose key `probe` calls "maybe" (so every row of a key the filter was trained on), for any
//! number of workers, split size and batch size; bad input is a one-line error with nothing
//! written; the output commits as a join's does (refused when committed, or replaced).

use std::collections::HashSet;
use std::path::Path;

use crate::util::{read_rows, run_in, run_stdin};

/// Train `users.bjf` on the sample's users of over 1500 reputation, in a README directory.
fn trained() -> tempfile::TempDir {
    let dir = crate::util::readme_dir();
    run_in(
        dir.path(),
        &[
            "train",
            "-q",
            "--input",
            "data/sample/users",
            "--column",
            "Id",
            "--where",
            "Reputation > 1500",
            "--output",
            "users.bjf",
        ],
    )
    .ok();
    dir
}

/// Run `filter` of the sample's comments by `users.bjf` on `UserId` in `d`, with `extra`.
fn filter(d: &Path, extra: &[&str]) -> crate::util::Run {
    let mut args = vec![
        "filter",
        "--filter",
        "users.bjf",
        "--input",
        "data/sample/comments",
        "--key",
        "UserId",
    ];
    args.extend(extra);
    run_in(d, &args)
}

/// The sample's comments as `(Id, UserId, Score)`, `UserId` null as `None`.
fn comments(d: &Path) -> Vec<(i64, Option<i32>, i32)> {
    use arrow::array::{Array, AsArray};
    use arrow::datatypes::{Int32Type, Int64Type};
    let dir = d.join("data/sample/comments");
    let mut rows = Vec::new();
    for f in crate::util::files_below(&dir) {
        let file = std::fs::File::open(dir.join(f)).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        for b in reader {
            let b = b.unwrap();
            let col = |n: &str| b.column(b.schema().index_of(n).unwrap()).clone();
            let (id, user, score) = (col("Id"), col("UserId"), col("Score"));
            let (id, user, score) = (
                id.as_primitive::<Int64Type>(),
                user.as_primitive::<Int32Type>(),
                score.as_primitive::<Int32Type>(),
            );
            for i in 0..b.num_rows() {
                let u = (!user.is_null(i)).then(|| user.value(i));
                rows.push((id.value(i), u, score.value(i)));
            }
        }
    }
    rows
}

/// The comments (`Id|UserId|Score`) of a score that `keep_score` keeps whose `UserId` the
/// filter `users.bjf` may hold, as `probe` answers for each one, sorted.
fn probed_rows(d: &Path, keep_score: impl Fn(i32) -> bool) -> Vec<String> {
    let rows = comments(d);
    let keys: Vec<String> = rows
        .iter()
        .filter_map(|r| r.1)
        .collect::<HashSet<_>>()
        .into_iter()
        .map(|k| k.to_string())
        .collect();
    let answers = run_stdin(
        d,
        &["probe", "--filter", "users.bjf", "--with-keys"],
        &keys.join("\n"),
    )
    .ok();
    let maybe: HashSet<&str> = answers
        .lines()
        .filter_map(|l| l.strip_suffix("\tmaybe"))
        .collect();
    let mut want: Vec<String> = rows
        .iter()
        .filter(|(_, u, score)| {
            keep_score(*score) && u.is_some_and(|u| maybe.contains(u.to_string().as_str()))
        })
        .map(|(id, u, score)| format!("{id}|{}|{score}", u.unwrap()))
        .collect();
    want.sort();
    want
}

#[test]
fn keeps_exactly_the_rows_the_filter_may_hold_for_any_workers_and_splits() {
    let dir = trained();
    let d = dir.path();
    let want = probed_rows(d, |_| true);
    // Every comment of a trained user is there (no false negatives), and some others (its
    // false positives) too.
    let args = crate::append_cli::args(Some("> 1500"), "Id,UserId,Score", "semi", &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_in(d, &args).ok();
    let exact = read_rows(&d.join("semi")).0;
    assert!(exact.len() < want.len(), "{} {}", exact.len(), want.len());
    let mut left = want.clone();
    for r in &exact {
        let i = left
            .binary_search(r)
            .expect("a row of the semi-join is kept");
        left.remove(i);
    }
    for (i, extra) in [
        &["--workers", "1"][..],
        &[
            "--workers",
            "3",
            "--split-rows",
            "1000",
            "--batch-size",
            "7",
        ],
        &["--workers", "2", "--compression", "snappy"],
    ]
    .iter()
    .enumerate()
    {
        let out = format!("out-{i}");
        let mut args = vec![
            "--select",
            "Id,UserId,Score",
            "--output",
            &out,
            "--report",
            "r.json",
        ];
        args.extend(extra.iter());
        let summary = filter(d, &args).ok();
        let (rows, names) = read_rows(&d.join(&out));
        assert_eq!(names, ["Id", "UserId", "Score"]);
        assert_eq!(rows, want, "{extra:?}");
        assert!(
            summary.contains(&format!("  output {} rows, ", want.len())),
            "{summary}"
        );
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
        assert_eq!(report["rows_out"], want.len());
        assert_eq!(report["input"]["rows_read"], 100_000);
        assert_eq!(
            report["input"]["rows_dropped_by_filter"].as_u64().unwrap()
                + report["input"]["rows_dropped_null_key"].as_u64().unwrap()
                + want.len() as u64,
            100_000
        );
    }
}

#[test]
fn where_and_every_column() {
    let dir = trained();
    let d = dir.path();
    filter(d, &["-q", "--where", "Score >= 10", "--output", "all"]).ok();
    let names = read_rows(&d.join("all")).1;
    assert_eq!(
        names,
        [
            "Id",
            "PostId",
            "UserId",
            "UserDisplayName",
            "Text",
            "CreationDate",
            "Score"
        ]
    );
    // The same rows as the narrow output's, their other columns too.
    let narrow = [
        "-q",
        "--where",
        "Score >= 10",
        "--select",
        "Id,UserId,Score",
    ];
    filter(d, &[&narrow[..], &["--output", "narrow"]].concat()).ok();
    let want = probed_rows(d, |s| s >= 10);
    assert_eq!(read_rows(&d.join("narrow")).0, want);
    assert_eq!(
        crate::append_cli::file_rows(&d.join("all")),
        want.len() as i64
    );
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let dir = trained();
    let d = dir.path();
    let base = [
        "filter",
        "--filter",
        "users.bjf",
        "--input",
        "data/sample/comments",
    ];
    for (extra, needle) in [
        (&["--key", "Nope", "-o", "out"][..], "column \"Nope\": no such column (key of --input"),
        (&["--key", "UserDisplayName", "-o", "out"], "key family mismatch: the filter users.bjf holds integer keys, but --key UserDisplayName holds bytes keys"),
        (&["--key", "UserId", "--select", "Id,Nope", "-o", "out"], "invalid --select: \"Nope\" is not a column of the input"),
        (&["--key", "UserId", "--select", "Id,Id", "-o", "out"], "invalid --select: column \"Id\" appears twice"),
        (&["--key", "UserId", "--where", "Nope > 1", "-o", "out"], "Nope"),
        (&["--key", "UserId", "-o", "ftp://x/out"], "ftp"),
    ] {
        let mut args = base.to_vec();
        args.extend(extra);
        run_in(d, &args).fails(2, &[needle]);
        assert!(!d.join("out").exists(), "{extra:?}");
    }
    run_in(
        d,
        &[
            "filter",
            "--filter",
            "nope.bjf",
            "--input",
            "data/sample/comments",
            "--key",
            "UserId",
            "-o",
            "out",
        ],
    )
    .fails(2, &["nope.bjf"]);
    assert!(!d.join("out").exists());
    // An output inside the input is refused; a committed output is refused, and replaced
    // with --overwrite.
    let mut args = base.to_vec();
    args.extend(["--key", "UserId", "-o", "data/sample/comments/out"]);
    run_in(d, &args).fails(2, &["--output"]);
    let mut args = base.to_vec();
    args.extend(["-q", "--key", "UserId", "--select", "Id", "-o", "out"]);
    run_in(d, &args).ok();
    let once = read_rows(&d.join("out")).0;
    run_in(d, &args).fails(2, &["output already exists"]);
    run_in(d, &[args.as_slice(), &["--overwrite"]].concat()).ok();
    assert_eq!(read_rows(&d.join("out")).0, once);
}

#[test]
fn readme_filter_example_is_true() {
    let block = crate::util::readme_block(
        "over 1500 reputation, as the filter of the first command has them",
    );
    let dir = crate::util::readme_dir();
    let d = dir.path();
    let mut said = None;
    for line in &block {
        match line.strip_prefix("$ ") {
            Some(_) => said = Some(crate::util::run_readme_line(d, line)),
            // The output's line as the README gives it, up to its `...`.
            None => {
                let out = said.as_deref().expect("a command before its output");
                let want = line.split("...").next().unwrap();
                assert!(out.contains(want), "{want:?} not in\n{out}");
            }
        }
    }
    let (rows, _) = read_rows(&d.join("out/upvoted"));
    let n = block
        .iter()
        .find_map(|l| l.strip_prefix("output ")?.split_once(" rows, "))
        .unwrap()
        .0;
    assert_eq!(rows.len().to_string(), n);
}

/// Inputs, filter and output on S3 (moto): the rows of the local run, committed there.
#[test]
fn on_s3() {
    let s3 = crate::util::S3Server::start();
    let dir = trained();
    let d = dir.path();
    s3.python("s3.create_bucket(Bucket='lake')");
    s3.upload_dir("lake", &d.join("data/sample/comments"), "comments");
    s3.python(&format!(
        "s3.upload_file({:?}, 'lake', 'users.bjf')",
        d.join("users.bjf").to_str().unwrap()
    ));
    let args = [
        "filter",
        "-q",
        "--filter",
        "s3://lake/users.bjf",
        "--input",
        "s3://lake/comments/",
        "--key",
        "UserId",
        "--select",
        "Id,UserId,Score",
        "--workers",
        "2",
        "--output",
        "s3://lake/out",
    ];
    crate::util::run_env(d, &args, &s3.env()).ok();
    let (remote, names) = crate::append_cli::downloaded(&s3, d);
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(read_rows(&remote).0, probed_rows(d, |_| true));
}
