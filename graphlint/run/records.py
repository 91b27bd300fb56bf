"""A checked module as plain data: what a process sends back to the run's parent (:mod:`graphlint.run.parallel`)
and what a re-check of only what an edit reaches (:mod:`graphlint.run.incremental`) gets alike."""

from __future__ import annotations

import os

from graphlint.analysis.source import SourceProblem, read_source
from graphlint.results import finding_from_record, finding_to_record


def load_unit(session, shown: str, source):
    """``(ModuleInfo or None, problem)`` of the run module ``shown``: parsed here if another process parsed it;
    ``source``, the file as the run read it (None: read it now), gives the text that pragmas and fixes need."""
    info = session.project.module_at(os.path.abspath(shown))
    if info is not None and shown not in session.sources:
        try:
            source = source if source is not None else read_source(shown)
        except SourceProblem as exc:
            return info, str(exc)
        source.module = info.module
        session.sources[shown] = source
    return info, ""


def check_unit(session, shown: str, source, fix_markers: bool):
    """The record of checking the run module ``shown`` (None if it cannot be loaded; see :func:`load_unit`)."""
    info, problem = load_unit(session, shown, source)
    if info is None:
        return None
    if problem:
        return check_record(([], {}, problem))
    outcome = session.check_module(shown, info, fix_markers)
    return check_record(outcome, session.interfaces.get(info.path) if session.interfaces is not None else None)


def check_record(outcome, interface=None):
    """A checked module as plain data: its findings, or the problem met checking it, and its interface
    (:attr:`LintSession.interfaces`) when the session records them."""
    findings, fixes, problem = outcome
    if problem:
        return ("problem", [], problem, None)
    return ("ok", [finding_to_record(f, fixes.get(id(f))) for f in findings], "", interface)


def interfaces_of(records) -> dict:
    """``{absolute path: interface}`` of the checked modules whose records carry one."""
    return {os.path.abspath(shown): record[3] for shown, record in records.items() if record[3] is not None}


def check_from_record(record):
    """``(findings, {id(finding): fix safety}, problem)`` of a record made by :func:`check_record`."""
    status, found, problem, _interface = record
    if status != "ok":
        return [], {}, problem
    findings, fixes = [], {}
    for item in found:
        finding, fix = finding_from_record(item)
        findings.append(finding)
        if fix:
            fixes[id(finding)] = fix
    return findings, fixes, ""
