"""A Tensor joined with a Python number under a Tensor condition (E5803) -> the number as a Tensor like the other
side: ``y = x * 2`` / ``y = 1`` -> ``y = ops.full_like(x * 2, 1)`` in the branch that gave the number, and
``x * 2 if c else 0`` -> ``x * 2 if c else ops.full_like(x * 2, 0)``.

Graph mode compiles both sides of a Tensor condition and joins them: a Tensor and a number do not join, two
Tensors of one dtype and shape do. Unsafe: where PYNATIVE_MODE gave the number, the rewrite gives a Tensor of that
number (in the other side's dtype, so `1` becomes `1.0` next to a float32 Tensor). The Tensor side is computed
again in the number's branch: it must be free of side effects and read only names that have the same value there.
"""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis.provenance import side_effect
from graphlint.catalogue import branches as branches_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer


class NumberToTensorLike(Fixer):
    rules = (branches_rules.BRANCH_TYPE_MISMATCH,)
    safety = FixSafety.UNSAFE
    description = "a number joined with a Tensor -> `ops.full_like(tensor, number)`"

    def plan(self, finding, context):
        node = finding.node
        values = context.values_of(finding)
        if values is None:
            return None
        if isinstance(node, nodes.IfExp):
            pair = _number_and_tensor(node.body, node.orelse, values)
            if pair is None:
                return self.refuse(finding, "the sides are not a Python number and a Tensor: make them the same "
                                            "kind by hand")
            number, tensor = pair
        elif isinstance(node, nodes.If):
            name = finding.args.get("name", "").strip("`")
            assigned = {side: _assignment(block, name) for side, block in (("body", node.body),
                                                                            ("orelse", node.orelse))}
            if not name.isidentifier():
                return self.refuse(finding, f"{name[:1].lower() + name[1:]} joins {finding.args.get('kinds', '')}: "
                                            "make the returned values one kind by hand")
            if None in assigned.values():
                return self.refuse(finding, "the branches do not each assign the name once at their top level: "
                                            "make the kinds agree by hand")
            pair = _number_and_tensor(assigned["body"].value, assigned["orelse"].value, values)
            if pair is None:
                return self.refuse(finding, f"`{name}` is not a Python number in one branch and a Tensor in the "
                                            "other: make the kinds agree by hand")
            number, tensor = pair
            problem = _not_movable(tensor, number, values)
            if problem:
                return self.refuse(finding, problem)
        else:
            return None
        if side_effect(values, tensor) is not None:
            return self.refuse(finding, f"`{tensor.as_string()[:40]}` may have side effects: it would run in the "
                                        "other branch too")
        found_number, found_tensor = context.find(number, (cst.BaseExpression,)), context.find(tensor)
        if found_number is None or found_tensor is None:
            return self.refuse(finding, "the branch values were not found")
        ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
        like = build.call(f"{ops}.full_like", found_tensor.with_changes(lpar=[], rpar=[]),
                          found_number.with_changes(lpar=[], rpar=[]))
        return self.edit(finding, [(found_number, like.with_changes(lpar=found_number.lpar,
                                                                    rpar=found_number.rpar))],
                         imports=[ops_import] if ops_import else [],
                         description=f"`{number.as_string()}` -> `{context.code(like)}`")


def _number_and_tensor(a, b, values):
    """(the number, the Tensor expression) when one of ``a``, ``b`` is a literal int or float and the other is
    proven a Tensor; else None."""
    for number, tensor in ((a, b), (b, a)):
        literal = number.operand if isinstance(number, nodes.UnaryOp) and number.op == "-" else number
        if isinstance(literal, nodes.Const) and type(literal.value) in (int, float) \
                and values.value(tensor).is_tensor:
            return number, tensor
    return None


def _assignment(block, name: str):
    found = [s for s in block if isinstance(s, nodes.Assign) and len(s.targets) == 1
             and isinstance(s.targets[0], nodes.AssignName) and s.targets[0].name == name]
    return found[0] if len(found) == 1 else None


def _not_movable(tensor, number, values) -> str:
    """Why ``tensor`` would not compute the same where ``number`` is ('' when it would)."""
    here, there = values.cfg.element_of(number), values.cfg.element_of(tensor)
    if here is None or there is None:
        return "the branches were not found in the function's control flow"
    for read in tensor.nodes_of_class(nodes.Name):
        before = {d.index for d in values.cfg.reaching(here, read.name)}
        at = {d.index for d in values.cfg.reaching(there, read.name)}
        if before != at:
            return (f"`{read.name}` does not have the same value in both branches: `{tensor.as_string()[:40]}` "
                    "cannot be computed where the number is")
    return ""


FIXERS = (NumberToTensorLike(),)
