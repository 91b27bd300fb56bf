"""``graphlint server``: a Language Server (LSP over stdio) with diagnostics, quick fixes, fix-all and rule docs
on hover. Editors start it; see docs/editors.md. Needs the server extra (pygls, lsprotocol):
``pip install 'mindspore-graphlint[server]'``.
"""

from __future__ import annotations

import argparse
import logging
import sys

USAGE = "graphlint server [--stdio] [--log-file FILE] [--log-level LEVEL]"


def main(argv=None) -> int:
    """Run the language server on stdin/stdout until the client says ``exit``; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="graphlint server", usage=USAGE,
        description="Language Server Protocol over stdio: diagnostics, quick fixes, fix-all and rule docs on "
                    "hover for the code that breaks MindSpore GRAPH_MODE. Started by the editor (docs/editors.md).")
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default and only "
                                                             "transport; accepted for clients that pass it)")
    parser.add_argument("--log-file", help="write the server's log here instead of stderr")
    parser.add_argument("--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="default: WARNING")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError as exc:
        print(f"graphlint server: needs the server extra ({exc.name} is missing): "
              "pip install 'mindspore-graphlint[server]'", file=sys.stderr)
        return 2
    handler = logging.FileHandler(args.log_file, encoding="utf-8") if args.log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("graphlint").setLevel(args.log_level)

    from graphlint.server.lsp import build_server  # here: pygls takes ~0.3 s to import; --help does not need it

    # The protocol owns stdout: anything else printed goes to stderr.
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    server = build_server()
    server.start_io(stdin, stdout)
    return 0
