//! Library errors as Python exceptions.
//!
//! The classes live in `bloomjoin/errors.py` (Python classes, so that they can also derive
//! from `ValueError` and `TypeError` and carry docstrings); this module picks the class for an
//! [`Error`] and raises it with the command line's one-line message and exit code.

use bloomjoin::error::one_line;
use bloomjoin::Error;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The exception class (in `bloomjoin.errors`) for a library error. Wrappers (`Task`,
/// `JobStep`) take their cause's class, as they take its exit code.
pub fn class_name(e: &Error) -> &'static str {
    match e {
        Error::Task { source, .. } | Error::JobStep { source, .. } => class_name(source),
        Error::InvalidParam { .. } | Error::Usage(_) | Error::Expr { .. } => "UsageError",
        Error::Format { .. } => "FilterFormatError",
        Error::Incompatible { .. } => "IncompatibleFiltersError",
        Error::OutputExists { .. } => "OutputExistsError",
        // Every other bad input (a missing file, a bad column or location, not Parquet, and
        // variants added later) by its exit code, as the command line decides.
        other if other.exit_code() == 2 => "InputError",
        _ => "OperationalError",
    }
}

/// An exception of class `name` (in `bloomjoin.errors`) with `message` and `exit_code`.
pub fn new_err(py: Python<'_>, name: &str, message: String, exit_code: i32) -> PyErr {
    let made = py
        .import("bloomjoin.errors")
        .and_then(|m| m.getattr(name))
        .and_then(|cls| cls.call1((message.clone(), exit_code)));
    match made {
        Ok(exc) => PyErr::from_value(exc),
        // Only if the package is broken (errors.py missing): still an exception, never a crash.
        Err(e) => PyRuntimeError::new_err(format!("{message} (and bloomjoin.errors: {e})")),
    }
}

/// The Python exception for a library error.
pub fn to_py(py: Python<'_>, e: &Error) -> PyErr {
    new_err(py, class_name(e), one_line(e), e.exit_code())
}

/// A `UsageError` (exit code 2) with `message`.
pub fn usage(py: Python<'_>, message: impl Into<String>) -> PyErr {
    new_err(py, "UsageError", message.into(), 2)
}

/// A `KeyTypeError` (a `UsageError` and a `TypeError`) with `message`.
pub fn key_type(py: Python<'_>, message: impl Into<String>) -> PyErr {
    new_err(py, "KeyTypeError", message.into(), 2)
}

/// Extension trait: `result.py_err(py)?` raises the library error as its Python exception.
pub trait IntoPyResult<T> {
    /// Convert the error to its Python exception.
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, Error> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, &e))
    }
}
