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
