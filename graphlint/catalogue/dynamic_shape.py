"""Operations whose output shape depends on tensor values (dynamic shape).

They compile and run in GRAPH_MODE at both syntax levels (and export to
MindIR), but the size of their result is only known when the kernel has run:
MindSpore must use dynamic-shape kernels, infer shapes at run time on the host
and cannot plan memory or fuse across them; on Ascend this is much slower than
a static graph or unsupported by some kernels. The examples prove the claim by
calling the compiled graph twice with inputs of equal shape but different
values: the output shapes differ.
"""

from graphlint.catalogue.model import OK, Example, Rule, Severity, fails, passes

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "dynamic_shape"

# Two calls, same input shape (2, 3), different signs: 3 positives, then 5.
_TWO_CALLS = (
    "[(Tensor(np.array([[1., -2., 3.], [-4., 5., -6.]], np.float32)),), "
    "(Tensor(np.array([[1., 2., 3.], [-4., 5., 6.]], np.float32)),)]"
)
# Two calls, same input shape (2, 3): one row with a positive first column, then two.
_TWO_CALLS_ROWS = (
    "[(Tensor(np.array([[1., -2., 3.], [-4., 5., -6.]], np.float32)),), "
    "(Tensor(np.array([[1., 2., 3.], [4., 5., 6.]], np.float32)),)]"
)


def dynamic(code: str, **kw) -> Example:
    """Compiles at both levels, but equal input shapes give different output shapes."""
    kw.setdefault("inputs", _TWO_CALLS)
    return Example(code, lax=OK, strict=OK, dynamic_shape=True, **kw)


def static(code: str, **kw) -> Example:
    """The static-shape form: compiles at both levels and matches PYNATIVE_MODE on the same inputs."""
    kw.setdefault("inputs", _TWO_CALLS)
    return passes(code, **kw)


BOOLEAN_MASK_INDEX = Rule(
    id="W5601",
    symbol="boolean-mask-index",
    family=FAMILY,
    lax=W,
    strict=W,
    message="Indexing with a boolean mask makes the result's shape depend on the data (dynamic shape); "
    "keep the shape with ops.where / ops.masked_fill or multiply by the mask",
    summary="Reading `x[mask]` where `mask` is a boolean Tensor (e.g. `x[x > 0]`, `x[keep]`) inside graph code.",
    why=(
        "The result has one element (or row) per True entry, so its shape is only known at run "
        "time: MindSpore lowers the read to NonZero + GatherNd with dynamic-shape kernels. "
        "Everything downstream becomes dynamic too, even when it is reduced to a scalar "
        "afterwards (`x[x > 0].mean()`). Boolean-mask assignment `x[mask] = 0` is different: "
        "it is lowered to Select and keeps the static shape."
    ),
    fix=(
        "Keep the full shape and carry the mask: `ops.where(mask, x, 0)`, "
        "`ops.masked_fill(x, ~mask, 0)` or `x * mask`; reduce with the mask "
        "(`(x * m).sum() / m.sum()` instead of `x[mask].mean()`)."
    ),
    flagged=(
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x[x > 0]
            """,
            title="boolean-mask indexing `x[x > 0]`",
            export=OK,
            lines=3,
        ),
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    keep = x[:, 0] > 0
                    return x[keep]
            """,
            inputs=_TWO_CALLS_ROWS,
            title="row selection with a boolean mask",
            lines=4,
        ),
    ),
    clean=(
        static(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return ops.where(x > 0, x, ops.zeros_like(x))
            """,
        ),
        static(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    m = (x > 0).astype(x.dtype)
                    return (x * m).sum() / m.sum()
            """,
        ),
        static(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 1
                    y[y < 0] = 0
                    return y
            """,
        ),
        static(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    idx = Tensor(np.array([1, 0]), ms.int32)
                    return x[idx] + x[ops.argmax(x[:, 0])]
            """,
        ),
    ),
)


# message fields: {func} = the call as written, e.g. "ops.masked_select"
MASKED_SELECT = Rule(
    id="W5602",
    symbol="masked-select",
    family=FAMILY,
    lax=W,
    strict=W,
    message="`{func}` returns one element per True mask entry (dynamic shape); "
    "keep the shape with ops.where / ops.masked_fill or multiply by the mask",
    summary="`ops.masked_select(x, mask)` or `x.masked_select(mask)` inside graph code.",
    why=(
        "The output length is the number of True entries, known only at run time, so the "
        "operation and everything that consumes its result run as dynamic-shape kernels."
    ),
    fix=(
        "Keep the full shape: `ops.where(mask, x, 0)` / `ops.masked_fill(x, ~mask, 0)` / "
        "`x * mask`, and reduce with the mask (`(x * m).sum()`, count with `m.sum()`)."
    ),
    flagged=(
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return ops.masked_select(x, x > 0)
            """,
            title="`ops.masked_select`",
            export=OK,
            lines=3,
        ),
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x.masked_select(x > 0)
            """,
            title="`Tensor.masked_select`",
            lines=3,
        ),
    ),
    clean=(
        static(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return ops.masked_fill(x, x <= 0, 0.0)
            """,
        ),
        static(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x * (x > 0).astype(x.dtype)
            """,
        ),
    ),
)


# message fields: {func} = the call as written, e.g. "ops.nonzero"
NONZERO_INDICES = Rule(
    id="W5603",
    symbol="nonzero-indices",
    family=FAMILY,
    lax=W,
    strict=W,
    message="`{func}` returns one row per nonzero element (dynamic shape); "
    "keep a mask, or take a fixed number of indices with ops.topk",
    summary="`ops.nonzero`, `Tensor.nonzero()` or `ops.argwhere` inside graph code.",
    why=(
        "The number of index rows equals the number of nonzero elements, known only at run "
        "time: the result and everything computed from it are dynamic-shape."
    ),
    fix=(
        "Work with the mask itself (`ops.where`, `ops.masked_fill`, multiply); when indices "
        "are needed, take a fixed number with `ops.topk(mask.astype(ms.float32), k)` and mask "
        "out the padding."
    ),
    flagged=(
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return ops.nonzero(x > 0)
            """,
            title="`ops.nonzero`",
            export=OK,
            lines=3,
        ),
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return (x > 0).nonzero()
            """,
            title="`Tensor.nonzero()`",
            lines=3,
        ),
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return ops.argwhere(x > 0)
            """,
            title="`ops.argwhere`",
            lines=3,
        ),
    ),
    clean=(
        static(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    values, indices = ops.topk((x > 0).astype(ms.float32).reshape(-1), 3)
                    return indices, values
            """,
        ),
    ),
)


# message fields: {func} = the call as written, e.g. "ops.unique"
UNIQUE_VALUES = Rule(
    id="W5604",
    symbol="unique-values",
    family=FAMILY,
    lax=W,
    strict=W,
    message="`{func}` returns as many elements as there are distinct values (dynamic shape); "
    "use ops.unique_with_pad for a fixed-size result",
    summary="`ops.unique` or `ops.unique_consecutive` inside graph code.",
    why=(
        "The number of distinct values is known only at run time, so the result has a dynamic "
        "shape. (`Tensor.unique()` does not even run on CPU in MindSpore 2.10: "
        "'The kernel Unique2 unregistered', in PYNATIVE_MODE as well.)"
    ),
    fix=(
        "`ops.unique_with_pad(x, pad_value)` (1-D int32/int64 input) returns a result of the "
        "input's size, padded with `pad_value`; or avoid materialising the distinct values "
        "(e.g. one-hot + reduce)."
    ),
    flagged=(
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    values, inverse = ops.unique(ops.relu(x).reshape(-1))
                    return values
            """,
            title="`ops.unique`",
            export=OK,
            lines=3,
        ),
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return ops.unique_consecutive((x > 0).astype(ms.int32).reshape(-1))
            """,
            title="`ops.unique_consecutive`",
            lines=3,
        ),
    ),
    clean=(
        static(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    values, inverse = ops.unique_with_pad(ops.relu(x).reshape(-1).astype(ms.int32), 0)
                    return values
            """,
        ),
    ),
)


TENSOR_BOUNDED_SLICE = Rule(
    id="W5605",
    symbol="tensor-bounded-slice",
    family=FAMILY,
    lax=W,
    strict=W,
    message="A slice bounded by a Tensor value (`{expr}`) has a data-dependent length (dynamic shape); "
    "slice with a constant bound and mask the rest",
    summary="A slice `x[a:b]` inside graph code whose start or stop is a Tensor, or a number taken from one (`int(t)`, `t.item()`).",
    why=(
        "The slice length depends on a value computed at run time, so the result is "
        "dynamic-shape. Bounds computed from `x.shape` or Python constants are compile-time "
        "numbers and keep the shape static."
    ),
    fix=(
        "Slice to a constant maximum size and mask the tail: "
        "`keep = ops.arange(size) < n; ops.where(keep, x[:size], 0)`."
    ),
    flagged=(
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = (x > 0).sum()
                    return x.reshape(-1)[:n]
            """,
            title="slice bounded by a Tensor",
            export=OK,
            lines=4,
        ),
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = (x > 0).sum()
                    return x.reshape(-1)[n:]
            """,
            title="slice starting at a Tensor",
            lines=4,
        ),
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x, n):
                    return x.reshape(-1)[:n]
            """,
            inputs="[(Tensor(np.ones((2, 3), np.float32)), Tensor(2, ms.int32)), "
                   "(Tensor(np.ones((2, 3), np.float32)), Tensor(4, ms.int32))]",
            title="slice bounded by an argument no call in the module describes",
            lines=3,
            assumes="`n` is a Tensor",
        ),
    ),
    clean=(
        static(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    flat = x.reshape(-1)
                    n = (x > 0).sum()
                    keep = ops.arange(flat.shape[0]) < n
                    return ops.where(keep, flat, ops.zeros_like(flat))
            """,
        ),
        static(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    half = x.shape[1] // 2
                    return x[:, :half], x[-1:, half:]
            """,
        ),
    ),
)


# message fields: {func} = the call as written, e.g. "ops.arange"
TENSOR_VALUED_SIZE = Rule(
    id="W5606",
    symbol="tensor-valued-size",
    family=FAMILY,
    stricter_before=("2.8", E),  # measured: 2.7 fails to compile `ops.zeros((n, 3))` with a Tensor n
    lax=W,
    strict=W,
    message="`{func}` with a size taken from a Tensor value creates a dynamic shape; "
    "use a constant size and a mask",
    summary="A creation op (`ops.arange`, `ops.zeros`, `ops.ones`, `ops.full`, ...) inside graph code whose size/end argument is a Tensor value.",
    why=(
        "The created tensor's length is a runtime value, so it is dynamic-shape. Sizes from "
        "`x.shape` or constants are static."
    ),
    fix="Create the tensor with a constant (maximum) size, e.g. `x.shape[0]`, and compare with the runtime count: `ops.arange(size) < n`.",
    flagged=(
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = (x > 0).sum()
                    return ops.arange(n)
            """,
            title="`ops.arange` with a Tensor end",
            export=OK,
            lines=4,
        ),
        dynamic(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = (x > 0).sum()
                    return ops.zeros((n,), ms.float32)
            """,
            title="`ops.zeros` with a Tensor size",
            lines=4,
        ),
    ),
    clean=(
        static(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = (x > 0).sum()
                    size = x.shape[0] * x.shape[1]
                    return (ops.arange(size) < n).astype(ms.float32) + ops.zeros((size,), ms.float32)
            """,
        ),
    ),
)


_ROWS = "(Tensor(np.array([[0.5, 3.0, 2.0], [4.0, -1.0, 0.0]], np.float32)),)"

# message fields: {target} - the masked assignment's target; {value} - the masked read; {rank} - the target's rank;
# {mask} - the mask
MASKED_ASSIGNMENT_OF_MASKED_VALUE = Rule(
    id="E5607",
    symbol="masked-assignment-of-masked-value",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{target} = {value}` assigns a boolean-mask read (its length is only known at run time) through a mask "
            "into a Tensor of rank {rank}: graph mode cannot broadcast it and fails at every level; write "
            "`ops.where({mask}, <the unmasked value>, <the target>)` instead",
    summary="PyTorch's `t[mask] = v[mask]` (a masked read assigned through the same mask) on a Tensor of two or "
            "more dimensions.",
    why=(
        "PYNATIVE_MODE, like PyTorch, copies the selected elements one for one. Graph mode lowers `t[mask] = v` to a "
        "select that broadcasts `v` to the shape of `t`; `v[mask]` has one element per True entry, an upper-bound "
        "length only known when the graph runs, and it cannot be broadcast to a Tensor of rank 2 or more: \"For "
        "'BroadcastTo', in order to broadcast, each dimension pair must be equal or input dimension is 1\", at the "
        "lax and strict levels, with no line of the model in the message. On a 1-D Tensor, and with a scalar or a "
        "full-size value (`t[mask] = 0`, `t[mask] = v`), it compiles (measured with MindSpore 2.10, CPU)."
    ),
    mindspore_error="ValueError: For 'BroadcastTo', in order to broadcast, each dimension pair must be equal or input "
                    "dimension is 1 or target dimension is -1.",
    fix="Select instead of copying: `distance = ops.where(mask, dist, distance)` for `distance[mask] = dist[mask]`.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    distance = ops.ones((2, 3), ms.float32) * 10
                    mask = x < distance
                    distance[mask] = x[mask]
                    return distance
            """,
            error="For 'BroadcastTo'",
            inputs=_ROWS,
            title="`t[mask] = v[mask]` on a 2-D Tensor",
            lines=5,
            fields={"rank": "2", "mask": "mask"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    distance = ops.ones((2, 3), ms.float32) * 10
                    mask = x < distance
                    distance[mask] = 0.0
                    flat = x.reshape(-1)
                    best = ops.ones((6,), ms.float32) * 10
                    keep = flat < best
                    best[keep] = flat[keep]
                    return ops.where(mask, x, distance), best
            """,
            inputs=_ROWS,
        ),
    ),
)


# message fields: {target} - the masked target; {op} - the augmented operator; {value} - the value; {tensor} - the
# Tensor written; {mask} - the mask; {binop} - the operator without `=`
MASKED_AUGMENTED_ASSIGNMENT = Rule(
    id="E5609",
    symbol="masked-augmented-assignment",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{target} {op} {value}` updates a Tensor through a boolean mask: graph mode reads `{target}` (its "
            "length only known at run time) and cannot broadcast the result back, so compiling fails at every level "
            "(\"For 'BroadcastTo' ...\"); write `{tensor} = ops.where({mask}, {tensor} {binop} {value}, {tensor})` "
            "(a mask of fewer dimensions than the Tensor needs `.unsqueeze(-1)` there)",
    summary="PyTorch's `t[mask] += v` (or `-=`, `*=`, ...) with `mask` a boolean Tensor.",
    why=(
        "PYNATIVE_MODE, like PyTorch, adds `v` to the selected elements. Graph mode lowers `t[mask] += v` to a read "
        "`t[mask]`, whose length is the count of True entries (known only when the graph runs), and a select that "
        "broadcasts the sum back to the shape of `t`; that broadcast fails: \"For 'BroadcastTo', in order to "
        "broadcast, each dimension pair must be equal or input dimension is 1\", at the lax and strict levels, "
        "with no line of the model in the message. Measured with MindSpore 2.10 on CPU for `+=`, `-=` and `*=`, "
        "with a Python number or a Tensor as the value, on Tensors of 1 to 3 dimensions and masks of their rank "
        "or fewer (SAM's `point_embedding[labels == k] += table`). `t[mask] = 0.0` and `t[mask] = v` with `v` of "
        "the Tensor's shape compile."
    ),
    mindspore_error="ValueError: For 'BroadcastTo', in order to broadcast, each dimension pair must be equal or input "
                    "dimension is 1 or target dimension is -1.",
    fix="Select: `t = ops.where(mask, t + v, t)`; with a mask of fewer dimensions, `ops.where(mask.unsqueeze(-1), "
        "t + v, t)`.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    x[x > 1.0] += 1.0
                    return x
            """,
            error="For 'BroadcastTo'",
            inputs=_ROWS,
            title="`t[mask] += number`",
            lines=3,
            fields={"op": "+=", "mask": "x > 1.0"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x, labels):
                    table = ops.ones((1, 3), ms.float32)
                    x[labels == 1] -= table
                    return x
            """,
            error="For 'BroadcastTo'",
            inputs="(Tensor(np.ones((2, 4, 3), np.float32)), Tensor(np.array([[0, 1, 0, 1], [1, 1, 0, 0]], np.int32)))",
            title="`t[labels == k] -= row` with a mask of fewer dimensions (SAM's label embeddings)",
            lines=4,
            fields={"op": "-="},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x, labels):
                    table = ops.ones((1, 3), ms.float32)
                    x[labels == 0] = 0.0
                    return ops.where((labels == 1).unsqueeze(-1), x - table, x)
            """,
            inputs="(Tensor(np.ones((2, 4, 3), np.float32)), Tensor(np.array([[0, 1, 0, 1], [1, 1, 0, 0]], np.int32)))",
        ),
    ),
)


# message fields: {expr} - the Tensor; {call} - `.item()` / `int(...)` as written
SCALAR_OF_DATA_SHAPED_TENSOR = Rule(
    id="E5608",
    symbol="scalar-of-data-shaped-tensor",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` takes a Python scalar from `{expr}`, whose shape the data decides (one row per match): graph "
            "code cannot know it holds one element, and compiling fails (\"The tensor should have only one element. "
            "But the shape of input tensor is (None, 1)\"); index a first element (`{expr}[0, 0]`) or reduce it",
    summary="`.item()` (or `int()`, `float()`) of what `nonzero()`, a boolean-mask read or `unique()` gives, not "
            "reduced or indexed to one element first (a ranking by `(argsort[i] == target).nonzero().item()`).",
    why=(
        "Measured with MindSpore 2.10 at both levels: `(x == x[1]).nonzero().item()` fails (\"The tensor should "
        "have only one element. But the shape of input tensor is (None, 1).\"), `x[x == x[1]].item()` likewise "
        "(`(None,)`), `int(...)` of it fails too; PYNATIVE_MODE runs them when one element matches. "
        "`t.nonzero()[0, 0].item()` and `x[x > 0].sum().item()` compile."
    ),
    mindspore_error="ValueError: The tensor should have only one element. But the shape of input tensor is (None, 1).",
    fix="Index the element (`r[0, 0].item()`) or reduce first (`.sum()`, `.max()`); better, keep the computation a "
        "Tensor (`(argsort == target).astype(ms.int32).argmax(1)` for a rank).",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    rank = (x == x[1]).nonzero()
                    return x * (1 + rank.item())
            """,
            error="The tensor should have only one element",
            inputs="(Tensor(np.array([1.0, 2.0, 3.0], np.float32)),)",
            title="`.item()` of a `nonzero()` (a rank found by matching)",
            lines=4,
            fields={"call": "rank.item()", "expr": "rank"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    rank = (x == x[1]).nonzero()
                    return x * (1 + rank[0, 0].item())
            """,
            inputs="(Tensor(np.array([1.0, 2.0, 3.0], np.float32)),)",
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x * x[x > 0].sum().item()
            """,
            inputs="(Tensor(np.array([1.0, 2.0, 3.0], np.float32)),)",
        ),
    ),
)


RULES = (
    BOOLEAN_MASK_INDEX,
    MASKED_SELECT,
    NONZERO_INDICES,
    UNIQUE_VALUES,
    TENSOR_BOUNDED_SLICE,
    TENSOR_VALUED_SIZE,
    MASKED_ASSIGNMENT_OF_MASKED_VALUE,
    MASKED_AUGMENTED_ASSIGNMENT,
    SCALAR_OF_DATA_SHAPED_TENSOR,
)
