"""Shared by tests/test_robustness_*.py and benchmarks/robustness.py: program strategies and the
"never crash" checks.

The property everywhere: linting any text ends with findings (or a clean result), or -- for text
that is not valid Python or cannot be analysed -- with one clean, one-line
:class:`~graphlint.analysis.source.SourceProblem`. Any other exception is a crash.
"""

from __future__ import annotations

import functools
import os
import warnings

import hypothesmith
from astroid import nodes
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from graphlint.analysis.source import SourceProblem, parse
from graphlint.analysis.tree import deep_recursion, graph_nodes
from graphlint.config import Config
from graphlint.lint import lint_text
from graphlint.session import LintSession

# -- example counts and the settings profile ---------------------------------------------------------------
DEFAULT_EXAMPLES = 30


def fuzz_examples(default: int = DEFAULT_EXAMPLES) -> int:
    """The base example count N: ``GRAPHLINT_FUZZ_EXAMPLES`` overrides it (tests run small multiples of N)."""
    value = os.environ.get("GRAPHLINT_FUZZ_EXAMPLES", "")
    try:
        return max(1, int(value)) if value.strip() else default
    except ValueError:
        return default


SUPPRESSED = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large,
              HealthCheck.large_base_example]
settings.register_profile("graphlint-robustness", deadline=None, suppress_health_check=SUPPRESSED,
                          database=None, print_blob=True)


def fuzz_settings(examples: int | None = None, **kw) -> settings:
    return settings(settings.get_profile("graphlint-robustness"), max_examples=examples or fuzz_examples(), **kw)


# -- wrapping a program so the graph-scope paths run --------------------------------------------------------
CELL_HEADER = ("import mindspore as ms\n"
               "from mindspore import nn\n"
               "class Net(nn.Cell):\n"
               "    def construct(self, x):\n")
JIT_HEADER = ("import mindspore as ms\n"
              "@ms.jit\n"
              "def step(x, y=None):\n")


def normalise_newlines(program: str) -> str:
    # The tokenizer reads "\r\n" and a lone "\r" as line breaks; indenting needs them as "\n".
    return program.replace("\r\n", "\n").replace("\r", "\n")


def indent(program: str, prefix: str) -> str:
    """Indent every line (a form feed opening a line stays first: it resets the indentation count)."""
    out = []
    for line in normalise_newlines(program).split("\n"):
        if not line.strip(" \t\f"):
            out.append(line)
            continue
        feeds = len(line) - len(line.lstrip("\f"))
        out.append(line[:feeds] + prefix + line[feeds:])
    return "\n".join(out)


def _body(program: str, prefix: str) -> str:
    body = indent(program, prefix)
    if not body.endswith("\n"):
        body += "\n"
    return body + prefix + "return x\n"


def wrap_in_cell(program: str) -> str:
    """The program's statements as the body of ``Net.construct``."""
    return CELL_HEADER + _body(program, " " * 8)


def wrap_in_jit(program: str) -> str:
    """The program's statements as the body of an ``@ms.jit`` function."""
    return JIT_HEADER + _body(program, " " * 4)


WRAPPINGS = {"module": lambda p: p, "cell": wrap_in_cell, "jit": wrap_in_jit}


# -- the checks -----------------------------------------------------------------------------------------
class Crash(AssertionError):
    """Linting raised something other than a clean SourceProblem, or the problem was not one clean line."""


def check_problem_message(message: str) -> None:
    if not message or "\n" in message or "\r" in message or "Traceback" in message:
        raise Crash(f"the problem is not one clean line: {message!r}")


EXPRESSIONS = (nodes.Name, nodes.Attribute, nodes.Call, nodes.BinOp, nodes.BoolOp, nodes.UnaryOp, nodes.Compare,
               nodes.Subscript, nodes.Tuple, nodes.List, nodes.Dict, nodes.Set, nodes.Const, nodes.IfExp,
               nodes.Lambda, nodes.ListComp, nodes.SetComp, nodes.DictComp, nodes.GeneratorExp, nodes.Starred,
               nodes.NamedExpr, nodes.JoinedStr, nodes.FormattedValue, nodes.Slice, nodes.Await, nodes.Yield,
               nodes.YieldFrom)


def analyse_deeply(text: str, path: str = "example.py") -> list:
    """What lint_text does, then every analysis query the checkers and fixers make, on every graph function:
    the value of every expression, reaching definitions, liveness, loop carries and helper summaries.
    (The rules use these lazily; querying them all catches crashes before a rule reaches them.)"""
    with deep_recursion():  # as lint_text and lint_paths do
        return _analyse_deeply(text, path)


def _analyse_deeply(text: str, path: str) -> list:
    session = LintSession(Config())
    module = parse(text, "example", path)
    info = session.add_module(module, path, text)
    analysis = session.analysis
    findings = session.findings_of(info, text)
    for finding in findings:
        _ = finding.message, finding.sort_key
    for graph in analysis.graph_functions(info):
        graph.reached_note()
        values = analysis.values(graph)
        if values is None:
            continue
        for node in graph_nodes(graph.node):
            if isinstance(node, EXPRESSIONS):
                values.value(node)
            if isinstance(node, nodes.Call):
                analysis.call_summary_for(values, node)
        cfg = values.cfg
        for loop in list(cfg.loops.values()):
            cfg.loop_modified(loop)
            cfg.loop_carried(loop)
        for element in cfg.elements:
            cfg.live_after(element)
            for name in cfg.element_uses.get(element.index, ()):
                cfg.may_be_undefined(element, name.name)
                cfg.reaching(element, name.name)
    return findings


def _keys(findings) -> list[tuple]:
    return [(f.rule.id, f.line, f.column) for f in findings]


def lint_outcome(text: str, *, deep: bool = True) -> tuple[str, object]:
    """("findings", [...]) or ("problem", "one line"); raises :class:`Crash` on anything else."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # a warning escaping the linter would be printed on stderr
            try:
                findings = lint_text(text, Config())
            except SourceProblem as exc:
                check_problem_message(str(exc))
                outcome = "problem", str(exc)
            else:
                if deep:
                    deep_findings = analyse_deeply(text)
                    if "pylint" not in text and _keys(deep_findings) != _keys(findings):
                        raise Crash(f"the same analysis run twice disagrees: {_keys(findings)} != {_keys(deep_findings)}")
                for finding in findings:
                    check_problem_message(finding.message)
                outcome = "findings", findings
        escaped = [w for w in caught if not issubclass(w.category, (ResourceWarning, ImportWarning, PendingDeprecationWarning))]
        if escaped:
            raise Crash(f"a warning escaped (it would be printed on stderr): {escaped[0].category.__name__}: "
                        f"{escaped[0].message}")
        return outcome
    except Crash:
        raise
    except Exception as exc:  # noqa: BLE001 - this is what we are looking for
        raise Crash(f"{type(exc).__name__}: {exc}") from exc


def check_outcome(text: str, *, deep: bool = True) -> tuple[str, object]:
    """:func:`lint_outcome`, plus: Python's own parser and graphlint agree on what is valid Python
    (valid code is never refused, except for nesting too deep to analyse; invalid code is never linted)."""
    kind, detail = lint_outcome(text, deep=deep)
    valid = parses(text)
    if valid and kind == "problem" and "too deeply nested" not in detail:
        raise Crash(f"valid Python refused: {detail}")
    if not valid and kind != "problem":
        raise Crash("Python rejects the text, but graphlint linted it without a problem")
    return kind, detail


def check_all_wrappings(program: str, *, deep: bool = True) -> dict[str, str]:
    """Lint the program as a module, inside ``construct`` and inside an ``@ms.jit`` function."""
    kinds = {}
    for name, wrap in WRAPPINGS.items():
        text = wrap(program)
        try:
            kinds[name], _ = check_outcome(text, deep=deep)
        except Crash as exc:
            raise Crash(f"linting the program {name}-wrapped: {exc}\n--- text ---\n{text}") from exc
    return kinds


def parses(text: str) -> bool:
    import ast

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


# -- strategies -------------------------------------------------------------------------------------------
def grammar_programs():
    """Any syntactically valid Python module (hypothesmith's grammar-based strategy)."""
    return hypothesmith.from_grammar()


def node_programs():
    """Valid modules built from libcst nodes (more realistic names and nesting, slower to generate)."""
    return hypothesmith.from_node()


def expression_programs():
    """One graph-code expression in each place an expression can be evaluated (to wrap in a graph function)."""
    contexts = ["return {e}", "if {e}:\n    x = x + 1\nelse:\n    x = x - 1", "while {e}:\n    x = x + 1", "for i in {e}:\n    x = x + i",
                "y = {e}\nreturn y", "x[{e}] = 1", "x += {e}", "assert {e}", "print({e})", "with {e}:\n    pass",
                "z = [{e} for i in range(2)]", "match {e}:\n    case [a, *b]:\n        pass\n    case _:\n        pass",
                "def inner(a={e}):\n    return a\nreturn inner(x)", "del x[{e}]", "raise ValueError({e})",
                "try:\n    pass\nexcept {e}:\n    pass"]
    return st.tuples(st.sampled_from(contexts), graph_expressions()).map(lambda t: t[0].format(e=t[1]))


def broken_programs():
    """Text that is mostly not valid Python: random text, and valid programs with a slice cut out or junk put in."""
    junk = st.sampled_from(["(", ")", "[", "]", ":", "\t", "    ", "\\", "'''", '"', "\x00", "\r", "\f", "\ufeff",
                            "def", "class", "lambda", "@", "=", "if", "else", "\n", "\u2028", "é", "\x7f", ";",
                            "yield", "await", "return", "*", "**", "async", "match", "case"])

    def mutate(program_and_edits):
        program, edits = program_and_edits
        for kind, where, length, piece in edits:
            at = where % (len(program) + 1)
            if kind == "cut":
                program = program[:at] + program[at + length:]
            else:
                program = program[:at] + piece + program[at:]
        return program

    edit = st.tuples(st.sampled_from(["cut", "insert"]), st.integers(0, 10_000), st.integers(1, 20), junk)
    return st.one_of(
        st.text(max_size=200),
        st.tuples(grammar_programs(), st.lists(edit, min_size=1, max_size=4)).map(mutate),
        st.tuples(graph_programs(), st.lists(edit, min_size=1, max_size=4)).map(mutate),
    )


# A small grammar of MindSpore-flavoured graph code: the names, calls and statements the rules look at
# (Tensor arguments, shapes, self attributes, ops, host syncs, in-place updates, helpers), in any nesting.
_LEAVES = ["x", "y", "z", "i", "n", "out", "acc", "self.w", "self.flag", "self.training", "self.layers", "self.cache",
           "self.dense", "None", "True", "False", "0", "1", "-1", "2.5", "'s'", "x.shape", "x.shape[0]", "x.ndim",
           "x.dtype", "ms.float32", "len(x)", "()", "[]", "{}", "ops.ones((2, 2), ms.float32)", "range(3)",
           "self.helper", "helper", "np.ones(3)", "ms.Tensor(1)", "G", "CONFIG['k']", "x.T", "x[0]", "x[:, 1]",
           "x[..., None]", "self.layers[0]", "ms.Parameter(1)", "ms.ops", "...", "b''", "1j", "0x10"]
_CALLEES = ["ops.relu", "ops.add", "ops.reshape", "ops.zeros_like", "ops.stop_gradient", "self.dense", "helper",
            "self.helper", "len", "print", "isinstance", "tuple", "list", "int", "float", "bool", "max", "min",
            "abs", "zip", "enumerate", "range", "x.asnumpy", "x.item", "x.sum", "x.tolist", "x.copy",
            "x.view", "x.reshape", "x.add_", "x.fill_", "getattr", "setattr", "hasattr", "type", "np.array",
            "ms.Tensor", "ms.numpy.zeros", "F.relu", "P.Add()", "self.layers[i]", "(lambda v: v)", "super().construct",
            "self.construct", "Net", "step", "ms.jit(helper)", "ops.Print()", "str", "sorted", "dict", "set", "iter",
            "next", "sum", "any", "all", "map", "filter", "reversed", "slice", "round", "divmod", "pow", "id", "hash",
            "np.exp", "np.maximum", "np.where", "np.clip", "np.concatenate", "np.max", "np.argmax", "math.sqrt",
            "math.floor", "numpy.sqrt"]
_BINOPS = ["+", "-", "*", "/", "//", "%", "@", "**", "&", "|", "^", "<<", ">>"]
_COMPARES = ["<", ">", "==", "!=", "<=", ">=", "is", "is not", "in", "not in"]
_CONDITIONS = ["x > 0", "(x > 0).any()", "x.sum() < 1", "ops.reduce_sum(x) > 0", "y is None", "x.shape[0] > 1",
               "self.training", "self.flag", "x", "not x", "i < n", "G > 0", "x > y", "(x * 2).max() > 0.5",
               "x.sum().item() > 0", "not (x.max().asnumpy() < 1.5 and y is None)", "0 < x.mean().item() <= n"]
_TARGETS = ["y", "z", "out", "acc", "i", "n", "x", "self.cache", "self.w", "x[0]", "out[i]", "x[:, 1]", "y, z",
            "(y, z)", "[y, z]", "y, *z", "self.a, self.b", "x.shape", "G", "y, (z, out)", "self.layers[0]"]


@functools.lru_cache(maxsize=None)
def graph_expressions():
    leaves = st.sampled_from(_LEAVES)

    def extend(inner):
        positional = st.lists(st.one_of(inner, inner.map(lambda a: "*" + a)), max_size=2)
        keywords = st.lists(st.one_of(inner.map(lambda a: "=" + a), inner.map(lambda a: "**" + a)), max_size=2)
        args = st.tuples(positional, keywords).map(lambda t: ", ".join(
            t[0] + [f"k{n}{a}" if a.startswith("=") else a for n, a in enumerate(t[1])]))
        return st.one_of(
            st.tuples(inner, st.sampled_from(_BINOPS), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(inner, st.sampled_from(_COMPARES), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(["not ", "-", "~", "+"]), inner).map(lambda t: f"({t[0]}{t[1]})"),
            st.tuples(st.sampled_from(_CALLEES), args).map(lambda t: f"{t[0]}({t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}:]"),
            st.tuples(inner, st.sampled_from(["shape", "dtype", "T", "asnumpy", "w", "size", "real"])).map(
                lambda t: f"({t[0]}).{t[1]}"),
            st.lists(inner, max_size=3).map(lambda items: "(" + ", ".join(items) + ",)" if items else "()"),
            st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
            st.lists(st.tuples(inner, inner), max_size=2).map(lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}"),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
            inner.map(lambda a: f"(lambda v, w=1: {a})"),
            st.tuples(inner, inner).map(lambda t: f"[{t[0]} for i in {t[1]}]"),
            st.tuples(inner, inner, inner).map(lambda t: f"{{{t[0]}: {t[1]} for i, j in {t[2]} if i}}"),
            st.tuples(inner, inner).map(lambda t: f"sum({t[0]} for i in {t[1]})"),
            inner.map(lambda a: f"(w := {a})"),
            st.sampled_from(["x", "x.shape", "self.w", "i", "len(x)", "y[0]", "x.asnumpy()"]).map(
                lambda a: f'f"{{{a}}}-{{{a}!r:>4}}"'),
        )

    return st.recursive(leaves, extend, max_leaves=6)


def _block(lines: list[str], prefix: str = "    ") -> list[str]:
    return [prefix + line for line in lines] or [prefix + "pass"]


@functools.lru_cache(maxsize=None)  # built once per (depth, in_loop): the strategy objects form a DAG, not a tree
def graph_statements(depth: int = 3, in_loop: bool = False):
    expr = graph_expressions()
    simple = st.one_of(
        st.tuples(st.sampled_from(_TARGETS), expr).map(lambda t: [f"{t[0]} = {t[1]}"]),
        st.tuples(st.sampled_from(_TARGETS[:8]), st.sampled_from(_BINOPS), expr).map(lambda t: [f"{t[0]} {t[1]}= {t[2]}"]),
        st.tuples(st.sampled_from(["y", "z", "self.cache"]), expr).map(lambda t: [f"{t[0]}: ms.Tensor = {t[1]}"]),
        expr.map(lambda e: [e]),
        expr.map(lambda e: [f"return {e}"]),
        st.just(["return"]),
        expr.map(lambda e: [f"print({e})"]),
        expr.map(lambda e: [f"assert {e}, 'message'"]),
        expr.map(lambda e: [f"raise ValueError({e})"]),
        st.sampled_from([["pass"], ["del y"], ["del self.cache"], ["global G"], ["y = z = x"],
                         ["import mindspore.ops as P"], ["from mindspore import ops as O"],
                         ["x[0] += 1"], ["self.w[0] = x"], ["y = yield x"], ["return x; y = 1"]]),
        *([st.sampled_from([["break"], ["continue"]])] if in_loop else []),
    )
    if depth <= 0:
        return simple

    def body(loop=in_loop):
        return _bodies(depth - 1, loop)

    condition = st.one_of(st.sampled_from(_CONDITIONS), expr)
    same_target = st.tuples(st.sampled_from(["y", "out", "x", "self.cache"]), expr, expr, expr)
    compound = st.one_of(
        # the shapes the branch fixers rewrite: one name set in every branch of a Tensor condition
        st.tuples(condition, condition, same_target, st.booleans()).map(
            lambda t: [f"if {t[0]}:", f"    {t[2][0]} = {t[2][1]}"]
            + ([f"elif {t[1]}:", f"    {t[2][0]} = {t[2][2]}"] if t[3] else [])
            + ["else:", f"    {t[2][0]} = {t[2][3]}"]),
        st.tuples(condition, same_target).map(
            lambda t: [f"if {t[0]}:", f"    {t[1][0]} = {t[1][1]}", f"    return {t[1][0]}", f"return {t[1][2]}"]),
        st.tuples(expr, body(), st.one_of(st.none(), body())).map(
            lambda t: [f"if {t[0]}:"] + _block(t[1]) + (["else:"] + _block(t[2]) if t[2] is not None else [])),
        st.tuples(expr, body(), expr, body(), body()).map(
            lambda t: [f"if {t[0]}:"] + _block(t[1]) + [f"elif {t[2]}:"] + _block(t[3]) + ["else:"] + _block(t[4])),
        st.tuples(expr, body(True), st.one_of(st.none(), body())).map(
            lambda t: [f"while {t[0]}:"] + _block(t[1]) + (["else:"] + _block(t[2]) if t[2] is not None else [])),
        st.tuples(st.sampled_from(["i", "y", "i, y", "(i, y)", "self.cache", "x[0]", "i, (y, z)"]),
                  expr, body(True)).map(lambda t: [f"for {t[0]} in {t[1]}:"] + _block(t[2])),
        st.tuples(body(), body(), st.one_of(st.none(), body())).map(
            lambda t: ["try:"] + _block(t[0]) + ["except (ValueError, TypeError) as e:"] + _block(t[1])
            + (["finally:"] + _block(t[2]) if t[2] is not None else [])),
        st.tuples(body(), body()).map(lambda t: ["try:"] + _block(t[0]) + ["except Exception:"] + _block(t[1])
                                      + ["else:"] + _block(["pass"])),
        st.tuples(expr, body()).map(lambda t: [f"with {t[0]} as w:"] + _block(t[1])),
        st.tuples(expr, body(), body()).map(
            lambda t: [f"match {t[0]}:", "    case 1 | 2:"] + _block(t[1], "        ")
            + ["    case (a, b) if a:"] + _block(["y = a"], "        ") + ["    case _:"] + _block(t[2], "        ")),
        st.tuples(body(False)).map(lambda t: ["def inner(a, b=1, *c, d=None, **e):"] + _block(t[0])),
        st.tuples(body(False)).map(lambda t: ["@ms.jit", "def inner_jit(a):"] + _block(t[0])),
        st.tuples(body(False)).map(lambda t: ["class Inner:", "    def method(self):"] + _block(t[0], "        ")),
    )
    return st.one_of(simple, compound)


@functools.lru_cache(maxsize=None)
def _bodies(depth: int, in_loop: bool, max_size: int = 3):
    return st.lists(graph_statements(depth, in_loop), min_size=1, max_size=max_size).map(
        lambda parts: [line for part in parts for line in part])


def graph_bodies(depth: int = 3):
    return _bodies(depth, False, 4)


@st.composite
def graph_programs(draw):
    """A module with a Cell (``__init__``, ``construct``, a helper method), a module helper called from graph
    code, an ``@ms.jit`` function and a ``jit_class``, each with a random body."""
    init = draw(st.lists(st.tuples(st.sampled_from(["w", "flag", "layers", "cache", "dense", "a", "b"]),
                                   st.sampled_from(["ms.Parameter(ms.Tensor(1.0))", "True", "None", "nn.Dense(2, 2)",
                                                    "nn.CellList([nn.ReLU()])", "[1, 2]", "(1, 2)", "ops.ones((2,))",
                                                    "Helper()", "0 if G else 1", "CONFIG['k']"])),
                         max_size=5))
    construct = draw(graph_bodies())
    helper = draw(graph_bodies(2))
    method = draw(graph_bodies(2))
    jit = draw(graph_bodies(2))
    decorator = draw(st.sampled_from(["@ms.jit", "@jit", "@ms.jit(capture_mode='ast')", "@ms.jit()", "@ms.jit_class"]))
    signature = draw(st.sampled_from(["self, x", "self, x, y=None", "self, x, *args, **kwargs", "self, x: ms.Tensor, n=3",
                                      "self, x, /, y=1, *, z=2", "x"]))
    lines = ["import math", "import numpy as np", "import numpy", "import mindspore as ms", "from mindspore import nn, ops, jit",
             "import mindspore.ops.functional as F", "from mindspore.ops import operations as P",
             "G = 1", "CONFIG = {'k': 2}", "",
             "def helper(x, y=None):"] + _block(helper) + [
             "", "class Helper:", "    pass", "",
             "class Net(nn.Cell):", "    def __init__(self):", "        super().__init__()"]
    lines += [f"        self.{name} = {value}" for name, value in init]
    lines += [f"    def construct({signature}):"] + _block(construct, "        ")
    lines += ["    def helper(self, x):"] + _block(method, "        ")
    lines += ["", "class Sub(Net):", "    def construct(self, x):", "        return super().construct(x) + helper(x)"]
    if decorator == "@ms.jit_class":
        lines += ["", decorator, "class Box:", "    def step(self, x, y=None):"] + _block(jit, "        ")
    else:
        lines += ["", decorator, "def step(x, y=None):"] + _block(jit)
    return "\n".join(lines) + "\n"
