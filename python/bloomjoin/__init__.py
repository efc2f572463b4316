"""bloomjoin: Bloom filters over Parquet key columns, and prefiltered joins, from Python.

The package binds bloomjoin's library (no subprocess): the filters it reads and writes
are the command line's, byte for byte, and so are its jobs and their reports.

- ``Filter.open(location)`` / ``Filter.from_bytes(data)``: a filter in bloomjoin's
  format or Apache Spark's; ``f.contains(values)`` probes a pyarrow Array or
  ChunkedArray, a Polars Series, a NumPy array or a list through the Arrow C data
  interface; ``key in f``; ``f.info()``; ``f.to_bytes()`` / ``f.write(location)``;
  ``Filter.merge([...])``.
- ``train(**options)``, ``join(**options)``, ``filter_rows(**options)`` (``bloomjoin
  filter``), ``run_job(path, set=...)``: the command line's jobs, keyword for keyword,
  returning their reports as dicts.
- Errors are ``BloomjoinError`` subclasses (see ``bloomjoin.errors``) carrying the
  command line's one-line messages.
"""

from ._bloomjoin import Filter, __version__, filter_rows, join, run_job, train
from .errors import (
    BloomjoinError,
    FilterFormatError,
    IncompatibleFiltersError,
    InputError,
    KeyTypeError,
    OperationalError,
    OutputExistsError,
    UsageError,
)

__all__ = [
    "Filter",
    "train",
    "join",
    "filter_rows",
    "run_job",
    "BloomjoinError",
    "UsageError",
    "KeyTypeError",
    "InputError",
    "FilterFormatError",
    "IncompatibleFiltersError",
    "OutputExistsError",
    "OperationalError",
    "__version__",
]
