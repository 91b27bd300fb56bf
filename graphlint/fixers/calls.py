"""Fixes of single calls graph code refuses, each replaced by what it computes:

* `eval("n + 1")` of a constant string (E5114) -> the expression `(n + 1)`;
* a `@classmethod` called from graph code whose body never reads `cls` (E5117) -> a `@staticmethod`;
* `Parameter(Tensor(...), name=...)` made in graph code and only read (E6002) -> the Tensor;
* a lambda default argument of `__init__` that graph code calls (E6003) -> a module-level `def`;
* `t.asnumpy().shape` / `.ndim` (W5501) -> `t.shape` / `t.ndim`;
* `Tensor(t)` of a Tensor (W5504) -> `t`;
* a `@dataclass` or `namedtuple` made from Tensors and only read by field (W5508) -> a tuple;
* a forbidden call whose result nothing uses (E6001) -> dropped;
* ``type(x) == Tensor`` (W5505) -> ``isinstance(x, Tensor)``;
* a dict returned by a top-level graph (W5507) -> a tuple, as a suggestion (the callers change).
"""

from __future__ import annotations

import builtins

import libcst as cst
from astroid import nodes

from graphlint.analysis import api, signatures
from graphlint.analysis.provenance import locally_bound, side_effect
from graphlint.catalogue import fallback as fallback_rules
from graphlint.catalogue import refused as refused_rules
from graphlint.catalogue import statements as statements_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer, unused_name

_NESTED_SCOPES = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.NamedExpr, cst.Yield,
                  cst.Await)


class EvalToExpression(Fixer):
    """``eval("n + 1")`` -> ``(n + 1)``: the string is a constant, so the expression is known before the code
    runs; written in place it reads the same locals, globals and builtins that ``eval`` gives it (a name of an
    enclosing function, which ``eval`` would not see, is refused). Safe."""

    rules = (statements_rules.EVAL_WITHOUT_NAMESPACE,)
    safety = FixSafety.SAFE
    description = "`eval` of a constant string -> the expression"

    def plan(self, finding, context):
        call = finding.node
        if not isinstance(call, nodes.Call) or len(call.args) != 1 or call.keywords:
            return self.refuse(finding, "`eval` with a namespace: write the expression by hand")
        values = context.values_of(finding)
        argument = call.args[0]
        value = values.value(argument) if values is not None else None
        text = argument.value if isinstance(argument, nodes.Const) else \
            value.const if value is not None and value.known and not value.var else None
        if not isinstance(text, str):
            return self.refuse(finding, "the string is not a constant the analysis knows: write the expression by "
                                        "hand")
        try:
            expression = cst.parse_expression(text.strip())
        except Exception:  # noqa: BLE001 - libcst's parser errors
            return self.refuse(finding, f"`{text}` is not an expression: write the code by hand")
        if _contains(expression, _NESTED_SCOPES):
            return self.refuse(finding, f"`{text}` holds a lambda, a comprehension or an assignment expression, "
                                        "whose scope differs in place: write it by hand")
        function = call.scope()
        module = call.root()
        for name in sorted({n.value for n in _names(expression)}):
            if name in function.locals or name in module.locals or hasattr(builtins, name):
                continue
            return self.refuse(finding, f"`{name}` is not a local, a global or a builtin here (a name of an "
                                        "enclosing function `eval` does not see): write the expression by hand")
        node = context.find(call)
        if not isinstance(node, cst.Call):
            return self.refuse(finding, "the `eval(...)` call was not found")
        if node.lpar:  # `(eval(...))`: its own parentheses hold the expression
            replacement = expression.with_changes(lpar=node.lpar, rpar=node.rpar)
        else:  # a call binds tighter than any operator: `x * eval("n + 1")` -> `x * (n + 1)`
            replacement = build.operand(expression, build.PRIMARY)
        return self.edit(finding, [(node, replacement)],
                         description=f"`eval({text!r})` -> `{context.code(replacement)}`")


class ClassMethodToStatic(Fixer):
    """``@classmethod def f(cls, x, y)`` whose body never reads ``cls`` -> ``@staticmethod def f(x, y)``: every
    caller (``self.f``, ``Net.f``, ``type(self).f``) passes the same arguments, and the body computes the same
    without the class; graph code calls a static method as Python does (the catalogue's E5117). Safe; a body that
    reads ``cls`` (a class constant, another class method) is refused."""

    rules = (statements_rules.CLASSMETHOD_CALL_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "`@classmethod` that never reads `cls` -> `@staticmethod`"

    def plan(self, finding, context):
        call = finding.node
        graph = finding.graph
        if not isinstance(call, nodes.Call) or graph is None or context.analysis is None:
            return None
        self_name = signatures.instance_name(graph.node, graph.cls)
        found = signatures.called_method(context.analysis.project, graph.info, graph.cls, self_name, call)
        if found is None:
            return self.refuse(finding, "the class method was not found")
        method, owner = found
        if method.root() is not call.root():
            return self.refuse(finding, f"`{owner.name}.{method.name}` is in another module: make it a "
                                        "`@staticmethod` there")
        parameters = signatures.positional_parameters(method)
        cls_name = parameters[0].name
        reads = [n for n in method.nodes_of_class(nodes.Name) if n.name == cls_name]
        problem = _class_reads_problem(reads, owner, method) if reads else ""
        if problem:
            return self.refuse(finding, problem)
        node = _method_node(context.tree, owner, method)
        if node is None or not node.params.params:
            return self.refuse(finding, f"`{method.name}` was not found")
        decorators = [d for d in node.decorators if isinstance(d.decorator, cst.Name)
                      and d.decorator.value == "classmethod"]
        if len(decorators) != 1:
            return self.refuse(finding, f"`{method.name}` is not decorated with a plain `@classmethod`")
        new_decorators = [d.with_changes(decorator=cst.Name("staticmethod")) if d is decorators[0] else d
                          for d in node.decorators]
        params = list(node.params.params[1:])
        if params and node.params.star_arg is cst.MaybeSentinel.DEFAULT and not node.params.kwonly_params \
                and node.params.star_kwarg is None:
            params[-1] = params[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        new = node.with_changes(decorators=new_decorators, params=node.params.with_changes(params=params))
        if reads:  # `cls.factor` -> `Base.factor`: the class by name
            new = new.with_changes(body=build.rename(new.body, {cls_name: owner.name}))
            return self.edit(finding, [(node, new)], safety=FixSafety.UNSAFE,
                             description=f"`{owner.name}.{method.name}`: `@classmethod` -> `@staticmethod`, "
                                         f"`{cls_name}.` -> `{owner.name}.` (no subclass in the module overrides what "
                                         "it reads)")
        return self.edit(finding, [(node, new)],
                         description=f"`{owner.name}.{method.name}`: `@classmethod` -> `@staticmethod`, without "
                                     f"`{cls_name}`")


class ParameterToTensor(Fixer):
    """``w = Parameter(Tensor(...), name="w")`` in graph code, with ``w`` only read -> ``w = Tensor(...)``: a
    Parameter made on every call is never trained nor kept, so only its value counts. Unsafe: a gradient taken
    with respect to it, or code that looks at its name, sees a Tensor."""

    rules = (refused_rules.PARAMETER_CREATED_IN_GRAPH,)
    safety = FixSafety.UNSAFE
    description = "`Parameter(t, ...)` made in graph code -> `t`"

    def plan(self, finding, context):
        call = finding.node
        values = context.values_of(finding)
        if not isinstance(call, nodes.Call) or values is None:
            return None
        data = call.args[0] if call.args else next((k.value for k in call.keywords or ()
                                                    if k.arg == "default_input"), None)
        if data is None or isinstance(data, nodes.Starred):
            return self.refuse(finding, "the Parameter's data was not found")
        if not values.value(data).is_tensor:
            return self.refuse(finding, f"`{data.as_string()[:40]}` is not proven a Tensor: create the Parameter in "
                                        "`__init__` (by hand)")
        statement = call.parent
        if isinstance(statement, nodes.Assign) and statement.value is call and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], nodes.AssignName):
            name = statement.targets[0].name
            for use in call.scope().nodes_of_class(nodes.Name):
                if use.name != name:
                    continue
                holder = use.parent
                if isinstance(holder, nodes.Attribute) or (isinstance(holder, nodes.Call) and use in holder.args and (
                        values.imports.qualify(holder.func) or "") in api.ASSIGN_OPS):
                    return self.refuse(finding, f"`{holder.as_string()[:40]}` uses `{name}` as a Parameter (an "
                                                "attribute, an assignment): create it in `__init__` (by hand)")
        elif not isinstance(call.parent, (nodes.BinOp, nodes.Call)):
            return self.refuse(finding, "the Parameter is not only read: create it in `__init__` (by hand)")
        node = context.find(call)
        found = context.find(data) if node is not None else None
        if not isinstance(node, cst.Call) or found is None:
            return self.refuse(finding, "the `Parameter(...)` call was not found")
        return self.edit(finding, [(node, found.with_changes(lpar=node.lpar, rpar=node.rpar))],
                         description=f"`Parameter({data.as_string()[:30]}, ...)` -> its Tensor")


class LambdaDefaultToFunction(Fixer):
    """``def __init__(self, combine=lambda t: t * 2)`` -> ``def _combine_default(t): return t * 2`` at module level
    and ``combine=_combine_default``: MindSpore reads a lambda's source line and refuses one on a `def` line, but
    compiles a module function. Safe: a default is made once, when the `def` runs, from the names of the module
    (a lambda reading anything else is refused)."""

    rules = (refused_rules.LAMBDA_DEFAULT_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "lambda default argument -> a module-level function"

    def plan(self, finding, context):
        graph = finding.graph
        attr, parameter = finding.args.get("attr", ""), finding.args.get("parameter", "")
        if graph is None or graph.cls is None or context.analysis is None or not parameter:
            return None
        lambdas = _lambda_defaults(context.analysis, graph.cls, attr, parameter)
        if len(lambdas) != 1:
            return self.refuse(finding, f"the lambda default of `{parameter}` was not found once")
        function = lambdas[0]
        module = function.root()
        if module is not finding.node.root():
            return self.refuse(finding, "the lambda is in another module: rewrite it there")
        if function.args.defaults or function.args.kw_defaults and any(function.args.kw_defaults) \
                or function.args.vararg or function.args.kwarg:
            return self.refuse(finding, "the lambda has defaults or `*args`: write the function by hand")
        own = {a.name for a in function.args.args or []} | {a.name for a in function.args.kwonlyargs or []}
        for name in function.body.nodes_of_class(nodes.Name):
            if name.name not in own and name.name not in module.locals \
                    and not hasattr(builtins, name.name):
                return self.refuse(finding, f"the lambda reads `{name.name}`, which is no module name: write the "
                                            "function by hand")
        lam = context.find(function)
        if not isinstance(lam, cst.Lambda):
            return self.refuse(finding, "the lambda was not found")
        taken = set(module.locals) | {n.name for n in module.nodes_of_class((nodes.Name, nodes.AssignName))}
        name = unused_name(f"_{parameter}_default", taken)
        definition = cst.FunctionDef(name=cst.Name(name), params=lam.params,
                                     body=cst.IndentedBlock(body=[build.returns(lam.body)]),
                                     leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
        return self.edit(finding, [(lam, cst.Name(name))], module_prefix=[definition],
                         description=f"the lambda default of `{parameter}` -> `def {name}(...)` at module level")


class HostShapeToTensorShape(Fixer):
    """``t.asnumpy().shape`` -> ``t.shape`` (and ``.ndim``): the copy's shape is the Tensor's, as the same tuple of
    ints (or int). Safe."""

    rules = (fallback_rules.ASNUMPY_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "`t.asnumpy().shape` -> `t.shape`"

    def plan(self, finding, context):
        call = finding.node
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute)
                and call.func.attrname in api.HOST_ARRAY_METHODS and not call.args and not call.keywords):
            return None
        holder = call.parent
        if not (isinstance(holder, nodes.Attribute) and holder.expr is call and holder.attrname in ("shape", "ndim")):
            return None  # the copy's values are used: the rule's advice stands
        node = context.find(call)
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return self.refuse(finding, "the call was not found")
        receiver = node.func.value
        return self.edit(finding, [(node, receiver.with_changes(lpar=node.lpar or receiver.lpar,
                                                                rpar=node.rpar or receiver.rpar))],
                         description=f"`{holder.as_string()}` -> `{call.func.expr.as_string()}.{holder.attrname}`")


class DropUnreadHostCopy(Fixer):
    """``a = t.asnumpy()`` with ``a`` never read in the function (or a bare ``t.asnumpy()``), ``t`` a proven Tensor
    read without side effects -> dropped: the copy only reads the Tensor, and nothing uses it. Safe (what changes is
    the time the copy took)."""

    rules = (fallback_rules.ASNUMPY_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "drop an unread `a = t.asnumpy()`"

    def plan(self, finding, context):
        call = finding.node
        values = context.values_of(finding)
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute)
                and call.func.attrname in api.HOST_ARRAY_METHODS and not call.args and not call.keywords) \
                or values is None:
            return None
        statement = call.parent
        bare = isinstance(statement, nodes.Expr) and statement.value is call
        if not bare and not _unread_pure_assignment(statement, call, values):
            return None  # the copy's values are used: the rule's advice stands
        receiver = call.func.expr
        if not values.value(receiver).is_tensor or side_effect(values, receiver) is not None:
            return self.refuse(finding, f"`{receiver.as_string()[:40]}` is not proven a Tensor read without side "
                                        "effects: drop the unused copy by hand where it is one")
        found = context.find(statement)
        removal = context.remove_statement(found) if found is not None else []
        if not removal:
            return self.refuse(finding, "the statement is not alone on its line")
        return self.edit(finding, removal,
                         description=f"drop `{' '.join(statement.as_string().split())[:50]}`: the copy is never read")


class TensorOfTensorToTensor(Fixer):
    """``Tensor(t)`` of a Tensor -> ``t``: the same values, dtype and shape. Unsafe: ``Tensor(t)`` is a copy, so an
    in-place update of one would no longer leave the other as it was."""

    rules = (fallback_rules.TENSOR_CONSTRUCTOR_ON_TENSOR,)
    safety = FixSafety.UNSAFE
    description = "`Tensor(t)` of a Tensor -> `t`"

    def plan(self, finding, context):
        call = finding.node
        values = context.values_of(finding)
        if not isinstance(call, nodes.Call) or values is None:
            return None
        if len(call.args) != 1 or call.keywords or isinstance(call.args[0], nodes.Starred):
            return self.refuse(finding, "`Tensor(...)` with a dtype or more arguments: use `ops.cast(t, dtype)` "
                                        "(by hand)")
        data = call.args[0]
        if not values.value(data).is_tensor:
            return self.refuse(finding, f"`{data.as_string()[:40]}` is not proven a Tensor")
        if locally_bound(call.func, values):
            return self.refuse(finding, "`Tensor` is a name of this code")
        node = context.find(call)
        found = context.find(data) if isinstance(node, cst.Call) else None
        if found is None:
            return self.refuse(finding, "the `Tensor(...)` call was not found")
        return self.edit(finding, [(node, found.with_changes(lpar=node.lpar or found.lpar,
                                                             rpar=node.rpar or found.rpar))],
                         description=f"`Tensor({data.as_string()[:30]})` -> `{data.as_string()[:30]}`")


class RecordToTuple(Fixer):
    """``out = Output(x * 2)`` of a ``@dataclass`` or ``namedtuple`` whose instance is only read by field
    (``out.value``) -> ``out = (x * 2,)`` and ``out[0]``: the same values, in a tuple graph code holds. Safe: the
    object never leaves the function (every use of the name reads a field), so nothing sees that it is a tuple."""

    rules = (fallback_rules.PYTHON_OBJECT_FROM_TENSOR,)
    safety = FixSafety.SAFE
    description = "a dataclass or namedtuple only read by field -> a tuple"

    def plan(self, finding, context):
        call = finding.node
        values = context.values_of(finding)
        if not isinstance(call, nodes.Call) or values is None:
            return None
        fields = _record_fields(call)
        if isinstance(fields, str):
            return self.refuse(finding, fields)
        statement = call.parent
        if not (isinstance(statement, nodes.Assign) and statement.value is call and len(statement.targets) == 1
                and isinstance(statement.targets[0], nodes.AssignName)):
            return self.refuse(finding, "the object is not assigned to a name: write the tuple by hand")
        name = statement.targets[0].name
        given = _given_fields(call, fields)
        if isinstance(given, str):
            return self.refuse(finding, given)
        if len(values.cfg.defs_by_name.get(name, ())) != 1:
            return self.refuse(finding, f"`{name}` is assigned more than once")
        if list(given) != fields and any(side_effect(values, v) is not None for v in given.values()):
            # keywords out of field order: the tuple evaluates them in field order
            return self.refuse(finding, "keyword arguments out of field order, with side effects: write the tuple "
                                        "by hand")
        replacements = _field_reads(call.scope(), name, fields, context)
        if isinstance(replacements, str):
            return self.refuse(finding, replacements)
        node = context.find(call)
        if not isinstance(node, cst.Call):
            return self.refuse(finding, "the construction was not found")
        by_field = {}
        for field, argument in zip(fields, [a for a in node.args if a.keyword is None]):
            by_field[field] = argument.value
        for argument in node.args:
            if argument.keyword is not None:
                by_field[argument.keyword.value] = argument.value
        replacements.append((node, build.tuple_of([by_field[f] for f in fields]).with_changes(
            lpar=node.lpar or [cst.LeftParen()], rpar=node.rpar or [cst.RightParen()])))
        return self.edit(finding, replacements, description=f"`{call.func.as_string()}(...)` -> a tuple, "
                                                            f"`{name}.<field>` -> `{name}[i]`")


def _unread_pure_assignment(statement, call, values) -> bool:
    """``name = call(...)``, ``name`` never read in the function and no argument with a side effect."""
    if not (isinstance(statement, nodes.Assign) and statement.value is call and len(statement.targets) == 1
            and isinstance(statement.targets[0], nodes.AssignName)):
        return False
    name = statement.targets[0].name
    arguments = list(call.args) + [keyword.value for keyword in call.keywords or ()]
    return not any(n.name == name for n in call.scope().nodes_of_class(nodes.Name)) \
        and all(side_effect(values, argument) is None for argument in arguments)


class DropForbiddenCall(Fixer):
    """A call graph code forbids whose result nothing uses -> dropped: ``params = self.inner.get_parameters()`` with
    ``params`` never read (a method that only reads the Cell: safe), ``w = initializer(...)`` with ``w`` never read
    (a function that only makes a value, with arguments free of side effects: safe), ``logger.warning(...)`` of
    ``mindspore.log`` (unsafe: the log no longer appears, as it would in PYNATIVE_MODE on every call). A call whose effect or result
    is used (``p.set_data(v)``, ``ms.get_context(...)`` in a test) is refused with what to do instead."""

    rules = (refused_rules.JIT_FORBIDDEN_API,)
    safety = FixSafety.SAFE
    description = "drop a forbidden call whose result nothing uses"

    def plan(self, finding, context):
        call = finding.node
        values = context.values_of(finding)
        if not isinstance(call, nodes.Call) or values is None:
            return None
        statement = call.parent
        qualified = values.imports.qualify(call.func) or ""
        method = call.func.attrname if isinstance(call.func, nodes.Attribute) else ""
        if isinstance(statement, nodes.Expr) and statement.value is call \
                and qualified.startswith("mindspore.log."):
            return self._drop(finding, context, statement, FixSafety.UNSAFE, "the log no longer appears")
        if qualified in api.VALUE_ONLY_CALLS and _unread_pure_assignment(statement, call, values):
            name = statement.targets[0].name
            return self._drop(finding, context, statement, FixSafety.SAFE, f"`{name}` is never read")
        if isinstance(statement, nodes.Assign) and statement.value is call and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], nodes.AssignName) and not qualified \
                and method in api.CELL_READING_METHODS:
            name = statement.targets[0].name
            if not any(n.name == name for n in call.scope().nodes_of_class(nodes.Name)):
                return self._drop(finding, context, statement, FixSafety.SAFE, f"`{name}` is never read")
            return self.refuse(finding, f"`{name}` is read: take what `{method}()` gives in `__init__` and keep it "
                                        "on `self` (by hand)")
        if method == "set_data":
            return self.refuse(finding, "`set_data` may change the Parameter's shape and dtype: write "
                                        "`ops.assign(param, value)` where they agree (by hand)")
        return self.refuse(finding, "the call's result is used: compute it in `__init__` and keep it on `self` (by "
                                    "hand)")

    def _drop(self, finding, context, statement, safety, why):
        found = context.find(statement)
        removal = context.remove_statement(found) if found is not None else []
        if not removal:
            return self.refuse(finding, "the statement is not alone on its line")
        return self.edit(finding, removal, safety=safety,
                         description=f"drop `{' '.join(statement.as_string().split())[:50]}`: {why}")


class TypeCompareToIsinstance(Fixer):
    """``type(x) == Tensor`` (``is``; ``!=`` / ``is not``) -> ``isinstance(x, Tensor)`` (``not isinstance``): graph code
    answers `isinstance` while compiling, where `type(...)` of a graph value runs by JIT fallback. Unsafe: a
    Parameter (a subclass of Tensor) is a Tensor to `isinstance` and not to `type(x) == Tensor`."""

    rules = (fallback_rules.TYPE_OF_GRAPH_VALUE,)
    safety = FixSafety.UNSAFE
    description = "`type(x) == Tensor` -> `isinstance(x, Tensor)`"

    def plan(self, finding, context):
        call = finding.node
        values = context.values_of(finding)
        compare = call.parent if isinstance(call, nodes.Call) else None
        if values is None or not (isinstance(compare, nodes.Compare) and compare.left is call
                                  and len(compare.ops) == 1 and compare.ops[0][0] in ("==", "is", "!=", "is not")):
            return self.refuse(finding, "`type(...)` is not compared with a class: compare dtypes (`x.dtype`) or "
                                        "use `isinstance` by hand")
        klass = compare.ops[0][1]
        if api.canonical(values.imports.qualify(klass) or "") not in api.TENSOR_CONSTRUCTORS:
            return self.refuse(finding, f"`{klass.as_string()}` is not MindSpore's Tensor class: use `isinstance` "
                                        "by hand")
        node = context.find(compare)
        if not isinstance(node, cst.Comparison) or not isinstance(node.left, cst.Call) or not node.left.args:
            return self.refuse(finding, "the comparison was not found")
        test = build.call("isinstance", node.left.args[0].value, node.comparisons[0].comparator)
        if compare.ops[0][0] in ("!=", "is not"):
            test = cst.UnaryOperation(operator=cst.Not(), expression=test)
        return self.edit(finding, [(node, test.with_changes(lpar=node.lpar, rpar=node.rpar))],
                         description=f"`{compare.as_string()}` -> `{context.code(test)}`")


class DictOutputToTuple(Fixer):
    """``return {"logits": x, "probs": p}`` of a top-level graph -> ``return x, p`` (in the dict's order), shown as a
    suggestion only: every caller then reads ``out[0]`` where it read ``out["logits"]``, which graphlint cannot
    rewrite for it (the callers are host code, often in other modules)."""

    rules = (fallback_rules.DICT_OUTPUT_FROM_GRAPH,)
    safety = FixSafety.DISPLAY
    description = "a dict output -> a tuple (the callers change)"

    def plan(self, finding, context):
        statement = finding.node
        value = statement.value if isinstance(statement, nodes.Return) else None
        if not isinstance(value, nodes.Dict) or not value.items \
                or not all(isinstance(k, nodes.Const) and isinstance(k.value, str) for k, _ in value.items):
            return self.refuse(finding, "not a dict literal with str keys: build the tuple by hand")
        node = context.find(statement)
        if not isinstance(node, cst.Return) or not isinstance(node.value, cst.Dict):
            return self.refuse(finding, "the `return` was not found")
        returned = build.tuple_of([element.value for element in node.value.elements], bare=True)
        keys = ", ".join(f"`{k.value}`" for k, _ in value.items)
        return self.edit(finding, [(node, node.with_changes(value=returned))],
                         description=f"return a tuple instead of the dict of {keys}: each caller then reads the "
                                     "outputs by position (rewrite them too)")


def _lambda_defaults(analysis, cls, attr: str, parameter: str) -> list:
    """The lambdas ``__init__`` gives ``parameter`` as its default, where ``self.attr = parameter``."""
    lambdas = []
    for value, method in analysis.attribute_assignments(cls).get(attr, ()):
        if method.name == "__init__" and isinstance(value, nodes.Name) and value.name == parameter:
            try:
                default = method.args.default_value(parameter)
            except Exception:  # noqa: BLE001 - astroid raises NoDefault
                continue
            if isinstance(default, nodes.Lambda):
                lambdas.append(default)
    return lambdas


def _given_fields(call: nodes.Call, fields: list) -> dict | str:
    """field -> the argument ``call`` gives it (every field, once), or why not (a str)."""
    if any(isinstance(a, nodes.Starred) for a in call.args) or any(k.arg is None for k in call.keywords or ()):
        return "`*args`/`**kwargs` in the construction: write the tuple by hand"
    given = {field: argument for field, argument in zip(fields, call.args)}
    for keyword in call.keywords or ():
        if keyword.arg not in fields or keyword.arg in given:
            return f"`{keyword.arg}=` is not a field of the record"
        given[keyword.arg] = keyword.value
    if len(call.args) > len(fields) or set(given) != set(fields):
        return "not every field is given (a default, a missing one): write the tuple by hand"
    return given


def _field_reads(function, name: str, fields: list, context) -> list | str:
    """The replacements of every ``name.field`` read in ``function`` by ``name[i]``, or why a use is another (a
    str)."""
    replacements = []
    for use in (n for n in function.nodes_of_class(nodes.Name) if n.name == name):
        holder = use.parent
        if not (isinstance(holder, nodes.Attribute) and holder.expr is use and holder.attrname in fields):
            return f"`{holder.as_string()[:40]}` uses `{name}` other than by reading a field: it would see a tuple"
        found = context.find(holder)
        if not isinstance(found, cst.Attribute):
            return f"`{holder.as_string()}` was not found"
        replacements.append((found, build.subscript(found.value, build.integer(fields.index(holder.attrname)))
                             .with_changes(lpar=found.lpar, rpar=found.rpar)))
    return replacements


def _record_fields(call: nodes.Call):
    """The field names of the dataclass or namedtuple ``call`` makes, in order; else why not (a str)."""
    if not isinstance(call.func, nodes.Name):
        return "the record class is not a name of this module"
    try:
        _scope, found = call.func.lookup(call.func.name)
    except Exception:  # noqa: BLE001 - astroid lookups on odd code
        return "the record class was not found"
    if len(found) != 1:
        return "the record class is defined more than once"
    definition = found[0]
    if isinstance(definition, nodes.ClassDef):
        return _dataclass_fields(definition)
    if isinstance(definition, nodes.AssignName) and isinstance(definition.parent, nodes.Assign):
        return _namedtuple_fields(definition.parent.value, call.func.name)
    return "the record class is neither a `@dataclass` nor a `namedtuple`"


def _class_reads_problem(reads, owner: nodes.ClassDef, method: nodes.FunctionDef) -> str:
    """Why the reads of the class parameter cannot become the class's name ('' when they can): each must be
    ``cls.<attr>`` of a class-body attribute of ``owner`` that no subclass of it in the module defines again, and
    ``owner`` a module-level class."""
    if not isinstance(owner.parent, nodes.Module):
        return f"`{owner.name}` is not a module-level class: rewrite `{method.name}` by hand"
    module = owner.root()
    subclasses = [c for c in module.nodes_of_class(nodes.ClassDef) if c is not owner
                  and any(base.as_string() == owner.name for base in c.bases)]
    for read in reads:
        holder = read.parent
        if not (isinstance(holder, nodes.Attribute) and holder.expr is read):
            return (f"`{method.name}` uses `{read.name}` itself (`{holder.as_string()[:40]}`): as a static method it "
                    "would need the class by name; rewrite it by hand")
        if holder.attrname not in owner.locals or isinstance(owner.locals[holder.attrname][0], nodes.FunctionDef):
            return (f"`{holder.as_string()}` is not a class attribute of `{owner.name}` (a method, or one a base "
                    "gives): rewrite it by hand")
        overriding = [c.name for c in subclasses if holder.attrname in c.locals]
        if overriding:
            return (f"`{overriding[0]}` overrides `{holder.attrname}`, which `{read.name}` reads for it: rewrite "
                    f"`{method.name}` by hand")
    return ""


def _dataclass_fields(definition: nodes.ClassDef):
    decorators = [d.as_string() for d in definition.decorators.nodes] if definition.decorators else []
    if decorators not in (["dataclass"], ["dataclasses.dataclass"]) or definition.bases:
        return f"`{definition.name}` is not a plain `@dataclass` (bases, options, other decorators)"
    fields = []
    for statement in definition.body:
        if isinstance(statement, nodes.AnnAssign) and isinstance(statement.target, nodes.AssignName):
            if statement.value is not None:
                return f"`{definition.name}.{statement.target.name}` has a default"
            fields.append(statement.target.name)
        elif isinstance(statement, (nodes.FunctionDef, nodes.Assign)):
            return f"`{definition.name}` has methods or class attributes: write the tuple by hand"
    return fields or f"`{definition.name}` has no fields"


def _namedtuple_fields(made, name: str):
    if isinstance(made, nodes.Call) and made.func.as_string() in ("namedtuple", "collections.namedtuple") \
            and len(made.args) == 2 and not made.keywords:
        names = made.args[1]
        if isinstance(names, (nodes.List, nodes.Tuple)) and all(
                isinstance(e, nodes.Const) and isinstance(e.value, str) for e in names.elts):
            return [e.value for e in names.elts]
        if isinstance(names, nodes.Const) and isinstance(names.value, str):
            return names.value.replace(",", " ").split()
    return f"`{name}` is not a `namedtuple(name, [fields])`"


def _method_node(tree: cst.Module, owner: nodes.ClassDef, method: nodes.FunctionDef) -> cst.FunctionDef | None:
    """The libcst `def` of ``method`` in the module-level class ``owner`` (its span starts at the decorators,
    where astroid's starts at `def`), or None when that is not one `def` of a module-level class."""
    if not isinstance(owner.parent, nodes.Module) or method.parent is not owner:
        return None
    classes = [s for s in tree.body if isinstance(s, cst.ClassDef) and s.name.value == owner.name]
    if len(classes) != 1 or not isinstance(classes[0].body, cst.IndentedBlock):
        return None
    found = [s for s in classes[0].body.body if isinstance(s, cst.FunctionDef) and s.name.value == method.name]
    return found[0] if len(found) == 1 else None


def _contains(node: cst.CSTNode, kinds) -> bool:
    found = []

    class _Finder(cst.CSTVisitor):
        def on_visit(self, inner) -> bool:
            if isinstance(inner, kinds):
                found.append(inner)
            return not found

    node.visit(_Finder())
    return bool(found)


def _names(node: cst.CSTNode) -> list[cst.Name]:
    """The names ``node`` reads (not attribute names or keywords)."""
    found = []

    class _Finder(cst.CSTVisitor):
        def visit_Attribute(self, inner) -> bool:
            inner.value.visit(self)
            return False

        def visit_Arg(self, inner) -> bool:
            inner.value.visit(self)
            return False

        def visit_Name(self, inner) -> None:
            found.append(inner)

    node.visit(_Finder())
    return found


FIXERS = (EvalToExpression(), ClassMethodToStatic(), ParameterToTensor(), LambdaDefaultToFunction(),
          HostShapeToTensorShape(), DropUnreadHostCopy(), TensorOfTensorToTensor(), RecordToTuple(),
          DropForbiddenCall(), TypeCompareToIsinstance(), DictOutputToTuple())
