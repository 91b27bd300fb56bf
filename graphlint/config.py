"""Options, from the command line and from ``[tool.graphlint]`` in ``pyproject.toml``."""

from __future__ import annotations

import fnmatch
import functools
import os
import shutil
import sys
from dataclasses import dataclass, field, replace

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

LEVELS = ("lax", "strict")
SEVERITIES = ("error", "warning", "info")  # selectors for the severity at the configured syntax level
# the output formats (--output-format, `output-format =`): graphlint.report.RENDERERS has one renderer for each
FORMATS = ("full", "concise", "text", "json", "sarif", "github")
DEFAULT_EXCLUDES = (".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "env", ".env", "__pycache__",
                    "build", "dist", "site-packages", "node_modules", ".eggs", ".mypy_cache", ".pytest_cache",
                    ".ruff_cache", ".graphlint_cache")


DEFAULT_TARGET = (2, 10)  # the release graphlint's rules were measured with


def parse_release(text: str) -> tuple[int, int] | None:
    """``"2.10"`` / ``"2.10.0"`` -> (2, 10); None when it is no release number."""
    parts = str(text).strip().split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        return None
    return int(parts[0]), int(parts[1])


@functools.lru_cache(maxsize=None)
def installed_release() -> tuple[int, int] | None:
    """The installed MindSpore's release, read from its package metadata (MindSpore is never imported); read
    once per process: looking it up scans every folder of sys.path (milliseconds, per checked module)."""
    from importlib import metadata  # here: ~15 ms to import; only a run judging rules by the release reads it

    try:
        return parse_release(metadata.version("mindspore"))
    except metadata.PackageNotFoundError:
        return None


class ConfigError(Exception):
    """A bad option value; ``str()`` is the one-line message."""


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()  # added to ``select`` (meaningful when ``select`` narrows the rules)
    extend_ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob pattern, selectors)
    syntax_level: str = "lax"
    format: str = ""  # "": full on a terminal, concise otherwise
    exclude: tuple[str, ...] = ()
    unroll_warn: int = 64  # trip count above which an unrolled loop is reported
    unroll_limit: int = 0  # 0: the measured default of MindSpore 2.10 (see catalogue.loops)
    validate_inputs: dict = field(default_factory=dict)  # "module:Entry" -> inputs (see graphlint.validate)
    validate_timeout: float = 300.0
    validate_memory_mb: int = 16384
    validate_python: str = ""  # the Python --validate runs MindSpore with ("": graphlint's own)
    cache_dir: str = ""  # "": .graphlint_cache next to the configuration file (or in the working folder)
    # megabytes lint's processes may hold together (0: 350 per process, at most 3/4 of what is available)
    max_memory: int = 0
    target_mindspore: str = ""  # "X.Y": the release graph code is written for ("": the installed one, else 2.10)
    fail_on: str = "warning"  # the least severity (at syntax_level) whose findings fail the run (exit 1)
    config_file: str = ""

    def __post_init__(self) -> None:
        if self.syntax_level not in LEVELS:
            raise ConfigError(f"syntax level must be one of {', '.join(LEVELS)}, not {self.syntax_level!r}")
        if self.format and self.format not in FORMATS:
            raise ConfigError(f"format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.unroll_warn < 1:
            raise ConfigError(f"unroll-warn must be a positive trip count, not {self.unroll_warn}")
        if self.max_memory < 0:
            raise ConfigError(f"max-memory must be a number of megabytes (0: the default), not {self.max_memory}")
        if self.fail_on not in SEVERITIES:
            raise ConfigError(f"fail-on must be one of {', '.join(SEVERITIES)}, not {self.fail_on!r}")
        if self.target_mindspore and parse_release(self.target_mindspore) is None:
            raise ConfigError(f"target-mindspore must be a release such as \"2.10\", not {self.target_mindspore!r}")

    def fails(self, finding) -> bool:
        """Whether ``finding`` fails the run: its severity (at the run's syntax level) is ``fail_on`` or worse."""
        return SEVERITIES.index(finding.severity.value) <= SEVERITIES.index(self.fail_on)

    @property
    def target(self) -> tuple[int, int]:
        """The MindSpore release the rules are judged for, as (major, minor)."""
        return parse_release(self.target_mindspore) or installed_release() or DEFAULT_TARGET

    # -- rule selection -----------------------------------------------------
    def _matches(self, selector: str, rule) -> bool:
        """Whether ``selector`` names ``rule``: ``ALL``, an id, a symbol, a family, an id prefix (``E``, ``W55``,
        ``E510``: the letter is the rule's severity at the lax level), or a severity at the configured syntax
        level (``error``, ``warning``, ``info``)."""
        selector = selector.strip()
        if not selector:
            return False
        upper = selector.upper()
        if upper == "ALL":
            return True
        if selector.lower() in SEVERITIES:
            return rule.severity(self.syntax_level, self.target).value == selector.lower()
        return (upper == rule.id or selector == rule.symbol or selector == rule.family
                or (selector[:1].isalpha() and (selector[1:] == "" or selector[1:].isdigit())
                    and rule.id.startswith(upper)))

    def enabled(self, rule) -> bool:
        if self.select and not any(self._matches(s, rule) for s in self.select + self.extend_select):
            return False
        return not any(self._matches(s, rule) for s in self.ignore + self.extend_ignore)

    def family_enabled(self, family: str) -> bool:
        from graphlint.catalogue import family_rules  # layer: config is shared below the catalogue

        rules = family_rules(family)
        return not rules or any(self.enabled(rule) for rule in rules)

    def unknown_in(self, selectors) -> list[str]:
        from graphlint.catalogue import RULES  # layer: config is shared below the catalogue

        return [s for s in selectors if s.strip() and not any(self._matches(s, rule) for rule in RULES)]

    # -- per-file ignores ---------------------------------------------------
    @property
    def base_dir(self) -> str:
        """The folder that relative patterns (``exclude``, ``per-file-ignores``) start from."""
        return os.path.dirname(os.path.abspath(self.config_file)) if self.config_file else os.getcwd()

    def ignored_in(self, path: str, rule) -> bool:
        """Whether ``per-file-ignores`` turns ``rule`` off in the file at ``path``."""
        if not self.per_file_ignores:
            return False
        absolute = os.path.abspath(path)
        relative = os.path.relpath(absolute, self.base_dir).replace(os.sep, "/")
        name = os.path.basename(absolute)
        for pattern, selectors in self.per_file_ignores:
            if _path_matches(pattern, relative, name, absolute) and any(self._matches(s, rule) for s in selectors):
                return True
        return False

    def analysis_key(self) -> str:
        """The options that change findings (for the result cache)."""
        chosen = ("select", "ignore", "extend_select", "extend_ignore", "syntax_level", "unroll_warn",
                  "unroll_limit")
        values = [(name, getattr(self, name)) for name in chosen] + [("target", self.target)]
        values.append(("per_file_ignores", self.per_file_ignores, self.base_dir if self.per_file_ignores else ""))
        return repr(values)


def _path_matches(pattern: str, relative: str, name: str, absolute: str) -> bool:
    pattern = pattern.replace(os.sep, "/")
    if pattern.endswith("/"):
        pattern += "*"
    if "/" not in pattern:
        return fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(relative, pattern)
    if pattern.startswith("./"):
        pattern = pattern[2:]
    return (fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(relative, pattern.rstrip("/") + "/*")
            or fnmatch.fnmatch(absolute.replace(os.sep, "/"), pattern))


_KEYS = {
    "select": "select", "ignore": "ignore", "extend-select": "extend_select", "extend-ignore": "extend_ignore",
    "per-file-ignores": "per_file_ignores", "syntax-level": "syntax_level", "format": "format",
    "output-format": "format", "exclude": "exclude", "unroll-warn": "unroll_warn", "unroll-limit": "unroll_limit",
    "validate-timeout": "validate_timeout", "validate-memory-mb": "validate_memory_mb", "cache-dir": "cache_dir",
    "target-mindspore": "target_mindspore", "max-memory": "max_memory", "fail-on": "fail_on",
}
_SELECTOR_KEYS = ("select", "ignore", "extend-select", "extend-ignore")


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


def _strings(value, source: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [v for v in value.split(",") if v.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: {key} must be a list of strings")
    return tuple(v.strip() for v in value)


def check_selectors(config: Config, selectors, where: str) -> None:
    """Raise ConfigError naming ``where`` (a file and key, or an option) for selectors that match no rule."""
    unknown = config.unknown_in(selectors)
    if unknown:
        raise ConfigError(f"{where}: unknown rule selector{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(repr(u) for u in unknown)} (graphlint --list-rules lists them)")


def from_table(table: dict, base: Config | None = None, source: str = "") -> Config:
    values = {}
    for key, value in table.items():
        if key == "validate":
            values.update(_validate_table(value, source))
            continue
        attribute = _KEYS.get(key)
        if attribute is None:
            raise ConfigError(f"{source}: unknown option {key!r} in [tool.graphlint]")
        values[attribute] = _option_value(key, attribute, value, source)
    try:
        config = replace(base or Config(), config_file=source or (base.config_file if base else ""), **values)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    for key in _SELECTOR_KEYS:
        if key in table:
            check_selectors(config, getattr(config, _KEYS[key]), f"{source}: {key}")
    for pattern, chosen in config.per_file_ignores if "per-file-ignores" in table else ():
        check_selectors(config, chosen, f"{source}: per-file-ignores {pattern!r}")
    return config


def _validate_table(value, source: str) -> dict:
    """The options of ``[tool.graphlint.validate]``, checked: ``{attribute: value}``."""
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: [tool.graphlint.validate] must be a table")
    for sub in value:
        if sub not in ("inputs", "timeout", "memory-mb", "python"):
            raise ConfigError(f"{source}: unknown option {sub!r} in [tool.graphlint.validate]")
    inputs = value.get("inputs", {})
    if not isinstance(inputs, dict):
        raise ConfigError(f"{source}: [tool.graphlint.validate.inputs] must be a table")
    # here: validate/ stands aside the layers; only a configuration declaring inputs needs its checks
    from graphlint.validate.specs import entry_problem

    base_dir = os.path.dirname(os.path.abspath(source)) if source else ""
    for entry, declared in inputs.items():
        problem = entry_problem(entry, declared, base_dir)
        if problem:
            raise ConfigError(f"{source}: [tool.graphlint.validate.inputs] {problem}")
    values = {"validate_inputs": dict(inputs)}
    if "python" in value:
        if not isinstance(value["python"], str) or not value["python"].strip():
            raise ConfigError(f"{source}: validate.python must be the path of a Python interpreter")
        values["validate_python"] = python_path(value["python"], base_dir)
    for sub in ("timeout", "memory-mb"):
        if sub in value:
            _check_number(value[sub], source, f"validate.{sub}", integer=sub == "memory-mb")
            values[_KEYS[f"validate-{sub}"]] = value[sub]
    return values


def python_path(given: str, base_dir: str = "") -> str:
    """The interpreter ``given`` names: a path (relative to ``base_dir``, the configuration's folder) or a command
    found on PATH (``python3.11``)."""
    given = os.path.expanduser(given.strip())
    if os.sep in given or (os.altsep and os.altsep in given):
        return os.path.abspath(os.path.join(base_dir, given)) if base_dir else os.path.abspath(given)
    return shutil.which(given) or given


def _option_value(key: str, attribute: str, value, source: str):
    """The value of one option of ``[tool.graphlint]``, checked (selectors and globs as tuples of strings)."""
    if key in _SELECTOR_KEYS or attribute == "exclude":
        return _strings(value, source, key)
    if attribute == "per_file_ignores":
        if not isinstance(value, dict):
            raise ConfigError(f"{source}: per-file-ignores must be a table of glob pattern = [rules]")
        return tuple((pattern, _strings(chosen, source, f"per-file-ignores {pattern!r}"))
                     for pattern, chosen in value.items())
    if attribute in ("unroll_warn", "unroll_limit", "validate_memory_mb", "max_memory"):
        _check_number(value, source, key, integer=True)
    elif attribute == "validate_timeout":
        _check_number(value, source, key, integer=False)
    elif not isinstance(value, str):
        raise ConfigError(f"{source}: {key} must be a string")
    return value


def _check_number(value, source: str, key: str, integer: bool) -> None:
    kinds = (int,) if integer else (int, float)
    if not isinstance(value, kinds) or isinstance(value, bool):
        raise ConfigError(f"{source}: {key} must be {'an integer' if integer else 'a number'}, not {value!r}")


def config_for(start: str, explicit: str | None = None) -> Config:
    """The configuration that applies to files under ``start``."""
    path = explicit or find_pyproject(start)
    if not path:
        return Config()
    return from_table(load_pyproject(path), Config(), path)

