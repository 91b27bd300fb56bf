#!/usr/bin/env python3
"""Measure what MindSpore does with each refused API and a selection of builtins.

For every API in ``graphlint/analysis/generated/jit_forbidden.py`` (and the
view-unsupported mint functions, a few members of the forbidden modules, a
selection of Python builtins on several argument kinds and of list/tuple/
dict/str methods) this writes a tiny ``nn.Cell`` whose ``construct`` uses it on
a Tensor input, and runs it with graphlint's validation job runner
(:func:`graphlint.validate.runner.run_job`, the same child process that proves
the catalogue's examples): in PYNATIVE_MODE, in GRAPH_MODE at the default
(lax) syntax level, and under ``mindspore.jit(cell, fullgraph=True)``
(strict). The results go to ``graphlint/analysis/generated/refused_measured.py``::

    .venv/bin/python scripts/measure_refused_apis.py            # measure and write
    .venv/bin/python scripts/measure_refused_apis.py --dry-run  # measure and print only

Probes run in batches (one child process compiles a batch, one probe after the
other); a batch whose child crashes or times out is rerun probe by probe.
Each result keeps the probe's ``construct`` body, short enough to become a
rule example.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import textwrap
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from graphlint.validate.compare import difference  # noqa: E402
from graphlint.validate.runner import run_job  # noqa: E402

OUT = os.path.join(ROOT, "graphlint", "analysis", "generated", "refused_measured.py")
BATCH = 30
TIMEOUT = 900.0


@dataclass(frozen=True)
class Probe:
    key: str      # the key in MEASURED
    api: str      # what is measured: the registered name of a refused API, or the builtin/method
    kind: str     # forbidden | forbidden_module | view | builtin | method
    body: str     # the body of construct(self, x); x is a float32 Tensor of shape (2, 3)


def _p(key, api, kind, body):
    return Probe(key, api, kind, textwrap.dedent(body).strip("\n"))


CELL = "mindspore.nn.cell.Cell."
FORBIDDEN_PROBES = [
    _p("mindspore.nn.Cell.buffers", CELL + "buffers", "forbidden", """
        b = self.buffers()
        return x + 1
    """),
    _p("mindspore.nn.Cell.get_buffer", CELL + "get_buffer", "forbidden", """
        b = self.get_buffer("buf")
        return x + b
    """),
    _p("mindspore.nn.Cell.get_parameters", CELL + "get_parameters", "forbidden", """
        ps = self.get_parameters()
        return x + 1
    """),
    _p("mindspore.nn.Cell.get_parameters (sub-cell)", CELL + "get_parameters", "forbidden", """
        ps = self.sub.get_parameters()
        return x + 1
    """),
    _p("mindspore.nn.Cell.get_sub_cell", CELL + "get_sub_cell", "forbidden", """
        c = self.get_sub_cell("sub")
        return c(x)
    """),
    _p("mindspore.nn.Cell.load_state_dict", CELL + "load_state_dict", "forbidden", """
        self.load_state_dict({}, strict=False)
        return x + 1
    """),
    _p("mindspore.nn.Cell.named_buffers", CELL + "named_buffers", "forbidden", """
        b = self.named_buffers()
        return x + 1
    """),
    _p("mindspore.nn.Cell.register_backward_hook", CELL + "register_backward_hook", "forbidden", """
        self.sub.register_backward_hook(backward_hook)
        return x + 1
    """),
    _p("mindspore.nn.Cell.register_backward_pre_hook", CELL + "register_backward_pre_hook", "forbidden", """
        self.sub.register_backward_pre_hook(backward_pre_hook)
        return x + 1
    """),
    _p("mindspore.nn.Cell.register_buffer", CELL + "register_buffer", "forbidden", """
        self.register_buffer("extra", x)
        return x + 1
    """),
    _p("mindspore.nn.Cell.register_forward_hook", CELL + "register_forward_hook", "forbidden", """
        self.sub.register_forward_hook(forward_hook)
        return x + 1
    """),
    _p("mindspore.nn.Cell.register_forward_pre_hook", CELL + "register_forward_pre_hook", "forbidden", """
        self.sub.register_forward_pre_hook(forward_pre_hook)
        return x + 1
    """),
    _p("mindspore.nn.Cell.register_load_state_dict_post_hook", CELL + "register_load_state_dict_post_hook",
       "forbidden", """
        self.register_load_state_dict_post_hook(state_hook)
        return x + 1
    """),
    _p("mindspore.nn.Cell.register_load_state_dict_pre_hook", CELL + "register_load_state_dict_pre_hook",
       "forbidden", """
        self.register_load_state_dict_pre_hook(state_hook)
        return x + 1
    """),
    _p("mindspore.nn.Cell.register_saved_tensors_hooks", CELL + "register_saved_tensors_hooks", "forbidden", """
        self.register_saved_tensors_hooks(pack_hook, unpack_hook)
        return x + 1
    """),
    _p("mindspore.nn.Cell.register_state_dict_post_hook", CELL + "register_state_dict_post_hook", "forbidden", """
        self.register_state_dict_post_hook(state_hook)
        return x + 1
    """),
    _p("mindspore.nn.Cell.register_state_dict_pre_hook", CELL + "register_state_dict_pre_hook", "forbidden", """
        self.register_state_dict_pre_hook(state_hook)
        return x + 1
    """),
    _p("mindspore.nn.Cell.state_dict", CELL + "state_dict", "forbidden", """
        d = self.state_dict()
        return x + 1
    """),
    _p("mindspore.nn.Cell.to", CELL + "to", "forbidden", """
        self.sub.to(ms.float32)
        return x + 1
    """),
    _p("mindspore.nn.Cell.to_empty", CELL + "to_empty", "forbidden", """
        self.sub.to_empty(device="CPU")
        return x + 1
    """),
    _p("mindspore.nn.Cell.trainable_params", CELL + "trainable_params", "forbidden", """
        ps = self.trainable_params()
        return x + 1
    """),
    _p("mindspore.nn.Cell.untrainable_params", CELL + "untrainable_params", "forbidden", """
        ps = self.untrainable_params()
        return x + 1
    """),
    _p("mindspore.nn.Cell._apply", CELL + "_apply", "forbidden", """
        self._apply(apply_fn)
        return x + 1
    """),
    _p("mindspore.nn.Cell._run_forward_hook", CELL + "_run_forward_hook", "forbidden", """
        y = self._run_forward_hook((x,), {}, x, ())
        return x + 1
    """),
    _p("mindspore.nn.Cell._run_forward_pre_hook", CELL + "_run_forward_pre_hook", "forbidden", """
        y = self._run_forward_pre_hook((x,), {})
        return x + 1
    """),
    _p("mindspore.Parameter.set_data", "mindspore.common.parameter.Parameter.set_data", "forbidden", """
        self.p.set_data(x)
        return x + self.p
    """),
    _p("mindspore.Tensor.assign_value", "mindspore.common.tensor.Tensor.assign_value", "forbidden", """
        self.t.assign_value(x)
        return x + self.t
    """),
    _p("mindspore.Tensor.assign_value (input)", "mindspore.common.tensor.Tensor.assign_value", "forbidden", """
        x.assign_value(x * 2)
        return x + 1
    """),
    _p("mindspore.Tensor.set_const_arg", "mindspore.common.tensor.Tensor.set_const_arg", "forbidden", """
        x.set_const_arg(True)
        return x + 1
    """),
    _p("mindspore.common.hook_handle.HookHandle.remove", "mindspore.common.hook_handle.HookHandle.remove",
       "forbidden", """
        self.handle.remove()
        return x + 1
    """),
    _p("mindspore.common.hook_handle._TensorHookHandle.remove",
       "mindspore.common.hook_handle._TensorHookHandle.remove", "forbidden", """
        self.tensor_handle.remove()
        return x + 1
    """),
    _p("mindspore.saved_tensors_hooks", "mindspore.graph.api.saved_tensors_hooks.__init__", "forbidden", """
        hooks = ms.saved_tensors_hooks(pack_hook, unpack_hook)
        return x + 1
    """),
    _p("mindspore.saved_tensors_hooks (with)", "mindspore.graph.api.saved_tensors_hooks.__init__", "forbidden", """
        with ms.saved_tensors_hooks(pack_hook, unpack_hook):
            y = x * 2
        return y
    """),
    _p("mindspore.graph.api._disable_saved_tensors_hooks", "mindspore.graph.api._disable_saved_tensors_hooks",
       "forbidden", """
        ctx = _disable_saved_tensors_hooks("no hooks here")
        return x + 1
    """),
]

MODULE_PROBES = [
    _p("mindspore.common.initializer.initializer", "mindspore.common.initializer.initializer", "forbidden_module", """
        w = initializer("normal", (2, 3), ms.float32)
        return x + 1
    """),
    _p("mindspore.common.initializer.Normal", "mindspore.common.initializer.Normal", "forbidden_module", """
        init = Normal(0.01)
        return x + 1
    """),
    _p("mindspore.get_context", "mindspore.context.get_context", "forbidden_module", """
        mode = ms.get_context("mode")
        return x + 1
    """),
    _p("mindspore.set_context", "mindspore.context.set_context", "forbidden_module", """
        ms.set_context(max_call_depth=1000)
        return x + 1
    """),
    _p("mindspore.get_auto_parallel_context", "mindspore.context.get_auto_parallel_context", "forbidden_module", """
        mode = ms.get_auto_parallel_context("parallel_mode")
        return x + 1
    """),
    _p("mindspore.context.get_jit_config", "mindspore.context.get_jit_config", "forbidden_module", """
        config = ms.context.get_jit_config()
        return x + 1
    """),
    _p("mindspore.ParallelMode", "mindspore.context.ParallelMode", "forbidden_module", """
        mode = ms.ParallelMode.STAND_ALONE
        return x, mode
    """),
    _p("mindspore.log.warning", "mindspore.log.warning", "forbidden_module", """
        ms.log.warning("in construct")
        return x + 1
    """),
    _p("mindspore.log.info", "mindspore.log.info", "forbidden_module", """
        ms.log.info("in construct")
        return x + 1
    """),
    _p("mindspore.log.error (imported as logger)", "mindspore.log.error", "forbidden_module", """
        logger.error("in construct")
        return x + 1
    """),
    _p("mindspore.get_level", "mindspore.log.get_level", "forbidden_module", """
        level = ms.get_level()
        return x + 1
    """),
]

VIEW_PROBES = [
    _p("mindspore.mint.flatten", "mindspore.mint.flatten", "view", """
        return mint.flatten(x)
    """),
    _p("mindspore.mint.reshape", "mindspore.mint.reshape", "view", """
        return mint.reshape(x, (3, 2))
    """),
    _p("mindspore.mint.squeeze", "mindspore.mint.squeeze", "view", """
        return mint.squeeze(x.reshape((1, 2, 3)), 0)
    """),
    _p("mindspore.mint.t", "mindspore.mint.t", "view", """
        return mint.t(x)
    """),
]


def _builtin(name, kind, expr, api=None):
    return _p(f"builtin:{name}({kind})", api or name, "builtin", f"""
        y = {expr}
        return x, y
    """)


BUILTIN_PROBES = [
    _builtin("abs", "Tensor", "abs(x)"),
    _builtin("abs", "int", "abs(-3)"),
    _builtin("all", "tuple", "all((True, False))"),
    _builtin("all", "Tensor", "all(x[0] > 0)"),
    _builtin("any", "Tensor", "any(x[0] > 0)"),
    _builtin("bool", "Tensor", "bool(x.sum() > 0)"),
    _builtin("bool", "int", "bool(1)"),
    _builtin("divmod", "int", "divmod(7, 2)"),
    _builtin("enumerate", "tuple", "tuple(enumerate((4, 5)))"),
    _builtin("enumerate", "Tensor", "tuple(enumerate(x))"),
    _builtin("filter", "tuple", "tuple(filter(lambda v: v > 1, (1, 2, 3)))"),
    _builtin("float", "int", "float(3)"),
    _builtin("float", "Tensor", "float(x[0, 0])"),
    _builtin("getattr", "attribute", "getattr(self, 'scale', 1.0)"),
    _builtin("hasattr", "Tensor", "hasattr(x, 'shape')"),
    _builtin("int", "float", "int(2.5)"),
    _builtin("int", "Tensor", "int(x[0, 0])"),
    _builtin("isinstance", "Tensor", "isinstance(x, Tensor)"),
    _builtin("len", "Tensor", "len(x)"),
    _builtin("len", "tuple", "len((1, 2, 3))"),
    _builtin("len", "str", "len('abc')"),
    _builtin("list", "tuple", "list((1, 2))"),
    _builtin("list", "Tensor", "list(x)"),
    _builtin("map", "tuple", "tuple(map(lambda v: v * 2, (1, 2)))"),
    _builtin("map", "Tensor", "tuple(map(lambda r: r * 2, (x, x)))"),
    _builtin("max", "int", "max(1, 3)"),
    _builtin("max", "Tensor", "max(x[0, 0], x[0, 1])"),
    _builtin("max", "Tensor-1d", "max(x[0])"),
    _builtin("min", "tuple", "min((4, 2, 3))"),
    _builtin("min", "Tensor", "min(x[0, 0], x[0, 1])"),
    _builtin("pow", "Tensor", "pow(x, 2)"),
    _builtin("print", "Tensor", "print(x)"),
    _builtin("range", "int", "tuple(range(3))"),
    _builtin("range", "shape", "tuple(range(x.shape[0]))"),
    _builtin("reversed", "tuple", "tuple(reversed((1, 2, 3)))"),
    _builtin("round", "float", "round(2.567, 1)"),
    _builtin("round", "Tensor", "round(x)"),
    _builtin("sorted", "tuple", "tuple(sorted((3, 1, 2)))"),
    _builtin("sorted", "Tensor", "tuple(sorted(x[0]))"),
    _builtin("str", "int", "str(3)"),
    _builtin("str", "Tensor", "str(x)"),
    _builtin("sum", "tuple", "sum((1, 2, 3))"),
    _builtin("sum", "Tensor", "sum(x)"),
    _builtin("tuple", "list", "tuple([1, 2])"),
    _builtin("tuple", "Tensor", "tuple(x)"),
    _builtin("zip", "tuple", "tuple(zip((1, 2), (3, 4)))"),
    _builtin("zip", "Tensor", "tuple(zip(x, x))"),
    _builtin("dict", "kwargs", "dict(a=1, b=2)['a']"),
    _builtin("set", "tuple", "len(set((1, 2, 2)))"),
    _builtin("type", "int", "type(3) == int"),
    _builtin("type", "Tensor", "type(x) == Tensor"),
    _builtin("id", "Tensor", "id(x) > 0"),
    _builtin("hash", "int", "hash(3)"),
    _builtin("chr", "int", "chr(65)"),
    _builtin("ord", "str", "ord('A')"),
    _builtin("callable", "function", "callable(abs)"),
    _builtin("repr", "int", "repr(3)"),
    _builtin("format", "int", "format(3, 'd')"),
    _builtin("hex", "int", "hex(255)"),
    _builtin("iter/next", "tuple", "next(iter((1, 2)))", api="next"),
    _builtin("slice", "Tensor", "x[slice(0, 1)]"),
    _builtin("complex", "int", "complex(1, 2).real"),
    _builtin("issubclass", "class", "issubclass(int, object)"),
    _builtin("frozenset", "tuple", "len(frozenset((1, 2)))"),
]


def _method(owner, name, body, api=None, variant=""):
    key = f"method:{owner}.{name}" + (f" ({variant})" if variant else "")
    return _p(key, api or f"{owner}.{name}", "method", body)


METHOD_PROBES = [
    _method("list", "append", """
        values = [1, 2]
        values.append(3)
        return x, values
    """),
    _method("list", "append", """
        values = []
        values.append(x)
        values.append(x * 2)
        return values[0] + values[1]
    """, variant="Tensor"),
    _method("list", "extend", """
        values = [1]
        values.extend((2, 3))
        return x, values
    """),
    _method("list", "insert", """
        values = [1, 3]
        values.insert(1, 2)
        return x, values
    """),
    _method("list", "pop", """
        values = [1, 2, 3]
        last = values.pop()
        return x, values, last
    """),
    _method("list", "remove", """
        values = [1, 2, 3]
        values.remove(2)
        return x, values
    """),
    _method("list", "index", """
        values = [4, 5, 6]
        return x, values.index(5)
    """),
    _method("list", "count", """
        values = [1, 1, 2]
        return x, values.count(1)
    """),
    _method("list", "reverse", """
        values = [1, 2, 3]
        values.reverse()
        return x, values
    """),
    _method("list", "clear", """
        values = [1, 2]
        values.clear()
        return x, len(values)
    """),
    _method("list", "sort", """
        values = [3, 1, 2]
        values.sort()
        return x, values
    """),
    _method("list", "copy", """
        values = [1, 2]
        other = values.copy()
        return x, other
    """),
    _method("tuple", "index", """
        values = (4, 5, 6)
        return x, values.index(6)
    """),
    _method("tuple", "count", """
        values = (1, 1, 2)
        return x, values.count(1)
    """),
    _method("dict", "keys", """
        table = {"a": 1, "b": 2}
        return x, tuple(table.keys())
    """),
    _method("dict", "values", """
        table = {"a": 1, "b": 2}
        return x, tuple(table.values())
    """),
    _method("dict", "items", """
        table = {"a": 1, "b": 2}
        return x, tuple(table.items())
    """),
    _method("dict", "get", """
        table = {"a": x}
        return table.get("a"), table.get("b", 0)
    """),
    _method("dict", "update", """
        table = {"a": 1}
        table.update({"b": 2})
        return x, table["b"]
    """),
    _method("dict", "pop", """
        table = {"a": 1, "b": 2}
        value = table.pop("a")
        return x, value
    """),
    _method("dict", "setdefault", """
        table = {"a": 1}
        value = table.setdefault("b", 2)
        return x, value
    """),
    _method("dict", "clear", """
        table = {"a": 1}
        table.clear()
        return x, len(table)
    """),
    _method("dict", "copy", """
        table = {"a": 1}
        other = table.copy()
        return x, other["a"]
    """),
    _method("dict", "fromkeys", """
        table = dict.fromkeys(("a", "b"), 0)
        return x, table["b"]
    """),
    _method("dict", "has_key", """
        table = {"a": 1}
        return x, table.has_key("a")
    """),
    _method("dict", "setitem", """
        table = {"a": 1}
        table["b"] = x
        return table["b"]
    """, api="dict.__setitem__"),
    _method("str", "format", """
        text = "{}-{}".format(1, 2)
        return x, text
    """),
    _method("str", "join", """
        text = "-".join(("a", "b"))
        return x, text
    """),
    _method("str", "split", """
        parts = "a-b".split("-")
        return x, len(parts)
    """),
    _method("str", "upper", """
        return x, "abc".upper()
    """),
    _method("str", "replace", """
        return x, "abc".replace("b", "x")
    """),
    _method("str", "startswith", """
        return x, "abc".startswith("a")
    """),
    _method("str", "strip", """
        return x, " a ".strip()
    """),
    _method("str", "find", """
        return x, "abc".find("c")
    """),
    _method("str", "f-string", """
        text = f"v={1}"
        return x, text
    """, api="str.__format__"),
]

PROBES = FORBIDDEN_PROBES + MODULE_PROBES + VIEW_PROBES + BUILTIN_PROBES + METHOD_PROBES

# The module every probe is compiled in (tests/test_tables.py lints each probe in it too): a Cell base with a
# sub-Cell, a Parameter, a Tensor attribute, a buffer and hook handles; hooks are module functions.
PROBE_SETUP = '''\
import numpy as np
import mindspore as ms
from mindspore import nn, ops, mint, Tensor, Parameter
from mindspore import log as logger
from mindspore.common.initializer import initializer, Normal
from mindspore.graph.api import _disable_saved_tensors_hooks


def forward_hook(cell, inputs, output):
    return None


def forward_pre_hook(cell, inputs):
    return None


def backward_hook(cell, grad_input, grad_output):
    return None


def backward_pre_hook(cell, grad_output):
    return None


def state_hook(*args, **kwargs):
    return None


def pack_hook(t):
    return t


def unpack_hook(t):
    return t


def tensor_grad_hook(grad):
    return grad


def apply_fn(t):
    return t


class Base(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 2.0
        self.sub = nn.ReLU()
        self.p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="p")
        self.t = Tensor(np.ones((2, 3), np.float32))
        self.register_buffer("buf", Tensor(np.ones((2, 3), np.float32)))
        self.handle = self.sub.register_forward_pre_hook(forward_pre_hook)
        self.tensor_handle = Tensor(np.ones((2,), np.float32)).register_hook(tensor_grad_hook)
'''

HEADER = "import json\n" + PROBE_SETUP + '''

class Entry(nn.Cell):
    def construct(self, x):
        return x


def structure(value):
    """What kind of Python object graph code handed back (encode() turns NumPy arrays into Tensors too)."""
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, np.ndarray):
        return "ndarray"
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__} of {len(value)}"
    return type(value).__name__


def _first_line(exc):
    lines = [line.strip() for line in str(exc).splitlines() if line.strip().strip("-")]
    return lines[0][:400] if lines else type(exc).__name__


def fresh(arguments):
    """Copies of the inputs for one probe: graph mode writes an in-place method's result through a view into
    the caller's Tensor (measured), and the next probe must not read that."""
    return [Tensor(a.asnumpy()) if isinstance(a, Tensor) else a for a in arguments]


def drive(call, target, inputs):
    from graphlint.validate.child import encode

    if ms.get_context("mode") == ms.GRAPH_MODE:
        level = "lax"
    elif call is target:
        level = "pynative"
    else:
        level = "strict"
    results = {}
    for name in PROBES:
        try:
            cell = globals()[name]()
            run = cell if level != "strict" else ms.jit(cell, fullgraph=True)
            out = run(*fresh(inputs[0]))
            results[name] = {"status": "ok", "out": encode(out), "kind": structure(out)}
            # Further inputs (same shapes, other values) show whether the output's shape depends on values.
            results[name]["more"] = [encode(run(*fresh(args))) for args in inputs[1:]]
        except BaseException as exc:  # a probe may raise anything
            results[name] = {"status": "error", "type": type(exc).__name__, "error": _first_line(exc),
                             "message": str(exc)[:3000]}
        if level != "lax":
            ms.set_context(mode=ms.PYNATIVE_MODE)
        else:
            ms.set_context(mode=ms.GRAPH_MODE)
    return [json.dumps(results)]
'''


def _class_name(index: int) -> str:
    return f"Probe{index:03d}"


def module_source(indexed_probes, preamble: str = "") -> str:
    """The probes as Cells; a probe with an ``init`` (statements on ``self``) gets an ``__init__`` running it."""
    parts = [HEADER, preamble]
    names = []
    for index, probe in indexed_probes:
        name = _class_name(index)
        names.append(name)
        body = textwrap.indent(probe.body, " " * 8)
        init = getattr(probe, "init", "")
        init = ("    def __init__(self):\n        super().__init__()\n" + textwrap.indent(init, " " * 8) + "\n\n"
                if init else "")
        parts.append(f"\n\nclass {name}(Base):  # {probe.key}\n{init}    def construct(self, x):\n{body}\n")
    parts.append(f"\n\nPROBES = {names!r}\n")
    return "".join(parts)


PROBE_INPUTS = "(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) - 2),)"


def run_batch(indexed_probes, inputs: str = PROBE_INPUTS, preamble: str = "") -> dict:
    """Compile and run the probes in one child process; ``inputs`` is a tuple of arguments or a list of them."""
    job = {
        "source": module_source(indexed_probes, preamble),
        "module_name": "graphlint_probes",
        "entry": "Entry",
        "inputs": inputs,
        "calls": 1,
        "runs": ["pynative", "graph", "strict"],
    }
    result = run_job(job, timeout=TIMEOUT)
    levels = {}
    for mode, level in (("pynative", "pynative"), ("graph", "lax"), ("strict", "strict")):
        record = result[mode]
        if record.ok and record.outputs and record.outputs[0].get("t") == "str":
            levels[level] = json.loads(record.outputs[0]["v"])
        else:
            levels[level] = {"__failed__": record.describe() or record.status, "__status__": record.status}
    return levels


def _as_tuples(value):
    """Lists and tuples compare equal: graph mode may return one for the other."""
    if isinstance(value, dict) and value.get("t") in ("list", "tuple"):
        return {"t": "tuple", "items": [_as_tuples(v) for v in value["items"]]}
    if isinstance(value, dict) and value.get("t") == "dict":
        return {"t": "dict", "items": {k: _as_tuples(v) for k, v in value["items"].items()}}
    return value


def divergence(record: dict, reference: dict) -> str:
    """How the outputs of a run differ from PYNATIVE_MODE's ('' when they match or either failed)."""
    if record.get("status") != "ok" or reference.get("status") != "ok":
        return ""
    return difference(_as_tuples(reference["out"]), _as_tuples(record["out"])) or ""


def outcome(record: dict, reference: dict) -> str:
    if record.get("status") == "ok":
        return "diverges" if divergence(record, reference) else "compiles"
    if record.get("status") in ("crashed", "timeout"):
        return "crashes" if record["status"] == "crashed" else "timeout"
    return "fails"


def message_key(text: str) -> str:
    try:
        from graphlint.analysis.generated import error_messages
    except ImportError:
        return ""
    for table in (error_messages.MESSAGES, error_messages.PYTHON_MESSAGES):
        for key in sorted(table):
            if re.search(table[key]["regex"], text, re.S):
                return key
    return ""


def run_probes(probes, log=print, batch_size: int = BATCH, **batch_options) -> dict:
    """index in ``probes`` -> {level: record}; a batch whose child fails as a whole is rerun probe by probe."""
    indexed = list(enumerate(probes))
    raw = {}  # index -> {level: record}
    for start in range(0, len(indexed), batch_size):
        batch = indexed[start:start + batch_size]
        log(f"batch {start // batch_size + 1}: {len(batch)} probes")
        levels = run_batch(batch, **batch_options)
        failed = [level for level, records in levels.items() if "__failed__" in records]
        if failed:
            log(f"  batch run failed at {failed}: {levels[failed[0]]['__failed__']}; rerunning one by one")
            for item in batch:
                single = run_batch([item], **batch_options)
                raw[item[0]] = {level: single[level].get(_class_name(item[0]),
                                                         {"status": single[level].get("__status__", "error"),
                                                          "type": "", "error": single[level].get("__failed__", "")})
                                for level in single}
        else:
            for index, _ in batch:
                raw[index] = {level: levels[level][_class_name(index)] for level in levels}
    return raw


def measure(probes, log=print) -> dict:
    raw = run_probes(probes, log)
    indexed = list(enumerate(probes))
    measured = {}
    for index, probe in indexed:
        records = raw[index]
        pyn, lax, strict = records["pynative"], records["lax"], records["strict"]
        lax_outcome, strict_outcome = outcome(lax, pyn), outcome(strict, pyn)
        if pyn.get("status") != "ok":
            verdict = "pynative fails"
        elif lax_outcome == "fails":
            verdict = "fails"
        elif strict_outcome == "fails":
            verdict = "falls back"
        elif "diverges" in (lax_outcome, strict_outcome):
            verdict = "diverges"
        elif lax_outcome == strict_outcome == "compiles":
            verdict = "compiles"
        else:
            verdict = lax_outcome
        failing = lax if lax.get("status") != "ok" else strict if strict.get("status") != "ok" else {}
        error = failing.get("error", "")
        measured[probe.key] = {
            "api": probe.api,
            "kind": probe.kind,
            "pynative": "runs" if pyn.get("status") == "ok" else "fails: " + pyn.get("error", "")[:200],
            "lax": lax_outcome,
            "strict": strict_outcome,
            "verdict": verdict,
            "error": f"{failing.get('type', '')}: {error}" if error else "",
            "difference": divergence(lax, pyn) or divergence(strict, pyn),
            "message_key": message_key(failing.get("message", error)) if error else "",
            "source": probe.body,
        }
    return measured


def render(measured: dict, version: str) -> str:
    from mindspore_tables import render_module

    doc = ("What MindSpore does with each refused API, and with a selection of builtins and container methods,\n"
           "MEASURED by compiling a small nn.Cell per API (not read from MindSpore's sources).")
    return render_module(version, doc, [
        ("MEASURED", measured,
         "key -> what compiling the probe did. 'api' is the registered name (jit_forbidden.FORBIDDEN_METHODS /\n"
         "FORBIDDEN_MODULE_MEMBERS key), the builtin or the method; 'source' is the body of construct(self, x)\n"
         "(x: float32 Tensor (2, 3); the Cell has self.sub = nn.ReLU(), a Parameter self.p, a Tensor self.t,\n"
         "a buffer 'buf', hook handles self.handle / self.tensor_handle; hooks are module functions).\n"
         "'lax' is GRAPH_MODE at the default syntax level, 'strict' mindspore.jit(cell, fullgraph=True):\n"
         "'compiles' (and returns what PYNATIVE_MODE returns), 'diverges', 'fails', 'crashes'.\n"
         "'verdict': 'fails' (lax fails), 'falls back' (lax compiles, strict fails), 'compiles', 'diverges'.\n"
         "'error' is the first line of the first failing level; 'message_key' its error_messages key."),
    ], script="scripts/measure_refused_apis.py", how=" (measured by compiling, not read from sources)")


def mindspore_version() -> str:
    import subprocess

    out = subprocess.run([sys.executable, "-c", "import mindspore; print(mindspore.__version__)"],
                         capture_output=True, text=True, env=dict(os.environ, GLOG_v="3"), check=True)
    return out.stdout.strip().splitlines()[-1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="print the results, do not write the table")
    parser.add_argument("--only", nargs="*", default=None, help="measure only probes whose key contains one of these")
    args = parser.parse_args(argv)
    probes = PROBES
    if args.only:
        probes = [p for p in PROBES if any(word in p.key for word in args.only)]
    missing = _unprobed()
    if missing and not args.only:
        print("refused APIs without a probe (add one to this script):", ", ".join(missing))
    measured = measure(probes)
    for key, entry in measured.items():
        print(f"{entry['verdict']:10} lax={entry['lax']:9} strict={entry['strict']:9} {key}  {entry['error'][:120]}"
              f"{entry['difference']}  {'' if entry['pynative'] == 'runs' else entry['pynative']}")
    if args.dry_run or args.only:
        return 0
    text = render(measured, mindspore_version())
    with open(OUT, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote {os.path.relpath(OUT, ROOT)}")
    return 0


def _unprobed() -> list:
    try:
        from graphlint.analysis.generated import jit_forbidden
    except ImportError:
        return []
    probed = {p.api for p in PROBES}
    return sorted(set(jit_forbidden.FORBIDDEN_METHODS) - probed)


if __name__ == "__main__":
    sys.exit(main())
