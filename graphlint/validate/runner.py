"""Run a job in a child process with a wall-clock timeout and a memory limit.

The child (:mod:`graphlint.validate.child`) imports MindSpore and user code;
this side never does. A hang, a crash (signal), an import error or a memory
blow-up becomes a result record, and the child's whole process group is
killed so nothing is left behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

DEFAULT_TIMEOUT = 300.0
DEFAULT_MEMORY_MB = 16384
INSTALL = "pip install 'mindspore-graphlint[validate]'"
_HAS_MINDSPORE = "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('mindspore') else 3)"


@dataclass
class RunRecord:
    """What happened in one mode."""

    mode: str
    status: str  # "ok" | "error" | "crashed" | "timeout" | "not-run"
    outputs: list = field(default_factory=list)
    error_type: str = ""
    summary: str = ""
    message: str = ""
    seconds: list = field(default_factory=list)
    record: dict = field(default_factory=dict)  # the child's whole record (a ``parts`` run's compiles)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def describe(self) -> str:
        if self.status == "ok":
            return "ran"
        if self.status == "error":
            return f"{self.error_type}: {self.summary}"
        return self.summary or self.status


@dataclass
class JobResult:
    runs: dict[str, RunRecord]
    returncode: int | None
    stderr_tail: str = ""
    setup_error: str = ""

    def __getitem__(self, mode: str) -> RunRecord:
        return self.runs[mode]


def mindspore_problem(python: str = "") -> str:
    """Why ``python`` ("": this interpreter) cannot run what ``--validate`` runs ("" when it has MindSpore). Asked
    once, before any fix is validated: without it every fix would be refused for a reason that is not the fix's."""
    interpreter = python or sys.executable
    try:
        found = subprocess.run([interpreter, "-c", _HAS_MINDSPORE], stdin=subprocess.DEVNULL, capture_output=True,
                               text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        why = getattr(exc, "strerror", "") or exc
        return f"--validate runs MindSpore with {interpreter}, which does not run: {why}"
    if found.returncode == 3:
        if not python:
            return (f"--validate runs MindSpore, and this Python ({interpreter}) has no MindSpore: install it with "
                    f"{INSTALL}, or name a Python that has it with --python PATH")
        return (f"--validate runs MindSpore with {interpreter}, which has no MindSpore: install it there with "
                f"{interpreter} -m {INSTALL}")
    if found.returncode != 0:
        return f"--validate runs MindSpore with {interpreter}, which fails: {_last_line(found.stderr)}"
    return ""


def _limit_memory(megabytes: int):
    def apply() -> None:
        import resource  # here: POSIX only, and run in the forked child before it execs

        limit = megabytes * 1024 * 1024
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):  # pragma: no cover - platform refuses
            pass

    return apply


def run_job(job: dict, *, timeout: float = DEFAULT_TIMEOUT, memory_mb: int = DEFAULT_MEMORY_MB,
            python: str | None = None, env: dict | None = None) -> JobResult:
    """Run ``job`` in a fresh interpreter and collect one record per requested mode."""
    modes = list(job.get("runs", ["pynative", "graph"]))
    with tempfile.TemporaryDirectory(prefix="graphlint-run-") as workdir:
        job_path = os.path.join(workdir, "job.json")
        result_path = os.path.join(workdir, "result.json")
        with open(job_path, "w", encoding="utf-8") as handle:
            json.dump(job, handle)
        child_env = dict(os.environ if env is None else env)
        child_env.setdefault("GLOG_v", "3")  # MindSpore: errors only on stderr
        # The child must import graphlint.validate.child from this checkout/installation.
        package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        child_env["PYTHONPATH"] = os.pathsep.join(
            [package_root] + [p for p in child_env.get("PYTHONPATH", "").split(os.pathsep) if p])
        command = [python or sys.executable, "-m", "graphlint.validate.child", job_path, result_path]
        process = subprocess.Popen(
            command, cwd=workdir, env=child_env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True, preexec_fn=_limit_memory(memory_mb),
        )
        timed_out = False
        try:
            _, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(process)
            _, stderr = process.communicate()
        finally:
            _kill_group(process)
        stderr_text = stderr.decode("utf-8", "replace")[-4000:]
        raw: dict = {}
        if os.path.exists(result_path):
            try:
                with open(result_path, encoding="utf-8") as handle:
                    raw = json.load(handle)
            except (OSError, ValueError):
                raw = {}
    return _collect(modes, raw, process.returncode, timed_out, timeout, stderr_text)


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _collect(modes, raw, returncode, timed_out, timeout, stderr_text) -> JobResult:
    runs: dict[str, RunRecord] = {}
    setup_error = ""
    if "import_error" in raw:
        setup_error = f"MindSpore could not be imported: {raw['import_error'].get('summary', '')}"
    elif not raw:
        setup_error = _last_line(stderr_text) or f"the child process exited with status {returncode}"
    in_progress = raw.get("in_progress")
    for mode in modes:
        record = raw.get("runs", {}).get(mode)
        if record is not None:
            runs[mode] = RunRecord(
                mode=mode, status=record["status"], outputs=record.get("outputs", []),
                error_type=record.get("error_type", ""), summary=record.get("summary", ""),
                message=record.get("message", ""), seconds=record.get("seconds", []), record=record,
            )
        elif mode == in_progress and timed_out and raw.get("partial"):
            # (port mode's probe keeps what it found so far: the compiles it finished are reported)
            runs[mode] = RunRecord(mode, "ok", record={**raw["partial"], "timed_out": timeout})
        elif mode == in_progress and timed_out:
            runs[mode] = RunRecord(mode, "timeout", summary=f"no result within {timeout:g} s (hang?)")
        elif mode == in_progress:
            runs[mode] = RunRecord(mode, "crashed", summary=_crash_summary(returncode, stderr_text))
        else:
            runs[mode] = RunRecord(mode, "not-run", summary=setup_error or "not reached")
    return JobResult(runs=runs, returncode=returncode, stderr_tail=stderr_text, setup_error=setup_error)


def _crash_summary(returncode: int | None, stderr_text: str) -> str:
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"the process was killed by {name}"
    if returncode == -9 or "MemoryError" in stderr_text:
        return "the process ran out of memory"
    return f"the process exited with status {returncode}: {_last_line(stderr_text)}"


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
