"""Awkward inputs through the real CLI, safe writes, and contained validation."""

import os
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from graphlint.analysis.source import read_source
from graphlint.cli import main
from graphlint.config import Config
from graphlint.files import WriteRefused, write_atomic
from graphlint.fixers.driver import fix_paths
from graphlint.validate.runner import run_job
from tests.support import BROKEN_CELL, run_cli, write

AUGMENTED = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            x += 1
            return x
    """)


def _one_line_per_problem(stderr: str, expected: int):
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == expected, lines
    assert "Traceback" not in stderr


def test_latin1_with_cookie_bom_crlf_tabs_and_empty_files(tmp_path, capsys):
    latin = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + BROKEN_CELL
    (tmp_path / "latin.py").write_bytes(latin.encode("latin-1"))
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + BROKEN_CELL.encode())
    (tmp_path / "crlf.py").write_bytes(BROKEN_CELL.replace("\n", "\r\n").encode())
    mixed = BROKEN_CELL.splitlines(keepends=True)
    (tmp_path / "mixed.py").write_bytes("".join(l.replace("\n", "\r\n") if i % 2 else l for i, l in enumerate(mixed)).encode())
    (tmp_path / "tabs.py").write_bytes(BROKEN_CELL.replace("    ", "\t").encode())
    (tmp_path / "empty.py").write_bytes(b"")
    assert main([str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert captured.err == ""
    hits = sorted(line.split(":")[0].rsplit(os.sep, 1)[-1] for line in captured.out.splitlines())
    assert hits == ["bom.py", "crlf.py", "latin.py", "mixed.py", "tabs.py"]


def test_large_and_deeply_nested_files(tmp_path, capsys):
    body = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(25_000))
    write(tmp_path, "big.py", "import mindspore as ms\n" + body + BROKEN_CELL)
    write(tmp_path, "parens.py", "import mindspore\nx = " + "(" * 100 + "1" + ")" * 100 + "\n")
    write(tmp_path, "sum.py", "import mindspore\nx = " + "+".join(["a"] * 1000) + "\n")
    write(tmp_path, "lists.py", "import mindspore\nx = " + "[" * 90 + "]" * 90 + "\n")
    deep = "import mindspore as ms\nfrom mindspore import nn\nclass Net(nn.Cell):\n    def construct(self, x):\n" \
           "        return " + "(" * 150 + "x" + " + 1)" * 150 + "\n"
    write(tmp_path, "deep.py", deep)
    started = time.perf_counter()
    code = main([str(tmp_path)])
    elapsed = time.perf_counter() - started
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert "big.py:" in captured.out and "E5101" in captured.out
    for line in captured.err.splitlines():  # anything the parser refuses is one line naming the file
        assert ": cannot check: " in line
    assert code in (1, 2)
    assert elapsed < 300


def test_symlink_loops_and_unreadable_files(tmp_path):
    write(tmp_path, "pkg/bad.py", BROKEN_CELL)
    os.symlink(str(tmp_path / "pkg"), str(tmp_path / "pkg" / "loop"))  # a directory that contains itself
    os.symlink(str(tmp_path / "b.py"), str(tmp_path / "a.py"))
    os.symlink(str(tmp_path / "a.py"), str(tmp_path / "b.py"))  # a.py -> b.py -> a.py
    unreadable = write(tmp_path, "secret.py", BROKEN_CELL)
    os.chmod(unreadable, 0)
    readable_anyway = os.access(unreadable, os.R_OK)  # root reads everything
    result = run_cli(str(tmp_path))
    os.chmod(unreadable, stat.S_IRUSR | stat.S_IWUSR)
    assert result.returncode == 2
    assert "pkg/bad.py:7:9: E5101" in result.stdout.replace(os.sep, "/")
    assert "Traceback" not in result.stderr
    problems = result.stderr.strip().splitlines()
    assert any("a.py: cannot check:" in p for p in problems) and any("b.py: cannot check:" in p for p in problems)
    if not readable_anyway:
        assert any("secret.py: cannot check: permission denied" in p for p in problems)
    assert all(": cannot check: " in p for p in problems)


def test_a_directory_of_two_thousand_files(tmp_path):
    for index in range(2000):
        text = BROKEN_CELL if index % 100 == 0 else f"import mindspore\nVALUE_{index} = {index}\n"
        write(tmp_path, f"pkg{index // 200}/mod{index}.py", text)
    write(tmp_path, "pkg3/broken_syntax.py", "import mindspore\ndef f(:\n")
    result = run_cli(str(tmp_path))
    assert result.returncode == 2
    assert result.stdout.count("E5101 try-in-graph") == 20
    _one_line_per_problem(result.stderr, 1)


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


def _children_left(marker: str) -> list[str]:
    listing = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return [line for line in listing.splitlines() if marker in line and "ps -eo" not in line]


def test_validation_contains_hangs_crashes_and_import_errors():
    hang = {"source": "import time\nclass Net:\n    pass\ntime.sleep(600)  # graphlint-hang-marker\n",
            "module_name": "hanging", "entry": "Net", "runs": ["pynative"]}
    result = run_job(hang, timeout=5)
    assert result["pynative"].status == "timeout"
    assert not _children_left("graphlint-run-")
    crash = {"source": "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", "module_name": "crashing",
             "entry": "Net", "runs": ["pynative"]}
    record = run_job(crash, timeout=120)["pynative"]
    assert record.status in ("error", "crashed")
    missing = {"source": "import no_such_module_for_graphlint\n", "module_name": "broken", "entry": "Net",
               "runs": ["pynative"]}
    record = run_job(missing, timeout=120)["pynative"]
    assert record.status == "error" and "no_such_module_for_graphlint" in record.summary
