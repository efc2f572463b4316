//! Arrow arrays in and out of Python through the Arrow C data interface, without touching
//! the values.
//!
//! In: any object with `__arrow_c_array__` (a pyarrow `Array`, nanoarrow, ...) or
//! `__arrow_c_stream__` (a pyarrow `ChunkedArray`, a Polars `Series`, ...) is imported through
//! its PyCapsules; anything else (a NumPy array, a list, a pandas `Series`) is first given to
//! `pyarrow.array`, which wraps NumPy buffers without copying. Out: a `BooleanArray`, exported
//! to pyarrow through the same interface.

use arrow::array::{make_array, Array, ArrayData, ArrayRef, BooleanArray};
use arrow::ffi_stream::{ArrayStreamReader, FFI_ArrowArrayStream};
use arrow_pyarrow::{FromPyArrow, ToPyArrow};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyCapsuleMethods, PyString};

use crate::errors;

/// The key arrays of a Python object: one array, or the chunks of a stream. `what` (the
/// function: `contains()`, `build()`) begins the messages.
pub fn import_keys(values: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<ArrayRef>> {
    let py = values.py();
    if values.is_instance_of::<PyString>() || values.is_instance_of::<PyBytes>() {
        let hint = if what == "contains()" {
            " (use `key in filter`)"
        } else {
            " (a list of them is one)"
        };
        return Err(errors::key_type(
            py,
            format!("{what} takes an array of keys, not one str or bytes key{hint}"),
        ));
    }
    if let Some(arrays) = import_arrow(values, what)? {
        return Ok(arrays);
    }
    let pyarrow = py.import("pyarrow")?;
    let converted = pyarrow
        .call_method1(intern!(py, "array"), (values,))
        .map_err(|e| {
            errors::key_type(
                py,
                format!(
                    "{what}: cannot read {} as an array of keys: {}",
                    type_name(values),
                    one_line(&e.to_string())
                ),
            )
        })?;
    import_arrow(&converted, what)?.ok_or_else(|| {
        errors::key_type(
            py,
            format!(
                "{what}: pyarrow.array() returned {}, which has no Arrow interface",
                type_name(&converted)
            ),
        )
    })
}

/// Import through `__arrow_c_array__` or `__arrow_c_stream__`; `None` when the object has
/// neither.
fn import_arrow(values: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<Vec<ArrayRef>>> {
    let py = values.py();
    let bad = |e: PyErr| {
        errors::key_type(
            py,
            format!(
                "{what}: cannot import {} through the Arrow C data interface: {}",
                type_name(values),
                one_line(&e.to_string())
            ),
        )
    };
    if values.hasattr(intern!(py, "__arrow_c_array__"))? {
        // Validates the imported data in full (offsets, UTF-8): the hashing reads the buffers.
        let data = ArrayData::from_pyarrow_bound(values).map_err(bad)?;
        return Ok(Some(vec![make_array(data)]));
    }
    if values.hasattr(intern!(py, "__arrow_c_stream__"))? {
        return import_stream(values).map(Some).map_err(bad);
    }
    Ok(None)
}

/// Read every array of an `__arrow_c_stream__` (a stream of plain arrays, not record batches).
fn import_stream(values: &Bound<'_, PyAny>) -> PyResult<Vec<ArrayRef>> {
    let py = values.py();
    let capsule = values
        .call_method0(intern!(py, "__arrow_c_stream__"))?
        .cast_into::<PyCapsule>()?;
    let ptr = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
    // SAFETY: the capsule named "arrow_array_stream" holds an ArrowArrayStream (the PyCapsule
    // interface); `from_raw` moves it out and marks the capsule's copy released, so the
    // capsule's destructor does not release it again.
    let stream = unsafe { FFI_ArrowArrayStream::from_raw(ptr.as_ptr().cast()) };
    let reader = ArrayStreamReader::try_new(stream).map_err(arrow_err)?;
    let mut arrays = Vec::new();
    for array in reader {
        let array = array.map_err(arrow_err)?;
        array.to_data().validate_full().map_err(arrow_err)?;
        arrays.push(array);
    }
    Ok(arrays)
}

fn arrow_err(e: arrow::error::ArrowError) -> PyErr {
    pyo3::exceptions::PyValueError::new_err(e.to_string())
}

/// A `pyarrow.BooleanArray` holding `array`'s buffers (no copy).
pub fn export_bools<'py>(py: Python<'py>, array: BooleanArray) -> PyResult<Bound<'py, PyAny>> {
    array.to_data().to_pyarrow(py)
}

/// True for a Polars `Series` (it gets a Polars `Series` back, which `map_batches` needs).
pub fn is_polars_series(values: &Bound<'_, PyAny>) -> bool {
    let t = values.get_type();
    let module = t.module().map(|m| m.to_string()).unwrap_or_default();
    let name = t.name().map(|n| n.to_string()).unwrap_or_default();
    (module == "polars" || module.starts_with("polars.")) && name == "Series"
}

/// The name of a Polars `Series`, when it has one (not empty).
pub fn series_name(values: &Bound<'_, PyAny>) -> Option<String> {
    if !is_polars_series(values) {
        return None;
    }
    let name: String = values
        .getattr(intern!(values.py(), "name"))
        .ok()?
        .extract()
        .ok()?;
    (!name.is_empty()).then_some(name)
}

/// `polars.Series(name, bools)` with the input series' name.
pub fn to_polars<'py>(
    series: &Bound<'py, PyAny>,
    bools: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = series.py();
    let name = series.getattr(intern!(py, "name"))?;
    py.import("polars")?
        .getattr(intern!(py, "Series"))?
        .call1((name, bools))
}

/// The Python type name of an object, for messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    let t = obj.get_type();
    let module = t.module().map(|m| m.to_string()).unwrap_or_default();
    let name = t
        .qualname()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    if module.is_empty() || module == "builtins" {
        name
    } else {
        format!("{module}.{name}")
    }
}

/// Collapse a multi-line message (pyarrow's have several lines) to one.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Total length of some arrays.
pub fn total_len(arrays: &[ArrayRef]) -> usize {
    arrays.iter().map(|a| a.len()).sum()
}
