"""Data flow through `if`, `while`, `for` and conditional expressions in graph code.

Two different moments decide what MindSpore accepts (see the catalogue):

* the PARSER needs a name read after an `if` to be defined in every branch that falls through, and a name read
  after a loop to be defined before it; it folds only the conditions :mod:`graphlint.analysis.parser_fold`
  describes (E5801, E5802);
* TYPE INFERENCE evaluates every condition that does not depend on Tensor values; only a run-time condition
  joins the values of two branches, which must then agree as :mod:`graphlint.analysis.joins` tells
  (E5803, W5804, W5805, I5806).
"""

from __future__ import annotations

from astroid import nodes
from astroid.const import Context

from graphlint.analysis import api
from graphlint.analysis.joins import (NONE_AND_TENSOR, TUPLE_LENGTHS, TYPE_MISMATCH, condition_operands_mismatch,
                                      in_condition, mismatch, resized_unevenly)
from graphlint.analysis.parser_fold import NO
from graphlint.catalogue import branches as rules
from graphlint.runner import Checker

# The rule that reports each kind of join that type inference rejects.
_JOIN_RULES = {NONE_AND_TENSOR: rules.BRANCH_JOINS_NONE_AND_TENSOR, TYPE_MISMATCH: rules.BRANCH_TYPE_MISMATCH,
               TUPLE_LENGTHS: rules.BRANCH_JOINS_TUPLES_OF_DIFFERENT_LENGTH}


class BranchesChecker(Checker):
    family = "branches"

    def check_function(self, graph) -> None:
        values = self.context.values(graph)
        if values is None:
            return
        self.graph, self.values, self.cfg = graph, values, values.cfg
        self.shapes = values.shapes
        # Per-function memos: a long `if/elif` chain joins the same definitions and returns at every level.
        self._return_shapes: dict[object, object] = {}
        self._reachable_returns: dict[int, int] | None = None
        self._shape_masks: dict[object, int] | None = None  # return shape -> bit set of the returns with it
        self._own_nodes: list | None = None  # see _walk
        for region in self.cfg.ifs.values():
            self._one_branch_definitions(region)
        for loop in self.cfg.loops.values():
            self._loop_definitions(loop)
        self._joins()
        self._lengths_decided_at_run_time()
        self._tensor_conditions()

    # ------------------------------------------------------------------------------------------
    # E5808: a list resized on one branch of a Tensor `if`, then given to a call that needs its length
    def _lengths_decided_at_run_time(self) -> None:
        # a resizing definition inside such an `if` or loop -> (where, in words)
        uneven: dict[int, str] = {}
        for region in self.cfg.ifs.values():
            names = resized_unevenly(region.node)
            if not names:
                continue
            origin = self.values.tensor_origin(region.node.test)
            if origin is None:
                continue
            self._resizing_within(region.node, names, uneven,
                                  f"on only one branch of the `if` at line {region.node.lineno}, which depends on "
                                  f"{origin}")
        in_loops: set[int] = set()  # (of those, made in a loop compiled as a loop)
        for loop in self.cfg.loops.values():
            steps = self.values.steps_decided_at_run_time(loop.node)
            if steps:
                before = set(uneven)
                self._resizing_within(loop.node, None, uneven, f"in the loop at line {loop.node.lineno}, whose "
                                                               f"number of steps {steps}")
                in_loops.update(set(uneven) - before)
        if not uneven:
            return
        for definition in self.cfg.definitions:
            # an element other than a Tensor or a scalar: the append itself fails ("DynamicSequence does not
            # support dictionary type as element type", "ListAppend ... target must be scalar or tensor")
            kind = _appended_container(self.values, definition.value) \
                if definition.index in uneven and definition.kind == "mutate" else ""
            if kind:
                self.report(rules.LIST_LENGTH_DECIDED_AT_RUN_TIME, definition.value, self.graph, name=definition.name,
                            where=uneven[definition.index], op=f"{definition.value.func.as_string()}(...)` of a "
                                                               f"`{kind}")
        for node in self._walk():
            used = self._length_user(node)
            if used is None:
                continue
            name, op, element, after_loops_only = used
            for definition in self.cfg.reaching(element, name):
                if definition.index in uneven and (definition.index in in_loops or not after_loops_only):
                    self.report(rules.LIST_LENGTH_DECIDED_AT_RUN_TIME, node, self.graph, name=name,
                                where=uneven[definition.index], op=op)
                    break

    def _length_user(self, node):
        """(the list's name, the operation, its CFG element, only for a list a loop made) where ``node`` needs the
        length of a list while compiling: `ops.stack(xs)`/`ops.cat(xs)`; an item read `xs[k]`, which fails after a
        loop compiled as a loop ("cannot get item by index from an empty sequence"; after an `if` it compiles)."""
        if isinstance(node, nodes.Call) and node.args and isinstance(node.args[0], nodes.Name):
            if self.values.imports.qualify(node.func) not in api.STATIC_LENGTH_SEQUENCE_OPS:
                return None
            element = self.cfg.element_of(node)
            return None if element is None else (node.args[0].name, node.func.as_string(), element, False)
        if isinstance(node, nodes.Subscript) and isinstance(node.value, nodes.Name) and node.ctx == Context.Load \
                and isinstance(node.slice, nodes.Const) and isinstance(node.slice.value, int):
            element = self.cfg.element_of(node)
            return None if element is None else (node.value.name, node.as_string(), element, True)
        return None

    def _resizing_within(self, statement, names, uneven: dict, where: str) -> None:
        """Record the `append`/`pop`/... definitions made inside ``statement`` (of ``names``; None: any)."""
        for definition in self.cfg.definitions:
            if definition.kind == "mutate" and (names is None or definition.name in names) \
                    and definition.value.parent is not None and _within(definition.value, statement):
                uneven.setdefault(definition.index, where)

    # ------------------------------------------------------------------------------------------
    # E5801: one-branch definitions (decided by the parser)
    def _one_branch_definitions(self, region) -> None:
        exits = [(label, block) for label, block in (("true", region.then_exit), ("false", region.else_exit))
                 if block is not None]
        if len(exits) < 2:
            return
        live = self.cfg.live_in(region.join)
        if not live:
            return
        status = None
        if_line = region.node.lineno
        walrus_bound = {n.target.name for n in region.node.test.nodes_of_class(nodes.NamedExpr)}
        for name in sorted(self._may_differ(region, live)):
            if name not in self.cfg.defs_by_name or name in walrus_bound:
                continue  # (bound by a walrus in the test: both branches see it; walrus-in-graph reports it)
            if all(self._counts(region, label, self._first_reaching(block, name), if_line) for label, block in exits):
                continue  # quick: defined on both sides, seen without listing every definition
            present = {}
            for label, block in exits:
                present[label] = [d for d in self.cfg.reaching_at_block_end(block, name)
                                  if self._counts(region, label, d, if_line)]
            if all(present.values()) or not any(present.values()):
                continue
            if not self._read_before_loop_end(region, name):
                continue  # read only after an enclosing loop: the loop's error (E5802) is the one raised
            if status is None:
                status = self.values.parser_fold.status(region.node.test)[0]
            if status != NO:
                return
            label = "true" if present["true"] else "false"
            # where the branch first assigns it (a later assignment in the branch replaces that one)
            made_in_branch = [d for d in self.cfg.defs_by_name.get(name, ()) if d.kind != "del"
                              and region.in_branch(d.element.block, label)] or present[label]
            definition = min(made_in_branch, key=lambda d: (_line(d.node), d.index))
            anchor = definition.element.node if definition.element.kind == "stmt" else definition.node
            self.report(rules.VARIABLE_DEFINED_IN_ONE_BRANCH, anchor, self.graph, name=name, branch=label,
                        condition=_one_line(region.node.test.as_string()),
                        payload=rules.MissingDefinition(region.node))

    def _may_differ(self, region, names) -> set[str]:
        """Those of ``names`` whose definitions may count on one side of ``region`` only (both exits
        fall through).

        Any other name has the same definitions reaching both exits, none made inside the
        branches, so both sides agree. Narrowing first keeps a function with N sequential `if`s
        and N live names from checking every name at every `if`."""
        then_bits = self.cfg.reaching_bits_at_block_end(region.then_exit)
        else_bits = self.cfg.reaching_bits_at_block_end(region.else_exit)
        inside = self.cfg.definition_bits_within(region.inner_elements)
        return self.cfg.names_in((then_bits ^ else_bits) | inside, among=names)

    @staticmethod
    def _counts(region, label, definition, if_line) -> bool:
        """Whether ``definition``, reaching the end of branch ``label``, defines the name for the parser there:
        it is made in that branch or above the `if`."""
        return definition is not None and definition.kind != "del" and (
            region.in_branch(definition.element.block, label) or _line(definition.node) < if_line)

    def _first_reaching(self, block, name):
        """The definition of ``name`` with the lowest index among those reaching the end of ``block``, or None."""
        bits = self.cfg.reaching_bits_at_block_end(block, name)
        return self.cfg.definitions[(bits & -bits).bit_length() - 1] if bits else None

    def _read_before_loop_end(self, region, name) -> bool:
        """Whether ``name`` is read after the `if` before the end of the innermost loop around it."""
        block_id = region.test.block.id
        loops = [loop for loop in self.cfg.loops.values() if block_id in loop.body_blocks]
        if not loops:
            return True
        innermost = min(loops, key=lambda loop: len(loop.body_blocks))
        stack, seen = [region.join], {region.join.id}
        while stack:
            block = stack.pop()
            stopped = False
            for element in block.elements:
                if any(use.name == name for use in self.cfg.element_uses.get(element.index, ())):
                    return True
                if any(d.name == name and not d.updates for d in self.cfg.element_defs.get(element.index, ())):
                    stopped = True
                    break
            if stopped:
                continue
            for succ, _ in block.succ:
                if succ is innermost.header or succ.id in seen or succ.id not in innermost.body_blocks:
                    continue
                seen.add(succ.id)
                stack.append(succ)
        return False

    # ------------------------------------------------------------------------------------------
    # E5802: names first assigned in a loop body, read after the loop
    def _loop_definitions(self, loop) -> None:
        live = self.cfg.live_in(loop.after)
        if not live:
            return
        modified = self.cfg.loop_modified(loop)
        entry_blocks = [pred for pred, _ in loop.header.pred if pred.id not in loop.body_blocks]
        keyword = "for" if isinstance(loop.node, nodes.For) else "while"
        # Loops around this one: a definition after this loop in their body reaches it only in later steps
        # (through their back edge); the first step, which graph mode compiles too, still has no value.
        enclosing = [other for other in self.cfg.loops.values()
                     if other is not loop and loop.header.id in other.body_blocks]
        for name in sorted(live & modified):
            before = [d for block in entry_blocks for d in self.cfg.reaching_at_block_end(block, name)
                      if d.element.block.id not in loop.body_blocks and d.kind != "del"
                      and not any(d.element.block.id in other.body_blocks and _line(d.node) > loop.node.lineno
                                  for other in enclosing)]
            if before:
                continue
            inside = [d for d in self.cfg.defs_by_name.get(name, ()) if d.element.block.id in loop.body_blocks]
            if not inside:
                continue
            first = min(inside, key=lambda d: (_line(d.node), d.index))
            if first.kind == "for" and first.element.node is loop.node:
                anchor = _Span(loop.node.lineno, loop.node.col_offset, loop.node.lineno,
                               loop.node.col_offset + len(keyword))
            elif first.element.kind == "stmt":
                anchor = first.element.node
            else:
                anchor = first.node
            self.report(rules.VARIABLE_DEFINED_IN_LOOP, first.node, self.graph, anchor=anchor, name=name,
                        loop=keyword, payload=rules.MissingDefinition(loop.node))

    # ------------------------------------------------------------------------------------------
    # E5803 / W5804 / W5805: joins under run-time conditions
    def _joins(self) -> None:
        for region in self.cfg.ifs.values():
            self._if_join(region)
        for node in self._walk():
            if isinstance(node, nodes.BoolOp):
                self._boolop_join(node)
            if isinstance(node, nodes.IfExp):
                self._ifexp_join(node)
        for loop in self.cfg.loops.values():
            if isinstance(loop.node, nodes.While) or self.values.steps_decided_at_run_time(loop.node):
                self._while_join(loop)

    def _if_join(self, region) -> None:
        """The names a Tensor `if` (or `elif`) joins, read after it, and what its branches return."""
        origin = self.values.tensor_origin(region.node.test)
        if origin is None:
            return
        anchor = _keyword(region.node, "if" if not _is_elif(region.node) else "elif")
        if region.then_exit is not None and region.else_exit is not None:
            differing = self.cfg.names_in(self.cfg.reaching_bits_at_block_end(region.then_exit)
                                          ^ self.cfg.reaching_bits_at_block_end(region.else_exit),
                                          among=self.cfg.live_in(region.join))
            for name in sorted(differing):  # the others have the same definitions on both sides
                then_bits = self.cfg.reaching_bits_at_block_end(region.then_exit, name)
                else_bits = self.cfg.reaching_bits_at_block_end(region.else_exit, name)
                if not then_bits or not else_bits or then_bits == else_bits:
                    continue  # undefined on a side, or the same definitions: nothing joins
                a = self.shapes.definitions_shape(self.cfg.reaching_at_block_end(region.then_exit, name))
                b = self.shapes.definitions_shape(self.cfg.reaching_at_block_end(region.else_exit, name))
                self._report_join(a, b, f"`{name}`", origin, region.node, anchor, returned=False)
        self._return_join(region, origin, anchor)

    def _ifexp_join(self, node: nodes.IfExp) -> None:
        """`a if c else b`, `c` a Tensor condition: a branch joining `a` and `b`."""
        origin = self.values.tensor_origin(node.test)
        if origin is None:
            return
        a, b = self.shapes.expr_shape(node.body), self.shapes.expr_shape(node.orelse)
        parent = node.parent
        name = "the conditional expression"
        if isinstance(parent, nodes.Assign) and len(parent.targets) == 1 and \
                isinstance(parent.targets[0], nodes.AssignName):
            name = f"`{parent.targets[0].name}`"
        elif isinstance(parent, nodes.Return):
            name = "the return value"
        self._report_join(a, b, name, origin, node, node, returned=isinstance(parent, nodes.Return))

    def _while_join(self, loop) -> None:
        """A Tensor `while`, or a `for` over `range()` of a run-time number (compiled as a loop, not unrolled),
        joins each name it changes (and reads at its test) with its value before the loop."""
        if isinstance(loop.node, nodes.While):
            origin = self.values.tensor_origin(loop.node.test)
            keyword = "while"
        else:
            origin, keyword = f"`{loop.node.iter.as_string()}`, a bound only the run knows", "for"
        if origin is None:
            return
        self._loop_return_join(loop, origin, keyword)
        entry_blocks = [pred for pred, _ in loop.header.pred if pred.id not in loop.body_blocks]
        back_blocks = [pred for pred, _ in loop.header.pred if pred.id in loop.body_blocks]
        live = self.cfg.live_in(loop.header)
        for name in sorted(self.cfg.loop_modified(loop) & live):
            before = [d for block in entry_blocks for d in self.cfg.reaching_at_block_end(block, name)]
            inside = [d for block in back_blocks for d in self.cfg.reaching_at_block_end(block, name)
                      if d.element.block.id in loop.body_blocks]
            if not before or not inside:
                continue
            entry = self.shapes.definitions_shape(before)
            carried = self.shapes.definitions_shape(inside)
            if carried == ("tensor", None) and len(inside) == 1:
                # computed from itself (`y = y - 0.5`): what the first step makes of the entry value
                carried = self.shapes.carried_shape(inside[0], name, entry)
            self._report_join(entry, carried, f"`{name}`", origin, loop.node, _keyword(loop.node, keyword),
                              returned=False)

    def _boolop_join(self, node: nodes.BoolOp) -> None:
        """`c and v` / `c or v`, `c` a run-time condition: a branch joining its operands (as a value, or in the
        test of an `if` / `while`, where the analysis tells which operands join)."""
        if in_condition(node):
            kinds = condition_operands_mismatch(self.values, node)
            origin = self.values.tensor_origin(node)
            if kinds is not None and origin is not None:
                self.report(rules.BOOLOP_JOINS_DIFFERENT_KINDS, node, self.graph, op=node.op, kinds=kinds,
                            origin=origin)
            return
        if isinstance(node.parent, (nodes.BoolOp, nodes.UnaryOp, nodes.Assert)):
            return  # an operand of another condition, or an assertion's: not measured
        origin = self.values.tensor_origin(node.values[0])
        if origin is None:
            return
        shapes = [self.shapes.expr_shape(v) for v in node.values]
        first = shapes[0]
        for other in shapes[1:]:
            verdict = mismatch(first, other, returned=False)
            if verdict is None and first is not None and other is not None and first[0] == other[0] == "tensor" \
                    and first[1] == "bool_" and other[1] != "bool_":
                verdict = (TYPE_MISMATCH, "a bool Tensor and a Tensor of values")
            if verdict is not None:
                self.report(rules.BOOLOP_JOINS_DIFFERENT_KINDS, node, self.graph, op=node.op, kinds=verdict[1] or
                            "operands of different kinds", origin=origin)
                return

    def _loop_return_join(self, loop, origin, keyword: str) -> None:
        """A `return` inside a Tensor `while` joins with what the function returns after the loop."""
        inside = [r for r in self.cfg.returns if r.block.id in loop.body_blocks]
        if not inside:
            return
        after = self._returns_from(loop.after)
        anchor = _keyword(loop.node, keyword)
        for a in _distinct(self._return_shape(r) for r in inside):
            for b in _distinct(self._return_shape(r) for r in after):
                if self._report_join(a, b, "the return value", origin, loop.node, anchor, returned=True):
                    return

    def _return_join(self, region, origin, anchor) -> None:
        reachable = self._returns_reachable()
        then_bits, else_bits = reachable[region.then_entry.id], reachable[region.else_entry.id]
        if not (self._may_conflict(then_bits & ~else_bits, else_bits)
                or self._may_conflict(else_bits & ~then_bits, then_bits)):
            return  # no return reached from one branch only conflicts with one from the other
        then_returns = self._returns_from(region.then_entry)
        else_returns = self._returns_from(region.else_entry)
        then_set, else_set = set(then_returns), set(else_returns)
        then_only = [r for r in then_returns if r not in else_set]
        else_only = [r for r in else_returns if r not in then_set]
        # Each side is disjoint from the returns it is compared with, and only the shapes decide a
        # finding: comparing the distinct shapes in first-seen order reports what every pair would.
        for a_side, b_side in ((then_only, else_returns), (else_only, then_returns)):
            b_shapes = _distinct(self._return_shape(rb) for rb in b_side)
            for a in _distinct(self._return_shape(ra) for ra in a_side):
                for b in b_shapes:
                    if self._report_join(a, b, "the return value", origin, region.node, anchor, returned=True):
                        return

    def _may_conflict(self, side_bits: int, other_bits: int) -> bool:
        """Whether some return in ``side_bits`` has a shape that cannot join with some return in
        ``other_bits`` (bit sets as in ``_returns_reachable``), compared shape by shape."""
        if not side_bits:
            return False
        if self._shape_masks is None:
            self._shape_masks = {}
            for position, ret in enumerate(["implicit"] + self.cfg.returns):
                shape = self._return_shape(ret)
                self._shape_masks[shape] = self._shape_masks.get(shape, 0) | 1 << position
        side = [shape for shape, mask in self._shape_masks.items() if mask & side_bits]
        other = [shape for shape, mask in self._shape_masks.items() if mask & other_bits]
        return any(mismatch(a, b, returned=True) is not None for a in side for b in other)

    def _returns_reachable(self) -> dict[int, int]:
        """Block id -> the returns reachable from it, as a bit set (bit 0: falling off the end,
        bit i + 1: ``cfg.returns[i]``): the set ``_returns_from`` lists, for every block at once."""
        if self._reachable_returns is not None:
            return self._reachable_returns
        cfg = self.cfg
        own = {block.id: 0 for block in cfg.blocks}
        for position, element in enumerate(cfg.returns):
            own[element.block.id] |= 1 << (position + 1)
        for block in cfg.blocks:
            if any(succ is cfg.exit and label == "fallthrough" for succ, label in block.succ):
                own[block.id] |= 1
        reachable = dict(own)
        changed = True
        while changed:  # a backward sweep in reverse of cfg.order settles all but loops in one pass
            changed = False
            for block in reversed(cfg.order):
                bits = own[block.id]
                for succ, _ in block.succ:
                    if succ is not cfg.exit:
                        bits |= reachable[succ.id]
                if bits != reachable[block.id]:
                    reachable[block.id] = bits
                    changed = True
        self._reachable_returns = reachable
        return reachable

    def _returns_from(self, block) -> list:
        """Return statements reachable from ``block`` (the string "implicit" for falling off the end)."""
        found, seen, stack = [], {block.id}, [block]
        returns = {id(e.block): e for e in self.cfg.returns}
        while stack:
            current = stack.pop()
            element = returns.get(id(current))
            if element is not None and element.block is current:
                found.append(element)
            for succ, label in current.succ:
                if succ is self.cfg.exit:
                    if label == "fallthrough":
                        found.append("implicit")
                    continue
                if succ.id not in seen:
                    seen.add(succ.id)
                    stack.append(succ)
        return found

    def _return_shape(self, ret):
        if ret == "implicit":
            return ("none",)
        value = ret.node.value
        if value is None:
            return ("none",)
        if ret not in self._return_shapes:
            self._return_shapes[ret] = self.shapes.expr_shape(value)
        return self._return_shapes[ret]

    def _report_join(self, a, b, name, origin, node, anchor, returned) -> bool:
        verdict = mismatch(a, b, returned)
        if verdict is None:
            return False
        kind, kinds = verdict
        rule = _JOIN_RULES[kind]
        if name.startswith("the "):
            name = name[0].upper() + name[1:]
        fields = {"name": name, "origin": origin}
        if rule is rules.BRANCH_TYPE_MISMATCH:
            fields["kinds"] = kinds
        self.report(rule, node, self.graph, anchor=anchor, **fields)
        return True

    # ------------------------------------------------------------------------------------------
    # I5806: run-time conditions
    def _tensor_conditions(self) -> None:
        for node in self._walk():
            if isinstance(node, (nodes.If, nodes.While, nodes.IfExp)):
                if self.cfg.element_of(node.test) is None:
                    continue
                origin = self.values.tensor_origin(node.test)
                if origin is None:
                    continue
                select = "for a small branch `ops.where(cond, a, b)` is usually much faster"
                if isinstance(node, nodes.If):
                    keyword = "elif" if _is_elif(node) else "if"
                    kind, anchor, hint = f"`{keyword}`", _keyword(node, keyword), select
                elif isinstance(node, nodes.While):
                    kind, anchor = "`while`", _keyword(node, "while")
                    hint = "fine for a data-dependent loop as long as what it carries keeps its shape"
                else:
                    kind, anchor, hint = "conditional expression", node, select
                # (a trace keys its records on Python scalar arguments: a bare parameter no call describes may be one)
                assumes = self.values.tensor_assumption(node.test) if self.graph.capture.profile == "trace" else ""
                self.report(rules.TENSOR_CONDITION_CONTROL_FLOW, node, self.graph, anchor=anchor, kind=kind,
                            origin=origin, hint=hint, assumes=assumes)

    def _walk(self) -> list:
        """Nodes of the function itself (nested functions and lambdas have their own values); made once per
        function (three checks walk them)."""
        if self._own_nodes is None:
            found = []
            stack = list(reversed(self.graph.node.body))
            while stack:
                node = stack.pop()
                found.append(node)
                if isinstance(node, (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)):
                    continue
                stack.extend(reversed(list(node.get_children())))
            self._own_nodes = found
        return self._own_nodes


def _within(node, ancestor) -> bool:
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False


def _distinct(items) -> list:
    """``items`` without repeats, in first-seen order."""
    return list(dict.fromkeys(items))


def _line(node) -> int:
    return getattr(node, "lineno", None) or 0


def _is_elif(node: nodes.If) -> bool:
    parent = node.parent
    return isinstance(parent, nodes.If) and parent.orelse == [node] and node.lineno != parent.lineno and \
        getattr(parent, "has_elif_block", lambda: False)()


def _keyword(node, keyword):
    return _Span(node.lineno, node.col_offset, node.lineno, node.col_offset + len(keyword))


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."


class _Span:
    def __init__(self, lineno, col_offset, end_lineno, end_col_offset):
        self.lineno, self.col_offset = lineno, col_offset
        self.end_lineno, self.end_col_offset = end_lineno, end_col_offset


CHECKER = BranchesChecker


def _appended_container(values, call) -> str:
    """"dict", "tuple" or "list" where ``call`` (`xs.append(v)`, `xs.insert(i, v)`) adds such a Python container
    (a graph list whose length the run decides holds only Tensors and scalars); "" otherwise."""
    if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute)
            and call.func.attrname in ("append", "insert") and call.args):
        return ""
    added = values.value(call.args[-1])
    containers = [kind for kind in ("dict", "tuple", "list") if added.is_(kind)]
    return containers[0] if containers else ""
