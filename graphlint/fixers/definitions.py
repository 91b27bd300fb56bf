"""Give a name a value before the `if` or loop that is the first to assign it (E5801, E5802): `name = None`.

MindSpore's parser needs every name read after an `if` defined in each branch, and every name read after a
loop defined before it, even where the missing path never runs. `None` is what the code had there (nothing):
it compiles wherever type inference picks one branch, which is every condition not computed from Tensor
values, and before any loop graph code unrolls (measured with MindSpore 2.10, GRAPH_MODE and STRICT). Under
a Tensor condition, or before a `while` on one, the two paths join and need a value of the same kind:
`name = ops.zeros_like(v)`, where `v` is a Tensor a branch (or the body) assigns to `name`, computed from names
that have their value before the statement and without side effects (unsafe: the zeros are read only on a path
that raised UnboundLocalError in PYNATIVE_MODE).
"""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis.kinds import RANGE
from graphlint.analysis.provenance import side_effect
from graphlint.analysis.rewrite_facts import Side, tensor_facts
from graphlint.catalogue import branches as branches_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer


class _DefineFirst(Fixer):
    def plan(self, finding, context):
        if finding.payload is None:
            return None
        name, values = finding.args.get("name", ""), context.values_of(finding)
        if values is None or not name:
            return self.refuse(finding, "the function's values could not be analysed")
        return self._plan(finding, context, finding.payload.statement, name, values)

    def _plan(self, finding, context, statement, name: str, values):  # pragma: no cover - abstract
        raise NotImplementedError

    def _insert_before(self, finding, context, statement, name: str, safety: FixSafety, where: str):
        node = context.find(statement)
        if not isinstance(node, (cst.If, cst.For, cst.While)):
            return self.refuse(finding, f"the {where} was not found")
        # comments above the statement stay above the code that now precedes it
        first = build.assign(name, build.constant(None), leading_lines=node.leading_lines)
        replacement = cst.FlattenSentinel([first, node.with_changes(leading_lines=())])
        return self.edit(finding, [(node, replacement)], safety=safety,
                         description=f"`{name} = None` before the {where}")


class DefineBeforeIf(_DefineFirst):
    """`if c: y = ...` with `y` read after it, where `c` is not computed from Tensor values: `y = None`
    before the `if` (unsafe: where the original took the other branch and then read `y`, it raised
    UnboundLocalError; the rewrite reads None)."""

    rules = (branches_rules.VARIABLE_DEFINED_IN_ONE_BRANCH,)
    safety = FixSafety.UNSAFE
    description = "assign `None` before the `if`"

    def _plan(self, finding, context, statement, name, values):
        chain = [statement]
        while isinstance(chain[-1].parent, nodes.If) and chain[-1].parent.orelse == [chain[-1]]:
            chain.append(chain[-1].parent)  # an `elif`: the value goes before the whole chain
        top = chain[-1]
        runtime = next((link.test for link in reversed(chain) if values.tensor_origin(link.test)), None)
        if runtime is not None:
            if _inside_loop(top):
                return _zeros_like_before_loop(self, finding, context, values, top, name, _short(runtime))
            return _zeros_like_before(self, finding, context, values, top, name, "`if`", _short(runtime))
        unsure = next((link.test for link in reversed(chain) if not values.decided_while_compiling(link.test)), None)
        if unsure is not None:  # None joins no Tensor: only a condition inference evaluates may leave it there
            return self.refuse(finding, f"cannot tell whether `{_short(unsure)}` depends on Tensor values (if it "
                                        f"does, `{name}` needs a value of the same dtype and shape in each branch)")
        if _inside_loop(top):
            loop = _outermost_loop(top)
            element = values.cfg.element_of(loop.test if isinstance(loop, nodes.While) else loop.iter)
            if not isinstance(loop, nodes.For) or element is None \
                    or any(d.kind != "del" and not _within(d.node, loop) for d in values.cfg.reaching(element, name)):
                return self.refuse(finding, f"the `if` is inside a loop: a value before it would reset `{name}` on "
                                            "every pass; assign it before the loop (by hand)")
            # before the loop: each pass still sees what an earlier pass assigned, as in Python
            return self._insert_before(finding, context, loop, name, FixSafety.UNSAFE, "`for` around the `if`")
        element = values.cfg.element_of(top.test)
        if element is None or any(d.kind != "del" for d in values.cfg.reaching(element, name)):
            return self.refuse(finding, f"`{name}` may already have a value before the `if`")
        return self._insert_before(finding, context, top, name, FixSafety.UNSAFE, "`if`")


class DefineBeforeLoop(_DefineFirst):
    """A name first assigned in an unrolled loop's body and read after the loop: `name = None` before the
    loop. Safe when the loop surely runs and assigns the name on its first pass (the value is always
    overwritten); unsafe otherwise (where the original raised UnboundLocalError, the rewrite reads None)."""

    rules = (branches_rules.VARIABLE_DEFINED_IN_LOOP,)
    safety = FixSafety.SAFE
    description = "assign `None` before the loop"

    def _plan(self, finding, context, loop, name, values):
        keyword = "for" if isinstance(loop, nodes.For) else "while"
        if isinstance(loop, nodes.While) and values.tensor_origin(loop.test):
            if _inside_loop(loop):
                return self.refuse(finding, f"the `while` is inside a loop: a value before it would reset `{name}` "
                                            "on every pass; assign it before the outer loop (by hand)")
            return _zeros_like_before(self, finding, context, values, loop, name, "`while`", _short(loop.test))
        if isinstance(loop, nodes.While) and not values.decided_while_compiling(loop.test):
            return self.refuse(finding, f"cannot tell whether `{_short(loop.test)}` depends on Tensor values (if it "
                                        f"does, the loop is compiled as one and `{name}` needs a value of the body's "
                                        "dtype and shape before it)")
        if any(f.node is loop and f.rule.family == "loops" for f in context.findings):
            return self.refuse(finding, "the loop itself is rewritten first (its trip count is reported too)")
        region = values.cfg.loops.get(id(loop))
        if region is None:
            return self.refuse(finding, "the loop was not found in the function's control flow")
        sure = _runs_at_least_once(values, loop) and _assigned_on_first_pass(loop, finding.node, name)
        entries = [pred for pred, _ in region.header.pred if pred.id not in region.body_blocks]
        if not sure and any(d.kind != "del" for block in entries for d in values.cfg.reaching_at_block_end(block, name)):
            return self.refuse(finding, f"a later statement of an enclosing loop assigns `{name}`: a value before "
                                        "this loop would reset it on every pass, and this loop may not assign it")
        return self._insert_before(finding, context, loop, name, FixSafety.SAFE if sure else FixSafety.UNSAFE,
                                   f"`{keyword}`")


def _zeros_like_before(fixer, finding, context, values, top, name: str, where: str, condition: str):
    """`name = ops.zeros_like(e)` before ``top`` (an `if` chain or a `while` on a Tensor condition), where
    ``e`` is a value the branches (or the body) assign to ``name``: proven a Tensor, without side effects, and
    reading only names that already have their value before ``top`` (in a loop: a value of the kind the loop
    carries). Graph mode joins the paths with a Tensor of the same dtype and shape; on every path where the
    original assigned ``name`` the zeros are overwritten before they are read, so only a path that raised
    UnboundLocalError in PYNATIVE_MODE now reads them (unsafe)."""
    refusal = (f"`{condition}` depends on Tensor values, so graph mode joins both paths and `{name}` needs a value "
               f"of the same dtype and shape on each")
    element = values.cfg.element_of(top.test)
    if element is None or any(d.kind != "del" for d in _outside(values.cfg.reaching(element, name), top)):
        return fixer.refuse(finding, f"`{name}` may already have a value before the {where}")
    candidates = _assignments(top, name)  # an `if`'s own blocks hold its `elif` chain
    if not candidates:
        return fixer.refuse(finding, f"{refusal}: no plain `{name} = <Tensor>` in the {where} to take it from; "
                                     "assign it in every branch (by hand)")
    problems = []
    for assign in candidates:
        problem = _unmovable(values, assign.value, element, top, loop=isinstance(top, nodes.While))
        if not problem:
            break
        problems.append(problem)
    else:
        return fixer.refuse(finding, f"{refusal}: {problems[0]}; assign it in every branch (by hand)")
    return _insert_zeros_like(fixer, finding, context, top, name, _cst_value(context, assign), assign.value, where)


def _insert_zeros_like(fixer, finding, context, top, name: str, value, source, where: str):
    """The edit putting ``name = ops.zeros_like(value)`` (``value``: libcst, ``source`` its astroid original)
    before the statement ``top`` (unsafe)."""
    node = context.find(top)
    if not isinstance(node, (cst.If, cst.While, cst.For)) or value is None:
        return fixer.refuse(finding, f"the {where} was not found")
    ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
    zeros = build.call(f"{ops}.zeros_like", value)
    first = build.assign(name, zeros, leading_lines=node.leading_lines)
    replacement = cst.FlattenSentinel([first, node.with_changes(leading_lines=())])
    return fixer.edit(finding, [(node, replacement)], safety=FixSafety.UNSAFE,
                      imports=[ops_import] if ops_import else [],
                      description=f"`{name} = {ops}.zeros_like({source.as_string()})` before the {where}")


def _zeros_like_before_loop(fixer, finding, context, values, statement, name: str, condition: str):
    """`name = ops.zeros_like(v)` before the outermost loop around ``statement`` (an `if` on a Tensor condition
    inside a loop), where ``v`` is a value a branch assigns to ``name`` that can be computed before that loop, or a
    name that has its value there with the dtype and shape the analysis proves for one. Before the outermost loop,
    not the `if`: a pass that does not assign ``name`` still reads what an earlier pass assigned, as in Python,
    and every original assignment still overwrites the zeros, so only a read that raised UnboundLocalError in
    PYNATIVE_MODE (no pass had assigned it yet) reads them (unsafe)."""
    loop = _outermost_loop(statement)
    element = values.cfg.element_of(loop.iter if isinstance(loop, nodes.For) else loop.test)
    if element is None or any(d.kind != "del" for d in _outside(values.cfg.reaching(element, name), loop)):
        return fixer.refuse(finding, f"`{name}` may already have a value before the loop around the `if`: a value "
                                     "there would replace it; assign it in every branch (by hand)")
    candidates = _assignments(statement, name)
    problems = []
    for assign in candidates:
        problem = _unmovable(values, assign.value, element, loop, loop=False)
        if not problem:
            return _insert_zeros_like(fixer, finding, context, loop, name, _cst_value(context, assign), assign.value,
                                      "loop around the `if`")
        like = _same_kind_name(values, assign.value, element, loop)
        if like is not None:
            return _insert_zeros_like(fixer, finding, context, loop, name, build.name(like.name), like,
                                      "loop around the `if`")
        problems.append(problem)
    reason = problems[0] if problems else f"no plain `{name} = <Tensor>` in the `if` to take it from"
    return fixer.refuse(finding, f"`{condition}` depends on Tensor values, so graph mode joins both paths and "
                                 f"`{name}` needs a value of the same dtype and shape before the loop around the `if`: "
                                 f"{reason}, and no name holding such a value is proven there; assign it before the "
                                 "loop (by hand)")


def _same_kind_name(values, expr, element, loop):
    """A name read in ``expr`` (a Name node) that, where ``element`` reads it before ``loop``, holds a Tensor of
    the dtype and shape the analysis proves for ``expr`` (and is assigned nowhere in the loop); else None."""
    facts = tensor_facts(values)
    if not values.value(expr).is_tensor or side_effect(values, expr) is not None:
        return None
    dtype, shape = facts.dtype(expr), facts.shape(expr)
    if dtype is None or shape is None:
        return None
    for read in expr.nodes_of_class(nodes.Name):
        reaching = values.cfg.reaching(element, read.name)
        if not reaching or any(d.kind == "del" or _within(d.node, loop) for d in reaching) \
                or not values.name_at(element, read.name).is_tensor:
            continue
        side = Side(name=read.name, element=element)
        if facts.side_dtype(side) == dtype and facts.side_shape(side) == shape:
            return read
    return None


def _assignments(statement, name: str) -> list[nodes.Assign]:
    """The `name = value` statements in ``statement``'s own blocks (the body and `else` of an `if` or a
    loop, and the `if` statements nested there), in order."""
    found = []
    blocks = [statement.body] + ([statement.orelse] if isinstance(statement, nodes.If) else [])
    for block in blocks:
        for child in block:
            if isinstance(child, nodes.Assign) and len(child.targets) == 1 \
                    and isinstance(child.targets[0], nodes.AssignName) and child.targets[0].name == name:
                found.append(child)
            elif isinstance(child, nodes.If):
                found.extend(_assignments(child, name))
    return found


def _unmovable(values, expr, element, top, loop: bool) -> str:
    """Why ``expr`` cannot be computed before ``top`` with the dtype and shape it has where it is written ('' when
    it can)."""
    text = _short(expr)
    if not values.value(expr).is_tensor:
        kinds = " or ".join(sorted(values.value(expr).kinds)) or "unknown"
        return f"`{text}` is not proven a Tensor (the analysis finds: {kinds})"
    if side_effect(values, expr) is not None:
        return f"`{text}` calls `{_short(side_effect(values, expr).func)}`, which may have side effects"
    if any(isinstance(node, (nodes.Lambda, nodes.ListComp, nodes.GeneratorExp, nodes.DictComp, nodes.SetComp,
                             nodes.NamedExpr)) for node in expr.nodes_of_class(nodes.NodeNG)):
        return f"`{text}` holds a nested scope or an assignment expression"
    inner = values.cfg.element_of(expr)
    for read in expr.nodes_of_class(nodes.Name):
        before = _outside(values.cfg.reaching(element, read.name), top)
        if not before or any(d.kind == "del" for d in before):
            if read.name in values.cfg.defs_by_name:
                return f"`{read.name}` has no value before the statement"
            continue  # a global or a builtin
        if not loop and inner is not None and \
                {d.index for d in values.cfg.reaching(inner, read.name)} != {d.index for d in before}:
            return f"`{read.name}` is assigned between the `if` and `{text}`"
    return ""


def _outside(definitions, statement) -> list:
    """The definitions not made inside ``statement`` (a loop's own assignments reach its test again)."""
    return [d for d in definitions if not _within(d.node, statement)]


def _within(node, statement) -> bool:
    while node is not None:
        if node is statement:
            return True
        node = node.parent
    return False


def _cst_value(context, assign: nodes.Assign):
    node = context.find(assign)
    return node.value if isinstance(node, cst.Assign) else None


def _runs_at_least_once(values, loop) -> bool:
    """The loop's trip count is a constant of at least one: `range(<constant>)`, a literal or known tuple
    or list with items."""
    if not isinstance(loop, nodes.For):
        return False
    iterable = loop.iter
    if isinstance(iterable, (nodes.Tuple, nodes.List)):
        return bool(iterable.elts) and not any(isinstance(e, nodes.Starred) for e in iterable.elts)
    value = values.value(iterable)
    if value.var:
        return False
    if value.is_(RANGE):
        return value.known and isinstance(value.const, int) and value.const >= 1
    return value.items is not None and (value.is_("tuple") or value.is_("list")) and len(value.items) >= 1


def _assigned_on_first_pass(loop, definition, name: str) -> bool:
    """The name is the loop target, or is assigned by a statement of the loop body itself (not under an
    `if`) that no `break` or `continue` can skip."""
    if isinstance(loop, nodes.For) and any(t.name == name for t in loop.target.nodes_of_class(nodes.AssignName)):
        return True
    statement = definition.statement() if definition is not None else None
    if statement is None or statement.parent is not loop or statement not in loop.body:
        return False
    for earlier in loop.body[:loop.body.index(statement)]:
        if any(True for _ in earlier.nodes_of_class((nodes.Break, nodes.Continue),
                                                    skip_klass=(nodes.For, nodes.While, nodes.FunctionDef))):
            return False
    return True


def _outermost_loop(statement):
    """The outermost `for`/`while` of the function that holds ``statement``."""
    found, node = None, statement.parent
    while node is not None and not isinstance(node, (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef, nodes.Module)):
        if isinstance(node, (nodes.For, nodes.While)):
            found = node
        node = node.parent
    return found


def _inside_loop(statement) -> bool:
    node = statement.parent
    while node is not None and not isinstance(node, (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef, nodes.Module)):
        if isinstance(node, (nodes.For, nodes.While)):
            return True
        node = node.parent
    return False


def _short(node) -> str:
    text = " ".join(node.as_string().split())
    return text if len(text) <= 40 else text[:37] + "..."


FIXERS = (DefineBeforeIf(), DefineBeforeLoop())
