"""Dynamic-shape checker: tricky positives and negatives beyond the catalogue examples (lint only)."""


from graphlint.lint import lint_text  # noqa: F401
from tests.support import family_helpers

findings, symbols, line_of = family_helpers("dynamic_shape")


# -- boolean masks ---------------------------------------------------------------------------
def test_boolean_mask_forms():
    source = """
        class Net(nn.Cell):
            def construct(self, x, y):
                keep = ops.logical_and(x > 0, y < 1)
                a = x[keep]
                b = x[:, ~(x[0] > 0)]
                c = y[(x > 0) & (y > 0)]
                m = (x - y).astype(ms.bool_)
                d = x[m]
                e = x[ops.isnan(y)].sum()
                return a, b, c, d, e
        """
    found = findings(source)
    assert [f.line for f in found] == [line_of(source, n) for n in ("a = ", "b = ", "c = ", "d = ", "e = ")]
    assert {f.rule.symbol for f in found} == {"boolean-mask-index"}


def test_mask_assignment_and_integer_indices_are_static():
    source = """
        class Net(nn.Cell):
            def construct(self, x, idx):
                y = x * 1
                y[y < 0] = 0
                y[x > 5] = Tensor(1.0, ms.float32)
                a = x[idx] + x[ops.argmax(x, 0)] + x[0] + x[..., None]
                mask = x > 0
                return y, a, ops.where(mask, x, 0), x * mask
        """
    assert symbols(source) == []


def test_mask_unknown_dtype_is_not_assumed_boolean():
    # A Tensor argument used as an index may hold integer indices.
    source = """
        class Net(nn.Cell):
            def construct(self, x, index):
                return x[index]
        """
    assert symbols(source) == []


# -- ops ---------------------------------------------------------------------------------------
def test_primitive_forms_and_cached_primitives():
    source = """
        from mindspore.ops import operations as P
        from mindspore.ops._primitive_cache import _get_cache_prim

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.select = P.MaskedSelect()
                self.nonzero = ops.NonZero()

            def construct(self, x):
                a = self.select(x, x > 0)
                b = self.nonzero(x)
                c = P.Unique()(x.reshape(-1))
                d = _get_cache_prim(P.UniqueConsecutive)()(x.reshape(-1))
                return a, b, c, d
        """
    found = findings(source)
    assert [(f.rule.symbol, f.args["func"]) for f in found] == [
        ("masked-select", "ops.MaskedSelect"), ("nonzero-indices", "ops.NonZero"),
        ("unique-values", "ops.Unique"), ("unique-values", "ops.UniqueConsecutive")]


def test_function_and_method_forms():
    source = """
        import mindspore.numpy as mnp
        from mindspore import mint

        class Net(nn.Cell):
            def construct(self, x):
                a = x.masked_select(x > 0)
                b = mint.nonzero(x)
                c = mnp.argwhere(x)
                d = ops.unique_consecutive(x)
                e = ops.unique_with_pad(x.astype(ms.int32).reshape(-1), 0)
                return a, b, c, d, e
        """
    found = findings(source)
    assert [(f.rule.symbol, f.args["func"]) for f in found] == [
        ("masked-select", "x.masked_select"), ("nonzero-indices", "mint.nonzero"),
        ("nonzero-indices", "mnp.argwhere"), ("unique-values", "ops.unique_consecutive")]


def test_ops_outside_graph_code_are_not_reported():
    source = """
        def postprocess(x):
            return ops.nonzero(x), x[x > 0]

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.idx = ops.nonzero(Tensor(np.ones(3)))

            def construct(self, x):
                return x
        """
    assert symbols(source) == []


# -- slices and sizes --------------------------------------------------------------------------
def test_slices_bounded_by_tensors_in_helpers_and_through_item():
    source = """
        def first(x, n):
            return x[:n]

        class Net(nn.Cell):
            def construct(self, x):
                count = (x > 0).sum()
                a = first(x, count)
                k = int(count)
                b = x.reshape(-1)[k:]
                c = x.reshape(-1)[: count.item()]
                return a, b, c
        """
    found = findings(source)
    assert [(f.line, f.args["expr"]) for f in found] == [
        (line_of(source, "return x[:n]"), "n"),
        (line_of(source, "b = x.reshape"), "k"),
        (line_of(source, "c = x.reshape"), "count.item()"),
    ]
    assert "in helper `first`" in found[0].message


def test_static_slices():
    source = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.window = 4

            def construct(self, x):
                n = x.shape[0]
                out = x[: n // 2] + x[-n // 2:]
                for i in range(3):
                    out = out + x[i: i + 1]
                return out[: self.window], x[:len(x)]
        """
    assert symbols(source) == []


def test_sizes_from_an_outer_cell_are_python_numbers():
    # `length` is passed by an outer Cell (x.shape[1]): a Python int, not a Tensor.
    source = """
        class Positions(nn.Cell):
            def construct(self, length, past=0):
                return ops.arange(past, past + length), ops.zeros((length,), ms.float32)

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.positions = Positions()

            def construct(self, x):
                return self.positions(x.shape[1])
        """
    assert symbols(source) == []


def test_sizes_from_tensor_values():
    source = """
        import mindspore.numpy as mnp

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.cache_index = Parameter(Tensor(0, ms.int32))

            def construct(self, x):
                n = ops.sum(x > 0)
                a = ops.arange(self.cache_index, self.cache_index + 4)
                b = mnp.zeros((n, 2))
                c = ops.full((2, n), 1.0)
                d = x.new_zeros((n,))
                e = ops.Zeros()((n, 2), ms.float32)
                f = ops.full((2, 3), n)
                return a, b, c, d, e, f
        """
    found = findings(source)
    assert [f.line for f in found] == [line_of(source, n) for n in ("a = ", "b = ", "c = ", "d = ", "e = ")]
    assert {f.rule.symbol for f in found} == {"tensor-valued-size"}
