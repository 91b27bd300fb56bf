"""Awkward inputs through the real CLI (in process with capsys, and as ``python -m graphlint.cli``),
safe writes, and contained validation.

For every file graphlint cannot check: exactly one line on stderr naming the file and the problem, the
run goes on, findings in the other files are still printed, and the exit status is 2. Never a traceback.
"""

import json
import os
import stat
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from graphlint.analysis.source import read_source
from graphlint.cli import main
from graphlint.config import Config
from graphlint.files import WriteRefused, write_atomic
from graphlint.run.fix import fix_paths
from graphlint.validate.runner import run_job
from tests.robustness_support import parses
from tests.support import BROKEN_CELL, CLEAN_CELL, ROOT, run_cli, write

TRY_LINE = 7  # the `try` of BROKEN_CELL, reported at column 9
GRAPH_HEADER = "import mindspore as ms\nfrom mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"

AUGMENTED = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            x += 1
            return x
    """)


def cli(capsys, *args):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err, captured.err
    return code, captured.out, captured.err


def problem_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.strip()]


def assert_one_line_per_bad_file(err: str, expected: dict):
    """``expected``: path -> a fragment of the reason. Exactly one stderr line for each, nothing else."""
    lines = problem_lines(err)
    assert len(lines) == len(expected), lines
    for path, reason in expected.items():
        mine = [line for line in lines if line.startswith(f"{path}: cannot check: ")]
        assert len(mine) == 1, (path, lines)
        assert reason in mine[0], (reason, mine[0])


def finding_lines(out: str, rule: str = "E5101") -> list[str]:
    return sorted(line for line in out.splitlines() if f": {rule} " in line)


def positions(out: str, rule: str = "E5101") -> list[list[str]]:
    """[path, line, column] of each finding of ``rule`` in text output."""
    return [line.split(":")[:3] for line in finding_lines(out, rule)]


def root_reads_everything(path) -> bool:
    try:
        with open(path, "rb"):
            return True
    except PermissionError:
        return False


# -- syntax and encodings ---------------------------------------------------------------------------------
def test_syntax_errors_are_one_line_each_and_the_run_goes_on(tmp_path, capsys):
    good = write(tmp_path, "good.py", BROKEN_CELL)
    bad = {
        write(tmp_path, "paren.py", "import mindspore\nx = f(1,\n"): "syntax error at line 2",
        write(tmp_path, "indent.py", "import mindspore\ndef f():\nreturn 1\n"): "syntax error at line 3",
        write(tmp_path, "dedent.py", "import mindspore\nif True:\n        x = 1\n    y = 2\n"): "syntax error at line 4",
        write(tmp_path, "string.py", 'import mindspore\ns = """never closed\n'): "syntax error at line 2",
        write(tmp_path, "token.py", "import mindspore\nx = 1 $ 2\n"): "syntax error at line 2",
        write(tmp_path, "continuation.py", "import mindspore\nx = 1 \\\n"): "unexpected EOF",  # astroid adds a "\n"
        write(tmp_path, "plain.py", "def f(:\n    pass\n"): "syntax error at line 1",  # no MindSpore: the fast path
        write(tmp_path, "graph.py", BROKEN_CELL + "        return (\n"): "syntax error",
    }
    code, out, err = cli(capsys, tmp_path)
    assert code == 2
    assert positions(out) == [[good, str(TRY_LINE), "9"]]
    assert_one_line_per_bad_file(err, bad)


def test_non_utf8_file_without_a_cookie(tmp_path, capsys):
    good = write(tmp_path, "good.py", BROKEN_CELL)
    latin = tmp_path / "latin.py"
    latin.write_bytes(("# caf\xe9\n" + BROKEN_CELL).encode("latin-1"))
    code, out, err = cli(capsys, tmp_path)
    assert code == 2
    assert positions(out) == [[good, str(TRY_LINE), "9"]]
    assert_one_line_per_bad_file(err, {str(latin): "cannot decode as utf-8 at byte 5"})
    assert "coding cookie" in err


def test_latin1_file_with_a_cookie_is_linted(tmp_path, capsys):
    latin = tmp_path / "latin.py"
    latin.write_bytes(("# -*- coding: latin-1 -*-\n# caf\xe9 \xb5s\n" + BROKEN_CELL.replace("y = x\n", "y = x  # \xe9\n"))
                      .encode("latin-1"))
    code, out, err = cli(capsys, latin)
    assert (code, err) == (1, "")
    assert positions(out) == [[str(latin), str(TRY_LINE + 2), "9"]]


def test_bom_crlf_lone_cr_mixed_endings_tabs_and_empty_files(tmp_path, capsys):
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + BROKEN_CELL.encode())
    (tmp_path / "crlf.py").write_bytes(BROKEN_CELL.replace("\n", "\r\n").encode())
    (tmp_path / "cr.py").write_bytes(BROKEN_CELL.replace("\n", "\r").encode())
    lines = BROKEN_CELL.splitlines(keepends=True)
    endings = ["\n", "\r", "\r\n"]  # never "\r" then an empty "\n" line: that would be one "\r\n" break
    (tmp_path / "mixed.py").write_bytes("".join(line[:-1] + endings[i % 3] for i, line in enumerate(lines)).encode())
    (tmp_path / "tabs.py").write_bytes(BROKEN_CELL.replace("    ", "\t").encode())
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "bom_only.py").write_bytes(b"\xef\xbb\xbf")
    (tmp_path / "blank.py").write_bytes(b"\n\n   \n\t\n")
    (tmp_path / "no_final_newline.py").write_bytes(BROKEN_CELL.rstrip("\n").encode())
    code, out, err = cli(capsys, tmp_path)
    assert (code, err) == (1, "")
    hits = {line.split(":")[0].rsplit(os.sep, 1)[-1]: tuple(line.split(":")[1:3]) for line in finding_lines(out)}
    expected = {name: (str(TRY_LINE), "9") for name in ("bom.py", "crlf.py", "cr.py", "mixed.py", "no_final_newline.py")}
    expected["tabs.py"] = (str(TRY_LINE), "3")  # columns count characters: two tabs
    assert hits == expected


def test_encoding_problems_and_binary_files(tmp_path, capsys):
    write(tmp_path, "good.py", BROKEN_CELL)
    (tmp_path / "unknown_cookie.py").write_bytes(b"# -*- coding: no-such-codec -*-\nimport mindspore\n")
    (tmp_path / "bom_and_cookie.py").write_bytes(b"\xef\xbb\xbf# coding: latin-1\nimport mindspore\n")
    (tmp_path / "nul.py").write_bytes(b"import mindspore\nx = 1\x00\n")
    (tmp_path / "binary.py").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "ascii_cookie.py").write_bytes(b"# coding: ascii\nimport mindspore\ns = '\xc3\xa9'\n")
    code, out, err = cli(capsys, tmp_path)
    assert code == 2 and len(finding_lines(out)) == 1
    assert_one_line_per_bad_file(err, {
        str(tmp_path / "unknown_cookie.py"): "unknown encoding",
        str(tmp_path / "bom_and_cookie.py"): "byte-order mark",
        str(tmp_path / "nul.py"): "NUL bytes",
        str(tmp_path / "binary.py"): "cannot check",
        str(tmp_path / "ascii_cookie.py"): "cannot decode as ascii",
    })


# -- size and nesting -------------------------------------------------------------------------------------
def test_a_50000_line_file(tmp_path, capsys):
    lines = ["import mindspore as ms", "from mindspore import nn, ops", ""]
    index = 0
    while len(lines) < 50_000:
        if index % 10 == 0:  # some graph code (analysed), mostly plain functions
            lines += [f"class Net{index}(nn.Cell):", "    def construct(self, x):", f"        y = x * {index}",
                      "        for i in range(3):", "            y = ops.relu(y) + i", "        return y", ""]
        else:
            lines += [f"def f{index}(x):", f"    return x + {index}", ""]
        index += 1
    big = write(tmp_path, "big.py", "\n".join(lines) + "\n" + BROKEN_CELL.split("\n\n\n", 1)[1])
    assert 50_000 <= read_source(big).text.count("\n") < 50_020
    started = time.perf_counter()
    code, out, err = cli(capsys, big)
    elapsed = time.perf_counter() - started
    assert (code, err) == (1, "")
    assert finding_lines(out) and finding_lines(out)[-1].startswith(f"{big}:")
    assert int(finding_lines(out)[-1].split(":")[1]) > 49_990
    assert elapsed < 120, elapsed


DEEP_VALID = {
    "parens": "(" * 100 + "x" + ")" * 100,
    "sum": "+".join(["x"] * 1000),
    "lists": "[" * 150 + "x" + "]" * 150,
    "dicts": "{1: " * 60 + "x" + "}" * 60,
    "calls": "f(" * 150 + "x" + ")" * 150,
    "attributes": "x" + ".a" * 1000,
    "subscripts": "x" + "[0]" * 1000,
    "method_chain": "x" + ".sum()" * 300,
    "unary": "-" * 1000 + "x",
    "nots": "not " * 1000 + "x",
    "power": "**".join(["x"] * 500),
    "lambdas": "lambda: " * 500 + "x",
    "conditional": "".join(f"{k} if x > {k} else " for k in range(300)) + "x",
    "strings": " + ".join(["'a'"] * 2000),
    "comparisons": " < ".join(["x"] * 2000),
    "booleans": " and ".join(["x"] * 2000),
}


@pytest.mark.parametrize("shape", sorted(DEEP_VALID))
@pytest.mark.parametrize("where", ["graph", "module"])
def test_deeply_nested_expressions(tmp_path, capsys, shape, where):
    """Valid Python however deep: linted completely, in graph code and outside it."""
    expression = DEEP_VALID[shape]
    if where == "graph":
        text = GRAPH_HEADER + f"        y = {expression}\n        return y\n"
    else:
        text = f"import mindspore\nx = 1\ny = {expression}\n"
    path = write(tmp_path, f"{shape}.py", text)
    started = time.perf_counter()
    code, _, err = cli(capsys, path)
    assert code in (0, 1) and err == "", err
    assert time.perf_counter() - started < 60


@pytest.mark.parametrize("expression, reason", [
    ("(" * 300 + "x" + ")" * 300, "too many nested parentheses"),
    ("-" * 200_000 + "x", "too deeply nested"),
    ("+".join(["x"] * 200_000), "too deeply nested"),
])
def test_too_deep_for_python_is_one_line(tmp_path, capsys, expression, reason):
    good = write(tmp_path, "good.py", BROKEN_CELL)
    deep = write(tmp_path, "deep.py", GRAPH_HEADER + f"        return {expression}\n")
    code, out, err = cli(capsys, tmp_path)
    assert code == 2
    assert [line.split(":")[0] for line in finding_lines(out)] == [good]
    assert_one_line_per_bad_file(err, {deep: reason})


def test_deeply_nested_statements(tmp_path, capsys):
    ifs = "".join("        " + "    " * k + f"if x > {k}:\n" for k in range(90)) + "        " + "    " * 90 + "x = x + 1\n"
    path = write(tmp_path, "ifs.py", GRAPH_HEADER + ifs + "        return x\n")
    elifs = "        if x > 0:\n            y = 0\n" + "".join(f"        elif x > {k}:\n            y = {k}\n" for k in range(1, 150))
    chain = write(tmp_path, "elifs.py", GRAPH_HEADER + elifs + "        else:\n            y = 1\n        return y\n")
    code, out, err = cli(capsys, tmp_path)
    assert code == 0 and err == ""  # info findings only (Tensor conditions): they do not fail the run by default
    assert f"{path}:" in out and f"{chain}:" in out


# -- file system oddities -----------------------------------------------------------------------------------
def test_symlink_loops(tmp_path):
    write(tmp_path, "pkg/bad.py", BROKEN_CELL)
    os.symlink(str(tmp_path / "pkg"), str(tmp_path / "pkg" / "loop"))  # a directory that contains itself
    os.symlink("..", str(tmp_path / "pkg" / "up"))  # ... and one pointing to its parent
    os.symlink(str(tmp_path / "b.py"), str(tmp_path / "a.py"))
    os.symlink(str(tmp_path / "a.py"), str(tmp_path / "b.py"))  # a.py -> b.py -> a.py
    result = run_cli(str(tmp_path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert [line.replace(os.sep, "/").split(str(tmp_path).replace(os.sep, "/"))[1].split(":")[:3]
            for line in finding_lines(result.stdout)] == [["/pkg/bad.py", str(TRY_LINE), "9"]]
    assert_one_line_per_bad_file(result.stderr, {str(tmp_path / "a.py"): "symbolic links",
                                                 str(tmp_path / "b.py"): "symbolic links"})


def test_symlink_loop_given_on_the_command_line(tmp_path, capsys):
    os.symlink(str(tmp_path / "b.py"), str(tmp_path / "a.py"))
    os.symlink(str(tmp_path / "a.py"), str(tmp_path / "b.py"))
    good = write(tmp_path, "good.py", BROKEN_CELL)
    code, out, err = cli(capsys, tmp_path / "a.py", good, tmp_path / "missing.py", tmp_path / "dangling.py")
    os.symlink(str(tmp_path / "nowhere.py"), str(tmp_path / "dangling.py"))
    code2, out2, err2 = cli(capsys, tmp_path / "dangling.py", good)
    assert code == 2 and code2 == 2
    assert len(finding_lines(out)) == 1 and len(finding_lines(out2)) == 1
    assert_one_line_per_bad_file(err, {str(tmp_path / "a.py"): "symbolic links",
                                       str(tmp_path / "missing.py"): "no such file",
                                       str(tmp_path / "dangling.py"): "no such file"})
    assert_one_line_per_bad_file(err2, {str(tmp_path / "dangling.py"): "no such file"})


def test_unreadable_file(tmp_path, capsys):
    good = write(tmp_path, "good.py", BROKEN_CELL)
    secret = write(tmp_path, "secret.py", BROKEN_CELL)
    os.chmod(secret, 0)
    try:
        if root_reads_everything(secret):
            pytest.skip("running as root (or on a file system without permissions): chmod 000 does not stop reads")
        code, out, err = cli(capsys, tmp_path)
    finally:
        os.chmod(secret, stat.S_IRUSR | stat.S_IWUSR)
    assert code == 2
    assert [line.split(":")[0] for line in finding_lines(out)] == [good]
    assert_one_line_per_bad_file(err, {secret: "permission denied"})


def test_unreadable_directory(tmp_path, capsys):
    good = write(tmp_path, "good.py", BROKEN_CELL)
    hidden = write(tmp_path, "locked/inside.py", BROKEN_CELL)
    locked = os.path.dirname(hidden)
    os.chmod(locked, 0)
    try:
        if os.access(locked, os.R_OK | os.X_OK) and os.listdir(locked):
            pytest.skip("running as root: chmod 000 does not stop reads")
        code, out, err = cli(capsys, tmp_path)
    finally:
        os.chmod(locked, stat.S_IRWXU)
    assert code == 2
    assert [line.split(":")[0] for line in finding_lines(out)] == [good]
    assert_one_line_per_bad_file(err, {locked: "ermission denied"})


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifos_and_devices_are_not_read(tmp_path):
    """A FIFO named *.py would block forever on open, /dev/zero would never end: neither is read."""
    write(tmp_path, "good.py", BROKEN_CELL)
    os.mkfifo(str(tmp_path / "pipe.py"))
    expected = {str(tmp_path / "pipe.py"): "not a regular file"}
    if os.path.exists("/dev/zero"):
        os.symlink("/dev/zero", str(tmp_path / "zero.py"))
        expected[str(tmp_path / "zero.py")] = "not a regular file"
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run([sys.executable, "-m", "graphlint.cli", str(tmp_path)], capture_output=True, text=True,
                            timeout=120, env=env)
    assert result.returncode == 2
    assert len(finding_lines(result.stdout)) == 1
    assert "Traceback" not in result.stderr
    assert_one_line_per_bad_file(result.stderr, expected)


def test_odd_file_names(tmp_path):
    """Spaces, non-ASCII, a newline and bytes that are not UTF-8 in file names: still one line per problem."""
    folder = os.fsencode(str(tmp_path))
    names = {"good": [b"with space.py", "caf\u00e9.py".encode(), b"new\nline.py", b"not-utf8-\xff.py"],
             "bad": [b"bad\nsyntax.py", b"bad-\xfe.py"]}
    try:
        for kind, group in names.items():
            for name in group:
                with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
                    handle.write(BROKEN_CELL if kind == "good" else "import mindspore\ndef f(:\n")
    except (OSError, UnicodeError):
        pytest.skip("this file system refuses such names")
    result = subprocess.run([sys.executable, "-m", "graphlint.cli", str(tmp_path)], capture_output=True,
                            timeout=120, env=dict(os.environ, PYTHONPATH=ROOT))
    out, err = result.stdout.decode("utf-8", "replace"), result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2
    assert "Traceback" not in err and "internal error" not in err, err
    assert out.count(": E5101 try-in-graph ") == len(names["good"])
    lines = problem_lines(err)
    assert len(lines) == 2 and all(": cannot check: syntax error at line 2" in line for line in lines), lines
    assert any("bad\\nsyntax.py" in line for line in lines), lines


def test_a_directory_of_two_thousand_files(tmp_path):
    for index in range(2000):
        if index % 100 == 0:
            text = BROKEN_CELL
        elif index % 10 == 0:
            text = CLEAN_CELL
        else:
            text = f"import mindspore\nVALUE_{index} = {index}\n"
        write(tmp_path, f"pkg{index // 200}/mod{index}.py", text)
    write(tmp_path, "pkg3/broken_syntax.py", "import mindspore\ndef f(:\n")
    (tmp_path / "pkg7" / "latin.py").write_bytes(b"import mindspore\ns = 'caf\xe9'\n")
    started = time.perf_counter()
    result = run_cli(str(tmp_path))
    elapsed = time.perf_counter() - started
    assert result.returncode == 2
    assert result.stdout.count("E5101 try-in-graph") == 20
    assert "Traceback" not in result.stderr
    assert_one_line_per_bad_file(result.stderr, {str(tmp_path / "pkg3" / "broken_syntax.py"): "syntax error",
                                                 str(tmp_path / "pkg7" / "latin.py"): "cannot decode"})
    assert elapsed < 300, elapsed


def test_every_kind_of_bad_file_at_once_in_every_format(tmp_path, capsys):
    good = write(tmp_path, "good.py", BROKEN_CELL)
    write(tmp_path, "clean.py", CLEAN_CELL)
    bad = {write(tmp_path, "syntax.py", "import mindspore\nclass :\n"): "syntax error",
           write(tmp_path, "deep.py", "import mindspore\nx = " + "(" * 300 + ")" * 300 + "\n"): "nested parentheses"}
    (tmp_path / "latin.py").write_bytes(b"import mindspore\ns = '\xe9'\n")
    bad[str(tmp_path / "latin.py")] = "cannot decode"
    (tmp_path / "nul.py").write_bytes(b"\x00")
    bad[str(tmp_path / "nul.py")] = "NUL bytes"
    os.symlink(str(tmp_path / "loop.py"), str(tmp_path / "loop.py"))
    bad[str(tmp_path / "loop.py")] = "symbolic links"
    for fmt in ("text", "json", "sarif", "github"):
        code, out, err = cli(capsys, "--format", fmt, tmp_path)
        assert code == 2, fmt
        assert_one_line_per_bad_file(err, bad)
        if fmt == "json":
            records = json.loads(out)
            assert [r["path"] for r in records if r["id"] != "F0001"] == [good]
            # Files that could not be checked are records too, so CI consumers learn of them.
            assert sorted(r["path"] for r in records if r["id"] == "F0001") == sorted(bad)
        elif fmt == "sarif":
            json.loads(out)
        assert "good.py" in out
    code, out, err = cli(capsys, "--diff", tmp_path)  # the fixer's run reports the same problems
    assert code == 2
    assert_one_line_per_bad_file("\n".join(line for line in problem_lines(err) if ": cannot check: " in line), bad)


def test_as_a_subprocess_bad_and_good_files(tmp_path):
    good = write(tmp_path, "good.py", BROKEN_CELL)
    bad = write(tmp_path, "bad.py", "import mindspore\nwhile True print(1)\n")
    result = run_cli(good, bad, str(tmp_path / "missing.py"))
    assert result.returncode == 2
    assert finding_lines(result.stdout) and all(line.startswith(f"{good}:") for line in finding_lines(result.stdout))
    assert "Traceback" not in result.stderr
    assert_one_line_per_bad_file(result.stderr, {bad: "syntax error at line 2",
                                                 str(tmp_path / "missing.py"): "no such file"})


def test_python_warnings_about_the_users_code_stay_quiet(tmp_path, capsys):
    """SyntaxWarnings on the user's code (`1 is 1`, `(1)[0]`, invalid escapes) are not graphlint's output:
    stderr holds only graphlint's own lines, when linting and when fixing."""
    text = AUGMENTED.replace("        return x\n", "        y = 1 is 1\n        z = (1)[0]\n        s = '\\d'\n        return x\n")
    path = write(tmp_path, "model.py", text)
    code, _, err = cli(capsys, path)
    assert code == 1 and err == ""
    result = run_cli("--diff", path)  # a subprocess: pytest would capture the warnings in process
    assert result.returncode == 1 and "x = x + 1" in result.stdout
    assert "Warning" not in result.stderr, result.stderr
    assert all(line.startswith(("graphlint: ", "  ")) for line in problem_lines(result.stderr)), result.stderr


ELIF_CHAIN = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x, y):
            if x > 0:
                lr = x
            elif y < 0:
                lr = y
            else:
                lr = x + y
            return lr
    """)


def test_fixing_an_elif_chain_does_not_stop_the_run(tmp_path):
    """Regression (mindocr's scheduler/multi_step_decay_lr.py): the unsafe select-form rewrite of an `elif`
    chain made libcst raise, and the whole --diff run died with an internal error. A fix that cannot be
    applied is refused for its file; the other files are still fixed."""
    chain = write(tmp_path, "chain.py", ELIF_CHAIN)
    other = write(tmp_path, "other.py", AUGMENTED)
    result = run_cli("--diff", "--unsafe-fixes", chain, other)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1
    assert "x = x + 1" in result.stdout
    for outcome in fix_paths([chain], Config(), unsafe=True, write=False).files:
        assert parses(outcome.after)


# -- safe writes and contained validation --------------------------------------------------------------------
def test_fix_writes_atomically_keeping_encoding_newlines_and_mode(tmp_path):
    path = tmp_path / "model.py"
    text = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + AUGMENTED
    path.write_bytes(text.replace("\n", "\r\n").encode("latin-1"))
    os.chmod(path, 0o640)
    report = fix_paths([str(path)], Config())
    assert report.applied
    data = path.read_bytes()
    assert b"x = x + 1\r\n" in data and b"caf\xe9" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert not [name for name in os.listdir(tmp_path) if name.startswith(".graphlint-")]


def test_a_file_changed_since_it_was_read_is_not_overwritten(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(AUGMENTED)
    source = read_source(str(path))
    time.sleep(0.01)
    path.write_text(AUGMENTED + "# edited meanwhile\n")
    with pytest.raises(WriteRefused, match="changed on disk"):
        write_atomic(source, AUGMENTED.replace("x += 1", "x = x + 1"))
    assert path.read_text().endswith("# edited meanwhile\n")


def _processes_with(marker: str) -> list[int]:
    """Processes whose environment holds ``marker`` (this run's children only, not other test runs')."""
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if marker.encode() in handle.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def test_validation_contains_hangs_crashes_and_import_errors():
    marker = f"GRAPHLINT_TEST_MARKER={uuid.uuid4().hex}"
    env = dict(os.environ, GRAPHLINT_TEST_MARKER=marker.split("=", 1)[1])
    hang = {"source": "import time\nclass Net:\n    pass\ntime.sleep(600)\n",
            "module_name": "hanging", "entry": "Net", "runs": ["pynative"]}
    result = run_job(hang, timeout=30, env=env)  # time enough to import MindSpore on a loaded machine
    assert result["pynative"].status == "timeout"
    for _ in range(50):  # the process group is killed; give the kernel a moment to reap it
        if not _processes_with(marker):
            break
        time.sleep(0.1)
    assert not _processes_with(marker)
    crash = {"source": "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", "module_name": "crashing",
             "entry": "Net", "runs": ["pynative"]}
    record = run_job(crash, timeout=120)["pynative"]
    assert record.status in ("error", "crashed")
    missing = {"source": "import no_such_module_for_graphlint\n", "module_name": "broken", "entry": "Net",
               "runs": ["pynative"]}
    record = run_job(missing, timeout=120)["pynative"]
    assert record.status == "error" and "no_such_module_for_graphlint" in record.summary
