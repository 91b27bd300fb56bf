"""Python loops that graph code unrolls, and Tensor `while` loops whose state changes shape.

Unrolled loops (``for`` over ``range(<constant>)``, a tuple or list of known length, ``enumerate``/``zip``
of those; ``while`` on a Python counter with a computable trip count; a list comprehension over one of
those) are measured against the depth estimate of :mod:`graphlint.catalogue.loops`::

    depth(loop) = n * (2 + t + sum(depth(inner) + 2 for each loop nested in the body))

(``t``: Tensor-dependent ``if`` statements in the loop's own body). Compiling fails at
``depth >= limit - 4`` (996 for the default limit 1000). A loop whose trip count is not known (a
CellList, a tuple argument, ``range(len(...))`` of something unknown) is never reported; a rolled loop
(a ``while`` on a Tensor) or a loop with an unknown trip count is a boundary: loops nested in it are
estimated on their own. Calls to helpers add nothing (measured), so only the lexical body counts.

E5903: a ``while`` whose condition is a Tensor (compiled as a real loop) that reassigns a carried name
with ``ops.concat``/``cat``/``stack``/``tile``/``expand_dims``/``unsqueeze`` of itself.
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.kinds import RANGE, TENSOR
from graphlint.analysis.run_facts import project_limit
from graphlint.analysis.tree import graph_nodes, is_within
from graphlint.catalogue import loops as rules
from graphlint.runner import Checker

MAX_SIMULATED = 1_000_000

_LOOP_NODES = (nodes.For, nodes.While, nodes.ListComp)
_SCOPES = (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)

class LoopsChecker(Checker):
    family = "loops"

    def check_function(self, graph) -> None:
        values = self.context.values(graph)
        if values is None:
            return
        self._values = values
        self._graph = graph
        self._trips: dict[int, int | None] = {}
        self._assumed: dict[int, str] = {}  # loop -> where its trip count comes from, when from __init__ arguments
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.For):
                self._check_range_bound(node)
                self._check_runtime_slice(node)
            if isinstance(node, _LOOP_NODES):
                self._check_unrolled(node)
            if isinstance(node, nodes.While):
                self._check_carry_shape(node)

    # -- unrolled loops -------------------------------------------------------
    def _check_range_bound(self, loop: nodes.For) -> None:
        """``for i in range(n)`` with a Tensor ``n``: range needs Python ints while compiling."""
        call = loop.iter
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name) and call.func.name == "range"
                and "range" not in self._values.cfg.defs_by_name and "range" not in self._graph.info.functions):
            return
        for arg in call.args:
            value = self._values.value(arg)
            if not (value.is_tensor and value.var):
                continue
            if self._values.from_tensor(arg, numeric=True):
                self.report(rules.RANGE_OF_TENSOR, loop, self._graph, anchor=call, arg=arg.as_string())
                return
            assumption = self._values.tensor_assumption(arg)
            if assumption:
                self.report(rules.RANGE_OF_TENSOR, loop, self._graph, anchor=call, arg=arg.as_string(),
                            assumes=assumption)
                return

    def _check_runtime_slice(self, loop: nodes.For) -> None:
        """``for row in y[:n]``: a Tensor computed in the graph, sliced to a run-time length."""
        iterable = loop.iter
        if not (isinstance(iterable, nodes.Subscript) and isinstance(iterable.slice, nodes.Slice)):
            # a name bound to such a slice, here or by the caller that passed it (`accumulate(rows[:n])`)
            if self._values.value(iterable).sliced_to:
                self.report(rules.LOOP_OVER_RUNTIME_SLICE, loop, self._graph, anchor=iterable,
                            iterable=iterable.as_string(), assumes="")
            return
        base = self._values.value(iterable.value)
        if not (base.is_tensor and base.var) or not self._values.computed_in_graph(iterable.value):
            return
        assumption = None
        for bound in (iterable.slice.lower, iterable.slice.upper):
            if bound is None:
                continue
            if self._values.from_tensor(bound, numeric=True):
                assumption = ""
                break
            assumption = assumption or self._values.tensor_assumption(bound) or None
        if assumption is not None:
            self.report(rules.LOOP_OVER_RUNTIME_SLICE, loop, self._graph, anchor=iterable,
                        iterable=iterable.as_string(), assumes=assumption)

    def _check_unrolled(self, loop) -> None:
        count = self._trip_count(loop)
        if count is None:
            return
        if self._enclosing_unrolled(loop) is not None:
            return  # counted in the outer loop's estimate
        depth = self._depth(loop)
        total = self._total_count(loop)
        limit = self._limit()
        kind = _kind(loop)
        anchor = _anchor(loop)
        if depth < limit - api.CALL_DEPTH_MARGIN and total <= self.context.config.unroll_warn:
            return
        # For the loop fixer: a carry that grows is fine unrolled but breaks a real (Tensor `while`) loop.
        payload = rules.UnrolledLoop(tuple((name, op) for _, name, op in self._carry_shape_changes(loop)))
        if depth >= limit - api.CALL_DEPTH_MARGIN:
            self.report(rules.PYTHON_LOOP_EXCEEDS_CALL_DEPTH, loop, self._graph, anchor=anchor, kind=kind,
                        count=total, depth=depth, limit=limit, payload=payload, assumed=self._assumed_text(loop))
        else:
            self.report(rules.PYTHON_LOOP_UNROLLS, loop, self._graph, anchor=anchor, kind=kind, count=total,
                        threshold=self.context.config.unroll_warn, payload=payload,
                        assumed=self._assumed_text(loop))

    def _enclosing_unrolled(self, loop):
        """The nearest enclosing loop of the same function whose trip count is known, if the chain of
        enclosing loops up to it is unrolled too (a rolled or unknown loop is a boundary)."""
        current = loop.parent
        while current is not None and not isinstance(current, _SCOPES):
            if isinstance(current, _LOOP_NODES) and _in_body(loop, current):
                return current if self._trip_count(current) is not None else None
            current = current.parent
        return None

    def _depth(self, loop) -> int:
        n = self._trip_count(loop) or 0
        if isinstance(loop, nodes.ListComp):
            inner = sum(self._depth(i) + 2 for i in _inner_loops(loop) if self._trip_count(i) is not None)
            return n * (2 + inner) + api.COMPREHENSION_EXTRA_DEPTH
        tensor_ifs = sum(1 for stmt in _own_statements(loop) if isinstance(stmt, nodes.If) and self._is_var(stmt.test))
        inner = sum(self._depth(i) + 2 for i in _inner_loops(loop) if self._trip_count(i) is not None)
        return n * (2 + tensor_ifs + inner)

    def _total_count(self, loop) -> int:
        n = self._trip_count(loop) or 0
        inner = [self._total_count(i) for i in _inner_loops(loop) if self._trip_count(i) is not None]
        return n * max(inner, default=1)

    def _is_var(self, expr) -> bool:
        try:
            return self._values.value(expr).var
        except Exception:  # noqa: BLE001 - analysis gaps stay quiet
            return False

    def _trip_count(self, loop) -> int | None:
        key = id(loop)
        if key not in self._trips:
            self._trips[key] = None
            try:
                if isinstance(loop, nodes.For):
                    self._trips[key] = self._iterable_length(loop.iter)
                elif isinstance(loop, nodes.ListComp):
                    if len(loop.generators) == 1 and not loop.generators[0].ifs:
                        self._trips[key] = self._iterable_length(loop.generators[0].iter)
                elif isinstance(loop, nodes.While):
                    self._trips[key] = self._while_trips(loop)
            except Exception:  # noqa: BLE001 - analysis gaps stay quiet
                self._trips[key] = None
        return self._trips[key]

    def _assumed_text(self, loop) -> str:
        return f" (with {self._assumed[id(loop)]})" if id(loop) in self._assumed else ""

    def _iterable_length(self, expr) -> int | None:
        value = self._values.value(expr)
        if value.var:
            return None
        if value.is_(RANGE):
            if value.known and isinstance(value.const, int):
                assumed = self._init_argument_range(expr)
                if assumed is not None:
                    self._assumed[id(expr.parent)] = assumed[1]
                return value.const
            assumed = self._init_argument_range(expr)
            if assumed is not None:
                self._assumed[id(expr.parent)] = assumed[1]
                return assumed[0]
            return None
        if isinstance(expr, (nodes.Tuple, nodes.List)):
            if any(isinstance(e, nodes.Starred) for e in expr.elts):
                return None
            return len(expr.elts)
        if value.items is not None and (value.is_("tuple") or value.is_("list")):
            return len(value.items)
        if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Name) and not expr.keywords \
                and expr.func.name not in self._values.cfg.defs_by_name:
            name = expr.func.name
            if name in ("enumerate", "reversed") and len(expr.args) == 1:
                return self._iterable_length(expr.args[0])
            if name == "zip" and expr.args:
                lengths = [self._iterable_length(a) for a in expr.args]
                if all(length is not None for length in lengths):
                    return min(lengths)
        return None

    def _init_argument_range(self, call) -> tuple[int, str] | None:
        """``range(..., self.attr, ...)`` where ``self.attr`` comes from an ``__init__`` argument: the largest trip
        count over the values the class gets (its default, the literal arguments the project passes), with
        where that value comes from."""
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name) and call.func.name == "range"):
            return None
        values, cls = self._values, self._graph.cls
        if cls is None or values.self_name is None:
            return None
        arguments, sources = [], None
        for arg in call.args:
            if isinstance(arg, nodes.Attribute) and isinstance(arg.expr, nodes.Name) and arg.expr.name == values.self_name:
                alternatives = [(v, why) for v, why in self.context.analysis.attribute_alternatives(cls, arg.attrname)
                                if type(v) is int]
                if not alternatives or sources is not None:
                    return None
                sources = alternatives
                arguments.append(None)
                continue
            value = values.value(arg)
            if not (value.known and type(value.const) is int):
                return None
            arguments.append(value.const)
        if sources is None:
            return None
        best = None
        for number, why in sources:
            try:
                count = len(range(*[number if a is None else a for a in arguments]))
            except (TypeError, ValueError):
                return None
            if best is None or count > best[0]:
                best = (count, why)
        return best

    def _while_trips(self, loop: nodes.While) -> int | None:
        """Trip count of `while i < N` on a Python counter stepped by a constant once per iteration."""
        if loop.orelse or self._is_var(loop.test):
            return None
        test = loop.test
        if not (isinstance(test, nodes.Compare) and len(test.ops) == 1 and isinstance(test.left, nodes.Name)):
            return None
        op, bound_expr = test.ops[0]
        if op not in ("<", "<=", ">", ">=", "!="):
            return None
        name = test.left.name
        bound = self._values.value(bound_expr)
        if not (bound.known and isinstance(bound.const, int) and not isinstance(bound.const, bool)):
            return None
        counter = self._counter(loop, name)
        if counter is None:
            return None
        current, step = counter
        return _simulated_trips(current, step, op, bound.const)

    def _counter(self, loop: nodes.While, name: str) -> tuple[int, int] | None:
        """``(start, step)`` of a counter ``name`` that one top-level statement of the body steps by a constant and
        that starts at one int constant; None otherwise (or when the body may leave early)."""
        cfg = self._values.cfg
        region = cfg.loops.get(id(loop))
        if region is None:
            return None
        if any(isinstance(n, (nodes.Break, nodes.Return, nodes.Raise)) for n in _body_nodes(loop)):
            return None
        # the counter's single update, a top-level statement of the body
        steps = [d for d in cfg.defs_by_name.get(name, ()) if d.element.block.id in region.body_blocks]
        if len(steps) != 1 or steps[0].element.node not in loop.body:
            return None
        step = _step(steps[0], name, self._values)
        if step is None or step == 0:
            return None
        starts = [d for d in cfg.reaching(cfg.element_of(loop.test), name)
                  if d.element.block.id not in region.body_blocks]
        if not starts:
            return None
        start_values = [self._values.def_values.get(d.index) for d in starts]
        if not all(v is not None and v.known and isinstance(v.const, int) and not isinstance(v.const, bool)
                   for v in start_values) or len({v.const for v in start_values}) != 1:
            return None
        return start_values[0].const, step

    def _limit(self) -> int:
        configured = self.context.config.unroll_limit
        if configured:
            return configured
        return project_limit(self.context.analysis)

    # -- Tensor `while` whose carry changes shape -------------------------------
    def _check_carry_shape(self, loop: nodes.While) -> None:
        values = self._values
        try:
            test = values.value(loop.test)
        except Exception:  # noqa: BLE001
            return
        if not (test.var and TENSOR in test.kinds):
            return
        for stmt, name, op in self._carry_shape_changes(loop):
            self.report(rules.TENSOR_WHILE_CARRY_CHANGES_SHAPE, stmt, self._graph, name=name, op=op)

    def _carry_shape_changes(self, loop) -> list:
        """(statement, name, op) for each loop-carried name the body regrows from itself."""
        region = self._values.cfg.loops.get(id(loop))
        if region is None:
            return []
        carried = self._values.cfg.loop_carried(region)
        changes = []
        for stmt in _body_nodes(loop):
            if not isinstance(stmt, nodes.Assign) or len(stmt.targets) != 1:
                continue
            target = stmt.targets[0]
            if not isinstance(target, nodes.AssignName) or target.name not in carried:
                continue
            op = self._shape_change(stmt.value, target.name)
            if op:
                changes.append((stmt, target.name, op))
        return changes

    def _shape_change(self, call, name: str) -> str:
        """The op's text when ``call`` grows ``name`` (concat/stack/tile/expand_dims of itself)."""
        if not isinstance(call, nodes.Call):
            return ""
        func = call.func
        kind = ""
        operand_args = list(call.args)
        if isinstance(func, nodes.Call):  # ops.Concat(0)((y, x))
            kind = api.SHAPE_CHANGING_OPS.get(self._graph.info.imports.qualify(func.func) or "", "")
            text = func.func.as_string()
        else:
            qualified = self._graph.info.imports.qualify(func)
            text = func.as_string()
            if qualified is not None:
                kind = api.SHAPE_CHANGING_OPS.get(qualified, "")
            elif isinstance(func, nodes.Attribute) and func.attrname in api.SHAPE_CHANGING_METHODS:
                kind = api.SHAPE_CHANGING_METHODS[func.attrname]
                operand_args = [func.expr] + operand_args
        if not kind or not operand_args:
            return ""
        first = operand_args[0]
        if kind in ("concat", "stack"):
            if not isinstance(first, (nodes.Tuple, nodes.List)):
                return ""
            if not any(_is_name(e, name) for e in first.elts):
                return ""
            if kind == "concat" and len(first.elts) < 2:
                return ""
            return text
        if not _is_name(first, name):
            return ""
        if kind == "tile":
            multiples = operand_args[1] if len(operand_args) > 1 else None
            if isinstance(multiples, (nodes.Tuple, nodes.List)) and all(
                    isinstance(m, nodes.Const) and m.value == 1 for m in multiples.elts):
                return ""
        return text


def _kind(loop) -> str:
    if isinstance(loop, nodes.For):
        return "`for` loop"
    if isinstance(loop, nodes.While):
        return "`while` loop"
    return "list comprehension"


def _anchor(loop):
    if isinstance(loop, nodes.For):
        return _Span(loop.lineno, loop.col_offset, loop.lineno, loop.col_offset + 3)
    if isinstance(loop, nodes.While):
        return _Span(loop.lineno, loop.col_offset, loop.lineno, loop.col_offset + 5)
    return None


def _in_body(node, loop) -> bool:
    """True when ``node`` is in what ``loop`` repeats (its body / element), not its iterable or else."""
    if isinstance(loop, nodes.ListComp):
        return is_within(node, loop.elt) or any(is_within(node, g) and not is_within(node, g.iter)
                                                for g in loop.generators[1:])
    if isinstance(loop, nodes.While):
        return any(is_within(node, s) for s in loop.body) or is_within(node, loop.test)
    return any(is_within(node, s) for s in loop.body)


def _own_statements(loop):
    """Statements of a loop's body, through `if`/`with` blocks, not into nested loops or functions."""
    stack = list(reversed(loop.body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, _SCOPES + (nodes.For, nodes.While)):
            continue
        for field in ("body", "orelse", "handlers", "finalbody"):
            children = getattr(stmt, field, None)
            if isinstance(children, list):
                stack.extend(reversed(children))


def _simulated_trips(current: int, step: int, op: str, limit: int) -> int | None:
    """How many times `while counter <op> limit: counter += step` runs (None past MAX_SIMULATED)."""
    compare = {"<": lambda a: a < limit, "<=": lambda a: a <= limit, ">": lambda a: a > limit,
               ">=": lambda a: a >= limit, "!=": lambda a: a != limit}[op]
    count = 0
    while compare(current):
        count += 1
        current += step
        if count > MAX_SIMULATED:
            return None
    return count


def _body_nodes(loop):
    """Every node of the loop body, nested functions excluded."""
    stack = list(reversed(loop.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue
        stack.extend(reversed(list(node.get_children())))


def _inner_loops(loop):
    """Loops nested directly in ``loop``'s repeated part (not in deeper loops or nested functions)."""
    roots = [loop.elt] if isinstance(loop, nodes.ListComp) else list(loop.body)
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, _LOOP_NODES):
            yield node
            continue
        stack.extend(reversed(list(node.get_children())))


def _step(definition, name: str, values) -> int | None:
    """The constant a `name += c` / `name -= c` / `name = name +- c` update adds."""
    node = definition.element.node
    if isinstance(node, nodes.AugAssign) and node.op in ("+=", "-="):
        delta = values.value(node.value)
        if delta.known and isinstance(delta.const, int) and not isinstance(delta.const, bool):
            return delta.const if node.op == "+=" else -delta.const
        return None
    if isinstance(node, nodes.Assign) and isinstance(node.value, nodes.BinOp) and node.value.op in ("+", "-"):
        binop = node.value
        if _is_name(binop.left, name):
            delta = values.value(binop.right)
            if delta.known and isinstance(delta.const, int) and not isinstance(delta.const, bool):
                return delta.const if binop.op == "+" else -delta.const
    return None


def _is_name(expr, name: str) -> bool:
    return isinstance(expr, nodes.Name) and expr.name == name


class _Span:
    def __init__(self, lineno, col_offset, end_lineno, end_col_offset):
        self.lineno, self.col_offset, self.end_lineno, self.end_col_offset = lineno, col_offset, end_lineno, end_col_offset


CHECKER = LoopsChecker
