"""Functions jitted with ``capture_mode="trace"``: what the trace freezes that the other families do not cover
(checks on Tensor values are graph breaks under ``capture_mode="bytecode"`` too).

A traced function runs eagerly on its first call per input key (shapes, dtypes, scalar arguments), which is
recorded; every later call replays the recorded Tensor ops only. Python side effects and values read from the
host keep what the first call did, silently. These rules apply to traced functions only; the rules of the other
families that also hold under trace (Tensor conditions, ``.item()``, NumPy, random values, globals) say there
what freezes. Measured with MindSpore 2.10 (CPU), each example compared with PYNATIVE over two inputs.
"""

from graphlint.catalogue.model import DIVERGES, FAILS, OK, Rule, Severity, bytecoded, passes, traced

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "trace"

_COUNT_PRINTED = '''

def drive(call, target, inputs):
    import contextlib
    import io
    for args in inputs:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            output = call(*args)
        yield output, len(printed.getvalue().splitlines())
'''

# message fields: (none)
PRINT_IN_TRACED_FUNCTION = Rule(
    id="E6301",
    symbol="print-in-traced-function",
    family=FAMILY,
    lax=E,
    strict=E,
    trace=E,
    in_ast=False,
    message="`print(...)` runs on the first call only: a trace replays Tensor ops, not Python, so later calls print "
            "nothing; print the function's outputs after the call",
    summary="`print(...)` in a function jitted with `capture_mode=\"trace\"`.",
    why=(
        "The first call runs the function eagerly and records its Tensor ops; later calls with the same input "
        "shapes and dtypes replay the record and skip every Python statement. Measured: the first call printed "
        "one line, the second none, where PYNATIVE printed one line per call."
    ),
    fix="Return what you want to see and print it after the call, outside the traced function.",
    flagged=(
        traced(
            '''
            @ms.jit(capture_mode="trace")
            def fn(x):
                print("input sum:", x.sum())
                return x * 2
            ''',
            driver=_COUNT_PRINTED,
            trace=DIVERGES,
            title="`print` in a traced function",
            lines=3,
        ),
    ),
    clean=(
        traced(
            '''
            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * 2, x.sum()


            def drive(call, target, inputs):
                for args in inputs:
                    output, total = call(*args)
                    print("input sum:", total)
                    yield output
            ''',
            trace=OK,
        ),
    ),
)

# message fields: {attr}, {why}
CELL_STATE_IN_TRACED_FUNCTION = Rule(
    id="E6302",
    symbol="cell-state-in-traced-function",
    family=FAMILY,
    lax=E,
    strict=E,
    trace=E,
    in_ast=False,
    message="`self.{attr}` is read on the first call only and {why}: every later call keeps the first call's "
            "value; pass it as an argument (a scalar argument is part of the trace's key)",
    summary="A traced Cell method that reads `self.training`, or an attribute that code changes after "
            "construction.",
    why=(
        "A trace records Tensor ops only: the value of a Python attribute at the first call is folded into the "
        "record. Measured: after `net.set_train(True)` a traced `if self.training:` kept the first call's branch, "
        "and after `net.scale = 3.0` the traced `x * self.scale` still multiplied by 2.0."
    ),
    fix="Pass the value as an argument: `construct(self, x, training)` with a Python bool or number (the trace "
        "keys its records on scalar arguments), or keep it in a Parameter.",
    flagged=(
        traced(
            '''
            class Net(nn.Cell):
                @ms.jit(capture_mode="trace")
                def construct(self, x):
                    if self.training:
                        return x * 2
                    return x


            def drive(call, target, inputs):
                for index, args in enumerate(inputs):
                    target.set_train(index == 1)
                    yield call(*args)
            ''',
            trace=DIVERGES,
            entry="Net",
            title="`self.training` in a traced Cell",
            lines=4,
            fields={"attr": "training"},
        ),
        traced(
            '''
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = 2.0

                def construct(self, x):
                    return x * self.scale


            net = Net()
            fn = ms.jit(net, capture_mode="trace")


            def drive(call, target, inputs):
                for args in inputs:
                    yield call(*args)
                    net.scale = 3.0
            ''',
            trace=DIVERGES,
            title="a Cell attribute changed between traced calls",
            lines=7,
            fields={"attr": "scale"},
        ),
    ),
    clean=(
        traced(
            '''
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = 2.0

                def construct(self, x):
                    return x * self.scale


            fn = ms.jit(Net(), capture_mode="trace")
            ''',
            trace=OK,
        ),
    ),
)

# message fields: {update}
PARAMETER_UPDATE_IN_TRACED_FUNCTION = Rule(
    id="E6303",
    symbol="parameter-update-in-traced-function",
    family=FAMILY,
    lax=E,
    strict=E,
    trace=E,
    in_ast=False,
    message="`{update}` on a Parameter in a traced function is applied twice by the first call (once eagerly, "
            "once by the replay): update the Parameter outside the traced function",
    summary="`ops.assign`, `ops.assign_add`, `ops.assign_sub` (or `Parameter.assign_value`) in a function jitted "
            "with `capture_mode=\"trace\"`.",
    why=(
        "The first call runs the function eagerly, which updates the Parameter, and then runs the recorded ops, "
        "which update it again. Measured: a Parameter of zeros accumulated with `ops.assign_add(self.total, x)` "
        "held `2 * x` after the first call."
    ),
    fix="Return the update and apply it outside the traced function (`ops.assign_add(net.total, delta)` after "
        "the call), or jit the function with the default capture.",
    flagged=(
        traced(
            '''
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.total = Parameter(Tensor(np.zeros(3, np.float32)), name="total")

                @ms.jit(capture_mode="trace")
                def construct(self, x):
                    ops.assign_add(self.total, x)
                    return self.total * 1
            ''',
            trace=DIVERGES,
            entry="Net",
            title="`ops.assign_add` in a traced function",
            lines=8,
            fields={"update": "assign_add"},
        ),
    ),
    clean=(
        traced(
            '''
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.total = Parameter(Tensor(np.zeros(3, np.float32)), name="total")

                @ms.jit(capture_mode="trace")
                def construct(self, x):
                    return self.total + x
            ''',
            trace=OK,
            entry="Net",
        ),
    ),
)

_NUMPY_INPUTS = "[(np.array([1.0, 2.0, 3.0], np.float32),), (np.array([-4.0, 5.0, -6.0], np.float32),)]"

# message fields: {argument}
NUMPY_ARGUMENT_TO_TRACED_FUNCTION = Rule(
    id="E6304",
    symbol="numpy-argument-to-traced-function",
    family=FAMILY,
    lax=E,
    strict=E,
    trace=E,
    in_ast=False,
    message="`{argument}` is a NumPy array: a traced function refuses it (\"Not support [<class "
            "'numpy.ndarray'>]\"); pass `Tensor(...)` of it",
    summary="A NumPy array passed to a function jitted with `capture_mode=\"trace\"`.",
    why="Measured: `fn(np.ones(3, np.float32))` raised \"RuntimeError: Not support [<class 'numpy.ndarray'>]\" "
        "where PYNATIVE computed with the array.",
    mindspore_error="RuntimeError: Not support [<class 'numpy.ndarray'>]",
    fix="Convert at the call: `fn(Tensor(array))`.",
    flagged=(
        traced(
            '''
            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * 2


            if __name__ == "__main__":
                print(fn(np.ones(3, np.float32)))
            ''',
            trace=FAILS,
            error="Not support [<class 'numpy.ndarray'>]",
            inputs=_NUMPY_INPUTS,
            title="a NumPy argument to a traced function",
            lines=7,
            fields={"argument": "np.ones(3, np.float32)"},
        ),
    ),
    clean=(
        traced(
            '''
            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * 2


            if __name__ == "__main__":
                print(fn(Tensor(np.ones(3, np.float32))))
            ''',
            trace=OK,
        ),
    ),
)

_REFUSALS = '''

def drive(call, target, inputs):
    for args in inputs:
        try:
            yield call(*args)
        except (AssertionError, ValueError):
            yield "refused"
'''

# message fields: {statement}
CHECK_ON_TENSOR_IN_TRACED_FUNCTION = Rule(
    id="E6305",
    symbol="check-on-tensor-in-traced-function",
    family=FAMILY,
    lax=E,
    strict=E,
    trace=E,
    bytecode=W,
    bytecode_fullgraph=E,
    in_ast=False,
    bytecode_message="this `{statement}` on a Tensor value is a graph break under bytecode capture (Python checks it "
                     "on every call, between two graphs), and `fullgraph=True` refuses it ('Data-dependent "
                     "conditional control flow is not supported'); check the inputs before the call",
    message="this `{statement}` on a Tensor value is checked on the first call only: later calls replay the "
            "recorded ops and never fail; check the inputs before calling the traced function",
    summary="`assert` on a Tensor value, or `raise` under an `if` on one, in a function jitted with "
            "`capture_mode=\"trace\"`.",
    why="A trace records Tensor ops, not Python checks. Measured: `assert (x > 0).all()` and `if x.min() < 0: "
        "raise ValueError(...)` stopped an invalid first input, but an invalid second input passed silently.",
    fix="Check the inputs outside the traced function (where the check runs every call), or clamp them with "
        "Tensor ops (`ops.relu`, `ops.clip_by_value`).",
    flagged=(
        traced(
            '''
            @ms.jit(capture_mode="trace")
            def fn(x):
                assert (x > 0).all(), "inputs must be positive"
                return x * 2
            ''',
            driver=_REFUSALS,
            trace=DIVERGES,
            title="`assert` on a Tensor in a traced function",
            lines=3,
            fields={"statement": "assert"},
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                assert (x > 0).all(), "inputs must be positive"
                return x * 2
            """,
            driver=_REFUSALS,
            bytecode=OK,
            title="`assert` on a Tensor under bytecode capture",
            lines=3,
            fields={"statement": "assert"},
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                assert (x > 0).all(), "inputs must be positive"
                return x * 2
            """,
            driver=_REFUSALS,
            bytecode=FAILS,
            error="Data-dependent conditional control flow is not supported",
            title="`assert` on a Tensor under bytecode capture with fullgraph",
            lines=3,
            fields={"statement": "assert"},
        ),
        traced(
            '''
            @ms.jit(capture_mode="trace")
            def fn(x):
                if x.min() < 0:
                    raise ValueError("inputs must be positive")
                return x * 2
            ''',
            driver=_REFUSALS,
            trace=DIVERGES,
            title="`raise` under a Tensor `if` in a traced function",
            lines=4,
            fields={"statement": "raise"},
        ),
    ),
    clean=(
        traced(
            '''
            @ms.jit(capture_mode="trace")
            def fn(x):
                assert x.ndim == 1, "a vector"
                return ops.relu(x) * 2


            def drive(call, target, inputs):
                for args in inputs:
                    if (args[0] < 0).any():
                        yield "refused"
                    else:
                        yield call(*args)
            ''',
            trace=OK,
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                assert x.ndim == 1, "a vector"
                return ops.relu(x) * 2
            """,
            bytecode=OK,
        ),
    ),
)

# message fields: {entry}
CAPTURE_MODE_UNKNOWN = Rule(
    id="W6306",
    symbol="capture-mode-unknown",
    family=FAMILY,
    lax=W,
    strict=W,
    message="`capture_mode` of `{entry}` is a value known only at run time: graphlint checks it as `\"ast\"` "
            "(jit's default); write the mode as a string literal so that the checks match how it is captured",
    summary="`jit(..., capture_mode=name)` where the mode is not a string literal.",
    why="What is wrong in a function depends on how MindSpore captures it: `\"ast\"` compiles the source, "
        "`\"trace\"` records the first call and replays it, `\"bytecode\"` compiles the bytecode with graph "
        "breaks. A mode chosen at run time cannot be told from the source; the function is checked as `\"ast\"`.",
    fix="Write the mode as a literal: `@jit(capture_mode=\"trace\")`; to switch modes, jit two functions.",
    flagged=(
        passes(
            '''
            MODE = "ast"


            @ms.jit(capture_mode=MODE)
            def fn(x):
                return x * 2
            ''',
            entry="fn",
            title="a `capture_mode` given by a variable",
            lines=4,
            fields={"entry": "fn"},
        ),
    ),
    clean=(
        passes(
            '''
            @ms.jit(capture_mode="ast")
            def fn(x):
                return x * 2
            ''',
            entry="fn",
        ),
    ),
)


RULES = (
    PRINT_IN_TRACED_FUNCTION,
    CELL_STATE_IN_TRACED_FUNCTION,
    PARAMETER_UPDATE_IN_TRACED_FUNCTION,
    NUMPY_ARGUMENT_TO_TRACED_FUNCTION,
    CHECK_ON_TENSOR_IN_TRACED_FUNCTION,
    CAPTURE_MODE_UNKNOWN,
)
