"""divergence checker: Python evaluated at compile time, host state read as constants."""

import textwrap

import pytest

from graphlint.catalogue.model import EXAMPLE_HEADER
from graphlint.config import Config
from graphlint.lint import lint_paths, lint_text


def findings(code: str):
    source = EXAMPLE_HEADER + textwrap.dedent(code)
    return [f for f in lint_text(source, Config()) if f.rule.family == "divergence"]


def symbols(code: str):
    return [f.rule.symbol for f in findings(code)]


# -- W5201 .. W5203, W5206: calls run while compiling ------------------------------------------------
def test_aliased_random_imports():
    found = findings("""
        import random as rnd
        from random import uniform
        import numpy.random as npr
        from numpy import random as nr

        class Net(nn.Cell):
            def construct(self, x):
                return x * rnd.random() + uniform(0, 1) + npr.rand() + nr.randint(3)
        """)
    assert [f.args["call"] for f in found] == ["rnd.random()", "uniform(...)", "npr.rand()", "nr.randint(...)"]
    assert {f.rule.symbol for f in found} == {"python-random-in-graph"}


def test_mindspore_random_print_and_init_are_not_reported():
    assert symbols("""
        import random

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.dropout = nn.Dropout(p=0.5)
                self.scale = random.random()

            def construct(self, x):
                print("x", x)
                ops.print_("x", x)
                return self.dropout(x) * ops.uniform(x.shape, Tensor(0.0), Tensor(1.0)) * self.scale
        """) == ["seeded-random-stream-differs"]  # (MindSpore's own random op: only its seeded stream, info)


def test_local_names_shadow_modules():
    assert symbols("""
        import random
        import time

        class Net(nn.Cell):
            def construct(self, x, random, time):
                return x * random.random() + time.time()
        """) == []


def test_runtime_arguments_are_left_to_the_fallback_rules():
    # With a Tensor argument the interpreter runs the call on every call (measured for logging).
    assert symbols("""
        import logging

        LOGGER = logging.getLogger(__name__)

        class Net(nn.Cell):
            def construct(self, x):
                LOGGER.info("sum %s", x.sum())
                return x * np.random.permutation(x)
        """) == []


def test_helper_reached_from_construct():
    found = findings("""
        import random

        def jitter(x):
            return x * random.uniform(0.9, 1.1)

        class Net(nn.Cell):
            def construct(self, x):
                return jitter(x)
        """)
    assert [f.rule.symbol for f in found] == ["python-random-in-graph"]
    assert "in helper `jitter`" in found[0].message


def test_clock_and_environment_forms():
    found = findings("""
        import os
        from datetime import datetime
        from os import environ

        class Net(nn.Cell):
            def construct(self, x):
                if "DEBUG" in os.environ or environ.get("X") == "1":
                    return x
                stamp = datetime.now()
                return x * float(os.environ.get("SCALE", "1"))
        """)
    assert [(f.rule.symbol, f.args["call"]) for f in found] == [
        ("environ-read-in-graph", "'DEBUG' in os.environ"),
        ("environ-read-in-graph", "environ.get('X')"),
        ("wall-clock-in-graph", "datetime.now()"),
        ("environ-read-in-graph", "os.environ.get('SCALE', '1')"),
    ]


ENVIRON_USES = """
    import os

    SCALE = "GRAPHLINT_SCALE"


    @ms.jit(capture_mode="{capture}"{fullgraph})
    def fn(x):
        if os.getenv("GRAPHLINT_DOUBLE") == "1" or "GRAPHLINT_DEBUG" in os.environ:
            x = x * 2
        flag = float(os.environ.get("GRAPHLINT_LIMIT", "1")) > 1.5
        x = x * 3 if not flag else x
        mode = os.getenv("GRAPHLINT_MODE", "1")
        if mode == "2":
            x = x + 1
        x = x * float(mode)
        for _ in range(int(os.environ[SCALE])):
            x = x + 1
        return x * (os.getenv("GRAPHLINT_HALF") == "1")
    """


@pytest.mark.parametrize("fullgraph", ["", ", fullgraph=True"])
def test_environ_reads_under_bytecode_only_where_the_value_feeds_a_computation(fullgraph):
    # measured (MindSpore 2.10, Python 3.11, with and without fullgraph): a value that only decides a condition
    # (lines 8, 10) is guarded and followed the variable; one that feeds a computation, also when it is compared
    # too (line 12), or a range (16) or is multiplied as a bool (18) kept the first call's value
    found = [f for f in findings(ENVIRON_USES.format(capture="bytecode", fullgraph=fullgraph))
             if f.rule.symbol == "environ-read-in-graph"]
    assert [(f.line - 4, f.severity.value, f.args["call"]) for f in found] == [
        (12, "error", "os.getenv('GRAPHLINT_MODE', '1')"),
        (16, "error", "os.environ[SCALE]"),
        (18, "error", "os.getenv('GRAPHLINT_HALF')"),
    ]
    assert found[0].message.startswith("`os.getenv('GRAPHLINT_MODE', '1')` keeps the value it had on the first "
                                       "call: bytecode capture does not guard")


def test_environ_reads_in_conditions_stay_reported_under_trace_and_ast():
    traced = [f.line - 4 for f in findings(ENVIRON_USES.format(capture="trace", fullgraph=""))
              if f.rule.symbol == "environ-read-in-graph"]
    assert traced == [8, 8, 10, 12, 16, 18]
    plain = [f.line - 4 for f in findings(ENVIRON_USES.format(capture="ast", fullgraph=""))
             if f.rule.symbol == "environ-read-in-graph"]
    assert plain == [8, 8, 10, 12, 16, 18]


def test_logger_forms():
    found = findings("""
        import logging
        import warnings
        from mindspore import log as ms_log

        _logger = logging.getLogger(__name__)

        class Net(nn.Cell):
            def construct(self, x):
                _logger.warning("slow")
                logging.info("forward")
                ms_log.warning("ms")
                warnings.warn("deprecated")
                return x
        """)
    # mindspore.log is refused outright in graph code (jit-forbidden-api, measured), not frozen at compile time.
    assert [f.args["call"] for f in found] == ["_logger.warning(...)", "logging.info(...)", "warnings.warn(...)"]
    from graphlint.config import Config
    from graphlint.lint import lint_text
    from graphlint.catalogue.model import EXAMPLE_HEADER

    text = EXAMPLE_HEADER + "from mindspore import log as ms_log\n\nclass Net(nn.Cell):\n    def construct(self, x):\n" \
        "        ms_log.warning('ms')\n        return x\n"
    assert [(f.line, f.rule.symbol) for f in lint_text(text, Config())] == [(8, "jit-forbidden-api")]


# -- W5204 / W5205: globals ----------------------------------------------------------------------------
def test_constant_globals_and_import_time_setup_are_not_reported():
    assert symbols("""
        EPS = 1e-6
        TABLE = {}
        TABLE["a"] = 1.0
        FRAMES = np.zeros((3,), np.float32)

        def _fill():
            FRAMES[0] = 1.0

        _fill()

        class Net(nn.Cell):
            def construct(self, x):
                return x * TABLE["a"] + EPS + FRAMES[0]
        """) == []


def test_global_changed_by_a_function_is_reported_once():
    found = findings("""
        SCALE = 2.0
        OPTIONS = {"bias": 1.0}

        def configure(scale, bias):
            global SCALE
            SCALE = scale
            OPTIONS.update(bias=bias)

        class Net(nn.Cell):
            def construct(self, x):
                return x * SCALE + SCALE + OPTIONS["bias"]
        """)
    assert [(f.rule.symbol, f.args["name"]) for f in found] == [
        ("mutable-global-in-graph", "SCALE"), ("mutable-global-in-graph", "OPTIONS")]


def test_global_mutated_only_in_graph_code_is_a_container_mutation():
    found = findings("""
        STATS = {}

        class Net(nn.Cell):
            def construct(self, x):
                STATS["calls"] = STATS.get("calls", 0) + 1
                return x
        """)
    assert [f.rule.symbol for f in found] == ["python-container-mutation-in-graph"]


def test_global_statement_without_write_is_not_reported():
    assert symbols("""
        COUNT = 0

        class Net(nn.Cell):
            def construct(self, x):
                global COUNT
                return x + COUNT
        """) == []


def test_global_changed_in_another_module(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "config.py").write_text("SCALE = 2.0\nFLAGS = {'double': False}\n")
    # Files that never mention MindSpore are not read; this one drives the model.
    (package / "train.py").write_text(textwrap.dedent("""
        import mindspore
        from pkg import config
        from pkg.config import FLAGS

        def set_scale(value):
            config.SCALE = value

        def enable():
            FLAGS["double"] = True
        """))
    (package / "net.py").write_text(EXAMPLE_HEADER + textwrap.dedent("""
        from pkg import config
        from pkg.config import FLAGS

        class Net(nn.Cell):
            def construct(self, x):
                if FLAGS["double"]:
                    x = x * 2
                return x * config.SCALE
        """))
    result = lint_paths([str(package)], Config())
    found = [(f.rule.symbol, f.args["name"]) for f in result.findings if f.rule.family == "divergence"]
    assert found == [("mutable-global-in-graph", "FLAGS"), ("mutable-global-in-graph", "config.SCALE")]


# -- W5207: containers -----------------------------------------------------------------------------------
def test_container_mutation_targets():
    found = findings("""
        CALLS = []

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.history = []
                self.blocks = nn.CellList([nn.ReLU()])

            def construct(self, x):
                parts = []
                parts.append(x)
                CALLS.append(1)
                self.history.append(1)
                self.blocks.append(nn.ReLU())
                return ops.stack(parts)
        """)
    assert [f.args["expr"] for f in found] == ["CALLS.append(...)", "self.history.append(...)"]


# -- W5208: attributes changed between calls --------------------------------------------------------------
def test_setters_run_while_building_are_not_reported():
    assert symbols("""
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self._configure(2.0)
                self._init_mode()

            def _configure(self, scale):
                self.scale = scale

            def _init_mode(self):
                self.deploy = False

            def construct(self, x):
                if self.deploy:
                    return x
                return x * self.scale
        """) == []


def test_host_setter_is_reported_but_not_for_parameters_or_called_cells():
    found = findings("""
        class Net(nn.Cell):
            def __init__(self, head):
                super().__init__()
                self.scale = 2.0
                self.w = Parameter(Tensor(1.0, ms.float32), name="w")
                self.head = head

            def switch(self, scale, head):
                self.scale = scale
                self.w = Parameter(Tensor(scale, ms.float32), name="w")
                self.head = head

            def construct(self, x):
                if self.head is None:
                    return x
                return self.head(x * self.scale * self.w)
        """)
    assert [(f.rule.symbol, f.args) for f in found] == [
        ("host-attribute-change-between-calls", {"attr": "scale", "method": "Net.switch"})]


def test_set_train_override_is_not_a_setter():
    assert symbols("""
        class Net(nn.Cell):
            def set_train(self, mode=True):
                self.training = mode
                return super().set_train(mode)

            def construct(self, x):
                if self.training:
                    return x * 2
                return x
        """) == []


# -- W5209: attribute writes in graph code -----------------------------------------------------------------
def test_attribute_writes_by_initial_value():
    found = findings("""
        class Net(nn.Cell):
            def __init__(self, steps=0, weight=None, table=None):
                super().__init__()
                self.steps = steps
                self.weight = weight
                self.table = table
                self.p = Parameter(Tensor(0, ms.int32), name="p")

            def construct(self, x):
                self.steps += 1
                self.weight = x
                self.table[0] = x
                self.p += 1
                return x
        """)
    # `steps` has an int default; `weight` / `table` could be Parameters passed in: not reported.
    assert [(f.rule.symbol, f.args["attr"]) for f in found] == [("attribute-write-in-graph", "steps")]


def test_attribute_set_by_a_graph_helper_that_init_also_runs():
    found = findings("""
        class Rotary(nn.Cell):
            def __init__(self, length=16):
                super().__init__()
                self._cache(length)

            def _cache(self, length):
                self.cached = length
                self.table = ops.arange(length)

            def construct(self, x, length):
                if length > self.cached:
                    self._cache(length)
                return self.table
        """)
    assert [f.args["attr"] for f in found if f.rule.id == "W5209"] == ["cached", "table"]
    # and `return self.table` after the helper call reads the compile-time table (measured: E5215's example)
    assert [(f.args["attr"], f.line) for f in found if f.rule.id == "E5215"] == [("table", 17)]  # (after the header)


def test_attribute_created_in_graph_code_needs_a_known_class_hierarchy():
    assert symbols("""
        class Net(nn.Cell):
            def construct(self, x):
                self.feature = x * 2
                return x
        """) == ["attribute-write-in-graph"]
    # A base class from outside the project may define the attribute (as a Parameter, even).
    assert symbols("""
        from somewhere import Base

        class Net(Base):
            def construct(self, x):
                self.feature = x * 2
                return x
        """) == []


def test_helper_object_and_jit_class_writes():
    # (the held object's methods are graph code, reached from Net.construct: the write is reported where it is)
    source = """
        class Counter:
            def __init__(self):
                self.n = 0

            def step(self, x):
                self._bump()
                return x

            def _bump(self):
                self.n += 1

        @ms.jit_class
        class Meter:
            def __init__(self):
                self.total = 0.0

            def add(self, x):
                self.total += 1.0
                return x

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.counter = Counter()
                self.meter = Meter()

            def construct(self, x):
                return self.meter.add(self.counter.step(x))
        """
    lines = (EXAMPLE_HEADER + textwrap.dedent(source)).splitlines()
    found = findings(source)
    assert sorted((f.args["attr"], lines[f.line - 1].strip()) for f in found) == [
        ("n", "self.n += 1"), ("total", "self.total += 1.0")]


# -- attributes set from `__init__` parameters annotated as Python containers ------------------------------
def test_annotated_container_attribute_written_and_mutated_in_graph():
    code = """
        class Net(nn.Cell):
            def __init__(self, groups: list, table: dict, weight):
                super().__init__()
                self.groups = groups
                self.table = table
                self.weight = weight

            def construct(self, x):
                self.groups[0] = x
                self.groups[1].append(2)
                self.table["k"] = 1
                self.weight[0] = x
                return x
        """
    source = EXAMPLE_HEADER + textwrap.dedent(code)
    lines = source.splitlines()
    found = sorted((f.line, f.rule.symbol) for f in findings(code))
    line = lambda text: next(i for i, l in enumerate(lines, 1) if l.strip() == text)  # noqa: E731
    # `weight` has no annotation: it may be a Parameter, whose item writes compile
    assert found == [(line("self.groups[0] = x"), "attribute-write-in-graph"),
                     (line("self.groups[1].append(2)"), "python-container-mutation-in-graph"),
                     (line('self.table["k"] = 1'), "attribute-write-in-graph")]


def test_two_axis_transpose_on_values_the_analysis_follows():
    """PyTorch's attention habit: `q, k, v = x.split(d, -1)`, `q.view(...).transpose(1, 2)`,
    `k.transpose(-2, -1)`; a dict value of unknown kind counts too, a NumPy array and `(1, 0)` do not (E5212)."""
    source = """
        class Attention(nn.Cell):
            def construct(self, x, outputs):
                q, k, v = x.split(4, -1)
                q = q.view(2, 3, 2, 2).transpose(1, 2)
                scores = ops.matmul(q, k.transpose(-2, -1))
                logits = outputs["pred_logits"].transpose(1, 2)
                host = np.ones((2, 3)).transpose(1, 0)
                return scores, logits, v.transpose(1, 0), host
        """
    found = [f for f in findings(source) if f.rule.id == "E5212"]
    lines = (EXAMPLE_HEADER + textwrap.dedent(source)).splitlines()

    def line_of(needle):
        return next(number for number, text in enumerate(lines, 1) if needle in text)

    assert [(f.line, f.args["first"], f.args["second"]) for f in found] == [
        (line_of("q = q.view"), "1", "2"), (line_of("scores ="), "-2", "-1"), (line_of("logits ="), "1", "2")]


DROPOUT_THROUGH_CONSTRUCTORS = '''
from mindspore import nn


class Mlp(nn.Cell):
    def __init__(self, dim, drop=0.5):
        super().__init__()
        self.fc = nn.Dense(dim, dim)
        self.drop = nn.Dropout(p=drop)

    def construct(self, x):
        return self.drop(self.fc(self.drop(x)))


class Block(nn.Cell):
    def __init__(self, dim, drop):
        super().__init__()
        self.mlp = Mlp(dim, drop=drop)

    def construct(self, x):
        return self.mlp(x)


class Net(nn.Cell):
    def __init__(self, drop_rate=0.):
        super().__init__()
        self.block = Block(4, drop=drop_rate)

    def construct(self, x):
        return self.block(x)
'''


@pytest.mark.parametrize("built, reported", [("Net()", []), ("Net(drop_rate=0.1)", [12]), ("", [])])
def test_a_dropout_built_with_p_zero_through_constructors_draws_nothing(built, reported):
    """`nn.Dropout(p=drop)` where every construction passes 0 down two constructors (timm's `drop_rate=0.`):
    its construct returns the input, so calling it twice repeats no draw; one construction passing 0.1 draws."""
    source = DROPOUT_THROUGH_CONSTRUCTORS + (f"\nnet = {built}\n" if built else "")
    found = [f.line for f in lint_text(source, Config()) if f.rule.id == "W5213"]
    assert found == reported
