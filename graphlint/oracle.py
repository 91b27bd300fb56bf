"""The IR oracle: graphlint's analysis measured against MindSpore's own type inference.

A program is compiled in GRAPH_MODE (default syntax level) in a child process with the type-inference IR dumped
(:mod:`graphlint.validate.ir_child`); :mod:`graphlint.validate.ir` reads it. The same source files are linted
in this process, and the two are joined by source span:

* **scope**: each function of the program's files that the compiler compiled, against graphlint's graph scope
  (recall), and each function graphlint checks under an entry the compiler compiled, against the compiled ones
  (precision);
* **values**: each expression the compiler kept as a node (in every call context it specialised), against the
  value graphlint gives it: kind, dtype and static shape for Tensors, length for sequences; and each scalar
  operand of an operator, subscript or call of the program's own functions, constant (a literal input) or
  run-time (a node), against graphlint's constant / run-time verdict.

Figures are agreement rates; each disagreement is kept with its class (what graphlint said against what the
compiler said) and a location, so the report reads like a type checker's completeness report.
"""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from astroid import nodes

from graphlint.analysis import callables, shape_algebra
from graphlint.validate import ir

KINDS_MEASURED = ("tensor", "int", "float", "bool", "str", "none", "tuple", "list", "dict")
# nodes the compiler makes for a call's arguments (`ops.concat((a, b), axis=1)` is UnpackCall(concat,
# MakeTuple((a, b)), {"axis": 1})), spanned like the call itself
ARGUMENT_PACKS = frozenset({"MakeTuple", "MakeList", "MakeDict", "make_dict"})
SCALAR_KINDS = ("int", "float", "bool", "str", "none")
PASSING_OPS = frozenset({"Return", "Depend", "StopGradient", "UpdateState", "Load"})
LIST_REBINDING_METHODS = frozenset({"append", "extend", "insert"})
DIMENSIONS = ("scope_recall", "scope_precision", "kind", "constant", "dtype", "shape", "length")


@dataclass
class Program:
    """``files``: the project's files the program is made of (linted together); ``job``: what the child runs
    (see :mod:`graphlint.validate.ir_child`), its ``path`` one of ``files``."""
    name: str
    files: list[str]
    job: dict


@dataclass
class Tally:
    agree: Counter = field(default_factory=Counter)
    total: Counter = field(default_factory=Counter)
    misses: dict = field(default_factory=lambda: defaultdict(list))  # (dimension, class) -> [location]
    compiled: int = 0
    failed: list = field(default_factory=list)  # (program, summary)

    def count(self, dimension: str, agrees: bool, what: str = "", where: str = "") -> None:
        self.total[dimension] += 1
        if agrees:
            self.agree[dimension] += 1
        else:
            self.misses[(dimension, what)].append(where)

    def rate(self, dimension: str) -> float | None:
        total = self.total[dimension]
        return self.agree[dimension] / total if total else None

    def figures(self) -> dict:
        return {d: {"agree": self.agree[d], "total": self.total[d],
                    "rate": None if self.rate(d) is None else round(self.rate(d), 4)} for d in DIMENSIONS}


# -- compiling ----------------------------------------------------------------------------------------------

def compile_programs(programs: list[Program], workdir: str, *, python: str | None = None,
                     per_program_timeout: float = 300.0) -> list[dict]:
    """Compile every program, its IR to ``workdir/<index>``: one child for all, a fresh one for the programs
    after one that crashed the process or made no progress for ``per_program_timeout`` seconds."""
    results: list[dict | None] = [None] * len(programs)
    env = dict(os.environ, MS_DEV_SAVE_GRAPHS="1", MS_DEV_DUMP_IR_PASSES="type_inference", GLOG_v="3")
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join([package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                                          if p])
    start = 0
    while start < len(programs):
        jobs = [dict(p.job, dump=os.path.join(workdir, str(i))) for i, p in enumerate(programs) if i >= start]
        job_path, result_path = os.path.join(workdir, "job.json"), os.path.join(workdir, "result.json")
        with open(job_path, "w", encoding="utf-8") as handle:
            json.dump({"programs": jobs}, handle)
        if os.path.exists(result_path):
            os.remove(result_path)
        done = _watch([python or sys.executable, "-m", "graphlint.validate.ir_child", job_path, result_path],
                      workdir, env, result_path, per_program_timeout)
        for offset, record in enumerate(done):
            results[start + offset] = record
        start += len(done)
        if start < len(programs):  # the child died in this program, or hung: record it, go on with the next
            results[start] = {"status": "crashed", "summary": "the compiling process ended or hung in this program"}
            start += 1
    return [r or {"status": "not-run"} for r in results]


def _watch(command: list[str], workdir: str, env: dict, result_path: str, per_program_timeout: float) -> list:
    """Run the child until it ends or makes no progress for ``per_program_timeout`` s; the records it wrote."""
    process = subprocess.Popen(command, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    done: list = []
    last_progress = time.monotonic()
    while process.poll() is None:
        time.sleep(0.5)
        found = _read_results(result_path)
        if len(found) > len(done):
            done, last_progress = found, time.monotonic()
        elif time.monotonic() - last_progress > per_program_timeout:
            try:
                os.killpg(process.pid, 9)
            except OSError:
                pass
            process.wait()
            break
    return _read_results(result_path) or done


def _read_results(path: str) -> list:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return []


def read_graphs(dump: str) -> list[ir.Graph]:
    graphs: list[ir.Graph] = []
    for path in sorted(glob.glob(os.path.join(dump, "**", "*type_inference*.ir"), recursive=True)):
        with open(path, encoding="utf-8", errors="replace") as handle:
            graphs.extend(ir.parse(handle.read()))
    return graphs


# -- joining ------------------------------------------------------------------------------------------------

class _Source:
    """One linted module: its functions by definition line and its expressions by span."""

    def __init__(self, info):
        self.info = info
        self.functions: dict[int, nodes.FunctionDef] = {}
        self.spans: dict[tuple, nodes.NodeNG] = {}
        for node in info.module.nodes_of_class((nodes.FunctionDef, nodes.NodeNG)):
            if isinstance(node, nodes.FunctionDef):
                self.functions.setdefault(node.lineno, node)
            if _is_expression(node) and node.end_lineno is not None:
                key = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
                self.spans.setdefault(key, node)  # outermost first: a parenthesised name keeps its expression


def _is_expression(node) -> bool:
    return isinstance(node, (nodes.BinOp, nodes.BoolOp, nodes.UnaryOp, nodes.Compare, nodes.Call, nodes.Subscript,
                             nodes.Attribute, nodes.Name, nodes.Tuple, nodes.List, nodes.Dict, nodes.IfExp,
                             nodes.Const))


def _function_of(node) -> nodes.FunctionDef | None:
    scope = node.scope()
    while scope is not None and not isinstance(scope, nodes.FunctionDef):
        parent = scope.parent
        scope = parent.scope() if parent is not None else None
    return scope


def _param_name(text: str) -> str:
    return re.sub(r"^para\d+_", "", text).replace("ф", "").lstrip("@")


class Joiner:
    """Joins one program's IR with graphlint's analysis of the same files (a fresh lint session)."""

    def __init__(self, files: list[str]):
        from graphlint.config import Config
        from graphlint.session import LintSession

        self.session = LintSession(Config())
        to_parse = self.session.read_files(files, [])
        self.session.parse_files(to_parse)
        self.session.lint()
        self.analysis = self.session.analysis
        self.sources: dict[str, _Source] = {}
        for info in self.session.project.modules:
            if info.path and os.path.abspath(info.path) in {os.path.abspath(f) for f in files}:
                self.sources[os.path.realpath(info.path)] = _Source(info)

    def source(self, path: str) -> _Source | None:
        return self.sources.get(os.path.realpath(path))

    def function_of_graph(self, graph: ir.Graph) -> nodes.FunctionDef | None:
        """The program's function a subgraph specialises: its span is that function's definition (a graph
        MindSpore makes for a call, ``UnpackCall``, carries the call's span instead)."""
        source = self.source(graph.span.path) if graph.span else None
        func = source.functions.get(graph.span.line) if source is not None else None
        return func if func is not None and func.col_offset == graph.span.col else None

    # scope
    def tally_scope(self, graphs: list[ir.Graph], tally: Tally) -> None:
        compiled: dict[int, nodes.FunctionDef] = {}
        for graph in graphs:
            func = self.function_of_graph(graph)
            if func is not None:
                compiled[id(func)] = func
        roots = set()
        for func in compiled.values():
            checked = self.analysis.graph_of(func)
            tally.count("scope_recall", checked is not None, "compiled, not graph code",
                        _where(func, func.qname()))
            if checked is not None:
                roots.add(id(checked.root.node))
        for source in self.sources.values():
            for graph in self.analysis.graph_functions(source.info):
                if id(graph.root.node) in roots:
                    tally.count("scope_precision", id(graph.node) in compiled, "graph code, not compiled",
                                _where(graph.node, graph.node.qname()))

    # values
    def tally_values(self, graphs: list[ir.Graph], tally: Tally) -> None:
        self._constants = ir.Constants(graphs)
        seen: set = set()  # an unrolled loop specialises one expression many times: each context counts once
        params_by_function = _parameters_by_function(graphs)
        weights = {name: ir.abstract(text) for g in graphs if g.name == ir.GRAPH_PARAMETERS
                   for name, text in g.parameters}
        for graph in graphs:
            if self.function_of_graph(graph) is None:
                continue  # a library graph (`_tensor_mul_scalar`, `UnpackCall`): its nodes carry the caller's span
            steps = _preparing_steps(graph)
            for node in graph.nodes:
                expr = self._expression_of(node, seen) if id(node) not in steps else None
                if expr is None:
                    continue
                func = _function_of(expr)
                checked = self.analysis.graph_of(func) if func is not None else None
                values = self.analysis.values(checked) if checked is not None else None
                params = {**weights, **_parameters_in(graph, func, node, params_by_function)}
                self._tally_node(node, expr, values, _Context(params, ir.instance_path(node.scope)), tally)

    def _expression_of(self, node: ir.Node, seen: set):
        """The project expression whose value ``node`` is, the first time its context is met; else None."""
        span = node.span
        source = self.source(span.path) if span is not None else None
        if source is None or not node.output:
            return None
        expr = source.spans.get((span.line, span.col, span.end_line, span.end_col))
        if expr is None:
            return None
        context = (span, node.output, tuple(node.input_abstracts),
                   tuple(t for t in node.inputs if ir.literal(t) is not None))
        if context in seen:
            return None
        seen.add(context)
        if isinstance(expr, nodes.Call) and node.op in ARGUMENT_PACKS:
            return None  # the positional arguments a call with keywords packs: they carry the call's span
        if isinstance(expr.parent, nodes.Call) and expr is expr.parent.func:
            if not node.op.startswith("@"):
                return None  # looking up a method: not a value of the program
            expr = expr.parent  # (a call of a compiled function carries the span of what it calls)
        return expr

    def _tally_node(self, node: ir.Node, expr, values, params: "_Context", tally: Tally) -> None:
        compiler = ir.abstract(node.output)
        where = _where(expr, expr.as_string()[:60])
        if compiler.kind not in KINDS_MEASURED:
            return
        if compiler.kind == "list" and isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Attribute) \
                and expr.func.attrname in LIST_REBINDING_METHODS:
            return  # (`terms.append(v)`: the compiler's node is the new list the name is rebound to, not a value)
        value = values.value(expr) if values is not None else None
        said = self._kind_in_compiler_terms(_kind_said(value), compiler.kind, expr, values)
        tally.count("kind", said == compiler.kind, f"{said} for {compiler.kind}", where)
        if compiler.kind == "tensor":
            self._tally_tensor(compiler, expr, values, params, tally, where)
        elif compiler.kind in SCALAR_KINDS:
            truth = "constant" if self._constants.is_constant(node) else "run-time"
            said = _constancy(value)
            tally.count("constant", said == truth, f"{said} for {truth} {compiler.kind}", where)
        if compiler.kind in ("tuple", "list") and compiler.length is not None:
            length = len(value.items) if value is not None and value.items is not None else None
            tally.count("length", length == compiler.length, f"{_text(length)} for {compiler.kind} length", where)
        self._tally_operands(node, expr, values, tally)

    def _kind_in_compiler_terms(self, said: str, compiler: str, expr, values) -> str:
        if said == "cell" and compiler == "tuple" and self._cell_sequence(expr, values):
            return "tuple"  # (the compiler holds an nn.CellList / SequentialCell as the tuple of its Cells)
        if said == "range" and compiler == "tuple":
            return "tuple"  # (the compiler makes a range the tuple of its ints)
        return said

    @staticmethod
    def _tally_tensor(compiler, expr, values, params: "_Context", tally: Tally, where: str) -> None:
        from graphlint.analysis.rewrite_facts import tensor_facts

        facts = tensor_facts(values) if values is not None else None
        dtype = _resolve(facts.dtype(expr), params, "dtype") if facts is not None else None
        form = type(expr).__name__
        tally.count("dtype", dtype == compiler.dtype, f"{_text(dtype)} for {compiler.dtype} ({form})", where)
        if compiler.shape is not None and None not in compiler.shape:
            shape = _shape(facts.shape_fact(expr), params) if facts is not None else None
            tally.count("shape", shape == compiler.shape, f"{_text(shape)} for a static shape ({form})", where)

    def _tally_operands(self, node: ir.Node, expr, values, tally: Tally) -> None:
        """Constant or run-time, for each scalar input of ``node`` whose operand in the source is sure."""
        for operand, text, abstract_text in self._operands(node, expr):
            constant = ir.literal(text)
            kind = constant[0] if constant else ir.abstract(abstract_text).kind
            if kind not in SCALAR_KINDS:
                continue
            operand_value = values.value(operand) if values is not None else None
            said = _constancy(operand_value)
            truth = "constant" if self._constants.input_is_constant(node.graph, text) else "run-time"
            tally.count("constant", said == truth, f"{said} for {truth} {kind}",
                        _where(operand, operand.as_string()[:60]))

    def _cell_sequence(self, expr, values) -> bool:
        """``expr`` holds an ``nn.CellList`` or ``nn.SequentialCell`` and nothing else."""
        made = callables.instances_made(self.analysis.project, values.info, expr, values.cls)
        return bool(made) and made <= {"mindspore.nn.CellList", "mindspore.nn.SequentialCell"}

    @staticmethod
    def _operands(node: ir.Node, expr) -> list[tuple]:
        """The AST operand of each input of ``node``, where the correspondence is positional and sure."""
        inputs, abstracts = node.inputs, node.input_abstracts
        if len(inputs) != len(abstracts):
            return []
        if isinstance(expr, nodes.BinOp) and len(inputs) == 2:
            operands = [expr.left, expr.right]
        elif isinstance(expr, nodes.Compare) and len(expr.ops) == 1 and len(inputs) == 2:
            operands = [expr.left, expr.ops[0][1]]
        elif isinstance(expr, nodes.Subscript) and len(inputs) == 2 and not isinstance(expr.slice, nodes.Slice):
            operands = [expr.value, expr.slice]
        elif isinstance(expr, nodes.Call) and node.op.startswith("@") and not expr.keywords \
                and not any(isinstance(a, nodes.Starred) for a in expr.args) and len(inputs) == len(expr.args):
            operands = list(expr.args)
        else:
            return []
        return list(zip(operands, inputs, abstracts))


class _Context(dict):
    """The compiler's context of a node: the abstracts of the function's parameters and of the graph's Parameters
    by name, and the path of the Cell instance it runs in (``layer4.1``: its ``self.conv1.weight`` is
    ``layer4.1.conv1.weight``)."""

    def __init__(self, params: dict, instance: str):
        super().__init__(params)
        self.instance = instance


def _parameters_by_function(graphs: list[ir.Graph]) -> dict:
    """``(path, line) -> [(name, abstract)]``: the parameters of each compiled function's first own graph (not a
    loop's or a branch's graph made from it, whose parameters are the names a loop carries); and
    ``(path, line, instance)``: those of its own graph for each Cell instance it is compiled for (a branch's
    graph of ``feature.5.8``'s ``construct`` reads that instance's parameters, not the first instance's)."""
    found: dict[tuple, list] = {}
    for graph in graphs:
        if graph.span is not None and _is_function_graph(graph):
            found.setdefault((graph.span.path, graph.span.line), graph.parameters)
            instance = _instance_of(graph)
            if instance is not None:
                found.setdefault((graph.span.path, graph.span.line, instance), graph.parameters)
    return found


def _instance_of(graph: ir.Graph) -> str | None:
    """The Cell instance a graph's nodes run in, where they say one."""
    paths = {ir.instance_path(node.scope) for node in graph.nodes if node.scope}
    return paths.pop() if len(paths) == 1 else None


def _is_function_graph(graph: ir.Graph) -> bool:
    """A function's own graph (``12_net_construct_34``), not one MindSpore makes of its loops and branches
    (``12_↵net_construct_34``, ``13_✓net_construct_35``)."""
    return re.match(r"\d+_[A-Za-z_]", graph.name) is not None


def _named_parameters(func, parameters: list) -> dict:
    """The function's parameters by its own names. The IR names a parameter after the variable the parser bound
    it to (``def construct(self, init_features): features = init_features`` gives ``features``), so they are
    matched by position where the IR has one per positional parameter (``self`` is a constant, not one of them),
    else by name."""
    arguments = func.args
    names = [a.name for a in (arguments.posonlyargs or []) + (arguments.args or [])]
    if names and func.is_method() and not func.type == "staticmethod":
        names = names[1:]
    abstracts = [ir.abstract(text) for _, text in parameters]
    if len(names) == len(parameters) and not arguments.vararg and not arguments.kwarg and not arguments.kwonlyargs:
        return dict(zip(names, abstracts))
    return {_param_name(name): abstract for (name, text), abstract in zip(parameters, abstracts) if text}


def _preparing_steps(graph: ir.Graph) -> set[int]:
    """The nodes that prepare another node's inputs under the same source span: a library call normalising a call's
    arguments (``_normalize_int_sequence`` of ``x.reshape(2, 1, 3)``'s shape), a pack of them. They carry the
    expression's span but are not its value."""
    by_index = {node.index: node for node in graph.nodes if node.index is not None}
    steps = set()
    for node in graph.nodes:
        if node.op in PASSING_OPS:
            continue  # (`return total + p`: the return carries its value's span; so does a Depend on it)
        for text in node.inputs:
            found = re.fullmatch(r"%(\d+)", text.strip())
            producer = by_index.get(int(found.group(1))) if found else None
            if producer is not None and producer.span == node.span and \
                    (producer.op.startswith("@") and "_normalize_" in producer.op or producer.op in ARGUMENT_PACKS):
                steps.add(id(producer))
    return steps


def _parameters_in(graph: ir.Graph, func, node: ir.Node, params_by_function: dict) -> dict:
    """The abstracts of ``func``'s parameters where ``graph`` computes ``node``: those of the function's own graph
    for the Cell instance the node runs in (else its first specialisation), overridden by those of ``graph`` when
    it is a specialisation of ``func`` itself (`construct` called on float32 and on float16)."""
    if func is None:
        return {}
    span = node.span
    instance = ir.instance_path(node.scope) if node.scope else _instance_of(graph)
    own = _named_parameters(func, params_by_function.get((span.path, func.lineno, instance)) or
                            params_by_function.get((span.path, func.lineno), []))
    if graph.span.path == span.path and graph.span.line == func.lineno and _is_function_graph(graph):
        own = {**own, **_named_parameters(func, graph.parameters)}
    return own


def _constancy(value) -> str:
    """graphlint's verdict: run-time (a variable), constant (a known value, or a Python scalar that is not a
    variable: decided while compiling), or unknown."""
    if value is None:
        return "unknown"
    if value.var:
        return "run-time"
    if value.known or (value.kinds and value.kinds <= set(SCALAR_KINDS)):
        return "constant"
    return "unknown"


def _kind_said(value) -> str:
    if value is None:
        return "unscoped"
    if len(value.kinds) == 1:
        return next(iter(value.kinds))
    return "unknown" if not value.kinds else "/".join(sorted(value.kinds))


def _resolve(fact, params: dict, what: str):
    """graphlint's dtype, its relative facts (the dtype of a parameter or an attribute, the floating dtype of ...,
    a promotion, either of two) resolved in the compiler's context: the abstracts of
    the function's parameters and of the graph's Parameters (``params``, by name)."""
    if fact is None or isinstance(fact, str):
        return fact
    if not isinstance(fact, tuple) or not fact:
        return None
    if fact == ("0d",):
        return ()
    if fact[0] == "float" and len(fact) == 2:
        inner = _resolve(fact[1], params, what)
        return None if inner is None else inner if inner.startswith(("float", "bfloat")) else "float32"
    if fact[0] == "either" and what == "dtype":
        found = {_resolve(f, params, what) for f in fact[1:]}
        return found.pop() if len(found) == 1 else None
    if fact[0] == "promote" and what == "dtype":
        return _promotion(fact[1:], params)
    if fact[0] in ("of", "like") and len(fact) == 2 and isinstance(fact[1], tuple) and len(fact[1]) == 2:
        return _root(fact[1], params, what)
    return None


def _shape(fact, params: dict):
    """graphlint's shape fact computed in the compiler's context (:func:`shape_algebra.evaluate`), its roots
    the abstracts of the function's parameters and of the graph's Parameters."""
    def root(like):
        found = like[1] if len(like) == 2 else None
        return _root(found, params, "shape") if isinstance(found, tuple) and len(found) == 2 else None

    return shape_algebra.evaluate(fact, root)


def _promotion(operands, params: dict):
    from graphlint.analysis.rewrite_facts import promoted

    found = None
    for operand in operands:
        operand = _resolve(operand, params, "dtype")
        found = operand if found is None or operand is None else promoted(found, operand)
        if found is None:
            return None
    return found


def _root(root: tuple, params: dict, what: str):
    """The dtype or shape of a parameter (``("param", name)``) or a Parameter attribute (``("attr", "self.w")``)."""
    source, name = root
    found = set()
    if source == "param":
        found = {params[name]} if name in params else set()
    elif source == "attr" and isinstance(name, str) and name.startswith("self."):
        # (the graph's Parameters by their full names: `self.gamma_` of each block, one name per block; the
        # instance's own where the node's scope names it)
        attribute = name[len("self."):]
        instance = getattr(params, "instance", "")
        own = f"{instance}.{attribute}" if instance else attribute
        found = {params[own]} if own in params else \
            {a for n, a in params.items() if n == attribute or n.endswith("." + attribute)}
    if not found or any(a.kind != "tensor" for a in found):
        return None
    # one answer when every candidate agrees on what is asked (blocks' `gamma_` differ in shape, not dtype)
    answers = {a.dtype if what == "dtype" else a.shape for a in found}
    return answers.pop() if len(answers) == 1 else None


def _text(fact) -> str:
    return "nothing" if fact is None else str(fact)


def _where(node, text: str) -> str:
    return f"{os.path.basename(node.root().file or '?')}:{node.lineno}:{node.col_offset} {text}"


# -- the whole measurement ----------------------------------------------------------------------------------

def measure(programs: list[Program], *, python: str | None = None, log=None, keep: str | None = None) -> Tally:
    """Compile, read and join every program; the tally over all of them. ``keep``: a folder for the IR that
    outlives the call; a later call with the same folder and programs joins it again without compiling (the IR
    depends on the programs only, not on graphlint)."""
    if keep is not None:
        os.makedirs(keep, exist_ok=True)
        return _measure_in(programs, keep, python, log)
    with tempfile.TemporaryDirectory(prefix="graphlint-oracle-") as workdir:
        return _measure_in(programs, workdir, python, log)


def _measure_in(programs: list[Program], workdir: str, python: str | None, log) -> Tally:
    tally = Tally()
    statuses_path = os.path.join(workdir, "statuses.json")
    names = [p.name for p in programs]
    statuses = None
    if os.path.exists(statuses_path):
        with open(statuses_path, encoding="utf-8") as handle:
            kept = json.load(handle)
        statuses = kept["statuses"] if kept.get("programs") == names else None
    if statuses is None:
        started = time.perf_counter()
        statuses = compile_programs(programs, workdir, python=python)
        with open(statuses_path, "w", encoding="utf-8") as handle:
            json.dump({"programs": names, "statuses": statuses}, handle)
        if log:
            log(f"compiled {len(programs)} programs in {time.perf_counter() - started:.0f} s")
    joiners: dict[tuple, Joiner] = {}
    for index, (program, status) in enumerate(zip(programs, statuses)):
        if status.get("status") != "ok":
            tally.failed.append((program.name, status.get("summary", status.get("status"))))
            continue
        graphs = read_graphs(os.path.join(workdir, str(index)))
        if not graphs:
            tally.failed.append((program.name, "no type-inference IR was written"))
            continue
        tally.compiled += 1
        key = tuple(program.files)
        joiner = joiners.get(key)
        if joiner is None:
            joiner = joiners[key] = Joiner(program.files)
        joiner.tally_scope(graphs, tally)
        joiner.tally_values(graphs, tally)
    return tally


def report(tally: Tally, most: int = 12) -> str:
    lines = [f"programs compiled and joined: {tally.compiled}; not compiled: {len(tally.failed)}"]
    for dimension in DIMENSIONS:
        rate = tally.rate(dimension)
        shown = "n/a" if rate is None else f"{rate:.3f}"
        lines.append(f"  {dimension:16} {shown} ({tally.agree[dimension]}/{tally.total[dimension]})")
    classes = sorted(tally.misses.items(), key=lambda item: -len(item[1]))
    if classes:
        lines.append("disagreements by class (most first):")
        for (dimension, what), where in classes[:most]:
            lines.append(f"  {len(where):5}  {dimension}: {what}   e.g. {where[0]}")
    return "\n".join(lines)
