//! The `bloomjoin._bloomjoin` extension module: the library crate's filters and jobs for
//! Python. `python/bloomjoin/__init__.py` re-exports it; `bloomjoin/errors.py` holds the
//! exception classes it raises.

mod arrow_io;
mod errors;
mod filter;
mod jobs;

use std::time::Instant;

use pyo3::prelude::*;

/// `json.loads(text)`: reports and filter info become dicts with the keys of their JSON.
pub(crate) fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// Benchmark hook (scripts/bench-python.py): probe `values` with the library's batch API
/// `repeat` times, in Rust, after importing them once; returns the seconds of each probe.
/// The baseline that `Filter.contains` is compared with: `probe_array` on each whole array,
/// or on slices of `slice` keys (what `contains` does).
#[pyfunction]
#[pyo3(signature = (filter, values, repeat, slice=None))]
fn _rust_probe_seconds(
    py: Python<'_>,
    filter: &Bound<'_, filter::Filter>,
    values: &Bound<'_, PyAny>,
    repeat: usize,
    slice: Option<usize>,
) -> PyResult<Vec<f64>> {
    let arrays = arrow_io::import_keys(values, "contains()")?;
    let f = filter.get().inner();
    py.detach(|| {
        let mut times = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            let t = Instant::now();
            for a in &arrays {
                let step = slice.unwrap_or(a.len()).max(1);
                for offset in (0..a.len()).step_by(step) {
                    let n = step.min(a.len() - offset);
                    std::hint::black_box(f.probe_array(&a.slice(offset, n))?);
                }
            }
            times.push(t.elapsed().as_secs_f64());
        }
        Ok(times)
    })
    .map_err(|e: bloomjoin::Error| errors::to_py(py, &e))
}

#[pymodule]
fn _bloomjoin(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<filter::Filter>()?;
    m.add_function(wrap_pyfunction!(jobs::train, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::join, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::filter_rows, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::run_job, m)?)?;
    m.add_function(wrap_pyfunction!(_rust_probe_seconds, m)?)?;
    m.add("_PROBE_SLICE", filter::PROBE_SLICE)?;
    Ok(())
}
