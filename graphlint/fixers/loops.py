"""Python loops that unroll (or cannot compile) -> a `while` on a Tensor counter.

Why this form (measured with MindSpore 2.10 CPU, see docs/rules and benchmarks/fix_compile_time.py): an
unrolled Python loop grows the graph with the trip count and fails near 500 iterations ("Exceed function
call depth limit 1000"); a `while` on a Tensor counter compiles in constant time whatever the trip count,
runs about as fast as `ops.WhileLoop` and much faster than `ops.ForiLoop(..., unroll=False)`, and, unlike
`ForiLoop`/`Scan`, exports to MindIR and runs after reloading. It also needs no closure: the body stays
where it is and reads what it read before, so nothing is captured (functional-loop bodies that capture
enclosing Tensors fail to compile). The counter advances as `i = i + 1`: `i += 1` on a Tensor created in
the graph mutates the graph's own constant, and from the second call the loop runs once.

`break`, `continue` and an early `return` in the body are lowered as TensorFlow AutoGraph's
break_statements / continue_statements / return_statements converters do, with a flag instead of Python
control flow: `if c: break` sets a carried `done` flag that the loop condition reads
(`while ops.logical_and(i < n, ops.logical_not(done))`), `if c: continue` sets a per-step `skip` flag, and
every assignment after such a point keeps its old value when a flag is up (`x = ops.where(done, x, new)`), so
the body needs no Tensor `if` (8-20 ms per call each, measured) and the loop never unrolls. `return e` in the
loop sets `done` and the function returns `ops.where(done, e, <what it returned after the loop>)`.

A bound that is a Tensor (`for i in range(n)` with `n` computed in the graph: MindSpore's `range` needs an
int) gives the same `while i < n`; `for row in t` over a Tensor becomes an index loop
(`row = t[i]` while `i < t.shape[0]`, the static length).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from astroid import nodes

from graphlint.analysis.kinds import BOOL, FLOAT, INT
from graphlint.analysis.rewrite_facts import Side, _normal, tensor_facts
from graphlint.analysis.tree import nodes_of_class
from graphlint.catalogue import branches as branches_rules
from graphlint.catalogue import loops as loops_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer, replace_nodes, unused_name
from graphlint.fixers.branches import tensor_condition

_EXITS = (nodes.Break, nodes.Continue, nodes.Return)


class RangeLoopToTensorWhile(Fixer):
    rules = (loops_rules.PYTHON_LOOP_EXCEEDS_CALL_DEPTH, loops_rules.PYTHON_LOOP_UNROLLS, loops_rules.RANGE_OF_TENSOR)
    safety = FixSafety.UNSAFE  # the counter becomes a Tensor: code that needs a Python int in the body changes
    description = "`for i in range(n)` -> `while i < n` on a Tensor counter"

    def plan(self, finding, context):
        checked = _loop_plan(finding, context)
        if isinstance(checked, str):
            return self.refuse(finding, checked)
        built = _counter_loop(checked, context)
        if isinstance(built, str):
            return self.refuse(finding, built)
        edits, imports, description = built
        return self.edit(finding, edits, imports=imports, description=description)


@dataclass
class _LoopPlan:
    """What :func:`_loop_plan` proved of a loop that can become a Tensor-counter `while`."""

    loop: nodes.For
    node: cst.For
    name: str  # the loop variable
    iterated: object  # `for row in t`: the Tensor iterated over (else None)
    bounds: tuple | None  # (start, stop, step) of `range(...)`, else None
    collected: object  # the per-step outputs collected (_Collected), else None
    lowering: "_Lowering"


def _loop_plan(finding, context) -> _LoopPlan | str:
    """The precondition of :class:`RangeLoopToTensorWhile`: what the analysis proves of the loop, or the reason
    it cannot be rewritten."""
    loop = finding.node
    if not isinstance(loop, nodes.For):
        return "only `for` loops are rewritten"
    node = context.find(loop)
    if not isinstance(node, cst.For):
        return "the loop was not found"
    if not isinstance(loop.target, nodes.AssignName):
        return "the loop target is not a single name"
    if node.orelse is not None:
        return "`for ... else` has no `while` equivalent here"
    values = context.values_of(finding)
    if values is None:
        return "the function could not be analysed"
    iteration = _iteration(loop, values)
    if isinstance(iteration, str):
        return iteration
    iterated, bounds = iteration
    collected = _collected_outputs(loop, values, context) if iterated is None else None
    if isinstance(collected, str):
        return collected
    reason = _body_problem(loop, allowed=collected.append if collected else None)
    if reason:
        return reason
    for grown, op in (finding.payload.shape_changes if finding.payload is not None else ()):
        return f"`{grown}` changes shape each step (`{op}`): a real loop needs carries of fixed shape"
    lowering = _flow_problem(loop, values, context, collected.buffer if collected is not None else None)
    if isinstance(lowering, str):
        return lowering
    if collected is not None and lowering.exits:
        return "the body both collects per-step outputs and leaves early"
    return _LoopPlan(loop, node, loop.target.name, iterated, bounds, collected, lowering)


def _iteration(loop: nodes.For, values):
    """``(None, (start, stop, step))`` for a loop over ``range(...)``, ``(the Tensor, None)`` for one over a named
    Tensor, or the reason the loop cannot be rewritten."""
    bounds = _range_bounds(loop)
    if not isinstance(bounds, str):
        return None, bounds
    if not values.value(loop.iter).is_tensor:
        return bounds
    if not (isinstance(loop.iter, nodes.Name) or isinstance(loop.iter, nodes.Attribute)
            and isinstance(loop.iter.expr, nodes.Name) and loop.iter.expr.name == values.self_name):
        return "the loop iterates over an expression: name the Tensor first"
    if isinstance(loop.iter, nodes.Name) and any(
            isinstance(a, nodes.AssignName) and a.name == loop.iter.name for a in loop.nodes_of_class(
                nodes.AssignName)):
        return f"the body reassigns `{loop.iter.name}`, which the loop iterates over"
    return loop.iter, None


def _flow_problem(loop: nodes.For, values, context, buffer: str | None = None):
    """The loop's data flow allows a counter loop: its :class:`_Lowering` (analysed), or the reason it does not.
    ``buffer``: the list the loop collects per-step outputs in (the rewrite makes it a Tensor, not a carry)."""
    name = loop.target.name
    region = values.cfg.loops.get(id(loop))
    if region is None:
        return "the loop's data flow is unknown"
    live_after = values.cfg.live_in(region.after)
    if name in live_after:
        return f"`{name}` is read after the loop: a Python loop leaves it at the last value, a counter loop one " \
               "step further"
    after = region.after.elements[0] if region.after.elements else None
    carried = values.cfg.loop_carried(region) - {name, buffer}
    entry = values.cfg.element_of(loop.iter)
    facts = tensor_facts(values)
    for carried_name in sorted(carried):
        value = values.name_at(after, carried_name) if after is not None else None
        if value is not None and (value.may_be("list") or value.may_be("dict")):
            return f"the loop carries the Python container `{carried_name}`"
        problem = _carry_problem(values, facts, loop, entry, carried_name)
        if problem:
            return problem
    lowering = _Lowering(loop, values, facts, context, name, carried, live_after)
    return lowering.analyse() or lowering


def _counter_loop(plan: _LoopPlan, context):
    """The libcst nodes of the rewrite: ``(edits, imports, description)``, or the reason a node it needs was not
    found."""
    loop, node, name, lowering = plan.loop, plan.node, plan.name, plan.lowering
    tensor, tensor_import = context.spelling("mindspore.Tensor", ("mindspore", None, "ms"))
    int32, int32_import = context.spelling("mindspore.int32", ("mindspore", None, "ms"))
    imports = [i for i in (tensor_import, int32_import) if i is not None]
    taken = set(loop.scope().locals)
    counter = name
    before: list[cst.BaseStatement] = []
    if plan.iterated is not None:
        counter = unused_name("index", taken)
        taken.add(counter)
        start, stop, step = build.integer(0), build.subscript(build.attribute(_cst_expr(context, plan.iterated),
                                                                              "shape"), build.integer(0)), 1
    else:
        start_node, stop_node, step = plan.bounds
        start = _cst_arg(node, start_node) if start_node is not None else build.integer(0)
        stop = _cst_arg(node, stop_node)
    counter_start = build.assign(counter, build.call(build.dotted(tensor), start, build.dotted(int32)))
    increment = build.assign(counter, build.binary(build.name(counter), "+" if step > 0 else "-",
                                                   build.integer(abs(step))))
    test = build.compare(build.name(counter), "<" if step > 0 else ">", stop)
    body = node.body
    statements = list(body.body) if isinstance(body, cst.IndentedBlock) else \
        [cst.SimpleStatementLine(body=list(body.body))]  # `for i in range(n): x = x + 1` on one line
    if plan.iterated is not None:
        statements.insert(0, build.assign(name, build.subscript(_cst_expr(context, plan.iterated),
                                                                build.name(counter))))
    replacements = []
    description = f"`for {name} in ...` -> `while {context.code(test).strip()}` on a Tensor counter"
    ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
    if plan.collected is not None:
        imports += [ops_import] if ops_import else []
        statements = _into_buffer(plan.collected, name, statements, before, replacements, ops, context)
        if isinstance(statements, str):
            return statements
        description += f", per-step outputs into a preallocated `{plan.collected.buffer}`"
    if lowering.exits:
        imports += [ops_import] if ops_import else []
        bool_, bool_import = context.spelling("mindspore.bool_", ("mindspore", None, "ms"))
        imports += [bool_import] if bool_import else []
        statements = lowering.lower(statements, ops, taken)
        if isinstance(statements, str):
            return statements
        if lowering.done:
            before.append(build.assign(lowering.done, build.call(build.dotted(tensor), build.name("False"),
                                                                 build.dotted(bool_))))
            test = build.call(build.dotted(f"{ops}.logical_and"), test,
                              build.call(build.dotted(f"{ops}.logical_not"), build.name(lowering.done)))
        kinds = sorted({type(e).__name__.lower() for e in lowering.exits})
        description += " with " + "/".join(f"`{k}`" for k in kinds) + " lowered to flags"
        if lowering.returned is not None:
            problem = lowering.lower_return(replacements, ops)
            if problem:
                return problem
    loop_stmt = build.while_loop(test, statements + [increment])
    first = (before + [counter_start])[0].with_changes(leading_lines=node.leading_lines)
    new = [first] + (before + [counter_start])[1:] + [loop_stmt]
    return [(node, cst.FlattenSentinel(new))] + replacements, list(dict.fromkeys(imports)), description


def _into_buffer(collected, name: str, statements: list, before: list, replacements: list, ops: str, context):
    """Per-step outputs go into a preallocated Tensor: `outs = []` / `outs.append(h)` / `ops.stack(outs)` ->
    `outs = ops.zeros((n,) + h.shape, h.dtype)` / `outs[i - start] = h` / `outs`. The loop body's statements
    (the buffer's creation added to ``before``, the other edits to ``replacements``), or the reason a node was
    not found."""
    buffer, item = collected.buffer, collected.item
    shape = build.binary(build.tuple_of([build.integer(collected.count)]), "+",
                         build.attribute(build.name(item), "shape"))
    before.append(build.assign(buffer, build.call(build.dotted(f"{ops}.zeros"), shape,
                                                  build.attribute(build.name(item), "dtype"))))
    index = build.name(name) if collected.start == 0 else \
        build.binary(build.name(name), "-", build.integer(collected.start))
    append_node = context.find(collected.append.parent)  # the `outs.append(h)` expression statement
    if append_node is None:
        return "the `.append()` statement was not found"
    store = cst.Assign(targets=[cst.AssignTarget(target=build.subscript(build.name(buffer), index))],
                       value=build.name(item))
    statements = [replace_nodes(s, [(append_node, store)]) for s in statements]
    for created in collected.creations:
        creation = context.find(created)
        if creation is None:
            return f"`{buffer} = []` was not found"
        replacements.extend(context.remove_statement(creation))
    for stack in collected.stacks:
        stacked = context.find(stack)
        if stacked is None:
            return f"`stack({buffer})` was not found"
        replacements.append((stacked, build.name(buffer)))
    return statements


class _Lowering:
    """`break` / `continue` / `return` at the top level of a loop body, as flags (see the module docstring)."""

    def __init__(self, loop, values, facts, context, counter, carried, live_after):
        self.loop, self.values, self.facts, self.context = loop, values, facts, context
        self.counter, self.carried, self.live_after = counter, carried, live_after
        self.exits: list = []
        self.done = ""
        self.returned = None  # the `return value` inside the loop
        self.skip = ""

    def analyse(self) -> str:
        loop = self.loop
        found = [n for n in _own_nodes(loop) if isinstance(n, _EXITS)]
        if not found:
            return ""
        for exit_node in found:
            statement = exit_node.parent
            if not (isinstance(statement, nodes.If) and statement.parent is loop and statement.body[-1] is exit_node
                    and not statement.orelse):
                return (f"`{_keyword(exit_node)}` is rewritten only as the last statement of an `if` (without "
                        "`else`) at the top level of the loop body")
            self.exits.append(exit_node)
        kinds = {type(e) for e in self.exits}
        if nodes.Return in kinds and nodes.Break in kinds:
            return "the body both breaks and returns"
        entry = self.values.cfg.element_of(loop.iter)
        flagged = False
        for statement in loop.body:
            exit_node = statement.body[-1] if isinstance(statement, nodes.If) and statement.body and \
                statement.body[-1] in self.exits else None
            if exit_node is not None:
                problem = self._condition_problem(statement.test)
                if problem:
                    return problem
                for inner in statement.body[:-1]:
                    problem = self._guardable(inner, entry)
                    if problem:
                        return problem
                if isinstance(exit_node, nodes.Return):
                    problem = self._return_problem(exit_node, entry)
                    if problem:
                        return problem
                flagged = True
                continue
            if flagged:
                problem = self._guardable(statement, entry)
                if problem:
                    return problem
        return ""

    def _condition_problem(self, test) -> str:
        value = self.values.value(test)
        reads_counter = any(n.name == self.counter for n in _names(test))
        if not (value.var or reads_counter):
            return (f"the exit condition `{test.as_string()}` is decided while compiling: move the `if` out of "
                    "the loop")
        problem, _ = self.facts.effects(test)
        return f"{problem} in the exit condition" if problem else ""

    def _guardable(self, statement, entry) -> str:
        """A statement after an exit point runs only when no flag is up: it must be an assignment of names."""
        if not isinstance(statement, nodes.Assign) or len(statement.targets) != 1:
            return (f"`{_short(statement)}` follows a `break`/`continue`/`return` point: only assignments there "
                    "can be guarded by the flag")
        target = statement.targets[0]
        names = [target.name] if isinstance(target, nodes.AssignName) else \
            [e.name for e in target.elts] if isinstance(target, nodes.Tuple) and all(
                isinstance(e, nodes.AssignName) for e in target.elts) else None
        if names is None:
            return f"`{_short(statement)}` assigns something other than names after an exit point"
        problem, _ = self.facts.effects(statement.value)
        if problem:
            return f"{problem} after an exit point (it would run when the loop has stopped)"
        for name in names:
            if self._needs_guard(name, entry) and self.values.cfg.may_be_undefined(entry, name):
                return f"`{name}` is assigned after an exit point and has no value before the loop"
        return ""

    def _needs_guard(self, name, entry) -> bool:
        """A name whose value outlives the step (carried, read after the loop, or defined before it)."""
        return name in self.carried or name in self.live_after or not self.values.cfg.may_be_undefined(entry, name)

    def _return_problem(self, exit_node, entry) -> str:
        loop = self.loop
        function = loop.scope()
        if loop.parent is not function:
            return "an early `return` in a loop is rewritten only for a loop at the top level of the function"
        if exit_node.value is None:
            return "`return` without a value in the loop"
        for name in _names(exit_node.value):
            if name.name == self.counter:
                return f"the returned value reads the counter `{self.counter}`"
            if self.values.cfg.may_be_undefined(entry, name.name) and name.name in self.values.cfg.defs_by_name:
                return f"the returned value reads `{name.name}`, which has no value before the loop"
        rest = function.body[function.body.index(loop) + 1:]
        if not rest or not isinstance(rest[-1], nodes.Return) or rest[-1].value is None or any(
                not (isinstance(s, nodes.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], nodes.AssignName))
                for s in rest[:-1]):
            return "the code after the loop is not assignments and a final `return value`"
        for statement in rest[:-1]:
            problem, _ = self.facts.effects(statement.value)
            if problem:
                return f"{problem} after the loop (it would run after an early return too)"
        verdict = self.facts.merge([Side(expr=exit_node.value), Side(expr=rest[-1].value)], returned=True)
        if not verdict.ok:
            return f"the returned values: {verdict.problem}"
        self.returned = exit_node
        self.rest = rest
        return ""

    def lower(self, statements: list, ops: str, taken: set):
        """The body's libcst statements with the exits replaced by flags and later assignments guarded."""
        context = self.context
        kinds = {type(e) for e in self.exits}
        if nodes.Break in kinds or nodes.Return in kinds:
            self.done = unused_name("done", taken)
            taken.add(self.done)
        if nodes.Continue in kinds:
            self.skip = unused_name("skip", taken)
            taken.add(self.skip)
        entry = self.values.cfg.element_of(self.loop.iter)
        offset = len(statements) - len(self.loop.body)
        if offset < 0:
            return "the loop body puts several statements on one line"
        by_line = {id(line): statement for line, statement in zip(statements[offset:], self.loop.body)}
        where = build.dotted(f"{ops}.where")
        logical_or, logical_and = build.dotted(f"{ops}.logical_or"), build.dotted(f"{ops}.logical_and")
        logical_not = build.dotted(f"{ops}.logical_not")
        raised: list[str] = []  # flags set so far in the step
        out: list[cst.BaseStatement] = []

        def halt():
            flags = [build.name(f) for f in raised]
            return flags[0] if len(flags) == 1 else build.call(logical_or, *flags)

        def guarded(assign: nodes.Assign, take=None) -> list:
            """`x = value` -> `x = ops.where(halt, x, value)` (or `ops.where(take, value, x)` inside an exit)."""
            value = context.find(assign.value, (cst.BaseExpression,))
            target = assign.targets[0]
            pairs = []
            result = []
            if isinstance(target, nodes.AssignName):
                pairs = [(target.name, value)]
            else:
                temps = []
                for element in target.elts:
                    fresh = unused_name(f"{element.name}_new", taken)
                    taken.add(fresh)
                    temps.append(fresh)
                result.append(build.line(cst.Assign(targets=[cst.AssignTarget(
                    target=build.tuple_of([build.name(t) for t in temps], bare=True))], value=value)))
                pairs = [(element.name, build.name(t)) for element, t in zip(target.elts, temps)]
            for name, new in pairs:
                if not self._needs_guard(name, entry):
                    result.append(build.assign(name, new))
                elif take is not None:
                    result.append(build.assign(name, build.call(where, take, new, build.name(name))))
                else:
                    result.append(build.assign(name, build.call(where, halt(), build.name(name), new)))
            return result

        for line in statements:
            statement = by_line.get(id(line))
            if statement is None:  # a comment-only or unknown line: keep it
                out.append(line)
                continue
            exit_node = statement.body[-1] if isinstance(statement, nodes.If) and statement.body[-1] in self.exits \
                else None
            if exit_node is None:
                out.extend(guarded(statement) if raised else [line])
                continue
            test = tensor_condition(context, self.facts, statement.test, ops)
            take = test if not raised else build.call(logical_and, test, build.call(logical_not, halt()))
            flag = self.skip if isinstance(exit_node, nodes.Continue) else self.done
            leading = list(line.leading_lines)
            if statement.body[:-1]:
                fresh = unused_name("leave" if flag == self.done else "skip_now", taken)
                taken.add(fresh)
                out.append(build.assign(fresh, take, leading))
                leading = []
                take = build.name(fresh)
                for inner in statement.body[:-1]:
                    out.extend(guarded(inner, take))
            if flag in raised:
                out.append(build.assign(flag, build.call(logical_or, build.name(flag), take), leading))
            else:
                out.append(build.assign(flag, take, leading))
                raised.append(flag)
        return out

    def lower_return(self, replacements: list, ops: str) -> str:
        """After the loop: `return ops.where(done, <returned in the loop>, <returned after it>)`."""
        context = self.context
        final = self.rest[-1]
        line = context.statement_line(context.find(final))
        inner = context.find(self.returned.value, (cst.BaseExpression,))
        after = context.find(final.value, (cst.BaseExpression,))
        if line is None or inner is None or after is None:
            return "the returns were not found"
        reassigned = {s.targets[0].name for s in self.rest[:-1]}
        if {n.name for n in _names(self.returned.value)} & reassigned:
            return "the code after the loop reassigns a name the early `return` reads"
        merged = build.call(build.dotted(f"{ops}.where"), build.name(self.done), inner, after)
        replacements.append((line, build.returns(merged).with_changes(leading_lines=line.leading_lines)))
        return ""


def _carry_problem(values, facts, loop, entry, name) -> str:
    """A carried name whose dtype or kind the body changes: fine unrolled, but a Tensor `while` carry keeps one."""
    if entry is None or values.cfg.may_be_undefined(entry, name):
        return ""
    before = values.name_at(entry, name)
    assigns = [a for a in nodes_of_class(loop, nodes.Assign)
               if len(a.targets) == 1 and isinstance(a.targets[0], nodes.AssignName) and a.targets[0].name == name]
    for assign in assigns:
        inside = values.value(assign.value)
        if before.kinds and before.kinds <= {INT, FLOAT, BOOL} and inside.is_tensor:
            return (f"`{name}` starts as a Python {'/'.join(sorted(before.kinds))} and becomes a Tensor in the loop: a "
                    f"Tensor `while` carries one type (start it as a Tensor, e.g. `ops.zeros((), ms.float32)`)")
        old = facts._name_dtype(name, entry, 0)  # noqa: SLF001
        new = facts.dtype(assign.value)
        old, new = _normal(old), _normal(new)
        if isinstance(old, str) and isinstance(new, str) and old != new:
            return f"`{name}` changes dtype in the loop ({old} -> {new}): a Tensor `while` carry keeps one dtype"
    return ""


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
        value = literal.value if isinstance(literal, nodes.Const) else \
            -literal.operand.value if isinstance(literal, nodes.UnaryOp) and literal.op == "-" and \
            isinstance(literal.operand, nodes.Const) else None
        if not (isinstance(value, int) and not isinstance(value, bool) and value != 0):
            return "only constant steps are rewritten (a computed step is not)"
        step = value
    return call.args[0], call.args[1], step


def _cst_arg(node: cst.For, astroid_arg):
    """The libcst argument expression matching an astroid range() argument, by position."""
    index = astroid_arg.parent.args.index(astroid_arg)
    return node.iter.args[index].value


def _cst_expr(context, expr):
    found = context.find(expr, (cst.BaseExpression,))
    if found is None:
        raise LookupError(f"`{expr.as_string()}` was not found")
    return found


class _Collected:
    """A loop that collects one carried Tensor per step: `outs = []` ... `outs.append(h)` ... `ops.stack(outs)`."""

    def __init__(self, buffer, item, count, start, append, creations, stacks):
        self.buffer, self.item, self.count, self.start = buffer, item, count, start
        self.append, self.creations, self.stacks = append, creations, stacks


_COLLECT_HINT = ("; by hand: `outs = ops.zeros((n,) + x.shape, x.dtype)` before a Tensor-counter `while` and "
                 "`outs[i] = x` in it")


def _collected_outputs(loop: nodes.For, values, context):
    """The collection pattern of ``loop`` (None if it appends nothing, a reason if it cannot be rewritten)."""
    append = _single_append(loop)
    if append is None or isinstance(append, str):
        return append
    buffer, item = append.func.expr.name, append.args[0].name
    span = _constant_span(loop)
    if span is None:
        return "per-step outputs are collected over a range that is not constant with step 1" + _COLLECT_HINT
    start, count = span
    entry = values.cfg.element_of(loop.iter)
    if entry is None:
        return "the loop's data flow is unknown"
    # (the append rebinds the list: its own definition reaches the loop's entry through the back edge)
    creations = [d for d in values.cfg.reaching(entry, buffer) if not (d.kind == "mutate" and d.value is append)]
    if not creations or not all(d.kind == "assign" and isinstance(d.value, nodes.List) and not d.value.elts
                                and isinstance(d.node.parent, nodes.Assign) and len(d.node.parent.targets) == 1
                                for d in creations):
        return f"`{buffer}` is not an empty list made before the loop" + _COLLECT_HINT
    if values.cfg.may_be_undefined(entry, item) or not values.name_at(entry, item).is_tensor:
        return f"`{item}` is not a Tensor carried into the loop, so the buffer's shape is unknown" + _COLLECT_HINT
    stacks = _stacks_after(loop, buffer, append, context)
    if stacks is None:
        return f"`{buffer}` is used other than by `ops.stack({buffer})` after the loop" + _COLLECT_HINT
    return _Collected(buffer, item, count, start, append, [d.node.parent for d in creations], stacks)


def _single_append(loop: nodes.For):
    """The one `outs.append(name)` statement at the top level of the body (None without any `.append()`, the
    reason when there is another form)."""
    appends = [call for call in loop.nodes_of_class(nodes.Call)
               if isinstance(call.func, nodes.Attribute) and call.func.attrname == "append"]
    if not appends:
        return None
    if len(appends) > 1:
        return "the body appends more than once"
    append = appends[0]
    if not (isinstance(append.parent, nodes.Expr) and append.parent.parent is loop
            and isinstance(append.func.expr, nodes.Name) and len(append.args) == 1 and not append.keywords
            and isinstance(append.args[0], nodes.Name)):
        return "the body collects per-step outputs other than by one `outs.append(name)` statement" + _COLLECT_HINT
    return append


def _constant_span(loop: nodes.For) -> tuple[int, int] | None:
    """``(start, number of steps)`` of a loop over ``range`` of int constants with step 1, else None."""
    bounds = _range_bounds(loop)
    if isinstance(bounds, str) or not all(isinstance(b, nodes.Const) and isinstance(b.value, int)
                                          for b in bounds[:2] if b is not None) or bounds[2] != 1:
        return None
    start = bounds[0].value if bounds[0] is not None else 0
    return start, max(bounds[1].value - start, 0)


def _stacks_after(loop: nodes.For, buffer: str, append: nodes.Call, context) -> list | None:
    """The `ops.stack(buffer)` calls after the loop, when they are the only other uses of ``buffer`` (else
    None)."""
    stacks = []
    for use in nodes_of_class(loop.scope(), nodes.Name):
        if use.name != buffer or use is append.func.expr:
            continue
        call = use.parent
        if not (isinstance(call, nodes.Call) and call.args and call.args[0] is use and use.lineno > loop.end_lineno
                and context.info is not None and context.info.imports.qualify(call.func) == "mindspore.ops.stack"
                and len(call.args) == 1 and all(k.arg == "axis" and isinstance(k.value, nodes.Const)
                                                and k.value.value == 0 for k in call.keywords or ())):
            return None
        stacks.append(call)
    return stacks or None


def _body_problem(loop, allowed=None) -> str:
    for inner in loop.nodes_of_class((nodes.Yield, nodes.YieldFrom, nodes.Global, nodes.Nonlocal),
                                     skip_klass=(nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
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


def _own_nodes(loop):
    """Nodes of a loop's body, not inside nested functions; of a nested loop only its `return`s (its `break`
    and `continue` are its own)."""
    skip = (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)
    stack = list(reversed(loop.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, skip):
            continue
        if isinstance(node, (nodes.For, nodes.While)):
            yield from node.nodes_of_class(nodes.Return, skip_klass=skip)
            continue
        stack.extend(reversed(list(node.get_children())))


def _names(expr):
    if isinstance(expr, nodes.Name):
        yield expr
    yield from expr.nodes_of_class(nodes.Name)


def _keyword(node) -> str:
    return type(node).__name__.lower()


def _short(node) -> str:
    text = " ".join(node.as_string().split())
    return text if len(text) <= 60 else text[:57] + "..."


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
        exits = [n for n in _own_nodes(loop) if isinstance(n, _EXITS)]
        reason = (f"`{_keyword(exits[0])}` in the loop body" if exits else "") or _body_problem(loop) or \
            _functional_body_problem(loop) or _shape_change(loop, context)
        if reason:
            return self.refuse(finding, f"{reason}: `ops.WhileLoop` bodies must be pure functions of the carry")
        values = context.values_of(finding)
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
        packed = [build.name(n) for n in carry]

        def unpack():
            target = build.tuple_of(packed, bare=True) if len(carry) > 1 else build.tuple_of(packed)
            return build.line(cst.Assign(targets=[cst.AssignTarget(target=target)], value=build.name("carry")))

        two_blank = [cst.EmptyLine(), cst.EmptyLine()]
        cond_def = build.function(cond_name, ["carry"], [unpack(), build.returns(node.test)], two_blank)
        carry_value = build.tuple_of(packed, bare=len(carry) > 1)
        body_def = build.function(body_name, ["carry"], [unpack()] + list(node.body.body) + [build.returns(carry_value)],
                                  two_blank)
        ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
        initial = build.tuple_of(packed)
        call = build.call(build.call(build.dotted(f"{ops}.WhileLoop")), build.name(cond_name), build.name(body_name),
                          initial)
        target = build.tuple_of(packed, bare=True) if len(carry) > 1 else build.tuple_of(packed)
        statement = build.line(cst.Assign(targets=[cst.AssignTarget(target=target)], value=call),
                               node.leading_lines)
        shown = cst.Module([]).code_for_node(initial)
        return self.edit(finding, [(node, statement)], imports=[ops_import] if ops_import else [],
                         module_prefix=[cond_def, body_def],
                         description=f"`while` -> `ops.WhileLoop()({cond_name}, {body_name}, {shown})`, "
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
