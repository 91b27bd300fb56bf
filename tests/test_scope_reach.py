"""Graph scope is everything the entries reach, whatever object holds the code (issue 39, items 1 and 3).

MindSpore 2.10 compiles every method graph code calls: of a plain class held as ``self.sched = Scheduler()``, made
at module level or passed to ``__init__``, and a sub-Cell's methods other than ``construct``. The values of such an
object's attributes are what its ``__init__`` sets. Each program below states what MindSpore does with it (proved by
``test_programs_compile_as_claimed``) and where graphlint reports it, at each syntax level."""

import pytest

from graphlint.catalogue.model import DIVERGES, Example, fails, falls_back, passes
from graphlint.config import Config
from graphlint.lint import lint_text
from graphlint.validate.examples import prove_batch

STEP_INPUTS = "(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), Tensor(3, ms.int32))"

# A diffusers-style scheduler: a plain class the Cell holds; `step` and the helper it calls are graph code.
HELD_PLAIN_CLASS = falls_back(
    """
    import math

    class Scheduler:
        def __init__(self):
            self.alphas = Tensor(np.linspace(0.1, 0.9, 50).astype(np.float32))

        def helper(self, a):
            return math.sqrt(a)

        def step(self, x, t):
            return x * self.helper(self.alphas[t])

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.sched = Scheduler()

        def construct(self, x, t):
            return self.sched.step(x, t)
    """,
    error="the inputs should be constant, but found variable",
    inputs=STEP_INPUTS,
)

# A held Cell whose holder passes None for a parameter an entry would take as a Tensor: the `else` is compiled for
# that call, and a PyTorch `*size` form in it is refused (the entry assumption alone dropped it as dead).
HELD_CELL_PASSED_NONE = fails(
    """
    class PromptEncoder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.no_mask = nn.Embedding(1, 4)

        def construct(self, points, masks):
            if masks is not None:
                dense = masks
            else:
                dense = self.no_mask.embedding_table.reshape(1, -1, 1, 1).expand(points.shape[0], -1, 2, 2)
            return dense

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.encoder = PromptEncoder()

        def construct(self, x):
            return self.encoder(x, masks=None)
    """,
    error="The parameters number of the function is 2",
    inputs="(Tensor(np.ones((2, 3), np.float32)),)",
)

# An instance made at module level: a dataclass output built from a Tensor inside its method.
MODULE_LEVEL_INSTANCE = falls_back(
    """
    from dataclasses import dataclass

    @dataclass
    class StepOutput:
        prev_sample: object

    class Scheduler:
        def step(self, x, t):
            return StepOutput(x * t)

    SCHEDULER = Scheduler()

    class Net(nn.Cell):
        def construct(self, x, t):
            return SCHEDULER.step(x, t).prev_sample
    """,
    error="the inputs should be constant, but found variable",
    inputs="(Tensor(np.ones((2, 3), np.float32)), Tensor(2.0, ms.float32))",
)

# NumPy's random draw inside a held object's method happens once, when the graph is compiled.
RANDOM_IN_HELD_METHOD = Example(
    """
    class Noise:
        def add(self, x):
            return x + Tensor(np.random.randn(2, 3).astype(np.float32))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.noise = Noise()

        def construct(self, x):
            return self.noise.add(x)
    """,
    lax=DIVERGES,
    strict=DIVERGES,
)

# An instance passed to `__init__` (the module's own instantiation says which class), held by a sub-Cell.
PASSED_TO_INIT = falls_back(
    """
    import math

    class Scheduler:
        def scale(self, x):
            return x * math.sqrt(x.sum())

    class Block(nn.Cell):
        def __init__(self, sched):
            super().__init__()
            self.sched = sched

        def construct(self, x):
            return self.sched.scale(x)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.block = Block(Scheduler())

        def construct(self, x):
            return self.block(x)
    """,
    error="the inputs should be constant, but found variable",
)

# An instance a factory makes, unpacked from its tuple and passed to a sub-Cell's `__init__` (the port habit
# `vqvae, prior = build()`; `Sampler(vqvae, prior)`): the resolver follows it to its class.
PASSED_FROM_A_FACTORY = falls_back(
    """
    import math

    class Prior:
        def sample(self, x):
            return x * math.sqrt(x.sum())

    def build():
        prior = Prior()
        return prior, 3

    class Sampler(nn.Cell):
        def __init__(self, prior):
            super().__init__()
            self.prior = prior

        def construct(self, x):
            return self.prior.sample(x)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            prior, _ = build()
            self.sampler = Sampler(prior)

        def construct(self, x):
            return self.sampler(x)
    """,
    error="the inputs should be constant, but found variable",
)

# A sub-Cell's method other than `construct`.
SUB_CELL_METHOD = falls_back(
    """
    import math

    class Decoder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 3)

        def construct(self, x):
            return self.dense(x)

        def generate(self, x):
            for _ in range(2):
                x = self.dense(x)
            return x * math.sqrt(x.sum())

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.model = Decoder()

        def construct(self, x):
            return self.model.generate(x)
    """,
    error="the inputs should be constant, but found variable",
)

# A held object's attributes are what its `__init__` sets: a branch its flag turns off is never compiled, in its
# own method or read through the holder (`self.sched.clip`).
HELD_FLAG_OFF = passes(
    """
    import math

    class Scheduler:
        def __init__(self):
            self.clip = False

        def step(self, x):
            if self.clip:
                return x * math.sqrt(x.sum())
            return x

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.sched = Scheduler()

        def construct(self, x):
            if self.sched.clip:
                x = x * math.sqrt(x.sum())
            return self.sched.step(x)
    """,
)

# The same with the flag on: both branches are compiled, and both are reported.
HELD_FLAG_ON = falls_back(
    HELD_FLAG_OFF.code.replace("self.clip = False", "self.clip = True"),
    error="the inputs should be constant, but found variable",
)

# Call-site values (item 3): the module's own call passes `targets`, so its default is not the value; GRAPH_MODE
# leaves the caller's Tensor unchanged where PYNATIVE writes it (`drive` makes the same call through the harness).
TARGETS_PASSED = Example(
    """
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 3)

        def construct(self, x, targets=None):
            y = self.dense(x)
            if targets is not None:
                targets[targets == 0] = -1
                return y, targets
            return y

    def drive(call, target, inputs):
        targets = Tensor(np.array([0, 1, 2], np.int32))
        return [call(inputs[0][0], targets)[1], targets]

    if __name__ == "__main__":
        targets = Tensor(np.array([0, 1, 2], np.int32))
        Net()(Tensor(np.ones((2, 3), np.float32)), targets)
    """,
    lax=DIVERGES,
    strict=DIVERGES,
)

# A Cell returning a dict that another Cell holds, and that the module also calls as a graph of its own: STRICT
# gives that call a tuple.
DICT_FROM_HELD_CELL_CALLED_ALONE = Example(
    """
    class Head(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 3)

        def construct(self, x):
            y = self.dense(x)
            return {"logits": y, "probs": ops.softmax(y)}

    class Model(nn.Cell):
        def __init__(self):
            super().__init__()
            self.head = Head()

        def construct(self, x):
            return self.head(x)["logits"]

    if __name__ == "__main__":
        Model()(Tensor(np.ones((2, 3), np.float32)))
        Head()(Tensor(np.ones((2, 3), np.float32)))
    """,
    entry="Head",
    lax="ok",
    strict=DIVERGES,
)

# Held only: its dict stays inside the holder's graph, which compiles at both levels.
DICT_FROM_HELD_CELL_ONLY = passes(
    DICT_FROM_HELD_CELL_CALLED_ALONE.code.replace("    Head()(Tensor(np.ones((2, 3), np.float32)))\n", ""),
    entry="Model",
)

# One hop away (item 4): a slice of run-time length of a Tensor the graph computed, passed to a helper that loops
# over it; the loop is unrolled over the full static length and the steps past the bound fail, at both levels.
SLICE_LOOPED_BY_HELPER = fails(
    """
    def accumulate(rows, total):
        for row in rows:
            total = total + row
        return total

    class Net(nn.Cell):
        def construct(self, feats):
            total = feats[0, 0] * 0
            n = int((feats[1, :, 0] > 0).sum())
            rows = feats[1]
            return accumulate(rows[:n], total)
    """,
    error="For 'StridedSlice'",
    inputs="(Tensor(np.array([[[1., 2.], [3., 4.], [5., 6.]], [[1., 2.], [3., 4.], [-5., 6.]]], np.float32)),)",
)

# The same helper given the whole computed Tensor, or a slice of a constant length: nothing to report.
SLICE_OF_CONSTANT_LENGTH = passes(SLICE_LOOPED_BY_HELPER.code.replace("rows[:n]", "rows[:2]"),
                                  inputs=SLICE_LOOPED_BY_HELPER.inputs)

# (what the caller's own lines get: `int(...)` of a Tensor; the slice's bound, a Tensor value)
SLICE_FINDINGS = [("tensor-to-python-scalar-in-graph", 9), ("tensor-bounded-slice", 11)]

# Attributes no method assigns: a class body's value (`clip_sample = False`), a dataclass field's default, or what
# the instantiation passes for that field (`SamplerConfig(clip=True)`).
CLASS_BODY_FLAGS_OFF = passes(
    """
    import math
    from dataclasses import dataclass

    @dataclass
    class SamplerConfig:
        clip: bool = False
        steps: int = 3

    class Scheduler:
        clip_sample = False

        def step(self, x):
            if self.clip_sample:
                x = x * math.sqrt(x.sum())
            return x

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.cfg = SamplerConfig()
            self.sched = Scheduler()

        def construct(self, x):
            if self.cfg.clip:
                x = x * math.sqrt(x.sum())
            for _ in range(self.cfg.steps):
                x = self.sched.step(x)
            return x
    """,
)

DATACLASS_FIELD_PASSED = falls_back(
    CLASS_BODY_FLAGS_OFF.code.replace("SamplerConfig()", "SamplerConfig(clip=True)"),
    error="the inputs should be constant, but found variable",
)

# (program, [(symbol, line of `code`)] at the lax level, the same at STRICT)
PROGRAMS = {
    "held plain class": (HELD_PLAIN_CLASS, [("math-call-on-tensor", 8)], [("math-call-on-tensor", 8)]),
    "module-level instance": (MODULE_LEVEL_INSTANCE, [("python-object-from-tensor", 9)],
                              [("python-object-from-tensor", 9)]),
    "random in held method": (RANDOM_IN_HELD_METHOD, [("python-random-in-graph", 3)],
                              [("python-random-in-graph", 3)]),
    "passed to __init__": (PASSED_TO_INIT, [("math-call-on-tensor", 5)], [("math-call-on-tensor", 5)]),
    "passed from a factory": (PASSED_FROM_A_FACTORY, [("math-call-on-tensor", 5)], [("math-call-on-tensor", 5)]),
    "sub-Cell method": (SUB_CELL_METHOD, [("math-call-on-tensor", 14)], [("math-call-on-tensor", 14)]),
    "held flag off": (HELD_FLAG_OFF, [], []),
    "class body and dataclass flags off": (CLASS_BODY_FLAGS_OFF, [], []),
    "dataclass field passed": (DATACLASS_FIELD_PASSED, [("math-call-on-tensor", 25)], [("math-call-on-tensor", 25)]),
    "call passes targets": (TARGETS_PASSED, [("item-update-of-input", 9)], [("item-update-of-input", 9)]),
    "dict from a held Cell called alone": (DICT_FROM_HELD_CELL_CALLED_ALONE, [("dict-output-from-graph", 8)],
                                           [("dict-output-from-graph", 8)]),
    "dict from a held Cell only": (DICT_FROM_HELD_CELL_ONLY, [], []),
    "slice looped by a helper": (SLICE_LOOPED_BY_HELPER, SLICE_FINDINGS + [("loop-over-runtime-slice", 2)],
                                 SLICE_FINDINGS + [("loop-over-runtime-slice", 2)]),
    "slice of constant length": (SLICE_OF_CONSTANT_LENGTH, SLICE_FINDINGS[:1], SLICE_FINDINGS[:1]),
    "held cell passed none": (HELD_CELL_PASSED_NONE, [("torch-habit-refused", 10)], [("torch-habit-refused", 10)]),
    "held flag on": (HELD_FLAG_ON, [("math-call-on-tensor", 9), ("math-call-on-tensor", 19)],
                     [("math-call-on-tensor", 9), ("math-call-on-tensor", 19)]),
}


def _reported(example: Example, level: str) -> list[tuple[str, int]]:
    found = lint_text(example.source, Config(syntax_level=level))
    return sorted((f.rule.symbol, Example.code_line(f.line)) for f in found)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_reported_at_their_lines(name):
    example, lax, strict = PROGRAMS[name]
    assert _reported(example, "lax") == sorted(lax)
    assert _reported(example, "strict") == sorted(strict)


def test_findings_name_the_entry_that_reaches_them():
    found = lint_text(HELD_PLAIN_CLASS.source, Config())
    assert [f.message.split("(in helper ")[1] for f in found] == [
        "`Scheduler.helper`, reached from `Net.construct` via `Scheduler.step`)"]


def test_fatal_at_strict_is_an_error_there():
    found = lint_text(SUB_CELL_METHOD.source, Config(syntax_level="strict"))
    assert [(f.rule.symbol, f.severity) for f in found] == [("math-call-on-tensor", "error")]


@pytest.mark.compile
def test_programs_compile_as_claimed():
    names = sorted(PROGRAMS)
    verdicts = prove_batch([PROGRAMS[name][0] for name in names])
    assert {name: verdict.problems for name, verdict in zip(names, verdicts) if verdict.problems} == {}
