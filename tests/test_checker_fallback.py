"""Fallback checker: tricky positives and negatives beyond the catalogue examples (lint only)."""

import textwrap

from graphlint.catalogue.model import EXAMPLE_HEADER as HEADER
from graphlint.config import Config
from graphlint.lint import lint_paths, lint_text  # noqa: F401
from tests.support import family_helpers

findings, symbols, line_of = family_helpers("fallback")


# -- asnumpy / NumPy / math ------------------------------------------------------------------
def test_asnumpy_on_a_cell_output_and_numpy_method():
    source = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.dense = nn.Dense(3, 3)

            def construct(self, x):
                y = self.dense(x)
                a = y.asnumpy()
                return x, x.numpy()
        """
    found = findings(source)
    assert [(f.rule.symbol, f.args["method"]) for f in found] == [
        ("asnumpy-in-graph", "asnumpy"), ("asnumpy-in-graph", "numpy")]


def test_aliased_numpy_and_math_imports():
    source = """
        import numpy as xp
        from math import sqrt
        import math as m

        class Net(nn.Cell):
            def construct(self, x):
                a = xp.tanh(x)
                b = sqrt(ops.sum(x))
                c = m.exp(x[0, 0])
                return a, b, c
        """
    found = findings(source)
    assert [(f.rule.symbol, f.args["func"]) for f in found] == [
        ("numpy-call-on-tensor", "xp.tanh"), ("math-call-on-tensor", "sqrt"), ("math-call-on-tensor", "m.exp")]


def test_numpy_and_math_on_constants_stay_quiet():
    source = """
        import math

        SCALE = 2.0

        class Net(nn.Cell):
            def construct(self, x):
                n, c = x.shape
                a = np.sqrt(2.0) * np.float32(1.0) * math.pi * math.log(10000.0) * np.sqrt(SCALE)
                b = np.prod(x.shape) + math.sqrt(x.shape[-1]) + math.ceil(n / 3) + len(x)
                w = Tensor(np.ones((n, c), np.float32)) + Tensor(np.ones(x.shape, np.float32))
                return x * a * b + w
        """
    assert symbols(source) == []


def test_numpy_in_a_helper_reached_from_construct():
    source = """
        def helper(t):
            return np.exp(t)

        def shape_helper(t):
            return np.zeros(t.shape)

        class Net(nn.Cell):
            def construct(self, x):
                return helper(x * 2), shape_helper(x)
        """
    found = findings(source)
    assert sorted(f.rule.symbol for f in found) == ["host-object-returned", "numpy-call-on-tensor"]
    on_tensor = next(f for f in found if f.rule.symbol == "numpy-call-on-tensor")
    assert on_tensor.line == line_of(source, "return np.exp(t)")
    assert "in helper `helper`" in on_tensor.message
    # `np.zeros(t.shape)` is a host array that `construct` returns (STRICT rejects it as an illegal type)
    returned = next(f for f in found if f.rule.symbol == "host-object-returned")
    assert returned.line == line_of(source, "return helper(x * 2), shape_helper(x)")
    assert "shape_helper(x)" in returned.message


def test_sizes_from_an_outer_cell_are_python_numbers():
    # `B, H, W` come from an outer Cell (Python ints): a shape-taking NumPy call on them is fine.
    source = """
        class Pos(nn.Cell):
            def construct(self, B, H, W):
                return Tensor(np.zeros((B, H, W)), ms.float32)

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.pos = Pos()

            def construct(self, x):
                b, c, h, w = x.shape
                return x + self.pos(b, h, w)
        """
    assert symbols(source) == []


def test_numpy_on_the_shape_of_a_cell_output_stays_quiet():
    source = """
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 3, 1)

            def construct(self, x):
                y = self.conv(x)
                t0, t1 = y.shape[0], y.shape[1]
                return y + Tensor(np.ones((t0, t1, 1, 1)), ms.float32)
        """
    assert symbols(source) == []


def test_helper_returning_a_shape_is_constant():
    # A helper returning `x.shape[0]` gives a compile-time number even when called with Tensors.
    source = """
        def batch_of(ids, embeds):
            if ids is not None:
                return ids.shape[0]
            return embeds.shape[0]

        class Net(nn.Cell):
            def construct(self, ids, embeds=None):
                n = batch_of(ids, embeds)
                return ids * np.float32(n) + Tensor(np.arange(n), ms.float32).reshape(-1, 1)
        """
    assert symbols(source) == []


def test_imported_helper_returning_a_shape_is_constant(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text(textwrap.dedent("""
        def batch_of(ids, embeds):
            if ids is not None:
                return ids.shape[0]
            return embeds.shape[0]
        """))
    (package / "model.py").write_text(HEADER + textwrap.dedent("""
        from .utils import batch_of

        class Net(nn.Cell):
            def construct(self, ids, embeds=None):
                n = batch_of(ids, embeds)
                return Tensor(np.arange(n), ms.float32), ops.zeros((n, 2), ms.float32)
        """))
    result = lint_paths([str(package)], Config())
    assert [f.rule.symbol for f in result.findings if f.rule.family in ("fallback", "dynamic_shape")] == []


# -- Tensor(...) -----------------------------------------------------------------------------
def test_tensor_of_a_runtime_tensor_and_of_constants():
    source = """
        import mindspore.numpy as mnp

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = Parameter(Tensor(np.ones((2, 3), np.float32)))

            def construct(self, x):
                a = Tensor(self.w * 2)
                b = ms.tensor(ops.sum(x), ms.float32)
                c = Tensor(mnp.arange(x.shape[0]))
                d = Tensor(ops.ones((2, 3), ms.float32))
                return a, b, c, d
        """
    found = findings(source)
    assert [f.line for f in found] == [line_of(source, "a = Tensor"), line_of(source, "b = ms.tensor")]
    assert {f.rule.symbol for f in found} == {"tensor-constructor-on-tensor"}


# -- type() / strings ------------------------------------------------------------------------
def test_type_of_a_graph_value_but_not_in_a_guarded_error_message():
    source = """
        class Net(nn.Cell):
            def construct(self, x):
                if not isinstance(x, Tensor):
                    raise TypeError(f"x must be a Tensor, got {type(x)}")
                kind = type(x * 2)
                return x
        """
    found = findings(source)
    assert [(f.rule.symbol, f.line) for f in found] == [("type-of-graph-value", line_of(source, "kind = type"))]


def test_string_formatting_forms():
    source = """
        class Net(nn.Cell):
            def construct(self, x):
                a = "v={}".format(x)
                b = "v=%s" % (x,)
                c = repr(x)
                d = f"{x.shape} {x.dtype} {len(x)}"
                e = "%d items" % x.shape[0]
                return x
        """
    found = findings(source)
    assert [f.args["how"] for f in found] == ["str.format", "%-formatting", "repr()"]


def test_fstring_messages_of_exceptions_are_formatted_by_the_compiler():
    # Measured: `raise ValueError(f"bad {x}")` compiles under STRICT even under a runtime condition.
    source = """
        class Net(nn.Cell):
            def construct(self, x):
                if x.sum() > 100:
                    message = f"too large: {x}"
                    raise ValueError(message)
                assert x.sum() < 1000, f"bad {x}"
                print(f"x = {x}")
                return x
        """
    found = findings(source)
    assert [(f.line, f.args["how"]) for f in found] == [(line_of(source, "print(f"), "an f-string")]


def test_str_in_a_runtime_raise_is_reported_but_not_in_a_compile_time_one():
    source = """
        class Net(nn.Cell):
            def construct(self, x):
                if x.shape[0] > 4:
                    raise ValueError("bad " + str(x))
                if x.sum() > 100:
                    raise ValueError("too large: " + str(x))
                return x
        """
    found = findings(source)
    assert [f.line for f in found] == [line_of(source, "too large")]


def test_print_of_a_tensor_argument_is_fine():
    source = """
        class Net(nn.Cell):
            def construct(self, x):
                print("x:", x, x.shape)
                ops.print_("x:", x)
                return x, str(x.dtype), f"shape {x.shape}"
        """
    assert symbols(source) == []


# -- Python objects --------------------------------------------------------------------------
def test_objects_from_tensors_namedtuple_and_keyword_arguments():
    source = """
        from collections import namedtuple
        from typing import NamedTuple

        Pair = namedtuple("Pair", "a b")

        class Out(NamedTuple):
            value: object

        class Box:
            def __init__(self, t=None):
                self.t = t

        class Net(nn.Cell):
            def construct(self, x):
                p = Pair(x, 1)
                o = Out(value=x * 2)
                b = Box(t=ops.relu(x))
                k = Box(3.0)
                return p.a + o.value + b.t
        """
    found = findings(source)
    assert [(f.rule.symbol, f.args["cls"]) for f in found] == [
        ("python-object-from-tensor", "Pair"), ("python-object-from-tensor", "Out"),
        ("python-object-from-tensor", "Box")]


def test_cells_exceptions_and_jit_classes_are_not_plain_objects():
    source = """
        class Inner(nn.Cell):
            def __init__(self, scale=1.0):
                super().__init__()
                self.scale = scale

            def construct(self, x):
                return x * self.scale

        class BadInput(ValueError):
            pass

        @ms.jit_class
        class Counter:
            def __init__(self, n):
                self.n = n

        class Net(nn.Cell):
            def construct(self, x):
                if x.sum() > 10:
                    raise BadInput(x)
                c = Counter(x)
                return Inner(2.0)(x)
        """
    assert "python-object-from-tensor" not in symbols(source)


def test_object_from_a_tensor_written_item_by_item():
    """A Tensor built from constants holds run-time values once graph code writes them into its items
    (``tensor[i, :h] = img``, DETR's ``nested_tensor_from_tensor_list``): a plain object made from it needs the JIT
    fallback (W5508 at the call). Written with constants only, it is folded, and nothing is reported."""
    source = """
        class Boxes:
            def __init__(self, tensor):
                self.tensor = tensor

        class Net(nn.Cell):
            def construct(self, x):
                tensor = ops.zeros((2, 3), ms.float32)
                for i in range(2):
                    tensor[i, :3] = x[i]
                made = Boxes(tensor)
                fixed = ops.zeros((2, 3), ms.float32)
                fixed[0, :3] = 1.0
                kept = Boxes(fixed)
                return made.tensor + kept.tensor
        """
    found = [(f.rule.symbol, f.line) for f in findings(source)]
    assert ("python-object-from-tensor", line_of(source, "made = Boxes(tensor)")) in found, found
    assert ("python-object-from-tensor", line_of(source, "kept = Boxes(fixed)")) not in found, found


# -- the top-level graph's boundary -------------------------------------------------------------
def test_dict_output_only_from_top_level_graphs():
    source = """
        class Head(nn.Cell):
            def construct(self, x):
                return {"logits": x}

        class Backbone(nn.Cell):
            def construct(self, x):
                out = {"feature": x}
                return out

        def build_backbone():
            return Backbone()

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.backbone = build_backbone()
                self.head = Head()

            def construct(self, x):
                features = self.backbone(x)["feature"]
                logits = self.head(features)["logits"]
                return dict(logits=logits, probs=ops.softmax(logits))

        @ms.jit
        def step(x):
            return {k: v for k, v in (("a", x), ("b", x))}
        """
    found = findings(source)
    assert [(f.rule.symbol, f.line) for f in found] == [
        ("dict-output-from-graph", line_of(source, "return dict(")),
        ("dict-output-from-graph", line_of(source, "return {k: v")),
    ]


def test_container_inputs_of_the_top_level_graph():
    source = """
        from typing import Dict, List, Optional, Tuple

        class Neck(nn.Cell):
            def construct(self, features: List[Tensor]):
                return features[0]

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.neck = Neck()

            def construct(self, batch, cache: Optional[Dict[str, Tensor]] = None,
                          past: Optional[Tuple[Tuple[Tensor]]] = None, padding: Tuple[int, ...] = (1, 1),
                          other=None):
                image = batch["image"]
                for key, value in other.items():
                    image = image + value
                return self.neck([image])
        """
    found = findings(source)
    assert [(f.rule.symbol, f.args["parameter"], f.args["kind"], f.args["entry"]) for f in found] == [
        ("container-graph-input", "batch", "a dict", "Net.construct"),
        ("container-graph-input", "cache", "a dict", "Net.construct"),
        ("container-graph-input", "past", "a tuple", "Net.construct"),
        ("container-graph-input", "other", "a dict", "Net.construct"),
    ]


def test_inner_cell_from_a_builder_by_name_is_not_top_level():
    source = """
        SUPPORTED = ["Head"]

        class Head(nn.Cell):
            def construct(self, features):
                return {"maps": features["p2"]}
        """
    assert symbols(source) == []


def test_a_cell_named_only_in_dunder_all_stays_top_level():
    """`__all__` entries are exports, not builder names: the Cell is still the graph's entry (its dict
    output is reported), unless its name also appears elsewhere, in a call or a builder's list."""
    source = """
        __all__ = ["Head", "helper"]
        __all__ += ["Tail"]

        class Head(nn.Cell):
            def construct(self, features):
                return {"maps": features["p2"]}

        class Tail(nn.Cell):
            def construct(self, features):
                return {"maps": features["p2"]}
        """
    def dict_outputs(text):
        return [f.line for f in findings(text) if f.rule.symbol == "dict-output-from-graph"]

    assert dict_outputs(source) == [10, 14]
    built = source.replace('__all__ += ["Tail"]', '__all__ += sorted(["Tail"])')
    assert dict_outputs(built) == [10]


def test_jit_function_called_from_graph_code_is_not_top_level():
    source = """
        @ms.jit
        def inner(batch):
            return {"y": batch["x"]}

        class Net(nn.Cell):
            def construct(self, x):
                return inner({"x": x})["y"]
        """
    assert symbols(source) == []


def test_messages_fill_every_field():
    source = """
        import math

        class Net(nn.Cell):
            def construct(self, x, batch):
                a = np.exp(x) + math.exp(x[0, 0]) + x.asnumpy() + Tensor(x * 2)
                s = str(x)
                return {"a": a, "b": batch["b"], "c": type(x)}
        """
    found = findings(source)
    assert {f.rule.symbol for f in found} == {
        "asnumpy-in-graph", "numpy-call-on-tensor", "math-call-on-tensor", "tensor-constructor-on-tensor",
        "tensor-to-string", "type-of-graph-value", "dict-output-from-graph", "container-graph-input"}
    for finding in found:
        assert "{" not in finding.message.replace("{...}", ""), finding.message


# -- graph inputs that hold themselves -----------------------------------------------------------
def test_containers_holding_themselves_through_each_other():
    source = """
        class Net(nn.Cell):
            def construct(self, x, cfg):
                return x

        def run(x):
            first = [1, 2]
            second = [3, first]
            first[0] = second
            plain = [4]
            plain.append([5])
            rebound = [6]
            holder = [rebound]
            rebound = [holder]  # a new list: `holder` holds the old one, no cycle
            net = Net()
            net(x, first)
            net(x, plain)
            net(x, rebound)
            return Net()(x, cfg=second)
        """
    found = [f for f in findings(source) if f.rule.symbol == "self-containing-graph-input"]
    assert [(f.line, f.args["name"]) for f in found] == [
        (line_of(source, "net(x, first)"), "first"), (line_of(source, "return Net()(x, cfg=second)"), "second")]


def test_a_branch_type_inference_never_compiles_keeps_only_parser_findings():
    source = """
        class Net(nn.Cell):
            def construct(self, x):
                if isinstance(x, list):
                    x = Tensor(x)
                    try:
                        x = x + 1
                    except ValueError:
                        pass
                if isinstance(x, Tensor):
                    y = Tensor(x)
                return x * 2
        """
    text = HEADER + textwrap.dedent(source)
    lines = text.splitlines()
    found = [(f.rule.symbol, lines[f.line - 1].strip()) for f in lint_text(text, Config())
             if f.rule.family in ("fallback", "statements")]
    # the first branch is dead for a Tensor `x`: its W5504 goes, the parser's `try` error stays
    assert sorted(found) == [("tensor-constructor-on-tensor", "y = Tensor(x)"), ("try-in-graph", "try:")]


def test_cells_made_through_a_class_table_an_alias_or_stored_into_a_model_are_not_top_level():
    source = """
        class EagerAttention(nn.Cell):
            def construct(self, x, cache: dict):
                return x * cache["scale"]

        class FlashAttention(nn.Cell):
            def construct(self, x, cache: dict):
                return x * cache["scale"]

        class Pooling(nn.Cell):
            def construct(self, x, cache: dict):
                return x * cache["scale"]

        class Head(nn.Cell):
            def construct(self, x, cache: dict):
                return x * cache["scale"]

        class Alone(nn.Cell):
            def construct(self, x, cache: dict):
                return x * cache["scale"]

        ATTENTION_CLASSES = {"eager": EagerAttention, "flash": FlashAttention}
        Pool = Pooling

        class Block(nn.Cell):
            def __init__(self, impl):
                super().__init__()
                self.attn = ATTENTION_CLASSES[impl]()
                self.pool = Pool()

            def construct(self, x):
                return self.attn(x, {"scale": 2}) + self.pool(x, {"scale": 3})

        def patch(model):
            model.head = Head()
        """
    found = [(f.rule.symbol, f.line) for f in findings(source) if f.rule.symbol == "container-graph-input"]
    assert found == [("container-graph-input", line_of(source, "class Alone(nn.Cell):") + 1)]


def test_names_a_comprehension_binds_carry_the_element_values():
    """`c` in `[... for i, c in enumerate(C.split(sizes, -1))]` is a Tensor (a chunk of a split): DETR's Hungarian
    matcher habit. Each element of a Tensor, of a split and of an enumerate/zip over them is known (issue 39)."""
    source = """
        class Net(nn.Cell):
            def construct(self, C, sizes, y):
                picked = [c[i].asnumpy() for i, c in enumerate(C.split(sizes, -1))]
                rows = [r.asnumpy() for r in y]
                pairs = [a.asnumpy() for a, b in zip(y.split(2), sizes)]
                named = [i * 2 for i, c in enumerate(C.split(sizes, -1)) if c.sum() > 0]
                return picked, rows, pairs, named
        """
    found = findings(source)
    assert [(f.rule.symbol, f.line, f.column) for f in found] == [
        ("asnumpy-in-graph", line_of(source, "picked ="), 19), ("asnumpy-in-graph", line_of(source, "rows ="), 17),
        ("asnumpy-in-graph", line_of(source, "pairs ="), 18)]


def test_numpy_on_a_host_copy_says_so_and_submodule_functions_count():
    source = """
        import numpy.linalg as la
        from numpy.linalg import norm

        def normalize(t):
            scale = np.mean(t.asnumpy())
            size = np.linalg.norm(t.asnumpy())
            host = t.asnumpy()
            return t / scale / size / la.norm(host) / norm(host) / np.fft.fft(host).real.max()

        class Net(nn.Cell):
            def construct(self, x):
                return np.exp(x) + normalize(x)
        """
    found = [f for f in findings(source) if f.rule.symbol == "numpy-call-on-tensor"]
    assert [(f.line, f.args["func"], f.args["operand"]) for f in found] == [
        (line_of(source, "scale = np.mean"), "np.mean", "a NumPy copy of a Tensor"),
        (line_of(source, "size = np.linalg.norm"), "np.linalg.norm", "a NumPy copy of a Tensor"),
        (line_of(source, "return t / scale"), "la.norm", "a NumPy copy of a Tensor"),
        (line_of(source, "return t / scale"), "norm", "a NumPy copy of a Tensor"),
        (line_of(source, "return t / scale"), "np.fft.fft", "a NumPy copy of a Tensor"),
        (line_of(source, "return np.exp(x)"), "np.exp", "a Tensor"),
    ]
    assert "`np.mean(...)` on a NumPy copy of a Tensor in graph code" in found[0].message
    assert "`np.exp(...)` on a Tensor in graph code" in found[-1].message
