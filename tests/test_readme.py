"""Every command and configuration snippet of README.md and of the docs pages it sends readers to, executed.

Each page is read into fenced blocks (with the heading they are under) and inline ``graphlint ...`` commands; each
is run the way a reader would: shell commands with bash, the configuration as a pyproject.toml, the pre-commit
configurations with real pre-commit. Every block of README.md and docs/*.md is registered in :data:`RUN_BY` with
the test that runs it; a block that is not (a new snippet, or one moved to another heading or page) fails
:func:`test_every_block_is_run`. The editor set-ups of docs/editors.md are run by tests/test_server_editors.py, or
are listed here with the reason they cannot run on this machine.
"""

import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap

import pytest

from tests.support import BROKEN_CELL, CLEAN_CELL, ROOT, write

README = "README.md"
BIN = os.path.dirname(sys.executable)
EDITOR_SECTION = "## In the editor"
FIXABLE = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            x += 1
            return x * 2
    """)  # the full-format example of docs/cli.md

NOT_RUN = "not run: "  # a RUN_BY value that says why a block cannot run here
# (page, heading, fence language) -> the test that runs those blocks (how many there are is counted too).
RUN_BY = {
    ("README.md", "## Install and first run", "sh"): ("test_the_readme_commands_on_a_fresh_clone", 1),
    ("README.md", "## Validate fixes by compiling them", "sh"): ("test_the_readme_commands_on_a_fresh_clone", 1),
    ("README.md", "## Run the tests", "sh"): ("test_the_test_command_is_what_ci_runs", 1),
    ("README.md", "## Usage", "sh"): ("test_readme_usage_commands", 1),
    ("README.md", "## In CI", "sh"): ("test_ci_commands", 1),
    ("README.md", "## pre-commit", "yaml"): ("test_pre_commit_local_hooks_as_pasted", 1),
    ("README.md", "## Pylint", "sh"): ("test_the_pylint_command", 1),
    ("docs/cli.md", "## Usage", "sh"): ("test_usage_commands", 1),
    ("docs/cli.md", "## Output", "text"): ("test_the_full_format_example", 1),
    ("docs/cli.md", "## pre-commit from this repository", "yaml"): ("test_pre_commit_remote_hooks_from_main", 1),
    ("docs/configuration.md", "## pyproject.toml", "toml"): ("test_the_configuration_snippet", 1),
    ("docs/port-mode.md", "# Port mode", "console"): ("test_the_port_mode_report_on_the_bundled_example", 1),
    ("docs/speed.md", "## Measuring", "sh"): ("test_the_speed_benchmark_as_written", 1),
    ("docs/editors.md", "## Install", "sh"): ("test_the_readme_commands_on_a_fresh_clone", 1),
    ("docs/editors.md", "## Neovim", "lua"): ("tests/test_server_editors.py::"
                                             "test_documented_snippets_are_the_tested_files (the first; the "
                                             "lspconfig form: not run, the page says so)", 2),
    ("docs/editors.md", "## VS Code", "sh"): (NOT_RUN + "npm, vsce and VS Code (the page says so); "
                                              "tests/test_server_editors.py checks the extension's manifest", 1),
    ("docs/editors.md", "## VS Code", "json"): (NOT_RUN + "a VS Code setting (the page says so)", 1),
    ("docs/editors.md", "## Helix", "toml"): (NOT_RUN + "Helix is not packaged here (the page says so)", 1),
    ("docs/editors.md", "## Emacs (eglot)", "elisp"): ("tests/test_server_editors.py::"
                                                       "test_documented_snippets_are_the_tested_files", 1),
}
GENERATED_PAGES = ("docs/coverage.md",)  # written by graphlint.docs from the catalogue (tests/test_docs.py)
# Inline `graphlint ...` spans not run as commands: the editor page and section name the server, which would wait
# for an editor on stdin, and fragments of sentences (`graphlint PATH`).
INLINE_SKIPPED = ("docs/editors.md",)


def pages() -> list[str]:
    """README.md and every hand-written page of docs/ (relative to the repository)."""
    found = sorted(os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    return [README] + [page for page in found if page not in GENERATED_PAGES]


def blocks(page: str = README):
    """[(heading, language, text)] of a page's fenced blocks; the heading is the last `#` or `##` line."""
    found, section, language, lines = [], "", None, []
    with open(os.path.join(ROOT, page), encoding="utf-8") as handle:
        for line in handle:
            if language is None and re.match(r"^##? ", line):
                section = line.strip()
            fence = re.match(r"^```(\w*)\s*$", line)
            if fence and language is None:
                language, lines = fence.group(1), []
            elif fence and line.strip() == "```":
                found.append((section, language, "".join(lines)))
                language = None
            elif language is not None:
                lines.append(line)
    return found


def section_blocks(heading: str, language: str, page: str = README) -> list[str]:
    return [text for section, lang, text in blocks(page) if section.startswith(heading) and lang == language]


def page_text(page: str) -> str:
    with open(os.path.join(ROOT, page), encoding="utf-8") as handle:
        return handle.read()


def inline_commands(page: str) -> list[str]:
    """`graphlint ...` code spans outside fenced blocks (and outside the README's editor section)."""
    commands, section, fenced = [], "", False
    for line in page_text(page).splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if line.startswith("## "):
            section = line.strip()
        if fenced or section.startswith(EDITOR_SECTION):
            continue
        commands += [span for span in re.findall(r"`([^`]+)`", line) if span.startswith("graphlint ")]
    return commands


def environment(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def bash(command: str, cwd, timeout=900, **env):
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=environment(**env), capture_output=True, text=True,
                          timeout=timeout)


def project(folder):
    """A small project for the README's commands: src/, scripts/, tests/, legacy/, mypkg/."""
    write(folder, "src/model.py", FIXABLE)
    write(folder, "src/broken.py", BROKEN_CELL)
    write(folder, "src/clean.py", CLEAN_CELL)
    write(folder, "scripts/train.py", "from mindspore import nn\n\n\nclass Net(nn.Cell):\n"
                                      "    def construct(self, x):\n        y = x.asnumpy()\n        return x\n")
    write(folder, "scripts/export_net.py", "from mindspore import nn\n\n\nclass Net(nn.Cell):\n"
                                           "    def construct(self, x):\n        return x.asnumpy()\n")
    write(folder, "tests/test_model.py", "from mindspore import nn\nimport numpy as np\n\n\nclass Net(nn.Cell):\n"
                                         "    def construct(self, x):\n        return np.mean(x)\n")
    write(folder, "legacy/old.py", BROKEN_CELL)
    write(folder, "mypkg/__init__.py", "")
    write(folder, "mypkg/model.py", textwrap.dedent("""\
        from mindspore import nn, ops


        class Block(nn.Cell):
            def __init__(self, dim):
                super().__init__()
                self.dense = nn.Dense(dim, dim)

            def construct(self, x):
                return self.dense(x)


        class Head(nn.Cell):
            def construct(self, x):
                return ops.relu(x)


        class Net(nn.Cell):
            def construct(self, x):
                return ops.relu(x) * 2
        """))


def test_every_block_is_run():
    """Each fenced block of README.md and docs/*.md is registered with the test that runs it, and that test exists;
    a new snippet, or one moved to another heading or page, needs a test (or a reason it cannot run) here."""
    counted = {}
    for page in pages():
        for section, language, _text in blocks(page):
            key = (page, section, language)
            assert key in RUN_BY, f"a block no test runs: {key}"
            counted[key] = counted.get(key, 0) + 1
    assert counted == {key: count for key, (_test, count) in RUN_BY.items()}
    with open(os.path.join(ROOT, "tests", "test_server_editors.py"), encoding="utf-8") as handle:
        editor_tests = handle.read()
    for test, _count in RUN_BY.values():
        if test.startswith(NOT_RUN):
            continue
        if test.startswith("tests/test_server_editors.py::"):
            assert f"def {test.split('::')[1].split()[0]}(" in editor_tests, test
        else:
            assert callable(globals().get(test)) and test.startswith("test_"), test


def test_the_test_command_is_what_ci_runs():
    [test_command] = section_blocks("## Run the tests", "sh")
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as handle:
        ci = [line.strip() for line in handle if line.strip() and not line.startswith("#")]
    assert test_command.strip() in ci, (test_command, ci)
    assert "pytest" in test_command and "-q -e '.[test]'" in test_command


def _clone_environment(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(extra)
    return env


@pytest.mark.compile
def test_the_readme_commands_on_a_fresh_clone(tmp_path):
    """`git clone`, then as written: the README's first command installs graphlint alone (no MindSpore) as
    mindspore-graphlint and lints the example (exit 0); docs/editors.md's install, in that environment, adds the
    server; the README's validation command installs MindSpore and shows the fixes it proved by compiling."""
    [install] = section_blocks("## Install and first run", "sh")
    [validate] = section_blocks("## Validate fixes by compiling them", "sh")
    [server] = section_blocks("## Install", "sh", page="docs/editors.md")
    readme = page_text(README)
    assert "~800 MB" in readme.split("## Validate fixes by compiling them")[1].split("```sh")[0]
    assert "[validate]" not in install and "mindspore" not in install.lower()
    clone = tmp_path / "graphlint"
    subprocess.run(["git", "clone", "-q", ROOT, str(clone)], check=True, capture_output=True, timeout=300)

    def run(command, **env):
        return subprocess.run(["bash", "-c", command.strip()], cwd=clone, env=_clone_environment(**env),
                              capture_output=True, text=True, timeout=3600)

    first = run(install)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "examples/model.py" in first.stdout and "Traceback" not in first.stderr
    venv_python = str(clone / ".venv" / "bin" / "python")
    probe = "import importlib.util; print(importlib.util.find_spec('mindspore') is None)"
    assert subprocess.run([venv_python, "-c", probe], capture_output=True, text=True).stdout.strip() == "True"
    shown = subprocess.run([venv_python, "-m", "pip", "show", "mindspore-graphlint"], capture_output=True, text=True)
    assert shown.returncode == 0 and "Name: mindspore-graphlint" in shown.stdout, shown.stdout + shown.stderr
    activated = {"VIRTUAL_ENV": str(clone / ".venv"),
                 "PATH": str(clone / ".venv" / "bin") + os.pathsep + os.environ.get("PATH", "")}
    editor = run(server, **activated)
    assert editor.returncode == 0, editor.stdout[-3000:] + editor.stderr[-3000:]
    assert "\nusage: graphlint server [--stdio]" in editor.stdout, editor.stdout[-2000:]  # after pip's lines
    served = subprocess.run([venv_python, "-c", "import pygls, lsprotocol"], capture_output=True, text=True)
    assert served.returncode == 0, served.stderr
    second = run(validate)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert "+++ b/examples/model.py" in second.stdout, second.stdout[-3000:]


def _run_usage_block(block, tmp_path, minimum) -> dict:
    """Every line of a usage block, in turn, in a small project: each exits 0 or 1, without a traceback.
    {command: its completed process}."""
    project(tmp_path)
    commands, results = [line for line in block.splitlines() if line.strip()], {}
    assert len(commands) >= minimum
    for command in commands:
        assert command.lstrip().startswith(("graphlint", "cat ")), command
        result = bash(command, tmp_path)
        assert result.returncode in (0, 1), (command, result.stdout[-2000:], result.stderr[-2000:])
        assert "Traceback" not in result.stderr and "error:" not in result.stderr, (command, result.stderr)
        if "--statistics" in command:
            assert "E5101" in result.stdout
        if "--stdin-filename" in command:
            assert result.stdout.startswith("src/model.py:7:9: W5301"), result.stdout
        if command.startswith("graphlint -v "):
            assert "graphlint: result cache: " in result.stderr, result.stderr
        if "--baseline .graphlint" in command:
            assert result.returncode == 0 and result.stdout.startswith("All checks passed: "), result.stdout
        results[command] = result
    return results


def test_usage_commands(tmp_path):
    [usage] = section_blocks("## Usage", "sh", page="docs/cli.md")
    _run_usage_block(usage, tmp_path, minimum=10)
    assert "x = x + 1" in (tmp_path / "src" / "model.py").read_text()  # --fix ran


def test_readme_usage_commands(tmp_path):
    [usage] = section_blocks("## Usage", "sh")
    results = _run_usage_block(usage, tmp_path, minimum=3)
    [diff] = [result for command, result in results.items() if command.startswith("graphlint --diff ")]
    assert "+        x = x + 1" in diff.stdout, diff.stdout  # shown before the --fix line applies it
    assert any(command.startswith("graphlint --fix ") for command in results)
    assert "x = x + 1" in (tmp_path / "src" / "model.py").read_text()  # --fix ran


def test_ci_commands(tmp_path):
    """The CI block, as written: workflow annotations and a SARIF file, exit 1 on findings."""
    project(tmp_path)
    [block] = section_blocks("## In CI", "sh")
    commands = [line for line in block.splitlines() if line.strip()]
    assert len(commands) == 2
    for command in commands:
        result = bash(command, tmp_path)
        assert result.returncode == 1 and "Traceback" not in result.stderr, (command, result.stderr)
        if "github" in command:
            assert "::error file=src/broken.py,line=7," in result.stdout, result.stdout
    sarif = json.loads((tmp_path / "graphlint.sarif").read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"]
    assert "graphlint exits 1 on errors and warnings (`--fail-on {error,warning,info}` moves the bar;" in " ".join(
        page_text(README).split())


def test_the_pylint_command(tmp_path):
    """The Pylint block, in the small project: the plugin reports the README's W5301 at its line."""
    project(tmp_path)
    [block] = section_blocks("## Pylint", "sh")
    [command] = [line for line in block.splitlines() if line.strip()]
    assert command.startswith("pylint --load-plugins=graphlint ")
    result = bash(command, tmp_path)
    assert "Traceback" not in result.stderr, result.stderr
    assert "src/model.py:7:8: W5301: `x += ...`" in result.stdout, result.stdout


def test_inline_commands(tmp_path):
    """`graphlint --help`, `graphlint --explain try-in-graph`, `graphlint check server` ... as the prose says, in
    the README and in the docs pages."""
    project(tmp_path)
    write(tmp_path, "server/model.py", BROKEN_CELL)
    log = ("RuntimeError: Unsupported statement 'Try'.\n\n- The Traceback of Net Construct Code:\n"
           f"# In file {tmp_path}/server/model.py:7~10, 8~17\n        try:\n")
    write(tmp_path, "build.log", log)
    commands = sorted({command for page in pages() if page not in INLINE_SKIPPED for command in inline_commands(page)})
    assert "graphlint --list-rules" in commands and "graphlint check server" in commands
    assert "graphlint explain-error build.log" in inline_commands(README)
    for command in commands:
        result = bash(command, tmp_path)
        assert result.returncode in (0, 1), (command, result.stderr)
        assert "Traceback" not in result.stderr and "error:" not in result.stderr, (command, result.stderr)
    assert "server/model.py:7:9: E5101" in bash("graphlint check server", tmp_path).stdout
    assert "server/model.py:7:9: E5101" in bash("graphlint ./server", tmp_path).stdout.replace("./", "")
    assert "E5101 try-in-graph" in bash("graphlint explain-error build.log", tmp_path).stdout


@pytest.mark.compile
def test_the_port_mode_report_on_the_bundled_example(tmp_path):
    """The port-mode block: its command, run on a copy of examples/, prints exactly the report shown."""
    [block] = section_blocks("# Port mode", "console", page="docs/port-mode.md")
    command, *expected = block.splitlines()
    assert command.startswith("$ graphlint ") and "--unsafe-fixes --validate" in command
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    result = bash(command[2:], tmp_path)
    assert result.returncode in (0, 1), result.stderr
    assert result.stderr.splitlines() == expected, result.stderr


def test_the_full_format_example(tmp_path):
    [example] = section_blocks("## Output", "text", page="docs/cli.md")
    write(tmp_path, "src/model.py", FIXABLE)
    result = bash("graphlint --output-format full src/model.py", tmp_path)
    assert result.returncode == 1
    assert example in result.stdout, result.stdout
    summary = " ".join(re.search(r"`(Found [^`]+)`", page_text("docs/cli.md")).group(1).split())
    assert re.fullmatch(r"Found \d+ errors, \d+ warnings in \d+ files \(\d+ fixable with --fix, \d+ more with "
                        r"--fix --unsafe-fixes\)\.", summary)


def _configuration_snippet() -> str:
    [snippet] = section_blocks("## pyproject.toml", "toml", page="docs/configuration.md")
    return snippet


def test_the_configuration_snippet(tmp_path):
    snippet = _configuration_snippet()
    project(tmp_path)
    write(tmp_path, "pyproject.toml", snippet)
    from graphlint.config import config_for

    config = config_for(str(tmp_path))
    assert config.select == ("E", "W") and config.extend_select == ("I5701",)
    assert config.per_file_ignores == (("tests/*", ("W55",)), ("scripts/export_*.py", ("warning", "info")))
    assert set(config.validate_inputs) == {"mypkg.model:Net", "mypkg.model:Block", "mypkg.model:Head"}
    result = bash("graphlint --output-format json .", tmp_path)
    assert result.returncode == 1 and result.stderr == "", result.stderr
    found = {(r["path"], r["id"]) for r in json.loads(result.stdout)}
    assert ("./src/broken.py", "E5101") in found or ("src/broken.py", "E5101") in found
    paths = {path.lstrip("./") for path, _ in found}
    assert "legacy/old.py" not in paths  # exclude
    assert "tests/test_model.py" not in paths and "scripts/export_net.py" not in paths  # per-file-ignores
    assert "scripts/train.py" in paths
    concise = bash("graphlint src/broken.py", tmp_path)  # output-format = "concise", even on a terminal
    assert concise.stdout.startswith("src/broken.py:7:9: E5101")


@pytest.mark.compile
def test_the_configuration_snippet_validates(tmp_path):
    snippet = _configuration_snippet()
    project(tmp_path)
    write(tmp_path, "pyproject.toml", snippet)
    model = (tmp_path / "mypkg" / "model.py").read_text()
    assert "        return ops.relu(x) * 2\n" in model
    write(tmp_path, "mypkg/model.py", model.replace("        return ops.relu(x) * 2\n",
                                                    "        x += 1\n        return ops.relu(x) * 2\n"))
    result = bash("graphlint --diff --validate --show-fixes mypkg/", tmp_path, timeout=1800)
    assert result.returncode == 1, result.stderr
    assert "x = x + 1" in result.stdout and "validation failed" not in result.stderr, result.stderr


def test_the_speed_benchmark_as_written(tmp_path):
    """docs/speed.md's command, as written from a checkout whose set-up venv is the one running these tests: the
    benchmark runs every figure's commands (on examples/) and exits 0."""
    [block] = section_blocks("## Measuring", "sh", page="docs/speed.md")
    [command] = [line for line in block.splitlines() if line.strip()]
    assert command.startswith(".venv/bin/python benchmarks/cli_speed.py")
    result = bash(BIN + "/python" + command[len(".venv/bin/python"):], ROOT, timeout=1200,
                  TMPDIR=str(tmp_path))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.stderr == "", result.stderr
    for figure in ("[1] cold lint", "[2] --jobs 2", "[3] warm re-run", "[4] peak memory"):
        assert figure in result.stdout, result.stdout
    assert result.stdout.count("the same findings: yes") == 4, result.stdout


def test_the_speed_benchmark_with_a_python_without_graphlint(tmp_path):
    """`python benchmarks/cli_speed.py` with an interpreter that lacks graphlint's dependencies (a bare venv):
    one line saying which Python to use, exit 2, no traceback."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True, timeout=300)
    python = str(tmp_path / "bare" / "bin" / "python")
    result = subprocess.run([python, "benchmarks/cli_speed.py", "--smoke"], cwd=ROOT, capture_output=True, text=True,
                            timeout=300, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert result.returncode == 2 and result.stdout == "", result.stdout + result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(f"cli_speed.py: this Python ({python}) cannot run graphlint (ModuleNotFoundError: ")
    assert line.endswith("run the benchmark with the Python graphlint is installed in, e.g. "
                         ".venv/bin/python benchmarks/cli_speed.py")


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=300)


def _pre_commit_project(tmp_path):
    repo = tmp_path / "project"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    _git("config", "user.email", "test@example.invalid", cwd=repo)
    _git("config", "user.name", "test", cwd=repo)
    write(repo, "broken.py", BROKEN_CELL)
    write(repo, "fixable.py", FIXABLE)
    write(repo, "clean.py", CLEAN_CELL)
    return repo


def _pre_commit(*args, cwd, home):
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=1800, env=environment(PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never"))


def test_pre_commit_local_hooks_as_pasted(tmp_path):
    [local] = section_blocks("## pre-commit", "yaml")
    repo = _pre_commit_project(tmp_path)
    write(repo, ".pre-commit-config.yaml", local)
    _git("add", ".", cwd=repo)
    run = _pre_commit("run", "graphlint", "--all-files", cwd=repo, home=tmp_path / "home")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "broken.py:7:9: E5101 try-in-graph" in run.stdout
    fix = _pre_commit("run", "graphlint-fix", "--all-files", cwd=repo, home=tmp_path / "home")
    assert fix.returncode == 1 and "files were modified by this hook" in fix.stdout, fix.stdout + fix.stderr
    assert "x = x + 1" in (repo / "fixable.py").read_text()
    _git("rm", "-q", "--cached", "broken.py", cwd=repo)
    os.unlink(repo / "broken.py")
    _git("add", ".", cwd=repo)
    again = _pre_commit("run", "--all-files", cwd=repo, home=tmp_path / "home")
    assert again.returncode == 0, again.stdout + again.stderr


def _has_main_branch() -> bool:
    return subprocess.run(["git", "rev-parse", "--verify", "-q", "refs/heads/main"], cwd=ROOT,
                          capture_output=True).returncode == 0


@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, ".git")), reason="needs this checkout's git repository")
def test_pre_commit_remote_hooks_from_main(tmp_path):
    """docs/cli.md's snippet with this checkout as the URL: `rev: main` is this repository's branch with both
    hooks, and pre-commit runs them as pasted; `pre-commit autoupdate` then pins the newest commit, as the page
    says (graphlint has no tags: were there one, the snippet should name it)."""
    [remote] = section_blocks("## pre-commit from this repository", "yaml", page="docs/cli.md")
    assert re.search(r"^    rev: main$", remote, re.M), remote
    tags = subprocess.run(["git", "tag", "--list"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert tags.strip() == "", f"graphlint has release tags now ({tags.split()}): give `rev:` the newest"
    if not _has_main_branch():
        pytest.skip("this checkout has no local `main` branch to install the hooks from")
    hooks = subprocess.run(["git", "show", "main:.pre-commit-hooks.yaml"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout
    assert "- id: graphlint\n" in hooks and "- id: graphlint-fix\n" in hooks
    url = re.search(r"repo: (\S+)", remote).group(1)
    repo = _pre_commit_project(tmp_path)
    write(repo, ".pre-commit-config.yaml", remote.replace(url, ROOT))
    _git("add", ".", cwd=repo)
    run = _pre_commit("run", "graphlint", "--files", "broken.py", "clean.py", cwd=repo, home=tmp_path / "home")
    assert run.returncode == 1 and "broken.py:7:9: E5101 try-in-graph" in run.stdout, run.stdout + run.stderr
    update = _pre_commit("autoupdate", cwd=repo, home=tmp_path / "home")
    assert update.returncode == 0, update.stdout + update.stderr
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    config = (repo / ".pre-commit-config.yaml").read_text()
    assert f"rev: {head}" in config, config


def test_shell_commands_parse():
    """Every shell line of the README and the docs pages is one bash accepts as written (no placeholder such as
    PATH...)."""
    for page in pages():
        for section, language, text in blocks(page):
            if language != "sh":
                continue
            for line in text.splitlines():
                if line.strip():
                    shlex.split(line, comments=True)
                    assert "..." not in line.split("#")[0], (page, section, line)


def test_the_fix_table_lists_every_rule_a_fixer_rewrites():
    """docs/fixes.md's "What `--fix` rewrites" table names each rule that has a fixer (ids or ranges like
    W5301-W5303)."""
    from graphlint.fixers import FIXERS

    table = page_text("docs/fixes.md").split("What `--fix` rewrites (", 1)[1].split("\n\n", 2)[1]
    listed = set()
    for row in table.splitlines()[2:]:
        cell = row.split("|")[1]
        for part in re.findall(r"[EWI]\d{4}(?:-[EWI]\d{4})?", cell):
            first, _, last = part.partition("-")
            listed.update(f"{first[0]}{n}" for n in range(int(first[1:]), int((last or first)[1:]) + 1))
    assert len(listed) > 40 and sorted(set(FIXERS) - listed) == []


def test_the_readme_is_short_and_links_every_page():
    """The README a newcomer reads: under 150 lines, and a link to each docs page (and each link resolves)."""
    readme = page_text(README)
    assert len(readme.splitlines()) < 150
    for page in pages()[1:] + list(GENERATED_PAGES):
        assert f"]({page})" in readme or f"]({page}#" in readme, page
    for page in pages():
        folder = os.path.dirname(page)
        prose = re.sub(r"`[^`\n]*`", "", page_text(page))  # (code spans hold calls, not links: `self.a['b'](x)`)
        for target, anchor in re.findall(r"\]\(([^)#\s]+)(?:#([^)]*))?\)", prose):
            if "://" in target:
                continue
            path = os.path.normpath(os.path.join(folder, target))
            assert os.path.exists(os.path.join(ROOT, path)), (page, target)
            if anchor:
                assert anchor in _anchors(path), (page, target, anchor)


def _anchors(page: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", page_text(page), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}
