"""The exceptions bloomjoin raises.

Every error carries the command line's one-line message (``str(e)``, the text
``bloomjoin`` prints after ``bloomjoin: error:``) and its exit code
(``e.exit_code``: 2 for bad usage or bad input, 1 for anything else)::

    BloomjoinError                        any error of the library
    ├── UsageError (ValueError)           exit 2: an invalid option, parameter, --where
    │   │                                 expression, job file or --set
    │   └── KeyTypeError (TypeError)      contains(): values that are not an array of keys
    │                                     of a type the filter takes (floats, structs,
    │                                     strings for an integer filter, ...)
    ├── InputError                        exit 2: an input that cannot be used: a missing
    │   │                                 file, a missing column or one of a type that
    │   │                                 cannot be a key, a bad location, not Parquet
    │   ├── FilterFormatError             not a valid filter file (bad magic, truncated,
    │   │                                 checksum mismatch, unknown version)
    │   ├── IncompatibleFiltersError      filters that cannot be merged (layout, m, k,
    │   │                                 seed or key family differ)
    │   └── OutputExistsError             the output exists and overwrite is not set
    └── OperationalError                  exit 1: anything else (an I/O or object-store
                                          failure, an internal error)

Ctrl-C while a job runs cancels it: the job stops, commits nothing, and
``KeyboardInterrupt`` is raised as usual.
"""

from __future__ import annotations

__all__ = [
    "BloomjoinError",
    "UsageError",
    "KeyTypeError",
    "InputError",
    "FilterFormatError",
    "IncompatibleFiltersError",
    "OutputExistsError",
    "OperationalError",
]


class BloomjoinError(Exception):
    """Base class of every bloomjoin error.

    ``str(e)`` is the command line's one-line message; ``e.exit_code`` the exit
    code the command line would return for it (2 bad usage or input, 1 other).
    """

    exit_code: int = 1

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code

    @property
    def message(self) -> str:
        """The one-line message."""
        return str(self.args[0]) if self.args else ""


class UsageError(BloomjoinError, ValueError):
    """An invalid option, parameter, expression, job file or ``set`` override."""

    exit_code = 2


class KeyTypeError(UsageError, TypeError):
    """``contains()`` or ``in`` got values that are not keys the filter takes."""


class InputError(BloomjoinError):
    """An input (file, column, location) that cannot be used."""

    exit_code = 2


class FilterFormatError(InputError):
    """Bytes or a file that are not a valid filter."""


class IncompatibleFiltersError(InputError):
    """Filters that cannot be merged: layout, bits, hashes, seed or key family differ."""


class OutputExistsError(InputError):
    """The output exists and ``overwrite=True`` was not given."""


class OperationalError(BloomjoinError):
    """A failure that is not bad input: I/O, object store, internal error."""

    exit_code = 1
