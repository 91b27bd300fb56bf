"""Options, from the command line and from ``[tool.graphlint]`` in ``pyproject.toml``."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, fields, replace

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

LEVELS = ("lax", "strict")
DEFAULT_EXCLUDES = (".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "env", ".env", "__pycache__",
                    "build", "dist", "site-packages", "node_modules", ".eggs", ".mypy_cache", ".pytest_cache",
                    ".ruff_cache")


class ConfigError(Exception):
    """A bad option value; ``str()`` is the one-line message."""


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    syntax_level: str = "lax"
    format: str = "text"
    exclude: tuple[str, ...] = ()
    unroll_warn: int = 64  # trip count above which an unrolled loop is reported
    unroll_limit: int = 0  # 0: the measured default of MindSpore 2.10 (see catalogue.loops)
    validate_inputs: dict = field(default_factory=dict)  # "module:Entry" -> inputs (see graphlint.validate)
    validate_timeout: float = 300.0
    validate_memory_mb: int = 16384
    config_file: str = ""

    def __post_init__(self) -> None:
        if self.syntax_level not in LEVELS:
            raise ConfigError(f"syntax level must be one of {', '.join(LEVELS)}, not {self.syntax_level!r}")
        from graphlint.report import FORMATS

        if self.format not in FORMATS:
            raise ConfigError(f"format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.unroll_warn < 1:
            raise ConfigError(f"unroll-warn must be a positive trip count, not {self.unroll_warn}")

    # -- rule selection -----------------------------------------------------
    @staticmethod
    def _matches(selector: str, rule) -> bool:
        selector = selector.strip()
        if not selector:
            return False
        if selector.upper() == "ALL":
            return True
        return (selector.upper() == rule.id or selector == rule.symbol or selector == rule.family
                or (selector[:1].isalpha() and selector[1:].isdigit() and rule.id.startswith(selector.upper())))

    def enabled(self, rule) -> bool:
        if self.select and not any(self._matches(s, rule) for s in self.select):
            return False
        return not any(self._matches(s, rule) for s in self.ignore)

    def family_enabled(self, family: str) -> bool:
        from graphlint.catalogue import family_rules

        rules = family_rules(family)
        return not rules or any(self.enabled(rule) for rule in rules)

    def unknown_selectors(self) -> list[str]:
        from graphlint.catalogue import RULES

        return [s for s in self.select + self.ignore
                if s.strip() and not any(self._matches(s, rule) for rule in RULES)]


_KEYS = {
    "select": "select", "ignore": "ignore", "syntax-level": "syntax_level", "format": "format",
    "exclude": "exclude", "unroll-warn": "unroll_warn", "unroll-limit": "unroll_limit",
    "validate-timeout": "validate_timeout", "validate-memory-mb": "validate_memory_mb",
}


def find_pyproject(start: str) -> str | None:
    folder = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load_pyproject(path: str) -> dict:
    """The ``[tool.graphlint]`` table (empty when absent); raises ConfigError on bad TOML."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read [tool.graphlint]: {exc}") from None
    table = data.get("tool", {}).get("graphlint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.graphlint] must be a table")
    return table


def from_table(table: dict, base: Config | None = None, source: str = "") -> Config:
    values = {}
    for key, value in table.items():
        if key == "validate":
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: [tool.graphlint.validate] must be a table")
            inputs = value.get("inputs", {})
            if not isinstance(inputs, dict):
                raise ConfigError(f"{source}: [tool.graphlint.validate.inputs] must be a table")
            values["validate_inputs"] = dict(inputs)
            for sub in ("timeout", "memory-mb"):
                if sub in value:
                    values[_KEYS[f"validate-{sub}"]] = value[sub]
            continue
        attribute = _KEYS.get(key)
        if attribute is None:
            raise ConfigError(f"{source}: unknown option {key!r} in [tool.graphlint]")
        if attribute in ("select", "ignore", "exclude"):
            if isinstance(value, str):
                value = [v for v in value.split(",") if v.strip()]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{source}: {key} must be a list of strings")
            value = tuple(v.strip() for v in value)
        elif attribute in ("unroll_warn", "unroll_limit", "validate_memory_mb"):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"{source}: {key} must be an integer")
        elif attribute == "validate_timeout":
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise ConfigError(f"{source}: {key} must be a number")
        elif not isinstance(value, str):
            raise ConfigError(f"{source}: {key} must be a string")
        values[attribute] = value
    try:
        return replace(base or Config(), config_file=source or (base.config_file if base else ""), **values)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def config_for(start: str, explicit: str | None = None) -> Config:
    """The configuration that applies to files under ``start``."""
    path = explicit or find_pyproject(start)
    if not path:
        return Config()
    return from_table(load_pyproject(path), Config(), path)


CONFIG_FIELDS = {f.name for f in fields(Config)}
