"""Fixes for constructs MindSpore compiles wrongly or refuses: a lambda in a `for` body -> a nested `def`."""

from __future__ import annotations

import json

import libcst as cst
from astroid import nodes

from graphlint.analysis.tree import nodes_of_class
from graphlint.catalogue import refused as refused_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer, replace_nodes, unused_name
from graphlint.fixers.statements import why_not_run_once


class LambdaToNestedDef(Fixer):
    """`double = lambda t: t * 2` in a `for` body -> `def double(t): return t * 2` in its place; a lambda
    passed straight to a call -> a `def` on the line before, passed by name. Measured with MindSpore 2.10: the
    unrolled loop with a lambda in it makes the graph return None, with a nested `def` it returns PYNATIVE_MODE's
    result. Safe: both make the same function each step, closing over the same names."""

    rules = (refused_rules.LAMBDA_IN_FOR_LOOP,)
    safety = FixSafety.SAFE
    description = "lambda in a `for` body -> a nested `def`"

    def plan(self, finding, context):
        function = finding.node
        if not isinstance(function, nodes.Lambda):
            return None
        if function.args.defaults or function.args.kw_defaults and any(function.args.kw_defaults):
            return self.refuse(finding, "the lambda has default values, computed where it is written: write the "
                                        "`def` by hand")
        statement = function.statement()
        lam, line = context.find(function), context.own_line(statement)
        if lam is None or line is None:
            return self.refuse(finding, "the statement shares its line with others, or was not found")
        named = isinstance(statement, nodes.Assign) and statement.value is function and len(statement.targets) == 1 \
            and isinstance(statement.targets[0], nodes.AssignName)
        if named:
            name = statement.targets[0].name
        else:
            problem = why_not_run_once(function, statement)
            if problem:
                return self.refuse(finding, f"the lambda {problem}: write the `def` where it is made (by hand)")
            scope = statement.scope()
            taken = set(getattr(scope, "locals", {})) | {n.name for n in nodes_of_class(scope, nodes.Name)}
            name = unused_name("step_fn", taken)
        definition = cst.FunctionDef(name=cst.Name(name), params=lam.params,
                                     body=cst.IndentedBlock(body=[build.returns(lam.body)]),
                                     leading_lines=line.leading_lines)
        if named:
            replacement = cst.FlattenSentinel([definition])
        else:
            rest = replace_nodes(line, [(lam, build.name(name))]).with_changes(leading_lines=())
            replacement = cst.FlattenSentinel([definition, rest])
        return self.edit(finding, [(line, replacement)],
                         description=f"lambda -> `def {name}(...)`" + ("" if named else " on the line before"))


class TorchHabitSpelling(Fixer):
    """A PyTorch habit graph mode refuses -> the MindSpore spelling measured to give PYNATIVE_MODE's result at
    both levels (generated/torch_habits.py): `x.split(n, dim=k)` -> `x.split(n, axis=k)`, `self.parts.act` ->
    `self.parts["act"]`. Safe: only the spelling the table measured for every rank of the form is written."""

    rules = (refused_rules.TORCH_HABIT_REFUSED, refused_rules.TORCH_HABIT_DIFFERS)
    safety = FixSafety.SAFE
    description = "PyTorch spelling -> the measured MindSpore spelling"

    def plan(self, finding, context):
        spelling = finding.payload
        if spelling is None:
            return self.refuse(finding, "no MindSpore spelling was measured to give PYNATIVE_MODE's result")
        old = context.find(finding.node)
        if old is None:
            return self.refuse(finding, "the call was not found in the source")
        if spelling.entry and isinstance(old, cst.Attribute):
            new = cst.Subscript(value=old.value, slice=[cst.SubscriptElement(
                slice=cst.Index(value=cst.SimpleString(json.dumps(spelling.entry))))])
            return self.edit(finding, [(old, new)], description=f"`.{spelling.entry}` -> `[{spelling.entry!r}]`")
        if not isinstance(old, cst.Call):
            return self.refuse(finding, "the reported node is not a call")
        renames = dict(spelling.keyword_renames)
        args = [arg.with_changes(keyword=cst.Name(renames[arg.keyword.value]))
                if arg.keyword is not None and arg.keyword.value in renames else arg for arg in old.args]
        func, imports = old.func, []
        if spelling.method_rename and isinstance(func, cst.Attribute):
            func = func.with_changes(attr=cst.Name(spelling.method_rename))
        if spelling.function and spelling.receiver_first:
            if not isinstance(func, cst.Attribute):
                return self.refuse(finding, "the method call's receiver was not found")
            receiver = func.value
            if isinstance(receiver, (cst.BinaryOperation, cst.UnaryOperation, cst.Call, cst.Attribute, cst.Name,
                                     cst.Subscript)):  # (an argument needs no parentheses; a tuple keeps its own)
                receiver = receiver.with_changes(lpar=[], rpar=[])
            args = [cst.Arg(value=receiver)] + args
        if spelling.function:
            module, name = spelling.function.rsplit(".", 1)
            package, _, short = module.rpartition(".")
            text, needed = context.spelling(module, (package, short, None))
            func, imports = build.dotted(f"{text}.{name}"), [needed] if needed else []
        shown = ", ".join(f"{a}= -> {b}=" for a, b in spelling.keyword_renames) or \
            f".{spelling.method_rename or spelling.function}"
        return self.edit(finding, [(old, old.with_changes(func=func, args=args))], imports=imports, description=shown)


class CallConstruct(Fixer):
    """``self(...)`` in graph code -> ``self.construct(...)``: the call graph code can make, computing the same
    (graph code runs no hooks either way; measured with MindSpore 2.10). Safe."""
    rules = (refused_rules.CELL_CALLS_ITSELF,)
    safety = FixSafety.SAFE
    description = "`self(...)` -> `self.construct(...)`"

    def plan(self, finding, context):
        call = context.find(finding.node)
        if isinstance(call, cst.Name):  # `run(x, self)`, a function that calls what it is given: pass `construct`
            replacement = cst.Attribute(value=call, attr=cst.Name("construct"))
            return self.edit(finding, [(call, replacement)],
                             description=f"`{context.code(call)}` -> `{context.code(replacement)}`")
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            return self.refuse(finding, "the `self(...)` call was not found")
        replacement = call.with_changes(func=cst.Attribute(value=call.func, attr=cst.Name("construct")))
        return self.edit(finding, [(call, replacement)],
                         description=f"`{context.code(call)}` -> `{context.code(replacement)}`")


FIXERS = (LambdaToNestedDef(), TorchHabitSpelling(), CallConstruct())
