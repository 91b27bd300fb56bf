"""Misuse of ``ops.WhileLoop``, ``ops.ForiLoop`` and ``ops.Scan`` (MindSpore 2.10, see the catalogue).

A functional loop call is ``<primitive>()(...)`` (or a primitive instance stored on ``self`` in
``__init__`` and called in graph code). Its body is a nested function or lambda defined in graph code
(``nested``), a module-level function (``module``) or a method of the Cell (``method``):

* E5401/E5402: a nested body that captures enclosing names or module globals (only literal-constant
  locals, ``self.<Python scalar>`` and other nested functions work; the default unrolled Scan also
  accepts globals); one that writes a Parameter crashes the process (reported instead of E5401);
* E5403: a ForiLoop (either unroll) or unrolled Scan body (module-level or method) that touches a
  Parameter, a sub-Cell with weights, or has a side effect (print, assign); a Parameter in ForiLoop's
  ``init_val``;
* E5404: a body whose returned carry is built by a shape-changing op on the carry (every primitive) or
  by a dtype cast of it (WhileLoop only: ForiLoop and Scan accept dtype changes);
* I5405: ForiLoop/Scan left unrolled on a constant trip count above ``unroll-warn``;
* I5406: ForiLoop/Scan with ``unroll=False`` (the exported MindIR fails to run).
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api, signatures
from graphlint.analysis.kinds import CELL, NONE, SCALARS, STR
from graphlint.analysis.scope import function_reference
from graphlint.analysis.tree import enclosing_reads, graph_nodes, is_within, walk
from graphlint.catalogue import functional_loops as rules
from graphlint.runner import Checker


class FunctionalLoopsChecker(Checker):
    family = "functional_loops"

    def check_function(self, graph) -> None:
        self._graph = graph
        self._values = self.context.values(graph)
        for node in graph_nodes(graph.node):
            if not isinstance(node, nodes.Call):
                continue
            if self._values is not None and isinstance(node.func, nodes.Call) and \
                    graph.info.imports.qualify(node.func.func) in api.MAP_PRIMITIVES:
                self._check_map(node, node.func.func.as_string())
                continue
            if self._values is not None and isinstance(node.func, nodes.Name) and node.func.name == "map" \
                    and "map" not in self._values.cfg.defs_by_name and "map" not in graph.info.module.locals:
                self._check_map(node, "map")  # (graph code compiles Python's `map` into the same Map operator)
                continue
            op = self._primitive(node.func)
            if op is None:
                continue
            try:
                self._check_call(node, op)
            except Exception:  # noqa: BLE001 - analysis gaps stay quiet
                continue

    def _check_map(self, call: nodes.Call, op: str) -> None:
        """``ops.Map()(fn, xs)``, ``map(fn, xs)``: ``fn`` must not read the enclosing function's variables."""
        if not call.args:
            return
        fn = call.args[0]
        if isinstance(fn, nodes.Name):
            fn = next((d.node for d in self._values.cfg.defs_by_name.get(fn.name, ())
                       if isinstance(d.node, (nodes.FunctionDef, nodes.Lambda))), None) or \
                next((d.value for d in self._values.cfg.defs_by_name.get(fn.name, ())
                      if isinstance(d.value, nodes.Lambda)), None)
        if not isinstance(fn, (nodes.Lambda, nodes.FunctionDef)):
            return
        own = {a.name for a in fn.args.args or []} | set(fn.locals)
        enclosing = self._values.cfg.defs_by_name
        free = sorted({n.name for n in walk(fn) if isinstance(n, nodes.Name) and n.name not in own
                       and n.name in enclosing and n.name != self._values.self_name})
        if free:
            self.report(rules.MAP_CLOSURE, call, self._graph, op=op, names=", ".join(f"`{n}`" for n in free))

    # -- recognising the call ----------------------------------------------------
    def _primitive(self, func) -> str | None:
        imports = self._graph.info.imports
        if isinstance(func, nodes.Call):
            return _primitive_name(imports.qualify(func.func))
        cls = self._graph.cls
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and func.expr.name == "self" \
                and cls is not None:
            assignments = self.context.analysis.attribute_assignments(cls).get(func.attrname) or []
            found = {_primitive_name(self.context.project.info(method.root()).imports.qualify(value.func))
                     for value, method in assignments if isinstance(value, nodes.Call)}
            if len(found) == 1 and len(assignments) == len([v for v, _ in assignments if isinstance(v, nodes.Call)]):
                return next(iter(found))
        return None

    def _check_call(self, call: nodes.Call, op: str) -> None:
        args = _bind(call, api.FUNCTIONAL_LOOP_ARGUMENTS[op])
        unroll = args.get("unroll")
        rolled = isinstance(unroll, nodes.Const) and unroll.value is False
        unrolled = unroll is None or (isinstance(unroll, nodes.Const) and bool(unroll.value) is True)
        bodies = [args.get("body")] + ([args.get("cond")] if op == "WhileLoop" else [])
        resolved = [self._resolve_body(call, expr) if expr is not None else None for expr in bodies]
        nested = rules.NestedBodies(tuple(
            rules.NestedBody(body[1], _func_name(expr), tuple(enclosing_reads(body[1])))
            for expr, body in zip(bodies, resolved) if body is not None and body[0] == "nested"))
        reported_nested = False
        for index, (expr, body) in enumerate(zip(bodies, resolved)):
            if body is None:
                continue
            where, func = body
            name = _func_name(expr)
            if where == "nested":
                reported_nested |= self._check_nested(call, op, func, name, unrolled, nested)
            elif index == 0 and (op == "ForiLoop" or (op == "Scan" and unrolled)):
                self._check_fori_scan_body(call, op, func, name, where)
            if index == 0 and not reported_nested:
                self._check_carry(call, op, func, name, args.get("init"))
        if op == "ForiLoop" and args.get("init") is not None:
            self._check_parameter_init(call, op, args)
        if op in ("ForiLoop", "Scan"):
            self._check_unrolling(call, op, args, rolled, unrolled)

    def _check_parameter_init(self, call, op: str, args: dict) -> None:
        """FORI_SCAN_BODY_USES_PARAMETER: a Parameter given as ``init_val``."""
        param = self._parameter_in_init(args["init"])
        if param:
            self.report(rules.FORI_SCAN_BODY_USES_PARAMETER, call, self._graph, op=op,
                        func=_func_name(args.get("body")) if args.get("body") is not None else "loop_func",
                        what=f"Parameter `{param}` (given as `init_val`)")

    def _check_unrolling(self, call, op: str, args: dict, rolled: bool, unrolled: bool) -> None:
        """ROLLED_FUNCTIONAL_LOOP_EXPORT / FUNCTIONAL_LOOP_UNROLLED: a ForiLoop or Scan kept rolled, or unrolled
        past the warning's trip count."""
        if rolled:
            self.report(rules.ROLLED_FUNCTIONAL_LOOP_EXPORT, call, self._graph, op=op)
        elif unrolled:
            count = self._trip_count(op, args)
            if count is not None and count > self.context.config.unroll_warn:
                self.report(rules.FUNCTIONAL_LOOP_UNROLLED, call, self._graph, op=op, count=count)

    def _resolve_body(self, call, expr):
        """("nested" | "module" | "method", FunctionDef or Lambda) for a body argument, or None."""
        if isinstance(expr, nodes.Lambda):
            return "nested", expr
        if isinstance(expr, nodes.Name):
            scope = call.scope()
            while scope is not None and not isinstance(scope, nodes.Module):
                if expr.name in scope.locals:
                    if isinstance(scope, nodes.ClassDef):
                        return None
                    bound = scope.locals[expr.name]
                    if len(bound) != 1:
                        return None
                    target = bound[0]
                    if isinstance(target, nodes.FunctionDef):
                        return "nested", target
                    if isinstance(target, nodes.AssignName) and isinstance(target.parent, nodes.Assign) \
                            and isinstance(target.parent.value, nodes.Lambda):
                        return "nested", target.parent.value
                    return None
                scope = scope.parent.scope() if scope.parent is not None else None
        target = function_reference(self.context.project, self._graph.info, expr, self._graph.cls)
        if target is None:
            return None
        func, owner, _ = target
        if isinstance(expr, nodes.Attribute) and owner is not None:
            return "method", func
        return ("module", func) if owner is None else None

    # -- E5401 / E5402 -------------------------------------------------------------
    def _check_nested(self, call, op, func, name, unrolled, nested) -> bool:
        writes = self._parameter_writes(func)
        if writes:
            self.report(rules.FUNCTIONAL_LOOP_CLOSURE_WRITES_PARAMETER, call, self._graph, op=op, func=name,
                        param=writes[0])
            return True
        captured = self._captures(func, allow_globals=(op == "Scan" and unrolled))
        if captured:
            self.report(rules.FUNCTIONAL_LOOP_BODY_CLOSURE, call, self._graph, op=op, func=name,
                        names=", ".join(f"`{c}`" for c in captured), payload=nested)
            return True
        return False

    def _captures(self, func, allow_globals: bool) -> list[str]:
        found: list[str] = []
        for node in graph_nodes(func):
            if not isinstance(node, nodes.Name):
                continue
            scope, assignments = node.lookup(node.name)
            if scope is None:
                continue
            if is_within(scope, func):
                continue  # bound in the body itself
            if isinstance(scope, nodes.Module):
                if scope is node.root() and not allow_globals:
                    _add(found, node.name)
                elif scope is not node.root() and not allow_globals:
                    _add(found, node.name)  # a builtin
                continue
            if isinstance(scope, nodes.ClassDef):
                continue
            # a name of an enclosing function
            if node.name == "self" and scope is self._graph.node and self._graph.cls is not None:
                attribute = node.parent if isinstance(node.parent, nodes.Attribute) and node.parent.expr is node else None
                if attribute is None:
                    _add(found, "self")
                    continue
                value = self.context.analysis.self_attribute(self._graph.cls, attribute.attrname)
                if value.var or value.is_(CELL):
                    _add(found, f"self.{attribute.attrname}")
                continue
            if assignments and all(_literal_binding(a) or isinstance(a, nodes.FunctionDef) for a in assignments):
                continue
            _add(found, node.name)
        return found

    def _parameter_writes(self, func) -> list[str]:
        """Parameters a body assigns: ops.assign*(p, ...) / P.Assign()(p, ...) / `self.p += ...`."""
        writes: list[str] = []
        imports = self._graph.info.imports
        for node in graph_nodes(func):
            target = None
            if isinstance(node, nodes.Call):
                callee = node.func.func if isinstance(node.func, nodes.Call) else node.func
                qualified = imports.qualify(callee)
                if qualified in api.ASSIGN_OPS and node.args:
                    target = node.args[0]
                elif isinstance(node.func, nodes.Attribute) and node.func.attrname in ("assign_value",):
                    target = node.func.expr
            elif isinstance(node, nodes.AugAssign):
                target = node.target
            if target is None:
                continue
            param = self._parameter_text(target)
            if param:
                _add(writes, param)
        return writes

    def _parameter_text(self, expr) -> str:
        """`self.w` / `w` / `W` when the expression is (an alias of) a Parameter, else ""."""
        cls = self._graph.cls
        if isinstance(expr, (nodes.Attribute, nodes.AssignAttr)) and isinstance(expr.expr, nodes.Name) \
                and expr.expr.name == "self" and cls is not None:
            value = self.context.analysis.self_attribute(cls, expr.attrname)
            if value.var and value.alias.startswith("the Parameter"):
                return f"self.{expr.attrname}"
            return ""
        if isinstance(expr, (nodes.Name, nodes.AssignName)):
            scope, assignments = expr.lookup(expr.name)
            if isinstance(scope, nodes.Module):
                if self._module_parameter(scope, expr.name):
                    return expr.name
                return ""
            for assignment in assignments:
                parent = assignment.parent
                if isinstance(assignment, nodes.AssignName) and isinstance(parent, nodes.Assign) \
                        and parent.value is not expr:
                    text = self._parameter_text(parent.value)
                    if text:
                        return text
        return ""

    def _module_parameter(self, module, name) -> bool:
        info = self.context.project.info(module)
        value = info.assigned.get(name) if info is not None else None
        return isinstance(value, nodes.Call) and info.imports.qualify(value.func) == api.PARAMETER

    # -- E5403 ----------------------------------------------------------------------
    def _check_fori_scan_body(self, call, op, func, name, where) -> None:
        what = self._touches(func, where)
        if what:
            self.report(rules.FORI_SCAN_BODY_USES_PARAMETER, call, self._graph, op=op, func=name, what=what)

    def _touches(self, func, where) -> str:
        project = self.context.project
        info = project.info(func.root())
        cls = self._class_of(func) if where == "method" else None
        for node in graph_nodes(func):
            if isinstance(node, nodes.Call):
                callee = node.func.func if isinstance(node.func, nodes.Call) else node.func
                if isinstance(callee, nodes.Name) and callee.name == "print" and callee.lookup("print")[0] is not None \
                        and not isinstance(callee.lookup("print")[0], nodes.FunctionDef) \
                        and "print" not in info.module.locals:
                    return "print()"
                qualified = info.imports.qualify(callee)
                if qualified in api.PRINT_OPS:
                    return f"{callee.as_string()}()"
                if qualified in api.ASSIGN_OPS:
                    return f"{callee.as_string()}()"
            if isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and node.expr.name == "self" \
                    and cls is not None:
                value = self.context.analysis.self_attribute(cls, node.attrname)
                if value.var and value.alias.startswith("the Parameter"):
                    return f"Parameter `self.{node.attrname}`"
                if value.is_(CELL) and self._weighted_cell(cls, node.attrname):
                    return f"sub-Cell `self.{node.attrname}`"
            if isinstance(node, nodes.Name):
                scope, _ = node.lookup(node.name)
                if isinstance(scope, nodes.Module) and scope is info.module and self._module_parameter(scope, node.name):
                    return f"Parameter `{node.name}`"
        return ""

    def _class_of(self, func):
        current = func.parent
        while current is not None and not isinstance(current, nodes.ClassDef):
            current = current.parent
        return current

    def _weighted_cell(self, cls, attribute) -> bool:
        project = self.context.project
        for value, method in self.context.analysis.attribute_assignments(cls).get(attribute) or []:
            if not isinstance(value, nodes.Call):
                return False
            qualified = project.info(method.root()).imports.qualify(value.func) or ""
            if not (qualified.startswith("mindspore.nn.") and qualified.rsplit(".", 1)[-1] in api.WEIGHTED_CELLS):
                return False
        return True

    def _parameter_in_init(self, init) -> str:
        candidates = init.elts if isinstance(init, (nodes.Tuple, nodes.List)) else [init]
        for element in candidates:
            if isinstance(element, nodes.Attribute):
                text = self._parameter_text(element)
                if text:
                    return text
        return ""

    # -- E5404 ----------------------------------------------------------------------------
    def _check_carry(self, call, op, func, name, init) -> None:
        params = _param_names(func)
        if op == "WhileLoop":
            carry_params = params[:1]
        elif op == "ForiLoop":
            carry_params = params[1:2]
        else:
            carry_params = params[:1]
        if not carry_params:
            return
        carry = set(carry_params) | _unpacked(func, carry_params[0])
        for returned in _returns(func):
            if op == "Scan":
                if not (isinstance(returned, nodes.Tuple) and returned.elts):
                    continue
                returned = returned.elts[0]
            parts = returned.elts if isinstance(returned, nodes.Tuple) else [returned]
            for part in parts:
                change = self._carry_change(part, carry, op, init)
                if change:
                    self.report(rules.FUNCTIONAL_LOOP_CARRY_CHANGES_TYPE, call, self._graph, op=op, func=name,
                                change=change)
                    return

    def _carry_change(self, expr, carry: set, op: str, init) -> str:
        """"shape" or "dtype" when the call ``expr`` changes a carried value's shape (or, in a WhileLoop body, its
        dtype), else ""."""
        if not isinstance(expr, nodes.Call):
            return ""
        info = self.context.project.info(expr.root())
        func = expr.func
        callee = func.func if isinstance(func, nodes.Call) else func
        qualified = info.imports.qualify(callee) or ""
        operands = list(expr.args)
        if isinstance(func, nodes.Attribute) and not qualified:
            operands = [func.expr] + operands
        if qualified in api.SHAPE_CHANGING_OPS or (not qualified and isinstance(func, nodes.Attribute)
                                                   and func.attrname in api.SHAPE_CHANGING_METHODS):
            shortname = (qualified.rsplit(".", 1)[-1] if qualified else func.attrname).lower()
            return _shape_change(shortname, operands, carry)
        if op != "WhileLoop":
            return ""
        return _dtype_change(expr, qualified, operands, carry, init)

    # -- I5405 ----------------------------------------------------------------------------
    def _trip_count(self, op, args) -> int | None:
        values = self._values
        if values is None:
            return None
        if op == "ForiLoop":
            lower, upper = args.get("lower"), args.get("upper")
            if lower is None or upper is None:
                return None
            low, high = values.value(lower), values.value(upper)
            if _int(low) is None or _int(high) is None:
                return None
            return max(0, high.const - low.const)
        length = args.get("length")
        if length is not None and not (isinstance(length, nodes.Const) and length.value is None):
            return _int(values.value(length))
        xs = args.get("xs")
        if xs is None:
            return None
        if isinstance(xs, (nodes.Tuple, nodes.List)) and not any(isinstance(e, nodes.Starred) for e in xs.elts):
            return len(xs.elts)
        value = values.value(xs)
        return len(value.items) if value.items is not None else None


def _shape_change(shortname: str, operands: list, carry: set) -> str:
    """"shape" when a shape-changing op or method (``shortname``) grows a carried value, else ""."""
    if not operands:
        return ""
    first = operands[0]
    if shortname in ("concat", "cat", "concatenate", "stack"):
        if isinstance(first, (nodes.Tuple, nodes.List)) and any(_is_carry(e, carry) for e in first.elts) \
                and (shortname == "stack" or len(first.elts) >= 2):
            return "shape"
        return ""
    if not _is_carry(first, carry):
        return ""
    if shortname == "tile":
        multiples = operands[1] if len(operands) > 1 else None
        if isinstance(multiples, (nodes.Tuple, nodes.List)) and all(
                isinstance(m, nodes.Const) and m.value == 1 for m in multiples.elts):
            return ""
    return "shape"


def _dtype_change(expr: nodes.Call, qualified: str, operands: list, carry: set, init) -> str:
    """"dtype" when the call casts a carried value to another dtype than its initial value's, else ""."""
    func = expr.func
    subject = dtype = None
    if qualified in api.CAST_OPS and len(operands) >= 2:
        subject, dtype = operands[0], operands[1]
    elif not qualified and isinstance(func, nodes.Attribute) and func.attrname in api.CAST_METHODS and expr.args:
        subject, dtype = func.expr, expr.args[0]
    if subject is None or dtype is None:
        return ""
    if any(isinstance(n, nodes.Attribute) and n.attrname == "dtype" for n in walk(dtype)):
        return ""  # `.astype(y.dtype)` keeps it
    if not any(isinstance(n, nodes.Name) and n.name in carry for n in walk(subject)):
        return ""
    if init is not None and _casts_to(init, dtype.as_string()):
        return ""
    if init is not None and isinstance(init, (nodes.Tuple, nodes.List)):
        return ""  # which element of a tuple carry: not followed
    return "dtype"


def _int(value):
    if value.known and isinstance(value.const, int) and not isinstance(value.const, bool) and not value.var:
        return value.const
    return None


def _primitive_name(qualified: str | None) -> str | None:
    if not qualified or not qualified.startswith("mindspore."):
        return None
    name = qualified.rsplit(".", 1)[-1]
    return name if name in api.FUNCTIONAL_LOOP_PRIMITIVES else None


def _bind(call: nodes.Call, spec: dict) -> dict:
    bound = {}
    for key, (position, keyword) in spec.items():
        if position < len(call.args) and not any(isinstance(a, nodes.Starred) for a in call.args[:position + 1]):
            bound[key] = call.args[position]
        for kw in call.keywords or ():
            if kw.arg == keyword:
                bound[key] = kw.value
    return bound


def _func_name(expr) -> str:
    if isinstance(expr, nodes.Lambda):
        return "lambda"
    return expr.as_string()


def _literal_binding(assignment) -> bool:
    """`k = 2.0` in the enclosing function: a literal constant (the only capture that compiles)."""
    parent = assignment.parent
    return isinstance(assignment, nodes.AssignName) and isinstance(parent, nodes.Assign) \
        and isinstance(parent.value, nodes.Const) and (parent.value.value is None or type(parent.value.value).__name__
                                                        in SCALARS | {STR, NONE})


def _add(found: list, name: str) -> None:
    if name not in found:
        found.append(name)


def _param_names(func) -> list[str]:
    """The parameters a loop body receives its carry in (``self``/``cls`` of a method excluded)."""
    names = [a.name for a in signatures.positional_parameters(func)]
    cls = func.parent if isinstance(func, nodes.FunctionDef) and isinstance(func.parent, nodes.ClassDef) else None
    return names[1:] if cls is not None and signatures.implicit_first(func, cls) else names


def _unpacked(func, name: str) -> set[str]:
    """Names unpacked from the carry parameter: `i, y = c`, `y = c[1]`."""
    found = set()
    for node in graph_nodes(func):
        if isinstance(node, nodes.Assign) and len(node.targets) == 1:
            value, target = node.value, node.targets[0]
            source = value.value if isinstance(value, nodes.Subscript) else value
            if isinstance(source, nodes.Name) and source.name == name:
                for assigned in target.nodes_of_class(nodes.AssignName):
                    found.add(assigned.name)
    return found


def _returns(func):
    if isinstance(func, nodes.Lambda):
        yield func.body
        return
    stack = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
            continue
        if isinstance(node, nodes.Return) and node.value is not None:
            yield node.value
        stack.extend(node.get_children())


def _is_carry(expr, carry: set) -> bool:
    if isinstance(expr, nodes.Name):
        return expr.name in carry
    if isinstance(expr, nodes.Subscript) and isinstance(expr.value, nodes.Name) and expr.value.name in carry \
            and isinstance(expr.slice, nodes.Const):
        return True  # `c[1]`: an element of a tuple carry
    return False


def _casts_to(init, dtype_text: str) -> bool:
    """`init_val` is itself cast to the same dtype (`x.astype(ms.float16)`)."""
    if not isinstance(init, nodes.Call):
        return False
    func = init.func
    if isinstance(func, nodes.Attribute) and func.attrname in api.CAST_METHODS and init.args:
        return init.args[0].as_string() == dtype_text
    if len(init.args) >= 2:
        return init.args[1].as_string() == dtype_text
    return False


CHECKER = FunctionalLoopsChecker
