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


def cost(session, info) -> int:
    """Work estimate of a module: the lines of its graph functions (modules without graph code are cheap)."""
    total = 0
    for graph in session.analysis.graph_functions(info):
        node = graph.node
        total += (getattr(node, "end_lineno", None) or node.lineno or 0) - (node.lineno or 0) + 1
    return total


def neighbour_chunks(session, work, jobs: int, costs: list[int]) -> list[list[int]]:
    """Indexes of ``work`` cut into runs of neighbours (in path order) of about equal cost, a few per process.

    Modules next to each other mostly import the same helpers and bases, whose facts the analysis computes
    lazily: a process that checks a run of neighbours computes them once."""
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
    return chunks


def check_modules(session, work, jobs: int, progress=None, fix_markers: bool = False) -> list:
    """``[(findings, fixes, problem)]`` for ``work`` (``[(shown path, ModuleInfo)]``), as
    :meth:`LintSession.check_module` gives them, computed in ``jobs`` processes."""
    costs = [cost(session, info) for _shown, info in work]
    chunks = neighbour_chunks(session, work, jobs, costs)

    def check(indexes):
        return {index: session.check_module(*work[index], fix_markers) for index in indexes}

    outcomes = run_chunks(chunks, jobs, check, _check_record, _check_from_record, progress,
                          primer=primer(costs), label=lambda index: work[index][0],
                          before_fork=_import_fixers if fix_markers else None)
    return [outcomes[index] for index in range(len(work))]


def _check_record(outcome):
    findings, fixes, problem = outcome
    if problem:
        return ("problem", [], problem)
    return ("ok", [finding_to_record(f, fixes.get(id(f))) for f in findings], "")


def _check_from_record(record):
    status, found, problem = record
    if status != "ok":
        return [], {}, problem
    findings, fixes = [], {}
    for item in found:
        finding, fix = finding_from_record(item)
        findings.append(finding)
        if fix:
            fixes[id(finding)] = fix
    return findings, fixes, ""


def _import_fixers() -> None:
    import graphlint.fixers.base  # noqa: F401 - libcst and the fixers: imported once, before the fork


def primer(costs: list[int]) -> int | None:
    """The cheapest index with graph code: run before forking (see :func:`run_chunks`)."""
    return min((i for i, c in enumerate(costs) if c > 0), key=lambda i: costs[i], default=None)


def run_chunks(chunks: list[list[int]], jobs: int, run, to_record, from_record, progress=None, *,
               primer: int | None = None, label=str, before_fork=None) -> dict:
    """``{index: run([index, ...])[index]}`` over every chunk of indexes, in ``jobs`` processes.

    ``run`` takes a chunk and gives ``{index: outcome}``; the parent keeps the outcomes of the chunks it runs
    itself, workers send theirs as ``to_record(outcome)`` (picklable), read back with ``from_record``. Workers
    are forked, so they inherit everything the parent holds (the project, its analysis) copy-on-write, and
    take chunks from a shared counter, as the parent does. A worker that dies (or fails on a chunk) is not
    fatal: the parent runs what it had taken.

    Facts of the whole project (which Cells are sub-cells of others, host-side changes, ...) are computed
    lazily by the first module that needs them: ``primer``, a small index, is run before forking so that the
    workers inherit them instead of each computing them again."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    chunks = [list(chunk) for chunk in chunks]
    total = sum(len(chunk) for chunk in chunks)
    counter = context.Value("i", 0)

    def claim():
        with counter.get_lock():
            position = counter.value
            if position >= len(chunks):
                return None
            counter.value = position + 1
        return chunks[position]

    outcomes: dict[int, object] = {}
    if primer is not None:
        for chunk in chunks:
            if primer in chunk:
                chunk.remove(primer)
        outcomes.update(run([primer]))
        if progress is not None:
            progress.update(1, detail=label(primer))
    if before_fork is not None:
        before_fork()

    workers = []
    with frozen_for_fork():
        for _number in range(1, jobs):
            reader, writer = context.Pipe(duplex=False)
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the worker
                _worker(run, to_record, claim, reader, writer)
            writer.close()
            workers.append((pid, reader))
    try:
        done = len(outcomes)
        while True:
            chunk = claim()
            if chunk is None:
                break
            outcomes.update(run(chunk))
            done += len(chunk)
            if progress is not None:  # what the parent did, and the runs the workers took
                progress.update(min(total, max(done, total * counter.value // max(1, len(chunks)))),
                                detail=label(chunk[-1]) if chunk else "")
        for pid, reader in workers:
            try:
                records = reader.recv()
            except (EOFError, OSError, pickle.UnpicklingError):
                records = {}
            reader.close()
            for index, record in records.items():
                outcomes[index] = from_record(record)
            _reap(pid)
        workers = []
    finally:
        for pid, reader in workers:  # interrupted: stop the workers
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
            _reap(pid)
    missing = [index for chunk in chunks for index in chunk if index not in outcomes]
    if missing:  # what a worker took but did not return (it died, or failed on the chunk)
        outcomes.update(run(missing))
    if progress is not None:
        progress.update(total)
    return outcomes


def _worker(run, to_record, claim, reader, writer):  # pragma: no cover - in the worker
    status = 0
    try:
        reader.close()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        records = {}
        while True:
            chunk = claim()
            if chunk is None:
                break
            try:
                outcomes = run(chunk)
            except Exception:  # noqa: BLE001 - the parent runs the chunk again, and reports what it raises
                continue
            for index, outcome in outcomes.items():
                records[index] = to_record(outcome)
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
