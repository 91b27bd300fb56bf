"""Control-flow graph, reaching definitions and liveness for one function.

The checkers (one-branch definitions, joins, loop carries) and the fixers
(which names a loop carries, which are live after it) both read this.

A block holds *elements*: simple statements, and the evaluation points of
compound statements (an ``if``/``while`` test, a ``for`` iterable, the ``for``
target assignment, a ``with`` header). Definitions and uses are computed per
element; data-flow facts are Python ints used as bit sets.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from astroid import nodes

from graphlint.analysis.tree import walk

_ONE_BIT = re.compile("1")


@dataclass(eq=False)
class Element:
    kind: str  # "stmt" | "test" | "for-iter" | "for-target" | "with" | "def" | "except" | "param" | "case"
    node: nodes.NodeNG  # the statement (for "test": the If/While/IfExp owner)
    block: "Block"
    index: int = -1  # position in CFG.elements

    def expressions(self) -> list[nodes.NodeNG]:
        """The expressions evaluated at this element."""
        node = self.node
        if self.kind == "test":
            return [node.test]
        if self.kind == "for-iter":
            return [node.iter]
        if self.kind == "for-target":
            return []
        if self.kind == "with":
            return [item[0] for item in node.items]
        if self.kind in ("def", "param", "except"):
            if self.kind == "def":
                extra = list(node.decorators.nodes) if node.decorators else []
                if isinstance(node, nodes.FunctionDef):
                    extra += [d for d in node.args.defaults + node.args.kw_defaults if d is not None]
                return extra
            return [node.type] if self.kind == "except" and node.type is not None else []
        if self.kind == "case":
            return [node.guard] if node.guard is not None else []
        return [node]


@dataclass(eq=False)
class Block:
    id: int
    elements: list[Element] = field(default_factory=list)
    succ: list[tuple["Block", str]] = field(default_factory=list)
    pred: list[tuple["Block", str]] = field(default_factory=list)

    def link(self, other: "Block", label: str = "") -> None:
        self.succ.append((other, label))
        other.pred.append((self, label))


@dataclass(eq=False)
class IfRegion:
    node: nodes.If
    test: Element
    then_entry: Block
    else_entry: Block
    then_exit: Block | None  # None when the branch cannot fall through (return/raise/break...)
    else_exit: Block | None
    join: Block
    then_inner: range  # ids of the blocks built for each branch's statements, besides its entry
    else_inner: range
    inner_elements: range  # indices of the elements of both branches (built right after the test)

    def in_branch(self, block: Block, label: str) -> bool:
        """Whether ``block`` holds statements of the "true" or "false" branch (nested ones included).

        The same answer as walking up from a statement to the branch, in constant time: that walk
        costs the nesting depth, which grows with every `elif` of a chain."""
        if label == "true":
            return block is self.then_entry or block.id in self.then_inner
        return block is self.else_entry or block.id in self.else_inner


@dataclass(eq=False)
class LoopRegion:
    node: nodes.For | nodes.While
    header: Block  # the block whose test decides whether another iteration runs
    body_entry: Block
    after: Block  # where control goes when the loop ends
    body_blocks: set[int] = field(default_factory=set)
    breaks: list[Block] = field(default_factory=list)


@dataclass(eq=False)
class Definition:
    index: int
    name: str
    element: Element
    node: nodes.NodeNG  # the AssignName / Arguments / FunctionDef ... that binds the name
    value: nodes.NodeNG | None  # the expression assigned, where one exists
    # "assign" | "augassign" | "mutate" | "param" | "for" | "with" | "import" | "def" | "except" | "del" | "walrus"
    kind: str

    @property
    def updates(self) -> bool:
        """It gives the name a new value made from the one it had (`x += 1`, `xs.append(v)`): it reads it too."""
        return self.kind in ("augassign", "mutate")


RESIZING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear"})  # of a Python list


def _resizing_call(expr) -> bool:
    """``name.append(...)`` (or another method that changes a list's length) called on a plain name."""
    return isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Attribute) \
        and expr.func.attrname in RESIZING_METHODS and isinstance(expr.func.expr, nodes.Name)


class CFG:
    def __init__(self, func: nodes.FunctionDef | nodes.Lambda):
        self.func = func
        self.blocks: list[Block] = []
        self.elements: list[Element] = []
        self.ifs: dict[int, IfRegion] = {}
        self.loops: dict[int, LoopRegion] = {}
        self.returns: list[Element] = []
        self.entry = self._new()
        self.exit = self._new()
        self._loop_stack: list[LoopRegion] = []
        param = Element("param", func.args, self.entry)
        self._append(self.entry, param)
        end = self._build(func.body if isinstance(func, nodes.FunctionDef) else [], self.entry)
        if end is not None:
            end.link(self.exit, "fallthrough")
        self.definitions: list[Definition] = []
        self.defs_by_name: dict[str, list[Definition]] = {}
        self.element_defs: dict[int, list[Definition]] = {}
        self.element_uses: dict[int, list[nodes.Name]] = {}
        self._collect_defs_and_uses()
        self._reaching_in: dict[int, int] = {}
        self._live_out_elem: dict[int, frozenset[str]] = {}
        self.order = self._reverse_postorder()
        self._solve_reaching()
        self._solve_liveness()
        self._node_element: dict[int, Element] | None = None
        self._definition_elements: list[int] | None = None

    # -- construction ---------------------------------------------------
    def _new(self) -> Block:
        block = Block(len(self.blocks))
        self.blocks.append(block)
        return block

    def _append(self, block: Block, element: Element) -> Element:
        element.block = block
        element.index = len(self.elements)
        block.elements.append(element)
        self.elements.append(element)
        return element

    def _build(self, statements, current: Block | None) -> Block | None:
        for stmt in statements:
            if current is None:
                # Unreachable code still gets blocks, so every statement has an element.
                current = self._new()
            current = self._statement(stmt, current)
        return current

    def _statement(self, stmt, current: Block) -> Block | None:
        if isinstance(stmt, nodes.If):
            return self._if(stmt, current)
        if isinstance(stmt, nodes.While):
            return self._while(stmt, current)
        if isinstance(stmt, nodes.For):
            return self._for(stmt, current)
        if isinstance(stmt, (nodes.Try, getattr(nodes, "TryStar", nodes.Try))):
            return self._try(stmt, current)
        if isinstance(stmt, nodes.With):
            self._append(current, Element("with", stmt, current))
            return self._build(stmt.body, current)
        if isinstance(stmt, nodes.Match):
            return self._match(stmt, current)
        if isinstance(stmt, (nodes.FunctionDef, nodes.ClassDef)):
            self._append(current, Element("def", stmt, current))
            return current
        element = self._append(current, Element("stmt", stmt, current))
        if isinstance(stmt, nodes.Return):
            self.returns.append(element)
            current.link(self.exit, "return")
            return None
        if isinstance(stmt, nodes.Raise):
            current.link(self.exit, "raise")
            return None
        if isinstance(stmt, nodes.Break) and self._loop_stack:
            loop = self._loop_stack[-1]
            current.link(loop.after, "break")
            loop.breaks.append(current)
            return None
        if isinstance(stmt, nodes.Continue) and self._loop_stack:
            current.link(self._loop_stack[-1].header, "continue")
            return None
        return current

    def _if(self, stmt: nodes.If, current: Block) -> Block | None:
        test = self._append(current, Element("test", stmt, current))
        then_entry, else_entry, join = self._new(), self._new(), self._new()
        current.link(then_entry, "true")
        current.link(else_entry, "false")
        then_start = len(self.blocks)
        then_exit = self._build(stmt.body, then_entry)
        else_start = len(self.blocks)
        else_exit = self._build(stmt.orelse, else_entry)
        for end in (then_exit, else_exit):
            if end is not None:
                end.link(join)
        self.ifs[id(stmt)] = IfRegion(stmt, test, then_entry, else_entry, then_exit, else_exit, join,
                                      range(then_start, else_start), range(else_start, len(self.blocks)),
                                      range(test.index + 1, len(self.elements)))
        return join if join.pred else None

    def _loop(self, stmt, header: Block, after: Block, body_entry: Block) -> LoopRegion:
        region = LoopRegion(stmt, header, body_entry, after)
        self.loops[id(stmt)] = region
        first = len(self.blocks)
        self._loop_stack.append(region)
        body_exit = self._build(stmt.body, body_entry)
        self._loop_stack.pop()
        if body_exit is not None:
            body_exit.link(header, "loop")
        region.body_blocks = {body_entry.id} | set(range(first, len(self.blocks)))
        return region

    def _while(self, stmt: nodes.While, current: Block) -> Block | None:
        header = self._new()
        current.link(header)
        self._append(header, Element("test", stmt, header))
        body, after = self._new(), self._new()
        header.link(body, "true")
        self._loop(stmt, header, after, body)
        if stmt.orelse:
            orelse = self._new()
            header.link(orelse, "false")
            end = self._build(stmt.orelse, orelse)
            if end is not None:
                end.link(after)
        else:
            header.link(after, "false")
        return after if after.pred else None

    def _for(self, stmt: nodes.For, current: Block) -> Block | None:
        self._append(current, Element("for-iter", stmt, current))
        header = self._new()
        current.link(header)
        body, after = self._new(), self._new()
        header.link(body, "true")
        self._append(body, Element("for-target", stmt, body))
        self._loop(stmt, header, after, body)
        if stmt.orelse:
            orelse = self._new()
            header.link(orelse, "false")
            end = self._build(stmt.orelse, orelse)
            if end is not None:
                end.link(after)
        else:
            header.link(after, "false")
        return after if after.pred else None

    def _try(self, stmt, current: Block) -> Block | None:
        body = self._new()
        current.link(body)
        body_exit = self._build(stmt.body, body)
        after = self._new()
        if body_exit is not None and stmt.orelse:
            body_exit = self._build(stmt.orelse, body_exit)
        if body_exit is not None:
            body_exit.link(after)
        for handler in stmt.handlers:
            entry = self._new()
            current.link(entry, "except")
            if body_exit is not None:
                body_exit.link(entry, "except")
            self._append(entry, Element("except", handler, entry))
            end = self._build(handler.body, entry)
            if end is not None:
                end.link(after)
        if stmt.finalbody:
            return self._build(stmt.finalbody, after)
        return after if after.pred else None

    def _match(self, stmt: nodes.Match, current: Block) -> Block | None:
        self._append(current, Element("stmt", stmt.subject, current))
        after = self._new()
        for case in stmt.cases:
            entry = self._new()
            current.link(entry, "case")
            self._append(entry, Element("case", case, entry))
            end = self._build(case.body, entry)
            if end is not None:
                end.link(after)
        current.link(after, "nomatch")
        return after

    # -- definitions and uses ---------------------------------------------
    def _define(self, name: str, element: Element, node, value, kind: str) -> None:
        definition = Definition(len(self.definitions), name, element, node, value, kind)
        self.definitions.append(definition)
        self.defs_by_name.setdefault(name, []).append(definition)
        self.element_defs.setdefault(element.index, []).append(definition)

    def _collect_defs_and_uses(self) -> None:
        for element in self.elements:
            uses: list[nodes.Name] = []
            for expr in element.expressions():
                uses.extend(names_used(expr))
                for walrus in _walruses(expr):
                    self._define(walrus.target.name, element, walrus.target, walrus.value, "walrus")
            self.element_uses[element.index] = uses
            if not self._define_special(element):
                self._define_statement(element, uses)

    def _define_special(self, element) -> bool:
        """The names an element of a special kind binds (parameters, a `for` target, `with ... as`, a `def`, an
        `except ... as`, a `case` pattern); False for an element of a plain statement."""
        node = element.node
        if element.kind == "param":
            for arg in _all_args(node):
                self._define(arg.name, element, arg, None, "param")
        elif element.kind == "for-target":
            for target, value in bound_targets(node.target, None):
                self._define(target.name, element, target, value, "for")
        elif element.kind == "with":
            for expr, var in node.items:
                if var is not None:
                    for target, value in bound_targets(var, expr):
                        self._define(target.name, element, target, value, "with")
        elif element.kind == "def":
            self._define(node.name, element, node, None, "def")
        elif element.kind == "except":
            if node.name is not None:
                self._define(node.name.name, element, node.name, None, "except")
        elif element.kind == "case":
            for capture in node.pattern.nodes_of_class(nodes.AssignName):
                self._define(capture.name, element, capture, None, "assign")
        else:
            return False
        return True

    def _define_statement(self, element, uses: list) -> None:
        """The names a plain statement binds (assignments, imports, `del`); `x += 1` also reads `x`."""
        node = element.node
        if isinstance(node, nodes.Assign):
            for target in node.targets:
                for bound, value in bound_targets(target, node.value):
                    self._define(bound.name, element, bound, value, "assign")
        elif isinstance(node, nodes.AnnAssign):
            if node.value is not None and isinstance(node.target, nodes.AssignName):
                self._define(node.target.name, element, node.target, node.value, "assign")
        elif isinstance(node, nodes.AugAssign):
            if isinstance(node.target, nodes.AssignName):
                uses.append(node.target)  # `x += 1` reads x
                self._define(node.target.name, element, node.target, node, "augassign")
        elif isinstance(node, nodes.Expr) and _resizing_call(node.value):
            # `xs.append(v)` as a statement: graph code makes a new list and binds `xs` to it (ListAppend).
            owner = node.value.func.expr
            self._define(owner.name, element, owner, node.value, "mutate")
        elif isinstance(node, (nodes.Import, nodes.ImportFrom)):
            for name, alias in node.names:
                bound = alias or name.split(".")[0]
                if bound != "*":
                    self._define(bound, element, node, None, "import")
        elif isinstance(node, nodes.Delete):
            for target in node.targets:
                if isinstance(target, nodes.DelName):
                    self._define(target.name, element, target, None, "del")

    def _reverse_postorder(self) -> list[Block]:
        """Every block, predecessors before successors where the graph allows (back edges aside).

        The data-flow solvers sweep in this order (backward ones in its reverse): creation order puts
        an `if`'s join block before its branches, so a chain of N `elif`s would need N sweeps."""
        postorder: list[Block] = []
        visited: set[int] = set()
        for root in [self.entry] + self.blocks:  # unreachable blocks too, after the reachable ones
            if root.id in visited:
                continue
            visited.add(root.id)
            stack = [(root, iter(root.succ))]
            while stack:
                block, successors = stack[-1]
                for succ, _ in successors:
                    if succ.id not in visited:
                        visited.add(succ.id)
                        stack.append((succ, iter(succ.succ)))
                        break
                else:
                    stack.pop()
                    postorder.append(block)
        postorder.reverse()
        return postorder

    # -- reaching definitions -------------------------------------------
    def _solve_reaching(self) -> None:
        self._gen_kill: tuple[dict[int, int], dict[int, int]] | None = None
        self._reaching_in, self._block_out = self._reaching_without(frozenset())

    def reaching_in_without(self, dead_edges: frozenset) -> tuple[dict[int, int], set[int]]:
        """Reaching definitions (bit sets per element index, as :meth:`reaching` reads them) when control never
        takes the edges ``dead_edges`` (``(from block id, to block id)``): the branches type inference does not
        compile, for the values it joins. The parser's own checks (a name defined in one branch) keep
        :meth:`reaching`, which takes every edge. Also gives the ids of the blocks control still reaches."""
        live = self._live_blocks(dead_edges)
        return self._reaching_without(dead_edges, live)[0], live

    def _element_gen_kill(self) -> tuple[dict[int, int], dict[int, int]]:
        """Per element: the definitions it generates and the ones it kills (bit sets), kept for the solves
        without dead edges."""
        gen: dict[int, int] = {}
        kill: dict[int, int] = {}
        self._name_mask: dict[str, int] = {}  # name -> bit set of its definitions
        name_mask = self._name_mask
        for definition in self.definitions:
            name_mask[definition.name] = name_mask.get(definition.name, 0) | (1 << definition.index)
        for element in self.elements:
            g = k = 0
            for definition in self.element_defs.get(element.index, []):
                k |= name_mask[definition.name]
                g = (g & ~name_mask[definition.name]) | (1 << definition.index)
            gen[element.index], kill[element.index] = g, k
        return gen, kill

    def _live_blocks(self, dead_edges: frozenset) -> set[int]:
        """The blocks control reaches from the entry without taking ``dead_edges``."""
        live, stack = {self.entry.id}, [self.entry]
        while stack:
            block = stack.pop()
            for succ, _ in block.succ:
                if succ.id not in live and (block.id, succ.id) not in dead_edges:
                    live.add(succ.id)
                    stack.append(succ)
        return live

    def same_reaching(self, reaching_in: dict[int, int], live: set[int], before: dict[int, int] | None) -> bool:
        """Every element of the ``live`` blocks has the same reaching definitions in ``reaching_in`` as in
        ``before`` (None: with every edge taken)."""
        before = self._reaching_in if before is None else before
        return all(reaching_in.get(element.index, 0) == before.get(element.index, 0)
                   for block in self.blocks if block.id in live for element in block.elements)

    def definitions_in(self, bits: int, name: str) -> list[Definition]:
        return self._definitions_in(bits, name)

    def _reaching_without(self, dead_edges: frozenset, live: set[int] | None = None
                          ) -> tuple[dict[int, int], dict[int, int]]:
        if self._gen_kill is None:
            self._gen_kill = self._element_gen_kill()
        gen, kill = self._gen_kill
        if dead_edges and live is None:
            live = self._live_blocks(dead_edges)
        block_in = {b.id: 0 for b in self.blocks}
        block_out = {b.id: 0 for b in self.blocks}
        changed = True
        while changed:
            changed = False
            for block in self.order:
                if live is not None and block.id not in live:
                    continue  # (a branch never compiled: what it defines reaches nothing)
                incoming = 0
                for pred, _ in block.pred:
                    if live is None or (pred.id, block.id) not in dead_edges:
                        incoming |= block_out[pred.id]
                state = incoming
                for element in block.elements:
                    state = (state & ~kill[element.index]) | gen[element.index]
                if incoming != block_in[block.id] or state != block_out[block.id]:
                    block_in[block.id], block_out[block.id] = incoming, state
                    changed = True
        reaching_in: dict[int, int] = {}
        for block in self.blocks:
            state = block_in[block.id]
            for element in block.elements:
                reaching_in[element.index] = state
                state = (state & ~kill[element.index]) | gen[element.index]
        return reaching_in, block_out

    def reaching(self, element: Element, name: str) -> list[Definition]:
        """Definitions of ``name`` that reach ``element`` (before it runs)."""
        return self._definitions_in(self._reaching_in.get(element.index, 0), name)

    def reaching_at_block_end(self, block: Block, name: str) -> list[Definition]:
        return self._definitions_in(self._block_out.get(block.id, 0), name)

    def reaching_bits_at_block_end(self, block: Block, name: str | None = None) -> int:
        """``reaching_at_block_end`` as a bit set of definition indices (of every name when ``name``
        is None): compared without building lists."""
        bits = self._block_out.get(block.id, 0)
        return bits if name is None else bits & self._name_mask.get(name, 0)

    def names_in(self, bits: int, among: set[str] | frozenset[str] | None = None) -> set[str]:
        """The names of the definitions in the bit set ``bits``; only those in ``among`` when given
        (then the cost is the smaller of the two sizes)."""
        if among is not None and len(among) < bits.bit_count():
            return {name for name in among if bits & self._name_mask.get(name, 0)}
        names = {self.definitions[match.start()].name for match in _ONE_BIT.finditer(bin(bits)[:1:-1])}
        return names if among is None else names & among

    def definition_bits_within(self, elements: range) -> int:
        """The bit set of the definitions made at the elements whose indices are in ``elements``
        (a run of indices: definitions are numbered in element order)."""
        if self._definition_elements is None:
            self._definition_elements = [d.element.index for d in self.definitions]
        keys = self._definition_elements
        first, stop = bisect_left(keys, elements.start), bisect_left(keys, elements.stop)
        return (1 << stop) - (1 << first)

    def _definitions_in(self, bits: int, name: str) -> list[Definition]:
        """The definitions of ``name`` in the bit set ``bits``, in index order.

        Only the set bits are visited: testing every definition of a name rebound N times
        would cost N per query, and the checkers query at every use."""
        selected = bits & self._name_mask.get(name, 0)
        if selected.bit_count() > 32:  # many: one pass over the binary text beats a big-int step per bit
            return [self.definitions[match.start()] for match in _ONE_BIT.finditer(bin(selected)[:1:-1])]
        found = []
        while selected:
            lowest = selected & -selected
            found.append(self.definitions[lowest.bit_length() - 1])
            selected ^= lowest
        return found

    def may_be_undefined(self, element: Element, name: str) -> bool:
        """True when some path from the entry reaches ``element`` with no definition of ``name``."""
        return self._undefined_on_some_path(element, name)

    def _undefined_on_some_path(self, element: Element, name: str) -> bool:
        # Backward search from the element for a path to the entry that avoids every def of name.
        defining = {d.element.index for d in self.defs_by_name.get(name, ())}
        seen: set[int] = set()
        stack: list[tuple[Block, int]] = [(element.block, element.block.elements.index(element))]
        while stack:
            block, upto = stack.pop()
            if any(e.index in defining for e in block.elements[:upto]):
                continue
            if block is self.entry:
                return True
            for pred, _ in block.pred:
                if pred.id not in seen:
                    seen.add(pred.id)
                    stack.append((pred, len(pred.elements)))
        return False

    # -- liveness ---------------------------------------------------------
    def _solve_liveness(self) -> None:
        use: dict[int, frozenset[str]] = {}
        define: dict[int, frozenset[str]] = {}
        for element in self.elements:
            use[element.index] = frozenset(n.name for n in self.element_uses.get(element.index, ()))
            define[element.index] = frozenset(
                d.name for d in self.element_defs.get(element.index, ()) if not d.updates)
        live_in = {b.id: frozenset() for b in self.blocks}
        changed = True
        while changed:
            changed = False
            for block in reversed(self.order):
                out = frozenset().union(*(live_in[s.id] for s, _ in block.succ)) if block.succ else frozenset()
                state = out
                for element in reversed(block.elements):
                    state = (state - define[element.index]) | use[element.index]
                if state != live_in[block.id]:
                    live_in[block.id] = state
                    changed = True
        self._live_in_block = live_in
        for block in self.blocks:
            out = frozenset().union(*(live_in[s.id] for s, _ in block.succ)) if block.succ else frozenset()
            state = out
            for element in reversed(block.elements):
                self._live_out_elem[element.index] = state
                state = (state - define[element.index]) | use[element.index]

    def live_in(self, block: Block) -> frozenset[str]:
        return self._live_in_block.get(block.id, frozenset())

    def live_after(self, element: Element) -> frozenset[str]:
        return self._live_out_elem.get(element.index, frozenset())

    # -- lookups -----------------------------------------------------------
    def element_of(self, node) -> Element | None:
        """The element whose evaluation includes ``node``."""
        if self._node_element is None:
            self._node_element = {}
            for element in self.elements:
                self._node_element[id(element.node)] = element
                for expr in element.expressions():
                    for inner in walk(expr):
                        self._node_element.setdefault(id(inner), element)
                if element.kind == "for-target":
                    for inner in walk(element.node.target):
                        self._node_element.setdefault(id(inner), element)
        current = node
        while current is not None:
            found = self._node_element.get(id(current))
            if found is not None:
                return found
            current = current.parent
        return None

    def loop_modified(self, loop: LoopRegion) -> set[str]:
        """Names assigned anywhere in the loop body (the for target included)."""
        # Through the body's own blocks: scanning every definition of the function per loop is
        # quadratic in a function made of many loops.
        names = set()
        for block_id in loop.body_blocks:
            for element in self.blocks[block_id].elements:
                names.update(d.name for d in self.element_defs.get(element.index, ()))
        return names

    def loop_carried(self, loop: LoopRegion) -> set[str]:
        """Names modified in the body whose value from the previous iteration is read."""
        modified = self.loop_modified(loop)
        return {name for name in modified if name in self.live_in(loop.header)}


def _all_args(arguments: nodes.Arguments):
    for group in (arguments.posonlyargs, arguments.args, arguments.kwonlyargs):
        yield from group or ()
    for name in (arguments.vararg, arguments.kwarg):
        if name:
            yield _Named(name)


class _Named:
    def __init__(self, name: str):
        self.name = name


def bound_targets(target, value):
    """(AssignName, value expression or None) pairs bound by an assignment target."""
    if isinstance(target, nodes.AssignName):
        yield target, value
    elif isinstance(target, (nodes.Tuple, nodes.List)):
        values = value.elts if isinstance(value, (nodes.Tuple, nodes.List)) and len(value.elts) == len(target.elts) else None
        for index, element in enumerate(target.elts):
            yield from bound_targets(element, values[index] if values else None)
    elif isinstance(target, nodes.Starred):
        yield from bound_targets(target.value, None)


def names_used(expr) -> list[nodes.Name]:
    """Name loads in an expression, not counting names bound inside its own lambdas/comprehensions."""
    found: list[nodes.Name] = []
    stack = [(expr, frozenset())]
    while stack:
        node, bound = stack.pop()
        if isinstance(node, nodes.Name):
            if node.name not in bound:
                found.append(node)
            continue
        if isinstance(node, (nodes.Lambda, nodes.ListComp, nodes.SetComp, nodes.DictComp, nodes.GeneratorExp)):
            inner = set(bound)
            if isinstance(node, nodes.Lambda):
                inner.update(arg.name for arg in _all_args(node.args))
            else:
                for generator in node.generators:
                    inner.update(t.name for t in generator.target.nodes_of_class(nodes.AssignName))
            bound = frozenset(inner)
        elif isinstance(node, (nodes.FunctionDef, nodes.ClassDef)):
            continue
        for child in node.get_children():
            stack.append((child, bound))
    return found


def _walruses(expr):
    for node in walk(expr):
        if isinstance(node, nodes.NamedExpr) and isinstance(node.target, nodes.AssignName):
            yield node
