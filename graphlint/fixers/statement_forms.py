"""Statement rewrites asked before those of :mod:`graphlint.fixers.statements` for the same rules (they answer only
the forms that module refuses):

* a loop `else` after a loop with `break` (E5111) -> a flag the `break` sets, tested after the loop;
* ``del items[k]`` of a local list with a constant index (E5102) -> ``items = items[:k] + items[k + 1:]``;
* a `try` whose handlers only log or re-raise (E5101) -> its body (unsafe);
* ``type(self.act) is nn.ReLU`` of an attribute the analysis knows is made as ``nn.ReLU`` (E5116) -> `isinstance`.
"""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.kinds import LIST, TENSOR, UNKNOWN
from graphlint.analysis.rewrite_facts import assignments_raise_nothing
from graphlint.catalogue import statements as statements_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer, unused_name


class LoopElseWithBreakToFlag(Fixer):
    """``for ...: ... break ... else: rest`` -> ``broke = False``, the loop with ``broke = True`` before each of its
    own `break` statements, then ``if not broke: rest``. The `else` ran exactly when no `break` left the loop (a
    `return` or a raise leaves the function, skipping both). Safe."""

    rules = (statements_rules.LOOP_ELSE_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "loop `else` after a loop with `break` -> a flag set by `break`"

    def plan(self, finding, context):
        loop = finding.node
        if not isinstance(loop, (nodes.For, nodes.While)) or not loop.orelse:
            return None
        if not _own_breaks(loop):
            return None  # no break: the `else` body simply follows the loop (fixers/statements.py)
        node = context.find(loop)
        if not isinstance(node, (cst.For, cst.While)) or node.orelse is None \
                or not isinstance(node.orelse.body, cst.IndentedBlock) or not isinstance(node.body, cst.IndentedBlock):
            return self.refuse(finding, "the loop or its `else` block was not found")
        function = loop.scope()
        taken = set(getattr(function, "locals", {})) | {n.name for n in function.nodes_of_class(
            (nodes.Name, nodes.AssignName))} | set(loop.root().locals)
        flag = unused_name("loop_broke", taken)
        body = node.body.visit(_FlagBreaks(flag))
        orelse = node.orelse
        test = cst.UnaryOperation(operator=cst.Not(), expression=cst.Name(flag))
        after = cst.If(test=test, body=orelse.body, leading_lines=orelse.leading_lines)
        first = build.assign(flag, cst.Name("False"), leading_lines=node.leading_lines)
        rewritten = node.with_changes(body=body, orelse=None, leading_lines=())
        keyword = "for" if isinstance(loop, nodes.For) else "while"
        return self.edit(finding, [(node, cst.FlattenSentinel([first, rewritten, after]))],
                         description=f"`{keyword} ... else` with `break` -> `{flag}` set by `break`, "
                                     f"`if not {flag}:` after the loop")


def _own_breaks(loop) -> bool:
    stack = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.Break):
            return True
        if isinstance(node, (nodes.For, nodes.While)):
            stack.extend(node.orelse)  # a nested loop's `else` breaks out of this one
            continue
        if isinstance(node, (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
            continue
        stack.extend(node.get_children())
    return False


class _FlagBreaks(cst.CSTTransformer):
    """``flag = True`` before each `break` of the loop whose body this visits (not of nested loops, whose `else`
    blocks still belong to it; not in nested functions)."""

    def __init__(self, flag: str):
        super().__init__()
        self.flag = flag

    def visit_For(self, node) -> bool:
        return False

    def leave_For(self, original, updated):
        return self._nested(updated)

    def visit_While(self, node) -> bool:
        return False

    def leave_While(self, original, updated):
        return self._nested(updated)

    def _nested(self, loop):
        """A nested loop: its own breaks stay; those of its `else` block are this loop's."""
        if loop.orelse is None:
            return loop
        return loop.with_changes(orelse=loop.orelse.with_changes(body=loop.orelse.body.visit(self)))

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Lambda(self, node) -> bool:
        return False

    def leave_SimpleStatementLine(self, original, updated):
        if len(updated.body) == 1 and isinstance(updated.body[0], cst.Break):
            return updated  # a `break` on a line of its own: the flag gets a line of its own (leave_IndentedBlock)
        return updated.with_changes(body=self._flagged(updated.body))

    def leave_IndentedBlock(self, original, updated):
        body = []
        for line in updated.body:
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 \
                    and isinstance(line.body[0], cst.Break):
                body.append(build.assign(self.flag, cst.Name("True"), leading_lines=line.leading_lines))
                line = line.with_changes(leading_lines=())
            body.append(line)
        return updated.with_changes(body=body)

    def leave_SimpleStatementSuite(self, original, updated):
        return updated.with_changes(body=self._flagged(updated.body))

    def _flagged(self, body):
        items = []
        for small in body:
            if isinstance(small, cst.Break):
                items.append(cst.Assign(targets=[cst.AssignTarget(target=cst.Name(self.flag))],
                                        value=cst.Name("True"),
                                        semicolon=cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" "))))
            items.append(small)
        return items


class DeleteListItem(Fixer):
    """``del items[k]`` of a local list, ``k`` a constant int -> ``items = items[:k] + items[k + 1:]``
    (``items[:-1]`` for ``k = -1``): the same items in the same order. Safe when nothing else can hold the list:
    every read of the name is an index, a slice, `len()`, an `ops` argument, an iteration or the returned value, so
    rebinding the name instead of changing the list object changes nothing another name sees."""

    rules = (statements_rules.DEL_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "`del items[k]` of a local list -> `items = items[:k] + items[k + 1:]`"

    def plan(self, finding, context):
        statement = finding.node
        values = context.values_of(finding)
        if not isinstance(statement, nodes.Delete) or values is None or len(statement.targets) != 1:
            return None
        target = statement.targets[0]
        if not isinstance(target, nodes.Subscript):
            return None  # a name: dropped by fixers/statements.py
        receiver, index = target.value, target.slice
        if not isinstance(receiver, nodes.Name) or not values.value(receiver).is_(LIST):
            return self.refuse(finding, f"`{receiver.as_string()[:40]}` is not proven a local list: rebuild the "
                                        "container without the item (by hand)")
        if not (isinstance(index, nodes.Const) and type(index.value) is int) and not (
                isinstance(index, nodes.UnaryOp) and index.op == "-" and isinstance(index.operand, nodes.Const)
                and type(index.operand.value) is int):
            return self.refuse(finding, "the index is not a constant int (a slice, a computed index): rebuild the "
                                        "list by hand")
        k = index.value if isinstance(index, nodes.Const) else -index.operand.value
        holder = list_kept_elsewhere(receiver.name, statement.scope(), values)
        if holder is not None:
            return self.refuse(finding, f"`{holder.as_string()[:40]}` may keep the list under another name, which "
                                        "would still see the item: rebuild it by hand")
        node = context.find(statement)
        if not isinstance(node, cst.Del):
            return self.refuse(finding, "the `del` statement was not found")
        name = cst.Name(receiver.name)
        if k == -1:
            value = _sliced(name, None, build.integer(-1))
        else:
            value = build.binary(_sliced(name, None, build.integer(k)), "+",
                                 _sliced(name, build.integer(k + 1) if k + 1 != 0 else None, None))
        assign = cst.Assign(targets=[cst.AssignTarget(target=name)], value=value, semicolon=node.semicolon)
        return self.edit(finding, [(node, assign)],
                         description=f"`del {target.as_string()}` -> `{receiver.name} = {context.code(value)}`")


class UnwrapTry(Fixer):
    """``try: body`` whose handlers only log, print, `pass` or re-raise (``raise``) -> ``body``. Graph code has no
    `try`; without it the body runs the same where it raises nothing. Unsafe: where the body raises, the handler's
    log no longer appears, and a handler that swallowed the error (no ``raise``) no longer does: the error now
    leaves the function. A handler that computes something (a fallback value) is refused, unless the body only
    assigns arithmetic the analysis proves cannot raise (`y = x * 2` of a Tensor argument): the handler never ran
    but for an error of the machine itself (out of memory), which now leaves the function."""

    rules = (statements_rules.TRY_IN_GRAPH,)
    safety = FixSafety.UNSAFE
    description = "`try` whose handlers only log or re-raise -> its body"

    def plan(self, finding, context):
        statement = finding.node
        values = context.values_of(finding)
        if not isinstance(statement, nodes.Try) or values is None:
            return None
        if statement.orelse or statement.finalbody:
            return self.refuse(finding, "the `try` has an `else` or a `finally`: move them by hand")
        computing = next((inner for handler in statement.handlers for inner in handler.body
                          if not _only_reports(inner, values)), None)
        if computing is not None and not assignments_raise_nothing(statement.body, values):
            return self.refuse(finding, f"the handler does more than log or re-raise (`{computing.as_string()[:40]}`) "
                                        "and the body may raise (only assignments of arithmetic on the arguments and "
                                        "numbers are proven not to): its fallback is behaviour to keep; check the "
                                        "inputs before the graph instead (by hand)")
        node = context.find(statement, (cst.Try,))
        if node is None or not isinstance(node.body, cst.IndentedBlock):
            return self.refuse(finding, "the `try` block was not found")
        body = list(node.body.body)
        body[0] = body[0].with_changes(leading_lines=[*node.leading_lines, *body[0].leading_lines])
        swallowed = not all(handler.body and isinstance(handler.body[-1], nodes.Raise)
                            and handler.body[-1].exc is None for handler in statement.handlers)
        return self.edit(finding, [(node, cst.FlattenSentinel(body))],
                         description="`try` -> its body" + (" (an error the handler swallowed now leaves the "
                                                            "function)" if swallowed else ""))


def _only_reports(statement, values) -> bool:
    """``statement`` only reports: `pass`, a bare `raise`, or a call of `print`, `warnings.warn` or a logging
    method."""
    if isinstance(statement, nodes.Pass) or (isinstance(statement, nodes.Raise) and statement.exc is None):
        return True
    if not (isinstance(statement, nodes.Expr) and isinstance(statement.value, nodes.Call)):
        return False
    func = statement.value.func
    qualified = values.imports.qualify(func) or ""
    if qualified in api.WARNING_CALLS or (isinstance(func, nodes.Name) and func.name == "print"
                                          and func.name not in values.cfg.defs_by_name):
        return True
    if qualified.split(".")[0] in api.LOGGING_MODULES:
        return True
    return isinstance(func, nodes.Attribute) and func.attrname in api.LOG_METHODS \
        and isinstance(func.expr, (nodes.Name, nodes.Attribute)) \
        and func.expr.as_string().rsplit(".", 1)[-1] in api.LOGGER_NAMES


class ExactTypeToIsinstance(Fixer):
    """``type(self.act) is nn.ReLU`` -> ``isinstance(self.act, nn.ReLU)`` (``is not`` -> ``not isinstance``), where
    the analysis knows the class every ``self.act = ...`` of `__init__` makes and it is that class: both are then
    True (and graph code compiles `isinstance` of a Cell). Safe; where the class is not known exactly (a subclass
    would make `isinstance` True and `type(...) is` False) the statement fixer's refusal stands."""

    rules = (statements_rules.IS_UNSUPPORTED_OPERAND,)
    safety = FixSafety.UNSAFE  # the rule's main fix (`is` -> `==`, fixers/statements.py); this edit itself is safe
    description = "`type(self.x) is C` of a known instance of C -> `isinstance(self.x, C)`"

    def plan(self, finding, context):
        compare = finding.node
        graph = finding.graph
        if not (isinstance(compare, nodes.Compare) and len(compare.ops) == 1 and compare.ops[0][0] in ("is", "is not")
                and isinstance(compare.left, nodes.Call) and isinstance(compare.left.func, nodes.Name)
                and compare.left.func.name == "type" and len(compare.left.args) == 1 and not compare.left.keywords) \
                or graph is None or graph.cls is None or context.analysis is None:
            return None
        values = context.values_of(finding)
        subject, klass = compare.left.args[0], compare.ops[0][1]
        if values is None or "type" in values.cfg.defs_by_name or not (
                isinstance(subject, nodes.Attribute) and isinstance(subject.expr, nodes.Name)
                and subject.expr.name == values.self_name):
            return None
        made = context.analysis.attribute_instance_of(graph.cls, subject.attrname)
        if made is None or made != (graph.info.imports.qualify(klass) or ""):
            return None
        node = context.find(compare)
        if not isinstance(node, cst.Comparison) or not isinstance(node.left, cst.Call):
            return None
        test = build.call("isinstance", node.left.args[0].value, node.comparisons[0].comparator)
        if compare.ops[0][0] == "is not":
            test = cst.UnaryOperation(operator=cst.Not(), expression=test)
        return self.edit(finding, [(node, test.with_changes(lpar=node.lpar, rpar=node.rpar))], safety=FixSafety.SAFE,
                         description=f"`{compare.as_string()}` -> `{context.code(test)}` (`{subject.as_string()}` "
                                     f"is made as `{made}`)")


class DecidedIdentity(Fixer):
    """``x is y`` of two Tensors where one is a plain copy of the other (``y = x``, ``w = self.w``) and neither changed
    since -> ``True`` (``is not`` -> ``False``): the names hold the same object, which PYNATIVE_MODE's identity test
    sees and graph code cannot. Safe; names that may hold different objects are refused (graph code cannot tell)."""

    rules = (statements_rules.TENSOR_IDENTITY_COMPARISON,)
    safety = FixSafety.SAFE
    description = "`a is b` of a name and its plain copy -> `True`"

    def plan(self, finding, context):
        compare = finding.node
        values = context.values_of(finding)
        if not (isinstance(compare, nodes.Compare) and len(compare.ops) == 1
                and compare.ops[0][0] in ("is", "is not")) or values is None:
            return None
        element = values.cfg.element_of(compare)
        left, right = (_origin(side, element, values) for side in (compare.left, compare.ops[0][1]))
        if left is None or right is None or left != right:
            return self.refuse(finding, f"`{compare.as_string()[:40]}`: the two sides are not a name and its plain "
                                        "copy, so graph code cannot decide whether they are one object; compare "
                                        "values, or decide it in `__init__` (by hand)")
        node = context.find(compare)
        if not isinstance(node, cst.Comparison):
            return self.refuse(finding, "the comparison was not found")
        result = cst.Name("True" if compare.ops[0][0] == "is" else "False", lpar=node.lpar, rpar=node.rpar)
        return self.edit(finding, [(node, result)],
                         description=f"`{compare.as_string()}` -> `{result.value}` (one object under two names)")


def _origin(expr, element, values, depth: int = 0):
    """What ``expr`` holds, followed through plain copies (``y = x``): ("name", its definitions) or ("attr", name)
    for ``self.attr`` the function never assigns; None when not known."""
    if depth > 8 or element is None:
        return None
    if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name) and expr.expr.name == values.self_name:
        function = expr.scope()
        if any(a.attrname == expr.attrname for a in function.nodes_of_class(nodes.AssignAttr)):
            return None
        return ("attr", expr.attrname)
    if not isinstance(expr, nodes.Name):
        return None
    definitions = values.cfg.reaching(element, expr.name)
    if len(definitions) == 1 and definitions[0].kind == "assign" \
            and isinstance(definitions[0].value, (nodes.Name, nodes.Attribute)):
        copied = definitions[0].value
        source = values.cfg.element_of(copied)
        here = _origin(copied, source, values, depth + 1)
        # the copied name must still hold what it held at the copy
        if here is not None and (here[0] == "attr" or _origin(copied, element, values, depth + 1) == here):
            return here
        return None
    if definitions and all(d.kind in ("param", "assign", "for", "augassign") for d in definitions):
        return ("name", expr.name, tuple(sorted(d.index for d in definitions)))
    return None


class DefaultSetToTuple(Fixer):
    """``def pick(x, modes={1, 2})`` whose body only takes ``len(modes)`` or tests ``v in modes`` (``v`` not a Tensor)
    -> ``modes=(1, 2)``: a tuple of distinct constants has the set's length and members, and graph code has tuples
    but no sets. Safe; a caller passing its own set still passes it."""

    rules = (statements_rules.SET_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "a set default argument only measured or tested -> a tuple"

    def plan(self, finding, context):
        literal = finding.node
        arguments = literal.parent if isinstance(literal, nodes.Set) else None
        if not isinstance(arguments, nodes.Arguments):
            return None  # not a default: fixers/statements.py
        function = arguments.parent
        parameter = _defaulted_parameter(arguments, literal)
        constants = [e.value for e in literal.elts if isinstance(e, nodes.Const)]
        if parameter is None or len(constants) != len(literal.elts) or len(set(constants)) != len(constants):
            return self.refuse(finding, "the set default is not of distinct constants: build the tuple by hand")
        values = context.analysis.values(finding.graph) if context.analysis is not None and finding.graph is not None \
            and finding.graph.node is function else None
        return _set_as_tuple(self, finding, context, function, parameter, values,
                             f"the default of `{parameter}`: `{{...}}` -> `(...)`")


class LocalSetToTuple(Fixer):
    """``s = {1, 2}`` in graph code whose function only takes ``len(s)`` or tests ``v in s`` (``v`` not a Tensor),
    ``s`` assigned nowhere else -> ``s = (1, 2)``: a tuple of distinct constants has the set's length and members,
    and graph code has tuples but no sets. Safe."""

    rules = (statements_rules.SET_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "a local set only measured or tested -> a tuple"

    def plan(self, finding, context):
        literal = finding.node
        assign = literal.parent if isinstance(literal, nodes.Set) else None
        if not (isinstance(assign, nodes.Assign) and assign.value is literal and len(assign.targets) == 1
                and isinstance(assign.targets[0], nodes.AssignName)):
            return None  # not `name = {...}`: the other set fixers
        name, function = assign.targets[0].name, assign.scope()
        constants = [e.value for e in literal.elts if isinstance(e, nodes.Const)]
        if len(constants) != len(literal.elts) or len(set(constants)) != len(constants):
            return self.refuse(finding, "the set is not of distinct constants: build the tuple by hand")
        if len(function.locals.get(name, ())) != 1 or not isinstance(function, nodes.FunctionDef):
            return self.refuse(finding, f"`{name}` is assigned more than once (or outside a function): a tuple "
                                        "would have to stand in for every set it holds")
        return _set_as_tuple(self, finding, context, function, name, context.values_of(finding),
                             f"`{name} = {{...}}` -> `{name} = (...)`")


def _set_as_tuple(fixer, finding, context, function, name: str, values, description: str):
    """The set literal of ``finding`` as a tuple of its elements, when ``function`` only measures or tests
    ``name`` (which holds it); else the refusal naming the use."""
    holder = _not_measured_or_tested(function, name, values)
    if holder is not None:
        return fixer.refuse(finding, f"`{' '.join(holder.as_string().split())[:40]}` uses `{name}` other than by "
                                     "`len()` or a membership test of a known value: a tuple may differ there (order, "
                                     "duplicates, hashing)")
    node = context.find(finding.node, (cst.Set,))
    if node is None:
        return fixer.refuse(finding, "the set literal was not found")
    replacement = cst.Tuple(elements=node.elements, lpar=[cst.LeftParen(whitespace_after=node.lbrace.whitespace_after)],
                            rpar=[cst.RightParen(whitespace_before=node.rbrace.whitespace_before)])
    return fixer.edit(finding, [(node, replacement)], description=description)


def _defaulted_parameter(arguments: nodes.Arguments, default) -> str | None:
    """The parameter whose default ``default`` is."""
    positional = arguments.args or []
    named = dict(zip([a.name for a in positional[len(positional) - len(arguments.defaults):]], arguments.defaults))
    named.update({a.name: d for a, d in zip(arguments.kwonlyargs or [], arguments.kw_defaults or []) if d})
    return next((name for name, value in named.items() if value is default), None)


def _not_measured_or_tested(function, parameter: str, values):
    """The first use of ``parameter`` in ``function`` other than `len(p)` or `v in p` with ``v`` a known non-Tensor
    value (None when there is none)."""
    for use in function.nodes_of_class(nodes.Name):
        if use.name != parameter:
            continue
        holder = use.parent
        if isinstance(holder, nodes.Call) and isinstance(holder.func, nodes.Name) and holder.func.name == "len" \
                and holder.args == [use]:
            continue
        if isinstance(holder, nodes.Compare) and values is not None \
                and any(op in ("in", "not in") and right is use for op, right in holder.ops):
            tested = values.value(holder.left)
            if tested.kinds and not tested.may_be(TENSOR) and not tested.may_be(UNKNOWN):
                continue
        return holder
    return None


def list_kept_elsewhere(name: str, function, values, allowed=()):
    """The first read of the list ``name`` in ``function`` that may keep the list object under another name (None
    when every read is an index, a slice, `len()`, an `ops` argument, an iteration or the returned value, or the
    ``func`` of one of ``allowed``): then rebinding the name, instead of changing the list, changes nothing another
    name sees."""
    for use in function.nodes_of_class(nodes.Name):
        if use.name != name or any(use.parent is node for node in allowed):
            continue
        holder = use.parent
        if isinstance(holder, nodes.Subscript) and holder.value is use:
            continue
        if isinstance(holder, nodes.Call) and use in holder.args and (
                (isinstance(holder.func, nodes.Name) and holder.func.name == "len")
                or (values.imports.qualify(holder.func) or "").startswith(api.OPS_NAMESPACES)):
            continue  # `len(items)`, `ops.stack(items)`: read, not kept
        if isinstance(holder, nodes.Return) or (isinstance(holder, (nodes.For, nodes.Comprehension))
                                                and holder.iter is use):
            continue  # handed to the caller after every change, or iterated
        return holder
    return None


def _sliced(value, lower, upper) -> cst.Subscript:
    return cst.Subscript(value=value, slice=[cst.SubscriptElement(slice=cst.Slice(lower=lower, upper=upper))])


FIXERS = (LoopElseWithBreakToFlag(), DeleteListItem(), UnwrapTry(), ExactTypeToIsinstance(), DecidedIdentity(),
          DefaultSetToTuple(), LocalSetToTuple())
