"""Silent divergence: Python in graph code that runs once, at compile time.

The graph compiler evaluates calls into ``random`` / ``numpy.random``, the
clock, the environment and ``logging`` while it compiles, and reads module
globals and plain ``self`` attributes as constants: their values are frozen
into the graph and their side effects happen once. Calls whose arguments are
runtime values are left to the JIT fallback rules (the interpreter runs them
on every call), and MindSpore's own random ops and ``print`` are graph
operators that run on every call.

Host-side changes (W5204 mutable globals, W5208 attributes changed between
calls) are looked up in code outside graph scope: functions and methods that
rebind or mutate the global / attribute. Module-level statements, and functions
only module-level code calls, run at import time, before any call, and do not
count; nor do ``__init__``, the methods it runs, and set-up methods by name
(``_init_*``, ``setup*``, ``build*``, ...), nor ``set_train``.

Attribute writes in graph code (W5209) are reported when the attribute is
known not to be a Parameter: every value it gets outside graph code is a
Python value, a container or a plain Tensor (an ``__init__`` argument counts
when its default or annotation is a Python number or string), or it is never
set outside graph code and every base class is known (the project's, or
``nn.Cell``), so nothing else can have created it. Methods of helper objects
that graph code calls (``self.counter.step(x)``) are compiled too and are
checked the same way, reported at the call.
"""

from __future__ import annotations

from astroid import nodes
from astroid.const import Context

from graphlint.analysis import api, callables, capture, random_draws, ranks, signatures
from graphlint.analysis.boundary import is_top_level
from graphlint.analysis.kinds import CELL, CLASS, DICT, FUNCTION, LIST, MODULE, OBJECT, TENSOR, TUPLE, UNKNOWN
from graphlint.analysis.objects import held_classes, made_in_function, object_classes
from graphlint.analysis.run_facts import data_global, first_write, host_changes, project_module
from graphlint.analysis.tree import graph_nodes, literal, name_lookup, nodes_of_class, reads_after, targets_of
from graphlint.analysis.values import annotated_python_kind
from graphlint.catalogue import divergence as rules
from graphlint.runner import Checker


class DivergenceChecker(Checker):
    family = "divergence"

    def check_function(self, graph) -> None:
        values = self.context.values(graph)
        self_name = signatures.instance_name(graph.node, graph.cls)
        read_attrs: set[str] = set()
        read_globals: set[str] = set()
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.Call):
                self._call(graph, values, node, self_name)
            elif isinstance(node, nodes.Subscript):
                self._subscript(graph, node)
            elif isinstance(node, nodes.Compare):
                self._membership(graph, node)
            elif isinstance(node, nodes.Global):
                self._global_statement(graph, node)
            elif isinstance(node, (nodes.Assign, nodes.AugAssign, nodes.AnnAssign)):
                self._writes(graph, node, self_name)
                self._held_object_writes(graph, values, node, self_name)
            if isinstance(node, nodes.Name):
                self._global_read(graph, values, node, read_globals)
            elif isinstance(node, nodes.Attribute):
                if self_name is not None and isinstance(node.expr, nodes.Name) and node.expr.name == self_name:
                    self._attribute_read(graph, node, read_attrs)
                else:
                    self._module_attribute_read(graph, values, node, read_globals)
        self._random_draws_repeated(graph, values)
        self._reads_after_helper_writes(graph, self_name)
        self._state_carried_across_calls(graph, values, self_name)
        self._state_on_object_made_in_graph(graph, values)
        self._argument_containers_mutated(graph, values, self_name)

    # -- attributes a helper writes ------------------------------------------------------------------
    def _reads_after_helper_writes(self, graph, self_name) -> None:
        """ATTRIBUTE_READ_AFTER_HELPER_WRITE: ``self.m(...)`` assigns plain ``self.a``; a later read of
        ``self.a`` in this function (which does not assign it itself) sees the compile-time value."""
        if self_name is None or graph.cls is None:
            return
        project = self.context.project
        written_here = {attr for node in graph_nodes(graph.node) if isinstance(node, (nodes.Assign, nodes.AugAssign))
                        for target in (node.targets if isinstance(node, nodes.Assign) else [node.target])
                        for _, attr in _self_writes(target, self_name)}
        written_by: dict[str, nodes.Call] = {}  # attr -> the first helper call that writes it
        reported: set[str] = set()
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) \
                    and isinstance(node.func.expr, nodes.Name) and node.func.expr.name == self_name:
                self._helper_reads_after_helper_writes(graph, node, written_by, reported)
                for attr in _attributes_written_by(project, graph, node.func.attrname):
                    if attr not in written_here and self._not_parameter(graph.cls, attr):
                        written_by.setdefault(attr, node)
            elif isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) \
                    and node.expr.name == self_name and node.attrname in written_by \
                    and node.attrname not in reported \
                    and not (isinstance(node.parent, nodes.Call) and node.parent.func is node):
                call = written_by[node.attrname]
                if node.lineno > call.end_lineno and not _within(node, [call]):
                    reported.add(node.attrname)
                    self.report(rules.ATTRIBUTE_READ_AFTER_HELPER_WRITE, node, graph, attr=node.attrname,
                                call=_call_text(call), line=str(call.lineno))

    def _helper_reads_after_helper_writes(self, graph, call: nodes.Call, written_by: dict, reported: set) -> None:
        """A later helper that reads what an earlier one wrote reads the compile-time value too (or finds no
        attribute, where ``__init__`` made none)."""
        for attr, read in _attribute_reads_first_by(self.context.project, graph, call.func.attrname):
            if attr in written_by and attr not in reported and written_by[attr] is not call:
                reported.add(attr)
                writer = written_by[attr]
                # (at the read, the line to change, in the helper's terms when it is graph code of its own)
                helper_graph = self.context.analysis.graph_of(read.frame()) or graph
                self.report(rules.ATTRIBUTE_READ_AFTER_HELPER_WRITE, read, helper_graph, attr=attr,
                            call=_call_text(writer), line=str(writer.lineno))

    # -- state a method keeps on its object ------------------------------------------------------------
    def _state_carried_across_calls(self, graph, values, self_name) -> None:
        """STATE_CARRIED_ACROSS_CALLS: ``layer.step(x)`` in a loop (or twice), where ``step`` (or a method it
        calls on the objects it holds) reads an attribute before it assigns it."""
        if values is None:
            return
        project = self.context.project
        calls: dict = {}  # (class, method) -> the calls of it in this function
        for call in graph_nodes(graph.node):
            if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute)):
                continue
            for cls in self._receiver_classes(graph, values, call.func.expr, self_name):
                found = project.find_method(cls, call.func.attrname)
                if found is not None and found[0] is not graph.node:
                    calls.setdefault((id(found[1]), call.func.attrname), (found[1], []))[1].append(call)
        for (_key, method_name), (cls, made) in calls.items():
            repeated = [call for call in made if _in_unrolled_loop(call, graph.node, values)
                        or _in_loop(call, graph.node)]
            call = repeated[0] if repeated else made[1] if len(made) > 1 else None
            if call is None:
                continue
            for method, attr, read in _carried_state(project, cls, method_name, 0, set()):
                if self._not_parameter(method.parent.frame(), attr):
                    self.report(rules.STATE_CARRIED_ACROSS_CALLS, read, graph, attr=attr,
                                method=f"{method.parent.frame().name}.{method.name}", call=_call_text(call),
                                line=str(call.lineno), times="in a loop" if repeated else "twice")

    def _state_on_object_made_in_graph(self, graph, values) -> None:
        """STATE_ON_OBJECT_MADE_IN_GRAPH: ``params.offset += n`` (or ``params.cache[k] = v``) in a loop, on a plain
        object this function made, whose attribute the loop also reads."""
        if values is None:
            return
        reported = set()
        for write, receiver, attr in _attribute_state_writes(graph.node):
            loop = _enclosing_loop(write, graph.node)
            if loop is None or (receiver.name, attr) in reported or not _reads_attribute(loop, receiver.name, attr):
                continue
            cls = made_in_function(self.context.project, graph.info, receiver)
            if cls is None:
                continue
            reported.add((receiver.name, attr))
            self.report(rules.STATE_ON_OBJECT_MADE_IN_GRAPH, write, graph, target=f"{receiver.name}.{attr}",
                        cls=cls.name, line=str(loop.lineno))

    # -- containers a callee changes for its caller -----------------------------------------------------
    def _argument_containers_mutated(self, graph, values, self_name) -> None:
        """ARGUMENT_CONTAINER_MUTATED: ``f(x, state)`` / ``self.attn(x, state)`` where the callee changes the
        list or dict ``state`` in place and this function reads ``state`` after the call. LIST_POPPED_BY_CALLEES:
        the only reads after it hand the list to callees that pop from it again (lax happens to match there)."""
        if values is None:
            return
        for call in graph_nodes(graph.node):
            if not isinstance(call, nodes.Call) or not any(
                    isinstance(a, nodes.Name) and a.name != self_name and _holds_container(values.value(a))
                    for a in list(call.args) + [k.value for k in call.keywords or ()]):
                continue  # (no list or dict passed: nothing a callee could change for this code)
            for function, owner in self._callees(graph, call, self_name):
                if self._report_mutated_argument(graph, values, self_name, call, function, owner):
                    break

    def _report_mutated_argument(self, graph, values, self_name, call, function, owner) -> bool:
        for parameter, changes in _mutated_parameters(function).items():
            passed = signatures.argument_for(function, owner, call, parameter)
            if not isinstance(passed, nodes.Name) or passed.name == self_name:
                continue
            if not _holds_container(values.value(passed)):
                continue
            reads = reads_after(graph.node, call, passed.name)
            if not reads:
                continue
            popped_again = changes == {"pop"} and all(
                self._popped_by_callee(graph, read, self_name) for read in reads)
            rule = rules.LIST_POPPED_BY_CALLEES if popped_again else rules.ARGUMENT_CONTAINER_MUTATED
            self.report(rule, call, graph, name=passed.name, callee=_call_text(call), parameter=parameter)
            return True
        return False

    def _popped_by_callee(self, graph, read: nodes.Name, self_name) -> bool:
        """``read`` is an argument of a call whose every callee only pops from the parameter it binds."""
        call = read.parent
        if not isinstance(call, nodes.Call) or read not in call.args:
            return False
        callees = self._callees(graph, call, self_name)
        return bool(callees) and all(
            _mutated_parameters(function).get(_bound_parameter(function, owner, call, read)) == {"pop"}
            for function, owner in callees)

    def _callees(self, graph, call: nodes.Call, self_name) -> list:
        """[(function, its class)] a call runs: a project function, a method of this class, a held Cell's
        ``construct``, or what the held value (an ``nn.CellDict`` item, a list of Cells) may be; [] when not known."""
        project = self.context.project
        func = call.func
        if isinstance(func, nodes.Name):
            resolved = project.resolve_expr(graph.info, func)
            return [(resolved.node, None)] if resolved is not None and resolved.kind == "function" else []
        found = signatures.called_method(project, graph.info, graph.cls, self_name, call)
        if found is not None:
            return [found]
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and func.expr.name == self_name \
                and graph.cls is not None:
            for held in held_classes(project, graph.cls, func.attrname):  # `self.attn(x, state)`: its construct
                construct = project.find_method(held, "construct") if project.is_cell(held) else None
                if construct is not None:
                    return [construct]
        targets = callables.call_targets(project, graph.info, func, graph.cls) or []
        callees = []
        for target in targets:
            if isinstance(target, nodes.ClassDef) and project.is_cell(target):
                construct = project.find_method(target, "construct")
                if construct is None:
                    return []
                callees.append(construct)
            elif isinstance(target, nodes.FunctionDef):
                callees.append((target, None))
            else:
                return []  # (a MindSpore layer, a lambda: nothing of the project changes the argument)
        return callees

    def _receiver_classes(self, graph, values, receiver, self_name) -> list:
        if isinstance(receiver, nodes.Name) and receiver.name == self_name:
            return [graph.cls] if graph.cls is not None else []
        project = self.context.project
        found = list(object_classes(project, graph.info, receiver, graph.cls))
        found += [c for c in callables.instance_classes(project, graph.info, receiver, graph.cls)
                  if all(c is not f for f in found)]
        return found

    # -- random draws -------------------------------------------------------------------------------
    def _random_draws_repeated(self, graph, values) -> None:
        """RANDOM_DRAW_REPEATED: a callee that draws random numbers, called twice in this graph or in a loop graph
        mode unrolls (a `for` whose number of steps compiling decides)."""
        if values is None:
            return
        analysis = self.context.analysis
        seen: dict[object, list] = {}
        for call in graph_nodes(graph.node):
            if not isinstance(call, nodes.Call):
                continue
            if random_draws.random_api(graph.info.imports, call) or random_draws.random_tensor_method(values, call):
                self.report(rules.SEEDED_RANDOM_STREAM_DIFFERS, call, graph, call=_call_text(call))
                continue
            drawn = random_draws.drawn_by(analysis, graph.info, call, graph.cls)
            if drawn is None:
                continue
            func = call.func
            key = func.as_string() if isinstance(func, (nodes.Name, nodes.Attribute)) else id(call)
            earlier = seen.setdefault(key, [])
            # (calls in the two sides of one `if` never both run: `if stage == 'a': ... elif stage == 'b': ...`)
            count = 1 + sum(1 for other in earlier if not _exclusive(other, call, graph.node))
            earlier.append(call)
            unrolled = _in_unrolled_loop(call, graph.node, values)
            if count > 1 or unrolled:
                times = "in a loop it unrolls" if unrolled else "twice" if count == 2 else f"{count} times"
                self.report(rules.RANDOM_DRAW_REPEATED, call, graph, call=_call_text(call), api=drawn, times=times)

    # -- per-class facts, cached until the class's module (or one it imports) changes -------------------
    def _class_fact(self, kind: str, cls, compute):
        return self.context.analysis.class_fact(kind, cls, compute)

    def _assignments(self, cls) -> dict:
        return self.context.analysis.attribute_assignments(cls)

    def _closed_hierarchy(self, cls) -> bool:
        # Walks the whole hierarchy: once per class, not once per attribute written in graph code.
        return self._class_fact("closed-hierarchy", cls, _closed_hierarchy)

    def _init_reached(self, cls) -> set[int]:
        return self._class_fact("init-reached", cls, _init_reached)

    # -- calls --------------------------------------------------------------------------------------
    def _call(self, graph, values, call: nodes.Call, self_name) -> None:
        """Ask each rule about ``call`` in turn; the first whose kind of call it is (reported or not) ends it."""
        self._state_written_in_graph(graph, call, self_name)
        for check in (self._max_taken_apart, self._two_axis_transpose, self._setattr_on_self, self._frozen_module_call, self._logger_call,
                      self._container_mutation):
            if check(graph, values, call, self_name):
                return

    def _max_taken_apart(self, graph, values, call: nodes.Call, self_name) -> bool:
        """TENSOR_MAX_POSITIONAL_AXIS: ``values, indices = x.max(1)``."""
        func = call.func
        if isinstance(func, nodes.Attribute) and func.attrname in api.PAIRED_ONLY_WITH_DIM and call.args \
                and not call.keywords and values.value(func.expr).is_tensor \
                and (_used_as_pair(call) or (_returned(call) and is_top_level(self.context.analysis, graph))):
            self.report(rules.TENSOR_MAX_POSITIONAL_AXIS, call, graph, call=_short(call), method=func.attrname)
            return True
        return False

    def _two_axis_transpose(self, graph, values, call: nodes.Call, self_name) -> bool:
        """TENSOR_TRANSPOSE_TWO_AXES: PyTorch's ``x.transpose(1, 2)`` on a Tensor."""
        func = call.func
        if not (isinstance(func, nodes.Attribute) and func.attrname == "transpose" and len(call.args) == 2
                and not call.keywords):
            return False
        receiver = values.value(func.expr)
        # graph code's values of unknown kind are Tensors but for a few objects; a NumPy array's transpose takes
        # the permutation as graph code does
        if not receiver.kinds or receiver.kinds - {TENSOR, UNKNOWN}:
            return False
        axes = [_known_int(values, argument) for argument in call.args]
        if None in axes:
            return True
        what = api.two_axis_transpose(*axes)
        if what is None:  # (1, 0): a matrix's swap in both modes; a Tensor of more dimensions refuses it
            rank = ranks.rank_of(values, func.expr)
            if rank is None or rank < 3:
                return True
            what = "fails"
        text = {"fails": "on a Tensor of 3 or more dimensions it fails",
                "fails at every rank": "it names one axis twice on a matrix, and fails at every rank"}.get(
            what, "on a Tensor of 3 or more dimensions it fails, and on a 2-D one it is the identity")
        self.report(rules.TENSOR_TRANSPOSE_TWO_AXES, call, graph, call=_short(call), first=str(axes[0]),
                    second=str(axes[1]), what=text)
        return True

    def _setattr_on_self(self, graph, values, call: nodes.Call, self_name) -> bool:
        """ATTRIBUTE_WRITE_IN_GRAPH: ``setattr(self, "a", v)`` writes the attribute like ``self.a = v`` does."""
        func = call.func
        if isinstance(func, nodes.Name) and func.name == "setattr" and len(call.args) == 3 and self_name is not None \
                and isinstance(call.args[0], nodes.Name) and call.args[0].name == self_name and graph.cls is not None \
                and isinstance(call.args[1], nodes.Const) and isinstance(call.args[1].value, str) \
                and not _locally_bound(func, graph) and self._plain_attribute(graph.cls, call.args[1].value):
            self.report(rules.ATTRIBUTE_WRITE_IN_GRAPH, call, graph, attr=call.args[1].value)
            return True
        return False

    def _frozen_module_call(self, graph, values, call: nodes.Call, self_name) -> bool:
        """PYTHON_RANDOM_IN_GRAPH / WALL_CLOCK_IN_GRAPH / ENVIRON_READ_IN_GRAPH / LOGGING_IN_GRAPH: a call of an
        imported function that runs once, while compiling (unless a runtime argument makes it a fallback)."""
        func = call.func
        qualified = graph.info.imports.qualify(func)
        # Qualify first: it fails fast on a call chain `x.a().b()`, which _locally_bound would walk to its base.
        if qualified is None or _locally_bound(func, graph):
            return False
        if _runtime_argument(call, values):
            return True  # run by the interpreter on every call (JIT fallback), not frozen
        if qualified.startswith(api.RANDOM_MODULES) and qualified.rsplit(".", 1)[-1] not in api.RANDOM_NON_DRAWS:
            self.report(rules.PYTHON_RANDOM_IN_GRAPH, call, graph, call=_call_text(call))
        elif qualified in api.CLOCKS:
            self.report(rules.WALL_CLOCK_IN_GRAPH, call, graph, call=_call_text(call))
        elif qualified in api.ENVIRON_CALLS:
            self._environ_read(graph, call)
        elif qualified in api.WARNING_CALLS or _is_logging_function(qualified):
            self.report(rules.LOGGING_IN_GRAPH, call, graph, call=_call_text(call))
        return True

    def _logger_call(self, graph, values, call: nodes.Call, self_name) -> bool:
        """LOGGING_IN_GRAPH: ``logger.info(...)`` on a logger object."""
        func = call.func
        if not (isinstance(func, nodes.Attribute) and func.attrname in api.LOG_METHODS
                and self._is_logger(graph, func.expr, self_name)):
            return False
        if not _runtime_argument(call, values):
            self.report(rules.LOGGING_IN_GRAPH, call, graph, call=_call_text(call))
        return True

    def _container_mutation(self, graph, values, call: nodes.Call, self_name) -> bool:
        """PYTHON_CONTAINER_MUTATION_IN_GRAPH: ``container.append(...)`` on a container from outside the graph."""
        func = call.func
        if not (isinstance(func, nodes.Attribute) and func.attrname in api.CONTAINER_MUTATORS):
            return False
        target = self._outside_container(graph, func.expr, self_name)
        if target is not None:
            self.report(rules.PYTHON_CONTAINER_MUTATION_IN_GRAPH, call, graph,
                        expr=f"{target}.{func.attrname}(...)", target=target)
        return True

    def _is_logger(self, graph, expr, self_name) -> bool:
        if isinstance(expr, nodes.Call):
            return _factory_name(expr.func) in api.LOGGER_FACTORIES
        if isinstance(expr, nodes.Name):
            if _locally_bound(expr, graph):
                return False
            info = graph.info
            assigned = info.assigned.get(expr.name)
            if isinstance(assigned, nodes.Call):
                return _factory_name(assigned.func) in api.LOGGER_FACTORIES
            qualified = info.imports.aliases.get(expr.name)
            if qualified is not None:
                last = qualified.rsplit(".", 1)[-1]
                return last.lower() in api.LOGGER_NAMES or qualified in api.LOGGING_MODULES
            return False
        if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name) and expr.expr.name == self_name \
                and graph.cls is not None:
            found = self._assignments(graph.cls).get(expr.attrname, [])
            return bool(found) and all(isinstance(v, nodes.Call) and _factory_name(v.func) in api.LOGGER_FACTORIES
                                       for v, _ in found)
        return False

    # -- os.environ ---------------------------------------------------------------------------------
    def _subscript(self, graph, node: nodes.Subscript) -> None:
        if node.ctx == Context.Load and self._is_environ(graph, node.value):
            self._environ_read(graph, node)
            return
        if node.ctx in (Context.Store, Context.Del) and isinstance(node.value, nodes.Name):
            # `GLOBAL[key] = value` on a module-level container.
            found = self._module_global(graph, node.value)
            if found is not None and _is_container(found[0], found[2]):
                name = node.value.name
                statement = node.statement()
                if isinstance(statement, nodes.Delete):
                    expr = f"del {name}[...]"
                elif isinstance(statement, nodes.AugAssign):
                    expr = f"{name}[...] {statement.op} ..."
                else:
                    expr = f"{name}[...] = ..."
                self.report(rules.PYTHON_CONTAINER_MUTATION_IN_GRAPH, statement, graph, anchor=node, expr=expr,
                            target=name)

    def _membership(self, graph, node: nodes.Compare) -> None:
        for op, right in node.ops:
            if op in ("in", "not in") and self._is_environ(graph, right):
                self._environ_read(graph, node)
                return

    def _environ_read(self, graph, node) -> None:
        """ENVIRON_READ_IN_GRAPH, but not under bytecode capture where the value only decides a condition: PIJit
        guards it there (:func:`graphlint.analysis.capture.only_decides_conditions`)."""
        if graph.capture.profile.startswith("bytecode") and capture.only_decides_conditions(node, graph.node):
            return
        self.report(rules.ENVIRON_READ_IN_GRAPH, node, graph, call=_short(node))

    def _is_environ(self, graph, expr) -> bool:
        # Qualify first: _locally_bound walks a subscript chain `x[0][0]...` to its base at every level.
        return graph.info.imports.qualify(expr) in api.ENVIRON and not _locally_bound(expr, graph)

    # -- globals ------------------------------------------------------------------------------------
    def _global_statement(self, graph, node: nodes.Global) -> None:
        frame = node.frame()
        for name in node.names:
            write = first_write(frame, name)
            if write is not None:
                self.report(rules.GLOBAL_WRITE_IN_GRAPH, write.statement(), graph, anchor=write, name=name)

    def _global_read(self, graph, values, node: nodes.Name, seen: set[str]) -> None:
        if node.name in seen or isinstance(node.parent, nodes.Global) or _is_call_target(node):
            return
        if node.name not in graph.info.assigned and node.name not in graph.info.imports.aliases:
            return  # not a module-level variable (a local, a builtin, a function or class)
        changes = host_changes(self.context.analysis)
        if not changes.mutated and not changes.rebound:
            return  # (the project changes no module variable: nothing to resolve the name for)
        found = data_global(self.context.project, graph.info, node.name)
        if found is None:
            return
        info, attr, _ = found
        key = f"{info.name}.{attr}"
        where = changes.mutated.get(key)
        if where is None and info is graph.info:
            where = changes.rebound.get(key)  # `from m import NAME` copies the binding: rebinding m.NAME is not seen
        if where is None:
            return
        # Last: whether the name really reads the module's variable here is an astroid lookup, which walks
        # up the tree from the node (its depth in a long expression), at every read.
        if self._module_global(graph, node) is None:
            return
        seen.add(node.name)
        self.report(rules.MUTABLE_GLOBAL_IN_GRAPH, node, graph, name=node.name)

    def _module_attribute_read(self, graph, values, node: nodes.Attribute, seen: set[str]) -> None:
        """``cfg.SCALE`` where ``cfg`` is an imported project module whose global is rebound or mutated."""
        if not isinstance(node.expr, nodes.Name) or node.expr.name not in graph.info.imports.aliases \
                or _is_call_target(node):
            return
        module = project_module(self.context.project, graph.info, node.expr.name)
        if module is None or node.attrname not in module.assigned:
            return
        key = f"{module.name}.{node.attrname}"
        changes = host_changes(self.context.analysis)
        where = changes.rebound.get(key) or changes.mutated.get(key)
        if where is None or key in seen or _locally_bound(node.expr, graph):  # the lookup last: see _global_read
            return
        seen.add(key)
        self.report(rules.MUTABLE_GLOBAL_IN_GRAPH, node, graph, name=node.as_string())

    def _module_global(self, graph, name: nodes.Name):
        """(ModuleInfo, name there, assigned value) when ``name`` reads a module-level variable, else None."""
        if _locally_bound(name, graph):
            return None
        try:
            scope, _ = name_lookup(name)
        except Exception:  # noqa: BLE001 - astroid lookup on odd nodes
            return None
        if not isinstance(scope, nodes.Module):
            return None  # (`from m import NAME` is not in astroid's locals here: lookup ends in builtins)
        return data_global(self.context.project, graph.info, name.name)

    # -- containers ---------------------------------------------------------------------------------
    def _outside_container(self, graph, expr, self_name) -> str | None:
        """The text of a container receiver that lives outside the call (a global or a ``self`` attribute, or an
        item of one: ``self.groups[0]``)."""
        if isinstance(expr, nodes.Subscript):
            return expr.as_string() if self._outside_container(graph, expr.value, self_name) is not None else None
        if isinstance(expr, nodes.Name):
            found = self._module_global(graph, expr)
            if found is not None and _is_container(found[0], found[2]):
                return expr.name
            return None
        if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name) and expr.expr.name == self_name \
                and graph.cls is not None:
            inits = self._outside_assignments(graph.cls, expr.attrname)
            project = self.context.project
            if inits and all(_is_container(project.info(method.root()), value, method) for value, method in inits):
                return f"{self_name}.{expr.attrname}"
        return None

    # -- attributes ---------------------------------------------------------------------------------
    def _outside_assignments(self, cls, attr: str):
        """``self.attr = value`` outside graph code (``__init__`` and host methods) in the class and its bases."""
        analysis = self.context.analysis
        found = []
        for value, method in self._assignments(cls).get(attr, []):
            if method.name == "__init__" or analysis.graph_of(method) is None:
                found.append((value, method))
        return found

    def _writes(self, graph, statement, self_name) -> None:
        if self_name is None or graph.cls is None or graph.node.name == "__init__":
            return  # (a constructor graph code runs builds its own object: its writes are the object's making)
        targets = statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
        for target in targets:
            for written, attr in _self_writes(target, self_name):
                if not self._plain_attribute(graph.cls, attr):
                    continue
                self.report(rules.ATTRIBUTE_WRITE_IN_GRAPH, statement, graph, anchor=written, attr=attr)
                # (the write itself is what STRICT refuses; the read in another method fails at both levels)
                reader = self._created_in_graph_read_first(graph.cls, attr)
                if reader is not None:
                    method, read = reader
                    self.report(rules.ATTRIBUTE_CREATED_IN_GRAPH, statement, graph, anchor=written, attr=attr,
                                cls=graph.cls.name, reader=f"{graph.cls.name}.{method.name}", line=str(read.lineno))

    def _created_in_graph_read_first(self, cls, attr: str):
        """(method, read) of a plain class (no Cell: for a Cell's own helpers `attribute-read-after-helper-write`
        reports the read) whose ``attr`` only graph code creates, where a method graph code compiles reads
        ``self.attr`` before it writes it (``+=`` reads too); None otherwise."""
        project = self.context.project
        analysis = self.context.analysis
        if project.is_cell(cls) or _class_body_values(project, cls, attr):
            return None
        init_reached = self._init_reached(cls)
        assignments = self._assignments(cls).get(attr, [])
        if any(method.name == "__init__" or id(method) in init_reached or analysis.graph_of(method) is None
               for _value, method in assignments):
            return None
        for klass in project.mro(cls):
            for method in klass.body:
                if not isinstance(method, nodes.FunctionDef) or analysis.graph_of(method) is None \
                        or method.name == "__init__":
                    continue
                receiver = signatures.instance_name(method, klass)
                read = _first_reads(method, receiver, augmented=True).get(attr) if receiver else None
                if read is not None:
                    return method, read
        return None

    def _held_object_writes(self, graph, values, statement, self_name) -> None:
        """ATTRIBUTE_WRITTEN_ON_HELD_OBJECT: ``blk.H = H`` on a sub-Cell, ``self.sched.k = k`` on a plain object
        whose methods read the attribute."""
        targets = statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
        for target in targets:
            for written in targets_of(target, nodes.AssignAttr):
                receiver = written.expr
                if isinstance(receiver, nodes.Name) and receiver.name == self_name:
                    continue
                found = self._held_receiver(graph, values, receiver, written.attrname)
                if found is not None:
                    holder, consequence = found
                    self.report(rules.ATTRIBUTE_WRITTEN_ON_HELD_OBJECT, statement, graph, anchor=written,
                                target=written.as_string(), holder=holder, consequence=consequence)

    def _held_receiver(self, graph, values, receiver, attr: str):
        """(what the receiver is, what the write does) for a sub-Cell or a held plain object, else None."""
        shown = receiver.as_string()
        if values.value(receiver).is_(CELL):
            return (f"the sub-Cell `{shown}`", "graph mode compiles the Cell with the attribute's value from before "
                    "the call, and stops (measured at both levels)")
        project = self.context.project
        for held in self._receiver_classes(graph, values, receiver, None):
            if project.is_cell(held):
                return (f"the sub-Cell `{shown}`", "graph mode compiles the Cell with the attribute's value from "
                        "before the call, and stops (measured at both levels)")
            if _method_reads(held, attr):
                return (f"`{shown}`, a `{held.name}`", f"the `{held.name}` methods graph code calls read the value "
                        "the attribute had when compiling started, not this one")
        return None

    def _not_parameter(self, cls, attr: str) -> bool:
        """``attr`` of ``cls`` is no Parameter anywhere the class assigns it, nor a method or property."""
        project = self.context.project
        if project.find_method(cls, attr) is not None:
            return False
        return not any(_is_parameter_maker(project.info(method.root()), value)
                       for value, method in self._assignments(cls).get(attr, []))

    def _plain_attribute(self, cls, attr: str) -> bool:
        """Whether ``attr`` of ``cls`` is known not to be a Parameter (so graph code may not write it)."""
        project = self.context.project
        if project.find_method(cls, attr) is not None:
            return False  # a property or method: not a plain attribute
        analysis = self.context.analysis
        init_reached = self._init_reached(cls)
        everywhere = self._assignments(cls).get(attr, [])
        if any(_is_parameter_maker(project.info(method.root()), value) for value, method in everywhere):
            return False  # a Parameter somewhere (`self.w = Parameter(...)`): writes may be assigns
        assignments = [(value, method) for value, method in everywhere
                       if method.name == "__init__" or id(method) in init_reached or analysis.graph_of(method) is None]
        in_class_body = _class_body_values(project, cls, attr)
        if not assignments and not in_class_body:
            # Never set outside graph code: first created there (strict: "object has no attribute").
            return self._closed_hierarchy(cls)
        for value, method in assignments:
            graph = analysis.graph_of(method) if method.name != "__init__" else None
            if graph is not None:
                # A graph helper that __init__ also runs (`self._set_cache(...)`): its own values say what it stores.
                if not self._plain_by_values(graph, value):
                    return False
            elif _plain_value(project.info(method.root()), value, method) is not True and \
                    not self._plain_method_result(cls, value, method):
                return False
        for value, klass in in_class_body:
            if _plain_value(project.info(klass.root()), value, None) is not True:
                return False
        return True

    def _state_written_in_graph(self, graph, call: nodes.Call, self_name) -> None:
        """``self.lstm(x, self.hidden)`` where graph code also writes ``self.hidden``: the layer type-checks the
        state as a tuple and gets the interpreted object that attribute reads give after such a write."""
        func = call.func
        if self_name is None or graph.cls is None or not _is_self_attribute(func, self_name):
            return
        layer = self.context.analysis.attribute_instance_of(graph.cls, func.attrname)
        if layer not in api.NN_TUPLE_STATE_INPUTS:
            return
        position, keyword = api.NN_TUPLE_STATE_INPUTS[layer]
        state = call.args[position] if len(call.args) > position else next(
            (k.value for k in call.keywords or () if k.arg == keyword), None)
        if _is_self_attribute(state, self_name) and state.attrname in self._written_in_graph(graph.cls) \
                and self._plain_attribute(graph.cls, state.attrname):
            self.report(rules.STATE_ATTRIBUTE_WRITTEN_IN_GRAPH, call, graph, attr=state.attrname,
                        layer=layer.rsplit(".", 1)[-1], keyword=keyword)

    def _written_in_graph(self, cls) -> set[str]:
        """The attributes ``self.attr = ...`` of ``cls`` that graph code (its construct and helpers) assigns."""
        analysis = self.context.analysis

        def compute(_project, klass):
            written = set()
            for method in klass.body:
                if isinstance(method, nodes.FunctionDef) and method.args.args and analysis.graph_of(method) is not None:
                    receiver = method.args.args[0].name
                    for node in nodes_of_class(method, (nodes.Assign, nodes.AugAssign)):
                        for target in node.targets if isinstance(node, nodes.Assign) else [node.target]:
                            written.update(attr for _node, attr in _self_writes(target, receiver))
            return written

        return self._class_fact("written-in-graph", cls, compute)

    def _plain_method_result(self, cls, value, method) -> bool:
        """``self.make_state(...)`` whose result the analysis knows is a Tensor or a tuple/list that is no
        Parameter (`init_hidden` returning zero Tensors)."""
        receiver = method.args.args[0].name if method.args.args else None
        if not (isinstance(value, nodes.Call) and isinstance(value.func, nodes.Attribute)
                and isinstance(value.func.expr, nodes.Name) and value.func.expr.name == receiver):
            return False
        result = self.context.analysis.method_result(cls, value.func.attrname)
        return bool(result.kinds) and result.kinds <= {TENSOR, TUPLE, LIST} and not result.alias.startswith(
            "the Parameter") and not (result.items and any(i.alias.startswith("the Parameter") for i in result.items))

    def _plain_by_values(self, graph, value) -> bool:
        values = self.context.values(graph)
        if values is None or value is None:
            return False
        found = values.value(value)
        return bool(found.kinds) and not found.kinds & {UNKNOWN, OBJECT, CELL, FUNCTION, CLASS, MODULE} and not found.alias.startswith("the Parameter")

    def _attribute_read(self, graph, node: nodes.Attribute, seen: set[str]) -> None:
        attr = node.attrname
        if attr in seen or graph.cls is None:
            return
        if isinstance(node.parent, nodes.Call) and node.parent.func is node:
            return  # a method or sub-Cell call
        if attr in _called_attributes(graph.node, node.expr.name):
            return  # a sub-Cell (or function) this code calls: replacing it is not measured
        setter = self._host_setter(graph.cls, attr)
        if setter is not None:
            seen.add(attr)
            self.report(rules.HOST_ATTRIBUTE_CHANGE_BETWEEN_CALLS, node, graph, attr=attr, method=setter)

    def _host_setter(self, cls, attr: str) -> str | None:
        """A host method (not ``__init__``, not reached from it, not graph code) that reassigns ``self.attr``."""
        project = self.context.project
        analysis = self.context.analysis
        if attr != "training" and project.find_method(cls, attr) is not None:
            return None
        assignments = self._assignments(cls).get(attr, [])
        if not assignments:
            return None
        init_reached = self._init_reached(cls)
        setter = None
        for value, method in assignments:
            if _is_parameter_or_cell(project, project.info(method.root()), value):
                return None
            if method.name in ("__init__", "set_train") or id(method) in init_reached \
                    or method.name.lstrip("_").startswith(api.CONSTRUCTION_METHOD_PREFIXES):
                continue
            if analysis.graph_of(method) is not None:
                continue
            if setter is None:
                owner = _owner_class(method)
                setter = f"{owner.name}.{method.name}" if owner is not None else method.name
        return setter


# -- helpers ------------------------------------------------------------------------------------------
def _locally_bound(expr, graph) -> bool:
    """The base name of ``expr`` is bound inside the graph function (or a function nested in it)."""
    base = expr
    while isinstance(base, (nodes.Attribute, nodes.Subscript, nodes.Call)):
        base = base.expr if isinstance(base, nodes.Attribute) else base.value if isinstance(base, nodes.Subscript) \
            else base.func
    if not isinstance(base, nodes.Name):
        return True
    try:
        scope, assigned = base.lookup(base.name)
    except Exception:  # noqa: BLE001
        return False
    return not isinstance(scope, nodes.Module) and bool(assigned)


def _is_call_target(node) -> bool:
    return isinstance(node.parent, nodes.Call) and node.parent.func is node


def _runtime_argument(call: nodes.Call, values) -> bool:
    if values is None:
        return False
    for arg in list(call.args) + [k.value for k in call.keywords or ()]:
        if values.value(arg).var:
            return True
    return False


def _is_logging_function(qualified: str) -> bool:
    module, _, name = qualified.rpartition(".")
    return name in api.LOG_METHODS and module in api.LOGGING_MODULES


def _factory_name(func) -> str:
    if isinstance(func, nodes.Name):
        return func.name
    if isinstance(func, nodes.Attribute):
        return func.attrname
    return ""


def _last_name_part(func) -> str:
    """The last dotted part of ``func``'s source text, e.g. ``setattr`` for ``obj.setattr``."""
    if isinstance(func, nodes.Attribute):
        return func.attrname  # as_string() would render the whole receiver chain, at every call of it
    if isinstance(func, nodes.Name):
        return func.name
    return func.as_string().rsplit(".", 1)[-1]


def _call_text(call: nodes.Call) -> str:
    func = call.func.as_string()
    return f"{func}()" if not call.args and not call.keywords else f"{func}(...)"


def _returned(expr) -> bool:
    """``expr`` is what a ``return`` gives, or an element of the tuple it gives."""
    parent = expr.parent
    if isinstance(parent, nodes.Tuple):
        parent = parent.parent
    return isinstance(parent, nodes.Return)


def _used_as_pair(call: nodes.Call) -> bool:
    """The result is taken apart as (values, indices): unpacked into two targets, or indexed by 0 or 1. (Code
    written for graph mode uses `x.max(1)` as the values, which is what the graph gives.)"""
    parent = call.parent
    if isinstance(parent, nodes.Assign) and parent.value is call:
        return any(isinstance(t, (nodes.Tuple, nodes.List)) and len(t.elts) == 2 for t in parent.targets)
    if isinstance(parent, nodes.Subscript) and parent.value is call:
        return isinstance(parent.slice, nodes.Const) and parent.slice.value in (0, 1)
    return False


def _known_int(values, expr) -> int | None:
    """The int ``expr`` is while compiling: a literal's arithmetic, or a value the analysis knows (a parameter
    every call passes `-1`)."""
    exact = values.exact_int(expr)
    if exact is not None:
        return exact
    value = values.value(expr)
    return value.const if value.known and not value.var and type(value.const) is int else None


def _short(node, limit: int = 60) -> str:
    text = node.as_string()
    if len(text) <= limit:
        return text
    if isinstance(node, nodes.Call):
        return _call_text(node)
    return text[: limit - 3] + "..."


def _is_container(info, value, method=None) -> bool:
    """A list / dict / set literal, comprehension or constructor call, or a parameter of ``method`` annotated as
    a list or dict (``def __init__(self, groups: list)``)."""
    if isinstance(value, (nodes.List, nodes.Dict, nodes.Set, nodes.ListComp, nodes.DictComp, nodes.SetComp)):
        return True
    if isinstance(value, nodes.Name) and method is not None:
        return annotated_python_kind(signatures.annotation_of(method, value.name)) in (LIST, DICT)
    if isinstance(value, nodes.Call):
        if isinstance(value.func, nodes.Name) and value.func.name in api.CONTAINER_BUILTINS:
            return True
        return info.imports.qualify(value.func) in api.CONTAINER_FACTORIES
    return False


def _is_self_attribute(node, self_name: str) -> bool:
    return isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and node.expr.name == self_name


def _method_reads(cls: nodes.ClassDef, attr: str) -> bool:
    """A method of ``cls`` other than ``__init__`` reads ``self.attr``."""
    for method in cls.mymethods():
        if method.name == "__init__" or not method.args.args:
            continue
        receiver = method.args.args[0].name
        if any(isinstance(node.expr, nodes.Name) and node.expr.name == receiver and node.attrname == attr
               for node in nodes_of_class(method, nodes.Attribute)):
            return True
    return False


def _self_writes(target, self_name: str):
    """(target node, attribute) for ``self.attr = ...`` and ``self.attr[...] = ...`` targets."""
    if isinstance(target, nodes.AssignAttr):
        if isinstance(target.expr, nodes.Name) and target.expr.name == self_name:
            yield target, target.attrname
    elif isinstance(target, nodes.Subscript):
        base = target.value
        if isinstance(base, nodes.Attribute) and isinstance(base.expr, nodes.Name) and base.expr.name == self_name:
            yield target, base.attrname
    elif isinstance(target, (nodes.Tuple, nodes.List)):
        for element in target.elts:
            yield from _self_writes(element, self_name)
    elif isinstance(target, nodes.Starred):
        yield from _self_writes(target.value, self_name)


def _plain_value(info, value, method) -> bool | None:
    """True when ``value`` is certainly not a Parameter (a Python value, a container, a plain Tensor)."""
    if value is None:
        return None
    if isinstance(value, (nodes.Const, nodes.List, nodes.Tuple, nodes.Dict, nodes.Set, nodes.ListComp,
                          nodes.DictComp, nodes.SetComp, nodes.JoinedStr, nodes.BinOp, nodes.UnaryOp,
                          nodes.BoolOp, nodes.Compare)):
        return True
    if isinstance(value, nodes.IfExp):
        body, orelse = _plain_value(info, value.body, method), _plain_value(info, value.orelse, method)
        return True if body is True and orelse is True else None
    if isinstance(value, nodes.Call):
        func = value.func
        if isinstance(func, nodes.Name) and func.name in api.PLAIN_VALUE_BUILTINS:
            return True
        qualified = info.imports.qualify(func)
        if qualified in api.TENSOR_CONSTRUCTORS or qualified in api.CONTAINER_FACTORIES:
            return True
        if api.api_kind(qualified) is api.ApiKind.FUNCTION:
            return True
        return None
    if isinstance(value, nodes.Name) and method is not None:
        return _plain_argument(method, value.name)
    return None


def _plain_argument(method: nodes.FunctionDef, name: str) -> bool | None:
    """A parameter of ``method`` with a Python-number/str default or annotation."""
    args = method.args
    positional = signatures.positional_parameters(method)
    defaults = list(args.defaults or [])
    first_default = len(positional) - len(defaults)
    annotations = signatures.positional_annotations(method)
    pairs = []
    for index, arg in enumerate(positional):
        default = defaults[index - first_default] if index >= first_default else None
        annotation = annotations[index] if index < len(annotations) else None
        pairs.append((arg, default, annotation))
    pairs += list(zip(args.kwonlyargs or [], args.kw_defaults or [], args.kwonlyargs_annotations or []))
    for arg, default, annotation in pairs:
        if arg.name != name:
            continue
        if annotated_python_kind(annotation) is not None:
            return True  # `n: int`, `z: list`: a Python value, never a Parameter
        written = literal(default)
        if written is not None and isinstance(written[0], (int, float, bool, str)):
            return True
        return None
    return None


def _is_parameter_maker(info, value) -> bool:
    return isinstance(value, nodes.Call) and info.imports.qualify(value.func) in api.PARAMETER_MAKERS


def _is_parameter_or_cell(project, info, value) -> bool:
    if not isinstance(value, nodes.Call):
        return False
    qualified = info.imports.qualify(value.func)
    if qualified in api.PARAMETER_MAKERS:
        return True
    if qualified and api.is_mindspore_cell_name(qualified):
        return True
    resolved = project.resolve_expr(info, value.func)
    return resolved is not None and resolved.kind == "class" and project.is_cell(resolved.node)


def _class_body_values(project, cls, attr: str) -> list:
    found = []
    for klass in project.mro(cls):
        for stmt in klass.body:
            if isinstance(stmt, nodes.Assign):
                if any(isinstance(t, nodes.AssignName) and t.name == attr for t in stmt.targets):
                    found.append((stmt.value, klass))
            elif isinstance(stmt, nodes.AnnAssign) and isinstance(stmt.target, nodes.AssignName) \
                    and stmt.target.name == attr and stmt.value is not None:
                found.append((stmt.value, klass))
    return found


def _closed_hierarchy(project, cls) -> bool:
    """Every base is a project class or ``nn.Cell`` / ``object``, and nothing sets attributes dynamically."""
    for klass in project.mro(cls):
        info = project.info(klass.root())
        resolved_bases = {id(base) for base, _ in project.base_classes(klass)}
        for base in klass.bases:
            if isinstance(base, nodes.Name) and base.name == "object":
                continue
            qualified = info.imports.qualify(base)
            if qualified == api.CELL_BASE:
                continue
            resolved = project.resolve_expr(info, base)
            if resolved is None or resolved.kind != "class" or id(resolved.node) not in resolved_bases:
                return False
        for node in nodes_of_class(klass, (nodes.Call, nodes.Attribute)):
            last = _last_name_part(node.func) if isinstance(node, nodes.Call) else node.attrname
            if last in api.DYNAMIC_ATTRIBUTE_SETTERS or last == "__dict__":
                return False
        if klass.decorators is not None:
            return False  # dataclasses and other class decorators add attributes
    return True


def _init_reached(project, cls) -> set[int]:
    """Methods run while the object is built: ``__init__`` and what it calls on ``self``, transitively."""
    found: set[int] = set()
    stack = _methods_named(project, cls, "__init__")
    while stack:
        method = stack.pop()
        if id(method) in found:
            continue
        found.add(id(method))
        positional = signatures.positional_parameters(method)
        if positional:
            stack.extend(_methods_called_on_self(project, cls, method, positional[0].name))
    return found


def _methods_named(project, cls, name: str) -> list:
    """The methods called ``name`` of ``cls`` and its bases."""
    return [method for klass in project.mro(cls) for method in klass.body
            if isinstance(method, nodes.FunctionDef) and method.name == name]


def _methods_called_on_self(project, cls, method, self_name: str) -> list:
    """The methods of ``cls`` that ``method`` calls on its instance: ``self.m(...)``, and through
    ``super().m(...)``, ``super(Cls, self).m(...)`` or ``Base.m(self, ...)`` every class's ``m``."""
    called = []
    for call in nodes_of_class(method, nodes.Call):
        func = call.func
        if not isinstance(func, nodes.Attribute):
            continue
        owner = func.expr
        on_self = isinstance(owner, nodes.Name) and owner.name == self_name
        on_super = isinstance(owner, nodes.Call) and isinstance(owner.func, nodes.Name) and owner.func.name == "super"
        explicit = isinstance(owner, nodes.Name) and call.args and isinstance(call.args[0], nodes.Name) \
            and call.args[0].name == self_name
        if on_self or on_super or explicit:
            target = project.find_method(cls, func.attrname)
            if target is not None:
                called.append(target[0])
            if on_super or explicit:
                called.extend(_methods_named(project, cls, func.attrname))
    return called


def _called_attributes(func: nodes.FunctionDef, self_name: str) -> frozenset[str]:
    """Attributes called as ``self.attr(...)`` in ``func``."""
    cached = getattr(func, "_graphlint_called_attrs", None)
    if cached is not None and cached[0] == self_name:
        return cached[1]
    found = set()
    for call in nodes_of_class(func, nodes.Call):
        target = call.func
        if isinstance(target, nodes.Attribute) and isinstance(target.expr, nodes.Name) and target.expr.name == self_name:
            found.add(target.attrname)
    result = frozenset(found)
    try:
        func._graphlint_called_attrs = (self_name, result)
    except AttributeError:  # pragma: no cover - slots
        pass
    return result


def _owner_class(func: nodes.FunctionDef) -> nodes.ClassDef | None:
    parent = func.parent
    return parent if isinstance(parent, nodes.ClassDef) else None


CHECKER = DivergenceChecker


def _exclusive(first, second, function) -> bool:
    """``first`` and ``second`` sit on the two sides of one ``if`` (or conditional expression) of ``function``:
    one run takes one side."""
    child, node = first, first.parent
    while node is not None and node is not function:
        if isinstance(node, nodes.If) and child is not node.test:
            if _within(second, node.orelse if child in node.body else node.body):
                return True
        elif isinstance(node, nodes.IfExp) and child is not node.test:
            if _within(second, [node.orelse if child is node.body else node.body]):
                return True
        child, node = node, node.parent
    return False


def _in_unrolled_loop(node, function, values) -> bool:
    """``node`` is in the body of a `for` of ``function`` that graph mode unrolls (its calls are made once per
    step)."""
    current = node.parent
    while current is not None and current is not function:
        if isinstance(current, nodes.For) and _within(node, current.body) \
                and not values.steps_decided_at_run_time(current):
            return True
        current = current.parent
    return False


def _within(node, statements) -> bool:
    current = node
    while current is not None:
        if any(current is statement for statement in statements):
            return True
        current = current.parent
    return False


def _attribute_reads_first_by(project, graph, method_name: str) -> list[tuple]:
    """``(attribute, its first read)`` for the ``self`` attributes the method ``method_name`` of ``graph``'s class
    reads before it assigns them (its first use of the attribute, in source order, is a read)."""
    found = project.find_method(graph.cls, method_name)
    if found is None or found[0] is graph.node:
        return []
    helper, receiver = found[0], signatures.instance_name(found[0], found[1])
    return [(attr, read) for attr, read in _first_reads(helper, receiver).items() if read is not None]


def _mutated_parameters(function) -> dict[str, set]:
    """{parameter: how it is changed} for the parameters ``function`` changes in place and never rebinds: "pop"
    for ``p.pop(...)``, "write" for the rest (``p[k] = v``, ``del p[k]``, ``p.append(v)``, ...)."""
    parameters = [a.name for a in signatures.positional_parameters(function)[1:]] + \
        [a.name for a in function.args.kwonlyargs or ()]
    if function.args.args and signatures.positional_parameters(function)[0].name not in ("self", "cls"):
        parameters.insert(0, signatures.positional_parameters(function)[0].name)
    rebound = {n.name for n in nodes_of_class(function, nodes.AssignName) if not isinstance(n.parent, nodes.Arguments)}
    mutated: dict[str, set] = {}
    for node in nodes_of_class(function, (nodes.Subscript, nodes.Call)):
        if isinstance(node, nodes.Subscript) and node.ctx in (Context.Store, Context.Del) \
                and isinstance(node.value, nodes.Name):
            mutated.setdefault(node.value.name, set()).add("write")
        elif isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) \
                and node.func.attrname in api.CONTAINER_MUTATORS and isinstance(node.func.expr, nodes.Name):
            mutated.setdefault(node.func.expr.name, set()).add("pop" if node.func.attrname == "pop" else "write")
    return {p: mutated[p] for p in parameters if p in mutated and p not in rebound}


def _holds_container(value) -> bool:
    """A list or a dict (and nothing else)."""
    return bool(value.kinds & {LIST, DICT}) and not value.kinds - {LIST, DICT}


def _bound_parameter(function, owner, call: nodes.Call, argument) -> str | None:
    """The parameter of ``function`` that ``argument`` (a positional argument of ``call``) binds."""
    for parameter in _mutated_parameters(function):
        if signatures.argument_for(function, owner, call, parameter) is argument:
            return parameter
    return None


def _attribute_state_writes(function):
    """(statement, receiver name, attribute) for each write of ``name.attr`` in ``function``'s own code: an
    assignment to it, to an item of it, or a call of a container mutator on it (``name.cache.append(v)``)."""
    for node in graph_nodes(function):
        if isinstance(node, (nodes.Assign, nodes.AugAssign)):
            for target in node.targets if isinstance(node, nodes.Assign) else [node.target]:
                for written in targets_of(target, nodes.AssignAttr):
                    if isinstance(written.expr, nodes.Name):
                        yield node, written.expr, written.attrname
                for item in targets_of(target, nodes.Subscript):
                    if isinstance(item.value, nodes.Attribute) and isinstance(item.value.expr, nodes.Name):
                        yield node, item.value.expr, item.value.attrname
        elif isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) \
                and node.func.attrname in api.CONTAINER_MUTATORS and isinstance(node.func.expr, nodes.Attribute) \
                and isinstance(node.func.expr.expr, nodes.Name):
            yield node.statement(), node.func.expr.expr, node.func.expr.attrname


def _enclosing_loop(node, function):
    """The innermost ``for``/``while`` of ``function`` whose body holds ``node``; None outside loops."""
    current = node.parent
    while current is not None and current is not function:
        if isinstance(current, (nodes.For, nodes.While)) and _within(node, current.body):
            return current
        current = current.parent
    return None


def _reads_attribute(loop, name: str, attr: str) -> bool:
    """The loop reads ``name.attr`` (an ``obj.n += 1`` reads it too)."""
    return any(isinstance(node, nodes.Attribute) and node.attrname == attr and isinstance(node.expr, nodes.Name)
               and node.expr.name == name for node in nodes_of_class(loop, nodes.Attribute)) or any(
        isinstance(node, nodes.AugAssign) and isinstance(node.target, nodes.AssignAttr)
        and node.target.attrname == attr and isinstance(node.target.expr, nodes.Name) and node.target.expr.name == name
        for node in nodes_of_class(loop, nodes.AugAssign))


def _in_loop(node, function) -> bool:
    """``node`` is in the body of a ``while`` of ``function`` (each step calls it again)."""
    current = node.parent
    while current is not None and current is not function:
        if isinstance(current, nodes.While) and _within(node, current.body):
            return True
        current = current.parent
    return False


def _carried_state(project, cls, method_name: str, depth: int, seen: set) -> list:
    """(method, attribute, its first read) for each attribute ``cls.method_name`` -- or a method it calls on
    ``self`` or on an object ``self`` holds -- reads before it assigns it, and assigns."""
    found = project.find_method(cls, method_name)
    if found is None or depth > 3 or (id(found[0])) in seen:
        return []
    method, owner = found
    seen.add(id(method))
    receiver = signatures.instance_name(method, owner)
    if receiver is None:
        return []
    written = set(_assigned_attributes(method, receiver))
    carried = [(method, attr, read) for attr, read in _first_reads(method, receiver).items()
               if read is not None and attr in written]
    for call in nodes_of_class(method, nodes.Call):
        func = call.func
        if not isinstance(func, nodes.Attribute):
            continue
        if isinstance(func.expr, nodes.Name) and func.expr.name == receiver:
            carried += _carried_state(project, owner, func.attrname, depth + 1, seen)
        elif isinstance(func.expr, nodes.Attribute) and isinstance(func.expr.expr, nodes.Name) \
                and func.expr.expr.name == receiver:
            for held in held_classes(project, owner, func.expr.attrname):
                carried += _carried_state(project, held, func.attrname, depth + 1, seen)
    return carried


def _first_reads(method, receiver: str, augmented: bool = False) -> dict:
    """``{attribute: its first use in source order when that is a read, else None}`` for ``receiver``'s attributes;
    with ``augmented``, ``self.a += v`` counts as a read of ``a``."""
    first: dict = {}
    uses = [node for node in nodes_of_class(method, (nodes.Attribute, nodes.AssignAttr))
            if isinstance(node.expr, nodes.Name) and node.expr.name == receiver]
    for node in sorted(uses, key=lambda n: (_statement_line(n), isinstance(n, nodes.AssignAttr), n.col_offset)):
        if augmented and isinstance(node, nodes.AssignAttr) and isinstance(node.parent, nodes.AugAssign):
            first.setdefault(node.attrname, node)
            continue
        if isinstance(node, nodes.Attribute) and isinstance(node.parent, nodes.Call) and node.parent.func is node:
            continue
        if isinstance(node, nodes.Attribute) and isinstance(node.parent, nodes.Subscript) and \
                node.parent.ctx == Context.Store:
            first.setdefault(node.attrname, None)  # (`self.buf[:, -1] = v` writes into what it reads)
            continue
        first.setdefault(node.attrname, node if isinstance(node, nodes.Attribute) else None)
    return first


def _statement_line(node) -> int:
    """The line of the statement ``node`` is in (the value of ``self.h = self.h + x`` is read before the store)."""
    return node.statement().lineno


def _attributes_written_by(project, graph, method_name: str) -> list[str]:
    """The ``self`` attributes the method ``method_name`` of ``graph``'s class assigns (none for ``graph`` itself)."""
    found = project.find_method(graph.cls, method_name)
    if found is None or found[0] is graph.node:
        return []
    return _assigned_attributes(found[0], signatures.instance_name(found[0], found[1]))


def _assigned_attributes(method, receiver: str) -> list[str]:
    """The attributes of ``receiver`` that ``method`` assigns (``self.a = ...``, ``self.a[...] = ...``)."""
    return [attr for statement in nodes_of_class(method, (nodes.Assign, nodes.AugAssign))
            for target in (statement.targets if isinstance(statement, nodes.Assign) else [statement.target])
            for _, attr in _self_writes(target, receiver)]
