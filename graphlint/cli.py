"""The ``graphlint`` command.

``graphlint [check] [PATH ...]`` lints (``.`` without a path; ``-`` reads standard input);
``graphlint server`` runs the language server; ``graphlint explain-error [LOG|-]`` explains a MindSpore error.

Exit status: 0 no finding that fails the run (--fail-on: by default errors and warnings fail it, info findings
do not), 1 findings that fail it (or, with --diff, changes), 2 a usage error or a file that could not be checked
or fixed (findings in other files are still printed).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from dataclasses import replace

from graphlint import __version__
from graphlint.config import (LEVELS, SEVERITIES, Config, ConfigError, check_selectors, config_for, from_table,
                              load_pyproject, python_path)
from graphlint.report import (FORMATS, MACHINE_FORMATS, MARKERS, RENDERERS, NoProgress, Progress, RenderOptions, paint,
                              render_statistics, summary_line, use_color)
from graphlint.results import printable

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

# name -> the module whose main(argv) runs it (imported only when used; written and installed separately)
SUBCOMMANDS = {"server": "graphlint.server", "explain-error": "graphlint.explain_error"}

EPILOG = """\
subcommands:
  graphlint server [--stdio]       the language server (diagnostics, quick fixes) for editors
  graphlint explain-error [LOG|-]  explain a MindSpore compile error from a log (or standard input)
  graphlint check PATH...          the same as `graphlint PATH...` (for a folder named like a subcommand)

fix markers: [*] a safe fix is available (`graphlint --fix` applies it), [~] an unsafe fix is available
(`--fix --unsafe-fixes`). They come from the fix planner, asked for each finding as --fix would plan it;
--fix can still refuse an instance whose rewrite does not parse or, with --validate, does not compile.

exit status: 0 when no finding fails the run (by default an error or a warning fails it; info findings are
printed but exit 0: --fail-on and fail-on in [tool.graphlint] change that; --exit-zero: nothing fails it),
1 when one does (with --diff: when there is a diff), 2 for a usage or configuration error, or a file that could
not be checked (or, with --fix, written). Paths with no Python file: a warning on stderr, exit 0.

selectors (--select, --ignore, per-file-ignores): ALL, an id (E5101), a symbol (try-in-graph), a family
(statements), an id prefix (E, W55, E510: the letter is the severity at the default lax level), or a
severity at the configured --syntax-level (error, warning, info).
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, no usage dump
        print(f"graphlint: error: {message} (see graphlint --help)", file=sys.stderr)
        raise SystemExit(EXIT_ERROR)


def _whole_number(unit: str, least: int, least_text: str):
    """An argparse type: a whole number of ``unit``, at least ``least`` (said as ``least_text``)."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number of {unit}, not {value!r}") from None
        if number < least:
            raise argparse.ArgumentTypeError(f"must be {least_text} or more, not {number}")
        return number

    return parse


_jobs = _whole_number("processes", 0, "0 (one per core)")
_megabytes = _whole_number("megabytes", 1, "1 megabyte")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="graphlint",
        usage="graphlint [options] [PATH ...]   (or: graphlint server | explain-error [LOG|-] | check PATH...)",
        description="Find (and fix) the Python that breaks, slows or silently changes MindSpore GRAPH_MODE.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files and directories (searched recursively; default: .); - reads standard input")
    rules = parser.add_argument_group("rule selection")
    rules.add_argument("--select", action="append", default=None, metavar="RULES",
                       help="only these rules (comma separated selectors; replaces select from pyproject.toml)")
    rules.add_argument("--extend-select", action="append", default=None, metavar="RULES",
                       help="add these rules to the selection")
    rules.add_argument("--ignore", action="append", default=None, metavar="RULES", help="skip these rules")
    rules.add_argument("--extend-ignore", action="append", default=None, metavar="RULES",
                       help="skip these rules too (the same as --ignore)")
    rules.add_argument("--syntax-level", choices=LEVELS,
                       help="MindSpore JIT syntax level the severities are for (default: lax; strict: MindIR "
                            "export and jit(fullgraph=True))")
    rules.add_argument("--unroll-warn", type=int, metavar="N", help="warn about loops unrolled more than N times")
    rules.add_argument("--target-mindspore", metavar="X.Y",
                       help="the MindSpore release the code is for (default: the installed one, else 2.10)")
    output = parser.add_argument_group("output")
    output.add_argument("--output-format", "--format", dest="format", choices=FORMATS,
                        help="full (source line, caret, help; the default on a terminal), concise (one line per "
                             "finding; the default otherwise; `text` is its old name), json, sarif, github")
    output.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colours (default auto: on a terminal, unless NO_COLOR is set)")
    output.add_argument("--statistics", action="store_true",
                        help="print the number of findings per rule (count, id, symbol, severity, fixable) "
                             "instead of the findings")
    output.add_argument("--show-fixes", action="store_true",
                        help="list what each available fix does; with --fix/--diff, every fix applied and "
                             "every suggested rewrite")
    output.add_argument("-q", "--quiet", action="store_true",
                        help="print the findings only: no summary line, no success message, no progress bar")
    output.add_argument("-v", "--verbose", action="store_true",
                        help="say how the run was answered (the result cache: what changed, what was checked again)")
    output.add_argument("--no-progress", action="store_true", help="no progress bar (it is shown only on a "
                                                                    "terminal, for runs longer than half a second)")
    output.add_argument("--fail-on", choices=SEVERITIES,
                        help="the least severity that fails the run (exit 1): error, warning (the default: errors "
                             "and warnings fail, info findings do not) or info (every finding fails); fail-on in "
                             "[tool.graphlint]")
    output.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when findings remain (2 still means a file could not be checked)")
    inputs = parser.add_argument_group("input")
    inputs.add_argument("--stdin-filename", metavar="PATH",
                        help="with -: the file the text on standard input is (for its configuration, imports "
                             "and the path shown)")
    inputs.add_argument("--config", metavar="PYPROJECT", help="read [tool.graphlint] from this file")
    inputs.add_argument("--exclude", action="append", default=None, metavar="PATTERNS",
                        help="glob patterns of files or folders to skip, comma separated")
    inputs.add_argument("--project-root", metavar="DIR",
                        help="read every Python file under DIR, so that Cells, helpers and jit functions resolve "
                             "across the project, and report only the findings in the given files and in the "
                             "helpers their graph entries reach, wherever those are (the pre-commit hook passes "
                             "the staged files); the result cache keeps it fast")
    speed = parser.add_argument_group("speed")
    speed.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                       help="lint in N processes, each parsing its share of the files; --fix (without --validate) "
                            "fixes in N processes too (default and 0: one per core)")
    speed.add_argument("--max-memory", type=_megabytes, default=None, metavar="MB",
                       help="keep lint's processes within about MB megabytes together (default: max-memory in "
                            "[tool.graphlint], else 350 per process of --jobs, at most three quarters of the memory "
                            "available); a project too large for it is parsed twice, in processes that stop before "
                            "they outgrow their share, which is slower")
    speed.add_argument("--no-cache", action="store_true",
                       help="do not read or write the result cache (.graphlint_cache; GRAPHLINT_NO_CACHE=1 too)")
    speed.add_argument("--cache-dir", metavar="DIR",
                       help="where the result cache lives (default: .graphlint_cache next to pyproject.toml)")
    fixing = parser.add_argument_group("fixing")
    fixing.add_argument("--fix", action="store_true",
                        help="apply safe fixes, re-lint, repeat; write files atomically")
    fixing.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes marked unsafe")
    fixing.add_argument("--diff", action="store_true",
                        help="print the fixes as a unified diff and write nothing (exit 1 when there is a diff)")
    fixing.add_argument("--validate", action="store_true",
                        help="with --fix/--diff: keep only fixes whose rewrite compiles in GRAPH_MODE and matches "
                             "the original's PYNATIVE outputs (needs MindSpore: "
                             "pip install 'mindspore-graphlint[validate]')")
    fixing.add_argument("--python", metavar="PATH",
                        help="with --validate: the Python that runs MindSpore (default: python under "
                             "[tool.graphlint.validate], else graphlint's own)")
    adopting = parser.add_argument_group("baselines")
    adopting.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in FILE")
    adopting.add_argument("--write-baseline", metavar="FILE", help="record the current findings in FILE and exit 0")
    about = parser.add_argument_group("documentation")
    about.add_argument("--list-rules", action="store_true", help="list every rule and exit")
    about.add_argument("--explain", metavar="RULE", help="print the documentation of a rule and exit")
    about.add_argument("--version", action="version", version=f"graphlint {__version__}")
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
        if args.stdin_filename:
            start = os.path.dirname(os.path.abspath(args.stdin_filename))
        else:
            paths = [p for p in args.paths if p != "-"]
            start = os.path.commonpath([os.path.abspath(p) for p in paths]) if paths else os.getcwd()
        while not os.path.exists(start) and os.path.dirname(start) != start:
            start = os.path.dirname(start)
        config = config_for(start)
    overrides = {}
    for option in ("select", "extend_select", "ignore", "extend_ignore"):
        chosen = _split(getattr(args, option))
        if chosen:
            check_selectors(config, chosen, "--" + option.replace("_", "-"))
    if args.select:
        overrides["select"] = _split(args.select)
        overrides["extend_select"] = ()
    if args.extend_select:
        overrides["extend_select"] = overrides.get("extend_select", config.extend_select) + _split(args.extend_select)
    if args.ignore:
        overrides["ignore"] = config.ignore + _split(args.ignore)
    if args.extend_ignore:
        overrides["extend_ignore"] = config.extend_ignore + _split(args.extend_ignore)
    if args.exclude:
        overrides["exclude"] = config.exclude + _split(args.exclude)
    for name in ("syntax_level", "format", "unroll_warn", "target_mindspore", "max_memory", "fail_on"):
        value = getattr(args, name)
        if value is not None:
            overrides[name] = value
    if args.cache_dir:
        overrides["cache_dir"] = os.path.abspath(args.cache_dir)
    if args.python:
        overrides["validate_python"] = python_path(args.python)
    return replace(config, **overrides) if overrides else config


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in SUBCOMMANDS:
            return _subcommand(argv[0], argv[1:])
        if argv and argv[0] == "check":
            argv = argv[1:]
        return _main(argv)
    except KeyboardInterrupt:
        print("\ngraphlint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _quiet_broken_pipe()
        return EXIT_CLEAN
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - the last line of defence: one line, never a traceback
        print(f"graphlint: internal error: {type(exc).__name__}: {exc}. Please report it "
              "(set GRAPHLINT_DEBUG=1 for the traceback).", file=sys.stderr)
        if os.environ.get("GRAPHLINT_DEBUG"):
            raise
        return EXIT_ERROR


def _quiet_broken_pipe() -> None:
    """`graphlint ... | head`: the reader went away; do not let the interpreter complain at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _subcommand(name: str, argv) -> int:
    module_name = SUBCOMMANDS[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            print(f"graphlint: error: `graphlint {name}` is not available in this installation "
                  f"({module_name} is missing)", file=sys.stderr)
        else:
            print(f"graphlint: error: `graphlint {name}` needs the Python package {exc.name!r}, which is not "
                  "installed", file=sys.stderr)
        return EXIT_ERROR
    except ImportError as exc:
        print(f"graphlint: error: `graphlint {name}` cannot start: {exc}", file=sys.stderr)
        return EXIT_ERROR
    entry = getattr(module, "main", None)
    if entry is None:
        print(f"graphlint: error: `graphlint {name}` is not available in this installation "
              f"({module_name} has no main)", file=sys.stderr)
        return EXIT_ERROR
    code = entry(list(argv))
    return EXIT_CLEAN if code is None else int(code)


def _error(message: str) -> int:
    print(f"graphlint: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _main(argv) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    mistaken = _option_written_as_word(parser, args.paths)
    if mistaken:
        return _error(mistaken)
    if args.list_rules or args.explain:
        return _describe_rules(args)
    stdin = "-" in args.paths or (args.stdin_filename is not None and not args.paths)
    problem = _input_problem(args, stdin)
    if problem:
        return _error(problem)
    try:
        config = resolve_config(args)
    except ConfigError as exc:
        return _error(str(exc))
    problem = _combination_problem(args, stdin)
    if problem:
        return _error(problem)
    paths = args.paths or ["."]
    color_out = _color(args, sys.stdout)
    progress = _progress(args)
    from graphlint.collector import one_shot_run  # noqa: PLC0415 - (start-up: only a checking run needs it)

    with one_shot_run():
        return _check(args, config, paths, progress, color_out, stdin)


def _describe_rules(args) -> int:
    """``--list-rules`` / ``--explain RULE``."""
    from graphlint.docs import explain, rule_table  # noqa: PLC0415 - (start-up: the docs' tables, on request)

    if args.list_rules:
        print(rule_table())
        return EXIT_CLEAN
    text = explain(args.explain)
    if text is None:
        return _error(f"no rule {args.explain!r} (graphlint --list-rules lists them)")
    print(text)
    return EXIT_CLEAN


def _input_problem(args, stdin: bool) -> str:
    """What is wrong with reading standard input as asked ("" if nothing)."""
    if stdin and args.paths not in ([], ["-"]):
        return "- (standard input) cannot be combined with other paths"
    if args.stdin_filename is not None and not stdin:
        return "--stdin-filename goes with - (standard input) and no other path"
    if args.stdin_filename == "":
        return "--stdin-filename needs a file name"
    return ""


def _combination_problem(args, stdin: bool) -> str:
    """Options that do not go together ("" if none): the first of the table's that holds."""
    fixing = args.fix or args.diff
    root = args.project_root
    problems = (
        (args.validate and not fixing, "--validate goes with --fix or --diff"),
        (args.python and not args.validate, "--python goes with --validate"),
        (args.unsafe_fixes and not fixing, "--unsafe-fixes goes with --fix or --diff"),
        (stdin and fixing, "--fix and --diff rewrite files; they do not read standard input"),
        ((args.baseline or args.write_baseline) and fixing,
         "--baseline and --write-baseline go with a lint run, not with --fix or --diff"),
        (args.baseline and args.write_baseline, "--baseline and --write-baseline cannot be used together"),
        (args.statistics and args.format in ("sarif", "github"),
         f"--statistics prints a table (or JSON with --output-format json), not {args.format}"),
        (root is not None and (stdin or fixing),
         "--project-root goes with a lint run of files, not with - (standard input), --fix or --diff"),
        (root is not None and not os.path.isdir(root), f"--project-root {root}: not a folder"),
    )
    return next((message for holds, message in problems if holds), "")


def _option_written_as_word(parser, paths) -> str | None:
    """`graphlint explain E5101`: a first path that does not exist and is the name of an option without its
    dashes is a mistyped command, not a file; the message names the command meant (None: nothing mistaken)."""
    if not paths or os.path.exists(paths[0]):
        return None
    option = "--" + paths[0]
    if option not in parser._option_string_actions:  # argparse keeps no public table of its options
        return None
    meant = " ".join(["graphlint", option, *paths[1:]])
    return f"{paths[0]!r} is neither a subcommand nor a path; did you mean `{meant}`?"


def _check(args, config, paths, progress, color_out, stdin) -> int:
    if args.fix or args.diff:
        return _fix(args, config, paths, progress, color_out)

    fmt = _format(config)
    want_fixes = args.statistics or args.show_fixes or fmt in ("full", "json") or _summary_counts_fixes(args, fmt)
    try:
        if stdin:
            # imported here: start-up (--help and a run the result cache answers load only what they use)
            from graphlint.run.lint import lint_stdin

            text = _read_stdin()
            if text is None:
                return _error("standard input is not UTF-8 text")
            result = lint_stdin(text, config, args.stdin_filename or "", fix_markers=want_fixes)
            if result.problems:  # the text could not be checked: no file was (the summary counts checked files)
                result.files = result.lines = 0
        else:
            result = _lint(args, config, paths, progress, want_fixes)
    finally:
        progress.close()
    for problem in result.problems:
        print(problem.line(), file=sys.stderr)
    if not stdin:
        _warn_if_nothing_found(args, paths, result)
    texts = {path: source.text for path, source in result.sources.items()}
    if args.write_baseline or args.baseline:
        code = _apply_baseline(args, result, texts)
        if code is not None:
            return code
    options = RenderOptions(color=color_out, fixes=result.fixes)
    if fmt == "full" and not args.statistics:
        options.texts = _texts_of(result, texts)
    if args.statistics:
        sys.stdout.write(render_statistics(result.findings, options, "json" if fmt == "json" else "concise"))
    else:
        sys.stdout.write(RENDERERS[fmt](result.findings, result.problems, options))
    if args.show_fixes and fmt not in MACHINE_FORMATS:
        sys.stdout.write(_fixes_listing(result, color_out))
    if _summarise(args, fmt):
        sys.stdout.write(summary_line(result.findings, result.problems, result.files, options, lines=result.lines,
                                      color=color_out) + "\n")
    sys.stdout.flush()
    if result.problems:
        return EXIT_ERROR
    return _findings_status(args, config, result.findings)


def _warn_if_nothing_found(args, paths, result) -> None:
    """A run that found no Python file to read (an empty folder, or every file excluded) says so on stderr, and
    still exits 0: nothing was found wrong, and a project may have no Python yet (a path that does not exist is
    an error, exit 2)."""
    if result.files or result.problems or args.quiet:
        return
    print(f"graphlint: warning: no Python files found under {', '.join(printable(path) for path in paths)}",
          file=sys.stderr)


def _apply_baseline(args, result, texts) -> int | None:
    """``--write-baseline`` (records the findings: the exit status) or ``--baseline`` (keeps only the findings it
    does not hold: None, the run goes on)."""
    # imported here: start-up (--help and a run the result cache answers load only what they use)
    from graphlint.baseline import BaselineError, new_findings, write_baseline

    if args.write_baseline:
        count = write_baseline(args.write_baseline, result.findings, texts)
        print(f"graphlint: recorded {count} finding{'s' if count != 1 else ''} in {args.write_baseline}",
              file=sys.stderr)
        return EXIT_ERROR if result.problems else EXIT_CLEAN
    try:
        result.findings = new_findings(args.baseline, result.findings, texts)
    except BaselineError as exc:
        return _error(str(exc))
    return None


def _summarise(args, fmt: str) -> bool:
    """The summary line ends the full and the concise formats, in a pipe too (CI logs and hooks read it);
    ``--quiet`` drops it, and the machine formats (json, sarif, github) never have it."""
    return not args.quiet and fmt not in MACHINE_FORMATS


def _summary_counts_fixes(args, fmt: str) -> bool:
    """Whether the summary line says how many findings are fixable: on a terminal and in the full format. The
    concise summary in a pipe leaves the counts out, because they need the fix planner, whose start-up (libcst
    and every fixer, about 0.3 s) CI and hook runs would pay on every run."""
    return _summarise(args, fmt) and (fmt == "full" or _isatty(sys.stdout))


def _format(config) -> str:
    fmt = config.format or ("full" if _isatty(sys.stdout) else "concise")
    return "concise" if fmt == "text" else fmt


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _color(args, stream) -> bool:

    return use_color(stream, args.color)


def _progress(args):

    if args.quiet or args.no_progress:
        return NoProgress()
    return Progress(sys.stderr)


def _read_stdin() -> str | None:
    data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode("utf-8")
    # imported here: start-up (--help and a run the result cache answers load only what they use)
    from graphlint.analysis.source import SourceProblem, decode

    try:
        text, _encoding, _bom = decode(data, "-")
    except SourceProblem:
        return None
    return text


def _lint(args, config, paths, progress, want_fixes):
    """Find the files (with --project-root, the project's); answer from the result cache if none changed (without
    loading the analysis), else lint."""
    # imported here: start-up (--help and a run the result cache answers load only what they use)
    from graphlint.results import discover_files, focus

    files, problems = discover_files(paths, config)
    given = None
    if args.project_root is not None:
        # the whole project is linted (its scope), the given files are reported (with what they reach)
        given = files
        files, walk_problems = discover_files([args.project_root, *files], config)
        problems += [p for p in walk_problems if p not in problems]
    result = _lint_files(args, config, files, problems, progress, want_fixes)
    return focus(result, given) if given is not None else result


def _lint_files(args, config, files, problems, progress, want_fixes):
    cache = None
    if not args.no_cache and not os.environ.get("GRAPHLINT_NO_CACHE"):
        # imported here: start-up (--help and a run the result cache answers load only what they use)
        from graphlint.run.cache import ResultCache, default_folder

        cache = ResultCache(default_folder(config))
        cached = cache.load(files, problems, config, want_fixes)
        if cached is not None:
            _verbose(args, f"result cache: {cache.outcome}")
            return cached
    # imported here: start-up (--help and a run the result cache answers load only what they use)
    from graphlint.run.lint import lint_discovered
    from graphlint.run.parallel import default_jobs, memory_budget

    jobs = args.jobs or default_jobs()
    result = lint_discovered(files, problems, config, jobs=jobs, progress=progress,
                             fix_markers=want_fixes, cache=cache, memory=memory_budget(config.max_memory, jobs))
    _verbose(args, f"result cache: {cache.outcome}" if cache is not None else "result cache: not used")
    if result.session is not None and result.session.bounded_because:
        _verbose(args, f"memory: {result.session.bounded_because}")
    return result


def _verbose(args, message: str) -> None:
    if args.verbose:
        print(f"graphlint: {message}", file=sys.stderr)


def _texts_of(result, texts: dict) -> dict:
    """Source texts of the files with findings (read again for a cached run)."""
    # imported here: start-up (--help and a run the result cache answers load only what they use)
    from graphlint.analysis.source import SourceProblem, read_source

    wanted = dict(texts)
    for finding in result.findings:
        if finding.path not in wanted:
            try:
                wanted[finding.path] = read_source(finding.path).text
            except SourceProblem:
                wanted[finding.path] = ""
    return wanted


def _fixes_listing(result, color: bool) -> str:
    # imported here: start-up (--help and a run the result cache answers load only what they use)
    from graphlint.results import printable

    lines = []
    for finding in result.findings:
        fix = result.fixes.get(id(finding))
        if fix not in MARKERS:
            continue
        how = "--fix" if fix == "safe" else "--fix --unsafe-fixes"
        lines.append(f"  {printable(finding.path)}:{finding.line}:{finding.column}: {finding.rule.id} "
                     f"{paint(MARKERS[fix], 'green', color)} {finding.rule.symbol} ({fix}, {how})")
    if not lines:
        return "No fixes available.\n"
    return "Fixes available:\n" + "\n".join(lines) + "\n"


def _fix(args, config, paths, progress, color) -> int:
    # imported here: start-up (--help and a run the result cache answers load only what they use)
    from graphlint.files import unified_diff
    from graphlint.run.fix import fix_paths
    from graphlint.run.parallel import default_jobs

    if args.validate:
        # imported here: only --validate starts a Python that runs MindSpore
        from graphlint.validate.runner import mindspore_problem

        problem = mindspore_problem(config.validate_python)
        if problem:
            progress.close()
            return _error(problem)
    fmt = _format(config)
    want_fixes = not args.diff and (fmt in ("full", "json") or _summary_counts_fixes(args, fmt))
    try:
        progress.animate(True)  # a spinner while validation runs
        report = fix_paths(paths, config, unsafe=args.unsafe_fixes, validate=args.validate,
                           write=args.fix and not args.diff, jobs=args.jobs or default_jobs(),
                           fix_markers=want_fixes, progress=progress,
                           phase="fixing and validating" if args.validate else "fixing")
    finally:
        progress.animate(False)
        progress.close()
    for problem in report.lint.problems:
        print(problem.line(), file=sys.stderr)
    _warn_if_nothing_found(args, paths, report.lint)
    for outcome in report.files:  # a file that could not be written: its fixes were not applied
        if outcome.error:
            print(f"{printable(outcome.path)}: {outcome.error}", file=sys.stderr)
    changed = [f for f in report.files if f.changed]
    if args.diff:
        for outcome in changed:
            sys.stdout.write(unified_diff(outcome.path, outcome.before, outcome.after))
    else:
        _render_remaining(args, report, fmt, color)
    if not args.quiet:
        _summary(report, wrote=not args.diff, show_fixes=args.show_fixes or args.validate)
    if args.validate and args.unsafe_fixes and config.validate_inputs:
        _port(report, config, wrote=not args.diff)
    elif args.validate and not config.validate_inputs:
        print(_declare_an_entry(report, config), file=sys.stderr)
    if report.lint.problems or any(f.error for f in report.files):
        return EXIT_ERROR
    if args.diff:
        return EXIT_FINDINGS if changed and not args.exit_zero else EXIT_CLEAN
    return _findings_status(args, config, report.remaining)


def _findings_status(args, config, findings) -> int:
    """1 when a finding fails the run (its severity is --fail-on or worse), else 0; always 0 with --exit-zero."""
    failing = not args.exit_zero and any(config.fails(finding) for finding in findings)
    return EXIT_FINDINGS if failing else EXIT_CLEAN


def _render_remaining(args, report, fmt: str, color) -> None:
    """After --fix, the findings left, in the chosen format, and the summary line."""
    options = RenderOptions(color=color, fixes=report.remaining_fixes or {})
    if fmt == "full":  # the lines as --fix left them
        options.texts = _texts_of(report.lint, {**{p: s.text for p, s in report.lint.sources.items()},
                                                **{f.path: f.after for f in report.files}})
    sys.stdout.write(RENDERERS[fmt](report.remaining, report.lint.problems, options))
    if _summarise(args, fmt):
        sys.stdout.write(summary_line(report.remaining, report.lint.problems, report.lint.files, options,
                                      lines=report.lint.lines, color=color) + "\n")


def _port(report, config, wrote: bool) -> None:
    """Port mode (``--fix --unsafe-fixes --validate``): what still blocks compiling each declared entry."""
    # imported here: start-up (--help and a run the result cache answers load only what they use)
    from graphlint.port import port_entries, render

    entries = port_entries(report, config, wrote)
    if entries:
        print(render(entries, wrote), file=sys.stderr)


def _declare_an_entry(report, config) -> str:
    """--validate without declared entries: fixes were only compiled from placeholders (a jit function's not at
    all) and port mode had nothing to run; how to declare one, naming a Cell of the run when there is one."""
    example = "model:Net"
    for finding in report.lint.findings:
        root = finding.graph.root if finding.graph is not None else None
        if root is not None and root.kind == "construct" and root.cls is not None:
            example = f"{root.info.name}:{root.cls.name}"
            break
    where = os.path.relpath(config.config_file) if config.config_file else "pyproject.toml"
    return ("graphlint: no entry is declared for --validate, so outputs were not compared and port mode has no entry "
            f"to compile: declare one in {where}, e.g. [tool.graphlint.validate.inputs] \"{example}\" = "
            "[\"float32[2,3]\"] (one spec per argument of construct; init = { ... } for its constructor, "
            "factory = \"module:function\" to build it)")


def _place(item) -> str:
    return f"{item.path}:{item.line}" + (f":{item.column}" if item.column else "")


def _summary(report, wrote: bool, show_fixes: bool = False) -> None:
    """What --fix did, on stderr: counts, every refusal with its reason, each suggestion (its rewrite with
    --show-fixes), how many unsafe fixes --unsafe-fixes would add, and with --show-fixes (or --validate) every fix
    applied, with its validation."""
    applied = report.applied
    suggested = [r for r in report.refused if r.suggestion]
    withheld = [r for r in report.refused if r.needs_unsafe and not r.suggestion]  # not refusals
    refused = [r for r in report.refused if not r.suggestion and not r.needs_unsafe]
    not_written = [a for f in report.files for a in f.not_applied]
    lines = [_summary_head(applied, refused, suggested, withheld, wrote, not_written)]
    if show_fixes:
        done = "fixed  " if wrote else "would fix"
        for item in sorted(applied, key=lambda a: (a.path, a.line)):
            note = f" [{item.validation}]" if item.validation else ""
            lines.append(f"  {done} {item.path}:{item.line}: {item.rule} {item.symbol}: {item.description}{note}")
        for item in sorted(not_written, key=lambda a: (a.path, a.line)):
            lines.append(f"  not written {item.path}:{item.line}: {item.rule} {item.symbol}: {item.description}")
    for item in refused:
        lines.append(f"  refused {_place(item)}: {item.rule} {item.symbol}: {item.reason}")
    for item in suggested:
        lines.append(f"  suggest {_place(item)}: {item.rule} {item.symbol}: {item.reason}")
        if show_fixes:
            lines.extend("      " + line for line in item.suggestion.splitlines())
    if suggested and not show_fixes:
        lines.append("  (--show-fixes prints the suggested rewrites)")
    print("\n".join(lines), file=sys.stderr)


def _summary_head(applied, refused, suggested, withheld, wrote: bool, not_written=()) -> str:
    files = len({a.path for a in applied})
    verb = "applied" if wrote else "would be applied"
    return (f"graphlint: {_fixes(len(applied))} {verb} in {files} "
            f"file{'s' if files != 1 else ''}, {len(refused)} refused"
            + (f", {len(suggested)} suggested (display-only)" if suggested else "")
            + (f", {len(withheld)} more with --unsafe-fixes" if withheld else "")
            + (f", {_fixes(len(not_written))} not written (see above)" if not_written else ""))


def _fixes(count: int) -> str:
    return f"{count} fix{'es' if count != 1 else ''}"


def run() -> None:
    """The ``graphlint`` command: :func:`main`, then an exit that skips freeing the heap (seconds on a large
    project)."""
    # imported here: start-up (--help and a run the result cache answers load only what they use)
    from graphlint.collector import exit_now

    try:
        code = main()
    except SystemExit as exc:  # argparse's usage errors have printed their message
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_ERROR)
    exit_now(code)


if __name__ == "__main__":
    run()
