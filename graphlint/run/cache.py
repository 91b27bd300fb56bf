"""The result cache: a run over files that have not changed is answered without parsing them; after an edit,
only the modules whose findings it can change are checked again (:mod:`graphlint.run.incremental`).

An entry is keyed by graphlint itself (its version and the fingerprint of its own sources, so that editing
a checker invalidates it), the options that change findings, the Python version, the working folder and the
run's list of files. It records the content hash (SHA-256) of every file the run read: the files of the run
and the modules it loaded from disk for their helpers and Cell bases. When all of them are byte for byte the
same, the entry gives the findings, the fix availability and the files that could not be checked, exactly as the
run that stored it. When some changed, the state the run kept beside it (``state-KEY.json``: per module, what
the next run needs to tell what an edit reaches) lets the next run re-check only those modules.

Entries are JSON (never pickle: a cache folder checked into a repository must not run code), written atomically;
the newest ``KEEP`` are kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile

from graphlint.version import __version__
from graphlint.results import FileProblem, LintResult, finding_from_record, finding_to_record
from graphlint.run.digests import file_hash

FORMAT = 2
KEEP = 32  # entries kept per cache folder (one per distinct run: paths, options)
KEEP_STATES = 8  # of which the newest keep their state (larger: 9.5 MB for mindone's 3,000 files)
FOLDER = ".graphlint_cache"
_TOOL_FINGERPRINT: str | None = None


def tool_fingerprint() -> str:
    """graphlint's version and the size and modification time of each of its own modules."""
    global _TOOL_FINGERPRINT
    if _TOOL_FINGERPRINT is None:
        package = os.path.dirname(os.path.abspath(__file__))
        digest = hashlib.sha256(f"{__version__}\0{sys.version}".encode())
        for folder, dirnames, filenames in os.walk(package):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    try:
                        stat = os.stat(path)
                    except OSError:
                        continue
                    digest.update(f"{os.path.relpath(path, package)}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
        _TOOL_FINGERPRINT = digest.hexdigest()
    return _TOOL_FINGERPRINT


def default_folder(config) -> str:
    """``cache-dir`` (relative to the configuration file), ``GRAPHLINT_CACHE_DIR``, or ``.graphlint_cache``
    next to the configuration file (in the working folder without one)."""
    chosen = os.environ.get("GRAPHLINT_CACHE_DIR") or config.cache_dir
    if chosen:
        return os.path.join(config.base_dir, os.path.expanduser(chosen))
    return os.path.join(config.base_dir, FOLDER)


class ResultCache:
    def __init__(self, folder: str):
        self.folder = folder
        self.hits = 0
        self.partial_hits = 0  # runs answered by re-checking only what changed (graphlint.run.incremental)
        self._hashes: dict[str, str] = {}
        self.previous: dict | None = None  # the entry of the last run over the same files, when some changed (or
        # of the family's newest run, over a few files more or fewer)
        self._previous_key = ""
        self.rechecked: list[str] = []  # the files the last run that used :attr:`previous` checked again
        self.outcome = "no earlier run of these files with these options"  # how the run was answered (--verbose)

    # -- keys ---------------------------------------------------------------------------------------------
    def _key(self, files, problems, config, fix_markers: bool) -> str:
        return self._digest(files, problems, config, fix_markers)

    def _family(self, problems, config, fix_markers: bool) -> str:
        """What runs over other lists of files share with this one: the same graphlint, options and folder."""
        return self._digest(None, problems, config, fix_markers)

    @staticmethod
    def _digest(files, problems, config, fix_markers: bool) -> str:
        digest = hashlib.sha256()
        for part in (str(FORMAT), tool_fingerprint(), config.analysis_key(), str(bool(fix_markers)), os.getcwd()):
            digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
        for path in files if files is not None else ["\2"]:
            digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(b"\1")
        for problem in problems:
            digest.update(f"{problem.path}\0{problem.reason}\0".encode("utf-8", "surrogateescape"))
        return digest.hexdigest()[:40]

    def _entry_path(self, key: str, kind: str = "run") -> str:
        """``run-KEY.json``: the run's results; ``state-KEY.json``: what the next run needs to re-check only what
        changed (larger: read only when some file did); ``last-FAMILY.json``: the key of the newest run of a
        family (:meth:`_family`), where a run over files added or removed starts from."""
        return os.path.join(self.folder, f"{kind}-{key}.json")

    # -- reading ------------------------------------------------------------------------------------------
    def load(self, files, problems, config, fix_markers: bool):
        """The stored :class:`LintResult` of this run if none of the files it read changed, else None."""
        key = self._previous_key = self._key(files, problems, config, fix_markers)
        self._hashes = {file: file_hash(file) for file in files}  # before linting: what a cold run will read
        self.previous = None
        entry = self._read(self._entry_path(key))
        if entry is None:
            self._load_family(files, problems, config, fix_markers)
            return None
        try:
            if entry.get("format") != FORMAT or list(entry["run"]) != list(files):
                return None
            if entry["run"] != self._hashes or any(file_hash(file) != digest for file, digest in entry["read"].items()):
                self.previous = entry  # what graphlint.run.incremental starts from
                return None
            result = self._result(entry)
        except (AttributeError, KeyError, TypeError, ValueError):
            self.previous = None
            return None
        self.outcome = "no file changed since the last run: its findings"
        try:
            os.utime(self._entry_path(key))  # most recently used: pruned last
            self._point_family(problems, config, fix_markers, key)
        except OSError:
            pass
        self.hits += 1
        return result

    @staticmethod
    def _read(path: str):
        try:
            with open(path, encoding="utf-8") as handle:
                entry = json.load(handle)
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) else None

    def _pointed_key(self, path: str) -> str | None:
        """The key a family's ``last-FAMILY.json`` names (None if it names none a file can be called by)."""
        pointer = self._read(path)
        key = pointer.get("key") if pointer is not None else None
        return key if isinstance(key, str) and key.isalnum() else None

    def _load_family(self, files, problems, config, fix_markers: bool) -> None:
        """No run over these files: start from the newest run of the family when only a few files were added
        to it or removed (its entry becomes :attr:`previous`)."""
        # imported here: a run the cache answers whole never loads the analysis (start-up)
        from graphlint.run.incremental import few_enough

        key = self._pointed_key(self._entry_path(self._family(problems, config, fix_markers), "last"))
        entry = self._read(self._entry_path(key)) if key is not None else None
        try:
            if entry is None or entry.get("format") != FORMAT:
                return
            before, now = set(entry["run"]), set(files)
            added, removed = len(now - before), len(before - now)
        except (AttributeError, KeyError, TypeError):
            return
        if not few_enough(added, removed, len(now)):
            if added + removed:
                self.outcome = (f"no earlier run of these files with these options ({added} added and {removed} "
                                f"removed since the last run)")
            return
        self.previous, self._previous_key = entry, key

    @staticmethod
    def _result(entry):
        result = LintResult(files=int(entry["files"]), lines=int(entry["lines"]))
        for record in entry["findings"]:
            finding, fix = finding_from_record(record)
            result.findings.append(finding)
            if fix:
                result.fixes[id(finding)] = fix
        result.problems = [FileProblem(path, reason) for path, reason in entry["problems"]]
        return result

    # -- writing ------------------------------------------------------------------------------------------
    def changed_run(self, files, problems, config, *, config_for=None, fix_markers: bool = False, progress=None):
        """After a :meth:`load` that found the last run over ``files`` with some of them changed: lint again
        only what the change reaches (:func:`graphlint.run.incremental.lint_changed`) and store the result; None when
        a fresh run is needed."""
        # imported here: a run the cache answers whole never loads the analysis (start-up)
        from graphlint.run.incremental import lint_changed

        if self.previous is None:
            return None
        try:
            state = self._read(self._entry_path(self._previous_key, "state"))
            if state is None:
                raise ValueError("no state")
            if state.get("stamp") != self.previous.get("stamp"):
                return None  # (written by another run than the entry: two runs at once)
            state.update(self.previous)
            changed = lint_changed(state, files, problems, config, self._hashes, config_for=config_for,
                                   fix_markers=fix_markers, progress=progress)
        except (OSError, AttributeError, KeyError, IndexError, TypeError, ValueError):  # none, or of another shape
            changed = "the state the last run kept cannot be read"
        if isinstance(changed, str):
            self.outcome = f"linted afresh ({changed})"
            return None
        result, known = changed
        self.partial_hits += 1
        self.rechecked = known.rechecked
        what = [f"{count} file{'s' if count != 1 else ''} {how}" for count, how in
                ((known.changed, "changed"), (known.added, "added"), (known.removed, "removed")) if count]
        self.outcome = (f"{' and '.join(what) or '0 files changed'} since the last run: checked "
                        f"{len(known.rechecked)} of {known.units} modules again")
        self.previous = state
        self.store(files, problems, config, fix_markers, result, known)
        return result

    def store(self, files, problems, config, fix_markers: bool, result, known=None) -> None:
        """Record ``result`` (a run over ``files``); silently does nothing if the folder is not writable.
        ``known``: what :func:`graphlint.run.incremental.lint_changed` gives beside its result, when the run
        re-checked what changed since :attr:`previous`."""
        # imported here: a run the cache answers whole never loads the analysis (start-up)
        from graphlint.run import incremental

        session = result.session
        hashes = self._hashes
        run = {path: hashes.get(path) or file_hash(path) for path in files}
        in_run = {os.path.abspath(path) for path in files}
        every = dict(known.hashes) if known else {}
        every.update((os.path.abspath(path), digest) for path, digest in run.items())
        if session is not None:
            for path in session.module_paths():
                if path not in every:
                    every[path] = file_hash(path)
        stamp = os.urandom(8).hex()
        entry = {
            "format": FORMAT,
            "graphlint": __version__,
            "stamp": stamp,
            "run": run,
            "read": {path: digest for path, digest in every.items() if path not in in_run},
            "files": result.files,
            "lines": result.lines,
            "findings": [finding_to_record(f, result.fixes.get(id(f))) for f in result.findings],
            "problems": [[p.path, p.reason] for p in result.problems],
        }
        try:
            state = incremental.record(session, result, every, self.previous if known else None, known)
        except RecursionError:
            state = None
        key = self._key(files, problems, config, fix_markers)
        try:
            os.makedirs(self.folder, exist_ok=True)
            self._mark_folder()
            if state is not None:
                state["stamp"] = stamp
                self._write(self._entry_path(key, "state"), state)
            self._write(self._entry_path(key), entry)  # (a run finds the entry once its state is there)
            self._point_family(problems, config, fix_markers, key)
            self._prune()
        except (OSError, TypeError, ValueError):
            return

    def _point_family(self, problems, config, fix_markers: bool, key: str) -> None:
        """Make the run ``key`` the newest of its family: where a run over a few files more or fewer starts."""
        self._write(self._entry_path(self._family(problems, config, fix_markers), "last"), {"key": key})

    def _write(self, path: str, data: dict) -> None:
        """Write ``data`` as JSON to ``path`` atomically (a reader sees the old file or the new, never a part)."""
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        fd, temporary = tempfile.mkstemp(prefix=".entry-", suffix=".tmp", dir=self.folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as handle:
                handle.write(text)
            os.replace(temporary, path)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise

    def _mark_folder(self) -> None:
        """A ``.gitignore`` (the folder is never committed) and a ``CACHEDIR.TAG`` (backup tools skip it)."""
        ignore = os.path.join(self.folder, ".gitignore")
        if not os.path.exists(ignore):
            with open(ignore, "w", encoding="utf-8") as handle:
                handle.write("# Automatically created by graphlint.\n*\n")
        tag = os.path.join(self.folder, "CACHEDIR.TAG")
        if not os.path.exists(tag):
            with open(tag, "w", encoding="utf-8") as handle:
                handle.write("Signature: 8a477f597d28d172789f06886806bc55\n"
                             "# This file is a cache directory tag created by graphlint.\n")

    def _prune(self) -> None:
        entries = []
        for name in os.listdir(self.folder):
            if name.startswith("run-") and name.endswith(".json"):
                path = os.path.join(self.folder, name)
                try:
                    entries.append((os.stat(path).st_mtime_ns, path))
                except OSError:
                    continue
        for rank, (_mtime, path) in enumerate(sorted(entries, reverse=True)):
            state = os.path.join(self.folder, "state-" + os.path.basename(path)[len("run-"):])
            for stale in ([path, state] if rank >= KEEP else [state] if rank >= KEEP_STATES else []):
                try:
                    os.unlink(stale)
                except OSError:
                    pass
        for name in os.listdir(self.folder):  # families whose newest run is gone (graphlint's own edits make new ones)
            if name.startswith("last-") and name.endswith(".json"):
                key = self._pointed_key(os.path.join(self.folder, name))
                if key is None or not os.path.exists(self._entry_path(key)):
                    try:
                        os.unlink(os.path.join(self.folder, name))
                    except OSError:
                        pass
