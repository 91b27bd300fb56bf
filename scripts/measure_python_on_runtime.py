#!/usr/bin/env python3
"""Measure what Python's own functions do in graph code when their arguments are run-time values: the host-side
decoding habits of PyTorch code (beam search over `.item()` scores, `max(..., key=...)`, `"".join` of looked-up
tokens, `itertools.groupby`, `collections.defaultdict`, `round`, `math.log` ...).

Each form is a tiny ``nn.Cell`` whose ``construct(self, x)`` makes run-time values from ``x`` (a float32 Tensor of
3 elements) and returns one call of a Python builtin, a `math` / `itertools` / `collections` / `functools` /
`heapq` / NumPy function or a `str`/`list`/`dict` method on them. The run-time arguments come in the forms graph
code gets them:

* ``scalar``: a Python float from ``.item()`` (``a``, ``b``); ``int``: a Python int from ``int(t)`` (``n``);
  ``count``: the same, at least 1 (a size or a count for MindSpore's ops);
* ``list``: a list display of such scalars (``s``), or of ints (``ids``);
* ``tolist``: what ``Tensor.tolist()`` returns (``s`` / ``ids``);
* ``tensor``: a Tensor (``t``, 0-d).

They are run with the machinery of ``scripts/measure_api_behaviour.py`` (batches of probes in one child process)
in PYNATIVE_MODE, in GRAPH_MODE at the default (lax) level and under ``jit(fullgraph=True)`` (strict), on two
inputs with other values, and the table goes to ``graphlint/analysis/generated/python_on_runtime.py``::

    .venv/bin/python scripts/measure_python_on_runtime.py            # measure every form, write the table
    .venv/bin/python scripts/measure_python_on_runtime.py --only join --dry-run
"""

from __future__ import annotations

import argparse
import os
import pprint
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from measure_torch_habits import level_outcome, verdict  # noqa: E402
from measure_refused_apis import message_key, mindspore_version, run_probes  # noqa: E402
from measure_api_behaviour import dynamic_shape  # noqa: E402

OUT = os.path.join(ROOT, "graphlint", "analysis", "generated", "python_on_runtime.py")
INPUTS = ("[(Tensor(np.array([0.5, 1.5, 2.0], np.float32)),),"
          " (Tensor(np.array([2.5, -1.0, 0.25], np.float32)),)]")
PREAMBLE = """
import collections
import functools
import heapq
import itertools
import math

VOCAB = ["_", "a", "b", "c"]
"""

# How each argument kind is made from `x` in the probe's body.
SETUP = {
    "scalar": "a = x[0].item()\nb = x[1].item()",
    "int": "n = int(x.argmax())",
    "count": "n = int(x.argmax()) + 1",
    "list": "s = [x[0].item(), x[1].item(), x[2].item()]",
    "int list": "ids = [int(x.argmax()), int(x.argmin()), int(x.argmax())]",
    "tolist": "s = x.tolist()",
    "int tolist": "ids = x.argsort().tolist()",
    "tensor": "t = x[0]",
}

# (callable as graphlint qualifies it, the keywords the form passes, argument kind, expression)
FORMS = [
    ("max", "", "scalar", "max(a, b)"),
    ("min", "", "scalar", "min(a, b)"),
    ("abs", "", "scalar", "abs(a)"),
    ("round", "", "scalar", "round(a)"),
    ("round", "", "scalar", "round(a, 2)"),
    ("pow", "", "scalar", "pow(a, 2)"),
    ("divmod", "", "int", "divmod(n, 2)"),
    ("int", "", "scalar", "int(a)"),
    ("float", "", "int", "float(n)"),
    ("bool", "", "scalar", "bool(a)"),
    ("str", "", "scalar", "str(a)"),
    ("str", "", "int", "str(n)"),
    ("sum", "", "list", "sum(s)"),
    ("sum", "", "tolist", "sum(s)"),
    ("max", "", "list", "max(s)"),
    ("max", "", "tolist", "max(s)"),
    ("min", "", "list", "min(s)"),
    ("sorted", "", "list", "sorted(s)"),
    ("sorted", "reverse", "list", "sorted(s, reverse=True)"),
    ("sorted", "key", "list", "sorted(s, key=lambda v: -v)"),
    ("sorted", "key", "tolist", "sorted(s, key=lambda v: -v)"),
    ("max", "key", "list", "max(s, key=lambda v: -v)"),
    ("max", "key", "tolist", "max(s, key=lambda v: -v)"),
    ("min", "key", "list", "min(s, key=abs)"),
    ("any", "", "list", "any(v > 1 for v in s)"),
    ("all", "", "list", "all(v > 1 for v in s)"),
    ("reversed", "", "list", "list(reversed(s))"),
    ("len", "", "tolist", "len(s)"),
    ("list.index", "", "list", "s.index(max(s))"),
    ("enumerate", "", "tolist", "[i * v for i, v in enumerate(s)]"),
    ("zip", "", "tolist", "[v * w for v, w in zip(s, s)]"),
    ("math.sqrt", "", "scalar", "math.sqrt(a)"),
    ("math.log", "", "scalar", "math.log(a)"),
    ("math.exp", "", "scalar", "math.exp(a)"),
    ("math.floor", "", "scalar", "math.floor(a)"),
    ("math.ceil", "", "scalar", "math.ceil(a)"),
    ("math.isinf", "", "scalar", "math.isinf(a)"),
    ("math.isnan", "", "scalar", "math.isnan(a)"),
    ("math.fabs", "", "scalar", "math.fabs(a)"),
    ("math.pow", "", "scalar", "math.pow(a, 2)"),
    ("math.tanh", "", "scalar", "math.tanh(a)"),
    ("math.log", "", "list", "math.log(sum(math.exp(v) for v in s))"),
    ("math.sqrt", "", "tensor", "math.sqrt(t)"),
    ("math.exp", "", "tensor", "math.exp(t)"),
    ("list.__getitem__", "", "int", "[1.0, 2.0, 3.0][n]"),
    ("tuple.__getitem__", "", "int", "(1.0, 2.0, 3.0)[n]"),
    ("str list.__getitem__", "", "int", "VOCAB[n]"),
    ("str.join", "", "int list", "''.join(VOCAB[k] for k in ids)"),
    ("str.join", "", "int tolist", "''.join(VOCAB[k] for k in ids)"),
    ("str.join", "", "int tolist", "'-'.join(str(k) for k in ids)"),
    ("str.format", "", "scalar", "'{:.2f}'.format(a)"),
    ("f-string", "", "scalar", "f'{a:.2f}'"),
    ("str.__mod__", "", "scalar", "'%.2f' % a"),
    ("collections.defaultdict", "", "int", "d = collections.defaultdict(float)\nd[n] += 1.0\nreturn d[n]"),
    ("collections.defaultdict", "", "scalar",
     "d = collections.defaultdict(lambda: (0.0, 0.0))\nd[0] = (a, b)\nreturn d[0]"),
    ("collections.Counter", "", "int tolist", "c = collections.Counter(ids)\nreturn c[0]"),
    ("dict", "", "int tolist", "d = dict(zip(ids, ids))\nreturn d[ids[0]]"),
    ("dict.__setitem__", "", "int", "d = {}\nd[n] = 1.0\nreturn d[n]"),
    ("dict.__getitem__", "", "int", "d = {0: 1.0, 1: 2.0, 2: 3.0}\nreturn d[n]"),
    ("sorted", "key", "scalar", "d = {'p': a, 'q': b}\nreturn sorted(d.items(), key=lambda kv: kv[1])"),
    ("max", "key", "scalar", "d = {'p': a, 'q': b}\nreturn max(d.items(), key=lambda kv: kv[1])"),
    ("itertools.groupby", "", "int tolist", "[k for k, _ in itertools.groupby(ids)]"),
    ("itertools.groupby", "", "int list", "[k for k, _ in itertools.groupby(ids)]"),
    ("itertools.chain", "", "tolist", "list(itertools.chain(s, s))"),
    ("functools.reduce", "", "list", "functools.reduce(lambda p, q: p + q, s)"),
    ("heapq.nlargest", "", "list", "heapq.nlargest(2, s)"),
    ("numpy.exp", "", "scalar", "np.exp(a)"),
    ("numpy.argmax", "", "list", "int(np.argmax(s))"),
    ("range", "", "int", "acc = []\nfor k in range(n + 1):\n    acc.append(x[k])\nreturn ops.stack(acc)"),
    ("range", "", "int", "acc = 0.0\nfor k in range(n + 1):\n    acc = acc + x[k]\nreturn acc"),
    ("list.append", "", "int", "acc = []\nfor k in range(n + 1):\n    acc.append(k)\nreturn len(acc)"),
    # MindSpore ops given a run-time Python int where they take a size, a count or an axis
    ("mindspore.ops.unsorted_segment_sum", "", "count", "return ops.unsorted_segment_sum(x, ops.zeros((3,), ms.int32), n)"),
    ("mindspore.ops.unsorted_segment_max", "", "count", "return ops.unsorted_segment_max(x, ops.zeros((3,), ms.int32), n)"),
    ("mindspore.ops.one_hot", "", "count", "return ops.one_hot(ops.zeros((3,), ms.int32), n + 1)"),
    ("mindspore.ops.arange", "", "count", "return ops.arange(n)"),
    ("mindspore.ops.zeros", "", "count", "return ops.zeros((n, 2), ms.float32)"),
    ("mindspore.ops.ones", "", "count", "return ops.ones(n, ms.float32)"),
    ("mindspore.ops.full", "", "count", "return ops.full((n,), 2.0)"),
    ("mindspore.ops.tile", "", "count", "return ops.tile(x, (n,))"),
    ("mindspore.ops.topk", "", "count", "return ops.topk(x, n)[0]"),
    ("mindspore.ops.narrow", "", "count", "return ops.narrow(x, 0, 0, n)"),
    ("mindspore.ops.repeat_interleave", "", "count", "return ops.repeat_interleave(x, n, 0)"),
    ("mindspore.ops.split", "", "count", "return ops.split(x, n)[0]"),
    ("mindspore.ops.roll", "", "count", "return ops.roll(x, n, 0)"),
    ("mindspore.ops.reshape", "", "count", "return ops.reshape(ops.tile(x, (2,)), (n, -1))"),
    ("mindspore.ops.broadcast_to", "", "count", "return ops.broadcast_to(x[:1], (n,))"),
    ("mindspore.ops.diag_embed", "", "count", "return ops.diag_embed(x, n - 1)"),
    ("mindspore.ops.cumsum", "", "count", "return ops.cumsum(x, n - 1)"),
    ("mindspore.ops.gather", "", "count", "return ops.gather(x, ops.zeros((2,), ms.int32), n - 1)"),
    ("mindspore.ops.sum", "", "count", "return ops.sum(ops.tile(x, (2, 1)), n - 1)"),
    ("mindspore.ops.softmax", "", "count", "return ops.softmax(x, n - 1)"),
    ("mindspore.ops.expand_dims", "", "count", "return ops.expand_dims(x, n - 1)"),
    ("mindspore.ops.multinomial", "", "count", "return ops.multinomial(ops.softmax(x, -1), n, False).shape[0]"),
]


@dataclass(frozen=True)
class Probe:
    key: str
    body: str
    init: str = ""


def probe_of(index: int, form: tuple) -> Probe:
    callable_name, keywords, kind, expression = form
    body = expression if expression.startswith(("d = ", "c = ", "acc = ", "return ")) or "\n" in expression else \
        "return " + expression
    return Probe(f"{index}: {callable_name} ({kind}): {expression.splitlines()[-1]}", SETUP[kind] + "\n" + body)


def entry_of(form: tuple, records: dict) -> dict:
    callable_name, keywords, kind, expression = form
    pyn, lax, strict = records["pynative"], records["lax"], records["strict"]
    lax_outcome, strict_outcome = level_outcome(lax, pyn), level_outcome(strict, pyn)
    failing = next((r for r in (lax, strict) if r.get("status") != "ok"), {}) if pyn.get("status") == "ok" else pyn
    error = (failing.get("error") or "").strip()
    return {
        "callable": callable_name, "keywords": keywords, "argument": kind, "form": expression,
        "lax": lax_outcome, "strict": strict_outcome,
        "verdict": verdict(pyn, lax_outcome, strict_outcome, dynamic_shape(pyn)),
        "error": error.splitlines()[0][:240] if error else "",
        "message_key": message_key(failing.get("message", error)) if error else "",
    }


def render(entries: list, version: str) -> str:
    lines = [
        "# generated by scripts/measure_python_on_runtime.py; do not edit",
        '"""What Python builtins, standard-library functions and str/list/dict operations do in graph code when',
        "their arguments are run-time values (Python scalars from `.item()`/`int(t)`, lists of them, what",
        "`Tensor.tolist()` returns, Tensors), measured in PYNATIVE_MODE, GRAPH_MODE (lax) and jit(fullgraph=True)",
        '(strict) on CPU. Regenerate with ``python scripts/measure_python_on_runtime.py``."""',
        "",
        f'MINDSPORE_VERSION = "{version}"',
        "",
        "# One entry per measured form: callable (as graphlint qualifies it), keywords passed, argument kind, the",
        "# form, the outcome at each level, the verdict (fine / refused / falls back / differs / pynative fails)",
        "# and MindSpore's first error line.",
        "FORMS = " + pprint.pformat(entries, width=116, sort_dicts=False),
        "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="measure the forms whose callable contains this text")
    parser.add_argument("--dry-run", action="store_true", help="print the table, do not write it")
    args = parser.parse_args(argv)
    forms = [f for f in FORMS if not args.only or args.only in f[0]]
    probes = [probe_of(index, form) for index, form in enumerate(forms)]
    raw = run_probes(probes, lambda message: print(message, file=sys.stderr), batch_size=40, inputs=INPUTS,
                     preamble=PREAMBLE)
    entries = [entry_of(form, raw[index]) for index, form in enumerate(forms)]
    text = render(entries, mindspore_version())
    if args.dry_run:
        print(text)
        return 0
    with open(OUT, "w", encoding="utf-8") as handle:
        handle.write(text)
    for entry in entries:
        print(f"{entry['verdict']:15} {entry['callable']:24} {entry['argument']:11} {entry['form'][:50]}  "
              f"{entry['error'][:80]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
