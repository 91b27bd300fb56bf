"""analysis/tree.py: the indexed `nodes_of_class` answers what astroid's own walk does, in the same order."""

import os

import astroid
import pytest
from astroid import nodes

from graphlint.analysis.tree import deep_recursion, nodes_of_class

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUERIES = [
    (nodes.Call, None),
    ((nodes.Name, nodes.Attribute), None),
    (nodes.FunctionDef, nodes.ClassDef),  # AsyncFunctionDef is a FunctionDef too
    ((nodes.Assign, nodes.AugAssign, nodes.AnnAssign), (nodes.FunctionDef, nodes.Lambda)),
    (nodes.Return, nodes.FunctionDef),
    (nodes.ClassDef, nodes.ClassDef),  # the skipped class itself is not yielded below the root
]


@pytest.mark.parametrize("relative", ["graphlint/analysis/values.py", "graphlint/fixers/loops.py",
                                      "examples/ported.py"])
def test_same_nodes_in_the_same_order_as_astroid(relative):
    with open(os.path.join(ROOT, relative), encoding="utf-8") as handle:
        module = astroid.parse(handle.read())
    starts = [module] + list(module.nodes_of_class((nodes.ClassDef, nodes.FunctionDef, nodes.If, nodes.For,
                                                    nodes.Call, nodes.Name)))
    with deep_recursion():
        for start in starts:
            for klass, skip in QUERIES:
                expected = list(start.nodes_of_class(klass, skip_klass=skip))
                assert nodes_of_class(start, klass, skip) == expected, (start.lineno, klass, skip)


def test_a_node_outside_any_module_is_walked():
    call = astroid.extract_node("f(g(1), h(x))")
    call.parent = None
    assert [c.func.as_string() for c in nodes_of_class(call, nodes.Call)] == ["f", "g", "h"]


def test_module_imports_are_read_from_statements_without_building_the_index():
    """ImportTable reads the imports of every module-level block (optional dependencies, version switches),
    none inside functions or classes, in source order (a later import rebinds the name), and does not build
    the module's index: that is built where it is first asked for, in the process that checks the module."""
    from graphlint.analysis.names import ImportTable
    from graphlint.analysis.source import parse

    source = (
        "try:\n    import a1\nexcept ImportError:\n    import a2 as a1\nelse:\n    from b import c\n"
        "finally:\n    import d\nwith x:\n    import e\nfor i in y:\n    import f\nwhile z:\n    import g\n"
        "match q:\n    case 1:\n        import h\ndef fn():\n    import inside_function\n"
        "class K:\n    import inside_class\nif 1:\n    if 2:\n        from . import deep\n"
    )
    module = parse(source, "pkg.mod", "/tmp/pkg/mod.py")
    assert ImportTable(module).aliases == {"a1": "a2", "c": "b.c", "d": "d", "e": "e", "f": "f", "g": "g",
                                           "h": "h", "deep": "pkg.deep"}
    assert getattr(module, "_graphlint_tree_index", None) is None
