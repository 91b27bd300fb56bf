"""APIs and objects MindSpore refuses inside graph code (the jit_forbidden registry, Parameter creation,
lambdas from `def` lines, lambdas in `for` bodies). The tables come from MindSpore itself: :mod:`graphlint.analysis.api`
(``JIT_FORBIDDEN_*``, built from :mod:`graphlint.analysis.generated.jit_forbidden`)."""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api, callables, ranks, signatures, torch_habits
from graphlint.analysis.kinds import CELL, FLOAT, INT, LIST, NONE, TENSOR, TUPLE, UNKNOWN
from graphlint.analysis.provenance import locally_bound
from graphlint.analysis.tree import graph_nodes, is_within, read_after
from graphlint.catalogue import refused as rules
from graphlint.runner import Checker


class RefusedChecker(Checker):
    family = "refused"

    def check_function(self, graph) -> None:
        values = self.context.values(graph)
        if values is None:
            return
        imports = graph.info.imports
        reported: set[int] = set()
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.Call):
                self._call(graph, values, node, reported)
                self._torch_habit_call(graph, values, node)
                self._differing_habit_call(graph, values, node)
                self._function_object_call(graph, values, node)
            elif isinstance(node, nodes.Attribute) and self._cell_dict_attribute(graph, values, node):
                continue
            elif isinstance(node, nodes.Attribute) and self._torch_attribute(graph, values, node):
                continue
            elif isinstance(node, nodes.Lambda) and _in_for_body(node, graph.node):
                self.report(rules.LAMBDA_IN_FOR_LOOP, node, graph)
            elif isinstance(node, nodes.Attribute) and id(node) not in reported and \
                    not (isinstance(node.parent, nodes.Attribute) and node.parent.expr is node):
                # A reference to a member of a forbidden module (`ms.ParallelMode.STAND_ALONE`) fails too.
                qualified = None if locally_bound(node, values) else imports.qualify(node)
                registered = api.jit_forbidden_name(qualified)
                if registered is not None and not (isinstance(node.parent, nodes.Call) and node.parent.func is node):
                    self.report(rules.JIT_FORBIDDEN_API, node, graph, call=node.as_string(), registered=registered)

    def _call(self, graph, values, call: nodes.Call, reported: set[int]) -> None:
        func = call.func
        if isinstance(func, nodes.Name) and values.self_name and func.name == values.self_name \
                and graph.cls is not None and self.context.project.is_cell(graph.cls):
            self.report(rules.CELL_CALLS_ITSELF, call, graph, call=call.as_string()[:80], how="calls",
                        fixed=f"{func.name}.construct({_arguments_text(call)})")
            return
        self._cell_passed_to_be_called(graph, values, call)
        qualified = None if locally_bound(func, values) else graph.info.imports.qualify(func)
        if qualified is not None:
            if qualified in api.PARAMETER_MAKERS:
                self.report(rules.PARAMETER_CREATED_IN_GRAPH, call, graph, name=_parameter_name(call))
                return
            registered = api.jit_forbidden_name(qualified)
            if registered is not None:
                reported.add(id(func))
                self.report(rules.JIT_FORBIDDEN_API, call, graph, call=_shown(call), registered=registered)
            return
        if not isinstance(func, nodes.Attribute):
            return
        method = func.attrname
        receiver = func.expr
        if method in api.JIT_FORBIDDEN_CELL_METHODS and self._is_cell(graph, values, receiver, method):
            self.report(rules.JIT_FORBIDDEN_API, call, graph, call=_shown(call),
                        registered=api.JIT_FORBIDDEN_CELL_METHODS[method])
            return
        if method in api.JIT_FORBIDDEN_OBJECT_METHODS:
            owner, registered = api.JIT_FORBIDDEN_OBJECT_METHODS[method]
            value = values.value(receiver)
            # (`Parameter(...) if scale else None`: None has no such method either)
            tensor = value.may_be(TENSOR) and not value.kinds - {TENSOR, NONE}
            if tensor and (owner == "Tensor" or value.alias.startswith("the Parameter")):
                self.report(rules.JIT_FORBIDDEN_API, call, graph, call=_shown(call), registered=registered)
                return
        self._lambda_default(graph, values, call)

    def _function_object_call(self, graph, values, call: nodes.Call) -> None:
        """A call of a function object a value holds (a lambda in a list or dict, a factory's closure, a
        ``functools.partial``) that MindSpore cannot compile: reported where every run of the call meets it, or
        where every candidate the value may hold does."""
        func = call.func
        if not isinstance(func, (nodes.Name, nodes.Attribute, nodes.Subscript)):
            return
        if isinstance(func, (nodes.Name, nodes.Attribute)) and not locally_bound(func, values) \
                and graph.info.imports.qualify(func) is not None:
            return
        reached = callables.called_functions(self.context.project, graph.info, func, graph.cls)
        if not reached:
            return
        project = self.context.project
        passes_cell = any(values.value(argument).may_be(CELL) or callables.may_hold_cell(
            project, graph.info, argument, graph.cls) for argument in call.args)
        problems = [self._function_object_problem(graph, found, passes_cell) for found in reached]
        if not any(problems):
            return
        for found, problem in zip(reached, problems):
            if problem is not None and (found.certain or all(problems)):
                rule, fields = problem
                self.report(rule, call, graph, call=_shown(call), **fields)
                return

    def _function_object_problem(self, graph, found, passes_cell: bool):
        node = found.node
        if node.root() is graph.node.root() and is_within(node, graph.node):
            return None  # parsed with the graph function itself
        described = f"the lambda of line {node.lineno}" if isinstance(node, nodes.Lambda) else f"`{node.name}`"
        if found.partial is not None:
            if passes_cell or callables.binds_cell(self.context.project, found.partial):
                return rules.PARTIAL_RUNS_CELL, {"function": described}
            return rules.PARTIAL_CALLED_IN_GRAPH, {"function": described}
        if isinstance(node, nodes.Lambda):
            kind = callables.lambda_statement_kind(node.root(), node)
            if kind is not None:
                found_text = "lines that do not parse" if kind == "SyntaxError" else f"a `{kind}`"
                return rules.LAMBDA_NOT_ITS_OWN_STATEMENT, {"line": str(node.lineno), "found": found_text}
        names = callables.default_names_out_of_reach(node)
        if names:
            return rules.DEFAULT_OUT_OF_REACH, {"function": described,
                                                "names": ", ".join(f"`{name}`" for name in names)}
        return None

    def _cell_passed_to_be_called(self, graph, values, call: nodes.Call) -> None:
        """``run_windows(x, self)`` in a Cell's graph code, where the project function calls that parameter
        (``predictor(window)``): the callee calls the Cell through `self`, which graph code cannot call, as
        ``self(...)`` (measured: "The object is not callable"; passing ``self.construct`` compiles)."""
        self_name = values.self_name
        passed = [arg for arg in list(call.args) + [k.value for k in call.keywords or ()]
                  if isinstance(arg, nodes.Name) and self_name and arg.name == self_name]
        if not passed or graph.cls is None or not self.context.project.is_cell(graph.cls) \
                or not isinstance(call.func, nodes.Name):
            return
        resolved = self.context.project.resolve_expr(graph.info, call.func)
        if resolved is None or resolved.kind != "function":
            return
        function = resolved.node
        found = signatures.called_parameter(function, call, passed)
        if found is None:
            return
        parameter, argument = found
        texts = [f"{self_name}.construct" if a is argument else a.as_string() for a in call.args] + \
            [f"{k.arg}={self_name}.construct" if k.value is argument else k.as_string() for k in call.keywords or ()]
        self.report(rules.CELL_CALLS_ITSELF, argument, graph, call=call.as_string()[:80],
                    how=f"passes `{self_name}` as `{parameter}`, and `{function.name}` calls",
                    fixed=f"{call.func.as_string()}({', '.join(texts)})"[:100])

    def _torch_habit_call(self, graph, values, call: nodes.Call) -> None:
        """A PyTorch-style call whose every measured form of its shape graph mode refuses (E6005) or runs only
        through the lax level's fallback (W6006), as generated/torch_habits.py measured."""
        if any(isinstance(arg, nodes.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords or ()):
            return
        if self._split_of_host_sizes(graph, values, call):
            return
        found, falling = self._measured_habit(graph, values, call)
        if found is not None:
            self._report_habit(graph, call, found, call.as_string())
        elif falling is not None:
            self.report(rules.TORCH_HABIT_FALLS_BACK, call, graph, call=call.as_string(),
                        error=torch_habits.first_sentence(falling.error))

    def _torch_attribute(self, graph, values, node: nodes.Attribute) -> bool:
        """A Tensor attribute PyTorch code reads (`x.device`, for `.to(x.device)`) that graph mode reads only
        through the lax level's fallback (W6006) or refuses (E6005), as generated/torch_habits.py measured."""
        if isinstance(node.parent, nodes.Call) and node.parent.func is node:
            return False
        found = torch_habits.attribute_habit(node.attrname)
        if found is None or not _tensor_receiver(values, node.expr):
            return False
        if found.verdict == "falls back":
            self.report(rules.TORCH_HABIT_FALLS_BACK, node, graph, call=node.as_string(),
                        error=torch_habits.first_sentence(found.error))
        else:
            self._report_habit(graph, node, found, node.as_string())
        return True

    def _split_of_host_sizes(self, graph, values, call: nodes.Call) -> bool:
        """``t.split(sizes, dim=0)`` with ``sizes`` a list the interpreter made (``.tolist()``): measured refused
        at both levels with the axis as a keyword ("Illegal type in the graph: AbstractKeywordArg"), compiled with
        it positional."""
        func = call.func
        if not (isinstance(func, nodes.Attribute) and func.attrname == "split" and len(call.args) == 1
                and len(call.keywords or ()) == 1 and call.keywords[0].arg in ("dim", "axis")
                and _tensor_receiver(values, func.expr) and values.value(call.args[0]).interpreted):
            return False
        found = torch_habits.form_habit(torch_habits.SPLIT_OF_HOST_SIZES)
        if found is None:
            return False
        spelling = (f"{func.expr.as_string()}.split({call.args[0].as_string()}, "
                    f"{call.keywords[0].value.as_string()})")
        self._report_habit(graph, call, found, call.as_string(), spelling)
        return True

    @staticmethod
    def _measured_habit(graph, values, call: nodes.Call) -> tuple:
        """(the refused habit, the falling-back habit) the table gives for ``call``'s shape, either None."""
        func, keywords = call.func, tuple(sorted(k.arg for k in call.keywords or ()))
        if isinstance(func, nodes.Attribute) and func.attrname == "transpose" and len(call.args) == 2 and not keywords:
            return None, None  # PyTorch's two-axis transpose: E5212 reports it (the divergence family)
        if isinstance(func, nodes.Attribute) and torch_habits.measured("tensor method", func.attrname) \
                and _tensor_receiver(values, func.expr):
            shape = torch_habits.CallShape("tensor method", func.attrname, len(call.args), keywords)
            constants = _constants(values, call.args)
            rank = ranks.rank_of(values, func.expr)
            found = torch_habits.habit(shape, constants, _argument_kinds(values, call.args), rank)
            for flag in _flag_keywords(values, call) if found is None else ():
                # (`keepdim=True`, `descending=True`: a flag selects no other kernel of the op)
                found = torch_habits.kernel_missing_without(shape, flag, constants)
                if found is not None:
                    break
            return found, torch_habits.falling_habit(shape, constants)
        container = _container_kind(values, func)
        if container and torch_habits.measured(container, func.attrname):
            # (a method of a list, dict, str or tuple: the table's refused forms of it; the others, its fallbacks
            # and differences, have rules of their own)
            shape = torch_habits.CallShape(container, func.attrname, len(call.args), ("**",) if keywords else ())
            return torch_habits.habit(shape), None
        if isinstance(func, nodes.Attribute) and values.value(func.expr).is_(CELL):
            if func.attrname in api.JIT_FORBIDDEN_CELL_METHODS:
                return None, None  # E6001 reports it
            key = f"Cell.{func.attrname}"
            return torch_habits.form_habit(key), torch_habits.form_habit(key, ("falls back",))
        if isinstance(func, nodes.Name) and func.name not in values.cfg.defs_by_name and \
                func.name not in graph.info.module.locals and not locally_bound(func, values):
            return torch_habits.habit(torch_habits.CallShape("builtin", func.name, len(call.args), keywords)), None
        qualified = None if locally_bound(func, values) else graph.info.imports.qualify(func)
        if qualified == "mindspore.dtype_to_nptype":
            return torch_habits.form_habit(torch_habits.DTYPE_TO_NPTYPE), None
        return _function_habit(values, call, qualified, keywords), None

    @staticmethod
    def _measured_call(graph, values, call: nodes.Call):
        """(the call's shape, its Tensor, its constant arguments, its literals) for a Tensor method or function the
        table has forms of; None for any other call."""
        func = call.func
        if any(isinstance(arg, nodes.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords or ()):
            return None
        keywords = tuple(sorted(k.arg for k in call.keywords or ()))
        if isinstance(func, nodes.Attribute) and not torch_habits.measured("tensor method", func.attrname) \
                and graph.info.imports.qualify(func) is None:
            return None  # (a method the table has no form of)
        if isinstance(func, nodes.Attribute) and _tensor_receiver(values, func.expr):
            shape = torch_habits.CallShape("tensor method", func.attrname, len(call.args), keywords)
            return shape, func.expr, _constants(values, call.args), None
        qualified = None if locally_bound(func, values) else graph.info.imports.qualify(func)
        if not qualified or not call.args or not torch_habits.measured("function", qualified):
            return None
        literals = torch_habits.literals_of([_constant(values, arg) for arg in call.args])
        return torch_habits.CallShape("function", qualified, len(call.args), keywords), call.args[0], None, literals

    def _differing_habit_call(self, graph, values, call: nodes.Call) -> None:
        """A PyTorch-style call whose every measured form at its Tensor's rank computes another result than
        PYNATIVE_MODE (E6012): ``t.argmax()`` on a matrix, ``t.add_(v)``."""
        described = self._measured_call(graph, values, call)
        if described is None:
            return
        shape, tensor, constants, literals = described
        kinds = _argument_kinds(values, call.args)
        rank = ranks.rank_of(values, tensor)
        found = torch_habits.differing_habit(shape, constants, kinds, rank, literals)
        if found is None:
            return
        if found.receiver_only and isinstance(tensor, nodes.Name) and not read_after(graph.node, call, tensor.name):
            return  # (`res.append(t.mul_(k))`: the result is PYNATIVE_MODE's, and `t` is not read again)
        edit = rules.TorchSpelling(found.keyword_renames, found.method_rename, function=found.function,
                                   receiver_first=found.receiver_first) \
            if found.keyword_renames or found.method_rename or found.function else None
        spelling = torch_habits.spelled(call.as_string(), found) if edit else found.spelling
        advice = (f"write `{spelling}`" if spelling else
                  "no MindSpore spelling was measured to give PYNATIVE_MODE's result at both levels")
        self.report(rules.TORCH_HABIT_DIFFERS, call, graph, payload=edit, call=call.as_string(),
                    rank=f"rank {rank}" if rank is not None else "any rank (the form passes no dim)",
                    difference=found.error, advice=advice)

    def _cell_dict_attribute(self, graph, values, node: nodes.Attribute) -> bool:
        """``self.parts.proj`` where ``__init__`` made ``self.parts`` an ``nn.CellDict``: measured refused."""
        owner = node.expr
        if not (isinstance(owner, nodes.Attribute) and isinstance(owner.expr, nodes.Name)
                and owner.expr.name == values.self_name and graph.cls is not None):
            return False
        if node.attrname in torch_habits.CELL_DICT_MEMBERS:
            return False
        for value, method in self.context.analysis.attribute_assignments(graph.cls).get(owner.attrname, ()):
            if method.name == "__init__" and isinstance(value, nodes.Call) and \
                    graph.info.imports.qualify(value.func) in torch_habits.CELL_DICT_CLASSES:
                found = torch_habits.form_habit(torch_habits.CELL_DICT_ATTRIBUTE)
                if found is not None:
                    spelling = f"{owner.as_string()}[{node.attrname!r}]"
                    self._report_habit(graph, node, found, node.as_string(), spelling,
                                       rules.TorchSpelling(entry=node.attrname))
                    return True
        return False

    def _report_habit(self, graph, node, found, shown: str, spelling: str = "", edit=None) -> None:
        """Report a refused habit with the measured spelling; an edit the fixer can make (a keyword or method
        renamed, an index for an attribute) travels as the payload."""
        if not spelling and found.spelling and (found.keyword_renames or found.method_rename or found.function):
            spelling = torch_habits.spelled(shown, found)
            edit = rules.TorchSpelling(found.keyword_renames, found.method_rename, function=found.function,
                                       receiver_first=found.receiver_first)
        if spelling:
            advice = f"write `{spelling}`"
        elif found.spelling:  # measured, but not an edit of this call the analysis can make (another function)
            advice = f"the measured MindSpore spelling of `{found.torch}` is `{found.spelling}`"
        else:
            advice = "no MindSpore spelling was measured to match; see docs/pytorch-habits.md"
        self.report(rules.TORCH_HABIT_REFUSED, node, graph, payload=edit, call=shown, what=found.what,
                    error=torch_habits.first_sentence(found.error), advice=advice)

    def _is_cell(self, graph, values, receiver, method: str) -> bool:
        """``receiver`` is this Cell (``self``, the method not overridden by the project) or a sub-Cell."""
        if isinstance(receiver, nodes.Name) and receiver.name == values.self_name and graph.cls is not None:
            if not self.context.project.is_cell(graph.cls):
                return False
            found = self.context.project.find_method(graph.cls, method)
            return found is None  # a method of the project's own overrides MindSpore's
        value = values.value(receiver)
        return value.is_(CELL)

    def _lambda_default(self, graph, values, call: nodes.Call) -> None:
        """``self.fn(...)`` where ``__init__`` stored a parameter whose default is a lambda."""
        func = call.func
        if not (isinstance(func.expr, nodes.Name) and func.expr.name == values.self_name and graph.cls is not None):
            return
        for value, method in self.context.analysis.attribute_assignments(graph.cls).get(func.attrname, ()):
            if method.name != "__init__" or not isinstance(value, nodes.Name):
                continue
            default = signatures.default_of(method, value.name)
            if isinstance(default, nodes.Lambda):
                self.report(rules.LAMBDA_DEFAULT_IN_GRAPH, call, graph, attr=func.attrname, parameter=value.name)
                return


def _in_for_body(node: nodes.NodeNG, function: nodes.NodeNG) -> bool:
    """``node`` is in the body of a `for` loop of ``function`` (not in a nested function or lambda)."""
    child, parent = node, node.parent
    while parent is not None and parent is not function:
        if isinstance(parent, (nodes.FunctionDef, nodes.Lambda)):
            return False
        if isinstance(parent, nodes.For) and child in parent.body:
            return True
        child, parent = parent, parent.parent
    return False



def _parameter_name(call: nodes.Call) -> str:
    for keyword in call.keywords or ():
        if keyword.arg == "name" and isinstance(keyword.value, nodes.Const) and isinstance(keyword.value.value, str):
            return keyword.value.value
    target = call.parent
    if isinstance(target, nodes.Assign) and len(target.targets) == 1 and isinstance(target.targets[0], nodes.AssignName):
        return target.targets[0].name
    return "weight"


def _tensor_receiver(values, receiver) -> bool:
    """A Tensor, or a value computed from one that the analysis knows as nothing else (``q`` of
    ``q, k, v = x.split(...)``), not an ndarray or a list made from a Tensor."""
    value = values.value(receiver)
    return value.is_tensor or (value.kinds <= {TENSOR, UNKNOWN} and values.from_tensor(receiver))


def _constants(values, args) -> tuple | None:
    """The values of the positional arguments where the analysis knows each as a constant, else None."""
    known = [values.value(arg) for arg in args]
    return tuple(value.const for value in known) if all(value.known for value in known) else None


def _flag_keywords(values, call: nodes.Call) -> list[str]:
    """The keywords of ``call`` given a bool constant (``keepdim=True``, ``descending=True``)."""
    return [keyword.arg for keyword in call.keywords or () if keyword.arg and
            isinstance(values.value(keyword.value).const, bool)]


def _constant(values, arg):
    """The argument's constant, where the analysis knows it (None otherwise)."""
    value = values.value(arg)
    return value.const if value.known else None


def _function_habit(values, call: nodes.Call, qualified: str | None, keywords: tuple):
    """The refused habit the table gives for a call of the function ``qualified`` (None: none, or no function)."""
    if not qualified or not torch_habits.measured("function", qualified):  # (most functions have no form measured)
        return None
    shape = torch_habits.CallShape("function", qualified, len(call.args), keywords)
    rank = ranks.rank_of(values, call.args[0]) if call.args else None
    literals = torch_habits.literals_of([_constant(values, arg) for arg in call.args])
    return torch_habits.habit(shape, None, _argument_kinds(values, call.args), rank, literals)


def _argument_kinds(values, args) -> tuple:
    """Each positional argument's kind as torch_habits.literal_kind tells forms apart (None: not known)."""
    kinds = []
    for arg in args:
        value = values.value(arg)
        if isinstance(arg, (nodes.List, nodes.Tuple)) or value.kinds and value.kinds <= {LIST, TUPLE}:
            kinds.append("sequence")
        elif value.kinds and value.kinds <= {INT, FLOAT}:
            kinds.append("number")
        else:
            kinds.append(None)
    return tuple(kinds)


def _shown(call: nodes.Call) -> str:
    text = call.func.as_string()
    return f"{text}(...)" if call.args or call.keywords else f"{text}()"


CHECKER = RefusedChecker


def _arguments_text(call: nodes.Call) -> str:
    return ", ".join(argument.as_string() for argument in list(call.args) + list(call.keywords or ()))


def _container_kind(values, func) -> str:
    """"dict" / "list" / "str" / "tuple" for a method called on a value of that one kind; "" otherwise."""
    if not isinstance(func, nodes.Attribute):
        return ""
    held = values.value(func.expr)
    return next((kind for kind in torch_habits.CONTAINER_KINDS if held.is_(kind)), "")
