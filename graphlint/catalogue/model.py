"""The shape of a rule and of the examples that prove it."""

from __future__ import annotations

import enum
import textwrap
from dataclasses import dataclass, field


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]

    @property
    def lowered(self) -> "Severity":
        """One step down: what a finding that rests on an assumption is reported at."""
        return {"error": Severity.WARNING, "warning": Severity.INFO, "info": Severity.INFO}[self.value]


class Level(str, enum.Enum):
    """MindSpore's JIT syntax levels that graphlint distinguishes."""

    LAX = "lax"  # MindSpore's default: unsupported Python falls back to the interpreter
    STRICT = "strict"  # mindspore.jit(..., fullgraph=True) and MindIR export


# The capture profiles a rule's severity is given for (see :class:`graphlint.analysis.scope.Capture`): "ast" is
# MindSpore's default capture at the configured syntax level (STRICT under ``fullgraph=True``).
PROFILES = ("ast", "bytecode", "bytecode-fullgraph", "trace")


class FixSafety(str, enum.Enum):
    SAFE = "safe"  # same semantics: applied by --fix
    UNSAFE = "unsafe"  # may differ in corner cases: applied only with --unsafe-fixes
    DISPLAY = "display-only"  # a suggestion shown in the message, never applied


# What an example claims about one compilation level.
OK = "ok"  # compiles, runs, and every call returns what PYNATIVE_MODE returns
FAILS = "fails"  # compiling or running raises (the message must contain Example.error)
DIVERGES = "diverges"  # compiles and runs, but returns something other than PYNATIVE_MODE
CRASHES = "crashes"  # the process dies (a signal such as SIGSEGV)
SKIP = "skip"  # not checked at this level
OUTCOMES = (OK, FAILS, DIVERGES, CRASHES, SKIP)

EXAMPLE_HEADER = (
    "import numpy as np\n"
    "import mindspore as ms\n"
    "from mindspore import nn, ops, Tensor, Parameter\n"
)
DEFAULT_INPUTS = "(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)),)"


@dataclass(frozen=True)
class Example:
    """A program that the tests lint and compile with real MindSpore.

    ``code`` is a module body that follows :data:`EXAMPLE_HEADER`; its entry
    point is ``entry`` (a Cell class, constructed without arguments, or a
    function). ``inputs`` is a Python expression: a tuple of arguments used for
    each of two calls, or a list of tuples, one per call. A module-level
    ``drive(call, target, inputs)`` replaces the default calls (to change
    host state between calls, say).
    """

    code: str
    lax: str = OK
    strict: str = OK
    error: str = ""  # substring of MindSpore's message where a level FAILS
    strict_error: str = ""  # the substring under STRICT, where STRICT stops elsewhere first (default: ``error``)
    inputs: str = DEFAULT_INPUTS
    entry: str = "Net"
    title: str = ""  # the construct, as named in docs/coverage.md
    dynamic_shape: bool = False  # calls with equal input shapes return different output shapes
    export: str = SKIP  # outcome of mindspore.export + load + run, where the rule speaks of export
    timeout: float = 300.0
    # outcome under ``mindspore.jit(entry, capture_mode="trace")`` (the entry as the code jits it), compared with
    # PYNATIVE over the example's calls: a traced example gives two different inputs
    trace: str = SKIP
    bytecode: str = SKIP  # the same under capture_mode="bytecode" (the code jits its entry so)
    # For an example the rule flags: the lines of ``code`` (1 = its first line) it is reported at, every one,
    # and message fields whose values matter (checked against each report of the rule).
    lines: tuple[int, ...] = ()
    fields: dict = field(default_factory=dict)
    # ``code`` as the rule's fixer rewrites it (Fixit's expected replacement); compiled by the tests too.
    fixed: str = ""
    # how safe that rewrite is, where it differs from the rule's fixer ("safe", "unsafe"): one fixer may be
    # safe for a loop that surely runs and unsafe for one that may not
    fix_safety: str = ""
    # For a flagged example whose finding rests on an assumption nothing in the module confirms ("`n` is a
    # Tensor": an entry parameter no call describes): the finding says so and is one severity lower.
    assumes: str = ""
    # The Python releases the example's claims hold on ("3.11", ">=3.12"; "": every one): a rule about the
    # interpreter (bytecode capture refuses 3.12+) is shown on the release it speaks of; the tests skip it elsewhere.
    python: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", textwrap.dedent(self.code).strip("\n") + "\n")
        for level in (self.lax, self.strict, self.export, self.trace, self.bytecode):
            if level not in OUTCOMES:
                raise ValueError(f"unknown outcome {level!r}")
        if isinstance(self.lines, int):
            object.__setattr__(self, "lines", (self.lines,))
        if self.fixed:
            object.__setattr__(self, "fixed", textwrap.dedent(self.fixed).strip("\n") + "\n")

    def holds_on(self, release: tuple[int, int]) -> bool:
        """Whether the example's claims hold on Python ``release`` (see :attr:`python`)."""
        if not self.python:
            return True
        if self.python.startswith(">="):
            return release >= _release(self.python[2:])
        return release == _release(self.python)

    @property
    def source(self) -> str:
        """The complete module that is linted and compiled."""
        return EXAMPLE_HEADER + "\n" + self.code

    @property
    def fixed_source(self) -> str:
        return EXAMPLE_HEADER + "\n" + self.fixed if self.fixed else ""

    @staticmethod
    def source_line(line: int) -> int:
        """The line of :attr:`source` that is line ``line`` of ``code``."""
        return line + EXAMPLE_HEADER.count("\n") + 1

    @staticmethod
    def code_line(source_line: int) -> int:
        return source_line - EXAMPLE_HEADER.count("\n") - 1


def fails(code: str, error: str, **kw) -> Example:
    """Rejected by the graph compiler at both levels."""
    return Example(code, lax=FAILS, strict=FAILS, error=error, **kw)


def falls_back(code: str, error: str, **kw) -> Example:
    """Compiles at the lax level by JIT fallback; STRICT (and MindIR export) rejects it."""
    return Example(code, lax=OK, strict=FAILS, error=error, **kw)


def diverges(code: str, strict: str = DIVERGES, **kw) -> Example:
    """Compiles, but the compiled graph returns something other than PYNATIVE_MODE."""
    return Example(code, lax=DIVERGES, strict=strict, **kw)


def passes(code: str, **kw) -> Example:
    """Compiles at both levels and matches PYNATIVE_MODE."""
    return Example(code, lax=OK, strict=kw.pop("strict", OK), **kw)


TRACE_INPUTS = ("[(Tensor(np.array([1.0, 2.0, 3.0], np.float32)),), "
                "(Tensor(np.array([-4.0, 5.0, -6.0], np.float32)),)]")


def traced(code: str, trace: str, driver: str = "", **kw) -> Example:
    """Run under ``capture_mode="trace"`` only (the code jits its entry so), over two different inputs; ``driver``
    (a module-level ``drive``, unindented) is appended to ``code``."""
    return _captured(code, driver, trace=trace, **kw)


def bytecoded(code: str, bytecode: str, driver: str = "", **kw) -> Example:
    """:func:`traced` for ``capture_mode="bytecode"`` (with or without ``fullgraph=True``: as the code jits it)."""
    return _captured(code, driver, bytecode=bytecode, **kw)


def _captured(code: str, driver: str, **kw) -> Example:
    kw.setdefault("inputs", TRACE_INPUTS)
    kw.setdefault("entry", "fn")
    return Example(textwrap.dedent(code).strip("\n") + "\n" + textwrap.dedent(driver), lax=SKIP, strict=SKIP, **kw)


def _release(text: str) -> tuple[int, int]:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


@dataclass(frozen=True)
class Rule:
    """One entry of the catalogue; the checkers, CLI, plugin and docs all read it.

    Checkers report a Rule object and fixers register for Rule objects (never a symbol string); how safe a
    rule's fix is comes from its registered fixers (:func:`graphlint.fixers.fix_safety`)."""

    id: str  # Pylint message id, e.g. "E5101"; the letter is the lax severity
    symbol: str  # e.g. "try-in-graph"
    family: str  # the checker module that reports it
    lax: Severity
    strict: Severity
    message: str  # one line; str.format fields filled by the checker
    summary: str  # what it detects, one sentence
    why: str  # why it breaks or slows GRAPH_MODE
    fix: str  # how to fix it by hand, or what --fix does
    mindspore_error: str = ""  # what users see otherwise
    flagged: tuple[Example, ...] = field(default_factory=tuple)  # the rule reports these (some compile fine)
    clean: tuple[Example, ...] = field(default_factory=tuple)  # the rule stays quiet on these; all compile
    payload: type | None = None  # the typed data a checker attaches to a finding for the rule's fixers
    # Releases: the first MindSpore release whose behaviour the rule describes ("2.8": not reported for 2.7),
    # and, for targets before ``stricter_before[0]``, the severity the rule has there at both levels.
    since: str = ""
    stricter_before: tuple = ()  # (release, Severity)
    # Severity in functions jitted with another capture mode (None: not reported there). ``in_ast=False``: a rule
    # of those modes only (its ``lax``/``strict`` then repeat its severity there, for the id letter and selectors).
    trace: Severity | None = None
    bytecode: Severity | None = None
    bytecode_fullgraph: Severity | None = None
    in_ast: bool = True
    # Reported in a function bytecode capture runs as plain Python (PIJit's eager fallback on Python 3.11, W6405:
    # :func:`graphlint.analysis.capture.runs_eagerly`); no other rule is: such a function returns PYNATIVE's results.
    in_eager_fallback: bool = False
    # Decided by MindSpore's parser, before type inference: a branch type inference drops still counts, only a
    # branch the parser folds away does not (a name defined on one side of an `if` and read after it).
    by_parser: bool = False
    # the message where the function is traced (same fields): what tracing freezes, instead of what graph mode does
    trace_message: str = ""
    # the same where it is captured from bytecode (with or without fullgraph)
    bytecode_message: str = ""

    def message_in(self, profile: str) -> str:
        """The message template of a finding in a capture profile (:data:`PROFILES`)."""
        if profile == "trace" and self.trace_message:
            return self.trace_message
        if profile.startswith("bytecode") and self.bytecode_message:
            return self.bytecode_message
        return self.message

    def severity(self, level: Level | str, target: tuple[int, int] | None = None) -> Severity:
        if target is not None and self.stricter_before and target < _release(self.stricter_before[0]):
            return self.stricter_before[1]
        return self.strict if Level(level) is Level.STRICT else self.lax

    def severity_in(self, profile: str, level: Level | str, target: tuple[int, int] | None = None) -> Severity | None:
        """The severity in a capture profile (:data:`PROFILES`; ``level`` counts for "ast"), None: not reported."""
        if profile == "ast":
            return self.severity(level, target) if self.in_ast else None
        return {"trace": self.trace, "bytecode": self.bytecode, "bytecode-fullgraph": self.bytecode_fullgraph}[profile]

    def profile_severities(self) -> dict[str, str]:
        """Column -> severity (or "-") for the docs and ``--list-rules``."""
        def shown(severity):
            return severity.value if severity is not None else "-"
        return {"lax": shown(self.lax if self.in_ast else None), "strict": shown(self.strict if self.in_ast else None),
                "bytecode": shown(self.bytecode), "bytecode+fullgraph": shown(self.bytecode_fullgraph),
                "trace": shown(self.trace)}

    def applies_to(self, target: tuple[int, int] | None) -> bool:
        return target is None or not self.since or target >= _release(self.since)

    @property
    def releases(self) -> str:
        """What the docs say of the releases the rule applies to."""
        parts = []
        if self.since:
            parts.append(f"MindSpore {self.since} and later")
        if self.stricter_before:
            parts.append(f"an error before {self.stricter_before[0]}")
        return "; ".join(parts)

    @property
    def names(self) -> tuple[str, str]:
        return (self.id, self.symbol)
