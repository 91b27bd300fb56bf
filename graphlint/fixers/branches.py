"""Tensor `if`s, early returns and conditional expressions -> `ops.where` (the select form).

MindSpore has no functional cond op (`mindspore.ops.cond` is a matrix norm): the graph-friendly form of a small
Tensor `if` computes both sides and selects element-wise, as TensorFlow AutoGraph's converters do with
`tf.where` for element-wise conditions. Measured with MindSpore 2.10 CPU on small inputs: `ops.where` ran at
about 0.21 ms per call against 8-20 ms for a Tensor `if` (a control-flow subgraph).

Three shapes of code are lowered (after AutoGraph's if_exp and return_statements converters):

* a Tensor `if` (or `if/elif` chain) whose branches only assign names -> `name = ops.where(cond, a, b)` for each
  name, the branches' statements first, each into names of its own where they would clash;
* a Tensor `if` whose branches end in `return` (early returns; the code after the `if` is the other path) ->
  one `return ops.where(cond, a, b)` (tuples element by element);
* a Tensor conditional expression `a if cond else b` -> `ops.where(cond, a, b)`.

Each merge is asked of :mod:`graphlint.analysis.rewrite_facts`: both values must be Tensors of the same dtype and
shape (`ops.where` promotes and broadcasts), or the rewrite is refused with the reason. Safety is per
instance: *safe* where the dtypes and shapes are proven equal, the condition is 0-d and every value computed on
a path that did not run is total (no division by a Tensor, `exp`, `log`, `sqrt`, sub-Cell ...: the unselected
value still flows into gradients, and `ops.where(c, ops.sqrt(x), 0)` differentiates to NaN); *unsafe*
otherwise, with what it rests on in the description.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from astroid import nodes

from graphlint.analysis.rewrite_facts import Side, tensor_facts
from graphlint.catalogue import branches as branches_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer, Refusal, unused_name


@dataclass
class _Path:
    """One way through the `if`: its `name = value` statements (astroid) and, if it returns, the value."""

    statements: list = field(default_factory=list)
    returns: bool = False
    result: nodes.NodeNG | None = None
    source: str = "branch"  # "branch" (inside the `if`) or "rest" (the code after it)
    return_node: nodes.Return | None = None

    @property
    def assigned(self) -> list[str]:
        return list(dict.fromkeys(s.targets[0].name for s in self.statements))


class _Notes:
    """What one rewrite rests on: assumptions, costs and partial operations (any makes it unsafe)."""

    def __init__(self):
        self.assumptions: list[str] = []
        self.costs: list[str] = []
        self.partial: list[str] = []

    def add(self, kind: str, text: str) -> None:
        target = getattr(self, kind)
        if text and text not in target:
            target.append(text)

    @property
    def safe(self) -> bool:
        return not (self.assumptions or self.costs or self.partial)

    def text(self) -> str:
        parts = []
        if self.assumptions:
            parts.append("assumes " + "; ".join(self.assumptions))
        if self.costs:
            parts.append("now also runs " + ", ".join(f"`{c}`" for c in self.costs))
        if self.partial:
            parts.append("computes on the path not taken " + ", ".join(f"`{p}`" for p in self.partial[:2])
                         + " (inf/NaN there still reach gradients)")
        return "; ".join(parts)


class TensorIfToWhere(Fixer):
    rules = (branches_rules.TENSOR_CONDITION_CONTROL_FLOW,)
    safety = FixSafety.UNSAFE
    description = "Tensor `if` (or `if/elif` chain, or early `return`) -> `ops.where(cond, then, else)`"

    def plan(self, finding, context):
        statement = finding.node
        if not isinstance(statement, nodes.If):
            return None  # a `while` or a conditional expression: other fixers' business
        node = context.find(statement)
        if not isinstance(node, cst.If):
            return self.refuse(finding, "the `if` was not found")
        if isinstance(context.parent(node), cst.If):
            return None  # an `elif`: rewritten (or refused) with the `if` that starts its chain
        values = context.values_of(finding)
        if values is None:
            return self.refuse(finding, "the function could not be analysed")
        facts = tensor_facts(values)
        notes = _Notes()
        chain = _chain(statement, node)
        tensor_tests = {id(f.node) for f in context.findings if f.rule is finding.rule}
        for link, _ in chain[1:]:
            if id(link) not in tensor_tests:
                return self.refuse(finding, f"`elif {link.test.as_string()}` is decided while compiling: "
                                            "`ops.where` needs a Tensor condition")
            problem = _effects(facts, link.test, notes)
            if problem:
                return self.refuse(finding, f"{problem} (every `elif` condition would be evaluated)")
        for link, _ in chain:
            problem = facts.condition_problem(link.test)
            if problem:
                return self.refuse(finding, problem)
            if not facts.condition_is_scalar(link.test):
                notes.add("assumptions", f"`{_short(link.test)}` is a 0-d Tensor")
        paths = [_path(link.body) for link, _ in chain]
        last = chain[-1][0]
        paths.append(_path(last.orelse))
        for path in paths:
            if isinstance(path, str):
                loop = _loop_exit(statement)
                if loop is not None:
                    waits = any(f.node is loop for f in context.findings if f.rule.family == "loops")
                    return self.refuse(finding, f"{path}: the loop's own rewrite lowers it to a flag"
                                       if waits else path)
                return self.refuse(finding, path)
        if any(path.returns for path in paths):
            return self._returns(finding, context, values, facts, notes, statement, node, chain, paths)
        return self._assigns(finding, context, values, facts, notes, statement, node, chain, paths)

    # -- branches that only assign --------------------------------------------------------------------
    def _assigns(self, finding, context, values, facts, notes, statement, node, chain, paths):
        names = list(dict.fromkeys(name for path in paths for name in path.assigned))
        if not names:
            return self.refuse(finding, "the branches assign nothing")
        selected = _merged_names(values, facts, notes, statement, paths, names)
        if isinstance(selected, str):
            return self.refuse(finding, selected)
        ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
        statements = _selecting_assignments(context, facts, ops, statement, chain, paths, names, selected)
        _place_comments(context, node, statements)
        tests = [context.code(link_node.test).strip() for _, link_node in chain]
        keyword = "`if`" if len(chain) == 1 else f"`if/elif` chain ({len(chain)} conditions)"
        description = f"{keyword} `{_one_line(tests[0])}` -> `ops.where` for {', '.join(f'`{n}`' for n in selected)}"
        return self._edit(finding, [(node, cst.FlattenSentinel(statements))], ops_import, description, notes)

    # -- branches that return -------------------------------------------------------------------------
    def _returns(self, finding, context, values, facts, notes, statement, node, chain, paths):
        shape = _return_shape(finding, context, statement, paths)
        if isinstance(shape, str):
            return self.refuse(finding, shape)
        rest_statements, rest, full = shape
        width = _merged_returns_problem(facts, notes, full)
        if isinstance(width, str):
            return self.refuse(finding, width)
        ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
        replacements = _one_return(context, facts, ops, statement, node, chain, paths, full, width, rest,
                                   rest_statements)
        if isinstance(replacements, str):
            return self.refuse(finding, replacements)
        keyword = "`if`" if len(chain) == 1 else f"`if/elif` chain ({len(chain)} conditions)"
        description = (f"{keyword} `{_one_line(context.code(chain[0][1].test).strip())}` with an early `return` -> "
                       "one `return ops.where(...)`")
        return self._edit(finding, replacements, ops_import, description, notes)

    def _edit(self, finding, replacements, ops_import, description, notes):
        if notes.safe:
            return self.edit(finding, replacements, imports=[ops_import] if ops_import else [],
                             description=description + " (proven: same dtypes and shapes, total operations)",
                             safety=FixSafety.SAFE)
        return self.edit(finding, replacements, imports=[ops_import] if ops_import else [],
                         description=f"{description}; {notes.text()}")


class TensorIfExpToWhere(Fixer):
    """`a if cond else b` on a Tensor condition -> `ops.where(cond, a, b)` (AutoGraph's if_exp converter)."""

    rules = (branches_rules.TENSOR_CONDITION_CONTROL_FLOW,)
    safety = FixSafety.UNSAFE
    description = "Tensor conditional expression `a if cond else b` -> `ops.where(cond, a, b)`"

    def plan(self, finding, context):
        expr = finding.node
        if not isinstance(expr, nodes.IfExp):
            return None
        node = context.find(expr)
        if not isinstance(node, cst.IfExp):
            return self.refuse(finding, "the conditional expression was not found")
        values = context.values_of(finding)
        if values is None:
            return self.refuse(finding, "the function could not be analysed")
        facts = tensor_facts(values)
        notes = _Notes()
        for part in (expr.body, expr.orelse):
            problem = _effects(facts, part, notes)
            if problem:
                return self.refuse(finding, f"{problem}; both sides would run")
            _partial(facts, part, notes)
        verdict = facts.merge([Side(expr=expr.body), Side(expr=expr.orelse)],
                              returned=isinstance(expr.parent, nodes.Return))
        if not verdict.ok:
            return self.refuse(finding, verdict.problem)
        for assumption in verdict.assumptions:
            notes.add("assumptions", assumption)
        problem = facts.condition_problem(expr.test)
        if problem:
            return self.refuse(finding, problem)
        if not facts.condition_is_scalar(expr.test):
            notes.add("assumptions", f"`{_short(expr.test)}` is a 0-d Tensor")
        ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
        replacement = build.call(build.dotted(ops + ".where"), tensor_condition(context, facts, expr.test, ops),
                                 _cst_value(context, expr.body), _cst_value(context, expr.orelse))
        description = f"`... if {_short(expr.test)} else ...` -> `ops.where(...)`"
        return TensorIfToWhere._edit(self, finding, [(node, replacement)], ops_import, description, notes)


def _merged_names(values, facts, notes: _Notes, statement: nodes.If, paths: list, names: list):
    """The precondition of an `if` whose branches only assign: the names whose values `ops.where` selects (those
    read after the `if`, or assigned on every path), or the reason the branches cannot both run and merge."""
    element = values.cfg.element_of(statement.test)
    for path in paths:
        for assign in path.statements:
            problem = _effects(facts, assign.value, notes)
            if problem:
                return f"{problem}; both branches would run"
            _partial(facts, assign.value, notes)
    region = values.cfg.ifs.get(id(statement))
    live = values.cfg.live_in(region.join) if region is not None and region.join is not None else None
    selected = [n for n in names if live is None or n in live or all(n in p.assigned for p in paths)]
    for name in selected:
        if not all(name in path.assigned for path in paths) and values.cfg.may_be_undefined(element, name):
            return f"`{name}` is assigned in some branches only and has no value before the `if`"
    for name in selected:
        sides = [Side(expr=_final_value(path, name)) if name in path.assigned else
                 Side(name=name, element=element) for path in paths]
        verdict = facts.merge(sides)
        if not verdict.ok:
            return f"`{name}`: {verdict.problem}"
        for assumption in verdict.assumptions:
            notes.add("assumptions", assumption)
    return selected


def _selecting_assignments(context, facts, ops: str, statement, chain, paths, names, selected) -> list:
    """The libcst statements that replace the `if`: each condition (evaluated once, before any name it reads
    is reassigned, when that matters), each path's values (into names of their own unless every path is one
    assignment per name), then `name = ops.where(cond, then, else)` for each selected name."""
    where = build.dotted(ops + ".where")
    taken = set(statement.scope().locals)
    test_nodes = [tensor_condition(context, facts, link.test, ops) for link, _ in chain]
    statements: list[cst.BaseStatement] = []
    reads = {n.name for link, _ in chain for n in _names(link.test)}
    compact = _compact(paths, selected)
    if len(chain) > 1 or len(selected) > 1 or reads & set(names) or not compact:
        for index, test in enumerate(test_nodes):
            fresh = unused_name("take_then" if len(chain) == 1 else f"take_branch{index + 1}", taken)
            taken.add(fresh)
            statements.append(build.assign(fresh, test))
            test_nodes[index] = build.name(fresh)
    if compact:
        values_of = [{s.targets[0].name: _cst_value(context, s.value) for s in path.statements} for path in paths]
    else:
        values_of = []
        for index, path in enumerate(paths):
            label = _label(index, len(paths))
            renamed: dict[str, str] = {}
            for assign in path.statements:
                value = build.rename(_cst_value(context, assign.value), renamed)
                target = assign.targets[0].name
                fresh = unused_name(f"{target}_{label}", taken)
                taken.add(fresh)
                renamed[target] = fresh
                statements.append(build.assign(fresh, value))
            values_of.append({name: build.name(fresh) for name, fresh in renamed.items()})
    for name in selected:
        chosen = values_of[-1].get(name) or build.name(name)
        for test, branch in reversed(list(zip(test_nodes, values_of[:-1]))):
            chosen = build.call(where, test, branch.get(name) or build.name(name), chosen)
        statements.append(build.assign(name, chosen))
    return statements


def _return_shape(finding, context, statement: nodes.If, paths: list):
    """The precondition of an `if` with an early `return`: ``(the statements after the `if`, the path they make
    (or None), every path through the function to its return)``, or the reason it cannot become one return."""
    function = statement.scope()
    loop = _loop_exit(statement)
    if loop is not None and any(f.node is loop for f in context.findings if f.rule.family == "loops"):
        return "an early `return` in a loop: the loop's own rewrite lowers it to a flag"
    if statement.parent is not function or not isinstance(function, nodes.FunctionDef):
        return "an early `return` is rewritten only in an `if` at the top level of the function body"
    body = function.body
    rest_statements = body[body.index(statement) + 1:]
    rest = None
    if any(not path.returns for path in paths):
        rest = _path(rest_statements)
        if isinstance(rest, str):
            later_if = next((s for s in rest_statements if isinstance(s, nodes.If)), None)
            if later_if is not None and any(f.node is later_if for f in context.findings
                                            if f.rule is finding.rule):
                return f"the code after the `if` holds another Tensor `if`; {rest}"
            return f"the code after the `if` cannot be merged into one return: {rest}"
        if not rest.returns:
            return "a path falls off the end of the function (it returns None)"
        rest.source = "rest"
    elif rest_statements:
        return "unreachable code follows the `if`"
    # Every path ends in a return: the fall-through ones continue with the code after the `if`.
    full = [path if path.returns else
            _Path(path.statements + rest.statements, True, rest.result, "rest", rest.return_node) for path in paths]
    if any(path.result is None for path in full):
        return "a path returns None (`return` without a value)"
    return rest_statements, rest, full


def _merged_returns_problem(facts, notes: _Notes, full: list):
    """Whether every path may run and their returned values merge: the width of the returned tuples (None for
    one value), or the reason they cannot."""
    for path in full:
        for assign in path.statements:
            problem = _effects(facts, assign.value, notes)
            if problem:
                return f"{problem}; every path would run"
            _partial(facts, assign.value, notes)
        problem = _effects(facts, path.result, notes)
        if problem:
            return f"{problem}; every path would run"
        _partial(facts, path.result, notes)
    results = [path.result for path in full]
    width = _tuple_width(results)
    columns = [[r.elts[i] for r in results] for i in range(width)] if width else [results]
    for column in columns:
        verdict = facts.merge([Side(expr=r) for r in column], returned=True)
        if not verdict.ok:
            return f"the returned values: {verdict.problem}"
        for assumption in verdict.assumptions:
            notes.add("assumptions", assumption)
    return width


def _one_return(context, facts, ops: str, statement, node, chain, paths, full, width, rest, rest_statements):
    """The libcst edits that make the paths one `return ops.where(...)`, or the reason a node was not found.

    One path keeps its statements as written (the code after the `if` stays in place); the others are computed
    first, into names of their own, so that no path sees another's assignments."""
    taken = set(statement.scope().locals)
    keep = max((i for i, p in enumerate(full) if p.source == "rest"), default=len(full) - 1)
    kept = full[keep]
    statements: list[cst.BaseStatement] = []
    test_nodes = _evaluated_tests(context, facts, ops, chain, set(kept.assigned), width, taken, statements)
    chosen = _path_results(context, full, keep, set(kept.assigned), taken, statements)
    new_return = build.returns(_where_of(build.dotted(ops + ".where"), test_nodes, chosen, width))
    own = paths[keep] if keep < len(paths) else None  # the kept path's statements inside the `if`
    for assign in own.statements if own is not None else ():
        found = context.statement_line(context.find(assign))
        if found is None:
            return "a statement of a branch was not found"
        statements.append(found)
    if kept.source == "rest":
        return _return_kept_after(context, node, statements, new_return, kept, rest_statements)
    statements.append(new_return)
    _place_comments(context, node, statements)
    replacements = [(node, cst.FlattenSentinel(statements))]
    if rest is not None:  # the code after the `if` was copied into the paths that fell through
        for later in rest_statements:
            found = context.statement_line(context.find(later))
            if found is None:
                return "a statement after the `if` was not found"
            replacements.append((found, cst.RemovalSentinel.REMOVE))
    return replacements


def _evaluated_tests(context, facts, ops, chain, kept_assigned: set, width, taken: set, statements: list) -> list:
    """The conditions as `ops.where` takes them; one that the kept path reassigns a name of (or any but a name,
    when a tuple is merged element by element) is evaluated first into a name of its own."""
    test_nodes = [tensor_condition(context, facts, link.test, ops) for link, _ in chain]
    for index, (link, _) in enumerate(chain):
        if {n.name for n in _names(link.test)} & kept_assigned or (width and not isinstance(link.test, nodes.Name)):
            fresh = unused_name("take_then" if len(chain) == 1 else f"take_branch{index + 1}", taken)
            taken.add(fresh)
            statements.append(build.assign(fresh, test_nodes[index]))
            test_nodes[index] = build.name(fresh)
    return test_nodes


def _path_results(context, full: list, keep: int, kept_assigned: set, taken: set, statements: list) -> list:
    """What each path returns; the statements of all but the kept one go, renamed, into ``statements``."""
    chosen: list[cst.BaseExpression] = []
    for index, path in enumerate(full):
        if index == keep:
            chosen.append(_cst_value(context, path.result))
            continue
        label = _label(index, len(full))
        renamed: dict[str, str] = {}
        for assign in path.statements:
            value = build.rename(_cst_value(context, assign.value), renamed)
            target = assign.targets[0].name
            fresh = unused_name(f"{target}_{label}", taken)
            taken.add(fresh)
            renamed[target] = fresh
            statements.append(build.assign(fresh, value))
        result = build.rename(_cst_value(context, path.result), renamed)
        if ({n.name for n in _names(path.result)} - set(renamed)) & kept_assigned:
            fresh = unused_name(f"result_{label}", taken)  # read before the kept path reassigns it
            taken.add(fresh)
            statements.append(build.assign(fresh, result))
            result = build.name(fresh)
        chosen.append(result)
    return chosen


def _where_of(where, test_nodes: list, chosen: list, width) -> cst.BaseExpression:
    """`where(test1, result1, where(test2, result2, ... last))`, element by element for tuples of ``width``."""
    if width:
        elements = []
        for i in range(width):
            merged_element = _element(chosen[-1], i)
            for test, result in reversed(list(zip(test_nodes, chosen[:-1]))):
                merged_element = build.call(where, test, _element(result, i), merged_element)
            elements.append(merged_element)
        return build.tuple_of(elements, bare=True)
    merged = chosen[-1]
    for test, result in reversed(list(zip(test_nodes, chosen[:-1]))):
        merged = build.call(where, test, result, merged)
    return merged


def _return_kept_after(context, node, statements: list, new_return, kept, rest_statements):
    """The edits when the kept path is the code after the `if`: the `if` gives way to the other paths'
    statements (or goes, its comments moving down), the final `return` to the merged one."""
    return_line = context.statement_line(context.find(kept.return_node))
    if return_line is None:
        return "the final `return` was not found"
    if statements:
        _place_comments(context, node, statements)
        return [(node, cst.FlattenSentinel(statements)),
                (return_line, new_return.with_changes(leading_lines=return_line.leading_lines))]
    replacements = []
    carried = list(node.leading_lines) + [cst.EmptyLine(comment=c) for c in _comments(context, node)]
    replacements.append((node, cst.RemovalSentinel.REMOVE))
    following = rest_statements[0] if rest_statements else None
    following_line = context.statement_line(context.find(following)) \
        if isinstance(following, nodes.Assign) else None
    if following_line is not None and following is not kept.return_node:
        replacements.append((following_line, following_line.with_changes(
            leading_lines=carried + list(following_line.leading_lines))))
        carried = []
    replacements.append((return_line, new_return.with_changes(
        leading_lines=carried + list(return_line.leading_lines))))
    return replacements


def tensor_condition(context, facts, test, ops: str) -> cst.BaseExpression:
    """The condition as `ops.where` takes it: `a and b` / `a or b` / `not a` of bool Tensors become
    `ops.logical_and` / `ops.logical_or` / `ops.logical_not` (Python's `and` on Tensors is control flow
    again; on 0-d bool Tensors both give the same value)."""
    if isinstance(test, nodes.BoolOp) and all(facts.dtype(v) == "bool_" for v in test.values):
        combine = build.dotted(f"{ops}.logical_{test.op}")
        parts = [tensor_condition(context, facts, v, ops) for v in test.values]
        merged = parts[0]
        for part in parts[1:]:
            merged = build.call(combine, merged, part)
        return merged
    if isinstance(test, nodes.UnaryOp) and test.op == "not" and facts.dtype(test.operand) == "bool_":
        return build.call(build.dotted(f"{ops}.logical_not"), tensor_condition(context, facts, test.operand, ops))
    return _cst_value(context, test)


def _chain(statement: nodes.If, node: cst.If) -> list:
    """[(astroid If, libcst If)] for an `if` and each `elif` after it (libcst tells `elif` from `else: if`)."""
    chain = [(statement, node)]
    while isinstance(node.orelse, cst.If) and len(statement.orelse) == 1 and isinstance(statement.orelse[0], nodes.If):
        statement, node = statement.orelse[0], node.orelse
        chain.append((statement, node))
    return chain


def _loop_exit(statement: nodes.If):
    """The loop an `if ...: break/continue/return` leaves, when the `if` is a statement of a loop body."""
    exits = (nodes.Break, nodes.Continue, nodes.Return)
    if not any(isinstance(s, exits) for s in statement.body):
        return None
    parent = statement.parent
    return parent if isinstance(parent, (nodes.For, nodes.While)) and statement in parent.body else None


def _path(body) -> _Path | str:
    """The path through a block made of `name = value` statements, maybe ending in `return value`."""
    path = _Path()
    for index, statement in enumerate(body):
        if isinstance(statement, nodes.Pass):
            continue
        if isinstance(statement, nodes.Return):
            if index != len(body) - 1:
                return "code follows a `return`"
            path.returns, path.result, path.return_node = True, statement.value, statement
            return path
        if isinstance(statement, (nodes.Break, nodes.Continue)):
            return f"a branch ends in `{type(statement).__name__.lower()}`"
        if not (isinstance(statement, nodes.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], nodes.AssignName)):
            return f"a branch does more than assign names (`{_short(statement)}`)"
        path.statements.append(statement)
    return path


def _compact(paths, selected) -> bool:
    """Each branch assigns each name once, reading no name it assigned before, and the `name = ops.where(...)`
    statements, one per name in order, read no name an earlier one reassigned: the values go in as written."""
    for path in paths:
        if len(path.assigned) != len(path.statements):
            return False
        seen: set[str] = set()
        for statement in path.statements:
            if {n.name for n in _names(statement.value)} & seen:
                return False
            seen.add(statement.targets[0].name)
    if set(selected) != {name for path in paths for name in path.assigned}:
        return False
    done: set[str] = set()
    for name in selected:
        reads = {n.name for path in paths for s in path.statements if s.targets[0].name == name
                 for n in _names(s.value)}
        if reads & done:
            return False
        done.add(name)
    return True


def _final_value(path: _Path, name: str):
    return [s for s in path.statements if s.targets[0].name == name][-1].value


def _label(index: int, count: int) -> str:
    if count == 2:
        return "then" if index == 0 else "else"
    return "else" if index == count - 1 else f"branch{index + 1}"


def _tuple_width(results) -> int:
    """The common length of returned tuple displays (0 unless every result is one, all of one length)."""
    if all(isinstance(r, nodes.Tuple) and not any(isinstance(e, nodes.Starred) for e in r.elts) for r in results):
        widths = {len(r.elts) for r in results}
        if len(widths) == 1:
            return widths.pop()
    return 0


def _element(result: cst.BaseExpression, index: int):
    if isinstance(result, cst.Tuple):
        return result.elements[index].value
    return build.subscript(result, build.integer(index))


def _names(expr):
    if isinstance(expr, nodes.Name):
        yield expr
    yield from expr.nodes_of_class(nodes.Name)


def _effects(facts, expr, notes) -> str:
    problem, cost = facts.effects(expr)
    if cost:
        notes.add("costs", cost)
    return problem


def _partial(facts, expr, notes) -> None:
    notes.add("partial", facts.partial(expr))


def _place_comments(context, node: cst.If, statements: list) -> None:
    """Comments inside the `if` move above the rewrite, in order; `if ...:  # note` stays on its line."""
    header = node.body.header.comment if isinstance(node.body, cst.IndentedBlock) else None
    moved = [cst.EmptyLine(comment=comment) for comment in _comments(context, node) if comment is not header]
    first = statements[0]
    statements[0] = first.with_changes(leading_lines=list(node.leading_lines) + moved + list(first.leading_lines))
    if header is not None and isinstance(statements[0], cst.SimpleStatementLine):
        statements[0] = statements[0].with_changes(trailing_whitespace=node.body.header)


def _comments(context, node: cst.If) -> list[cst.Comment]:
    """The comments inside an `if` statement, in source order (the lines above it excluded)."""
    span = context.span(node)
    if span is not None:
        end = span[1][0]  # the blocks' footers (comment lines after their last statement) lie past the span
        while end < len(context.lines) and context.lines[end].lstrip()[:1] in ("#", ""):
            end += 1
        if "#" not in "".join(context.lines[span[0][0] - 1:end]):
            return []  # (most statements: libcst's visit rebuilds every node it passes, which planning felt)
    found: list[cst.Comment] = []

    class Collector(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            found.append(comment)

    node.with_changes(leading_lines=[]).visit(Collector())
    return found


def _cst_value(context, astroid_value):
    node = context.find(astroid_value, (cst.BaseExpression,))
    if node is None:
        raise LookupError(f"`{astroid_value.as_string()}` was not found")
    return node.with_changes(lpar=[], rpar=[]) if _redundant_parens(node) else node


def _redundant_parens(node) -> bool:
    return bool(getattr(node, "lpar", None)) and not isinstance(node, (cst.Tuple, cst.GeneratorExp)) and \
        "\n" not in cst.Module([]).code_for_node(node)


def _short(node) -> str:
    return _one_line(node.as_string())


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


FIXERS = (TensorIfToWhere(), TensorIfExpToWhere())
