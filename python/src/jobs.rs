//! `train`, `join` and `run_job`: the command line's jobs with keyword arguments.
//!
//! Keyword arguments become the same serde structures the job files deserialize
//! ([`TrainSpec`], [`JoinSpec`]: every option of the command line, kebab-case), so an option
//! added to the command line is a keyword argument here without a change to this file.
//! `snake_case` keywords are turned into `kebab-case` keys; a str given for a list option
//! (`input="data/users"`) is a one-element list, as in `--set`. The job runs on its own
//! thread while the calling thread waits without the GIL, checking for Ctrl-C.

use std::any::Any;
use std::time::Duration;

use crossbeam_channel::RecvTimeoutError;

use bloomjoin::cli::job::{self, Job, StepReport};
use bloomjoin::cli::join::JoinSpec;
use bloomjoin::cli::train::TrainSpec;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::{self, IntoPyResult};

/// The options `train` cannot do without (as job files require them).
const TRAIN_REQUIRED: &[&str] = &["input", "column", "output"];
/// The options `join` cannot do without.
const JOIN_REQUIRED: &[&str] = &["left", "left-key", "right", "right-key", "output"];
const FILTER_REQUIRED: &[&str] = &["filter", "input", "key", "output"];

/// A Python value as JSON for a spec field; `None` leaves the option unset.
fn to_json(py: Python<'_>, what: &str, key: &str, v: &Bound<'_, PyAny>) -> PyResult<Option<Value>> {
    if v.is_none() {
        return Ok(None);
    }
    let bad = || {
        errors::usage(
            py,
            format!(
                "{what}(): {key}: unsupported value of type {}",
                crate::arrow_io::type_name(v)
            ),
        )
    };
    // bool before int: Python's bool is an int.
    if v.is_instance_of::<PyBool>() {
        return Ok(Some(Value::Bool(v.extract()?)));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(Some(Value::from(i)));
        }
        if let Ok(u) = v.extract::<u64>() {
            return Ok(Some(Value::from(u)));
        }
        return Err(errors::usage(
            py,
            format!("{what}(): {key}: {v} does not fit in 64 bits"),
        ));
    }
    if v.is_instance_of::<PyFloat>() {
        let f: f64 = v.extract()?;
        return serde_json::Number::from_f64(f)
            .map(|n| Some(Value::Number(n)))
            .ok_or_else(|| {
                errors::usage(py, format!("{what}(): {key}: {f} is not a finite number"))
            });
    }
    if v.is_instance_of::<PyString>() {
        return Ok(Some(Value::String(v.extract()?)));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for item in v.try_iter()? {
            match to_json(py, what, key, &item?)? {
                Some(x) => items.push(x),
                None => return Err(bad()),
            }
        }
        return Ok(Some(Value::Array(items)));
    }
    if v.hasattr("__fspath__")? {
        return crate::filter::location_arg(py, v, &format!("{what}(): {key}"))
            .map(|s| Some(Value::String(s)));
    }
    Err(bad())
}

/// Whether `{key: value}` alone deserializes into `T` (every field has a default); the error
/// message otherwise.
fn check_one<T: DeserializeOwned>(key: &str, value: &Value) -> Result<(), String> {
    let mut m = Map::new();
    m.insert(key.to_string(), value.clone());
    serde_json::from_value::<T>(Value::Object(m))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// serde names the fields kebab-case (`expected-items`); say them as Python does. Only
/// field-name messages: the values of enums (`left-semi`) stay as they are.
fn snake_names(msg: &str) -> String {
    if !(msg.starts_with("unknown field") || msg.starts_with("missing field")) {
        return msg.to_string();
    }
    let mut out = String::with_capacity(msg.len());
    let mut inside = false;
    for c in msg.chars() {
        if c == '`' {
            inside = !inside;
        }
        out.push(if inside && c == '-' { '_' } else { c });
    }
    out
}

/// Build a job spec from keyword arguments, naming the function and the keyword on error.
pub fn spec_from_kwargs<T: DeserializeOwned>(
    py: Python<'_>,
    what: &str,
    required: &[&str],
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<T> {
    let mut map = Map::new();
    if let Some(kwargs) = kwargs {
        for (k, v) in kwargs.iter() {
            let name: String = k.extract()?;
            let key = name.replace('_', "-");
            let Some(value) = to_json(py, what, &name, &v)? else {
                continue;
            };
            let value = match check_one::<T>(&key, &value) {
                Ok(()) => value,
                Err(first) => {
                    // The forms a Python caller may mean, tried in turn: one str for a list
                    // of locations; a list of str for a comma-separated list of columns
                    // (`column=["a", "b"]` for `--column a,b`); a number for a size given
                    // as text (`memory_limit=2**30`).
                    let listed = Value::Array(vec![value.clone()]);
                    let joined = value.as_array().and_then(|items| {
                        let names: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
                        names.map(|n| Value::String(n.join(",")))
                    });
                    let text = value.is_number().then(|| Value::String(value.to_string()));
                    let other = [value.is_string().then_some(listed), joined, text]
                        .into_iter()
                        .flatten()
                        .find(|v| check_one::<T>(&key, v).is_ok());
                    if let Some(v) = other {
                        v
                    } else if first.starts_with("unknown field") {
                        return Err(errors::usage(
                            py,
                            format!("{what}(): {}", snake_names(&first)),
                        ));
                    } else {
                        return Err(errors::usage(
                            py,
                            format!("{what}(): {name}: {}", snake_names(&first)),
                        ));
                    }
                }
            };
            map.insert(key, value);
        }
    }
    for r in required {
        if !map.contains_key(*r) {
            return Err(errors::usage(
                py,
                format!(
                    "{what}(): missing required option `{}`",
                    r.replace('-', "_")
                ),
            ));
        }
    }
    serde_json::from_value(Value::Object(map))
        .map_err(|e| errors::usage(py, format!("{what}(): {}", snake_names(&e.to_string()))))
}

/// `dry_run=True`, taken out of a function's keywords: it says how to run the job, it is not
/// one of the job's options.
fn take_dry_run<'py>(
    py: Python<'py>,
    what: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Option<Bound<'py, PyDict>>, bool)> {
    let Some(options) = options else {
        return Ok((None, false));
    };
    let options = options.copy()?;
    let dry_run = match options.get_item("dry_run")? {
        Some(v) => {
            options.del_item("dry_run")?;
            v.cast::<PyBool>()
                .map_err(|_| {
                    errors::usage(py, format!("{what}(): dry_run: must be True or False"))
                })?
                .is_true()
        }
        None => false,
    };
    Ok((Some(options), dry_run))
}

/// A dry run's plan as a dict: ``{"plan": the command line's text, "warnings": [...]}``.
fn plan_dict<'py>(py: Python<'py>, plan: &str, warnings: &[String]) -> PyResult<Bound<'py, PyAny>> {
    let out = PyDict::new(py);
    out.set_item("plan", plan)?;
    out.set_item("warnings", warnings.to_vec())?;
    Ok(out.into_any())
}

/// A report as a Python dict (through JSON: the same keys as `--report`).
fn report_dict<'py, R: serde::Serialize>(py: Python<'py>, r: &R) -> PyResult<Bound<'py, PyAny>> {
    let json = serde_json::to_string(r)
        .map_err(|e| errors::new_err(py, "OperationalError", e.to_string(), 1))?;
    crate::json_loads(py, &json)
}

/// Run `work` on its own thread; the calling thread waits without the GIL and checks for
/// signals (Ctrl-C) every 50 ms. On KeyboardInterrupt the job is asked to stop and is waited
/// for, then the KeyboardInterrupt is raised. The environment's settings are checked first,
/// as the command line checks them (`BLOOMJOIN_MAX_RETRIES=five` is a UsageError naming the
/// variable, not its default in silence).
pub fn run_detached<T: Send + 'static>(
    py: Python<'_>,
    work: impl FnOnce() -> bloomjoin::Result<T> + Send + 'static,
) -> PyResult<T> {
    bloomjoin::store::check_environment().py_err(py)?;
    // crossbeam's receiver is Sync, so the wait can borrow it without the GIL.
    let (tx, rx) = crossbeam_channel::bounded(1);
    let handle = std::thread::Builder::new()
        .name("bloomjoin-job".into())
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            let _ = tx.send(r);
        })
        .map_err(|e| {
            errors::new_err(
                py,
                "OperationalError",
                format!("cannot start the job thread: {e}"),
                1,
            )
        })?;
    let mut interrupted: Option<PyErr> = None;
    let outcome = loop {
        match py.detach(|| rx.recv_timeout(Duration::from_millis(50))) {
            Ok(r) => break r,
            Err(RecvTimeoutError::Timeout) => {
                if interrupted.is_none() {
                    if let Err(e) = py.check_signals() {
                        bloomjoin::cancel::request();
                        interrupted = Some(e);
                    }
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                let why: Box<dyn Any + Send> = Box::new("the job thread ended without a result");
                break Err(why);
            }
        }
    };
    let _ = handle.join();
    if let Some(e) = interrupted {
        bloomjoin::cancel::reset();
        return Err(e);
    }
    match outcome {
        Ok(r) => r.py_err(py),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(errors::new_err(
                py,
                "OperationalError",
                format!("internal error: panic: {msg}"),
                1,
            ))
        }
    }
}

/// Train a Bloom filter on a key column of Parquet files, like ``bloomjoin train``.
///
/// Takes the command line's options as keywords (``input``, ``column``, ``where``,
/// ``expected_items``, ``fpp``, ``bits``, ``hashes``, ``seed``, ``layout``, ``format``,
/// ``workers``, ``shard``, ``output``, ``report``, ``overwrite``, ...; a str for
/// ``input`` is one input) and returns the report (what ``--report`` writes) as a dict.
/// The filter is byte-identical to the command line's. The GIL is released while the job
/// runs; Ctrl-C cancels it without writing anything.
///
/// Raises UsageError for invalid options, InputError for unusable inputs,
/// OutputExistsError when the output exists without ``overwrite=True``.
///
/// ``dry_run=True`` checks and plans the job as ``--dry-run`` does (the same errors, nothing
/// written) and returns ``{"plan": text, "warnings": [...]}`` instead of the report.
#[pyfunction]
#[pyo3(signature = (**options))]
pub fn train<'py>(
    py: Python<'py>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (options, dry_run) = take_dry_run(py, "train", options)?;
    let spec: TrainSpec = spec_from_kwargs(py, "train", TRAIN_REQUIRED, options.as_ref())?;
    if dry_run {
        let d = run_detached(py, move || bloomjoin::train::dry_run(&spec.to_job()?))?;
        return plan_dict(py, &d.summary, &d.warnings);
    }
    let report = run_detached(py, move || bloomjoin::train::run(&spec.to_job()?, false))?;
    report_dict(py, &report)
}

/// Join two Parquet inputs with a Bloom-filter prefilter, like ``bloomjoin join``.
///
/// Takes the command line's options as keywords (``filter``, ``left``, ``left_key``,
/// ``left_where``, ``right``, ``right_key``, ``right_where``, ``type``, ``select``,
/// ``reducers``, ``workers``, ``output``, ``overwrite``, ``memory_limit``,
/// ``no_prefilter``, ...) and returns the report as a dict. The GIL is released while the
/// job runs; Ctrl-C cancels it and commits nothing. ``dry_run=True``: as for ``train``.
#[pyfunction]
#[pyo3(signature = (**options))]
pub fn join<'py>(
    py: Python<'py>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (options, dry_run) = take_dry_run(py, "join", options)?;
    let spec: JoinSpec = spec_from_kwargs(py, "join", JOIN_REQUIRED, options.as_ref())?;
    if dry_run {
        let d = run_detached(py, move || {
            bloomjoin::join::dry_run(&spec.to_job()?, false, false)
        })?;
        return plan_dict(py, &d.summary, &d.warnings);
    }
    let report = run_detached(py, move || bloomjoin::join::run(&spec.to_job()?, false))?;
    report_dict(py, &report)
}

/// Keep the rows of Parquet inputs whose key a trained filter may hold, like ``bloomjoin
/// filter`` (Bloom filtering, a map-only job).
///
/// Takes the command line's options as keywords (``filter``, ``input``, ``key``, ``where``,
/// ``select``, ``output``, ``overwrite``, ``workers``, ``compression``, ...; a str for
/// ``input`` is one input) and returns the report as a dict. The GIL is released while the
/// job runs; Ctrl-C cancels it and commits nothing. ``dry_run=True``: as for ``train``.
#[pyfunction]
#[pyo3(signature = (**options))]
pub fn filter_rows<'py>(
    py: Python<'py>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (options, dry_run) = take_dry_run(py, "filter_rows", options)?;
    let spec: bloomjoin::cli::filter::FilterSpec =
        spec_from_kwargs(py, "filter_rows", FILTER_REQUIRED, options.as_ref())?;
    if dry_run {
        let d = run_detached(py, move || {
            bloomjoin::sieve::dry_run(&spec.to_job()?, "--", false)
        })?;
        return plan_dict(py, &d.summary, &d.warnings);
    }
    let report = run_detached(py, move || bloomjoin::sieve::run(&spec.to_job()?, false))?;
    report_dict(py, &report)
}

/// A `--set` value as TOML text: strings stay raw unless TOML would read them as something
/// else (then they are quoted), lists and numbers are TOML literals.
fn set_text(py: Python<'_>, name: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
    let value = to_json(py, "run_job", name, v)?
        .ok_or_else(|| errors::usage(py, format!("run_job(): set {name}: None is not a value")))?;
    fn toml_of(v: &Value) -> Option<toml::Value> {
        Some(match v {
            Value::Bool(b) => toml::Value::Boolean(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => toml::Value::Integer(i),
                None => toml::Value::Float(n.as_f64()?),
            },
            Value::String(s) => toml::Value::String(s.clone()),
            Value::Array(a) => toml::Value::Array(a.iter().map(toml_of).collect::<Option<_>>()?),
            _ => return None,
        })
    }
    if let Value::String(s) = &value {
        let typed = format!("v = {s}").parse::<toml::Table>().is_ok();
        return Ok(if typed {
            toml::Value::String(s.clone()).to_string()
        } else {
            s.clone()
        });
    }
    toml_of(&value).map(|t| t.to_string()).ok_or_else(|| {
        errors::usage(
            py,
            format!("run_job(): set {name}: {value} is not a TOML value"),
        )
    })
}

/// Run a job file (``[train]`` then ``[join]``), like ``bloomjoin run``.
///
/// ``set`` overrides keys, as ``--set`` does: ``{"join.reducers": 4, "train.fpp": 0.001}``
/// or ``{"join": {"reducers": 4}}`` (snake_case or kebab-case keys). Returns a dict from
/// step name ("train", "join") to that step's report, in the order the steps ran. Every
/// step is checked before any runs; the first failing step stops the job. ``dry_run=True``
/// checks and plans every step as ``run --dry-run`` does and returns each step's
/// ``{"plan": text, "warnings": [...]}`` by step name.
#[pyfunction]
#[pyo3(signature = (path, set=None, dry_run=false))]
pub fn run_job<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    set: Option<&Bound<'py, PyDict>>,
    dry_run: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let path = crate::filter::location_arg(py, path, "run_job(): path")?;
    let mut sets = Vec::new();
    if let Some(set) = set {
        for (k, v) in set.iter() {
            let k: String = k.extract()?;
            if let Ok(table) = v.cast::<PyDict>() {
                for (kk, vv) in table.iter() {
                    let kk: String = kk.extract()?;
                    let name = format!("{k}.{kk}");
                    sets.push(format!(
                        "{k}.{}={}",
                        kk.replace('_', "-"),
                        set_text(py, &name, &vv)?
                    ));
                }
            } else {
                let (table, key) = k.split_once('.').unwrap_or((&k, ""));
                sets.push(format!(
                    "{table}.{}={}",
                    key.replace('_', "-"),
                    set_text(py, &k, &v)?
                ));
            }
        }
    }
    if dry_run {
        let plans = run_detached(py, move || {
            let job = Job::load(&path, &sets)?;
            let names: Vec<&str> = job.steps().iter().map(|s| s.name()).collect();
            Ok(names
                .into_iter()
                .zip(job::dry_run(&job)?)
                .collect::<Vec<_>>())
        })?;
        let out = PyDict::new(py);
        for (name, d) in &plans {
            out.set_item(*name, plan_dict(py, &d.summary, &d.warnings)?)?;
        }
        return Ok(out.into_any());
    }
    let reports = run_detached(py, move || {
        let job = Job::load(&path, &sets)?;
        job::run(&job, false, |_, _, _| {}, |_| Ok(()))
    })?;
    let out = PyDict::new(py);
    for r in &reports {
        match r {
            StepReport::Train(t) => out.set_item("train", report_dict(py, t)?)?,
            StepReport::Join(j) => out.set_item("join", report_dict(py, j)?)?,
            StepReport::Filter(f) => out.set_item("filter", report_dict(py, f)?)?,
        }
    }
    Ok(out.into_any())
}
