//! `join --overwrite-partitions`: a run replaces the committed parts of the partition
//! directories it writes and keeps the others (Spark's dynamic `partitionOverwriteMode`), so a
//! job that recomputes some partitions can run again and again; it is refused without
//! `--partition-by` and on an output of other columns or partitions, before any row is read;
//! a run that fails or is killed while it commits leaves the committed output as it was.

use std::collections::BTreeMap;
use std::path::Path;

use crate::append_cli::{args, join, manifest, parts};
use crate::util::{read_rows, run_env, run_in};

const BY: [&str; 2] = ["--partition-by", "Score"];

/// The committed output's rows by partition directory (`Score=7`: the rows of its files,
/// sorted), from the files below `out` that a reader would read.
pub(crate) fn by_dir(out: &Path) -> BTreeMap<String, Vec<String>> {
    let mut dirs = BTreeMap::new();
    for p in parts(out) {
        if p.starts_with('_') {
            continue;
        }
        let (dir, _) = p.rsplit_once('/').expect("a part in a partition directory");
        dirs.entry(dir.to_string())
            .or_insert_with(|| read_rows(&out.join(dir)).0);
    }
    dirs
}

/// The comments of the users whose reputation meets `reputation`, scored as `score` says (a
/// `--right-where`), partitioned by Score into `out` with `extra`; the summary.
fn run(d: &Path, reputation: &str, score: &str, out: &str, extra: &[&str]) -> crate::util::Run {
    let mut more = vec!["--right-where", score, BY[0], BY[1]];
    more.extend(extra);
    let args = args(Some(reputation), "Id,UserId,Score", out, &more);
    let args: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| *a != "-q")
        .collect();
    run_in(d, &args)
}

/// The directories of `run` joined alone into a fresh directory.
fn alone(d: &Path, reputation: &str, score: &str) -> BTreeMap<String, Vec<String>> {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let out = format!(
        "alone-{}",
        RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    run(d, reputation, score, &out, &[]).ok();
    by_dir(&d.join(out))
}

#[test]
fn replaced_partitions_hold_the_new_rows_and_the_others_stay() {
    let dir = crate::util::readme_dir();
    let d = dir.path();
    let out = d.join("out");
    let op = ["--overwrite-partitions", "--report", "report.json"];
    // The first run creates the output, as without --overwrite-partitions.
    run(d, "> 1500", "Score >= 0", "out", &op).ok();
    let first = alone(d, "> 1500", "Score >= 0");
    assert_eq!(by_dir(&out), first);
    // The second writes some of those directories and new ones.
    let second = alone(d, "> 100", "Score >= 100");
    let replaced = second.keys().filter(|k| first.contains_key(*k)).count();
    let new = second.len() - replaced;
    assert!(replaced > 0 && new > 0, "{replaced} {new}");
    let mut want = first.clone();
    want.extend(second.clone());
    let kept = first.len() - replaced;
    let kept_parts: usize = first
        .keys()
        .filter(|k| !second.contains_key(*k))
        .map(|k| {
            parts(&out)
                .iter()
                .filter(|p| p.starts_with(&format!("{k}/")))
                .count()
        })
        .sum();
    let summary = run(d, "> 100", "Score >= 100", "out", &op).ok();
    for said in [
        format!("in {} partition directories of Score", second.len()),
        format!("; replaced {replaced} directories of the committed output, kept {kept} directories ({kept_parts} parts)"),
    ] {
        assert!(summary.contains(&said), "{said}\n{summary}");
    }
    assert_eq!(by_dir(&out), want);
    assert_eq!(manifest(&out), parts(&out));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("report.json")).unwrap()).unwrap();
    assert_eq!(
        report["kept"],
        serde_json::json!({"parts": kept_parts, "partition_dirs": kept, "partition_dirs_replaced": replaced})
    );
    // `_SUCCESS` says it too.
    let success: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("_SUCCESS")).unwrap()).unwrap();
    assert_eq!(success["kept"], report["kept"]);
    // Again: the same output (a rerun of a job that recomputes partitions changes nothing).
    let before = parts(&out);
    run(d, "> 100", "Score >= 100", "out", &op).ok();
    assert_eq!(by_dir(&out), want);
    assert_eq!(manifest(&out), parts(&out));
    assert!(parts(&out)
        .iter()
        .all(|p| !before.contains(p) || !second.keys().any(|k| p.starts_with(&format!("{k}/")))));
    // A run that writes no row replaces nothing.
    let none = run(d, "> 100", "Score > 100000", "out", &op).ok();
    assert!(
        none.contains(&format!(
            "replaced 0 directories of the committed output, kept {} directories",
            want.len()
        )),
        "{none}"
    );
    assert_eq!(by_dir(&out), want);
    assert_eq!(manifest(&out), parts(&out));
    // --overwrite still replaces everything.
    run(d, "< 10", "Score >= 0", "out", &["--overwrite"]).ok();
    assert_eq!(by_dir(&out), alone(d, "< 10", "Score >= 0"));
}

#[test]
fn refused_before_any_row_is_read_and_the_output_left_as_it_was() {
    let dir = crate::util::readme_dir();
    let d = dir.path();
    let out = d.join("out");
    // Not partitioned: there are no partitions to replace.
    join(d, "> 1500", "flat", &["--overwrite-partitions"]).fails(
        2,
        &["invalid --overwrite-partitions: replaces the partition directories this run writes, and without --partition-by it writes none"],
    );
    assert!(!d.join("flat").exists());
    run(d, "> 1500", "Score >= 0", "out", &[]).ok();
    let (before, success) = (parts(&out), std::fs::read(out.join("_SUCCESS")).unwrap());
    let unchanged = || {
        assert_eq!(parts(&out), before);
        assert_eq!(std::fs::read(out.join("_SUCCESS")).unwrap(), success);
        assert!(!out.join("_temporary").exists());
    };
    // Other columns.
    let other = args(
        Some("> 10"),
        "Id,Score",
        "out",
        &["--overwrite-partitions", BY[0], BY[1]],
    );
    run_in(d, &other.iter().map(String::as_str).collect::<Vec<_>>()).fails(
        2,
        &["invalid --overwrite-partitions: the parts of out hold the columns (Id Int64, UserId Int32), and this join writes (Id Int64): they must be the same columns"],
    );
    unchanged();
    // Other partitions.
    join(
        d,
        "> 10",
        "out",
        &["--overwrite-partitions", "--partition-by", "UserId"],
    )
    .fails(
        2,
        &["invalid --overwrite-partitions: out is partitioned by Score, and this join's output would be partitioned by UserId"],
    );
    unchanged();
    // With --overwrite or --append, on the command line and in a job file.
    for (other, why) in [
        ("--overwrite", "--overwrite the whole output"),
        ("--append", "--append adds to them"),
    ] {
        run(
            d,
            "> 10",
            "Score >= 0",
            "out",
            &["--overwrite-partitions", other],
        )
        .fails(
            2,
            &[&format!(
                "'--overwrite-partitions' cannot be used with '{other}'"
            )],
        );
        std::fs::write(
            d.join("job.toml"),
            format!("[join]\nleft = [\"data/sample/users\"]\nleft-key = \"Id\"\nright = [\"data/sample/comments\"]\nright-key = \"UserId\"\ntype = \"right-semi\"\nselect = \"Id,UserId,Score\"\npartition-by = \"Score\"\noutput = \"out\"\noverwrite-partitions = true\n{} = true\n", &other[2..]),
        )
        .unwrap();
        run_in(d, &["run", "job.toml"]).fails(2, &["overwrite-partitions", why]);
        unchanged();
    }
    // The dry run says what a run would do.
    let plan = run(
        d,
        "> 10",
        "Score >= 0",
        "out",
        &["--overwrite-partitions", "--dry-run"],
    )
    .ok();
    assert!(
        plan.contains("replaces the committed partitions it writes and keeps the others: --overwrite-partitions"),
        "{plan}"
    );
    let json = ["--overwrite-partitions", "--dry-run=json"];
    let plan: serde_json::Value =
        serde_json::from_str(&run(d, "> 10", "Score >= 0", "out", &json).ok()).unwrap();
    assert_eq!(
        plan["output"]["write_mode"], "overwrite-partitions",
        "{plan}"
    );
    assert_eq!(plan["output"]["replaces"], true, "{plan}");
    unchanged();
}

#[test]
fn a_failed_or_killed_run_leaves_the_committed_partitions_as_they_were() {
    let dir = crate::util::readme_dir();
    let d = dir.path();
    let out = d.join("out");
    run(d, "> 1500", "Score >= 0", "out", &[]).ok();
    let (before, success) = (parts(&out), std::fs::read(out.join("_SUCCESS")).unwrap());
    let rows = by_dir(&out);
    // An error after the parts are moved in, before `_SUCCESS`: they are moved out again,
    // and the parts they would replace are all there.
    let args = args(
        Some("> 100"),
        "Id,UserId,Score",
        "out",
        &[
            "--right-where",
            "Score >= 100",
            "--overwrite-partitions",
            BY[0],
            BY[1],
        ],
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let env = [("BLOOMJOIN_FAULT".to_string(), "commit:error".to_string())];
    run_env(d, &args, &env).fails(1, &["injected fault at commit"]);
    assert_eq!(parts(&out), before);
    assert_eq!(std::fs::read(out.join("_SUCCESS")).unwrap(), success);
    assert_eq!(by_dir(&out), rows);
    // Killed with the parts moved in: the old `_SUCCESS` still names the committed parts,
    // which are all there.
    crate::util::kill_in_commit(d, &args, || parts(&out).len() > before.len());
    assert_eq!(std::fs::read(out.join("_SUCCESS")).unwrap(), success);
    let now = parts(&out);
    assert!(before.iter().all(|p| now.contains(p)));
    // The next run removes the dead run's parts and replaces the partitions it writes.
    run_in(d, &args).ok();
    let mut want = rows;
    want.extend(alone(d, "> 100", "Score >= 100"));
    assert_eq!(by_dir(&out), want);
    assert_eq!(manifest(&out), parts(&out));
}

/// On S3 (moto) too: the replaced partitions' objects are gone, the others stay, and
/// `_SUCCESS` (replaced in one put) names what is there.
#[test]
fn overwrite_partitions_on_s3() {
    let s3 = crate::util::S3Server::start();
    let dir = crate::util::readme_dir();
    let d = dir.path();
    s3.python("s3.create_bucket(Bucket='lake')");
    let env = s3.env();
    // Fewer directories than locally: each part is an object moved by a copy and a delete.
    let runs = [
        ("> 1500", "Score BETWEEN 100 AND 200"),
        ("> 100", "Score BETWEEN 150 AND 250"),
    ];
    for (r, score) in runs {
        let args = args(
            Some(r),
            "Id,UserId,Score",
            "s3://lake/out",
            &[
                "--right-where",
                score,
                "--overwrite-partitions",
                BY[0],
                BY[1],
            ],
        );
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_env(d, &args, &env).ok();
    }
    let (remote, names) = crate::append_cli::downloaded(&s3, d);
    assert_eq!(manifest(&remote), names);
    let mut want = alone(d, runs[0].0, runs[0].1);
    let second = alone(d, runs[1].0, runs[1].1);
    // Some directories replaced, some kept.
    assert!(second.keys().any(|k| want.contains_key(k)));
    assert!(want.keys().any(|k| !second.contains_key(k)));
    want.extend(second);
    assert_eq!(by_dir(&remote), want);
}

#[test]
fn readme_overwrite_partitions_example_is_true() {
    let (dir, runs) = crate::util::run_readme_example("- `--overwrite-partitions` (job key");
    let d = dir.path();
    let out = d.join("out/scores");
    assert_eq!(manifest(&out), parts(&out));
    // The second run's directories hold its rows, the others the first run's.
    let (first, second) = (&runs[0].0, &runs[1].0);
    let alone = |line: &str, to: &str| {
        let line = line.replace("out/scores", to);
        crate::util::run_readme_line(d, &line);
        by_dir(&d.join(to))
    };
    let mut want = alone(first, "a");
    want.extend(alone(second, "b"));
    assert_eq!(by_dir(&out), want);
    // The counts the README gives.
    let block = crate::util::readme_block("- `--overwrite-partitions` (job key");
    let (_, said) = block[3].split_once("...; ").unwrap();
    let said = said.trim_end_matches(" (...)");
    assert!(said.starts_with("replaced "), "{said}");
    assert!(runs[1].1.contains(said), "{}", runs[1].1);
    assert!(!runs[0].1.contains("replaced "), "{}", runs[0].1);
}
