"""``--jobs N``: lint in N processes.

Lint (:func:`lint_partitioned`) forks before parsing: each process parses and summarises its share of the files,
the summaries are exchanged, and each checks its share; ``--fix`` (:mod:`graphlint.run.fix`) starts the same
way, then each process fixes the groups of modules :func:`fix_shares` gives it. Processes take neighbouring
files as they go and send their results back as plain records; a process that dies is not fatal. A project
whose trees would not fit the memory budget (``--max-memory``) is linted by :func:`lint_streamed` instead:
processes given one task at a time, each replaced by a fresh one before it outgrows its share.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
from collections import Counter, deque
from multiprocessing.connection import wait

from graphlint.analysis.scope import RunSummary
from graphlint.analysis.source import builder
from graphlint.collector import frozen_for_fork
from graphlint.run.incremental import ModuleResolver
from graphlint.run.records import check_from_record, check_unit, interfaces_of


# the runs of files each process of a partitioned lint summarises at a time (see lint_partitioned)
SUMMARY_RUNS_PER_JOB = 16


def available() -> bool:
    return hasattr(os, "fork") and hasattr(os, "waitpid")


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def neighbour_chunks(paths: list[str], costs: list[int], budget: int, rank=None) -> list[list[int]]:
    """Indexes of ``paths`` cut into runs of neighbours (in path order, within each ``rank[path]`` when given)
    that cost about ``budget`` each.

    Modules next to each other mostly import the same helpers and bases, whose facts the analysis computes
    lazily: a process that checks a run of neighbours computes them once."""
    chunks: list[list[int]] = [[]]
    spent = 0
    for index in sorted(range(len(paths)), key=lambda i: (rank.get(paths[i], 0) if rank else 0, paths[i])):
        if spent >= budget and chunks[-1]:
            chunks.append([])
            spent = 0
        chunks[-1].append(index)
        spent += costs[index]
    return [chunk for chunk in chunks if chunk]


def cost_regions(paths: list[str], costs: list[int], parts: int) -> list[list[int]]:
    """Indexes of ``paths``, in path order, cut into ``parts`` runs of neighbours of about equal cost."""
    ordered = sorted(range(len(paths)), key=lambda index: paths[index])
    total = sum(costs) or 1
    regions: list[list[int]] = [[] for _part in range(parts)]
    spent = 0
    for index in ordered:
        # (a file goes to the region its middle falls in)
        regions[min(parts - 1, (2 * spent + costs[index]) * parts // (2 * total))].append(index)
        spent += costs[index]
    return regions


def import_regions(regions: list[list[int]], needs: list[set[int]], costs: list[int], slack: float = 0.1,
                   rounds: int = 3) -> list[list[int]]:
    """``regions`` (of :func:`cost_regions`) with files moved between them where that lowers what each process
    would parse of modules another one owns: ``needs[i]``, the files file ``i`` imports. A move must keep its
    region within ``slack`` of an equal share of the cost (the processes even out the rest as they go).

    Cut in path order, a boundary falls inside a package, and each process parses again modules of the other's
    side that its own import: on mindcv + mindocr two processes parsed 9-13 % more source than one did, and 6 %
    once files had moved (the median of nine runs, 2-14 %: it depends on which process reaches a file first)."""
    parts, count = len(regions), len(costs)
    owner = [0] * count
    for region, files in enumerate(regions):
        for index in files:
            owner[index] = region
    # needed[j][r]: how many files of region r import file j
    needed = [[0] * parts for _index in range(count)]
    for index in range(count):
        for need in needs[index]:
            needed[need][owner[index]] += 1
    sizes = [sum(costs[index] for index in files) for files in regions]
    limit = sum(costs) / parts * (1 + slack)

    for _round in range(rounds):
        moved = False
        for files in regions:
            for index in files:
                here, best, best_gain = owner[index], None, 0
                for there in range(parts):
                    if there == here or sizes[there] + costs[index] > limit:
                        continue
                    # the file itself: parsed again by ``here`` (if it imports it) instead of by ``there``
                    gain = costs[index] * ((needed[index][there] > 0) - (needed[index][here] > 0))
                    # the files it imports: ``here`` may no longer read one, ``there`` may start to
                    for need in needs[index]:
                        if owner[need] != here and needed[need][here] == 1:
                            gain += costs[need]
                        if owner[need] != there and needed[need][there] == 0:
                            gain -= costs[need]
                    if gain > best_gain:
                        best, best_gain = there, gain
                if best is not None:
                    for need in needs[index]:
                        needed[need][here] -= 1
                        needed[need][best] += 1
                    owner[index] = best
                    sizes[here] -= costs[index]
                    sizes[best] += costs[index]
                    moved = True
        if not moved:
            break
    moved_regions: list[list[int]] = [[] for _part in range(parts)]
    for files in regions:
        for index in files:
            moved_regions[owner[index]].append(index)
    return moved_regions


def import_needs(to_parse: list) -> list[set[int]]:
    """For each file of ``to_parse`` (``[(shown path, SourceFile)]``), the indexes of the others it imports, as its
    text reads (:meth:`graphlint.run.incremental.ModuleResolver.imports_of`); a package's ``__init__.py`` stands for
    what it imports in turn (names are read through it)."""

    paths = [os.path.abspath(path) for path, _source in to_parse]
    index_of = {path: index for index, path in enumerate(paths)}
    resolver = ModuleResolver(paths)
    direct = [{index_of[found] for found in resolver.imports_of(path, source.text)}
              for path, (_shown, source) in zip(paths, to_parse)]
    packages = [os.path.basename(path) == "__init__.py" for path in paths]
    needs = []
    for index in range(len(to_parse)):
        found: set[int] = set()
        pending = list(direct[index])
        while pending:
            need = pending.pop()
            if need in found or need == index:
                continue
            found.add(need)
            if packages[need]:
                pending.extend(direct[need])
        needs.append(found)
    return needs


def walk_regions(regions: list[list[int]], start: int) -> list[int]:
    """The order in which the process given region ``start`` takes files: its region from the front, then the
    others' from the back (their own processes reach the back last)."""
    walk = list(regions[start % len(regions)])
    for step in range(1, len(regions)):
        walk.extend(reversed(regions[(start + step) % len(regions)]))
    return walk


def lint_partitioned(session, to_parse: list, unchecked: list, jobs: int, progress=None, fix_markers: bool = False,
                     fix_share=None):
    """Parse and check ``to_parse`` (``[(shown path, SourceFile)]``, read by :meth:`LintSession.read_files`) in
    ``jobs`` processes, each parsing only its share of the files; check the syntax of ``unchecked`` (``[(shown
    path, text)]``, the files that never mention MindSpore) on the way.

    Each process parses a region of neighbouring files (and of files they import: :func:`import_regions`), then what
    the others have not taken of theirs (one file at a time, from the far end), and summarises its modules as it
    goes: what they give the rest of the run (:meth:`Analysis.summarise`: entries, the functions each function
    references, per-module facts). The parent gathers the summaries and hands the whole to every process, and each
    discovers scope and the run's facts from it (:meth:`Analysis.share`). Each process then checks the modules it
    parsed and, once done, those another process has not started yet (parsing them). A module of another share that
    the analysis needs (a base class, a helper, a caller) is parsed from disk where it is needed; one that no
    process has taken yet is taken there.
    Gives ``({shown path: (findings, fixes, problem)}, [(path, problem)] met by the other processes, paths of the
    modules read)``, or None when a process failed (the caller then lints in one process).

    ``fix_share`` (``--fix --jobs``): instead of checking modules as they come, each process checks and fixes the
    modules :func:`fix_shares` gives it (whole groups of modules whose findings a fix can change, mostly those it
    parsed): ``fix_share(session, [(shown path, SourceFile or None)])`` gives ``{shown path: record}``, which
    the result carries as they are."""
    context = multiprocessing.get_context("fork")
    order = [os.path.abspath(path) for path, _source in to_parse]
    index_of = {path: index for index, path in enumerate(order)}
    costs = [len(source.text) for _path, source in to_parse]
    # Each process starts on a region of neighbouring files of its own, with the files they import, and ends on
    # the others' far ends: modules mostly need their neighbours (bases, helpers), which are then mostly its own.
    regions = import_regions(cost_regions([path for path, _source in to_parse], costs, jobs), import_needs(to_parse),
                             costs)
    summary_budget = max(1, sum(costs) // (jobs * SUMMARY_RUNS_PER_JOB))
    # One flag per file to parse, set by the process that takes it (the last slot counts those taken).
    taken_to_parse = context.Array("i", len(to_parse) + 1, lock=True)
    region_counter = context.Value("i", 0)
    # the syntax checks last, in small runs: what evens out the processes' work before the exchange
    syntax_runs = max(1, min(len(unchecked), 8 * jobs))
    claim_syntax, _counter = _claimer(context, [list(range(start, len(unchecked), syntax_runs))
                                                for start in range(syntax_runs) if start < len(unchecked)])
    # One flag per module to check (the run's parsed files, then the files reached by graph code that never
    # mention MindSpore): set by the process that checks it.
    taken = context.Array("b", len(to_parse) + len(session.project.unparsed), lock=True)

    def take(index: int) -> bool:
        with taken.get_lock():
            if taken[index]:
                return False
            taken[index] = 1
            return True

    def take_to_parse(index: int) -> bool:
        with taken_to_parse.get_lock():
            if taken_to_parse[index]:
                return False
            taken_to_parse[index] = 1
            taken_to_parse[len(to_parse)] += 1
            return True

    def parse_share():
        """Parse and summarise files until none is left (summarising each run as it is parsed keeps the
        processes' work even when they reach the exchange). A file of the run that the analysis needs before
        any process has taken it (a base class, a helper) is taken where it is needed, instead of being read
        there from disk and parsed by another process as well."""
        own, first_problem, parts, unsummarised = [], len(session.problems), [], []

        def parse(index: int) -> None:
            if session.parse_files([to_parse[index]]):
                own.append(index)
                unsummarised.append(index)

        def take_needed(path: str) -> bool:
            index = index_of.get(path)
            if index is None or not take_to_parse(index):
                return False
            parse(index)
            return True

        def summarise() -> None:
            while unsummarised:  # (summarising may take more files)
                infos = [session.project.by_path[order[index]] for index in unsummarised]
                unsummarised.clear()
                parts.append(session.analysis.summarise(infos))

        with region_counter.get_lock():
            region = region_counter.value
            region_counter.value += 1
        session.project.take_run_file = take_needed
        try:
            spent = 0
            for index in walk_regions(regions, region):
                if not take_to_parse(index):
                    continue
                parse(index)
                spent += costs[index]
                if spent >= summary_budget:
                    summarise()
                    spent = 0
                    if progress is not None:
                        progress.update(taken_to_parse[len(to_parse)], detail=to_parse[index][0])
            summarise()
        finally:
            session.project.take_run_file = None
        checked = []
        while (run := claim_syntax()) is not None:
            for index in run:
                session.check_syntax(*unchecked[index])
                checked.append(os.path.abspath(unchecked[index][0]))
        parts.append(session.analysis.summarise([], checked))
        problems = [(p.path, p.reason) for p in session.problems[first_problem:]]
        return own, RunSummary.gather(parts, order), problems

    def check_share(own, failed, owners, rank):
        """Records of the modules this process checks: its own, then any not taken yet (the last first); with
        ``fix_share``, the modules of its :func:`fix_shares` (``owners``: path -> the rank of the process that
        parsed it; ``rank``: this process's)."""
        units = [to_parse[index][0] for index in range(len(to_parse))]
        # Run files that never mention MindSpore are parsed only where graph code reaches them.
        units += [session.run_paths[path] for path in sorted(session.project.unparsed)
                  if path in session.analysis.scope.by_path]
        if fix_share is not None:
            mine = fix_shares(session, units, owners, jobs)[rank]
            return fix_share(session, [(units[index], to_parse[index][1] if index < len(to_parse) else None)
                                       for index in mine if units[index] not in failed])
        # Others' modules that this process has parsed already (for what its own need) are the cheapest to take.
        others = sorted(reversed(range(len(units))),
                        key=lambda index: os.path.abspath(units[index]) not in session.project.by_path)
        records = {}
        for index in own + others:
            shown = units[index]
            if shown in failed or not take(index):
                continue
            record = check_unit(session, shown, to_parse[index][1] if index < len(to_parse) else None, fix_markers)
            if record is not None:
                records[shown] = record
            if progress is not None:
                progress.update(sum(taken[:len(units)]), detail=shown)
        return records

    if fix_markers:
        _import_fixers()
    if progress is not None:
        progress.start("reading", len(to_parse))
    workers = _fork_workers(context, jobs, True,
                            lambda connection: _partition_worker(connection, parse_share, session, check_share))
    try:
        own, part, own_problems = parse_share()  # (already among the session's problems)
        answers = _answers(workers)
        if answers is None:
            return None
        parts = [part] + [worker_part for worker_part, _problems in answers]
        problems = [problem for _part, worker_problems in answers for problem in worker_problems]
        shared = RunSummary.gather(parts, order)
        failed = {path for path, _reason in problems + own_problems}
        # (each process's part names the modules it parsed: --fix gives each the groups it holds most of)
        owners = {path: rank for rank, each in enumerate(parts) for path in each.order}
        for rank, (_pid, connection) in enumerate(workers, start=1):
            connection.send((shared, failed, owners, rank))
        if progress is not None:
            progress.start("fixing" if fix_share else "checking", len(shared.order))
        session.analysis.share(shared)
        outcomes = check_share(own, failed, owners, 0)
        read = set(session.module_paths())
        answers = _answers(workers)
        if answers is None:
            return None
        for records, worker_read in answers:
            outcomes.update(records)
            read.update(worker_read)
        return _partitioned_answer(outcomes, problems, read, fix_share is not None)
    except (EOFError, OSError, pickle.UnpicklingError, RecursionError, MemoryError):
        return None  # (a worker is gone, or the parent's own share is too deep: one process says which file)
    finally:
        for pid, connection in workers:
            connection.close()
            _reap(pid)


def fix_shares(session, units: list[str], owners: dict[str, int], jobs: int) -> list[list[int]]:
    """The indexes of ``units`` (shown paths) each of ``jobs`` processes fixes, the same in every process (from
    the run's scope, which each discovers from the same summary).

    A fix changes only the bodies of graph functions, which the modules of their callers and helpers read
    (:meth:`Analysis.call_neighbour_paths`): such modules stay in one process, so that re-linting a rewrite sees
    the others' rewrites, as one process would. Each group goes to the process that parsed most of it
    (``owners``: path -> rank), so that few modules are parsed twice; a group nobody parsed, to the process
    with the fewest modules so far."""
    paths = [os.path.abspath(unit) for unit in units]
    place = {path: index for index, path in enumerate(paths)}
    parent = list(range(len(units)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    by_path = session.analysis.scope.by_path
    for index, path in enumerate(paths):
        if path in by_path:  # (a module without graph code: nothing to fix, nothing a fix changes)
            for neighbour in session.analysis.call_neighbour_paths(path):
                other = place.get(neighbour)
                if other is not None:
                    parent[root(other)] = root(index)
    groups: dict[int, list[int]] = {}
    for index in range(len(units)):
        groups.setdefault(root(index), []).append(index)
    shares: list[list[int]] = [[] for _rank in range(jobs)]
    unowned = []
    for members in groups.values():
        votes = Counter(owners[paths[index]] for index in members if paths[index] in owners)
        if votes:
            shares[min(votes, key=lambda rank: (-votes[rank], rank))].extend(members)
        else:
            unowned.append(members)
    for members in unowned:
        shares[min(range(jobs), key=lambda rank: (len(shares[rank]), rank))].extend(members)
    return [sorted(share) for share in shares]


def _partitioned_answer(records: dict, problems: list, read: set, fixing: bool):
    """What :func:`lint_partitioned` gives: the checks read back from their records (the fixes' records as
    they are)."""
    if fixing:
        return records, problems, read, {}
    return ({shown: check_from_record(record) for shown, record in records.items()}, problems, read,
            interfaces_of(records))


# astroid trees take about 20 bytes per byte of source, the analysis' facts about as much again (mindone 0.5.0:
# 41 MB of source, 824 MB of trees, a 1.5 GB process; with --jobs 2, 2.1 GB in all: each process also reads the
# modules of the other's share that its own reach)
MEMORY_PER_SOURCE_BYTE = 36
MEMORY_PER_EXTRA_PROCESS = 0.4  # (of a single process's)
# what a bounded process of the second pass needs: the modules its files call into and their bases (a helper's
# callers are read only where they were not checked before it: with them, checking one file of mindone 0.5.0 read
# up to 220 other modules, 340 MB)
PROCESS_MEMORY = 192 * 2**20
# what a bounded process of the first pass needs: parsing and summarising a task reads the modules its Cells'
# classes and bases come from (on mindone 0.5.0 each such process held 205-230 MB when it stopped)
SUMMARY_PROCESS_MEMORY = 224 * 2**20
# the default budget, per process of the run (--jobs): enough to keep every tree of projects of mindnlp's size
# (0.3.1: 665 MB in two processes); larger ones are linted by bounded processes
DEFAULT_MEMORY_PER_JOB = 350 * 2**20
# kept back from the budget: a process cannot tell what its next task will read, and checking one file can read
# 200 modules it had not (190 MB on mindone, where 0.1 let a run peak 7 % over the budget); this process also
# grows with the summaries it is sent
MEMORY_MARGIN = 0.2
# the source per task of a bounded process: small, so that a process can stop close to its budget
STREAM_TASK_BYTES = 256 * 1024


def memory_budget(megabytes: int | None, jobs: int = 1) -> int:
    """The bytes a run's processes may hold together: ``megabytes``, or by default :data:`DEFAULT_MEMORY_PER_JOB`
    for each of its ``jobs`` processes, and no more than three quarters of the memory available as the run
    starts (where the system says)."""
    if megabytes:
        return megabytes * 2**20
    budget = DEFAULT_MEMORY_PER_JOB * max(1, jobs)
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return min(budget, int(line.split()[1]) * 1024 * 3 // 4)
    except (OSError, ValueError, IndexError):
        pass
    return budget


def tree_memory(to_parse, jobs: int) -> int:
    """The bytes that keeping the run's trees alive would take, in ``jobs`` processes (an estimate)."""
    source = sum(len(source.text) for _path, source in to_parse)
    return int(source * MEMORY_PER_SOURCE_BYTE * (1 + MEMORY_PER_EXTRA_PROCESS * (jobs - 1)))


def needs_streaming(to_parse, jobs: int, budget: int) -> bool:
    """Would keeping the run's trees alive (with ``jobs`` processes) exceed ``budget`` bytes?"""
    return tree_memory(to_parse, jobs) > budget


def lint_streamed(session, to_parse: list, unchecked: list, jobs: int, budget: int, progress=None,
                  fix_markers: bool = False):
    """:func:`lint_partitioned` for runs too large to keep every tree alive (:func:`needs_streaming`), in
    processes that end before they outgrow their share of ``budget`` bytes (shared with this process).

    Two passes, each by short-lived processes that this one forks and feeds with tasks (runs of neighbouring
    files): the first parses and summarises its files and drops the trees (its process ends); this process
    gathers the summaries and discovers scope from them; the second parses each file again and checks it with
    the run's scope, which its processes inherit, callers' modules before their helpers' (:func:`callers_first`):
    what a checked module passes to the helpers it calls comes back here and goes to the processes forked later
    (:meth:`Analysis.arguments_passed_in`), which bind a helper's parameters from it instead of reading its
    callers again. A process that has outgrown its budget ends after its task and a fresh one takes over, so
    memory stays bounded whatever the size of the run, at the cost of parsing every file twice and the modules
    each process needs from elsewhere once per process. Same answer as :func:`lint_partitioned`, or None when a
    task failed twice (the caller then lints in one process)."""
    context = multiprocessing.get_context("fork")
    order = [os.path.abspath(path) for path, _source in to_parse]

    def summarise(chunk):
        first_problem, parsed, checked = len(session.problems), [], []
        for index in chunk:
            if index >= len(to_parse):
                session.check_syntax(*unchecked[index - len(to_parse)])
                checked.append(os.path.abspath(unchecked[index - len(to_parse)][0]))
            elif session.parse_files([to_parse[index]]):
                parsed.append(session.project.by_path[order[index]])
        part = session.analysis.summarise(parsed, checked)
        return part, [(p.path, p.reason) for p in session.problems[first_problem:]]

    sizes = [len(source.text) for _path, source in to_parse] + [len(text) for _path, text in unchecked]
    paths = [path for path, _source in to_parse] + [path for path, _text in unchecked]
    tasks = neighbour_chunks(paths, sizes, STREAM_TASK_BYTES)
    if progress is not None:
        progress.start("reading", len(paths))
    done = _run_bounded(context, jobs, tasks, summarise, budget, progress, session.module_paths,
                        SUMMARY_PROCESS_MEMORY)
    if done is None:
        return None
    outcomes, read = done
    parts = [part for part, _problems in outcomes.values()]
    problems = [problem for task in range(len(tasks)) for problem in outcomes[task][1]]
    shared = RunSummary.gather(parts, order)
    del parts, outcomes  # (the parent is part of the budget)
    failed = {path for path, _reason in problems}
    session.analysis.share(shared)
    # Discovering scope from the summaries reads the modules of functions reached that no summary covers: in a
    # process of its own, so that the checking processes inherit the scope and not those trees.
    if progress is not None:  # (a step of unknown length: the bar moves while it runs)
        progress.start("finding graph code", 0)
        progress.animate(True)
    try:
        done = _run_bounded(context, 1, [[]], lambda _chunk: session.analysis.scope, budget, None, set)
    finally:
        if progress is not None:
            progress.animate(False)
    if done is None:
        return None
    scope = done[0][0]
    session.analysis.share(shared, scope)

    units = [(path, source) for path, source in to_parse if path not in failed]
    # Run files that never mention MindSpore are checked where graph code reaches them.
    texts = dict(unchecked)
    units += [(session.run_paths[path], None) for path in sorted(session.project.unparsed)
              if path in scope.by_path and session.run_paths[path] not in failed]

    # A checked module hands on what its graph code passes to the helpers it calls; a helper whose callers were all
    # checked before it is bound from that instead of reading them again: callers first.
    analysis = session.analysis
    analysis.passed_arguments = {}

    def check(chunk):
        records, passed = {}, {}
        for index in chunk:
            shown = units[index][0]
            record = check_unit(session, shown, units[index][1], fix_markers)
            if record is None:
                continue
            records[shown] = record
            if record[0] != "ok":
                continue  # (its helpers read it, and meet the same problem, as in one process)
            try:
                found = analysis.arguments_passed_in(session.project.by_path[os.path.abspath(shown)])
            except RecursionError:
                continue
            analysis.passed_arguments.update(found)
            passed.update(found)
        return records, passed

    if fix_markers:
        _import_fixers()
    if progress is not None:
        progress.start("checking", len(units))
    sizes = [len(source.text) if source is not None else len(texts.get(shown, "")) for shown, source in units]
    shown_paths = [shown for shown, _source in units]
    tasks = neighbour_chunks(shown_paths, sizes, STREAM_TASK_BYTES, callers_first(scope, shown_paths))
    done = _run_bounded(context, jobs, tasks, check, budget, progress, session.module_paths,
                        on_done=lambda outcome: analysis.passed_arguments.update(outcome[1]))
    if done is None:
        return None
    outcomes, read_checking = done
    records = {}
    for task in range(len(tasks)):
        records.update(outcomes[task][0])
    return ({shown: check_from_record(record) for shown, record in records.items()}, problems,
            read | read_checking, interfaces_of(records))


def _resident() -> int:
    """This process's resident set, in bytes."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource  # here: POSIX only, and read only where /proc is missing (macOS)

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # (the peak; kilobytes on Linux)


def _private() -> int:
    """The memory only this process holds, in bytes: what it allocated and the pages it copied from its parent
    (a forked process's resident set counts the pages it shares, and misses those it copies)."""
    try:
        with open("/proc/self/smaps_rollup") as handle:
            return sum(int(line.split()[1]) * 1024 for line in handle if line.startswith("Private_"))
    except (OSError, ValueError, IndexError):
        return _resident()


def callers_first(scope, shown_paths: list[str]) -> dict[str, int]:
    """``{shown path: rank}``: the modules whose graph code calls into another's rank before it (in a cycle of
    calls, the first in path order goes first)."""
    shown_of = {os.path.abspath(shown): shown for shown in shown_paths}
    callees: dict[str, set] = {path: set() for path in shown_of}
    waiting = dict.fromkeys(shown_of, 0)  # callers not ranked yet
    for caller_key, referenced in scope.references_by_caller().items():
        caller = caller_key[0]
        for key, _where in referenced if caller in callees else ():
            callee = key[0]
            if callee != caller and callee in waiting and callee not in callees[caller]:
                callees[caller].add(callee)
                waiting[callee] += 1
    rank: dict[str, int] = {}
    ready = sorted(path for path, count in waiting.items() if count == 0)
    while len(rank) < len(shown_of):
        if not ready:  # a cycle: break it
            ready = [min(path for path in shown_of if path not in rank)]
        level, ready = sorted(ready), []
        for path in level:
            if path in rank:
                continue
            rank[path] = len(rank)
            for callee in sorted(callees[path]):
                waiting[callee] -= 1
                if waiting[callee] == 0 and callee not in rank:
                    ready.append(callee)
    return {shown_of[path]: order for path, order in rank.items()}


def _run_bounded(context, jobs: int, tasks: list[list[int]], run, memory: int, progress, farewell,
                 per_process: int | None = None, on_done=None):
    """``({task: run(tasks[task])}, union of farewell())`` over every task, in forked processes that share
    ``memory`` bytes with this one: up to ``jobs`` at a time, as many as the budget leaves ``per_process`` bytes
    each (default :data:`PROCESS_MEMORY`). ``on_done(outcome)`` is called here as each task's outcome arrives
    (processes forked later inherit what it changes). A process ends before the task that could take it past its
    share (a fresh one takes over), sending ``farewell()`` (a set of paths). A task whose process died is given
    again once; None if it fails again."""
    builder()  # (inherited by every process forked here, rather than made again by each)
    queue = deque(range(len(tasks)))
    attempts = [0] * len(tasks)
    outcomes: dict[int, object] = {}
    farewells: set = set()
    running: dict = {}  # connection -> [pid, task it holds or None]
    room = int(memory * (1 - MEMORY_MARGIN)) - _resident()
    per_process = PROCESS_MEMORY if per_process is None else per_process
    jobs = max(1, min(jobs, room // per_process))
    budget = max(per_process, room // jobs)

    def spawn():
        parent_end, child_end = context.Pipe()
        with frozen_for_fork():
            pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the worker
            parent_end.close()
            for other in running:
                other.close()
            _bounded_worker(child_end, tasks, run, budget, farewell)
        child_end.close()
        running[parent_end] = [pid, None]
        give(parent_end)

    def give(connection):
        task = queue.popleft() if queue else None
        if task is not None:
            attempts[task] += 1
        running[connection][1] = task
        connection.send(task)

    try:
        while queue or running:
            while queue and len(running) < jobs:
                spawn()
            for connection in wait(list(running)):
                state = running[connection]
                try:
                    message = connection.recv()
                except (EOFError, OSError, pickle.UnpicklingError):
                    message = ("gone",)
                if message[0] == "done":
                    _kind, task, outcome, retiring = message
                    outcomes[task] = outcome
                    if on_done is not None:
                        on_done(outcome)
                    state[1] = None
                    if progress is not None:
                        progress.advance(len(tasks[task]))
                    if not retiring:  # (else its farewell comes next)
                        give(connection)
                    continue
                if message[0] == "bye":
                    farewells.update(message[1])
                elif state[1] is not None:  # gone with a task: give it again, once
                    if attempts[state[1]] > 1:
                        return None
                    queue.append(state[1])
                connection.close()
                _reap(state[0])
                del running[connection]
        return outcomes, farewells
    finally:
        for connection, (pid, _task) in running.items():
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
            connection.close()
            _reap(pid)


def _bounded_worker(connection, tasks, run, budget: int, farewell):  # pragma: no cover - in the worker
    status = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        held, largest_step, first = _private(), 0, True
        while True:
            task = connection.recv()
            if task is None:
                break
            outcome = run(tasks[task])
            now = _private()
            if not first:  # (the first task reads what the process's files reach: no guide to the next)
                largest_step = max(largest_step, now - held)
            held, first = now, False
            retiring = held + largest_step > budget
            connection.send(("done", task, outcome, retiring))
            if retiring:
                break
        connection.send(("bye", set(farewell())))
        connection.close()
    except BaseException:  # noqa: BLE001 - the parent gives the task again; never return into its code
        status = 1
    finally:
        os._exit(status)


def _answers(workers) -> list | None:
    """``[(payload, payload)]``: what each worker sent for the current step, or None when one failed."""
    answers = []
    for _pid, connection in workers:
        status, first, second = connection.recv()
        if status != "ok":
            return None
        answers.append((first, second))
    return answers


def _partition_worker(connection, parse_share, session, check_share):  # pragma: no cover - in the worker
    status = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        try:
            own, part, problems = parse_share()
        except Exception:  # noqa: BLE001 - the parent lints in one process instead
            connection.send(("failed", None, []))
            raise
        connection.send(("ok", part, problems))
        shared, failed, owners, rank = connection.recv()
        session.analysis.share(shared)
        try:
            records = check_share(own, failed, owners, rank)
        except Exception:  # noqa: BLE001 - as above
            connection.send(("failed", None, []))
            raise
        connection.send(("ok", records, session.module_paths()))
        connection.close()
    except BaseException:  # noqa: BLE001 - whatever happens, never return into the parent's code
        status = 1
    finally:
        os._exit(status)


def _fork_workers(context, jobs: int, duplex: bool, child) -> list:
    """Fork ``jobs`` - 1 workers, each given its end of a pipe (the writing end unless ``duplex``) to run
    ``child(connection)``, which never returns; ``[(pid, the parent's end)]``."""
    workers = []
    with frozen_for_fork():
        for _number in range(1, jobs):
            parent_end, child_end = context.Pipe(duplex=duplex)  # (reader, writer) when not duplex
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the worker
                parent_end.close()
                child(child_end)
            child_end.close()
            workers.append((pid, parent_end))
    return workers


def _claimer(context, chunks: list):
    """(``claim()``: the next chunk no process has taken, or None; the shared counter behind it)."""
    counter = context.Value("i", 0)

    def claim():
        with counter.get_lock():
            position = counter.value
            if position >= len(chunks):
                return None
            counter.value = position + 1
        return chunks[position]

    return claim, counter


def _import_fixers() -> None:
    import graphlint.fixers.base  # noqa: F401 - libcst and the fixers: imported once, before the fork


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
