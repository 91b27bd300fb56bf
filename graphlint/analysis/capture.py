"""What ``mindspore.jit(capture_mode="trace")`` freezes and what ``capture_mode="bytecode"`` (PIJit) breaks or keeps
from the first call, as facts about code (measured with MindSpore 2.10, CPU).

A traced function runs eagerly on its first call per input key (shapes, dtypes, scalar arguments), which is
recorded; later calls replay the recorded ops only. Python side effects and values that are not Tensor ops of
the inputs (a print, a Cell attribute, ``self.training``, an assert) therefore keep what the first call did.
"""

from __future__ import annotations

import sys

from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.generated import pijit_skip
from graphlint.analysis.kinds import TENSOR
from graphlint.analysis.tree import graph_nodes, nodes_of_class

# Cell attributes that MindSpore itself changes between calls (``set_train``): a trace keeps the first call's.
CELL_MODE_ATTRIBUTES = frozenset({"training"})
# Parameter updates: recorded ops that the first (eager) call also runs, so it applies them twice.
PARAMETER_UPDATE_METHODS = frozenset({"assign_value", "set_data"})


def is_builtin_print(call: nodes.Call, values) -> bool:
    """``print(...)``, the builtin (not a local or imported name)."""
    func = call.func
    return isinstance(func, nodes.Name) and func.name == "print" and func.name not in values.cfg.defs_by_name \
        and func.name not in values.graph.info.module.locals


def parameter_update(call: nodes.Call, info) -> str | None:
    """The update a call makes to a Parameter (``ops.assign_add``, ``param.assign_value``), or None."""
    qualified = info.imports.qualify(call.func)
    if qualified in api.ASSIGN_OPS:
        return qualified.rsplit(".", 1)[-1]
    func = call.func
    if isinstance(func, nodes.Attribute) and func.attrname in PARAMETER_UPDATE_METHODS and qualified is None:
        return func.attrname
    return None


def changed_cell_attributes(cls: nodes.ClassDef, module: nodes.Module) -> frozenset[str]:
    """Attributes of ``cls`` that something changes after construction: a method other than ``__init__`` assigns
    ``self.name``, or module code assigns ``obj.name`` (an instance, as ``net.scale = 3.0``)."""
    changed = set()
    for method in cls.body:
        if isinstance(method, nodes.FunctionDef) and method.name != "__init__":
            for target in nodes_of_class(method, nodes.AssignAttr):
                if isinstance(target.expr, nodes.Name) and target.expr.name == "self":
                    changed.add(target.attrname)
    for target in nodes_of_class(module, nodes.AssignAttr):
        if isinstance(target.expr, nodes.Name) and target.expr.name != "self":
            changed.add(target.attrname)
    return frozenset(changed)


def numpy_arguments(info, func: nodes.FunctionDef):
    """Arguments of the module's calls of ``func`` made with NumPy (``fn(np.ones(3))``, or a name the same scope
    binds once to a NumPy call): the trace refuses them ("Not support [<class 'numpy.ndarray'>]")."""
    for call in nodes_of_class(info.module, nodes.Call):
        if not (isinstance(call.func, nodes.Name) and call.func.name == func.name
                and info.module.locals.get(func.name, [None])[0] is func):
            continue
        for argument in call.args:
            if _numpy_made(info, argument):
                yield call, argument


def _numpy_made(info, expr) -> bool:
    if isinstance(expr, nodes.Name):
        bound = [name.parent.value for name in nodes_of_class(expr.frame(), nodes.AssignName)
                 if name.name == expr.name and isinstance(name.parent, nodes.Assign)]
        expr = bound[0] if len(bound) == 1 else None
    if not isinstance(expr, nodes.Call):
        return False
    qualified = info.imports.qualify(expr.func)
    return qualified is not None and qualified.startswith("numpy.") and not qualified.startswith("numpy.random.seed")


# -- capture_mode="bytecode" (PIJit; measured with MindSpore 2.10 on Python 3.11, CPU) ------------------------------

# NumPy functions whose result, given an array and nothing else, is one number (a NumPy scalar): PIJit guards a
# scalar by its value, so `x - Tensor(np.mean(x.asnumpy()))` stays right (measured), unlike an array.
NUMPY_SCALAR_REDUCTIONS = frozenset({"mean", "sum", "max", "min", "amax", "amin", "std", "var", "median", "prod",
                                     "average", "nanmean", "nansum", "nanmax", "nanmin", "ptp", "count_nonzero"})
ARRAY_SCALAR_METHODS = frozenset({"mean", "sum", "max", "min", "std", "var", "prod", "item", "ptp", "all", "any"})
# Measured kept right though they make an array: `Tensor(np.abs(x.asnumpy())) + x` followed its input.
NUMPY_KEPT_RIGHT = frozenset({"abs", "absolute"})
# numpy.random draws and the position of the argument that makes them an array (rand(3), normal(0, 1, 3), ...);
# without it they draw one number, which PIJit guards by value (measured: `x * np.random.rand()` stayed right).
NUMPY_RANDOM_SIZE_POSITION = {
    "rand": 0, "randn": 0, "random": 0, "random_sample": 0, "ranf": 0, "sample": 0, "standard_normal": 0,
    "permutation": 0, "normal": 2, "uniform": 2, "binomial": 2, "randint": 2, "beta": 2, "gamma": 2,
    "lognormal": 2, "laplace": 2, "logistic": 2, "poisson": 1, "exponential": 1, "choice": 1, "geometric": 1,
    "standard_gamma": 1, "chisquare": 1, "bernoulli": 2, "shuffle": 0,
}
# Where a Tensor made of host data is kept right (measured): returned as it is, scaled by a Python number
# (`* 2`, `/ 2`, `2 * ...`) or reduced (`.mean()`, `.sum()`) and returned; any other use (`+ x`, `+ 1`,
# `ops.relu(...)`, `* x.sum()`) computes with the first call's data.
_SCALING_OPERATORS = ("*", "/")


def host_array(info, func: nodes.FunctionDef, expr, depth: int = 0) -> str | None:
    """What makes ``expr`` a NumPy array that differs between calls (the source text: ``x.asnumpy()``,
    ``np.random.rand(3)``), or None: data of a Tensor, or a sized ``numpy.random`` draw, through NumPy functions,
    array methods, arithmetic and local names bound once; not a NumPy scalar (``np.mean(a)``, ``a.max()``)."""
    if depth > 8:
        return None
    if isinstance(expr, nodes.Name):
        bound = [name.parent.value for name in nodes_of_class(func, nodes.AssignName)
                 if name.name == expr.name and isinstance(name.parent, nodes.Assign)
                 and name.parent.targets == [name]]
        return host_array(info, func, bound[0], depth + 1) if len(bound) == 1 else None
    if isinstance(expr, nodes.BinOp):
        return host_array(info, func, expr.left, depth + 1) or host_array(info, func, expr.right, depth + 1)
    if isinstance(expr, nodes.Compare):  # a mask: (a > 0)
        operands = [expr.left] + [right for _op, right in expr.ops]
        return next((found for found in (host_array(info, func, o, depth + 1) for o in operands) if found), None)
    if isinstance(expr, nodes.UnaryOp):
        return host_array(info, func, expr.operand, depth + 1)
    if not isinstance(expr, nodes.Call):
        return None
    return _host_array_call(info, func, expr, depth)


def _host_array_call(info, func: nodes.FunctionDef, expr: nodes.Call, depth: int) -> str | None:
    """:func:`host_array` of a call: ``t.asnumpy()``, an array method, a sized ``numpy.random`` draw or a NumPy
    function of a host array (not one that reduces it to a scalar)."""
    callee = expr.func
    qualified = info.imports.qualify(callee)
    if qualified is None and isinstance(callee, nodes.Attribute):
        if callee.attrname in ("asnumpy", "numpy") and not expr.args and not expr.keywords:
            return expr.as_string()
        if callee.attrname in ARRAY_SCALAR_METHODS and not expr.args and not expr.keywords:
            return None
        return host_array(info, func, callee.expr, depth + 1)  # a.astype(...), a.reshape(...), a.copy()
    if qualified is None or not qualified.startswith("numpy."):
        return None
    return _numpy_call_array(info, func, expr, qualified, depth)


def _numpy_call_array(info, func: nodes.FunctionDef, expr: nodes.Call, qualified: str, depth: int) -> str | None:
    """:func:`host_array` of a NumPy function's call: a sized ``numpy.random`` draw, or a function of a host
    array that keeps it an array."""
    name = qualified.rsplit(".", 1)[-1]
    if qualified.startswith("numpy.random."):
        position = NUMPY_RANDOM_SIZE_POSITION.get(name)
        sized = position is not None and (len(expr.args) > position
                                          or any(k.arg == "size" for k in expr.keywords or ()))
        return expr.as_string() if sized else None
    if name in NUMPY_KEPT_RIGHT:
        return None
    if name in NUMPY_SCALAR_REDUCTIONS and len(expr.args) == 1 \
            and not any(k.arg in ("axis", "keepdims") for k in expr.keywords or ()):
        return None
    for argument in list(expr.args) + [k.value for k in expr.keywords or ()]:
        found = host_array(info, func, argument, depth + 1)
        if found is not None:
            return found
    return None


def tensor_of_host_data(info, func: nodes.FunctionDef, call: nodes.Call) -> str | None:
    """For ``Tensor(data, ...)`` / ``ms.tensor(data, ...)`` whose data is a host array (:func:`host_array`) and
    whose value is used in a way PIJit computes with the first call's data: the array's source, else None."""
    if info.imports.qualify(call.func) not in api.TENSOR_CONSTRUCTORS or not call.args:
        return None
    source = host_array(info, func, call.args[0])
    if source is None or _kept_right(call, func) or _guarded_by_a_scalar(info, func, call.args[0]):
        return None
    return source


def _guarded_by_a_scalar(info, func: nodes.FunctionDef, expr, depth: int = 0) -> bool:
    """The array is computed with a NumPy scalar reduced from host data (``e / e.sum()``, ``a - np.mean(a)``):
    PIJit guards that scalar by its value and recompiles when it changes. Measured: `x * Tensor(e / e.sum())`,
    `Tensor(e - e.mean())`, `Tensor(e / np.sum(e))` followed their input where `Tensor(e / 2)` did not."""
    if depth > 8:
        return False
    if isinstance(expr, nodes.Name):
        bound = [name.parent.value for name in nodes_of_class(func, nodes.AssignName)
                 if name.name == expr.name and isinstance(name.parent, nodes.Assign)
                 and name.parent.targets == [name]]
        return len(bound) == 1 and _guarded_by_a_scalar(info, func, bound[0], depth + 1)
    if isinstance(expr, nodes.BinOp):
        return any(_scalar_of_host_data(info, func, side) or _guarded_by_a_scalar(info, func, side, depth + 1)
                   for side in (expr.left, expr.right))
    if isinstance(expr, nodes.Call):
        parts = list(expr.args) + [k.value for k in expr.keywords or ()]
        if isinstance(expr.func, nodes.Attribute) and info.imports.qualify(expr.func) is None:
            parts.append(expr.func.expr)
        return any(_guarded_by_a_scalar(info, func, part, depth + 1) for part in parts)
    return False


def _scalar_of_host_data(info, func: nodes.FunctionDef, expr) -> bool:
    """``a.sum()``, ``np.max(a)``, or a name bound once to one, of host data (:func:`host_array`)."""
    if isinstance(expr, nodes.Name):
        bound = [name.parent.value for name in nodes_of_class(func, nodes.AssignName)
                 if name.name == expr.name and isinstance(name.parent, nodes.Assign)
                 and name.parent.targets == [name]]
        return len(bound) == 1 and not isinstance(bound[0], nodes.Name) and _scalar_of_host_data(info, func, bound[0])
    if not isinstance(expr, nodes.Call):
        return False
    callee = expr.func
    qualified = info.imports.qualify(callee)
    if qualified is None and isinstance(callee, nodes.Attribute):
        return callee.attrname in ARRAY_SCALAR_METHODS and not expr.args and not expr.keywords \
            and host_array(info, func, callee.expr) is not None
    if qualified is not None and qualified.startswith("numpy.") \
            and qualified.rsplit(".", 1)[-1] in NUMPY_SCALAR_REDUCTIONS and len(expr.args) == 1 \
            and not any(k.arg in ("axis", "keepdims") for k in expr.keywords or ()):
        return host_array(info, func, expr.args[0]) is not None
    return False


def _kept_right(call: nodes.Call, func: nodes.FunctionDef) -> bool:
    parent = call.parent
    if isinstance(parent, nodes.Assign) and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], nodes.AssignName):
        name = parent.targets[0].name
        uses = [n for n in nodes_of_class(func, nodes.Name) if n.name == name]
        return bool(uses) and all(_returned_plainly(use) for use in uses)
    return _returned_plainly(call)


def _returned_plainly(expr) -> bool:
    parent = expr.parent
    if isinstance(parent, nodes.Return):
        return True
    if isinstance(parent, nodes.BinOp) and parent.op in _SCALING_OPERATORS and isinstance(parent.parent, nodes.Return):
        other = parent.right if parent.left is expr else parent.left
        return isinstance(other, nodes.Const) and isinstance(other.value, (int, float)) \
            and not (parent.op == "/" and other is parent.left)
    if isinstance(parent, nodes.Attribute) and parent.attrname in ARRAY_SCALAR_METHODS \
            and isinstance(parent.parent, nodes.Call) and not parent.parent.args \
            and isinstance(parent.parent.parent, nodes.Return):
        return True
    return False


def skip_list_module(qualified: str | None) -> str | None:
    """The module of PIJit's skip list (generated from the installed MindSpore) a qualified call goes into,
    for a function (not a class or a NumPy scalar type, which PIJit builds: measured, ``np.float32(2.0)`` and
    ``collections.OrderedDict()`` compile under ``fullgraph=True``), else None. ``operator`` functions are
    excepted (measured: ``operator.add(x, x)`` compiles under ``fullgraph=True``; PIJit maps them)."""
    if not qualified:
        return None
    parts = qualified.split(".")
    module = next((".".join(parts[:n]) for n in range(len(parts) - 1, 0, -1)
                   if ".".join(parts[:n]) in pijit_skip.SKIP_MODULES), None)
    if module is None or module in PIJIT_TRACED_MODULES:
        return None
    last = parts[-1]
    if last[:1].isupper() or (module == "numpy" and (last in api.DTYPE_NAMES or last in api.DTYPE_ALIASES
                                                           or last in NUMPY_TYPES)):
        return None
    return module


NUMPY_TYPES = frozenset({"bool_", "ndarray", "dtype", "generic", "number"})
# Modules of the skip list whose functions PIJit still compiles (measured under fullgraph=True).
PIJIT_TRACED_MODULES = frozenset({"operator"})


def is_builtin_next(call: nodes.Call, values) -> bool:
    """``next(...)``, the builtin (not a local or imported name)."""
    func = call.func
    return isinstance(func, nodes.Name) and func.name == "next" and func.name not in values.cfg.defs_by_name \
        and func.name not in values.graph.info.module.locals and bool(call.args)


def eager_fallback_construct(func: nodes.FunctionDef, values, entry: bool = True):
    """The first statement or expression of ``func`` that makes PIJit on Python 3.11 run the whole jitted
    function eagerly (measured: 'JitCompileWithTry] got an unexpected c++ error' logged, no graph): a ``try``, a
    ``with`` or a subscript of a Tensor (``x[0]``, ``x[1:]``); with its label. None if it has none. In a helper
    the jitted function calls (``entry=False``) only the subscript does (measured: a helper's ``x[0]`` made the
    caller run eagerly, a helper's ``try`` did not). A ``try`` followed by a graph break does not count (see
    :func:`_break_from`)."""
    for node in graph_nodes(func):
        if entry and isinstance(node, nodes.Try) and not _break_from(func, values, node):
            return node, "try"
        if entry and isinstance(node, nodes.With):
            return node, "with"
        if isinstance(node, nodes.Subscript) and not isinstance(node.parent, (nodes.Subscript,)) \
                and values.value(node.value).may_be(TENSOR):
            return node, "Tensor subscript"
    return None


def _break_from(func: nodes.FunctionDef, values, start) -> bool:
    """Whether ``func`` has a graph break inside or after ``start`` (a ``try``): a call into the skip list
    (``np.zeros(3)``, ``random.random()``, ``Tensor(np.ones(3))``), ``.asnumpy()`` or a Tensor condition. PIJit on
    Python 3.11 then captures the ``try`` instead of running the function eagerly. Measured with MindSpore 2.10,
    a global read in the ``try`` and changed between calls: each of those after the ``try`` kept its first value
    (so did a read after a ``try`` with a NumPy call inside it); with a ``print``, ``.tolist()``, ``.item()``, a
    list ``append`` or ``math.sqrt`` after it, or a NumPy call before it, the function ran eagerly and followed
    it. A ``with`` or a Tensor subscript followed by a NumPy call still ran eagerly."""
    info = values.graph.info
    begin = (start.lineno, start.col_offset)
    for node in graph_nodes(func):
        if (getattr(node, "lineno", 0) or 0, getattr(node, "col_offset", 0) or 0) < begin:
            continue
        if isinstance(node, nodes.Call):
            func_node = node.func
            if isinstance(func_node, nodes.Attribute) and func_node.attrname in ("asnumpy", "numpy") \
                    and not node.args and info.imports.qualify(func_node) is None:
                return True
            if isinstance(func_node, (nodes.Name, nodes.Attribute)) \
                    and skip_list_module(info.imports.qualify(func_node) or _locally_imported(func_node)) is not None:
                return True
        elif isinstance(node, (nodes.If, nodes.While, nodes.IfExp)) and values.value(node.test).may_be(TENSOR):
            return True
    return False


def _locally_imported(expr) -> str | None:
    """``random.random`` where the function itself has ``import random`` (``import numpy as np``): the qualified
    name, else None (the module's imports are :attr:`ModuleInfo.imports`)."""
    parts = []
    while isinstance(expr, nodes.Attribute):
        parts.append(expr.attrname)
        expr = expr.expr
    if not isinstance(expr, nodes.Name) or not parts:
        return None
    _scope, assigned = expr.lookup(expr.name)
    if len(assigned) != 1 or not isinstance(assigned[0], nodes.Import):
        return None
    module = next((name for name, alias in assigned[0].names if (alias or name.split(".")[0]) == expr.name), None)
    return ".".join([module] + list(reversed(parts))) if module else None


# Conversions a host value goes through on its way to a condition (`float(os.getenv("X", "1")) > 1.5`).
_CONDITION_CONVERSIONS = frozenset({"bool", "float", "int", "len", "str"})


def only_decides_conditions(expr, func: nodes.FunctionDef, depth: int = 0) -> bool:
    """Whether the value of ``expr`` (an ``os.environ`` read) only decides conditions of ``func``: the test of an
    ``if``, ``while`` or conditional expression, through comparisons, ``not``, ``and``/``or``, conversions
    (``float(...)``) and a local name bound once to it. PIJit guards such a value and the branch follows it;
    one that also feeds a computation keeps its first value. Measured with MindSpore 2.10 (Python 3.11), the
    variable changed between calls, with and without ``fullgraph=True``: ``if os.getenv("X") == "2":``,
    ``if "X" in os.environ:``, ``if os.getenv("X"):``, ``if float(os.getenv("X", "1")) > 1.5:`` and a flag
    bound to a comparison then tested followed it; ``x * float(os.environ["X"])``, ``range(int(...))``,
    ``x * (os.getenv("X") == "2")``, ``ops.full(..., float(...))``, ``x * len(os.environ["X"])``, and a value
    both compared and multiplied kept the first call's value."""
    node = expr
    while True:
        parent = node.parent
        if isinstance(parent, (nodes.If, nodes.While, nodes.IfExp)) and parent.test is node:
            return True
        if isinstance(parent, (nodes.Compare, nodes.BoolOp)) \
                or (isinstance(parent, nodes.UnaryOp) and parent.op == "not") \
                or (isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Name)
                    and parent.func.name in _CONDITION_CONVERSIONS and node in parent.args):
            node = parent
            continue
        if isinstance(parent, nodes.Assign) and parent.value is node and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], nodes.AssignName) and depth < 4:
            name = parent.targets[0].name
            bound = [n for n in nodes_of_class(func, nodes.AssignName) if n.name == name]
            uses = [n for n in nodes_of_class(func, nodes.Name) if n.name == name]
            return len(bound) == 1 and bool(uses) and all(only_decides_conditions(use, func, depth + 1)
                                                          for use in uses)
        return False


def runs_eagerly(analysis, graph) -> bool:
    """Whether bytecode capture on Python 3.11 runs graph function ``graph`` as plain Python, every call (PIJit's
    silent eager fallback, W6405): its results are then PYNATIVE's, so nothing a captured function keeps from its
    first call or breaks on holds in it. Measured with MindSpore 2.10 (Python 3.11.7), a global changed between two
    calls, with and without ``fullgraph=True``:

    - a function PIJit captures as a frame of its own runs eagerly when its body has a ``try``, a ``with`` or a
      Tensor subscript, or a function it calls (inlined into it), at any depth, has a Tensor subscript;
    - PIJit captures as a frame of its own the entry, a function that an eagerly run function calls (a helper
      without any of them, called from an entry with a ``try``, kept the global's first value; one with a ``try``
      followed it), and a helper with a ``with`` (its caller, compiled, kept the first value, the helper followed);
    - a helper inlined into a compiled caller is compiled with it (one with a ``try`` kept the first value)."""
    if python_release() != (3, 11) or not graph.capture.profile.startswith("bytecode"):
        return False
    return analysis.project_fact(("bytecode-runs-eagerly", id(graph.node)),
                                 lambda: _runs_eagerly(analysis, graph, frozenset()))


def _runs_eagerly(analysis, graph, visiting: frozenset) -> bool:
    if id(graph.node) in visiting or not graph.capture.profile.startswith("bytecode") \
            or not _frame_eager(analysis, graph):
        return False
    if graph.is_entry or any(isinstance(node, nodes.With) for node in graph_nodes(graph.node)):
        return True
    callers = [caller for caller, _node in analysis.references(graph.node)]
    visiting = visiting | {id(graph.node)}
    return bool(callers) and all(_runs_eagerly(analysis, caller, visiting) for caller in callers)


def _frame_eager(analysis, graph) -> bool:
    """Whether ``graph``, captured as a frame of its own, runs eagerly (see :func:`runs_eagerly`)."""
    def compute():
        values = analysis.values(graph)
        if values is None or eager_fallback_construct(graph.node, values, entry=True) is not None:
            return values is not None
        seen = {id(graph.node)}
        pending = list(analysis.callees(graph))
        while pending:
            callee = pending.pop()
            if id(callee.node) in seen:
                continue
            seen.add(id(callee.node))
            callee_values = analysis.values(callee)
            if callee_values is not None \
                    and eager_fallback_construct(callee.node, callee_values, entry=False) is not None:
                return True
            pending.extend(analysis.callees(callee))
        return False

    return analysis.project_fact(("bytecode-frame-eager", id(graph.node)), compute)


def python_release() -> tuple[int, int]:
    """The Python release bytecode capture is judged for: the interpreter graphlint runs on (graphlint's
    configuration has no target Python; the result cache is keyed on the interpreter's version)."""
    return sys.version_info[:2]
