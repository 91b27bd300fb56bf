"""The command line as users run it: output formats, exit codes, selection, configuration, inputs, pragmas.

Most tests run the installed ``graphlint`` command in a subprocess (:func:`tests.support.run_graphlint`); the
terminal behaviour (full format, colours, progress bar) is in tests/test_cli_terminal.py.
"""

import json
import re
from collections import Counter
import shutil
import os
import textwrap

from graphlint.cli import main
from tests.support import BROKEN_CELL, CLEAN_CELL, run_cli, run_graphlint, write

MIXED_CELL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            import math
            x += 1
            if x is 1.5:
                x = x * 2
            return x * math.pi
    """)  # E5103 (unsafe fix) line 7, W5301 (safe fix) line 8, E5116 (unsafe fix) line 9

ASNUMPY_CELL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            y = x.asnumpy()
            return x
    """)  # W5501: a warning at lax, an error at strict


def lines_of(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.strip()]


def test_concise_output_and_exit_codes(tmp_path, capsys):
    bad = write(tmp_path, "bad.py", BROKEN_CELL)
    good = write(tmp_path, "good.py", CLEAN_CELL)
    assert main([good]) == 0
    # concise in a pipe: one line per finding, then the summary line a CI log shows
    assert capsys.readouterr().out == "All checks passed: 1 file checked (7 lines), no findings.\n"
    assert main([bad, good]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [f"{bad}:7:9: E5101 try-in-graph " + out[0].split("try-in-graph ", 1)[1],
                   "Found 1 error in 1 file."]
    assert "`try` is not supported in graph code" in out[0]
    result = run_graphlint("--output-format", "concise", bad, good)
    assert result.returncode == 1 and lines_of(result.stdout) == out and result.stderr == ""
    assert run_graphlint("--format", "text", bad).stdout.splitlines() == out  # the old name of concise
    # --quiet: the finding lines only, for tools that read every line; nothing at all on a clean run
    quiet = run_graphlint("--quiet", bad, good)
    assert quiet.returncode == 1 and quiet.stdout.splitlines() == out[:1] and quiet.stderr == ""
    assert run_graphlint("--quiet", good).stdout == ""


def test_full_format_summary_and_success_message(tmp_path):
    path = write(tmp_path, "model.py", MIXED_CELL)
    result = run_graphlint("--output-format", "full", path)
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert "\x1b[" not in out  # no colours in a pipe
    assert "error[E5103] import-in-graph [~]: `import math`" in out
    assert "warning[W5301] augmented-assign-to-input [*]: `x += ...`" in out
    assert f"  --> {path}:8:9" in out
    assert "  8 |         x += 1\n    |         ^^^^^^\n" in out
    assert "  = help: Rebind instead of updating in place" in out and "(graphlint --explain W5301)" in out
    assert out.rstrip().endswith("Found 2 errors, 1 warning in 1 file (1 fixable with --fix, "
                                 "2 more with --fix --unsafe-fixes).")
    clean = run_graphlint("--output-format", "full", write(tmp_path, "clean.py", CLEAN_CELL))
    assert clean.returncode == 0 and clean.stdout == "All checks passed: 1 file checked (7 lines), no findings.\n"
    assert run_graphlint("--output-format", "full", "--quiet", path).stdout.count("Found") == 0
    forced = run_graphlint("--output-format", "full", "--color", "always", path).stdout
    assert "\x1b[1;31merror[E5103]\x1b[0m" in forced and "\x1b[1;33m^^^^^^\x1b[0m" in forced


ITEM_AND_DICT_CELL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            scale = x.max().item()
            return {"out": x / scale}
    """)  # I5701 line 7, W5507 line 8: fix advice with `;` in a code span and "e.g." in its first sentence


def test_full_format_help_is_the_whole_first_sentence_of_the_fix(tmp_path):
    """The help line ends at the first full stop that ends a sentence: not at a `;` or `.` inside a code span or
    parentheses, nor at "e.g."."""
    path = write(tmp_path, "model.py", ITEM_AND_DICT_CELL)
    out = run_graphlint("--output-format", "full", "--select", "I5701,W5507", path).stdout
    helps = [line for line in out.splitlines() if line.startswith("  = help: ")]
    assert helps == [
        "  = help: Keep the value as a 0-d Tensor (`x / x.max()`; `ops.cast` to change its dtype) and call "
        "`.item()` outside the Cell when a Python number is really needed. `graphlint --fix --unsafe-fixes` "
        "rewrites it (unsafe fix: check the diff). (graphlint --explain I5701)",
        "  = help: Return a tuple in a fixed order (e.g. `return x, y`) and build the dict outside the graph. "
        "`graphlint --diff` shows a suggested rewrite. (graphlint --explain W5507)"]


def test_help_sentences_of_every_rule():
    """Every rule's help is a prefix of its fix advice that closes its code spans and parentheses; an ellipsis
    stays one."""
    from graphlint.catalogue import RULES
    from graphlint.report import _help

    for rule in RULES:
        advice, shown = " ".join(rule.fix.split()), _help(rule)
        assert advice.startswith(shown), rule.id
        assert shown.count("`") % 2 == 0 and shown.count("(") == shown.count(")"), (rule.id, shown)
    by_id = {rule.id: rule for rule in RULES}
    assert _help(by_id["W5502"]).endswith("`ops.sum`, `ops.tanh`, ...")
    assert _help(by_id["W5503"]).endswith("`ops.floor`, ... (the result stays a Tensor).")
    assert _help(by_id["W5303"]) == "Rebind (`w = w + v`)."


def test_caret_under_non_ascii_and_tabs(tmp_path):
    text = MIXED_CELL.replace("        x += 1\n", "        s = 'é'; x += 1\n")
    path = write(tmp_path, "model.py", text)
    out = run_graphlint("--output-format", "full", "--select", "W5301", path).stdout
    assert "  8 |         s = 'é'; x += 1\n    |                  ^^^^^^\n" in out


def test_json_fields_fix_and_unchecked_files(tmp_path):
    bad = write(tmp_path, "bad.py", BROKEN_CELL)
    fixable = write(tmp_path, "fixable.py", MIXED_CELL)
    syntax = write(tmp_path, "syntax.py", "import mindspore\ndef f(:\n")
    result = run_graphlint("--output-format", "json", str(tmp_path))
    assert result.returncode == 2
    records = json.loads(result.stdout)
    assert records[0] == {
        "path": bad, "line": 7, "column": 9, "end_line": 7, "end_column": 12, "id": "E5101",
        "symbol": "try-in-graph", "severity": "error", "message": records[0]["message"], "fix": None,
    }
    assert [(r["path"], r["id"], r["fix"]) for r in records[1:]] == [
        (fixable, "E5103", "unsafe"), (fixable, "W5301", "safe"), (fixable, "E5116", "unsafe"),
        (syntax, "F0001", None)]
    assert records[-1]["symbol"] == "cannot-check" and records[-1]["line"] == 2 and records[-1]["column"] == 7
    assert "syntax error" in records[-1]["message"]
    assert result.stderr == f"{syntax}: cannot check: syntax error at line 2, column 7: invalid syntax\n"


def test_directory_recursion_skips_virtualenvs_and_hidden_folders(tmp_path, capsys):
    write(tmp_path, "pkg/model.py", BROKEN_CELL)
    write(tmp_path, ".venv/lib/site.py", BROKEN_CELL)
    write(tmp_path, "build/lib/model.py", BROKEN_CELL)
    write(tmp_path, ".hidden/model.py", BROKEN_CELL)
    write(tmp_path, "env2/pyvenv.cfg", "home = /usr\n")
    write(tmp_path, "env2/lib/model.py", BROKEN_CELL)
    assert main([str(tmp_path)]) == 1
    *findings, summary = capsys.readouterr().out.splitlines()
    assert {line.split(":")[0] for line in findings} == {str(tmp_path / "pkg" / "model.py")}
    assert summary == "Found 1 error in 1 file."


def test_no_path_means_the_current_folder(tmp_path):
    write(tmp_path, "pkg/model.py", BROKEN_CELL)
    result = run_graphlint(cwd=tmp_path)
    assert result.returncode == 1
    assert lint_paths_of(result.stdout) == {"pkg/model.py"}


def lint_paths_of(out: str) -> set[str]:
    """The paths of the finding lines of concise output (the summary line that ends it left out)."""
    return {line.split(":")[0] for line in lines_of(out)[:-1]}


def test_select_and_ignore_by_id_symbol_family_prefix_and_severity(tmp_path, capsys):
    bad = write(tmp_path, "bad.py", BROKEN_CELL)
    for option in (["--ignore", "E5101"], ["--ignore", "try-in-graph"], ["--ignore", "statements"],
                   ["--select", "W55"], ["--select", "W"], ["--select", "I"], ["--ignore", "E"],
                   ["--select", "warning"], ["--ignore", "error"], ["--select", "E", "--extend-ignore", "E51"]):
        assert main([bad, *option]) == 0, option
    for option in (["--select", "try-in-graph"], ["--select", "E"], ["--select", "e51"], ["--select", "error"],
                   ["--select", "W", "--extend-select", "E5101"], ["--select", "ALL"]):
        assert main([bad, *option]) == 1, option
    capsys.readouterr()
    strict = write(tmp_path, "strict.py", ASNUMPY_CELL)
    assert run_graphlint("--select", "error", strict).stdout == (
        "All checks passed: 1 file checked (8 lines), no findings.\n")
    out = run_graphlint("--select", "error", "--syntax-level", "strict", "--output-format", "json", strict).stdout
    assert [(r["id"], r["severity"]) for r in json.loads(out)] == [("W5501", "error")]
    result = run_graphlint(bad, "--select", "no-such-rule,E99")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("graphlint: error: --select: unknown rule selectors 'no-such-rule', 'E99' "
                             "(graphlint --list-rules lists them)\n")
    assert "--extend-ignore: unknown rule selector 'X1'" in run_graphlint(bad, "--extend-ignore", "X1").stderr


def test_pyproject_configuration(tmp_path, capsys):
    write(tmp_path, "pyproject.toml", '[tool.graphlint]\nignore = ["try-in-graph"]\n')
    bad = write(tmp_path, "src/bad.py", BROKEN_CELL)
    assert main([bad]) == 0
    write(tmp_path, "pyproject.toml", '[tool.graphlint]\nselect = ["E", "W"]\n')  # docs/configuration.md's example
    assert main([bad]) == 1
    capsys.readouterr()
    errors = {
        '[tool.graphlint]\nsyntax-level = "loose"\n': "syntax level must be one of lax, strict, not 'loose'",
        '[tool.graphlint]\nbogus = 1\n': "unknown option 'bogus' in [tool.graphlint]",
        '[tool.graphlint]\nselect = ["E99"]\n': "pyproject.toml: select: unknown rule selector 'E99'",
        '[tool.graphlint]\nextend-ignore = "nope"\n': "pyproject.toml: extend-ignore: unknown rule selector 'nope'",
        '[tool.graphlint]\nunroll-warn = "many"\n': "pyproject.toml: unroll-warn must be an integer, not 'many'",
        '[tool.graphlint]\nselect = 3\n': "pyproject.toml: select must be a list of strings",
        '[tool.graphlint]\noutput-format = "xml"\n': "format must be one of full, concise, text, json",
        '[tool.graphlint.per-file-ignores]\n"tests/*" = ["nope"]\n':
            "pyproject.toml: per-file-ignores 'tests/*': unknown rule selector 'nope'",
        '[tool.graphlint]\nper-file-ignores = ["tests/*"]\n': "per-file-ignores must be a table",
        '[tool.graphlint.validate]\ntimeout = "long"\n': "validate.timeout must be a number",
        '[tool.graphlint.validate]\ninputz = {}\n': "unknown option 'inputz' in [tool.graphlint.validate]",
        '[tool.graphlint\n': "cannot read [tool.graphlint]",
    }
    for text, message in errors.items():
        write(tmp_path, "pyproject.toml", text)
        result = run_graphlint(bad)
        assert result.returncode == 2, text
        assert result.stderr.count("\n") == 1 and message in result.stderr, (text, result.stderr)
        assert str(tmp_path / "pyproject.toml") in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


def test_per_file_ignores_and_extend_options(tmp_path):
    write(tmp_path, "pyproject.toml", textwrap.dedent("""\
        [tool.graphlint]
        select = ["W"]
        extend-select = ["E5101"]

        [tool.graphlint.per-file-ignores]
        "tests/*" = ["E5101"]
        "legacy_*.py" = ["warning"]
        """))
    write(tmp_path, "src/model.py", MIXED_CELL.replace("        import math\n", "        try:\n"
                                                           "            pass\n        finally:\n            pass\n"))
    write(tmp_path, "tests/test_model.py", BROKEN_CELL)
    write(tmp_path, "src/legacy_net.py", MIXED_CELL)
    result = run_graphlint("--output-format", "json", ".", cwd=tmp_path)
    found = sorted((r["path"], r["id"]) for r in json.loads(result.stdout))
    assert found == [("src/model.py", "E5101"), ("src/model.py", "W5301")], result.stdout
    # --select replaces select and extend-select from the file; --extend-select adds to it.
    found = {r["id"] for r in json.loads(run_graphlint("--output-format", "json", "--select", "E51", ".",
                                                       cwd=tmp_path).stdout)}
    assert found == {"E5101", "E5103", "E5116"}
    found = {r["id"] for r in json.loads(run_graphlint("--output-format", "json", "--extend-select", "E5103",
                                                       "src/model.py", cwd=tmp_path).stdout)}
    assert found == {"E5101", "W5301"}  # E5103 is gone from this text (the import became a try)


BLOCK_BASE = "from mindspore import nn\n\n\nclass Block(nn.Cell):\n    pass\n"
SUBCLASS = textwrap.dedent("""\
    from pkg.base import Block


    class Net(Block):
        def construct(self, x):
            x += 1
            return x
    """)  # a Cell only if pkg/base.py is found: W5301 at line 6


def test_stdin(tmp_path):
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/base.py", BLOCK_BASE)
    result = run_graphlint("-", stdin=MIXED_CELL, cwd=tmp_path)
    assert result.returncode == 1 and result.stderr == ""
    *findings, summary = lines_of(result.stdout)
    assert [line.split(": ")[1].split()[0] for line in findings] == ["E5103", "W5301", "E5116"]
    assert findings[1].startswith("-:8:9: W5301 augmented-assign-to-input ")
    assert summary == "Found 2 errors, 1 warning in 1 file."  # in a pipe, without the fixable counts
    # Without a file name, `pkg.base` is not found: Net is not known to be a Cell.
    assert run_graphlint("-", stdin=SUBCLASS, cwd=tmp_path).stdout == (
        "All checks passed: 1 file checked (7 lines), no findings.\n")
    # As the file it is: the path is shown, its imports resolve from there, its pyproject.toml applies.
    result = run_graphlint("--stdin-filename", "pkg/model.py", "-", stdin=SUBCLASS, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert lines_of(result.stdout)[0].startswith("pkg/model.py:6:9: W5301 augmented-assign-to-input ")
    assert run_graphlint("--stdin-filename", "pkg/model.py", stdin=SUBCLASS, cwd=tmp_path).returncode == 1
    write(tmp_path, "pyproject.toml", '[tool.graphlint.per-file-ignores]\n"pkg/model.py" = ["W5301"]\n')
    result = run_graphlint("--stdin-filename", "pkg/model.py", "--output-format", "full", "-", stdin=SUBCLASS,
                           cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == "All checks passed: 1 file checked (7 lines), no findings.\n"
    broken = run_graphlint("-", stdin="import mindspore\ndef f(:\n", cwd=tmp_path)
    assert broken.returncode == 2
    assert broken.stderr == "-: cannot check: syntax error at line 2, column 7: invalid syntax\n"
    for args, message in ((["-", "pkg"], "- (standard input) cannot be combined with other paths"),
                          (["--stdin-filename", "x.py", "pkg"], "--stdin-filename goes with - (standard input)"),
                          (["--fix", "-"], "--fix and --diff rewrite files; they do not read standard input")):
        result = run_graphlint(*args, stdin=SUBCLASS, cwd=tmp_path)
        assert result.returncode == 2 and result.stderr.startswith(f"graphlint: error: {message}"), result.stderr
        assert result.stderr.count("\n") == 1
    latin = run_graphlint("-", stdin=None, cwd=tmp_path)  # empty input: nothing to report
    assert latin.returncode == 0


def test_statistics(tmp_path):
    write(tmp_path, "a.py", MIXED_CELL)
    write(tmp_path, "b.py", MIXED_CELL.replace("        import math\n", ""))
    write(tmp_path, "c.py", BROKEN_CELL)
    result = run_graphlint("--statistics", ".", cwd=tmp_path)
    assert result.returncode == 1
    *table, summary = lines_of(result.stdout)
    assert [line.split() for line in table] == [
        ["2", "E5116", "is-unsupported-operand", "error", "[~]", "2", "unsafe-fixable"],
        ["2", "W5301", "augmented-assign-to-input", "warning", "[*]", "2", "fixable"],
        ["1", "E5101", "try-in-graph", "error"],
        ["1", "E5103", "import-in-graph", "error", "[~]", "1", "unsafe-fixable"]]
    assert summary == "Found 4 errors, 2 warnings in 3 files (2 fixable with --fix, 3 more with --fix --unsafe-fixes)."
    records = json.loads(run_graphlint("--statistics", "--output-format", "json", ".", cwd=tmp_path).stdout)
    assert records[0] == {"count": 2, "id": "E5116", "symbol": "is-unsupported-operand", "severity": "error",
                          "safe_fixes": 0, "unsafe_fixes": 2}
    full = run_graphlint("--statistics", "--output-format", "full", ".", cwd=tmp_path).stdout
    assert full.rstrip().splitlines()[-1] == ("Found 4 errors, 2 warnings in 3 files (2 fixable with --fix, "
                                              "3 more with --fix --unsafe-fixes).")
    assert run_graphlint("--statistics", "--output-format", "sarif", ".", cwd=tmp_path).returncode == 2


def test_show_fixes_quiet_and_the_fix_summary(tmp_path):
    path = write(tmp_path, "model.py", MIXED_CELL)
    listing = run_graphlint("--show-fixes", "--quiet", path).stdout
    assert listing.endswith("Fixes available:\n"
                            f"  {path}:7:9: E5103 [~] import-in-graph (unsafe, --fix --unsafe-fixes)\n"
                            f"  {path}:8:9: W5301 [*] augmented-assign-to-input (safe, --fix)\n"
                            f"  {path}:9:12: E5116 [~] is-unsupported-operand (unsafe, --fix --unsafe-fixes)\n")
    diff = run_graphlint("--diff", path)
    assert diff.returncode == 1 and "+        x = x + 1\n" in diff.stdout
    # (the two unsafe fixes are not refusals: they are counted as what --unsafe-fixes adds)
    assert diff.stderr.splitlines()[0] == "graphlint: 1 fix would be applied in 1 file, 0 refused, 2 more with " \
                                          "--unsafe-fixes"
    assert "fixed " not in diff.stderr and "refused " not in diff.stderr
    shown = run_graphlint("--diff", "--show-fixes", path)
    assert f"  would fix {path}:8: W5301 augmented-assign-to-input:" in shown.stderr
    quiet = run_graphlint("--diff", "--quiet", path)
    assert quiet.stderr == "" and "x = x + 1" in quiet.stdout
    fixed = run_graphlint("--fix", "--output-format", "full", path)
    assert fixed.returncode == 1
    assert fixed.stdout.rstrip().endswith("Found 2 errors in 1 file (2 fixable with --fix --unsafe-fixes).")
    assert "x = x + 1" in open(path, encoding="utf-8").read()


def findings_by_jobs(folder, jobs) -> dict:
    """``{jobs: JSON findings}`` of `graphlint --jobs N zoo` in ``folder``, for each N (each run finds some)."""
    outputs = {}
    for count in jobs:
        result = run_graphlint("--jobs", count, "--no-cache", "--output-format", "json", "zoo", cwd=folder)
        assert result.returncode == 1, result.stderr
        outputs[count] = json.loads(result.stdout)
    return outputs


def test_jobs_share_the_project_index(tmp_path):
    """Cell bases and helpers defined in other files resolve with --jobs as in one process."""
    write(tmp_path, "zoo/__init__.py", "")
    write(tmp_path, "zoo/base.py", textwrap.dedent("""\
        from mindspore import nn


        class Block(nn.Cell):
            pass


        def helper(x):
            try:
                return x * 2
            except ValueError:
                return x
        """))
    for index in range(12):
        write(tmp_path, f"zoo/model_{index}.py", textwrap.dedent(f"""\
            from zoo.base import Block, helper


            class Net{index}(Block):
                def construct(self, x):
                    x += {index}
                    return helper(x)
            """))
    outputs = findings_by_jobs(tmp_path, ("1", "2", "3"))
    assert outputs["1"] == outputs["2"] == outputs["3"]
    found = {(r["path"], r["id"]) for r in outputs["2"]}
    assert ("zoo/base.py", "E5101") in found  # the helper's `try`, reached from construct in other files
    assert {p for p, rule in found if rule == "W5301"} == {f"zoo/model_{i}.py" for i in range(12)}
    assert all(r["fix"] == "safe" for r in outputs["2"] if r["id"] == "W5301")
    for bad in ("-1", "many"):
        result = run_graphlint("--jobs", bad, "zoo", cwd=tmp_path)
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and "--jobs" in result.stderr


def test_fix_with_jobs_writes_and_reports_what_one_process_does(tmp_path):
    """--fix --jobs N: each process fixes and re-lints its share (a helper's module with the models that call
    it); the files written, the summary and the findings left (with their fix markers) are those of one
    process."""
    project = tmp_path / "project"
    write(project, "zoo/__init__.py", "")
    write(project, "zoo/base.py", textwrap.dedent("""\
        from mindspore import nn


        def shift(x):
            x += 1
            return x
        """))
    for index in range(12):
        write(project, f"zoo/model_{index}.py", textwrap.dedent(f"""\
            from mindspore import nn
            from zoo.base import shift


            class Net{index}(nn.Cell):
                def construct(self, x):
                    x += {index}
                    if x.sum() > 0:
                        y = x * 2
                    else:
                        y = x - 1
                    return shift(y)


            class Gate{index}(nn.Cell):
                def construct(self, x):
                    if x.sum().item() > 0:
                        return x * 0.5
                    return x + shift(x)
            """))
    runs = {}
    for jobs in ("1", "2", "3"):
        folder = tmp_path / f"jobs{jobs}"
        shutil.copytree(project, folder)
        result = run_graphlint("--jobs", jobs, "--no-cache", "--fix", "--output-format", "json", "zoo", cwd=folder)
        assert result.returncode == 0, result.stderr  # what is left is info (I5701, I5806): it does not fail
        texts = {path.relative_to(folder).as_posix(): path.read_text() for path in sorted(folder.rglob("*.py"))}
        runs[jobs] = (json.loads(result.stdout), result.stderr, texts)
    assert runs["1"] == runs["2"] == runs["3"]
    left, summary, texts = runs["2"]
    assert summary.startswith("graphlint: 25 fixes applied in 13 files, 12 refused, 12 more with --unsafe-fixes\n")
    assert "    x = x + 1\n" in texts["zoo/base.py"]  # the helper, fixed once although 24 Cells call it
    assert "        y = ops.where(x.sum() > 0, x * 2, x - 1)\n" in texts["zoo/model_7.py"]
    assert sorted({(r["id"], r["line"], r["fix"]) for r in left}) == [("I5701", 14, "unsafe"), ("I5806", 14, None)]
    assert len(left) == 24


def test_fix_reports_files_in_path_order_whichever_round_finished_them(tmp_path):
    """`a_gate.py` needs two rounds (`.item()` first, then the early return), `b_block.py` one: the diff and the
    refusals come in path order with one process as with two (one process used to list a file when its last
    round ended, so `b_block.py` first)."""
    write(tmp_path, "a_gate.py", textwrap.dedent("""\
        from mindspore import nn


        class Gate(nn.Cell):
            def construct(self, x):
                if x.sum().item() > 0:
                    return x * 0.5
                return x + 1
        """))
    write(tmp_path, "b_block.py", textwrap.dedent("""\
        from mindspore import nn


        class Block(nn.Cell):
            def construct(self, x):
                x += 1
                return x
        """))
    outputs = []
    for jobs in ("1", "2"):
        result = run_graphlint("--jobs", jobs, "--no-cache", "--diff", "--unsafe-fixes", ".", cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        outputs.append((result.stdout, result.stderr))
        headers = [line for line in result.stdout.splitlines() if line.startswith("--- ")]
        assert headers == ["--- a/a_gate.py", "--- a/b_block.py"], (jobs, headers)
    assert outputs[0] == outputs[1]


def test_fix_reports_are_the_same_byte_for_byte_whatever_the_run_and_the_jobs(tmp_path):
    """50 copies of one model, each fixed over several rounds (a refusal put off while fixes land in its
    function): `--diff --show-fixes` twice at --jobs 1 and twice at --jobs 2 gives one output, and every copy
    reports each fix and refusal at its line. The lines used to be looked up in a table keyed by id() of the
    fixes and refusals; a refusal replaced in a later round freed its id, which a new fix could take, and then
    a few copies per run showed the outer `if` fixed at line 18 (the refused one's) instead of 13."""
    model = textwrap.dedent("""\
        import mindspore as ms
        from mindspore import nn, ops


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.drop = nn.Dropout(p=0.5)

            def construct(self, x):
                x += 1
                y = x
                if x.sum() > 0:
                    y = x * 2
                    if x.mean() > -1:
                        y = y + 1
                w = x
                if x.sum() > 0:
                    w = self.drop(x)
                z = x
                if x.max() > 1:
                    z = x - 1
                return y + z + w
        """)
    for index in range(50):
        write(tmp_path, f"m{index:02}.py", model)
    outputs = []
    for jobs in ("1", "1", "2", "2"):
        result = run_graphlint("--jobs", jobs, "--no-cache", "--diff", "--show-fixes", ".", cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        outputs.append((result.stdout, result.stderr))
    assert all(output == outputs[0] for output in outputs)
    stdout, stderr = outputs[0]
    assert stdout.count("+        y = ops.where(take_then, y_then_2, y)\n") == 50
    reported = Counter(re.sub(r"m\d\d\.py", "M", line).split(": ", 2)[:2][0]
                       for line in stderr.splitlines() if line.startswith(("  would fix", "  refused")))
    assert reported == {"  would fix M:11": 50, "  would fix M:13": 50, "  would fix M:15": 50,
                        "  would fix M:21": 50, "  refused M:18:9": 50}, reported


def test_a_cell_a_registry_names_is_not_top_level_whatever_the_jobs(tmp_path):
    """A Cell whose name only a file without MindSpore gives (a registry a builder reads) is a component, not a
    top-level graph, whether that file was loaded or not: with --jobs, which modules a process happens to load
    used to decide it (104 more W5509 on mindnlp with --jobs 2 than with one process)."""
    write(tmp_path, "zoo/__init__.py", "")
    write(tmp_path, "zoo/registry.py", 'MODELS = {"tiny": "Net3"}\n')
    for index in range(8):
        write(tmp_path, f"zoo/model_{index}.py", textwrap.dedent(f"""\
            from mindspore import nn


            class Net{index}(nn.Cell):
                def construct(self, batch: dict):
                    return batch["x"]
            """))
    outputs = findings_by_jobs(tmp_path, ("1", "2"))
    assert outputs["1"] == outputs["2"]
    assert sorted((r["path"], r["line"]) for r in outputs["1"] if r["id"] == "W5509") == [
        (f"zoo/model_{i}.py", 5) for i in range(8) if i != 3]


# A project whose findings need facts that other files give: with --jobs 2 each process parses only its share,
# so these come from the summaries the processes exchange (RunSummary) or from files parsed again where needed.
PARTITIONED_ZOO = {
    "zoo/__init__.py": "",
    # a helper in a file that never mentions MindSpore (not parsed until graph code reaches it)
    "zoo/a_block.py": "from mindspore import nn\n\nfrom zoo.z_helpers import scale\n\n\n"
                      "class Block(nn.Cell):\n    def construct(self, x):\n        return scale(x)\n",
    "zoo/z_helpers.py": "def scale(x):\n    try:\n        return x * 2\n    except ValueError:\n        return x\n",
    # a Cell that another file's Cell creates: not a top-level graph, so its dict output is not reported
    "zoo/b_head.py": "from mindspore import nn\n\n\nclass Head(nn.Cell):\n    def construct(self, x):\n"
                     "        return {'logits': x}\n",
    "zoo/y_net.py": "from mindspore import nn\n\nfrom zoo.b_head import Head\n\n\nclass Net(nn.Cell):\n"
                    "    def __init__(self):\n        super().__init__()\n        self.head = Head()\n\n"
                    "    def construct(self, x):\n        return {'out': self.head(x)}\n",
    # a global that code in another file changes
    "zoo/c_flag.py": "from mindspore import nn\n\nSCALE = 2.0\n\n\nclass Scaled(nn.Cell):\n"
                     "    def construct(self, x):\n        return x * SCALE\n",
    "zoo/x_train.py": "import mindspore\n\nfrom zoo import c_flag\n\n\ndef configure(value):\n"
                      "    c_flag.SCALE = value\n",
    # a loop bound that another file passes, under a recursion limit a third file sets
    "zoo/d_loop.py": "from mindspore import nn\n\n\nclass Loop(nn.Cell):\n    def __init__(self, n_steps=8):\n"
                     "        super().__init__()\n        self.n_steps = n_steps\n\n    def construct(self, x):\n"
                     "        for _ in range(self.n_steps):\n            x = x * 2\n        return x\n",
    "zoo/w_make.py": "import mindspore\n\nfrom zoo.d_loop import Loop\n\n\ndef build():\n"
                     "    return Loop(n_steps=3000)\n",
    "zoo/v_setup.py": "import mindspore\n\nmindspore.set_recursion_limit(4000)\n",
}


# Each file padded to 40 KB of comments: the zoo's trees would take about 15 MB, more than `--max-memory 1`.
PADDING = ("#" + "x" * 79 + "\n") * 500
PADDED_ZOO = {path: text + PADDING for path, text in PARTITIONED_ZOO.items()}


def test_jobs_give_what_one_process_gives_when_findings_need_other_files(tmp_path):
    """With --jobs 2 each process parses a share of the files; what the findings need of the other files (which
    Cell creates which, which globals other code changes, what a Cell is created with, the recursion limit, the
    helper in a file without MindSpore) comes from the exchanged summaries, so the findings are the same."""
    for path, text in PARTITIONED_ZOO.items():
        write(tmp_path, path, text)
    outputs = findings_by_jobs(tmp_path, ("1", "2"))
    assert outputs["1"] == outputs["2"]
    found = [(r["path"], r["line"], r["id"]) for r in outputs["2"]]
    assert found == [("zoo/c_flag.py", 8, "W5204"), ("zoo/d_loop.py", 10, "E5901"), ("zoo/y_net.py", 12, "W5507"),
                     ("zoo/z_helpers.py", 2, "E5101")]
    loop = next(r["message"] for r in outputs["2"] if r["id"] == "E5901")
    assert "n_steps=3000 in `Loop(n_steps=3000)` at w_make.py:7" in loop and "(limit 4000)" in loop
    assert "reached from `Block.construct`" in next(r["message"] for r in outputs["2"] if r["id"] == "E5101")

    from graphlint.config import Config
    from graphlint.lint import lint_files
    from graphlint.results import discover_files

    files, _problems = discover_files([str(tmp_path / "zoo")], Config())
    result = lint_files(files, Config(), jobs=2)
    shared = result.session.analysis.shared
    assert shared is not None  # the run went through the summaries (8 files mention MindSpore: 4 per process)
    assert sorted(os.path.basename(path) for path in shared.order) == sorted(
        os.path.basename(p) for p, text in PARTITIONED_ZOO.items() if "mindspore" in text)
    assert [(os.path.basename(f.path), f.line, f.rule.id) for f in result.findings] == [
        (os.path.basename(path), line, rule) for path, line, rule in found]


def test_a_helper_is_checked_with_its_callers_arguments_whichever_file_comes_first(tmp_path):
    """The helper's `if` on the Tensor its caller passes is reported whether the caller's file or the helper's is
    checked first, with one process or two: checking the caller first used to solve the helper without the
    caller's arguments (the caller was still being solved) and keep that, so the finding went missing."""
    helper = textwrap.dedent("""\
        from mindspore import ops


        def masked(x, mask):
            if mask.sum() > 0:
                return ops.relu(x)
            return x
        """) + PADDING
    for caller_file, helper_file in (("a_net.py", "z_helpers.py"), ("z_net.py", "a_helpers.py")):
        folder = tmp_path / caller_file[:-3]
        write(folder, helper_file, helper)
        write(folder, caller_file, textwrap.dedent(f"""\
            from mindspore import nn

            from {helper_file[:-3]} import masked


            class Net(nn.Cell):
                def construct(self, x, mask):
                    y = masked(x, mask)
                    if y.sum() > 0:
                        y = y * 2
                    return y
            """) + PADDING)
        # (--max-memory 1: the padded files' trees would not fit, so bounded processes check them)
        for options in (["--jobs", "1"], ["--jobs", "2"], ["--max-memory", "1"]):
            result = run_graphlint(*options, "--no-cache", "--fail-on", "info", "--output-format", "json", ".",
                                   cwd=folder)
            assert result.returncode == 1, result.stderr  # (info findings fail the run with --fail-on info)
            found = sorted((r["path"], r["line"], r["id"]) for r in json.loads(result.stdout))
            assert found == sorted([(caller_file, 9, "I5806"), (helper_file, 5, "I5806")]), (caller_file, options)


def test_bounded_processes_bind_a_helper_from_what_its_checked_callers_passed(tmp_path, monkeypatch):
    """Bounded processes check callers' modules before their helpers' (``callers_first``, whatever the path
    order) and each hands on what its graph code passes to the helpers it calls; the process that checks the
    helper binds the helper's parameters from that (the mask is the caller's Tensor argument) instead of reading
    the caller again, and reports the same finding."""
    from graphlint.run import parallel
    from graphlint.config import Config
    from graphlint.lint import lint_files
    from graphlint.results import discover_files

    write(tmp_path, "a_helpers.py", "from mindspore import ops\n\n\ndef masked(x, mask):\n"
                                    "    if mask.sum() > 0:\n        return ops.relu(x)\n    return x\n")
    write(tmp_path, "z_net.py", "from mindspore import nn\n\nfrom a_helpers import masked\n\n\nclass Net(nn.Cell):\n"
                                "    def construct(self, x, mask):\n        return masked(x, mask)\n")
    files, _problems = discover_files([str(tmp_path)], Config())
    monkeypatch.setattr(parallel, "PROCESS_MEMORY", 1)  # a fresh process for every task
    monkeypatch.setattr(parallel, "SUMMARY_PROCESS_MEMORY", 1)
    monkeypatch.setattr(parallel, "STREAM_TASK_BYTES", 1)  # a task per file
    monkeypatch.chdir(tmp_path)
    result = lint_files(files, Config(), jobs=2, memory=1)
    assert result.session.bounded_because is not None
    assert [(os.path.basename(f.path), f.line, f.rule.id) for f in result.findings] == [("a_helpers.py", 5, "I5806")]
    analysis = result.session.analysis
    rank = parallel.callers_first(analysis.scope, files)
    assert sorted(rank, key=rank.get) == sorted(files, reverse=True)  # z_net.py first
    ((key, caller_key, _where), passed), = analysis.passed_arguments.items()
    assert key[0].endswith("a_helpers.py") and caller_key[0].endswith("z_net.py")
    assert passed["mask"].is_tensor and passed["mask"].var and set(passed) == {"x", "mask"}


def test_callers_first_ranks_callers_before_helpers_and_breaks_cycles_in_path_order():
    """Ranks for the order bounded processes check modules in: a module before those its graph code calls (a chain
    across three files, against path order), a cycle of calls broken at its first path, calls within a module and
    modules outside the run ignored."""
    from graphlint.analysis.scope import KeyedScope
    from graphlint.run.parallel import callers_first

    def key(name, function="f"):
        return (os.path.abspath(name), function)

    references = {
        key("b_helpers.py"): [(key("c_net.py"), 1), (key("b_helpers.py", "g"), 2)],  # c -> b, and b -> b
        key("a_ops.py"): [(key("b_helpers.py"), 3), (key("elsewhere.py"), 4)],  # b -> a
        key("y_cycle.py"): [(key("z_cycle.py"), 5)],  # y <-> z
        key("z_cycle.py"): [(key("y_cycle.py"), 6)],
    }
    shown = ["a_ops.py", "b_helpers.py", "c_net.py", "y_cycle.py", "z_cycle.py", "d_alone.py"]
    rank = callers_first(KeyedScope({}, references, {}), shown)
    assert sorted(rank, key=rank.get) == ["c_net.py", "d_alone.py", "b_helpers.py", "a_ops.py", "y_cycle.py",
                                          "z_cycle.py"]


def test_values_cross_processes_with_their_unknown_constant():
    """A value whose Python value is unknown stays unknown once pickled (what bounded processes send)."""
    import pickle

    from graphlint.analysis.lattice import NOTHING, const, of_python, unknown

    for value in (unknown(), const("int"), of_python(3), of_python((1, "a"))):
        again = pickle.loads(pickle.dumps(value))
        assert again == value and again.known == value.known
    assert pickle.loads(pickle.dumps(NOTHING)) is NOTHING and not pickle.loads(pickle.dumps(unknown())).known


def test_result_cache(tmp_path):
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/base.py", BLOCK_BASE)
    write(tmp_path, "pkg/model.py", SUBCLASS)
    first = run_graphlint("pkg/model.py", cwd=tmp_path)  # base.py is not in the run: read from disk
    assert first.returncode == 1 and first.stdout.startswith("pkg/model.py:6:9: W5301")
    entries = list((tmp_path / ".graphlint_cache").glob("run-*.json"))
    assert len(entries) == 1 and (tmp_path / ".graphlint_cache" / ".gitignore").read_text().endswith("*\n")
    # The entry answers the same run: doctor it and see the doctored answer.
    entry = json.loads(entries[0].read_text())
    assert str(tmp_path / "pkg" / "base.py") in entry["read"]
    entry["problems"] = [["pkg/model.py", "doctored"]]
    entries[0].write_text(json.dumps(entry))
    assert run_graphlint("pkg/model.py", cwd=tmp_path).stderr == "pkg/model.py: cannot check: doctored\n"
    assert run_graphlint("--no-cache", "pkg/model.py", cwd=tmp_path).stderr == ""
    env = dict(os.environ, GRAPHLINT_NO_CACHE="1")
    assert run_graphlint("pkg/model.py", cwd=tmp_path, env=env).stderr == ""
    # A change to a file the run read from disk (not one of its files) invalidates the entry.
    write(tmp_path, "pkg/base.py", "class Block:\n    pass\n")
    second = run_graphlint("pkg/model.py", cwd=tmp_path)
    assert second.returncode == 0 and second.stderr == ""
    assert second.stdout == "All checks passed: 1 file checked (7 lines), no findings.\n"
    # So does a change to a file of the run, and a change of options.
    write(tmp_path, "pkg/base.py", BLOCK_BASE)
    assert run_graphlint("pkg/model.py", cwd=tmp_path).returncode == 1
    write(tmp_path, "pkg/model.py", SUBCLASS.replace("x += 1", "x = x + 1"))
    assert run_graphlint("pkg/model.py", cwd=tmp_path).returncode == 0
    write(tmp_path, "pkg/model.py", SUBCLASS)
    assert run_graphlint("--ignore", "W5301", "pkg", cwd=tmp_path).returncode == 0
    assert run_graphlint("pkg", cwd=tmp_path).returncode == 1
    moved = tmp_path / "elsewhere"
    assert run_graphlint("--cache-dir", str(moved), "pkg", cwd=tmp_path).returncode == 1
    assert list(moved.glob("run-*.json"))
    write(tmp_path, "pyproject.toml", '[tool.graphlint]\ncache-dir = "build/graphlint"\n')
    assert run_graphlint("pkg", cwd=tmp_path).returncode == 1
    assert list((tmp_path / "build" / "graphlint").glob("run-*.json"))


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
    for run in (run_cli, run_graphlint):
        result = run(str(tmp_path))
        assert result.returncode == 2
        assert "E5101 try-in-graph" in result.stdout
        errors = result.stderr.strip().splitlines()
        assert len(errors) == 2, errors
        assert any("syntax.py: cannot check: syntax error at line 2" in e for e in errors)
        assert any("latin.py: cannot check: cannot decode" in e for e in errors)
        assert "Traceback" not in result.stderr
    full = run_graphlint("--output-format", "full", str(tmp_path))
    assert full.stdout.rstrip().endswith("Found 1 error in 1 file; 2 files could not be checked.")


def test_concise_and_github_lines_show_a_severity_their_id_does_not(tmp_path):
    """The id's letter is the severity at the default lax level; at strict W5501 is an error, and the concise
    and GitHub lines say so (the summary counts it as an error). At lax the lines are as before."""
    path = write(tmp_path, "model.py", ASNUMPY_CELL)
    strict = run_graphlint("--no-cache", "--syntax-level", "strict", path)
    assert strict.stdout.splitlines()[0].startswith(f"{path}:7:13: W5501 (error) asnumpy-in-graph `Tensor.asnumpy()`")
    assert strict.stdout.splitlines()[1:] == ["Found 1 error in 1 file."]
    lax = run_graphlint("--no-cache", path)
    assert lax.stdout.splitlines()[0].startswith(f"{path}:7:13: W5501 asnumpy-in-graph `Tensor.asnumpy()`")
    assert lax.stdout.splitlines()[1:] == ["Found 1 warning in 1 file."]
    github = run_graphlint("--no-cache", "--syntax-level", "strict", "--output-format", "github", path).stdout
    assert github.startswith(f"::error file={path},line=7,endLine=7,col=13,endColumn=24,title=W5501 (error)::"
                             "asnumpy-in-graph: "), github
    github = run_graphlint("--no-cache", "--output-format", "github", path).stdout
    assert github.startswith(f"::warning file={path},line=7,endLine=7,col=13,endColumn=24,title=W5501::"), github


def test_files_that_could_not_be_checked_are_not_counted_as_checked(tmp_path):
    """A file with a syntax error is one that could not be checked, not also one checked (with its lines);
    standard input alike, and one line is "1 line"."""
    write(tmp_path, "syntax.py", "import mindspore\ndef f(:\n")
    alone = run_graphlint("--no-cache", "syntax.py", cwd=tmp_path)
    assert alone.returncode == 2 and alone.stdout == "No files checked: 1 file could not be checked (see above).\n"
    write(tmp_path, "clean.py", CLEAN_CELL)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    for run in ("first", "from the cache"):
        both = run_graphlint(*cache, "syntax.py", "clean.py", "missing.py", cwd=tmp_path)
        assert both.returncode == 2, run
        assert both.stdout == "No findings in 1 file checked, but 2 files could not be checked (see above).\n", run
    stdin = run_graphlint("--no-cache", "-", stdin="import mindspore\ndef f(:\n")
    assert stdin.stdout == "No files checked: 1 file could not be checked (see above).\n"
    one = run_graphlint("--no-cache", "-", stdin="x = 1\n")
    assert one.returncode == 0 and one.stdout == "All checks passed: 1 file checked (1 line), no findings.\n"


def test_a_run_that_finds_no_python_file_says_so(tmp_path):
    """An empty folder (or one whose files are all excluded) gives a warning on stderr, as Ruff does, and exit
    0: nothing was found wrong. --quiet leaves it out; a path that does not exist is still an error."""
    (tmp_path / "empty").mkdir()
    write(tmp_path, "legacy/old.py", BROKEN_CELL)
    for args in (["empty"], ["--fix", "empty"], ["--exclude", "old.py", "legacy", "empty"]):
        result = run_graphlint("--no-cache", *args, cwd=tmp_path)
        assert result.returncode == 0, (args, result.stderr)
        assert result.stderr.splitlines()[0].startswith("graphlint: warning: no Python files found under "), args
    assert run_graphlint("--no-cache", "empty", cwd=tmp_path).stderr == \
        "graphlint: warning: no Python files found under empty\n"
    quiet = run_graphlint("--no-cache", "--quiet", "empty", cwd=tmp_path)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    assert run_graphlint("--no-cache", "nothing", cwd=tmp_path).returncode == 2
    found = run_graphlint("--no-cache", "empty", "legacy", cwd=tmp_path)  # files elsewhere: no warning
    assert found.returncode == 1 and found.stderr == ""


INFO_CELL = textwrap.dedent("""\
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            while x.sum() > 1:
                x = x / 2
            return x
    """)  # I5806 at 6:9 only: a Tensor `while`, which compiles (as a run-time loop)


def test_exit_policy_errors_and_warnings_fail_the_run_info_does_not(tmp_path):
    """By default errors and warnings fail the run (exit 1) and info findings are printed but exit 0;
    --fail-on (or fail-on in [tool.graphlint]) sets the least severity that fails, at the run's syntax level."""
    loop = write(tmp_path, "project/loop.py", INFO_CELL)
    asnumpy = write(tmp_path, "project/asnumpy.py", ASNUMPY_CELL)  # W5501: a warning at lax, an error at strict
    info = run_graphlint("--no-cache", loop)
    assert (info.returncode, info.stdout.splitlines()[-1]) == (0, "Found 1 info in 1 file."), info.stderr
    assert f"{loop}:6:9: I5806 tensor-condition-control-flow" in info.stdout
    assert run_graphlint("--no-cache", "--fail-on", "info", loop).returncode == 1
    assert run_graphlint("--no-cache", "-", stdin=INFO_CELL).returncode == 0  # standard input alike
    assert run_graphlint("--no-cache", "--fail-on", "info", "-", stdin=INFO_CELL).returncode == 1
    assert run_graphlint("--no-cache", asnumpy).returncode == 1
    assert run_graphlint("--no-cache", "--fail-on", "error", asnumpy).returncode == 0
    assert run_graphlint("--no-cache", "--fail-on", "error", "--syntax-level", "strict", asnumpy).returncode == 1
    # from the result cache as from a run: the policy is applied to the findings, not stored with them
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert [run_graphlint(*cache, *policy, loop).returncode for policy in ([], ["--fail-on", "info"], [])] == [0, 1, 0]
    # the configuration key, and the option over it
    write(tmp_path, "project/pyproject.toml", '[tool.graphlint]\nfail-on = "info"\n')
    assert run_graphlint("--no-cache", loop).returncode == 1
    assert run_graphlint("--no-cache", "--fail-on", "warning", loop).returncode == 0
    # --fix: what is left decides (the W5301 fixed, the I5806 left)
    fixable = write(tmp_path, "fixable.py", INFO_CELL.replace("x = x / 2", "x /= 2"))
    fixed = run_graphlint("--no-cache", "--fix", fixable)
    assert fixed.returncode == 0, fixed.stderr
    assert fixed.stdout.splitlines()[-1] == "Found 1 info in 1 file." and "x = x / 2" in open(fixable).read()
    # bad values: one line, exit 2
    write(tmp_path, "project/pyproject.toml", '[tool.graphlint]\nfail-on = "never"\n')
    bad = run_graphlint("--no-cache", loop)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr == (
        f"graphlint: error: {tmp_path}/project/pyproject.toml: fail-on must be one of error, warning, info, "
        "not 'never'\n")
    option = run_graphlint("--fail-on", "all", fixable)
    assert option.returncode == 2 and option.stderr.count("\n") == 1 and "--fail-on" in option.stderr
    help_text = " ".join(run_graphlint("--help").stdout.split())
    assert "by default an error or a warning fails it; info findings are printed but exit 0" in help_text
    assert "--fail-on {error,warning,info}" in help_text


def test_missing_path_and_usage_errors(tmp_path):
    result = run_graphlint(str(tmp_path / "nope.py"))
    assert result.returncode == 2
    assert "nope.py: cannot check: no such file or directory" in result.stderr
    for args, message in ((["--format", "xml"], "invalid choice"), (["--color", "pink"], "invalid choice"),
                          (["--validate"], "--validate goes with --fix or --diff"),
                          (["--unsafe-fixes"], "--unsafe-fixes goes with --fix or --diff"),
                          (["--baseline", "b.json", "--fix"], "--baseline and --write-baseline go with a lint run"),
                          (["--no-such-option"], "unrecognized arguments")):
        result = run_graphlint(*args, str(tmp_path))
        assert result.returncode == 2, args
        assert result.stderr.count("\n") == 1 and message in result.stderr, (args, result.stderr)


def test_explain_and_list_rules(capsys):
    assert main(["--explain", "try-in-graph"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("# E5101 `try-in-graph`")
    assert "Unsupported statement 'Try'" in page and "## Flagged" in page and "## Clean" in page and "graphlint reports line 3." in page
    assert main(["--explain", "E9999"]) == 2
    assert main(["--list-rules"]) == 0
    assert "try-in-graph" in capsys.readouterr().out


def test_an_option_written_as_a_subcommand_names_the_command_meant(tmp_path):
    """`graphlint explain E5101` is not a lint of two missing files: one line naming the command meant, exit 2;
    a file or folder of that name is still linted."""
    for args, meant in ((["explain", "E5101"], "graphlint --explain E5101"),
                        (["list-rules"], "graphlint --list-rules"),
                        (["fix", "src/"], "graphlint --fix src/")):
        result = run_graphlint(*args, cwd=tmp_path)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr == (f"graphlint: error: {args[0]!r} is neither a subcommand nor a path; "
                                 f"did you mean `{meant}`?\n")
    write(tmp_path, "explain/model.py", BROKEN_CELL)
    result = run_graphlint("explain", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout.startswith("explain/model.py:7:9: E5101")


def test_subcommands(tmp_path):
    import importlib.util

    server = run_graphlint("server", "--help")
    if importlib.util.find_spec("graphlint.server") is not None:
        assert server.returncode == 0 and "graphlint server" in server.stdout
    # A subcommand whose module is missing: one line, exit 2.
    import subprocess
    import sys

    for name, module in (("explain-error", "graphlint.explain_error"), ("server", "graphlint.server")):
        code = (f"import sys; sys.modules[{module!r}] = None; from graphlint.cli import main; "
                f"sys.exit(main([{name!r}, '-']))")
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert result.returncode == 2, result.stderr
        assert result.stderr == (f"graphlint: error: `graphlint {name}` is not available in this installation "
                                 f"({module} is missing)\n")
    # `check` is the lint command, for a folder named like a subcommand.
    write(tmp_path, "server/model.py", BROKEN_CELL)
    result = run_graphlint("check", "server", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout.startswith("server/model.py:7:9: E5101")


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
    assert len(out) == 2 and ":17:9: E5101" in out[0] and out[1] == "Found 1 error in 1 file."


def test_jobs_fall_back_to_one_process_when_a_process_fails(tmp_path, monkeypatch):
    """A process that fails while summarising its share is not fatal: the run is linted in one process, with the
    same findings."""
    from graphlint.analysis.engine import Analysis
    from graphlint.config import Config
    from graphlint.lint import lint_files
    from graphlint.results import discover_files

    for path, text in PARTITIONED_ZOO.items():
        write(tmp_path, path, text)
    files, _problems = discover_files([str(tmp_path / "zoo")], Config())
    expected = [(f.path, f.line, f.rule.id) for f in lint_files(files, Config(), jobs=1).findings]
    parent, summarise = os.getpid(), Analysis.summarise

    def failing_in_the_worker(self, infos, unparsed=()):
        if os.getpid() != parent:
            raise RuntimeError("worker failure")
        return summarise(self, infos, unparsed)

    monkeypatch.setattr(Analysis, "summarise", failing_in_the_worker)
    result = lint_files(files, Config(), jobs=2)
    assert [(f.path, f.line, f.rule.id) for f in result.findings] == expected and len(expected) == 4
    assert result.session.analysis.shared is None  # linted again in one process


def test_jobs_report_unreadable_and_unparsable_files_as_one_process_does(tmp_path):
    """With --jobs 2 the processes check syntax and parse; the files they could not check are still reported once
    each, in the order one process reports them: those unreadable or with bad syntax (read first), then those that
    astroid could not parse."""
    for path, text in PARTITIONED_ZOO.items():
        write(tmp_path, path, text)
    write(tmp_path, "zoo/e_broken.py", "from mindspore import nn\n\nclass Broken(nn.Cell:\n    pass\n")
    write(tmp_path, "zoo/f_plain.py", "def f(:\n    return 1\n")
    (tmp_path / "zoo" / "g_latin.py").write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    outputs = {}
    for jobs in ("1", "2"):
        result = run_graphlint("--jobs", jobs, "--no-cache", "--output-format", "concise", "zoo", cwd=tmp_path)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        outputs[jobs] = (result.stdout, result.stderr)
    assert outputs["1"] == outputs["2"]
    assert [line.split(":")[0] for line in outputs["2"][1].splitlines()] == [
        "zoo/f_plain.py", "zoo/g_latin.py", "zoo/e_broken.py"]
    *findings, summary = outputs["2"][0].splitlines()
    assert len(findings) == 4  # the other files' findings
    assert summary == "Found 2 errors, 2 warnings in 4 files; 3 files could not be checked."


def test_max_memory_lints_a_project_too_large_for_it_in_bounded_processes(tmp_path):
    """A project whose trees would not fit in --max-memory is parsed and summarised by processes that end, then
    parsed again and checked: the same findings and problems, in the same order, as one process gives."""
    for path, text in PADDED_ZOO.items():
        write(tmp_path, path, text)
    write(tmp_path, "zoo/e_broken.py", "from mindspore import nn\n\nclass Broken(nn.Cell:\n    pass\n")
    write(tmp_path, "zoo/f_plain.py", "def f(:\n    return 1\n")
    outputs = {}
    for options in (("--jobs", "1"), ("--max-memory", "1"), ("--max-memory", "1", "--jobs", "2")):
        result = run_graphlint(*options, "--no-cache", "--output-format", "json", "zoo", cwd=tmp_path)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        outputs[options] = (json.loads(result.stdout), result.stderr)
    assert len(set(json.dumps(output) for output in outputs.values())) == 1
    findings, stderr = outputs[("--max-memory", "1")]
    assert [(r["path"], r["line"], r["id"]) for r in findings if r["id"][0] in "EW"] == [
        ("zoo/c_flag.py", 8, "W5204"), ("zoo/d_loop.py", 10, "E5901"), ("zoo/y_net.py", 12, "W5507"),
        ("zoo/z_helpers.py", 2, "E5101")]
    assert [line.split(":")[0] for line in stderr.splitlines()] == ["zoo/f_plain.py", "zoo/e_broken.py"]
    # -v says why the run was bounded; a budget the trees fit in says nothing of memory
    said = run_graphlint("--max-memory", "1", "--no-cache", "-v", "zoo", cwd=tmp_path).stderr
    assert re.search(r"^graphlint: memory: the run's trees would take about 1[0-9] MB, more than the memory budget "
                     r"of 1 MB \(--max-memory\): parsed twice", said, re.M), said
    assert "memory:" not in run_graphlint("--max-memory", "100", "--no-cache", "-v", "zoo", cwd=tmp_path).stderr
    for bad in ("0", "lots"):
        result = run_graphlint("--max-memory", bad, "zoo", cwd=tmp_path)
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and "--max-memory" in result.stderr
    for bad in ('"lots"', "-1"):
        write(tmp_path, "pyproject.toml", f"[tool.graphlint]\nmax-memory = {bad}\n")
        result = run_graphlint("zoo", cwd=tmp_path)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "pyproject.toml: max-memory must be" in result.stderr


def test_default_memory_budget_is_350_mb_per_process_within_what_is_available():
    """Without --max-memory the run's processes share 350 MB each (700 MB with --jobs 2: mindone 0.5.0 is then
    linted by bounded processes), but never more than three quarters of the memory available."""
    from graphlint.run import parallel

    def three_quarters_available():
        with open("/proc/meminfo", encoding="ascii") as handle:
            return next(int(line.split()[1]) * 1024 * 3 // 4 for line in handle if line.startswith("MemAvailable:"))

    for jobs in (1, 2, 8, 10**4):
        budget = parallel.memory_budget(None, jobs)
        # (what is available moves a little between two readings)
        assert abs(budget - min(jobs * 350 * 2**20, three_quarters_available())) < 64 * 2**20, (jobs, budget)
    assert parallel.memory_budget(None, 1) == 350 * 2**20 < three_quarters_available()
    assert parallel.memory_budget(None, 10**4) < 10**4 * 350 * 2**20
    assert parallel.memory_budget(500, 10**4) == 500 * 2**20


def test_bounded_processes_hand_over_and_give_a_lost_task_again(tmp_path, monkeypatch):
    """Processes that stop after every task (a budget of one byte), and one that dies holding a task: the run
    still gives one process's findings; a task that kills every process it is given is a failure (the caller
    then lints in one process)."""
    from graphlint.run import parallel
    from graphlint.config import Config
    from graphlint.lint import lint_files
    from graphlint.results import discover_files

    for path, text in PADDED_ZOO.items():
        write(tmp_path, path, text)
    files, _problems = discover_files([str(tmp_path / "zoo")], Config())
    expected = [(f.path, f.line, f.rule.id) for f in lint_files(files, Config(), jobs=1).findings]
    monkeypatch.setattr(parallel, "PROCESS_MEMORY", 1)
    monkeypatch.setattr(parallel, "SUMMARY_PROCESS_MEMORY", 1)
    monkeypatch.setattr(parallel, "STREAM_TASK_BYTES", 1)  # a task per file
    result = lint_files(files, Config(), jobs=2, memory=2**20)
    assert [(f.path, f.line, f.rule.id) for f in result.findings] == expected and len(expected) == 4
    assert result.session.analysis.shared is not None and not result.session.project.modules  # (nothing parsed here)

    import multiprocessing

    context = multiprocessing.get_context("fork")
    marker = tmp_path / "died"

    def dies_once_on_task_one(chunk):
        if chunk == [1] and not marker.exists():
            marker.write_text("")
            os._exit(1)
        return chunk[0] * 10

    outcomes, _farewells = parallel._run_bounded(context, 2, [[0], [1], [2]], dies_once_on_task_one, 2**20,
                                                 None, set)
    assert outcomes == {0: 0, 1: 10, 2: 20} and marker.exists()
    assert parallel._run_bounded(context, 2, [[0], [1]], lambda chunk: os._exit(1) if chunk == [1] else 0,
                                 2**20, None, set) is None


PROJECT_NET = textwrap.dedent("""\
    from mindspore import nn

    from utils import normalize


    class Net(nn.Cell):
        def construct(self, x):
            return normalize(x)
    """)
PROJECT_UTILS = textwrap.dedent("""\
    import numpy as np


    def normalize(x):
        return x / np.mean(x.asnumpy())
    """)
PROJECT_OTHER = textwrap.dedent("""\
    import numpy as np
    from mindspore import nn


    class Other(nn.Cell):
        def construct(self, x):
            return np.exp(x)
    """)


def test_project_root_reports_the_given_files_and_the_helpers_they_reach(tmp_path):
    write(tmp_path, "net.py", PROJECT_NET)
    write(tmp_path, "utils.py", PROJECT_UTILS)
    write(tmp_path, "other.py", PROJECT_OTHER)
    helper = ("utils.py:5:16: W5502 numpy-call-on-tensor `np.mean(...)` on a NumPy copy of a Tensor in graph code "
              "needs JIT fallback and blocks MindIR export; use the mindspore.ops equivalent (in helper `normalize`, "
              "reached from `Net.construct`)\n")
    alone = run_graphlint("--no-cache", "utils.py", cwd=tmp_path)
    assert alone.returncode == 0 and "W5502" not in alone.stdout  # no entry reaches it in this run
    for given in ("utils.py", "net.py"):  # the helper's own file, and the file whose entry reaches it
        result = run_graphlint("-v", "--project-root", ".", "--select", "W5502", given, cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        assert result.stdout == helper + "Found 1 warning in 1 file.\n"  # other.py's finding is not reported
    # the second run over the unchanged project was answered by the result cache
    assert "result cache: no file changed since the last run" in result.stderr
    clean = run_graphlint("--project-root", ".", "other.py", "--select", "W5501", cwd=tmp_path)
    assert (clean.returncode, clean.stdout) == (0, "All checks passed: 1 file checked, no findings.\n")


def test_project_root_bad_input(tmp_path):
    write(tmp_path, "net.py", PROJECT_NET)
    for args, message in ((("--project-root", "nowhere", "net.py"), "--project-root nowhere: not a folder"),
                          (("--project-root", ".", "--fix", "net.py"), "--project-root goes with a lint run"),
                          (("--project-root", ".", "-"), "--project-root goes with a lint run")):
        result = run_graphlint(*args, cwd=tmp_path, stdin="")
        assert result.returncode == 2 and result.stdout == "", args
        assert result.stderr.startswith("graphlint: error: " + message) and result.stderr.count("\n") == 1, args
