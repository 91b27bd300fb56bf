"""``@jit(fullgraph=True)`` compiles at the STRICT level whatever the configured syntax level: its findings (and
those of the helpers it reaches) take the rules' strict severity."""

import subprocess
import sys
import textwrap

from graphlint.config import Config
from graphlint.lint import lint_text
from tests.test_generated_tables import _environment, mindspore_importable  # noqa: F401 - a fixture

PROGRAM = textwrap.dedent("""\
    import numpy as np
    import mindspore as ms
    from mindspore import Tensor


    def squash(x):
        return Tensor(np.tanh(x.asnumpy()))


    @ms.jit(fullgraph=True)
    def strict_fn(x):
        return squash(x) + Tensor(np.tanh(x.asnumpy()))


    @ms.jit
    def lax_fn(x):
        return Tensor(np.tanh(x.asnumpy()))


    if __name__ == "__main__":
        for fn in (lax_fn, strict_fn):
            try:
                fn(Tensor(np.ones(3, np.float32)))
                print(fn.__name__, "compiles")
            except Exception as error:  # what MindSpore says is checked below
                print(fn.__name__, "fails:", str(error).splitlines()[0])
    """)


def test_fullgraph_entries_take_strict_severities_at_the_lax_level():
    found = sorted((f.line, f.rule.id, f.severity.value) for f in lint_text(PROGRAM, Config(syntax_level="lax")))
    assert found == [
        (7, "W5501", "error"), (7, "W5502", "error"),  # the helper, reached from the fullgraph entry
        (12, "W5501", "error"), (12, "W5502", "error"),
        (17, "W5501", "warning"), (17, "W5502", "warning"),
    ]


def test_mindspore_compiles_the_fullgraph_entry_strictly(mindspore_importable, tmp_path):  # noqa: F811 - fixture
    program = tmp_path / "program.py"  # (MindSpore reads the source of what it compiles from a file)
    program.write_text(PROGRAM, encoding="utf-8")
    completed = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, env=_environment(),
                               timeout=600)
    lines = [line for line in completed.stdout.splitlines() if line.startswith(("lax_fn", "strict_fn"))]
    assert lines[0] == "lax_fn compiles"
    assert lines[1].startswith("strict_fn fails: In JIT strict mode"), lines
