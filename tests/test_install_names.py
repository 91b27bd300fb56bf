"""Every install line of the repository names graphlint's own distribution, `mindspore-graphlint`.

The PyPI project named like the command is another program (a dead-code finder): a pip line that names it, with
or without an extra, installs that program and warns that the extra does not exist. The command and the import
package are `graphlint`; only the distribution has another name. This scans the repository's tracked text files
(README, docs, error messages, pyproject.toml, hooks, editors, benchmarks, tests). This file spells the wrong forms
only through COMMAND, so that it passes its own scan.
"""

import os
import re
import subprocess

import pytest

from tests.support import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

DISTRIBUTION = "mindspore-graphlint"
COMMAND = "graphlint"  # the command, the import package, and the other project's name on PyPI
# A requirement naming the other project: COMMAND alone, with extras or with a version (quoted or not).
WRONG_REQUIREMENT = re.compile(r"^['\"]?" + COMMAND + r"(\[[^\]]*\])?([<>=!~;].*)?['\"]?$")
# The arguments of a `pip install` (up to the end of that shell command).
PIP_INSTALL = re.compile(r"\bpip3?\s+install\b([^&;|`)\n]*)")
# A requirement with one of our extras in prose, or any extras in a string, not preceded by another distribution's
# prefix (DISTRIBUTION with extras is right; the Lua table access COMMAND[root] is no requirement).
WRONG_EXTRA = re.compile(r"(?<![\w.-])" + COMMAND + r"\[(validate|server|test)\]|['\"]" + COMMAND + r"\[")


def wrong_install_lines(text: str) -> list[str]:
    """The lines of ``text`` that would install (or require) the other project."""
    wrong = []
    for line in text.splitlines():
        arguments = [argument for match in PIP_INSTALL.finditer(line) for argument in match.group(1).split()]
        if any(WRONG_REQUIREMENT.match(argument) for argument in arguments) or WRONG_EXTRA.search(line):
            wrong.append(line.strip())
    return wrong


def tracked_text_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [path for path in listed.decode().split("\0") if path and os.path.isfile(os.path.join(ROOT, path))]


def test_the_detector_flags_the_wrong_forms_and_passes_the_right_ones():
    wrong = [f"pip install {COMMAND}", f"pip install '{COMMAND}[server]'", f'pip install -U "{COMMAND}[validate]"',
             f"`pip install {COMMAND}==0.1.0`", f'    "{COMMAND}[validate]",', f"(needs {COMMAND}[validate])",
             f"python3 -m pip install -q {COMMAND}[test] && pytest"]
    right = [f"pip install '{DISTRIBUTION}[server]'", f"pip install -e '.[validate]' && .venv/bin/{COMMAND} x/",
             f'    "{DISTRIBUTION}[validate]",', f"pip install -e . && {COMMAND} --fix src/",
             f"      {COMMAND}[root] = {COMMAND}[root] or vim.lsp.start_client(config)",
             f"pip install {DISTRIBUTION}", f"{COMMAND} server --help"]
    assert wrong_install_lines("\n".join(wrong)) == [line.strip() for line in wrong]
    assert wrong_install_lines("\n".join(right)) == []


@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, ".git")), reason="needs this checkout's git repository")
def test_no_tracked_file_installs_the_other_project():
    files = tracked_text_files()
    assert "README.md" in files and "pyproject.toml" in files and "graphlint/server/__init__.py" in files
    found = []
    for path in files:
        with open(os.path.join(ROOT, path), "rb") as handle:
            data = handle.read()
        if b"\0" in data:
            continue  # binary
        text = data.decode("utf-8", "replace")
        found += [f"{path}: {line}" for line in wrong_install_lines(text)]
    assert found == []


def test_the_distribution_and_its_extras_are_named_for_the_project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        project = tomllib.load(handle)["project"]
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {COMMAND: "graphlint.cli:run"}
    own = [requirement for requirement in project["optional-dependencies"]["test"] if "graphlint" in requirement]
    assert own == [f"{DISTRIBUTION}[validate]", f"{DISTRIBUTION}[server]"]
