"""`graphlint explain-error` names the rule behind a MindSpore compile error, from the installed command.
(tests/test_examples_compile.py checks it on every error message the examples' compile runs produce.)"""

import os
import subprocess
import sys
import textwrap

from graphlint.explain_error import explain
from tests.support import BROKEN_CELL, ROOT, write


def run_cli(*args, input=None):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "graphlint.cli", *args], env=env, input=input,
                          capture_output=True, text=True, timeout=300)


def _log(path, line_span="7~10"):
    return textwrap.dedent(f"""\
        Traceback (most recent call last):
          File "train.py", line 12, in <module>
        RuntimeError: Unsupported statement 'Try'.
        More details please refer to syntax support at https://www.mindspore.cn

        ----------------------------------------------------
        - The Traceback of Net Construct Code:
        ----------------------------------------------------
        # In file {path}:6~11, 4~16
            def construct(self, x):
            ^

        # In file {path}:{line_span}, 8~17
                try:
        """)


def test_names_the_rule_reported_at_the_users_line(tmp_path):
    model = write(tmp_path, "net.py", BROKEN_CELL)
    log = write(tmp_path, "error.log", _log(model))
    done = run_cli("explain-error", log)
    assert done.returncode == 0, done.stderr
    assert f"graphlint reports it there: {model}:7:9: E5101 try-in-graph" in done.stdout
    assert "fix: Remove the `try`" in done.stdout


def test_reads_standard_input_and_names_rules_without_the_file(tmp_path):
    done = run_cli("explain-error", "-", input=_log(str(tmp_path / "gone.py")))
    assert done.returncode == 0
    assert "predicted by: E5101 try-in-graph" in done.stdout


def test_errors_no_rule_predicts_and_bad_input():
    assert run_cli("explain-error", "-", input="nothing to see").returncode == 2
    unpredicted = run_cli("explain-error", "-", input="TypeError: For 'JitContext', the property 'phase' must be "
                                                        "str type, but got type int.")
    assert unpredicted.returncode == 1 and "no graphlint rule predicts it" in unpredicted.stdout
    missing = run_cli("explain-error", "/no/such/log")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "Traceback" not in missing.stderr


def test_the_message_line_takes_precedence_over_the_traceback():
    log = ("UnboundLocalError: The local variable 'y' is not defined in false branch, but defined in true branch.\n"
           "In file /x/net.py:8\n        y = x * 2\n\n- The Traceback of Net Construct Code:\n"
           "# In file /x/net.py:9, 15~16\n        return y\n")
    result = explain(log, source=None)
    assert result.key == "parse.variable_defined_in_one_branch"
    assert (result.location.path, result.location.line) == ("/x/net.py", 8)
    assert result.rules[0].symbol == "variable-defined-in-one-branch"


def test_a_message_only_the_rules_quote_without_a_traceback():
    # Raised from MindSpore's C++ code, so not in the table read from its Python sources; no traceback either.
    source = textwrap.dedent("""\
        from mindspore import nn, ops


        class Net(nn.Cell):
            def construct(self, x):
                scale = x.sum()
                return ops.Map()(lambda t: t * scale, (x, x))[0]
        """)
    result = explain("RuntimeError: The Map operator don't support Closure with free variable yet.", source=source)
    assert result.message == "RuntimeError: The Map operator don't support Closure with free variable yet."
    assert [r.symbol for r in result.rules][:1] == ["map-closure"]
    assert [(f.rule.symbol, f.line) for f in result.reported] == [("map-closure", 7)]
