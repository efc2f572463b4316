//! `--dry-run` on `train`, `join` and `run`: the job checked and planned as its run would
//! be, the plan printed, nothing written; a plan that agrees with what the run then does.

use std::path::Path;

use crate::util::{files_below, root, run_in};

/// A temporary working directory with `data` linked to the repository's.
fn workdir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root().join("data"), d.path().join("data")).unwrap();
    d
}

/// Everything below `dir` but the `data` link.
fn written(dir: &Path) -> Vec<String> {
    files_below(dir)
        .into_iter()
        .filter(|f| !f.starts_with("data"))
        .collect()
}

/// The line of `out` that starts with `prefix` after its indent, without the indent.
fn line<'a>(out: &'a str, prefix: &str) -> &'a str {
    out.lines()
        .map(str::trim_start)
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?} in {out}"))
}

/// The number before `what` in `text` (`"3 splits"` -> 3).
fn count(text: &str, what: &str) -> u64 {
    let at = text
        .find(&format!(" {what}"))
        .unwrap_or_else(|| panic!("no {what:?} in {text}"));
    let digits: String = text[..at]
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.chars().rev().collect::<String>().parse().unwrap()
}

const JOIN: &[&str] = &[
    "join",
    "--left",
    "data/sample/users",
    "--left-key",
    "Id",
    "--left-where",
    "Reputation > 1500",
    "--right",
    "data/sample/comments",
    "--right-key",
    "UserId",
    "--workers",
    "2",
    "--split-rows",
    "2000",
    "--output",
    "out/join",
    "--report",
    "out/join.json",
];

#[test]
fn the_main_job_dry_runs_without_writing_and_its_plan_is_the_runs() {
    let d = workdir();
    let job = root().join("jobs/users_comments.toml");
    let job = job.to_str().unwrap();
    let out = run_in(d.path(), &["run", job, "--dry-run"]).ok();
    assert!(out.contains("[1/2] train"), "{out}");
    assert!(out.contains("dry run (train, "), "{out}");
    assert!(out.contains("dry run (inner join, "), "{out}");
    assert!(
        line(&out, "filter out/users_comments/users.bjf").contains("written by the train step"),
        "{out}"
    );
    assert!(
        line(&out, "sbbf").starts_with("sbbf   off: no right row group"),
        "{out}"
    );
    assert!(
        line(&out, "output out/users_comments/join").contains("9 columns"),
        "{out}"
    );
    assert!(written(d.path()).is_empty(), "{:?}", written(d.path()));

    // The run's reports count the files, splits and rows the dry run planned.
    run_in(d.path(), &["run", job, "--quiet"]).ok();
    let report = |name: &str| -> serde_json::Value {
        let p = d.path().join("out/users_comments").join(name);
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    // `what` of a planned line is the report's `key`.
    let same = |planned: &str, what: &str, r: &serde_json::Value, key: &str| {
        assert_eq!(
            count(planned, what),
            r[key].as_u64().unwrap(),
            "{key}: {out}"
        );
    };
    let train = report("train.json");
    let input = line(&out, "input");
    same(input, "file", &train, "files");
    same(input, "split", &train, "splits");
    same(input, "rows,", &train, "rows_read");
    let join = report("join.json");
    for side in ["left", "right"] {
        let planned = line(&out, &format!("{side} "));
        same(planned, "file", &join[side], "files");
        same(planned, "split", &join[side], "splits");
    }
    // The left side is read whole (no row group of it is skipped).
    assert_eq!(
        count(line(&out, "left "), "rows,"),
        join["left"]["rows_read"].as_u64().unwrap(),
        "{out}"
    );

    // Committed now, and the job file says overwrite: the dry run says it replaces them.
    let again = run_in(d.path(), &["run", job, "--dry-run"]).ok();
    assert!(
        line(&again, "output out/users_comments/join").contains("replaces the committed output"),
        "{again}"
    );
    assert!(
        line(&again, "output out/users_comments/users.bjf").contains("replaces the filter"),
        "{again}"
    );
}

#[test]
fn join_dry_run_reads_the_filter_and_refuses_what_the_run_refuses() {
    let d = workdir();
    // No --filter: the join would build one.
    let out = run_in(d.path(), &[JOIN, &["--dry-run"]].concat()).ok();
    assert!(
        line(&out, "filter").contains("built from the left side's keys"),
        "{out}"
    );
    assert!(
        line(&out, "key Id").contains("where Reputation > 1500"),
        "{out}"
    );
    assert!(line(&out, "report").contains("out/join.json"), "{out}");
    assert!(
        line(&out, "plan").starts_with("plan   auto: replicated if"),
        "{out}"
    );
    assert!(written(d.path()).is_empty(), "{:?}", written(d.path()));
    // --quiet: nothing printed, still checked.
    let quiet = run_in(d.path(), &[JOIN, &["--dry-run", "--quiet"]].concat()).ok();
    assert_eq!(quiet, "");

    // A trained filter is read and checked against the key: a string filter for integer keys
    // is the run's error, before anything is written.
    run_in(
        d.path(),
        &[
            "train",
            "--input",
            "data/sample/users",
            "--column",
            "DisplayName",
            "--output",
            "names.bjf",
            "-q",
        ],
    )
    .ok();
    let wrong = [JOIN, &["--filter", "names.bjf"]].concat();
    let run_error = run_in(d.path(), &wrong).fails(2, &["names.bjf", "key family mismatch"]);
    let dry_error = run_in(d.path(), &[&wrong[..], &["--dry-run"]].concat())
        .fails(2, &["names.bjf", "key family mismatch"]);
    assert_eq!(dry_error, run_error);

    // A right filter: its parameters, and the trained-on column.
    run_in(
        d.path(),
        &[
            "train",
            "--input",
            "data/sample/users",
            "--column",
            "Id",
            "--where",
            "Reputation > 1500",
            "--output",
            "ids.bjf",
            "-q",
        ],
    )
    .ok();
    let out = run_in(
        d.path(),
        &[JOIN, &["--filter", "ids.bjf", "--dry-run"]].concat(),
    )
    .ok();
    let filter = line(&out, "filter ids.bjf");
    assert!(filter.contains("split layout"), "{out}");
    assert!(filter.contains("every left key is checked"), "{out}");

    // A join type the prefilter cannot serve: said, not refused.
    let out = run_in(
        d.path(),
        &[
            JOIN,
            &["--filter", "ids.bjf", "--type", "right", "--dry-run"],
        ]
        .concat(),
    )
    .ok();
    assert!(line(&out, "filter ids.bjf").contains("not used"), "{out}");

    // A column that is not there, and an output that exists: the run's errors.
    let bad = [JOIN, &["--right-where", "Nope > 1", "--dry-run"]].concat();
    run_in(d.path(), &bad).fails(2, &["Nope"]);
    std::fs::create_dir_all(d.path().join("out/join")).unwrap();
    std::fs::write(d.path().join("out/join/_SUCCESS"), "{}").unwrap();
    run_in(d.path(), &[JOIN, &["--dry-run"]].concat()).fails(2, &["out/join"]);
    assert!(!d.path().join("out/join.json").exists());
}

#[test]
fn train_dry_run_gives_the_size_the_run_trains() {
    let d = workdir();
    let base = [
        "train",
        "--input",
        "data/sample/comments",
        "--column",
        "UserId",
        "--workers",
        "2",
    ];
    for sizing in [
        &["--expected-items", "5000", "--fpp", "0.001"][..],
        &["--fpp", "0.01"][..],
        &["--bits", "65536", "--hashes", "8"][..],
    ] {
        let args = [&base[..], sizing, &["--output", "f.bjf"]].concat();
        let plan = run_in(d.path(), &[&args[..], &["--dry-run"]].concat()).ok();
        assert!(
            written(d.path()).is_empty(),
            "{sizing:?}: {:?}",
            written(d.path())
        );
        let filter = line(&plan, "filter");
        let trained = run_in(d.path(), &args).ok();
        std::fs::remove_file(d.path().join("f.bjf")).unwrap();
        // The run's first line: "trained f.bjf (split layout, native format, m=N bits, k=K, ...".
        let m = |s: &str| {
            s.split("m=")
                .nth(1)
                .map(|r| r.split(' ').next().unwrap().to_string())
        };
        let k = |s: &str| {
            s.split("k=")
                .nth(1)
                .map(|r| r.split(',').next().unwrap().to_string())
        };
        if sizing[0] == "--fpp" {
            // Trained into the size the plan gives, folded down after.
            assert!(filter.contains("sized by folding"), "{plan}");
            let report = line(&trained, "sizing");
            let before = format!("m={} bits folded", m(filter).unwrap());
            assert!(report.contains(&before), "{plan}\n{trained}");
        } else {
            let first = trained.lines().next().unwrap();
            assert_eq!(m(filter), m(first), "{plan}\n{trained}");
            assert_eq!(k(filter), k(first), "{plan}\n{trained}");
        }
    }
    // An output that exists, and a --where on a column that is not there: the run's errors.
    std::fs::write(d.path().join("f.bjf"), "x").unwrap();
    run_in(
        d.path(),
        &[&base[..], &["--output", "f.bjf", "--dry-run"]].concat(),
    )
    .fails(2, &["f.bjf"]);
    run_in(
        d.path(),
        &[
            &base[..],
            &["--output", "g.bjf", "--where", "Nope = 1", "--dry-run"],
        ]
        .concat(),
    )
    .fails(2, &["Nope"]);
}

/// The README's `--dry-run` example is what the command prints: every fragment of it (the
/// parts between `...` elisions) is in the real output, except on lines whose figures follow
/// the machine's cores (workers, and the splits cut for them).
#[test]
fn readme_dry_run_example_is_true() {
    readme_example_is_true("--dry-run", 12);
}

/// The same of the README's `--dry-run=json` example.
#[test]
fn readme_json_dry_run_example_is_true() {
    readme_example_is_true("--dry-run=json", 15);
}

fn readme_example_is_true(flag: &str, fragments: usize) {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find(&format!(
            "$ bloomjoin run jobs/users_comments.toml {flag}\n"
        ))
        .expect("README example");
    let body = readme[start..].split("```").next().unwrap();
    let d = workdir();
    std::os::unix::fs::symlink(root().join("jobs"), d.path().join("jobs")).unwrap();
    let out = run_in(d.path(), &["run", "jobs/users_comments.toml", flag]).ok();
    let mut checked = 0;
    for line in body.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cores = [" workers", " splits", "\"workers\"", "\"splits\""];
        if cores.iter().any(|c| line.contains(c)) {
            continue;
        }
        for fragment in line.split("...").map(str::trim).filter(|f| f.len() > 2) {
            assert!(
                out.contains(fragment),
                "README fragment {fragment:?} not in:\n{out}"
            );
            checked += 1;
        }
    }
    assert!(checked >= fragments, "only {checked} fragments checked");
    assert!(written(d.path()).iter().all(|f| f.starts_with("jobs")));
}

/// `--dry-run=json`: one JSON object on stdout, even with `--quiet`, whose figures are the
/// ones the run's reports then count (files, splits, rows and bytes read, the filter's size);
/// errors are the text run's, with nothing on stdout.
#[test]
fn json_dry_runs_plan_what_the_run_reads() {
    let d = workdir();
    let job = root().join("jobs/users_comments.toml");
    let job = job.to_str().unwrap();
    let json = |out: &str| -> serde_json::Value {
        serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
    };
    let plan = json(&run_in(d.path(), &["run", job, "--dry-run=json", "--quiet"]).ok());
    assert!(written(d.path()).is_empty(), "{:?}", written(d.path()));
    assert_eq!(plan["job"], job);
    let (train, join) = (&plan["steps"][0], &plan["steps"][1]);
    assert_eq!(train["dry_run"], "train", "{plan}");
    assert_eq!(join["dry_run"], "join", "{plan}");
    assert_eq!(train["filter"]["sizing"], "fold", "{plan}");
    assert_eq!(train["input"]["where"], "Reputation > 1500", "{plan}");
    assert_eq!(join["filter"]["source"], "train_step", "{plan}");
    assert_eq!(join["filter"]["used"], true, "{plan}");
    assert_eq!(join["sbbf"]["used"], false, "{plan}");
    assert_eq!(join["output"]["columns"].as_array().unwrap().len(), 9);
    assert_eq!(join["output"]["replaces"], false);
    assert_eq!(join["output"]["write_mode"], "overwrite");

    run_in(d.path(), &["run", job, "--quiet"]).ok();
    let report = |name: &str| -> serde_json::Value {
        let p = d.path().join("out/users_comments").join(name);
        json(&std::fs::read_to_string(p).unwrap())
    };
    let trained = report("train.json");
    for (planned, key) in [
        ("files", "files"),
        ("splits", "splits"),
        ("rows", "rows_read"),
        ("bytes", "bytes_read"),
    ] {
        assert_eq!(train["input"][planned], trained[key], "{key}: {plan}");
    }
    // Trained into the size planned, then folded.
    assert_eq!(
        train["filter"]["params"]["num_bits"], trained["sizing"]["bits_before_fold"],
        "{plan}"
    );
    let joined = report("join.json");
    for side in ["left", "right"] {
        for (planned, key) in [
            ("files", "files"),
            ("splits", "splits"),
            ("bytes", "bytes_read"),
        ] {
            assert_eq!(
                join[side][planned], joined[side][key],
                "{side} {key}: {plan}"
            );
        }
    }
    assert_eq!(join["left"]["rows"], joined["left"]["rows_read"], "{plan}");

    // Committed now: the plan says both outputs are replaced.
    let again = json(&run_in(d.path(), &["run", job, "--dry-run=json"]).ok());
    assert_eq!(again["steps"][0]["output"]["replaces"], true, "{again}");
    assert_eq!(again["steps"][1]["output"]["replaces"], true, "{again}");

    // A join's trained filter: its parameters, as the train's report gives them; not used
    // by a join type the prefilter cannot serve, and said why.
    let with_filter = |extra: &[&str]| {
        let args = [
            JOIN,
            &["--filter", "out/users_comments/users.bjf", "--dry-run=json"],
            extra,
        ]
        .concat();
        json(&run_in(d.path(), &args).ok())
    };
    let p = with_filter(&[]);
    assert_eq!(p["filter"]["source"], "file", "{p}");
    assert_eq!(p["filter"]["params"], trained["params"], "{p}");
    assert_eq!(p["filter"]["used"], true, "{p}");
    assert_eq!(p["filter"]["key_family"], "integer", "{p}");
    let p = with_filter(&["--type", "right", "--partition-by", "Score"]);
    assert_eq!(p["filter"]["used"], false, "{p}");
    assert!(
        p["filter"]["reason"].as_str().unwrap().contains("right"),
        "{p}"
    );
    assert_eq!(p["output"]["partition_by"][0], "Score", "{p}");

    // The train's sizing by expected items is the filter the run writes.
    let args = [
        "train",
        "--input",
        "data/sample/comments",
        "--column",
        "UserId",
        "--expected-items",
        "5000",
        "--fpp",
        "0.001",
        "--output",
        "f.bjf",
        "--report",
        "f.json",
    ];
    let p = json(&run_in(d.path(), &[&args[..], &["--dry-run=json"]].concat()).ok());
    assert!(!d.path().join("f.bjf").exists() && !d.path().join("f.json").exists());
    assert_eq!(p["filter"]["sizing"], "expected_items", "{p}");
    run_in(d.path(), &[&args[..], &["-q"]].concat()).ok();
    let r = json(&std::fs::read_to_string(d.path().join("f.json")).unwrap());
    assert_eq!(p["filter"]["params"], r["params"], "{p}");

    // Errors: the text run's message and exit code, nothing on stdout.
    let bad = [JOIN, &["--right-where", "Nope > 1"]].concat();
    let text = run_in(d.path(), &[&bad[..], &["--dry-run"]].concat()).fails(2, &["Nope"]);
    let r = run_in(d.path(), &[&bad[..], &["--dry-run=json"]].concat());
    assert_eq!(r.stdout, "");
    assert_eq!(r.fails(2, &["Nope"]), text);
    let r = run_in(d.path(), &[JOIN, &["--dry-run=yaml"]].concat());
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("yaml") && r.stderr.contains("json"),
        "{}",
        r.stderr
    );
}

/// A dry run counts the row groups each `--where` rules out by their statistics, as the run's
/// report then does: in the summary and in the JSON plan, of `train`, `join` and `filter`.
#[test]
fn dry_runs_count_the_row_groups_the_where_rules_out() {
    let d = workdir();
    let json = |out: &str| -> serde_json::Value {
        serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
    };
    let report = |name: &str| json(&std::fs::read_to_string(d.path().join(name)).unwrap());
    let join = [JOIN, &["--right-where", "Score >= 100"]].concat();
    let text = run_in(d.path(), &[&join[..], &["--dry-run"]].concat()).ok();
    assert!(
        line(&text, "key UserId")
            .contains("; where Score >= 100 (its statistics rule out 1 row group, 424 rows)"),
        "{text}"
    );
    assert!(
        line(&text, "key Id")
            .contains("; where Reputation > 1500 (its statistics rule out no row group)"),
        "{text}"
    );
    let plan = json(&run_in(d.path(), &[&join[..], &["--dry-run=json"]].concat()).ok());
    assert!(written(d.path()).is_empty(), "{:?}", written(d.path()));
    run_in(d.path(), &[&join[..], &["-q"]].concat()).ok();
    let ran = report("out/join.json");
    for side in ["left", "right"] {
        for key in ["row_groups_skipped_by_where", "rows_skipped_by_where"] {
            assert_eq!(plan[side][key], ran[side][key], "{side} {key}: {plan}");
        }
    }
    assert_eq!(plan["right"]["row_groups_skipped_by_where"], 1, "{plan}");

    let train = [
        "train",
        "--input",
        "data/sample/comments",
        "--column",
        "UserId",
        "--where",
        "Score >= 100 OR Score < -1000",
        "--output",
        "t.bjf",
        "--report",
        "t.json",
    ];
    let plan = json(&run_in(d.path(), &[&train[..], &["--dry-run=json"]].concat()).ok());
    run_in(d.path(), &[&train[..], &["-q"]].concat()).ok();
    let ran = report("t.json");
    for key in ["row_groups_skipped_by_where", "rows_skipped_by_where"] {
        assert_eq!(plan["input"][key], ran[key], "{key}: {plan}");
    }
    assert_eq!(plan["input"]["row_groups_skipped_by_where"], 1, "{plan}");

    let filter = [
        "filter",
        "--filter",
        "t.bjf",
        "--input",
        "data/sample/comments",
        "--key",
        "UserId",
        "--where",
        "Score >= 100",
        "--output",
        "f",
        "--report",
        "f.json",
    ];
    let plan = json(&run_in(d.path(), &[&filter[..], &["--dry-run=json"]].concat()).ok());
    run_in(d.path(), &[&filter[..], &["-q"]].concat()).ok();
    let ran = report("f.json");
    for key in ["row_groups_skipped_by_where", "rows_skipped_by_where"] {
        assert_eq!(plan["input"][key], ran["input"][key], "{key}: {plan}");
    }
}
