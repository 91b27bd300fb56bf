"""What a fixer is, and the libcst plumbing every fixer shares.

A fixer turns one finding (rule + source span + the analysis behind it) into
an :class:`Edit` (libcst nodes to replace) or a :class:`Refusal` (why not).
Fixers never re-detect: they locate the finding's node in the libcst tree by
its position, read the payload the checker attached to the finding, and ask the
analysis (values, shapes, purity) what they need to know about the code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from astroid import nodes
from libcst._nodes.internal import CodegenState
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState

from graphlint.catalogue.model import FixSafety

# astroid node class -> the libcst node classes that can sit at the same span
CST_KINDS = {
    nodes.If: (cst.If,), nodes.While: (cst.While,), nodes.For: (cst.For,), nodes.Delete: (cst.Del,),
    nodes.Import: (cst.Import,), nodes.ImportFrom: (cst.ImportFrom,), nodes.AnnAssign: (cst.AnnAssign,),
    nodes.AugAssign: (cst.AugAssign,), nodes.Compare: (cst.Comparison,), nodes.Call: (cst.Call,),
    nodes.Attribute: (cst.Attribute,), nodes.Assign: (cst.Assign,), nodes.Subscript: (cst.Subscript,),
    nodes.Return: (cst.Return,), nodes.Expr: (cst.Expr,), nodes.IfExp: (cst.IfExp,),
    nodes.Name: (cst.Name,), nodes.BinOp: (cst.BinaryOperation,), nodes.FunctionDef: (cst.FunctionDef,),
    nodes.With: (cst.With,), nodes.NamedExpr: (cst.NamedExpr,), nodes.ListComp: (cst.ListComp,),
    nodes.GeneratorExp: (cst.GeneratorExp,), nodes.DictComp: (cst.DictComp,), nodes.Match: (cst.Match,),
    nodes.Lambda: (cst.Lambda,), nodes.ClassDef: (cst.ClassDef,),
}


@dataclass
class Edit:
    """Replacements (original libcst node -> new node, sentinel or FlattenSentinel) for one finding."""

    finding: object
    fixer: "Fixer"
    replacements: list[tuple[cst.CSTNode, object]]
    imports: list[tuple[str, str | None, str | None]] = field(default_factory=list)  # (module, obj, asname)
    module_prefix: list[cst.CSTNode] = field(default_factory=list)  # statements added after the imports
    description: str = ""
    safety: FixSafety | None = None  # this rewrite's own safety, where it differs from the fixer's

    @property
    def applicability(self) -> FixSafety:
        return self.safety or self.fixer.safety

    @property
    def targets(self) -> list[cst.CSTNode]:
        return [original for original, _ in self.replacements]


@dataclass
class Refusal:
    finding: object
    fixer: "Fixer | None"
    reason: str


class Fixer:
    """Base class: ``rules`` are the rules it fixes; ``safety`` decides when --fix applies it (an edit may
    narrow it for one instance)."""

    rules: tuple = ()
    safety: FixSafety = FixSafety.SAFE
    description = ""

    def plan(self, finding, context: "FixContext") -> Edit | Refusal | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def refuse(self, finding, reason: str) -> Refusal:
        return Refusal(finding, self, reason)

    def edit(self, finding, replacements, **kw) -> Edit:
        return Edit(finding, self, replacements, **kw)


def unused_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base_2``, ``base_3`` ... : the first not in ``taken``."""
    return next(name for name in (base if i == 1 else f"{base}_{i}" for i in range(1, 10_000)) if name not in taken)


class _Recorded:
    """``with state.record_syntactic_position(node)``: a plain context manager (contextlib's generator-based
    one, once per expression, was a tenth of the fix time)."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state, node, start_node, end_node):
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node
        self.start = (state.line, state.column)

    def __enter__(self):
        return None

    def __exit__(self, *_exc) -> bool:
        state = self.state
        start = state.spans[self.start_node][0] if self.start_node is not None else self.start
        end = state.spans[self.end_node][1] if self.end_node is not None else (state.line, state.column)
        state.spans[self.node] = (start, end)
        return False


class _SpanState(PositionProvidingCodegenState):
    """libcst's position-tracking code generation, recording spans as tuples (creating its CodePosition and
    CodeRange objects, two per node, cost more than generating the code), and each node's parent on the way
    (the generation visits every node: a separate walk for the parents is saved)."""

    __slots__ = ("spans", "parents", "_open")

    def _update_position(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            segments = NEWLINE_RE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def before_codegen(self, node) -> None:
        self._stack.append((self.line, self.column))
        if self._open:
            self.parents[id(node)] = self._open[-1]
        self._open.append(node)

    def after_codegen(self, node) -> None:
        self._open.pop()
        # a syntactic position recorded inside wins, as in PositionProvider
        self.spans.setdefault(node, (self._stack.pop(), (self.line, self.column)))

    def record_syntactic_position(self, node, *, start_node=None, end_node=None) -> _Recorded:
        return _Recorded(self, node, start_node, end_node)


class _NoRecord:
    """A context manager that does nothing, without a generator's cost (libcst's default opens one per node)."""

    __slots__ = ()

    def __enter__(self):
        return None

    def __exit__(self, *_exc) -> bool:
        return False


_NO_RECORD = _NoRecord()


class _PlainState(CodegenState):
    """libcst's plain code generation, minus the no-op generator it enters around every node's position."""

    __slots__ = ()

    def record_syntactic_position(self, node, *, start_node=None, end_node=None) -> _NoRecord:
        return _NO_RECORD


def _changed_only_at(old: cst.CSTNode, new: cst.CSTNode, places: list[int]) -> cst.FunctionDef | None:
    """The function at ``places`` (indexes of bodies from the module down) in ``new``, if ``new`` differs
    from ``old`` in it alone: every other statement, and every other field of the bodies' owners, is the same
    object (the edits rebuild only the path to what they replace)."""
    for depth, place in enumerate(places):
        if type(old) is not type(new) or not _same_but_body(old, new):
            return None
        before, after = old.body, new.body
        if len(before) != len(after) or any(a is not b for k, (a, b) in enumerate(zip(before, after)) if k != place):
            return None
        old, new = before[place], after[place]
        if depth < len(places) - 1:  # a class on the way: into its block
            if not isinstance(old, cst.ClassDef) or type(new) is not cst.ClassDef or not _same_but_body(old, new):
                return None
            old, new = old.body, new.body
    return new if isinstance(old, cst.FunctionDef) and type(new) is cst.FunctionDef and new is not old else None


def _same_but_body(old: cst.CSTNode, new: cst.CSTNode) -> bool:
    for name in type(old).__dataclass_fields__:
        if name == "body":
            continue
        a, b = getattr(old, name), getattr(new, name)
        if a is not b and not (type(a) in (str, bool) and a == b):
            return False
    return True


class FixContext:
    """A module's libcst tree with positions, and lookups from astroid spans to libcst nodes.

    Built once per fix round of a file, so it must cost little next to linting the file: positions come from
    position-tracking code generation (libcst's PositionProvider, without MetadataWrapper's tree copy and
    batched visit), which records parents on the way, computed on first use. A lookup inside a function
    generates only the outermost function holding it (checked against the text), not the whole module:
    generation is most of what planning a fix costs."""

    def __init__(self, text: str, analysis=None, info=None, tree: cst.Module | None = None):
        """``tree``: the libcst tree of ``text`` when the caller has it (the tree an edit produced, whose code
        is ``text``); parsed from ``text`` otherwise."""
        self.text = text
        self.tree = tree if tree is not None else cst.parse_module(text)
        self.lines = text.splitlines(keepends=True)
        self.analysis = analysis
        self.info = info
        self.findings: list = []  # the file's findings this round: fixers consult them, never re-detect
        self._spans: dict = {}  # node -> span, for the parts of the tree generated so far
        self._parent_of: dict[int, cst.CSTNode] = {}  # id(node) -> parent, likewise
        self._complete = False  # the whole module generated
        self._regions: dict[int, bool] = {}  # id(astroid function) -> whether it was generated on its own
        # where each function generated on its own sits: (first line, line count, indents, indexes of the
        # path from the module's body to it), so that an edit inside it regenerates only it (code_of)
        self._layouts: list[tuple[int, int, list[str], list[int]]] = []
        self._by_start: dict[tuple[int, int], list[cst.CSTNode]] | None = None
        # what the last code_of generated on its own: (first line, indents of the classes around it, its code)
        self.regenerated: tuple[int, list[str], str] | None = None

    @property
    def positions(self) -> dict:
        """libcst node -> ``((start line, start column), (end line, end column))``, lines 1-based, columns
        0-based in characters: the spans of libcst's PositionProvider."""
        self._generate_all()
        return self._spans

    @property
    def parents(self) -> dict[int, cst.CSTNode]:
        """``id(node) -> parent node`` for every node of the tree."""
        self._generate_all()
        return self._parent_of

    def span(self, node: cst.CSTNode):
        """The span of a node of the tree (see :attr:`positions`), or None for a node not in it."""
        found = self._spans.get(node)
        if found is None and not self._complete:
            self._generate_all()
            found = self._spans.get(node)
        return found

    def parent_ids(self, nodes_: list) -> dict[int, cst.CSTNode]:
        """``id(node) -> parent`` covering the paths from ``nodes_`` to the module (for replace_in_tree)."""
        for node in nodes_:
            self.span(node)
        return self._parent_of

    def _generate_all(self) -> None:
        if self._complete:
            return
        state = self._state(1, [])
        self.tree._codegen(state)  # noqa: SLF001 - what PositionProvider's _gen_impl does
        self._spans, self._parent_of, self._complete, self._by_start = state.spans, state.parents, True, None

    def _state(self, line: int, indents: list[str]) -> "_SpanState":
        state = _SpanState(default_indent=self.tree.default_indent, default_newline=self.tree.default_newline,
                           provider=None)
        state.spans, state.parents, state._open = {}, {}, []  # noqa: SLF001
        state.line, state.indent_tokens = line, list(indents)
        return state

    def _generate_around(self, node: nodes.NodeNG) -> bool:
        """Generate the outermost function holding ``node`` on its own (it and the classes around it must sit
        directly in the module or class bodies); False when that cannot be done (then the whole module is)."""
        func, current = None, node
        while current is not None and not isinstance(current, nodes.Module):
            if isinstance(current, nodes.FunctionDef):
                func = current
            current = current.parent
        if func is None:
            return False
        known = self._regions.get(id(func))
        if known is not None:
            return known
        done = self._generate_function(func)
        self._regions[id(func)] = done
        return done

    def _generate_function(self, func: nodes.FunctionDef) -> bool:
        steps = [func]
        while not isinstance(steps[-1].parent, nodes.Module):
            if not isinstance(steps[-1].parent, nodes.ClassDef):
                return False
            steps.append(steps[-1].parent)
        steps.reverse()
        container, body, indents, path, places = self.tree, self.tree.body, [], {}, []
        target = None
        for step in steps:
            kind, cst_kind = (nodes.ClassDef, cst.ClassDef) if isinstance(step, nodes.ClassDef) else \
                (nodes.FunctionDef, cst.FunctionDef)
            same = [s for s in step.parent.body if isinstance(s, kind) and s.name == step.name]
            matches = [s for s in body if isinstance(s, cst_kind) and s.name.value == step.name]
            if len(same) != len(matches):
                return False
            target = matches[next(i for i, s in enumerate(same) if s is step)]
            places.append(next(i for i, s in enumerate(body) if s is target))
            path[id(target)] = container
            if step is func:
                break
            block = target.body
            if not isinstance(block, cst.IndentedBlock):
                return False
            path[id(block)] = target
            indents.append(block.indent if block.indent is not None else self.tree.default_indent)
            container, body = block, block.body
        anchor = func.decorators.nodes[0].lineno if func.decorators and func.decorators.nodes else func.lineno
        first = anchor - len(target.leading_lines) - (len(target.decorators[0].leading_lines) if target.decorators
                                                       else 0)
        if first < 1:
            return False
        state = self._state(first, indents)
        target._codegen(state)  # noqa: SLF001
        code = "".join(state.tokens)
        if code != "".join(self.lines[first - 1:first - 1 + len(code.splitlines(keepends=True))]):
            return False  # not where the astroid lines put it: generate the module instead
        self._spans.update(state.spans)
        self._parent_of.update(state.parents)
        self._parent_of.update(path)
        self._by_start = None
        self._layouts.append((first, len(code.splitlines(keepends=True)), indents, places))
        return True

    def code_of(self, edited: cst.Module) -> str:
        """The code of ``edited``, this tree with edits applied: when they changed one function that was
        generated on its own and nothing else (no import, no statement added), only it is generated again
        and put in place of its old lines; otherwise the whole module is."""
        self.regenerated = None
        if edited is self.tree:
            return self.text
        for first, count, indents, places in self._layouts:
            func = _changed_only_at(self.tree, edited, places)
            if func is not None:  # plain generation: the next round's lookups record their own positions
                state = _PlainState(default_indent=self.tree.default_indent,
                                    default_newline=self.tree.default_newline, indent_tokens=list(indents))
                func._codegen(state)  # noqa: SLF001
                code = "".join(state.tokens)
                self.regenerated = (first, list(indents), code)
                return "".join(self.lines[:first - 1]) + code + "".join(self.lines[first - 1 + count:])
        return edited.code

    def _starts(self) -> dict[tuple[int, int], list[cst.CSTNode]]:
        if self._by_start is None:
            self._by_start = {}
            for node, (start, _end) in self._spans.items():
                self._by_start.setdefault(start, []).append(node)
        return self._by_start

    def _char_column(self, line: int, byte_column: int) -> int:
        if not 1 <= line <= len(self.lines):
            return byte_column
        return len(self.lines[line - 1].encode("utf-8")[:byte_column].decode("utf-8", "ignore"))

    def find(self, node: nodes.NodeNG, kinds: tuple[type, ...] | None = None) -> cst.CSTNode | None:
        """The libcst node at an astroid node's span."""
        kinds = kinds or CST_KINDS.get(type(node))
        if kinds is None:
            return None
        start = (node.lineno, self._char_column(node.lineno, node.col_offset))
        end = None
        if node.end_lineno is not None and node.end_col_offset is not None:
            end = (node.end_lineno, self._char_column(node.end_lineno, node.end_col_offset))
        if not self._complete and not self._generate_around(node):
            self._generate_all()
        candidates = [c for c in self._starts().get(start, ()) if isinstance(c, kinds)]
        if not candidates and not self._complete:  # outside what was generated (a decorator, say)
            self._generate_all()
            candidates = [c for c in self._starts().get(start, ()) if isinstance(c, kinds)]
        if end is not None:
            exact = [c for c in candidates if self._spans[c][1] == end]
            if exact:
                return exact[0]
        return candidates[0] if len(candidates) == 1 else None

    def values_of(self, finding):
        """The value analysis of the graph function a finding is in (None without one, or without analysis)."""
        if self.analysis is None or finding.graph is None:
            return None
        return self.analysis.values(finding.graph)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        found = self._parent_of.get(id(node))
        if found is None and not self._complete:
            self._generate_all()
            found = self._parent_of.get(id(node))
        return found

    def statement_line(self, small: cst.CSTNode) -> cst.CSTNode | None:
        """The SimpleStatementLine holding a small statement."""
        parent = self.parent(small)
        return parent if isinstance(parent, cst.SimpleStatementLine) else None

    def own_line(self, statement: nodes.NodeNG) -> cst.CSTNode | None:
        """The libcst statement to put code before an astroid statement with: an `if` or `for` itself, or the
        line of a simple statement that is alone on it (None otherwise, or when not found)."""
        node = self.find(statement)
        if node is None or isinstance(node, (cst.If, cst.For)):
            return node
        line = self.statement_line(node)
        return line if line is not None and len(line.body) == 1 else None

    def code(self, node: cst.CSTNode) -> str:
        return self.tree.code_for_node(node)

    def remove_statement(self, small: cst.CSTNode) -> list[tuple[cst.CSTNode, object]]:
        """Replacements that delete a small statement, leaving valid code (``pass`` in an emptied block)."""
        line = self.statement_line(small)
        if line is None:
            return []
        if len(line.body) > 1:
            rest = [statement for statement in line.body if statement is not small]
            # `a = 1; del a` -> `a = 1`: the statement now last loses its semicolon.
            rest[-1] = rest[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            return [(line, line.with_changes(body=rest))]
        block = self.parent(line)
        siblings = getattr(block, "body", ())
        if isinstance(siblings, (list, tuple)) and len(siblings) == 1:
            return [(line, line.with_changes(body=[cst.Pass()]))]
        return [(line, cst.RemovalSentinel.REMOVE)]

    def module_alias(self, qualified: str) -> str | None:
        """The local spelling of an imported MindSpore name (``mindspore.ops`` -> ``ops``), if imported."""
        if self.info is None:
            return None
        for local, target in self.info.imports.aliases.items():
            if target == qualified:
                return local
        for local, target in self.info.imports.aliases.items():
            if qualified.startswith(target + "."):
                return local + qualified[len(target):]
        return None

    def spelling(self, qualified: str, fallback_import: tuple[str, str | None, str | None]):
        """(expression text, import to add or None) for a MindSpore name such as ``mindspore.ops``."""
        existing = self.module_alias(qualified)
        if existing:
            return existing, None
        module, obj, asname = fallback_import
        name = asname or obj or module
        return name + qualified[len(module if obj is None else f"{module}.{obj}"):], fallback_import


_FIELDS: dict[type, tuple[str, ...]] = {}
_IS_NODE: dict[type, bool] = {}
# Leaves and whitespace: never looked up by a fixer, so the parent map skips them (half the nodes of a module).
_TRIVIA = (cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.Newline, cst.TrailingWhitespace, cst.EmptyLine,
           cst.Comment, cst.LeftParen, cst.RightParen, cst.Comma, cst.Dot, cst.Colon, cst.AssignEqual,
           cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp, cst.Semicolon,
           cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace)


def _is_node(value) -> bool:
    kind = type(value)
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = isinstance(value, cst.CSTNode) and not isinstance(value, _TRIVIA)
    return known


def _children(node: cst.CSTNode):
    """(field name, child or tuple of children) of a node, read from its dataclass fields (much cheaper than
    libcst's ``children``, which runs a visitor); whitespace and punctuation left out."""
    kind = type(node)
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(kind.__dataclass_fields__)
    for name in names:
        value = getattr(node, name)
        if type(value) in (tuple, list):
            if value and any(_is_node(v) for v in value):
                yield name, value
        elif _is_node(value):
            yield name, value


def parent_map(tree: cst.CSTNode) -> dict[int, cst.CSTNode]:
    parents: dict[int, cst.CSTNode] = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        for _, child in _children(node):
            if type(child) in (tuple, list):
                for item in child:
                    if _is_node(item):
                        parents[id(item)] = node
                        stack.append(item)
            else:
                parents[id(child)] = node
                stack.append(child)
    return parents


def replace_nodes(node: cst.CSTNode, replacements: list[tuple[cst.CSTNode, object]]) -> cst.CSTNode:
    """``node`` with the given descendants replaced (for edits that rebuild a statement around its body)."""
    return replace_in_tree(node, {id(original): new for original, new in replacements}, parent_map(node))


def module_level_clash(definition: nodes.ClassDef | nodes.FunctionDef) -> str:
    """Why ``definition`` (a class or def inside a function) cannot move to module level under its name: the
    module has the name already, or another function defines one of that name too (both moved in one round,
    the second would replace the first); "" when it can."""
    module = definition.root()
    if definition.name in module.locals:
        return f"module level already has a `{definition.name}`"
    for other in module.nodes_of_class((nodes.ClassDef, nodes.FunctionDef)):
        if other is not definition and other.name == definition.name and \
                isinstance(other.parent.scope(), (nodes.FunctionDef, nodes.Lambda)):
            return f"another function also defines a `{definition.name}`: rename one of them first (by hand)"
    return ""


def move_before(context: "FixContext", moved: list[cst.CSTNode],
                renames: list[tuple[cst.CSTNode, cst.CSTNode]] = ()) -> tuple[cst.CSTNode, object] | None:
    """The replacement that takes the statements ``moved`` out of their block and puts them at module level
    just before the top-level statement holding them, each after the blank lines that precede it (their own
    comments kept), and the block's new first statement without blank lines above it; ``renames`` (nodes of
    that statement, the moved ones included, and what replaces them) are applied on the way. None when they do
    not sit in one top-level statement."""
    tops = set()
    for node in moved:
        top = node
        while context.parent(top) is not None and not isinstance(context.parent(top), cst.Module):
            top = context.parent(top)
        tops.add(id(top))
    if len(tops) != 1 or top is moved[0] or context.parent(top) is None:
        return None
    pending = list(renames)

    def renamed(node):  # ``node`` with the renames that fall inside it (taken from the pending ones)
        inside = [pair for pair in pending if _is_within(context, pair[0], node)]
        for pair in inside:
            pending.remove(pair)
        return replace_nodes(node, inside) if inside else node

    blank = [line for line in top.leading_lines if line.comment is None] or [cst.EmptyLine(), cst.EmptyLine()]
    hoisted = [renamed(node).with_changes(leading_lines=list(blank) + [line for line in node.leading_lines
                                                                       if line.comment is not None])
               for node in moved]
    replacements = [(node, cst.RemovalSentinel.REMOVE) for node in moved]
    gone = {id(node) for node in moved}
    for block in {id(context.parent(node)): context.parent(node) for node in moved}.values():
        siblings = list(getattr(block, "body", ()))
        left = [statement for statement in siblings if id(statement) not in gone]
        if siblings and id(siblings[0]) in gone and left:
            first = left[0]
            replacements.append((first, renamed(first).with_changes(
                leading_lines=[line for line in first.leading_lines if line.comment is not None])))
    return top, cst.FlattenSentinel(hoisted + [replace_nodes(top, replacements + pending)])


def _is_within(context: "FixContext", node: cst.CSTNode, ancestor: cst.CSTNode) -> bool:
    while node is not None and not isinstance(node, cst.Module):
        if node is ancestor:
            return True
        node = context.parent(node)
    return False


class _CannotCopy(Exception):
    """A replacement the path copy cannot express (a node removed from a single-node field)."""


def replace_in_tree(tree: cst.CSTNode, mapping: dict[int, object], parents: dict[int, cst.CSTNode]):
    """``tree`` with ``mapping`` applied (``id(original) -> node, RemovalSentinel or FlattenSentinel``):
    only the ancestors of the replaced nodes are rebuilt, so the cost is that of the paths to them, not of
    the module. An original inside another original is replaced with it (the outer one wins)."""
    if not mapping:
        return tree
    try:
        return _path_copy(tree, mapping, parents)
    except _CannotCopy:
        return tree.visit(_Replacer(mapping))


def _path_copy(tree, mapping, parents):
    if id(tree) in mapping:
        return mapping[id(tree)]
    # children to rebuild, per ancestor: id(parent) -> parent; the ancestors by depth, deepest first
    changed: dict[int, object] = {}
    depth: dict[int, int] = {}
    nodes_by_id: dict[int, cst.CSTNode] = {}
    for original in mapping:
        chain, node_id, outer = [], original, False
        while node_id in parents:
            parent = parents[node_id]
            if id(parent) in mapping:
                outer = True
                break
            chain.append(parent)
            node_id = id(parent)
        if outer:
            continue
        if node_id != id(tree):
            raise _CannotCopy  # not part of this tree
        changed[original] = mapping[original]
        for level, ancestor in enumerate(reversed(chain)):
            depth[id(ancestor)] = level
            nodes_by_id[id(ancestor)] = ancestor
    for ancestor_id in sorted(depth, key=depth.get, reverse=True):
        ancestor = nodes_by_id[ancestor_id]
        updates = {}
        for name, child in _children(ancestor):
            if isinstance(child, cst.CSTNode):
                if id(child) in changed:
                    new = changed[id(child)]
                    if not isinstance(new, cst.CSTNode):
                        raise _CannotCopy
                    updates[name] = new
                continue
            if not any(id(item) in changed for item in child):
                continue
            items = []
            for item in child:
                new = changed.get(id(item), item) if isinstance(item, cst.CSTNode) else item
                if isinstance(new, cst.RemovalSentinel):
                    continue
                if isinstance(new, cst.FlattenSentinel):
                    items.extend(new.nodes)
                else:
                    items.append(new)
            if name == "body" and not items and isinstance(ancestor, (cst.IndentedBlock, cst.SimpleStatementSuite)):
                raise _CannotCopy  # libcst's visitor decides what an emptied block becomes
            updates[name] = type(child)(items) if isinstance(child, tuple) else items
        changed[ancestor_id] = ancestor.with_changes(**updates) if updates else ancestor
    return changed[id(tree)]


class _Replacer(cst.CSTTransformer):
    def __init__(self, replacements: dict[int, object]):
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):
        replacement = self.replacements.get(id(original_node))
        if replacement is None:
            return updated_node
        return replacement


def apply_edits(context: FixContext, edits: list[Edit]) -> tuple[str, list[Edit], list[Edit]]:
    """Apply non-overlapping edits in one pass; returns (new text, applied, deferred).

    Of two overlapping edits the inner one goes first and the outer one is deferred to the next round, where
    it is planned again on the new text (drop `.item()` in a condition, then rewrite the `if`)."""
    tree, applied, deferred = edit_tree(context, edits)
    return tree.code, applied, deferred


def edit_tree(context: FixContext, edits: list[Edit]) -> tuple[cst.Module, list[Edit], list[Edit]]:
    """:func:`apply_edits`, giving the edited tree (whose code is the new text) instead of its code: the fix
    driver plans the next round on it rather than parsing the text it generates again."""
    applied: list[Edit] = []
    deferred: list[Edit] = []
    claimed: list[tuple[tuple[int, int], tuple[int, int]]] = []
    located = []
    for order, edit in enumerate(edits):
        spans = []
        for target in edit.targets:
            position = context.span(target)
            if position is None:
                spans = None
                break
            spans.append(position)
        located.append((order, edit, spans))

    def extent(item):
        order, _, spans = item
        if not spans:
            return (0, 0, order)
        return (max(e[0] for _, e in spans) - min(s[0] for s, _ in spans),
                max(e[1] for _, e in spans) - min(s[1] for s, _ in spans), order)

    for _, edit, spans in sorted(located, key=extent):
        if spans is None:
            deferred.append(edit)
            continue
        if any(not (end <= c_start or start >= c_end) for start, end in spans for c_start, c_end in claimed):
            deferred.append(edit)
            continue
        claimed.extend(spans)
        applied.append(edit)
    mapping = {id(original): new for edit in applied for original, new in edit.replacements}
    parents = context.parent_ids([original for edit in applied for original, _new in edit.replacements])
    tree = replace_in_tree(context.tree, mapping, parents) if mapping else context.tree
    prefix = [statement for edit in applied for statement in edit.module_prefix]
    if prefix:
        tree = _insert_after_imports(tree, prefix)
    imports = {item for edit in applied for item in edit.imports}
    if imports:
        tree = _add_imports(tree, sorted(imports, key=lambda i: (i[0], i[1] or "", i[2] or "")))
    return tree, applied, deferred


def _insert_after_imports(tree: cst.Module, statements: list[cst.CSTNode]) -> cst.Module:
    body = list(tree.body)
    index = 0
    for position, statement in enumerate(body):
        if _is_docstring_or_import(statement, position):
            index = position + 1
        else:
            break
    existing = {tree.code_for_node(s).strip() for s in body}
    new = [s for s in statements if tree.code_for_node(s).strip() not in existing]
    unique = []
    for statement in new:
        if tree.code_for_node(statement).strip() not in {tree.code_for_node(u).strip() for u in unique}:
            unique.append(statement)
    return tree.with_changes(body=body[:index] + unique + body[index:])


def _is_docstring_or_import(statement, position: int) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            continue
        if position == 0 and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
            continue
        return False
    return True


def _add_imports(tree: cst.Module, imports) -> cst.Module:
    # here: libcst.codemod takes ~0.2 s to import; only an edit that adds an import needs it
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor

    context = CodemodContext()
    for module, obj, asname in imports:
        AddImportsVisitor.add_needed_import(context, module, obj, asname)
    return AddImportsVisitor(context).transform_module(tree)
