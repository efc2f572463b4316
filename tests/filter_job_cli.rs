//! `bloomjoin filter`, the map-only Bloom filtering job: its output is exactly the input rows
//! whose key `probe` calls "maybe" (so every row of a key the filter was trained on), for any
//! number of workers, split size and batch size; bad input is a one-line error with nothing
//! written; the output commits as a join's does (refused when committed, or replaced,
//! appended to, or its partitions replaced). `--invert` keeps exactly the other rows. A job
//! file's `[filter]` step runs it after the train step, with that step's filter.

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
    probed(d, keep_score, false)
}

/// [`probed_rows`], or (`invert`) the other comments of such a score: those whose `UserId`
/// `probe` calls "no", and those without one (`NULL`).
fn probed(d: &Path, keep_score: impl Fn(i32) -> bool, invert: bool) -> Vec<String> {
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
            keep_score(*score)
                && u.is_some_and(|u| maybe.contains(u.to_string().as_str())) != invert
        })
        .map(|(id, u, score)| {
            let u = u.map_or("NULL".to_string(), |u| u.to_string());
            format!("{id}|{u}|{score}")
        })
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
        &["--max-rows-per-file", "1000", "--row-group-rows", "300"],
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
        // Bounded files: every file and row group within its limit, and _SUCCESS names them.
        let parts = crate::append_cli::parts(&d.join(&out));
        assert_eq!(crate::append_cli::manifest(&d.join(&out)), parts);
        if extra.contains(&"--max-rows-per-file") {
            assert!(parts.len() >= want.len() / 1000, "{parts:?}");
            for p in &parts {
                let f = std::fs::File::open(d.join(&out).join(p)).unwrap();
                let meta = parquet::file::reader::SerializedFileReader::new(f).unwrap();
                let meta = parquet::file::reader::FileReader::metadata(&meta);
                assert!(meta.file_metadata().num_rows() <= 1000, "{p}");
                assert!(meta.row_groups().iter().all(|g| g.num_rows() <= 300), "{p}");
            }
        }
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
        (&["--key", "UserId", "--select", "Id,Id", "-o", "out"], "invalid --select: column \"Id\" is selected twice (name the second with `AS`)"),
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

/// `--invert` keeps the rows the filter rules out and those with a null key: with the rows
/// kept without it, exactly the input, for any workers, splits and batches.
#[test]
fn invert_keeps_exactly_the_other_rows_and_null_keys() {
    let dir = trained();
    let d = dir.path();
    let kept = probed(d, |_| true, false);
    let want = probed(d, |_| true, true);
    let nulls = want.iter().filter(|r| r.contains("|NULL|")).count();
    assert!(nulls > 0);
    let mut all: Vec<String> = comments(d)
        .iter()
        .map(|(id, u, score)| {
            let u = u.map_or("NULL".to_string(), |u| u.to_string());
            format!("{id}|{u}|{score}")
        })
        .collect();
    all.sort();
    let mut both = [kept.clone(), want.clone()].concat();
    both.sort();
    assert_eq!(both, all);
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
    ]
    .iter()
    .enumerate()
    {
        let out = format!("inv-{i}");
        let mut args = vec![
            "--invert",
            "--select",
            "Id,UserId,Score",
            "--output",
            &out,
            "--report",
            "r.json",
        ];
        args.extend(extra.iter());
        let summary = filter(d, &args).ok();
        assert_eq!(read_rows(&d.join(&out)).0, want, "{extra:?}");
        assert!(
            summary.contains(&format!(
                "  filter {} rows dropped: the filter may hold their key (--invert",
                kept.len()
            )) && summary.contains(&format!("{nulls} rows kept for their null key")),
            "{summary}"
        );
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
        assert_eq!(report["invert"], true);
        assert_eq!(report["rows_out"], want.len());
        assert_eq!(report["input"]["rows_dropped_by_filter"], kept.len());
        assert_eq!(report["input"]["rows_null_key"], nulls);
    }
    // With --where, and every column: the same rows.
    filter(
        d,
        &["-q", "--invert", "--where", "Score >= 10", "-o", "wide"],
    )
    .ok();
    let (rows, names) = read_rows(&d.join("wide"));
    assert_eq!(names.len(), 7);
    // Id, UserId and Score (the last column: Text may hold a `|`).
    let pick = |r: &String| {
        let c: Vec<&str> = r.split('|').collect();
        format!("{}|{}|{}", c[0], c[2], c[c.len() - 1])
    };
    let mut narrow: Vec<String> = rows.iter().map(pick).collect();
    narrow.sort();
    assert_eq!(narrow, probed(d, |s| s >= 10, true));
}

/// `--partition-by` with `--overwrite-partitions` and `--append`: each directory holds the
/// rows of the run that wrote it last (or, appended, of both), and a run whose columns or
/// partitions differ is refused with the output as it was.
#[test]
fn partitioned_outputs_are_replaced_by_directory_and_appended_to() {
    use crate::overwrite_partitions_cli::by_dir;
    use std::collections::BTreeMap;
    let dir = trained();
    let d = dir.path();
    // The expected directories of the probed rows of the scores `keep` keeps.
    let dirs = |keep: &dyn Fn(i32) -> bool| {
        let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in probed_rows(d, keep) {
            let (rest, score) = r.rsplit_once('|').unwrap();
            m.entry(format!("Score={score}"))
                .or_default()
                .push(rest.to_string());
        }
        m
    };
    let run = |score: &str, mode: &[&str]| {
        let mut args = vec![
            "--select",
            "Id,UserId,Score",
            "--partition-by",
            "Score",
            "--where",
            score,
            "-o",
            "p",
        ];
        args.extend(mode);
        filter(d, &args)
    };
    run("Score < 3", &["-q"]).ok();
    assert_eq!(by_dir(&d.join("p")), dirs(&|s| s < 3));
    let s = run("Score >= 2 AND Score < 5", &["--overwrite-partitions"]).ok();
    let mut want = dirs(&|s| s < 2);
    want.extend(dirs(&|s| (2..5).contains(&s)));
    assert_eq!(by_dir(&d.join("p")), want);
    let said = format!(
        "partition directories of Score; replaced {} directory of the committed output, kept {} directories",
        1,
        dirs(&|s| s < 2).len()
    );
    assert!(s.contains(&said), "{said:?} not in {s}");
    let s = run("Score = 9 OR Score = 0", &["--append"]).ok();
    for (dir, rows) in dirs(&|s| s == 9 || s == 0) {
        let have = want.entry(dir).or_default();
        have.extend(rows);
        have.sort();
    }
    assert_eq!(by_dir(&d.join("p")), want);
    assert!(s.contains("; added to the committed output's"), "{s}");
    // Refused, with nothing changed: another --partition-by, other columns, no
    // --partition-by for --overwrite-partitions.
    let before = crate::append_cli::manifest(&d.join("p"));
    for (extra, needle) in [
        (
            &["--append"][..],
            "p is partitioned by Score, and this filter's output would be not partitioned",
        ),
        (
            &[
                "--select",
                "Id,Score",
                "--partition-by",
                "Score",
                "--append",
            ],
            "and this filter writes (Id Int64)",
        ),
        (
            &["--overwrite-partitions"],
            "without --partition-by it writes none",
        ),
        (&["--append", "--overwrite"], "--overwrite"),
    ] {
        let mut args = vec!["-o", "p"];
        args.extend(extra);
        filter(d, &args).fails(2, &[needle]);
        assert_eq!(
            crate::append_cli::manifest(&d.join("p")),
            before,
            "{extra:?}"
        );
    }
    assert_eq!(by_dir(&d.join("p")), want);
}

/// `filter --dry-run` checks and plans as the run would, and writes nothing.
#[test]
fn dry_run_plans_and_writes_nothing() {
    let dir = trained();
    let d = dir.path();
    let text = filter(
        d,
        &[
            "--invert",
            "--partition-by",
            "Score",
            "-o",
            "out",
            "--dry-run",
        ],
    )
    .ok();
    for needle in [
        "dry run (filter, inverted, ",
        "nothing read but footers and the filter, nothing written",
        "key UserId (Int32)",
        "filter users.bjf: split layout",
        "--invert: keeps the rows whose key it rules out, and null keys",
        "output out (new): 7 columns",
        "partitioned by Score",
    ] {
        assert!(text.contains(needle), "{needle:?} not in\n{text}");
    }
    let json = filter(
        d,
        &["-q", "--where", "Score > 3", "-o", "out", "--dry-run=json"],
    )
    .ok();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["dry_run"], "filter");
    assert_eq!(v["invert"], false);
    assert_eq!(v["input"]["where"], "Score > 3");
    assert_eq!(v["input"]["rows"], 100_000);
    assert_eq!(v["filter"]["source"], "file");
    assert_eq!(v["output"]["write_mode"], "create");
    assert!(!d.join("out").exists());
    // What the run refuses, the dry run refuses.
    filter(d, &["--where", "Nope > 1", "-o", "out", "--dry-run"]).fails(2, &["Nope"]);
    filter(d, &["-o", "data/sample/comments/x", "--dry-run"]).fails(2, &["--output"]);
}

/// A job file's `[filter]` step runs after the train step, on its filter by default; its
/// rows are the command line's.
#[test]
fn a_job_files_filter_step_uses_the_train_steps_filter() {
    let dir = trained();
    let d = dir.path();
    let job = r#"
[train]
input = "data/sample/users"
column = "Id"
where = "Reputation > 1500"
output = "out/users.bjf"
[filter]
input = "data/sample/comments"
key = "UserId"
select = "Id,UserId,Score"
output = "out/others"
invert = true
"#;
    std::fs::write(d.join("j.toml"), job).unwrap();
    let plan = run_in(d, &["run", "j.toml", "--dry-run=json"]).ok();
    let v: serde_json::Value = serde_json::from_str(&plan).unwrap();
    assert_eq!(v["steps"][1]["dry_run"], "filter");
    assert_eq!(v["steps"][1]["filter"]["source"], "train_step");
    assert!(!d.join("out").exists());
    let s = run_in(d, &["run", "j.toml"]).ok();
    assert!(s.contains("job j.toml: train, then filter"), "{s}");
    // The same filter bytes as `trained`'s, so the same rows as the command line's.
    assert_eq!(
        std::fs::read(d.join("out/users.bjf")).unwrap(),
        std::fs::read(d.join("users.bjf")).unwrap()
    );
    assert_eq!(
        read_rows(&d.join("out/others")).0,
        probed(d, |_| true, true)
    );
    assert!(s.contains("rows out in out/others"), "{s}");
    // Keys are checked and overridden as the other steps' are.
    let s = run_in(
        d,
        &[
            "run",
            "j.toml",
            "--set",
            "filter.invert=false",
            "--set",
            "filter.output=out/kept",
            "--set",
            "train.overwrite=true",
        ],
    )
    .ok();
    assert!(s.contains("filter"), "{s}");
    assert_eq!(read_rows(&d.join("out/kept")).0, probed_rows(d, |_| true));
    run_in(d, &["run", "j.toml", "--set", "filter.keys=UserId"])
        .fails(2, &["filter.keys", "unknown field `keys`"]);
    // Without a train step, `filter` is required; a filter nobody writes is refused before
    // anything runs.
    let alone = job.split("[filter]").nth(1).unwrap();
    std::fs::write(d.join("f.toml"), format!("[filter]{alone}")).unwrap();
    run_in(d, &["run", "f.toml"]).fails(2, &["f.toml: [filter]: missing key `filter`"]);
    std::fs::write(
        d.join("f.toml"),
        format!("[filter]\nfilter = \"nope.bjf\"{alone}"),
    )
    .unwrap();
    run_in(d, &["run", "f.toml", "--set", "filter.output=out/x"])
        .fails(2, &["nope.bjf: the filter step's filter does not exist"]);
    assert!(!d.join("out/x").exists());
}
