"""Fixes of the builtins family: `reversed(...)` iterated in graph code -> a slice or a descending `range`.

``for layer in reversed(self.layers)`` -> ``for layer in self.layers[::-1]``; ``reversed(range(n))`` ->
``range(n - 1, -1, -1)``; ``reversed(range(a, b))`` -> ``range(b - 1, a - 1, -1)``. Measured with MindSpore 2.10
(the catalogue's clean examples of E6109 and E6110): the slice of a list, a tuple or a CellList and the
descending range compile at both levels, where `reversed` runs by JIT fallback (wrong values, lost appends,
"the inputs should be constant" at STRICT).

Safe where the reversed items are only iterated (a `for`, a comprehension, `enumerate`/`zip` there, `list()`/
`tuple()`): iterating ``seq[::-1]`` gives the items of ``reversed(seq)`` in the same order. The slice is a copy
taken before the loop where ``reversed`` reads the sequence as it goes: a loop that changes the sequence it
iterates is refused.
"""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.kinds import LIST, TUPLE
from graphlint.analysis.provenance import locally_bound, side_effect
from graphlint.analysis.rewrite_facts import Side, tensor_facts
from graphlint.catalogue import builtins as builtin_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer
from graphlint.fixers.statement_forms import list_kept_elsewhere

_ITERATING_CALLS = ("enumerate", "zip", "list", "tuple")


class ReversedToSlice(Fixer):
    rules = (builtin_rules.REVERSED_ITERATION_BREAKS, builtin_rules.REVERSED_CELL_SEQUENCE,
             builtin_rules.BUILTIN_FALLS_BACK)
    safety = FixSafety.SAFE
    description = "`reversed(seq)` -> `seq[::-1]`, `reversed(range(n))` -> `range(n - 1, -1, -1)`"

    def plan(self, finding, context):
        call = finding.node
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name) and call.func.name == "reversed"
                and len(call.args) == 1 and not call.keywords):
            return None  # another builtin (W6102 also reports `sorted`, `all`, ...): the rule's advice stands
        values = context.values_of(finding)
        if values is None:
            return self.refuse(finding, "no analysis of the graph code: what `reversed` takes is unknown")
        if locally_bound(call.func, values):
            return self.refuse(finding, "`reversed` is a name of this code, not the builtin")
        argument = call.args[0]
        loop = _iterating_statement(call)
        if loop is None:
            return self.refuse(finding, "`reversed(...)` is used as a value, not only iterated: a slice is a list, "
                                        "not an iterator; iterate the slice `seq[::-1]` by hand")
        node = context.find(call)
        if not isinstance(node, cst.Call) or len(node.args) != 1:
            return self.refuse(finding, "the `reversed(...)` call was not found")
        inner = node.args[0].value
        if isinstance(argument, nodes.Call) and isinstance(argument.func, nodes.Name) \
                and argument.func.name == "range" and not locally_bound(argument.func, values):
            return self._descending_range(finding, context, node, argument, inner, values)
        value = values.value(argument)
        if finding.rule is not builtin_rules.REVERSED_CELL_SEQUENCE and not (value.is_(LIST) or value.is_(TUPLE)):
            kinds = " or ".join(sorted(value.kinds)) or "unknown"
            return self.refuse(finding, f"`{argument.as_string()}` is not proven a list or a tuple (the analysis "
                                        f"finds: {kinds}): its slice may not be its items in reverse order")
        changed = _changed_in(loop, argument)
        if changed:
            return self.refuse(finding, f"the loop changes `{argument.as_string()}` ({changed}) while `reversed` "
                                        "reads it: a slice is a copy taken before the loop; rewrite by hand")
        sliced = cst.Subscript(value=build.operand(inner, build.PRIMARY), slice=[cst.SubscriptElement(
            slice=cst.Slice(lower=None, upper=None, step=build.integer(-1),
                            second_colon=cst.Colon()))])
        sliced = sliced.with_changes(lpar=node.lpar, rpar=node.rpar)
        text = argument.as_string()
        return self.edit(finding, [(node, sliced)], description=f"`reversed({text})` -> `{text}[::-1]`")

    def _descending_range(self, finding, context, node, argument: nodes.Call, inner, values):
        if argument.keywords or not 1 <= len(argument.args) <= 2 or not isinstance(inner, cst.Call) \
                or any(isinstance(a, nodes.Starred) for a in argument.args):
            return self.refuse(finding, "only `reversed(range(stop))` and `reversed(range(start, stop))` are "
                                        "rewritten: with a step, write the descending range by hand")
        bounds = [a.value for a in inner.args]
        if len(bounds) == 1:
            start, stop = None, bounds[0]
        else:
            start, stop = bounds
            called = [a.as_string() for a in argument.args
                      if any(not _pure_builtin(c, values) for c in a.nodes_of_class(nodes.Call))]
            if called:
                # `range(b - 1, a - 1, -1)` evaluates `b` before `a`
                return self.refuse(finding, f"`{called[0]}` calls a function, and the descending range evaluates "
                                            "the bounds in the other order: bind the bounds to names first")
        first, last = _minus_one(stop), build.integer(-1) if start is None else _minus_one(start)
        descending = build.call(inner.func, first, last, build.integer(-1))
        descending = descending.with_changes(lpar=node.lpar, rpar=node.rpar)
        text = argument.as_string()
        return self.edit(finding, [(node, descending)],
                         description=f"`reversed({text})` -> `{context.code(descending)}`")


def _minus_one(bound: cst.BaseExpression) -> cst.BaseExpression:
    """``bound - 1``, folded for an integer literal."""
    if isinstance(bound, cst.Integer) and not bound.lpar:
        return build.integer(int(bound.evaluated_value) - 1)
    return build.binary(bound, "-", cst.Integer("1"))


def _pure_builtin(call: nodes.Call, values) -> bool:
    """``call`` is the builtin `len` (no side effect, whatever order it runs in)."""
    return isinstance(call.func, nodes.Name) and call.func.name == "len" and not locally_bound(call.func, values)


def _iterating_statement(call: nodes.Call):
    """The `for` loop or comprehension that iterates ``call`` (directly, or through `enumerate`/`zip`, or the
    list/tuple built from it); None when the reversed items are used otherwise."""
    holder, inner = call.parent, call
    if isinstance(holder, nodes.Call) and isinstance(holder.func, nodes.Name) \
            and holder.func.name in _ITERATING_CALLS and inner in holder.args and not holder.keywords:
        if holder.func.name in ("list", "tuple"):
            return holder  # the items, copied: nothing reads the sequence later
        holder, inner = holder.parent, holder
    if isinstance(holder, nodes.Comprehension) and holder.iter is inner:
        return holder.parent
    if isinstance(holder, nodes.For) and holder.iter is inner:
        return holder
    return None


def _changed_in(loop, argument) -> str:
    """How the body of ``loop`` changes the sequence ``argument`` names ('' when it does not, or when the
    iteration is no loop)."""
    if not isinstance(loop, (nodes.For, nodes.ListComp, nodes.SetComp, nodes.DictComp, nodes.GeneratorExp)):
        return ""
    text = argument.as_string()
    body = loop.body if isinstance(loop, nodes.For) else [loop]
    for statement in body:
        for node in statement.nodes_of_class((nodes.Call, nodes.AssignName, nodes.AssignAttr, nodes.Delete,
                                              nodes.AugAssign)):
            if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) \
                    and node.func.expr.as_string() == text:
                return f"`{node.func.as_string()}(...)`"
            if isinstance(node, (nodes.AssignName, nodes.AssignAttr)) and node.as_string() == text:
                return "it is assigned"
            if isinstance(node, nodes.Delete) and any(text in target.as_string() for target in node.targets):
                return "`del`"
            if isinstance(node, nodes.AugAssign) and node.target.as_string().startswith(text):
                return f"`{node.as_string()}`"
    return ""


class StackIndexedSequence(Fixer):
    """``items[i]`` of a tuple or list of Tensors, indexed by a Tensor -> ``ops.stack(items)[i.reshape(()) % n]``:
    the item, taken from the stacked Tensor that graph code indexes without the JIT fallback. Only when the analysis
    proves every item a Tensor of one dtype and shape (stacking needs it, and the row is then the item itself), the
    sequence made by one literal that nothing changes, and the index not a bool. ``reshape(())`` takes the one
    element of a 1-element index (as Python's index does), ``% n`` a negative index from the end.

    Unsafe: where Python raised IndexError (an index out of range) the rewrite picks an item; stacking copies."""

    rules = (builtin_rules.SEQUENCE_INDEXED_BY_TENSOR,)
    safety = FixSafety.UNSAFE
    description = "a sequence of Tensors indexed by a Tensor -> the row of `ops.stack(...)`"

    def plan(self, finding, context):
        subscript = finding.node
        values = context.values_of(finding)
        if not isinstance(subscript, nodes.Subscript) or values is None:
            return None
        literal = _one_literal(subscript.value, values)
        if isinstance(literal, str):
            return self.refuse(finding, literal)
        facts = tensor_facts(values)
        items = literal.elts
        if not items or any(isinstance(item, nodes.Starred) or not values.value(item).is_tensor for item in items):
            return self.refuse(finding, "not every item is proven a Tensor: `ops.stack` takes Tensors only")
        shapes, dtypes = {facts.shape(item) for item in items}, {facts.dtype(item) for item in items}
        if None in shapes or None in dtypes or len(shapes) != 1 or len(dtypes) != 1:
            return self.refuse(finding, "the items are not proven of one dtype and shape: `ops.stack` needs them so "
                                        "(index a stacked Tensor by hand where they are)")
        if facts.dtype(subscript.slice) == "bool_":
            return self.refuse(finding, "the index is a bool Tensor: `items[True]` is the second item, a bool "
                                        "index of a Tensor is a mask")
        node = context.find(subscript)
        if not isinstance(node, cst.Subscript) or len(node.slice) != 1 \
                or not isinstance(node.slice[0].slice, cst.Index):
            return self.refuse(finding, "the subscript was not found")
        ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
        index = build.call(build.attribute(node.slice[0].slice.value, "reshape"), cst.Tuple(elements=[]))
        if facts.shape(subscript.slice) == ("0d",):
            index = node.slice[0].slice.value
        index = build.binary(index, "%", build.integer(len(items)))
        stacked = build.call(f"{ops}.stack", node.value)
        replacement = build.subscript(stacked, index).with_changes(lpar=node.lpar, rpar=node.rpar)
        return self.edit(finding, [(node, replacement)], imports=[ops_import] if ops_import else [],
                         description=f"`{context.code(node)}` -> `{context.code(replacement)}`")


def _one_literal(expr, values):
    """The tuple or list literal ``expr`` names, made once and never changed; else why not (a str)."""
    if isinstance(expr, (nodes.Tuple, nodes.List)):
        return expr
    if not isinstance(expr, nodes.Name):
        return f"`{expr.as_string()[:40]}` is not a name of a tuple or list literal"
    element = values.cfg.element_of(expr)
    definitions = values.cfg.reaching(element, expr.name) if element is not None else []
    if len(definitions) != 1 or definitions[0].kind != "assign" \
            or not isinstance(definitions[0].value, (nodes.Tuple, nodes.List)):
        return f"`{expr.name}` is not made by one tuple or list literal"
    literal = definitions[0].value
    if isinstance(literal, nodes.List):
        function = expr.scope()
        for node in function.nodes_of_class((nodes.Attribute, nodes.Subscript, nodes.AugAssign, nodes.Delete)):
            if isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and node.expr.name == expr.name:
                return f"`{node.as_string()[:40]}` may change the list"
            if isinstance(node, nodes.Subscript) and isinstance(node.value, nodes.Name) \
                    and node.value.name == expr.name and not isinstance(node.parent, (nodes.Return,)) \
                    and node.ctx is not None and node.ctx.name != "Load":
                return f"`{node.as_string()[:40]}` changes the list"
            if isinstance(node, nodes.AugAssign) and node.target.as_string() == expr.name:
                return f"`{node.as_string()[:40]}` changes the list"
    return literal


class DictPopToSubscript(Fixer):
    """``v = d.pop("k")`` -> ``v = d["k"]``, and a bare ``d.pop("k")`` dropped, for a local dict that nothing reads
    afterwards except other constant keys: the dict's later reads then see what they saw (``d["k"]`` raises
    KeyError where ``pop`` did). Safe."""

    rules = (builtin_rules.DICT_POP_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "`d.pop(k)` whose dict is not read for `k` again -> `d[k]`"

    def plan(self, finding, context):
        call = finding.node
        values = context.values_of(finding)
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute)
                and call.func.attrname == "pop") or values is None:
            return None
        receiver = call.func.expr
        if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], nodes.Const):
            return self.refuse(finding, "only `d.pop(<constant key>)` without a default is rewritten: with a default "
                                        "write `d.get(k, default)` where the key may be missing (by hand)")
        if not isinstance(receiver, nodes.Name) or receiver.name not in values.cfg.defs_by_name:
            return self.refuse(finding, f"`{receiver.as_string()[:40]}` is not a local dict: other code may read "
                                        "what `pop` removes")
        key = call.args[0].value
        statement = call.statement()
        problem = _read_after_pop(call, receiver, key, statement)
        if problem:
            return self.refuse(finding, problem)
        node = context.find(call)
        if not isinstance(node, cst.Call):
            return self.refuse(finding, "the `pop` call was not found")
        if isinstance(statement, nodes.Expr) and statement.value is call:
            replacements = context.remove_statement(context.find(statement))
            if not replacements:
                return self.refuse(finding, "the statement shares its line with others")
            return self.edit(finding, replacements, description=f"drop `{call.as_string()}`")
        subscript = build.subscript(node.func.value, node.args[0].value).with_changes(lpar=node.lpar, rpar=node.rpar)
        return self.edit(finding, [(node, subscript)],
                         description=f"`{call.as_string()}` -> `{context.code(subscript)}`")


def _read_after_pop(call, receiver: nodes.Name, key, statement) -> str:
    """Why the dict might still be read for ``key`` after the `pop` ('' when only other constant keys are)."""
    function = call.scope()
    node = statement
    while node is not function:
        if isinstance(node, (nodes.For, nodes.While)):
            return "the `pop` is in a loop: a later step would find the key again"
        node = node.parent
    for use in function.nodes_of_class(nodes.Name):
        if use.name != receiver.name or use is receiver or (use.lineno, use.col_offset) < \
                (statement.lineno, statement.col_offset):
            continue
        holder = use.parent
        if isinstance(holder, nodes.Subscript) and holder.value is use and isinstance(holder.slice, nodes.Const) \
                and holder.slice.value != key and holder.ctx is not None and holder.ctx.name == "Load":
            continue
        return f"`{holder.as_string()[:40]}` reads `{receiver.name}` after the `pop`, and would see {key!r} still in it"
    return ""


class ChooseDictItem(Fixer):
    """``table[key]`` where ``key = "a" if c else "b"`` -> ``table["a"] if c else table["b"]`` (the key assignment
    dropped when nothing else reads it): graph code looks up constant keys while compiling, and the Tensor
    condition then chooses between the two items (the select rewrite of I5806 applies). A dict literal with a
    run-time key that nothing reads -> dropped. Safe: the same item is chosen, by the same condition read on the
    same values (it must be free of side effects)."""

    rules = (builtin_rules.RUNTIME_DICT_KEY,)
    safety = FixSafety.SAFE
    description = "a dict item chosen by a run-time key -> a choice between constant keys"

    def plan(self, finding, context):
        key = finding.node
        values = context.values_of(finding)
        if values is None or key is None:
            return None
        holder = key.parent
        if isinstance(holder, nodes.Dict):
            return self._unused_dict(finding, context, values, holder)
        if not (isinstance(holder, nodes.Subscript) and holder.slice is key and isinstance(key, nodes.Name)):
            return self.refuse(finding, "the key is not a name: choose the item with constant keys by hand")
        choice = _key_choice(key, values)
        if isinstance(choice, str):
            return self.refuse(finding, choice)
        node, test = context.find(holder), context.find(choice)
        if not isinstance(node, cst.Subscript) or not isinstance(test, cst.IfExp):
            return self.refuse(finding, "the lookup or the key's choice was not found")
        lookup = cst.IfExp(test=test.test, body=build.subscript(node.value, test.body),
                           orelse=build.subscript(node.value, test.orelse))
        replacements = [(node, build.parens(lookup) if not node.lpar else lookup.with_changes(lpar=node.lpar,
                                                                                              rpar=node.rpar))]
        reads = [n for n in key.scope().nodes_of_class(nodes.Name) if n.name == key.name]
        assignment = choice.parent
        if reads == [key] and isinstance(assignment, nodes.Assign) and len(assignment.targets) == 1:
            found = context.find(assignment)
            removal = context.remove_statement(found) if found is not None else []
            replacements += removal
        return self.edit(finding, replacements, description=f"`{holder.as_string()}` -> a choice between "
                                                            f"`{choice.body.as_string()}` and "
                                                            f"`{choice.orelse.as_string()}`")

    def _unused_dict(self, finding, context, values, literal):
        statement = literal.parent
        if not (isinstance(statement, nodes.Assign) and statement.value is literal and len(statement.targets) == 1
                and isinstance(statement.targets[0], nodes.AssignName)):
            return self.refuse(finding, "a run-time key of a dict in use: key it by a constant (by hand)")
        name = statement.targets[0].name
        if any(n.name == name for n in statement.scope().nodes_of_class(nodes.Name)):
            return self.refuse(finding, f"`{name}` is read: key it by a constant (by hand)")
        if side_effect(values, literal) is not None:
            return self.refuse(finding, f"`{literal.as_string()[:40]}` may have side effects")
        found = context.find(statement)
        removal = context.remove_statement(found) if found is not None else []
        if not removal:
            return self.refuse(finding, "the statement was not found alone on its line")
        return self.edit(finding, removal, description=f"drop `{name} = ...`, which nothing reads")


def _key_choice(key: nodes.Name, values):
    """The ``"a" if c else "b"`` that alone makes ``key``, with a condition free of side effects whose names have
    the same value at the lookup; else why not (a str)."""
    element = values.cfg.element_of(key)
    definitions = values.cfg.reaching(element, key.name) if element is not None else []
    if len(definitions) != 1 or definitions[0].kind != "assign" or not isinstance(definitions[0].value, nodes.IfExp):
        return f"`{key.name}` is not made once by `<key> if <condition> else <key>`"
    choice = definitions[0].value
    if not all(isinstance(side, nodes.Const) and type(side.value) in (str, int)
               for side in (choice.body, choice.orelse)):
        return "the keys chosen between are not constants"
    if side_effect(values, choice.test) is not None:
        return f"`{choice.test.as_string()[:40]}` may have side effects"
    there = values.cfg.element_of(choice.test)
    for read in choice.test.nodes_of_class(nodes.Name):
        if {d.index for d in values.cfg.reaching(there, read.name)} != \
                {d.index for d in values.cfg.reaching(element, read.name)}:
            return f"`{read.name}` changes between the choice of the key and the lookup"
    return choice


class AllAnyToMethod(Fixer):
    """``if all(t > 0):`` -> ``if (t > 0).all():`` (``any`` -> ``.any()``), for a proven Tensor whose truth only
    decides a condition: the builtin runs by JIT fallback (STRICT rejects it), the method is a graph op. Unsafe:
    on a 1-d Tensor both agree; where the builtin raised (a 0-d Tensor cannot be iterated, the rows of a 2-d one
    have no truth value) the method reduces every element instead."""

    rules = (builtin_rules.BUILTIN_FALLS_BACK,)
    safety = FixSafety.UNSAFE
    description = "`all(t)` / `any(t)` of a Tensor in a condition -> `t.all()` / `t.any()`"

    def plan(self, finding, context):
        call = finding.node
        values = context.values_of(finding)
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name)
                and call.func.name in ("all", "any")) or values is None:
            return None
        if len(call.args) != 1 or call.keywords or locally_bound(call.func, values):
            return self.refuse(finding, f"`{call.func.name}` is not the builtin of one argument")
        argument = call.args[0]
        if not values.value(argument).is_tensor:
            return self.refuse(finding, f"`{argument.as_string()[:40]}` is not proven a Tensor")
        if not _decides_condition(call):
            return self.refuse(finding, f"the result is used as a value: `.{call.func.name}()` gives a Tensor where "
                                        f"`{call.func.name}()` gave a bool; write `bool(...)` by hand where it must "
                                        "be one")
        node = context.find(call)
        if not isinstance(node, cst.Call) or len(node.args) != 1:
            return self.refuse(finding, "the call was not found")
        method = build.call(build.attribute(node.args[0].value.with_changes(lpar=[], rpar=[])
                                            if isinstance(node.args[0].value, cst.Name) else node.args[0].value,
                                            call.func.name)).with_changes(lpar=node.lpar, rpar=node.rpar)
        return self.edit(finding, [(node, method)],
                         description=f"`{call.as_string()[:40]}` -> `{context.code(method)}`")


def _decides_condition(expression) -> bool:
    """Only the truth of ``expression`` is used: it is (under `not`/`and`/`or`) the test of an if/while/ternary."""
    child, parent = expression, expression.parent
    while isinstance(parent, nodes.BoolOp) or (isinstance(parent, nodes.UnaryOp) and parent.op == "not"):
        child, parent = parent, parent.parent
    return isinstance(parent, (nodes.If, nodes.While, nodes.IfExp)) and parent.test is child


class SortedTensorsToSort(Fixer):
    """``sorted([a, b, ...])`` of 0-d Tensors of one dtype, whose result is only indexed by integer constants or
    measured by ``len`` -> ``ops.sort(ops.stack([a, b, ...]))[0]`` (``reverse=True`` -> ``descending=True``): the
    sorted values as a 1-d Tensor, which gives the same item at every index. The builtin runs by JIT fallback
    (STRICT and MindIR export reject it); the op is a graph op. Unsafe: where an item is NaN Python's comparisons
    leave an order that depends on the input order while `ops.sort` puts NaN last, and the dtype may rest on an
    assumption the description states ("`x` is a floating-point Tensor")."""

    rules = (builtin_rules.BUILTIN_FALLS_BACK,)
    safety = FixSafety.UNSAFE
    description = "`sorted([...])` of 0-d Tensors, only indexed -> `ops.sort(ops.stack([...]))[0]`"

    def plan(self, finding, context):
        call = finding.node
        values = context.values_of(finding)
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name) and call.func.name == "sorted") \
                or values is None:
            return None
        proven = _sorted_items(call, values)
        if isinstance(proven, str):
            return self.refuse(finding, proven)
        descending, merge, count = proven
        use = _sorted_result_use(call, count)
        if use:
            return self.refuse(finding, f"{use}: a sorted Tensor gives the same items only by an integer index (or "
                                        "`len`); sort by hand (`ops.sort(ops.stack(items))[0]`) where it is used so")
        node = context.find(call)
        if not isinstance(node, cst.Call) or not node.args:
            return self.refuse(finding, "the `sorted(...)` call was not found")
        ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
        keywords = {"descending": build.constant(True)} if descending else {}
        replacement = build.subscript(build.call(f"{ops}.sort", build.call(f"{ops}.stack", node.args[0].value),
                                                 **keywords), build.integer(0))
        replacement = replacement.with_changes(lpar=node.lpar, rpar=node.rpar)
        assumes = f" (assumes {'; '.join(merge.assumptions)})" if merge.assumptions else ""
        return self.edit(finding, [(node, replacement)], imports=[ops_import] if ops_import else [],
                         description=f"`sorted(...)` -> `{context.code(replacement)}`{assumes}")


def _sorted_items(call: nodes.Call, values):
    """(descending, the merge verdict, how many items) when ``call`` is the builtin `sorted` of one tuple or list
    literal of 0-d Tensors of one dtype (at most `reverse=<bool constant>`); else why not (a str)."""
    if locally_bound(call.func, values) or len(call.args) != 1 or isinstance(call.args[0], nodes.Starred):
        return "`sorted` is not the builtin of one argument"
    keywords = {k.arg: k.value for k in call.keywords or ()}
    reverse = keywords.pop("reverse", None)
    if keywords or (reverse is not None and not (isinstance(reverse, nodes.Const) and isinstance(reverse.value, bool))):
        return "`sorted` has a `key` (or a `reverse` that is not a constant): `ops.sort` sorts values only"
    literal = _one_literal(call.args[0], values)
    if isinstance(literal, str):
        return literal
    items = literal.elts
    if not items or any(isinstance(item, nodes.Starred) for item in items):
        return "the items are not listed one by one"
    facts = tensor_facts(values)
    merge = facts.merge([Side(expr=item) for item in items])
    if not merge.ok:
        return f"the items do not stack into one Tensor: {merge.problem}"
    if any(facts.shape(item) != ("0d",) for item in items):
        return "the items are not proven 0-d Tensors: `sorted` compares whole items, `ops.sort` sorts elements"
    return bool(reverse is not None and reverse.value), merge, len(items)


def _sorted_result_use(call: nodes.Call, count: int) -> str:
    """Why the result of ``call`` may be used other than by an integer index in range or `len` ('' when it is not):
    the call indexed in place, or assigned to a name assigned nowhere else whose every read is such a use."""
    holder = call.parent
    if isinstance(holder, nodes.Subscript) and holder.value is call:
        return _index_problem(holder, count)
    if not (isinstance(holder, nodes.Assign) and holder.value is call and len(holder.targets) == 1
            and isinstance(holder.targets[0], nodes.AssignName)):
        return f"`{holder.as_string()[:40]}` uses the sorted list"
    name, function = holder.targets[0].name, holder.scope()
    if len(function.locals.get(name, ())) != 1:
        return f"`{name}` is assigned more than once"
    for use in function.nodes_of_class(nodes.Name):
        if use.name != name:
            continue
        parent = use.parent
        if isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Name) and parent.func.name == "len" \
                and parent.args == [use] and not parent.keywords:
            continue
        problem = _index_problem(parent, count) if isinstance(parent, nodes.Subscript) and parent.value is use \
            else f"`{parent.as_string()[:40]}` uses `{name}`"
        if problem:
            return problem
    return ""


def _index_problem(subscript: nodes.Subscript, count: int) -> str:
    index, sign = subscript.slice, 1
    if isinstance(index, nodes.UnaryOp) and index.op == "-":
        index, sign = index.operand, -1
    if isinstance(index, nodes.Const) and type(index.value) is int and -count <= sign * index.value < count:
        return ""
    return f"`{subscript.as_string()[:40]}` is not an integer index in range"


class NestedMaxToSelect(Fixer):
    """``max(pairs)`` (``min``) of two tuples of 0-d Tensors of one dtype, ``pairs`` a literal (or a name of one)
    -> a tuple of ``ops.where(take, q[j], p[j])``, ``take`` Python's lexicographic test ``q > p`` (``q < p`` for
    ``min``) written with Tensor ops: ``(q0 > p0) | ((q0 == p0) & (q1 > p1))``. The second tuple replaces the first
    only where it is greater, as the builtin decides (equal tuples and NaN keep the first). Safe: the same values,
    in new Tensors; unsafe where the one dtype rests on an assumption ("`x` is a floating-point Tensor")."""

    rules = (builtin_rules.BUILTIN_OVER_NESTED_TENSORS,)
    safety = FixSafety.SAFE
    description = "`max`/`min` of two tuples of 0-d Tensors -> element-wise `ops.where` of the lexicographic test"

    def plan(self, finding, context):
        call = finding.node
        values = context.values_of(finding)
        if not isinstance(call, nodes.Call) or values is None:
            return None
        proven = _two_tensor_tuples(call, values)
        if isinstance(proven, str):
            return self.refuse(finding, f"{proven}: compare the Tensors with ops and pick the items by hand")
        node = context.find(call)
        if not isinstance(node, cst.Call) or len(node.args) != 1:
            return self.refuse(finding, "the call was not found")
        tuples, assumptions = proven
        items = _tuple_items(context, call.args[0], node.args[0].value, tuples)
        if items is None:
            return self.refuse(finding, "an item of the tuples was not found")
        ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
        (first, second), order = items, (">" if call.func.name == "max" else "<")
        take = build.compare(second[-1], order, first[-1])
        for q, p in reversed(list(zip(second[:-1], first[:-1]))):
            take = build.binary(build.compare(q, order, p), "|", build.binary(build.compare(q, "==", p), "&", take))
        picked = build.tuple_of([build.call(f"{ops}.where", take, q, p) for q, p in zip(second, first)])
        picked = picked.with_changes(lpar=node.lpar or picked.lpar, rpar=node.rpar or picked.rpar)
        assumes = f"; assumes {'; '.join(assumptions)}" if assumptions else ""
        return self.edit(finding, [(node, picked)], imports=[ops_import] if ops_import else [],
                         safety=FixSafety.UNSAFE if assumptions else None,
                         description=f"`{call.as_string()[:40]}` -> a tuple of `{ops}.where` on the lexicographic "
                                     f"test{assumes}")


def _two_tensor_tuples(call: nodes.Call, values):
    """The two tuple literals (as astroid nodes) that builtin ``max``/``min`` compares, every item a 0-d Tensor of
    one dtype, read without side effects; else why not (a str)."""
    if not (isinstance(call.func, nodes.Name) and call.func.name in ("max", "min")) \
            or locally_bound(call.func, values) or len(call.args) != 1 or call.keywords \
            or isinstance(call.args[0], nodes.Starred):
        return f"not the builtin `{call.func.as_string()}` of one sequence (without `key` or `default`)"
    literal = _one_literal(call.args[0], values)
    if isinstance(literal, str):
        return literal
    tuples = literal.elts
    if len(tuples) != 2 or not all(isinstance(t, nodes.Tuple) and t.elts for t in tuples) \
            or len(tuples[0].elts) != len(tuples[1].elts):
        return "the sequence is not two tuple literals of one length"
    items = tuples[0].elts + tuples[1].elts
    if any(isinstance(item, nodes.Starred) or side_effect(values, item) is not None for item in items):
        return "an item is starred or may have side effects"
    facts = tensor_facts(values)
    merge = facts.merge([Side(expr=item) for item in items])
    if not merge.ok or any(facts.shape(item) != ("0d",) for item in items):
        return "the items are not proven 0-d Tensors of one dtype (`ops.where` would broadcast or promote)"
    return tuples, merge.assumptions


def _tuple_items(context, argument, cst_argument, tuples):
    """The libcst items of the two tuples: ``name[i][j]`` when the sequence is a name, else the literal's own
    items (None when one is not found)."""
    if isinstance(argument, nodes.Name):
        return [[build.subscript(build.subscript(cst_argument, build.integer(i)), build.integer(j))
                 for j in range(len(t.elts))] for i, t in enumerate(tuples)]
    found = [[context.find(item) for item in t.elts] for t in tuples]
    return None if any(item is None for row in found for item in row) else found


class RemoveFromKnownList(Fixer):
    """``items.remove(2)`` where the analysis knows every item of the local list ``items`` there -> ``items = [1, 3]``,
    the list without the first equal item. Graph code loses the change `remove` makes (the list keeps its items);
    rebinding the name keeps it. Safe when nothing else holds the list (every read an index, `len()`, an `ops`
    argument, an iteration or the returned value) and the call is not in a loop."""

    rules = (builtin_rules.LIST_MUTATION_LOST,)
    safety = FixSafety.SAFE
    description = "`items.remove(v)` of a list of known constants -> `items = [...]` without it"

    def plan(self, finding, context):
        call = finding.node
        values = context.values_of(finding)
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute)
                and call.func.attrname == "remove") or values is None:
            return None
        receiver = call.func.expr
        statement = call.parent
        if not (isinstance(statement, nodes.Expr) and isinstance(receiver, nodes.Name)
                and len(call.args) == 1 and not call.keywords and isinstance(call.args[0], nodes.Const)):
            return self.refuse(finding, "only `items.remove(<constant>)` as a statement of a local list is rewritten")
        items = values.value(receiver).items
        if items is None or not all(item.known and not item.var and type(item.const) in (int, float, str, bool)
                                    for item in items):
            return self.refuse(finding, f"the items of `{receiver.name}` are not constants the analysis knows here")
        node = statement.parent
        while node is not None and node is not call.scope():
            if isinstance(node, (nodes.For, nodes.While)):
                return self.refuse(finding, "the call is in a loop: the list differs from one step to the next")
            node = node.parent
        holder = list_kept_elsewhere(receiver.name, call.scope(), values, allowed=(call.func,))
        if holder is not None:
            return self.refuse(finding, f"`{holder.as_string()[:40]}` may keep the list under another name, which "
                                        "would still see the item")
        constants = [item.const for item in items]
        if call.args[0].value not in constants:
            return self.refuse(finding, f"{call.args[0].value!r} is not in the list: `remove` raises ValueError")
        constants.remove(call.args[0].value)
        found = context.find(statement)
        if not isinstance(found, cst.Expr):
            return self.refuse(finding, "the statement was not found")
        elements = [cst.Element(value=_literal(c)) for c in constants]
        elements = [e.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                    if i < len(elements) - 1 else e for i, e in enumerate(elements)]
        rebuilt = cst.Assign(targets=[cst.AssignTarget(target=cst.Name(receiver.name))],
                             value=cst.List(elements=elements), semicolon=found.semicolon)
        return self.edit(finding, [(found, rebuilt)],
                         description=f"`{call.as_string()}` -> `{receiver.name} = {context.code(rebuilt.value)}`")


class FoldBigInteger(Fixer):
    """``big = 100000000000000000000000`` (or ``n = 2 ** 70``, arithmetic graph code computes in int64 and overflows)
    used only in integer arithmetic the analysis folds into an int64 constant (``x + (big % 7)``) -> that constant in
    place of each such expression, and the assignment dropped: graph code never meets the integer beyond int64.
    Safe: the same number, computed at lint time by the analysis."""

    rules = (builtin_rules.INTEGER_BEYOND_INT64, builtin_rules.INTEGER_OVERFLOWS_INT64)
    safety = FixSafety.SAFE
    description = "an integer beyond int64 only used in folded arithmetic -> the folded constants"

    def plan(self, finding, context):
        literal = finding.node
        values = context.values_of(finding)
        statement = literal.parent if literal is not None else None
        if values is None:
            return None
        if finding.rule is builtin_rules.INTEGER_OVERFLOWS_INT64:
            if values.exact_int(literal) is None:
                return self.refuse(finding, "the analysis does not know the integer the arithmetic gives: compute "
                                            "it in `__init__` (by hand)")
        elif not isinstance(literal, nodes.Const):
            return self.refuse(finding, "the integer comes into the graph from outside (an argument): reduce it "
                                        "before the call (by hand)")
        if not (isinstance(statement, nodes.Assign) and statement.value is literal
                                  and len(statement.targets) == 1
                                  and isinstance(statement.targets[0], nodes.AssignName)):
            return self.refuse(finding, "the integer is not assigned to a name: write the value graph code needs "
                                        "(by hand)")
        name = statement.targets[0].name
        replacements = []
        for use in statement.scope().nodes_of_class(nodes.Name):
            if use.name != name:
                continue
            folded = use
            while isinstance(folded.parent, (nodes.BinOp, nodes.UnaryOp)):
                folded = folded.parent
                if _int64_constant(values, folded) is not None:
                    break
            else:
                folded = None
            if folded is None:
                return self.refuse(finding, f"`{' '.join(use.parent.as_string().split())[:40]}` uses `{name}` where "
                                            "the analysis folds no int64 constant: write the value by hand")
            found = context.find(folded)
            if found is None:
                return self.refuse(finding, "an expression using the integer was not found")
            number = _int64_constant(values, folded)
            replacements.append((found, build.integer(number).with_changes(lpar=found.lpar, rpar=found.rpar)
                                 if number < 0 else build.integer(number)))
        found = context.find(statement)
        removal = context.remove_statement(found) if found is not None else []
        if not replacements or not removal:
            return self.refuse(finding, "the assignment was not found alone on its line")
        return self.edit(finding, replacements + removal,
                         description=f"`{name}` folded into the int64 constants it gives, and dropped")


def _int64_constant(values, expr) -> int | None:
    """The int64 constant the analysis folds ``expr`` into (exactly, however large its operands), else None."""
    value = values.value(expr)
    number = value.const if value.known and not value.var and type(value.const) is int else values.exact_int(expr)
    return number if number is not None and api.INT64_MIN <= number <= api.INT64_MAX else None


_PURE_STR_METHODS = frozenset({"startswith", "endswith", "lower", "upper", "strip", "lstrip", "rstrip", "find", "count",
                               "isdigit", "isalpha", "isalnum", "isupper", "islower", "replace", "title", "capitalize"})


class FoldConstantStr(Fixer):
    """A str the analysis knows as a constant, used where graph code falls back to Python -> what it gives:
    ``len(self.tag)`` -> ``3``, ``self.mode.startswith("train")`` -> ``True``, ``for c in word`` -> ``for c in ("a",
    "b", "c")``. Safe for a local constant; unsafe for an attribute of ``self`` (its value is written into the code,
    so a change of the attribute after ``__init__`` no longer counts)."""

    rules = (builtin_rules.CONTAINER_METHOD_FALLS_BACK,)
    safety = FixSafety.UNSAFE
    description = "a constant str's `len()`, method or iteration -> its value"

    def plan(self, finding, context):
        node = finding.node
        values = context.values_of(finding)
        if values is None or finding.args.get("kind") != "str" or node is None:
            return None
        result = _str_result(node, values)
        if isinstance(result, _Refusal):
            return self.refuse(finding, result.reason)
        if result is None or not isinstance(result, (bool, int, str, tuple)):
            return self.refuse(finding, f"`{node.as_string()[:40]}` is not a str the analysis knows")
        found = context.find(node)
        if found is None:
            return self.refuse(finding, "the expression was not found")
        literal = _literal(result)
        attribute = any(isinstance(n, nodes.Attribute) and isinstance(n.expr, nodes.Name)
                        and n.expr.name == values.self_name for n in node.nodes_of_class(nodes.Attribute))
        return self.edit(finding, [(found, literal.with_changes(lpar=found.lpar, rpar=found.rpar)
                                    if found.lpar else literal)],
                         safety=FixSafety.UNSAFE if attribute else FixSafety.SAFE,
                         description=f"`{node.as_string()[:40]}` -> `{context.code(literal)}`")


class _Refusal:
    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason


def _str_result(node, values):
    """What ``node`` (`len(s)`, `s.method(<constants>)`, or `s` iterated) gives for the constant str ``s`` the
    analysis knows (None when it is not known), or a _Refusal."""
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and node.func.name == "len":
        text = _known_str(node.args[0], values)
        return len(text) if text is not None else None
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute):
        text = _known_str(node.func.expr, values)
        arguments = [a.value for a in node.args if isinstance(a, nodes.Const)]
        if node.func.attrname not in _PURE_STR_METHODS or node.keywords or len(arguments) != len(node.args) \
                or text is None:
            return _Refusal(f"`{node.as_string()[:40]}` is not a known str's method of constants: compute it in "
                            "`__init__` (by hand)")
        try:
            return getattr(text, node.func.attrname)(*arguments)
        except Exception:  # noqa: BLE001 - the method would raise at run time too
            return _Refusal(f"`{node.as_string()[:40]}` raises")
    text = _known_str(node, values)
    holder = node.parent
    if text is None or not (isinstance(holder, (nodes.For, nodes.Comprehension)) and holder.iter is node):
        return _Refusal(f"`{node.as_string()[:40]}` is not a str the analysis knows: compute what it gives in "
                        "`__init__` (by hand)")
    return tuple(text)


def _known_str(expr, values):
    value = values.value(expr)
    return value.const if value.known and not value.var and isinstance(value.const, str) else None


def _literal(value) -> cst.BaseExpression:
    if isinstance(value, str):
        return cst.SimpleString(repr(value).replace("'", '"') if '"' not in value and "'" not in value
                                else repr(value))
    if isinstance(value, tuple):
        return build.tuple_of([_literal(item) for item in value])
    return build.constant(value)


FIXERS = (ReversedToSlice(), StackIndexedSequence(), DictPopToSubscript(), ChooseDictItem(), AllAnyToMethod(),
          SortedTensorsToSort(), NestedMaxToSelect(), FoldConstantStr(), RemoveFromKnownList(), FoldBigInteger())
