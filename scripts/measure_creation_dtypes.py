#!/usr/bin/env python3
"""Measure the dtype MindSpore's Tensor-making functions give when no dtype is passed.

Each public function of ``mindspore.ops``, ``mindspore.mint`` and ``mindspore.numpy`` whose first parameter is a
shape (``shape``, ``size``, ``*size``) and which takes a ``dtype`` is called in PYNATIVE_MODE on the shape
``(2, 3)`` without one (``ops.ones((2, 3))``, ``mint.zeros(2, 3)``); when it returns a Tensor of that shape, its
dtype is recorded. The result is ``graphlint/analysis/generated/creation_dtypes.py``; the suite compiles a sample
of it in GRAPH_MODE::

    .venv/bin/python scripts/measure_creation_dtypes.py            # measure and write
    .venv/bin/python scripts/measure_creation_dtypes.py --dry-run  # measure and print only
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from mindspore_tables import render_module  # noqa: E402

OUT = os.path.join(ROOT, "graphlint", "analysis", "generated", "creation_dtypes.py")
SHAPE = (2, 3)
SHAPE_PARAMETERS = ("shape", "size")


def _shape_first(function) -> str | None:
    """How the shape is passed ("tuple" or "varargs"), when the first parameter is one and a dtype is taken."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return None
    if not parameters or "dtype" not in {p.name for p in parameters} or parameters[0].name not in SHAPE_PARAMETERS:
        return None
    return "varargs" if parameters[0].kind is inspect.Parameter.VAR_POSITIONAL else "tuple"


def measure() -> tuple[str, dict]:
    os.environ.setdefault("GLOG_v", "3")
    import mindspore as ms

    ms.set_context(mode=ms.PYNATIVE_MODE)
    found = {}
    for namespace in ("ops", "mint", "numpy"):
        module = getattr(ms, namespace)
        for name in sorted(dir(module)):
            function = getattr(module, name)
            if name.startswith("_") or not callable(function) or inspect.isclass(function):
                continue
            passing = _shape_first(function)
            if passing is None:
                continue
            try:
                result = function(*SHAPE) if passing == "varargs" else function(SHAPE)
                if not isinstance(result, ms.Tensor) or tuple(result.shape) != SHAPE:
                    continue
                result.asnumpy()  # (PYNATIVE_MODE runs lazily: a missing kernel shows here)
            except Exception:  # noqa: BLE001 - a function that needs more than a shape
                continue
            found[f"mindspore.{namespace}.{name}"] = str(result.dtype).lower().replace("bool", "bool_")
    return ms.__version__, found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    version, found = measure()
    text = render_module(
        version, "The dtype MindSpore's Tensor-making functions give when no dtype is passed, measured.",
        [("CREATION_DEFAULT_DTYPES", found,
          "function -> the dtype of what it returns, called with a shape and no dtype (`ops.ones((2, 3))`)")],
        script="scripts/measure_creation_dtypes.py")
    if args.dry_run:
        print(text)
        return 0
    with open(OUT, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote {os.path.relpath(OUT, ROOT)}: {len(found)} functions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
