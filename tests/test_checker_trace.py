"""The trace family's checker on cases its catalogue examples do not cover (lines asserted)."""

import textwrap

from graphlint.config import Config
from graphlint.lint import lint_text

HEADER = "import numpy as np\nimport mindspore as ms\nfrom mindspore import nn, ops, Tensor, Parameter\n\n\n"


def found(body: str) -> list[tuple[int, str, str]]:
    """(line of ``body``, rule id, severity) of every finding."""
    offset = HEADER.count("\n")
    return [(f.line - offset, f.rule.id, f.severity.value)
            for f in lint_text(HEADER + textwrap.dedent(body), Config())]


def test_print_is_the_builtin_only():
    assert found("""\
        def print(*args):
            return args


        @ms.jit(capture_mode="trace")
        def fn(x):
            print(x)
            return x
        """) == []


def test_cell_attributes_set_only_in_init_and_sub_cell_calls_stay_quiet():
    assert found("""\
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.scale = 2.0
                self.dense = nn.Dense(3, 3)
                self.steps = 0

            def reset(self):
                self.steps = 0

            @ms.jit(capture_mode="trace")
            def construct(self, x):
                return self.dense(x) * self.scale + self.steps
        """) == [(13, "E6302", "error")]  # `steps`: `reset` changes it


def test_cell_state_in_a_cell_compiled_from_its_ast_is_not_a_trace_finding():
    assert found("""\
        class Net(nn.Cell):
            def construct(self, x):
                if self.training:
                    return x * 2
                return x
        """) == []


def test_parameter_update_methods():
    assert found("""\
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.total = Parameter(Tensor(np.zeros(3, np.float32)), name="total")

            @ms.jit(capture_mode="trace")
            def construct(self, x):
                self.total.assign_value(self.total + x)
                return self.total * 1
        """) == [(8, "E6303", "error")]


def test_a_cell_name_bound_twice_is_not_resolved_for_jit():
    assert found("""\
        class Net(nn.Cell):
            def construct(self, x):
                print(x)
                return x


        net = Net()
        net = Net()
        fn = ms.jit(net, capture_mode="trace")
        """) == []


def test_numpy_argument_through_a_name():
    assert found("""\
        @ms.jit(capture_mode="trace")
        def fn(x):
            return x * 2


        def main():
            batch = np.zeros(3, np.float32)
            return fn(batch)
        """) == [(8, "E6304", "error")]


def test_raise_under_a_shape_condition_is_not_a_tensor_check():
    assert found("""\
        @ms.jit(capture_mode="trace")
        def fn(x):
            if x.shape[0] > 2:
                raise ValueError("a vector of at most 2")
            return x
        """) == []


def test_capture_mode_unknown_of_a_jit_call_is_reported_at_the_function():
    assert found("""\
        def forward(x):
            return x * 2


        def build(mode):
            return ms.jit(forward, capture_mode=mode)
        """) == [(1, "W6306", "warning")]
