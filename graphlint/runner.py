"""The rules' base: findings, the module context checkers report into, and the checker base class (the
registered checkers are run by :func:`graphlint.checkers.run_checkers`).

It sits above the analysis: checkers ask :class:`graphlint.analysis.engine.Analysis` for facts (graph scope,
values, provenance, dtypes) and decide which rules to report; the analysis knows nothing of rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from astroid import nodes

from graphlint.analysis.capture import runs_eagerly
from graphlint.analysis.engine import Analysis
from graphlint.analysis.project import ModuleInfo, Project
from graphlint.analysis.scope import AST_CAPTURE, GraphFunction
from graphlint.analysis.values import FunctionValues
from graphlint.catalogue import Level, Rule, Severity
from graphlint.config import Config


@dataclass
class Finding:
    rule: Rule
    path: str
    line: int
    column: int  # 1-based
    end_line: int
    end_column: int  # 1-based, exclusive
    args: dict = field(default_factory=dict)
    note: str = ""  # "(in helper `f`, reached from Net.construct)"
    entry_path: str = ""  # in a helper: the path of the module defining the graph entry that reaches it
    node: nodes.NodeNG | None = field(default=None, repr=False, compare=False)
    payload: object = field(default=None, repr=False, compare=False)  # an instance of rule.payload, for fixers
    severity: Severity = Severity.WARNING
    graph: GraphFunction | None = field(default=None, repr=False, compare=False)  # where it was found
    profile: str = "ast"  # the capture profile it was found in (catalogue.model.PROFILES)

    @property
    def message(self) -> str:
        template = self.rule.message_in(self.profile)
        try:
            text = template.format(**self.args)
        except (KeyError, IndexError, ValueError):
            text = template
        return text + self.note

    @property
    def sort_key(self):
        return (self.path, self.line, self.column, self.rule.id)


# Families whose rules are the parser's: it reads every branch, before type inference decides any.
PARSER_FAMILIES = frozenset({"statements"})


def _inside(node: nodes.NodeNG, function: nodes.NodeNG) -> bool:
    parent = node.parent
    while parent is not None:
        if parent is function:
            return True
        parent = parent.parent
    return False


class ModuleContext:
    """What a checker sees while checking one module."""

    def __init__(self, info: ModuleInfo, analysis: Analysis, config: Config):
        self.info = info
        self.analysis = analysis
        self.config = config
        self.findings: list[Finding] = []
        self._seen: set[tuple] = set()
        self._target = config.target

    @property
    def project(self) -> Project:
        return self.analysis.project

    def values(self, graph: GraphFunction) -> FunctionValues | None:
        return self.analysis.values(graph)

    def report(self, rule: Rule, node: nodes.NodeNG, graph: GraphFunction | None = None, *,
               payload: object = None, anchor: nodes.NodeNG | None = None, assumes: str = "",
               **args) -> Finding | None:
        """Record a finding of ``rule`` at ``anchor`` (else ``node``). ``assumes`` names what the finding rests on
        when nothing in the module shows it (the entry parameter `n` being a Tensor): it is then reported one
        severity lower, saying so."""
        if not isinstance(rule, Rule):
            raise TypeError(f"report() takes a Rule, not {rule!r}")
        if payload is not None and (rule.payload is None or not isinstance(payload, rule.payload)):
            raise TypeError(f"{rule.symbol} declares no payload of type {type(payload).__name__}")
        if not self.config.enabled(rule) or not rule.applies_to(self._target):
            return None
        capture = graph.capture if graph is not None else AST_CAPTURE
        level = Level.STRICT if capture.fullgraph else self.config.syntax_level
        severity = rule.severity_in(capture.profile, level, self._target)
        if severity is None:
            return None  # (the rule does not hold under that capture mode)
        if graph is not None and capture.profile.startswith("bytecode") and not rule.in_eager_fallback \
                and runs_eagerly(self.analysis, graph):
            return None  # (PIJit on Python 3.11 runs the function as plain Python: nothing is captured)
        if graph is not None and rule.family not in PARSER_FAMILIES and node is not None:
            values = self.analysis.values(graph) if _inside(node, graph.node) else None
            if values is not None and (values.in_branch_the_parser_drops(node) if rule.by_parser
                                       else values.in_dead_branch(node)):
                return None  # (type inference -- or, for the parser's rules, the parser -- never sees that branch)
        where = anchor or node
        line = getattr(where, "lineno", None) or 1
        column = (getattr(where, "col_offset", None) or 0) + 1
        end_line = getattr(where, "end_lineno", None) or line
        end_column = (getattr(where, "end_col_offset", None) or (column - 1)) + 1
        key = (rule.id, line, column, end_line, end_column)
        if key in self._seen:
            return None
        self._seen.add(key)
        note = graph.reached_note() if graph else ""
        if assumes:
            severity = severity.lowered
            note = f" (if {assumes}: no call in the project says){note}"
        finding = Finding(rule=rule, path=self.info.path, line=line, column=column, end_line=end_line,
                          end_column=end_column, args=args, note=note, node=node, payload=payload,
                          severity=severity, graph=graph, profile=capture.profile,
                          entry_path=graph.entry_path if graph is not None else "")
        self.findings.append(finding)
        return finding


class Checker:
    """Base of the family checkers: one per module in graphlint/checkers/, registered in its ``__init__``."""

    family = ""

    def __init__(self, context: ModuleContext):
        self.context = context

    def report(self, rule: Rule, node, graph: GraphFunction | None = None, **kw):
        return self.context.report(rule, node, graph, **kw)

    def check_function(self, graph: GraphFunction) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
