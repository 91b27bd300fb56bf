"""``# pylint: disable=...`` comments, read with Pylint's meaning, for every front end.

graphlint's findings are Pylint messages, so a suppression must mean what it means under Pylint: a pragma at
the end of a line of code covers that statement; on a line of its own it covers the rest of the enclosing block
(or the whole function or class when written on its ``def``/``class`` line); ``disable-next`` covers the next
line; ``enable`` ends a ``disable``; ``skip-file`` (and ``disable=all``) skips the file. Names are rule ids,
symbols, Pylint's category letters (``E``, ``W``, ``I``, ...) or ``all``. Scopes are computed from the module's
tree and astroid's block ranges, the same inputs Pylint uses; ``tests/test_pragmas.py`` compares the two.
"""

from __future__ import annotations

import io
import re
import tokenize

from astroid import nodes

# The comment part that holds a pragma (the last one, when a comment holds several), and the pragma's own
# syntax (keywords, names, `=`).
_PRAGMA_COMMENT = re.compile(r"^.*#.*?\bpylint:\s*([^;#\n]+)")
_KEYWORDS = ("disable-next", "disable-msg", "enable-msg", "disable-all", "skip-file", "disable", "enable")
_TOKEN = re.compile(r"(?P<keyword>\b(?:" + "|".join(_KEYWORDS) + r")\b)|(?P<name>[0-9A-Za-z_-]{2,})|(?P<assign>=)"
                    r"|(?P<number>[CREIWF]\d*)")
_CATEGORIES = frozenset("CREIWF")


class Suppressions:
    """Which rule ids are disabled on which lines of one module."""

    def __init__(self, text: str, module: nodes.Module, rules) -> None:
        self.module = module
        self.skip_file = False
        self._by_name: dict[str, tuple[str, ...]] = {}
        for rule in rules:
            self._by_name.setdefault(rule.id.upper(), (rule.id,))
            self._by_name.setdefault(rule.symbol, (rule.id,))
        self._by_category: dict[str, tuple[str, ...]] = {}
        for rule in rules:
            self._by_category[rule.id[0]] = self._by_category.get(rule.id[0], ()) + (rule.id,)
        self._state: dict[str, dict[int, bool]] = {}
        self._read(text)

    def enabled(self, rule_id: str, line: int) -> bool:
        if self.skip_file:
            return False
        return self._state.get(rule_id, {}).get(line, True)

    # -- reading the comments --------------------------------------------------------------------
    def _read(self, text: str) -> None:
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        except (tokenize.TokenError, SyntaxError, IndentationError):
            return
        previous_line = None
        newline_before = newline_seen = True
        for kind, content, start, _, _ in tokens:
            if previous_line is not None and previous_line != start[0]:
                newline_before, newline_seen = newline_seen, False
            previous_line = start[0]
            if kind in (tokenize.NL, tokenize.NEWLINE):
                newline_seen = True
            if kind != tokenize.COMMENT:
                continue
            match = _PRAGMA_COMMENT.search(content)
            if match is None:
                continue
            # A line continued by a backslash belongs to the statement it continues.
            line = start[0] if newline_before else start[0] - 1
            for action, names in _parse(match.group(1)):
                if action in ("skip-file", "disable-all") or (action == "disable" and "all" in names):
                    self.skip_file = True
                    return
                for name in names:
                    for rule_id in self._resolve(name):
                        if action == "disable-next":
                            self._state.setdefault(rule_id, {})[line + 1] = False
                        elif action in ("disable", "disable-msg"):
                            self._set_block(rule_id, line, False)
                        elif action in ("enable", "enable-msg"):
                            self._set_block(rule_id, line, True)

    def _resolve(self, name: str) -> tuple[str, ...]:
        if name in self._by_name:
            return self._by_name[name]
        if name.upper() in self._by_name:
            return self._by_name[name.upper()]
        if len(name) == 1 and name.upper() in _CATEGORIES:
            return self._by_category.get(name.upper(), ())
        return ()

    # -- the lines a pragma covers -----------------------------------------------------------------
    def _set_block(self, rule_id: str, line: int, enabled: bool) -> None:
        pending = {line: enabled}
        # Children before parents: the innermost node holding the pragma's line decides its scope.
        stack = [(self.module, False)]
        while stack and pending:
            node, children_done = stack.pop()
            if not children_done:
                stack.append((node, True))
                if node.lineno != node.end_lineno:
                    stack.extend((child, False) for child in reversed(list(node.get_children())))
                continue
            self._cover(rule_id, pending, node)

    def _cover(self, rule_id: str, pending: dict[int, bool], node) -> None:
        if isinstance(node, (nodes.Module, nodes.ClassDef, nodes.FunctionDef)) and node.body:
            first_child = node.body[0].fromlineno
        else:
            first_child = node.tolineno
        state = self._state.setdefault(rule_id, {})
        for line, enabled in list(pending.items()):
            if not node.fromlineno <= line <= node.tolineno:
                continue
            # A pragma below a scope's first statement leaves the lines above it as they were.
            value = True if line > first_child else enabled
            first, last = node.block_range(line)
            if first == node.fromlineno and first >= first_child and node.fromlineno in state:
                first = line
            is_module = isinstance(node, nodes.Module)
            for covered in range(first, last + 1):
                before = node.fromlineno <= covered < line if is_module else node.fromlineno < covered < line
                if before and covered in state:
                    continue
                if covered in pending:
                    value = pending[covered]
                state[covered] = value
            del pending[line]


def _parse(pragma: str) -> list[tuple[str, list[str]]]:
    """(action, [names]) pairs of one pragma text such as ``disable=a,b enable=c``.

    A malformed part ends the pragma: what came before it still counts, as under Pylint."""
    found: list[tuple[str, list[str]]] = []

    def close(action, names) -> bool:
        if not names and action not in ("skip-file", "disable-all"):
            return False
        found.append((action, names))
        return True

    action, names, expect_assign = None, [], False
    for match in _TOKEN.finditer(pragma):
        kind, value = match.lastgroup, match.group()
        if kind == "assign":
            if not expect_assign:
                return found
            expect_assign = False
        elif expect_assign:
            return found
        elif kind == "keyword":
            if action is not None and not close(action, names):
                return found
            action, names = value, []
            expect_assign = value not in ("skip-file", "disable-all")
        else:
            names.append(value)
    if action is not None:
        close(action, names)
    return found


def apply(text: str, module: nodes.Module, findings: list, rules) -> list:
    """The findings that no pragma in ``text`` suppresses."""
    if not findings or "pylint" not in text:
        return findings
    suppressions = Suppressions(text, module, rules)
    return [f for f in findings if suppressions.enabled(f.rule.id, f.line)]
