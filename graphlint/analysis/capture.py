"""What ``mindspore.jit(capture_mode="trace")`` freezes, as facts about code (measured with MindSpore 2.10, CPU).

A traced function runs eagerly on its first call per input key (shapes, dtypes, scalar arguments), which is
recorded; later calls replay the recorded ops only. Python side effects and values that are not Tensor ops of
the inputs (a print, a Cell attribute, ``self.training``, an assert) therefore keep what the first call did.
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.tree import nodes_of_class

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
