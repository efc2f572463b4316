//! Helpers shared by the black-box tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Path of the binary under test: this build's, or `BLOOMJOIN_TEST_BIN` (to show that a
/// regression test fails on another build, e.g. main's).
pub fn bin() -> PathBuf {
    std::env::var_os("BLOOMJOIN_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_bloomjoin")))
}

/// The repository root (for `data/`, `jobs/`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The outcome of one run.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }

    /// Assert success and return stdout.
    #[track_caller]
    pub fn ok(self) -> String {
        assert_eq!(
            self.code, 0,
            "failed: {}\nstdout: {}",
            self.stderr, self.stdout
        );
        self.stdout
    }

    /// Assert a failure with `code`, a one-line message on stderr containing every needle,
    /// and no panic.
    #[track_caller]
    pub fn fails(self, code: i32, needles: &[&str]) -> String {
        assert_eq!(
            self.code, code,
            "stderr: {}\nstdout: {}",
            self.stderr, self.stdout
        );
        let err = self.stderr.trim_end();
        assert!(!err.contains("panicked at"), "panic: {err}");
        assert_eq!(err.lines().count(), 1, "not one line: {err:?}");
        assert!(err.starts_with("bloomjoin: error: "), "{err}");
        for n in needles {
            assert!(err.contains(n), "{err:?} does not mention {n:?}");
        }
        err.to_string()
    }
}

/// Run the binary with `args` in `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Run {
    Run::from(
        Command::new(bin())
            .args(args)
            .current_dir(dir)
            .env_remove("BLOOMJOIN_LOG")
            .output()
            .expect("the binary runs"),
    )
}

/// Run the binary with `args` and `stdin`.
pub fn run_stdin(dir: &Path, args: &[&str], stdin: &str) -> Run {
    use std::io::Write;
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // A command that refuses its options exits before reading stdin: the write then meets a
    // closed pipe, which is not the test's failure (its exit code and message are checked).
    match child.stdin.take().unwrap().write_all(stdin.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.unwrap(),
    }
    Run::from(child.wait_with_output().unwrap())
}

/// Every file below `dir`, relative, sorted.
pub fn files_below(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(base: &Path, d: &Path, out: &mut Vec<String>) {
        if let Ok(rd) = std::fs::read_dir(d) {
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(base, &p, out);
                } else {
                    out.push(p.strip_prefix(base).unwrap().display().to_string());
                }
            }
        }
    }
    walk(dir, dir, &mut out);
    out.sort();
    out
}

use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::{Field, Schema};

/// Write `columns` as a Parquet file with row groups of `row_group_rows`.
pub fn write_parquet(path: &Path, columns: Vec<(&str, ArrayRef)>, row_group_rows: usize) {
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(row_group_rows))
        .build();
    write_parquet_with(path, columns, props);
}

/// `columns` (all nullable) as a Parquet file written with `props`.
pub fn write_parquet_with(
    path: &Path,
    columns: Vec<(&str, ArrayRef)>,
    props: parquet::file::properties::WriterProperties,
) {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let batch = RecordBatch::try_new(
        schema.clone(),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .unwrap();
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    let file = std::fs::File::create(path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, schema, Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

/// Every row of every Parquet file below `dir` (sorted), as `a|b|c` strings, and the column
/// names of the first file.
pub fn read_rows(dir: &Path) -> (Vec<String>, Vec<String>) {
    use arrow::util::display::{ArrayFormatter, FormatOptions};
    let mut rows = Vec::new();
    let mut names = Vec::new();
    for f in files_below(dir) {
        // Like any reader of a Hadoop-style output: skip `_temporary/`, `_SUCCESS`, `.crc`.
        if !f.ends_with(".parquet")
            || f.split('/')
                .any(|c| c.starts_with('_') || c.starts_with('.'))
        {
            continue;
        }
        let file = std::fs::File::open(dir.join(&f)).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        for b in reader {
            let b = b.unwrap();
            if names.is_empty() {
                names = b
                    .schema()
                    .fields()
                    .iter()
                    .map(|f| f.name().clone())
                    .collect();
            }
            let opts = FormatOptions::default().with_null("NULL");
            let fmts: Vec<_> = b
                .columns()
                .iter()
                .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).unwrap())
                .collect();
            for i in 0..b.num_rows() {
                rows.push(
                    fmts.iter()
                        .map(|f| f.value(i).to_string())
                        .collect::<Vec<_>>()
                        .join("|"),
                );
            }
        }
    }
    rows.sort();
    (rows, names)
}

/// Run the binary with `args` in `dir`, its commit held 30 s after its parts are moved in
/// (`BLOOMJOIN_FAULT=commit:sleep-30000`); once `reached()` says they are (within 60 s), kill
/// it (SIGKILL) and wait for it.
pub fn kill_in_commit(dir: &Path, args: &[&str], reached: impl Fn() -> bool) {
    let mut child = std::process::Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env("BLOOMJOIN_FAULT", "commit:sleep-30000")
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !reached() {
        assert!(
            t0.elapsed().as_secs() < 60,
            "the job never reached its commit"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Run the binary with `args` in `dir` and extra environment variables.
pub fn run_env(dir: &Path, args: &[&str], env: &[(String, String)]) -> Run {
    Run::from(
        Command::new(bin())
            .args(args)
            .current_dir(dir)
            .env_remove("BLOOMJOIN_LOG")
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .output()
            .expect("the binary runs"),
    )
}

/// A free loopback port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_for_port(port: u16) {
    let t0 = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            t0.elapsed().as_secs() < 60,
            "nothing listens on 127.0.0.1:{port}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// A real S3-compatible server (moto) on a free loopback port, stopped by PID on drop.
/// `scripts/test.sh` installs moto into `.cache/venv-moto`; `BLOOMJOIN_MOTO_SERVER` overrides
/// the path. A missing server fails the test: S3 tests are never skipped.
pub struct S3Server {
    child: std::process::Child,
    /// The port it listens on.
    pub port: u16,
    python: PathBuf,
}

impl S3Server {
    /// Start a server.
    pub fn start() -> S3Server {
        let moto = std::env::var_os("BLOOMJOIN_MOTO_SERVER")
            .map(PathBuf::from)
            .unwrap_or_else(|| root().join(".cache/venv-moto/bin/moto_server"));
        assert!(
            moto.exists(),
            "{} not found: run scripts/test.sh (it installs moto) or set BLOOMJOIN_MOTO_SERVER",
            moto.display()
        );
        let port = free_port();
        let child = Command::new(&moto)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("moto_server starts");
        wait_for_port(port);
        S3Server {
            child,
            port,
            python: moto.parent().unwrap().join("python"),
        }
    }

    /// The environment a client needs to reach `endpoint_port` (this server or a proxy).
    pub fn env_for(port: u16) -> Vec<(String, String)> {
        [
            ("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}")),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_ACCESS_KEY_ID", "test".into()),
            ("AWS_SECRET_ACCESS_KEY", "test".into()),
            ("AWS_REGION", "us-east-1".into()),
            ("AWS_EC2_METADATA_DISABLED", "true".into()),
            ("BLOOMJOIN_MAX_RETRIES", "3".into()),
            ("BLOOMJOIN_RETRY_TIMEOUT_SECS", "10".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// The environment to reach this server directly.
    pub fn env(&self) -> Vec<(String, String)> {
        S3Server::env_for(self.port)
    }

    /// Run Python with a boto3 client `s3` bound to this server; returns stdout.
    pub fn python(&self, code: &str) -> String {
        let prelude = format!(
            "import boto3\ns3 = boto3.client('s3', endpoint_url='http://127.0.0.1:{}', region_name='us-east-1', aws_access_key_id='test', aws_secret_access_key='test')\n",
            self.port
        );
        let out = Command::new(&self.python)
            .arg("-c")
            .arg(prelude + code)
            .output()
            .expect("python runs");
        assert!(
            out.status.success(),
            "python failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Create a bucket and upload every file below `dir` under `prefix/`.
    pub fn upload_dir(&self, bucket: &str, dir: &Path, prefix: &str) {
        let mut code =
            format!("try:\n    s3.create_bucket(Bucket='{bucket}')\nexcept Exception:\n    pass\n");
        for f in files_below(dir) {
            code += &format!(
                "s3.upload_file({:?}, '{bucket}', {:?})\n",
                dir.join(&f).display().to_string(),
                format!("{prefix}/{f}")
            );
        }
        self.python(&code);
    }

    /// Keys below `prefix` in `bucket`, sorted.
    pub fn keys(&self, bucket: &str, prefix: &str) -> Vec<String> {
        let out = self.python(&format!(
            "r = s3.list_objects_v2(Bucket='{bucket}', Prefix='{prefix}')\nfor o in r.get('Contents', []): print(o['Key'])\n"
        ));
        let mut v: Vec<String> = out.lines().map(str::to_string).collect();
        v.sort();
        v
    }

    /// Download every object below `prefix` into `dir` (keeping relative names).
    pub fn download(&self, bucket: &str, prefix: &str, dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        for k in self.keys(bucket, prefix) {
            let rel = k.trim_start_matches(prefix).trim_start_matches('/');
            let target = dir.join(rel);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            self.python(&format!(
                "s3.download_file('{bucket}', {k:?}, {:?})\n",
                target.display().to_string()
            ));
        }
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fault-injecting HTTP proxy in front of a server on loopback: it forwards each request on
/// its own connection, and can answer the next N requests with 503 or refuse everything
/// (as a stopped server would) from the K-th request on.
pub struct FaultProxy {
    /// The port clients connect to.
    pub port: u16,
    /// Requests still to answer with 503.
    pub fail_next: Arc<std::sync::atomic::AtomicUsize>,
    /// From this many requests on, drop every connection (usize::MAX: never).
    pub down_after: Arc<std::sync::atomic::AtomicUsize>,
    /// Requests seen.
    pub seen: Arc<std::sync::atomic::AtomicUsize>,
    /// 503s sent.
    pub injected: Arc<std::sync::atomic::AtomicUsize>,
    /// Forward one request at a time. moto checks a conditional put's precondition and then
    /// writes without a lock, so concurrent conditional puts can both succeed there (S3's are
    /// atomic); serialized, they behave as on S3.
    pub serialize: Arc<std::sync::atomic::AtomicBool>,
}

impl FaultProxy {
    /// Start a proxy to `127.0.0.1:upstream`.
    pub fn start(upstream: u16) -> FaultProxy {
        use std::io::{Read, Write};
        use std::sync::atomic::{AtomicUsize, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let fail_next = Arc::new(AtomicUsize::new(0));
        let down_after = Arc::new(AtomicUsize::new(usize::MAX));
        let seen = Arc::new(AtomicUsize::new(0));
        let injected = Arc::new(AtomicUsize::new(0));
        let serialize = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let one_at_a_time = Arc::new(std::sync::Mutex::new(()));
        let (f, d, s, i, z) = (
            fail_next.clone(),
            down_after.clone(),
            seen.clone(),
            injected.clone(),
            serialize.clone(),
        );
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut client) = conn else { continue };
                let (f, d, s, i) = (f.clone(), d.clone(), s.clone(), i.clone());
                let (z, lock) = (z.clone(), one_at_a_time.clone());
                std::thread::spawn(move || {
                    // Read the request head.
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        match client.read(&mut byte) {
                            Ok(1) => head.push(byte[0]),
                            _ => return,
                        }
                    }
                    let n = s.fetch_add(1, Ordering::SeqCst);
                    if n >= d.load(Ordering::SeqCst) {
                        return; // a stopped server: the connection just closes
                    }
                    if f.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |x| x.checked_sub(1))
                        .is_ok()
                    {
                        i.fetch_add(1, Ordering::SeqCst);
                        let body = "<Error><Code>ServiceUnavailable</Code><Message>injected</Message></Error>";
                        let _ = write!(
                            client,
                            "HTTP/1.1 503 Service Unavailable\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        );
                        return;
                    }
                    let _turn = z
                        .load(Ordering::SeqCst)
                        .then(|| lock.lock().unwrap_or_else(|e| e.into_inner()));
                    let Ok(mut up) = std::net::TcpStream::connect(("127.0.0.1", upstream)) else {
                        return;
                    };
                    // One request per connection, so every request passes the checks above.
                    let text = String::from_utf8_lossy(&head).to_string();
                    let mut rewritten: String = text
                        .split("\r\n")
                        .filter(|l| {
                            !l.to_ascii_lowercase().starts_with("connection:") && !l.is_empty()
                        })
                        .map(|l| format!("{l}\r\n"))
                        .collect();
                    rewritten.push_str("Connection: close\r\n\r\n");
                    if up.write_all(rewritten.as_bytes()).is_err() {
                        return;
                    }
                    let (mut c2, mut u2) = (client.try_clone().unwrap(), up.try_clone().unwrap());
                    let t = std::thread::spawn(move || {
                        let _ = std::io::copy(&mut c2, &mut u2);
                        let _ = u2.shutdown(std::net::Shutdown::Write);
                    });
                    let _ = std::io::copy(&mut up, &mut client);
                    let _ = client.shutdown(std::net::Shutdown::Both);
                    let _ = t.join();
                });
            }
        });
        FaultProxy {
            port,
            fail_next,
            down_after,
            seen,
            injected,
            serialize,
        }
    }
}

/// The lines of the README's first example block after `item` (trimmed, blank ones dropped).
pub fn readme_block(item: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find(item).expect("README item");
    readme[start..]
        .split("```")
        .nth(1)
        .expect("README example block")
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// A temporary directory where README commands run as written: `data` is the repository's.
pub fn readme_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root().join("data"), dir.path().join("data")).unwrap();
    dir
}

/// Run the README example after `item` in a [`readme_dir`]: each `$ bloomjoin ...` line,
/// whose output must hold the `output N rows, ` of the line after it. The directory, and
/// each command with its output.
pub fn run_readme_example(item: &str) -> (tempfile::TempDir, Vec<(String, String)>) {
    let block = readme_block(item);
    let dir = readme_dir();
    let mut runs = Vec::new();
    for pair in block.chunks(2) {
        let out = run_readme_line(dir.path(), &pair[0]);
        let (head, _) = pair[1]
            .split_once(" rows, ")
            .expect("an `output N rows, ` line");
        assert!(out.contains(&format!("{head} rows, ")), "{out}");
        runs.push((pair[0].clone(), out));
    }
    (dir, runs)
}

/// Run a README line `$ bloomjoin ARGS` in `dir` (it must succeed); its output.
pub fn run_readme_line(dir: &Path, line: &str) -> String {
    let cmd = line.strip_prefix("$ bloomjoin ").unwrap();
    let args = crate::composite_keys::shell_words(cmd);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_in(dir, &args).ok()
}
