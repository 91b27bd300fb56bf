"""Compile many small programs in few child processes (the coverage matrix, measurement scripts).

Importing MindSpore costs seconds; compiling a small program a fraction of that. A batch child
(``python -m graphlint.validate.batch JOB RESULT``) runs one program after the other, each in its own module,
with the runs of :mod:`graphlint.validate.child` (``pynative``, ``graph``, ``strict``, ``mindir``, ``trace``), and rewrites
its result file after every run. When a program crashes the process or hangs, the parent records that run as
crashed (or timed out) and starts a new child for the programs left; so does a child that stops after a traced
run that raised (MindSpore's trace then stays open in that process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from graphlint.validate.runner import RunRecord, _crash_summary, _kill_group, _limit_memory

PER_PROGRAM_TIMEOUT = 120.0


def run_programs(programs: list[dict], *, per_program_timeout: float = PER_PROGRAM_TIMEOUT,
                 memory_mb: int = 8192, log=None) -> list[dict[str, RunRecord]]:
    """``programs``: job dicts as :mod:`graphlint.validate.child` takes them (``source``, ``entry``, ``inputs``,
    ``runs``). Returns, per program, its records by run mode."""
    results: list[dict[str, RunRecord] | None] = [None] * len(programs)
    pending = list(range(len(programs)))
    while pending:
        done, interrupted, stopped = _run_child([(index, programs[index]) for index in pending],
                                                per_program_timeout, memory_mb)
        for index, records in done.items():
            results[index] = records
        if interrupted is not None:
            index, mode, record = interrupted
            partial = done.get(index) or {}
            partial[mode] = record
            for other in programs[index].get("runs", ["pynative", "graph"]):
                partial.setdefault(other, RunRecord(other, "not-run", summary="an earlier run crashed"))
            results[index] = partial
            if log:
                log(f"program {index}: {mode} {record.status}: {record.summary}")
        pending = [index for index in pending if results[index] is None]
        if interrupted is None and pending and stopped:
            continue  # (the child stopped on purpose: a fresh one takes the rest)
        if interrupted is None and pending:  # the child ended without reporting them: should not happen
            for index in pending:
                results[index] = {mode: RunRecord(mode, "not-run", summary="not reached")
                                  for mode in programs[index].get("runs", ["pynative", "graph"])}
            pending = []
    return [r or {} for r in results]


def _run_child(indexed: list[tuple[int, dict]], per_program_timeout: float, memory_mb: int):
    with tempfile.TemporaryDirectory(prefix="graphlint-batch-") as workdir:
        job_path, result_path = os.path.join(workdir, "job.json"), os.path.join(workdir, "result.json")
        with open(job_path, "w", encoding="utf-8") as handle:
            json.dump({"programs": [program for _, program in indexed]}, handle)
        env = dict(os.environ)
        env.setdefault("GLOG_v", "3")
        package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join([package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        process = subprocess.Popen([sys.executable, "-m", "graphlint.validate.batch", job_path, result_path],
                                   cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, start_new_session=True,
                                   preexec_fn=_limit_memory(memory_mb))
        timed_out = False
        last_progress, last_count = time.monotonic(), -1
        stderr_chunks = []
        try:
            while process.poll() is None:
                time.sleep(0.2)
                count = _progress(result_path)
                if count != last_count:
                    last_progress, last_count = time.monotonic(), count
                elif time.monotonic() - last_progress > per_program_timeout:
                    timed_out = True
                    break
        finally:
            _kill_group(process)
            try:
                _, stderr = process.communicate(timeout=30)
                stderr_chunks.append(stderr.decode("utf-8", "replace")[-4000:])
            except subprocess.TimeoutExpired:
                pass
        raw = _read(result_path)
    done: dict[int, dict[str, RunRecord]] = {}
    for position, runs in enumerate(raw.get("programs", [])):
        if runs is None:
            continue
        index = indexed[position][0]
        done[index] = {mode: _record(mode, record) for mode, record in runs.items()}
    interrupted = None
    current = raw.get("in_progress")
    if current is not None:
        position, mode = current
        index = indexed[position][0]
        done.pop(index, None)
        partial = {m: _record(m, r) for m, r in (raw.get("partial") or {}).items()}
        if timed_out:
            record = RunRecord(mode, "timeout", summary=f"no result within {per_program_timeout:g} s (hang?)")
        else:
            record = RunRecord(mode, "crashed", summary=_crash_summary(process.returncode, "".join(stderr_chunks)))
        done[index] = partial
        interrupted = (index, mode, record)
    elif raw.get("stopped"):
        return done, None, True
    elif not raw.get("finished"):
        first = next((i for i, _ in indexed if i not in done), None)
        if first is not None:
            mode = indexed[[i for i, _ in indexed].index(first)][1].get("runs", ["pynative"])[0]
            interrupted = (first, mode, RunRecord(mode, "crashed", summary=_crash_summary(
                process.returncode, "".join(stderr_chunks))))
            done[first] = {}
    return done, interrupted, False


def _record(mode: str, record: dict) -> RunRecord:
    return RunRecord(mode=mode, status=record["status"], outputs=record.get("outputs", []),
                     error_type=record.get("error_type", ""), summary=record.get("summary", ""),
                     message=record.get("message", ""), seconds=record.get("seconds", []))


def _read(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


def _progress(path: str) -> int:
    """Changes whenever the child rewrites its result file (after every run)."""
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def main(argv: list[str]) -> int:
    """The child: run every program of the job, one after the other."""
    # imported here: the child's own code, in the child process only (the parent imports this module too)
    from graphlint.validate.child import _error_record, _in_thread, _one_run, _write, trace_left_open

    job_path, result_path = argv[1], argv[2]
    with open(job_path, encoding="utf-8") as handle:
        programs = json.load(handle)["programs"]
    result: dict = {"programs": [None] * len(programs), "in_progress": None, "partial": {}}
    _write(result_path, result)
    import mindspore  # noqa: F401 - once, for the whole batch

    for position, program in enumerate(programs):
        program = dict(program)
        program.setdefault("module_name", f"graphlint_program_{position}")
        runs: dict = {}
        for run_index, mode in enumerate(program.get("runs", ["pynative", "graph"])):
            result["in_progress"], result["partial"] = (position, mode), runs
            _write(result_path, result)
            try:
                if mode == "trace":
                    runs[mode] = _in_thread(_one_run, program, mode, run_index)
                else:
                    runs[mode] = _one_run(program, mode, run_index)
            except BaseException as exc:  # user code may raise anything
                runs[mode] = _error_record(exc)
        result["programs"][position], result["in_progress"], result["partial"] = runs, None, {}
        if "trace" in runs and trace_left_open() and position + 1 < len(programs):
            # A traced call that raises leaves MindSpore 2.10's trace open: every later traced function of the
            # process then runs eagerly (measured). A fresh process takes the programs left.
            result["stopped"] = True
            _write(result_path, result)
            return 0
        _write(result_path, result)
    result["finished"] = True
    _write(result_path, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
