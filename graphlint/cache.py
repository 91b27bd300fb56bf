"""The result cache: a run over files that have not changed is answered without parsing them.

An entry is keyed by graphlint itself (its version and the fingerprint of its own sources, so that editing
a checker invalidates it), the options that change findings, the Python version, the working folder and the
run's list of files. It records the content hash (SHA-256) of every file the run read: the files of the run
and the modules it loaded from disk for their helpers and Cell bases. The entry is used only when all of them
are byte for byte the same; it then gives the findings, the fix availability and the files that could not be
checked, exactly as the run that stored it.

Why the whole run and not file by file: some facts graphlint uses are facts of the whole project (which
Cells another Cell creates, which attributes host code changes, the recursion limit set anywhere), so a
file's findings can change when any file of the project changes. Entries are JSON (never pickle: a cache
folder checked into a repository must not run code), written atomically; the newest ``KEEP`` are kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from stat import S_ISREG

from graphlint import __version__

FORMAT = 1
KEEP = 32  # entries kept per cache folder (one per distinct run: paths, options)
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


def file_hash(path: str) -> str:
    """SHA-256 of a regular file's bytes; a marker for a missing, unreadable or special file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable:{exc.errno}"
    try:
        with os.fdopen(fd, "rb") as handle:
            stat = os.fstat(handle.fileno())
            if not S_ISREG(stat.st_mode):
                return f"special:{stat.st_mode:o}"
            digest = hashlib.sha256()
            while True:
                block = handle.read(1 << 20)
                if not block:
                    break
                digest.update(block)
            return digest.hexdigest()
    except OSError as exc:
        return f"unreadable:{exc.errno}"


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
        self._hashes: dict[str, str] = {}

    # -- keys ---------------------------------------------------------------------------------------------
    def _key(self, files, problems, config, fix_markers: bool) -> str:
        digest = hashlib.sha256()
        for part in (str(FORMAT), tool_fingerprint(), config.analysis_key(), str(bool(fix_markers)), os.getcwd()):
            digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
        for path in files:
            digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(b"\1")
        for problem in problems:
            digest.update(f"{problem.path}\0{problem.reason}\0".encode("utf-8", "surrogateescape"))
        return digest.hexdigest()[:40]

    def _entry_path(self, key: str) -> str:
        return os.path.join(self.folder, f"run-{key}.json")

    # -- reading ------------------------------------------------------------------------------------------
    def load(self, files, problems, config, fix_markers: bool):
        """The stored :class:`LintResult` of this run if none of the files it read changed, else None."""
        path = self._entry_path(self._key(files, problems, config, fix_markers))
        self._hashes = {file: file_hash(file) for file in files}  # before linting: what a cold run will read
        try:
            with open(path, encoding="utf-8") as handle:
                entry = json.load(handle)
        except (OSError, ValueError):
            return None
        try:
            if entry.get("format") != FORMAT or entry["run"] != self._hashes or list(entry["run"]) != list(files):
                return None
            for file, digest in entry["read"].items():
                if file_hash(file) != digest:
                    return None
            result = self._result(entry)
        except (KeyError, TypeError, ValueError):
            return None
        try:
            os.utime(path)  # most recently used: pruned last
        except OSError:
            pass
        self.hits += 1
        return result

    @staticmethod
    def _result(entry):
        from graphlint.results import FileProblem, LintResult, finding_from_record

        result = LintResult(files=int(entry["files"]), lines=int(entry["lines"]), from_cache=True)
        for record in entry["findings"]:
            finding, fix = finding_from_record(record)
            result.findings.append(finding)
            if fix:
                result.fixes[id(finding)] = fix
        result.problems = [FileProblem(path, reason) for path, reason in entry["problems"]]
        return result

    # -- writing ------------------------------------------------------------------------------------------
    def store(self, files, problems, config, fix_markers: bool, result) -> None:
        """Record ``result`` (a cold run over ``files``); silently does nothing if the folder is not writable."""
        from graphlint.results import finding_to_record

        session = result.session
        hashes = self._hashes
        run = {path: hashes.get(path) or file_hash(path) for path in files}
        read = {}
        if session is not None:
            in_run = {os.path.abspath(path) for path in files}
            for path in session.module_paths():
                if path not in in_run:
                    read[path] = file_hash(path)
        entry = {
            "format": FORMAT,
            "graphlint": __version__,
            "run": run,
            "read": read,
            "files": result.files,
            "lines": result.lines,
            "findings": [finding_to_record(f, result.fixes.get(id(f))) for f in result.findings],
            "problems": [[p.path, p.reason] for p in result.problems],
        }
        try:
            os.makedirs(self.folder, exist_ok=True)
            self._mark_folder()
            data = json.dumps(entry, separators=(",", ":"), ensure_ascii=False)
            fd, temporary = tempfile.mkstemp(prefix=".entry-", suffix=".tmp", dir=self.folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as handle:
                    handle.write(data)
                os.replace(temporary, self._entry_path(self._key(files, problems, config, fix_markers)))
            except BaseException:
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
                raise
            self._prune()
        except (OSError, TypeError, ValueError):
            return

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
        for _mtime, path in sorted(entries, reverse=True)[KEEP:]:
            try:
                os.unlink(path)
            except OSError:
                pass
