"""Garbage-collector settings for one-shot runs (the command line), and a process exit without tear-down.

A lint run builds a large heap of astroid trees that stay alive until the process ends. With CPython's default
settings the collector scans that heap again and again (a quarter of the run on mindcv + mindocr), and at exit
the interpreter takes seconds to free it object by object. A one-shot run therefore freezes what it has parsed
and checked (frozen objects are never scanned), collects the young generation less often, and ends with
``os._exit`` once its output is flushed. Long-lived callers (the language server, Pylint, the tests) keep the defaults: there
replaced trees must be freed.
"""

from __future__ import annotations

import gc
import os
import sys
from contextlib import contextmanager

YOUNG_THRESHOLD = 10_000  # CPython's default is 700 allocations between young collections

_one_shot = False


@contextmanager
def one_shot_run():
    """Within the block, :func:`parsed` freezes the heap and young collections are rarer."""
    global _one_shot
    previous, threshold = _one_shot, gc.get_threshold()
    _one_shot = True
    gc.set_threshold(YOUNG_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        _one_shot = previous
        gc.set_threshold(*threshold)


def settle() -> None:
    """What the run made so far is kept to its end in a one-shot run (a file's tree once parsed; the findings
    and facts of a module once checked; a fix round's plans and trees): stop scanning it (a freeze moves the
    generations' lists, it does not walk them). Garbage with cycles made before it is kept too: the old trees
    of rewritten files, already frozen when they were parsed."""
    if _one_shot:
        gc.freeze()


@contextmanager
def frozen_for_fork():
    """Freeze the heap while worker processes are forked: their collections then do not touch (and so copy)
    the parent's pages. A one-shot run keeps it frozen afterwards (and freezes without collecting first: what
    garbage there is was left by imports, and a full collection at this point is a fiftieth of a run)."""
    if not _one_shot:
        gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        if not _one_shot:
            gc.unfreeze()


def exit_now(code: int) -> None:
    """End the process with ``code`` after flushing its output, without freeing the heap first."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be written anyway
            pass
    os._exit(code)
