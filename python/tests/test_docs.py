"""help() answers, and the type stubs describe what the module has."""

from __future__ import annotations

import ast
import inspect
import pydoc
from pathlib import Path

import bloomjoin
from bloomjoin import _bloomjoin

STUB = Path(_bloomjoin.__file__).with_name("_bloomjoin.pyi")


def test_help_describes_the_filter():
    text = pydoc.render_doc(bloomjoin.Filter, renderer=pydoc.plaintext)
    for needle in ["Arrow C data", "contains(", "build(", "Polars", "from_bytes", "merge", "info(",
                   "to_bytes", "write(", "num_bits", "key_family"]:
        assert needle in text, needle
    for fn in [bloomjoin.train, bloomjoin.join, bloomjoin.run_job]:
        assert "report" in (fn.__doc__ or ""), fn
    assert "KeyboardInterrupt" in bloomjoin.errors.__doc__


def test_every_public_method_has_a_docstring():
    for name, member in inspect.getmembers(bloomjoin.Filter):
        if not name.startswith("_"):
            assert (member.__doc__ or "").strip(), name


def test_the_stubs_match_the_module():
    tree = ast.parse(STUB.read_text())
    stub_funcs = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Filter"]
    stub_methods = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    module_funcs = {n for n, v in vars(_bloomjoin).items() if callable(v) and not isinstance(v, type)}
    assert stub_funcs == module_funcs
    public = {n for n in dir(bloomjoin.Filter) if not n.startswith("_")}
    assert public <= stub_methods
    assert STUB.with_name("py.typed").exists()
