//! `bloomjoin.Filter`: a decoded filter (either file format), probed with Arrow arrays.

use std::sync::Arc;

use arrow::array::{BooleanArray, BooleanBufferBuilder};
use bloomjoin::bloom::codec::{self, FileFormat, FilterMeta};
use bloomjoin::bloom::BloomFilter;
use bloomjoin::cli::inspect::FilterInfo;
use bloomjoin::cli::merge::merge_filters;
use bloomjoin::cli::train::BuildSpec;
use bloomjoin::store::Location;
use bloomjoin::train::build::build;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::arrow_io;
use crate::errors::{self, IntoPyResult};

/// A Bloom filter read from a file or from bytes, in bloomjoin's format or Spark's.
///
/// Open one with ``Filter.open(location)`` (a path or an object-store URL, with the same
/// environment variables as the command line) or ``Filter.from_bytes(data)``; both
/// formats are detected from the first bytes.
///
/// ``f.contains(values)`` answers for a whole array of keys at once (a pyarrow Array or
/// ChunkedArray, a Polars Series, a NumPy array or a list) through the Arrow C data
/// interface: True where the key may be in the set, False where it certainly is not and
/// for nulls. ``key in f`` answers for one key. ``f.info()`` is what
/// ``bloomjoin inspect --json`` prints. Filters are immutable, safe to share between
/// threads, and pickle as their bytes.
#[pyclass(module = "bloomjoin", name = "Filter", frozen)]
pub struct Filter {
    filter: Arc<BloomFilter>,
    meta: FilterMeta,
    format: FileFormat,
    location: String,
    /// Size of the file it was read from (None for a merged filter, encoded when asked).
    file_bytes: Option<u64>,
}

/// Probe one array of keys. For a filter of a composite key, a struct array whose fields are
/// the key's columns in order (`arity` of them, when the filter records them), a null
/// struct never in the set; otherwise one key column.
fn probe(
    filter: &BloomFilter,
    arity: usize,
    array: &arrow::array::ArrayRef,
) -> bloomjoin::Result<arrow::buffer::BooleanBuffer> {
    use arrow::array::{Array, AsArray};
    match array.as_struct_opt() {
        Some(s) if filter.family() == bloomjoin::key::KeyFamily::Tuple => {
            let columns: Vec<&dyn Array> = s.columns().iter().map(|c| c.as_ref()).collect();
            let bits = probe_tuple(filter, arity, &columns, ("struct", "field"))?;
            Ok(match s.nulls() {
                Some(valid) => &bits & valid.inner(),
                None => bits,
            })
        }
        _ => filter.probe_array(array),
    }
}

/// Probe composite keys given as their columns, after checking that there are as many
/// columns as the filter's key has (`arity`; 0 when the file does not record it). Both
/// ``contains`` (`what` = ("struct", "field")) and ``in`` (("tuple", "value")) come here.
fn probe_tuple(
    filter: &BloomFilter,
    arity: usize,
    columns: &[&dyn arrow::array::Array],
    (whole, part): (&str, &str),
) -> bloomjoin::Result<arrow::buffer::BooleanBuffer> {
    let n = columns.len();
    if arity > 0 && n != arity {
        let plural = if n == 1 { "" } else { "s" };
        return Err(bloomjoin::Error::Usage(format!(
            "the filter's key has {arity} columns, the {whole} has {n} {part}{plural}"
        )));
    }
    filter.probe_columns(columns)
}

/// Keys hashed and probed at a time by `contains`: 512 KiB of hashes, within L2.
pub const PROBE_SLICE: usize = 1 << 16;

/// A location argument: a str (path or URL) or an `os.PathLike`.
pub fn location_arg(py: Python<'_>, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    let path: std::path::PathBuf = obj.extract().map_err(|_| {
        errors::usage(
            py,
            format!(
                "{what}: expected a path or URL (str or os.PathLike), got {}",
                arrow_io::type_name(obj)
            ),
        )
    })?;
    path.to_str()
        .map(str::to_string)
        .ok_or_else(|| errors::usage(py, format!("{what}: {path:?} is not valid UTF-8")))
}

/// A `format=` argument: `native` or `spark` (None: `default`).
fn format_arg(py: Python<'_>, format: Option<&str>, default: FileFormat) -> PyResult<FileFormat> {
    match format {
        None => Ok(default),
        Some(s) => serde_json::from_value(serde_json::Value::String(s.to_string()))
            .map_err(|e| errors::usage(py, format!("invalid format: {e}"))),
    }
}

impl Filter {
    /// Whether the filter holds UUIDs (trained on a Parquet UUID column, or built from
    /// ``pa.uuid()`` keys).
    fn holds_uuids(&self) -> bool {
        self.meta.logical_type.as_deref() == Some("UUID")
    }

    /// A UUID filter's keys are 16 bytes: strings probed against it would find nothing,
    /// silently, so they are a KeyTypeError.
    fn check_uuid_keys(
        &self,
        py: Python<'_>,
        arrays: &[arrow::array::ArrayRef],
        what: &str,
    ) -> PyResult<()> {
        let text = |a: &arrow::array::ArrayRef| bloomjoin::key::is_text(a.data_type());
        if self.holds_uuids() && arrays.iter().any(text) {
            return Err(errors::key_type(
                py,
                format!("{what}: the filter holds UUIDs (16 bytes), but the keys are strings: a UUID's bytes never equal its text; pass uuid.UUID values, pa.uuid() or 16-byte binary"),
            ));
        }
        Ok(())
    }

    fn decoded(bytes: &[u8], location: &str) -> bloomjoin::Result<Filter> {
        let (filter, meta) = codec::decode(bytes, location)?;
        Ok(Filter {
            filter: Arc::new(filter),
            meta,
            format: FileFormat::detect(bytes).unwrap_or_default(),
            location: location.to_string(),
            file_bytes: Some(bytes.len() as u64),
        })
    }

    fn read(location: &str) -> bloomjoin::Result<Filter> {
        // The store's settings (retries, timeouts), checked as the command line checks them.
        bloomjoin::store::check_environment()?;
        let loc = Location::parse(location)?;
        let bytes = loc.read_all()?;
        Filter::decoded(&bytes, loc.as_str())
    }

    fn encode(&self, format: FileFormat) -> bloomjoin::Result<Vec<u8>> {
        codec::encode_as(&self.filter, &self.meta, format)
    }

    /// The inner filter (for the benchmark hook).
    pub fn inner(&self) -> &BloomFilter {
        &self.filter
    }
}

#[pymethods]
impl Filter {
    /// Read a filter from a path or an object-store URL (``s3://``, ``gs://``, ``az://``,
    /// ``file://``...), in bloomjoin's format or Spark's.
    ///
    /// Raises FilterFormatError for a file that is not a valid filter, InputError for a
    /// missing file or a bad location.
    #[staticmethod]
    fn open(py: Python<'_>, location: &Bound<'_, PyAny>) -> PyResult<Filter> {
        let location = location_arg(py, location, "location")?;
        py.detach(|| Filter::read(&location)).py_err(py)
    }

    /// Decode a filter from bytes (bloomjoin's format or Spark's ``BloomFilter.writeTo``).
    ///
    /// Raises FilterFormatError for bytes that are not a valid filter.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: PyBackedBytes) -> PyResult<Filter> {
        Filter::decoded(&data, "<bytes>").py_err(py)
    }

    /// Build a filter from keys in memory: a pyarrow Array or ChunkedArray, a Polars Series,
    /// a NumPy array or a list; or a table (a pyarrow Table or RecordBatch, a Polars
    /// DataFrame, a struct array such as ``pl.struct("a", "b")``) whose ``column`` fields make
    /// the key, several for a composite key (``column=["a", "b"]`` or ``"a,b"``).
    ///
    /// Takes ``train``'s filter options as keywords: ``fpp`` (default 0.01),
    /// ``expected_items``, ``bits`` and ``hashes``, ``num_bytes`` (sbbf), ``seed``,
    /// ``layout``, ``spark_keys``, ``format`` and ``workers``. ``column`` is recorded in the
    /// filter as the key's name; without it, a table's key is all its columns, and an array's
    /// name is the Series' name, if any. The keys are sized, hashed and inserted as ``train``
    /// does it: the filter is the one ``train`` builds over a Parquet file of the same keys in
    /// one row group, the same for any chunking and worker count. Nulls are skipped. The GIL
    /// is released while it builds; Ctrl-C cancels it.
    ///
    /// Raises KeyTypeError for values that cannot be keys (floats, nested types, one str),
    /// UsageError for bad options.
    #[staticmethod]
    #[pyo3(signature = (values, **options))]
    fn build(
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
        options: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<Filter> {
        let mut spec: BuildSpec = crate::jobs::spec_from_kwargs(py, "build", &[], options)?;
        let arrays = arrow_io::import_keys(values, "build()")?;
        let single = arrays
            .first()
            .is_none_or(|a| !matches!(a.data_type(), arrow::datatypes::DataType::Struct(_)));
        if spec.column.is_none() && single {
            // A Series' name names its one key column.
            spec.column = arrow_io::series_name(values);
        }
        // pyarrow's UUID extension type (``pa.uuid()``, what ``pa.array([uuid.UUID(...)])``
        // makes) arrives as its 16-byte storage: the filter records that it holds UUIDs.
        let uuid = values
            .getattr("type")
            .and_then(|t| t.getattr("extension_name"))
            .and_then(|n| n.extract::<String>())
            .is_ok_and(|n| n == "arrow.uuid");
        let job = spec.to_job().py_err(py)?;
        // Keys that cannot be keys are a KeyTypeError, as in `contains`.
        let built = crate::jobs::run_detached(py, move || Ok(build(&job, &arrays, "build()")))?
            .map_err(|e| {
                // Every message begins with the function, as the key checks' do.
                let line = bloomjoin::error::one_line(&e);
                let line = if line.starts_with("build()") {
                    line
                } else {
                    format!("build(): {line}")
                };
                match e {
                    bloomjoin::Error::Column { .. } | bloomjoin::Error::Usage(_) => {
                        errors::key_type(py, line)
                    }
                    e => errors::new_err(py, errors::class_name(&e), line, e.exit_code()),
                }
            })?;
        let mut meta = built.meta;
        if uuid && single {
            meta.logical_type = Some("UUID".into());
        }
        Ok(Filter {
            filter: Arc::new(built.filter),
            meta,
            format: built.format,
            location: "<built>".into(),
            file_bytes: None,
        })
    }

    /// OR filters into one (same layout, bits, hashes, seed and key family), like
    /// ``bloomjoin merge``. Items are Filters or locations to open.
    ///
    /// Raises IncompatibleFiltersError naming the filter and the parameter that differs.
    #[staticmethod]
    fn merge(py: Python<'_>, filters: &Bound<'_, PyAny>) -> PyResult<Filter> {
        let mut parts = Vec::new();
        let mut format = None;
        // A str is iterable too: one character at a time, each "opened" as a location.
        if filters.is_instance_of::<pyo3::types::PyString>() || filters.cast::<Filter>().is_ok() {
            return Err(errors::usage(
                py,
                "merge() takes a list of Filters or locations, not one: merge([f1, f2])"
                    .to_string(),
            ));
        }
        for item in filters.try_iter().map_err(|_| {
            errors::usage(
                py,
                "merge() takes a list of Filters or locations".to_string(),
            )
        })? {
            let item = item?;
            let f: Py<Filter> = match item.cast::<Filter>() {
                Ok(f) => f.clone().unbind(),
                Err(_) => {
                    let loc = location_arg(py, &item, "merge()")?;
                    Py::new(py, py.detach(|| Filter::read(&loc)).py_err(py)?)?
                }
            };
            let f = f.get();
            format.get_or_insert(f.format);
            parts.push((f.location.clone(), (*f.filter).clone(), f.meta.clone()));
        }
        let (filter, meta) = merge_filters(parts).py_err(py)?;
        let format = format.unwrap_or_default();
        format
            .check_layout(filter.params().layout, "format")
            .py_err(py)?;
        Ok(Filter {
            filter: Arc::new(filter),
            meta,
            format,
            location: "<merged>".into(),
            file_bytes: None,
        })
    }

    /// Probe an array of keys: a pyarrow Array or ChunkedArray, a Polars Series, a NumPy
    /// array or a list.
    ///
    /// Returns a pyarrow BooleanArray of the same length (a Polars Series for a Polars
    /// Series, so that ``pl.col(c).map_batches(f.contains)`` works): True where the key
    /// may be in the set, False where it is not, and False for nulls. Keys are read through
    /// the Arrow C data interface, without Python objects per key; the GIL is released
    /// while probing.
    ///
    /// Integer columns of any width meet each other, strings and binary compare by bytes.
    /// A filter of a composite key (``train --column a,b``) takes a struct array whose
    /// fields are the key's columns in order (``pa.StructArray``, ``pl.struct("a", "b")``);
    /// ``(a, b) in f`` answers for one tuple. Raises KeyTypeError for values that are not keys of the filter's kind (floats,
    /// strings for an integer filter, nested types, a single str).
    fn contains<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arrays = arrow_io::import_keys(values, "contains()")?;
        self.check_uuid_keys(py, &arrays, "contains()")?;
        let filter = &self.filter;
        let arity = self.meta.key_columns.len();
        let probed = py.detach(|| -> bloomjoin::Result<BooleanArray> {
            // Probe in slices (zero-copy) so that the hashes of one slice stay in cache
            // instead of a 10M-key array's 80 MB of hashes going out to memory and back.
            let mut bits = BooleanBufferBuilder::new(arrow_io::total_len(&arrays));
            for a in &arrays {
                for offset in (0..a.len()).step_by(PROBE_SLICE) {
                    let n = PROBE_SLICE.min(a.len() - offset);
                    bits.append_buffer(&probe(filter, arity, &a.slice(offset, n))?);
                }
            }
            Ok(BooleanArray::new(bits.finish(), None))
        });
        let probed = probed.map_err(|e| {
            errors::key_type(
                py,
                format!("contains(): {}", bloomjoin::error::one_line(&e)),
            )
        })?;
        drop(arrays);
        let out = arrow_io::export_bools(py, probed)?;
        if arrow_io::is_polars_series(values) {
            arrow_io::to_polars(values, out)
        } else {
            Ok(out)
        }
    }

    /// ``key in f``: whether one key may be in the set (False for None).
    ///
    /// The key is converted as ``pyarrow.array([key])`` would (int, str, bytes,
    /// datetime.date, ...), so it means what the same value means in ``contains``.
    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        if key.is_none() {
            return Ok(false);
        }
        let in_err = |e: bloomjoin::Error| {
            errors::key_type(py, format!("in: {}", bloomjoin::error::one_line(&e)))
        };
        // A tuple is one composite key: one single-value array per column.
        if let Ok(t) = key.cast::<PyTuple>() {
            let mut columns = Vec::with_capacity(t.len());
            for part in t.iter() {
                if part.is_none() {
                    return Ok(false);
                }
                let one = PyList::new(py, [part])?;
                columns.extend(arrow_io::import_keys(one.as_any(), "in")?);
            }
            let refs: Vec<&dyn arrow::array::Array> = columns.iter().map(|a| a.as_ref()).collect();
            let arity = self.meta.key_columns.len();
            let bits =
                probe_tuple(&self.filter, arity, &refs, ("tuple", "value")).map_err(in_err)?;
            return Ok(bits.iter().any(|b| b));
        }
        let one = if self.holds_uuids() && key.is_instance_of::<pyo3::types::PyString>() {
            // A UUID's text, as DuckDB and Python's uuid module read it: its 16 bytes.
            let parsed = py
                .import("uuid")?
                .getattr("UUID")?
                .call1((key,))
                .and_then(|u| u.getattr("bytes"))
                .map_err(|e| {
                    errors::key_type(
                        py,
                        format!(
                            "in: {} is not a UUID, and the filter holds UUIDs ({e})",
                            key.repr().map(|r| r.to_string()).unwrap_or_default()
                        ),
                    )
                })?;
            PyList::new(py, [parsed])?
        } else {
            PyList::new(py, [key])?
        };
        let arrays = arrow_io::import_keys(one.as_any(), "in")?;
        self.check_uuid_keys(py, &arrays, "in")?;
        let mut hit = false;
        for a in &arrays {
            let bits = probe(&self.filter, self.meta.key_columns.len(), a).map_err(in_err)?;
            hit |= bits.iter().any(|b| b);
        }
        Ok(hit)
    }

    /// What ``bloomjoin inspect --json`` prints: format, layout, bits, hashes, seed, key
    /// family, inserted keys, fill ratio, estimated distinct keys and false-positive rate,
    /// sizes and the metadata (column, where, inputs, created_by), as a dict.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let file_bytes = match self.file_bytes {
            Some(n) => n,
            None => self.encode(self.format).py_err(py)?.len() as u64,
        };
        let info = FilterInfo::new(
            &self.location,
            &self.filter,
            &self.meta,
            self.format,
            file_bytes,
        );
        let json = serde_json::to_string(&info)
            .map_err(|e| errors::new_err(py, "OperationalError", e.to_string(), 1))?;
        crate::json_loads(py, &json)
    }

    /// The filter as file bytes, in ``format`` ("native" or "spark"; default: the format it
    /// was read in). Spark's format needs a spark-v1 or spark-v2 layout.
    #[pyo3(signature = (format=None))]
    fn to_bytes<'py>(
        &self,
        py: Python<'py>,
        format: Option<&str>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let format = format_arg(py, format, self.format)?;
        let bytes = self.encode(format).py_err(py)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Write the filter to a path or an object-store URL with one atomic put, like the
    /// command line; returns the number of bytes written. An existing file is refused
    /// (OutputExistsError) unless ``overwrite=True``.
    #[pyo3(signature = (location, *, overwrite=false, format=None))]
    fn write(
        &self,
        py: Python<'_>,
        location: &Bound<'_, PyAny>,
        overwrite: bool,
        format: Option<&str>,
    ) -> PyResult<u64> {
        let location = location_arg(py, location, "location")?;
        let format = format_arg(py, format, self.format)?;
        py.detach(|| {
            bloomjoin::store::check_environment()?;
            let loc = Location::parse(&location)?;
            codec::write_as(&loc, &self.filter, &self.meta, format, overwrite)
        })
        .py_err(py)
    }

    /// Register a pyarrow compute function that probes this filter and return the
    /// expression calling it on ``column`` of type ``type`` (a pyarrow DataType), for
    /// ``dataset.filter(f.expression("UserId", pa.int64()))`` and
    /// ``dataset.to_table(filter=...)``.
    fn expression<'py>(
        slf: &Bound<'py, Self>,
        column: &str,
        r#type: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        py.import("bloomjoin._pyarrow")?
            .call_method1("expression", (slf, column, r#type))
    }

    /// The bit layout: "split", "blocked", "classic", "spark-v1", "spark-v2" or "sbbf".
    #[getter]
    fn layout(&self) -> String {
        self.filter.params().layout.to_string()
    }

    /// The number of bits m.
    #[getter]
    fn num_bits(&self) -> u64 {
        self.filter.params().num_bits
    }

    /// The number of hash functions k.
    #[getter]
    fn num_hashes(&self) -> u32 {
        self.filter.params().num_hashes
    }

    /// The hash seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.filter.params().seed
    }

    /// The key family: "integer", "bytes", "timestamp" (no time zone), "timestamptz" (with
    /// one), "time" (times of day), "tuple" (a composite key), or "any" (Spark's format does
    /// not record it).
    #[getter]
    fn key_family(&self) -> String {
        self.filter.family().to_string()
    }

    /// The file format it was read in: "native" or "spark".
    #[getter]
    fn format(&self) -> String {
        self.format.to_string()
    }

    /// Where it was read from ("<bytes>" for from_bytes, "<merged>" for merge, "<built>" for
    /// build).
    #[getter]
    fn location(&self) -> String {
        self.location.clone()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let p = self.filter.params();
        let location = pyo3::types::PyString::new(py, &self.location).repr()?;
        Ok(format!(
            "Filter({location}, format='{}', layout='{}', num_bits={}, num_hashes={}, seed={}, key_family='{}')",
            self.format,
            p.layout,
            p.num_bits,
            p.num_hashes,
            p.seed,
            self.filter.family()
        ))
    }

    /// Pickle as the file bytes (for Spark, Dask and multiprocessing workers).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let this = slf.get();
        let bytes = this.encode(this.format).py_err(py)?;
        let from_bytes = py.get_type::<Filter>().getattr("from_bytes")?;
        (from_bytes, (PyBytes::new(py, &bytes),))
            .into_pyobject(py)
            .map(|t| t.into_any())
    }
}
