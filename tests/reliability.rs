//! Real object stores and faults (docs/RELIABILITY.md): S3 through a real S3-compatible
//! server (moto) on loopback, transient 5xx and a stopped server through a fault-injecting
//! proxy, injected panics and errors in map and reduce tasks, a SIGKILL during commit, two
//! jobs racing for one output, and hostile inputs.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use arrow::array::*;

use crate::join_cli::{fixture, reference, train};
use crate::util::{
    bin, files_below, read_rows, root, run_env, run_in, write_parquet, write_parquet_with,
    FaultProxy, S3Server,
};

fn join_args<'a>(filter: &'a str, left: &'a str, right: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "join",
        "-q",
        "--filter",
        filter,
        "--left",
        left,
        "--left-key",
        "Id",
        "--left-where",
        "Reputation > 1500",
        "--right",
        right,
        "--right-key",
        "UserId",
        "--output",
        out,
    ]
}

fn train_args<'a>(input: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "train",
        "-q",
        "--input",
        input,
        "--column",
        "Id",
        "--where",
        "Reputation > 1500",
        "--fpp",
        "0.01",
        "--output",
        out,
    ]
}

fn decoded(bytes: &[u8]) -> bloomjoin::bloom::BloomFilter {
    bloomjoin::bloom::codec::decode(bytes, "f").unwrap().0
}

#[test]
fn s3_everywhere_gives_the_same_filter_and_rows_as_local() {
    let s3 = S3Server::start();
    let env = s3.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    s3.upload_dir("lake", &d.join("users"), "users");
    s3.upload_dir("lake", &d.join("comments"), "comments");

    run_env(
        d,
        &train_args("s3://lake/users", "s3://lake/filters/users.bjf"),
        &env,
    )
    .ok();
    s3.download("lake", "filters", &d.join("from-s3"));
    let remote = std::fs::read(d.join("from-s3/users.bjf")).unwrap();
    let local = std::fs::read(d.join("users.bjf")).unwrap();
    // Same params, key family, count and bits; only the metadata's input names differ.
    assert_eq!(decoded(&remote), decoded(&local));

    // Create-only: the filter is not replaced without --overwrite.
    run_env(
        d,
        &train_args("s3://lake/users", "s3://lake/filters/users.bjf"),
        &env,
    )
    .fails(2, &["s3://lake/filters/users.bjf", "--overwrite"]);

    // Globs on S3.
    run_env(
        d,
        &train_args("s3://lake/users/u*.parquet", "s3://lake/filters/glob.bjf"),
        &env,
    )
    .ok();

    // The report goes to the object store too (found by an audit, 2026-11-26: an s3://
    // --report was written to a local directory named `s3:`).
    let mut args = join_args(
        "s3://lake/filters/users.bjf",
        "s3://lake/users",
        "s3://lake/comments",
        "s3://lake/out",
    );
    args.extend(["--report", "s3://lake/reports/join.json"]);
    run_env(d, &args, &env).ok();
    assert!(!d.join("s3:").exists());
    s3.download("lake", "reports", &d.join("reports-s3"));
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("reports-s3/join.json")).unwrap()).unwrap();
    assert_eq!(
        r["rows_out"].as_u64().unwrap() as usize,
        reference("inner", 1500).len()
    );
    let keys = s3.keys("lake", "out/");
    assert!(keys.contains(&"out/_SUCCESS".to_string()), "{keys:?}");
    assert!(keys.iter().all(|k| !k.contains("_temporary")), "{keys:?}");
    s3.download("lake", "out", &d.join("out-s3"));
    assert_eq!(read_rows(&d.join("out-s3")).0, reference("inner", 1500));

    // Unknown bucket: a one-line error naming the location.
    run_env(d, &train_args("s3://nope/users", "x.bjf"), &env).fails(2, &["s3://nope/users"]);

    // A file where a directory goes and a directory where a file goes are refused before any
    // work, as on the local file system (found by an audit, 2026-11-26: both were written
    // next to each other).
    let before = s3.keys("lake", "");
    let mut args = join_args(
        "s3://lake/filters/users.bjf",
        "s3://lake/users",
        "s3://lake/comments",
        "s3://lake/filters/glob.bjf",
    );
    args.push("--overwrite");
    run_env(d, &args, &env).fails(2, &["s3://lake/filters/glob.bjf", "is an object"]);
    let mut args = train_args("s3://lake/users", "s3://lake/out");
    args.push("--overwrite");
    run_env(d, &args, &env).fails(2, &["s3://lake/out", "holds objects"]);
    run_env(d, &train_args("s3://lake/users", "s3://lake/new/"), &env)
        .fails(2, &["s3://lake/new/", "ends with '/'"]);
    assert_eq!(s3.keys("lake", ""), before);
}

/// Right side big enough that every output part exceeds the 10 MiB multipart threshold.
#[test]
fn s3_large_output_uses_multipart_and_matches_local() {
    let s3 = S3Server::start();
    let env = s3.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 700_000i64;
    let mut state = 7u64;
    let noise: Vec<String> = (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            format!(
                "{:016x}{:016x}{:016x}",
                state,
                state.rotate_left(17),
                state.rotate_left(41)
            )
        })
        .collect();
    write_parquet(
        &d.join("big/b.parquet"),
        vec![
            (
                "k",
                Arc::new(Int64Array::from(
                    (0..n).map(|i| i % 1000).collect::<Vec<_>>(),
                )) as ArrayRef,
            ),
            ("noise", Arc::new(StringArray::from(noise))),
        ],
        50_000,
    );
    write_parquet(
        &d.join("small/s.parquet"),
        vec![(
            "k",
            Arc::new(Int64Array::from((0..1000).collect::<Vec<i64>>())) as ArrayRef,
        )],
        1000,
    );
    s3.upload_dir("lake", &d.join("big"), "big");
    run_in(
        d,
        &[
            "train", "-q", "--input", "small", "--column", "k", "--output", "k.bjf",
        ],
    )
    .ok();
    let args = |out: &'static str| -> Vec<&'static str> {
        vec![
            "join",
            "-q",
            "--filter",
            "k.bjf",
            "--left",
            "small",
            "--left-key",
            "k",
            "--right",
            "s3://lake/big",
            "--right-key",
            "k",
            "--strategy",
            "reduce-side",
            "--reducers",
            "1",
            "--workers",
            "2",
            "--output",
            out,
        ]
    };
    run_env(d, &args("s3://lake/out"), &env).ok();
    run_env(d, &args("local-out"), &env).ok();
    let keys = s3.keys("lake", "out/");
    assert_eq!(keys.len(), 2, "{keys:?}");
    let size: u64 = s3
        .python("r = s3.list_objects_v2(Bucket='lake', Prefix='out/part-')\nprint(r['Contents'][0]['Size'])\n")
        .trim()
        .parse()
        .unwrap();
    assert!(
        size > 10 << 20,
        "the part is only {size} bytes, below the multipart threshold"
    );
    s3.download("lake", "out", &d.join("out-s3"));
    assert_eq!(
        read_rows(&d.join("out-s3")).0,
        read_rows(&d.join("local-out")).0
    );
}

#[test]
fn transient_5xx_are_retried() {
    let s3 = S3Server::start();
    let proxy = FaultProxy::start(s3.port);
    let env = S3Server::env_for(proxy.port);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    s3.upload_dir("lake", &d.join("users"), "users");
    s3.upload_dir("lake", &d.join("comments"), "comments");
    proxy.fail_next.store(2, Ordering::SeqCst);
    run_env(d, &train_args("s3://lake/users", "s3://lake/f.bjf"), &env).ok();
    proxy.fail_next.store(2, Ordering::SeqCst);
    run_env(
        d,
        &join_args(
            "s3://lake/f.bjf",
            "s3://lake/users",
            "s3://lake/comments",
            "s3://lake/out",
        ),
        &env,
    )
    .ok();
    assert_eq!(proxy.injected.load(Ordering::SeqCst), 4);
    s3.download("lake", "out", &d.join("o"));
    assert_eq!(read_rows(&d.join("o")).0, reference("inner", 1500));
}

#[test]
fn server_stopped_during_output_then_rerun() {
    let s3 = S3Server::start();
    let proxy = FaultProxy::start(s3.port);
    let env = S3Server::env_for(proxy.port);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    s3.upload_dir("lake", &d.join("keep"), "keep"); // creates the bucket
                                                    // Inputs are local; the output goes to S3, which "stops" after a few requests.
    let args = join_args("users.bjf", "users", "comments", "s3://lake/out");
    proxy
        .down_after
        .store(proxy.seen.load(Ordering::SeqCst) + 3, Ordering::SeqCst);
    let err = run_env(d, &args, &env).fails(1, &["s3://lake/out"]);
    assert!(!err.contains("panicked at"));
    let keys = s3.keys("lake", "out/");
    assert!(!keys.iter().any(|k| k.ends_with("_SUCCESS")), "{keys:?}");
    assert!(
        keys.iter().all(|k| k.contains("_temporary")),
        "a part under a final name: {keys:?}"
    );
    // The server is back: the same command succeeds and gives the reference rows.
    proxy.down_after.store(usize::MAX, Ordering::SeqCst);
    run_env(d, &args, &env).ok();
    s3.download("lake", "out", &d.join("o"));
    assert!(d.join("o/_SUCCESS").exists());
    assert_eq!(read_rows(&d.join("o")).0, reference("inner", 1500));
}

fn assert_no_commit(out: &Path) {
    let files = files_below(out);
    assert!(!files.iter().any(|f| f == "_SUCCESS"), "{files:?}");
    assert!(
        !files.iter().any(|f| f.starts_with("part-")),
        "a part under a final name: {files:?}"
    );
}

#[test]
fn map_panic_and_reduce_error_leave_nothing_and_rerun_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let args = join_args("users.bjf", "users", "comments", "out");
    for (fault, needle) in [
        ("map", "panicked"),
        ("reduce:error", "injected fault at reduce"),
        ("reduce", "panicked"),
    ] {
        let env = vec![("BLOOMJOIN_FAULT".to_string(), fault.to_string())];
        let err = run_env(d, &args, &env).fails(1, &[needle]);
        assert!(
            err.contains("map task") || err.contains("reduce task") || err.contains("part-"),
            "{err}"
        );
        assert_no_commit(&d.join("out"));
    }
    // Train's map tasks too.
    let env = vec![("BLOOMJOIN_FAULT".to_string(), "map".to_string())];
    run_env(d, &train_args("users", "t.bjf"), &env).fails(1, &["panicked"]);
    assert!(!d.join("t.bjf").exists());
    run_in(d, &args).ok();
    assert_eq!(read_rows(&d.join("out")).0, reference("inner", 1500));
}

#[test]
fn sigkill_during_commit_then_rerun() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let args = join_args("users.bjf", "users", "comments", "out");
    // Once the parts are under their final names, kill -9 before _SUCCESS.
    crate::util::kill_in_commit(d, &args, || {
        files_below(&d.join("out"))
            .iter()
            .any(|f| f.starts_with("part-"))
    });
    let files = files_below(&d.join("out"));
    assert!(!files.iter().any(|f| f == "_SUCCESS"), "{files:?}");
    // Whatever is under a final name is a whole Parquet file (renamed, never written there).
    for f in files.iter().filter(|f| f.starts_with("part-")) {
        let file = std::fs::File::open(d.join("out").join(f)).unwrap();
        parquet::file::reader::SerializedFileReader::new(file).expect("a complete Parquet file");
    }
    // The rerun succeeds, removes the dead run's parts and gives the reference rows.
    run_in(d, &args).ok();
    assert_eq!(read_rows(&d.join("out")).0, reference("inner", 1500));
    let parts = files_below(&d.join("out"))
        .into_iter()
        .filter(|f| f.starts_with("part-"))
        .count();
    assert_eq!(parts, 2);
}

#[test]
fn two_jobs_racing_for_one_output_exactly_one_commits() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let args = join_args("users.bjf", "users", "comments", "out");
    let spawn = || {
        std::process::Command::new(crate::util::bin())
            .args(&args)
            .current_dir(d)
            .env("BLOOMJOIN_FAULT", "commit:sleep-1500")
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let codes = [a.status.code().unwrap(), b.status.code().unwrap()];
    assert!(
        codes.contains(&0) && codes.contains(&2),
        "exit codes {codes:?}"
    );
    let loser = if codes[0] == 2 { &a } else { &b };
    assert!(String::from_utf8_lossy(&loser.stderr).contains("already exists"));
    assert_eq!(read_rows(&d.join("out")).0, reference("inner", 1500));
}

#[test]
fn hostile_inputs_one_line_exit_2_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let good = std::fs::read(d.join("users/u0.parquet")).unwrap();
    // Corrupt footer: flip bytes in the footer metadata.
    let mut footer = good.clone();
    let n = footer.len();
    for b in &mut footer[n - 60..n - 10] {
        *b ^= 0x5a;
    }
    std::fs::write(d.join("badfooter.parquet"), footer).unwrap();
    // Corrupt page: overwrite the middle of the first column chunk.
    let mut page = good.clone();
    for b in &mut page[40..400] {
        *b = 0xff;
    }
    std::fs::write(d.join("badpage.parquet"), page).unwrap();
    // Corrupt first page header: the key column's dictionary page. Train reads only that page
    // of a key chunk whose data pages are all dictionary-encoded (src/read/dictionary.rs), so
    // the page above, whose damage is in the data page after it, is the join's to find.
    let mut header = good.clone();
    for b in &mut header[4..400] {
        *b = 0xff;
    }
    std::fs::write(d.join("badheader.parquet"), header).unwrap();
    std::fs::write(d.join("empty.parquet"), b"").unwrap();
    for (f, train) in [
        ("badfooter.parquet", true),
        ("badpage.parquet", false),
        ("badheader.parquet", true),
        ("empty.parquet", true),
    ] {
        if train {
            run_in(
                d,
                &["train", "--input", f, "--column", "Id", "--output", "x.bjf"],
            )
            .fails(2, &[f]);
        }
        let mut a = join_args("users.bjf", "users", f, "o");
        a[1] = "--workers";
        a.insert(2, "1");
        run_in(d, &a).fails(2, &[f]);
        assert_no_commit(&d.join("o"));
    }
    assert!(!d.join("x.bjf").exists());
    // A schema that differs between input files (an output column changes type).
    write_parquet(
        &d.join("mixed/a.parquet"),
        vec![
            ("UserId", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
            ("Text", Arc::new(StringArray::from(vec!["x"]))),
        ],
        10,
    );
    write_parquet(
        &d.join("mixed/b.parquet"),
        vec![
            ("UserId", Arc::new(Int32Array::from(vec![2])) as ArrayRef),
            ("Text", Arc::new(Float64Array::from(vec![1.0]))),
        ],
        10,
    );
    run_in(d, &join_args("users.bjf", "users", "mixed", "o"))
        .fails(2, &["b.parquet", "Text", "do not match"]);
    // A key column of another family in one file.
    write_parquet(
        &d.join("mixed2/a.parquet"),
        vec![("UserId", Arc::new(Int32Array::from(vec![1])) as ArrayRef)],
        10,
    );
    write_parquet(
        &d.join("mixed2/b.parquet"),
        vec![("UserId", Arc::new(StringArray::from(vec!["1"])) as ArrayRef)],
        10,
    );
    run_in(d, &join_args("users.bjf", "users", "mixed2", "o")).fails(2, &["b.parquet", "UserId"]);
    // Filters truncated or with flipped bits.
    let f = std::fs::read(d.join("users.bjf")).unwrap();
    std::fs::write(d.join("trunc.bjf"), &f[..f.len() / 2]).unwrap();
    let mut flipped = f.clone();
    flipped[f.len() / 2] ^= 4;
    std::fs::write(d.join("flip.bjf"), flipped).unwrap();
    run_in(d, &join_args("trunc.bjf", "users", "comments", "o"))
        .fails(2, &["trunc.bjf", "truncated"]);
    run_in(d, &join_args("flip.bjf", "users", "comments", "o")).fails(2, &["flip.bjf", "checksum"]);
    run_in(d, &["probe", "--filter", "trunc.bjf", "1"]).fails(2, &["trunc.bjf"]);
    assert_no_commit(&d.join("o"));
    // Absurd sizes are refused before allocating.
    run_in(
        d,
        &[
            "train",
            "--input",
            "users",
            "--column",
            "Id",
            "--bits",
            "400000000000",
            "--hashes",
            "8",
            "--output",
            "x.bjf",
        ],
    )
    .fails(2, &["--bits"]);
    assert!(!d.join("x.bjf").exists());
}

#[test]
fn paths_with_spaces_and_unicode() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("my data/ünïcødé ✓");
    std::fs::create_dir_all(&d).unwrap();
    fixture(&d);
    train(&d);
    run_in(
        &d,
        &join_args("users.bjf", "users", "comments", "out dir/é"),
    )
    .ok();
    assert_eq!(read_rows(&d.join("out dir/é")).0, reference("inner", 1500));
    let abs = d.join("users").display().to_string();
    run_in(&d, &train_args(&abs, "a b.bjf")).ok();
    run_in(&d, &["inspect", "a b.bjf"]).ok();
}

fn report_field(d: &Path, report: &str, field: &str) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join(report)).unwrap()).unwrap();
    v[field].clone()
}

/// Issue 12, defect 5: an output that is, contains or lies inside an input (however it is
/// spelled: relative, absolute, `..`, a symlink, `file://`, a glob's directory) is refused
/// with exit 2 before anything runs, and the input is untouched.
#[test]
fn output_overlapping_an_input_is_refused_and_the_input_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    std::os::unix::fs::symlink(d.join("comments"), d.join("alias")).unwrap();
    let before = files_below(&d.join("comments"));
    let abs = d.join("comments").display().to_string();
    let url = format!("file://{abs}/out");
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            join_args("users.bjf", "users", "comments", "comments"),
            "is the input comments (--right)",
            "comments",
        ),
        (
            join_args("users.bjf", "users", "comments", "alias"),
            "is the input",
            "alias",
        ),
        (
            join_args("users.bjf", "users", "comments", "users/../comments"),
            "is the input",
            "users/../comments",
        ),
        (
            join_args("users.bjf", "users", "comments", "comments/out"),
            "lies inside the input comments (--right)",
            "comments/out",
        ),
        (
            join_args("users.bjf", "users", "comments", &url),
            "lies inside",
            "/out",
        ),
        (
            join_args("users.bjf", "users", "alias/c*.parquet", "comments/x"),
            "lies inside the input alias/c*.parquet",
            "comments/x",
        ),
        (
            join_args("users.bjf", "users", &abs, "."),
            "contains the input",
            "--output .",
        ),
        (
            join_args("users.bjf", "users", "comments", "users.bjf"),
            "is the input users.bjf (--filter)",
            "users.bjf",
        ),
    ];
    for (mut args, needle, out) in cases {
        args.push("--overwrite");
        run_in(d, &args).fails(2, &[needle, out]);
        assert_eq!(files_below(&d.join("comments")), before, "{args:?}");
        assert!(!d.join("comments/out").exists() && !d.join("comments/x").exists());
    }
    // train: the filter may not land inside (or on) an input either.
    let mut t = train_args("users", "users/f.bjf");
    t.push("--overwrite");
    run_in(d, &t).fails(2, &["lies inside the input users (--input)"]);
    let mut t = train_args("users/u0.parquet", "users/u0.parquet");
    t.push("--overwrite");
    run_in(d, &t).fails(2, &["is the input users/u0.parquet (--input)"]);
    assert!(!d.join("users/f.bjf").exists());
    // Job files: checked before the first step runs.
    std::fs::write(
        d.join("j.toml"),
        "[train]\ninput = [\"users\"]\ncolumn = \"Id\"\noutput = \"f.bjf\"\n[join]\nleft = [\"users\"]\nleft-key = \"Id\"\nright = [\"comments\"]\nright-key = \"UserId\"\noutput = \"comments/j\"\n",
    )
    .unwrap();
    run_in(d, &["run", "j.toml"]).fails(
        2,
        &["j.toml", "[join]", "lies inside the input comments (right)"],
    );
    assert!(!d.join("f.bjf").exists(), "the train step ran");
    // Reading what an earlier run wrote next to the input is still fine when it is outside.
    run_in(d, &join_args("users.bjf", "users", "comments", "out")).ok();
    assert_eq!(read_rows(&d.join("out")).0, reference("inner", 1500));
}

/// The same on S3: an object that is not a filter is refused by its first bytes while it
/// streams in, not after a download of the whole of it (a 2 GiB object named by `--filter`
/// was read into memory before its magic was looked at). Each command's own peak RSS,
/// from `wait4`, stays far below the object's 160 MiB (it was 176 MiB before).
#[test]
fn s3_a_filter_is_recognized_before_it_is_read_whole() {
    let s3 = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    s3.python(
        "s3.create_bucket(Bucket='lake')\n\
         s3.put_object(Bucket='lake', Key='big.bin', Body=bytes(160 << 20))\n",
    );
    for args in [
        vec!["inspect", "s3://lake/big.bin"],
        vec!["probe", "--filter", "s3://lake/big.bin", "1"],
        vec!["merge", "-o", "m.bjf", "s3://lake/big.bin"],
    ] {
        run_env(d, &args, &s3.env()).fails(2, &["s3://lake/big.bin", "bad magic"]);
        let code = format!(
            "import os, subprocess\n\
             env = dict(os.environ, **{env:?})\n\
             p = subprocess.Popen({cmd:?}, cwd={cwd:?}, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n\
             _, status, ru = os.wait4(p.pid, 0)\n\
             print(os.waitstatus_to_exitcode(status), ru.ru_maxrss)\n",
            env = s3.env().into_iter().collect::<std::collections::HashMap<_, _>>(),
            cmd = std::iter::once(crate::util::bin().display().to_string())
                .chain(args.iter().map(|a| a.to_string()))
                .collect::<Vec<_>>(),
            cwd = d.display().to_string(),
        );
        let out = s3.python(&code);
        let (status, kib) = out.trim().split_once(' ').unwrap();
        assert_eq!(status, "2", "{args:?}");
        let mib = kib.parse::<u64>().unwrap() / 1024;
        assert!(
            mib < 80,
            "{args:?}: peak RSS {mib} MiB for a refused 160 MiB object"
        );
    }
    assert!(!d.join("m.bjf").exists());
}

/// Issue 12, defect 5, on S3: the same checks for `s3://` locations.
#[test]
fn s3_output_overlapping_an_input_is_refused() {
    let s3 = S3Server::start();
    let env = s3.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    s3.upload_dir("lake", &d.join("comments"), "comments");
    let before = s3.keys("lake", "comments/");
    for (out, right, needle) in [
        (
            "s3://lake/comments",
            "s3://lake/comments",
            "is the input s3://lake/comments (--right)",
        ),
        (
            "s3://lake/comments/out",
            "s3://lake/comments",
            "lies inside",
        ),
        (
            "s3://lake/comments/out",
            "s3://lake/comments/*.parquet",
            "lies inside",
        ),
        ("s3://lake", "s3://lake/comments", "contains"),
    ] {
        let mut args = join_args("users.bjf", "users", right, out);
        args.push("--overwrite");
        run_env(d, &args, &env).fails(2, &[needle]);
        assert_eq!(s3.keys("lake", "comments/"), before);
    }
    // Another bucket, or a sibling prefix, is not an overlap.
    run_env(
        d,
        &join_args(
            "users.bjf",
            "users",
            "s3://lake/comments",
            "s3://lake/comments2",
        ),
        &env,
    )
    .ok();
}

/// Issue 12, defect 5: a commit deletes only what a bloomjoin run wrote (parts named with a
/// run id). Since a black-box audit (2026-11-26) found a join committing next to another
/// tool's Parquet files, which readers of the output then take for rows of the join, a
/// directory holding files bloomjoin did not write is refused before the run, with or
/// without `--overwrite` (as Spark and DuckDB refuse a non-empty output), and they stay as
/// they were. Names that begin with `_` or `.`, which readers skip, are allowed and kept.
#[test]
fn an_output_holding_files_bloomjoin_did_not_write_is_refused_and_they_stay() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let theirs = [
        "part-1.parquet",
        "part-00000-3f2a8b1c-5d6e-4f70-8a9b-0c1d2e3f4a5b-c000.snappy.parquet",
        "part-00001-notes.parquet",
        "part-00000.parquet",
    ];
    let hidden = ["_metadata", ".part-1.parquet.crc", "_committed_123"];
    for f in theirs.iter().chain(&hidden) {
        std::fs::write(out.join(f), format!("{f}: not ours")).unwrap();
    }
    let args = join_args("users.bjf", "users", "comments", "out");
    let mut again = args.clone();
    again.push("--overwrite");
    for a in [&args, &again] {
        let err = run_in(d, a).fails(
            2,
            &["out", "did not write", "part-00000.parquet", "and 1 more"],
        );
        assert!(!err.contains("_metadata"), "{err}");
    }
    let unchanged = |names: &[&str]| {
        for f in names {
            assert_eq!(
                std::fs::read_to_string(out.join(f)).unwrap(),
                format!("{f}: not ours"),
                "{f} was removed or changed"
            );
        }
    };
    unchanged(&theirs);
    unchanged(&hidden);
    let mut all: Vec<String> = theirs
        .iter()
        .chain(&hidden)
        .map(|f| f.to_string())
        .collect();
    all.sort();
    let mut now = files_below(&out);
    now.sort();
    assert_eq!(now, all, "nothing added, nothing removed");
    // A subdirectory counts too.
    for f in theirs {
        std::fs::remove_file(out.join(f)).unwrap();
    }
    std::fs::create_dir(out.join("year=2024")).unwrap();
    run_in(d, &args).fails(2, &["year=2024/"]);
    std::fs::remove_dir(out.join("year=2024")).unwrap();
    // The hidden ones alone: the join runs, and an --overwrite run replaces its parts only.
    run_in(d, &args).ok();
    run_in(d, &again).ok();
    unchanged(&hidden);
    let ours: Vec<String> = files_below(&out)
        .into_iter()
        .filter(|f| f.starts_with("part-"))
        .collect();
    assert_eq!(ours.len(), 2, "{ours:?}");
    assert_eq!(read_rows(&out).0, reference("inner", 1500));
}

/// Issue 12, defect 10: a path that exists is a path even when its name has glob characters;
/// an escaped glob matches it; a glob below a working directory whose name has glob
/// characters works.
#[test]
fn existing_path_with_glob_characters_is_a_path() {
    let top = tempfile::tempdir().unwrap();
    let d = top.path().join("run [1]");
    std::fs::create_dir_all(&d).unwrap();
    let ints = |v: Vec<i64>| vec![("k", Arc::new(Int64Array::from(v)) as ArrayRef)];
    write_parquet(&d.join("in/file[1].parquet"), ints(vec![1, 2, 3]), 10);
    write_parquet(&d.join("in/file1.parquet"), ints((100..200).collect()), 10);
    let rows = |input: &str, name: &str| -> u64 {
        run_in(
            &d,
            &[
                "train",
                "-q",
                "--input",
                input,
                "--column",
                "k",
                "--output",
                name,
                "--report",
                &format!("{name}.json"),
            ],
        )
        .ok();
        report_field(&d, &format!("{name}.json"), "rows_read")
            .as_u64()
            .unwrap()
    };
    assert_eq!(rows("in/file[1].parquet", "a.bjf"), 3);
    assert_eq!(rows("in/file[[]1].parquet", "b.bjf"), 3);
    assert_eq!(rows("in/file?.parquet", "c.bjf"), 100);
    assert_eq!(rows("in/*.parquet", "d.bjf"), 103);
    let abs = d.join("in/file[1].parquet").display().to_string();
    assert_eq!(rows(&abs, "e.bjf"), 3);
}

/// Issue 12, defect 10: the same file reached as a directory, a glob, a file, a symlink and
/// another spelling is read once.
#[test]
fn the_same_file_reached_several_ways_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    std::os::unix::fs::symlink(d.join("users"), d.join("link")).unwrap();
    let abs = d.join("users/u1.parquet").display().to_string();
    let url = format!("file://{abs}");
    let once = |inputs: &[&str], report: &str| -> u64 {
        let mut args = vec![
            "train", "-q", "--column", "Id", "--output", report, "--report",
        ];
        let json = format!("{report}.json");
        args.push(&json);
        for i in inputs {
            args.push("--input");
            args.push(i);
        }
        run_in(d, &args).ok();
        report_field(d, &json, "rows_read").as_u64().unwrap()
    };
    let all = once(&["users"], "a.bjf");
    assert_eq!(all, 300);
    assert_eq!(
        once(
            &[
                "users",
                "users/*.parquet",
                "users/u0.parquet",
                "./users/../users/u2.parquet",
                "link",
                &abs,
                &url
            ],
            "b.bjf"
        ),
        all
    );
    assert_eq!(report_field(d, "b.bjf.json", "files").as_u64().unwrap(), 3);
    // join: the left side read once, so every match appears once.
    let args = vec![
        "join",
        "-q",
        "--filter",
        "users.bjf",
        "--left",
        "users",
        "link",
        "users/u0.parquet",
        "--left-key",
        "Id",
        "--left-where",
        "Reputation > 1500",
        "--right",
        "comments",
        "comments/c0.parquet",
        "--right-key",
        "UserId",
        "--output",
        "out",
    ];
    run_in(d, &args).ok();
    assert_eq!(read_rows(&d.join("out")).0, reference("inner", 1500));
}

/// Run the binary in `dir` with `env` and no AWS settings inherited from the caller.
fn run_clean_aws(dir: &Path, args: &[&str], env: &[(&str, String)]) -> crate::util::Run {
    let mut cmd = std::process::Command::new(crate::util::bin());
    cmd.args(args).current_dir(dir).env_remove("BLOOMJOIN_LOG");
    for (k, _) in std::env::vars() {
        if k.starts_with("AWS_") {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    crate::util::Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// A loopback server: `Some(answer)` answers every request with it; `None` accepts
/// connections and never answers. Returns its port.
fn loopback_server(answer: Option<&'static str>) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming() {
            let Ok(mut c) = conn else { continue };
            match answer {
                None => held.push(c),
                Some(a) => {
                    let mut buf = [0u8; 4096];
                    let _ = c.read(&mut buf);
                    let _ = write!(
                        c,
                        "{a}\r\nContent-Length: 9\r\nConnection: close\r\n\r\nforbidden"
                    );
                }
            }
        }
    });
    port
}

/// Issue 12, defect 10: an S3 endpoint that accepts connections and never answers fails
/// after the configured per-request timeout (`BLOOMJOIN_IO_TIMEOUT_SECS`), and the message
/// says which setting that is.
#[test]
fn s3_endpoint_that_never_answers_fails_after_the_configured_timeout() {
    let port = loopback_server(None);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let env = [
        ("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}")),
        ("AWS_ALLOW_HTTP", "true".into()),
        ("AWS_ACCESS_KEY_ID", "test".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("AWS_REGION", "us-east-1".into()),
        ("BLOOMJOIN_IO_TIMEOUT_SECS", "0.3".into()),
        ("BLOOMJOIN_MAX_RETRIES", "0".into()),
    ];
    run_clean_aws(d, &train_args("s3://lake/users", "f.bjf"), &env).fails(
        1,
        &[
            "s3://lake/users",
            "no answer within 0.3 s",
            "BLOOMJOIN_IO_TIMEOUT_SECS",
        ],
    );
    run_clean_aws(
        d,
        &join_args("users.bjf", "users", "comments", "s3://lake/out"),
        &env,
    )
    .fails(1, &["s3://lake/out", "BLOOMJOIN_IO_TIMEOUT_SECS"]);
    assert!(!d.join("f.bjf").exists());
}

/// Issue 12, defect 10: without AWS credentials in the environment, object_store asks the
/// instance metadata service last; its 403 is reported as missing credentials (exit 2), with
/// the variables to set.
#[test]
fn missing_aws_credentials_are_reported_as_missing_credentials() {
    let imds = loopback_server(Some("HTTP/1.1 403 Forbidden"));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let env = [
        ("AWS_ENDPOINT_URL", "http://127.0.0.1:9".to_string()),
        ("AWS_ALLOW_HTTP", "true".into()),
        ("AWS_REGION", "us-east-1".into()),
        ("AWS_METADATA_ENDPOINT", format!("http://127.0.0.1:{imds}")),
        ("BLOOMJOIN_MAX_RETRIES", "0".into()),
    ];
    for args in [
        train_args("s3://lake/users", "f.bjf"),
        join_args("users.bjf", "users", "comments", "s3://lake/out"),
        vec!["inspect", "s3://lake/f.bjf"],
    ] {
        let err = run_clean_aws(d, &args, &env).fails(
            2,
            &[
                "s3://lake/",
                "no AWS credentials",
                "AWS_ACCESS_KEY_ID",
                "AWS_SECRET_ACCESS_KEY",
            ],
        );
        assert!(!err.contains("/latest/api/token"), "{err}");
    }
}

/// Issue 12, defect 9: `join -o s3://missing-bucket/out` fails before any work with the
/// store's cause (NoSuchBucket) in its one-line message, not a reducer panic.
#[test]
fn join_to_a_missing_bucket_names_no_such_bucket() {
    let s3 = S3Server::start();
    let env = s3.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let err = run_env(
        d,
        &join_args("users.bjf", "users", "comments", "s3://missing-bucket/out"),
        &env,
    )
    .fails(2, &["s3://missing-bucket/out", "NoSuchBucket"]);
    assert!(!err.contains("panicked"), "{err}");
    let err = run_env(d, &train_args("users", "s3://missing-bucket/f.bjf"), &env).fails(
        2,
        &[
            "s3://missing-bucket/f.bjf",
            "NoSuchBucket: The specified bucket does not exist",
        ],
    );
    // The store's XML answer is read, not printed: no markup, request ids or timings.
    for noise in ["<", "RequestId", "HostId", "ms -"] {
        assert!(!err.contains(noise), "{noise:?} in {err}");
    }
}

/// The manifest of a committed output: its run id and part names.
fn manifest(success: &str) -> (String, Vec<String>) {
    let v: serde_json::Value = serde_json::from_str(success).unwrap();
    let mut parts: Vec<String> = v["parts"]
        .as_array()
        .unwrap_or_else(|| panic!("no parts in {success}"))
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    parts.sort();
    (v["run_id"].as_str().unwrap().to_string(), parts)
}

/// The process id in a run id (its last 8 hex digits).
fn run_pid(run_id: &str) -> u32 {
    u32::from_str_radix(&run_id[run_id.len() - 8..], 16).unwrap()
}

/// Issue 12, defect 6: several `--overwrite` joins race for one output, many times, some with
/// a widened commit window. Every job exits 0 (commits take turns under the lease), and
/// afterwards the output is committed: `_SUCCESS` of a job that exited 0, next to exactly the
/// parts its manifest names, holding the reference rows; no lease and no staging left.
#[test]
fn overwrite_joins_racing_for_one_output_leave_it_committed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    for round in 0..10 {
        let children: Vec<_> = (0..4)
            .map(|j| {
                let reducers = (1 + (round + j) % 3).to_string();
                let mut args = join_args("users.bjf", "users", "comments", "out");
                args.extend(["--overwrite", "--reducers", &reducers]);
                let mut cmd = std::process::Command::new(crate::util::bin());
                cmd.args(&args)
                    .current_dir(d)
                    .stderr(std::process::Stdio::piped());
                if (round + j) % 2 == 0 {
                    cmd.env("BLOOMJOIN_FAULT", "commit:sleep-150");
                }
                cmd.spawn().unwrap()
            })
            .collect();
        let mut ok_pids = Vec::new();
        for c in children {
            let pid = c.id();
            let o = c.wait_with_output().unwrap();
            assert_eq!(
                o.status.code(),
                Some(0),
                "round {round}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            ok_pids.push(pid);
        }
        let out = d.join("out");
        let (run_id, parts) = manifest(&std::fs::read_to_string(out.join("_SUCCESS")).unwrap());
        assert!(
            ok_pids.contains(&run_pid(&run_id)),
            "round {round}: {run_id}"
        );
        let files = files_below(&out);
        let on_disk: Vec<String> = files
            .iter()
            .filter(|f| f.starts_with("part-"))
            .cloned()
            .collect();
        assert_eq!(on_disk, parts, "round {round}: {files:?}");
        assert!(parts.iter().all(|p| p.contains(&run_id)), "{parts:?}");
        assert_eq!(
            files.len(),
            parts.len() + 1,
            "round {round}: leftovers {files:?}"
        );
        assert_eq!(read_rows(&out).0, reference("inner", 1500), "round {round}");
    }
}

/// Issue 12, defect 6, on S3 (moto behind a proxy that forwards one request at a time, see
/// [`FaultProxy::serialize`]): the same guarantees with the lease object and conditional puts.
#[test]
fn s3_overwrite_joins_racing_for_one_output_leave_it_committed() {
    let s3 = S3Server::start();
    let proxy = FaultProxy::start(s3.port);
    proxy.serialize.store(true, Ordering::SeqCst);
    let env = S3Server::env_for(proxy.port);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    s3.upload_dir("lake", &d.join("users"), "users");
    for round in 0..4 {
        let children: Vec<_> = (0..3)
            .map(|j| {
                let reducers = (1 + (round + j) % 2).to_string();
                let mut args = join_args("users.bjf", "users", "comments", "s3://lake/out");
                args.extend(["--overwrite", "--reducers", &reducers]);
                let mut cmd = std::process::Command::new(crate::util::bin());
                cmd.args(&args)
                    .current_dir(d)
                    .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                    .stderr(std::process::Stdio::piped());
                if (round + j) % 2 == 0 {
                    cmd.env("BLOOMJOIN_FAULT", "commit:sleep-200");
                }
                cmd.spawn().unwrap()
            })
            .collect();
        let mut ok_pids = Vec::new();
        for c in children {
            let pid = c.id();
            let o = c.wait_with_output().unwrap();
            assert_eq!(
                o.status.code(),
                Some(0),
                "round {round}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            ok_pids.push(pid);
        }
        let keys = s3.keys("lake", "out/");
        let success = s3.python(
            "print(s3.get_object(Bucket='lake', Key='out/_SUCCESS')['Body'].read().decode())",
        );
        let (run_id, parts) = manifest(&success);
        assert!(
            ok_pids.contains(&run_pid(&run_id)),
            "round {round}: {run_id}"
        );
        let on_s3: Vec<String> = keys
            .iter()
            .filter_map(|k| k.strip_prefix("out/"))
            .filter(|k| k.starts_with("part-"))
            .map(str::to_string)
            .collect();
        assert_eq!(on_s3, parts, "round {round}: {keys:?}");
        assert_eq!(
            keys.len(),
            parts.len() + 1,
            "round {round}: leftovers {keys:?}"
        );
        let local = d.join(format!("o{round}"));
        s3.download("lake", "out", &local);
        assert_eq!(
            read_rows(&local).0,
            reference("inner", 1500),
            "round {round}"
        );
    }
}

/// Start `args` in `dir` with `env`, wait until the fault point marks that it got there, send
/// `signal`, and return the outcome.
fn signalled(
    dir: &Path,
    args: &[&str],
    env: &[(String, String)],
    signal: &str,
) -> crate::util::Run {
    let mark = dir.join(format!("reached-{signal}"));
    let _ = std::fs::remove_file(&mark);
    let mut child = std::process::Command::new(crate::util::bin())
        .args(args)
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("BLOOMJOIN_FAULT_MARK", &mark)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    while !mark.exists() {
        if let Some(st) = child.try_wait().unwrap() {
            panic!("the job ended ({st}) before reaching its fault point");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let st = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    crate::util::Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn temp_parts(tmp: &Path) -> Vec<String> {
    files_below(tmp)
        .into_iter()
        .filter(|f| f.starts_with("bloomjoin-part-"))
        .collect()
}

/// Issue 12, defect 9: SIGINT or SIGTERM during a join (local and S3 outputs) or a train
/// cancels it cleanly: exit 130 / 143, one line, no `_SUCCESS`, nothing staged or under a
/// final name, no temporary part files left in the temporary directory; the rerun succeeds.
#[test]
fn sigint_and_sigterm_cancel_cleanly() {
    let s3 = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    s3.upload_dir("lake", &d.join("users"), "users");
    let tmp = d.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut env = s3.env();
    env.push(("TMPDIR".into(), tmp.display().to_string()));
    env.push(("BLOOMJOIN_FAULT".into(), "map:sleep-600000".into()));
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        // S3 output: the reducers' temporary parts exist before the map stage starts.
        let args = join_args("users.bjf", "users", "comments", "s3://lake/out");
        signalled(d, &args, &env, signal).fails(code, &["cancelled"]);
        assert_eq!(s3.keys("lake", "out/"), Vec::<String>::new(), "SIG{signal}");
        assert_eq!(temp_parts(&tmp), Vec::<String>::new(), "SIG{signal}");
        // Local output: staged parts removed, and the directory the run made (found by a
        // black-box audit, 2026-11-26: an empty one was left).
        let args = join_args("users.bjf", "users", "comments", "out");
        signalled(d, &args, &env, signal).fails(code, &["cancelled"]);
        assert!(!d.join("out").exists(), "SIG{signal}");
        // One that existed before the run stays, empty.
        std::fs::create_dir(d.join("out")).unwrap();
        signalled(d, &args, &env, signal).fails(code, &["cancelled"]);
        assert_eq!(
            files_below(&d.join("out")),
            Vec::<String>::new(),
            "SIG{signal}"
        );
        std::fs::remove_dir(d.join("out")).unwrap();
        // Train: no filter.
        signalled(d, &train_args("users", "t.bjf"), &env, signal).fails(code, &["cancelled"]);
        assert!(!d.join("t.bjf").exists());
    }
    // A signal during the commit's window (parts moved, `_SUCCESS` not yet written).
    let mut commit_env = s3.env();
    commit_env.push(("BLOOMJOIN_FAULT".into(), "commit:sleep-600000".into()));
    let args = join_args("users.bjf", "users", "comments", "out");
    signalled(d, &args, &commit_env, "INT").fails(130, &["cancelled"]);
    assert_no_commit(&d.join("out"));
    run_in(d, &args).ok();
    assert_eq!(read_rows(&d.join("out")).0, reference("inner", 1500));
}

/// Issue 12, defect 9: a later run removes the temporary part files that dead processes of
/// this machine left, and keeps those of live processes and of other machines.
#[test]
fn later_runs_remove_temporary_parts_of_dead_processes() {
    let s3 = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    s3.upload_dir("lake", &d.join("users"), "users");
    let tmp = d.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let host = format!("{:08x}", bloomjoin::sys::host_id());
    let other = format!("{:08x}", bloomjoin::sys::host_id() ^ 1);
    let dead = format!("bloomjoin-part-{host}-4294967294-lake_out__temporary_x_part-00000.parquet");
    let live = format!(
        "bloomjoin-part-{host}-{}-lake_out_part-00000.parquet",
        std::process::id()
    );
    let elsewhere = format!("bloomjoin-part-{other}-4294967294-lake_out_part-00000.parquet");
    for f in [&dead, &live, &elsewhere] {
        std::fs::write(tmp.join(f), b"left over").unwrap();
    }
    let mut env = s3.env();
    env.push(("TMPDIR".into(), tmp.display().to_string()));
    run_env(
        d,
        &join_args("users.bjf", "users", "comments", "s3://lake/out"),
        &env,
    )
    .ok();
    let mut left = temp_parts(&tmp);
    left.sort();
    let mut want = vec![live, elsewhere];
    want.sort();
    assert_eq!(left, want);
}

/// Fuzzer finding F16: a Parquet file whose data page makes the parquet crate panic is bad
/// input: exit 2 naming the file (train and join), not an internal error.
#[test]
fn a_corrupt_page_that_panics_the_decoder_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    std::fs::write(d.join("bad.parquet"), base64(F16_BAD_PARQUET)).unwrap();
    run_in(
        d,
        &[
            "train",
            "-q",
            "-i",
            "bad.parquet",
            "-c",
            "k",
            "-o",
            "bad.bjf",
        ],
    )
    .fails(2, &["bad.parquet", "corrupt Parquet data"]);
    assert!(!d.join("bad.bjf").exists());
}

/// The mutated file of finding F16 (`/work/wt/fuzz-findings.md`), base64.
const F16_BAD_PARQUET: &str = "\
UEFSMRUGFQwVDFwVAhUAFQIVABUEFQASAAC1KzphC0CrkwIB1P///xUGFQwVDFwVAhUAFQIVABUEFQASAAACAdT///8VBhUOFQ5c\
FQIVABUCFQoVBBUAEgAAAgGAAgQBBBUGFQ4VDlwVAhUAFQIVChUEFQASAAACAYACBAEUGSECAhkoBNT///8E1P///xkoBNT///8E\
1P///xUCGSYAAClGAAIAAgAZIQICGSgIAgAAAAAAAAAICgAAAAAAAAAZKAgCAAAAAAAAAAgKAAAAAAAAABUCGSYAAClGAAIAAgAZ\
LBYIFTgWAAAWQBU4FgIAABksFngVOhYAABayARU6FgIAABUEGTw1ABgGc2NoZW1hFQQAFQIlAhgBawAVBCUCGANsaWQAFgQZHBks\
JgAcFQIZJQYAGRgBaxUCFgQWcBZwJgg8GATU////GATU////FgAoBNT///8YBNT///8REQAZHBUAFQAVBAA8KQYZJgAEAAAWsAMV\
IhbsARVSACYAHBUEGSUGChkYA2xpZBUCFgQWdBZ0Jng8GAgKAAAAAAAAABgIAgAAAAAAAAAWACgICgAAAAAAAAAYCAIAAAAAAAAA\
EREAGRwVABUKFQQAPCkGGSYABAAAFtIDFSQWvgIVcgAW5AEWBCYIFuQBABkcGAxBUlJPVzpzY2hlbWEY7AEvLy8vLzZnQUFBQVFB\
QUFBQUFBS0FBd0FCZ0FGQUFnQUNnQUFBQUFCQkFBTUFBQUFDQUFJQUFBQUJBQUlBQUFBQkFBQUFBSUFBQUJFQUFBQUJBQUFBTlQv\
Ly84QUFBRUNFQUFBQUJRQUFBQUVBQUFBQUFBQUFBTUFBQUJzYVdRQXhQLy8vd0FBQUFGQUFBQUFFQUFVQUFnQUJnQUhBQXdBQUFB\
UUFCQUFBQUFBQUFFQ0VBQUFBQndBQUFBRUFBQUFBQUFBQUFFQUFBQnJBQUFBQ0FBTUFBZ0FCd0FJQUFBQUFBQUFBU0FBQUFBPQAY\
IHBhcnF1ZXQtY3BwLWFycm93IHZlcnNpb24gMjYuMC4xGSwcAAAcAAAAFQIAAFBBUjE=";

/// Decode standard base64 (no dependency for one fixture).
fn base64(text: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let clean: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let mut out = Vec::new();
    for chunk in clean.chunks(4) {
        let pad = chunk.iter().filter(|c| **c == b'=').count();
        let n = chunk
            .iter()
            .map(|c| if *c == b'=' { 0 } else { val(*c) })
            .fold(0u32, |acc, v| acc << 6 | v);
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    out
}

/// Issue 12, defect 10: a full disk (the `write:enospc` fault point: every write of an output
/// file fails with ENOSPC) is exit 1 in train and in join, as documented, naming the cause;
/// nothing is written or committed.
#[test]
fn disk_full_is_exit_1_in_train_and_join() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let env = vec![("BLOOMJOIN_FAULT".to_string(), "write:enospc".to_string())];
    run_env(d, &train_args("users", "full.bjf"), &env)
        .fails(1, &["full.bjf", "No space left on device"]);
    assert!(!d.join("full.bjf").exists());
    run_env(d, &join_args("users.bjf", "users", "comments", "out"), &env)
        .fails(1, &["No space left on device"]);
    assert_no_commit(&d.join("out"));
    // Missing parents the run created go too, deepest first (left behind, empty, before
    // 2026-11-26); a parent that was there before stays.
    std::fs::create_dir(d.join("kept")).unwrap();
    run_env(
        d,
        &join_args("users.bjf", "users", "comments", "kept/new/deeper/out"),
        &env,
    )
    .fails(1, &["No space left on device"]);
    assert!(d.join("kept").is_dir());
    assert_eq!(files_below(&d.join("kept")), Vec::<String>::new());
    assert!(!d.join("kept/new").exists());
    run_env(d, &train_args("users", "kept/t/u/full.bjf"), &env)
        .fails(1, &["full.bjf", "No space left on device"]);
    assert!(!d.join("kept/t").exists());
}

/// Run a documentation example's bash `script` in `d` against `s3`, with the binary first on
/// the PATH; its stdout (it must succeed).
fn run_doc_script(script: &str, d: &Path, s3: &S3Server) -> String {
    let path = format!(
        "{}:{}",
        bin().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(d)
        .env("PATH", path)
        .env_remove("BLOOMJOIN_LOG")
        .envs(s3.env())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{script}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Issue 14: the sharded training example of docs/SCALE-OUT.md, as written there (8 shards
/// with `--fpp` alone, no guessed N, then `merge` and `inspect`), against S3 (moto) on the
/// sample users: the merged filter holds every user passing the `--where` and meets its FPP.
#[test]
fn s3_scale_out_sharded_example_runs() {
    let doc = std::fs::read_to_string(root().join("docs/SCALE-OUT.md")).unwrap();
    let start = doc.find("Example with 8 machines").expect("the example");
    let block = doc[start..].split("```").nth(1).expect("its code block");
    let block = block.strip_prefix("bash").unwrap_or(block);
    // The shard command (the first command) runs for I = 0..7; the rest once, after it.
    let mut lines = block.lines().filter(|l| !l.trim_start().starts_with('#'));
    let mut shard = String::new();
    for l in lines.by_ref() {
        if l.trim().is_empty() {
            continue;
        }
        shard += l;
        shard += "\n";
        if !l.trim_end().ends_with('\\') {
            break;
        }
    }
    let rest: String = lines.map(|l| format!("{l}\n")).collect();
    assert!(shard.contains("--shard \"$I/8\""), "{shard}");
    assert!(!shard.contains("--expected-items"), "{shard}");
    let script = format!("set -euo pipefail\nfor I in 0 1 2 3 4 5 6 7; do\n{shard}done\n{rest}");

    let s3 = S3Server::start();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    s3.upload_dir("lake", &root().join("data/sample/users"), "users");
    s3.python("s3.create_bucket(Bucket='tmp')");
    let stdout = run_doc_script(&script, d, &s3);
    assert!(
        stdout.contains("split"),
        "inspect prints the filter (the default layout): {stdout}"
    );
    s3.download("lake", "filters", &d.join("merged"));
    let f = decoded(&std::fs::read(d.join("merged/users.bjf")).unwrap());
    assert!(f.estimated_fpp() <= 0.01, "est. fpp {}", f.estimated_fpp());
    let report = run_in(
        d,
        &[
            "join",
            "-q",
            "--filter",
            "merged/users.bjf",
            "--left",
            &root().join("data/sample/users").to_string_lossy(),
            "--left-key",
            "Id",
            "--left-where",
            "Reputation > 1500",
            "--right",
            &root().join("data/sample/users").to_string_lossy(),
            "--right-key",
            "Id",
            "--type",
            "left-semi",
            "-o",
            "semi",
        ],
    );
    // The join checks that every left key passing --left-where is in the filter (exit 2 on
    // the first miss), so success means no false negative.
    report.ok();
}

/// The partition-column example of docs/SCALE-OUT.md (section 3), as written there, against
/// S3 (moto): ten daily files of events and a table of three of the days. The trained filter
/// rules the other seven files out while the side is planned (never opened), and the rows are
/// the three days' events.
#[test]
fn s3_scale_out_partition_column_example_runs() {
    let doc = std::fs::read_to_string(root().join("docs/SCALE-OUT.md")).unwrap();
    let start = doc
        .find("## 3. Joining a partitioned table")
        .expect("the section");
    let block = doc[start..].split("```").nth(1).expect("its code block");
    let script = format!(
        "set -euo pipefail\n{}",
        block.strip_prefix("bash").unwrap_or(block)
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let day = |i: i32| 19_875 + i; // 2024-06-01 + i days
    let date = |i: i32| format!("2024-06-{:02}", i + 1);
    for i in 0..10 {
        write_parquet(
            &d.join(format!("events/dt={}/part-0.parquet", date(i))),
            vec![(
                "user_id",
                Arc::new(Int64Array::from_iter_values(
                    (0..20).map(|u| i as i64 * 100 + u),
                )) as ArrayRef,
            )],
            20,
        );
    }
    write_parquet(
        &d.join("campaign_days/days.parquet"),
        vec![(
            "dt",
            Arc::new(Date32Array::from(vec![day(1), day(4), day(8)])) as ArrayRef,
        )],
        10,
    );
    let s3 = S3Server::start();
    s3.upload_dir("lake", &d.join("events"), "events");
    s3.upload_dir("lake", &d.join("campaign_days"), "campaign_days");
    let stdout = run_doc_script(&script, d, &s3);
    assert!(
        stdout.contains(
            "right  3 files (and 7 not opened: the filter rules out their partition key)"
        ),
        "{stdout}"
    );
    s3.download("lake", "campaign_events", &d.join("got"));
    let (rows, names) = read_rows(&d.join("got"));
    assert_eq!(names, ["user_id", "dt"]);
    let mut want: Vec<String> = [1i32, 4, 8]
        .iter()
        .flat_map(|&i| (0..20).map(move |u| format!("{}|{}", i as i64 * 100 + u, date(i))))
        .collect();
    want.sort();
    assert_eq!(rows, want);
}

/// Usage errors were clap's blocks of three to seven lines (the error, possible values or a
/// tip, the usage, a pointer to --help). They are one line like every other error, exit 2;
/// --help and --version still print as they did, exit 0.
#[test]
fn usage_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (args, needles) in [
        (
            &["train", "--fpp", "abc", "-i", "x", "-c", "y", "-o", "z"][..],
            &["invalid value 'abc' for '--fpp", "(see --help)"][..],
        ),
        (
            &["join", "--type", "weird"],
            &["'--type", "possible values: inner, left"],
        ),
        (&["trian"], &["unrecognized subcommand 'trian'", "'train'"]),
        (
            &["train"],
            &["required arguments were not provided: --input", "--output"],
        ),
        (&["inspect", "f.bjf", "--bogus"], &["'--bogus'"]),
    ] {
        run_in(d, args).fails(2, needles);
    }
    for args in [&["--version"][..], &["train", "--help"]] {
        let r = run_in(d, args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(!r.stdout.is_empty());
    }
}

/// Found by an audit (2026-11-26): a file with two columns of one name failed with "invalid
/// --select: column "v" is selected twice" when no --select was given. The error now names
/// the file and the column.
#[test]
fn a_file_with_two_columns_of_one_name_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ints = |v: Vec<i64>| Arc::new(Int64Array::from(v)) as ArrayRef;
    write_parquet(
        &d.join("dup.parquet"),
        vec![
            ("k", ints(vec![1, 2])),
            ("v", ints(vec![3, 4])),
            ("v", ints(vec![5, 6])),
        ],
        10,
    );
    write_parquet(&d.join("r.parquet"), vec![("k", ints(vec![1]))], 10);
    for (left, right) in [("dup.parquet", "r.parquet"), ("r.parquet", "dup.parquet")] {
        run_in(
            d,
            &[
                "join",
                "--left",
                left,
                "--left-key",
                "k",
                "--right",
                right,
                "--right-key",
                "k",
                "--output",
                "out",
            ],
        )
        .fails(
            2,
            &["dup.parquet", "column \"v\"", "two columns of this name"],
        );
        assert!(!d.join("out").exists());
    }
}

/// A directory where a file is read is bad input (exit 2, one line naming it), as a missing
/// file is; it exited 1 (fifth audit, 2026-11-26).
#[test]
fn a_directory_where_a_file_is_read_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("adir")).unwrap();
    for args in [
        vec!["inspect", "adir"],
        vec!["probe", "--filter", "adir", "1"],
        vec!["run", "adir"],
        vec!["merge", "-o", "m.bjf", "adir"],
    ] {
        run_in(d, &args).fails(2, &["adir", "directory"]);
    }
    assert!(!d.join("m.bjf").exists());
}

/// Keys and job files are read with a bound: a file with no line break never ends one key
/// line, and `run` takes no job file over 1 MiB, so an endless input (`/dev/zero`, here a
/// sparse file of 64 GiB of zeros) is refused on one line instead of read until the memory
/// runs out (left alone by the fifth audit, fixed 2026-11-26).
#[test]
fn endless_key_and_job_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d);
    train(d);
    let f = std::fs::File::create(d.join("zeros")).unwrap();
    f.set_len(64 << 30).unwrap();
    run_in(d, &["probe", "--filter", "users.bjf", "--keys", "zeros"]).fails(
        2,
        &["zeros line 1", "longer than 16 MiB without a line break"],
    );
    run_in(d, &["run", "zeros"]).fails(2, &["zeros", "longer than 1 MiB: not a job file"]);
    // Keys files as before: one key a line, `\r\n` or `\n`, the last line with or without.
    std::fs::write(d.join("keys.txt"), "1\r\n-5\n2").unwrap();
    let out = run_in(
        d,
        &[
            "probe",
            "--filter",
            "users.bjf",
            "--keys",
            "keys.txt",
            "--with-keys",
        ],
    )
    .ok();
    let keys: Vec<&str> = out.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(keys, ["1", "-5", "2"], "{out}");
}

/// A filter location is looked at before it is read whole: a large file of something else
/// is refused by its first bytes (2 GiB were read into memory first), and a device that
/// never ends (`/dev/zero`) is not a regular file (the process was killed for memory;
/// fifth audit, 2026-11-26).
#[test]
fn a_filter_is_recognized_before_it_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A sparse file of 64 GiB: reading it whole would need 64 GiB.
    let f = std::fs::File::create(d.join("big.bin")).unwrap();
    f.set_len(64 << 30).unwrap();
    for args in [
        vec!["inspect", "big.bin"],
        vec!["probe", "--filter", "big.bin", "1"],
        vec!["merge", "-o", "m.bjf", "big.bin"],
    ] {
        run_in(d, &args).fails(2, &["big.bin", "bad magic"]);
    }
    if Path::new("/dev/zero").exists() {
        for args in [
            vec!["inspect", "/dev/zero"],
            vec!["probe", "--filter", "/dev/zero", "1"],
        ] {
            run_in(d, &args).fails(2, &["/dev/zero", "not a regular file"]);
        }
    }
    assert!(!d.join("m.bjf").exists());
}

/// A remote input of many files costs one request per file to plan (its tail, which holds
/// its footer; the size comes from the listing), not a HEAD, then the footer's length, then
/// the footer: with 20 ms a request, planning 200 files fell from 7.0 s to 0.46 s.
#[test]
fn planning_a_remote_input_reads_each_footer_in_one_request() {
    let s3 = S3Server::start();
    let proxy = FaultProxy::start(s3.port);
    let env = S3Server::env_for(proxy.port);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = 20;
    for i in 0..n {
        write_parquet(
            &d.join(format!("many/part-{i:02}.parquet")),
            vec![(
                "k",
                Arc::new(Int64Array::from(vec![i as i64, 100 + i as i64])) as ArrayRef,
            )],
            10,
        );
    }
    s3.upload_dir("lake", &d.join("many"), "many");
    let before = proxy.seen.load(Ordering::SeqCst);
    run_env(
        d,
        &[
            "train",
            "-q",
            "--input",
            "s3://lake/many",
            "--column",
            "k",
            "--output",
            "k.bjf",
        ],
        &env,
    )
    .ok();
    let requests = proxy.seen.load(Ordering::SeqCst) - before;
    // A HEAD and a listing of the prefix, one read of each file's tail, one of its rows.
    assert!(requests <= 2 * n + 2, "{requests} requests for {n} files");
    let probe = run_in(d, &["probe", "--filter", "k.bjf", "0", "119", "5000"]).ok();
    assert_eq!(probe.lines().collect::<Vec<_>>(), ["maybe", "maybe", "no"]);
}

/// `right/part-NN.parquet`: `n` files of `groups` row groups of `rows` rows of `k` (file f's
/// keys f * 1000 + 0, 1, ...) and `v` ("row k"), in pages of `page_rows` rows if given.
fn right_files(d: &Path, n: usize, groups: usize, rows: usize, page_rows: Option<usize>) {
    for f in 0..n {
        let ks: Vec<i64> = (0..rows * groups).map(|r| (f * 1000 + r) as i64).collect();
        let vs: Vec<String> = ks.iter().map(|k| format!("row {k}")).collect();
        let mut props = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(rows));
        if let Some(p) = page_rows {
            props = props
                .set_data_page_row_count_limit(p)
                .set_write_batch_size(p);
        }
        write_parquet_with(
            &d.join(format!("right/part-{f:02}.parquet")),
            vec![
                ("k", Arc::new(Int64Array::from(ks)) as ArrayRef),
                ("v", Arc::new(StringArray::from(vs)) as ArrayRef),
            ],
            props.build(),
        );
    }
}

/// Run `local` (a join whose output is `local-I`), then `remote` (its output `s3-I`) with
/// `env` through `proxy`: both outputs hold the same rows. Returns the requests `remote` made.
fn local_then_remote(
    d: &Path,
    proxy: &FaultProxy,
    env: &[(String, String)],
    local: &[String],
    remote: &[String],
) -> usize {
    fn args(a: &[String]) -> Vec<&str> {
        a.iter().map(String::as_str).collect()
    }
    run_in(d, &args(local)).ok();
    let before = proxy.seen.load(Ordering::SeqCst);
    run_env(d, &args(remote), env).ok();
    let requests = proxy.seen.load(Ordering::SeqCst) - before;
    // The output is the argument after --output.
    let out = |a: &[String]| a[a.iter().position(|x| x == "--output").unwrap() + 1].clone();
    assert_eq!(
        read_rows(&d.join(out(remote))).0,
        read_rows(&d.join(out(local))).0,
        "{remote:?}"
    );
    requests
}

/// A `--right-where` over S3 reads each split's page index with the split's first columns,
/// fetched ahead together, and skips the same pages as over local copies.
#[test]
fn remote_page_indexes_are_fetched_ahead_with_their_splits() {
    // 6 files of 2 row groups of 50 rows in pages of 10, with a page index; a --right-where
    // on a sorted column that the page index judges.
    let s3 = S3Server::start();
    let proxy = FaultProxy::start(s3.port);
    let env = S3Server::env_for(proxy.port);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (n, groups, rows) = (6usize, 2usize, 50usize);
    right_files(d, n, groups, rows, Some(10));
    let left: Vec<i64> = (0..n as i64 * 1000).step_by(3).collect();
    write_parquet(
        &d.join("left.parquet"),
        vec![("id", Arc::new(Int64Array::from(left)) as ArrayRef)],
        100_000,
    );
    s3.upload_dir("lake", &d.join("right"), "right");
    // Rows 15..25 and 95..100 of each file: pages 10..30 and 90..100.
    let ranges = (0..n)
        .map(|f| {
            let b = f * 1000;
            format!(
                "k BETWEEN {} AND {} OR k BETWEEN {} AND {}",
                b + 15,
                b + 24,
                b + 95,
                b + 99
            )
        })
        .collect::<Vec<_>>()
        .join(" OR ");
    for (i, cond) in [ranges, "k >= 0".to_string()].into_iter().enumerate() {
        let join = |right: &str, out: &str| {
            vec![
                "join".to_string(),
                "-q".into(),
                "--left".into(),
                "left.parquet".into(),
                "--left-key".into(),
                "id".into(),
                "--right".into(),
                right.into(),
                "--right-key".into(),
                "k".into(),
                "--right-where".into(),
                cond.clone(),
                "--no-prefilter".into(),
                "--split-rows".into(),
                "1".into(),
                "--output".into(),
                out.into(),
                "--report".into(),
                format!("{out}.json"),
            ]
        };
        let requests = local_then_remote(
            d,
            &proxy,
            &env,
            &join("right", &format!("local-{i}")),
            &join("s3://lake/right", &format!("s3-{i}")),
        );
        let report = |name: &str| -> serde_json::Value {
            serde_json::from_slice(&std::fs::read(d.join(format!("{name}.json"))).unwrap()).unwrap()
        };
        let (r, l) = (report(&format!("s3-{i}")), report(&format!("local-{i}")));
        // Of each file's 100 rows, pages 10..30 and 90..100 are read.
        let (read, pages) = match i {
            0 => (30 * n as u64, 70 * n as u64),
            _ => (100 * n as u64, 0),
        };
        for side in [&r, &l] {
            assert_eq!(side["right"]["rows_read"], read, "{cond}: {side}");
            assert_eq!(side["right"]["rows_skipped_by_page_index"], pages, "{cond}");
        }
        // A listing, a read of each file's tail, and for each split a read of the
        // condition's column with the page index (fetched ahead together) and one of the
        // other column's rows that passed: the page index costs no request of its own, but
        // in the splits each of the 2 workers starts with, before anything was fetched
        // ahead (without it, 42 were counted).
        let splits = n * groups;
        assert!(
            requests <= 2 + n + 2 * splits + 2,
            "{cond}: {requests} requests for {n} files of {groups} row groups"
        );
        assert!(r["right"]["bytes_read_ahead"].as_u64().unwrap() > 0);
    }
}

/// Remote splits are fetched ahead of the workers (`src/read/ahead.rs`): the join and train
/// over S3 give what they give over local copies, most bytes come from the fetches ahead
/// (the report's `bytes_read_ahead`), and nothing is fetched twice.
#[test]
fn remote_splits_are_fetched_ahead_once() {
    let s3 = S3Server::start();
    let proxy = FaultProxy::start(s3.port);
    let env = S3Server::env_for(proxy.port);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (n, groups, rows) = (12usize, 2usize, 50usize);
    right_files(d, n, groups, rows, None);
    // Left: every seventh key of every other file.
    let left: Vec<i64> = (0..n)
        .step_by(2)
        .flat_map(|f| {
            (0..rows * groups)
                .step_by(7)
                .map(move |r| (f * 1000 + r) as i64)
        })
        .collect();
    write_parquet(
        &d.join("left.parquet"),
        vec![("id", Arc::new(Int64Array::from(left)) as ArrayRef)],
        1000,
    );
    s3.upload_dir("lake", &d.join("right"), "right");
    // The join's arguments, with a report beside the output.
    let join = |right: &str, out: &str, extra: &[&str]| {
        let mut args: Vec<String> = [
            "join",
            "-q",
            "--left",
            "left.parquet",
            "--left-key",
            "id",
            "--right",
            right,
            "--right-key",
            "k",
            "--output",
            out,
            "--split-rows",
            "1",
            "--report",
        ]
        .map(String::from)
        .to_vec();
        args.push(format!("{out}.json"));
        args.extend(extra.iter().map(|x| x.to_string()));
        args
    };
    for (i, extra) in [vec!["--no-prefilter"], vec![]].into_iter().enumerate() {
        let requests = local_then_remote(
            d,
            &proxy,
            &env,
            &join("right", &format!("local-{i}"), &extra),
            &join("s3://lake/right", &format!("s3-{i}"), &extra),
        );
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join(format!("s3-{i}.json"))).unwrap())
                .unwrap();
        let (read, ahead) = (
            report["right"]["bytes_read"].as_u64().unwrap(),
            report["right"]["bytes_read_ahead"].as_u64().unwrap(),
        );
        // One split per row group: all but the first split's were fetched ahead (with the
        // prefilter, the key column's; the value's after the key filter kept rows).
        assert!(
            ahead > 0 && ahead < read,
            "{extra:?}: {ahead} of {read} bytes ahead"
        );
        if !extra.is_empty() {
            assert!(ahead * 4 >= read * 3, "only {ahead} of {read} bytes ahead");
        }
        let local: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join(format!("local-{i}.json"))).unwrap())
                .unwrap();
        assert_eq!(local["right"]["bytes_read_ahead"], 0);
        assert_eq!(local["right"]["bytes_read"], report["right"]["bytes_read"]);
        // A listing, a read of each file's tail, and at most one read of each split's
        // columns (the key alone, then the value, with the prefilter): fetched ahead or by
        // its worker, never both.
        let splits = n * groups;
        let rounds = if extra.is_empty() { 2 } else { 1 };
        assert!(
            requests <= 2 + n + rounds * splits,
            "{extra:?}: {requests} requests for {n} files of {groups} row groups"
        );
    }
    // BLOOMJOIN_READ_AHEAD sets the budget in MiB; 0 turns reading ahead off, and a value
    // that is no number fails the job before it writes anything.
    let no_prefilter = |out: &str| join("s3://lake/right", out, &["--no-prefilter"]);
    let mut off = env.clone();
    off.push(("BLOOMJOIN_READ_AHEAD".into(), "0".into()));
    let args = no_prefilter("off");
    run_env(
        d,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &off,
    )
    .ok();
    assert_eq!(read_rows(&d.join("off")).0, read_rows(&d.join("local-0")).0);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("off.json")).unwrap()).unwrap();
    assert_eq!(report["right"]["bytes_read_ahead"], 0);
    let mut bad = env.clone();
    bad.push(("BLOOMJOIN_READ_AHEAD".into(), "64MB".into()));
    let args = no_prefilter("bad");
    run_env(
        d,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &bad,
    )
    .fails(2, &["BLOOMJOIN_READ_AHEAD", "\"64MB\"", "MiB"]);
    assert!(!d.join("bad").exists());
    // Train: the same filter bytes as from the local copies.
    let train = |input: &str, out: &str| {
        vec![
            "train",
            "-q",
            "--input",
            input,
            "--column",
            "k",
            "--output",
            out,
            "--fpp",
            "0.01",
            "--split-rows",
            "1",
            "--report",
            "train.json",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()
    };
    let args = train("right", "local.bjf");
    run_in(d, &args.iter().map(String::as_str).collect::<Vec<_>>()).ok();
    let args = train("s3://lake/right", "s3.bjf");
    run_env(
        d,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &env,
    )
    .ok();
    // The filter and its metadata but for the inputs' names.
    let decoded = |name: &str| {
        let bytes = std::fs::read(d.join(name)).unwrap();
        let (f, mut meta) = bloomjoin::bloom::codec::decode(&bytes, name).unwrap();
        meta.inputs = vec![];
        (f, meta)
    };
    assert_eq!(decoded("s3.bjf"), decoded("local.bjf"));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("train.json")).unwrap()).unwrap();
    let (read, ahead) = (
        report["bytes_read"].as_u64().unwrap(),
        report["bytes_read_ahead"].as_u64().unwrap(),
    );
    assert!(
        ahead > 0 && ahead < read,
        "train: {ahead} of {read} bytes ahead"
    );
}

/// The numeric settings of the environment are checked before a command runs: a value its
/// variable cannot take is exit 2 naming the variable, and nothing is written (they once fell
/// back to their defaults without a word).
#[test]
fn bad_settings_in_the_environment_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = root().join("data/sample/users");
    let input = input.to_str().unwrap();
    let train = [
        "train", "-q", "--input", input, "--column", "Id", "--output", "f.bjf",
    ];
    for (name, bad, what) in [
        ("BLOOMJOIN_MAX_RETRIES", "five", "whole number"),
        ("BLOOMJOIN_RETRY_TIMEOUT_SECS", "1.5", "whole number"),
        ("BLOOMJOIN_READ_AHEAD", "-1", "MiB"),
        (
            "BLOOMJOIN_IO_TIMEOUT_SECS",
            "0",
            "positive number of seconds",
        ),
        (
            "BLOOMJOIN_COMMIT_WAIT_SECS",
            "soon",
            "positive number of seconds",
        ),
        ("BLOOMJOIN_LEASE_SECS", "inf", "positive number of seconds"),
    ] {
        run_env(d, &train, &[(name.into(), bad.into())])
            .fails(2, &[name, &format!("{bad:?}"), what]);
        assert!(!d.join("f.bjf").exists(), "{name}={bad} wrote the filter");
    }
    // Good values, with spaces around them, are taken.
    let good = [
        ("BLOOMJOIN_MAX_RETRIES", " 3 "),
        ("BLOOMJOIN_IO_TIMEOUT_SECS", "2.5"),
        ("BLOOMJOIN_READ_AHEAD", "0"),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()));
    run_env(d, &train, &good).ok();
    assert!(d.join("f.bjf").exists());
}

/// `--dry-run` over an object store reads the listing and each file's footer, checks the
/// output, and fetches no column chunk and writes nothing: counted at a proxy in front of
/// moto, against the run of the same join.
#[test]
fn dry_runs_over_s3_read_footers_alone() {
    let s3 = S3Server::start();
    let proxy = FaultProxy::start(s3.port);
    let env = S3Server::env_for(proxy.port);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (n, groups, rows) = (8usize, 3usize, 40usize);
    for f in 0..n {
        let ks: Vec<i64> = (0..rows * groups).map(|r| (f * 1000 + r) as i64).collect();
        write_parquet(
            &d.join(format!("right/part-{f:02}.parquet")),
            vec![("k", Arc::new(Int64Array::from(ks)) as ArrayRef)],
            rows,
        );
    }
    write_parquet(
        &d.join("left.parquet"),
        vec![(
            "id",
            Arc::new(Int64Array::from(vec![3i64, 1005, 7010])) as ArrayRef,
        )],
        10,
    );
    s3.upload_dir("lake", &d.join("right"), "right");
    let counted = |args: &[&str]| {
        let before = proxy.seen.load(Ordering::SeqCst);
        let out = run_env(d, args, &env).ok();
        (out, proxy.seen.load(Ordering::SeqCst) - before)
    };
    let join = [
        "join",
        "--left",
        "left.parquet",
        "--left-key",
        "id",
        "--right",
        "s3://lake/right",
        "--right-key",
        "k",
        "--split-rows",
        "1",
        "--output",
        "s3://lake/out",
    ];
    let (plan, dry) = counted(&[&join[..], &["--dry-run"]].concat());
    assert!(
        plan.contains(&format!("{n} files, {} row groups", n * groups)),
        "{plan}"
    );
    assert!(
        s3.keys("lake", "out").is_empty(),
        "{:?}",
        s3.keys("lake", "out")
    );
    // The listing, a read of each file's tail, and the output's listing and HEADs.
    assert!(dry <= 1 + n + 4, "{dry} requests for {n} files");
    let train = [
        "train",
        "--input",
        "s3://lake/right",
        "--column",
        "k",
        "--split-rows",
        "1",
        "--output",
        "s3://lake/k.bjf",
    ];
    let (_, dry_train) = counted(&[&train[..], &["--dry-run"]].concat());
    assert!(dry_train <= 1 + n + 4, "{dry_train} requests for {n} files");
    assert!(s3.keys("lake", "k.bjf").is_empty());
    // The runs read a split (a row group) each besides.
    let (_, run) = counted(&[&join[..], &["-q"]].concat());
    assert!(run >= dry + n * groups, "{run} requests against {dry} dry");
    let (_, run_train) = counted(&[&train[..], &["-q"]].concat());
    assert!(
        run_train >= dry_train + n * groups,
        "{run_train} against {dry_train}"
    );
}
