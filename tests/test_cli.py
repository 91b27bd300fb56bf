"""The command line as users run it: output formats, exit codes, selection, configuration, pragmas."""

import json

from graphlint.cli import main
from tests.support import BROKEN_CELL, CLEAN_CELL, run_cli, write


def test_text_output_and_exit_codes(tmp_path, capsys):
    bad = write(tmp_path, "bad.py", BROKEN_CELL)
    good = write(tmp_path, "good.py", CLEAN_CELL)
    assert main([good]) == 0
    assert capsys.readouterr().out == ""
    assert main([bad, good]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [f"{bad}:7:9: E5101 try-in-graph " + out[0].split("try-in-graph ", 1)[1]]
    assert "`try` is not supported in graph code" in out[0]


def test_json_fields(tmp_path, capsys):
    bad = write(tmp_path, "bad.py", BROKEN_CELL)
    assert main([bad, "--format", "json"]) == 1
    records = json.loads(capsys.readouterr().out)
    assert records == [{
        "path": bad, "line": 7, "column": 9, "end_line": 7, "end_column": 12, "id": "E5101",
        "symbol": "try-in-graph", "severity": "error", "message": records[0]["message"],
    }]


def test_directory_recursion_skips_virtualenvs_and_hidden_folders(tmp_path, capsys):
    write(tmp_path, "pkg/model.py", BROKEN_CELL)
    write(tmp_path, ".venv/lib/site.py", BROKEN_CELL)
    write(tmp_path, "build/lib/model.py", BROKEN_CELL)
    write(tmp_path, ".hidden/model.py", BROKEN_CELL)
    write(tmp_path, "env2/pyvenv.cfg", "home = /usr\n")
    write(tmp_path, "env2/lib/model.py", BROKEN_CELL)
    assert main([str(tmp_path)]) == 1
    paths = {line.split(":")[0] for line in capsys.readouterr().out.splitlines()}
    assert paths == {str(tmp_path / "pkg" / "model.py")}


def test_select_and_ignore_by_id_symbol_and_family(tmp_path, capsys):
    bad = write(tmp_path, "bad.py", BROKEN_CELL)
    for option in (["--ignore", "E5101"], ["--ignore", "try-in-graph"], ["--ignore", "statements"],
                   ["--select", "W55"]):
        assert main([bad, *option]) == 0, option
    assert main([bad, "--select", "try-in-graph"]) == 1
    capsys.readouterr()
    assert main([bad, "--select", "no-such-rule"]) == 2
    assert "unknown rule selector" in capsys.readouterr().err


def test_pyproject_configuration(tmp_path, capsys):
    write(tmp_path, "pyproject.toml", '[tool.graphlint]\nignore = ["try-in-graph"]\n')
    bad = write(tmp_path, "src/bad.py", BROKEN_CELL)
    assert main([bad]) == 0
    write(tmp_path, "pyproject.toml", '[tool.graphlint]\nsyntax-level = "loose"\n')
    assert main([bad]) == 2
    assert "syntax level must be one of lax, strict" in capsys.readouterr().err
    write(tmp_path, "pyproject.toml", '[tool.graphlint]\nbogus = 1\n')
    assert main([bad]) == 2
    assert "unknown option 'bogus'" in capsys.readouterr().err


def test_pylint_disable_comment(tmp_path, capsys):
    source = BROKEN_CELL.replace("        try:", "        try:  # pylint: disable=try-in-graph")
    path = write(tmp_path, "suppressed.py", source)
    assert main([path]) == 0
    block = BROKEN_CELL.replace("    def construct(self, x):\n",
                                "    def construct(self, x):\n        # pylint: disable=E5101\n")
    assert main([write(tmp_path, "block.py", block)]) == 0
    capsys.readouterr()


def test_bad_files_get_one_line_and_the_run_goes_on(tmp_path):
    write(tmp_path, "bad.py", BROKEN_CELL)
    write(tmp_path, "syntax.py", "import mindspore\ndef f(:\n")
    with open(tmp_path / "latin.py", "wb") as handle:
        handle.write(b"import mindspore\nname = '\xe9'\n")
    result = run_cli(str(tmp_path))
    assert result.returncode == 2
    assert "E5101 try-in-graph" in result.stdout
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 2, errors
    assert any("syntax.py: cannot check: syntax error at line 2" in e for e in errors)
    assert any("latin.py: cannot check: cannot decode" in e for e in errors)
    assert "Traceback" not in result.stderr


def test_missing_path_and_usage_errors(tmp_path):
    result = run_cli(str(tmp_path / "nope.py"))
    assert result.returncode == 2
    assert "nope.py: cannot check: no such file or directory" in result.stderr
    result = run_cli("--format", "xml", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "invalid choice" in result.stderr


def test_explain_and_list_rules(capsys):
    assert main(["--explain", "try-in-graph"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("# E5101 `try-in-graph`")
    assert "Unsupported statement 'Try'" in page and "## Flagged" in page and "## Clean" in page and "graphlint reports line 3." in page
    assert main(["--explain", "E9999"]) == 2
    assert main(["--list-rules"]) == 0
    assert "try-in-graph" in capsys.readouterr().out


def test_baseline_reports_only_new_findings(tmp_path, capsys):
    bad = write(tmp_path, "bad.py", BROKEN_CELL)
    baseline = str(tmp_path / "baseline.json")
    assert main([bad, "--write-baseline", baseline]) == 0
    assert main([bad, "--baseline", baseline]) == 0
    # Lines moved: still known. A second `try`: new.
    write(tmp_path, "bad.py", "# a new comment line\n" + BROKEN_CELL + "\n\nclass Other(nn.Cell):\n"
          "    def construct(self, x):\n        try:\n            return x\n        finally:\n            pass\n")
    capsys.readouterr()
    assert main([bad, "--baseline", baseline]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and ":17:9: E5101" in out[0]
