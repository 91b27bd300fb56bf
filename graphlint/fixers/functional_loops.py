"""Functional loop fixes: a nested `cond_func`/`loop_func` of `ops.WhileLoop`, `ops.ForiLoop` or `ops.Scan`
that reads only module globals (`ops`, a helper, a constant) -> the same `def` at module level, which MindSpore
compiles as the loop's subgraph (the catalogue's E5401 examples, compiled in both modes).

A functional loop the primitive cannot compile (a body that reads the function's Tensors, touches a Parameter or
a sub-Cell with weights, or changes its carry's shape in an unrolled loop) -> the Python loop the primitive runs in
PYNATIVE_MODE (its ``__call__`` in MindSpore 2.10 is that loop), which graph mode unrolls (constant bounds) or
compiles as a Tensor `while`."""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.kinds import LIST, TUPLE
from graphlint.analysis.provenance import side_effect
from graphlint.catalogue import functional_loops as rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer, module_level_clash, move_before, replace_nodes, unused_name

MAX_UNROLLED_STEPS = 64  # a longer Python loop is unrolled step by step at compile time (see E5901)


class HoistNestedLoopBody(Fixer):
    """The nested bodies of the call -> module level, just before the top-level statement that holds the graph
    function. Safe: they read no name of the functions around them, so the one function made at import
    behaves as the one made per call. A body whose name module level has, or another function defines too,
    moves under a name of its own (its uses in the function renamed). A body that reads a name of the
    functions around it (a Tensor, even a literal constant) would need it passed through the loop carry,
    which changes the carry's structure: left to FunctionalLoopToPythonLoop."""

    rules = (rules.FUNCTIONAL_LOOP_BODY_CLOSURE,)
    safety = FixSafety.SAFE
    description = "move the loop body to module level"

    def plan(self, finding, context):
        found = finding.payload
        if not isinstance(found, rules.NestedBodies) or not found.bodies:
            return None
        function = _hoistable_siblings(found.bodies)
        if not isinstance(function, nodes.FunctionDef):
            return self.refuse(finding, function) if function else None
        top = function
        while not isinstance(top.parent, nodes.Module):
            top = top.parent
        in_order = sorted(found.bodies, key=lambda body: body.node.lineno)
        moved = [context.find(body.node, (cst.FunctionDef,)) for body in in_order]
        if any(node is None for node in moved):
            return self.refuse(finding, "the body or the statement holding it was not found")
        renaming = _module_names(context, in_order, moved, function)
        if isinstance(renaming, str):
            return self.refuse(finding, renaming)
        renames, shown = renaming
        move = move_before(context, moved, renames)
        if move is None:
            return self.refuse(finding, "the body or the statement holding it was not found")
        return self.edit(finding, [move], description=f"move {' and '.join(shown)} to module level, before "
                                                      f"`{top.name}`")


def _hoistable_siblings(bodies):
    """The precondition of :class:`HoistNestedLoopBody`: the function that defines every body (at its top level,
    undecorated, reading no name of the functions around it but its siblings'); else the reason to refuse, or ""
    when another fixer rewrites the loop (a body reads its function's names)."""
    hoisted = {body.node.name for body in bodies if isinstance(body.node, nodes.FunctionDef)}
    function = None
    for body in bodies:
        func = body.node
        if isinstance(func, nodes.Lambda):
            return "a `lambda` body: write it as a `def` at module level (by hand)"
        if function is None:
            function = func.parent
        if func.parent is not function or not isinstance(function, nodes.FunctionDef) \
                or func not in function.body:
            return f"`{func.name}` is defined under a condition or loop, or in another function than its sibling: " \
                   "move it by hand"
        if any(name not in hoisted for name in body.enclosing_reads):
            return ""  # it would not see them at module level: FunctionalLoopToPythonLoop rewrites the loop
        if func.decorators is not None:
            return f"`{func.name}` is decorated: its decorators would run at import"
    return function


def _module_names(context, in_order: list, moved: list, function):
    """The libcst renames that give each moved body its module-level name (its uses in ``function`` too), and how
    the description shows each; or the reason a name cannot be given."""
    renames, shown = [], []
    for body, node in zip(in_order, moved):
        new_name = _module_name_for(body.node, function)
        if new_name is None:
            return f"another function's `{body.node.name}` would get the same module-level name: rename one of " \
                   "them first (by hand)"
        shown.append(f"`{body.node.name}`" if new_name == body.node.name else f"`{body.node.name}` as `{new_name}`")
        if new_name == body.node.name:
            continue
        renames.append((node.name, cst.Name(new_name)))
        for use in function.nodes_of_class(nodes.Name):
            if use.name == body.node.name and use.lookup(use.name)[0] is function:
                target = context.find(use, (cst.Name,))
                if target is None:
                    return f"a use of `{body.node.name}` was not found"
                renames.append((target, cst.Name(new_name)))
    return renames, shown


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


class FunctionalLoopToPythonLoop(Fixer):
    """``ops.ForiLoop()(lo, hi, f, init)`` -> ``carry = init`` / ``for i in range(lo, hi): carry = f(i, carry)``;
    ``ops.Scan()(f, init, xs)`` -> the loop over ``xs`` that collects ``ys``; ``ops.WhileLoop()(c, f, init)`` ->
    ``while c(carry): carry = f(carry)``: what each primitive's ``__call__`` runs in PYNATIVE_MODE, so PYNATIVE_MODE
    computes what it did. Graph mode unrolls the `for` (constant bounds, at most MAX_UNROLLED_STEPS steps: the
    body may then read the function's Tensors, a Parameter or a sub-Cell, and change its carry's shape) and
    compiles the `while` as a Tensor loop (a carry that changes its kind is refused: that loop joins it too).

    Unsafe: the primitive was maybe chosen for compile time (an unrolled loop compiles each step), and an error
    in the body is no longer wrapped in ValueError. The statement that holds the call must be alone on its line,
    its other parts free of side effects (they now run after the loop), and the loop's bodies named functions or
    methods (a lambda would be made on every step)."""

    rules = (rules.FUNCTIONAL_LOOP_BODY_CLOSURE, rules.FORI_SCAN_BODY_USES_PARAMETER,
             rules.FUNCTIONAL_LOOP_CARRY_CHANGES_TYPE)
    safety = FixSafety.UNSAFE
    description = "functional loop -> the Python loop it runs"

    def plan(self, finding, context):
        call = finding.node
        if not isinstance(call, nodes.Call) or finding.graph is None:
            return None
        values = context.values_of(finding)
        if values is None:
            return self.refuse(finding, "no analysis of the graph code: the loop's bounds are unknown")
        op = _primitive_op(finding.graph.info.imports, call)
        if op is None:
            return self.refuse(finding, "only `ops.WhileLoop()(...)`, `ops.ForiLoop()(...)` and `ops.Scan()(...)` "
                                        "called where they are made are rewritten as Python loops")
        if any(isinstance(a, nodes.Starred) for a in call.args) or any(k.arg is None for k in call.keywords or ()):
            return self.refuse(finding, f"`*args`/`**kwargs` in the `{op}` call: write the loop by hand")
        args = _bind(call, api.FUNCTIONAL_LOOP_ARGUMENTS[op])
        bodies = [args.get("body")] + ([args.get("cond")] if op == "WhileLoop" else [])
        if any(body is None or not isinstance(body, (nodes.Name, nodes.Attribute)) for body in bodies) \
                or args.get("init") is None:
            return self.refuse(finding, f"the `{op}` body is not a named function or method (a lambda would be "
                                        "made again on every step): bind it to a `def` first")
        problem = self._steps_problem(op, args, values, finding)
        if problem:
            return self.refuse(finding, problem)
        if op == "Scan" and side_effect(values, args["init"]) is not None \
                and side_effect(values, args["xs"]) is not None:  # the loop evaluates `init` before `xs`
            return self.refuse(finding, f"`{args['init'].as_string()}` and `{args['xs'].as_string()}` may both have "
                                        "side effects, and the loop evaluates them in the other order: bind them "
                                        "to names first")
        statement = call.statement()
        problem = _hoisting_problem(call, statement, values)
        if problem:
            return self.refuse(finding, problem)
        line = context.own_line(statement)
        node = context.find(call)
        if line is None or isinstance(line, (cst.If, cst.For)) or not isinstance(node, cst.Call):
            return self.refuse(finding, f"the statement holding the `{op}` call is not alone on its line: split it "
                                        "first")
        cst_args = _bind_cst(node, api.FUNCTIONAL_LOOP_ARGUMENTS[op])
        function = call.scope()
        taken = {n.name for n in function.nodes_of_class((nodes.Name, nodes.AssignName))} | set(function.locals) \
            | set(call.root().locals)
        carry = unused_name("carry", taken)
        loop_statements, result, replaced = self._loop(op, cst_args, carry, taken, call, context)
        new_line = line.deep_replace(replaced, result)
        loop_statements[0] = loop_statements[0].with_changes(leading_lines=line.leading_lines)
        new_line = new_line.with_changes(leading_lines=())
        return self.edit(finding, [(line, cst.FlattenSentinel([*loop_statements, new_line]))],
                         description=f"`{op}` -> the Python loop it runs, into `{carry}`")

    @staticmethod
    def _steps_problem(op, args, values, finding) -> str:
        if op == "WhileLoop":
            if finding.rule is rules.FUNCTIONAL_LOOP_CARRY_CHANGES_TYPE:
                return ("the carry changes its kind, and a Python `while` on a Tensor condition joins its carry "
                        "too: keep the carry's dtype and shape (by hand)")
            return ""
        if op == "ForiLoop":
            low, high = (_constant_int(values, args.get(key)) for key in ("lower", "upper"))
            if low is None or high is None:
                return ("the bounds are not constants: a Python loop over them would be a Tensor loop; give "
                        "constant `lower`/`upper` to have it unrolled")
            steps = high - low
        else:
            xs = args.get("xs")
            value = values.value(xs) if xs is not None else None
            if value is None or not (value.is_(LIST) or value.is_(TUPLE)) or value.items is None:
                return "`xs` is not a list or tuple of known length: write the loop by hand"
            if args.get("length") is not None and not (isinstance(args["length"], nodes.Const)
                                                       and args["length"].value is None):
                return "`length=` with `xs`: write the loop by hand"
            steps = len(value.items)
        if steps > MAX_UNROLLED_STEPS:
            return (f"{steps} steps: the Python loop would be unrolled step by step (more than "
                    f"{MAX_UNROLLED_STEPS}); keep the primitive and pass what the body reads through the carry")
        return ""

    @staticmethod
    def _loop(op, args, carry, taken, call, context):
        """(the statements before the holding statement, the expression that replaces the call, the node it
        replaces: the call, or a constant subscript of a Scan's result)."""
        node = context.find(call)
        init = build.assign(carry, args["init"])
        body = args["body"]
        if op == "WhileLoop":
            loop = build.while_loop(build.call(args["cond"], cst.Name(carry)),
                                    [build.assign(carry, build.call(body, cst.Name(carry)))])
            return [init, loop], cst.Name(carry), node
        if op == "ForiLoop":
            index = unused_name("i", taken)
            loop = cst.For(target=cst.Name(index), iter=build.call("range", args["lower"], args["upper"]),
                           body=cst.IndentedBlock(body=[build.assign(carry, build.call(body, cst.Name(index),
                                                                                         cst.Name(carry)))]))
            return [init, loop], cst.Name(carry), node
        outputs, element, output = (unused_name(base, taken | {carry}) for base in ("ys", "element", "y"))
        step = build.assign(build.tuple_of([cst.Name(carry), cst.Name(output)], bare=True),
                            build.call(body, cst.Name(carry), cst.Name(element)))
        collect = build.line(cst.Expr(build.call(build.attribute(cst.Name(outputs), "append"), cst.Name(output))))
        parent = call.parent
        taken_apart = isinstance(parent, nodes.Subscript) and parent.value is call \
            and isinstance(parent.slice, nodes.Const) and parent.slice.value in (0, 1) \
            and not isinstance(parent.slice.value, bool)
        subscript = context.find(parent) if taken_apart else None
        if isinstance(subscript, cst.Subscript) and parent.slice.value == 0:  # the carry only: no `ys` kept
            loop = cst.For(target=cst.Name(element), iter=args["xs"], body=cst.IndentedBlock(body=[step]))
            return [init, loop], cst.Name(carry), subscript
        loop = cst.For(target=cst.Name(element), iter=args["xs"], body=cst.IndentedBlock(body=[step, collect]))
        statements = [init, build.assign(outputs, cst.List(elements=[])), loop]
        if isinstance(subscript, cst.Subscript):
            return statements, cst.Name(outputs), subscript
        return statements, build.tuple_of([cst.Name(carry), cst.Name(outputs)]), node


class MapToTuple(Fixer):
    """``ops.Map()(f, (a, b))`` whose function reads the function around it -> ``(f(a), f(b))``: what
    ``Map.__call__`` computes (``tuple(map(f, seq))``, MindSpore 2.10), one call per item of a tuple or list literal;
    ``ops.HyperMap()`` likewise when every item is a Tensor (it maps into nested tuples). A lambda becomes a
    nested ``def`` on the line before. Safe: the same calls on the same items, in the same order, where the items
    and the function compute without side effects."""

    rules = (rules.MAP_CLOSURE,)
    safety = FixSafety.SAFE
    description = "`ops.Map()(f, items)` (or `map(f, items)`) -> the tuple of `f(item)`"

    def plan(self, finding, context):
        call = finding.node
        values = context.values_of(finding)
        if not isinstance(call, nodes.Call) or values is None:
            return None
        if isinstance(call.func, nodes.Name) and call.func.name == "map":
            kind = "map"  # (Python's `map`: its iterator is consumed by the unpacking or `list()` around it)
        elif isinstance(call.func, nodes.Call):
            kind = (finding.graph.info.imports.qualify(call.func.func) or "").rsplit(".", 1)[-1]
        else:
            return None
        problem = _map_problem(call, kind, values)
        if problem:
            return self.refuse(finding, problem)
        function = call.args[0]
        statement = call.statement()
        line = context.own_line(statement)
        node = context.find(call)
        if line is None or isinstance(line, (cst.If, cst.For)) or not isinstance(node, cst.Call):
            return self.refuse(finding, "the statement is not alone on its line: split it first")
        cst_function, cst_sequence = node.args[0].value, node.args[1].value
        prefix = []
        if isinstance(function, nodes.Lambda):
            scope = statement.scope()
            taken = set(scope.locals) | {n.name for n in scope.nodes_of_class((nodes.Name, nodes.AssignName))} \
                | set(scope.root().locals)
            name = unused_name("map_fn", taken)
            prefix.append(cst.FunctionDef(name=cst.Name(name), params=cst_function.params,
                                          body=cst.IndentedBlock(body=[build.returns(cst_function.body)]),
                                          leading_lines=line.leading_lines))
            callee = cst.Name(name)
        else:
            callee = cst_function
        calls = [build.call(callee, element.value) for element in cst_sequence.elements]
        result = build.tuple_of(calls).with_changes(lpar=node.lpar or [cst.LeftParen()],
                                                    rpar=node.rpar or [cst.RightParen()])
        new_line = replace_nodes(line, [(node, result)])
        if prefix:
            new_line = new_line.with_changes(leading_lines=())
        return self.edit(finding, [(line, cst.FlattenSentinel([*prefix, new_line]))],
                         description=f"`{kind}` -> a tuple of {len(calls)} calls")


def _map_problem(call: nodes.Call, kind: str, values) -> str:
    """Why ``ops.Map()(f, seq)`` cannot become a tuple of calls ('' when it can): one sequence, a literal of items
    without side effects (Tensors for HyperMap), a function named or a lambda of one argument."""
    if isinstance(call.func, nodes.Call) and (call.func.args or call.func.keywords) or len(call.args) != 2 \
            or call.keywords:
        return f"`{kind}` with an operation of its own or several sequences: write the tuple by hand"
    function, sequence = call.args
    if not isinstance(sequence, (nodes.Tuple, nodes.List)) or any(isinstance(e, nodes.Starred) for e in sequence.elts):
        return f"`{sequence.as_string()[:40]}` is not a tuple or list literal: its length is not known here"
    if kind == "HyperMap" and not all(values.value(e).is_tensor for e in sequence.elts):
        return "an item is not proven a Tensor: `HyperMap` maps into nested tuples"
    for item in sequence.elts:
        if side_effect(values, item) is not None:
            return f"`{item.as_string()[:40]}` may have side effects, which the calls would interleave"
    if not isinstance(function, (nodes.Lambda, nodes.Name)):
        return "the function is neither a lambda nor a name: bind it to a name first"
    if isinstance(function, nodes.Lambda) and (function.args.defaults or function.args.vararg or function.args.kwarg
                                               or len(function.args.args or []) != 1):
        return "the lambda takes other than one plain argument: write the tuple by hand"
    return ""


def _primitive_op(imports, call: nodes.Call) -> str | None:
    """"WhileLoop" / "ForiLoop" / "Scan" for ``ops.<Primitive>()(...)``."""
    if not (isinstance(call.func, nodes.Call) and not call.func.args and not call.func.keywords):
        return None
    qualified = imports.qualify(call.func.func) or ""
    name = qualified.rsplit(".", 1)[-1]
    return name if qualified.startswith("mindspore.") and name in api.FUNCTIONAL_LOOP_PRIMITIVES else None


def _bind(call: nodes.Call, spec: dict) -> dict:
    bound = {}
    for key, (position, keyword) in spec.items():
        if position < len(call.args):
            bound[key] = call.args[position]
        for kw in call.keywords or ():
            if kw.arg == keyword:
                bound[key] = kw.value
    return bound


def _bind_cst(call: cst.Call, spec: dict) -> dict:
    positional = [a for a in call.args if a.keyword is None]
    bound = {}
    for key, (position, keyword) in spec.items():
        if position < len(positional):
            bound[key] = positional[position].value
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == keyword:
                bound[key] = arg.value
    return bound


def _constant_int(values, expr):
    if expr is None:
        return None
    value = values.value(expr)
    if value.known and not value.var and isinstance(value.const, int) and not isinstance(value.const, bool):
        return value.const
    return None


def _hoisting_problem(call: nodes.Call, statement, values) -> str:
    """Why the loop cannot run just before ``statement`` in place of ``call`` ('' when it can)."""
    if not isinstance(statement, (nodes.Assign, nodes.Return, nodes.Expr, nodes.AnnAssign)):
        return "the call is not in an assignment, a `return` or an expression statement: write the loop by hand"
    node = call.parent
    while node is not statement:
        if isinstance(node, (nodes.IfExp, nodes.BoolOp, nodes.Lambda, nodes.Comprehension, nodes.ListComp,
                             nodes.GeneratorExp, nodes.DictComp, nodes.SetComp)):
            return f"the call runs only under `{node.as_string()[:40]}`: write the loop by hand"
        node = node.parent
    for part in statement.get_children():
        if part is call or any(n is call for n in part.nodes_of_class(nodes.Call)):
            others = [c for c in part.nodes_of_class(nodes.Call) if c is not call and not _within(c, call)]
            flagged = [c for c in others if side_effect(values, c) is not None]
            if flagged:
                return (f"`{flagged[0].as_string()[:40]}` in the same statement may have side effects, and would "
                        "run after the loop: bind it to a name first")
    return ""


def _within(node, ancestor) -> bool:
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False


FIXERS = (HoistNestedLoopBody(), FunctionalLoopToPythonLoop(), MapToTuple())
