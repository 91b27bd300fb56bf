"""Rule documentation, generated from the catalogue: ``--explain``, ``--list-rules`` and docs/rules/."""

from __future__ import annotations

from graphlint.catalogue import RULES, lookup
from graphlint.catalogue.model import CRASHES, DIVERGES, EXAMPLE_HEADER, FAILS, OK, SKIP, Example, Rule

OUTCOME_WORDS = {
    OK: "compiles and matches PYNATIVE_MODE",
    FAILS: "fails to compile",
    DIVERGES: "compiles, but returns different results from PYNATIVE_MODE",
    CRASHES: "crashes the process",
    SKIP: "not checked",
}


def rule_table() -> str:
    rows = [f"{'id':6} {'symbol':40} {'lax':8} {'strict':8} summary"]
    for rule in RULES:
        rows.append(f"{rule.id:6} {rule.symbol:40} {rule.lax.value:8} {rule.strict.value:8} {rule.summary}")
    return "\n".join(rows)


def _claim(example: Example) -> str:
    parts = [f"lax: {OUTCOME_WORDS[example.lax]}"]
    if example.strict != SKIP:
        parts.append(f"strict: {OUTCOME_WORDS[example.strict]}")
    if example.export != SKIP:
        parts.append(f"MindIR export: {OUTCOME_WORDS[example.export]}")
    if example.dynamic_shape:
        parts.append("output shape depends on input values (dynamic shape)")
    return "; ".join(parts)


def render_rule(rule: Rule) -> str:
    """The rule's page, in Markdown (also what ``graphlint --explain`` prints)."""
    lines = [
        f"# {rule.id} `{rule.symbol}`",
        "",
        f"Family: `{rule.family}`. Severity: **{rule.lax.value}** at the default `lax` syntax level, "
        f"**{rule.strict.value}** at `strict` (what MindIR export needs).",
        "",
        "## What it detects",
        "",
        rule.summary,
        "",
        "## Why it matters",
        "",
        rule.why,
        "",
    ]
    if rule.mindspore_error:
        lines += ["MindSpore's message:", "", "```text", rule.mindspore_error, "```", ""]
    for title, examples in (("Fails", rule.fails), ("Passes", rule.passes)):
        for number, example in enumerate(examples, 1):
            suffix = f" ({number})" if len(examples) > 1 else ""
            lines += [f"## {title}{suffix}", "", f"MindSpore 2.10, checked by the test suite: {_claim(example)}.", "",
                      "```python", example.code.rstrip("\n"), "```", ""]
    lines += ["## Fix", "", rule.fix, ""]
    if rule.fix_safety is not None:
        lines += [f"`graphlint --fix` safety: **{rule.fix_safety.value}**.", ""]
    else:
        lines += ["`graphlint --fix` does not rewrite this automatically.", ""]
    lines += ["## Suppress", "", f"`# pylint: disable={rule.symbol}` on the line, or in the block.", "",
              "Every example starts with:", "", "```python", EXAMPLE_HEADER.rstrip("\n"), "```", ""]
    return "\n".join(lines)


def explain(name: str) -> str | None:
    rule = lookup(name)
    return render_rule(rule) if rule is not None else None
