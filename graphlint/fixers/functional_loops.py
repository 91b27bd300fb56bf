"""Functional loop fixes: a nested `cond_func`/`loop_func` of `ops.WhileLoop`, `ops.ForiLoop` or `ops.Scan`
that reads only module globals (`ops`, a helper, a constant) -> the same `def` at module level, which MindSpore
compiles as the loop's subgraph (the catalogue's E5401 examples, compiled in both modes)."""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.catalogue import functional_loops as rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers.base import Fixer, module_level_clash, move_before


class HoistNestedLoopBody(Fixer):
    """The nested bodies of the call -> module level, just before the top-level statement that holds the graph
    function. Safe: they read no name of the functions around them, so the one function made at import
    behaves as the one made per call. A body that reads such a name (a Tensor, even a literal constant) needs
    it passed through the loop carry, which changes the carry's structure: refused."""

    rules = (rules.FUNCTIONAL_LOOP_BODY_CLOSURE,)
    safety = FixSafety.SAFE
    description = "move the loop body to module level"

    def plan(self, finding, context):
        found = finding.payload
        if not isinstance(found, rules.NestedBodies) or not found.bodies:
            return None
        hoisted = {body.node.name for body in found.bodies if isinstance(body.node, nodes.FunctionDef)}
        function = None
        for body in found.bodies:
            func = body.node
            if isinstance(func, nodes.Lambda):
                return self.refuse(finding, "a `lambda` body: write it as a `def` at module level (by hand)")
            if function is None:
                function = func.parent
            if func.parent is not function or not isinstance(function, nodes.FunctionDef) \
                    or func not in function.body:
                return self.refuse(finding, f"`{func.name}` is defined under a condition or loop, or in another "
                                            "function than its sibling: move it by hand")
            reads = [name for name in body.enclosing_reads if name not in hoisted]
            if reads:
                return self.refuse(finding, f"`{func.name}` reads {', '.join(f'`{n}`' for n in reads)} of the "
                                            "function around it, which it would not see at module level: pass "
                                            "it through the loop carry (by hand)")
            if func.decorators is not None:
                return self.refuse(finding, f"`{func.name}` is decorated: its decorators would run at import")
            clash = module_level_clash(func)
            if clash:
                return self.refuse(finding, clash)
        top = function
        while not isinstance(top.parent, nodes.Module):
            top = top.parent
        in_order = sorted(found.bodies, key=lambda body: body.node.lineno)
        moved = [context.find(body.node, (cst.FunctionDef,)) for body in in_order]
        move = move_before(context, moved) if all(node is not None for node in moved) else None
        if move is None:
            return self.refuse(finding, "the body or the statement holding it was not found")
        names = " and ".join(f"`{body.node.name}`" for body in in_order)
        return self.edit(finding, [move], description=f"move {names} to module level, before `{top.name}`")


FIXERS = (HoistNestedLoopBody(),)
