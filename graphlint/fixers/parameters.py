"""Fixes of the parameters family: two Parameters of one graph with the same `name=` -> the second named after
what holds it.

``self.q = Parameter(t, name="w")`` next to ``self.p = Parameter(t, name="w")`` -> ``name="q"``; a module global
``P2 = Parameter(t, name="w")`` or a host function's ``shift = Parameter(t, name="s")`` that a jitted function
reads next to another of that name -> ``name="P2"`` / ``name="shift"`` (a name no other Parameter of the module
has). Every Parameter then enters the graph under a name of its own, which STRICT and MindIR export need
(W6201, E6202). Unsafe: checkpoints, optimizers and code that look Parameters up by name see the new one.
"""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis import api, host
from graphlint.catalogue import parameters as parameter_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers.base import Fixer, unused_name


class RenameDuplicateParameter(Fixer):
    rules = (parameter_rules.DUPLICATE_PARAMETER_NAME, parameter_rules.DUPLICATE_PARAMETER_NAME_IN_JIT)
    safety = FixSafety.UNSAFE
    description = "a second Parameter of the same name -> named after what holds it"

    def plan(self, finding, context):
        info = finding.graph.info if finding.graph is not None else None
        if info is None:
            return None
        node = finding.node
        if isinstance(node, nodes.Call):
            call, holder = node, _holder(node)
        elif isinstance(node, nodes.Name):
            call, holder = _made_by(node, info), node.name
        else:
            return self.refuse(finding, f"`{node.as_string()[:40]}` enters the graph as an argument or as Parameters "
                                        "gathered from a Cell: rename it where it is made (by hand)")
        if call is None or holder is None:
            return self.refuse(finding, f"`{node.as_string()[:40]}` is not a Parameter this module makes with a "
                                        "literal name (an argument, a gathered Cell's): rename it where it is made")
        if call.root() is not node.root():
            return self.refuse(finding, "the Parameter is made in another module: rename it there")
        old = host.parameter_name(call)
        literal = next((k.value for k in call.keywords or () if k.arg == "name"), None) or \
            (call.args[1] if len(call.args) >= 2 else None)
        if not old or not isinstance(literal, nodes.Const):
            return self.refuse(finding, "the Parameter's name is not a literal")
        module = call.root()
        taken = {host.parameter_name(other) for other in module.nodes_of_class(nodes.Call)
                 if info.imports.qualify(other.func) == api.PARAMETER} - {""}
        new = unused_name(holder, taken)
        found = context.find(literal, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
        if not isinstance(found, cst.SimpleString):
            return self.refuse(finding, "the name literal was not found")
        quote = found.quote if found.quote in ('"', "'") else '"'
        return self.edit(finding, [(found, cst.SimpleString(f"{quote}{new}{quote}"))],
                         description=f"Parameter name {old!r} -> {new!r} (`{holder}`)")


def _holder(call: nodes.Call) -> str | None:
    """The attribute or name ``call``'s Parameter is assigned to: ``self.q = Parameter(...)`` -> "q"."""
    statement = call.parent
    if not (isinstance(statement, nodes.Assign) and statement.value is call and len(statement.targets) == 1):
        return None
    target = statement.targets[0]
    if isinstance(target, nodes.AssignAttr):
        return target.attrname
    if isinstance(target, nodes.AssignName):
        return target.name
    return None


def _made_by(name: nodes.Name, info) -> nodes.Call | None:
    """The one ``Parameter(...)`` call assigned to the global or enclosing-function name ``name`` reads."""
    try:
        _scope, assignments = name.lookup(name.name)
    except Exception:  # noqa: BLE001 - astroid lookups on odd code
        return None
    calls = []
    for assigned in assignments:
        statement = assigned.parent
        if not (isinstance(assigned, nodes.AssignName) and isinstance(statement, nodes.Assign)
                and statement.value is not None and len(statement.targets) == 1 and statement.targets[0] is assigned):
            return None
        value = statement.value
        if not (isinstance(value, nodes.Call) and info.imports.qualify(value.func) == api.PARAMETER):
            return None
        calls.append(value)
    return calls[0] if len(calls) == 1 else None


FIXERS = (RenameDuplicateParameter(),)
