//! Job files and sample data through the binary: every file in jobs/ runs (in a temporary
//! working directory where `data` points at the repository's, so the jobs' relative paths
//! resolve there) and gives the row count of its checked-in expected result; `--set`,
//! unknown keys, a failing step stopping the chain; datagen determinism and the committed
//! sample.

use std::path::{Path, PathBuf};

use crate::util::{files_below, read_rows, root, run_in};

/// Every job file with a test below; `every_job_file_has_a_test` keeps the list complete.
const TESTED_JOBS: &[&str] = &[
    "users_comments",
    "users_comments_left",
    "users_comments_semi",
    "users_comments_anti",
    "comments_users_right",
    "comments_users_semi",
    "comments_users_anti",
    "users_comments_full",
    "users_comments_by_name",
    "users_comments_by_id_name",
    "users_comments_over_upvotes",
];

/// A temporary working directory with `data` linked to the repository's.
fn workdir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root().join("data"), d.path().join("data")).unwrap();
    d
}

fn job(name: &str) -> String {
    root()
        .join("jobs")
        .join(format!("{name}.toml"))
        .display()
        .to_string()
}

/// A field of jobs/expected/<name>.json.
fn expected(name: &str) -> serde_json::Value {
    let p = root().join("jobs/expected").join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

/// The join output directory a job file names (relative to the working directory).
fn join_output(name: &str) -> PathBuf {
    let text = std::fs::read_to_string(job(name)).unwrap();
    let doc: toml::Table = text.parse().unwrap();
    PathBuf::from(doc["join"]["output"].as_str().unwrap())
}

/// Run a job file as written in a fresh working directory; check the summary, the output's
/// rows and columns against the expected result, and that nothing is written elsewhere.
fn run_job(name: &str) {
    let d = workdir();
    let out = run_in(d.path(), &["run", &job(name)]).ok();
    assert!(out.starts_with(&format!("job {}: ", job(name))), "{out}");
    assert!(out.contains("joined ("), "join summary: {out}");
    assert!(out.contains("rows read"), "counters: {out}");
    let exp = expected(name);
    let rows = exp["rows"].as_u64().unwrap();
    assert!(
        out.contains(&format!("  output {rows} rows")),
        "expected {rows} rows: {out}"
    );
    let dir = d.path().join(join_output(name));
    assert!(dir.join("_SUCCESS").exists());
    let (got, names) = read_rows(&dir);
    assert_eq!(got.len() as u64, rows, "{name}");
    let want: Vec<String> = exp["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    if rows > 0 {
        assert_eq!(names, want, "{name}");
    }
    // Everything the job wrote is under out/ (plus the data link).
    for f in files_below(d.path()) {
        assert!(
            f.starts_with("out/") || f.starts_with("data/"),
            "{name} wrote {f}"
        );
    }
    // A rerun works (overwrite = true) and gives the same rows.
    run_in(d.path(), &["-q", "run", &job(name)]).ok();
    assert_eq!(read_rows(&dir).0, got, "{name}: rerun");
}

#[test]
fn job_users_comments() {
    run_job("users_comments");
}

#[test]
fn job_users_comments_left() {
    run_job("users_comments_left");
}

#[test]
fn job_users_comments_semi() {
    run_job("users_comments_semi");
}

#[test]
fn job_users_comments_anti() {
    run_job("users_comments_anti");
}

#[test]
fn job_comments_users_right() {
    run_job("comments_users_right");
}

#[test]
fn job_comments_users_semi() {
    run_job("comments_users_semi");
}

#[test]
fn job_comments_users_anti() {
    run_job("comments_users_anti");
}

#[test]
fn job_users_comments_full() {
    run_job("users_comments_full");
}

#[test]
fn job_users_comments_by_name() {
    run_job("users_comments_by_name");
}

#[test]
fn job_users_comments_by_id_name() {
    run_job("users_comments_by_id_name");
}

#[test]
fn job_users_comments_over_upvotes() {
    run_job("users_comments_over_upvotes");
}

#[test]
fn every_job_file_has_a_test_and_an_expected_result() {
    let mut names: Vec<String> = std::fs::read_dir(root().join("jobs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .map(|n| n.trim_end_matches(".toml").to_string())
        .collect();
    names.sort();
    let mut tested: Vec<String> = TESTED_JOBS.iter().map(|s| s.to_string()).collect();
    tested.sort();
    assert_eq!(names, tested, "add a test for every job file");
    for n in &names {
        assert!(
            root().join(format!("jobs/expected/{n}.json")).exists(),
            "jobs/expected/{n}.json"
        );
    }
}

#[test]
fn the_main_job_prints_both_summaries_with_counters() {
    let d = workdir();
    let out = run_in(d.path(), &["run", &job("users_comments")]).ok();
    for needle in [
        "[1/2] train",
        "trained out/users_comments/users.bjf",
        "where        Reputation > 1500: ",
        "keys         ",
        "[2/2] join",
        "joined (inner join, ",
        "replicated strategy, ",
        " parts) into out/users_comments/join",
        "fits the memory budget",
        "rows dropped by the filter",
        "false positives",
        "job done: 2 steps in ",
    ] {
        assert!(out.contains(needle), "{needle:?} not in {out}");
    }
    // The reports the job file asks for.
    for r in [
        "out/users_comments/train.json",
        "out/users_comments/join.json",
    ] {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.path().join(r)).unwrap()).unwrap();
        assert!(v.is_object(), "{r}");
    }
    assert!(run_in(d.path(), &["-q", "run", &job("users_comments")])
        .ok()
        .is_empty());
}

#[test]
fn set_overrides_keys_of_the_job_file() {
    let d = workdir();
    let out = run_in(
        d.path(),
        &[
            "run",
            &job("users_comments"),
            "--set",
            "join.reducers=2",
            "--set",
            "join.strategy=reduce-side",
            "--set",
            "train.fpp=0.001",
            "--set",
            "train.output=elsewhere/f.bjf",
            "--set",
            "join.output=elsewhere/join",
            "--set",
            "train.report=elsewhere/train.json",
            "--set",
            "join.report=elsewhere/join.json",
            "--set",
            "join.type=left-semi",
            "--set",
            "join.select=Id, DisplayName",
        ],
    )
    .ok();
    assert!(out.contains("trained elsewhere/f.bjf"), "{out}");
    assert!(out.contains("at fpp 0.001"), "{out}");
    assert!(out.contains("(left-semi join, "), "{out}");
    assert!(out.contains("reduce-side strategy, "), "{out}");
    assert!(out.contains("2 parts) into elsewhere/join"), "{out}");
    let parts: Vec<String> = files_below(&d.path().join("elsewhere/join"))
        .into_iter()
        .filter(|f| f.starts_with("part-"))
        .collect();
    assert_eq!(parts.len(), 2);
    let (rows, names) = read_rows(&d.path().join("elsewhere/join"));
    assert_eq!(names, ["Id", "DisplayName"]);
    assert_eq!(
        rows.len() as u64,
        expected("users_comments_semi")["rows"].as_u64().unwrap()
    );
    assert!(!d.path().join("out").exists());
}

#[test]
fn bad_set_and_unknown_keys_are_errors_naming_file_and_key() {
    let d = workdir();
    let j = job("users_comments");
    for (args, needles) in [
        (vec!["--set", "train.fpp2=0.1"], vec!["--set", "fpp2"]),
        (vec!["--set", "join.reducer=4"], vec!["--set", "reducer"]),
        (vec!["--set", "merge.output=x"], vec!["--set", "[merge]"]),
        (
            vec!["--set", "join.reducers=lots"],
            vec!["--set", "reducers"],
        ),
        (vec!["--set", "reducers"], vec!["--set", "table.key=value"]),
        (
            vec!["--set", "join.reducers=0"],
            vec!["reducers", "users_comments.toml", "[join]"],
        ),
        (
            vec!["--set", "train.where=Reputation >"],
            vec!["users_comments.toml", "[train]", "where"],
        ),
    ] {
        let mut a = vec!["run", j.as_str()];
        a.extend(args.iter().copied());
        run_in(d.path(), &a).fails(2, &needles);
    }
    // Nothing ran.
    assert!(!d.path().join("out").exists());

    // Unknown keys in the file.
    let bad = d.path().join("bad.toml");
    let text = std::fs::read_to_string(&j).unwrap();
    std::fs::write(
        &bad,
        text.replace("reducers = 4", "reducers = 4\nreducerz = 5"),
    )
    .unwrap();
    run_in(d.path(), &["run", "bad.toml"]).fails(2, &["bad.toml", "[join]", "reducerz"]);
    std::fs::write(&bad, format!("{text}\n[spark]\nx = 1\n")).unwrap();
    run_in(d.path(), &["run", "bad.toml"]).fails(2, &["bad.toml", "spark"]);
    std::fs::write(&bad, text.replace("column = \"Id\"\n", "")).unwrap();
    run_in(d.path(), &["run", "bad.toml"]).fails(2, &["bad.toml", "[train]", "column"]);
    std::fs::write(&bad, "[train\n").unwrap();
    run_in(d.path(), &["run", "bad.toml"]).fails(2, &["bad.toml:1", "invalid TOML"]);
    run_in(d.path(), &["run", "missing.toml"]).fails(2, &["missing.toml"]);
    assert!(!d.path().join("out").exists());
}

/// A job of one `[join]` step and no `filter` builds its filter from the left side and gives
/// the rows of the job with a `[train]` step.
#[test]
fn a_join_step_without_a_filter_builds_one() {
    let d = workdir();
    let text = std::fs::read_to_string(job("users_comments")).unwrap();
    let join = &text[text.find("[join]").expect("a [join] table")..];
    std::fs::write(d.path().join("join-only.toml"), join).unwrap();
    let out = run_in(d.path(), &["run", "join-only.toml"]).ok();
    assert!(out.contains("filter built from the left side's"), "{out}");
    let (rows, _) = read_rows(&d.path().join("out/users_comments/join"));
    assert_eq!(
        rows.len() as u64,
        expected("users_comments")["rows"].as_u64().unwrap()
    );
    assert!(!d.path().join("out/users_comments/users.bjf").exists());
}

#[test]
fn a_failing_step_stops_the_chain() {
    let d = workdir();
    let bad = d.path().join("chain.toml");
    let text = std::fs::read_to_string(job("users_comments")).unwrap();
    // The train step fails on a column the users do not have: the join does not run.
    std::fs::write(&bad, text.replace("column = \"Id\"", "column = \"UserId\"")).unwrap();
    let r = run_in(d.path(), &["run", "chain.toml"]);
    assert!(r.stdout.contains("[1/2] train"), "{}", r.stdout);
    assert!(!r.stdout.contains("[2/2]"), "{}", r.stdout);
    r.fails(
        2,
        &[
            "chain.toml: step 1 of 2 [train] failed (join not run)",
            "UserId",
        ],
    );
    assert!(!d.path().join("out/users_comments/join").exists());

    // A join step that names a missing column (in its select) is refused before the train
    // step runs: no filter is written (found by a black-box audit, 2026-11-26: the train
    // step's output was left behind).
    std::fs::write(&bad, text.replace("Text\"", "Body\"")).unwrap();
    let r = run_in(d.path(), &["run", "chain.toml"]);
    assert!(!r.stdout.contains("[1/2]"), "{}", r.stdout);
    r.fails(2, &["chain.toml: [join] is invalid", "Body"]);
    assert!(!d.path().join("out/users_comments").exists());

    // So is a join step whose filter no step writes and that is not there (fifth audit,
    // 2026-11-26: the train step ran and its output stayed).
    std::fs::write(&bad, &text).unwrap();
    let r = run_in(
        d.path(),
        &["run", "chain.toml", "--set", "join.filter=nonexist.bjf"],
    );
    assert!(!r.stdout.contains("[1/2]"), "{}", r.stdout);
    r.fails(
        2,
        &[
            "chain.toml: [join] is invalid",
            "nonexist.bjf",
            "does not exist",
        ],
    );
    assert!(!d.path().join("out/users_comments").exists());

    // The join step fails at run time (a forced replicated join over its memory limit) after
    // the train step ran: the filter stays, nothing is committed.
    let r = run_in(
        d.path(),
        &[
            "run",
            &job("users_comments"),
            "--set",
            "join.strategy=replicated",
            "--set",
            "join.memory-limit=1KiB",
        ],
    );
    assert!(r.stdout.contains("trained out/users_comments/users.bjf"));
    r.fails(2, &["step 2 of 2 [join] failed", "--memory-limit"]);
    assert!(d.path().join("out/users_comments/users.bjf").exists());
    assert!(!d.path().join("out/users_comments/join/_SUCCESS").exists());
}

fn datagen(dir: &Path, out: &str, extra: &[&str]) -> String {
    let mut a = vec![
        "datagen",
        "--output",
        out,
        "--seed",
        "9",
        "--comments",
        "5000",
        "--users",
        "300",
    ];
    a.extend_from_slice(extra);
    run_in(dir, &a).ok()
}

#[test]
fn datagen_is_deterministic() {
    let d = tempfile::tempdir().unwrap();
    let out = datagen(
        d.path(),
        "a",
        &["--files", "3", "--row-group-rows", "700", "--workers", "2"],
    );
    assert!(out.contains("users    300 rows, 3 files"), "{out}");
    assert!(!out.contains("asked"), "{out}");
    // More files than users: one file per user, and the summary says why (it was silent).
    let few = datagen(d.path(), "few", &["--files", "400"]);
    assert!(
        few.contains("users    300 rows, 300 files")
            && few.contains("300 files, not the 400 asked: never more files than rows"),
        "{few}"
    );
    assert!(
        out.contains("comments 5000 rows, 3 files, 9 row groups"),
        "{out}"
    );
    datagen(
        d.path(),
        "b",
        &["--files", "3", "--row-group-rows", "700", "--workers", "1"],
    );
    // Same seed and options: the same bytes.
    let files = files_below(&d.path().join("a"));
    assert_eq!(files.len(), 6);
    assert_eq!(files, files_below(&d.path().join("b")));
    for f in &files {
        assert_eq!(
            std::fs::read(d.path().join("a").join(f)).unwrap(),
            std::fs::read(d.path().join("b").join(f)).unwrap(),
            "{f}"
        );
    }
    // Another layout and codec: the same rows.
    datagen(d.path(), "c", &["--files", "1", "--compression", "snappy"]);
    datagen(
        d.path(),
        "g",
        &["--compression", "gzip", "--compression-level", "1"],
    );
    for t in ["users", "comments"] {
        let (a, _) = read_rows(&d.path().join("a").join(t));
        for other in ["c", "g"] {
            let (c, _) = read_rows(&d.path().join(other).join(t));
            assert_eq!(a, c, "{t} {other}");
        }
    }
    run_in(
        d.path(),
        &[
            "datagen",
            "--output",
            "h",
            "--compression",
            "snappy",
            "--compression-level",
            "1",
        ],
    )
    .fails(2, &["--compression-level", "snappy has no levels"]);
    assert!(!d.path().join("h").exists());
    // Another seed: other rows.
    run_in(
        d.path(),
        &[
            "datagen",
            "--output",
            "e",
            "--seed",
            "10",
            "--comments",
            "5000",
            "--users",
            "300",
        ],
    )
    .ok();
    assert_ne!(
        read_rows(&d.path().join("a/comments")).0,
        read_rows(&d.path().join("e/comments")).0
    );
    // An existing output is refused without --overwrite; bad sizes are errors.
    run_in(d.path(), &["datagen", "--output", "a", "--comments", "10"])
        .fails(2, &["a/users", "--overwrite"]);
    run_in(d.path(), &["datagen", "--output", "x", "--comments", "0"]).fails(2, &["--comments"]);
    run_in(d.path(), &["datagen", "--output", "s3://b/x"]).fails(2, &["--output", "local"]);
}

#[test]
fn datagen_reproduces_the_committed_sample() {
    // The command of data/README.md.
    let d = tempfile::tempdir().unwrap();
    run_in(
        d.path(),
        &[
            "datagen",
            "--output",
            "sample",
            "--seed",
            "42",
            "--comments",
            "100000",
            "--users",
            "3000",
            "--files",
            "4",
            "--row-group-rows",
            "8192",
            "--user-row-group-rows",
            "256",
            "--overwrite",
        ],
    )
    .ok();
    let committed = root().join("data/sample");
    assert_eq!(
        files_below(&d.path().join("sample")),
        files_below(&committed)
    );
    for t in ["users", "comments"] {
        let (fresh, names) = read_rows(&d.path().join("sample").join(t));
        let (ours, names2) = read_rows(&committed.join(t));
        assert_eq!(names, names2, "{t}");
        assert_eq!(fresh.len(), ours.len(), "{t}");
        assert!(
            fresh == ours,
            "{t}: the committed sample differs from datagen's"
        );
    }
}

/// The README's first command prints what the README shows: every fragment of its example
/// output (the parts between `...` elisions) appears in the real output, except the line with
/// worker and reducer counts, which follow the machine's cores.
#[test]
fn readme_first_command_output_is_true() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("It prints each step's summary")
        .expect("README example intro");
    let block = &readme[start..];
    let body = block.split("```").nth(1).expect("README example block");
    let d = workdir();
    std::os::unix::fs::symlink(root().join("jobs"), d.path().join("jobs")).unwrap();
    let out = run_in(d.path(), &["run", "jobs/users_comments.toml"]).ok();
    let mut checked = 0;
    for line in body.lines().filter(|l| !l.trim().is_empty()) {
        if line.contains(" workers, ") {
            continue;
        }
        for fragment in line.split("...").map(str::trim).filter(|f| f.len() > 2) {
            assert!(
                out.contains(fragment),
                "README fragment {fragment:?} not in the output:\n{out}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} fragments checked");
}
