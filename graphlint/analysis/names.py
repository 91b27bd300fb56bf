"""Resolve names to qualified MindSpore names from a module's imports, without inference.

``nn.Cell`` after ``from mindspore import nn`` and ``C`` after
``from mindspore.nn import Cell as C`` both resolve to ``mindspore.nn.Cell``.
astroid's inference is never used here: it would follow imports into
MindSpore's own sources, which are large, slow to analyse, and usually not
installed where linting runs.
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.api import canonical


_STATEMENT_HOLDERS = (nodes.ExceptHandler, nodes.MatchCase)  # hold statements without being one


class ImportTable:
    """Local name -> qualified name, for one module (or one function's own imports)."""

    def __init__(self, module: nodes.Module):
        self.module = module
        self.modname = module.name or ""
        self.aliases: dict[str, str] = {}
        for node in module.body:
            self._add(node)
        # Imports nested in module-level `if`/`try` blocks count too (optional dependencies). Only statements
        # are walked (imports are statements): asking the module's index here would build it for every file
        # while the run is still parsing, before it can be shared by the processes that check them.
        stack = list(reversed(module.body))
        while stack:
            node = stack.pop()
            if isinstance(node, (nodes.Import, nodes.ImportFrom)):
                self._add(node)
            elif not isinstance(node, (nodes.FunctionDef, nodes.ClassDef)):
                stack.extend(reversed([child for child in node.get_children()
                                       if child.is_statement or isinstance(child, _STATEMENT_HOLDERS)]))

    def _add(self, node) -> None:
        if isinstance(node, nodes.Import):
            for name, alias in node.names:
                if alias:
                    self.aliases[alias] = name
                else:
                    top = name.split(".")[0]
                    self.aliases.setdefault(top, top)
        elif isinstance(node, nodes.ImportFrom):
            base = self.absolute_from(node)
            for name, alias in node.names:
                if name == "*":
                    continue
                self.aliases[alias or name] = f"{base}.{name}" if base else name

    def absolute_from(self, node: nodes.ImportFrom) -> str:
        """The absolute module an ``ImportFrom`` reads from (relative imports resolved)."""
        if not node.level:
            return node.modname
        package_parts = self.modname.split(".")
        # A module's package is its name minus the last part, unless it is a package's __init__.
        is_package = (self.module.file or "").endswith("__init__.py")
        if not is_package:
            package_parts = package_parts[:-1]
        if node.level > 1:
            package_parts = package_parts[: len(package_parts) - (node.level - 1)] if len(package_parts) >= node.level - 1 else []
        parts = [p for p in package_parts if p]
        if node.modname:
            parts.append(node.modname)
        return ".".join(parts)

    def qualify(self, expr) -> str | None:
        """Qualified name of a Name/Attribute chain, or None when it is not an imported name. Remembered on the
        node, for the aliases it was qualified with (the analyses and the rules qualify the same expressions many
        times; a star-importing module's aliases are made again when what it star-imports changes)."""
        if not isinstance(expr, (nodes.Name, nodes.Attribute)):
            return None
        aliases = self.aliases
        found = expr.__dict__.get("_graphlint_qualified")
        if found is not None and found[0] is aliases:
            return found[1]
        qualified = self._qualify(expr)
        expr.__dict__["_graphlint_qualified"] = (aliases, qualified)
        return qualified

    def _qualify(self, expr) -> str | None:
        parts: list[str] = []
        while isinstance(expr, nodes.Attribute):
            parts.append(expr.attrname)
            expr = expr.expr
        if not isinstance(expr, nodes.Name):
            return None
        base = self.aliases.get(expr.name)
        if base is None:
            return None
        parts.append(base)
        return canonical(".".join(reversed(parts)))

    def local_name(self, expr) -> str | None:
        """``foo`` for a bare Name, ``a.b.c`` for an attribute chain on a Name."""
        parts: list[str] = []
        while isinstance(expr, nodes.Attribute):
            parts.append(expr.attrname)
            expr = expr.expr
        if not isinstance(expr, nodes.Name):
            return None
        parts.append(expr.name)
        return ".".join(reversed(parts))


def dotted(expr) -> str | None:
    """``a.b.c`` for an attribute chain ending in a Name, else None."""
    parts: list[str] = []
    while isinstance(expr, nodes.Attribute):
        parts.append(expr.attrname)
        expr = expr.expr
    if isinstance(expr, nodes.Name):
        parts.append(expr.name)
        return ".".join(reversed(parts))
    return None


def mentions_mindspore(text: str) -> bool:
    """Cheap pre-filter: files that never mention MindSpore are skipped without parsing."""
    return any(word in text for word in api.MINDSPORE_WORDS)
