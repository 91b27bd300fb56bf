"""Scaling: how lint time grows with the size of pathological graph code.

Generates, for each shape below, an ``nn.Cell`` whose ``construct`` (or helpers) has
size N and 4N -- long chains of calls, subscripts, attributes and operators, a long
``if/elif`` chain on a Tensor condition, thousands of statements, many sequential Tensor
``if``s and ``while``s, deep ``if`` nesting, long boolean conditions, wide tuples, chains
of helpers -- lints each text in this process (``lint_text``, best of ``--repeat`` runs)
and prints shape, N, time(N), time(4N) and their ratio: about 4 for linear growth, 16 for
quadratic. Parsing by astroid is included, so the ratio shows the whole cost a user pays.
The ratios stay well above 4 where the analysis is inherently bound by the number of
definitions reaching each use (a name reassigned under each of N sequential conditions).

Run: ``python benchmarks/scaling.py [--shape NAME ...] [--scale F] [--repeat R]`` from the
repository root (about 30 seconds on one core). ``--profile NAME`` prints a cProfile of
the 4N input of one shape instead.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from graphlint.lint import lint_text  # noqa: E402

HEADER = "import mindspore as ms\nfrom mindspore import nn, ops\n\n\n"


def _cell(body_lines, helpers="") -> str:
    body = "".join(f"        {line}\n" for line in body_lines)
    return f"{HEADER}{helpers}class Net(nn.Cell):\n    def construct(self, x):\n{body}"


def chained_methods(n: int) -> str:
    """``y = x.abs().abs()....`` with n links."""
    return _cell(["y = x" + ".abs()" * n, "return y"])


def nested_calls(n: int) -> str:
    """``ops.add(ops.add(...(x, 1)..., 1), 1)`` nested n deep (the tokenizer allows < 200)."""
    return _cell(["y = " + "ops.add(" * n + "x" + ", 1)" * n, "return y"])


def subscript_chain(n: int) -> str:
    """``y = x[0][0]...`` with n subscripts."""
    return _cell(["y = x" + "[0]" * n, "return y"])


def attribute_chain(n: int) -> str:
    """``y = self.a.a....`` with n attributes."""
    return _cell(["y = self" + ".a" * n, "return x"])


def string_concat(n: int) -> str:
    """``s = 'a' + 'b' + ...`` with n strings (a left-nested BinOp n deep)."""
    return _cell(["s = 'a'" + " + 'b'" * n, "return x"])


def conditional_chain(n: int) -> str:
    """``y = x + 0 if x is None else x + 1 if x is None else ...``: n conditional expressions nested."""
    return _cell(["y = " + "".join(f"x + {i} if x is None else " for i in range(n)) + "x", "return y"])


def global_reads(n: int) -> str:
    """``y = x + G + G + ...`` reading a module-level variable n times."""
    return "G = 2\n" + _cell(["y = x" + " + G" * n, "return y"])


def long_binop(n: int) -> str:
    """``y = x + x * 1 + x * 2 + ...`` with n terms (a left-nested BinOp n deep)."""
    return _cell(["y = x" + "".join(f" + x * {i}" for i in range(n)), "return y"])


def elif_chain(n: int) -> str:
    """``if x.sum() > 0: y = x`` followed by n ``elif x.sum() > i: y = x + i``."""
    lines = ["if x.sum() > 0:", "    y = x"]
    for i in range(1, n + 1):
        lines += [f"elif x.sum() > {i}:", f"    y = x + {i}"]
    lines += ["else:", "    y = x - 1", "return y"]
    return _cell(lines)


def elif_returns(n: int) -> str:
    """An ``if x.sum() > 0`` / n ``elif`` chain whose every branch returns."""
    lines = ["if x.sum() > 0:", "    return x"]
    for i in range(1, n + 1):
        lines += [f"elif x.sum() > {i}:", f"    return x + {i}"]
    return _cell(lines + ["return x - 1"])


def straight_body(n: int) -> str:
    """n assignments ``v_i = x * i`` then a sum of all of them."""
    lines = [f"v_{i} = x * {i}" for i in range(n)]
    lines.append("return " + " + ".join(f"v_{i}" for i in range(0, n, max(1, n // 50))))
    return _cell(lines)


def reassigned_body(n: int) -> str:
    """n statements ``x = x + i`` rebinding one name."""
    return _cell([f"x = x + {i}" for i in range(n)] + ["return x"])


def sequential_ifs(n: int) -> str:
    """n ``if x.sum() > i: y = y + i`` one after the other."""
    lines = ["y = x"]
    for i in range(n):
        lines += [f"if x.sum() > {i}:", f"    y = y + {i}"]
    return _cell(lines + ["return y"])


def sequential_ifs_many_names(n: int) -> str:
    """n Tensor ``if``s, each defining a fresh name in both branches; all read at the end."""
    lines = []
    for i in range(n):
        lines += [f"if x.sum() > {i}:", f"    v_{i} = x + {i}", "else:", f"    v_{i} = x - {i}"]
    lines.append("return " + " + ".join(f"v_{i}" for i in range(n)))
    return _cell(lines)


def nested_ifs(n: int) -> str:
    """n ``if x.sum() > i:`` nested inside each other (Python allows < 100 indentation levels)."""
    lines = ["y = x"]
    for i in range(n):
        lines += ["    " * i + f"if x.sum() > {i}:", "    " * (i + 1) + f"y = y + {i}"]
    return _cell(lines + ["return y"])


def bool_chain(n: int) -> str:
    """``if x.sum() > 0 and x.sum() > 1 and ...`` with n operands."""
    test = " and ".join(f"x.sum() > {i}" for i in range(n))
    return _cell([f"if {test}:", "    x = x + 1", "return x"])


def wide_tuple(n: int) -> str:
    """A tuple of n Tensors built, unpacked and returned under a Tensor condition."""
    items = ", ".join(f"x + {i}" for i in range(n))
    names = ", ".join(f"v_{i}" for i in range(n))
    return _cell([f"t = ({items})", f"{names} = t", "if x.sum() > 0:", f"    t = ({names})", "return t"])


def attribute_writes(n: int) -> str:
    """n ``self.a_i = x + i`` in construct, none set in ``__init__``."""
    return _cell([f"self.a_{i} = x + {i}" for i in range(n)] + ["return x"])


def item_updates(n: int) -> str:
    """n ``x[i] = i`` on the Tensor argument ``x``."""
    return _cell([f"x[{i}] = {i}" for i in range(n)] + ["return x"])


def while_loops(n: int) -> str:
    """n Tensor ``while`` loops one after the other, each carrying ``x``."""
    lines = []
    for i in range(n):
        lines += [f"while x.sum() < {i}:", "    x = x + 1"]
    return _cell(lines + ["return x"])


def helper_chain(n: int) -> str:
    """n module-level helpers, each calling the previous one; construct calls the last."""
    helpers = "def helper_0(x):\n    return x + 1\n\n\n"
    for i in range(1, n):
        helpers += f"def helper_{i}(x):\n    if x.sum() > {i}:\n        x = x * 2\n    return helper_{i - 1}(x) + {i}\n\n\n"
    return _cell([f"return helper_{n - 1}(x)"], helpers)


def helper_fan(n: int) -> str:
    """n helpers each calling all of the previous four; construct calls each of them."""
    helpers = ""
    for i in range(n):
        callees = " + ".join(f"helper_{j}(x)" for j in range(max(0, i - 4), i)) or "x"
        helpers += f"def helper_{i}(x):\n    return {callees}\n\n\n"
    return _cell([f"y_{i} = helper_{i}(x)" for i in range(n)] + ["return y_0"], helpers)


def loop_body(n: int) -> str:
    """A ``for`` loop whose body has n statements carrying n names."""
    lines = [f"v_{i} = x" for i in range(n)] + ["for i in range(3):"]
    lines += [f"    v_{i} = v_{i} + v_{(i + 1) % n}" for i in range(n)]
    return _cell(lines + ["return " + " + ".join(f"v_{i}" for i in range(0, n, max(1, n // 50)))])


# shape -> (generator, N); 4N is linted too.
SHAPES = {
    "chained_methods": (chained_methods, 500),
    "nested_calls": (nested_calls, 45),
    "subscript_chain": (subscript_chain, 500),
    "attribute_chain": (attribute_chain, 500),
    "string_concat": (string_concat, 500),
    "conditional_chain": (conditional_chain, 200),
    "global_reads": (global_reads, 500),
    "long_binop": (long_binop, 500),
    "elif_chain": (elif_chain, 250),
    "elif_returns": (elif_returns, 250),
    "straight_body": (straight_body, 500),
    "reassigned_body": (reassigned_body, 500),
    "sequential_ifs": (sequential_ifs, 250),
    "sequential_ifs_many_names": (sequential_ifs_many_names, 250),
    "nested_ifs": (nested_ifs, 20),
    "bool_chain": (bool_chain, 250),
    "wide_tuple": (wide_tuple, 300),
    "attribute_writes": (attribute_writes, 300),
    "item_updates": (item_updates, 250),
    "while_loops": (while_loops, 250),
    "helper_chain": (helper_chain, 100),
    "helper_fan": (helper_fan, 100),
    "loop_body": (loop_body, 250),
}


def seconds(text: str, repeat: int = 3) -> float:
    """Best wall time of ``repeat`` lints of ``text`` (the best run is the least disturbed)."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        lint_text(text)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", action="append", choices=sorted(SHAPES), help="only these shapes")
    parser.add_argument("--profile", choices=sorted(SHAPES), help="cProfile the 4N input of one shape")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every N (default 1)")
    parser.add_argument("--repeat", type=int, default=3, help="lints per size; the best time counts (default 3)")
    args = parser.parse_args()
    if args.profile:
        make, n = SHAPES[args.profile]
        text = make(int(4 * n * args.scale))
        profiler = cProfile.Profile()
        profiler.runcall(lint_text, text)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
        return 0
    print(f"{'shape':28} {'N':>6} {'time(N) s':>10} {'time(4N) s':>11} {'ratio':>6}")
    for name in args.shape or SHAPES:
        make, n = SHAPES[name]
        n = max(1, int(n * args.scale))
        small, large = seconds(make(n), args.repeat), seconds(make(4 * n), args.repeat)
        print(f"{name:28} {n:6d} {small:10.3f} {large:11.3f} {large / small:6.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
