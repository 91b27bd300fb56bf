"""graphlint reads `# pylint:` pragmas as Pylint does: compared, line by line, with Pylint's own state machine."""

import io
import random
import textwrap
import tokenize

import pytest

from graphlint.analysis.source import parse
from graphlint.catalogue import RULES, lookup
from graphlint.pragmas import Suppressions

MODEL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.k = 2

        def construct(self, x):
            y = x * 2
            if x.sum() > 0:
                y = y + 1
            else:
                y = y - 1
            for i in range(3):
                y = y + i
            del i
            return y


    def helper(x):
        z = x
        return z
    """)

PRAGMAS = ["disable=del-in-graph", "disable=E5102", "disable=E", "disable=W,I", "disable=all", "skip-file",
           "disable-next=del-in-graph", "enable=del-in-graph", "enable=E", "disable=del-in-graph,try-in-graph",
           "disable = del-in-graph", "disable=unknown-thing", "disable=", "disable-msg=del-in-graph"]


def _pylint_states(text, module, names):
    """What Pylint's own machinery says: rule id -> {line: enabled} for every line of the module."""
    from pylint.lint import PyLinter
    from pylint.reporters import CollectingReporter
    from pylint.utils.file_state import FileState

    from graphlint.pylint_plugin import register

    linter = PyLinter(reporter=CollectingReporter())
    register(linter)
    linter.set_current_module("model", "model.py")
    linter._ignore_file = False
    linter.file_state = FileState("model", linter.msgs_store, module)
    linter.process_tokens(list(tokenize.generate_tokens(io.StringIO(text).readline)))
    lines = range(1, module.tolineno + 1)  # findings lie within the module's statements
    if linter._ignore_file:
        return {name: {line: False for line in lines} for name in names}
    return {name: {line: linter.is_message_enabled(name, line) for line in lines} for name in names}


def _ours(text, module, names):
    found = Suppressions(text, module, RULES)
    lines = range(1, module.tolineno + 1)
    return {name: {line: found.enabled(name, line) for line in lines} for name in names}


def _with_pragmas(seed):
    rng = random.Random(seed)
    lines = MODEL.splitlines()
    for _ in range(rng.randint(1, 3)):
        index = rng.randrange(4, len(lines))
        pragma = "# pylint: " + rng.choice(PRAGMAS)
        if rng.random() < 0.5 and lines[index].strip():
            lines[index] = lines[index] + "  " + pragma
        else:
            indent = len(lines[index]) - len(lines[index].lstrip())
            lines.insert(index, " " * indent + pragma)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(150))
def test_pragmas_mean_what_they_mean_under_pylint(seed):
    text = _with_pragmas(seed)
    module = parse(text, "model", "model.py")
    names = [lookup("del-in-graph").id, lookup("try-in-graph").id, lookup("tensor-condition-control-flow").id]
    assert _ours(text, module, names) == _pylint_states(text, module, names), text


@pytest.mark.parametrize("text, line, enabled", [
    (MODEL.replace("del i", "del i  # pylint: disable=del-in-graph"), 18, False),  # the statement's line
    (MODEL.replace("        for i", "        # pylint: disable=del-in-graph\n        for i"), 19, False),  # rest of block
    (MODEL.replace("        for i", "        # pylint: disable=del-in-graph\n        for i"), 25, True),  # not after it
    (MODEL.replace("        del i", "        # pylint: disable-next=E5102\n        del i"), 19, False),
    (MODEL.replace("        del i", "        # pylint: disable-next=E5102\n\n        del i"), 20, True),
    (MODEL.replace("        y = x * 2", "        y = x * 2  # pylint: disable=E"), 18, True),  # that line only
    (MODEL.replace("        y = x * 2", "        # pylint: disable=E\n        y = x * 2"), 19, False),  # a category
    (MODEL.replace("        y = x * 2", "        # pylint: disable=W\n        y = x * 2"), 19, True),
    (MODEL.replace("        y = x * 2", "        # pylint: disable=E5102\n        y = x * 2\n        # pylint: enable=E5102"),
     20, True),
    ("# pylint: skip-file\n" + MODEL, 19, False),
])
def test_pragma_scopes(text, line, enabled):
    module = parse(text, "model", "model.py")
    assert Suppressions(text, module, RULES).enabled(lookup("del-in-graph").id, line) is enabled
