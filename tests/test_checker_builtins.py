"""Builtins checker: `reversed(...)` cases beyond the catalogue examples (lint only; each behaviour below was
measured with MindSpore 2.10, lax and STRICT)."""

from tests.support import family_helpers

findings, symbols, line_of = family_helpers("builtins")


def reports(source):
    return sorted((f.line, f.rule.symbol) for f in findings(source)
                  if f.rule.symbol in ("builtin-falls-back", "reversed-iteration-breaks", "reversed-cell-sequence"))


def test_reversed_of_constants_and_top_level_list_arguments_is_not_reported():
    # All compile at both levels: constants, an attribute list of constants, a shape bound to a name first, and a
    # list argument of the top graph (a constant there; the analysis cannot tell it from a Tensor argument).
    source = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.sizes = [1, 2, 3]
                self.weights = [Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32))]

            def construct(self, x, items):
                n = x.shape[0]
                out = x
                for i in reversed(range(n)):
                    out = out + x[i]
                for s in reversed(self.sizes):
                    out = out * s
                for w in reversed(self.weights):
                    out = out + w
                for t in reversed(items):
                    out = out + t
                return out + ops.stack([x * k for k in reversed([1, 2, 3])])
        """
    assert reports(source) == []


def test_reversed_in_a_helper_reads_the_list_its_caller_built():
    # STRICT: "the inputs should be constant, but found variable 'items'"; lax compiles (the body only computes).
    source = """
        class Net(nn.Cell):
            def combine(self, items):
                out = items[0]
                for t in reversed(items):
                    out = out * 10 + t
                return out

            def construct(self, x):
                return self.combine([x, x * 2])
        """
    assert reports(source) == [(line_of(source, "for t in reversed(items)"), "builtin-falls-back")]


def test_loops_that_grow_an_outer_container_break_at_the_lax_level():
    # lax: `+=` and `outs = outs + (...,)` leave the container empty ("cannot get item by index from an empty
    # sequence"), `extend` of it fails; a list made inside the body is fine (only STRICT rejects the reversed).
    source = """
        class Net(nn.Cell):
            def construct(self, x):
                items = [x, x * 2, x * 3]
                grown = []
                for t in reversed(items):
                    grown += [t + 1]
                pairs = ()
                for t in reversed(items):
                    pairs = pairs + (t,)
                more = [x]
                for t in reversed(items):
                    more.extend([t])
                out = x
                for t in reversed(items):
                    local = []
                    local.append(t * 2)
                    out = out + local[0]
                return grown[0] + pairs[0] + more[-1] + out
        """
    first = line_of(source, "for t in reversed(items)")
    assert reports(source) == [(first, "reversed-iteration-breaks"), (first + 3, "reversed-iteration-breaks"),
                               (first + 6, "reversed-iteration-breaks"), (first + 9, "builtin-falls-back")]


def test_reversed_list_of_cells_attribute():
    # lax: "Unsupported element type[unknown] to set element data type for KernelTensor" when run; STRICT rejects
    # it. The same list sliced with [::-1] compiles.
    source = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.layers = [nn.ReLU(), nn.Tanh()]

            def construct(self, x):
                for layer in self.layers[::-1]:
                    x = layer(x)
                backwards = list(reversed(self.layers))
                return backwards[0](x)
        """
    found = [f for f in findings(source) if f.rule.symbol == "reversed-cell-sequence"]
    assert [(f.line, f.args["what"]) for f in found] == [(line_of(source, "list(reversed("), "a list of Cells")]
