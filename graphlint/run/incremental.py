"""Lint again after an edit: parse and check only the modules whose findings the edit can change.

A run that the result cache (:mod:`graphlint.run.cache`) stores keeps, beside its findings, what the next run needs
to tell which findings still hold, as plain data:

- per module read (the run's files and the modules loaded for their helpers): a digest of its text, the modules
  it imports (found in its text: :func:`import_targets`), and a digest of its interface (what importers read of
  it: :meth:`Analysis.interface_digest`) with the names of its graph functions;
- per module checked: a digest of what its findings depend on (:mod:`graphlint.analysis.dependencies`), but the
  interfaces of the modules it imports, which are compared module by module;
- the summary of the run (:class:`RunSummary`: what each module gives the others) and the summaries of the
  functions that graph scope reached.

The next run over the same files (:func:`lint_changed`) parses the files whose text changed and those that
import, transitively, a module whose interface changed (their summaries may differ); takes every other
module's summary from the entry; discovers scope from the summaries, as ``--jobs`` does; and checks the modules
whose digest changed or whose neighbourhood imports a module whose interface changed. Every other module keeps
its findings. A file added to the run is a changed module whose interface changed (and every module's imports
are read again: one may find it now); a file removed, a module whose interface changed that the run no longer
summarises or checks. When an edit reaches too much of the run for that to pay (:data:`AT_MOST`), or touches a
file that could not be checked, it says why and the run is linted afresh.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from graphlint.analysis.dependencies import Dependencies, importers
from graphlint.analysis.scope import FunctionSummary, ModuleScope, RunSummary
from graphlint.analysis.tree import deep_recursion
from graphlint.results import FileProblem, finding_from_record, finding_to_record
from graphlint.run.digests import file_hash, read_regular
from graphlint.run.records import check_from_record, check_unit
from graphlint.session import LintSession

# Past this share of the run's modules to parse again or check (and past a few), a fresh run, in parallel, is
# about as fast.
AT_MOST = 0.4
A_FEW = 8


def _too_many(count: int, total: int) -> bool:
    return count > max(A_FEW, AT_MOST * total)


def few_enough(added: int, removed: int, total: int) -> bool:
    """Few enough files added to a run or removed from it (``total`` now) to start from its state: most of the
    files it checks must be those of that run (another handful of staged files, say, is as fast afresh)."""
    return not _too_many(added + removed, total) and added <= total // 2


# -- modules and what they import ----------------------------------------------------------------------------
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(.*)|import[ \t]+(.*))$", re.M)


def _import_lines(text: str):
    """The matches of :data:`_IMPORT` in ``text``, found from the word ``import`` (every such line has it): a
    tenth of the time of trying the pattern at every line."""
    position = text.find("import")
    while position != -1:
        match = _IMPORT.match(text, text.rfind("\n", 0, position) + 1)
        if match is None:
            position = text.find("import", position + len("import"))
        else:
            yield match
            position = text.find("import", match.end())


def import_targets(text: str, module_name: str, is_package: bool) -> set[str]:
    """The dotted names of the modules whose names ``text`` may resolve through: every ``import`` and ``from
    ... import`` line, at any depth (relative ones resolved against ``module_name``): ``import a.b`` gives ``a``
    and ``a.b`` (a name is looked up from ``a`` down), ``from X import a`` gives ``X`` and ``X.a`` (``a`` may be
    a submodule), not X's packages (the name is looked up in X itself). A line that only looks like an import
    (in a string) adds names too: more dependencies than there are is safe, fewer is not."""
    found: set[str] = set()
    package = module_name.split(".") if is_package else module_name.split(".")[:-1]
    for match in _import_lines(text.replace(";", "\n")):  # (`import a; import b`)
        source, names, plain = match.groups()
        if plain is not None:
            for part in plain.split(","):
                dotted = part.split("#")[0].strip().split(" as ")[0].strip().strip("()\\ ")
                if dotted:
                    parts = dotted.split(".")
                    found.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
            continue
        dots = len(source) - len(source.lstrip("."))
        base = source[dots:]
        if dots:
            if dots - 1 > len(package):
                continue
            prefix = package[:len(package) - (dots - 1)]
            base = ".".join(prefix + ([base] if base else []))
        if not base:
            continue
        found.add(base)
        names = names.split("#")[0]
        if "(" in names and ")" not in names:  # a parenthesised list over several lines
            close = text.find(")", match.end())
            names += text[match.end():close] if close != -1 else ""
        for part in names.replace("(", " ").replace(")", " ").replace("\\", " ").split(","):
            name = part.split("#")[0].strip().split(" as ")[0].strip()
            if name.isidentifier():
                found.add(f"{base}.{name}")
    return found


class ModuleResolver:
    """Dotted module names to the paths of the known modules, the way the project finds them
    (:meth:`Project.find_module`): below each package root, in order."""

    def __init__(self, paths):
        self.known = set(paths)
        self._folders: dict[str, tuple[str, list[str]]] = {}  # folder -> (package root, its package's name parts)
        self._roots: list[str] | None = None
        self._resolved: dict[str, str | None] = {}

    def _folder(self, folder: str) -> tuple[str, list[str]]:
        found = self._folders.get(folder)
        if found is None:
            if os.path.isfile(os.path.join(folder, "__init__.py")):
                parent, name = os.path.split(folder)
                if parent != folder and name:
                    root, parts = self._folder(parent)
                    found = (root, parts + [name])
            if found is None:
                found = (folder, [])
            self._folders[folder] = found
        return found

    def resolve(self, dotted: str) -> str | None:
        if dotted in self._resolved:  # (the modules of a project import the same names again and again)
            return self._resolved[dotted]
        if self._roots is None:
            self._roots = sorted({self._folder(os.path.dirname(path))[0] for path in self.known})
        relative = dotted.replace(".", os.sep)
        found = None
        for root in self._roots:
            for candidate in (os.path.join(root, relative + ".py"), os.path.join(root, relative, "__init__.py")):
                if candidate in self.known:
                    found = candidate
                    break
            if found is not None:
                break
        self._resolved[dotted] = found
        return found

    def imports_of(self, path: str, text: str) -> list[str]:
        """The paths of the known modules the module at ``path`` (with ``text``) may import."""
        folder, filename = os.path.split(path)
        package = self._folder(folder)[1]
        stem = os.path.splitext(filename)[0]
        is_package = stem == "__init__"
        name = ".".join(package if is_package else package + [stem])
        targets = import_targets(text, name, is_package)
        return sorted({found for found in map(self.resolve, targets) if found is not None and found != path})


def modules_to_plain(modules: dict) -> dict:
    """The modules of a state (path -> hash, imports, interface, graph function names), their imports as numbers
    into the list of paths (each path once)."""
    paths = list(modules)
    number = {path: index for index, path in enumerate(paths)}
    return {"paths": paths, "hash": [modules[path]["hash"] for path in paths],
            "imports": [[number[target] for target in modules[path]["imports"]] for path in paths],
            "interface": [modules[path]["interface"] for path in paths],
            "graph": [modules[path]["graph"] for path in paths]}


def modules_from_plain(data: dict) -> dict:
    paths = data["paths"]
    return {path: {"hash": digest, "imports": [paths[index] for index in imports], "interface": interface,
                   "graph": graph}
            for path, digest, imports, interface, graph in zip(paths, data["hash"], data["imports"],
                                                                data["interface"], data["graph"])}


# -- plain data, for JSON ------------------------------------------------------------------------------------
def to_plain(value):
    """``value`` (tuples, sets, dicts with any keys) as JSON data that :func:`from_plain` reads back."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, tuple):
        return {"t": [to_plain(item) for item in value]}
    if isinstance(value, list):
        return [to_plain(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return {"s": [to_plain(item) for item in value]}
    if isinstance(value, dict):
        return {"d": [[to_plain(key), to_plain(item)] for key, item in value.items()]}
    raise TypeError(f"not plain data: {type(value).__name__}")


def from_plain(data):
    if isinstance(data, list):
        return [from_plain(item) for item in data]
    if not isinstance(data, dict):
        return data
    if "t" in data:
        return tuple(from_plain(item) for item in data["t"])
    if "s" in data:
        return {from_plain(item) for item in data["s"]}
    return {from_plain(key): from_plain(item) for key, item in data["d"]}


class _Keys:
    """Function keys ``(module path, local name)`` as numbers into one table (the summaries name each many
    times): smaller entries, read back faster."""

    def __init__(self, table=None):
        self.table = [tuple(key) for key in table] if table is not None else []
        self._numbers = {key: number for number, key in enumerate(self.table)}

    def number(self, key) -> int:
        found = self._numbers.get(key)
        if found is None:
            found = self._numbers[key] = len(self.table)
            self.table.append(key)
        return found


def summaries_to_plain(functions: dict, keys: _Keys) -> list:
    return [[keys.number(key), [list(where) + [keys.number(target), display] for where, target, display in found.edges],
             [list(where) + [name] for where, name in found.calls]] for key, found in functions.items()]


def summaries_from_plain(data: list, keys: _Keys) -> dict:
    table = keys.table
    return {table[key]: FunctionSummary(tuple((tuple(edge[:4]), table[edge[4]], edge[5]) for edge in edges),
                                        tuple((tuple(call[:4]), call[4]) for call in calls))
            for key, edges, calls in data}


def summary_to_plain(summary: RunSummary, reached: dict, plain_facts: dict | None = None) -> dict:
    """The run's summary and the summaries of the functions scope reached besides (``reached``); ``plain_facts``:
    kind -> path -> the fact as plain data already, for the modules whose facts did not change."""
    keys = _Keys()
    scopes = [[path, [[keys.number(key), kind, display] for key, kind, display in found.entries],
               [[name, [[keys.number(key), display] for key, display in targets]]
                for name, targets in found.jit_class_methods.items()]]
              for path, found in summary.scopes.items()]
    functions = summaries_to_plain(summary.functions, keys)
    plain_facts = plain_facts or {}
    facts = {}
    for kind, values in summary.facts.items():
        done = plain_facts.get(kind, {})
        facts[kind] = {path: done[path] if path in done else to_plain(value) for path, value in values.items()}
    return {"order": summary.order, "scopes": scopes, "functions": functions,
            "reached": summaries_to_plain(reached, keys), "facts": facts, "keys": keys.table}


def summary_from_plain(data: dict) -> tuple[RunSummary, dict]:
    keys = _Keys(data["keys"])
    table = keys.table
    scopes = {path: ModuleScope(tuple((table[key], kind, display) for key, kind, display in entries),
                                {name: [(table[key], display) for key, display in targets] for name, targets in methods})
              for path, entries, methods in data["scopes"]}
    facts = {kind: {path: from_plain(value) for path, value in values.items()} for kind, values in data["facts"].items()}
    summary = RunSummary(list(data["order"]), scopes, summaries_from_plain(data["functions"], keys), facts)
    return summary, summaries_from_plain(data["reached"], keys)


# -- what a run keeps for the next -----------------------------------------------------------------------------
@dataclass
class Known:
    """What a run that re-checked only what changed knows already when it stores its entry: the digests of the
    texts of the modules it read (absolute path -> digest), their imports, and the digest of what each
    checked module's findings depend on."""
    hashes: dict
    edges: dict
    digests: dict
    rechecked: list  # the modules checked again (as shown)
    changed: int = 0  # files of the run whose text changed
    added: int = 0  # files not in the last run
    removed: int = 0  # files of the last run not in this one
    units: int = 0  # modules checked, again or before
    plain_facts: dict | None = None  # kind -> path -> the facts of the modules not summarised again, as stored


def record(session, result, hashes: dict, stored: dict | None = None, known: Known | None = None) -> dict | None:
    """What the next run needs to re-check only what an edit reaches (None when the run did not record it).
    ``hashes``: absolute path -> digest of the text of every module the run read; ``stored``: the state this
    run started from, if it re-checked only what changed (``known``: what it found out)."""
    if session is None or session.interfaces is None:
        return None
    analysis = session.analysis
    try:
        scope = analysis.scope
    except RecursionError:
        return None
    summary = analysis.shared if analysis.shared is not None else analysis.summarise(analysis.run_modules())
    modules = _recorded_modules(session, hashes, stored, known)
    dependencies = Dependencies(analysis, lambda path: modules[path]["hash"] if path in modules else "?")
    by_path: dict[str, list] = {}
    for finding in result.findings:
        by_path.setdefault(finding.path, []).append(finding_to_record(finding, result.fixes.get(id(finding))))
    units = {}
    failed = {problem.path for problem in result.problems}
    digests = known.digests if known is not None else {}
    for shown in checked_units(session, summary):
        if shown not in failed:
            digest = digests.get(shown) or dependencies.digest(os.path.abspath(shown))
            units[shown] = {"inputs": digest, "findings": by_path.get(shown, [])}
    reached = {key: found for key, found in scope.summaries.items() if key not in summary.functions}
    strings = {path: sorted(found) for path, found in session.project.unparsed_strings.items() if path in modules}
    plain_facts = known.plain_facts if known is not None else None
    return {"modules": modules_to_plain(modules), "units": units,
            "summary": summary_to_plain(summary, reached, plain_facts), "strings": strings}


def _recorded_modules(session, hashes: dict, stored: dict | None, known: Known | None) -> dict:
    """Per module the run read: its digest, what it imports, its interface and graph functions' names."""
    edges = dict(known.edges) if known is not None else {}
    resolver = ModuleResolver(hashes)
    for path in hashes:
        if path not in edges:
            edges[path] = resolver.imports_of(path, _text(path))
    interfaces = {path: (module["interface"], module["graph"]) for path, module in
                  (modules_from_plain(stored["modules"]) if stored is not None else {}).items()}
    interfaces.update(session.interfaces)
    modules = {}
    for path, digest in hashes.items():
        interface, graph = interfaces.get(path) or ("text:", [])
        if interface.startswith("text:"):  # (a module not checked: its whole text counts)
            interface = "text:" + digest
        # (a module it imported may be gone: a file removed from the run that was not read again)
        modules[path] = {"hash": digest, "imports": [target for target in edges[path] if target in hashes],
                         "interface": interface, "graph": list(graph)}
    return modules


def checked_units(session, summary) -> list[str]:
    """The run's modules that are checked (as shown): those parsed, then those graph code reaches that never
    mention MindSpore."""
    parsed = set(summary.order)
    units = [shown for path, shown in session.run_paths.items() if path in parsed]
    scope = session.analysis.scope
    units += [session.run_paths[path] for path in sorted(session.project.unparsed) if path in scope.by_path]
    return units


def _text(path: str) -> str:
    """The text of a regular file ("" for anything else)."""

    data = read_regular(path)
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else ""


# -- the next run ----------------------------------------------------------------------------------------------
def lint_changed(entry: dict, files, problems, config, hashes: dict, *, config_for=None, fix_markers=False,
                 progress=None):
    """Lint ``files`` again, given the cache ``entry`` (with its state) of the last run over them and the
    digests of their texts now (``hashes``: path as given -> digest): ``(LintResult, Known)``, or why a fresh
    run is needed (a string)."""
    modules = modules_from_plain(entry["modules"]) if "modules" in entry else None
    if not modules or "summary" not in entry:
        return "the last run kept no state"
    rerun = _Rerun(entry, modules, files, hashes, config, config_for)
    return rerun.read(problems) or rerun.summarise() or rerun.check(fix_markers, progress)


class _Rerun:
    """One run after an edit, in three steps, each of which may find that a fresh run is needed (its reason)."""

    def __init__(self, entry, modules, files, hashes, config, config_for):
        self.entry, self.modules, self.files, self.hashes = entry, modules, files, hashes
        self.absolute = {shown: os.path.abspath(shown) for shown in files}
        # (an added file is a changed one too)
        self.changed = {self.absolute[shown] for shown in files if entry["run"].get(shown) != hashes.get(shown)}
        self.added = {self.absolute[shown] for shown in files if shown not in entry["run"]}
        self.removed_shown = set(entry["run"]) - set(files)
        self.removed = {os.path.abspath(shown) for shown in self.removed_shown}
        read_now = {path: file_hash(path) for path in entry["read"]}
        self.changed_elsewhere = {path for path, digest in read_now.items() if digest != entry["read"][path]}
        self.hashes_now = dict(read_now)  # absolute path -> digest, of every module read
        self.hashes_now.update((self.absolute[shown], hashes[shown]) for shown in files)
        self.failed_before = {path for path, _reason in entry["problems"]}
        self.session = LintSession(config, config_for)
        self.session.interfaces = {}
        self.infos: dict = {}  # absolute path -> ModuleInfo, of the modules parsed here
        self.interface_now: dict = {}  # absolute path -> interface digest, of the changed modules parsed
        self.interface_changed: set = set()
        self.edges: dict = {}
        self._reaches: set | None = None

    def read(self, problems) -> str | None:
        """Read the run's files; parse those that changed; tell which changed what importers read of them."""
        changed = self.changed
        if any(self.absolute[shown] in changed for shown in self.failed_before if shown in self.absolute):
            return "a file that could not be checked changed"
        if any(os.path.basename(path) == "__init__.py" for path in self.added | self.removed):
            return "a package's __init__.py was added or removed"  # (the names of the modules below it change)
        refused = self._read_and_parse(problems)
        if refused:
            return refused
        for path, info in self.infos.items():  # (under the names of its graph functions in the last run)
            if path in self.modules:
                self.interface_now[path] = self.session.analysis.interface_digest(info, self.modules[path]["graph"])
        self.interface_changed = self.changed_elsewhere | self.removed | {path for path in changed
                                                                           if path not in self.interface_now}
        self.interface_changed |= {path for path, digest in self.interface_now.items()
                                   if digest != self.modules[path]["interface"]}
        self.edges = self._import_edges()
        return None

    def _read_and_parse(self, problems) -> str | None:
        """Read the run's files into the session and parse the changed ones; why the last run's state cannot be
        reused, or None."""
        session, changed = self.session, self.changed
        unchecked: list = []
        to_parse = session.read_files(self.files, problems, unchecked)
        stored_problems = {tuple(problem) for problem in self.entry["problems"]}
        if any((problem.path, problem.reason) not in stored_problems for problem in session.problems[len(problems):]):
            return "a file could not be read"  # (one that could not be read before either is still reported)
        read_problems = len(session.problems)
        self.summary, self.reached = summary_from_plain(self.entry["summary"])
        to_parse = [(path, source) for path, source in to_parse if path not in self.failed_before]  # (still failing)
        self.order = [self.absolute[path] for path, _source in to_parse]
        if ([path for path in self.order if path not in self.added] !=
                [path for path in self.summary.order if path not in self.removed]):
            return "a file started or stopped mentioning MindSpore"
        for path, text in unchecked:
            if self.absolute[path] in changed:
                session.check_syntax(path, text)
        session.register_run_modules(to_parse)
        session.project.unparsed_strings.update((path, frozenset(found)) for path, found in
                                                self.entry["strings"].items() if path not in changed)
        self.sources = {self.absolute[path]: (path, source) for path, source in to_parse}
        self.infos = {info.path: info for info in session.parse_files(
            [self.sources[path] for path in sorted(changed & set(self.sources))])}
        if len(session.problems) != read_problems:
            return "a changed file cannot be checked"
        return None

    def _import_edges(self) -> dict:
        """What each module imports: as the last run found it, found again for the changed modules (and, when files
        were added, for every module whose text names one: an import that found nothing may find it now)."""
        resolver = ModuleResolver(self.hashes_now)
        edges = {path: module["imports"] for path, module in self.modules.items()
                 if path not in self.changed | self.changed_elsewhere}
        stems = {os.path.splitext(os.path.basename(path))[0] for path in self.added}
        for path in self.hashes_now:
            if path in edges and not stems:
                continue
            text = _text(path)
            if path not in edges or any(stem in text for stem in stems):
                edges[path] = resolver.imports_of(path, text)
        return edges

    def reaches_changed(self, path: str) -> bool:
        """Does the module at ``path`` import, transitively, a module whose interface changed?"""
        if self._reaches is None:
            self._reaches = importers(self.edges, self.interface_changed)
        return path in self._reaches

    def summarise(self) -> str | None:
        """Summarise again the modules whose summary may have changed; discover scope from the summaries."""
        session, summary = self.session, self.summary
        again = set(self.infos) | {path for path in self.sources if self.reaches_changed(path)}
        if _too_many(len(again), len(self.sources)):
            return f"{len(again)} of {len(self.sources)} modules to read again"
        self.infos.update({info.path: info for info in session.parse_files(
            [self.sources[path] for path in sorted(again - set(self.infos))])})
        if not again <= set(self.infos):
            return "a module cannot be parsed"
        fresh = session.analysis.summarise([self.infos[path] for path in self.order if path in again])
        gone = again | self.removed
        for path in gone:
            summary.scopes.pop(path, None)
            for values in summary.facts.values():
                values.pop(path, None)
        summary.functions = {key: found for key, found in summary.functions.items() if key[0] not in gone}
        summary = self.summary = RunSummary.gather([summary, fresh], self.order)
        for key, found in self.reached.items():
            if key[0] not in gone and key[0] not in self.changed_elsewhere and not self.reaches_changed(key[0]):
                summary.functions.setdefault(key, found)
        session.analysis.share(summary)
        self.summarised_again = gone
        try:
            _ = session.analysis.scope
        except RecursionError:
            return "too deeply nested to analyse"
        return None

    def text_of(self, path: str) -> str:

        digest = self.hashes_now.get(path)
        if digest is None:
            digest = self.hashes_now[path] = file_hash(path)
        return digest

    def check(self, fix_markers: bool, progress):
        """Check the modules whose findings may have changed; the others keep theirs."""
        session = self.session
        dependencies = Dependencies(session.analysis, self.text_of)
        units = checked_units(session, self.summary)
        stored = self.entry["units"]
        digests = {shown: dependencies.digest(os.path.abspath(shown)) for shown in units}
        again = [shown for shown in units if (stored.get(shown) or {}).get("inputs") != digests[shown] or
                 any(map(self.reaches_changed, dependencies.neighbourhood(os.path.abspath(shown))))]
        if _too_many(len(again), len(units)):
            return f"{len(again)} of {len(units)} modules to check again"
        result = session.new_result()
        result.problems = [FileProblem(path, reason) for path, reason in self.entry["problems"]
                           if path not in again and path not in self.removed_shown]
        if progress is not None:
            progress.start("checking", len(again))
        with deep_recursion():
            for shown in again:
                path = os.path.abspath(shown)
                outcome = check_unit(session, shown, self.sources[path][1] if path in self.sources else None,
                                      fix_markers)
                if outcome is None:
                    return "a module cannot be loaded"
                result.add(shown, *check_from_record(outcome))
                if progress is not None:
                    progress.advance(detail=shown)
        checked = set(again)
        for shown in units:
            for item in stored[shown]["findings"] if shown not in checked else ():
                finding, fix = finding_from_record(item)
                result.findings.append(finding)
                if fix:
                    result.fixes[id(finding)] = fix
        result.findings.sort(key=lambda f: f.sort_key)
        session.read_elsewhere = set(self.entry["read"])
        plain_facts = {kind: {path: value for path, value in values.items() if path not in self.summarised_again}
                       for kind, values in self.entry["summary"]["facts"].items()}
        return result, Known(self.hashes_now, self.edges, digests, again, changed=len(self.changed - self.added),
                             added=len(self.added), removed=len(self.removed), units=len(units),
                             plain_facts=plain_facts)
