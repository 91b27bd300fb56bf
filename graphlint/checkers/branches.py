"""Data flow through `if`, `while`, `for` and conditional expressions in graph code.

Two different moments decide what MindSpore accepts (see the catalogue):

* the PARSER needs a name read after an `if` to be defined in every branch that
  falls through, and a name read after a loop to be defined before it. It folds
  only a narrow set of conditions (``Parser::CheckConstantCondition``): a bool
  ``self.flag``, ``self.attr is None``, ``self.attr == <literal>``, ``self.n >
  <number>``, ``G.attr`` of a module-level object, a local bound to a literal,
  ``not``/``and``/``or`` of those. Everything else keeps both branches, even a
  condition that is constant for type inference (``mask is None``, shapes ...).
  (E5801, E5802)
* TYPE INFERENCE evaluates every condition that does not depend on Tensor
  values; only a run-time condition (``Value.var``) joins the values of two
  branches, which must then agree in kind and dtype. (E5803, W5804, W5805, I5806)
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis.tree import nodes_of_class
from graphlint.analysis.engine import Checker
from graphlint.analysis.values import (BOOL, FLOAT, INT, LIST, NONE, STR, TENSOR, TUPLE, UNKNOWN, Value)

_FOLD, _NO, _MAYBE = "fold", "no", "maybe"
_NOTHING = object()
_SCALAR_KINDS = {INT, FLOAT, BOOL, STR}
_ARTICLE = {INT: "an int", FLOAT: "a float", BOOL: "a bool", STR: "a str", TUPLE: "a tuple", LIST: "a list",
            NONE: "None", TENSOR: "a Tensor"}
_DTYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
           "uint64", "bool_", "bfloat16", "complex64", "complex128"}
_DTYPE_ALIASES = {"float_": "float32", "half": "float16", "single": "float32", "double": "float64",
                  "int_": "int64", "long": "int64", "short": "int16", "bool": "bool_"}
# Ops whose result has the dtype of their first Tensor argument.
_SAME_DTYPE_OPS = {"zeros_like", "ones_like", "full_like", "relu", "sigmoid", "tanh", "abs", "neg", "exp", "log",
                   "sqrt", "square", "softmax", "transpose", "reshape", "squeeze", "expand_dims", "flatten",
                   "clip_by_value", "clamp", "clip", "stop_gradient", "identity", "flip", "tile", "broadcast_to"}
_SAME_DTYPE_METHODS = {"reshape", "transpose", "squeeze", "expand_dims", "view", "flatten", "copy", "clone",
                       "abs", "exp", "log", "sqrt", "clip", "clamp", "permute", "swapaxes", "tile", "broadcast_to"}


class BranchesChecker(Checker):
    family = "branches"

    def check_function(self, graph) -> None:
        values = self.context.values(graph)
        if values is None:
            return
        self.graph, self.values, self.cfg = graph, values, values.cfg
        self.self_name = values.self_name
        self._assigned_attrs = _attributes_assigned(graph.node, self.self_name)
        # Per-function memos: a long `if/elif` chain joins the same definitions and returns at every level.
        self._def_shapes: dict[int, object] = {}
        self._return_shapes: dict[object, object] = {}
        self._reachable_returns: dict[int, int] | None = None
        self._shape_masks: dict[object, int] | None = None  # return shape -> bit set of the returns with it
        for region in self.cfg.ifs.values():
            self._one_branch_definitions(region)
        for loop in self.cfg.loops.values():
            self._loop_definitions(loop)
        self._joins()
        self._tensor_conditions()

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
        for name in sorted(self._may_differ(region, live)):
            if name not in self.cfg.defs_by_name:
                continue
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
                status = self._parser_fold(region.node.test)[0]
            if status != _NO:
                return
            label = "true" if present["true"] else "false"
            definition = min(present[label], key=lambda d: (_line(d.node), d.index))
            anchor = definition.element.node if definition.element.kind == "stmt" else definition.node
            self.report("variable-defined-in-one-branch", anchor, self.graph, name=name, branch=label,
                        condition=_one_line(region.node.test.as_string()),
                        data={"if": region.node, "name": name})

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
                if any(d.name == name and d.kind != "augassign" for d in self.cfg.element_defs.get(element.index, ())):
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

    def _parser_fold(self, test) -> tuple[str, object]:
        """Whether MindSpore's parser folds ``test`` (and to what, when known)."""
        if isinstance(test, nodes.Const):
            return _MAYBE, _NOTHING
        if isinstance(test, nodes.UnaryOp) and test.op == "not":
            status, value = self._parser_fold(test.operand)
            return status, (not value) if value is not _NOTHING else _NOTHING
        if isinstance(test, nodes.BoolOp):
            maybe = unsure_value = False
            value = _NOTHING
            for operand in test.values:
                status, value = self._parser_fold(operand)
                if status == _NO:
                    return (_MAYBE if maybe or unsure_value else _NO), _NOTHING
                if status == _MAYBE:
                    maybe = True
                    continue
                if value is _NOTHING:
                    unsure_value = True
                    continue
                if (test.op == "and" and not value) or (test.op == "or" and value):
                    return (_MAYBE if maybe or unsure_value else _FOLD), value
            return (_MAYBE if maybe else _FOLD), (_NOTHING if unsure_value else value)
        if isinstance(test, nodes.Compare):
            if len(test.ops) != 1:
                return _NO, _NOTHING
            left_status, left = self._fold_operand(test.left)
            if left_status == _NO:
                return _NO, _NOTHING
            op, right = test.ops[0]
            if op in ("is", "is not"):
                if isinstance(right, nodes.Const) and right.value is None:
                    return (_FOLD if left_status == _FOLD else _MAYBE), _NOTHING
                return _NO, _NOTHING
            if op in ("==", "!="):
                if isinstance(right, nodes.Const) and (right.value is None or isinstance(right.value, (int, float, str))):
                    pass
                elif self._fold_operand(right)[0] != _NO and not isinstance(right, nodes.Name):
                    pass
                else:
                    return _NO, _NOTHING
                if left_status == _MAYBE or left is None:
                    return _MAYBE, _NOTHING
                if left.may_be(TENSOR):
                    return _NO, _NOTHING
                if left.kinds and left.kinds <= _SCALAR_KINDS | {NONE}:
                    return _FOLD, _NOTHING
                return _MAYBE, _NOTHING
            if op in ("<", "<=", ">", ">="):
                if isinstance(right, nodes.UnaryOp) and isinstance(right.operand, nodes.Const):
                    return _MAYBE, _NOTHING
                if not (isinstance(right, nodes.Const) and isinstance(right.value, (int, float))
                        and not isinstance(right.value, bool)):
                    return _NO, _NOTHING
                if left_status == _MAYBE or left is None:
                    return _MAYBE, _NOTHING
                if left.kinds and left.kinds <= {INT, FLOAT}:
                    return _FOLD, _NOTHING
                if UNKNOWN in left.kinds or not left.kinds:
                    return _MAYBE, _NOTHING
                return _NO, _NOTHING
            return _NO, _NOTHING
        if isinstance(test, (nodes.Attribute, nodes.Name)):
            status, value = self._fold_operand(test)
            if status != _FOLD:
                return status, _NOTHING
            if value is None:  # self.training
                return _FOLD, _NOTHING
            if value.is_(BOOL):
                return _FOLD, value.const if value.known else _NOTHING
            if UNKNOWN in value.kinds or not value.kinds or BOOL in value.kinds:
                return _MAYBE, _NOTHING
            return _NO, _NOTHING
        return _NO, _NOTHING

    def _fold_operand(self, expr) -> tuple[str, Value | None]:
        """An operand the parser can read while parsing: ``self.X``, ``G.X``, a local bound to a literal."""
        if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name):
            base = expr.expr.name
            if self.self_name is not None and base == self.self_name and self.graph.cls is not None:
                if expr.attrname in self._assigned_attrs:
                    return _NO, None
                if expr.attrname == "training":
                    return _FOLD, None
                value = self.context.analysis.self_attribute(self.graph.cls, expr.attrname)
                if UNKNOWN in value.kinds or not value.kinds:
                    return _MAYBE, value
                return _FOLD, value
            if base in self.cfg.defs_by_name:
                return _NO, None
            return _MAYBE, None  # a global object's attribute: its value is not known here
        if isinstance(expr, nodes.Name):
            definitions = [d for d in self.cfg.defs_by_name.get(expr.name, ())]
            if not definitions:
                return _NO, None  # a bare global name is never folded (measured)
            element = self.cfg.element_of(expr)
            reaching = self.cfg.reaching(element, expr.name) if element is not None else []
            if reaching and all(d.kind == "assign" and isinstance(d.value, nodes.Const) for d in reaching):
                return _FOLD, self.values.def_values.get(reaching[0].index)
            return _NO, None
        return _NO, None

    # ------------------------------------------------------------------------------------------
    # E5802: names first assigned in a loop body, read after the loop
    def _loop_definitions(self, loop) -> None:
        live = self.cfg.live_in(loop.after)
        if not live:
            return
        modified = self.cfg.loop_modified(loop)
        entry_blocks = [pred for pred, _ in loop.header.pred if pred.id not in loop.body_blocks]
        keyword = "for" if isinstance(loop.node, nodes.For) else "while"
        for name in sorted(live & modified):
            before = [d for block in entry_blocks for d in self.cfg.reaching_at_block_end(block, name)
                      if d.element.block.id not in loop.body_blocks and d.kind != "del"]
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
            self.report("variable-defined-in-loop", first.node, self.graph, anchor=anchor, name=name,
                        loop=keyword, data={"loop": loop.node, "name": name})

    # ------------------------------------------------------------------------------------------
    # E5803 / W5804 / W5805: joins under run-time conditions
    def _joins(self) -> None:
        for region in self.cfg.ifs.values():
            origin = self._runtime(region.node.test)
            if origin is None:
                continue
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
                    a = self._defs_shape(self.cfg.reaching_at_block_end(region.then_exit, name))
                    b = self._defs_shape(self.cfg.reaching_at_block_end(region.else_exit, name))
                    self._report_join(a, b, f"`{name}`", origin, region.node, anchor, returned=False)
            self._return_join(region, origin, anchor)
        for node in self._walk():
            if isinstance(node, nodes.IfExp):
                origin = self._runtime(node.test)
                if origin is None:
                    continue
                a, b = self._expr_shape(node.body), self._expr_shape(node.orelse)
                parent = node.parent
                name = "the conditional expression"
                if isinstance(parent, nodes.Assign) and len(parent.targets) == 1 and \
                        isinstance(parent.targets[0], nodes.AssignName):
                    name = f"`{parent.targets[0].name}`"
                elif isinstance(parent, nodes.Return):
                    name = "the return value"
                self._report_join(a, b, name, origin, node, node, returned=isinstance(parent, nodes.Return))
        for loop in self.cfg.loops.values():
            if not isinstance(loop.node, nodes.While):
                continue
            origin = self._runtime(loop.node.test)
            if origin is None:
                continue
            entry_blocks = [pred for pred, _ in loop.header.pred if pred.id not in loop.body_blocks]
            back_blocks = [pred for pred, _ in loop.header.pred if pred.id in loop.body_blocks]
            live = self.cfg.live_in(loop.header)
            for name in sorted(self.cfg.loop_modified(loop) & live):
                before = [d for block in entry_blocks for d in self.cfg.reaching_at_block_end(block, name)]
                inside = [d for block in back_blocks for d in self.cfg.reaching_at_block_end(block, name)
                          if d.element.block.id in loop.body_blocks]
                if not before or not inside:
                    continue
                self._report_join(self._defs_shape(before), self._defs_shape(inside), f"`{name}`", origin,
                                  loop.node, _keyword(loop.node, "while"), returned=False)

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
        return any(_compare(a, b, returned=True) is not None for a in side for b in other)

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
            self._return_shapes[ret] = self._expr_shape(value)
        return self._return_shapes[ret]

    def _report_join(self, a, b, name, origin, node, anchor, returned) -> bool:
        verdict = _compare(a, b, returned)
        if verdict is None:
            return False
        symbol, kinds = verdict
        if name.startswith("the "):
            name = name[0].upper() + name[1:]
        fields = {"name": name, "origin": origin}
        if symbol == "branch-type-mismatch":
            fields["kinds"] = kinds
        self.report(symbol, node, self.graph, anchor=anchor, **fields)
        return True

    # -- shapes of values: ("tensor", dtype) / ("none",) / ("scalar", kind) / ("tuple"|"list", items|None)
    def _defs_shape(self, definitions):
        shapes = {self._def_shape(d) for d in definitions}
        if len(shapes) == 1:
            return shapes.pop()
        kinds = {s[0] for s in shapes if s is not None}
        if None in shapes or len(kinds) != 1:
            return None
        kind = kinds.pop()
        if kind == "tensor":
            return ("tensor", None)
        return None

    def _def_shape(self, definition):
        if definition.index not in self._def_shapes:
            self._def_shapes[definition.index] = self._def_shape_uncached(definition)
        return self._def_shapes[definition.index]

    def _def_shape_uncached(self, definition):
        if definition.kind in ("assign", "walrus") and definition.value is not None and \
                not isinstance(definition.element.node, nodes.For):
            return self._expr_shape(definition.value)
        return _value_shape(self.values.def_values.get(definition.index))

    def _expr_shape(self, expr, depth=0):
        value = self.values.value(expr)
        if isinstance(expr, (nodes.Tuple, nodes.List)) and not any(isinstance(e, nodes.Starred) for e in expr.elts):
            kind = "tuple" if isinstance(expr, nodes.Tuple) else "list"
            return (kind, tuple(self._expr_shape(e, depth + 1) for e in expr.elts))
        shape = _value_shape(value)
        if shape is not None and shape[0] == "tensor":
            return ("tensor", self._dtype(expr, 0))
        return shape

    # -- dtypes: a concrete name ("int32"), ("of", root) for "the dtype of argument root", or None
    def _dtype(self, expr, depth):
        if depth > 8 or expr is None:
            return None
        imports = self.graph.info.imports
        if isinstance(expr, nodes.Name):
            element = self.cfg.element_of(expr)
            if element is None:
                return None
            defs = self.cfg.reaching(element, expr.name)
            if len(defs) != 1:
                return None
            d = defs[0]
            if d.kind == "param":
                value = self.values.def_values.get(d.index)
                return ("of", expr.name) if value is not None and value.is_tensor else None
            if d.kind == "assign" and d.value is not None:
                return self._dtype(d.value, depth + 1)
            return None
        if isinstance(expr, nodes.Call):
            func = expr.func
            qualified = imports.qualify(func) if not (isinstance(func, nodes.Name) and func.name in self.cfg.defs_by_name) else None
            if isinstance(func, nodes.Call):
                primitive = imports.qualify(func.func)
                if primitive == "mindspore.ops.Cast" and len(expr.args) >= 2:
                    return self._dtype_constant(expr.args[1], expr.args[0], depth)
                return None
            if qualified in ("mindspore.ops.cast",) and len(expr.args) >= 2:
                return self._dtype_constant(expr.args[1], expr.args[0], depth)
            if qualified and qualified.startswith("mindspore.ops.") and qualified.rsplit(".", 1)[-1] in _SAME_DTYPE_OPS \
                    and expr.args:
                return self._dtype(expr.args[0], depth + 1)
            if isinstance(func, nodes.Attribute) and qualified is None:
                owner = self.values.value(func.expr)
                if owner.is_tensor:
                    if func.attrname in ("astype", "to") and expr.args:
                        return self._dtype_constant(expr.args[0], func.expr, depth)
                    if func.attrname in _SAME_DTYPE_METHODS:
                        return self._dtype(func.expr, depth + 1)
                    if func.attrname in ("float",):
                        return "float32"
                    if func.attrname in ("int",):
                        return "int32"
                    if func.attrname in ("bool",):
                        return "bool_"
            return None
        if isinstance(expr, nodes.Compare):
            value = self.values.value(expr)
            if value.is_tensor and all(op in ("<", "<=", ">", ">=", "==", "!=") for op, _ in expr.ops):
                return "bool_"
            return None
        if isinstance(expr, nodes.BinOp):
            return self._binop_dtype(expr.left, expr.right, depth, expr.op)
        if isinstance(expr, nodes.Subscript):
            if self.values.value(expr.value).is_tensor:
                return self._dtype(expr.value, depth + 1)
            return None
        if isinstance(expr, nodes.UnaryOp) and expr.op == "-":
            return self._dtype(expr.operand, depth + 1)
        return None

    def _binop_dtype(self, left, right, depth, op="*"):
        if op == "/":
            return None  # int Tensors divide to float
        if left is None or right is None:
            return None
        lv, rv = self.values.value(left), self.values.value(right)
        if lv.is_tensor and rv.is_tensor:
            a, b = self._dtype(left, depth + 1), self._dtype(right, depth + 1)
            return a if a == b else None
        tensor_side, other = (left, rv) if lv.is_tensor else (right, lv) if rv.is_tensor else (None, None)
        if tensor_side is None:
            return None
        if other.is_(INT) or other.is_(BOOL):
            return self._dtype(tensor_side, depth + 1)
        return None

    def _dtype_constant(self, dtype_expr, source, depth):
        qualified = self.graph.info.imports.qualify(dtype_expr)
        if not qualified or not qualified.startswith("mindspore."):
            return None
        name = qualified.rsplit(".", 1)[-1]
        name = _DTYPE_ALIASES.get(name, name)
        if name not in _DTYPES:
            return None
        return ("cast", name, self._dtype(source, depth + 1))

    # ------------------------------------------------------------------------------------------
    # I5806: run-time conditions
    def _tensor_conditions(self) -> None:
        for node in self._walk():
            if isinstance(node, (nodes.If, nodes.While, nodes.IfExp)):
                if self.cfg.element_of(node.test) is None:
                    continue
                origin = self._runtime(node.test)
                if origin is None:
                    continue
                select = "for a small branch `ops.select(cond, a, b)` is usually much faster"
                if isinstance(node, nodes.If):
                    keyword = "elif" if _is_elif(node) else "if"
                    kind, anchor, hint = f"`{keyword}`", _keyword(node, keyword), select
                elif isinstance(node, nodes.While):
                    kind, anchor = "`while`", _keyword(node, "while")
                    hint = "fine for a data-dependent loop as long as what it carries keeps its shape"
                else:
                    kind, anchor, hint = "conditional expression", node, select
                self.report("tensor-condition-control-flow", node, self.graph, anchor=anchor, kind=kind,
                            origin=origin, hint=hint)

    def _runtime(self, test) -> str | None:
        """What makes ``test`` a run-time value (its origin), or None.

        The condition must be a runtime value, and its runtime-ness must come from something
        known to be a Tensor: following the runtime parts of the condition down to their leaves
        must reach a definite Tensor (``x`` in ``x.sum() > 0``, a Parameter, ``ops.rand(())``).
        Values that are runtime only because their kind is unknown (a sub-Cell's output) or
        maybe-None (``if not return_dict`` on an argument defaulting to None) stay quiet."""
        if not self.values.value(test).var:
            return None
        return self._grounded(test, 0)

    def _grounded(self, expr, depth) -> str | None:
        value = self.values.value(expr)
        if not value.var or depth > 30:
            return None
        children = [c for c in expr.get_children()
                    if not isinstance(c, (nodes.Lambda, nodes.ListComp, nodes.GeneratorExp, nodes.DictComp,
                                          nodes.SetComp, nodes.Keyword)) and self.values.value(c).var]
        children += [k.value for k in getattr(expr, "keywords", None) or () if self.values.value(k.value).var]
        if not children:
            return (value.origin or "a Tensor value") if value.is_tensor else None
        for child in children:
            found = self._grounded(child, depth + 1)
            if found is not None:
                return found
        return None

    def _walk(self):
        """Nodes of the function itself (nested functions and lambdas have their own values)."""
        stack = list(reversed(self.graph.node.body))
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)):
                continue
            stack.extend(reversed(list(node.get_children())))


def _value_shape(value: Value | None):
    if value is None or len(value.kinds) != 1:
        return None
    kind = next(iter(value.kinds))
    if kind == TENSOR:
        return ("tensor", None)
    if kind == NONE:
        return ("none",)
    if kind in _SCALAR_KINDS:
        return ("scalar", kind)
    if kind in (TUPLE, LIST):
        items = None
        if value.items is not None:
            items = tuple(_value_shape(item) for item in value.items)
        return (kind, items)
    return None


def _compare(a, b, returned):
    """(symbol, kinds text) when shapes ``a`` and ``b`` cannot join, else None."""
    if a is None or b is None:
        return None
    ka, kb = a[0], b[0]
    if {ka, kb} == {"tensor", "none"}:
        return ("branch-joins-none-and-tensor", "")
    if ka == "tensor" and kb == "tensor":
        text = _dtype_mismatch(a[1], b[1])
        return ("branch-type-mismatch", text) if text else None
    if ka in ("tuple", "list") and kb in ("tuple", "list"):
        if ka != kb:
            return ("branch-type-mismatch", f"{_ARTICLE[ka]} and {_ARTICLE[kb]}")
        if a[1] is None or b[1] is None:
            return None
        if len(a[1]) != len(b[1]):
            if ka == "tuple" and all(s is not None and s[0] == "tensor" for s in a[1] + b[1]):
                return ("branch-joins-tuples-of-different-length", "")
            return None
        for x, y in zip(a[1], b[1]):
            inner = _compare(x, y, returned)
            if inner is not None:
                symbol, text = inner
                if symbol == "branch-type-mismatch":
                    text = f"{_ARTICLE[ka]} holding {text}"
                return symbol, text
        return None
    if "none" in (ka, kb):
        return None
    if ka == "tensor" or kb == "tensor":
        other = b if ka == "tensor" else a
        return ("branch-type-mismatch", f"a Tensor and {_shape_text(other)}")
    if ka == "scalar" and kb == "scalar":
        if a[1] != b[1] and returned and STR not in (a[1], b[1]):
            return ("branch-type-mismatch", f"{_ARTICLE[a[1]]} and {_ARTICLE[b[1]]}")
        return None
    if {ka, kb} & {"tuple", "list"} and {ka, kb} & {"scalar"}:
        return ("branch-type-mismatch", f"{_shape_text(a)} and {_shape_text(b)}")
    return None


def _shape_text(shape) -> str:
    if shape[0] == "scalar":
        return _ARTICLE[shape[1]]
    return _ARTICLE.get(shape[0], shape[0])


def _dtype_mismatch(a, b) -> str | None:
    def concrete(d):
        if isinstance(d, str):
            return d
        if isinstance(d, tuple) and d[0] == "cast":
            return d[1]
        return None

    ca, cb = concrete(a), concrete(b)
    if ca and cb:
        return f"a {_dtype_text(ca)} Tensor and a {_dtype_text(cb)} Tensor" if ca != cb else None
    # `ops.cast(x, int32)` against `x * 2`: the cast exists because x has another dtype.
    for cast, other in ((a, b), (b, a)):
        if isinstance(cast, tuple) and cast[0] == "cast" and isinstance(other, tuple) and other[0] == "of" \
                and cast[2] == other:
            return f"a Tensor with the dtype of `{other[1]}` and the same Tensor cast to {_dtype_text(cast[1])}"
    return None


def _dtype_text(name: str) -> str:
    return "bool" if name == "bool_" else name


def _attributes_assigned(func, self_name) -> set[str]:
    found = set()
    if self_name is None:
        return found
    for node in nodes_of_class(func, nodes.AssignAttr):
        if isinstance(node.expr, nodes.Name) and node.expr.name == self_name:
            found.add(node.attrname)
    return found


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
