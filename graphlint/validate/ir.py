"""Read MindSpore's type-inference IR (``01_type_inference_*.ir``, written with ``MS_DEV_SAVE_GRAPHS=1``).

The IR lists every function the compiler specialised (a *subgraph* per tuple of abstract arguments) with its
source span, and every node it kept with its abstract inputs and output and the chain of source spans that
inlined it (outermost call first, the node's own expression last). Type inference has already replaced every
node whose value it knows by a constant: a constant reaches its consumer as a literal input (``I64(3)``,
``Bool(1)``, ``"s"``, ``[]``), and a node that remains computes a run-time value.

This module only reads text: it imports no MindSpore. The oracle (:mod:`graphlint.oracle`) joins what
it reads with graphlint's analysis of the same source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SPAN = re.compile(r"# In file (?P<path>.+?):(?P<line>\d+)(?:~(?P<end_line>\d+))?, (?P<col>\d+)~(?P<end_col>\d+)/")
_GRAPH = re.compile(r"^subgraph @(?P<name>\S+?)(?: parent: \[subgraph @\S+\])?\((?P<params>.*)\) \{$")
_NODE = re.compile(r"^  (?:%(?P<index>\d+)\((?P<name>[^)]*)\) = )?(?P<rest>\S.*)$")
_PARAMETERS = re.compile(r"^# Parameters: \d+, \((?P<abstracts>.*)\)$")
_TOP_PARAMETER = re.compile(r"^%para\d+_(?P<name>[^:\s]+): (?P<abstract><.*?>)(?:\s|$)")
GRAPH_PARAMETERS = "<parameters>"  # the pseudo-graph holding the IR's list of top-level parameters


@dataclass(frozen=True)
class Span:
    """A source span as MindSpore prints it: lines 1-based, columns 0-based, the end column exclusive."""
    path: str
    line: int
    end_line: int
    col: int
    end_col: int


@dataclass
class Node:
    """One node of a subgraph: what it applies, its inputs as printed, their abstracts and its output's.
    ``index`` (``%3``) and ``name`` (``%3(y)``) are how other nodes refer to it (``%3``; ``$(@graph:y)`` from a
    nested graph)."""
    graph: str
    index: int | None
    name: str
    op: str
    inputs: list[str]
    input_abstracts: list[str]
    output: str
    chain: list[Span]
    scope: str = ""  # "Default/layer4-SequentialCell/1-BasicBlock/Add-op3": the Cell instances it runs in

    @property
    def span(self) -> Span | None:
        """The node's own expression: the innermost span of its chain."""
        return self.chain[-1] if self.chain else None


@dataclass
class Graph:
    name: str
    span: Span | None  # the function's definition
    parameters: list[tuple[str, str]]  # (name, abstract)
    nodes: list[Node] = field(default_factory=list)


def instance_path(scope: str) -> str:
    """The attribute path of the Cell instance a node runs in, from its scope (``Default/layer4-SequentialCell/
    1-BasicBlock/Add-op3`` -> ``layer4.1``; the top Cell's own nodes -> ``""``)."""
    parts = scope.split("/")[1:-1]
    return ".".join(part.split("-", 1)[0] for part in parts)


def split_top(text: str, separator: str = ",") -> list[str]:
    """``text`` split at ``separator`` outside brackets of every kind (``()[]{}<>``) and string quotes."""
    parts, depth, start, quote = [], 0, 0, ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>" and depth > 0 and not (ch == ">" and text[i - 1] == "-"):
            depth -= 1
        elif ch == separator and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
        i += 1
    tail = text[start:].strip()
    if tail or parts:
        parts.append(tail)
    return parts


def _closing(text: str, opening: int) -> int:
    """The index of the bracket closing the one at ``opening``."""
    pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
    stack, quote = [], ""
    for i in range(opening, len(text)):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in pairs:
            stack.append(pairs[ch])
        elif stack and ch == stack[-1] and not (ch == ">" and text[i - 1] == "-"):
            stack.pop()
            if not stack:
                return i
    return len(text) - 1


def _applied(rest: str) -> tuple[str, list[str]]:
    """``call @g(a, b)`` / ``Prim(a, b) {attrs}`` / ``%3[@@g]()`` -> (what is applied, the input texts)."""
    head = rest[5:] if rest.startswith("call ") else rest
    opening = head.find("(")
    if opening < 0:
        return head.strip(), []
    closing = _closing(head, opening)
    return head[:opening].strip(), split_top(head[opening + 1:closing])


def _abstracts(line: str) -> tuple[list[str], str]:
    """``: (<a>, <b>) -> (<out>)`` -> ([a, b], out); ``: (<out>)`` (a Return) -> ([], out)."""
    text = line.strip()[1:].strip()
    arrow = _top_arrow(text)
    if arrow < 0:
        return [], _unwrap(text)
    return split_top(_unwrap(text[:arrow].strip())), _unwrap(text[arrow + 2:].strip())


def _top_arrow(text: str) -> int:
    """Where `` -> `` stands outside brackets, or -1."""
    depth, i = 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "-" and text[i + 1:i + 2] == ">":
            if depth == 0:
                return i
            i += 2
            continue
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        i += 1
    return -1


def _unwrap(text: str) -> str:
    return text[1:-1].strip() if text.startswith("(") and text.endswith(")") else text


def _span(line: str) -> Span | None:
    match = _SPAN.search(line)
    if match is None:
        return None
    start = int(match["line"])
    return Span(match["path"], start, int(match["end_line"] or start), int(match["col"]), int(match["end_col"]))


def parse(text: str) -> list[Graph]:
    """Every subgraph of one IR file, with its nodes."""
    graphs: list[Graph] = []
    header_span: Span | None = None
    header_abstracts: list[str] = []
    current: Graph | None = None
    node: Node | None = None
    weights = Graph(GRAPH_PARAMETERS, None, [])  # the top graph's inputs and the network's Parameters
    graphs.append(weights)
    for line in text.splitlines():
        if current is None:
            top = _TOP_PARAMETER.match(line)
            if top is not None:
                weights.parameters.append((top["name"], top["abstract"]))
            elif line.startswith("# Parameters:"):
                match = _PARAMETERS.match(line)
                header_abstracts = split_top(match["abstracts"]) if match else []
            elif line.startswith("# In file"):
                header_span = _span(line)
            elif line.startswith("subgraph @"):
                match = _GRAPH.match(line)
                if match is None:
                    continue
                names = [p.strip().lstrip("%") for p in split_top(match["params"])]
                abstracts = header_abstracts + [""] * (len(names) - len(header_abstracts))
                current = Graph(match["name"], header_span, list(zip(names, abstracts)))
                graphs.append(current)
            elif line.startswith("subgraph attr:"):
                header_span, header_abstracts = None, []
            continue
        if line.startswith("}"):
            current, node, header_span, header_abstracts = None, None, None, []
            continue
        stripped = line.strip()
        if stripped.startswith(": ") and node is not None:
            node.input_abstracts, node.output = _abstracts(stripped)
        elif stripped.startswith("# Fullname with scope: (") and node is not None:
            node.scope = stripped[len("# Fullname with scope: ("):].rstrip(")")
        elif stripped.startswith("# In file") and node is not None:
            span = _span(stripped)
            if span is not None:
                node.chain.append(span)
        elif line.startswith("  ") and not line.startswith("   ") and not stripped.startswith("#"):
            match = _NODE.match(line)
            if match is None:
                continue
            op, inputs = _applied(match["rest"])
            index = int(match["index"]) if match["index"] is not None else None
            node = Node(current.name, index, match["name"] or "", op, inputs, [], "", [])
            current.nodes.append(node)
    return graphs


# -- abstract values ----------------------------------------------------------------------------------------

_SCALAR_KINDS = {"Bool": "bool", "String": "str", "None": "none", "Func": "function", "Int": "int", "UInt": "int",
                 "Float": "float", "BFloat": "float", "Complex": "complex"}
_DTYPE = re.compile(r"^(?P<base>U?Int|BFloat|Float|Complex|Bool)(?P<bits>\d*)$")


@dataclass(frozen=True)
class Abstract:
    """An abstract value in the terms graphlint's analysis has: a kind, and for Tensors a dtype and a shape
    (``None`` dims are dynamic; ``shape`` None is a dynamic rank); for sequences a length (None: dynamic)."""
    kind: str
    dtype: str | None = None
    shape: tuple | None = None
    length: int | None = None
    items: tuple = ()


def dtype_name(type_text: str) -> str | None:
    """``Float32`` -> ``float32``; ``Bool`` -> ``bool_``, MindSpore's spelling."""
    match = _DTYPE.match(type_text)
    if match is None:
        return None
    base, bits = match["base"].lower(), match["bits"]
    return "bool_" if base == "bool" else base + bits


def abstract(text: str) -> Abstract:
    """Read one printed abstract (``<Tensor[Float32], (2, 3)>``, ``<Int64, NoShape>``, ``<List[...], ...>``)."""
    text = text.strip()
    if text.startswith("<") and text.endswith(">"):
        text = text[1:-1]
    parts = split_top(text)
    head = parts[0] if parts else ""
    if head.startswith("Ref[") and head.endswith("]"):
        head = head[4:-1]
    if head.startswith("Tensor"):
        dtype = dtype_name(head[7:-1]) if head.startswith("Tensor[") else None
        return Abstract("tensor", dtype, _shape(parts[1] if len(parts) > 1 else ""))
    if head.startswith(("Tuple", "List")):
        kind = "tuple" if head.startswith("Tuple") else "list"
        dynamic = any("dynamic_len" in p and "1" in p.split(":")[-1] for p in parts[1:]) or "dynamic_len_" in text
        inner = head[head.find("[") + 1:head.rfind("]")] if "[" in head else ""
        items = tuple(split_top(inner)) if inner else ()
        length = sum(int(item.rsplit("*", 1)[1]) if re.search(r"\*\d+$", item) else 1 for item in items)
        return Abstract(kind, length=None if dynamic else length, items=items)
    if head.startswith("Dictionary"):
        return Abstract("dict")
    if head.startswith("Keyword"):
        return Abstract("keyword")
    base = re.match(r"[A-Za-z]+", head)
    if base and base.group(0) in _SCALAR_KINDS:
        kind = _SCALAR_KINDS[base.group(0)]
        return Abstract(kind, dtype_name(head) if kind in ("int", "float") else None)
    return Abstract("other:" + (base.group(0) if base else head[:20]))


def _shape(text: str) -> tuple | None:
    text = text.strip()
    if not text.startswith("("):
        return ()
    dims = [d.strip() for d in text[1:-1].split(",") if d.strip()]
    if dims == ["-2"]:
        return None  # dynamic rank
    return tuple(None if d == "-1" else int(d) for d in dims if d.lstrip("-").isdigit())


_LITERAL_KIND = (
    (re.compile(r"^Bool\((?P<v>[01])\)$"), "bool"),
    (re.compile(r"^U?I(?:8|16|32|64)\((?P<v>-?\d+)\)$"), "int"),
    (re.compile(r"^(?:F|BF)(?:16|32|64)\((?P<v>[^)]*)\)$"), "float"),
)


def literal(text: str) -> tuple[str, object] | None:
    """A constant input as printed -> (kind, Python value, where it has one); None for a computed input."""
    text = text.strip()
    if text.startswith(("%", "$(")) or text.startswith("@"):
        return None
    for pattern, kind in _LITERAL_KIND:
        match = pattern.match(text)
        if match:
            raw = match["v"]
            if kind == "bool":
                return kind, raw == "1"
            if kind == "int":
                return kind, int(raw)
            try:
                return kind, float(raw)
            except ValueError:
                return kind, None
    if text.startswith('"') and text.endswith('"'):
        return "str", text[1:-1]
    if text == "None":
        return "none", None
    if text.startswith("[") and text.endswith("]"):
        return "list", None
    if text.startswith("(") and text.endswith(")"):
        return "tuple", None
    if text.startswith("Tensor("):
        return "tensor", None
    return "other", None


# -- constants ----------------------------------------------------------------------------------------------

_FREE = re.compile(r"^\$\(@(?P<graph>[^:]+):(?P<name>[^)]+)\)$")
_SHAPE_OPS = ("shape", "len", "ndim", "size", "dtype", "Shape", "Rank", "Size", "DType", "_len", "get_shape")


class Constants:
    """Which nodes of an IR compute a constant. Type inference evaluates Python scalars on their values: a node
    whose inputs are all constants (literals, or nodes that are) and that reads no Tensor computes a constant,
    even where the IR keeps the node (a call of ``_scalar_add_scalar``); a Tensor's shape, length, rank and
    dtype are constants where its shape is static. A parameter that remains in a specialised graph is a
    run-time value: the compiler puts constant arguments in place of their parameter."""

    def __init__(self, graphs: list[Graph]):
        self._nodes = {}
        for graph in graphs:
            for node in graph.nodes:
                if node.index is not None:
                    self._nodes[(graph.name, f"%{node.index}")] = node
                if node.name:
                    self._nodes.setdefault((graph.name, node.name), node)
        self._memo: dict[int, bool] = {}

    def input_is_constant(self, graph: str, text: str) -> bool:
        text = text.strip()
        if literal(text) is not None:
            return True
        free = _FREE.match(text)
        node = self._nodes.get((free["graph"], free["name"])) if free else self._nodes.get((graph, text))
        return node is not None and self.is_constant(node)

    def is_constant(self, node: Node) -> bool:
        key = id(node)
        if key not in self._memo:
            self._memo[key] = False  # recursion guard
            self._memo[key] = self._constant(node)
        return self._memo[key]

    def _constant(self, node: Node) -> bool:
        out = abstract(node.output) if node.output else None
        if out is None or out.kind not in ("int", "float", "bool", "str", "none", "tuple", "list"):
            return False
        if len(node.inputs) != len(node.input_abstracts):
            return False
        for text, printed in zip(node.inputs, node.input_abstracts):
            kind = abstract(printed).kind
            if kind == "tensor":
                tensor = abstract(printed)
                if not (any(op in node.op for op in _SHAPE_OPS) and tensor.shape is not None
                        and None not in tensor.shape):
                    return False
                continue
            if not self.input_is_constant(node.graph, text):
                return False
        return True
