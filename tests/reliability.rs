//! Real object stores and faults (docs/RELIABILITY.md): S3 through a real S3-compatible
//! server (moto) on loopback, transient 5xx and a stopped server through a fault-injecting
//! proxy, injected panics and errors in map and reduce tasks, a SIGKILL during commit, two
//! jobs racing for one output, and hostile inputs.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use arrow::array::*;

use crate::join_cli::{fixture, reference, train};
use crate::util::{files_below, read_rows, run_env, run_in, write_parquet, FaultProxy, S3Server};

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

    run_env(
        d,
        &join_args(
            "s3://lake/filters/users.bjf",
            "s3://lake/users",
            "s3://lake/comments",
            "s3://lake/out",
        ),
        &env,
    )
    .ok();
    let keys = s3.keys("lake", "out/");
    assert!(keys.contains(&"out/_SUCCESS".to_string()), "{keys:?}");
    assert!(keys.iter().all(|k| !k.contains("_temporary")), "{keys:?}");
    s3.download("lake", "out", &d.join("out-s3"));
    assert_eq!(read_rows(&d.join("out-s3")).0, reference("inner", 1500));

    // Unknown bucket: a one-line error naming the location.
    run_env(d, &train_args("s3://nope/users", "x.bjf"), &env).fails(2, &["s3://nope/users"]);
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
    let mut child = std::process::Command::new(crate::util::bin())
        .args(&args)
        .current_dir(d)
        .env("BLOOMJOIN_FAULT", "commit:sleep-30000")
        .spawn()
        .unwrap();
    // Wait until the parts are under their final names, then kill -9 before _SUCCESS.
    let t0 = std::time::Instant::now();
    while !files_below(&d.join("out"))
        .iter()
        .any(|f| f.starts_with("part-"))
    {
        assert!(
            t0.elapsed().as_secs() < 60,
            "the job never reached its commit"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
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
    std::fs::write(d.join("empty.parquet"), b"").unwrap();
    for f in ["badfooter.parquet", "badpage.parquet", "empty.parquet"] {
        run_in(
            d,
            &["train", "--input", f, "--column", "Id", "--output", "x.bjf"],
        )
        .fails(2, &[f]);
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
            "3",
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
