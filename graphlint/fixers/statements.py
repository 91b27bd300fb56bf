"""Statement fixes: drop `del name`, hoist an `import` out of graph code, `is` -> `==` for unsupported operands,
a set of constants tested for membership -> a tuple, a loop's `else` without `break` -> the code after the loop,
`with contextlib.nullcontext()` / `with ms._no_grad()` -> the block itself (with `ops.stop_gradient` for the latter),
`(z := value)` -> `z = value` on the line before, a comprehension with several `for` clauses -> nested loops that
append to a list (or fill a dict), a `match` on values -> an `if`/`elif` chain, a `class` in graph code -> module
level."""

from __future__ import annotations

import sys

import libcst as cst
from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.kinds import SCALARS, TENSOR, UNKNOWN
from graphlint.analysis.tree import enclosing_reads, nodes_of_class, walk
from graphlint.catalogue import statements as statements_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer, module_level_clash, move_before, replace_nodes, unused_name


class DropDelete(Fixer):
    """`del name` only unbinds a local: graph code gains nothing from it, and MindSpore rejects it."""

    rules = (statements_rules.DEL_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "drop `del name`"

    def plan(self, finding, context):
        node = context.find(finding.node)
        if not isinstance(node, cst.Del):
            return self.refuse(finding, "the `del` statement was not found")
        names = _deleted_names(node.target)
        if names is None:
            return self.refuse(finding, "`del` of an item or attribute changes a container; rebuild it without the "
                                        "item instead")
        replacements = context.remove_statement(node)
        if not replacements:
            return self.refuse(finding, "the statement shares its line in a way that cannot be edited safely")
        return self.edit(finding, replacements, description=f"drop `del {', '.join(names)}`")


def _deleted_names(target) -> list[str] | None:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        names = []
        for element in target.elements:
            inner = _deleted_names(element.value)
            if inner is None:
                return None
            names.extend(inner)
        return names
    return None


class HoistImport(Fixer):
    """Move an `import` from graph code to module level (unsafe: it now runs at import time, which can
    create an import cycle that the local import avoided)."""

    rules = (statements_rules.IMPORT_IN_GRAPH,)
    safety = FixSafety.UNSAFE
    description = "move the import to module level"

    def plan(self, finding, context):
        node = context.find(finding.node)
        if not isinstance(node, (cst.Import, cst.ImportFrom)):
            return self.refuse(finding, "the import statement was not found")
        line = context.statement_line(node)
        if line is None or len(line.body) != 1:
            return self.refuse(finding, "the import shares its line with other statements")
        if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
            return self.refuse(finding, "`import *` cannot be moved safely")
        held = _enclosing_function(finding.node)
        if held is None:
            return self.refuse(finding, "the import is inside a `try`, a `with` or a nested scope, where it may be "
                                        "guarded (an ImportError handled): move it by hand")
        if held[1]:
            problem = _nested_import_problem(finding.node, held[0])
            if problem:
                return self.refuse(finding, problem)
        bound = _bound_names(node)
        module_level = _module_level_bindings(context.tree)
        statement_code = context.code(node).strip()
        for name in bound:
            existing = module_level.get(name)
            if existing is not None and existing != statement_code:
                return self.refuse(finding, f"module level already binds `{name}` differently")
        replacements = context.remove_statement(node)
        hoisted = cst.SimpleStatementLine(body=[node.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)],
                                          trailing_whitespace=line.trailing_whitespace)  # keeps its comment
        return self.edit(finding, replacements, module_prefix=[hoisted],
                         description=f"move `{statement_code}` to module level")


def _enclosing_function(statement):
    """(the function holding ``statement``, whether an `if` or a loop lies between them) when every block between
    them is the body or `else` of an `if`, `for` or `while`; None otherwise (a `try`, a `with`, a nested scope)."""
    node, nested = statement, False
    while True:
        parent = node.parent
        if isinstance(parent, nodes.FunctionDef):
            return (parent, nested) if node in parent.body else None
        if not isinstance(parent, (nodes.If, nodes.For, nodes.While)) or node not in parent.body + parent.orelse:
            return None
        node, nested = parent, True


def _bindings(function, name: str) -> int:
    """How many statements of ``function`` (nested scopes included) bind ``name``: assignments, imports, `def`s and
    `class`es."""
    count = 0
    for node in function.nodes_of_class((nodes.AssignName, nodes.Import, nodes.ImportFrom, nodes.ClassDef,
                                         nodes.FunctionDef)):
        if isinstance(node, (nodes.Import, nodes.ImportFrom)):
            count += sum(1 for module, alias in node.names
                         if (alias or (module.split(".")[0] if isinstance(node, nodes.Import) else module)) == name)
        elif node is not function and node.name == name:
            count += 1
    return count


def _nested_import_problem(statement, function) -> str:
    """Why an import under an `if` or in a loop cannot move to module level ('' when it can): only a module of the
    standard library (always there: a condition may guard an optional one), binding names nothing else in the
    function binds (moving one of two imports of a name would leave the other making it a local)."""
    if isinstance(statement, nodes.ImportFrom):
        if statement.level:
            return "a relative import under a condition or in a loop: move it by hand"
        modules = [statement.modname]
        bound = [alias or name for name, alias in statement.names]
    else:
        modules = [name for name, _ in statement.names]
        bound = [alias or name.split(".")[0] for name, alias in statement.names]
    optional = next((m for m in modules if m.split(".")[0] not in sys.stdlib_module_names), None)
    if optional is not None:
        return (f"the import is under a condition or in a loop and `{optional}` is not in the standard library: "
                "the condition may guard an optional module (at module level a missing one fails the import); move "
                "it by hand")
    twice = next((name for name in bound if _bindings(function, name) != 1), None)
    if twice is not None:
        return f"`{twice}` is bound elsewhere in the function too: move the imports by hand"
    return ""


def _bound_names(node) -> list[str]:
    names = []
    for alias in node.names:
        if alias.asname is not None:
            names.append(alias.asname.name.value)
        else:
            dotted = cst.Module([]).code_for_node(alias.name)
            names.append(dotted.split(".")[0] if isinstance(node, cst.Import) else dotted)
    return names


def _module_level_bindings(tree: cst.Module) -> dict[str, str]:
    found: dict[str, str] = {}
    for statement in tree.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                    code = tree.code_for_node(small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)).strip()
                    for name in _bound_names(small):
                        found.setdefault(name, code)
                elif isinstance(small, (cst.Assign, cst.AnnAssign)):
                    targets = small.targets if isinstance(small, cst.Assign) else [small]
                    for target in targets:
                        if isinstance(target.target, cst.Name):
                            found.setdefault(target.target.value, "<assignment>")
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            found.setdefault(statement.name.value, "<definition>")
    return found


class IdentityToEquality(Fixer):
    """`a is b` with an operand MindSpore cannot compare by identity -> `a == b` (unsafe: equality is not
    identity, and for Tensors it is element-wise)."""

    rules = (statements_rules.IS_UNSUPPORTED_OPERAND,)
    safety = FixSafety.UNSAFE
    description = "`is` -> `==`, `is not` -> `!=`"

    def plan(self, finding, context):
        if finding.payload is not None and finding.payload.makes_instances:
            return self.refuse(finding, f"`==` against {finding.payload.operand} fails in graph code too (MindSpore "
                                        "makes instances of it): compare with `isinstance` or a flag set in "
                                        "`__init__` by hand")
        node = context.find(finding.node)
        if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
            return self.refuse(finding, "only a single `a is b` comparison is rewritten")
        target = node.comparisons[0]
        if isinstance(target.operator, cst.Is):
            operator = cst.Equal(whitespace_before=target.operator.whitespace_before,
                                 whitespace_after=target.operator.whitespace_after)
        elif isinstance(target.operator, cst.IsNot):
            operator = cst.NotEqual(whitespace_before=target.operator.whitespace_before,
                                    whitespace_after=target.operator.whitespace_after)
        else:
            return self.refuse(finding, "not an `is` comparison")
        new = node.with_changes(comparisons=[target.with_changes(operator=operator)])
        return self.edit(finding, [(node, new)], description=self.description)


class MembershipSetToTuple(Fixer):
    """`k in {"a", "b"}` -> `k in ("a", "b")`: membership in a set of constants and in a tuple of the same
    constants agree (both test identity, then equality), and graph code has tuples but no sets. Safe where the
    analysis knows what is tested (a Python value), unsafe where it does not, refused for a Tensor."""

    rules = (statements_rules.SET_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "set of constants in a membership test -> tuple"

    def plan(self, finding, context):
        literal = finding.node
        if not isinstance(literal, nodes.Set):
            return self.refuse(finding, "a set comprehension builds a set at run time: compute it in `__init__` "
                                        "and keep the result as a tuple")
        compare = literal.parent
        if not (isinstance(compare, nodes.Compare)
                and any(right is literal and op in ("in", "not in") for op, right in compare.ops)):
            return self.refuse(finding, "the set is not the right side of `in`: a tuple would keep duplicates "
                                        "and an order; build the tuple by hand")
        if not all(isinstance(element, nodes.Const) for element in literal.elts):
            return self.refuse(finding, "the set holds values other than constants: their equality may differ "
                                        "from their hash; write the tuple by hand")
        values = context.values_of(finding)
        operands = [compare.left] + [right for _, right in compare.ops]
        left = operands[next(i for i, (_, right) in enumerate(compare.ops) if right is literal)]
        tested = values.value(left) if values is not None else None
        if tested is not None and tested.may_be(TENSOR):
            return self.refuse(finding, f"`{left.as_string()}` may be a Tensor: a set hashes it, a tuple compares "
                                        "it element by element; compare Python values (or use `ops.isin`)")
        safety = FixSafety.SAFE if tested is not None and tested.kinds and UNKNOWN not in tested.kinds else \
            FixSafety.UNSAFE  # what is tested is not known: an object whose equality and hash disagree
        node = context.find(literal, (cst.Set,))
        if node is None:
            return self.refuse(finding, "the set literal was not found")
        # The elements keep their commas; libcst writes the one a single-element tuple needs.
        replacement = cst.Tuple(elements=node.elements, lpar=[cst.LeftParen(whitespace_after=node.lbrace.whitespace_after)],
                                rpar=[cst.RightParen(whitespace_before=node.rbrace.whitespace_before)])
        return self.edit(finding, [(node, replacement)], description="`{...}` -> `(...)` in the membership test",
                         safety=safety)


class LoopElseAfterLoop(Fixer):
    """`for ...: body else: rest` -> `for ...: body` then `rest`, for a loop without its own `break`: the
    `else` of such a loop runs whenever the code after it would (a `return` or a raise skips both)."""

    rules = (statements_rules.LOOP_ELSE_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "loop `else` without `break` -> the statements after the loop"

    def plan(self, finding, context):
        loop = finding.node
        if not isinstance(loop, (nodes.For, nodes.While)) or not loop.orelse:
            return None
        if _breaks_out_of(loop):
            return self.refuse(finding, "the loop has a `break`, which skips the `else`: set a flag before the "
                                        "`break` and test it after the loop (by hand)")
        node = context.find(loop)
        if not isinstance(node, (cst.For, cst.While)) or node.orelse is None \
                or not isinstance(node.orelse.body, cst.IndentedBlock):
            return self.refuse(finding, "the loop's `else` block was not found")
        orelse = node.orelse
        moved = list(orelse.body.body)
        # the comments above `else:` and on its line go with the statements that leave the block
        carried = list(orelse.leading_lines)
        if orelse.body.header.comment is not None:
            carried.append(cst.EmptyLine(comment=orelse.body.header.comment))
        moved[0] = moved[0].with_changes(leading_lines=carried + list(moved[0].leading_lines))
        if orelse.body.footer:
            moved.append(cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=list(orelse.body.footer)))
        keyword = "for" if isinstance(loop, nodes.For) else "while"
        return self.edit(finding, [(node, cst.FlattenSentinel([node.with_changes(orelse=None), *moved]))],
                         description=f"`{keyword} ... else` without `break` -> the `else` body after the loop")


def _breaks_out_of(loop) -> bool:
    """A `break` of this loop itself (not of a loop nested in it) in its body."""
    stack = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.Break):
            return True
        if isinstance(node, (nodes.For, nodes.While)):
            stack.extend(node.orelse)  # a nested loop's `else` breaks out of the outer loop
            continue
        if isinstance(node, (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
            continue
        stack.extend(node.get_children())
    return False


class WithoutContextManager(Fixer):
    """`with contextlib.nullcontext(v) as name:` -> `name = v` and the block (safe: the manager does nothing);
    `with ms._no_grad():` -> the block, then `y = ops.stop_gradient(y)` for each Tensor it assigns that is read
    later (unsafe: gradients stop at the block's results, as under `_no_grad` in PYNATIVE_MODE, but not inside
    calls that keep state of their own)."""

    rules = (statements_rules.UNSUPPORTED_CONTEXT_MANAGER,)
    safety = FixSafety.UNSAFE
    description = "drop the `with` and keep its block"

    def plan(self, finding, context):
        expr, statement = finding.node, getattr(finding.node, "parent", None)
        if not isinstance(statement, nodes.With) or not isinstance(expr, nodes.Call) or context.info is None:
            return None
        qualified = context.info.imports.qualify(expr.func)
        if qualified not in api.NULL_CONTEXT_MANAGERS and qualified not in api.NO_GRAD_CONTEXT_MANAGERS:
            return self.refuse(finding, "only `contextlib.nullcontext()` and `_no_grad()` blocks are rewritten: "
                                        "enter the manager around the Cell call, or make it a @jit_class")
        if len(statement.items) > 1:
            return self.refuse(finding, "the `with` enters several managers: give each its own `with` first")
        node = context.find(statement)
        if not isinstance(node, cst.With) or not isinstance(node.body, cst.IndentedBlock):
            return self.refuse(finding, "the `with` block was not found")
        if qualified in api.NULL_CONTEXT_MANAGERS:
            rewrite = _null_context_block(expr, node, context)
        else:
            rewrite = _no_grad_block(finding, statement, node, context)
        if isinstance(rewrite, str):
            return self.refuse(finding, rewrite)
        statements, description, safety, imports = rewrite
        # the comments above the `with` and on its line go with the block's first statement
        carried = list(node.leading_lines)
        if node.body.header.comment is not None:
            carried.append(cst.EmptyLine(comment=node.body.header.comment))
        statements[0] = statements[0].with_changes(leading_lines=carried + list(statements[0].leading_lines))
        return self.edit(finding, [(node, cst.FlattenSentinel(statements))], imports=imports, safety=safety,
                         description=description)


def _null_context_block(expr: nodes.Call, node: cst.With, context):
    """`with nullcontext(v) as name:` -> `name = v` and the block: ``(statements, description, safety,
    imports)``, or the reason it cannot be rewritten."""
    target = node.items[0].asname.name if node.items[0].asname is not None else None
    prefix = []
    if target is not None:  # `as v` binds nullcontext's argument (None without one)
        value = expr.args[0] if expr.args else None
        if expr.keywords or len(expr.args) > 1 or isinstance(value, nodes.Starred):
            return "`nullcontext(...)` is called with other arguments than one value"
        bound = context.find(value, (cst.BaseExpression,)) if value is not None else build.constant(None)
        if bound is None:
            return "the argument of `nullcontext(...)` was not found"
        prefix = [build.assign(target, bound)]
    return prefix + list(node.body.body), "`with nullcontext()` -> its block", FixSafety.SAFE, []


def _no_grad_block(finding, statement: nodes.With, node: cst.With, context):
    """`with _no_grad():` -> the block, then `y = ops.stop_gradient(y)` for what it assigns and later code reads:
    ``(statements, description, safety, imports)``, or the reason it cannot be rewritten."""
    if node.items[0].asname is not None:
        return "`_no_grad()` binds nothing useful to `as`: drop `as` first"
    values = context.values_of(finding)
    if values is None:
        return "the function could not be analysed"
    names = _gradient_carriers(values, statement)
    if isinstance(names, str):
        return names
    stopped, assumed = names
    ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
    stop = build.dotted(ops + ".stop_gradient")
    statements = list(node.body.body) + [build.assign(name, build.call(stop, build.name(name))) for name in stopped]
    description = "`with _no_grad()` -> its block" + (
        f", then `ops.stop_gradient` on {', '.join(f'`{n}`' for n in stopped)}" if stopped else "") + (
        f" (assuming {', '.join(f'`{n}`' for n in assumed)} hold{'s' if len(assumed) == 1 else ''} Tensors)"
        if assumed else "")
    return statements, description, FixSafety.UNSAFE, [ops_import] if ops_import else []


def _gradient_carriers(values, statement: nodes.With):
    """The names a `with _no_grad():` block assigns that later code reads and that may carry gradients:
    ``(names to stop, those of them assumed to hold Tensors)``, or the reason `ops.stop_gradient` cannot stop
    what one of them holds."""
    stopped, assumed = [], []
    bound = _assigned_in(statement)
    for name in _read_after(statement, bound):
        kinds = set()
        for assigned in bound[name]:
            value = values.value(assigned.parent.value) if isinstance(assigned.parent, nodes.Assign) \
                and len(assigned.parent.targets) == 1 else None
            kinds |= set(value.kinds) if value is not None and value.kinds else {UNKNOWN}
            if value is not None and value.var and kinds <= SCALARS:
                kinds.add(TENSOR)  # a number computed from Tensors is a Tensor in graph code
        if kinds <= SCALARS:
            continue  # a Python number carries no gradient
        if not kinds <= api.STOP_GRADIENT_KINDS | {UNKNOWN}:
            return (f"`{name}`, which the block assigns and later code reads, may be a "
                    f"{'/'.join(sorted(kinds - api.STOP_GRADIENT_KINDS - {UNKNOWN}))}: "
                    "`ops.stop_gradient` would not stop the gradients it holds")
        stopped.append(name)
        if UNKNOWN in kinds:
            assumed.append(name)
    return stopped, assumed


def _assigned_in(statement) -> dict[str, list]:
    """Names the block binds (not inside functions or classes it defines): name -> its AssignName nodes."""
    bound: dict[str, list] = {}
    stack = list(statement.body)
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.AssignName):
            bound.setdefault(node.name, []).append(node)
        if isinstance(node, (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
            continue
        stack.extend(node.get_children())
    return bound


def _read_after(statement, bound: dict) -> list[str]:
    """Those of ``bound`` that the function reads after ``statement``, in order of name."""
    function = statement.scope()
    end = statement.end_lineno or statement.lineno
    read = {n.name for n in nodes_of_class(function, nodes.Name) if n.name in bound and (n.lineno or 0) > end}
    return sorted(read)


class HoistAssignmentExpression(Fixer):
    """`y = (z := x + 1) * z` -> `z = x + 1` then `y = z * z`: the walrus's value is computed on the line before
    its statement. Safe where nothing the statement evaluates before the walrus calls anything (so no side
    effect changes order); unsafe otherwise. Refused where the walrus may not run, or runs more than once (a
    `while` or `elif` test, a comprehension, a lambda, after `and`/`or`, in a branch of `a if c else b`)."""

    rules = (statements_rules.WALRUS_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "`(z := value)` -> `z = value` on the line before"

    def plan(self, finding, context):
        walrus = finding.node
        if not isinstance(walrus, nodes.NamedExpr) or not isinstance(walrus.target, nodes.AssignName):
            return None
        statement = walrus.statement()
        name = walrus.target.name
        problem = why_not_run_once(walrus, statement)
        if problem:
            return self.refuse(finding, f"the walrus {problem}: assign `{name}` where it runs (by hand)")
        earlier = _evaluated_before(walrus, statement)
        if isinstance(statement, nodes.AugAssign):
            earlier.append(statement.target)  # `z += (z := 2)` reads `z` before the value
        if any(getattr(n, "name", None) == name and isinstance(n, (nodes.Name, nodes.AssignName)) for n in earlier):
            return self.refuse(finding, f"the statement reads `{name}` before the walrus sets it")
        line, inner = context.own_line(statement), context.find(walrus)
        if line is None or inner is None:
            return self.refuse(finding, "the statement shares its line with others, or was not found")
        hoisted = build.assign(name, inner.value, leading_lines=line.leading_lines)
        rewritten = replace_nodes(line, [(inner, build.name(name))]).with_changes(leading_lines=())
        calls = any(isinstance(n, nodes.Call) for n in earlier)
        return self.edit(finding, [(line, cst.FlattenSentinel([hoisted, rewritten]))],
                         safety=FixSafety.UNSAFE if calls else FixSafety.SAFE,
                         description=f"`({name} := ...)` -> `{name} = ...` on the line before" + (
                             " (calls the statement makes before it now run after it)" if calls else ""))


def why_not_run_once(expr, statement) -> str:
    """Why computing ``expr`` (a walrus, a comprehension, a lambda) on the line before ``statement`` would change
    how often it runs ("" if it would not)."""
    if isinstance(statement, nodes.While):
        return "is in a `while` test, evaluated before every pass"
    if isinstance(statement, nodes.If) and isinstance(statement.parent, nodes.If) and statement.parent.orelse == [statement]:
        return "is in an `elif` test, evaluated only when the conditions before it are false"
    if not isinstance(statement, (nodes.Assign, nodes.AugAssign, nodes.AnnAssign, nodes.Expr, nodes.Return,
                                  nodes.If, nodes.For)):
        return f"is in a `{type(statement).__name__}` statement"
    child, node = expr, expr.parent
    while node is not None and node is not statement:
        if isinstance(node, (nodes.Lambda, nodes.Comprehension, nodes.ListComp, nodes.SetComp, nodes.DictComp,
                             nodes.GeneratorExp)):
            return "is in a comprehension or lambda"
        if isinstance(node, nodes.BoolOp) and child is not node.values[0]:
            return "runs only when the `and`/`or` before it does not decide"
        if isinstance(node, nodes.IfExp) and child is not node.test:
            return "is in a branch of a conditional expression"
        child, node = node, node.parent
    if isinstance(statement, (nodes.If, nodes.For)) and child is not (statement.test if isinstance(statement, nodes.If)
                                                                       else statement.iter):
        return "is not in the statement's own test or iterable"
    return ""


def _evaluated_before(walrus, statement) -> list:
    """The nodes of ``statement`` Python evaluates before the walrus: those that end before it starts, except
    its ancestors and an assignment's targets (evaluated after the value)."""
    ancestors, node = set(), walrus.parent
    while node is not None and node is not statement.parent:
        ancestors.add(id(node))
        node = node.parent
    start = (walrus.lineno, walrus.col_offset)
    targets = getattr(statement, "targets", None) or ([statement.target] if isinstance(statement, (nodes.AugAssign, nodes.AnnAssign)) else [])
    skipped = {id(n) for t in targets for n in walk(t)}
    roots = [statement.test] if isinstance(statement, nodes.If) else [statement.iter] if isinstance(statement, nodes.For) \
        else list(statement.get_children())
    return [n for root in roots for n in walk(root)
            if id(n) not in ancestors and id(n) not in skipped and n.end_lineno is not None
            and (n.end_lineno, n.end_col_offset) <= start]


# Builtins that consume a whole iterable: a generator expression given to them can be a list instead.
_CONSUMERS = frozenset({"sum", "tuple", "list", "min", "max", "sorted", "len"})


class ComprehensionToLoops(Fixer):
    """`terms = [f(i, j) for i in a for j in b if c]` -> `terms = []` and nested `for`/`if` statements that
    append (a dict comprehension fills a dict; a generator expression becomes a list), computed on the lines
    before the statement (measured: list appends and dict item writes in unrolled loops compile in GRAPH_MODE
    and STRICT). Loop variables get fresh names where the function already uses theirs. Safe unless the
    statement calls something before the comprehension, or a generator expression goes to anything but a
    builtin that consumes it whole (`sum`, `tuple`, `max`, ...)."""

    rules = (statements_rules.MULTI_FOR_COMPREHENSION,)
    safety = FixSafety.SAFE
    description = "comprehension with several `for` clauses -> nested loops"

    def plan(self, finding, context):
        comprehension = finding.node
        if not isinstance(comprehension, (nodes.ListComp, nodes.GeneratorExp, nodes.DictComp)):
            return None
        statement = comprehension.statement()
        problem = why_not_run_once(comprehension, statement)
        if problem:
            return self.refuse(finding, f"the comprehension {problem}: write the loops where it runs (by hand)")
        found = _comprehension_clauses(comprehension, statement, context)
        if isinstance(found, str):
            return self.refuse(finding, found)
        inner, line, clauses = found
        function = statement.scope()
        renamed, collected, whole_value = _loop_names(comprehension, statement, function)
        statements = _nested_loops(inner, clauses, renamed, collected, line.leading_lines)
        if not whole_value:
            statements.append(replace_nodes(line, [(inner, build.name(collected))]).with_changes(leading_lines=()))
        notes = _comprehension_notes(comprehension, statement, function)
        kind = {nodes.ListComp: "list comprehension", nodes.GeneratorExp: "generator expression",
                nodes.DictComp: "dict comprehension"}[type(comprehension)]
        return self.edit(finding, [(line, cst.FlattenSentinel(statements))],
                         safety=FixSafety.UNSAFE if notes else FixSafety.SAFE,
                         description=f"{kind} with {len(clauses)} `for` clauses -> nested loops filling "
                                     f"`{collected}`" + (f" ({'; '.join(notes)})" if notes else ""))


def _comprehension_clauses(comprehension, statement, context):
    """The comprehension's libcst node, its statement's line and its `for` clauses, or the reason they cannot be
    rewritten."""
    inner = context.find(comprehension, (cst.ListComp, cst.GeneratorExp, cst.DictComp))
    if inner is None and isinstance(comprehension.parent, nodes.Call) and comprehension.parent.args == [comprehension]:
        call = context.find(comprehension.parent)  # `sum(t for t in ...)`: Python's span includes the call's `(`
        if isinstance(call, cst.Call) and len(call.args) == 1 and isinstance(call.args[0].value, cst.GeneratorExp):
            inner = call.args[0].value
    line = context.own_line(statement)
    if line is None or inner is None:
        return "the statement shares its line with others, or was not found"
    clauses = []
    clause = inner.for_in
    while clause is not None:
        if clause.asynchronous is not None:
            return "an `async for` clause cannot become a loop here"
        clauses.append(clause)
        clause = clause.inner_for_in
    return inner, line, clauses


def _loop_names(comprehension, statement, function):
    """``(fresh names for loop variables the function already uses, the collection's name, whether the
    statement assigns the comprehension whole)``."""
    # names of the function's scope: its bindings and what it reads (not a comprehension's own variables)
    taken = set(getattr(function, "locals", {})) | {
        n.name for n in nodes_of_class(function, nodes.Name) if n.name not in n.scope().locals or n.scope() is function}
    renamed: dict[str, str] = {}
    for generator in comprehension.generators:
        for target in nodes_of_class(generator.target, nodes.AssignName):
            if target.name in taken and target.name not in renamed:
                renamed[target.name] = unused_name(target.name, taken | set(renamed.values()))
    whole_value = isinstance(statement, nodes.Assign) and statement.value is comprehension \
        and len(statement.targets) == 1 and isinstance(statement.targets[0], nodes.AssignName)
    collected = statement.targets[0].name if whole_value else unused_name(
        "table" if isinstance(comprehension, nodes.DictComp) else "items", taken | set(renamed.values()))
    return renamed, collected, whole_value


def _nested_loops(inner, clauses: list, renamed: dict, collected: str, leading_lines) -> list:
    """`collected = []` (or `{}`) and the nested `for`/`if` statements that fill it, as libcst statements."""
    if isinstance(inner, cst.DictComp):
        store = build.assign(build.subscript(build.name(collected), build.rename(inner.key, renamed)),
                             build.rename(inner.value, renamed))
        start = build.assign(collected, cst.Dict([]))
    else:
        append = build.attribute(build.name(collected), "append")
        store = build.line(cst.Expr(build.call(append, build.rename(inner.elt, renamed))))
        start = build.assign(collected, cst.List([]))
    body: cst.BaseStatement = store
    for clause in reversed(clauses):
        for condition in reversed(clause.ifs):
            body = build.if_statement(build.rename(condition.test, renamed), [body])
        body = cst.For(target=build.rename(clause.target, renamed), iter=build.rename(clause.iter, renamed),
                       body=cst.IndentedBlock(body=[body]))
    return [start.with_changes(leading_lines=leading_lines), body]


def _comprehension_notes(comprehension, statement, function) -> list[str]:
    """What makes the rewrite unsafe: calls evaluated before the comprehension, a generator not consumed whole."""
    calls = any(isinstance(n, nodes.Call) for n in _evaluated_before(comprehension, statement))
    lazy = isinstance(comprehension, nodes.GeneratorExp) and not (
        isinstance(comprehension.parent, nodes.Call) and comprehension.parent.args == [comprehension]
        and isinstance(comprehension.parent.func, nodes.Name) and comprehension.parent.func.name in _CONSUMERS
        and comprehension.parent.func.name not in getattr(function, "locals", {}))
    return [text for flag, text in ((calls, "calls the statement makes before it now run after it"),
                                    (lazy, "the generator's items are all computed up front")) if flag]


class MatchToIfChain(Fixer):
    """`match s:` whose cases compare values (`case 1:`, `case 1 | 2:`, `case None:`, `case Color.RED:`, a
    guard, a final `case _:`) -> `if s == 1: ... elif ...: ... else: ...` (safe: a value pattern compares with
    `==`, None, True and False with `is`). A subject other than a name or attribute is computed once, first.
    Patterns that capture or destructure are refused."""

    rules = (statements_rules.MATCH_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "`match` on values -> an `if`/`elif` chain"

    def plan(self, finding, context):
        statement = finding.node
        if not isinstance(statement, nodes.Match):
            return None
        node = context.find(statement)
        if not isinstance(node, cst.Match):
            return self.refuse(finding, "the `match` statement was not found")
        prefix, subject = [], node.subject
        if not isinstance(subject, (cst.Name, cst.Attribute)):
            taken = set(getattr(statement.scope(), "locals", {})) | {
                n.name for n in nodes_of_class(statement.scope(), nodes.Name)}
            fresh = unused_name("subject", taken)
            prefix, subject = [build.assign(fresh, subject)], build.name(fresh)
        tests, bodies, fallback = [], [], None
        for index, case in enumerate(node.cases):
            test = _pattern_test(case.pattern, subject)
            if isinstance(test, str):
                return self.refuse(finding, f"`case` {index + 1}: {test}; write the `if` chain by hand")
            if case.guard is not None:
                test = case.guard if test is None else build.boolean(test, "and", case.guard)
            if test is None:  # `case _:` (irrefutable: Python allows it only last)
                fallback = case.body
                break
            tests.append(test)
            bodies.append(case.body)
        if not tests:
            return self.refuse(finding, "the `match` has only a wildcard case")
        chain = cst.Else(body=fallback) if fallback is not None else None
        for test, body in reversed(list(zip(tests, bodies))):
            chain = cst.If(test=build.standalone(test), body=body, orelse=chain)
        chain = chain.with_changes(leading_lines=node.leading_lines)
        if prefix:
            prefix[0] = prefix[0].with_changes(leading_lines=node.leading_lines)
            chain = chain.with_changes(leading_lines=())
        return self.edit(finding, [(node, cst.FlattenSentinel(prefix + [chain]))],
                         description=f"`match` with {len(node.cases)} case{'s' if len(node.cases) > 1 else ''} -> "
                                     "an `if`/`elif` chain")


def _pattern_test(pattern, subject):
    """The condition a value pattern tests (None for the wildcard), or why there is none."""
    if isinstance(pattern, cst.MatchValue):
        return build.compare(subject, "==", pattern.value)
    if isinstance(pattern, cst.MatchSingleton):
        return build.compare(subject, "is", pattern.value)
    if isinstance(pattern, cst.MatchAs) and pattern.pattern is None and pattern.name is None:
        return None
    if isinstance(pattern, cst.MatchOr):
        tests = [_pattern_test(element.pattern, subject) for element in pattern.patterns]
        if any(t is None or isinstance(t, str) for t in tests):
            return "an alternative is not a value"
        combined = tests[0]
        for test in tests[1:]:
            combined = build.boolean(combined, "or", test)
        return combined
    if isinstance(pattern, cst.MatchAs):
        return "the pattern binds a name"
    return f"a {type(pattern).__name__[5:].lower() or 'structural'} pattern destructures the subject"


class HoistClassDef(Fixer):
    """A `class` statement in graph code -> the same class at module level, just before the top-level statement
    that holds the function. Safe when the class reads no name of the function around it and the function sets
    no attribute of it (one class made at import then behaves as one made per call); unsafe under an `if` or in a
    loop (the class then exists where the original raised NameError), where nothing else may bind its name."""

    rules = (statements_rules.CLASS_DEF_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "move the `class` to module level"

    def plan(self, finding, context):
        inner = finding.node
        if not isinstance(inner, nodes.ClassDef):
            return None
        held = _enclosing_function(inner)
        if held is None:
            return self.refuse(finding, "the class is defined in a `try`, a `with` or a nested scope: move it by hand")
        function, nested = held
        if nested and (_bindings(function, inner.name) != 1 or len(inner.parent.body) == 1):
            return self.refuse(finding, f"`{inner.name}` is bound elsewhere in the function too, or the class is alone "
                                        "in its block: move it by hand")
        top = function
        while not isinstance(top.parent, nodes.Module):
            top = top.parent
        clash = module_level_clash(inner)
        if clash:
            return self.refuse(finding, clash)
        free = sorted(set(enclosing_reads(inner)) - {inner.name})  # closures, which module level would not see
        if free:
            return self.refuse(finding, f"the class reads {', '.join(f'`{n}`' for n in free)} of the function "
                                        "around it: pass them in instead (by hand)")
        if inner.decorators is not None:
            return self.refuse(finding, "the class is decorated: its decorators would run at import")
        if any(isinstance(n.expr, nodes.Name) and n.expr.name == inner.name
               for n in nodes_of_class(function, nodes.AssignAttr)):
            return self.refuse(finding, f"the function sets attributes of `{inner.name}`: one class made at import "
                                        "would keep them between calls")
        class_node = context.find(inner, (cst.ClassDef,))
        move = move_before(context, [class_node]) if class_node is not None else None
        if move is None:
            return self.refuse(finding, "the class or the statement holding it was not found")
        # under an `if` or in a loop: the class now exists where the original raised NameError (unsafe)
        return self.edit(finding, [move], safety=FixSafety.UNSAFE if nested else None,
                         description=f"move `class {inner.name}` to module level, before `{top.name}`")


class NonlocalToReturn(Fixer):
    """``def add(t): nonlocal total; total = total + t`` called as ``add(x)`` -> ``def add(t, total): total = total +
    t; return total`` called as ``total = add(x, total=total)`` (several names: a tuple). The inner function gets the
    value as a parameter and gives back the new one, so the outer function sees what it saw through `nonlocal`.
    Only when every call is a statement of the outer function after the `def` (not in a `try`), the names are
    assigned before the `def` in its block and never deleted, and the inner function has plain parameters, no
    `return`, `yield` or decorator, and no other `nonlocal` shares the function. Safe."""

    rules = (statements_rules.NONLOCAL_IN_GRAPH,)
    safety = FixSafety.SAFE
    description = "`nonlocal` -> a parameter and a returned value"

    def plan(self, finding, context):
        statement = finding.node
        if not isinstance(statement, nodes.Nonlocal):
            return None
        proven = _nonlocal_closure(statement)
        if isinstance(proven, str):
            return self.refuse(finding, f"{proven}: return the new value from the inner function (by hand)")
        inner, calls = proven
        replacements = _nonlocal_rewrite(context, inner, statement.names, calls)
        if replacements is None:
            return self.refuse(finding, "the inner function or one of its calls was not found")
        return self.edit(finding, replacements, description=f"`nonlocal {', '.join(statement.names)}` in "
                                                            f"`{inner.name}` -> parameters and a returned value")


def _nonlocal_closure(statement: nodes.Nonlocal):
    """(the inner function, its call statements) when the `nonlocal` can become a parameter and a returned value;
    else why not (a str)."""
    inner = statement.scope()
    outer = inner.parent.scope() if isinstance(inner, nodes.FunctionDef) and inner.parent is not None else None
    if not isinstance(outer, nodes.FunctionDef) or statement.parent is not inner:
        return "the `nonlocal` is not a statement of the body of a function nested in another"
    problem = _plain_inner(inner, outer) or _assigned_before(inner, outer, statement.names)
    if problem:
        return problem
    return _call_statements(inner, outer, statement.names)


def _plain_inner(inner, outer) -> str:
    """Why ``inner`` cannot take parameters and return the names ('' when it can)."""
    arguments = inner.args
    if inner.decorators is not None or arguments.vararg or arguments.kwarg or arguments.kwonlyargs \
            or arguments.posonlyargs or arguments.defaults or inner.is_generator():
        return f"`{inner.name}` has a decorator, defaults, `*args`/`**kwargs` or `yield`"
    if any(True for _ in nodes_of_class(inner, nodes.Return, skip_klass=(nodes.FunctionDef, nodes.Lambda))) \
            or sum(1 for _ in nodes_of_class(outer, nodes.Nonlocal)) != 1 or _bindings(outer, inner.name) != 1:
        return f"`{inner.name}` returns a value of its own, is bound twice, or another `nonlocal` shares the function"
    return ""


def _assigned_before(inner, outer, names) -> str:
    """Why a name may have no value where ``inner`` is called ('' when each is assigned by a statement before the
    `def` in its block and never deleted)."""
    block = getattr(inner.parent, "body", [])
    earlier = block[:block.index(inner)] if inner in block else []
    for name in names:
        assigned = any(isinstance(s, nodes.Assign) and any(t.name == name for t in s.nodes_of_class(nodes.AssignName))
                       for s in earlier)
        if not assigned or any(d.name == name for d in nodes_of_class(outer, nodes.DelName)):
            return f"`{name}` is not surely assigned before `def {inner.name}` (in its block, and never deleted)"
    return ""


def _call_statements(inner, outer, names):
    """The statements `inner(...)` of ``outer``, each after the `def` and outside a `try`, with no `*args`, `**kw`
    or keyword named as a name; else why not (a str)."""
    calls = []
    for use in nodes_of_class(outer, nodes.Name):
        if use.name != inner.name:
            continue
        call = use.parent
        if not (isinstance(call, nodes.Call) and call.func is use and isinstance(call.parent, nodes.Expr)
                and call.parent.scope() is outer and _after_in_block(call.parent, inner)
                and not any(isinstance(a, nodes.Starred) for a in call.args)
                and not any(k.arg is None or k.arg in names for k in call.keywords or ())):
            return f"`{' '.join(use.parent.as_string().split())[:40]}` uses `{inner.name}` other than as a call " \
                   "statement after its `def` (outside a `try`)"
        calls.append(call.parent)
    return (inner, calls) if calls else "the inner function is never called"


def _after_in_block(statement, definition) -> bool:
    """``statement`` lies in a statement after ``definition`` in the block that holds it, with no `try` between."""
    node = statement
    while node is not None and node.parent is not definition.parent:
        if isinstance(node.parent, (nodes.Try, nodes.TryStar)):
            return False
        node = node.parent
    body = getattr(definition.parent, "body", [])
    return node is not None and node in body and body.index(node) > body.index(definition)


def _nonlocal_rewrite(context, inner, names: list[str], calls):
    """The replacements: the inner function without its `nonlocal`, with the names as last parameters and
    returned at the end; each call statement assigning the names what the call returns."""
    function = context.find(inner, (cst.FunctionDef,))
    if function is None or not isinstance(function.body, cst.IndentedBlock):
        return None
    body = []
    for line in function.body.body:
        if isinstance(line, cst.SimpleStatementLine) and any(isinstance(s, cst.Nonlocal) for s in line.body):
            rest = [s for s in line.body if not isinstance(s, cst.Nonlocal)]
            if rest:
                last = rest[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                body.append(line.with_changes(body=rest[:-1] + [last]))
            continue
        body.append(line)
    def carried():  # the names, returned at the end of the inner function and assigned by each call (new nodes)
        return build.name(names[0]) if len(names) == 1 else build.tuple_of([build.name(n) for n in names], bare=True)

    params = list(function.params.params) + [cst.Param(name=build.name(n)) for n in names]
    replacements = [(function, function.with_changes(
        params=function.params.with_changes(params=params),
        body=function.body.with_changes(body=body + [build.returns(carried())])))]
    for statement in calls:
        expression = context.find(statement, (cst.Expr,))
        if expression is None or not isinstance(expression.value, cst.Call):
            return None
        call = expression.value
        extra = [cst.Arg(keyword=build.name(n), value=build.name(n),
                         equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                               whitespace_after=cst.SimpleWhitespace(""))) for n in names]
        assigned = cst.Assign(targets=[cst.AssignTarget(target=carried())],
                              value=call.with_changes(args=list(call.args) + extra), semicolon=expression.semicolon)
        replacements.append((expression, assigned))
    return replacements


FIXERS = (DropDelete(), HoistImport(), IdentityToEquality(), MembershipSetToTuple(), LoopElseAfterLoop(),
          WithoutContextManager(), HoistAssignmentExpression(), ComprehensionToLoops(), MatchToIfChain(),
          HoistClassDef(), NonlocalToReturn())
