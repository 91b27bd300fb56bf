"""Port mode's cuts (graphlint/validate/cuts.py): which statement a compile error's line takes out of the scratch
copy, and what it is replaced by, from what the PYNATIVE_MODE run recorded. Pure Python: the compiles that use
them are in tests/test_port.py and tests/test_port_models.py."""

from __future__ import annotations

import textwrap

from graphlint.validate import cuts

MODEL = textwrap.dedent('''\
    class Net:
        def construct(self, x):
            self.calls += 1
            print(x)
            y, z = self.split(x)
            for t in self.timesteps:
                y = y + t
            if y.sum() > 0:
                w = y * 2
            else:
                w = (y, y)
            return w

        @staticmethod
        def helper(x):
            try:
                return x
            except ValueError:
                return None
    ''')


def _calls() -> cuts.Calls:
    # (line, locals then) of the first call, as the recorder's trace hook writes them; line 0 is the return
    construct = [(3, {"x": 1}), (4, {"x": 1}), (5, {"x": 1}), (6, {"x": 1, "y": 10, "z": 20}),
                 (7, {"x": 1, "y": 10, "z": 20, "t": 5}), (6, {"y": 15, "t": 5}), (7, {"y": 15, "t": 4}),
                 (6, {"y": 19, "t": 4}), (8, {"y": 19, "t": 4}), (9, {"y": 19}), (12, {"y": 19, "w": 38}),
                 (0, {"w": 38})]
    helper = [(16, {"x": 3}), (17, {"x": 3}), (0, {"x": 3})]
    return cuts.Calls(lines={2: construct, 14: helper}, returns={2: 38, 14: 3}, entry=2)


def _line(text: str, number: int) -> str:
    return text.splitlines()[number - 1]


def test_each_statement_kind_takes_what_pynative_mode_computed_there():
    calls = _calls()
    write = cuts.plan(MODEL, 3, calls)
    assert (write.first, write.last, write.lines, write.name) == (3, 3, ["        pass"], "")
    assert cuts.plan(MODEL, 4, calls).lines == ["        pass"]
    unpacked = cuts.plan(MODEL, 5, calls)
    assert unpacked.lines == ["        y, z = _graphlint_cut_5()"] and unpacked.value == (10, 20)
    loop = cuts.plan(MODEL, 6, calls)  # (the values the loop's target took, its first time through)
    assert loop.lines == ["        for t in _graphlint_cut_6():"] and loop.value == (5, 4)
    branch = cuts.plan(MODEL, 8, calls)  # (the branch taken kept in its place, dedented; the other left out)
    assert (branch.first, branch.last, branch.lines) == (8, 8, ["        pass"])  # (the header: a block stays one)
    assert cuts.apply(MODEL, [branch]).splitlines()[7:11] == ["        pass", "        w = y * 2", "", ""]
    returned = cuts.plan(MODEL, 12, calls)
    assert returned.lines == ["        return _graphlint_cut_12()"] and returned.value == 38


def test_the_copy_keeps_every_line_where_it_was():
    calls = _calls()
    text = cuts.apply(MODEL, [cuts.plan(MODEL, 5, calls), cuts.plan(MODEL, 6, calls)])
    assert len(text.splitlines()) == len(MODEL.splitlines())
    assert _line(text, 5).strip() == "y, z = _graphlint_cut_5()" and _line(text, 7).strip() == "y = y + t"


def test_a_compile_failing_again_inside_a_cut_cuts_wider_then_the_function():
    """A branch join names the assignment in one branch: with it cut, the other branch still joins badly; the next
    cut is the branch PYNATIVE_MODE took; past that, the whole function (never the entry's own)."""
    calls = _calls()
    assert cuts.plan(MODEL, 9, calls, depth=0).lines == ["            w = _graphlint_cut_9()"]
    wider = cuts.plan(MODEL, 9, calls, depth=1)
    assert (wider.first, wider.lines, wider.line, wider.depth) == (8, ["        pass"], 9, 1)
    assert cuts.plan(MODEL, 9, calls, depth=2) == "it is in the entry's own function, which cannot be cut"
    # An error at a helper's def line (a call into it named there): its function is cut to what it returned.
    helper = cuts.plan(MODEL, 15, calls)
    assert (helper.first, helper.last, helper.lines[0], helper.value) == \
        (16, 19, "        return _graphlint_cut_16()", 3)  # (named by the first line it replaces)
    assert cuts.apply(MODEL, [helper]).splitlines()[15:19] == ["        return _graphlint_cut_16()", "", "", ""]


def test_what_cannot_be_cut_says_why():
    calls = _calls()
    assert cuts.plan(MODEL, 1, calls) == "the line is not inside a function"
    assert cuts.plan(MODEL, 6, cuts.Calls(entry=2)) == "construct did not run in PYNATIVE_MODE"
    assert cuts.plan("def f(:\n", 1, calls).startswith("the compiled text does not parse")


def test_a_try_whose_body_raised_nothing_keeps_its_body_and_loses_its_handlers():
    calls = _calls()
    calls.lines[14] = [(16, {"x": 3}), (17, {"x": 3}), (0, {"x": 3})]
    cut = cuts.plan(MODEL, 16, calls)
    assert (cut.first, cut.last, cut.lines) == (16, 16, [""])
    assert cuts.apply(MODEL, [cut]).splitlines()[15:19] == ["", "        return x", "", ""]
    # (a handler ran in PYNATIVE_MODE: the body's value is not what a compile sees; the function is cut instead)
    calls.lines[14] = [(16, {"x": 3}), (17, {"x": 3}), (18, {"x": 3}), (19, {"x": 3}), (0, {"x": 3})]
    assert cuts.plan(MODEL, 16, calls).lines == ["        return _graphlint_cut_16()", "", "", ""]


class _Shaped:
    """A stand-in for a Tensor as the recorder holds one: what a compile depends on is its shape and dtype."""

    def __init__(self, *shape, value=0.0):
        self.shape, self.dtype, self.value = shape, "Float32", value


def test_a_cut_is_exact_only_where_every_call_computed_the_same_types_and_shapes():
    """The first call's values stand for the others only where every recorded call (and every step of a loop)
    gave values of the same shapes, dtypes and Python numbers there; Tensors' values do not matter."""
    calls = _calls()
    first = [(3, {"x": 1}), (4, {"x": 1}), (5, {"x": 1}), (6, {"y": _Shaped(2, 4, value=1.0), "z": 20}),
             (8, {}), (0, {})]
    again = [(3, {"x": 1}), (4, {"x": 1}), (5, {"x": 1}), (6, {"y": _Shaped(2, 4, value=7.0), "z": 20}),
             (8, {}), (0, {})]
    calls.lines[2], calls.runs[2] = first, [first, again]
    assert cuts.plan(MODEL, 5, calls).exact  # (other values, the same shapes)
    wider = [(3, {"x": 1}), (4, {"x": 1}), (5, {"x": 1}), (6, {"y": _Shaped(2, 8), "z": 20}), (8, {}), (0, {})]
    calls.runs[2] = [first, wider]
    cut = cuts.plan(MODEL, 5, calls)
    assert not cut.exact and cut.lines == ["        y, z = _graphlint_cut_5()"]  # (no exact cut there: suggested)
    # The loop's target took other numbers at its second step: not the statement but the whole loop is cut.
    loop_steps = [(6, {}), (7, {"t": 5, "y": _Shaped(2)}), (6, {"t": 5}), (7, {"t": 4, "y": _Shaped(3)}),
                  (6, {"t": 4}), (8, {"t": 4, "y": _Shaped(3), "z": 1, "x": 1})]
    calls.lines[2], calls.runs[2] = loop_steps, [loop_steps]
    cut = cuts.plan(MODEL, 7, calls)
    assert cut.exact and (cut.first, cut.last) == (6, 7) and cut.lines[0].strip().endswith("= _graphlint_cut_6()")


def test_a_cut_putting_in_an_object_the_model_built_is_not_exact():
    """A dataclass the model built from Tensors, put in as a constant, is not what the compile would see: what the
    compile meets after it is only suggested."""
    class Output:
        pass

    calls = _calls()
    calls.returns[2], calls.all_returns[2] = Output(), [Output()]
    cut = cuts.plan(MODEL, 12, calls)
    assert cut.lines == ["        return _graphlint_cut_12()"] and not cut.exact
    calls.returns[2], calls.all_returns[2] = (_Shaped(2, 3), 1.0), [(_Shaped(2, 3), 1.0)]
    assert cuts.plan(MODEL, 12, calls).exact
