//! Helpers shared by the black-box tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Path of the binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_bloomjoin"))
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
        assert!(!err.contains("panicked"), "panic: {err}");
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
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
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
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(row_group_rows))
        .build();
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
        if !f.ends_with(".parquet") {
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
