"""`graphlint explain-error` names the rule behind a MindSpore compile error, from the installed command.
(tests/test_examples_compile.py checks it on every error message the examples' compile runs produce.)"""

import ast
import os
import re
import subprocess
import sys
import textwrap

import pytest

from graphlint.analysis.generated import error_inventory
from graphlint.explain_error import explain, render
from tests.support import BROKEN_CELL, ROOT, write

INVENTORY = error_inventory.INVENTORY
MIRROR = os.environ.get("MS_SOURCE_MIRROR", "/work/.mirror/mindspore-ai+mindspore_test/repo")


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


# -- the inventory of MindSpore's frontend error sites (scripts/error_inventory.py) ----------------------------------

def _message(entry):
    """A message as MindSpore would print it: the template with plausible values (a name where it is quoted)."""
    text = re.sub(r"'\{\}'", "'x'", entry["template"])
    text = text.replace("{}", "2")
    return f"{entry['exception']}: {text}"


def _of_class(name):
    return [pytest.param(key, id=key) for key, entry in INVENTORY.items() if entry["class"] == name]


@pytest.mark.parametrize("key", _of_class("rule"))
def test_rule_entries_name_their_rules(key):
    entry = INVENTORY[key]
    result = explain(_message(entry))
    named = [rule.id for rule in result.rules]
    assert set(entry["rules"]) <= set(named), (key, result.key, named)
    assert result.kind == "rule"


@pytest.mark.parametrize("key", [key for key, entry in INVENTORY.items() if entry["class"] != "rule"])
def test_every_other_entry_is_recognised_with_its_class(key):
    entry = INVENTORY[key]
    result = explain(_message(entry))
    assert result.kind == entry["class"], (key, result.key)
    shown = render(result)
    assert "no MindSpore compile error found" not in shown
    if result.key in INVENTORY:  # not a message the older table holds with its own note
        assert f"({entry['class']}: " in shown and INVENTORY[result.key]["reason"] in shown


def test_every_entry_is_classified_and_the_counts_add_up():
    assert set(error_inventory.CLASSES) == {"rule", "value-dependent", "device", "internal", "no-rule"}
    counted = {}
    for key, entry in INVENTORY.items():
        assert entry["class"] in error_inventory.CLASSES, key
        assert ("rules" in entry) == (entry["class"] == "rule"), key
        assert entry.get("rules") or len(entry.get("reason", "")) <= 120, key
        assert re.search(entry["regex"], _message(entry)), key
        counted[entry["class"]] = counted.get(entry["class"], 0) + 1
    assert counted == error_inventory.COUNTS


@pytest.mark.parametrize("message, kind, reason", [
    ("RuntimeError: Can not get size for dynamic length sequence AbstractList{dynamic_len: true}",
     "value-dependent", "length is only known at run time"),
    ("TypeError: For ListAppend, the mutable list existing item abstract 'AbstractTensor(shape: (2))' is not same "
     "with the new added item abstract 'AbstractTensor(shape: (3, 3))'.", "value-dependent", "mutable"),
    ("ValueError: For primitive[GatherNd], the In GatherNd, the input of indices data must be greater than or equal "
     "to 3, but got 2.", "value-dependent", "GatherNd"),
    ("RuntimeError: For 'GatherNd', the indices[0]: [const vector]{5, 1}, does not index into input_shape: "
     "[const vector]{3, 4}.", "value-dependent", "out of range"),
])
def test_messages_no_rule_predicts_say_their_class_and_why(message, kind, reason):
    result = explain(message)
    assert result.kind == kind and result.rules == []
    shown = render(result)
    assert "no MindSpore compile error found" not in shown
    assert f"no graphlint rule predicts it ({kind}: " in shown and reason in shown


def test_a_tuple_appended_to_a_list_of_run_time_length_is_named_by_the_rule_that_predicts_it():
    """ListAppend refusing a tuple item was classed value-dependent; E5808's example of a tuple appended under a
    Tensor `if` produces it (measured), so explain-error names that rule."""
    result = explain("TypeError: The prim 'ListAppend', the input_data must be list and target must be scalar or "
                     "tensor, but got \nAbstractList{dynamic_len_element_abs: AbstractTensor(shape: (2)), dynamic_len:1, "
                     "is dyn arg:0}\n target is \nAbstractTuple{element[0]: AbstractTensor(shape: (2)), dynamic_len:0, "
                     "is dyn arg:0}")
    assert result.kind == "rule" and [rule.id for rule in result.rules] == ["E5808"], result


@pytest.mark.parametrize("message", [
    "TypeError: For 'LSTM', the 'hx' must be Tuple, but got Tensor",
    "TypeError: For 'LSTM', the 'hx' must be '<class 'mindspore._c_expression.typing.Tuple'>', "
    "but got 'Tensor[Float32]'",
])
def test_the_lstm_state_message_names_its_rule(message):
    result = explain(message)
    assert [rule.id for rule in result.rules] == ["E5211"]
    assert "fix: Keep the state in a local variable" in render(result)


def test_the_cli_names_the_class_of_a_message_no_rule_predicts():
    done = run_cli("explain-error", "-", input="RuntimeError: Can not get size for dynamic length sequence x\n")
    assert done.returncode == 1, done.stderr
    assert "value-dependent" in done.stdout
    assert ".cc" not in done.stdout  # the log names no source file of MindSpore: none is made up


def test_a_raise_quoted_in_a_python_traceback_is_not_the_message():
    log = textwrap.dedent("""\
        Traceback (most recent call last):
          File "/venv/lib/python3.11/site-packages/mindspore/_extends/parse/standard_method.py", line 1860, in searchsorted
            raise ValueError(f"For 'Tensor.searchsorted', the argument 'side' should be one of in ['left', 'right'], but got {side}.")
        ValueError: For 'Tensor.searchsorted', the argument 'side' should be one of in ['left', 'right'], but got middle.
        """)
    result = explain(log)
    assert result.message.startswith("ValueError: For 'Tensor.searchsorted'"), result.message
    assert result.kind == "value-dependent"


def test_a_strict_tensor_error_points_at_the_users_line_not_at_tensor_py(tmp_path):
    model = write(tmp_path, "model.py", textwrap.dedent("""\
        import mindspore as ms
        from mindspore import nn, Tensor


        class Net(nn.Cell):
            def construct(self, x):
                total = x.sum()
                return x / Tensor(total)
        """))
    tensor_py = "/venv/lib/python3.11/site-packages/mindspore/common/tensor.py"
    log = textwrap.dedent(f"""\
        ValueError: When handling script 'Tensor(input_data, dtype, shape, init, const_arg, device) in graph mode', \
        the inputs should be constant, but found variable 'input_data' to be nonconstant. Try to set \
        jit_syntax_level to LAX.

        ----------------------------------------------------
        - C++ Call Stack: (For framework developers)
        ----------------------------------------------------
        mindspore/ccsrc/frontend/jit/ps/static_analysis/prim.cc:3098 CheckInterpretInput

        ----------------------------------------------------
        - The Traceback of Net Construct Code:
        ----------------------------------------------------
        # 0 In file {model}:8, 19~32
                return x / Tensor(total)
                           ^~~~~~~~~~~~~
        # 1 In file {tensor_py}:283, 11~68
            return Tensor(input_data, dtype, shape, init, const_arg, device)  # @jit.typing: () -> tensor_type[{{dtype}}]
                   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
        """)
    result = explain(log)
    assert (result.location.path, result.location.line) == (model, 8)
    assert [(f.rule.symbol, f.line) for f in result.reported][:1] == [("tensor-constructor-on-tensor", 8)]
    shown = render(result)
    assert f"at {model}:8" in shown and "tensor.py" not in shown


def test_the_inventory_is_literal_data_and_imports_no_mindspore():
    path = os.path.join(ROOT, "graphlint", "analysis", "generated", "error_inventory.py")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert re.match(r"# generated by scripts/error_inventory\.py from MindSpore \d+\.\d+\.\d+ .*; do not edit\n",
                    text)
    for node in ast.parse(text).body[1:]:
        assert isinstance(node, ast.Assign), node.lineno
        ast.literal_eval(node.value)
    code = ("import sys, graphlint.analysis.generated.error_inventory\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'mindspore'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


def test_the_inventory_matches_the_mindspore_source_mirror():
    """Re-read the error sites from the mirror of MindSpore's source; CI has none (the committed file ships)."""
    if not os.path.isdir(MIRROR):
        pytest.skip(f"no MindSpore source mirror at {MIRROR} (set MS_SOURCE_MIRROR)")
    done = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "error_inventory.py"), "--check",
                           "--mirror", MIRROR], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, "the error inventory is stale:\n" + done.stdout + done.stderr[-3000:]


# Logs MindSpore 2.10 printed compiling the model beside each (`python <model>.py`: the error from its first line,
# the model's path replaced by MODEL_PATH).
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "explain_error")


def _real_log(tmp_path, name):
    model = tmp_path / f"{name}.py"
    with open(os.path.join(FIXTURES, f"{name}.py"), encoding="utf-8") as handle:
        model.write_text(handle.read())
    with open(os.path.join(FIXTURES, f"{name}.log"), encoding="utf-8") as handle:
        log = handle.read().replace("MODEL_PATH", str(model))
    return str(model), write(tmp_path, f"{name}.log", log)


def test_where_mindspore_raised_it_comes_from_the_log(tmp_path):
    model, log = _real_log(tmp_path, "try_statement")
    done = run_cli("explain-error", log)
    assert done.returncode == 0, done.stderr
    assert "  raised by MindSpore's mindspore/ccsrc/frontend/jit/ps/parse/parse.cc:999 (ParseStatement)\n" in done.stdout
    assert "pipeline/jit" not in done.stdout  # where an older MindSpore source had parse.cc
    assert f"graphlint reports it there: {model}:10:9: E5101 try-in-graph" in done.stdout


def test_a_log_without_a_call_stack_names_no_source_file(tmp_path):
    done = run_cli("explain-error", "-", input=_log(str(tmp_path / "gone.py")))
    assert done.returncode == 0
    assert "raised by" not in done.stdout and ".cc" not in done.stdout


def test_a_join_in_an_if_test_names_the_boolop_rule(tmp_path):
    model, log = _real_log(tmp_path, "and_in_if")
    done = run_cli("explain-error", log)
    assert done.returncode == 0, done.stderr
    assert "MindSpore: Cannot join the return values of different branches" in done.stdout
    assert "  raised by MindSpore's mindspore/core/abstract/abstract_value.cc:598 (ThrowException)\n" in done.stdout
    assert f"graphlint reports it there: {model}:10:12: E5807 boolop-joins-different-kinds `and` on a Tensor " \
           "and a bool" in done.stdout
    assert "more: graphlint --explain boolop-joins-different-kinds" in done.stdout
    assert "I5806" not in done.stdout
