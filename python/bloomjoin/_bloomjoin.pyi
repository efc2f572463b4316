"""Type stubs of the extension module (the docstrings are the module's own)."""

from __future__ import annotations

import os
from typing import Any, Iterable, Literal, Mapping, Optional, Sequence, Union

import pyarrow as pa
import pyarrow.compute as pc

__version__: str

Location = Union[str, "os.PathLike[str]"]
FileFormat = Literal["native", "spark"]

class Filter:
    """A Bloom filter read from a file or from bytes, in bloomjoin's format or Spark's."""

    @staticmethod
    def open(location: Location) -> Filter:
        """Read a filter from a path or an object-store URL."""
    @staticmethod
    def from_bytes(data: Union[bytes, bytearray]) -> Filter:
        """Decode a filter from bytes (bloomjoin's format or Spark's)."""
    @staticmethod
    def build(
        values: Any,
        *,
        column: Optional[Union[str, Sequence[str]]] = None,
        fpp: Optional[float] = None,
        expected_items: Optional[int] = None,
        bits: Optional[int] = None,
        hashes: Optional[int] = None,
        num_bytes: Optional[int] = None,
        seed: int = 0,
        layout: Literal["split", "blocked", "classic", "spark-v1", "spark-v2", "sbbf"] = "split",
        spark_keys: Literal["plain", "xxhash64"] = "plain",
        format: FileFormat = "native",
        workers: Optional[int] = None,
    ) -> Filter:
        """Build a filter from keys in memory (or a table's ``column`` fields), as ``train`` builds one over a Parquet file of them."""
    @staticmethod
    def merge(filters: Iterable[Union[Filter, Location]]) -> Filter:
        """OR filters with the same layout, bits, hashes, seed and key family into one."""
    def contains(self, values: Any) -> Any:
        """Probe an array of keys (a struct array for a composite key): a pyarrow BooleanArray (a Polars Series for a Polars Series)."""
    def __contains__(self, key: object) -> bool: ...
    def info(self) -> dict[str, Any]:
        """What ``bloomjoin inspect --json`` prints, as a dict."""
    def to_bytes(self, format: Optional[FileFormat] = None) -> bytes:
        """The filter as file bytes."""
    def write(
        self, location: Location, *, overwrite: bool = False, format: Optional[FileFormat] = None
    ) -> int:
        """Write the filter with one atomic put; returns the bytes written."""
    def expression(self, column: str, type: pa.DataType) -> pc.Expression:
        """A pyarrow expression probing this filter on ``column``, for dataset filters."""
    @property
    def layout(self) -> Literal["split", "blocked", "classic", "spark-v1", "spark-v2", "sbbf"]: ...
    @property
    def num_bits(self) -> int: ...
    @property
    def num_hashes(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def key_family(
        self,
    ) -> Literal["integer", "bytes", "any", "timestamp", "timestamptz", "tuple", "time"]: ...
    @property
    def format(self) -> FileFormat: ...
    @property
    def location(self) -> str: ...

def train(
    *,
    input: Union[Location, Sequence[Location]],
    column: str,
    output: Location,
    where: Optional[str] = None,
    expected_items: Optional[int] = None,
    fpp: Optional[float] = None,
    bits: Optional[int] = None,
    hashes: Optional[int] = None,
    seed: int = 0,
    layout: Literal["split", "blocked", "classic", "spark-v1", "spark-v2", "sbbf"] = "split",
    format: FileFormat = "native",
    workers: Optional[int] = None,
    report: Optional[Location] = None,
    overwrite: bool = False,
    shard: Optional[str] = None,
    batch_size: int = 65536,
    split_rows: Optional[int] = None,
    no_hive_partitioning: bool = False,
    dry_run: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Train a Bloom filter like ``bloomjoin train``; returns the report (with
    ``dry_run=True``, the plan: ``{"plan": str, "warnings": list[str]}``)."""

def join(
    *,
    left: Union[Location, Sequence[Location]],
    left_key: str,
    right: Union[Location, Sequence[Location]],
    right_key: str,
    output: Location,
    filter: Optional[Location] = None,
    left_where: Optional[str] = None,
    right_where: Optional[str] = None,
    join_where: Optional[str] = None,
    type: Literal[
        "inner", "left", "left-semi", "left-anti", "right", "right-semi", "right-anti", "full"
    ] = "inner",
    nulls_equal: bool = False,
    coalesce_keys: bool = False,
    select: Optional[str] = None,
    reducers: Optional[int] = None,
    workers: Optional[int] = None,
    report: Optional[Location] = None,
    overwrite: bool = False,
    append: bool = False,
    overwrite_partitions: bool = False,
    batch_size: int = 8192,
    split_rows: Optional[int] = None,
    memory_limit: Optional[str] = None,
    no_prefilter: bool = False,
    filter_fpp: float = 0.01,
    no_hive_partitioning: bool = False,
    partition_by: Optional[str] = None,
    dry_run: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Join two Parquet inputs like ``bloomjoin join``; returns the report (with
    ``dry_run=True``, the plan: ``{"plan": str, "warnings": list[str]}``)."""

def filter_rows(
    *,
    filter: Location,
    input: Union[Location, Sequence[Location]],
    key: str,
    output: Location,
    where: Optional[str] = None,
    select: Optional[str] = None,
    invert: bool = False,
    overwrite: bool = False,
    append: bool = False,
    overwrite_partitions: bool = False,
    partition_by: Optional[str] = None,
    report: Optional[Location] = None,
    workers: Optional[int] = None,
    batch_size: int = 8192,
    split_rows: Optional[int] = None,
    no_hive_partitioning: bool = False,
    dry_run: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Keep the rows whose key the filter may hold (``invert=True``: the others), like
    ``bloomjoin filter``; returns the report (with ``dry_run=True``, the plan)."""

def run_job(
    path: Location, set: Optional[Mapping[str, Any]] = None, dry_run: bool = False
) -> dict[str, dict[str, Any]]:
    """Run a job file like ``bloomjoin run``; returns each step's report (with
    ``dry_run=True``, its plan) by step name."""

def _rust_probe_seconds(
    filter: Filter, values: Any, repeat: int, slice: Optional[int] = None
) -> list[float]: ...

_PROBE_SLICE: int
