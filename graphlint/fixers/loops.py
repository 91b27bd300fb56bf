"""`for i in range(...)` that unrolls -> a `while` on a Tensor counter.

Why this form (measured with MindSpore 2.10 CPU, see docs/rules and benchmarks/fix_compile_time.py): an
unrolled Python loop grows the graph with the trip count and fails near 500 iterations ("Exceed function
call depth limit 1000"); a `while` on a Tensor counter compiles in constant time whatever the trip count,
runs about as fast as `ops.WhileLoop` and much faster than `ops.ForiLoop(..., unroll=False)`, and, unlike
`ForiLoop`/`Scan`, exports to MindIR and runs after reloading. It also needs no closure: the body stays
where it is and reads what it read before, so nothing is captured (functional-loop bodies that capture
enclosing Tensors fail to compile). The counter advances as `i = i + 1`: `i += 1` on a Tensor created in
the graph mutates the graph's own constant, and from the second call the loop runs once.
"""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis.tree import nodes_of_class
from graphlint.catalogue import branches as branches_rules
from graphlint.catalogue import loops as loops_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers.base import Fixer, replace_nodes, unused_name


class RangeLoopToTensorWhile(Fixer):
    rules = (loops_rules.PYTHON_LOOP_EXCEEDS_CALL_DEPTH, loops_rules.PYTHON_LOOP_UNROLLS)
    safety = FixSafety.UNSAFE  # the counter becomes a Tensor: code that needs a Python int in the body changes
    description = "`for i in range(n)` -> `while i < n` on a Tensor counter"

    def plan(self, finding, context):
        loop = finding.node
        if not isinstance(loop, nodes.For):
            return self.refuse(finding, "only `for ... in range(...)` loops are rewritten")
        node = context.find(loop)
        if not isinstance(node, cst.For):
            return self.refuse(finding, "the loop was not found")
        bounds = _range_bounds(loop)
        if isinstance(bounds, str):
            return self.refuse(finding, bounds)
        start, stop, step = bounds
        if not isinstance(loop.target, nodes.AssignName):
            return self.refuse(finding, "the loop target is not a single name")
        if node.orelse is not None:
            return self.refuse(finding, "`for ... else` has no `while` equivalent here")
        graph = finding.graph
        values = context.analysis.values(graph) if context.analysis is not None and graph is not None else None
        collected = _collected_outputs(loop, values, context) if values is not None else None
        if isinstance(collected, str):
            return self.refuse(finding, collected)
        reason = _body_problem(loop, allowed=collected.append if collected else None)
        if reason:
            return self.refuse(finding, reason)
        for grown, op in (finding.payload.shape_changes if finding.payload is not None else ()):
            return self.refuse(finding, f"`{grown}` changes shape each step (`{op}`): a real loop needs carries "
                                        "of fixed shape")
        name = loop.target.name
        if values is not None:
            region = values.cfg.loops.get(id(loop))
            if region is not None:
                after = region.after.elements[0] if region.after.elements else None
                live = values.cfg.live_in(region.after)
                if name in live:
                    return self.refuse(finding, f"`{name}` is read after the loop: a Python loop leaves it at the "
                                                "last value, a counter loop one step further")
                carried = values.cfg.loop_carried(region) - {name}
                for carried_name in sorted(carried):
                    value = values.name_at(after, carried_name) if after is not None else None
                    if value is not None and (value.may_be("list") or value.may_be("dict")):
                        return self.refuse(finding, f"the loop carries the Python container `{carried_name}`")
        tensor, tensor_import = context.spelling("mindspore.Tensor", ("mindspore", None, "ms"))
        int32, int32_import = context.spelling("mindspore.int32", ("mindspore", None, "ms"))
        start_code = context.code(_cst_arg(node, start)) if start is not None else "0"
        stop_code = context.code(_cst_arg(node, stop))
        counter = cst.parse_statement(f"{name} = {tensor}({start_code}, {int32})\n")
        increment = cst.parse_statement(f"{name} = {name} + {step}\n")
        test = cst.parse_expression(f"{name} < {stop_code}")
        body = node.body
        if isinstance(body, cst.IndentedBlock):
            new_body = body.with_changes(body=list(body.body) + [increment])
        else:  # `for i in range(n): x = x + 1` on one line
            new_body = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=list(body.body))] + [increment])
        replacements, before, imports = [], [], [i for i in (tensor_import, int32_import) if i is not None]
        description = f"`for {name} in range(...)` -> `while {name} < {stop_code}` on a Tensor counter"
        if collected is not None:
            # Per-step outputs go into a preallocated Tensor: `outs = []` / `outs.append(h)` / `ops.stack(outs)`
            # -> `outs = ops.zeros((n,) + h.shape, h.dtype)` / `outs[i - start] = h` / `outs`.
            ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
            imports += [ops_import] if ops_import else []
            buffer, item = collected.buffer, collected.item
            before.append(cst.parse_statement(
                f"{buffer} = {ops}.zeros(({collected.count},) + {item}.shape, {item}.dtype)\n"))
            index = name if start_code == "0" else f"{name} - {start_code}"
            append_node = context.find(collected.append.parent)  # the `outs.append(h)` expression statement
            if append_node is None:
                return self.refuse(finding, "the `.append()` statement was not found")
            replacements.append((append_node, cst.parse_statement(f"{buffer}[{index}] = {item}\n").body[0]))
            for created in collected.creations:
                creation = context.find(created)
                if creation is None:
                    return self.refuse(finding, f"`{buffer} = []` was not found")
                replacements.extend(context.remove_statement(creation))
            for stack in collected.stacks:
                stacked = context.find(stack)
                if stacked is None:
                    return self.refuse(finding, f"`stack({buffer})` was not found")
                replacements.append((stacked, cst.Name(buffer)))
            description += f", per-step outputs into a preallocated `{buffer}`"
            body = node.body
            new_body = replace_nodes(body, replacements[:1])
            new_body = new_body.with_changes(body=list(new_body.body) + [increment])
            replacements = replacements[1:]
        loop_stmt = cst.While(test=test, body=new_body, leading_lines=[])
        first = (before + [counter])[0].with_changes(leading_lines=node.leading_lines)
        statements = [first] + (before + [counter])[1:] + [loop_stmt]
        return self.edit(finding, [(node, cst.FlattenSentinel(statements))] + replacements,
                         imports=list(dict.fromkeys(imports)), description=description)


def _range_bounds(loop: nodes.For):
    call = loop.iter
    if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name) and call.func.name == "range"):
        return "the loop does not iterate over range(...)"
    if call.keywords or not 1 <= len(call.args) <= 3 or any(isinstance(a, nodes.Starred) for a in call.args):
        return "unusual range(...) arguments"
    if len(call.args) == 1:
        return None, call.args[0], 1
    step = 1
    if len(call.args) == 3:
        literal = call.args[2]
        if not (isinstance(literal, nodes.Const) and isinstance(literal.value, int) and literal.value > 0):
            return "only constant positive steps are rewritten (a negative or computed step is not)"
        step = literal.value
    return call.args[0], call.args[1], step


def _cst_arg(node: cst.For, astroid_arg):
    """The libcst argument expression matching an astroid range() argument, by position."""
    call = node.iter
    index = astroid_arg.parent.args.index(astroid_arg)
    return call.args[index].value


class _Collected:
    """A loop that collects one carried Tensor per step: `outs = []` ... `outs.append(h)` ... `ops.stack(outs)`."""

    def __init__(self, buffer, item, count, append, creations, stacks):
        self.buffer, self.item, self.count = buffer, item, count
        self.append, self.creations, self.stacks = append, creations, stacks


def _collected_outputs(loop: nodes.For, values, context):
    """The collection pattern of ``loop`` (None if it appends nothing, a reason if it cannot be rewritten)."""
    appends = [call for call in loop.nodes_of_class(nodes.Call)
               if isinstance(call.func, nodes.Attribute) and call.func.attrname == "append"]
    if not appends:
        return None
    if len(appends) > 1:
        return "the body appends more than once"
    append = appends[0]
    hint = ("; by hand: `outs = ops.zeros((n,) + x.shape, x.dtype)` before a Tensor-counter `while` and "
            "`outs[i] = x` in it")
    if not (isinstance(append.parent, nodes.Expr) and append.parent.parent is loop
            and isinstance(append.func.expr, nodes.Name) and len(append.args) == 1 and not append.keywords
            and isinstance(append.args[0], nodes.Name)):
        return "the body collects per-step outputs other than by one `outs.append(name)` statement" + hint
    buffer, item = append.func.expr.name, append.args[0].name
    bounds = _range_bounds(loop)
    if isinstance(bounds, str) or not all(isinstance(b, nodes.Const) and isinstance(b.value, int)
                                          for b in bounds[:2] if b is not None) or bounds[2] != 1:
        return "per-step outputs are collected over a range that is not constant with step 1" + hint
    start = bounds[0].value if bounds[0] is not None else 0
    count = max(bounds[1].value - start, 0)
    entry = values.cfg.element_of(loop.iter)
    if entry is None:
        return "the loop's data flow is unknown"
    creations = values.cfg.reaching(entry, buffer)
    if not creations or not all(d.kind == "assign" and isinstance(d.value, nodes.List) and not d.value.elts
                                and isinstance(d.node.parent, nodes.Assign) and len(d.node.parent.targets) == 1
                                for d in creations):
        return f"`{buffer}` is not an empty list made before the loop" + hint
    if values.cfg.may_be_undefined(entry, item) or not values.name_at(entry, item).is_tensor:
        return f"`{item}` is not a Tensor carried into the loop, so the buffer's shape is unknown" + hint
    function = loop.scope()
    stacks, stray = [], []
    for use in nodes_of_class(function, nodes.Name):
        if use.name != buffer or use is append.func.expr:
            continue
        call = use.parent
        if (isinstance(call, nodes.Call) and call.args and call.args[0] is use and use.lineno > loop.end_lineno
                and context.info is not None and context.info.imports.qualify(call.func) == "mindspore.ops.stack"
                and len(call.args) == 1 and all(k.arg == "axis" and isinstance(k.value, nodes.Const)
                                                and k.value.value == 0 for k in call.keywords or ())):
            stacks.append(call)
        else:
            stray.append(use)
    if stray or not stacks:
        return f"`{buffer}` is used other than by `ops.stack({buffer})` after the loop" + hint
    return _Collected(buffer, item, count, append, [d.node.parent for d in creations], stacks)


def _body_problem(loop: nodes.For, allowed=None) -> str:
    for inner in loop.nodes_of_class((nodes.Break, nodes.Continue, nodes.Return, nodes.Yield, nodes.YieldFrom,
                                      nodes.Global, nodes.Nonlocal),
                                     skip_klass=(nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
        if isinstance(inner, (nodes.Break, nodes.Continue)):
            owner = inner.parent
            while owner is not None and not isinstance(owner, (nodes.For, nodes.While)):
                owner = owner.parent
            if owner is not loop:
                continue
            return f"`{type(inner).__name__.lower()}` in the loop body (kept as a Python loop)"
        return f"`{type(inner).__name__.lower()}` in the loop body"
    for assign in loop.nodes_of_class((nodes.AssignAttr,)):
        if isinstance(assign.expr, nodes.Name) and assign.expr.name == "self":
            return f"the body writes `self.{assign.attrname}`"
    for call in loop.nodes_of_class(nodes.Call):
        func = call.func
        if call is allowed:
            continue
        if isinstance(func, nodes.Attribute) and func.attrname == "append":
            # ops.Scan would collect per-step outputs, but its outputs come back as a Python list that graph
            # code cannot stack (measured, MindSpore 2.10); a preallocated buffer compiles at any N.
            return ("the body collects per-step outputs (`.append()`); by hand: `outs = ops.zeros((n,) + x.shape, "
                    "x.dtype)` before a Tensor-counter `while` and `outs[i] = x` in it")
        if isinstance(func, nodes.Attribute) and func.attrname in ("extend", "insert", "pop", "update"):
            return f"the body mutates a Python container (`.{func.attrname}()`)"
    return ""


class TensorWhileToWhileLoop(Fixer):
    """A Tensor-condition `while` -> `ops.WhileLoop()(cond, body, carry)`, shown as a suggestion only.

    Measured with MindSpore 2.10 CPU (a 100-step loop on a 4x4 Tensor): the `while` and the `ops.WhileLoop`
    form compile in the same time (0.12-0.13 s), step in the same time (about 4 ms in GRAPH_MODE), both
    differentiate and both export to MindIR. A Tensor `while` already compiles into one graph loop, so
    rewriting it buys nothing by itself; the functional form is offered for code that must be written that
    way (a shared loop body, a port of `jax.lax.while_loop`). The generated `cond`/`body` are module-level
    functions that read everything through the carry: bodies that capture enclosing Tensors fail to compile.
    """

    rules = (branches_rules.TENSOR_CONDITION_CONTROL_FLOW,)
    safety = FixSafety.DISPLAY
    description = "Tensor `while` -> `ops.WhileLoop()(cond, body, carry)` (suggestion)"

    def plan(self, finding, context):
        loop = finding.node
        if not isinstance(loop, nodes.While):
            return None  # an `if` or a ternary: another fixer's business
        node = context.find(loop)
        if not isinstance(node, cst.While) or not isinstance(node.body, cst.IndentedBlock):
            return self.refuse(finding, "the loop was not found (or its body is on the `while` line)")
        if node.orelse is not None:
            return self.refuse(finding, "`while ... else` has no `ops.WhileLoop` form")
        reason = _body_problem(loop) or _functional_body_problem(loop) or _shape_change(loop, context)
        if reason:
            return self.refuse(finding, f"{reason}: `ops.WhileLoop` bodies must be pure functions of the carry")
        graph = finding.graph
        values = context.analysis.values(graph) if context.analysis is not None and graph is not None else None
        region = values.cfg.loops.get(id(loop)) if values is not None else None
        entry = values.cfg.element_of(loop.test) if region is not None else None
        if entry is None:
            return self.refuse(finding, "the loop's data flow is unknown")
        carry = _carry(loop, values.cfg, region)
        if not carry:
            return self.refuse(finding, "the loop carries no local names")
        for name in carry:
            if values.cfg.may_be_undefined(entry, name):
                return self.refuse(finding, f"`{name}` has no value before the loop, so it cannot start the carry")
            if not values.name_at(entry, name).is_tensor:
                return self.refuse(finding, f"the carry would hold `{name}`, which is not known to be a Tensor "
                                            "(`ops.WhileLoop` carries keep their type and shape)")
        function = loop.scope()
        taken = set(loop.root().locals)
        cond_name = unused_name(f"{function.name}_loop_cond", taken)
        body_name = unused_name(f"{function.name}_loop_body", taken | {cond_name})
        packed = ", ".join(carry) if len(carry) > 1 else f"({carry[0]},)"
        unpack = cst.parse_statement(f"{packed} = carry\n")
        cond_def = cst.parse_statement(f"def {cond_name}(carry):\n    {packed} = carry\n    return COND\n")
        cond_def = cond_def.with_changes(body=cond_def.body.with_changes(body=[
            unpack, cst.SimpleStatementLine(body=[cst.Return(value=node.test)])]))
        body_def = cst.parse_statement(f"def {body_name}(carry):\n    pass\n")
        body_def = body_def.with_changes(body=body_def.body.with_changes(
            body=[unpack] + list(node.body.body) + [cst.parse_statement(f"return {packed}\n")]))
        two_blank = [cst.EmptyLine(), cst.EmptyLine()]
        cond_def = cond_def.with_changes(leading_lines=two_blank)
        body_def = body_def.with_changes(leading_lines=two_blank)
        ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
        initial = packed if len(carry) == 1 else f"({packed})"
        call = cst.parse_statement(f"{packed} = {ops}.WhileLoop()({cond_name}, {body_name}, {initial})\n")
        call = call.with_changes(leading_lines=node.leading_lines)
        return self.edit(finding, [(node, call)], imports=[ops_import] if ops_import else [],
                         module_prefix=[cond_def, body_def],
                         description=f"`while` -> `ops.WhileLoop()({cond_name}, {body_name}, {initial})`, "
                                     "same compile and step time as the `while` (measured)")


def _carry(loop: nodes.While, cfg, region) -> list[str]:
    """Local names the loop reads, plus those it modifies that are read after it, in source order."""
    function_locals = loop.scope().locals
    live_after = cfg.live_in(region.after)
    modified = cfg.loop_modified(region)
    ordered = []
    for name_node in [loop.test, *loop.body]:
        for found in ([name_node] if isinstance(name_node, (nodes.Name, nodes.AssignName)) else []) + \
                list(name_node.nodes_of_class((nodes.Name, nodes.AssignName))):
            name = found.name
            if name in ordered or name not in function_locals:
                continue
            if isinstance(found, nodes.Name) or (name in modified and name in live_after):
                ordered.append(name)
    # A name assigned before it is read in every iteration and dead after the loop is a body temporary.
    carried = cfg.loop_carried(region)
    return [name for name in ordered
            if name not in modified or name in carried or name in live_after or _read_in_test(loop, name)]


def _read_in_test(loop: nodes.While, name: str) -> bool:
    return any(n.name == name for n in ([loop.test] if isinstance(loop.test, nodes.Name) else [])
               + list(loop.test.nodes_of_class(nodes.Name)))


def _functional_body_problem(loop: nodes.While) -> str:
    for inner in [loop.test, *loop.body]:
        for found in ([inner] if isinstance(inner, nodes.Name) else []) + list(inner.nodes_of_class(nodes.Name)):
            if found.name == "self":
                return "the loop uses `self` (attributes, Parameters or sub-Cells)"
        for nested in inner.nodes_of_class((nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
            return f"the loop defines a {type(nested).__name__.lower().replace('functiondef', 'function')}"
        for assign in inner.nodes_of_class((nodes.AssignAttr, nodes.Subscript)):
            if isinstance(assign, nodes.AssignAttr) or assign.ctx is not None and assign.ctx.name == "Store":
                return "the body writes an attribute or an item"
        for call in inner.nodes_of_class(nodes.Call):
            func = call.func
            if isinstance(func, nodes.Name) and func.name == "print":
                return "the body prints"
            if isinstance(func, nodes.Attribute) and func.attrname in ("assign", "assign_add", "assign_sub"):
                return f"the body calls `{func.attrname}` (a side effect)"
    return ""


def _shape_change(loop: nodes.While, context) -> str:
    start, end = loop.lineno, loop.end_lineno or loop.lineno
    for other in context.findings:
        if other.rule is loops_rules.TENSOR_WHILE_CARRY_CHANGES_SHAPE and start <= other.line <= end:
            return f"a carried value changes shape (line {other.line}, {other.rule.id})"
    return ""


FIXERS = (RangeLoopToTensorWhile(), TensorWhileToWhileLoop())
