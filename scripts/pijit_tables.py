#!/usr/bin/env python3
"""Write ``graphlint/analysis/generated/pijit_skip.py``: what PIJit (``jit(capture_mode="bytecode")``) never
captures, read from the installed MindSpore's ``mindspore/graph/_utils/pijit_context.py``.

PIJit does not trace into the files of the modules in that file's ``SKIP_RULES`` (its "skip list": numpy,
pandas, sklearn, tqdm and some 35 standard-library modules); and its wrapper raises ``Unsupported`` on every call
from the Python release ``_PY312_OR_LATER`` names. The file is read as text (its literals only, never run), so
the table is the wheel's own list::

    .venv/bin/python scripts/pijit_tables.py           # rewrite the table
    .venv/bin/python scripts/pijit_tables.py --check   # exit 1 if it is stale (tests/test_pijit_table.py)

Rerun it after upgrading MindSpore and review the diff.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "graphlint", "analysis", "generated", "pijit_skip.py")
SOURCE = ("graph", "_utils", "pijit_context.py")  # under the mindspore package
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mindspore_tables import render_module  # noqa: E402  (the other generator's literal rendering)

DOC = "What PIJit (capture_mode=\"bytecode\") never captures: its skip list and the Python releases it refuses."


def _mindspore_package() -> tuple[str, str]:
    """(the package folder, its version) of the installed MindSpore, found without importing it."""
    from importlib import metadata

    spec = importlib.util.find_spec("mindspore")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("mindspore is not installed")
    return list(spec.submodule_search_locations)[0], metadata.version("mindspore")


def tables(text: str) -> list:
    """The (NAME, value, comment) triples read from the text of pijit_context.py."""
    tree = ast.parse(text)
    skip_rules = python_from = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name == "SKIP_RULES":
                skip_rules = ast.literal_eval(node.value)
            elif name == "_PY312_OR_LATER" and isinstance(node.value, ast.Compare):
                python_from = ast.literal_eval(node.value.comparators[0])
    if skip_rules is None or python_from is None:
        raise SystemExit("pijit_context.py no longer has SKIP_RULES or _PY312_OR_LATER: update this script")
    builtins = tuple(m for m in skip_rules["builtins"] if m != "mindspore")
    return [
        ("SKIP_MODULES", tuple(sorted(builtins + tuple(skip_rules["third_party"]))),
         "Modules whose files PIJit never traces into (SKIP_RULES['builtins'] and ['third_party'], without\n"
         "'mindspore', which it skips for its own internals): a call of one of their functions is run by Python,\n"
         "a graph break (fullgraph=True: 'Unsupported')."),
        ("UNSUPPORTED_FROM_PYTHON", tuple(python_from),
         "The first Python release on which every call of a bytecode-captured function raises\n"
         "Unsupported('@jit(capture_mode=\"bytecode\") does not support Python 3.12+') (_PY312_OR_LATER)."),
    ]


def generate() -> str:
    folder, version = _mindspore_package()
    with open(os.path.join(folder, *SOURCE), encoding="utf-8") as handle:
        text = handle.read()
    return render_module(version, DOC, tables(text), script="scripts/pijit_tables.py",
                         how=" (mindspore/" + "/".join(SOURCE) + ")")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed table differs")
    args = parser.parse_args(argv)
    fresh = generate()
    committed = None
    if os.path.exists(OUT):
        with open(OUT, encoding="utf-8") as handle:
            committed = handle.read()
    if args.check:
        if committed != fresh:
            print("graphlint/analysis/generated/pijit_skip.py does not match the installed MindSpore: rerun "
                  "scripts/pijit_tables.py, review and commit the diff")
            return 1
        print("pijit_skip.py matches the installed MindSpore")
        return 0
    if committed != fresh:
        with open(OUT, "w", encoding="utf-8") as handle:
            handle.write(fresh)
        print(f"wrote {os.path.relpath(OUT, ROOT)}")
    else:
        print(f"unchanged {os.path.relpath(OUT, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
