"""What the findings of a module depend on, as one digest: what the incremental cache (:mod:`graphlint.run.cache`)
compares to tell which modules an edit can change the findings of, without parsing the others.

Checking a module's graph code reads

- its own text, and the texts of the modules whose graph code is tied to its own by calls: the callers of its
  graph functions (a helper's parameters are bound from its callers' arguments), transitively, and what all of
  those call (return values), transitively: its *neighbourhood*;
- what the modules the neighbourhood imports, transitively, define for others: their *interfaces*
  (:meth:`Analysis.interface_digest`: the text but the bodies of graph functions), which the cache compares
  module by module (:func:`importers` of those whose interface changed);
- graph scope where it concerns the neighbourhood, and the parts of the facts of the run that concern it
  (:data:`graphlint.analysis.run_facts.RUN_FACT_READERS`).

The same assumption as :meth:`Analysis.replace_modules` (what the fix driver and the language server rely on):
a module that imports another reads its interface, never the bodies of its graph functions.
"""

from __future__ import annotations

import hashlib

from graphlint.analysis.run_facts import RUN_FACT_READERS


class Dependencies:
    """Digests of what each module's findings depend on, for one run's ``analysis`` (its scope must be known),
    but for the interfaces of the modules they import: the caller compares those module by module
    (:meth:`neighbourhood` says whose imports count). ``text_of(path)``: a digest of the text of a module."""

    def __init__(self, analysis, text_of):
        self.analysis = analysis
        self.text_of = text_of
        scope = analysis.scope
        self._scope = scope
        self._callees = scope.references_by_caller()
        self._near: dict[str, frozenset] = {}
        self._parts: dict[str, str] = {}

    def neighbourhood(self, path: str) -> frozenset:
        """The modules whose graph code is tied to that of the module at ``path`` by calls (itself included):
        the modules whose texts, and whose imports' interfaces, its findings depend on."""
        found = self._near.get(path)
        if found is not None:
            return found
        scope = self._scope
        own = list(scope.by_path.get(path, ()))
        reached = set(own)
        pending = list(own)
        while pending:  # callers, upwards
            for caller, _where in scope.references.get(pending.pop(), ()):
                if caller not in reached:
                    reached.add(caller)
                    pending.append(caller)
        pending = list(reached)
        while pending:  # callees, downwards
            for target, _where in self._callees.get(pending.pop(), ()):
                if target not in reached:
                    reached.add(target)
                    pending.append(target)
        found = self._near[path] = frozenset({path} | {key[0] for key in reached})
        return found

    def _own(self, module: str) -> str:
        """A digest of the module's text and of graph scope where it concerns the module's functions."""
        found = self._parts.get(module)
        if found is None:
            scope = self._scope
            keys = sorted(scope.by_path.get(module, ()))
            material = (self.text_of(module),
                        [(key, scope.functions[key], sorted(scope.references.get(key, ()))) for key in keys])
            found = self._parts[module] = _digest(material)
        return found

    def digest(self, path: str) -> str:
        """One digest of what the findings of the module at ``path`` depend on (but imported interfaces)."""
        scope = self._scope
        near = self.neighbourhood(path)
        class_names = {part.split("#")[0] for module in near for key in scope.by_path.get(module, ())
                       for part in key[1].split(".")[:-1]}
        facts, quoted = [], set()
        for kind in sorted(RUN_FACT_READERS):
            data, paths = RUN_FACT_READERS[kind](self.analysis, near, class_names)
            facts.append((kind, data))
            quoted |= set(paths)
        material = (
            sorted((module, self._own(module)) for module in near),
            sorted((module, self.text_of(module)) for module in quoted - near),
            facts,
        )
        return _digest(material)


def importers(edges: dict, changed) -> set:
    """The modules that import, transitively, one of ``changed`` (``edges``: path -> the paths it imports)."""
    imported_by: dict = {}
    for path, targets in edges.items():
        for target in targets:
            imported_by.setdefault(target, []).append(path)
    found = set(changed)
    pending = list(changed)
    while pending:
        for path in imported_by.get(pending.pop(), ()):
            if path not in found:
                found.add(path)
                pending.append(path)
    return found


def _digest(material) -> str:
    return hashlib.sha256(repr(material).encode("utf-8", "surrogateescape")).hexdigest()[:32]
