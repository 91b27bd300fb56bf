"""Every command and configuration snippet of README.md, executed.

The README is read into fenced blocks (with the section they are in) and inline ``graphlint ...`` commands; each
is run the way a reader would: shell commands with bash, the configuration as a pyproject.toml, the pre-commit
configurations with real pre-commit. A block this file does not know how to run fails the test
(:func:`test_every_block_is_run`). The section "In the editor" belongs to the editor set-ups, whose snippets
tests/test_server_editors.py and tests/test_server.py run; its blocks are listed, not run, here.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap

import pytest

from tests.support import BROKEN_CELL, CLEAN_CELL, ROOT, write

README = os.path.join(ROOT, "README.md")
BIN = os.path.dirname(sys.executable)
EDITOR_SECTION = "## In the editor"
FIXABLE = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            x += 1
            return x * 2
    """)  # the README's full-format example


def blocks():
    """[(section heading, language, text)] of the README's fenced blocks."""
    found, section, language, lines = [], "", None, []
    with open(README, encoding="utf-8") as handle:
        for line in handle:
            if language is None and line.startswith("## "):
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


def section_blocks(heading: str, language: str) -> list[str]:
    return [text for section, lang, text in blocks() if section.startswith(heading) and lang == language]


def inline_commands() -> list[str]:
    """`graphlint ...` code spans outside fenced blocks and outside the editor section."""
    commands, section, fenced = [], "", False
    with open(README, encoding="utf-8") as handle:
        for line in handle:
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
    """Each fenced block is one this file runs; a new kind of snippet needs a test here."""
    known = {("## Try it", "sh"): 2, ("## Usage", "sh"): 1, ("## Usage", "text"): 1, ("## Usage", "toml"): 1,
             ("## Usage", "console"): 1,
             ("## pre-commit", "yaml"): 2}
    counted = {}
    for section, language, _text in blocks():
        if section.startswith(EDITOR_SECTION):
            continue  # the editor set-ups: run by tests/test_server_editors.py and tests/test_server.py
        key = (section, language)
        assert key in known, f"a README block this test does not run: {key}"
        counted[key] = counted.get(key, 0) + 1
    assert counted == known


def test_the_test_command_is_what_ci_runs():
    _install, test_command = section_blocks("## Try it", "sh")
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as handle:
        ci = [line.strip() for line in handle if line.strip() and not line.startswith("#")]
    assert test_command.strip() in ci, (test_command, ci)
    assert "pytest" in test_command and "-q -e '.[test]'" in test_command


@pytest.mark.compile
def test_the_first_command_on_a_fresh_clone(tmp_path):
    """`git clone`, then the README's first command, exactly: it exits 0 (it installs MindSpore, lints the example
    and shows the validated fixes)."""
    install, _test = section_blocks("## Try it", "sh")
    assert "~800 MB" in open(README, encoding="utf-8").read().split("```sh")[0]
    clone = tmp_path / "graphlint"
    subprocess.run(["git", "clone", "-q", ROOT, str(clone)], check=True, capture_output=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    result = subprocess.run(["bash", "-c", install.strip()], cwd=clone, env=env, capture_output=True, text=True,
                            timeout=3600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "examples/model.py" in result.stdout and "+++ b/examples/model.py" in result.stdout


def test_usage_commands(tmp_path):
    project(tmp_path)
    [usage] = section_blocks("## Usage", "sh")
    commands = [line for line in usage.splitlines() if line.strip()]
    assert len(commands) >= 10
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
    assert "x = x + 1" in (tmp_path / "src" / "model.py").read_text()  # --fix ran


def test_inline_commands(tmp_path):
    """`graphlint --help`, `graphlint --explain try-in-graph`, `graphlint check server` ... as the prose says."""
    project(tmp_path)
    write(tmp_path, "server/model.py", BROKEN_CELL)
    log = ("RuntimeError: Unsupported statement 'Try'.\n\n- The Traceback of Net Construct Code:\n"
           f"# In file {tmp_path}/server/model.py:7~10, 8~17\n        try:\n")
    write(tmp_path, "build.log", log)
    commands = sorted(set(inline_commands()))
    assert "graphlint --list-rules" in commands and "graphlint check server" in commands
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
    [block] = section_blocks("## Usage", "console")
    command, *expected = block.splitlines()
    assert command.startswith("$ graphlint ") and "--unsafe-fixes --validate" in command
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    result = bash(command[2:], tmp_path)
    assert result.returncode in (0, 1), result.stderr
    assert result.stderr.splitlines() == expected, result.stderr


def test_the_full_format_example(tmp_path):
    [example] = section_blocks("## Usage", "text")
    write(tmp_path, "src/model.py", FIXABLE)
    result = bash("graphlint --output-format full src/model.py", tmp_path)
    assert result.returncode == 1
    assert example in result.stdout, result.stdout
    summary = " ".join(re.search(r"`(Found [^`]+)`", open(README, encoding="utf-8").read()).group(1).split())
    assert re.fullmatch(r"Found \d+ errors, \d+ warnings in \d+ files \(\d+ fixable with --fix, \d+ more with "
                        r"--fix --unsafe-fixes\)\.", summary)


def test_the_configuration_snippet(tmp_path):
    [snippet] = section_blocks("## Usage", "toml")
    project(tmp_path)
    write(tmp_path, "pyproject.toml", snippet)
    from graphlint.config import config_for

    config = config_for(str(tmp_path))
    assert config.select == ("E", "W") and config.extend_select == ("I5701",)
    assert config.per_file_ignores == (("tests/*", ("W55",)), ("scripts/export_*.py", ("warning", "info")))
    assert set(config.validate_inputs) == {"mypkg.model:Net", "mypkg.model:Block", "mypkg.model:Head"}
    result = bash("graphlint --output-format json .", tmp_path)
    assert result.returncode == 1 and result.stderr == "", result.stderr
    import json

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
    [snippet] = section_blocks("## Usage", "toml")
    project(tmp_path)
    write(tmp_path, "pyproject.toml", snippet)
    model = (tmp_path / "mypkg" / "model.py").read_text()
    assert "        return ops.relu(x) * 2\n" in model
    write(tmp_path, "mypkg/model.py", model.replace("        return ops.relu(x) * 2\n",
                                                    "        x += 1\n        return ops.relu(x) * 2\n"))
    result = bash("graphlint --diff --validate --show-fixes mypkg/", tmp_path, timeout=1800)
    assert result.returncode == 1, result.stderr
    assert "x = x + 1" in result.stdout and "validation failed" not in result.stderr, result.stderr


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
    local, _remote = section_blocks("## pre-commit", "yaml")
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


@pytest.mark.skipif(not os.path.isdir(os.path.join(ROOT, ".git")), reason="needs this checkout's git repository")
def test_pre_commit_remote_hooks_with_a_commit_id(tmp_path):
    """The second snippet with this checkout as the URL: its rev is a commit of this repository that has both
    hooks; `pre-commit autoupdate` pins the newest commit; the hooks then run from pre-commit's own install."""
    _local, remote = section_blocks("## pre-commit", "yaml")
    rev = re.search(r"rev: (\S+)", remote).group(1)
    assert re.fullmatch(r"[0-9a-f]{40}", rev), rev
    hooks = subprocess.run(["git", "show", f"{rev}:.pre-commit-hooks.yaml"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout
    assert "- id: graphlint\n" in hooks and "- id: graphlint-fix\n" in hooks
    url = re.search(r"repo: (\S+)", remote).group(1)
    repo = _pre_commit_project(tmp_path)
    write(repo, ".pre-commit-config.yaml", remote.replace(url, ROOT))
    _git("add", ".", cwd=repo)
    update = _pre_commit("autoupdate", cwd=repo, home=tmp_path / "home")
    assert update.returncode == 0, update.stdout + update.stderr
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    config = (repo / ".pre-commit-config.yaml").read_text()
    assert f"rev: {head}" in config, config
    _git("add", ".", cwd=repo)
    run = _pre_commit("run", "graphlint", "--files", "broken.py", "clean.py", cwd=repo, home=tmp_path / "home")
    assert run.returncode == 1 and "broken.py:7:9: E5101 try-in-graph" in run.stdout, run.stdout + run.stderr


def test_readme_shell_commands_parse():
    """Every shell line of the README is one bash accepts as written (no placeholder such as PATH...)."""
    for section, language, text in blocks():
        if language != "sh":
            continue
        for line in text.splitlines():
            if line.strip():
                shlex.split(line, comments=True)
                assert "..." not in line.split("#")[0], (section, line)


def test_the_fix_table_lists_every_rule_a_fixer_rewrites():
    """The README's "What `--fix` rewrites" table names each rule that has a fixer (ids or ranges like W5301-W5303)."""
    from graphlint.fixers import FIXERS

    with open(README, encoding="utf-8") as handle:
        text = handle.read()
    table = text.split("What `--fix` rewrites", 1)[1].split("\n\n", 2)[1]
    listed = set()
    for row in table.splitlines()[2:]:
        cell = row.split("|")[1]
        for part in re.findall(r"[EWI]\d{4}(?:-[EWI]\d{4})?", cell):
            first, _, last = part.partition("-")
            listed.update(f"{first[0]}{n}" for n in range(int(first[1:]), int((last or first)[1:]) + 1))
    assert sorted(set(FIXERS) - listed) == []
