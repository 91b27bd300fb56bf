"""Functional loop fixes: a nested `cond_func`/`loop_func` of `ops.WhileLoop`, `ops.ForiLoop` or `ops.Scan`
that reads only module globals (`ops`, a helper, a constant) -> the same `def` at module level, which MindSpore
compiles as the loop's subgraph (the catalogue's E5401 examples, compiled in both modes)."""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.catalogue import functional_loops as rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers.base import Fixer, module_level_clash, move_before, unused_name


class HoistNestedLoopBody(Fixer):
    """The nested bodies of the call -> module level, just before the top-level statement that holds the graph
    function. Safe: they read no name of the functions around them, so the one function made at import
    behaves as the one made per call. A body whose name module level has, or another function defines too,
    moves under a name of its own (its uses in the function renamed). A body that reads a name of the
    functions around it (a Tensor, even a literal constant) would need it passed through the loop carry,
    which changes the carry's structure: refused."""

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
        top = function
        while not isinstance(top.parent, nodes.Module):
            top = top.parent
        in_order = sorted(found.bodies, key=lambda body: body.node.lineno)
        moved = [context.find(body.node, (cst.FunctionDef,)) for body in in_order]
        if any(node is None for node in moved):
            return self.refuse(finding, "the body or the statement holding it was not found")
        renames, shown = [], []
        for body, node in zip(in_order, moved):
            new_name = _module_name_for(body.node, function)
            if new_name is None:
                return self.refuse(finding, f"another function's `{body.node.name}` would get the same module-level "
                                            "name: rename one of them first (by hand)")
            shown.append(f"`{body.node.name}`" if new_name == body.node.name else f"`{body.node.name}` as `{new_name}`")
            if new_name == body.node.name:
                continue
            renames.append((node.name, cst.Name(new_name)))
            for use in function.nodes_of_class(nodes.Name):
                if use.name == body.node.name and use.lookup(use.name)[0] is function:
                    target = context.find(use, (cst.Name,))
                    if target is None:
                        return self.refuse(finding, f"a use of `{body.node.name}` was not found")
                    renames.append((target, cst.Name(new_name)))
        move = move_before(context, moved, renames)
        if move is None:
            return self.refuse(finding, "the body or the statement holding it was not found")
        return self.edit(finding, [move], description=f"move {' and '.join(shown)} to module level, before "
                                                      f"`{top.name}`")


def _module_name_for(func: nodes.FunctionDef, function: nodes.FunctionDef) -> str | None:
    """The body's own name, or, when module level has it or another function defines it too (both moved in
    one round, the second would replace the first), one made of it and its function's qualified name that
    nothing in the module uses; None when a namesake in another function would be given the same one."""
    if not module_level_clash(func):
        return func.name
    module = func.root()
    namesakes = [other for other in module.nodes_of_class(nodes.FunctionDef) if other is not func
                 and other.name == func.name and isinstance(other.parent, nodes.FunctionDef)]
    base = _renamed_base(func, function)
    if any(_renamed_base(other, other.parent) == base for other in namesakes):
        return None
    taken = set(module.locals) | {n.name for n in module.nodes_of_class((nodes.Name, nodes.AssignName))} | \
        {n.name for n in module.nodes_of_class((nodes.FunctionDef, nodes.ClassDef))}
    return unused_name(base, taken)


def _renamed_base(func: nodes.FunctionDef, function: nodes.FunctionDef) -> str:
    owner = function.parent.name + "_" if isinstance(function.parent, nodes.ClassDef) else ""
    return f"{func.name}_{owner}{function.name}".lower()


FIXERS = (HoistNestedLoopBody(),)
