"""How much of graph code the value analysis does not know: a completeness report, like a type checker's.

For every expression in graph code (construct, @jit functions and the helpers they reach) it asks the value
analysis for the expression's abstract value and counts those whose kind is unknown, by expression kind. Rules
can only be as good as these values: an unknown value keeps a rule quiet.

Run: python benchmarks/unknown_values.py [PATH ...]
Without paths it reports mindcv 0.3.0 + mindocr 0.5.0 (wheels from PyPI, cached by benchmarks/corpus.py) and the
development benchmark's sources (../shared/benchmarks/mindspore-ut, when fetched: see its README).
To compare with another checkout, run this file with PYTHONPATH pointing at that checkout.

Figures (share of graph-code expressions whose value is unknown), 2026-12-04:
    mindcv + mindocr        38.2 % at af8e00d; 35.3 % with host values; 27.1 % with nn layer outputs;
                            26.3 % with project Cell outputs
    development benchmark   26.5 % at af8e00d; 18.7 % with host values; 18.4 % with nn layer outputs
    (Calls and attribute reads remain the largest unknown kinds on the zoos.)
"""

import collections
import os
import sys

from astroid import nodes

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
if REPO not in sys.path:
    sys.path.append(REPO)  # (appended: a PYTHONPATH checkout given on purpose comes first)
sys.path.insert(0, HERE)

from graphlint.analysis.kinds import UNKNOWN  # noqa: E402
from graphlint.analysis.tree import graph_nodes  # noqa: E402
from graphlint.session import LintSession  # noqa: E402

EXPRESSIONS = (nodes.Name, nodes.Attribute, nodes.Call, nodes.Subscript, nodes.BinOp, nodes.BoolOp, nodes.UnaryOp,
               nodes.Compare, nodes.IfExp, nodes.Tuple, nodes.List, nodes.Dict)


def python_files(root: str) -> list[str]:
    if os.path.isfile(root):
        return [root]
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(os.path.join(folder, n) for n in sorted(names) if n.endswith(".py"))
    return found


def completeness(paths: list[str]) -> tuple[collections.Counter, collections.Counter]:
    """(expressions, unknown ones) per expression kind, over the graph code of ``paths``."""
    session = LintSession()
    files = [f for root in paths for f in python_files(root)]
    session.add_files(files)
    seen, unknown = collections.Counter(), collections.Counter()
    for info in list(session.analysis.run_modules()):
        for graph in session.analysis.graph_functions(info):
            values = session.analysis.values(graph)
            if values is None:
                continue
            for node in graph_nodes(graph.node):
                if not isinstance(node, EXPRESSIONS) or isinstance(node.parent, (nodes.Attribute, nodes.Call)) \
                        and getattr(node.parent, "func", None) is node:
                    continue  # (the callee of a call is counted through the call)
                if getattr(node, "ctx", None) is not None and node.ctx.name != "Load":
                    continue
                kind = type(node).__name__
                seen[kind] += 1
                value = values.value(node)
                if not value.kinds or UNKNOWN in value.kinds:
                    unknown[kind] += 1
    return seen, unknown


def report(title: str, paths: list[str]) -> None:
    seen, unknown = completeness(paths)
    total, missing = sum(seen.values()), sum(unknown.values())
    print(f"{title}: {missing}/{total} graph-code expressions unknown ({missing / max(total, 1):.1%})")
    for kind, count in seen.most_common():
        print(f"  {kind:10} {unknown[kind]:6}/{count:<6} {unknown[kind] / count:6.1%}")


def main(argv) -> int:
    if argv:
        report(" + ".join(argv), argv)
        return 0
    from corpus import fetch

    report("mindcv 0.3.0 + mindocr 0.5.0", [fetch("mindcv"), fetch("mindocr")])
    bench = os.path.join(os.path.dirname(REPO), "shared", "benchmarks", "mindspore-ut")
    sys.path.insert(0, bench)
    try:
        from units import SRC
    except ImportError:
        SRC = ""
    if SRC and os.path.isdir(os.path.join(SRC, "tests")):
        report("development benchmark (MindSpore's graph-syntax unit tests)", [SRC])
    else:
        print("development benchmark: sources not fetched (see ../shared/benchmarks/mindspore-ut/README.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
