"""Output formats: text, json, sarif (2.1.0) and github (workflow annotations)."""

from __future__ import annotations

import json
import os

from graphlint import __version__
from graphlint.catalogue import RULES

SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def finding_record(finding) -> dict:
    return {
        "path": finding.path,
        "line": finding.line,
        "column": finding.column,
        "end_line": finding.end_line,
        "end_column": finding.end_column,
        "id": finding.rule.id,
        "symbol": finding.rule.symbol,
        "severity": finding.severity.value,
        "message": finding.message,
    }


def render_text(findings, problems) -> str:
    from graphlint.session import printable

    lines = [f"{printable(f.path)}:{f.line}:{f.column}: {f.rule.id} {f.rule.symbol} {f.message}" for f in findings]
    return "\n".join(lines) + ("\n" if lines else "")


def render_json(findings, problems) -> str:
    return json.dumps([finding_record(f) for f in findings], indent=2) + "\n"


def render_github(findings, problems) -> str:
    lines = []
    for f in findings:
        message = f"{f.rule.symbol}: {f.message}".replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        lines.append(f"::{GITHUB_LEVEL[f.severity.value]} file={_escape_property(f.path)},line={f.line},"
                     f"endLine={f.end_line},col={f.column},endColumn={f.end_column},"
                     f"title={f.rule.id}::{message}")
    for problem in problems:
        lines.append(f"::error file={_escape_property(problem.path)},title=graphlint::{problem.reason}")
    return "\n".join(lines) + ("\n" if lines else "")


def _escape_property(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C")


def _uri(path: str) -> str:
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    if relative.startswith(".."):
        return "file://" + os.path.abspath(path)
    return relative.replace(os.sep, "/")


def render_sarif(findings, problems) -> str:
    rules = list(RULES)
    index = {rule.id: position for position, rule in enumerate(rules)}
    driver_rules = []
    for rule in rules:
        driver_rules.append({
            "id": rule.id,
            "name": rule.symbol,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.why},
            "help": {"text": f"{rule.why}\n\nFix: {rule.fix}", "markdown": f"{rule.why}\n\n**Fix:** {rule.fix}"},
            "defaultConfiguration": {"level": SARIF_LEVEL[rule.lax.value]},
            "properties": {"family": rule.family, "strict-level": rule.strict.value, "tags": ["mindspore", rule.family]},
        })
    results = []
    for f in findings:
        results.append({
            "ruleId": f.rule.id,
            "ruleIndex": index[f.rule.id],
            "level": SARIF_LEVEL[f.severity.value],
            "message": {"text": f.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(f.path)},
                    "region": {"startLine": f.line, "startColumn": f.column,
                               "endLine": f.end_line, "endColumn": max(f.end_column, 1)},
                },
            }],
        })
    notifications = [{
        "level": "error",
        "message": {"text": problem.reason},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(problem.path)}}}],
    } for problem in problems]
    run = {
        "tool": {"driver": {"name": "graphlint", "version": __version__,
                            "informationUri": "https://pypi.org/project/graphlint/", "rules": driver_rules}},
        "results": results,
        "invocations": [{"executionSuccessful": not problems, "toolExecutionNotifications": notifications}],
    }
    document = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2) + "\n"


RENDERERS = {"text": render_text, "json": render_json, "sarif": render_sarif, "github": render_github}
FORMATS = tuple(RENDERERS)  # the output formats, as --format and `format =` take them
