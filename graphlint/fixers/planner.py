"""The fix planner: what the fixers make of a module's findings, the one answer every consumer uses.

``graphlint --fix`` and ``--diff`` (:mod:`graphlint.fixers.driver`, a round at a time), the fix markers and the
summary's fixable counts (:func:`fix_availability`, asked by the lint session) and the language server's code
actions (:mod:`graphlint.server.engine`) all plan here, so they agree on every finding:

1. :func:`open_module` gives the libcst view of one module's text (:class:`~graphlint.fixers.base.FixContext`)
   with the module's findings, which fixers consult instead of detecting anything again;
2. :func:`plan_fix` asks the finding's fixers in order; the first that offers something (a libcst
   :class:`~graphlint.fixers.base.Edit` or a refusal) decides, and the answer is judged at the safety level asked
   for: a :class:`FixPlan` whose :class:`Verdict` says whether the edit is applied, needs ``--unsafe-fixes``, is
   only a suggestion, or is refused (with the reason).
"""

from __future__ import annotations

import enum
import warnings
from dataclasses import dataclass, field
from functools import cached_property

from graphlint.catalogue.model import FixSafety
from graphlint.fixers import fixers_for
from graphlint.fixers.base import Edit, FixContext, Fixer, Refusal, apply_edits

UNSAFE_WITHHELD = "unsafe fix (it may change behaviour in corner cases): apply it with --unsafe-fixes"


class CannotPlan(Exception):
    """No fix can be planned in this text (libcst cannot parse what Python can); the message says why."""


class Verdict(enum.Enum):
    """What becomes of one finding's fix at the safety level asked for."""

    APPLY = "apply"  # the edit is applied
    NEEDS_UNSAFE = "needs-unsafe"  # an unsafe edit, not applied without --unsafe-fixes
    SUGGEST = "suggest"  # a display-only edit: shown as a suggestion, never applied
    REFUSED = "refused"  # the fixer will not rewrite this instance (the reason says why)
    SILENT = "silent"  # a display-only fixer with nothing to suggest: no fix is offered, and no reason shown


@dataclass
class FixPlan:
    """The planner's answer for one finding: the fixer that answered, its edit (if it made one), the verdict, and
    the reason the edit is not applied (empty for APPLY and SILENT)."""

    finding: object
    fixer: Fixer
    verdict: Verdict
    edit: Edit | None = None
    reason: str = ""
    context: FixContext | None = field(default=None, repr=False, compare=False)

    @property
    def applies(self) -> bool:
        return self.verdict is Verdict.APPLY

    @property
    def safety(self) -> str | None:
        """"safe", "unsafe" or "display-only": how safe the offered edit is (None when there is no edit)."""
        return self.edit.applicability.value if self.edit is not None else None

    @cached_property
    def suggestion(self) -> str:
        """The module's text with this display-only edit applied ("" when it cannot be applied or would not
        parse): what ``--diff`` and the editor show the author."""
        if self.verdict is not Verdict.SUGGEST:
            return ""
        try:
            suggested, _, _ = apply_edits(self.context, [self.edit])
        except Exception:  # noqa: BLE001 - a suggestion is optional
            return ""
        return "" if parse_problem(suggested) else suggested

    def rewritten(self) -> tuple[str, str]:
        """``(the module's text with this one edit applied, why it cannot be used)``; the reason is empty when
        the rewrite parses and changes something. A fixer bug raises (the caller reports it)."""
        new_text, applied, _ = apply_edits(self.context, [self.edit])
        problem = parse_problem(new_text)
        if problem:
            return new_text, f"the rewrite would not parse ({problem})"
        if not applied or new_text == self.context.text:
            return new_text, "the rewrite changes nothing"
        return new_text, ""


def rewrite_problem(context: FixContext, new_text: str) -> str:
    """:func:`parse_problem` of ``new_text``, which ``context.code_of`` gave: when only one function changed,
    only it is compiled (in stand-in classes at its indentation); the rest of the module is as it was."""
    if context.regenerated is None:
        return parse_problem(new_text)
    first, indents, code = context.regenerated
    around = "".join("".join(indents[:depth]) + "class _:\n" for depth in range(len(indents)))
    return parse_problem(around + code, first - 1 - len(indents))


def open_module(text: str, analysis, info, findings, tree=None) -> FixContext:
    """The libcst view of one module (its ``text``, its ``info`` in ``analysis``) that fixes are planned on, with
    the module's ``findings``. ``tree``: the libcst tree of ``text``, when the caller has it. Raises
    :class:`CannotPlan` when libcst cannot parse the text."""
    try:
        context = FixContext(text, analysis, info, tree)
    except Exception as exc:  # noqa: BLE001 - libcst rejects some code that Python accepts
        raise CannotPlan(f"libcst cannot parse the file: {exc}") from exc
    context.findings = findings
    return context


def plan_fix(finding, context: FixContext, *, unsafe: bool = False, suggest: bool = True) -> FixPlan | None:
    """The plan for ``finding`` from the first of its rule's fixers that offers something (None: no fixer
    does). ``unsafe``: unsafe edits are applied (``--unsafe-fixes``). ``suggest``: display-only fixers are asked
    too; ``--fix`` asks them only for the file as the author wrote it, not for code an earlier round wrote."""
    mode = getattr(finding, "profile", "ast")
    for fixer in fixers_for(finding.rule):
        if fixer.safety is FixSafety.DISPLAY and not suggest:
            continue
        if mode != "ast":
            # (the rewrites are proven by compiling from the AST; a trace or bytecode capture runs them otherwise)
            offered = Refusal(finding, fixer, f"under capture_mode=\"{mode}\" the rewrite is not proven by "
                                              "compiling (only AST-captured graphs are): change it by hand")
            return _judged(finding, fixer, offered, context, unsafe)
        try:
            offered = fixer.plan(finding, context)
        except Exception as exc:  # noqa: BLE001 - a fixer bug refuses this finding, it does not stop the run
            offered = Refusal(finding, fixer, f"internal error in the fixer: {type(exc).__name__}: {exc}")
        if offered is not None:
            return _judged(finding, fixer, offered, context, unsafe)
    return None


def _judged(finding, fixer: Fixer, offered: Edit | Refusal, context: FixContext, unsafe: bool) -> FixPlan:
    if isinstance(offered, Refusal):
        if fixer.safety is FixSafety.DISPLAY:
            return FixPlan(finding, fixer, Verdict.SILENT, context=context)
        return FixPlan(finding, fixer, Verdict.REFUSED, reason=offered.reason, context=context)
    safety = offered.applicability
    if safety is FixSafety.DISPLAY:
        return FixPlan(finding, fixer, Verdict.SUGGEST, offered,
                       "display-only: " + (offered.description or "rewrite by hand"), context)
    if safety is FixSafety.UNSAFE and not unsafe:
        return FixPlan(finding, fixer, Verdict.NEEDS_UNSAFE, offered, UNSAFE_WITHHELD, context)
    return FixPlan(finding, fixer, Verdict.APPLY, offered, context=context)


def fix_availability(analysis, info, findings, text: str, tree=None) -> dict[int, str]:
    """``{id(finding): "safe" | "unsafe" | "display-only"}`` for the findings a fixer would rewrite (or suggest a
    rewrite for) in the module as it is, planned as ``--fix`` plans its first round: the fix markers and the
    summary's fixable counts. Findings whose fixer refuses, or that no fixer handles, are absent."""
    fixable = [finding for finding in findings if fixers_for(finding.rule)]
    if not fixable or not text:
        return {}
    try:
        context = open_module(text, analysis, info, list(findings), tree)
    except CannotPlan:  # no fix, as --fix would say
        return {}
    plans = (plan_fix(finding, context) for finding in fixable)
    return {id(plan.finding): plan.safety for plan in plans if plan is not None and plan.edit is not None}


def parse_problem(text: str, shift: int = 0) -> str:
    """Why ``text`` is not valid Python ("" when it is): a rewrite that would not parse is never used.
    ``shift``: what to add to the line numbers of ``text`` to give the module's."""
    try:
        with warnings.catch_warnings():  # warnings about the user's code are not ours to print
            warnings.simplefilter("ignore")
            compile(text, "<fixed>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"line {(exc.lineno or 0) + shift}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return str(exc) or type(exc).__name__
    return ""
