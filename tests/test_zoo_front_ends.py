"""The CLI, the Pylint plugin and the language server report the same findings on real model zoos.

Each front end runs the same analysis; this checks they also see the same project (cross-module facts: helpers,
sub-Cells, instantiations) on code nobody here wrote. The wheels come from PyPI through benchmarks/corpus.py.
The server is asked for every file the CLI reports on and for a seeded sample of the clean ones (opening all of
them one by one would take minutes).
"""

import asyncio
import os
import random
import re
import shutil
import subprocess
import sys

import pytest
from lsprotocol import types

from graphlint.catalogue import RULES
from graphlint.config import Config
from graphlint.lint import lint_paths
from graphlint.run.fix import fix_paths
from tests.server_support import editor, uri
from tests.support import ROOT

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from corpus import fetch  # noqa: E402

CLEAN_FILES_ASKED = 4
OPEN_TIMEOUT = 180.0  # the server analyses the whole workspace before its first diagnostics


def _cli(package: str) -> set[tuple[str, int, int, str]]:
    """(path relative to the package's parent, 1-based line, 1-based column, rule id) for every finding."""
    result = lint_paths([package], Config())
    assert not result.problems, [p.line() for p in result.problems]
    parent = os.path.dirname(package)
    return {(os.path.relpath(f.path, parent), f.line, f.column, f.rule.id) for f in result.findings}


def _pylint(package: str) -> set[tuple[str, int, int, str]]:
    parent = os.path.dirname(package)
    completed = subprocess.run(
        [sys.executable, "-m", "pylint", "--load-plugins=graphlint", "--disable=all",
         "--enable=" + ",".join(rule.id for rule in RULES), "--score=n",
         "--msg-template={path}:{line}:{column}: {msg_id}", os.path.basename(package)],
        cwd=parent, env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True, timeout=900)
    assert "Traceback" not in completed.stderr, completed.stderr
    found = set()
    for line in completed.stdout.splitlines():
        match = re.match(r"^(\S+):(\d+):(\d+): ([EWI]\d{4})$", line)
        if match:  # (Pylint's columns are 0-based)
            found.add((match.group(1), int(match.group(2)), int(match.group(3)) + 1, match.group(4)))
    return found


def _server(package: str, files: list[str]) -> set[tuple[str, int, int, str]]:
    parent = os.path.dirname(package)

    async def scenario():
        found = set()
        async with editor(parent) as session:
            for relative in files:
                path = os.path.join(parent, relative)
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                session.texts[path], session.versions[path] = text, 1
                session.client.text_document_did_open(types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(uri=uri(path), language_id="python", version=1, text=text)))
                for diagnostic in await session.diagnostics(path, timeout=OPEN_TIMEOUT):
                    # (LSP positions are 0-based, in UTF-16 units: the lines reported on are ASCII)
                    found.add((relative, diagnostic.range.start.line + 1, diagnostic.range.start.character + 1,
                               diagnostic.code))
        return found

    return asyncio.run(scenario())


@pytest.mark.parametrize("name", ["mindcv", "mindocr", "mindyolo"])
def test_cli_plugin_and_server_agree_on_model_zoos(name):
    package = fetch(name)
    from_cli = _cli(package)
    assert _pylint(package) == from_cli, name
    if name != "mindyolo":  # (mindyolo has none: the other two make the comparison say something)
        assert from_cli

    parent = os.path.dirname(package)
    reported = sorted({path for path, *_ in from_cli})
    clean = sorted(path for path in (os.path.relpath(os.path.join(folder, file), parent)
                                     for folder, _, names in os.walk(package) for file in names
                                     if file.endswith(".py"))
                   if path not in reported)
    asked = reported + random.Random(30).sample(clean, min(CLEAN_FILES_ASKED, len(clean)))
    assert _server(package, asked) == {finding for finding in from_cli if finding[0] in asked}, name


PROBE = """\
from mindspore import nn, ops


class Probe(nn.Cell):
    def construct(self, x):
        import math
        x += 1
        y = x * 2
        del x
        return ops.relu(y) * math.pi
"""


def test_the_fixers_re_lint_agrees_with_a_fresh_lint_on_model_zoos(tmp_path):
    """--fix re-lints what it rewrote with the session in hand (session.update): the findings it leaves are the
    ones a fresh lint of the fixed files reports."""
    fixed_files = compared = 0
    for name in ("mindcv", "mindocr", "mindyolo"):
        package = shutil.copytree(fetch(name), tmp_path / name)
        (package / "graphlint_probe.py").write_text(PROBE, encoding="utf-8")  # (the zoos have nothing to fix)
        report = fix_paths([str(package)], Config(), unsafe=True)
        assert not report.lint.problems and not [f.error for f in report.files if f.error], name
        fixed_files += sum(1 for f in report.files if f.changed)
        left = {(os.path.relpath(f.path, tmp_path), f.line, f.column, f.rule.id) for f in report.remaining}
        assert left == _cli(str(package)), name
        compared += len(left)
    assert fixed_files > 0 and compared > 10  # (files were rewritten and re-linted, and findings were left)


def test_fix_in_processes_gives_what_one_process_gives_on_model_zoos(tmp_path, monkeypatch):
    """--fix --jobs 2 (each process parses its share, then fixes the groups of modules it holds most of) finds,
    rewrites and leaves on the model zoos what one process does."""
    from graphlint.run import parallel

    shared_runs = []
    partitioned = parallel.lint_partitioned

    def recorded(*args, **kwargs):  # (a run in processes that failed would fall back to one process)
        answer = partitioned(*args, **kwargs)
        shared_runs.append(answer is not None and kwargs.get("fix_share", args[-1]) is not None)
        return answer

    monkeypatch.setattr(parallel, "lint_partitioned", recorded)
    def outcome(report):
        return ([(f.path, f.after, [(a.line, a.rule) for a in f.applied]) for f in report.files],
                sorted((f.path, f.line, f.column, f.rule.id) for f in report.lint.findings),
                sorted((f.path, f.line, f.column, f.rule.id) for f in report.remaining),
                sorted((p.path, p.reason) for p in report.lint.problems))

    for name in ("mindcv", "mindocr", "mindyolo"):
        package = shutil.copytree(fetch(name), tmp_path / name)
        (package / "graphlint_probe.py").write_text(PROBE, encoding="utf-8")
        one = outcome(fix_paths([str(package)], Config(), unsafe=True, write=False))
        two = outcome(fix_paths([str(package)], Config(), unsafe=True, write=False, jobs=2))
        assert one == two, name
        assert one[0] and one[1], name  # (a file was rewritten, and findings were found)
    assert shared_runs == [True, True, True]
