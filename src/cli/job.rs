//! Job files: a TOML file that chains the steps of a batch job (train, then join) with every
//! option of the command line.
//!
//! ```toml
//! description = "Comments of reputable users"
//!
//! [train]                      # every option of `bloomjoin train`, kebab-case
//! input = ["data/sample/users"]
//! column = "Id"
//! where = "Reputation > 1500"
//! output = "out/users_comments/users.bjf"
//! overwrite = true
//!
//! [join]                       # every option of `bloomjoin join`, kebab-case
//! left = ["data/sample/users"] # `filter` defaults to the train step's output
//! left-key = "Id"
//! left-where = "Reputation > 1500"
//! right = ["data/sample/comments"]
//! right-key = "UserId"
//! output = "out/users_comments/join"
//! overwrite = true
//! ```
//!
//! A `[filter]` table (every option of `bloomjoin filter`; its `filter` defaults to the
//! train step's output too) runs the map-only filter job after the others.
//!
//! Keys are those of [`TrainSpec`], [`JoinSpec`] and [`FilterSpec`]; unknown keys and tables are errors naming
//! the file, the table and the key. `--set table.key=value` overrides a key (the value is
//! TOML: `4`, `0.001`, `true`, `["a", "b"]`, or else taken as a string). Relative paths are
//! used as they are, so they resolve against the working directory. Everything is checked
//! before the first step runs; a failing step stops the chain.

use std::time::Instant;

use serde::de::DeserializeOwned;

use crate::cli::filter::FilterSpec;
use crate::cli::join::JoinSpec;
use crate::cli::train::TrainSpec;
use crate::error::{Error, Result};
use crate::join::JoinJob;
use crate::sieve::FilterJob;
use crate::store::Location;
use crate::train::TrainJob;

/// The tables a job file may have, in the order their steps run.
pub const STEPS: [&str; 3] = ["train", "join", "filter"];

/// A parsed, overridden and validated job file.
#[derive(Debug, Clone)]
pub struct Job {
    /// The job file, as given.
    pub path: String,
    /// Its `description`, if any.
    pub description: Option<String>,
    /// The train step.
    pub train: Option<TrainJob>,
    /// The join step.
    pub join: Option<JoinJob>,
    /// The filter step.
    pub filter: Option<FilterJob>,
}

/// One step of a job, ready to run.
#[derive(Debug, Clone)]
pub enum Step {
    /// Train a filter.
    Train(Box<TrainJob>),
    /// Join.
    Join(Box<JoinJob>),
    /// Keep the rows a filter may hold (`bloomjoin filter`).
    Filter(Box<FilterJob>),
}

impl Step {
    /// The step's table name.
    pub fn name(&self) -> &'static str {
        match self {
            Step::Train(_) => "train",
            Step::Join(_) => "join",
            Step::Filter(_) => "filter",
        }
    }
}

/// Parse the value of a `--set`: TOML if it parses as a TOML value, otherwise the raw text
/// as a string.
fn parse_value(raw: &str) -> toml::Value {
    let doc = format!("v = {raw}");
    match doc.parse::<toml::Table>() {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| toml::Value::String(raw.into())),
        Err(_) => toml::Value::String(raw.to_string()),
    }
}

/// Deserialize one step's table, naming the file and the table on error.
fn step_spec<T: DeserializeOwned>(path: &str, name: &str, table: toml::Table) -> Result<T> {
    toml::Value::Table(table)
        .try_into::<T>()
        .map_err(|e| Error::Usage(format!("{path}: [{name}]: {}", one_line(e.message()))))
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `key = value` alone is accepted by the step's spec; the error names the key.
fn check_key<T: DeserializeOwned>(key: &str, value: &toml::Value) -> Result<(), String> {
    let mut t = toml::Table::new();
    t.insert(key.to_string(), value.clone());
    toml::Value::Table(t)
        .try_into::<T>()
        .map(|_| ())
        .map_err(|e| one_line(e.message()))
}

/// Apply one `--set table.key=value` to the parsed file.
fn apply_set(path: &str, doc: &mut toml::Table, set: &str) -> Result<()> {
    let bad = |why: String| Error::param("--set", format!("{set:?}: {why}"));
    let (lhs, raw) = set
        .split_once('=')
        .ok_or_else(|| bad("expected table.key=value, e.g. join.reducers=4".into()))?;
    let (table, key) = lhs
        .trim()
        .split_once('.')
        .ok_or_else(|| bad("expected table.key=value, e.g. join.reducers=4".into()))?;
    if !STEPS.contains(&table) {
        return Err(bad(format!(
            "unknown table [{table}] (a job has [train], [join] and [filter])"
        )));
    }
    let Some(toml::Value::Table(t)) = doc.get_mut(table) else {
        return Err(bad(format!("{path} has no [{table}] step")));
    };
    let check = |v: &toml::Value| match table {
        "train" => check_key::<TrainSpec>(key, v),
        "filter" => check_key::<FilterSpec>(key, v),
        _ => check_key::<JoinSpec>(key, v),
    };
    // The value as TOML, else as a plain string, else as a one-element list (for `input`,
    // `left`, `right`): the first form the spec accepts wins. A value that parses as a TOML
    // string is that string (quotes removed) in every form, as in the file itself.
    let typed = parse_value(raw.trim());
    let text = match &typed {
        toml::Value::String(s) => s.clone(),
        _ => raw.to_string(),
    };
    let candidates = vec![
        typed,
        toml::Value::String(text.clone()),
        toml::Value::Array(vec![toml::Value::String(text)]),
    ];
    let mut first_err = None;
    for v in candidates {
        match check(&v) {
            Ok(()) => {
                t.insert(key.to_string(), v);
                return Ok(());
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(bad(format!(
        "[{table}] {}",
        first_err.expect("at least one candidate")
    )))
}

/// The largest job file `run` reads (a job file is a few hundred bytes).
const MAX_JOB_FILE_BYTES: u64 = 1 << 20;

impl Job {
    /// Read, parse, override and validate a job file. Errors name the file (and the table
    /// and key, or the `--set`); nothing runs.
    pub fn load(path: &str, sets: &[String]) -> Result<Job> {
        use std::io::Read;
        // Read at most one byte past the limit: a FIFO (`run <(...)`) is a job file too, but
        // an endless one (`/dev/zero`) must not fill the memory.
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_JOB_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| Error::io(path, e))?;
        if bytes.len() as u64 > MAX_JOB_FILE_BYTES {
            return Err(Error::Usage(format!(
                "{path}: longer than {} MiB: not a job file",
                MAX_JOB_FILE_BYTES >> 20
            )));
        }
        let text = Error::utf8(path, bytes)?;
        Job::parse(path, &text, sets)
    }

    /// [`Job::load`] from text already read (`path` is used in messages).
    pub fn parse(path: &str, text: &str, sets: &[String]) -> Result<Job> {
        let mut doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            // TOML integers stop at 2^63 - 1; a seed up to 2^64 - 1 goes in quotes.
            let hint = if e.message().contains("too large") {
                " (TOML integers stop at 9223372036854775807: write a larger number in quotes, e.g. seed = \"18446744073709551615\")"
            } else {
                ""
            };
            Error::Usage(format!(
                "{path}{}: invalid TOML: {}{hint}",
                line.map(|l| format!(":{l}")).unwrap_or_default(),
                one_line(e.message())
            ))
        })?;
        for (k, v) in &doc {
            match (k.as_str(), v) {
                ("description", toml::Value::String(_)) => {}
                ("description", _) => {
                    return Err(Error::Usage(format!(
                        "{path}: `description` must be a string"
                    )))
                }
                (s, toml::Value::Table(_)) if STEPS.contains(&s) => {}
                (s, _) if STEPS.contains(&s) => {
                    return Err(Error::Usage(format!("{path}: `{s}` must be a table [{s}]")))
                }
                (other, _) => {
                    return Err(Error::Usage(format!(
                        "{path}: unknown key `{other}` (a job file has `description`, [train], [join] and [filter])"
                    )))
                }
            }
        }
        if !STEPS.iter().any(|s| doc.contains_key(*s)) {
            return Err(Error::Usage(format!(
                "{path}: no steps: add a [train], a [join] or a [filter] table"
            )));
        }
        for s in sets {
            apply_set(path, &mut doc, s)?;
        }
        let description = match doc.remove("description") {
            Some(toml::Value::String(s)) => Some(s),
            _ => None,
        };
        let take = |doc: &mut toml::Table, name: &str| match doc.remove(name) {
            Some(toml::Value::Table(t)) => Some(t),
            _ => None,
        };
        let mut train_table = take(&mut doc, "train");
        let mut join_table = take(&mut doc, "join");
        let mut filter_table = take(&mut doc, "filter");
        // A string for a list of locations is one location, as with `--set` and in Python.
        for (table, keys) in [
            (&mut train_table, &["input"][..]),
            (&mut join_table, &["left", "right"][..]),
            (&mut filter_table, &["input"][..]),
        ] {
            let Some(t) = table.as_mut() else { continue };
            for key in keys {
                if let Some(v @ toml::Value::String(_)) = t.get_mut(*key) {
                    *v = toml::Value::Array(vec![v.clone()]);
                }
            }
        }
        let train_spec = train_table
            .map(|t| {
                require(path, "train", &t, &["input", "column", "output"])?;
                step_spec::<TrainSpec>(path, "train", t)
            })
            .transpose()?;
        let join_spec = join_table
            .map(|t| {
                require(
                    path,
                    "join",
                    &t,
                    &["left", "left-key", "right", "right-key", "output"],
                )?;
                let mut spec = step_spec::<JoinSpec>(path, "join", t)?;
                // No `filter`: the [train] step's, or (no [train] step) one the join builds
                // from the left side.
                if spec.filter.is_none() && !spec.no_prefilter {
                    spec.filter = train_spec.as_ref().map(|tr| tr.output.clone());
                }
                Ok(spec)
            })
            .transpose()?;
        let filter_spec = filter_table
            .map(|t| {
                let mut required = vec!["input", "key", "output"];
                // No `filter`: the [train] step's.
                if train_spec.is_none() {
                    required.insert(0, "filter");
                }
                require(path, "filter", &t, &required)?;
                let mut spec = step_spec::<FilterSpec>(path, "filter", t)?;
                if spec.filter.is_empty() {
                    if let Some(tr) = &train_spec {
                        spec.filter = tr.output.clone();
                    }
                }
                Ok(spec)
            })
            .transpose()?;
        // Validation once, at the edge: every step, before any runs.
        let train = train_spec
            .map(|t| t.to_job().map_err(|e| in_step(path, "train", sets, e)))
            .transpose()?;
        let join = join_spec
            .map(|j| j.to_job().map_err(|e| in_step(path, "join", sets, e)))
            .transpose()?;
        let filter = filter_spec
            .map(|f| f.to_job().map_err(|e| in_step(path, "filter", sets, e)))
            .transpose()?;
        Ok(Job {
            path: path.to_string(),
            description,
            train,
            join,
            filter,
        })
    }

    /// The steps in the order they run.
    pub fn steps(&self) -> Vec<Step> {
        let mut v = Vec::new();
        if let Some(t) = &self.train {
            v.push(Step::Train(Box::new(t.clone())));
        }
        if let Some(j) = &self.join {
            v.push(Step::Join(Box::new(j.clone())));
        }
        if let Some(f) = &self.filter {
            v.push(Step::Filter(Box::new(f.clone())));
        }
        v
    }
}

/// Refuse a step table without a required key.
fn require(path: &str, name: &str, t: &toml::Table, keys: &[&str]) -> Result<()> {
    for k in keys {
        if !t.contains_key(*k) {
            // A misspelt key (`colum`) would otherwise be reported only as the key missing.
            let near = crate::error::nearest_names(k, t.keys().map(String::as_str));
            let hint = match near.as_slice() {
                [] => String::new(),
                names => format!(
                    " (the table has {}: a misspelling?)",
                    names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            return Err(Error::Usage(format!(
                "{path}: [{name}]: missing key `{k}`{hint}"
            )));
        }
    }
    Ok(())
}

/// Name the file and step in a validation error, keeping its kind (and exit code), and the
/// `--set` that gave the value where one did (the last one for that key wins, as applied).
fn in_step(path: &str, name: &str, sets: &[String], e: Error) -> Error {
    let from_set = |key: &str| {
        sets.iter().rev().find(|s| {
            s.split_once('=')
                .is_some_and(|(lhs, _)| lhs.trim() == format!("{name}.{key}"))
        })
    };
    match e {
        Error::InvalidParam { name: p, reason } => {
            let key = p.trim_start_matches("--");
            Error::InvalidParam {
                name: match from_set(key) {
                    Some(set) => format!("{key} (--set {set}) for {path} [{name}]"),
                    None => format!("{key} in {path} [{name}]"),
                },
                reason,
            }
        }
        Error::Expr { context, reason } => Error::Expr {
            // The context is the option, then what it was given (`--left-where "x > 1"`).
            context: match from_set(
                context
                    .trim_start_matches("--")
                    .split_whitespace()
                    .next()
                    .unwrap_or_default(),
            ) {
                Some(set) => format!("--set {set} for {path} [{name}]"),
                None => format!("{path} [{name}] {}", context.trim_start_matches("--")),
            },
            reason,
        },
        other => Error::JobStep {
            job: path.to_string(),
            detail: format!("[{name}] is invalid"),
            source: Box::new(other),
        },
    }
}

/// What one step printed and counted.
#[derive(Debug)]
pub enum StepReport {
    /// The train step's report.
    Train(Box<crate::train::TrainReport>),
    /// The join step's report.
    Join(Box<crate::join::JoinReport>),
    /// The filter step's report.
    Filter(Box<crate::sieve::FilterReport>),
}

impl StepReport {
    /// The step's human summary with its counters.
    pub fn summary(&self) -> String {
        match self {
            StepReport::Train(r) => r.summary(),
            StepReport::Join(r) => r.summary(),
            StepReport::Filter(r) => r.summary(),
        }
    }
}

/// Whether a step's filter is the job's train step's output (compared by file name: the two
/// may spell its location differently).
fn written_by_train(job: &Job, filter: Option<&Location>) -> bool {
    match (filter, &job.train) {
        (Some(f), Some(t)) => t.output().path().filename() == f.path().filename(),
        _ => false,
    }
}

/// A filter no step writes must be there before the train step writes its output (a
/// missing one failed the join after the train step had run). `what`: the step's filter, for
/// the message.
fn filter_exists(job: &Job, filter: Option<&Location>, what: &str) -> Result<()> {
    match filter {
        Some(f) if !written_by_train(job, filter) && !f.exists()? => Err(Error::Input {
            location: f.to_string(),
            reason: format!("{what} does not exist, and no step of the job writes it"),
        }),
        _ => Ok(()),
    }
}

/// A step's error before any step ran.
fn invalid(job: &Job, step: &Step, e: Error) -> Error {
    Error::JobStep {
        job: job.path.clone(),
        detail: format!("[{}] is invalid", step.name()),
        source: Box::new(e),
    }
}

/// `run --dry-run`: each step checked and planned as its run would be
/// ([`crate::train::dry_run`], [`crate::join::dry_run`]); a join's filter that the train
/// step writes is not read. Nothing is written.
pub fn dry_run(job: &Job) -> Result<Vec<crate::report::DryRun>> {
    job.steps()
        .iter()
        .map(|step| {
            match step {
                Step::Train(t) => crate::train::dry_run(t),
                Step::Join(j) => filter_exists(job, j.filter.as_ref(), "the join's filter")
                    .and_then(|()| {
                        crate::join::dry_run(j, true, written_by_train(job, j.filter.as_ref()))
                    }),
                Step::Filter(f) => filter_exists(job, Some(&f.filter), "the filter step's filter")
                    .and_then(|()| {
                        crate::sieve::dry_run(f, "", written_by_train(job, Some(&f.filter)))
                    }),
            }
            .map_err(|e| invalid(job, step, e))
        })
        .collect()
}

/// Run the job's steps in order. `on_step(i, n, step)` is called before each step and
/// `on_done(report)` after it (the CLI prints there). The first failure stops the chain and
/// is returned naming the job file, the step and the steps not run.
pub fn run(
    job: &Job,
    show_progress: bool,
    mut on_step: impl FnMut(usize, usize, &Step),
    mut on_done: impl FnMut(&StepReport) -> Result<()>,
) -> Result<Vec<StepReport>> {
    let steps = job.steps();
    let n = steps.len();
    // An output that overlaps an input is refused before the first step runs, and so is a
    // join whose inputs, columns, filter or output it could find wrong only after a train
    // step had written its filter.
    for step in &steps {
        let r = match step {
            Step::Train(s) => {
                crate::plan::refuse_train_overlap(s.output(), s.inputs(), s.report.as_deref(), "")
            }
            Step::Join(j) => crate::join::check(j)
                .and_then(|()| filter_exists(job, j.filter.as_ref(), "the join's filter")),
            Step::Filter(f) => crate::sieve::check(f)
                .and_then(|()| filter_exists(job, Some(&f.filter), "the filter step's filter")),
        };
        r.map_err(|e| invalid(job, step, e))?;
    }
    let mut reports = Vec::with_capacity(n);
    for (i, step) in steps.iter().enumerate() {
        on_step(i + 1, n, step);
        let t = Instant::now();
        let r = match step {
            Step::Train(s) => {
                crate::train::run(s, show_progress).map(|r| StepReport::Train(Box::new(r)))
            }
            Step::Join(s) => {
                crate::join::run(s, show_progress).map(|r| StepReport::Join(Box::new(r)))
            }
            Step::Filter(s) => {
                crate::sieve::run(s, show_progress).map(|r| StepReport::Filter(Box::new(r)))
            }
        };
        match r {
            Ok(r) => {
                tracing::debug!(
                    step = step.name(),
                    ms = t.elapsed().as_millis() as u64,
                    "step done"
                );
                on_done(&r)?;
                reports.push(r);
            }
            Err(e) => {
                let rest: Vec<&str> = steps[i + 1..].iter().map(Step::name).collect();
                let not_run = if rest.is_empty() {
                    String::new()
                } else {
                    format!(" ({} not run)", rest.join(", "))
                };
                return Err(Error::JobStep {
                    job: job.path.clone(),
                    detail: format!("step {} of {n} [{}] failed{not_run}", i + 1, step.name()),
                    source: Box::new(e),
                });
            }
        }
    }
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;

    const JOB: &str = r#"
description = "test"
[train]
input = ["u"]
column = "Id"
output = "out/f.bjf"
[join]
left = ["u"]
left-key = "Id"
right = ["c"]
right-key = "UserId"
output = "out/j"
"#;

    fn sets(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// A value that parses but is invalid names the `--set` it came from, not the file's
    /// key; the file's own bad value still names the file.
    #[test]
    fn an_invalid_value_names_the_set_that_gave_it() {
        for (set, needle) in [
            (
                "train.workers=0",
                "invalid workers (--set train.workers=0) for j.toml [train]",
            ),
            (
                "join.reducers=0",
                "invalid reducers (--set join.reducers=0) for j.toml [join]",
            ),
            (
                "join.left-where=Id >",
                "--set join.left-where=Id > for j.toml [join]",
            ),
        ] {
            // A later --set of another key, and an earlier one of the same key, change nothing.
            let key = set.split_once('=').unwrap().0;
            let earlier = format!("{key}=1");
            let e = Job::parse("j.toml", JOB, &sets(&[&earlier, set, "join.batch-size=7"]))
                .unwrap_err();
            let msg = crate::error::one_line(&e);
            assert!(msg.contains(needle), "{set}: {msg}");
            assert_eq!(e.exit_code(), 2, "{msg}");
        }
        let file = JOB.replace("column = \"Id\"", "column = \"Id\"\nworkers = 0");
        let msg = crate::error::one_line(&Job::parse("j.toml", &file, &[]).unwrap_err());
        assert!(msg.contains("invalid workers in j.toml [train]"), "{msg}");
    }

    #[test]
    fn parses_and_defaults_the_filter_to_the_train_output() {
        let j = Job::parse("j.toml", JOB, &[]).unwrap();
        assert_eq!(j.description.as_deref(), Some("test"));
        assert_eq!(
            j.join.as_ref().unwrap().filter.as_ref().unwrap().as_str(),
            "out/f.bjf"
        );
        assert_eq!(
            j.steps().iter().map(Step::name).collect::<Vec<_>>(),
            ["train", "join"]
        );
    }

    #[test]
    fn set_overrides_typed_and_string_values() {
        let j = Job::parse(
            "j.toml",
            JOB,
            &sets(&[
                "join.reducers=4",
                "train.fpp=0.001",
                "join.type=left-anti",
                "train.where=Reputation > 1500",
                "train.output=other.bjf",
                "join.right=c2",
                "join.overwrite=true",
                "join.bloom-columns=Id,Text",
                "join.bloom-fpp=0.05",
                "join.compression=gzip",
                "join.compression-level=2",
            ]),
        )
        .unwrap();
        let (t, jn) = (j.train.unwrap(), j.join.unwrap());
        assert_eq!(jn.reducers.get(), 4);
        assert_eq!(t.filter.sizing, crate::train::Sizing::Fpp(0.001));
        assert_eq!(jn.join_type, crate::join::JoinType::LeftAnti);
        assert_eq!(
            t.predicate.as_ref().map(|p| p.text()),
            Some("Reputation > 1500")
        );
        assert_eq!(jn.filter.as_ref().unwrap().as_str(), "other.bjf");
        assert_eq!(jn.right.inputs, vec!["c2".to_string()]);
        assert_eq!(jn.write_mode(), crate::commit::WriteMode::Overwrite);
        assert_eq!(
            jn.bloom_columns,
            Some(vec!["Id".to_string(), "Text".to_string()])
        );
        assert_eq!(jn.bloom_fpp, 0.05);
        let e = Job::parse("j.toml", JOB, &sets(&["join.bloom-fpp=0"])).unwrap_err();
        assert!(e.to_string().contains("bloom-fpp"), "{e}");
        assert_eq!(
            format!("{:?}", jn.format.compression),
            format!(
                "{:?}",
                parquet::basic::Compression::GZIP(parquet::basic::GzipLevel::try_new(2).unwrap())
            )
        );
        for (set, needle) in [
            ("join.compression=lzo", "unknown variant `lzo`"),
            ("join.compression-level=3", "snappy has no levels"),
        ] {
            let mut both = vec![set];
            if set.contains("level") {
                both.push("join.compression=snappy");
            }
            let e = Job::parse("j.toml", JOB, &sets(&both)).unwrap_err();
            assert!(e.to_string().contains(needle), "{set}: {e}");
        }
    }

    /// `--set 'join.left="data/users"'` is the TOML string `data/users`, also where the key
    /// takes a list (issue 12, defect 10).
    #[test]
    fn set_quoted_string_keeps_toml_value_semantics() {
        let j = Job::parse(
            "j.toml",
            JOB,
            &sets(&[
                r#"join.left="data/users""#,
                r#"join.right='data/comments dir'"#,
                r#"train.output="f.bjf""#,
                r#"join.left-where="Reputation > 1500""#,
            ]),
        )
        .unwrap();
        let (t, jn) = (j.train.unwrap(), j.join.unwrap());
        assert_eq!(jn.left.inputs, vec!["data/users".to_string()]);
        assert_eq!(jn.right.inputs, vec!["data/comments dir".to_string()]);
        assert_eq!(t.output.as_str(), "f.bjf");
        assert_eq!(
            jn.left.predicate.as_ref().map(|p| p.text()),
            Some("Reputation > 1500")
        );
        // Unquoted text is still taken as it is.
        let j = Job::parse("j.toml", JOB, &sets(&["join.left=data/users"])).unwrap();
        assert_eq!(j.join.unwrap().left.inputs, vec!["data/users".to_string()]);
        // In the file, a string for a list of locations is one location too (found by an
        // audit, 2026-11-26: the file refused what --set and Python accept).
        let one = JOB
            .replace(r#"input = ["u"]"#, r#"input = "u""#)
            .replace(r#"right = ["c"]"#, r#"right = "c""#);
        assert_ne!(one, JOB);
        let j = Job::parse("j.toml", &one, &[]).unwrap();
        assert_eq!(j.train.unwrap().inputs, vec!["u".to_string()]);
        assert_eq!(j.join.unwrap().right.inputs, vec!["c".to_string()]);
    }

    #[test]
    fn errors_name_the_file_table_and_key() {
        let e = Job::parse("j.toml", &format!("{JOB}\nfpp2 = 1\n"), &[]).unwrap_err();
        let msg = crate::error::one_line(&e);
        assert!(msg.contains("j.toml") && msg.contains("fpp2"), "{msg}");
        assert_eq!(e.exit_code(), 2);

        let bad = JOB.replace("column = \"Id\"", "column = \"Id\"\nfpp2 = 0.1");
        let msg = crate::error::one_line(&Job::parse("j.toml", &bad, &[]).unwrap_err());
        assert!(
            msg.contains("j.toml: [train]: unknown field `fpp2`"),
            "{msg}"
        );

        for (set, needle) in [
            ("train.fpp2=1", "fpp2"),
            ("spark.x=1", "[spark]"),
            ("join.reducers=many", "reducers"),
            ("noequals", "table.key=value"),
            ("train.workers=0", "workers"),
        ] {
            let e = Job::parse("j.toml", JOB, &sets(&[set])).unwrap_err();
            let msg = crate::error::one_line(&e);
            assert!(msg.contains(needle), "{set}: {msg}");
            assert_eq!(e.exit_code(), 2, "{msg}");
        }

        let missing = JOB.replace("right-key = \"UserId\"\n", "");
        let msg = crate::error::one_line(&Job::parse("j.toml", &missing, &[]).unwrap_err());
        assert!(msg.contains("[join]: missing key `right-key`"), "{msg}");
        assert!(!msg.contains("misspelling"), "{msg}");
        // A required key misspelt is named beside the one missing.
        let misspelt = JOB.replace("right-key = ", "right_key = ");
        let msg = crate::error::one_line(&Job::parse("j.toml", &misspelt, &[]).unwrap_err());
        assert!(
            msg.ends_with(
                "[join]: missing key `right-key` (the table has `right_key`: a misspelling?)"
            ),
            "{msg}"
        );
        let misspelt = JOB.replace("column = ", "colum = ");
        let msg = crate::error::one_line(&Job::parse("j.toml", &misspelt, &[]).unwrap_err());
        assert!(
            msg.ends_with("[train]: missing key `column` (the table has `colum`: a misspelling?)"),
            "{msg}"
        );

        let msg = crate::error::one_line(&Job::parse("j.toml", "[train\n", &[]).unwrap_err());
        assert!(msg.starts_with("j.toml:1: invalid TOML"), "{msg}");
        let big = JOB.replace(
            "column = \"Id\"",
            "column = \"Id\"\nseed = 18446744073709551615",
        );
        let msg = crate::error::one_line(&Job::parse("j.toml", &big, &[]).unwrap_err());
        assert!(msg.contains("in quotes"), "{msg}");
        let quoted = JOB.replace(
            "column = \"Id\"",
            "column = \"Id\"\nseed = \"18446744073709551615\"",
        );
        Job::parse("j.toml", &quoted, &[]).unwrap();
    }
}
