//! `join --append`: runs add their parts to a committed output, and `_SUCCESS` names them
//! all; an output of other columns or partitions is refused before any row is read; a run
//! that fails or is killed while it commits leaves the committed output as it was, and the
//! next run removes what it left; `--overwrite` still replaces everything.

use std::path::Path;

use crate::util::{files_below, read_rows, run_env, run_in};

/// The arguments of a right-semi join of the sample's comments on the users whose
/// `Reputation` meets `reputation` (a `--left-where` condition, or `None`: every user), their
/// `Id,UserId,Score` (or `select`) into `out`, with `extra` options.
pub(crate) fn args(
    reputation: Option<&str>,
    select: &str,
    out: &str,
    extra: &[&str],
) -> Vec<String> {
    let mut args: Vec<String> = [
        "join",
        "-q",
        "--left",
        "data/sample/users",
        "--left-key",
        "Id",
        "--right",
        "data/sample/comments",
        "--right-key",
        "UserId",
        "--type",
        "right-semi",
        "--select",
        select,
        "--output",
        out,
    ]
    .map(String::from)
    .to_vec();
    if let Some(r) = reputation {
        args.extend(["--left-where".to_string(), format!("Reputation {r}")]);
    }
    args.extend(extra.iter().map(|e| e.to_string()));
    args
}

/// Run [`args`] of every output column in `d`.
pub(crate) fn join(d: &Path, reputation: &str, out: &str, extra: &[&str]) -> crate::util::Run {
    let args = args(Some(reputation), "Id,UserId,Score", out, extra);
    run_in(d, &args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// The parts `_SUCCESS` names, sorted.
pub(crate) fn manifest(out: &Path) -> Vec<String> {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("_SUCCESS")).unwrap()).unwrap();
    let mut parts: Vec<String> = m["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    parts.sort();
    parts
}

/// The Parquet files below `out`, sorted (relative paths).
pub(crate) fn parts(out: &Path) -> Vec<String> {
    files_below(out)
        .into_iter()
        .filter(|f| f.ends_with(".parquet"))
        .collect()
}

/// The rows of every Parquet file below `out` (by their footers: a partitioned output's
/// files lack the partition columns).
pub(crate) fn file_rows(out: &Path) -> i64 {
    parts(out)
        .iter()
        .map(|f| {
            let file = std::fs::File::open(out.join(f)).unwrap();
            parquet::file::reader::FileReader::metadata(
                &parquet::file::reader::SerializedFileReader::new(file).unwrap(),
            )
            .file_metadata()
            .num_rows()
        })
        .sum()
}

/// The rows of `out` after joining each `--left-where` alone into a fresh directory.
fn each_alone(d: &Path, reputations: &[&str], extra: &[&str]) -> Vec<String> {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let mut rows = Vec::new();
    for r in reputations {
        let i = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let out = format!("alone-{i}");
        join(d, r, &out, extra).ok();
        rows.extend(read_rows(&d.join(out)).0);
    }
    rows.sort();
    rows
}

#[test]
fn appended_runs_keep_every_committed_part_and_overwrite_replaces_them() {
    let dir = crate::util::readme_dir();
    let d = dir.path();
    let out = d.join("out");
    // The first run creates the output, as without --append.
    join(d, "> 1500", "out", &["--append"]).ok();
    let first = parts(&out);
    assert_eq!(manifest(&out), first);
    join(
        d,
        "BETWEEN 100 AND 1500",
        "out",
        &["--append", "--workers", "1"],
    )
    .ok();
    let both = parts(&out);
    assert!(first.iter().all(|p| both.contains(p)), "{first:?} {both:?}");
    assert_eq!(both.len(), first.len() + 1);
    assert_eq!(manifest(&out), both);
    assert_eq!(
        read_rows(&out).0,
        each_alone(d, &["> 1500", "BETWEEN 100 AND 1500"], &[])
    );
    // The same rows again: a second copy of each, as Spark's append gives.
    join(d, "> 1500", "out", &["--append"]).ok();
    let mut twice = each_alone(d, &["> 1500", "BETWEEN 100 AND 1500", "> 1500"], &[]);
    twice.sort();
    assert_eq!(read_rows(&out).0, twice);
    assert_eq!(manifest(&out), parts(&out));
    // --overwrite replaces them all.
    join(d, "< 10", "out", &["--overwrite"]).ok();
    assert_eq!(read_rows(&out).0, each_alone(d, &["< 10"], &[]));
    assert_eq!(manifest(&out), parts(&out));
    assert!(parts(&out).iter().all(|p| !both.contains(p)));
}

#[test]
fn appended_partitions_gather_in_their_directories() {
    let dir = crate::util::readme_dir();
    let d = dir.path();
    let out = d.join("out");
    let by = ["--partition-by", "Score"];
    join(d, "> 1500", "out", &["--append", by[0], by[1]]).ok();
    join(
        d,
        "BETWEEN 100 AND 1500",
        "out",
        &["--append", by[0], by[1]],
    )
    .ok();
    assert_eq!(manifest(&out), parts(&out));
    // Every part sits in a Score= directory, and some directory holds both runs' parts.
    let dirs: Vec<String> = parts(&out)
        .iter()
        .map(|p| p.split_once('/').unwrap().0.to_string())
        .collect();
    assert!(dirs.iter().all(|s| s.starts_with("Score=")), "{dirs:?}");
    let mut unique = dirs.clone();
    unique.sort();
    unique.dedup();
    assert!(
        unique.len() < dirs.len(),
        "no directory holds both runs' parts"
    );
    // As many rows as the two runs wrote alone.
    join(d, "> 1500", "a", &by).ok();
    join(d, "BETWEEN 100 AND 1500", "b", &by).ok();
    assert_eq!(
        file_rows(&out),
        file_rows(&d.join("a")) + file_rows(&d.join("b"))
    );
}

#[test]
fn an_output_of_other_columns_or_partitions_is_refused_and_left_as_it_was() {
    let dir = crate::util::readme_dir();
    let d = dir.path();
    let out = d.join("out");
    join(d, "> 1500", "out", &[]).ok();
    let (before, success) = (parts(&out), std::fs::read(out.join("_SUCCESS")).unwrap());
    let unchanged = || {
        assert_eq!(parts(&out), before);
        assert_eq!(std::fs::read(out.join("_SUCCESS")).unwrap(), success);
        assert!(!out.join("_temporary").exists());
    };
    // Another column list.
    let other = args(None, "Id,Score", "out", &["--append"]);
    run_in(d, &other.iter().map(String::as_str).collect::<Vec<_>>())
    .fails(
        2,
        &[
            "invalid --append: the parts of out hold the columns (Id Int64, UserId Int32, Score Int32), and this join writes (Id Int64, Score Int32)",
        ],
    );
    unchanged();
    // Another partitioning.
    join(d, "> 1500", "out", &["--append", "--partition-by", "Score"]).fails(
        2,
        &["invalid --append: out is not partitioned, and this join's output would be partitioned by Score"],
    );
    unchanged();
    // Both ways of writing at once, on the command line and in a job file.
    join(d, "> 1500", "out", &["--append", "--overwrite"])
        .fails(2, &["'--append' cannot be used with '--overwrite'"]);
    std::fs::write(
        d.join("job.toml"),
        "[join]\nleft = [\"data/sample/users\"]\nleft-key = \"Id\"\nright = [\"data/sample/comments\"]\nright-key = \"UserId\"\ntype = \"right-semi\"\nselect = \"Id,UserId,Score\"\noutput = \"out\"\nappend = true\noverwrite = true\n",
    )
    .unwrap();
    run_in(d, &["run", "job.toml"]).fails(2, &["append", "overwrite"]);
    unchanged();
    // The dry run says what a run would do.
    let dry = args(None, "Id,UserId,Score", "out", &["--append", "--dry-run"]);
    let dry: Vec<&str> = dry
        .iter()
        .map(String::as_str)
        .filter(|a| *a != "-q")
        .collect();
    let plan = run_in(d, &dry).ok();
    assert!(
        plan.contains("adds to the committed output: --append"),
        "{plan}"
    );
    unchanged();
}

#[test]
fn a_failed_or_killed_append_leaves_the_committed_output_as_it_was() {
    let dir = crate::util::readme_dir();
    let d = dir.path();
    let out = d.join("out");
    join(d, "> 1500", "out", &[]).ok();
    let (before, success) = (parts(&out), std::fs::read(out.join("_SUCCESS")).unwrap());
    let rows = read_rows(&out).0;
    // An error after the parts are moved in, before `_SUCCESS`: they are moved out again.
    let args = args(
        Some("BETWEEN 100 AND 1500"),
        "Id,UserId,Score",
        "out",
        &["--append"],
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let env = [("BLOOMJOIN_FAULT".to_string(), "commit:error".to_string())];
    run_env(d, &args, &env).fails(1, &["injected fault at commit"]);
    assert_eq!(parts(&out), before);
    assert_eq!(std::fs::read(out.join("_SUCCESS")).unwrap(), success);
    // Killed with the parts moved in: the old `_SUCCESS` still names the committed parts.
    crate::util::kill_in_commit(d, &args, || parts(&out).len() > before.len());
    assert_eq!(std::fs::read(out.join("_SUCCESS")).unwrap(), success);
    assert!(parts(&out).len() > before.len());
    // The next append removes the dead run's parts and keeps the committed ones.
    join(d, "< 10", "out", &["--append"]).ok();
    let now = parts(&out);
    assert!(before.iter().all(|p| now.contains(p)));
    assert_eq!(manifest(&out), now);
    let mut want = rows;
    want.extend(each_alone(d, &["< 10"], &[]));
    want.sort();
    assert_eq!(read_rows(&out).0, want);
}

/// On S3 (moto) too: the second run's parts join the first's, and `_SUCCESS` (replaced in
/// one put) names them all; the rows are those of the local runs.
#[test]
fn appended_on_s3() {
    let s3 = crate::util::S3Server::start();
    let dir = crate::util::readme_dir();
    let d = dir.path();
    s3.python("s3.create_bucket(Bucket='lake')");
    let env = s3.env();
    for r in ["> 1500", "BETWEEN 100 AND 1500"] {
        let args = args(Some(r), "Id,UserId,Score", "s3://lake/out", &["--append"]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_env(d, &args, &env).ok();
    }
    let (remote, names) = downloaded(&s3, d);
    assert_eq!(names.len(), 4, "{names:?}");
    assert_eq!(manifest(&remote), names);
    assert_eq!(
        read_rows(&remote).0,
        each_alone(d, &["> 1500", "BETWEEN 100 AND 1500"], &[])
    );
}

/// The output `s3://lake/out` downloaded into `d/remote`, and its Parquet objects' names
/// below it, sorted.
pub(crate) fn downloaded(
    s3: &crate::util::S3Server,
    d: &Path,
) -> (std::path::PathBuf, Vec<String>) {
    let keys = s3.keys("lake", "out/");
    s3.download("lake", "out", &d.join("remote"));
    let mut names: Vec<String> = keys
        .iter()
        .filter(|k| k.ends_with(".parquet"))
        .map(|k| k.trim_start_matches("out/").to_string())
        .collect();
    names.sort();
    (d.join("remote"), names)
}

#[test]
fn readme_append_example_is_true() {
    let (dir, runs) = crate::util::run_readme_example("- `--append` (job key");
    let d = dir.path();
    // The two runs' rows, as their summaries say.
    let total: i64 = runs
        .iter()
        .map(|(_, out)| {
            let (_, after) = out.split_once("  output ").unwrap();
            after
                .split_whitespace()
                .next()
                .unwrap()
                .parse::<i64>()
                .unwrap()
        })
        .sum();
    let out = d.join("out/daily");
    assert_eq!(manifest(&out), parts(&out));
    assert_eq!(file_rows(&out), total);
    // `_SUCCESS` counts what the second run kept: the first run's parts.
    let success: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("_SUCCESS")).unwrap()).unwrap();
    let run_id = success["run_id"].as_str().unwrap();
    let first: Vec<&str> = success["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .filter(|p| !p.contains(run_id))
        .collect();
    assert!(!first.is_empty());
    assert_eq!(success["kept"]["parts"], first.len(), "{success}");
    let dirs: std::collections::BTreeSet<&str> = first
        .iter()
        .filter_map(|p| p.rsplit_once('/').map(|(d, _)| d))
        .collect();
    assert_eq!(success["kept"]["partition_dirs"], dirs.len());
    assert!(success["kept"].get("partition_dirs_replaced").is_none());
}

/// Two appends at once: the commit lease orders them, the second reads the first's manifest,
/// and `_SUCCESS` names the parts of both.
#[test]
fn concurrent_appends_keep_both_runs() {
    let dir = crate::util::readme_dir();
    let d = dir.path();
    let out = d.join("out");
    join(d, "< 10", "out", &[]).ok();
    let spawn = |reputation: &str| {
        std::process::Command::new(crate::util::bin())
            .args(args(
                Some(reputation),
                "Id,UserId,Score",
                "out",
                &["--append"],
            ))
            .current_dir(d)
            .env("BLOOMJOIN_FAULT", "commit:sleep-300")
            .spawn()
            .unwrap()
    };
    let (mut a, mut b) = (spawn("> 1500"), spawn("BETWEEN 100 AND 1500"));
    assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
    assert_eq!(manifest(&out), parts(&out));
    assert_eq!(
        read_rows(&out).0,
        each_alone(d, &["< 10", "> 1500", "BETWEEN 100 AND 1500"], &[])
    );
}

/// A part a person removed is not named again; a `_SUCCESS` that is not a bloomjoin manifest
/// is refused before any row is read, naming it.
#[test]
fn the_manifest_names_what_is_there_and_must_be_ours() {
    let dir = crate::util::readme_dir();
    let d = dir.path();
    let out = d.join("out");
    join(d, "> 1500", "out", &["--workers", "2"]).ok();
    let first = parts(&out);
    assert_eq!(first.len(), 2);
    std::fs::remove_file(out.join(&first[0])).unwrap();
    join(d, "< 10", "out", &["--append"]).ok();
    assert_eq!(manifest(&out), parts(&out));
    assert!(!manifest(&out).contains(&first[0]));
    std::fs::write(out.join("_SUCCESS"), "written by another tool\n").unwrap();
    let before = parts(&out);
    join(d, "< 10", "out", &["--append"]).fails(
        2,
        &["\"out/_SUCCESS\": not a bloomjoin manifest (JSON): cannot append to an output whose parts it does not name"],
    );
    assert_eq!(parts(&out), before);
}
