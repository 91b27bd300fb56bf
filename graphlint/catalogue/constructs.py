"""The constructs of the coverage matrix (:mod:`graphlint.catalogue.matrix`): what graph code does that
MindSpore rejects, runs by fallback, computes differently, or supports, each written as statements computing
``y`` from the input ``x``. Constructs that compile are as important as those that fail: they measure false
errors."""

from graphlint.catalogue.matrix import Construct as C

CONSTRUCTS = (
    # -- statements the parser rejects -------------------------------------------------------------------
    C("try", "`try` / `except`", """
        try:
            y = x * 2
        except ValueError:
            y = x
    """),
    C("del", "`del name`", """
        z = x + 1
        y = z * 2
        del z
    """),
    C("import", "`import` in graph code", """
        import math
        y = x * math.pi
    """),
    C("nonlocal", "`nonlocal` in a nested function", """
        total = x

        def add(t):
            nonlocal total
            total = total + t

        add(x)
        y = total
    """),
    C("walrus", "walrus `:=`", """
        if (n := x.shape[0]) > 1:
            y = x * n
        else:
            y = x
    """),
    C("set_literal", "set literal", """
        s = {1, 2}
        y = x * len(s)
    """),
    C("for_else", "`for ... else`", """
        y = x
        for i in range(2):
            y = y + i
        else:
            y = y * 2
    """),
    C("generator", "generator expression", """
        y = sum(t for t in (x, x * 2))
    """),
    C("nested_class", "nested `class`", """
        class Box:
            k = 2
        y = x * Box.k
    """),
    C("is_float", "`is` against a float", """
        scale = 2.0
        y = x * 2 if scale is 2.0 else x
    """),
    # -- refused APIs -------------------------------------------------------------------------------------
    C("trainable_params", "`self.trainable_params()`", """
        params = self.trainable_params()
        y = x * params[0]
    """, init='self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")', uses_self=True),
    C("get_context", "`ms.get_context(...)`", """
        if ms.get_context("device_target") == "CPU":
            y = x * 2
        else:
            y = x
    """),
    C("ms_log", "`mindspore.log.warning(...)`", """
        ms.log.warning("in graph")
        y = x * 2
    """),
    C("initializer", "`initializer(...)`", """
        w = initializer("ones", (2, 3), ms.float32)
        y = x
    """, module="from mindspore.common.initializer import initializer"),
    C("set_data", "`Parameter.set_data(...)`", """
        self.w.set_data(x)
        y = x * 2
    """, init='self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")', uses_self=True),
    C("parameter_created", "`Parameter(...)` in graph code", """
        w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")
        y = x * w
    """),
    C("relu_cell_created", "a weightless Cell created in graph code", """
        act = nn.ReLU()
        y = act(x)
    """, contexts=("construct", "method_helper")),
    # -- builtins and containers ---------------------------------------------------------------------------
    C("max_nested", "`max()` over nested tuples of Tensors", """
        pairs = ((x.sum(), x.mean()), (x.max(), x.min()))
        y = max(pairs)
    """),
    C("max_tensors", "`max()` of Tensors", """
        y = max(x.sum(), x.mean()) * x
    """),
    C("sum_list", "`sum()` of a list of Tensors", """
        y = sum([x, x * 2, x * 3])
    """),
    C("sorted_tensors", "`sorted()` over Tensors", """
        ordered = sorted([x.sum(), x.mean()])
        y = x * ordered[0]
    """, export=True),
    C("all_tensor", "`all()` over a Tensor", """
        if all(x[0] >= 0):
            y = x * 2
        else:
            y = x
    """),
    C("str_startswith", "`str.startswith` on a constant", """
        if "train_fast".startswith("train"):
            y = x * 2
        else:
            y = x
    """),
    C("str_upper", "`str.upper` on a constant", """
        if "train".upper() == "TRAIN":
            y = x * 2
        else:
            y = x
    """),
    C("len_str", "`len()` of a str", """
        y = x * len("abc")
    """),
    C("list_remove", "`list.remove`", """
        items = [1, 2, 3]
        items.remove(2)
        y = x * len(items)
    """),
    C("list_append", "`list.append` and `len`", """
        items = [x]
        items.append(x * 2)
        y = items[1] * len(items)
    """),
    C("dict_runtime_key", "dict read with a Tensor-chosen key", """
        table = {"a": x, "b": x * 2}
        key = "a" if x.sum() > 0 else "b"
        y = table[key]
    """),
    C("dict_constant", "dict with constant keys", """
        table = {"a": x, "b": x * 2}
        y = table["a"] + table.get("b")
    """),
    C("big_int_literal", "integer literal beyond int64", """
        big = 100000000000000000000000
        y = x + (big % 7)
    """),
    C("big_int_computed", "integer arithmetic overflowing int64", """
        n = 2 ** 70
        y = x * (n % 7)
    """),
    C("tuple_tensor_index", "tuple indexed by a Tensor", """
        items = (x, x * 2, x * 3)
        i = ops.argmax(x.sum(1))
        y = items[i]
    """, export=True),
    C("list_tensor_index", "list indexed by a Tensor", """
        items = [x, x * 2, x * 3]
        i = ops.argmax(x.sum(1))
        y = items[i]
    """),
    C("stack_tensor_index", "stacked Tensor indexed by a Tensor", """
        items = ops.stack((x, x * 2, x * 3))
        i = ops.argmax(x.sum(1))
        y = items[i]
    """),
    C("enumerate_zip", "`enumerate` / `zip` over tuples", """
        y = x
        for i, (a, b) in enumerate(zip((x, x), (x, x))):
            y = y + a * b * i
    """),
    C("isinstance_check", "`isinstance(x, Tensor)`", """
        if isinstance(x, Tensor):
            y = x * 2
        else:
            y = x
    """),
    C("int_of_tensor", "`int(t)` on a Tensor", """
        n = int(x.max())
        y = x * n
    """),
    C("item_of_tensor", "`t.item()`", """
        y = x / x.max().item()
    """),
    # -- JIT fallback and export blockers -----------------------------------------------------------------
    C("asnumpy", "`Tensor.asnumpy()`", """
        y = x + 1
        a = y.asnumpy()
    """, export=True),
    C("numpy_on_tensor", "NumPy function on a Tensor", """
        y = x * np.max(x)
    """, export=True),
    C("math_on_tensor", "`math.sqrt` of a Tensor value", """
        total = x.sum()
        y = x * math.sqrt(total)
    """, module="import math", export=True),
    C("numpy_constant", "NumPy on constants", """
        y = x * Tensor(np.ones((2, 3), np.float32)) + np.sqrt(4.0)
    """),
    C("type_of_tensor", "`type(t)`", """
        if type(x) == Tensor:
            y = x * 2
        else:
            y = x
    """),
    C("str_of_tensor", "`str(t)`", """
        text = str(x)
        y = x * len(text)
    """),
    C("tensor_of_tensor", "`Tensor(t)`", """
        y = Tensor(x.sum()) * x
    """),
    C("numpy_returned", "a NumPy array returned", """
        y = (x * 2, np.ones((2,)))
    """, contexts=("construct", "jit"), export=True),
    C("dict_returned", "a dict returned", """
        y = {"a": x, "b": x * 2}
    """, contexts=("construct", "jit"), export=True),
    C("attr_list_write", "item write into a list attribute", """
        self.z[0] = 3.0
        y = x * self.z[0]
    """, init="self.z = [1.0, 2.0]", uses_self=True, export=True),
    C("attr_write", "`self.attr = value` in graph code", """
        self.count = self.count + 1
        y = x * self.count
    """, init="self.count = 0", uses_self=True),
    # -- divergence ------------------------------------------------------------------------------------------
    C("random_module", "`random.random()`", """
        y = x * random.random()
    """, module="import random"),
    C("global_read", "a module global read", """
        y = x * SCALE
    """, module="SCALE = 2.0"),
    C("inplace_input", "`x += v` on the input", """
        x += 1
        y = x
    """, contexts=("construct", "jit")),
    # -- dynamic shapes -------------------------------------------------------------------------------------
    C("masked_select", "`ops.masked_select`", """
        y = ops.masked_select(x, x > 2)
    """),
    C("nonzero", "`ops.nonzero`", """
        y = ops.nonzero(x)
    """),
    C("bool_mask_index", "boolean-mask indexing", """
        y = x[x > 2]
    """),
    # -- branches -------------------------------------------------------------------------------------------
    C("one_branch_definition", "name assigned in one branch of a Tensor `if`", """
        if x.sum() > 0:
            z = x * 2
        y = z
    """),
    C("one_branch_in_loop", "one-branch definition inside a loop", """
        z = x
        for i in range(2):
            if x.sum() > i:
                w = x * i
            z = z + w
        y = z
    """),
    C("loop_in_branch", "name first assigned in a loop inside a branch", """
        if x.sum() > 0:
            for i in range(2):
                z = x * i
        else:
            z = x
        y = z
    """),
    C("branch_dtype", "branches of different dtypes", """
        if x.sum() > 0:
            y = x * 2
        else:
            y = ops.cast(x, ms.int32)
    """),
    C("branch_none", "None on one branch, a Tensor on the other", """
        if x.sum() > 0:
            y = x
        else:
            y = None
    """, contexts=("construct", "jit", "method_helper")),
    C("branch_same", "a Tensor `if` joining Tensors of one dtype", """
        if x.sum() > 0:
            y = x * 2
        else:
            y = x - 1
    """),
    C("where_select", "`ops.where` instead of a Tensor `if`", """
        y = ops.where(x.sum() > 0, x * 2, x - 1)
    """),
    C("boolop_kinds", "`cond and value` on a Tensor condition", """
        y = x.sum() > 0 and x
    """),
    C("boolop_conditions", "`and` of two Tensor conditions in an `if`", """
        if x.sum() > 0 and x.max() > 1:
            y = x * 2
        else:
            y = x
    """),
    C("while_carry_dtype", "a Tensor `while` whose carry changes dtype", """
        y = ops.cast(x, ms.int32)
        while y.sum() > 0:
            y = y - 0.5
    """),
    C("tensor_while", "a Tensor-counter `while`", """
        i = ops.zeros((), ms.int32)
        y = x
        while i < 3:
            y = y + 1
            i = i + 1
    """),
    # -- loops ----------------------------------------------------------------------------------------------
    C("long_for", "`for` over `range(600)`", """
        y = x
        for _ in range(600):
            y = y * 0.5 + 1
    """, contexts=("construct", "jit", "helper", "method_helper")),
    C("short_for", "`for` over `range(5)`", """
        y = x
        for _ in range(5):
            y = y * 0.5 + 1
    """),
    C("init_default_steps", "`range(self.n_steps)` from an `__init__` default", """
        y = x
        for _ in range(self.n_steps):
            y = y * 0.5 + 1
    """, init="self.n_steps = n_steps", init_args="n_steps=800", uses_self=True, contexts=("construct",)),
    C("range_of_tensor", "`range()` of a Tensor", """
        n = (x.sum() * 0 + 3).astype(ms.int32)
        y = x
        for _ in range(n):
            y = y + 1
    """),
    C("range_of_shape", "`range(x.shape[0])`", """
        y = x
        for i in range(x.shape[0]):
            y = y + i
    """),
    # -- closures and lambdas --------------------------------------------------------------------------------
    C("map_closure", "`ops.Map` over a lambda reading a local", """
        scale = x.sum()
        outs = ops.Map()(lambda t: t * scale, (x, x))
        y = outs[0]
    """),
    C("map_plain", "`ops.Map` over a lambda", """
        outs = ops.Map()(lambda t: t * 2, (x, x))
        y = outs[0]
    """),
    C("lambda_local", "a lambda called in graph code", """
        f = lambda t: t * 2
        y = f(x)
    """),
    C("closure_def", "a nested function reading a local", """
        s = x.sum()

        def g(t):
            return t * s

        y = g(x)
    """),
    # -- parameters -------------------------------------------------------------------------------------------
    C("duplicate_parameter_names", "two Parameters named alike", """
        y = x * self.p + self.q
    """, init=('self.p = Parameter(Tensor(np.ones((3,), np.float32)), name="w")\n'
               'self.q = Parameter(Tensor(np.ones((3,), np.float32)), name="w")'), uses_self=True, export=True,
      contexts=("construct", "method_helper")),
    C("parameter_assign", "`ops.assign` to a Parameter", """
        ops.assign(self.w, x)
        y = self.w * 2
    """, init='self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")', uses_self=True),
    # -- plain graph code ------------------------------------------------------------------------------------
    C("arithmetic", "Tensor arithmetic and ops", """
        y = ops.relu(x) * 2 + ops.exp(x).mean()
    """, export=True),
    C("shape_condition", "a condition on a shape", """
        if x.shape[0] > 1:
            y = x * 2
        else:
            y = x
    """),
    C("tuple_unpack", "tuple unpacking with a star", """
        a, *rest = (x, x * 2, x * 3)
        y = a + rest[0]
    """),
    C("print_tensor", "`print` of a Tensor", """
        print(x)
        y = x * 2
    """),
    C("self_containing_list", "a list that contains itself", """
        items = [x]
        items.append(items)
        y = x * len(items)
    """),
    C("recursion_tensor_condition", "recursion on a Tensor condition", """
        y = halve(x, x.sum() * 0 + 2)
    """, module="""
        def halve(t, n):
            if n.sum() > 0:
                return halve(t * 0.5, n - 1)
            return t
    """),
    C("fstring_raise", "an f-string in a `raise` under a constant condition", """
        if x.ndim > 5:
            raise ValueError(f"bad rank {x.ndim}")
        y = x * 2
    """),
)
