#!/usr/bin/env python3
"""Measure the dtype of what MindSpore's operations return, as a function of their inputs' dtype.

Each public function of ``mindspore.ops`` and ``mindspore.mint``, each Primitive class of ``mindspore.ops`` that
can be made without arguments, and each public Tensor method is called in PYNATIVE_MODE on Tensors of shape
``(3, 3)``, all of one dtype, once for each of float16, float32 and int32 (one to three Tensor inputs: the
first count that gives one Tensor). Where every call gives one Tensor (or a tuple of Tensors of one dtype), the rule is recorded:

* ``"like"``: the result has the inputs' dtype (float16 -> float16, float32 -> float32, int32 -> int32);
* ``"floating"``: floating inputs keep their dtype, integer ones give float32;
* a dtype (``"bool_"``, ``"int64"``, ...): the same whatever the inputs;
* ``"each "`` and one of these: a tuple of Tensors (``ops.unstack``, ``x.split(1)``), each following the rule.

Operations whose results follow none of these are left out. The result is
``graphlint/analysis/generated/op_dtypes.py``; the suite compiles a sample of it in GRAPH_MODE::

    .venv/bin/python scripts/measure_op_dtypes.py            # measure and write
    .venv/bin/python scripts/measure_op_dtypes.py --dry-run  # measure and print only
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import select
import signal
import sys
import tempfile
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from mindspore_tables import render_module  # noqa: E402

OUT = os.path.join(ROOT, "graphlint", "analysis", "generated", "op_dtypes.py")
SHAPE = (3, 3)
DTYPES = ("float16", "float32", "int32")
CALL_TIMEOUT = 30.0  # seconds for one operation's forms
# integer arguments after one Tensor: a permutation, a shape, an axis (`transpose(x, (1, 0))`, `x.view(9)`)
EXTRAS = (((1, 0),), ((9,),), (1,), (0,), (9,))
# calls that draw, wait or print rather than compute (their dtype is not what a graph asks of them)
SKIPPED = frozenset({"print_", "Print", "TensorDump", "tensordump", "breakpoint", "HookBackward", "Depend",
                     "InsertGradientOf", "Morph", "PyFunc", "PyExecute", "Custom", "custom_info_register"})


def _rule(results: dict) -> str | None:
    """The rule the dtypes of the results follow (``results``: input dtype -> result dtype). Integer inputs
    without a kernel leave the rule to the floating ones."""
    if results.get("float16") != "float16" and results.get("float32") == "float32" and "int32" in results \
            and "float16" not in results:
        return None
    floats = [d for d in ("float16", "float32") if d in results]
    if len(floats) < 2:
        return None
    if all(results[d] == d for d in results):
        return "like"
    if "int32" in results and results["int32"] == "float32" and all(results[d] == d for d in floats):
        return "floating"
    found = set(results.values())
    return found.pop() if len(found) == 1 and len(results) == len(DTYPES) else None


def _dtype_name(tensor) -> str:
    return str(tensor.dtype).lower().replace("bool", "bool_")


def _measure_callable(ms, np, call) -> tuple | None:
    """``(rule, Tensor inputs, extras)`` of ``call``: the first form it takes, one to three Tensors, or one
    Tensor and integer arguments (``extras``: how many)."""
    forms = [(count, ()) for count in (1, 2, 3)] + [(1, extra) for extra in EXTRAS]
    for count, extra in forms:
        results = {}
        for dtype in ("float32", "float16", "int32"):  # (a form float32 does not fit is not tried further)
            data = np.arange(1, 10).reshape(SHAPE).astype(dtype) / (1 if dtype == "int32" else 10)
            tensors = [ms.Tensor(data.astype(dtype)) for _ in range(count)]
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = call(*tensors, *extra)
                items = result if isinstance(result, (tuple, list)) and result else (result,)
                if not all(isinstance(item, ms.Tensor) for item in items) or \
                        len({_dtype_name(item) for item in items}) != 1:
                    break
                for item in items:
                    item.asnumpy()  # (PYNATIVE_MODE runs lazily: a missing kernel shows here)
            except Exception:  # noqa: BLE001 - a form these inputs do not fit (or no kernel for the dtype)
                if dtype == "float32":
                    break
                continue
            results[dtype] = _dtype_name(items[0])
        rule = _rule(results) if results else None
        if rule is not None:
            # (a tuple of Tensors of one dtype, `ops.unstack(x)`, `x.split(1)`: the rule of each item)
            return ("each " + rule if isinstance(result, (tuple, list)) else rule), count, len(extra)
    return None


def _init_takes_type(cls) -> bool:
    """A Primitive whose constructor takes a type (``ops.Argmax(output_type=...)``): an instance made with
    arguments may give another dtype than one made without."""
    try:
        names = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return True
    return any("type" in name for name in names)


def _candidates(ms) -> list[tuple[str, str]]:
    """``(kind, name)`` of everything to call: "function" / "primitive" (qualified), "method"."""
    found = []
    for namespace in ("ops", "mint"):
        module = getattr(ms, namespace)
        for name in sorted(dir(module)):
            target = getattr(module, name)
            if name.startswith("_") or name in SKIPPED or not callable(target) \
                    or "comm" in getattr(target, "__module__", "") or "distributed" in getattr(target, "__module__", ""):
                continue  # (collectives need a communication group)
            if not inspect.isclass(target):
                found.append(("function", f"mindspore.{namespace}.{name}"))
            elif namespace == "ops" and issubclass(target, ms.ops.Primitive):
                found.append(("primitive", f"mindspore.ops.{name}"))
    found += [("method", name) for name in sorted(dir(ms.Tensor))
              if not name.startswith("_") and name not in SKIPPED and callable(getattr(ms.Tensor, name, None))]
    return found


def _measure_one(ms, np, kind: str, name: str):
    if kind == "method":
        return _measure_callable(ms, np, lambda receiver, *others: getattr(receiver, name)(*others))
    target = getattr(getattr(ms, name.split(".")[1]), name.rsplit(".", 1)[1])
    if kind == "function":
        return _measure_callable(ms, np, target)
    try:
        instance = target()
    except Exception:  # noqa: BLE001 - a Primitive that needs constructor arguments
        return None
    found = _measure_callable(ms, np, instance)
    return None if found is None else (*found, _init_takes_type(target))


def _in_child(ms, np, kind: str, name: str):
    """``_measure_one`` in a forked process: some kernels crash the process on inputs they do not take, and
    some calls hang; either is a form not measured. The parent has run no operation, so the child starts the
    runtime afresh."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read)
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)  # (MindSpore logs every refused input)
        try:
            found = _measure_one(ms, np, kind, name)
            os.write(write, json.dumps(found).encode())
        finally:
            os._exit(0)
    os.close(write)
    deadline = time.monotonic() + CALL_TIMEOUT
    chunks = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(read, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    if time.monotonic() >= deadline:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode()
    return json.loads(text) if text else None


def measure() -> tuple[str, dict, dict, dict]:
    os.environ.setdefault("GLOG_v", "3")
    import numpy as np
    import mindspore as ms

    # (synchronous: the forked children have none of the parent's threads, and an asynchronous error left the
    # next operations of a child failing)
    ms.set_context(mode=ms.PYNATIVE_MODE, pynative_synchronize=True)
    functions, primitives, methods = {}, {}, {}
    tables = {"function": functions, "primitive": primitives, "method": methods}
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)  # (kernels write build files where they run)
        try:
            for kind, name in _candidates(ms):
                found = _in_child(ms, np, kind, name)
                if found:
                    tables[kind][name] = tuple(found)
        finally:
            os.chdir(here)
    return ms.__version__, functions, primitives, methods


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    version, functions, primitives, methods = measure()
    text = render_module(
        version, "The dtype of what MindSpore's operations return, by their inputs' dtype, measured.",
        [("FUNCTION_DTYPES", functions,
          "function -> (rule, Tensor inputs, integer arguments after them): \"like\" the inputs' dtype, \"floating\"\n"
          "(integer inputs give float32), or one dtype; measured with 1-3 Tensors of one dtype (float16, float32,\n"
          "int32), or one Tensor and integer arguments (a permutation, a shape, an axis)"),
         ("PRIMITIVE_DTYPES", primitives,
          "Primitive class -> (rule, Tensor inputs, integer arguments, its constructor takes a type): an instance made\n"
          "without arguments, called as above"),
         ("METHOD_DTYPES", methods,
          "Tensor method -> (rule, Tensor inputs with the receiver, integer arguments)")],
        script="scripts/measure_op_dtypes.py")
    if args.dry_run:
        print(text)
        return 0
    with open(OUT, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote {os.path.relpath(OUT, ROOT)}: {len(functions)} functions, {len(primitives)} Primitives, "
          f"{len(methods)} methods")
    return 0


if __name__ == "__main__":
    sys.exit(main())
