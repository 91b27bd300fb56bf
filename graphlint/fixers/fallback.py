"""`numpy.<fn>(t)` / `math.<fn>(t)` on a Tensor in graph code -> the matching `ops.<fn>(t)`.

``graphlint.analysis.equivalents.OPS_EQUIVALENTS`` is the whole table: a function is rewritten only if it is
listed there, only with the positional arguments and keywords listed for it, and the ``ops`` spelling comes
from the module's imports (``from mindspore import ops`` is added when needed). Functions measured not to
match are refused with the reason from ``NOT_REWRITTEN`` there.

Unsafe: NumPy returns an ndarray and ``math`` a Python float, the rewrite a Tensor; on integer Tensors
NumPy computes in float64 (``np.sqrt`` of int32 is float64, ``ops.sqrt`` float32) and some ops reject the
dtype (``ops.exp``/``ops.floor`` of int32 raise TypeError); ``math`` rejects a Tensor of several elements
that ops computes element-wise.
"""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.equivalents import NOT_REWRITTEN, OPS_EQUIVALENTS, OpsEquivalent
from graphlint.analysis.kinds import LIST, NONE, NUMPY, SCALARS, TENSOR, TUPLE
from graphlint.catalogue import fallback as fallback_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer


class NumpyMathToOps(Fixer):
    rules = (fallback_rules.NUMPY_CALL_ON_TENSOR, fallback_rules.MATH_CALL_ON_TENSOR)
    safety = FixSafety.UNSAFE
    description = "`np.<fn>(t)` / `math.<fn>(t)` -> `ops.<fn>(t)`"

    def plan(self, finding, context):
        call = finding.node
        if not isinstance(call, nodes.Call) or finding.graph is None:
            return None
        qualified = finding.graph.info.imports.qualify(call.func)
        func = call.func.as_string()
        host = _host_array_argument(call)
        if host:
            return self.refuse(finding, f"`{func}` gets the NumPy array `{host}`, not a Tensor: keep the value a "
                                        "Tensor (no `.asnumpy()`) and compute it with ops by hand")
        if qualified in NOT_REWRITTEN:
            return self.refuse(finding, NOT_REWRITTEN[qualified].format(func=func))
        equivalent = OPS_EQUIVALENTS.get(qualified)
        if equivalent is None:
            return None  # no ops function known to match: the rule's advice stands
        problem = _argument_problem(call, equivalent, func) or \
            _not_tensor_data(call, equivalent, func, context.analysis.values(finding.graph)
                             if context.analysis is not None else None)
        if problem:
            return self.refuse(finding, problem)
        node = context.find(call)
        if not isinstance(node, cst.Call):
            return self.refuse(finding, f"the `{func}(...)` call was not found")
        ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
        if ops_import is not None and _name_taken(call, ops.split(".")[0]):
            return self.refuse(finding, f"`{ops}` is already a name here: import `mindspore.ops` and rewrite by hand")
        target = f"{ops}.{equivalent.name}"
        replacements = [(node.func, build.dotted(target).with_changes(lpar=node.func.lpar, rpar=node.func.rpar))]
        for argument in node.args:
            if argument.keyword is not None and equivalent.keywords[argument.keyword.value] != argument.keyword.value:
                replacements.append((argument.keyword, cst.Name(equivalent.keywords[argument.keyword.value])))
        wrapper = _tensor_wrapper(call, finding.graph.info.imports, context)
        if wrapper is not None:
            # `Tensor(np.f(t))` -> `ops.f(t)`: the result is a Tensor already, and STRICT rejects building a
            # Tensor from a run-time value
            rewritten = node.with_changes(func=replacements[0][1])
            for original, keyword in replacements[1:]:
                rewritten = rewritten.with_changes(args=[a.with_changes(keyword=keyword) if a.keyword is original
                                                         else a for a in rewritten.args])
            replacements = [(wrapper, rewritten.with_changes(lpar=wrapper.lpar, rpar=wrapper.rpar))]
            return self.edit(finding, replacements, imports=[ops_import] if ops_import else [],
                             description=f"`Tensor({func}(...))` -> `{target}(...)`")
        return self.edit(finding, replacements, imports=[ops_import] if ops_import else [],
                         description=f"`{func}(...)` -> `{target}(...)`")


def _tensor_wrapper(call: nodes.Call, imports, context):
    """The libcst `Tensor(...)` call whose only argument is ``call`` (None if there is none)."""
    outer = call.parent
    if not (isinstance(outer, nodes.Call) and outer.args == [call] and not outer.keywords
            and api.canonical(imports.qualify(outer.func) or "") in api.TENSOR_CONSTRUCTORS):
        return None
    found = context.find(outer)
    return found if isinstance(found, cst.Call) else None


def _argument_problem(call: nodes.Call, equivalent: OpsEquivalent, func: str) -> str:
    if any(isinstance(argument, nodes.Starred) for argument in call.args) \
            or any(keyword.arg is None for keyword in call.keywords or ()):
        return f"`*args`/`**kwargs` in `{func}(...)` cannot be matched to `ops.{equivalent.name}`"
    if len(call.args) > equivalent.positional:
        return f"`{func}` with {len(call.args)} positional arguments has no `ops.{equivalent.name}` counterpart"
    for keyword in call.keywords or ():
        if keyword.arg not in equivalent.keywords:
            return f"`{keyword.arg}=` of `{func}` has no counterpart in `ops.{equivalent.name}`"
    if len(call.args) + len(call.keywords or ()) < equivalent.required:
        return f"`{func}` with fewer than {equivalent.required} arguments is not `ops.{equivalent.name}`"
    if equivalent.axis_none_differs:
        axis = [k.value for k in call.keywords or () if k.arg == "axis"] + call.args[1:2]
        if any(isinstance(value, nodes.Const) and value.value is None for value in axis):
            return f"`axis=None` flattens in `{func}`; `ops.{equivalent.name}` needs an axis"
    return ""


_OPERAND_KINDS = SCALARS | {TENSOR}
_OPTION_KINDS = SCALARS | {TENSOR, NONE, TUPLE, LIST}


def _not_tensor_data(call: nodes.Call, equivalent: OpsEquivalent, func: str, values) -> str:
    """Why the analysis does not prove that ``call`` computes on a Tensor ('' when it does): one of the data
    arguments a proven Tensor (every element, for a sequence), the other data arguments Tensors or numbers, the
    options no NumPy array. `math.exp(-float(t.asnumpy()))` computes on a Python float: `ops.exp` of it is
    another function, not the same one on a Tensor."""
    target = f"ops.{equivalent.name}"
    if values is None:
        return f"no analysis of the graph code: the arguments of `{func}` are not proven Tensors"
    data, options = call.args[:equivalent.operands], call.args[equivalent.operands:]
    options = list(options) + [keyword.value for keyword in call.keywords or ()]
    proven = False
    for argument in data:
        parts = argument.elts if equivalent.sequence and isinstance(argument, (nodes.List, nodes.Tuple)) \
            else [argument]
        for part in parts:
            value = values.value(part)
            if value.is_tensor:
                proven = True
            elif equivalent.sequence or not value.kinds or not value.kinds <= _OPERAND_KINDS:
                return _unproven(part, value, func, target)
    if not proven:
        return _unproven(data[0], values.value(data[0]), func, target) if data else \
            f"`{func}` gets no Tensor to compute on"
    for option in options:
        value = values.value(option)
        if value.may_be(NUMPY) or not value.kinds <= _OPTION_KINDS:
            return _unproven(option, value, func, target, "an argument of")
    return ""


def _unproven(argument: nodes.NodeNG, value, func: str, target: str, role: str = "the data of") -> str:
    text = argument.as_string()
    kinds = " or ".join(sorted(value.kinds)) if value.kinds else "unknown"
    if value.may_be(NUMPY):
        return (f"`{text}`, {role} `{func}`, is a NumPy array, not a Tensor: keep the value a Tensor (no "
                "`.asnumpy()`) and compute it with ops by hand")
    return (f"`{text}`, {role} `{func}`, is not proven a Tensor (the analysis finds: {kinds}): `{target}` "
            f"computes the same only on a Tensor; make the value a Tensor (no `float()`/`.item()`/"
            f"`.asnumpy()` before it) to have it rewritten")


def _host_array_argument(call: nodes.Call) -> str:
    """The text of an argument that is already a NumPy array (`t.asnumpy()`), where ops would reject it."""
    for argument in list(call.args) + [keyword.value for keyword in call.keywords or ()]:
        if isinstance(argument, nodes.Call) and isinstance(argument.func, nodes.Attribute) \
                and argument.func.attrname in api.HOST_ARRAY_METHODS and not argument.args:
            return argument.as_string()
    return ""


def _name_taken(call: nodes.Call, name: str) -> bool:
    """``name`` is bound in the function or the module, so an added ``from mindspore import ops`` would clash."""
    return name in call.scope().locals or name in call.root().locals


FIXERS = (NumpyMathToOps(),)
