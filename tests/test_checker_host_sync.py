"""host_sync checker: Tensor-to-Python conversions, beyond the catalogue examples."""

import textwrap

from graphlint.catalogue.model import EXAMPLE_HEADER
from graphlint.config import Config
from graphlint.lint import lint_text


def findings(code: str):
    source = EXAMPLE_HEADER + textwrap.dedent(code)
    return [f for f in lint_text(source, Config()) if f.rule.family == "host_sync"]


def symbols(code: str):
    return [f.rule.symbol for f in findings(code)]


def test_tensor_methods_and_arguments_are_reported():
    found = findings("""
        class Net(nn.Cell):
            def construct(self, x, mask):
                a = x.max().item()
                b = x.min(axis=0).tolist()
                c = bool(mask)
                d = int(ops.reduce_max(x))
                return a, b, c, d
        """)
    assert [f.rule.symbol for f in found] == [
        "tensor-item-in-graph", "tensor-tolist-in-graph", "tensor-to-python-scalar-in-graph",
        "tensor-to-python-scalar-in-graph"]
    assert found[0].args == {"expr": "x.max()"}
    assert found[2].args == {"func": "bool", "expr": "mask"}


def test_python_numbers_are_not_reported():
    assert symbols("""
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.scale = 0.5

            def construct(self, x, n: int, k=3):
                a = int(x.shape[0]) + int(len(x.shape)) + int(x.ndim)
                b = float(self.scale) + float(n) + int(k)
                return x * a * b
        """) == []


def test_shadowed_builtin_is_not_reported():
    assert symbols("""
        def float(value):
            return value

        class Net(nn.Cell):
            def construct(self, x):
                int = ops.cast
                return float(x.sum()), int(x, ms.int32)
        """) == []


def test_tensor_max_with_dim_is_a_tuple_and_its_item_is_not_guessed():
    # x.max(dim=0) is (values, indices) in graph code too: `.item()` on the pair is no Tensor conversion. x.max(0)
    # is only the values in graph code (measured with MindSpore 2.10; PYNATIVE gives the pair): a Tensor.
    source = """
        class Net(nn.Cell):
            def construct(self, x):
                pair = x.max(dim=0)
                values = x.max(0)
                return pair.item(), values.item()
        """
    found = findings(source)
    lines = (EXAMPLE_HEADER + textwrap.dedent(source)).splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "return pair.item(), values.item()" in text)
    column = lines[line - 1].index("values.item()") + 1  # (columns count from 1)
    assert [(f.rule.symbol, f.line, f.column) for f in found] == [("tensor-item-in-graph", line, column)]


def test_helper_reached_from_construct_is_reported_with_note():
    found = findings("""
        def largest(t):
            return t.max().item()

        class Net(nn.Cell):
            def construct(self, x):
                return x / largest(x)
        """)
    assert [f.rule.symbol for f in found] == ["tensor-item-in-graph"]
    assert "in helper `largest`" in found[0].message


def test_outside_graph_code_is_not_reported():
    assert symbols("""
        class Net(nn.Cell):
            def __init__(self, x):
                super().__init__()
                self.n = int(x.max())
                self.values = x.tolist()

            def construct(self, x):
                return x * self.n

        def report(net, x):
            return net(x).sum().item()
        """) == []
