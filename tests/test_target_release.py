"""`target-mindspore`: rules state the releases they apply to (measured with 2.7.2, 2.8.0 and 2.10)."""

import textwrap

import pytest

from graphlint.catalogue import lookup
from graphlint.catalogue.model import EXAMPLE_HEADER
from graphlint.config import Config, ConfigError, from_table
from tests.support import run_cli, write

INPLACE = EXAMPLE_HEADER + textwrap.dedent("""
    class Net(nn.Cell):
        def construct(self, x):
            x += 1
            return x
    """)
SIZED = EXAMPLE_HEADER + textwrap.dedent("""
    class Net(nn.Cell):
        def construct(self, x):
            n = (x.sum() > 0).astype(ms.int32) + 2
            return ops.zeros((n, 3))
    """)


def _found(text, target):
    from graphlint.lint import lint_text

    return [(f.line, f.rule.symbol, f.severity.value) for f in lint_text(text, Config(target_mindspore=target))]


def test_inplace_rules_start_with_2_8():
    assert (7, "augmented-assign-to-input", "warning") in _found(INPLACE, "2.10")
    assert (7, "augmented-assign-to-input", "warning") in _found(INPLACE, "2.8")
    assert not [f for f in _found(INPLACE, "2.7") if f[1] == "augmented-assign-to-input"]
    assert lookup("augmented-assign-to-input").releases == "MindSpore 2.8 and later"


def test_tensor_sized_creation_is_an_error_before_2_8():
    assert (8, "tensor-valued-size", "warning") in _found(SIZED, "2.10")
    assert (8, "tensor-valued-size", "error") in _found(SIZED, "2.7")


def test_default_target_and_bad_values():
    assert Config().target >= (2, 7)
    assert Config(target_mindspore="2.7.2").target == (2, 7)
    with pytest.raises(ConfigError, match="target-mindspore"):
        Config(target_mindspore="latest")
    assert from_table({"target-mindspore": "2.8"}, Config(), "pyproject.toml").target == (2, 8)


def test_the_cli_takes_the_target(tmp_path):
    path = write(tmp_path, "net.py", INPLACE)
    assert "augmented-assign-to-input" in run_cli("--output-format", "concise", path).stdout
    old = run_cli("--output-format", "concise", "--target-mindspore", "2.7", path)
    assert "augmented-assign-to-input" not in old.stdout
    bad = run_cli("--target-mindspore", "two", path)
    assert bad.returncode == 2 and "target-mindspore" in bad.stderr
