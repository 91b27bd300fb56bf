"""Port mode's cuts: take a compile error's statement out of a scratch copy of the model, so the next compile goes on.

A GRAPH_MODE compile stops at its first error. To list every blocker of a model in one run, port mode compiles
again with the statement the compiler stopped at replaced by what PYNATIVE_MODE computed there: the names it
assigned (their values after it ran), the branch it took, the values a loop's target took, what the function
returned. A statement with no such value (a write to an attribute, a call for its effect) is dropped; one whose
value was not recorded cuts its whole function down to the value that function returned. The copy keeps every line
where it was, so the next error's line is the user's line.

Standard library only (:mod:`ast`): it runs in the validation child, which may use another Python than graphlint's.
The values are handed to the child as module globals (``_graphlint_cut_<line>``), which it fills with stand-ins.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

STAND_IN = "_graphlint_cut_{line}"  # (by the first line it replaces)


@dataclass
class Cut:
    line: int  # where the compiler stopped
    first: int  # the first and last lines replaced
    last: int
    lines: list  # the replacement, one string per line replaced
    what: str  # how it was cut, for the report ("the loop's values from PYNATIVE_MODE")
    name: str = ""  # the module global the replacement calls ("" when it calls none)
    value: object = None  # what that call returns
    depth: int = 0  # 0: the statement itself; more: an enclosing header, then the function (see plan)
    also: list = field(default_factory=list)  # more (first, last, lines) it replaces: a `try`'s handlers
    # The values put in are the ones every run of the statement computed: its function ran once in PYNATIVE_MODE
    # and the statement is not inside a loop (a whole loop is replaced by the values after it). An error met after
    # a cut that is not exact may come from the cut (the first call's shapes reused by the second): suggested only.
    exact: bool = True
    # How to tell it is exact from the calls recorded: ("after", first, last, names), ("returns",), ("branch",
    # header first, header last, body first, body last), ("loop values", loop first, loop last, header first,
    # header last, body first, body last, names), ("no handler", [(first, last)]) or () (nothing to put in)
    check: tuple = ()


@dataclass
class Calls:
    """What the PYNATIVE_MODE run of the model recorded, by the first line of each function's code (its first
    decorator's line, as Python numbers a code object) in the compiled file."""

    lines: dict = field(default_factory=dict)  # first line -> [(line, locals)] of its first call; line 0: its return
    # (the first of ``runs``, and ``returns`` the first of ``all_returns``: what a cut puts in)
    returns: dict = field(default_factory=dict)  # first line -> what its first call returned
    entry: int = 0  # the first line of the entry's own function (its construct): never cut whole
    runs: dict = field(default_factory=dict)  # first line -> the lines of each of its first calls (as ``lines``)
    all_returns: dict = field(default_factory=dict)  # first line -> what each of those calls returned


def plan(text: str, line: int, calls: Calls, depth: int = 0) -> Cut | str:
    """The cut that takes the statement at ``line`` out of ``text``, or why there is none. ``depth`` > 0: the compile
    failed there again with that statement cut (a branch join names an assignment inside the branch): cut wider,
    the header of the ``depth``-th enclosing ``if`` or ``for`` (the branch PYNATIVE_MODE took, its loop's values),
    then the whole function."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return f"the compiled text does not parse ({exc.msg})"
    function = _innermost_function(tree, line)
    if function is None:
        return "the line is not inside a function"
    first = _first_line(function)
    records = calls.lines.get(first)
    if records is None:
        return f"{function.name} did not run in PYNATIVE_MODE"
    source = text.splitlines()
    chain = _statements_holding(function.body, line)
    loops = [s for s in chain[:-1] if isinstance(s, (ast.For, ast.While))] + \
        [s for s in chain[-1:] if isinstance(s, ast.While)]
    candidates = []
    if chain:
        candidates.append(_statement_cut(chain[-1], line, records, calls.returns.get(first, _NOTHING), source))
    if loops:  # (its values may change from step to step: the whole loop, replaced by the values after it)
        candidates.append(_loop_cut(loops[0], line, records, source))
    for statement in reversed(chain[:chain.index(loops[0])] if loops else chain[:-1]):
        if isinstance(statement, (ast.If, ast.For)):
            candidates.append(_header_cut(statement, statement.lineno, records, source))
    candidates.append(_function_cut(function, line, calls, source))
    usable = [(index, cut) for index, cut in enumerate(candidates) if isinstance(cut, Cut) and index >= depth]
    if not usable:
        last = candidates[-1]
        return last if isinstance(last, str) and depth < len(candidates) else "cutting its whole function did not help"
    runs = calls.runs.get(first) or [records]
    returns = calls.all_returns.get(first, [])
    for index, cut in usable:
        cut.line, cut.depth = line, index
        cut.exact = exact_everywhere(cut, runs, returns) and not _opaque(signature(cut.value))
    return next((cut for _, cut in usable if cut.exact), usable[0][1])


def signature(value, depth: int = 0):
    """What a compile depends on of a value: a Tensor's (or array's) shape and dtype, a Python number's value, a
    container's items; not a Tensor's values."""
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if depth > 4:
        return "..."
    if shape is not None and dtype is not None and not isinstance(value, (bool, int, float)):
        return "tensor", tuple(shape), str(dtype)
    if isinstance(value, (list, tuple)):
        return type(value).__name__, tuple(signature(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return "dict", tuple((repr(key), signature(item, depth + 1)) for key, item in value.items())
    if value is None or isinstance(value, (bool, int, float, str)):
        return type(value).__name__, value
    return (type(value).__name__,)


def _opaque(found) -> bool:
    """The signature holds an object that is no Tensor, number, string or container of them (a dataclass the
    model built from Tensors): put in as a constant, the compile sees something else than the model gives it."""
    if not isinstance(found, tuple) or not found:
        return False
    if len(found) == 1:
        return True
    if found[0] in ("list", "tuple"):
        return any(_opaque(item) for item in found[1])
    if found[0] == "dict":
        return any(_opaque(item) for _, item in found[1])
    return False


def exact_everywhere(cut: Cut, runs: list, returns: list) -> bool:
    """Every call recorded (and every time the statement ran in it) gave what the cut puts in, as a compile sees it
    (:func:`signature`): the first call's values stand for all of them."""
    kind = cut.check[0] if cut.check else ""
    if not kind:
        return True
    if kind == "returns":
        return len({repr(signature(value)) for value in returns}) <= 1
    if kind == "no handler":
        return not any(first <= at <= last for records in runs for at, _ in records for first, last in cut.check[1])
    seen = set()
    for records in runs:
        seen.update(repr(item) for item in _observed(cut.check, records))
        if len(seen) > 1:
            return False
    return True


def _observed(check: tuple, records: list) -> list:
    """What each run of the statement gave, in one call's records (as signatures)."""
    kind = check[0]
    if kind == "after":
        _, first, last, names = check
        return [signature(tuple(values.get(n) for n in names)) if values is not None else None
                for values in _executions(records, first, last)]
    if kind == "branch":
        _, first, last, body_first, body_last = check
        found = []
        for index in _entries(records, first, last):
            later = next((at for at, _ in records[index + 1:] if not first <= at <= last), 0)
            found.append(body_first <= later <= body_last)
        return found
    _, loop_first, loop_last, first, last, body_first, body_last, names = check
    found = []
    for index in _entries(records, loop_first, loop_last):
        end = next((i for i in range(index + 1, len(records)) if not loop_first <= records[i][0] <= loop_last),
                   len(records))
        found.append(signature(_iterations(records[index:end], first, last, body_first, body_last, list(names))))
    return found


def _entries(records: list, first: int, last: int) -> list:
    """The indexes of the records where a run enters lines first..last."""
    return [index for index, (at, _) in enumerate(records)
            if first <= at <= last and (index == 0 or not first <= records[index - 1][0] <= last)]


def _executions(records: list, first: int, last: int) -> list:
    """The locals after each run of lines first..last (None for a run that did not finish)."""
    found = []
    for index in _entries(records, first, last):
        found.append(next((values for at, values in records[index + 1:] if not first <= at <= last), None))
    return found


def _loop_cut(loop, line: int, records: list, source: list) -> Cut | None:
    """A whole loop replaced by the values its names had after it, in PYNATIVE_MODE."""
    after = _after(records, loop.lineno, loop.end_lineno)
    if after is None:
        return None
    names = [name for name in dict.fromkeys(node.id for node in ast.walk(loop) if isinstance(node, ast.Name))
             if name in after and name != "self"]
    first, last = loop.lineno, loop.end_lineno
    if not names:
        return Cut(line, first, last, _replaced(source, first, last, "pass"), "the loop left out (it binds nothing)")
    name = STAND_IN.format(line=first)
    value = after[names[0]] if len(names) == 1 else tuple(after[n] for n in names)
    return Cut(line, first, last, _replaced(source, first, last, f"{', '.join(names)} = {name}()"),
               "the loop replaced by the values PYNATIVE_MODE had after it", name, value,
               check=("after", first, last, tuple(names)))


_NOTHING = object()


def apply(text: str, cuts: list) -> str:
    """``text`` with each cut's lines replaced (a later cut covering an earlier one replaces it)."""
    source = text.splitlines()
    kept = []
    for cut in cuts:
        kept = [c for c in kept if not (cut.first <= c.first and c.last <= cut.last)] + [cut]
    for cut in kept:
        for first, last, lines in [(cut.first, cut.last, cut.lines)] + cut.also:
            source[first - 1:last] = lines
    return "\n".join(source) + "\n"


def covered(cuts: list, line: int) -> Cut | None:
    """The last cut whose lines hold ``line``."""
    return next((cut for cut in reversed(cuts) if cut.first <= line <= cut.last), None)


def _first_line(function) -> int:
    return min([function.lineno] + [d.lineno for d in function.decorator_list])


def _innermost_function(tree, line: int):
    found = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _first_line(node) <= line <= node.end_lineno:
            if found is None or _first_line(node) >= _first_line(found):
                found = node
    return found


def _statements_holding(body: list, line: int) -> list:
    """The statements of ``body`` whose lines hold ``line``, outermost first, down to the innermost one (a
    compound statement whose header holds it ends the chain); [] when ``line`` is before the body (the header
    of its function)."""
    for statement in body:
        if not statement.lineno <= line <= statement.end_lineno:
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return [statement]
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(statement, name, None)
            if inner and inner[0].lineno <= line:
                found = _statements_holding(inner, line)
                if found:
                    return [statement] + found
        for handler in getattr(statement, "handlers", ()):
            if handler.lineno <= line <= handler.end_lineno:
                return [statement] + _statements_holding(handler.body, line)
        return [statement]
    return []


def _replaced(source: list, first: int, last: int, code: str) -> list:
    indent = source[first - 1][:len(source[first - 1]) - len(source[first - 1].lstrip())]
    return [indent + code] + [""] * (last - first)


def _after(records: list, first: int, last: int):
    """The locals right after the statement on lines first..last first ran (None: it never finished)."""
    for index, (line, _) in enumerate(records):
        if first <= line <= last:
            for later, values in records[index + 1:]:
                if not first <= later <= last:
                    return values
            return None
    return None


def _assigned_names(targets: list):
    """The local names an assignment binds or changes (``x[i] = v`` changes ``x``), or None when one of its targets
    is not rooted at a name; writes to attributes bind none."""
    names = []
    for target in targets:
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            inner = _assigned_names(list(target.elts))
            if inner is None:
                return None
            names += inner
        elif isinstance(target, ast.Starred):
            inner = _assigned_names([target.value])
            if inner is None:
                return None
            names += inner
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            names.append(target.value.id)
        elif not isinstance(target, (ast.Attribute, ast.Subscript)):
            return None
    return list(dict.fromkeys(names))


def _statement_cut(statement, line: int, records: list, returned, source: list) -> Cut | None:
    first, last = statement.lineno, statement.end_lineno
    if isinstance(statement, (ast.For, ast.If)):
        return _header_cut(statement, line, records, source)
    if isinstance(statement, ast.Try) and line == statement.lineno:
        return _try_cut(statement, line, records, source)
    if isinstance(statement, (ast.Expr, ast.Assert, ast.Raise, ast.Delete, ast.Pass)):
        return Cut(line, first, last, _replaced(source, first, last, "pass"), "the statement left out")
    if isinstance(statement, ast.Return):
        if returned is _NOTHING:
            return None
        name = STAND_IN.format(line=first)
        return Cut(line, first, last, _replaced(source, first, last, f"return {name}()"),
                   "the value PYNATIVE_MODE returned there", name, returned, check=("returns",))
    if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        names = _assigned_names(targets)
        if names is None:
            return None
        if not names:
            return Cut(line, first, last, _replaced(source, first, last, "pass"), "the attribute write left out")
        after = _after(records, first, last)
        if after is None or any(name not in after for name in names):
            return None
        name = STAND_IN.format(line=first)
        value = after[names[0]] if len(names) == 1 else tuple(after[n] for n in names)
        return Cut(line, first, last, _replaced(source, first, last, f"{', '.join(names)} = {name}()"),
                   "the values PYNATIVE_MODE assigned there", name, value, check=("after", first, last, tuple(names)))
    return None


def _header_cut(statement, line: int, records: list, source: list) -> Cut | None:
    """A `for` or `if` whose header the compiler stopped at: the loop over the values its target took in
    PYNATIVE_MODE, the branch it took there."""
    first, last = statement.lineno, statement.body[0].lineno - 1
    if not first <= line <= last:
        return None
    body_first, body_last = statement.body[0].lineno, statement.body[-1].end_lineno
    if isinstance(statement, ast.If):
        taken = _branch_taken(records, first, last, body_first, body_last)
        if taken is None:
            return None
        return _if_cut(statement, line, taken, source)
    names = _assigned_names([statement.target])
    if not names or not isinstance(statement.target, (ast.Name, ast.Tuple)) or statement.orelse:
        return None
    values = _iterations(records, first, last, body_first, body_last, names)
    if values is None:
        return None
    target = ast.get_source_segment("\n".join(source), statement.target)
    name = STAND_IN.format(line=first)
    return Cut(line, first, last, _replaced(source, first, last, f"for {target} in {name}():"),
               "the values its target took in PYNATIVE_MODE", name, tuple(values),
               check=("loop values", statement.lineno, statement.end_lineno, first, last, body_first, body_last,
                      tuple(names)))


def _try_cut(statement, line: int, records: list, source: list) -> Cut | None:
    """A `try` whose body raised nothing in PYNATIVE_MODE: its body (then its `else` and `finally` bodies) run as
    they are, dedented in its place; its handlers left out."""
    handlers = [(h.lineno, h.end_lineno) for h in statement.handlers]
    if any(first <= at <= last for at, _ in records for first, last in handlers):
        return None  # (a handler ran: the body's value is not what the compile would see)
    also = [_kept(source, statement.body, statement)] + [(first, last, [""] * (last - first + 1))
                                                          for first, last in handlers]
    for block in (statement.orelse, statement.finalbody):
        if block:
            header = block[0].lineno - 1  # (`else:` / `finally:` on the line before its body)
            also += [(header, header, [""]), _kept(source, block, statement)]
    first = statement.lineno
    return Cut(line, first, first, [""], "its handlers left out", also=also, check=("no handler", tuple(handlers)))


def _kept(source: list, block: list, statement) -> tuple:
    """(first, last, lines) of ``block``, dedented to ``statement``'s column: the body of a header left out."""
    first, last = block[0].lineno, block[-1].end_lineno
    by = block[0].col_offset - statement.col_offset
    lines = [text[by:] if text[:by].isspace() else text for text in source[first - 1:last]]
    return first, last, lines


def _blank(block: list) -> tuple:
    first, last = block[0].lineno, block[-1].end_lineno
    return first, last, [""] * (last - first + 1)


def _if_cut(statement, line: int, taken: bool, source: list) -> Cut:
    """The branch PYNATIVE_MODE took kept, dedented in its place, the other left out. (MindSpore does not fold
    ``if True:``: a name bound in one branch would still fail to join.)"""
    first, last = statement.lineno, statement.body[0].lineno - 1
    header = source[first - 1].lstrip()
    if header.startswith("elif"):  # (inside an if/elif chain: the chain must stay; only its test is replaced)
        return Cut(line, first, last, _replaced(source, first, last, f"elif {taken}:"), "the branch PYNATIVE_MODE took",
                   check=("branch", first, last, statement.body[0].lineno, statement.body[-1].end_lineno))
    also = [_kept(source, statement.body, statement) if taken else _blank(statement.body)]
    orelse = statement.orelse
    if orelse and isinstance(orelse[0], ast.If) and source[orelse[0].lineno - 1].lstrip().startswith("elif"):
        if taken:
            also.append((orelse[0].lineno, statement.end_lineno, [""] * (statement.end_lineno - orelse[0].lineno + 1)))
        else:
            text = source[orelse[0].lineno - 1]
            indent = text[:len(text) - len(text.lstrip())]
            also.append((orelse[0].lineno, orelse[0].lineno, [indent + text.lstrip()[2:]]))  # (elif -> if)
    elif orelse:
        also += [(orelse[0].lineno - 1, orelse[0].lineno - 1, [""]),
                 _blank(orelse) if taken else _kept(source, orelse, statement)]
    # (the header's lines hold a `pass`: a block whose only statement was this `if` stays a block)
    return Cut(line, first, last, _replaced(source, first, last, "pass"), "the branch PYNATIVE_MODE took", also=also,
               check=("branch", first, last, statement.body[0].lineno, statement.body[-1].end_lineno))


def _branch_taken(records: list, first: int, last: int, body_first: int, body_last: int):
    for index, (at, _) in enumerate(records):
        if first <= at <= last:
            for later, _ in records[index + 1:]:
                if not first <= later <= last:
                    return body_first <= later <= body_last
            return False
    return None


def _iterations(records: list, first: int, last: int, body_first: int, body_last: int, names: list):
    """The values the loop's target took, its first time through (None: the header never ran)."""
    values, started = [], False
    index = 0
    while index < len(records):
        at = records[index][0]
        if first <= at <= last:
            started = True
            later = next((i for i in range(index + 1, len(records)) if not first <= records[i][0] <= last), None)
            if later is None or not body_first <= records[later][0] <= body_last:
                return values
            here = records[later][1]
            if any(name not in here for name in names):
                return None
            values.append(here[names[0]] if len(names) == 1 else tuple(here[n] for n in names))
            index = later
        elif started and not body_first <= at <= body_last:
            return values
        index += 1
    return values if started else None


def _function_cut(function, line: int, calls: Calls, source: list) -> Cut | str:
    first = _first_line(function)
    if first == calls.entry:
        return "it is in the entry's own function, which cannot be cut"
    if first not in calls.returns:
        return f"{function.name} did not return in PYNATIVE_MODE"
    start, end = function.body[0].lineno, function.body[-1].end_lineno
    if start <= function.lineno:
        return f"{function.name}'s body is on its def line"
    name = STAND_IN.format(line=start)
    return Cut(line, start, end, _replaced(source, start, end, f"return {name}()"),
               f"{function.name} cut to the value it returned in PYNATIVE_MODE", name, calls.returns[first],
               check=("returns",))
