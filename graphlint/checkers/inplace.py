"""In-place updates of Tensors whose storage outlives the call.

The value analysis tracks, for every Tensor, the storage it may share
(``Value.alias``): a Tensor argument, a Tensor / Parameter attribute, or a
constant Tensor of the graph (``Tensor(...)`` in graph code, a module-level
Tensor, ``ops.ones_like``, which the compiler folds). The alias follows plain
names (``y = x``) but not slices or op results, which are new Tensors in graph
code. ``x += v`` on a Tensor with such an alias writes into that storage in
GRAPH_MODE; ``x[i] = v`` on an argument writes into the caller's tensor in
PYNATIVE_MODE only. Python numbers (``n += 1``) and fresh results
(``y = x + 1; y += 1``) have no alias and stay quiet.
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.boundary import caller_sees_argument_write
from graphlint.analysis.kinds import NONE, TENSOR
from graphlint.analysis.tree import graph_nodes, nodes_of_class, targets_of
from graphlint.analysis.lattice import Value
from graphlint.catalogue import inplace as rules
from graphlint.runner import Checker


class InplaceChecker(Checker):
    family = "inplace"

    def check_function(self, graph) -> None:
        values = self.context.values(graph)
        if values is None:
            return
        self._not_tensor: dict[str, bool] = {}  # argument -> _not_a_tensor (a walk of the whole function)
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.AugAssign):
                if isinstance(node.target, nodes.AssignName):
                    self._augmented(graph, values, node)
                elif isinstance(node.target, nodes.Subscript):
                    self._item_update(graph, values, node, node.target, node.op.rstrip("="))
            elif isinstance(node, nodes.Assign):
                for target in node.targets:
                    for subscript in targets_of(target, nodes.Subscript):
                        self._item_update(graph, values, node, subscript, "")

    def _augmented(self, graph, values, node: nodes.AugAssign) -> None:
        if node.op not in api.INPLACE_AUGMENTED_OPERATORS:
            return
        name = node.target.name
        element = values.cfg.element_of(node)
        if element is None:
            return
        before = values.name_at(element, name)
        if not _is_tensor(before) or not before.alias:
            return
        op = node.op.rstrip("=")
        alias = before.alias
        if alias.startswith("the argument `"):
            if self._not_a_tensor(graph, name) or not caller_sees_argument_write(self.context.analysis, graph, name):
                return
            self.report(rules.AUGMENTED_ASSIGN_TO_INPUT, node, graph, name=name, op=op)
        elif "constant Tensor" in alias:
            self.report(rules.AUGMENTED_ASSIGN_TO_CONSTANT_TENSOR, node, graph, name=name, op=op)
        else:
            attr = _attribute_of(alias)
            if attr is not None:
                self.report(rules.AUGMENTED_ASSIGN_TO_ATTRIBUTE_ALIAS, node, graph, name=name, attr=attr, op=op)

    def _item_update(self, graph, values, statement, target: nodes.Subscript, op: str) -> None:
        base = target.value
        if not isinstance(base, nodes.Name):
            return
        element = values.cfg.element_of(statement)
        if element is None:
            return
        before = values.name_at(element, base.name)
        if _is_tensor(before) and before.alias.startswith("the argument `") \
                and not self._not_a_tensor(graph, base.name) \
                and caller_sees_argument_write(self.context.analysis, graph, base.name):
            self.report(rules.ITEM_UPDATE_OF_INPUT, statement, graph, anchor=target, name=base.name, op=op)

    def _not_a_tensor(self, graph, name: str) -> bool:
        if name not in self._not_tensor:
            self._not_tensor[name] = _not_a_tensor(graph.node, name)
        return self._not_tensor[name]


def _is_tensor(value: Value) -> bool:
    return value.may_be(TENSOR) and not value.kinds - {TENSOR, NONE}


def _not_a_tensor(func: nodes.FunctionDef, name: str) -> bool:
    """Uses of an argument that a Tensor does not allow: ``range(n)``, ``d["key"]``.

    Arguments without an annotation or default are taken for Tensors; this is the
    evidence that one is a Python number or a dict after all.
    """
    for node in nodes_of_class(func, nodes.Name):
        if node.name != name:
            continue
        parent = node.parent
        if isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Name) and parent.func.name == "range" \
                and node in parent.args:
            return True
    for node in nodes_of_class(func, nodes.Subscript):
        if isinstance(node.value, nodes.Name) and node.value.name == name and isinstance(node.slice, nodes.Const) \
                and isinstance(node.slice.value, str):
            return True
    return False


def _attribute_of(alias: str) -> str | None:
    """``bias`` from "the Tensor attribute `self.bias`" / "the Parameter `self.bias`"."""
    for prefix in ("the Tensor attribute `", "the Parameter `"):
        if alias.startswith(prefix):
            text = alias[len(prefix):].rstrip("`")
            head, _, attr = text.partition(".")
            return attr or head
    return None


CHECKER = InplaceChecker
