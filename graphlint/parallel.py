"""``--jobs N``: check a parsed project's modules in N processes that share its cross-file index.

The parent reads and parses every file and discovers the graph scope once (which functions are graph code, in
which file, reached from which entry); then it forks N - 1 workers. Each worker inherits the whole project and
analysis copy-on-write, so helpers and Cell bases defined in other files resolve exactly as in one process.
Workers and the parent take runs of neighbouring modules from a shared counter and the workers send their findings
back as plain records. A worker that dies is not fatal: the parent checks what it had taken.
"""

from __future__ import annotations

import os
import pickle
import signal

from graphlint.collector import frozen_for_fork
from graphlint.results import finding_from_record, finding_to_record


CHUNKS_PER_JOB = 4


def available() -> bool:
    return hasattr(os, "fork") and hasattr(os, "waitpid")


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def worth_it(session, work, jobs: int) -> bool:
    """Forking pays off once there are a few modules with graph code per process."""
    return sum(1 for _shown, info in work if session.analysis.graph_functions(info)) >= 2 * jobs


def _cost(session, info) -> int:
    """Work estimate of a module: the lines of its graph functions (modules without graph code are cheap)."""
    total = 0
    for graph in session.analysis.graph_functions(info):
        node = graph.node
        total += (getattr(node, "end_lineno", None) or node.lineno or 0) - (node.lineno or 0) + 1
    return total


def check_modules(session, work, jobs: int, progress=None, fix_markers: bool = False) -> list:
    """``[(findings, fixes, problem)]`` for ``work`` (``[(shown path, ModuleInfo)]``), as
    :meth:`LintSession.check_module` gives them, computed in ``jobs`` processes."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    costs = [_cost(session, info) for _shown, info in work]
    # Modules next to each other (in path order) mostly import the same helpers and bases, whose facts the
    # analysis computes lazily: a process that checks a run of neighbours computes them once. The work is cut
    # into runs of neighbours of about equal cost, a few per process, claimed from a shared counter.
    order = sorted(range(len(work)), key=lambda i: work[i][0])
    chunks: list[list[int]] = [[]]
    budget = max(1, sum(costs) // (jobs * CHUNKS_PER_JOB))
    spent = 0
    for index in order:
        if spent >= budget and chunks[-1]:
            chunks.append([])
            spent = 0
        chunks[-1].append(index)
        spent += costs[index]
    counter = context.Value("i", 0)

    def claim(worker: int):
        with counter.get_lock():
            position = counter.value
            if position >= len(chunks):
                return None
            counter.value = position + 1
        return chunks[position]

    outcomes: dict[int, tuple] = {}
    # Facts of the whole project (which Cells are sub-cells of others, host-side changes, ...) are computed
    # lazily by the first module that needs them: check a small module with graph code before forking, so
    # the workers inherit them instead of each computing them again.
    primer = min((i for i in order if costs[i] > 0), key=lambda i: costs[i], default=None)
    if primer is not None:
        for chunk in chunks:
            if primer in chunk:
                chunk.remove(primer)
        outcomes[primer] = session.check_module(*work[primer], fix_markers)
        if progress is not None:
            progress.update(1, detail=work[primer][0])
    if fix_markers:
        import graphlint.fixers.base  # noqa: F401 - libcst and the fixers: imported once, before the fork

    workers = []
    with frozen_for_fork():
        for number in range(1, jobs):
            reader, writer = context.Pipe(duplex=False)
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the worker
                _worker(session, work, claim, number, reader, writer, fix_markers)
            writer.close()
            workers.append((pid, reader))
    try:
        done = 0
        while True:
            chunk = claim(0)
            if chunk is None:
                break
            for index in chunk:
                shown, info = work[index]
                outcomes[index] = session.check_module(shown, info, fix_markers)
                done += 1
                if progress is not None:  # what the parent did, and the runs the workers took
                    progress.update(min(len(work), max(done, len(work) * counter.value // len(chunks))),
                                    detail=shown)
        for pid, reader in workers:
            try:
                records = reader.recv()
            except (EOFError, OSError, pickle.UnpicklingError):
                records = []
            reader.close()
            for index, status, found, problem in records:
                if status != "ok":
                    outcomes[index] = ([], {}, problem)
                    continue
                findings, fixes = [], {}
                for record in found:
                    finding, fix = finding_from_record(record)
                    findings.append(finding)
                    if fix:
                        fixes[id(finding)] = fix
                outcomes[index] = (findings, fixes, "")
            _reap(pid)
        workers = []
    finally:
        for pid, reader in workers:  # interrupted: stop the workers
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
            _reap(pid)
    for index, (shown, info) in enumerate(work):  # what a worker took but did not return (it died)
        if index not in outcomes:
            outcomes[index] = session.check_module(shown, info, fix_markers)
    if progress is not None:
        progress.update(len(work))
    return [outcomes[index] for index in range(len(work))]


def _worker(session, work, claim, number, reader, writer, fix_markers):  # pragma: no cover - in the worker
    status = 0
    try:
        reader.close()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        records = []
        while True:
            chunk = claim(number)
            if chunk is None:
                break
            for index in chunk:
                shown, info = work[index]
                try:
                    findings, fixes, problem = session.check_module(shown, info, fix_markers)
                except Exception as exc:  # noqa: BLE001 - reported by the parent like any internal error
                    records.append((index, "error", [], f"internal error: {type(exc).__name__}: {exc}"))
                    continue
                if problem:
                    records.append((index, "problem", [], problem))
                else:
                    records.append((index, "ok", [finding_to_record(f, fixes.get(id(f))) for f in findings], ""))
        writer.send(records)
        writer.close()
    except BaseException:  # noqa: BLE001 - whatever happens, never return into the parent's code
        status = 1
    finally:
        os._exit(status)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
