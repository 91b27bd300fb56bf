"""The ``graphlint`` command.

Exit status: 0 nothing found, 1 findings (or, with --diff, changes), 2 a usage
error or a file that could not be checked (findings in other files are still
printed).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace

from graphlint import __version__
from graphlint.config import LEVELS, Config, ConfigError, config_for, from_table, load_pyproject
from graphlint.report import FORMATS

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, no usage dump
        print(f"graphlint: error: {message} (see graphlint --help)", file=sys.stderr)
        raise SystemExit(EXIT_ERROR)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="graphlint",
        description="Find (and fix) the Python that breaks, slows or silently changes MindSpore GRAPH_MODE.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files and directories (searched recursively)")
    parser.add_argument("--select", action="append", default=None, metavar="RULES",
                        help="only these rules: ids, symbols, families or id prefixes, comma separated")
    parser.add_argument("--ignore", action="append", default=None, metavar="RULES", help="skip these rules")
    parser.add_argument("--syntax-level", choices=LEVELS, help="MindSpore JIT syntax level (default: lax)")
    parser.add_argument("--format", choices=FORMATS, help="output format (default: text)")
    parser.add_argument("--config", metavar="PYPROJECT", help="read [tool.graphlint] from this file")
    parser.add_argument("--exclude", action="append", default=None, metavar="PATTERNS",
                        help="glob patterns of files or folders to skip, comma separated")
    parser.add_argument("--unroll-warn", type=int, metavar="N", help="warn about loops unrolled more than N times")
    parser.add_argument("--fix", action="store_true", help="apply safe fixes, re-lint, repeat; write files atomically")
    parser.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes marked unsafe")
    parser.add_argument("--diff", action="store_true",
                        help="print the fixes as a unified diff and write nothing (exit 1 when there is a diff)")
    parser.add_argument("--validate", action="store_true",
                        help="with --fix/--diff: keep only fixes whose rewrite compiles in GRAPH_MODE and matches "
                             "the original's PYNATIVE outputs (needs graphlint[validate])")
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when findings remain (2 still means a file could not be checked)")
    parser.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in FILE")
    parser.add_argument("--write-baseline", metavar="FILE", help="record the current findings in FILE and exit 0")
    parser.add_argument("--list-rules", action="store_true", help="list every rule and exit")
    parser.add_argument("--explain", metavar="RULE", help="print the documentation of a rule and exit")
    parser.add_argument("--version", action="version", version=f"graphlint {__version__}")
    return parser


def _split(values) -> tuple[str, ...]:
    if not values:
        return ()
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def resolve_config(args) -> Config:
    if args.config:
        if not os.path.isfile(args.config):
            raise ConfigError(f"{args.config}: no such configuration file")
        config = from_table(load_pyproject(args.config), Config(), args.config)
    else:
        start = os.path.commonpath([os.path.abspath(p) for p in args.paths]) if args.paths else os.getcwd()
        config = config_for(start if os.path.exists(start) else os.getcwd())
    overrides = {}
    if args.select:
        overrides["select"] = _split(args.select)
    if args.ignore:
        overrides["ignore"] = config.ignore + _split(args.ignore)
    if args.exclude:
        overrides["exclude"] = config.exclude + _split(args.exclude)
    for name in ("syntax_level", "format", "unroll_warn"):
        value = getattr(args, name)
        if value is not None:
            overrides[name] = value
    return replace(config, **overrides) if overrides else config


def main(argv=None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("graphlint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - the last line of defence: one line, never a traceback
        print(f"graphlint: internal error: {type(exc).__name__}: {exc}. Please report it "
              "(set GRAPHLINT_DEBUG=1 for the traceback).", file=sys.stderr)
        if os.environ.get("GRAPHLINT_DEBUG"):
            raise
        return EXIT_ERROR


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    if args.list_rules:
        from graphlint.docs import rule_table

        print(rule_table())
        return EXIT_CLEAN
    if args.explain:
        from graphlint.docs import explain

        text = explain(args.explain)
        if text is None:
            print(f"graphlint: error: no rule {args.explain!r} (graphlint --list-rules lists them)", file=sys.stderr)
            return EXIT_ERROR
        print(text)
        return EXIT_CLEAN
    try:
        config = resolve_config(args)
    except ConfigError as exc:
        print(f"graphlint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    unknown = config.unknown_selectors()
    if unknown:
        print(f"graphlint: error: unknown rule selector(s): {', '.join(unknown)} "
              "(graphlint --list-rules lists them)", file=sys.stderr)
        return EXIT_ERROR
    if not args.paths:
        print("graphlint: no paths given, nothing to check", file=sys.stderr)
        return EXIT_CLEAN

    if args.validate and not (args.fix or args.diff):
        print("graphlint: error: --validate goes with --fix or --diff", file=sys.stderr)
        return EXIT_ERROR
    if args.unsafe_fixes and not (args.fix or args.diff):
        print("graphlint: error: --unsafe-fixes goes with --fix or --diff", file=sys.stderr)
        return EXIT_ERROR
    if args.fix or args.diff:
        return _fix(args, config)

    from graphlint.baseline import BaselineError, new_findings, write_baseline
    from graphlint.lint import lint_paths
    from graphlint.report import RENDERERS

    result = lint_paths(args.paths, config)
    for problem in result.problems:
        print(problem.line(), file=sys.stderr)
    texts = {path: source.text for path, source in result.sources.items()}
    if args.write_baseline:
        count = write_baseline(args.write_baseline, result.findings, texts)
        print(f"graphlint: recorded {count} finding{'s' if count != 1 else ''} in {args.write_baseline}",
              file=sys.stderr)
        return EXIT_ERROR if result.problems else EXIT_CLEAN
    if args.baseline:
        try:
            result.findings = new_findings(args.baseline, result.findings, texts)
        except BaselineError as exc:
            print(f"graphlint: error: {exc}", file=sys.stderr)
            return EXIT_ERROR
    sys.stdout.write(RENDERERS[config.format](result.findings, result.problems))
    sys.stdout.flush()
    if result.problems:
        return EXIT_ERROR
    return EXIT_FINDINGS if result.findings and not args.exit_zero else EXIT_CLEAN


def _fix(args, config) -> int:
    from graphlint.files import unified_diff
    from graphlint.fixers.driver import fix_paths
    from graphlint.report import RENDERERS

    report = fix_paths(args.paths, config, unsafe=args.unsafe_fixes, validate=args.validate,
                       write=args.fix and not args.diff)
    for problem in report.lint.problems:
        print(problem.line(), file=sys.stderr)
    changed = [f for f in report.files if f.changed]
    if args.diff:
        for outcome in changed:
            sys.stdout.write(unified_diff(outcome.path, outcome.before, outcome.after))
    else:
        sys.stdout.write(RENDERERS[config.format](report.remaining, report.lint.problems))
    _summary(report, wrote=not args.diff)
    if report.lint.problems or any(f.error for f in report.files):
        return EXIT_ERROR
    if args.diff:
        return EXIT_FINDINGS if changed and not args.exit_zero else EXIT_CLEAN
    return EXIT_FINDINGS if report.remaining and not args.exit_zero else EXIT_CLEAN


def _place(item) -> str:
    return f"{item.path}:{item.line}" + (f":{item.column}" if item.column else "")


def _summary(report, wrote: bool) -> None:
    applied = report.applied
    suggested = [r for r in report.refused if r.suggestion]
    refused = [r for r in report.refused if not r.suggestion]
    files = len({a.path for a in applied})
    verb = "applied" if wrote else "would be applied"
    lines = [f"graphlint: {len(applied)} fix{'es' if len(applied) != 1 else ''} {verb} in {files} "
             f"file{'s' if files != 1 else ''}, {len(refused)} refused"
             + (f", {len(suggested)} suggested (display-only)" if suggested else "")]
    for item in sorted(applied, key=lambda a: (a.path, a.line)):
        note = f" [{item.validation}]" if item.validation else ""
        lines.append(f"  fixed   {item.path}:{item.line}: {item.rule} {item.symbol}: {item.description}{note}")
    for item in refused:
        lines.append(f"  refused {_place(item)}: {item.rule} {item.symbol}: {item.reason}")
    for item in suggested:
        lines.append(f"  suggest {_place(item)}: {item.rule} {item.symbol}: {item.reason}")
        lines.extend("      " + line for line in item.suggestion.splitlines())
    for outcome in report.files:
        if outcome.error:
            lines.append(f"  {outcome.path}: {outcome.error}")
    print("\n".join(lines), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
