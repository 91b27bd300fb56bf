"""Fixes of functions graph code cannot take as they are:

* a generator helper that only yields values (E5104) -> a function returning the tuple of them;
* an `async def` nested in graph code that nothing calls (E5110) -> dropped.
"""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis.provenance import side_effect
from graphlint.catalogue import statements as statements_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer

_ITERATING_CALLS = ("tuple", "list", "enumerate", "zip")


class GeneratorToTuple(Fixer):
    """``def pieces(x): yield x; yield x + 1`` -> ``def pieces(x): return (x, x + 1)``, for a helper whose body is
    only ``yield v`` / ``yield from <tuple or list literal>`` statements and that every call in the module iterates
    (a `for`, a comprehension, `tuple()`/`list()`/`enumerate()`/`zip()`). Iterating the tuple gives the same
    values in the same order; they are computed before the loop instead of step by step, so they must be free of
    side effects (a helper's call, a print). Unsafe: a caller in another module may take the generator itself
    (``next(pieces(x))``)."""

    rules = (statements_rules.GENERATOR_IN_GRAPH,)
    safety = FixSafety.UNSAFE
    description = "a generator that only yields values -> a function returning their tuple"

    def plan(self, finding, context):
        function = finding.node.frame() if finding.node is not None else None
        if not isinstance(function, nodes.FunctionDef) or isinstance(function, nodes.AsyncFunctionDef):
            return None
        values = context.analysis.values(finding.graph) if context.analysis is not None and finding.graph is not None \
            and finding.graph.node is function else None
        if values is None:
            return self.refuse(finding, f"`{function.name}` is not analysed as graph code: rewrite it by hand")
        items = _yielded(function)
        if isinstance(items, str):
            return self.refuse(finding, items)
        for item in items:
            found = side_effect(values, item)
            if found is not None:
                return self.refuse(finding, f"`{found.as_string()[:40]}` may have side effects: a tuple computes it "
                                            "before the loop, the generator between steps")
        problem = _not_only_iterated(function)
        if problem:
            return self.refuse(finding, problem)
        node = context.find(function, (cst.FunctionDef,))
        if node is None or not isinstance(node.body, cst.IndentedBlock):
            return self.refuse(finding, f"`{function.name}` was not found")
        elements = _cst_yielded(node)
        if len(elements) != len(items):
            return self.refuse(finding, f"the yields of `{function.name}` were not found")
        docstring = [s for s in node.body.body[:1] if function.doc_node is not None]
        returned = build.returns(build.tuple_of([e.with_changes(lpar=[], rpar=[]) if isinstance(e, cst.Tuple)
                                                 else e for e in elements]))
        body = node.body.with_changes(body=[*docstring, returned])
        return self.edit(finding, [(node, node.with_changes(body=body))],
                         description=f"`{function.name}`: its yields -> `return` of their tuple")


def _yielded(function: nodes.FunctionDef):
    """The values ``function`` yields one after the other (``yield v``, ``yield from`` a tuple or list literal, after
    an optional docstring), or why it does more (a str)."""
    items = []
    for statement in function.body:
        value = statement.value if isinstance(statement, nodes.Expr) else None
        if isinstance(value, nodes.YieldFrom):  # (a subclass of Yield)
            if not isinstance(value.value, (nodes.Tuple, nodes.List)) \
                    or any(isinstance(e, nodes.Starred) for e in value.value.elts):
                return (f"`{value.as_string()[:40]}` yields from something other than a tuple or list literal: "
                        "build and return the tuple by hand")
            items.extend(value.value.elts)
        elif isinstance(value, nodes.Yield) and value.value is not None:
            items.append(value.value)
        elif not (isinstance(statement, nodes.Expr) and isinstance(statement.value, nodes.Const)
                  and statement is function.body[0]):  # a docstring
            return (f"`{function.name}` does more than yield values one after the other (a loop, a condition, a "
                    "statement): build and return the tuple by hand")
    return items


def _cst_yielded(node: cst.FunctionDef) -> list:
    """The libcst expressions the statements of ``node`` yield, in order (those of ``yield from`` one by one)."""
    elements = []
    for statement in node.body.body:
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and statement.body else None
        expression = small.value if isinstance(small, cst.Expr) else None
        if isinstance(expression, cst.Yield) and isinstance(expression.value, cst.From):
            elements.extend(e.value for e in expression.value.item.elements)
        elif isinstance(expression, cst.Yield) and expression.value is not None:
            elements.append(expression.value)
    return elements


def _not_only_iterated(function: nodes.FunctionDef) -> str:
    """Why a use of ``function`` in its module may need a generator ('' when every use iterates its call)."""
    module = function.root()
    uses = [n for n in module.nodes_of_class(nodes.Name) if n.name == function.name]
    if not uses:
        return f"nothing in the module calls `{function.name}`"
    for use in uses:
        call = use.parent
        if not (isinstance(call, nodes.Call) and call.func is use):
            return f"`{function.name}` is used as a value (`{call.as_string()[:40]}`), not only called"
        holder = call.parent
        if isinstance(holder, nodes.Call) and isinstance(holder.func, nodes.Name) \
                and holder.func.name in _ITERATING_CALLS and call in holder.args:
            if holder.func.name in ("tuple", "list"):
                continue
            holder = holder.parent
        if isinstance(holder, (nodes.For, nodes.Comprehension)) and holder.iter in (call, call.parent):
            continue
        return (f"`{holder.as_string()[:40]}` takes the generator itself, not only its values: keep it a "
                "generator there")
    return ""


class DropUnusedAsyncDef(Fixer):
    """An ``async def`` nested in graph code that nothing in the function uses -> dropped: defining it has no
    effect but the name. Safe."""

    rules = (statements_rules.ASYNC_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "drop an `async def` nested in graph code that nothing uses"

    def plan(self, finding, context):
        function = finding.node
        if not isinstance(function, nodes.AsyncFunctionDef) or finding.graph is None \
                or function is finding.graph.node:
            return None  # the graph function itself is async: the rule's advice stands
        outer = function.parent.scope() if function.parent is not None else None
        if not isinstance(outer, nodes.FunctionDef) or function.decorators is not None:
            return self.refuse(finding, f"`{function.name}` is not a plain nested `async def`")
        if any(n.name == function.name for n in outer.nodes_of_class(nodes.Name)):
            return self.refuse(finding, f"`{function.name}` is used: make it a plain `def` (by hand)")
        node = context.find(function, (cst.FunctionDef,))
        if node is None:
            return self.refuse(finding, f"`{function.name}` was not found")
        parent = context.parent(node)
        siblings = getattr(parent, "body", ())
        replacement = cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=node.leading_lines) \
            if isinstance(siblings, (list, tuple)) and len(siblings) == 1 else cst.RemovalSentinel.REMOVE
        return self.edit(finding, [(node, replacement)], description=f"drop the unused `async def {function.name}`")


FIXERS = (GeneratorToTuple(), DropUnusedAsyncDef())
