"""``Filter.expression``: a filter as a pyarrow compute function, for dataset filters."""

from __future__ import annotations

import itertools
import threading

import pyarrow as pa
import pyarrow.compute as pc

_names = itertools.count()
_lock = threading.Lock()


def expression(f, column: str, type: pa.DataType) -> pc.Expression:
    """Register a scalar function probing ``f`` on ``type`` keys; return its call on ``column``."""
    if not isinstance(type, pa.DataType):
        raise TypeError(f"expression(): type must be a pyarrow DataType, got {type!r}")
    with _lock:
        name = f"bloomjoin_contains_{next(_names)}"

    def probe(ctx, keys):
        # Acero calls scalar functions with arrays, or with scalars when every argument is
        # one (then a scalar must come back).
        if isinstance(keys, pa.Scalar):
            return pa.scalar(keys.is_valid and keys.as_py() in f, pa.bool_())
        return f.contains(keys)

    pc.register_scalar_function(
        probe,
        name,
        {
            "summary": "bloomjoin filter probe",
            "description": f"True where the key may be in {f.location} (False for nulls).",
        },
        {"key": type},
        pa.bool_(),
    )
    # pyarrow has no public constructor for a call of a registered function by name.
    return pc.Expression._call(name, [pc.field(column)])
