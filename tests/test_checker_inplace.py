"""inplace checker: which storage an augmented or item assignment writes into."""

import textwrap

from graphlint.catalogue.model import EXAMPLE_HEADER
from graphlint.config import Config
from graphlint.lint import lint_text


def findings(code: str):
    source = EXAMPLE_HEADER + textwrap.dedent(code)
    return [f for f in lint_text(source, Config()) if f.rule.family == "inplace"]


def symbols(code: str):
    return [f.rule.symbol for f in findings(code)]


def test_plain_alias_of_an_argument_is_reported():
    # Measured: `y = x; y += 1` changes the caller's x in GRAPH_MODE.
    found = findings("""
        class Net(nn.Cell):
            def construct(self, x):
                y = x
                y += 1
                return y * 2
        """)
    assert [(f.rule.symbol, f.args) for f in found] == [("augmented-assign-to-input", {"name": "y", "op": "+"})]


def test_slice_of_an_argument_is_a_new_tensor():
    # Measured: `y = x[0]; y += 1` leaves x unchanged in GRAPH_MODE.
    assert symbols("""
        class Net(nn.Cell):
            def construct(self, x):
                y = x[0]
                y += 1
                for row in x:
                    row += 1
                return y * 2
        """) == []


def test_python_numbers_and_power_are_not_reported():
    assert symbols("""
        class Net(nn.Cell):
            def construct(self, x, n: int, scale=2.0):
                n += 1
                scale *= 2
                count = 0
                count += 1
                x **= 2
                return x * n * scale * count
        """) == []


def test_helper_called_with_the_argument_is_reported_fresh_value_is_not():
    found = findings("""
        def bump(t):
            t += 1
            return t

        class Net(nn.Cell):
            def construct(self, x):
                return bump(x) * 2
        """)
    assert [f.rule.symbol for f in found] == ["augmented-assign-to-input"]
    assert "in helper `bump`" in found[0].message
    assert symbols("""
        def bump(t):
            t += 1
            return t

        class Net(nn.Cell):
            def construct(self, x):
                return bump(x * 2)
        """) == []


def test_arguments_that_are_not_tensors():
    # Container annotations, string keys and range() bounds show the argument is not a Tensor.
    assert symbols("""
        from typing import List

        class Neck(nn.Cell):
            def construct(self, features: List[Tensor], outputs, steps):
                features[0] = features[0] * 2
                outputs["pair"] = features[1]
                steps += 1
                for _ in range(steps):
                    features[1] = features[1] + 1
                return features
        """) == []


def test_constant_tensors():
    found = findings("""
        ZERO = Tensor(np.zeros((2, 3), np.float32))

        class Net(nn.Cell):
            def construct(self, x):
                a = ops.ones_like(x)
                a += x
                b = ZERO
                b += x
                c = ops.zeros_like(x)
                c += x
                d = ops.ones((2, 3), ms.float32)
                d += x
                return a + b + c + d
        """)
    assert [(f.rule.symbol, f.args["name"]) for f in found] == [
        ("augmented-assign-to-constant-tensor", "a"), ("augmented-assign-to-constant-tensor", "b")]


def test_constant_tensor_item_update_is_not_reported():
    # Item updates are functional in graph code; only `name op= ...` writes the constant in place.
    assert symbols("""
        class Net(nn.Cell):
            def construct(self, x):
                out = Tensor(np.zeros((3,), np.float32))
                out[0] += x[0, 0]
                return out
        """) == []


def test_attribute_alias():
    found = findings("""
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")
                self.mask = ops.ones((2, 3), ms.float32)

            def construct(self, x):
                w = self.w
                w -= 1
                m = self.mask
                m *= x
                first = self.w[0]
                first += 1
                self.w += 1
                return x + w + m + first
        """)
    assert [(f.rule.symbol, f.args) for f in found] == [
        ("augmented-assign-to-attribute-alias", {"name": "w", "attr": "w", "op": "-"}),
        ("augmented-assign-to-attribute-alias", {"name": "m", "attr": "mask", "op": "*"}),
    ]


def test_item_update_of_input_and_of_copies():
    found = findings("""
        class Net(nn.Cell):
            def construct(self, x, y):
                x[0] = 1.0
                y[0], z = 2.0, 3
                w = x.copy()
                w[1] += 1
                v = x * 1
                v[1] = 0.0
                return x, y, w, v, z
        """)
    assert [(f.rule.symbol, f.args) for f in found] == [
        ("item-update-of-input", {"name": "x", "op": ""}),
        ("item-update-of-input", {"name": "y", "op": ""}),
    ]


def test_finding_node_is_the_statement_for_the_fixer():
    found = findings("""
        class Net(nn.Cell):
            def construct(self, x):
                x += 1
                return x
        """)
    assert found[0].node.as_string() == "x += 1"


def test_an_argument_write_a_caller_never_reads_is_not_reported():
    """A sub-Cell (held by another Cell, no graph of its own) that writes into its argument: PYNATIVE_MODE writes
    into the caller's Tensor, graph code does not, but only a caller that reads that Tensor again after the call
    can tell. ``fbank = self.mask(fbank)`` rebinds it (SpecAugment's habit); ``y = self.mask(x)`` and then ``x``
    read again sees the difference."""
    template = """
        class Mask(nn.Cell):
            def construct(self, fbank):
                fbank[:, 0] = 0.0
                return fbank

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.mask = Mask()

            def construct(self, x):
                CALL
        """
    rebinding = template.replace("CALL", "x = self.mask(x)\n                return x")
    reading = template.replace("CALL", "y = self.mask(x)\n                return x + y")
    assert "item-update-of-input" not in symbols(rebinding)
    found = [(f.rule.symbol, f.line) for f in findings(reading)]
    line = (EXAMPLE_HEADER + textwrap.dedent(reading)).splitlines().index(" " * 8 + "fbank[:, 0] = 0.0") + 1
    assert ("item-update-of-input", line) in found, found
