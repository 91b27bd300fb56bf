"""Entries carry how ``jit`` captures them (issue 32, item 1): from the decorator, from a ``jit(fn, ...)`` call and
on ``construct`` of a Cell passed to ``jit(net, ...)``; the rules take the capture's severities (trace and
bytecode: profiles of their own), a mode given by a variable is reported once and checked as ``"ast"``, and the
capture travels with the scope summaries that ``--jobs`` processes share."""

import subprocess
import sys
import textwrap

import pytest

from graphlint.catalogue.model import OK, traced
from graphlint.config import Config
from graphlint.lint import lint_text
from graphlint.validate.examples import prove

PROGRAM = textwrap.dedent("""\
    import numpy as np
    import mindspore as ms
    from mindspore import nn, ops, Tensor

    MODE = "trace"


    @ms.jit(capture_mode="trace")
    def traced_fn(x):
        try:
            y = x * 2
        except ValueError:
            y = x
        return y * x.max().item()


    @ms.jit(capture_mode="bytecode")
    def bytecode_fn(x):
        try:
            y = x * 2
        except ValueError:
            y = x
        return y * x.max().item()


    def called_fn(x):
        print(x)
        return Tensor(np.tanh(x.asnumpy()))


    def strict_by_call(x):
        return Tensor(np.tanh(x.asnumpy()))


    @ms.jit(capture_mode=MODE)
    def unknown_fn(x):
        del x
        return 1


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.scale = 2.0

        def construct(self, x):
            if x.sum() > 0:
                return x * self.scale
            return x


    traced_call = ms.jit(called_fn, capture_mode="trace")
    strict_call = ms.jit(strict_by_call, fullgraph=True)
    net = Net()
    traced_net = ms.jit(net, capture_mode="trace")
    net.scale = 3.0
    """)


def test_each_entry_is_checked_with_its_capture():
    found = sorted((f.line, f.rule.id, f.severity.value) for f in lint_text(PROGRAM, Config(syntax_level="lax")))
    assert found == [
        (14, "I5701", "error"),  # traced: `.item()` frozen; the `try` (line 10) is fine under trace
        # bytecode_fn (17-23): `try` and `.item()` are fine under bytecode capture, but on Python 3.11 the `try`
        # makes PIJit run the whole function eagerly (W6405, measured)
        *([(19, "W6405", "warning")] if sys.version_info[:2] == (3, 11) else []),
        (27, "E6301", "error"), (28, "W5501", "error"), (28, "W5502", "error"),  # jit(called_fn, trace)
        (32, "W5501", "error"), (32, "W5502", "error"),  # jit(fn, fullgraph=True): STRICT at the lax level
        (35, "W6306", "warning"),  # a mode known at run time: once, at the keyword ...
        (37, "E5102", "error"),  # ... and checked as "ast"
        (47, "I5806", "error"), (48, "E6302", "error"),  # Net passed to jit(net, capture_mode="trace")
    ]


def test_the_trace_messages_say_what_freezes():
    messages = {f.rule.id: f.message for f in lint_text(PROGRAM, Config())}
    assert messages["I5806"].startswith("this `if` on a Tensor takes the branch of the first call for every later "
                                        "call")
    assert messages["I5701"].startswith("`x.max().item()` is read on the first call only")
    assert messages["E6302"].startswith("`self.scale` is read on the first call only and code outside `__init__` "
                                        "changes it")


def test_a_helper_reached_from_an_ast_and_a_traced_entry_keeps_its_ast_findings():
    program = textwrap.dedent("""\
        import mindspore as ms


        def helper(x):
            try:
                return x * 2
            except ValueError:
                return x


        @ms.jit
        def compiled(x):
            return helper(x)


        @ms.jit(capture_mode="trace")
        def traced_fn(x):
            return helper(x)
        """)
    assert [(f.line, f.rule.id) for f in lint_text(program, Config())] == [(5, "E5101")]


def test_jobs_output_matches_one_process(tmp_path):
    (tmp_path / "helpers.py").write_text(textwrap.dedent("""\
        def scaled(x):
            print(x)
            return x * x.max().item()
        """), encoding="utf-8")
    (tmp_path / "entries.py").write_text(textwrap.dedent("""\
        import mindspore as ms
        from helpers import scaled


        @ms.jit(capture_mode="trace")
        def traced_fn(x):
            if x.sum() > 0:
                return scaled(x)
            return x
        """), encoding="utf-8")
    (tmp_path / "ast_entry.py").write_text(textwrap.dedent("""\
        import mindspore as ms


        @ms.jit(capture_mode="trace", fullgraph=True)
        def other(x):
            return x.max().item()
        """), encoding="utf-8")
    outputs = []
    for jobs in ("1", "2"):
        completed = subprocess.run(
            [sys.executable, "-m", "graphlint.cli", "--no-cache", "--jobs", jobs, "--output-format", "concise",
             "--exit-zero", str(tmp_path)], capture_output=True, text=True, timeout=300)
        outputs.append(completed.stdout)
    assert outputs[0] == outputs[1]
    lines = [line.split(" ")[0] + " " + line.split(" ")[1] for line in outputs[0].splitlines() if ": " in line
             and line.startswith(str(tmp_path))]
    assert [line.replace(str(tmp_path) + "/", "") for line in lines] == [
        "ast_entry.py:6:12: I5701", "entries.py:7:5: I5806", "helpers.py:2:5: E6301", "helpers.py:3:16: I5701"]


# Statements the graph parser rejects, but a trace runs eagerly on its first call: measured, they run and match
# PYNATIVE on two different inputs, and graphlint reports nothing on them.
AST_ONLY_SYNTAX = traced("""
    @ms.jit(capture_mode="trace")
    def fn(x):
        try:
            y = ops.exp(x)
        except RuntimeError:
            y = x
        squared = y * y
        del y
        with open(__file__, encoding="utf-8"):
            total = (doubled := squared * 2).sum()
        seen = {1, 2}

        def halve(v):
            return v / 2
        return {"out": halve(doubled) + total + len(seen)}
    """, trace=OK)


def test_ast_only_syntax_rules_stay_quiet_under_trace():
    assert lint_text(AST_ONLY_SYNTAX.source, Config()) == []


@pytest.mark.compile
def test_ast_only_syntax_runs_traced_as_in_pynative():
    verdict = prove(AST_ONLY_SYNTAX)
    assert verdict.holds and verdict.trace == OK, verdict.problems
