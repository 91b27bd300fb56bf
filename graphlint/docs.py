"""Rule documentation, generated from the catalogue: ``--explain``, ``--list-rules`` and docs/rules/."""

from __future__ import annotations

import os

from graphlint.catalogue import RULES, lookup
from graphlint.catalogue.matrix import CONTEXTS, cells, load_measured
from graphlint.catalogue.model import CRASHES, DIVERGES, EXAMPLE_HEADER, FAILS, OK, SKIP, Example, Rule
from graphlint.config import Config
from graphlint.fixers import fix_safety

OUTCOME_WORDS = {
    OK: "compiles and matches PYNATIVE_MODE",
    FAILS: "fails to compile",
    DIVERGES: "compiles, but returns different results from PYNATIVE_MODE",
    CRASHES: "crashes the process",
    SKIP: "not checked",
}
TRACE_WORDS = {
    OK: "every call matches PYNATIVE_MODE",
    FAILS: "fails",
    DIVERGES: "a later call returns something else than PYNATIVE_MODE",
    CRASHES: "crashes the process",
}


# The severity columns: the AST capture at both syntax levels, then the other capture modes (catalogue.model).
SEVERITY_COLUMNS = ("lax", "strict", "bytecode", "bytecode+fullgraph", "trace")


def rule_table() -> str:
    widths = {column: max(8, len(column) + 1) for column in SEVERITY_COLUMNS}
    rows = [f"{'id':6} {'symbol':40} " + "".join(f"{column:{widths[column]}}" for column in SEVERITY_COLUMNS)
            + "summary"]
    for rule in RULES:
        shown = rule.profile_severities()
        rows.append(f"{rule.id:6} {rule.symbol:40} "
                    + "".join(f"{shown[column]:{widths[column]}}" for column in SEVERITY_COLUMNS) + rule.summary)
    return "\n".join(rows)


def _severity_sentence(rule: Rule) -> str:
    if rule.in_ast:
        text = (f"Severity: **{rule.lax.value}** at the default `lax` syntax level, **{rule.strict.value}** at "
                f"`strict` (what MindIR export and `jit(fullgraph=True)` need)")
    else:
        text = "Not reported in code compiled from its AST (`jit`'s default capture)"
    others = [f"**{severity.value}** under `capture_mode=\"{mode}\"`"
              for mode, severity in (("trace", rule.trace), ("bytecode", rule.bytecode)) if severity is not None]
    if rule.bytecode_fullgraph is not None:
        others.append(f"**{rule.bytecode_fullgraph.value}** under `capture_mode=\"bytecode\", fullgraph=True`")
    return text + (("; " + ", ".join(others)) if others else "; not reported under `capture_mode=\"trace\"` "
                   "or `\"bytecode\"`") + "."


def _claim(example: Example) -> str:
    if example.lax == SKIP:
        captured = [f"under `capture_mode=\"{capture}\"`: {TRACE_WORDS[getattr(example, capture)]}"
                    for capture in ("trace", "bytecode") if getattr(example, capture) != SKIP]
        if captured:
            return "; ".join(captured)
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
        f"Family: `{rule.family}`. {_severity_sentence(rule)}"
        + (f" Releases: {rule.releases} (`target-mindspore`)." if rule.releases else ""),
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
    for title, examples in (("Flagged", rule.flagged), ("Clean", rule.clean)):
        for number, example in enumerate(examples, 1):
            suffix = f" ({number})" if len(examples) > 1 else ""
            where = ""
            if example.lines:
                numbers = ", ".join(str(n) for n in example.lines)
                where = f" graphlint reports line{'s' if len(example.lines) > 1 else ''} {numbers}."
            lines += [f"## {title}{suffix}", "", f"MindSpore 2.10, checked by the test suite: {_claim(example)}.{where}",
                      "", "```python", example.code.rstrip("\n"), "```", ""]
            if example.fixed:
                how = "`graphlint --fix --unsafe-fixes`" if example_fix_safety(rule, example) == "unsafe" \
                    else "`graphlint --fix`"
                lines += [f"{how} rewrites it to (compiled by the test suite too):", "", "```python",
                          example.fixed.rstrip("\n"), "```", ""]
    lines += ["## Fix", "", rule.fix, ""]
    safety = fix_safety(rule)
    if safety is not None:
        lines += [f"`graphlint --fix` safety: **{safety.value}**.", ""]
    else:
        lines += ["`graphlint --fix` does not rewrite this automatically.", ""]
    lines += ["## Suppress", "", f"`# pylint: disable={rule.symbol}` on the line, or in the block.", "",
              "Every example starts with:", "", "```python", EXAMPLE_HEADER.rstrip("\n"), "```", ""]
    return "\n".join(lines)


def example_fix_safety(rule, example) -> str:
    """How safe the rewrite of a flagged example is ("safe", "unsafe"; "" when --fix leaves it as it is)."""
    if not example.fixed:
        return ""
    return example.fix_safety or fix_safety(rule).value


def explain(name: str) -> str | None:
    rule = lookup(name)
    return render_rule(rule) if rule is not None else None


COVERAGE_WORDS = {OK: "supported", FAILS: "fails", DIVERGES: "diverges", CRASHES: "crashes", SKIP: "-"}


def _level_word(example: Example, level: str) -> str:
    claim = getattr(example, level)
    if level == "lax" and claim == OK and example.strict == FAILS:
        return "falls back"
    if example.dynamic_shape and claim == OK:
        return "dynamic shape"
    return COVERAGE_WORDS[claim]


def coverage_page() -> str:
    """docs/coverage.md: Python constructs x MindSpore 2.10 levels, from the examples the tests compile."""
    lines = [
        "# What MindSpore 2.10 does with Python constructs in graph code",
        "",
        "Generated from the catalogue's flagged examples, each compiled by the test suite with MindSpore 2.10 "
        "(CPU) at the default `lax` syntax level (GRAPH_MODE) and at `strict` (`mindspore.jit(..., fullgraph=True)`, "
        "what MindIR export needs). *falls back*: compiles by JIT fallback (interpreted) at lax, rejected at strict. "
        "*diverges*: compiles, but returns something other than PYNATIVE_MODE. Regenerate with "
        "`python -m graphlint.docs docs`.",
        "",
        "| construct | lax | strict | rule | fixable |",
        "| --- | --- | --- | --- | --- |",
    ]
    for rule in RULES:
        for example in rule.flagged:
            fixable = example_fix_safety(rule, example) or "no"
            lines.append(f"| {example.title} | {_level_word(example, 'lax')} | {_level_word(example, 'strict')} | "
                         f"[{rule.id} `{rule.symbol}`](rules/{rule.id}.md) | {fixable} |")
    return "\n".join(lines) + "\n" + matrix_section()


_MATRIX_WORDS = {"ok": "ok", "fails": "**fails**", "diverges": "*diverges*", "crashes": "**crashes**"}


def matrix_section() -> str:
    """The coverage matrix: each construct in each context, as measured, with what graphlint reports."""
    # here: linting the cells loads astroid and the analysis, which --explain and the rule pages do not need
    from graphlint.lint import lint_text

    measured = load_measured()
    by_construct: dict[str, dict[str, str]] = {}
    titles: dict[str, str] = {}
    for cell in cells():
        record = measured.get(cell.key)
        titles[cell.construct.key] = cell.construct.title
        if record is None:
            continue
        if record["pynative"] != "ok":
            text = "(fails in PYNATIVE)"
        else:
            levels = "/".join(_MATRIX_WORDS[record[level]] for level in ("lax", "strict", "export") if level in record)
            reported = sorted({f.rule.id for f in lint_text(cell.source, Config(syntax_level="strict"))})
            text = levels + (" " + " ".join(f"[{r}](rules/{r}.md)" for r in reported) if reported else "")
        by_construct.setdefault(cell.construct.key, {})[cell.context] = text
    lines = [
        "",
        "## The coverage matrix",
        "",
        "Every construct graphlint knows, in every context graph code is written in (`python "
        "scripts/measure_matrix.py` compiles them; the test suite compiles them again and checks that "
        "graphlint reports each failing cell at error severity and no compiling one). Each cell: the outcome at "
        "lax / strict (/ MindIR export), then the rules graphlint reports (at the strict level). Contexts: "
        "`construct`; a `@jit` function; a module helper and a method helper the Cell calls; a `@jit_class` method; "
        "under a constant `if`, under a Tensor `if`, inside a `for` loop.",
        "",
        "| construct | " + " | ".join(CONTEXTS) + " |",
        "| --- |" + " --- |" * len(CONTEXTS),
    ]
    for key, row in by_construct.items():
        lines.append(f"| {titles[key]} | " + " | ".join(row.get(context, "") for context in CONTEXTS) + " |")
    return "\n".join(lines) + "\n"


def rules_index() -> str:
    lines = ["# graphlint rules", "",
             "Severities in code compiled from its AST (`lax`, `strict`: `jit(fullgraph=True)`) and in functions "
             "jitted with `capture_mode=\"bytecode\"` or `\"trace\"` (`-`: not reported there).", "",
             "| id | symbol | " + " | ".join(SEVERITY_COLUMNS) + " | what it detects |",
             "| --- | --- |" + " --- |" * len(SEVERITY_COLUMNS) + " --- |"]
    for rule in RULES:
        shown = rule.profile_severities()
        lines.append(f"| [{rule.id}]({rule.id}.md) | `{rule.symbol}` | "
                     + " | ".join(shown[column] for column in SEVERITY_COLUMNS) + f" | {rule.summary} |")
    return "\n".join(lines) + "\n"


def generated_files() -> dict[str, str]:
    """Relative path under docs/ -> content."""
    files = {"coverage.md": coverage_page(), "rules/README.md": rules_index()}
    for rule in RULES:
        files[f"rules/{rule.id}.md"] = render_rule(rule)
    return files


def write_docs(folder: str) -> list[str]:
    written = []
    rules_folder = os.path.join(folder, "rules")
    os.makedirs(rules_folder, exist_ok=True)
    wanted = generated_files()
    for stale in os.listdir(rules_folder):
        if f"rules/{stale}" not in wanted:
            os.remove(os.path.join(rules_folder, stale))
    for relative, content in wanted.items():
        path = os.path.join(folder, relative)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(content)
        written.append(path)
    return written


if __name__ == "__main__":
    import sys

    target = sys.argv[1] if len(sys.argv) > 1 else "docs"
    print(f"wrote {len(write_docs(target))} files under {target}/")
